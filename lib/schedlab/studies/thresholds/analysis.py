"""The computations of the thresholds study: plain functions of arrays and
datasets (no file, no plot, no printing): relative costs and gains with
their bootstrap intervals, the train/test selection of lelong2017 §7
(:func:`train_test`, :func:`generalisation`), the threshold effect of its
Fig. 5 (:func:`threshold_effect`) and the sums of thesis Tables 5.2-5.5
(:func:`thesis_tables`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ... import __version__, stats
from ...engine import sim
from ...errors import InputError
from .params import CRITERIA, HOUR, LEVEL, N_BOOT
from ...engine.sim import format_duration

# ------------------------------------------------------------- statistics --

def _ratio_stat(a, axis=-1):
    """Ratio of the means of ``a[0]`` and ``a[1]`` along ``axis`` (NaN-aware)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nanmean(a[0], axis=axis) / np.nanmean(a[1], axis=axis)


def ratio_of_means(values, baseline) -> float:
    """mean(values) / mean(baseline) over the weeks where both are known."""
    v, b = _paired(values, baseline)
    return float(_ratio_stat(np.stack([v, b])))


def _paired(values, baseline) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=float).reshape(-1)
    b = np.asarray(baseline, dtype=float).reshape(-1)
    if v.shape != b.shape:
        raise InputError(f"paired values of different lengths: {v.size} and {b.size}")
    ok = np.isfinite(v) & np.isfinite(b)
    return v[ok], b[ok]


def gain_ci(values, baseline, level: float = LEVEL, seed: int = 0,
            n_boot: int = N_BOOT) -> tuple[float, float, float]:
    """Gain over the baseline in %, 100 x (1 - mean(values) / mean(baseline)),
    with a paired percentile-bootstrap confidence interval over the weeks
    (:func:`schedlab.stats.bootstrap_ci`): (gain, low, high)."""
    v, b = _paired(values, baseline)
    if v.size == 0:
        return (float("nan"),) * 3
    est, lo, hi = stats.bootstrap_ci(np.stack([v, b]), axis=-1, level=level, n_boot=n_boot,
                                     seed=seed, stat=_ratio_stat)
    return 100.0 * (1.0 - float(est)), 100.0 * (1.0 - float(hi)), 100.0 * (1.0 - float(lo))


def select(train_avg, train_base, criterion: str = "mean") -> int:
    """Index of the learned pair: ``train_avg`` is (pairs, weeks) AvgWait on
    the training weeks, ``train_base`` the baseline's (weeks,).

    ``"mean"``: the lowest mean AvgWait; ``"mean-ratio"``: the lowest mean of
    the weekly ratios to the baseline.  Ties go to the first pair."""
    a = np.asarray(train_avg, dtype=float)
    if a.ndim != 2 or a.shape[0] == 0:
        raise InputError(f"select: expected a (pairs, weeks) array, got shape {a.shape}")
    if criterion == "mean":
        cost = np.nanmean(a, axis=1)
    elif criterion == "mean-ratio":
        cost = np.nanmean(stats.relative(a, np.asarray(train_base, dtype=float)[None, :]), axis=1)
    else:
        raise InputError(f"criterion: expected one of {CRITERIA}, got {criterion!r}")
    if np.all(np.isnan(cost)):
        raise InputError("select: no pair has a finite training cost")
    return int(np.nanargmin(cost))


@dataclass
class TrainTest:
    """The learned pair at one threshold and its costs (relative costs are
    ratios of means to EASY-FCFS-FCFS on the same weeks; gains in %)."""

    threshold: int | None
    pair: str
    index: int
    train_avg: float            # mean AvgWait of the learned pair, training weeks (s)
    test_avg: float             # the same on the testing weeks (s)
    train_base_avg: float
    test_base_avg: float
    train_avg_rel: float
    test_avg_rel: float
    train_max_rel: float        # mean MaxWait ratio of means
    test_max_rel: float
    test_max: float             # mean MaxWait, learned, testing weeks (s)
    test_base_max: float
    train_gain: float
    train_gain_ci: tuple[float, float]
    test_gain: float
    test_gain_ci: tuple[float, float]
    test_bsld_rel: float
    test_bsld_gain: float
    test_bsld_gain_ci: tuple[float, float]
    test_gain_weekly: float     # 100 x (1 - mean of the weekly ratios), testing weeks
    test_gain_weekly_ci: tuple[float, float]
    alt_pair: str = ""          # the pair the other criterion picks
    alt_test_gain: float = float("nan")
    train_diff: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    test_diff: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    # other readings of §7.4 (issue 30): each pair's mean weekly AvgWait ratio to the baseline, the
    # testing weeks' MaxWait of the learned pair, the baseline and the other criterion's pair
    train_ratio: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    test_ratio: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    test_max_weeks: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    test_base_max_weeks: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    alt_test_max: float = float("nan")


def train_test(names: Sequence[str], train: dict[str, np.ndarray], test: dict[str, np.ndarray],
               base_index: int, threshold: int | None = None, criterion: str = "mean",
               seed: int = 0) -> TrainTest:
    """The lelong2017 §7.1 protocol on simulated costs.

    ``train`` and ``test`` map ``"avg_wait"``, ``"max_wait"`` (and optionally
    ``"mean_bsld"``) to (pairs, weeks) arrays; ``names`` labels the pairs;
    ``base_index`` is the row of EASY-FCFS-FCFS.  The learned pair is
    :func:`select`'s on the training AvgWait; its costs are reported on both
    halves relative to the baseline's on the same weeks."""
    names = list(names)
    tr_a, te_a = np.asarray(train["avg_wait"], float), np.asarray(test["avg_wait"], float)
    tr_m, te_m = np.asarray(train["max_wait"], float), np.asarray(test["max_wait"], float)
    if tr_a.shape[0] != len(names) or te_a.shape[0] != len(names):
        raise InputError(f"train_test: {len(names)} names for {tr_a.shape[0]}/{te_a.shape[0]} pairs")
    if not 0 <= base_index < len(names):
        raise InputError(f"train_test: base_index {base_index} out of range")
    b = base_index
    i = select(tr_a, tr_a[b], criterion)
    other = CRITERIA[1 - CRITERIA.index(criterion)]
    j = select(tr_a, tr_a[b], other)
    g_tr = gain_ci(tr_a[i], tr_a[b], seed=seed)
    g_te = gain_ci(te_a[i], te_a[b], seed=seed)
    weekly = stats.relative(te_a[i], te_a[b])
    w_est, w_lo, w_hi = stats.bootstrap_ci(weekly, seed=seed, n_boot=N_BOOT, level=LEVEL)
    bsld, g_bsld = np.nan, (np.nan,) * 3
    if "mean_bsld" in test:
        tb = np.asarray(test["mean_bsld"], float)
        bsld = ratio_of_means(tb[i], tb[b])
        g_bsld = gain_ci(tb[i], tb[b], seed=seed)
    with np.errstate(invalid="ignore"):
        tr_diff = np.nanmean(tr_a, axis=1) - np.nanmean(tr_a[b])
        te_diff = np.nanmean(te_a, axis=1) - np.nanmean(te_a[b])
        tr_ratio = np.array([np.nanmean(stats.relative(tr_a[k], tr_a[b])) for k in range(len(names))])
        te_ratio = np.array([np.nanmean(stats.relative(te_a[k], te_a[b])) for k in range(len(names))])
    return TrainTest(
        threshold=threshold, pair=names[i], index=i,
        train_avg=float(np.nanmean(tr_a[i])), test_avg=float(np.nanmean(te_a[i])),
        train_base_avg=float(np.nanmean(tr_a[b])), test_base_avg=float(np.nanmean(te_a[b])),
        train_avg_rel=ratio_of_means(tr_a[i], tr_a[b]), test_avg_rel=ratio_of_means(te_a[i], te_a[b]),
        train_max_rel=ratio_of_means(tr_m[i], tr_m[b]), test_max_rel=ratio_of_means(te_m[i], te_m[b]),
        test_max=float(np.nanmean(te_m[i])), test_base_max=float(np.nanmean(te_m[b])),
        train_gain=g_tr[0], train_gain_ci=g_tr[1:], test_gain=g_te[0], test_gain_ci=g_te[1:],
        test_bsld_rel=float(bsld), test_bsld_gain=g_bsld[0], test_bsld_gain_ci=g_bsld[1:],
        test_gain_weekly=100.0 * (1.0 - float(w_est)),
        test_gain_weekly_ci=(100.0 * (1.0 - float(w_hi)), 100.0 * (1.0 - float(w_lo))),
        alt_pair=names[j], alt_test_gain=100.0 * (1.0 - ratio_of_means(te_a[j], te_a[b])),
        train_diff=tr_diff, test_diff=te_diff, train_ratio=tr_ratio, test_ratio=te_ratio,
        test_max_weeks=te_m[i].copy(), test_base_max_weeks=te_m[b].copy(), alt_test_max=float(np.nanmean(te_m[j])),
    )


def _spearman(x, y) -> float:
    """Spearman rank correlation (average ranks for ties)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3:
        return float("nan")

    def ranks(v):
        order = np.argsort(v, kind="stable")
        r = np.empty(v.size)
        r[order] = np.arange(v.size, dtype=float)
        for val in np.unique(v):        # average the ranks of ties
            tie = v == val
            r[tie] = r[tie].mean()
        return r
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


# -------------------------------------------------------------- datasets --

def _provenance(parts) -> dict:
    return {"title": "schedlab study thresholds", "Conventions": "CF-1.10",
            "schedlab_version": __version__, "core_version": sim.VERSION,
            "campaigns": [dict(ds.attrs) for ds in parts]}


def traintest_dataset(parts, policies: Sequence[str], thresholds: Sequence[int | None]):
    """One dataset (half, threshold, primary, backfill, week) from the two
    campaigns of :func:`traintest_campaigns` (the sweep's, over half,
    primary, backfill and its cells' threshold and week; the FCFS
    primaries'): the FCFS-primary pairs are repeated over every threshold."""
    import xarray as xr

    from ...campaigns.store import COORDS

    grid, fcfs = parts
    labels = [format_duration(t) for t in thresholds]
    # the sweep cells give (half, primary, backfill, threshold, week), thresholds in the order of `thresholds`
    grid = grid.assign_coords(threshold=("threshold", np.asarray(labels), COORDS.get("threshold", {})))
    grid = grid.transpose("half", "threshold", "primary", "backfill", "week")
    fcfs = fcfs.expand_dims(threshold=labels).transpose("half", "threshold", "primary", "backfill", "week")
    fcfs = fcfs.assign_coords(threshold=("threshold", np.asarray(labels), grid.threshold.attrs))
    ds = xr.concat([fcfs, grid], dim="primary", data_vars="all", coords="minimal", compat="override",
                   join="override")
    ds = ds.sel(primary=list(policies))
    ds.attrs = _provenance(parts)
    return ds


def _pairs(ds) -> tuple[list[str], dict[str, dict[str, np.ndarray]]]:
    """Pair names and (pairs, weeks) arrays per half from a train/test slice
    with dims (half, primary, backfill, week)."""
    names = [f"EASY-{a}-{b}" for a in ds.primary.values for b in ds.backfill.values]
    out = {}
    for half in ("train", "test"):
        h = ds.sel(half=half)
        out[half] = {v: h[v].transpose("primary", "backfill", "week").values.reshape(len(names), -1)
                     for v in ("avg_wait", "max_wait", "mean_bsld") if v in h}
    return names, out


def generalisation(ds, criterion: str = "mean", seed: int = 0) -> dict[str, TrainTest]:
    """:func:`train_test` at every threshold of a train/test dataset
    (threshold label -> result)."""
    out = {}
    for label in ds.threshold.values:
        names, halves = _pairs(ds.sel(threshold=label))
        base = names.index("EASY-FCFS-FCFS")
        t = None if str(label) == "none" else sim.parse_duration(str(label))
        out[str(label)] = train_test(names, halves["train"], halves["test"], base, t, criterion, seed)
    return out


@dataclass
class Fig5:
    """lelong2017 Fig. 5 quantities per policy (primary with the fixed
    backfilling policy), thresholded (``thr``) and not (``none``)."""

    trace: str
    threshold: int
    backfill: str
    policies: list[str]
    avg_rel: dict[str, np.ndarray]          # mean of the weekly AvgWait ratios
    avg_dec: dict[str, tuple[np.ndarray, np.ndarray]]
    avg_gain_ci: dict[str, np.ndarray]      # (policies, 3): gain, low, high (ratio of means)
    maxmax_rel: dict[str, np.ndarray]       # max over weeks of MaxWait / baseline's
    maxmax_h: dict[str, np.ndarray]
    meanmax_rel: dict[str, np.ndarray]      # ratio of the mean MaxWaits
    base_maxmax_h: float
    base_avg: float
    weeks: int


def threshold_effect(ds, base, threshold: int, backfill: str, trace: str, seed: int = 0) -> Fig5:
    """Fig. 5 from the campaign results: ``ds`` (threshold, primary, week),
    ``base`` the baseline (primary=[FCFS], week)."""
    b_avg = base.avg_wait.values.reshape(-1)
    b_max = base.max_wait.values.reshape(-1)
    if not np.nanmax(b_max, initial=0) > 0:
        raise InputError(f"{trace}: no job waits in the baseline's {b_max.size} week(s) (EASY-FCFS): Fig. 5's "
                         f"maximum waits relative to the baseline's are undefined; give a busier or longer log")
    policies = [str(x) for x in ds.primary.values]
    res = {k: {} for k in ("avg", "dec", "gain", "mm", "mmh", "mean")}
    for key, label in (("thr", format_duration(threshold)), ("none", "none")):
        avg = ds.avg_wait.sel(threshold=label).transpose("primary", "week").values
        mx = ds.max_wait.sel(threshold=label).transpose("primary", "week").values
        rel = stats.relative(avg, b_avg[None, :])
        res["avg"][key] = np.nanmean(rel, axis=1)
        res["dec"][key] = stats.deciles(rel, axis=1)
        res["gain"][key] = np.array([gain_ci(avg[i], b_avg, seed=seed) for i in range(len(policies))])
        res["mm"][key] = np.nanmax(mx, axis=1) / np.nanmax(b_max)
        res["mmh"][key] = np.nanmax(mx, axis=1) / HOUR
        res["mean"][key] = np.array([ratio_of_means(mx[i], b_max) for i in range(len(policies))])
    return Fig5(trace, threshold, backfill, policies, res["avg"], res["dec"], res["gain"], res["mm"],
                res["mmh"], res["mean"], float(np.nanmax(b_max)) / HOUR, float(np.nanmean(b_avg)),
                int(b_avg.size))


@dataclass
class ThesisResult:
    """Thesis Tables 5.2-5.5 quantities of one trace: ``sums[policy][k]`` is
    the sum over the weeks of the weekly mean bsld at threshold k."""

    trace: str
    weeks: int
    jobs: int
    thresholds: list[int | None]
    policies: list[str]
    sums: dict[str, list[float]]
    #: (variant, threshold) -> policy -> sum: the same quantity under other slicing or
    #: threshold choices (see :func:`thesis_checks`).
    checks: dict[tuple[str, int | None], dict[str, float]] = field(default_factory=dict)
    #: reading name -> policy -> the sums at each of ``thresholds``: the same
    #: quantity under the candidate readings of the protocol (:func:`thesis_reading_sums`).
    readings: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    #: reading name -> what the reading is, in words
    reading_texts: dict[str, str] = field(default_factory=dict)


def thesis_tables(ds, trace: str) -> ThesisResult:
    """Sums of the weekly mean bsld from a thesis campaign dataset
    (finish, threshold, primary, week); the first finish rule is the main one."""
    f0 = str(ds.finish.values[0])
    d = ds.sel(finish=f0)
    thresholds = [None if str(t) == "none" else sim.parse_duration(str(t)) for t in d.threshold.values]
    policies = [str(x) for x in d.primary.values]
    sums = {pol: [float(np.nansum(d.mean_bsld.sel(threshold=t, primary=pol).values))
                  for t in d.threshold.values] for pol in policies}
    jobs = d.jobs.isel(threshold=0, primary=0).values
    return ThesisResult(trace, int(d.sizes["week"]), int(np.sum(jobs[jobs > 0])), thresholds, policies, sums)


def thesis_reading_sums(ds, r: ThesisResult, thresholds) -> None:
    """Fill ``r.readings`` from a readings campaign dataset (crossing, align,
    primary, threshold, week; :func:`.cells.thesis_readings_campaign`): for
    every candidate reading of :func:`.cells.thesis_readings`, the sum over
    the weeks of the weekly mean bsld with that reading's constant, per
    policy, at each of ``r.thresholds``; ``thresholds``: the campaign's, in its
    order (the cells' threshold axis)."""
    from ...science.thesis_readings import BSLD_VARIABLE, newest_readings, text_reading, thesis_readings

    # the cells give the thresholds in the order of the campaign's ``thresholds`` parameter, without coordinate
    order = list(thresholds)
    if len(order) != ds.sizes["threshold"]:
        raise ValueError(f"thesis readings of {r.trace}: {ds.sizes['threshold']} thresholds simulated, "
                         f"{len(order)} expected")
    labels = {t: i for i, t in enumerate(order)}
    missing = [t for t in r.thresholds if t not in labels]
    if missing:
        raise ValueError(f"thesis readings of {r.trace}: thresholds {missing} not simulated")
    cands = [(*c, "oldest") for c in thesis_readings()] + \
        [(*c, "newest") for c in newest_readings([text_reading()] + thesis_readings())]
    for name, text, tau, crossing, align, tie in cands:
        d = ds[BSLD_VARIABLE[tau]].sel(crossing=crossing, align=align, tie=tie)
        r.readings[name] = {pol: [float(np.nansum(d.isel(threshold=labels[t]).sel(primary=pol).values))
                                  for t in r.thresholds]
                            for pol in r.policies if pol in d.primary.values}
        r.reading_texts[name] = text
