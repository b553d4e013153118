"""The values of gaussier2015 that the runtime-prediction study compares
with, read from ``published.toml`` (the transcription, with its sources)
into the structures the study uses: :data:`PUBLISHED` (per table, per log,
a tuple in the order of the table's columns), :data:`PUBLISHED_NAMES` and
:data:`GAUSSIER`, the reference."""
from __future__ import annotations

from typing import Any

from ...errors import InputError
from .. import load_published

_TOML = load_published(__package__)

#: The approaches of gaussier2015 Table 6, in the order of its values.
T6_ROWS = ("clairvoyant FCFS", "clairvoyant SJBF", "EASY", "EASY++", "learning FCFS best",
           "learning FCFS worst", "learning SJBF best", "learning SJBF worst")

#: The columns of each published table, in the order the study reads its tuples.
COLUMNS: dict[str, tuple[str, ...]] = {
    "table4": ("year", "CPUs", "jobs (thousands)", "months"),
    "table1": ("easy", "clairvoyant", "decrease_pct"),
    "table6": T6_ROWS,
    "table7": ("cv", "cv_reduction_pct", "easy", "easypp", "easypp_reduction_pct"),
    "table8": ("mae", "mean_eloss"),
}


def _rows(name: str) -> dict[str, tuple]:
    """The rows of published table ``name``: key -> tuple of its values."""
    table = _TOML[name]
    if tuple(table["columns"]) != COLUMNS[name]:
        raise InputError(f"{__package__.replace('.', '/')}/published.toml [{name}]: columns {table['columns']}, "
                         f"the study reads {list(COLUMNS[name])}")
    return {key: tuple(row) for key, row in table["values"].items()}


GAUSSIER: str = _TOML["paper"]["reference"]

#: gaussier2015's log names, keyed by our registry names.
PUBLISHED_NAMES: dict[str, str] = dict(_TOML["names"]["values"])

#: Values published in gaussier2015, keyed by our registry names (Metacentrum
#: is not bundled; it is quoted for completeness): Tables 4, 1, 6, 7 and 8
#: (see :data:`COLUMNS`), the summary of §6.3.4 and §6.3.2 and the triple
#: selected in §6.3.3.
PUBLISHED: dict[str, Any] = {
    "table4": _rows("table4"),
    "table1": _rows("table1"),
    "table6": _rows("table6"),
    "table7": _rows("table7"),
    "summary": {**_TOML["reduction"]["values"], **_TOML["correlation"]["values"]},
    "table8": _rows("table8"),
    "selected": _TOML["selected"]["triple"],
}


def _pub(table: str, name: str):
    return PUBLISHED[table].get(name)
