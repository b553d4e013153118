"""Hand-worked schedules, API behaviour and bad-input errors of the C core
(through schedlab.engine.sim).  Each expected schedule is worked out in a comment."""
import numpy as np
import pytest

from schedlab.engine import metrics
from schedlab.errors import InputError, SimulationError
from schedlab.engine.sim import Jobs, Mixed, Policy, Simulation, parse_duration, simulate
from schedlab.engine._core import ffi, lib


def J(rows, **kw):
    """rows: (submit, run, req, procs) tuples; ids 1..n."""
    a = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return Jobs(a[:, 0], a[:, 1], a[:, 2], a[:, 3], **kw)


def test_two_running_jobs_end_at_shadow_both_count_as_extra():
    # m=10. t=0: A and B (4 procs each, est end 10) start; 2 procs free.
    # t=1: C (6 procs) is the head: shadow = 10 where A *and* B end, so
    # 10 procs are available then and extra = 10 - 6 = 4.  D (2 procs, runs
    # to 51, past the shadow) fits now and within extra: backfilled at 1.
    # Counting only A would give extra = 0 and D would wait.
    jobs = J([(0, 10, 10, 4), (0, 10, 10, 4), (1, 20, 100, 6), (1, 50, 50, 2)])
    s = simulate(jobs, 10, "EASY-FCFS-FCFS")
    assert s.start.tolist() == [0, 0, 10, 1]
    assert s.backfilled.tolist() == [False, False, False, True]
    # Control: with 3 procs D exceeds the 2 free processors and waits for
    # A and B to end at 10, where C (6) and D (3) both start.
    jobs = J([(0, 10, 10, 4), (0, 10, 10, 4), (1, 20, 100, 6), (1, 50, 50, 3)])
    s = simulate(jobs, 10)
    assert s.start.tolist() == [0, 0, 10, 10] and not s.backfilled.any()


def test_backfilled_job_ending_exactly_at_shadow_time():
    # m=4. A (2 procs, est end 10) runs; B (4 procs) is the head: shadow 10,
    # extra 0.  C (2 procs, 9 s) arrives at 1 and ends at 10 == shadow:
    # allowed although it needs more than extra.  B starts at 10.
    jobs = J([(0, 10, 10, 2), (0, 5, 5, 4), (1, 9, 9, 2)])
    s = simulate(jobs, 4)
    assert s.start.tolist() == [0, 10, 1]
    assert s.backfilled.tolist() == [False, False, True]
    # One second longer and it would delay B: it waits for B to finish.
    jobs = J([(0, 10, 10, 2), (0, 5, 5, 4), (1, 10, 10, 2)])
    s = simulate(jobs, 4)
    assert s.start.tolist() == [0, 10, 15]
    assert not s.backfilled.any()


def test_runtime_over_request_killed_or_run():
    # m=2. A (2 procs) requests 10 s but would run 20; B (1 proc) is queued
    # at 0; C (1 proc, 3 s) arrives at 12.
    jobs = J([(0, 20, 10, 2), (0, 5, 5, 1), (12, 3, 3, 1)])
    # kill: A is cut at 10 (flag killed); B starts at 10; C fits at 12.
    s = simulate(jobs, 2, overrun="kill")
    assert s.end[0] == 10 and s.killed.tolist() == [True, False, False]
    assert s.start.tolist() == [0, 10, 12]
    # run: A runs to 20.  At 12 its estimated end (10) is past and counts
    # as "now": shadow 12, extra 1, but no processor is free, so C waits.
    s = simulate(jobs, 2, overrun="run")
    assert s.end[0] == 20 and not s.killed.any()
    assert s.start.tolist() == [0, 20, 20]


def test_threshold_moves_old_jobs_ahead_strictly():
    # m=1. J0 runs [0,10); L (50 s) arrives at 1, S (5 s) at 2.  At 10, SPF
    # prefers S; L has waited 9 s.
    jobs = J([(0, 10, 10, 1), (1, 50, 50, 1), (2, 5, 5, 1)])
    assert simulate(jobs, 1, "EASY-SPF-SPF").start.tolist() == [0, 15, 10]
    s = simulate(jobs, 1, "EASY-SPF-SPF", threshold=5)      # 9 > 5: L jumps
    assert s.start.tolist() == [0, 10, 60]
    assert s.forced.tolist() == [False, True, True]         # S then waited 58 s
    s = simulate(jobs, 1, "EASY-SPF-SPF", threshold=9)      # 9 > 9 is false
    assert s.start.tolist() == [0, 15, 10]


def test_zero_runtime_job_frees_its_processors_in_the_same_instant():
    # m=1: A runs 0 s at t=0, ends at 0, and B starts at 0 too.
    jobs = J([(0, 0, 5, 1), (0, 5, 5, 1)])
    s = simulate(jobs, 1)
    assert s.start.tolist() == [0, 0] and s.end.tolist() == [0, 5]


def test_estimate_actual_and_array():
    # m=2. A (2 procs) requests 100 but runs 10.  B (2 procs) head at 0.
    # C (1 proc, 5 s) arrives at 1.  With requested estimates shadow = 100
    # and C (ends 6 <= 100) backfills; it cannot start anyway (0 free).
    jobs = J([(0, 10, 100, 2), (0, 10, 10, 2), (1, 5, 5, 1)])
    for est in ("requested", "actual", np.array([10, 10, 5])):
        s = simulate(jobs, 2, estimate=est)
        assert s.start.tolist() == [0, 10, 20]
    # m=3: one proc free.  Requested: shadow 100, extra 1 -> C backfills at 1.
    # Actual: shadow 10, C ends 6 <= 10 -> backfills too.  Estimate array
    # saying C lasts 50: ends 51 > shadow 10 and extra = 3 - 2 = 1 -> yes.
    jobs = J([(0, 10, 100, 2), (0, 10, 10, 3), (1, 5, 5, 1)])
    assert simulate(jobs, 3, estimate="requested").start.tolist() == [0, 10, 1]
    # With actual estimates the head B needs 3: shadow 10, extra 0; C ends
    # 6 <= 10: backfilled.
    assert simulate(jobs, 3, estimate="actual").start.tolist() == [0, 10, 1]
    # Estimate array: C "lasts" 50 -> ends 51 > 10 and extra 0: no backfill.
    s = simulate(jobs, 3, estimate=np.array([10, 10, 50]))
    assert s.start.tolist() == [0, 10, 20]


def test_every_policy_orders_the_queue():
    # m=1, a blocker then 3 queued jobs differing in every feature.
    #        submit run req procs
    rows = [(0, 10, 10, 1), (1, 4, 4, 1), (2, 8, 2, 1), (3, 1, 6, 1)]
    jobs = J(rows)
    expect = {"FCFS": [1, 2, 3], "LCFS": [3, 2, 1], "SPF": [2, 1, 3], "LPF": [3, 1, 2]}
    for pol, order in expect.items():
        s = simulate(jobs, 1, f"EASY-{pol}-{pol}")
        got = list(np.argsort(s.start[1:], kind="stable") + 1)
        assert got == order, pol


def test_mixed_vertices_and_scale_invariance():
    rng = np.random.default_rng(1)
    n = 60
    sub = np.sort(rng.integers(0, 500, n))
    jobs = Jobs(sub, rng.integers(0, 100, n), rng.integers(1, 120, n), rng.integers(1, 8, n))
    for i, (lo, hi) in enumerate([("SQF", "LQF"), ("SPF", "LPF"), ("FCFS", "LCFS"),
                                  ("SRF", "LRF"), ("SEXP", "LEXP"), ("SAF", "LAF")]):
        w = [0.0] * 6
        w[i] = 1.0
        for sign, pure in ((1, lo), (-1, hi)):
            mixed = Mixed(tuple(sign * x for x in w), scales=(3.0, 7.0, 11.0, 0.5, 2.0, 1e3))
            a = simulate(jobs, 8, Policy(mixed, mixed))
            b = simulate(jobs, 8, f"EASY-{pure}-{pure}")
            assert np.array_equal(a.start, b.start), pure



@pytest.mark.parametrize("mixed", [
    Mixed((1.0, 0.0, -1.0, 0, 0, 1.0), (1e-300, 1, 1e-300, 1, 1, 1e-300)),   # keys inf - inf = NaN
    Mixed((1e300, -1e300, 0.0)),                                           # keys overflow to +-inf
    Mixed((1.0, 0.0, 0.0), (1, 1, 1, 1, 1e-320, 1)),                       # w = 0 over a tiny scale: 0 * inf
])
def test_mixed_keys_that_could_overflow_are_refused(mixed):
    # csrc/SEMANTICS.md: every key finite, else the queue order is undefined.
    jobs = Jobs([0, 0, 5, 9], [10, 20, 5, 7], [10, 20, 5, 7], [2, 1, 2, 1])
    with pytest.raises(SimulationError, match="mixed keys could overflow"):
        simulate(jobs, 2, Policy(mixed, "FCFS"))
    with pytest.raises(SimulationError, match="backfill policy: mixed keys could overflow"):
        simulate(jobs, 2, Policy("FCFS", mixed))
    with Simulation(jobs, 2, "EASY-FCFS-FCFS") as s:
        s.run(until=3)
        with pytest.raises(SimulationError, match="primary policy: mixed keys could overflow"):
            s.set_policy(Policy(mixed, "FCFS"))
        s.run()
        assert np.array_equal(s.start_times, simulate(jobs, 2, "EASY-FCFS-FCFS").start)
    # just inside the bound: large but finite keys are simulated
    ok = Mixed((1.0, 0.0, -1.0, 0, 0, 1.0), (1e-250, 1, 1e-250, 1, 1, 1e-250))
    assert (simulate(jobs, 2, Policy(ok, ok)).start >= 0).all()

def test_stepping_policy_change_and_clone():
    rng = np.random.default_rng(2)
    n = 200
    jobs = Jobs(np.sort(rng.integers(0, 3000, n)), rng.integers(0, 200, n), rng.integers(0, 300, n) + 50,
                rng.integers(1, 16, n))
    full = simulate(jobs, 16, "EASY-SAF-SPF", threshold=300)
    with Simulation(jobs, 16, "EASY-SAF-SPF", threshold=300) as sim:
        for t in range(0, 4000, 37):
            sim.run(t)
        sim.run()
        assert np.array_equal(sim.schedule.start, full.start)
    with Simulation(jobs, 16, "EASY-SAF-SPF", threshold=300) as sim:
        sim.run(1500)
        clone = sim.clone()
        mid = sim.state
        clone.set_policy("EASY-LQF-LPF")
        clone.run()
        assert sim.state == mid            # the clone does not touch the original
        sim.run()
        assert np.array_equal(sim.schedule.start, full.start)
        assert not np.array_equal(clone.schedule.start, full.start)
        clone.close()
        clone.close()                      # idempotent


def test_closed_simulation_refuses_calls():
    sim = Simulation(J([(0, 1, 1, 1)]), 1)
    sim.close()
    with pytest.raises(SimulationError, match="closed"):
        sim.run()


def test_metrics_on_hand_schedule():
    # The schedule of test_backfilled_job_ending_exactly_at_shadow_time:
    # waits 0, 10, 0; durations 10, 5, 9 -> bsld 1, 15/10, max(9/10,1)=1.
    s = simulate(J([(0, 10, 10, 2), (0, 5, 5, 4), (1, 9, 9, 2)]), 4)
    assert metrics.wait(s).tolist() == [0, 10, 0]
    assert np.allclose(metrics.bsld(s), [1, 1.5, 1])
    assert np.allclose(metrics.ppbsld(s), [1, 1, 1])   # 15/(4*10) < 1
    summ = s.summary()
    assert summ["avg_wait"] == pytest.approx(10 / 3) and summ["max_wait"] == 10
    assert summ["backfilled"] == 1
    # area 2*10 + 4*5 + 2*9 = 58 over 4 procs x 15 s
    assert summ["utilisation"] == pytest.approx(58 / 60)


def test_lawson_ratio():
    # m=1, A [0,100) in both.  FCFS: B [100,200), C [200,205).  LCFS:
    # C [100,105), B [105,205).  C ran 5 s but asked 120: ignored.
    jobs = J([(0, 100, 100, 1), (1, 100, 100, 1), (2, 5, 120, 1)])
    a = simulate(jobs, 1, "EASY-FCFS-FCFS")
    b = simulate(jobs, 1, "EASY-LCFS-LCFS")
    assert b.start.tolist() == [0, 105, 100]
    r = metrics.slowdown_ratio(a, b)
    assert np.isnan(r[2])
    s1 = 1 + np.array([0, 99]) / 100
    sm = 1 + np.array([0, 104]) / 100
    assert np.allclose(r[:2], (s1 - sm) / np.minimum(s1, sm))


# ------------------------------------------------------------- bad inputs --

@pytest.mark.parametrize("rows, m, match", [
    ([(5, 1, 1, 1), (0, 1, 1, 1)], 4, "field submit"),
    ([(0, -1, 1, 1)], 4, "field run"),
    ([(0, 1, -1, 1)], 4, "field req"),
    ([(0, 1, 1, 5)], 4, "field procs"),
    ([(0, 1, 1, 0)], 4, "field procs"),
])
def test_bad_jobs_are_refused_with_the_field(rows, m, match):
    with pytest.raises(InputError, match=match):
        simulate(J(rows), m)


def test_bad_job_error_names_file_and_line():
    jobs = J([(0, 1, 1, 1), (0, 1, 1, 9)], source="trace.swf", lines=np.array([12, 13]))
    with pytest.raises(InputError, match=r"trace.swf:13: job 2 \(index 1\): field procs"):
        simulate(jobs, 4)


def test_c_core_validates_on_its_own():
    # Bypass the Python checks: the core must refuse, not crash.
    sub = np.array([5, 0], np.int64); one = np.ones(2, np.int64); q = np.ones(2, np.int32)
    cj = ffi.new("sl_jobs *"); cj.n = 2
    cj.submit = ffi.from_buffer("int64_t[]", sub); cj.run = ffi.from_buffer("int64_t[]", one)
    cj.req = ffi.from_buffer("int64_t[]", one); cj.id = ffi.from_buffer("int64_t[]", one)
    cj.procs = ffi.from_buffer("int32_t[]", q); cj.estimate = ffi.NULL
    cfg = ffi.new("sl_config *"); cfg.m = 1; cfg.threshold = -1
    outs = [np.zeros(2, np.int64), np.zeros(2, np.int64), np.zeros(2, np.uint8)]
    out = ffi.new("sl_out *")
    out.start = ffi.from_buffer("int64_t[]", outs[0]); out.end = ffi.from_buffer("int64_t[]", outs[1])
    out.flags = ffi.from_buffer("uint8_t[]", outs[2])
    err = ffi.new("char[]", 256); ptr = ffi.new("sl_sim **")
    assert lib.sl_sim_new(cj, cfg, out, ptr, err, 256) == lib.SL_EINVAL
    assert b"submit" in ffi.string(err) and ptr[0] == ffi.NULL
    cfg.m = 0
    assert lib.sl_sim_new(cj, cfg, out, ptr, err, 256) == lib.SL_EINVAL
    assert b"machine size" in ffi.string(err)
    cfg.m = 1; sub[0] = 0; cfg.primary.kind = 99
    assert lib.sl_sim_new(cj, cfg, out, ptr, err, 256) == lib.SL_EINVAL
    assert b"unknown kind" in ffi.string(err)


def test_bad_arguments():
    jobs = J([(0, 1, 1, 1)])
    with pytest.raises(InputError, match="unknown queue policy"):
        simulate(jobs, 1, "EASY-FOO-FCFS")
    with pytest.raises(InputError, match="bad policy spec"):
        simulate(jobs, 1, "EASY-SPF-FCFS-LPF")
    with pytest.raises(InputError, match="bad duration"):
        simulate(jobs, 1, threshold="20 hours")
    with pytest.raises(InputError, match="estimate"):
        simulate(jobs, 1, estimate="oracle")
    with pytest.raises(InputError, match="estimate: length"):
        simulate(jobs, 1, estimate=np.array([1, 2]))
    with pytest.raises(InputError, match="negative estimate"):
        simulate(jobs, 1, estimate=np.array([-1]))
    with pytest.raises(InputError, match="overrun"):
        simulate(jobs, 1, overrun="explode")
    with pytest.raises(InputError, match="machine size"):
        simulate(jobs, 0)
    with pytest.raises(InputError, match="3 or 6 finite weights"):
        Mixed((1, 0))
    with pytest.raises(InputError, match="finite weights"):
        Mixed((float("nan"), 0, 0))
    with pytest.raises(InputError, match="positive scales"):
        Mixed((1, 0, 0), scales=(1, 1, 1, 1, 1, -1))
    with pytest.raises(InputError, match="non-integer"):
        Jobs([0.5], [1], [1], [1])
    with pytest.raises(InputError, match="length"):
        Jobs([0, 1], [1], [1, 1], [1, 1])
    with pytest.raises(InputError, match="1-d"):
        Jobs([[0]], [[1]], [[1]], [[1]])


def test_durations_and_policy_specs():
    assert parse_duration("20h") == 72000 and parse_duration("2.31d") == 199584
    assert parse_duration(None) is None and parse_duration("none") is None and parse_duration(90) == 90
    assert str(Policy.parse("EASY-SPF-FCFS", "20h")) == "EASY-SPF-FCFS T=20h"
    assert Policy.parse("SAF") == Policy("SAF", "SAF")
    assert Policy.parse("EASY-EXP-EXP") == Policy("LEXP", "LEXP")
    assert Policy.parse("EASY-MIXED(0,0,1)-FCFS").primary == Mixed((0, 0, 1))


def test_empty_workload():
    s = simulate(Jobs([], [], [], []), 4)
    assert s.start.size == 0 and s.summary()["jobs"] == 0


# ----------------------------------------------------- job classes (thesis ch. 6) --

def test_small_jobs_go_first():
    # m=1, J0 runs [0,10).  At 1, L (large) then S (small) are queued: with
    # classes S starts first at 10 (it runs 5 s), L at 15; FCFS alone: L first.
    jobs = J([(0, 10, 10, 1), (1, 20, 20, 1), (1, 5, 50, 1)])
    assert simulate(jobs, 1).start.tolist() == [0, 10, 30]
    s = simulate(jobs, 1, classes=[0, 0, 1])
    assert s.start.tolist() == [0, 15, 10]


def test_false_small_job_killed_exactly_at_the_divider_and_requeued():
    # divider 10.  S0 (small, runs 25) starts at 0 and is killed at 10; B
    # (small, 3 s) arrived at 5.  At 10 S0 is requeued as *large*, so B starts
    # first [10,13), then S0 runs again in full [13,38).  S1 (small, runs
    # exactly 10 = divider) is not killed.
    jobs = J([(0, 25, 100, 1), (5, 3, 3, 1), (40, 10, 50, 1)])
    s = simulate(jobs, 1, classes=[1, 1, 1], divider=10)
    assert s.start.tolist() == [13, 10, 40] and s.end.tolist() == [38, 13, 50]
    assert s.first_start.tolist() == [0, -1, -1]
    assert s.requeued.tolist() == [True, False, False]
    # Without a divider a false small job runs to completion.
    s = simulate(jobs, 1, classes=[1, 1, 1])
    assert s.start.tolist() == [0, 25, 40] and not s.requeued.any()


def test_over_threshold_large_job_leads_small_jobs_and_starts():
    # Regression: the over-threshold prefix was walked in small-first order,
    # so a large job over the threshold behind a small one that was not was
    # skipped by the primary walk and, here, never started at all.
    jobs = J([(0, 1, 1, 1), (0, 0, 0, 1), (1, 0, 0, 1)])
    s = simulate(jobs, 1, threshold=0, classes=[0, 0, 1])
    assert s.start.tolist() == [0, 1, 1]
    assert s.forced.tolist() == [False, True, False]


def test_running_small_job_is_expected_to_end_by_the_divider():
    # m=2, divider 20.  S (small, 1 proc, asks 100, runs 5) starts at 0; H
    # (2 procs) is the head.  With killing on, S is expected to end by 20, so
    # the shadow time is 20 and C (1 proc, 30 s, arriving at 1) would end past
    # it with extra = 0: no backfill; H starts when S ends at 5, C after H.
    # Without classes the shadow is 100 and C is backfilled at 1.
    jobs = J([(0, 5, 100, 1), (0, 10, 10, 2), (1, 30, 30, 1)])
    s = simulate(jobs, 2, classes=[1, 0, 0], divider=20)
    assert s.start.tolist() == [0, 5, 15] and not s.backfilled.any()
    s = simulate(jobs, 2)
    assert s.start.tolist() == [0, 31, 1] and s.backfilled.tolist() == [False, False, True]


def test_class_errors_and_clone():
    jobs = J([(0, 25, 100, 1), (5, 3, 3, 1)])
    with pytest.raises(InputError, match="classes"):
        simulate(jobs, 1, classes=[1])
    with pytest.raises(InputError, match="classes"):
        simulate(jobs, 1, classes=[2, 0])
    with pytest.raises(InputError, match="divider given without classes"):
        simulate(jobs, 1, divider=10)
    with Simulation(jobs, 1, classes=[1, 1], divider=10) as sim:
        sim.run(10)                  # S0 killed and requeued at 10
        c = sim.clone()
        sim.run()
        c.run()
        assert c.schedule.start.tolist() == sim.schedule.start.tolist() == [13, 10]
        assert c.schedule.first_start.tolist() == [0, -1]
        c.close()


def test_per_job_divider_each_false_small_job_killed_at_its_own():
    # m=2, per-job dividers (the thesis recomputes the divider every week).
    # A (small, runs 30, divider 10) and B (small, runs 30, divider 20) start
    # at 0.  A is killed at 10 exactly and requeued as large: it restarts at
    # once on the freed processor [10, 40).  B is killed at 20 exactly and
    # restarts [20, 50).  C (small, runs exactly its divider 15, arrives at
    # 50) completes [50, 65); D (small, runs 15, divider 14) is killed at 64
    # and reruns [64, 79).
    jobs = J([(0, 30, 100, 1), (0, 30, 100, 1), (50, 15, 100, 1), (50, 15, 100, 1)])
    s = simulate(jobs, 2, classes=[1, 1, 1, 1], divider=[10, 20, 15, 14])
    assert s.first_start.tolist() == [0, 0, -1, 50]
    assert s.start.tolist() == [10, 20, 50, 64] and s.end.tolist() == [40, 50, 65, 79]
    assert s.requeued.tolist() == [True, True, False, True]
    # One divider for every job is the scalar divider, array or not: with 10
    # everywhere C and D are killed at 60 too.
    a = simulate(jobs, 2, classes=[1, 1, 1, 1], divider=np.full(4, 10))
    b = simulate(jobs, 2, classes=[1, 1, 1, 1], divider=10)
    assert a.start.tolist() == b.start.tolist() == [10, 10, 60, 60]
    assert a.first_start.tolist() == b.first_start.tolist() == [0, 0, 50, 50]
    # A clone shares the per-job dividers and ends the same way.
    with Simulation(jobs, 2, classes=[1, 1, 1, 1], divider=[10, 20, 15, 14]) as sim:
        sim.run(15)                  # A killed at 10, B still running
        c = sim.clone()
        assert c.divider.tolist() == [10, 20, 15, 14]
        sim.run()
        c.run()
        assert c.schedule.start.tolist() == sim.schedule.start.tolist() == s.start.tolist()
        assert c.schedule.first_start.tolist() == [0, 0, -1, 50]
        c.close()


def test_running_small_job_is_expected_to_end_by_its_own_divider():
    # As test_running_small_job_is_expected_to_end_by_the_divider, with S's
    # own divider: 20 gives shadow 20 and no backfill; 50 gives shadow 50 and
    # C (1 proc, [1, 31)) ends before it: backfilled at 1.  The dividers of
    # the large jobs H and C play no part.
    jobs = J([(0, 5, 100, 1), (0, 10, 10, 2), (1, 30, 30, 1)])
    s = simulate(jobs, 2, classes=[1, 0, 0], divider=[20, 0, 0])
    assert s.start.tolist() == [0, 5, 15] and not s.backfilled.any()
    s = simulate(jobs, 2, classes=[1, 0, 0], divider=[50, 0, 0])
    assert s.start.tolist() == [0, 31, 1] and s.backfilled.tolist() == [False, False, True]


@pytest.mark.parametrize("divider, match", [
    ([10, -1], r"job 2 \(index 1\): field divider: negative divider -1"),
    ([10, None], r"job 2 \(index 1\): field divider: None is not a whole number"),
    ([10, 2.5], r"job 2 \(index 1\): field divider: 2.5 is not a whole number"),
    ([10, float("nan")], r"job 2 \(index 1\): field divider: nan is not a whole number"),
    ([2**62, 10], r"job 1 \(index 0\): field divider: 4611686018427387904 is too large"),
    ([10], r"divider: expected a duration or 2 values"),
    ([[10, 10]], r"divider: expected a duration or 2 values"),
    ([True, False], r"divider: expected integer seconds"),
    (["10", "10"], r"divider: expected integer seconds"),
])
def test_per_job_divider_errors_name_the_field_and_the_job(divider, match):
    jobs = J([(0, 25, 100, 1), (5, 3, 3, 1)])
    with pytest.raises(InputError, match=match):
        simulate(jobs, 1, classes=[1, 1], divider=divider)
    with pytest.raises(InputError, match="divider given without classes"):
        simulate(jobs, 1, divider=[10, 10])


def test_core_refuses_bad_per_job_divider():
    # The C core checks the array itself (a caller other than schedlab.engine.sim).
    n = 2
    arrs = {k: ffi.new("int64_t[]", v) for k, v in
            (("submit", [0, 5]), ("run", [25, 3]), ("req", [100, 3]), ("id", [7, 8]))}
    procs, cls = ffi.new("int32_t[]", [1, 1]), ffi.new("uint8_t[]", [1, 1])
    div = ffi.new("int64_t[]", [10, 2**62])
    cj = ffi.new("sl_jobs *")
    cj.n = n
    for k, v in arrs.items():
        setattr(cj, k, v)
    cj.procs, cj.cls, cj.divider = procs, cls, div
    cfg = ffi.new("sl_config *")
    cfg.m, cfg.threshold, cfg.divider = 1, -1, -1
    outs = [ffi.new("int64_t[]", n), ffi.new("int64_t[]", n), ffi.new("uint8_t[]", n)]
    out = ffi.new("sl_out *")
    out.start, out.end, out.flags = outs
    err, ptr = ffi.new("char[]", 256), ffi.new("sl_sim **")
    assert lib.sl_sim_new(cj, cfg, out, ptr, err, 256) == lib.SL_EINVAL
    assert ffi.string(err).decode() == "job 8 (index 1): field divider: divider 4611686018427387904 too large"
    cj.cls = ffi.NULL
    assert lib.sl_sim_new(cj, cfg, out, ptr, err, 256) == lib.SL_EINVAL
    assert "per-job divider needs the classes" in ffi.string(err).decode()
    # A negative entry: that job is never killed (job 7 runs its 25 s).
    div[1], cj.cls = -1, cls
    div[0] = -1
    assert lib.sl_sim_new(cj, cfg, out, ptr, err, 256) == lib.SL_OK
    assert lib.sl_sim_run(ptr[0], 2**62) == lib.SL_OK
    assert [outs[0][0], outs[1][0], outs[0][1]] == [0, 25, 25]
    lib.sl_sim_free(ptr[0])


# --------------------------------------------- runtime estimates (gaussier2015) --

def test_easy_plus_plus_predictions_by_hand():
    # m=4, one user A (1) and one user B (2).  Completed runtimes of A before
    # each submission decide the prediction, capped at p~:
    #   j0 A r=0  p=10 p~=100: no history      -> 100 (p~)     ends 10
    #   j1 A r=20 p=30 p~=100: one run (10)    -> 10           ends 50
    #   j2 B r=20 p=5  p~=50 : no history      -> 50
    #   j3 A r=60 p=1  p~=100: 10, 30          -> (30+10)//2 = 20
    #   j4 A r=70 p=1  p~=15 : 30, 1           -> 15 (= p~, mean 15 -> 15)
    #   j5 A r=80 p=1  p~=100: 1, 1            -> 1
    #   j6 B r=80 p=1  p~=100: 5 (one run)     -> 5
    rows = [(0, 10, 100, 1), (20, 30, 100, 1), (20, 5, 50, 1), (60, 1, 100, 1), (70, 1, 15, 1),
            (80, 1, 100, 1), (80, 1, 100, 1)]
    user = [1, 1, 2, 1, 1, 1, 2]
    s = simulate(J(rows, user=np.array(user)), 4, estimate="easy++")
    assert s.predicted.tolist() == [100, 10, 50, 20, 15, 1, 5]
    # A job completing at the very instant of a submission counts (completions
    # are applied first): j1' submitted at 10 sees j0's 10 s.
    rows2 = [(0, 10, 100, 1), (10, 5, 100, 1)]
    s = simulate(J(rows2, user=np.array([7, 7])), 4, estimate="easy++")
    assert s.predicted.tolist() == [100, 10]
    with pytest.raises(InputError, match="users"):
        simulate(J(rows2), 4, estimate="easy++")


class Recorder(__import__("schedlab.engine.sim", fromlist=["Estimator"]).Estimator):
    """A callback estimator that returns fixed values and records calls."""

    def __init__(self, values):
        self.values, self.calls, self.seen = list(values), [], []

    def predict(self, job, now):
        self.calls.append((job, now))
        return self.values[job]

    def observe(self, job, now, runtime):
        self.seen.append((job, now, runtime))


@pytest.mark.parametrize("correction", ["none", "requested", "incremental", "doubling"])
def test_corrections_extend_an_underpredicted_job(correction):
    # m=2.  A (1 proc, predicted 10, asks 10000, runs 3000) starts at 0; H
    # (2 procs) is the head.  At t=100 probe P (1 proc, 50 s, estimate 50)
    # arrives: it is backfilled iff 100 + 50 <= shadow, the (corrected)
    # estimated end of A:
    #   none        -> A expected to end "now" (100): shadow 100, no
    #   requested   -> 10000                       : yes
    #   incremental -> 10+60+300 = 370 > 100       : 150 <= 370, yes
    #   doubling    -> 2 x 100 = 200               : 150 <= 200, yes
    # A second probe Q (1 proc, 300 s) arriving at 150 (after P ended? P
    # runs to 150, Q arrives at 150 when P completes):
    #   requested 10000: 450 <= 10000 yes; incremental: 370 < 450, no;
    #   doubling: at 150 A's estimate 200 still holds: 450 > 200, no.
    rows = [(0, 3000, 10000, 1), (0, 10, 10, 2), (100, 50, 50, 1), (150, 300, 300, 1)]
    est = np.array([10, 10, 50, 300])
    import warnings

    from schedlab.engine.sim import UncorrectedEstimateWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = simulate(J(rows), 2, estimate=est, correction=correction)
    said = [w for w in caught if issubclass(w.category, UncorrectedEstimateWarning)]
    # A alone is predicted below its runtime: said, once, only when nothing corrects it
    assert len(said) == (correction == "none"), [str(w.message) for w in said]
    assert not said or "1 of 4 jobs" in str(said[0].message) and said[0].filename == __file__
    p_backfilled = s.start[2] == 100
    q_backfilled = s.start[3] == 150
    assert p_backfilled == (correction != "none")
    assert q_backfilled == (correction == "requested")
    assert s.start[1] == 3000                       # H starts when A really ends


def test_incremental_correction_walks_the_list():
    # m=2.  A (1 proc) predicted 0 s runs 5000 (asks 100000); H (2 procs) is
    # the head.  At the pass at t, A's estimate is corrected by 60, 300, 900,
    # 1800, 3600 ... s until it ends after t: 60, 360, 1260, 3060, 6660.  A
    # probe (1 proc) arriving at t is backfilled iff it ends by that time.
    for t, end in [(30, 60), (59, 60), (60, 360), (1000, 1260), (3059, 3060), (3060, 6660)]:
        for length, fits in ((end - t, True), (end - t + 1, False)):
            rows = [(0, 5000, 100000, 1), (0, 10, 10, 2), (t, length, length, 1)]
            s = simulate(J(rows), 2, estimate=np.array([0, 10, length]), correction="incremental")
            assert (s.start[2] == t) == fits, (t, end, length, s.start)


def test_exact_callback_estimator_reproduces_the_clairvoyant_schedule():
    rng = np.random.default_rng(5)
    n = 300
    run = rng.integers(0, 500, n)
    jobs = Jobs(np.sort(rng.integers(0, 20000, n)), run, run + rng.integers(0, 2000, n), rng.integers(1, 9, n),
                user=rng.integers(0, 5, n))
    exact = Recorder(jobs.run.tolist())
    a = simulate(jobs, 8, "EASY-FCFS-SJBF", estimate=exact)
    b = simulate(jobs, 8, "EASY-FCFS-SJBF", estimate="actual")
    assert np.array_equal(a.start, b.start) and np.array_equal(a.flags, b.flags)
    assert [c[0] for c in exact.calls] == list(range(n))           # one call per submission, in order
    assert sorted(j for j, _, _ in exact.seen) == list(range(n))    # one per completion
    assert all(now == a.end[j] and rt == a.end[j] - a.start[j] for j, now, rt in exact.seen)


def test_callback_errors_surface_and_clone_gets_its_own_estimator():
    jobs = J([(0, 5, 10, 1), (1, 5, 10, 1), (2, 5, 10, 1)])

    class Boom(Recorder):
        def predict(self, job, now):
            if job == 1:
                raise RuntimeError("model exploded")
            return 5

    with pytest.raises(RuntimeError, match="model exploded"):
        simulate(jobs, 1, estimate=Boom([]))
    with pytest.raises(InputError, match="returned -3"):
        simulate(jobs, 1, estimate=Recorder([1, -3, 1]))
    rec = Recorder([5, 5, 5])
    with Simulation(jobs, 1, estimate=rec) as sim:
        sim.run(1)
        c = sim.clone()
        c.run()
        assert c._estimator is not rec and len(c._estimator.calls) == 3 and len(rec.calls) == 2
        sim.run()
        assert np.array_equal(c.schedule.start, sim.schedule.start)
        c.close()


def test_sjbf_backfills_shortest_estimate_first():
    # m=3.  A (2 procs) runs [0,100); H (3 procs) head, shadow 100, extra 0.
    # Two 1-proc candidates arrive at 1: X asks 90 (est 90), Y asks 50.  Only
    # one processor is free: FCFS backfilling takes X, SJBF takes Y.
    rows = [(0, 100, 100, 2), (0, 10, 10, 3), (1, 90, 90, 1), (1, 50, 50, 1)]
    assert simulate(J(rows), 3, "EASY-FCFS-FCFS").start.tolist()[2:] == [1, 110]
    assert simulate(J(rows), 3, "EASY-FCFS-SJBF").start.tolist()[2:] == [110, 1]


def test_jobs_simulated_counts_each_completed_job_once():
    from schedlab.engine import sim as S
    jobs = Jobs(submit=[0, 0, 5, 9], run=[10, 5, 5, 3], req=[20, 10, 5, 3], procs=[2, 2, 1, 1])
    before = S.jobs_simulated()
    s = S.Simulation(jobs, m=3)
    s.run(until=6)                      # part of the log: only the jobs done by then count
    mid = S.jobs_simulated() - before
    assert mid == s.state["done"] < 4
    twin = s.clone()
    s.run()
    twin.run()                          # a clone re-simulates the rest: counted again
    assert S.jobs_simulated() - before == 4 + (4 - mid)


def _bursty_jobs(seed: int, n: int = 700, m: int = 64) -> Jobs:
    """Jobs arriving in bursts (many at one instant, then quiet spells), of
    1..m processors, some outliving their request, some of zero length."""
    rng = np.random.default_rng(seed)
    gaps = np.where(rng.random(n) < 0.3, 0, rng.exponential(400, n).astype(np.int64))
    submit = np.cumsum(gaps)
    run = rng.integers(0, 6000, n) * (rng.random(n) < 0.97)
    req = np.maximum(run * rng.uniform(0.7, 3.0, n), 0).astype(np.int64)
    procs = np.minimum(rng.choice([1, 1, 2, 4, 8, 16, 32, m], n), m)
    return Jobs(submit, run, req, procs, user=rng.integers(0, 12, n))


_SHORTCUT_CASES = [
    dict(policy="EASY-FCFS-FCFS"),
    dict(policy="EASY-SAF-SAF", threshold="2h"),
    dict(policy="EASY-SPF-FCFS", threshold="1h", threshold_backfill=True),
    dict(policy="EASY-LEXP-LEXP", threshold="3h", threshold_backfill=True),
    dict(policy="EASY-SEXP-SAF"),
    dict(policy="EASY-LQF-SEXP", threshold="2h"),
    dict(policy="EASY-WFP-WFP"),
    dict(policy=Policy(Mixed((0.3, -0.5, 0.2)), Mixed((0.3, -0.5, 0.2)), 200_000)),
    dict(policy=Policy(Mixed((0.1, 0.2, -0.3, 0.1, 0.5, -0.2)), "FCFS", 7200, threshold_backfill=True)),
    dict(policy=Policy(Mixed((1.0, 0.0, -1.0, 0, 0, 1.0), (1e-250, 1, 1e-250, 1, 1, 1e-250)),
                       Mixed((1.0, 0.0, -1.0, 0, 0, 1.0), (1e-250, 1, 1e-250, 1, 1, 1e-250)), 3600)),
    dict(policy="EASY-FCFS-SJBF", estimate="easy++", correction="incremental"),
    dict(policy="EASY-SAF-SAF", estimate="actual", correction="doubling", threshold="1h"),
    dict(policy="EASY-SRF-SRF", correction="requested", overrun="run"),
    dict(policy="EASY-LRF-LRF", classes="half", divider=900, threshold="2h"),
    dict(policy="EASY-SEXP-SEXP", classes="half", divider=600),
]


@pytest.mark.parametrize("kw", _SHORTCUT_CASES, ids=lambda kw: str(kw["policy"]))
@pytest.mark.parametrize("seed", [1, 2])
def test_pass_shortcuts_change_no_output(kw, seed):
    # The pass's shortcuts (easy.c: a pass in which no queued job fits is
    # skipped; one with nothing improved since the last backfills only the
    # jobs submitted since) must give the schedule of the plain pass, job for
    # job -- also run by steps with policy changes and a clone.
    jobs = _bursty_jobs(seed)
    kw = dict(kw)
    if kw.get("classes") == "half":
        kw["classes"] = np.random.default_rng(seed).random(len(jobs)) < 0.5

    def outputs():
        s = simulate(jobs, 64, **kw)
        out = [s.start.tolist(), s.end.tolist(), s.flags.tolist()]
        out += [a.tolist() for a in (s.first_start, s.predicted) if a is not None]
        sim = Simulation(jobs, 64, **kw)
        for k, t in enumerate(np.linspace(0, int(jobs.submit[-1]), 9).astype(np.int64)[1:]):
            sim.run(int(t))
            if k == 3:
                with sim.clone() as c:
                    c.set_policy("EASY-LEXP-FCFS", threshold="1h")
                    c.run()
                    out.append(c.start_times.tolist())
            sim.set_policy(["EASY-SAF-SAF", "EASY-FCFS-SPF", "EASY-SEXP-SEXP", kw["policy"]][k % 4],
                           threshold=[None, "2h"][k % 2], threshold_backfill=bool(k % 3))
        sim.run()
        out.append(sim.start_times.tolist())
        out.append(sim.end_times.tolist())
        sim.close()
        return out

    old = lib.sl_debug_shortcuts(1)
    try:
        with_shortcuts = outputs()
        lib.sl_debug_shortcuts(0)
        without = outputs()
    finally:
        lib.sl_debug_shortcuts(old)
    assert with_shortcuts == without
    assert -1 not in with_shortcuts[0]
