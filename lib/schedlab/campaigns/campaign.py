"""Campaigns: a declared grid of named dimensions, one task per cell on
dask.distributed, one labelled xarray.Dataset as the result.

A campaign spec (YAML or a dict)::

    name: lelong2017-kth
    cell: simulate              # a registered cell, or "module:function" of a study's cells
    dims:                       # swept: every combination is a cell
      half: [train, test]
      primary: [FCFS, SPF]
      backfill: [FCFS, SPF]
    params:                     # fixed for every cell
      trace: KTH-SP2
      workload: resample
      weeks: 250
      seed: 2017
    metrics: [avg_wait, max_wait, mean_bsld]

A cell function takes the cell's parameters (``dims`` labels and ``params``
merged) and returns ``{variable: (extra_dims, array)}``; the variables must
be declared in :data:`schedlab.campaigns.store.VARIABLES`.  A spec chooses among known
computations and cannot run anything else: its cell must be registered
(:func:`cell`) or a function defined in a module named by ``$SCHEDLAB_CELL_MODULES`` /
:func:`allow_cell_modules` (see :func:`resolve_cell`); every key is checked
(:meth:`Campaign.from_dict`).

Each cell's result is cached on disk under a key of its inputs (cell
function, parameters, trace sha256, code fingerprint of the simulator), written
atomically by the client as soon as it arrives: a re-run computes only what
is missing, and a run killed halfway resumes without losing or duplicating a
cell.  Each entry carries a checksum of its key and content: a corrupt or
altered entry is recomputed, with a :class:`CacheWarning` naming it.  Cells run on a local dask cluster (all cores) or on an existing
scheduler (``scheduler=`` or ``$SCHEDLAB_SCHEDULER``), batched so that task
overhead stays small next to simulation time.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import inspect
import itertools
import json
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .. import __version__, paths
from ..declared import REQUIRED, CellInputs, flag, integer, one_of, param, text, validate
from ..errors import InputError
from ..files import atomic
from ..workloads.workload import OVERRUN_CHOICES as OVERRUNS

SCHEDULER_ENV = "SCHEDLAB_SCHEDULER"
#: A file to which campaigns (and the study driver) append progress lines:
#: ``make reproduce`` sets it and prints them, since papermill keeps the
#: kernel's own output inside the notebook.
PROGRESS_ENV = "SCHEDLAB_PROGRESS"
PROGRESS_EVERY = 10.0     # seconds between two progress lines of a campaign


def progress_line(text: str) -> None:
    """Append a line to ``$SCHEDLAB_PROGRESS`` (nothing when it is unset)."""
    target = os.environ.get(PROGRESS_ENV)
    if target:
        with open(target, "a") as fh:
            fh.write(text.rstrip("\n") + "\n")

# ------------------------------------------------------------------- spec --

#: The keys of a campaign spec.
SPEC_KEYS = ("name", "dims", "params", "cell", "metrics")
#: Bounds on what a spec may ask for: cells in the grid, values in its
#: parameters (nested values and YAML aliases count each time they occur),
#: bytes in its file.
MAX_CELLS = 1_000_000
MAX_SPEC_VALUES = 100_000
MAX_SPEC_BYTES = 10 * 2**20
_SCALARS = (str, int, float, bool, type(None))


def _count_values(x, budget: int) -> int:
    """Values in ``x`` (containers walked, aliases counted each time), stopping past ``budget``."""
    n, todo = 0, [x]
    while todo and n <= budget:
        v = todo.pop()
        n += 1
        if isinstance(v, dict):
            todo.extend(v.keys())
            todo.extend(v.values())
        elif isinstance(v, (list, tuple)):
            todo.extend(v)
    return n


def _check_spec(d: dict, source: str) -> None:
    """Types and sizes of a spec's keys (the Campaign checks their meaning)."""
    if not isinstance(d["name"], str):
        raise InputError(f"{source}: name: expected a string, got {type(d['name']).__name__}")
    check_name(d["name"], f"{source}: name")
    dims = d["dims"]
    if not isinstance(dims, dict) or not dims:
        raise InputError(f"{source}: dims: expected a mapping of dimension names to lists of labels")
    for k, labels in dims.items():
        if not isinstance(k, str) or not k.isidentifier():
            raise InputError(f"{source}: dims: dimension name {str(k)[:60]!r} is not an identifier")
        if not isinstance(labels, list) or not labels:
            raise InputError(f"{source}: dims.{k}: expected a non-empty list of labels")
        for i, label in enumerate(labels):
            if not isinstance(label, _SCALARS) or (isinstance(label, float) and label != label):
                raise InputError(f"{source}: dims.{k}[{i}]: a label is a string or a number, "
                                 f"got {type(label).__name__}")
    cells = math.prod(len(v) for v in dims.values())
    if cells > MAX_CELLS:
        raise InputError(f"{source}: dims: {cells} cells, more than a campaign may have ({MAX_CELLS})")
    params = d.get("params")
    if params is not None:
        if not isinstance(params, dict):
            raise InputError(f"{source}: params: expected a mapping of parameter names to values")
        for k in params:
            if not isinstance(k, str) or not k.isidentifier():
                raise InputError(f"{source}: params: parameter name {str(k)[:60]!r} is not an identifier")
        if _count_values(params, MAX_SPEC_VALUES) > MAX_SPEC_VALUES:
            raise InputError(f"{source}: params: more than {MAX_SPEC_VALUES} values (nested values and "
                             "aliases included)")
    cell = d.get("cell", "simulate")
    if not isinstance(cell, str):
        raise InputError(f"{source}: cell: expected a cell name, got {type(cell).__name__}")
    metrics = d.get("metrics")
    if metrics is not None and (not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics)):
        raise InputError(f"{source}: metrics: expected a list of variable names")
    if metrics is not None:
        from .store import VARIABLES

        unknown = [m for m in metrics if m not in VARIABLES]
        if unknown:
            raise InputError(f"{source}: metrics: {[m[:60] for m in unknown[:5]]} not declared in "
                             "schedlab.campaigns.store.VARIABLES")


@dataclass
class Campaign:
    """A grid of named dimensions (``dims``: name -> labels), fixed
    ``params`` and a cell function."""

    name: str
    dims: dict[str, list]
    params: dict[str, Any] = field(default_factory=dict)
    cell: str = "simulate"
    metrics: list[str] | None = None

    def __post_init__(self):
        check_name(self.name)
        if not isinstance(self.params, dict):
            raise InputError(f"campaign {self.name}: 'params' must map parameter names to values")
        if not isinstance(self.cell, str):
            raise InputError(f"campaign {self.name}: 'cell' must be a cell name, got {self.cell!r}")
        if not isinstance(self.dims, dict) or not self.dims:
            raise InputError(f"campaign {self.name}: 'dims' must map dimension names to lists of labels")
        for k, labels in self.dims.items():
            if not isinstance(labels, (list, tuple)) or not labels:
                raise InputError(f"campaign {self.name}: dimension {k!r} needs a non-empty list of labels")
            if len(set(map(str, labels))) != len(labels):
                raise InputError(f"campaign {self.name}: dimension {k!r} has duplicate labels {labels}")
            if k in self.params:
                raise InputError(f"campaign {self.name}: {k!r} is both a dimension and a fixed parameter")
        self.dims = {k: list(v) for k, v in self.dims.items()}
        self.metrics = list(self.metrics) if self.metrics is not None else None
        resolve_cell(self.cell)  # fail early on a bad cell name

    @classmethod
    def from_dict(cls, d: dict, source: str = "campaign spec") -> "Campaign":
        """A campaign from a spec mapping (a YAML file's content): every key
        is checked (type, size, names) and an error names ``source`` and
        the key."""
        if not isinstance(d, dict):
            raise InputError(f"{source}: expected a mapping of name, dims, params, cell, metrics, "
                             f"got {type(d).__name__}")
        unknown = [k for k in d if k not in SPEC_KEYS]
        if unknown:
            shown = [str(k)[:60] for k in unknown[:5]]
            raise InputError(f"{source}: unknown key(s) {shown}; expected {', '.join(SPEC_KEYS)}")
        if "name" not in d or "dims" not in d:
            raise InputError(f"{source}: 'name' and 'dims' are required")
        _check_spec(d, source)
        try:
            return cls(d["name"], d["dims"], d.get("params") or {}, d.get("cell", "simulate"), d.get("metrics"))
        except InputError as exc:
            text = str(exc)
            raise InputError(text if text.startswith(source) else f"{source}: {text}") from None

    @classmethod
    def from_yaml(cls, path) -> "Campaign":
        import yaml

        path = Path(path)
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise InputError(f"{path}: {size} bytes, more than a campaign spec may hold ({MAX_SPEC_BYTES})")
        raw = path.read_bytes()
        try:
            d = yaml.safe_load(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: not UTF-8 text ({e})") from None
        except yaml.YAMLError as e:
            raise InputError(f"{path}: not valid YAML: {e}") from None
        except RecursionError:
            raise InputError(f"{path}: not a campaign spec (nested too deeply)") from None
        return cls.from_dict(d, str(path))

    def to_dict(self) -> dict:
        return {"name": self.name, "dims": self.dims, "params": self.params, "cell": self.cell,
                "metrics": self.metrics}

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(v) for v in self.dims.values())

    def cells(self) -> list[tuple[tuple[int, ...], dict]]:
        """(index, parameters) of every cell, in C order of the dims."""
        names = list(self.dims)
        out = []
        for idx in itertools.product(*(range(len(v)) for v in self.dims.values())):
            p = dict(self.params)
            p.update({n: self.dims[n][i] for n, i in zip(names, idx)})
            if self.metrics is not None:
                p["metrics"] = self.metrics
            out.append((idx, p))
        return out

    def key(self, params: dict) -> str:
        """Cache key of one cell: everything its result depends on."""
        from ..engine import sim

        blob = {"cell": self.cell, "params": params, "schedlab": __version__, "core": sim.VERSION,
                "code": cell_fingerprint(self.cell),
                "traces": {str(t): _trace_identity(str(t)) for t in _traces_of(params)}}
        text = json.dumps(blob, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


def _module_file(name: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _imports(name: str, path: Path) -> set[str]:
    """The modules of schedlab and of ``name``'s own top-level package that
    module ``name`` (file ``path``) imports, anywhere in its body
    (function-level imports too), read from its source."""
    import ast

    ours = {"schedlab", name.split(".")[0]}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] in ours}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] not in ours:
                continue
            found.add(mod)
            # "from .pkg import name": name may itself be a module
            found |= {f"{mod}.{a.name}" for a in node.names if _module_file(f"{mod}.{a.name}") is not None}
    return {m for m in found if _module_file(m) is not None}


@functools.lru_cache(maxsize=None)
def module_closure(name: str) -> tuple[str, ...]:
    """Module ``name`` and every module of schedlab or of its own package it imports, directly or not
    (by reading their sources, not by importing them), sorted."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        f = _module_file(m)
        if f is None:
            continue
        seen.add(m)
        todo += sorted(_imports(m, f) - seen)
    return tuple(sorted(seen))


@functools.lru_cache(maxsize=None)
def cell_fingerprint(cell: str) -> str:
    """The code a cell's result depends on besides its parameters: the C
    sources of the loaded core and the source of the cell function's module
    and of every schedlab module it imports, directly or not (sha256, 16 hex
    digits).  Derived from the sources, never a version number bumped by
    hand: edit a cell or a helper it imports and its cached results are
    recomputed; edit a table, a figure or another study and they are not."""
    from ..engine import sim

    f = _import_cell(cell)
    h = hashlib.sha256(sim.SOURCE_HASH.encode())
    for name in module_closure(f.__module__):
        h.update(name.encode() + b"\0" + _module_file(name).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _traces_of(params: dict) -> list:
    t = params.get("trace")
    return [] if t is None else (list(t) if isinstance(t, (list, tuple)) else [t])


@functools.lru_cache(maxsize=256)
def _trace_identity(name_or_path: str) -> dict:
    """What a cell knows of a trace besides its parameters: the file's sha256
    and the machine size the registry gives it (a cell that simulates on the
    registry's m must be recomputed when that m changes)."""
    from ..workloads import traces

    return {"sha256": _trace_sha(name_or_path), "m": traces.resolve(name_or_path).m}


@functools.lru_cache(maxsize=256)
def _trace_sha(name_or_path: str) -> str:
    from ..workloads import traces

    info = traces.resolve(name_or_path)
    return info.sha256 or traces.sha256_file(info.path)


# ------------------------------------------------------------ cell functions --

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


@dataclass(frozen=True)
class TraceInputs(CellInputs):
    """The inputs of a cell on one trace: the trace's campaign text, the
    machine size and the cleaning's overrun choice (a cell redeclares a
    default it changes)."""

    trace: str = param(REQUIRED, help="the trace: its campaign text (schedlab.workloads.traces.text)", check=text)
    m: int | None = param(None, help="machine size (None: the trace's)", unit="processors",
                          check=integer(1, optional=True))
    overrun: str = param("kill", help="what cleaning does with jobs that overran their request",
                         check=one_of(*OVERRUNS))


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

    threshold: object = param(None, help="the waiting-time threshold (None: none)", unit="s")


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


# ------------------------------------------------------------------ cache --

#: Longest campaign name (characters): it names a directory of the cache.
MAX_NAME = 200


def check_name(name, source: str = "campaign") -> str:
    """A campaign name, which names its directory under the cache: a
    non-empty printable string of at most :data:`MAX_NAME` characters,
    without path separators, not ``.`` or ``..`` (so that no name can reach
    outside the cache directory).  Raises :class:`InputError`."""
    if not isinstance(name, str) or not name:
        raise InputError(f"{source}: 'name' must be a non-empty string, got {name!r}")
    shown = repr(name[:60]) + (f"... ({len(name)} characters)" if len(name) > 60 else "")
    bad = [c for c in ("/", "\\", os.sep, os.altsep) if c and c in name]
    if bad:
        raise InputError(f"{source}: campaign name {shown} holds a path separator {bad[0]!r}")
    if name in (".", "..") or not name.isprintable() or len(name) > MAX_NAME:
        raise InputError(f"{source}: campaign name {shown} is not a valid directory name (printable, at most "
                         f"{MAX_NAME} characters, not '.' or '..')")
    return name


class CacheWarning(UserWarning):
    """A cache entry could not be read or failed its checksum: it was
    removed and its cell is recomputed."""


class Cache:
    """One .npz file per cell, under ``root/<campaign>/<key[:2]>/<key>.npz``;
    written atomically, so a file is either complete or absent.  Each entry
    holds the sha256 of its key and content, checked on every read: an entry
    truncated, garbled or altered after it was written (by a disk, a copy or
    a hand) is never used; :meth:`load` warns (:class:`CacheWarning`, naming
    the file), removes it, and the cell is computed again.  (The checksum
    guards against accidents, not against someone who rewrites it too.)"""

    def __init__(self, root, campaign: str):
        root = Path(root)
        self.dir = root / check_name(campaign)
        if os.path.dirname(os.path.normpath(self.dir)) != os.path.normpath(root):   # cannot happen
            raise InputError(f"campaign {campaign!r}: cache directory {self.dir} outside {root}")

    def path(self, key: str) -> Path:
        if not (isinstance(key, str) and len(key) == 64 and all(c in "0123456789abcdef" for c in key)):
            raise InputError(f"cache key must be 64 hex digits (a sha256), got {key!r}")
        return self.dir / key[:2] / f"{key}.npz"

    def has(self, key: str) -> bool:
        """Whether an entry exists (unchecked: :meth:`load` checks it)."""
        return self.path(key).exists()

    @staticmethod
    def _digest(key: str, dims: str, arrays: dict) -> str:
        h = hashlib.sha256(b"schedlab-cache-1\0" + key.encode() + b"\0" + dims.encode("utf-8", "surrogatepass"))
        for name in sorted(arrays):
            a = np.ascontiguousarray(arrays[name])
            h.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0".encode())
            h.update(a.tobytes())
        return h.hexdigest()

    def put(self, key: str, result: dict) -> None:
        p = self.path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"v_{k}": np.asarray(v) for k, (dims, v) in result.items()}
        for name, a in arrays.items():
            if a.dtype.hasobject:
                raise InputError(f"cell output {name[2:]!r} is not numeric (dtype {a.dtype}): cannot cache it")
        dims = json.dumps({k: list(d) for k, (d, _) in result.items()})
        arrays["_dims"] = np.array(dims)
        arrays["_sha256"] = np.array(self._digest(key, dims, {k: v for k, v in arrays.items() if k[:2] == "v_"}))
        with atomic(p, suffix=".tmp.npz") as tmp:
            np.savez(tmp, **arrays)

    def get(self, key: str) -> dict:
        """The entry of ``key``; raises :class:`InputError` naming the file if
        it is unreadable or fails its checksum (FileNotFoundError if absent)."""
        p = self.path(key)
        with open(p, "rb") as fh:   # absent, unreadable (permissions): OSError, not corruption
            try:
                with np.load(fh, allow_pickle=False) as z:
                    names = set(z.files)
                    dims = str(z["_dims"][()])
                    stored = str(z["_sha256"][()])
                    layout = json.loads(dims)
                    if not isinstance(layout, dict) or names != {"_dims", "_sha256"} | {f"v_{k}" for k in layout}:
                        raise ValueError(f"entries {sorted(names)} do not match the declared outputs")
                    arrays = {f"v_{k}": z[f"v_{k}"] for k in layout}
            except Exception as exc:   # zipfile.BadZipFile, EOFError, KeyError, ValueError ...
                raise InputError(f"{p}: unreadable cache entry ({type(exc).__name__}: {exc})") from exc
        if self._digest(key, dims, arrays) != stored:
            raise InputError(f"{p}: cache entry fails its checksum (altered or corrupt)")
        return {k: (tuple(d), arrays[f"v_{k}"]) for k, d in layout.items()}

    def load(self, key: str) -> dict | None:
        """The checked entry of ``key``, or None if there is none or it is
        corrupt (then a :class:`CacheWarning` names the file, which is
        removed so that the cell is computed again)."""
        try:
            return self.get(key)
        except FileNotFoundError:
            return None
        except InputError as exc:
            warnings.warn(f"{exc}: removed, the cell is recomputed", CacheWarning, stacklevel=2)
            try:
                self.path(key).unlink()
            except OSError:
                pass
            return None


# -------------------------------------------------------------- execution --

def _run_batch(cell: str, batch: list[tuple[str, dict]]) -> tuple[list[tuple[str, dict]], int]:
    """Worker side: run a batch of cells; results, and how many jobs their
    simulations completed, go back to the client
    (which checked the cell: :func:`run`).  Cleaning warnings are not
    repeated here: the driver states each trace's cleaning once (and records
    it in provenance) before its campaigns run."""
    import warnings

    from ..workloads.workload import CleaningWarning

    from ..engine.sim import jobs_simulated

    from ..errors import SchedlabError

    f = _import_cell(cell)
    before = jobs_simulated()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CleaningWarning)
        try:
            results = [(key, f(params)) for key, params in batch]
        except SchedlabError as exc:
            # Returned, not raised: dask would log "Compute Failed" with the
            # worker's traceback before the driver says the one line a local
            # run says (CellFailed.raise_ below).  Other exceptions are bugs:
            # their tracebacks stay.
            return CellFailed(exc), jobs_simulated() - before
    return results, jobs_simulated() - before


class CellFailed:
    """A cell's :class:`~schedlab.errors.SchedlabError`, carried back from a
    worker as a result; the driver raises it as a local run would."""

    def __init__(self, error):
        self.error = error

    def raise_(self):
        raise self.error.with_traceback(None) from None


def _batches(items: list, n_workers: int, batch: int | None) -> list[list]:
    if not items:
        return []
    size = batch or max(1, min(32, math.ceil(len(items) / (4 * max(1, n_workers)))))
    return [items[i:i + size] for i in range(0, len(items), size)]


class _Progress:
    """Cells done, rate and ETA on stderr."""

    def __init__(self, total: int, enabled: bool, label: str):
        self.total, self.done, self.t0 = total, 0, time.time()
        self.bar = None
        if enabled and total:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, desc=label, unit="cell", file=sys.stderr, smoothing=0.1)

    def update(self, n: int):
        self.done += n
        if self.bar is not None:
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """While the local cluster starts its worker processes: SIGINT ignored,
    a disposition they inherit, so that Ctrl-C (sent by the terminal to the
    whole process group) reaches only this process, which stops the cluster
    and says in one line what the cache keeps -- not one traceback per
    worker.  Only from the main thread (where signals are handled)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def local_cluster(n: int):
    """A local dask cluster of ``n`` single-threaded worker processes that
    leave Ctrl-C to this process, and log only errors."""
    from dask.distributed import LocalCluster

    with _workers_ignore_ctrl_c():
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                            silence_logs=40)


def _client(scheduler: str | None, workers: int | None):
    from dask.distributed import Client

    address = scheduler or os.environ.get(SCHEDULER_ENV)
    if address:
        return Client(address), None
    n = workers or os.cpu_count() or 1
    cluster = local_cluster(n)
    return Client(cluster), cluster


def run(campaign: Campaign, *, scheduler: str | None = None, workers: int | None = None,
        cache_dir=None, progress: bool = True, batch: int | None = None, log=print):
    """Run (or resume) a campaign; returns its xarray.Dataset.  ``log``:
    where progress lines go (None: nowhere); a progress bar on stderr when
    ``progress``, and lines of cells done, rate and ETA every
    :data:`PROGRESS_EVERY` seconds to ``$SCHEDLAB_PROGRESS`` when it is set
    (the study driver's ``log`` writes the other lines there too)."""
    if log is None:
        def log(*args, **kwargs):
            return None
    t0 = time.time()
    resolve_cell(campaign.cell)   # the campaign may have been changed since it was checked
    cells = campaign.cells()
    keyed = [(idx, campaign.key(p), p) for idx, p in cells]
    cache = Cache(cache_dir or paths.RESULTS / "cache", campaign.name)
    found = {}
    todo = []
    for _, k, p in keyed:
        entry = cache.load(k)   # checked; a corrupt entry warns and is recomputed
        if entry is None:
            todo.append((k, p))
        else:
            found[k] = entry
    n_cached = len(keyed) - len(todo)
    log(f"campaign {campaign.name}: {len(keyed)} cells, {n_cached} from cache, {len(todo)} to compute")
    last = [time.time()]

    def report(done: int) -> None:
        now = time.time()
        if done < len(todo) and now - last[0] < PROGRESS_EVERY:
            return
        last[0] = now
        rate = done / max(now - t0, 1e-9)
        eta = f"ETA {(len(todo) - done) / rate:.0f} s" if done < len(todo) else "done"
        progress_line(f"campaign {campaign.name}: {done}/{len(todo)} cells computed, {rate:.2f} cells/s, {eta}")
    n_workers = 0
    n_jobs = 0
    if todo:
        client, cluster = _client(scheduler, workers)
        try:
            from dask.distributed import as_completed

            n_workers = len(client.scheduler_info(n_workers=-1).get("workers", {}))
            if cluster is None and not n_workers:
                # A given scheduler whose workers are not up yet (batch jobs
                # still queued): wait for one rather than cut the campaign
                # into tasks for a single worker.
                log(f"campaign {campaign.name}: waiting for a worker on {client.scheduler.address}")
                client.wait_for_workers(1)
                n_workers = len(client.scheduler_info(n_workers=-1).get("workers", {}))
            n_workers = n_workers or (workers or 1)
            bar = _Progress(len(todo), progress, campaign.name)
            futures = [client.submit(_run_batch, campaign.cell, b, pure=False)
                       for b in _batches(todo, n_workers, batch)]
            try:
                for fut in as_completed(futures):
                    results, jobs = fut.result()
                    if isinstance(results, CellFailed):
                        results.raise_()
                    n_jobs += jobs
                    for key, res in results:
                        cache.put(key, res)
                        found[key] = {k: (tuple(d), np.asarray(v)) for k, (d, v) in res.items()}
                    # Cached here: the workers may forget the result, so a
                    # worker lost later (a cancelled or preempted batch job)
                    # costs only the tasks it was running, not all it ran.
                    fut.release()
                    bar.update(len(results))
                    report(bar.done)
            finally:
                bar.close()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    ds = assemble(campaign, [(idx, found[k]) for idx, k, _ in keyed])
    ds.attrs.update(provenance(campaign, n_cached, len(todo), time.time() - t0, n_workers))
    ds.attrs["jobs_simulated"] = n_jobs   # by the cells computed here (the cached ones cost nothing)
    log(f"campaign {campaign.name}: done in {time.time() - t0:.1f} s "
        f"({len(todo)} computed, {n_cached} cached)")
    return ds


class Runner:
    """Runs several campaigns on one dask cluster: the scheduler given (or
    ``$SCHEDLAB_SCHEDULER``), else a local cluster of ``workers`` processes
    started at the first campaign that has a cell to compute (a run served
    entirely from the cache starts none) and kept for the next ones, so its
    workers start once and keep their per-process trace caches.  A context
    manager; ``computed`` and ``cached`` count cells over its campaigns.
    """

    def __init__(self, workers: int | None = None, scheduler: str | None = None, cache_dir=None,
                 log=print):
        self.workers = workers or os.cpu_count() or 1
        self.scheduler = scheduler or os.environ.get(SCHEDULER_ENV) or None
        self.cache_dir = Path(cache_dir) if cache_dir is not None else paths.RESULTS / "cache"
        self.log = log
        self.cluster = None
        self.computed = self.cached = 0
        self.jobs = 0   # jobs simulated by the cells computed on its cluster

    def pending(self, campaign: Campaign) -> int:
        """How many of the campaign's cells are not in the cache."""
        cache = Cache(self.cache_dir, campaign.name)
        return sum(cache.load(campaign.key(params)) is None for _, params in campaign.cells())

    def address(self) -> str:
        """The scheduler's address, starting the local cluster if needed."""
        if self.scheduler:
            return self.scheduler
        if self.cluster is None:
            self.cluster = local_cluster(self.workers)
            if self.log is not None:
                self.log(f"local dask cluster: {self.workers} worker(s)")
        return self.cluster.scheduler_address

    def run(self, campaign: Campaign, **kw):
        """:func:`run` on this runner's cluster (none if every cell is cached)."""
        scheduler = self.address() if self.pending(campaign) else None
        ds = run(campaign, scheduler=scheduler, cache_dir=self.cache_dir, progress=kw.pop("progress", False),
                 log=self.log, **kw)
        self.computed += int(ds.attrs.get("cells_computed", 0))
        self.cached += int(ds.attrs.get("cells_cached", 0))
        self.jobs += int(ds.attrs.get("jobs_simulated", 0))
        return ds

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def assemble(campaign: Campaign, results: list[tuple[tuple[int, ...], dict]]):
    """One Dataset from the cells' results: campaign dims first, then the
    cells' own dims (which must agree across cells)."""
    import xarray as xr

    from .store import COORDS, VARIABLES, variable

    shape = campaign.shape
    first = results[0][1]
    layout = {}
    for name, (dims, arr) in first.items():
        if name not in VARIABLES:
            raise InputError(f"cell output {name!r} is not declared in schedlab.campaigns.store.VARIABLES")
        layout[name] = (tuple(dims), np.shape(arr))
    data = {name: np.full(shape + s, VARIABLES[name].fill, dtype=np.float64 if VARIABLES[name].is_int else VARIABLES[name].dtype)
            for name, (_, s) in layout.items()}
    for idx, res in results:
        if set(res) != set(layout):
            raise InputError(f"cell {idx}: outputs {sorted(res)} differ from the first cell's {sorted(layout)}")
        for name, (dims, arr) in res.items():
            if (tuple(dims), np.shape(arr)) != layout[name]:
                raise InputError(f"cell {idx}: {name} has dims {dims} shape {np.shape(arr)}, "
                                 f"the first cell had {layout[name]}")
            data[name][idx] = arr
    cdims = tuple(campaign.dims)
    variables = {name: variable(name, cdims + layout[name][0], data[name]) for name in layout}
    coords = {}
    for k, labels in campaign.dims.items():
        vals = labels if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in labels) \
            else [str(x) for x in labels]
        coords[k] = xr.Variable((k,), np.asarray(vals), attrs=COORDS.get(k, {}))
    for name, (dims, s) in layout.items():
        for d, n in zip(dims, s):
            if d not in coords:
                coords[d] = xr.Variable((d,), np.arange(n, dtype=np.int64), attrs=COORDS.get(d, {}))
    return xr.Dataset(variables, coords=coords)


def provenance(campaign: Campaign, n_cached: int, n_computed: int, wall: float, n_workers: int) -> dict:
    from ..engine import sim

    traces = {}
    for _, p in campaign.cells():
        for t in _traces_of(p):
            traces[paths.relative(t) if os.path.sep in str(t) else str(t)] = _trace_sha(str(t))
    spec = campaign.to_dict()
    spec["params"] = {k: (paths.relative(v) if k == "trace" and isinstance(v, str) and os.path.sep in v else v)
                      for k, v in spec["params"].items()}
    if "trace" in spec["dims"]:
        spec["dims"]["trace"] = [paths.relative(t) if isinstance(t, str) and os.path.sep in t else t
                                 for t in spec["dims"]["trace"]]
    seeds = sorted({p["seed"] for _, p in campaign.cells() if "seed" in p}, key=str)
    return {
        "title": f"schedlab campaign {campaign.name}",
        "Conventions": "CF-1.10",
        "schedlab_version": __version__,
        "core_version": sim.VERSION,
        "core_source_sha256": sim.SOURCE_HASH,
        "code_fingerprint": cell_fingerprint(campaign.cell),
        "git_commit": paths.git_commit(),
        "traces_sha256": traces,
        "campaign": spec,
        "seeds": seeds,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "wall_time_s": round(wall, 3),
        "cells_total": n_cached + n_computed,
        "cells_cached": n_cached,
        "cells_computed": n_computed,
        "workers": n_workers,
    }
