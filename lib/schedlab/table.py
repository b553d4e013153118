"""What every study writes its outputs with, on the library's floor: a
:class:`Table` (rows with named columns, written as CSV and Markdown) and
atomic writers (:func:`write_text`, :func:`write_json`): an interrupted run
never leaves a half-written file behind.  :mod:`schedlab.studies` re-exports
them for the studies; the declared parameters (:mod:`schedlab.declared`)
describe themselves as a Table."""
from __future__ import annotations

import csv
import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .files import write_bytes
from .names import md_cell, md_text

__all__ = ["Table", "table_from_records", "write_bytes", "write_text", "write_json", "jsonable"]


# ----------------------------------------------------------- atomic files --

def write_text(path: str | os.PathLike, text: str) -> Path:
    """:func:`write_bytes` of UTF-8 text."""
    return write_bytes(path, text.encode("utf-8"))


def jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars/arrays turned into Python ones, paths into
    strings and non-finite floats into ``None`` (JSON has no NaN)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if hasattr(obj, "tolist"):                     # numpy scalar or array
        return jsonable(obj.tolist())
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """``obj`` as indented JSON (see :func:`jsonable`), atomically."""
    return write_text(path, json.dumps(jsonable(obj), indent=2, allow_nan=False) + "\n")


# ------------------------------------------------------------------ tables --

def _cell(value: Any, digits: int | None) -> str:
    """Text of one cell: blank for None/NaN, ints as ints, floats rounded."""
    if value is None:
        return ""
    if hasattr(value, "item"):                     # numpy scalar
        value = value.item()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ""
        if digits is None:
            return repr(value)
        return f"{value:.{digits}f}"
    return str(value)


@dataclass
class Table:
    """A small table: ``columns`` (names), ``rows`` (one list per row, in
    column order) and the number of decimals shown per float column
    (``digits``; absent columns show ``default_digits``).  ``title`` and
    ``notes`` go above and below the Markdown; the CSV holds the data only,
    at full precision.  Missing values (None or NaN) are blank cells."""

    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    title: str = ""
    notes: list[str] = field(default_factory=list)
    digits: dict[str, int] = field(default_factory=dict)
    default_digits: int = 2

    def __post_init__(self):
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.title!r}: row {i} has {len(row)} cells, "
                                 f"{len(self.columns)} columns")

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> list[Any]:
        """The values of column ``name``."""
        j = self.columns.index(name)
        return [row[j] for row in self.rows]

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts keyed by column name."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def to_csv(self) -> str:
        """CSV text (header row, then the rows; full precision, blanks for missing)."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.columns)
        for row in self.rows:
            w.writerow([_cell(v, None) for v in row])
        return buf.getvalue()

    def to_markdown(self) -> str:
        """A GitHub-flavoured Markdown table, numbers right-aligned."""
        cells = [[_cell(v, self.digits.get(c, self.default_digits)) for c, v in zip(self.columns, row)]
                 for row in self.rows]
        numeric = [all(isinstance(row[j], (int, float)) or row[j] is None or hasattr(row[j], "item")
                       for row in self.rows) and bool(self.rows)
                   for j in range(len(self.columns))]
        # names are data: a cell's text never becomes HTML, a link or a column (schedlab.names)
        esc = md_cell
        lines = []
        if self.title:
            lines += [f"**{md_text(self.title)}**", ""]
        lines.append("| " + " | ".join(esc(c) for c in self.columns) + " |")
        lines.append("|" + "|".join("---:" if n else ":---" for n in numeric) + "|")
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in cells]
        if self.notes:
            lines.append("")
            lines += [md_text(note) if note.startswith(("*", "-")) else f"* {md_text(note)}" for note in self.notes]
        return "\n".join(lines) + "\n"

    def write(self, path_without_suffix: str | os.PathLike) -> list[Path]:
        """Write ``<path>.csv`` and ``<path>.md`` atomically; returns both paths."""
        base = Path(path_without_suffix)
        return [write_text(base.with_name(base.name + ".csv"), self.to_csv()),
                write_text(base.with_name(base.name + ".md"), self.to_markdown())]


def table_from_records(records: Sequence[dict[str, Any]], columns: Sequence[str] | None = None,
                       **kw) -> Table:
    """A :class:`Table` from dicts (columns: ``columns``, else the keys of the first)."""
    cols = list(columns) if columns is not None else (list(records[0]) if records else [])
    return Table(cols, [[r.get(c) for c in cols] for r in records], **kw)
