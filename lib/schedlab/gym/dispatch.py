"""``schedlab/JobDispatch-v0``: SchedGym's problem (RLScheduler's
``HPCSimPickJobs``) as a Gymnasium environment over the engine's decision
point (csrc/SEMANTICS.md, "Decisions by the caller").

Each step is one scheduling decision: the agent names which queued job goes
first.  If it fits in the free processors it starts now, and the next
decision of the same instant follows while a queued job still fits; if it
does not fit it becomes the head of EASY's queue -- the job that gets the
reservation -- and EASY backfills the machine behind it in the
``backfill`` order.  Decisions happen only when a queued job fits (no
choice could start a job otherwise).  The head is chosen again at every
decision, as EASY re-sorts its queue at every pass (SchedGym holds its
pick until it starts); an agent may always repeat its choice.  So an agent
that always names the job a built-in policy P puts first gets exactly the
engine's ``EASY-P-<backfill>`` schedule.  The simulation is the C engine's:
Python runs only between decisions.

Parameters (checked when the environment is made; errors name the
parameter):

* ``trace``: a registry name (``"KTH-SP2"``), an SWF path (cleaned as every
  study cleans it), or a :class:`schedlab.engine.sim.Jobs` (then give ``m``).
* ``window``: what an episode runs on, from an empty machine -- ``"week"``
  (default: one week of the log that has jobs), ``"jobs"`` (``jobs``
  consecutive jobs from a random position: SchedGym's episodes, 256 jobs),
  ``"resampled"`` (a resampled trace of ``weeks`` weeks, the selection
  study's :func:`schedlab.workloads.workload.resample` with
  ``resample_seed``) or ``"log"`` (the whole log).
* ``K``: how many queued jobs the agent sees and may name -- the first K in
  FCFS order (submit time, then id, then input position); 128 by default as
  SchedGym; None: all of them (the observation is then as long as the
  largest possible queue of an episode).  At most 128 or that largest
  queue, whichever is larger (a larger K could never be filled).
* ``backfill``: the backfilling order P_B, a queue policy name or an
  ``expr:`` policy expression (default ``"FCFS"``: SchedGym walks its queue
  in submission order when it backfills).  Unlike SchedGym's, this is
  EASY's backfilling: a job may start if it ends by the reservation, *or*
  uses only processors the head does not need (``extra``); SchedGym takes
  only jobs that end strictly before it.
* ``reward``: ``"bsld"`` (bounded slowdown, τ = 10 s, default, as
  SchedGym's ``job_score_type=0``) or ``"wait"`` (seconds); ``reward_timing``:
  ``"episode"`` (default, as SchedGym: 0 at every step, minus the average
  over the episode's jobs at its end) or ``"step"`` (at every step, minus
  the sum over the jobs started since the previous step, divided by the
  episode's job count, so the rewards of an episode add up to the episodic
  reward, up to rounding).
* ``invalid_action``: what an action naming no visible job (>= the number of
  visible jobs) does -- ``"wrap"`` (default: it names visible job
  ``action % visible``, counted in ``info["invalid_actions"]``) or
  ``"error"`` (an :class:`schedlab.errors.InputError`).

Action: ``Discrete(K)``, an index among the visible jobs;
``info["action_mask"]`` (and the observation's ``"mask"``) marks the valid
ones (``Discrete.sample(mask=...)``).

Observation (a ``Dict``):

* ``"jobs"`` (K x 5, float64), one row per visible job in FCFS order, zeros
  beyond them (:data:`JOB_FIELDS`): ``wait`` the time it has waited (hours),
  ``req`` its requested time (hours), ``procs`` its processors over m,
  ``submit`` its submit time from the window's first submission (hours),
  ``fits`` 1 if it fits in the free processors now, else 0.  Nothing is
  clipped (SchedGym clips at 12 h and at its log's maxima).
* ``"mask"`` (K, int8): 1 for a visible job.
* ``"machine"`` (:data:`MACHINE_FIELDS`, float64): ``free`` free
  processors over m, ``queued`` jobs waiting (all of them, not only the
  visible ones), ``time`` the decision's time from the window's first
  submission (hours).

``info`` at every step: ``time`` (s), ``job`` (the named job's index in
:attr:`jobs`), ``started`` (it fitted and started; else it became the head),
``queued``, ``visible``, ``decisions`` (so far), ``action_mask``; at the end
also ``avg_bsld``, ``avg_wait`` (s), ``jobs``, ``invalid_actions`` and the
schedule's ``summary`` (:attr:`schedule` holds it).  ``reset`` gives
``window`` (``week``, ``start`` or ``sample``), ``jobs``, ``m`` and
``action_mask``.

``reset(seed=...)`` draws the window from the episode's generator;
``options={"week": k}``, ``{"start": i}`` or ``{"sample": k}`` pick one
(resample k of a named trace is the selection study's resample k for
``resample_seed`` and ``weeks``); an option of another window is an error.
``weeks`` is at most 520 (:data:`schedlab.gym._checks.MAX_WEEKS`).  An
action is an integer (a bool is refused, as by PolicySelection-v0); an
environment cannot be copied or pickled (it holds a simulation of the C
core): make another with the same parameters and seed.
Episodes are deterministic for a seed; nothing is carried from one episode
to the next.
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
from ..workloads import traces as _traces
from ..workloads import workload

__all__ = ["JobDispatchEnv", "JOB_FIELDS", "MACHINE_FIELDS", "WINDOWS", "REWARDS", "TIMINGS"]

WINDOWS = ("week", "jobs", "resampled", "log")
REWARDS = ("bsld", "wait")
TIMINGS = ("episode", "step")
INVALID = ("wrap", "error")
#: The options of ``reset`` and the windows each applies to.
OPTIONS = {"week": ("week",), "start": ("jobs",), "sample": ("resampled",)}
#: The columns of the observation's ``"jobs"`` rows, in order (units in the module docstring).
JOB_FIELDS = ("wait", "req", "procs", "submit", "fits")
#: The entries of the observation's ``"machine"`` vector.
MACHINE_FIELDS = ("free", "queued", "time")
HOUR = 3600.0
WEEK = 7 * 24 * 3600


def _one_of(value, name: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value.strip().lower() not in allowed:
        raise InputError(f"{name}: expected one of {', '.join(allowed)}, got {value!r}")
    return value.strip().lower()


class JobDispatchEnv(_checks.NoCopy, gym.Env):
    """Which queued job goes first, decision by decision, under EASY backfilling (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, trace: Any = "KTH-SP2", m: int | None = None, *, window: str = "week", K: int | None = 128,
                 backfill: str = "FCFS", reward: str = "bsld", reward_timing: str = "episode", jobs: int = 256,
                 weeks: int = 1, resample_seed: int = 2017, invalid_action: str = "wrap"):
        super().__init__()
        self.window = _one_of(window, "window", WINDOWS)
        self.reward = _one_of(reward, "reward", REWARDS)
        self.reward_timing = _one_of(reward_timing, "reward_timing", TIMINGS)
        self.invalid_action = _one_of(invalid_action, "invalid_action", INVALID)
        self.backfill = validators.policy_specs([backfill], "backfill")[0]
        self.policy = sim.Policy(self.backfill, self.backfill, None)     # P_R = P_B: one queue; P_R decides nothing
        self.sequence = validators.integer(jobs, "jobs", 1)
        self.weeks = _checks.bounded(validators.integer(weeks, "weeks", 1), "weeks", _checks.MAX_WEEKS,
                                     "ten years of weeks")
        self.resample_seed = validators.integer(resample_seed, "resample_seed", 0)
        if isinstance(trace, sim.Jobs):
            if m is None:
                raise InputError("m: give the machine size with a Jobs trace")
            self.m = validators.integer(m, "m", 1)
            self.trace_name = None
            self._log = trace
            self._log.validate(self.m)
        elif isinstance(trace, (str, os.PathLike, _traces.TraceInfo)):
            info = _traces.trace_list([trace], "trace")[0]
            self.trace_name = _traces.text(info)
            c = _traces.cleaned(self.trace_name, m=m)
            self._log, self.m = c.jobs, c.m
        else:
            raise InputError(f"trace: expected a registry name, an SWF path or a Jobs, got {type(trace).__name__}")
        n = len(self._log)
        if n == 0:
            raise InputError("trace: no jobs")
        if self.window == "jobs" and self.sequence > n:
            raise InputError(f"jobs: the log has {n} jobs, fewer than a window of {self.sequence}")
        if self.window == "resampled" and self._log.user is None:
            raise InputError("window='resampled' needs the users of the jobs (Jobs(user=...))")
        if self.window == "week":
            self._weeks = LogWeeks(self._log)
        if K is None:
            self.K = self._largest_episode()
        else:
            self.K = _checks.bounded(validators.integer(K, "K", 1), "K", max(128, self._largest_episode()),
                                     "128 or the most jobs an episode of this window can hold")
        self.action_space = spaces.Discrete(self.K)
        big = np.float64(np.inf)
        self.observation_space = spaces.Dict({
            "jobs": spaces.Box(0.0, big, (self.K, len(JOB_FIELDS)), np.float64),
            "mask": spaces.MultiBinary(self.K),
            "machine": spaces.Box(0.0, big, (len(MACHINE_FIELDS),), np.float64),
        })
        self._sim: sim.Simulation | None = None
        self._done = True

    def _largest_episode(self) -> int:
        """The most jobs an episode can hold (K=None: every queued job is visible)."""
        log = self._log
        if self.window == "log":
            return len(log)
        if self.window == "jobs":
            return self.sequence
        if self.window == "week":
            return int(np.diff(self._weeks.bounds).max())
        # resampled: in each resampled week, each user submits one of its source weeks' jobs
        week = (log.submit - log.submit[0]) // WEEK
        pairs, counts = np.unique(np.stack([log.user.astype(np.int64), week]), axis=1, return_counts=True)
        users, inverse = np.unique(pairs[0], return_inverse=True)
        busiest = np.zeros(users.size, np.int64)
        np.maximum.at(busiest, inverse, counts)
        return int(busiest.sum()) * self.weeks

    # ------------------------------------------------------------- episode --
    def _episode_jobs(self, options: dict) -> tuple[sim.Jobs, dict]:
        log = self._log
        if self.window == "week":
            k, lo, hi = self._weeks.choose(self.np_random, options.get("week"))
            if hi == lo:
                raise InputError(f"week: week {k} of the log has no jobs")
            return log.subset(np.arange(lo, hi)), {"week": k}
        if self.window == "jobs":
            last = len(log) - self.sequence
            i = options.get("start")
            i = int(self.np_random.integers(last + 1)) if i is None else validators.integer(i, "start", 0)
            if i > last:
                raise InputError(f"start: a window of {self.sequence} jobs starts at 0..{last}, got {i}")
            return log.subset(np.arange(i, i + self.sequence)), {"start": i}
        if self.window == "resampled":
            k = options.get("sample")
            k = int(self.np_random.integers(2 ** 31 - 1)) if k is None else validators.integer(k, "sample", 0)
            ss = np.random.SeedSequence(entropy=self.resample_seed, spawn_key=(k,))
            return workload.resample(log, self.weeks, ss).jobs, {"sample": k}
        return log, {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = _checks.begin_reset(self, seed, options, OPTIONS)
        self.jobs, where = self._episode_jobs(options)
        j = self.jobs
        self._origin = int(j.submit[0])
        # the rows' req, procs and submit columns of every job, taken by the visible ones at each decision
        self._feat = np.column_stack([j.req / HOUR, j.procs / float(self.m), (j.submit - self._origin) / HOUR])
        self._sim = sim.Simulation(j, self.m, self.policy).set_dispatch(True)
        self._sim.run()
        self._done = False
        self._decisions = self._invalid = 0
        self._counted = np.zeros(len(j), bool)     # reward_timing="step": jobs whose start was rewarded
        obs = self._observe()
        info = {"window": where, "jobs": len(j), "m": self.m, "action_mask": obs["mask"].copy()}
        return obs, info

    def _observe(self) -> dict:
        """The observation at the pending decision (and the visible jobs, in self._visible)."""
        s = self._sim
        now = s.decision
        vis = s.queued(self.K)
        self._visible, self._now = vis, now
        n = vis.size
        st = s.state
        free = self.m - st["used"]
        rows = np.zeros((self.K, len(JOB_FIELDS)))
        t = (now - self._origin) / HOUR
        rows[:n, 1:4] = self._feat[vis]
        rows[:n, 0] = t - rows[:n, 3]
        rows[:n, 4] = self.jobs.procs[vis] <= free
        mask = np.zeros(self.K, np.int8)
        mask[:n] = 1
        machine = np.array([free / self.m, st["queued"], t])
        return {"jobs": rows, "mask": mask, "machine": machine}

    def _costs(self, idx) -> np.ndarray:
        """The reward's per-job cost (bsld or wait, s) of started jobs ``idx``."""
        start, end = self._sim.start_times[idx], self._sim.end_times[idx]
        w = (start - self.jobs.submit[idx]).astype(np.float64)
        return w if self.reward == "wait" else metrics.bounded_slowdown(w, end - start)

    def step(self, action):
        if self._done:
            raise InputError("step: the episode is over (or not started): call reset()")
        a, n = _checks.action_index(action, self.K, "a visible job's index"), self._visible.size
        if a >= n:
            if self.invalid_action == "error":
                raise InputError(f"action: {a} names no job: {n} job(s) visible (info['action_mask'])")
            a %= n
            self._invalid += 1
        j = int(self._visible[a])
        now, s = self._now, self._sim
        if self.reward_timing == "step":       # the jobs that may start in this step: queued, or submitted in it
            before, submitted = s.queued(), s.state["submitted"]
        s.decide(j)
        self._decisions += 1
        started = bool(s.start_times[j] == now)
        info: dict[str, Any] = {"time": int(now), "job": j, "started": started, "decisions": self._decisions}
        terminated = not s.deciding
        reward = 0.0
        if self.reward_timing == "step":
            maybe = np.concatenate([before, np.arange(submitted, s.state["submitted"])])
            new = maybe[s.start_times[maybe] >= 0]
            self._counted[new] = True
            reward = -float(self._costs(new).sum()) / len(self.jobs)
        if terminated:
            self._done = True
            sched = s.schedule
            self.schedule = sched
            all_jobs = np.arange(len(self.jobs))
            avg = float(self._costs(all_jobs).mean())
            if self.reward_timing == "episode":
                reward = -avg
            else:
                rest = all_jobs[~self._counted]
                self._counted[rest] = True
                reward += -float(self._costs(rest).sum()) / len(self.jobs)
            w = sched.start - self.jobs.submit
            info.update({"avg_bsld": float(metrics.bsld(sched).mean()), "avg_wait": float(w.mean()),
                         "jobs": len(self.jobs), "invalid_actions": self._invalid, "summary": sched.summary()})
            obs = {"jobs": np.zeros((self.K, len(JOB_FIELDS))), "mask": np.zeros(self.K, np.int8),
                   "machine": np.zeros(len(MACHINE_FIELDS))}
            self._visible = np.zeros(0, np.int32)
        else:
            obs = self._observe()
        info.update({"queued": int(obs["machine"][1]), "visible": int(self._visible.size),
                     "action_mask": obs["mask"].copy()})
        return obs, reward, terminated, False, info

    def close(self):
        if self._sim is not None:
            self._sim.close()
            self._sim = None
