"""Site accounting to SWF, with a conversion report.

>>> from schedlab.workloads import importers
>>> result = importers.convert("sacct.psv", "sacct", max_procs=64)
>>> print(result.report)              # jobs read, written, skipped and why
>>> result.write("site.swf")          # then: schedlab simulate site.swf ...

Formats (:data:`FORMATS`):

* ``sacct`` -- ``sacct --parsable2`` output (``|``-separated, with its header
  line), with or without steps (:mod:`schedlab.workloads.importers.slurm`);
* ``sacct-json`` -- ``sacct --json`` (Slurm's OpenAPI DB v0.0.38 and later);
* ``batsim`` -- a Batsim workload JSON (``nb_res``, ``jobs``, ``profiles``);
  :func:`schedlab.workloads.importers.batsim.write_workload` goes the other way.

Every converter reads the whole input before anything is written; bad input
raises :class:`~schedlab.errors.InputError` naming the file, the line (or
JSON job) and the field.  What cannot become an SWF job (a step, a job still
running, a profile without a duration) is skipped and counted in the report
with its reason.  User, group and partition names become integers: by order
of first appearance, or, with a ``salt``, by the rank of their salted hash
(the same names and salt give the same numbers; without the salt the
numbers cannot be traced back to names), so a converted log can be shared.
"""
from __future__ import annotations

import hashlib
import hmac
import math
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import InputError

__all__ = ["FORMATS", "DUPLICATES", "ConversionReport", "Converted", "convert", "NameMap", "bounded", "Duplicates"]

#: The formats :func:`convert` reads.
FORMATS = ("sacct", "sacct-json", "batsim")
#: What :func:`convert` does with repeated records (the same job id and step):
#: refuse the file (the default) or keep the first and name the others in the report.
DUPLICATES = ("refuse", "keep-first")

#: The SWF reader's integer bound (schedlab.workloads.swf: +-(2**63 - 1)).
I64 = 2**63 - 1
#: The latest instant a time field may take: 9999-12-31T23:59:59 UTC (the header's StartTime is a date).
LAST_TIME = 253402300799


def bounded(v, where: str, name: str, *, lo: int = 0, hi: int = I64, what: str = "an integer") -> int:
    """``v`` (an int, or a float with an integral value) as an int in
    ``[lo, hi]``, else :class:`InputError` naming ``where`` and the field:
    the SWF reader's rules for types, NaN/inf and bounds."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError(f"{where}: field {name}: expected {what}, got {_shown(v)}")
    if isinstance(v, float):
        if not math.isfinite(v):
            raise InputError(f"{where}: field {name}: not finite ({v!r})")
        if not v.is_integer():
            raise InputError(f"{where}: field {name}: not an integer ({v!r})")
    if not lo <= v <= hi:
        side = f"below {lo}" if v < lo else f"above {hi}"
        raise InputError(f"{where}: field {name}: out of range ({_shown(v)}, {side})")
    return int(v)


def _shown(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


class Duplicates:
    """Records seen by key (job id and step): a repeated key is refused
    (``policy="refuse"``) or skipped and named in the report (``"keep-first"``)."""

    def __init__(self, policy: str, report: "ConversionReport", what: str):
        if policy not in DUPLICATES:
            raise InputError(f"duplicates must be one of {', '.join(DUPLICATES)}, got {policy!r}")
        self.policy, self.report, self.what = policy, report, what
        self.first: dict = {}
        self.repeated: list[tuple] = []

    def seen(self, key, where: str, at: str) -> bool:
        """True when ``key`` was met before (the record, at ``where``, short
        ``at`` such as "line 7", is then to be skipped); raises for ``"refuse"``."""
        if key is None:
            return False
        if key not in self.first:
            self.first[key] = at
            return False
        if self.policy == "refuse":
            raise InputError(f"{where}: {self.what} {key} repeats the record at {self.first[key]} (same job id "
                             "and step): duplicate records are refused; give --duplicates keep-first "
                             "(duplicates=\"keep-first\") to keep the first of each and report the others")
        self.repeated.append((key, at))
        self.report.skip("duplicate record (same job id and step as an earlier one): first kept")
        return True

    def note(self) -> None:
        if not self.repeated:
            return
        shown = ", ".join(f"{self.what} {k} at {at} (first at {self.first[k]})" for k, at in self.repeated[:10])
        more = f" and {len(self.repeated) - 10} more" if len(self.repeated) > 10 else ""
        self.report.notes.append(f"{len(self.repeated)} duplicate records skipped, the first of each kept: "
                                 f"{shown}{more}")


@dataclass
class ConversionReport:
    """What a conversion did: records read, jobs written, records skipped
    by reason, how fields were mapped (``notes``)."""

    source: str
    format: str
    records: int = 0
    jobs: int = 0
    skipped: Counter = field(default_factory=Counter)
    status: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1

    def record(self) -> dict:
        return {"source": self.source, "format": self.format, "records": self.records, "jobs": self.jobs,
                "skipped": dict(self.skipped), "status": dict(self.status), "notes": list(self.notes)}

    def __str__(self) -> str:
        lines = [f"import {self.source} ({self.format}): {self.records} records read, {self.jobs} jobs written, "
                 f"{sum(self.skipped.values())} skipped"]
        lines += [f"  skipped {n:>7}  {reason}" for reason, n in sorted(self.skipped.items())]
        lines += [f"  status  {n:>7}  {name}" for name, n in sorted(self.status.items())]
        lines += [f"  note     {note}" for note in self.notes]
        return "\n".join(lines)


class NameMap:
    """Names (users, groups, partitions) to integers 1, 2, ...: by first
    appearance, or with a ``salt`` by the rank of HMAC-SHA256(salt, name)."""

    def __init__(self, salt: str | None = None):
        self.salt = salt
        self._seen: dict[str, int] = {}

    def add(self, name: str) -> None:
        if name and name not in self._seen:
            self._seen[name] = len(self._seen) + 1

    def ids(self) -> dict[str, int]:
        if self.salt is None:
            return dict(self._seen)
        key = self.salt.encode()
        ranked = sorted(self._seen, key=lambda n: hmac.new(key, n.encode(), hashlib.sha256).hexdigest())
        return {name: k + 1 for k, name in enumerate(ranked)}

    def __call__(self, names) -> np.ndarray:
        ids = self.ids()
        return np.array([ids.get(n, -1) if n else -1 for n in names], dtype=np.int64)


@dataclass
class Converted:
    """An SWF log made from another format: ``fields`` (SWF field name ->
    array), ``header_lines`` and the :class:`ConversionReport`."""

    fields: dict
    header_lines: list[str]
    report: ConversionReport

    @property
    def n(self) -> int:
        return int(len(self.fields["job_id"]))

    def write(self, path) -> Path:
        from ..swf import write_swf

        return write_swf(path, self.fields, self.header_lines)


def header(report: ConversionReport, *, installation: str, unix_start: int | None, tz: str,
           max_procs: int | None, fields: dict, notes=()) -> list[str]:
    """The SWF header of a converted log (PWA's keys; ``MaxProcs`` only when known)."""
    from datetime import datetime, timezone

    from ... import __version__

    lines = ["Version: 2.2", f"Computer: {installation}", f"Installation: {installation}",
             f"Conversion: schedlab {__version__} importer ({report.format}) from {Path(report.source).name}"]
    n = len(fields["job_id"])
    lines += [f"MaxJobs: {n}", f"MaxRecords: {n}"]
    if unix_start is not None:
        lines.append(f"UnixStartTime: {unix_start}")
        lines.append(f"TimeZoneString: {tz}")
        start = datetime.fromtimestamp(unix_start, timezone.utc)
        lines.append(f"StartTime: {start:%a %b %d %H:%M:%S UTC %Y}")
    if max_procs is not None:
        lines.append(f"MaxProcs: {max_procs}")
    else:
        lines.append("Note: the machine size is not in the accounting; give it when simulating "
                     "(-m M) or let cleaning use the log's peak allocation (m=peak)")
    lines += [f"Note: {note}" for note in notes]
    return lines


def convert(path, format: str, *, max_procs: int | None = None, salt: str | None = None,
            tz: str = "UTC", installation: str | None = None, duplicates: str = "refuse") -> Converted:
    """Convert a site accounting file to SWF in memory (nothing is written).
    Repeated records (the same job id and step) are refused unless
    ``duplicates="keep-first"``."""
    path = Path(path)
    if format not in FORMATS:
        raise InputError(f"{path}: unknown format {format!r}; expected one of {', '.join(FORMATS)}")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if max_procs is not None:
        max_procs = bounded(max_procs, "max_procs", "max_procs", lo=1, what="a positive integer")
    if duplicates not in DUPLICATES:
        raise InputError(f"duplicates must be one of {', '.join(DUPLICATES)}, got {duplicates!r}")
    if format == "batsim":
        from .batsim import read_workload
        return read_workload(path, salt=salt, max_procs=max_procs, duplicates=duplicates)
    from .slurm import read_sacct, read_sacct_json
    reader = read_sacct if format == "sacct" else read_sacct_json
    return reader(path, max_procs=max_procs, salt=salt, tz=tz, installation=installation, duplicates=duplicates)


def write(path, out, format: str, **options) -> Converted:
    """Convert ``path`` and write the SWF ``out`` (atomically, only if the
    whole input converted); returns the :class:`Converted`."""
    result = convert(path, format, **options)
    if result.n == 0:
        raise InputError(f"{path}: no job to write\n{result.report}")
    if os.fspath(out) == os.fspath(path):
        raise InputError(f"{out}: the output would overwrite the input")
    result.write(out)
    return result
