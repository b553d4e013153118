"""bench/bench_profile.py judges the 60-minute target only for a whole
profile from a cold cache (a one-study run once printed "met")."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "bench_profile", Path(__file__).resolve().parents[1] / "bench" / "bench_profile.py")
bench_profile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_profile)
verdict = bench_profile.target_verdict


def test_target_is_judged_only_for_a_whole_cold_profile():
    n = len(bench_profile.STUDIES)
    assert verdict("full", 2898.0, 1, n, True, True).endswith("not judged (1 of %d studies ran; 48.3 min)" % n)
    assert "not judged (a study failed" in verdict("full", 100.0, n, n, False, True)
    assert "not judged (the cache was kept" in verdict("full", 100.0, n, n, True, False)
    assert verdict("full", 3599.0, n, n, True, True).endswith(": met (60.0 min)")
    assert verdict("full", 3601.0, n, n, True, True).endswith(": NOT MET (60.0 min)")


def _figures(commit, *, complete=False, rcs=(0, 0, 1)):
    names = ["traces", "policies", "thresholds"]
    return {"created": "2026-11-29T11:03:48+00:00", "commit": commit, "cores": 2, "profile": "full",
            "cold": True, "cold_each": False, "notebooks": True, "complete": complete, "total_s": 900.0,
            "studies": [{"study": n, "rc": rc, "wall_s": 300.0, "cpu_s": 290.0, "cells": 1, "cached": 0,
                         "jobs": 10, "jobs_per_s": 1, "max_rss_mb": 1.0} for n, rc in zip(names, rcs)]}


def test_resume_keeps_the_finished_studies_of_the_same_run_only():
    done, passes = bench_profile.resumable(_figures("abc"), commit="abc", profile="full", notebooks=True)
    assert [r["study"] for r in done] == ["traces", "policies"]          # the failed one runs again
    assert passes == [{"ended": "2026-11-29T11:03:48+00:00", "total_s": 900.0,
                       "studies": ["traces", "policies", "thresholds"]}]
    for kw, word in (({"commit": "def", "profile": "full", "notebooks": True}, "commit"),
                     ({"commit": "abc", "profile": "quick", "notebooks": True}, "profile"),
                     ({"commit": "abc", "profile": "full", "notebooks": False}, "notebooks")):
        with pytest.raises(SystemExit, match=word):
            bench_profile.resumable(_figures("abc"), **kw)
    with pytest.raises(SystemExit, match="complete"):
        bench_profile.resumable(_figures("abc", complete=True), commit="abc", profile="full", notebooks=True)


def test_resume_with_every_study_finished_writes_one_complete_run_of_two_passes(tmp_path, monkeypatch, capsys):
    # nothing left to run: the second pass only closes the record (no study is started)
    out = tmp_path / "figures.json"
    commit = bench_profile.paths.git_commit()
    out.write_text(json.dumps(_figures(commit, rcs=(0, 0, 0))))
    monkeypatch.setattr(sys, "argv", ["bench_profile.py", "--resume", "--notebooks", "--profile", "full",
                                      "--studies", "traces,policies,thresholds", "--out", str(out),
                                      "--cache", str(tmp_path / "cache")])
    assert bench_profile.main() == 0
    got = json.loads(out.read_text())
    assert got["complete"] is True and got["cold"] is True and got["commit"] == commit
    assert [r["study"] for r in got["studies"]] == ["traces", "policies", "thresholds"]
    assert len(got["passes"]) == 2 and got["passes"][1]["studies"] == []
    assert got["total_s"] >= 900.0
    assert "resuming" in capsys.readouterr().out


def test_resume_removes_the_interrupted_study_s_cells_only(tmp_path):
    import os
    cache = tmp_path / "cache"
    (cache / "mixed-grid-KTH-SP2" / "ab").mkdir(parents=True)
    (cache / "classification-classify-KTH-SP2" / "cd").mkdir(parents=True)
    old = cache / "mixed-grid-KTH-SP2" / "ab" / "ab1.npz"
    new = cache / "classification-classify-KTH-SP2" / "cd" / "cd1.npz"
    old.write_bytes(b"0")
    new.write_bytes(b"1")
    os.utime(old, (1_764_400_000, 1_764_400_000))         # before the figures file's last write
    os.utime(new, (1_764_400_600, 1_764_400_600))         # after it: the interrupted study's
    since = "2025-11-29T07:08:20+00:00"                    # 1_764_400_100
    assert bench_profile.drop_interrupted(cache, since) == 1
    assert old.exists() and not new.exists()
    assert bench_profile.drop_interrupted(tmp_path / "none", since) == 0
