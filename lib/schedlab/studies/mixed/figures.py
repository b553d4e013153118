"""The figures of the mixed-policies study (thesis Figs. 5.1-5.5, 5.15 and
their counterparts for the other traces), built with matplotlib."""
from __future__ import annotations

import math
import warnings
from typing import Sequence

import numpy as np

from ...protocol import plots
from .analysis import Analysis, Learning, best_index
from .params import OPTIMISERS, POLICIES


def _integer_ticks(axis) -> None:
    from matplotlib import ticker
    axis.set_major_locator(ticker.MaxNLocator(integer=True))


def _plain_log(axis) -> None:
    """Log-scale ticks at 1, 2, 5 x 10^k labelled as plain numbers."""
    from matplotlib import ticker
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


_OPT_COLOURS = {"xnes3": "#1f77b4", "xnes6": "#d62728", "cma3": "#2ca02c", "cma6": "#ff7f0e",
                "random3": "0.5", "random6": "0.2"}
_SERIES_STYLE = {"FCFS": dict(color="0.55", lw=0.9), "SAF": dict(color="#1f77b4", lw=1.0),
                 "w*": dict(color="#d62728", lw=1.1), "w*_train": dict(color="#2ca02c", lw=1.0, ls="--"),
                 "w_greedy": dict(color="#9467bd", lw=0.9, ls=":")}


def figure_pure(analyses: Sequence[Analysis]):
    """Thesis Fig. 5.1: Tukey box plots of the weekly average bsld of the 12
    pure policies, sorted by their mean; the three best filled."""
    n = len(analyses)
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    with plots.style():
        fig = plots.figure(7.0, 2.4 * rows + 0.3)
        axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
        for ax, a in zip(axes, analyses):
            pure = a.weeks.pure
            order = np.argsort(np.nanmean(pure, axis=0))
            data = [pure[:, j][~np.isnan(pure[:, j])] for j in order]
            bp = ax.boxplot(data, whis=1.5, patch_artist=True, widths=0.6,
                            medianprops=dict(color="k", lw=0.8), flierprops=dict(ms=2, alpha=0.5))
            for k, box in enumerate(bp["boxes"]):
                box.set_facecolor(plots.trace_color(a.name) if k < 3 else "white")
                box.set_alpha(0.8 if k < 3 else 1.0)
            ax.plot(np.arange(1, len(order) + 1), np.nanmean(pure[:, order], axis=0), "k^", ms=3,
                    label="mean")
            ax.set_xticks(np.arange(1, len(order) + 1), [POLICIES[j] for j in order], rotation=60)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_title(f"{a.name} ({len(a.weeks.units)} weeks)")
            ax.set_ylabel("weekly average bsld")
        for ax in axes[n:]:
            ax.set_visible(False)
        axes[0].legend(loc="upper left")
    return fig


def figure_saf(analyses: Sequence[Analysis]):
    """Thesis Figs. 5.2, 5.6, 5.9, 5.12: SAF against the best pure policy of
    each week (coloured by which policy it is) and against w*."""
    import matplotlib
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    n = len(analyses)
    cmap = matplotlib.colormaps["tab20"]
    colour = {p: cmap(i / max(len(POLICIES) - 1, 1)) for i, p in enumerate(POLICIES)}
    with plots.style():
        fig = plots.figure(7.0, 1.9 * n + 0.6)
        axes = fig.subplots(n, 1, squeeze=False)[:, 0]
        seen = set()
        for ax, a in zip(axes, analyses):
            lr = a.weeks
            x = lr.units
            ax.bar(x, lr.column("SAF"), color="0.85", width=0.9, label="SAF")
            names = lr.best_pure_name
            for p in POLICIES:
                sel = np.array([b == p for b in names])
                if sel.any():
                    ax.plot(x[sel], lr.best_pure[sel], ls="none", marker="o", ms=3, color=colour[p])
                    seen.add(p)
            ax.plot(x, lr.opt, ls="none", marker="_", ms=5, color="#d62728")
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_ylabel(f"{a.name}\nweekly avg bsld")
            ax.set_xlim(x[0] - 1, x[-1] + 1)
            _integer_ticks(ax.xaxis)
        axes[-1].set_xlabel("week")
        handles = [Patch(color="0.85", label="SAF"),
                   Line2D([], [], ls="none", marker="_", ms=6, color="#d62728", label="w* (grid)")]
        handles += [Line2D([], [], ls="none", marker="o", ms=3, color=colour[p], label=f"best pure: {p}")
                    for p in POLICIES if p in seen]
        fig.legend(handles=handles, loc="outside lower center", ncols=5, fontsize=7)
    return fig


def _figure_series(items: Sequence[tuple[str, Learning]], unit_label: str):
    n = len(items)
    with plots.style():
        fig = plots.figure(7.0, 1.9 * n + 0.6)
        axes = fig.subplots(n, 1, squeeze=False)[:, 0]
        for ax, (name, lr) in zip(axes, items):
            x = lr.units
            for label, mask, shade in (("training", lr.train, "#e8f4e8"), ("testing", lr.test, "#f4ece8")):
                if mask.any():
                    ax.axvspan(x[mask].min() - 0.5, x[mask].max() + 0.5, color=shade, zorder=0)
                    ax.text((x[mask].min() + x[mask].max()) / 2, 1.0, label, transform=ax.get_xaxis_transform(),
                            ha="center", va="top", fontsize=7, color="0.4")
            series = lr.series()
            for key, st in _SERIES_STYLE.items():
                ax.plot(x, series[key], drawstyle="steps-mid", label=key, **st)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_ylabel(f"{name}\n{unit_label}ly avg bsld")
            ax.set_xlim(x[0] - 0.5, x[-1] + 0.5)
            _integer_ticks(ax.xaxis)
        axes[-1].set_xlabel(unit_label)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=5)
    return fig


def figure_weekly(analyses: Sequence[Analysis]):
    """Thesis Figs. 5.3, 5.7, 5.10, 5.13: FCFS, SAF, w*, w*_train and
    w_greedy week by week, training and testing weeks shaded."""
    return _figure_series([(a.name, a.weeks) for a in analyses], "week")


def figure_months(analyses: Sequence[Analysis]):
    """Thesis Fig. 5.15: the same at month granularity."""
    items = [(a.name, a.months) for a in analyses if a.months is not None]
    return _figure_series(items, "month") if items else None


def _diamond(values: np.ndarray, points: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The q <= 0 and q >= 0 halves of the sphere as images over (w_p, w_r)."""
    neg = np.full((2 * n + 1, 2 * n + 1), np.nan)
    pos = neg.copy()
    i = np.rint(points[:, 1] * n).astype(int) + n
    j = np.rint(points[:, 2] * n).astype(int) + n
    up, down = points[:, 0] >= -1e-12, points[:, 0] <= 1e-12
    pos[j[up], i[up]] = values[up]
    neg[j[down], i[down]] = values[down]
    return neg, pos


def figure_maps(a: Analysis, weeks: Sequence[int]):
    """Thesis Fig. 5.4: weekly average bsld over the sphere ||w||_1 = 1 of
    (q, p~, r) for consecutive weeks, each as its halves q <= 0 (left) and
    q >= 0 (right) drawn over the (w_p~, w_r) plane (w_q = -+(1 - |w_p~| -
    |w_r|)); lighter is better (log colour scale, per week).  Red dot: the
    week's optimum; blue triangle: w*_train."""
    from matplotlib.colors import LogNorm
    weeks = [w for w in weeks if w in a.maps]
    if not weeks or a.map_points is None:
        return None
    pts = a.map_points
    n = int(round(1 / np.min(np.abs(pts[np.abs(pts) > 0]))))
    wt = a.weeks.w_train
    cols = 2 * min(len(weeks), 2)
    rows = math.ceil(len(weeks) / 2)
    with plots.style():
        fig = plots.figure(7.0, 2.0 * rows + 0.4)
        axes = fig.subplots(rows, cols, squeeze=False)
        for k, week in enumerate(weeks):
            vals = a.maps[week]
            neg, pos = _diamond(vals, pts, n)
            lo, hi = np.nanmin(vals), np.nanmax(vals)
            norm = LogNorm(vmin=lo, vmax=max(hi, lo * 1.0001))
            ibest = best_index(vals, pts)
            wb = pts[ibest]
            r, c = divmod(k, 2)
            for h, (img, half) in enumerate(((neg, "q <= 0"), (pos, "q >= 0"))):
                ax = axes[r, 2 * c + h]
                im = ax.imshow(img, origin="lower", extent=(-1 - 0.5 / n, 1 + 0.5 / n) * 2,
                               cmap="magma_r", norm=norm, interpolation="nearest")
                sign = -1 if h == 0 else 1
                if sign * wb[0] >= -1e-12:
                    ax.plot(wb[1], wb[2], "o", color="red", ms=4, mec="white", mew=0.5)
                if sign * wt[0] >= -1e-12:
                    ax.plot(wt[1], wt[2], "^", color="#1f77b4", ms=4, mec="white", mew=0.5)
                ax.set_title(f"week {week}, {half}", fontsize=8)
                ax.set_xticks([-1, 0, 1])
                ax.set_yticks([-1, 0, 1])
                ax.grid(False)
                if h == 0:
                    ax.set_ylabel("w_r (FCFS +)")
                ax.set_xlabel("w_p~ (SPF +)")
            cb = fig.colorbar(im, ax=list(axes[r, 2 * c:2 * c + 2]), shrink=0.8, pad=0.02)
            _plain_log(cb.ax.yaxis)
        for k in range(len(weeks), rows * cols // 2):    # the empty slots of the last row
            r, c = divmod(k, 2)
            axes[r, 2 * c].set_visible(False)
            axes[r, 2 * c + 1].set_visible(False)
    return fig


def figure_search(analyses: Sequence[Analysis]):
    """Thesis Figs. 5.5, 5.8, 5.11, 5.14: each black-box weekly optimum
    divided by the grid optimum w*_3 of the same week (below 1: better than
    the grid)."""
    items = [a for a in analyses if a.search is not None]
    if not items:
        return None
    markers = {o: (mk, _OPT_COLOURS[o]) for o, mk in zip(OPTIMISERS, "osx+.1")}
    with plots.style():
        fig = plots.figure(7.0, 1.8 * len(items) + 0.6)
        axes = fig.subplots(len(items), 1, squeeze=False)[:, 0]
        for ax, a in zip(axes, items):
            units = list(a.weeks.units)
            for opt in a.search.optimiser.values:
                v = a.search.mean_bsld.sel(optimiser=opt).reindex(unit=units).values
                mk, col = markers.get(str(opt), ("o", "k"))
                ax.plot(a.weeks.units, v / a.weeks.opt, ls="none", marker=mk, ms=3, color=col,
                        label=str(opt), mfc="none" if mk in "os" else None)
            ax.axhline(1.0, color="k", lw=0.7)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_ylabel(f"{a.name}\nbsld / grid w*_3")
            _integer_ticks(ax.xaxis)
        axes[-1].set_xlabel("week")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=4)
    return fig


def figure_convergence(analyses: Sequence[Analysis]):
    """Median over the weeks of the best value found after k evaluations,
    divided by the week's grid optimum, per optimiser (25-75% band)."""
    items = [a for a in analyses if a.search is not None]
    if not items:
        return None
    colours = _OPT_COLOURS
    with plots.style():
        fig = plots.figure(7.0, 2.3 * math.ceil(len(items) / 2) + 0.5)
        axes = fig.subplots(math.ceil(len(items) / 2), min(len(items), 2), squeeze=False).ravel()
        for ax, a in zip(axes, items):
            units = list(a.weeks.units)
            for opt in a.search.optimiser.values:
                h = a.search.best_so_far.sel(optimiser=opt).reindex(unit=units).values
                r = h / a.weeks.opt[:, None]
                ok = ~np.all(np.isnan(r), axis=1)
                if not ok.any():
                    continue
                used = ~np.all(np.isnan(r[ok]), axis=0)         # evaluations some week made
                r = r[ok][:, used]
                k = np.flatnonzero(used) + 1
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)   # weeks that stopped earlier: NaN
                    med = np.nanmedian(r, axis=0)
                    lo, hi = np.nanpercentile(r, [25, 75], axis=0)
                ax.plot(k, med, color=colours.get(str(opt), "k"), label=str(opt))
                ax.fill_between(k, lo, hi, color=colours.get(str(opt), "k"), alpha=0.15, lw=0)
            ax.axhline(1.0, color="k", lw=0.7)
            ax.set_xscale("log")
            _plain_log(ax.xaxis)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_title(a.name)
            ax.set_xlabel("simulations")
            ax.set_ylabel("best so far / grid w*_3")
        for ax in axes[len(items):]:
            ax.set_visible(False)
        axes[0].legend()
    return fig


