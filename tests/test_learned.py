"""The learned estimator in the C core (sim.Learned, csrc/learned.c) against
its Python reference (prediction.LearnedEstimator): the same bits -- every
prediction, every raw value w . Phi(x), every feature, the model -- on
generated logs and on the first jobs of real ones, for several losses,
corrections and backfilling orders, with stepping, cloning, classes and
multiple queues; the public start-time hook of Python estimators; and the
errors of bad parameters."""
from __future__ import annotations

import numpy as np
import pytest

from schedlab.engine import prediction as P
from schedlab.engine import sim
from schedlab.engine._core import ffi, lib
from schedlab.errors import InputError, SimulationError
from schedlab.engine.sim import Jobs, Learned, Simulation, simulate

DAY = 86400


def log_window(trace: str, skip_weeks: int, n: int):
    """The first n cleaned jobs of a bundled log from its week skip_weeks on,
    and m (as the runtime-prediction study loads them; not importing the
    study keeps matplotlib out of the sanitised test run)."""
    from schedlab.workloads import traces, workload
    info = traces.resolve(trace)
    jobs, _ = workload.clean(traces.load(info), m=info.m, overrun="kill")
    jobs = jobs.subset(jobs.submit >= jobs.submit[0] + skip_weeks * 7 * DAY)
    return jobs.subset(np.arange(min(n, len(jobs)))), info.m


def workload(n=800, seed=0, users=9, m=32, t0=0):
    """Users with habits, requests that over- and under-estimate (p > p~:
    killed), some zero runtimes and zero requests, bursts at one instant."""
    rng = np.random.default_rng(seed)
    user = rng.integers(0, users, n)
    base = rng.choice([30, 300, 1800, 7200, 30000], users)[user]
    run = (base * rng.lognormal(0.0, 0.7, n)).astype(np.int64)
    run[rng.random(n) < 0.03] = 0
    req = (run * rng.choice([0.8, 1.0, 2.0, 5.0, 20.0], n)).astype(np.int64) + rng.integers(0, 600, n)
    req[rng.random(n) < 0.01] = 0
    submit = t0 + np.sort(rng.integers(0, 30 * DAY, n))
    submit[1::17] = submit[0::17][: len(submit[1::17])]          # simultaneous submissions
    submit = np.sort(submit)
    return Jobs(submit, run, req, rng.integers(1, m // 2 + 1, n), user=1000 + 7 * user), m


def both(jobs, m, policy="EASY-FCFS-SJBF", loss=P.E_LOSS, correction="incremental", eta=P.DEFAULT_ETA,
         lam=P.DEFAULT_LAM, **kw):
    """(C simulation, Python simulation), both run to the end."""
    c = Simulation(jobs, m, policy, estimate=Learned(loss, eta, lam), correction=correction, **kw).run()
    est = P.LearnedEstimator(jobs, loss, eta, lam, keep_features=True)
    py = Simulation(jobs, m, policy, estimate=est, correction=correction, **kw).run()
    return c, py


def assert_same(c: Simulation, py: Simulation):
    """Bit for bit: schedule, predictions, raw values, features, model."""
    a, b = c.schedule, py.schedule
    est = py.estimator
    for name in ("start", "end", "flags", "predicted"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    raw = c.learned_raw
    assert np.array_equal(raw.view(np.int64), est.raw.view(np.int64)), "raw bits"     # NaN and -0.0 too
    model = c.learned_model()
    for name, ref in (("w", est.model.w), ("s", est.model.s), ("G", est.model.G)):
        assert np.array_equal(model[name].view(np.int64), ref.view(np.int64)), name
    assert model["N"] == est.model.N and model["t"] == est.model.t
    if est.features is not None:
        for j in range(0, len(a.start), max(1, len(a.start) // 50)):
            if j in est.features:
                assert np.array_equal(c.learned_features(j), np.array(est.features[j])), j


# ------------------------------------------------------------- same bits --

@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("correction", ["incremental", "doubling", "requested", "none"])
def test_generated_logs_same_bits(seed, correction):
    # a clock that starts mid-day (submit times are >= 0: the core refuses negative ones, issue 17)
    jobs, m = workload(seed=seed, t0=3 * DAY // 7 + 1234 * seed)
    loss = P.LOSSES[(5 * seed + len(correction)) % len(P.LOSSES)]
    for policy in ("EASY-FCFS-SJBF", "EASY-FCFS-FCFS"):
        c, py = both(jobs, m, policy, loss, correction)
        assert (c.schedule.start >= 0).all()
        assert_same(c, py)
        assert np.all(np.isfinite(c.learned_raw))


@pytest.mark.parametrize("loss", P.LOSSES, ids=lambda x: x.name)
def test_every_loss_same_bits(loss):
    jobs, m = workload(400, seed=7)
    assert_same(*both(jobs, m, "EASY-FCFS-SJBF", loss, "incremental"))


@pytest.mark.parametrize("eta,lam", [(5000.0, 0.0), (50.0, 2e9), (1e5, 1e3)])
def test_learning_parameters_same_bits(eta, lam):
    jobs, m = workload(500, seed=3)
    assert_same(*both(jobs, m, "EASY-FCFS-SJBF", P.SQUARED_LOSS, "doubling", eta, lam))


@pytest.mark.parametrize("trace,skip", [("KTH-SP2", 0), ("CTC-SP2", 0), ("SDSC-BLUE", 0), ("CEA-Curie", 5)])
def test_real_logs_same_bits(trace, skip):
    """The first 2,000 jobs of bundled logs (CEA-Curie: from its 6th week, its
    first ones are nearly idle)."""
    jobs, m = log_window(trace, skip, 2000)
    for loss, correction, policy in ((P.E_LOSS, "incremental", "EASY-FCFS-SJBF"),
                                     (P.SQUARED_LOSS, "doubling", "EASY-FCFS-FCFS"),
                                     (P.Loss("lin", "sq", "11+log(1/qp)"), "requested", "EASY-FCFS-SJBF")):
        c, py = both(jobs, m, policy, loss, correction)
        assert_same(c, py)


def test_classes_and_requeued_jobs_same_bits():
    """Jobs killed at the divider and requeued stop running (for the
    features) until they restart."""
    jobs, m = workload(600, seed=5)
    rng = np.random.default_rng(5)
    classes = rng.random(len(jobs)) < 0.5
    c, py = both(jobs, m, "EASY-FCFS-SJBF", P.E_LOSS, "incremental", classes=classes, divider=1800)
    assert c.schedule.requeued.sum() > 10
    assert_same(c, py)


def test_multiple_queues_and_thresholds_same_bits():
    jobs, m = workload(600, seed=6)
    assert_same(*both(jobs, m, "EASY-FCFS-FCFS", P.E_LOSS, "none", partitions=3, criteria=[600, 7200]))
    assert_same(*both(jobs, m, sim.Policy("SPF", "SJBF", threshold="6h"), P.SQUARED_LOSS, "incremental"))


def test_simulate_learned_engines_agree():
    jobs, m = workload(500, seed=8)
    a, ma = P.simulate_learned(jobs, m, loss="lin/lin/5+log(p/q)", correction="doubling")
    b, mb = P.simulate_learned(jobs, m, loss="lin/lin/5+log(p/q)", correction="doubling", engine="python")
    assert isinstance(ma, P.TrainedModel) and isinstance(mb, P.LearnedEstimator)
    assert np.array_equal(a.predicted, b.predicted) and np.array_equal(a.start, b.start)
    assert np.array_equal(ma.raw, mb.raw) and ma.loss == mb.loss
    for name in ("w", "s", "inv_s", "G"):
        assert np.array_equal(getattr(ma.model, name), getattr(mb.model, name)), name
    assert (ma.model.N, ma.model.t) == (mb.model.N, mb.model.t) == (mb.model.N, len(jobs))
    # the trained model is usable: it predicts what the simulation would predict next
    phi = P.polynomial(np.arange(20.0))
    assert ma.model.predict(phi) == mb.model.predict(phi)
    assert a.estimate == "learned"
    with pytest.raises(InputError, match="engine"):
        P.simulate_learned(jobs, m, engine="fortran")


def test_features_of_the_hand_made_trace():
    """The hand-worked features of test_prediction, read from the C core: the
    first three jobs' (later ones depend on the schedule, which there used
    the requested times), then every job's against the Python reference."""
    from test_prediction import EXPECT, ROWS, SUBMIT, USERS, J, _time

    jobs = J(ROWS, USERS)
    with Simulation(jobs, 4, "EASY-FCFS-FCFS", estimate="learned") as s:
        with pytest.raises(InputError, match="not a submitted job"):
            s.learned_features(0)
        s.run()
        for j in (0, 1, 2):
            assert np.allclose(s.learned_features(j), EXPECT[j] + _time(SUBMIT[j]), rtol=1e-12, atol=1e-12), j
        with pytest.raises(InputError, match="not a submitted job"):
            s.learned_features(len(jobs))
    c, py = both(jobs, 4, "EASY-FCFS-FCFS", P.E_LOSS, "none")
    for j in range(len(jobs)):
        assert np.array_equal(c.learned_features(j), np.array(py.estimator.features[j])), j
    assert_same(c, py)


# ------------------------------------------------------ stepping and clone --

def test_stepping_and_clone_copy_the_model():
    jobs, m = workload(700, seed=9)
    whole = Simulation(jobs, m, "EASY-FCFS-SJBF", estimate=Learned("E-Loss"), correction="incremental").run()
    s = Simulation(jobs, m, "EASY-FCFS-SJBF", estimate=Learned("E-Loss"), correction="incremental")
    cut = int(jobs.submit[350])
    s.run(cut // 2).run(cut)
    before = s.learned_model()
    assert 0 < before["t"] < len(jobs)
    clone = s.clone()
    copied = clone.learned_model()
    for k in ("w", "s", "G"):
        assert np.array_equal(copied[k], before[k])
    assert (copied["N"], copied["t"]) == (before["N"], before["t"])
    assert np.array_equal(clone.learned_raw, s.learned_raw, equal_nan=True)
    clone.run()
    # the clone learned on its own: the original's model has not moved
    after = s.learned_model()
    assert np.array_equal(after["w"], before["w"]) and after["t"] == before["t"]
    assert clone.learned_model()["t"] == len(jobs)
    s.run()
    for x in (s, clone):
        assert np.array_equal(x.schedule.predicted, whole.schedule.predicted)
        assert np.array_equal(x.schedule.start, whole.schedule.start)
        assert np.array_equal(x.learned_model()["w"], whole.learned_model()["w"])
        assert np.array_equal(x.learned_raw, whole.learned_raw)
    # the clone of a clone, and closing the original first
    c2 = clone.clone()
    clone.close()
    assert np.array_equal(c2.learned_model()["w"], whole.learned_model()["w"])


def test_a_clone_of_a_python_estimator_sees_the_clones_start_times():
    jobs, m = workload(400, seed=10)
    est = P.LearnedEstimator(jobs, P.E_LOSS)
    s = Simulation(jobs, m, "EASY-FCFS-SJBF", estimate=est, correction="incremental")
    assert est.simulation is s and s.estimator is est and est.state_source == "started"
    assert np.shares_memory(est.tracker.start, s.start_times)
    s.run(int(jobs.submit[200]))
    clone = s.clone()
    ce = clone.estimator
    assert ce is not est and ce.simulation is clone and est.simulation is s
    assert np.shares_memory(ce.tracker.start, clone.start_times)
    assert not np.shares_memory(ce.tracker.start, s.start_times)
    frozen = s.start_times.copy()
    clone.run()
    # the clone's estimator read the clone's starts, which moved on; the original's did not
    assert np.array_equal(ce.tracker.start, clone.schedule.start)
    assert np.array_equal(s.start_times, frozen) and np.array_equal(est.tracker.start, frozen)
    assert (clone.schedule.start >= 0).all() and (frozen < 0).any()
    # ... and learned as the uncloned run did (features from the clone's start times)
    s.run()
    assert np.array_equal(clone.schedule.predicted, s.schedule.predicted)
    assert np.array_equal(ce.raw, est.raw)
    c = Simulation(jobs, m, "EASY-FCFS-SJBF", estimate=Learned(P.E_LOSS), correction="incremental").run()
    assert np.array_equal(c.learned_raw, ce.raw)


def test_start_times_is_a_live_read_only_view():
    jobs, m = workload(100, seed=11)
    s = Simulation(jobs, m)
    view = s.start_times
    assert (view == -1).all()
    with pytest.raises(ValueError):
        view[0] = 5
    s.run()
    assert np.array_equal(view, s.schedule.start) and (view >= 0).all()


def test_every_python_estimator_is_attached():
    class Recorder(sim.Estimator):
        def predict(self, job, now):
            # the simulation is reachable from inside a callback
            self.seen = self.simulation.state["submitted"]
            return 10

    jobs, m = workload(50, seed=12)
    r = Recorder()
    assert r.simulation is None
    with Simulation(jobs, m, estimate=r) as s:
        assert r.simulation is s
        s.run()
    assert r.seen == len(jobs) - 1
    import copy
    import pickle
    assert copy.deepcopy(r).simulation is None
    est = P.LearnedEstimator(jobs)
    with Simulation(jobs, m, estimate=est) as s:
        assert pickle.loads(pickle.dumps(est)).simulation is None and est.simulation is s


# ---------------------------------------------------------------- errors --

def test_learned_parameters_are_validated():
    assert Learned() == Learned("E-Loss", P.DEFAULT_ETA, P.DEFAULT_LAM) and Learned().loss == P.E_LOSS
    assert str(Learned("sq/sq/1", 10, 0)) == "learned(sq/sq/1, eta=10, lam=0)"
    for kw, match in [(dict(eta=0), "eta"), (dict(eta=float("nan")), "eta"), (dict(eta="5"), "eta"),
                      (dict(lam=-1.0), "lam"), (dict(lam=float("inf")), "lam"), (dict(eta=True), "eta"),
                      (dict(loss="sq/cube/1"), "loss"), (dict(loss="sq/lin/log(pq)"), "weight")]:
        with pytest.raises(InputError, match=match):
            Learned(**kw)
    jobs, m = workload(20)
    bare = Jobs(jobs.submit, jobs.run, jobs.req, jobs.procs)
    with pytest.raises(InputError, match="users"):
        simulate(bare, m, estimate="learned")
    with pytest.raises(InputError, match="learned"):
        simulate(jobs, m, estimate="learnt")
    s = Simulation(jobs, m, estimate="requested")
    for call in (s.learned_model, lambda: s.learned_raw, lambda: s.learned_features(0)):
        with pytest.raises(InputError, match="learned estimate"):
            call()
    with pytest.raises(InputError, match="learned estimate"):
        P.TrainedModel.of(s)


def _core_config(jobs, over=0, under=1, weight=4, eta=1.0, lam=0.0, users=True):
    n = len(jobs)
    keep = []

    def arr(t, a):
        c = ffi.from_buffer(t, a)
        keep.append((a, c))
        return c
    cj = ffi.new("sl_jobs *")
    cj.n = n
    for name in ("submit", "run", "req", "id"):
        setattr(cj, name, arr("int64_t[]", getattr(jobs, name)))
    cj.procs = arr("int32_t[]", jobs.procs)
    if users:
        cj.user = arr("int32_t[]", np.zeros(n, np.int32))
        cj.nusers = 1
    cfg = ffi.new("sl_config *")
    cfg.m = 32
    cfg.estimate = lib.SL_EST_LEARNED
    cfg.learned.over, cfg.learned.under, cfg.learned.weight = over, under, weight
    cfg.learned.eta, cfg.learned.lam = eta, lam
    out = ffi.new("sl_out *")
    outs = [np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.uint8)]
    out.start, out.end, out.flags = (arr(t, a) for t, a in zip(("int64_t[]", "int64_t[]", "uint8_t[]"), outs))
    return cj, cfg, out, keep


@pytest.mark.parametrize("kw,match", [
    (dict(over=2), "over-prediction branch 2"), (dict(under=-1), "under-prediction branch -1"),
    (dict(weight=5), "loss weight 5"), (dict(eta=0.0), "eta"), (dict(eta=float("inf")), "eta"),
    (dict(lam=-1.0), "lam"), (dict(lam=float("nan")), "lam"), (dict(users=False), "learned needs the users")])
def test_core_refuses_bad_learned_parameters(kw, match):
    jobs, _ = workload(10)
    cj, cfg, out, _keep = _core_config(jobs, **kw)
    err = ffi.new("char[]", 256)
    ptr = ffi.new("sl_sim **")
    assert lib.sl_sim_new(cj, cfg, out, ptr, err, 256) == lib.SL_EINVAL
    assert match in ffi.string(err).decode()
    assert ptr[0] == ffi.NULL


def test_core_getters_refuse_other_estimates():
    jobs, m = workload(10)
    s = Simulation(jobs, m)
    h = s._handle
    assert lib.sl_sim_learned_model(h, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL) == lib.SL_ESTATE
    assert lib.sl_sim_learned_raw(h, ffi.NULL, 0) == lib.SL_ESTATE
    c = Simulation(jobs, m, estimate="learned")
    raw = np.empty(len(jobs) + 1)
    assert lib.sl_sim_learned_raw(c._handle, ffi.from_buffer("double[]", raw), len(raw)) == lib.SL_EINVAL
    x = np.empty(20)
    assert lib.sl_sim_learned_features(c._handle, -1, ffi.from_buffer("double[]", x)) == lib.SL_EINVAL
    with pytest.raises(SimulationError):
        sim._check(lib.sl_sim_learned_model(h, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL), "model")
