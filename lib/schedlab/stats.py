"""Statistics over resampled weeks: relative costs, deciles, bootstrap
confidence intervals.  Every gain over a baseline that the studies report
goes through :func:`bootstrap_ci`, so a reader sees which differences are real.
"""
from __future__ import annotations

import numpy as np

from .errors import InputError


def relative(values, baseline):
    """values / baseline elementwise (e.g. per-week AvgWait of a policy over
    EASY-FCFS-FCFS's on the same week).  A week where both are 0 counts as
    1 (no difference); a week where only the baseline is 0 is NaN (undefined,
    left out of means)."""
    v = np.asarray(values, dtype=float)
    b = np.asarray(baseline, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = v / b
    r = np.where((b == 0) & (v == 0), 1.0, r)
    return np.where((b == 0) & (v != 0), np.nan, r)


def deciles(x, axis=-1):
    """First and last deciles (10th and 90th percentiles), NaN-aware."""
    return np.nanpercentile(x, 10, axis=axis), np.nanpercentile(x, 90, axis=axis)


#: below this many resampled units an interval is Student's t, not the
#: percentile bootstrap (which is too narrow for a handful of values)
SMALL_N = 10


def bootstrap_ci(x, axis=-1, level=0.95, n_boot=2000, seed=0, stat=np.nanmean):
    """Confidence interval of ``stat`` (default: the NaN-aware mean) along
    ``axis``, the axis of resampled units (weeks, resamples).

    With :data:`SMALL_N` units or more: the percentile bootstrap, resampling
    the entries with replacement (seeded: the same input gives the same
    interval).  With fewer: Student's t with n - 1 degrees of freedom around
    the estimate, its standard error from the jackknife (for the mean this is
    exactly s / sqrt(n), the textbook t interval; for a ratio of sums, its
    first-order equivalent).  One unit gives no interval (NaN).

    Returns (estimate, low, high), each with ``axis`` removed."""
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    n = x.shape[-1]
    if n == 0:
        nan = np.full(x.shape[:-1], np.nan)
        return nan, nan, nan
    est = stat(x, axis=-1)
    if n < SMALL_N:
        lo, hi = student_t(x, stat, level)
        return est, lo, hi
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    boots = stat(x[..., idx], axis=-1)          # (..., n_boot)
    alpha = (1 - level) / 2
    lo, hi = np.nanpercentile(boots, [100 * alpha, 100 * (1 - alpha)], axis=-1)
    return est, lo, hi


def student_t(x, stat=np.nanmean, level=0.95):
    """Student's t interval of ``stat`` over the last axis of ``x`` (n units):
    estimate -/+ t(n - 1) x the jackknife standard error.  NaN for n < 2."""
    from scipy.stats import t as student

    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    est = np.asarray(stat(x, axis=-1), dtype=float)
    if n < 2:
        nan = np.full(est.shape, np.nan)
        return nan, nan
    keep = ~np.eye(n, dtype=bool)
    loo = np.stack([stat(x[..., keep[i]], axis=-1) for i in range(n)], axis=-1)     # leave one out
    centred = loo - np.nanmean(loo, axis=-1, keepdims=True)
    se = np.sqrt((n - 1) / n * np.nansum(centred ** 2, axis=-1))
    q = student.ppf(0.5 + level / 2, n - 1)
    return est - q * se, est + q * se


def significant(low, high, null=1.0):
    """True where the interval excludes the null value."""
    return (np.asarray(low) > null) | (np.asarray(high) < null)


def total_change(sums, baseline, level=0.95, seed=0, n_boot=2000) -> tuple[float, float, float]:
    """online-bandit Eq. 11: ``sum(sums) / sum(baseline) - 1`` over paired
    resampled traces, with a percentile-bootstrap CI that resamples the
    traces (pairs kept together) through :func:`bootstrap_ci`.  Returns
    (estimate, low, high) as fractions (-0.1: 10 % less than the baseline)."""
    x = np.stack([np.asarray(sums, dtype=float), np.asarray(baseline, dtype=float)])
    if x.ndim != 2:
        raise InputError("total_change: expected two 1-d arrays of the same length")

    def ratio(a, axis=-1):
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.nansum(a[0], axis=axis) / np.nansum(a[1], axis=axis) - 1.0
        return np.broadcast_to(r, (2,) + np.shape(r))

    est, lo, hi = bootstrap_ci(x, axis=-1, level=level, n_boot=n_boot, seed=seed, stat=ratio)
    return float(np.asarray(est)[0]), float(np.asarray(lo)[0]), float(np.asarray(hi)[0])


def ranked_changes(sums_by_label, baseline: str, seed: int = 0) -> dict[str, tuple[float, float, float, int]]:
    """:func:`total_change` of every label of ``sums_by_label`` but
    ``baseline`` (a mapping label -> per-trace sums, in display order)
    against the baseline's, and its rank among them (1: the largest
    reduction): label -> (estimate, low, high, rank), in the given order."""
    base = sums_by_label[baseline]
    per = {k: total_change(v, base, seed=seed) for k, v in sums_by_label.items() if k != baseline}
    order = sorted(per, key=lambda k: per[k][0])
    return {k: (*per[k], order.index(k) + 1) for k in per}
