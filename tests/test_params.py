"""The parameter readers every study's ``validate`` shares (papermill hands
lists as YAML text or comma-separated strings, numbers as strings)."""
from pathlib import Path

import pytest

from schedlab.errors import InputError
from schedlab import validators


def test_as_list_reads_every_form_papermill_passes(tmp_path):
    assert validators.as_list(None, "x") == []
    assert validators.as_list(["a", "b"], "x") == ["a", "b"]
    assert validators.as_list(("a",), "x") == ["a"]
    assert validators.as_list("[KTH-SP2, CTC-SP2]", "x") == ["KTH-SP2", "CTC-SP2"]
    assert validators.as_list(" a, b ,,c ", "x") == ["a", "b", "c"]
    assert validators.as_list("single", "x") == ["single"]
    assert validators.as_list(3, "x") == [3]
    assert validators.as_list("none", "x") == ["none"]              # a value, e.g. the threshold "none"
    assert validators.as_list("none", "x", none_is_empty=True) == []
    odd = tmp_path / "a,b.swf"                                  # a path with a comma is one item
    odd.write_text("")
    assert validators.as_list(str(odd), "x") == [str(odd)]
    assert validators.as_list(Path(odd), "x") == [Path(odd)]
    with pytest.raises(InputError, match=r"traces: cannot read"):
        validators.as_list("[KTH-SP2", "traces")


def test_as_list_rejects_mappings():
    with pytest.raises(InputError, match="x: expected a list, got dict"):
        validators.as_list({"a": 1}, "x")


@pytest.mark.parametrize("value,expect", [(3, 3), ("3", 3), (" 7 ", 7), (4.0, 4), ("5.0", 5)])
def test_integer_accepts(value, expect):
    assert validators.integer(value, "n") == expect


@pytest.mark.parametrize("value", [True, 2.5, "2.5", "x", None, 0, "-1", float("nan")])
def test_integer_rejects_with_the_name(value):
    with pytest.raises(InputError, match=r"^n: expected an integer >= 1"):
        validators.integer(value, "n")


def test_optional_integer_and_number():
    assert validators.optional_integer(None, "w") is None
    assert validators.optional_integer("null", "w") is None
    assert validators.optional_integer("12", "w") == 12
    assert validators.number("0.5", "eps", 0.0, 1.0) == 0.5
    assert validators.number(1, "eps", 0.0, 1.0) == 1.0
    with pytest.raises(InputError, match=r"noise: expected a number in \[0.0, 1.0\)"):
        validators.number(1.0, "noise", 0.0, 1.0, high_open=True)
    with pytest.raises(InputError, match="eta"):
        validators.number("inf", "eta", 0.0)


def test_choices_duration_directory(tmp_path):
    assert validators.choices("week, day", "periods", ("day", "week")) == ("day", "week")
    with pytest.raises(InputError, match="duplicate"):
        validators.choices(["day", "DAY"], "periods", ("day", "week"))
    with pytest.raises(InputError, match="unknown value"):
        validators.choices("month", "periods", ("day", "week"))
    assert validators.choice(" b ", "k", ("a", "b")) == "b"
    assert validators.duration("40h", "threshold") == 144000
    assert validators.duration(None, "threshold") is None
    with pytest.raises(InputError, match="^threshold: "):
        validators.duration(True, "threshold")
    assert validators.directory(None, "outdir", tmp_path) == tmp_path
    f = tmp_path / "file"
    f.write_text("")
    with pytest.raises(InputError, match="outdir: .* is not a directory"):
        validators.directory(str(f), "outdir", tmp_path)


def test_declared_values_are_json_friendly(tmp_path):
    """declared.plain (Params.record's): traces by name, tuples as lists, paths relative to the repository."""
    import json

    from schedlab import paths
    from schedlab.declared import plain
    from schedlab.workloads import traces

    rec = {k: plain(v) for k, v in {"traces": (traces.resolve("KTH-SP2"),), "one": traces.resolve("CTC-SP2"),
                                     "policies": ("FCFS", "SPF"), "outdir": tmp_path, "n": 3}.items()}
    assert rec == {"traces": ["KTH-SP2"], "one": "CTC-SP2", "policies": ["FCFS", "SPF"],
                   "outdir": paths.relative(tmp_path), "n": 3}
    json.dumps(rec)
