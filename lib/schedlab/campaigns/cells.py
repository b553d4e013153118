"""Cells: the computations a campaign may run, and the built-in one.

A cell function takes the cell's parameters (a campaign's ``dims`` labels and
``params`` merged) and returns ``{variable: (extra_dims, array)}``; the
variables must be declared in :data:`schedlab.campaigns.store.VARIABLES`.  A
cell declares its inputs (:func:`cell`, a :class:`~schedlab.declared.CellInputs`
dataclass): every call is checked in one place.

A spec chooses among known computations and cannot run anything else: its
cell must be registered (:func:`cell`) or a function defined in a module named
by ``$SCHEDLAB_CELL_MODULES`` / :func:`allow_cell_modules` (see
:func:`resolve_cell`).

The built-in ``simulate`` cell (:func:`simulate_cell`: EASY-P_R-P_B on a
trace, its resampled weeks or its weeks) and the input classes the studies'
cells build on (:class:`TraceInputs`, :class:`RunInputs`,
:class:`SimulateInputs`) live here too.  A study's cells module imports this
module and :mod:`.spec` only: a cell's cache key follows the code it imports
(:mod:`.fingerprint`), so neither the cache nor the dask runner is part of it.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..declared import REQUIRED, CellInputs, duration, flag, integer, one_of, param, text, validate
from ..errors import InputError
from ..workloads.workload import OVERRUN_CHOICES

#: The registered cells, by name (:func:`cell`).
CELLS: dict[str, Callable] = {}


def cell(name: str, inputs: type[CellInputs]):
    """Register a cell with its declared inputs (a :class:`CellInputs`
    dataclass of :func:`~schedlab.declared.param` fields): every call reads
    the spec's parameters through :func:`~schedlab.declared.validate` -- the
    one cell-parameter check: an unknown name, a missing required one or a
    bad value is an :class:`InputError` naming the cell -- and hands the
    function the checked inputs.  The declaration is ``f.inputs``."""
    if not (isinstance(inputs, type) and issubclass(inputs, CellInputs)):
        raise TypeError(f"cell {name!r}: inputs must be a CellInputs dataclass, got {inputs!r}")

    def deco(f):
        @functools.wraps(f)
        def checked(p):
            return f(p if isinstance(p, inputs) else validate(inputs, p, source=f"{name} cell"))
        checked.inputs = inputs
        CELLS[name] = checked
        return checked
    return deco


#: Environment variable: more modules whose functions a campaign spec may
#: name as its cell (comma-separated module names; a package allows its
#: submodules), e.g. a site's own study package.
CELL_MODULES_ENV = "SCHEDLAB_CELL_MODULES"
_ALLOWED_MODULES: set[str] = set()


def allow_cell_modules(*modules: str) -> None:
    """Let campaign specs name functions of these modules (and of their
    submodules) as cells, in this process (see :func:`resolve_cell`)."""
    for m in modules:
        if not isinstance(m, str) or not all(part.isidentifier() for part in m.split(".")):
            raise InputError(f"allow_cell_modules: {m!r} is not a module name")
        _ALLOWED_MODULES.add(m)


def cell_modules() -> list[str]:
    """The modules outside schedlab whose functions a spec may name as
    ``module:function`` cells: those allowed by :func:`allow_cell_modules` or
    ``$SCHEDLAB_CELL_MODULES`` (a site's own study package).  The runner knows
    no study list: a schedlab module's cells are those it registers with
    :func:`cell`."""
    env = [m.strip() for m in os.environ.get(CELL_MODULES_ENV, "").split(",") if m.strip()]
    return sorted(_ALLOWED_MODULES | set(env))


def _module_allowed(module: str) -> bool:
    return module.startswith("schedlab.") or any(module == m or module.startswith(m + ".") for m in cell_modules())


def resolve_cell(cell: str) -> Callable:
    """The function of a campaign's ``cell``, if a spec may name it: a name
    registered with :func:`cell` (``simulate``, the
    studies' cells), or ``module:function`` for a cell a schedlab module
    registers, or for a function defined in one of :func:`cell_modules`
    (checked before anything is imported).  Anything else --
    ``subprocess:run``, ``os:system``, a schedlab function that is not a
    registered cell, a function a cells module merely imports -- is refused
    with :class:`InputError`: a spec chooses among known computations, it
    cannot run arbitrary code."""
    if not isinstance(cell, str):
        raise InputError(f"cell must be a string, got {type(cell).__name__}")
    if cell in CELLS:
        return CELLS[cell]
    rule = (f"a spec's cell is a registered name ({', '.join(sorted(CELLS))}) or module:function of a cell "
            f"a schedlab module registers, or of ${CELL_MODULES_ENV} ({', '.join(cell_modules()) or 'none'})")
    if ":" not in cell:
        raise InputError(f"unknown cell function {cell[:100]!r}; {rule}")
    mod, _, fn = cell.partition(":")
    if not all(part.isidentifier() for part in mod.split(".")) or not fn.isidentifier():
        raise InputError(f"cell {cell[:100]!r} is not module:function; {rule}")
    if not _module_allowed(mod):
        raise InputError(f"cell {cell[:100]!r} refused: module {mod} may not provide cells; {rule}")
    f = _import_cell(cell)
    if mod.startswith("schedlab.") and mod not in cell_modules():
        if f not in CELLS.values():
            raise InputError(f"cell {cell!r} refused: {fn} is not a cell registered by {mod}; {rule}")
    elif f not in CELLS.values() and not (inspect.isfunction(f) and f.__module__ == mod):
        raise InputError(f"cell {cell!r} refused: {fn} is not a function defined in {mod}")
    return f


def _import_cell(cell: str) -> Callable:
    """The function of an accepted cell (no policy: the client checked it)."""
    if cell in CELLS:
        return CELLS[cell]
    mod, _, fn = cell.partition(":")
    try:
        return getattr(importlib.import_module(mod), fn)
    except (ImportError, AttributeError) as e:
        raise InputError(f"cell function {cell!r} cannot be imported: {e}") from None


# ------------------------------------------------------- the built-in cell --

@dataclass(frozen=True)
class TraceInputs(CellInputs):
    """The inputs of a cell on one trace: the trace's campaign text, the
    machine size and the cleaning's overrun choice (a cell redeclares a
    default it changes)."""

    trace: str = param(REQUIRED, help="the trace: its campaign text (schedlab.workloads.traces.text)", check=text)
    m: int | None = param(None, help="machine size (None: the trace's)", unit="processors",
                          check=integer(1, optional=True))
    overrun: str = param("kill", help="what cleaning does with jobs that overran their request",
                         check=one_of(*OVERRUN_CHOICES))


@dataclass(frozen=True)
class RunInputs(TraceInputs):
    """The inputs of a cell that runs EASY-P_R-P_B on a trace's job sets
    (the ``simulate`` cell; a study's cell adds its own)."""

    workload: str = param("original", help="the log as cleaned, its resampled weeks, or its weeks",
                          check=one_of("original", "resample", "weeks"))
    weeks: int = param(250, help="resampled weeks per set", unit="weeks", check=integer(1))
    seed: int = param(0, help="the resampling's seed", check=integer(0))
    half: str = param("all", help="the whole log, or its first (train) or second (test) half",
                      check=one_of("all", "train", "test"))
    primary: str = param("FCFS", help="the primary queue's policy", check=text)
    backfill: str = param("FCFS", help="the backfilling queue's policy", check=text)
    estimate: str = param("requested", help="the runtime estimate the scheduler uses", check=text)
    threshold_backfill: bool = param(False, help="the threshold applies to the backfilling queue too", check=flag)
    metrics: tuple | None = param(None, help="the summary metrics to return (None: DEFAULT_METRICS)")


@dataclass(frozen=True)
class SimulateInputs(RunInputs):
    """The ``simulate`` cell's inputs: :class:`RunInputs` and one threshold."""

    threshold: int | None = param(None, help="the waiting-time threshold (None: none)", unit="s", check=duration)


DEFAULT_METRICS = ("avg_wait", "max_wait", "mean_bsld", "mean_ppbsld", "utilisation", "jobs", "backfilled")


@functools.lru_cache(maxsize=32)
def workload_for(trace: str, m: int | None, overrun: str, kind: str, weeks: int, seed: int, half: str):
    """The list of job sets a simulate cell runs on, and m; cached per
    process so that the cells of a worker share one resampling."""
    from ..workloads import traces, workload

    jobs, _, m, _, _ = traces.cleaned(trace, m=m, overrun=overrun)
    if half != "all":
        if half not in ("train", "test"):
            raise InputError(f"half must be all, train or test, got {half!r}")
        train, test = workload.split(jobs)
        jobs = train if half == "train" else test
    if kind == "original":
        return [jobs], int(m)
    if kind == "resample":
        return workload.resample_weeks(jobs, int(weeks), int(seed)), int(m)
    if kind == "weeks":
        return [w for w in workload.weeks(jobs, crossing="drop") if len(w)], int(m)
    raise InputError(f"workload must be original, resample or weeks, got {kind!r}")


@cell("simulate", SimulateInputs)
def simulate_cell(q: SimulateInputs) -> dict:
    """EASY-P_R-P_B on a trace (original, its resampled weeks, or its weeks):
    the summary metrics of each job set, over a ``week`` dimension unless
    the workload is the original trace."""
    from ..engine import sim

    sets, m = workload_for(str(q["trace"]), q["m"], q["overrun"], q["workload"], int(q["weeks"]),
                           int(q["seed"]), str(q["half"]))
    policy = sim.Policy(q["primary"], q["backfill"], q["threshold"], q["threshold_backfill"])
    metrics = tuple(q["metrics"] or DEFAULT_METRICS)
    out = {k: np.empty(len(sets), dtype=np.float64) for k in metrics}
    for i, jobs in enumerate(sets):
        s = sim.simulate(jobs, m, policy, estimate=q["estimate"]).summary()
        for k in metrics:
            out[k][i] = s[k]
    dims = () if q["workload"] == "original" else ("week",)
    return {k: (dims, v[0] if not dims else v) for k, v in out.items()}
