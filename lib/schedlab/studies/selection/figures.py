"""The figures of the online-selection study: online-bandit Fig. 2 (the
fixed policies), Figs. 3-4 (the strategies) and Figs. 5-6 (the shares of
the policies a strategy chose)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...protocol import plots
from .analysis import TraceResult, curve, shares
from .params import POLICIES, _STRATEGY_LABEL


#: One colour per policy, the same in every figure of the study.
POLICY_COLORS: dict[str, str] = dict(zip(POLICIES, (
    "#000000", "#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c",
    "#98df8a", "#d62728", "#ff9896", "#9467bd", "#c5b0d5", "#8c564b")))
#: Colours of arms beyond the paper's 12 (a user's ``policies``), in turn.
EXTRA_COLORS = ("#e377c2", "#f7b6d2", "#7f7f7f", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5", "#c49c94")


def policy_color(policy: str, arms: Sequence[str]) -> str:
    """A policy's colour: the paper's policies keep theirs in every figure;
    the others take :data:`EXTRA_COLORS` in the order of ``arms``."""
    if policy in POLICY_COLORS:
        return POLICY_COLORS[policy]
    extra = [p for p in arms if p not in POLICY_COLORS]
    return EXTRA_COLORS[extra.index(policy) % len(EXTRA_COLORS)]


STRATEGY_COLORS = {"full": "#1f77b4", "noisy": "#2ca02c", "bandit": "#d62728", "random": "#7f7f7f"}


def _grid(n: int, width: float = 7.0, row_height: float = 2.0):
    cols = 1 if n == 1 else 2
    rows = (n + cols - 1) // cols
    fig = plots.figure(width, 0.9 + row_height * rows)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def _band(ax, x, mean, p10, p90, color, label, lw=1.1):
    ax.plot(x, 100 * mean, color=color, lw=lw, label=label)
    ax.plot(x, 100 * p10, color=color, lw=0.5, ls="--", alpha=0.6)
    ax.plot(x, 100 * p90, color=color, lw=0.5, ls="--", alpha=0.6)


def figure_fixed(results: Sequence[TraceResult]):
    """Fig. 2 for every trace: change of the cumulative total wait vs FCFS of
    the other fixed policies (the paper: 11) over the weeks (solid: Eq. 11 over the
    resampled traces; dashed: 10th and 90th percentiles)."""
    with plots.style():
        fig, axes = _grid(len(results))
        for ax, r in zip(axes, results):
            base = r.fixed.cum_sum_wait.sel(policy="FCFS").values
            x = np.arange(1, base.shape[-1] + 1)
            for p in r.fixed.policy.values:
                if p == "FCFS":
                    continue
                mean, p10, p90 = curve(r.fixed.cum_sum_wait.sel(policy=p).values, base)
                _band(ax, x, mean, p10, p90, policy_color(str(p), r.policies), str(p), lw=1.0)
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_title(r.name)
            ax.set_xlabel("week")
            ax.set_ylabel("% vs FCFS")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=6)
    return fig


def figure_strategies(results: Sequence[TraceResult], period: str):
    """Figs. 3-4 for every trace and one period: change of the cumulative
    total wait vs FCFS of the strategies (dashed: 10th/90th percentiles);
    dotted grey: the a-posteriori best fixed policy."""
    with plots.style():
        fig, axes = _grid(len(results))
        for ax, r in zip(axes, results):
            base = r.fixed.cum_sum_wait.sel(policy="FCFS").values
            x = np.arange(1, base.shape[-1] + 1)
            for s in r.strategies.strategy.values:
                mean, p10, p90 = curve(r.strategies.cum_sum_wait.sel(strategy=s, period=period).values, base)
                _band(ax, x, mean, p10, p90, STRATEGY_COLORS[str(s)], _STRATEGY_LABEL[str(s)])
            mean, _, _ = curve(r.fixed.cum_sum_wait.sel(policy=r.best_fixed).values, base)
            ax.plot(x, 100 * mean, color="k", ls=":", lw=1.6, label="best fixed (a posteriori)")
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_title(f"{r.name} (best fixed: {r.best_fixed})")
            ax.set_xlabel("week")
            ax.set_ylabel("% vs FCFS")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=5)
    return fig


def figure_shares(results: Sequence[TraceResult], strategy: str):
    """Figs. 5-6: share of the policies a strategy chose, per week, over the
    resampled traces; one row per trace, one column per period."""
    res = [r for r in results if r.strategies is not None]
    periods = [str(d) for d in res[0].strategies.period.values]
    with plots.style():
        fig = plots.figure(7.0, 0.9 + 1.6 * len(res))
        axes = fig.subplots(len(res), len(periods), squeeze=False, sharey=True)
        for row, r in zip(axes, res):
            for ax, d in zip(row, periods):
                sh = shares(r.strategies.policy_chosen.sel(period=d, strategy=strategy).values, len(r.policies))
                x = np.arange(sh.shape[0] + 1)          # week k is drawn over [k, k+1)
                ax.stackplot(x, np.vstack([sh, sh[-1:]]).T, colors=[policy_color(p, r.policies) for p in r.policies],
                             labels=r.policies, step="post", lw=0)
                ax.set_xlim(0, sh.shape[0])
                ax.set_ylim(0, 1)
                ax.set_title(f"{r.name}, Δ = {d}")
                ax.grid(False)
            row[0].set_ylabel("share")
        for ax in axes[-1]:
            ax.set_xlabel("week")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=6)
    return fig
