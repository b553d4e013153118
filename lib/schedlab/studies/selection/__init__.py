"""Study 7 -- online policy selection: full, noisy and bandit feedback.

online-bandit (*Online (Bandit) Policy Selection for EASY-Backfilling*,
§4-6) lets EASY choose, at the start of every period Δ (a day or a week),
which of 12 queue policies it uses next, and compares three ways of
choosing with the fixed policies and with a random choice:

* **full feedback** (§5.1, Eqs. 3-5): every policy is simulated on the jobs
  of every past period; the policy of least (decayed) total simulated
  waiting time is chosen;
* **noisy feedback** (§5.2, Eqs. 6-7): the same, each simulated wait
  rescaled by a factor drawn uniformly in [1 - noise, 1 + noise] (±15 %);
* **bandit feedback** (§5.3, Eqs. 8-9): no simulator; an epsilon-greedy
  bandit sees only the waits of the jobs that *finished* during the periods
  in which each policy was in force;
* **random**: a policy drawn uniformly at every period (§6.1.4).

This package holds all of it: in :mod:`.cells` the selection rules
(:func:`select_simulated`, :class:`EpsilonGreedy`), the period costs
(:func:`period_costs`), the stepped system (:func:`run_stepped`), the
strategies on a job set (:func:`run_strategy`), the campaign cells
(:func:`fixed_cell`, :func:`strategy_cell`) and the campaigns; in
:mod:`.analysis` the analysis (Eq. 11 with bootstrap intervals, cumulative
curves, shares of policies); the tables (:mod:`.tables`), figures
(:mod:`.figures`) and numbers (:mod:`.report`); the parameters
(:mod:`.params`); the published values (``published.toml``, with their
sources, read by :mod:`.published`); and :func:`compute` (:mod:`.run`),
which the driver runs for the notebook ``notebooks/07-online-selection.ipynb``
(``run_study("selection", globals())``).  The parameters are declared once in
:class:`Params` (defaults = the quick profile); the cells import none of the
study's parameters, tables or figures, and carry no version: their cache keys
follow their code.

How the paper is read (each choice is written here once):

* **The policies.**  EASY(P, Θ) (§4.2, Algorithm 1): one reordering policy
  P sorts the queue for starting *and* for backfilling, and the jobs that
  waited more than Θ = 40 h lead it in FCFS order -- in the simulator,
  ``Policy(P, P, "40h", threshold_backfill=True)`` (csrc/SEMANTICS.md).  The
  12 policies are :data:`schedlab.engine.sim.BANDIT_POLICIES`; the parameter
  ``policies`` gives other arms (names or ``expr:...`` policy expressions,
  FCFS among them: ``--set 'policies=[FCFS, SPF, "expr:wait / req"]'``), and
  the scorecard's claims are then shown but not compared.  Estimates are the
  requested times; jobs running past their request are killed there (the
  project's default cleaning, which follows §6.1.1: see :data:`CLEANING`).
* **The scheduled system** is *one* simulation of the whole resampled
  trace, stepped period by period (``Simulation.run(until=e_{t+1} - 1)``:
  every event before the next boundary) with its policy switched at each
  boundary (``set_policy``).  After the last period it runs to the end
  under the last policy.  Periods are consecutive days or weeks from the
  start of the resampled trace (time 0), so they line up with the
  resampled weeks.
* **What full and noisy feedback simulate** (§5.1).  The paper: "we run
  simulations from an empty system and wait for the system to be empty
  when job submissions cease at the end of the submission period", and
  l(Δ_t) counts the jobs *submitted* during Δ_t.  So the cost of P_i on
  period t is the total waiting time of the jobs submitted in Δ_t,
  simulated *alone* from an empty machine under EASY(P_i, Θ) until all of
  them are done -- not a clone of the scheduled system's state (which would
  carry the queue left by the policies chosen before, and is not what the
  text describes; it names the boundary effects of the empty start as the
  method's only bias).  A consequence we use: the costs do not depend on
  the choices made, so they are computed once per trace and period length
  (:func:`period_costs`) and shared by full and noisy feedback.  The
  simulation of period t uses the actual runtimes of its jobs, some of
  which have not finished when Δ_{t+1} starts: "exact" simulation is the
  optimistic bound the paper intends it to be.
* **Costs are totals** (Eq. 3 is a sum over the jobs submitted in the
  period, Eq. 4 a decayed sum over periods): the paper says the cost
  "directly corresponds to the cumulative waiting time of the policy over
  the preceding periods", so no per-period normalisation is applied; with
  λ = 1 the rule picks the policy of least total simulated wait so far.
* **Noise** (Eq. 6): one factor ρ per job *and per simulation* (each
  policy's simulation of a period gets its own draws), uniform in
  [1 - noise, 1 + noise].
* **Bandit** (Eqs. 8-9): after period t the bandit adds the waits of the
  jobs that finished during Δ_t (end in [e_t, e_{t+1})) to the policy in
  force, and their number to its count; the estimate of P_i is the decayed
  sum divided by the (undecayed) count, literally as Eq. 8.  A policy with
  no measured job yet has no estimate; it counts as 0 (Eq. 8 with an empty
  numerator), so exploitation tries every policy once before trusting the
  estimates.  With probability ε a policy is drawn uniformly among the 12
  (exploration), otherwise the argmin is taken (Eq. 9).  ε does not decay
  (the paper found no benefit in decaying it).  No bandit library is
  installed in the environment, so :class:`EpsilonGreedy` is ours.
* **Ties and the first period.**  Before any feedback every cost is 0; ties
  go to the first policy in list order, so every strategy but the random
  one starts with FCFS (a system's default), and so do the exact ties of
  light periods in which every policy's simulation has no wait.
* **Randomness.**  Resample k of a trace is drawn with
  ``SeedSequence(seed, spawn_key=(k,))``, identical for the 12 fixed
  policies and every strategy (paired comparisons); the noise, the
  bandit's and the random strategy's draws have their own spawn keys.
* **Statistics.**  Table 2 and Table 3 are Eq. 11: (Σ_k W(T_k, S) - Σ_k
  W(T_k, FCFS)) / Σ_k W(T_k, FCFS), W the total waiting time of resampled
  trace T_k; negative is better.  95 % intervals: percentile bootstrap over
  the resampled traces, pairs kept together
  (:func:`schedlab.stats.bootstrap_ci`).  The curves (Figs. 2-4) apply
  Eq. 11 to the waits of the jobs finished by the end of each week (so
  their last point is the table's value); their bands are the 10th and
  90th percentiles over the resampled traces of the per-trace ratio.
  Shares of policies (Figs. 5-6) count, per week, the (resample, day)
  pairs in which each policy was in force.

Missing: ANL-Intrepid and UniLu-Gaia (not bundled: :data:`MISSING_TRACES`);
their Table 2 rows are the published values only.
"""
from __future__ import annotations

from ...science.online_bandit import CLEANING, FIXED_CELL, cumulative_by_week, fixed_cell
from .analysis import SWAP_PQA, TraceResult, analyse, change, change_ci, curve, shares, swapped
from .cells import (STRATEGY_CELL, EpsilonGreedy, FinishedTracker, StrategyRun, campaigns, daily_choices, easy,
                    finished_in, period_bounds, period_costs, period_edges, resampled, run_stepped, run_strategy,
                    select_simulated, strategy_cell)
from .figures import POLICY_COLORS, STRATEGY_COLORS, figure_fixed, figure_shares, figure_strategies
from .params import DAY, MISSING_TRACES, PAPER_TRACES, PERIODS, POLICIES, STRATEGIES, STUDY, WEEK, Params
from .published import PAPER, PUBLISHED_TABLE2, TABLE2_COLUMNS
from .report import numbers, table2_agreement
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute
from .tables import data_curves, data_shares, table2, table2_ci, table3, table3_ci, tables

__all__ = [
    "PAPER", "PUBLISHED_TABLE2", "MISSING_TRACES", "PAPER_TRACES", "POLICIES", "STRATEGIES",
    "PERIODS", "CLEANING", "Params", "compute", "easy", "period_edges", "period_bounds",
    "period_costs", "select_simulated", "EpsilonGreedy", "run_stepped", "run_strategy",
    "StrategyRun", "FinishedTracker", "cumulative_by_week", "daily_choices", "fixed_cell", "strategy_cell",
    "campaigns", "change", "change_ci", "curve", "shares", "TraceResult", "analyse", "tables",
    "swapped", "table2_agreement", "SWAP_PQA",
    "figure_fixed", "figure_strategies", "figure_shares", "numbers", ]
