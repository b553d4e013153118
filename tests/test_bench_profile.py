"""bench/bench_profile.py judges the 60-minute target only for a whole
profile from a cold cache (a one-study run once printed "met")."""
import importlib.util
from pathlib import Path

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
