"""Many jobs queued at once (issue 17, item 9; issue 33, item 2): n jobs all
submitted at t = 0 on m = 64 processors, each with q uniform in 1..64, a
runtime uniform in 1..10,000 s and a requested time of 1 to 5 times it
(seeded numpy draws), under EASY-P-P for each of the 13 pure policies and a
mixed policy with an expansion (waiting-time) term.  Prints the wall time of
each, and whether it meets the target (issue 33: 1e6 jobs in under 5 s);
nothing is asserted (timings on a shared machine are noisy).

The time-varying keys (SEXP, LEXP, WFP, mixed with expansion, and the
expressions with a kinetic model: affine in time or a monomial in wait) are
kept, for a long queue, in a kinetic tournament (csrc/tour.c, issue 43: only
the nodes below an expired certificate are recomputed at a pass, and the
backfilling walk is a few range queries), for a shorter one in a kinetic
list (csrc/policies.c).  ``--old`` runs them the old way (every key
recomputed and the queue re-sorted at every pass, sl_debug_kinetic(0):
quadratic here), ``--list`` without the tournament (the kinetic list at any
length: quadratic for a mixed order), for comparison; ``--policies``
restricts the set.  Each run also prints the tournament's work: nodes
refreshed and range queries per job.

Usage: python bench/bench_queue.py [--n 1000000] [--policies SEXP LEXP ...] [--old | --list] [--target 5]
"""
from __future__ import annotations

import argparse
import time

MIXED_EXP = (0.3, -0.2, 0.1, 0.0, 0.4, 0.0)   # q, p~, r - r0, p~/q, expansion, p~ q


def jobs_at_once(n: int, seed: int = 17):
    import numpy as np

    from schedlab.engine.sim import Jobs

    rng = np.random.default_rng(seed)
    run = rng.integers(1, 10_001, n)
    req = run * rng.integers(1, 6, n)
    return Jobs(np.zeros(n, np.int64), run, req, rng.integers(1, 65, n))


#: policy expressions of issue 43: WFP's shape as the issue writes it, and a
#: mixed order with a waiting-time term
EXPRESSIONS = {"EXPR-WFP": "expr:-(wait/req)**3*procs",
               "EXPR-MIXED": "expr:0.3*procs/32 - 0.2*req/15000 + 0.4*(wait + max(req, 1))/max(req, 1)"}


def policy_of(name: str):
    from schedlab.engine import sim

    if name in EXPRESSIONS:
        return EXPRESSIONS[name]
    if name == "MIXED-EXP":
        mp = sim.Mixed(MIXED_EXP)
        return sim.Policy(mp, mp, None)
    return f"EASY-{name}-{name}"


def main(argv=None) -> None:
    from schedlab.jobs import POLICIES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--policies", nargs="+", default=list(POLICIES) + ["MIXED-EXP"] + list(EXPRESSIONS),
                    help="pure policy names, MIXED-EXP (weights %s), or %s" % (MIXED_EXP, ", ".join(EXPRESSIONS)))
    ap.add_argument("--old", action="store_true", help="time-varying keys re-sorted at every pass (the old path)")
    ap.add_argument("--list", action="store_true", help="the kinetic list only (no tournament)")
    ap.add_argument("--target", type=float, default=5.0, help="seconds (issue 33: 5)")
    args = ap.parse_args(argv)
    from schedlab.engine._core import lib
    from schedlab.engine.sim import simulate

    old_mode = lib.sl_debug_kinetic(0 if args.old else 1)
    old_tour = lib.sl_debug_tour(0 if args.list else 1)
    print(f"{'policy':<16} {'jobs':>9} {'wall s':>8} {'cpu s':>7} {'jobs/s':>11} {'makespan':>11} "
          f"{'refresh/job':>11} {'query/job':>9}  wall < {args.target:g} s")
    met = []
    try:
        for n in args.n:
            jobs = jobs_at_once(n)
            for name in args.policies:
                w0 = [lib.sl_debug_tour_count(i) for i in (0, 4)]
                t, c = time.perf_counter(), time.process_time()
                s = simulate(jobs, 64, policy_of(name))
                wall, cpu = time.perf_counter() - t, time.process_time() - c
                refreshed, queries = (lib.sl_debug_tour_count(i) - w for i, w in zip((0, 4), w0))
                ok = wall < args.target
                met.append(ok)
                print(f"{name:<16} {n:>9} {wall:>8.2f} {cpu:>7.2f} {n / wall:>11.0f} {int(s.end.max()):>11} "
                      f"{refreshed / n:>11.1f} {queries / n:>9.1f}  {'met' if ok else 'NOT met'}", flush=True)
    finally:
        lib.sl_debug_kinetic(old_mode)
        lib.sl_debug_tour(old_tour)
    print(f"{sum(met)} of {len(met)} runs under {args.target:g} s")


if __name__ == "__main__":
    main()
