"""The campaign spec: a declared grid of named dimensions, fixed parameters
and a cell (:class:`Campaign`).

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

Every key is checked (:meth:`Campaign.from_dict`): types, names, sizes within
bounds (:data:`MAX_CELLS`, :data:`MAX_SPEC_VALUES`, :data:`MAX_SPEC_BYTES`),
a cell a spec may name (:func:`schedlab.campaigns.cells.resolve_cell`), and a
name that is a valid directory of the cache (:func:`check_name`).
:meth:`Campaign.key` is a cell's cache key (:mod:`.fingerprint`).
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import InputError
from .cells import resolve_cell
from .fingerprint import _trace_identity, _traces_of, cell_fingerprint, python_fingerprint

#: The keys of a campaign spec.
SPEC_KEYS = ("name", "dims", "params", "cell", "metrics")
#: Bounds on what a spec may ask for: cells in the grid, values in its
#: parameters (nested values and YAML aliases count each time they occur),
#: bytes in its file.
MAX_CELLS = 1_000_000
MAX_SPEC_VALUES = 100_000
MAX_SPEC_BYTES = 10 * 2**20
_SCALARS = (str, int, float, bool, type(None))


def _keyed(params: dict) -> dict:
    """A cell's parameters as its cache key sees them: a trace carrying
    per-job columns is named by the columns' content, not their files
    (:func:`schedlab.workloads.traces.keyed_text`); other parameters as they are."""
    t = params.get("trace")
    if not isinstance(t, str) or "col." not in t:
        return params
    from ..workloads import traces

    return {**params, "trace": traces.keyed_text(t)}


def _python_code(params: dict) -> dict:
    """The code of every Python policy or estimator a cell's parameters name
    (``py:module:name`` values): the fingerprint of its module and of what
    it imports of its own package, so that editing it recomputes the cells."""
    from ..jobs import PYTHON_PREFIX

    found = {}
    todo = list(params.values())
    while todo:
        v = todo.pop()
        if isinstance(v, str) and v.startswith(PYTHON_PREFIX):
            found[v] = python_fingerprint(v[len(PYTHON_PREFIX):].partition(":")[0])
        elif isinstance(v, (list, tuple)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
    return found


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
        resolve_cell(self.cell)  # fail early on a bad cell name (and declare its module's variables)
        if self.metrics is not None:
            from .store import VARIABLES

            unknown = [m for m in self.metrics if m not in VARIABLES]
            if unknown:
                raise InputError(f"campaign {self.name}: metrics: {[str(m)[:60] for m in unknown[:5]]} not "
                                 "declared in schedlab.campaigns.store.VARIABLES (nor by the cell's module)")

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
            from .. import validators

            d = validators.read_yaml(raw.decode("utf-8"), str(path))
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

        keyed = _keyed(params)
        blob = {"cell": self.cell, "params": keyed, "schedlab": __version__, "core": sim.VERSION,
                "code": cell_fingerprint(self.cell),
                "traces": {str(k): _trace_identity(str(t)) for t, k in zip(_traces_of(params), _traces_of(keyed))}}
        python = _python_code(keyed)
        if python:          # a Python policy or estimator (py:module:name): its code, as a cell's own
            blob["python"] = python
        text = json.dumps(blob, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()
