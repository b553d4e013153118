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

This module holds all of it: the selection rules (:func:`select_simulated`,
:class:`EpsilonGreedy`), the period costs (:func:`period_costs`), the
stepped system (:func:`run_stepped`), the strategies on a job set
(:func:`run_strategy`), the campaign cells (:func:`fixed_cell`,
:func:`strategy_cell`), the analysis (Eq. 11 with bootstrap intervals,
cumulative curves, shares of policies), the tables, figures and numbers,
and :func:`run`, which the notebook ``notebooks/07-online-selection.ipynb``
calls after :func:`validate`.

How the paper is read (each choice is written here once):

* **The policies.**  EASY(P, Θ) (§4.2, Algorithm 1): one reordering policy
  P sorts the queue for starting *and* for backfilling, and the jobs that
  waited more than Θ = 40 h lead it in FCFS order -- in the simulator,
  ``Policy(P, P, "40h", threshold_backfill=True)`` (csrc/SEMANTICS.md).  The
  12 policies are :data:`schedlab.sim.BANDIT_POLICIES`.  Estimates are the
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

import functools
import time
import warnings
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ... import __version__, campaign, paths, plots, sim, stats, store, workload
from ... import traces as _traces
from ...errors import InputError
from .. import Table, write_json, write_text
from ... import values as check


__all__ = [
    "PAPER", "PUBLISHED_TABLE2", "MISSING_TRACES", "DEFAULT_TRACES", "POLICIES", "STRATEGIES",
    "PERIODS", "CLEANING", "Params", "validate", "easy", "period_edges", "period_bounds",
    "period_costs", "select_simulated", "EpsilonGreedy", "run_stepped", "run_strategy",
    "StrategyRun", "cumulative_by_week", "daily_choices", "fixed_cell", "strategy_cell",
    "campaigns", "change", "change_ci", "curve", "shares", "TraceResult", "analyse", "tables",
    "swapped", "table2_agreement", "SWAP_PQA",
    "figure_fixed", "figure_strategies", "figure_shares", "numbers", "run",
]

STUDY = "selection"
DAY = workload.DAY
WEEK = workload.WEEK

PAPER = ("online-bandit: Online (Bandit) Policy Selection for EASY-Backfilling, anonymous "
         "submission (SC format), §4-6, Eqs. 3-11, Tables 2-3, Figs. 2-6")

#: The 12 policies of §4.1, in the order used for indices and ties.
POLICIES: tuple[str, ...] = sim.BANDIT_POLICIES
#: Selection strategies of §5 and §6.1.4.
STRATEGIES: tuple[str, ...] = ("full", "noisy", "bandit", "random")
#: Policy periods Δ (§6.1.4), in seconds.
PERIODS: dict[str, int] = {"day": DAY, "week": WEEK}
#: Cleaning: schedlab.workload.clean with its defaults follows §6.1.1 (jobs
#: using more processors than the machine removed, a missing processor
#: count replaced by the other, negative runtimes or submit times removed);
#: it also removes jobs without a requested time (EASY needs one) and keeps
#: jobs running past their request, killed there by the simulator.
CLEANING = "kill"

#: online-bandit Table 2: change (%) of the total waiting time of EASY(P, 40 h)
#: against EASY(FCFS, 40 h), as printed ("UniLu-Gaia" is printed "Unilu-Gaia").
PUBLISHED_TABLE2: dict[str, dict[str, int]] = {
    "ANL-Intrepid": {"LCFS": -25, "LPF": -9, "SPF": -3, "LQF": -28, "SQF": -2, "SEXP": -21,
                     "LEXP": -24, "LRF": -21, "SRF": -10, "LAF": -19, "SAF": 5},
    "KTH-SP2": {"LCFS": -13, "LPF": -16, "SPF": 5, "LQF": -16, "SQF": 3, "SEXP": -8,
                "LEXP": -15, "LRF": -8, "SRF": -13, "LAF": -12, "SAF": 15},
    "CTC-SP2": {"LCFS": -40, "LPF": -19, "SPF": -14, "LQF": -47, "SQF": 15, "SEXP": -36,
                "LEXP": -19, "LRF": -38, "SRF": -12, "LAF": -44, "SAF": 22},
    "SDSC-SP2": {"LCFS": -8, "LPF": -15, "SPF": 4, "LQF": -8, "SQF": 4, "SEXP": -3,
                 "LEXP": -15, "LRF": -3, "SRF": -10, "LAF": -11, "SAF": 18},
    "SDSC-BLUE": {"LCFS": -26, "LPF": -29, "SPF": 0, "LQF": -29, "SQF": 17, "SEXP": -17,
                  "LEXP": -26, "LRF": -15, "SRF": -15, "LAF": -32, "SAF": 23},
    "CEA-Curie": {"LCFS": -46, "LPF": -23, "SPF": -45, "LQF": -57, "SQF": -19, "SEXP": -51,
                  "LEXP": -23, "LRF": -57, "SRF": -24, "LAF": -40, "SAF": -17},
    "UniLu-Gaia": {"LCFS": -58, "LPF": -33, "SPF": -10, "LQF": -62, "SQF": 16, "SEXP": -49,
                   "LEXP": -27, "LRF": -56, "SRF": -16, "LAF": -62, "SAF": 20},
}
#: Column order of Table 2 as printed.
TABLE2_COLUMNS = ("LCFS", "LPF", "SPF", "LQF", "SQF", "SEXP", "LEXP", "LRF", "SRF", "LAF", "SAF")
#: A reading of the published Table 2 with the "smallest" and "largest"
#: labels exchanged for the processing time, the processors and the area
#: (SPF <-> LPF, SQF <-> LQF, SAF <-> LAF); see :func:`table2_agreement`.
SWAP_PQA: tuple[tuple[str, str], ...] = (("SPF", "LPF"), ("SQF", "LQF"), ("SAF", "LAF"))
#: Traces of the paper that the compendium does not bundle.
MISSING_TRACES: tuple[str, ...] = ("ANL-Intrepid", "UniLu-Gaia")
#: The paper's traces that we have (Table 1 order).
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")

#: Spawn keys of the random streams (after the resample index).
_STREAM = {"noise": 1, "bandit": 2, "random": 3}
_STRATEGY_LABEL = {"full": "Full", "noisy": "Noisy", "bandit": "Bandit", "random": "Random"}


# ------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params:
    """The validated parameters of the study (see :func:`validate`)."""

    traces: tuple[_traces.TraceInfo, ...]
    resamples: int = 100
    weeks: int = 104
    periods: tuple[str, ...] = ("day", "week")
    strategies: tuple[str, ...] = STRATEGIES
    epsilon: float = 0.5
    decay: float = 1.0
    noise: float = 0.15
    threshold: int | None = 40 * 3600
    seed: int = 2017
    workers: int = 2
    scheduler: str | None = None
    outdir: Path = field(default_factory=lambda: paths.RESULTS / STUDY)
    cache_dir: Path = field(default_factory=lambda: paths.RESULTS / "cache")
    profile: str = "custom"

    def as_dict(self) -> dict[str, Any]:
        return {"traces": [t.name for t in self.traces], "resamples": self.resamples,
                "weeks": self.weeks, "periods": list(self.periods), "strategies": list(self.strategies),
                "epsilon": self.epsilon, "decay": self.decay, "noise": self.noise,
                "threshold_s": self.threshold, "seed": self.seed, "workers": self.workers,
                "scheduler": self.scheduler, "outdir": str(self.outdir),
                "cache_dir": str(self.cache_dir), "profile": self.profile}


def validate(traces=DEFAULT_TRACES, resamples=100, weeks=104, periods=("day", "week"),
             strategies=STRATEGIES, epsilon=0.5, decay=1.0, noise=0.15, threshold="40h",
             seed=2017, workers=2, scheduler=None, outdir=None, cache_dir=None,
             profile="custom") -> Params:
    """Check every parameter and say what is wrong, before any computation.

    ``traces``: registry names or SWF paths (the machine size of an
    unregistered file comes from its header); ``resamples``: resampled
    traces per trace (§6.1.4: 100); ``weeks``: their length (two years: 104);
    ``periods``: among ``day``, ``week``; ``strategies``: among ``full``,
    ``noisy``, ``bandit``, ``random``; ``epsilon``: exploration probability
    of the bandit in [0, 1]; ``decay``: λ of Eqs. 4, 7, 8 in [0, 1];
    ``noise``: half-width of the noisy feedback's factor, in [0, 1);
    ``threshold``: Θ (``"40h"``; ``None`` for none); ``seed``: of the
    resampling and of every random choice; ``workers``: local dask workers
    (``scheduler``, or ``$SCHEDLAB_SCHEDULER``, to use an existing
    cluster); ``outdir``: default ``results/selection``.
    """
    infos = check.trace_list(traces)
    threshold_s = check.duration(threshold, "threshold")

    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise InputError(f"scheduler: expected an address such as 'tcp://host:8786' or None, got {scheduler!r}")
    return Params(
        traces=tuple(infos), resamples=check.integer(resamples, "resamples", 1), weeks=check.integer(weeks, "weeks", 1),
        periods=check.choices(periods, "periods", tuple(PERIODS)),
        strategies=check.choices(strategies, "strategies", STRATEGIES),
        epsilon=check.number(epsilon, "epsilon", 0.0, 1.0), decay=check.number(decay, "decay", 0.0, 1.0),
        noise=check.number(noise, "noise", 0.0, 1.0, high_open=True), threshold=threshold_s,
        seed=check.integer(seed, "seed", 0), workers=check.integer(workers, "workers", 1),
        scheduler=scheduler.strip() if isinstance(scheduler, str) else None,
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"), profile=str(profile))


# ------------------------------------------------------------- mechanics --

def easy(policy: str, threshold: int | None = 40 * 3600) -> sim.Policy:
    """EASY(P, Θ): P for starting and backfilling, the jobs that waited more
    than Θ leading both orders in FCFS order (§4.2, Algorithm 1)."""
    return sim.Policy(policy, policy, threshold, threshold_backfill=True)


def period_edges(n_periods: int, length: int, origin: int = 0) -> np.ndarray:
    """Boundaries e_0 < ... < e_n of ``n_periods`` consecutive periods of
    ``length`` seconds from ``origin``: period t is [e_t, e_{t+1})."""
    if n_periods < 1 or length < 1:
        raise InputError(f"need n_periods >= 1 and length >= 1, got {n_periods}, {length}")
    return origin + length * np.arange(n_periods + 1, dtype=np.int64)


def period_bounds(jobs: sim.Jobs, edges: np.ndarray) -> np.ndarray:
    """Positions b with jobs[b[t]:b[t+1]] the jobs submitted in period t
    (jobs sorted by submit time, as the simulator requires)."""
    return np.searchsorted(jobs.submit, np.asarray(edges), "left")


def period_costs(jobs: sim.Jobs, m: int, edges: np.ndarray, policies: Sequence[str] = POLICIES,
                 threshold: int | None = 40 * 3600, noise: float = 0.15,
                 rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The costs full and noisy feedback learn from (§5.1-5.2).

    For every period t and policy P_i: the jobs submitted in period t are
    simulated alone, from an empty machine, under EASY(P_i, Θ) until they
    are all done; ``exact[t, i]`` is the sum of their waits (Eq. 3),
    ``noisy[t, i]`` the sum of the waits each rescaled by its own factor
    uniform in [1 - noise, 1 + noise] (Eq. 6; ``rng`` draws them, one per
    job and policy).  ``submitted[t]`` is l(Δ_t), the number of those jobs.
    A period without jobs costs 0 for every policy.
    """
    edges = np.asarray(edges, dtype=np.int64)
    if rng is None:
        rng = np.random.default_rng(0)
    b = period_bounds(jobs, edges)
    n_t = len(edges) - 1
    exact = np.zeros((n_t, len(policies)))
    noisy = np.zeros((n_t, len(policies)))
    pols = [easy(p, threshold) for p in policies]
    for t in range(n_t):
        lo, hi = int(b[t]), int(b[t + 1])
        if hi == lo:
            continue
        part = jobs.subset(slice(lo, hi))
        for i, pol in enumerate(pols):
            s = sim.simulate(part, m, pol)
            w = (s.start - part.submit).astype(np.float64)
            exact[t, i] = w.sum()
            noisy[t, i] = (rng.uniform(1.0 - noise, 1.0 + noise, size=w.size) * w).sum()
    return exact, noisy, np.diff(b)


def select_simulated(costs: np.ndarray, decay: float = 1.0) -> np.ndarray:
    """The policy full (or noisy) feedback uses in each period: in period T,
    argmin_i sum_{t<T} decay^(T-1-t) costs[t, i] (Eqs. 4-5, 7); ties, and
    period 0 (no feedback yet), go to the lowest index."""
    costs = np.asarray(costs, dtype=np.float64)
    acc = np.zeros(costs.shape[1])
    out = np.empty(costs.shape[0], dtype=np.int64)
    for t in range(costs.shape[0]):
        out[t] = int(np.argmin(acc))
        acc = decay * acc + costs[t]
    return out


class EpsilonGreedy:
    """The epsilon-greedy bandit of §5.3 over ``n_arms`` policies (costs: lower is better).

    :meth:`update` after each period with the policy in force, the total
    wait of the jobs that finished during the period and their number;
    :meth:`estimates` is Eq. 8, numerator decayed by ``decay`` per period,
    denominator not; :meth:`select` is Eq. 9 with probability 1 - epsilon
    (ties to the lowest index; a policy without measured jobs counts as 0,
    so each is tried once), a uniform draw otherwise.
    """

    def __init__(self, n_arms: int, epsilon: float, decay: float = 1.0,
                 rng: np.random.Generator | None = None):
        if n_arms < 1:
            raise InputError(f"n_arms must be >= 1, got {n_arms}")
        if not 0.0 <= epsilon <= 1.0:
            raise InputError(f"epsilon must be in [0, 1], got {epsilon}")
        if not 0.0 <= decay <= 1.0:
            raise InputError(f"decay must be in [0, 1], got {decay}")
        self.n_arms, self.epsilon, self.decay = int(n_arms), float(epsilon), float(decay)
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.num = np.zeros(self.n_arms)          # sum_t 1(i, t) decay^(T-1-t) w(t; i)
        self.den = np.zeros(self.n_arms)          # sum_t 1(i, t) l(Δ_t)
        self.plays = np.zeros(self.n_arms, dtype=np.int64)
        self.explorations = 0

    def estimates(self) -> np.ndarray:
        """w(-> T; P_i) of Eq. 8 (0 for a policy without measured jobs)."""
        out = np.zeros(self.n_arms)
        seen = self.den > 0
        out[seen] = self.num[seen] / self.den[seen]
        return out

    def select(self) -> int:
        if self.epsilon > 0.0 and self.rng.random() < self.epsilon:
            self.explorations += 1
            return int(self.rng.integers(self.n_arms))
        return int(np.argmin(self.estimates()))

    def update(self, arm: int, wait_sum: float, jobs: int) -> None:
        if not 0 <= arm < self.n_arms:
            raise InputError(f"arm {arm} out of range 0..{self.n_arms - 1}")
        self.num *= self.decay
        self.num[arm] += float(wait_sum)
        self.den[arm] += int(jobs)
        self.plays[arm] += 1


def run_stepped(jobs: sim.Jobs, m: int, edges: np.ndarray, choose: Callable[[int], int],
                policies: Sequence[str] = POLICIES, threshold: int | None = 40 * 3600,
                observe: Callable[[int, int, sim.Simulation], None] | None = None
                ) -> tuple[sim.Schedule, np.ndarray]:
    """The scheduled system: one simulation of ``jobs``, stepped period by
    period.  At the start of period t, ``choose(t)`` gives the index of the
    policy set for it; the simulation then processes every event before
    e_{t+1}; ``observe(t, i, simulation)`` sees the state at that point.
    After the last period the simulation runs to the end under the last
    policy.  Returns the schedule and the policy index of every period."""
    edges = np.asarray(edges, dtype=np.int64)
    n_t = len(edges) - 1
    chosen = np.empty(n_t, dtype=np.int64)
    with sim.Simulation(jobs, m, easy(policies[0], threshold)) as s:
        for t in range(n_t):
            i = int(choose(t))
            if not 0 <= i < len(policies):
                raise InputError(f"period {t}: policy index {i} out of range 0..{len(policies) - 1}")
            chosen[t] = i
            s.set_policy(easy(policies[i], threshold))
            s.run(until=int(edges[t + 1]) - 1)
            if observe is not None:
                observe(t, i, s)
        s.run()
        return s.schedule, chosen


@dataclass
class StrategyRun:
    """A strategy's scheduled system: its schedule, the policy index of each
    period, and (bandit) the number of explorations."""

    schedule: sim.Schedule
    chosen: np.ndarray
    explorations: int = -1


def finished_in(schedule: sim.Schedule, lo: int, hi: int) -> tuple[float, int]:
    """Total wait and number of the jobs of ``schedule`` that finished in
    [lo, hi): what the bandit measures in a period (Eq. 8's w and l)."""
    done = (schedule.start >= 0) & (schedule.end >= lo) & (schedule.end < hi)
    return float((schedule.start[done] - schedule.jobs.submit[done]).sum()), int(done.sum())


def run_strategy(strategy: str, jobs: sim.Jobs, m: int, edges: np.ndarray, *,
                 policies: Sequence[str] = POLICIES, threshold: int | None = 40 * 3600,
                 costs: np.ndarray | None = None, epsilon: float = 0.5, decay: float = 1.0,
                 rng: np.random.Generator | None = None) -> StrategyRun:
    """Run one strategy on ``jobs`` with the periods ``edges``.

    ``full`` / ``noisy`` need ``costs`` (``period_costs``' exact or noisy
    matrix); ``bandit`` uses ``epsilon``, ``decay`` and ``rng``; ``random``
    draws a policy per period with ``rng``.  A policy name instead of a
    strategy runs that policy in every period (the stepped fixed policy)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    if strategy in ("full", "noisy"):
        if costs is None:
            raise InputError(f"strategy {strategy!r} needs the period costs (period_costs)")
        plan = select_simulated(costs, decay)
        sched, chosen = run_stepped(jobs, m, edges, lambda t: plan[t], policies, threshold)
        return StrategyRun(sched, chosen)
    if strategy == "random":
        sched, chosen = run_stepped(jobs, m, edges, lambda t: int(rng.integers(len(policies))),
                                    policies, threshold)
        return StrategyRun(sched, chosen)
    if strategy == "bandit":
        bandit = EpsilonGreedy(len(policies), epsilon, decay, rng)

        def observe(t: int, i: int, s: sim.Simulation) -> None:
            w, n = finished_in(s.schedule, int(edges[t]), int(edges[t + 1]))
            bandit.update(i, w, n)

        sched, chosen = run_stepped(jobs, m, edges, lambda t: bandit.select(), policies, threshold, observe)
        return StrategyRun(sched, chosen, bandit.explorations)
    if strategy in policies:
        i = list(policies).index(strategy)
        sched, chosen = run_stepped(jobs, m, edges, lambda t: i, policies, threshold)
        return StrategyRun(sched, chosen)
    raise InputError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES} or a policy")


def cumulative_by_week(schedule: sim.Schedule, n_weeks: int, origin: int = 0) -> np.ndarray:
    """Total wait of the jobs finished by the end of each week
    (``origin + (k+1) * WEEK``); jobs finishing after the last week count in
    the last one, so its value is the total wait of all the jobs."""
    ok = schedule.start >= 0
    wait = (schedule.start[ok] - schedule.jobs.submit[ok]).astype(np.float64)
    k = np.clip((schedule.end[ok] - origin) // WEEK, 0, n_weeks - 1)
    return np.cumsum(np.bincount(k, weights=wait, minlength=n_weeks))


def daily_choices(chosen: np.ndarray, length: int, n_days: int) -> np.ndarray:
    """The policy index in force on each day, from the per-period indices of
    periods of ``length`` seconds (a multiple of a day, or a day)."""
    day = np.arange(n_days, dtype=np.int64) * DAY
    return np.asarray(chosen)[np.minimum(day // length, len(chosen) - 1)]


# ----------------------------------------------------------------- cells --

@functools.lru_cache(maxsize=8)
def _cleaned(trace: str, m: int | None) -> tuple[sim.Jobs, int]:
    info = _traces.resolve(trace)
    m = m or info.m
    jobs, _ = workload.clean(_traces.load(info), m=m, overrun=CLEANING)
    if len(jobs) == 0:
        raise InputError(f"{trace}: no jobs left after cleaning")
    return jobs, int(m or jobs.procs.max())


@functools.lru_cache(maxsize=2)
def resampled(trace: str, m: int | None, weeks: int, seed: int, sample: int) -> tuple[sim.Jobs, int]:
    """Resampled trace ``sample`` of ``trace`` (``weeks`` weeks, one
    continuous trace from time 0; §6.1.3) and the machine size."""
    jobs, m_ = _cleaned(str(trace), m)
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(sample),))
    return workload.resample(jobs, int(weeks), ss).jobs, m_


def _rng(seed: int, sample: int, stream: str, period: str, trace: str) -> np.random.Generator:
    """The random stream of a strategy: independent across resamples,
    streams, periods and traces (the trace by a CRC-32 of its name)."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(sample), _STREAM[stream],
                                                              PERIODS[period] // DAY,
                                                              zlib.crc32(str(trace).encode())))
    return np.random.default_rng(ss)


@functools.lru_cache(maxsize=2)
def _costs(trace: str, m: int | None, weeks: int, seed: int, sample: int, period: str,
           threshold: int | None, noise: float) -> tuple[np.ndarray, np.ndarray]:
    jobs, m_ = resampled(trace, m, weeks, seed, sample)
    edges = period_edges(int(weeks) * WEEK // PERIODS[period], PERIODS[period])
    exact, noisy, _ = period_costs(jobs, m_, edges, POLICIES, threshold, noise,
                                   _rng(seed, sample, "noise", period, trace))
    return exact, noisy


#: Version of the cells' semantics, a parameter of every cell: the campaign
#: cache keys cells by their parameters (not by code), so a change of what a
#: cell computes must bump it.
CELL_VERSION = 2

_COMMON_KEYS = {"trace", "m", "weeks", "seed", "sample", "threshold", "version"}
_FIXED_KEYS = _COMMON_KEYS | {"policy"}
_STRATEGY_KEYS = _COMMON_KEYS | {"period", "strategy", "epsilon", "decay", "noise"}


def _check_keys(p: dict, known: set, what: str) -> None:
    unknown = set(p) - known
    missing = {"trace", "weeks", "seed", "sample"} - set(p)
    if unknown or missing:
        raise InputError(f"{what} cell: unknown parameter(s) {sorted(unknown)}, missing {sorted(missing)}")


def _outputs(schedule: sim.Schedule, weeks: int) -> dict:
    summ = schedule.summary()
    out = {k: ((), summ[k]) for k in ("jobs", "sum_wait", "avg_wait", "max_wait", "forced")}
    out["cum_sum_wait"] = (("week",), cumulative_by_week(schedule, weeks))
    return out


def fixed_cell(p: dict) -> dict:
    """One (trace, resample, policy): EASY(P, Θ) on the whole resampled
    trace, one-shot.  Outputs: jobs, total/mean/max wait, forced jobs, the
    cumulative total wait by week and the cell's compute time."""
    t0 = time.process_time()
    _check_keys(p, _FIXED_KEYS, "selection-fixed")
    jobs, m = resampled(str(p["trace"]), p.get("m"), int(p["weeks"]), int(p["seed"]), int(p["sample"]))
    s = sim.simulate(jobs, m, easy(str(p["policy"]), p.get("threshold")))
    out = _outputs(s, int(p["weeks"]))
    out["compute_time"] = ((), time.process_time() - t0)
    return out


def strategy_cell(p: dict) -> dict:
    """One (trace, resample, period, strategy): the stepped system under a
    selection strategy.  Outputs: those of :func:`fixed_cell`, the policy
    in force each day (index in :data:`POLICIES`) and the bandit's number of
    explorations (-1 for the other strategies).  Full and noisy feedback of
    the same resample and period share the period costs (cached per
    worker process)."""
    t0 = time.process_time()
    _check_keys(p, _STRATEGY_KEYS, "selection-strategies")
    trace, m, weeks, seed, sample = str(p["trace"]), p.get("m"), int(p["weeks"]), int(p["seed"]), int(p["sample"])
    period, strategy = str(p["period"]), str(p["strategy"])
    if period not in PERIODS or strategy not in STRATEGIES:
        raise InputError(f"selection-strategies cell: period {period!r} / strategy {strategy!r} unknown")
    threshold = p.get("threshold")
    jobs, m_ = resampled(trace, m, weeks, seed, sample)
    edges = period_edges(weeks * WEEK // PERIODS[period], PERIODS[period])
    costs = None
    if strategy in ("full", "noisy"):
        exact, noisy = _costs(trace, m, weeks, seed, sample, period, threshold, float(p.get("noise", 0.15)))
        costs = exact if strategy == "full" else noisy
    r = run_strategy(strategy, jobs, m_, edges, threshold=threshold, costs=costs,
                     epsilon=float(p.get("epsilon", 0.5)), decay=float(p.get("decay", 1.0)),
                     rng=_rng(seed, sample, strategy, period, trace) if strategy in _STREAM else None)
    out = _outputs(r.schedule, weeks)
    out["policy_chosen"] = (("day",), daily_choices(r.chosen, PERIODS[period], weeks * 7))
    out["explorations"] = ((), r.explorations)
    out["compute_time"] = ((), time.process_time() - t0)
    return out


campaign.register_cell("selection-fixed")(fixed_cell)
campaign.register_cell("selection-strategies")(strategy_cell)
FIXED_CELL = "schedlab.studies.selection:fixed_cell"
STRATEGY_CELL = "schedlab.studies.selection:strategy_cell"


def _ref(info: _traces.TraceInfo) -> str:
    return info.name if info.registered else str(info.path)


def campaigns(p: Params) -> dict[str, campaign.Campaign]:
    """The campaigns of the study, two per trace: ``fixed:<trace>`` (resample
    x policy) and ``strategies:<trace>`` (resample x period x strategy).
    The strategy dimension is innermost, so that the full and noisy cells of
    a resample and period usually land in one batch and share its costs."""
    out = {}
    for t in p.traces:
        common = {"trace": _ref(t), "m": t.m, "weeks": p.weeks, "seed": p.seed, "threshold": p.threshold,
                  "version": CELL_VERSION}
        out[f"fixed:{t.name}"] = campaign.Campaign(
            f"selection-fixed-{t.name}", cell=FIXED_CELL,
            dims={"sample": list(range(p.resamples)), "policy": list(POLICIES)}, params=common)
        out[f"strategies:{t.name}"] = campaign.Campaign(
            f"selection-strategies-{t.name}", cell=STRATEGY_CELL,
            dims={"sample": list(range(p.resamples)), "period": list(p.periods),
                  "strategy": list(p.strategies)},
            params={**common, "epsilon": p.epsilon, "decay": p.decay, "noise": p.noise})
    return out


# --------------------------------------------------------------- analysis --

def change(sums, baseline) -> float:
    """Eq. 11: (sum_k W_k - sum_k B_k) / sum_k B_k."""
    s, b = float(np.nansum(sums)), float(np.nansum(baseline))
    return s / b - 1.0 if b > 0 else (0.0 if s == 0 else float("nan"))


def _ratio_stat(x, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(x[0], axis=axis) / np.sum(x[1], axis=axis) - 1.0


def change_ci(sums, baseline, level: float = 0.95, seed: int = 0,
              n_boot: int = 2000) -> tuple[float, float, float]:
    """Eq. 11 with a percentile-bootstrap interval over the resampled traces
    (each trace's pair of totals kept together)."""
    x = np.stack([np.asarray(sums, float), np.asarray(baseline, float)])
    if x.shape[1] < 2:
        est = change(sums, baseline)
        return est, float("nan"), float("nan")
    est, lo, hi = stats.bootstrap_ci(x, axis=-1, level=level, n_boot=n_boot, seed=seed, stat=_ratio_stat)
    return float(est), float(lo), float(hi)


def curve(cum, cum_base) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cumulative-improvement curve (Figs. 2-4) from (resample, week) arrays
    of cumulative total waits: Eq. 11 at each week, and the 10th and 90th
    percentiles over resamples of the per-resample relative change."""
    cum, base = np.asarray(cum, float), np.asarray(cum_base, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tot_b = base.sum(axis=0)
        mean = np.where(tot_b > 0, cum.sum(axis=0) / np.where(tot_b > 0, tot_b, 1) - 1.0, np.nan)
    rel = stats.relative(cum, base) - 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p10, p90 = stats.deciles(rel, axis=0)
    return mean, p10, p90


def shares(chosen_daily, n_policies: int = len(POLICIES), days: int = 7) -> np.ndarray:
    """Share of each policy per block of ``days`` days (Figs. 5-6): from a
    (resample, day) array of policy indices, the fraction of (resample, day)
    pairs of each block in which each policy was in force; shape (blocks,
    policies), rows summing to 1."""
    c = np.asarray(chosen_daily, dtype=np.int64)
    n_days = c.shape[-1]
    blocks = (n_days + days - 1) // days
    out = np.zeros((blocks, n_policies))
    for k in range(blocks):
        part = c[..., k * days:(k + 1) * days].ravel()
        part = part[part >= 0]
        if part.size:
            out[k] = np.bincount(part, minlength=n_policies)[:n_policies] / part.size
    return out


@dataclass
class TraceResult:
    """Everything computed about one trace."""

    name: str
    ref: str
    fixed: Any                       # xarray.Dataset: (sample, policy)
    strategies: Any                  # xarray.Dataset: (sample, period, strategy)
    table2: dict[str, tuple[float, float, float]]
    table3: dict[tuple[str, str], tuple[float, float, float]]
    on_best: dict[tuple[str, str], float]
    most_chosen: dict[tuple[str, str], tuple[str, float]] = field(default_factory=dict)

    @property
    def best_fixed(self) -> str:
        return min(self.table2, key=lambda k: self.table2[k][0])

    @property
    def best_strategy(self) -> tuple[str, str] | None:
        return min(self.table3, key=lambda k: self.table3[k][0]) if self.table3 else None

    @property
    def jobs_mean(self) -> float:
        return float(self.fixed.jobs.sel(policy="FCFS").mean())


def analyse(name: str, ref: str, fixed, strategies, seed: int = 0, n_boot: int = 2000) -> TraceResult:
    """Tables 2 and 3 (with intervals) and the share of periods on the best
    fixed policy, from the two datasets of a trace."""
    base = fixed.sum_wait.sel(policy="FCFS").values
    t2 = {str(p): change_ci(fixed.sum_wait.sel(policy=p).values, base, seed=seed, n_boot=n_boot)
          for p in fixed.policy.values}
    r = TraceResult(name, ref, fixed, strategies, t2, {}, {})
    ibest = list(POLICIES).index(r.best_fixed)
    if strategies is not None:
        for period in strategies.period.values:
            for strat in strategies.strategy.values:
                v = strategies.sel(period=period, strategy=strat)
                key = (str(strat), str(period))
                r.table3[key] = change_ci(v.sum_wait.values, base, seed=seed, n_boot=n_boot)
                chosen = v.policy_chosen.values
                r.on_best[key] = float(np.mean(chosen == ibest))
                counts = np.bincount(chosen[chosen >= 0].ravel(), minlength=len(POLICIES))
                top = int(np.argmax(counts))
                r.most_chosen[key] = (POLICIES[top], float(counts[top] / max(counts.sum(), 1)))
    return r


# ----------------------------------------------------------------- tables --

def _pct(x: float) -> float:
    return 100.0 * x if x is not None and np.isfinite(x) else float("nan")


def _ci_text(lo: float, hi: float) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _sign(x: float, tol: float = 1.0) -> int:
    return 0 if abs(x) <= tol else (1 if x > 0 else -1)


def swapped(values: dict[str, float], pairs=SWAP_PQA) -> dict[str, float]:
    """``values`` with the labels of each pair exchanged."""
    out = dict(values)
    for a, b in pairs:
        if a in values and b in values:
            out[a], out[b] = values[b], values[a]
    return out


def table2_agreement(results: Sequence[TraceResult]) -> dict[str, dict[str, float]]:
    """How our Table 2 agrees with the published one, read as printed and
    with S/L exchanged for P, Q, A: number of values compared, of values
    with the same sign (both < -1 %, both within +-1 %, both > +1 %), mean
    absolute difference (percentage points) and correlation."""
    out = {}
    for label, pairs in (("as_printed", ()), ("swapped_pqa", SWAP_PQA)):
        ours, theirs = [], []
        for r in results:
            pub = PUBLISHED_TABLE2.get(r.name)
            if pub is None:
                continue
            pub = swapped(pub, pairs)
            for k in TABLE2_COLUMNS:
                if k in r.table2 and np.isfinite(r.table2[k][0]):
                    ours.append(_pct(r.table2[k][0]))
                    theirs.append(float(pub[k]))
        a, b = np.asarray(ours), np.asarray(theirs)
        n = int(a.size)
        out[label] = {
            "compared": n,
            "same_sign": int(sum(_sign(x) == _sign(y) for x, y in zip(a, b))),
            "mean_abs_diff_pp": float(np.mean(np.abs(a - b))) if n else float("nan"),
            "correlation": float(np.corrcoef(a, b)[0, 1]) if n > 2 and a.std() > 0 and b.std() > 0
            else float("nan"),
        }
    return out


def table2(results: Sequence[TraceResult]) -> Table:
    """Table 2: the fixed policies, published beside ours, one pair of rows per trace."""
    rows = []
    for r in results:
        pub = PUBLISHED_TABLE2.get(r.name)
        if pub is not None:
            rows.append([r.name, "published", *[pub[p] for p in TABLE2_COLUMNS]])
        rows.append([r.name, "ours", *[_pct(r.table2[p][0]) if p in r.table2 else None
                                       for p in TABLE2_COLUMNS]])
    for name in MISSING_TRACES:
        rows.append([name, "published (trace not bundled)", *[PUBLISHED_TABLE2[name][p] for p in TABLE2_COLUMNS]])
    return Table(["trace", "values", *TABLE2_COLUMNS], rows, default_digits=1,
                 title="online-bandit Table 2: change (%) of the total waiting time of EASY(P, 40 h) "
                       "vs EASY(FCFS, 40 h)",
                 notes=["Eq. 11 over the resampled two-year traces; negative: less waiting than FCFS.",
                        "95% bootstrap intervals in table2_ci.",
                        "ANL-Intrepid and UniLu-Gaia are not bundled: published values only."])


def table2_ci(results: Sequence[TraceResult]) -> Table:
    rows = []
    for r in results:
        pub = PUBLISHED_TABLE2.get(r.name, {})
        sw = swapped(pub)
        for p in TABLE2_COLUMNS:
            if p not in r.table2:
                continue
            est, lo, hi = r.table2[p]
            same = None if p not in pub else bool(_sign(_pct(est)) == _sign(pub[p]))
            same_sw = None if p not in sw else bool(_sign(_pct(est)) == _sign(sw[p]))
            rows.append([r.name, p, pub.get(p), _pct(est), _ci_text(lo, hi),
                         bool(stats.significant(lo, hi, 0.0)), same, sw.get(p), same_sw])
    return Table(["trace", "policy", "published %", "ours %", "95% CI (%)", "CI excludes 0", "same sign",
                  "published, S/L swapped %", "same sign, swapped"],
                 rows, default_digits=1, title="Table 2 with confidence intervals",
                 notes=["95% CI: percentile bootstrap over the resampled traces (pairs kept together).",
                        "same sign: both below -1 %, both within +-1 %, or both above +1 %.",
                        "published, S/L swapped: the published value of the opposite policy for the "
                        "processing time, the processors and the area (SPF<->LPF, SQF<->LQF, SAF<->LAF)."])


def _t3_columns(results: Sequence[TraceResult]) -> list[tuple[str, str]]:
    keys = {k for r in results for k in r.table3}
    order = [("random", p) for p in PERIODS] + [(s, p) for s in ("full", "noisy", "bandit") for p in PERIODS]
    return [k for k in order if k in keys]


def table3(results: Sequence[TraceResult], epsilon: float) -> Table:
    """Table 3: the strategies (the paper's is a placeholder), with the best
    fixed policy for reference."""
    cols = _t3_columns(results)
    rows = []
    for r in results:
        rows.append([r.name, r.best_fixed, _pct(r.table2[r.best_fixed][0]),
                     *[_pct(r.table3[k][0]) for k in cols]])
    return Table(["trace", "best fixed P", "best fixed %",
                  *[f"{_STRATEGY_LABEL[s]} {p}" for s, p in cols]], rows, default_digits=1,
                 title="online-bandit Table 3 (first complete version): change (%) of the total waiting "
                       "time vs EASY(FCFS, 40 h)",
                 notes=["Eq. 11 over the resampled traces; negative: less waiting than FCFS.",
                        f"Bandit: epsilon-greedy, epsilon = {epsilon:g}; Full/Noisy: simulation of each "
                        "past period; Random: a uniform draw per period.",
                        "best fixed P: the fixed policy of least total wait, known only a posteriori.",
                        "95% bootstrap intervals in table3_ci."])


def table3_ci(results: Sequence[TraceResult]) -> Table:
    rows = []
    for r in results:
        for k in _t3_columns(results):
            est, lo, hi = r.table3[k]
            gap = est - r.table2[r.best_fixed][0]
            rows.append([r.name, _STRATEGY_LABEL[k[0]], k[1], _pct(est), _ci_text(lo, hi),
                         bool(stats.significant(lo, hi, 0.0)), 100.0 * gap, 100.0 * r.on_best[k]])
    return Table(["trace", "strategy", "period", "ours %", "95% CI (%)", "CI excludes 0",
                  "vs best fixed (pp)", "days on best fixed %"], rows, default_digits=1,
                 title="Table 3 with confidence intervals",
                 notes=["vs best fixed: the strategy's change minus the best fixed policy's, in "
                        "percentage points (positive: the strategy waits more).",
                        "days on best fixed: share of (resample, day) pairs in which the strategy "
                        "used the a-posteriori best fixed policy."])


def tables(results: Sequence[TraceResult], epsilon: float) -> dict[str, Table]:
    out = {"table2": table2(results), "table2_ci": table2_ci(results)}
    if any(r.table3 for r in results):
        out["table3"] = table3(results, epsilon)
        out["table3_ci"] = table3_ci(results)
    return out


def data_curves(results: Sequence[TraceResult]) -> Table:
    """The data of Figs. 2-4 (long format)."""
    rows = []
    for r in results:
        base = r.fixed.cum_sum_wait.sel(policy="FCFS").values
        runs = [(str(p), None, r.fixed.cum_sum_wait.sel(policy=p).values) for p in r.fixed.policy.values]
        if r.strategies is not None:
            runs += [(str(s), str(d), r.strategies.cum_sum_wait.sel(strategy=s, period=d).values)
                     for d in r.strategies.period.values for s in r.strategies.strategy.values]
        for label, period, cum in runs:
            mean, p10, p90 = curve(cum, base)
            for k in range(mean.size):
                rows.append([r.name, label, period or "", k + 1, _pct(mean[k]), _pct(p10[k]), _pct(p90[k])])
    return Table(["trace", "run", "period", "week", "change %", "p10 %", "p90 %"], rows)


def data_shares(results: Sequence[TraceResult]) -> Table:
    """The data of Figs. 5-6 (long format, weekly shares)."""
    rows = []
    for r in results:
        if r.strategies is None:
            continue
        for d in r.strategies.period.values:
            for s in r.strategies.strategy.values:
                sh = shares(r.strategies.policy_chosen.sel(period=d, strategy=s).values)
                for k in range(sh.shape[0]):
                    rows += [[r.name, str(s), str(d), k + 1, p, float(sh[k, i])]
                             for i, p in enumerate(POLICIES)]
    return Table(["trace", "strategy", "period", "week", "policy", "share"], rows)


# ---------------------------------------------------------------- figures --

#: One colour per policy, the same in every figure of the study.
POLICY_COLORS: dict[str, str] = dict(zip(POLICIES, (
    "#000000", "#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c",
    "#98df8a", "#d62728", "#ff9896", "#9467bd", "#c5b0d5", "#8c564b")))
STRATEGY_COLORS = {"full": "#1f77b4", "noisy": "#2ca02c", "bandit": "#d62728", "random": "#7f7f7f"}


def _grid(n: int, width: float = 7.0, row_height: float = 2.0):
    cols = 1 if n == 1 else 2
    rows = (n + cols - 1) // cols
    fig = plots.figure(width, 0.9 + row_height * rows)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes[:n]


def _band(ax, x, mean, p10, p90, color, label, lw=1.1):
    ax.plot(x, 100 * mean, color=color, lw=lw, label=label)
    ax.plot(x, 100 * p10, color=color, lw=0.5, ls="--", alpha=0.6)
    ax.plot(x, 100 * p90, color=color, lw=0.5, ls="--", alpha=0.6)


def figure_fixed(results: Sequence[TraceResult]):
    """Fig. 2 for every trace: change of the cumulative total wait vs FCFS of
    the 11 other fixed policies over the weeks (solid: Eq. 11 over the
    resampled traces; dashed: 10th and 90th percentiles)."""
    with plots.style():
        fig, axes = _grid(len(results))
        for ax, r in zip(axes, results):
            base = r.fixed.cum_sum_wait.sel(policy="FCFS").values
            x = np.arange(1, base.shape[-1] + 1)
            for p in r.fixed.policy.values:
                if p == "FCFS":
                    continue
                mean, p10, p90 = curve(r.fixed.cum_sum_wait.sel(policy=p).values, base)
                _band(ax, x, mean, p10, p90, POLICY_COLORS[str(p)], str(p), lw=1.0)
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_title(r.name)
            ax.set_xlabel("week")
            ax.set_ylabel("% vs FCFS")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=6)
    return fig


def figure_strategies(results: Sequence[TraceResult], period: str):
    """Figs. 3-4 for every trace and one period: change of the cumulative
    total wait vs FCFS of the strategies (dashed: 10th/90th percentiles);
    dotted grey: the a-posteriori best fixed policy."""
    with plots.style():
        fig, axes = _grid(len(results))
        for ax, r in zip(axes, results):
            base = r.fixed.cum_sum_wait.sel(policy="FCFS").values
            x = np.arange(1, base.shape[-1] + 1)
            for s in r.strategies.strategy.values:
                mean, p10, p90 = curve(r.strategies.cum_sum_wait.sel(strategy=s, period=period).values, base)
                _band(ax, x, mean, p10, p90, STRATEGY_COLORS[str(s)], _STRATEGY_LABEL[str(s)])
            mean, _, _ = curve(r.fixed.cum_sum_wait.sel(policy=r.best_fixed).values, base)
            ax.plot(x, 100 * mean, color="k", ls=":", lw=1.6, label="best fixed (a posteriori)")
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_title(f"{r.name} (best fixed: {r.best_fixed})")
            ax.set_xlabel("week")
            ax.set_ylabel("% vs FCFS")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=5)
    return fig


def figure_shares(results: Sequence[TraceResult], strategy: str):
    """Figs. 5-6: share of the policies a strategy chose, per week, over the
    resampled traces; one row per trace, one column per period."""
    res = [r for r in results if r.strategies is not None]
    periods = [str(d) for d in res[0].strategies.period.values]
    with plots.style():
        fig = plots.figure(7.0, 0.9 + 1.6 * len(res))
        axes = fig.subplots(len(res), len(periods), squeeze=False, sharey=True)
        for row, r in zip(axes, res):
            for ax, d in zip(row, periods):
                sh = shares(r.strategies.policy_chosen.sel(period=d, strategy=strategy).values)
                x = np.arange(sh.shape[0] + 1)          # week k is drawn over [k, k+1)
                ax.stackplot(x, np.vstack([sh, sh[-1:]]).T, colors=[POLICY_COLORS[p] for p in POLICIES],
                             labels=list(POLICIES), step="post", lw=0)
                ax.set_xlim(0, sh.shape[0])
                ax.set_ylim(0, 1)
                ax.set_title(f"{r.name}, Δ = {d}")
                ax.grid(False)
            row[0].set_ylabel("share")
        for ax in axes[-1]:
            ax.set_xlabel("week")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=6)
    return fig


# ---------------------------------------------------------------- numbers --

def _triple(t: tuple[float, float, float]) -> dict[str, float]:
    return {"pct": _pct(t[0]), "low_pct": _pct(t[1]), "high_pct": _pct(t[2])}


def numbers(results: Sequence[TraceResult], p: Params) -> dict[str, Any]:
    """Key numbers for the paper: per trace and across traces."""
    per = {}
    for r in results:
        d: dict[str, Any] = {
            "jobs_mean": r.jobs_mean,
            "best_fixed": r.best_fixed,
            "best_fixed_pct": _pct(r.table2[r.best_fixed][0]),
            "fixed": {k: {**_triple(v), "published_pct": PUBLISHED_TABLE2.get(r.name, {}).get(k)}
                      for k, v in r.table2.items()},
        }
        pub = PUBLISHED_TABLE2.get(r.name)
        if pub is not None:
            d["published_best_fixed"] = min(pub, key=pub.get)
            d["table2_agreement"] = table2_agreement([r])
        if r.table3:
            d["strategies"] = {f"{s}_{q}": {**_triple(v), "vs_best_fixed_pp": 100 * (v[0] - r.table2[r.best_fixed][0]),
                                             "days_on_best_fixed_pct": 100 * r.on_best[(s, q)],
                                             "most_chosen": r.most_chosen[(s, q)][0],
                                             "most_chosen_pct": 100 * r.most_chosen[(s, q)][1]}
                               for (s, q), v in r.table3.items()}
            bs = r.best_strategy
            d["best_strategy"] = f"{_STRATEGY_LABEL[bs[0]]} ({bs[1]})"
            d["best_strategy_pct"] = _pct(r.table3[bs][0])
        per[r.name] = d
    summary: dict[str, Any] = {"traces": len(results),
                               "best_fixed_mean_pct": float(np.mean([per[r.name]["best_fixed_pct"] for r in results]))}
    keys = {k for r in results for k in r.table3}
    for s, q in sorted(keys):
        vals = [_pct(r.table3[(s, q)][0]) for r in results if (s, q) in r.table3]
        summary[f"{s}_{q}_mean_pct"] = float(np.mean(vals))
        summary[f"{s}_{q}_min_pct"] = float(np.min(vals))
        summary[f"{s}_{q}_max_pct"] = float(np.max(vals))
        summary[f"{s}_{q}_vs_best_mean_pp"] = float(np.mean(
            [100 * (r.table3[(s, q)][0] - r.table2[r.best_fixed][0]) for r in results if (s, q) in r.table3]))
    return {"per_trace": per, "summary": summary, "table2_agreement": table2_agreement(results)}


# -------------------------------------------------------------------- run --

def _timing(datasets: dict[str, Any], p: Params, wall: float) -> dict[str, Any]:
    """Measured compute time per cell and the projection of the full
    profile (100 resamples of 104 weeks, both periods, every strategy) from it."""
    per_trace = {}
    total_cells, computed = 0, 0
    projected = 0.0
    scale = 104 / p.weeks
    for key, ds in datasets.items():
        kind, name = key.split(":", 1)
        t = ds.compute_time.values
        total_cells += int(t.size)
        computed += int(ds.attrs.get("cells_computed", 0))
        mean = float(np.nanmean(t))
        per_trace.setdefault(name, {})[f"{kind}_cell_s"] = mean
        if kind == "fixed":
            projected += mean * scale * 100 * len(POLICIES)
        else:
            # a strategy cell's time by period and strategy, scaled to the full grid
            by = ds.compute_time.mean("sample")
            for d in PERIODS:
                for s in STRATEGIES:
                    if d in by.period.values and s in by.strategy.values:
                        projected += float(by.sel(period=d, strategy=s)) * scale * 100
                    else:
                        projected += float(np.nanmean(by.values)) * scale * 100
    return {"wall_s": wall, "cells": total_cells, "cells_computed": computed,
            "cell_seconds_mean": per_trace, "workers": p.workers,
            "projected_full_profile_cpu_s": projected,
            "projected_full_profile_wall_s": projected / max(p.workers, 1),
            "projection_note": "CPU seconds per cell measured here, scaled linearly to 104 weeks and "
                               "100 resamples of the traces run here, both periods and every strategy, "
                               "divided by the workers"}


def run(traces: Iterable = DEFAULT_TRACES, resamples=100, weeks=104, periods=("day", "week"),
        strategies=STRATEGIES, epsilon=0.5, decay=1.0, noise=0.15, threshold="40h", seed=2017,
        workers=2, scheduler=None, outdir=None, cache_dir=None, profile="custom", log=print,
        n_boot: int = 2000) -> dict[str, Any]:
    """Run the study and write its outputs under ``outdir`` (default
    ``results/selection``), each file atomically:

    * ``data/{fixed,strategies}-<trace>.nc`` -- the campaigns' datasets;
    * ``tables/{table2,table2_ci,table3,table3_ci}.{csv,md}``;
    * ``figures/fixed``, ``figures/strategies_<period>``,
      ``figures/share_{noisy,bandit}`` (``.png`` and ``.pdf``);
    * ``data/{curves,shares}.csv`` -- the data behind the figures;
    * ``numbers.json`` -- key numbers, the published Table 2, timing,
      parameters and provenance.

    Parameters: see :func:`validate`.  Returns a dict with ``params``,
    ``results`` (one :class:`TraceResult` per trace), ``tables``,
    ``figures``, ``numbers``, ``files``, ``outdir`` and ``seconds``.
    """
    t0 = time.perf_counter()
    p = traces if isinstance(traces, Params) else validate(
        traces, resamples, weeks, periods, strategies, epsilon, decay, noise, threshold, seed, workers,
        scheduler, outdir, cache_dir, profile)
    out = p.outdir
    camps = campaigns(p)
    datasets: dict[str, Any] = {}
    with campaign.Runner(p.workers, p.scheduler, p.cache_dir, log) as runner:
        for key, c in camps.items():
            datasets[key] = runner.run(c)
    wall_campaigns = time.perf_counter() - t0
    files: list[Path] = []
    results = []
    for t in p.traces:
        fx = datasets[f"fixed:{t.name}"]
        st = datasets[f"strategies:{t.name}"]
        st["day"].attrs.update({"long_name": "day since the start of the resampled trace"})
        st.attrs["policies"] = list(POLICIES)
        for kind, ds in (("fixed", fx), ("strategies", st)):
            files.append(store.write_dataset(ds, out / "data" / f"{kind}-{t.name}.nc"))
        results.append(analyse(t.name, _ref(t), fx, st, seed=p.seed, n_boot=n_boot))
    tabs = tables(results, p.epsilon)
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    files.append(write_text(out / "data" / "curves.csv", data_curves(results).to_csv()))
    files.append(write_text(out / "data" / "shares.csv", data_shares(results).to_csv()))
    figs = {"fixed": plots.savefig(figure_fixed(results), out / "figures" / "fixed")}
    for d in p.periods:
        figs[f"strategies_{d}"] = plots.savefig(figure_strategies(results, d), out / "figures" / f"strategies_{d}")
    for s in ("noisy", "bandit"):
        if s in p.strategies:
            figs[f"share_{s}"] = plots.savefig(figure_shares(results, s), out / "figures" / f"share_{s}")
    for v in figs.values():
        files += v
    nums = numbers(results, p)
    seconds = time.perf_counter() - t0
    doc = {
        "study": STUDY,
        **nums,
        "parameters": p.as_dict(),
        "policies": list(POLICIES),
        "missing_traces": list(MISSING_TRACES),
        "published_table2": PUBLISHED_TABLE2,
        "source": PAPER,
        "timing": _timing(datasets, p, wall_campaigns),
        "provenance": {
            "schedlab": __version__, "core": sim.VERSION, "git_commit": paths.git_commit(),
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "wall_s": seconds,
            "inputs": {t.name: {"path": str(t.path), "sha256": t.sha256, "m": t.m} for t in p.traces},
        },
    }
    files.append(write_json(out / "numbers.json", doc))
    return {"params": p, "results": results, "datasets": datasets, "tables": tabs, "figures": figs,
            "numbers": doc, "files": files, "outdir": out, "seconds": time.perf_counter() - t0}
