"""Engine benchmarks (issue 2): EASY-FCFS-FCFS over whole traces and over one
resampled-length week of KTH-SP2.  Prints jobs/s, wall time and peak memory;
targets are reported, not asserted.

Targets (this 2-core machine): the whole CEA-Curie log in under 0.5 s;
at least 2 million jobs/s on KTH-SP2.

Learned runtime estimates (gaussier2015; schedlab.engine.prediction): the whole
KTH-SP2 and CEA-Curie logs with the paper's heuristic triple (E-Loss,
incremental correction, EASY-FCFS-SJBF), the estimator in the C core
(sim.Learned); "x req." is the wall time over that of the same simulation
with requested times.  ``--python`` adds the same runs with the Python
reference estimator (prediction.LearnedEstimator; ~20 s on CEA-Curie, run
once).

Each case runs in a fresh subprocess so that its peak RSS is its own.
Usage: python bench/bench_engine.py [--repeat N] [--python]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

CASES = [
    # name, registry trace, what, estimate
    ("KTH-SP2 full", "KTH-SP2", "full", "requested"),
    ("SDSC-BLUE full", "SDSC-BLUE", "full", "requested"),
    ("CEA-Curie full", "CEA-Curie", "full", "requested"),
    ("KTH-SP2 one week", "KTH-SP2", "week", "requested"),
    ("KTH-SP2 learned C", "KTH-SP2", "full", "learned"),
    ("CEA-Curie learned C", "CEA-Curie", "full", "learned"),
]
PYTHON_CASES = [
    ("KTH-SP2 learned Py", "KTH-SP2", "full", "learned-python"),
    ("CEA-Curie learned Py", "CEA-Curie", "full", "learned-python"),
]
TARGETS = {"CEA-Curie full": ("wall_s", 0.5, "<="), "KTH-SP2 full": ("jobs_per_s", 2e6, ">=")}
#: gaussier2015's heuristic triple: E-Loss (the default loss), this correction, EASY-FCFS-SJBF.
LEARNED_POLICY, LEARNED_CORRECTION = "EASY-FCFS-SJBF", "incremental"


def run_case(trace: str, what: str, repeat: int, estimate: str = "requested") -> dict:
    import numpy as np

    from schedlab.engine import prediction, sim
    from schedlab.workloads import traces, workload

    info = traces.resolve(trace)
    t0 = time.perf_counter()
    tr = traces.load(trace)
    jobs, _ = workload.clean(tr, m=info.m)
    load_s = time.perf_counter() - t0
    if what == "week":
        # The week of the trace whose job count is the median weekly count:
        # the size of one resampled week.
        week = (jobs.submit - jobs.submit[0]) // (7 * 86400)
        counts = np.bincount(week)
        w = int(np.argsort(counts)[len(counts) // 2])
        jobs = jobs.subset(week == w)
    def best_of(run, n):
        times = []
        for _ in range(n):
            t = time.perf_counter()
            out = run()
            times.append(time.perf_counter() - t)
        return out, times

    if estimate == "requested":
        def run():
            return sim.simulate(jobs, info.m, "EASY-FCFS-FCFS")
    else:
        engine = "python" if estimate == "learned-python" else "c"
        repeat = 1 if engine == "python" else repeat

        def run():
            return prediction.simulate_learned(jobs, info.m, LEARNED_POLICY, correction=LEARNED_CORRECTION,
                                               engine=engine)[0]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    s, times = best_of(run, repeat)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best = min(times)
    out = {"jobs": len(jobs), "m": info.m, "load_s": load_s, "wall_s": best,
           "median_s": sorted(times)[len(times) // 2], "jobs_per_s": len(jobs) / best,
           "peak_rss_mb": rss1 / 1024, "sim_rss_growth_mb": (rss1 - rss0) / 1024,
           "avg_wait": float(s.summary()["avg_wait"])}
    if estimate != "requested":
        # the same simulation with requested times, for the ratio
        _, req = best_of(lambda: sim.simulate(jobs, info.m, LEARNED_POLICY, correction=LEARNED_CORRECTION),
                         max(repeat, 3))
        out["requested_s"] = min(req)
        out["ratio"] = best / min(req)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--python", action="store_true", help="also time the Python reference learned estimator")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        trace, what, estimate = args.case.split(":")
        print(json.dumps(run_case(trace, what, args.repeat, estimate)))
        return 0
    print(f"schedlab engine benchmark: EASY-FCFS-FCFS, requested-time estimates, best of {args.repeat}; "
          f"learned: E-Loss / {LEARNED_CORRECTION} / {LEARNED_POLICY} (x req.: over requested times, same policy)")
    print(f"{'case':<21} {'jobs':>8} {'wall':>11} {'jobs/s':>12} {'x req.':>7} {'load':>8} {'peak RSS':>9}  target")
    for name, trace, what, estimate in CASES + (PYTHON_CASES if args.python else []):
        out = subprocess.run([sys.executable, __file__, "--repeat", str(args.repeat), "--case",
                              f"{trace}:{what}:{estimate}"], check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        target = ""
        if name in TARGETS:
            key, value, op = TARGETS[name]
            ok = r[key] <= value if op == "<=" else r[key] >= value
            target = f"{key} {op} {value:g}: {'met' if ok else 'NOT MET'}"
        wall = f"{r['wall_s'] * 1e3:.2f} ms"
        ratio = f"{r['ratio']:.1f}" if "ratio" in r else ""
        print(f"{name:<21} {r['jobs']:>8} {wall:>11} {r['jobs_per_s']:>12,.0f} {ratio:>7} {r['load_s']:>7.2f}s "
              f"{r['peak_rss_mb']:>7.0f}MB  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
