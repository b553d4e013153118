"""Study 11 (learning to schedule): the learned selector on hand-made data,
the comparison rows on a hand-made dataset, and the learned arm's cell
against the same agent stepped through schedlab/PolicySelection-v0 by hand."""
from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from schedlab.gym.selection import STATE_FIELDS, PolicySelectionEnv
from schedlab.studies.learning import cells
from schedlab.studies.learning.analysis import rows


def test_selector_learns_which_policy_suits_which_state():
    """Policy 0 is cheap when the queue is short, policy 2 when it is long:
    the fitted model picks each in its regime."""
    rng = np.random.default_rng(0)
    m = cells.LinearSelector(3, 1 + len(STATE_FIELDS))
    for _ in range(400):
        state = np.zeros(len(STATE_FIELDS))
        state[0] = rng.uniform(0, 50)
        long = state[0] > 25
        m.update(cells.features(state), np.array([3.0, 2.0, 1.0]) if long else np.array([1.0, 2.0, 3.0]))
    m.update(cells.features(np.zeros(len(STATE_FIELDS))), np.zeros(3))     # an empty period teaches nothing
    m.fit()
    short, long = np.zeros(len(STATE_FIELDS)), np.zeros(len(STATE_FIELDS))
    short[0], long[0] = 2.0, 48.0
    assert m.select(cells.features(short)) == 0 and m.select(cells.features(long)) == 2


def test_rows_are_eq11_changes_against_fcfs_with_ranks():
    arms = ["FCFS", "SPF", "full", cells.AGENT]
    waits = np.array([[100.0, 80.0, 90.0, 70.0], [200.0, 150.0, 210.0, 160.0]])
    ds = xr.Dataset({"sum_wait": (("sample", "arm"), waits)}, coords={"sample": [0, 1], "arm": arms})
    out = {r["arm"]: r for r in rows({"T": ds}, cells.STRATEGIES, cells.AGENT)}
    assert set(out) == {"SPF", "full", cells.AGENT}
    assert out["SPF"]["change_pct"] == pytest.approx(100 * (230 / 300 - 1))
    assert out[cells.AGENT]["change_pct"] == pytest.approx(100 * (230 / 300 - 1))
    assert out["full"]["change_pct"] == pytest.approx(0.0)
    assert out["full"]["kind"] == "strategy" and out[cells.AGENT]["kind"] == "learned" and out["SPF"]["kind"] == "fixed"
    assert sorted(r["rank"] for r in out.values()) == [1, 2, 3] and out["full"]["rank"] == 3


def test_learned_cell_is_the_agent_stepped_through_the_environment():
    kw = dict(trace="KTH-SP2", m=None, weeks=2, seed=5, sample=1, threshold=40 * 3600, period="day",
              episodes=2, train_weeks=1)
    got = cells.run_cell.__wrapped__(cells.RunInputs(arm=cells.AGENT, **kw))
    model = cells.trained("KTH-SP2", None, "day", 40 * 3600, 2, 1, 5)
    _, test, m = cells.halves("KTH-SP2", None)
    env = PolicySelectionEnv(test, m, weeks=2, period="day", feedback="bandit", resample_seed=5)
    obs, _ = env.reset(options={"sample": 1})
    total, chosen = 0.0, []
    while True:
        a = model.select(cells.features(obs["state"]))
        chosen.append(a)
        obs, r, term, _, info = env.step(a)
        total -= r
        if term:
            break
    assert float(got["sum_wait"][1]) == total == info["sum_wait"]
    fcfs = cells.run_cell.__wrapped__(cells.RunInputs(arm="FCFS", **kw))
    assert float(fcfs["sum_wait"][1]) != total or chosen.count(0) == len(chosen)
