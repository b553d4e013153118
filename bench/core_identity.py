"""Bit-identity check of two builds of the C core (issue 19, item 5): many
simulations -- every queue policy, mixed policies of 3 and 6 weights (with
and without the expansion feature), thresholds none / 2 h / 200000 s,
threshold_backfill on and off, other backfilling orders, estimates
(requested, actual, easy++, learned, an array) and corrections, classes and
dividers, overrun, stepped runs with policy changes and clones -- on weeks of
the bundled logs and on resampled CEA-Curie traces, plus thousands of jobs
queued at once (the block-summary walk, also forced on every queue) and
mixed policies whose keys overflow to inf and NaN; every output array is
saved, then compared exactly.

  SCHEDLAB_CORE_DIR=OLD_BUILD python bench/core_identity.py dump old.npz
  python bench/core_identity.py dump new.npz          # the build under test
  python bench/core_identity.py compare old.npz new.npz

One build against itself: every weight vector of a real week's grid (the
mixed study's: 3 features, threshold 200000 s, P_B = P_R; also P_B = FCFS)
simulated together by sim.simulate_mixed_many (csrc/multi.c) and alone by
sim.simulate, every schedule hashed both ways (issue 33 item 1):

  python bench/core_identity.py multi [TRACE WEEK RESOLUTION]   # default SDSC-BLUE 10 100
"""
from __future__ import annotations

import sys

import numpy as np

from schedlab.engine import sim
from schedlab.workloads import traces, workload
from schedlab.studies.selection import cells as sel

TRACES = {"KTH-SP2": (5, 30), "CTC-SP2": (8, 20), "SDSC-BLUE": (10, 40, 55), "HPC2N": (12, 30),
          "CEA-Curie": (3, 20), "LANL-CM5": (6,)}
RNG = np.random.default_rng(19)
MIXED = [sim.Mixed(tuple(RNG.normal(size=3))) for _ in range(3)] + \
        [sim.Mixed(tuple(RNG.normal(size=6))) for _ in range(2)] + \
        [sim.Mixed((0.2, -0.3, 0.1, 0.0, 0.0, 0.4)), sim.Mixed((0.0, 0.3, 0.2))]
POLICIES = list(sim.BANDIT_POLICIES) + ["WFP", "SJBF"] + MIXED
THRESHOLDS = [(None, False), (7200, False), (7200, True), (200_000, False), (200_000, True)]


def _arrays(s) -> list[np.ndarray]:
    out = [s.start, s.end, s.flags]
    for a in ("first_start", "predicted"):
        v = getattr(s, a, None)
        if v is not None:
            out.append(np.asarray(v))
    return [np.asarray(a).astype(np.int64) for a in out]


def _schedule(c: sim.Simulation) -> list[np.ndarray]:
    return [np.array(c._start, dtype=np.int64), np.array(c._end, dtype=np.int64), np.array(c._flags, dtype=np.int64)]


def workloads():
    for name, weeks in TRACES.items():
        info = traces.resolve(name)
        jobs, _ = workload.clean(traces.load(info), m=info.m)
        units = workload.weeks(jobs)
        for w in weeks:
            if w < len(units) and len(units[w]):
                yield f"{name}-w{w}", units[w], info.m
    for sample in (0, 1):
        jobs, m = sel.resampled("CEA-Curie", None, 2, 2017, sample)
        yield f"Curie-resample{sample}", jobs, m


def long_queue_cases():
    """Thousands of jobs queued at once (the block-summary walk, also forced
    on every queue with sl_debug_tree_min(0)), and mixed policies whose keys
    are huge but finite (scales near 0, weights near the bound the core accepts,
    csrc/SEMANTICS.md; beyond it keys could be inf or NaN and are refused)."""
    from schedlab.engine._core import lib
    rng = np.random.default_rng(17)
    n = 3000
    run = rng.integers(0, 5000, n)
    req = np.maximum(run * rng.integers(1, 4, n) - rng.integers(0, 300, n), 0)
    submit = np.sort(np.concatenate([np.zeros(n // 2, np.int64), rng.integers(0, 200_000, n - n // 2)]))
    jobs = sim.Jobs(submit, run, req, rng.integers(1, 100, n), user=rng.integers(0, 20, n))
    huge_mixed = [sim.Mixed((1.0, 0.0, -1.0, 0.0, 0.0, 1.0), (1e-250, 1.0, 1e-250, 1.0, 1.0, 1e-250)),
                  sim.Mixed((1e250, -1e250, 0.0, 0.0, 1.0, 0.0), (1.0, 1.0, 1.0, 1.0, 1e-250, 1.0))]
    for tree_min in (None, 0):
        for p, bf, thr, tb in [("FCFS", "FCFS", None, False), ("SPF", "SAF", 7200, False), ("LQF", "FCFS", 3600, True),
                               ("SAF", "SAF", 200_000, True), ("LEXP", "LEXP", None, False), ("LEXP", "SPF", 7200, False),
                               (MIXED[0], MIXED[0], 7200, False), (huge_mixed[0], huge_mixed[0], None, False),
                               (huge_mixed[0], "FCFS", 7200, True), (huge_mixed[1], huge_mixed[1], 7200, False),
                               ("FCFS", huge_mixed[0], None, False)]:
            def f(p=p, bf=bf, thr=thr, tb=tb, tree_min=tree_min):
                old = lib.sl_debug_tree_min(tree_min) if tree_min is not None else None
                try:
                    return _arrays(sim.simulate(jobs, 100, sim.Policy(p, bf, thr, threshold_backfill=tb)))
                finally:
                    if old is not None:
                        lib.sl_debug_tree_min(old)
            yield f"longq|tree={tree_min}|{p}-{bf}|{thr}|{tb}", f
    # the huge-key mixed policies on a real week too
    info = traces.resolve("SDSC-BLUE")
    week = workload.weeks(workload.clean(traces.load(info), m=info.m)[0])[40]
    for p in huge_mixed:
        for thr, tb in THRESHOLDS:
            yield (f"SDSC-BLUE-w40|huge|{p}|{thr}|{tb}",
                   lambda p=p, thr=thr, tb=tb: _arrays(sim.simulate(week, info.m, sim.Policy(p, p, thr, threshold_backfill=tb))))


def cases():
    """(name, function returning the output arrays)."""
    yield from long_queue_cases()
    for wname, jobs, m in workloads():
        big = len(jobs) > 5000
        for p in POLICIES:
            for thr, tb in THRESHOLDS:
                if big and thr == 7200:
                    continue
                yield (f"{wname}|{p}|{thr}|{tb}",
                       lambda jobs=jobs, m=m, p=p, thr=thr, tb=tb: _arrays(sim.simulate(
                           jobs, m, sim.Policy(p, p, thr, threshold_backfill=tb))))
        # other backfilling orders
        for pr, bf in [("SAF", "FCFS"), ("LEXP", "FCFS"), ("FCFS", "SPF"), ("SEXP", "SAF"), ("LQF", "SEXP"),
                       (MIXED[0], "FCFS"), (MIXED[3], MIXED[4]), ("FCFS", "SJBF"), ("WFP", "LEXP")]:
            for thr, tb in [(None, False), (200_000, True), (7200, False)]:
                yield (f"{wname}|{pr}-{bf}|{thr}|{tb}",
                       lambda jobs=jobs, m=m, pr=pr, bf=bf, thr=thr, tb=tb: _arrays(sim.simulate(
                           jobs, m, sim.Policy(pr, bf, thr, threshold_backfill=tb))))
        if big:
            continue
        # estimates and corrections
        for est, corr in [("actual", "none"), ("easy++", "incremental"), ("easy++", "none"), ("requested", "doubling"),
                          ("learned", "incremental"), ("array", "requested"), ("array", "none")]:
            if est in ("easy++", "learned") and jobs.user is None:
                continue
            for p, thr in [("FCFS", None), ("SJBF", None), ("SAF", 7200), ("LEXP", 200_000), (MIXED[0], 200_000)]:
                def f(jobs=jobs, m=m, est=est, corr=corr, p=p, thr=thr):
                    e = est
                    if est == "array":
                        e = np.maximum(0, (jobs.run * np.random.default_rng(1).uniform(0.5, 2.0, len(jobs))).astype(np.int64))
                    return _arrays(sim.simulate(jobs, m, sim.Policy(p, "FCFS" if p == "SJBF" else p, thr), estimate=e,
                                                correction=corr))
                yield f"{wname}|est={est}|corr={corr}|{p}|{thr}", f
        # overrun
        yield f"{wname}|overrun=run", lambda jobs=jobs, m=m: _arrays(sim.simulate(jobs, m, "EASY-SPF-SPF", overrun="run"))
        # classes and dividers
        cls = jobs.req <= np.median(jobs.req)
        for p, div in [("FCFS", None), ("SAF", 3600), ("LEXP", 1800), (MIXED[1], 3600)]:
            yield (f"{wname}|classes|{p}|{div}",
                   lambda jobs=jobs, m=m, p=p, div=div, cls=cls: _arrays(sim.simulate(
                       jobs, m, sim.Policy(p, p, 7200), classes=cls, divider=div)))
        # stepped runs with policy changes and a clone (the selection study's strategies)
        def stepped(jobs=jobs, m=m):
            out = []
            c = sim.Simulation(jobs, m, sel.easy("FCFS"))
            t0, t1 = int(jobs.submit[0]), int(jobs.submit[-1])
            cycle = ["SAF", "LEXP", "FCFS", MIXED[2], "SEXP", "SQF", "LRF"]
            for k, t in enumerate(np.linspace(t0, t1, 15).astype(np.int64)):
                c.run(int(t))
                if k == 7:
                    with c.clone() as d:
                        d.set_policy(sel.easy("SPF"))
                        d.run()
                        out += _schedule(d)
                c.set_policy(sel.easy(cycle[k % len(cycle)]) if k % 2 else sim.Policy(cycle[k % len(cycle)], "FCFS", None))
            c.run()
            out += _schedule(c)
            c.close()
            return out
        yield f"{wname}|stepped", stepped


def dump(path: str) -> None:
    arrays = {}
    for name, f in cases():
        for i, a in enumerate(f()):
            arrays[f"{name}#{i}"] = a
    np.savez_compressed(path, **arrays)
    print(f"{len({k.split('#')[0] for k in arrays})} simulations dumped to {path}")


def compare(a: str, b: str) -> None:
    x, y = np.load(a), np.load(b)
    if set(x.files) != set(y.files):
        sys.exit(f"different cases: {sorted(set(x.files) ^ set(y.files))[:10]}")
    bad = [k for k in x.files if not np.array_equal(x[k], y[k])]
    sims = {k.split('#')[0] for k in x.files}
    if bad:
        sys.exit(f"{len(bad)} arrays differ, e.g. {bad[:10]}")
    print(f"identical: {len(sims)} simulations, {len(x.files)} arrays, "
          f"{sum(x[k].size for k in x.files)} values")


def multi(trace: str = "SDSC-BLUE", week: int = 10, resolution: int = 100) -> None:
    import hashlib
    import time

    from schedlab.science import optim
    from schedlab.studies.mixed import cells as mixed

    def digest(s) -> bytes:
        h = hashlib.sha256()
        for a in (s.start, s.end, s.flags):
            h.update(np.ascontiguousarray(a).tobytes())
        return h.digest()

    units, m, scales = mixed.trace_units(trace)
    jobs = units[week - 1]
    points = optim.l1_lattice(3, resolution)
    for bf in ("same", "FCFS"):
        many: dict[int, bytes] = {}

        def got(vectors, s):
            d = digest(s)
            for v in vectors:
                many[int(v)] = d

        t0 = time.perf_counter()
        stats = sim.simulate_mixed_many(jobs, m, points, scales, backfill=bf, threshold=mixed.THRESHOLD, on_schedule=got)
        t1 = time.perf_counter()
        bad, distinct = [], set()
        for v, w in enumerate(points):
            p = sim.Mixed(tuple(w.tolist()), tuple(scales))
            d = digest(sim.simulate(jobs, m, sim.Policy(p, p if bf == "same" else "FCFS", mixed.THRESHOLD)))
            distinct.add(d)
            if many.get(v) != d:
                bad.append(v)
        t2 = time.perf_counter()
        print(f"{trace} week {week} ({len(jobs)} jobs), {len(points)} vectors, P_B={bf}: "
              f"{len(points) - len(bad)} identical schedules, {len(bad)} different; {len(distinct)} distinct; "
              f"together {t1 - t0:.1f} s, alone {t2 - t1:.1f} s; {stats}", flush=True)
        if bad:
            sys.exit(f"schedules differ for vectors {bad[:10]}")


if __name__ == "__main__":
    {"dump": lambda: dump(sys.argv[2]), "compare": lambda: compare(sys.argv[2], sys.argv[3]),
     "multi": lambda: multi(*(sys.argv[2:3] or ["SDSC-BLUE"]), *[int(a) for a in sys.argv[3:5]])}[sys.argv[1]]()
