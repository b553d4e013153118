"""The candidate readings of thesis Table 5.1's pure policies (issue 30,
DESIGN §10; the readings are defined in :mod:`schedlab.science.thesis_readings`):
the readings cell (:func:`readings_cell`) and its campaign.  Kept apart from
:mod:`.cells` so that the cache keys of the study's other cells (which follow
their module's code) do not move with it."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...campaigns.cells import TraceInputs, cell
from ...campaigns.spec import Campaign
from ...engine import metrics, sim
from ...workloads import traces as _traces
from ...declared import REQUIRED, CellInputs, duration, integer, one_of, param
from ...errors import InputError
from ...science.thesis_readings import (BSLD_VARIABLE, THESIS_ALIGNS, THESIS_CROSSINGS, THESIS_TAUS, THESIS_TIES, reading_weeks)
from .cells import BACKFILL_CHOICES, POLICIES, THRESHOLD, _policy, _slug, trace_units

__all__ = ["READING_OVERRUNS", "reading_units", "readings_cell", "readings_campaign"]


#: the study's cleaning (jobs with p > p~ kept, killed at p~: :func:`trace_units`) and the other candidate
READING_OVERRUNS = ("kill", "drop")


@functools.lru_cache(maxsize=16)
def reading_units(trace: str, crossing: str, align: str, skip_first: int = 1, overrun: str = "kill"):
    """``(units, m)``: the weeks of a trace under one reading of thesis §5.2
    (:mod:`schedlab.science.thesis_readings`), cleaned with ``overrun``; the paper's
    text (``recorded``, ``first``, ``kill``) is :func:`trace_units`' weeks
    themselves."""
    if crossing == "recorded" and align == "first" and overrun == "kill":
        units, m, _ = trace_units(trace, "week", skip_first)
        return units, m
    if overrun not in READING_OVERRUNS:
        raise InputError(f"mixed readings cell: overrun must be one of {READING_OVERRUNS}, got {overrun!r}")
    jobs, _, m, swf, _ = _traces.cleaned(trace, overrun=overrun)
    return reading_weeks(jobs, swf, m, crossing, align, skip_first, "mixed readings cell"), int(m)


@dataclass(frozen=True)
class ReadingsInputs(CellInputs):
    """The readings cell's inputs."""

    trace: str = TraceInputs.field("trace")
    skip_first: int = param(1, help="weeks skipped at the log's start", unit="weeks", check=integer(0))
    units: tuple = param(REQUIRED, help="the weeks (1-based) simulated")
    crossing: str = param("recorded", help="how a week's crossing jobs are found", check=one_of(*THESIS_CROSSINGS))
    align: str = param("first", help="where the weeks start", check=one_of(*THESIS_ALIGNS))
    overrun: str = param("kill", help="what cleaning does with jobs that overran their request",
                         check=one_of(*READING_OVERRUNS))
    threshold: int | None = param(THRESHOLD, help="the waiting-time threshold (none: none)", unit="s", check=duration)
    backfill: str = param("same", help="the backfilling queue's policy", check=one_of(*BACKFILL_CHOICES))
    tie: str = param("oldest", help="the order of jobs with equal keys (schedlab.engine.sim.TIES)", check=one_of(*THESIS_TIES))


#: the readings cell's parameters and their defaults
READINGS_CELL_PARAMS = ReadingsInputs.defaults()


@cell("mixed-readings", ReadingsInputs)
def readings_cell(q: ReadingsInputs) -> dict:
    """The 12 pure policies on the weeks ``units`` (1-based) of a trace cut
    as one reading says (``crossing``, ``align``): the weekly mean bsld with
    each constant of :data:`schedlab.science.thesis_readings.THESIS_TAUS`
    (``mean_bsld``, ``mean_bsld_tau60``) over (policy, unit), and ``jobs``
    (unit)."""
    crossing, align = q.crossing, q.align
    units, m = reading_units(str(q["trace"]), crossing, align, int(q["skip_first"]), str(q["overrun"]))
    wanted = [int(u) for u in q["units"]]
    bad = [u for u in wanted if not 1 <= u <= len(units)]
    if bad:
        raise InputError(f"mixed readings cell: weeks {bad} out of range 1..{len(units)} for {q['trace']}")
    threshold = q.threshold
    backfill = q.backfill
    out = {BSLD_VARIABLE[t]: np.full((len(POLICIES), len(wanted)), np.nan) for t in THESIS_TAUS}
    jobs_n = np.zeros(len(wanted), dtype=np.int64)
    for i, u in enumerate(wanted):
        jobs = units[u - 1]
        jobs_n[i] = len(jobs)
        if len(jobs) == 0:
            continue
        for k, pol in enumerate(POLICIES):
            sch = sim.simulate(jobs, m, _policy(pol, threshold, backfill), tie=q.tie)
            for t in THESIS_TAUS:
                out[BSLD_VARIABLE[t]][k, i] = float(np.mean(metrics.bsld(sch, t)))
    res = {k: (("policy", "unit"), v) for k, v in out.items()}
    res["jobs"] = (("unit",), jobs_n)
    return res


def readings_campaign(info: _traces.TraceInfo, units: Sequence[int], threshold, backfill: str) -> Campaign:
    """Every reading's weeks (cleaning x crossing x align) of one trace
    under both tie orders, the 12 pure policies on ``units`` at ``threshold``."""
    return Campaign(f"mixed-readings-{_slug(info.name)}-week",
                    {"overrun": list(READING_OVERRUNS), "crossing": list(THESIS_CROSSINGS),
                     "align": list(THESIS_ALIGNS), "tie": list(THESIS_TIES)},
                    {"trace": _traces.text(info), "skip_first": 1, "units": [int(u) for u in units],
                     "threshold": sim.format_duration(threshold), "backfill": backfill},
                    "schedlab.studies.mixed.readings:readings_cell")
