"""Fuzzing the engine API (issue 17): random scenarios over every policy,
estimate, correction, threshold, class and partition option, with stepping,
cloning, policy changes and cutoffs (lowered, then lifted after running);
half of the scenarios attack one thing with hostile values (times near the
2^61 s bound, bad estimator returns, bad argument types and values).

On every successful run the invariants of the schedule are checked: every
job starts once (all of them, or all those let in by the cutoff), never
before its submission, runs its capped runtime, at most m processors are
busy at any instant; a stepped run equals the one-shot run, a clone run to
the end equals the original, and the long-queue walk (block summaries) gives
the schedule the entry-by-entry walk gives.  Every failure must be a
schedlab error (``SchedlabError``), never another exception.

Budget: ``SCHEDLAB_FUZZ_EXAMPLES`` examples (default 120, a few seconds in
``make test``), derandomized like the rest of the suite (tests/conftest.py).
Run with ``-s`` to see the outcome counts.
"""
from __future__ import annotations

import math
import os
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.engine._core import lib
from schedlab.errors import SchedlabError
from schedlab.engine.sim import TIME_MAX, Estimator, Jobs, Mixed, Simulation, QUEUE_ORDERS

EXAMPLES = int(os.environ.get("SCHEDLAB_FUZZ_EXAMPLES", "120"))
OUTCOMES: Counter = Counter()

ATTACKS = ("times", "threshold", "overrun", "estimator", "divider", "partitions", "until", "cutoff", "m")
BIG = st.sampled_from([TIME_MAX, TIME_MAX - 1, TIME_MAX + 1, 2 ** 62, 2 ** 63 - 1, TIME_MAX // 3])
SMALL_TIME = st.integers(0, 120)


class Drawn(Estimator):
    """predict returns values[job % len(values)] (any Python object)."""

    def __init__(self, values):
        self.values = values

    def predict(self, job, now):
        return self.values[job % len(self.values)]


def times(small, hostile):
    return st.one_of(small, BIG) if hostile else small


@st.composite
def scenarios(draw):
    # Half of the scenarios attack one thing (so that the attack reaches its code, not the first check).
    attack = draw(st.sampled_from([None] * len(ATTACKS) + list(ATTACKS)))

    def pick(good, bad, name):
        return draw(st.sampled_from(bad if attack == name else good))
    hostile = attack == "times"
    m = draw(st.integers(1, 6))
    n = draw(st.integers(0, 14))
    submit = sorted(draw(st.lists(times(st.integers(0, 60), hostile), min_size=n, max_size=n)))
    run = draw(st.lists(times(SMALL_TIME, hostile), min_size=n, max_size=n))
    req = draw(st.lists(times(SMALL_TIME, hostile), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
    user = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    jobs = Jobs(np.array(submit, dtype=np.int64), np.array(run, dtype=np.int64), np.array(req, dtype=np.int64),
                np.array(procs, dtype=np.int64), user=np.array(user, dtype=np.int64))

    order = st.one_of(st.sampled_from(QUEUE_ORDERS),
                      st.builds(lambda w: Mixed(tuple(w)), st.lists(st.sampled_from([-1.0, 0.0, 0.5, 2.0]),
                                                                    min_size=6, max_size=6)))
    kw = dict(policy=(draw(order), draw(order)),
              threshold=pick([None, None, 0, 5, 30, "1m"], [True, 2 ** 70, "abc", -1, math.nan, [1], TIME_MAX],
                             "threshold"),
              threshold_backfill=draw(st.sampled_from([None, False, True])),
              overrun=pick(["kill", "kill", "run"], ["oops", None, ["kill"]], "overrun"),
              correction=draw(st.sampled_from(["none", "requested", "incremental", "doubling"])))
    est = pick(["requested", "actual", "easy++", "learned", "array", "callback"], ["bad-callback"], "estimator")
    if est == "array":
        kw["estimate"] = np.array(draw(st.lists(times(SMALL_TIME, hostile), min_size=n, max_size=n)),
                                  dtype=np.int64)
    elif est == "callback":
        kw["estimate"] = Drawn(draw(st.lists(st.integers(0, 100), min_size=1, max_size=4)))
    elif est == "bad-callback":
        bad = st.sampled_from([2 ** 80, 2 ** 63 - 1, TIME_MAX + 1, 7.9, None, math.nan, "abc", -1, True])
        kw["estimate"] = Drawn(draw(st.lists(st.one_of(st.integers(0, 50), bad), min_size=1, max_size=3)))
    else:
        kw["estimate"] = est
    if draw(st.booleans()):
        kw["classes"] = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        kw["divider"] = pick([None, 0, 10, 50, "1m"], [TIME_MAX, TIME_MAX + 1, True, "x"], "divider")
    if draw(st.integers(0, 4)) == 0:
        # multiple queues need FCFS, no threshold, classes or correction (else refused)
        keep = ("estimate", "overrun") + (("policy", "classes", "divider", "threshold", "correction")
                                          if attack == "partitions" else ())
        kw = {k: v for k, v in kw.items() if k in keep}
        kw["partitions"] = pick([1, 2, 3, 4], [0, "abc", 1.5, 17], "partitions")
        if attack != "partitions" or draw(st.booleans()):
            p = kw["partitions"] if isinstance(kw["partitions"], int) else 2
            kw["criteria"] = sorted(draw(st.lists(st.integers(0, 100), min_size=max(p - 1, 0), max_size=max(p, 0))))
    steps = sorted(draw(st.lists(st.integers(-5, 200), max_size=4)))
    if attack == "until":
        steps.append(draw(st.sampled_from([2 ** 63, math.nan, "abc", 1.5, None, True])))
    change = draw(st.sampled_from([None, None, "policy", "clone", "raise"]))
    at = draw(st.integers(0, len(steps))) if steps else 0
    new_policy = draw(st.sampled_from(QUEUE_ORDERS))
    cutoff = draw(st.one_of(st.none(), st.none(), st.integers(-5, 80)))
    if attack == "cutoff":
        cutoff = draw(st.sampled_from([2 ** 63, math.inf, "abc", 2.5, True]))
    if attack == "m":
        m = draw(st.sampled_from([0, 1.9, True, "2", 2 ** 40, math.nan]))
    tree = draw(st.sampled_from([0, 1 << 30]))
    return jobs, m, kw, steps, change, at, new_policy, cutoff, tree


def capped(jobs: Jobs, overrun: str) -> np.ndarray:
    return np.where((jobs.run > jobs.req) & (overrun == "kill"), jobs.req, jobs.run)


def outputs(sim: Simulation) -> tuple:
    s = sim.schedule
    return tuple(np.asarray(a).tolist() for a in (s.start, s.end, s.flags, s.predicted,
                                                  s.first_start if s.first_start is not None else []))


def check_schedule(sim: Simulation, kw: dict, cutoff) -> None:
    jobs, m, s = sim.jobs, sim.m, sim.schedule
    let_in = np.ones(len(jobs), bool) if cutoff is None else jobs.submit <= cutoff
    assert (s.start[let_in] >= 0).all(), "a job let in never started"
    assert (s.start[~let_in] == -1).all(), "a job after the cutoff started"
    st_ = s.start[let_in]
    assert (st_ >= jobs.submit[let_in]).all(), "a job started before its submission"
    assert (s.end[let_in] - st_ == capped(jobs, sim.overrun)[let_in]).all(), "a job did not run its capped runtime"
    # processors busy: every run, including the killed first run of a requeued small job
    ev = []
    for j in np.flatnonzero(let_in):
        ev += [(int(s.end[j]), -int(jobs.procs[j])), (int(s.start[j]), int(jobs.procs[j]))]
        if s.first_start is not None and s.first_start[j] >= 0:
            d = sim.divider if not isinstance(sim.divider, np.ndarray) else int(sim.divider[j])
            ev += [(int(s.first_start[j]) + int(d), -int(jobs.procs[j])), (int(s.first_start[j]), int(jobs.procs[j]))]
    used = 0
    for _, dq in sorted(ev):
        used += dq
        assert used <= m, "more than m processors busy"


def simulate_scenario(jobs, m, kw, steps, change, at, new_policy, cutoff):
    """Run one scenario with stepping and the change; returns the simulation
    and the reference outputs the invariants compare it with."""
    sim = Simulation(jobs, m, **kw)
    if cutoff is not None:
        sim.set_cutoff(cutoff)
    for k, t in enumerate(steps):
        if k == at and change == "policy":
            sim.set_policy(new_policy)
        sim.run(t)
    if change == "raise":
        sim.set_cutoff(None)            # refused if that lets in a job in the past
    if change == "clone":
        c = sim.clone()
        sim.run()
        c.run()
        assert outputs(c) == outputs(sim), "a clone run to the end differs from the original"
        assert (c.estimator is None) == (sim.estimator is None)
        c.close()
    else:
        sim.run()
    return sim


def one_shot(jobs, m, kw, steps, change, at, new_policy, cutoff):
    """The same scenario without stepping (a policy change at the same time)."""
    sim = Simulation(jobs, m, **kw)
    if cutoff is not None and change != "raise":     # a lifted cutoff let in every job: as if none
        sim.set_cutoff(cutoff)
    if change == "policy" and at < len(steps):
        if at > 0:
            sim.run(steps[at - 1])
        sim.set_policy(new_policy)
    sim.run()
    return sim


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(scenarios())
def fuzz_engine(scenario):
    jobs, m, kw, steps, change, at, new_policy, cutoff, tree = scenario
    old = lib.sl_debug_tree_min(tree)
    try:
        try:
            sim = simulate_scenario(jobs, m, kw, steps, change, at, new_policy, cutoff)
        except SchedlabError as exc:
            OUTCOMES[f"refused: {type(exc).__name__}"] += 1
            if os.environ.get("SCHEDLAB_FUZZ_VERBOSE"):
                print("  refused:", str(exc)[:160])
            return
        OUTCOMES["ran"] += 1
        check_schedule(sim, kw, None if change == "raise" else cutoff)
        ref = one_shot(jobs, m, kw, steps, change, at, new_policy, cutoff)
        assert outputs(ref) == outputs(sim), "stepping differs from one run"
        lib.sl_debug_tree_min((1 << 30) if tree == 0 else 0)
        other = one_shot(jobs, m, kw, steps, change, at, new_policy, cutoff)
        assert outputs(other) == outputs(ref), "the long-queue walk differs from the entry-by-entry walk"
        lib.sl_debug_shortcuts(0)
        plain = simulate_scenario(jobs, m, kw, steps, change, at, new_policy, cutoff)
        assert outputs(plain) == outputs(sim), "the pass's shortcuts change the schedule"
        for s in (sim, ref, other, plain):
            s.close()
    finally:
        lib.sl_debug_tree_min(old)
        lib.sl_debug_shortcuts(1)


def test_fuzz_engine():
    OUTCOMES.clear()
    fuzz_engine()
    total = sum(OUTCOMES.values())
    print(f"\nengine fuzz: {total} examples: " + ", ".join(f"{k} {v}" for k, v in sorted(OUTCOMES.items())))
    assert OUTCOMES["ran"] > 0 and total > OUTCOMES["ran"]      # both kinds were exercised
