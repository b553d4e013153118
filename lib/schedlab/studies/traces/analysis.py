"""The computations of the traces study: pure functions of jobs and arrays
(no file I/O, no plotting, no printing), each tested on generated traces
whose answers are known by construction.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...engine import metrics
from ...workloads import workload
from ...errors import InputError
from ...jobs import Jobs
from .params import PREMATURE_FACTOR

premature = metrics.premature

#: The sets of jobs each comparison is computed on.
JOBSETS: dict[str, str] = {
    "cleaned": "all jobs kept by workload.clean (jobs with p > p~ included)",
    "no-overrun": "cleaned jobs with p <= p~ (clean(..., overrun='drop'), lelong2017 §7.2)",
    "completed": "cleaned jobs whose SWF status is 1 (completed)",
}

#: Runtime histogram bins: 10 per decade from 1 s to 10^7 s (about 116 days).
RUNTIME_EDGES = 10.0 ** (np.arange(71) / 10.0)

WEEK = workload.WEEK
DAY = workload.DAY
#: The mean Gregorian month, in days (for periods quoted in months).
MONTH_DAYS = 365.25 / 12


def _arrays(*arrays) -> list[np.ndarray]:
    out = [np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays]
    if len({a.shape[0] for a in out}) > 1:
        raise InputError(f"arrays of different lengths: {[a.shape[0] for a in out]}")
    return out


def divider(run) -> float:
    """The median actual runtime (thesis §6.2); NaN without jobs."""
    p = np.asarray(run, dtype=np.float64)
    return float(np.median(p)) if p.size else float("nan")


def size_classes(run, req, div: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masks (large, small non-premature, small premature) for divider ``div``:
    small is p <= div; small premature p~ > div, small non-premature p~ <= div."""
    p, pt = _arrays(run, req)
    small = p <= div
    return ~small, small & (pt <= div), small & (pt > div)


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else float("nan")


@dataclass(frozen=True)
class ClassStats:
    """Table 4.1, 6.1 and 6.2 quantities of one set of jobs (shares in %)."""

    n: int
    premature_ratio: float
    premature_difference: float
    divider: float
    small_nonpremature: float
    small_premature: float
    area_large: float
    area_small_nonpremature: float
    area_small_premature: float

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def class_stats(run, req, procs, factor: float = PREMATURE_FACTOR) -> ClassStats:
    """Premature shares (both readings), divider, small/large shares of the
    jobs and of the area p*q (see the module docstring for the definitions)."""
    p, pt, q = _arrays(run, req, procs)
    n = int(p.size)
    d = divider(p)
    large, snp, sp = size_classes(p, pt, d)
    area = p * q
    total = float(area.sum())
    return ClassStats(
        n=n,
        premature_ratio=_pct(premature(p, pt, factor, "ratio").sum(), n),
        premature_difference=_pct(premature(p, pt, factor, "difference").sum(), n),
        divider=d,
        small_nonpremature=_pct(snp.sum(), n),
        small_premature=_pct(sp.sum(), n),
        area_large=_pct(area[large].sum(), total),
        area_small_nonpremature=_pct(area[snp].sum(), total),
        area_small_premature=_pct(area[sp].sum(), total),
    )


@dataclass(frozen=True)
class Weekly:
    """Per week (consecutive 7-day periods from the first submission): start
    time (s, trace time), jobs submitted, offered load, and whether the week
    is complete (the last one is cut short by the end of the log)."""

    start: np.ndarray
    jobs: np.ndarray
    load: np.ndarray
    full: np.ndarray

    def __len__(self) -> int:
        return int(self.start.shape[0])

    def _over_full(self, values: np.ndarray, fn) -> float:
        v = values[self.full] if self.full.any() else values
        return float(fn(v)) if v.size else float("nan")

    @property
    def n_full(self) -> int:
        return int(self.full.sum())

    def summary(self) -> dict[str, float]:
        """Mean, median, min and max of jobs/week and load/week over the full
        weeks (over all weeks when none is full)."""
        out = {}
        for key, values in (("jobs", self.jobs.astype(np.float64)), ("load", self.load)):
            for stat, fn in (("mean", np.mean), ("median", np.median), ("min", np.min), ("max", np.max)):
                out[f"{key}_{stat}"] = self._over_full(values, fn)
        return out


def weekly(jobs: Jobs, m: int, week: int = WEEK) -> Weekly:
    """Jobs submitted and offered load per week: load = sum of q*p of the
    week's jobs / (m * week)."""
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or m < 1:
        raise InputError(f"m must be a positive integer, got {m!r}")
    if len(jobs) == 0:
        z = np.zeros(0)
        return Weekly(z.astype(np.int64), z.astype(np.int64), z, z.astype(bool))
    edges = workload.period_edges(jobs, week)
    k = np.searchsorted(edges, jobs.submit, "right") - 1
    n_weeks = edges.size - 1
    counts = np.bincount(k, minlength=n_weeks).astype(np.int64)
    area = jobs.procs.astype(np.float64) * jobs.run.astype(np.float64)
    load = np.bincount(k, weights=area, minlength=n_weeks) / (float(m) * week)
    full = edges[1:] <= int(jobs.submit.max())
    return Weekly(edges[:-1].copy(), counts, load, full)


@dataclass(frozen=True)
class Histogram:
    """Counts of values in bins ``[edges[i], edges[i+1])``; ``below``
    counts values under ``edges[0]`` (runtime 0 for the default bins) and
    ``above`` those at or over ``edges[-1]``."""

    edges: np.ndarray
    counts: np.ndarray
    below: int
    above: int

    @property
    def n(self) -> int:
        return int(self.counts.sum()) + self.below + self.above

    @property
    def share(self) -> np.ndarray:
        """Fraction of all values (below and above included) in each bin."""
        return self.counts / self.n if self.n else np.zeros_like(self.counts, dtype=np.float64)


def histogram(values, edges=RUNTIME_EDGES) -> Histogram:
    """Histogram of ``values`` on ``edges`` (increasing; log-spaced by default)."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.size < 2 or np.any(np.diff(e) <= 0):
        raise InputError("histogram: edges must be at least two increasing values")
    idx = np.searchsorted(e, v, "right") - 1
    inside = (idx >= 0) & (idx < e.size - 1)
    counts = np.bincount(idx[inside], minlength=e.size - 1).astype(np.int64)
    return Histogram(e, counts, int((v < e[0]).sum()), int((v >= e[-1]).sum()))


def jobsets(trace, jobs: Jobs) -> dict[str, np.ndarray]:
    """Masks over ``jobs`` (cleaned from the ``SWFTrace`` ``trace``) of the
    sets of :data:`JOBSETS`.  The SWF status is found through the jobs'
    file lines."""
    status = np.full(len(jobs), -1, dtype=np.int64)
    if len(jobs) and jobs.lines is not None:
        rows = np.searchsorted(trace.lines, jobs.lines)
        rows = np.clip(rows, 0, max(trace.n - 1, 0))
        if trace.n and np.all(trace.lines[rows] == jobs.lines):
            status = trace.fields["status"][rows]
    return {
        "cleaned": np.ones(len(jobs), dtype=bool),
        "no-overrun": jobs.run <= jobs.req,
        "completed": status == 1,
    }
