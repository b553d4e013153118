"""The candidate readings of the protocol of thesis chapter 5 (Tables
5.1-5.5: sums over original weeks of the weekly mean bounded slowdown), for
protocol identification (issue 30, DESIGN §10).  Shared by the thresholds
study (Tables 5.2-5.5) and the mixed-policies study (Table 5.1); each study
computes them beside its paper's-text value.

Three choices the thesis leaves open or that its own simulator makes:

* ``tau``: the bounded slowdown's constant, 10 s (thesis Eq. 3.3, "often
  set to 10 seconds": the paper's text) or 60 s (the seeds' OCaml simulator,
  freuk/ocst ``src/statistics.ml``: ``max 1 ((t - r + p) / max 60 p)``);
* ``crossing``: which jobs a week keeps (thesis §5.2, "remove the jobs that
  start in one week and finish in another"): judged by the log's finish
  (``recorded``: the paper's text), by r + p (``run``), by r + p~ (``req``),
  or every job kept (``keep``: ocst's ``subtrace.ml`` cuts weeks without
  removing any job);
* ``align``: where the weeks start: at the first submission (``first``: the
  paper's text, "split the trace on a weekly basis"), or at multiples of
  604800 s from the log's time origin (``origin``: ocst's ``subtrace.ml`` and
  ``trimmer.ml``, week = r / 604800).

A fourth choice is the simulator's: ``tie``, the order of queued jobs whose
keys are equal, the engine's (``oldest`` first: the counted reading) or
ocst's (``newest`` first, csrc/SEMANTICS.md "Other simulators", rule 1: it
moves CTC-SP2 EASY-SAF-SAF's AvgWait by 27 %); every reading above exists
under both (:func:`newest_readings`).

In every reading the first week is skipped (thesis §5.2).  A study whose
counted cleaning keeps the jobs that overran their request (killed at p~,
the mixed study) also has the cleaning as a candidate
(:func:`cleaning_readings`): those jobs removed, as lelong2017 §7.2 does and
as ocst requires (it asserts p~ >= p).
"""
from __future__ import annotations

from ..campaigns import store
from ..workloads import workload
from ..errors import InputError

THESIS_TAUS = (10, 60)
THESIS_CROSSINGS = ("recorded", "run", "req", "keep")
THESIS_ALIGNS = ("first", "origin")
#: the order of jobs with equal keys (schedlab.engine.sim.TIES): the engine's, then ocst's
THESIS_TIES = ("oldest", "newest")
#: the paper's text: tau = 10 s, crossing by the log's finish, weeks from the first submission
THESIS_TEXT_READING = (10, "recorded", "first")
#: the campaign variable (:data:`schedlab.campaigns.store.VARIABLES`) of the mean bsld under each constant
BSLD_VARIABLE = {10: "mean_bsld", 60: "mean_bsld_tau60"}
# Declared here, beside its only producers (the readings cells), as every study's own variables are.
store.declare(__name__, {"mean_bsld_tau60": store.Var(
    "mean bounded slowdown (tau = 60 s, as freuk/ocst statistics.ml)", "1", "float64", store.NAN)})
_CROSSING_TEXT = {"recorded": "jobs crossing their week's end judged by the log's finish",
                  "run": "jobs crossing their week's end judged by r + p",
                  "req": "jobs crossing their week's end judged by r + p~",
                  "keep": "jobs crossing their week's end kept (ocst subtrace.ml)"}
_ALIGN_TEXT = {"first": "weeks from the first submission",
               "origin": "weeks at multiples of 604800 s from the log's origin (ocst subtrace.ml)"}
_TAU_TEXT = {10: "bsld with tau = 10 s (thesis Eq. 3.3)", 60: "bsld with tau = 60 s (ocst statistics.ml)"}

_TIE_TEXT = "equal keys: newest submission first (freuk/ocst's stable sort; csrc/SEMANTICS.md rule 1)"

__all__ = ["THESIS_TAUS", "THESIS_CROSSINGS", "THESIS_ALIGNS", "THESIS_TIES", "THESIS_TEXT_READING", "BSLD_VARIABLE",
           "reading_name", "thesis_readings", "cleaning_readings", "newest_readings", "reading_weeks"]


def reading_name(tau: int, crossing: str, align: str) -> str:
    """Short key of a reading: ``"tau60-run-origin"``."""
    return f"tau{tau}-{crossing}-{align}"


def thesis_readings() -> list[tuple[str, str, int, str, str]]:
    """Every candidate reading other than the paper's text: (name, text, tau,
    crossing, align), in a fixed order."""
    out = []
    for tau in THESIS_TAUS:
        for crossing in THESIS_CROSSINGS:
            for align in THESIS_ALIGNS:
                if (tau, crossing, align) == THESIS_TEXT_READING:
                    continue
                out.append((reading_name(tau, crossing, align),
                            f"{_TAU_TEXT[tau]}; {_CROSSING_TEXT[crossing]}; {_ALIGN_TEXT[align]}",
                            tau, crossing, align))
    return out


def newest_readings(readings: list) -> list:
    """The same readings (name, text, *choices) simulated with ocst's tie
    order (``tie="newest"``): names suffixed ``-newest``."""
    return [(f"{name}-newest", f"{text}; {_TIE_TEXT}", *rest) for name, text, *rest in readings]


def text_reading() -> tuple[str, str, int, str, str]:
    """The paper's text as a reading tuple (name, text, tau, crossing, align)."""
    tau, crossing, align = THESIS_TEXT_READING
    return (reading_name(tau, crossing, align),
            f"{_TAU_TEXT[tau]}; {_CROSSING_TEXT[crossing]}; {_ALIGN_TEXT[align]}", tau, crossing, align)


def cleaning_readings(overrun: str) -> list[tuple[str, str, int, str, str]]:
    """Every (tau, crossing, align) combination, the paper's text's included,
    with the jobs cleaned by ``overrun`` instead of the counted cleaning:
    (name, text, tau, crossing, align), names suffixed ``-<overrun>``."""
    what = {"drop": "jobs with p > p~ removed (lelong2017 §7.2; ocst asserts p~ >= p)",
            "kill": "jobs with p > p~ kept, killed at p~"}[overrun]
    out = []
    for tau in THESIS_TAUS:
        for crossing in THESIS_CROSSINGS:
            for align in THESIS_ALIGNS:
                out.append((f"{reading_name(tau, crossing, align)}-{overrun}",
                            f"{_TAU_TEXT[tau]}; {_CROSSING_TEXT[crossing]}; {_ALIGN_TEXT[align]}; {what}",
                            tau, crossing, align))
    return out


def reading_weeks(jobs, swf, m: int, crossing: str, align: str, skip_first: int = 1,
                  who: str = "thesis readings") -> list:
    """The weeks of cleaned ``jobs`` (``swf``: the log they come from, for the
    recorded finish times; ``m``: the machine) under one reading, the first
    ``skip_first`` skipped, times shifted to each week's start."""
    if crossing not in THESIS_CROSSINGS:
        raise InputError(f"{who}: crossing must be one of {THESIS_CROSSINGS}, got {crossing!r}")
    if align not in THESIS_ALIGNS:
        raise InputError(f"{who}: align must be one of {THESIS_ALIGNS}, got {align!r}")
    start = None
    if align == "origin" and len(jobs):
        start = int(jobs.submit.min()) // workload.WEEK * workload.WEEK
    if crossing == "keep":
        return workload.weeks(jobs, crossing="keep", skip_first=skip_first, start=start, shift=True)
    fin = workload.log_finish(swf, jobs, m)[0] if crossing == "recorded" else crossing
    return workload.weeks(jobs, crossing="drop", skip_first=skip_first, finish=fin, start=start, shift=True)
