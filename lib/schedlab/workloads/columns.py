"""Per-job columns from a side file: scores from your own model.

``schedlab simulate LOG --column pred=preds.csv --primary expr:col.pred``:
``preds.csv`` holds one line per job, ``<job id>,<value>`` (an optional
first line of names, e.g. ``id,pred``; blank lines and lines starting with
``#`` are skipped; separators: comma, semicolon, tab or spaces).  The values
are matched to the jobs by id; every job of the (cleaned) log must have
one, and ids may not repeat.  Errors name the file, the line and the field.

In a study a column's source is a file or ``module:function`` (a function of
the cleaned log's jobs returning one number per job; importable where the
cells run), carried by the trace (:attr:`schedlab.workloads.traces.TraceInfo.columns`,
``PATH?col.NAME=SOURCE``) so that every cell cleaning the log gets it, and
keyed by content (:func:`digest`).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..expr import column_name_error
from ..jobs import Jobs, import_attribute
from ..validators import NONE_WORDS, as_list, read_yaml, shown

__all__ = ["read_column", "parse_column_arg", "with_columns", "source", "parse_source_arg", "compute", "digest",
           "is_function", "check_name", "study_columns"]

_SPLIT = re.compile(r"[,;\t ]+")
_INT = re.compile(r"^[+-]?[0-9]{1,19}$")
_FLOAT = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?$")
MAX_BYTES = 1 << 30


def parse_column_arg(text: str) -> tuple[str, Path]:
    """``NAME=FILE`` -> (name, path), refusing a bad name."""
    if not isinstance(text, str) or "=" not in text:
        raise InputError(f"--column {text!r}: expected NAME=FILE, e.g. pred=preds.csv")
    name, _, path = text.partition("=")
    name = check_name(name.strip(), f"--column {shown(text)}")
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


# ------------------------------------------------- a column's source --

#: ``module:function`` (dotted module, a function name): a column computed by your own function.
_FUNCTION = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")
#: Characters a file source may not hold: it travels inside a trace spec (``PATH?col.NAME=SOURCE&...``).
_SPEC_CHARS = "&\n\r\0"


def is_function(source: str) -> bool:
    """Whether a column's source names a function (``module:function``) rather than a file."""
    return bool(_FUNCTION.match(source)) and not Path(source).exists()


def check_name(name, where: str = "columns") -> str:
    """A column's name: the expression grammar's identifier rule (:func:`schedlab.expr.column_name_error`),
    and not ``user`` (the jobs' own field)."""
    why = (column_name_error(name) if isinstance(name, str) else "a column name is a text") or \
        ("'user' is the jobs' users, not a column" if name == "user" else None)
    if why:
        raise InputError(f"{where}: bad column name {shown(name)}: {why}")
    return name


def source(text, where: str = "columns") -> str:
    """A column's source, canonical: ``module:function``, or a file's
    absolute path (so that a cell in another process reads the same file).
    The file must exist; a function is imported when the column is computed."""
    if isinstance(text, Path):
        text = str(text)
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where}: expected a file of 'job id,value' lines or module:function, got {text!r}")
    text = text.strip()
    if is_function(text):
        return text
    bad = [c for c in _SPEC_CHARS if c in text]
    if bad:
        raise InputError(f"{where}: {text[:80]!r} holds {bad[0]!r}, which a trace spec cannot carry (rename the file)")
    p = Path(text).expanduser()
    if not p.is_file():
        hint = " (nor module:function)" if ":" in text else ""
        raise InputError(f"{where}: {text[:200]!r} is not a file{hint}; a column is a file of 'job id,value' "
                         "lines or module:function")
    return str(p.resolve())


def parse_source_arg(text: str, option: str = "--column") -> tuple[str, str]:
    """``NAME=FILE`` or ``NAME=module:function`` -> (name, canonical source)."""
    if not isinstance(text, str) or "=" not in text:
        raise InputError(f"{option} {text!r}: expected NAME=FILE or NAME=module:function, e.g. pred=preds.csv")
    name, _, src = text.partition("=")
    check_name(name.strip(), f"{option} {text!r}")
    return name.strip(), source(src, f"{option} {text!r}")


def _function(src: str, name: str):
    module, _, attr = src.partition(":")
    fn = import_attribute(module, attr, f"column {name!r}: {src}", kind="function ")
    if not callable(fn):
        raise InputError(f"column {name!r}: {src}: module {module!r} has no function {attr!r}")
    return fn


def compute(src: str, jobs: Jobs, name: str) -> np.ndarray:
    """The values of column ``name`` for ``jobs`` (the cleaned log's jobs) from
    its source: a file's values matched by job id (:func:`read_column`), or
    ``function(jobs)``, which must return one finite number per job."""
    if not is_function(src):
        return read_column(src, jobs.id, name)
    fn = _function(src, name)
    try:
        values = fn(jobs)
    except Exception as exc:            # the user's code: one line naming it
        said = str(exc).splitlines()[0] if str(exc) else ""
        raise InputError(f"column {name!r}: {src}(jobs) raised {type(exc).__name__}: "
                         f"{said[:200]}{'...' if len(said) > 200 else ''}") from None
    try:
        a = np.asarray(values)
    except Exception:
        a = None
    if a is None or a.ndim != 1 or a.shape[0] != len(jobs) or a.dtype.kind not in "iuf":
        shown = "not an array" if a is None else f"shape {a.shape}, dtype {a.dtype}"
        raise InputError(f"column {name!r}: {src}(jobs) must return one number per job ({len(jobs)}), "
                         f"got {shown}")
    a = np.array(a, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(a))
    if bad.size:
        raise InputError(f"column {name!r}: {src}(jobs) gave {a[bad[0]]!r} for job {int(jobs.id[bad[0]])} "
                         f"(index {int(bad[0])}; {bad.size} not finite in all)")
    return a


def digest(src: str, values: np.ndarray) -> str:
    """What a column is by content, for the cache keys of the cells that use
    it: a file's sha256 (not its path), or the sha256 of the values a
    function gave."""
    import hashlib

    if is_function(src):
        return "values:" + hashlib.sha256(np.ascontiguousarray(values, np.float64).tobytes()).hexdigest()[:32]
    h = hashlib.sha256()
    with open(src, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return "file:" + h.hexdigest()[:32]


def study_columns(value, name: str = "columns") -> tuple[tuple[str, str], ...]:
    """Per-job columns of a study, ``((name, source), ...)``: from a mapping
    ``{"pred": "preds.csv"}``, a list of ``NAME=SOURCE`` texts (what
    ``--column`` gives), the text of a YAML mapping or list (papermill's
    ``-p``), or nothing.  A source is a file of ``job id,value`` lines (made
    absolute, a ``Path``) or ``module:function``; the value of a study's ``columns`` parameter."""
    if value is None or (isinstance(value, str) and value.strip().lower() in NONE_WORDS + ("{}",)):
        return ()
    if isinstance(value, str) and value.strip().startswith("{"):
        import yaml
        try:
            value = read_yaml(value, name)
        except yaml.YAMLError as exc:
            raise InputError(f"{name}: cannot read {shown(value)} as a mapping: {exc}") from None
    if isinstance(value, dict):
        items = list(value.items())
    else:
        items = []
        for i, item in enumerate(as_list(value, name, none_is_empty=True)):
            if isinstance(item, (list, tuple)) and len(item) == 2:
                items.append(tuple(item))
            elif isinstance(item, str) and "=" in item:
                items.append(tuple(item.split("=", 1)))
            else:
                raise InputError(f"{name}[{i}]: expected NAME=FILE or NAME=module:function, got {item!r}")
    out: dict[str, str] = {}
    for key, src in items:
        key = check_name(key.strip() if isinstance(key, str) else key, name)
        if key in out:
            raise InputError(f"{name}: column {key!r} given twice")
        src = source(src, f"{name}.{key}")
        # a file as a path: recorded relative to the repository (Params.record), as traces are
        out[key] = src if is_function(src) else Path(src)
    return tuple(out.items())
