"""Issue 32, item 1: the importers refuse or report, never crash (the probes
of the issue, each on a real Slurm sample of data/site-logs/ or a Batsim
workload written from one)."""
import json

import pytest

from schedlab.workloads import importers
from schedlab import paths
from schedlab.tools.cli import main
from schedlab.errors import InputError
from schedlab.workloads.importers import batsim

SITE = paths.ROOT / "data" / "site-logs" / "slurm-22.05"


def _psv(tmp_path, edit):
    lines = (SITE / "sacct-allocations.psv").read_text().splitlines()
    names = lines[0].split("|")
    rows = [dict(zip(names, line.split("|"))) for line in lines[1:]]
    rows = edit(rows) or rows
    out = tmp_path / "edited.psv"
    out.write_text("\n".join([lines[0]] + ["|".join(r[n] for n in names) for r in rows]) + "\n")
    return out


def _json(tmp_path, edit):
    doc = json.loads((SITE / "sacct.json").read_text())
    edit(doc)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(doc))
    return out


def _batsim(tmp_path, edit):
    conv = importers.convert(SITE / "sacct-allocations.psv", "sacct", max_procs=2)
    swf = tmp_path / "site.swf"
    conv.write(swf)
    batsim.write_workload(swf, tmp_path / "w.json")
    doc = json.loads((tmp_path / "w.json").read_text())
    edit(doc)
    out = tmp_path / "edited-batsim.json"
    out.write_text(json.dumps(doc))
    return out


def _set(i, **kw):
    def edit(rows):
        rows[i].update(kw)
    return edit


def _refused(path, fmt, *pieces):
    with pytest.raises(InputError) as err:
        importers.convert(path, fmt)
    text = str(err.value)
    assert str(path) in text, text
    for piece in pieces:
        assert piece in text, text
    return text


# ---- duplicates: refused by default, keep-first names them ----

def test_a_repeated_sacct_record_is_refused_and_keep_first_names_it(tmp_path):
    path = _psv(tmp_path, lambda rows: rows + [dict(rows[2]), dict(rows[4])])
    _refused(path, "sacct", "job 3 repeats the record at line 4", "--duplicates keep-first")
    kept = importers.convert(path, "sacct", duplicates="keep-first")
    assert kept.n == 14 and kept.report.records == 16
    assert sorted(kept.fields["job_id"].tolist()) == list(range(1, 15))      # still the Slurm ids
    note = [n for n in kept.report.notes if "duplicate" in n]
    assert note and "job 3 at line 16 (first at line 4)" in note[0] and "job 5 at line 17" in note[0]
    assert "duplicate record" in str(kept.report)


def test_a_repeated_sacct_json_job_is_refused_and_keep_first_names_it(tmp_path):
    path = _json(tmp_path, lambda d: d["jobs"].extend([d["jobs"][0], d["jobs"][3], d["jobs"][3]]))
    _refused(path, "sacct-json", "jobs[14]", "job 1 repeats the record at jobs[0]")
    kept = importers.convert(path, "sacct-json", duplicates="keep-first")
    assert kept.n == 14 and sum(kept.report.skipped.values()) == 3
    assert sorted(kept.fields["job_id"].tolist()) == list(range(1, 15))


def test_a_repeated_batsim_job_is_refused_and_keep_first_names_it(tmp_path):
    path = _batsim(tmp_path, lambda d: d["jobs"].append(dict(d["jobs"][1])))
    _refused(path, "batsim", "repeats the record at jobs[1]")
    kept = importers.convert(path, "batsim", duplicates="keep-first")
    assert kept.n == 13 and len(set(kept.fields["job_id"].tolist())) == 13


def test_the_cli_refuses_duplicates_and_keeps_the_first_when_asked(tmp_path, capsys):
    path = _psv(tmp_path, lambda rows: rows + [dict(rows[0])])
    out = tmp_path / "o.swf"
    assert main(["traces", "import", str(path), "--format", "sacct", "-o", str(out)]) == 2
    assert "job 1 repeats" in capsys.readouterr().err and not out.exists()
    assert main(["traces", "import", str(path), "--format", "sacct", "-o", str(out),
                 "--duplicates", "keep-first"]) == 0
    assert "1 duplicate records skipped" in capsys.readouterr().out


# ---- negative and inconsistent times ----

def test_a_negative_elapsed_is_refused(tmp_path):
    _refused(_psv(tmp_path, _set(0, ElapsedRaw="-50")), "sacct", ":2:", "ElapsedRaw", "below 0")


def test_an_end_before_the_start_is_refused(tmp_path):
    _refused(_psv(tmp_path, _set(0, End="2026-11-23T20:27:20", ElapsedRaw="")), "sacct", "field End: before Start")
    path = _json(tmp_path, lambda d: d["jobs"][0]["time"].update(end=d["jobs"][0]["time"]["start"] - 5))
    _refused(path, "sacct-json", "jobs[0]", "time.end: before time.start")


def test_an_elapsed_that_differs_from_end_minus_start_is_reported(tmp_path):
    conv = importers.convert(_psv(tmp_path, _set(0, ElapsedRaw="3")), "sacct")
    assert any("1 jobs whose ElapsedRaw differs from End - Start" in n for n in conv.report.notes)


# ---- numbers beyond the SWF bounds, wrong types: clean errors naming file, record, field ----

@pytest.mark.parametrize("field, value", [("ReqCPUS", "9" * 20), ("AllocCPUS", "1" * 30), ("ElapsedRaw", "1e5"),
                                          ("Timelimit", "9" * 20), ("Submit", "9999-99-99T00:00:00")])
def test_sacct_numbers_out_of_range_are_refused(tmp_path, field, value):
    _refused(_psv(tmp_path, _set(0, **{field: value})), "sacct", ":2:", field)


@pytest.mark.parametrize("edit, pieces", [
    (lambda d: d["jobs"][0]["time"].update(submission=10**30), ("jobs[0]", "time.submission", "out of range")),
    (lambda d: d["jobs"][0]["time"].update(start=1e300), ("jobs[0]", "time.start", "out of range")),
    (lambda d: d["jobs"][0]["time"].update(elapsed=float("nan")), ("jobs[0]", "time.elapsed", "not finite")),
    (lambda d: d["jobs"][1]["required"].update(CPUs=10**30), ("jobs[1]", "required.CPUs", "out of range")),
    (lambda d: d["jobs"].insert(0, 7), ("jobs[0]", "expected an object")),
    (lambda d: d["jobs"][2].update(state="COMPLETED"), ("jobs[2]", "field state", "expected an object")),
    (lambda d: d["jobs"][2].update(time=None), ("jobs[2]", "field time", "expected an object")),
    (lambda d: d["jobs"][2].update(tres=[1]), ("jobs[2]", "field tres", "expected an object")),
    (lambda d: d["jobs"][2]["tres"].update(allocated=[[1, 2]]), ("jobs[2]", "tres.allocated[0]")),
    (lambda d: d["jobs"][2]["time"].update(limit=10**20), ("jobs[2]", "time.limit", "out of range")),
    (lambda d: d["jobs"][2].update(user=["x"]), ("jobs[2]", "field user")),
])
def test_sacct_json_bad_values_are_refused(tmp_path, edit, pieces):
    _refused(_json(tmp_path, edit), "sacct-json", *pieces)


@pytest.mark.parametrize("edit, pieces", [
    (lambda d: d["jobs"][0].update(subtime=1e300), ("jobs[0]", "subtime", "out of range")),
    (lambda d: d["jobs"][0].update(res=10**30), ("jobs[0]", "res", "out of range")),
    (lambda d: d["jobs"][0].update(subtime=float("inf")), ("jobs[0]", "subtime", "finite")),
    (lambda d: d["profiles"].update({d["jobs"][0]["profile"]: 5}), ("profiles[", "expected an object")),
    (lambda d: d["jobs"][0].update(profile=["a"]), ("jobs[0]", "field profile", "a string")),
    (lambda d: d.update(nb_res=10**30), ("nb_res", "out of range")),
    (lambda d: d["jobs"][0].update(id="99999999999999999999999"), ()),    # accepted: jobs renumbered
])
def test_batsim_bad_values_are_refused(tmp_path, edit, pieces):
    path = _batsim(tmp_path, edit)
    if not pieces:
        conv = importers.convert(path, "batsim")
        assert any("not unique numbers" in n for n in conv.report.notes)
        return
    _refused(path, "batsim", *pieces)
