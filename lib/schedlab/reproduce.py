"""``make reproduce``: regenerate every result of the compendium.

For now (the engine issue) this runs what exists: the EASY-FCFS-FCFS
baseline of the six main traces, written to ``results/engine/baseline.json``
and printed.  The study notebooks and the paper join this pipeline as their
issues land.  Usage: ``python -m schedlab.reproduce [--profile quick|full]``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone

from . import __version__, paths, sim, traces, workload


def baseline(names=None, policy="EASY-FCFS-FCFS", estimate="requested") -> list[dict]:
    """EASY-FCFS-FCFS summary metrics on the main traces (cleaning defaults)."""
    rows = []
    reg = traces.registry()
    for name in names or [n for n, i in reg.items() if i.main]:
        info = reg[name]
        jobs, report = workload.clean(traces.load(name), m=info.m)
        t = time.perf_counter()
        s = sim.simulate(jobs, info.m, policy, estimate=estimate)
        wall = time.perf_counter() - t
        summ = s.summary()
        rows.append({"trace": name, "sha256": info.sha256, "m": info.m, "jobs": len(jobs),
                     "jobs_in_file": report.jobs_in, "policy": str(s.policy), "estimate": estimate,
                     "avg_wait_s": summ["avg_wait"], "max_wait_s": summ["max_wait"],
                     "mean_bsld": summ["mean_bsld"], "mean_ppbsld": summ["mean_ppbsld"],
                     "utilisation": summ["utilisation"], "backfilled": summ["backfilled"],
                     "killed": summ["killed"], "sim_wall_s": wall})
    return rows


def write_json_atomic(path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=2)
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--profile", default="quick", choices=["quick", "full"])
    args = ap.parse_args(argv)
    t0 = time.time()
    rows = baseline()
    out = paths.RESULTS / "engine" / "baseline.json"
    write_json_atomic(out, {"schedlab": __version__, "core": sim.VERSION, "profile": args.profile,
                            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                            "rows": rows})
    print(f"{'trace':<10} {'m':>6} {'jobs':>7} {'AvgWait (s)':>12} {'MaxWait (s)':>12} {'mean bsld':>10}")
    for r in rows:
        print(f"{r['trace']:<10} {r['m']:>6} {r['jobs']:>7} {r['avg_wait_s']:>12.1f} {r['max_wait_s']:>12.0f} {r['mean_bsld']:>10.2f}")
    print(f"wrote {out} in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
