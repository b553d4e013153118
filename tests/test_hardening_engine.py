"""Issue 17, engine half: the minimal reproducers of the hardening issue, each
of which gave a wrong result, a raw exception, a crash or a hang before the
fix.  Every one now raises a clear schedlab error or gives the right result."""
import math
import threading

import numpy as np
import pytest

from schedlab.errors import InputError, SchedlabError, SimulationError
from schedlab.engine.sim import TIME_MAX, Estimator, Jobs, Simulation, simulate
from schedlab.engine._core import lib


def J(rows, **kw):
    """rows: (submit, run, req, procs) tuples; ids 1..n."""
    a = np.array(rows, dtype=object).reshape(-1, 4)
    return Jobs(*(a[:, k].astype(np.int64) for k in range(4)), **kw)


def busy_max(s) -> int:
    """Largest number of processors busy at once (ends before starts at one instant)."""
    ev = sorted([(int(e), -int(q)) for e, q in zip(s.end, s.jobs.procs)] +
                [(int(b), int(q)) for b, q in zip(s.start, s.jobs.procs)])
    used = top = 0
    for _, dq in ev:
        used += dq
        top = max(top, used)
    return top


# ------------------------------------------------------ 1. int64 overflow --

def test_sum_of_times_beyond_the_bound_is_refused_not_wrapped():
    # Before: the fifth job ended at -6.9e18 and utilisation was 1.25.
    big = 2 ** 61 - 1
    jobs = Jobs([0] * 5, [big] * 5, [big] * 5, [1] * 5)
    with pytest.raises(SimulationError, match=r"job 2 \(index 1\): time value too large.*2\^61"):
        simulate(jobs, 1)


def test_times_up_to_the_bound_are_exact():
    assert lib.sl_time_max() == TIME_MAX == 2 ** 61
    jobs = Jobs([TIME_MAX - 30, TIME_MAX - 30], [10, 20], [10, 20], [1, 1])
    s = simulate(jobs, 1)
    assert s.start.tolist() == [TIME_MAX - 30, TIME_MAX - 20] and s.end.tolist() == [TIME_MAX - 20, TIME_MAX]
    for rows, field in (([(TIME_MAX + 1, 1, 1, 1)], "submit"), ([(0, TIME_MAX + 1, 1, 1)], "run"),
                        ([(0, 1, TIME_MAX + 1, 1)], "req"), ([(0, 1, 1, 1), (TIME_MAX, 1, 1, 1)], None)):
        with pytest.raises(SimulationError, match="time value too large") as e:
            simulate(J(rows), 1)
        assert field is None or f"field {field}" in str(e.value)


def test_overrun_and_requeue_count_in_the_timeline():
    # With overrun="run" a job holds processors for its runtime, not its request;
    # a false small job holds them for its divider, then again for its runtime.
    half = TIME_MAX // 2
    jobs = J([(0, half + 1, 10, 1), (0, half, 10, 1)])
    simulate(jobs, 1)                                  # killed at 10: fine
    with pytest.raises(SimulationError, match="time value too large"):
        simulate(jobs, 1, overrun="run")
    jobs = J([(0, half, half, 1), (0, 10, 10, 1)])
    simulate(jobs, 1, classes=[0, 0], divider=half - 1)
    with pytest.raises(SimulationError, match="time value too large"):
        simulate(jobs, 1, classes=[1, 0], divider=half - 1)


def test_too_large_message_names_the_swf_file_and_line():
    big = 2 ** 61 - 1
    jobs = Jobs([0, 0], [big, big], [big, big], [1, 1], source="logs/x.swf", lines=[12, 13])
    with pytest.raises(SimulationError, match=r"^logs/x\.swf:13: job 2 \(index 1\): time value too large"):
        simulate(jobs, 1)


# ------------------------------------------------ 2. estimator return values --

class Returns(Estimator):
    def __init__(self, value):
        self.value = value

    def predict(self, job, now):
        return self.value


@pytest.mark.parametrize("value", [2 ** 80, 2 ** 63 - 1, TIME_MAX + 1, 7.9, None, math.nan, math.inf, "abc", -1,
                                   True, np.float64(2.5), [3]], ids=repr)
def test_estimator_values_out_of_range_raise_from_run(value, capfd):
    jobs = J([(0, 10, 20, 1), (5, 10, 20, 1)], source="a.swf", lines=[3, 4])
    sim = Simulation(jobs, 1, estimate=Returns(value))
    with pytest.raises(InputError, match=r"a\.swf:3: job 1 \(index 0\): the estimator's predict returned"):
        sim.run()
    assert "Exception ignored" not in capfd.readouterr().err
    with pytest.raises(SimulationError, match="stopped at an estimator error"):
        sim.run()
    assert sim.schedule.start.tolist() == [-1, -1]


@pytest.mark.parametrize("value", [0, 7, 7.0, np.int64(7), np.float32(7.0), TIME_MAX])
def test_estimator_whole_values_are_used(value):
    jobs = J([(0, 10, 20, 1), (5, 10, 20, 1)])
    s = Simulation(jobs, 1, estimate=Returns(value)).run().schedule
    assert s.predicted.tolist() == [int(value)] * 2 and s.start.tolist() == [0, 10]


def test_an_observe_error_stops_the_run_at_the_next_submission():
    class Bad(Returns):
        def observe(self, job, now, runtime):
            raise KeyError("observe broke")

    jobs = J([(0, 10, 20, 1), (50, 10, 20, 1)])
    sim = Simulation(jobs, 1, estimate=Bad(5))
    with pytest.raises(KeyError, match="observe broke"):
        sim.run()
    assert sim.state["submitted"] == 1


# --------------------------------------------------- 3. negative submit times --

def test_negative_submit_times_are_refused():
    # Before: summary()["jobs"] was 0 and AvgWait NaN (start < 0 means "not started").
    with pytest.raises(InputError, match=r"job 1 \(index 0\): field submit: negative submit time -100"):
        simulate(J([(-100, 10, 10, 1), (-50, 10, 10, 1)]), 1)
    s = simulate(J([(0, 10, 10, 1), (50, 10, 10, 1)]), 1)
    assert s.summary()["jobs"] == 2


# ----------------------------------------------- 4. set_cutoff and the clock --

def test_set_cutoff_never_moves_time_backwards():
    # A (2 procs) runs 0-30; B (1 proc) is submitted at 10.  With the cutoff at
    # 0, run(50) processes A alone; letting B in afterwards used to submit it
    # at 10 and start it while A held both processors (3 busy on m = 2).
    jobs = J([(0, 30, 30, 2), (10, 100, 100, 1)])
    sim = Simulation(jobs, 2).set_cutoff(0).run(50)
    with pytest.raises(SimulationError, match=r"job 2 \(index 1\) submitted at 10 would be submitted in the past"):
        sim.set_cutoff(None)
    sim.set_cutoff(5)                                   # nothing let in: fine
    sim.run()
    s = sim.schedule
    assert s.start.tolist() == [0, -1] and busy_max(s) <= 2


def test_raising_the_cutoff_before_the_time_passes_is_one_run():
    jobs = J([(0, 30, 30, 2), (10, 100, 100, 1), (40, 5, 5, 2)])
    sim = Simulation(jobs, 2).set_cutoff(0).run(9).set_cutoff(None).run()
    assert sim.schedule.start.tolist() == simulate(jobs, 2).start.tolist()
    # the clock counts `until` too, not only event times
    sim = Simulation(jobs, 2).set_cutoff(0).run(10)
    with pytest.raises(SimulationError, match="in the past"):
        sim.set_cutoff(10)
    c = Simulation(jobs, 2).set_cutoff(0).run(5).clone()
    assert c.set_cutoff(None).run().schedule.start.tolist() == simulate(jobs, 2).start.tolist()


# ------------------------------------------------ 6. argument conversion --

@pytest.mark.parametrize("call", [
    lambda s: s.run(until=2 ** 63), lambda s: s.run(until=math.nan), lambda s: s.run(until="abc"),
    lambda s: s.run(until=1.5), lambda s: s.run(until=True),
    lambda s: s.set_cutoff(2 ** 63), lambda s: s.set_cutoff("abc"), lambda s: s.set_cutoff(math.inf),
    lambda s: s.set_partitions("abc"), lambda s: s.set_partitions(2.5), lambda s: s.set_partitions(99),
    lambda s: s.set_partitions(2, criteria="abc"), lambda s: s.set_partitions(2, criteria=5),
    lambda s: s.set_policy("EASY-FCFS-FCFS", threshold=2 ** 70), lambda s: s.set_policy("FCFS", threshold=True),
    lambda s: s.set_policy("FCFS", threshold="9" * 4300), lambda s: s.set_recompute("1d", origin="x"),
    lambda s: s.learned_features("abc"),
], ids=lambda f: "")
def test_bad_arguments_raise_schedlab_errors(call):
    jobs = J([(0, 10, 20, 1), (5, 10, 20, 1)])
    with Simulation(jobs, 2) as sim:
        with pytest.raises(SchedlabError):
            call(sim)
        assert sim.run().finished                      # nothing changed


@pytest.mark.parametrize("kw", [dict(m=1.9), dict(m=True), dict(m="2"), dict(m=2 ** 40), dict(threshold=True),
                                dict(threshold=2 ** 70), dict(threshold="1e999"), dict(partitions="abc"),
                                dict(partitions=1.5), dict(correction=["x"]), dict(overrun={}),
                                dict(divider=True, classes=[1, 0]), dict(policy=("FCFS", 5)),
                                dict(policy="MIXED(1,2,abc)")], ids=repr)
def test_bad_construction_arguments_raise_schedlab_errors(kw):
    jobs = J([(0, 10, 20, 1), (5, 10, 20, 1)])
    kw = {"m": 2, **kw}
    with pytest.raises(SchedlabError):
        simulate(jobs, **kw)


def test_whole_floats_are_accepted_not_truncated():
    jobs = J([(0, 10, 20, 1), (5, 10, 20, 1)])
    assert simulate(jobs, 2.0).start.tolist() == simulate(jobs, 2).start.tolist()
    sim = Simulation(jobs, 1).run(until=5.0)
    assert sim.state["now"] == 5


# ------------------------------------------------- 8. threads, re-entrancy --

class Gate(Estimator):
    """predict waits (in the run's thread, inside the core) until released."""

    def __init__(self):
        self.inside, self.release = threading.Event(), threading.Event()

    def __deepcopy__(self, memo):
        return Gate()

    def predict(self, job, now):
        self.inside.set()
        assert self.release.wait(30)
        return 10


@pytest.mark.parametrize("action", ["close", "run", "clone", "set_policy", "set_cutoff", "set_partitions"])
def test_a_call_during_a_run_in_another_thread_raises(action):
    jobs = J([(0, 10, 20, 1), (5, 10, 20, 1), (6, 10, 20, 1)])
    gate = Gate()
    sim = Simulation(jobs, 1, estimate=gate)
    errors = []
    t = threading.Thread(target=lambda: errors.append(sim.run()))
    t.start()
    try:
        assert gate.inside.wait(30)
        args = {"set_policy": ("SPF",), "set_cutoff": (3,), "set_partitions": (1,)}.get(action, ())
        with pytest.raises(SimulationError, match="simulation is busy"):
            getattr(sim, action)(*args)
    finally:
        gate.release.set()
        t.join(30)
    assert not t.is_alive() and errors == [sim]
    assert sim.finished and sim.schedule.start.tolist() == [0, 10, 20]
    sim.close()
    with pytest.raises(SimulationError, match="closed"):
        sim.run()


@pytest.mark.parametrize("action", ["close", "run", "clone", "set_cutoff"])
def test_an_estimator_re_entering_its_simulation_raises(action):
    class Reenter(Estimator):
        def predict(self, job, now):
            sim = self.simulation
            assert sim.state["submitted"] == job           # reading the state is fine
            getattr(sim, action)(*((3,) if action == "set_cutoff" else ()))
            return 10

    jobs = J([(0, 10, 20, 1), (5, 10, 20, 1)])
    sim = Simulation(jobs, 1, estimate=Reenter())
    with pytest.raises(SimulationError, match=f"{action}: simulation is busy"):
        sim.run()
    sim.close()


# ------------------------------------------------------------- 9. time bombs --

def test_incremental_correction_far_in_the_future_is_immediate():
    # A job estimated 1 s that runs 2^59 s, then a submission at 2^58: the
    # correction used to add 100 h ~8e11 times (hours); now a closed form.
    big = 2 ** 59
    jobs = J([(0, big, big, 1), (big // 2, 1, 1, 1)])
    est = np.array([1, 1])
    s = simulate(jobs, 1, estimate=est, correction="incremental")
    assert s.start.tolist() == [0, big]
    # the corrected estimate: 1 + 60 + 300 + ... + 180000 + k * 360000 > 2^58
    sim = Simulation(jobs, 2, estimate=est, correction="incremental").run(big // 2)
    assert sim.state["running"] == 2


def test_incremental_correction_matches_the_stepwise_definition():
    # Jobs outliving their estimates by every amount around the increments'
    # boundaries; the closed form must give the stepwise corrections.
    inc = [60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000]
    rows, est = [], []
    for k, late in enumerate([0, 1, 59, 60, 61, 359, 360, 361, 4 * 3600, 10 ** 6, 5 * 10 ** 6, 3 * 10 ** 7]):
        rows.append((0, 10 + late + 3 * 10 ** 7, 10 ** 9 + k, 1))
        est.append(10)
    probes = sorted({10 + x for x in (0, 1, 59, 60, 61, 359, 360, 361, 1800, 10 ** 6, 2 * 10 ** 6, 3 * 10 ** 7)})
    rows += [(t, 1, 1, 1) for t in probes]
    est += [1] * len(probes)
    jobs = J(sorted(rows, key=lambda r: r[0]))
    order = sorted(range(len(rows)), key=lambda i: rows[i][0])      # stable, as the sort of rows
    est = np.array([est[i] for i in order])
    m = 12
    got = simulate(jobs, m + 1, estimate=est, correction="incremental")

    # stepwise reference of the estimates (csrc/SEMANTICS.md): a job's k-th
    # correction adds inc[min(k, 10)] while its estimated end is <= t and e < p~
    from reference import reference_simulate
    want = reference_simulate(jobs.submit.tolist(), jobs.run.tolist(), jobs.req.tolist(), jobs.procs.tolist(),
                              jobs.id.tolist(), m + 1, "FCFS", "FCFS", estimate=est.tolist(),
                              correction="incremental")
    assert got.start.tolist() == list(want["start"])


@pytest.mark.parametrize("kw", [dict(policy="EASY-FCFS-FCFS"), dict(policy="EASY-SPF-SAF", threshold="2h"),
                                dict(policy="EASY-LQF-FCFS", threshold="1h", threshold_backfill=True),
                                dict(policy="EASY-FCFS-SJBF", estimate="easy++", correction="incremental"),
                                dict(policy="EASY-LEXP-SPF", estimate="actual", overrun="run"),
                                dict(policy="EASY-FCFS-LRF", correction="doubling", classes="half", divider=500)],
                         ids=lambda kw: kw["policy"])
def test_long_queues_walk_by_blocks_like_entry_by_entry(kw):
    # Thousands of jobs queued at once: the backfilling walk over block
    # summaries must start the same jobs at the same times as the plain walk.
    rng = np.random.default_rng(17)
    n = 3000
    run = rng.integers(0, 5000, n)
    req = np.maximum(run * rng.integers(1, 4, n) - rng.integers(0, 300, n), 0)
    submit = np.sort(np.concatenate([np.zeros(n // 2, np.int64), rng.integers(0, 200_000, n - n // 2)]))
    jobs = Jobs(submit, run, req, rng.integers(1, 100, n), user=rng.integers(0, 20, n))
    kw = dict(kw)
    if kw.get("classes") == "half":
        kw["classes"] = rng.random(n) < 0.5
    results = []
    for tree_min in (0, 1 << 30):
        old = lib.sl_debug_tree_min(tree_min)
        try:
            s = simulate(jobs, 100, **kw)
        finally:
            lib.sl_debug_tree_min(old)
        results.append([s.start.tolist(), s.end.tolist(), s.flags.tolist()])
    assert results[0] == results[1]
    assert results[0][1] != [-1] * n
