"""The parameters of the thresholds study, declared once (:class:`Params`;
defaults = the quick profile), its choices, and the values of the papers it
compares with (:data:`PUBLISHED`, :data:`THESIS_TABLE_5_6`), read from
``published.toml``.  The choices the cells read (:data:`FINISH`,
:data:`METRICS`, :data:`THESIS_WEEKS`, :data:`CHECK_POLICIES`) live in
:mod:`.cells`."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass
from typing import Any

from ...engine import sim
from ...workloads import workload
from ... import validators
from ...workloads import traces as _traces
from ...errors import InputError
from ...protocol.scorecard import Elsewhere
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from ...declared import durations
from ...workloads.traces import TraceInfo
from .. import load_published
from .cells import CHECK_POLICIES, FINISH, METRICS, THESIS_WEEKS

STUDY = name_of(__name__)
#: The fewest jobs a log may hold for this study (the driver refuses fewer,
#: schedlab.protocol.study.cleaning_records): Fig. 5 measures the maximum
#: waits relative to the baseline's, which needs a job that waits behind another.
MIN_JOBS = 2
MIN_JOBS_WHY = "Fig. 5's waits are relative to the baseline's maximum wait: some job must wait behind another"

# ----------------------------------------------------------------- sources --

LELONG = ("lelong2017: J. Lelong, V. Reis, D. Trystram, Tuning EASY-Backfilling Queues, "
          "JSSPP 2017")

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, "
          "ch. 5")


# --------------------------------------------------------- published values --

#: The thesis' threshold columns, in seconds (None: no threshold): "2.31 days"
#: is 200000 s (thesis §5.8), "20 hours" 72000 s.
THESIS_THRESHOLDS: tuple[int | None, ...] = (None, 200000, 72000)
#: thesis §5.8, Tables 5.2-5.5 in ``published.toml``, one per trace.
_THESIS_SUM_TABLES = ("thesis_table_5_2", "thesis_table_5_3", "thesis_table_5_4", "thesis_table_5_5")


def _published() -> dict[str, Any]:
    """``published.toml``, each table checked for the shape the study reads."""
    data = load_published("schedlab.studies.thresholds")
    for key in _THESIS_SUM_TABLES:
        t = data[key]
        if t["columns"] != data[_THESIS_SUM_TABLES[0]]["columns"] or len(t["columns"]) != len(THESIS_THRESHOLDS):
            raise InputError(f"thresholds/published.toml: {key}: columns {t['columns']}, expected one per "
                             f"threshold {THESIS_THRESHOLDS}, as in the other thesis tables")
        for pol, row in t["values"].items():
            if len(row) != len(THESIS_THRESHOLDS):
                raise InputError(f"thresholds/published.toml: {key} {pol}: {len(row)} values for "
                                 f"{len(THESIS_THRESHOLDS)} columns")
    return data


_DATA = _published()

#: Values published in the papers, quoted from their text and tables
#: (``published.toml`` cites each and quotes the text):
#: ``table_3`` trace -> (year, #CPUs, #jobs in thousands, duration in
#: months) of lelong2017 Table 3; ``fig8_gain_pct`` trace -> AvgWait
#: diminution (%) at T = 20 h (lelong2017 §7.4); ``fig8_cea_maxwait_s``
#: the learned and baseline mean MaxWait on CEA-Curie (§7.4);
#: ``sec_7_3`` the ranges of lelong2017 §7.3 without threshold and at 20 h;
#: ``thesis`` trace -> policy -> the thesis' (no threshold, 2.31 days,
#: 20 hours) sums of the weekly mean bsld (Tables 5.2-5.5).
PUBLISHED: dict[str, Any] = {
    "table_3": {trace: tuple(row) for trace, row in _DATA["table_3"]["values"].items()},
    "fig8_gain_pct": _DATA["fig8_gain_pct"]["values"],
    "fig8_cea_maxwait_s": _DATA["fig8_cea_maxwait_s"]["values"],
    "sec_7_3": _DATA["sec_7_3"]["values"],
    "thesis": {_DATA[key]["trace"]: {pol: tuple(row) for pol, row in _DATA[key]["values"].items()}
               for key in _THESIS_SUM_TABLES},
}

#: thesis §5.8, Table 5.6 "The jobs in SDSC-SP2 with the highest run_time that
#: make the 20h threshold unreasonable": (job_ID, submit_time, run_time, number_processors).
THESIS_TABLE_5_6 = tuple(tuple(row) for row in _DATA["thesis_table_5_6"]["values"])

#: The thesis' name of each threshold column.
THESIS_COLUMN_NAMES = dict(zip(THESIS_THRESHOLDS, _DATA[_THESIS_SUM_TABLES[0]]["columns"]))
#: Thesis table number of each trace.
THESIS_TABLES = {_DATA[key]["trace"]: _DATA[key]["table"] for key in _THESIS_SUM_TABLES}


# ---------------------------------------------------------------- choices --

#: The thesis' traces (Tables 5.2-5.5), in the order of its tables.
THESIS_TRACES = tuple(THESIS_TABLES)

#: The five logs of lelong2017 Table 3.
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")
#: The thresholds of the papers' sweep (the full profile) and of the quick one.
PAPER_THRESHOLDS: tuple[str, ...] = ("2h", "5h", "10h", "20h", "40h", "60h", "100h", "none")
QUICK_THRESHOLDS: tuple[str, ...] = ("2h", "5h", "10h", "20h", "50h", "none")

CRITERIA = ("mean", "mean-ratio")
BASELINE = ("FCFS", "FCFS")
LEVEL = 0.95
N_BOOT = 2000
HOUR = 3600.0

__all__ = ["STUDY", "LELONG", "THESIS", "PUBLISHED", "THESIS_TABLE_5_6", "THESIS_COLUMN_NAMES", "THESIS_TABLES",
           "THESIS_THRESHOLDS", "THESIS_WEEKS", "THESIS_TRACES", "DEFAULT_TRACES", "PAPER_THRESHOLDS",
           "QUICK_THRESHOLDS", "CRITERIA", "FINISH", "METRICS", "BASELINE", "LEVEL", "N_BOOT", "HOUR",
           "CHECK_POLICIES", "parse_thresholds", "Params"]


# -------------------------------------------------------------- parameters --

def parse_thresholds(value, what: str = "thresholds", sort: bool = True) -> tuple[int | None, ...]:
    """Thresholds in seconds (None: no threshold) from a list of durations
    (``"20h"``, ``72000``, ``"2.31d"``, ``"none"``; :func:`schedlab.declared.durations`);
    sorted, none last, unless ``sort=False`` (given order kept)."""
    out = durations(validators.as_list(value, what), what)
    return tuple(sorted(out, key=lambda t: (t is None, t or 0))) if sort else out


def _none(value) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null"))


def _part_traces(value, name: str) -> tuple[TraceInfo, ...]:
    """Traces read as every study reads ``traces`` (:func:`schedlab.workloads.traces.trace_tuple`:
    registry names or SWF paths); an empty list (``[]``) skips the part."""
    if not isinstance(value, TraceInfo) and not validators.as_list(value, name, none_is_empty=True):
        return ()
    return _traces.trace_tuple(value, name)


def _sweep_traces(value, name: str):
    """None (= ``traces``, filled in by :class:`Params`), or the traces of the sweep ([]: none)."""
    return None if value is None else _part_traces(value, name)


def _one_trace(value, name: str) -> TraceInfo | None:
    """One trace (registry name or SWF path, read as ``traces`` is) or None."""
    if _none(value):
        return None
    infos = _traces.trace_tuple(value, name)
    if len(infos) != 1:
        raise InputError(f"{name}: expected one trace, got {len(infos)}")
    return infos[0]


def _threshold(value, name: str) -> int:
    t = validators.duration(value, name)
    if t is None:
        raise InputError(f"{name}: the conservative threshold of Figs. 5 and 8 must be a duration, e.g. 20h")
    return t


def _pair_policies(value, name: str) -> tuple[str, ...]:
    pols = validators.policy_names(value, name)
    if "FCFS" not in pols:
        raise InputError(f"{name}: FCFS must be one of them (EASY-FCFS-FCFS is the baseline)")
    if len(pols) < 2:
        raise InputError(f"{name}: give at least two policies (FCFS and another)")
    return pols


@dataclass(frozen=True)
class Params(StudyParams):
    """The thresholds study's parameters.  The defaults are the quick
    profile: 30 resampled weeks per half (the papers: 250), the threshold
    sweep on the four cheaper logs (CEA-Curie only at T = 20 h), the thesis
    tables (original weeks, cheap) at full size."""

    traces: tuple = param(DEFAULT_TRACES, check=_traces.trace_tuple,
                          help="logs of the T = 20 h train/test comparison (Fig. 8): registry names or SWF paths")
    sweep_traces: tuple | None = param(DEFAULT_TRACES[:4], check=_sweep_traces,
                                       help="logs of the threshold sweep (Figs. 6-7), named as traces are "
                                            "(None: traces; []: no sweep)")
    thresholds: tuple = param(QUICK_THRESHOLDS, check=lambda v, n: parse_thresholds(v, n),
                              help="thresholds of the sweep (durations or none; sorted, none last)")
    threshold: int = param("20h", unit="s", check=_threshold,
                           help="the conservative threshold T of Figs. 5 and 8 (lelong2017: 20h)")
    weeks: int = param(30, unit="weeks", check=lambda v, n: validators.integer(v, n, 2),
                       help="resampled weeks per half, and for Fig. 5 (the papers: 250)")
    policies: tuple = param(sim.LELONG_POLICIES, check=_pair_policies,
                            help="policies of both queues (the pairs are their product; FCFS among them)")
    fig5_trace: TraceInfo | None = param("KTH-SP2", check=_one_trace,
                                         help="trace of Fig. 5, named as traces are (None: no Fig. 5)")
    fig5_backfill: str = param("SPF", check=lambda v, n: validators.policy_names([v], n)[0],
                               help="backfilling policy of Fig. 5")
    thesis_traces: tuple = param(THESIS_TRACES, check=_part_traces,
                                 help="traces of the thesis tables 5.2-5.5, named as traces are ([]: none)")
    thesis_thresholds: tuple = param(("none", 200000, "20h"),
                                     check=lambda v, n: parse_thresholds(v, n, sort=False),
                                     help="threshold columns of the thesis tables (none, 2.31 days, 20 hours)")
    thesis_policies: tuple = param(sim.BANDIT_POLICIES, check=validators.policy_names,
                                   help="policies of the thesis tables (EASY-P-P)")
    thesis_weeks: int | None = param(None, unit="weeks", check=validators.optional_integer,
                                     help="original weeks per trace (None: the thesis' 45 or 100, all the weeks "
                                          "after the first for another trace)")
    thesis_finish: str = param("recorded", check=lambda v, n: validators.choice(v, n, FINISH),
                               help="how a job crossing its week's end is judged: recorded (the log's finish "
                                    "time, as the thesis), run (r + p) or req (r + p~)")
    thesis_readings: bool = param(True, check=lambda v, n: validators.boolean(v, n),
                                  help="also compute the thesis tables under every candidate reading of the "
                                       "protocol (tau 10/60 s, crossing rule, week alignment; issue 30) and "
                                       "identify one on the SDSC-SP2 rows (false: the paper's text only)")
    seed: int = param(2017, check=lambda v, n: validators.integer(v, n, 0), help="seed of the resampled weeks")
    overrun: str = param("drop", check=lambda v, n: validators.choice(v, n, workload.OVERRUN_CHOICES),
                         help="jobs with p > p~: drop (lelong2017 §7.2) or kill")
    criterion: str = param("mean", check=lambda v, n: validators.choice(v, n, CRITERIA),
                           help="how the pair is learned on the training weeks: mean (lowest mean AvgWait) "
                                "or mean-ratio (lowest mean weekly ratio)")

    def __post_init__(self):
        if self.sweep_traces is None:
            object.__setattr__(self, "sweep_traces", self.traces)
        if self.sweep_traces and not self.thresholds:
            raise InputError("thresholds: give at least one threshold for the sweep (or sweep_traces: [])")
        if self.thesis_traces and not self.thesis_thresholds:
            raise InputError("thesis_thresholds: give at least one threshold (or thesis_traces: [])")
        if self.thesis_traces and not self.thesis_policies:
            raise InputError("thesis_policies: give at least one policy (or thesis_traces: [])")


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'thresholds': ['2h', None],
 'weeks': 4,
 'policies': ['FCFS', 'SPF'],
 'thesis_policies': ['FCFS', 'SPF', 'SAF'],
 'sweep_traces': None}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("fig5", "fig8", "fig8_maxwait", "sec73", "table3", "thesis_5_6", "thesis_checks", "thesis_readings",
        "thesis_{trace}", "traintest"),
    figures=("fig5", "fig8", "sweep", "thesis"),
    datasets=("fig5", "fig5_baseline", "thesis", "traintest"),
    feeds={"fig8": "Fig. 8", "fig8_maxwait": "text", "thesis_checks": "Tables 5.2-5.5",
           "thesis_[a-z]*": "Tables 5.2-5.5",
           "table3": Elsewhere("traces", "Table 3 (= gaussier2015 Table 4)")})
