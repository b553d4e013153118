"""Whole-log schedules of bundled traces under several configurations, one
sha256 (16 hex digits) of the outputs (start, end, flags, predicted) per case:
run it with two builds of the core (e.g. before and after an engine change)
and diff the outputs -- identical lines mean bit-identical schedules.

Usage: python bench/schedule_hashes.py KTH-SP2 CTC-SP2 [...]
"""
import hashlib, sys, time
import numpy as np
from schedlab.workloads import traces, workload
from schedlab.engine import sim
CASES = [("EASY-FCFS-FCFS", {}), ("EASY-SPF-SPF", {}), ("EASY-LEXP-LEXP", {"threshold": "20h"}),
         ("EASY-LEXP-FCFS", {"threshold": "5h", "threshold_backfill": True}),
         ("EASY-FCFS-SJBF", {"estimate": "learned", "correction": "incremental"}),
         ("EASY-FCFS-FCFS", {"estimate": "actual"}), ("EASY-SAF-SPF", {"correction": "doubling", "estimate": "easy++"}),
         # time-varying keys (issue 33: the kinetic order)
         ("EASY-SEXP-SEXP", {}), ("EASY-LEXP-LEXP", {}), ("EASY-WFP-WFP", {}), ("EASY-SEXP-SAF", {"threshold": "40h"}),
         ("MIXED-EXP", {})]
MIXED_EXP = sim.Mixed((0.3, -0.2, 0.1, 0.0, 0.4, 0.0))
for name in sys.argv[1:]:
    info = traces.resolve(name)
    jobs, _ = workload.clean(traces.load(info), m=info.m)
    for pol, kw in CASES:
        t = time.perf_counter()
        policy = sim.Policy(MIXED_EXP, MIXED_EXP, None) if pol == "MIXED-EXP" else pol
        s = sim.simulate(jobs, info.m, policy, **kw)
        h = hashlib.sha256()
        for a in (s.start, s.end, s.flags, s.predicted):
            h.update(np.ascontiguousarray(a).tobytes())
        print(f"{name:10} {len(jobs):7} {pol:16} {str(kw):70} {h.hexdigest()[:16]}  ({time.perf_counter()-t:.2f}s)", flush=True)
