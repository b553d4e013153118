"""online-bandit §6.1.4's fixed-policy runs, which two studies share: EASY(P, Θ)
for each of the 12 policies on resampled two-year traces.  The selection
study compares its strategies with them; the policies study reads them for
online-bandit Table 2.  Both build the campaign here (:func:`fixed_campaign`),
so that its cells are the same ones -- same campaign name (the cache's
directory), same parameters (the cache keys) -- and a profile running both
studies simulates them once."""
from __future__ import annotations

import functools
from dataclasses import dataclass
import time
from typing import Sequence

import numpy as np

from ..names import campaign_part
from ..campaigns import store
from ..campaigns.cells import TraceInputs, cell
from ..campaigns.spec import Campaign
from ..workloads import workload
from ..engine import metrics, sim
from ..workloads import traces as _traces
from ..declared import REQUIRED, CellInputs, duration, integer, param, text


#: The campaign variables online-bandit's cells record (policies and selection studies;
#: :func:`schedlab.campaigns.store.declare`).
store.declare(__name__, {
    "cum_sum_wait": store.Var("total waiting time of the jobs finished by the end of each week",
                              "s", "float64", store.NAN),
})

WEEK = workload.WEEK
#: The 12 policies of online-bandit §4.1, in the order used for indices and ties.
POLICIES: tuple[str, ...] = sim.BANDIT_POLICIES

#: Cleaning: schedlab.workloads.workload.clean with its defaults follows §6.1.1 (jobs
#: using more processors than the machine removed, a missing processor
#: count replaced by the other, negative runtimes or submit times removed);
#: it also removes jobs without a requested time (EASY needs one) and keeps
#: jobs running past their request, killed there by the simulator.
CLEANING = "kill"


def easy(policy: str, threshold: int | None = 40 * 3600) -> sim.Policy:
    """EASY(P, Θ): P for starting and backfilling, the jobs that waited more
    than Θ leading both orders in FCFS order (§4.2, Algorithm 1)."""
    return sim.Policy(policy, policy, threshold, threshold_backfill=True)


def cumulative_by_week(schedule: sim.Schedule, n_weeks: int, origin: int = 0) -> np.ndarray:
    """Total wait of the jobs finished by the end of each week
    (``origin + (k+1) * WEEK``); jobs finishing after the last week count in
    the last one, so its value is the total wait of all the jobs."""
    ok = schedule.start >= 0
    wait = metrics.wait(schedule)[ok]
    k = np.clip((schedule.end[ok] - origin) // WEEK, 0, n_weeks - 1)
    return np.cumsum(np.bincount(k, weights=wait, minlength=n_weeks))


def _cleaned(trace: str, m: int | None) -> tuple[sim.Jobs, int]:
    c = _traces.cleaned(trace, m=m, overrun=CLEANING)
    return c.jobs, c.m


@functools.lru_cache(maxsize=2)
def resampled(trace: str, m: int | None, weeks: int, seed: int, sample: int) -> tuple[sim.Jobs, int]:
    """Resampled trace ``sample`` of ``trace`` (``weeks`` weeks, one
    continuous trace from time 0; §6.1.3) and the machine size."""
    jobs, m_ = _cleaned(str(trace), m)
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(sample),))
    return workload.resample(jobs, int(weeks), ss).jobs, m_


@dataclass(frozen=True)
class ResampleInputs(CellInputs):
    """The inputs of a cell on one resampled trace of §6.1.3 (:func:`resampled`)."""

    trace: str = TraceInputs.field("trace")
    m: int | None = TraceInputs.field("m")
    weeks: int = param(REQUIRED, help="weeks per resampled trace", unit="weeks", check=integer(1))
    seed: int = param(REQUIRED, help="the resampling's seed", check=integer(0))
    sample: int = param(REQUIRED, help="the resample's index", check=integer(0))
    threshold: int | None = param(None, help="the waiting-time threshold (None: none)", unit="s", check=duration)


@dataclass(frozen=True)
class FixedInputs(ResampleInputs):
    """The fixed-policy cell's inputs."""

    policy: str = param(REQUIRED, help="the policy of both queues", check=text)


def outputs(schedule: sim.Schedule, weeks: int) -> dict:
    """A cell's outputs from a schedule: jobs, total/mean/max wait,
    backfilled and forced jobs, and the cumulative total wait by week."""
    summ = schedule.summary()
    out = {k: ((), summ[k]) for k in ("jobs", "sum_wait", "avg_wait", "max_wait", "backfilled", "forced")}
    out["cum_sum_wait"] = (("week",), cumulative_by_week(schedule, weeks))
    return out


@cell("online-bandit-fixed", FixedInputs)
def fixed_cell(p: FixedInputs) -> dict:
    """One (trace, resample, policy): EASY(P, Θ) on the whole resampled
    trace, one-shot.  Outputs: jobs, total/mean/max wait, backfilled and
    forced jobs, the cumulative total wait by week and the cell's compute
    time.  The policies study's online-bandit part (Table 2) reads these
    same cells (:func:`fixed_campaign`): one simulation serves both."""
    t0 = time.process_time()
    jobs, m = resampled(p.trace, p.m, p.weeks, p.seed, p.sample)
    s = sim.simulate(jobs, m, easy(p.policy, p.threshold))
    out = outputs(s, p.weeks)
    out["compute_time"] = ((), time.process_time() - t0)
    return out

FIXED_CELL = "schedlab.science.online_bandit:fixed_cell"



def fixed_campaign(info: _traces.TraceInfo, samples: int, weeks: int, seed: int,
                   threshold: int | None, policies: Sequence[str] = POLICIES) -> Campaign:
    """The fixed-policy runs of online-bandit §6.1.4 on one trace: EASY(P, Θ)
    for each policy on ``samples`` resampled traces of ``weeks`` weeks.  The
    selection study and the policies study (its Table 2) build them here, so that the
    cells are the same ones -- same campaign name (the cache's directory),
    same parameters (the cache keys) -- and a profile running both simulates
    them once."""
    return Campaign(
        f"online-bandit-fixed-{campaign_part(info.name)}", cell=FIXED_CELL,
        dims={"sample": list(range(samples)), "policy": list(policies)},
        params={"trace": _traces.text(info), "weeks": weeks, "seed": seed, "threshold": threshold})
