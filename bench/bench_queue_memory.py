"""Memory of the structures that keep a long time-varying queue in order
(issue 53, item 6): n jobs queued at t = 0 (bench_queue.py's burst: m = 64,
q uniform in 1..64, runtimes 1..10,000 s, requests 1 to 5 times them), the
simulation run to its first pass (every job queued), then the bytes its
queues hold, as the core counts them (sl_debug_queue_bytes): the kinetic
tournament (csrc/tour.c: a node per leaf and per inner node, over every job
of the simulation, and four arrays of n), against the kinetic list
(csrc/policies.c: a certificate per adjacent pair and their min-tree, over
the queued jobs) and the backfilling walk's block summaries.  Both orders
hold O(n); the tournament's constant is larger.  Prints; asserts nothing.

Usage: python bench/bench_queue_memory.py [--n 1000000] [--policies WFP MIXED-EXP EXPR-WFP]
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_queue import EXPRESSIONS, jobs_at_once, policy_of  # noqa: E402


def bytes_held(jobs, policy, tour: bool) -> tuple[int, int, int]:
    from schedlab.engine._core import lib
    from schedlab.engine.sim import Simulation

    old_tour, old_kin = lib.sl_debug_tour(2 if tour else 0), lib.sl_debug_kinetic(1 if tour else 3)
    try:
        with Simulation(jobs, 64, policy) as s:
            s.run(0)
            h = s._live()
            return tuple(int(lib.sl_debug_queue_bytes(h, k)) for k in range(3))
    finally:
        lib.sl_debug_tour(old_tour)
        lib.sl_debug_kinetic(old_kin)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--policies", nargs="+", default=["WFP", "MIXED-EXP", "EXPR-WFP"],
                    help="SEXP, LEXP, WFP, MIXED-EXP or %s" % ", ".join(EXPRESSIONS))
    args = ap.parse_args(argv)
    mb = 1 << 20
    print(f"{'policy':<12} {'jobs':>9} {'tournament MB':>14} {'B/job':>6} {'list MB':>8} {'B/job':>6} "
          f"{'summaries MB':>13}")
    for n in args.n:
        jobs = jobs_at_once(n)
        for name in args.policies:
            p = policy_of(name)
            t_tour, _, sum_t = bytes_held(jobs, p, True)
            _, t_list, sum_l = bytes_held(jobs, p, False)
            print(f"{name:<12} {n:>9} {t_tour / mb:>14.1f} {t_tour / n:>6.1f} {t_list / mb:>8.1f} {t_list / n:>6.1f} "
                  f"{max(sum_t, sum_l) / mb:>13.1f}", flush=True)


if __name__ == "__main__":
    main()
