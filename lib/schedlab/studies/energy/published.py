"""The thesis' values the study compares with: ``published.toml`` (beside
this module, each figure or claim with its source) as the Python
structures the study uses.
"""
from __future__ import annotations

from typing import Any

from .. import load_published
from ...errors import InputError

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, ch. 7")


#: Keys of a table of ``published.toml`` that describe its values.
_META = ("source", "notes", "approximate", "unit")


def _load() -> tuple[dict[str, Any], tuple[str, ...]]:
    """:data:`PUBLISHED` and :data:`PUBLISHED_NOTES` from ``published.toml``:
    the values of every table in one mapping (a key belongs to one table
    only), and the notes of every table, in file order."""
    published: dict[str, Any] = {}
    notes: list[str] = []
    for name, table in load_published(__package__).items():
        for key, value in table.items():
            if key in _META:
                continue
            if key in published:
                raise InputError(f"{__package__}: published.toml [{name}] {key}: given twice")
            published[key] = value
        notes += table.get("notes", [])
    return published, tuple(notes)


#: What the thesis reports (ch. 7), for the comparison: the class shares of
#: Fig. 7.12 (``predictable_pct``, ``constant_pct``, ``periodic_pct``; only
#: given in words -- "around half ... constant and a quarter ... periodic";
#: "around 75% ... predictable" -- so approximate), its sample (machines,
#: days, period, jobs), the filtering of Fig. 7.3 and the parameters it
#: chose.  The data and the source of each figure or claim:
#: ``published.toml``; :data:`PUBLISHED_NOTES`: what had to be read into them.
PUBLISHED, PUBLISHED_NOTES = _load()
