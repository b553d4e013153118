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
engine's ``EASY-P-<backfill>`` schedule.  The simulation is the C engine's,
and so are the observation, the reward and the choice of the episode's
window (csrc/venv.c, the batched environments, here one of them):
Python runs only between decisions.  ``gymnasium.make_vec(
"schedlab/JobDispatch-v0", num_envs=N)`` steps N of them in one call
(:mod:`schedlab.gym.vector`).

Parameters (checked when the environment is made; errors name the
parameter):

* ``trace``: a registry name (``"KTH-SP2"``), an SWF path (cleaned as every
  study cleans it), or a :class:`schedlab.engine.sim.Jobs` (then give ``m``).
* ``window``: what an episode runs on, from an empty machine -- ``"jobs"``
  (default: ``jobs`` consecutive jobs from a random position, SchedGym's
  episodes, 256 jobs; ``starts``: the positions drawn from, default all),
  ``"week"`` (one week of the log that has jobs), ``"resampled"`` (a
  resampled trace of ``weeks`` weeks, the selection study's
  :func:`schedlab.workloads.workload.resample` with ``resample_seed``) or
  ``"log"`` (the whole log).
* ``skip_trivial`` (default True): the ``jobs`` and ``week`` windows drawn
  are those in which a choice changes the score -- an agent that always
  names the first visible job and one that always names the last score
  differently (probed in the core at a window's first draw; a window in
  which they agree is drawn again).  Without it, 0.7 % of KTH-SP2's 256-job
  windows, 2.9 % of SDSC-SP2's and 13 % of CTC-SP2's give every one of
  EASY-FCFS, -SPF, -LPF and -LQF the same mean bounded slowdown (a sample
  of every 97th start): nothing to learn there.  Windows named in
  ``reset(options=...)`` are never skipped.  The probe runs a window twice
  more at its first draw: while most windows drawn are new, an episode
  with its reset costs about 1.5 times as much (a vector of 64 on SDSC-SP2,
  busy machine: 1,250 episodes/s against 1,950 without).
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
* ``rules``: ``"easy"`` (default, above), or SchedGym's scheduling,
  ``"schedgym"`` / ``"schedgym-nobackfill"`` (``backfil`` True / False): the
  job named is held until it starts, the jobs behind it backfilled meanwhile
  in submission order if they end, by their request, strictly before its
  earliest start; a decision follows every start and every submission into
  an empty queue (csrc/SEMANTICS.md, "SchedGym's rules"; ``backfill`` must
  be FCFS).  An agent naming SchedGym's heuristic's first job gets its schedule.
* ``observation``: ``"schedlab"`` (default, below) or ``"schedgym"``:
  SchedGym's visible jobs (the first K in FCFS order, or with more queued its
  mix of the K first by SJF and by fewest processors) and its 8 features per
  job (:data:`schedlab.gym.schedgym.OBS_FIELDS`, in [0, 1]; its empty slots
  0, 1, 1, 1, 1, 1, 1, 0; SchedGym's flat vector is ``obs["jobs"].reshape(-1)``).
* ``invalid_action``: what an action naming no visible job (>= the number of
  visible jobs) does -- ``"wrap"`` (default: it names visible job
  ``action % visible``, counted in ``info["invalid_actions"]`` and warned
  about once per environment) or ``"error"`` (an
  :class:`schedlab.errors.InputError`).  Wrapping is the default because
  Gymnasium's ``check_env`` steps unmasked ``action_space.sample()``
  actions, which an error would fail.

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

``info`` at every step: ``time`` (s, the decision's), ``job`` (the named job's index in
:attr:`jobs`), ``started`` (it fitted and started; else it became the head),
``queued``, ``visible``, ``decisions`` (so far), ``action_mask``; at the end
also ``avg_bsld``, ``avg_wait`` (s), ``jobs``, ``invalid_actions`` and the
schedule's ``summary`` (:attr:`schedule` holds it).  ``reset`` gives
``window`` (``week``, ``start`` or ``sample``), ``jobs``, ``m`` and
``action_mask``.

``reset(seed=s)`` seeds the core's stream of windows with s (a vector's
environment i, reset with seed s, draws exactly as this one reset with
s + i); ``reset()`` draws the next window of the stream (a ``resampled``
one from the environment's ``np_random``); ``options={"week": k}``,
``{"start": i}`` or ``{"sample": k}`` pick one
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
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .. import validators
from ..engine import sim
from ..errors import InputError
from . import _core, schedgym
from . import _checks
from ._weeks import LogWeeks
from ..workloads import traces as _traces
from ..workloads import workload

__all__ = ["JobDispatchEnv", "JOB_FIELDS", "MACHINE_FIELDS", "WINDOWS", "REWARDS", "TIMINGS"]

WINDOWS = ("week", "jobs", "resampled", "log")
REWARDS = ("bsld", "wait")
TIMINGS = ("episode", "step")
INVALID = ("wrap", "error")
OBSERVATIONS = ("schedlab", "schedgym")
#: The options of ``reset`` and the windows each applies to.
OPTIONS = {"week": ("week",), "start": ("jobs",), "sample": ("resampled",)}
#: The columns of the observation's ``"jobs"`` rows, in order (units in the module docstring).
JOB_FIELDS = ("wait", "req", "procs", "submit", "fits")
#: The entries of the observation's ``"machine"`` vector.
MACHINE_FIELDS = ("free", "queued", "time")
HOUR = 3600.0
_TIME, _JOB, _STARTED, _DECISIONS, _INVALID, _QUEUED, _VISIBLE = (
    _core.S[k] for k in ("time", "job", "started", "decisions", "invalid", "queued", "visible"))
WEEK = 7 * 24 * 3600


def _one_of(value, name: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value.strip().lower() not in allowed:
        raise InputError(f"{name}: expected one of {', '.join(allowed)}, got {value!r}")
    return value.strip().lower()


class JobDispatchEnv(_checks.NoCopy, gym.Env):
    """Which queued job goes first, decision by decision, under EASY backfilling (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, trace: Any = "KTH-SP2", m: int | None = None, *, window: str = "jobs", K: int | None = 128,
                 backfill: str = "FCFS", reward: str = "bsld", reward_timing: str = "episode", jobs: int = 256,
                 weeks: int = 1, resample_seed: int = 2017, invalid_action: str = "wrap", rules: str = "easy",
                 observation: str = "schedlab", starts=None, skip_trivial: bool = True):
        super().__init__()
        # SchedGym's rules and observation (issue 50; csrc/SEMANTICS.md "SchedGym's rules", schedlab.gym.schedgym)
        self.rules = _one_of(rules, "rules", tuple(sim.RULES))
        self.observation = _one_of(observation, "observation", OBSERVATIONS)
        self.window = _one_of(window, "window", WINDOWS)
        self.reward = _one_of(reward, "reward", REWARDS)
        self.reward_timing = _one_of(reward_timing, "reward_timing", TIMINGS)
        self.invalid_action = _one_of(invalid_action, "invalid_action", INVALID)
        self.backfill = validators.policy_specs([backfill], "backfill")[0]
        if self.rules != "easy" and self.backfill != "FCFS":
            raise InputError(f"backfill: SchedGym's rules backfill in submission order (FCFS), got {backfill!r}")
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
        self._fields = JOB_FIELDS
        if self.observation == "schedgym":
            self._sg = schedgym.Observation(self._log, self.m, self.K)
            self._fields, big = schedgym.OBS_FIELDS, np.float64(1.0)
        self.observation_space = spaces.Dict({
            "jobs": spaces.Box(0.0, big, (self.K, len(self._fields)), np.float64),
            "mask": spaces.MultiBinary(self.K),
            "machine": spaces.Box(0.0, big, (len(MACHINE_FIELDS),), np.float64),
        })
        # The episodes run in the core's batched environments (csrc/venv.c), here one of them: the
        # template holds the log and the configuration every episode's simulation is made from.
        self._template = sim.Simulation(self._log, self.m, self.policy, rules=self.rules).set_dispatch(True)
        self._windows, self._window_keys = self._window_table(starts)
        if not isinstance(skip_trivial, (bool, np.bool_)):
            raise InputError(f"skip_trivial: expected True or False, got {skip_trivial!r}")
        self.skip_trivial = bool(skip_trivial) and self.window in ("jobs", "week")
        # what the draws found out about each window (shared with a vector made from these parameters)
        self._verdict = np.zeros(len(self._windows), np.uint8) if self.skip_trivial else None
        self._core = _core.DispatchCore(self._template, self._windows, 1, self.K, self.reward, self.reward_timing,
                                        verdict=self._verdict)
        self._stats = self._core.stats[0]
        self._seeded = False
        self._warned = False
        self._done = True
        self._episode: Any = None

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

    def _window_table(self, starts) -> tuple[np.ndarray, np.ndarray | None]:
        """The windows an episode is drawn from, as (lo, hi) job ranges of
        the log, and what each is called in ``info["window"]`` (the start
        of a ``jobs`` window, the week of a ``week`` one)."""
        n = len(self._log)
        if starts is not None and self.window != "jobs":
            raise InputError("starts: the start indices of window='jobs' (got a window of another kind)")
        if self.window == "jobs":
            last = n - self.sequence
            if starts is None:
                lo = np.arange(last + 1, dtype=np.int64)
            else:
                lo = np.asarray(starts)
                if lo.ndim != 1 or lo.size == 0 or lo.dtype.kind not in "iu":
                    raise InputError(f"starts: expected a non-empty list of job indices, got {starts!r}")
                lo = lo.astype(np.int64)
                if lo.min() < 0 or lo.max() > last:
                    raise InputError(f"starts: a window of {self.sequence} jobs starts at 0..{last}, "
                                     f"got {int(lo.min() if lo.min() < 0 else lo.max())}")
            return np.stack([lo, lo + self.sequence], 1), lo
        if self.window == "week":
            k = self._weeks.with_jobs
            return np.stack([self._weeks.bounds[k], self._weeks.bounds[k + 1]], 1), k
        if self.window == "log":
            return np.array([[0, n]], np.int64), None
        return np.zeros((0, 2), np.int64), None        # resampled: drawn in Python at each reset

    # ------------------------------------------------------------- episode --
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        options = _checks.begin_reset(self, seed, options, OPTIONS)
        core = self._core
        if seed is not None or not self._seeded:   # the core's stream draws the windows (as the vector env's)
            core.seed(0, seed if seed is not None else int(self.np_random.integers(2 ** 63)))
            self._seeded = True
        self._jobs = None
        log = self._log
        if self.window == "week" and options.get("week") is not None:
            k, lo, hi = self._weeks.choose(self.np_random, options["week"])
            if hi == lo:
                raise InputError(f"week: week {k} of the log has no jobs")
            core.reset(0, lo, hi)
        elif self.window == "jobs" and options.get("start") is not None:
            lo, last = validators.integer(options["start"], "start", 0), len(log) - self.sequence
            if lo > last:
                raise InputError(f"start: a window of {self.sequence} jobs starts at 0..{last}, got {lo}")
            core.reset(0, lo, lo + self.sequence)
        elif self.window == "resampled":
            k = options.get("sample")
            k = int(self.np_random.integers(2 ** 31 - 1)) if k is None else validators.integer(k, "sample", 0)
            ss = np.random.SeedSequence(entropy=self.resample_seed, spawn_key=(k,))
            self._jobs = workload.resample(log, self.weeks, ss).jobs
            core.reset(0, template=sim.Simulation(self._jobs, self.m, self.policy, rules=self.rules)
                       .set_dispatch(True))
            self._episode = {"sample": k}
        else:
            core.reset(0)
        st = self._stats
        if self.window == "week":
            w = int(st[_core.S["window"]])
            self._episode = {"week": int(self._window_keys[w]) if w >= 0 else int(options["week"])}
        elif self.window == "jobs":
            self._episode = {"start": int(st[_core.S["lo"]])}
        elif self.window == "log":
            self._episode = {}
        if self.observation == "schedgym":
            self._sg.start(self.jobs)
        self._done = False
        self._origin = None
        obs = self._observation()
        info = {"window": dict(self._episode), "jobs": int(st[_core.S["jobs"]]), "m": self.m,
                "action_mask": obs["mask"].copy()}
        return obs, info

    @property
    def jobs(self) -> sim.Jobs:
        """The episode's jobs (a slice of the log, or the resampled trace)."""
        if self._jobs is None:
            lo = int(self._stats[_core.S["lo"]])
            self._jobs = self._log.subset(slice(lo, lo + int(self._stats[_core.S["jobs"]])))
        return self._jobs

    @property
    def _visible(self) -> np.ndarray:
        """The visible jobs (indices in :attr:`jobs`) at the pending decision."""
        return self._core.visible[0, :int(self._stats[_core.S["visible"]])].copy()

    def queued(self) -> np.ndarray:
        """Every queued job of the episode (indices in :attr:`jobs`), in FCFS order."""
        return self._core.queued(0)

    def _observation(self) -> dict:
        c = self._core
        if self.observation == "schedlab":
            return {"jobs": c.jobs[0].copy(), "mask": c.mask[0].copy(), "machine": c.machine[0].copy()}
        # SchedGym's visible jobs and features, from the core's simulation; the core's actions then
        # name these jobs: the visible row and count are replaced with them
        K, mask = self.K, np.zeros(self.K, np.int8)
        if self._done:
            return {"jobs": np.zeros((K, len(self._fields))), "mask": mask, "machine": c.machine[0].copy()}
        jobs, st = self.jobs, c.state(0)
        vis = self._sg.visible(jobs, c.queued(0))
        rows = self._sg.rows(jobs, vis, int(self._stats[_TIME]), self.m - st["used"])
        n = vis.size
        c.visible[0, :n], c.visible[0, n:] = vis, -1
        self._stats[_VISIBLE] = n
        mask[:n] = 1
        return {"jobs": rows, "mask": mask, "machine": c.machine[0].copy()}

    def step(self, action):
        if self._done:
            raise InputError("step: the episode is over (or not started): call reset()")
        a = _checks.action_index(action, self.K, "a visible job's index")
        core = self._core
        st = self._stats.tolist()           # the counters as Python ints, one call
        n = st[_VISIBLE]
        if a >= n:
            if self.invalid_action == "error":
                raise InputError(f"action: {a} names no job: {n} job(s) visible (info['action_mask'])")
            if not self._warned:
                self._warned = True
                warnings.warn(f"JobDispatch-v0: action {a} names no job ({n} visible); it names visible job "
                              f"{a % n} instead, and info['invalid_actions'] counts such actions "
                              "(mask the actions with info['action_mask'], or invalid_action='error')",
                              stacklevel=2)
        now = st[_TIME]
        core.actions[0] = a
        core.step()
        st = self._stats.tolist()
        terminated = bool(core.terminated[0])
        info: dict[str, Any] = {"time": now, "job": st[_JOB], "started": bool(st[_STARTED]),
                                "decisions": st[_DECISIONS]}
        if terminated:
            self._done = True
            jobs = self.jobs
            start, end, flags, pred = core.outputs(0, len(jobs))
            sched = sim.Schedule(jobs, self.m, self.policy, "requested", start, end, flags, None, pred, None)
            self.schedule = sched
            info.update({"avg_bsld": float(core.ended[0, 0]), "avg_wait": float(core.ended[0, 1]),
                         "jobs": len(jobs), "invalid_actions": int(core.final_stats[0, _INVALID]),
                         "summary": sched.summary()})
        obs = self._observation()
        info["queued"], info["visible"], info["action_mask"] = st[_QUEUED], int(self._stats[_VISIBLE]), obs["mask"].copy()
        return obs, float(core.reward[0]), terminated, False, info

    def close(self):
        self._done = True
