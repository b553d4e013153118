"""Site accounting to SWF (Slurm sacct, sacct --json, Batsim) and back to Batsim."""
import hashlib
import json

import numpy as np
import pytest

from schedlab.workloads import importers, traces
from schedlab import paths
from schedlab.tools.cli import main
from schedlab.errors import InputError
from schedlab.workloads.importers import batsim
from schedlab.workloads.importers.slurm import parse_timelimit
from schedlab.workloads.swf import read_swf, write_swf

SITE = paths.ROOT / "data" / "site-logs" / "slurm-22.05"


def _convert(name, fmt="sacct", **kw):
    return importers.convert(SITE / name, fmt, **kw)


def test_the_bundled_site_logs_match_their_checksums():
    lines = (SITE / "SHA256SUMS").read_text().split("\n")
    sums = dict(reversed(line.split("  ")) for line in lines if line)
    assert sorted(sums) == ["sacct-all-steps.psv", "sacct-allocations.psv", "sacct-default-fields.psv", "sacct.json"]
    for name, digest in sums.items():
        assert hashlib.sha256((SITE / name).read_bytes()).hexdigest() == digest, name


def test_three_exports_of_one_slurm_accounting_give_one_swf():
    alloc, steps, js = _convert("sacct-allocations.psv"), _convert("sacct-all-steps.psv"), \
        _convert("sacct.json", "sacct-json")
    for other in (steps, js):
        assert other.fields.keys() == alloc.fields.keys()
        for k in alloc.fields:
            assert np.array_equal(other.fields[k], alloc.fields[k]), k
    assert steps.report.records == 29 and steps.report.jobs == 14
    assert dict(steps.report.skipped) == {"step (.batch, .extern, .N): allocations only": 15}


def test_slurm_fields_states_limits_and_arrays():
    c = _convert("sacct-allocations.psv", max_procs=2)
    f = {k: dict(zip(c.fields["job_id"].tolist(), v.tolist())) for k, v in c.fields.items()}
    assert sorted(f["run"]) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]   # 6_1..6_4 = 12, 13, 14, 6
    assert f["status"][1] == 1 and f["status"][4] == 0                 # COMPLETED, FAILED
    assert (f["status"][3], f["run"][3], f["req_time"][3]) == (0, 61, 60)   # TIMEOUT, past its limit
    assert (f["status"][10], f["wait"][10], f["run"][10], f["alloc_procs"][10], f["req_procs"][10]) == \
        (5, -1, -1, -1, 2)                                             # cancelled while pending
    assert (f["status"][11], f["run"][11]) == (5, 31) and f["wait"][11] > 0   # cancelled while running
    assert f["req_time"][7] == 86400 and f["req_time"][9] == -1 and f["req_time"][5] == 300   # 1-00:00:00, UNLIMITED
    assert f["submit"][1] == 0 and f["submit"][11] == 6
    assert f["partition"][8] != f["partition"][1]                      # short vs debug
    assert f["user"][1] == f["user"][2] != f["user"][3]                # alice, alice, bob
    head = "\n".join(c.header_lines)
    assert "MaxProcs: 2" in head and "UnixStartTime: 1795465646" in head and "TimeZoneString: UTC" in head
    status = dict(c.report.status)
    assert status["CANCELLED before starting"] == 1 and status["CANCELLED after starting"] == 1
    assert status["TIMEOUT"] == 1 and status["COMPLETED"] == 10


@pytest.mark.parametrize("text, seconds", [
    ("5", 300), ("05:30", 330), ("01:02:03", 3723), ("2-03", 2 * 86400 + 3 * 3600),
    ("1-02:03", 86400 + 2 * 3600 + 180), ("1-00:00:00", 86400), ("0-00:00:45", 45),
    ("UNLIMITED", None), ("Partition_Limit", None)])
def test_every_slurm_time_limit_form(text, seconds):
    assert parse_timelimit(text) == seconds


@pytest.mark.parametrize("text", ["1:2:3:4", "abc", "-5", "1-", "1.5"])
def test_a_bad_time_limit_is_refused(text):
    with pytest.raises(InputError, match="Slurm time limit"):
        parse_timelimit(text)


def test_a_salt_numbers_users_by_hash_rank_independent_of_file_order(tmp_path):
    plain = _convert("sacct-allocations.psv")
    a = _convert("sacct-allocations.psv", salt="k1")
    b = _convert("sacct-all-steps.psv", salt="k1")
    assert np.array_equal(a.fields["user"], b.fields["user"])
    assert sorted(set(a.fields["user"].tolist())) == [1, 2, 3]
    assert [sorted(set(importers.convert(SITE / "sacct.json", "sacct-json", salt=s).fields["user"].tolist()))
            for s in ("x", "y")] == [[1, 2, 3]] * 2
    # same partition of jobs into users, whatever the numbering
    pairs = lambda u: {(i, j) for i in range(len(u)) for j in range(len(u)) if u[i] == u[j]}  # noqa: E731
    assert pairs(a.fields["user"].tolist()) == pairs(plain.fields["user"].tolist())
    assert "salted hash ranks" in str(a.report)


def _psv(tmp_path, rows, header="JobID|JobIDRaw|User|Partition|State|Submit|Start|End|ElapsedRaw|Timelimit|ReqCPUS|AllocCPUS"):
    p = tmp_path / "acct.psv"
    p.write_text("\n".join([header, *rows]) + "\n")
    return p


GOOD = "1|1|u|p|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:00|50|00:02:00|1|1"


@pytest.mark.parametrize("row, match", [
    ("2|2|u|p|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:00|50|2 hours|1|1",
     r"acct.psv:3: field Timelimit"),
    ("2|2|u|p|WEIRD|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:00|50|00:02:00|1|1",
     r"acct.psv:3: field State: unknown Slurm state"),
    ("2|2|u|p|COMPLETED|yesterday|2026-01-01T00:00:10|2026-01-01T00:01:00|50|00:02:00|1|1",
     r"acct.psv:3: field Submit: not a time"),
    ("2|2|u|p|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:10|2026-01-01T00:01:00|50|00:02:00|x|1",
     r"acct.psv:3: field ReqCPUS: not an integer"),
    ("2|2|u|p|COMPLETED|2026-01-01T00:00:00", r"acct.psv:3: 6 fields, the header has 12"),
    ("2|2|u|p|COMPLETED|2026-01-01T00:00:20|2026-01-01T00:00:10|2026-01-01T00:01:00|50|00:02:00|1|1",
     r"acct.psv:3: field Start: before Submit"),
])
def test_bad_sacct_lines_name_file_line_and_field_and_nothing_is_written(tmp_path, row, match, capsys):
    p = _psv(tmp_path, [GOOD, row])
    with pytest.raises(InputError, match=match):
        importers.convert(p, "sacct")
    out = tmp_path / "out.swf"
    assert main(["traces", "import", str(p), "--format", "sacct", "-o", str(out)]) == 2
    assert not out.exists() and "schedlab: error:" in capsys.readouterr().err


def test_pending_and_running_jobs_are_skipped_with_a_reason_and_time_zones_apply(tmp_path):
    p = _psv(tmp_path, [GOOD, "2|2|u|p|RUNNING|2026-01-01T00:00:00|2026-01-01T00:00:10|Unknown|50|00:02:00|1|1",
                        "3_[1-4]|3|u|p|PENDING|2026-01-01T00:00:00|Unknown|Unknown|0|00:02:00|1|0"])
    c = importers.convert(p, "sacct", tz="Europe/Paris")
    assert c.n == 1 and dict(c.report.skipped) == {"not finished when exported (RUNNING)": 1,
                                                   "array tasks not started yet (pending, unexpanded)": 1}
    utc = importers.convert(p, "sacct")
    start = lambda c: int([x for x in c.header_lines if x.startswith("UnixStartTime")][0].split()[1])  # noqa: E731
    assert start(utc) - start(c) == 3600 and "TimeZoneString: Europe/Paris" in c.header_lines
    with pytest.raises(InputError, match="time zone"):
        importers.convert(p, "sacct", tz="Mars/Olympus")


def test_the_default_fields_export_says_what_to_export(tmp_path):
    with pytest.raises(InputError, match=r"lacks Submit, Start.*--format=JobID,JobIDRaw"):
        _convert("sacct-default-fields.psv")


def test_imported_slurm_log_simulates_with_its_choices_stated(tmp_path, capsys):
    out = tmp_path / "site.swf"
    assert main(["traces", "import", str(SITE / "sacct-all-steps.psv"), "--format", "sacct", "-o", str(out)]) == 0
    assert "15 skipped" in capsys.readouterr().out
    assert main(["simulate", str(out), "--request", "partition-max"]) == 0
    o = capsys.readouterr()
    assert "m = 2 (the log's peak concurrent allocation" in o.out
    assert "request partition-max" in o.out and "warning: no MaxProcs" in o.err
    jobs, rep, m, _, _ = traces.cleaned(f"{out}?request=drop")
    assert ("cancelled", 1, "removed", "cancelled before starting") in rep.steps
    assert ("request", 1, "removed", "missing requested time") in rep.steps and len(jobs) == 12
    assert main(["traces", "import", str(SITE / "sacct.json"), "--format", "sacct-json", "-o", str(out)]) == 2
    assert "exists" in capsys.readouterr().err


def test_batsim_round_trips_both_ways(tmp_path):
    t = traces.load("KTH-SP2")
    first = tmp_path / "w.json"
    rep = batsim.write_workload(t, first)
    assert rep.jobs == t.n - 1 and dict(rep.skipped) == {"no requested or allocated processors": 1}
    back = importers.convert(first, "batsim")
    f = t.fields
    q = np.where(f["req_procs"] > 0, f["req_procs"], f["alloc_procs"])
    ok = (f["run"] >= 0) & (q > 0)
    order = np.lexsort((f["job_id"][ok], f["submit"][ok]))
    for k, v in (("job_id", f["job_id"]), ("submit", f["submit"]), ("run", f["run"]),
                 ("req_time", f["req_time"]), ("req_procs", q), ("user", f["user"])):
        assert np.array_equal(back.fields[k], v[ok][order]), k
    assert "MaxProcs: 100" in back.header_lines
    swf = back.write(tmp_path / "back.swf")
    second = tmp_path / "w2.json"
    batsim.write_workload(swf, second)
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    key = lambda j: int(j["id"])  # noqa: E731
    assert sorted(a["jobs"], key=key) == sorted(b["jobs"], key=key)
    assert a["profiles"] == b["profiles"] and a["nb_res"] == b["nb_res"] == 100


def test_batsim_reader_rounds_and_skips_with_reasons_and_refuses_bad_jobs(tmp_path):
    doc = {"nb_res": 4, "jobs": [
        {"id": "w!1", "subtime": 0.4, "walltime": 100, "res": 2, "profile": "a"},
        {"id": "w!2", "subtime": 10, "res": 1, "profile": "b"},
        {"id": "w!3", "subtime": 12, "walltime": -1, "res": 1, "profile": "a"}],
        "profiles": {"a": {"type": "delay", "delay": 50.6}, "b": {"type": "parallel", "cpu": [1], "com": [0]}}}
    p = tmp_path / "w.json"
    p.write_text(json.dumps(doc))
    c = importers.convert(p, "batsim")
    assert c.fields["job_id"].tolist() == [1, 3] and c.fields["submit"].tolist() == [0, 12]
    assert c.fields["run"].tolist() == [51, 51] and c.fields["req_time"].tolist() == [100, -1]
    assert dict(c.report.skipped) == {"profile type 'parallel': no fixed duration": 1}
    assert c.report.status["subtime rounded to whole seconds"] == 1
    doc["jobs"][0]["res"] = 0
    p.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"w.json: jobs\[0\]: field res"):
        importers.convert(p, "batsim")
    p.write_text("{not json")
    with pytest.raises(InputError, match="w.json:1: not JSON"):
        importers.convert(p, "batsim")


def test_export_command_writes_a_batsim_workload(tmp_path, capsys):
    fields = {"job_id": [1, 2], "submit": [0, 5], "run": [10, 20], "req_procs": [1, 2], "req_time": [30, -1],
              "alloc_procs": [1, 2], "user": [7, 8]}
    src = write_swf(tmp_path / "t.swf", fields, ["MaxProcs: 4"])
    out = tmp_path / "w.json"
    assert main(["traces", "export", str(src), "--format", "batsim", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["nb_res"] == 4 and [j["walltime"] for j in doc["jobs"]] == [30, -1]
    assert [doc["profiles"][j["profile"]]["delay"] for j in doc["jobs"]] == [10, 20]
    assert read_swf(src).n == 2
