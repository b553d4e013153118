"""Reading parameter values: the readers every study parameter, campaign and
command line shares (pure Python: no compiled core needed).

A notebook's parameters arrive from papermill (``params/<profile>/*.yaml`` or
``-p name value`` on the command line), so a list may come as a Python list,
as the text of a YAML list (``"[KTH-SP2, CTC-SP2]"``) or as a comma-separated
string, and a number as a string.  These functions accept all of them and
raise :class:`~schedlab.errors.InputError` naming the parameter (``name``,
e.g. ``"traces"`` or ``"policies[2]"``) and what is wrong with its value.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import InputError
from .expr import Expr, is_expr
from .jobs import POLICIES, PYTHON_PREFIX, KeyFunction, Policy, parse_duration

__all__ = ["shown", "read_yaml", "scheduler_address", "as_list", "as_names", "trace_list", "trace_tuple", "integer", "optional_integer", "number", "choice", "choices", "boolean", "duration", "directory",
           "policy_names"]

#: The most characters of a bad value an error quotes.
SHOWN = 60


def shown(value, limit: int = SHOWN) -> str:
    """``value`` as an error quotes it: its ``repr`` cut to at most ``limit``
    characters (with its length when it was cut), built without ever
    forming the whole ``repr`` of a huge value."""
    import reprlib

    r = reprlib.Repr()
    r.maxstring = r.maxother = limit
    r.maxlist = r.maxtuple = r.maxdict = r.maxset = 8
    r.maxlevel = 3
    text = r.repr(value)
    size = len(value) if isinstance(value, (str, bytes)) else None
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return f"{text} ({size} characters)" if size is not None and size > limit else text


def _no_alias_loader():
    """YAML's safe loader without aliases: ``*name`` repeats a node without
    writing it again, so nine-wide aliases eight deep expand a few hundred
    bytes into 43 million items.  Without them a value is at most as big as
    its text."""
    import yaml

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise InputError(f"line {event.start_mark.line + 1}, column {event.start_mark.column + 1}: "
                                 f"YAML aliases (*{event.anchor[:20]}) are not accepted: write the value "
                                 f"out")
            return super().compose_node(parent, index)

    return NoAliases


def read_yaml(text: str, where: str):
    """The value of YAML ``text`` (a parameter file, a ``--set`` value, a
    list parameter), read safely and bounded: no aliases, no nesting deeper
    than Python's recursion allows; an error names ``where``.  The one YAML
    reader of the library (tests/test_hardening_bounds.py)."""
    import yaml

    try:
        return yaml.load(text, Loader=_no_alias_loader())       # noqa: S506 -- a SafeLoader subclass
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    except RecursionError:
        raise InputError(f"{where}: nested too deeply") from None


_ADDRESS = None


def scheduler_address(value, name: str = "--scheduler") -> str:
    """A dask scheduler's address, ``HOST:PORT`` or ``tcp://``, ``tls://``,
    ``ws://``, ``wss://`` or ``ucx://`` before it (a host name, an IPv4
    address or an IPv6 one in brackets; a port 1-65535), or an in-process
    cluster's ``inproc://...``, checked here before dask reads it (dask's
    parser raises a bare ValueError on ``bogus``)."""
    import re

    global _ADDRESS
    if _ADDRESS is None:
        _ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|"
                              r"\[[0-9A-Fa-f:.]{2,45}\]):([0-9]{1,5})|inproc://[A-Za-z0-9./:-]{1,200}")
    m = _ADDRESS.fullmatch(value) if isinstance(value, str) else None
    if m is None or (m.group(1) is not None and not 1 <= int(m.group(1)) <= 65535):
        raise InputError(f"{name}: expected a dask scheduler's address HOST:PORT or tcp://HOST:PORT "
                         f"(e.g. tcp://10.0.0.5:8786), got {shown(value)}")
    return value


#: Words that, as the whole text of a list parameter, mean "no items" when
#: the caller allows it (``as_list(..., none_is_empty=True)``).
NONE_WORDS = ("none", "null", "[]", "")


def as_list(value, name: str, none_is_empty: bool = False) -> list:
    """A list from a list or tuple, the text of a YAML list, a comma-separated
    string (unless it names an existing file: a path may hold a comma) or a
    single value; ``None`` is the empty list, and so are the words ``none``,
    ``null`` and ``[]`` when ``none_is_empty``."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, os.PathLike):
        return [value]
    if isinstance(value, str):
        text = value.strip()
        if none_is_empty and text.lower() in NONE_WORDS:
            return []
        if text.startswith("["):
            import yaml
            try:
                parsed = read_yaml(text, name)
            except yaml.YAMLError as exc:
                raise InputError(f"{name}: cannot read {shown(text)} as a list: {exc}") from None
            if not isinstance(parsed, list):
                raise InputError(f"{name}: {shown(text)} is not a list")
            return parsed
        if "," in text and not Path(text).expanduser().exists():
            return [part.strip() for part in text.split(",") if part.strip()]
        return [text] if text else []
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return [value]
    raise InputError(f"{name}: expected a list, got {type(value).__name__} {shown(value)}")


def as_names(value, name: str, none_is_empty: bool = False) -> list[str]:
    """:func:`as_list` of names: each item a text (a number is read as its
    text); a nested list or a mapping where a name is expected is refused,
    naming its place (``optimisers[0]: expected a name, got []``)."""
    out = []
    for i, item in enumerate(as_list(value, name, none_is_empty)):
        if isinstance(item, bool) or not isinstance(item, (str, int, float, np.integer, np.floating)):
            raise InputError(f"{name}[{i}]: expected a name, got {shown(item)}")
        out.append(str(item))
    return out


def integer(value, name: str, low: int = 1) -> int:
    """An integer >= ``low`` from an int, an integral float or their text."""
    v = None
    if not isinstance(value, bool):
        if isinstance(value, (int, np.integer)):
            v = int(value)
        elif isinstance(value, (float, np.floating, str)):
            try:
                f = float(value)
            except ValueError:
                f = math.nan
            if math.isfinite(f) and f.is_integer():
                v = int(f)
    if v is None or v < low:
        raise InputError(f"{name}: expected an integer >= {low}, got {shown(value)}")
    return v


def optional_integer(value, name: str, low: int = 1, none_words: Sequence[str] = ("none", "null", "")) -> int | None:
    """:func:`integer`, or ``None`` for ``None`` and the ``none_words``."""
    if value is None or (isinstance(value, str) and value.strip().lower() in none_words):
        return None
    return integer(value, name, low)


def number(value, name: str, low: float = -math.inf, high: float = math.inf, *,
           low_open: bool = False, high_open: bool = False) -> float:
    """A finite float in the interval [low, high] (ends open as asked)."""
    lo, hi = ("(" if low_open else "["), (")" if high_open else "]")
    what = f"a number in {lo}{low}, {high}{hi}"
    if isinstance(value, bool):
        raise InputError(f"{name}: expected {what}, got {shown(value)}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected {what}, got {shown(value)}") from None
    if not math.isfinite(v) or v < low or v > high or (low_open and v == low) or (high_open and v == high):
        raise InputError(f"{name}: expected {what}, got {shown(value)}")
    return v


def boolean(value, name: str) -> bool:
    """True or false from a bool or its text (true/false, yes/no, 1/0)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    raise InputError(f"{name}: expected true or false, got {shown(value)}")


def choice(value, name: str, allowed: Sequence[str]) -> str:
    """One of ``allowed`` (surrounding blanks ignored)."""
    if not isinstance(value, str) or value.strip() not in allowed:
        raise InputError(f"{name}: expected one of {list(allowed)}, got {shown(value)}")
    return value.strip()


def choices(value, name: str, allowed: Sequence[str]) -> tuple[str, ...]:
    """Some of ``allowed`` (at least one, no repeats, case-insensitive), in
    the canonical order of ``allowed``."""
    items = [x.strip().lower() for x in as_names(value, name)]
    if not items:
        raise InputError(f"{name}: give at least one of {', '.join(allowed)}")
    bad = [x for x in items if x not in allowed]
    if bad:
        raise InputError(f"{name}: unknown value(s) {bad}; expected some of {', '.join(allowed)}")
    if len(set(items)) != len(items):
        raise InputError(f"{name}: duplicate values in {items}")
    return tuple(x for x in allowed if x in items)


def duration(value, name: str) -> int | None:
    """A duration in seconds (``"40h"``, ``72000``, ``"2.31d"``) or ``None``
    for none (:func:`schedlab.jobs.parse_duration`)."""
    if isinstance(value, bool):
        raise InputError(f"{name}: expected a duration such as 40h, 200000 or none, got {shown(value)}")
    try:
        return parse_duration(value)
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None


def directory(value, name: str, default: Path) -> Path:
    """An absolute directory path (created later by whoever writes there);
    ``None`` or blank gives ``default``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{name}: expected a directory path or None, got {shown(value)}")
    path = Path(os.fspath(value)).expanduser().resolve()
    if path.exists() and not path.is_dir():
        raise InputError(f"{name}: {path} exists and is not a directory")
    return path


def _policy_list(value, name: str, expressions: bool) -> list[str]:
    """Queue orders of both queues, canonical, each once: pure policy names,
    and policy expressions (as ``str(Expr)``) when ``expressions``."""
    want = "a policy name, 'expr:<expression>' or 'py:module:name'" if expressions else "a policy name such as 'SPF'"
    need = "a pure queue policy or an expression" if expressions else "a pure queue policy"
    out: list[str] = []
    for i, item in enumerate(as_list(value, name, none_is_empty=True)):
        if not isinstance(item, str):
            raise InputError(f"{name}[{i}]: expected {want}, got {shown(item)}")
        try:
            canon = Policy(item, item).primary
        except InputError as exc:
            raise InputError(f"{name}[{i}]: {exc}") from None
        if expressions and isinstance(canon, Expr):
            canon = str(canon)
        elif expressions and isinstance(canon, KeyFunction) and item.strip().startswith(PYTHON_PREFIX):
            canon = item.strip()        # py:module:name, loaded again where it runs
        if not isinstance(canon, str) or not (canon in POLICIES or (expressions and (
                is_expr(canon) or canon.startswith(PYTHON_PREFIX)))):
            raise InputError(f"{name}[{i}]: {need} is needed here, got {shown(item)}")
        if canon in out:
            raise InputError(f"{name}: {shown(item)} is listed twice (as {canon})")
        out.append(canon)
    return out


def _with_baseline(out: list[str], name: str, baseline: str | None) -> tuple[str, ...]:
    """``out``; with ``baseline`` (e.g. "the baseline of Table 6.6"), FCFS
    must be among them and at least one other policy."""
    if baseline is not None:
        if "FCFS" not in out:
            raise InputError(f"{name}: must include FCFS, {baseline} (got {out})")
        if len(out) < 2:
            raise InputError(f"{name}: give FCFS and at least one other policy, got {out}")
    return tuple(out)


def policy_specs(value, name: str, baseline: str | None = None) -> tuple[str, ...]:
    """Queue orders of both queues given as names, policy expressions
    (``"SPF"``, ``"expr:wait / req + procs / m"``) or Python key functions
    (``"py:module:name"``, imported here to check it, and again by each
    worker), canonical (``schedlab.expr.Expr``'s text for an expression),
    each once; with
    ``baseline``, FCFS among them and another (:func:`_with_baseline`)."""
    return _with_baseline(_policy_list(value, name, expressions=True), name, baseline)


def policy_names(value, name: str, baseline: str | None = None) -> tuple[str, ...]:
    """Pure queue policy names (``"SPF"``, ``"lexp"`` ...), canonical, each
    once; with ``baseline``, FCFS among them and another (:func:`_with_baseline`)."""
    return _with_baseline(_policy_list(value, name, expressions=False), name, baseline)

