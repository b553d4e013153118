"""The kinetic order of the time-varying keys (issue 33, csrc/policies.c):
every schedule equals the old path's (every key recomputed and the queue
re-sorted at every pass, sl_debug_kinetic(0)), start by start, on bursts,
spread submissions, real-log weeks and CEA-Curie resamples, stepped runs with
clones and policy changes, extreme times, and keys equal or nearly equal in
floating point.  Mode 2 forces the kinetic order on every dynamic queue and
checks, at every pass, that each adjacent pair is in order with the keys at
that time (a pair out of order counts in sl_debug_kinetic_count(0))."""
import numpy as np
import pytest

from schedlab.engine import sim
from schedlab.workloads import traces, workload
from schedlab.engine._core import lib
from schedlab.engine.sim import Jobs, Mixed, Policy, Simulation, simulate

DYNAMIC = ["SEXP", "LEXP", "WFP", Mixed((0.3, -0.2, 0.1, 0.0, 0.4, 0.0)), Mixed((0.0, 0.0, 0.0, 0.0, -1.0, 0.0)),
           Mixed((0.5, 0.1, -0.2, 0.3, 0.7, -0.4))]
# (backfilling order, threshold, threshold_backfill); None: the primary's
VARIANTS = [(None, None, False), ("FCFS", 7200, False), (None, 3600, True), ("SPF", None, False), ("LEXP", 200_000, False)]


def _counts():
    return [lib.sl_debug_kinetic_count(i) for i in range(5)]


def _both(run):
    """run() under the old path, under the checked kinetic order (mode 2,
    no tournament), the default (mode 1: a long queue becomes a tournament,
    csrc/tour.c) and the tournament forced on every eligible queue
    (sl_debug_tour(2)); returns the four outputs and the counters' increase
    under mode 2."""
    old = lib.sl_debug_kinetic(0)
    old_tour = lib.sl_debug_tour(0)
    try:
        a = run()
        lib.sl_debug_kinetic(2)
        c0 = _counts()
        b = run()
        c1 = _counts()
        lib.sl_debug_kinetic(1)
        lib.sl_debug_tour(1)
        c = run()
        lib.sl_debug_tour(2)
        e = run()
    finally:
        lib.sl_debug_kinetic(old)
        lib.sl_debug_tour(old_tour)
    return a, b, c, e, [y - x for x, y in zip(c0, c1)]


def _schedule(s):
    return [np.asarray(s.start).tolist(), np.asarray(s.end).tolist(), np.asarray(s.flags).tolist()]


def _random_jobs(seed, n, burst):
    rng = np.random.default_rng(seed)
    run = rng.integers(0, 5000, n)
    req = np.maximum(run * rng.integers(1, 4, n) - rng.integers(0, 300, n), 0)
    if burst:
        submit = np.sort(np.concatenate([np.zeros(n // 2, np.int64), rng.integers(0, 100_000, n - n // 2)]))
    else:
        submit = np.sort(rng.integers(0, 300_000, n))
    return Jobs(submit, run, req, rng.integers(1, 100, n))


def _check(run):
    a, b, c, e, d = _both(run)
    assert a == b, "kinetic order (mode 2) differs from the re-sort"
    assert a == c, "default mode differs from the re-sort"
    assert a == e, "the tournament differs from the re-sort"
    assert d[0] == 0, f"{d[0]} adjacent pairs out of order"
    return d


@pytest.mark.parametrize("seed,burst", [(0, True), (1, False), (2, True)])
def test_random_workloads_every_dynamic_policy(seed, burst):
    jobs = _random_jobs(seed, 1500, burst)
    work = [0] * 5
    for p in DYNAMIC:
        for bf, thr, tb in VARIANTS:
            d = _check(lambda p=p, bf=bf, thr=thr, tb=tb: _schedule(
                simulate(jobs, 100, Policy(p, p if bf is None else bf, thr, threshold_backfill=tb))))
            work = [x + y for x, y in zip(work, d)]
    # the kinetic order did the work (not a vacuous comparison)
    assert work[2] > 1000 and work[1] > 0 and work[4] > 0


def _week(name, w):
    info = traces.resolve(name)
    jobs, _ = workload.clean(traces.load(info), m=info.m)
    return workload.weeks(jobs)[w], info.m


@pytest.mark.parametrize("name,w", [("SDSC-BLUE", 40), ("KTH-SP2", 30), ("CTC-SP2", 8)])
def test_real_log_weeks(name, w):
    jobs, m = _week(name, w)
    for p in DYNAMIC:
        for bf, thr, tb in VARIANTS[:3]:
            _check(lambda p=p, bf=bf, thr=thr, tb=tb: _schedule(
                simulate(jobs, m, Policy(p, p if bf is None else bf, thr, threshold_backfill=tb))))


def test_curie_resample():
    from schedlab.studies.selection import cells as sel
    jobs, m = sel.resampled("CEA-Curie", None, 2, 2017, 0)
    for p in ["SEXP", "LEXP", "WFP"]:
        _check(lambda p=p: _schedule(simulate(jobs, m, Policy(p, p, 40 * 3600, threshold_backfill=True))))


def test_stepped_runs_clones_and_policy_changes():
    jobs = _random_jobs(5, 1200, False)
    cycle = ["SEXP", "SAF", "LEXP", DYNAMIC[3], "WFP", "FCFS", DYNAMIC[5]]

    def run():
        out = []
        s = Simulation(jobs, 100, Policy("LEXP", "LEXP", None))
        for k, t in enumerate(np.linspace(0, int(jobs.submit[-1]), 12).astype(np.int64)):
            s.run(int(t))
            if k % 3 == 1:
                with s.clone() as c:       # a clone rebuilds its kinetic order
                    c.run()
                    out.append(np.asarray(c.start_times).tolist())
            p = cycle[k % len(cycle)]
            s.set_policy(Policy(p, p if k % 2 else "FCFS", [None, 7200][k % 2]))
        s.run()
        out.append(np.asarray(s.start_times).tolist())
        s.close()
        return out

    _check(run)


def test_burst_with_equal_and_nearly_equal_keys():
    """Every job at t = 0 (all expansion factors 1: the first order is the
    tie-break's), WFP pairs whose keys are the same doubles at every time
    (p' and 2p', q and 8q) and pairs whose real keys are equal but whose
    doubles are not (p' and 3p', q and 27q: the order flips from pass to
    pass), and requests differing by one."""
    rng = np.random.default_rng(33)
    base = rng.integers(100, 2000, 300)
    req = np.concatenate([base, 2 * base, 3 * base, base + 1, base])
    procs = np.concatenate([np.ones(300, np.int64), 8 * np.ones(300, np.int64), 27 * np.ones(300, np.int64),
                            rng.integers(1, 64, 300), np.ones(300, np.int64)])
    n = len(req)
    run = np.maximum(1, (req * rng.uniform(0.2, 1.0, n)).astype(np.int64))
    submit = np.sort(np.concatenate([np.zeros(n - 300, np.int64), rng.integers(0, 50_000, 300)]))
    jobs = Jobs(submit, run, req, procs)
    for p in DYNAMIC:
        _check(lambda p=p: _schedule(simulate(jobs, 64, Policy(p, p, None))))


def test_extreme_times():
    """Submit times near 2^60 and requests near 2^54: the integers no longer
    convert to doubles exactly (more rounding than in the logs)."""
    rng = np.random.default_rng(7)
    n = 400
    submit = np.sort((1 << 60) + rng.integers(0, 1 << 40, n))
    req = (1 << 54) + rng.integers(0, 1 << 20, n) * rng.integers(1, 3, n)
    run = np.minimum(req, rng.integers(1, 1 << 44, n))
    jobs = Jobs(submit, run, req, rng.integers(1, 32, n))
    for p in DYNAMIC[:4]:
        _check(lambda p=p: _schedule(simulate(jobs, 64, Policy(p, p, None))))


def test_classes_keep_the_old_path():
    """With job classes the dynamic orders are re-sorted (not kinetic):
    same schedules, no certificate computed."""
    jobs = _random_jobs(3, 600, False)
    cls = jobs.req <= np.median(jobs.req)
    old = lib.sl_debug_kinetic(1)
    try:
        c0 = lib.sl_debug_kinetic_count(2)
        a = _schedule(simulate(jobs, 100, Policy("LEXP", "LEXP", 7200), classes=cls, divider=1800))
        assert lib.sl_debug_kinetic_count(2) == c0
        lib.sl_debug_kinetic(0)
        b = _schedule(simulate(jobs, 100, Policy("LEXP", "LEXP", 7200), classes=cls, divider=1800))
    finally:
        lib.sl_debug_kinetic(old)
    assert a == b


def test_burst_is_not_quadratic():
    """A burst of 50,000 jobs under SEXP: the kinetic order checks only the
    pairs it must (the old path re-keys every queued job at every pass)."""
    n = 50_000
    rng = np.random.default_rng(17)
    run = rng.integers(1, 10_001, n)
    jobs = Jobs(np.zeros(n, np.int64), run, run * rng.integers(1, 6, n), rng.integers(1, 65, n))
    old = lib.sl_debug_kinetic(1)
    old_tour = lib.sl_debug_tour(0)     # the kinetic list, not the tournament
    try:
        c0 = _counts()
        simulate(jobs, 64, "EASY-SEXP-SEXP")
        d = [y - x for x, y in zip(c0, _counts())]
    finally:
        lib.sl_debug_kinetic(old)
        lib.sl_debug_tour(old_tour)
    assert d[3] <= 3              # full re-sorts: the first pass and the one after
    assert d[4] < n               # pairs checked, over some 50,000 passes


#: expressions with a kinetic model (csrc/expr.c: affine in time, or a
#: monomial in wait), and ones without (re-sorted at every pass)
KINETIC_EXPRESSIONS = [
    "expr:-(wait/req)**3*procs",                         # WFP's shape: a monomial of degree 3
    "expr:(wait/req)**3*(procs - 32)",                   # the coefficient's sign varies by job
    "expr:-(wait**2)/max(req, 1) - wait*procs/100",      # degrees 2 and 1: neither (re-sorted)
    "expr:-wait/max(req, 1) - wait/procs",               # degree 1: affine
    "expr:0.3*procs/32 - 0.2*req/15000 + 0.4*(wait + max(req, 1))/max(req, 1)",
    "expr:now/1000 - 3*wait/req + col.x",                # affine with now and a column
    "expr:-col.x*wait + 0*wait",                          # a zero slope term
    "expr:-(wait*procs)**2/est",                          # degree 2, by the estimate
    "expr:(procs - 10)*wait - req",                      # affine, slopes of both signs
]
NON_KINETIC = ["expr:-log1p(wait)/req", "expr:where(wait > 3600, -procs, req)", "expr:-wait/(wait + req)"]


def _expr_jobs(seed, n, burst):
    jobs = _random_jobs(seed, n, burst)
    rng = np.random.default_rng(seed + 100)
    x = rng.choice([0.0, 1.5, -2.0, 1e6], n)
    return Jobs(jobs.submit, jobs.run, jobs.req, jobs.procs, columns={"x": x})


@pytest.mark.parametrize("seed,burst", [(4, True), (5, False)])
def test_expressions_with_a_kinetic_model(seed, burst):
    """Time-varying expressions whose real value is affine in time or a
    monomial in wait are kept kinetic (list and tournament): the same
    schedules as the re-sort, with certificates computed; the others are
    re-sorted (no certificate)."""
    jobs = _expr_jobs(seed, 1200, burst)
    for e in KINETIC_EXPRESSIONS:
        c0 = lib.sl_debug_kinetic_count(2)
        d = _check(lambda e=e: _schedule(simulate(jobs, 100, Policy(e, e, None))))
        expect = "**2)/max" not in e          # the one with two degrees is re-sorted
        assert (lib.sl_debug_kinetic_count(2) > c0) == expect, e
        assert (d[2] > 0) == expect, e
    for e in NON_KINETIC:
        c0 = lib.sl_debug_kinetic_count(2)
        _check(lambda e=e: _schedule(simulate(jobs, 100, Policy(e, e, None))))
        assert lib.sl_debug_kinetic_count(2) == c0, e


def test_expression_burst_with_equal_real_keys():
    """The WFP expression on the burst whose real keys tie while their
    doubles differ (p' and 3p', q and 27q), and identical jobs."""
    rng = np.random.default_rng(34)
    base = rng.integers(100, 2000, 300)
    req = np.concatenate([base, 2 * base, 3 * base, base])
    procs = np.concatenate([np.ones(300, np.int64), 8 * np.ones(300, np.int64), 27 * np.ones(300, np.int64),
                            np.ones(300, np.int64)])
    n = len(req)
    run = np.maximum(1, (req * rng.uniform(0.2, 1.0, n)).astype(np.int64))
    jobs = Jobs(np.zeros(n, np.int64), run, req, procs)
    for e in KINETIC_EXPRESSIONS[:2]:
        _check(lambda e=e: _schedule(simulate(jobs, 64, Policy(e, e, None))))


def test_burst_under_the_tournament_is_not_quadratic():
    """A burst of 50,000 jobs under a mixed order with an expansion term and
    under the WFP expression: the default mode keeps the queue as a
    tournament (csrc/tour.c), whose work per job stays logarithmic (nodes
    refreshed, range queries of the backfilling walk), where the kinetic
    list pays for the crossings of every pair."""
    n = 50_000
    rng = np.random.default_rng(17)
    run = rng.integers(1, 10_001, n)
    jobs = Jobs(np.zeros(n, np.int64), run, run * rng.integers(1, 6, n), rng.integers(1, 65, n))
    mixed = Mixed((0.3, -0.2, 0.1, 0.0, 0.4, 0.0))
    for p in (Policy(mixed, mixed, None), "expr:-(wait/req)**3*procs"):
        t0 = [lib.sl_debug_tour_count(i) for i in range(5)]
        k0 = lib.sl_debug_kinetic_count(1)
        simulate(jobs, 64, p)
        d = [lib.sl_debug_tour_count(i) - x for i, x in zip(range(5), t0)]
        assert d[3] >= 1                       # built
        assert 0 < d[0] < 40 * n               # nodes refreshed: about log2(n) per start
        assert 0 < d[4] < 12 * n               # range queries
        assert lib.sl_debug_kinetic_count(1) - k0 < n   # the list's swaps: not used
