"""The simulations of the policies study: the campaign cells
(:func:`thesis_cell`, :func:`same_policy_cell`; the lelong2017 pairs use the
campaign's built-in ``simulate`` cell, the online-bandit part the fixed-policy
cells it shares with the selection study (:mod:`schedlab.science.online_bandit`)), the
workloads they run on, the campaigns of a run (:func:`campaigns`) and the
one direct simulation behind the MaxWait table (:func:`largest_waits`)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
import time as _time
from typing import Any

import numpy as np

from ...campaigns import store
from ...campaigns.cells import SimulateInputs, TraceInputs, cell, simulate_cell
from ...engine import metrics, sim
from ...workloads import workload
from ...workloads import traces as _traces
from ...declared import REQUIRED, duration, flag, integer, one_of, param, text
from ...errors import InputError
from ...engine.metrics import PREMATURE_FACTOR, premature
from ...science import online_bandit


#: The campaign variables the policies study's cells record (:func:`schedlab.campaigns.store.declare`).
store.declare(__name__, {
    "cum_avg_wait": store.Var("mean waiting time of the jobs finished by the end of each week",
                              "s", "float64", store.NAN),
    "cum_mean_bsld": store.Var("mean bounded slowdown of the jobs finished by the end of each week",
                               "1", "float64", store.NAN),
    "cum_mean_ppbsld": store.Var("mean per-processor bounded slowdown of the jobs finished by the end of each week",
                                 "1", "float64", store.NAN),
    "top_bsld_procs": store.Var("processors q of the jobs with the highest bounded slowdowns, by decreasing bsld",
                                "1", "int64", -1),
    "bsld_class_jobs": store.Var("number of jobs per bounded-slowdown class: 1, (1, 10), [10, 100), >= 100",
                                 "1", "int64", -1),
    "premature_jobs": store.Var("number of premature jobs (requested time >= 100 x runtime)", "1", "int64", -1),
    "mean_bsld_premature": store.Var("mean bounded slowdown of the premature jobs", "1", "float64", store.NAN),
    "mean_bsld_standard": store.Var("mean bounded slowdown of the standard (non-premature) jobs",
                                    "1", "float64", store.NAN),
})

# The choices the cells read, written once here: the cells import none of the
# study's parameters, tables or figures, so their cache keys follow this code only.

WEEK = workload.WEEK

#: Cleaning of the jobs with p > p~, per part of the study.
OVERRUN = {"lelong": "drop", "tables": "drop", "thesis": "kill", "bandit": online_bandit.CLEANING}

#: The policy pairs of lelong2017 Tables 1-2 (P_R = P_B).
TABLE_POLICIES = ("FCFS", "SPF", "SQF", "LEXP")

#: The variants of cleaning and estimates tried on Tables 1-2.
TABLE_VARIANTS = {"overrun": ["drop", "kill"], "estimate": ["requested", "actual"]}

#: bsld categories of thesis Fig. 4.3.
BSLD_CLASSES = ("1", "1-10", "10-100", "100+")

#: Number of most-delayed jobs per sample (thesis Fig. 4.2).
TOP = 100

# -------------------------------------------------------- per-job helpers --

def bsld_classes(bsld) -> np.ndarray:
    """Number of jobs in each category of thesis Fig. 4.3 (:data:`BSLD_CLASSES`):
    bsld = 1 (started at once, or short enough), 1 < bsld < 10,
    10 <= bsld < 100 and bsld >= 100.  NaN (jobs not started) are not counted."""
    b = np.asarray(bsld, dtype=float)
    b = b[np.isfinite(b)]
    return np.array([(b <= 1).sum(), ((b > 1) & (b < 10)).sum(), ((b >= 10) & (b < 100)).sum(),
                     (b >= 100).sum()], dtype=np.int64)


def premature_ratio(bsld, run, req, factor: float = PREMATURE_FACTOR) -> tuple[float, float, int]:
    """(mean bsld of the premature jobs, mean bsld of the standard jobs,
    number of premature jobs); premature: p~ >= factor * p (thesis §4.3.3,
    :func:`schedlab.engine.metrics.premature`).  NaN for an empty class."""
    b = np.asarray(bsld, dtype=float)
    prem = premature(run, req, factor, "ratio")
    if prem.shape != b.shape:
        raise InputError(f"premature_ratio: {b.shape[0]} bsld values for {prem.shape[0]} jobs")
    ok = np.isfinite(b)
    p, s = b[prem & ok], b[~prem & ok]
    nan = float("nan")
    return (float(p.mean()) if p.size else nan, float(s.mean()) if s.size else nan, int(prem.sum()))


def cumulative_by_week(values, end, n_weeks: int, origin: int = 0, week: int = WEEK):
    """Cumulative sum, count and mean of ``values`` over the jobs finished by
    the end of each week ``k`` = 0..n_weeks-1 (week k is ``[origin + k*week,
    origin + (k+1)*week)``; jobs ending after the last week count in it,
    those ending before ``origin`` in the first).  NaN values are left out."""
    v = np.asarray(values, dtype=float)
    e = np.asarray(end, dtype=np.int64)
    ok = np.isfinite(v)
    k = np.clip((e[ok] - origin) // week, 0, n_weeks - 1)
    s = np.cumsum(np.bincount(k, weights=v[ok], minlength=n_weeks))
    c = np.cumsum(np.bincount(k, minlength=n_weeks))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(c > 0, s / np.maximum(c, 1), np.nan)
    return s, c, mean


def top_procs(bsld, procs, k: int = TOP) -> np.ndarray:
    """Processors q of the ``k`` jobs with the highest bsld, by decreasing bsld
    (ties: job order); padded with -1 when there are fewer jobs."""
    b = np.asarray(bsld, dtype=float)
    q = np.asarray(procs)
    b = np.where(np.isfinite(b), b, -np.inf)
    order = np.lexsort((np.arange(b.size), -b))[:k]
    out = np.full(k, -1, dtype=np.int64)
    out[:order.size] = q[order]
    return out



# ------------------------------------------------------------------ cells --

def _cleaned(trace: str, m: int | None, overrun: str) -> tuple[sim.Jobs, int]:
    c = _traces.cleaned(trace, m=m, overrun=overrun)
    return c.jobs, c.m


#: Spawn key of the thesis part's resamples (before the sample index); the
#: online-bandit part's are those of :mod:`schedlab.science.online_bandit`.
_THESIS_STREAM = 1


@functools.lru_cache(maxsize=2)
def _resampled(trace: str, m: int | None, overrun: str, weeks: int, seed: int, sample: int) -> sim.Jobs:
    jobs, _ = _cleaned(trace, m, overrun)
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(_THESIS_STREAM, int(sample)))
    return workload.resample(jobs, int(weeks), ss).jobs


def source_weeks(trace: str, m: int | None = None, overrun: str = "kill") -> int:
    """Number of weeks the cleaned trace spans (first to last submission):
    the length of a thesis sample "proportional to the original trace"."""
    jobs, _ = _cleaned(str(trace), m, overrun)
    if len(jobs) == 0:
        raise InputError(f"{trace}: no jobs left after cleaning")
    return int(workload.period_edges(jobs, WEEK).size - 1)


@dataclass(frozen=True)
class ThesisInputs(TraceInputs):
    """The thesis cell's inputs."""

    workload: str = param("resample", help="resampled weeks of the log, or the log as cleaned",
                          check=one_of("resample", "original"))
    weeks: int | None = param(None, help="weeks per resampled trace (needed to resample)", unit="weeks",
                              check=integer(1, optional=True))
    seed: int = param(0, help="the resampling's seed", check=integer(0))
    sample: int = param(0, help="the resample's index", check=integer(0))
    policy: str = param(REQUIRED, help="the policy of both queues", check=text)
    threshold: int | None = param(None, help="the waiting-time threshold (None: none)", unit="s", check=duration)
    threshold_backfill: bool = param(False, help="the threshold applies to the backfilling queue too", check=flag)
    top: int = param(TOP, help="how many most-delayed jobs' q to return", check=integer(1))
    cumulative: bool = param(True, help="return the cumulative weekly means", check=flag)


def _cell_setup(q: ThesisInputs):
    trace, m, overrun = str(q.trace), q.m, q.overrun
    if q.workload == "original":
        jobs, m_ = _cleaned(trace, m, overrun)
    else:
        if q.weeks is None:
            raise InputError("policies-thesis cell: a 'weeks' parameter is required to resample")
        jobs = _resampled(trace, m, overrun, q.weeks, q.seed, q.sample)
        m_ = _cleaned(trace, m, overrun)[1]
    policy = sim.Policy(q.policy, q.policy, q.threshold, q.threshold_backfill)
    return jobs, m_, policy


def schedule_outputs(schedule: sim.Schedule, n_weeks: int | None = None, origin: int = 0,
                     week: int = WEEK, top: int = TOP) -> dict[str, tuple[tuple[str, ...], Any]]:
    """What the thesis part needs of one simulated schedule, as cell outputs:
    aggregates, the premature/standard bsld split, the bsld categories, the q
    of the ``top`` most delayed jobs and (with ``n_weeks``) the cumulative
    weekly means of bsld, pp-bsld and wait."""
    b = metrics.bsld(schedule)
    summ = schedule.summary()
    prem, std, n_prem = premature_ratio(b, schedule.jobs.run, schedule.jobs.req)
    out = {
        "jobs": ((), summ["jobs"]), "avg_wait": ((), summ["avg_wait"]), "max_wait": ((), summ["max_wait"]),
        "sum_wait": ((), summ["sum_wait"]), "mean_bsld": ((), summ["mean_bsld"]),
        "max_bsld": ((), summ["max_bsld"]), "mean_ppbsld": ((), summ["mean_ppbsld"]),
        "backfilled": ((), summ["backfilled"]), "forced": ((), summ["forced"]),
        "premature_jobs": ((), n_prem), "mean_bsld_premature": ((), prem), "mean_bsld_standard": ((), std),
        "bsld_class_jobs": (("bsld_class",), bsld_classes(b)),
        "top_bsld_procs": (("rank",), top_procs(b, schedule.jobs.procs, top)),
    }
    if n_weeks is not None:
        end = schedule.end
        for name, v in (("cum_mean_bsld", b), ("cum_mean_ppbsld", metrics.ppbsld(schedule)),
                        ("cum_avg_wait", metrics.wait(schedule))):
            out[name] = (("week",), cumulative_by_week(v, end, n_weeks, origin, week)[2])
    return out


@cell("policies-thesis", ThesisInputs)
def thesis_cell(q: ThesisInputs) -> dict:
    """One (trace, sample, policy) of the thesis part: EASY-P-P with the
    threshold on a resampled trace (``workload: resample``; ``sample`` picks
    the seed) or on the cleaned log (``workload: original``); outputs of
    :func:`schedule_outputs` (cumulative weekly means unless ``cumulative``
    is false)."""
    jobs, m, policy = _cell_setup(q)
    s = sim.simulate(jobs, m, policy)
    cumulative = q.cumulative and q.workload != "original"
    return schedule_outputs(s, q.weeks if cumulative else None, 0, WEEK, q.top)


@dataclass(frozen=True)
class SameInputs(SimulateInputs):
    """The same-policy cell's inputs: the ``simulate`` cell's, with ``policy``
    (which sets ``primary`` and ``backfill``)."""

    policy: str = param(REQUIRED, help="the policy of both queues", check=text)


@cell("policies-same", SameInputs)
def same_policy_cell(q: SameInputs) -> dict:
    """The campaign's built-in ``simulate`` cell with one ``policy`` for both
    queues (EASY-P-P), so that a grid can sweep the pairs P_R = P_B only."""
    p = dict(q)
    pol = p.pop("policy")
    p["primary"] = p["backfill"] = pol
    return simulate_cell(p)

_THESIS_CELL = "schedlab.studies.policies.cells:thesis_cell"

_SAME_CELL = "schedlab.studies.policies.cells:same_policy_cell"


# --------------------------------------- online-bandit Table 2's readings --

@dataclass(frozen=True)
class PairInputs(online_bandit.ResampleInputs):
    """The pair cell's inputs."""

    config: str = param(REQUIRED, help="the pair: PRIMARY-BACKFILL, then /none without threshold, /newest with "
                        "ocst's order of equal keys (sim.TIES)", check=text)


@cell("online-bandit-pair", PairInputs)
def pair_cell(p: PairInputs) -> dict:
    """One (trace, resample, pair): EASY-P_R-P_B with the threshold in the
    primary queue only (ocst's ``fixed --threshold``; ``config``
    "P_R-P_B/none": without a threshold; ".../newest": with ocst's order of
    equal keys, ``tie="newest"``) on the same resampled
    trace as the fixed-policy cells (:func:`schedlab.science.online_bandit.resampled`).
    Outputs: jobs, the total wait and the cell's compute time."""
    t0 = _time.process_time()
    config, *flags = str(p["config"]).split("/")
    if config.count("-") != 1 or not set(flags) <= {"none", "newest"} or len(set(flags)) != len(flags):
        raise InputError(f"online-bandit-pair cell: config {p['config']!r} is not PRIMARY-BACKFILL[/none][/newest]")
    pr, bf = config.split("-")
    jobs, m = online_bandit.resampled(p.trace, p.m, p.weeks, p.seed, p.sample)
    threshold = None if "none" in flags else p.get("threshold")
    s = sim.simulate(jobs, m, sim.Policy(pr, bf, threshold, threshold_backfill=False),
                     tie="newest" if "newest" in flags else "oldest")
    summ = s.summary()
    return {"jobs": ((), summ["jobs"]), "sum_wait": ((), summ["sum_wait"]),
            "compute_time": ((), _time.process_time() - t0)}


# ------------------------------------------------------- direct simulation --

def largest_waits(trace: str, policy: str, n: int = 6, overrun: str = "drop", m: int | None = None) -> list[dict]:
    """The ``n`` largest waits of EASY-P-P on the cleaned original log (a
    single deterministic simulation, the one behind Table 2): which jobs set
    MaxWait, and how close the next ones are."""
    jobs, m_ = _cleaned(trace, m, overrun)
    s = sim.simulate(jobs, m_, sim.Policy(policy, policy))
    w = s.wait
    order = np.lexsort((np.arange(w.size), -w))[:n]
    return [{"rank": k + 1, "job": int(jobs.id[i]), "submit": int(jobs.submit[i]), "wait": int(w[i]),
             "q": int(jobs.procs[i]), "req": int(jobs.req[i]), "run": int(jobs.run[i])}
            for k, i in enumerate(order)]
