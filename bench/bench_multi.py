"""Many mixed weight vectors of one week in one call (issue 33 item 1):
for one real week of each log of the mixed study, at the grid's full size
(thesis §5.5.1: step 0.01, 40,002 weight vectors), the wall time of the
per-vector path (mixed.cells.Period: one clone of the week per vector, as
grid_cell did) and of the new one (mixed.cells.grid_bsld: sim.simulate_mixed_many,
csrc/multi.c), the number of distinct schedules and of forks, the peak
memory of the simulations alive at once; the two paths' values are checked
equal bit for bit.  Timings are printed, never asserted.

  python bench/bench_multi.py [--resolution 100] [--week 10] [TRACE ...]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from schedlab.science import optim
from schedlab.engine import sim
from schedlab.studies.mixed import cells
from schedlab.studies.mixed.params import DEFAULT_TRACES


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="*", default=list(DEFAULT_TRACES))
    ap.add_argument("--resolution", type=int, default=100)
    ap.add_argument("--week", type=int, default=10, help="week (1-based, after the first) of each trace")
    ap.add_argument("--json", help="write the rows here too")
    a = ap.parse_args()
    points = optim.l1_lattice(3, a.resolution)
    rows = []
    print(f"{'trace':10} {'week':>4} {'jobs':>5} {'vectors':>7} {'per-vector s':>12} {'together s':>10} "
          f"{'speed-up':>8} {'schedules':>9} {'forks':>6} {'peak live':>9} {'peak MB':>7}", flush=True)
    for trace in a.traces:
        units, m, scales = cells.trace_units(trace)
        jobs = units[a.week - 1]
        t0 = time.perf_counter()
        period = cells.Period(jobs, m, cells.THRESHOLD, "same")
        old = np.array([period.bsld(cells.mixed_policy(w, scales)) for w in points])
        period.close()
        t1 = time.perf_counter()
        new = np.full(len(points), np.nan)

        def got(vectors, s):
            new[vectors] = float(np.mean(cells.metrics.bsld(s)))

        stats = sim.simulate_mixed_many(jobs, m, points, tuple(scales), threshold=cells.THRESHOLD, on_schedule=got)
        t2 = time.perf_counter()
        if not np.array_equal(old, new, equal_nan=True):
            raise SystemExit(f"{trace}: the two paths differ at {int(np.sum(old != new))} points")
        row = {"trace": trace, "week": a.week, "jobs": len(jobs), "vectors": len(points),
               "per_vector_s": round(t1 - t0, 2), "together_s": round(t2 - t1, 2), **stats}
        rows.append(row)
        print(f"{trace:10} {a.week:4} {len(jobs):5} {len(points):7} {t1 - t0:12.2f} {t2 - t1:10.2f} "
              f"{(t1 - t0) / (t2 - t1):8.1f} {stats['schedules']:9} {stats['forks']:6} {stats['peak_live']:9} "
              f"{stats['peak_bytes'] / 1e6:7.1f}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
