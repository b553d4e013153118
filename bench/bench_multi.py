"""Many mixed weight vectors of one week in one call (issue 33 item 1):
for one real week of each log of the mixed study, at the grid's full size
(thesis §5.5.1: step 0.01, 40,002 weight vectors), the wall time of the
per-vector path (mixed.cells.Period: one clone of the week per vector, as
grid_cell did) and of the new one (mixed.cells.grid_bsld: sim.simulate_mixed_many,
csrc/multi.c), the latter without and with the re-merging of groups whose
live state is identical (sl_debug_multi_merge 0 / 1, paired: --reps runs of
each, alternating, the least wall printed), the forks, merges, deliveries
(schedules handed over) and the peak of simulations alive at once; every
path's values are checked equal bit for bit.  Timings are printed, never
asserted.

  python bench/bench_multi.py [--resolution 100] [--week 10] [--reps 2] [--no-per-vector] [TRACE ...]
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from schedlab.science import optim
from schedlab.engine import sim
from schedlab.engine._core import lib
from schedlab.studies.mixed import cells
from schedlab.studies.mixed.params import DEFAULT_TRACES


def together(jobs, m, points, scales, merge: int):
    """The mean bounded slowdown of every vector by simulate_mixed_many,
    groups re-merged (1) or not (0); its wall time and the core's counts."""
    new = np.full(len(points), np.nan)

    def got(vectors, s):
        new[vectors] = float(np.mean(cells.metrics.bsld(s)))

    old = lib.sl_debug_multi_merge(merge)
    try:
        t = time.perf_counter()
        stats = sim.simulate_mixed_many(jobs, m, points, tuple(scales), threshold=cells.THRESHOLD, on_schedule=got)
        return new, time.perf_counter() - t, stats
    finally:
        lib.sl_debug_multi_merge(old)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="*", default=list(DEFAULT_TRACES))
    ap.add_argument("--resolution", type=int, default=100)
    ap.add_argument("--week", type=int, default=10, help="week (1-based, after the first) of each trace")
    ap.add_argument("--reps", type=int, default=2, help="paired runs without and with merges, alternating")
    ap.add_argument("--no-per-vector", action="store_true", help="skip the per-vector path")
    ap.add_argument("--json", help="write the rows here too")
    a = ap.parse_args()
    points = optim.l1_lattice(3, a.resolution)
    rows = []
    print(f"load (uptime): {os.getloadavg()}", flush=True)
    print(f"{'trace':10} {'week':>4} {'jobs':>5} {'vectors':>7} {'per-vector s':>12} {'no-merge s':>10} "
          f"{'merge s':>8} {'gain':>5} {'forks':>6} {'forks m':>7} {'merges':>6} {'deliv':>6} {'deliv m':>7} "
          f"{'live':>5} {'live m':>6} {'MB m':>6}", flush=True)
    for trace in a.traces:
        units, m, scales = cells.trace_units(trace)
        jobs = units[a.week - 1]
        per_vector = float("nan")
        ref = None
        if not a.no_per_vector:
            t0 = time.perf_counter()
            period = cells.Period(jobs, m, cells.THRESHOLD, "same")
            ref = np.array([period.bsld(cells.mixed_policy(w, scales)) for w in points])
            period.close()
            per_vector = time.perf_counter() - t0
        walls = {0: [], 1: []}
        stats = {}
        for _ in range(a.reps):
            for merge in (0, 1):
                vals, wall, stats[merge] = together(jobs, m, points, scales, merge)
                if ref is None:
                    ref = vals
                if not np.array_equal(ref, vals, equal_nan=True):
                    raise SystemExit(f"{trace}: merge={merge} differs at {int(np.sum(ref != vals))} points")
                walls[merge].append(wall)
        w0, w1 = min(walls[0]), min(walls[1])
        s0, s1 = stats[0], stats[1]
        row = {"trace": trace, "week": a.week, "jobs": len(jobs), "vectors": len(points),
               "per_vector_s": round(per_vector, 2), "no_merge_s": [round(x, 2) for x in walls[0]],
               "merge_s": [round(x, 2) for x in walls[1]], "no_merge": s0, "merge": s1,
               "load": os.getloadavg()}
        rows.append(row)
        print(f"{trace:10} {a.week:4} {len(jobs):5} {len(points):7} {per_vector:12.2f} {w0:10.2f} {w1:8.2f} "
              f"{w0 / w1:5.2f} {s0['forks']:6} {s1['forks']:7} {s1['merges']:6} {s0['schedules']:6} "
              f"{s1['schedules']:7} {s0['peak_live']:5} {s1['peak_live']:6} {s1['peak_bytes'] / 1e6:6.1f}",
              flush=True)
    print(f"load (uptime): {os.getloadavg()}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
