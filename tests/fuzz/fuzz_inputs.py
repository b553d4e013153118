"""Shared by the fuzz targets of the inputs (issue 17): the budget, the
outcome tally, and an exact reference reader of SWF.

Budget: each fuzz test runs ``$SCHEDLAB_FUZZ_EXAMPLES`` examples (``make
fuzz``), else its small default (``make test``: seconds).  Hypothesis runs
derandomized (tests/conftest.py), so a budget always runs the same inputs.

Outcomes: every input is one of *accepted* (the invariants hold), *clean
error* (a :class:`~schedlab.errors.SchedlabError` that names the file),
*raw exception* (anything else) or *wrong result* (accepted, but an
invariant fails, or an error where the reference accepts).  A raw exception
or a wrong result fails the test -- unless ``$SCHEDLAB_FUZZ_COUNT`` names a
file: then every input is classified, nothing fails, and each target
appends its counts to that file as one JSON line (to measure a code base,
e.g. before a fix).
"""
from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import re
import traceback
import zlib
from collections import Counter
from decimal import Context, Decimal

from hypothesis import HealthCheck, settings

from schedlab.errors import SchedlabError
from schedlab.workloads.swf import FIELDS, FLOAT_FIELDS, N_FIELDS

BUDGET_ENV = "SCHEDLAB_FUZZ_EXAMPLES"
COUNT_ENV = "SCHEDLAB_FUZZ_COUNT"


def budget(default: int) -> settings:
    """Hypothesis settings of a fuzz test: ``$SCHEDLAB_FUZZ_EXAMPLES`` examples, else ``default``."""
    n = int(os.environ.get(BUDGET_ENV) or default)
    return settings(max_examples=n, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


class WrongResult(AssertionError):
    """An input was accepted but an invariant fails (or refused while valid)."""


class Tally:
    """Counts of the outcomes of one fuzz target (see the module's docstring)."""

    def __init__(self, target: str):
        self.target = target
        self.counts = Counter()
        self.samples: dict[str, list[str]] = {}
        self.counting = bool(os.environ.get(COUNT_ENV))

    def fixture(self):
        """A module fixture (assign it to a name in the test module) that
        appends the counts to ``$SCHEDLAB_FUZZ_COUNT`` after the module's tests."""
        import pytest

        @pytest.fixture(scope="module", autouse=True)
        def _dump_tally():
            yield
            if self.counting:
                self.dump()
        return _dump_tally

    def run(self, check, *args) -> None:
        """Run ``check(*args)`` on one input and classify it: ``check``
        returns "accepted" or "clean error", raises WrongResult, or raises
        anything else (a raw exception)."""
        self.counts["inputs"] += 1
        try:
            outcome = check(*args)
        except WrongResult as exc:
            self._record("wrong results", exc)
            return
        except Exception as exc:   # noqa: BLE001 -- the point: anything not schedlab's own
            self._record("raw exceptions", exc)
            return
        self.counts[outcome] += 1

    def _record(self, kind: str, exc: BaseException) -> None:
        self.counts[kind] += 1
        if not self.counting:
            raise exc
        shown = "".join(traceback.format_exception(exc)[-3:]).strip()[-500:]
        self.samples.setdefault(kind, [])
        if len(self.samples[kind]) < 5 and shown not in self.samples[kind]:
            self.samples[kind].append(shown)

    def dump(self) -> None:
        if not self.counts:
            return
        line = {"target": self.target, **{k: self.counts[k] for k in
                ("inputs", "accepted", "clean error", "raw exceptions", "wrong results")},
                "samples": self.samples}
        with open(os.environ[COUNT_ENV], "a") as fh:
            fh.write(json.dumps(line) + "\n")


def clean_error(exc: BaseException, path) -> str:
    """An expected refusal: a schedlab error naming the file, of bounded length."""
    if not isinstance(exc, SchedlabError):
        raise exc
    text = str(exc)
    if str(path) not in text:
        raise WrongResult(f"error without the file's name: {text[:200]!r}")
    if len(text) > 2000:
        raise WrongResult(f"error of {len(text)} characters")
    return "clean error"


# ----------------------------------------------------- reference SWF reader --
# Written from the format's description (schedlab.workloads.swf's docstring), not from
# the reader's code: plain Python, exact decimals, no fast path.

_GRAMMAR = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MAGIC = {b"\x1f\x8b": gzip.decompress, b"BZh": bz2.decompress, b"\xfd7zXZ\x00": lzma.decompress}
I64 = 2**63 - 1
_EXACT = Context(prec=100_000, Emax=10**9, Emin=-(10**9))   # exact for every token the fuzzer makes


class RefError(Exception):
    def __init__(self, line, field):
        super().__init__(f"line {line} field {field}")
        self.line, self.field = line, field


def ref_decompress(raw: bytes, suffix: str) -> bytes | None:
    """The file's content, or None when it cannot be decompressed."""
    for magic, decompress in _MAGIC.items():
        if raw.startswith(magic):
            try:
                return decompress(raw)
            except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
                return None
    if suffix in (".gz", ".bz2", ".xz") and raw:
        return None
    return raw


def ref_value(tok: bytes, field: str, line: int):
    if not _GRAMMAR.fullmatch(tok):
        raise RefError(line, field)
    if field in FLOAT_FIELDS:
        v = float(tok)
        if v in (float("inf"), float("-inf")):
            raise RefError(line, field)
        return v
    mantissa, _, exponent = tok.decode("ascii").lower().partition("e")
    m = Decimal(mantissa)
    if m == 0:
        return 0
    e = exponent.lstrip("+-").lstrip("0")
    if len(e) > 7:   # |exponent| >= 1e7: far beyond int64 or below 1 (m != 0)
        raise RefError(line, field)
    d = m.scaleb(int(exponent or "0"), context=_EXACT)
    if d != d.to_integral_value(context=_EXACT) or abs(d) > I64:
        raise RefError(line, field)
    return int(d)


def ref_read(data: bytes):
    """(comment texts, leading comment texts, rows, line numbers) of SWF
    content; RefError(line, field) on the first bad line."""
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    comments, leading, rows, numbers = [], None, [], []
    for i, line in enumerate(data.split(b"\n"), start=1):
        s = line.strip()
        if not s:
            continue
        if s.startswith(b";"):
            text = line.lstrip()[1:]
            text = text[1:] if text[:1] == b" " else text
            comments.append(text.decode("utf-8", errors="surrogateescape"))
            continue
        if leading is None:
            leading = list(comments)
        toks = line.split()
        if len(toks) != N_FIELDS:
            raise RefError(i, FIELDS[len(toks)] if len(toks) < N_FIELDS else None)
        rows.append([ref_value(t, f, i) for t, f in zip(toks, FIELDS)])
        numbers.append(i)
    return comments, (comments if leading is None else leading), rows, numbers


def ref_count(data: bytes) -> int:
    """Non-blank, non-comment lines."""
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    return sum(1 for line in lines if line.strip() and not line.strip().startswith(b";"))
