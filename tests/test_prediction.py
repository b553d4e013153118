"""Learned runtime prediction (schedlab.engine.prediction, gaussier2015 §4): the NAG
learner, the 20 losses and their gradients, E-Loss's asymmetry, the features
of Table 2 on a hand-made trace, and the estimator's plumbing through the
simulator."""
from __future__ import annotations

import math
import zlib

import numpy as np
import pytest

from schedlab.engine import prediction as P
from schedlab.errors import InputError
from schedlab.engine.sim import Jobs, Simulation, simulate


# ---------------------------------------------------------------- the learner --

def test_nag_converges_on_a_linear_target_with_wild_feature_scales():
    # y = 300 + 2000 x1 + 0.05 x2 + 4e6 x3 with x1 ~ U(0,1), x2 ~ U(0,1e5),
    # x3 ~ U(0,1e-3): every term matters, at scales 1e8 apart.
    rng = np.random.default_rng(3)
    n = 4000
    X = np.column_stack([np.ones(n), rng.random(n), 1e5 * rng.random(n), 1e-3 * rng.random(n)])
    coef = np.array([300.0, 2000.0, 0.05, 4e6])
    y = X @ coef
    nag = P.NAG(4, eta=1000.0).fit(X, y, passes=3)
    test = np.column_stack([np.ones(500), rng.random(500), 1e5 * rng.random(500), 1e-3 * rng.random(500)])
    err = np.abs(test @ nag.w - test @ coef)
    assert err.mean() < 0.02 * np.abs(test @ coef).mean()
    assert np.allclose(nag.w, coef, rtol=0.1)


def test_nag_is_invariant_to_the_scale_of_a_feature():
    rng = np.random.default_rng(4)
    X = np.column_stack([np.ones(300), rng.random(300), rng.random(300)])
    y = 10 + 50 * X[:, 1] - 20 * X[:, 2] + rng.normal(0, 1, 300)
    scale = np.array([1.0, 1e6, 1e-4])
    a = P.NAG(3, eta=20.0).fit(X, y, loss=P.E_LOSS, q=np.full(300, 8))
    b = P.NAG(3, eta=20.0).fit(X * scale, y, loss=P.E_LOSS, q=np.full(300, 8))
    assert np.allclose(X @ a.w, (X * scale) @ b.w, rtol=1e-9, atol=1e-9)
    assert np.allclose(a.w, b.w * scale, rtol=1e-9)


def test_nag_l2_penalty_shrinks_the_weights():
    rng = np.random.default_rng(5)
    X = np.column_stack([np.ones(500), rng.random(500)])
    y = 100 + 200 * X[:, 1]
    free = P.NAG(2, eta=50.0).fit(X, y, passes=2)
    tied = P.NAG(2, eta=50.0, lam=1e4).fit(X, y, passes=2)
    assert np.linalg.norm(tied.w) < 0.5 * np.linalg.norm(free.w)


@pytest.mark.parametrize("bad", [dict(dim=0, eta=1.0), dict(dim=3, eta=0.0), dict(dim=3, eta=1.0, lam=-1.0),
                                 dict(dim=3, eta=float("nan"))])
def test_nag_refuses_bad_parameters(bad):
    with pytest.raises(InputError):
        P.NAG(**bad)


# ------------------------------------------------------------------ the losses --

def test_twenty_distinct_losses_with_e_loss_and_names_round_trip():
    assert len(P.LOSSES) == 20 and len(set(P.LOSSES)) == 20
    assert P.E_LOSS in P.LOSSES and P.SQUARED_LOSS in P.LOSSES
    assert P.E_LOSS.name == "sq/lin/log(qp)" and P.E_LOSS.label == "E-Loss"
    for loss in P.LOSSES:
        assert P.Loss.parse(loss.name) == loss
    assert P.Loss.parse("E-Loss") == P.E_LOSS == P.Loss("square", "abs", "log( q p )".replace(" ", ""))
    for bad in ("sq/lin", "sq/cubic/1", "sq/lin/log(pq)", 3):
        with pytest.raises(InputError):
            P.Loss.parse(bad)


@pytest.mark.parametrize("loss", P.LOSSES, ids=lambda x: x.name)
def test_each_loss_gradient_matches_finite_differences(loss):
    rng = np.random.default_rng(zlib.crc32(loss.name.encode()))     # not hash(): it changes with the hash seed
    p = rng.uniform(1, 5e4, 50)
    q = rng.integers(1, 500, 50).astype(float)
    f = p + rng.choice([-1, 1], 50) * rng.uniform(5, 3e4, 50)      # away from the kink f = p
    h = 1e-3
    numeric = (loss.value(f + h, p, q) - loss.value(f - h, p, q)) / (2 * h)
    assert np.allclose(loss.derivative(f, p, q), numeric, rtol=1e-5, atol=1e-6)
    scalar = [loss.dldf(float(a), float(b), float(c)) for a, b, c in zip(f, p, q)]
    assert np.allclose(scalar, loss.derivative(f, p, q), rtol=1e-12)
    # ... and the gradient in w that NAG uses, penalty included
    nag = P.NAG(6, eta=1.0, lam=0.3)
    nag.w = rng.normal(0, 1e-2, 6)
    phi = np.array([1.0, 2.0, 30.0, 400.0, 0.5, 7.0])
    j = 0
    obj = lambda w: float(loss.value(w @ phi, p[j], q[j])) + 0.3 * float(w @ w)  # noqa: E731
    g = nag.gradient(phi, loss.dldf(float(nag.w @ phi), float(p[j]), float(q[j])))
    e = np.eye(6) * 1e-7
    num = np.array([(obj(nag.w + e[i]) - obj(nag.w - e[i])) / 2e-7 for i in range(6)])
    assert np.allclose(g, num, rtol=1e-4, atol=1e-4)


def test_e_loss_is_asymmetric_and_weighted_by_area():
    p, q = 1000.0, 16.0
    gamma = math.log(q * p)
    for z in (2.0, 50.0, 3000.0):
        over, under = float(P.E_LOSS.value(p + z, p, q)), float(P.E_LOSS.value(p - z, p, q))
        assert over == pytest.approx(gamma * z * z) and under == pytest.approx(gamma * z)
        assert over > under
        assert P.E_LOSS.dldf(p + z, p, q) == pytest.approx(2 * gamma * z)
        assert P.E_LOSS.dldf(p - z, p, q) == pytest.approx(-gamma)
    assert float(P.E_LOSS.value(p, p, q)) == 0.0 and P.E_LOSS.dldf(p, p, q) == 0.0
    # larger jobs weigh more; the weight never goes negative (p, q floored at 1, gamma at 0)
    assert P.E_LOSS.gamma(10_000, 64) > P.E_LOSS.gamma(100, 64) > P.E_LOSS.gamma(100, 1)
    assert float(P.E_LOSS.gamma(0, 1)) == 0.0 and float(P.Loss("sq", "sq", "11+log(1/qp)").gamma(1e6, 1e4)) == 0.0
    mirror = P.Loss("linear", "squared", "log(qp)")
    assert float(mirror.value(p + 50, p, q)) < float(mirror.value(p - 50, p, q))


def test_weights_of_table_3():
    p, q = np.array([100.0, 1.0]), np.array([4.0, 1.0])
    expect = {"1": [1, 1], "5+log(q/p)": [5 + math.log(0.04), 5], "5+log(p/q)": [5 + math.log(25), 5],
              "11+log(1/qp)": [11 - math.log(400), 11], "log(qp)": [math.log(400), 0]}
    for w, v in expect.items():
        assert np.allclose(P.Loss("sq", "sq", w).gamma(p, q), v)


def test_polynomial_basis():
    x = np.array([2.0, 3.0, 5.0])
    phi = P.polynomial(x)
    assert phi.shape == (P.poly_dim(3),) == (10,)
    assert sorted(phi.tolist()) == sorted([1, 2, 3, 5, 4, 9, 25, 6, 10, 15])
    assert P.poly_dim(P.N_FEATURES) == 231
    rows = np.arange(12.0).reshape(4, 3)
    assert np.allclose(P.polynomial(rows)[2], P.polynomial(rows[2]))


# ---------------------------------------------------------------- the features --

def J(rows, user):
    sub, run, req, q = (np.array(c) for c in zip(*rows))
    return Jobs(sub, run, req, q, user=np.array(user))


class RequestedAnyway(P.LearnedEstimator):
    """Learns and records features like the learned estimator, but schedules
    with the requested times, so that the schedule can be worked by hand."""

    def predict(self, job, now):
        super().predict(job, now)
        return int(self.jobs.req[job])


# m = 4, EASY-FCFS-FCFS with requested times (worked by hand):
#  idx job submit   p    p~  q user  start end
#   0   0    0    100   200  2  A     0   100
#   1   1   10     50   100  1  A    10    60
#   2   2   20     30    40  1  B    20    50
#   3   3   70     10  1000  4  A   100   110   (head at 70: j0 expected to end at 200)
#   4   5   80      5    10  1  A    80    85   (backfilled: 80 + 10 <= 200)
#   5   4  120      5    10  1  A   120   125
ROWS = [(0, 100, 200, 2), (10, 50, 100, 1), (20, 30, 40, 1), (70, 10, 1000, 4), (80, 5, 10, 1), (120, 5, 10, 1)]
USERS = [1, 1, 2, 1, 1, 1]


def _time(t):
    d, w = 2 * math.pi * (t % 86400) / 86400, 2 * math.pi * (t % 604800) / 604800
    return [math.cos(d), math.sin(d), math.cos(w), math.sin(w)]


#       req last1 last2 last3 ave2 ave3 aveall  q  aveq   ratio  avecurr run longest sum occ break
EXPECT = {
    0: [200, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0],
    1: [100, 0, 0, 0, 0, 0, 0, 1, 2, 0.5, 2, 1, 10, 10, 2, 0],
    2: [40, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0],
    3: [1000, 50, 0, 0, 50, 50, 50, 4, 1.5, 4 / 1.5, 2, 1, 70, 70, 2, 10],
    4: [10, 50, 0, 0, 50, 50, 50, 1, 7 / 3, 3 / 7, 2, 1, 80, 80, 2, 20],
    # completions of A: j1 (50) at 60, j5 (5) at 85, j0 (100) at 100, j3 (10) at 110
    5: [10, 10, 100, 5, 55, 115 / 3, 165 / 4, 1, 2, 0.5, 0, 0, 0, 0, 0, 10],
}
SUBMIT = [0, 10, 20, 70, 80, 120]


def test_features_of_table_2_on_a_hand_made_trace():
    jobs = J(ROWS, USERS)
    est = RequestedAnyway(jobs, keep_features=True)
    with Simulation(jobs, 4, "EASY-FCFS-FCFS", estimate=est) as sim:    # attaches est
        sim.run()
        s = sim.schedule
    assert s.start.tolist() == [0, 10, 20, 100, 80, 120]
    assert est.state_source == "started"
    assert len(P.FEATURES) == P.N_FEATURES == 20
    for j, want in EXPECT.items():
        assert np.allclose(est.features[j], want + _time(SUBMIT[j]), rtol=1e-12, atol=1e-12), (j, est.features[j])


def test_without_a_simulation_running_means_in_the_system():
    """Fed by hand (the calls the simulation of the trace above makes, in its order)."""
    jobs = J(ROWS, USERS)
    est = RequestedAnyway(jobs, keep_features=True)
    assert est.state_source == "in-system" and est.simulation is None
    for kind, j, t in [("p", 0, 0), ("p", 1, 10), ("p", 2, 20), ("o", 2, 50), ("o", 1, 60), ("p", 3, 70),
                       ("p", 4, 80), ("o", 4, 85), ("o", 0, 100), ("o", 3, 110), ("p", 5, 120)]:
        if kind == "p":
            est.predict(j, t)
        else:
            est.observe(j, t, int(jobs.run[j]))
    # at 80, user A has j0 running and j3 queued: both count, elapsed times unknown (0)
    f = dict(zip(P.FEATURES, est.features[4]))
    assert (f["running"], f["occupied"], f["ave_curr_q"], f["longest_running"], f["sum_running"]) == (2, 6, 3, 0, 0)


# ------------------------------------------------------------ the plumbing --

def _workload(n=600, seed=7):
    """Five users, each with a fixed runtime (and a request 4x it)."""
    rng = np.random.default_rng(seed)
    user = rng.integers(0, 5, n)
    base = np.array([60, 600, 1800, 5000, 20000])
    run = base[user]
    return Jobs(np.sort(rng.integers(0, 40 * 86400, n)), run, 4 * run, rng.integers(1, 9, n), user=user)


def test_learned_predictions_are_fed_to_the_scheduler_and_learned_from():
    jobs = _workload()
    s, est = P.simulate_learned(jobs, 16, "EASY-FCFS-SJBF", P.SQUARED_LOSS, "incremental", eta=5000.0, lam=0.0)
    assert np.all(s.start >= 0)                                 # every job predicted, then learned from
    assert est.model.t == len(jobs) and np.all(np.isfinite(est.raw))
    clipped = np.clip(np.round(est.raw), 1, jobs.req).astype(int)
    assert np.array_equal(s.predicted, clipped)                # what the scheduler used
    assert np.all((s.predicted >= 1) & (s.predicted <= jobs.req))
    # each user's runtime is constant: after a warm-up the squared loss gets close to it
    # (predicting the mean runtime would be off by about the mean)
    late = np.arange(len(jobs)) >= len(jobs) // 2
    d = (s.end - s.start)
    assert np.mean(np.abs(s.predicted[late] - d[late])) < 0.25 * np.mean(np.abs(d[late] - d[late].mean()))
    # deterministic
    s2, _ = P.simulate_learned(jobs, 16, "EASY-FCFS-SJBF", P.SQUARED_LOSS, "incremental", eta=5000.0, lam=0.0)
    assert np.array_equal(s.start, s2.start) and np.array_equal(s.predicted, s2.predicted)


def test_e_loss_learns_to_under_predict():
    jobs = _workload()
    s, _ = P.simulate_learned(jobs, 16, "EASY-FCFS-SJBF", P.E_LOSS, "incremental")
    sq, _ = P.simulate_learned(jobs, 16, "EASY-FCFS-SJBF", P.SQUARED_LOSS, "incremental")
    d = s.end - s.start
    assert np.mean(s.predicted < d) > 0.8
    assert np.mean(s.predicted < d) > np.mean(sq.predicted < sq.end - sq.start)
    assert np.mean(P.E_LOSS.value(s.predicted, d, jobs.procs)) < np.mean(P.E_LOSS.value(sq.predicted, d, jobs.procs))


class Exact(P.LearnedEstimator):
    def predict(self, job, now):
        super().predict(job, now)
        return int(min(self.jobs.run[job], self.jobs.req[job]))


@pytest.mark.parametrize("correction", ["requested", "incremental", "doubling"])
def test_an_exact_learned_estimator_reproduces_the_clairvoyant_schedule(correction):
    jobs = _workload(400, seed=11)
    est = Exact(jobs)
    with Simulation(jobs, 16, "EASY-FCFS-SJBF", estimate=est, correction=correction) as sim:
        sim.run()
        a = sim.schedule
    b = simulate(jobs, 16, "EASY-FCFS-SJBF", estimate="actual", correction=correction)
    assert np.array_equal(a.start, b.start) and np.array_equal(a.flags, b.flags)
    assert est.model.t == len(jobs)


def test_learned_estimator_errors():
    jobs = _workload(20)
    with pytest.raises(InputError, match="users"):
        P.simulate_learned(Jobs(jobs.submit, jobs.run, jobs.req, jobs.procs), 16)
    with pytest.raises(InputError, match="Simulation"):
        P.LearnedEstimator(jobs).attach(object())
    with pytest.raises(InputError, match="Jobs"):
        P.LearnedEstimator([1, 2, 3])


def test_quality():
    q = P.quality([10, 30, 5], [20, 20, 5], [1, 1, 1], losses=(P.E_LOSS, P.SQUARED_LOSS))
    assert q["mae"] == pytest.approx(20 / 3)
    assert q["under_share"] == pytest.approx(1 / 3)
    assert q["mean_loss:sq/sq/1"] == pytest.approx(200 / 3)
    g = math.log(20)
    assert q["mean_loss:sq/lin/log(qp)"] == pytest.approx((g * 10 + g * 100 + 0) / 3)


def test_a_clone_learns_on_its_own_and_matches_the_original():
    jobs = _workload(300, seed=13)
    est = P.LearnedEstimator(jobs, P.E_LOSS)
    with Simulation(jobs, 16, "EASY-FCFS-SJBF", estimate=est, correction="doubling") as sim:
        sim.run(int(jobs.submit[150]))
        clone = sim.clone()                  # attaches its copy of the estimator to itself
        assert clone.estimator.simulation is clone
        clone.run()
        sim.run()
        assert np.array_equal(clone.schedule.start, sim.schedule.start)
        assert np.array_equal(clone.schedule.predicted, sim.schedule.predicted)
        assert clone.estimator is not est and np.array_equal(clone.estimator.model.w, est.model.w)
        clone.close()
