"""Per-job columns from a side file: scores from your own model.

``schedlab simulate LOG --column pred=preds.csv --primary expr:col.pred``:
``preds.csv`` holds one line per job, ``<job id>,<value>`` (an optional
first line of names, e.g. ``id,pred``; blank lines and lines starting with
``#`` are skipped; separators: comma, semicolon, tab or spaces).  The values
are matched to the jobs by id; every job of the (cleaned) log must have
one, and ids may not repeat.  Errors name the file, the line and the field.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..expr import column_name_error
from ..jobs import Jobs

__all__ = ["read_column", "parse_column_arg", "with_columns"]

_SPLIT = re.compile(r"[,;\t ]+")
_INT = re.compile(r"^[+-]?[0-9]{1,19}$")
_FLOAT = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?$")
MAX_BYTES = 1 << 30


def parse_column_arg(text: str) -> tuple[str, Path]:
    """``NAME=FILE`` -> (name, path), refusing a bad name."""
    if not isinstance(text, str) or "=" not in text:
        raise InputError(f"--column {text!r}: expected NAME=FILE, e.g. pred=preds.csv")
    name, _, path = text.partition("=")
    name = name.strip()
    why = column_name_error(name) or ("'user' is the jobs' users, not a column" if name == "user" else None)
    if why:
        raise InputError(f"--column {text[:80]!r}: bad column name {name[:70]!r} ({why})")
    if not path:
        raise InputError(f"--column {text!r}: no file after '='")
    return name, Path(path)


def read_column(path, ids: np.ndarray, name: str = "value") -> np.ndarray:
    """The values of ``path`` for the job ids ``ids``, in their order (float64)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: column file {name!r} not found")
    if not p.is_file():
        raise InputError(f"{p}: column file {name!r} is not a regular file")
    if p.stat().st_size > MAX_BYTES:
        raise InputError(f"{p}: column file larger than 1 GiB")
    values: dict[int, float] = {}
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{p}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    first = True
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        fields = _SPLIT.split(s)
        if first and not _INT.match(fields[0]):     # a header line
            first = False
            continue
        first = False
        if len(fields) != 2:
            raise InputError(f"{p}:{lineno}: expected 2 fields (job id, {name}), got {len(fields)}")
        if not _INT.match(fields[0]):
            raise InputError(f"{p}:{lineno}: field 1 (job id): {fields[0][:40]!r} is not an integer")
        if not _FLOAT.match(fields[1]) or not math.isfinite(float(fields[1])):
            raise InputError(f"{p}:{lineno}: field 2 ({name}): {fields[1][:40]!r} is not a finite number")
        jid = int(fields[0])
        if jid in values:
            raise InputError(f"{p}:{lineno}: field 1 (job id): job {jid} given twice")
        values[jid] = float(fields[1])
    out = np.empty(len(ids), np.float64)
    for i, jid in enumerate(ids.tolist()):
        v = values.get(int(jid))
        if v is None:
            raise InputError(f"{p}: no {name} for job {int(jid)} (the first job of the log missing from the file; "
                             f"{sum(1 for j in ids.tolist() if int(j) not in values)} missing in all)")
        out[i] = v
    return out


def with_columns(jobs: Jobs, columns: dict) -> Jobs:
    """``jobs`` with more per-job columns (name -> values in job order)."""
    cols = dict(jobs.columns or {})
    cols.update(columns)
    return Jobs(jobs.submit, jobs.run, jobs.req, jobs.procs, jobs.id, jobs.user, jobs.source, jobs.lines, cols)
