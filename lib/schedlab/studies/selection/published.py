"""The values of online-bandit that the online-selection study compares
with, read from ``published.toml`` (the transcription, with its sources)
into the structures the study uses: :data:`PUBLISHED_TABLE2`,
:data:`TABLE2_COLUMNS` and :data:`PAPER`, the reference."""
from __future__ import annotations

from .. import load_published

_TOML = load_published(__package__)

PAPER: str = _TOML["paper"]["reference"]

#: Column order of Table 2 as printed.
TABLE2_COLUMNS: tuple[str, ...] = tuple(_TOML["table2"]["columns"])

#: online-bandit Table 2: change (%) of the total waiting time of EASY(P, 40 h)
#: against EASY(FCFS, 40 h), as printed ("UniLu-Gaia" is printed "Unilu-Gaia").
PUBLISHED_TABLE2: dict[str, dict[str, int]] = {
    trace: dict(zip(TABLE2_COLUMNS, row, strict=True)) for trace, row in _TOML["table2"]["values"].items()}
