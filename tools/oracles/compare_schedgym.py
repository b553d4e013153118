#!/usr/bin/env python3
"""SchedGym (RLScheduler's HPCSimPickJobs, DIR-LAB/deep-batch-scheduler) beside the
engine's SchedGym rules (csrc/SEMANTICS.md, "SchedGym's rules"; issue 50): SchedGym's
five heuristics (FCFS, SJF, WFP3, UNICEP, F1) on the 256-job sequences its own
reset_for_test draws (seeded), with backfil 0 and 1, sequence by sequence: every start
time and the average bounded slowdown SchedGym reports.

  compare_schedgym.py [--traces SDSC-SP2 CTC-SP2] [--raw SDSC-BLUE] [--sequences 100] [--seed 0]
                      [--backfil 0 1] [--heuristics ...] [--numpy both|libm|simd] [--json F]

Both sides get the same jobs: the log cleaned as the studies clean it, durations
min(run, req), jobs of zero duration dropped (SchedGym drops them), written as an SWF
that SchedGym reads (MaxNodes = MaxProcs = m: one processor per node).  SchedGym runs
as it is, in its own Python (SCHEDGYM_PYTHON), from a copy of its repository
(SCHEDGYM_DIR), with only its unused `import tensorflow` answered by an empty module
when TensorFlow is absent; the script reads its scheduled times before its own reset
erases them (a wrapper around post_process_score, which it calls last).

numpy: SchedGym's log10, log2 and power are numpy's, which on a machine with AVX-512
use numpy's own vector routines instead of libm's (the engine's).  "libm" runs
SchedGym with those dispatch targets disabled (NPY_DISABLE_CPU_FEATURES: numpy then
computes libm's values), "simd" as numpy chooses; "both" (default) reports both.

Exit status: 0 done; 3 SchedGym unavailable (no SCHEDGYM_DIR / SCHEDGYM_PYTHON, or
HPCSimPickJobs.py missing); 1 the run failed.
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
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

ROOT = Path(__file__).resolve().parents[2]
HEURISTIC_NAMES = ("FCFS", "SJF", "WFP3", "UNICEP", "F1")
#: sl_debug_schedgym's masks: SchedGym's rules each without one detail (csrc/schedlab.h)
ABLATIONS = {1: "same-instant completions in index order", 2: "same-second backfilling ties by the tie rule alone",
             4: "backfill when ending at the earliest start (<=)", 8: "earliest start recomputed before every walk"}
LOGS = ("SDSC-SP2", "CTC-SP2")


# ----------------------------------------------------------- SchedGym (peer) --

def peer(directory: str, swf: str, sequences: int, seed: int, backfils: list[int], names: list[str]) -> dict:
    """Run in SchedGym's Python: for each backfil, ``sequences`` calls of its
    reset_for_test(256) after seed(seed), each followed by every heuristic's
    schedule_curr_sequence_reset; the starts it drew, each job's scheduled time and
    the bsld sum it returns."""
    sys.path.insert(0, directory)
    try:
        import tensorflow  # noqa: F401  (imported by HPCSimPickJobs; the environment does not use it)
    except ImportError:
        sys.modules["tensorflow"] = types.ModuleType("tensorflow")
    with contextlib.redirect_stdout(io.StringIO()):
        import HPCSimPickJobs as sg
    out = {"sequence": sg.JOB_SEQUENCE_SIZE, "runs": {}}
    for b in backfils:
        with contextlib.redirect_stdout(io.StringIO()):
            env = sg.HPCEnv(backfil=bool(b))
            env.seed(seed)
            env.my_init(workload_file=swf)
        score = {"FCFS": env.fcfs_score, "SJF": env.sjf_score, "WFP3": env.wfp_score,
                 "UNICEP": env.uni_score, "F1": env.f1_score}
        seen = {}
        post = env.post_process_score

        def capture(logs, post=post, seen=seen, env=env):
            # called by schedule_curr_sequence_reset after the last start, before its reset
            seen["start"] = [int(env.loads[i].scheduled_time)
                             for i in range(env.start, env.start + env.num_job_in_batch)]
            post(logs)

        env.post_process_score = capture
        runs = []
        for _ in range(sequences):
            env.reset_for_test(sg.JOB_SEQUENCE_SIZE, 0)
            rec = {"start": int(env.start)}
            for h in names:
                total = sum(env.schedule_curr_sequence_reset(score[h]).values())
                rec[h] = {"starts": seen["start"], "bsld": float(total)}
            runs.append(rec)
        out["runs"][str(b)] = runs
    return out


def peer_observe(directory: str, swf: str, sequences: int, seed: int, backfils: list[int]) -> dict:
    """Run in SchedGym's Python: the agent's path (build_observation, step_for_test)
    with a random agent (numpy's default_rng(seed + k), a uniform choice among the
    valid actions) on ``sequences`` sequences of reset_for_test; per step a
    digest of the observation and the action; per sequence the starts and the
    bsld total."""
    sys.path.insert(0, directory)
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        sys.modules["tensorflow"] = types.ModuleType("tensorflow")
    with contextlib.redirect_stdout(io.StringIO()):
        import HPCSimPickJobs as sg
    out = {"sequence": sg.JOB_SEQUENCE_SIZE, "K": sg.MAX_QUEUE_SIZE, "runs": {}}
    for b in backfils:
        with contextlib.redirect_stdout(io.StringIO()):
            env = sg.HPCEnv(backfil=bool(b))
            env.seed(seed)
            env.my_init(workload_file=swf)
        runs = []
        for k in range(sequences):
            env.reset_for_test(sg.JOB_SEQUENCE_SIZE, 0)
            first = int(env.start)
            o = env.build_observation()
            rng = np.random.default_rng(seed + k)
            digests, actions = [], []
            while True:
                valid = [i for i, p in enumerate(env.pairs) if p[0] is not None]
                a = valid[int(rng.integers(len(valid)))]
                digests.append(hashlib.sha256(np.asarray(o, np.float64).tobytes()).hexdigest()[:16])
                actions.append(a)
                o, r, d, _ = env.step_for_test(a)
                if d:
                    break
            runs.append({"start": first, "seed": seed + k, "digests": digests, "actions": actions, "bsld": float(r),
                         "starts": [int(env.loads[i].scheduled_time)
                                    for i in range(first, first + env.num_job_in_batch)]})
        out["runs"][str(b)] = runs
    return out


def cpu_dispatch() -> list[str]:
    """Run in SchedGym's Python: numpy's dispatch targets above its baseline."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__
    except ImportError:
        from numpy.core._multiarray_umath import __cpu_dispatch__
    return list(__cpu_dispatch__)


def run_peer(python: str, directory: str, swf: Path, a, numpy_mode: str, observe: bool = False) -> dict:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if numpy_mode == "libm":
        p = subprocess.run([python, str(Path(__file__).resolve()), "--cpu-dispatch"], capture_output=True,
                           text=True, env=env)
        if p.returncode != 0:
            raise SystemExit(f"SchedGym's Python failed: {p.stderr.strip()[-2000:]}")
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(json.loads(p.stdout.strip().splitlines()[-1]))
    cmd = [python, str(Path(__file__).resolve()), "--peer", directory, str(swf), "--sequences",
           str(a.observe if observe else a.sequences), "--seed", str(a.seed), "--backfil", *map(str, a.backfil),
           "--heuristics", *a.heuristics] + (["--peer-observe"] if observe else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"SchedGym run failed ({' '.join(cmd)}):\n{p.stderr.strip()[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------- engine side --

def common_jobs(trace: str):
    """The jobs both sides get (as bench/bench_gym.py's): the cleaned log, durations
    min(run, req), zero durations dropped."""
    from schedlab.engine import sim
    from schedlab.workloads import traces

    c = traces.cleaned(trace)
    j = c.jobs
    dur = np.minimum(j.run, j.req)
    keep = np.flatnonzero(dur > 0)
    return sim.Jobs(j.submit[keep], dur[keep], j.req[keep], j.procs[keep],
                    user=None if j.user is None else j.user[keep]), c.m


def write_swf(jobs, m: int, path: Path) -> None:
    from schedlab.workloads.swf import write_swf as write

    n = len(jobs)
    write(path, {"job_id": np.arange(1, n + 1), "submit": jobs.submit, "run": jobs.run, "alloc_procs": jobs.procs,
                 "req_procs": jobs.procs, "req_time": jobs.req, "avg_cpu": np.full(n, -1.0),
                 "used_mem": np.full(n, -1.0), "status": np.ones(n, np.int64),
                 **({} if jobs.user is None else {"user": jobs.user})},
          [f"MaxNodes: {m}", f"MaxProcs: {m}", "schedlab tools/oracles/compare_schedgym.py"])


def engine_run(jobs, m: int, first: int, size: int, heuristic: str, backfil: int, overrun: str = "kill"):
    from schedlab.engine import sim
    from schedlab.gym.schedgym import avg_bsld, heuristic_policy

    sub = jobs.subset(slice(first, first + size))
    col = "processors" if jobs.columns and "processors" in jobs.columns else None
    s = sim.simulate(sub, m, heuristic_policy(heuristic, col), rules="schedgym" if backfil else "schedgym-nobackfill",
                     overrun=overrun)
    return s.start, avg_bsld(s)


def compare(jobs, m: int, peer_out: dict, names, backfils, overrun: str = "kill") -> list[dict]:
    size = peer_out["sequence"]
    rows = []
    for b in backfils:
        runs = peer_out["runs"][str(b)]
        for h in names:
            row = {"heuristic": h, "backfil": b, "sequences": len(runs), "identical_starts": 0,
                   "jobs": 0, "jobs_identical": 0, "bsld_equal": 0, "bsld_bitwise": 0,
                   "bsld_schedgym_mean": 0.0, "bsld_engine_mean": 0.0, "first_divergence": None}
            for r in runs:
                start, bsld = engine_run(jobs, m, r["start"], size, h, b, overrun)
                want = np.asarray(r[h]["starts"], np.int64)
                same = start == want
                row["jobs"] += len(want)
                row["jobs_identical"] += int(same.sum())
                row["identical_starts"] += int(same.all())
                theirs = r[h]["bsld"]
                row["bsld_equal"] += int(abs(bsld - theirs) <= 1e-12 * max(1.0, abs(theirs)))
                row["bsld_bitwise"] += int(bsld == theirs)
                row["bsld_schedgym_mean"] += theirs / len(runs)
                row["bsld_engine_mean"] += bsld / len(runs)
                if not same.all() and row["first_divergence"] is None:
                    k = int(np.flatnonzero(~same)[0])
                    row["first_divergence"] = {"sequence_start": r["start"], "job_index": r["start"] + k,
                                               "schedgym": int(want[k]), "engine": int(start[k])}
            rows.append(row)
    return rows


def ablations(jobs, m: int, peer_out: dict, names, backfils) -> dict:
    """Sequences with identical starts when one detail of SchedGym's rules is
    dropped (sl_debug_schedgym): what each detail decides on these sequences."""
    from schedlab.engine.sim import lib

    out = {}
    for mask, what in ABLATIONS.items():
        old = lib.sl_debug_schedgym(mask)
        try:
            rows = compare(jobs, m, peer_out, names, backfils)
        finally:
            lib.sl_debug_schedgym(old)
        out[what] = {f"{r['heuristic']}/{r['backfil']}": r["sequences"] - r["identical_starts"] for r in rows}
    return out


def compare_observations(jobs, m: int, peer_out: dict, backfils) -> list[dict]:
    """JobDispatchEnv(rules=SchedGym's, observation="schedgym") driven by the same
    random agent on the same sequences: per step the observation's digest (the
    same float64 bytes) and the action; per sequence the starts and the bsld."""
    from schedlab.gym.dispatch import JobDispatchEnv
    from schedlab.gym.schedgym import avg_bsld

    rows = []
    for b in backfils:
        runs = peer_out["runs"][str(b)]
        env = JobDispatchEnv(jobs, m, window="jobs", jobs=peer_out["sequence"], K=peer_out["K"],
                             rules="schedgym" if b else "schedgym-nobackfill", observation="schedgym")
        row = {"backfil": b, "sequences": len(runs), "steps": 0, "steps_identical": 0, "sequences_identical": 0,
               "steps_over_K": 0, "starts_identical": 0, "bsld_equal": 0, "first_divergence": None}
        for r in runs:
            obs, _ = env.reset(options={"start": r["start"]})
            rng = np.random.default_rng(r["seed"])
            same_all, step = True, 0
            while True:
                flat = np.ascontiguousarray(obs["jobs"].reshape(-1), np.float64)
                digest = hashlib.sha256(flat.tobytes()).hexdigest()[:16]
                a = int(rng.integers(int(obs["mask"].sum())))
                same = step < len(r["digests"]) and digest == r["digests"][step] and a == r["actions"][step]
                row["steps"] += 1
                row["steps_identical"] += int(same)
                row["steps_over_K"] += int(obs["machine"][1] > peer_out["K"])
                if not same and same_all:
                    same_all = False
                    if row["first_divergence"] is None:
                        row["first_divergence"] = {"sequence_start": r["start"], "step": step}
                obs, _, term, _, _ = env.step(a)
                step += 1
                if term:
                    break
            same_all = same_all and step == len(r["digests"])
            row["sequences_identical"] += int(same_all)
            row["starts_identical"] += int(np.array_equal(env.schedule.start, np.asarray(r["starts"], np.int64)))
            row["bsld_equal"] += int(abs(avg_bsld(env.schedule) - r["bsld"]) <= 1e-12 * max(1.0, r["bsld"]))
        rows.append(row)
    return rows


def schedgym_available(directory, python) -> str | None:
    """None if usable, else why not."""
    if not directory or not python:
        return "SCHEDGYM_DIR and SCHEDGYM_PYTHON must point at a copy of DIR-LAB/deep-batch-scheduler and a Python " \
               "that imports its HPCSimPickJobs"
    if not (Path(directory) / "HPCSimPickJobs.py").is_file():
        return f"{directory}/HPCSimPickJobs.py not found"
    if not Path(python).exists():
        return f"{python} not found"
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--traces", nargs="*", default=list(LOGS))
    ap.add_argument("--sequences", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backfil", nargs="+", type=int, default=[0, 1], choices=(0, 1))
    ap.add_argument("--heuristics", nargs="+", default=list(HEURISTIC_NAMES), choices=HEURISTIC_NAMES)
    ap.add_argument("--numpy", default="both", choices=("both", "libm", "simd"))
    ap.add_argument("--schedgym", default=os.environ.get("SCHEDGYM_DIR"))
    ap.add_argument("--schedgym-python", default=os.environ.get("SCHEDGYM_PYTHON"))
    ap.add_argument("--raw", nargs="*", default=["SDSC-BLUE"], metavar="LOG",
                    help="bundled logs SchedGym also reads as they are (its own loading: processors rounded up to "
                         "nodes, runs past the request), the engine through schedlab.gym.schedgym.read_swf")
    ap.add_argument("--observe", type=int, default=100, metavar="N",
                    help="sequences on which a random agent drives both sides, observations compared (0: none)")
    ap.add_argument("--no-ablations", action="store_true",
                    help="skip the runs of the engine without each detail of SchedGym's rules")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--peer", nargs=2, metavar=("DIR", "SWF"), help=argparse.SUPPRESS)
    ap.add_argument("--cpu-dispatch", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--peer-observe", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.cpu_dispatch:
        print(json.dumps(cpu_dispatch()))
        return 0
    if a.peer and a.peer_observe:
        print(json.dumps(peer_observe(a.peer[0], a.peer[1], a.sequences, a.seed, a.backfil)))
        return 0
    if a.peer:
        print(json.dumps(peer(a.peer[0], a.peer[1], a.sequences, a.seed, a.backfil, a.heuristics)))
        return 0
    why = schedgym_available(a.schedgym, a.schedgym_python)
    if why:
        print(f"compare_schedgym: SchedGym unavailable: {why}")
        return 3
    src = Path(a.schedgym) / "HPCSimPickJobs.py"
    modes = ["libm", "simd"] if a.numpy == "both" else [a.numpy]
    report = {"schedgym": {"file": "HPCSimPickJobs.py", "sha256": hashlib.sha256(src.read_bytes()).hexdigest()},
              "seed": a.seed, "sequences": a.sequences, "logs": {}}
    t0 = time.time()
    for trace in a.traces:
        jobs, m = common_jobs(trace)
        entry = {"jobs": len(jobs), "m": m, "numpy": {}}
        with tempfile.TemporaryDirectory() as tmp:
            swf = Path(tmp) / f"{trace}-schedgym.swf"
            write_swf(jobs, m, swf)
            for mode in modes:
                out = run_peer(a.schedgym_python, a.schedgym, swf, a, mode)
                entry["numpy"][mode] = compare(jobs, m, out, a.heuristics, a.backfil)
                if mode == modes[0] and not a.no_ablations:
                    entry["ablations"] = ablations(jobs, m, out, a.heuristics, a.backfil)
            if a.observe > 0:
                out = run_peer(a.schedgym_python, a.schedgym, swf, a, modes[0], observe=True)
                entry["observations"] = compare_observations(jobs, m, out, a.backfil)
        report["logs"][trace] = entry
    for trace in a.raw or ():
        from schedlab.gym.schedgym import read_swf
        from schedlab.workloads import traces

        path = traces.resolve(trace).path
        jobs, m = read_swf(path)
        entry = {"file": path.name, "jobs": len(jobs), "m": m, "numpy": {}}
        with tempfile.TemporaryDirectory() as tmp:
            swf = Path(tmp) / path.name.replace(".gz", "")
            with gzip.open(path, "rb") as fin, open(swf, "wb") as fout:
                fout.write(fin.read())
            out = run_peer(a.schedgym_python, a.schedgym, swf, a, modes[0])
            entry["numpy"][modes[0]] = compare(jobs, m, out, a.heuristics, a.backfil, overrun="run")
        report["logs"][f"{trace} (raw)"] = entry
    report["seconds"] = round(time.time() - t0, 1)
    print(f"SchedGym HPCSimPickJobs (sha256 {report['schedgym']['sha256'][:12]}) beside the engine's SchedGym rules: "
          f"{a.sequences} sequences of 256 jobs per log (reset_for_test, seed {a.seed})")
    print(f"{'log':10} {'numpy':5} {'heuristic':9} {'backfil':>7} {'sequences':>9} {'identical':>9} "
          f"{'bsld equal':>10} {'jobs identical':>15}  bsld SchedGym / engine")
    for trace, entry in report["logs"].items():
        for mode, rows in entry["numpy"].items():
            for r in rows:
                print(f"{trace:10} {mode:5} {r['heuristic']:9} {r['backfil']:>7} {r['sequences']:>9} "
                      f"{r['identical_starts']:>9} {r['bsld_equal']:>10} {r['jobs_identical']:>7}/{r['jobs']:<7}  "
                      f"{r['bsld_schedgym_mean']:.4f} / {r['bsld_engine_mean']:.4f}"
                      + (f"  first divergence {r['first_divergence']}" if r["first_divergence"] else ""))
    for trace, entry in report["logs"].items():
        for r in entry.get("observations", []):
            print(f"{trace:10} random agent, observation='schedgym', backfil {r['backfil']}: "
                  f"{r['sequences']} sequences, "
                  f"{r['sequences_identical']} identical at every step ({r['steps_identical']}/{r['steps']} steps: "
                  f"observation and action; {r['steps_over_K']} with more than K queued), "
                  f"starts identical {r['starts_identical']}, bsld equal {r['bsld_equal']}"
                  + (f"; first divergence {r['first_divergence']}" if r["first_divergence"] else ""))
    for trace, entry in report["logs"].items():
        for what, diff in entry.get("ablations", {}).items():
            print(f"{trace:10} with {what} (not SchedGym's rule): sequences that differ {sum(diff.values())} "
                  f"({', '.join(f'{k} {v}' for k, v in diff.items() if v)})")
    print(f"({report['seconds']} s)")
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
