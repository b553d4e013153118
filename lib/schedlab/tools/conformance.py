"""The EASY conformance suite (``conformance/``): small SWF workloads with the
expected start of every job, for this engine and any other simulator.

Each case is one SWF file of ``conformance/cases/``.  Its header says what it
needs and what it tests::

    ; MaxProcs: 4                       the machine size m
    ; Conformance: 02-backfill-...      the case's name
    ; Tests: a backfilled job whose ... one line: what it tests
    ; Policy: EASY-FCFS-FCFS            EASY-<P_R>-<P_B>
    ; Threshold: none                   or seconds
    ; Estimate: requested               requested (p~) or actual (clairvoyant)
    ; Overrun: kill                     a job with p > p~ is killed at p~

and its job lines hold the simulator's inputs in the usual fields (submit 2,
runtime 4, processors 8, requested time 9) and the **expected wait** in
field 3: expected start = submit + wait.  The expectations are derived by
hand from ``csrc/SEMANTICS.md`` and lelong2017 Algorithm 1; each file shows
its derivation in its header.

:func:`cases` loads them; :func:`simulate_case` runs this engine on one;
:func:`compare` checks any schedule (a file another simulator wrote: SWF
with waits or Batsim's jobs.csv, or a simulated schedule) against a case's
expected starts, job by job (``schedlab check OUT --case CASE`` does this
and the EASY checks of :mod:`schedlab.workloads.check`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import paths
from ..errors import InputError
from ..jobs import Jobs, Policy

__all__ = ["CASES", "Case", "cases", "load", "simulate_case", "compare"]

#: The folder of the bundled cases.
CASES = paths.ROOT / "conformance" / "cases"


@dataclass(frozen=True, eq=False)
class Case:
    name: str
    path: Path
    m: int
    policy: Policy
    estimate: str
    overrun: str
    tests: str
    jobs: Jobs
    expected_start: np.ndarray

    def __repr__(self):
        return f"Case({self.name!r}, m={self.m}, {self.policy}, estimate={self.estimate}, n={len(self.jobs)})"


def load(path) -> Case:
    """Read one case file (errors name the file and the header key)."""
    from ..workloads.swf import read_swf

    path = Path(path)
    tr = read_swf(path)
    h = tr.header

    def need(key):
        if key not in h or not h[key].strip():
            raise InputError(f"{path}: header key {key!r} missing (a conformance case needs MaxProcs, Policy, "
                             "Threshold, Estimate, Overrun and Tests)")
        return h[key].strip()

    m = tr.max_procs
    if m is None:
        need("MaxProcs")
    thr = need("Threshold")
    try:
        policy = Policy.parse(need("Policy"), None if thr == "none" else thr)
    except InputError as exc:
        raise InputError(f"{path}: header key 'Policy'/'Threshold': {exc}") from None
    estimate, overrun = need("Estimate"), need("Overrun")
    if estimate not in ("requested", "actual"):
        raise InputError(f"{path}: header key 'Estimate': {estimate!r} (expected requested or actual)")
    if overrun not in ("kill", "run"):
        raise InputError(f"{path}: header key 'Overrun': {overrun!r} (expected kill or run)")
    f = tr.fields
    jobs = Jobs(f["submit"], f["run"], f["req_time"], f["req_procs"], f["job_id"], source=str(path),
                lines=tr.lines)
    if (f["wait"] < 0).any():
        i = int(np.flatnonzero(f["wait"] < 0)[0])
        raise InputError(f"{path}:{int(tr.lines[i])}: field wait: the expected wait is missing")
    return Case(h.get("Conformance", path.stem).strip(), path, int(m), policy, estimate, overrun, need("Tests"),
                jobs, (f["submit"] + f["wait"]).astype(np.int64))


def cases(folder=None) -> list[Case]:
    """Every case of ``folder`` (default: the bundled ``conformance/cases``), by name."""
    folder = Path(folder) if folder is not None else CASES
    return [load(p) for p in sorted(folder.glob("*.swf"))]


def simulate_case(case: Case):
    """This engine's schedule of a case."""
    from ..engine.sim import simulate
    return simulate(case.jobs, case.m, case.policy, estimate=case.estimate, overrun=case.overrun)


def compare(schedule, case: Case) -> list[str]:
    """The jobs whose start differs from the case's expectation (one line
    each; empty when the schedule conforms).  ``schedule`` is a path (SWF
    with waits or Batsim's jobs.csv), a :class:`~schedlab.workloads.formats.ScheduleFile`
    or a simulated schedule; jobs are matched by id."""
    from ..workloads.check import _as_file

    sf = _as_file(schedule)
    got = {}
    for k, jid in enumerate(sf.ids):
        if not sf.killed_run[k]:
            got[jid] = float(sf.start[k])
    out = []
    for i in range(len(case.jobs)):
        jid = str(int(case.jobs.id[i]))
        exp = int(case.expected_start[i])
        if jid not in got:
            out.append(f"{case.name}: job {jid}: missing from {sf.source} (expected start {exp})")
        elif got[jid] != exp:
            out.append(f"{case.name}: job {jid}: starts at {got[jid]:g}, expected {exp}")
    extra = set(got) - {str(int(x)) for x in case.jobs.id}
    for jid in sorted(extra):
        out.append(f"{case.name}: job {jid}: not in the case")
    return out
