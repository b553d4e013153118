"""Scheduling metrics (thesis §3.2, lelong2017 §3.3, lawson2005 §2.2).

Per job, with wait = start - r and d = end - start the time the job really
ran (p, or p~ for a job killed at its request):

* bsld    = max((wait + d) / max(d, tau), 1)            (thesis Eq. 3.3, tau = 10 s)
* pp-bsld = max((wait + d) / (q * max(d, tau)), 1)      (thesis Eq. 3.4)
* Lawson's slowdown s = 1 + wait / max(10, d) and the ratio
  R = (s_1 - s_m) / min(s_1, s_m) of a schedule against a baseline
  (lawson2005 §2.2; jobs that ran < 10 s but requested > 60 s are ignored).

Aggregates (``summary``) are over the jobs that started; a mask selects a
subset (e.g. the jobs of one week).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError

TAU = 10  # seconds, the bounded-slowdown constant of the papers


def _started(schedule, mask=None) -> np.ndarray:
    ok = schedule.start >= 0
    return ok if mask is None else ok & np.asarray(mask, bool)


def wait(schedule) -> np.ndarray:
    """start - submit, in seconds (float64, NaN for jobs not started)."""
    w = (schedule.start - schedule.jobs.submit).astype(np.float64)
    w[schedule.start < 0] = np.nan
    return w


def duration(schedule) -> np.ndarray:
    d = (schedule.end - schedule.start).astype(np.float64)
    d[schedule.start < 0] = np.nan
    return d


def bounded_slowdown(w, d, tau: float = TAU) -> np.ndarray:
    """max((w + d) / max(d, tau), 1) of waits ``w`` and durations ``d`` (s)."""
    w, d = np.asarray(w, np.float64), np.asarray(d, np.float64)
    return np.maximum((w + d) / np.maximum(d, tau), 1.0)


def bsld(schedule, tau: float = TAU) -> np.ndarray:
    return bounded_slowdown(wait(schedule), duration(schedule), tau)


def ppbsld(schedule, tau: float = TAU) -> np.ndarray:
    w, d = wait(schedule), duration(schedule)
    q = schedule.jobs.procs.astype(np.float64)
    return np.maximum((w + d) / (q * np.maximum(d, tau)), 1.0)


def lawson_slowdown(schedule) -> np.ndarray:
    return 1.0 + wait(schedule) / np.maximum(duration(schedule), 10.0)


def slowdown_ratio(baseline, other, ignore_crashed: bool = True) -> np.ndarray:
    """Lawson's per-job ratio R of ``other`` against ``baseline`` (same
    jobs); > 0 means ``other`` is better.  NaN for ignored jobs."""
    if baseline.jobs is not other.jobs and len(baseline.jobs) != len(other.jobs):
        raise ValueError("slowdown_ratio: the two schedules are not of the same jobs")
    s1, sm = lawson_slowdown(baseline), lawson_slowdown(other)
    r = (s1 - sm) / np.minimum(s1, sm)
    if ignore_crashed:
        crashed = (duration(baseline) < 10) & (baseline.jobs.req > 60)
        r[crashed] = np.nan
    return r


def utilisation(schedule, mask=None) -> float:
    """Processor-seconds used / (m x span from first submit to last end)."""
    ok = _started(schedule, mask)
    if not ok.any():
        return float("nan")
    area = float(np.sum(schedule.jobs.procs[ok].astype(np.float64) * (schedule.end[ok] - schedule.start[ok])))
    span = float(schedule.end[ok].max() - schedule.jobs.submit[ok].min())
    return area / (schedule.m * span) if span > 0 else float("nan")


def summary(schedule, mask=None, tau: float = TAU) -> dict:
    """Aggregated metrics of the started jobs (optionally of a subset)."""
    ok = _started(schedule, mask)
    n = int(ok.sum())
    w = wait(schedule)[ok]
    b = bsld(schedule, tau)[ok]
    pb = ppbsld(schedule, tau)[ok]
    nan = float("nan")
    return {
        "jobs": n,
        "avg_wait": float(w.mean()) if n else nan,
        "max_wait": float(w.max()) if n else nan,
        "sum_wait": float(w.sum()),
        "mean_bsld": float(b.mean()) if n else nan,
        "max_bsld": float(b.max()) if n else nan,
        "mean_ppbsld": float(pb.mean()) if n else nan,
        "utilisation": utilisation(schedule, mask),
        "makespan": float(schedule.end[ok].max() - schedule.jobs.submit[ok].min()) if n else nan,
        "backfilled": int(schedule.backfilled[ok].sum()),
        "killed": int(schedule.killed[ok].sum()),
        "forced": int(schedule.forced[ok].sum()),
    }


#: p~ >= PREMATURE_FACTOR * p makes a job premature (thesis §4.3.3).
PREMATURE_FACTOR = 100
#: The two readings of the thesis' definition: p~ >= 100 p ("ratio") or p~ - p >= 100 p ("difference").
PREMATURE_READINGS = ("ratio", "difference")


def premature(run, req, factor: float = PREMATURE_FACTOR, reading: str = "ratio") -> np.ndarray:
    """Boolean mask of the premature jobs (thesis §4.3.3).

    ``reading="ratio"``: p~ >= factor * p; ``reading="difference"``:
    p~ - p >= factor * p.  Both also require p~ > p, which only matters for
    p = 0 (a job with p = 0 is premature when p~ > 0).
    """
    if reading not in PREMATURE_READINGS:
        raise InputError(f"reading must be one of {PREMATURE_READINGS}, got {reading!r}")
    p = np.asarray(run, dtype=np.float64).reshape(-1)
    pt = np.asarray(req, dtype=np.float64).reshape(-1)
    if p.shape != pt.shape:
        raise InputError(f"arrays of different lengths: {[p.shape[0], pt.shape[0]]}")
    bound = factor * p if reading == "ratio" else (factor + 1.0) * p
    return (pt >= bound) & (pt > p)


# ------------------------------------------ Lawson's slowdown at a time --

def lawson_slowdown_at(submit, start, duration, at) -> np.ndarray:
    """Lawson's slowdown s = 1 + wait / max(10, d) of each job as seen at
    time ``at`` (lawson2005 §2.2, for online simulation): a job that has not
    started by ``at`` (``start`` < 0 or later than ``at``) counts with its
    wait so far, ``at - submit`` (a lower bound); ``duration`` is the time
    each job runs, or will run."""
    submit, start = np.asarray(submit), np.asarray(start)
    started = (start >= 0) & (start <= at)
    wait = np.where(started, start - submit, at - submit).astype(np.float64)
    return 1.0 + wait / np.maximum(np.asarray(duration).astype(np.float64), 10.0)
