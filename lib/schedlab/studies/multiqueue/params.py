"""The parameters of the multiple-queue study, declared once
(:class:`Params`; defaults = the quick profile), and the choices they read."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass
from pathlib import Path

from ... import validators
from ...errors import InputError
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from ...workloads import traces as _traces
from ...workloads.traces import TraceInfo
from .cells import CRITERIA, ESTIMATES, PMAX, REPLAYS, TRIGGERS, TraceRef

__all__ = ["STUDY", "DEFAULT_TRACES", "PAPER_WEEKS", "THRESHOLDS", "HORIZONS", "PMAX", "PMAX_LIMIT", "ESTIMATES",
           "REPLAYS", "TRIGGERS", "CRITERIA", "FIG8_TRACE", "FIG8_PARAMS", "PAPER_MACHINES", "TraceRef", "Params"]

STUDY = name_of(__name__)
DEFAULT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE")
#: Weeks simulated per trace: Table 2's "# Weeks" (``weeks: null``, the full profile).
PAPER_WEEKS = {"CTC-SP2": 48, "KTH-SP2": 48, "SDSC-SP2": 104, "SDSC-BLUE": 104}
THRESHOLDS = (2.5, 5.0, 7.5, 10.0, 25.0, 50.0, 75.0, 100.0)
HORIZONS = (1, 2)
#: The largest number of partitions the study accepts (pmax).
PMAX_LIMIT = 16
#: The trace of the paper's Figs. 8-9.
FIG8_TRACE = "CTC-SP2"
#: Figure 8/9's parameter choices (T, L) for CTC (our reading, see PUBLISHED_NOTES).
FIG8_PARAMS = ((5.0, 1), (5.0, 2), (100.0, 1), (100.0, 2))
#: The machine sizes lawson2005 simulates where they differ from the registry's m (published.toml's
#: note): CTC on 512 nodes, where the PWA log's batch partition (our m) is 338.  A reading of the
#: scorecard (``paper_machines``); Blue Horizon's 144 nodes of 8 processors would need whole-node
#: allocation, which the engine does not model, so it is not among them.
PAPER_MACHINES = {"CTC-SP2": 512}


def _weeks(value, name: str):
    """None (the paper's Table 2 sizes for its traces, else whole traces), one
    integer for every trace, or a mapping trace (name or path) -> integer."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        return None
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            info = _traces.trace_list([k], f"{name}[{k}]")[0]
            out[info.name] = validators.integer(v, f"{name}[{info.name}]", 1)
        return out
    return validators.integer(value, name, 1)


def _sorted_unique(read):
    """A validator: the items of a list, each read by ``read(item, name)``, sorted, each once, at least one."""
    def validate(value, name: str) -> tuple:
        out = tuple(sorted({read(x, name) for x in validators.as_list(value, name)}))
        if not out:
            raise InputError(f"{name}: give at least one value")
        return out
    return validate


def _ordered_choices(allowed: tuple[str, ...]):
    """A validator: some of ``allowed``, in the order given (the first one
    matters), repeats dropped, at least one."""
    def validate(value, name: str) -> tuple[str, ...]:
        out = tuple(dict.fromkeys(validators.choice(x, name, allowed) for x in validators.as_list(value, name)))
        if not out:
            raise InputError(f"{name}: give at least one of {list(allowed)}")
        return out
    return validate


def _pmax(value, name: str) -> int:
    v = validators.integer(value, name, 1)
    if v > PMAX_LIMIT:
        raise InputError(f"{name}: expected an integer between 1 and {PMAX_LIMIT}, got {value!r}")
    return v


def _one_trace(value, name: str):
    """A trace (registry name or SWF path, read as ``traces`` is) or None."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null")):
        return None
    infos = _traces.trace_list(value, name)
    if len(infos) != 1:
        raise InputError(f"{name}: expected one trace, got {len(infos)}")
    return infos[0]


def _pairs(value, name: str) -> tuple[tuple[float, int], ...]:
    """(T, L) pairs: ``[[5, 1], [5, 2]]`` or ``["5/1", "5/2"]``."""
    out = []
    for i, x in enumerate(validators.as_list(value, name)):
        if isinstance(x, str) and "/" in x:
            x = x.split("/")
        x = list(x) if isinstance(x, (list, tuple)) else [x]
        if len(x) != 2:
            raise InputError(f"{name}[{i}]: expected a (T, L) pair, got {x!r}")
        out.append((validators.number(x[0], f"{name}[{i}] threshold", 1.0), validators.integer(x[1], f"{name}[{i}] horizon", 1)))
    if not out:
        raise InputError(f"{name}: give at least one (T, L) pair, e.g. [[5, 1], [5, 2]]")
    return tuple(out)


@dataclass(frozen=True)
class Params(StudyParams):
    """The multiple-queue study's parameters.  The defaults are the quick
    profile: the paper's four traces cut to their first 20 weeks (the paper:
    48 or 104), the whole T/L grid of Table 3, user estimates for online
    simulation, both replays."""

    traces: tuple = param(DEFAULT_TRACES, check=_traces.trace_tuple,
                          help="traces: registry names or SWF paths")
    weeks: int | dict | None = param(20, unit="weeks", check=_weeks,
                                     help="weeks simulated from the first submission: an integer for every trace, "
                                          "{trace: weeks}, or None (the paper's Table 2 sizes, else whole traces)")
    thresholds: tuple = param(THRESHOLDS, check=_sorted_unique(lambda x, n: validators.number(x, n, 1.0)),
                              help="thresholds T (bounded slowdown) of the online-simulation grid (Table 3)")
    horizons: tuple = param(HORIZONS, unit="weeks", check=_sorted_unique(lambda x, n: validators.integer(x, n, 1)),
                            help="horizons L of the online-simulation grid (Table 3)")
    pmax: int = param(PMAX, check=_pmax,
                      help="largest number of partitions: online candidates 1..pmax; Figs. 4-5 use pmax")
    initial: int | None = param(None, check=lambda v, n: validators.optional_integer(v, n, 1),
                                help="partitions of the online policy at the start (None: pmax)")
    replays: tuple = param(REPLAYS, check=_ordered_choices(REPLAYS),
                           help="what online simulations replay, each run in turn (the first feeds Tables 1-2 and "
                                "Figs. 6-9): oracle (waiting jobs and those submitted in the horizon), queued")
    trigger: str = param("cumulative", check=lambda v, n: validators.choice(v, n, TRIGGERS),
                         help="the trigger measure: cumulative (every job completed so far) or week (the last week's)")
    online_estimates: tuple = param(("user",), check=_ordered_choices(tuple(ESTIMATES)),
                                    help="estimates of the online-simulation runs: user (the paper's) and/or exact")
    paper_machines: bool = param(True, check=validators.boolean,
                                 help="also run the counted replay on the paper's machine size where it differs "
                                      "from ours (CTC-SP2: 512 nodes, not 338): a reading the scorecard shows")
    fig8_trace: TraceInfo | None = param(None, check=_one_trace,
                               help="trace of Figs. 8-9, among traces (None: CTC-SP2, the paper's, when among "
                                    "traces, else no Figs. 8-9)")
    fig8_params: tuple = param(FIG8_PARAMS, check=_pairs, help="the (T, L) choices of Figs. 8-9")

    def __post_init__(self):
        names = [getattr(t, "name", t) for t in self.traces]
        if self.initial is None:
            object.__setattr__(self, "initial", self.pmax)
        elif isinstance(self.initial, int) and isinstance(self.pmax, int) and self.initial > self.pmax:
            raise InputError(f"initial: expected an integer between 1 and pmax = {self.pmax}, got {self.initial!r}")
        if self.fig8_trace is None:
            paper = next((t for t in self.traces if getattr(t, "name", t) == FIG8_TRACE), None)
            object.__setattr__(self, "fig8_trace", paper)
        elif getattr(self.fig8_trace, "name", self.fig8_trace) not in names:
            raise InputError(f"fig8_trace: {getattr(self.fig8_trace, 'name', self.fig8_trace)!r} is not among "
                             f"traces {names}")
        if isinstance(self.weeks, dict):
            unknown = [k for k in self.weeks if k not in names]
            if unknown:
                raise InputError(f"weeks: {unknown} not among traces {names}")

    def weeks_of(self, name: str) -> int | None:
        """Weeks simulated of trace ``name`` (None: the whole trace)."""
        if isinstance(self.weeks, dict):
            return self.weeks.get(name)
        if self.weeks is None:
            return PAPER_WEEKS.get(name)
        return self.weeks

    def machine_refs(self) -> dict[str, tuple[int, TraceRef]]:
        """Trace name -> (the paper's m, the trace as the cells load it at that m), for the registered
        traces of :data:`PAPER_MACHINES` (none unless ``paper_machines``)."""
        if not self.paper_machines:
            return {}
        out = {}
        for ref in self.refs:
            m = PAPER_MACHINES.get(ref.name)
            if m is not None and ref.spec == ref.name:          # the registry's trace, without choices of its own
                out[ref.name] = (m, TraceRef(f"{ref.spec}?m={m}", f"{ref.name}-m{m}", ref.weeks))
        return out

    @property
    def refs(self) -> tuple[TraceRef, ...]:
        """The traces as the cells load them, with their weeks."""
        return tuple(TraceRef(_traces.text(t), t.name, self.weeks_of(t.name)) for t in self.traces)


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'weeks': 3, 'thresholds': [1.5, 1000], 'horizons': [1]}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("fig4", "fig6", "table1", "table2", "table3", "table3_long"),
    figures=("fig4", "fig5", "fig6", "fig7", "fig8", "fig9"),
    datasets=("fixed", "online"),
    feeds={"fig4": "claim: Fig. 4", "fig6": "claim: Fig. 6", "table1": "Table 1", "table3_long": "Table 3"})
