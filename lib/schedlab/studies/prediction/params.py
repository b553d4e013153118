"""The parameters of the runtime-prediction study, declared once
(:class:`Params`; defaults = the quick profile), and the choices they read."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass

from ...engine import prediction
from ...workloads import workload
from ... import validators
from ...workloads import columns as _columns
from ...workloads import traces as _traces
from ...errors import InputError
from ...protocol.scorecard import Elsewhere
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from .cells import estimate_labels

STUDY = name_of(__name__)

#: The five bundled logs of gaussier2015 (Table 4 without Metacentrum).
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")
#: Logs of the paper that we do not have.
LACKING: tuple[str, ...] = ("Metacentrum",)
#: Correction mechanisms of gaussier2015 §5.2 (names of ``schedlab.engine.sim``).
CORRECTIONS: tuple[str, ...] = ("requested", "incremental", "doubling")
#: Backfilling orders: FCFS (EASY) and SJBF (EASY-SJBF), the primary queue is FCFS.
BACKFILLS: tuple[str, ...] = ("FCFS", "SJBF")

#: Words meaning "no limit" for weeks and max_jobs.
_NONE = ("", "none", "null", "all")


def _losses(value, name: str) -> tuple[str, ...]:
    """``"all"`` (the 20 of :data:`schedlab.engine.prediction.LOSSES`) or loss names
    (``"E-Loss"``, ``"sq/lin/log(qp)"`` ...), each once: canonical names."""
    if isinstance(value, str) and value.strip().lower() == "all":
        return tuple(x.name for x in prediction.LOSSES)
    out: list[str] = []
    for i, x in enumerate(validators.as_list(value, name)):
        try:
            loss = prediction.Loss.parse(x).name
        except InputError as exc:
            raise InputError(f"{name}[{i}]: {exc}") from None
        if loss in out:
            raise InputError(f"{name}: {loss} is given twice")
        out.append(loss)
    if not out:
        raise InputError(f"{name}: give 'all' or at least one loss name such as 'E-Loss'")
    return tuple(out)


def _own_estimates(value, name: str) -> tuple[str, ...]:
    """Your own runtime estimates: ``col:NAME`` (a per-job column, see
    ``columns``) or ``py:module:name`` (a Python Estimator, imported here to
    check it and again by each worker), each once."""
    from ...engine import sim

    out = []
    for i, item in enumerate(validators.as_names(value, name, none_is_empty=True)):
        item = item.strip()
        if item.startswith("col:"):
            _columns.check_name(item[4:], f"{name}[{i}]")
        elif item.startswith(sim.PYTHON_PREFIX):
            try:
                sim.python_estimator(item)
            except InputError as exc:
                raise InputError(f"{name}[{i}]: {exc}") from None
        else:
            raise InputError(f"{name}[{i}]: {item!r}: expected col:NAME (a column) or py:module:name (an Estimator)")
        if item in out:
            raise InputError(f"{name}: {item!r} is listed twice")
        out.append(item)
    return tuple(out)


def _some_of(allowed: tuple[str, ...], what: str, upper: bool = False):
    """A validator: some of ``allowed``, in the order given, each once."""
    def read(value, name: str) -> tuple[str, ...]:
        items = tuple(str(x).strip().upper() if upper else str(x).strip() for x in validators.as_names(value, name))
        if not items:
            raise InputError(f"{name}: give at least one of {allowed}")
        for x in items:
            if x not in allowed:
                raise InputError(f"{name}: {x!r} is not one of {allowed}")
        if len(set(items)) != len(items):
            raise InputError(f"{name}: {what} is given twice")
        return items
    return read


@dataclass(frozen=True)
class Params(StudyParams):
    """The runtime-prediction study's parameters.  The defaults are the
    quick profile: the paper's whole grid on a two-week window of each log."""

    traces: tuple = param(DEFAULT_TRACES, check=_traces.trace_tuple,
                          help="logs: registry names (schedlab traces list) or SWF paths (header with MaxProcs)")
    losses: tuple = param("all", check=_losses,
                          help="learned losses: 'all' (the paper's 20) or names, e.g. [E-Loss, sq/sq/1]")
    corrections: tuple = param(CORRECTIONS, check=_some_of(CORRECTIONS, "a correction"),
                               help="corrections of an outlived estimate: some of requested, incremental, doubling")
    backfills: tuple = param(BACKFILLS, check=_some_of(BACKFILLS, "a backfilling order", upper=True),
                             help="backfilling orders: FCFS (EASY) and/or SJBF (EASY-SJBF)")
    weeks: int | None = param(2, unit="weeks", check=lambda v, n: validators.optional_integer(v, n, 1, _NONE),
                              help="window of each log: weeks simulated (None: to the end of the log)")
    skip_weeks: int = param(5, unit="weeks", check=lambda v, n: validators.integer(v, n, 0),
                            help="window of each log: starts this long after its first submission")
    max_jobs: int | None = param(None, unit="jobs", check=lambda v, n: validators.optional_integer(v, n, 1, _NONE),
                                 help="window of each log: at most its first max_jobs jobs (None: all)")
    eta: float = param(prediction.DEFAULT_ETA, unit="s", check=lambda v, n: validators.number(v, n, 0.0, low_open=True),
                       help="learning rate of the Normalized Adaptive Gradient")
    lam: float = param(prediction.DEFAULT_LAM, check=lambda v, n: validators.number(v, n, 0.0),
                       help="L2 penalty of the learned regression")
    overrun: str = param("kill", check=lambda v, n: validators.choice(v, n, workload.OVERRUN_CHOICES),
                         help="cleaning of jobs with p > p~: kill (kept, killed at p~) or drop")
    extra_estimates: tuple = param((), check=_own_estimates,
                                   help="your own estimates beside the paper's: col:NAME (a column of columns) or "
                                        "py:module:name (a Python Estimator, slow), under every correction and "
                                        "backfilling order")
    columns: tuple = param((), check=_columns.study_columns,
                           help="per-job columns your estimates read as col:NAME: {NAME: a file of 'job id,value' "
                                "lines, or 'module:function' of the cleaned jobs}")

    @property
    def estimates(self) -> list[str]:
        """The ``estimate`` labels of the grid: clairvoyant, requested, easy++, learned:<loss>..."""
        return estimate_labels(self.losses) + list(self.extra_estimates)


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'losses': ['E-Loss'],
 'corrections': ['requested', 'incremental'],
 'backfills': ['FCFS', 'SJBF'],
 'weeks': 2,
 'skip_weeks': 0,
 'max_jobs': 150}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("correlations", "selected", "slowdown", "table1", "table4", "table6", "table7", "table8"),
    figures=("errors", "predicted", "triples"),
    datasets=("prediction", "timing"),
    feeds={"table1": "Table 1", "table4": Elsewhere("traces", "Table 3 (= gaussier2015 Table 4)"),
           "table6": "Table 6", "table7": "Table 7"})
