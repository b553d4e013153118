"""The studies of the compendium: one package per study, registered in
:mod:`schedlab.studies.registry` and run by the one driver
:func:`schedlab.protocol.study.run_study`; the study's notebook
(``notebooks/NN-<study>.ipynb``) holds its parameters cell, calls the driver
and shows what it returns.

This package also gives the studies the output helpers of the floor
(:mod:`schedlab.table`: :class:`Table`, the atomic writers) and
:func:`load_published`.
"""
from __future__ import annotations

from typing import Any

from ..table import Table, jsonable, table_from_records, write_bytes, write_json, write_text

__all__ = ["Table", "table_from_records", "write_bytes", "write_text", "write_json", "jsonable", "load_published"]


# --------------------------------------------------------- published values --

def load_published(package: str) -> dict[str, Any]:
    """The published values a study compares with: ``published.toml`` of the
    study package ``package`` (e.g. ``"schedlab.studies.policies"``), as
    nested dicts.  Each top-level table holds one published table, figure or
    claim, with a ``source`` key citing it (paper key, table or section)."""
    import importlib.resources
    import tomllib

    from ..errors import InputError

    res = importlib.resources.files(package) / "published.toml"
    try:
        text = res.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{package}: no published.toml beside the study") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{package.replace('.', '/')}/published.toml: {exc}") from None
