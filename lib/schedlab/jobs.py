"""Jobs, durations and policy names: the layer below the simulator.

Pure Python and numpy, no compiled core: reading, cleaning and resampling a
trace (:mod:`schedlab.workloads.swf`, :mod:`schedlab.workloads.traces`, :mod:`schedlab.workloads.workload`)
and checking parameters (:mod:`schedlab.validators`) need only this module.
:mod:`schedlab.engine.sim`, the face of the C core, re-exports every name
(``schedlab.engine.sim.Jobs``, ``schedlab.engine.sim.Policy`` ...) and maps the names to
the core's constants.

* :class:`Jobs` -- the job table, a struct of arrays checked on creation;
* :func:`parse_duration` / :func:`format_duration` -- "20h", "2.31d", "1w" ...;
* the queue policies: their names (:data:`POLICIES`, :data:`QUEUE_ORDERS`,
  :data:`LELONG_POLICIES`, :data:`BANDIT_POLICIES`, :data:`ALIASES`), the
  features of the mixed linear policy (:data:`FEATURES`, :func:`default_scales`),
  :class:`Mixed`, :class:`Policy` (EASY-P_R-P_B with a threshold) and
  :func:`as_policy`, all validated on creation.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError
from .expr import Expr, column_name_error, is_expr

__all__ = ["TIME_MAX", "Expr", "KeyFunction", "POLICIES", "QUEUE_ORDERS", "LELONG_POLICIES", "BANDIT_POLICIES", "FEATURES", "ALIASES",
           "Mixed", "PolicyLike", "Policy", "as_policy", "parse_duration", "format_duration", "Jobs",
           "default_scales", "PYTHON_PREFIX", "python_object", "python_key_function"]

#: Pure policy names, in the order of ``enum sl_policy_kind``.
POLICIES = ("FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF", "SAF", "LAF",
            "SRF", "LRF", "SEXP", "LEXP", "WFP")
#: Every queue order a policy may name: the pure policies, then SJBF
#: (shortest *estimate* first, gaussier2015's EASY-SJBF backfilling; the
#: estimate is the scheduler's prediction, see ``estimate=`` of
#: :func:`schedlab.engine.sim.simulate`).
QUEUE_ORDERS = POLICIES + ("SJBF",)
#: The 7 policies of lelong2017 (EXP there is "largest expansion first").
LELONG_POLICIES = ("FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF", "LEXP")
#: The 12 policies of online-bandit §4.1 and thesis §3.1.4.
BANDIT_POLICIES = ("FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF",
                   "SAF", "LAF", "SRF", "LRF", "SEXP", "LEXP")
#: Features of the mixed linear policy, in the order of ``enum sl_feature``.
FEATURES = ("q", "req", "submit", "ratio", "exp", "area")
#: Other names of queue policies.
ALIASES = {"EXP": "LEXP", "EASY": "FCFS"}


# ----------------------------------------------------------------- policies --

def _floats(xs) -> tuple[float, ...] | None:
    """A sequence of real numbers as floats; None if it is not one (strings,
    booleans, None ...)."""
    try:
        items = tuple(xs)
    except TypeError:
        return None
    if not all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
               for x in items):
        return None
    return tuple(float(x) for x in items)


@dataclass(frozen=True)
class Mixed:
    """Mixed linear policy: key = sum_i w_i * f_i / s_i, lowest first.

    ``weights`` has 6 entries in the order of :data:`FEATURES` (or 3: q,
    req, submit, the rest zero).  ``scales`` default to
    :func:`default_scales` of the simulated jobs.  Pure policies are the
    vertices: e.g. ``Mixed((0, 0, 1))`` is FCFS, ``Mixed((0,0,0,0,0,1))`` SAF.
    """

    weights: tuple[float, ...]
    scales: tuple[float, ...] | None = None

    def __post_init__(self):
        w = _floats(self.weights)
        if w is not None and len(w) == 3:
            w = w + (0.0, 0.0, 0.0)
        if w is None or len(w) != 6 or not all(np.isfinite(w)):
            raise InputError(f"mixed policy: need 3 or 6 finite weights, got {self.weights!r}")
        object.__setattr__(self, "weights", w)
        if self.scales is not None:
            s = _floats(self.scales)
            if s is None or len(s) != 6 or not all(np.isfinite(x) and x > 0 for x in s):
                raise InputError(f"mixed policy: need 6 finite positive scales, got {self.scales!r}")
            object.__setattr__(self, "scales", s)

    def __str__(self):
        return "MIXED(" + ",".join(f"{w:g}" for w in self.weights) + ")"


@dataclass(frozen=True, eq=False)
class KeyFunction:
    """The Python escape hatch: a queue order computed by your own function.

    ``Policy(primary=fn)`` (or ``KeyFunction(fn)``): at every scheduling pass
    that orders the queue, ``fn(jobs, now)`` receives the queued jobs'
    features as a dict of numpy arrays (``req``, ``procs``, ``submit``,
    ``wait``, ``area``, ``id``, ``est``, ``user`` when the jobs have users,
    ``run`` with ``estimate="actual"``, and every column of
    ``Jobs(columns=...)``), ``now`` in seconds, and returns one key per job
    (lowest first; NaN goes last, ties as for every policy).

    It is slow: Python runs at every pass (bench/bench_expr.py measures it:
    on whole KTH-SP2 a key function computing SPF's keys took 93x the
    built-in SPF, 0.624 s against 0.007 s, 2026-11-28, a quiet machine);
    write the order as an expression (``"expr:..."``, C speed) when the
    language allows it.  In a study (on dask workers) name it where it
    lives, ``"py:module:name"`` (:func:`python_key_function`).  An exception inside ``fn`` stops the run
    and reaches you as one :class:`~schedlab.errors.SchedlabError` naming
    the function; the simulation keeps what it had scheduled."""

    fn: object
    name: str = ""

    def __post_init__(self):
        if not callable(self.fn):
            raise InputError(f"a key function must be callable, got {type(self.fn).__name__}")
        if not self.name:
            object.__setattr__(self, "name", getattr(self.fn, "__qualname__", None) or repr(self.fn))

    def __str__(self):
        return f"keys:{self.name}"


PolicyLike = str | Mixed | Expr | KeyFunction

#: The prefix of a Python policy or estimator named by where it lives:
#: ``py:module:name`` (importable in every process that simulates: a dask
#: worker loads it by this name).
PYTHON_PREFIX = "py:"
_PYTHON_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")


def import_attribute(module: str, name: str, what: str, kind: str = ""):
    """``module.name``, the module imported by its (already checked) dotted
    name: the one way a user's Python object -- a policy, an estimator, a
    column's function -- is loaded, here and on a dask worker.  Errors are
    one :class:`InputError` starting with ``what``; ``kind`` names what the
    attribute should be (``"function "``)."""
    import importlib

    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise InputError(f"{what}: cannot import {module!r} ({exc}); it must be importable where the "
                         "simulations run (installed, or on the workers' path)") from None
    if not hasattr(mod, name):
        raise InputError(f"{what}: module {module!r} has no {kind}{name!r}")
    return getattr(mod, name)


def python_object(spec: str, what: str = "policy"):
    """The object ``py:module:name`` names (the module imported by its
    name; the name checked against the identifier grammar first, never
    evaluated).  Raises :class:`InputError` naming the spec."""
    target = spec[len(PYTHON_PREFIX):].strip() if spec.startswith(PYTHON_PREFIX) else spec
    if not _PYTHON_NAME.match(target):
        raise InputError(f"{what} {spec[:80]!r}: expected py:module:name (a dotted module, then a name)")
    module, _, name = target.partition(":")
    return import_attribute(module, name, f"{what} {spec}")


def python_key_function(spec: str) -> "KeyFunction":
    """The :class:`KeyFunction` ``py:module:name`` names: a KeyFunction, or a
    function ``fn(jobs, now)`` (wrapped, named by the spec)."""
    obj = python_object(spec, "queue policy")
    if isinstance(obj, KeyFunction):
        return KeyFunction(obj.fn, spec)
    if callable(obj) and not isinstance(obj, type):
        return KeyFunction(obj, spec)
    raise InputError(f"queue policy {spec}: expected a KeyFunction or a function fn(jobs, now), "
                     f"got {type(obj).__name__}")


def _policy_name(p: PolicyLike) -> PolicyLike:
    if isinstance(p, (Mixed, Expr, KeyFunction)):
        return p
    if is_expr(p):
        return Expr(p)
    if isinstance(p, str) and p.strip().startswith(PYTHON_PREFIX):
        return python_key_function(p.strip())
    if callable(p) and not isinstance(p, (str, type)):
        return KeyFunction(p)
    if not isinstance(p, str):
        raise InputError(f"a queue policy is a name, 'expr:<expression>', Mixed(...) or a key function, got {p!r}")
    name = ALIASES.get(p.strip().upper(), p.strip().upper())
    if name.startswith("MIXED(") and name.endswith(")"):
        try:
            return Mixed(tuple(float(x) for x in name[6:-1].split(",")))
        except ValueError:
            raise InputError(f"bad mixed policy {p!r}: expected MIXED(w1,...,w6)") from None
    if name not in QUEUE_ORDERS:
        raise InputError(f"unknown queue policy {p!r}; expected one of {', '.join(QUEUE_ORDERS)}, MIXED(w...), "
                         "'expr:<expression>' or 'py:module:name' (a KeyFunction)")
    return name


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([smhdw]?)\s*$", re.I)
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


#: The bound on every time of a simulation, 2^61 s (csrc/SEMANTICS.md, "Time
#: bounds"; the C core's ``sl_time_max()``): durations are at most this.
TIME_MAX = 2 ** 61


def parse_duration(x) -> int | None:
    """Seconds from 3600, "3600", "90m", "20h", "2.31d", "1w"; None for
    None, "none", "inf" (no threshold).  Booleans are refused (``True`` is
    not a duration), and so is anything above :data:`TIME_MAX`, NaN and
    -inf.  A duration is a whole number of seconds, kept exact: one that is
    not (``0.5``, ``"1.5s"``, ``"0.0001h"``) is refused, never rounded
    (0.5 s rounded to 0 would be another threshold: none waits at all)."""
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)):
        raise InputError(f"duration must be a number of seconds or a string such as '20h', got {x!r}")
    if isinstance(x, (int, np.integer)):
        if x < 0:
            raise InputError(f"duration must be >= 0, got {x}")
        v = int(x)
    elif isinstance(x, (float, np.floating)):
        if np.isnan(x) or x == -np.inf:
            raise InputError(f"duration must be a number of seconds >= 0 or none, got {x!r}")
        if x == np.inf:
            return None
        if x < 0:
            raise InputError(f"duration must be >= 0, got {x}")
        if x > TIME_MAX:
            raise InputError(f"duration {x!r} is too large (at most 2^61 s)")
        v = _whole_seconds(float(x), x)
    elif isinstance(x, (str, bytes)):
        s = (x.decode(errors="replace") if isinstance(x, bytes) else x).strip().lower()
        if s in ("", "none", "inf", "off", "no"):
            return None
        m = _DURATION.match(s) if len(s) <= 64 else None
        if not m:
            shown = repr(x) if len(x) <= 64 else repr(x[:64]) + "..."
            raise InputError(f"bad duration {shown}: expected e.g. 3600, 90m, 20h, 2.31d")
        f = float(m.group(1)) * _UNITS[m.group(2)]
        if not f <= TIME_MAX:
            raise InputError(f"duration {x!r} is too large (at most 2^61 s)")
        v = _whole_seconds(f, x)
    else:
        raise InputError(f"duration must be a number of seconds or a string such as '20h', got {x!r}")
    if v > TIME_MAX:
        raise InputError(f"duration {v} is too large (at most 2^61 s)")
    return v


def _whole_seconds(f: float, shown) -> int:
    """``f`` seconds as an int when it is a whole number of seconds (to a
    millisecond: ``2.31d`` is 199584 s through float arithmetic)."""
    v = int(round(f))
    if abs(f - v) > 1e-3:
        raise InputError(f"duration {shown!r} is {f:g} s, not a whole number of seconds (durations are whole "
                         f"seconds: give e.g. {max(v, 1)})")
    return v


def format_duration(seconds: int | None) -> str:
    if seconds is None:
        return "none"
    for unit, n in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds and seconds % n == 0:
            return f"{seconds // n}{unit}"
    return f"{seconds}s"


@dataclass(frozen=True)
class Policy:
    """EASY-P_R-P_B with an optional waiting-time threshold (seconds)."""

    primary: PolicyLike = "FCFS"
    backfill: PolicyLike = "FCFS"
    threshold: int | None = None
    threshold_backfill: bool = False

    def __post_init__(self):
        object.__setattr__(self, "primary", _policy_name(self.primary))
        object.__setattr__(self, "backfill", _policy_name(self.backfill))
        object.__setattr__(self, "threshold", parse_duration(self.threshold))
        object.__setattr__(self, "threshold_backfill", bool(self.threshold_backfill))

    @classmethod
    def parse(cls, spec: str, threshold=None, threshold_backfill: bool = False) -> "Policy":
        """``"EASY-SPF-FCFS"``, ``"SPF-FCFS"``, ``"SPF"`` (both queues) or
        ``"expr:<expression>"`` (both queues; give ``primary`` and
        ``backfill`` to :class:`Policy` for two different orders)."""
        if not isinstance(spec, str) or not spec.strip():
            raise InputError(f"bad policy spec {spec!r}: expected e.g. EASY-SPF-FCFS")
        if is_expr(spec):       # one expression orders both queues
            e = Expr(spec)
            return cls(e, e, threshold, threshold_backfill)
        parts = re.split(r"-(?![^(]*\))", spec.strip())
        if parts[0].upper() == "EASY" and len(parts) > 1:
            parts = parts[1:]
        if len(parts) == 1:
            parts = parts * 2
        if len(parts) != 2:
            raise InputError(f"bad policy spec {spec!r}: expected EASY-<primary>-<backfill>, e.g. EASY-SPF-FCFS")
        return cls(parts[0], parts[1], threshold, threshold_backfill)

    def __str__(self):
        s = f"EASY-{self.primary}-{self.backfill}"
        if self.threshold is not None:
            s += f" T={format_duration(self.threshold)}"
        return s


def as_policy(policy, threshold=None, threshold_backfill=None) -> Policy:
    """A Policy from a spec string or a Policy; explicit threshold arguments
    override the policy's own."""
    if isinstance(policy, Policy):
        p = policy
    elif isinstance(policy, str):
        p = Policy.parse(policy)
    elif isinstance(policy, tuple) and len(policy) == 2:
        p = Policy(*policy)
    else:
        raise InputError(f"bad policy {policy!r}: expected 'EASY-<P_R>-<P_B>' or a Policy")
    if threshold is not None or threshold_backfill is not None:
        p = Policy(p.primary, p.backfill,
                   p.threshold if threshold is None else threshold,
                   p.threshold_backfill if threshold_backfill is None else threshold_backfill)
    return p


# --------------------------------------------------------------------- jobs --

def _int_array(name: str, x, dtype, n: int | None = None) -> np.ndarray:
    """``x`` as a read-only contiguous array of ``dtype``: integers, or
    floats holding integers inside its range (a float at 2**63 is refused,
    not wrapped to INT64_MIN); booleans are refused (``True`` is not a
    count).  The caller's array is left as it was: it is copied unless it is
    already read-only (then shared: nobody writes through it)."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise InputError(f"{name}: expected a 1-d array, got shape {a.shape}")
    info = np.iinfo(dtype)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
            bad = int(np.flatnonzero(~np.isfinite(a) | (a != np.round(a)))[0])
            raise InputError(f"{name}: non-integer value {a[bad]!r} at index {bad}")
        # compare in floats with bounds floats hold exactly: 2**63 - 1 rounds up to 2**63
        if a.size and (a.min() < float(info.min) or a.max() >= -float(info.min)):
            raise InputError(f"{name}: values outside the range of {np.dtype(dtype).name}")
    elif a.dtype.kind == "b" and a.size:
        raise InputError(f"{name}: expected integers, got booleans")
    elif a.dtype.kind not in "iu" and a.size:
        raise InputError(f"{name}: expected integers, got dtype {a.dtype}")
    if a.size and a.dtype.kind in "iu" and (a.min() < info.min or a.max() > info.max):
        raise InputError(f"{name}: values outside the range of {np.dtype(dtype).name}")
    out = np.ascontiguousarray(a, dtype=dtype)
    if n is not None and out.shape[0] != n:
        raise InputError(f"{name}: length {out.shape[0]}, expected {n}")
    if out.flags.writeable and isinstance(x, np.ndarray) and np.may_share_memory(out, x):
        out = out.copy()        # our own: making it read-only must not change the caller's array
    return out


@dataclass(frozen=True, eq=False)
class Jobs:
    """Jobs as a struct of arrays: submit r, runtime p, requested time p~,
    processors q, id (default 1..n), user (optional), and optionally the
    source file and line of each job (for error messages).

    ``columns``: per-job values of your own (``{"pred": array}``, n finite
    numbers each, names of letters, digits and ``_``), for policy
    expressions (``expr:col.pred``) and estimates (``estimate="col:pred"``);
    kept by :meth:`subset` and :meth:`sorted`, and by the workloads'
    ``resample`` (a copied job keeps its source job's values), ``split`` and ``weeks``."""

    submit: np.ndarray
    run: np.ndarray
    req: np.ndarray
    procs: np.ndarray
    id: np.ndarray | None = None
    user: np.ndarray | None = None
    source: str | None = None
    lines: np.ndarray | None = field(default=None, repr=False)
    columns: dict | None = field(default=None, repr=False)

    def __post_init__(self):
        submit = _int_array("submit", self.submit, np.int64)
        n = submit.shape[0]
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        set_("submit", submit)
        set_("run", _int_array("run", self.run, np.int64, n))
        set_("req", _int_array("req", self.req, np.int64, n))
        set_("procs", _int_array("procs", self.procs, np.int32, n))
        set_("id", np.arange(1, n + 1, dtype=np.int64) if self.id is None else _int_array("id", self.id, np.int64, n))
        if self.user is not None:
            set_("user", _int_array("user", self.user, np.int64, n))
        if self.lines is not None:
            set_("lines", _int_array("lines", self.lines, np.int64, n))
        for a in (self.submit, self.run, self.req, self.procs, self.id):
            a.setflags(write=False)
        if self.columns is not None:
            set_("columns", _columns(self.columns, n))

    def __len__(self):
        return int(self.submit.shape[0])

    @property
    def n(self) -> int:
        return len(self)

    def where(self, i: int) -> str:
        """Human-readable location of job i (file:line when known)."""
        loc = f"job {int(self.id[i])} (index {i})"
        if self.source is not None and self.lines is not None:
            loc = f"{self.source}:{int(self.lines[i])}: " + loc
        return loc

    def subset(self, index) -> "Jobs":
        """The jobs selected by a boolean mask or an index array."""
        pick = lambda a: None if a is None else a[index]  # noqa: E731
        cols = None if self.columns is None else {k: v[index] for k, v in self.columns.items()}
        return Jobs(self.submit[index], self.run[index], self.req[index], self.procs[index],
                    self.id[index], pick(self.user), self.source, pick(self.lines), cols)

    def sorted(self) -> "Jobs":
        """Sorted by (submit, id), stable; unchanged if already sorted."""
        if len(self) < 2 or (np.all(np.diff(self.submit) >= 0)):
            return self
        return self.subset(np.lexsort((self.id, self.submit)))

    def validate(self, m: int) -> None:
        """Raise InputError naming the first bad job and field (vectorised)."""
        checks = [
            ("run", self.run < 0, "negative runtime"),
            ("req", self.req < 0, "negative requested time"),
            ("procs", (self.procs < 1) | (self.procs > m), f"processors outside 1..m={m}"),
        ]
        if len(self) > 1:
            unsorted = np.zeros(len(self), bool)
            unsorted[1:] = np.diff(self.submit) < 0
            checks.insert(0, ("submit", unsorted, "submit time before the previous job's (sort the jobs)"))
        for fname, bad, msg in checks:
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                value = getattr(self, fname)[i]
                raise InputError(f"{self.where(i)}: field {fname}: {msg} ({value}); "
                                 f"{int(bad.sum())} job(s) affected")



def _columns(columns, n: int) -> dict:
    """Per-job columns checked: a mapping of names to n finite numbers each
    (copied as float64, read-only: the caller's arrays are left as they were)."""
    if not isinstance(columns, dict):
        raise InputError(f"columns: a dict of name -> per-job values, got {type(columns).__name__}")
    out = {}
    for name, values in columns.items():
        why = column_name_error(name)
        if why:
            raise InputError(f"columns: bad column name {str(name)[:70]!r} ({why})")
        if name == "user":
            raise InputError("columns: 'user' is the jobs' users (Jobs(user=...)), not a column")
        a = np.asarray(values)
        if a.ndim != 1 or a.shape[0] != n:
            raise InputError(f"columns: {name!r} has shape {a.shape}, expected ({n},): one value per job")
        if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
            raise InputError(f"columns: {name!r} must hold numbers, got dtype {a.dtype}")
        a = np.array(a, dtype=np.float64)        # a copy
        bad = ~np.isfinite(a)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"columns: {name!r}: value {a[i]!r} at index {i} is not a finite number")
        a.setflags(write=False)
        out[name] = a
    return out


def default_scales(jobs: Jobs) -> tuple[float, ...]:
    """Default feature scales of the mixed policy: the mean of each feature
    over the jobs (the submit feature, a time, is scaled by the mean
    requested time; the expansion factor by 1)."""
    if len(jobs) == 0:
        return (1.0,) * 6
    req = jobs.req.astype(float)
    q = jobs.procs.astype(float)
    means = (q.mean(), req.mean(), req.mean(), (req / q).mean(), 1.0, (req * q).mean())
    return tuple(float(x) if x > 0 and np.isfinite(x) else 1.0 for x in means)
