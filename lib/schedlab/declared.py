"""Declared values: the one way a study's parameters and a campaign cell's
inputs are declared and read.

A declaration is a frozen dataclass whose fields are made by :func:`param`
(default, unit, help text, validator ``check(value, name) -> canonical
value``).  :func:`validate` reads a mapping into it: an unknown name, a
missing required value or a bad value raises :class:`InputError` naming the
source (a file and line, or a cell) and the name.

* :class:`Params`: a study's parameters (``schedlab.protocol.study``'s protocol).
* :class:`CellInputs`: a campaign cell's inputs; :func:`schedlab.campaigns.cells.cell`
  registers a cell with its declaration, and every call of the cell reads
  its parameters through :func:`validate` -- the one cell-parameter check.

This module sits on the lowest floor: at import it takes nothing of
schedlab but its errors (the validators, traces and tables it reads values
with are imported when used).
"""
from __future__ import annotations

import dataclasses
import difflib
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .errors import InputError
from .table import Table

__all__ = ["REQUIRED", "param", "Params", "CellInputs", "validate", "plain", "duration", "durations"]


class _Required:
    """The default of a value that must be given (a cell's ``trace``)."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: Default of a declared value that has none: :func:`validate` refuses its absence.
REQUIRED = _Required()


def param(default, *, help: str, unit: str = "", check: Callable[[Any, str], Any] | None = None):
    """A declared value: its default (for a study, the quick profile's value;
    :data:`REQUIRED` when it must be given), unit, help text and validator
    ``check(value, name) -> canonical value`` (raising
    :class:`~schedlab.errors.InputError` naming ``name``).  Mutable defaults
    (lists) are copied per instance."""
    meta = {"help": help, "unit": unit, "check": check}
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda d=default: type(d)(d), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Params:
    """Base of every study's parameters (a frozen dataclass of :func:`param`
    fields).  Values are validated by :func:`validate`, never by hand."""

    #: what an unknown name is "not a parameter of" in an error
    _KIND = "this study"

    @classmethod
    def names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        out = {}
        for f in dataclasses.fields(cls):
            out[f.name] = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        return out

    @classmethod
    def field(cls, name: str):
        """The declaration of ``name`` again, for another class that takes the
        same value (``trace: str = TraceInputs.field("trace")``)."""
        f = {g.name: g for g in dataclasses.fields(cls)}[name]
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        return param(default, help=f.metadata["help"], unit=f.metadata["unit"], check=f.metadata["check"])

    def record(self) -> dict[str, Any]:
        """The values as JSON-friendly data: traces by name, paths relative
        to the repository, tuples as lists."""
        return {k: plain(getattr(self, k)) for k in self.names()}

    def describe(self):
        """The parameters as a :class:`~schedlab.table.Table` (name, value, unit, meaning)."""
        rows = []
        for f in dataclasses.fields(self):
            v = plain(getattr(self, f.name))
            rows.append([f.name, v if isinstance(v, (int, float, str)) or v is None else repr(v),
                         f.metadata.get("unit", ""), f.metadata.get("help", "")])
        return Table(["parameter", "value", "unit", "meaning"], rows, title="Parameters")


@dataclass(frozen=True)
class CellInputs(Params):
    """Base of a campaign cell's declared inputs.  A cell gets its inputs as
    an instance, read by attribute (``q.trace``) or, like the dict a spec
    gives, by key (``q["trace"]``, ``q.get("m")``, ``{**q}``)."""

    _KIND = "this cell"

    def __getitem__(self, name: str):
        if name not in self.names():
            raise KeyError(name)
        return getattr(self, name)

    def get(self, name: str, default=None):
        return getattr(self, name) if name in self.names() else default

    def keys(self) -> list[str]:
        return self.names()


def plain(v):
    """A declared value as JSON-friendly data (see :meth:`Params.record`): a
    value that says how it is recorded (``as_plain()``: a trace by its name,
    :class:`schedlab.workloads.traces.TraceInfo`), tuples as lists, paths
    relative to the repository."""
    as_plain = getattr(type(v), "as_plain", None)
    if callable(as_plain):
        return as_plain(v)
    if isinstance(v, (tuple, list)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, os.PathLike):
        from . import paths
        return paths.relative(v)
    return v


def validate(cls: type[Params], values: Mapping[str, Any], *, source: str = "parameters",
             lines: Mapping[str, int] | None = None) -> Params:
    """``cls`` from ``values`` (defaults for what is absent), each value read
    by its field's validator.  An unknown name, a missing :data:`REQUIRED`
    value or a bad value raises :class:`~schedlab.errors.InputError` naming
    ``source`` (and its line, from ``lines``) and the name."""
    known = {f.name: f for f in dataclasses.fields(cls)}
    where = lambda k: f"{source}:{lines[k]}" if lines and k in lines else source  # noqa: E731
    for k in values:
        if k not in known:
            near = difflib.get_close_matches(str(k), list(known), n=2)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise InputError(f"{where(k)}: {k!r} is not a parameter of {cls._KIND}{hint}; "
                             f"its parameters: {', '.join(known)}")
    out = cls.defaults()
    out.update(values)
    for k, f in known.items():
        if out[k] is REQUIRED:
            raise InputError(f"{where(k)}: a {k!r} parameter is required")
        check = f.metadata.get("check")
        if check is not None:
            try:
                out[k] = check(out[k], k)
            except InputError as exc:
                raise InputError(f"{where(k)}: {exc}") from None
            except (TypeError, ValueError, OverflowError, MemoryError) as exc:
                # a value of a shape the validator does not take ([[]] where names go): one line, not a traceback
                raise InputError(f"{where(k)}: {k}: cannot read {_shown(out[k])} ({type(exc).__name__}: {exc})") \
                    from None
        if f.metadata.get("unit") == "weeks":
            _weeks_bound(out[k], f"{where(k)}: {k}")
    return cls(**out)


#: The most weeks a parameter in weeks may ask for (resampled, kept or
#: skipped): the papers use at most 250; 10,000 (192 years) already takes
#: hours and gigabytes, and 1e9 would ask for terabytes before failing.
MAX_WEEKS = 10_000


def _weeks_bound(value, name: str) -> None:
    items = value.values() if isinstance(value, Mapping) else \
        value if isinstance(value, (list, tuple)) else [value]
    for v in items:
        if isinstance(v, int) and not isinstance(v, bool) and v > MAX_WEEKS:
            raise InputError(f"{name}: {v} weeks is more than {MAX_WEEKS:,} (the papers use at most 250)")


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ------------------------------------------------------------- validators --
# Small validator factories for declarations (each returns check(value, name)).

def integer(low: int = 1, optional: bool = False):
    """An integer >= ``low`` (``None`` allowed when ``optional``)."""
    from . import validators

    if optional:
        return lambda v, name: validators.optional_integer(v, name, low)
    return lambda v, name: validators.integer(v, name, low)


def one_of(*allowed: str, optional: bool = False):
    """One of ``allowed`` (``None`` allowed when ``optional``)."""
    from . import validators

    return lambda v, name: None if optional and v is None else validators.choice(v, name, allowed)


def text(v, name: str) -> str:
    """A non-empty text (a trace's campaign text, a policy name)."""
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if not isinstance(v, str) or not v.strip():
        raise InputError(f"{name}: expected a non-empty text, got {v!r}")
    return v


def flag(v, name: str) -> bool:
    """True or false (a bool, or its text)."""
    from . import validators

    return validators.boolean(v, name)


def duration(v, name: str) -> int | None:
    """A duration in seconds, or None for none: ``"20h"``, ``72000``,
    ``"2.31d"``, ``"none"`` (:func:`schedlab.jobs.parse_duration`, the one
    reader of durations; :func:`schedlab.jobs.format_duration` the one writer
    of their labels, the text a campaign spec carries)."""
    from . import validators

    return validators.duration(v, name)


def durations(v, name: str) -> tuple:
    """A non-empty list of distinct durations (:func:`duration`), in the given order."""
    if isinstance(v, (str, int)) or v is None:
        v = [v]
    if not isinstance(v, (list, tuple)) or not v:
        raise InputError(f"{name}: expected a non-empty list of durations (20h, none), got {v!r}")
    out = tuple(duration(x, f"{name}[{i}]") for i, x in enumerate(v))
    if len(set(out)) != len(out):
        raise InputError(f"{name}: {list(v)} names one duration twice")
    return out


def number(low: float = -float("inf"), high: float = float("inf")):
    """A finite number in [low, high]."""
    from . import validators

    return lambda v, name: validators.number(v, name, low, high)
