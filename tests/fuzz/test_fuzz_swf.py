"""Fuzz target: the SWF reader (issue 17).

Each example writes jobs with :func:`schedlab.workloads.swf.write_swf` (plain or
compressed) and, most of the time, mutates the file: flipped bytes, tokens
replaced or inserted from a list of known troublemakers (2**53 + 1,
1.0000000000000001, -2**63, 5,000 digits, 1e-400, NUL, ';', CR ...), lines
deleted or duplicated, line ends changed, the compressed stream cut.  Then:

* unmutated: what is read equals what was written (round trip);
* mutated: :func:`read_swf` agrees with an exact reference reader
  (fuzz_inputs.ref_read): the same jobs, line numbers and comments, or an
  SWFFormatError at the same line and field, or an InputError naming the
  file when the stream cannot be decompressed; ``count_jobs`` and
  ``read_swf_header`` agree too;
* never an exception that is not schedlab's.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz_inputs import (RefError, Tally, WrongResult, budget, clean_error, ref_count, ref_decompress,
                         ref_read)
from schedlab.workloads import swf
from schedlab.errors import SchedlabError, SWFFormatError

TALLY = Tally("swf")
_tally = TALLY.fixture()

EDGE_INTS = [-1, 0, 1, 2**31 - 1, 2**31, 2**53 - 1, 2**53, 2**53 + 1, 2**62 + 3, 2**63 - 1, -(2**63 - 1)]
NASTY = ["9007199254740993", "1.0000000000000001", "0.99999999999999999", "-9223372036854775808",
         "9223372036854775807", "9223372036854775808", "1" * 5000, "1" + "0" * 30 + ".0", "1e-400", "1e400",
         "1e" + "9" * 30, "12.0", "1.5e1", "150e-1", "12.5", ".5", "5.", "-0", "+7", "nan", "inf", "0x10",
         "1_000", "--1", "1e", "e5", ".", "-", "+", ";", "; comment", "\x00", "\r", "\n", "\r\n", "\t",
         "\x0b", "\x0c", "\xa0", "\u00e9", "\ufeff", "", " ", "-1", "0"]

ints = st.one_of(st.integers(-1, 10**6), st.sampled_from(EDGE_INTS), st.integers(-(2**63 - 1), 2**63 - 1))
floats = st.one_of(st.sampled_from([-1.0, 0.0, 1.5, 142.0, 1e16, -0.0]),
                   st.floats(allow_nan=False, allow_infinity=False), st.integers(-1, 10**6).map(float))


@st.composite
def swf_fields(draw):
    n = draw(st.integers(0, 6))
    return {name: np.array(draw(st.lists(floats if name in swf.FLOAT_FIELDS else ints, min_size=n,
                                         max_size=n)), dtype=np.float64 if name in swf.FLOAT_FIELDS else np.int64)
            for name in swf.FIELDS}


mutation = st.tuples(st.sampled_from(["flip", "insert", "replace", "delete", "duplicate", "line-ends",
                                      "truncate"]),
                     st.floats(0, 1), st.sampled_from(NASTY), st.integers(1, 255))


def mutate(data: bytes, kind: str, where: float, token: str, k: int) -> bytes:
    if not data and kind != "insert":
        return data
    i = min(int(where * len(data)), max(len(data) - 1, 0))
    tok = token.encode("utf-8")
    if kind == "flip":
        return data[:i] + bytes([data[i] ^ k]) + data[i + 1:]
    if kind == "insert":
        return data[:i] + tok + data[i:]
    if kind == "replace":    # the whitespace-delimited token around i
        spans = [m.span() for m in re.finditer(rb"\S+", data)]
        if not spans:
            return data
        a, b = min(spans, key=lambda s: abs(s[0] - i))
        return data[:a] + tok + data[b:]
    if kind == "delete":
        return data[:i] + data[i + k % 20 + 1:]
    if kind == "duplicate":
        lines = data.split(b"\n")
        j = min(int(where * len(lines)), len(lines) - 1)
        return b"\n".join(lines[:j + 1] + lines[j:])
    if kind == "line-ends":
        return data.replace(b"\n", [b"\r", b"\r\n", b"\n\n"][k % 3])
    return data[:i]   # truncate


def header_parts(lines):
    return [part for line in lines for part in re.split("\r\n|\r|\n", line)]


def check(tmp_path, fields, header, suffix, where, mutations):
    path = tmp_path / f"x.swf{suffix}"
    swf.write_swf(path, fields, header)
    if not mutations:   # round trip
        try:
            t = swf.read_swf(path)
        except SchedlabError as exc:
            raise WrongResult(f"round trip: the written file is refused: {exc}") from None
        for name in swf.FIELDS:
            if t[name].dtype != fields[name].dtype or not np.array_equal(t[name], fields[name]):
                raise WrongResult(f"round trip: field {name} wrote {fields[name]!r}, read {t[name]!r}")
        if t.header_lines != header_parts(header):
            raise WrongResult(f"round trip: header {header!r} read as {t.header_lines!r}")
        if swf.count_jobs(path) != t.n or swf.read_swf_header(path)[1] != t.header_lines:
            raise WrongResult("round trip: count_jobs or read_swf_header disagree")
        return "accepted"
    raw = path.read_bytes()
    plain = swf._read_bytes(path) if where == "text" else raw
    if where == "text":
        for m in mutations:
            plain = mutate(plain, *m)
        comp = {"": lambda b: b, ".gz": lambda b: gzip.compress(b, mtime=0), ".bz2": bz2.compress,
                ".xz": lzma.compress}[suffix]
        raw = comp(plain)
    else:
        for m in mutations:
            raw = mutate(raw, *m)
    path.write_bytes(raw)
    content = ref_decompress(raw, suffix)
    try:
        t = swf.read_swf(path)
    except Exception as exc:   # noqa: BLE001
        outcome = clean_error(exc, path)
        if content is None:
            return outcome
        try:
            ref_read(content)
        except RefError as ref:
            if not isinstance(exc, SWFFormatError) or (exc.line, exc.field) != (ref.line, ref.field):
                raise WrongResult(f"reader: {exc}; reference: line {ref.line} field {ref.field}") from None
            return outcome
        raise WrongResult(f"refused a valid file: {exc}") from None
    if content is None:
        raise WrongResult("read a file the reference cannot decompress")
    try:
        comments, leading, rows, numbers = ref_read(content)
    except RefError as ref:
        raise WrongResult(f"accepted a file the reference refuses at line {ref.line} field {ref.field}") from None
    if t.lines.tolist() != numbers or t.header_lines != comments:
        raise WrongResult(f"line numbers or comments differ: {t.lines.tolist()} {numbers}")
    for j, name in enumerate(swf.FIELDS):
        want = np.array([r[j] for r in rows], dtype=np.float64 if name in swf.FLOAT_FIELDS else np.int64)
        if not np.array_equal(t[name], want):
            raise WrongResult(f"field {name}: read {t[name].tolist()}, exact {want.tolist()}")
    if swf.count_jobs(path) != ref_count(content) or swf.read_swf_header(path)[1] != leading:
        raise WrongResult("count_jobs or read_swf_header disagree with the reference")
    return "accepted"


@budget(200)
@given(fields=swf_fields(), header=st.lists(st.text(max_size=20), max_size=3),
       suffix=st.sampled_from(["", ".gz", ".bz2", ".xz"]), where=st.sampled_from(["text", "file"]),
       mutations=st.one_of(st.just([]), st.lists(mutation, min_size=1, max_size=4)))
def test_fuzz_swf_reader(tmp_path_factory, fields, header, suffix, where, mutations):
    TALLY.run(check, scratch(tmp_path_factory), fields, header, suffix, where, mutations)


def scratch(factory, _dirs={}):
    """One directory for every example (each overwrites its file)."""
    if "swf" not in _dirs:
        _dirs["swf"] = factory.mktemp("fuzz-swf")
    return _dirs["swf"]
