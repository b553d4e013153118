"""The figures of the thresholds study (matplotlib, in the compendium's
style, :mod:`schedlab.protocol.plots`): like lelong2017 Figs. 5-8, and the thesis'
tables as reproduced against published."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...protocol import plots
from .analysis import Fig5, ThesisResult, TrainTest
from .params import HOUR, PUBLISHED, THESIS_COLUMN_NAMES, THESIS_THRESHOLDS
from ...engine.sim import format_duration


def figure_fig5(f: Fig5):
    """Like lelong2017 Fig. 5: mean weekly-relative AvgWait (x, with first
    and last deciles) against MaxWait (y): left the maximum over the weeks,
    right the mean; filled: thresholded, pale: without threshold."""
    with plots.style():
        fig = plots.figure(7.0, 3.3)
        axes = fig.subplots(1, 2)
        colours = [f"C{i}" for i in range(len(f.policies))]
        for ax, key, ylab in ((axes[0], "maxmax", "max MaxWait / EASY-FCFS-FCFS's"),
                              (axes[1], "mean", "mean MaxWait / EASY-FCFS-FCFS's")):
            for k, alpha in (("none", 0.3), ("thr", 1.0)):
                ys = f.maxmax_rel[k] if key == "maxmax" else f.meanmax_rel[k]
                for i, pol in enumerate(f.policies):
                    x = f.avg_rel[k][i]
                    lo, hi = f.avg_dec[k][0][i], f.avg_dec[k][1][i]
                    ax.plot([x], [ys[i]], "o", color=colours[i], alpha=alpha, ms=5,
                            label=pol if (k == "thr" and key == "maxmax") else None)
                    plots.interval(ax, ys[i], lo, hi, axis="x", colors=colours[i], alpha=alpha, lw=0.8)
            ax.plot([1], [1], marker="*", color="k", ms=9, ls="none",
                    label="EASY-FCFS-FCFS" if key == "maxmax" else None)
            if key == "maxmax":
                ax.axhline(f.threshold / HOUR / f.base_maxmax_h, color="0.4", ls="--", lw=0.8)
                ax.text(0.99, f.threshold / HOUR / f.base_maxmax_h, f" T = {format_duration(f.threshold)}",
                        transform=ax.get_yaxis_transform(), ha="right", va="bottom", fontsize=7)
                sec = ax.secondary_yaxis("right", functions=(lambda y: y * f.base_maxmax_h,
                                                             lambda h: h / f.base_maxmax_h))
                sec.set_ylabel("hours")
            ax.axvline(1, color="0.7", lw=0.6)
            ax.set_xlabel("mean AvgWait / EASY-FCFS-FCFS's (deciles)")
            ax.set_ylabel(ylab)
        axes[0].set_title(f"{f.trace}, backfilling {f.backfill}: maximum over {f.weeks} weeks")
        axes[1].set_title("mean over the weeks")
        fig.legend(loc="outside lower center", ncols=len(f.policies) + 1)
    return fig


def _tick_labels(labels):
    return [("none" if lab == "none" else lab) for lab in labels]


def figure_sweep(results: dict[str, dict[str, TrainTest]], trace_order: Sequence[str]):
    """Like lelong2017 Figs. 6-7: AvgWait (top) and MaxWait (bottom) of the
    learned pair relative to EASY-FCFS-FCFS, on the training (dashed) and
    testing (solid) weeks, against the threshold; shaded: 95 % interval of
    the testing AvgWait."""
    names = [n for n in trace_order if n in results]
    n = max(len(names), 1)
    with plots.style():
        fig = plots.figure(max(2.2 * n, 4.0), 4.6)
        axes = fig.subplots(2, n, squeeze=False, sharex=True)
        for j, name in enumerate(names):
            res = results[name]
            labels = list(res)
            x = np.arange(len(labels))
            colour = plots.trace_color(name)
            tr = [res[k].train_avg_rel for k in labels]
            te = [res[k].test_avg_rel for k in labels]
            lo = [1 - res[k].test_gain_ci[1] / 100 for k in labels]
            hi = [1 - res[k].test_gain_ci[0] / 100 for k in labels]
            ax = axes[0, j]
            ax.fill_between(x, lo, hi, color=colour, alpha=0.2, lw=0)
            ax.plot(x, tr, ls="--", marker="o", ms=3, color=colour)
            ax.plot(x, te, ls="-", marker="o", ms=3, color=colour)
            ax.axhline(1, color="k", lw=0.6)
            ax.set_title(name)
            ax = axes[1, j]
            ax.plot(x, [res[k].train_max_rel for k in labels], ls="--", marker="o", ms=3, color=colour)
            ax.plot(x, [res[k].test_max_rel for k in labels], ls="-", marker="o", ms=3, color=colour)
            ax.axhline(1, color="k", lw=0.6)
            ax.set_xticks(x, _tick_labels(labels), rotation=60)
            ax.set_xlabel("threshold T")
        axes[0, 0].set_ylabel("AvgWait /\nEASY-FCFS-FCFS's")
        axes[1, 0].set_ylabel("mean MaxWait /\nEASY-FCFS-FCFS's")
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        fig.legend(handles=[Line2D([], [], color="0.3", ls="--", marker="o", ms=3, label="training weeks"),
                            Line2D([], [], color="0.3", ls="-", marker="o", ms=3, label="testing weeks"),
                            Patch(color="0.3", alpha=0.2, label="testing AvgWait, 95 % interval")],
                   loc="outside lower center", ncols=3)
    return fig


def figure_fig8(res: dict[str, TrainTest], trace_order: Sequence[str], threshold: int):
    """Like lelong2017 Fig. 8: the mean AvgWait of every pair minus
    EASY-FCFS-FCFS's, on the training and the testing weeks, one line per
    pair; the learned pair in colour, the others grey."""
    names = [n for n in trace_order if n in res]
    n = max(len(names), 1)
    with plots.style():
        fig = plots.figure(max(1.6 * n, 4.0), 3.4)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, name in zip(axes, names):
            r = res[name]
            for k in range(r.train_diff.size):
                if k != r.index:
                    ax.plot([0, 1], [r.train_diff[k], r.test_diff[k]], color="0.6", lw=0.5, alpha=0.6)
            ax.plot([0, 1], [r.train_diff[r.index], r.test_diff[r.index]], color=plots.trace_color(name),
                    lw=2, marker="o", ms=4)
            ax.axhline(0, color="k", lw=0.6)
            ax.set_xticks([0, 1], ["train", "test"])
            ax.set_xlim(-0.2, 1.2)
            ax.set_title(f"{name}\n{r.pair}", fontsize=7)
            ax.set_xlabel(f"base {r.train_base_avg:.0f} / {r.test_base_avg:.0f} s\n"
                          f"MaxWait {r.test_max:.0f} s", fontsize=7)
        axes[0].set_ylabel("mean AvgWait - EASY-FCFS-FCFS's (s)")
        fig.suptitle(f"T = {format_duration(threshold)}: AvgWait of the pairs from training to testing "
                     "weeks", fontsize=9)
    return fig


def figure_thesis(results: list[ThesisResult]):
    """Reproduced against published thesis values, each divided by FCFS's
    of the same column (so the levels cancel and the order shows).  For a
    trace the thesis did not publish (or a run without FCFS): our values
    per policy, divided by the no-threshold column's smallest."""
    n = max(len(results), 1)
    markers = ["o", "s", "^", "D", "v", "P"]
    with plots.style():
        fig = plots.figure(max(2.3 * n, 4.0), 2.9)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, r in zip(axes, results):
            pub = PUBLISHED["thesis"].get(r.trace, {})
            if "FCFS" in pub and "FCFS" in r.sums:
                top = 1.0
                for k, t in enumerate(r.thresholds):
                    if t not in THESIS_THRESHOLDS:
                        continue
                    c = THESIS_THRESHOLDS.index(t)
                    common = [pol for pol in r.policies if pol in pub]
                    xs = [pub[pol][c] / pub["FCFS"][c] for pol in common]
                    ys = [r.sums[pol][k] / r.sums["FCFS"][k] for pol in common]
                    ax.plot(xs, ys, ls="none", marker=markers[k % len(markers)], ms=4, alpha=0.8,
                            label=THESIS_COLUMN_NAMES.get(t, format_duration(t)))
                    top = max(top, *xs, *ys) if xs else top
                ax.plot([0, top * 1.05], [0, top * 1.05], color="0.6", lw=0.6)
                ax.set_xlabel("thesis, / FCFS")
                ax.set_ylabel("reproduced, / FCFS")
            else:
                x = np.arange(len(r.policies))
                ref = min(r.sums[pol][0] for pol in r.policies) or 1.0
                for k, t in enumerate(r.thresholds):
                    ax.plot(x, [r.sums[pol][k] / ref for pol in r.policies], ls="none",
                            marker=markers[k % len(markers)], ms=4, alpha=0.8,
                            label=THESIS_COLUMN_NAMES.get(t, format_duration(t)))
                ax.set_xticks(x, r.policies, rotation=60)
                ax.set_ylabel(f"reproduced, / best ({format_duration(r.thresholds[0])})")
            ax.set_title(r.trace)
            ax.legend(loc="upper left", fontsize=6)
    return fig
