"""The figures of the runtime-prediction study: gaussier2015 Figs. 4-5
(ECDFs of the prediction errors and of the predicted values) and the
AVEbsld of every triple relative to EASY."""
from __future__ import annotations

import math

import numpy as np

from ...protocol import plots
from ...engine import prediction
from .analysis import _fig_runs, _short, _v, easy


FIG_ESTIMATES = (("requested", "requested", "0.55", "-"), ("easy++", "EASY++ (AVE2)", "#1f77b4", "-"),
                 ("learned:" + prediction.E_LOSS.name, "E-Loss", "#d62728", "-"),
                 ("learned:" + prediction.SQUARED_LOSS.name, "squared loss", "#2ca02c", "--"))


def _NullLocator():
    from matplotlib.ticker import NullLocator
    return NullLocator()


def _ecdf_figure(ds, variable: str, runs, xlabel: str, values=lambda x: x, axis=lambda ax: None):
    """One ECDF panel per log of ``variable`` (quantiles over the jobs) for
    each estimate of ``runs`` ((estimate, label, colour, line style)) present
    in ``ds``; ``values`` maps the quantiles, ``axis`` sets up each panel."""
    traces = [str(x) for x in ds.trace.values]
    b, c = _fig_runs(ds)
    levels = ds["quantile"].values
    ests = [str(x) for x in ds.estimate.values]
    n = len(traces)
    with plots.style():
        fig = plots.figure(min(2.4 * n, 12.0), 2.8)
        axes = fig.subplots(1, n, squeeze=False, sharey=True)[0]
        for ax, t in zip(axes, traces):
            for e, label, colour, ls in runs:
                if e not in ests:
                    continue
                x = ds[variable].sel(trace=t, backfill=b, estimate=e, correction=c).values
                ax.plot(values(x), levels, color=colour, ls=ls, label=label, drawstyle="steps-post")
            axis(ax)
            ax.set_title(t)
            ax.set_xlabel(xlabel)
        axes[0].set_ylabel("fraction of jobs")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return fig


def figure_errors(ds):
    """gaussier2015 Fig. 4: ECDF of the prediction errors (estimate - duration)
    of the main techniques, one panel per log (symmetric log scale, cut at
    +-10^6 s)."""
    def axis(ax):
        ax.axvline(0, color="k", lw=0.6)
        ax.set_xscale("symlog", linthresh=100)
        ax.set_xlim(-1e6, 1e6)                 # +-11.6 days; the rare larger errors run off the sides
        ax.set_xticks([-1e5, -1e3, 0, 1e3, 1e5])
        ax.xaxis.set_minor_locator(_NullLocator())

    return _ecdf_figure(ds, "error_quantiles", FIG_ESTIMATES, "estimate - duration (s)", axis=axis)


def figure_predicted(ds):
    """gaussier2015 Fig. 5: ECDF of the predicted values (and, for the
    clairvoyant estimate, of the durations), one panel per log (log scale)."""
    runs = (("clairvoyant", "actual duration", "k", ":"),) + FIG_ESTIMATES
    return _ecdf_figure(ds, "predicted_quantiles", runs, "estimate at submission (s)",
                        values=lambda x: np.maximum(x, 0.5), axis=lambda ax: ax.set_xscale("log"))


def figure_triples(ds):
    """AVEbsld of every non-clairvoyant triple relative to EASY (log2 colour
    scale: blue better, red worse), one panel per log."""
    from matplotlib.colors import TwoSlopeNorm
    traces = [str(x) for x in ds.trace.values]
    ests = [str(e) for e in ds.estimate.values if str(e) != "clairvoyant"]
    cols = [(str(b), str(c)) for b in ds.backfill.values for c in ds.correction.values]
    n = len(traces)
    with plots.style():
        fig = plots.figure(min(1.6 * n + 2.2, 12.0), 0.17 * len(ests) + 1.6)
        axes = fig.subplots(1, n, squeeze=False, sharey=True)[0]
        norm = TwoSlopeNorm(vmin=-3.0, vcenter=0.0, vmax=3.0)
        im = None
        for ax, t in zip(axes, traces):
            base = easy(ds, t)
            z = np.array([[math.log2(_v(ds, "mean_bsld", t, b, e, c) / base) if base > 0 else np.nan
                           for b, c in cols] for e in ests])
            im = ax.imshow(np.clip(z, -3, 3), cmap="RdBu_r", norm=norm, aspect="auto", interpolation="nearest")
            ax.set_xticks(range(len(cols)), [f"{'EASY' if b == 'FCFS' else b} {c[:4]}." for b, c in cols],
                          rotation=90)
            ax.set_title(t)
            ax.grid(False)
        axes[0].set_yticks(range(len(ests)), [_short(e) for e in ests])
        if im is not None:
            cb = fig.colorbar(im, ax=list(axes), shrink=0.8)
            cb.set_label("log2(AVEbsld / EASY's)")
    return fig
