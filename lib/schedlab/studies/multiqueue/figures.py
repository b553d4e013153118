"""The figures of the multiple-queue study: lawson2005 Figs. 4-9 (aggregate
and weekly R of multiple queues and of online simulation), with the
published values where the paper gives them."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...protocol import plots
from .analysis import TraceResult, _label
from .published import PUBLISHED, _published_r


def _bars(ax, groups: list[str], series: list[tuple[str, list[float], dict]]):
    n = len(series)
    width = 0.8 / max(n, 1)
    x = np.arange(len(groups))
    for i, (label, values, kw) in enumerate(series):
        v = np.array([np.nan if u is None else u for u in values], dtype=float)
        ax.bar(x + (i - (n - 1) / 2) * width, v, width, label=label, **kw)
    ax.set_xticks(x, groups)
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_ylabel("aggregate slowdown ratio R")


def figure_fig4(results: Sequence[TraceResult], pmax: int):
    """Aggregate R of P = pmax queues: exact (a priori) and user estimates."""
    with plots.style():
        fig = plots.figure(6.0, 3.0)
        ax = fig.subplots()
        names = [r.name for r in results]
        _bars(ax, names, [("exact estimates, a priori criteria", [r.fixed_r("exact", pmax) for r in results],
                           {"color": "0.35"}),
                          ("user estimates, previous week's criteria", [r.fixed_r("user", pmax) for r in results],
                           {"color": "0.75"})])
        for i, r in enumerate(results):
            b = PUBLISHED["fig4a_lower_bounds"].get(r.name)
            if b is not None:
                ax.plot([i - 0.4, i], [b, b], color="C3", lw=1.5)
        ax.plot([], [], color="C3", lw=1.5, label="paper: exact R above this (§2.3)")
        ax.set_title(f"multiple-queue backfilling, P = {pmax}, vs single-queue EASY")
        ax.legend(loc="best")
    return fig


def _weekly_axes(fig, n: int):
    from matplotlib.ticker import MaxNLocator
    axes = fig.subplots(n, 1, squeeze=False, sharex=False)[:, 0]
    for ax in axes:
        ax.axhline(0.0, color="k", lw=0.6)
        ax.set_yscale("symlog", linthresh=1.0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1].set_xlabel("week")
    return axes


def figure_fig5(results: Sequence[TraceResult], pmax: int):
    """Weekly R of P = pmax queues: exact (dashed) and user (solid)."""
    with plots.style():
        fig = plots.figure(6.5, 1.5 * len(results) + 0.6)
        axes = _weekly_axes(fig, len(results))
        for ax, r in zip(axes, results):
            c = plots.trace_color(r.name)
            for est, ls in (("exact", "--"), ("user", "-")):
                y = r.fixed.weekly_slowdown_ratio.sel(estimate=est, partitions=pmax).values
                ax.plot(np.arange(y.size), y, ls=ls, color=c, lw=1.0, label=f"{est} estimates")
            ax.set_ylabel(f"{r.name}\nR per week")
        axes[0].legend(loc="upper right", ncols=2)
        axes[0].set_title(f"P = {pmax} queues vs single queue, per week of submission (symlog scale)")
    return fig


def figure_fig6(results: Sequence[TraceResult], pmax: int):
    """Aggregate R: MQ exact, MQ user, online (paper's and our T/L)."""
    with plots.style():
        fig = plots.figure(6.5, 3.0)
        ax = fig.subplots()
        names = [r.name for r in results]
        pub = [PUBLISHED["table1"].get(r.name) for r in results]
        at_pub = [r.online_stats("user", *p)["R"] if p and r.has_online("user", *p) else None
                  for r, p in zip(results, pub)]
        best = [(r.best("user") or (None, None, None))[2] for r in results]
        _bars(ax, names, [(f"P={pmax} exact (a priori)", [r.fixed_r("exact", pmax) for r in results],
                           {"color": "0.3"}),
                          (f"P={pmax} user", [r.fixed_r("user", pmax) for r in results], {"color": "0.7"}),
                          ("online, user, paper's T/L", at_pub, {"color": "C0"}),
                          ("online, user, our best T/L", best, {"color": "C9"})])
        # The paper's value for its own T/L (Table 3), over the third bar.
        for i, (r, tl) in enumerate(zip(results, pub)):
            v = _published_r(r.name, *tl) if tl else None
            if v is not None:
                ax.plot([i + 0.0, i + 0.2], [v, v], color="k", lw=1.8)
        ax.plot([], [], color="k", lw=1.8, label="paper, online, its T/L (Table 3)")
        ax.legend(loc="best", ncols=2)
    return fig


def figure_fig7(results: Sequence[TraceResult], pmax: int):
    """Weekly R of online simulation (paper's T/L; P in force as steps)
    and of P = pmax with exact estimates (dashed)."""
    with plots.style():
        fig = plots.figure(6.5, 1.6 * len(results) + 0.6)
        axes = _weekly_axes(fig, len(results))
        for ax, r in zip(axes, results):
            c = plots.trace_color(r.name)
            y = r.fixed.weekly_slowdown_ratio.sel(estimate="exact", partitions=pmax).values
            ax.plot(np.arange(y.size), y, ls="--", color="0.5", lw=0.9, label=f"P={pmax}, exact")
            tl = PUBLISHED["table1"].get(r.name) or (r.best("user") or (None, None))[:2]
            if tl[0] is not None and r.has_online("user", *tl):
                y = r.online_sel("weekly_slowdown_ratio", "user", *tl).values
                ax.plot(np.arange(y.size), y, color=c, lw=1.0, label=f"online, user, T/L {_label(*tl)}")
                ps = r.online_sel("weekly_partitions", "user", *tl).values
                ax2 = ax.twinx()
                ax2.step(np.arange(ps.size), ps, where="mid", color="C4", lw=0.7, alpha=0.8)
                ax2.set_ylim(0.5, pmax + 0.5)
                ax2.set_yticks(range(1, pmax + 1))
                ax2.set_ylabel("P in force", color="C4")
                ax2.grid(False)
            ax.set_ylabel(f"{r.name}\nR per week")
            ax.legend(loc="upper left", fontsize=7)
    return fig


def figure_fig8(r: TraceResult, combos: Sequence[tuple[float, int]]):
    with plots.style():
        fig = plots.figure(4.5, 2.8)
        ax = fig.subplots()
        labels = [_label(*c) for c in combos]
        ours = [float(r.online_sel("mean_slowdown_ratio", "user", *c)) if r.has_online("user", *c) else None
                for c in combos]
        _bars(ax, labels, [("ours", ours, {"color": plots.trace_color(r.name)}),
                           ("paper (Table 3)", [_published_r(r.name, *c) for c in combos], {"color": "0.75"})])
        ax.set_xlabel("T / L")
        ax.set_title(f"{r.name}: online simulation, user estimates")
        ax.legend(loc="best")
    return fig


def figure_fig9(r: TraceResult, combos: Sequence[tuple[float, int]]):
    with plots.style():
        fig = plots.figure(6.5, 1.4 * len(combos) + 0.6)
        axes = _weekly_axes(fig, len(combos))
        ref_tl = PUBLISHED["table1"].get(r.name) or (r.best("user") or (None, None))[:2]
        for ax, c in zip(axes, combos):
            if r.has_online("user", *c):
                y = r.online_sel("weekly_slowdown_ratio", "user", *c).values
                ax.plot(np.arange(y.size), y, color=plots.trace_color(r.name), lw=1.0)
            if ref_tl[0] is not None and r.has_online("user", *ref_tl):
                y = r.online_sel("weekly_slowdown_ratio", "user", *ref_tl).values
                ax.plot(np.arange(y.size), y, color="0.5", ls="--", lw=0.8)
            ax.set_ylabel(f"T/L {_label(*c)}\nR per week")
        axes[0].set_title(f"{r.name}: online simulation per week; dashed: T/L "
                          f"{_label(*ref_tl) if ref_tl[0] is not None else '-'}")
    return fig
