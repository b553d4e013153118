"""Steps per second of the learning environments (issue 44), side by side in
one run:

* ``schedlab/JobDispatch-v0`` and SchedGym's ``HPCSimPickJobs.HPCEnv``
  (RLScheduler, ``DIR-LAB/deep-batch-scheduler``) on the same jobs -- the
  trace cleaned as the studies clean it, jobs of zero duration dropped (as
  SchedGym drops them), written as an SWF that SchedGym reads -- and the
  same episodes: SchedGym's 256 consecutive jobs from the start indices its
  own ``reset`` draws, and JobDispatch's ``window="jobs"`` from those very
  starts, K = 128 both (SchedGym's MAX_QUEUE_SIZE).  A step is one decision
  of the agent in both; the same agent (a random choice among the visible
  jobs, or always the first) drives both.  Only ``step`` is timed; the
  resets are timed apart (SchedGym's reset also schedules its episode with
  SJF and F1 for its reward baselines).
* ``schedlab/PolicySelection-v0``'s periods per second
  (``bench/bench_gym_selection.py``'s episode, on ``--selection-trace``).

SchedGym is not vendored: give a copy of its repository (``--schedgym DIR``
or ``$SCHEDGYM_DIR``) and a Python that can import its environment
(``--schedgym-python PY`` or ``$SCHEDGYM_PYTHON``: its own venv, with its
``gym`` and numpy; its ``tensorflow`` import is replaced by an empty module
when TensorFlow is not installed, as the environment class does not use
it).  SchedGym runs in that Python as a subprocess of this script
(``--peer``); schedlab needs none of it.  Without SchedGym the script times
the schedlab environments alone and says so.

Before timing, JobDispatch's always-SPF agent is checked against the
engine's EASY-SPF-FCFS on the first episode's jobs (a fast wrong
environment is not reported).  Timings are for a quiet machine.

Usage: python bench/bench_gym.py [TRACE] [--episodes E] [--agent random|first] [--repeat R]
           [--schedgym DIR] [--schedgym-python PY] [--backfil 0|1]
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
    rng = np.random.default_rng(seed)
    steps, step_s, reset_s, rewards = 0, 0.0, 0.0, []
    for i in starts:
        t0 = time.perf_counter()
        obs, info = env.reset(seed=seed, options={"start": int(i)})
        reset_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        while True:
            if agent == "random":
                a = int(rng.integers(int(obs["mask"].sum())))
            else:
                a = 0
            obs, r, term, _, info = env.step(a)
            steps += 1
            if term:
                rewards.append(r)
                break
        step_s += time.perf_counter() - t0
    return {"steps": steps, "step_s": step_s, "reset_s": reset_s, "rewards": rewards}


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", nargs="?", default="SDSC-SP2")
    ap.add_argument("--episodes", type=int, default=20, help="256-job episodes (default 20)")
    ap.add_argument("--agent", default="random", choices=("random", "first"))
    ap.add_argument("--repeat", type=int, default=3)
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

    from schedlab.gym.dispatch import JobDispatchEnv

    jobs, m = common_jobs(a.trace)
    env = JobDispatchEnv(jobs, m, window="jobs", jobs=SEQUENCE, K=K)
    peer_out = None
    if a.schedgym and a.schedgym_python:
        with tempfile.TemporaryDirectory() as tmp:
            swf = Path(tmp) / f"{a.trace}-bench.swf"
            write_swf(jobs, m, swf)
            peer_out = run_peer(a.schedgym_python, a.schedgym, swf, a.episodes, a.seed, a.agent, a.backfil, a.repeat)
        starts = peer_out["starts"]
    else:
        rng = np.random.default_rng(a.seed)
        starts = rng.integers(SEQUENCE, len(jobs) - SEQUENCE - 1, a.episodes).tolist()
    if not check_identity(env, starts[0]):
        print(f"MISMATCH: JobDispatch always-SPF != EASY-SPF-FCFS on jobs {starts[0]}..{starts[0] + SEQUENCE - 1}")
        return 1
    ours = min((dispatch_episodes(env, starts, a.agent, a.seed) for _ in range(a.repeat)), key=lambda x: x["step_s"])
    rate = ours["steps"] / ours["step_s"]
    print(f"{a.trace}: {len(jobs)} jobs (zero-length dropped), m={m}; {a.episodes} episodes of {SEQUENCE} "
          f"consecutive jobs, K={K}, {a.agent} agent, best of {a.repeat}; always-SPF = EASY-SPF-FCFS checked")
    print(f"  JobDispatch-v0 (EASY, backfill FCFS):   {ours['steps']:6d} steps, {rate:9.0f} steps/s, "
          f"reset {1e3 * ours['reset_s'] / a.episodes:.2f} ms, mean episode reward {np.mean(ours['rewards']):.2f}")
    if peer_out is not None:
        prate = peer_out["steps"] / peer_out["step_s"]
        print(f"  SchedGym HPCSimPickJobs (backfil={a.backfil}):  {peer_out['steps']:6d} steps, {prate:9.0f} steps/s, "
              f"reset {1e3 * peer_out['reset_s'] / a.episodes:.2f} ms, mean episode reward "
              f"{np.mean(peer_out['rewards']):.2f}")
        for note in peer_out["notes"]:
            print(f"    ({note})")
        print(f"  ratio JobDispatch / SchedGym: {rate / prate:.1f}x steps/s (the episodes differ in decisions: "
              f"SchedGym holds its pick until it starts)")
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
