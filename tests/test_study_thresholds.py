"""Study 2 (thresholds and generalisation): the selection and the relative
costs on arrays whose answers are known by construction, the threshold
shortcut for FCFS primaries, the thesis' week slicing against an independent
count, parameter validation, and the notebook (through the driver) on a small
generated trace (checked against its own datasets)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from schedlab.campaigns import store
from schedlab.campaigns.cells import simulate_cell
from schedlab.campaigns.spec import Campaign
from schedlab.engine import metrics, sim
from schedlab import paths
from schedlab.workloads import traces
from schedlab.errors import InputError
from schedlab.studies import thresholds as study
from schedlab.studies.registry import get
from schedlab.studies.thresholds.analysis import _spearman
from schedlab.protocol.study import profile_params, run_study, validate
from schedlab.workloads.swf import write_swf

from test_study_prediction import execute_notebook, shown_markdown

WEEK = 7 * 86400
M = 16
N_WEEKS = 8


def make_jobs(seed: int, weeks: int = N_WEEKS, per_week: int = 40):
    """A busy generated workload: the first job at time 0, some jobs that
    overrun their request (removed by the lelong2017 cleaning)."""
    rng = np.random.default_rng(seed)
    n = weeks * per_week
    submit = np.sort(rng.integers(0, weeks * WEEK, n))
    submit[0] = 0
    run = rng.integers(60, 40000, n)
    req = (run * rng.uniform(1.0, 3.0, n)).astype(np.int64)
    over = rng.random(n) < 0.05
    req[over] = run[over] // 2
    procs = rng.integers(1, M + 1, n)
    user = rng.integers(1, 6, n)
    wait = rng.integers(0, 20000, n)
    return submit, run, req, procs, user, wait


def write_trace(path: Path, seed: int = 5) -> Path:
    submit, run, req, procs, user, wait = make_jobs(seed)
    n = submit.size
    fields = {"job_id": np.arange(1, n + 1), "submit": submit, "wait": wait, "run": run,
              "alloc_procs": procs, "req_procs": procs, "req_time": req, "user": user,
              "status": np.ones(n, dtype=np.int64)}
    return write_swf(path, fields, header_lines=["Version: 2.2", "Computer: generated",
                                                  f"MaxProcs: {M}", "UnixStartTime: 0"])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return write_trace(tmp_path_factory.mktemp("thr") / "tiny.swf")


# ------------------------------------------------------------- selection --

def test_select_by_mean_and_by_mean_ratio():
    base = [10.0, 1000.0]
    train = np.array([base, [5.0, 1100.0], [20.0, 800.0]])
    # means 505, 552.5, 410; weekly ratios (1, 1), (0.5, 1.1), (2, 0.8)
    assert study.select(train, base, "mean") == 2
    assert study.select(train, base, "mean-ratio") == 1
    assert study.select(np.ones((3, 4)), np.ones(4)) == 0              # ties: the first pair
    assert study.select([[np.nan, 5.0], [7.0, 7.0]], [1.0, 1.0]) == 0   # NaN weeks left out
    with pytest.raises(InputError, match="criterion"):
        study.select(train, base, "median")
    with pytest.raises(InputError, match="pairs, weeks"):
        study.select([1.0, 2.0], base)


def test_train_test_reports_the_test_cost_of_the_training_winner():
    names = ["EASY-FCFS-FCFS", "EASY-A-A", "EASY-B-B"]
    w = 6
    train = {"avg_wait": np.array([[100.0] * w, [80.0] * w, [90.0] * w]),
             "max_wait": np.array([[1000.0] * w, [1200.0] * w, [900.0] * w])}
    # B is better on the testing weeks, but A won on the training weeks.
    test = {"avg_wait": np.array([[200.0] * w, [150.0] * w, [100.0] * w]),
            "max_wait": np.array([[1000.0] * w, [1500.0] * w, [800.0] * w]),
            "mean_bsld": np.array([[10.0] * w, [6.0] * w, [5.0] * w])}
    r = study.train_test(names, train, test, base_index=0, threshold=72000)
    assert (r.pair, r.index, r.threshold) == ("EASY-A-A", 1, 72000)
    assert r.train_avg_rel == pytest.approx(0.8) and r.test_avg_rel == pytest.approx(0.75)
    assert r.train_gain == pytest.approx(20.0) and r.test_gain == pytest.approx(25.0)
    assert r.test_gain_ci == pytest.approx((25.0, 25.0))                # constant ratio: no spread
    assert r.test_max_rel == pytest.approx(1.5) and r.train_max_rel == pytest.approx(1.2)
    assert (r.test_max, r.test_base_max) == (1500.0, 1000.0)
    assert r.test_bsld_rel == pytest.approx(0.6) and r.test_bsld_gain == pytest.approx(40.0)
    assert (r.train_base_avg, r.test_base_avg, r.test_avg) == (100.0, 200.0, 150.0)
    np.testing.assert_allclose(r.train_diff, [0.0, -20.0, -10.0])
    np.testing.assert_allclose(r.test_diff, [0.0, -50.0, -100.0])
    assert r.alt_pair == "EASY-A-A" and r.alt_test_gain == pytest.approx(25.0)
    with pytest.raises(InputError, match="base_index"):
        study.train_test(names, train, test, base_index=3)
    with pytest.raises(InputError, match="names"):
        study.train_test(names[:2], train, test, base_index=0)


def test_gain_ci_and_ratio_of_means():
    rng = np.random.default_rng(1)
    base = rng.uniform(1000, 5000, 200)
    assert study.gain_ci(0.8 * base, base) == pytest.approx((20.0, 20.0, 20.0))
    noisy = base * rng.uniform(0.5, 1.1, base.size)
    g, lo, hi = study.gain_ci(noisy, base, seed=3)
    assert lo < g < hi and 0 < lo and hi < 50
    assert g == pytest.approx(100 * (1 - noisy.mean() / base.mean()))
    assert study.gain_ci(noisy, base, seed=3) == (g, lo, hi)            # seeded
    # weeks where either side is missing are left out of both means
    assert study.ratio_of_means([1.0, np.nan, 3.0], [2.0, 5.0, 2.0]) == pytest.approx(1.0)
    assert all(math.isnan(x) for x in study.gain_ci([np.nan], [1.0]))
    with pytest.raises(InputError, match="lengths"):
        study.ratio_of_means([1.0, 2.0], [1.0])


def test_spearman():
    assert _spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert _spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert _spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert math.isnan(_spearman([1, 2], [1, 2]))


# ------------------------------------------------------------- threshold --

def test_fcfs_primary_ignores_the_threshold():
    """The study simulates the FCFS-primary pairs once for every T: a
    threshold cannot change FCFS order (while it does change SPF's)."""
    submit, run, req, procs, _, _ = make_jobs(11, weeks=2, per_week=150)
    jobs = sim.Jobs(submit, run, np.maximum(req, run), procs)
    for back in ("FCFS", "SPF", "LQF"):
        a = sim.simulate(jobs, M, f"EASY-FCFS-{back}", threshold=3600)
        b = sim.simulate(jobs, M, f"EASY-FCFS-{back}")
        assert a.forced.any()                       # the threshold was active...
        np.testing.assert_array_equal(a.start, b.start)   # ...and changed nothing
    a = sim.simulate(jobs, M, "EASY-SPF-SPF", threshold=3600)
    b = sim.simulate(jobs, M, "EASY-SPF-SPF")
    assert (a.start != b.start).any()


def _same_schedule(a, b) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("start", "end", "flags"))


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_threshold_sweep_gives_each_thresholds_own_simulation(seed):
    """threshold_sweep (one run without threshold, cloned where a threshold
    starts to bite) gives, at every threshold, the schedule of its own
    simulation: starts, ends and flags (forced ones included), for
    thresholds that bite early, late and never, with and without the
    threshold leading the backfilling order, in any order given."""
    submit, run, req, procs, _, _ = make_jobs(seed, weeks=2, per_week=150)
    jobs = sim.Jobs(submit, run, np.maximum(req, run), procs)
    ths = [36000, None, 600, 3600, 7200, 10 ** 8]
    bit = 0
    for prim, back in (("SPF", "SPF"), ("LQF", "FCFS"), ("LEXP", "SAF"), ("SQF", "LPF")):
        for tb in (False, True):
            got = study.cells.threshold_sweep(jobs, M, prim, back, ths, threshold_backfill=tb)
            for t, g in zip(ths, got):
                want = sim.simulate(jobs, M, sim.Policy(prim, back, t, tb))
                assert _same_schedule(g, want), (prim, back, t, tb)
                assert g.policy == want.policy
                bit += bool(g.forced.any())
        one = study.cells.threshold_sweep(jobs, M, prim, back, [3600])[0]     # alone: its own run
        assert _same_schedule(one, sim.simulate(jobs, M, sim.Policy(prim, back, 3600)))
    assert bit > 10                         # thresholds that bite were among them
    base = sim.simulate(jobs, M, "EASY-SPF-SPF")
    assert base.wait.max() < 10 ** 8        # and one that never does


def test_sweep_cell_is_the_simulate_cell_at_each_threshold(tiny):
    """The study's sweep cell returns, threshold by threshold, exactly what
    the campaign's simulate cell returns, and counts only the jobs its
    simulations complete."""
    base = {"trace": str(tiny), "overrun": "drop", "workload": "resample", "weeks": 4, "seed": 3,
            "half": "train", "primary": "SPF", "backfill": "LQF", "metrics": list(study.METRICS)}
    labels = ["1h", "none", "5h", "100h"]
    before = sim.jobs_simulated()
    got = study.cells.sweep_cell({**base, "thresholds": labels})
    swept = sim.jobs_simulated() - before
    before = sim.jobs_simulated()
    for k, t in enumerate(labels):
        want = simulate_cell({**base, "threshold": t})
        for name in study.METRICS:
            assert got[name][0] == ("threshold", "week")
            np.testing.assert_array_equal(got[name][1][k], want[name][1])
    alone = sim.jobs_simulated() - before
    assert 0 < swept < alone
    with pytest.raises(InputError, match="thresholds"):
        study.cells.sweep_cell({**base, "thresholds": ["20h", "72000"]})
    with pytest.raises(InputError, match="sweep cell: .threshold. is not a parameter of this cell"):
        study.cells.sweep_cell({**base, "thresholds": ["20h"], "threshold": "20h"})


def test_traintest_dataset_repeats_the_fcfs_rows():
    import xarray as xr

    w = 3
    # the sweep cells' layout: threshold (unlabelled, in the order given) and week are the cells' own dims
    grid = xr.Dataset({"avg_wait": (("half", "primary", "backfill", "threshold", "week"),
                                    np.arange(2 * 1 * 2 * 2 * w, dtype=float).reshape(2, 1, 2, 2, w))},
                      coords={"half": ["train", "test"], "primary": ["SPF"], "backfill": ["FCFS", "SPF"]})
    fcfs = xr.Dataset({"avg_wait": (("half", "primary", "backfill", "week"),
                                    -np.arange(2 * 1 * 2 * w, dtype=float).reshape(2, 1, 2, w))},
                      coords={"half": ["train", "test"], "primary": ["FCFS"], "backfill": ["FCFS", "SPF"]})
    ds = study.traintest_dataset([grid, fcfs], ["FCFS", "SPF"], [72000, None])
    assert dict(ds.sizes) == {"half": 2, "threshold": 2, "primary": 2, "backfill": 2, "week": w}
    assert list(ds.primary.values) == ["FCFS", "SPF"]
    for t in ("20h", "none"):
        np.testing.assert_array_equal(ds.avg_wait.sel(threshold=t, primary="FCFS").values,
                                      fcfs.avg_wait.sel(primary="FCFS").values)
    for k, t in enumerate(("20h", "none")):
        np.testing.assert_array_equal(ds.avg_wait.sel(threshold=t, primary="SPF").values,
                                      grid.avg_wait.isel(threshold=k).sel(primary="SPF").values)


# ----------------------------------------------------------- thesis weeks --

def test_thesis_cell_slices_weeks_like_the_thesis(tiny):
    """First week skipped, n weeks, jobs whose recorded finish crosses their
    week's end removed -- counted here directly from the generated jobs."""
    submit, run, req, procs, _, wait = make_jobs(5)
    keep = run <= req                                   # lelong2017 cleaning
    week = submit // WEEK
    inside = submit + wait + run <= (week + 1) * WEEK
    expected = [int(np.sum(keep & inside & (week == k))) for k in (1, 2, 3)]
    out = study.thesis_cell({"trace": str(tiny), "primary": "SAF", "n_weeks": 3, "metrics": ["jobs", "mean_bsld"]})
    dims, jobs = out["jobs"]
    assert dims == ("week",) and jobs.tolist() == expected
    assert np.all(out["mean_bsld"][1] >= 1.0)
    assert len(study.thesis_cell({"trace": str(tiny), "metrics": ["jobs"]})["jobs"][1]) == N_WEEKS - 1
    with pytest.raises(InputError, match="is not a parameter of this cell"):
        study.thesis_cell({"trace": str(tiny), "weeks": 3})
    with pytest.raises(InputError, match="finish"):
        study.thesis_cell({"trace": str(tiny), "finish": "log"})


def test_thesis_readings_cell_computes_every_reading(tiny, tmp_path):
    """The readings cell: the paper's-text reading is the counted cell's value
    bit for bit; every job kept (``keep``) and the weeks aligned on the log's
    origin (``origin``) give the counts found directly from the generated jobs;
    tau = 60 s never raises a week's mean bsld."""
    from schedlab.studies.thresholds import readings as cells

    ths = ["none", "200000s", "2h"]
    text = cells.thesis_readings_cell({"trace": str(tiny), "primary": "SAF", "n_weeks": 3, "thresholds": ths})
    for k, t in enumerate(ths):
        one = study.thesis_cell({"trace": str(tiny), "primary": "SAF", "n_weeks": 3, "metrics": ["mean_bsld"],
                                 "threshold": None if t == "none" else sim.parse_duration(t)})
        assert text["mean_bsld"][1][k].tolist() == one["mean_bsld"][1].tolist()
    assert np.all(text["mean_bsld_tau60"][1] <= text["mean_bsld"][1]) and np.all(text["mean_bsld_tau60"][1] >= 1)
    # a log whose first job comes 3 days after its origin: the two alignments differ
    submit, run, req, procs, user, wait = make_jobs(5)
    shift = 3 * 86400
    n = submit.size
    shifted = write_swf(tmp_path / "shifted.swf",
                        {"job_id": np.arange(1, n + 1), "submit": submit + shift, "wait": wait, "run": run,
                         "alloc_procs": procs, "req_procs": procs, "req_time": req, "user": user,
                         "status": np.ones(n, dtype=np.int64)},
                        header_lines=["Version: 2.2", "Computer: generated", f"MaxProcs: {M}", "UnixStartTime: 0"])
    keep = run <= req
    for align, origin in (("first", shift), ("origin", 0)):
        week = (submit + shift - origin) // WEEK
        out = cells.thesis_readings_cell({"trace": str(shifted), "primary": "FCFS", "n_weeks": 3, "thresholds": ["none"],
                                          "crossing": "keep", "align": align})
        assert out["jobs"][1][0].tolist() == [int(np.sum(keep & (week == k))) for k in (1, 2, 3)], align
        run_end = submit + shift + run <= origin + (week + 1) * WEEK
        out = cells.thesis_readings_cell({"trace": str(shifted), "primary": "FCFS", "n_weeks": 3, "thresholds": ["none"],
                                          "crossing": "run", "align": align})
        assert out["jobs"][1][0].tolist() == [int(np.sum(keep & run_end & (week == k))) for k in (1, 2, 3)], align
    with pytest.raises(InputError, match="align"):
        cells.thesis_readings_cell({"trace": str(tiny), "thresholds": ["none"], "align": "monday"})
    with pytest.raises(InputError, match="crossing"):
        cells.thesis_readings_cell({"trace": str(tiny), "thresholds": ["none"], "crossing": "start"})
    with pytest.raises(InputError, match="thresholds"):
        cells.thesis_readings_cell({"trace": str(tiny)})
    with pytest.raises(InputError, match="tie"):
        cells.thesis_readings_cell({"trace": str(tiny), "thresholds": ["none"], "tie": "latest"})
    # ocst's order of equal keys: each threshold's schedule is simulate(..., tie="newest")'s
    newest = cells.thesis_readings_cell({"trace": str(tiny), "primary": "SAF", "n_weeks": 3, "thresholds": ths,
                                         "tie": "newest"})
    weeks, m = cells._reading_weeks(str(tiny), None, "drop", 1, 3, "recorded", "first")
    for k, t in enumerate(ths):
        thr = None if t == "none" else sim.parse_duration(t)
        for i, jobs in enumerate(weeks):
            s = sim.simulate(jobs, m, sim.Policy("SAF", "SAF", thr), tie="newest")
            assert newest["mean_bsld"][1][k, i] == pytest.approx(float(np.mean(metrics.bsld(s)[metrics._started(s)])))


def _thesis_result(trace, scale_text, readings):
    """A ThesisResult of ``trace`` at the thesis' weeks whose counted sums are
    the published ones x ``scale_text`` and whose reading ``name`` gives the
    published ones x ``readings[name]``."""
    from schedlab.studies.thresholds.analysis import ThesisResult
    from schedlab.studies.thresholds.cells import THESIS_WEEKS
    from schedlab.science.thesis_readings import thesis_readings

    pub = study.PUBLISHED["thesis"][trace]
    ths = list(study.params.THESIS_THRESHOLDS)
    pols = list(pub)
    r = ThesisResult(trace, THESIS_WEEKS[trace], 1000, ths, pols,
                     {pol: [v * scale_text for v in pub[pol]] for pol in pols})
    for name, text, *_ in thesis_readings():
        r.readings[name] = {pol: [v * readings.get(name, 2.0) for v in pub[pol]] for pol in pols}
        r.reading_texts[name] = text
    return r


def test_thesis_rows_carry_the_readings_and_identify_on_sdsc_sp2():
    """Every thesis row carries the 15 candidate readings; identify() chooses
    on the SDSC-SP2 rows only (fitted) and judges the other traces' rows
    (predicted): a reading right on SDSC-SP2 and on the others is identified,
    one right on SDSC-SP2 only is chosen but not identified, and one right on
    the held-out traces only is never chosen."""
    from schedlab.studies.thresholds.scorecard import thesis_rows
    from schedlab.science.thesis_readings import thesis_readings

    p = validate(study.Params, {"thesis_traces": []})
    names = [x[0] for x in thesis_readings()]
    assert len(names) == 15 and "tau10-recorded-first" not in names and "tau60-run-origin" in names
    good, fit_only, held_only = "tau60-run-origin", "tau60-req-first", "tau10-keep-origin"
    res = [_thesis_result("SDSC-SP2", 0.5, {good: 1.0, fit_only: 1.01}),
           _thesis_result("KTH-SP2", 2.0, {good: 1.02, held_only: 1.0}),
           _thesis_result("CTC-SP2", 0.6, {good: 0.97, held_only: 1.0})]
    rows = thesis_rows(p, res)
    assert len(rows) == 3 * 12 * 3
    assert all([rd.name for rd in row.readings] == names for row in rows)
    assert all(row.verdict == "not reproduced" and row.reading.startswith("the paper's text") for row in rows)
    s = rows[0].readings[0].summary
    assert s["chosen"] == good and s["identified"] and s["fit rows"] == 36 and s["held-out rows"] == 72
    for row in rows:
        rd = next(x for x in row.readings if x.name == good)
        assert rd.role == ("fitted" if row.trace == "SDSC-SP2" else "predicted")
        assert rd.identified and rd.verdict == "reproduced"
        assert all(not x.role for x in row.readings if x.name != good)
    # right on the fit rows only: chosen (a tie broken by the median error), not identified
    res = [_thesis_result("SDSC-SP2", 0.5, {fit_only: 1.0}),
           _thesis_result("KTH-SP2", 2.0, {held_only: 1.0})]
    rows = thesis_rows(p, res)
    s = rows[0].readings[0].summary
    assert s["chosen"] == fit_only and not s["identified"]
    assert all(not row.identified_reading() for row in rows)
    assert all(row.full_explanation().startswith("unexplained after: ") and f"{fit_only}: " in row.full_explanation()
               for row in rows if row.verdict == "not reproduced")


# ------------------------------------------------------------- parameters --

def test_thresholds_parsing():
    assert study.parse_thresholds(["none", "20h", 3600, "2.31d"]) == (3600, 72000, 199584, None)
    assert study.parse_thresholds("[20h, none]") == (72000, None)
    assert study.parse_thresholds(["none", 200000, "20h"], sort=False) == (None, 200000, 72000)
    assert [sim.format_duration(t) for t in (None, 72000, 200000)] == ["none", "20h", "200000s"]
    with pytest.raises(InputError, match="twice"):
        study.parse_thresholds(["20h", 72000])
    with pytest.raises(InputError, match=r"thresholds\[0\]"):
        study.parse_thresholds(["soon"])


def test_validate(tiny, tmp_path):
    P = study.Params
    p = validate(P, {"traces": "[KTH-SP2, CTC-SP2]", "weeks": "30", "policies": "FCFS, EXP", "thesis_traces": [],
                     "thresholds": ["none", "5h"], "sweep_traces": None})
    assert [r.name for r in p.traces] == ["KTH-SP2", "CTC-SP2"] and p.sweep_traces == p.traces
    assert p.policies == ("FCFS", "LEXP") and p.weeks == 30
    assert p.thresholds == (18000, None) and p.threshold == 72000
    q = validate(P, {"traces": [str(tiny)], "sweep_traces": [], "fig5_trace": None, "thesis_traces": []})
    assert q.traces[0].name == "tiny" and Path(traces.text(q.traces[0])).is_absolute() and q.traces[0].m == M
    assert q.sweep_traces == () and q.fig5_trace is None
    assert validate(P, {"fig5_trace": "none"}).fig5_trace is None
    # every trace parameter is read as traces is (traces.trace_list): names in any case, paths
    r = validate(P, {"fig5_trace": "kth-sp2", "sweep_traces": f"[{tiny}]", "thesis_traces": [tiny]})
    assert (r.fig5_trace.name, r.sweep_traces[0].name, r.thesis_traces[0].name) == ("KTH-SP2", "tiny", "tiny")
    bad = [({"traces": []}, "at least one trace"), ({"traces": ["no-such-log"]}, r"traces\[0\]"),
           ({"traces": ["KTH-SP2", "kth-sp2"]}, "both named"), ({"policies": ["SPF", "LPF"]}, "FCFS"),
           ({"policies": ["FCFS"]}, "at least two"), ({"policies": ["FCFS", "XYZ"]}, "unknown queue policy"),
           ({"weeks": 1}, "weeks"), ({"weeks": "many"}, "weeks"),
           ({"threshold": "none"}, "conservative"), ({"criterion": "best"}, "criterion"),
           ({"thesis_finish": "end"}, "thesis_finish"), ({"overrun": "keep"}, "overrun"),
           ({"seed": -1}, "seed"), ({"fig5_trace": ["KTH-SP2", "CTC-SP2"]}, "one trace"),
           ({"sweep_traces": ["no-such-log"]}, r"sweep_traces\[0\]"),
           ({"thesis_thresholds": []}, "thesis_thresholds"), ({"thresholds": []}, "thresholds"),
           ({"workers": 2}, "not a parameter"), ({"outdir": "x"}, "not a parameter"),
           ({"scheduler": "tcp://x:1"}, "not a parameter")]
    for kw, msg in bad:
        with pytest.raises(InputError, match=msg):
            validate(P, kw)


def test_profiles_validate():
    quick = profile_params(get("thresholds"), "quick")
    assert quick == validate(study.Params, {})                       # the quick profile is the defaults
    assert (quick.weeks, len(quick.sweep_traces), len(quick.thresholds)) == (30, 4, 6)
    full = profile_params(get("thresholds"), "full")
    assert full.weeks == 250 and full.sweep_traces == full.traces and len(full.traces) == 5
    assert [sim.format_duration(t) for t in full.thresholds] == list(study.PAPER_THRESHOLDS)


def test_the_command_line_campaign_is_the_studys_kth_grid():
    """campaigns/thresholds-kth.yaml holds the cells of the study's train/test
    grid of KTH-SP2 at the full profile's size (T = 20 h and none)."""
    spec = Campaign.from_yaml(paths.ROOT / "campaigns" / "thresholds-kth.yaml")
    full = profile_params(get("thresholds"), "full")
    kth = next(t for t in full.traces if t.name == "KTH-SP2")
    ours = study.cells.traintest_campaigns(full, kth, [72000, None])

    def cells(c):       # thresholds as seconds (the yaml's "none" is the study's None)
        out = set()
        for _, p in c.cells():   # a sweep cell stands for one simulate cell per threshold
            for t in p.pop("thresholds", [p.get("threshold")]):
                out.add(json.dumps({**p, "threshold": sim.parse_duration(t)}, sort_keys=True))
        return out

    theirs = cells(spec)
    assert cells(ours[0]) <= theirs and cells(ours[1]) <= theirs
    assert spec.cell == ours[1].cell == "simulate"
    assert ours[0].cell == "schedlab.studies.thresholds.cells:sweep_cell"


def test_published_values_are_quoted():
    assert study.PUBLISHED["fig8_gain_pct"] == {"SDSC-BLUE": 21.0, "SDSC-SP2": 11.0, "CTC-SP2": 36.0,
                                                "CEA-Curie": 42.0, "KTH-SP2": 29.0}
    assert study.PUBLISHED["fig8_cea_maxwait_s"] == {"learned": 88747, "baseline": 86680}
    thesis = study.PUBLISHED["thesis"]
    assert list(thesis) == list(study.THESIS_TABLES) == ["SDSC-SP2", "SDSC-BLUE", "KTH-SP2", "CTC-SP2"]
    for rows in thesis.values():
        assert sorted(rows) == sorted(sim.BANDIT_POLICIES) and all(len(v) == 3 for v in rows.values())
    assert thesis["KTH-SP2"]["FCFS"] == (850.16, 850.16, 850.16)
    assert thesis["SDSC-SP2"]["LAF"] == (5322.73, 4811.85, 3525.13)
    assert study.THESIS_WEEKS == {"SDSC-SP2": 100, "SDSC-BLUE": 100, "KTH-SP2": 45, "CTC-SP2": 45}
    assert study.THESIS_THRESHOLDS == (None, 200000, 72000)


# ---------------------------------------------------------------- notebook --

NOTEBOOK = paths.NOTEBOOKS / "02-thresholds.ipynb"


def test_notebook_runs_on_a_small_trace(tiny, tmp_path):
    out = tmp_path / "out"
    params = {"traces": [str(tiny)], "thresholds": "[2h, none]", "weeks": 4, "policies": ["FCFS", "SPF"],
              "fig5_trace": str(tiny), "thesis_traces": [str(tiny)], "thesis_policies": ["FCFS", "SPF", "SAF"],
              "sweep_traces": None}
    executed = execute_notebook(NOTEBOOK, tmp_path, {**params, "workers": 1, "outdir": str(out)})
    for rel in ("numbers.json", "datasets/fig5.nc", "datasets/fig5_baseline.nc", "datasets/traintest.nc",
                "datasets/thesis.nc", "figures/fig5.png", "figures/fig5.pdf", "figures/sweep.png",
                "figures/fig8.png", "figures/thesis.pdf", "tables/table3.csv", "tables/fig5.md",
                "tables/traintest.csv", "tables/sec73.csv", "tables/fig8.csv", "tables/fig8_maxwait.md",
                "tables/thesis_tiny.csv", "tables/thesis_checks.csv", "tables/thesis_readings.csv"):
        assert (out / rel).is_file(), rel
    assert not list(out.rglob("*.tmp*"))
    nums = json.loads((out / "numbers.json").read_text())
    science = {k: v for k, v in nums.items() if k not in ("provenance", "timing", "scorecard")}
    assert all(v is None or isinstance(v, (str, int, float, bool)) for v in science.values())   # flat
    assert nums["scorecard"]["counts"]["compared"] + nums["scorecard"]["counts"]["not compared"] >= 1
    assert nums["weeks"] == 4 and nums["n_pairs"] == 4 and nums["thesis_tiny_weeks"] == N_WEEKS - 1
    assert "wall_s" not in science and nums["timing"]["wall_s"] > 0
    assert nums["provenance"]["inputs"]["tiny"]["sha256"] and nums["provenance"]["profile"] == "custom"

    # The reported gain is the learned pair's, recomputed from the dataset.
    ds = store.read_dataset(out / "datasets" / "traintest.nc").sel(trace="tiny", threshold="20h")
    assert dict(ds.sizes) == {"half": 2, "primary": 2, "backfill": 2, "week": 4}
    means = ds.avg_wait.mean("week")
    learned = means.sel(half="train").argmin(...)
    a, b = ds.primary.values[learned["primary"]], ds.backfill.values[learned["backfill"]]
    assert nums["tiny_learned"] == f"EASY-{a}-{b}"
    test = means.sel(half="test")
    gain = 100 * (1 - float(test.sel(primary=a, backfill=b)) / float(test.sel(primary="FCFS", backfill="FCFS")))
    assert nums["tiny_gain_pct"] == pytest.approx(gain)
    assert nums["tiny_gain_low_pct"] <= nums["tiny_gain_pct"] <= nums["tiny_gain_high_pct"]

    shown = shown_markdown(executed)
    assert "lelong2017 §7.4, Fig. 8" in shown and "| tiny |" in shown

    # A second run computes nothing: every cell comes from the cache.
    logged = []
    res = run_study("thresholds", overrides=params, outdir=tmp_path / "again", workers=1,
                    cache_dir=tmp_path / "results" / "cache", log=logged.append)
    starts = [line for line in logged if "cells," in line]
    assert starts and all(", 0 to compute" in line for line in starts)
    assert res["timing"]["cells_computed"] == 0
    assert res["numbers"]["tiny_gain_pct"] == pytest.approx(nums["tiny_gain_pct"])


def test_thesis_table_5_6_is_the_longest_jobs_of_sdsc_sp2():
    """Found by this study: thesis Table 5.6 is the log's ten longest jobs as
    recorded, and all but one ran past their request, so the lelong2017
    cleaning removes them."""
    ref = validate(study.Params, {"traces": ["SDSC-SP2"], "thesis_traces": ["SDSC-SP2"]}).thesis_traces[0]
    t = study.table_thesis_5_6(ref, "drop")
    assert t.column("job") == t.column("job (thesis)")
    assert t.column("runtime s") == t.column("runtime s (thesis)")
    assert t.column("procs") == t.column("procs (thesis)")
    assert [job for job, kept in zip(t.column("job"), t.column("kept by the cleaning")) if kept] == [17]


def test_sec73_rows_name_their_log_and_the_readings():
    """lelong2017 §7.3's ranges: each compared row says which log gives the extreme and carries
    the §7.4 readings (weekly ratios, the other criterion), each taken over the same logs."""
    from types import SimpleNamespace

    from schedlab.studies import Table
    from schedlab.studies.thresholds.scorecard import sec73_rows

    logs = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")

    def tt(avg, weekly_gain, alt_gain, mx, alt_max):
        return SimpleNamespace(pair="EASY-SPF-FCFS", test_avg_rel=avg, test_gain_weekly=weekly_gain,
                               alt_test_gain=alt_gain, test_max_rel=mx, alt_test_max=alt_max, test_base_max=100.0)

    sweep = {n: {"none": tt(0.5 + i / 10, 10.0 * i, 20.0, 1.0 + i, 150.0 + i)} for i, n in enumerate(logs)}
    table = Table(["T", "quantity", "published", "reproduced", "difference"],
                  [["none", "test AvgWait rel., lowest", 0.9, 0.5, -0.4],
                   ["none", "test MaxWait rel., highest", 2.5, 5.0, 2.5]])
    low, high = sec73_rows(table, logs, sweep)
    # over the paper's five logs, CEA-Curie among them (stated over 3 months, ours 8.3, the same log by rule
    # "same log"): compared
    assert low.verdict == low.by_rule == "direction only, magnitude off"
    assert "ours is KTH-SP2's" in low.explanation
    assert {r.name: r.ours for r in low.readings} == {"weekly ratios": pytest.approx(0.6), "other criterion": 0.8}
    assert "ours is CEA-Curie's" in high.explanation
    assert [(r.name, r.ours) for r in high.readings] == [("other criterion", pytest.approx(1.54))]
    assert high.full_explanation().startswith("unexplained; ours is CEA-Curie's") and "readings tried" in \
        high.full_explanation()
    shown = sec73_rows(table, logs[:4], {n: sweep[n] for n in logs[:4]})      # not the paper's five logs
    assert all(r.verdict == "not compared" and "CEA-Curie" in r.explanation for r in shown)
