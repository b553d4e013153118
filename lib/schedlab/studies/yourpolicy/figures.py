"""The your-policy study's figure."""
from __future__ import annotations

import numpy as np

from ...protocol import plots


def _short(text: str, n: int = 30) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."


def figure_gains(rows, traces):
    """Change of the total wait against EASY(FCFS, Θ), one panel per log: a
    dot and its 95 % interval per policy, yours in orange."""
    fig = plots.figure(4.6 * len(traces), 3.4)
    axes = fig.subplots(1, len(traces), squeeze=False)
    for ax, trace in zip(axes[0], traces):
        rs = sorted((r for r in rows if r["trace"] == trace), key=lambda r: r["change_pct"])
        ys = np.arange(len(rs))
        for y, r in zip(ys, rs):
            color = "#ff7f0e" if r["yours"] else "#1f77b4"
            ax.plot(r["change_pct"], y, "o", color=color, ms=5)
            ax.plot([r["low_pct"], r["high_pct"]], [y, y], color=color, lw=1.5)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_yticks(ys)
        ax.set_yticklabels([_short(r["policy"]) for r in rs], fontsize=7)
        ax.set_xlabel("change of total wait vs EASY(FCFS, Θ) (%)")
        ax.set_title(trace, fontsize=9)
    return fig
