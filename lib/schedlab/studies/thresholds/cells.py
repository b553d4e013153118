"""The simulations of the thresholds study: the thesis' original-weeks cell
(:func:`thesis_cell`; the resampled weeks of lelong2017 use the campaign's
built-in ``simulate`` cell), the campaigns of a run, the thesis checks
(:func:`thesis_checks`) and the facts of lelong2017 Table 3 read from a log
(:func:`_table3_row`)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

import numpy as np

from ...names import campaign_part
from ...campaigns.cells import RunInputs, TraceInputs, cell, workload_for
from ...campaigns.spec import Campaign
from ...workloads import workload
from ...engine import sim
from ...engine import metrics as _metrics
from ...workloads import traces as _traces
from ...declared import REQUIRED, duration, durations, flag, integer, one_of, param, text
from ...errors import InputError

# The choices the cells read, written once here: the cells import none of the
# study's parameters, analysis, tables or figures, so their cache keys follow
# this code only.

#: How a job crossing its week's end is judged (thesis §5.2): by its finish
#: time in the log, by r + p, or by r + p~.
FINISH = ("recorded", "run", "req")
#: Metrics every simulation cell of the study records.
METRICS = ["avg_wait", "max_wait", "mean_bsld", "jobs"]
#: The weeks the thesis used per trace (thesis §5.2).
THESIS_WEEKS = {"SDSC-SP2": 100, "SDSC-BLUE": 100, "KTH-SP2": 45, "CTC-SP2": 45}
#: The policies on which the thesis checks are run (when simulated at all).
CHECK_POLICIES = ("FCFS", "SPF", "SAF")



# ------------------------------------------------------------------ cells --

@functools.lru_cache(maxsize=16)
def _thesis_weeks(trace: str, m: int | None, overrun: str, skip_first: int, n_weeks: int | None,
                  finish: str) -> tuple[list, int]:
    """The original weeks of a trace as in thesis §5.2 (cached per process)."""
    jobs, _, m, swf, _ = _traces.cleaned(trace, m=m, overrun=overrun)
    # the log's finish times (an EASY-FCFS simulation's when the log has no waits), or r + p, r + p~
    fin = workload.log_finish(swf, jobs, m)[0] if finish == "recorded" else finish
    weeks = workload.weeks(jobs, crossing="drop", skip_first=skip_first, finish=fin, shift=True)
    if n_weeks is not None:
        weeks = weeks[:n_weeks]
    return weeks, int(m)


@dataclass(frozen=True)
class WeeksInputs(TraceInputs):
    """The inputs of a cell on the original weeks of a trace (thesis §5.2)."""

    overrun: str = param("drop", help="what cleaning does with jobs that overran their request",
                         check=one_of(*workload.OVERRUN_CHOICES))
    skip_first: int = param(1, help="weeks skipped at the log's start", unit="weeks", check=integer(0))
    n_weeks: int | None = param(None, help="consecutive weeks kept (None: all)", unit="weeks",
                                check=integer(1, optional=True))


@dataclass(frozen=True)
class ThesisWeeksInputs(WeeksInputs):
    """The thesis-weeks cell's inputs."""

    finish: str = param("recorded", help="how a week's crossing jobs are found", check=one_of(*FINISH))
    primary: str = param("FCFS", help="the primary queue's policy", check=text)
    backfill: str = param("same", help="the backfilling queue's policy (same: primary's)", check=text)
    threshold: int | None = param(None, help="the waiting-time threshold (None: none)", unit="s", check=duration)
    threshold_backfill: bool = param(False, help="the threshold applies to the backfilling queue too", check=flag)
    estimate: str = param("requested", help="the runtime estimate the scheduler uses", check=text)
    metrics: tuple | None = param(None, help="the summary metrics to return (None: all)")


@cell("thresholds-thesis-weeks", ThesisWeeksInputs)
def thesis_cell(q: ThesisWeeksInputs) -> dict:
    """Campaign cell: EASY-P_R-P_B on the original weeks of a trace (thesis
    §5.2: ``skip_first`` weeks skipped, then ``n_weeks`` consecutive weeks,
    jobs crossing their week's end removed by ``finish``); ``backfill="same"``
    orders both queues by ``primary``.  Returns each metric over ``week``."""
    n = None if q["n_weeks"] is None else int(q["n_weeks"])
    sets, m = _thesis_weeks(str(q["trace"]), q["m"], q["overrun"], int(q["skip_first"]), n, q["finish"])
    back = q["primary"] if q["backfill"] == "same" else q["backfill"]
    policy = sim.Policy(q["primary"], back, q["threshold"], q["threshold_backfill"])
    metrics = tuple(q["metrics"] or METRICS)
    out = {k: np.full(len(sets), np.nan) for k in metrics}
    for i, jobs in enumerate(sets):
        if len(jobs) == 0:
            if "jobs" in out:
                out["jobs"][i] = 0
            continue
        s = sim.simulate(jobs, m, policy, estimate=q["estimate"]).summary()
        for k in metrics:
            out[k][i] = s[k]
    return {k: (("week",), v) for k, v in out.items()}


def threshold_sweep(jobs, m: int, primary, backfill, thresholds, estimate="requested",
                    threshold_backfill: bool = False, tie: str = "oldest") -> list:
    """The schedules of EASY-``primary``-``backfill`` on ``jobs`` at every
    threshold of ``thresholds`` (seconds; None: no threshold), in their
    order: each one is, bit for bit, what :func:`schedlab.engine.sim.simulate`
    gives, but the runs share the part of the schedule that cannot differ.

    Why it is exact (``csrc/SEMANTICS.md``, "One pass"): a threshold T
    changes a pass at time t only if a queued job has waited t - r_j > T.
    In the run without threshold, let J_T be the jobs whose wait exceeds T
    and u_T = min over J_T of r_j + T.  At every pass at t <= u_T each
    queued job k has waited at most T (if k is in J_T, t <= r_k + T; if
    not, t <= its start, so t - r_k <= its wait <= T): the run at T makes
    the same decisions as the run without threshold up to u_T, and is that
    run's state at u_T (cloned) continued under T.  With J_T empty the two
    runs are one.  u_T grows with T, so one run without threshold, stepped
    to each u_T in turn and cloned there, serves every T; only the part
    after u_T is simulated again.  ``tie``: the order of equal keys
    (:func:`schedlab.engine.sim.simulate`); the argument holds under either."""
    ths = list(thresholds)
    if len(ths) == 1:
        # nothing to share: the run without threshold would be extra work
        return [sim.simulate(jobs, m, sim.Policy(primary, backfill, ths[0], threshold_backfill),
                             estimate=estimate, tie=tie)]
    base_policy = sim.Policy(primary, backfill, None, threshold_backfill)
    with sim.Simulation(jobs, m, base_policy, estimate=estimate, tie=tie) as proto:
        with proto.clone() as free:
            free.run()
            none = _schedule(free, jobs, m)
        wait = none.start - jobs.submit
        out: list = [None] * len(ths)
        todo = []
        for i, t in enumerate(ths):
            over = wait > t if t is not None else None
            if t is None or not over.any():
                out[i] = none if t is None else _schedule_as(none, sim.Policy(primary, backfill, t,
                                                                              threshold_backfill))
            else:
                todo.append((int(jobs.submit[over].min()) + int(t), i, t))
        for until, i, t in sorted(todo, key=lambda x: (x[0], x[1])):
            proto.run(until)
            with proto.clone() as c:
                c.set_policy(sim.Policy(primary, backfill, t, threshold_backfill))
                c.run()
                out[i] = _schedule(c, jobs, m)
    return out


def _summary(sch: "sim.Schedule", names) -> dict:
    """The metrics ``names`` of :func:`schedlab.engine.metrics.summary`, by the same
    expressions (the same values, bit for bit), computing only those asked
    for when they are among the four the study records."""
    if not set(names) <= {"jobs", "avg_wait", "max_wait", "mean_bsld"}:
        return sch.summary()
    ok = _metrics._started(sch)
    n = int(ok.sum())
    out: dict = {"jobs": n}
    if "avg_wait" in names or "max_wait" in names:
        w = _metrics.wait(sch)[ok]
        out["avg_wait"] = float(w.mean()) if n else float("nan")
        out["max_wait"] = float(w.max()) if n else float("nan")
    if "mean_bsld" in names:
        b = _metrics.bsld(sch)[ok]
        out["mean_bsld"] = float(b.mean()) if n else float("nan")
    return out


def _schedule(s: "sim.Simulation", jobs, m: int) -> "sim.Schedule":
    return sim.Schedule(jobs, m, s.policy, s.estimate, s._start, s._end, s._flags, s._first, s._pred)


def _schedule_as(sch: "sim.Schedule", policy) -> "sim.Schedule":
    """The same schedule under another policy's name (a threshold that never bites)."""
    return sim.Schedule(sch.jobs, sch.m, policy, sch.estimate, sch.start, sch.end, sch.flags,
                        sch.first_start, sch.predicted)


@dataclass(frozen=True)
class SweepInputs(RunInputs):
    """The sweep cell's inputs: the ``simulate`` cell's, with ``thresholds``
    (a list of labels) for ``threshold``."""

    thresholds: tuple = param(REQUIRED, help="the thresholds (20h, none), distinct", unit="s", check=durations)


@cell("thresholds-sweep", SweepInputs)
def sweep_cell(q: SweepInputs) -> dict:
    """Campaign cell: what the campaign's ``simulate`` cell gives for one
    pair on the resampled weeks (or weeks, or the original trace) of a
    trace, at every threshold of ``thresholds`` (labels such as ``"20h"``,
    ``"none"``) at once (:func:`threshold_sweep`).  Returns each metric
    over (``threshold``, ``week``), the thresholds in the given order."""
    ths = list(q.thresholds)
    sets, m = workload_for(str(q["trace"]), q["m"], q["overrun"], q["workload"], int(q["weeks"]),
                           int(q["seed"]), str(q["half"]))
    metrics = tuple(q["metrics"] or METRICS)
    out = {k: np.empty((len(ths), len(sets)), dtype=np.float64) for k in metrics}
    for i, jobs in enumerate(sets):
        done: dict[int, dict] = {}    # a schedule shared by several thresholds is summarised once
        for k, sch in enumerate(threshold_sweep(jobs, m, q["primary"], q["backfill"], ths, q["estimate"],
                                                bool(q["threshold_backfill"]))):
            s = done.get(id(sch.start))
            if s is None:
                s = done[id(sch.start)] = _summary(sch, metrics)
            for name in metrics:
                out[name][k, i] = s[name]
    dims = ("threshold",) if q["workload"] == "original" else ("threshold", "week")
    return {k: (dims, v[:, 0] if len(dims) == 1 else v) for k, v in out.items()}


# ------------------------------------------------------------- campaigns --

def _base_params(p, ref: _traces.TraceInfo) -> dict:
    return {"trace": _traces.text(ref), "overrun": p.overrun, "workload": "resample", "weeks": p.weeks,
            "seed": p.seed, "estimate": "requested"}


def fig5_campaigns(p) -> list[Campaign]:
    """Fig. 5: the policies with ``fig5_backfill`` backfilling, at T and
    without threshold, on resampled weeks of the whole trace; and the baseline."""
    ref = p.fig5_trace
    name = f"thresholds-fig5-{campaign_part(ref.name)}"
    base = {**_base_params(p, ref), "half": "all"}
    return [
        Campaign(name, {"threshold": [sim.format_duration(p.threshold), "none"],
                        "primary": list(p.policies)},
                 {**base, "backfill": p.fig5_backfill}, metrics=METRICS),
        Campaign(name, {"primary": ["FCFS"]}, {**base, "backfill": "FCFS", "threshold": None},
                 metrics=METRICS),
    ]


def traintest_campaigns(p, ref: _traces.TraceInfo, thresholds) -> list[Campaign]:
    """The train/test grid of one trace: the non-FCFS primaries at every
    threshold (one :func:`sweep_cell` per half and pair, over ``threshold``
    and ``week``), and the FCFS primaries once (the threshold changes
    nothing for them)."""
    name = f"thresholds-traintest-{campaign_part(ref.name)}"
    base = _base_params(p, ref)
    others = [x for x in p.policies if x != "FCFS"]
    return [
        # one cell per pair and half runs every threshold (threshold_sweep: the runs share what cannot differ)
        Campaign(name, {"half": ["train", "test"], "primary": others, "backfill": list(p.policies)},
                 {**base, "thresholds": [sim.format_duration(t) for t in thresholds]},
                 cell="schedlab.studies.thresholds.cells:sweep_cell", metrics=METRICS),
        Campaign(name, {"half": ["train", "test"], "primary": ["FCFS"],
                        "backfill": list(p.policies)}, {**base, "threshold": None},
                 metrics=METRICS),
    ]


def thesis_n_weeks(p, ref: _traces.TraceInfo) -> int | None:
    if p.thesis_weeks is not None:
        return p.thesis_weeks
    return THESIS_WEEKS.get(ref.name)


def thesis_campaign(p, ref: _traces.TraceInfo, finish=None, policies=None, thresholds=None
                    ) -> Campaign:
    return Campaign(
        f"thresholds-thesis-{campaign_part(ref.name)}",
        {"finish": list(finish or [p.thesis_finish]),
         "threshold": [sim.format_duration(t) for t in (thresholds or p.thesis_thresholds)],
         "primary": list(policies or p.thesis_policies)},
        {"trace": _traces.text(ref), "overrun": p.overrun, "skip_first": 1, "n_weeks": thesis_n_weeks(p, ref),
         "backfill": "same"},
        cell="schedlab.studies.thresholds.cells:thesis_cell", metrics=METRICS)


def thesis_checks(p, ref: _traces.TraceInfo, r, run: Callable[[Campaign], object]) -> None:
    """Fill ``r.checks`` (``r``: the trace's ThesisResult; ``run``: runs a
    campaign, the driver's ``ctx.campaign``): the sums of :data:`CHECK_POLICIES` with the
    crossing judged the other ways and with the jobs that overran their
    request kept (no threshold) and, at the thesis' thresholds, with the
    threshold leading the backfilling order too."""
    checked = [pol for pol in CHECK_POLICIES if pol in p.thesis_policies]
    if not checked:
        return
    if None in r.thresholds:
        k = r.thresholds.index(None)
        r.checks[(p.thesis_finish, None)] = {pol: r.sums[pol][k] for pol in checked}
        others = [f for f in FINISH if f != p.thesis_finish]
        ds = run(thesis_campaign(p, ref, finish=others, policies=checked, thresholds=[None]))
        for f in others:
            r.checks[(f, None)] = {pol: float(np.nansum(ds.mean_bsld.sel(finish=f, threshold="none",
                                                                          primary=pol).values))
                                   for pol in checked}
        if p.overrun == "drop":
            c = thesis_campaign(p, ref, policies=checked, thresholds=[None])
            c.params["overrun"] = "kill"
            ds = run(c)
            r.checks[("overrun_kill", None)] = {
                pol: float(np.nansum(ds.mean_bsld.sel(finish=p.thesis_finish, threshold="none",
                                                      primary=pol).values)) for pol in checked}
    ths = [t for t in r.thresholds if t is not None]
    if ths:
        c = thesis_campaign(p, ref, policies=checked, thresholds=ths)
        c.params["threshold_backfill"] = True
        ds = run(c)
        for t in ths:
            k = r.thresholds.index(t)
            r.checks[(p.thesis_finish, t)] = {pol: r.sums[pol][k] for pol in checked}
            r.checks[("threshold_backfill", t)] = {
                pol: float(np.nansum(ds.mean_bsld.sel(finish=p.thesis_finish, threshold=sim.format_duration(t),
                                                      primary=pol).values)) for pol in checked}


# ---------------------------------------------------------------- table 3 --

def _table3_row(ref: _traces.TraceInfo, overrun: str) -> dict:
    jobs, _, m, swf, _ = _traces.cleaned(ref, overrun=overrun)
    sub = jobs.submit
    year = None
    if swf.unix_start_time is not None and len(jobs):
        year = datetime.fromtimestamp(int(swf.unix_start_time) + int(sub.min()), timezone.utc).year
    months = float(sub.max() - sub.min()) / (365.25 / 12 * 86400) if len(jobs) else float("nan")
    return {"trace": ref.name, "year": year, "m": m, "jobs_in_file": swf.n, "jobs": len(jobs),
            "months": months}
