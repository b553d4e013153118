"""sim.simulate_parts: every part of a job table simulated alone, in place,
gives the schedules of simulate on each subset (start, end, flags and the
estimate at submission, job by job), counts its jobs in the simulated-jobs
counter, and refuses bad bounds and mixed policies with a clear error."""
from __future__ import annotations

import numpy as np
import pytest

from schedlab.engine import sim
from schedlab.workloads import workload
from schedlab.errors import InputError


def _jobs(n: int, seed: int) -> tuple[sim.Jobs, int]:
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 20 * 86400, n))
    run = rng.integers(0, 30000, n)
    req = np.where(rng.random(n) < 0.2, run // 2, run + rng.integers(0, 20000, n))   # some overrun
    procs = rng.integers(1, 33, n)
    return sim.Jobs(submit, run, req, procs), 32


@pytest.mark.parametrize("policy,threshold", [("FCFS", None), ("SAF", 3 * 3600), ("LEXP", 3600), ("LQF", 0)])
@pytest.mark.parametrize("overrun", ["kill", "run"])
def test_parts_equal_simulate_on_each_subset(policy, threshold, overrun):
    jobs, m = _jobs(3000, 7)
    pol = sim.Policy(policy, "SPF" if policy == "FCFS" else policy, threshold,
                     threshold_backfill=threshold is not None)
    edges = np.arange(0, 21 * 86400 + 1, 86400 // 2)
    bounds = np.searchsorted(jobs.submit, edges)
    bounds = np.concatenate([[0], bounds[3:], bounds[-1:]])       # an empty part, a long first part
    before = sim.jobs_simulated()
    got = sim.simulate_parts(jobs, m, pol, bounds, overrun=overrun)
    assert sim.jobs_simulated() - before == len(jobs)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi == lo:
            continue
        want = sim.simulate(jobs.subset(slice(int(lo), int(hi))), m, pol, overrun=overrun)
        for name in ("start", "end", "flags", "predicted"):
            assert np.array_equal(getattr(got, name)[lo:hi], getattr(want, name)), (name, lo, hi)
    # parts that wait on each other's jobs would not give this: the runs are independent
    assert not np.array_equal(got.start, sim.simulate(jobs, m, pol, overrun=overrun).start)


def test_jobs_outside_the_parts_are_not_simulated():
    jobs, m = _jobs(500, 3)
    s = sim.simulate_parts(jobs, m, "EASY-FCFS-FCFS", [100, 300])
    assert (s.start[:100] == -1).all() and (s.start[300:] == -1).all() and (s.start[100:300] >= 0).all()
    assert np.array_equal(s.start[100:300], sim.simulate(jobs.subset(slice(100, 300)), m, "EASY-FCFS-FCFS").start)


def test_resampled_weeks_as_parts():
    j, m = _jobs(2000, 11)
    jobs = sim.Jobs(j.submit, j.run, j.req, j.procs, user=np.arange(len(j)) % 7)
    r = workload.resample(jobs, 3, np.random.SeedSequence(5)).jobs
    b = np.searchsorted(r.submit, np.arange(4) * workload.WEEK)
    got = sim.simulate_parts(r, m, sim.Policy("SQF", "SQF", 7200, threshold_backfill=True), b)
    for lo, hi in zip(b[:-1], b[1:]):
        want = sim.simulate(r.subset(slice(int(lo), int(hi))), m,
                            sim.Policy("SQF", "SQF", 7200, threshold_backfill=True))
        assert hi > lo and np.array_equal(got.end[lo:hi], want.end)


@pytest.mark.parametrize("bounds,match", [([0, 600], r"bounds: non-decreasing positions in \[0, 500\]"),
                                          ([10, 5], "non-decreasing"), ([-1, 5], "non-decreasing"),
                                          ([0.5, 3.0], "integer positions"), ([], "integer positions")])
def test_bad_bounds_are_refused(bounds, match):
    jobs, m = _jobs(500, 1)
    with pytest.raises(InputError, match=match):
        sim.simulate_parts(jobs, m, "EASY-FCFS-FCFS", bounds)


def test_mixed_policy_and_bad_jobs_are_refused():
    jobs, m = _jobs(100, 2)
    with pytest.raises(InputError, match="mixed policy"):
        sim.simulate_parts(jobs, m, sim.Policy(sim.Mixed((1, 0, 0, 0, 0, 0)), "FCFS"), [0, 100])
    with pytest.raises(InputError, match="m"):
        sim.simulate_parts(jobs, 8, "EASY-FCFS-FCFS", [0, 100])    # jobs wider than the machine
    with pytest.raises(InputError, match="overrun"):
        sim.simulate_parts(jobs, m, "EASY-FCFS-FCFS", [0, 100], overrun="drop")
