"""bench/bench_gym.py: the SWF it hands SchedGym has the jobs JobDispatch-v0
gets, in the form SchedGym's reader takes (it int()s every field but the
CPU time), and its schedlab half runs (SchedGym itself is not in this
environment: the benchmark says it was not run)."""
import importlib.util
import sys
from pathlib import Path

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "bench_gym", Path(__file__).resolve().parents[1] / "bench" / "bench_gym.py")
bench_gym = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_gym)


def test_the_swf_for_schedgym_holds_the_common_jobs(tmp_path):
    jobs, m = bench_gym.common_jobs("KTH-SP2")
    assert (jobs.run > 0).all() and (jobs.run <= jobs.req).all()
    path = tmp_path / "jobs.swf"
    bench_gym.write_swf(jobs, m, path)
    lines = path.read_text().splitlines()
    assert f"; MaxNodes: {m}" in lines and f"; MaxProcs: {m}" in lines
    rows = [ln.split() for ln in lines if not ln.startswith(";")]
    assert len(rows) == len(jobs) and all(len(r) == 18 for r in rows)
    ints = np.array([[int(v) for k, v in enumerate(r) if k != 5] for r in rows])     # as SchedGym's Job reads them
    assert np.array_equal(ints[:, 1], jobs.submit) and np.array_equal(ints[:, 3], jobs.run)
    assert np.array_equal(ints[:, 6], jobs.procs) and np.array_equal(ints[:, 7], jobs.req)


def test_the_schedlab_half_runs_and_says_schedgym_was_not(monkeypatch, capsys):
    monkeypatch.delenv("SCHEDGYM_DIR", raising=False)
    monkeypatch.delenv("SCHEDGYM_PYTHON", raising=False)
    monkeypatch.setattr(sys, "argv", ["bench_gym.py", "KTH-SP2", "--episodes", "1", "--repeat", "1",
                                      "--no-selection"])
    assert bench_gym.main() == 0
    out = capsys.readouterr().out
    assert "always-SPF = EASY-SPF-FCFS checked" in out and "JobDispatch-v0" in out
    assert "SchedGym not run" in out
