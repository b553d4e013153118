"""SchedGym's heuristics and scores, for the engine's SchedGym rules
(``Simulation(..., rules="schedgym")``; csrc/SEMANTICS.md, "SchedGym's rules").

SchedGym is RLScheduler's ``HPCSimPickJobs`` (``DIR-LAB/deep-batch-scheduler``).
Its five heuristics order the queue by a score, lowest first, ties in
arrival order (its ``list.sort`` is stable and jobs join its queue in
submission order); each is written here as a policy expression computing the
score with the same double operations, in the same order, as SchedGym's
Python does (``tools/oracles/compare_schedgym.py`` checks them, schedule by
schedule, against SchedGym's own code):

* ``FCFS``: the submit time;
* ``SJF``: the requested time, ties by submit time (SchedGym's key is the
  pair, which is the engine's tie rule);
* ``WFP3`` and ``UNICEP``: SchedGym scores a queued job with its
  ``scheduled_time``, which is -1 until the job starts, so their "waiting
  time" is ``-1 - submit`` (static), not the time waited; the expressions
  keep that, so that the schedules are SchedGym's (the published numbers
  were computed so).  WFP3 is ``-pow(w / req, 3) * procs`` (``np.power``:
  libm's ``pow``, hence ``** 3.0``, not repeated multiplication), UNICEP
  ``-(w + 1e-15) / (log2(procs + 1e-15) * req)``;
* ``F1``: ``log10(req) * procs + 870 * log10(submit)``, each logarithm's
  argument 0.1 when it is not positive.

The logarithms and the power are libm's in the engine; numpy's on an x86
machine with AVX-512 use their own vector routines, which differ from libm's
by one unit in the last place on a small share of arguments (measured in the
oracle: csrc/SEMANTICS.md).

:func:`heuristic_policy` gives a heuristic as the engine's policy under
SchedGym's rules (P_B FCFS: SchedGym backfills in submission order);
:func:`avg_bsld` is SchedGym's episode score (``job_score_type=0``).
"""
from __future__ import annotations

import numpy as np

from ..expr import Expr
from ..jobs import Policy

#: SchedGym's sequence length (``JOB_SEQUENCE_SIZE``) and visible jobs (``MAX_QUEUE_SIZE``).
SEQUENCE = 256
MAX_QUEUE_SIZE = 128

#: SchedGym's five heuristics (``fcfs_score``, ``sjf_score``, ``wfp_score``,
#: ``uni_score``, ``f1_score``) as policy expressions, lowest first.
HEURISTICS = {
    "FCFS": "submit",
    "SJF": "req",
    "WFP3": "-(((-1 - submit) / req) ** 3.0) * procs",
    "UNICEP": "-((-1 - submit) + 1e-15) / (log2(procs + 1e-15) * req)",
    "F1": "log10(where(req > 0, req, 0.1)) * procs + 870 * log10(where(submit > 0, submit, 0.1))",
}


def heuristic_policy(name: str) -> Policy:
    """SchedGym's heuristic ``name`` (a key of :data:`HEURISTICS`) as the
    engine's policy: P_R its expression, P_B FCFS."""
    if name not in HEURISTICS:
        from ..errors import InputError
        raise InputError(f"unknown SchedGym heuristic {name!r}: one of {', '.join(HEURISTICS)}")
    return Policy(Expr(HEURISTICS[name]), "FCFS")


def avg_bsld(schedule) -> float:
    """SchedGym's score of an episode (``job_score_type=0``): the mean over
    its jobs of max(1, (wait + run) / max(run, 10)), each term divided by
    the job count and summed in start order (SchedGym's dict order), as
    SchedGym adds them."""
    start = np.asarray(schedule.start, np.int64)
    submit = np.asarray(schedule.jobs.submit, np.int64)
    run = np.asarray(schedule.end, np.int64) - start
    n = len(start)
    total = 0.0
    for j in np.lexsort((np.arange(n), start)):
        total += max(1.0, float(start[j] - submit[j] + run[j]) / max(int(run[j]), 10)) / n
    return total
