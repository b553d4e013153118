"""Study 8 (schedlab.studies.multiqueue): the criteria of the fixed-P runs,
the slowdown ratio on a hand-worked case, the online simulation policy's
tests and reconfigurations on a generated workload, parameter validation,
and the notebook (through the driver) on a generated trace."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reference_multiqueue import balanced_criteria as ref_balanced

from schedlab import paths
from schedlab.errors import InputError
from schedlab.engine.sim import Jobs, Policy, Schedule
from schedlab.studies import multiqueue as study
from schedlab.studies.registry import get
from schedlab.protocol.study import profile_params, validate
from schedlab.workloads.swf import write_swf

from test_study_prediction import execute_notebook, shown_markdown

WEEK = study.WEEK
NOTEBOOK = paths.NOTEBOOKS / "08-multiqueue.ipynb"


def generated(n=900, weeks=3, m=16, seed=8) -> Jobs:
    """Jobs over ``weeks`` weeks with heavy-tailed runtimes, loose requests
    and widths up to m: enough contention for queues to form."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, weeks * WEEK, n))
    submit[0] = 0
    run = np.exp(rng.uniform(0, np.log(60000), n)).astype(np.int64)
    req = (run * rng.choice([1, 1, 2, 5, 20], n)).astype(np.int64)
    procs = rng.choice([1, 1, 2, 4, 8, m], n).astype(np.int32)
    return Jobs(submit, run, req, procs)


@pytest.fixture(scope="module")
def work() -> study.Workload:
    return study.cut(generated(), 16, None, "generated")


# ------------------------------------------------------------- criteria --

def test_balanced_criteria_figure3():
    assert study.balanced_criteria([80, 10, 30, 20, 50, 40, 70, 60], 4) == [30, 50, 70, 80]
    assert study.balanced_criteria([5], 3) == [5, 5, 5]
    rng = np.random.default_rng(3)
    for _ in range(50):
        v = rng.integers(0, 100, rng.integers(1, 30)).tolist()
        P = int(rng.integers(1, 6))
        assert study.balanced_criteria(v, P) == ref_balanced(v, P)
    with pytest.raises(InputError):
        study.balanced_criteria([], 2)


def test_cut_to_whole_weeks(work):
    jobs = generated()
    w = study.cut(jobs, 16, 2, "g")
    assert w.weeks == 2 and int(w.jobs.submit.max()) < 2 * WEEK
    assert len(w.jobs) == int((jobs.submit < 2 * WEEK).sum())
    assert work.weeks == 3 and work.job_week.max() == 2
    with pytest.raises(InputError):
        study.cut(jobs, 16, 0, "g")


def assign(est, crit):
    return np.searchsorted(np.asarray(crit[:-1]), est, side="right")


def test_fixed_one_partition_is_single_queue_easy(work):
    base = study.baseline(work, "requested")
    one = study.fixed(work, "requested", 1, "previous")
    assert one.start.tolist() == base.start.tolist()
    r, weekly, n = study.ratio(base, one, work)
    assert r == 0.0 and np.all(weekly[np.isfinite(weekly)] == 0.0) and n > 0


def test_fixed_oracle_criteria_from_the_same_week(work):
    s = study.fixed(work, "actual", 3, "oracle")
    est = study.estimates_of(work.jobs, "actual")
    for k in range(work.weeks):
        mine = work.job_week == k
        crit = study.balanced_criteria(est[mine], 3)
        assert s.partition[mine].tolist() == assign(est[mine], crit).tolist(), k


def test_fixed_previous_criteria_from_last_weeks_completions(work):
    s = study.fixed(work, "requested", 3, "previous")
    est = work.jobs.req
    crit = study.initial_criteria(work, "requested", 3)
    for k in range(work.weeks):
        if k > 0:
            done = (s.end >= work.t0 + (k - 1) * WEEK) & (s.end < work.t0 + k * WEEK)
            if done.any():
                crit = study.balanced_criteria(est[done], 3)
        mine = work.job_week == k
        assert s.partition[mine].tolist() == assign(est[mine], crit).tolist(), k
    assert s.borrowed.any()


# --------------------------------------------------------------- metrics --

def test_slowdown_ratio_hand_worked():
    # A (week 0): waits 100 s for 10 s in EASY (s = 11), none here (s = 1):
    #   R = (11 - 1) / 1 = 10.  B (week 1): 0 s vs 50 s for 100 s: s 1 vs 1.5,
    #   R = (1 - 1.5) / 1 = -0.5.  C ran 5 s but asked 100 s: ignored.
    jobs = Jobs([0, WEEK + 5, WEEK + 6], [10, 100, 5], [10, 100, 100], [1, 1, 1])
    w = study.cut(jobs, 4, None, "hand")
    mk = lambda start: Schedule(jobs, 4, Policy(), "requested", np.array(start),  # noqa: E731
                                np.array(start) + np.array([10, 100, 5]), np.zeros(3, np.uint8))
    r, weekly, n = study.ratio(mk([100, WEEK + 5, WEEK + 6]), mk([0, WEEK + 55, WEEK + 60]), w)
    assert r == pytest.approx(4.75) and n == 2
    assert weekly.tolist() == pytest.approx([10.0, -0.5])


def test_lawson_slowdown_at_a_time_hand_worked():
    # at t = 1000: A started at 100 after 100 s of wait (s = 1 + 100/50); B not
    # started yet (start -1), 900 s waited so far for a 5 s job (d -> 10 s);
    # C starts after t (2000): counted with its wait so far, 1000 - 400.
    from schedlab.engine.metrics import lawson_slowdown_at
    s = lawson_slowdown_at([0, 100, 400], [100, -1, 2000], [50, 5, 300], 1000)
    assert s.tolist() == pytest.approx([3.0, 91.0, 3.0])


# ---------------------------------------------------------------- online --

def test_online_without_tests_is_the_fixed_policy(work):
    res = study.online(work, "requested", threshold=1e9, horizon=1)
    assert res.tests == [] and res.weekly_p.tolist() == [4, 4, 4]
    assert res.schedule.start.tolist() == study.fixed(work, "requested", 4, "previous").start.tolist()


def test_online_with_one_candidate_is_easy(work):
    res = study.online(work, "requested", threshold=1.0, horizon=1, pmax=1, initial=1)
    assert len(res.tests) == work.weeks - 1 and not res.changes
    assert res.schedule.start.tolist() == study.baseline(work, "requested").start.tolist()


@pytest.mark.parametrize("replay", ["oracle", "queued"])
def test_online_tests_choose_the_best_and_reconfigure(work, replay):
    res = study.online(work, "requested", threshold=1.0, horizon=1, replay=replay)
    final = res.schedule
    assert [t.week for t in res.tests] == list(range(1, work.weeks))      # T = 1: every week
    current = 4
    for t in res.tests:
        b = work.t0 + t.week * WEEK
        assert t.time == b and t.measure > 1.0 and t.current == current
        best = min(t.scores.values())
        assert t.scores[t.chosen] == best
        assert t.chosen == current or (t.scores[current] > best and
                                       t.chosen == min(p for p, v in t.scores.items() if v == best))
        # The replayed jobs: waiting at b (the real schedule up to b is
        # final), plus the horizon's arrivals with the oracle.
        waiting = (work.jobs.submit <= b) & (final.start > b)
        if replay == "oracle":
            waiting |= (work.jobs.submit > b) & (work.jobs.submit <= b + WEEK)
        assert t.replayed == int(waiting.sum())
        current = t.chosen
        assert res.weekly_p[t.week] == current
    assert res.changes_to(4) == [sum(1 for t in res.changes if t.chosen == p) for p in range(1, 5)]
    assert res.changes                  # the generated load is high enough for P to matter


def test_online_candidate_scores_follow_the_horizon(work):
    # A candidate's score is the mean slowdown at the horizon's end of the
    # replayed jobs, unstarted ones counted with their wait so far: with a
    # longer horizon every unstarted job can only count more.
    short = study.online(work, "requested", threshold=1.0, horizon=1, replay="queued")
    long_ = study.online(work, "requested", threshold=1.0, horizon=2, replay="queued")
    t1, t2 = short.tests[0], long_.tests[0]
    assert t1.replayed == t2.replayed
    for p in t1.scores:
        assert t2.scores[p] >= t1.scores[p] - 1e-9


# ----------------------------------------------------------- parameters --

def test_validate_parameters(tmp_path):
    p = validate(study.Params, {"weeks": 5})
    assert [t.name for t in p.traces] == list(study.DEFAULT_TRACES) and all(t.weeks == 5 for t in p.refs)
    assert p.replays == ("oracle", "queued") and p.initial == 4 and p.fig8_trace.name == "CTC-SP2"
    p = validate(study.Params, {"traces": ["KTH-SP2"], "weeks": None, "replays": "queued",
                                "thresholds": [10, 2.5, 10]})
    assert p.refs[0].weeks == 48 and p.thresholds == (2.5, 10.0) and p.fig8_trace is None
    assert validate(study.Params, {}).refs[0].weeks == 20                   # the quick profile's cut
    assert profile_params(get("multiqueue"), "full").refs[2].weeks == 104   # the paper's sizes
    p = validate(study.Params, {"weeks": {"kth-sp2": 3, "CTC-SP2": 4}, "pmax": 3})
    assert [r.weeks for r in p.refs] == [3, 4, None, None] and p.initial == 3
    assert validate(study.Params, {"fig8_trace": "SDSC-SP2"}).fig8_trace.name == "SDSC-SP2"
    for bad in (dict(traces=["no-such-trace"]), dict(thresholds=[0.5]), dict(replays=["future"]),
                dict(weeks=0), dict(pmax=17), dict(horizons=[0]), dict(online_estimates=["perfect"]),
                dict(trigger="always"), dict(traces=[]), dict(initial=5), dict(weeks={"HPC2N": 3}),
                dict(fig8_trace="HPC2N"), dict(fig8_params=[[5, 0]]), dict(workers=2)):
        with pytest.raises(InputError):
            validate(study.Params, bad)


def test_the_paper_s_machine_size_is_a_reading_of_ctc_only(tmp_path):
    """lawson2005 simulates CTC on 512 nodes (published.toml), our m is the log's batch partition (338):
    the study runs CTC-SP2 at m = 512 too, as a reading, unless told not to; no other trace, and not a
    trace given with its own choices."""
    p = validate(study.Params, {"weeks": 2})
    refs = p.machine_refs()
    assert list(refs) == ["CTC-SP2"] and refs["CTC-SP2"][0] == 512
    mref = refs["CTC-SP2"][1]
    assert (mref.spec, mref.name, mref.weeks) == ("CTC-SP2?m=512", "CTC-SP2-m512", 2)
    assert study.load(mref.spec, 1).m == 512 and study.load("CTC-SP2", 1).m == 338
    assert validate(study.Params, {"paper_machines": False}).machine_refs() == {}
    assert validate(study.Params, {"traces": ["KTH-SP2", "CTC-SP2?m=400"]}).machine_refs() == {}


# ------------------------------------------------------------- notebook --

def write_trace(path: Path, jobs: Jobs, m: int) -> Path:
    n = len(jobs)
    fields = {"job_id": np.arange(1, n + 1), "submit": jobs.submit, "run": jobs.run, "req_time": jobs.req,
              "req_procs": jobs.procs, "alloc_procs": jobs.procs, "user": np.ones(n, int),
              "status": np.ones(n, int), "wait": np.zeros(n, int)}
    return write_swf(path, fields, header_lines=["Version: 2.2", "Computer: generated", f"MaxProcs: {m}",
                                                  "UnixStartTime: 0"])


def test_notebook_runs_on_a_generated_trace(tmp_path):
    trace = write_trace(tmp_path / "gen.swf", generated(n=200), 16)
    out = tmp_path / "out"
    executed = execute_notebook(NOTEBOOK, tmp_path, {"traces": [str(trace)], "weeks": 3, "thresholds": [1.5, 1000],
                                                     "horizons": [1], "workers": 1, "outdir": str(out)})
    for rel in ("numbers.json", "tables/fig4.csv", "tables/table3.md", "tables/table2.csv",
                "figures/fig4.png", "figures/fig7.pdf", "datasets/fixed.nc", "datasets/online.nc"):
        assert (out / rel).is_file(), rel
    assert not (out / "figures" / "fig8.png").exists()         # CTC-SP2 is not among the traces
    doc = json.loads((out / "numbers.json").read_text())
    g = doc["traces"]["gen"]
    assert g["weeks"] == 3 and g["fixed"]["user"]["P1"] == 0.0 and g["fixed"]["exact"]["P1"] == 0.0
    assert set(g["online"]["user"]) == {"oracle", "queued"}
    assert set(g["online"]["user"]["oracle"]["grid"]) == {"1.5/1", "1000/1"}
    prov = doc["provenance"]
    assert prov["inputs"]["gen"]["sha256"] and prov["parameters"]["fig8_trace"] is None
    assert "parameters" not in doc and "wall_s" not in doc and doc["timing"]["cells_computed"] > 0
    from schedlab.campaigns.store import read_dataset
    ds = read_dataset(out / "datasets" / "online.nc")
    assert ds.online_tests.sel(trace="gen", threshold=1000.0).values.max() == 0
    assert ds.weekly_partitions.dtype == np.int64
    shown = shown_markdown(executed)
    assert "lawson2005 Table 3" in shown and "| gen |" in shown


def test_a_fixed_partition_row_without_readings_says_why_none_applies():
    """A compared row on runs with a fixed number of partitions that no
    reading changes (the replay readings change only online simulations) says
    so instead of a bare 'unexplained' (DESIGN §10); a row with readings, or
    one not compared, keeps its explanation."""
    from schedlab.protocol.scorecard import Reading, Row, bare
    from schedlab.studies.multiqueue.scorecard import _kw_fixed

    kw = dict(comparable=True, explanation="unexplained")
    row = Row("lawson2005 §2.3", "claim: x", "SDSC-SP2", "R", "> 0", -0.86, rule="claim", holds=False,
              **_kw_fixed(kw, True, ()))
    assert row.verdict == "not reproduced" and not bare([row])
    assert "fixed number of partitions" in row.full_explanation()
    assert _kw_fixed(kw, True, [Reading("queued", "t", 1.0)]) is kw
    assert _kw_fixed(kw, False, ()) is kw
