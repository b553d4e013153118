"""Hardening of the inputs (issue 17): the SWF reader, the campaign cache and
spec loader, the command line's errors.  Each test reproduces a defect the
fuzzing found (it failed before the fix)."""
from __future__ import annotations

import bz2
import gzip
import lzma

import numpy as np
import pytest

from schedlab import swf
from schedlab.errors import InputError, SchedlabError, SWFFormatError

BASE = [1, 0, 5, 10, 1, -1, -1, 1, 20, -1, 1, 1, 1, -1, -1, -1, -1, -1]


def row(**values) -> str:
    r = [str(v) for v in BASE]
    for k, v in values.items():
        r[swf.FIELDS.index(k)] = str(v)
    return " ".join(r) + "\n"


def write(tmp_path, text: str, name: str = "x.swf"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------- SWF: integers --

@pytest.mark.parametrize("other", ["", row(run="10.0"), row(avg_cpu="1.5", run="7e1")])
def test_integers_beyond_2_53_are_read_exactly_whatever_the_other_lines(tmp_path, other):
    t = swf.read_swf(write(tmp_path, row(submit=2**53 + 1, job_id=2**62 + 3) + other))
    assert t["submit"][0] == 2**53 + 1 and t["job_id"][0] == 2**62 + 3


@pytest.mark.parametrize("token", ["1.0000000000000001", "0.99999999999999999", "1e-400",
                                   "100000000000000000000.5e-1"])
@pytest.mark.parametrize("other", ["", row(run="10.0")])
def test_a_token_not_exactly_integral_is_refused_in_an_integer_field(tmp_path, token, other):
    with pytest.raises(SWFFormatError, match="not an integer") as info:
        swf.read_swf(write(tmp_path, other + row(run=token)))
    assert (info.value.line, info.value.field) == (2 if other else 1, "run")


@pytest.mark.parametrize("token, value", [("12.0", 12), ("1.5e1", 15), ("150e-1", 15), ("+0.0e-999", 0),
                                          ("9007199254740993.000", 2**53 + 1),
                                          ("922337203685477580.7e1", 2**63 - 1), ("-00012", -12)])
def test_exactly_integral_forms_are_read_exactly(tmp_path, token, value):
    t = swf.read_swf(write(tmp_path, row(run=token) + row()))
    assert t["run"].tolist() == [value, 10]


@pytest.mark.parametrize("other", ["", row(), row(run="10.0"), row(run="abc")])
def test_int64_min_is_refused_whatever_the_other_lines(tmp_path, other):
    with pytest.raises(SWFFormatError, match="out of range") as info:
        swf.read_swf(write(tmp_path, row(submit=-2**63) + other))
    assert (info.value.line, info.value.field) == (1, "submit")


@pytest.mark.parametrize("token", ["1" * 4400, "1" * 5000 + ".0", "1e" + "9" * 5000, "1e-" + "9" * 5000])
def test_numbers_of_thousands_of_digits_give_a_located_error(tmp_path, token):
    with pytest.raises(SWFFormatError) as info:
        swf.read_swf(write(tmp_path, row() + row(req_time=token)))
    assert (info.value.line, info.value.field) == (2, "req_time")
    assert len(str(info.value)) < 300


def test_a_huge_bad_token_is_not_copied_into_the_error(tmp_path):
    with pytest.raises(SWFFormatError) as info:
        swf.read_swf(write(tmp_path, row() + row(user="x" * 2_000_000)))
    msg = str(info.value)
    assert len(msg) < 300 and "2000000 bytes" in msg and (info.value.line, info.value.field) == (2, "user")


# -------------------------------------------------- SWF: compressed files --

@pytest.mark.parametrize("suffix, compress", [(".bz2", bz2.compress), (".gz", gzip.compress),
                                              (".xz", lzma.compress)])
@pytest.mark.parametrize("cut", [1, 30, 200])
def test_truncated_compressed_files_give_an_error_naming_the_file(tmp_path, suffix, compress, cut):
    data = compress(("; MaxProcs: 4\n" + "".join(row(job_id=i, submit=7 * i) for i in range(3000))).encode())
    assert len(data) > 1000
    p = tmp_path / f"x.swf{suffix}"
    p.write_bytes(data[:-cut])
    for reader in (swf.read_swf, swf.count_jobs):
        with pytest.raises(InputError, match="cannot decompress") as info:
            reader(p)
        assert str(p) in str(info.value)
    try:   # the header alone may be readable from a truncated file
        header, _ = swf.read_swf_header(p)
    except InputError as exc:
        assert str(p) in str(exc)
    else:
        assert header == {"MaxProcs": "4"}


def test_header_reader_splits_lines_as_the_reader_does(tmp_path):
    p = tmp_path / "mac.swf"
    p.write_bytes(b"; MaxProcs: 4\r; Note: old Mac line ends\r" + row().encode().replace(b"\n", b"\r"))
    assert swf.read_swf_header(p)[0] == swf.read_swf(p).header == {"MaxProcs": "4", "Note": "old Mac line ends"}
