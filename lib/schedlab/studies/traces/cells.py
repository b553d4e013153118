"""The cell of the traces study: one trace read, cleaned and characterised
(:func:`characterise`, which returns a :class:`TraceStats`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ...workloads import traces as _traces
from ...workloads import workload
from .analysis import (DAY, MONTH_DAYS, WEEK, ClassStats, Histogram, Weekly, class_stats, histogram, jobsets,
                       weekly)
from .params import PREMATURE_FACTOR
from .published import published_for


@dataclass
class TraceStats:
    """Everything the study computes about one trace."""

    name: str
    path: Path
    sha256: str
    registered: bool
    m: int
    jobs_in_file: int
    jobs: int
    report: workload.CleanReport
    users: int
    first_submit: int
    last_submit: int
    unix_start_time: int | None
    mean_runtime: dict[str, float]
    counts: dict[str, int]
    weekly: Weekly
    requested: Histogram
    actual: Histogram
    classes: dict[str, ClassStats]
    seconds: float = 0.0
    published: dict[str, Any] = field(default_factory=dict)
    submitted: np.ndarray | None = None     # the cleaned jobs' submit times, sorted

    @property
    def period_days(self) -> float:
        return (self.last_submit - self.first_submit) / DAY

    @property
    def period_weeks(self) -> float:
        return (self.last_submit - self.first_submit) / WEEK

    @property
    def period_months(self) -> float:
        return self.period_days / MONTH_DAYS

    @property
    def start_date(self) -> str | None:
        """UTC date of the first submission, when the log gives UnixStartTime."""
        if self.unix_start_time is None:
            return None
        t = self.unix_start_time + self.first_submit
        return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d")


def characterise(trace_or_name, factor: float = PREMATURE_FACTOR) -> TraceStats:
    """Read, clean and characterise one trace (registry name, path or TraceInfo)."""
    t0 = time.perf_counter()
    jobs, report, m, trace, info = _traces.cleaned(trace_or_name)
    sets = jobsets(trace, jobs)
    run, req, procs = jobs.run, jobs.req, jobs.procs
    classes = {k: class_stats(run[s], req[s], procs[s], factor) for k, s in sets.items()}
    users = jobs.user[jobs.user >= 0] if jobs.user is not None else np.zeros(0)
    sub = jobs.submit
    return TraceStats(
        name=info.name, path=info.path, sha256=info.sha256, registered=info.registered, m=m,
        jobs_in_file=trace.n, jobs=len(jobs), report=report,
        users=int(np.unique(users).size),
        first_submit=int(sub.min()) if len(jobs) else 0,
        last_submit=int(sub.max()) if len(jobs) else 0,
        unix_start_time=trace.unix_start_time,
        mean_runtime={k: float(run[s].mean()) if s.any() else float("nan") for k, s in sets.items()},
        counts={k: int(s.sum()) for k, s in sets.items()},
        weekly=weekly(jobs, m),
        requested=histogram(req), actual=histogram(run),
        classes=classes,
        seconds=time.perf_counter() - t0,
        published=published_for(info.name) if info.registered else {},
        submitted=np.sort(sub),
    )
