"""The parameters of the energy study: :class:`Params` (every parameter and
its default), :func:`validate` (checks them and names the parameter at
fault), the sensitivity grid and the fixed minimum length of a segment.
"""
from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from ... import energy, paths
from ... import values as check
from ...errors import InputError

STUDY = "energy"

#: The default sensitivity grid: parameter -> values tried (one at a time,
#: the others at their set values).
#: ``periodicity`` None: the values of :data:`PERIODICITY_GRID` for the
#: criterion in use; ``criterion``: each with its default threshold.
SENSITIVITY: dict[str, list | None] = {
    "stationarity": [0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3],
    "variability": [0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3],
    "periodicity": None,
    "criterion": list(energy.CRITERIA),
    "n_windows": [3, 4, 6, 8, 12],
    "min_cycles": [2.0, 3.0, 4.0, 6.0],
    "zscore": [0.0, 2.0, 2.5, 3.0, 4.0],
    "trim": [0, 2, 5, 10, 15],
    "min_length": [30, 60, 120, 240],
    "idle_level": [0.05, 0.1, 0.15, 0.2],
    "min_shift": [0.1, 0.25, 0.5, 0.75],
}
PERIODICITY_GRID = {"share": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                    "acf": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
                    "density": [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]}
#: Change-point segments are at least this many minutes long (the thesis'
#: minimum job length); a longer ``min_length`` drops the shorter ones.
SEGMENT_MIN_SIZE = 30
_TREE_KEYS = ("n_windows", "stationarity", "variability", "periodicity", "criterion", "min_cycles")


@dataclass(frozen=True)
class Params:
    """The study's parameters (see the module docstring and :func:`validate`)."""

    data: str | None = None
    hosts: tuple[str, ...] | str = "dahu"
    days: float | None = None
    channel: str = "pp0"
    method: str = "segments"
    min_shift: float = 0.25
    window: int = 360
    idle_level: float = 0.1
    include_idle: bool = False
    min_length: int = 30
    trim: int = 5
    zscore: float = 3.0
    max_gap: int = 5
    n_windows: int = 6
    stationarity: float = 0.1
    variability: float = 0.1
    periodicity: float | None = None
    criterion: str = "acf"
    min_cycles: float = 3.0
    range_quantiles: tuple[float, float] = (0.001, 0.999)
    compare_methods: bool = True
    sensitivity: Any = True
    synthetic_signals: int = 50
    synthetic_noises: tuple[float, ...] = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3)
    seed: int = 0

    @property
    def tree(self) -> energy.Tree:
        kw = {k: getattr(self, k) for k in _TREE_KEYS}
        if kw["periodicity"] is None:
            kw["periodicity"] = energy.DEFAULT_PERIODICITY[self.criterion]
        return energy.Tree(**kw)

    @property
    def preprocessing(self) -> energy.Preprocessing:
        return energy.Preprocessing(min_length=self.min_length, trim=self.trim, zscore=self.zscore,
                                    max_gap=self.max_gap)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sensitivity"] = self.sensitivity
        return d


def _number(name, v, *, integer=False, minimum=None, positive=False, maximum=None):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise InputError(f"{name}: expected a number, got {v!r}") from None
        else:
            raise InputError(f"{name}: expected a number, got {v!r}")
    if not math.isfinite(float(v)):
        raise InputError(f"{name}: expected a finite number, got {v!r}")
    if integer:
        if float(v) != int(v):
            raise InputError(f"{name}: expected a whole number, got {v!r}")
        v = int(v)
    else:
        v = float(v)
    if positive and not v > 0:
        raise InputError(f"{name}: expected a number > 0, got {v!r}")
    if minimum is not None and v < minimum:
        raise InputError(f"{name}: expected a number >= {minimum}, got {v!r}")
    if maximum is not None and v > maximum:
        raise InputError(f"{name}: expected a number <= {maximum}, got {v!r}")
    return v


def _bool(name, v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        return v.strip().lower() in ("true", "yes", "1")
    raise InputError(f"{name}: expected true or false, got {v!r}")


def validate(**kw) -> Params:
    """The study's parameters, checked: a :class:`Params`, or an
    :class:`~schedlab.errors.InputError` that names the parameter and says
    what is expected.  Unknown names are refused."""
    names = {f.name for f in fields(Params)}
    unknown = sorted(set(kw) - names - {"outdir"})
    if unknown:
        raise InputError(f"unknown parameter(s) {unknown}; known: {sorted(names)}")
    kw.pop("outdir", None)
    d = Params()
    out: dict[str, Any] = {}
    data = kw.get("data", d.data)
    if data is not None:
        if not isinstance(data, (str, os.PathLike)) or not str(data).strip():
            raise InputError(f"data: expected a path to a CSV in the bundled format or None, got {data!r}")
        p = Path(data).expanduser()
        if not p.is_file():
            raise InputError(f"data: {p} is not a file")
        data = str(p)
    out["data"] = data
    hosts = kw.get("hosts", d.hosts)
    if isinstance(hosts, str) and hosts.strip().lower() in ("dahu", "all"):
        hosts = hosts.strip().lower()
    else:
        hosts = tuple(str(h) for h in check.as_list(hosts, "hosts"))
        if not hosts:
            raise InputError("hosts: give 'dahu', 'all' or a non-empty list of host names")
    out["hosts"] = hosts
    days = kw.get("days", d.days)
    out["days"] = None if days is None else _number("days", days, positive=True)
    for name, choices in (("channel", ("pp0", "dram", "pp0+dram")), ("method", energy.METHODS),
                          ("criterion", energy.CRITERIA)):
        v = kw.get(name, getattr(d, name))
        if v not in choices:
            raise InputError(f"{name}: expected one of {list(choices)}, got {v!r}")
        out[name] = v
    out["min_shift"] = _number("min_shift", kw.get("min_shift", d.min_shift), minimum=0.0)
    out["window"] = _number("window", kw.get("window", d.window), integer=True, minimum=1)
    out["idle_level"] = _number("idle_level", kw.get("idle_level", d.idle_level))
    out["include_idle"] = _bool("include_idle", kw.get("include_idle", d.include_idle))
    for name in ("min_length", "trim", "max_gap"):
        out[name] = _number(name, kw.get(name, getattr(d, name)), integer=True, minimum=0)
    out["min_length"] = max(out["min_length"], 1)
    out["zscore"] = _number("zscore", kw.get("zscore", d.zscore), minimum=0.0)
    out["n_windows"] = _number("n_windows", kw.get("n_windows", d.n_windows), integer=True, minimum=2)
    for name in ("stationarity", "variability", "min_cycles"):
        out[name] = _number(name, kw.get(name, getattr(d, name)), minimum=0.0)
    per = kw.get("periodicity", None)
    out["periodicity"] = (energy.DEFAULT_PERIODICITY[out["criterion"]] if per is None
                          else _number("periodicity", per, minimum=0.0))
    q = check.as_list(kw.get("range_quantiles", d.range_quantiles), "range_quantiles")
    if len(q) != 2:
        raise InputError(f"range_quantiles: expected [low, high], got {q!r}")
    q = (_number("range_quantiles[0]", q[0], minimum=0.0, maximum=1.0),
         _number("range_quantiles[1]", q[1], minimum=0.0, maximum=1.0))
    if not q[0] < q[1]:
        raise InputError(f"range_quantiles: need low < high, got {list(q)}")
    out["range_quantiles"] = q
    out["compare_methods"] = _bool("compare_methods", kw.get("compare_methods", d.compare_methods))
    sens = kw.get("sensitivity", d.sensitivity)
    if isinstance(sens, (bool, str)) and not (isinstance(sens, str) and sens.strip().startswith("{")):
        sens = _bool("sensitivity", sens)
    else:
        if isinstance(sens, str):
            import yaml
            sens = yaml.safe_load(sens)
        if not isinstance(sens, dict):
            raise InputError("sensitivity: expected true, false or a mapping parameter -> list of values")
        bad = sorted(set(sens) - set(SENSITIVITY))
        if bad:
            raise InputError(f"sensitivity: unknown parameter(s) {bad}; known: {sorted(SENSITIVITY)}")
        sens = {k: [v for v in check.as_list(vals, f"sensitivity.{k}")] for k, vals in sens.items()}
        for k, vals in sens.items():
            if k == "criterion":
                bad = [v for v in vals if v not in energy.CRITERIA]
                if bad:
                    raise InputError(f"sensitivity.criterion: {bad} not in {list(energy.CRITERIA)}")
                continue
            integer = k in ("n_windows", "trim", "min_length")
            sens[k] = [_number(f"sensitivity.{k}", v, integer=integer,
                               minimum=2 if k == "n_windows" else 0) for v in vals]
    out["sensitivity"] = sens
    out["synthetic_signals"] = _number("synthetic_signals", kw.get("synthetic_signals", d.synthetic_signals),
                                       integer=True, minimum=0)
    noises = check.as_list(kw.get("synthetic_noises", d.synthetic_noises), "synthetic_noises")
    out["synthetic_noises"] = tuple(_number("synthetic_noises", v, minimum=0.0) for v in noises)
    out["seed"] = _number("seed", kw.get("seed", d.seed), integer=True, minimum=0)
    p = Params(**out)
    p.tree                                  # noqa: B018 -- validates the tree
    return p


def validate_outdir(value) -> Path:
    """The output directory (``None``: ``results/energy`` under the project
    root), made absolute; it must not be an existing file."""
    return check.directory(value, "outdir", paths.RESULTS / STUDY)
