"""SchedGym beside the engine's SchedGym rules (issue 50): run by `make test-oracles`
when SCHEDGYM_DIR and SCHEDGYM_PYTHON point at a copy of DIR-LAB/deep-batch-scheduler
and a Python that imports its HPCSimPickJobs, right after
tools/oracles/compare_schedgym.py has written results/oracles/schedgym.json; not
collected by `make test` (the file name does not match test_*.py).

What these tests pin down (csrc/SEMANTICS.md, "SchedGym's rules"): on at least 100 of
SchedGym's own 256-job sequences of two logs, each of its five heuristics, with and
without its backfilling, starts every job at the same second in both, and the average
bounded slowdown SchedGym reports is the engine's (to the last bits of a sum taken in
another order).  With numpy's AVX-512 routines (log10, log2, pow differ from libm's by
one unit in the last place on some arguments) a schedule may differ; the report says
how many.  Dropping any of the rules' details changes some schedule (ablations), so
each is exercised by these sequences.
"""
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "results" / "oracles" / "schedgym.json"
HEURISTICS = {"FCFS", "SJF", "WFP3", "UNICEP", "F1"}

pytestmark = pytest.mark.skipif(not REPORT.exists(), reason=f"{REPORT} not written: run make test-oracles "
                                "with SCHEDGYM_DIR and SCHEDGYM_PYTHON")


@pytest.fixture(scope="module")
def report():
    return json.loads(REPORT.read_text())


def test_two_logs_every_heuristic_both_backfil(report):
    assert len(report["logs"]) >= 2
    for entry in report["logs"].values():
        rows = entry["numpy"]["libm"]
        assert {r["heuristic"] for r in rows} == HEURISTICS
        assert {r["backfil"] for r in rows} == {0, 1}
        assert all(r["sequences"] >= 100 for r in rows)


def test_every_start_and_bsld_identical_with_libm(report):
    for trace, entry in report["logs"].items():
        for r in entry["numpy"]["libm"]:
            assert r["identical_starts"] == r["sequences"], (trace, r)
            assert r["jobs_identical"] == r["jobs"], (trace, r)
            assert r["bsld_equal"] == r["sequences"], (trace, r)


def test_numpy_simd_differences_are_counted(report):
    for entry in report["logs"].values():
        for r in entry["numpy"].get("simd", []):
            assert 0 <= r["identical_starts"] <= r["sequences"]
            assert (r["first_divergence"] is None) == (r["identical_starts"] == r["sequences"])


def test_each_detail_of_the_rules_decides_some_schedule(report):
    total = {}
    for entry in report["logs"].values():
        for what, diff in entry.get("ablations", {}).items():
            total[what] = total.get(what, 0) + sum(diff.values())
    assert len(total) == 4 and all(v > 0 for v in total.values()), total


def test_schedgym_observation_identical_at_every_step(report):
    """JobDispatchEnv(rules=SchedGym's, observation="schedgym") and SchedGym's agent
    path (build_observation, step_for_test), one random agent driving both."""
    for trace, entry in report["logs"].items():
        for r in entry.get("observations", []):
            assert r["sequences"] >= 1
            assert r["sequences_identical"] == r["sequences"], (trace, r)
            assert r["steps_identical"] == r["steps"] and r["starts_identical"] == r["sequences"], (trace, r)
