"""The weeks of a log, for the environments' ``window="week"``: the week
edges (:func:`schedlab.workloads.workload.period_edges`), the weeks that
hold jobs, and the choice of one at reset."""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .. import validators
from ..workloads import workload


class LogWeeks:
    """Week k of ``log`` is jobs [lo, hi) by submit time, from edges[k] on."""

    def __init__(self, log) -> None:
        self.log = log
        self.edges = workload.period_edges(log, "week")
        self.bounds = np.searchsorted(log.submit, self.edges, "left")
        self.with_jobs = np.flatnonzero(np.diff(self.bounds) > 0)

    def choose(self, rng: np.random.Generator, week) -> tuple[int, int, int]:
        """(k, lo, hi): the given week (checked), or one with jobs drawn from
        ``rng``."""
        if week is None:
            k = int(self.with_jobs[rng.integers(self.with_jobs.size)])
        else:
            k = validators.integer(week, "week", 0)
            if k >= self.edges.size - 1:
                raise InputError(f"week: the log has weeks 0..{self.edges.size - 2}, got {k}")
        return k, int(self.bounds[k]), int(self.bounds[k + 1])
