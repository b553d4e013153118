"""The batched dispatch environments of the C core (``csrc/venv.c``,
csrc/SEMANTICS.md "Batched environments"): N environments of
``schedlab/JobDispatch-v0`` stepped in one call, their observations,
rewards, terminations and counters written by the core into the numpy
arrays held here.  Both :class:`schedlab.gym.dispatch.JobDispatchEnv`
(N = 1) and :class:`schedlab.gym.vector.JobDispatchVectorEnv` step
through it; nothing here makes a Python object per environment and step.
"""
from __future__ import annotations

import threading

import numpy as np

from ..engine import sim
from ..engine._core import ffi, lib
from ..errors import InputError, SimulationError

#: Indices of the counters (the columns of :attr:`DispatchCore.stats`).
STATS = ("time", "job", "started", "decisions", "invalid", "queued", "visible", "jobs", "window", "lo",
         "episodes", "reset")
S = {name: k for k, name in enumerate(STATS)}
assert len(STATS) == lib.SL_VS_NSTATS
AUTORESET = {"disabled": lib.SL_VENV_DISABLED, "next_step": lib.SL_VENV_NEXT_STEP,
             "same_step": lib.SL_VENV_SAME_STEP}
NJOBF, NMACH = 5, 3
U64 = (1 << 64) - 1


class DispatchCore:
    """``nenv`` environments over ``template``'s jobs (a :class:`sim.Simulation`
    in dispatch mode that has not run; kept alive here): episodes are windows
    [lo, hi) of its jobs, drawn at autoresets from ``windows`` (W x 2)."""

    def __init__(self, template: sim.Simulation, windows: np.ndarray, nenv: int, K: int, reward: str,
                 timing: str, autoreset: str = "disabled", verdict: np.ndarray | None = None,
                 invalid: str = "wrap"):
        self.template, self.nenv, self.K, self.verdict = template, nenv, K, verdict
        self.windows = np.ascontiguousarray(windows, np.int64).reshape(-1, 2)
        self.jobs = np.zeros((nenv, K, NJOBF))
        self.mask = np.zeros((nenv, K), np.int8)
        self.machine = np.zeros((nenv, NMACH))
        self.visible = np.full((nenv, K), -1, np.int32)
        self.reward = np.zeros(nenv)
        self.terminated = np.zeros(nenv, np.bool_)
        self.truncated = np.zeros(nenv, np.bool_)
        self.stats = np.zeros((nenv, lib.SL_VS_NSTATS), np.int64)
        self.final_stats = np.zeros((nenv, lib.SL_VS_NSTATS), np.int64)
        self.ended = np.full((nenv, 2), np.nan)
        self.actions = np.zeros(nenv, np.int32)
        buf = lambda t, a: ffi.from_buffer(t, a, require_writable=True)  # noqa: E731
        out = ffi.new("sl_venv_out *")
        out.jobs, out.mask, out.machine = buf("double[]", self.jobs), buf("int8_t[]", self.mask), \
            buf("double[]", self.machine)
        out.visible, out.reward = buf("int32_t[]", self.visible), buf("double[]", self.reward)
        out.terminated, out.truncated = buf("uint8_t[]", self.terminated), buf("uint8_t[]", self.truncated)
        out.stats, out.final_stats = buf("int64_t[]", self.stats), buf("int64_t[]", self.final_stats)
        out.ended = buf("double[]", self.ended)
        self._out = out
        self._actions = buf("int32_t[]", self.actions)
        cfg = ffi.new("sl_venv_config *")
        cfg.nenv, cfg.K = nenv, K
        cfg.reward = lib.SL_VENV_WAIT if reward == "wait" else lib.SL_VENV_BSLD
        cfg.timing = lib.SL_VENV_STEP if timing == "step" else lib.SL_VENV_EPISODE
        cfg.autoreset = AUTORESET[autoreset]
        cfg.invalid = lib.SL_VENV_REFUSE if invalid == "error" else lib.SL_VENV_WRAP
        self._wrapped = ffi.new("int64_t *")
        self._win = ffi.from_buffer("int64_t[]", self.windows)
        err, ptr = ffi.new("char[]", 512), ffi.new("sl_venv **")
        if verdict is not None:
            assert verdict.dtype == np.uint8 and verdict.shape == (len(self.windows),)
        ver = ffi.NULL if verdict is None else ffi.from_buffer("uint8_t[]", verdict, require_writable=True)
        rc = lib.sl_venv_new(template._live(), self._win, len(self.windows), ver, cfg, out, ptr, err, 512)
        if rc != lib.SL_OK:
            raise SimulationError(rc, ffi.string(err).decode())
        self._handle = ffi.gc(ptr[0], lib.sl_venv_free)
        self._episode_templates: list = [None] * nenv     # a reset's own template, kept while its episode lives
        # cffi lets go of the GIL in the core: a second call into the same vector from another thread
        # while one is under way is refused (it would race on the simulations), as Simulation does
        self._lock = threading.Lock()

    def _live(self):
        if self._handle is None:
            raise SimulationError(lib.SL_ESTATE, "the environments are closed")
        return self._handle

    def _busy(self, what: str) -> None:
        self._live()
        if not self._lock.acquire(blocking=False):
            raise SimulationError(lib.SL_ESTATE, f"{what}: the environments are busy in another thread "
                                  "(one call at a time)")

    def _check(self, rc: int) -> None:
        if rc != lib.SL_OK:
            raise SimulationError(rc, ffi.string(lib.sl_venv_error(self._handle)).decode())

    def seed(self, i: int, seed: int) -> None:
        self._check(lib.sl_venv_seed(self._live(), i, int(seed) & U64))

    def reset(self, i: int, lo: int = -1, hi: int = -1, template: sim.Simulation | None = None) -> None:
        """A new episode in environment ``i``: jobs [lo, hi) of the template's
        (lo < 0: a window drawn from its stream), or all of ``template``'s."""
        t = ffi.NULL if template is None else template._live()
        self._busy("reset")
        try:
            self._check(lib.sl_venv_reset(self._handle, i, t, lo, hi))
        finally:
            self._lock.release()
        self._episode_templates[i] = template

    def step(self) -> int:
        """One decision in every environment, the actions in :attr:`actions`;
        returns how many named no visible job (wrapped)."""
        self._busy("step")
        try:
            rc = lib.sl_venv_step(self._handle, self._actions, self._wrapped)
        finally:
            self._lock.release()
        if rc != lib.SL_OK:
            msg = ffi.string(lib.sl_venv_error(self._handle)).decode()
            if rc == lib.SL_EINVAL and " action " in msg:
                raise InputError(f"actions: {msg}" + (" (info['action_mask'])" if "names no job" in msg else ""))
            raise SimulationError(rc, msg)
        return int(self._wrapped[0])

    def outputs(self, i: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Copies of environment ``i``'s start, end, flags and predicted (its ``n`` jobs)."""
        start, end, pred = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
        flags = np.empty(n, np.uint8)
        buf = lambda t, a: ffi.from_buffer(t, a, require_writable=True)  # noqa: E731
        self._check(lib.sl_venv_outputs(self._live(), i, buf("int64_t[]", start), buf("int64_t[]", end),
                                        buf("uint8_t[]", flags), buf("int64_t[]", pred), n))
        return start, end, flags, pred

    def close(self) -> None:
        """Free the core's environments (idempotent); the object is unusable afterwards."""
        if self._handle is not None:
            ffi.release(self._handle)
            self._handle = None

    def state(self, i: int) -> dict:
        """The state of environment ``i``'s simulation (:attr:`sim.Simulation.state`'s keys)."""
        ptr, st = ffi.new("sl_sim **"), ffi.new("sl_state *")
        self._check(lib.sl_venv_sim(self._live(), i, ptr))
        if ptr[0] == ffi.NULL:
            raise SimulationError(lib.SL_ESTATE, f"environment {i} has no episode (reset it)")
        lib.sl_sim_state(ptr[0], st)
        return {k: int(getattr(st, k)) for k in ("now", "next_event", "submitted", "queued", "running", "done",
                                                 "used")}

    def queued(self, i: int) -> np.ndarray:
        """Every queued job of environment ``i``'s episode, in FCFS order."""
        ptr = ffi.new("sl_sim **")
        self._check(lib.sl_venv_sim(self._live(), i, ptr))
        n = int(self.stats[i, S["jobs"]])
        out, cnt = np.empty(max(n, 1), np.int32), ffi.new("int32_t *")
        if ptr[0] != ffi.NULL:
            lib.sl_sim_queued(ptr[0], ffi.from_buffer("int32_t[]", out, require_writable=True), n, cnt)
        return out[:int(cnt[0])].copy()
