"""Statistics over resampled weeks: relative costs, deciles, bootstrap
confidence intervals.  Every gain over a baseline that the studies report
goes through :func:`bootstrap_ci`, so a reader sees which differences are real.
"""
from __future__ import annotations

import numpy as np


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


def bootstrap_ci(x, axis=-1, level=0.95, n_boot=2000, seed=0, stat=np.nanmean):
    """Percentile-bootstrap confidence interval of ``stat`` (default: the
    NaN-aware mean) along ``axis``, resampling its entries with replacement.

    Returns (estimate, low, high), each with ``axis`` removed.  Seeded:
    the same input gives the same interval."""
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    n = x.shape[-1]
    if n == 0:
        nan = np.full(x.shape[:-1], np.nan)
        return nan, nan, nan
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    boots = stat(x[..., idx], axis=-1)          # (..., n_boot)
    alpha = (1 - level) / 2
    lo, hi = np.nanpercentile(boots, [100 * alpha, 100 * (1 - alpha)], axis=-1)
    return stat(x, axis=-1), lo, hi


def significant(low, high, null=1.0):
    """True where the interval excludes the null value."""
    return (np.asarray(low) > null) | (np.asarray(high) < null)
