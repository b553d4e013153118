"""Study 8 -- self-adaptive multiple-queue backfilling (lawson2005).

Lawson and Smirni split the machine into P partitions, one FCFS queue each;
a job goes to a partition by its runtime estimate, the partitioning criteria
are recomputed every week from the previous week's completed jobs so as to
balance the number of jobs per queue (Figure 3), idle processors move across
partitions when no pivot is delayed (Figure 2); and when the system's
bounded slowdown exceeds a threshold T, the running system is cloned and
simulated with P = 1..Pmax over a horizon of L weeks, and the best P is
adopted (online simulation, §3, Appendix A).  Everything is compared job by
job with single-queue EASY-FCFS-FCFS through the slowdown ratio R (§2.2).

The engine part (the pass, the criteria recomputation, reconfiguration) is
in C (``csrc/multiqueue.c``; its contract is the last section of
``csrc/SEMANTICS.md``); this module drives it:

* :func:`fixed` -- multiple-queue backfilling with a fixed P (§2.3, Figs.
  4-5): with *exact* estimates and a priori criteria (each week's criteria
  from the actual runtimes of the jobs submitted that same week: the paper's
  "ideal case, where the workload is known a priori"), or with *user*
  estimates and Figure 3's criteria (from the requested times of the jobs
  completed in the previous week: no a priori knowledge);
* :func:`online` -- the online simulation policy (§3.1, Tables 1-3, Figs.
  6-9);
* :func:`ratio` -- R per job, aggregated and per week.

Definitions and choices (lawson2005 leaves them open; each is a parameter
where it matters):

* **Jobs.** Each trace is cleaned by :func:`schedlab.workload.clean` (jobs
  with p > p~ are kept and killed at p~) and cut to its first ``weeks``
  weeks of submissions (the paper's Table 2: 48 weeks of CTC and KTH, 104 of
  SDSC-SP2 and Blue Horizon); weeks run from the first submission.
* **Slowdown** s = 1 + wait / max(10 s, runtime) (§2.2, "bounded slowdown")
  and **R** = (s_1 - s_m) / min(s_1, s_m) per job against single-queue EASY-
  FCFS-FCFS with the same estimates (:func:`schedlab.metrics.slowdown_ratio`;
  jobs that ran under 10 s but requested over a minute are ignored,
  footnote 4).  Aggregate R: the mean over all jobs; weekly R: over the jobs
  submitted in that week.
* **Initial criteria.** Before the first weekly recomputation (week 0) no
  previous week exists: the criteria balance the estimates of the jobs
  submitted in week 0 (the only a priori knowledge of the user-estimate runs).
* **Trigger** (``trigger``).  The check is made once per week, at each week
  boundary, right after the criteria recomputation (Table 2 counts at most one
  test per week).  ``"cumulative"`` (default): the paper's "aggregate bounded
  slowdown in the system", the mean slowdown of every job completed since the
  start; ``"week"``: of the jobs completed in the week just ended.  A test runs
  when it is strictly greater than T.
* **What an online simulation replays** (``replays``; the study runs each
  one given, the first one feeds Tables 1-2 and Figs. 6-9).  Each candidate
  P starts from a clone of the real system (same queue, running jobs, loans,
  pivots, criteria; reconfigured by Appendix A.1-A.2 when P differs) and
  runs for L weeks with the weekly recomputation.  ``"oracle"`` (default):
  the jobs actually submitted during the horizon arrive as in the trace, so
  the online simulation knows the future workload.  This is our reading of
  the paper: L is "the length of time (weeks) to simulate", and Table 3 shows
  L deciding between gain and loss, which it cannot do without arrivals
  (see ``"queued"``).  ``"queued"``: only the jobs waiting at the test are
  replayed (later arrivals are cut off, ``Simulation.set_cutoff``), the
  paper's "quick trace-driven simulation for the waiting jobs" and what a real
  scheduler could do.  At a week boundary only a few dozen jobs wait, and
  they all start within the horizon's first week: L makes no difference (in
  our runs every L = 1 cell equals its L = 2 cell), and P is chosen on those
  few jobs.  In both the jobs run their real (trace) runtimes, as the paper's
  trace-driven simulations do.
* **Best P.** The lowest mean slowdown, at the end of the horizon, of the
  replayed jobs (waiting at the test, plus those arriving in it with
  ``"oracle"``); a job still waiting at the end counts with its wait so far
  (a lower bound), so a candidate cannot win by starving jobs.  Ties: keep the
  current P, else the smallest.  If it differs, the real system is
  reconfigured (A.3): uniform reassignment of the criteria (A.1) until the
  next weekly recomputation, pivots as A.2.
* **Initial P** of the online policy (``initial``): 4, the multiple-queue
  policy of §2.3 that online simulation adapts.
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ... import __version__, campaign, metrics, paths, plots, workload
from ... import traces as _traces
from ...errors import InputError
from ...sim import Jobs, Simulation, simulate
from .. import Table, write_json
from ... import values as check

STUDY = "multiqueue"
WEEK = workload.WEEK

#: Source of every published value below.
PAPER = ("lawson2005: B. Lawson and E. Smirni, Self-Adaptive Scheduler Parameterization, Technical "
         "Report TR-05-01, University of Richmond, 2005")

#: The paper's trace names -> our registry names.
PAPER_NAMES = {"CTC": "CTC-SP2", "KTH": "KTH-SP2", "SDSC-SP2": "SDSC-SP2", "Blue Horizon": "SDSC-BLUE"}
DEFAULT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE")
#: Weeks simulated per trace: Table 2's "# Weeks".
PAPER_WEEKS = {"CTC-SP2": 48, "KTH-SP2": 48, "SDSC-SP2": 104, "SDSC-BLUE": 104}
THRESHOLDS = (2.5, 5.0, 7.5, 10.0, 25.0, 50.0, 75.0, 100.0)
HORIZONS = (1, 2)
PMAX = 4
ESTIMATES = {"exact": "actual", "user": "requested"}
REPLAYS = ("oracle", "queued")
TRIGGERS = ("cumulative", "week")
CRITERIA = ("previous", "oracle")

#: Values published in lawson2005, keyed by our registry names.
PUBLISHED: dict[str, Any] = {
    # Table 1: selected online simulation parameters (T, L weeks)
    "table1": {"CTC-SP2": (2.5, 2), "KTH-SP2": (100.0, 2), "SDSC-SP2": (25.0, 1), "SDSC-BLUE": (10.0, 1)},
    # Table 2: weeks, tests, % weeks with test, partition changes, % tests with
    # change, then changes to P = 1, 2, 3, 4
    "table2": {
        "CTC-SP2": (48, 44, 91.7, 27, 61.4, (7, 8, 8, 4)),
        "KTH-SP2": (48, 26, 54.2, 18, 69.2, (2, 6, 4, 6)),
        "SDSC-SP2": (104, 90, 86.5, 53, 58.9, (4, 16, 13, 20)),
        "SDSC-BLUE": (104, 60, 57.7, 41, 68.3, (10, 9, 7, 15)),
    },
    # Table 3: aggregate R for T/L, T in THRESHOLDS, L in (1, 2)
    "table3": {
        "CTC-SP2": {(2.5, 1): 0.649, (2.5, 2): 0.712, (5.0, 1): -0.676, (5.0, 2): 0.269,
                    (7.5, 1): -0.100, (7.5, 2): 0.443, (10.0, 1): 0.572, (10.0, 2): 0.559,
                    (25.0, 1): 0.552, (25.0, 2): 0.645, (50.0, 1): 0.133, (50.0, 2): 0.013,
                    (75.0, 1): 0.157, (75.0, 2): 0.033, (100.0, 1): -0.637, (100.0, 2): 0.466},
        "KTH-SP2": {(2.5, 1): 5.327, (2.5, 2): 4.520, (5.0, 1): 5.790, (5.0, 2): 4.918,
                    (7.5, 1): 5.117, (7.5, 2): 4.543, (10.0, 1): 5.608, (10.0, 2): 4.577,
                    (25.0, 1): 5.940, (25.0, 2): 5.227, (50.0, 1): 6.275, (50.0, 2): 6.135,
                    (75.0, 1): 2.936, (75.0, 2): 4.569, (100.0, 1): 4.002, (100.0, 2): 6.431},
        "SDSC-SP2": {(2.5, 1): 12.823, (2.5, 2): 13.331, (5.0, 1): 13.474, (5.0, 2): 12.713,
                     (7.5, 1): 13.211, (7.5, 2): 11.613, (10.0, 1): 13.200, (10.0, 2): 11.573,
                     (25.0, 1): 13.709, (25.0, 2): 11.675, (50.0, 1): 11.972, (50.0, 2): 12.961,
                     (75.0, 1): 12.433, (75.0, 2): 12.547, (100.0, 1): 6.985, (100.0, 2): 10.831},
        "SDSC-BLUE": {(2.5, 1): 1.092, (2.5, 2): 1.224, (5.0, 1): 1.025, (5.0, 2): 1.21,
                      (7.5, 1): 0.922, (7.5, 2): 1.33, (10.0, 1): 0.897, (10.0, 2): 1.356,
                      (25.0, 1): 0.915, (25.0, 2): 1.323, (50.0, 1): 1.265, (50.0, 2): 1.201,
                      (75.0, 1): 1.25, (75.0, 2): 1.306, (100.0, 1): 1.297, (100.0, 2): 1.301},
    },
    # §2.3 text on Fig. 4(a): "the improvement for CTC and Blue Horizon using
    # multiple-queue instead of single-queue backfilling are more than 120%
    # and 200%" (exact estimates): lower bounds of the aggregate R.
    "fig4a_lower_bounds": {"CTC-SP2": 1.2, "SDSC-BLUE": 2.0},
}

PUBLISHED_NOTES = (
    "lawson2005 simulates CTC on 512 nodes, KTH on 100, SDSC-SP2 on 128 and Blue Horizon on 144 nodes "
    "of 8 processors; we use the registry's m (CTC-SP2: 338, the batch partition of the PWA log; "
    "SDSC-BLUE: 1152 processors).",
    "Figures 4-9 print no values; the text of §2.3 gives lower bounds for Fig. 4(a) (CTC > 1.2, "
    "Blue Horizon > 2.0).",
    "Figure 8's four parameter choices for CTC are not listed; we read them from the text and Table 3 "
    "as T in {5, 100} x L in {1, 2} (the pairs where L decides between gain and loss).",
)

#: Figure 8/9's parameter choices (T, L) for CTC (our reading, see PUBLISHED_NOTES).
FIG8_PARAMS = ((5.0, 1), (5.0, 2), (100.0, 1), (100.0, 2))


# ------------------------------------------------------------ workloads --

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
    info = _traces.resolve(trace)
    jobs, _ = workload.clean(_traces.load(info), m=info.m)
    return cut(jobs, info.m or int(jobs.procs.max()), weeks, info.name)


# ------------------------------------------------------------- criteria --

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


# ---------------------------------------------------------- simulations --

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


# --------------------------------------------------------------- metrics --

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


# ------------------------------------------------------------ parameters --

#: Part of every campaign cell's parameters, hence of its cache key: bump it
#: whenever the engine's multiple-queue semantics or this module's
#: simulation logic (fixed, online, ratio) change, so that cells computed by
#: an older version are never reused.
SEMANTICS = "lawson2005-lend-1"


@dataclass(frozen=True)
class TraceRef:
    spec: str             # registry name or path (what campaign cells load)
    name: str             # short name (registry name or file stem)
    weeks: int | None     # weeks simulated (None: the whole trace)


@dataclass(frozen=True)
class Params:
    """Validated parameters of :func:`run` (see :func:`validate`)."""

    traces: tuple[TraceRef, ...]
    thresholds: tuple[float, ...]
    horizons: tuple[int, ...]
    pmax: int
    initial: int
    replays: tuple[str, ...]
    trigger: str
    online_estimates: tuple[str, ...]
    fig8_trace: str | None
    fig8_params: tuple[tuple[float, int], ...]
    workers: int
    outdir: Path
    cache_dir: Path

    def as_dict(self) -> dict[str, Any]:
        return {"traces": [t.name for t in self.traces], "weeks": {t.name: t.weeks for t in self.traces},
                "thresholds": list(self.thresholds), "horizons": list(self.horizons), "pmax": self.pmax,
                "initial": self.initial, "replays": list(self.replays), "trigger": self.trigger,
                "online_estimates": list(self.online_estimates), "fig8_trace": self.fig8_trace,
                "fig8_params": [list(x) for x in self.fig8_params], "workers": self.workers,
                "outdir": str(self.outdir), "semantics": SEMANTICS}


def _positive_int(x, what: str, lo: int = 1, hi: int | None = None) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) and not (isinstance(x, float) and x.is_integer()):
        raise InputError(f"{what} must be an integer, got {x!r}")
    v = int(x)
    if v < lo or (hi is not None and v > hi):
        raise InputError(f"{what} must be between {lo} and {hi if hi is not None else 'inf'}, got {x!r}")
    return v


def _choice(x, choices, what: str) -> str:
    if x not in choices:
        raise InputError(f"{what} must be one of {', '.join(map(str, choices))}, got {x!r}")
    return x


def _list(x, what: str) -> list:
    if isinstance(x, (str, int, float)):
        return [x]
    try:
        return list(x)
    except TypeError:
        raise InputError(f"{what}: expected a list, got {x!r}") from None


def validate(traces=DEFAULT_TRACES, weeks=None, thresholds=THRESHOLDS, horizons=HORIZONS, pmax=PMAX,
             initial=None, replays=REPLAYS, trigger="cumulative", online_estimates=("user",),
             fig8_trace="CTC-SP2", fig8_params=FIG8_PARAMS, workers=2, outdir=None, cache_dir=None) -> Params:
    """Check every parameter of the study (clear errors for the notebook's
    parameters cell) and return :class:`Params`.

    ``weeks``: weeks simulated per trace: None (the paper's for its four
    traces, else the whole trace), one integer for all, or a mapping trace ->
    integer (traces not in it: as None)."""
    names = _list(traces, "traces")
    if not names:
        raise InputError("traces: give at least one trace")
    if weeks is not None and not isinstance(weeks, dict):
        weeks = {str(n): weeks for n in names}
    refs, seen = [], set()
    for spec in names:
        try:
            info = _traces.resolve(str(spec))
        except (InputError, FileNotFoundError, KeyError) as e:
            raise InputError(f"traces: {spec!r} is neither a registered trace nor an SWF file ({e})") from None
        if info.name in seen:
            raise InputError(f"traces: {info.name} given twice")
        seen.add(info.name)
        w = None
        if weeks is not None:
            w = weeks.get(str(spec), weeks.get(info.name))
        elif info.name in PAPER_WEEKS:
            w = PAPER_WEEKS[info.name]
        if w is not None:
            w = _positive_int(w, f"weeks of {info.name}")
        refs.append(TraceRef(str(spec), info.name, w))
    ths = sorted({float(t) for t in _list(thresholds, "thresholds")})
    if not ths or any(not math.isfinite(t) or t < 1.0 for t in ths):
        raise InputError(f"thresholds must be finite bounded slowdowns >= 1, got {thresholds!r}")
    hors = sorted({_positive_int(h, "horizons") for h in _list(horizons, "horizons")})
    pmax = _positive_int(pmax, "pmax", 1, 16)
    initial = pmax if initial is None else _positive_int(initial, "initial", 1, pmax)
    ests = [_choice(e, tuple(ESTIMATES), "online_estimates") for e in _list(online_estimates, "online_estimates")]
    reps = [_choice(r, REPLAYS, "replays") for r in _list(replays, "replays")]
    if not ests or not reps:
        raise InputError("online_estimates and replays need at least one value each")
    if fig8_trace is not None and fig8_trace not in seen:
        fig8_trace = None                   # e.g. the notebook on a user's own trace
    f8 = tuple((float(t), _positive_int(h, "fig8_params horizon")) for t, h in
               (_pair(x) for x in _list(fig8_params, "fig8_params")))
    return Params(tuple(refs), tuple(ths), tuple(hors), pmax, initial, tuple(dict.fromkeys(reps)),
                  _choice(trigger, TRIGGERS, "trigger"), tuple(dict.fromkeys(ests)), fig8_trace, f8,
                  _positive_int(workers, "workers"), validate_outdir(outdir),
                  Path(cache_dir) if cache_dir is not None else paths.RESULTS / "cache")


def _pair(x) -> tuple:
    if isinstance(x, str) and "/" in x:
        x = x.split("/")
    x = list(x)
    if len(x) != 2:
        raise InputError(f"fig8_params: expected (T, L) pairs, got {x!r}")
    return float(x[0]), x[1] if not isinstance(x[1], str) else int(x[1])


def validate_outdir(outdir) -> Path:
    """``None`` -> ``results/multiqueue``; otherwise the directory, made absolute."""
    return check.directory(outdir, "outdir", paths.RESULTS / STUDY)


# -------------------------------------------------------------- campaign --

CELL_PARAMS = {"trace": None, "weeks": None, "estimate": "user", "partitions": PMAX, "criteria": "paper",
               "threshold": 10.0, "horizon": 2, "pmax": PMAX, "initial": PMAX, "replay": "oracle",
               "trigger": "cumulative", "semantics": SEMANTICS}


def _cell_args(p: dict, allowed: Iterable[str]) -> dict:
    unknown = set(p) - set(allowed)
    if unknown:
        raise InputError(f"multiqueue cell: unknown parameter(s) {sorted(unknown)}")
    q = {**{k: CELL_PARAMS[k] for k in allowed}, **p}
    if q["trace"] is None:
        raise InputError("multiqueue cell: a 'trace' parameter is required")
    return q


def _criteria_for(estimate: str, criteria: str) -> str:
    """The paper's pairing: exact estimates with a priori criteria, user
    estimates with Figure 3's (previous week)."""
    if criteria == "paper":
        return "oracle" if estimate == "exact" else "previous"
    return _choice(criteria, CRITERIA, "criteria")


@functools.lru_cache(maxsize=8)
def _baseline(trace: str, weeks: int | None, estimate: str):
    return baseline(load(trace, weeks), ESTIMATES[estimate])


def _common(w: Workload, base, other) -> dict:
    r, weekly, n = ratio(base, other, w)
    return {"mean_slowdown_ratio": ((), r), "weekly_slowdown_ratio": (("week",), weekly),
            "ratio_jobs": ((), n), "mean_lawson_slowdown": ((), mean_slowdown(other)),
            "baseline_mean_lawson_slowdown": ((), mean_slowdown(base)),
            "borrowed_jobs": ((), int(other.borrowed.sum()))}


@campaign.register_cell("multiqueue-fixed")
def fixed_cell(p: dict) -> dict:
    """Multiple-queue backfilling with a fixed P on a trace, against
    single-queue EASY: R aggregated and per week."""
    q = _cell_args(p, ("trace", "weeks", "estimate", "partitions", "criteria", "semantics"))
    est = _choice(q["estimate"], tuple(ESTIMATES), "estimate")
    w = load(str(q["trace"]), q["weeks"])
    s = fixed(w, ESTIMATES[est], int(q["partitions"]), _criteria_for(est, q["criteria"]))
    return _common(w, _baseline(str(q["trace"]), q["weeks"], est), s)


@campaign.register_cell("multiqueue-online")
def online_cell(p: dict) -> dict:
    """The online simulation policy on a trace, against single-queue EASY:
    R, the tests and the partition changes."""
    q = _cell_args(p, ("trace", "weeks", "estimate", "threshold", "horizon", "pmax", "initial", "replay",
                       "trigger", "semantics"))
    est = _choice(q["estimate"], tuple(ESTIMATES), "estimate")
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


def fixed_campaign(p: Params, ref: TraceRef) -> campaign.Campaign:
    return campaign.Campaign(f"multiqueue-fixed-{ref.name}",
                             {"estimate": list(ESTIMATES), "partitions": list(range(1, p.pmax + 1))},
                             {"trace": ref.spec, "weeks": ref.weeks, "criteria": "paper", "semantics": SEMANTICS},
                             cell=f"{__name__}:fixed_cell")


def online_campaign(p: Params, ref: TraceRef) -> campaign.Campaign:
    return campaign.Campaign(f"multiqueue-online-{ref.name}",
                             {"estimate": list(p.online_estimates), "replay": list(p.replays),
                              "threshold": list(p.thresholds), "horizon": list(p.horizons)},
                             {"trace": ref.spec, "weeks": ref.weeks, "pmax": p.pmax, "initial": p.initial,
                              "trigger": p.trigger, "semantics": SEMANTICS},
                             cell=f"{__name__}:online_cell")


def _run_campaign(c: campaign.Campaign, runner: campaign.Runner):
    ds = runner.run(c)
    if "new_partitions" in ds.dims:
        ds = ds.assign_coords(new_partitions=np.arange(1, ds.sizes["new_partitions"] + 1))
    return ds


# ------------------------------------------------------------- results --

@dataclass
class TraceResult:
    """The campaigns of one trace: ``fixed`` (estimate, partitions[, week])
    and ``online`` (estimate, threshold, horizon[, week, new_partitions])."""

    ref: TraceRef
    workload: Workload
    fixed: Any
    online: Any
    replay: str = "oracle"          # the replay of Tables 1-2 and Figs. 6-9

    @property
    def name(self) -> str:
        return self.ref.name

    def fixed_r(self, estimate: str, p: int) -> float:
        return float(self.fixed.mean_slowdown_ratio.sel(estimate=estimate, partitions=p))

    def has_online(self, estimate: str, t: float, h: int, replay: str | None = None) -> bool:
        o = self.online
        return (o is not None and estimate in o.estimate.values and float(t) in o.threshold.values
                and int(h) in o.horizon.values and (replay or self.replay) in o.replay.values)

    def online_sel(self, var: str, estimate: str, t: float, h: int, replay: str | None = None):
        return self.online[var].sel(estimate=estimate, threshold=float(t), horizon=int(h),
                                    replay=replay or self.replay)

    def online_stats(self, estimate: str, t: float, h: int, replay: str | None = None) -> dict[str, Any] | None:
        """Table 2's statistics (and R) of one online run; None if not run."""
        if not self.has_online(estimate, t, h, replay):
            return None
        sel = lambda v: self.online_sel(v, estimate, t, h, replay)  # noqa: E731
        tests = int(sel("online_tests"))
        changes = int(sel("partition_changes"))
        weeks = self.workload.weeks
        return {"T": float(t), "L": int(h), "R": float(sel("mean_slowdown_ratio")),
                "weeks": weeks, "tests": tests, "pct_weeks_with_test": 100.0 * tests / weeks,
                "changes": changes, "pct_tests_with_change": 100.0 * changes / tests if tests else float("nan"),
                "changes_to": [int(v) for v in sel("changes_to").values],
                "mean_slowdown": float(sel("mean_lawson_slowdown"))}

    def best(self, estimate: str, replay: str | None = None) -> tuple[float, int, float] | None:
        """(T, L, R) of the highest aggregate R of the online grid."""
        if self.online is None or estimate not in self.online.estimate.values:
            return None
        r = self.online.mean_slowdown_ratio.sel(estimate=estimate, replay=replay or self.replay)
        i, j = np.unravel_index(int(np.nanargmax(r.values)), r.shape)
        return float(r.threshold.values[i]), int(r.horizon.values[j]), float(r.values[i, j])


def _label(t: float, h: int) -> str:
    return f"{t:g}/{h}"


def _published_r(name: str, t: float, h: int) -> float | None:
    return PUBLISHED["table3"].get(name, {}).get((float(t), int(h)))


def table_fig4(results: Sequence[TraceResult], pmax: int) -> Table:
    rows = []
    for r in results:
        for est in ESTIMATES:
            bound = PUBLISHED["fig4a_lower_bounds"].get(r.name) if est == "exact" else None
            rows.append([r.name, est, _criteria_for(est, "paper"),
                         *[r.fixed_r(est, p) for p in range(1, pmax + 1)],
                         f"> {bound:g}" if bound is not None else "",
                         float(r.fixed.baseline_mean_lawson_slowdown.sel(estimate=est, partitions=pmax)),
                         float(r.fixed.mean_lawson_slowdown.sel(estimate=est, partitions=pmax))])
    return Table(["trace", "estimates", "criteria", *[f"R P={p}" for p in range(1, pmax + 1)],
                  f"R P={pmax} (paper)", "slowdown EASY", f"slowdown P={pmax}"], rows,
                 title="Multiple-queue backfilling vs single-queue EASY-FCFS-FCFS (lawson2005 Fig. 4)",
                 notes=["R: mean over the jobs of (s_1 - s_m) / min(s_1, s_m), s = 1 + wait / max(10 s, runtime); "
                        "R > 0: multiple queues better; P = 1 is single-queue EASY (R = 0 by construction).",
                        "exact: the real runtimes as estimates, each week's criteria from that week's jobs (a "
                        "priori, 'oracle'); user: requested times, criteria from the previous week's completed "
                        "jobs (Figure 3, 'previous').",
                        "paper: Fig. 4 prints no values; §2.3 says R exceeds 1.2 (CTC) and 2.0 (Blue Horizon) "
                        "with exact estimates."])


def table_table1(results: Sequence[TraceResult]) -> Table:
    rows = []
    for r in results:
        pub = PUBLISHED["table1"].get(r.name)
        at_pub = r.online_stats("user", *pub) if pub else None
        best = r.best("user")
        rows.append([r.name, pub[0] if pub else None, pub[1] if pub else None,
                     _published_r(r.name, *pub) if pub else None, at_pub["R"] if at_pub else None,
                     best[0] if best else None, best[1] if best else None, best[2] if best else None])
    return Table(["trace", "T (paper)", "L (paper)", "R (paper)", "R (ours, paper's T/L)", "T (ours)", "L (ours)",
                  "R (ours)"], rows, title="Selected online simulation parameters (lawson2005 Table 1)",
                 digits={"T (paper)": 1, "T (ours)": 1, "L (paper)": 0, "L (ours)": 0, "R (paper)": 3,
                         "R (ours, paper's T/L)": 3, "R (ours)": 3},
                 notes=["user estimates; ours: the T/L of the highest aggregate R in our grid (the paper "
                        "selected its parameters the same way, footnote 7).",
                        "R (paper): Table 3 at the paper's T/L."])


def table_table2(results: Sequence[TraceResult], pmax: int) -> Table:
    rows = []
    for r in results:
        pub = PUBLISHED["table2"].get(r.name)
        params = PUBLISHED["table1"].get(r.name)
        if pub:
            rows.append([r.name, "paper", _label(*params), *pub[:5], *pub[5][:pmax],
                         *([None] * max(0, pmax - 4))])
        for source, tl in (("ours, paper's T/L", params), ("ours, our T/L", (r.best("user") or (None,))[:2])):
            if tl is None or tl[0] is None:
                continue
            st = r.online_stats("user", *tl)
            if st is None:
                continue
            rows.append([r.name, source, _label(*tl), st["weeks"], st["tests"], st["pct_weeks_with_test"],
                         st["changes"], st["pct_tests_with_change"], *st["changes_to"]])
    cols = ["trace", "source", "T/L", "weeks", "tests", "% weeks with test", "changes", "% tests with change",
            *[f"to P={p}" for p in range(1, pmax + 1)]]
    return Table(cols, rows, title="Online simulation tests and partition changes (lawson2005 Table 2)",
                 digits={"% weeks with test": 1, "% tests with change": 1},
                 notes=["user estimates; a test runs at a week boundary when the trigger (by default the mean "
                        "bounded slowdown of the jobs completed so far) exceeds T; at most one test per week.",
                        "ours: the first replay of the study (numbers.json: definitions.primary_replay)."])


def table_table3(results: Sequence[TraceResult], p: Params) -> tuple[Table, Table]:
    """Table 3 side by side (wide: one row per trace and source) and long."""
    combos = sorted({(t, h) for t in p.thresholds for h in p.horizons} |
                    {k for r in results for k in PUBLISHED["table3"].get(r.name, {})})
    wide, long_ = [], []
    for r in results:
        pub = PUBLISHED["table3"].get(r.name)
        if pub:
            wide.append([r.name, "paper (user)", *[pub.get(c) for c in combos]])
        for est in p.online_estimates:
            for rep in p.replays:
                wide.append([r.name, f"ours ({est}, {rep})",
                             *[float(r.online_sel("mean_slowdown_ratio", est, *c, rep))
                               if r.has_online(est, *c, rep) else None for c in combos]])
        for c in combos:
            row = [r.name, c[0], c[1], pub.get(c) if pub else None]
            for est in p.online_estimates:
                for rep in p.replays:
                    st = r.online_stats(est, *c, rep)
                    row += [st["R"], st["tests"], st["changes"]] if st else [None, None, None]
            long_.append(row)
    labels = [_label(*c) for c in combos]
    t_wide = Table(["trace", "source", *labels], wide, digits=dict.fromkeys(labels, 3),
                   title="Aggregate slowdown ratio R for every T/L (lawson2005 Table 3)",
                   notes=["columns: threshold T (bounded slowdown) / horizon L (weeks); blank: not simulated.",
                          "ours (estimates, replay): oracle = the online simulations replay the jobs submitted "
                          "during the horizon, queued = only the jobs waiting at the test."])
    cols = ["trace", "T", "L", "R (paper)"]
    for est in p.online_estimates:
        for rep in p.replays:
            cols += [f"R ({est}, {rep})", f"tests ({est}, {rep})", f"changes ({est}, {rep})"]
    t_long = Table(cols, long_, title="Table 3, long form, with the tests and changes of each run",
                   digits={"T": 1, "L": 0, **{c: 3 for c in cols if c.startswith("R ")}})
    return t_wide, t_long


def table_fig6(results: Sequence[TraceResult], pmax: int) -> Table:
    rows = []
    for r in results:
        pub = PUBLISHED["table1"].get(r.name)
        at_pub = r.online_stats("user", *pub) if pub else None
        best = r.best("user")
        rows.append([r.name, r.fixed_r("exact", pmax), r.fixed_r("user", pmax),
                     at_pub["R"] if at_pub else None, best[2] if best else None,
                     _published_r(r.name, *pub) if pub else None])
    cols = ["trace", f"MQ P={pmax} exact (a priori)", f"MQ P={pmax} user", "online user (paper's T/L)",
            "online user (our T/L)", "online user (paper)"]
    return Table(cols, rows,
                 title="Multiple queues with exact and user estimates and online simulation (lawson2005 Fig. 6)",
                 digits=dict.fromkeys(cols[1:], 3),
                 notes=["online: the first replay of the study (numbers.json: definitions.primary_replay); "
                        "online user (paper): Table 3 at the paper's T/L."])


# ------------------------------------------------------------- figures --

def _bars(ax, groups: list[str], series: list[tuple[str, list[float], dict]]):
    n = len(series)
    width = 0.8 / max(n, 1)
    x = np.arange(len(groups))
    for i, (label, values, kw) in enumerate(series):
        v = np.array([np.nan if u is None else u for u in values], dtype=float)
        ax.bar(x + (i - (n - 1) / 2) * width, v, width, label=label, **kw)
    ax.set_xticks(x, groups)
    ax.axhline(0.0, color="k", lw=0.6)
    ax.set_ylabel("aggregate slowdown ratio R")


def figure_fig4(results: Sequence[TraceResult], pmax: int):
    """Aggregate R of P = pmax queues: exact (a priori) and user estimates."""
    with plots.style():
        fig = plots.figure(6.0, 3.0)
        ax = fig.subplots()
        names = [r.name for r in results]
        _bars(ax, names, [("exact estimates, a priori criteria", [r.fixed_r("exact", pmax) for r in results],
                           {"color": "0.35"}),
                          ("user estimates, previous week's criteria", [r.fixed_r("user", pmax) for r in results],
                           {"color": "0.75"})])
        for i, r in enumerate(results):
            b = PUBLISHED["fig4a_lower_bounds"].get(r.name)
            if b is not None:
                ax.plot([i - 0.4, i], [b, b], color="C3", lw=1.5)
        ax.plot([], [], color="C3", lw=1.5, label="paper: exact R above this (§2.3)")
        ax.set_title(f"multiple-queue backfilling, P = {pmax}, vs single-queue EASY")
        ax.legend(loc="best")
    return fig


def _weekly_axes(fig, n: int):
    from matplotlib.ticker import MaxNLocator
    axes = fig.subplots(n, 1, squeeze=False, sharex=False)[:, 0]
    for ax in axes:
        ax.axhline(0.0, color="k", lw=0.6)
        ax.set_yscale("symlog", linthresh=1.0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1].set_xlabel("week")
    return axes


def figure_fig5(results: Sequence[TraceResult], pmax: int):
    """Weekly R of P = pmax queues: exact (dashed) and user (solid)."""
    with plots.style():
        fig = plots.figure(6.5, 1.5 * len(results) + 0.6)
        axes = _weekly_axes(fig, len(results))
        for ax, r in zip(axes, results):
            c = plots.trace_color(r.name)
            for est, ls in (("exact", "--"), ("user", "-")):
                y = r.fixed.weekly_slowdown_ratio.sel(estimate=est, partitions=pmax).values
                ax.plot(np.arange(y.size), y, ls=ls, color=c, lw=1.0, label=f"{est} estimates")
            ax.set_ylabel(f"{r.name}\nR per week")
        axes[0].legend(loc="upper right", ncols=2)
        axes[0].set_title(f"P = {pmax} queues vs single queue, per week of submission (symlog scale)")
    return fig


def figure_fig6(results: Sequence[TraceResult], pmax: int):
    """Aggregate R: MQ exact, MQ user, online (paper's and our T/L)."""
    with plots.style():
        fig = plots.figure(6.5, 3.0)
        ax = fig.subplots()
        names = [r.name for r in results]
        pub = [PUBLISHED["table1"].get(r.name) for r in results]
        at_pub = [r.online_stats("user", *p)["R"] if p and r.has_online("user", *p) else None
                  for r, p in zip(results, pub)]
        best = [(r.best("user") or (None, None, None))[2] for r in results]
        _bars(ax, names, [(f"P={pmax} exact (a priori)", [r.fixed_r("exact", pmax) for r in results],
                           {"color": "0.3"}),
                          (f"P={pmax} user", [r.fixed_r("user", pmax) for r in results], {"color": "0.7"}),
                          ("online, user, paper's T/L", at_pub, {"color": "C0"}),
                          ("online, user, our best T/L", best, {"color": "C9"})])
        # The paper's value for its own T/L (Table 3), over the third bar.
        for i, (r, tl) in enumerate(zip(results, pub)):
            v = _published_r(r.name, *tl) if tl else None
            if v is not None:
                ax.plot([i + 0.0, i + 0.2], [v, v], color="k", lw=1.8)
        ax.plot([], [], color="k", lw=1.8, label="paper, online, its T/L (Table 3)")
        ax.legend(loc="best", ncols=2)
    return fig


def figure_fig7(results: Sequence[TraceResult], pmax: int):
    """Weekly R of online simulation (paper's T/L; P in force as steps)
    and of P = pmax with exact estimates (dashed)."""
    with plots.style():
        fig = plots.figure(6.5, 1.6 * len(results) + 0.6)
        axes = _weekly_axes(fig, len(results))
        for ax, r in zip(axes, results):
            c = plots.trace_color(r.name)
            y = r.fixed.weekly_slowdown_ratio.sel(estimate="exact", partitions=pmax).values
            ax.plot(np.arange(y.size), y, ls="--", color="0.5", lw=0.9, label=f"P={pmax}, exact")
            tl = PUBLISHED["table1"].get(r.name) or (r.best("user") or (None, None))[:2]
            if tl[0] is not None and r.has_online("user", *tl):
                y = r.online_sel("weekly_slowdown_ratio", "user", *tl).values
                ax.plot(np.arange(y.size), y, color=c, lw=1.0, label=f"online, user, T/L {_label(*tl)}")
                ps = r.online_sel("weekly_partitions", "user", *tl).values
                ax2 = ax.twinx()
                ax2.step(np.arange(ps.size), ps, where="mid", color="C4", lw=0.7, alpha=0.8)
                ax2.set_ylim(0.5, pmax + 0.5)
                ax2.set_yticks(range(1, pmax + 1))
                ax2.set_ylabel("P in force", color="C4")
                ax2.grid(False)
            ax.set_ylabel(f"{r.name}\nR per week")
            ax.legend(loc="upper left", fontsize=7)
    return fig


def figure_fig8(r: TraceResult, combos: Sequence[tuple[float, int]]):
    with plots.style():
        fig = plots.figure(4.5, 2.8)
        ax = fig.subplots()
        labels = [_label(*c) for c in combos]
        ours = [float(r.online_sel("mean_slowdown_ratio", "user", *c)) if r.has_online("user", *c) else None
                for c in combos]
        _bars(ax, labels, [("ours", ours, {"color": plots.trace_color(r.name)}),
                           ("paper (Table 3)", [_published_r(r.name, *c) for c in combos], {"color": "0.75"})])
        ax.set_xlabel("T / L")
        ax.set_title(f"{r.name}: online simulation, user estimates")
        ax.legend(loc="best")
    return fig


def figure_fig9(r: TraceResult, combos: Sequence[tuple[float, int]]):
    with plots.style():
        fig = plots.figure(6.5, 1.4 * len(combos) + 0.6)
        axes = _weekly_axes(fig, len(combos))
        ref_tl = PUBLISHED["table1"].get(r.name) or (r.best("user") or (None, None))[:2]
        for ax, c in zip(axes, combos):
            if r.has_online("user", *c):
                y = r.online_sel("weekly_slowdown_ratio", "user", *c).values
                ax.plot(np.arange(y.size), y, color=plots.trace_color(r.name), lw=1.0)
            if ref_tl[0] is not None and r.has_online("user", *ref_tl):
                y = r.online_sel("weekly_slowdown_ratio", "user", *ref_tl).values
                ax.plot(np.arange(y.size), y, color="0.5", ls="--", lw=0.8)
            ax.set_ylabel(f"T/L {_label(*c)}\nR per week")
        axes[0].set_title(f"{r.name}: online simulation per week; dashed: T/L "
                          f"{_label(*ref_tl) if ref_tl[0] is not None else '-'}")
    return fig


# ------------------------------------------------------------- numbers --

def _num(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def numbers(results: Sequence[TraceResult], p: Params) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        pub1 = PUBLISHED["table1"].get(r.name)
        d: dict[str, Any] = {
            "weeks": r.workload.weeks, "jobs": len(r.workload.jobs), "m": r.workload.m,
            "fixed": {est: {f"P{k}": r.fixed_r(est, k) for k in range(1, p.pmax + 1)} for est in ESTIMATES},
            "baseline_mean_slowdown": {est: float(r.fixed.baseline_mean_lawson_slowdown.sel(
                estimate=est, partitions=1)) for est in ESTIMATES},
            "online": {},
        }
        for est in p.online_estimates:
            d["online"][est] = {}
            for rep in p.replays:
                best = r.best(est, rep)
                grid = r.online.mean_slowdown_ratio.sel(estimate=est, replay=rep)
                d["online"][est][rep] = {
                    "paper_params": r.online_stats(est, *pub1, rep) if pub1 else None,
                    "best": {"T": best[0], "L": best[1], "R": best[2]} if best else None,
                    "grid": {_label(t, h): float(r.online_sel("mean_slowdown_ratio", est, t, h, rep))
                             for t in p.thresholds for h in p.horizons},
                    "positive": int((grid.values > 0).sum()), "cells": int(grid.size),
                    "min": float(np.nanmin(grid.values)), "max": float(np.nanmax(grid.values)),
                    "tests_total": int(r.online.online_tests.sel(estimate=est, replay=rep).sum()),
                    "changes_total": int(r.online.partition_changes.sel(estimate=est, replay=rep).sum()),
                }
        if r.name in PUBLISHED["table1"]:
            t3 = PUBLISHED["table3"][r.name]
            d["published"] = {"table1": {"T": pub1[0], "L": pub1[1]},
                              "table2": dict(zip(("weeks", "tests", "pct_weeks_with_test", "changes",
                                                  "pct_tests_with_change", "changes_to"),
                                                 PUBLISHED["table2"][r.name])),
                              "table3_at_table1": t3[pub1], "table3_max": max(t3.values()),
                              "table3_min": min(t3.values())}
            ours = [(c, r.online_sel("mean_slowdown_ratio", "user", *c)) for c in t3 if r.has_online("user", *c)]
            if ours:
                same = sum(1 for c, v in ours if (float(v) > 0) == (t3[c] > 0))
                d["sign_agreement"] = {"cells": len(ours), "same_sign": same}
        out[r.name] = d
    cells = [(r, c) for r in results for c in PUBLISHED["table3"].get(r.name, {}) if r.has_online("user", *c)]
    summary = {
        "table3_cells": len(cells),
        "table3_positive_ours": sum(1 for r, c in cells if float(r.online_sel("mean_slowdown_ratio", "user", *c)) > 0),
        "table3_positive_paper": sum(1 for r, c in cells if PUBLISHED["table3"][r.name][c] > 0),
        "replays": {},
    }
    if "user" in p.online_estimates:
        for rep in p.replays:
            per = [out[r.name]["online"]["user"][rep] for r in results]
            summary["replays"][rep] = {k: sum(d[k] for d in per) for k in ("cells", "positive", "tests_total",
                                                                           "changes_total")}
            # Thresholds at which every horizon L gives the same R (L does not matter).
            grids = [r.online.mean_slowdown_ratio.sel(estimate="user", replay=rep).values for r in results]
            summary["replays"][rep]["thresholds"] = sum(g.shape[0] for g in grids)
            summary["replays"][rep]["same_for_every_horizon"] = int(sum(
                int(np.all(g == g[:, :1], axis=1).sum()) for g in grids))
    return {"traces": out, "summary": summary}


# ------------------------------------------------------------------- run --

def _dataset(parts: Sequence[Any], names: Sequence[str]):
    """Concatenate per-trace datasets along ``trace`` (weeks: outer join)."""
    import xarray as xr

    from ...store import VARIABLES
    ds = xr.concat([d.expand_dims(trace=[n]) for d, n in zip(parts, names)], dim="trace", join="outer")
    for v in list(ds.data_vars):
        if VARIABLES[v].is_int:
            ds[v] = ds[v].fillna(VARIABLES[v].fill).astype(VARIABLES[v].dtype)
    attrs = dict(parts[0].attrs)
    attrs["campaigns"] = [dict(d.attrs.get("campaign", {})) for d in parts]
    attrs["cells_total"] = sum(int(d.attrs.get("cells_total", 0)) for d in parts)
    attrs["cells_cached"] = sum(int(d.attrs.get("cells_cached", 0)) for d in parts)
    attrs.pop("campaign", None)
    ds.attrs = attrs
    return ds


def run(traces=DEFAULT_TRACES, weeks=None, thresholds=THRESHOLDS, horizons=HORIZONS, pmax=PMAX, initial=None,
        replays=REPLAYS, trigger="cumulative", online_estimates=("user",), fig8_trace="CTC-SP2",
        fig8_params=FIG8_PARAMS, workers=2, outdir=None, cache_dir=None, log=print,
        params: Params | None = None) -> dict[str, Any]:
    """Run the study (every simulation through :mod:`schedlab.campaign`:
    dask, cached, resumable) and write under ``outdir`` (default
    ``results/multiqueue``), atomically:

    * ``tables/{fig4,table1,table2,table3,table3_long,fig6}.{csv,md}``;
    * ``figures/{fig4,fig5,fig6,fig7[,fig8,fig9]}.{png,pdf}``;
    * ``fixed.nc`` and ``online.nc`` (every run, per week);
    * ``numbers.json`` (key numbers, the paper's values, provenance).

    Parameters are those of :func:`validate` (or a validated ``params``).
    Returns a dict: ``params``, ``results`` (list of :class:`TraceResult`),
    ``tables``, ``figures``, ``datasets``, ``numbers``, ``files``, ``outdir``,
    ``seconds``.
    """
    from ...store import write_dataset

    t_start = time.perf_counter()
    p = params or validate(traces, weeks, thresholds, horizons, pmax, initial, replays, trigger,
                           online_estimates, fig8_trace, fig8_params, workers, outdir, cache_dir)
    log = log or (lambda *a, **k: None)
    out = p.outdir
    cluster = campaign.Runner(p.workers, None, p.cache_dir, log)
    results: list[TraceResult] = []
    try:
        for ref in p.traces:
            fx = _run_campaign(fixed_campaign(p, ref), cluster)
            on = _run_campaign(online_campaign(p, ref), cluster)
            results.append(TraceResult(ref, load(ref.spec, ref.weeks), fx, on, p.replays[0]))
    finally:
        cluster.close()

    tables = {"fig4": table_fig4(results, p.pmax), "table1": table_table1(results),
              "table2": table_table2(results, p.pmax)}
    tables["table3"], tables["table3_long"] = table_table3(results, p)
    tables["fig6"] = table_fig6(results, p.pmax)
    makers: dict[str, Callable[[], Any]] = {
        "fig4": lambda: figure_fig4(results, p.pmax), "fig5": lambda: figure_fig5(results, p.pmax),
        "fig6": lambda: figure_fig6(results, p.pmax), "fig7": lambda: figure_fig7(results, p.pmax)}
    f8 = next((r for r in results if r.name == p.fig8_trace), None)
    if f8 is not None and "user" in p.online_estimates:
        makers["fig8"] = lambda: figure_fig8(f8, p.fig8_params)
        makers["fig9"] = lambda: figure_fig9(f8, p.fig8_params)
    files: list[Path] = []
    for name, table in tables.items():
        files += table.write(out / "tables" / name)
    figures = {}
    for name, make in makers.items():
        figures[name] = plots.savefig(make(), out / "figures" / name)
        files += figures[name]
    datasets = {"fixed": _dataset([r.fixed for r in results], [r.name for r in results]),
                "online": _dataset([r.online for r in results], [r.name for r in results])}
    for name, ds in datasets.items():
        files.append(write_dataset(ds, out / f"{name}.nc"))
    nums = numbers(results, p)
    doc = {
        "study": STUDY,
        "definitions": {
            "slowdown": "s = 1 + wait / max(10 s, runtime) (lawson2005 §2.2)",
            "R": "per job (s_1 - s_m) / min(s_1, s_m) against single-queue EASY-FCFS-FCFS with the same "
                 "estimates; jobs < 10 s that requested > 60 s ignored; aggregate = mean over jobs, weekly = "
                 "over the jobs submitted in the week",
            "exact": "estimate = the real runtime; criteria of each week from the jobs submitted that week",
            "user": "estimate = requested time; criteria from the jobs completed in the previous week (Fig. 3)",
            "trigger": {"cumulative": "mean slowdown of every job completed so far",
                        "week": "mean slowdown of the jobs completed in the week just ended"}[p.trigger],
            "replay": {"oracle": "the online simulations replay the jobs waiting at the test and those "
                                 "actually submitted in the horizon (the trace's future)",
                       "queued": "the online simulations replay the jobs waiting at the test only"},
            "primary_replay": p.replays[0],
            "engine": "csrc/SEMANTICS.md, section 'Multiple-queue backfilling'",
        },
        "parameters": p.as_dict(),
        **nums,
        "published_source": PAPER,
        "published_notes": list(PUBLISHED_NOTES),
        "provenance": {"schedlab": __version__, "git_commit": paths.git_commit(),
                       "inputs": {r.name: {"spec": r.ref.spec, "sha256": campaign._trace_sha(r.ref.spec)}
                                  for r in results}},
        "wall_s": time.perf_counter() - t_start,
    }
    files.append(write_json(out / "numbers.json", doc))
    return {"params": p, "results": results, "tables": tables, "figures": figures, "datasets": datasets,
            "numbers": doc, "files": files, "outdir": out, "seconds": time.perf_counter() - t_start}
