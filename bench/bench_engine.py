"""Engine benchmarks (issue 2): EASY-FCFS-FCFS over whole traces and over one
resampled-length week of KTH-SP2.  Prints jobs/s, wall time and peak memory;
targets are reported, not asserted.

Targets (this 2-core machine): the whole CEA-Curie log in under 0.5 s;
at least 2 million jobs/s on KTH-SP2.

Each case runs in a fresh subprocess so that its peak RSS is its own.
Usage: python bench/bench_engine.py [--repeat N]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

CASES = [
    # name, registry trace, what
    ("KTH-SP2 full", "KTH-SP2", "full"),
    ("SDSC-BLUE full", "SDSC-BLUE", "full"),
    ("CEA-Curie full", "CEA-Curie", "full"),
    ("KTH-SP2 one week", "KTH-SP2", "week"),
]
TARGETS = {"CEA-Curie full": ("wall_s", 0.5, "<="), "KTH-SP2 full": ("jobs_per_s", 2e6, ">=")}


def run_case(trace: str, what: str, repeat: int) -> dict:
    import numpy as np

    from schedlab import sim, traces, workload

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
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        s = sim.simulate(jobs, info.m, "EASY-FCFS-FCFS")
        times.append(time.perf_counter() - t)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best = min(times)
    return {"jobs": len(jobs), "m": info.m, "load_s": load_s, "wall_s": best,
            "median_s": sorted(times)[len(times) // 2], "jobs_per_s": len(jobs) / best,
            "peak_rss_mb": rss1 / 1024, "sim_rss_growth_mb": (rss1 - rss0) / 1024,
            "avg_wait": float(s.summary()["avg_wait"])}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        trace, what = args.case.split(":")
        print(json.dumps(run_case(trace, what, args.repeat)))
        return 0
    print(f"schedlab engine benchmark: EASY-FCFS-FCFS, requested-time estimates, best of {args.repeat}")
    print(f"{'case':<18} {'jobs':>8} {'wall':>10} {'jobs/s':>12} {'load':>8} {'peak RSS':>9}  target")
    for name, trace, what in CASES:
        out = subprocess.run([sys.executable, __file__, "--repeat", str(args.repeat), "--case", f"{trace}:{what}"],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        target = ""
        if name in TARGETS:
            key, value, op = TARGETS[name]
            ok = r[key] <= value if op == "<=" else r[key] >= value
            target = f"{key} {op} {value:g}: {'met' if ok else 'NOT MET'}"
        wall = f"{r['wall_s'] * 1e3:.2f} ms"
        print(f"{name:<18} {r['jobs']:>8} {wall:>10} {r['jobs_per_s']:>12,.0f} {r['load_s']:>7.2f}s {r['peak_rss_mb']:>7.0f}MB  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
