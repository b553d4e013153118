"""The candidate readings of thesis Table 5.1's pure policies (issue 30,
DESIGN §10; the readings are defined in :mod:`schedlab.thesis_readings`):
the readings cell (:func:`readings_cell`) and its campaign.  Kept apart from
:mod:`.cells` so that the cache keys of the study's other cells (which follow
their module's code) do not move with it."""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from ... import campaign as _campaign
from ... import metrics, sim
from ... import traces as _traces
from ...errors import InputError
from ...thesis_readings import BSLD_VARIABLE, THESIS_ALIGNS, THESIS_CROSSINGS, THESIS_TAUS, reading_weeks
from .cells import BACKFILL_CHOICES, POLICIES, THRESHOLD, _policy, _slug, _thr_label, trace_arg, trace_units

__all__ = ["READING_OVERRUNS", "reading_units", "readings_cell", "readings_campaign"]


#: the study's cleaning (jobs with p > p~ kept, killed at p~: :func:`trace_units`) and the other candidate
READING_OVERRUNS = ("kill", "drop")


@functools.lru_cache(maxsize=16)
def reading_units(trace: str, crossing: str, align: str, skip_first: int = 1, overrun: str = "kill"):
    """``(units, m)``: the weeks of a trace under one reading of thesis §5.2
    (:mod:`schedlab.thesis_readings`), cleaned with ``overrun``; the paper's
    text (``recorded``, ``first``, ``kill``) is :func:`trace_units`' weeks
    themselves."""
    if crossing == "recorded" and align == "first" and overrun == "kill":
        units, m, _ = trace_units(trace, "week", skip_first)
        return units, m
    if overrun not in READING_OVERRUNS:
        raise InputError(f"mixed readings cell: overrun must be one of {READING_OVERRUNS}, got {overrun!r}")
    jobs, _, m, swf, _ = _traces.cleaned(trace, overrun=overrun)
    return reading_weeks(jobs, swf, m, crossing, align, skip_first, "mixed readings cell"), int(m)


#: the readings cell's parameters and their defaults
READINGS_CELL_PARAMS = {"trace": None, "skip_first": 1, "units": None, "crossing": "recorded", "align": "first",
                        "overrun": "kill", "threshold": _thr_label(THRESHOLD), "backfill": "same"}


@_campaign.register_cell("mixed-readings")
def readings_cell(p: dict) -> dict:
    """The 12 pure policies on the weeks ``units`` (1-based) of a trace cut
    as one reading says (``crossing``, ``align``): the weekly mean bsld with
    each constant of :data:`schedlab.thesis_readings.THESIS_TAUS`
    (``mean_bsld``, ``mean_bsld_tau60``) over (policy, unit), and ``jobs``
    (unit)."""
    q = _campaign.cell_params("mixed readings cell", p, READINGS_CELL_PARAMS)
    for key in ("trace", "units"):
        if q[key] is None:
            raise InputError(f"mixed readings cell: a {key!r} parameter is required")
    crossing, align = str(q["crossing"]), str(q["align"])
    if crossing not in THESIS_CROSSINGS or align not in THESIS_ALIGNS:
        raise InputError(f"mixed readings cell: crossing must be one of {THESIS_CROSSINGS} and align one of "
                         f"{THESIS_ALIGNS}, got {crossing!r}, {align!r}")
    units, m = reading_units(str(q["trace"]), crossing, align, int(q["skip_first"]), str(q["overrun"]))
    wanted = [int(u) for u in q["units"]]
    bad = [u for u in wanted if not 1 <= u <= len(units)]
    if bad:
        raise InputError(f"mixed readings cell: weeks {bad} out of range 1..{len(units)} for {q['trace']}")
    thr = q["threshold"]
    threshold = None if thr in (None, "none") else int(thr)
    backfill = q["backfill"]
    if backfill not in BACKFILL_CHOICES:
        raise InputError(f"mixed readings cell: backfill must be one of {BACKFILL_CHOICES}, got {backfill!r}")
    out = {BSLD_VARIABLE[t]: np.full((len(POLICIES), len(wanted)), np.nan) for t in THESIS_TAUS}
    jobs_n = np.zeros(len(wanted), dtype=np.int64)
    for i, u in enumerate(wanted):
        jobs = units[u - 1]
        jobs_n[i] = len(jobs)
        if len(jobs) == 0:
            continue
        for k, pol in enumerate(POLICIES):
            sch = sim.simulate(jobs, m, _policy(pol, threshold, backfill))
            for t in THESIS_TAUS:
                out[BSLD_VARIABLE[t]][k, i] = float(np.mean(metrics.bsld(sch, t)))
    res = {k: (("policy", "unit"), v) for k, v in out.items()}
    res["jobs"] = (("unit",), jobs_n)
    return res


def readings_campaign(info: _traces.TraceInfo, units: Sequence[int], threshold, backfill: str) -> _campaign.Campaign:
    """Every reading's weeks (cleaning x crossing x align) of one trace, the
    12 pure policies on ``units`` at ``threshold``."""
    return _campaign.Campaign(f"mixed-readings-{_slug(info.name)}-week",
                              {"overrun": list(READING_OVERRUNS), "crossing": list(THESIS_CROSSINGS),
                               "align": list(THESIS_ALIGNS)},
                              {"trace": trace_arg(info), "skip_first": 1, "units": [int(u) for u in units],
                               "threshold": _thr_label(threshold), "backfill": backfill},
                              "schedlab.studies.mixed.readings:readings_cell")
