"""online-bandit §6.1.4's fixed-policy runs, which two studies share: EASY(P, Θ)
for each of the 12 policies on resampled two-year traces.  The selection
study compares its strategies with them; the policies study reads them for
online-bandit Table 2.  Both build the campaign here (:func:`fixed_campaign`),
so that its cells are the same ones -- same campaign name (the cache's
directory), same parameters (the cache keys) -- and a profile running both
studies simulates them once."""
from __future__ import annotations

import functools
import time
from typing import Sequence

import numpy as np

from . import campaign, metrics, sim, workload
from . import traces as _traces
from .errors import InputError

WEEK = workload.WEEK
#: The 12 policies of online-bandit §4.1, in the order used for indices and ties.
POLICIES: tuple[str, ...] = sim.BANDIT_POLICIES

#: Cleaning: schedlab.workload.clean with its defaults follows §6.1.1 (jobs
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


@functools.lru_cache(maxsize=8)
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


_FIXED_KEYS = {"trace", "m", "weeks", "seed", "sample", "threshold", "policy"}


def check_keys(p: dict, known: set, what: str) -> None:
    """Refuse a cell's parameters outside ``known`` or without the resample's."""
    unknown = set(p) - known
    missing = {"trace", "weeks", "seed", "sample"} - set(p)
    if unknown or missing:
        raise InputError(f"{what} cell: unknown parameter(s) {sorted(unknown)}, missing {sorted(missing)}")


def outputs(schedule: sim.Schedule, weeks: int) -> dict:
    """A cell's outputs from a schedule: jobs, total/mean/max wait,
    backfilled and forced jobs, and the cumulative total wait by week."""
    summ = schedule.summary()
    out = {k: ((), summ[k]) for k in ("jobs", "sum_wait", "avg_wait", "max_wait", "backfilled", "forced")}
    out["cum_sum_wait"] = (("week",), cumulative_by_week(schedule, weeks))
    return out


def fixed_cell(p: dict) -> dict:
    """One (trace, resample, policy): EASY(P, Θ) on the whole resampled
    trace, one-shot.  Outputs: jobs, total/mean/max wait, backfilled and
    forced jobs, the cumulative total wait by week and the cell's compute
    time.  The policies study's online-bandit part (Table 2) reads these
    same cells (:func:`fixed_campaign`): one simulation serves both."""
    t0 = time.process_time()
    check_keys(p, _FIXED_KEYS, "online-bandit-fixed")
    jobs, m = resampled(str(p["trace"]), p.get("m"), int(p["weeks"]), int(p["seed"]), int(p["sample"]))
    s = sim.simulate(jobs, m, easy(str(p["policy"]), p.get("threshold")))
    out = outputs(s, int(p["weeks"]))
    out["compute_time"] = ((), time.process_time() - t0)
    return out


campaign.register_cell("online-bandit-fixed")(fixed_cell)
FIXED_CELL = "schedlab.online_bandit:fixed_cell"

#: How a campaign names a trace (with the spec's cleaning choices): :func:`schedlab.traces.campaign_ref`.
trace_ref = _traces.campaign_ref


def fixed_campaign(info: _traces.TraceInfo, samples: int, weeks: int, seed: int,
                   threshold: int | None, policies: Sequence[str] = POLICIES) -> campaign.Campaign:
    """The fixed-policy runs of online-bandit §6.1.4 on one trace: EASY(P, Θ)
    for each policy on ``samples`` resampled traces of ``weeks`` weeks.  The
    selection study and the policies study (its Table 2) build them here, so that the
    cells are the same ones -- same campaign name (the cache's directory),
    same parameters (the cache keys) -- and a profile running both simulates
    them once."""
    return campaign.Campaign(
        f"online-bandit-fixed-{info.name}", cell=FIXED_CELL,
        dims={"sample": list(range(samples)), "policy": list(policies)},
        params={"trace": trace_ref(info), "m": info.m, "weeks": weeks, "seed": seed, "threshold": threshold})
