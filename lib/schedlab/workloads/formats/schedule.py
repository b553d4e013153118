"""A schedule as the field writes it: SWF with waits, or Batsim's ``jobs.csv``.

Writing (from a :class:`schedlab.engine.sim.Schedule`):

* :func:`write_swf` -- the jobs with their simulated ``wait`` and ``run``
  (the header's ``MaxProcs`` is the simulated machine size m);
  ``req_procs``/``alloc_procs`` and ``req_time`` are the processors and the
  requested time the engine used (after cleaning), so a checker reading the
  file sees what the scheduler saw; ``status`` 0 marks a job killed at its
  requested time, 1 the others.
* :func:`write_batsim_csv` -- Batsim's ``jobs.csv``, every column of its
  documented output, in its order (:data:`BATSIM_COLUMNS`; Batsim's
  ``docs/output-jobs.rst``): times written as Batsim writes them (six
  decimals), ``success`` 1/0, ``final_state`` ``COMPLETED_SUCCESSFULLY``,
  ``COMPLETED_WALLTIME_REACHED`` for a job killed at its requested time
  (the engine's ``killed`` flag), and for a job killed at the divider and
  requeued (``requeued``), a first row ``<id>#0`` for the killed run
  (``COMPLETED_KILLED``, from ``first_start`` to ``first_start + divider``)
  before the row of the run that completed; ``stretch`` =
  turnaround / execution (``inf`` for a zero-length run, as Batsim's
  division gives); ``allocated_resources`` from :func:`intervals.place`;
  ``consumed_energy`` -1 (no energy model, Batsim's value without its energy
  plugin); ``profile`` ``delay<runtime>``, the profile name of
  ``schedlab traces export --format batsim``; ``metadata`` the engine's flags
  of the job (``backfilled``, ``forced``, ``killed``, ``requeued``,
  space-separated; empty for none).

Reading (for ``schedlab check``): :func:`read` takes either file (by content,
not by name) into a :class:`ScheduleFile`; :func:`from_schedule` makes the
same from a simulated schedule without a file.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import InputError
from . import intervals

__all__ = ["BATSIM_COLUMNS", "FORMATS", "ScheduleFile", "write", "write_swf", "write_batsim_csv",
           "batsim_rows", "read", "read_swf_schedule", "read_batsim_csv", "from_schedule"]

#: The columns of Batsim's jobs.csv, in Batsim's order.
BATSIM_COLUMNS = ("job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
                  "requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
                  "waiting_time", "turnaround_time", "stretch", "allocated_resources", "consumed_energy",
                  "metadata")
#: Output formats of :func:`write`.
FORMATS = ("swf", "batsim-csv")
SUCCESS, WALLTIME, KILLED = "COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED"
_FINAL_STATES = (SUCCESS, "COMPLETED_FAILED", WALLTIME, KILLED, "REJECTED")


# ------------------------------------------------------------------ writing --

def _finished(schedule) -> None:
    if len(schedule.start) and (schedule.start.min() < 0 or schedule.end.min() < 0):
        i = int(np.flatnonzero((schedule.start < 0) | (schedule.end < 0))[0])
        raise InputError(f"{schedule.jobs.where(i)}: not finished: run the simulation to the end "
                         "before writing its schedule")


def _atomic_write(path, text: str) -> Path:
    """``text`` to ``path`` atomically (:func:`schedlab.files.write_bytes`):
    an interrupted write never leaves a half file."""
    from ...files import write_bytes

    return write_bytes(path, text.encode())


def swf_fields(schedule, trace=None) -> dict[str, np.ndarray]:
    """The SWF fields of a simulated schedule.  With ``trace`` (the SWF the
    jobs were cleaned from, jobs carrying their ``lines``) the other fields
    (user, group, queue ...) are the trace's."""
    _finished(schedule)
    jobs = schedule.jobs
    if trace is not None and jobs.lines is not None:
        rows = np.searchsorted(trace.lines, jobs.lines)
        fields = {k: v[rows].copy() for k, v in trace.fields.items()}
    else:
        fields = {"job_id": jobs.id.copy()}
        if jobs.user is not None:
            fields["user"] = jobs.user.copy()
    fields["job_id"] = jobs.id.copy()
    fields["submit"] = jobs.submit.copy()
    fields["wait"] = schedule.start - jobs.submit
    fields["run"] = schedule.end - schedule.start
    fields["req_procs"] = jobs.procs.astype(np.int64)
    fields["alloc_procs"] = jobs.procs.astype(np.int64)
    fields["req_time"] = jobs.req.copy()
    fields["status"] = np.where(schedule.killed, 0, 1)
    return fields


def write_swf(schedule, path, trace=None, header=None) -> Path:
    """Write a simulated schedule as SWF (see the module docstring)."""
    from ... import __version__
    from .. import swf

    lines = list(trace.header_lines) if trace is not None else ["Version: 2.2", f"MaxProcs: {schedule.m}"]
    # MaxProcs is the simulated machine's size (a reader such as schedlab check takes m from it)
    for k, line in enumerate(lines):
        key, sep, value = line.partition(":")
        if sep and key.strip() == "MaxProcs" and value.strip() != str(schedule.m):
            lines[k] = f"MaxProcs: {schedule.m}"
            lines.insert(k + 1, f"schedlab: the log's MaxProcs was {value.strip()}; the simulated machine has "
                                f"m = {schedule.m}")
            break
    else:
        if trace is not None and not any(line.partition(":")[0].strip() == "MaxProcs" for line in lines):
            lines.append(f"MaxProcs: {schedule.m}")
    lines += list(header or []) + [
        f"schedlab {__version__}: simulated {schedule.policy} (estimate {schedule.estimate}) on m={schedule.m}",
        "schedlab: wait and run are simulated; req_procs, alloc_procs and req_time are those the engine used; "
        "status 0 marks jobs killed at their requested time",
    ]
    return swf.write_swf(path, swf_fields(schedule, trace), lines)


def _fmt_time(x) -> str:
    return f"{x:.6f}"


def _divider_of(schedule, divider) -> np.ndarray:
    n = len(schedule.start)
    if divider is None:
        raise InputError("the schedule has jobs killed at the divider and requeued: give the divider "
                         "(the one the simulation used) to place their killed runs")
    d = np.asarray(divider, dtype=np.int64)
    return np.full(n, int(d)) if d.ndim == 0 else d


def batsim_rows(schedule, workload_name: str = "schedlab", divider=None) -> list[list[str]]:
    """The rows of Batsim's jobs.csv (without the header), in job input
    order; see the module docstring."""
    _finished(schedule)
    jobs = schedule.jobs
    n = len(jobs)
    requeued = schedule.requeued
    # runs: every job's completed run, then the killed runs of requeued jobs
    r_idx = np.flatnonzero(requeued)
    run_start = np.concatenate([schedule.start, schedule.first_start[r_idx] if r_idx.size else []]).astype(np.int64)
    if r_idx.size:
        div = _divider_of(schedule, divider)
        killed_end = schedule.first_start[r_idx] + div[r_idx]
    else:
        killed_end = np.zeros(0, np.int64)
    run_end = np.concatenate([schedule.end, killed_end]).astype(np.int64)
    run_procs = np.concatenate([jobs.procs, jobs.procs[r_idx]]).astype(np.int64)
    labels = [str(int(x)) for x in jobs.id] + [f"{int(jobs.id[i])}#0" for i in r_idx]
    alloc = intervals.place(run_start, run_end, run_procs, schedule.m, labels)
    flags = {"backfilled": schedule.backfilled, "forced": schedule.forced, "killed": schedule.killed,
             "requeued": requeued}
    rows = []
    killed_row = {int(i): n + k for k, i in enumerate(r_idx)}

    def row(label, i, r, state):
        s, e, sub = int(run_start[r]), int(run_end[r]), int(jobs.submit[i])
        ex, ta = e - s, e - sub
        stretch = "inf" if ex == 0 and ta > 0 else ("nan" if ex == 0 else f"{ta / ex:.6f}")
        meta = " ".join(k for k, v in flags.items() if v[i]) if r < n else "killed-at-divider"
        return [label, workload_name, f"delay{int(jobs.run[i])}", _fmt_time(sub), str(int(jobs.procs[i])),
                _fmt_time(int(jobs.req[i])), "1" if state == SUCCESS else "0", state, _fmt_time(s),
                _fmt_time(ex), _fmt_time(e), _fmt_time(s - sub), _fmt_time(ta), stretch,
                intervals.to_string(alloc[r]), _fmt_time(-1), meta]

    killed = schedule.killed
    for i in range(n):
        if i in killed_row:
            r = killed_row[i]
            rows.append(row(labels[r], i, r, KILLED))
        rows.append(row(labels[i], i, i, WALLTIME if killed[i] else SUCCESS))
    return rows


def write_batsim_csv(schedule, path, workload_name: str = "schedlab", divider=None) -> Path:
    """Write a simulated schedule as Batsim's jobs.csv, atomically."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(BATSIM_COLUMNS)
    w.writerows(batsim_rows(schedule, workload_name, divider))
    return _atomic_write(path, buf.getvalue())


def write(schedule, path, format: str = "swf", *, trace=None, workload_name: str | None = None,
          divider=None) -> Path:
    """Write ``schedule`` in ``format`` (``swf`` or ``batsim-csv``)."""
    if format == "swf":
        return write_swf(schedule, path, trace)
    if format == "batsim-csv":
        return write_batsim_csv(schedule, path, workload_name or "schedlab", divider)
    raise InputError(f"unknown schedule format {format!r}: expected one of {', '.join(FORMATS)}")


# ------------------------------------------------------------------ reading --

@dataclass(eq=False)
class ScheduleFile:
    """What a schedule file says, one entry per run (times in seconds, as
    float64: Batsim's may be fractional).

    ``ids`` are the job ids as written; ``order`` the tie-break of equal
    submit times (the numeric id when every id is a number, else the file
    order); ``requested`` is -1 where the file gives none; ``killed_run``
    marks runs the decision process killed (Batsim ``COMPLETED_KILLED``):
    they hold processors but are not jobs of the queue; ``walltime`` marks
    jobs the file says were killed at their requested time; ``allocated``
    holds each run's processor ids (intervals) when the file gives them;
    ``lines`` the 1-based file line of each run; ``backfilled`` the jobs
    the file flags as backfilled (schedlab's own ``metadata``; None when the
    file says nothing)."""

    source: str
    kind: str
    ids: list[str]
    order: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    procs: np.ndarray
    requested: np.ndarray
    killed_run: np.ndarray
    walltime: np.ndarray
    lines: np.ndarray
    allocated: list | None = None
    m: int | None = None
    backfilled: np.ndarray | None = field(default=None, repr=False)
    #: Batsim's ``execution_time`` as written (NaN/inf kept) when the file
    #: also gives ``finish_time``: the checker compares the two
    execution: np.ndarray | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return len(self.ids)

    def where(self, i: int) -> str:
        return f"{self.source}:{int(self.lines[i])}: job {self.ids[i]}"


def from_schedule(schedule, source: str = "<simulation>") -> ScheduleFile:
    """A simulated schedule as :func:`read` would read it back (no file);
    jobs killed at the divider are not supported here (write the file)."""
    _finished(schedule)
    if schedule.requeued.any():
        raise InputError("from_schedule: requeued jobs: write the schedule as batsim-csv and read it")
    jobs = schedule.jobs
    n = len(jobs)
    return ScheduleFile(source, "schedule", [str(int(x)) for x in jobs.id], jobs.id.astype(np.float64),
                        jobs.submit.astype(np.float64), schedule.start.astype(np.float64),
                        schedule.end.astype(np.float64), jobs.procs.astype(np.int64),
                        jobs.req.astype(np.float64), np.zeros(n, bool), schedule.killed.copy(),
                        np.arange(1, n + 1), None, schedule.m, schedule.backfilled.copy())


def read(path) -> ScheduleFile:
    """Read a schedule: Batsim's jobs.csv (a first line starting with
    ``job_id,``) or SWF with waits (anything else)."""
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head.lstrip(b"\xef\xbb\xbf").startswith(b"job_id,") or head.startswith(b'"job_id",') or _csv_header(head):
        return read_batsim_csv(path)
    return read_swf_schedule(path)


def _csv_header(head: bytes) -> bool:
    """A first line of comma-separated Batsim column names (in any order,
    some missing): a jobs.csv, whose reader says which column it lacks."""
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0].decode("utf-8", "replace")
    names = {c.strip().strip('"') for c in first.split(",")}
    return len(names & set(BATSIM_COLUMNS)) >= 2


def read_swf_schedule(path) -> ScheduleFile:
    """An SWF file with waits: start = submit + wait (a wait of -1 is
    missing; one below -1 a start before submission), end = start + run,
    processors = req_procs (alloc_procs where req_procs is missing),
    requested time = req_time; status 0 with run = req_time marks a job
    killed at its requested time."""
    from ...errors import SWFFormatError
    from ..swf import read_swf

    tr = read_swf(path)
    f = tr.fields
    for name in ("submit", "wait", "run"):
        # -1 is SWF's "missing"; a wait below -1 is a start before submission (reported by check)
        bad = (f[name] == -1) if name == "wait" else (f[name] < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise SWFFormatError(path, int(tr.lines[i]), name,
                                 f"job {int(f['job_id'][i])}: {f[name][i]} (missing): a schedule needs the "
                                 f"submit, wait and run of every job ({int(bad.sum())} job(s) affected)")
    q = np.where(f["req_procs"] > 0, f["req_procs"], f["alloc_procs"])
    if (q < 1).any():
        i = int(np.flatnonzero(q < 1)[0])
        raise SWFFormatError(path, int(tr.lines[i]), "req_procs",
                             f"job {int(f['job_id'][i])}: no requested or allocated processors")
    ids = f["job_id"]
    if len(np.unique(ids)) != len(ids):
        u, c = np.unique(ids, return_counts=True)
        i = int(np.flatnonzero(ids == u[c > 1][0])[1])
        raise SWFFormatError(path, int(tr.lines[i]), "job_id", f"job id {int(ids[i])} occurs twice")
    submit = f["submit"].astype(np.float64)
    start = submit + f["wait"]
    end = start + f["run"]
    walltime = (f["status"] == 0) & (f["req_time"] >= 0) & (f["run"] == f["req_time"])
    return ScheduleFile(str(path), "swf", [str(int(x)) for x in ids], ids.astype(np.float64), submit, start, end,
                        q.astype(np.int64), f["req_time"].astype(np.float64), np.zeros(tr.n, bool), walltime,
                        tr.lines.copy(), None, tr.max_procs)


def _number(text: str, where: str, name: str, allow_empty=False) -> float:
    text = text.strip()
    if not text and allow_empty:
        return np.nan
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"{where}: field {name}: {text!r} is not a number") from None
    if not np.isfinite(v):
        raise InputError(f"{where}: field {name}: {text!r} is not a finite number")
    return v


def _any_number(text: str, where: str, name: str) -> float:
    """A number that may be NaN or infinite (the checker judges it)."""
    text = text.strip()
    try:
        return float(text) if text else np.nan
    except ValueError:
        raise InputError(f"{where}: field {name}: {text!r} is not a number") from None


def read_batsim_csv(path) -> ScheduleFile:
    """Batsim's jobs.csv (any column order; ``job_id``, ``submission_time``,
    ``requested_number_of_resources``, ``requested_time``, ``final_state``,
    ``starting_time`` and ``finish_time`` (or ``execution_time``) needed;
    ``allocated_resources`` read when present).  Rejected jobs (no start)
    are refused: a schedule where a job never ran cannot be checked."""
    path = Path(path)
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise InputError(f"{path}: empty file (expected Batsim's jobs.csv header)") from None
        col = {name.strip(): k for k, name in enumerate(header)}
        need = ("job_id", "submission_time", "requested_number_of_resources", "requested_time", "starting_time")
        for name in need:
            if name not in col:
                raise InputError(f"{path}:1: no column {name!r} (is it Batsim's jobs.csv?)")
        if "finish_time" not in col and "execution_time" not in col:
            raise InputError(f"{path}:1: no column finish_time nor execution_time")
        ids, sub, st, en, q, req, state, lines, alloc, bf, ex = [], [], [], [], [], [], [], [], [], [], []
        has_alloc = "allocated_resources" in col
        has_meta = "metadata" in col
        for row in reader:
            lineno = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise InputError(f"{path}:{lineno}: {len(row)} fields, the header has {len(header)}")
            get = lambda name: row[col[name]]  # noqa: E731
            where = f"{path}:{lineno}"
            jid = get("job_id").strip()
            fs = get("final_state").strip() if "final_state" in col else SUCCESS
            if fs and fs not in _FINAL_STATES:
                raise InputError(f"{where}: field final_state: {fs!r} is not a Batsim final state "
                                 f"({', '.join(_FINAL_STATES)})")
            if fs == "REJECTED" or not get("starting_time").strip():
                raise InputError(f"{where}: job {jid}: never started (final_state {fs or 'empty'}): "
                                 "a schedule to check has every job run")
            s = _number(get("starting_time"), where, "starting_time")
            if "finish_time" in col and get("finish_time").strip():
                e = _number(get("finish_time"), where, "finish_time")
                if "execution_time" in col:
                    ex.append(_any_number(get("execution_time"), where, "execution_time"))
            else:
                e = s + _number(get("execution_time"), where, "execution_time")
                ex.append(e - s)
            n_res = _number(get("requested_number_of_resources"), where, "requested_number_of_resources")
            if n_res < 1 or n_res != int(n_res):
                raise InputError(f"{where}: field requested_number_of_resources: {n_res!r} is not a positive "
                                 "integer")
            ids.append(jid)
            sub.append(_number(get("submission_time"), where, "submission_time"))
            st.append(s)
            en.append(e)
            q.append(int(n_res))
            r = _number(get("requested_time"), where, "requested_time", allow_empty=True)
            req.append(-1.0 if np.isnan(r) or r < 0 else r)
            state.append(fs)
            lines.append(lineno)
            bf.append(has_meta and "backfilled" in get("metadata").split())
            if has_alloc:
                alloc.append(intervals.parse(get("allocated_resources"), f"{where}: field allocated_resources"))
    if len(set(ids)) != len(ids):
        seen = set()
        for k, jid in enumerate(ids):
            if jid in seen:
                raise InputError(f"{path}:{lines[k]}: field job_id: {jid!r} occurs twice")
            seen.add(jid)
    n = len(ids)
    numeric = all(i.isdigit() for i in ids)
    order = np.array([int(i) for i in ids], np.float64) if numeric else np.arange(n, dtype=np.float64)
    state_a = np.array(state, dtype=object)
    end = np.array(en, np.float64)
    start = np.array(st, np.float64)
    bad = end < start
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise InputError(f"{path}:{lines[k]}: job {ids[k]}: finish_time {end[k]:g} before starting_time "
                         f"{start[k]:g}")
    return ScheduleFile(str(path), "batsim-csv", ids, order, np.array(sub, np.float64), start, end,
                        np.array(q, np.int64), np.array(req, np.float64), state_a == KILLED,
                        state_a == WALLTIME, np.array(lines, np.int64), alloc if has_alloc else None, None,
                        np.array(bf, bool) if has_meta else None,
                        np.array(ex, np.float64) if len(ex) == n and n else None)
