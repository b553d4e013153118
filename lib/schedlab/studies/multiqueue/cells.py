"""The simulations of the multiple-queue study (lawson2005): the workloads
(cleaned traces cut to whole weeks), the partitioning criteria, single-queue
EASY, multiple-queue backfilling with a fixed P, the online simulation
policy, Lawson's R of a schedule against EASY, the campaign cells and the
campaigns of a trace."""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...names import campaign_part
from ...campaigns import store
from ...campaigns.cells import TraceInputs, cell
from ...campaigns.spec import Campaign
from ...workloads import workload
from ...engine import metrics
from ...workloads import traces as _traces
from ... import validators
from ...declared import CellInputs, integer, number, one_of, param
from ...errors import InputError
from ...engine.sim import Jobs, Simulation, simulate


#: The campaign variables the multiqueue study's cells record (:func:`schedlab.campaigns.store.declare`).
store.declare(__name__, {
    "mean_slowdown_ratio": store.Var("mean over the jobs of lawson2005's slowdown ratio R = (s_1 - s_m) / min(s_1, "
                                     "s_m) against single-queue EASY-FCFS-FCFS, s = 1 + wait / max(10 s, runtime); R "
                                     "> 0: better (jobs < 10 s that requested > 60 s ignored)",
                                     "1", "float64", store.NAN),
    "weekly_slowdown_ratio": store.Var("mean slowdown ratio R of the jobs submitted in each week",
                                       "1", "float64", store.NAN),
    "ratio_jobs": store.Var("number of jobs the slowdown ratio R is averaged over", "1", "int64", -1),
    "mean_lawson_slowdown": store.Var("mean bounded slowdown 1 + wait / max(10 s, runtime) (lawson2005 §2.2)",
                                      "1", "float64", store.NAN),
    "baseline_mean_lawson_slowdown": store.Var("mean bounded slowdown 1 + wait / max(10 s, runtime) of single-queue "
                                               "EASY-FCFS-FCFS with the same estimates",
                                               "1", "float64", store.NAN),
    "borrowed_jobs": store.Var("number of jobs started on processors lent by other partitions", "1", "int64", -1),
    "online_tests": store.Var("number of online-simulation tests (weeks whose trigger exceeded the threshold T)",
                              "1", "int64", -1),
    "partition_changes": store.Var("number of tests that changed the number of partitions P", "1", "int64", -1),
    "changes_to": store.Var("number of changes of the number of partitions to each P", "1", "int64", -1),
    "weekly_partitions": store.Var("number of partitions P in force during each week", "1", "int64", -1),
    "weekly_tests": store.Var("1 if an online-simulation test ran at the start of the week, else 0",
                              "1", "int64", -1),
    "online_time": store.Var("wall time of one online-simulation run (the real system and every test)",
                             "s", "float64", store.NAN),
})

WEEK = workload.WEEK
#: Online candidates 1..PMAX partitions, and the fixed P of Figs. 4-5 (lawson2005).
PMAX = 4
#: The estimates of the runs: label -> ``estimate=`` of :func:`schedlab.engine.sim.simulate`.
ESTIMATES = {"exact": "actual", "user": "requested"}
#: What an online simulation replays (see the package's docstring).
REPLAYS = ("oracle", "queued")
#: The measure that triggers an online-simulation test.
TRIGGERS = ("cumulative", "week")
#: The partitioning criteria of a fixed-P run: from the previous week's
#: completed jobs (Figure 3) or a priori from the week's own jobs.
CRITERIA = ("previous", "oracle")


@dataclass(frozen=True)
class TraceRef:
    """A trace as the cells load it: ``spec`` (registry name or absolute path),
    ``name`` (its short name) and ``weeks`` simulated (None: the whole trace)."""

    spec: str
    name: str
    weeks: int | None


def _criteria_for(estimate: str, criteria: str) -> str:
    """The paper's pairing: exact estimates with a priori criteria, user
    estimates with Figure 3's (previous week)."""
    if criteria == "paper":
        return "oracle" if estimate == "exact" else "previous"
    return validators.choice(criteria, "criteria", CRITERIA)


@dataclass(frozen=True)
class Workload:
    """A cleaned trace cut to whole weeks: ``jobs``, machine size ``m``,
    ``t0`` (first submission) and the number of ``weeks``."""

    name: str
    jobs: Jobs
    m: int
    t0: int
    weeks: int

    def week_of(self, t) -> np.ndarray:
        return (np.asarray(t) - self.t0) // WEEK

    @property
    def job_week(self) -> np.ndarray:
        return self.week_of(self.jobs.submit)


def cut(jobs: Jobs, m: int, weeks: int | None, name: str = "") -> Workload:
    """The jobs submitted in the first ``weeks`` weeks (None: all)."""
    if len(jobs) == 0:
        raise InputError(f"{name}: no jobs")
    t0 = int(jobs.submit[0])
    if weeks is not None:
        if int(weeks) < 1:
            raise InputError(f"{name}: weeks must be >= 1, got {weeks!r}")
        jobs = jobs.subset(jobs.submit < t0 + int(weeks) * WEEK)
    n_weeks = int((int(jobs.submit[-1]) - t0) // WEEK) + 1
    return Workload(name, jobs, int(m), t0, n_weeks)


@functools.lru_cache(maxsize=8)
def load(trace: str, weeks: int | None = None) -> Workload:
    """Registry name or SWF path -> cleaned :class:`Workload` (cached per process)."""
    c = _traces.cleaned(trace)
    return cut(c.jobs, c.m, weeks, c.info.name)


def balanced_criteria(estimates, partitions: int) -> list[int]:
    """Figure 3: the P-1 boundaries that balance the number of jobs across
    the queues (the estimate of rank floor(k n / P) in increasing order, k =
    1..P-1), then the top t_P (the largest estimate) -- the engine's rule."""
    v = np.sort(np.asarray(estimates, dtype=np.int64))
    if v.size == 0:
        raise InputError("balanced_criteria: no estimates")
    n = v.size
    return [int(v[k * n // partitions]) for k in range(1, partitions)] + [int(v[-1])]


def estimates_of(jobs: Jobs, estimate: str) -> np.ndarray:
    """The scheduler's estimate of every job: p~ ("requested") or the
    duration it really runs, min(p, p~) ("actual", jobs are killed at p~)."""
    if estimate == "requested":
        return jobs.req.copy()
    if estimate == "actual":
        return np.minimum(jobs.run, jobs.req)
    raise InputError(f"estimate must be 'requested' or 'actual', got {estimate!r}")


def initial_criteria(w: Workload, estimate: str, partitions: int) -> list[int]:
    """Criteria of week 0: balanced over the jobs submitted in week 0."""
    est = estimates_of(w.jobs, estimate)
    return balanced_criteria(est[w.job_week == 0], partitions)


def baseline(w: Workload, estimate: str):
    """Single-queue EASY-FCFS-FCFS (the reference of R)."""
    return simulate(w.jobs, w.m, "EASY-FCFS-FCFS", estimate=estimate)


def fixed(w: Workload, estimate: str, partitions: int = PMAX, criteria: str = "previous"):
    """Multiple-queue backfilling with ``partitions`` queues throughout.

    ``criteria="previous"``: Figure 3, recomputed at each week boundary from
    the jobs completed in the previous week; ``"oracle"``: each week's
    criteria balance the estimates of the jobs *submitted* that week (a priori
    knowledge, the paper's exact-estimate runs).  Returns the Schedule."""
    if criteria not in CRITERIA:
        raise InputError(f"criteria must be one of {CRITERIA}, got {criteria!r}")
    crit0 = initial_criteria(w, estimate, partitions)
    if criteria == "previous":
        return simulate(w.jobs, w.m, estimate=estimate, partitions=partitions, criteria=crit0,
                        recompute=WEEK, recompute_origin=w.t0)
    est = estimates_of(w.jobs, estimate)
    week = w.job_week
    with Simulation(w.jobs, w.m, estimate=estimate, partitions=partitions, criteria=crit0) as sim:
        for k in range(1, w.weeks):
            sim.run(until=w.t0 + k * WEEK - 1)
            mine = est[week == k]
            if mine.size:
                sim.set_partitions(partitions, balanced_criteria(mine, partitions))
        sim.run()
        return sim.schedule


@dataclass
class Test:
    """One online-simulation test at a week boundary."""

    week: int                 # the week that starts at the test
    time: int
    measure: float            # the trigger measure that exceeded T
    current: int              # P before the test
    scores: dict[int, float]  # P -> mean slowdown of the replayed jobs
    chosen: int
    replayed: int             # jobs replayed


@dataclass
class OnlineResult:
    schedule: Any
    tests: list[Test]
    weekly_p: np.ndarray      # P in force during each week (after its test)
    seconds: float

    @property
    def changes(self) -> list[Test]:
        return [t for t in self.tests if t.chosen != t.current]

    def changes_to(self, pmax: int) -> list[int]:
        return [sum(1 for t in self.changes if t.chosen == p) for p in range(1, pmax + 1)]


def online(w: Workload, estimate: str = "requested", threshold: float = 10.0, horizon: int = 2,
           pmax: int = PMAX, initial: int = PMAX, replay: str = "oracle", trigger: str = "cumulative"
           ) -> OnlineResult:
    """The online simulation policy (lawson2005 §3.1): multiple-queue
    backfilling with Figure 3's weekly criteria; at each week boundary, if the
    trigger measure exceeds ``threshold``, simulate P = 1..``pmax`` from the
    current state over ``horizon`` weeks and adopt the best P (see the module
    docstring for every choice)."""
    if replay not in REPLAYS:
        raise InputError(f"replay must be one of {REPLAYS}, got {replay!r}")
    if trigger not in TRIGGERS:
        raise InputError(f"trigger must be one of {TRIGGERS}, got {trigger!r}")
    t_start = time.perf_counter()
    jobs = w.jobs
    dur = estimates_of(jobs, "actual")          # the duration each job really runs
    crit0 = initial_criteria(w, estimate, initial)
    current = int(initial)
    tests: list[Test] = []
    weekly_p = np.full(w.weeks, current, dtype=np.int64)
    with Simulation(jobs, w.m, estimate=estimate, partitions=current, criteria=crit0, recompute=WEEK,
                    recompute_origin=w.t0) as sim:
        for k in range(1, w.weeks):
            b = w.t0 + k * WEEK
            sim.run(until=b)
            sched = sim.schedule
            done = (sched.end >= 0) & (sched.end <= b)
            if trigger == "week":
                done &= sched.end >= b - WEEK
            s_done = metrics.lawson_slowdown_at(jobs.submit[done], sched.start[done], dur[done], b)
            measure = float(np.mean(s_done)) if done.any() else 0.0
            if measure > threshold:
                end = b + int(horizon) * WEEK
                waiting = (jobs.submit <= b) & (sched.start < 0)
                replayed = waiting | ((jobs.submit > b) & (jobs.submit <= end)) if replay == "oracle" else waiting
                scores = {}
                for p in range(1, int(pmax) + 1):
                    with sim.clone() as c:
                        if p != current:
                            c.set_partitions(p)
                        if replay == "queued":
                            c.set_cutoff(b)
                        c.run(until=end)
                        s = metrics.lawson_slowdown_at(jobs.submit, c.schedule.start, dur, end)[replayed]
                        scores[p] = float(s.mean()) if s.size else 0.0
                best = min(scores.values())
                chosen = current if scores[current] == best else min(p for p, v in scores.items() if v == best)
                tests.append(Test(k, b, measure, current, scores, chosen, int(replayed.sum())))
                if chosen != current:
                    sim.set_partitions(chosen)
                    current = chosen
            weekly_p[k] = current
        sim.run()
        return OnlineResult(sim.schedule, tests, weekly_p, time.perf_counter() - t_start)


def ratio(base, other, w: Workload) -> tuple[float, np.ndarray, int]:
    """Lawson's R of ``other`` against ``base``: (aggregate mean, mean per
    week of submission, number of jobs counted)."""
    r = metrics.slowdown_ratio(base, other)
    ok = np.isfinite(r)
    week = w.job_week
    sums = np.bincount(week[ok], weights=r[ok], minlength=w.weeks)
    counts = np.bincount(week[ok], minlength=w.weeks)
    with np.errstate(invalid="ignore", divide="ignore"):
        weekly = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return (float(r[ok].mean()) if ok.any() else float("nan")), weekly, int(ok.sum())


def mean_slowdown(schedule) -> float:
    return float(np.nanmean(metrics.lawson_slowdown(schedule)))


@dataclass(frozen=True)
class _Inputs(CellInputs):
    """What both multiqueue cells take."""

    trace: str = TraceInputs.field("trace")
    weeks: int | None = param(None, help="weeks of the log kept (None: all)", unit="weeks",
                              check=integer(1, optional=True))
    estimate: str = param("user", help="the runtime estimate", check=one_of(*ESTIMATES))


@dataclass(frozen=True)
class FixedInputs(_Inputs):
    """The fixed-P cell's inputs."""

    partitions: int = param(PMAX, help="the number of partitions P", check=integer(1))
    criteria: str = param("paper", help="the partition criteria (paper: the paper's for the estimate)",
                          check=one_of("paper", *CRITERIA))


@dataclass(frozen=True)
class OnlineInputs(_Inputs):
    """The online cell's inputs."""

    threshold: float = param(10.0, help="the online policy's threshold T", check=number())
    horizon: int = param(2, help="the online policy's look-back L", unit="weeks", check=integer(1))
    pmax: int = param(PMAX, help="the largest P", check=integer(1))
    initial: int = param(PMAX, help="the P it starts with", check=integer(1))
    replay: str = param("oracle", help="what the online simulation replays", check=one_of(*REPLAYS))
    trigger: str = param("cumulative", help="when a test runs", check=one_of(*TRIGGERS))

#: Every parameter of the two cells, with its default.
CELL_PARAMS = {**FixedInputs.defaults(), **OnlineInputs.defaults()}


@functools.lru_cache(maxsize=8)
def _baseline(trace: str, weeks: int | None, estimate: str):
    return baseline(load(trace, weeks), ESTIMATES[estimate])


def _common(w: Workload, base, other) -> dict:
    r, weekly, n = ratio(base, other, w)
    return {"mean_slowdown_ratio": ((), r), "weekly_slowdown_ratio": (("week",), weekly),
            "ratio_jobs": ((), n), "mean_lawson_slowdown": ((), mean_slowdown(other)),
            "baseline_mean_lawson_slowdown": ((), mean_slowdown(base)),
            "borrowed_jobs": ((), int(other.borrowed.sum()))}


@cell("multiqueue-fixed", FixedInputs)
def fixed_cell(q: FixedInputs) -> dict:
    """Multiple-queue backfilling with a fixed P on a trace, against
    single-queue EASY: R aggregated and per week."""
    est = q.estimate
    w = load(str(q["trace"]), q["weeks"])
    s = fixed(w, ESTIMATES[est], int(q["partitions"]), _criteria_for(est, q["criteria"]))
    return _common(w, _baseline(str(q["trace"]), q["weeks"], est), s)


@cell("multiqueue-online", OnlineInputs)
def online_cell(q: OnlineInputs) -> dict:
    """The online simulation policy on a trace, against single-queue EASY:
    R, the tests and the partition changes."""
    est = q.estimate
    w = load(str(q["trace"]), q["weeks"])
    res = online(w, ESTIMATES[est], float(q["threshold"]), int(q["horizon"]), int(q["pmax"]), int(q["initial"]),
                 q["replay"], q["trigger"])
    out = _common(w, _baseline(str(q["trace"]), q["weeks"], est), res.schedule)
    tested = np.zeros(w.weeks, dtype=np.int64)
    for t in res.tests:
        tested[t.week] = 1
    out.update({"online_tests": ((), len(res.tests)), "partition_changes": ((), len(res.changes)),
                "changes_to": (("new_partitions",), np.array(res.changes_to(int(q["pmax"])), dtype=np.int64)),
                "weekly_partitions": (("week",), res.weekly_p), "weekly_tests": (("week",), tested),
                "online_time": ((), res.seconds)})
    return out


def fixed_campaign(p, ref: TraceRef) -> Campaign:
    """Fixed P = 1..``p.pmax`` on trace ``ref`` with each estimate (``p``: the study's Params)."""
    return Campaign(f"multiqueue-fixed-{campaign_part(ref.name)}",
                    {"estimate": list(ESTIMATES), "partitions": list(range(1, p.pmax + 1))},
                    {"trace": ref.spec, "weeks": ref.weeks, "criteria": "paper"},
                    cell=f"{__name__}:fixed_cell")


def online_campaign(p, ref: TraceRef, replays=None) -> Campaign:
    """The online-simulation grid (estimate x replay x T x L) on trace ``ref``
    (``replays``: some of ``p.replays``; default all)."""
    return Campaign(f"multiqueue-online-{campaign_part(ref.name)}",
                    {"estimate": list(p.online_estimates), "replay": list(replays or p.replays),
                     "threshold": list(p.thresholds), "horizon": list(p.horizons)},
                    {"trace": ref.spec, "weeks": ref.weeks, "pmax": p.pmax, "initial": p.initial,
                     "trigger": p.trigger},
                    cell=f"{__name__}:online_cell")
