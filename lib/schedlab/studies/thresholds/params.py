"""The parameters of the thresholds study (:class:`Params`, :func:`validate`),
its defaults and choices, and the values of the papers it compares with
(:data:`PUBLISHED`, :data:`THESIS_TABLE_5_6`), read from ``published.toml``."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import paths, sim, workload
from ... import values as check
from ...errors import InputError
from .. import load_published

STUDY = "thresholds"

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

#: The weeks the thesis used per trace (thesis §5.2) and its traces (Tables 5.2-5.5).
THESIS_WEEKS = {"SDSC-SP2": 100, "SDSC-BLUE": 100, "KTH-SP2": 45, "CTC-SP2": 45}
THESIS_TRACES = tuple(THESIS_TABLES)

#: The five logs of lelong2017 Table 3 (the notebook's default).
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")
DEFAULT_THRESHOLDS: tuple[str, ...] = ("2h", "5h", "10h", "20h", "40h", "60h", "100h", "none")

CRITERIA = ("mean", "mean-ratio")
FINISH = ("recorded", "run", "req")
#: Metrics every simulation cell of the study records.
METRICS = ["avg_wait", "max_wait", "mean_bsld", "jobs"]
BASELINE = ("FCFS", "FCFS")
LEVEL = 0.95
N_BOOT = 2000
HOUR = 3600.0

#: The policies on which the thesis checks are run (when simulated at all).
CHECK_POLICIES = ("FCFS", "SPF", "SAF")


# -------------------------------------------------------------- parameters --

def threshold_label(seconds: int | None) -> str:
    """Canonical label of a threshold: ``"none"``, ``"20h"``, ``"200000s"``."""
    return sim.format_duration(seconds)


def parse_thresholds(value, what: str = "thresholds", sort: bool = True) -> tuple[int | None, ...]:
    """Thresholds in seconds (None: no threshold) from a list of durations
    (``"20h"``, ``72000``, ``"2.31d"``, ``"none"``); sorted, none last,
    unless ``sort=False`` (given order kept)."""
    items = check.as_list(value, what)
    out: list[int | None] = []
    for i, item in enumerate(items):
        t = check.duration(item, f"{what}[{i}]")
        if t in out:
            raise InputError(f"{what}: {threshold_label(t)} is given twice")
        out.append(t)
    return tuple(sorted(out, key=lambda t: (t is None, t or 0))) if sort else tuple(out)


@dataclass(frozen=True)
class TraceRef:
    """A trace as the cells see it (``spec``: registry name or absolute
    path) and as the tables name it (``name``)."""

    spec: str
    name: str
    m: int | None


def _trace_refs(value, what: str) -> tuple[TraceRef, ...]:
    """The traces of parameter ``what`` (:func:`schedlab.values.trace_list`),
    none for an empty list, each named once."""
    items = check.as_list(value, what)
    if not items:
        return ()
    given = [str(item).strip().lower() for item in items]
    for i, item in enumerate(given):
        if item in given[:i]:
            raise InputError(f"{what}: {str(items[i]).strip()!r} is given twice")
    return tuple(TraceRef(info.name if info.registered else str(Path(info.path).resolve()), info.name, info.m)
                 for info in check.trace_list(items, what))


@dataclass(frozen=True)
class Params:
    """The validated parameters of the study (see :func:`validate`)."""

    traces: tuple[TraceRef, ...]
    sweep_traces: tuple[TraceRef, ...]
    thresholds: tuple[int | None, ...]
    threshold: int
    weeks: int
    policies: tuple[str, ...]
    fig5_trace: TraceRef | None
    fig5_backfill: str
    thesis_traces: tuple[TraceRef, ...]
    thesis_thresholds: tuple[int | None, ...]
    thesis_policies: tuple[str, ...]
    thesis_weeks: int | None
    thesis_finish: str
    seed: int
    overrun: str
    criterion: str
    workers: int
    outdir: Path
    cache_dir: Path

    def as_dict(self) -> dict[str, Any]:
        tr = lambda refs: [r.name for r in refs]  # noqa: E731
        return {
            "traces": tr(self.traces), "sweep_traces": tr(self.sweep_traces),
            "thresholds": [threshold_label(t) for t in self.thresholds],
            "threshold": threshold_label(self.threshold), "weeks": self.weeks,
            "policies": list(self.policies),
            "fig5_trace": self.fig5_trace.name if self.fig5_trace else None,
            "fig5_backfill": self.fig5_backfill, "thesis_traces": tr(self.thesis_traces),
            "thesis_thresholds": [threshold_label(t) for t in self.thesis_thresholds],
            "thesis_policies": list(self.thesis_policies), "thesis_weeks": self.thesis_weeks,
            "thesis_finish": self.thesis_finish, "seed": self.seed, "overrun": self.overrun,
            "criterion": self.criterion, "workers": self.workers, "outdir": str(self.outdir),
            "cache_dir": str(self.cache_dir),
        }


def validate(traces=DEFAULT_TRACES, sweep_traces=None, thresholds=DEFAULT_THRESHOLDS,
             threshold="20h", weeks=250, policies=sim.LELONG_POLICIES, fig5_trace="KTH-SP2",
             fig5_backfill="SPF", thesis_traces=THESIS_TRACES, thesis_thresholds=("none", 200000, "20h"),
             thesis_policies=sim.BANDIT_POLICIES, thesis_weeks=None, thesis_finish="recorded",
             seed=2017, overrun="drop", criterion="mean", workers=2, outdir=None,
             cache_dir=None) -> Params:
    """Check every parameter of the study; raise :class:`InputError` saying
    what is wrong.  Lists may be given as lists, YAML list text or
    comma-separated strings (papermill passes them as strings).

    * ``traces``: the logs of the T = 20 h train/test comparison (Fig. 8);
    * ``sweep_traces``: the logs of the threshold sweep (Figs. 6-7); None
      means ``traces``; ``[]`` skips the sweep;
    * ``thresholds``: the sweep's thresholds (durations or ``"none"``);
    * ``threshold``: the conservative threshold of Figs. 5 and 8 (20 h);
    * ``weeks``: resampled weeks per half (and for Fig. 5), >= 2;
    * ``policies``: the policies of both queues (the pairs are their
      product); must include FCFS (the baseline);
    * ``fig5_trace`` (None skips Fig. 5) and ``fig5_backfill``;
    * ``thesis_traces`` (``[]`` skips the thesis tables), ``thesis_thresholds``,
      ``thesis_policies``, ``thesis_weeks`` (None: the thesis' 45 or 100, all
      the weeks after the first for another trace) and ``thesis_finish``;
    * ``seed``, ``overrun`` (``"drop"``: lelong2017 §7.2), ``criterion``,
      ``workers``, ``outdir`` (None: ``results/thresholds``) and
      ``cache_dir`` (None: ``results/cache``).
    """
    trs = _trace_refs(traces, "traces")
    if not trs:
        raise InputError("traces: give at least one trace (e.g. KTH-SP2)")
    sweep = trs if sweep_traces is None else _trace_refs(sweep_traces, "sweep_traces")
    ths = parse_thresholds(thresholds, "thresholds")
    thr = check.duration(threshold, "threshold")
    if thr is None:
        raise InputError("threshold: the conservative threshold of Figs. 5 and 8 must be a duration, "
                         "e.g. 20h")
    if sweep and not ths:
        raise InputError("thresholds: give at least one threshold for the sweep (or sweep_traces: [])")
    pols = check.policy_names(policies, "policies")
    if "FCFS" not in pols:
        raise InputError("policies: FCFS must be one of them (EASY-FCFS-FCFS is the baseline)")
    if len(pols) < 2:
        raise InputError("policies: give at least two policies (FCFS and another)")
    f5 = None
    if fig5_trace is not None and str(fig5_trace).strip().lower() not in ("", "none"):
        f5 = _trace_refs([fig5_trace], "fig5_trace")[0]
    f5b = check.policy_names([fig5_backfill], "fig5_backfill")[0]
    th_tr = _trace_refs(thesis_traces, "thesis_traces")
    th_ths = parse_thresholds(thesis_thresholds, "thesis_thresholds", sort=False)
    if th_tr and not th_ths:
        raise InputError("thesis_thresholds: give at least one threshold (or thesis_traces: [])")
    th_pols = check.policy_names(thesis_policies, "thesis_policies")
    if th_tr and not th_pols:
        raise InputError("thesis_policies: give at least one policy (or thesis_traces: [])")
    th_weeks = None
    if thesis_weeks is not None and str(thesis_weeks).strip().lower() not in ("", "none"):
        th_weeks = check.integer(thesis_weeks, "thesis_weeks", 1)
    if thesis_finish not in FINISH:
        raise InputError(f"thesis_finish: expected one of {FINISH}, got {thesis_finish!r}")
    if overrun not in workload.OVERRUN_CHOICES:
        raise InputError(f"overrun: expected one of {workload.OVERRUN_CHOICES}, got {overrun!r}")
    if criterion not in CRITERIA:
        raise InputError(f"criterion: expected one of {CRITERIA}, got {criterion!r}")
    return Params(
        traces=trs, sweep_traces=sweep, thresholds=ths, threshold=thr,
        weeks=check.integer(weeks, "weeks", 2), policies=pols, fig5_trace=f5, fig5_backfill=f5b,
        thesis_traces=th_tr, thesis_thresholds=th_ths, thesis_policies=th_pols,
        thesis_weeks=th_weeks, thesis_finish=thesis_finish, seed=check.integer(seed, "seed", 0),
        overrun=overrun, criterion=criterion, workers=check.integer(workers, "workers", 1),
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"),
    )
