"""The tables of the traces study (thesis Tables 3.1, 4.1, 6.1 and 6.2 beside
ours, the weeks, the cleaning) and the data behind its figures.
"""
from __future__ import annotations

from typing import Sequence

from .. import Table
from .analysis import JOBSETS
from .cells import TraceStats
from .params import PREMATURE_FACTOR
from .published import PUBLISHED_NOTES, THESIS


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
                 title="Cleaning (schedlab.workloads.workload.clean, default options)")


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
