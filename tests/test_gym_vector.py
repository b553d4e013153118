"""schedlab/JobDispatch-v0's vector form (issue 50): N environments stepped
in one call of the C core (csrc/venv.c).  Environment i of a vector reset
with seed s gives, bit for bit, the observations, masks, rewards and
terminations of a single environment reset with seed s + i and given the
same actions -- across autoresets, in both autoreset modes; an always-P
agent through the vector gets the engine's EASY-P-B schedule job for job;
an agent that ignores the mask is told."""
from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import schedlab.gym  # noqa: F401  (registers the environments)
from schedlab.engine.sim import simulate
from schedlab.errors import InputError
from schedlab.gym.dispatch import JOB_FIELDS, JobDispatchEnv
from schedlab.gym.vector import JobDispatchVectorEnv

TRACE = "KTH-SP2"
REQ = JOB_FIELDS.index("req")
SMALL = dict(trace=TRACE, window="jobs", jobs=64, K=16)


def make_vec(n, **kw):
    return gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=n, vectorization_mode="vector_entry_point", **kw)


def test_make_vec_gives_the_core_vector_with_its_autoreset_mode():
    v = make_vec(3, **SMALL)
    assert isinstance(v.unwrapped, JobDispatchVectorEnv)
    assert v.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert v.action_space.shape == (3,) and v.single_action_space.n == 16
    obs, info = v.reset(seed=0)
    assert obs["jobs"].shape == (3, 16, len(JOB_FIELDS)) and obs["mask"].shape == (3, 16)
    assert obs in v.observation_space and info["action_mask"].shape == (3, 16)
    plain = gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=2, **SMALL)    # the default mode: the core's
    assert isinstance(plain.unwrapped, JobDispatchVectorEnv)
    sync = gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=2, vectorization_mode="sync", **SMALL)
    assert sync.reset(seed=0)[0]["jobs"].shape == (2, 16, len(JOB_FIELDS))
    same = make_vec(2, autoreset_mode="same_step", **SMALL)
    assert same.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    listed = make_vec(3, **SMALL)
    assert np.array_equal(listed.reset(seed=[0, 1, 2])[0]["jobs"], v.reset(seed=0)[0]["jobs"])   # s + i
    with pytest.raises(InputError, match="reset_mask"):
        listed.reset(options={"reset_mask": [True]})
    with pytest.raises(InputError, match="autoreset_mode"):
        make_vec(2, autoreset_mode="later", **SMALL)
    with pytest.raises(InputError, match="resampled"):
        make_vec(2, trace=TRACE, window="resampled")


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("timing", ["episode", "step"])
def test_the_vector_is_n_single_environments_bit_for_bit(mode, timing):
    n, seed = 3, 11
    kw = dict(SMALL, reward_timing=timing, reward="wait" if timing == "step" else "bsld")
    v = make_vec(n, autoreset_mode=mode, **kw)
    singles = [JobDispatchEnv(**kw) for _ in range(n)]
    obs, info = v.reset(seed=seed)
    pending = [e.reset(seed=seed + i)[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(5)
    ended = np.zeros(n, int)
    restart = np.zeros(n, bool)            # NEXT_STEP: this step resets the environment
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")    # the invalid actions below are on purpose
        for _ in range(2000):
            for i in range(n):
                for key in ("jobs", "mask", "machine"):
                    assert np.array_equal(obs[key][i], pending[i][key]), (key, i)
            # mostly valid actions, some beyond the visible jobs (wrapped by both)
            a = np.where(rng.random(n) < 0.9, (rng.random(n) * np.maximum(info["visible"], 1)).astype(np.int64),
                         rng.integers(0, 16, n))
            obs, r, term, trunc, info = v.step(a)
            for i, e in enumerate(singles):
                if restart[i]:
                    pending[i], _ = e.reset()
                    assert r[i] == 0.0 and not term[i]
                    continue
                o, ri, ti, _, inf = e.step(int(a[i]))
                assert ri == r[i] and ti == term[i] and not trunc[i], (i, ri, r[i])
                assert info["decisions"][i] == (inf["decisions"] if not ti else info["decisions"][i])
                pending[i] = o
                if ti:
                    assert info["_avg_bsld"][i] and info["avg_bsld"][i] == inf["avg_bsld"]
                    assert info["episode_invalid_actions"][i] == inf["invalid_actions"]
                    if mode is AutoresetMode.SAME_STEP:
                        assert (info["final_obs"][i]["jobs"] == o["jobs"]).all()
                        pending[i], _ = e.reset()
            ended += term
            restart = term.copy() if mode is AutoresetMode.NEXT_STEP else restart
            if ended.min() >= 2:
                break
    assert ended.min() >= 2


@pytest.mark.parametrize("P,B", [("SPF", "FCFS"), ("FCFS", "FCFS"), ("SPF", "SPF")])
def test_always_first_of_p_through_the_vector_is_the_engines_easy_p_b(P, B):
    n = 3
    v = make_vec(n, trace=TRACE, window="jobs", jobs=400, K=None, backfill=B).unwrapped
    assert v.K == 400
    obs, info = v.reset(seed=1)
    checked = np.zeros(n, bool)
    while not checked.all():
        if P == "SPF":
            req = np.where(obs["mask"] > 0, obs["jobs"][:, :, REQ], np.inf)
            a = np.argmin(req, 1)          # ties: the first in FCFS order, as SPF's tie-break
        else:
            a = np.zeros(n, np.int64)
        obs, r, term, _, info = v.step(a)
        for i in np.flatnonzero(term & ~checked):     # NEXT_STEP: the ended episode stays until the next step
            want = simulate(v.episode_jobs(int(i)), v.m, f"EASY-{P}-{B}")
            got = v.schedule(int(i))
            assert (got.start >= 0).all() and np.array_equal(got.start, want.start)
            assert np.array_equal(got.end, want.end) and np.array_equal(got.flags, want.flags)
            checked[i] = True


def test_disabled_autoreset_waits_for_a_reset_of_the_ended():
    v = make_vec(2, autoreset_mode="disabled", **SMALL)
    obs, info = v.reset(seed=3)
    for _ in range(500):
        obs, r, term, _, info = v.step(np.zeros(2, np.int64))
        if term.any():
            break
    assert term.any() and not term.all()
    with pytest.raises(Exception, match="episode is over"):
        v.step(np.zeros(2, np.int64))
    obs, info = v.reset(options={"reset_mask": term})
    assert (obs["mask"][:, 0] == 1).all()
    v.step(np.zeros(2, np.int64))
    v.close()
    with pytest.raises(Exception, match="closed"):
        v.reset(seed=0)


def test_a_mask_ignoring_agent_is_told_and_counted():
    v = make_vec(2, **SMALL)
    v.reset(seed=0)
    with pytest.warns(UserWarning, match="names no visible job"):
        for _ in range(200):
            _, _, term, _, info = v.step(np.array([15, 15]))
            if term.any():
                break
    assert term.any() and (info["episode_invalid_actions"][term] > 0).all()
    strict = make_vec(2, invalid_action="error", **SMALL)
    strict.reset(seed=0)
    with pytest.raises(InputError, match="names no job"):
        for _ in range(200):
            strict.step(np.array([15, 15]))
    with pytest.raises(InputError, match="0..15"):
        strict.step(np.array([16, 0]))
    with pytest.raises(InputError, match="0..15"):
        strict.step(np.array([2 ** 32, 0]))         # not wrapped into range by the core's int32
    with pytest.raises(InputError, match="2 integers"):
        strict.step(np.array([0.5, 1.0]))


TRIVIAL, CHOICE = 25123, 1000      # KTH-SP2 jobs 25123..25378: every agent scores a mean bsld of 1.0


def first_last_scores(env, **reset):
    """The mean bsld of the always-first and the always-last agents on the window reset draws."""
    scores = []
    for last in (False, True):
        obs, info = env.reset(**reset)
        while True:
            n = int(obs["mask"].sum())
            obs, r, term, _, info = env.step(n - 1 if last else 0)
            if term:
                scores.append(info["avg_bsld"])
                break
    return info, scores


def test_default_windows_have_something_to_decide():
    keep = JobDispatchEnv(TRACE, starts=[TRIVIAL, CHOICE], skip_trivial=False)
    info, (first, last) = first_last_scores(keep, options={"start": TRIVIAL})
    assert first == last == 1.0                     # the window the default skips: nothing to decide
    info, (first, last) = first_last_scores(keep, options={"start": CHOICE})
    assert first != last
    seen = {keep.reset(seed=s)[1]["window"]["start"] for s in range(12)}
    assert seen == {TRIVIAL, CHOICE}
    env = JobDispatchEnv(TRACE, starts=[TRIVIAL, CHOICE])
    assert env.window == "jobs" and env.sequence == 256 and env.skip_trivial
    assert {env.reset(seed=s)[1]["window"]["start"] for s in range(12)} == {CHOICE}
    v = make_vec(4, trace=TRACE, starts=[TRIVIAL, CHOICE])
    v.reset(seed=0)
    assert (v.unwrapped._core.stats[:, 9] == CHOICE).all()
    for seed in (0, 2):                             # the seeds that drew weeks with nothing to decide (issue 50)
        info, (first, last) = first_last_scores(JobDispatchEnv(TRACE), seed=seed)
        assert first != last


def test_the_readmes_vector_example_runs():
    import re
    import subprocess
    import sys
    import textwrap

    from schedlab import paths

    text = (paths.ROOT / "README.md").read_text()
    blocks = re.findall(r"```py\n(.*?)```", text[text.index("*The vector environment.*"):], re.S)
    assert blocks and "make_vec" in blocks[0]
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(blocks[0])], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "mean bounded slowdown of a random agent" in r.stdout


def test_the_cores_observation_is_the_numpy_one_bit_for_bit():
    """The observation the core writes equals, to the bit, the numpy lines JobDispatch-v0 computed
    before the core did (issue 44's _observe), at every decision of an episode."""
    hour = 3600.0
    env = JobDispatchEnv(TRACE, K=8, backfill="SPF")
    obs, info = env.reset(seed=4)
    j, m = env.jobs, env.m
    origin = int(j.submit[0])
    feat = np.column_stack([j.req / hour, j.procs / float(m), (j.submit - origin) / hour])
    steps = 0
    while True:
        st = env._core.state(0)
        now = int(env._core.stats[0, 0])
        vis = env.queued()[:8]
        n = vis.size
        free = m - st["used"]
        rows = np.zeros((8, 5))
        t = (now - origin) / hour
        rows[:n, 1:4] = feat[vis]
        rows[:n, 0] = t - rows[:n, 3]
        rows[:n, 4] = j.procs[vis] <= free
        assert np.array_equal(obs["jobs"], rows) and obs["mask"].tolist() == [1] * n + [0] * (8 - n)
        assert np.array_equal(obs["machine"], np.array([free / m, st["queued"], t]))
        obs, r, term, _, info = env.step(steps % max(n, 1))
        steps += 1
        if term:
            break
    assert steps > 100


def test_the_core_refuses_a_template_it_cannot_run():
    from schedlab.engine.sim import Simulation
    from schedlab.errors import SimulationError
    from schedlab.gym._core import DispatchCore

    env = JobDispatchEnv(TRACE)
    plain = Simulation(env._log, env.m, env.policy)
    with pytest.raises(SimulationError, match="dispatch mode that has not run"):
        DispatchCore(plain, np.array([[0, 10]]), 2, 4, "bsld", "episode")
    with pytest.raises(SimulationError, match="window 1: jobs"):
        DispatchCore(env._template, np.array([[0, 10], [5, len(env._log) + 1]]), 2, 4, "bsld", "episode")
    core = DispatchCore(env._template, np.array([[0, 10]]), 2, 4, "bsld", "episode")
    with pytest.raises(SimulationError, match="episode is over"):
        core.step()
    core.reset(1)
    with pytest.raises(SimulationError, match="environment 0: the episode is over"):
        core.step()


@pytest.mark.parametrize("rules", ["schedgym", "schedgym-nobackfill"])
def test_schedgyms_rules_come_along_into_the_vector(rules):
    """A run mode of the template's configuration (SchedGym's rules, sl_config.rules) is every
    episode's: the always-first agent through the vector gets SchedGym's FCFS schedule, and the
    vector equals single environments step by step."""
    n = 2
    kw = dict(trace=TRACE, window="jobs", jobs=300, K=None, rules=rules)
    v = make_vec(n, **kw).unwrapped
    singles = [JobDispatchEnv(**kw) for _ in range(n)]
    obs, info = v.reset(seed=7)
    pending = [e.reset(seed=7 + i)[0] for i, e in enumerate(singles)]
    checked = np.zeros(n, bool)
    while not checked.all():
        for i in range(n):
            if not checked[i]:
                assert np.array_equal(obs["jobs"][i], pending[i]["jobs"])
        obs, r, term, _, info = v.step(np.zeros(n, np.int64))
        for i, e in enumerate(singles):
            if not checked[i]:
                pending[i], ri, ti, _, _ = e.step(0)
                assert ri == r[i] and ti == term[i]
        for i in np.flatnonzero(term & ~checked):
            want = simulate(v.episode_jobs(int(i)), v.m, "EASY-FCFS-FCFS", rules=rules)
            assert np.array_equal(v.schedule(int(i)).start, want.start)
            assert np.array_equal(singles[i].schedule.start, want.start)
            checked[i] = True
    easy = simulate(v.episode_jobs(0), v.m, "EASY-FCFS-FCFS")
    assert not np.array_equal(v.schedule(0).start, easy.start)       # the rules did change the schedule
    with pytest.raises(InputError, match="observation='schedgym'"):
        make_vec(2, observation="schedgym", **kw)


@pytest.mark.parametrize("call", ["options_text", "options_int", "seed_negative", "seed_bool_list", "num_envs_huge",
                                  "copy", "pickle", "bool_actions"])
def test_the_vector_refuses_bad_calls_in_one_line(call):
    """issue 54 item 3 for the vector environment: each bad call an InputError naming it."""
    import copy
    import pickle

    if call == "num_envs_huge":
        with pytest.raises(InputError, match="num_envs: at most 4096"):
            gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=10 ** 9)
        return
    venv = gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=2)
    try:
        if call == "options_text":
            with pytest.raises(InputError, match="reset options: expected a dict"):
                venv.reset(options="abc")
        elif call == "options_int":
            with pytest.raises(InputError, match="reset options: expected a dict"):
                venv.reset(options=5)
        elif call == "seed_negative":
            with pytest.raises(InputError, match="reset seed"):
                venv.reset(seed=-1)
        elif call == "seed_bool_list":
            with pytest.raises(InputError, match="reset seed"):
                venv.reset(seed=[True, False])
        elif call in ("copy", "pickle"):
            with pytest.raises(InputError, match="cannot be copied or pickled"):
                copy.deepcopy(venv) if call == "copy" else pickle.dumps(venv)
        else:
            venv.reset(seed=0)
            with pytest.raises(InputError, match="actions: expected 2 integers"):
                venv.step(np.array([True, False]))
    finally:
        venv.close()
