"""The figure of the learning study."""
from __future__ import annotations

import matplotlib.pyplot as plt


def figure_arms(rows: list[dict], traces: list[str]):
    """Change of the total wait vs FCFS with its interval, per arm (one panel per log)."""
    fig, axes = plt.subplots(1, len(traces), figsize=(6 * len(traces), 5), squeeze=False)
    colour = {"fixed": "0.55", "strategy": "tab:blue", "learned": "tab:red"}
    for ax, t in zip(axes[0], traces):
        rs = sorted((r for r in rows if r["trace"] == t), key=lambda r: r["change_pct"])
        y = range(len(rs))
        ax.errorbar([r["change_pct"] for r in rs], list(y),
                    xerr=[[r["change_pct"] - r["low_pct"] for r in rs], [r["high_pct"] - r["change_pct"] for r in rs]],
                    fmt="none", ecolor="0.3", capsize=2)
        ax.scatter([r["change_pct"] for r in rs], list(y), c=[colour[r["kind"]] for r in rs], zorder=3)
        ax.set_yticks(list(y), [r["arm"] for r in rs])
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlabel("change of the total wait vs EASY(FCFS, Θ) (%)")
        ax.set_title(f"{t}: held-out half")
    fig.tight_layout()
    return fig
