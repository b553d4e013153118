"""The figures of the traces study: jobs and offered load per week, and the
requested vs actual runtimes (thesis Fig. 6.1).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...protocol import plots
from .analysis import RUNTIME_EDGES
from .cells import TraceStats


def _fmt(value: float, key: str) -> str:
    return f"{value:.0f}" if key == "jobs" else f"{value:.2f}"


def figure_weekly(stats: Sequence[TraceStats]):
    """Jobs per week (left) and offered load per week (right), one row per
    trace; dashed: mean, dotted: median (over the full weeks); a hollow
    marker: the last, partial week."""
    from matplotlib.lines import Line2D
    n = len(stats)
    with plots.style():
        fig = plots.figure(7.0, 1.45 * n + 0.8)
        axes = fig.subplots(n, 2, squeeze=False)
        for row, s in zip(axes, stats):
            w = s.weekly
            summ = w.summary()
            colour = plots.trace_color(s.name)
            x = np.arange(len(w))
            for ax, values, key in ((row[0], w.jobs, "jobs"), (row[1], w.load, "load")):
                full = w.full
                ax.plot(x[full], values[full], color=colour, lw=1.0, drawstyle="steps-mid")
                if (~full).any():
                    ax.plot(x[~full], values[~full], ls="none", marker="o", mfc="none", mec=colour, ms=3)
                ax.axhline(summ[f"{key}_mean"], color="k", ls="--", lw=0.8)
                ax.axhline(summ[f"{key}_median"], color="k", ls=":", lw=0.8)
                top = float(np.max(values)) if len(values) else 1.0
                ax.set_ylim(0, 1.3 * top if top > 0 else 1.0)
                ax.set_xlim(-0.5, max(len(w) - 0.5, 0.5))
                ax.text(0.01, 0.97, f"mean {_fmt(summ[f'{key}_mean'], key)}, "
                        f"median {_fmt(summ[f'{key}_median'], key)}",
                        transform=ax.transAxes, va="top", ha="left", fontsize=7)
            row[1].axhline(1.0, color="0.6", lw=0.6)
            row[0].set_ylabel(f"{s.name}\njobs / week")
            row[1].set_ylabel("offered load")
        for ax in axes[-1]:
            ax.set_xlabel("week since first submission")
        axes[0, 0].set_title("jobs submitted per week")
        axes[0, 1].set_title("offered load per week: sum q*p / (m * 7 days)")
        handles = [Line2D([], [], color="0.3", lw=1.0, label="week"),
                   Line2D([], [], color="k", ls="--", lw=0.8, label="mean (full weeks)"),
                   Line2D([], [], color="k", ls=":", lw=0.8, label="median (full weeks)"),
                   Line2D([], [], color="0.3", ls="none", marker="o", mfc="none", ms=3,
                          label="last (partial) week")]
        fig.legend(handles=handles, loc="outside lower center", ncols=4)
    return fig


def figure_runtimes(stats: Sequence[TraceStats]):
    """Like thesis Fig. 6.1: distribution of requested (top) and actual
    (bottom) runtimes, one column per trace, on log-scaled bins (10 per
    decade); the green line is the divider (median actual runtime of the
    cleaned jobs), the grey ones mark a minute, an hour and a day."""
    n = len(stats)
    with plots.style():
        fig = plots.figure(max(2.0 * n, 4.0), 4.4)
        axes = fig.subplots(2, n, squeeze=False, sharex=True)
        for j, s in enumerate(stats):
            colour = plots.trace_color(s.name)
            d = s.classes["cleaned"].divider
            for i, (kind, h) in enumerate((("requested", s.requested), ("actual", s.actual))):
                ax = axes[i, j]
                share = 100.0 * h.share
                ax.stairs(share, h.edges, fill=True, color=colour, alpha=0.75, lw=0)
                for t in (60, 3600, 86400):
                    ax.axvline(t, color="0.8", lw=0.5, zorder=0)
                if np.isfinite(d) and d > 0:
                    ax.axvline(d, color="g", lw=1.0)
                ax.set_xscale("log")
                ax.set_ylim(0, 1.25 * max(float(share.max()) if share.size else 0.0, 1.0))
                symbol = "p~" if kind == "requested" else "p"
                lines = [f"divider {d:.0f} s"] if i == 1 and np.isfinite(d) else []
                if h.below:
                    lines.append(f"{symbol} = 0: {100.0 * h.below / h.n:.2g}%")
                if h.above:
                    lines.append(f"{symbol} >= {h.edges[-1]:.0e} s: {100.0 * h.above / h.n:.2g}%")
                if lines:
                    ax.text(0.98, 0.97, "\n".join(lines), transform=ax.transAxes, va="top",
                            ha="right", fontsize=7)
                if i == 0:
                    ax.set_title(s.name)
                if j == 0:
                    ax.set_ylabel(f"{kind} runtime\n% of jobs per bin")
                if i == 1:
                    ax.set_xlabel("seconds")
            axes[0, j].set_xlim(RUNTIME_EDGES[0], RUNTIME_EDGES[-1])
    return fig
