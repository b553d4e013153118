"""``schedlab check`` on the engine's schedules of the bundled logs (issue 20).

For every bundled log (whole, after the default cleaning) and both
EASY-FCFS-FCFS and EASY-SPF-SPF: simulate, write the schedule (SWF with
waits for FCFS, Batsim's jobs.csv for SPF, so both readers are exercised),
then time ``check`` of that file (reading it, the policy-free checks and the
replay of every pass), wall-clock and CPU time of this process (on a shared
machine the CPU time is the steadier figure).  Prints one line per schedule and the figure of the
largest log (RICC, 447 794 jobs); exit status 1 if any schedule is invalid,
so ``make check-schedules`` is the make-time check that every schedule the
engine writes for the bundled logs passes.

Target (reported, not asserted): check the largest bundled log in under
2 minutes on this 2-core machine.

Usage: python bench/bench_check.py [LOG ...]   (default: every bundled log)
"""
from __future__ import annotations

import sys
import tempfile
import time
import warnings
from pathlib import Path

from schedlab.workloads import check, formats, traces
from schedlab.engine.sim import simulate

POLICIES = (("EASY-FCFS-FCFS", "swf"), ("EASY-SPF-SPF", "batsim-csv"))


def main(names) -> int:
    reg = traces.registry()
    names = names or [n for n, info in reg.items() if info.origin == "bundled"]
    bad = 0
    largest = max(names, key=lambda n: reg[n].jobs or 0)
    figure = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c = traces.cleaned(name)
            for policy, fmt in POLICIES:
                s = simulate(c.jobs, c.m, policy)
                path = Path(tmp) / f"{name}-{policy}.{'csv' if fmt == 'batsim-csv' else 'swf'}"
                formats.write(s, path, fmt, workload_name=name)
                t0, c0 = time.perf_counter(), time.process_time()
                r = check.check(path, c.m, policy)
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                figure[(name, policy)] = (wall, cpu)
                state = "valid" if r.ok else f"INVALID ({len(r.violations)} violations)"
                print(f"{name:<12} {policy:<15} {fmt:<10} {len(c.jobs):>7} jobs {r.passes:>7} passes "
                      f"{wall:7.1f} s wall {cpu:7.1f} s cpu  {state}", flush=True)
                if not r.ok:
                    print(r.report(10))
                    bad += 1
    print(f"largest bundled log {largest}: schedlab check "
          + ", ".join(f"{p} {figure[(largest, p)][0]:.1f} s wall ({figure[(largest, p)][1]:.1f} s cpu)"
                      for p, _ in POLICIES if (largest, p) in figure))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
