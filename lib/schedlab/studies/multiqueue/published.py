"""The values of lawson2005 that the multiple-queue study compares with,
read from ``published.toml`` (the transcription, with its sources) into the
structures the study uses: :data:`PUBLISHED` (Table 1 and Table 2 as tuples
per trace, Table 3 as R per (T, L) per trace, the lower bounds of Fig.
4(a)), :data:`PUBLISHED_NOTES`, :data:`PAPER_NAMES` and :data:`PAPER`, the
reference."""
from __future__ import annotations

from typing import Any

from ...errors import InputError
from .. import load_published

_TOML = load_published(__package__)

#: The columns of Tables 1 and 2, in the order the study reads their tuples.
COLUMNS: dict[str, tuple[str, ...]] = {
    "table1": ("T", "L"),
    "table2": ("weeks", "tests", "pct_weeks_with_test", "changes", "pct_tests_with_change", "changes_to"),
}


def _rows(name: str) -> dict[str, tuple]:
    """The rows of published table ``name``: trace -> tuple of its values
    (a list among them, such as Table 2's changes to P = 1..4, as a tuple)."""
    table = _TOML[name]
    if tuple(table["columns"]) != COLUMNS[name]:
        raise InputError(f"{__package__.replace('.', '/')}/published.toml [{name}]: columns {table['columns']}, "
                         f"the study reads {list(COLUMNS[name])}")
    return {trace: tuple(tuple(v) if isinstance(v, list) else v for v in row)
            for trace, row in table["values"].items()}


def _tl(label: str) -> tuple[float, int]:
    """``"T/L"`` -> (T, L)."""
    t, _, h = label.partition("/")
    return float(t), int(h)


def _table3() -> dict[str, dict[tuple[float, int], float]]:
    """Table 3: per trace, R per (T, L)."""
    table = _TOML["table3"]
    keys = [_tl(c) for c in table["columns"]]
    return {trace: dict(zip(keys, row, strict=True)) for trace, row in table["values"].items()}


#: Source of every published value below.
PAPER: str = _TOML["paper"]["reference"]

#: The paper's trace names -> our registry names.
PAPER_NAMES: dict[str, str] = dict(_TOML["traces"]["names"])

#: Values published in lawson2005, keyed by our registry names: Table 1
#: (selected T, L weeks), Table 2 (weeks, tests, % weeks with test, partition
#: changes, % tests with change, then changes to P = 1, 2, 3, 4), Table 3
#: (aggregate R per (T, L)) and the lower bounds of the aggregate R that
#: §2.3 gives for Fig. 4(a) (exact estimates).
PUBLISHED: dict[str, Any] = {
    "table1": _rows("table1"),
    "table2": _rows("table2"),
    "table3": _table3(),
    "fig4a_lower_bounds": dict(_TOML["fig4a_lower_bounds"]["values"]),
}

PUBLISHED_NOTES: tuple[str, ...] = tuple(_TOML[k]["note"] for k in ("traces", "fig4a_lower_bounds", "fig8"))


def _published_r(name: str, t: float, h: int) -> float | None:
    return PUBLISHED["table3"].get(name, {}).get((float(t), int(h)))
