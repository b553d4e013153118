"""The figures of the policies study (matplotlib, in the compendium's
style, :mod:`schedlab.protocol.plots`): lelong2017 Figs. 2-4, thesis Figs. 4.1-4.4
and online-bandit Table 2 and Fig. 2 as pictures."""
from __future__ import annotations

import contextlib

import numpy as np

from ...protocol import plots
from ... import stats
from ...engine import sim
from .analysis import BanditTrace, LelongResult, ThesisTrace, _bandit_columns, _swap
from .params import BSLD_CLASSES, PUBLISHED, SWAPS, TOP

class _ByName(dict):
    """A style per built-in policy; a user's policy (an expression) gets one
    of ``extra``, chosen from its text (the same on every run)."""

    def __init__(self, pairs, extra):
        super().__init__(pairs)
        self.extra = extra

    def __missing__(self, key):
        import zlib
        return self.extra[zlib.crc32(str(key).encode()) % len(self.extra)]


POLICY_COLORS = _ByName(zip(sim.POLICIES, (
    "#000000", "#7f7f7f", "#1f77b4", "#aec7e8", "#2ca02c", "#98df8a", "#d62728", "#ff9896",
    "#9467bd", "#c5b0d5", "#8c564b", "#ff7f0e", "#17becf")), ("#e377c2", "#bcbd22", "#393b79", "#637939"))

POLICY_MARKERS = _ByName(zip(sim.POLICIES, "osD^v<>pP*Xhd"), "H8+x")


def _plain_log_ticks(axis) -> None:
    """Plain numbers at 1, 2 and 5 times powers of ten on a log axis (0.5, 1, 2 ...)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


@contextlib.contextmanager
def _quiet():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _boxes(ax, data: list[np.ndarray], labels, colors):
    bp = ax.boxplot([d if d.size else np.array([np.nan]) for d in data], tick_labels=labels,
                    patch_artist=True, widths=0.6, showfliers=True,
                    flierprops={"markersize": 2, "alpha": 0.4}, medianprops={"color": "k", "lw": 0.8})
    for patch, c in zip(bp["boxes"], colors):
        patch.set_facecolor(c)
        patch.set_alpha(0.5)


# ------------------------------------------------------------ lelong part --

def figure_lelong_bi(r: LelongResult, kind: str):
    """lelong2017 Fig. 2 (``kind="max"``: largest MaxWait of all weeks) or
    Fig. 3 (``kind="mean"``: mean per-week MaxWait ratio, with deciles)."""
    from matplotlib.lines import Line2D
    with plots.style():
        fig = plots.figure(6.5, 4.4)
        ax = fig.add_subplot()
        for x in r.pairs:
            c, mk = POLICY_COLORS[x["primary"]], POLICY_MARKERS[x["backfill"]]
            xv = x["avg_mean"]
            yv = x["maxmax"] if kind == "max" else x["max_mean"]
            plots.interval(ax, yv, x["avg_d10"], x["avg_d90"], axis="x", colors=c, alpha=0.25, lw=0.7)
            if kind != "max":
                plots.interval(ax, xv, x["max_d10"], x["max_d90"], colors=c, alpha=0.25, lw=0.7)
            ax.plot(xv, yv, ls="none", marker=mk, color=c, mfc=c if x["primary"] == x["backfill"] else "none",
                    ms=5)
        ax.axvline(1, color="0.5", lw=0.6)
        ax.axhline(1, color="0.5", lw=0.6)
        ax.set_xlabel("AvgWait / EASY-FCFS-FCFS's (mean over weeks; bars: deciles)")
        ax.set_ylabel("largest MaxWait of all weeks / EASY-FCFS-FCFS's" if kind == "max"
                      else "MaxWait / EASY-FCFS-FCFS's (mean over weeks; bars: deciles)")
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
        h1 = [Line2D([], [], color=POLICY_COLORS[p], lw=2, label=p) for p in r.policies]
        h2 = [Line2D([], [], color="0.3", ls="none", marker=POLICY_MARKERS[p], mfc="none", label=p)
              for p in r.policies]
        leg = ax.legend(handles=h1, title="P_R (colour)", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.add_artist(leg)
        ax.legend(handles=h2, title="P_B (marker)", loc="lower left", bbox_to_anchor=(1.0, 0.0))
        ax.set_title(f"{len(r.pairs)} EASY-P_R-P_B pairs, {r.weeks} resampled weeks of {r.trace} "
                     f"(filled: P_R = P_B)")
    return fig


def figure_lelong_backfill(r: LelongResult):
    """lelong2017 Fig. 4: AvgWait vs EASY-FCFS-FCFS of each backfilling policy,
    grouped by primary policy, with 95% bootstrap CIs."""
    n = len(r.policies)
    with plots.style():
        fig = plots.figure(6.5, 3.4)
        ax = fig.add_subplot()
        width = 0.8 / n
        for j, pb in enumerate(r.policies):
            xs, ys, lo, hi = [], [], [], []
            for i, pr in enumerate(r.policies):
                x = r.pair(pr, pb)
                xs.append(i - 0.4 + (j + 0.5) * width)
                ys.append(x["avg_mean"])
                lo.append(x["avg_ci_low"])
                hi.append(x["avg_ci_high"])
            ax.plot(xs, ys, ls="none", marker=POLICY_MARKERS[pb], color=POLICY_COLORS[pb], ms=4, label=pb)
            plots.interval(ax, xs, lo, hi, colors=POLICY_COLORS[pb], lw=0.8)
        ax.axhline(1, color="0.5", lw=0.6)
        ax.set_xticks(range(n), [f"P_R = {p}" for p in r.policies])
        ax.set_ylabel("AvgWait / EASY-FCFS-FCFS's")
        ax.legend(title="P_B", ncols=n, loc="upper center", bbox_to_anchor=(0.5, -0.12))
        ax.set_title(f"Backfilling policy conditioned on the primary policy ({r.trace}, 95% CI over weeks)")
    return fig


# ------------------------------------------------------------ thesis part --

def figure_thesis_cumulative(res: list[ThesisTrace]):
    """thesis Fig. 4.1: cumulative weekly mean bsld, pp-bsld and wait, mean
    over samples (line) with the 10-90 percentile band."""
    n = len(res)
    cols = (("cum_mean_bsld", "mean bsld"), ("cum_mean_ppbsld", "mean pp-bsld"), ("cum_avg_wait", "mean wait (h)"))
    with plots.style():
        fig = plots.figure(7.0, 1.6 * n + 0.7)
        axes = fig.subplots(n, 3, squeeze=False)
        for row, t in zip(axes, res):
            for ax, (var, label) in zip(row, cols):
                for pol in t.policies:
                    v = t.dataset[var].sel(policy=pol).values.astype(float)
                    if var == "cum_avg_wait":
                        v = v / 3600
                    x = np.arange(v.shape[-1])
                    with np.errstate(all="ignore"), _quiet():
                        mean = np.nanmean(v, axis=0)
                        lo, hi = stats.deciles(v, axis=0)
                    c = POLICY_COLORS[pol]
                    ax.plot(x, mean, color=c, lw=1.0, label=pol)
                    ax.fill_between(x, lo, hi, color=c, alpha=0.15, lw=0)
                ax.set_ylabel(label)
            row[0].set_ylabel(f"{t.trace}\nmean bsld")
        for ax, (_, label) in zip(axes[0], cols):
            ax.set_title(f"cumulative {label}")
        for ax in axes[-1]:
            ax.set_xlabel("week of the resampled trace")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside upper center", ncols=len(labels),
                   title="lines: mean over resampled traces; bands: 10th-90th percentiles")
    return fig


def figure_thesis_delayed(res: list[ThesisTrace]):
    """thesis Fig. 4.2: processors q of the 100 jobs with the highest bsld of
    each resampled trace (all samples pooled)."""
    n = len(res)
    with plots.style():
        fig = plots.figure(min(2.0 * n + 0.5, 7.5), 2.6)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, t in zip(axes, res):
            data = []
            for pol in t.policies:
                q = t.dataset.top_bsld_procs.sel(policy=pol).values.ravel()
                data.append(q[q > 0].astype(float))
            _boxes(ax, data, t.policies, [POLICY_COLORS[p] for p in t.policies])
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
            ax.set_title(t.trace)
            ax.tick_params(axis="x", labelsize=6.5, rotation=45)
        axes[0].set_ylabel(f"q of the {TOP} jobs with highest bsld")
    return fig


def figure_thesis_classes(res: list[ThesisTrace]):
    """thesis Fig. 4.3: share of the jobs in each bsld category, per policy."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.2 + 1.9 * ((n + 2) // 3))
        axes = fig.subplots((n + 2) // 3, min(n, 3), squeeze=False).ravel()
        for ax, t in zip(axes, res):
            k = len(t.policies)
            width = 0.8 / k
            for j, pol in enumerate(t.policies):
                share = t.classes(pol)
                ax.bar(np.arange(4) - 0.4 + (j + 0.5) * width, share, width, color=POLICY_COLORS[pol], label=pol)
            ax.set_xticks(range(4), list(BSLD_CLASSES), fontsize=7)
            ax.set_xlabel("bsld category", fontsize=7)
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
            ax.set_title(t.trace)
            ax.set_ylabel("% of jobs")
        for ax in axes[n:]:
            ax.set_visible(False)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside upper center", ncols=len(labels))
    return fig


def figure_thesis_backfilled(res: list[ThesisTrace]):
    """thesis Fig. 4.4: backfilled jobs per resampled trace, per policy."""
    n = len(res)
    with plots.style():
        fig = plots.figure(min(2.0 * n + 0.5, 7.5), 2.6)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, t in zip(axes, res):
            data = [t.dataset.backfilled.sel(policy=p).values.astype(float) for p in t.policies]
            _boxes(ax, data, t.policies, [POLICY_COLORS[p] for p in t.policies])
            ax.set_title(t.trace)
            ax.tick_params(axis="x", labelsize=6.5, rotation=45)
            ax.tick_params(axis="y", labelsize=7)
        axes[0].set_ylabel("backfilled jobs per resampled trace")
    return fig


# ------------------------------------------------------------ bandit part --

def figure_bandit(res: list[BanditTrace]):
    """online-bandit Table 2 as dots: ours with 95% CI, the published values
    (x), and the published values with S/L swapped for P, Q, A (hollow)."""
    cols = _bandit_columns(res)
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.5 * n + 0.8)
        axes = fig.subplots(n, 1, squeeze=False, sharex=True)[:, 0]
        for ax, t in zip(axes, res):
            pub = PUBLISHED["bandit_table2"].get(t.trace, {})
            sw = _swap(pub, SWAPS["S/L swapped for P, Q, A"])
            for i, p in enumerate(cols):
                if p in t.change:
                    est, lo, hi = (100 * v for v in t.change[p])
                    ax.plot(i, est, "o", color=POLICY_COLORS[p], ms=4)
                    plots.interval(ax, i, lo, hi, colors=POLICY_COLORS[p], lw=1)
                if p in pub:
                    ax.plot(i + 0.18, pub[p], "x", color="#d62728", ms=5)
                    if sw[p] != pub[p]:
                        ax.plot(i + 0.18, sw[p], "o", mfc="none", mec="0.4", ms=5)
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_ylabel(f"{t.trace}\n% vs FCFS")
        axes[-1].set_xticks(range(len(cols)), cols)
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], color="0.2", marker="o", ls="none", label="ours (95% CI)"),
                   Line2D([], [], color="#d62728", marker="x", ls="none", label="published"),
                   Line2D([], [], color="0.4", marker="o", mfc="none", ls="none",
                          label="published, S/L swapped (P, Q, A)")]
        fig.legend(handles=handles, loc="outside lower center", ncols=3)
    return fig


def figure_bandit_cumulative(res: list[BanditTrace]):
    """online-bandit Fig. 2 for every trace: change of the cumulative total
    waiting time (jobs finished so far) vs FCFS over the weeks, ratio of
    sums over the resampled traces; dashed: 10th/90th percentiles of the
    per-trace ratios for the best policy."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.2 + 1.9 * ((n + 1) // 2))
        axes = fig.subplots((n + 1) // 2, min(n, 2), squeeze=False).ravel()
        for ax, t in zip(axes, res):
            base = t.dataset.cum_sum_wait.sel(policy="FCFS").values.astype(float)
            for p in t.policies:
                if p == "FCFS":
                    continue
                v = t.dataset.cum_sum_wait.sel(policy=p).values.astype(float)
                with _quiet(), np.errstate(all="ignore"):
                    curve = 100 * (v.sum(axis=0) / base.sum(axis=0) - 1)
                x = np.arange(curve.size)
                ax.plot(x, curve, color=POLICY_COLORS[p], lw=1.0, label=p)
                if p == t.best:
                    with _quiet(), np.errstate(all="ignore"):
                        lo, hi = stats.deciles(100 * (stats.relative(v, base) - 1), axis=0)
                    ax.plot(x, lo, color=POLICY_COLORS[p], ls="--", lw=0.7)
                    ax.plot(x, hi, color=POLICY_COLORS[p], ls="--", lw=0.7)
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_title(t.trace)
            ax.set_ylabel("% vs FCFS")
            ax.set_xlabel("week")
        for ax in axes[n:]:
            ax.set_visible(False)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=6)
    return fig
