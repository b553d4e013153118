"""Pythonic face of the C EASY-backfilling core.

>>> from schedlab.engine.sim import Jobs, simulate
>>> jobs = Jobs(submit=[0, 0, 5], run=[10, 5, 5], req=[20, 10, 5], procs=[2, 2, 1])
>>> s = simulate(jobs, m=3, policy="EASY-FCFS-FCFS")
>>> s.start.tolist()
[0, 10, 5]

The semantics are those of ``csrc/SEMANTICS.md``.  Arrays given to the core
are checked (dtype, contiguity, length, values) before a pointer to them
reaches C, and kept referenced for as long as C holds that pointer.

The job table, durations and policy names live in :mod:`schedlab.jobs` (no
compiled core needed); this module re-exports them (``schedlab.engine.sim.Jobs``,
``schedlab.engine.sim.Policy``, ``schedlab.engine.sim.parse_duration`` ...) and maps them
to the core's constants.
"""
from __future__ import annotations

import math
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError, SchedlabError, SimulationError
# the job table, durations and policy names, re-exported: schedlab.engine.sim.Jobs, .Policy ... keep working
from ..expr import OP_TABLE as _EXPR_OP_TABLE
from ..expr import OPS as _EXPR_OPS
from ..expr import Expr  # noqa: F401 - re-exported: schedlab.engine.sim.Expr
from ..jobs import (ALIASES, BANDIT_POLICIES, FEATURES, LELONG_POLICIES, POLICIES, QUEUE_ORDERS, TIME_MAX, Jobs, KeyFunction, Mixed, Policy, PolicyLike, _int_array, as_policy, default_scales, format_duration, parse_duration, PYTHON_PREFIX, python_key_function, python_object)
from .losses import DEFAULT_ETA, DEFAULT_LAM, Loss

try:
    from ._core import ffi, lib
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "schedlab's C core is not built: install the package with "
        "`pip install --no-build-isolation -e .` (or run `make install`)"
    ) from exc

#: Kind numbers of ``enum sl_policy_kind`` for every queue order of
#: :data:`schedlab.jobs.QUEUE_ORDERS` (the pure policies in their order, then SJBF).
_KINDS = {**{name: i for i, name in enumerate(POLICIES)}, "SJBF": lib.SL_SJBF}
assert tuple(_KINDS) == QUEUE_ORDERS and lib.SL_WFP == len(POLICIES) - 1
ESTIMATES = {"requested": lib.SL_EST_REQUESTED, "actual": lib.SL_EST_ACTUAL, "easy++": lib.SL_EST_EASYPP}
#: ``estimate="learned"``: :class:`Learned` with its defaults.
LEARNED = "learned"
CORRECTIONS = {"none": lib.SL_CORR_NOW, "requested": lib.SL_CORR_REQUESTED,
               "incremental": lib.SL_CORR_INCREMENTAL, "doubling": lib.SL_CORR_DOUBLING}
OVERRUNS = {"kill": lib.SL_OVERRUN_KILL, "run": lib.SL_OVERRUN_RUN}
#: the order of queued jobs with equal keys (sl_config.tie; csrc/SEMANTICS.md)
TIES = {"oldest": lib.SL_TIE_OLDEST, "newest": lib.SL_TIE_NEWEST}
#: whose scheduling rules a simulation follows (sl_config.rules; csrc/SEMANTICS.md,
#: "SchedGym's rules"): EASY's, or SchedGym's (RLScheduler's HPCSimPickJobs) with
#: its backfilling (backfil=True) or without it
RULES = {"easy": lib.SL_RULES_EASY, "schedgym": lib.SL_RULES_SCHEDGYM,
         "schedgym-nobackfill": lib.SL_RULES_SCHEDGYM_NOBF}
VERSION = ffi.string(lib.sl_version()).decode()
#: sha256 (16 hex digits) of the C sources the loaded core was built from.
SOURCE_HASH = ffi.string(lib.sl_source_hash()).decode()
# The bound on every time of a simulation (csrc/SEMANTICS.md, "Time bounds").
assert lib.sl_time_max() == TIME_MAX, "schedlab.jobs.TIME_MAX differs from the C core's sl_time_max()"
_I64 = np.iinfo(np.int64)


def _core_op_table() -> tuple:
    """The compiled core's table of expression operations (csrc/exprops.def):
    (name, arity) per code, 0 .. SL_NOPS - 1."""
    name, arity = ffi.new("const char **"), ffi.new("int32_t *")
    rows = []
    while lib.sl_expr_op_info(len(rows), name, arity) == lib.SL_OK:
        rows.append((ffi.string(name[0]).decode(), int(arity[0])))
    return tuple(rows)


def _check_op_table(table) -> None:
    """schedlab.expr is pure Python and writes the operations' table as data
    (``OP_TABLE``): it must be the core's, row for row."""
    core = _core_op_table()
    if tuple(table) != core or len(core) != lib.SL_NOPS:
        diff = next((i for i, (a, b) in enumerate(zip(tuple(table), core)) if a != b), min(len(table), len(core)))
        raise ImportError(f"schedlab.expr.OP_TABLE differs from the C core's table (csrc/exprops.def) at "
                          f"code {diff}: rebuild the core (make install) or mend the table")


_check_op_table(_EXPR_OP_TABLE)
assert all(getattr(lib, f"SL_OP_{k}") == v for k, v in _EXPR_OPS.items()), "schedlab.expr.OPS differs from enum sl_op"


#: Jobs completed by :meth:`Simulation.run` in this process (every simulation,
#: clones included): what ``bench/`` divides by wall time.  Read it with
#: :func:`jobs_simulated`; campaigns add their workers' counts to their
#: dataset (``jobs_simulated``), the study driver to ``timing``.
_JOBS_SIMULATED = 0


def jobs_simulated() -> int:
    """How many jobs :meth:`Simulation.run` has completed in this process."""
    return _JOBS_SIMULATED


def _as_int(name: str, value, lo: int, hi: int, none=None) -> int:
    """``value`` as a Python int in lo..hi: ints and numpy integers, or floats
    that are whole numbers (never truncated); booleans, strings, NaN and
    anything else are refused with an :class:`InputError` naming ``name``.
    ``None`` gives ``none`` when that is not None."""
    if value is None and none is not None:
        return none
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok and isinstance(value, (float, np.floating)) and math.isfinite(value) and value == int(value):
        value, ok = int(value), True
    if not ok:
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:80] + "..."
        raise InputError(f"{name} must be a whole number between {lo} and {hi}, got {shown}")
    v = int(value)
    if not lo <= v <= hi:
        raise InputError(f"{name} must be between {lo} and {hi}, got {v}")
    return v


# ----------------------------------------------------------------- schedule --

@dataclass(eq=False)
class Schedule:
    """What a simulation produced: per-job start, end and flags (-1 for jobs
    not started yet)."""

    jobs: Jobs
    m: int
    policy: Policy
    estimate: str
    start: np.ndarray
    end: np.ndarray
    flags: np.ndarray
    first_start: np.ndarray | None = None   # start of a killed small run (-1: none)
    predicted: np.ndarray | None = None     # the scheduler's estimate at submission
    partition: np.ndarray | None = None     # multiple queues: each job's partition (-1: none)

    @property
    def backfilled(self) -> np.ndarray:
        return (self.flags & lib.SL_BACKFILLED) != 0

    @property
    def killed(self) -> np.ndarray:
        return (self.flags & lib.SL_KILLED) != 0

    @property
    def forced(self) -> np.ndarray:
        return (self.flags & lib.SL_FORCED) != 0

    @property
    def borrowed(self) -> np.ndarray:
        """Multiple queues: started on processors taken from other partitions."""
        return (self.flags & lib.SL_BORROWED) != 0

    @property
    def requeued(self) -> np.ndarray:
        """Ran as small, was killed at the divider and ran again as large."""
        return (self.flags & lib.SL_REQUEUED) != 0

    @property
    def started(self) -> np.ndarray:
        return self.start >= 0

    @property
    def wait(self) -> np.ndarray:
        return np.where(self.started, self.start - self.jobs.submit, -1)

    def summary(self, **kw):
        from .metrics import summary
        return summary(self, **kw)


# --------------------------------------------------------------- estimators --

_BRANCH_KINDS = {"squared": lib.SL_LOSS_SQUARED, "linear": lib.SL_LOSS_LINEAR}
_WEIGHT_KINDS = {"1": lib.SL_WEIGHT_ONE, "5+log(q/p)": lib.SL_WEIGHT_Q_OVER_P, "5+log(p/q)": lib.SL_WEIGHT_P_OVER_Q,
                 "11+log(1/qp)": lib.SL_WEIGHT_SMALL_AREA, "log(qp)": lib.SL_WEIGHT_LARGE_AREA}


@dataclass(frozen=True)
class Learned:
    """gaussier2015's learned runtime estimate, computed inside the C core
    (``csrc/learned.c``): at each submission a prediction from the 20
    features of its Table 2 by a degree-2 polynomial model, at each
    completion one step of the Normalized Adaptive Gradient on ``loss``.
    Pass ``estimate=Learned(loss, eta, lam)`` (or ``estimate="learned"``
    for the defaults); the jobs need their users.

    ``loss``: a :class:`schedlab.engine.prediction.Loss` or its name
    (``"sq/lin/log(qp)"``, ``"E-Loss"``; default E-Loss); ``eta``: NAG's
    learning rate in seconds (default :data:`schedlab.engine.prediction.DEFAULT_ETA`);
    ``lam``: the L2 penalty (default :data:`schedlab.engine.prediction.DEFAULT_LAM`).

    The C estimator computes, bit for bit, what the readable Python
    reference :class:`schedlab.engine.prediction.LearnedEstimator` computes (every
    definition is in :mod:`schedlab.engine.prediction`; the contract in
    ``csrc/SEMANTICS.md``), at a small fraction of its cost.  The model is
    read back with :meth:`Simulation.learned_model`, the predictions before
    rounding with :attr:`Simulation.learned_raw`.
    """

    loss: Any = "E-Loss"
    eta: float | None = None
    lam: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "loss", Loss.parse(self.loss))
        for name, default, low in (("eta", DEFAULT_ETA, "> 0"), ("lam", DEFAULT_LAM, ">= 0")):
            v = getattr(self, name)
            v = default if v is None else v
            ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) \
                and math.isfinite(float(v)) and (float(v) > 0 if low == "> 0" else float(v) >= 0)
            if not ok:
                raise InputError(f"learned estimate: {name} must be a finite number {low}, got {v!r}")
            object.__setattr__(self, name, float(v))

    def _fill(self, c) -> None:
        """Fill an ``sl_learned`` struct."""
        c.over = _BRANCH_KINDS[self.loss.over]
        c.under = _BRANCH_KINDS[self.loss.under]
        c.weight = _WEIGHT_KINDS[self.loss.weight]
        c.eta = self.eta
        c.lam = self.lam

    def __str__(self):
        return f"learned({self.loss.name}, eta={self.eta:g}, lam={self.lam:g})"


class Estimator:
    """A runtime estimator written in Python, called by the C core at each
    submission (``predict``) and completion (``observe``).  Slower than the
    built-in estimators (one Python call per job); subclass and pass an
    instance as ``estimate=``, or, in a study, name the subclass where it
    lives, ``estimate="py:module:Name"`` (:func:`python_estimator`).

    **The simulation it runs in.**  A :class:`Simulation` calls
    :meth:`attach` with itself when it is created, before any event; an
    estimator reads the state it needs from there (:attr:`simulation`, e.g.
    its :attr:`Simulation.start_times`, a live view).  A clone of a
    simulation gets a deep copy of the estimator, attached to the clone.
    An estimator serves one simulation at a time (the last that attached it).
    """

    #: Weak reference to the simulation (set by :meth:`attach`).
    _simulation_ref = None

    def attach(self, simulation: "Simulation") -> None:
        """Called by ``simulation`` with itself at its creation (and with a
        clone, on the clone's copy).  Subclasses that override it call
        ``super().attach(simulation)``."""
        self._simulation_ref = weakref.ref(simulation)

    @property
    def simulation(self) -> "Simulation | None":
        """The simulation this estimator runs in (None before :meth:`attach`
        or once that simulation is gone)."""
        ref = self._simulation_ref
        return None if ref is None else ref()

    def __getstate__(self):
        # Copies and pickles are not attached: the weak reference stays behind.
        state = dict(self.__dict__)
        state.pop("_simulation_ref", None)
        return state

    def predict(self, job: int, now: int) -> int:  # pragma: no cover - interface
        """Estimate (seconds, >= 0) of job index ``job`` submitted at ``now``."""
        raise NotImplementedError

    def observe(self, job: int, now: int, runtime: int) -> None:
        """Job index ``job`` completed at ``now`` after running ``runtime`` s."""


def python_estimator(spec: str) -> "Estimator":
    """A fresh :class:`Estimator` from ``py:module:name``: an Estimator
    subclass or a function of no argument returning one (called, so that
    every simulation gets its own state), or an instance (deep-copied)."""
    import copy

    obj = python_object(spec, "estimate")
    if isinstance(obj, Estimator):
        return copy.deepcopy(obj)
    if callable(obj):
        try:
            est = obj()
        except Exception as exc:
            raise InputError(f"estimate {spec}: {spec}() raised {type(exc).__name__}: {exc}") from None
        if isinstance(est, Estimator):
            return est
        raise InputError(f"estimate {spec}: {spec}() gave {type(est).__name__}, not an Estimator")
    raise InputError(f"estimate {spec}: expected an Estimator (a subclass, an instance or a function "
                     f"returning one), got {type(obj).__name__}")


def _estimate_value(sim: "Simulation", job: int, value) -> int:
    """An estimator's prediction, checked: an integer number of seconds in
    0..TIME_MAX (a float only if it is a whole number: 7.9 is refused, not
    rounded or truncated)."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok and isinstance(value, (float, np.floating)) and math.isfinite(value) and value == int(value):
        value, ok = int(value), True
    if not ok:
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:80] + "..."
        raise InputError(f"{sim.jobs.where(job)}: the estimator's predict returned {shown}, "
                         "not a whole number of seconds")
    v = int(value)
    if not 0 <= v <= TIME_MAX:
        raise InputError(f"{sim.jobs.where(job)}: the estimator's predict returned {v}, outside 0..2^61 s")
    return v


@ffi.def_extern()
def sl_py_predict(ctx, job, now):
    # Every exception is kept and re-raised by Simulation.run (the C core
    # stops the run at the -1); nothing may escape into cffi.
    sim = ffi.from_handle(ctx)
    try:
        if sim._cb_error is not None:   # an observe failed: stop at this submission
            return -1
        return _estimate_value(sim, int(job), sim._estimator.predict(int(job), int(now)))
    except BaseException as exc:  # re-raised by Simulation.run
        sim._cb_error = exc
        return -1


@ffi.def_extern()
def sl_py_observe(ctx, job, now, runtime):
    sim = ffi.from_handle(ctx)
    if sim._cb_error is not None:
        return
    try:
        sim._estimator.observe(int(job), int(now), int(runtime))
    except BaseException as exc:
        sim._cb_error = exc


# --------------------------------------------------------------- simulation --

class _KeyContext:
    """What a key function's calls need: its simulation (weakly) and the function."""

    __slots__ = ("sim", "fn")

    def __init__(self, sim: "Simulation", fn: KeyFunction):
        self.sim = weakref.ref(sim)
        self.fn = fn

    def features(self, idx: np.ndarray, now: int) -> dict:
        sim = self.sim()
        jobs = sim.jobs
        req, procs, submit = jobs.req[idx], jobs.procs[idx], jobs.submit[idx]
        f = {"req": req, "procs": procs, "submit": submit, "wait": now - submit,
             "area": req.astype(np.float64) * procs, "id": jobs.id[idx],
             "est": sim._pred[idx]}        # the estimate at submission (sl_out.predicted)
        if jobs.user is not None:
            f["user"] = jobs.user[idx]
        if sim.estimate == "actual":
            f["run"] = jobs.run[idx]
        for name, col in (jobs.columns or {}).items():
            f[name] = col[idx]
        return f


@ffi.def_extern()
def sl_py_keys(ctx, jobs, n, now, out):
    kc = ffi.from_handle(ctx)
    sim = kc.sim()
    try:
        idx = np.frombuffer(ffi.buffer(jobs, 4 * n), dtype=np.int32).copy() if n else np.zeros(0, np.int32)
        keys = kc.fn.fn(kc.features(idx, int(now)), int(now))
        k = np.asarray(keys)
        if k.shape != (n,) or k.dtype.kind not in "iuf" or k.dtype.kind == "b":
            raise TypeError(f"returned {type(keys).__name__} of shape {k.shape} and dtype {k.dtype}; expected "
                            f"{n} numbers, one per queued job")
        np.frombuffer(ffi.buffer(out, 8 * n), dtype=np.float64)[:] = k.astype(np.float64)
        return 0
    except BaseException as exc:  # noqa: BLE001 - reaches the user as one SchedlabError
        if sim is not None:
            err = SchedlabError(f"policy key function {kc.fn.name}: {type(exc).__name__}: {exc}")
            err.__cause__ = exc
            sim._cb_error = err
        return 1


def _expr_policy(c, e: Expr, columns: tuple, keep: list) -> None:
    """Point the ``sl_policy`` ``c`` at ``e``'s compiled program (its columns
    numbered as in ``columns``); ``keep`` holds what C points to."""
    ops, args = e.arrays(columns)
    ce = ffi.new("sl_expr *")
    ce.len = len(ops)
    ce.op = ffi.from_buffer("int32_t[]", ops)
    ce.arg = ffi.from_buffer("double[]", args)
    keep.append((ops, args, ce, ce.op, ce.arg))
    c.kind, c.expr = lib.SL_EXPR, ce


def _check(rc: int, what: str, handle=None) -> None:
    if rc != lib.SL_OK:
        msg = ffi.string(lib.sl_status_message(rc)).decode()
        if handle is not None:
            detail = ffi.string(lib.sl_sim_error(handle)).decode()
            msg = detail or msg
        raise SimulationError(rc, f"{what}: {msg}")


class UncorrectedEstimateWarning(UserWarning):
    """Per-job estimates below the jobs' runtimes run with correction='none'."""


def _outside_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn`, called by this function's
    caller, that names the first frame outside the schedlab package: the
    user's line, whichever door they came in by."""
    import os
    import sys

    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    f, level = sys._getframe(2), 2
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(pkg):
        f, level = f.f_back, level + 1
    return level


def warn_uncorrected(jobs: Jobs, est: np.ndarray, overrun: str, label: str) -> int:
    """Warn when some per-job estimates are below the time the jobs will run
    (their runtime, cut at the requested time when overruns are killed) and
    nothing corrects them: each such job, once it outlives its estimate, is
    expected to end at every pass, so the reservation of the queue's head
    keeps moving and waits can grow without bound (a prediction below the
    runtime once gave a maximum wait of 194 days here, silently).  Returns
    how many jobs."""
    stay = np.minimum(jobs.run, jobs.req) if overrun == "kill" else jobs.run
    short = int(np.count_nonzero(est < stay))
    if short:
        import warnings

        warnings.warn(f"estimate {label}: {short} of {len(jobs)} jobs have an estimate below their runtime and "
                      f"correction='none' (each is expected to end at every pass once it outlives its estimate); "
                      f"give correction='requested', 'incremental' or 'doubling' (--correction)",
                      UncorrectedEstimateWarning, stacklevel=_outside_stacklevel())
    return short


def _estimate_array(estimate, jobs) -> np.ndarray:
    """A per-job estimate array (int64, >= 0; an error names the job's file and line)."""
    est = _int_array("estimate", estimate, np.int64, len(jobs))
    if est.size and est.min() < 0:
        i = int(np.flatnonzero(est < 0)[0])
        raise InputError(f"{jobs.where(i)}: field estimate: negative estimate {est[i]}")
    return est


def _sl_jobs(jobs, est, ptr):
    """The core's ``sl_jobs`` of ``jobs`` (and per-job estimates ``est`` or
    None), its arrays kept alive by ``ptr(ctype, array)``; classes, dividers
    and users are the caller's."""
    cjobs = ffi.new("sl_jobs *")
    cjobs.n = len(jobs)
    for name in ("submit", "run", "req", "id"):
        setattr(cjobs, name, ptr("int64_t[]", getattr(jobs, name)))
    cjobs.procs = ptr("int32_t[]", jobs.procs)
    cjobs.estimate = ptr("int64_t[]", est) if est is not None else ffi.NULL
    return cjobs


def _checked_jobs(jobs, m) -> int:
    """The machine size of a simulation, after checking its jobs fit it and
    start at time 0 or later (an error names the job's file and line)."""
    if not isinstance(jobs, Jobs):
        raise InputError(f"jobs must be a schedlab.engine.sim.Jobs, got {type(jobs).__name__}")
    m = _as_int("machine size m", m, 1, int(np.iinfo(np.int32).max))
    jobs.validate(m)
    if len(jobs) and jobs.submit[0] < 0:
        i = int(np.flatnonzero(jobs.submit < 0)[0])
        raise InputError(f"{jobs.where(i)}: field submit: negative submit time {jobs.submit[i]} "
                         "(times start at 0; shift the jobs)")
    return m


class Simulation:
    """A stepping simulation over the C core; a context manager.

    ``run(until)`` processes every event with time <= until; ``set_policy``
    changes the policies for the passes that follow; ``clone()`` returns an
    independent copy of the current state (online simulation).  The
    arguments are those of :func:`simulate`.

    ``classes`` (True/1 = small) and ``divider`` (thesis Algorithms 3-4;
    csrc/SEMANTICS.md, "Job classes"): ``divider`` is one duration for every
    job (seconds or a string such as "15m"; None: small jobs run to
    completion) or a per-job array of n whole seconds >= 0 (job j running as
    small is killed at start + divider[j] and requeued as large); errors
    name the field ``divider`` and the job.  ``self.divider`` holds the
    seconds, the int64 array, or None.
    """

    def __init__(self, jobs: Jobs, m: int, policy="EASY-FCFS-FCFS", threshold=None,
                 estimate="requested", overrun: str = "kill", threshold_backfill=None,
                 *, classes=None, divider=None, correction: str = "none",
                 partitions=None, criteria=None, recompute=None, recompute_origin=None,
                 tie: str = "oldest", rules: str = "easy", _clone_of: "Simulation | None" = None):
        self._handle = None
        # One call at a time (cffi releases the GIL inside the core): a second
        # one -- another thread, or the estimator re-entering -- is refused.
        self._lock = threading.Lock()
        self._estimator, self._cb_error, self._self_handle = None, None, None
        self._qbuf = self._dcells = None    # queued(), decide(): their buffers, made at the first call
        self.learned: Learned | None = None
        if _clone_of is not None:
            self._init_clone(_clone_of)
            return
        m = _checked_jobs(jobs, m)
        if not isinstance(overrun, str) or overrun not in OVERRUNS:
            raise InputError(f"overrun must be one of {sorted(OVERRUNS)}, got {overrun!r}")
        self.jobs, self.m, self.overrun = jobs, m, overrun
        self.policy = as_policy(policy, threshold, threshold_backfill)
        n = len(jobs)
        if not isinstance(correction, str) or correction not in CORRECTIONS:
            raise InputError(f"correction must be one of {sorted(CORRECTIONS)}, got {correction!r}")
        self.correction = correction
        if not isinstance(tie, str) or tie not in TIES:
            raise InputError(f"tie must be one of {sorted(TIES)}, got {tie!r}")
        if tie != "oldest" and partitions is not None:
            raise InputError(f"tie={tie!r} is for the single queue pair; multiple queues (partitions) keep "
                             f"their FCFS order (tie='oldest')")
        self.tie = tie
        if not isinstance(rules, str) or rules not in RULES:
            raise InputError(f"rules must be one of {sorted(RULES)}, got {rules!r}")
        self.rules = rules
        if isinstance(estimate, str) and estimate.startswith(PYTHON_PREFIX):
            estimate = python_estimator(estimate)
        if isinstance(estimate, Estimator):
            self.estimate, self._est_kind, self._est = "callback", lib.SL_EST_CALLBACK, None
            self._estimator = estimate
        elif isinstance(estimate, Learned) or (isinstance(estimate, str) and estimate == LEARNED):
            self.learned = estimate if isinstance(estimate, Learned) else Learned()
            self.estimate, self._est_kind, self._est = LEARNED, lib.SL_EST_LEARNED, None
            if jobs.user is None:
                raise InputError("the learned estimate needs the users of the jobs (Jobs(..., user=...))")
        elif isinstance(estimate, str) and estimate.startswith("col:"):
            name = estimate[4:]
            if not jobs.columns or name not in jobs.columns:
                known = ", ".join(sorted(jobs.columns or ())) or "none"
                raise InputError(f"estimate={estimate!r}: the jobs have no column {name!r} (their columns: {known})")
            col = jobs.columns[name]
            if col.size and (col.min() < 0 or col.max() > TIME_MAX):
                i = int(np.flatnonzero((col < 0) | (col > TIME_MAX))[0])
                raise InputError(f"{jobs.where(i)}: column {name}: estimate {col[i]!r} outside 0..2^61 s")
            est = _estimate_array(np.rint(col), jobs)
            self.estimate, self._est_kind, self._est = estimate, lib.SL_EST_ARRAY, est
        elif isinstance(estimate, str):
            if estimate not in ESTIMATES:
                raise InputError(f"estimate must be one of {sorted(ESTIMATES) + [LEARNED]}, 'col:NAME' (a column "
                                 f"of the jobs), a per-job array, Learned(...) or an Estimator, got {estimate!r}")
            self.estimate, self._est_kind, self._est = estimate, ESTIMATES[estimate], None
            if estimate == "easy++" and jobs.user is None:
                raise InputError("estimate='easy++' needs the users of the jobs (Jobs(..., user=...))")
        else:
            est = _estimate_array(estimate, jobs)
            self.estimate, self._est_kind, self._est = "array", lib.SL_EST_ARRAY, est
        if self._est is not None and correction == "none":
            warn_uncorrected(jobs, self._est, overrun, repr(self.estimate))
        self._keep: list = []
        self._cls, self.divider = self._check_classes(classes, divider, n)
        cjobs = _sl_jobs(jobs, self._est, self._ptr)
        self._cols = None
        if jobs.columns or any(isinstance(q, (Expr, KeyFunction)) for q in (self.policy.primary,
                                                                            self.policy.backfill)):
            names = self._column_names()
            if names:
                cjobs.cols = self._ptr("double[]", self._columns_array().reshape(-1))
                cjobs.ncols = len(names)
        cjobs.cls = self._ptr("uint8_t[]", self._cls) if self._cls is not None else ffi.NULL
        per_job = isinstance(self.divider, np.ndarray)
        cjobs.divider = self._ptr("int64_t[]", self.divider) if per_job else ffi.NULL
        if self._est_kind in (lib.SL_EST_EASYPP, lib.SL_EST_LEARNED):
            users, dense = np.unique(jobs.user, return_inverse=True)
            self._users = np.ascontiguousarray(dense, dtype=np.int32)
            cjobs.user = self._ptr("int32_t[]", self._users)
            cjobs.nusers = len(users)
        cfg = ffi.new("sl_config *")
        cfg.m = m
        cfg.estimate = self._est_kind
        cfg.overrun = OVERRUNS[overrun]
        cfg.divider = -1 if self.divider is None or per_job else self.divider
        cfg.correction = CORRECTIONS[correction]
        cfg.tie = TIES[tie]
        cfg.rules = RULES[rules]
        if self.learned is not None:
            self.learned._fill(cfg.learned)
        if self._estimator is not None:
            self._self_handle = ffi.new_handle(self)
            cfg.predict = lib.sl_py_predict
            cfg.observe = lib.sl_py_observe
            cfg.ctx = self._self_handle
        self._fill_policy_config(cfg)
        self._cjobs, self._cfg = cjobs, cfg
        self._alloc_outputs(n)
        err = ffi.new("char[]", 512)
        ptr = ffi.new("sl_sim **")
        rc = lib.sl_sim_new(cjobs, cfg, self._cout, ptr, err, 512)
        if rc != lib.SL_OK:
            msg = ffi.string(err).decode() or ffi.string(lib.sl_status_message(rc)).decode()
            raise SimulationError(rc, self._name_job(msg))
        self._handle = ffi.gc(ptr[0], lib.sl_sim_free)
        if self._estimator is not None:
            self._estimator.attach(self)
        if partitions is not None:
            self.set_partitions(partitions, criteria)
            if recompute is not None:
                self.set_recompute(recompute, recompute_origin)
        elif criteria is not None or recompute is not None:
            raise InputError("criteria and recompute need partitions=P (multiple-queue backfilling)")

    # -- construction helpers
    _JOB_IN_MESSAGE = re.compile(r"^job -?\d+ \(index (\d+)\)")

    def _name_job(self, msg: str) -> str:
        """The core names a job by id and index; the jobs know its file and
        line too (jobs read from an SWF file): say them."""
        mo = self._JOB_IN_MESSAGE.match(msg)
        if mo is None or not int(mo.group(1)) < len(self.jobs):
            return msg
        return self.jobs.where(int(mo.group(1))) + msg[mo.end():]

    def _check_classes(self, classes, divider, n):
        """Per-job classes (True/1 = small) and the kill divider: seconds
        (int), None, or a per-job int64 array (seconds, >= 0)."""
        if classes is None:
            if divider is not None:
                raise InputError("divider given without classes: the divider kills jobs running as small")
            return None, None
        c = np.asarray(classes)
        if c.ndim != 1 or c.shape[0] != n:
            raise InputError(f"classes: expected {n} values (True/1 = small), got shape {c.shape}")
        if c.dtype.kind not in "biu" or (c.size and (c.min() < 0 or c.max() > 1)):
            raise InputError("classes: expected booleans or 0/1 (1 = small)")
        if divider is None or isinstance(divider, (str, bytes)) or np.ndim(divider) == 0:
            if isinstance(divider, np.ndarray):
                divider = divider.item()
            div = parse_duration(divider)
        else:
            div = self._divider_array(divider, n)
        return np.ascontiguousarray(c, dtype=np.uint8), div

    def _divider_array(self, divider, n) -> np.ndarray:
        """A per-job divider: n integer seconds >= 0, no None or NaN."""
        a = np.asarray(divider)
        if a.ndim != 1 or a.shape[0] != n:
            raise InputError(f"divider: expected a duration or {n} values (seconds, one per job), "
                             f"got shape {a.shape}")
        if a.dtype.kind not in "iufO":
            raise InputError(f"divider: expected integer seconds per job, got dtype {a.dtype}")
        limit = TIME_MAX
        if a.dtype.kind == "O":             # e.g. a list holding None: find the job
            ok = lambda v: (isinstance(v, (int, float, np.integer, np.floating))  # noqa: E731
                            and not isinstance(v, (bool, np.bool_)) and bool(np.isfinite(v)) and v == int(v))
            bad = [i for i, v in enumerate(a.tolist()) if not ok(v)]
            if bad:
                raise InputError(f"{self.jobs.where(bad[0])}: field divider: {a[bad[0]]!r} is not a whole "
                                 f"number of seconds (a per-job divider has one for every job)")
            a = a.astype(np.float64)
        if a.dtype.kind in "uf" and a.size:
            bad = np.flatnonzero(~np.isfinite(a) | (a != np.round(a)) | (a > limit)) if a.dtype.kind == "f" \
                else np.flatnonzero(a > limit)
            if bad.size:
                i = int(bad[0])
                what = "too large" if np.isfinite(a[i]) and a[i] == np.round(a[i]) else "not a whole number of seconds"
                raise InputError(f"{self.jobs.where(i)}: field divider: {a[i].item()!r} is {what}")
        d = np.ascontiguousarray(a, dtype=np.int64)
        if d.size and d.min() < 0:
            i = int(np.flatnonzero(d < 0)[0])
            raise InputError(f"{self.jobs.where(i)}: field divider: negative divider {d[i]}")
        if d.size and d.max() > limit:
            i = int(np.argmax(d))
            raise InputError(f"{self.jobs.where(i)}: field divider: {d[i]} is too large")
        return d

    def _ptr(self, ctype: str, arr: np.ndarray, writable: bool = False):
        c = ffi.from_buffer(ctype, arr, require_writable=writable)
        self._keep.append((arr, c))
        return c

    def _alloc_outputs(self, n: int):
        self._start = np.full(n, -1, np.int64)
        self._end = np.full(n, -1, np.int64)
        self._flags = np.zeros(n, np.uint8)
        self._first = np.full(n, -1, np.int64) if self._cls is not None else None
        self._pred = np.full(n, -1, np.int64)
        out = ffi.new("sl_out *")
        out.start = self._ptr("int64_t[]", self._start, True)
        out.end = self._ptr("int64_t[]", self._end, True)
        out.flags = self._ptr("uint8_t[]", self._flags, True)
        out.first_start = self._ptr("int64_t[]", self._first, True) if self._first is not None else ffi.NULL
        out.predicted = self._ptr("int64_t[]", self._pred, True)
        self._cout = out

    def _column_names(self) -> tuple[str, ...]:
        """The per-job columns the core is given (Jobs.columns, then user)."""
        names = tuple(sorted(self.jobs.columns)) if self.jobs.columns else ()
        return names + (("user",) if self.jobs.user is not None else ())

    def _columns_array(self):
        """The job-major column matrix of _column_names (built once)."""
        if self._cols is None:
            names, jobs = self._column_names(), self.jobs
            mat = np.empty((len(jobs), len(names)), np.float64)
            for k, name in enumerate(names):
                mat[:, k] = jobs.user if name == "user" else jobs.columns[name]
            self._cols = mat
        return self._cols

    def _check_expr(self, e: Expr, which: str) -> None:
        have = self._column_names()
        for c in e.columns:
            if c not in have:
                if c == "user":
                    raise InputError(f"{which} policy {e}: reads user, but the jobs have no users (Jobs(user=...))")
                known = ", ".join(n for n in have if n != "user") or "none"
                raise InputError(f"{which} policy {e}: unknown column {c!r}; the jobs' columns: {known} "
                                 "(Jobs(columns=...), or --column NAME=FILE)")
        if e.reads_run and self.estimate != "actual":
            raise InputError(f"{which} policy {e}: reads the actual runtime (run), which only "
                             "estimate='actual' tells the scheduler")

    def _policy_struct(self, c, p: PolicyLike, which: str = "primary"):
        if isinstance(p, Expr):
            self._check_expr(p, which)
            _expr_policy(c, p, self._column_names(), self._keep)
        elif isinstance(p, KeyFunction):
            ctx = _KeyContext(self, p)
            handle = ffi.new_handle(ctx)
            self._keep.append((ctx, handle))
            c.kind = lib.SL_PYKEYS
            c.keys = lib.sl_py_keys
            c.kctx = handle
        elif isinstance(p, Mixed):
            c.kind = lib.SL_MIXED
            scales = p.scales if p.scales is not None else default_scales(self.jobs)
            for i in range(6):
                c.weights[i] = p.weights[i]
                c.scales[i] = scales[i]
        else:
            c.kind = _KINDS[p]

    def _fill_policy_config(self, cfg):
        p = self.policy
        self._policy_struct(cfg.primary, p.primary, "primary")
        self._policy_struct(cfg.backfill, p.backfill, "backfill")
        cfg.threshold = -1 if p.threshold is None else p.threshold
        cfg.threshold_backfill = int(p.threshold_backfill)

    def _init_clone(self, src: "Simulation"):
        with src._busy("clone"):
            self._init_clone_locked(src)

    def _init_clone_locked(self, src: "Simulation"):
        src._live()
        self.jobs, self.m, self.overrun, self.policy = src.jobs, src.m, src.overrun, src.policy
        self.estimate, self._est_kind, self._est = src.estimate, src._est_kind, src._est
        self.learned = src.learned
        self._cls, self.divider = src._cls, src.divider
        self.correction, self.tie, self.rules = src.correction, src.tie, src.rules
        self._keep = list(src._keep)            # the shared, read-only inputs stay alive
        self._cjobs, self._cfg, self._cols = src._cjobs, src._cfg, src._cols
        self._alloc_outputs(len(self.jobs))
        ptr = ffi.new("sl_sim **")
        _check(lib.sl_sim_clone(src._handle, self._cout, ptr), "clone")
        self._handle = ffi.gc(ptr[0], lib.sl_sim_free)
        if src._estimator is not None:
            import copy
            self._estimator = copy.deepcopy(src._estimator)
            self._self_handle = ffi.new_handle(self)
            _check(lib.sl_sim_set_context(self._handle, self._self_handle), "clone")
            self._estimator.attach(self)
        if any(isinstance(q, KeyFunction) for q in (self.policy.primary, self.policy.backfill)):
            self._cb_error = None
            self.set_policy(self.policy)        # the clone's own key context (same keys: same order)

    def _live(self):
        if self._handle is None:
            raise SimulationError(lib.SL_ESTATE, "simulation is closed")
        return self._handle

    class _Busy:
        __slots__ = ("lock",)

        def __init__(self, lock):
            self.lock = lock

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.lock.release()

    def _busy(self, what: str) -> "_Busy":
        """Hold the simulation's lock for one call; a call made while another
        is under way raises instead of waiting (a callback re-entering its own
        simulation would wait for ever)."""
        if not self._lock.acquire(blocking=False):
            raise SimulationError(lib.SL_ESTATE, f"{what}: simulation is busy: it is running in another thread "
                                  "or was re-entered from its own estimator (one call at a time)")
        return Simulation._Busy(self._lock)

    # -- public API
    def run(self, until=None) -> "Simulation":
        """Process every event with time <= until (None: to the end)."""
        t = _as_int("run: until", until, _I64.min, _I64.max, none=_I64.max)
        with self._busy("run"):
            h = self._live()
            self._after_run(self._run_counted(h, t, ffi.new("sl_state *")), "run", h)
        return self

    @staticmethod
    def _run_counted(h, t: int, st) -> int:
        """sl_sim_run(h, t), the jobs it completes counted (st: a
        ``sl_state *`` cell); returns its status."""
        global _JOBS_SIMULATED
        lib.sl_sim_state(h, st)
        before = st.done
        rc = lib.sl_sim_run(h, t)
        lib.sl_sim_state(h, st)
        _JOBS_SIMULATED += int(st.done - before)
        return rc

    def _after_run(self, rc: int, what: str, h) -> None:
        """A callback's error first, then any status but a pending decision."""
        if self._cb_error is not None:
            err, self._cb_error = self._cb_error, None
            raise err
        if rc != lib.SL_DECIDE:
            _check(rc, what, h)

    # -- decisions by the caller (dispatch mode; csrc/SEMANTICS.md, "Decisions by the caller")
    def set_dispatch(self, on: bool = True) -> "Simulation":
        """Dispatch mode on (or off): step 2 of every pass -- which queued
        jobs start, in which order, and which one is the head that gets the
        reservation -- is the caller's.  :meth:`run` then stops at every
        pass in which a queued job fits (:attr:`deciding` is True) and
        :meth:`decide` names the job.  Refused with a threshold or
        partitions (one error each), and while a decision is pending."""
        if not isinstance(on, (bool, np.bool_)):
            raise InputError(f"set_dispatch: on must be True or False, got {on!r}")
        with self._busy("set_dispatch"):
            h = self._live()
            _check(lib.sl_sim_set_dispatch(h, int(bool(on))), "set_dispatch", h)
        return self

    def _dispatch_state(self) -> tuple[bool, bool, int]:
        if self._dcells is None:            # made once: read at every decision
            self._dcells = (ffi.new("int32_t *"), ffi.new("int32_t *"), ffi.new("int64_t *"), ffi.new("sl_state *"))
        on, pending, t, _ = self._dcells
        _check(lib.sl_sim_dispatch(self._live(), on, pending, t), "dispatch")
        return bool(on[0]), bool(pending[0]), int(t[0])

    @property
    def dispatch(self) -> bool:
        """Is dispatch mode on (:meth:`set_dispatch`)?"""
        return self._dispatch_state()[0]

    @property
    def deciding(self) -> bool:
        """Is a decision pending (the pass at :attr:`decision` waits for
        :meth:`decide`)?"""
        return self._dispatch_state()[1]

    @property
    def decision(self) -> int | None:
        """The time of the pass whose decision is pending (None: none)."""
        _, pending, t = self._dispatch_state()
        return t if pending else None

    def queued(self, limit: int | None = None) -> np.ndarray:
        """The queued jobs' indices (int32, a new array) in FCFS order --
        submit time, then id, then input position -- the first ``limit``
        of them (None: all).  During a decision: the jobs :meth:`decide`
        may name."""
        n = len(self.jobs) if limit is None else min(_as_int("queued: limit", limit, 0, _I64.max), len(self.jobs))
        with self._busy("queued"):
            h = self._live()
            if self._qbuf is None:          # one buffer per simulation, for every call
                self._qbuf = np.empty(max(len(self.jobs), 1), np.int32)
                self._qptr = ffi.from_buffer("int32_t[]", self._qbuf, require_writable=True)
                self._qcnt = ffi.new("int32_t *")
            _check(lib.sl_sim_queued(h, self._qptr, n, self._qcnt), "queued", h)
            return self._qbuf[:int(self._qcnt[0])].copy()

    def decide(self, job: int, until=None) -> "Simulation":
        """Name the queued job ``job`` (an index) at the pending decision:
        if it fits it starts now, and the next decision of the same pass
        follows while a queued job still fits; otherwise it is the head (it
        gets the reservation) and the pass ends with EASY's backfilling.
        When the pass has ended, the simulation runs on as :meth:`run`
        (``until``) to the next decision or the end.  A job that is not
        queued, or no decision pending, is refused (nothing changes)."""
        j = _as_int("decide: job", job, _I64.min, _I64.max)
        t = _as_int("decide: until", until, _I64.min, _I64.max, none=_I64.max)
        with self._busy("decide"):
            h = self._live()
            if not 0 <= j < len(self.jobs):
                raise InputError(f"decide: job index {j} outside 0..{len(self.jobs) - 1}")
            rc = lib.sl_sim_decide(h, j)
            if rc == lib.SL_OK:
                if self._dcells is None:
                    self._dispatch_state()
                rc = self._run_counted(h, t, self._dcells[3])
            self._after_run(rc, "decide", h)
        return self

    def set_policy(self, policy, threshold=None, threshold_backfill=None) -> "Simulation":
        """Change P_R, P_B and the threshold for the passes that follow.
        Threshold arguments left as None keep those of ``policy``."""
        policy = as_policy(policy, threshold, threshold_backfill)
        with self._busy("set_policy"):
            h = self._live()
            prim, back = ffi.new("sl_policy *"), ffi.new("sl_policy *")
            self._policy_struct(prim, policy.primary, "primary")
            self._policy_struct(back, policy.backfill, "backfill")
            thr = -1 if policy.threshold is None else policy.threshold
            _check(lib.sl_sim_set_policy(h, prim, back, thr, int(policy.threshold_backfill)), "set_policy", h)
            self.policy = policy
        return self

    # -- multiple-queue backfilling (lawson2005; csrc/SEMANTICS.md, last section)
    def set_partitions(self, partitions: int, criteria=None) -> "Simulation":
        """Switch to multiple-queue backfilling with ``partitions`` (P)
        FCFS queues, or reconfigure it (lawson2005 Appendix A.1-A.3).

        ``criteria``: P values (the P-1 boundaries on the scheduler's
        estimate, then the top t_P, all non-decreasing seconds) or P-1 (the
        top is then the last boundary; 0 for P = 1).  None: the uniform
        reassignment of the current t_P (A.1; for the first call only with
        P = 1, whose t_P is then 0).  With
        the current P, only the criteria of jobs submitted from now on change.
        Needs EASY-FCFS-FCFS without threshold, classes or corrections."""
        p = _as_int("partitions", partitions, 1, lib.SL_MAX_PARTITIONS)
        with self._busy("set_partitions"):
            return self._set_partitions(p, criteria)

    def _set_partitions(self, p: int, criteria) -> "Simulation":
        h = self._live()
        if criteria is None and p == 1 and self.partitions is None:
            criteria = [0]                  # one queue: no boundary, t_P = 0
        if criteria is None:
            ptr = ffi.NULL
        else:
            if isinstance(criteria, (str, bytes)) or not hasattr(criteria, "__iter__"):
                raise InputError(f"criteria must be a list of durations (seconds), got {criteria!r}")
            c = [parse_duration(v) for v in criteria]
            if any(v is None for v in c):
                raise InputError(f"criteria must be durations (seconds), got {criteria!r}")
            if len(c) == p - 1:
                c.append(c[-1] if c else 0)
            if len(c) != p:
                raise InputError(f"criteria: {p} partitions need {p - 1} boundaries (and optionally the top "
                                 f"t_P), got {len(c)} values")
            ptr = ffi.new("int64_t[]", c)
        _check(lib.sl_sim_set_partitions(h, p, ptr), "set_partitions", h)
        return self

    def set_recompute(self, period, origin=None) -> "Simulation":
        """Recompute the criteria at every ``origin + k * period`` from the
        jobs completed in the period before (lawson2005 Figure 3); ``origin``
        defaults to the first submit time, ``period`` None stops it."""
        per = parse_duration(period)
        first = int(self.jobs.submit[0]) if len(self.jobs) else 0
        org = _as_int("set_recompute: origin", origin, -TIME_MAX, TIME_MAX, none=first) \
            if origin is not None else first
        with self._busy("set_recompute"):
            h = self._live()
            _check(lib.sl_sim_set_recompute(h, -1 if per is None else per, org), "set_recompute", h)
        return self

    def set_cutoff(self, last_submit=None) -> "Simulation":
        """Jobs submitted after ``last_submit`` are never submitted (None: all
        are): an online simulation of the jobs already there."""
        t = _as_int("set_cutoff: last_submit", last_submit, _I64.min, _I64.max, none=_I64.max)
        with self._busy("set_cutoff"):
            h = self._live()
            rc = lib.sl_sim_set_cutoff(h, t)
            if rc != lib.SL_OK:
                raise SimulationError(rc, "set_cutoff: " + self._name_job(ffi.string(lib.sl_sim_error(h)).decode()))
        return self

    @property
    def partitions(self) -> dict | None:
        """The multiple-queue state (None for the single-queue pass): P,
        criteria; per partition its processors (``home``), how many of them
        are busy (``busy``, by any partition's jobs), how many processors of
        other partitions its running jobs hold (``lent`` to it), its queued
        jobs and its pivot; held reservations, recomputations and
        reconfigurations."""
        st = ffi.new("sl_partitions *")
        _check(lib.sl_sim_partitions(self._live(), st), "partitions")
        p = int(st.nparts)
        if p == 0:
            return None
        vec = lambda a: [int(a[k]) for k in range(p)]  # noqa: E731
        return {"P": p, "criteria": vec(st.bounds), "home": vec(st.home), "busy": vec(st.busy),
                "lent": vec(st.lent),
                "queued": vec(st.queued), "pivot": vec(st.pivot), "held": int(st.held),
                "period": int(st.period), "origin": int(st.origin), "next": int(st.next),
                "recomputed": int(st.recomputed), "reconfigured": int(st.reconfigured)}

    @property
    def job_partitions(self) -> np.ndarray:
        """Partition of every job (-1: not submitted, or no partitions)."""
        out = np.empty(len(self.jobs), np.int32)
        _check(lib.sl_sim_job_partitions(self._live(), ffi.from_buffer("int32_t[]", out, require_writable=True),
                                         len(out)), "job_partitions")
        return out

    def clone(self) -> "Simulation":
        """An independent copy of the current state (a Python estimator is
        deep-copied and attached to the clone; a learned model is copied)."""
        return Simulation(None, 0, _clone_of=self)  # type: ignore[arg-type]

    @property
    def estimator(self) -> "Estimator | None":
        """The Python :class:`Estimator` of this simulation (a clone's own copy), or None."""
        return self._estimator

    @property
    def start_times(self) -> np.ndarray:
        """Every job's start time so far (-1: not started; a job killed as
        small and requeued is -1 again until it restarts): a read-only,
        *live* view of the array the C core writes as jobs start, for
        estimators that need the state of the system.  Copy it to keep a
        snapshot (or use :attr:`schedule`)."""
        view = self._start.view()
        view.flags.writeable = False
        return view

    @property
    def end_times(self) -> np.ndarray:
        """Every job's end time so far (-1: not started; written when the
        job starts, so a job running at the current time has its future
        end): a read-only, *live* view like :attr:`start_times`, for
        observers that look at the state after every step without copying
        the schedule (:attr:`schedule` copies every output)."""
        view = self._end.view()
        view.flags.writeable = False
        return view

    # -- the learned estimate (estimate=Learned(...))
    def _learned_handle(self):
        h = self._live()
        if self.learned is None:
            raise InputError("this simulation does not use the learned estimate (estimate=Learned(...))")
        return h

    def learned_model(self) -> dict[str, Any]:
        """The learned model now: ``w`` (weights), ``s`` (NAG's scales, the
        largest |phi_i| seen), ``G`` (sums of squared gradients), ``N`` and
        ``t`` (steps taken) -- the state of :class:`schedlab.engine.prediction.NAG`."""
        h = self._learned_handle()
        dim = lib.SL_LEARNED_DIM
        w, s, g = np.empty(dim), np.empty(dim), np.empty(dim)
        n, t = ffi.new("double *"), ffi.new("int64_t *")
        buf = lambda a: ffi.from_buffer("double[]", a, require_writable=True)  # noqa: E731
        _check(lib.sl_sim_learned_model(h, buf(w), buf(s), buf(g), n, t), "learned_model", h)
        return {"w": w, "s": s, "G": g, "N": float(n[0]), "t": int(t[0])}

    @property
    def learned_raw(self) -> np.ndarray:
        """The learned predictions w . Phi(x_j) at submission, before rounding
        and clipping (NaN for jobs not submitted yet); a copy."""
        h = self._learned_handle()
        out = np.empty(len(self.jobs))
        _check(lib.sl_sim_learned_raw(h, ffi.from_buffer("double[]", out, require_writable=True), len(out)),
               "learned_raw", h)
        return out

    def learned_features(self, job: int) -> np.ndarray:
        """The 20 features (:data:`schedlab.engine.prediction.FEATURES`) of a
        submitted job, as the learned estimate computed them."""
        h = self._learned_handle()
        j = _as_int("learned_features: job", job, _I64.min, _I64.max)
        if not 0 <= j < len(self.jobs) or j >= self.state["submitted"]:
            raise InputError(f"learned_features: job index {job!r} is not a submitted job")
        out = np.empty(lib.SL_LEARNED_NFEATURES)
        _check(lib.sl_sim_learned_features(h, j, ffi.from_buffer("double[]", out, require_writable=True)),
               "learned_features", h)
        return out

    @property
    def state(self) -> dict:
        st = ffi.new("sl_state *")
        _check(lib.sl_sim_state(self._live(), st), "state")
        return {k: int(getattr(st, k)) for k in ("now", "next_event", "submitted", "queued", "running", "done", "used")}

    @property
    def finished(self) -> bool:
        return self.state["done"] == len(self.jobs)

    @property
    def schedule(self) -> Schedule:
        """A copy of the outputs so far."""
        return Schedule(self.jobs, self.m, self.policy, self.estimate,
                        self._start.copy(), self._end.copy(), self._flags.copy(),
                        None if self._first is None else self._first.copy(), self._pred.copy(),
                        self.job_partitions if self.partitions is not None else None)

    def close(self) -> None:
        """Free the C handle (idempotent); refused while a call is under way."""
        with self._busy("close"):
            if self._handle is not None:
                ffi.release(self._handle)
                self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<Simulation {self.policy} m={self.m} jobs={len(self.jobs)}>"


def simulate(jobs: Jobs, m: int, policy="EASY-FCFS-FCFS", threshold=None, estimate="requested",
             overrun: str = "kill", threshold_backfill=None, *, classes=None, divider=None,
             correction: str = "none", partitions=None, criteria=None, recompute=None,
             recompute_origin=None, tie: str = "oldest", rules: str = "easy") -> Schedule:
    """Simulate EASY-P_R-P_B on ``jobs`` with ``m`` processors to the end.

    ``classes`` (optional, True = small) orders the queues small first
    (thesis Algorithm 3); with a ``divider`` a job running as small whose
    runtime exceeds it is killed there and requeued as large (Algorithm 4);
    without one, small jobs run to completion.  ``divider`` is a duration
    for every job (seconds, or e.g. "15m") or a per-job array of n whole
    seconds >= 0 (job j is killed at its own divider[j]: the thesis
    recomputes the divider every week).

    ``estimate``: "requested" (p~), "actual" (clairvoyant), "easy++" (mean
    of the user's last two completed runtimes at submission), "learned" or
    :class:`Learned` (gaussier2015's online regression, in C; its model:
    :func:`schedlab.engine.prediction.simulate_learned`), a per-job array, or an
    :class:`Estimator`; ``correction`` of an estimate a running
    job outlives: "none" (expected to end now), "requested", "incremental",
    "doubling" (gaussier2015 §5.2).

    ``partitions`` (P), ``criteria`` and ``recompute`` select lawson2005's
    multiple-queue backfilling (see :meth:`Simulation.set_partitions`).

    ``tie``: the order of queued jobs with equal keys, in every queue:
    "oldest" (earlier submission, then smaller id, first: this engine's
    semantics) or "newest" (each reversed: freuk/ocst's rule, a reading of
    the papers computed with it; csrc/SEMANTICS.md, "Other simulators").

    ``rules``: "easy" (EASY's passes, this engine's semantics), "schedgym" or
    "schedgym-nobackfill" (RLScheduler's SchedGym, ``HPCSimPickJobs`` with
    ``backfil`` True or False: the first job in P_R order is picked and held
    until it starts; with backfilling, the jobs behind it start meanwhile in
    submission order if they end, by their estimate, strictly before its
    earliest start; P_B must be FCFS; csrc/SEMANTICS.md, "SchedGym's rules";
    SchedGym's own heuristics: :data:`schedlab.gym.schedgym.HEURISTICS`)."""
    with Simulation(jobs, m, policy, threshold, estimate, overrun, threshold_backfill,
                    classes=classes, divider=divider, correction=correction, partitions=partitions,
                    criteria=criteria, recompute=recompute, recompute_origin=recompute_origin, tie=tie,
                    rules=rules) as sim:
        sim.run()
        return Schedule(sim.jobs, sim.m, sim.policy, sim.estimate, sim._start, sim._end, sim._flags,
                        sim._first, sim._pred,
                        sim.job_partitions if partitions is not None else None)


def simulate_parts(jobs: Jobs, m: int, policy, bounds, overrun: str = "kill") -> Schedule:
    """Each part ``jobs[bounds[k]:bounds[k+1]]`` simulated alone, from an
    empty machine to its end, under ``policy`` with the requested times as
    estimates: the same schedules as ``simulate(jobs.subset(slice(lo, hi)),
    m, policy, overrun=overrun)`` part by part, written side by side into one
    :class:`Schedule` of every job (-1 for jobs outside the parts).

    For many small parts (the period costs of the selection study: every
    day of a two-year trace): the jobs are validated once and each part is
    simulated in place (the core reads and writes the slices of the whole
    arrays), without the per-simulation set-up of :class:`Simulation`.
    ``bounds``: non-decreasing positions in [0, n]; empty parts are skipped.
    Queue orders only (a mixed policy's default scales depend on the jobs
    of each part: use :func:`simulate` on the subsets)."""
    global _JOBS_SIMULATED
    if not isinstance(jobs, Jobs):
        raise InputError(f"jobs must be a schedlab.engine.sim.Jobs, got {type(jobs).__name__}")
    m = _as_int("machine size m", m, 1, int(np.iinfo(np.int32).max))
    jobs.validate(m)
    n = len(jobs)
    if n and jobs.submit[0] < 0:
        i = int(np.flatnonzero(jobs.submit < 0)[0])
        raise InputError(f"{jobs.where(i)}: field submit: negative submit time {jobs.submit[i]} "
                         "(times start at 0; shift the jobs)")
    if not isinstance(overrun, str) or overrun not in OVERRUNS:
        raise InputError(f"overrun must be one of {sorted(OVERRUNS)}, got {overrun!r}")
    policy = as_policy(policy)
    if isinstance(policy.primary, Mixed) or isinstance(policy.backfill, Mixed):
        raise InputError("simulate_parts: queue orders only, not a mixed policy (use simulate on each part)")
    for q in (policy.primary, policy.backfill):
        if isinstance(q, KeyFunction) or (isinstance(q, Expr) and (q.columns or q.reads_run)):
            raise InputError(f"simulate_parts: {q} needs per-job columns, the actual runtime or Python keys "
                             "(use simulate on each part)")
    b = np.asarray(bounds)
    if b.ndim != 1 or b.size < 1 or not np.issubdtype(b.dtype, np.integer):
        raise InputError(f"bounds: a 1-d array of integer positions, got {b!r}")
    b = b.astype(np.int64)
    if b[0] < 0 or b[-1] > n or np.any(np.diff(b) < 0):
        raise InputError(f"bounds: non-decreasing positions in [0, {n}] needed, got {b.min()}..{b.max()}")
    start, end = np.full(n, -1, np.int64), np.full(n, -1, np.int64)
    flags, pred = np.zeros(n, np.uint8), np.full(n, -1, np.int64)
    src = {name: ffi.from_buffer("int64_t[]", getattr(jobs, name)) for name in ("submit", "run", "req", "id")}
    procs = ffi.from_buffer("int32_t[]", jobs.procs)
    dst = {"start": ffi.from_buffer("int64_t[]", start, require_writable=True),
           "end": ffi.from_buffer("int64_t[]", end, require_writable=True),
           "flags": ffi.from_buffer("uint8_t[]", flags, require_writable=True),
           "predicted": ffi.from_buffer("int64_t[]", pred, require_writable=True)}
    cfg = ffi.new("sl_config *")
    cfg.m = m
    cfg.estimate = ESTIMATES["requested"]
    cfg.overrun = OVERRUNS[overrun]
    cfg.divider = -1
    cfg.correction = CORRECTIONS["none"]
    keep: list = []
    for c, q in ((cfg.primary, policy.primary), (cfg.backfill, policy.backfill)):
        if isinstance(q, Expr):
            _expr_policy(c, q, (), keep)
        else:
            c.kind = _KINDS[q]
    cfg.threshold = -1 if policy.threshold is None else policy.threshold
    cfg.threshold_backfill = int(policy.threshold_backfill)
    cjobs, out = ffi.new("sl_jobs *"), ffi.new("sl_out *")     # zeroed: no estimates, classes, users
    err, ptr, st = ffi.new("char[]", 512), ffi.new("sl_sim **"), ffi.new("sl_state *")
    for k in range(b.size - 1):
        lo, hi = int(b[k]), int(b[k + 1])
        if hi == lo:
            continue
        cjobs.n = hi - lo
        for name, p in src.items():
            setattr(cjobs, name, p + lo)
        cjobs.procs = procs + lo
        for name, p in dst.items():
            setattr(out, name, p + lo)
        rc = lib.sl_sim_new(cjobs, cfg, out, ptr, err, 512)
        if rc != lib.SL_OK:
            msg = ffi.string(err).decode() or ffi.string(lib.sl_status_message(rc)).decode()
            raise SimulationError(rc, f"simulate_parts: part {k} (jobs {lo}..{hi - 1}): {msg}")
        h = ptr[0]
        try:
            rc = lib.sl_sim_run(h, _I64.max)
            lib.sl_sim_state(h, st)
            _JOBS_SIMULATED += int(st.done)
            _check(rc, f"simulate_parts: part {k} (jobs {lo}..{hi - 1}): run", h)
        finally:
            lib.sl_sim_free(h)
    return Schedule(jobs, m, policy, "requested", start, end, flags, None, pred)


# ------------------------------------------------ many mixed policies at once --

class _MultiRun:
    """The state of one :func:`simulate_mixed_many` call, seen by its callback."""

    def __init__(self, jobs: Jobs, m: int, policy_of, estimate: str, on_schedule):
        self.jobs, self.m, self.policy_of, self.estimate = jobs, m, policy_of, estimate
        self.on_schedule = on_schedule
        self.error: BaseException | None = None
        self.n = len(jobs)

    def deliver(self, vectors, nvec, start, end, flags) -> int:
        vec = np.frombuffer(ffi.buffer(vectors, 4 * nvec), dtype=np.int32).copy()
        n = self.n
        st = np.frombuffer(ffi.buffer(start, 8 * n), dtype=np.int64).copy() if n else np.zeros(0, np.int64)
        en = np.frombuffer(ffi.buffer(end, 8 * n), dtype=np.int64).copy() if n else np.zeros(0, np.int64)
        fl = np.frombuffer(ffi.buffer(flags, n), dtype=np.uint8).copy() if n else np.zeros(0, np.uint8)
        s = Schedule(self.jobs, self.m, self.policy_of(int(vec[0])), self.estimate, st, en, fl)
        self.on_schedule(vec, s)
        return 0


@ffi.def_extern()
def sl_py_multi(ctx, vectors, nvec, start, end, flags):
    run = ffi.from_handle(ctx)
    try:
        return run.deliver(vectors, nvec, start, end, flags)
    except BaseException as exc:    # re-raised by simulate_mixed_many
        run.error = exc
        return 1


def simulate_mixed_many(jobs: Jobs, m: int, weights, scales=None, *, backfill: str = "same", threshold=None,
                        threshold_backfill: bool = False, estimate="requested", overrun: str = "kill",
                        on_schedule=None) -> dict:
    """EASY under the mixed policy of each row of ``weights`` (shape (V, 3)
    or (V, 6), no expansion weight), all in one call of the core
    (``sl_multi_run``, csrc/multi.c): vectors that take the same decisions
    share one simulation until they differ.  Each vector's schedule is
    exactly the one :func:`simulate` gives it with
    ``Policy(Mixed(w, scales), Mixed(w, scales) or "FCFS", threshold, threshold_backfill)``
    (``backfill`` "same" or "FCFS").

    ``on_schedule(vectors, schedule)`` is called once per distinct simulation
    with the indices of its vectors (int32 array) and its :class:`Schedule`
    (its ``policy`` is that of ``vectors[0]``).  Returns the core's counts:
    schedules, forks, passes, fallbacks, peak_live, peak_bytes."""
    m = _checked_jobs(jobs, m)
    if on_schedule is None or not callable(on_schedule):
        raise InputError("simulate_mixed_many: on_schedule must be a function (vectors, schedule)")
    if backfill not in ("same", "FCFS"):
        raise InputError(f"simulate_mixed_many: backfill must be 'same' or 'FCFS', got {backfill!r}")
    if not isinstance(overrun, str) or overrun not in OVERRUNS:
        raise InputError(f"overrun must be one of {sorted(OVERRUNS)}, got {overrun!r}")
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape[1] not in (3, 6):
        raise InputError(f"simulate_mixed_many: weights must have shape (V, 3) or (V, 6), got {w.shape}")
    if not np.all(np.isfinite(w)):
        v = int(np.flatnonzero(~np.isfinite(w).all(axis=1))[0])
        raise InputError(f"simulate_mixed_many: weight vector {v} is not finite: {w[v].tolist()}")
    w6 = np.zeros((w.shape[0], 6))
    w6[:, :w.shape[1]] = w
    w6 = np.ascontiguousarray(w6)
    if np.any(w6[:, 4] != 0):
        v = int(np.flatnonzero(w6[:, 4] != 0)[0])
        raise InputError(f"simulate_mixed_many: weight vector {v} has an expansion weight; only static orders")
    sc = tuple(float(x) for x in (default_scales(jobs) if scales is None else scales))
    Mixed((0.0, 0.0, 1.0), sc)          # the scales' own check
    thr = None if threshold is None else _as_int("threshold", threshold, 0, TIME_MAX)
    n = len(jobs)
    if isinstance(estimate, str):
        if estimate not in ("requested", "actual"):
            raise InputError(f"simulate_mixed_many: estimate must be 'requested', 'actual' or a per-job array, "
                             f"got {estimate!r}")
        est_kind, est = ESTIMATES[estimate], None
    else:
        est = _estimate_array(estimate, jobs)
        est_kind, estimate = lib.SL_EST_ARRAY, "array"
    keep: list = []

    def ptr(ctype, arr):
        arr = np.ascontiguousarray(arr)
        c = ffi.from_buffer(ctype, arr)
        keep.append((arr, c))
        return c

    cjobs = _sl_jobs(jobs, est, ptr)
    cfg = ffi.new("sl_config *")
    cfg.m = m
    cfg.estimate = est_kind
    cfg.overrun = OVERRUNS[overrun]
    cfg.divider = -1
    cfg.correction = lib.SL_CORR_NOW
    cfg.primary.kind = lib.SL_MIXED
    for i in range(6):
        cfg.primary.scales[i] = sc[i]
    cfg.backfill.kind = lib.SL_MIXED if backfill == "same" else lib.SL_FCFS
    cfg.threshold = -1 if thr is None else thr
    cfg.threshold_backfill = int(bool(threshold_backfill))

    def policy_of(v: int) -> Policy:
        p = Mixed(tuple(w6[v].tolist()), sc)
        return Policy(p, p if backfill == "same" else "FCFS", thr, bool(threshold_backfill))

    run = _MultiRun(jobs, m, policy_of, estimate, on_schedule)
    handle = ffi.new_handle(run)
    stats = ffi.new("sl_multi_stats *")
    err = ffi.new("char[]", 512)
    rc = lib.sl_multi_run(cjobs, cfg, ffi.from_buffer("double[]", w6), w6.shape[0], lib.sl_py_multi, handle,
                          stats, err, 512)
    if run.error is not None:
        raise run.error
    if rc != lib.SL_OK:
        msg = ffi.string(err).decode() or ffi.string(lib.sl_status_message(rc)).decode()
        m_ = Simulation._JOB_IN_MESSAGE.match(msg)
        if m_:
            msg = f"{jobs.where(int(m_.group(1)))}: " + msg
        raise SimulationError(rc, f"simulate_mixed_many: {msg}")
    global _JOBS_SIMULATED
    _JOBS_SIMULATED += n * int(w6.shape[0])     # each vector's jobs, as if simulated alone
    return {k: int(getattr(stats, k)) for k in ("schedules", "forks", "passes", "fallbacks", "peak_live",
                                                "peak_bytes")}
