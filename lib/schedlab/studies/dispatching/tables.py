"""The tables of the dispatching study."""
from __future__ import annotations

from .. import Table


def table_weeks(datasets: dict) -> Table:
    """One row per trace and simulated week."""
    rows = []
    for name, ds in datasets.items():
        for i, week in enumerate(ds["week"].values):
            rows.append([name, int(week), int(ds["jobs"].values[i]), float(ds["avg_wait"].values[i]) / 3600,
                         float(ds["max_wait"].values[i]) / 3600, float(ds["mean_bsld"].values[i]),
                         float(ds["utilisation"].values[i])])
    return Table(["trace", "week", "jobs", "mean wait (h)", "max wait (h)", "mean bsld", "utilisation"], rows,
                 title="EASY on each week, simulated alone", digits={"mean wait (h)": 2, "max wait (h)": 1},
                 notes=["week: index of the week of the cleaned log, from its first submission."])


def table_summary(summary: dict) -> Table:
    """The mean over the weeks of each trace (:func:`analysis.per_trace`)."""
    rows = [[name, s["weeks"], s["avg_wait"] / 3600, s["max_wait"] / 3600, s["mean_bsld"], s["utilisation"]]
            for name, s in summary.items()]
    return Table(["trace", "weeks", "mean wait (h)", "max wait (h)", "mean bsld", "utilisation"], rows,
                 title="Mean over the weeks of each trace")
