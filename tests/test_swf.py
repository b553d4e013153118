"""Tests of schedlab.workloads.swf: reading, writing and the errors of bad SWF files."""
from __future__ import annotations

import bz2
import csv
import gzip
import io
import itertools
import os
import re
import stat
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab import paths
from schedlab.workloads import swf
from schedlab.errors import InputError, SWFFormatError
from schedlab.workloads.swf import FIELDS, read_swf, write_swf

HEADER = [
    "Version: 2.2",
    "Computer: Test machine",
    "MaxNodes: 64",
    "MaxProcs: 338 (batch partition; 512 total)",
    "UnixStartTime: 835823160",
    "TimeZoneString: US/Eastern",
    "Note: first note",
    "Note: second note",
    "",
    "a comment line without a colon",
    "Information: http://example.org/",
    "             http://www.cs.huji.ac.il/labs/parallel/workload/",
]


def _fields(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out = {}
    for name in FIELDS:
        if name in swf.FLOAT_FIELDS:
            v = np.round(rng.uniform(0, 5000, n), 2)
            v[rng.random(n) < 0.3] = -1.0
            v[::7] = np.floor(v[::7])  # some integral floats
        else:
            v = rng.integers(-1, 10**6, n, dtype=np.int64)
        out[name] = v
    out["job_id"] = np.arange(1, n + 1, dtype=np.int64)
    out["submit"] = np.cumsum(rng.integers(0, 600, n)).astype(np.int64)
    out["submit"][0] = 2**40  # wide values survive too
    return out


def _line(values) -> str:
    return " ".join(str(v) for v in values)


def _plain_job(job_id: int = 1) -> list[str]:
    return [str(job_id), "0", "5", "100", "4", "-1", "-1", "4", "200", "-1",
            "1", "1", "1", "-1", "1", "-1", "-1", "-1"]


def _write_text(path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n")


def test_fields_tuple():
    assert FIELDS == (
        "job_id", "submit", "wait", "run", "alloc_procs", "avg_cpu", "used_mem",
        "req_procs", "req_time", "req_mem", "status", "user", "group", "app",
        "queue", "partition", "preceding_job", "think_time")
    assert swf.FLOAT_FIELDS == {"avg_cpu", "used_mem"}


@pytest.mark.parametrize("suffix", [".swf", ".swf.gz", ".swf.bz2"])
def test_round_trip(tmp_path, suffix):
    fields = _fields(500)
    path = tmp_path / f"t{suffix}"
    write_swf(path, fields, HEADER)
    raw = path.read_bytes()
    text = {".swf": lambda b: b, ".swf.gz": gzip.decompress, ".swf.bz2": bz2.decompress}[suffix](raw)
    if suffix != ".swf":
        assert raw != text  # really compressed, readable by the standard tools
    assert text.startswith(b"; Version: 2.2\n")
    assert len(text.splitlines()) == len(HEADER) + 500
    t = read_swf(path)
    assert t.n == len(t) == 500
    for name in FIELDS:
        expected_dtype = np.float64 if name in swf.FLOAT_FIELDS else np.int64
        assert t[name].dtype == expected_dtype, name
        np.testing.assert_array_equal(t[name], fields[name], err_msg=name)
    assert t.header_lines == HEADER
    np.testing.assert_array_equal(t.lines, np.arange(len(HEADER) + 1, len(HEADER) + 501))
    # write back what was read: identical arrays and identical bytes
    path2 = tmp_path / f"u{suffix}"
    write_swf(path2, t.fields, t.header_lines)
    t2 = read_swf(path2)
    for name in FIELDS:
        np.testing.assert_array_equal(t2[name], t[name], err_msg=name)
    assert t2.header == t.header
    assert path2.read_bytes() == raw


def test_compression_detected_by_magic_bytes(tmp_path):
    fields = _fields(20)
    write_swf(tmp_path / "a.swf.gz", fields)
    write_swf(tmp_path / "b.swf.bz2", fields)
    (tmp_path / "a.swf").write_bytes((tmp_path / "a.swf.gz").read_bytes())
    (tmp_path / "b.data").write_bytes((tmp_path / "b.swf.bz2").read_bytes())
    for name in ("a.swf", "b.data"):
        np.testing.assert_array_equal(read_swf(tmp_path / name)["submit"], fields["submit"])


def test_written_file_is_plain_swf(tmp_path):
    path = write_swf(tmp_path / "x.swf", {"job_id": [1, 2], "run": [10, 20],
                                          "avg_cpu": [1.5, float("nan")]},
                     ["MaxProcs: 8", ""])
    text = path.read_text().splitlines()
    assert text[:2] == ["; MaxProcs: 8", ";"]
    rows = [line.split() for line in text[2:]]
    assert rows[0] == ["1", "-1", "-1", "10", "-1", "1.5", "-1"] + ["-1"] * 11
    assert rows[1][5] == "-1" and rows[1][3] == "20"
    assert all(len(r) == 18 for r in rows)
    t = read_swf(path)
    assert t["wait"].tolist() == [-1, -1]
    assert t["avg_cpu"].tolist() == [1.5, -1.0]


def test_write_is_atomic_and_rejects_bad_input(tmp_path):
    path = tmp_path / "x.swf"
    write_swf(path, {"job_id": [1]})
    before = path.read_bytes()
    with pytest.raises(InputError, match="integral"):
        write_swf(path, {"run": [1.5]})
    with pytest.raises(InputError, match="unknown"):
        write_swf(path, {"runtime": [1]})
    with pytest.raises(InputError, match="lengths"):
        write_swf(path, {"run": [1, 2], "wait": [1]})
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["x.swf"]  # no temporary file left
    write_swf(path, {"job_id": [7]})
    assert read_swf(path)["job_id"].tolist() == [7]
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600


def test_integral_float_column_written_as_integers(tmp_path):
    path = write_swf(tmp_path / "x.swf", {"run": np.array([3.0, -1.0]),
                                          "used_mem": np.array([2.0, 123456789.25])})
    rows = [line.split() for line in path.read_text().splitlines()]
    assert [r[3] for r in rows] == ["3", "-1"]
    assert [r[6] for r in rows] == ["2", "123456789.25"]


def test_header_parsing(tmp_path):
    path = tmp_path / "h.swf"
    _write_text(path, [";" + ("" if not h else " " + h) for h in HEADER]
                + [";Preemption: No", ";\tsee: http://x.org/", _line(_plain_job())])
    t = read_swf(path)
    assert t.max_procs == 338
    assert t.max_nodes == 64
    assert t.unix_start_time == 835823160
    assert t.time_zone_string == "US/Eastern"
    assert t.header["MaxProcs"] == "338 (batch partition; 512 total)"
    assert t.header["Note"] == "first note\nsecond note"
    assert t.header["Preemption"] == "No"  # no blank after ';'
    assert t.header["Information"] == "http://example.org/"
    assert "see" not in t.header and "http" not in t.header  # indented: raw comments
    assert list(t.header)[:3] == ["Version", "Computer", "MaxNodes"]
    assert "a comment line without a colon" in t.header_lines
    assert "\tsee: http://x.org/" in t.header_lines
    assert t.lines.tolist() == [len(HEADER) + 3]
    assert swf.read_swf_header(path) == (t.header, t.header_lines)


@pytest.mark.parametrize("header, expected", [
    (["MaxNodes: 128"], 128),
    (["MaxProcs: -1", "MaxNodes: 16"], 16),
    (["MaxProcs:   400 (48 interactive)"], 400),
    (["Version: 2"], None),
])
def test_max_procs_fallbacks(tmp_path, header, expected):
    path = write_swf(tmp_path / "x.swf", {"job_id": [1]}, header)
    assert read_swf(path).max_procs == expected


def test_blank_and_comment_lines_are_counted(tmp_path):
    path = tmp_path / "x.swf"
    lines = ["; MaxProcs: 8", _line(_plain_job(1)), "", "   ", "; a late comment",
             _line(_plain_job(2)), "\t", _line(_plain_job(3))]
    _write_text(path, lines)
    t = read_swf(path)
    assert t["job_id"].tolist() == [1, 2, 3]
    assert t.lines.tolist() == [2, 6, 8]
    assert "a late comment" in t.header_lines


def test_crlf_and_tabs(tmp_path):
    path = tmp_path / "x.swf"
    path.write_bytes(b"; MaxProcs: 8\r\n" + b"\t".join(t.encode() for t in _plain_job(1))
                     + b"\r\n" + " ".join(_plain_job(2)).encode() + b"\r\n")
    t = read_swf(path)
    assert t["job_id"].tolist() == [1, 2]
    assert t.header["MaxProcs"] == "8"
    assert t.lines.tolist() == [2, 3]


def test_old_mac_line_ends(tmp_path):
    path = tmp_path / "x.swf"
    path.write_bytes(b"; MaxProcs: 8\r" + " ".join(_plain_job(1)).encode() + b"\r"
                     + " ".join(_plain_job(2)).encode() + b"\r")
    t = read_swf(path)
    assert t["job_id"].tolist() == [1, 2] and t.lines.tolist() == [2, 3]


def test_accepted_number_forms(tmp_path):
    job = _plain_job()
    job[3] = "12.0"   # integral value in an integer field
    job[8] = "+300"
    job[5] = "142.00"  # float fields
    job[6] = "1e3"
    path = tmp_path / "x.swf"
    _write_text(path, [_line(_plain_job(0)), _line(job)])
    t = read_swf(path)
    assert t["run"].tolist() == [100, 12]
    assert t["req_time"].tolist() == [200, 300]
    assert t["avg_cpu"].tolist() == [-1.0, 142.0]
    assert t["used_mem"].tolist() == [-1.0, 1000.0]


def test_empty_file(tmp_path):
    path = tmp_path / "x.swf"
    _write_text(path, ["; MaxProcs: 4"])
    t = read_swf(path)
    assert t.n == 0 and t["run"].dtype == np.int64 and t.max_procs == 4


def _bad_file(tmp_path, n_lines: int, bad_line: int, bad: list[str], header: int = 2):
    """A file of n_lines lines (header lines first) whose bad_line-th line is `bad`."""
    lines = [f"; Note: header {i}" for i in range(header)]
    lines += [_line(_plain_job(i)) for i in range(n_lines - header)]
    lines[bad_line - 1] = " ".join(bad)
    path = tmp_path / "bad.swf"
    _write_text(path, lines)
    return path


def _replace(i: int, token: str) -> list[str]:
    job = _plain_job(99)
    job[i] = token
    return job


BAD_LINES = [
    (_plain_job()[:17], "think_time", "17 fields"),
    (_plain_job()[:3], "run", "3 fields"),
    (_plain_job() + ["5"], None, "19 fields"),
    (_replace(FIELDS.index("req_time"), "abc"), "req_time", "not a number"),
    (_replace(FIELDS.index("run"), "12.5"), "run", "not an integer"),
    (_replace(FIELDS.index("submit"), "1e-3"), "submit", "not an integer"),
    (_replace(FIELDS.index("avg_cpu"), "nan"), "avg_cpu", "not a number"),
    (_replace(FIELDS.index("used_mem"), "1e999"), "used_mem", "out of range"),
    (_replace(FIELDS.index("job_id"), "99999999999999999999"), "job_id", "out of range"),
    (_replace(FIELDS.index("queue"), "1_000"), "queue", "not a number"),
    (_replace(FIELDS.index("think_time"), "-1;"), "think_time", "not a number"),
    (_replace(FIELDS.index("user"), "--1"), "user", "not a number"),
    (_replace(FIELDS.index("group"), "5."), "group", None),  # "5." is 5: valid
]


@pytest.mark.parametrize("bad, field, message", BAD_LINES)
@pytest.mark.parametrize("n_lines, bad_line", [(10, 7), (10, 3), (10, 10)])
def test_bad_line_is_located(tmp_path, bad, field, message, n_lines, bad_line):
    path = _bad_file(tmp_path, n_lines, bad_line, bad)
    if message is None:
        t = read_swf(path)
        assert t.n == n_lines - 2
        return
    with pytest.raises(SWFFormatError) as info:
        read_swf(path)
    err = info.value
    assert err.line == bad_line
    assert err.field == field
    assert err.path == str(path)
    assert message in str(err)
    assert f"{path}:{bad_line}" in str(err)


def test_bad_line_far_into_a_big_file(tmp_path):
    # beyond the first piece of the piecewise fallback, after a blank and a comment line
    n = 60_000
    lines = ["; MaxProcs: 8"] + [_line(_plain_job(i)) for i in range(n)]
    lines[30_000] = ""
    lines[30_001] = "; mid-file comment"
    lines[45_000] = _line(_replace(FIELDS.index("req_time"), "abc"))
    path = tmp_path / "big.swf.gz"
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    with pytest.raises(SWFFormatError) as info:
        read_swf(path)
    assert (info.value.line, info.value.field) == (45_001, "req_time")
    # the same file, valid but for an integral float: read by the fallback
    lines[45_000] = _line(_replace(FIELDS.index("run"), "7.0"))
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    t = read_swf(path)
    assert t.n == n - 2
    assert t["run"][45_000 - 3] == 7
    assert t.lines[45_000 - 3] == 45_001
    assert t.lines[-1] == n + 1
    assert t.lines[29_998] == 30_000 and t.lines[29_999] == 30_003


def test_corrupt_compressed_file(tmp_path):
    path = tmp_path / "x.swf.gz"
    path.write_bytes(b"\x1f\x8b" + b"\x00" * 30)
    with pytest.raises(InputError, match="decompress"):
        read_swf(path)


# -- the fast path must accept exactly what the line-by-line reference accepts

def test_numpy_token_grammar_matches_reference():
    """On the bytes the fast path lets through, numpy's readers accept a
    token exactly when the reference grammar does (every token of <= 4
    characters over the alphabet)."""
    mismatches = []
    for length in range(1, 5):
        for chars in itertools.product("01.+-eE", repeat=length):
            tok = "".join(chars).encode()
            for dtype, grammar in ((np.int64, swf._INTEGER), (np.float64, swf._NUMBER)):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("error")
                        np.loadtxt(io.BytesIO(tok + b" 1\n"), dtype=dtype, comments=None,
                                   ndmin=2, encoding="latin1")
                    accepted = True
                except (ValueError, Warning):
                    accepted = False
                if accepted != bool(grammar.fullmatch(tok)):
                    mismatches.append((tok, dtype))
    assert mismatches == []


_token = st.one_of(
    st.integers(-(10**6), 10**12).map(str),
    st.sampled_from(["-1", "0", "12.5", "12.0", "1e3", "+4", ".5", "5.", "abc", "nan",
                     "1e999", "-", "1.2.3", "9" * 20, "1e-3", "\u00a01", "0x10"]),
    st.text("0123456789.-+eE", min_size=1, max_size=6),
)
_row = st.one_of(st.lists(_token, min_size=18, max_size=18),
                 st.lists(st.integers(-1, 10**9).map(str), min_size=18, max_size=18),
                 st.lists(_token, min_size=16, max_size=19))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_row, min_size=1, max_size=6))
def test_fast_path_agrees_with_reference(tmp_path_factory, rows):
    body = ("\n".join(" ".join(r) for r in rows) + "\n").encode("utf-8")
    fast = swf._fast_parse(body)
    try:
        ref, numbers = swf._slow_parse("x", body, 1)
    except SWFFormatError as exc:
        assert fast is None, f"fast path accepted what the reference rejects: {exc}"
        path = tmp_path_factory.mktemp("h") / "x.swf"
        path.write_bytes(body)
        with pytest.raises(SWFFormatError) as info:
            read_swf(path)
        assert (info.value.line, info.value.field) == (exc.line, exc.field)
        return
    assert numbers.tolist() == list(range(1, len(rows) + 1))
    path = tmp_path_factory.mktemp("h") / "x.swf"
    path.write_bytes(body)
    t = read_swf(path)
    for name in FIELDS:
        np.testing.assert_array_equal(t[name], ref[name])
        if fast is not None:
            np.testing.assert_array_equal(fast[name], ref[name])


# -- the bundled traces

def _manifest() -> dict[str, dict[str, str]]:
    with open(paths.TRACES / "MANIFEST.tsv", newline="") as fh:
        return {row["file"]: row for row in csv.DictReader(fh, delimiter="\t")}


@pytest.mark.slow
@pytest.mark.parametrize("file", sorted(_manifest()))
def test_bundled_trace_job_counts(file):
    row = _manifest()[file]
    t = read_swf(paths.TRACES / file)
    assert t.n == int(row["jobs"])
    assert t.max_procs == int(row["maxprocs"])
    assert (np.diff(t.lines) >= 1).all()
    assert t.lines[-1] == t.lines[0] + t.n - 1  # no blank or comment line among jobs
    assert (t["job_id"] > 0).all()
    assert (np.diff(t["submit"]) >= 0).all()
    assert re.fullmatch(r"\d+", t.header["MaxProcs"].split()[0])
