"""Study 4 -- classification: weekly small/large job classification,
small-first queues, kill-and-requeue, clairvoyant bounds (thesis ch. 6).

The thesis (zrigui2021 ch. 6, :data:`THESIS`) learns online, week after week,
whether a job will run longer than the *divider* (the median actual
runtime), runs the jobs classified small first, kills a job running as
small once it passes the divider of its week and requeues it as large,
and compares
with schedulers that know the true classes or the true runtimes.  This
module recomputes it on the bundled logs (or any SWF trace):

* **the classifier** (§6.3): features of Table 6.3 (:data:`FEATURES`), a
  random forest retrained at the start of every week on everything known
  by then and used for that week; the first week every job is large;
  accuracy, precision and recall per week and overall (Fig. 6.4, Tables
  6.4-6.5) and the weekly Gini feature importances (Fig. 6.5);
* **the scheduling study** (§6.4-6.5): EASY with FCFS, SPF, SAF and WFP
  (P_R = P_B = P) and a waiting-time threshold, each in the variants of
  :data:`VARIANTS` -- cumulative bsld (Fig. 6.7), monthly mean bsld
  (Fig. 6.6), small vs large jobs (Fig. 6.8), totals (Fig. 6.9) and the
  improvement over EASY-FCFS (Table 6.6), published beside ours.

The thesis' sixth trace, MetaCentrum (zegox), is not bundled
(:data:`MISSING_TRACES`): its rows are published values only.

Definitions and choices (the thesis is silent or ambiguous on each; every
one is a parameter or written here once):

* **Weeks** are consecutive 7-day periods from the first submission
  (:func:`schedlab.workloads.workload.period_edges`); week k is ``[e_k, e_k+1)`` and
  a job belongs to the week of its submission.  ``weeks=N`` keeps only the
  first N weeks of a trace (for quick runs).
* **Runtime** p is the log's actual runtime (the thesis' Table 6.1 dividers
  are medians of p, see :mod:`schedlab.studies.traces`); jobs with p > p~
  are kept and the simulator kills them at p~ (project default).
* **When a job is known.**  A job's runtime (hence its class) becomes
  known when it finishes.  With ``finish="log"`` that is the
  finish time the log records, r + wait + p (what the real machine knew);
  a job whose log wait is missing is never known.  ``finish="easy-fcfs"``
  uses the EASY-FCFS simulation of the cleaned trace instead (for logs
  without wait times).  The default, ``"auto"``, is the log's unless the
  log records no wait at all, and says which it used (``finish_used`` in
  the numbers, a sentence in the findings).  Known means finished *strictly* before the moment
  of use, so no job ever sees itself.
* **Divider of week k** (:func:`weekly_dividers`): the median runtime of
  the jobs known at e_k -- all of them (``divider_window="all"``, "the
  median actual runtime of the previous data") or only those that
  finished during week k-1 (``"week"``, the thesis' "median execution time
  over the workload log of the previous week").  Week 0 has none; where
  one is needed for week-0 jobs the first divider is used.  Early dividers
  are low: the jobs that have finished by a week's start are biased
  towards short ones (KTH-SP2's first divider is 30 s, its last 847 s).
* **True class** of a job: small iff p <= the divider of its week.
* **Features** (:func:`features`, Table 6.3) are computed at submission:
  p~ and q; hour, day of week, day of month, month, ISO week and quarter
  of the submission in the trace's local time (header ``TimeZoneString``,
  else UTC); for each category (u, p~), (u, q) and (u, day) of the job --
  same user and same request, same processors, same local calendar day --
  the classes of the three most recently *completed* jobs of that category
  (1 small, 0 large, -1 none) and the share of small jobs among all its
  completed jobs (-1 when none).  A completed job's class is recorded with
  the divider in force when it finished.  With ``history="completed"``
  (default) "completed" means finished before the job's submission;
  ``history="previous-weeks"`` freezes the history at the start of the
  job's week, as the thesis' decoupled implementation did (§6.3.2).
* **Training** (:func:`training_mask`, §6.3.2): the model of week k >= 1 is
  a random forest trained on the jobs known at e_k (their features as
  computed at their submission; labels with the divider of week k), and
  classifies the jobs submitted in week k.  No known job or a single known
  class: all jobs of the week are large (or that class).  The forest is
  scikit-learn's ``RandomForestClassifier`` (Gini; ``trees`` trees;
  ``max_samples`` caps each tree's bootstrap sample, None = as many as the
  training rows); its seed is derived from ``seed`` and the week.
  :func:`fit_forest` grows exactly the forest ``RandomForestClassifier.fit``
  grows (same trees, predictions and importances), each tree on the
  distinct training rows weighted by their bootstrap counts (faster).
* **Scores** (:func:`scores`): TS, FS, TL, FL as in §6.3.3 (footnote 3);
  accuracy (TS+TL)/n, precision TS/(TS+FS), recall TS/(TS+FL); undefined
  (NaN) when the denominator is 0.  Overall scores (Table 6.4) sum the
  counts of the weeks with a classifier (week 1 on).  Table 6.5 is shown
  under its printed formulas, FL/(FL+TL) and FS/(FS+TS), and as shares of
  all jobs, FL/n and FS/n -- the reading its own Table 6.4 agrees with.
* **Scheduling** (:func:`simulate_variant`): EASY-P-P with threshold
  ``threshold`` (default 200000 s = 2.31 days, "the value that is used for
  the rest of our research", thesis §5.8) in every variant; the
  variants are listed in :data:`VARIANTS`.  Runtime-clairvoyant gives the
  heuristic the actual runtime: p~ is replaced by the duration the job
  runs, min(p, p~), in the queue keys *and* the estimates (with
  ``estimate="actual"`` alone, SPF/SAF/WFP would still order by p~).
  A sixth variant, EASY++ (P_R = P, SJBF backfilling on the EASY++
  predictions with incremental corrections), is the regression reference of
  Table 6.6.
* **Kill divider** (:func:`kill_dividers`): classification-idempotent
  kills a job running as small at the divider of the week it was
  classified in -- the divider computed from the data before that week,
  the one that labels its week's training data and its true class (thesis
  §6.4, Algorithm 4 with the weekly divider of §6.3) -- rounded down
  (runtimes are integers).  The engine takes one divider per job.  So a
  job is killed and requeued iff it is classified small and the duration it
  runs, min(p, p~), exceeds its week's divider: the same jobs under every
  policy, never a truly small one (``requeued_true_small`` is 0).
* **Metrics**: bsld with tau = 10 s on the duration of the run that
  completed (thesis Eq. 3.3); a requeued job's wait includes its killed
  run.  "Cumulative bsld" is the total bsld of the jobs finished by the
  end of each week; the total (Fig. 6.9, Table 6.6) is the sum over all
  jobs; the improvement over EASY-FCFS is 1 - total / total(FCFS base).
  Monthly values are means over the jobs submitted in each 30-day period
  from the first submission.

The notebook ``notebooks/04-classification.ipynb`` validates its
parameters (:func:`validate`) and calls :func:`run`, which runs the weekly
classifiers and the simulations as campaigns (dask, cached per cell,
resumable) and writes datasets, tables, figures and ``numbers.json``.

The package: :mod:`.params` (defaults, choices, :func:`validate`),
:mod:`.cells` (what the campaign cells compute: weeks, dividers, features,
the weekly forest, the scheduling variants; the cells and campaigns),
:mod:`.analysis` (scores and per-trace results), :mod:`.tables`,
:mod:`.figures`, :mod:`.report` (:func:`numbers`, :func:`findings`),
:mod:`.run` (:func:`compute`, run by the driver :func:`schedlab.protocol.study.run_study`) and ``published.toml`` (the thesis' values, with
their sources).
"""
from __future__ import annotations

from .analysis import TraceResult, predictions_from, scores
from .cells import (FEATURE_LABELS, FEATURE_NAMES, FEATURES, LAGS, OUTCOMES, Prepared,
                    campaign_schedule, campaigns_classify, classify_cell, classify_trace, completion_classes,
                    confusion, cumulative_sum_by_period, effective_dividers, feature_matrix, features, fit_forest, fit_week,
                    history_features, kill_dividers, known_finish, month_edges, pack_classes, prepare,
                    schedule_cell, schedule_outputs, simulate_variant, temporal_features, training_mask,
                    true_classes, unpack_classes, week_edges, weekly_dividers)
from .figures import (VARIANT_COLORS, figure_cumulative, figure_importance, figure_monthly, figure_small_large,
                      figure_totals, figure_weekly_scores)
from .params import (DAY, DEFAULT_TRACES, DIVIDER_WINDOWS, FINISHES, HISTORIES, MISSING_TRACES, MONTH, POLICIES,
                     STUDY, THESIS_VARIANTS, THRESHOLD, VARIANT_LABELS, VARIANTS, WEEK, Params)
from .report import findings, numbers
from .tables import (CLAIMS, PUBLISHED, SMALL_LARGE_CLAIM, THESIS, table_6_4, table_6_5, table_6_6,
                     table_dividers, table_gains, table_small_large, table_totals, table_weekly_summary)
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import MIN_WEEKS, compute

__all__ = [
    "MIN_WEEKS",
    "THESIS", "PUBLISHED", "CLAIMS", "MISSING_TRACES", "DEFAULT_TRACES", "POLICIES", "VARIANTS",
    "FEATURES", "OUTCOMES", "Params", "compute", "week_edges", "known_finish", "weekly_dividers",
    "completion_classes", "temporal_features", "history_features", "features", "training_mask",
    "fit_week", "fit_forest", "confusion", "scores", "kill_dividers", "simulate_variant", "schedule_outputs",
    "pack_classes", "unpack_classes", "classify_cell", "schedule_cell", "classify_trace",
    "campaigns_classify", "campaign_schedule", "Prepared", "prepare", "feature_matrix",
    "effective_dividers", "true_classes", "TraceResult", "numbers", "findings",
    # also public, and reached as study.<name> before the package
    "STUDY", "WEEK", "DAY", "MONTH", "THESIS_VARIANTS", "VARIANT_LABELS", "VARIANT_COLORS", "FEATURE_NAMES",
    "FEATURE_LABELS", "LAGS", "HISTORIES", "DIVIDER_WINDOWS", "FINISHES", "THRESHOLD", "SMALL_LARGE_CLAIM",
    "cumulative_sum_by_period", "month_edges", "predictions_from", "table_6_4",
    "table_6_5", "table_6_6", "table_totals", "table_gains", "table_small_large", "table_dividers",
    "table_weekly_summary", "figure_weekly_scores", "figure_importance", "figure_cumulative", "figure_monthly",
    "figure_small_large", "figure_totals",
]
