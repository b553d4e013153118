"""freuk/ocst beside the engine (issue 30, item 3): run by `make test-oracles`, not
collected by `make test` (the file name does not match test_*.py; ocst must be built:
tools/oracles/build_ocst.sh).

What these tests pin down (csrc/SEMANTICS.md, "Other simulators"): the two simulators
differ only by how they break ties -- same-second submissions and equal keys in the
queues (ocst: a stable sort of its waiting list, newest first) and running jobs that
end, by estimate, exactly at the shadow time (ocst stops at the first one that covers
the head).  On inputs where no such tie can arise, every job starts at the same time
in both; on the raw logs they do not, and the first divergence has the named cause.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "oracles"))
import compare_ocst as co  # noqa: E402

pytestmark = pytest.mark.skipif(not co.ocst_available(),
                                reason=f"ocst not built ({co.OCST_BIN}): run make oracles")


@pytest.fixture(scope="module")
def kth():
    return co.load_log("KTH-SP2")


def test_input_meets_ocst_constraints(kth):
    assert kth.n == 27992
    assert (kth.p > 0).all() and (kth.pe >= kth.p).all() and (kth.q > 0).all() and (kth.q <= kth.m).all()


@pytest.mark.parametrize("trace", co.LOGS)
def test_fcfs_identical_when_no_tie_can_arise(trace):
    inp = co.untie(co.load_log(trace), co.untie_for("FCFS-FCFS", ["all"]))
    res = co.compare(inp, "FCFS-FCFS")
    assert res["identical"] == res["jobs"], res["first_divergence"]
    assert res["avgwait_engine"] == pytest.approx(res["avgwait_ocst"])


@pytest.mark.parametrize("policy", ["SPF-SPF", "SAF-SAF", "LCFS-LCFS", "LAF-LAF", "SQF-SQF", "LQF-LQF", "FCFS-SPF"])
def test_other_policies_identical_when_no_tie_can_arise(kth, policy):
    res = co.compare(co.untie(kth, co.untie_for(policy, ["all"])), policy)
    assert res["identical"] == res["jobs"], res["first_divergence"]


def test_ocst_printed_avgwait_matches_its_schedule(kth):
    res = co.compare(kth, "FCFS-FCFS")
    assert res["avgwait_ocst"] == pytest.approx(res["avgwait_ocst_printed"], abs=1e-3)


def test_raw_log_differs_first_by_same_second_submissions(kth):
    res = co.compare(kth, "FCFS-FCFS")
    assert 0.85 < res["identical_share"] < 0.95
    fd = res["first_divergence"]
    assert fd["cause"] == "same-second submissions"
    # jobs 441 (q = 16) and 442 (q = 25), both submitted at 850181 with 36 processors free:
    # the engine starts 441 (submit, then id), ocst starts 442 (its waiting list's order)
    assert (fd["time"], fd["free"], fd["engine_starts"], fd["ocst_starts"]) == (850181, 36, [441], [442])


def test_untied_submissions_leave_the_shadow_time_rule(kth):
    res = co.compare(co.untie(kth, ("submits",)), "FCFS-FCFS")
    fd = res["first_divergence"]
    assert fd["cause"] == "several running jobs end at the shadow time"
    assert len(fd["ending_at_shadow"]) >= 2 and fd["extra_engine"] > fd["extra_ocst"]
    assert res["identical"] < res["jobs"]


def test_untied_ends_leave_the_submission_ties(kth):
    res = co.compare(co.untie(kth, ("ends",)), "FCFS-FCFS")
    assert res["first_divergence"]["cause"] == "same-second submissions"
    assert res["identical_share"] < 1


def test_equal_keys_ocst_takes_the_newest(kth):
    """SPF on the raw log: the first divergence is two queued jobs with the same p~;
    ocst starts the one submitted later (its waiting list is newest first)."""
    res = co.compare(kth, "SPF-SPF")
    fd = res["first_divergence"]
    assert fd["cause"] == "equal SPF keys"
    pos = {int(i): k for k, i in enumerate(kth.id)}
    e, o = fd["engine_starts"][0], fd["ocst_starts"][0]
    assert kth.pe[pos[e]] == kth.pe[pos[o]] and kth.r[pos[o]] > kth.r[pos[e]]


def test_policy_names_map_to_the_same_keys(kth):
    """At the pinned commit ocst's 'spf' is EASY's SPF: the opposite name disagrees."""
    inp = co.untie(kth, ("submits", "ends"))
    assert co.compare(inp, "SPF-SPF")["identical_share"] == 1.0
    assert co.compare(inp, "SPF-SPF", names="opposite")["identical_share"] < 0.9
    assert co.compare(inp, "LCFS-LCFS", names="opposite")["identical_share"] < 0.9


def test_week_cut_is_ocst_subtrace(kth, tmp_path):
    """Our cut of week 10 keeps the jobs ocst's own subtrace keeps (-wk 9 -span 2)."""
    sub = co.OCST_DIR / "ocst-subtrace"
    swf = tmp_path / "kth.swf"
    co.write_swf(kth, swf)
    out = tmp_path / "w10.swf"
    subprocess.run([str(sub), "-i", str(swf), "-o", str(out), "-wk", "9", "-span", "2"], check=True)
    theirs = np.loadtxt(out, dtype=np.int64, usecols=(1, 3, 7, 8), ndmin=2)
    week = co.weeks_of(kth, 10)[9]
    ours = np.column_stack([week.r, week.p, week.q, week.pe])
    assert week.n > 100
    assert sorted(map(tuple, theirs)) == sorted(map(tuple, ours))


def test_patch_refuses_another_tree(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "_tags").write_text("true : package(batteries)\n")
    (tmp_path / "src" / "easy.ml").write_text("let x = 1\n")
    res = subprocess.run([sys.executable, str(ROOT / "tools/oracles/patch_ocst.py"), str(tmp_path)],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "_tags" in res.stderr


def test_newest_first_emulated_matches_ocst_on_the_raw_log(kth, tmp_path):
    """Equal keys, ocst takes the newest: giving the engine, under SQF, q' = q V - v_j with
    v_j the job's rank among the jobs of its q (later job, smaller q') reproduces ocst's
    schedule of the *raw* log on all but the same-second and shadow-time ties."""
    swf = tmp_path / "kth.swf"
    co.write_swf(kth, swf)
    so, _ = co.run_ocst(kth, "sqf", "sqf", swf)
    se_raw, _ = co.run_engine(kth, "SQF-SQF")
    se_new, _ = co.run_engine(co.untie(kth, ("procs",)), "SQF-SQF")
    assert np.mean(se_raw == so) < 0.8
    assert np.mean(se_new == so) > 0.99
