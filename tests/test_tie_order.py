"""The order of queued jobs with equal keys (sl_config.tie, ``simulate(...,
tie=)``): "oldest" first is the engine's semantics and the default; "newest"
first is freuk/ocst's rule, a reading of the papers computed with ocst
(csrc/SEMANTICS.md, "Other simulators", rule 1; issue 30)."""
import numpy as np
import pytest

from schedlab.workloads import traces, workload
from schedlab.engine._core import lib
from schedlab.errors import InputError
from schedlab.engine.sim import Jobs, simulate

from test_kinetic import _check, _random_jobs, _schedule


def J(rows):
    a = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return Jobs(a[:, 0], a[:, 1], a[:, 2], a[:, 3])


def test_equal_keys_newest_first():
    # m=2.  A (2 procs) runs 0..100.  B (r=10) and C (r=20) both need 2
    # procs for p~ = 50: equal SPF keys.  At 100 one of them starts, the
    # other at 150.  Oldest first: B; newest first: C.
    jobs = J([(0, 100, 100, 2), (10, 50, 50, 2), (20, 50, 50, 2)])
    assert simulate(jobs, 2, "EASY-SPF-SPF").start.tolist() == [0, 100, 150]
    assert simulate(jobs, 2, "EASY-SPF-SPF", tie="newest").start.tolist() == [0, 150, 100]
    # keys that differ are untouched by the tie rule: D (p~ 40) goes first
    jobs = J([(0, 100, 100, 2), (10, 50, 50, 2), (20, 40, 40, 2)])
    for tie in ("oldest", "newest"):
        assert simulate(jobs, 2, "EASY-SPF-SPF", tie=tie).start.tolist() == [0, 140, 100]


def test_same_second_newest_is_the_larger_id():
    # B and C submitted in the same second: under FCFS their keys are equal;
    # "newest" takes the larger id first (reversed input order).
    jobs = J([(0, 100, 100, 2), (10, 50, 50, 2), (10, 50, 50, 2)])
    assert simulate(jobs, 2, "EASY-FCFS-FCFS").start.tolist() == [0, 100, 150]
    assert simulate(jobs, 2, "EASY-FCFS-FCFS", tie="newest").start.tolist() == [0, 150, 100]


@pytest.mark.parametrize("policy", ["EASY-FCFS-FCFS", "EASY-SPF-SPF", "EASY-SQF-SAF", "EASY-LEXP-FCFS"])
def test_default_is_oldest_and_bit_identical(policy):
    info = traces.resolve("KTH-SP2")
    jobs, _ = workload.clean(traces.load(info), m=info.m)
    jobs = jobs.subset(slice(0, 4000))
    a = simulate(jobs, info.m, policy, threshold="20h")
    b = simulate(jobs, info.m, policy, threshold="20h", tie="oldest")
    c = simulate(jobs, info.m, policy, threshold="20h", tie="newest")
    for x in ("start", "end", "flags"):
        assert np.array_equal(getattr(a, x), getattr(b, x))
    # the rule matters on a real log (p~ and q are round numbers that tie)
    assert not np.array_equal(a.start, c.start)


def test_newest_on_sqf_is_the_untied_oldest_of_a_rescaled_log():
    # SQF with ocst's rule = SQF with the engine's rule on q' = q * 2^S - v_j,
    # v_j = the rank of j in (submit, id) order among the jobs of its q, and
    # m' = m * 2^S (the later of two equal q then has the smaller q'; a set
    # of jobs fits in m' exactly when it fits in m, since sum v < 2^S).  The
    # SEMANTICS.md demonstration with ocst, here without ocst.
    info = traces.resolve("KTH-SP2")
    jobs, _ = workload.clean(traces.load(info), m=info.m)
    jobs = jobs.subset(slice(0, 3000))
    S = 20
    v = np.zeros(len(jobs), np.int64)
    for q in np.unique(jobs.procs):
        idx = np.flatnonzero(jobs.procs == q)
        v[idx] = np.arange(len(idx))
    assert v.max() * info.m < 2 ** S
    scaled = Jobs(jobs.submit, jobs.run, jobs.req, (jobs.procs.astype(np.int64) * 2 ** S - v).astype(np.int32))
    newest = simulate(jobs, info.m, "EASY-SQF-SQF", tie="newest")
    oldest = simulate(jobs, info.m, "EASY-SQF-SQF")
    ref = simulate(scaled, info.m * 2 ** S, "EASY-SQF-SQF")
    assert np.array_equal(newest.start, ref.start)
    assert not np.array_equal(oldest.start, ref.start)


@pytest.mark.parametrize("seed,burst", [(1, True), (2, False)])
def test_kinetic_order_keeps_the_newest_rule(seed, burst):
    jobs = _random_jobs(seed, 400, burst)
    # round the requests so that keys tie often
    jobs = Jobs(jobs.submit, jobs.run, np.maximum(jobs.req // 600 * 600, jobs.run), jobs.procs)
    for pol in ("EASY-SEXP-SEXP", "EASY-LEXP-SPF", "EASY-WFP-WFP"):
        _check(lambda: _schedule(simulate(jobs, 100, pol, tie="newest")))


def test_bad_tie_is_refused():
    jobs = J([(0, 10, 10, 1)])
    with pytest.raises(InputError, match="tie must be one of"):
        simulate(jobs, 2, tie="latest")
    with pytest.raises(InputError, match="partitions"):
        simulate(jobs, 2, tie="newest", partitions=1)
    assert lib.SL_TIE_OLDEST == 0
