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
:func:`avg_bsld` is SchedGym's episode score (``job_score_type=0``);
:class:`Observation` its visible jobs and features
(``JobDispatchEnv(rules="schedgym", observation="schedgym")``).
"""
from __future__ import annotations

import functools

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


#: SchedGym's features of a visible job (``build_observation``), in order: the wait
#: over 12 h, the requested time over the log's longest run, the processors over
#: the machine's, the requested memory, user, group and executable over the log's
#: largest (1 when the log does not give them), and whether it fits now; each
#: clipped at 1 - 1e-5, ``fits`` 1 - 1e-5 or 1e-5.
OBS_FIELDS = ("wait", "req", "procs", "memory", "user", "group", "executable", "fits")
#: SchedGym's row of an empty slot (its ``skip=False``).
EMPTY_ROW = (0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0)
MAX_WAIT_TIME = 12 * 60 * 60
_TOP = 1.0 - 1e-5


class Observation:
    """SchedGym's visible jobs and their features (``build_observation``) over a
    log: its normalisers are the log's maxima (the longest run -- SchedGym's
    runtime is the duration run, min(run, req) here --, m, the largest user
    number).  The log's jobs have no memory, group or executable: those
    features are 1, SchedGym's value for a field the log leaves at -1; so is
    the user's when the jobs have no users."""

    def __init__(self, log, m: int, K: int = MAX_QUEUE_SIZE):
        self.K, self.m = K, m
        self.max_run = float(max(int(np.minimum(log.run, log.req).max()), 1))
        self.max_user = None if log.user is None else float(max(int(np.max(log.user)), 1))

    def start(self, jobs) -> None:
        """A new episode on ``jobs``: SchedGym's queue list is empty."""
        self._list: list[int] = []
        self._jobs = jobs
        req, procs, submit = (jobs.req.astype(np.float64), jobs.procs.astype(np.float64),
                              jobs.submit.astype(np.float64))
        with np.errstate(divide="ignore"):
            self._f1 = np.log10(np.where(req > 0, req, 0.1)) * procs + 870 * np.log10(np.where(submit > 0, submit, 0.1))
            self._f2 = np.sqrt(req) * procs + 25600 * np.log10(submit)

    def visible(self, jobs, queued: np.ndarray) -> np.ndarray:
        """The jobs SchedGym shows, in its order, from the queued ones (indices
        of ``jobs``, :meth:`start` called on the episode's jobs): its queue list
        (jobs that left removed, new ones appended in arrival order) sorted by
        submit time, stably; at most K of them: all, in that order; more: the
        list sorted further, stably, by F1, F2, SJF (req, submit) and fewest
        processors (procs, submit), and the K first by SJF interleaved with
        the K first by fewest processors (its third list, meant to be random,
        repeats the SJF one).  The list keeps its order for the next decision,
        so jobs submitted in the same second keep the order of the last sorts."""
        K = self.K
        now = set(int(j) for j in queued)
        old = [j for j in self._list if j in now]
        kept = set(old)
        lst = old + sorted(j for j in now if j not in kept)
        sub, req, procs, f1, f2 = jobs.submit, jobs.req, jobs.procs, self._f1, self._f2
        lst.sort(key=lambda j: sub[j])
        if len(lst) <= K:
            self._list = lst
            return np.array(lst, dtype=np.int32)
        lst.sort(key=lambda j: f1[j])
        lst.sort(key=lambda j: f2[j])
        lst.sort(key=lambda j: (req[j], sub[j]))
        sjf = lst[:K]
        lst.sort(key=lambda j: (procs[j], sub[j]))
        small = lst[:K]
        self._list = lst
        out, seen = [], set()
        for a, b in zip(sjf, small):
            for j in (a, b):
                if len(out) < K and j not in seen:
                    seen.add(j)
                    out.append(j)
            if len(out) == K:
                break
        return np.array(out, dtype=np.int32)

    def rows(self, jobs, vis: np.ndarray, now: int, free: int) -> np.ndarray:
        """K x 8 rows (:data:`OBS_FIELDS`) of the visible jobs ``vis``, then :data:`EMPTY_ROW`."""
        out = np.tile(np.array(EMPTY_ROW), (self.K, 1))
        n = vis.size
        if n:
            out[:n, 0] = np.minimum((now - jobs.submit[vis]).astype(np.float64) / float(MAX_WAIT_TIME), _TOP)
            out[:n, 1] = np.minimum(jobs.req[vis].astype(np.float64) / self.max_run, _TOP)
            out[:n, 2] = np.minimum(jobs.procs[vis].astype(np.float64) / float(self.m), _TOP)
            if self.max_user is not None and jobs.user is not None:
                u = jobs.user[vis].astype(np.float64)
                out[:n, 4] = np.where(u == -1, 1.0, np.minimum(u / self.max_user, _TOP))
            out[:n, 7] = np.where(jobs.procs[vis] <= free, _TOP, 1e-5)
        return out


def read_swf(path) -> tuple:
    """An SWF file's jobs as SchedGym loads them (``job.Workloads``, ``cluster.Cluster``),
    for the engine: ``(jobs, m)``, to be simulated with ``overrun="run"``
    (SchedGym runs a job for its whole runtime, whatever it requested).

    SchedGym's rules: processors max(allocated, requested); a requested time of
    -1 replaced by the runtime; a negative runtime by 10; jobs of runtime 0
    dropped; jobs ordered by id; the machine MaxNodes nodes of MaxProcs /
    MaxNodes processors each (MaxProcs 0 or absent: one per node), a job taking
    ceil(processors / per node) nodes -- so ``m`` is MaxNodes and each job's
    ``procs`` its nodes, and the column ``"processors"`` its processor count,
    which SchedGym's scores read (``heuristic_policy(name, "processors")``;
    the observation's processor feature is SchedGym's only with one
    processor per node).  What
    SchedGym would fail on, or never finish, is refused with the job named:
    a header value that is not an integer, no MaxNodes, a job without a
    processor count, with a negative requested time, or larger than the
    machine, and ids not in submission order (the engine needs jobs sorted
    by submit time)."""
    import math

    from ..errors import InputError
    from ..jobs import Jobs
    from ..workloads.swf import read_swf as _read

    t = _read(path)

    def header_int(key):
        v = t.header.get(key)
        if v is None:
            return 0
        try:
            return int(v.split("\n")[0].strip())
        except ValueError:
            raise InputError(f"{t.path}: header {key}: {v!r} is not an integer (SchedGym's int() fails on it "
                             f"too)") from None

    nodes, procs_max = header_int("MaxNodes"), header_int("MaxProcs")
    if nodes < 1:
        raise InputError(f"{t.path}: no MaxNodes header: SchedGym's cluster would have no node")
    ppn = float(procs_max if procs_max else nodes) / float(nodes)
    f = t.fields
    order = np.argsort(f["job_id"], kind="stable")
    run = f["run"][order].copy()
    raw_run = run.copy()
    run[run < 0] = 10
    keep = run > 0
    order, run, raw_run = order[keep], run[keep], raw_run[keep]
    ids, submit = f["job_id"][order], f["submit"][order]
    procs = np.maximum(f["alloc_procs"][order], f["req_procs"][order])
    req = f["req_time"][order].copy()
    req[req == -1] = raw_run[req == -1]
    need = np.array([int(math.ceil(float(p) / ppn)) for p in procs], dtype=np.int64)
    for bad, why in ((procs < 1, "no processor count"), (req < 0, "a negative requested time"),
                     (need > nodes, f"more nodes than the machine's {nodes}: SchedGym would never start it"),
                     (np.r_[False, submit[1:] < submit[:-1]], "a submit time before the previous id's")):
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{t.path}, line {int(t.lines[order[i]])}: job {int(ids[i])} has {why}")
    user = f["user"][order]
    return Jobs(submit, run, req, need, ids, user=user if (user >= 0).any() else None,
                columns={"processors": procs.astype(np.float64)}), nodes


@functools.lru_cache(maxsize=None)
def heuristic_policy(name: str, processors: str | None = None) -> Policy:
    """SchedGym's heuristic ``name`` (a key of :data:`HEURISTICS`) as the
    engine's policy: P_R its expression, P_B FCFS.  ``processors``: a column of
    the jobs holding SchedGym's processor count where ``procs`` holds nodes
    (:func:`read_swf`'s ``"processors"`` with several processors per node):
    the scores read it instead of ``procs``."""
    if name not in HEURISTICS:
        from ..errors import InputError
        raise InputError(f"unknown SchedGym heuristic {name!r}: one of {', '.join(HEURISTICS)}")
    text = HEURISTICS[name]
    if processors is not None:
        text = text.replace("procs", f"col.{processors}")
    return Policy(Expr(text), "FCFS")


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
