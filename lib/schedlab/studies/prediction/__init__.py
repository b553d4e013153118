"""Study 6 -- runtime prediction for backfilling (gaussier2015).

Reproduces, from the logs of the Parallel Workloads Archive, the experiments
of gaussier2015 (:data:`GAUSSIER`): EASY-backfilling scheduled with four
kinds of runtime estimates,

* **clairvoyant** -- the actual runtime (an upper bound on what prediction can give);
* **requested** -- the user's requested time p~ (plain EASY);
* **EASY++** (AVE_2) -- the mean of the user's last two completed runtimes
  (Tsafrir et al.; computed in the C core);
* **learned** -- the online polynomial regression of gaussier2015 §4 under each
  of its 20 losses (:mod:`schedlab.engine.prediction`; E-Loss among them), learned
  inside the simulation from the jobs completed so far (in the C core:
  :class:`schedlab.engine.sim.Learned`, bit for bit the Python reference
  :class:`schedlab.engine.prediction.LearnedEstimator`),

times the three corrections of an estimate that a running job outlives
(requested time, incremental, recursive doubling; gaussier2015 §5.2) times two
backfilling orders, EASY (EASY-FCFS-FCFS) and EASY-SJBF (EASY-FCFS-SJBF:
backfill the shortest estimate first).  One cell of that grid -- a *heuristic
triple* (prediction, correction, backfilling) on one log -- is one
simulation, run through :mod:`schedlab.campaigns.runner` (dask, cached): see
:func:`prediction_cell`.  From the grid the study computes

* **Table 1** -- EASY vs EASY-Clairvoyant (:func:`table1`);
* **Table 6** -- the AVEbsld of every approach, best and worst of the learned
  ones (:func:`table6`);
* **Table 7** -- the leave-one-log-out selection of the heuristic triple: on
  each log, the triple with the least sum of AVEbsld over the *other* logs
  (:func:`loo_selection`); also the paper's recommended triple (E-Loss,
  incremental, EASY-SJBF) on every log, and the Pearson correlations of the
  triples' AVEbsld between logs (§6.3.2);
* **Table 8** -- MAE and mean E-Loss of the EASY++ and E-Loss predictions
  (:func:`table8`);
* **Figs. 4-5** -- ECDFs of the prediction errors and of the predicted values
  (:func:`figure_errors`, :func:`figure_predicted`);
* and Table 4 (the logs) with our job counts, the AVEbsld of every triple
  relative to EASY (:func:`figure_triples`), and the cost of learning: the
  wall time of a learned-prediction simulation over a requested-time one, with
  the C estimator and with the Python reference (:func:`slowdowns`).

Definitions (the choices where the paper is terse are written here, once):

* **Logs and cleaning.** gaussier2015 §6.2 (Table 4) uses KTH-SP2, CTC-SP2,
  SDSC-SP2, SDSC-BLUE, Curie (CEA-Curie) and Metacentrum; it says nothing
  about cleaning, and its job counts are those of the whole PWA files.
  Metacentrum is not in the Parallel Workloads Archive's files we bundle: it
  is left out (the leave-one-log-out selection runs over five logs, not six).
  Every log goes through :func:`schedlab.workloads.workload.clean` with the project's
  defaults (jobs with p > p~ are kept and killed at p~ by the simulator, so
  no estimate is ever needed beyond p~); m from the registry (CEA-Curie: the
  80640 cores of its thin nodes, as the paper's Table 4).  ``weeks`` /
  ``skip_weeks`` / ``max_jobs`` cut a window of each log (the quick profile,
  the defaults: two weeks, five weeks after the first submission); the full
  profile simulates the whole logs.
* **AVEbsld** (§5.3): mean over the jobs of max((wait + d) / max(d, 10), 1),
  d the duration run (:func:`schedlab.engine.metrics.bsld`).
* **EASY** = requested / FCFS backfilling; **EASY++** = AVE_2 / incremental /
  SJBF (gaussier2015 §6.2); **clairvoyant** and **requested** estimates are
  never outlived, so the correction changes nothing for them (the grid
  computes them for every correction; the tables use the incremental one).
* **Learning columns of Table 6**: best and worst AVEbsld over the learned
  predictions (20 losses) x the 3 corrections, per backfilling order.
* **Selection** (§6.3.3): the candidate triples are every non-clairvoyant
  (prediction, correction, backfilling) of the grid; the one with the least
  sum of AVEbsld over the other logs is evaluated on the held-out log; ties
  go to the first in grid order.  The *reduction* of a triple is 100 x (1 -
  AVEbsld / AVEbsld of EASY), in %.  Means of reductions are plain means over
  the logs.  (The paper's summary "28 % vs EASY, 11 % vs EASY++" is not the
  mean of its Table 7's reductions, which is 37 % and 21 %; both readings are
  given.)
* **Prediction quality** (Table 8, Figs. 4-5): the estimate each job got at
  submission (``Schedule.predicted``: rounded, within [1, p~]) against the
  duration it ran; error = estimate - duration (> 0: over-prediction).  The
  paper does not say on which log or run its Table 8 is measured: we give it
  per log for the EASY-SJBF / incremental runs (our MAE of AVE_2 on KTH-SP2
  matches the paper's to 0.1 %, which suggests its table is KTH-SP2's).
* **Cost of learning**: the wall time of each cell's simulation
  (``simulation_time``); the slowdown of a log is the mean time of its
  learned-prediction cells (C estimator) over the mean time of its
  requested-time cells.  A second, small campaign (:func:`make_timing_campaign`)
  runs one learned triple per log -- E-Loss, the reference correction
  (incremental), EASY-SJBF -- with each engine (``c``, ``python``: the
  reference estimator called back by the C core): its Python time over the
  requested-time mean is the slowdown the Python reference would cost, its
  Python time over its C time the speed-up of the C estimator.  The two
  engines' cells must agree on everything but the wall time (checked:
  ``engines_identical``).

The notebook ``notebooks/06-runtime-prediction.ipynb`` holds its parameters
and calls the driver (``run_study("prediction", globals())``), which runs
:func:`compute`.

The package: :mod:`.params` (:class:`Params`, declared once; defaults = the
quick profile), :mod:`.cells` (the simulations: the cell, its estimate labels
and the campaigns; it imports nothing of the study's tables, figures or
parameters, so that editing them keeps the cached cells), :mod:`.analysis`
(pure functions on the datasets), :mod:`.tables`, :mod:`.figures`,
:mod:`.report` (:func:`numbers`), :mod:`.run` (:func:`compute`) and
``published.toml`` (gaussier2015's values, with their sources, read by
:mod:`.published`).
"""
from __future__ import annotations

from .analysis import (T8_ESTIMATES, Selection, correlations, easy, easypp, engines_identical, loo_selection,
                       slowdowns, table6_values, triple_label)
from .cells import (BASE_ESTIMATES, CELL, CELL_PARAMS, LEARNED, N_LEVELS, TIMING_ESTIMATE, WEEK, estimate_labels,
                    learned_label, load_jobs, log_row, make_campaign, make_timing_campaign, prediction_cell)
from .figures import FIG_ESTIMATES, figure_errors, figure_predicted, figure_triples
from .params import BACKFILLS, CORRECTIONS, DEFAULT_TRACES, LACKING, STUDY, Params
from .published import COLUMNS, GAUSSIER, PUBLISHED, PUBLISHED_NAMES, T6_ROWS
from .report import numbers
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute
from .tables import (table1, table4, table6, table7, table8, table_correlations, table_selected,
                     table_slowdown)

__all__ = [
    "GAUSSIER", "PUBLISHED", "PUBLISHED_NAMES", "DEFAULT_TRACES", "LACKING", "CORRECTIONS", "BACKFILLS",
    "BASE_ESTIMATES", "Params", "compute", "estimate_labels", "learned_label", "triple_label",
    "load_jobs", "prediction_cell", "make_campaign", "table4", "table1", "table6", "loo_selection",
    "table7", "table_selected", "correlations", "table8", "slowdowns", "make_timing_campaign",
    "engines_identical", "figure_errors", "figure_predicted",
    "figure_triples", "numbers", "log_row", ]
