"""schedlab/PolicySelection-v0 (issue 44): Gymnasium's checker, vectorised
copies, deterministic episodes, and the identity checks against the
selection study it generalises -- a constant agent is the study's stepped
fixed policy, the study's epsilon-greedy bandit and full-feedback rule run
as agents through the environment are the study's strategies, bit for bit."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import schedlab.gym  # noqa: F401  (registers the environments)
from schedlab.engine import metrics
from schedlab.errors import InputError
from schedlab.gym.selection import STATE_FIELDS, PolicySelectionEnv
from schedlab.science.online_selection import (DAY, POLICIES, EpsilonGreedy, period_costs, period_edges,
                                               run_strategy, select_simulated)
from schedlab.studies.selection.cells import _rng
from schedlab.science.online_bandit import resampled

TRACE, WEEKS, SEED, SAMPLE = "KTH-SP2", 3, 2017, 1
FINISHED = STATE_FIELDS.index("finished")


def _env(**kw) -> PolicySelectionEnv:
    kw = {"trace": TRACE, "weeks": WEEKS, "period": "day", "resample_seed": SEED, **kw}
    return PolicySelectionEnv(**kw)


def _study_trace(period: str = "day"):
    jobs, m = resampled(TRACE, None, WEEKS, SEED, SAMPLE)
    length = {"day": DAY, "week": 7 * DAY}[period]
    return jobs, m, period_edges(WEEKS * 7 * DAY // length, length)


def _episode(env, agent, update=None):
    """Run one episode on the study's resample; the chosen indices, the rewards and the last info."""
    obs, info = env.reset(seed=0, options={"sample": SAMPLE})
    chosen, rewards = [], []
    while True:
        a = agent(len(chosen), obs)
        obs, r, term, trunc, info = env.step(a)
        chosen.append(a)
        rewards.append(r)
        if update is not None:
            update(a, obs)
        assert not trunc
        if term:
            return np.array(chosen), np.array(rewards), info


def test_registered_and_passes_the_checker():
    env = gymnasium.make("schedlab/PolicySelection-v0", trace=TRACE, weeks=1, period="day")
    check_env(env.unwrapped, skip_render_check=True)
    for feedback in ("noisy", "bandit"):
        check_env(_env(weeks=1, feedback=feedback, cost="bsld"), skip_render_check=True)


def test_vectorised_copies_step_together():
    v = gymnasium.vector.SyncVectorEnv([lambda: _env(weeks=1, period="week", feedback="bandit")] * 2)
    obs, info = v.reset(seed=[3, 4])
    assert obs["costs"].shape == (2, len(POLICIES))
    obs, r, term, trunc, info = v.step(np.array([0, 5]))
    assert r.shape == (2,) and term.all()         # one week of weekly periods: one step
    assert (r < 0).all() and obs["chosen"][1, 5] == 1.0
    v.close()


def test_episodes_are_deterministic_for_a_seed_and_differ_across_seeds():
    env = _env(weeks=1, feedback="noisy")
    a = env.reset(seed=5)
    b = env.reset(seed=5)
    c = env.reset(seed=6)
    assert a[1]["window"] == b[1]["window"] != c[1]["window"]
    runs = []
    for _ in range(2):
        env.reset(seed=5)
        runs.append([env.step(t % 12)[0]["costs"] for t in range(7)])
    assert all(np.array_equal(x, y) for x, y in zip(*runs))


@pytest.mark.parametrize("policy", ["FCFS", "LQF", "SAF"])
def test_always_p_is_the_study_stepped_fixed_policy(policy):
    """An agent always choosing P: the schedule, and the rewards' sum, of
    the study's stepped fixed policy run_strategy(P) on the same resample."""
    jobs, m, edges = _study_trace()
    want = run_strategy(policy, jobs, m, edges).schedule
    env = _env(feedback="bandit")
    i = POLICIES.index(policy)
    chosen, rewards, info = _episode(env, lambda t, obs: i)
    assert np.array_equal(env.schedule.start, want.start) and np.array_equal(env.schedule.end, want.end)
    total = float(np.nansum(metrics.wait(want)))
    assert -rewards.sum() == total == info["sum_wait"]
    assert info["summary"]["sum_wait"] == want.summary()["sum_wait"]


def test_bandit_agent_is_the_study_bandit_bit_for_bit():
    """The study's EpsilonGreedy, fed from the observation (the chosen
    policy's measured cost and the finished jobs) with the study's random
    stream, chooses the study's policies and gets its schedule."""
    jobs, m, edges = _study_trace()
    want = run_strategy("bandit", jobs, m, edges, epsilon=0.5, rng=_rng(SEED, SAMPLE, "bandit", "day", TRACE))
    bandit = EpsilonGreedy(len(POLICIES), 0.5, 1.0, _rng(SEED, SAMPLE, "bandit", "day", TRACE))
    env = _env(feedback="bandit")
    chosen, _, _ = _episode(env, lambda t, obs: bandit.select(),
                            lambda a, obs: bandit.update(a, obs["costs"][a], int(obs["state"][FINISHED])))
    assert chosen.tolist() == want.chosen.tolist()
    assert len(set(chosen.tolist())) > 3                     # it explored: the check is not vacuous
    assert bandit.explorations == want.explorations
    assert np.array_equal(env.schedule.start, want.schedule.start)


@pytest.mark.parametrize("period", ["day", "week"])
def test_full_feedback_agent_is_select_simulated(period):
    """Summing the observed per-policy costs and taking the argmin
    (Eq. 4) is the study's full-feedback strategy on the same resample."""
    jobs, m, edges = _study_trace(period)
    exact, _, _ = period_costs(jobs, m, edges)
    want = run_strategy("full", jobs, m, edges, costs=exact)
    acc = np.zeros(len(POLICIES))
    seen = []

    def update(a, obs):
        acc[:] += obs["costs"]
        seen.append(obs["costs"])

    env = _env(feedback="full", period=period)
    chosen, _, _ = _episode(env, lambda t, obs: int(np.argmin(acc)), update)
    assert np.array_equal(np.array(seen), exact)
    assert chosen.tolist() == select_simulated(exact).tolist() == want.chosen.tolist()
    assert np.array_equal(env.schedule.start, want.schedule.start)


def test_state_vector_is_what_the_simulation_holds():
    env = _env(weeks=1, feedback="bandit")
    env.reset(seed=0, options={"sample": 0})
    obs, r, *_ = env.step(0)
    st = dict(zip(STATE_FIELDS, obs["state"]))
    sched, now = env._sim.schedule, int(env.edges[1])
    submitted = env.jobs.submit < now
    queued = submitted & (sched.start < 0)
    running = (sched.start >= 0) & (sched.end >= now)
    assert st["queued"] == queued.sum() and st["running"] == running.sum()
    assert st["busy"] == pytest.approx(env.jobs.procs[running & (sched.start < now)].sum() / env.m)
    assert st["submitted"] == submitted.sum()
    assert st["finished"] == ((sched.start >= 0) & (sched.end < now)).sum()
    assert st["progress"] == pytest.approx(1 / 7)
    assert -r == float((sched.start - env.jobs.submit)[(sched.start >= 0) & (sched.end < now)].sum())


def test_week_and_log_windows():
    env = _env(window="week", period="day", feedback="bandit")
    obs, info = env.reset(options={"week": 3})
    lo, hi = env.edges[0], env.edges[-1]
    assert info["window"] == {"week": 3} and hi - lo == 7 * DAY and len(env.edges) == 8
    assert ((env.jobs.submit >= lo) & (env.jobs.submit < hi)).all()
    env.reset(seed=1)
    assert env.jobs.submit.size > 0
    log = _env(window="log", period="week", feedback="bandit")
    _, info = log.reset(seed=0)
    assert info["jobs"] == len(log._log) and log.edges[-1] > log._log.submit[-1]


def test_expressions_as_arms_and_bad_input():
    env = _env(weeks=1, policies=["FCFS", "expr:req"], feedback="full")
    env.reset(seed=0)
    assert env.action_space.n == 2 and env.policies[1].startswith("expr:")
    with pytest.raises(InputError, match="policies"):
        _env(policies=["FCFS", "NOPE"])
    with pytest.raises(InputError, match="feedback"):
        _env(feedback="partial")
    with pytest.raises(InputError, match="m: give"):
        PolicySelectionEnv(resampled(TRACE, None, 1, 0, 0)[0])
    with pytest.raises(InputError, match="action"):
        env.step(7)
    with pytest.raises(InputError, match="reset options"):
        env.reset(options={"day": 1})


def test_a_seed_draws_one_of_the_selection_study_s_resamples():
    """issue 50 item 4: reset(seed=0) drew resample 1826701614, none of the
    study's; now k in 0..resamples-1 (the papers' 100 by default), whose jobs
    are the study's resample k, and resamples=None keeps the open stream."""
    env = _env(weeks=1)
    seen = set()
    for seed in range(6):
        _, info = env.reset(seed=seed)
        k = info["window"]["sample"]
        assert 0 <= k < 100
        seen.add(k)
    assert len(seen) > 1
    want, _ = resampled(TRACE, None, 1, SEED, k)
    assert np.array_equal(env.jobs.submit, want.submit) and np.array_equal(env.jobs.procs, want.procs)
    _, info = _env(weeks=1, resamples=5).reset(seed=1)
    assert 0 <= info["window"]["sample"] < 5
    _, info = _env(weeks=1, resamples=None).reset(seed=0)
    assert info["window"]["sample"] == 1826701614         # the stream of study 11's training episodes
    with pytest.raises(InputError, match="resamples"):
        _env(resamples=0)
