"""SchedGym's rules (``rules="schedgym"`` / ``"schedgym-nobackfill"``; csrc/schedgym.c,
csrc/SEMANTICS.md "SchedGym's rules"), without SchedGym: hand-built cases whose
schedules under SchedGym's code (RLScheduler's ``HPCSimPickJobs``:
``schedule_curr_sequence_reset``, ``moveforward_for_resources_backfill_greedy``,
``skip_for_resources_greedy``, ``moveforward_for_job``) are derived in each
docstring, the heuristics' expressions against SchedGym's score formulas, the
caller's decisions, and the refusals.  ``tools/oracles/compare_schedgym.py`` runs
SchedGym itself (``make test-oracles``)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from schedlab.engine._core import lib
from schedlab.engine.sim import Jobs, Simulation, simulate
from schedlab.errors import InputError, SimulationError
from schedlab.expr import Expr
from schedlab.gym.schedgym import HEURISTICS, avg_bsld, heuristic_policy


def jobs_of(rows):
    """Jobs from (submit, procs, req, run) rows."""
    r, q, p_req, p = (np.array(c, np.int64) for c in zip(*rows))
    return Jobs(submit=r, run=p, req=p_req, procs=q)


def starts(jobs, m, heuristic="FCFS", rules="schedgym", debug=0):
    old = lib.sl_debug_schedgym(debug)
    try:
        return simulate(jobs, m, heuristic_policy(heuristic), rules=rules).start.tolist()
    finally:
        lib.sl_debug_schedgym(old)


def test_the_pick_is_held_without_backfilling():
    """m = 2, SJF.  Job 0 (2 procs) runs 0..100.  Job 1 (2 procs, 500 s) arrives at
    1 into an empty queue: SchedGym picks it (the only job) and, not fitting, holds
    it (skip_for_resources_greedy) while job 2 (2 procs, 10 s) arrives at 2; job 1
    starts at 100, job 2 at 600.  EASY-SJF re-chooses at 100 and starts job 2 first."""
    jobs = jobs_of([(0, 2, 100, 100), (1, 2, 500, 500), (2, 2, 10, 10)])
    assert starts(jobs, 2, "SJF", "schedgym-nobackfill") == [0, 100, 600]
    assert starts(jobs, 2, "SJF", "schedgym") == [0, 100, 600]
    assert simulate(jobs, 2, "EASY-SPF-FCFS").start.tolist() == [0, 110, 100]


def test_same_second_submissions_join_an_empty_queue_one_at_a_time():
    """m = 2, SJF.  Jobs 1 (500 s) and 2 (10 s), 2 procs each, both submitted at 200
    on an idle machine: moveforward_for_job adds one job to an empty queue and
    returns, so SchedGym decides with job 1 alone (starts at 200), then with job 2
    (held until 700).  EASY-SJF sees both at 200 and starts job 2 first."""
    jobs = jobs_of([(0, 2, 100, 100), (200, 2, 500, 500), (200, 2, 10, 10)])
    assert starts(jobs, 2, "SJF") == [0, 200, 700]
    assert simulate(jobs, 2, "EASY-SPF-FCFS").start.tolist() == [0, 210, 200]


def test_backfilling_takes_only_jobs_that_end_strictly_before_the_earliest_start():
    """m = 4, FCFS.  Job 0 (2 procs, 100 s) runs from 0; job 1 (3 procs) at 1 is held,
    earliest start 100.  Job 2 (1 proc, 1000 s) at 2 would end after 100: EASY
    backfills it on the processor the head does not need (extra = 1), SchedGym
    does not (no extra rule).  Job 3 (1 proc, 97 s) at 3 ends at exactly 100: EASY
    (<=) backfills it, SchedGym (<) does not.  At 100 job 1 starts, then job 2 (the
    next pick, fits), and job 3 (held) when job 1 ends at 110.  Ending by the
    earliest start allowed (<=), job 3 starts at 3 and job 2 at 100, after job 3's
    end at that instant."""
    jobs = jobs_of([(0, 2, 100, 100), (1, 3, 10, 10), (2, 1, 1000, 1000), (3, 1, 97, 97)])
    assert starts(jobs, 4) == [0, 100, 100, 110]
    assert simulate(jobs, 4, "EASY-FCFS-FCFS").start.tolist() == [0, 100, 2, 3]
    assert starts(jobs, 4, debug=4) == [0, 100, 100, 3]
    assert starts(jobs, 4, rules="schedgym-nobackfill") == [0, 100, 100, 110]


def test_the_earliest_start_is_computed_once_when_the_pick_does_not_fit():
    """m = 4, FCFS.  Jobs 0 (2 procs, requests 100 s, runs 10 s) and 1 (1 proc, 50 s)
    start at 0; job 2 (4 procs) at 1 is held: earliest start 100 (job 1's 1 + 1 free
    is 2 < 4 at 50, job 0's 2 more at 100).  Job 3 (3 procs, 60 s) arrives at 5 (no
    room).  Job 0 ends at 10: 3 free, job 2 still waits (job 1 runs to 50), and the
    walk at 10 starts job 3 (10 + 60 < 100, SchedGym's stale earliest start); job 2
    starts when job 3 ends, at 70.  Recomputed at 10 the earliest start would be 50
    and job 3 would wait (EASY-FCFS's schedule)."""
    jobs = jobs_of([(0, 2, 100, 10), (0, 1, 50, 50), (1, 4, 10, 10), (5, 3, 60, 60)])
    assert starts(jobs, 4) == [0, 0, 70, 10]
    assert starts(jobs, 4, debug=8) == [0, 0, 50, 60]
    assert simulate(jobs, 4, "EASY-FCFS-FCFS").start.tolist() == [0, 0, 50, 60]


def test_same_second_jobs_are_walked_in_the_pick_order_of_their_pick():
    """m = 4, SJF.  Job 0 (4 procs) runs 0..100; job 1 (1 proc) at 1 is held and
    starts at 100.  Jobs 2 (9 s) and 3 (8 s), 2 procs each, both submitted at 2, and
    job 4 (4 procs, 5 s) at 3 are then queued: SJF picks job 4, which does not fit
    (3 free; earliest start 110, job 1's end).  SchedGym's walk sorts its queue by
    submit time, stably, after sorting it by SJF: job 3 (8 s) before job 2, so job
    3 starts at 100 (108 < 110) and job 2 no longer fits.  Job 4 starts at 110, job
    2 (held) at 115.  Walking same-second jobs by index would start job 2 instead."""
    jobs = jobs_of([(0, 4, 100, 100), (1, 1, 10, 10), (2, 2, 9, 9), (2, 2, 8, 8), (3, 4, 5, 5)])
    assert starts(jobs, 4, "SJF") == [0, 100, 115, 100, 110]
    assert starts(jobs, 4, "SJF", debug=2) != [0, 100, 115, 100, 110]


def test_jobs_ending_at_one_instant_leave_in_schedgyms_list_order():
    """m = 4, FCFS.  Jobs 0 (1 proc, requests 200 s), 1 (2 procs, requests 150 s), both
    running 100 s, and 2 (1 proc, 1000 s) start at 0; job 3 (3 procs) at 1 is held
    (its earliest start 200: SchedGym sorted its running jobs by estimated end, 1
    then 0).  Job 4 (2 procs, 50 s) arrives at 2.  At 100 jobs 0 and 1 end: SchedGym
    releases the first of its running list sorted by end, stably, so job 1 (2 procs:
    first by estimated end) goes first; the walk then starts job 4 (100 + 50 < 200);
    job 0 follows; job 3 waits for job 4 (150).  In index order job 0 would go first
    (1 proc free: job 4 cannot start) and job 3 would start at 100."""
    jobs = jobs_of([(0, 1, 200, 100), (0, 2, 150, 100), (0, 1, 1000, 1000), (1, 3, 10, 10), (2, 2, 50, 50)])
    assert starts(jobs, 4) == [0, 0, 0, 150, 100]
    assert starts(jobs, 4, debug=1) == [0, 0, 0, 100, 110]


def test_the_heuristics_are_schedgyms_score_formulas():
    """Each expression gives SchedGym's score (HPCSimPickJobs' fcfs_score, sjf_score,
    wfp_score, uni_score, f1_score, a queued job's scheduled_time being -1), computed
    here with libm (Python's math) as numpy computes it without its AVX-512 routines."""
    def schedgym(name, r, q, req):
        w = -1 - r                     # scheduled_time - submit_time of a queued job
        if name == "FCFS":
            return float(r)
        if name == "SJF":
            return float(req)          # (req, submit): the submit is the engine's tie rule
        if name == "WFP3":
            return -math.pow(float(w) / req, 3) * q
        if name == "UNICEP":
            return -(w + 1e-15) / (math.log2(q + 1e-15) * req)
        return math.log10(req if req > 0 else 0.1) * q + 870 * math.log10(r if r > 0 else 0.1)

    rng = np.random.default_rng(5)
    cases = [(0, 1, 1), (0, 1, 60), (7, 3, 1)] + [tuple(int(x) for x in v) for v in
                                                 zip(rng.integers(0, 10**8, 200), rng.integers(1, 1025, 200),
                                                     rng.integers(1, 200000, 200))]
    for name, text in HEURISTICS.items():
        e = Expr(text)
        assert not e.dynamic
        for r, q, req in cases:
            got = e.key({"submit": r, "procs": q, "req": req, "id": 1}, now=10**9, m=1024)
            assert got == schedgym(name, r, q, req), (name, r, q, req)


def test_naming_the_heuristics_first_job_is_the_heuristic():
    """Dispatch mode under SchedGym's rules: the caller's job is held as SchedGym's
    pick; naming the queued job FCFS (SJF) puts first gives the FCFS (SJF) schedule."""
    rng = np.random.default_rng(3)
    n = 300
    r = np.sort(rng.integers(0, 20000, n))
    req = rng.integers(1, 4000, n)
    jobs = Jobs(submit=r, run=np.maximum(1, (req * rng.random(n)).astype(np.int64)), req=req,
                procs=rng.integers(1, 17, n))
    for rules in ("schedgym", "schedgym-nobackfill"):
        for name, key in (("FCFS", lambda q: q[0]), ("SJF", lambda q: q[np.lexsort((q, jobs.req[q]))[0]])):
            s = Simulation(jobs, 16, heuristic_policy(name), rules=rules).set_dispatch(True)
            s.run()
            decisions = 0
            while s.deciding:
                s.decide(int(key(s.queued())))
                decisions += 1
            want = simulate(jobs, 16, heuristic_policy(name), rules=rules)
            assert s.finished and np.array_equal(s.start_times, want.start), (rules, name)
            assert decisions < n if rules == "schedgym" else decisions == n


def test_rules_off_is_easy_and_the_score():
    jobs = jobs_of([(0, 2, 100, 100), (1, 3, 10, 10), (2, 1, 1000, 1000), (3, 1, 97, 97)])
    assert np.array_equal(simulate(jobs, 4, "EASY-FCFS-FCFS", rules="easy").start,
                          simulate(jobs, 4, "EASY-FCFS-FCFS").start)
    s = simulate(jobs, 4, heuristic_policy("FCFS"), rules="schedgym")
    # SchedGym's bsld: max(1, (wait + run) / max(run, 10)), averaged (starts 0, 100, 100, 110)
    assert avg_bsld(s) == pytest.approx((1 + (99 + 10) / 10 + (98 + 1000) / 1000 + (107 + 97) / 97) / 4)


def test_refusals_name_the_rule():
    jobs = jobs_of([(0, 1, 10, 10)])
    with pytest.raises(InputError, match="rules must be one of"):
        Simulation(jobs, 4, "EASY-FCFS-FCFS", rules="schedgymm")
    with pytest.raises(SimulationError, match="SchedGym's rules need the backfilling policy FCFS"):
        Simulation(jobs, 4, "EASY-FCFS-SPF", rules="schedgym")
    with pytest.raises(SimulationError, match="SchedGym's rules need no threshold"):
        Simulation(jobs, 4, "EASY-FCFS-FCFS", threshold=3600, rules="schedgym")
    with pytest.raises(SimulationError, match="SchedGym's rules need a requested, actual or array estimate"):
        Simulation(Jobs(submit=[0], run=[10], req=[10], procs=[1], user=[1]), 4, "EASY-FCFS-FCFS",
                   estimate="easy++", rules="schedgym")
    s = Simulation(jobs, 4, "EASY-FCFS-FCFS", rules="schedgym")
    with pytest.raises(SimulationError, match="not multiple-queue backfilling"):
        s.set_partitions(2)
    with pytest.raises(SimulationError, match="backfilling policy FCFS"):
        s.set_policy("EASY-SPF-SPF")
    s.set_policy(heuristic_policy("F1"))
    assert s.run().finished
    with pytest.raises(InputError, match="unknown SchedGym heuristic"):
        heuristic_policy("SJBF")


def test_job_dispatch_under_schedgyms_rules_and_observation():
    """JobDispatchEnv(rules="schedgym", observation="schedgym"): with at most K queued
    SchedGym shows them in FCFS order, so an agent always naming the first gets the
    FCFS heuristic's schedule; the rows are SchedGym's features (m = 4, K = 3: at 1
    job 1 (3 procs, 10 s) waits behind job 0, the only other job; SchedGym's row
    [wait/12 h, req/longest run, procs/m, 1, user/largest user, 1, 1, fits])."""
    from schedlab.gym.dispatch import JobDispatchEnv
    from schedlab.gym.schedgym import EMPTY_ROW

    jobs = Jobs(submit=[0, 1, 2, 3], run=[100, 10, 1000, 97], req=[100, 10, 1000, 97], procs=[2, 3, 1, 1],
                user=[3, 5, 5, 4])
    env = JobDispatchEnv(jobs, 4, window="log", K=3, rules="schedgym", observation="schedgym")
    obs, _ = env.reset(seed=0)
    assert obs["jobs"].shape == (3, 8) and obs["mask"].tolist() == [1, 0, 0]
    obs, _, _, _, info = env.step(0)    # job 0 starts at 0; job 1 arrives at 1 into the empty queue
    assert info["time"] == 0 and obs["mask"].tolist() == [1, 0, 0]
    top = 1 - 1e-5                      # user 5 of 5: 1, clipped
    assert obs["jobs"][0].tolist() == [0.0, 10 / 1000, 3 / 4, 1.0, top, 1.0, 1.0, 1e-5]
    assert obs["jobs"][1].tolist() == list(EMPTY_ROW)
    while True:
        obs, r, term, _, info = env.step(0)
        if term:
            break
    assert env.schedule.start.tolist() == [0, 100, 100, 110]
    assert r == pytest.approx(-avg_bsld(env.schedule))
    with pytest.raises(InputError, match="backfill: SchedGym's rules backfill in submission order"):
        JobDispatchEnv(jobs, 4, window="log", rules="schedgym", backfill="SPF")


def test_read_swf_loads_jobs_as_schedgym_does(tmp_path):
    """SchedGym's Workloads and Cluster: processors max(allocated, requested),
    requested time -1 -> the runtime, runtime < 0 -> 10, runtime 0 dropped, ids in
    order, MaxProcs / MaxNodes = 4 processors per node, ceil(processors / 4) nodes."""
    from schedlab.gym.schedgym import read_swf

    rest = "-1 1 1 -1 -1 -1 -1 -1 -1"
    lines = ["; MaxNodes: 8", "; MaxProcs: 32",
             f"2 10 0 50 6 -1 -1 4 100 {rest}",      # 6 processors (allocated > requested): 2 nodes
             f"1 5 0 -5 -1 -1 -1 3 -1 {rest}",       # runtime -5 -> 10; requested -1 -> the raw -5: refused
             f"3 20 0 0 4 -1 -1 4 60 {rest}",        # runtime 0: dropped
             f"4 30 0 7 -1 -1 -1 17 -1 {rest}"]      # requested time -1 -> 7; 17 processors: 5 nodes
    path = tmp_path / "log.swf"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="job 1 has a negative requested time"):
        read_swf(path)
    path.write_text("\n".join(lines).replace("1 5 0 -5 -1 -1 -1 3 -1", "1 5 0 -5 -1 -1 -1 3 9") + "\n")
    jobs, m = read_swf(path)
    assert m == 8 and jobs.id.tolist() == [1, 2, 4]
    assert jobs.run.tolist() == [10, 50, 7] and jobs.req.tolist() == [9, 100, 7]
    assert jobs.procs.tolist() == [1, 2, 5] and jobs.columns["processors"].tolist() == [3, 6, 17]
    path.write_text("; MaxNodes: 338 (batch partition; 512 total)\n" + "\n".join(lines[2:]) + "\n")
    with pytest.raises(InputError, match="is not an integer"):
        read_swf(path)
    # the scores read the processors, the machine the nodes
    s = simulate(jobs, m, heuristic_policy("F1", "processors"), rules="schedgym", overrun="run")
    assert s.start.tolist() == [5, 10, 30]


# ------------------------------------------------ a plain re-statement of SchedGym's scheduling --

def schedgym_reference(jobs: Jobs, m: int, heuristic: str, backfill: bool) -> list[int]:
    """SchedGym's scheduling of ``jobs`` under ``heuristic`` written plainly, from
    the description in csrc/SEMANTICS.md ("SchedGym's rules"): Python lists kept
    in order by stable sorts, one event at a time, the pick held.  Slow and
    obvious; the core is tested against it on random small cases."""
    n = len(jobs)
    r, p, req, q = (jobs.submit.tolist(), jobs.run.tolist(), jobs.req.tolist(), jobs.procs.tolist())
    e = Expr(HEURISTICS[heuristic])
    key = [e.key({"submit": r[j], "procs": q[j], "req": req[j], "id": j + 1}, 0, m) for j in range(n)]
    start = [-1] * n
    state = {"t": r[0], "next": 1, "free": m}
    queue, running = [0], []

    def ends(j):
        return start[j] + p[j]

    def event():
        running.sort(key=ends)
        due = ends(running[0]) if running else math.inf
        if state["next"] < n and r[state["next"]] <= due:
            state["t"] = max(state["t"], r[state["next"]])
            queue.append(state["next"])
            state["next"] += 1
        else:
            j = running.pop(0)
            state["t"] = max(state["t"], due)
            state["free"] += q[j]

    def begin(j):
        start[j] = state["t"]
        state["free"] -= q[j]
        running.append(j)
        queue.remove(j)

    while True:
        queue.sort(key=lambda j: key[j])
        pick = queue[0]
        if q[pick] > state["free"] and backfill:
            running.sort(key=lambda j: start[j] + req[j])
            avail, earliest = state["free"], state["t"]
            for j in running:
                avail += q[j]
                earliest = start[j] + req[j]
                if avail >= q[pick]:
                    break
        while q[pick] > state["free"]:
            if backfill:
                queue.sort(key=lambda j: r[j])
                for j in list(queue):
                    if q[j] <= state["free"] and state["t"] + req[j] < earliest:
                        begin(j)
            event()
        begin(pick)
        if not queue:
            if state["next"] >= n:
                return start
            while not queue:
                event()


def random_jobs(rng, n, m):
    """Small jobs with many ties: submit times on a coarse grid, a few runtimes and requests."""
    submit = np.sort(rng.integers(0, 8, n) * rng.choice([1, 5, 20]))
    run = rng.choice([1, 2, 5, 10, 20], n)
    req = run + rng.choice([0, 0, 1, 5, 20], n)
    return Jobs(submit=submit, run=run, req=req, procs=rng.integers(1, m + 1, n))


def test_the_core_is_the_plain_restatement_on_random_cases():
    rng = np.random.default_rng(2026)
    cases = 0
    for _ in range(150):
        m = int(rng.integers(1, 7))
        jobs = random_jobs(rng, int(rng.integers(1, 30)), m)
        for h in HEURISTICS:
            for backfill in (True, False):
                want = schedgym_reference(jobs, m, h, backfill)
                assert starts(jobs, m, h, "schedgym" if backfill else "schedgym-nobackfill") == want, (h, backfill)
                cases += 1
    assert cases == 1500


@pytest.mark.parametrize("debug", [1, 2, 4, 8])
def test_the_random_cases_see_each_detail(debug):
    """Each detail of the rules (sl_debug_schedgym drops it) changes some random case."""
    rng = np.random.default_rng(7)
    for _ in range(3000):
        m = int(rng.integers(1, 7))
        jobs = random_jobs(rng, int(rng.integers(2, 30)), m)
        h = ("FCFS", "SJF", "F1")[int(rng.integers(3))]
        if starts(jobs, m, h, debug=debug) != schedgym_reference(jobs, m, h, True):
            return
    pytest.fail(f"no random case depends on detail {debug}")


def test_stepping_and_clones_give_the_same_schedule():
    """run(until) in steps, and a clone taken at every step (a held pick, its earliest
    start and SchedGym's list orders copied) run to the end, give the one-run schedule."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        m = int(rng.integers(1, 7))
        jobs = random_jobs(rng, int(rng.integers(5, 30)), m)
        for rules in ("schedgym", "schedgym-nobackfill"):
            want = simulate(jobs, m, heuristic_policy("SJF"), rules=rules).start
            s = Simulation(jobs, m, heuristic_policy("SJF"), rules=rules)
            for t in range(0, int(jobs.submit.max()) + 200, 3):
                s.run(t)
                c = s.clone()
                assert np.array_equal(c.run().start_times, want), (rules, t)
                c.close()
            assert np.array_equal(s.run().start_times, want)
