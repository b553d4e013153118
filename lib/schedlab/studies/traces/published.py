"""The thesis' values the study compares with: ``published.toml`` (beside
this module, each table with its source) as the Python structures the
study uses.
"""
from __future__ import annotations

from typing import Any

from .. import load_published
from ...errors import InputError

#: The source of every published value below.
THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using "
          "Machine Learning and Statistical analysis, PhD thesis, Université Grenoble "
          "Alpes, 2021")


def _load() -> tuple[dict[str, dict[str, Any]], tuple[str, ...]]:
    """:data:`PUBLISHED` and :data:`PUBLISHED_NOTES` from ``published.toml``:
    per table, the values by trace (a tuple in the order of the table's
    ``columns``, a dict of every column with None where the thesis prints no
    value, or a number), and the notes of every table, in file order."""
    doc = load_published(__package__)
    published: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for name, table in doc.items():
        columns = table.get("columns") or []
        rows = {}
        for trace, value in table["traces"].items():
            where = f"{__package__}: published.toml [{name}.traces] {trace}"
            if isinstance(value, dict):
                if set(value) - set(columns):
                    raise InputError(f"{where}: unknown column(s) {sorted(set(value) - set(columns))}")
                value = {c: value.get(c) for c in columns}
            elif isinstance(value, list):
                if len(value) != len(columns):
                    raise InputError(f"{where}: expected one value per column {columns}, got {value}")
                value = tuple(value)
            rows[trace] = value
        published[name] = rows
        notes += table.get("notes", [])
    return published, tuple(notes)


#: Values published in the thesis, quoted from its tables and keyed by our
#: registry names: ``table_3_1`` (trace -> cpus, months, jobs,
#: mean_runtime_s; None where the thesis prints no value), ``table_4_1``
#: (trace -> premature %), ``table_6_1`` (trace -> (divider s, small
#: non-premature %, small premature %)), ``table_6_2`` (trace -> (large %,
#: small non-premature %, small premature %) of the area).  The data and the
#: source of each table: ``published.toml``; :data:`PUBLISHED_NOTES`: what
#: had to be read into the values.
PUBLISHED, PUBLISHED_NOTES = _load()


def published_for(name: str) -> dict[str, Any]:
    """The thesis' values for trace ``name`` (registry name), by table."""
    out = {}
    for table, rows in PUBLISHED.items():
        for key, value in rows.items():
            if key.lower() == name.lower():
                out[table] = value
    return out
