"""The candidate readings of thesis Tables 5.2-5.5 (issue 30, DESIGN §10;
the readings are defined in :mod:`schedlab.science.thesis_readings`): the readings
cell (:func:`thesis_readings_cell`) and its campaign.  Kept apart from
:mod:`.cells` so that the cache keys of the study's other cells (which follow
their module's code) do not move with it."""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ...names import campaign_part
from ...campaigns.cells import cell
from ...campaigns.spec import Campaign
from ...engine import metrics as _metrics
from ...workloads import traces as _traces
from ...declared import REQUIRED, durations, one_of, param, text
from ...errors import InputError
from ...science.thesis_readings import (BSLD_VARIABLE, THESIS_ALIGNS, THESIS_CROSSINGS, THESIS_TAUS, THESIS_TEXT_READING, THESIS_TIES, reading_name, reading_weeks, thesis_readings)
from .cells import WeeksInputs, _thesis_weeks, thesis_n_weeks, threshold_sweep
from ...engine.sim import format_duration

__all__ = ["thesis_readings_cell", "thesis_readings_campaign", "THESIS_TEXT_READING", "BSLD_VARIABLE",
           "reading_name", "thesis_readings"]


@functools.lru_cache(maxsize=16)
def _reading_weeks(trace: str, m: int | None, overrun: str, skip_first: int, n_weeks: int | None,
                   crossing: str, align: str) -> tuple[list, int]:
    """The original weeks of a trace under one reading (cached per process):
    ``crossing`` and ``align`` as in :data:`THESIS_CROSSINGS`, :data:`THESIS_ALIGNS`."""
    if crossing == "recorded" and align == "first":
        # the paper's text: the very weeks of the counted cell
        return _thesis_weeks(trace, m, overrun, skip_first, n_weeks, "recorded")
    jobs, _, m, swf, _ = _traces.cleaned(trace, m=m, overrun=overrun)
    weeks = reading_weeks(jobs, swf, m, crossing, align, skip_first, "thesis readings cell")
    if n_weeks is not None:
        weeks = weeks[:n_weeks]
    return weeks, int(m)


@dataclass(frozen=True)
class ReadingsInputs(WeeksInputs):
    """The thesis readings cell's inputs."""

    crossing: str = param("recorded", help="how a week's crossing jobs are found", check=one_of(*THESIS_CROSSINGS))
    align: str = param("first", help="where the weeks start", check=one_of(*THESIS_ALIGNS))
    primary: str = param("FCFS", help="the policy of both queues", check=text)
    tie: str = param("oldest", help="the order of jobs with equal keys (schedlab.engine.sim.TIES)", check=one_of(*THESIS_TIES))
    thresholds: tuple = param(REQUIRED, help="the thresholds (20h, none), distinct", unit="s", check=durations)
    metrics: tuple | None = param(None, help="the variables to return (None: all)")


@cell("thresholds-thesis-readings", ReadingsInputs)
def thesis_readings_cell(q: ReadingsInputs) -> dict:
    """Campaign cell: EASY-P-P (``primary`` orders both queues) on the original
    weeks of a trace cut as one reading says (``crossing``, ``align``), at every
    threshold of ``thresholds`` (labels; :func:`threshold_sweep`, bit for bit
    what :func:`schedlab.engine.sim.simulate` gives).  Returns the weekly mean bsld
    with each constant of :data:`THESIS_TAUS` (``mean_bsld``, ``mean_bsld_tau60``)
    and the jobs, over (``threshold``, ``week``)."""
    ths = list(q.thresholds)
    n = None if q["n_weeks"] is None else int(q["n_weeks"])
    sets, m = _reading_weeks(str(q["trace"]), q["m"], q["overrun"], int(q["skip_first"]), n,
                             str(q["crossing"]), str(q["align"]))
    names = [BSLD_VARIABLE[tau] for tau in THESIS_TAUS] + ["jobs"]
    if q["metrics"] is not None and set(q["metrics"]) - set(names):
        raise InputError(f"thesis readings cell: metrics {sorted(set(q['metrics']) - set(names))} not recorded; "
                         f"it records {names}")
    out = {k: np.full((len(ths), len(sets)), np.nan) for k in names}
    for i, jobs in enumerate(sets):
        if len(jobs) == 0:
            out["jobs"][:, i] = 0
            continue
        done: dict[int, dict] = {}
        for k, sch in enumerate(threshold_sweep(jobs, m, q["primary"], q["primary"], ths, tie=q.tie)):
            s = done.get(id(sch.start))
            if s is None:
                ok = _metrics._started(sch)
                s = {"jobs": int(ok.sum())}
                for tau in THESIS_TAUS:
                    b = _metrics.bsld(sch, tau)[ok]
                    s[BSLD_VARIABLE[tau]] = float(b.mean()) if b.size else float("nan")
                done[id(sch.start)] = s
            for name in names:
                out[name][k, i] = s[name]
    return {k: (("threshold", "week"), v) for k, v in out.items()}



def thesis_readings_campaign(p, ref: _traces.TraceInfo) -> Campaign:
    """Every reading's weeks (:data:`THESIS_CROSSINGS` x :data:`THESIS_ALIGNS`)
    x both tie orders (:data:`THESIS_TIES`) x the thesis' policies, each cell
    at every thesis threshold (both constants of :data:`THESIS_TAUS` recorded)."""
    return Campaign(
        f"thresholds-thesis-readings-{campaign_part(ref.name)}",
        {"crossing": list(THESIS_CROSSINGS), "align": list(THESIS_ALIGNS), "tie": list(THESIS_TIES),
         "primary": list(p.thesis_policies)},
        {"trace": _traces.text(ref), "overrun": p.overrun, "skip_first": 1, "n_weeks": thesis_n_weeks(p, ref),
         "thresholds": [format_duration(t) for t in p.thesis_thresholds]},
        cell="schedlab.studies.thresholds.readings:thesis_readings_cell", metrics=[BSLD_VARIABLE[t] for t in THESIS_TAUS] + ["jobs"])
