"""Study 6 (classification): features without leakage on hand-made traces,
the weekly retraining schedule, the divider, scores on a known confusion
matrix, the scheduling variants, parameter validation, and the notebook
under papermill with tiny parameters."""
from __future__ import annotations

import json
import math

import nbformat
import numpy as np
import pytest

from schedlab import paths
from schedlab.campaigns import store
from schedlab.errors import InputError
from schedlab.engine.sim import Jobs, simulate
from schedlab.studies import classification as study
from schedlab.workloads.swf import write_swf

W = study.WEEK
NONE = -1.0


def hist(user, req, procs, day, finish, query, done):
    return study.history_features(np.array(user), np.array(req), np.array(procs), np.array(day),
                                  np.array(finish), np.array(query), np.array(done))


# ------------------------------------------------------------- features --

def test_history_features_by_hand():
    # One user, same request and processors, same day.  Job: query (= submit), finish, class.
    #   0: 0,   100, small      1: 10,  50, large      2: 60, 70, small
    #   3: 70,  500, small      (sees 1 and 0 -- finished at 50 and 100? no: 100 > 70)
    #   4: 100, 200, large      (0 finished at 100 exactly: not yet known, strict)
    #   5: 150, 150, small      (itself finished at its submission: never seen)
    #   6: 600, 700, large
    q = [0, 10, 60, 70, 100, 150, 600]
    f = [100, 50, 70, 500, 200, 150, 700]
    c = [1, 0, 1, 1, 0, 1, 0]
    n = len(q)
    X = hist([1] * n, [60] * n, [4] * n, [0] * n, f, q, c)
    assert X.shape == (n, 12)
    # job 0, 1: nothing finished before
    assert (X[0] == NONE).all() and (X[1] == NONE).all()
    # job 2 (t=60): job 1 (large) finished at 50
    np.testing.assert_array_equal(X[2, :3], [0, NONE, NONE])
    # job 3 (t=70): job 1 only (job 2 finishes at 70: not strictly before)
    np.testing.assert_array_equal(X[3, :3], [0, NONE, NONE])
    # job 4 (t=100): jobs 1 (50), 2 (70); job 0 finishes at 100 exactly: unknown
    np.testing.assert_array_equal(X[4, :3], [1, 0, NONE])
    # job 5 (t=150): 1, 2, 0 -> most recent first: 0 (100, small), 2 (70, small), 1 (50, large)
    np.testing.assert_array_equal(X[5, :3], [1, 1, 0])
    assert X[5, 9] == pytest.approx(2 / 3) and X[5, 10] == pytest.approx(2 / 3)
    # job 6 (t=600): finished 1 2 0 5 4 3 -> last three: 3 (500, small), 4 (200, large), 5 (150, small)
    np.testing.assert_array_equal(X[6, :3], [1, 0, 1])
    assert X[6, 10] == pytest.approx(4 / 6)
    # the three categories are the same here: (u, p~) = (u, q) = (u, day)
    np.testing.assert_array_equal(X[:, 0:3], X[:, 3:6])
    np.testing.assert_array_equal(X[:, 0:3], X[:, 6:9])


def test_a_job_finishing_one_second_later_is_not_seen():
    X = hist([1, 1, 1], [60] * 3, [4] * 3, [0] * 3, [101, 500, 600], [0, 100, 102], [1, 0, 0])
    assert (X[1] == NONE).all()                  # job 0 ends at 101, job 1 asks at 100
    assert X[2, 0] == 1 and X[2, 1] == NONE      # at 102 it is known


def test_history_categories_are_separate():
    # user 1: job 0 (req 60, q 4, day 0), job 1 (req 60, q 8, day 1), job 2 (req 30, q 4, day 1)
    # user 2: job 3 (req 60, q 4, day 1) sees nothing of user 1.
    X = hist([1, 1, 1, 2], [60, 60, 30, 60], [4, 8, 4, 4], [0, 1, 1, 1], [10, 20, 90, 95], [0, 15, 50, 50],
             [1, 0, 1, 1])
    # job 2 at t=50 sees 0 (u,q=4: small, day 0) and 1 (u, req 60; u, q 8; u, day 1: large)
    assert X[2, 0] == NONE                       # (u, p~=30): none
    assert X[2, 3] == 1 and X[2, 4] == NONE      # (u, q=4): job 0
    assert X[2, 6] == 0                          # (u, day 1): job 1
    assert X[2, 9] == 1.0 and X[2, 10] == NONE and X[2, 11] == 0.0   # shares (u,q), (u,p~), (u,d)
    assert (X[3] == NONE).all()


def random_trace(n=400, weeks=4, seed=0, users=6):
    """Jobs whose runtime depends on the user's request: learnable classes."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, weeks * W, n))
    user = rng.integers(1, users + 1, n)
    req = rng.choice([600, 3600, 36000], n)
    small = rng.random(n) < np.where(req == 600, 0.9, np.where(req == 3600, 0.5, 0.1))
    run = np.where(small, rng.integers(0, 300, n), rng.integers(600, 30000, n))
    run = np.minimum(run, req)
    wait = rng.integers(0, 3 * 3600, n)
    procs = rng.integers(1, 9, n)
    return submit, run, req, procs, user, wait


def write_trace(path, n=400, weeks=4, seed=0):
    submit, run, req, procs, user, wait = random_trace(n, weeks, seed)
    fields = {"job_id": np.arange(1, n + 1), "submit": submit, "wait": wait, "run": run, "req_time": req,
              "req_procs": procs, "alloc_procs": procs, "user": user, "status": np.ones(n, int)}
    return write_swf(path, fields, header_lines=["Version: 2.2", "Computer: generated", "MaxProcs: 8",
                                                 "UnixStartTime: 1000000000", "TimeZoneString: Europe/Paris"])


def full_features(submit, run, req, procs, user, finish, history="completed"):
    jobs = Jobs(submit, run, req, procs, user=user)
    edges = study.week_edges(submit)
    D = study.weekly_dividers(run, finish, edges)
    return study.features(jobs, finish, edges, D, history=history, unix_start_time=10**9, tz="UTC"), edges, D


@pytest.mark.parametrize("history", study.HISTORIES)
def test_features_do_not_leak_the_future(history):
    """Whatever happens to the jobs that finish at or after time t (their
    runtimes, hence classes and dividers, and their finish times), the
    features of the jobs queried at or before t do not change -- for t the
    submission of many jobs and a few other instants."""
    submit, run, req, procs, user, wait = random_trace()
    finish = submit + wait + run
    X, edges, D = full_features(submit, run, req, procs, user, finish, history)
    week = np.searchsorted(edges, submit, "right") - 1
    query = submit if history == "completed" else edges[week]
    rng = np.random.default_rng(1)
    cuts = np.r_[rng.choice(submit[submit >= edges[1]], 60, replace=False), edges[1:4], edges[2] + 5000]
    changed = 0
    for t in cuts:
        later = finish >= t
        run2 = run.copy()
        run2[later] = rng.integers(0, 40000, later.sum())
        finish2 = finish.copy()
        finish2[later] = t + rng.integers(0, 10 * 86400, later.sum())
        X2, _, _ = full_features(submit, run2, req, procs, user, finish2, history)
        before = query <= t
        assert before.sum() > 20
        np.testing.assert_array_equal(X[before], X2[before])
        changed += not np.array_equal(X[~before], X2[~before])
    assert changed > len(cuts) // 2   # the changes are seen by later jobs: the test can fail


def test_previous_weeks_history_is_frozen_at_the_week_start():
    submit, run, req, procs, user, wait = random_trace()
    finish = submit + wait + run
    Xc, edges, _ = full_features(submit, run, req, procs, user, finish, "completed")
    Xw, _, _ = full_features(submit, run, req, procs, user, finish, "previous-weeks")
    week = np.searchsorted(edges, submit, "right") - 1
    assert (Xw[week == 0, 8:] == NONE).all()            # nothing is known before week 0
    assert not np.array_equal(Xc[:, 8:], Xw[:, 8:])
    np.testing.assert_array_equal(Xc[:, :8], Xw[:, :8])  # job and temporal features alike


def test_temporal_features_local_time():
    # 2001-09-09 01:46:40 UTC = 03:46:40 in Paris (CEST), a Sunday, ISO week 36, Q3.
    cols, day = study.temporal_features([0, 86400], unix_start_time=10**9, tz="Europe/Paris")
    np.testing.assert_array_equal(cols[0], [3, 6, 9, 9, 36, 3])
    assert day[1] - day[0] == 1
    cols_utc, _ = study.temporal_features([0], unix_start_time=10**9)
    assert cols_utc[0, 0] == 1


# -------------------------------------------------------------- divider --

def test_weekly_dividers():
    edges = np.array([0, W, 2 * W, 3 * W])
    run = np.array([10, 20, 30, 1000, 5])
    finish = np.array([100, W - 1, W, 2 * W + 5, 3 * W + 1])   # known at e_1: jobs 0, 1; e_2: + 2; e_3: + 3
    D = study.weekly_dividers(run, finish, edges)
    assert math.isnan(D[0])
    assert D[1:].tolist() == [15.0, 20.0, 25.0]
    Dw = study.weekly_dividers(run, finish, edges, "week")
    assert Dw[1:].tolist() == [15.0, 30.0, 1000.0]
    De = study.effective_dividers([np.nan, np.nan, 7.0, np.nan])
    assert De[:3].tolist() == [7.0, 7.0, 7.0] and math.isnan(De[3])
    # true class with the week's divider; week 0 uses the first divider
    assert study.true_classes([15, 16, 20, 21], [0, 1, 2, 2], D).tolist() == [1, 0, 1, 0]
    # the kill dividers: each job's week's divider (week 0: the first), floored
    assert study.kill_dividers([1, 1, 0, 1], [1, 2, 3, 0], D).tolist() == [15, 20, 25, 15]
    assert study.kill_dividers([1, 1], [1, 3], [np.nan, 15.5, 20.0, 25.9]).tolist() == [15, 25]
    assert study.kill_dividers([0, 0], [1, 2], D) is None
    # a job classified large may lack a divider (0, never used); a small one may not
    assert study.kill_dividers([0, 1], [0, 1], [np.nan, 7.0, np.nan]).tolist() == [7, 7]
    assert study.kill_dividers([1, 0], [1, 2], [np.nan, 7.0, np.nan]).tolist() == [7, 0]
    with pytest.raises(InputError, match="job index 1 is classified small"):
        study.kill_dividers([1, 1], [1, 2], [np.nan, 7.0, np.nan])
    with pytest.raises(InputError):
        study.weekly_dividers(run, finish, edges, "month")


# ------------------------------------------------------ weekly training --

def test_week_k_model_sees_only_jobs_known_at_its_start():
    submit, run, req, procs, user, wait = random_trace(n=500, weeks=5, seed=3)
    finish = submit + wait + run
    X, edges, D = full_features(submit, run, req, procs, user, finish)
    week = np.searchsorted(edges, submit, "right") - 1
    rng = np.random.default_rng(5)
    for k in range(1, len(edges) - 1):
        known = study.training_mask(finish, edges, k)
        assert known.any() and (submit[known] < edges[k]).all()      # only weeks < k
        assert (week[known] < k).all()
        a = study.fit_week(X, run, finish, edges, D, week, k, trees=8, seed=1)
        assert a["train_jobs"] == known.sum() and a["predicted"].size == (week == k).sum()
        assert np.isclose(np.nansum(a["importance"]), 1.0)
        # scramble everything about the jobs not known at e_k: same model, same predictions
        X2 = np.array(X)
        unknown = ~known & (week != k)
        X2[unknown] = rng.normal(size=(unknown.sum(), X.shape[1]))
        run2 = run.copy()
        run2[~known] = rng.integers(0, 40000, (~known).sum())
        b = study.fit_week(X2, run2, finish, edges, D, week, k, trees=8, seed=1)
        np.testing.assert_array_equal(a["predicted"], b["predicted"])
        np.testing.assert_array_equal(a["importance"], b["importance"])
        # and the training set does matter (the test can fail)
        c = study.fit_week(X, run[::-1].copy(), finish, edges, D, week, k, trees=8, seed=1)
        assert not (np.array_equal(a["importance"], c["importance"]))


def test_first_week_is_all_large_and_forests_are_seeded():
    submit, run, req, procs, user, wait = random_trace()
    finish = submit + wait + run
    X, edges, D = full_features(submit, run, req, procs, user, finish)
    week = np.searchsorted(edges, submit, "right") - 1
    r0 = study.fit_week(X, run, finish, edges, D, week, 0, trees=5)
    assert r0["train_jobs"] == 0 and not r0["predicted"].any() and np.isnan(r0["importance"]).all()
    a = study.fit_week(X, run, finish, edges, D, week, 2, trees=5, seed=7)
    b = study.fit_week(X, run, finish, edges, D, week, 2, trees=5, seed=7)
    np.testing.assert_array_equal(a["importance"], b["importance"])


def _same_forest(a, b, X):
    assert len(a.estimators_) == len(b.estimators_)
    for ta, tb in zip(a.estimators_, b.estimators_):
        for field in ("feature", "threshold", "children_left", "children_right", "value",
                      "impurity", "weighted_n_node_samples"):
            np.testing.assert_array_equal(getattr(ta.tree_, field), getattr(tb.tree_, field), err_msg=field)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.feature_importances_, b.feature_importances_)


@pytest.mark.parametrize("max_samples", [None, 150])
def test_fit_forest_grows_scikit_learns_forest(max_samples):
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(11)
    n = 600
    # few distinct values, so that many rows are equal -- some of them with both labels
    X = np.column_stack([rng.integers(0, 4, n), rng.integers(0, 3, n), rng.choice([0.25, 0.5, 1.0], n),
                         rng.integers(-1, 2, n), rng.integers(0, 2, n)]).astype(np.float64)
    y = ((X[:, 0] + X[:, 2] + rng.normal(0, 1, n)) > 2).astype(np.int8)
    distinct = np.unique(np.column_stack([X, y]), axis=0).shape[0]
    assert distinct < n / 2 and np.unique(X, axis=0).shape[0] < distinct   # merged rows, mixed labels
    ours = study.fit_forest(X, y, trees=12, max_samples=max_samples, random_state=5)
    sk = RandomForestClassifier(n_estimators=12, max_samples=max_samples, random_state=5, n_jobs=1).fit(X, y)
    _same_forest(ours, sk, X)
    # a different seed grows another forest (the comparison can fail)
    other = study.fit_forest(X, y, trees=12, max_samples=max_samples, random_state=6)
    assert not np.array_equal(other.feature_importances_, sk.feature_importances_)


def test_fit_forest_on_a_bundled_trace_week():
    from sklearn.ensemble import RandomForestClassifier

    pr = study.prepare("KTH-SP2", None, 12, "log", "all")
    X = study.feature_matrix("KTH-SP2", None, 12, "log", "all", "completed")
    k = 10
    train = study.training_mask(pr.finish, pr.edges, k)
    y = (pr.jobs.run[train] <= pr.dividers[k]).astype(np.int8)
    ours = study.fit_forest(X[train], y, trees=4, random_state=2021)
    sk = RandomForestClassifier(n_estimators=4, random_state=2021, n_jobs=1).fit(X[train], y)
    _same_forest(ours, sk, X[pr.week == k])


# --------------------------------------------------------------- scores --

def test_scores_on_a_known_confusion_matrix():
    s = study.scores([40, 10, 45, 5])            # TS FS TL FL
    assert s["accuracy"] == pytest.approx(85.0)
    assert s["precision"] == pytest.approx(80.0)
    assert s["recall"] == pytest.approx(100 * 40 / 45)
    assert s["false_large"] == pytest.approx(10.0) and s["false_small"] == pytest.approx(20.0)
    assert s["false_large_of_all"] == pytest.approx(5.0) and s["false_small_of_all"] == pytest.approx(10.0)
    empty = study.scores([0, 0, 48, 0])          # no small job at all (thesis' MetaCentrum week 12)
    assert empty["accuracy"] == 100.0 and math.isnan(empty["precision"]) and math.isnan(empty["recall"])
    weekly = study.scores([[40, 10, 45, 5], [0, 0, 47, 1]])
    np.testing.assert_allclose(weekly["recall"], [100 * 40 / 45, 0.0])
    assert study.confusion([1, 1, 0, 0, 1], [1, 0, 0, 1, 1]).tolist() == [2, 1, 1, 1]


def test_published_table_6_5_reads_as_shares_of_all_jobs():
    """Found here: 100 - FL - FS matches the published accuracy for all but
    HPC2N, so Table 6.5's percentages are of all jobs."""
    close = [abs(100 - fl - fs - study.PUBLISHED["table_6_4"][t][0]) < 1.5
             for t, (fl, fs) in study.PUBLISHED["table_6_5"].items()]
    assert sum(close) == 5


def test_pack_classes():
    c = np.random.default_rng(0).integers(0, 2, 1001)
    assert study.unpack_classes(study.pack_classes(c)).tolist() == c.tolist()
    assert study.unpack_classes(study.pack_classes([])).size == 0
    with pytest.raises(InputError):
        study.unpack_classes("12:!!")
    with pytest.raises(InputError):
        study.pack_classes([0, 2])


# ----------------------------------------------------------- scheduling --

def test_variants_on_a_hand_made_schedule():
    # m=1.  A (large, 1000 s) at 0; at 1: B (predicted small, truly large: runs 500) and C (small, 5 s).
    jobs = Jobs([0, 1, 1], [1000, 500, 5], [2000, 2000, 2000], [1, 1, 1])
    pred, truth = [0, 1, 1], [0, 0, 1]
    base = study.simulate_variant(jobs, 1, "SPF", "base")
    assert base.start.tolist() == [0, 1000, 1500]
    idem = study.simulate_variant(jobs, 1, "SPF", "classification-idempotent", predicted=pred, divider=100)
    assert idem.start.tolist() == [0, 1105, 1100] and idem.requeued.tolist() == [False, True, False]
    assert idem.first_start.tolist() == [-1, 1000, -1]
    # per-job dividers: B (classified in a week of divider 600) runs its 500 s as small
    idem2 = study.simulate_variant(jobs, 1, "SPF", "classification-idempotent", predicted=pred,
                                   divider=[600, 600, 100])
    assert idem2.start.tolist() == [0, 1000, 1500] and not idem2.requeued.any()
    idem3 = study.simulate_variant(jobs, 1, "SPF", "classification-idempotent", predicted=pred,
                                   divider=[0, 100, 600])
    assert idem3.start.tolist() == idem.start.tolist() and idem3.requeued.tolist() == [False, True, False]
    nokill = study.simulate_variant(jobs, 1, "SPF", "classification", predicted=pred, divider=100)
    assert nokill.start.tolist() == [0, 1000, 1500] and not nokill.requeued.any()
    clair = study.simulate_variant(jobs, 1, "SPF", "class-clairvoyant", truth=truth)
    assert clair.start.tolist() == [0, 1005, 1000]
    rt = study.simulate_variant(jobs, 1, "SPF", "runtime-clairvoyant")    # SPF on the real runtimes
    assert rt.start.tolist() == [0, 1005, 1000] and rt.jobs is jobs
    with pytest.raises(InputError, match="unknown variant"):
        study.simulate_variant(jobs, 1, "SPF", "oracle")


def test_schedule_outputs():
    jobs = Jobs([0, 1, W + 5], [10, 100, 20], [10, 100, 20], [1, 1, 1])
    s = simulate(jobs, 1)
    edges = np.array([0, W, 2 * W])
    out = study.schedule_outputs(s, [1, 0, 1], edges, np.array([0, study.MONTH]))
    b = [1.0, 109 / 100, 1.0]
    assert out["sum_bsld"][1] == pytest.approx(sum(b))
    assert out["mean_bsld_small"][1] == pytest.approx(1.0) and out["mean_bsld_large"][1] == pytest.approx(1.09)
    np.testing.assert_allclose(out["cum_sum_bsld"][1], [b[0] + b[1], sum(b)])
    assert out["cum_sum_bsld"][0] == ("week",) and out["month_mean_bsld"][1].shape == (1,)
    for name in out:
        assert name in store.VARIABLES, name


# ----------------------------------------------------------- parameters --

def validate(**kw):
    from schedlab.protocol.study import validate as protocol_validate
    return protocol_validate(study.Params, kw)


def test_validate():
    p = validate(traces="KTH-SP2, CTC-SP2", threshold="2.31d", weeks="10", max_samples="none")
    assert [t.name for t in p.traces] == ["KTH-SP2", "CTC-SP2"] and p.threshold == 199584 and p.weeks == 10
    assert p.max_samples is None and p.policies == study.POLICIES
    assert validate(threshold=None).threshold is None
    for kw, msg in ((dict(traces=[]), "at least one"), (dict(traces=["nope"]), "traces"),
                    (dict(policies=["SPF"]), "FCFS"), (dict(policies=["FCFS", "FCFS"]), "twice"),
                    (dict(trees=0), "trees"), (dict(weeks=1), "weeks"), (dict(history="future"), "history"),
                    (dict(finish="oracle"), "finish"), (dict(threshold="soon"), "threshold"),
                    (dict(divider_window=3), "divider_window"),
                    (dict(profile="quick"), "not a parameter of this study")):      # the driver's business
        with pytest.raises(InputError, match=msg):
            validate(**kw)


# -------------------------------------------------------- a whole trace --

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_trace(tmp_path_factory.mktemp("cls") / "tiny.swf", n=500, weeks=4, seed=2)


def test_cells_in_process(tiny):
    pr = study.prepare(str(tiny))
    assert pr.n_weeks == 4 and pr.tz == "Europe/Paris"
    pred = study.classify_trace(str(tiny), trees=5, seed=3)
    assert pred.size == len(pr.jobs) and not pred[pr.week == 0].any() and pred.any()
    np.testing.assert_array_equal(pred, study.classify_trace(str(tiny), trees=5, seed=3))   # reproducible
    cell = study.classify_cell({"trace": str(tiny), "week": 2, "trees": 5, "seed": 3})
    assert cell["predicted_small"][1].size == pr.slots
    np.testing.assert_array_equal(cell["predicted_small"][1][:int(cell["week_jobs"][1])], pred[pr.week == 2])
    assert (cell["predicted_small"][1][int(cell["week_jobs"][1]):] == -1).all()
    common = {"trace": str(tiny), "policy": "SPF", "variant": "classification-idempotent", "threshold": 200000}
    a = study.schedule_cell({**common, "classes": study.pack_classes(pred)})
    b = study.schedule_cell({**common, "trees": 5, "seed": 3})        # classes computed in the worker
    assert a["sum_bsld"][1] == b["sum_bsld"][1]
    # Each job is killed at its week's divider: the requeued jobs are those
    # classified small that run longer than it, under every policy, never a
    # truly small one.
    D = study.kill_dividers(pred, pr.week, pr.dividers)
    d = np.minimum(pr.jobs.run, pr.jobs.req)
    expect = int((pred.astype(bool) & (d > D)).sum())
    assert expect > 0
    for pol in ("FCFS", "SPF"):
        c = study.schedule_cell({**common, "policy": pol, "classes": study.pack_classes(pred)})
        assert c["requeued"][1] == expect and c["requeued_true_small"][1] == 0
    with pytest.raises(InputError, match="is not a parameter of this cell"):
        study.schedule_cell({**common, "colour": "red"})


NOTEBOOK = paths.NOTEBOOKS / "04-classification.ipynb"


def test_notebook_runs_with_tiny_parameters(tiny, tmp_path):
    papermill = pytest.importorskip("papermill")
    out = tmp_path / "out"
    papermill.execute_notebook(
        str(NOTEBOOK), str(tmp_path / "executed.ipynb"),
        parameters={"traces": [str(tiny)], "policies": ["FCFS", "SPF"], "trees": 5, "workers": 1,
                    "outdir": str(out), "cache_dir": str(tmp_path / "cache")},
        kernel_name="schedlab", progress_bar=False, cwd=str(tmp_path))
    for rel in ("numbers.json", "findings.json", "tables/table_6_4.csv", "tables/table_6_6.md",
                "tables/totals.csv", "figures/cumulative.png", "figures/importance.pdf",
                "figures/weekly_scores.png", "datasets/classify-tiny.nc", "datasets/schedule-tiny.nc",
                "data/weekly_scores.csv"):
        assert (out / rel).is_file(), rel
    doc = json.loads((out / "numbers.json").read_text())
    t = doc["per_trace"]["tiny"]
    assert doc["traces"] == ["tiny"] and doc["missing_traces"] == "MetaCentrum"
    assert doc["profile"] == doc["provenance"]["profile"] == "custom"
    assert not (tmp_path / "results").exists()          # cache and outputs where the cell said
    assert 0 <= t["accuracy_pct"] <= 100 and t["weeks"] == 4
    assert set(t["gain"]["SPF"]) == set(study.VARIANTS) - {"base"}
    ds = store.read_dataset(out / "datasets" / "schedule-tiny.nc")
    assert ds.sum_bsld.sizes == {"policy": 2, "variant": len(study.VARIANTS)}
    assert "sha256:" in json.dumps(ds.attrs["campaign"])
    executed = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    shown = "".join(o.get("data", {}).get("text/markdown", "") for c in executed.cells
                    if c.cell_type == "code" for o in c.outputs)
    assert "Table 6.4" in shown and "| tiny |" in shown


def test_campaign_spec_loads():
    from schedlab.campaigns.cells import resolve_cell
    from schedlab.campaigns.spec import Campaign
    c = Campaign.from_yaml(paths.ROOT / "campaigns" / "classification-kth.yaml")
    assert c.shape == (len(study.POLICIES), len(study.VARIANTS))
    assert resolve_cell(c.cell) is study.schedule_cell
    assert "version" not in c.params          # cache keys follow the code, not a hand-made version
