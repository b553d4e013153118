"""Study 0 -- traces: workload characterisation.

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

The notebook ``notebooks/00-traces.ipynb`` holds its parameters and calls
the driver (``run_study("traces", globals())``), which runs :func:`compute`
and writes tables (CSV and Markdown), figures (PNG and PDF), the data
behind the figures (CSV) and ``numbers.json``.  Every computation is a
plain function of arrays (:func:`premature`, :func:`divider`,
:func:`size_classes`, :func:`class_stats`, :func:`weekly`,
:func:`histogram`), tested on generated traces whose answers are known by
construction.

Definitions (the choices where the thesis is terse are written here, once):

* **Jobs.** A trace is cleaned with :func:`schedlab.workloads.workload.clean` (the
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
  (:func:`schedlab.workloads.workload.period_edges`); a job belongs to the week of its
  submission.  *Offered load* of a week = sum of q*p of its jobs / (m * 7
  days), p as recorded in the log.  The last week is cut short by the end of
  the log, so means and medians are over the other ("full") weeks.

The package: :mod:`~schedlab.studies.traces.params` (defaults and
validators), :mod:`~schedlab.studies.traces.cells` (one trace read, cleaned
and characterised), :mod:`~schedlab.studies.traces.analysis` (the pure
computations), :mod:`~schedlab.studies.traces.tables`,
:mod:`~schedlab.studies.traces.figures`, :mod:`~schedlab.studies.traces.report`
(the key numbers), :mod:`~schedlab.studies.traces.run` (:func:`compute`) and
``published.toml`` (the thesis' values, each table with its source; read by
:mod:`~schedlab.studies.traces.published`).  Every public name is
re-exported here.
"""
from __future__ import annotations

from .analysis import (DAY, JOBSETS, MONTH_DAYS, RUNTIME_EDGES, WEEK, ClassStats, Histogram, Weekly,
                       class_stats, divider, histogram, jobsets, premature, size_classes, weekly)
from .cells import TraceStats, characterise
from .figures import figure_runtimes, figure_weekly
from .params import DEFAULT_TRACES, PREMATURE_FACTOR, READINGS, STUDY, Params
from .published import PUBLISHED, PUBLISHED_NOTES, THESIS, published_for
from .report import numbers
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute
from .tables import (data_histograms, data_weekly, table_areas, table_classes, table_cleaning, table_premature,
                     table_traces, table_weekly, tables)

__all__ = [
    "THESIS", "PUBLISHED", "PUBLISHED_NOTES", "DEFAULT_TRACES", "PREMATURE_FACTOR", "READINGS",
    "JOBSETS", "RUNTIME_EDGES", "Weekly", "Histogram", "ClassStats", "TraceStats",
    "Params", "compute", "premature", "divider", "size_classes",
    "class_stats", "weekly", "histogram", "jobsets", "characterise", "published_for", "tables",
    "data_weekly", "data_histograms",
    "figure_weekly", "figure_runtimes", "numbers",
]
