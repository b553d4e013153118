"""Decisions by the caller (dispatch mode, csrc/dispatch.c; csrc/SEMANTICS.md,
"Decisions by the caller"): when a decision happens, what may be chosen,
the resume, the errors, and the identity -- a caller naming the job P_R
would put first gets EASY-P_R-P_B's schedule, job for job, shortcuts and
block summaries on or off, across clones and policy changes."""
from __future__ import annotations

import numpy as np
import pytest

from schedlab.engine._core import ffi, lib
from schedlab.engine.sim import Jobs, Simulation, simulate
from schedlab.errors import InputError, SimulationError

from test_engine import _bursty_jobs

M = 64
#: Static orders whose first job Python computes exactly: (key per job, the policy name).
KEYS = {"FCFS": lambda j: j.submit, "SPF": lambda j: j.req, "SQF": lambda j: j.procs,
        "LAF": lambda j: -(j.req * j.procs.astype(np.int64)), "LCFS": lambda j: -j.submit}


def first_by(jobs: Jobs, key: np.ndarray, queued: np.ndarray) -> int:
    """The queued job the policy of ``key`` puts first (ties: submit time, id, input position)."""
    return int(queued[np.lexsort((queued, jobs.id[queued], jobs.submit[queued], key[queued]))[0]])


def play(s: Simulation, choose, until=None) -> int:
    """Run ``s`` deciding with ``choose(queued)`` until it stops without a decision; the decisions taken."""
    n = 0
    s.run(until)
    while s.deciding:
        s.decide(choose(s.queued()), until)
        n += 1
    return n


def test_a_decision_starts_the_job_then_the_next_follows_in_the_same_pass():
    # m = 5: job 0 (2 procs) runs from 0 to 10; at t=1 jobs 1 (2 procs), 2 (3), 3 (1) arrive.
    jobs = Jobs(submit=[0, 1, 1, 1], run=[10, 20, 5, 20], req=[10, 20, 5, 20], procs=[2, 2, 3, 1])
    s = Simulation(jobs, 5, "EASY-FCFS-FCFS").set_dispatch(True)
    assert s.dispatch and not s.deciding
    s.run()
    assert s.deciding and s.state["now"] == 0 and s.queued().tolist() == [0]
    s.decide(0, until=0)            # starts at 0; nothing left queued: the pass ends, the run stops at 0
    assert not s.deciding and s.start_times[0] == 0 and s.state["now"] == 0
    s.run()
    assert s.deciding and s.state["now"] == 1 and s.queued().tolist() == [1, 2, 3]
    assert s.queued(2).tolist() == [1, 2] and s.queued(0).tolist() == []
    s.decide(3)                     # fits (1 <= 3 free): starts; job 1 still fits -> a decision at t=1 again
    assert s.deciding and s.state["now"] == 1 and s.start_times[3] == 1
    assert s.queued().tolist() == [1, 2]
    s.decide(2, until=1)            # 3 procs do not fit in 2: job 2 is the head (shadow 10, extra 1)
    # job 1 (2 procs, ends at 21 > 10, 2 > extra) is not backfilled
    assert not s.deciding and s.start_times[1] == -1 and s.start_times[2] == -1
    play(s, lambda q: int(q[0]))
    assert s.finished
    want = simulate(jobs, 5, "EASY-FCFS-FCFS")
    assert want.start[1] == 1 and s.start_times[1] > 1     # EASY-FCFS starts job 1 first at t=1


def test_a_non_fitting_choice_is_the_head_and_backfilling_goes_on():
    # m = 4: job 0 (3 procs, until 100) runs; at t=1: job 1 (4 procs), job 2 (1 proc, 50 s).
    jobs = Jobs(submit=[0, 1, 1], run=[100, 10, 50], req=[100, 10, 50], procs=[3, 4, 1])
    s = Simulation(jobs, 4, "EASY-FCFS-FCFS").set_dispatch(True)
    play(s, lambda q: int(q[0]), until=0)
    s.run()
    assert s.deciding and s.queued().tolist() == [1, 2]
    s.decide(1, until=1)                 # the head: reserved at 100; job 2 ends by then: backfilled at 1
    out = s.schedule
    assert out.start[2] == 1 and out.backfilled[2] and not out.backfilled[0] and out.start[1] == -1


def test_a_pass_where_nothing_fits_asks_nothing():
    jobs = Jobs(submit=[0, 1, 2, 3], run=[100, 10, 10, 10], req=[100, 10, 10, 10], procs=[4, 2, 2, 2])
    s = Simulation(jobs, 4, "EASY-FCFS-FCFS").set_dispatch(True)
    times = []
    s.run()
    while s.deciding:
        times.append(s.state["now"])
        s.decide(int(s.queued()[0]))
    assert times == [0, 100, 100, 110]   # not at 1, 2, 3: nothing fits while job 0 runs
    assert s.schedule.start.tolist() == [0, 100, 100, 110]


def test_errors_name_what_went_wrong_and_change_nothing():
    jobs = Jobs(submit=[0, 0, 0, 20, 30], run=[10] * 5, req=[10] * 5, procs=[1] * 5)
    s = Simulation(jobs, 3, "EASY-FCFS-FCFS").set_dispatch(True)
    with pytest.raises(SimulationError, match="no decision is pending") as e:
        s.decide(0)
    assert e.value.code == lib.SL_ESTATE
    s.run()
    assert s.deciding and s.queued().tolist() == [0, 1, 2]
    with pytest.raises(SimulationError, match=r"job 4 \(index 3\) is not submitted yet, not queued") as e:
        s.decide(3)
    assert e.value.code == lib.SL_EINVAL
    with pytest.raises(InputError, match=r"decide: job index 7 outside 0\.\.4"):
        s.decide(7)
    with pytest.raises(InputError, match="decide: job must be a whole number"):
        s.decide("0")
    with pytest.raises(SimulationError, match="a decision is pending"):
        s.set_policy("EASY-SPF-SPF")
    with pytest.raises(SimulationError, match="a decision is pending"):
        s.set_dispatch(False)
    assert lib.sl_sim_decide(s._handle, -1) == lib.SL_EINVAL       # the core checks the index too
    assert ffi.string(lib.sl_sim_error(s._handle)).decode() == "job index -1 outside 0..4"
    s.decide(0)
    assert s.deciding                                               # two queued jobs still fit
    with pytest.raises(SimulationError, match=r"job 1 \(index 0\) is running, not queued"):
        s.decide(0)
    assert s.deciding and s.queued().tolist() == [1, 2]            # the refused choice left it pending
    s.decide(1)
    s.decide(2)                                                     # the machine is full: on to t=20
    assert s.deciding and s.state["now"] == 20 and s.queued().tolist() == [3]
    with pytest.raises(SimulationError, match=r"job 1 \(index 0\) is done, not queued"):
        s.decide(0)
    play(s, lambda q: int(q[0]))
    assert s.finished and s.schedule.start.tolist() == [0, 0, 0, 20, 30]
    with pytest.raises(SimulationError, match="no decision is pending"):
        s.decide(4)
    with pytest.raises(InputError, match="True or False"):
        s.set_dispatch(1)


def test_thresholds_and_partitions_are_refused_in_dispatch_mode():
    jobs = Jobs(submit=[0, 1], run=[10, 10], req=[10, 10], procs=[1, 1])
    with pytest.raises(SimulationError, match="takes no threshold"):
        Simulation(jobs, 2, "EASY-FCFS-FCFS", threshold="1h").set_dispatch(True)
    s = Simulation(jobs, 2, "EASY-FCFS-FCFS").set_dispatch(True)
    with pytest.raises(SimulationError, match="takes no threshold"):
        s.set_policy("EASY-SPF-SPF", threshold="2h")
    assert s.policy.threshold is None
    with pytest.raises(SimulationError, match="not multiple-queue backfilling"):
        s.set_partitions(2, [60])
    with pytest.raises(SimulationError, match="not multiple-queue backfilling"):
        Simulation(jobs, 2, "EASY-FCFS-FCFS", partitions=1).set_dispatch(True)
    s.set_dispatch(False).set_partitions(1)                              # off: fine again
    Simulation(jobs, 2, "EASY-FCFS-FCFS").set_dispatch(True).set_dispatch(False).set_policy("EASY-SPF-SPF",
                                                                                          threshold="2h")


def test_mode_off_is_the_plain_engine():
    jobs = _bursty_jobs(3)
    s = Simulation(jobs, M, "EASY-SPF-FCFS").set_dispatch(True).set_dispatch(False)
    s.run()
    want = simulate(jobs, M, "EASY-SPF-FCFS")
    assert np.array_equal(s.schedule.start, want.start) and np.array_equal(s.schedule.flags, want.flags)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("P,B", [("FCFS", "FCFS"), ("SPF", "SPF"), ("SPF", "FCFS"), ("SQF", "SAF"),
                                 ("LAF", "SEXP"), ("LCFS", "WFP")])
@pytest.mark.parametrize("debug", ["default", "no-shortcuts", "tree", "tournament"])
def test_naming_the_first_job_of_p_is_easy_p_b(seed, P, B, debug):
    """The caller names the queued job P puts first: EASY-P-B, job for job
    (P_R of the dispatching simulation is B: it decides nothing; a
    time-varying B kept as a tournament, tour.c, when forced)."""
    jobs = _bursty_jobs(seed)
    key = KEYS[P](jobs)
    old_s, old_t = lib.sl_debug_shortcuts(debug != "no-shortcuts"), lib.sl_debug_tree_min(0 if debug == "tree" else 1024)
    old_tour = lib.sl_debug_tour(2 if debug == "tournament" else 1)
    try:
        want = simulate(jobs, M, f"EASY-{P}-{B}")
        s = Simulation(jobs, M, f"EASY-{B}-{B}").set_dispatch(True)
        n = play(s, lambda q: first_by(jobs, key, q))
    finally:
        lib.sl_debug_shortcuts(old_s)
        lib.sl_debug_tree_min(old_t)
        lib.sl_debug_tour(old_tour)
    got = s.schedule
    assert n >= len(jobs)                    # every start of step 2 was a decision
    assert np.array_equal(got.start, want.start)
    assert np.array_equal(got.end, want.end) and np.array_equal(got.flags, want.flags)


def test_the_second_best_choice_changes_the_schedule():
    """The identity above can fail: naming the second job of P's order when there is one."""
    jobs = _bursty_jobs(0)
    key = KEYS["SPF"](jobs)

    def second(q):
        if q.size < 2:
            return int(q[0])
        order = q[np.lexsort((q, jobs.id[q], jobs.submit[q], key[q]))]
        return int(order[1])

    s = Simulation(jobs, M, "EASY-SPF-SPF").set_dispatch(True)
    play(s, second)
    assert s.finished
    assert not np.array_equal(s.schedule.start, simulate(jobs, M, "EASY-SPF-SPF").start)


def test_resume_in_steps_with_clones_and_policy_changes():
    """Stopping at times, cloning at a pending decision, changing P_B between
    passes: the clone and the original continue the same pass alike, and the
    whole run is the one-shot run's."""
    jobs = _bursty_jobs(2)
    key = KEYS["SPF"](jobs)
    choose = lambda q: first_by(jobs, key, q)  # noqa: E731
    whole = Simulation(jobs, M, "EASY-FCFS-FCFS").set_dispatch(True)
    play(whole, choose)
    s = Simulation(jobs, M, "EASY-FCFS-FCFS").set_dispatch(True)
    cloned = 0
    for t in np.linspace(0, int(jobs.submit[-1]), 7).astype(np.int64)[1:]:
        play(s, choose, until=int(t))
        assert not s.deciding and s.state["now"] <= t
        s.run()                              # to the next decision (or the end)
        if s.deciding and cloned < 2:
            with s.clone() as c:
                assert c.deciding and c.queued().tolist() == s.queued().tolist()
                play(c, choose)
                rest = c.schedule
            cloned += 1
            play(s, choose)
            assert np.array_equal(s.schedule.start, rest.start)
            break
    assert cloned == 1
    assert np.array_equal(s.schedule.start, whole.schedule.start)
    # P_B changed between passes: the dispatching run is EASY-SPF-<B> run in the same steps
    a = Simulation(jobs, M, "EASY-FCFS-FCFS").set_dispatch(True)
    b = Simulation(jobs, M, "EASY-SPF-FCFS")
    for k, t in enumerate(np.linspace(0, int(jobs.submit[-1]), 5).astype(np.int64)[1:]):
        bf = ["FCFS", "SAF", "SPF", "LQF"][k]
        a.set_policy(f"EASY-{bf}-{bf}")
        b.set_policy(f"EASY-SPF-{bf}")
        play(a, choose, until=int(t))
        b.run(int(t))
    play(a, choose)
    b.run()
    assert np.array_equal(a.schedule.start, b.schedule.start)


def test_the_c_calls_and_their_status_codes():
    """Through cffi: SL_DECIDE from sl_sim_run (again while pending) and from
    sl_sim_decide while the pass goes on, SL_OK when it ends; sl_sim_queued
    and sl_sim_dispatch report the queue and the pending decision."""
    jobs = Jobs(submit=[0, 0, 0], run=[10, 10, 10], req=[10, 10, 10], procs=[1, 1, 2])
    s = Simulation(jobs, 2, "EASY-FCFS-FCFS")
    h = s._handle
    assert ffi.string(lib.sl_status_message(lib.SL_DECIDE)).decode().startswith("a decision is pending")
    assert lib.sl_sim_set_dispatch(h, 1) == lib.SL_OK
    assert lib.sl_sim_run(h, 2**62) == lib.SL_DECIDE
    assert lib.sl_sim_run(h, 2**62) == lib.SL_DECIDE              # nothing done: the decision is still pending
    on, pending, t = ffi.new("int32_t *"), ffi.new("int32_t *"), ffi.new("int64_t *")
    assert lib.sl_sim_dispatch(h, on, pending, t) == lib.SL_OK and (on[0], pending[0], t[0]) == (1, 1, 0)
    out, cnt = ffi.new("int32_t[3]"), ffi.new("int32_t *")
    assert lib.sl_sim_queued(h, out, 3, cnt) == lib.SL_OK and list(out)[:cnt[0]] == [0, 1, 2]
    assert lib.sl_sim_queued(h, ffi.NULL, 0, cnt) == lib.SL_OK and cnt[0] == 0
    assert lib.sl_sim_queued(h, ffi.NULL, 2, cnt) == lib.SL_EINVAL
    assert lib.sl_sim_decide(h, 1) == lib.SL_DECIDE                # job 1 starts; job 0 still fits
    # 2 procs do not fit in 1: job 2 is the head (shadow 10, extra 0); job 0 ends by 10: backfilled
    assert lib.sl_sim_decide(h, 2) == lib.SL_OK
    assert s.schedule.start.tolist() == [0, 0, -1] and s.schedule.backfilled.tolist() == [True, False, False]
    assert lib.sl_sim_dispatch(h, on, pending, t) == lib.SL_OK and (pending[0], t[0]) == (0, -2**63)
    assert lib.sl_sim_decide(h, 0) == lib.SL_ESTATE
    assert lib.sl_sim_run(h, 2**62) == lib.SL_DECIDE               # at 10: jobs 0 and 1 ended, job 2 queued
    assert lib.sl_sim_decide(h, 0) == lib.SL_EINVAL                # done, not queued
    assert lib.sl_sim_decide(h, 2) == lib.SL_OK
    assert lib.sl_sim_run(h, 2**62) == lib.SL_OK
    assert s.finished and s.schedule.start.tolist() == [0, 0, 10]
    assert lib.sl_sim_set_dispatch(ffi.NULL, 1) == lib.SL_EINVAL and lib.sl_sim_decide(ffi.NULL, 0) == lib.SL_EINVAL
