"""Study 12 (learning to dispatch): the kernel network's gradient, the
training's determinism, the frozen agent's evaluation against the
heuristics' path (a constant network is always-first, SchedGym's FCFS), the
halves, and the comparison rows on hand-made scores.  Tiny sizes: seconds."""
from __future__ import annotations

import numpy as np
import pytest

from schedlab.protocol.study import tiny_log
from schedlab.studies.dispatching import cells
from schedlab.studies.dispatching.analysis import REFERENCE, rows


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tiny_log(tmp_path_factory.mktemp("dispatching") / "tiny.swf", n=400, weeks=1, m=16)   # a busy machine
    return cells.cleaned(str(path), None, "kill")


def test_the_kernel_gradient_is_the_finite_difference_one():
    rng = np.random.default_rng(1)
    net = cells.KernelPolicy(rng=rng)
    net.load(net.flat() + rng.normal(0, 0.3, net.size))
    x = rng.normal(size=(3, 7, len(cells.FEATURES)))
    mask = np.ones((3, 7), bool)
    mask[1, 4:] = False
    a = np.array([2, 1, 6])

    def logp(theta):
        net.load(theta)
        p = cells.masked_softmax(net.forward(x)[0], mask)
        return np.log(p[np.arange(3), a]).sum()

    theta = net.flat().copy()
    scores, acts = net.forward(x)
    d = -cells.masked_softmax(scores, mask)
    d[np.arange(3), a] += 1.0
    grad = np.concatenate([g.sum(axis=0).ravel() for g in net.backward(acts, d)])
    pick = rng.choice(theta.size, 60, replace=False)
    eye = np.eye(theta.size)
    num = np.array([(logp(theta + 1e-6 * eye[i]) - logp(theta - 1e-6 * eye[i])) / 2e-6 for i in pick])
    assert np.allclose(num, grad[pick], atol=1e-6)
    assert net.size == 5 * 32 + 32 + 32 * 16 + 16 + 16 * 8 + 8 + 8 + 1


def test_the_softmax_gives_no_weight_to_a_masked_job():
    p = cells.masked_softmax(np.array([[5.0, 1.0, 9.0]]), np.array([[True, True, False]]))
    assert p[0, 2] == 0.0 and p.sum() == pytest.approx(1.0) and p[0, 0] > p[0, 1]


def test_the_halves_do_not_share_a_job(log):
    jobs, _ = log
    n = len(jobs)
    train, test = cells.halves(n, 32)
    assert train.max() + 32 <= n // 2 <= test.min() and test.max() + 32 <= n
    starts = cells.held_out(n, 32, 12, 0)
    assert len(set(starts)) == 12 and set(starts) <= set(test)
    assert np.array_equal(starts, cells.held_out(n, 32, 12, 0))
    with pytest.raises(Exception, match="each half needs"):
        cells.halves(40, 32)


def test_training_is_the_same_for_a_seed_and_moves_the_weights(log):
    jobs, m = log
    train, _ = cells.halves(len(jobs), 32)
    kw = dict(epochs=2, envs=4, group=2, lr=0.01, sequence=32, rules="schedgym")
    a = cells.train(jobs, m, train, seed=3, **kw)
    b = cells.train(jobs, m, train, seed=3, **kw)
    c = cells.train(jobs, m, train, seed=4, **kw)
    assert np.array_equal(a.policy.flat(), b.policy.flat()) and np.array_equal(a.curve_agent, b.curve_agent)
    assert not np.array_equal(a.policy.flat(), c.policy.flat())
    init = cells.KernelPolicy(rng=np.random.default_rng(np.random.SeedSequence(3, spawn_key=(2,))))
    assert not np.array_equal(a.policy.flat(), init.flat())
    assert a.steps > 0 and np.isfinite(a.curve_agent).all() and (a.curve_sjf >= 1.0).all()
    assert a.check_epochs.size == 0 and a.cpu_seconds > 0


@pytest.mark.parametrize("rules", ["schedgym", "easy"])
def test_a_constant_network_is_always_first_which_is_fcfs(log, rules):
    """Equal scores: the greedy agent names the first visible job (FCFS order),
    so its evaluation must give the FCFS heuristic's scores, sequence by sequence."""
    jobs, m = log
    net = cells.KernelPolicy()
    net.load(np.zeros(net.size))
    starts = cells.held_out(len(jobs), 32, 6, 1)
    got = cells.run_greedy(net, jobs, m, starts, sequence=32, rules=rules)
    want = [cells.heuristic_bsld(jobs.subset(slice(int(s), int(s) + 32)), m, "FCFS", rules) for s in starts]
    assert got.tolist() == want


def test_the_cells_run_on_the_same_held_out_sequences(log, tmp_path):
    path = str(tiny_log(tmp_path / "t.swf"))     # the protocol check's quiet log
    common = dict(trace=path, sequence=32, sequences=5, seed=2)
    h = cells.heuristic_cell({**common, "heuristic": "SJF"})
    a = cells.agent_cell({**common, "epochs": 1, "envs": 4, "group": 2, "lr": 0.01})
    assert np.array_equal(h["heldout_start"][1], a["heldout_start"][1])
    assert a["curve_agent"][0] == ("epoch",) and a["curve_agent"][1].shape == (1,)
    assert a["kernel_weights"][1].size == cells.KernelPolicy().size
    assert a["check_epoch"][1].tolist() == [0, 1] and a["check_heuristic_bsld"][1].shape == (len(cells.HEURISTICS),)


def test_rows_give_means_intervals_changes_against_sjf_and_ranks():
    scores = {"FCFS": np.array([4.0, 6.0, 8.0]), REFERENCE: np.array([2.0, 3.0, 4.0]),
              "agent": np.array([1.0, 3.0, 2.0])}
    out = {r["arm"]: r for r in rows(scores, "T")}
    assert out["FCFS"]["mean_bsld"] == pytest.approx(6.0) and out["FCFS"]["low"] < 6.0 < out["FCFS"]["high"]
    assert out["agent"]["vs_sjf_pct"] == pytest.approx(100 * (6 / 9 - 1))
    assert out[REFERENCE]["vs_sjf_pct"] == 0.0 and not out[REFERENCE]["vs_sjf_excludes_0"]
    assert [out[a]["rank"] for a in ("agent", REFERENCE, "FCFS")] == [1, 2, 3]
    assert out["agent"]["kind"] == "learned" and out["FCFS"]["kind"] == "heuristic"


def test_the_checks_run_the_greedy_agent_before_during_and_after(log):
    jobs, m = log
    train, _ = cells.halves(len(jobs), 32)
    valid = cells.validation(len(jobs), 32, 4, 3)
    assert set(valid) <= set(train)
    t = cells.train(jobs, m, train, epochs=5, envs=4, group=2, lr=0.01, seed=3, sequence=32, rules="schedgym",
                    check_starts=valid, check_every=2)
    assert t.check_epochs.tolist() == [0, 2, 4, 5]
    assert t.check_bsld[-1] == pytest.approx(np.mean(cells.run_greedy(t.policy, jobs, m, valid, sequence=32,
                                                                       rules="schedgym")))
    plain = cells.train(jobs, m, train, epochs=5, envs=4, group=2, lr=0.01, seed=3, sequence=32, rules="schedgym")
    assert np.array_equal(plain.policy.flat(), t.policy.flat())     # checking does not touch the training


def test_a_log_too_short_for_two_sequences_is_left_out_with_the_reason(tmp_path):
    from schedlab.protocol.study import run_study

    short = tiny_log(tmp_path / "short.swf", n=60)
    out = run_study("dispatching", overrides={"sequence": 32, "sequences": 3, "epochs": 1, "envs": 4, "group": 2},
                    traces=[str(short)], outdir=tmp_path / "out", workers=1, cache_dir=tmp_path / "cache", log=None,
                    progress=False)
    assert len(out["left_out"]) == 1 and "needs at least 64" in out["left_out"][0]


def test_one_agent_per_training_seed_each_beside_the_heuristics(tmp_path):
    from schedlab.protocol.study import run_study

    path = tiny_log(tmp_path / "busy.swf", n=400, weeks=1, m=16)
    out = run_study("dispatching", overrides={"sequence": 32, "sequences": 4, "epochs": 2, "envs": 4, "group": 2,
                                               "train_seeds": [5, 7]},
                    traces=[str(path)], outdir=tmp_path / "out", workers=1, cache_dir=tmp_path / "cache", log=None,
                    progress=False)
    arms = {r["arm"]: r for r in out["rows"]}
    assert set(arms) == set(cells.HEURISTICS) | {"agent-s5", "agent-s7"}
    assert arms["agent-s5"]["kind"] == "learned" and arms["F1"]["kind"] == "heuristic"
    assert sorted(r["rank"] for r in arms.values()) == list(range(1, 8))
    ds = out["datasets"]["busy"]["agent"]
    assert list(ds.train_seed.values) == [5, 7]
    assert not np.array_equal(ds.kernel_weights.sel(train_seed=5), ds.kernel_weights.sel(train_seed=7))
