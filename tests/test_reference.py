"""Hand-worked schedules checked against the pure-Python reference simulator.

These tests need nothing but ``tests/reference.py``: they pin down the
reference itself (which ``test_engine_reference.py`` then trusts to check the
C core).  Every expected schedule below was worked out by hand from
``csrc/SEMANTICS.md``; the comments walk through the passes.

Job tuples are ``(r, p, p~, q)``: submit, actual runtime, requested time,
processors; ids default to 1..n and ``J1`` below means the first job.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import PURE_POLICIES, policy_key, reference_simulate


def sim(jobs, m, primary="FCFS", backfill="FCFS", ids=None, **kw):
    r, p, pt, q = (list(col) for col in zip(*jobs))
    return reference_simulate(r, p, pt, q, ids, m, primary, backfill, **kw)


def check(result, start, end, backfilled=None, killed=None, forced=None):
    n = len(start)
    assert result["start"] == start
    assert result["end"] == end
    assert result["backfilled"] == (backfilled or [False] * n)
    assert result["killed"] == (killed or [False] * n)
    assert result["forced"] == (forced or [False] * n)


# ---------------------------------------------------------------- (a) ------

def test_a_fcfs_one_backfill():
    # m = 4.  J1 (q=2, 10 s), J2 (q=4, 5 s), J3 (q=2, runs 3 s, asks 5 s) at 0;
    # J4 (q=2, 20 s) at 1.
    # t=0: FCFS order J1 J2 J3.  J1 starts (free 2); J2 (q=4) does not fit: head.
    #      Reservation: J1 ends at 10 -> 2+2 = 4 >= 4, shadow S=10, extra 0.
    #      Backfill J3: q=2 fits, 0+5 <= 10 -> starts, backfilled; ends at 3.
    # t=1: J4 queued.  Head J2, S=10, extra 0; J4: free 0 -> no.
    # t=3: J3 ends.  Head J2, S=10, extra 0; J4 fits (free 2) but 3+20 > 10
    #      and q=2 > extra 0 -> no.
    # t=10: J1 ends; J2 starts (free 0), J4 is head (S=15).  t=15: J4 starts.
    r = sim([(0, 10, 10, 2), (0, 5, 5, 4), (0, 3, 5, 2), (1, 20, 20, 2)], 4)
    check(r, start=[0, 10, 0, 15], end=[10, 15, 3, 35],
          backfilled=[False, False, True, False])


# ---------------------------------------------------------------- (b) ------

def test_b_extra_counts_every_job_ending_at_shadow():
    # m = 5, all at t=0: A (q=1, 10 s), B (q=1, 10 s), C (q=2, 20 s),
    # H (q=2, 5 s), X (q=1, 30 s).
    # t=0: A, B, C start (4 busy, free 1); H (q=2) is the head.
    #      Running by estimated end: A@10, B@10, C@20.  Walking: free 1 + A = 2
    #      >= 2 -> S = 10.  B also ends at exactly 10, so it is added too:
    #      available at S = 3, extra = 3 - 2 = 1.  (Counting A alone would give
    #      extra = 0 and X could not start.)
    #      Backfill X: q=1 fits (free 1), 0+30 > 10 but q=1 <= extra=1 ->
    #      starts, backfilled, extra 0.
    # t=10: A, B end -> free 2; H starts, ends at 15.
    r = sim([(0, 10, 10, 1), (0, 10, 10, 1), (0, 20, 20, 2), (0, 5, 5, 2), (0, 30, 30, 1)], 5)
    check(r, start=[0, 0, 0, 10, 0], end=[10, 10, 20, 15, 30],
          backfilled=[False, False, False, False, True])


def test_b_shadow_ties_count_every_tied_job_even_later_in_input_order():
    # Same idea, with the tied jobs walked in input order: m = 4, at t=0
    # A (q=2, 10 s), B (q=1, 10 s), H (q=2, 1 s), X (q=1, 50 s), Y (q=1, 50 s).
    # t=0: A, B start (free 1); H (q=2) head.  Walk: 1 + A(2) = 3 >= 2 -> S=10;
    #      B (same end 10) added: available 4, extra = 2.
    #      X: q=1 fits (free 1), 50 > 10, q=1 <= extra 2 -> backfilled (extra 1).
    #      Y: free 0 -> no.
    # t=10: A, B end: free 3 (X busy).  FCFS order H, Y: H starts (free 1), Y
    #      starts (free 0) -- both in step 2, not backfilled.
    r = sim([(0, 10, 10, 2), (0, 10, 10, 1), (0, 1, 1, 2), (0, 50, 50, 1), (0, 50, 50, 1)], 4)
    check(r, start=[0, 0, 10, 0, 10], end=[10, 10, 11, 50, 60],
          backfilled=[False, False, False, True, False])


# ---------------------------------------------------------------- (c) ------

def test_c_backfill_ending_exactly_at_shadow_time():
    # m = 4, all at t=0 in this order: A (q=2, 10 s), H (q=4, 5 s),
    # Y (q=2, 11 s), X (q=2, 10 s).
    # t=0: A starts (free 2); H (q=4) head.  Walk: 2 + A(2) = 4 -> S=10,
    #      available 4, extra 0.
    #      Y: fits, but 0+11 > 10 and q=2 > extra 0 -> no.
    #      X: fits, 0+10 <= 10 -> starts (backfilled) although q=2 > extra=0;
    #      extra stays 0.
    # t=10: A and X end (free 4).  FCFS order H, Y: H starts (free 0), Y head.
    #      S = 15 (H), extra = 2.
    # t=15: Y starts, ends at 26.
    r = sim([(0, 10, 10, 2), (0, 5, 5, 4), (0, 11, 11, 2), (0, 10, 10, 2)], 4)
    check(r, start=[0, 10, 15, 0], end=[10, 15, 26, 10],
          backfilled=[False, False, False, True])


# ---------------------------------------------------------------- (d) ------

JOBS_D = [(0, 10, 5, 2), (0, 3, 3, 3), (7, 0, 0, 1)]
# m = 3.  A (q=2) runs 10 s but asks 5 s; B (q=3, 3 s); C (q=1) at t=7, 0 s.


def test_d_overrun_kill():
    # A is killed at its request: d = min(10, 5) = 5.
    # t=0: A starts (free 1); B (q=3) head, S = 5 (A's estimated end), extra 0.
    # t=5: A ends (killed); B starts, ends at 8.
    # t=7: C queued; B busy (free 0) -> C is the head, S = 8.
    # t=8: B ends; C starts and ends at 8 (another event, another pass at 8).
    r = sim(JOBS_D, 3, overrun="kill")
    check(r, start=[0, 5, 8], end=[5, 8, 8], killed=[True, False, False])


def test_d_overrun_run():
    # A runs its full 10 s, past its estimated end 5.
    # t=0: as above, B head with S=5.
    # t=7: C queued.  Head B; A's estimated end 5 lies in the past, so it counts
    #      as "now": S = 7, extra = 3 - 3 = 0.  C: q=1 fits (free 1) and
    #      7 + 0 <= 7 -> backfilled, starts and ends at 7.  (Without the
    #      clamping, S would be 5 and C would not start.)
    # t=10: A ends; B starts, ends at 13.
    r = sim(JOBS_D, 3, overrun="run")
    check(r, start=[0, 10, 7], end=[10, 13, 7], backfilled=[False, False, True])


def test_d_overrun_actual_estimate():
    # Clairvoyant estimate e = d: with overrun="run", A's estimate is 10.
    # t=0: A starts; B head with S = 10, extra 0.
    # t=7: C: 7 + 0 <= 10 -> backfilled at 7.  t=10: B starts.
    r = sim(JOBS_D, 3, overrun="run", estimate="actual")
    check(r, start=[0, 10, 7], end=[10, 13, 7], backfilled=[False, False, True])
    # With kill, e = d = 5 as with "requested": same schedule as above.
    r = sim(JOBS_D, 3, overrun="kill", estimate="actual")
    check(r, start=[0, 5, 8], end=[5, 8, 8], killed=[True, False, False])


# ---------------------------------------------------------------- (e) ------

JOBS_E = [(0, 20, 20, 1), (1, 15, 15, 1), (5, 5, 5, 1), (12, 5, 5, 1)]
# m = 1.  A (20 s) at 0, B (15 s) at 1, C (5 s) at 5, D (5 s) at 12.


def test_e_without_threshold_spf():
    # t=20: A ends.  SPF order: C (5, r=5), D (5, r=12; tie on p~ broken by
    #       submit time), B (15).  C starts; D head.
    # t=25: D starts.  t=30: B starts, ends at 45.
    r = sim(JOBS_E, 1, "SPF", "SPF")
    check(r, start=[0, 30, 20, 25], end=[20, 45, 25, 30])


def test_e_threshold_old_job_jumps_ahead():
    # Threshold T = 10.
    # t=20: A ends.  Waits: B 19, C 15, D 8.  B and C wait more than T: they
    #       lead in FCFS order (B, C), then D by SPF.  B starts (forced: waited
    #       19 > 10); C is the head, S = 35, extra 0; D does not fit.
    # t=35: waits C 30, D 23, both over T: FCFS, C starts (forced).
    # t=40: D starts (wait 28 > 10: forced).
    r = sim(JOBS_E, 1, "SPF", "SPF", threshold=10)
    check(r, start=[0, 20, 35, 40], end=[20, 35, 40, 45],
          forced=[False, True, True, True])


def test_e_threshold_is_strict():
    # T = 19: at t=20 B has waited 19, not strictly more: SPF order as without
    # threshold: C starts.  At t=25 B waited 24 > 19 and leads: B starts
    # (forced), D then waits 13 <= 19.  t=40: D starts (waited 28 > 19: forced).
    r = sim(JOBS_E, 1, "SPF", "SPF", threshold=19)
    check(r, start=[0, 25, 20, 40], end=[20, 40, 25, 45],
          forced=[False, True, False, True])


def test_e_threshold_backfill_still_needs_the_backfill_condition():
    # m = 2, FCFS primary, SPF backfill, T = 2.
    # A (q=1, 10 s) at 0; H (q=2, 1 s) at 1; X (q=1, runs 4, asks 9) at 2;
    # Y (q=1, 3 s) at 5.
    # t=0: A starts.  t=1: H (q=2) head (free 1), S = 10, extra 0.
    # t=2: X: 2+9 = 11 > 10 and q=1 > extra 0 -> not backfilled.
    # t=5: waits H 4, X 3, Y 0.  Primary: H, X (over T, FCFS), then Y.  H head,
    #      S = 10, extra 0.
    #   * threshold_backfill off: P_B = SPF: Y (3) before X (9).  Y: 5+3 <= 10
    #     -> backfilled at 5 (not forced: wait 0).  X: free 0.
    #   * threshold_backfill on: X (over T) leads P_B, but 5+9 > 10 and
    #     q=1 > extra 0 -> no; then Y: backfilled as above.
    # Both: t=8: Y ends; head H; X: 8+9 > 10 -> no.  t=10: A ends; H starts
    # (forced, wait 9); X head, S = 11.  t=11: X starts (forced, wait 9),
    # runs 4 s -> 15.
    jobs = [(0, 10, 10, 1), (1, 1, 1, 2), (2, 4, 9, 1), (5, 3, 3, 1)]
    for tb in (False, True):
        r = sim(jobs, 2, "FCFS", "SPF", threshold=2, threshold_backfill=tb)
        check(r, start=[0, 10, 11, 5], end=[10, 11, 15, 8],
              backfilled=[False, False, False, True], forced=[False, True, True, False])


def test_e_threshold_backfill_changes_backfill_order():
    # m = 2, FCFS primary, SPF backfill, T = 2.
    # A (q=1, 10 s) at 0; B (q=1, 4 s) at 1; H (q=2, 1 s) at 1;
    # X (q=1, 5 s) at 2; Y (q=1, 1 s) at 5.
    # t=0: A starts.  t=1: B starts (free 0); H head.  Walk B@5 (avail 1),
    #      A@10 (avail 2) -> S = 10, extra 0.
    # t=2: X queued, free 0.
    # t=5: B ends (free 1); Y queued.  Waits: H 4, X 3, Y 0.  Primary order:
    #      H, X (over T=2, FCFS), Y.  H does not fit: head, S = 10, extra 0.
    #   * off: P_B = SPF: Y (1 s) then X (5 s).  Y: 5+1 <= 10 -> backfilled.
    #     X: free 0.  t=6: Y ends; head H; X: 6+5 > 10 -> no.  t=10: A ends,
    #     H starts (forced, wait 9).  X head, S=11.  t=11: X starts (forced,
    #     wait 9), ends 16.
    #   * on: X (over T) leads P_B: 5+5 <= 10 -> backfilled (and forced: wait 3 > 2).
    #     Y: free 0.  t=10: A and X end; H starts (forced); Y head (wait 5 > 2).
    #     t=11: Y starts (forced, wait 6), ends 12.
    jobs = [(0, 10, 10, 1), (1, 4, 4, 1), (1, 1, 1, 2), (2, 5, 5, 1), (5, 1, 1, 1)]
    r_off = sim(jobs, 2, "FCFS", "SPF", threshold=2)
    check(r_off, start=[0, 1, 10, 11, 5], end=[10, 5, 11, 16, 6],
          backfilled=[False, False, False, False, True],
          forced=[False, False, True, True, False])
    r_on = sim(jobs, 2, "FCFS", "SPF", threshold=2, threshold_backfill=True)
    check(r_on, start=[0, 1, 10, 5, 11], end=[10, 5, 11, 10, 12],
          backfilled=[False, False, False, True, False],
          forced=[False, False, True, True, True])


# ---------------------------------------------------------------- (f) ------

def test_f_zero_runtime_jobs_chain_passes_at_one_time():
    # m = 2, all at t=0: A (q=2, 0 s), B (q=2, 0 s), C (q=1, 4 s), D (q=2, 0 s).
    # t=0 pass 1: A starts (free 0); B head, S = 0 (A's estimated end), extra 0;
    #             C, D do not fit.
    # A completes at 0: new event at 0, pass 2: B starts; C head (S=0, extra 1);
    #             D: free 0.
    # B completes at 0, pass 3: C starts (free 1); D (q=2) head, S = 4, extra 0.
    # t=4: C ends; D starts and ends at 4.
    r = sim([(0, 0, 0, 2), (0, 0, 0, 2), (0, 4, 4, 1), (0, 0, 0, 2)], 2)
    check(r, start=[0, 0, 0, 4], end=[0, 0, 4, 4])


def test_f_zero_runtime_backfill():
    # m = 2: A (q=1, 10 s), H (q=2, 1 s), Z (q=1, 0 s) all at t=0.
    # t=0: A starts; H head, S=10, extra 0.  Z: q=1 fits, 0+0 <= 10 ->
    #      backfilled, starts and ends at 0.  Its completion is an event at 0:
    #      another pass, H still does not fit.
    # t=10: H starts, ends 11.
    r = sim([(0, 10, 10, 1), (0, 1, 1, 2), (0, 0, 0, 1)], 2)
    check(r, start=[0, 10, 0], end=[10, 11, 0], backfilled=[False, False, True])


def test_f_zero_request_with_positive_runtime_is_killed_at_start():
    # p~ = 0 < p = 7 with kill: d = 0, the job ends when it starts, flagged killed.
    # m = 1: A (3 s) at 0, K (runs 7, asks 0) at 1.
    # t=0: A starts.  t=1: K head (S = 3).  t=3: K starts and ends at 3.
    r = sim([(0, 3, 3, 1), (1, 7, 0, 1)], 1)
    check(r, start=[0, 3], end=[3, 3], killed=[False, True])
    # With overrun="run" it runs its 7 s.
    r = sim([(0, 3, 3, 1), (1, 7, 0, 1)], 1, overrun="run")
    check(r, start=[0, 3], end=[3, 10])


# ------------------------------------------------------- more hand cases ---

def test_ties_by_submit_then_id_then_input_order():
    # m = 1, SQF: all q=1 -> keys tie; order by submit, then id, then input order.
    # Ids (7, 3, 3) at t=0: the id-3 jobs go first in input order (index 1,
    # then 2), then id 7.  Each runs 2 s.
    r = sim([(0, 2, 2, 1), (0, 2, 2, 1), (0, 2, 2, 1)], 1, "SQF", "SQF", ids=[7, 3, 3])
    check(r, start=[4, 0, 2], end=[6, 2, 4])
    # LCFS ties on the key -r as well: same order.
    r = sim([(0, 2, 2, 1), (0, 2, 2, 1), (0, 2, 2, 1)], 1, "LCFS", "LCFS", ids=[7, 3, 3])
    check(r, start=[4, 0, 2], end=[6, 2, 4])


def test_per_job_estimates():
    # Per-job estimates: m = 3, A (q=1, runs 10, est 4), B (q=2, runs 2, est 6),
    # H (q=3, 1 s), X (q=1, 3 s, est 3) -- all at 0, FCFS.
    # t=0: A, B start (free 0); H head.  Walk by estimated end: A@4 (avail 1),
    #      B@6 (avail 3) -> S=6, extra 0.  X: free 0.
    # t=2: B ends (free 2).  Head H; walk: free 2 + A(1) = 3 >= 3 -> S = 4
    #      (A's estimated end), extra 0.  X: fits, 2+3 = 5 > 4 and
    #      q=1 > 0 -> no.
    # t=10: A ends.  H starts (10..11); X head, S = 11.  t=11: X starts, ends 14.
    r = sim([(0, 10, 10, 1), (0, 2, 2, 2), (0, 1, 1, 3), (0, 3, 3, 1)], 3,
            estimate=[4, 6, 1, 3])
    check(r, start=[0, 0, 10, 11], end=[10, 2, 11, 14])
    # With X's estimate 2 instead: at t=2, 2+2 <= 4 -> backfilled, ends at 5.
    r = sim([(0, 10, 10, 1), (0, 2, 2, 2), (0, 1, 1, 3), (0, 3, 3, 1)], 3,
            estimate=[4, 6, 1, 2])
    check(r, start=[0, 0, 10, 2], end=[10, 2, 11, 5], backfilled=[False, False, False, True])


def test_estimate_in_the_past_is_taken_as_now_for_walk():
    # m = 2: A (q=1, runs 10, est 1), B (q=1, runs 6, est 6), H (q=2, 1 s),
    # X (q=1, 2 s, est 0), all at 0.  Overrun does not matter: estimate array.
    # t=0: A, B start; H head; walk A@1 (avail 1), B@6 (avail 2) -> S = 6, extra 0.
    #      X: free 0.
    # t=6: B ends (free 1).  Head H.  A's estimated end 1 is in the past -> 6:
    #      S = 6, extra = 0.  X: 6+0 <= 6 -> backfilled; runs 2 s (6..8).
    # t=8: X ends.  t=10: A ends, H starts (10..11).
    r = sim([(0, 10, 10, 1), (0, 6, 6, 1), (0, 1, 1, 2), (0, 2, 2, 1)], 2,
            estimate=[1, 6, 1, 0])
    check(r, start=[0, 0, 10, 6], end=[10, 6, 11, 8], backfilled=[False, False, False, True])


def test_policy_change_applies_after_its_time():
    # m = 1: A (10 s) at 0; B (8 s) at 1; C (2 s) at 2.  FCFS, switched to SPF
    # after t=5 (a run until 5 then set_policy).
    # t=10: the pass uses SPF: C (2 s) before B: C 10..12, B 12..20.
    jobs = [(0, 10, 10, 1), (1, 8, 8, 1), (2, 2, 2, 1)]
    r = sim(jobs, 1, policy_changes=[(5, "SPF", "SPF", None, None, None)])
    check(r, start=[0, 12, 10], end=[10, 20, 12])
    # A change "at" 10 applies to passes strictly after 10: the pass at 10 is FCFS.
    # t=10: B starts (FCFS); t=18: SPF, only C left: 18..20.
    r = sim(jobs, 1, policy_changes=[(10, "SPF", "SPF", None, None, None)])
    check(r, start=[0, 10, 18], end=[10, 18, 20])
    # Switching back and forth: SPF after 5, FCFS again after 11.
    r = sim(jobs, 1, policy_changes=[(5, "SPF", "SPF", None, None, None),
                                     (11, "FCFS", "FCFS", None, None, None)])
    check(r, start=[0, 12, 10], end=[10, 20, 12])


def test_wfp_and_sexp_keys():
    # WFP: -((wait/p~')^3 * q); SEXP: (wait + p~')/p~' with p~' = max(p~, 1).
    assert policy_key("WFP", None, 10, 0, 5, 2, 0) == -((2.0 * 2.0 * 2.0) * 2.0)
    assert policy_key("WFP", None, 10, 0, 0, 1, 0) == -1000.0      # p~' = 1
    assert policy_key("SEXP", None, 10, 4, 3, 7, 0) == 9 / 3
    assert policy_key("LEXP", None, 10, 4, 0, 7, 0) == -7.0
    assert policy_key("SRF", None, 0, 0, 3, 4, 0) == 0.75
    assert policy_key("LAF", None, 0, 0, 3, 4, 0) == -12.0
    # MIXED: sum of w_i * (f_i / s_i), f = (q, p~, r - r0, p~/q, x, p~*q).
    mixed = ((1, -1, 0.5, 2, 0, 1), (2, 4, 1, 1, 1, 8))
    f = (4.0, 8.0, 3.0, 2.0, (2 + 8) / 8, 32.0)
    expect = 0.0
    for w, fi, s in zip(mixed[0], f, mixed[1]):
        expect = expect + w * (fi / s)
    assert policy_key("MIXED", mixed, 7, 5, 8, 4, 2) == expect


def test_rejects_bad_input():
    with pytest.raises(ValueError):
        reference_simulate([1, 0], [1, 1], [1, 1], [1, 1], None, 1, "FCFS", "FCFS")
    with pytest.raises(ValueError):
        reference_simulate([0], [1], [1], [2], None, 1, "FCFS", "FCFS")
    with pytest.raises(ValueError):
        reference_simulate([0], [1], [1], [1], None, 1, "NOPE", "FCFS")


# ------------------------------------------------------- random workloads --

@st.composite
def workloads(draw, max_jobs=30, max_m=12):
    n = draw(st.integers(1, max_jobs))
    m = draw(st.integers(1, max_m))
    t = 0
    submit, run, req, procs = [], [], [], []
    for _ in range(n):
        t += draw(st.sampled_from([0, 0, 0, 1, 2, 3, 5, 10, 20]))
        p = draw(st.integers(0, 30))
        pt = draw(st.one_of(st.just(p), st.integers(0, 30)))
        submit.append(t)
        run.append(p)
        req.append(pt)
        procs.append(draw(st.one_of(st.integers(1, m), st.just(m))))
    return submit, run, req, procs, m


@settings(max_examples=300, deadline=None, derandomize=True)
@given(w=workloads(), backfill=st.sampled_from(PURE_POLICIES),
       estimate=st.sampled_from(["requested", "actual"]), overrun=st.sampled_from(["kill", "run"]))
def test_g_sqf_primary_never_backfills(w, backfill, estimate, overrun):
    # Thesis Proposition 1: with P_R = SQF (no threshold) every job after the
    # head in SQF order needs at least q_head > free processors, so none can
    # be backfilled -- whatever P_B.
    submit, run, req, procs, m = w
    r = reference_simulate(submit, run, req, procs, None, m, "SQF", backfill,
                           estimate=estimate, overrun=overrun)
    assert not any(r["backfilled"])


@settings(max_examples=300, deadline=None, derandomize=True)
@given(w=workloads(), backfill=st.sampled_from(PURE_POLICIES), estimate=st.sampled_from(["requested", "actual"]))
def test_fcfs_reservation_is_never_delayed(w, backfill, estimate):
    # EASY's guarantee: with FCFS as P_R, no threshold and estimates that are
    # upper bounds of the real durations (requested with kill, or actual),
    # the head of every pass starts by the shadow time computed for it.
    submit, run, req, procs, m = w
    trace = []
    r = reference_simulate(submit, run, req, procs, None, m, "FCFS", backfill,
                           estimate=estimate, overrun="kill", trace=trace)
    for rec in trace:
        if rec["head"] is not None:
            assert r["start"][rec["head"]] <= rec["shadow"], rec


@settings(max_examples=200, deadline=None, derandomize=True)
@given(w=workloads(), primary=st.sampled_from(PURE_POLICIES), backfill=st.sampled_from(PURE_POLICIES))
def test_schedule_invariants(w, primary, backfill):
    submit, run, req, procs, m = w
    r = reference_simulate(submit, run, req, procs, None, m, primary, backfill, estimate="requested")
    n = len(submit)
    for j in range(n):
        assert r["start"][j] >= submit[j]
        assert r["end"][j] == r["start"][j] + min(run[j], req[j])
    times = sorted(set(r["start"]))
    for t in times:
        busy = sum(procs[j] for j in range(n) if r["start"][j] <= t < r["end"][j])
        assert busy <= m


# MIXED vertices and the pure policy they stand for (feature index, sign).
VERTICES = {"SQF": (0, 1), "LQF": (0, -1), "SPF": (1, 1), "LPF": (1, -1),
            "FCFS": (2, 1), "LCFS": (2, -1), "SRF": (3, 1), "LRF": (3, -1),
            "SEXP": (4, 1), "LEXP": (4, -1), "SAF": (5, 1), "LAF": (5, -1)}


@settings(max_examples=200, deadline=None, derandomize=True)
@given(w=workloads(), primary=st.sampled_from(sorted(VERTICES)), backfill=st.sampled_from(sorted(VERTICES)),
       scales=st.lists(st.sampled_from([0.5, 1.0, 3.0, 7.0, 100.0]), min_size=6, max_size=6))
def test_mixed_vertices_equal_pure_policies(w, primary, backfill, scales):
    submit, run, req, procs, m = w

    def vertex(name):
        i, sign = VERTICES[name]
        weights = [0.0] * 6
        weights[i] = float(sign)
        return (weights, scales)

    pure = reference_simulate(submit, run, req, procs, None, m, primary, backfill)
    mixed = reference_simulate(submit, run, req, procs, None, m, "MIXED", "MIXED",
                               mixed_primary=vertex(primary), mixed_backfill=vertex(backfill))
    assert pure == mixed


# ------------------------------------------- (h) classes, estimates, corrections --

def test_h_divider_kills_and_requeues_as_large():
    # m=1, divider 4.  J1 (small, runs 10, asks 20) starts at 0 as small and is
    # expected to end by min(20, 4) = 4; J2 (large, 3 s) arrives at 1 and is the
    # head with shadow 4.  At 4 J1 is killed and queued again as large with its
    # submit time 0, so FCFS starts it first: [4, 14); J2 then [14, 17).
    jobs = [(0, 10, 20, 1), (1, 3, 3, 1)]
    r = sim(jobs, 1, classes=[1, 0], divider=4)
    check(r, [4, 14], [14, 17])
    assert r["requeued"] == [True, False] and r["first_start"] == [0, -1]
    # A small job that runs exactly the divider completes.
    r = sim(jobs, 1, classes=[1, 0], divider=10)
    check(r, [0, 10], [10, 13])
    assert r["requeued"] == [False, False] and r["first_start"] == [-1, -1]


def test_h_per_job_divider_kills_each_job_at_its_own():
    # m=2, FCFS, dividers 3, 6, (0: J3 is large, unused), 5.  J1 and J2 (small,
    # 1 proc, run 10, ask 20) start at 0, expected to end by 3 and 6.  J3
    # (large, 2 procs, 4 s) arrives at 1: head, shadow 6 (J2), extra 0.
    # t=3: J1 is killed (its divider) and queued again as large with submit 0:
    #      it leads J3 and starts on the freed processor [3, 13).
    # t=6: J2 is killed (its divider), queued again, leads J3: [6, 16).
    # t=16: J3 [16, 20).  t=20: J4 (small, runs exactly its divider 5) [20, 25).
    jobs = [(0, 10, 20, 1), (0, 10, 20, 1), (1, 4, 4, 2), (20, 5, 5, 1)]
    r = sim(jobs, 2, classes=[1, 1, 0, 1], divider=[3, 6, 0, 5])
    check(r, [3, 6, 16, 20], [13, 16, 20, 25])
    assert r["first_start"] == [0, 0, -1, -1] and r["requeued"] == [True, True, False, False]
    # One divider 3 for all: both are killed at 3 and restart there; J3 [13, 17),
    # J4 (runs 5 > 3) is killed at 23 and reruns [23, 28).
    r = sim(jobs, 2, classes=[1, 1, 0, 1], divider=3)
    check(r, [3, 3, 13, 23], [13, 13, 17, 28])
    assert r == sim(jobs, 2, classes=[1, 1, 0, 1], divider=[3, 3, 3, 3])
    # The expected end of a running small job uses its own divider.  m=2: S
    # (small, asks 100, runs 5) starts at 0, H (2 procs) is the head.  With
    # S's divider 20 the shadow is 20 and C (1 proc, 30 s, at 1) cannot be
    # backfilled; with 50 C ends at 31 <= 50 and is backfilled at 1.
    jobs = [(0, 5, 100, 1), (0, 10, 10, 2), (1, 30, 30, 1)]
    check(sim(jobs, 2, classes=[1, 0, 0], divider=[20, 0, 0]), [0, 5, 15], [5, 15, 45])
    check(sim(jobs, 2, classes=[1, 0, 0], divider=[50, 0, 0]), [0, 31, 1], [5, 41, 31],
          backfilled=[False, False, True])


def test_h_flags_describe_the_run_that_completes():
    # m=2, divider 2.  J1 (large, 1 proc) runs [0, 5).  J2 (small, 2 procs,
    # runs exactly the divider) arrives at 1: head, shadow 5.  J3 (small, 1
    # proc, runs 10) arrives at 2 and is backfilled (2 + min(10, 2) = 4 <= 5),
    # killed at 4 and queued again as large: behind J2, 4 + 10 > 5 and
    # extra = 0, so it waits.  J2 runs [5, 7), J3 [7, 17) from the primary
    # walk: in the end not backfilled.
    jobs = [(0, 5, 5, 1), (1, 2, 4, 2), (2, 10, 10, 1)]
    r = sim(jobs, 2, classes=[0, 1, 1], divider=2)
    check(r, [0, 5, 7], [5, 7, 17])
    assert r["first_start"] == [-1, -1, 2] and r["requeued"] == [False, False, True]


def test_h_over_threshold_large_job_leads_even_behind_small_jobs():
    # m=1, T=0.  At 0 J1 starts, J2 (large) is the head.  At 1 J2 has waited
    # 1 > 0: it leads in FCFS order even though J3, arriving at 1, is small.
    # (The C core once walked the over-threshold prefix in small-first order
    # and never started J2.)
    jobs = [(0, 1, 1, 1), (0, 0, 0, 1), (1, 0, 0, 1)]
    r = sim(jobs, 1, threshold=0, classes=[0, 0, 1])
    check(r, [0, 1, 1], [1, 1, 1], forced=[False, True, False])


def test_h_easy_plus_plus_by_hand():
    # One user, m=4 (nobody waits).  J1, J2 have no history: p~ = 100.  J3 at
    # 10 sees J1 (completed at 10, applied before the submission): 10.  By 30
    # J1 (10 s), J3 (5 s, ends 15) and J2 (20 s, ends 20) completed: the last
    # two are J3 and J2, (5 + 20) // 2 = 12; J5 asks 7 only: min(12, 7).
    jobs = [(0, 10, 100, 1), (0, 20, 100, 1), (10, 5, 100, 1), (30, 1, 100, 1), (30, 1, 7, 1)]
    r = sim(jobs, 4, estimate="easy++", users=[0] * 5)
    assert r["predicted"] == [100, 100, 10, 12, 7]
    # Another user's completions do not count (J5: min((10 + 20) // 2, 7)).
    r = sim(jobs, 4, estimate="easy++", users=[0, 0, 1, 1, 0])
    assert r["predicted"] == [100, 100, 100, 5, 7]


@pytest.mark.parametrize("correction,start2", [("none", 101), ("requested", 20),
                                               ("incremental", 20), ("doubling", 20)])
def test_h_corrections_move_the_shadow_time(correction, start2):
    # m=2.  J1 (1 proc, runs 100, estimated 10) outlives its estimate at 10.
    # J2 (2 procs) is the head.  At 20 J3 (1 proc, 15 s, estimated 15) asks to
    # be backfilled.  Without correction J1 is expected to end "now" (20): no
    # room before the shadow time 20, and extra = 0.  Corrected, J1 is expected
    # to end at 100 (requested), 10 + 60 = 70 (incremental) or 2 x 20 = 40
    # (doubling): J3 ends at 35 before any of them and is backfilled at 20.
    jobs = [(0, 100, 100, 1), (0, 1, 1, 2), (20, 15, 15, 1)]
    r = sim(jobs, 2, estimate=[10, 1, 15], correction=correction)
    assert r["start"] == [0, 100, start2]
    assert r["predicted"] == [10, 1, 15]


def test_h_sjbf_orders_by_the_estimate():
    # m=2.  J1 (2 procs) runs [0, 10); J2 and J3 (2 procs each) arrive at 1.
    # SJBF as primary order starts J3 first (estimated 3 < 5), FCFS J2.
    jobs = [(0, 10, 10, 2), (1, 5, 50, 2), (1, 3, 30, 2)]
    assert sim(jobs, 2, primary="SJBF", estimate=[10, 5, 3])["start"] == [0, 13, 10]
    assert sim(jobs, 2, primary="FCFS", estimate=[10, 5, 3])["start"] == [0, 10, 15]
