"""The simulations of the learning study: one cell per (trace, resampled
held-out trace, arm), the arm a fixed policy, a selection strategy of the
online-selection study, or the learned selector.  A cell imports the engine,
the workloads, schedlab.campaigns, schedlab.science and schedlab.gym (and
the learned selector below), never its params, analysis, tables, figures or report.

The learned selector: a linear model per queue policy, fitted by ridge
regression with plain numpy, predicting each policy's *relative* cost in the
coming period from the observation's queue and machine state
(:data:`schedlab.gym.selection.STATE_FIELDS`); it picks the policy with the
lowest prediction.  Trained under full feedback (every period reveals every
policy's cost of the period's jobs), evaluated frozen under bandit feedback
(it reads only the state)."""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from ...campaigns.cells import cell
from ...declared import REQUIRED, integer, one_of, param, text
from ...gym.selection import STATE_FIELDS, PolicySelectionEnv
from ...science import online_bandit
from ...science.online_selection import PERIODS, POLICIES, WEEK, period_costs, period_edges, run_strategy
from ...workloads import workload

# ---------------------------------------------------------- the selector --
def features(state: np.ndarray) -> np.ndarray:
    """A bias and log(1 + x) of every state field (all >= 0)."""
    return np.concatenate([[1.0], np.log1p(np.maximum(np.asarray(state, dtype=np.float64), 0.0))])


class LinearSelector:
    """Per-policy ridge regression of the relative period cost on :func:`features`."""

    def __init__(self, n_arms: int, n_features: int, ridge: float = 1.0):
        self.a = ridge * np.eye(n_features)
        self.b = np.zeros((n_features, n_arms))
        self.w = np.zeros((n_features, n_arms))

    def update(self, x: np.ndarray, costs: np.ndarray) -> None:
        """One period: features ``x`` at its start, every policy's cost ``costs``
        (a period without jobs, all zero, teaches nothing)."""
        mean = float(np.mean(costs))
        if mean <= 0.0:
            return
        self.a += np.outer(x, x)
        self.b += np.outer(x, costs / mean)

    def fit(self) -> None:
        self.w = np.linalg.solve(self.a, self.b)

    def select(self, x: np.ndarray) -> int:
        """The policy with the lowest predicted relative cost (ties: the lowest index)."""
        return int(np.argmin(x @ self.w))


def train(env, episodes: int, seed: int, explore: float = 0.5) -> LinearSelector:
    """Fit a :class:`LinearSelector` on ``episodes`` episodes of ``env``
    (full feedback), acting epsilon-greedily on the model fitted after each
    episode (uniform in the first); ``seed`` fixes the episodes and the draws."""
    rng = np.random.default_rng(seed)
    n = env.action_space.n
    model = LinearSelector(n, 1 + len(STATE_FIELDS))
    for e in range(episodes):
        obs, _ = env.reset(seed=int(rng.integers(2 ** 31)))
        while True:
            x = features(obs["state"])
            a = int(rng.integers(n)) if e == 0 or rng.random() < explore else model.select(x)
            obs, _, term, _, _ = env.step(a)
            model.update(x, obs["costs"])
            if term:
                break
        model.fit()
    return model


# ------------------------------------------------------------------ cells --

#: The selection study's strategies run beside the fixed policies and the learned selector.
STRATEGIES = ("full", "noisy", "bandit", "random")
AGENT = "learned"
#: Spawn keys of this study's random streams (after the sample index).
_STREAM = {"noise": 1, "bandit": 2, "random": 3}


@functools.lru_cache(maxsize=4)
def halves(trace: str, m: int | None) -> tuple[object, object, int]:
    """The cleaned log cut in two at half its time span: the first half
    trains, the second (held out) evaluates."""
    jobs, m_ = online_bandit._cleaned(trace, m)
    a, b = workload.split(jobs, 0.5, by="time")
    return a, b, m_


@functools.lru_cache(maxsize=4)
def trained(trace: str, m: int | None, period: str, threshold, episodes: int, train_weeks: int,
            seed: int) -> LinearSelector:
    """The learned selector of a trace, trained on resampled traces of its first half."""
    a, _, m_ = halves(trace, m)
    env = PolicySelectionEnv(a, m_, window="resampled", weeks=train_weeks, period=period, threshold=threshold,
                             feedback="full", resample_seed=seed + 1, resamples=None)
    return train(env, episodes, seed)


@dataclass(frozen=True)
class RunInputs(online_bandit.ResampleInputs):
    """One arm on one resampled trace of the log's held-out second half."""

    period: str = param("day", help="the selection period", check=one_of(*PERIODS))
    arm: str = param(REQUIRED, help="a policy, a selection strategy or 'learned'", check=text)
    episodes: int = param(20, help="the learned selector's training episodes", check=integer(1))
    train_weeks: int = param(4, help="weeks per training episode", unit="weeks", check=integer(1))


@cell("learning-run", RunInputs)
def run_cell(p: RunInputs) -> dict:
    """The total wait (and the fixed-policy cell's other outputs) of one arm
    on resampled trace ``sample`` of the held-out half."""
    t0 = time.process_time()
    _, test, m = halves(p.trace, p.m)
    ss = np.random.SeedSequence(entropy=int(p.seed), spawn_key=(int(p.sample),))
    jobs = workload.resample(test, int(p.weeks), ss).jobs
    length = PERIODS[p.period]
    edges = period_edges(int(p.weeks) * WEEK // length, length)
    rng = lambda s: np.random.default_rng(np.random.SeedSequence(entropy=int(p.seed),  # noqa: E731
                                                                 spawn_key=(int(p.sample), _STREAM[s])))
    if p.arm == AGENT:
        model = trained(p.trace, p.m, p.period, p.threshold, p.episodes, p.train_weeks, p.seed)
        env = PolicySelectionEnv(test, m, window="resampled", weeks=p.weeks, period=p.period,
                                 threshold=p.threshold, feedback="bandit", resample_seed=p.seed)
        obs, _ = env.reset(options={"sample": int(p.sample)})
        while True:
            obs, _, term, _, _ = env.step(model.select(features(obs["state"])))
            if term:
                break
        schedule = env.schedule
        env.close()
    elif p.arm in ("full", "noisy"):
        exact, noisy, _ = period_costs(jobs, m, edges, POLICIES, p.threshold, 0.15, rng("noise"))
        schedule = run_strategy(p.arm, jobs, m, edges, threshold=p.threshold,
                                costs=exact if p.arm == "full" else noisy).schedule
    elif p.arm in ("bandit", "random"):
        schedule = run_strategy(p.arm, jobs, m, edges, threshold=p.threshold, epsilon=0.5, rng=rng(p.arm)).schedule
    else:
        schedule = run_strategy(p.arm, jobs, m, edges, threshold=p.threshold).schedule
    out = online_bandit.outputs(schedule, int(p.weeks))
    out["compute_time"] = ((), time.process_time() - t0)
    return out
