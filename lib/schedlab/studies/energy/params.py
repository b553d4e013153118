"""The parameters of the energy study, declared once (:class:`Params`: each
with its default -- the quick profile's value --, unit, meaning and
validator), the sensitivity grid and the fixed minimum length of a segment.
"""
from __future__ import annotations

from ..registry import name_of

import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import signals as energy
from ... import validators
from ...errors import InputError
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param

STUDY = name_of(__name__)

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


# ----------------------------------------------------------- validators --

def _number(v, name, *, integer=False, minimum=None, positive=False, maximum=None):
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


def _bool(v, name):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        return v.strip().lower() in ("true", "yes", "1")
    raise InputError(f"{name}: expected true or false, got {v!r}")


def number(**kw):
    """A validator of numbers (see :func:`_number`'s keywords)."""
    return lambda v, name: _number(v, name, **kw)


def optional(check_):
    return lambda v, name: None if v is None else check_(v, name)


def choice(choices):
    def check_(v, name):
        if v not in choices:
            raise InputError(f"{name}: expected one of {list(choices)}, got {v!r}")
        return v
    return check_


def _data(v, name):
    if v is None:
        return None
    if not isinstance(v, (str, os.PathLike)) or not str(v).strip():
        raise InputError(f"{name}: expected a path to a CSV in the bundled format or None, got {v!r}")
    p = Path(v).expanduser()
    if not p.is_file():
        raise InputError(f"{name}: {p} is not a file")
    return str(p)


def _hosts(v, name):
    if isinstance(v, str) and v.strip().lower() in ("dahu", "all"):
        return v.strip().lower()
    hosts = tuple(validators.as_names(v, name))
    if not hosts:
        raise InputError(f"{name}: give 'dahu', 'all' or a non-empty list of host names")
    return hosts


def _quantiles(v, name):
    q = validators.as_list(v, name)
    if len(q) != 2:
        raise InputError(f"{name}: expected [low, high], got {q!r}")
    q = (_number(q[0], f"{name}[0]", minimum=0.0, maximum=1.0), _number(q[1], f"{name}[1]", minimum=0.0, maximum=1.0))
    if not q[0] < q[1]:
        raise InputError(f"{name}: need low < high, got {list(q)}")
    return q


def _sensitivity(sens, name):
    if isinstance(sens, (bool, str)) and not (isinstance(sens, str) and sens.strip().startswith("{")):
        return _bool(sens, name)
    if isinstance(sens, str):
        sens = validators.read_yaml(sens, name)
    if not isinstance(sens, dict):
        raise InputError(f"{name}: expected true, false or a mapping parameter -> list of values")
    bad = sorted(set(sens) - set(SENSITIVITY))
    if bad:
        raise InputError(f"{name}: unknown parameter(s) {bad}; known: {sorted(SENSITIVITY)}")
    sens = {k: [v for v in validators.as_list(vals, f"{name}.{k}")] for k, vals in sens.items()}
    for k, vals in sens.items():
        if k == "criterion":
            bad = [v for v in vals if v not in energy.CRITERIA]
            if bad:
                raise InputError(f"{name}.criterion: {bad} not in {list(energy.CRITERIA)}")
            continue
        integer = k in ("n_windows", "trim", "min_length")
        sens[k] = [_number(v, f"{name}.{k}", integer=integer, minimum=2 if k == "n_windows" else 0) for v in vals]
    return sens


def _noises(v, name):
    return tuple(_number(x, name, minimum=0.0) for x in validators.as_list(v, name))


# ------------------------------------------------------------- parameters --

#: The ten nodes of the quick profile (the full one takes dahu33-72, the thesis' 40).
QUICK_HOSTS = tuple(f"dahu{i}" for i in range(33, 43))


@dataclass(frozen=True)
class Params(StudyParams):
    """The study's parameters (see the package docstring for every definition)."""

    data: str | None = param(None, check=_data,
                             help="None: the bundled Gricad dahu data; or a CSV in the same format")
    hosts: tuple[str, ...] | str = param(QUICK_HOSTS, check=_hosts,
                                         help='"dahu" (dahu33-72, the thesis\' 40 nodes), "all", or a list of hosts')
    days: float | None = param(None, unit="days", check=optional(number(positive=True)),
                               help="None: every day; or only the first `days` days")
    channel: str = param("pp0", check=choice(("pp0", "dram", "pp0+dram")), help="pp0 (cores), dram, or pp0+dram")
    method: str = param("segments", check=choice(energy.METHODS),
                        help="how profiles are cut: segments | episodes | windows")
    min_shift: float = param(0.25, check=number(minimum=0.0),
                             help="segments: level change that separates two profiles (share of the range)")
    window: int = param(360, unit="min", check=number(integer=True, minimum=1), help="windows: minutes per profile")
    idle_level: float = param(0.1, check=number(),
                              help="profiles whose mean is below this share of the range are idle")
    include_idle: bool = param(False, check=_bool, help="count idle profiles in the shares?")
    min_length: int = param(30, unit="min", check=lambda v, n: max(_number(v, n, integer=True, minimum=0), 1),
                            help="shorter profiles are dropped (thesis: 30)")
    trim: int = param(5, unit="min", check=number(integer=True, minimum=0), help="cut at each end of a profile")
    zscore: float = param(3.0, check=number(minimum=0.0), help="outlier threshold in standard deviations (0: none)")
    max_gap: int = param(5, unit="min", check=number(integer=True, minimum=0),
                         help="longest gap bridged inside a profile")
    n_windows: int = param(6, check=number(integer=True, minimum=2),
                           help="windows of the stationarity test (thesis: 6)")
    stationarity: float = param(0.1, check=number(minimum=0.0),
                                help="threshold on the sd of the window means (thesis: 0.1)")
    variability: float = param(0.1, check=number(minimum=0.0), help="threshold on the sd (thesis: 0.1)")
    periodicity: float | None = param(None, check=optional(number(minimum=0.0)),
                                      help="the periodicity criterion's threshold; None: the criterion's default")
    criterion: str = param("acf", check=choice(energy.CRITERIA), help="periodicity: acf | share | density")
    min_cycles: float = param(3.0, check=number(minimum=0.0),
                              help="the dominant period must repeat at least this often")
    range_quantiles: tuple[float, float] = param((0.001, 0.999), check=_quantiles,
                                                 help="quantiles of a processor's power taken as its range")
    compare_methods: bool = param(True, check=_bool, help="also cut profiles the other two ways")
    sensitivity: Any = param(True, check=_sensitivity,
                             help="True: the default grid; False; or {parameter: [values]}")
    synthetic_signals: int = param(20, check=number(integer=True, minimum=0),
                                   help="generated signals per kind and noise level (0: skip)")
    synthetic_noises: tuple[float, ...] = param((0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3), check=_noises,
                                                help="noise levels of the generated signals (share of the range)")
    seed: int = param(0, check=number(integer=True, minimum=0), help="seed of the generated signals")

    def __post_init__(self):
        if self.periodicity is None:                    # the criterion's default threshold
            object.__setattr__(self, "periodicity", energy.DEFAULT_PERIODICITY[self.criterion])
        try:
            self.tree                                   # noqa: B018 -- validates the tree
        except (ValueError, InputError) as exc:
            raise InputError(f"parameters of the tree: {exc}") from None

    @property
    def tree(self) -> energy.Tree:
        kw = {k: getattr(self, k) for k in _TREE_KEYS}
        return energy.Tree(**kw)

    @property
    def preprocessing(self) -> energy.Preprocessing:
        return energy.Preprocessing(min_length=self.min_length, trim=self.trim, zscore=self.zscore,
                                    max_gap=self.max_gap)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sensitivity"] = self.sensitivity
        return d


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'sensitivity': {'stationarity': [0.05, 0.1], 'min_shift': [0.25, 0.5], 'criterion': ['share', 'acf']},
 'synthetic_signals': 3,
 'synthetic_noises': [0.0, 0.1]}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("classes", "data", "funnel", "hosts", "methods", "sensitivity", "synthetic", "units"),
    figures=("aggregation", "distribution", "examples", "history", "methods", "outliers", "overview",
        "periodograms", "sensitivity", "synthetic"),
    datasets=("profiles",),
    data=("profiles",),
    feeds={"classes": "Fig. 7.12"})
