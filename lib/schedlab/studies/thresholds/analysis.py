"""Study 3 -- thresholds and generalisation.

Reproduces, from the logs of the Parallel Workloads Archive:

* **lelong2017 §6, Fig. 5** -- the waiting-time threshold: the 7 primary
  policies (FCFS, LCFS, SPF, LPF, SQF, LQF, EXP = LEXP) with SPF backfilling,
  thresholded at T = 20 h and not, on resampled weeks of KTH-SP2; AvgWait and
  MaxWait relative to EASY-FCFS-FCFS (:func:`threshold_effect`).
* **lelong2017 §7, Figs. 6-8** -- the train/test protocol: each trace is split
  at its temporal midpoint (:func:`schedlab.workload.split`), weeks are
  resampled from each half (:func:`schedlab.workload.resample_weeks`), the
  best of the 49 EASY-P_R-P_B pairs is picked on the training weeks and
  evaluated on the testing weeks (:func:`train_test`); swept over T (Figs. 6-7)
  and at T = 20 h for the five logs of Table 3 (Fig. 8 and the AvgWait
  diminutions of §7.4).  Every gain over EASY-FCFS-FCFS comes with a 95 %
  bootstrap confidence interval over the resampled weeks
  (:func:`schedlab.stats.bootstrap_ci`).
* **thesis §5.8, Tables 5.2-5.5** -- 12 pure policies, no threshold / 2.31
  days (200000 s) / 20 h, on the original weeks of four traces (thesis §5.2:
  the first week skipped, 45 consecutive weeks of KTH-SP2 and CTC-SP2, 100 of
  SDSC-SP2 and SDSC-BLUE, the jobs crossing a week's end removed)
  (:func:`thesis_tables`).

Each published table is shown beside ours, with the difference.  The grids
run through :mod:`schedlab.campaign` (dask, cached, resumable); the notebook
``notebooks/02-thresholds.ipynb`` validates its parameters (:func:`validate`)
and calls :func:`run`.

Definitions (the choices where the papers are terse are written here, once):

* **Cleaning** (lelong2017 §7.2): :func:`schedlab.workload.clean` with
  ``overrun="drop"`` (jobs with p > p~ removed; q > m removed); m from the
  registry (CEA-Curie: the 80640 cores of its thin nodes).  The thesis does not
  say how it cleaned; the same cleaning is used (its job counts, thesis Table
  3.1, are within 1-2 % of what this cleaning keeps).
* **Weeks** (lelong2017 §4.1): ``weeks`` resampled weeks per half (per trace
  for Fig. 5), each simulated on its own, seeded by ``seed``.  Train and test
  weeks use the same seed but are drawn from different halves.
* **Threshold** (lelong2017 §6.1, ``csrc/SEMANTICS.md``): jobs whose wait
  exceeds T go to the head of the primary queue in FCFS order; the
  backfilling order is unchanged.  With FCFS as primary policy the threshold
  changes no decision, so the 7 FCFS-primary pairs are simulated once and
  shared by every T (a test checks the equivalence).
* **Baseline**: EASY-FCFS-FCFS without threshold, on the same weeks (paired).
* **Selection** (lelong2017 §7.1, Fig. 6): the learned pair is the pair with
  the lowest mean AvgWait over the training weeks (``criterion="mean"``;
  equivalently the lowest mean AvgWait relative to the baseline's mean, or the
  lowest mean weekly difference with the baseline, the paper's Fig. 8 axis).
  ``criterion="mean-ratio"`` picks the lowest mean of the *weekly* ratios
  AvgWait / baseline AvgWait instead; the study reports which pair each picks.
* **Relative cost** of a pair: mean over the weeks of its cost / mean of the
  baseline's (ratio of means); the *gain* (lelong2017's "diminution") is
  100 x (1 - ratio), in %.  Its 95 % confidence interval is a paired
  percentile bootstrap over the weeks.  The mean of the weekly ratios is
  given beside it where the paper plots weekly-relative values (Fig. 5).
* **MaxWait**: per week, the largest wait of the week's jobs.  Fig. 5 uses
  the *maximum* over the weeks (the caption's definition) and the mean; Figs.
  6-8 the mean over the weeks (§7.4 quotes mean MaxWaits).
* **Thesis tables**: the value of a policy is the *sum over the weeks* of the
  weekly mean bounded slowdown (tau = 10 s), as in thesis Table 5.1 ("the sum
  of the average BSLD"); EASY-P-P (the policy orders both queues), threshold
  on the primary queue.  Weeks are consecutive 7-day periods from the first
  submission; a job belongs to the week of its submission and is removed when
  it crosses that week's end, judged (``thesis_finish``) by its finish time in
  the log (``"recorded"``, :func:`schedlab.workload.recorded_finish`, as the
  thesis did), by r + p (``"run"``) or by r + p~ (``"req"``).
"""
from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ... import __version__, campaign, paths, plots, sim, stats, workload
from ... import traces as _traces
from ...errors import InputError
from .. import Table, write_json
from ... import values as check

__all__ = [
    "LELONG", "THESIS", "PUBLISHED", "DEFAULT_TRACES", "THESIS_TRACES", "THESIS_WEEKS",
    "THESIS_TABLES", "THESIS_THRESHOLDS", "CRITERIA", "FINISH", "METRICS", "Params", "validate",
    "threshold_label", "parse_thresholds", "ratio_of_means", "gain_ci", "select", "train_test",
    "TrainTest", "thesis_cell", "threshold_effect", "traintest_dataset", "generalisation",
    "thesis_tables", "run",
]

STUDY = "thresholds"

# ----------------------------------------------------------------- sources --

LELONG = ("lelong2017: J. Lelong, V. Reis, D. Trystram, Tuning EASY-Backfilling Queues, "
          "JSSPP 2017")
THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, "
          "ch. 5")

#: Values published in the papers, quoted from their text and tables.
PUBLISHED: dict[str, Any] = {
    # lelong2017 §7.2, Table 3 "Workload logs used in the simulations":
    # (year, #CPUs, #jobs in thousands, duration in months)
    "table_3": {
        "KTH-SP2": (1996, 100, 28, 11),
        "CTC-SP2": (1996, 338, 77, 11),
        "SDSC-SP2": (2000, 128, 59, 24),
        "SDSC-BLUE": (2003, 1152, 243, 32),
        "CEA-Curie": (2012, 80640, 312, 3),
    },
    # lelong2017 §7.4: "AvgWait average diminutions of 21%, 11%, 36%, 42% and
    # 29% respectively for the SDSC-BLUE, SDSC-SP2, CTC-SP2, CEA-CURIE, and
    # KTH-SP2 machines" (T = 20 h, learned policy on the testing weeks).
    "fig8_gain_pct": {"SDSC-BLUE": 21, "SDSC-SP2": 11, "CTC-SP2": 36, "CEA-Curie": 42, "KTH-SP2": 29},
    # lelong2017 §7.4: on CEA-Curie "the learned strategy's average MaxWait is
    # of 88747 compared to a value of 86680 for the baseline" (seconds).
    "fig8_cea_maxwait_s": {"learned": 88747, "baseline": 86680},
    # lelong2017 §7.3 (Figs. 6-7), testing AvgWait and MaxWait of the learned
    # policy relative to EASY-FCFS-FCFS, over the five logs:
    # no threshold: AvgWait "reduced until 80% to 65%", MaxWait "as high as 250%";
    # T = 20 h: AvgWait "reduced until 90% to 70%", MaxWait "under 175% ... in all cases".
    "sec_7_3": {"none": {"avg_low": 0.65, "avg_high": 0.80, "max_high": 2.50},
                "20h": {"avg_low": 0.70, "avg_high": 0.90, "max_high": 1.75}},
    # thesis §5.8, Tables 5.2-5.5: sum over the weeks of the weekly average
    # bounded slowdown, EASY with each pure policy, columns (no threshold,
    # 2.31 days, 20 hours).
    "thesis": {
        "SDSC-SP2": {
            "SAF": (1461.39, 1585.53, 2395.29), "SPF": (1467.70, 1689.55, 2447.58),
            "LCFS": (1739.24, 1940.71, 2471.02), "LEXP": (1936.93, 1955.04, 2496.97),
            "SQF": (1988.62, 2082.25, 2579.47), "SRF": (2426.40, 2475.90, 2818.35),
            "SEXP": (2519.32, 2484.96, 2864.63), "LRF": (2726.74, 2517.65, 2875.95),
            "FCFS": (2864.63, 2864.63, 2879.22), "LPF": (3277.66, 3020.96, 3064.14),
            "LQF": (4188.31, 4159.97, 3346.24), "LAF": (5322.73, 4811.85, 3525.13),
        },
        "SDSC-BLUE": {
            "SAF": (302.73, 311.83, 344.51), "SPF": (329.95, 328.88, 350.36),
            "LEXP": (384.27, 383.99, 396.27), "LCFS": (388.40, 392.03, 407.91),
            "SQF": (395.27, 401.76, 416.65), "SRF": (409.12, 418.78, 431.64),
            "SEXP": (468.82, 473.94, 465.08), "FCFS": (487.37, 487.37, 487.37),
            "LQF": (494.14, 493.77, 508.77), "LRF": (522.95, 526.12, 514.99),
            "LPF": (566.17, 554.11, 563.42), "LAF": (582.87, 578.66, 563.43),
        },
        "KTH-SP2": {
            "SAF": (501.16, 507.76, 632.93), "SPF": (554.63, 571.57, 638.55),
            "LEXP": (568.07, 573.80, 651.27), "SRF": (600.80, 590.25, 651.45),
            "LCFS": (679.75, 692.97, 768.40), "SQF": (772.55, 775.86, 784.52),
            "LQF": (797.87, 796.77, 786.36), "FCFS": (850.16, 850.16, 850.16),
            "SEXP": (882.39, 886.61, 889.64), "LRF": (1001.39, 961.17, 917.95),
            "LPF": (1066.83, 1023.84, 963.46), "LAF": (1076.52, 1026.10, 976.46),
        },
        "CTC-SP2": {
            "SAF": (190.95, 191.24, 219.51), "SQF": (238.50, 235.10, 248.85),
            "SPF": (254.26, 251.65, 251.64), "LEXP": (273.20, 273.20, 252.27),
            "LCFS": (276.91, 277.79, 273.96), "SRF": (281.82, 280.94, 283.89),
            "SEXP": (330.40, 325.02, 292.36), "LQF": (346.15, 346.27, 292.84),
            "LPF": (356.77, 357.75, 313.92), "FCFS": (357.75, 358.56, 341.83),
            "LRF": (366.45, 370.98, 357.75), "LAF": (466.47, 466.42, 386.57),
        },
    },
}

#: thesis §5.8, Table 5.6 "The jobs in SDSC-SP2 with the highest run_time that
#: make the 20h threshold unreasonable": (job_ID, submit_time, run_time, number_processors).
THESIS_TABLE_5_6 = (
    (28663, 14837924, 510209, 9), (28664, 14837963, 508420, 16), (8040, 7660725, 474510, 6),
    (25891, 13785409, 452520, 60), (9036, 8427638, 227033, 64), (31620, 17005431, 162564, 4),
    (31623, 17005453, 162536, 32), (17, 577685, 118561, 5), (14408, 12186754, 114369, 8),
    (34441, 19458401, 112013, 64),
)

#: The thesis' threshold columns, in seconds (None: no threshold): "2.31 days"
#: is 200000 s (thesis §5.8), "20 hours" 72000 s.
THESIS_THRESHOLDS: tuple[int | None, ...] = (None, 200000, 72000)
THESIS_COLUMN_NAMES = {None: "no threshold", 200000: "2.31 days", 72000: "20 hours"}
_THESIS_KEYS = {None: "none", 200000: "2_31d", 72000: "20h"}
#: Thesis table number of each trace and the weeks it used (thesis §5.2).
THESIS_TABLES = {"SDSC-SP2": "5.2", "SDSC-BLUE": "5.3", "KTH-SP2": "5.4", "CTC-SP2": "5.5"}
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


def _policies(value, what: str) -> tuple[str, ...]:
    items = check.as_list(value, what)
    out: list[str] = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise InputError(f"{what}[{i}]: expected a policy name such as SPF, got {item!r}")
        name = sim.Policy(item, item).primary
        if not isinstance(name, str):
            raise InputError(f"{what}[{i}]: mixed policies belong to the mixed-policies study")
        if name in out:
            raise InputError(f"{what}: {name} is given twice")
        out.append(name)
    return tuple(out)


@dataclass(frozen=True)
class TraceRef:
    """A trace as the cells see it (``spec``: registry name or absolute
    path) and as the tables name it (``name``)."""

    spec: str
    name: str
    m: int | None


def _trace_refs(value, what: str) -> tuple[TraceRef, ...]:
    out: list[TraceRef] = []
    for i, item in enumerate(check.as_list(value, what)):
        if not isinstance(item, (str, os.PathLike)) or not str(item).strip():
            raise InputError(f"{what}[{i}]: expected a registry name or a path to an SWF file, got {item!r}")
        try:
            info = _traces.resolve(os.fspath(item).strip())
        except InputError as exc:
            raise InputError(f"{what}[{i}]: {exc}") from None
        spec = info.name if info.registered else str(Path(info.path).resolve())
        if any(r.name.lower() == info.name.lower() for r in out):
            raise InputError(f"{what}: {info.name!r} is given twice")
        out.append(TraceRef(spec, info.name, info.m))
    return tuple(out)


def _dir(value, default: Path, what: str) -> Path:
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{what}: expected a directory path or None, got {value!r}")
    path = Path(os.fspath(value)).expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise InputError(f"{what}: {path} exists and is not a directory")
    return path


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
    pols = _policies(policies, "policies")
    if "FCFS" not in pols:
        raise InputError("policies: FCFS must be one of them (EASY-FCFS-FCFS is the baseline)")
    if len(pols) < 2:
        raise InputError("policies: give at least two policies (FCFS and another)")
    f5 = None
    if fig5_trace is not None and str(fig5_trace).strip().lower() not in ("", "none"):
        f5 = _trace_refs([fig5_trace], "fig5_trace")[0]
    f5b = _policies([fig5_backfill], "fig5_backfill")[0]
    th_tr = _trace_refs(thesis_traces, "thesis_traces")
    th_ths = parse_thresholds(thesis_thresholds, "thesis_thresholds", sort=False)
    if th_tr and not th_ths:
        raise InputError("thesis_thresholds: give at least one threshold (or thesis_traces: [])")
    th_pols = _policies(thesis_policies, "thesis_policies")
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
        outdir=_dir(outdir, paths.RESULTS / STUDY, "outdir"),
        cache_dir=_dir(cache_dir, paths.RESULTS / "cache", "cache_dir"),
    )


# ------------------------------------------------------------- statistics --

def _ratio_stat(a, axis=-1):
    """Ratio of the means of ``a[0]`` and ``a[1]`` along ``axis`` (NaN-aware)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nanmean(a[0], axis=axis) / np.nanmean(a[1], axis=axis)


def ratio_of_means(values, baseline) -> float:
    """mean(values) / mean(baseline) over the weeks where both are known."""
    v, b = _paired(values, baseline)
    return float(_ratio_stat(np.stack([v, b])))


def _paired(values, baseline) -> tuple[np.ndarray, np.ndarray]:
    v = np.asarray(values, dtype=float).reshape(-1)
    b = np.asarray(baseline, dtype=float).reshape(-1)
    if v.shape != b.shape:
        raise InputError(f"paired values of different lengths: {v.size} and {b.size}")
    ok = np.isfinite(v) & np.isfinite(b)
    return v[ok], b[ok]


def gain_ci(values, baseline, level: float = LEVEL, seed: int = 0,
            n_boot: int = N_BOOT) -> tuple[float, float, float]:
    """Gain over the baseline in %, 100 x (1 - mean(values) / mean(baseline)),
    with a paired percentile-bootstrap confidence interval over the weeks
    (:func:`schedlab.stats.bootstrap_ci`): (gain, low, high)."""
    v, b = _paired(values, baseline)
    if v.size == 0:
        return (float("nan"),) * 3
    est, lo, hi = stats.bootstrap_ci(np.stack([v, b]), axis=-1, level=level, n_boot=n_boot,
                                     seed=seed, stat=_ratio_stat)
    return 100.0 * (1.0 - float(est)), 100.0 * (1.0 - float(hi)), 100.0 * (1.0 - float(lo))


def select(train_avg, train_base, criterion: str = "mean") -> int:
    """Index of the learned pair: ``train_avg`` is (pairs, weeks) AvgWait on
    the training weeks, ``train_base`` the baseline's (weeks,).

    ``"mean"``: the lowest mean AvgWait; ``"mean-ratio"``: the lowest mean of
    the weekly ratios to the baseline.  Ties go to the first pair."""
    a = np.asarray(train_avg, dtype=float)
    if a.ndim != 2 or a.shape[0] == 0:
        raise InputError(f"select: expected a (pairs, weeks) array, got shape {a.shape}")
    if criterion == "mean":
        cost = np.nanmean(a, axis=1)
    elif criterion == "mean-ratio":
        cost = np.nanmean(stats.relative(a, np.asarray(train_base, dtype=float)[None, :]), axis=1)
    else:
        raise InputError(f"criterion: expected one of {CRITERIA}, got {criterion!r}")
    if np.all(np.isnan(cost)):
        raise InputError("select: no pair has a finite training cost")
    return int(np.nanargmin(cost))


@dataclass
class TrainTest:
    """The learned pair at one threshold and its costs (relative costs are
    ratios of means to EASY-FCFS-FCFS on the same weeks; gains in %)."""

    threshold: int | None
    pair: str
    index: int
    train_avg: float            # mean AvgWait of the learned pair, training weeks (s)
    test_avg: float             # the same on the testing weeks (s)
    train_base_avg: float
    test_base_avg: float
    train_avg_rel: float
    test_avg_rel: float
    train_max_rel: float        # mean MaxWait ratio of means
    test_max_rel: float
    test_max: float             # mean MaxWait, learned, testing weeks (s)
    test_base_max: float
    train_gain: float
    train_gain_ci: tuple[float, float]
    test_gain: float
    test_gain_ci: tuple[float, float]
    test_bsld_rel: float
    test_bsld_gain: float
    test_bsld_gain_ci: tuple[float, float]
    test_gain_weekly: float     # 100 x (1 - mean of the weekly ratios), testing weeks
    test_gain_weekly_ci: tuple[float, float]
    alt_pair: str = ""          # the pair the other criterion picks
    alt_test_gain: float = float("nan")
    train_diff: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    test_diff: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)


def train_test(names: Sequence[str], train: dict[str, np.ndarray], test: dict[str, np.ndarray],
               base_index: int, threshold: int | None = None, criterion: str = "mean",
               seed: int = 0) -> TrainTest:
    """The lelong2017 §7.1 protocol on simulated costs.

    ``train`` and ``test`` map ``"avg_wait"``, ``"max_wait"`` (and optionally
    ``"mean_bsld"``) to (pairs, weeks) arrays; ``names`` labels the pairs;
    ``base_index`` is the row of EASY-FCFS-FCFS.  The learned pair is
    :func:`select`'s on the training AvgWait; its costs are reported on both
    halves relative to the baseline's on the same weeks."""
    names = list(names)
    tr_a, te_a = np.asarray(train["avg_wait"], float), np.asarray(test["avg_wait"], float)
    tr_m, te_m = np.asarray(train["max_wait"], float), np.asarray(test["max_wait"], float)
    if tr_a.shape[0] != len(names) or te_a.shape[0] != len(names):
        raise InputError(f"train_test: {len(names)} names for {tr_a.shape[0]}/{te_a.shape[0]} pairs")
    if not 0 <= base_index < len(names):
        raise InputError(f"train_test: base_index {base_index} out of range")
    b = base_index
    i = select(tr_a, tr_a[b], criterion)
    other = CRITERIA[1 - CRITERIA.index(criterion)]
    j = select(tr_a, tr_a[b], other)
    g_tr = gain_ci(tr_a[i], tr_a[b], seed=seed)
    g_te = gain_ci(te_a[i], te_a[b], seed=seed)
    weekly = stats.relative(te_a[i], te_a[b])
    w_est, w_lo, w_hi = stats.bootstrap_ci(weekly, seed=seed, n_boot=N_BOOT, level=LEVEL)
    bsld, g_bsld = np.nan, (np.nan,) * 3
    if "mean_bsld" in test:
        tb = np.asarray(test["mean_bsld"], float)
        bsld = ratio_of_means(tb[i], tb[b])
        g_bsld = gain_ci(tb[i], tb[b], seed=seed)
    with np.errstate(invalid="ignore"):
        tr_diff = np.nanmean(tr_a, axis=1) - np.nanmean(tr_a[b])
        te_diff = np.nanmean(te_a, axis=1) - np.nanmean(te_a[b])
    return TrainTest(
        threshold=threshold, pair=names[i], index=i,
        train_avg=float(np.nanmean(tr_a[i])), test_avg=float(np.nanmean(te_a[i])),
        train_base_avg=float(np.nanmean(tr_a[b])), test_base_avg=float(np.nanmean(te_a[b])),
        train_avg_rel=ratio_of_means(tr_a[i], tr_a[b]), test_avg_rel=ratio_of_means(te_a[i], te_a[b]),
        train_max_rel=ratio_of_means(tr_m[i], tr_m[b]), test_max_rel=ratio_of_means(te_m[i], te_m[b]),
        test_max=float(np.nanmean(te_m[i])), test_base_max=float(np.nanmean(te_m[b])),
        train_gain=g_tr[0], train_gain_ci=g_tr[1:], test_gain=g_te[0], test_gain_ci=g_te[1:],
        test_bsld_rel=float(bsld), test_bsld_gain=g_bsld[0], test_bsld_gain_ci=g_bsld[1:],
        test_gain_weekly=100.0 * (1.0 - float(w_est)),
        test_gain_weekly_ci=(100.0 * (1.0 - float(w_hi)), 100.0 * (1.0 - float(w_lo))),
        alt_pair=names[j], alt_test_gain=100.0 * (1.0 - ratio_of_means(te_a[j], te_a[b])),
        train_diff=tr_diff, test_diff=te_diff,
    )


def _spearman(x, y) -> float:
    """Spearman rank correlation (average ranks for ties)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 3:
        return float("nan")

    def ranks(v):
        order = np.argsort(v, kind="stable")
        r = np.empty(v.size)
        r[order] = np.arange(v.size, dtype=float)
        for val in np.unique(v):        # average the ranks of ties
            tie = v == val
            r[tie] = r[tie].mean()
        return r
    rx, ry = ranks(x), ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


# ------------------------------------------------------------------ cells --

@functools.lru_cache(maxsize=16)
def _thesis_weeks(trace: str, m: int | None, overrun: str, skip_first: int, n_weeks: int | None,
                  finish: str) -> tuple[list, int]:
    """The original weeks of a trace as in thesis §5.2 (cached per process)."""
    info = _traces.resolve(trace)
    swf = _traces.load(trace)
    m = m or info.m
    jobs, _ = workload.clean(swf, m=m, overrun=overrun)
    fin = workload.recorded_finish(swf, jobs) if finish == "recorded" else finish
    weeks = workload.weeks(jobs, crossing="drop", skip_first=skip_first, finish=fin, shift=True)
    if n_weeks is not None:
        weeks = weeks[:n_weeks]
    return weeks, int(m or jobs.procs.max())


THESIS_CELL_PARAMS = {"trace": None, "m": None, "overrun": "drop", "skip_first": 1, "n_weeks": None,
                      "finish": "recorded", "primary": "FCFS", "backfill": "same", "threshold": None,
                      "threshold_backfill": False, "estimate": "requested", "metrics": None}


@campaign.register_cell("thresholds-thesis-weeks")
def thesis_cell(p: dict) -> dict:
    """Campaign cell: EASY-P_R-P_B on the original weeks of a trace (thesis
    §5.2: ``skip_first`` weeks skipped, then ``n_weeks`` consecutive weeks,
    jobs crossing their week's end removed by ``finish``); ``backfill="same"``
    orders both queues by ``primary``.  Returns each metric over ``week``."""
    unknown = set(p) - set(THESIS_CELL_PARAMS)
    if unknown:
        raise InputError(f"thesis cell: unknown parameter(s) {sorted(unknown)}; "
                         f"known: {sorted(THESIS_CELL_PARAMS)}")
    q = {**THESIS_CELL_PARAMS, **p}
    if q["trace"] is None:
        raise InputError("thesis cell: a 'trace' parameter is required")
    if q["finish"] not in FINISH:
        raise InputError(f"thesis cell: finish must be one of {FINISH}, got {q['finish']!r}")
    n = None if q["n_weeks"] is None else int(q["n_weeks"])
    sets, m = _thesis_weeks(str(q["trace"]), q["m"], q["overrun"], int(q["skip_first"]), n, q["finish"])
    back = q["primary"] if q["backfill"] == "same" else q["backfill"]
    policy = sim.Policy(q["primary"], back, q["threshold"], q["threshold_backfill"])
    metrics = tuple(q["metrics"] or METRICS)
    out = {k: np.full(len(sets), np.nan) for k in metrics}
    for i, jobs in enumerate(sets):
        if len(jobs) == 0:
            if "jobs" in out:
                out["jobs"][i] = 0
            continue
        s = sim.simulate(jobs, m, policy, estimate=q["estimate"]).summary()
        for k in metrics:
            out[k][i] = s[k]
    return {k: (("week",), v) for k, v in out.items()}


# ------------------------------------------------------------- campaigns --

def _base_params(p: Params, ref: TraceRef) -> dict:
    return {"trace": ref.spec, "overrun": p.overrun, "workload": "resample", "weeks": p.weeks,
            "seed": p.seed, "estimate": "requested"}


def fig5_campaigns(p: Params) -> list[campaign.Campaign]:
    """Fig. 5: the policies with ``fig5_backfill`` backfilling, at T and
    without threshold, on resampled weeks of the whole trace; and the baseline."""
    ref = p.fig5_trace
    name = f"thresholds-fig5-{ref.name}"
    base = {**_base_params(p, ref), "half": "all"}
    return [
        campaign.Campaign(name, {"threshold": [threshold_label(p.threshold), "none"],
                                 "primary": list(p.policies)},
                          {**base, "backfill": p.fig5_backfill}, metrics=METRICS),
        campaign.Campaign(name, {"primary": ["FCFS"]}, {**base, "backfill": "FCFS", "threshold": None},
                          metrics=METRICS),
    ]


def traintest_campaigns(p: Params, ref: TraceRef, thresholds) -> list[campaign.Campaign]:
    """The train/test grid of one trace: the non-FCFS primaries at every
    threshold, and the FCFS primaries once (the threshold changes nothing
    for them)."""
    name = f"thresholds-traintest-{ref.name}"
    base = _base_params(p, ref)
    others = [x for x in p.policies if x != "FCFS"]
    return [
        campaign.Campaign(name, {"half": ["train", "test"],
                                 "threshold": [threshold_label(t) for t in thresholds],
                                 "primary": others, "backfill": list(p.policies)}, base, metrics=METRICS),
        campaign.Campaign(name, {"half": ["train", "test"], "primary": ["FCFS"],
                                 "backfill": list(p.policies)}, {**base, "threshold": None},
                          metrics=METRICS),
    ]


def thesis_n_weeks(p: Params, ref: TraceRef) -> int | None:
    if p.thesis_weeks is not None:
        return p.thesis_weeks
    return THESIS_WEEKS.get(ref.name)


def thesis_campaign(p: Params, ref: TraceRef, finish=None, policies=None, thresholds=None
                    ) -> campaign.Campaign:
    return campaign.Campaign(
        f"thresholds-thesis-{ref.name}",
        {"finish": list(finish or [p.thesis_finish]),
         "threshold": [threshold_label(t) for t in (thresholds or p.thesis_thresholds)],
         "primary": list(policies or p.thesis_policies)},
        {"trace": ref.spec, "overrun": p.overrun, "skip_first": 1, "n_weeks": thesis_n_weeks(p, ref),
         "backfill": "same"},
        cell="schedlab.studies.thresholds:thesis_cell", metrics=METRICS)


# -------------------------------------------------------------- datasets --

def _provenance(parts) -> dict:
    return {"title": "schedlab study thresholds", "Conventions": "CF-1.10",
            "schedlab_version": __version__, "core_version": sim.VERSION,
            "campaigns": [dict(ds.attrs) for ds in parts]}


def traintest_dataset(parts, policies: Sequence[str], thresholds: Sequence[int | None]):
    """One dataset (half, threshold, primary, backfill, week) from the two
    campaigns of :func:`traintest_campaigns`: the FCFS-primary pairs are
    repeated over every threshold."""
    import xarray as xr

    grid, fcfs = parts
    labels = [threshold_label(t) for t in thresholds]
    fcfs = fcfs.expand_dims(threshold=labels).transpose("half", "threshold", "primary", "backfill", "week")
    fcfs = fcfs.assign_coords(threshold=("threshold", np.asarray(labels), grid.threshold.attrs))
    ds = xr.concat([fcfs, grid], dim="primary", data_vars="all", coords="minimal", compat="override",
                   join="override")
    ds = ds.sel(primary=list(policies))
    ds.attrs = _provenance(parts)
    return ds


def _pairs(ds) -> tuple[list[str], dict[str, dict[str, np.ndarray]]]:
    """Pair names and (pairs, weeks) arrays per half from a train/test slice
    with dims (half, primary, backfill, week)."""
    names = [f"EASY-{a}-{b}" for a in ds.primary.values for b in ds.backfill.values]
    out = {}
    for half in ("train", "test"):
        h = ds.sel(half=half)
        out[half] = {v: h[v].transpose("primary", "backfill", "week").values.reshape(len(names), -1)
                     for v in ("avg_wait", "max_wait", "mean_bsld") if v in h}
    return names, out


def generalisation(ds, criterion: str = "mean", seed: int = 0) -> dict[str, TrainTest]:
    """:func:`train_test` at every threshold of a train/test dataset
    (threshold label -> result)."""
    out = {}
    for label in ds.threshold.values:
        names, halves = _pairs(ds.sel(threshold=label))
        base = names.index("EASY-FCFS-FCFS")
        t = None if str(label) == "none" else sim.parse_duration(str(label))
        out[str(label)] = train_test(names, halves["train"], halves["test"], base, t, criterion, seed)
    return out


@dataclass
class Fig5:
    """lelong2017 Fig. 5 quantities per policy (primary with the fixed
    backfilling policy), thresholded (``thr``) and not (``none``)."""

    trace: str
    threshold: int
    backfill: str
    policies: list[str]
    avg_rel: dict[str, np.ndarray]          # mean of the weekly AvgWait ratios
    avg_dec: dict[str, tuple[np.ndarray, np.ndarray]]
    avg_gain_ci: dict[str, np.ndarray]      # (policies, 3): gain, low, high (ratio of means)
    maxmax_rel: dict[str, np.ndarray]       # max over weeks of MaxWait / baseline's
    maxmax_h: dict[str, np.ndarray]
    meanmax_rel: dict[str, np.ndarray]      # ratio of the mean MaxWaits
    base_maxmax_h: float
    base_avg: float
    weeks: int


def threshold_effect(ds, base, threshold: int, backfill: str, trace: str, seed: int = 0) -> Fig5:
    """Fig. 5 from the campaign results: ``ds`` (threshold, primary, week),
    ``base`` the baseline (primary=[FCFS], week)."""
    b_avg = base.avg_wait.values.reshape(-1)
    b_max = base.max_wait.values.reshape(-1)
    policies = [str(x) for x in ds.primary.values]
    res = {k: {} for k in ("avg", "dec", "gain", "mm", "mmh", "mean")}
    for key, label in (("thr", threshold_label(threshold)), ("none", "none")):
        avg = ds.avg_wait.sel(threshold=label).transpose("primary", "week").values
        mx = ds.max_wait.sel(threshold=label).transpose("primary", "week").values
        rel = stats.relative(avg, b_avg[None, :])
        res["avg"][key] = np.nanmean(rel, axis=1)
        res["dec"][key] = stats.deciles(rel, axis=1)
        res["gain"][key] = np.array([gain_ci(avg[i], b_avg, seed=seed) for i in range(len(policies))])
        res["mm"][key] = np.nanmax(mx, axis=1) / np.nanmax(b_max)
        res["mmh"][key] = np.nanmax(mx, axis=1) / HOUR
        res["mean"][key] = np.array([ratio_of_means(mx[i], b_max) for i in range(len(policies))])
    return Fig5(trace, threshold, backfill, policies, res["avg"], res["dec"], res["gain"], res["mm"],
                res["mmh"], res["mean"], float(np.nanmax(b_max)) / HOUR, float(np.nanmean(b_avg)),
                int(b_avg.size))


@dataclass
class ThesisResult:
    """Thesis Tables 5.2-5.5 quantities of one trace: ``sums[policy][k]`` is
    the sum over the weeks of the weekly mean bsld at threshold k."""

    trace: str
    weeks: int
    jobs: int
    thresholds: list[int | None]
    policies: list[str]
    sums: dict[str, list[float]]
    #: (variant, threshold) -> policy -> sum: the same quantity under other slicing or
    #: threshold choices (see :func:`thesis_checks`).
    checks: dict[tuple[str, int | None], dict[str, float]] = field(default_factory=dict)


def thesis_tables(ds, trace: str) -> ThesisResult:
    """Sums of the weekly mean bsld from a thesis campaign dataset
    (finish, threshold, primary, week); the first finish rule is the main one."""
    f0 = str(ds.finish.values[0])
    d = ds.sel(finish=f0)
    thresholds = [None if str(t) == "none" else sim.parse_duration(str(t)) for t in d.threshold.values]
    policies = [str(x) for x in d.primary.values]
    sums = {pol: [float(np.nansum(d.mean_bsld.sel(threshold=t, primary=pol).values))
                  for t in d.threshold.values] for pol in policies}
    jobs = d.jobs.isel(threshold=0, primary=0).values
    return ThesisResult(trace, int(d.sizes["week"]), int(np.sum(jobs[jobs > 0])), thresholds, policies, sums)


#: The policies on which the thesis checks are run (when simulated at all).
CHECK_POLICIES = ("FCFS", "SPF", "SAF")


def thesis_checks(p: Params, ref: TraceRef, r: ThesisResult, cluster: campaign.Runner, log) -> None:
    """Fill ``r.checks``: the sums of :data:`CHECK_POLICIES` with the
    crossing judged the other ways and with the jobs that overran their
    request kept (no threshold) and, at the thesis' thresholds, with the
    threshold leading the backfilling order too."""
    checked = [pol for pol in CHECK_POLICIES if pol in p.thesis_policies]
    if not checked:
        return
    if None in r.thresholds:
        k = r.thresholds.index(None)
        r.checks[(p.thesis_finish, None)] = {pol: r.sums[pol][k] for pol in checked}
        others = [f for f in FINISH if f != p.thesis_finish]
        ds = cluster.run(thesis_campaign(p, ref, finish=others, policies=checked, thresholds=[None]))
        for f in others:
            r.checks[(f, None)] = {pol: float(np.nansum(ds.mean_bsld.sel(finish=f, threshold="none",
                                                                          primary=pol).values))
                                   for pol in checked}
        if p.overrun == "drop":
            c = thesis_campaign(p, ref, policies=checked, thresholds=[None])
            c.params["overrun"] = "kill"
            ds = cluster.run(c)
            r.checks[("overrun_kill", None)] = {
                pol: float(np.nansum(ds.mean_bsld.sel(finish=p.thesis_finish, threshold="none",
                                                      primary=pol).values)) for pol in checked}
    ths = [t for t in r.thresholds if t is not None]
    if ths:
        c = thesis_campaign(p, ref, policies=checked, thresholds=ths)
        c.params["threshold_backfill"] = True
        ds = cluster.run(c)
        for t in ths:
            k = r.thresholds.index(t)
            r.checks[(p.thesis_finish, t)] = {pol: r.sums[pol][k] for pol in checked}
            r.checks[("threshold_backfill", t)] = {
                pol: float(np.nansum(ds.mean_bsld.sel(finish=p.thesis_finish, threshold=threshold_label(t),
                                                      primary=pol).values)) for pol in checked}


# ----------------------------------------------------------------- tables --

def _round(seconds) -> int | None:
    """Whole seconds for a table (None when unknown)."""
    return int(round(float(seconds))) if np.isfinite(seconds) else None


def _pct_diff(ours, published) -> float | None:
    if published is None or ours is None or not np.isfinite(ours) or published == 0:
        return None
    return 100.0 * (ours / published - 1.0)


def _h(seconds) -> str:
    return "none" if seconds is None else threshold_label(seconds)


def table_fig5(f: Fig5) -> Table:
    rows = []
    for i, pol in enumerate(f.policies):
        rows.append([f"EASY-{pol}-{f.backfill}", f.avg_rel["thr"][i], f.avg_rel["none"][i],
                     f.avg_gain_ci["thr"][i][0], f.avg_gain_ci["thr"][i][1], f.avg_gain_ci["thr"][i][2],
                     f.maxmax_h["thr"][i], f.maxmax_h["none"][i], f.meanmax_rel["thr"][i],
                     f.meanmax_rel["none"][i]])
    t = threshold_label(f.threshold)
    return Table(
        ["policy", f"AvgWait rel. T={t}", "AvgWait rel. none", f"gain % T={t}", "gain low", "gain high",
         f"max MaxWait h T={t}", "max MaxWait h none", f"MaxWait rel. T={t}", "MaxWait rel. none"],
        rows, title=f"Threshold effect on {f.trace} (lelong2017 §6, Fig. 5), {f.weeks} resampled weeks",
        digits={f"max MaxWait h T={t}": 1, "max MaxWait h none": 1, f"gain % T={t}": 1, "gain low": 1,
                "gain high": 1},
        notes=["AvgWait rel.: mean over the weeks of AvgWait / EASY-FCFS-FCFS's AvgWait on the same week.",
               "gain %: 100 x (1 - mean AvgWait / baseline mean AvgWait), 95 % paired bootstrap interval "
               "(low, high) over the weeks.",
               f"max MaxWait: the longest wait of any job in the {f.weeks} weeks (EASY-FCFS-FCFS: "
               f"{f.base_maxmax_h:.1f} h); MaxWait rel.: mean MaxWait / baseline mean MaxWait.",
               "lelong2017 publishes Fig. 5 as a figure only: no values to compare."])


def table_traintest(results: dict[str, dict[str, TrainTest]], trace_order: Sequence[str]) -> Table:
    rows = []
    for name in trace_order:
        for label, r in results.get(name, {}).items():
            rows.append([name, label, r.pair, r.train_avg_rel, r.test_avg_rel, r.test_gain,
                         r.test_gain_ci[0], r.test_gain_ci[1], r.train_max_rel, r.test_max_rel])
    return Table(
        ["trace", "T", "learned", "train AvgWait rel.", "test AvgWait rel.", "test gain %", "low", "high",
         "train MaxWait rel.", "test MaxWait rel."],
        rows, title="Generalisation as a function of the threshold (lelong2017 §7.3, Figs. 6-7)",
        digits={"test gain %": 1, "low": 1, "high": 1},
        notes=["learned: the pair with the lowest mean AvgWait on the training weeks; rel.: mean cost / "
               "EASY-FCFS-FCFS's mean cost on the same weeks (AvgWait; MaxWait: mean of the weekly "
               "MaxWaits).",
               "test gain %: 100 x (1 - test AvgWait rel.), 95 % paired bootstrap interval (low, high)."])


def table_sec73(results: dict[str, dict[str, TrainTest]], threshold: int) -> Table:
    """lelong2017 §7.3's ranges over the logs beside ours."""
    pub = PUBLISHED["sec_7_3"]
    rows = []
    for label, key in (("none", "none"), (threshold_label(threshold), "20h")):
        rs = [r[label] for r in results.values() if label in r]
        if not rs or (key == "20h" and threshold != 72000):
            continue
        avg = [r.test_avg_rel for r in rs]
        mx = [r.test_max_rel for r in rs]
        p = pub[key]
        rows.append([label, "test AvgWait rel., lowest", p["avg_low"], min(avg), min(avg) - p["avg_low"]])
        rows.append([label, "test AvgWait rel., highest", p["avg_high"], max(avg), max(avg) - p["avg_high"]])
        rows.append([label, "test MaxWait rel., highest", p["max_high"], max(mx), max(mx) - p["max_high"]])
    n = len(results)
    return Table(["T", "quantity", "published", "reproduced", "difference"], rows,
                 title="Ranges over the logs (lelong2017 §7.3)",
                 notes=[f"reproduced: over the {n} log(s) of the sweep.",
                        "published: §7.3 'the AvgWait can be reduced until 80% to 65% ... the MaxWait can "
                        "jump as high as 250%' (no threshold), 'reduced until 90% to 70% ... keeping the "
                        "MaxWait increase under 175%' (20 h); read as the range of the learned policy's "
                        "testing cost relative to EASY-FCFS-FCFS."])


def table_fig8(res: dict[str, TrainTest], trace_order: Sequence[str], threshold: int) -> Table:
    pub = PUBLISHED["fig8_gain_pct"] if threshold == 72000 else {}
    rows = []
    for name in trace_order:
        if name not in res:
            continue
        r = res[name]
        p = pub.get(name)
        rows.append([name, r.pair, r.train_gain, *r.train_gain_ci, r.test_gain, *r.test_gain_ci, p,
                     None if p is None else r.test_gain - p, r.alt_pair])
    return Table(
        ["trace", "learned", "train gain %", "train low", "train high", "test gain %", "test low",
         "test high", "published %", "difference", "learned (mean-ratio)"],
        rows, title=f"AvgWait diminution of the learned policy, T = {threshold_label(threshold)} "
                    "(lelong2017 §7.4, Fig. 8)",
        default_digits=1, digits={"published %": 0},
        notes=["gain %: 100 x (1 - mean AvgWait of the learned pair / mean AvgWait of EASY-FCFS-FCFS) on "
               "the training or testing weeks; (low, high): 95 % paired bootstrap interval over the weeks.",
               "difference: reproduced test gain - published, in percentage points.",
               "learned (mean-ratio): the pair the lowest mean of the weekly ratios picks instead.",
               "published: lelong2017 §7.4, 'AvgWait average diminutions of 21%, 11%, 36%, 42% and 29% "
               "respectively for the SDSC-BLUE, SDSC-SP2, CTC-SP2, CEA-CURIE, and KTH-SP2 machines'."])


def table_fig8_maxwait(res: dict[str, TrainTest], trace_order: Sequence[str]) -> Table:
    pub = PUBLISHED["fig8_cea_maxwait_s"]
    rows = []
    for name in trace_order:
        if name not in res:
            continue
        r = res[name]
        cea = name == "CEA-Curie"
        rows.append([name, _round(r.test_base_avg), _round(r.test_avg), pub["baseline"] if cea else None,
                     _round(r.test_base_max), pub["learned"] if cea else None, _round(r.test_max),
                     r.test_max_rel, r.test_bsld_gain, *r.test_bsld_gain_ci])
    return Table(
        ["trace", "baseline AvgWait s", "learned AvgWait s", "baseline MaxWait s (published)",
         "baseline MaxWait s", "learned MaxWait s (published)", "learned MaxWait s", "MaxWait rel.",
         "bsld gain %", "bsld low", "bsld high"],
        rows, title="Mean waits of the learned policy on the testing weeks (lelong2017 §7.4)",
        digits={"bsld gain %": 1, "bsld low": 1, "bsld high": 1},
        notes=["AvgWait, MaxWait: means over the testing weeks of the week's mean and largest wait.",
               "published: lelong2017 §7.4 quotes CEA-Curie only ('88747 compared to a value of 86680 for "
               "the baseline').",
               "bsld gain %: the same learned pair's gain in mean bounded slowdown, with its 95 % interval "
               "(lelong2017 §7.3 says its results also hold for it)."])


def table_table3(rows_in: list[dict]) -> Table:
    pub = PUBLISHED["table_3"]
    rows = []
    for r in rows_in:
        p = pub.get(r["trace"], (None,) * 4)
        rows.append([r["trace"], p[0], r["year"], p[1], r["m"], p[2], r["jobs_in_file"] / 1000.0,
                     r["jobs"] / 1000.0, p[3], r["months"]])
    return Table(
        ["trace", "year (published)", "year", "CPUs (published)", "m", "k jobs (published)",
         "k jobs in file", "k jobs cleaned", "months (published)", "months"],
        rows, title="Workload logs (lelong2017 §7.2, Table 3)",
        digits={"k jobs in file": 1, "k jobs cleaned": 1, "months": 1},
        notes=["year: of the first submission (from the SWF header's UnixStartTime); months: span of the "
               "submissions / 30.44 days.",
               "k jobs cleaned: after workload.clean(overrun='drop') -- q > m and p > p~ removed "
               "(lelong2017 §7.2); the published counts are those of the files.",
               "CEA-Curie: m = 80640, the thin nodes (data/traces.toml)."])


def table_thesis(r: ThesisResult) -> Table:
    pub = PUBLISHED["thesis"].get(r.trace, {})
    cols = ["policy"]
    for t in r.thresholds:
        name = THESIS_COLUMN_NAMES.get(t, _h(t))
        cols += [f"{name} (thesis)", name, f"{name} diff %"]
    rows = []
    order = sorted(r.policies, key=lambda p: r.sums[p][0])
    for pol in order:
        row = [pol]
        for k, t in enumerate(r.thresholds):
            pv = pub.get(pol)
            pval = pv[THESIS_THRESHOLDS.index(t)] if pv is not None and t in THESIS_THRESHOLDS else None
            row += [pval, r.sums[pol][k], _pct_diff(r.sums[pol][k], pval)]
        rows.append(row)
    number = THESIS_TABLES.get(r.trace)
    title = (f"Thresholds on {r.trace} (thesis §5.8, Table {number})" if number
             else f"Thresholds on {r.trace} (as thesis §5.8)")
    return Table(cols, rows, title=title, default_digits=1,
                 notes=[f"sum over {r.weeks} original weeks ({r.jobs} jobs) of the weekly mean bounded "
                        "slowdown; EASY-P-P; first week skipped, jobs crossing their week's end removed "
                        "(thesis §5.2); rows sorted by our no-threshold value.",
                        "diff %: 100 x (reproduced / published - 1).",
                        "Tables 5.2-5.5 list pure policies only. The thesis' mixed policies (w*, w*_train, "
                        "w_greedy: Table 5.1, Figs. 5.3-5.15) are Study 4 (mixed policies), not this one."])


VARIANTS = {
    "recorded": "crossing by the log's finish",
    "run": "crossing by r + p",
    "req": "crossing by r + p~",
    "threshold_backfill": "threshold also leads backfilling",
    "overrun_kill": "jobs with p > p~ kept, killed at p~",
}


def table_thesis_checks(results: list[ThesisResult], main: str) -> Table:
    rows = []
    for r in results:
        pub = PUBLISHED["thesis"].get(r.trace, {})
        for (variant, t), sums in r.checks.items():
            for pol, v in sums.items():
                pv = pub[pol][THESIS_THRESHOLDS.index(t)] if pol in pub and t in THESIS_THRESHOLDS else None
                name = VARIANTS.get(variant, variant) + (" (main)" if variant == main else "")
                rows.append([r.trace, name, THESIS_COLUMN_NAMES.get(t, _h(t)), pol, pv, v, _pct_diff(v, pv)])
    return Table(["trace", "variant", "T", "policy", "thesis", "reproduced", "diff %"], rows,
                 title="What the week slicing and the threshold semantics do to the thesis' values",
                 default_digits=1,
                 notes=["crossing: a job is removed when its finish time is after its week's end -- the "
                        "log's r + wait + p (the thesis' wording), r + p or r + p~.",
                        "threshold also leads backfilling: jobs over T lead the backfilling order too "
                        "(threshold_backfill; online-bandit's EASY(P, T)), with the main slicing.",
                        "jobs with p > p~ kept: cleaned with overrun='kill' instead of 'drop' (the simulator "
                        "kills them at their request), with the main slicing."])


def table_thesis_5_6(ref: TraceRef, m: int | None, overrun: str) -> Table:
    """Thesis Table 5.6 beside the longest jobs of the log as recorded (before
    cleaning), and whether the cleaning used here keeps them."""
    swf = _traces.load(ref.spec)
    f = swf.fields
    kept, _ = workload.clean(swf, m=m, overrun=overrun)
    kept_lines = set(kept.lines.tolist()) if kept.lines is not None else set()
    order = np.argsort(-f["run"], kind="stable")[:len(THESIS_TABLE_5_6)]
    rows = []
    for pub, i in zip(THESIS_TABLE_5_6, order):
        q = int(f["req_procs"][i]) if f["req_procs"][i] > 0 else int(f["alloc_procs"][i])
        rows.append([pub[0], int(f["job_id"][i]), pub[2], int(f["run"][i]), pub[3], q, int(f["req_time"][i]),
                     int(swf.lines[i]) in kept_lines])
    return Table(["job (thesis)", "job", "runtime s (thesis)", "runtime s", "procs (thesis)", "procs",
                  "requested s", "kept by the cleaning"], rows,
                 title=f"The longest jobs of {ref.name} (thesis §5.8, Table 5.6)",
                 notes=["reproduced: the jobs of the log with the longest runtime, as recorded (before "
                        "cleaning); submit times agree as well (not shown).",
                        f"kept by the cleaning: workload.clean(overrun={overrun!r}) keeps the job; a job "
                        "whose runtime exceeds its requested time is removed by the lelong2017 cleaning."])


# ---------------------------------------------------------------- figures --

def figure_fig5(f: Fig5):
    """Like lelong2017 Fig. 5: mean weekly-relative AvgWait (x, with first
    and last deciles) against MaxWait (y): left the maximum over the weeks,
    right the mean; filled: thresholded, pale: without threshold."""
    with plots.style():
        fig = plots.figure(7.0, 3.3)
        axes = fig.subplots(1, 2)
        colours = [f"C{i}" for i in range(len(f.policies))]
        for ax, key, ylab in ((axes[0], "maxmax", "max MaxWait / EASY-FCFS-FCFS's"),
                              (axes[1], "mean", "mean MaxWait / EASY-FCFS-FCFS's")):
            for k, alpha in (("none", 0.3), ("thr", 1.0)):
                ys = f.maxmax_rel[k] if key == "maxmax" else f.meanmax_rel[k]
                for i, pol in enumerate(f.policies):
                    x = f.avg_rel[k][i]
                    lo, hi = f.avg_dec[k][0][i], f.avg_dec[k][1][i]
                    ax.errorbar([x], [ys[i]], xerr=[[x - lo], [hi - x]], fmt="o", color=colours[i],
                                alpha=alpha, ms=5, capsize=2, lw=0.8,
                                label=pol if (k == "thr" and key == "maxmax") else None)
            ax.plot([1], [1], marker="*", color="k", ms=9, ls="none",
                    label="EASY-FCFS-FCFS" if key == "maxmax" else None)
            if key == "maxmax":
                ax.axhline(f.threshold / HOUR / f.base_maxmax_h, color="0.4", ls="--", lw=0.8)
                ax.text(0.99, f.threshold / HOUR / f.base_maxmax_h, f" T = {threshold_label(f.threshold)}",
                        transform=ax.get_yaxis_transform(), ha="right", va="bottom", fontsize=7)
                sec = ax.secondary_yaxis("right", functions=(lambda y: y * f.base_maxmax_h,
                                                             lambda h: h / f.base_maxmax_h))
                sec.set_ylabel("hours")
            ax.axvline(1, color="0.7", lw=0.6)
            ax.set_xlabel("mean AvgWait / EASY-FCFS-FCFS's (deciles)")
            ax.set_ylabel(ylab)
        axes[0].set_title(f"{f.trace}, backfilling {f.backfill}: maximum over {f.weeks} weeks")
        axes[1].set_title("mean over the weeks")
        fig.legend(loc="outside lower center", ncols=len(f.policies) + 1)
    return fig


def _tick_labels(labels):
    return [("none" if lab == "none" else lab) for lab in labels]


def figure_sweep(results: dict[str, dict[str, TrainTest]], trace_order: Sequence[str]):
    """Like lelong2017 Figs. 6-7: AvgWait (top) and MaxWait (bottom) of the
    learned pair relative to EASY-FCFS-FCFS, on the training (dashed) and
    testing (solid) weeks, against the threshold; shaded: 95 % interval of
    the testing AvgWait."""
    names = [n for n in trace_order if n in results]
    n = max(len(names), 1)
    with plots.style():
        fig = plots.figure(max(2.2 * n, 4.0), 4.6)
        axes = fig.subplots(2, n, squeeze=False, sharex=True)
        for j, name in enumerate(names):
            res = results[name]
            labels = list(res)
            x = np.arange(len(labels))
            colour = plots.trace_color(name)
            tr = [res[k].train_avg_rel for k in labels]
            te = [res[k].test_avg_rel for k in labels]
            lo = [1 - res[k].test_gain_ci[1] / 100 for k in labels]
            hi = [1 - res[k].test_gain_ci[0] / 100 for k in labels]
            ax = axes[0, j]
            ax.fill_between(x, lo, hi, color=colour, alpha=0.2, lw=0)
            ax.plot(x, tr, ls="--", marker="o", ms=3, color=colour)
            ax.plot(x, te, ls="-", marker="o", ms=3, color=colour)
            ax.axhline(1, color="k", lw=0.6)
            ax.set_title(name)
            ax = axes[1, j]
            ax.plot(x, [res[k].train_max_rel for k in labels], ls="--", marker="o", ms=3, color=colour)
            ax.plot(x, [res[k].test_max_rel for k in labels], ls="-", marker="o", ms=3, color=colour)
            ax.axhline(1, color="k", lw=0.6)
            ax.set_xticks(x, _tick_labels(labels), rotation=60)
            ax.set_xlabel("threshold T")
        axes[0, 0].set_ylabel("AvgWait /\nEASY-FCFS-FCFS's")
        axes[1, 0].set_ylabel("mean MaxWait /\nEASY-FCFS-FCFS's")
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        fig.legend(handles=[Line2D([], [], color="0.3", ls="--", marker="o", ms=3, label="training weeks"),
                            Line2D([], [], color="0.3", ls="-", marker="o", ms=3, label="testing weeks"),
                            Patch(color="0.3", alpha=0.2, label="testing AvgWait, 95 % interval")],
                   loc="outside lower center", ncols=3)
    return fig


def figure_fig8(res: dict[str, TrainTest], trace_order: Sequence[str], threshold: int):
    """Like lelong2017 Fig. 8: the mean AvgWait of every pair minus
    EASY-FCFS-FCFS's, on the training and the testing weeks, one line per
    pair; the learned pair in colour, the others grey."""
    names = [n for n in trace_order if n in res]
    n = max(len(names), 1)
    with plots.style():
        fig = plots.figure(max(1.6 * n, 4.0), 3.4)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, name in zip(axes, names):
            r = res[name]
            for k in range(r.train_diff.size):
                if k != r.index:
                    ax.plot([0, 1], [r.train_diff[k], r.test_diff[k]], color="0.6", lw=0.5, alpha=0.6)
            ax.plot([0, 1], [r.train_diff[r.index], r.test_diff[r.index]], color=plots.trace_color(name),
                    lw=2, marker="o", ms=4)
            ax.axhline(0, color="k", lw=0.6)
            ax.set_xticks([0, 1], ["train", "test"])
            ax.set_xlim(-0.2, 1.2)
            ax.set_title(f"{name}\n{r.pair}", fontsize=7)
            ax.set_xlabel(f"base {r.train_base_avg:.0f} / {r.test_base_avg:.0f} s\n"
                          f"MaxWait {r.test_max:.0f} s", fontsize=7)
        axes[0].set_ylabel("mean AvgWait - EASY-FCFS-FCFS's (s)")
        fig.suptitle(f"T = {threshold_label(threshold)}: AvgWait of the pairs from training to testing "
                     "weeks", fontsize=9)
    return fig


def figure_thesis(results: list[ThesisResult]):
    """Reproduced against published thesis values, each divided by FCFS's
    of the same column (so the levels cancel and the order shows).  For a
    trace the thesis did not publish (or a run without FCFS): our values
    per policy, divided by the no-threshold column's smallest."""
    n = max(len(results), 1)
    markers = ["o", "s", "^", "D", "v", "P"]
    with plots.style():
        fig = plots.figure(max(2.3 * n, 4.0), 2.9)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, r in zip(axes, results):
            pub = PUBLISHED["thesis"].get(r.trace, {})
            if "FCFS" in pub and "FCFS" in r.sums:
                top = 1.0
                for k, t in enumerate(r.thresholds):
                    if t not in THESIS_THRESHOLDS:
                        continue
                    c = THESIS_THRESHOLDS.index(t)
                    common = [pol for pol in r.policies if pol in pub]
                    xs = [pub[pol][c] / pub["FCFS"][c] for pol in common]
                    ys = [r.sums[pol][k] / r.sums["FCFS"][k] for pol in common]
                    ax.plot(xs, ys, ls="none", marker=markers[k % len(markers)], ms=4, alpha=0.8,
                            label=THESIS_COLUMN_NAMES.get(t, _h(t)))
                    top = max(top, *xs, *ys) if xs else top
                ax.plot([0, top * 1.05], [0, top * 1.05], color="0.6", lw=0.6)
                ax.set_xlabel("thesis, / FCFS")
                ax.set_ylabel("reproduced, / FCFS")
            else:
                x = np.arange(len(r.policies))
                ref = min(r.sums[pol][0] for pol in r.policies) or 1.0
                for k, t in enumerate(r.thresholds):
                    ax.plot(x, [r.sums[pol][k] / ref for pol in r.policies], ls="none",
                            marker=markers[k % len(markers)], ms=4, alpha=0.8,
                            label=THESIS_COLUMN_NAMES.get(t, _h(t)))
                ax.set_xticks(x, r.policies, rotation=60)
                ax.set_ylabel(f"reproduced, / best ({_h(r.thresholds[0])})")
            ax.set_title(r.trace)
            ax.legend(loc="upper left", fontsize=6)
    return fig


# ---------------------------------------------------------------- numbers --

def _key(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_")


def _finite(x):
    x = float(x)
    return x if np.isfinite(x) else None


def numbers(p: Params, fig5: Fig5 | None, sweep: dict[str, dict[str, TrainTest]],
            fig8: dict[str, TrainTest], thesis: list[ThesisResult], table3: list[dict]) -> dict[str, Any]:
    """Flat dict of the key numbers (for the paper's text)."""
    out: dict[str, Any] = {
        "traces": ",".join(fig8), "trace_keys": ",".join(_key(n) for n in fig8),
        "sweep_traces": ",".join(sweep), "thesis_traces": ",".join(r.trace for r in thesis),
        "thesis_trace_keys": ",".join(_key(r.trace) for r in thesis),
        "weeks": p.weeks, "threshold": threshold_label(p.threshold), "threshold_h": p.threshold / HOUR,
        "n_traces": len(fig8), "n_sweep_traces": len(sweep), "n_thresholds": len(p.thresholds),
        "n_pairs": len(p.policies) ** 2, "n_policies": len(p.policies), "seed": p.seed,
        "criterion": p.criterion, "ci_level_pct": 100 * LEVEL, "n_thesis_policies": len(p.thesis_policies),
        "thesis_weeks_list": ", ".join(str(r.weeks) for r in thesis),
    }
    if fig5 is not None:
        pol = fig5.policies
        out.update({"fig5_trace": fig5.trace, "fig5_backfill": fig5.backfill,
                    "fig5_base_max_wait_h": fig5.base_maxmax_h,
                    "fig5_max_maxwait_h_thr": float(np.nanmax(fig5.maxmax_h["thr"])),
                    "fig5_max_maxwait_h_none": float(np.nanmax(fig5.maxmax_h["none"])),
                    "fig5_best_avg_rel_thr": float(np.nanmin(fig5.avg_rel["thr"])),
                    "fig5_best_avg_rel_none": float(np.nanmin(fig5.avg_rel["none"])),
                    "fig5_best_thr": pol[int(np.nanargmin(fig5.avg_rel["thr"]))],
                    "fig5_best_none": pol[int(np.nanargmin(fig5.avg_rel["none"]))]})
    for name, r in fig8.items():
        k = _key(name)
        pub = PUBLISHED["fig8_gain_pct"].get(name) if p.threshold == 72000 else None
        out.update({f"{k}_learned": r.pair, f"{k}_gain_pct": r.test_gain,
                    f"{k}_gain_low_pct": r.test_gain_ci[0], f"{k}_gain_high_pct": r.test_gain_ci[1],
                    f"{k}_train_gain_pct": r.train_gain, f"{k}_maxwait_rel": r.test_max_rel,
                    f"{k}_maxwait_s": r.test_max, f"{k}_base_maxwait_s": r.test_base_max,
                    f"{k}_base_avgwait_s": r.test_base_avg, f"{k}_published_gain_pct": pub})
    if fig8:
        gains = [r.test_gain for r in fig8.values()]
        out["gain_min_pct"], out["gain_max_pct"] = min(gains), max(gains)
        out["n_gain_significant"] = sum(r.test_gain_ci[0] > 0 for r in fig8.values())
    for label, key in (("none", "none"), (threshold_label(p.threshold), "thr")):
        rs = [r[label] for r in sweep.values() if label in r]
        if rs:
            out[f"sweep_{key}_avg_rel_min"] = min(r.test_avg_rel for r in rs)
            out[f"sweep_{key}_avg_rel_max"] = max(r.test_avg_rel for r in rs)
            out[f"sweep_{key}_max_rel_max"] = max(r.test_max_rel for r in rs)
    for r in thesis:
        k = _key(r.trace)
        pub = PUBLISHED["thesis"].get(r.trace, {})
        out[f"thesis_{k}_weeks"] = r.weeks
        best = min(r.policies, key=lambda pol: r.sums[pol][0])
        out[f"thesis_{k}_best"] = best
        for c, t in enumerate(r.thresholds):
            if t in THESIS_THRESHOLDS and pub:
                col = THESIS_THRESHOLDS.index(t)
                common = [pol for pol in r.policies if pol in pub]
                rho = _spearman([pub[pol][col] for pol in common], [r.sums[pol][c] for pol in common])
                tk = _THESIS_KEYS[t]
                out[f"thesis_{k}_spearman_{tk}"] = _finite(rho)
                if "FCFS" in r.sums and "FCFS" in pub:
                    out[f"thesis_{k}_fcfs_{tk}"] = r.sums["FCFS"][c]
                    out[f"thesis_{k}_fcfs_{tk}_published"] = pub["FCFS"][col]
    for row in table3:
        out[f"{_key(row['trace'])}_jobs_cleaned"] = row["jobs"]
    return {k: (_finite(v) if isinstance(v, (float, np.floating)) else v) for k, v in out.items()}


# ---------------------------------------------------------------- table 3 --

def _table3_row(ref: TraceRef, overrun: str) -> dict:
    swf = _traces.load(ref.spec)
    jobs, _ = workload.clean(swf, m=ref.m, overrun=overrun)
    sub = jobs.submit
    year = None
    if swf.unix_start_time is not None and len(jobs):
        year = datetime.fromtimestamp(int(swf.unix_start_time) + int(sub.min()), timezone.utc).year
    months = float(sub.max() - sub.min()) / (365.25 / 12 * 86400) if len(jobs) else float("nan")
    return {"trace": ref.name, "year": year, "m": ref.m, "jobs_in_file": swf.n, "jobs": len(jobs),
            "months": months}


# -------------------------------------------------------------------- run --

def run(traces=DEFAULT_TRACES, sweep_traces=None, thresholds=DEFAULT_THRESHOLDS, threshold="20h",
        weeks=250, policies=sim.LELONG_POLICIES, fig5_trace="KTH-SP2", fig5_backfill="SPF",
        thesis_traces=THESIS_TRACES, thesis_thresholds=("none", 200000, "20h"),
        thesis_policies=sim.BANDIT_POLICIES, thesis_weeks=None, thesis_finish="recorded", seed=2017,
        overrun="drop", criterion="mean", workers=2, outdir=None, cache_dir=None, log=print,
        params: Params | None = None) -> dict[str, Any]:
    """Run the study (every grid through :mod:`schedlab.campaign`) and write
    under ``outdir`` (default ``results/thresholds``), atomically:

    * ``tables/{table3,fig5,traintest,sec73,fig8,fig8_maxwait,thesis_<trace>,
      thesis_5_6,thesis_checks}.{csv,md}``;
    * ``figures/{fig5,sweep,fig8,thesis}.{png,pdf}``;
    * ``fig5.nc``, ``fig5_baseline.nc``, ``traintest.nc``, ``thesis.nc``: the
      simulated weeks, with the campaigns' provenance and the parameters;
    * ``numbers.json`` (flat: key numbers for the paper).

    Parameters are those of :func:`validate` (or a validated ``params``).
    Returns a dict: ``params``, ``tables``, ``figures``, ``datasets``,
    ``fig5``, ``sweep``, ``fig8``, ``thesis``, ``numbers``, ``files``,
    ``outdir``, ``seconds``.
    """
    import xarray as xr

    from ...store import write_dataset

    t0 = time.perf_counter()
    p = params or validate(traces, sweep_traces, thresholds, threshold, weeks, policies, fig5_trace,
                           fig5_backfill, thesis_traces, thesis_thresholds, thesis_policies,
                           thesis_weeks, thesis_finish, seed, overrun, criterion, workers, outdir,
                           cache_dir)
    log = log or (lambda *a, **k: None)
    out = p.outdir
    files: list[Path] = []
    tables: dict[str, Table] = {}
    figures: dict[str, list[Path]] = {}
    datasets: dict[str, Any] = {}
    cluster = campaign.Runner(p.workers, None, p.cache_dir, log)
    try:
        # -- lelong2017 Table 3
        t3 = [_table3_row(ref, p.overrun) for ref in p.traces]
        tables["table3"] = table_table3(t3)

        # -- Fig. 5
        f5 = None
        if p.fig5_trace is not None:
            grid, base = [cluster.run(c) for c in fig5_campaigns(p)]
            f5 = threshold_effect(grid, base, p.threshold, p.fig5_backfill, p.fig5_trace.name, p.seed)
            datasets["fig5"] = grid
            datasets["fig5_baseline"] = base
            tables["fig5"] = table_fig5(f5)
            figures["fig5"] = plots.savefig(figure_fig5(f5), out / "figures" / "fig5")

        # -- train/test: the sweep and T = 20 h
        order = [r.name for r in p.traces] + [r.name for r in p.sweep_traces
                                              if r.name not in {x.name for x in p.traces}]
        refs = {r.name: r for r in (*p.traces, *p.sweep_traces)}
        sweep: dict[str, dict[str, TrainTest]] = {}
        fig8: dict[str, TrainTest] = {}
        per_trace = []
        for name in order:
            ref = refs[name]
            ths = set()
            if any(r.name == name for r in p.sweep_traces):
                ths.update(p.thresholds)
            if any(r.name == name for r in p.traces):
                ths.add(p.threshold)
            ths = sorted(ths, key=lambda t: (t is None, t or 0))
            parts = [cluster.run(c) for c in traintest_campaigns(p, ref, ths)]
            ds = traintest_dataset(parts, p.policies, ths)
            per_trace.append(ds.expand_dims(trace=[name]))
            res = generalisation(ds, p.criterion, p.seed)
            if any(r.name == name for r in p.sweep_traces):
                sweep[name] = res           # every threshold simulated for it, p.threshold included
            if any(r.name == name for r in p.traces):
                fig8[name] = res[threshold_label(p.threshold)]
        if per_trace:
            labels = sorted({str(x) for d in per_trace for x in d.threshold.values},
                            key=lambda s: (s == "none", sim.parse_duration(s) or 0))
            tt = xr.concat([d.reindex(threshold=labels) for d in per_trace], dim="trace", join="outer")
            tt["jobs"] = tt.jobs.fillna(-1).astype(np.int64)
            tt.attrs = _provenance(per_trace)
            datasets["traintest"] = tt
        if sweep:
            tables["traintest"] = table_traintest(sweep, [r.name for r in p.sweep_traces])
            tables["sec73"] = table_sec73(sweep, p.threshold)
            figures["sweep"] = plots.savefig(figure_sweep(sweep, [r.name for r in p.sweep_traces]),
                                             out / "figures" / "sweep")
        tables["fig8"] = table_fig8(fig8, [r.name for r in p.traces], p.threshold)
        tables["fig8_maxwait"] = table_fig8_maxwait(fig8, [r.name for r in p.traces])
        figures["fig8"] = plots.savefig(figure_fig8(fig8, [r.name for r in p.traces], p.threshold),
                                        out / "figures" / "fig8")

        # -- thesis Tables 5.2-5.5
        thesis: list[ThesisResult] = []
        th_parts = []
        for ref in p.thesis_traces:
            ds = cluster.run(thesis_campaign(p, ref))
            r = thesis_tables(ds, ref.name)
            thesis_checks(p, ref, r, cluster, log)
            thesis.append(r)
            th_parts.append(ds.sel(finish=p.thesis_finish).expand_dims(trace=[ref.name]))
            tables[f"thesis_{_key(ref.name)}"] = table_thesis(r)
        sdsc = [ref for ref in p.thesis_traces if ref.name == "SDSC-SP2"]
        if sdsc:
            tables["thesis_5_6"] = table_thesis_5_6(sdsc[0], sdsc[0].m, p.overrun)
        if thesis:
            tables["thesis_checks"] = table_thesis_checks(thesis, p.thesis_finish)
            figures["thesis"] = plots.savefig(figure_thesis(thesis), out / "figures" / "thesis")
            th = xr.concat(th_parts, dim="trace", join="outer")
            th["jobs"] = th.jobs.fillna(-1).astype(np.int64)
            th.attrs = _provenance(th_parts)
            datasets["thesis"] = th
    finally:
        cluster.close()

    for name, table in tables.items():
        files += table.write(out / "tables" / name)
    for paths_ in figures.values():
        files += paths_
    for name, ds in datasets.items():
        ds.attrs["study"] = STUDY
        ds.attrs["parameters"] = p.as_dict()
        files.append(write_dataset(ds, out / f"{name}.nc"))
    nums = numbers(p, f5, sweep, fig8, thesis, t3)
    nums["wall_s"] = time.perf_counter() - t0
    files.append(write_json(out / "numbers.json", nums))
    return {"params": p, "tables": tables, "figures": figures, "datasets": datasets, "fig5": f5,
            "sweep": sweep, "fig8": fig8, "thesis": thesis, "numbers": nums, "files": files,
            "outdir": out, "seconds": time.perf_counter() - t0}
