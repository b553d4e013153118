"""The computations of the energy study run over the data: cut the
processors' signals into profiles (one way of cutting at a time),
preprocess and classify every profile (:func:`analyse`), and redo it with
one parameter at a time changed (:func:`sensitivity`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import numpy as np

from . import signals as energy
from .analysis import Analysis, flat_shares, shares
from .params import PERIODICITY_GRID, SEGMENT_MIN_SIZE, Params


def analyse(profiles: Sequence[energy.Profile], prep: energy.Preprocessing, tree: energy.Tree,
            idle_level: float = 0.1, method: str = "",
            prepared: Sequence[energy.Prepared] | None = None) -> Analysis:
    """Preprocess (unless ``prepared`` is given: the same profiles already
    preprocessed with ``prep``) and classify every profile.  A profile left
    with fewer than two points per window of the stationarity test is
    dropped (``too-few-points``)."""
    n = len(profiles)
    cols: dict[str, np.ndarray] = {
        "minutes": np.array([p.minutes for p in profiles], dtype=np.int64),
        "dropped": np.full(n, "", dtype=object),
        "mean_power": np.full(n, np.nan), "mean_scaled": np.full(n, np.nan),
        "outliers": np.zeros(n, dtype=np.int64), "kept_points": np.zeros(n, dtype=np.int64),
        "s_stat": np.full(n, np.nan), "v_stat": np.full(n, np.nan), "p_stat": np.full(n, np.nan),
        **{f"p_{k}": np.full(n, np.nan) for k in energy.CRITERIA},
        "cycles": np.full(n, np.nan), "period": np.full(n, np.nan), "lag": np.full(n, -1, dtype=np.int64),
        "label": np.full(n, "", dtype=object),
    }
    given, prepared = prepared, []
    for i, p in enumerate(profiles):
        cols["mean_power"][i] = p.mean()
        pr = energy.preprocess(p.values, p.lo, p.hi, prep) if given is None else given[i]
        prepared.append(pr)
        dropped = pr.dropped
        if dropped is None and pr.kept < 2 * tree.n_windows:
            dropped = "too-few-points"
        if dropped is not None:
            cols["dropped"][i] = dropped
            continue
        c = energy.classify(pr.values, tree, pr.filled)
        cols["mean_scaled"][i] = float(np.nanmean(pr.values))
        cols["outliers"][i] = pr.outliers
        cols["kept_points"][i] = pr.kept
        cols["s_stat"][i] = c.stationarity.statistic
        cols["v_stat"][i] = c.variability.statistic
        cols["p_stat"][i] = c.periodicity.statistic
        for k in energy.CRITERIA:
            cols[f"p_{k}"][i] = c.periodicity.details[k]
        cols["cycles"][i] = c.periodicity.details["cycles"]
        cols["lag"][i] = c.periodicity.details.get("lag", -1)
        cols["period"][i] = c.periodicity.details["period"]
        cols["label"][i] = c.label
    return Analysis(method, list(profiles), prepared, cols, tree, idle_level)


def derive(ds, method, p: Params, ranges, cache):
    """The profiles cut by ``method`` from the signals of ``ds`` (:func:`schedlab.energy.derive_profiles`)."""
    return energy.derive_profiles(ds, method, channel=p.channel, ranges=ranges,
                                  min_size=SEGMENT_MIN_SIZE, min_shift=p.min_shift, window=p.window,
                                  idle_level=p.idle_level, max_gap=p.max_gap, cache=cache)


def sensitivity(base: Analysis, ds, p: Params, ranges, cache, grid: dict[str, list]) -> list[dict]:
    """Class shares when one parameter at a time takes each value of
    ``grid`` (the others as in ``p``).  Thresholds, the criterion and the
    idle level only re-label (the idle level decides which profiles count as
    idle, not how episodes are cut); ``n_windows`` and ``min_cycles`` re-run
    the tests; ``trim``, ``zscore`` and ``min_length`` the preprocessing too;
    ``min_shift`` re-cuts the segments (only for ``method='segments'``)."""
    rows = []
    for name, values in grid.items():
        if name == "min_shift" and p.method != "segments":
            continue
        if name == "periodicity" and values is None:
            values = PERIODICITY_GRID[p.criterion]
        for v in values:
            if name in ("stationarity", "variability", "periodicity"):
                tree = replace(base.tree, **{name: v})
                s = shares(base, p.include_idle, base.relabel(tree))
            elif name == "criterion":
                tree = replace(base.tree, criterion=v, periodicity=energy.DEFAULT_PERIODICITY[v])
                s = shares(base, p.include_idle, base.relabel(tree))
            elif name == "idle_level":
                s = shares(base, p.include_idle, idle_level=v)
            elif name == "min_shift":
                q = replace(p, min_shift=v)
                a = analyse(derive(ds, p.method, q, ranges, cache), q.preprocessing, q.tree,
                            q.idle_level, p.method)
                s = shares(a, p.include_idle)
            else:
                q = replace(p, **{name: v})
                reuse = base.prepared if name in ("n_windows", "min_cycles") else None
                a = analyse(base.profiles, q.preprocessing, q.tree, q.idle_level, p.method, reuse)
                s = shares(a, p.include_idle)
            rows.append({"parameter": name, "value": v, "default": bool(v == getattr(p, name)), **flat_shares(s)})
    return rows
