"""Study 1 -- traces: workload characterisation.

What the thesis (zrigui2021, see :data:`THESIS`) reports about its workloads,
recomputed from the logs of the Parallel Workloads Archive, for any list of
traces (registry names or paths to any SWF file):

* the workloads (thesis §3.3.2, Table 3.1): jobs, users, period, machine
  size, mean runtime -- and, per week, the number of jobs submitted and the
  offered load;
* premature jobs (thesis §4.3.3, Table 4.1): jobs whose requested time
  p~ is at least 100 times their runtime p;
* requested vs actual runtimes (thesis §6.2, Fig. 6.1), the *divider* (the
  median actual runtime), the small non-premature / small premature shares
  (Table 6.1) and the shares of the total area p*q (Table 6.2).

The notebook ``notebooks/00-traces.ipynb`` only validates its parameters
(:func:`validate_traces`, :func:`validate_outdir`) and calls :func:`run`,
which writes tables (CSV and Markdown), figures (PNG and PDF), the data
behind the figures (CSV) and ``numbers.json``.  Every computation is a
plain function of arrays (:func:`premature`, :func:`divider`,
:func:`size_classes`, :func:`class_stats`, :func:`weekly`,
:func:`histogram`), tested on generated traces whose answers are known by
construction.

Definitions (the choices where the thesis is terse are written here, once):

* **Jobs.** A trace is cleaned with :func:`schedlab.workload.clean` (the
  project's default: jobs with p > p~ are kept; see its report).  The
  comparisons are computed on three sets of jobs (:data:`JOBSETS`):
  ``cleaned`` (all of them), ``no-overrun`` (without the jobs whose runtime
  exceeds their request: ``clean(..., overrun="drop")``, lelong2017 §7.2)
  and ``completed`` (cleaned jobs whose SWF status is 1, "completed").
  The thesis does not say which jobs it counted; the tables show all three
  so that the reader sees which one its figures match.
* **Premature** (Table 4.1).  The thesis: "the difference between the
  processing time estimate p~ and the actual processing time p is at least
  100 times higher".  The *ratio* reading, p~ >= 100 p, is the one used
  (``reading="ratio"``); the literal *difference* reading, p~ - p >= 100 p
  (i.e. p~ >= 101 p), is reported beside it.  Either way a job with p = 0
  is premature when p~ > 0 (and not when p~ = 0).
* **Divider** (Table 6.1): the median actual runtime p of the jobs
  considered (numpy's median: the mean of the two middle values for an
  even count).  **Small**: p <= divider (the thesis' safeguard kills a job
  classified small once its runtime exceeds the divider, §6.4.3); large
  otherwise.  **Small premature**: small and p~ > divider; **small
  non-premature**: small and p~ <= divider.  Shares are in % of the jobs.
  (With p < divider instead, the thesis' Table 6.1 shares are not
  reproduced on any set of jobs; with p <= divider they are, on the
  completed jobs -- see ``tests/test_study_traces.py``.)
* **Area** (Table 6.2, footnote of §6.2): a_j = p_j * q_j; shares in % of
  the total area of the jobs considered.
* **Weeks**: consecutive 7-day periods from the first submission
  (:func:`schedlab.workload.period_edges`); a job belongs to the week of its
  submission.  *Offered load* of a week = sum of q*p of its jobs / (m * 7
  days), p as recorded in the log.  The last week is cut short by the end of
  the log, so means and medians are over the other ("full") weeks.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ... import __version__, metrics, paths, plots, workload
from ... import traces as _traces
from ...errors import InputError
from ...sim import Jobs
from .. import Table, write_json, write_text
from ... import values as check

__all__ = [
    "THESIS", "PUBLISHED", "PUBLISHED_NOTES", "DEFAULT_TRACES", "PREMATURE_FACTOR", "READINGS",
    "JOBSETS", "RUNTIME_EDGES", "Weekly", "Histogram", "ClassStats", "TraceStats",
    "validate_traces", "validate_outdir", "premature", "divider", "size_classes",
    "class_stats", "weekly", "histogram", "jobsets", "characterise", "published_for", "tables",
    "data_weekly", "data_histograms",
    "figure_weekly", "figure_runtimes", "numbers", "run",
]

STUDY = "traces"

# ----------------------------------------------------------------- sources --

#: The source of every published value below.
THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using "
          "Machine Learning and Statistical analysis, PhD thesis, Université Grenoble "
          "Alpes, 2021")

#: Values published in the thesis, quoted from its tables and keyed by our
#: registry names ("SDSC Blue" of Table 4.1 is SDSC-BLUE).  ``None`` where
#: the thesis prints no value.  MetaCentrum is not bundled; it is quoted for
#: completeness.  See :data:`PUBLISHED_NOTES` for what is read into them.
PUBLISHED: dict[str, dict[str, Any]] = {
    # thesis §3.3.2, Table 3.1 "Workloads": #CPU, #Duration, #Jobs, Average job duration
    "table_3_1": {
        "KTH-SP2": {"cpus": 100, "months": 11, "jobs": 27670, "mean_runtime_s": 8579},
        "CTC-SP2": {"cpus": 338, "months": 11, "jobs": 68687, "mean_runtime_s": 9807},
        "SDSC-SP2": {"cpus": 128, "months": 24, "jobs": 49809, "mean_runtime_s": 6318},
        "SDSC-BLUE": {"cpus": 1152, "months": 32, "jobs": 208716, "mean_runtime_s": 3184},
        "HPC2N": {"cpus": 240, "months": 42, "jobs": 202871, "mean_runtime_s": None},
        "MetaCentrum-zegox": {"cpus": 576, "months": 24, "jobs": 79546, "mean_runtime_s": None},
    },
    # thesis §4.3.3, Table 4.1 "Percentage of premature jobs for each workload trace"
    "table_4_1": {
        "HPC2N": 17.4, "SDSC-BLUE": 30.2, "SDSC-SP2": 16.1, "CTC-SP2": 9.5, "KTH-SP2": 12.4,
    },
    # thesis §6.2, Table 6.1 "Percentage of premature and non premature jobs":
    # (divider in s, small non premature %, small premature %)
    "table_6_1": {
        "CTC-SP2": (1114, 17.11, 32.89),
        "HPC2N": (2287, 27.63, 22.38),
        "KTH-SP2": (847, 15.37, 34.63),
        "MetaCentrum": (915, 3.94, 46.07),
        "SDSC-BLUE": (229, 0.36, 49.70),
        "SDSC-SP2": (359, 12.02, 38.01),
    },
    # thesis §6.2, Table 6.2 "Contribution of job size classes to platform
    # resource usage": (large %, small non premature %, small premature %) of the area
    "table_6_2": {
        "CTC-SP2": (98.37, 1.34, 0.29),
        "HPC2N": (99.35, 0.50, 0.15),
        "KTH-SP2": (99.59, 0.36, 0.05),
        "MetaCentrum": (99.33, 0.20, 0.47),
        "SDSC-BLUE": (99.32, 0.57, 0.11),
        "SDSC-SP2": (98.33, 1.45, 0.22),
    },
}

#: What had to be read into the published values.
PUBLISHED_NOTES: tuple[str, ...] = (
    "Table 3.1 prints HPC2N's job count as '2020,871'; read as 202,871, the job count of "
    "the PWA log HPC2N-2002-2.2.",
    "Table 3.1 prints '??(s)' as the average job duration of HPC2N and MetaCentrum-zegox, "
    "and '576(576*2)' as MetaCentrum-zegox's CPUs.",
    "Table 4.1 names SDSC-BLUE 'SDSC Blue'.",
    "Tables 6.1 and 6.2 use MetaCentrum, not CEA-Curie: the thesis has no value for CEA-Curie.",
)

#: The six main traces, the notebook's default.
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N", "CEA-Curie")

#: p~ >= PREMATURE_FACTOR * p makes a job premature (thesis §4.3.3); the two
#: readings of the definition (see the module docstring).
PREMATURE_FACTOR, READINGS = metrics.PREMATURE_FACTOR, metrics.PREMATURE_READINGS
premature = metrics.premature

#: The sets of jobs each comparison is computed on.
JOBSETS: dict[str, str] = {
    "cleaned": "all jobs kept by workload.clean (jobs with p > p~ included)",
    "no-overrun": "cleaned jobs with p <= p~ (clean(..., overrun='drop'), lelong2017 §7.2)",
    "completed": "cleaned jobs whose SWF status is 1 (completed)",
}

#: Runtime histogram bins: 10 per decade from 1 s to 10^7 s (about 116 days).
RUNTIME_EDGES = 10.0 ** (np.arange(71) / 10.0)

WEEK = workload.WEEK
DAY = workload.DAY
#: The mean Gregorian month, in days (for periods quoted in months).
MONTH_DAYS = 365.25 / 12


# -------------------------------------------------------------- parameters --

def validate_traces(value) -> list[_traces.TraceInfo]:
    """:func:`schedlab.values.trace_list` (kept for the notebook)."""
    return check.trace_list(value)


def validate_outdir(value) -> Path:
    """The output directory: ``None`` (or "") means ``results/traces`` under the
    project root (:mod:`schedlab.paths`); otherwise a path, made absolute."""
    return check.directory(value, "outdir", paths.RESULTS / STUDY)


# ------------------------------------------------------------ computations --

def _arrays(*arrays) -> list[np.ndarray]:
    out = [np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays]
    if len({a.shape[0] for a in out}) > 1:
        raise InputError(f"arrays of different lengths: {[a.shape[0] for a in out]}")
    return out


def divider(run) -> float:
    """The median actual runtime (thesis §6.2); NaN without jobs."""
    p = np.asarray(run, dtype=np.float64)
    return float(np.median(p)) if p.size else float("nan")


def size_classes(run, req, div: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masks (large, small non-premature, small premature) for divider ``div``:
    small is p <= div; small premature p~ > div, small non-premature p~ <= div."""
    p, pt = _arrays(run, req)
    small = p <= div
    return ~small, small & (pt <= div), small & (pt > div)


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else float("nan")


@dataclass(frozen=True)
class ClassStats:
    """Table 4.1, 6.1 and 6.2 quantities of one set of jobs (shares in %)."""

    n: int
    premature_ratio: float
    premature_difference: float
    divider: float
    small_nonpremature: float
    small_premature: float
    area_large: float
    area_small_nonpremature: float
    area_small_premature: float

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


def class_stats(run, req, procs, factor: float = PREMATURE_FACTOR) -> ClassStats:
    """Premature shares (both readings), divider, small/large shares of the
    jobs and of the area p*q (see the module docstring for the definitions)."""
    p, pt, q = _arrays(run, req, procs)
    n = int(p.size)
    d = divider(p)
    large, snp, sp = size_classes(p, pt, d)
    area = p * q
    total = float(area.sum())
    return ClassStats(
        n=n,
        premature_ratio=_pct(premature(p, pt, factor, "ratio").sum(), n),
        premature_difference=_pct(premature(p, pt, factor, "difference").sum(), n),
        divider=d,
        small_nonpremature=_pct(snp.sum(), n),
        small_premature=_pct(sp.sum(), n),
        area_large=_pct(area[large].sum(), total),
        area_small_nonpremature=_pct(area[snp].sum(), total),
        area_small_premature=_pct(area[sp].sum(), total),
    )


@dataclass(frozen=True)
class Weekly:
    """Per week (consecutive 7-day periods from the first submission): start
    time (s, trace time), jobs submitted, offered load, and whether the week
    is complete (the last one is cut short by the end of the log)."""

    start: np.ndarray
    jobs: np.ndarray
    load: np.ndarray
    full: np.ndarray

    def __len__(self) -> int:
        return int(self.start.shape[0])

    def _over_full(self, values: np.ndarray, fn) -> float:
        v = values[self.full] if self.full.any() else values
        return float(fn(v)) if v.size else float("nan")

    @property
    def n_full(self) -> int:
        return int(self.full.sum())

    def summary(self) -> dict[str, float]:
        """Mean, median, min and max of jobs/week and load/week over the full
        weeks (over all weeks when none is full)."""
        out = {}
        for key, values in (("jobs", self.jobs.astype(np.float64)), ("load", self.load)):
            for stat, fn in (("mean", np.mean), ("median", np.median), ("min", np.min), ("max", np.max)):
                out[f"{key}_{stat}"] = self._over_full(values, fn)
        return out


def weekly(jobs: Jobs, m: int, week: int = WEEK) -> Weekly:
    """Jobs submitted and offered load per week: load = sum of q*p of the
    week's jobs / (m * week)."""
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or m < 1:
        raise InputError(f"m must be a positive integer, got {m!r}")
    if len(jobs) == 0:
        z = np.zeros(0)
        return Weekly(z.astype(np.int64), z.astype(np.int64), z, z.astype(bool))
    edges = workload.period_edges(jobs, week)
    k = np.searchsorted(edges, jobs.submit, "right") - 1
    n_weeks = edges.size - 1
    counts = np.bincount(k, minlength=n_weeks).astype(np.int64)
    area = jobs.procs.astype(np.float64) * jobs.run.astype(np.float64)
    load = np.bincount(k, weights=area, minlength=n_weeks) / (float(m) * week)
    full = edges[1:] <= int(jobs.submit.max())
    return Weekly(edges[:-1].copy(), counts, load, full)


@dataclass(frozen=True)
class Histogram:
    """Counts of values in bins ``[edges[i], edges[i+1])``; ``below``
    counts values under ``edges[0]`` (runtime 0 for the default bins) and
    ``above`` those at or over ``edges[-1]``."""

    edges: np.ndarray
    counts: np.ndarray
    below: int
    above: int

    @property
    def n(self) -> int:
        return int(self.counts.sum()) + self.below + self.above

    @property
    def share(self) -> np.ndarray:
        """Fraction of all values (below and above included) in each bin."""
        return self.counts / self.n if self.n else np.zeros_like(self.counts, dtype=np.float64)


def histogram(values, edges=RUNTIME_EDGES) -> Histogram:
    """Histogram of ``values`` on ``edges`` (increasing; log-spaced by default)."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.size < 2 or np.any(np.diff(e) <= 0):
        raise InputError("histogram: edges must be at least two increasing values")
    idx = np.searchsorted(e, v, "right") - 1
    inside = (idx >= 0) & (idx < e.size - 1)
    counts = np.bincount(idx[inside], minlength=e.size - 1).astype(np.int64)
    return Histogram(e, counts, int((v < e[0]).sum()), int((v >= e[-1]).sum()))


def jobsets(trace, jobs: Jobs) -> dict[str, np.ndarray]:
    """Masks over ``jobs`` (cleaned from the ``SWFTrace`` ``trace``) of the
    sets of :data:`JOBSETS`.  The SWF status is found through the jobs'
    file lines."""
    status = np.full(len(jobs), -1, dtype=np.int64)
    if len(jobs) and jobs.lines is not None:
        rows = np.searchsorted(trace.lines, jobs.lines)
        rows = np.clip(rows, 0, max(trace.n - 1, 0))
        if trace.n and np.all(trace.lines[rows] == jobs.lines):
            status = trace.fields["status"][rows]
    return {
        "cleaned": np.ones(len(jobs), dtype=bool),
        "no-overrun": jobs.run <= jobs.req,
        "completed": status == 1,
    }


@dataclass
class TraceStats:
    """Everything the study computes about one trace."""

    name: str
    path: Path
    sha256: str
    registered: bool
    m: int
    jobs_in_file: int
    jobs: int
    report: workload.CleanReport
    users: int
    first_submit: int
    last_submit: int
    unix_start_time: int | None
    mean_runtime: dict[str, float]
    counts: dict[str, int]
    weekly: Weekly
    requested: Histogram
    actual: Histogram
    classes: dict[str, ClassStats]
    seconds: float = 0.0
    published: dict[str, Any] = field(default_factory=dict)

    @property
    def period_days(self) -> float:
        return (self.last_submit - self.first_submit) / DAY

    @property
    def period_weeks(self) -> float:
        return (self.last_submit - self.first_submit) / WEEK

    @property
    def period_months(self) -> float:
        return self.period_days / MONTH_DAYS

    @property
    def start_date(self) -> str | None:
        """UTC date of the first submission, when the log gives UnixStartTime."""
        if self.unix_start_time is None:
            return None
        t = self.unix_start_time + self.first_submit
        return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d")


def published_for(name: str) -> dict[str, Any]:
    """The thesis' values for trace ``name`` (registry name), by table."""
    out = {}
    for table, rows in PUBLISHED.items():
        for key, value in rows.items():
            if key.lower() == name.lower():
                out[table] = value
    return out


def characterise(trace_or_name, factor: float = PREMATURE_FACTOR) -> TraceStats:
    """Read, clean and characterise one trace (registry name, path or TraceInfo)."""
    t0 = time.perf_counter()
    info = _traces.resolve(trace_or_name)
    trace = _traces.load(info)
    if info.m is None and trace.max_procs is None:
        raise InputError(f"{info.path}: the header gives no machine size; add a line "
                         "'; MaxProcs: <number of processors>' at the top of the file")
    jobs, report = workload.clean(trace, m=info.m)
    m = int(info.m if info.m is not None else trace.max_procs)
    sets = jobsets(trace, jobs)
    run, req, procs = jobs.run, jobs.req, jobs.procs
    classes = {k: class_stats(run[s], req[s], procs[s], factor) for k, s in sets.items()}
    users = jobs.user[jobs.user >= 0] if jobs.user is not None else np.zeros(0)
    sub = jobs.submit
    return TraceStats(
        name=info.name, path=info.path, sha256=info.sha256, registered=info.registered, m=m,
        jobs_in_file=trace.n, jobs=len(jobs), report=report,
        users=int(np.unique(users).size),
        first_submit=int(sub.min()) if len(jobs) else 0,
        last_submit=int(sub.max()) if len(jobs) else 0,
        unix_start_time=trace.unix_start_time,
        mean_runtime={k: float(run[s].mean()) if s.any() else float("nan") for k, s in sets.items()},
        counts={k: int(s.sum()) for k, s in sets.items()},
        weekly=weekly(jobs, m),
        requested=histogram(req), actual=histogram(run),
        classes=classes,
        seconds=time.perf_counter() - t0,
        published=published_for(info.name) if info.registered else {},
    )


# ------------------------------------------------------------------ tables --

def _pub(stats: TraceStats, table: str, index: int | str | None = None):
    v = stats.published.get(table)
    if v is None or index is None:
        return v
    if isinstance(v, dict):
        return v.get(index)
    return v[index]


_SOURCE_NOTE = "thesis: " + THESIS.split(" (../")[0] + "."


def table_traces(stats: Sequence[TraceStats]) -> Table:
    """Thesis Table 3.1 beside ours."""
    rows = []
    for s in stats:
        rows.append([
            s.name, s.m, _pub(s, "table_3_1", "cpus"), s.start_date,
            s.jobs_in_file, s.jobs, s.counts["no-overrun"], _pub(s, "table_3_1", "jobs"), s.users,
            s.period_days, s.period_months, _pub(s, "table_3_1", "months"),
            s.mean_runtime["cleaned"], s.mean_runtime["no-overrun"], _pub(s, "table_3_1", "mean_runtime_s"),
        ])
    return Table(
        ["trace", "m", "CPUs (thesis)", "first submission", "jobs in file", "jobs cleaned",
         "jobs no-overrun", "jobs (thesis)", "users", "period (days)", "period (months)",
         "period (months, thesis)", "mean p (s) cleaned", "mean p (s) no-overrun", "mean p (s, thesis)"],
        rows, title="The traces (thesis §3.3.2, Table 3.1)",
        digits={"period (days)": 1, "period (months)": 1, "mean p (s) cleaned": 0,
                "mean p (s) no-overrun": 0},
        notes=["period: first to last submission; months of 365.25/12 days.",
               "users: distinct non-negative user ids of the cleaned jobs.",
               "no-overrun: without the jobs whose runtime exceeds their request "
               "(clean(..., overrun='drop'), lelong2017 §7.2).",
               _SOURCE_NOTE, *PUBLISHED_NOTES[:2]])


def table_weekly(stats: Sequence[TraceStats]) -> Table:
    rows = []
    for s in stats:
        w = s.weekly.summary()
        rows.append([s.name, len(s.weekly), s.weekly.n_full, w["jobs_mean"], w["jobs_median"],
                     w["jobs_max"], w["load_mean"], w["load_median"], w["load_max"]])
    return Table(
        ["trace", "weeks", "full weeks", "jobs/week mean", "jobs/week median", "jobs/week max",
         "load mean", "load median", "load max"],
        rows, title="Jobs and offered load per week",
        digits={"jobs/week mean": 1, "jobs/week median": 1, "jobs/week max": 0},
        notes=["weeks: consecutive 7-day periods from the first submission; a job counts in the "
               "week of its submission.",
               "offered load of a week: sum of q*p of its jobs / (m * 7 days), p as recorded.",
               "mean, median and max over the full weeks (the last week is cut short by the end "
               "of the log)."])


def table_cleaning(stats: Sequence[TraceStats]) -> Table:
    rows = []
    for s in stats:
        rows.append([s.name, "in", s.report.jobs_in, "", "jobs in the file"])
        rows += [[s.name, step, count, action, reason] for step, count, action, reason in s.report.steps]
        rows.append([s.name, "out", s.report.jobs_out, "", "jobs after cleaning"])
    return Table(["trace", "step", "jobs", "action", "reason"], rows,
                 title="Cleaning (schedlab.workload.clean, default options)")


def _jobset_notes() -> list[str]:
    return [f"jobs = {k}: {v}." for k, v in JOBSETS.items()]


def table_premature(stats: Sequence[TraceStats], factor: float = PREMATURE_FACTOR) -> Table:
    """Thesis Table 4.1 beside ours, per set of jobs and reading."""
    f = f"{factor:g}"
    rows = []
    for s in stats:
        for key, c in s.classes.items():
            rows.append([s.name, key, c.n, _pub(s, "table_4_1"), c.premature_ratio, c.premature_difference])
    return Table(
        ["trace", "jobs", "n", "premature % (thesis)", f"premature % p~>={f}p",
         f"premature % p~-p>={f}p"],
        rows, title="Premature jobs (thesis §4.3.3, Table 4.1)",
        notes=[f"premature, ratio reading: p~ >= {f} p; difference reading: p~ - p >= {f} p; a job "
               "with p = 0 is premature when p~ > 0.", *_jobset_notes(), _SOURCE_NOTE,
               PUBLISHED_NOTES[2]])


def table_classes(stats: Sequence[TraceStats]) -> Table:
    """Thesis Table 6.1 beside ours."""
    rows = []
    for s in stats:
        for key, c in s.classes.items():
            rows.append([s.name, key, c.n, _pub(s, "table_6_1", 0), c.divider,
                         _pub(s, "table_6_1", 1), c.small_nonpremature,
                         _pub(s, "table_6_1", 2), c.small_premature])
    return Table(
        ["trace", "jobs", "n", "divider (s, thesis)", "divider (s)", "small non-premature % (thesis)",
         "small non-premature %", "small premature % (thesis)", "small premature %"],
        rows, title="Small and premature jobs (thesis §6.2, Table 6.1)",
        digits={"divider (s)": 1},
        notes=["divider: median actual runtime p of the jobs; small: p <= divider; premature "
               "small: p~ > divider; non-premature small: p~ <= divider; in % of the jobs.",
               *_jobset_notes(), _SOURCE_NOTE, PUBLISHED_NOTES[3]])


def table_areas(stats: Sequence[TraceStats]) -> Table:
    """Thesis Table 6.2 beside ours."""
    rows = []
    for s in stats:
        for key, c in s.classes.items():
            rows.append([s.name, key, _pub(s, "table_6_2", 0), c.area_large,
                         _pub(s, "table_6_2", 1), c.area_small_nonpremature,
                         _pub(s, "table_6_2", 2), c.area_small_premature])
    return Table(
        ["trace", "jobs", "large % (thesis)", "large %", "small non-premature % (thesis)",
         "small non-premature %", "small premature % (thesis)", "small premature %"],
        rows, title="Shares of the area p*q (thesis §6.2, Table 6.2)",
        notes=["area of a job: p * q; classes as in Table 6.1 (same divider); in % of the "
               "total area of the jobs.", *_jobset_notes(), _SOURCE_NOTE, PUBLISHED_NOTES[3]])


def tables(stats: Sequence[TraceStats]) -> dict[str, Table]:
    """Every table of the study, by file name."""
    return {
        "traces": table_traces(stats),
        "weekly": table_weekly(stats),
        "cleaning": table_cleaning(stats),
        "premature": table_premature(stats),
        "classes": table_classes(stats),
        "areas": table_areas(stats),
    }


def data_weekly(stats: Sequence[TraceStats]) -> Table:
    """Per-week series of every trace (long format): the data of the weekly figure."""
    rows = []
    for s in stats:
        w = s.weekly
        for i in range(len(w)):
            rows.append([s.name, i, int(w.start[i]), bool(w.full[i]), int(w.jobs[i]), float(w.load[i])])
    return Table(["trace", "week", "start_s", "full", "jobs", "load"], rows)


def data_histograms(stats: Sequence[TraceStats]) -> Table:
    """Runtime histograms of every trace (long format): the data of the runtime figure."""
    rows = []
    for s in stats:
        for kind, h in (("requested", s.requested), ("actual", s.actual)):
            n = max(h.n, 1)
            rows.append([s.name, kind, 0.0, float(h.edges[0]), h.below, h.below / n])
            for i in range(h.counts.size):
                rows.append([s.name, kind, float(h.edges[i]), float(h.edges[i + 1]),
                             int(h.counts[i]), float(h.counts[i]) / n])
            rows.append([s.name, kind, float(h.edges[-1]), float("inf"), h.above, h.above / n])
    return Table(["trace", "kind", "lo_s", "hi_s", "count", "share"], rows)


# ----------------------------------------------------------------- figures --

def _fmt(value: float, key: str) -> str:
    return f"{value:.0f}" if key == "jobs" else f"{value:.2f}"


def figure_weekly(stats: Sequence[TraceStats]):
    """Jobs per week (left) and offered load per week (right), one row per
    trace; dashed: mean, dotted: median (over the full weeks); a hollow
    marker: the last, partial week."""
    from matplotlib.lines import Line2D
    n = len(stats)
    with plots.style():
        fig = plots.figure(7.0, 1.45 * n + 0.8)
        axes = fig.subplots(n, 2, squeeze=False)
        for row, s in zip(axes, stats):
            w = s.weekly
            summ = w.summary()
            colour = plots.trace_color(s.name)
            x = np.arange(len(w))
            for ax, values, key in ((row[0], w.jobs, "jobs"), (row[1], w.load, "load")):
                full = w.full
                ax.plot(x[full], values[full], color=colour, lw=1.0, drawstyle="steps-mid")
                if (~full).any():
                    ax.plot(x[~full], values[~full], ls="none", marker="o", mfc="none", mec=colour, ms=3)
                ax.axhline(summ[f"{key}_mean"], color="k", ls="--", lw=0.8)
                ax.axhline(summ[f"{key}_median"], color="k", ls=":", lw=0.8)
                top = float(np.max(values)) if len(values) else 1.0
                ax.set_ylim(0, 1.3 * top if top > 0 else 1.0)
                ax.set_xlim(-0.5, max(len(w) - 0.5, 0.5))
                ax.text(0.01, 0.97, f"mean {_fmt(summ[f'{key}_mean'], key)}, "
                        f"median {_fmt(summ[f'{key}_median'], key)}",
                        transform=ax.transAxes, va="top", ha="left", fontsize=7)
            row[1].axhline(1.0, color="0.6", lw=0.6)
            row[0].set_ylabel(f"{s.name}\njobs / week")
            row[1].set_ylabel("offered load")
        for ax in axes[-1]:
            ax.set_xlabel("week since first submission")
        axes[0, 0].set_title("jobs submitted per week")
        axes[0, 1].set_title("offered load per week: sum q*p / (m * 7 days)")
        handles = [Line2D([], [], color="0.3", lw=1.0, label="week"),
                   Line2D([], [], color="k", ls="--", lw=0.8, label="mean (full weeks)"),
                   Line2D([], [], color="k", ls=":", lw=0.8, label="median (full weeks)"),
                   Line2D([], [], color="0.3", ls="none", marker="o", mfc="none", ms=3,
                          label="last (partial) week")]
        fig.legend(handles=handles, loc="outside lower center", ncols=4)
    return fig


def figure_runtimes(stats: Sequence[TraceStats]):
    """Like thesis Fig. 6.1: distribution of requested (top) and actual
    (bottom) runtimes, one column per trace, on log-scaled bins (10 per
    decade); the green line is the divider (median actual runtime of the
    cleaned jobs), the grey ones mark a minute, an hour and a day."""
    n = len(stats)
    with plots.style():
        fig = plots.figure(max(2.0 * n, 4.0), 4.4)
        axes = fig.subplots(2, n, squeeze=False, sharex=True)
        for j, s in enumerate(stats):
            colour = plots.trace_color(s.name)
            d = s.classes["cleaned"].divider
            for i, (kind, h) in enumerate((("requested", s.requested), ("actual", s.actual))):
                ax = axes[i, j]
                share = 100.0 * h.share
                ax.stairs(share, h.edges, fill=True, color=colour, alpha=0.75, lw=0)
                for t in (60, 3600, 86400):
                    ax.axvline(t, color="0.8", lw=0.5, zorder=0)
                if np.isfinite(d) and d > 0:
                    ax.axvline(d, color="g", lw=1.0)
                ax.set_xscale("log")
                ax.set_ylim(0, 1.25 * max(float(share.max()) if share.size else 0.0, 1.0))
                symbol = "p~" if kind == "requested" else "p"
                lines = [f"divider {d:.0f} s"] if i == 1 and np.isfinite(d) else []
                if h.below:
                    lines.append(f"{symbol} = 0: {100.0 * h.below / h.n:.2g}%")
                if h.above:
                    lines.append(f"{symbol} >= {h.edges[-1]:.0e} s: {100.0 * h.above / h.n:.2g}%")
                if lines:
                    ax.text(0.98, 0.97, "\n".join(lines), transform=ax.transAxes, va="top",
                            ha="right", fontsize=7)
                if i == 0:
                    ax.set_title(s.name)
                if j == 0:
                    ax.set_ylabel(f"{kind} runtime\n% of jobs per bin")
                if i == 1:
                    ax.set_xlabel("seconds")
            axes[0, j].set_xlim(RUNTIME_EDGES[0], RUNTIME_EDGES[-1])
    return fig


# ----------------------------------------------------------------- numbers --

def numbers(stats: Sequence[TraceStats]) -> dict[str, Any]:
    """The key numbers of the study, per trace (for the paper)."""
    out = {}
    for s in stats:
        w = s.weekly.summary()
        out[s.name] = {
            "m": s.m, "jobs_in_file": s.jobs_in_file, "jobs": s.jobs, "users": s.users,
            "period_days": s.period_days, "period_weeks": s.period_weeks,
            "period_months": s.period_months, "weeks": len(s.weekly), "full_weeks": s.weekly.n_full,
            "jobs_per_week_mean": w["jobs_mean"], "jobs_per_week_median": w["jobs_median"],
            "load_per_week_mean": w["load_mean"], "load_per_week_median": w["load_median"],
            "mean_runtime_s": s.mean_runtime["cleaned"],
            "premature_pct": s.classes["cleaned"].premature_ratio,
            "premature_pct_difference_reading": s.classes["cleaned"].premature_difference,
            "divider_s": s.classes["cleaned"].divider,
            "by_jobs": {k: {"n": c.n, **{f: v for f, v in c.as_dict().items() if f != "n"}}
                        for k, c in s.classes.items()},
            "published": s.published,
        }
    return out


# --------------------------------------------------------------------- run --

def run(traces: Iterable = DEFAULT_TRACES, outdir=None) -> dict[str, Any]:
    """Characterise ``traces`` and write every output under ``outdir``
    (default ``results/traces``), each file atomically:

    * ``tables/{traces,weekly,cleaning,premature,classes,areas}.{csv,md}``;
    * ``figures/{weekly,runtimes}.{png,pdf}``;
    * ``data/{weekly,runtime_histograms}.csv`` (the data behind the figures);
    * ``numbers.json`` (key numbers per trace, the thesis' values, provenance).

    Returns a dict: ``stats`` (list of :class:`TraceStats`), ``tables``
    (name -> :class:`~schedlab.studies.Table`), ``figures`` (name -> [png,
    pdf]), ``files`` (every path written), ``numbers``, ``outdir`` and
    ``seconds`` (wall time).
    """
    t0 = time.perf_counter()
    infos = validate_traces(list(traces) if not isinstance(traces, (str, os.PathLike)) else traces)
    out = validate_outdir(outdir)
    stats = [characterise(info) for info in infos]
    files: list[Path] = []
    tabs = tables(stats)
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    files.append(write_text(out / "data" / "weekly.csv", data_weekly(stats).to_csv()))
    files.append(write_text(out / "data" / "runtime_histograms.csv", data_histograms(stats).to_csv()))
    figs = {}
    for name, make in (("weekly", figure_weekly), ("runtimes", figure_runtimes)):
        fig = make(stats)
        figs[name] = plots.savefig(fig, out / "figures" / name)
        files += figs[name]
    nums = numbers(stats)
    seconds = time.perf_counter() - t0
    doc = {
        "study": STUDY,
        "definitions": {
            "premature_factor": PREMATURE_FACTOR,
            "premature": "ratio reading p~ >= factor*p (difference reading p~ - p >= factor*p "
                         "under *_difference*); p = 0 is premature when p~ > 0",
            "divider": "median actual runtime p of the jobs",
            "small": "p <= divider; premature small: p~ > divider",
            "area": "p * q",
            "load": "sum of q*p of a week's submitted jobs / (m * 7 days), over full weeks",
            "jobs": JOBSETS,
            "units": {"*_pct": "percent", "*_s": "seconds", "load": "fraction of m"},
        },
        "traces": nums,
        "published_source": THESIS,
        "published_notes": list(PUBLISHED_NOTES),
        "provenance": {
            "schedlab": __version__,
            "git": paths.git_state(),
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "wall_s": seconds,
            "parameters": {"traces": [s.name for s in stats], "outdir": str(out)},
            "inputs": {s.name: {"path": str(s.path), "sha256": s.sha256, "registered": s.registered}
                       for s in stats},
        },
    }
    files.append(write_json(out / "numbers.json", doc))
    return {"stats": stats, "tables": tabs, "figures": figs, "files": files, "numbers": nums,
            "outdir": out, "seconds": time.perf_counter() - t0}
