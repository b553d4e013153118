"""The command line on a trace the test generates (any SWF file works)."""
import numpy as np
import pytest

from schedlab.tools import cli
from schedlab.workloads import swf


@pytest.fixture
def trace(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    run = rng.integers(0, 2000, n)
    fields = {
        "job_id": np.arange(1, n + 1), "submit": np.sort(rng.integers(0, 14 * 86400, n)),
        "run": run, "req_procs": rng.integers(1, 33, n), "alloc_procs": np.full(n, -1),
        "req_time": run + rng.integers(-50, 3000, n), "user": rng.integers(1, 9, n), "status": np.ones(n, int),
    }
    path = tmp_path / "mine.swf.gz"
    swf.write_swf(path, fields, ["Version: 2.2", "MaxProcs: 32"])
    return path, fields


def test_simulate_any_swf_and_write_schedule(trace, tmp_path, capsys):
    path, fields = trace
    out = tmp_path / "sched.swf"
    assert cli.main(["simulate", str(path), "--policy", "EASY-SAF-FCFS", "--threshold", "10h", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    for key in ("AvgWait", "MaxWait", "mean bsld", "m = 32", "EASY-SAF-FCFS T=10h"):
        assert key in text
    back = swf.read_swf(out)
    assert back.n == 300                                   # overrun jobs kept, killed at p~
    assert np.all(back["wait"] >= 0)
    killed = fields["run"] > fields["req_time"]
    order = np.argsort(back["job_id"])
    assert np.array_equal(back["status"][order] == 0, killed)
    assert np.all(back["run"][order] == np.minimum(fields["run"], fields["req_time"]))
    assert any("EASY-SAF-FCFS" in h for h in back.header_lines)


def test_overrun_drop_and_verbose_report(trace, capsys):
    path, fields = trace
    assert cli.main(["simulate", str(path), "--overrun", "drop", "-v"]) == 0
    text = capsys.readouterr().out
    dropped = int((fields["run"] > fields["req_time"]).sum())
    assert f"({300 - dropped} jobs after cleaning, 300 in file)" in text
    assert "removed" in text


def test_traces_info_on_a_path(trace, capsys):
    path, _ = trace
    assert cli.main(["traces", "info", str(path)]) == 0
    text = capsys.readouterr().out
    assert "jobs     300" in text and "m        32" in text


def test_bad_swf_line_is_reported_with_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 4\n" + "1 0 -1 10 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n" + "2 5 -1 abc 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1\n")
    assert cli.main(["simulate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:3" in err and "run" in err


def test_missing_file(tmp_path, capsys):
    assert cli.main(["simulate", str(tmp_path / "nope.swf")]) == 2
    assert "nope.swf" in capsys.readouterr().err


def test_simulate_corrects_a_column_estimate_and_warns_when_an_underestimate_runs_uncorrected(trace, tmp_path,
                                                                                            capsys):
    """issue 51 item 3: --estimate col:pred had no --correction, and a
    prediction below the runtime ran uncorrected without a word."""
    path, fields = trace
    col = tmp_path / "pred.csv"
    col.write_text("".join(f"{i},{max(r // 2, 0)}\n" for i, r in zip(fields["job_id"], fields["run"])))
    base = ["simulate", str(path), "--column", f"pred={col}", "--estimate", "col:pred"]
    assert cli.main(base) == 0
    out = capsys.readouterr()
    warned = [x for x in out.err.splitlines() if "warning: estimate" in x]
    assert len(warned) == 1 and "below their runtime" in warned[0] and "--correction" in warned[0], out.err
    assert "correction = none" in out.out
    for corr in ("requested", "incremental", "doubling"):
        assert cli.main(base + ["--correction", corr]) == 0
        out = capsys.readouterr()
        assert "warning: estimate" not in out.err and f"correction = {corr}" in out.out, out
    with pytest.raises(SystemExit):
        cli.main(base + ["--correction", "sometimes"])
    assert "invalid choice: 'sometimes'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["simulate", "KTH-SP2", "-m", "lots"], ["simulate", "KTH-SP2", "--format", "pdf"],
                                  ["nonsense"], ["study", "run"]])
def test_a_bad_argument_is_one_line_without_the_usage_block(argv, capsys):
    """issue 51: '-m lots' printed argparse's usage block before the error."""
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "error:" in err and "--help" in err, err
