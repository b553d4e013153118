"""Generated SWF logs with the properties that break analyses written for the
papers' logs (issue "your own trace"): every trace-based study must run to
its end on each of them, alone or combined.  ``make_log(path, kind)`` writes
one; ``kind`` is one property of :data:`KINDS` or several joined by ``+``
(``"few-weeks+no-waits+bursts"``).  :func:`logs` is the Hypothesis strategy
of such combinations."""
from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

from schedlab.studies.registry import STUDIES
from schedlab.workloads.swf import write_swf

WEEK = 7 * 86400
M = 32

#: kind -> what it does to the base log (4 weeks, 5 users, m = 32)
KINDS = {
    "base": "the base log: 4 weeks, 5 users, every field present",
    "no-requests": "no requested times at all (field 9 is -1 everywhere)",
    "two-thirds-no-request": "two thirds of the jobs lack a requested time",
    "skewed-weeks": "weeks whose mean wait lies outside their deciles (one huge recorded wait per week, "
                    "and a machine-wide job of 3 days in the first week)",
    "no-waits": "the log records no waits (field 3 is -1)",
    "grid": "no MaxProcs, no requested processors and no requested times",
    "few-weeks": "a little over one week",
    "single-user": "a single user",
    "zero-waits": "every recorded wait is 0",
    "wide-job": "one job larger than half the machine in every week",
    "bursts": "bursts of identical submit times",
}
#: properties that cannot hold together (the later one wins)
EXCLUSIVE = [("no-waits", "zero-waits", "skewed-weeks")]


#: Per trace-based study (the registry's studies whose data is "traces"): its
#: tiny run's values (its TINY parameters, declared beside its Params; the
#: traces are set by --trace).  A new study that reads traces is in it.
TINY = {e.name: importlib.import_module(e.module).TINY for e in STUDIES if "traces" in e.data}


def properties(kind: str) -> list[str]:
    props = [k for k in kind.split("+") if k]
    for k in props:
        if k not in KINDS:
            raise ValueError(f"unknown kind {k!r} (known: {', '.join(KINDS)})")
    return props


def fields(kind: str = "base", n: int = 360, weeks: int = 4, seed: int = 5) -> tuple[dict, list[str]]:
    """The SWF fields and header of a log with the properties of ``kind``."""
    props = set(properties(kind))
    rng = np.random.default_rng(seed)
    if "few-weeks" in props:
        weeks, n = 1, min(n, 120)
    span = weeks * WEEK + (WEEK // 7 if "few-weeks" in props else 0)
    submit = np.sort(rng.integers(0, span, n))
    submit[0] = 0
    if "bursts" in props:       # groups of 6 jobs at one instant, spread over the whole span
        starts = np.sort(rng.integers(0, span, -(-n // 6)))
        starts[0] = 0
        submit = np.repeat(starts, 6)[:n]
    run = np.exp(rng.uniform(np.log(30), np.log(40000), n)).astype(np.int64)
    req = (run * rng.choice([1, 1, 2, 3, 10], n)).astype(np.int64)
    procs = rng.choice([1, 1, 2, 4, 8, 16], n).astype(np.int64)
    user = rng.integers(1, 6, n)
    wait = rng.integers(0, 20000, n)
    by_week = [np.flatnonzero((submit >= w * WEEK) & (submit < (w + 1) * WEEK)) for w in range(weeks)]
    if "skewed-weeks" in props:
        wait = rng.integers(0, 50, n)
        for idx in by_week:
            if idx.size:
                wait[idx[0]] = 10_000_000
        first = by_week[0]
        if first.size > 1:      # the whole machine for 3 days: the first week's simulated waits explode
            procs[first[1]], run[first[1]], req[first[1]] = M, 3 * 86400, 3 * 86400
    if "wide-job" in props:
        for idx in by_week:
            if idx.size:
                procs[idx[idx.size // 2]] = M // 2 + 5
    if props & {"no-requests", "grid"}:
        req[:] = -1
    if "two-thirds-no-request" in props:
        req[rng.random(n) < 2 / 3] = -1
    if "no-waits" in props:
        wait[:] = -1
    if "zero-waits" in props:
        wait[:] = 0
    if "single-user" in props:
        user[:] = 1
    req_procs = procs.copy()
    if "grid" in props:
        req_procs[:] = -1
    out = {"job_id": np.arange(1, n + 1), "submit": submit, "wait": wait, "run": run, "alloc_procs": procs,
           "req_procs": req_procs, "req_time": req, "status": np.ones(n, np.int64), "user": user,
           "group": user, "partition": np.ones(n, np.int64)}
    header = ["Version: 2.2", f"Computer: generated ({'; '.join(KINDS[k] for k in sorted(props))})",
              "UnixStartTime: 0", "TimeZoneString: UTC"]
    if "grid" not in props:
        header.append(f"MaxProcs: {M}")
    return out, header


def make_log(path, kind: str = "base", **kw) -> Path:
    f, header = fields(kind, **kw)
    return write_swf(path, f, header_lines=header)


def logs():
    """Hypothesis strategy: a combination of properties (as a ``kind``
    string) and a seed."""
    from hypothesis import strategies as st

    names = [k for k in KINDS if k != "base"]

    def joined(chosen):
        keep = set(chosen)
        for group in EXCLUSIVE:
            present = [k for k in group if k in keep]
            keep -= set(present[:-1])
        return "+".join(k for k in names if k in keep) or "base"

    return st.tuples(st.lists(st.sampled_from(names), max_size=5, unique=True).map(joined),
                     st.integers(0, 2 ** 16))
