"""``schedlab/JobDispatch-v0`` as a Gymnasium vector environment stepped by
the C core (issue 50): ``gymnasium.make_vec("schedlab/JobDispatch-v0",
num_envs=N)`` (``vectorization_mode="vector_entry_point"``, the default for
this id) returns a :class:`JobDispatchVectorEnv`.

One :meth:`~JobDispatchVectorEnv.step` is one call into the core
(``csrc/venv.c``): it makes every environment's decision, runs each
simulation to its next decision, writes the observations, rewards and
counters into arrays, and resets the episodes that ended -- their windows
drawn by each environment's own seeded stream in the core.  Environment i
of a vector reset with ``seed=s`` runs exactly the episodes, observations
and rewards of a single ``JobDispatchEnv`` reset with ``seed=s + i`` and
given the same actions, its later episodes those of ``reset()`` without a
seed (``tests/test_gym_vector.py``).

Parameters: those of :class:`schedlab.gym.dispatch.JobDispatchEnv` (the
windows ``jobs``, ``week`` and ``log``: a ``resampled`` window is drawn in
Python, use ``vectorization_mode="sync"``), and

* ``autoreset_mode``: Gymnasium's :class:`gymnasium.vector.AutoresetMode`
  (or its value): ``NEXT_STEP`` (default, as Gymnasium's own vector
  environments: the step after an episode's last returns the next
  episode's first observation, reward 0, not terminated, and its action is
  not used), ``SAME_STEP`` (the last step returns the next episode's first
  observation; the last one, all zeros, is ``info["final_obs"]``) or
  ``DISABLED`` (reset the ended environments yourself:
  ``reset(options={"reset_mask": mask})``);
* ``copy``: True (default): the observations returned are new arrays;
  False: views of the core's arrays, overwritten by the next step.

Observation and action: the single environment's, batched (a ``Dict`` of
``jobs`` N x K x 5, ``mask`` N x K, ``machine`` N x 3; ``MultiDiscrete``
of N times K).  ``info`` (arrays of N, Gymnasium's ``_key`` masks where not
every environment has the key): ``time`` (s) of the pending decision,
``job`` and ``started`` of the last action, ``decisions`` and
``invalid_actions`` of the episode so far, ``queued``, ``visible``,
``action_mask`` (the observation's mask), ``window`` (the episode's start,
or week); and, for the
environments whose episode ended at this step (NaN or 0 for the others),
``avg_bsld``, ``avg_wait`` (s), ``episode_decisions``,
``episode_invalid_actions`` and ``episode_jobs``.
An action that names no visible job is wrapped (``invalid_action="wrap"``:
counted, and warned once per vector) or refused (``"error"``).
"""
from __future__ import annotations

import warnings
from typing import Any, Mapping

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import validators
from ..errors import InputError
from . import _checks, _core
from .dispatch import JobDispatchEnv

__all__ = ["JobDispatchVectorEnv"]

_MODES = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step",
          AutoresetMode.DISABLED: "disabled"}
S = _core.S


def _autoreset(mode) -> AutoresetMode:
    if isinstance(mode, AutoresetMode):
        return mode
    for m in AutoresetMode:
        if isinstance(mode, str) and mode.strip().lower().replace("_", "") == m.value.lower():
            return m
    raise InputError(f"autoreset_mode: expected one of {', '.join(m.name for m in AutoresetMode)}, got {mode!r}")


#: The most environments one vector steps (issue 54: no parameter allocates without bound); each holds
#: its observation rows (K x 5 doubles) and one episode's simulation.
MAX_ENVS = 4096


class JobDispatchVectorEnv(_checks.NoCopy, VectorEnv):
    """N JobDispatch-v0 environments stepped together in the C core (see the module docstring)."""

    def __init__(self, num_envs: int = 1, *, autoreset_mode=AutoresetMode.NEXT_STEP, copy: bool = True,
                 max_episode_steps=None, **kwargs: Any):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InputError(f"num_envs: expected an integer >= 1, got {validators.shown(num_envs)}")
        _checks.bounded(int(num_envs), "num_envs", MAX_ENVS, "environments stepped in one vector")
        if max_episode_steps is not None:
            raise InputError("max_episode_steps: JobDispatch-v0's episodes end when their jobs have started "
                             "(no truncation)")
        mode = _autoreset(autoreset_mode)
        self._single = single = JobDispatchEnv(**kwargs)
        if single.observation != "schedlab":
            raise InputError("observation='schedgym': SchedGym's observation is computed in Python at each step; "
                             "use gymnasium.make_vec(..., vectorization_mode='sync') for it")
        if single.window == "resampled":
            raise InputError("window='resampled': its traces are drawn in Python at each reset; use "
                             "gymnasium.make_vec(..., vectorization_mode='sync') for it")
        self.num_envs = int(num_envs)
        self.metadata = {"autoreset_mode": mode, "render_modes": []}
        self.autoreset_mode = mode
        self._same_step = mode == AutoresetMode.SAME_STEP
        self.copy = bool(copy)
        self.single_observation_space = single.observation_space
        self.single_action_space = single.action_space
        self.observation_space = batch_space(single.observation_space, self.num_envs)
        self.action_space = batch_space(single.action_space, self.num_envs)
        self.K, self.m, self.window = single.K, single.m, single.window
        self.invalid_action = single.invalid_action
        self._core = _core.DispatchCore(single._template, single._windows, self.num_envs, single.K, single.reward,
                                        single.reward_timing, _MODES[mode], verdict=single._verdict,
                                        invalid=single.invalid_action)
        self._keys = single._window_keys
        self._seeded = False
        self._warned = False
        self._started = False
        # the info of a step in which no episode ended (read-only: shared by such steps)
        nan, zero, no = np.full(self.num_envs, np.nan), np.zeros(self.num_envs, np.int64), np.zeros(self.num_envs, bool)
        for a in (nan, zero, no):
            a.flags.writeable = False
        self._none_ended = {}
        for key, value in (("avg_bsld", nan), ("avg_wait", nan), ("episode_decisions", zero),
                           ("episode_invalid_actions", zero), ("episode_jobs", zero)):
            self._none_ended[key], self._none_ended["_" + key] = value, no

    # ---------------------------------------------------------------- API --
    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        """Reset every environment (or those of ``options["reset_mask"]``):
        ``seed`` an int s seeds environment i with s + i, a list one seed each."""
        one = isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))
        if one and seed < 0:
            raise InputError(f"reset seed: expected None, an integer >= 0 or {self.num_envs} of them, got {seed}")
        super().reset(seed=int(seed) if one else None)        # the vector's own generator takes one int
        if options is not None and not isinstance(options, Mapping):
            raise InputError(f"reset options: expected a dict, got {type(options).__name__} "
                             f"{validators.shown(options)}")
        options = dict(options or {})
        unknown = set(options) - {"reset_mask"}
        if unknown:
            raise InputError(f"reset options: unknown {sorted(unknown)}; expected 'reset_mask'")
        core, n = self._core, self.num_envs
        if seed is not None or not self._seeded:
            if seed is None:
                seeds = [int(x) for x in self.np_random.integers(2 ** 63, size=n)]
            elif one:
                seeds = [int(seed) + i for i in range(n)]
            elif isinstance(seed, (list, tuple, np.ndarray)) and len(seed) == n and all(
                    isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) and x >= 0
                    for x in seed):
                seeds = [int(x) for x in seed]
            else:
                raise InputError(f"reset seed: expected None, an integer >= 0 or {n} of them, got "
                                 f"{validators.shown(seed)}")
            for i, s in enumerate(seeds):
                core.seed(i, s)
            self._seeded = True
        mask = options.get("reset_mask")
        if mask is not None and np.shape(mask) != (n,):
            raise InputError(f"reset_mask: expected {n} booleans, got shape {np.shape(mask)}")
        which = range(n) if mask is None else np.flatnonzero(np.asarray(mask, bool))
        for i in which:
            core.reset(int(i))
        self._started = True
        obs = self._observation()
        return obs, self._info(False, obs["mask"] if self.copy else self._core.mask.copy())

    def step(self, actions):
        if not self._started:
            raise InputError("step: call reset() first")
        a = actions if type(actions) is np.ndarray else np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":
            raise InputError(f"actions: expected {self.num_envs} integers (one per environment), got "
                             f"{a.dtype} of shape {a.shape}")
        if a.dtype.itemsize >= 4 and a.dtype != np.int32 and (a >> 31).any():     # would not fit the core's int32
            raise InputError(f"actions: expected visible jobs' indices 0..{self.K - 1}, got {a.min()}..{a.max()}")
        core = self._core
        core.actions[:] = a
        if core.step() and not self._warned:    # the core checks the range, and wraps or refuses the invalid
            self._warned = True
            warnings.warn("JobDispatch-v0: an action names no visible job; it was wrapped to a visible job and "
                          "counted in info['invalid_actions'] (mask the actions with info['action_mask'], or "
                          "invalid_action='error')", stacklevel=2)
        obs = self._observation()
        info = self._info(True, obs["mask"] if self.copy else core.mask.copy())
        term = core.terminated.copy()
        if self._same_step and term.any():
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(term):
                final[i] = {"jobs": np.zeros((self.K, _core.NJOBF)), "mask": np.zeros(self.K, np.int8),
                            "machine": np.zeros(_core.NMACH)}
            info["final_obs"], info["_final_obs"] = final, term.copy()
        return obs, core.reward.copy(), term, core.truncated.copy(), info

    def _observation(self) -> dict:
        c = self._core
        if self.copy:
            return {"jobs": c.jobs.copy(), "mask": c.mask.copy(), "machine": c.machine.copy()}
        return {"jobs": c.jobs, "mask": c.mask, "machine": c.machine}

    def _info(self, ended: bool, mask: np.ndarray) -> dict:
        c = self._core
        st = c.stats.T.copy()               # one copy; each counter a row of it
        info = {"time": st[S["time"]], "job": st[S["job"]], "started": st[S["started"]].astype(bool),
                "decisions": st[S["decisions"]], "invalid_actions": st[S["invalid"]], "queued": st[S["queued"]],
                "visible": st[S["visible"]], "action_mask": mask,
                "window": self._keys[st[S["window"]]] if self._keys is not None else st[S["window"]]}
        # the ended episodes' figures, every step (NaN and 0 where none ended; the _key masks say where)
        term = c.terminated.copy() if ended else None
        if term is None or not term.any():
            info.update(self._none_ended)
            return info
        fs = c.final_stats
        for key, value in (("avg_bsld", np.where(term, c.ended[:, 0], np.nan)),
                           ("avg_wait", np.where(term, c.ended[:, 1], np.nan)),
                           ("episode_decisions", np.where(term, fs[:, S["decisions"]], 0)),
                           ("episode_invalid_actions", np.where(term, fs[:, S["invalid"]], 0)),
                           ("episode_jobs", np.where(term, fs[:, S["jobs"]], 0))):
            info[key], info["_" + key] = value, term
        return info

    def queued(self, i: int) -> np.ndarray:
        """Every queued job of environment ``i``'s episode (indices in its jobs), in FCFS order."""
        return self._core.queued(i)

    def episode_jobs(self, i: int):
        """The jobs of environment ``i``'s current episode (a slice of the log)."""
        st = self._core.stats[i]
        lo = int(st[S["lo"]])
        return self._single._log.subset(slice(lo, lo + int(st[S["jobs"]])))

    def schedule(self, i: int):
        """The schedule of environment ``i``'s episode so far (after its last
        step, until the environment is reset: the ended episode's)."""
        from ..engine import sim

        jobs = self.episode_jobs(i)
        start, end, flags, pred = self._core.outputs(i, len(jobs))
        return sim.Schedule(jobs, self.m, self._single.policy, "requested", start, end, flags, None, pred, None)

    def close_extras(self, **kwargs):
        self._started = False
        self._core.close()
