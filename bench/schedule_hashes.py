"""Whole-log schedules of bundled traces under several configurations, one
sha256 (16 hex digits) of the outputs (start, end, flags, predicted) per case:
run it with two builds of the core (e.g. before and after an engine change)
and diff the outputs -- identical lines mean bit-identical schedules.

``--expressions``: the 13 built-in policies, each as EASY-P-P and as its
policy expression (schedlab.expr.BUILTIN_EXPRESSIONS): the two hashes of a
policy must be equal, and the last line says whether they all are.

Usage: python bench/schedule_hashes.py [--expressions] KTH-SP2 CTC-SP2 [...]
"""
import hashlib
import sys
import time

import numpy as np

from schedlab.engine import sim
from schedlab.expr import BUILTIN_EXPRESSIONS
from schedlab.workloads import traces, workload

CASES = [("EASY-FCFS-FCFS", {}), ("EASY-SPF-SPF", {}), ("EASY-LEXP-LEXP", {"threshold": "20h"}),
         ("EASY-LEXP-FCFS", {"threshold": "5h", "threshold_backfill": True}),
         ("EASY-FCFS-SJBF", {"estimate": "learned", "correction": "incremental"}),
         ("EASY-FCFS-FCFS", {"estimate": "actual"}), ("EASY-SAF-SPF", {"correction": "doubling", "estimate": "easy++"}),
         # time-varying keys (issue 33: the kinetic order)
         ("EASY-SEXP-SEXP", {}), ("EASY-LEXP-LEXP", {}), ("EASY-WFP-WFP", {}), ("EASY-SEXP-SAF", {"threshold": "40h"}),
         ("MIXED-EXP", {})]
MIXED_EXP = sim.Mixed((0.3, -0.2, 0.1, 0.0, 0.4, 0.0))


def digest(s) -> str:
    h = hashlib.sha256()
    for a in (s.start, s.end, s.flags, s.predicted):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def main(argv):
    expressions = "--expressions" in argv
    names = [a for a in argv if a != "--expressions"]
    differ = 0
    for name in names:
        info = traces.resolve(name)
        jobs, _ = workload.clean(traces.load(info), m=info.m)
        if expressions:
            cases = []
            for p, text in BUILTIN_EXPRESSIONS.items():
                e = sim.Expr(text)
                cases += [(f"EASY-{p}-{p}", f"EASY-{p}-{p}", {}), (f"expr:{text}", sim.Policy(e, e), {})]
        else:
            cases = [(pol, sim.Policy(MIXED_EXP, MIXED_EXP, None) if pol == "MIXED-EXP" else pol, kw)
                     for pol, kw in CASES]
        last = None
        for i, (label, policy, kw) in enumerate(cases):
            t = time.perf_counter()
            d = digest(sim.simulate(jobs, info.m, policy, **kw))
            print(f"{name:10} {len(jobs):7} {label[:44]:44} {str(kw)[:40]:40} {d}  ({time.perf_counter()-t:.2f}s)",
                  flush=True)
            if expressions and i % 2 == 1:
                differ += d != last
            last = d
    if expressions:
        print(f"built-in vs expression: {'all equal' if not differ else f'{differ} DIFFER'} "
              f"({13 * len(names)} pairs)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
