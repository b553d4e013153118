"""Slurm accounting (``sacct``) to SWF.

Each *allocation* becomes one SWF job: steps (``1.batch``, ``1.extern``,
``5.0``) are skipped, array tasks (``6_1`` ... ``6_4``) are jobs of their own.
SWF fields from Slurm's:

=================  ==========================================================
job number (1)     JobIDRaw (else JobID) when every one is a unique integer,
                   else 1..n in file order (stated in the report)
submit (2)         Submit, seconds after the earliest submission (the
                   header's ``UnixStartTime``)
wait (3)           Start - Submit; -1 when the job never started
run (4)            ElapsedRaw (else End - Start); -1 when it never started
alloc procs (5)    AllocCPUS (else NCPUS); -1 when it never started
req procs (8)      ReqCPUS
req time (9)       Timelimit in every Slurm form (``MM``, ``MM:SS``,
                   ``HH:MM:SS``, ``D-HH``, ``D-HH:MM``, ``D-HH:MM:SS``),
                   else TimelimitRaw (minutes); ``UNLIMITED`` and
                   ``Partition_Limit``: -1 (missing: cleaning's ``request``
                   choice decides)
status (11)        COMPLETED 1; FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY,
                   BOOT_FAIL, DEADLINE, PREEMPTED 0; CANCELLED 5 (before or
                   after starting: the wait and run tell which); PENDING,
                   RUNNING, REQUEUED, SUSPENDED...: skipped (not finished)
user, group (12,   names to integers (see :class:`~schedlab.workloads.importers.NameMap`)
13), queue (15),   queue = QOS, partition = Partition
partition (16)
=================  ==========================================================

``sacct`` prints times in the cluster's local time without a zone: give it
(``tz``, an IANA name; UTC by default, stated in the header).
"""
from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from ...errors import InputError
from . import I64, LAST_TIME, ConversionReport, Converted, Duplicates, NameMap, bounded, header

__all__ = ["read_sacct", "read_sacct_json", "parse_timelimit", "STATUS"]

#: Slurm job state -> SWF status; None: not finished (skipped).
STATUS = {"COMPLETED": 1, "FAILED": 0, "TIMEOUT": 0, "NODE_FAIL": 0, "OUT_OF_MEMORY": 0, "BOOT_FAIL": 0,
          "DEADLINE": 0, "PREEMPTED": 0, "CANCELLED": 5,
          "PENDING": None, "RUNNING": None, "REQUEUED": None, "REQUEUE_FED": None, "REQUEUE_HOLD": None,
          "SUSPENDED": None, "RESIZING": None, "REVOKED": None, "SIGNALING": None, "STAGE_OUT": None,
          "STOPPED": None, "COMPLETING": None, "CONFIGURING": None, "SPECIAL_EXIT": 0}

#: What a ``--parsable2`` export must hold (one name of each group).
REQUIRED = (("JobIDRaw", "JobID"), ("Submit",), ("Start",), ("End", "ElapsedRaw", "Elapsed"), ("State",),
            ("Timelimit", "TimelimitRaw"), ("AllocCPUS", "NCPUS"))
SACCT_FORMAT = ("JobID,JobIDRaw,User,Group,Partition,QOS,State,Submit,Start,End,ElapsedRaw,"
                "Timelimit,ReqCPUS,AllocCPUS")

_TIMELIMIT = re.compile(r"^(?:(?P<d>\d+)-(?P<dh>\d+)(?::(?P<dm>\d+)(?::(?P<ds>\d+))?)?"
                        r"|(?P<a>\d+)(?::(?P<b>\d+)(?::(?P<c>\d+))?)?)$")
_NO_LIMIT = ("UNLIMITED", "PARTITION_LIMIT", "INFINITE", "")


def parse_timelimit(text: str) -> int | None:
    """Seconds of a Slurm time limit (``MM``, ``MM:SS``, ``HH:MM:SS``,
    ``D-HH``, ``D-HH:MM``, ``D-HH:MM:SS``); None for ``UNLIMITED`` and
    ``Partition_Limit``; :class:`InputError` for anything else."""
    t = text.strip()
    if t.upper() in _NO_LIMIT:
        return None
    m = _TIMELIMIT.match(t)
    if not m:
        raise InputError(f"not a Slurm time limit: {t!r} (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, "
                         "UNLIMITED or Partition_Limit)")
    g = {k: int(v) for k, v in m.groupdict().items() if v is not None}
    if "d" in g:
        return ((g["d"] * 24 + g["dh"]) * 60 + g.get("dm", 0)) * 60 + g.get("ds", 0)
    if "c" in g:
        return (g["a"] * 60 + g["b"]) * 60 + g["c"]
    if "b" in g:
        return g["a"] * 60 + g["b"]
    return g["a"] * 60


def _zone(tz: str):
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise InputError(f"unknown time zone {tz!r}: give an IANA name such as UTC or Europe/Paris") from None


def _state(text: str) -> str:
    return text.strip().split()[0].upper() if text.strip() else ""


class _Rows:
    """Jobs being collected, one list per SWF field."""

    def __init__(self, salt):
        self.cols = {k: [] for k in ("raw_id", "submit", "start", "end", "run", "alloc", "req_procs",
                                     "req_time", "status", "user", "group", "queue", "partition")}
        self.users, self.groups, self.queues, self.partitions = (NameMap(salt) for _ in range(4))

    def add(self, **values):
        for k, v in values.items():
            self.cols[k].append(v)
        self.users.add(values["user"])
        self.groups.add(values["group"])
        self.queues.add(values["queue"])
        self.partitions.add(values["partition"])

    def converted(self, report: ConversionReport, *, installation, max_procs, tz_name) -> Converted:
        c = self.cols
        n = len(c["submit"])
        report.jobs = n
        submit = np.array(c["submit"], dtype=np.int64)
        origin = int(submit.min()) if n else None
        start = np.array([s if s is not None else -1 for s in c["start"]], dtype=np.int64)
        started = np.array([s is not None for s in c["start"]], dtype=bool)
        run = np.array([r if r is not None else -1 for r in c["run"]], dtype=np.int64)
        raw = c["raw_id"]
        if all(isinstance(i, int) and i <= I64 for i in raw) and len(set(raw)) == n:
            ids = np.array(raw, dtype=np.int64)
        else:
            ids = np.arange(1, n + 1, dtype=np.int64)
            report.notes.append("Slurm job ids are not unique integers: jobs numbered 1..n in file order")
        fields = {
            "job_id": ids,
            "submit": submit - (origin or 0),
            "wait": np.where(started, start - submit, -1),
            "run": np.where(started, run, -1),
            "alloc_procs": np.where(started, np.array(c["alloc"], dtype=np.int64), -1),
            "req_procs": np.array(c["req_procs"], dtype=np.int64),
            "req_time": np.array([t if t is not None else -1 for t in c["req_time"]], dtype=np.int64),
            "status": np.array(c["status"], dtype=np.int64),
            "user": self.users(c["user"]), "group": self.groups(c["group"]),
            "queue": self.queues(c["queue"]), "partition": self.partitions(c["partition"]),
        }
        order = np.lexsort((fields["job_id"], fields["submit"]))     # by submission, then job id
        fields = {k: v[order] for k, v in fields.items()}
        salted = "salted hash ranks" if self.users.salt is not None else "order of first appearance"
        report.notes.append(f"users, groups, QOS (queue) and partitions numbered by {salted}")
        unlimited = int((fields["req_time"] < 0).sum())
        if unlimited:
            report.notes.append(f"{unlimited} jobs with no time limit (UNLIMITED or Partition_Limit): "
                                "requested time -1 (cleaning's request choice decides)")
        parts = self.partitions.ids()
        notes = [f"partition {k} = {name}" for name, k in sorted(parts.items(), key=lambda kv: kv[1])] \
            if self.partitions.salt is None else []
        lines = header(report, installation=installation or "a Slurm cluster", unix_start=origin, tz=tz_name,
                       max_procs=max_procs, fields=fields, notes=notes)
        return Converted(fields, lines, report)


def _first(row: dict, names) -> str | None:
    for name in names:
        if name in row:
            return row[name]
    return None


def _time(text: str | None, zone, where: str, name: str) -> int | None:
    if text is None:
        return None
    t = text.strip()
    if t in ("", "None", "Unknown", "N/A"):
        return None
    try:
        dt = datetime.fromisoformat(t)
    except ValueError:
        raise InputError(f"{where}: field {name}: not a time: {t[:40]!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=zone)
    try:
        seconds = int(dt.timestamp())
    except (OverflowError, ValueError):
        raise InputError(f"{where}: field {name}: out of range: {t[:40]!r}") from None
    return bounded(seconds, where, name, hi=LAST_TIME, what="a time")


_DIGITS = re.compile(r"[+-]?[0-9]+")


def _int(text: str | None, where: str, name: str) -> int | None:
    if text is None or text.strip() in ("", "None", "Unknown"):
        return None
    t = text.strip()
    if not _DIGITS.fullmatch(t) or len(t) > 25:
        raise InputError(f"{where}: field {name}: not an integer: {t[:40]!r}")
    return bounded(int(t), where, name)


def _elapsed(text: str) -> int:
    """Seconds of sacct's ``Elapsed`` ([D-]HH:MM:SS)."""
    return parse_timelimit(text) or 0


def _times(submit, start, end, run, where, names, report: ConversionReport, differ: list) -> None:
    """Negative or inconsistent times: an error when they cannot be a job's
    (a start before submission, an end before the start), a count in the
    report when the runtime differs from End - Start (a suspended job)."""
    if start is not None and start < submit:
        raise InputError(f"{where}: field {names['start']}: before {names['submit']}")
    if start is not None and end is not None and end < start:
        raise InputError(f"{where}: field {names['end']}: before {names['start']}")
    if start is not None and end is not None and run is not None and run != end - start:
        differ.append(where)


def _differ_note(report: ConversionReport, differ: list, run: str, end: str, start: str) -> None:
    if differ:
        report.notes.append(f"{len(differ)} jobs whose {run} differs from {end} - {start} (suspended?): "
                            f"{run} kept (first at {differ[0].rpartition(str(report.source))[2].lstrip(': ')})")


def read_sacct(path, *, max_procs=None, salt=None, tz="UTC", installation=None, duplicates="refuse") -> Converted:
    """``sacct --parsable2`` output (``-X`` or with steps) to SWF."""
    path = Path(path)
    zone = _zone(tz)
    report = ConversionReport(str(path), "sacct")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}): is it sacct --parsable2 output?") from None
    lines = text.splitlines()
    if not lines or "|" not in lines[0]:
        raise InputError(f"{path}:1: no sacct --parsable2 header line (e.g. JobID|JobIDRaw|...|State|...)")
    names = lines[0].split("|")
    missing = [" or ".join(group) for group in REQUIRED if not any(n in names for n in group)]
    if missing:
        raise InputError(f"{path}:1: this sacct export lacks {', '.join(missing)}; export with "
                         f"sacct -a -X --parsable2 --format={SACCT_FORMAT} -S <start> -E <end>")
    rows = _Rows(salt)
    seen = Duplicates(duplicates, report, "job")
    differ: list = []
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        values = line.split("|")
        if len(values) != len(names):
            raise InputError(f"{path}:{lineno}: {len(values)} fields, the header has {len(names)} "
                             "(a '|' inside a field such as JobName? export without it)")
        row = dict(zip(names, values))
        report.records += 1
        where = f"{path}:{lineno}"
        job = _first(row, ("JobID", "JobIDRaw")) or ""
        if seen.seen((row.get("JobIDRaw") or job).strip() or None, where, f"line {lineno}"):
            continue
        if "." in job or "." in (row.get("JobIDRaw") or ""):
            report.skip("step (.batch, .extern, .N): allocations only")
            continue
        if "[" in job:
            report.skip("array tasks not started yet (pending, unexpanded)")
            continue
        state = _state(row["State"])
        if state not in STATUS:
            raise InputError(f"{where}: field State: unknown Slurm state {row['State'][:40]!r}")
        if STATUS[state] is None:
            report.skip(f"not finished when exported ({state})")
            continue
        submit = _time(row["Submit"], zone, where, "Submit")
        if submit is None:
            raise InputError(f"{where}: field Submit: missing")
        start = _time(row["Start"], zone, where, "Start")
        end = _time(row.get("End"), zone, where, "End")
        run = _int(row.get("ElapsedRaw"), where, "ElapsedRaw")
        if run is None and row.get("Elapsed"):
            try:
                run = _elapsed(row["Elapsed"])
            except InputError as exc:
                raise InputError(f"{where}: field Elapsed: {exc}") from None
            run = bounded(run, where, "Elapsed")
        if run is None and start is not None and end is not None:
            run = end - start
        if start is not None and run is None:
            raise InputError(f"{where}: the job started but neither End nor Elapsed gives its runtime")
        _times(submit, start, end, run, where, {"submit": "Submit", "start": "Start", "end": "End"}, report, differ)
        limit_text = row.get("Timelimit")
        try:
            if limit_text is not None:
                req_time = parse_timelimit(limit_text)
            else:
                raw = row["TimelimitRaw"].strip()
                if raw.upper() in _NO_LIMIT:
                    req_time = None
                elif not re.fullmatch(r"[0-9]{1,25}", raw):
                    raise ValueError(f"not a number of minutes: {raw[:40]!r}")
                else:
                    req_time = int(raw) * 60
        except (InputError, ValueError) as exc:
            raise InputError(f"{where}: field Timelimit: {exc}") from None
        if req_time is not None:
            req_time = bounded(req_time, where, "Timelimit")
        alloc = _int(_first(row, ("AllocCPUS", "NCPUS")), where, "AllocCPUS")
        req = _int(row.get("ReqCPUS"), where, "ReqCPUS")
        raw_id = (row.get("JobIDRaw") or job).strip()
        report.status[state if state != "CANCELLED" else
                      ("CANCELLED after starting" if start is not None else "CANCELLED before starting")] += 1
        rows.add(raw_id=int(raw_id) if re.fullmatch(r"[0-9]{1,19}", raw_id) else raw_id, submit=submit, start=start, end=end,
                 run=run, alloc=alloc if alloc is not None else -1, req_procs=req if req is not None else -1,
                 req_time=req_time, status=STATUS[state], user=row.get("User", ""), group=row.get("Group", ""),
                 queue=row.get("QOS", ""), partition=row.get("Partition", ""))
    seen.note()
    _differ_note(report, differ, "ElapsedRaw" if "ElapsedRaw" in names else "Elapsed", "End", "Start")
    if "ReqCPUS" not in names:
        report.notes.append("no ReqCPUS column: requested processors -1 (allocated used)")
    report.notes.append(f"times read in time zone {tz}")
    return rows.converted(report, installation=installation, max_procs=max_procs, tz_name=tz)


# ------------------------------------------------------------ sacct --json --

def _number(v, where: str, name: str, *, hi: int = I64):
    """An int from Slurm's JSON: a plain number, or v0.0.39+'s
    {"set": .., "infinite": .., "number": ..}; None when unset, null or
    infinite; :class:`InputError` (naming the field) for anything else or
    out of ``[0, hi]``."""
    if isinstance(v, dict):
        if not v.get("set", True) or v.get("infinite", False):
            return None
        v = v.get("number")
    if v is None:
        return None
    return bounded(v, where, name, hi=hi)


def _object(v, where: str, name: str) -> dict:
    """A JSON object field (``{}`` when null or absent)."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise InputError(f"{where}: field {name}: expected an object, got {type(v).__name__}")
    return v


def _tres_cpus(tres, where: str, name: str) -> int | None:
    if tres is None:
        return None
    if not isinstance(tres, list):
        raise InputError(f"{where}: field {name}: expected a list, got {type(tres).__name__}")
    for k, item in enumerate(tres):
        if not isinstance(item, dict):
            raise InputError(f"{where}: field {name}[{k}]: expected an object, got {type(item).__name__}")
        if item.get("type") == "cpu":
            return _number(item.get("count"), where, f"{name}[{k}].count")
    return None


def _text(v, where: str, name: str) -> str:
    if v is None:
        return ""
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise InputError(f"{where}: field {name}: expected a name, got {type(v).__name__}")
    return str(v)


def read_sacct_json(path, *, max_procs=None, salt=None, tz="UTC", installation=None,
                    duplicates="refuse") -> Converted:
    """``sacct --json`` output to SWF (one job per allocation; its steps are
    inside it)."""
    path = Path(path)
    _zone(tz)
    report = ConversionReport(str(path), "sacct-json")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", "?")
        raise InputError(f"{path}:{line}: not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
        raise InputError(f"{path}: no 'jobs' list: is it sacct --json output?")
    rows = _Rows(salt)
    seen = Duplicates(duplicates, report, "job")
    differ: list = []
    cluster = None
    for k, job in enumerate(doc["jobs"]):
        where = f"{path}: jobs[{k}]"
        report.records += 1
        if not isinstance(job, dict):
            raise InputError(f"{where}: expected an object (a job), got {type(job).__name__}")
        job_id = _number(job.get("job_id"), where, "job_id")
        if seen.seen(job_id, where, f"jobs[{k}]"):
            continue
        state_v = _object(job.get("state"), where, "state").get("current")
        if isinstance(state_v, list):
            state_v = state_v[0] if state_v else None
        if state_v is not None and not isinstance(state_v, str):
            raise InputError(f"{where}: field state.current: expected a state name, got {type(state_v).__name__}")
        state = _state(state_v or "")
        if state not in STATUS:
            raise InputError(f"{where}: field state.current: unknown Slurm state {str(state_v)[:40]!r}")
        if STATUS[state] is None:
            report.skip(f"not finished when exported ({state})")
            continue
        if "time" not in job:
            raise InputError(f"{where}: field time: missing")
        if not isinstance(job["time"], dict):
            raise InputError(f"{where}: field time: expected an object, got {type(job['time']).__name__}")
        t = job["time"]
        submit = _number(t.get("submission"), where, "time.submission", hi=LAST_TIME)
        if submit is None:
            raise InputError(f"{where}: field time.submission: missing")
        start = _number(t.get("start"), where, "time.start", hi=LAST_TIME)
        start = start if start else None          # 0: never started
        end = _number(t.get("end"), where, "time.end", hi=LAST_TIME)
        end = end if end else None                # 0: never ended
        run = _number(t.get("elapsed"), where, "time.elapsed")
        if start is not None and run is None and end is not None:
            run = end - start
        if start is not None and run is None:
            raise InputError(f"{where}: the job started but neither time.end nor time.elapsed gives its runtime")
        _times(submit, start, end, run, where, {"submit": "time.submission", "start": "time.start",
                                                 "end": "time.end"}, report, differ)
        limit = _number(t.get("limit"), where, "time.limit", hi=I64 // 60)
        req_time = limit * 60 if limit is not None else None
        req = _number(_object(job.get("required"), where, "required").get("CPUs"), where, "required.CPUs")
        tres = _object(job.get("tres"), where, "tres")
        alloc = _tres_cpus(tres.get("allocated"), where, "tres.allocated")
        if req is None:
            req = _tres_cpus(tres.get("requested"), where, "tres.requested")
        cluster = cluster or (job.get("cluster") if isinstance(job.get("cluster"), str) else None)
        report.status[state if state != "CANCELLED" else
                      ("CANCELLED after starting" if start is not None else "CANCELLED before starting")] += 1
        rows.add(raw_id=job_id, submit=submit, start=start, end=end, run=run,
                 alloc=alloc if alloc is not None else -1, req_procs=req if req is not None else -1,
                 req_time=req_time, status=STATUS[state], user=_text(job.get("user"), where, "user"),
                 group=_text(job.get("group"), where, "group"), queue=_text(job.get("qos"), where, "qos"),
                 partition=_text(job.get("partition"), where, "partition"))
    seen.note()
    _differ_note(report, differ, "time.elapsed", "time.end", "time.start")
    meta = doc.get("meta")
    slurm_meta = meta.get("Slurm") if isinstance(meta, dict) else None
    version = slurm_meta.get("release") if isinstance(slurm_meta, dict) else None
    if isinstance(version, str) and version:
        report.notes.append(f"Slurm {version}")
    return rows.converted(report, installation=installation or (f"Slurm cluster {cluster}" if cluster else None),
                          max_procs=max_procs, tz_name=tz)
