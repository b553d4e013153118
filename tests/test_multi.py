"""sl_multi_run (csrc/multi.c, schedlab.engine.sim.simulate_mixed_many): many mixed
policies of one workload in one call, each vector's schedule bit-identical to
its simulation alone (issue 33 item 1)."""
import hashlib

import numpy as np
import pytest

from schedlab.science import optim
from schedlab.workloads import traces, workload
from schedlab.engine import sim
from schedlab.engine._core import lib
from schedlab.errors import InputError

# The mixed study's threshold (studies.mixed.THRESHOLD; not imported:
# this file runs under ASan, make test-asan, without the studies' imports).
THRESHOLD = 200_000


def _hash(s) -> str:
    h = hashlib.sha256()
    for a in (s.start, s.end, s.flags):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _both_ways(jobs, m, weights, scales, **kw):
    """Per vector: the hash of its schedule from simulate_mixed_many and from simulate alone."""
    many = {}

    def got(vecs, s):
        h = _hash(s)
        for v in vecs:
            assert int(v) not in many, f"vector {v} delivered twice"
            many[int(v)] = h

    stats = sim.simulate_mixed_many(jobs, m, weights, scales, on_schedule=got, **kw)
    assert sorted(many) == list(range(len(weights)))
    bf, thr, tb = kw.get("backfill", "same"), kw.get("threshold"), kw.get("threshold_backfill", False)
    est = kw.get("estimate", "requested")
    alone = {}
    for v, w in enumerate(weights):
        p = sim.Mixed(tuple(np.asarray(w, float).tolist()), tuple(scales))
        alone[v] = _hash(sim.simulate(jobs, m, sim.Policy(p, p if bf == "same" else "FCFS", thr, tb), estimate=est,
                                      overrun=kw.get("overrun", "kill")))
    return many, alone, stats


@pytest.fixture(params=[8, 0, 1], ids=["solo8", "plan-all", "solo1"])
def solo(request):
    """Groups of at most k vectors finish with the engine's own pass (8: the
    default); 0: every pass of every group is planned by multi.c."""
    old = lib.sl_debug_multi_solo(request.param)
    yield request.param
    lib.sl_debug_multi_solo(old)


def _week(trace="SDSC-SP2", unit=10):
    """Week ``unit`` of a bundled log (workload.weeks), its machine size and
    the mixed policy's default scales of the whole cleaned log."""
    info = traces.resolve(trace)
    jobs, _ = workload.clean(traces.load(info), m=info.m)
    return workload.weeks(jobs)[unit], info.m, sim.default_scales(jobs)


def test_real_week_grid_bit_identical(solo):
    """Every vector of a real week's 0.1 grid (402 points): the same schedule both ways."""
    jobs, m, scales = _week()
    pts = optim.l1_lattice(3, 10)
    many, alone, stats = _both_ways(jobs, m, pts, scales, threshold=THRESHOLD)
    bad = [v for v in alone if many[v] != alone[v]]
    assert not bad, f"{len(bad)} vectors differ, first {bad[:5]}"
    assert stats["schedules"] >= len(set(alone.values()))
    assert stats["forks"] == stats["schedules"] - 1


@pytest.mark.parametrize("trace,unit", [("KTH-SP2", 5), ("CTC-SP2", 7), ("SDSC-BLUE", 3)])
@pytest.mark.parametrize("kw", [dict(threshold=THRESHOLD), dict(), dict(backfill="FCFS", threshold=THRESHOLD),
                                dict(threshold=20 * 3600, threshold_backfill=True), dict(estimate="actual")])
def test_variants_bit_identical(trace, unit, kw, solo):
    jobs, m, scales = _week(trace, unit)
    rng = np.random.default_rng(unit)
    six = rng.normal(size=(10, 6))
    six[:, 4] = 0.0                      # no expansion weight
    pts = np.vstack([np.c_[optim.l1_lattice(3, 4), np.zeros((66, 3))],
                     np.c_[rng.normal(size=(20, 3)), np.zeros((20, 3))], six])
    many, alone, _ = _both_ways(jobs, m, pts, scales, **kw)
    bad = [v for v in alone if many[v] != alone[v]]
    assert not bad, f"{len(bad)} vectors differ, first {bad[:5]}"


def test_ties_and_duplicates(solo):
    """All-zero weights (every key 0: the tie-break alone), duplicated vectors, one vector."""
    jobs, m, scales = _week("KTH-SP2", 2)
    pts = np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, -1]], float)
    many, alone, _ = _both_ways(jobs, m, pts, scales, threshold=THRESHOLD)
    assert many == alone
    many, alone, _ = _both_ways(jobs, m, pts[2:3], scales)
    assert many == alone


def test_errors():
    jobs, m, scales = _week("KTH-SP2", 2)
    with pytest.raises(InputError, match="expansion"):
        sim.simulate_mixed_many(jobs, m, [[0, 0, 1, 0, 1, 0]], scales, on_schedule=lambda v, s: None)
    with pytest.raises(InputError, match="shape"):
        sim.simulate_mixed_many(jobs, m, [1, 0, 0], scales, on_schedule=lambda v, s: None)
    with pytest.raises(InputError, match="backfill"):
        sim.simulate_mixed_many(jobs, m, [[1, 0, 0]], scales, backfill="SPF", on_schedule=lambda v, s: None)

    class Boom(Exception):
        pass

    def boom(v, s):
        raise Boom()

    with pytest.raises(Boom):
        sim.simulate_mixed_many(jobs, m, [[1, 0, 0], [0, 1, 0]], scales, on_schedule=boom)
