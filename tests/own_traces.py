"""Generated SWF logs with the properties that break analyses written for the
papers' logs (issue "your own trace"): every trace-based study must run to
its end on each of them.  ``make_log(path, kind)`` writes one."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from schedlab.swf import write_swf

WEEK = 7 * 86400
M = 32

#: kind -> what it does to the base log (4 weeks, 5 users, m = 32)
KINDS = {
    "base": "the base log: 4 weeks, 5 users, every field present",
    "no-requests": "no requested times at all (field 9 is -1 everywhere)",
    "two-thirds-no-request": "two thirds of the jobs lack a requested time",
    "skewed-weeks": "weeks whose mean wait lies outside their deciles (one huge outlier per week)",
    "no-waits": "the log records no waits (field 3 is -1)",
    "grid": "no MaxProcs, no requested processors and no requested times",
    "few-weeks": "a little over one week",
    "single-user": "a single user",
    "zero-waits": "every recorded wait is 0",
    "wide-job": "one job larger than half the machine in every week",
    "bursts": "bursts of identical submit times",
}


def fields(kind: str = "base", n: int = 360, weeks: int = 4, seed: int = 5) -> tuple[dict, list[str]]:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    rng = np.random.default_rng(seed)
    if kind == "few-weeks":
        weeks, n = 1, 120
    span = weeks * WEEK + (WEEK // 7 if kind == "few-weeks" else 0)
    submit = np.sort(rng.integers(0, span, n))
    submit[0] = 0
    if kind == "bursts":
        submit = np.sort(np.repeat(submit[: n // 6], 6)[:n])
    run = np.exp(rng.uniform(np.log(30), np.log(40000), n)).astype(np.int64)
    req = (run * rng.choice([1, 1, 2, 3, 10], n)).astype(np.int64)
    procs = rng.choice([1, 1, 2, 4, 8, 16], n).astype(np.int64)
    user = rng.integers(1, 6, n)
    wait = rng.integers(0, 20000, n)
    if kind == "skewed-weeks":
        wait = rng.integers(0, 50, n)
        for w in range(weeks):
            idx = np.flatnonzero((submit >= w * WEEK) & (submit < (w + 1) * WEEK))
            if idx.size:
                wait[idx[0]] = 10_000_000
    if kind == "wide-job":
        for w in range(weeks):
            idx = np.flatnonzero((submit >= w * WEEK) & (submit < (w + 1) * WEEK))
            if idx.size:
                procs[idx[idx.size // 2]] = M // 2 + 5
    if kind == "no-requests" or kind == "grid":
        req[:] = -1
    if kind == "two-thirds-no-request":
        req[rng.random(n) < 2 / 3] = -1
    if kind == "no-waits":
        wait[:] = -1
    if kind == "zero-waits":
        wait[:] = 0
    if kind == "single-user":
        user[:] = 1
    req_procs = procs.copy()
    if kind == "grid":
        req_procs[:] = -1
    out = {"job_id": np.arange(1, n + 1), "submit": submit, "wait": wait, "run": run, "alloc_procs": procs,
           "req_procs": req_procs, "req_time": req, "status": np.ones(n, np.int64), "user": user,
           "group": user, "partition": np.ones(n, np.int64)}
    header = ["Version: 2.2", f"Computer: generated ({KINDS[kind]})", "UnixStartTime: 0",
              "TimeZoneString: UTC"]
    if kind != "grid":
        header.append(f"MaxProcs: {M}")
    return out, header


def make_log(path, kind: str = "base", **kw) -> Path:
    f, header = fields(kind, **kw)
    return write_swf(path, f, header_lines=header)
