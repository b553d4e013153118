"""The simulations of the online-selection study (online-bandit §4-6): the
mechanics (EASY(P, Θ), the periods, the costs full and noisy feedback learn
from, the selection rules, the epsilon-greedy bandit, the stepped system and
the strategies on a job set; in :mod:`schedlab.science.online_selection`,
shared with the learning study and :mod:`schedlab.gym`), the campaign cells -- a fixed policy, or a
strategy, on one resampled trace -- and the campaigns built from the
parameters."""
from __future__ import annotations

import functools
import time
import zlib
from dataclasses import dataclass

import numpy as np

from ...names import campaign_part
from ...campaigns import store
from ...campaigns.cells import cell
from ...campaigns.spec import Campaign
from ...workloads import traces as _traces
from ...declared import REQUIRED, number, one_of, param
from ... import validators
# online-bandit §6.1.4's fixed-policy runs, shared with the policies study (its Table 2)
from ...science.online_bandit import ResampleInputs, easy, fixed_campaign, outputs, resampled


#: The campaign variables the selection study's cells record (:func:`schedlab.campaigns.store.declare`).
store.declare(__name__, {
    "policy_chosen": store.Var("index, in the study's list of queue policies, of the policy in force during each day",
                               "1", "int64", -1),
    "explorations": store.Var("number of periods in which the epsilon-greedy bandit chose a policy at random",
                              "1", "int64", -1),
})

# online-bandit §5-6's mechanics, shared with the learning study and schedlab.gym
from ...science.online_selection import (DAY, PERIODS, POLICIES, STRATEGIES, WEEK, EpsilonGreedy, FinishedTracker,
                                         StrategyRun, daily_choices, finished_in, period_bounds, period_costs,
                                         period_edges, run_stepped, run_strategy, select_simulated)

#: Spawn keys of the random streams (after the resample index).
_STREAM = {"noise": 1, "bandit": 2, "random": 3}


# ------------------------------------------------------------------ cells --

def _rng(seed: int, sample: int, stream: str, period: str, trace: str) -> np.random.Generator:
    """The random stream of a strategy: independent across resamples,
    streams, periods and traces (the trace by a CRC-32 of its name)."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(sample), _STREAM[stream],
                                                              PERIODS[period] // DAY,
                                                              zlib.crc32(str(trace).encode())))
    return np.random.default_rng(ss)


@functools.lru_cache(maxsize=2)
def _costs(trace: str, m: int | None, weeks: int, seed: int, sample: int, period: str,
           threshold: int | None, noise: float, policies: tuple[str, ...] = POLICIES
           ) -> tuple[np.ndarray, np.ndarray]:
    jobs, m_ = resampled(trace, m, weeks, seed, sample)
    edges = period_edges(int(weeks) * WEEK // PERIODS[period], PERIODS[period])
    exact, noisy, _ = period_costs(jobs, m_, edges, policies, threshold, noise,
                                   _rng(seed, sample, "noise", period, trace))
    return exact, noisy


@dataclass(frozen=True)
class StrategyInputs(ResampleInputs):
    """The strategy cell's inputs."""

    period: str = param(REQUIRED, help="the selection period", check=one_of(*PERIODS))
    strategy: str = param(REQUIRED, help="the selection strategy", check=one_of(*STRATEGIES))
    epsilon: float = param(0.5, help="the bandit's exploration rate", check=number())
    decay: float = param(1.0, help="the bandit's exploration decay", check=number())
    noise: float = param(0.15, help="the noisy feedback's relative noise", check=number())
    policies: tuple = param(POLICIES, help="the arms: the queue policies a strategy chooses among",
                            check=validators.policy_specs)


@cell("selection-strategies", StrategyInputs)
def strategy_cell(p: StrategyInputs) -> dict:
    """One (trace, resample, period, strategy): the stepped system under a
    selection strategy.  Outputs: those of :func:`schedlab.science.online_bandit.fixed_cell`, the policy
    in force each day (index in the cell's ``policies``, by default :data:`POLICIES`) and the bandit's number of
    explorations (-1 for the other strategies).  Full and noisy feedback of
    the same resample and period share the period costs (cached per
    worker process)."""
    t0 = time.process_time()
    trace, m, weeks, seed, sample = p.trace, p.m, p.weeks, p.seed, p.sample
    period, strategy = p.period, p.strategy
    threshold = p.threshold
    jobs, m_ = resampled(trace, m, weeks, seed, sample)
    edges = period_edges(weeks * WEEK // PERIODS[period], PERIODS[period])
    costs = None
    if strategy in ("full", "noisy"):
        exact, noisy = _costs(trace, m, weeks, seed, sample, period, threshold, p.noise, tuple(p.policies))
        costs = exact if strategy == "full" else noisy
    r = run_strategy(strategy, jobs, m_, edges, policies=tuple(p.policies), threshold=threshold, costs=costs,
                     epsilon=p.epsilon, decay=p.decay,
                     rng=_rng(seed, sample, strategy, period, trace) if strategy in _STREAM else None)
    out = outputs(r.schedule, weeks)
    out["policy_chosen"] = (("day",), daily_choices(r.chosen, PERIODS[period], weeks * 7))
    out["explorations"] = ((), r.explorations)
    out["compute_time"] = ((), time.process_time() - t0)
    return out

STRATEGY_CELL = "schedlab.studies.selection.cells:strategy_cell"




def campaigns(p) -> dict[str, Campaign]:
    """The campaigns of the study (``p``: its Params), two per trace:
    ``fixed:<trace>`` (resample x policy) and ``strategies:<trace>``
    (resample x period x strategy).
    The strategy dimension is innermost, so that the full and noisy cells of
    a resample and period usually land in one batch and share its costs."""
    out = {}
    policies = tuple(p.policies)
    # the paper's arms are left out of the cells' parameters, so that their cache keys are as before
    arms = {} if policies == POLICIES else {"policies": list(policies)}
    for t in p.traces:
        common = {"trace": _traces.text(t), "weeks": p.weeks, "seed": p.seed, "threshold": p.threshold}
        out[f"fixed:{t.name}"] = fixed_campaign(t, p.resamples, p.weeks, p.seed, p.threshold, policies)
        out[f"strategies:{t.name}"] = Campaign(
            f"selection-strategies-{campaign_part(t.name)}", cell=STRATEGY_CELL,
            dims={"sample": list(range(p.resamples)), "period": list(p.periods),
                  "strategy": list(p.strategies)},
            params={**common, "epsilon": p.epsilon, "decay": p.decay, "noise": p.noise, **arms})
    return out
