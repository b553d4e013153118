"""Study 8 -- self-adaptive multiple-queue backfilling (lawson2005).

Lawson and Smirni split the machine into P partitions, one FCFS queue each;
a job goes to a partition by its runtime estimate, the partitioning criteria
are recomputed every week from the previous week's completed jobs so as to
balance the number of jobs per queue (Figure 3), idle processors move across
partitions when no pivot is delayed (Figure 2); and when the system's
bounded slowdown exceeds a threshold T, the running system is cloned and
simulated with P = 1..Pmax over a horizon of L weeks, and the best P is
adopted (online simulation, §3, Appendix A).  Everything is compared job by
job with single-queue EASY-FCFS-FCFS through the slowdown ratio R (§2.2).

The engine part (the pass, the criteria recomputation, reconfiguration) is
in C (``csrc/multiqueue.c``; its contract is the last section of
``csrc/SEMANTICS.md``); this package drives it (:mod:`.cells`):

* :func:`fixed` -- multiple-queue backfilling with a fixed P (§2.3, Figs.
  4-5): with *exact* estimates and a priori criteria (each week's criteria
  from the actual runtimes of the jobs submitted that same week: the paper's
  "ideal case, where the workload is known a priori"), or with *user*
  estimates and Figure 3's criteria (from the requested times of the jobs
  completed in the previous week: no a priori knowledge);
* :func:`online` -- the online simulation policy (§3.1, Tables 1-3, Figs.
  6-9);
* :func:`ratio` -- R per job, aggregated and per week
  (:func:`schedlab.engine.metrics.slowdown_ratio`).

Definitions and choices (lawson2005 leaves them open; each is a parameter
where it matters):

* **Jobs.** Each trace is cleaned by :func:`schedlab.workloads.workload.clean` (jobs
  with p > p~ are kept and killed at p~) and cut to its first ``weeks``
  weeks of submissions (the paper's Table 2: 48 weeks of CTC and KTH, 104 of
  SDSC-SP2 and Blue Horizon); weeks run from the first submission.
* **Slowdown** s = 1 + wait / max(10 s, runtime) (§2.2, "bounded slowdown")
  and **R** = (s_1 - s_m) / min(s_1, s_m) per job against single-queue EASY-
  FCFS-FCFS with the same estimates (:func:`schedlab.engine.metrics.slowdown_ratio`;
  jobs that ran under 10 s but requested over a minute are ignored,
  footnote 4).  Aggregate R: the mean over all jobs; weekly R: over the jobs
  submitted in that week.
* **Initial criteria.** Before the first weekly recomputation (week 0) no
  previous week exists: the criteria balance the estimates of the jobs
  submitted in week 0 (the only a priori knowledge of the user-estimate runs).
* **Trigger** (``trigger``).  The check is made once per week, at each week
  boundary, right after the criteria recomputation (Table 2 counts at most one
  test per week).  ``"cumulative"`` (default): the paper's "aggregate bounded
  slowdown in the system", the mean slowdown of every job completed since the
  start; ``"week"``: of the jobs completed in the week just ended.  A test runs
  when it is strictly greater than T.
* **What an online simulation replays** (``replays``; the study runs each
  one given, the first one feeds Tables 1-2 and Figs. 6-9).  Each candidate
  P starts from a clone of the real system (same queue, running jobs, loans,
  pivots, criteria; reconfigured by Appendix A.1-A.2 when P differs) and
  runs for L weeks with the weekly recomputation.  ``"oracle"`` (default):
  the jobs actually submitted during the horizon arrive as in the trace, so
  the online simulation knows the future workload.  This is our reading of
  the paper: L is "the length of time (weeks) to simulate", and Table 3 shows
  L deciding between gain and loss, which it cannot do without arrivals
  (see ``"queued"``).  ``"queued"``: only the jobs waiting at the test are
  replayed (later arrivals are cut off, ``Simulation.set_cutoff``), the
  paper's "quick trace-driven simulation for the waiting jobs" and what a real
  scheduler could do.  At a week boundary only a few dozen jobs wait, and
  they all start within the horizon's first week: L makes no difference (in
  our runs every L = 1 cell equals its L = 2 cell), and P is chosen on those
  few jobs.  In both the jobs run their real (trace) runtimes, as the paper's
  trace-driven simulations do.
* **Best P.** The lowest mean slowdown, at the end of the horizon, of the
  replayed jobs (waiting at the test, plus those arriving in it with
  ``"oracle"``); a job still waiting at the end counts with its wait so far
  (a lower bound), so a candidate cannot win by starving jobs.  Ties: keep the
  current P, else the smallest.  If it differs, the real system is
  reconfigured (A.3): uniform reassignment of the criteria (A.1) until the
  next weekly recomputation, pivots as A.2.
* **Initial P** of the online policy (``initial``): 4, the multiple-queue
  policy of §2.3 that online simulation adapts.

The package: :mod:`.params` (:class:`Params`, declared once; defaults = the
quick profile), :mod:`.cells` (the simulations, the cells and the
campaigns; they import none of the study's parameters, tables or figures,
and carry no version: their cache keys follow their code),
:mod:`.analysis` (pure functions on the datasets), :mod:`.tables`,
:mod:`.figures`, :mod:`.report` (:func:`numbers`), :mod:`.run`
(:func:`compute`, which the driver runs for the notebook
``notebooks/08-multiqueue.ipynb``: ``run_study("multiqueue", globals())``)
and ``published.toml`` (lawson2005's values, with their sources, read by
:mod:`.published`).
"""
from __future__ import annotations

from .analysis import TraceResult
from .cells import (CELL_PARAMS, WEEK, OnlineResult, Test, TraceRef, Workload, balanced_criteria, baseline, cut,
                    estimates_of, fixed, fixed_campaign, fixed_cell, initial_criteria, load, mean_slowdown, online,
                    online_campaign, online_cell, ratio)
from .figures import figure_fig4, figure_fig5, figure_fig6, figure_fig7, figure_fig8, figure_fig9
from .params import (CRITERIA, DEFAULT_TRACES, ESTIMATES, FIG8_PARAMS, FIG8_TRACE, HORIZONS, PAPER_WEEKS, PMAX,
                     REPLAYS, STUDY, THRESHOLDS, TRIGGERS, Params)
from .published import PAPER, PAPER_NAMES, PUBLISHED, PUBLISHED_NOTES
from .report import numbers
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute
from .tables import table_fig4, table_fig6, table_table1, table_table2, table_table3
