"""Policy expressions against their built-in twins (issue 43): wall time of
EASY-P-P written as a built-in and as a policy expression on whole
schedules, the ratio, and whether the schedules are equal; then the Python
key function's slowdown.  Prints figures; asserts nothing (timings on a
shared machine are noisy: run it on a quiet one).

* static orders (keyed once per job) and time-varying ones on one of
  CEA-Curie's two-year resampled traces (online-bandit §6.1.3; about 860k
  jobs), the issue's target being a ratio under 1.5 for static expressions;
* the key function (``schedlab.KeyFunction``: Python at every pass) against
  the built-in SPF on whole KTH-SP2.

Usage: python bench/bench_expr.py [--trace CEA-Curie] [--repeat 3] [--policies SPF SAF ...]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

STATIC = ("FCFS", "SPF", "LPF", "SQF", "SAF", "LRF")
DYNAMIC = ("SEXP", "WFP")


def best_of(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main(argv=None) -> None:
    from schedlab.engine import sim
    from schedlab.expr import BUILTIN_EXPRESSIONS
    from schedlab.science import online_bandit
    from schedlab.workloads import traces

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="CEA-Curie")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--policies", nargs="+", default=list(STATIC + DYNAMIC))
    ap.add_argument("--no-keyfunction", action="store_true")
    args = ap.parse_args(argv)

    t = time.perf_counter()
    jobs, m = online_bandit.resampled(args.trace, None, 104, 2017, 0)
    print(f"{args.trace}: one two-year resampled trace, {len(jobs)} jobs, m = {m} "
          f"(built in {time.perf_counter() - t:.1f} s); best of {args.repeat}")
    print(f"{'policy':6} {'kind':8} {'built-in s':>10} {'expr s':>8} {'ratio':>6}  same  expression")
    for p in args.policies:
        e = sim.Expr(BUILTIN_EXPRESSIONS[p])
        tb, a = best_of(lambda: sim.simulate(jobs, m, f"EASY-{p}-{p}"), args.repeat)
        te, b = best_of(lambda: sim.simulate(jobs, m, sim.Policy(e, e)), args.repeat)
        same = np.array_equal(a.start, b.start) and np.array_equal(a.flags, b.flags)
        kind = "dynamic" if e.dynamic else "static"
        print(f"{p:6} {kind:8} {tb:10.3f} {te:8.3f} {te / tb:6.2f}  {'yes' if same else 'NO':4}  {e}", flush=True)
    if not args.no_keyfunction:
        c = traces.cleaned("KTH-SP2")
        kf = sim.KeyFunction(lambda f, now: f["req"], name="spf")
        tb, a = best_of(lambda: sim.simulate(c.jobs, c.m, "EASY-SPF-SPF"), args.repeat)
        tk, b = best_of(lambda: sim.simulate(c.jobs, c.m, sim.Policy(kf, kf)), args.repeat)
        print(f"KTH-SP2 ({len(c.jobs)} jobs): key function computing SPF's keys {tk:.3f} s, built-in SPF "
              f"{tb:.3f} s: {tk / tb:.0f}x slower; same schedule: {np.array_equal(a.start, b.start)}")


if __name__ == "__main__":
    main()
