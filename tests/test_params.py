"""The parameter readers every study's ``validate`` shares (papermill hands
lists as YAML text or comma-separated strings, numbers as strings)."""
from pathlib import Path

import pytest

from schedlab.errors import InputError
from schedlab import values as check


def test_as_list_reads_every_form_papermill_passes(tmp_path):
    assert check.as_list(None, "x") == []
    assert check.as_list(["a", "b"], "x") == ["a", "b"]
    assert check.as_list(("a",), "x") == ["a"]
    assert check.as_list("[KTH-SP2, CTC-SP2]", "x") == ["KTH-SP2", "CTC-SP2"]
    assert check.as_list(" a, b ,,c ", "x") == ["a", "b", "c"]
    assert check.as_list("single", "x") == ["single"]
    assert check.as_list(3, "x") == [3]
    assert check.as_list("none", "x") == ["none"]              # a value, e.g. the threshold "none"
    assert check.as_list("none", "x", none_is_empty=True) == []
    odd = tmp_path / "a,b.swf"                                  # a path with a comma is one item
    odd.write_text("")
    assert check.as_list(str(odd), "x") == [str(odd)]
    assert check.as_list(Path(odd), "x") == [Path(odd)]
    with pytest.raises(InputError, match=r"traces: cannot read"):
        check.as_list("[KTH-SP2", "traces")


def test_as_list_rejects_mappings():
    with pytest.raises(InputError, match="x: expected a list, got dict"):
        check.as_list({"a": 1}, "x")


@pytest.mark.parametrize("value,expect", [(3, 3), ("3", 3), (" 7 ", 7), (4.0, 4), ("5.0", 5)])
def test_integer_accepts(value, expect):
    assert check.integer(value, "n") == expect


@pytest.mark.parametrize("value", [True, 2.5, "2.5", "x", None, 0, "-1", float("nan")])
def test_integer_rejects_with_the_name(value):
    with pytest.raises(InputError, match=r"^n: expected an integer >= 1"):
        check.integer(value, "n")


def test_optional_integer_and_number():
    assert check.optional_integer(None, "w") is None
    assert check.optional_integer("null", "w") is None
    assert check.optional_integer("12", "w") == 12
    assert check.number("0.5", "eps", 0.0, 1.0) == 0.5
    assert check.number(1, "eps", 0.0, 1.0) == 1.0
    with pytest.raises(InputError, match=r"noise: expected a number in \[0.0, 1.0\)"):
        check.number(1.0, "noise", 0.0, 1.0, high_open=True)
    with pytest.raises(InputError, match="eta"):
        check.number("inf", "eta", 0.0)


def test_choices_duration_directory(tmp_path):
    assert check.choices("week, day", "periods", ("day", "week")) == ("day", "week")
    with pytest.raises(InputError, match="duplicate"):
        check.choices(["day", "DAY"], "periods", ("day", "week"))
    with pytest.raises(InputError, match="unknown value"):
        check.choices("month", "periods", ("day", "week"))
    assert check.choice(" b ", "k", ("a", "b")) == "b"
    assert check.duration("40h", "threshold") == 144000
    assert check.duration(None, "threshold") is None
    with pytest.raises(InputError, match="^threshold: "):
        check.duration(True, "threshold")
    assert check.directory(None, "outdir", tmp_path) == tmp_path
    f = tmp_path / "file"
    f.write_text("")
    with pytest.raises(InputError, match="outdir: .* is not a directory"):
        check.directory(str(f), "outdir", tmp_path)


def test_as_record_is_json_friendly(tmp_path):
    import json
    from dataclasses import dataclass

    from schedlab import traces

    @dataclass
    class P:
        traces: tuple
        one: object
        policies: tuple
        outdir: Path
        n: int

    rec = check.as_record(P((traces.resolve("KTH-SP2"),), traces.resolve("CTC-SP2"), ("FCFS", "SPF"), tmp_path, 3))
    assert rec == {"traces": ["KTH-SP2"], "one": "CTC-SP2", "policies": ["FCFS", "SPF"], "outdir": str(tmp_path), "n": 3}
    json.dumps(rec)
