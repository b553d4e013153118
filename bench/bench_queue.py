"""Many jobs queued at once (issue 17, item 9): n jobs all submitted at t = 0
on m = 64 processors, each with q uniform in 1..64, a runtime uniform in
1..10,000 s and a requested time of 1 to 5 times it (seeded numpy draws).
Prints the wall time of each policy for each n; nothing is asserted (timings
on a shared machine are noisy).

Target (issue 17): 1e6 jobs simulate in seconds under EASY-FCFS-FCFS and
EASY-SPF-SPF.  Dynamic policies (LEXP: the keys change with time) recompute
every queued job's key at each pass, so their cost stays O(queued) per pass
(quadratic here); they are reported at smaller n.

Usage: python bench/bench_queue.py [--n 100000 1000000] [--dynamic-n 10000 30000]
"""
from __future__ import annotations

import argparse
import time


def jobs_at_once(n: int, seed: int = 17):
    import numpy as np

    from schedlab.sim import Jobs

    rng = np.random.default_rng(seed)
    run = rng.integers(1, 10_001, n)
    req = run * rng.integers(1, 6, n)
    return Jobs(np.zeros(n, np.int64), run, req, rng.integers(1, 65, n))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--dynamic-n", type=int, nargs="+", default=[10_000, 30_000])
    args = ap.parse_args(argv)
    from schedlab.sim import simulate

    cases = [(p, n) for n in args.n for p in ("EASY-FCFS-FCFS", "EASY-SPF-SPF")]
    cases += [("EASY-LEXP-LEXP", n) for n in args.dynamic_n]
    print(f"{'policy':<16} {'jobs':>9} {'wall s':>8} {'jobs/s':>11}  makespan")
    for policy, n in cases:
        jobs = jobs_at_once(n)
        t = time.perf_counter()
        s = simulate(jobs, 64, policy)
        wall = time.perf_counter() - t
        print(f"{policy:<16} {n:>9} {wall:>8.2f} {n / wall:>11.0f}  {int(s.end.max())}", flush=True)


if __name__ == "__main__":
    main()
