"""Study 1 -- policies: which queue policies should EASY use?

Three published comparisons of EASY-backfilling queue policies, recomputed
with the compendium's simulator, each beside the values the papers print:

* **lelong2017 §3.4, §5** (:data:`LELONG`).  The 7 x 7 pairs EASY-P_R-P_B
  of its policies (FCFS, LCFS, SPF, LPF, SQF, LQF and EXP, "largest
  expansion factor first", our LEXP) on resampled weeks of KTH-SP2: per
  week, AvgWait and MaxWait relative to EASY-FCFS-FCFS on the same week;
  means with first and last deciles (its Figs. 2-3), the backfilling
  policy conditioned on the primary one (Fig. 4); and its Tables 1-2 on
  the *original* CTC-SP2 and SDSC-SP2 logs.
* **thesis chapter 4** (zrigui2021 §4.2-4.3, :data:`THESIS`).  FCFS, SPF,
  SQF and SAF with a waiting-time threshold on resampled traces of five
  logs: cumulative weekly mean bsld, pp-bsld and wait with 10-90 percentile
  bands (Fig. 4.1), the processors q of the most delayed jobs (Fig. 4.2),
  bsld categories (Fig. 4.3), premature vs standard jobs (Table 4.2) and
  backfilled-job counts (Fig. 4.4).
* **online-bandit Table 2** (:data:`BANDIT`).  The 12 policies in
  EASY(P, 40 h), one thresholded queue for starting and backfilling, on
  two-year resampled traces: relative change of the total waiting time
  against EASY(FCFS, 40 h).

Every gain over FCFS comes with a percentile-bootstrap confidence interval
over the resampled weeks or traces (:func:`schedlab.stats.bootstrap_ci`).

Choices where the papers are silent (each is a parameter or written here once):

* **Cleaning.**  lelong2017 §7.2 removes the jobs with p > p~
  (``workload.clean(..., overrun="drop")``); the thesis and online-bandit
  §6.1.1 do not, so those parts use the project default (kept, killed at
  p~ by the simulator).  :data:`OVERRUN` holds the choice per part.
* **Estimates.**  Requested times p~ everywhere (the papers' EASY).
* **lelong2017 resampling.**  Each resampled week is its own week-long
  trace (``workload.resample_weeks``, lelong2017 §4.1), simulated by the
  campaign's built-in ``simulate`` cell.
* **Thesis protocol** (§4.2).  10 samples per trace, each a continuous
  resampled trace as long as the original (``weeks=None``: as many weeks as
  the cleaned log spans).  Chapter 4 does not print its threshold; its
  §5.8 says 2.31 days (200000 s) is "the value that is used for the rest of
  our research", which is the default here.  The threshold reorders the
  primary queue only (lelong2017 §6.1; the thesis' Batsim scheduler is not
  described further).  P_R = P_B = P ("backfill according to the selected
  policy", thesis Algorithm 1).  Premature: p~ >= 100 p (the ratio reading
  of :func:`schedlab.engine.metrics.premature`).  bsld categories: bsld = 1,
  1 < bsld < 10, 10 <= bsld < 100, bsld >= 100.  "Cumulative weekly
  average" at week k: the mean over the jobs *finished* by the end of week
  k (jobs finishing after the last week count in the last one).  The
  most delayed jobs: the 100 jobs with the highest bsld of each sample
  (ties by job order).  Table 4.2 "ours" is the mean over samples of the
  per-sample ratio mean bsld(premature) / mean bsld(standard); the same
  ratio on the original log is shown beside it.
* **online-bandit protocol** (§6.1.3-6.2).  Per trace, ``samples``
  resampled traces of ``weeks`` = 104 weeks, each resampled as one
  continuous trace (``workload.resample``); EASY(P, Θ) = P for both queues
  with ``threshold_backfill=True``; the statistic is its Eq. 11,
  (sum_k W(T_k, P) - sum_k W(T_k, FCFS)) / sum_k W(T_k, FCFS), with W the
  total waiting time of a resampled trace.  We lack ANL-Intrepid and
  UniLu-Gaia, so their rows are published values only.

What is checked where we differ from the papers (each is an output):

* Tables 1-2 are recomputed with jobs p > p~ kept or removed and with
  requested or clairvoyant estimates (``lelong_variants``), and the
  largest waits behind MaxWait are listed (``lelong_maxwait``).
* Table 4.2 is recomputed on the original logs with and without the
  threshold and both cleanings, with the jobs SQF backfills in each case
  (``thesis_variants``).
* online-bandit Table 2 is scored against ours under three readings of its
  smallest/largest labels (:data:`SWAPS`, ``bandit_mapping``), and every
  cell carries the candidate readings of :mod:`.readings` (the label maps
  ocst ran in 2017, each queue separately; table ``bandit_readings``),
  judged by :func:`schedlab.protocol.scorecard.identify` on declared fit rows (the
  KTH-SP2 row) and held-out rows (the other logs).

Campaigns (one per part and trace, :func:`campaigns`) share one local dask
cluster, started only when a cell is missing from the cache.  Cells:
the built-in ``simulate`` (lelong2017 pairs), :func:`same_policy_cell`
(EASY-P-P on the original logs), :func:`thesis_cell`, and for the online-bandit
part the selection study's fixed-policy cells (one simulation for both studies).

The notebook ``notebooks/01-policy-comparison.ipynb`` runs the study through
the driver (``run_study("policies", globals())``), which validates the
parameters (:class:`Params`, declared once; defaults = the quick profile) and
calls :func:`compute`: the grids run as campaigns (dask, any scheduler,
cached, resumable) and it hands the datasets, tables, figures and key numbers
to the driver, which writes them.  The computations are plain functions of
arrays (:func:`relative_summary`, :func:`bsld_classes`, :func:`premature_ratio`,
:func:`cumulative_by_week`, :func:`top_procs`, :func:`total_change`,
:func:`mapping_check`), tested on inputs whose answers are known by
construction.  The cells import none of the study's parameters, tables or
figures and carry no version: their cache keys follow their code.

The package: :mod:`.params` (parameters, choices, the published values of
``published.toml``), :mod:`.cells` (campaign cells, the choices they read, their
per-job helpers, and campaigns),
:mod:`.analysis` (the computations), :mod:`.tables`, :mod:`.figures`,
:mod:`.report` (key numbers and findings) and :mod:`.run` (:func:`compute`).
"""

from __future__ import annotations

from .analysis import (bsld_classes, cumulative_by_week, mapping_check, pair_summary, premature_ratio,
                       relative_summary, thesis_comparison, top_procs, total_change)
from .cells import largest_waits, same_policy_cell, schedule_outputs, source_weeks, thesis_cell
from .plan import campaigns
from .params import (BANDIT, BSLD_CLASSES, CLAIMS, LELONG, OVERRUN, PUBLISHED, SWAPS, TABLE_POLICIES, THESIS,
                     Params)
from .report import findings, numbers
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute

__all__ = [
    "LELONG", "THESIS", "BANDIT", "PUBLISHED", "CLAIMS", "OVERRUN", "TABLE_POLICIES",
    "BSLD_CLASSES", "SWAPS", "Params", "compute", "campaigns",
    "relative_summary", "pair_summary", "bsld_classes", "premature_ratio", "cumulative_by_week",
    "top_procs", "schedule_outputs", "total_change", "mapping_check", "thesis_comparison", "largest_waits",
    "source_weeks", "same_policy_cell", "thesis_cell", "findings", "numbers",
]
