"""Speed of the learning environments (issues 44 and 50), side by side:

* ``schedlab/JobDispatch-v0`` -- the single environment and the vector of
  N = 64 (``gymnasium.make_vec``, stepped in one call of the C core) -- and
  SchedGym's ``HPCSimPickJobs.HPCEnv`` (RLScheduler,
  ``DIR-LAB/deep-batch-scheduler``) on the same jobs -- the trace cleaned as
  the studies clean it, jobs of zero duration dropped (as SchedGym drops
  them), written as an SWF that SchedGym reads -- and the same episodes:
  SchedGym's 256 consecutive jobs from the start indices its own ``reset``
  draws, JobDispatch's ``window="jobs"`` from those very starts (the single
  environment each in turn, the vector drawing among them), K = 128 both
  (SchedGym's MAX_QUEUE_SIZE), a random agent (a random choice among the
  visible jobs) or always the first.  The sides run interleaved in rounds,
  their order rotated from round to round, and the figures are the
  medians with min-max over the rounds: steps/s, episodes/s counting the
  steps only, and episodes/s with the resets (the headline: a step is not
  the same unit on the two sides -- SchedGym holds its pick until it starts,
  JobDispatch asks again at every pass -- an episode is).  The vector runs
  with autoreset DISABLED so that its steps and its resets
  (``reset(options={"reset_mask": ...})``) are timed apart; a round stops
  when ``--vector-episodes`` episodes have ended, and the episodes still
  running then keep their share of the time (time per step, per reset).
* ``schedlab/PolicySelection-v0``'s periods per second
  (``bench/bench_gym_selection.py``'s episode, on ``--selection-trace``).

SchedGym is not vendored: give a copy of its repository (``--schedgym DIR``
or ``$SCHEDGYM_DIR``) and a Python that can import its environment
(``--schedgym-python PY`` or ``$SCHEDGYM_PYTHON``: its own venv, with its
``gym`` and numpy; its ``tensorflow`` import is replaced by an empty module
when TensorFlow is not installed, as the environment class does not use
it).  SchedGym runs in that Python as a subprocess of this script
(``--peer``, one per round; its start-up is not timed); schedlab needs none
of it.  Without SchedGym the script times the schedlab environments alone
and says so.

Before timing, JobDispatch's always-SPF agent is checked against the
engine's EASY-SPF-FCFS on the first episode's jobs, through the single
environment and through the vector (a fast wrong environment is not
reported).  Timings are for a quiet machine.

Usage: python bench/bench_gym.py [TRACE] [--episodes E] [--agent random|first] [--repeat ROUNDS]
           [--num-envs N] [--vector-episodes V] [--schedgym DIR] [--schedgym-python PY] [--backfil 0|1]
           [--selection-trace NAME] [--selection-weeks W] [--no-selection]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np

SEQUENCE = 256      # SchedGym's JOB_SEQUENCE_SIZE
K = 128             # SchedGym's MAX_QUEUE_SIZE


# --------------------------------------------------------- SchedGym (peer) --

def peer(directory: str, swf: str, episodes: int, seed: int, agent: str, backfil: int, repeat: int) -> dict:
    """Run in SchedGym's Python: ``episodes`` episodes of HPCEnv on ``swf``;
    the start indices its reset drew, decisions and seconds (best of ``repeat``)."""
    sys.path.insert(0, directory)
    notes = []
    try:
        import tensorflow  # noqa: F401  (HPCSimPickJobs imports it; the environment class does not use it)
    except ImportError:
        sys.modules["tensorflow"] = types.ModuleType("tensorflow")
        notes.append("tensorflow not importable: HPCSimPickJobs imported with an empty tensorflow module")
    with contextlib.redirect_stdout(io.StringIO()):     # SchedGym prints as it loads and resets
        import HPCSimPickJobs as sg
        env = sg.HPCEnv(backfil=bool(backfil))
        env.seed(seed)
        env.my_init(workload_file=swf)
    assert sg.MAX_QUEUE_SIZE == K and sg.JOB_SEQUENCE_SIZE == SEQUENCE, "SchedGym's constants changed"
    runs = []
    for r in range(repeat):
        env.seed(seed)
        rng = np.random.default_rng(seed)
        starts, steps, step_s, reset_s, rewards = [], 0, 0.0, 0.0, []
        for _ in range(episodes):
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                env.reset()
            reset_s += time.perf_counter() - t0
            starts.append(int(env.start))
            t0 = time.perf_counter()
            while True:
                valid = [i for i, p in enumerate(env.pairs) if p[0] is not None]
                a = valid[int(rng.integers(len(valid)))] if agent == "random" else valid[0]
                out = env.step(a)
                steps += 1
                if out[2]:
                    rewards.append(float(out[1]))
                    break
            step_s += time.perf_counter() - t0
        runs.append({"starts": starts, "steps": steps, "step_s": step_s, "reset_s": reset_s, "rewards": rewards})
    best = min(runs, key=lambda x: x["step_s"])
    best["notes"] = notes
    return best


def run_peer(python: str, directory: str, swf: Path, episodes: int, seed: int, agent: str, backfil: int,
             repeat: int) -> dict:
    cmd = [python, str(Path(__file__).resolve()), "--peer", directory, str(swf), "--episodes", str(episodes),
           "--seed", str(seed), "--agent", agent, "--backfil", str(backfil), "--repeat", str(repeat)]
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    if p.returncode != 0:
        raise SystemExit(f"SchedGym run failed ({' '.join(cmd)}):\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------ schedlab side --

def common_jobs(trace: str):
    """The trace cleaned as the studies clean it, with the durations it runs
    (killed at the request), jobs of zero duration dropped: the jobs both
    environments get."""
    from schedlab.engine import sim
    from schedlab.workloads import traces

    c = traces.cleaned(trace)
    j = c.jobs
    dur = np.minimum(j.run, j.req)
    keep = np.flatnonzero(dur > 0)
    jobs = sim.Jobs(j.submit[keep], dur[keep], j.req[keep], j.procs[keep], user=None if j.user is None else
                    j.user[keep])
    return jobs, c.m


def write_swf(jobs, m: int, path: Path) -> None:
    from schedlab.workloads.swf import write_swf as write

    n = len(jobs)
    write(path, {"job_id": np.arange(1, n + 1), "submit": jobs.submit, "run": jobs.run, "alloc_procs": jobs.procs,
                 "req_procs": jobs.procs, "req_time": jobs.req, "avg_cpu": np.full(n, -1.0),
                 "used_mem": np.full(n, -1.0), "status": np.ones(n, np.int64)},
          [f"MaxNodes: {m}", f"MaxProcs: {m}", "schedlab bench/bench_gym.py: the jobs JobDispatch-v0 gets"])


def dispatch_episodes(env, starts, agent: str, seed: int) -> dict:
    """The single environment: one episode from each start, in order."""
    rng = np.random.default_rng(seed)
    steps, step_s, reset_s = 0, 0.0, 0.0
    for i in starts:
        t0 = time.perf_counter()
        obs, info = env.reset(seed=seed, options={"start": int(i)})
        reset_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        while True:
            a = int(rng.integers(int(obs["mask"].sum()))) if agent == "random" else 0
            obs, r, term, _, info = env.step(a)
            steps += 1
            if term:
                break
        step_s += time.perf_counter() - t0
    return {"steps": steps, "episodes": len(starts), "step_s": step_s, "reset_s": reset_s}


def vector_episodes(venv, episodes: int, agent: str, seed: int) -> dict:
    """The vector (autoreset DISABLED): steps until ``episodes`` have ended,
    the ended environments reset with a reset_mask, steps and resets timed
    apart.  Every environment steps at every call; the episodes still
    running at the end have their steps counted in ``steps`` but not in
    ``done_steps`` (the steps of the ended episodes), and their resets in
    ``resets`` (N + the episodes ended): :func:`figures` charges the ended
    episodes their share of the time."""
    rng = np.random.default_rng(seed)
    n = venv.num_envs
    t0 = time.perf_counter()
    obs, info = venv.reset(seed=seed)
    reset_s, step_s, steps, done_steps, ended = time.perf_counter() - t0, 0.0, 0, 0, 0
    live = np.zeros(n, np.int64)
    zeros = np.zeros(n, np.int64)
    while ended < episodes:
        a = (rng.random(n) * info["visible"]).astype(np.int64) if agent == "random" else zeros
        t0 = time.perf_counter()
        obs, r, term, _, info = venv.step(a)
        step_s += time.perf_counter() - t0
        steps += n
        live += 1
        if term.any():
            ended += int(term.sum())
            done_steps += int(live[term].sum())
            live[term] = 0
            t0 = time.perf_counter()
            obs, info = venv.reset(options={"reset_mask": term})
            reset_s += time.perf_counter() - t0
    return {"steps": steps, "done_steps": done_steps, "episodes": ended, "resets": n + ended, "step_s": step_s,
            "reset_s": reset_s}


def check_identity(env, start: int) -> bool:
    """Always-SPF through JobDispatch = the engine's EASY-SPF-<backfill> on the episode's jobs."""
    from schedlab.engine import sim
    from schedlab.gym.dispatch import JOB_FIELDS

    obs, _ = env.reset(seed=0, options={"start": start})
    req = JOB_FIELDS.index("req")
    while True:
        n = int(obs["mask"].sum())
        obs, _, term, _, _ = env.step(int(np.argmin(obs["jobs"][:n, req])))
        if term:
            break
    want = sim.simulate(env.jobs, env.m, f"EASY-SPF-{env.backfill}")
    return bool(np.array_equal(env.schedule.start, want.start))


def check_vector_identity(jobs, m: int, start: int) -> bool:
    """Always-SPF through the vector (2 environments on the window at ``start``) = EASY-SPF-FCFS."""
    from schedlab.engine import sim
    from schedlab.gym.dispatch import JOB_FIELDS
    from schedlab.gym.vector import JobDispatchVectorEnv

    v = JobDispatchVectorEnv(2, trace=jobs, m=m, window="jobs", jobs=SEQUENCE, K=K, starts=[start],
                             skip_trivial=False, autoreset_mode="disabled")
    obs, _ = v.reset(seed=0)
    req = JOB_FIELDS.index("req")
    while True:
        a = np.argmin(np.where(obs["mask"] > 0, obs["jobs"][:, :, req], np.inf), 1)
        obs, _, term, _, _ = v.step(a)
        if term.all():
            break
        assert not term.any()       # the same window in both: they end together
    want = sim.simulate(v.episode_jobs(0), m, "EASY-SPF-FCFS").start
    return all(np.array_equal(v.schedule(i).start, want) for i in range(2))


def figures(runs: list[dict]) -> dict:
    """Per round: steps/s, episodes/s (steps only), episodes/s (with reset);
    the ended episodes charged their share of the time (the vector's
    unfinished episodes took the rest)."""
    out: dict[str, list[float]] = {"steps/s": [], "episodes/s": [], "episodes/s with reset": []}
    for r in runs:
        step_s = r["step_s"] * r.get("done_steps", r["steps"]) / r["steps"]
        reset_s = r["reset_s"] * r["episodes"] / r.get("resets", r["episodes"])
        out["steps/s"].append(r["steps"] / r["step_s"])
        out["episodes/s"].append(r["episodes"] / step_s)
        out["episodes/s with reset"].append(r["episodes"] / (step_s + reset_s))
    return out


def median_range(values) -> str:
    v = np.asarray(values, float)
    return f"{np.median(v):,.1f} [{v.min():,.1f}-{v.max():,.1f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default="SDSC-SP2")
    ap.add_argument("--episodes", type=int, default=20, help="256-job episodes of SchedGym and the single env (20)")
    ap.add_argument("--agent", default="random", choices=("random", "first"))
    ap.add_argument("--repeat", type=int, default=5, help="rounds, the sides interleaved (default 5)")
    ap.add_argument("--num-envs", type=int, default=64, help="environments of the vector (64)")
    ap.add_argument("--vector-episodes", type=int, default=None,
                    help="episodes of the vector per round (default 10 per environment)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--schedgym", default=os.environ.get("SCHEDGYM_DIR"), help="SchedGym's repository ($SCHEDGYM_DIR)")
    ap.add_argument("--schedgym-python", default=os.environ.get("SCHEDGYM_PYTHON"),
                    help="a Python that imports SchedGym's environment ($SCHEDGYM_PYTHON)")
    ap.add_argument("--backfil", type=int, default=1, choices=(0, 1),
                    help="SchedGym's backfilling (1, default: as EASY's; JobDispatch always backfills)")
    ap.add_argument("--selection-trace", default="CEA-Curie")
    ap.add_argument("--selection-weeks", type=int, default=104)
    ap.add_argument("--no-selection", action="store_true")
    ap.add_argument("--peer", nargs=2, metavar=("DIR", "SWF"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.peer:
        print(json.dumps(peer(a.peer[0], a.peer[1], a.episodes, a.seed, a.agent, a.backfil, a.repeat)))
        return 0

    import gymnasium

    import schedlab.gym  # noqa: F401  (registers the environments)
    from schedlab.gym.dispatch import JobDispatchEnv

    jobs, m = common_jobs(a.trace)
    sides = ["single", "vector"]
    tmp = tempfile.TemporaryDirectory()
    swf = Path(tmp.name) / f"{a.trace}-bench.swf"
    peer_runs: list[dict] = []
    if a.schedgym and a.schedgym_python:
        write_swf(jobs, m, swf)
        peer_runs.append(run_peer(a.schedgym_python, a.schedgym, swf, a.episodes, a.seed, a.agent, a.backfil, 1))
        starts = peer_runs[0]["starts"]
        sides.insert(0, "schedgym")
    else:
        rng = np.random.default_rng(a.seed)
        starts = rng.integers(SEQUENCE, len(jobs) - SEQUENCE - 1, a.episodes).tolist()
    # the same jobs and starts: the single env each start in turn, the vector drawing among them
    env = JobDispatchEnv(jobs, m, window="jobs", jobs=SEQUENCE, K=K, starts=starts, skip_trivial=False)
    venv = gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=a.num_envs, vectorization_mode="vector_entry_point",
                              trace=jobs, m=m, window="jobs", jobs=SEQUENCE, K=K, starts=starts, skip_trivial=False,
                              autoreset_mode="disabled")
    if not check_identity(env, starts[0]) or not check_vector_identity(jobs, m, starts[0]):
        print(f"MISMATCH: JobDispatch always-SPF != EASY-SPF-FCFS on jobs {starts[0]}..{starts[0] + SEQUENCE - 1}")
        return 1
    vec_episodes = a.vector_episodes or 10 * a.num_envs
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    for r in range(a.repeat):
        order = sides[r % len(sides):] + sides[:r % len(sides)]     # rotated from round to round
        for side in order:
            if side == "schedgym":
                if r > 0 or not peer_runs:
                    peer_runs.append(run_peer(a.schedgym_python, a.schedgym, swf, a.episodes, a.seed, a.agent,
                                              a.backfil, 1))
                runs[side].append(peer_runs[-1] if r > 0 else peer_runs[0])
                runs[side][-1]["episodes"] = len(runs[side][-1]["starts"])
            elif side == "single":
                runs[side].append(dispatch_episodes(env, starts, a.agent, a.seed + r))
            else:
                runs[side].append(vector_episodes(venv, vec_episodes, a.agent, a.seed + r))
    tmp.cleanup()
    print(f"{a.trace}: {len(jobs)} jobs (zero-length dropped), m={m}; episodes of {SEQUENCE} consecutive jobs from "
          f"{len(starts)} starts, K={K}, {a.agent} agent; {a.repeat} rounds interleaved (order rotated), "
          f"median [min-max]; always-SPF = EASY-SPF-FCFS checked (single and vector)")
    names = {"schedgym": f"SchedGym HPCSimPickJobs (backfil={a.backfil})", "single": "JobDispatch-v0 (single env)",
             "vector": f"JobDispatch-v0 vector (N = {a.num_envs})"}
    fig = {side: figures(runs[side]) for side in sides}
    print(f"  {'':40s} {'steps/s':>30s} {'episodes/s, steps only':>30s} {'episodes/s, with reset':>30s}")
    for side in sides:
        per = runs[side][0].get("done_steps", runs[side][0]["steps"]) / runs[side][0]["episodes"]
        print(f"  {names[side]:40s} " + " ".join(f"{median_range(fig[side][k]):>30s}" for k in fig[side])
              + f"   ({per:.0f} steps per episode)")
    if "schedgym" in fig:
        for note in runs["schedgym"][0].get("notes", []):
            print(f"    ({note})")
        for side in ("single", "vector"):
            ratio = {k: np.median(fig[side][k]) / np.median(fig["schedgym"][k]) for k in fig[side]}
            print(f"  ratio {names[side]} / SchedGym: {ratio['episodes/s with reset']:.1f}x episodes/s with reset "
                  f"(headline); {ratio['episodes/s']:.1f}x episodes/s steps only; {ratio['steps/s']:.1f}x steps/s")
    else:
        print("  SchedGym not run: give --schedgym DIR and --schedgym-python PY (or $SCHEDGYM_DIR, $SCHEDGYM_PYTHON)")
    if not a.no_selection:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_gym_selection import episode

        from schedlab.gym.selection import PolicySelectionEnv
        from schedlab.science.online_selection import POLICIES

        sel = PolicySelectionEnv(a.selection_trace, weeks=a.selection_weeks, period="day", feedback="bandit")
        best = min(episode(sel, lambda rng: int(rng.integers(len(POLICIES))))[2] for _ in range(a.repeat))
        n = sel.n_periods
        print(f"  PolicySelection-v0 {a.selection_trace} ({a.selection_weeks} weeks, {len(sel.jobs)} jobs, days, "
              f"bandit feedback, random agent): {n / best:.0f} periods/s ({best:.3f} s per episode)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
