"""The figures of the classification study (thesis Figs. 6.4-6.9), built
with matplotlib."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...protocol import plots
from .analysis import TraceResult
from .cells import FEATURE_LABELS, FEATURES
from .params import THESIS_VARIANTS, VARIANT_LABELS

VARIANT_COLORS = {"base": "0.15", "classification": "#ff7f0e", "classification-idempotent": "#17becf",
                  "class-clairvoyant": "#2ca02c", "runtime-clairvoyant": "#9467bd", "easy++": "#8c564b"}


def _grid(n: int, per_row: int = 3):
    cols = min(n, per_row)
    rows = -(-n // cols)
    return rows, cols


def figure_weekly_scores(res: Sequence[TraceResult]):
    """Thesis Fig. 6.4: accuracy, precision and recall of every week."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.3 * n + 0.7)
        axes = fig.subplots(n, 1, squeeze=False, sharex=False)[:, 0]
        for ax, r in zip(axes, res):
            w = r.weekly
            x = np.arange(r.prepared.n_weeks)
            for key, colour in (("accuracy", "0.2"), ("precision", "#1f77b4"), ("recall", "#d62728")):
                ax.plot(x[1:], w[key][1:], color=colour, lw=0.9, label=key, marker=".", ms=2)
            ax.set_ylim(0, 105)
            ax.set_ylabel(f"{r.name}\n%")
            ax.set_xlim(-0.5, max(r.prepared.n_weeks - 0.5, 1))
        axes[-1].set_xlabel("week (the model of week k is trained on the jobs known at its start)")
        axes[0].legend(loc="lower right", ncols=3)
    return fig


def figure_importance(res: Sequence[TraceResult]):
    """Thesis Fig. 6.5: Gini importances of the weekly models."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.5 * n + 0.8)
        axes = fig.subplots(n, 1, squeeze=False, sharex=True)[:, 0]
        groups = [f[2] for f in FEATURES]
        colours = {"job": "#1f77b4", "temporal": "#7f7f7f", "lag": "#ff7f0e", "aggregation": "#2ca02c"}
        for ax, r in zip(axes, res):
            imp = np.asarray(r.classify.feature_importance.values)
            imp = imp[np.all(np.isfinite(imp), axis=1)]
            data = [imp[:, j] for j in range(len(FEATURES))] if imp.size else [np.zeros(0)] * len(FEATURES)
            bp = ax.boxplot(data, widths=0.6, patch_artist=True, showfliers=False)
            for patch, g in zip(bp["boxes"], groups):
                patch.set_facecolor(colours[g])
                patch.set_alpha(0.6)
            for med in bp["medians"]:
                med.set_color("k")
            ax.set_ylabel(f"{r.name}\nimportance")
        axes[-1].set_xticks(np.arange(1, len(FEATURES) + 1), FEATURE_LABELS, rotation=60)
        from matplotlib.patches import Patch
        fig.legend(handles=[Patch(color=c, alpha=0.6, label=g) for g, c in colours.items()],
                   loc="outside upper center", ncols=4)
    return fig


_POLICY_STYLES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (1, 3)))


def figure_cumulative(res: Sequence[TraceResult], variants=("base", "classification-idempotent")):
    """Thesis Fig. 6.7: cumulative total bsld through time, base (black)
    vs classification-idempotent (cyan), one line style per policy."""
    from matplotlib.lines import Line2D
    rows, cols = _grid(len(res), 2)
    with plots.style():
        fig = plots.figure(7.0, 2.2 * rows + 0.6)
        axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
        pols = res[0].schedule.policy.values.tolist() if res else []
        for ax, r in zip(axes, res):
            x = np.arange(1, r.prepared.n_weeks + 1)
            for i, pol in enumerate(pols):
                for v in variants:
                    y = r.schedule.cum_sum_bsld.sel(policy=pol, variant=v).values
                    ax.plot(x, y, color=VARIANT_COLORS[v], ls=_POLICY_STYLES[i % len(_POLICY_STYLES)], lw=1.0)
            ax.set_title(r.name)
            ax.set_xlabel("week")
            ax.set_ylabel("cumulative bsld")
            ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 3))
        for ax in axes[len(res):]:
            ax.set_visible(False)
        handles = [Line2D([], [], color=VARIANT_COLORS[v], label=VARIANT_LABELS[v]) for v in variants]
        handles += [Line2D([], [], color="0.4", ls=_POLICY_STYLES[i % len(_POLICY_STYLES)], label=p)
                    for i, p in enumerate(pols)]
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))
    return fig


def figure_monthly(res: Sequence[TraceResult]):
    """Thesis Fig. 6.6: mean bsld of every month, base vs
    classification-idempotent, each month a line."""
    pols = res[0].schedule.policy.values.tolist() if res else []
    n, k = len(res), len(pols)
    with plots.style():
        fig = plots.figure(max(1.5 * k, 4.0), 1.5 * n + 0.5)
        axes = fig.subplots(n, k, squeeze=False)
        for i, r in enumerate(res):
            for j, pol in enumerate(pols):
                ax = axes[i, j]
                a = r.schedule.month_mean_bsld.sel(policy=pol, variant="base").values
                b = r.schedule.month_mean_bsld.sel(policy=pol, variant="classification-idempotent").values
                ok = np.isfinite(a) & np.isfinite(b)
                better = b[ok] <= a[ok]
                for ya, yb, good in zip(a[ok], b[ok], better):
                    ax.plot([0, 1], [ya, yb], color="#17becf" if good else "#d62728", lw=0.7, marker="o", ms=2)
                ax.set_yscale("log")
                ax.set_xlim(-0.3, 1.3)
                ax.set_xticks([0, 1], ["base", "CI"])
                ax.grid(False, axis="x")
                if i == 0:
                    ax.set_title(pol)
                if j == 0:
                    ax.set_ylabel(f"{r.name}\nmonthly mean bsld")
    return fig


def figure_small_large(res: Sequence[TraceResult]):
    """Thesis Fig. 6.8: mean bsld of small and large jobs, base vs
    classification-idempotent."""
    pols = res[0].schedule.policy.values.tolist() if res else []
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.6 * n + 0.6)
        axes = fig.subplots(n, 2, squeeze=False)
        x = np.arange(len(pols))
        for i, r in enumerate(res):
            for j, cls in enumerate(("small", "large")):
                ax = axes[i, j]
                for o, v in ((-0.2, "base"), (0.2, "classification-idempotent")):
                    y = [float(r.schedule[f"mean_bsld_{cls}"].sel(policy=p, variant=v)) for p in pols]
                    ax.bar(x + o, y, width=0.4, color=VARIANT_COLORS[v], label=VARIANT_LABELS[v])
                ax.set_xticks(x, pols)
                if i == 0:
                    ax.set_title(f"{cls} jobs")
                if j == 0:
                    ax.set_ylabel(f"{r.name}\nmean bsld")
        axes[0, 0].legend(loc="upper right")
    return fig


def figure_totals(res: Sequence[TraceResult], variants=THESIS_VARIANTS):
    """Thesis Fig. 6.9: total bsld per policy and variant, relative to the
    base policy."""
    pols = res[0].schedule.policy.values.tolist() if res else []
    rows, cols = _grid(len(res), 2)
    with plots.style():
        fig = plots.figure(7.0, 2.0 * rows + 0.6)
        axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
        w = 0.8 / len(variants)
        x = np.arange(len(pols))
        for ax, r in zip(axes, res):
            for i, v in enumerate(variants):
                y = [r.total(p, v) for p in pols]
                ax.bar(x - 0.4 + w * (i + 0.5), y, width=w, color=VARIANT_COLORS[v], label=VARIANT_LABELS[v])
            ax.set_xticks(x, pols)
            ax.set_title(r.name)
            ax.set_ylabel("total bsld")
            ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 3))
        for ax in axes[len(res):]:
            ax.set_visible(False)
        h, lab = axes[0].get_legend_handles_labels()
        fig.legend(h, lab, loc="outside lower center", ncols=len(variants))
    return fig
