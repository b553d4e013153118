"""The mechanics of online-bandit §5-6 (online selection of the queue
policy), shared by the selection study, the learning study and the
PolicySelection environment (:mod:`schedlab.gym.selection`): EASY(P, Θ)
periods, the costs full and noisy feedback learn from, the selection rules,
the epsilon-greedy bandit, the stepped system and the strategies on a job
set.  Moved here unchanged from ``schedlab.studies.selection.cells`` (which
re-exports every name), so that code outside that study can use them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..engine import metrics, sim
from ..errors import InputError
from ..workloads import workload
from .online_bandit import easy

DAY = workload.DAY
WEEK = workload.WEEK
#: The 12 policies of §4.1, in the order used for indices and ties.
POLICIES: tuple[str, ...] = sim.BANDIT_POLICIES
#: Selection strategies of §5 and §6.1.4.
STRATEGIES: tuple[str, ...] = ("full", "noisy", "bandit", "random")
#: Policy periods Δ (§6.1.4), in seconds.
PERIODS: dict[str, int] = {"day": DAY, "week": WEEK}


# -------------------------------------------------------------- mechanics --

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


def _part_waits(jobs: sim.Jobs, m: int, policy: sim.Policy, b: np.ndarray) -> np.ndarray:
    """Each job's wait with its part ``jobs[b[t]:b[t+1]]`` simulated alone:
    :func:`schedlab.engine.sim.simulate_parts`, or, for an order it cannot
    run in place (one reading per-job columns, a Python key function), a
    simulation of each part -- the same schedules, part by part."""
    whole = any(isinstance(q, sim.KeyFunction) or (isinstance(q, sim.Expr) and (q.columns or q.reads_run))
                for q in (policy.primary, policy.backfill))
    if not whole:
        return metrics.wait(sim.simulate_parts(jobs, m, policy, b))
    w = np.full(len(jobs), np.nan)
    for lo, hi in zip(b[:-1].tolist(), b[1:].tolist()):
        if hi > lo:
            w[lo:hi] = metrics.wait(sim.simulate(jobs.subset(slice(lo, hi)), m, policy))
    return w


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
    # Every period of a policy in one call (sim.simulate_parts: each
    # period's jobs alone, the schedules of simulate on each subset), then
    # the costs in period-then-policy order, the order of the noise draws.
    waits = [_part_waits(jobs, m, easy(p, threshold), b) for p in policies]
    for t in range(n_t):
        lo, hi = int(b[t]), int(b[t + 1])
        if hi == lo:
            continue
        for i in range(len(policies)):
            w = waits[i][lo:hi].copy()     # the period's waits, alone in an array as before
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
    return float(metrics.wait(schedule)[done].sum()), int(done.sum())


class FinishedTracker:
    """:func:`finished_in` of every period of a stepped simulation, without
    copying its schedule at every step: after the step of period t
    (``simulation.run(until=edges[t + 1] - 1)``), :meth:`measure` gives the
    total wait and number of the jobs that finished in [e_t, e_{t+1}).

    Only the jobs still pending are looked at: those submitted before
    e_{t+1} (the others cannot have started) and not yet seen to end before
    an earlier boundary (they cannot end in a later period).  A job's end is
    written when it starts, so a started job ending before e_{t+1} is done
    by then.  The same jobs as :func:`finished_in`'s; waits are whole
    seconds summed exactly in int64, so the sum equals its float64 sum
    bit for bit (whole numbers below 2^53 sum exactly in any order)."""

    def __init__(self, jobs: sim.Jobs, edges: np.ndarray):
        self.submit = np.asarray(jobs.submit, dtype=np.int64)
        self.edges = np.asarray(edges, dtype=np.int64)
        self.bounds = period_bounds(jobs, self.edges)
        self.pending = np.empty(0, dtype=np.int64)
        self.upto = 0      # jobs [0, upto) were added to pending

    def measure(self, t: int, simulation: sim.Simulation) -> tuple[float, int]:
        done = self.finished(t, simulation)
        wait = simulation.start_times[done] - self.submit[done]
        return float(wait.sum()), int(done.size)

    def finished(self, t: int, simulation: sim.Simulation) -> np.ndarray:
        """The indices of the jobs that finished in [e_t, e_{t+1}) (what
        :meth:`measure` sums), in increasing order; afterwards
        :attr:`pending` holds the jobs submitted before e_{t+1} that had
        not finished by then (queued or running at e_{t+1})."""
        lo, hi = int(self.edges[t]), int(self.edges[t + 1])
        b = int(self.bounds[t + 1])
        if b > self.upto:
            self.pending = np.concatenate([self.pending, np.arange(self.upto, b, dtype=np.int64)])
            self.upto = b
        start = simulation.start_times[self.pending]
        end = simulation.end_times[self.pending]
        ended = (start >= 0) & (end < hi)
        counted = ended & (end >= lo)
        done = self.pending[counted]
        self.pending = self.pending[~ended]
        return done

    def rest(self, simulation: sim.Simulation) -> np.ndarray:
        """After the last period and ``simulation.run()`` to the end: the
        indices of every job not yet measured (those that finished at or
        after the last boundary, and those submitted after it)."""
        n = len(self.submit)
        done = np.concatenate([self.pending, np.arange(self.upto, n, dtype=np.int64)])
        self.pending, self.upto = np.empty(0, dtype=np.int64), n
        return done[simulation.start_times[done] >= 0]


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
        finished = FinishedTracker(jobs, edges)   # finished_in, period by period

        def observe(t: int, i: int, s: sim.Simulation) -> None:
            w, n = finished.measure(t, s)
            bandit.update(i, w, n)

        sched, chosen = run_stepped(jobs, m, edges, lambda t: bandit.select(), policies, threshold, observe)
        return StrategyRun(sched, chosen, bandit.explorations)
    if strategy in policies:
        i = list(policies).index(strategy)
        sched, chosen = run_stepped(jobs, m, edges, lambda t: i, policies, threshold)
        return StrategyRun(sched, chosen)
    raise InputError(f"unknown strategy {strategy!r}; expected one of {STRATEGIES} or a policy")


def daily_choices(chosen: np.ndarray, length: int, n_days: int) -> np.ndarray:
    """The policy index in force on each day, from the per-period indices of
    periods of ``length`` seconds (a multiple of a day, or a day)."""
    day = np.arange(n_days, dtype=np.int64) * DAY
    return np.asarray(chosen)[np.minimum(day // length, len(chosen) - 1)]
