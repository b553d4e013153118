"""The computations of the dispatching study: the agent (RLScheduler's
kernel network in plain numpy), its training through the batched
``schedlab/JobDispatch-v0`` environment, and the two cells -- the agent
trained on a log's first half and run frozen on held-out sequences of its
second half, and SchedGym's heuristics on the same held-out sequences.

A cell imports the engine, the workloads, schedlab.campaigns and
schedlab.gym, never this study's params, analysis, tables, figures or
report: its cache key covers the code it imports (this module, with the
network and the training), so editing how a result is shown never trains
again.

**The network** (RLScheduler's ``rl_kernel``): one small MLP, 32-16-8 ReLU
units and one linear output, applied to each visible job's feature row with
the same weights; a softmax over the scores of the visible jobs (the mask)
is the policy.  Its input, per visible job, computed from JobDispatch-v0's
observation (:data:`FEATURES`): log(1 + wait in hours), log(1 + requested
hours), processors over m, whether it fits now, and the machine's free
share (the same for every row).  The window's submit clock and the queue
length are left out: the kernel scores a job by what the job is.

**The training**: REINFORCE with a baseline.  An epoch resets the vector's N
environments in groups of G that share a seed, so that each group runs G
episodes of the same 256-job sequence; an episode's return is minus its mean
bounded slowdown (SchedGym's reward, ``reward_timing="episode"``); the
baseline of an episode is the mean of the G - 1 others of its group on the
same sequence (leave-one-out), and its advantage is divided by the group's
mean, so every sequence weighs the same whatever its level.  A sequence in
which no choice changes the score gets advantages of 0 from its group and
teaches nothing, so the environment's ``skip_trivial`` is off (it would
refuse a log made only of such sequences; on SDSC-SP2 they are about 3 %).  The gradient
of log pi is summed over each episode's decisions as they happen (no
trajectory is stored), then weighted by the advantage; Adam takes one step
per epoch, its step size annealed linearly from ``lr`` to a tenth of it over
the epochs (a long run's late steps then settle rather than wander).  Seeds fix the sequences, the sampling and the initial weights:
a run is the same for the same seed (numpy's float64 matrix products; the
BLAS threads are limited to one in :func:`train` so that sums are always
added in the same order).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from ...campaigns import store
from ...campaigns.cells import TraceInputs, cell
from ...campaigns.outputs import produces
from ...declared import REQUIRED, integer, number, one_of, param, text
from ...engine import sim
from ...gym import schedgym
from ...workloads import traces as _traces

#: The agent's input per visible job (see the module docstring).
FEATURES = ("log1p_wait_h", "log1p_req_h", "procs_share", "fits", "free_share")
#: RLScheduler's kernel: hidden widths of the per-job MLP (``rl_kernel``: 32, 16, 8, then 1).
LAYERS = (32, 16, 8)
#: SchedGym's five heuristics, in RLScheduler's table order.
HEURISTICS = ("FCFS", "WFP3", "UNICEP", "SJF", "F1")
AGENT = "agent"
RULES = ("schedgym", "schedgym-nobackfill", "easy")


# ------------------------------------------------------------- the network --
class KernelPolicy:
    """RLScheduler's kernel network: the same MLP on every visible job's row, a
    softmax over the visible jobs.  Parameters: ``weights`` (a list of
    matrices and biases, in order), float64."""

    def __init__(self, n_in: int = len(FEATURES), layers: tuple = LAYERS, rng: np.random.Generator | None = None):
        rng = rng if rng is not None else np.random.default_rng(0)
        sizes = (n_in,) + tuple(layers) + (1,)
        self.weights: list[np.ndarray] = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            # He initialisation for the ReLU layers; the output layer starts near 0: a near-uniform policy
            scale = np.sqrt(2.0 / a) if i < len(sizes) - 2 else 0.01
            self.weights += [rng.normal(0.0, scale, (a, b)), np.zeros(b)]

    @property
    def size(self) -> int:
        return sum(w.size for w in self.weights)

    def flat(self) -> np.ndarray:
        return np.concatenate([w.ravel() for w in self.weights])

    def load(self, flat: np.ndarray) -> "KernelPolicy":
        flat = np.asarray(flat, np.float64)
        if flat.size != self.size:
            raise ValueError(f"expected {self.size} parameters, got {flat.size}")
        i = 0
        for w in self.weights:
            w[...] = flat[i:i + w.size].reshape(w.shape)
            i += w.size
        return self

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list]:
        """Scores (n, k) of rows ``x`` (n, k, features), and what the backward pass needs."""
        acts = [x]
        h = x
        ws = self.weights
        for i in range(0, len(ws) - 2, 2):
            h = np.maximum(h @ ws[i] + ws[i + 1], 0.0)
            acts.append(h)
        return (h @ ws[-2] + ws[-1])[..., 0], acts

    def backward(self, acts: list, dscore: np.ndarray) -> list[np.ndarray]:
        """Per-row-group gradients (each with a leading n) of sum_k dscore[n, k] * score[n, k]."""
        ws = self.weights
        grads = [None] * len(ws)
        d = dscore[..., None]                                       # (n, k, 1)
        for i in range(len(ws) - 2, -1, -2):
            a = acts[i // 2]
            grads[i] = np.einsum("nki,nkj->nij", a, d)
            grads[i + 1] = d.sum(axis=1)
            if i:
                d = (d @ ws[i].T) * (acts[i // 2] > 0.0)
        return grads


def features(jobs: np.ndarray, machine: np.ndarray, k: int) -> np.ndarray:
    """The agent's rows (n, k, :data:`FEATURES`) of JobDispatch-v0 observations
    ``jobs`` (n, K, 5) and ``machine`` (n, 3), the first ``k`` visible slots."""
    j = jobs[:, :k]
    x = np.empty(j.shape[:2] + (len(FEATURES),))
    np.log1p(j[..., 0], out=x[..., 0])
    np.log1p(j[..., 1], out=x[..., 1])
    x[..., 2] = j[..., 2]
    x[..., 3] = j[..., 4]
    x[..., 4] = machine[:, 0:1]
    return x


def masked_softmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    s = np.where(mask, scores, -np.inf)
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=1, keepdims=True)


class Adam:
    """Adam on a flat parameter vector (ascent)."""

    def __init__(self, n: int, lr: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8):
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps
        self.m, self.v, self.t = np.zeros(n), np.zeros(n), 0

    def step(self, theta: np.ndarray, grad: np.ndarray) -> np.ndarray:
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * grad
        self.v = self.b2 * self.v + (1 - self.b2) * grad * grad
        mh = self.m / (1 - self.b1 ** self.t)
        vh = self.v / (1 - self.b2 ** self.t)
        return theta + self.lr * mh / (np.sqrt(vh) + self.eps)


# ------------------------------------------------------------ the training --
@dataclass
class Training:
    """What :func:`train` returns: the frozen network and its learning curve
    (per epoch, the mean bounded slowdown of the epoch's episodes, and of
    SchedGym's SJF and FCFS on the same sequences), the environment steps and
    the seconds of CPU it took; and, every ``check_every`` epochs, the greedy
    agent's mean on fixed validation sequences (of the training half)."""

    policy: KernelPolicy
    curve_agent: np.ndarray
    curve_sjf: np.ndarray
    curve_fcfs: np.ndarray
    steps: int
    cpu_seconds: float
    #: the epochs after which the greedy agent ran on the validation sequences (0: before training)
    check_epochs: np.ndarray = None
    #: its mean bounded slowdown on them at each check
    check_bsld: np.ndarray = None


def heuristic_bsld(jobs, m: int, heuristic: str, rules: str) -> float:
    """SchedGym's score (mean bounded slowdown, :func:`schedlab.gym.schedgym.avg_bsld`)
    of heuristic ``heuristic`` on ``jobs`` under ``rules``."""
    return schedgym.avg_bsld(sim.simulate(jobs, m, schedgym.heuristic_policy(heuristic), rules=rules))


def _threads_one():
    """numpy's BLAS on one thread while training (determinism, and the house's cores are shared)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:                         # pragma: no cover - threadpoolctl comes with scikit-learn
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(1)


def train(log, m: int, starts: np.ndarray, *, epochs: int, envs: int, group: int, lr: float, seed: int,
          sequence: int, rules: str, K: int = schedgym.MAX_QUEUE_SIZE, check_starts=(), check_every: int = 0,
          log_every=None) -> Training:
    """Train a :class:`KernelPolicy` on sequences of ``sequence`` jobs of
    ``log`` starting at ``starts`` (the module docstring's REINFORCE), through
    ``gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=envs)``; run the
    greedy agent on the sequences at ``check_starts`` before the first epoch,
    every ``check_every`` epochs and after the last (the CPU time of these
    checks is not counted)."""
    import gymnasium

    from ...gym import dispatch as _dispatch  # noqa: F401  (registers the environments)

    if envs % group or group < 2:
        raise ValueError(f"envs ({envs}) must be a multiple of group ({group}) >= 2")
    t0 = time.process_time()
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,)))
    draws = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    policy = KernelPolicy(rng=np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,))))
    theta = policy.flat()
    opt = Adam(theta.size, lr)
    venv = gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=envs, trace=log, m=m, rules=rules,
                              starts=np.asarray(starts, np.int64), jobs=sequence, K=K, copy=False,
                              skip_trivial=False)
    curve = np.full((3, epochs), np.nan)
    steps = 0
    checks: list[tuple[int, float]] = []
    checking = 0.0

    def check(epoch: int) -> float:
        c0 = time.process_time()
        checks.append((epoch, float(np.mean(run_greedy(policy, log, m, check_starts, sequence=sequence,
                                                       rules=rules, K=K)))))
        return time.process_time() - c0

    if len(check_starts):
        checking += check(0)
    n_groups = envs // group
    with _threads_one():
        for e in range(epochs):
            seeds = np.repeat(rng.integers(0, 2 ** 62, n_groups), group).tolist()
            obs, info = venv.reset(seed=seeds)
            windows = np.asarray(info["window"]).copy()
            if (windows.reshape(n_groups, group) != windows[::group, None]).any():    # the baseline needs it
                raise AssertionError("JobDispatch-v0: environments reset with one seed drew different windows")
            active = np.ones(envs, bool)
            bsld = np.zeros(envs)
            acc = [np.zeros((envs,) + w.shape) for w in policy.weights]
            actions = np.zeros(envs, np.int64)
            while active.any():
                idx = np.flatnonzero(active)
                vis = info["visible"][idx]
                k = int(vis.max())
                x = features(obs["jobs"][idx], obs["machine"][idx], k)
                mask = np.arange(k)[None, :] < vis[:, None]
                scores, acts = policy.forward(x)
                p = masked_softmax(scores, mask)
                u = draws.random(idx.size)
                a = np.minimum((np.cumsum(p, axis=1) < u[:, None]).sum(axis=1), vis - 1)
                d = -p
                d[np.arange(idx.size), a] += 1.0                  # d log p(a) / d scores
                for g, acc_w in zip(policy.backward(acts, d), acc):
                    acc_w[idx] += g
                actions[:] = 0                                    # ended environments: not used, or always-first
                actions[idx] = a
                obs, _, term, _, info = venv.step(actions)
                steps += idx.size
                ended = idx[term[idx]]
                bsld[ended] = info["avg_bsld"][ended]
                active[ended] = False
            b = bsld.reshape(n_groups, group)
            mean = b.mean(axis=1, keepdims=True)
            loo = (b.sum(axis=1, keepdims=True) - b) / (group - 1)
            adv = ((loo - b) / np.maximum(mean, 1e-12)).ravel()
            grad = np.concatenate([np.tensordot(adv, g, axes=(0, 0)).ravel() for g in acc]) / envs
            opt.lr = lr * (1.0 - 0.9 * e / max(epochs - 1, 1))      # annealed linearly to a tenth
            theta = opt.step(theta, grad)
            policy.load(theta)
            starts_e = windows[::group]
            sjf = [heuristic_bsld(log.subset(slice(int(s), int(s) + sequence)), m, "SJF", rules) for s in starts_e]
            fcfs = [heuristic_bsld(log.subset(slice(int(s), int(s) + sequence)), m, "FCFS", rules) for s in starts_e]
            curve[:, e] = bsld.mean(), np.mean(sjf), np.mean(fcfs)
            if len(check_starts) and ((check_every and (e + 1) % check_every == 0) or e + 1 == epochs):
                checking += check(e + 1)
            if log_every and (e + 1) % log_every == 0:
                print(f"epoch {e + 1}: agent {curve[0, e]:.1f} SJF {curve[1, e]:.1f} FCFS {curve[2, e]:.1f}",
                      flush=True)
    venv.close()
    ce = np.array([c[0] for c in checks], np.int64)
    cb = np.array([c[1] for c in checks], np.float64)
    return Training(policy, curve[0], curve[1], curve[2], steps, time.process_time() - t0 - checking, ce, cb)


def run_greedy(policy: KernelPolicy, log, m: int, starts, *, sequence: int, rules: str,
               K: int = schedgym.MAX_QUEUE_SIZE) -> np.ndarray:
    """The frozen agent, acting greedily (the highest score), on the sequences
    at ``starts``: SchedGym's score of each, from the schedule of the episode."""
    from ...gym.dispatch import JobDispatchEnv

    env = JobDispatchEnv(log, m, rules=rules, jobs=sequence, K=K, invalid_action="error")
    out = np.empty(len(starts))
    with _threads_one():
        for i, s in enumerate(starts):
            obs, info = env.reset(options={"start": int(s)})
            while True:
                n = int(obs["mask"].sum())
                scores, _ = policy.forward(features(obs["jobs"][None], obs["machine"][None], n))
                obs, _, term, _, info = env.step(int(np.argmax(scores[0])))
                if term:
                    break
            out[i] = schedgym.avg_bsld(env.schedule)
    env.close()
    return out


# ------------------------------------------------------------ the sequences --
@functools.lru_cache(maxsize=4)
def cleaned(trace: str, m: int | None, overrun: str):
    c = _traces.cleaned(trace, m=m, overrun=overrun)
    return c.jobs, c.m


def halves(n: int, sequence: int) -> tuple[np.ndarray, np.ndarray]:
    """The start positions of the training sequences (wholly in the log's
    first half of its jobs) and of the held-out ones (wholly in the second)."""
    half = n // 2
    if half < sequence:
        from ...errors import InputError
        raise InputError(f"the log has {n} jobs: each half needs at least a sequence of {sequence} jobs")
    return np.arange(0, half - sequence + 1), np.arange(half, n - sequence + 1)


def held_out(n: int, sequence: int, count: int, seed: int) -> np.ndarray:
    """``count`` distinct starts of held-out sequences, drawn with ``seed`` (sorted)."""
    _, test = halves(n, sequence)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3,)))
    return np.sort(rng.choice(test, size=min(count, test.size), replace=False))


def validation(n: int, sequence: int, count: int, seed: int) -> np.ndarray:
    """``count`` distinct starts of training-half sequences on which the
    greedy agent is checked during training (sorted; the learning curve)."""
    train_starts, _ = halves(n, sequence)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(4,)))
    return np.sort(rng.choice(train_starts, size=min(count, train_starts.size), replace=False))


#: Validation sequences of the learning curve, and how many checks a training makes.
VALIDATION = 32
CHECKS = 20


# ------------------------------------------------------------------ cells --
store.declare(__name__, {
    "curve_agent": store.Var("mean bounded slowdown of the agent's training episodes in the epoch", "1",
                             "float64", store.NAN),
    "curve_sjf": store.Var("mean bounded slowdown of SchedGym's SJF on the epoch's training sequences", "1",
                           "float64", store.NAN),
    "curve_fcfs": store.Var("mean bounded slowdown of SchedGym's FCFS on the epoch's training sequences", "1",
                            "float64", store.NAN),
    "check_epoch": store.Var("epochs of training done at a check of the greedy agent", "1", "int64", -1),
    "check_bsld": store.Var("mean bounded slowdown of the greedy agent on the validation sequences", "1",
                            "float64", store.NAN),
    "check_heuristic_bsld": store.Var("mean bounded slowdown of a heuristic on the validation sequences", "1",
                                      "float64", store.NAN),
    "kernel_weights": store.Var("the trained network's parameters, flattened (KernelPolicy.flat)", "1", "float64",
                         store.NAN),
    "heldout_bsld": store.Var("mean bounded slowdown of a held-out sequence (SchedGym's score)", "1", "float64",
                              store.NAN),
    "heldout_start": store.Var("first job of a held-out sequence (index in the cleaned log)", "1", "int64", -1),
    "train_steps": store.Var("environment steps (decisions) taken in training", "1", "int64", -1),
    "train_cpu": store.Var("CPU time of the training", "s", "float64", store.NAN),
})


@dataclass(frozen=True)
class DispatchInputs(TraceInputs):
    """One log: its sequences, the rules, the held-out draw."""

    rules: str = param("schedgym", help="the scheduling rules (JobDispatch-v0's rules)", check=one_of(*RULES))
    sequence: int = param(256, help="jobs per sequence (SchedGym's JOB_SEQUENCE_SIZE)", check=integer(2))
    sequences: int = param(100, help="held-out sequences of the log's second half", check=integer(1))
    seed: int = param(0, help="seed of the held-out and validation draws", check=integer(0))


@dataclass(frozen=True)
class AgentInputs(DispatchInputs):
    """The agent: trained on the first half, run frozen on the held-out sequences."""

    epochs: int = param(REQUIRED, help="training epochs (one Adam step each)", check=integer(1))
    envs: int = param(REQUIRED, help="environments of the vector (episodes per epoch)", check=integer(2))
    group: int = param(REQUIRED, help="episodes per training sequence (the baseline's group)", check=integer(2))
    lr: float = param(REQUIRED, help="Adam's first step size (annealed to a tenth)", check=number(0.0, 1.0))
    train_seed: int = param(0, help="seed of the training: its sequences, its sampling, the initial weights",
                            check=integer(0))


@cell("dispatching-agent", AgentInputs)
@produces("curve_agent", "curve_sjf", "curve_fcfs", "check_epoch", "check_bsld", "check_heuristic_bsld",
          "kernel_weights", "heldout_bsld", "heldout_start", "train_steps", "train_cpu")
def agent_cell(p: AgentInputs) -> dict:
    log, m = cleaned(p.trace, p.m, p.overrun)
    train_starts, _ = halves(len(log), p.sequence)
    valid = validation(len(log), p.sequence, VALIDATION, p.seed)
    t = train(log, m, train_starts, epochs=p.epochs, envs=p.envs, group=p.group, lr=p.lr, seed=p.train_seed,
              sequence=p.sequence, rules=p.rules, check_starts=valid, check_every=max(1, p.epochs // CHECKS))
    reference = [np.mean([heuristic_bsld(log.subset(slice(int(s), int(s) + p.sequence)), m, h, p.rules)
                          for s in valid]) for h in HEURISTICS]
    starts = held_out(len(log), p.sequence, p.sequences, p.seed)
    scores = run_greedy(t.policy, log, m, starts, sequence=p.sequence, rules=p.rules)
    return {"curve_agent": (("epoch",), t.curve_agent), "curve_sjf": (("epoch",), t.curve_sjf),
            "curve_fcfs": (("epoch",), t.curve_fcfs), "check_epoch": (("check",), t.check_epochs),
            "check_bsld": (("check",), t.check_bsld), "check_heuristic_bsld": (("heuristic",), np.array(reference)),
            "kernel_weights": (("weight",), t.policy.flat()),
            "heldout_bsld": (("sequence",), scores), "heldout_start": (("sequence",), starts),
            "train_steps": ((), t.steps), "train_cpu": ((), t.cpu_seconds)}


@dataclass(frozen=True)
class HeuristicInputs(DispatchInputs):
    """One of SchedGym's heuristics on the held-out sequences."""

    heuristic: str = param(REQUIRED, help="SchedGym's heuristic", check=one_of(*HEURISTICS))


@cell("dispatching-heuristic", HeuristicInputs)
@produces("heldout_bsld", "heldout_start")
def heuristic_cell(p: HeuristicInputs) -> dict:
    log, m = cleaned(p.trace, p.m, p.overrun)
    starts = held_out(len(log), p.sequence, p.sequences, p.seed)
    scores = np.array([heuristic_bsld(log.subset(slice(int(s), int(s) + p.sequence)), m, p.heuristic, p.rules)
                       for s in starts])
    return {"heldout_bsld": (("sequence",), scores), "heldout_start": (("sequence",), starts)}
