"""Workloads: from SWF records to simulator jobs, with cleaning.

Cleaning follows DESIGN §2 (lelong2017 §7.2, online-bandit §6.1.1); every
filter reports how many jobs it changed or removed and why.  Resampling,
splits and week slicing arrive with the workloads issue.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import InputError
from .sim import Jobs

OVERRUN_CHOICES = ("kill", "drop")


@dataclass
class CleanReport:
    """What cleaning did: (step, jobs affected, action, reason) rows."""

    source: str
    jobs_in: int
    jobs_out: int = 0
    steps: list[tuple[str, int, str, str]] = field(default_factory=list)

    def add(self, step: str, count: int, action: str, reason: str) -> None:
        self.steps.append((step, int(count), action, reason))

    def __str__(self) -> str:
        lines = [f"cleaning {self.source}: {self.jobs_in} jobs in, {self.jobs_out} out"]
        lines += [f"  {step:<14} {count:>8} {action:<9} {reason}" for step, count, action, reason in self.steps]
        return "\n".join(lines)


def clean(trace, m: int | None = None, overrun: str = "kill") -> tuple[Jobs, CleanReport]:
    """Jobs from an SWF trace (``schedlab.swf.SWFTrace``), cleaned.

    * q = requested processors, or allocated when the request is missing
      (<= 0); jobs with neither are removed (online-bandit §6.1.1 (2));
    * jobs whose requested *or* allocated processors exceed m are removed
      (lelong2017 §7.2, online-bandit §6.1.1 (1));
    * negative runtime or submit time: removed (online-bandit §6.1.1 (3));
    * missing requested time (p~ < 0): removed (no estimate to schedule by);
    * p > p~: ``overrun="kill"`` (default) keeps them, and the simulator
      kills them at p~; ``overrun="drop"`` removes them (lelong2017 §7.2);
    * p = 0 jobs are kept.
    """
    if overrun not in OVERRUN_CHOICES:
        raise InputError(f"overrun must be one of {OVERRUN_CHOICES}, got {overrun!r}")
    f = trace.fields
    if m is None:
        m = trace.max_procs
    if m is None or m < 1:
        raise InputError(f"{trace.path}: no MaxProcs/MaxNodes in the header; give the machine size m")
    n = trace.n
    rep = CleanReport(str(trace.path), n)
    req_p, alloc_p = f["req_procs"], f["alloc_procs"]
    q = np.where(req_p > 0, req_p, alloc_p)
    replaced = (req_p <= 0) & (alloc_p > 0)
    keep = np.ones(n, bool)

    def drop(step, bad, reason):
        bad = bad & keep
        rep.add(step, bad.sum(), "removed", reason)
        keep[bad] = False

    rep.add("procs", replaced.sum(), "replaced", "requested processors missing: allocated used")
    drop("procs", q <= 0, "neither requested nor allocated processors")
    drop("too-large", (req_p > m) | (alloc_p > m), f"requested or allocated processors > m={m}")
    drop("runtime", f["run"] < 0, "negative runtime")
    drop("submit", f["submit"] < 0, "negative submit time")
    drop("request", f["req_time"] < 0, "missing requested time")
    over = (f["run"] > f["req_time"]) & (f["req_time"] >= 0)
    if overrun == "drop":
        drop("overrun", over, "runtime > requested time (lelong2017 §7.2)")
    else:
        rep.add("overrun", (over & keep).sum(), "kept", "runtime > requested time: killed at p~ by the simulator")
    rep.jobs_out = int(keep.sum())
    jobs = Jobs(f["submit"][keep], f["run"][keep], f["req_time"][keep], q[keep],
                f["job_id"][keep], f["user"][keep], str(trace.path), trace.lines[keep])
    return jobs.sorted(), rep
