"""Parameters of the mixed-policies study, declared once (:class:`Params`:
default = the quick profile's value, unit, meaning, validator), with the
thesis' protocol (traces, weeks, months, training/testing split, thresholds)
and the choices (optimisers, backfilling, periods)."""
from __future__ import annotations

from ..registry import name_of

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ...science import optim
from ...engine import sim
from ... import validators
from ...workloads import traces as _traces
from ...errors import InputError
from ...protocol.scorecard import Elsewhere
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from ...declared import durations
from .cells import BACKFILL_CHOICES, OPTIMISERS, PERIODS, POLICIES, THRESHOLD  # noqa: F401 (re-exported)

STUDY = name_of(__name__)

#: The four traces of thesis §5.2, main one first.
DEFAULT_TRACES: tuple[str, ...] = ("SDSC-SP2", "SDSC-BLUE", "CTC-SP2", "KTH-SP2")
#: Weeks used per trace (thesis §5.2: "45 consecutive weeks from CTC-SP2 and
#: KTH-SP2 and 100 consecutive weeks from SDSC-SP2 and SDSC-BLUE").
THESIS_WEEKS: dict[str, int] = {"SDSC-SP2": 100, "SDSC-BLUE": 100, "CTC-SP2": 45, "KTH-SP2": 45}
#: Training and testing weeks (1-based, inclusive), thesis §5.5.2.1.
THESIS_SPLIT: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {"SDSC-SP2": ((29, 64), (65, 100))}
#: Months used per trace (thesis §5.9: "train on the first 10 months ... test
#: on the second half"): 20 months of SDSC-SP2; every full month elsewhere.
THESIS_MONTHS: dict[str, int] = {"SDSC-SP2": 20}
#: The thresholds of Tables 5.2-5.5: 2.31 days, none, 20 hours.
THESIS_THRESHOLDS: tuple[int | None, ...] = (200_000, None, 72_000)
#: The 3 features of thesis §5.5 (the first three of the engine's six).
FEATURES3: tuple[str, ...] = sim.FEATURES[:3]
DEFAULT_OPTIMISERS: tuple[str, ...] = tuple(OPTIMISERS)


# -------------------------------------------------------------- validators --

def _per_trace(value, names: Sequence[str], what: str, default: Mapping[str, int],
               minimum: int = 1) -> dict[str, int | None]:
    """Per-trace counts from an int, "all"/None (every full period), or a
    mapping trace -> either (missing traces take ``default``, else all)."""
    def one(v, name):
        if v is None or (isinstance(v, str) and v.strip().lower() == "all"):
            return None
        return validators.integer(v, f"{what}[{name}]" if name else what, minimum)

    if isinstance(value, Mapping):
        lower = {str(k).lower(): v for k, v in value.items()}
        unknown = set(lower) - {n.lower() for n in names}
        if unknown:
            raise InputError(f"{what}: unknown trace(s) {sorted(unknown)}; the traces are {list(names)}")
        return {n: one(lower[n.lower()], n) if n.lower() in lower else default.get(n) for n in names}
    if value == "thesis":
        return {n: default.get(n) for n in names}
    v = one(value, "")
    return {n: v for n in names}


def _periods(value, name):
    """"thesis", "all", an int, None or a mapping (resolved per trace once the traces are known)."""
    if value is False:
        return 0
    if isinstance(value, Mapping) or value is None or (isinstance(value, str) and value.strip().lower()
                                                         in ("thesis", "all")):
        return value.strip().lower() if isinstance(value, str) else value
    return validators.integer(value, name, 0)


def _split(value, name):
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(f"{name}: expected a mapping trace -> [[train first, last], [test first, last]]")
    out = {}
    for k, v in value.items():
        if v is None:
            out[str(k)] = None
            continue
        try:
            (a, b), (c, d) = v
            a, b, c, d = (validators.integer(x, f"{name}[{k}]") for x in (a, b, c, d))
        except (TypeError, ValueError):
            raise InputError(f"{name}[{k}]: expected [[first, last], [first, last]], got {v!r}") from None
        if not (a <= b and c <= d):
            raise InputError(f"{name}[{k}]: each range must have first <= last, got {v!r}")
        out[str(k)] = ((a, b), (c, d))
    return out


def _resolution(value, name):
    v = validators.integer(value, name)
    if optim.lattice_size(3, v) > 500_000:
        raise InputError(f"{name}: {v} gives {optim.lattice_size(3, v)} grid points per week; at most 353")
    return v


def _map_trace(value, name):
    """None, or a trace given as `traces` gives them (registry name or path; or
    the name of one of `traces`): resolved once the traces are known."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "")):
        return None
    if not isinstance(value, (str, os.PathLike)) and not hasattr(value, "name"):
        raise InputError(f"{name}: expected a trace name or path, or None, got {value!r}")
    return value


def _map_weeks(value, name):
    weeks = validators.as_list(value, name)
    if not weeks:
        raise InputError(f"{name}: expected a list of week numbers, got {value!r}")
    return tuple(validators.integer(w, name) for w in weeks)


def _optimisers(value, name):
    items = tuple(validators.as_names(value, name, none_is_empty=True))
    bad = [o for o in items if o not in OPTIMISERS]
    if bad:
        raise InputError(f"{name}: unknown {bad}; choose among {list(OPTIMISERS)}")
    return items


# -------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params(StudyParams):
    """The parameters of the study; ``weeks``, ``months`` and ``split`` are
    resolved per trace (``{trace name: value}``) once the traces are known,
    and ``map_trace`` to the name of one of the traces."""

    traces: tuple = param(DEFAULT_TRACES, check=_traces.trace_tuple,
                          help="traces: registry names or SWF paths (thesis §5.2: these four)")
    weeks: Any = param("thesis", unit="weeks", check=_periods,
                       help='weeks per trace: "thesis" (100 of SDSC-SP2 and SDSC-BLUE, 45 of the others), '
                            'an int, "all", or {trace: int|"all"}')
    months: Any = param("thesis", unit="months", check=_periods,
                        help='months per trace: "thesis" (20 of SDSC-SP2, every full month of the others), '
                             'an int (0: none), "all" or {trace: ...}')
    split: Any = param(None, check=_split,
                       help="{trace: [[train first, last], [test first, last]]} weeks (1-based); "
                            "default: the thesis' for SDSC-SP2, else halves")
    grid_resolution: int = param(10, check=_resolution,
                                 help="3-feature grid step 1/n at the main threshold (thesis: 100, 40,002 points)")
    threshold_resolution: int = param(5, check=_resolution, help="grid step 1/n at the other thresholds")
    month_resolution: int = param(6, check=_resolution, help="grid step 1/n of the months")
    map_resolution: int = param(30, check=_resolution, help="grid step 1/n of the Fig. 5.4 maps")
    map_trace: Any = param("SDSC-SP2", check=_map_trace,
                           help="the trace of the Fig. 5.4 maps, named as `traces` are (None: no maps; "
                                "the first trace when SDSC-SP2 is not studied)")
    map_weeks: tuple = param((70, 71, 72, 73), unit="weeks", check=_map_weeks, help="the weeks of the maps")
    thresholds: tuple = param(THESIS_THRESHOLDS, unit="s", check=durations,
                              help="waiting-time thresholds (the first is the main one): 2.31 days, none, 20 h")
    optimisers: tuple = param(("xnes3", "xnes6", "cma3", "cma6", "random6"), check=_optimisers,
                              help=f"black-box searches, among {', '.join(OPTIMISERS)} ([]: none)")
    budget: int = param(80, check=validators.integer, help="simulations per weekly optimisation")
    sigma0: float = param(0.5, check=lambda v, n: validators.number(v, n, 0, low_open=True),
                          help="initial step of xNES / CMA-ES")
    penalty: float = param(0.01, check=lambda v, n: validators.number(v, n, 0), help="penalty of ||w||_1 away from 1")
    patience: int = param(8, check=validators.integer, help="restarts without improvement before stopping")
    seed: int = param(2019, check=lambda v, n: validators.integer(v, n, 0), help="seed of the searches")
    readings: bool = param(True, check=lambda v, n: validators.boolean(v, n),
                           help="also compute Table 5.1's pure policies under every candidate reading of the "
                                "protocol (tau 10/60 s, crossing rule, week alignment; issue 30) and identify "
                                "one on the training column (false: the paper's text only)")
    backfill: str = param("same", check=lambda v, n: validators.choice(v, n, BACKFILL_CHOICES),
                          help='the backfilling queue: "same" (EASY-P-P) or "FCFS"')

    def __post_init__(self):
        names = [getattr(t, "name", str(t)) for t in self.traces]
        weeks = _per_trace(self.weeks, names, "weeks", THESIS_WEEKS)
        months = _per_trace(self.months, names, "months", THESIS_MONTHS, minimum=0)
        split: dict[str, Any] = {n: THESIS_SPLIT.get(n) for n in names}
        lower = {n.lower(): n for n in names}
        for k, v in (self.split or {}).items():
            if str(k).lower() not in lower:
                raise InputError(f"split: unknown trace {k!r}; the traces are {names}")
            split[lower[str(k).lower()]] = v
        map_trace = self.map_trace
        if map_trace is not None:
            name = map_trace.name if hasattr(map_trace, "name") else str(map_trace)
            if name.lower() not in lower and name != "SDSC-SP2":     # a path, or another name of a trace
                name = _traces.trace_list([map_trace], "map_trace")[0].name
            if name.lower() in lower:
                map_trace = lower[name.lower()]
            elif name == "SDSC-SP2":          # the default, when SDSC-SP2 is not studied
                map_trace = names[0]
            else:
                raise InputError(f"map_trace: {name!r} is not one of the traces {names}")
        for k, v in (("weeks", weeks), ("months", months), ("split", split), ("map_trace", map_trace)):
            object.__setattr__(self, k, v)

    @property
    def threshold(self) -> int | None:
        """The main threshold (the first of :attr:`thresholds`)."""
        return self.thresholds[0]

    def as_dict(self) -> dict[str, Any]:
        return {"traces": [t.name for t in self.traces], "weeks": self.weeks, "months": self.months,
                "split": self.split, "grid_resolution": self.grid_resolution,
                "threshold_resolution": self.threshold_resolution,
                "month_resolution": self.month_resolution, "map_resolution": self.map_resolution,
                "map_trace": self.map_trace, "map_weeks": list(self.map_weeks),
                "thresholds": [sim.format_duration(t) for t in self.thresholds],
                "optimisers": list(self.optimisers), "budget": self.budget, "sigma0": self.sigma0,
                "penalty": self.penalty, "patience": self.patience, "seed": self.seed, "backfill": self.backfill}


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'weeks': 3,
 'months': 'all',
 'grid_resolution': 3,
 'threshold_resolution': 2,
 'month_resolution': 2,
 'map_resolution': 4,
 'map_weeks': [2, 3],
 'thresholds': [200000, None],
 'optimisers': ['xnes3'],
 'budget': 10}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("learning", "learning_months", "pure", "saf", "scales", "search", "table_5_1", "thresholds",
        "weights"),
    figures=("convergence", "maps", "months", "pure", "saf", "search", "weekly"),
    datasets=("mixed-{any}-{trace}-{any}", "mixed-{any}-{any}-{trace}-{any}"),
    feeds={"table_5_1": "Table 5.1", "thresholds": Elsewhere("thresholds", "Tables 5.2-5.5")})
