"""``schedlab/PolicySelection-v0``: online-bandit's problem (§5-6) as a
Gymnasium environment.

Each step is one period (a day or a week) of one trace window; the action is
the index of a queue policy P among ``policies`` (by default the 12 of §4.1,
:data:`schedlab.engine.sim.BANDIT_POLICIES`); EASY(P, Θ) then runs the period
in the engine with the queue and the running jobs carried over.  It is the
selection study's system (:func:`schedlab.science.online_selection.run_stepped`)
turned inside out: one :class:`schedlab.engine.sim.Simulation` per episode,
``set_policy(easy(P, Θ))`` then ``run(until=e_{t+1} - 1)`` at every step,
never replayed from the start.

Parameters (checked when the environment is made; errors name the
parameter):

* ``trace``: a registry name (``"KTH-SP2"``), an SWF path, or a
  :class:`schedlab.engine.sim.Jobs` (then give ``m``).  Names and paths are
  cleaned as online-bandit §6.1.1 does (:data:`schedlab.science.online_bandit.CLEANING`).
* ``window``: what an episode runs on -- ``"resampled"`` (default: a
  resampled trace of ``weeks`` weeks, §6.1.3, the selection study's
  :func:`schedlab.science.online_bandit.resampled`), ``"week"`` (one week of
  the log, from an empty machine) or ``"log"`` (the whole log).
* ``period``: ``"day"`` or ``"week"``, the length Δ of a step.
* ``policies``: names or ``expr:...`` policy expressions
  (:func:`schedlab.validators.policy_specs`); action i is ``policies[i]``.
* ``threshold``: Θ of EASY(P, Θ) (default 40 h as the study; None: none).
* ``feedback``: ``"full"`` (the period's exact cost of every policy),
  ``"noisy"`` (the same, each job's cost scaled by a factor uniform in
  [1 - noise, 1 + noise], Eq. 6) or ``"bandit"`` (only the chosen policy's
  measured cost).
* ``cost``: ``"wait"`` (total waiting time, seconds; default) or ``"bsld"``
  (total bounded slowdown, τ = 10 s, dimensionless).

Observation (a ``Dict``; float64):

* ``"costs"`` (n policies): under full / noisy feedback, ``costs[i]`` is
  the cost of the jobs submitted in the period just run when they are
  simulated alone, from an empty machine, under EASY(policies[i], Θ)
  (:func:`schedlab.science.online_selection.period_costs`, §5.1-5.2);
  under bandit feedback, the cost of the jobs that *finished* during the
  period (what the study's bandit measures, Eq. 8) at the chosen policy's
  index and 0 elsewhere.  All zeros after ``reset``.
* ``"chosen"`` (n): one-hot of the policy run in the period just ended
  (zeros after ``reset``).
* ``"state"`` (:data:`STATE_FIELDS`, at the period's end e_{t+1}):
  ``queued`` jobs waiting; ``queued_area`` their requested processor-seconds
  over m × Δ (machine-periods); ``queued_procs`` their processors over m;
  ``queued_wait`` their mean wait so far, hours; ``running`` jobs running;
  ``busy`` busy processors over m; ``running_area`` the requested
  processor-seconds the running jobs still hold, over m × Δ;
  ``submitted`` jobs submitted in the period; ``finished`` jobs finished in
  it; ``finished_wait`` their mean wait, hours; ``progress`` periods done
  over the episode's periods.

Reward: minus the period's cost -- the cost (``cost``) of the jobs that
finished in the period, so that an episode's rewards sum to minus the
total cost of its schedule: the last step also counts the jobs that finish
after the last period (the simulation runs to the end under the last
policy, as the study's).  ``info``: ``period``, ``policy`` (name),
``policy_index``, ``cost``, ``wait_sum``, ``bsld_sum``, ``finished``
(jobs measured), ``time`` (e_{t+1}, s); at the end ``sum_wait``,
``sum_bsld``, ``jobs`` and the schedule's ``summary``.  ``reset`` gives
``window`` (``sample`` or ``week``), ``periods``, ``jobs``, ``m``.

``reset(seed=...)`` draws the window from the episode's generator (a
resample index among the selection study's ``resamples`` -- 0..99 by
default, its papers' size; ``resamples=None``: any of 2^31 - 1, for a
training stream -- or a week that has jobs); ``options={"sample": k}`` or
``{"week": k}`` pick one (an option of another window is an error).
Resample k is the selection study's resample k for ``resample_seed``
(default 2017, the study's seed); ``weeks`` is at most 520
(:data:`schedlab.gym._checks.MAX_WEEKS`).  An action is an integer (a bool
is refused, as by JobDispatch-v0); an environment cannot be copied or
pickled (it holds a simulation of the C core): make another with the same
parameters and seed.  Nothing is carried
from one episode to the next.
"""
from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .. import validators
from ..engine import metrics, sim
from ..errors import InputError
from . import _checks
from ._weeks import LogWeeks
from ..science import online_bandit
from ..science.online_selection import (PERIODS, POLICIES, WEEK, FinishedTracker, period_bounds, period_costs,
                                        period_edges)
from ..workloads import traces as _traces
from ..workloads import workload

__all__ = ["PolicySelectionEnv", "STATE_FIELDS", "WINDOWS", "FEEDBACKS", "COSTS"]

WINDOWS = ("resampled", "week", "log")
FEEDBACKS = ("full", "noisy", "bandit")
COSTS = ("wait", "bsld")
#: The options of ``reset`` and the windows each applies to.
OPTIONS = {"sample": ("resampled",), "week": ("week",)}
#: The resamples a seed draws from, 0..RESAMPLES-1: the selection study's at the papers' size
#: (online-bandit §6.1.3: 100 two-year traces per log; its quick profile runs the first 5).
RESAMPLES = 100
#: The entries of the observation's ``"state"`` vector, in order (units in the module docstring).
STATE_FIELDS = ("queued", "queued_area", "queued_procs", "queued_wait", "running", "busy", "running_area",
                "submitted", "finished", "finished_wait", "progress")
HOUR = 3600.0


def _one_of(value, name: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value.strip().lower() not in allowed:
        raise InputError(f"{name}: expected one of {', '.join(allowed)}, got {value!r}")
    return value.strip().lower()


def _job_costs(schedule: sim.Schedule, idx: np.ndarray) -> tuple[float, float]:
    """Total wait (s; exact: whole seconds summed in int64) and total
    bounded slowdown of the jobs ``idx`` of a schedule."""
    w = schedule.start[idx] - schedule.jobs.submit[idx]
    b = metrics.bounded_slowdown(w, schedule.end[idx] - schedule.start[idx])
    return float(w.sum()), float(b.sum())


class _View:
    """The few fields of a schedule :func:`_job_costs` reads, from a live simulation."""

    def __init__(self, jobs: sim.Jobs, s: sim.Simulation):
        self.jobs, self.start, self.end = jobs, s.start_times, s.end_times


def bsld_period_costs(jobs: sim.Jobs, m: int, edges: np.ndarray, policies, threshold, noise: float,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`schedlab.science.online_selection.period_costs` with the
    bounded slowdown (τ = 10 s) as the jobs' cost: exact and noisy
    (each job's factor uniform in [1 - noise, 1 + noise]) per period and policy."""
    edges = np.asarray(edges, dtype=np.int64)
    b = period_bounds(jobs, edges)
    n_t = len(edges) - 1
    exact = np.zeros((n_t, len(policies)))
    noisy = np.zeros((n_t, len(policies)))
    costs = [metrics.bsld(sim.simulate_parts(jobs, m, online_bandit.easy(p, threshold), b)) for p in policies]
    for t in range(n_t):
        lo, hi = int(b[t]), int(b[t + 1])
        if hi == lo:
            continue
        for i in range(len(policies)):
            c = costs[i][lo:hi]
            exact[t, i] = c.sum()
            noisy[t, i] = (rng.uniform(1.0 - noise, 1.0 + noise, size=c.size) * c).sum()
    return exact, noisy


class PolicySelectionEnv(_checks.NoCopy, gym.Env):
    """Online selection of EASY's queue policy, period by period (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, trace: Any = "KTH-SP2", m: int | None = None, *, window: str = "resampled",
                 weeks: int = 4, period: str = "day", policies=POLICIES, threshold: Any = 40 * 3600,
                 feedback: str = "full", cost: str = "wait", noise: float = 0.15, resample_seed: int = 2017,
                 resamples: int | None = RESAMPLES):
        super().__init__()
        self.window = _one_of(window, "window", WINDOWS)
        self.period = _one_of(period, "period", tuple(PERIODS))
        self.feedback = _one_of(feedback, "feedback", FEEDBACKS)
        self.cost = _one_of(cost, "cost", COSTS)
        self.policies = validators.policy_specs(policies, "policies")
        if not self.policies:
            raise InputError("policies: give at least one (action i runs policies[i])")
        self.threshold = validators.duration(threshold, "threshold")
        self.weeks = _checks.bounded(validators.integer(weeks, "weeks", 1), "weeks", _checks.MAX_WEEKS,
                                     "ten years of weeks")
        self.noise = validators.number(noise, "noise", 0.0, 1.0, high_open=True)
        self.resample_seed = validators.integer(resample_seed, "resample_seed", 0)
        self.resamples = None if resamples is None else validators.integer(resamples, "resamples", 1)
        self.length = PERIODS[self.period]
        if self.window == "week" and WEEK % self.length:
            raise InputError(f"period: {self.period!r} does not divide a week")
        if isinstance(trace, sim.Jobs):
            if m is None:
                raise InputError("m: give the machine size with a Jobs trace")
            self.m = validators.integer(m, "m", 1)
            self.trace_name = None
            self._log = trace
        elif isinstance(trace, (str, os.PathLike, _traces.TraceInfo)):
            info = _traces.trace_list([trace], "trace")[0]
            self.trace_name = _traces.text(info)
            self._log, self.m = online_bandit._cleaned(self.trace_name, m)
        else:
            raise InputError(f"trace: expected a registry name, an SWF path or a Jobs, got {type(trace).__name__}")
        if len(self._log) == 0:
            raise InputError("trace: no jobs")
        if self.window == "week":
            self._weeks = LogWeeks(self._log)
        n = len(self.policies)
        self.action_space = spaces.Discrete(n)
        big = np.float64(np.inf)
        self.observation_space = spaces.Dict({
            "costs": spaces.Box(0.0, big, (n,), np.float64),
            "chosen": spaces.Box(0.0, 1.0, (n,), np.float64),
            "state": spaces.Box(0.0, big, (len(STATE_FIELDS),), np.float64),
        })
        self._sim: sim.Simulation | None = None
        self._t = 0
        self._done = True

    # ------------------------------------------------------------- episode --
    def _episode_jobs(self, options: dict) -> tuple[sim.Jobs, np.ndarray, dict]:
        """The window's jobs, its period edges and what ``info`` says of it."""
        if self.window == "resampled":
            k = options.get("sample")
            if k is None:      # one of the study's resamples (None: any of 2^31 - 1, a stream for training)
                k = int(self.np_random.integers(self.resamples if self.resamples is not None else 2 ** 31 - 1))
            else:
                k = validators.integer(k, "sample", 0)
            if self.trace_name is not None:
                jobs, _ = online_bandit.resampled(self.trace_name, self.m, self.weeks, self.resample_seed, k)
            else:
                ss = np.random.SeedSequence(entropy=self.resample_seed, spawn_key=(k,))
                jobs = workload.resample(self._log, self.weeks, ss).jobs
            return jobs, period_edges(self.weeks * WEEK // self.length, self.length), {"sample": k}
        if self.window == "week":
            k, lo, hi = self._weeks.choose(self.np_random, options.get("week"))
            jobs = self._log.subset(np.arange(lo, hi))
            return jobs, period_edges(WEEK // self.length, self.length, int(self._weeks.edges[k])), {"week": k}
        jobs = self._log
        origin = int(jobs.submit[0])
        n = int((int(jobs.submit[-1]) - origin) // self.length + 1)
        return jobs, period_edges(n, self.length, origin), {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = _checks.begin_reset(self, seed, options, OPTIONS)
        self.jobs, self.edges, where = self._episode_jobs(options)
        self.n_periods = len(self.edges) - 1
        self._bounds = period_bounds(self.jobs, self.edges)
        self._area = self.jobs.procs.astype(np.float64) * self.jobs.req
        self._tracker = FinishedTracker(self.jobs, self.edges)
        self._costs = None
        if self.feedback != "bandit":
            noise_rng = np.random.default_rng(self.np_random.integers(2 ** 63 - 1))
            fn = period_costs if self.cost == "wait" else bsld_period_costs
            exact, noisy = fn(self.jobs, self.m, self.edges, self.policies, self.threshold, self.noise,
                              noise_rng)[:2]
            self._costs = exact if self.feedback == "full" else noisy
        self._sim = sim.Simulation(self.jobs, self.m, online_bandit.easy(self.policies[0], self.threshold))
        self._t, self._done = 0, False
        self._sum_wait, self._sum_bsld = 0.0, 0.0
        n = len(self.policies)
        obs = {"costs": np.zeros(n), "chosen": np.zeros(n), "state": self._state(None, 0)}
        info = {"window": where, "periods": self.n_periods, "jobs": len(self.jobs), "m": self.m}
        return obs, info

    def _state(self, finished: np.ndarray | None, t_done: int) -> np.ndarray:
        """The ``"state"`` vector at e_{t_done} (STATE_FIELDS)."""
        out = np.zeros(len(STATE_FIELDS))
        out[STATE_FIELDS.index("progress")] = t_done / self.n_periods
        if finished is None:
            return out
        now = int(self.edges[t_done])
        unit = float(self.m) * self.length
        pending = self._tracker.pending
        start = self._sim.start_times[pending]
        q = pending[start < 0]
        r = pending[start >= 0]
        out[0] = q.size
        out[1] = self._area[q].sum() / unit
        out[2] = self.jobs.procs[q].sum() / self.m
        out[3] = (now - self.jobs.submit[q]).mean() / HOUR if q.size else 0.0
        out[4] = r.size
        out[5] = self._sim.state["used"] / self.m
        left = np.maximum(start[start >= 0] + self.jobs.req[r] - now, 0)
        out[6] = float((left * self.jobs.procs[r].astype(np.float64)).sum()) / unit
        out[7] = int(self._bounds[t_done] - self._bounds[t_done - 1])
        out[8] = finished.size
        if finished.size:
            out[9] = (self._sim.start_times[finished] - self.jobs.submit[finished]).mean() / HOUR
        return out

    def step(self, action):
        if self._done:
            raise InputError("step: the episode is over (or not started): call reset()")
        i, t = _checks.action_index(action, len(self.policies), "a policy index"), self._t
        s = self._sim
        s.set_policy(online_bandit.easy(self.policies[i], self.threshold))
        s.run(until=int(self.edges[t + 1]) - 1)
        done = self._tracker.finished(t, s)
        view = _View(self.jobs, s)
        wait, bsld = _job_costs(view, done)
        state = self._state(done, t + 1)
        info: dict[str, Any] = {"period": t, "policy": self.policies[i], "policy_index": i,
                                "finished": int(done.size), "time": int(self.edges[t + 1])}
        n = len(self.policies)
        chosen = np.zeros(n)
        chosen[i] = 1.0
        if self._costs is not None:
            costs = np.asarray(self._costs[t], dtype=np.float64).copy()
        else:
            costs = np.zeros(n)
            costs[i] = wait if self.cost == "wait" else bsld
        self._t = t + 1
        terminated = self._t == self.n_periods
        if terminated:
            s.run()
            rest = self._tracker.rest(s)
            w2, b2 = _job_costs(view, rest)
            info["after_last_period"] = {"jobs": int(rest.size), "wait_sum": w2, "bsld_sum": b2}
            wait, bsld = wait + w2, bsld + b2
            self._done = True
        self._sum_wait += wait
        self._sum_bsld += bsld
        cost = wait if self.cost == "wait" else bsld
        info.update({"cost": cost, "wait_sum": wait, "bsld_sum": bsld})
        if terminated:
            sched = s.schedule
            self.schedule = sched
            info.update({"sum_wait": self._sum_wait, "sum_bsld": self._sum_bsld, "jobs": len(self.jobs),
                         "summary": sched.summary()})
        obs = {"costs": costs, "chosen": chosen, "state": state}
        return obs, -float(cost), terminated, False, info

    def close(self):
        if self._sim is not None:
            self._sim.close()
            self._sim = None
