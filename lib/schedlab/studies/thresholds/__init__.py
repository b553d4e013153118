"""Study 2 -- thresholds and generalisation.

Reproduces, from the logs of the Parallel Workloads Archive:

* **lelong2017 §6, Fig. 5** -- the waiting-time threshold: the 7 primary
  policies (FCFS, LCFS, SPF, LPF, SQF, LQF, EXP = LEXP) with SPF backfilling,
  thresholded at T = 20 h and not, on resampled weeks of KTH-SP2; AvgWait and
  MaxWait relative to EASY-FCFS-FCFS (:func:`threshold_effect`).
* **lelong2017 §7, Figs. 6-8** -- the train/test protocol: each trace is split
  at its temporal midpoint (:func:`schedlab.workloads.workload.split`), weeks are
  resampled from each half (:func:`schedlab.workloads.workload.resample_weeks`), the
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
run through :mod:`schedlab.campaigns.runner` (dask, any scheduler, cached,
resumable); the notebook ``notebooks/02-thresholds.ipynb`` runs the study
through the driver (``run_study("thresholds", globals())``), which validates
the parameters (:class:`Params`, declared once; defaults = the quick profile)
and calls :func:`compute`.  The cells import none of the study's parameters,
analysis, tables or figures and carry no version: their cache keys follow
their code.

Definitions (the choices where the papers are terse are written here, once):

* **Cleaning** (lelong2017 §7.2): :func:`schedlab.workloads.workload.clean` with
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
  the log (``"recorded"``, :func:`schedlab.workloads.workload.recorded_finish`, as the
  thesis did), by r + p (``"run"``) or by r + p~ (``"req"``).

The package: :mod:`.params` (parameters, the published values of
``published.toml``), :mod:`.cells` (the thesis cell, the choices it reads,
the campaigns), :mod:`.analysis` (the computations), :mod:`.tables`,
:mod:`.figures`, :mod:`.report` (key numbers) and :mod:`.run` (:func:`compute`).
"""

from __future__ import annotations

from .analysis import (TrainTest, gain_ci, generalisation, ratio_of_means, select, thesis_tables, threshold_effect,
                       train_test, traintest_dataset)
from .cells import thesis_cell, traintest_campaigns
from .params import (CRITERIA, DEFAULT_TRACES, FINISH, LELONG, METRICS, PAPER_THRESHOLDS, PUBLISHED, THESIS,
                     THESIS_TABLES, THESIS_THRESHOLDS, THESIS_TRACES, THESIS_WEEKS, Params, parse_thresholds)
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .params import MIN_JOBS, MIN_JOBS_WHY  # noqa: F401  (the driver, schedlab.protocol.study.cleaning_records)
from .run import compute
from .tables import table_thesis_5_6

__all__ = [
    "traintest_campaigns",
    "LELONG", "THESIS", "PUBLISHED", "DEFAULT_TRACES", "PAPER_THRESHOLDS", "THESIS_TRACES", "THESIS_WEEKS",
    "THESIS_TABLES", "THESIS_THRESHOLDS", "CRITERIA", "FINISH", "METRICS", "Params", "compute",
    "parse_thresholds", "ratio_of_means", "gain_ci", "select", "train_test",
    "TrainTest", "thesis_cell", "threshold_effect", "traintest_dataset", "generalisation",
    "thesis_tables", "table_thesis_5_6",
]
