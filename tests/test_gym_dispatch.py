"""schedlab/JobDispatch-v0 (issue 44): Gymnasium's checker, vectorised
copies, deterministic episodes, and the identity checks against the engine
it generalises -- with K=None, an agent that always names the job SPF (or
FCFS) would put first gets the engine's EASY-SPF-<B> (EASY-FCFS-<B>)
schedule job for job on the whole KTH-SP2 log; naming the second job instead
does not (the identity check can fail)."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import schedlab.gym  # noqa: F401  (registers the environments)
from schedlab.engine import metrics
from schedlab.engine.sim import Jobs, simulate
from schedlab.errors import InputError
from schedlab.gym.dispatch import JOB_FIELDS, MACHINE_FIELDS, JobDispatchEnv

TRACE = "KTH-SP2"
REQ, FITS = JOB_FIELDS.index("req"), JOB_FIELDS.index("fits")


def spf(obs, rng=None) -> int:
    """The visible job SPF puts first: least requested time, ties in FCFS
    order (the rows' order: submit time, id, input position -- SPF's tie-break)."""
    n = int(obs["mask"].sum())
    return int(np.argmin(obs["jobs"][:n, REQ]))


def fcfs(obs, rng=None) -> int:
    return 0


def spf_second(obs, rng=None) -> int:
    n = int(obs["mask"].sum())
    if n < 2:
        return 0
    order = np.lexsort((np.arange(n), obs["jobs"][:n, REQ]))
    return int(order[1])


def masked_random(obs, rng) -> int:
    return int(rng.choice(np.flatnonzero(obs["mask"])))


def episode(env, agent, seed=0, options=None, rng_seed=0):
    """One episode: the actions, rewards and the last info."""
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset(seed=seed, options=options)
    actions, rewards = [], []
    while True:
        a = agent(obs, rng)
        obs, r, term, trunc, info = env.step(a)
        actions.append(a)
        rewards.append(r)
        assert not trunc
        if term:
            return np.array(actions), np.array(rewards), info


def test_registered_and_passes_the_checker():
    env = gymnasium.make("schedlab/JobDispatch-v0", trace=TRACE)
    assert isinstance(env.unwrapped, JobDispatchEnv) and env.unwrapped.K == 128
    check_env(env.unwrapped, skip_render_check=True)
    check_env(JobDispatchEnv(TRACE, window="jobs", jobs=300, K=8, reward="wait", reward_timing="step",
                             backfill="SPF"), skip_render_check=True)
    check_env(JobDispatchEnv(TRACE, window="resampled", K=None, backfill="expr:req * procs"),
              skip_render_check=True)


def test_vectorised_copies_step_together():
    v = gymnasium.vector.SyncVectorEnv([lambda: JobDispatchEnv(TRACE, window="jobs", jobs=64, K=16)] * 2)
    obs, info = v.reset(seed=[3, 4])
    assert obs["jobs"].shape == (2, 16, len(JOB_FIELDS)) and obs["machine"].shape == (2, len(MACHINE_FIELDS))
    assert info["action_mask"].shape == (2, 16)
    ends = 0
    for _ in range(400):
        obs, r, term, trunc, info = v.step(np.array([0, 0]))
        ends += int(term.sum())
        assert ((r < 0) | ~term).all()       # episodic reward: 0 until the end, then minus the mean bsld
        if ends >= 2:
            break
    assert ends >= 2
    v.close()


def test_episodes_are_deterministic_for_a_seed_and_differ_across_seeds():
    env = JobDispatchEnv(TRACE)
    a, b, c = env.reset(seed=5)[1], env.reset(seed=5)[1], env.reset(seed=6)[1]
    assert a["window"] == b["window"] != c["window"]
    runs = [episode(env, masked_random, seed=5, rng_seed=1) for _ in range(2)]
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    assert runs[0][2]["summary"] == runs[1][2]["summary"]
    other = episode(env, masked_random, seed=5, rng_seed=2)
    assert not np.array_equal(runs[0][0], other[0])        # the agent's choices matter


@pytest.mark.parametrize("agent,P,B", [(spf, "SPF", "FCFS"), (spf, "SPF", "SPF"), (fcfs, "FCFS", "FCFS")])
def test_always_first_of_p_is_the_engines_easy_p_b_on_the_whole_log(agent, P, B):
    env = JobDispatchEnv(TRACE, window="log", K=None, backfill=B)
    assert env.K == len(env._log)
    actions, rewards, info = episode(env, agent)
    want = simulate(env.jobs, env.m, f"EASY-{P}-{B}")
    got = env.schedule
    assert len(env.jobs) == len(want.start) and (got.start >= 0).all()
    assert np.array_equal(got.start, want.start) and np.array_equal(got.end, want.end)
    assert np.array_equal(got.flags, want.flags)
    assert actions.size >= len(env.jobs) * 0.5     # most jobs started by a decision, not by backfilling
    assert rewards[:-1].tolist() == [0.0] * (rewards.size - 1)
    assert -rewards[-1] == pytest.approx(float(metrics.bsld(want).mean()), rel=1e-12) == info["avg_bsld"]


def test_naming_the_second_job_changes_the_schedule():
    """The identity check can fail: the second job of SPF's order when there is one."""
    env = JobDispatchEnv(TRACE, window="log", K=None)
    episode(env, spf_second)
    assert not np.array_equal(env.schedule.start, simulate(env.jobs, env.m, "EASY-SPF-FCFS").start)


def test_step_rewards_add_up_to_the_episodes():
    kw = dict(trace=TRACE, window="jobs", jobs=400, reward="wait")
    _, per_episode, info = episode(JobDispatchEnv(**kw), spf, options={"start": 1000})
    _, per_step, info2 = episode(JobDispatchEnv(reward_timing="step", **kw), spf, options={"start": 1000})
    assert info["summary"] == info2["summary"]
    assert (per_step < 0).sum() > 10 and per_step.sum() == pytest.approx(per_episode.sum(), rel=1e-9)
    assert -per_episode[-1] == pytest.approx(info["avg_wait"], rel=1e-12)


def test_the_first_k_jobs_are_visible_in_fcfs_order_and_masked_beyond():
    env = JobDispatchEnv(TRACE, window="jobs", jobs=300, K=4, invalid_action="error")
    obs, info = env.reset(seed=0, options={"start": 0})
    seen_full = seen_partial = False
    for _ in range(300):
        n = int(obs["mask"].sum())
        vis = env._visible
        assert n == vis.size <= 4 and info["action_mask"].tolist() == obs["mask"].tolist()
        assert vis.tolist() == env.queued()[:4].tolist()
        assert (obs["jobs"][n:] == 0).all() and obs["machine"][1] >= n
        sub = obs["jobs"][:n, JOB_FIELDS.index("submit")]
        assert (np.diff(sub) >= 0).all()
        free = obs["machine"][0] * env.m
        assert obs["jobs"][:n, FITS].tolist() == (env.jobs.procs[vis] <= free + 1e-9).tolist()
        seen_full |= n == 4
        seen_partial |= n < 4
        if n < 4:
            with pytest.raises(InputError, match=f"action: {n} names no job: {n} job"):
                env.step(n)
        obs, r, term, _, info = env.step(0)
        if term:
            break
    assert seen_full and seen_partial


def test_invalid_actions_wrap_by_default():
    env = JobDispatchEnv(TRACE, window="jobs", jobs=200, K=32)
    _, _, info = episode(env, lambda obs, rng: 31, options={"start": 500})
    assert info["invalid_actions"] > 0
    with pytest.raises(InputError, match="0..31"):
        env.reset(seed=0)
        env.step(32)
    with pytest.raises(InputError, match="action"):
        env.step(1.5)


def test_bad_parameters_are_named():
    for kw, msg in [(dict(window="month"), "window"), (dict(backfill="NOPE"), "backfill"),
                    (dict(K=0), "K"), (dict(reward="sld"), "reward"), (dict(reward_timing="end"), "reward_timing"),
                    (dict(invalid_action="skip"), "invalid_action"), (dict(window="jobs", jobs=10 ** 7), "jobs")]:
        with pytest.raises(InputError, match=msg):
            JobDispatchEnv(TRACE, **kw)
    with pytest.raises(InputError, match="m: give the machine size"):
        JobDispatchEnv(Jobs(submit=[0], run=[1], req=[1], procs=[1]))
    env = JobDispatchEnv(Jobs(submit=[0, 5], run=[10, 10], req=[10, 10], procs=[2, 2]), m=2, window="log")
    with pytest.raises(InputError, match="episode is over"):
        env.step(0)
    with pytest.raises(InputError, match="reset options"):
        env.reset(options={"day": 1})
    _, rewards, info = episode(env, fcfs)
    assert env.schedule.start.tolist() == [0, 10] and info["avg_wait"] == 2.5
