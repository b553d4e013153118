"""Batsim workloads (JSON) to SWF and back, faithfully.

A Batsim workload holds ``nb_res`` (the machine size), ``jobs`` (``id``,
``subtime``, ``walltime``, ``res``, ``profile``) and ``profiles``.  Here a
job's ``walltime`` is its requested time and a ``delay`` profile's ``delay``
its runtime, in both directions: a workload written by
:func:`write_workload` reads back to the same jobs (submit, runtime,
requested time and processors, ids, users), and an SWF log written from a
workload writes back to the same workload.  Nothing is dropped silently: a
job Batsim cannot express (it never ran) or SWF cannot (a profile without a
fixed duration) is skipped and counted in the report.  Batsim times may be
fractional: they are rounded to whole seconds and the report counts them.
A workload has no schedule: the SWF wait field is -1.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from ...errors import InputError
from . import I64, ConversionReport, Converted, Duplicates, NameMap, bounded, header
from ...files import atomic

__all__ = ["read_workload", "write_workload", "workload"]


def _seconds(v, where: str, name: str, report: ConversionReport, optional=False) -> int | None:
    if v is None and optional:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v)):
        raise InputError(f"{where}: field {name}: expected a finite number of seconds, got {str(v)[:40]!r}")
    if optional and v < 0:
        return None
    if v < 0:
        raise InputError(f"{where}: field {name}: negative ({v!r})")
    if v > I64:
        raise InputError(f"{where}: field {name}: out of range ({str(v)[:40]}, above {I64})")
    if v != int(v):
        report.status[f"{name} rounded to whole seconds"] += 1
    return bounded(int(math.floor(v + 0.5)), where, name)


_NUMBER = re.compile(r"[0-9]{1,18}")


def _job_number(job_id) -> int | None:
    text = str(job_id).rpartition("!")[2]
    return int(text) if _NUMBER.fullmatch(text) else None


def read_workload(path, *, salt=None, max_procs=None, duplicates="refuse") -> Converted:
    """A Batsim workload JSON to SWF (``nb_res`` becomes ``MaxProcs``)."""
    path = Path(path)
    report = ConversionReport(str(path), "batsim")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}:{getattr(exc, 'lineno', '?')}: not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise InputError(f"{path}: no 'jobs' list: is it a Batsim workload?")
    profiles = doc.get("profiles") or {}
    if not isinstance(profiles, dict):
        raise InputError(f"{path}: field profiles: expected an object")
    nb_res = doc.get("nb_res")
    if nb_res is not None and (isinstance(nb_res, bool) or not isinstance(nb_res, int) or nb_res < 1):
        raise InputError(f"{path}: field nb_res: expected a positive integer, got {nb_res!r}")
    if nb_res is not None:
        nb_res = bounded(nb_res, str(path), "nb_res", lo=1, what="a positive integer")
    users = NameMap(salt)
    rows = []
    seen = Duplicates(duplicates, report, "job")
    for k, job in enumerate(doc["jobs"]):
        where = f"{path}: jobs[{k}]"
        report.records += 1
        if not isinstance(job, dict):
            raise InputError(f"{where}: expected an object, got {type(job).__name__}")
        for name in ("id", "subtime", "res", "profile"):
            if name not in job:
                raise InputError(f"{where}: field {name}: missing")
        if isinstance(job["id"], bool) or not isinstance(job["id"], (str, int)):
            raise InputError(f"{where}: field id: expected a string or an integer, got {str(job['id'])[:40]!r}")
        if seen.seen(str(job["id"]), where, f"jobs[{k}]"):
            continue
        res = job["res"]
        if isinstance(res, bool) or not isinstance(res, int) or res < 1:
            raise InputError(f"{where}: field res: expected a positive integer, got {str(res)[:40]!r}")
        res = bounded(res, where, "res", lo=1, what="a positive integer")
        if not isinstance(job["profile"], str):
            raise InputError(f"{where}: field profile: expected a profile name (a string), "
                             f"got {str(job['profile'])[:40]!r}")
        prof = profiles.get(job["profile"])
        if prof is None:
            raise InputError(f"{where}: field profile: {job['profile']!r} is not in profiles")
        if not isinstance(prof, dict):
            raise InputError(f"{path}: profiles[{job['profile']!r}]: expected an object, got {type(prof).__name__}")
        if prof.get("type") != "delay":
            report.skip(f"profile type {prof.get('type')!r}: no fixed duration")
            continue
        run = _seconds(prof.get("delay"), f"{path}: profiles[{job['profile']!r}]", "delay", report)
        submit = _seconds(job["subtime"], where, "subtime", report)
        walltime = _seconds(job.get("walltime"), where, "walltime", report, optional=True)
        user = job.get("user", job.get("user_id"))
        if user is not None and (isinstance(user, bool) or not isinstance(user, (str, int))):
            raise InputError(f"{where}: field user: expected a name or a number, got {str(user)[:40]!r}")
        users.add(str(user) if user is not None else "")
        rows.append((job["id"], submit, run, res, walltime, str(user) if user is not None else ""))
    seen.note()
    report.jobs = len(rows)
    numbers = [_job_number(r[0]) for r in rows]
    if all(n is not None for n in numbers) and len(set(numbers)) == len(numbers):
        ids = np.array(numbers, dtype=np.int64)
    else:
        ids = np.arange(1, len(rows) + 1, dtype=np.int64)
        report.notes.append("Batsim job ids are not unique numbers: jobs numbered 1..n in file order")
    col = lambda i: np.array([r[i] for r in rows], dtype=np.int64)  # noqa: E731
    raw_users = [r[5] for r in rows]
    if salt is None and all(_NUMBER.fullmatch(u) for u in raw_users):
        user_ids = np.array([int(u) for u in raw_users], dtype=np.int64)       # numbers already: kept
    else:
        user_ids = users(raw_users)
    fields = {"job_id": ids, "submit": col(1), "wait": np.full(len(rows), -1, np.int64), "run": col(2),
              "alloc_procs": col(3), "req_procs": col(3),
              "req_time": np.array([r[4] if r[4] is not None else -1 for r in rows], dtype=np.int64),
              "status": np.ones(len(rows), np.int64), "user": user_ids}
    order = np.lexsort((fields["job_id"], fields["submit"]))
    fields = {k: v[order] for k, v in fields.items()}
    report.notes.append("walltime -> requested time, delay -> runtime, res -> requested and allocated "
                        "processors; a workload has no schedule: wait -1")
    lines = header(report, installation="a Batsim workload", unix_start=None, tz="UTC",
                   max_procs=max_procs or nb_res, fields=fields)
    return Converted(fields, lines, report)


def workload(trace, m: int | None = None, report: ConversionReport | None = None) -> dict:
    """A Batsim workload (a dict) from an SWF trace: every job that ran,
    ``walltime`` = its requested time (-1 when missing), a ``delay``
    profile = its runtime, ``res`` = its requested processors (allocated
    when missing); ``nb_res`` = ``m`` or the header's ``MaxProcs``."""
    f = trace.fields
    report = report or ConversionReport(str(trace.path), "swf -> batsim")
    nb_res = m or trace.max_procs
    if nb_res is None:
        raise InputError(f"{trace.path}: no MaxProcs in the header: give the machine size m")
    q = np.where(f["req_procs"] > 0, f["req_procs"], f["alloc_procs"])
    report.records = trace.n
    jobs, profiles = [], {}
    for i in range(trace.n):
        run, res = int(f["run"][i]), int(q[i])
        if run < 0:
            report.skip("never ran (runtime -1): no delay to give")
            continue
        if res < 1:
            report.skip("no requested or allocated processors")
            continue
        name = f"delay{run}"
        profiles.setdefault(name, {"type": "delay", "delay": run})
        job = {"id": str(int(f["job_id"][i])), "subtime": int(f["submit"][i]),
               "walltime": int(f["req_time"][i]) if f["req_time"][i] >= 0 else -1, "res": res, "profile": name}
        if f["user"][i] >= 0:
            job["user"] = int(f["user"][i])
        jobs.append(job)
    report.jobs = len(jobs)
    return {"nb_res": int(nb_res), "jobs": jobs, "profiles": dict(sorted(profiles.items())),
            "description": f"from {Path(trace.path).name} by schedlab: walltime = requested time, "
                           "delay = runtime"}


def write_workload(trace, out, m: int | None = None) -> ConversionReport:
    """Write :func:`workload` of an SWF trace (or path) as JSON, atomically."""
    from ..swf import read_swf

    if not hasattr(trace, "fields"):
        trace = read_swf(trace)
    report = ConversionReport(str(trace.path), "swf -> batsim")
    doc = workload(trace, m, report)
    out = Path(out)
    with atomic(out) as tmp, open(tmp, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    return report
