"""Study 3 -- mixed policies: how far can a linear mix of job features beat
every pure policy, and can the mix be learned from the past?

Thesis zrigui2021 ch. 5 (see :data:`THESIS`), on the weeks (and months) of
SDSC-SP2, SDSC-BLUE, CTC-SP2 and KTH-SP2, or of any SWF trace:

1. the 12 pure policies week by week (§5.3, Figs. 5.1, 5.2);
2. the weekly optimum w* of the 3-feature mix (q, p~, r) found by a uniform
   discretisation of ||w||_1 = 1 (§5.5.1), and by black-box search -- xNES
   (:func:`schedlab.science.optim.xnes`, written from the published algorithm) and
   CMA-ES (the ``cma`` library) -- with 3 and 6 features (§5.6, Fig. 5.5);
3. learning (§5.5.2): w*_train, the grid point with the lowest sum of
   weekly average bsld over the training weeks, evaluated on the testing
   weeks (Table 5.1), and w_greedy, last week's optimum used this week
   (Fig. 5.3); the same with months (§5.9, Fig. 5.15);
4. maps of the search space for consecutive weeks (§5.5.3, Fig. 5.4);
5. w*, w*_train and w_greedy under the three thresholds of §5.8 (the
   mixed rows that Tables 5.2-5.5 leave out; their pure columns belong to
   the thresholds study).

Every simulation runs in a campaign cell (:func:`pure_cell`,
:func:`grid_cell`, :func:`search_cell`) on dask.distributed, cached by
:mod:`schedlab.campaigns.runner` under a key of its inputs: a re-run recomputes only
what changed (the key follows the cells' code).  :func:`compute` hands
tables, figures and datasets to the driver (:func:`schedlab.protocol.study.run_study`),
which writes them with ``numbers.json``; the notebook
``notebooks/03-mixed-policies.ipynb`` holds its parameters and calls the driver.

Choices (where the thesis is silent or ambiguous; each is a parameter
where it reasonably could be):

* **Policy.** The mixed policy of the engine (``schedlab.engine.sim.Mixed``):
  key = sum_i w_i f_i / s_i, *lowest key first*, features f = (q, p~, r,
  p~/q, expansion, p~ q).  Thesis §5.4: "a positive value means that
  shorter/smaller jobs are prioritized" and "FCFS corresponds to
  (0,0,1,0,0,0)".  Its third feature is called *wait*, but lowest-first on
  the wait would be LCFS; ordering by the submit time r is what makes
  (0,0,1) FCFS (at a pass at time t, r = t - wait, so a weight on r is the
  opposite weight on the wait).  We use r: w = (w_q, w_p, w_r) with
  positive w_q / w_p favouring small / short jobs and positive w_r the
  earliest submitted (FCFS = (0,0,1), LCFS = (0,0,-1)); the other three
  features follow the same sign rule (SRF, SEXP, SAF at +1).
* **Scales.** Features are divided by per-trace scales, the means of
  :func:`schedlab.engine.sim.default_scales` over *the whole cleaned trace* (not
  the simulated week, whose means change from week to week): the same w is
  the same policy in every week, which learning and w_greedy need.
* **Queues.** The policy orders both the primary and the backfilling
  queue (EASY-P-P; ``backfill="same"``); ``backfill="FCFS"`` keeps FCFS
  backfilling.  Threshold 2.31 days = 200,000 s (§5.8: "the value that is
  used for the rest of our research"), jobs over it first in FCFS order.
  Estimates: the requested times; runtimes above the request are killed
  at the request (the project's default cleaning).
* **Weeks** (§5.2): consecutive 7-day periods from the first submission
  (:func:`schedlab.workloads.workload.weeks`); the first is dropped ("benchmarking
  phase"); jobs whose *recorded* finish (the log's submit + wait + run,
  :func:`schedlab.workloads.workload.recorded_finish`) lies after the end of their
  submission week are removed; then the first 100 weeks of SDSC-SP2 and
  SDSC-BLUE and the first 45 of CTC-SP2 and KTH-SP2.  Weeks are numbered
  1, 2, ... from the first kept one and each is simulated alone, from an
  empty machine.  The objective is the week's average bounded slowdown
  (tau = 10 s) over its jobs.  Months: 30-day periods, same rules.
* **Grid** (§5.5.1): every w with ||w||_1 = 1 whose components are
  multiples of 1/n (:func:`schedlab.science.optim.l1_lattice`: 4n^2 + 2 points);
  n = 100 is the thesis' 0.01 step (its "100 points per dimension and
  sign", normalised).
* **Ties.** Light weeks leave many grid points with the same value; the
  optimum of a week is then the tied point closest to the mean of the tied
  points (:func:`best_index`), so that w_greedy carries the centre of last
  week's optimal region, not an arbitrary corner.
* **Training and testing** (§5.5.2.1): for SDSC-SP2, weeks 29-64 and 65-100
  (the thesis ignores the first 28 weeks and splits the 72 others in two
  halves; its Eq. 5.2 writes 28 as the first training week, which would
  make 37 training weeks); for the other traces (and for months) the first
  and second halves of the weeks used.  w_greedy needs the previous week's
  optimum; week 1 has none and runs FCFS.
* **Black-box search** (§5.6.1): the thesis' objective (Eq. 5.4) sum bsld +
  lambda (||w||_1 + 1/||w||_1) over unconstrained w, the policy seeing only
  w / ||w||_1; lambda is ``penalty`` times the objective at the start
  point.  The search starts from the best vertex (pure policy) of its
  features, step size ``sigma0``, for ``budget`` simulations per week
  (the thesis gives neither budget nor lambda).  A weekly landscape is
  piecewise constant with small optimal regions (often a handful of the
  10,000 points of a 0.02-step grid), where a single run converges to a
  local optimum; so a run that has not improved for ``patience``
  generations restarts from a random point with a doubled population
  (IPOP, :func:`schedlab.science.optim.minimise_l1`).  ``random3`` / ``random6``
  (uniform points on the sphere, same budget) are the baseline that tells
  what the evolution strategies add.

The package: :mod:`.params` (:class:`Params`, each parameter declared once),
:mod:`.cells` (the simulations: cells and campaigns), :mod:`.analysis`
(pure functions of their results), :mod:`.tables`, :mod:`.figures`,
:mod:`.report` (:func:`numbers`), :mod:`.run` (:func:`compute`) and
``published.toml`` (the thesis' values, with their sources).
"""
from __future__ import annotations

from .analysis import RTOL, Analysis, Learning, best_index, greedy, learned, weekly_optimum
from .cells import (full_units, grid_cell, make_campaign, mixed_policy, pure_cell, search_cell, trace_units, weekly_bsld)
from .figures import (figure_convergence, figure_maps, figure_months, figure_pure, figure_saf, figure_search,
                      figure_weekly)
from .params import (BACKFILL_CHOICES, DEFAULT_OPTIMISERS, DEFAULT_TRACES, FEATURES3, OPTIMISERS, PERIODS,
                     POLICIES, STUDY, THESIS_MONTHS, THESIS_SPLIT, THESIS_THRESHOLDS, THESIS_WEEKS, THRESHOLD,
                     Params)
from .report import numbers
from .tables import (PUBLISHED, PUBLISHED_NOTES, THESIS, table_5_1, table_learning, table_pure, table_saf,
                     table_scales, table_search, table_thresholds, table_weights)
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute, main, time_optimisation

__all__ = [
    "THESIS", "PUBLISHED", "DEFAULT_TRACES", "THESIS_WEEKS", "THESIS_SPLIT", "THESIS_MONTHS",
    "THRESHOLD", "POLICIES", "FEATURES3", "OPTIMISERS", "Params", "compute",
    "trace_units", "full_units", "make_campaign", "weekly_bsld", "mixed_policy",
    "pure_cell", "grid_cell", "search_cell", "best_index", "weekly_optimum", "greedy", "learned",
    "Learning", "Analysis", "time_optimisation",
    # also public, and reached as study.<name> before the package
    "STUDY", "THESIS_THRESHOLDS", "DEFAULT_OPTIMISERS", "BACKFILL_CHOICES", "PERIODS", "RTOL",
    "PUBLISHED_NOTES", "table_5_1", "table_learning", "table_pure", "table_saf", "table_search",
    "table_thresholds", "table_weights", "table_scales", "figure_pure", "figure_saf", "figure_weekly",
    "figure_months", "figure_maps", "figure_search", "figure_convergence", "numbers", "main",
]
