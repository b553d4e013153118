"""Study 1 (policies): the computations on inputs whose answers are known by
construction, the parameter validation, the cells, and the notebook (through
the driver) on a generated trace (then re-run from the cache)."""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from schedlab.campaigns.cells import simulate_cell
from schedlab.campaigns.runner import Runner
from schedlab import paths, stats
from schedlab.workloads import swf
from schedlab.engine import sim
from schedlab.errors import InputError
from schedlab.studies import jsonable
from schedlab.studies import policies as study
from schedlab.studies.registry import get
from schedlab.protocol.study import profile_params, run_study, validate

from test_study_prediction import execute_notebook, shown_markdown

WEEK = 7 * 86400


# ------------------------------------------------------------ computations --

def test_relative_summary_known_ratios():
    base = np.array([10.0, 10.0, 20.0, 0.0, 0.0])
    vals = np.array([5.0, 10.0, 30.0, 0.0, 7.0])     # ratios 0.5, 1, 1.5, 1 (0/0), NaN (x/0)
    s = study.relative_summary(vals, base)
    np.testing.assert_allclose(s["ratio"], [0.5, 1.0, 1.5, 1.0, np.nan])
    assert s["mean"] == pytest.approx(1.0)
    assert s["left_out"] == 1
    assert s["d10"] == pytest.approx(np.nanpercentile([0.5, 1, 1.5, 1], 10))
    assert s["d90"] == pytest.approx(np.nanpercentile([0.5, 1, 1.5, 1], 90))
    assert s["ci_low"] <= s["mean"] <= s["ci_high"]
    # the CI is stats.bootstrap_ci's, seeded
    est, lo, hi = stats.bootstrap_ci(s["ratio"], seed=0)
    assert (s["ci_low"], s["ci_high"]) == (lo, hi)


def test_pair_summary_relative_to_fcfs_fcfs():
    pols = ["FCFS", "SPF"]
    avg = np.empty((2, 2, 4))
    avg[0, 0] = [100, 200, 300, 400]                 # the baseline
    avg[0, 1] = [100, 200, 300, 400]                 # same as baseline: ratio 1
    avg[1, 0] = [50, 100, 150, 200]                  # half every week
    avg[1, 1] = [200, 200, 300, 800]                 # ratios 2, 1, 1, 2
    mx = avg * 10
    mx[1, 1, 3] = 10000                              # largest MaxWait of all weeks: 10000 vs 4000
    rows = {(r["primary"], r["backfill"]): r for r in study.pair_summary(avg, mx, pols)}
    assert rows[("FCFS", "FCFS")]["avg_mean"] == 1 and rows[("FCFS", "FCFS")]["maxmax"] == 1
    assert rows[("SPF", "FCFS")]["avg_mean"] == pytest.approx(0.5)
    assert rows[("SPF", "FCFS")]["avg_ci_high"] == pytest.approx(0.5)       # no spread: CI is a point
    assert rows[("SPF", "FCFS")]["significant"] and not rows[("FCFS", "SPF")]["significant"]
    assert rows[("SPF", "SPF")]["avg_mean"] == pytest.approx(1.5)
    assert rows[("SPF", "SPF")]["max_mean"] == pytest.approx((2 + 1 + 1 + 10000 / 4000) / 4)
    assert rows[("SPF", "SPF")]["maxmax"] == pytest.approx(10000 / 4000)
    with pytest.raises(InputError):
        study.pair_summary(avg[:1], mx[:1], pols)


def test_bsld_classes_boundaries():
    b = [1.0, 1.0, 1.0000001, 9.99, 10.0, 99.9, 100.0, 1e4, np.nan]
    assert study.bsld_classes(b).tolist() == [2, 2, 2, 2]
    assert study.BSLD_CLASSES == ("1", "1-10", "10-100", "100+")


def test_premature_ratio_by_hand():
    run = [10, 10, 0, 100, 50]
    req = [1000, 20, 5, 100, 4999]        # premature: 1000 >= 100*10, 5 > 0 = p; 4999 < 5000
    bsld = [3.0, 1.0, 5.0, 2.0, 4.0]
    prem, std, n = study.premature_ratio(bsld, run, req)
    assert n == 2
    assert prem == pytest.approx(4.0) and std == pytest.approx((1 + 2 + 4) / 3)
    p, s, n = study.premature_ratio([1.0], [10], [20])
    assert math.isnan(p) and s == 1.0 and n == 0


def test_cumulative_by_week():
    end = np.array([5, 15, 16, 35, 99, -3])
    v = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    s, c, m = study.cumulative_by_week(v, end, n_weeks=3, week=10)
    # weeks [0,10) [10,20) [20,30); end 35 and 99 count in the last, -3 in the first
    assert c.tolist() == [2, 4, 6]
    np.testing.assert_allclose(s, [7, 12, 21])
    np.testing.assert_allclose(m, [3.5, 3.0, 3.5])
    s, c, m = study.cumulative_by_week([1.0], [50], n_weeks=3, week=10)
    assert np.isnan(m[:2]).all() and m[2] == 1.0


def test_top_procs_order_ties_and_padding():
    assert study.top_procs([5, 9, 9, 1], [1, 2, 3, 4], 3).tolist() == [2, 3, 1]
    assert study.top_procs([5, 9], [1, 2], 4).tolist() == [2, 1, -1, -1]
    assert study.top_procs([np.nan, 2], [7, 8], 2).tolist() == [8, 7]


def test_schedule_outputs_on_a_hand_worked_schedule():
    # m = 2.  Job 1 (q 2) runs [0,100); job 2 (q 2) waits for it and runs [100,200);
    # job 3 (q 1, p 1, p~ 1000: premature) finds no free processor until 200.
    jobs = sim.Jobs(submit=[0, 0, 0], run=[100, 100, 1], req=[100, 100, 1000], procs=[2, 2, 1])
    s = sim.simulate(jobs, 2, "EASY-FCFS-FCFS")
    assert s.start.tolist() == [0, 100, 200]
    out = study.schedule_outputs(s, n_weeks=3, week=100, top=2)
    val = {k: v for k, (d, v) in out.items()}
    # bsld: 1, (100+100)/100 = 2, (200+1)/10 = 20.1
    assert val["bsld_class_jobs"].tolist() == [1, 1, 1, 0]
    assert val["premature_jobs"] == 1
    assert val["mean_bsld_premature"] == pytest.approx(20.1)
    assert val["mean_bsld_standard"] == pytest.approx(1.5)
    assert val["top_bsld_procs"].tolist() == [1, 2]
    assert val["sum_wait"] == 300 and val["max_wait"] == 200
    # ends 100, 200, 201 -> weeks 1, 2, 2 of 100 s
    np.testing.assert_allclose(val["cum_mean_bsld"], [np.nan, 1.0, (1 + 2 + 20.1) / 3])
    np.testing.assert_allclose(val["cum_avg_wait"], [np.nan, 0.0, 100.0])
    assert out["cum_mean_bsld"][0] == ("week",) and out["top_bsld_procs"][0] == ("rank",)


def test_total_change_is_eq_11_of_online_bandit():
    base = np.array([100.0, 300.0, 600.0])
    pol = np.array([50.0, 330.0, 420.0])            # sums 800 vs 1000: -20 %
    est, lo, hi = study.total_change(pol, base)
    assert est == pytest.approx(-0.2)
    assert lo <= est <= hi and lo < hi
    est, lo, hi = study.total_change(2 * base, base)
    assert (est, lo, hi) == pytest.approx((1.0, 1.0, 1.0))


def test_mapping_check_finds_a_label_swap():
    published = {"T": {"SPF": 10.0, "LPF": -20.0, "LCFS": -5.0, "SQF": 3.0, "LQF": -7.0}}
    ours = {"T": {"SPF": -20.0, "LPF": 10.0, "LCFS": -5.0, "SQF": -7.0, "LQF": 3.0}}
    rows = {r["mapping"]: r for r in study.mapping_check(ours, published)}
    assert rows["S/L swapped for P, Q, A"]["mean_abs_diff"] == 0
    assert rows["S/L swapped for P, Q, A"]["sign_agreement"] == 100
    assert rows["as printed"]["mean_abs_diff"] == pytest.approx((30 + 30 + 0 + 10 + 10) / 5)
    assert rows["as printed"]["n"] == 5


def test_bandit_label_maps_are_ocsts():
    """online-bandit Table 2's label-map readings, as read in freuk/ocst's
    history: which (primary, backfill) each published name ran."""
    from schedlab.studies.policies import readings as rd
    m = rd.version_map
    # 04-28..05-08: S-names key on +key, both queues descending: P, Q, R, A run swapped, EXP and FCFS as named
    assert [m("ocst-04-28", n) for n in ("SPF", "SRF", "LEXP", "FCFS")] == [
        ("LPF", "LPF"), ("LRF", "LRF"), ("LEXP", "LEXP"), ("FCFS", "FCFS")]
    # 05-09..06-07: primary ascending (FCFS runs as LCFS, SPF as named), backfill descending
    assert [m("ocst-05-09", n) for n in ("FCFS", "SPF", "LEXP", "LAF")] == [
        ("LCFS", "FCFS"), ("SPF", "LPF"), ("SEXP", "LEXP"), ("LAF", "SAF")]
    # 06-08..07-18: names fixed, primary still ascending: every name reversed in the primary queue only
    assert [m("ocst-06-08", n) for n in ("FCFS", "SPF", "SEXP")] == [("LCFS", "FCFS"), ("LPF", "SPF"),
                                                                     ("LEXP", "SEXP")]
    assert all(m("ocst-07-19", n) == (n, n) for n in sim.BANDIT_POLICIES)
    assert m("S/L P,Q,A", "SRF") == ("SRF", "SRF") and m("S/L P,Q,A", "SAF") == ("LAF", "LAF")
    assert m("S/L P,Q,A,R,EXP", "SEXP") == ("LEXP", "LEXP")
    cfgs = rd.pair_configs()
    assert "LCFS-FCFS" in cfgs and "SPF-SPF" in cfgs and len(cfgs) == len(set(cfgs)) == 48 + 12
    # ocst-07-19 with ocst's order of equal keys: its 12 pairs again, "/newest"
    assert m("ocst-07-19 newest", "SPF") == ("SPF", "SPF") and "SPF-SPF/newest" in cfgs
    # before 80b608e (2017-07-18) ocst's fixed command had no threshold: the same maps, "/none"
    assert m("ocst-05-09 no threshold", "FCFS") == ("LCFS", "FCFS") and "LCFS-FCFS/none" in cfgs


def test_bandit_readings_relabel_and_pairs_by_hand():
    """A relabelling reads another simulated policy's total against the
    version's own FCFS; a pair reading reads the pair campaign's sums."""
    import xarray as xr
    from schedlab.studies.policies import readings as rd

    pols = list(sim.BANDIT_POLICIES)
    sums = np.array([[100.0 + 10 * i, 200.0 + 10 * i] for i in range(len(pols))])   # policy i: +10 i
    fixed = xr.Dataset({"sum_wait": (("policy", "sample"), sums)}, coords={"policy": pols})
    ch = rd.relabel_changes({"SPF": None}, fixed, "S/L P,Q,A", seed=0)
    lpf = pols.index("LPF")
    assert ch["SPF"][0] == pytest.approx((300 + 20 * lpf) / 300 - 1)            # SPF read as LPF's total
    cfgs = rd.pair_configs()
    pair = np.ones((len(cfgs), 2)) * 100.0
    pair[cfgs.index("LPF-SPF")] = 50.0                   # ocst-06-08's "SPF"
    pair[cfgs.index("LCFS-FCFS")] = 200.0                # ocst-06-08's "FCFS": the baseline
    pds = xr.Dataset({"sum_wait": (("config", "sample"), pair)}, coords={"config": cfgs})
    ch = rd.pair_changes(pds, "ocst-06-08", ["SPF", "LCFS"], seed=0)
    assert ch["SPF"][0] == pytest.approx(-0.75) and ch["LCFS"][0] == pytest.approx(-0.5)


def test_pair_cell_is_primary_only_threshold(tiny):
    """The pair cell runs EASY-P_R-P_B on the fixed cells' resample, the
    threshold in the primary queue only (ocst's); on the diagonal without a
    threshold it equals the fixed cell."""
    from schedlab.science import online_bandit as ob
    base = {"trace": tiny, "weeks": 2, "seed": 4, "sample": 0, "threshold": None}
    a = study.cells.pair_cell({**base, "config": "SPF-SPF"})
    b = ob.fixed_cell({**base, "policy": "SPF"})
    assert a["sum_wait"] == b["sum_wait"] and a["jobs"] == b["jobs"]
    jobs, m = ob.resampled(tiny, None, 2, 4, 0)
    s = sim.simulate(jobs, m, sim.Policy("LCFS", "FCFS", 3600, threshold_backfill=False))
    assert study.cells.pair_cell({**base, "threshold": 3600, "config": "LCFS-FCFS"})["sum_wait"][1] == \
        s.summary()["sum_wait"]
    with pytest.raises(InputError):
        study.cells.pair_cell({**base, "config": "SPF-SPF", "colour": 1})
    with pytest.raises(InputError, match="PRIMARY-BACKFILL"):
        study.cells.pair_cell({**base, "config": "SPF-SPF/always"})
    # "/none": no threshold, whatever the campaign's
    assert study.cells.pair_cell({**base, "threshold": 3600, "config": "SPF-SPF/none"})["sum_wait"] == a["sum_wait"]
    # "/newest": ocst's order of equal keys (sim tie="newest")
    s = sim.simulate(jobs, m, sim.Policy("SPF", "SPF", 3600, threshold_backfill=False), tie="newest")
    assert study.cells.pair_cell({**base, "threshold": 3600, "config": "SPF-SPF/newest"})["sum_wait"][1] == \
        s.summary()["sum_wait"]
    with pytest.raises(InputError, match="PRIMARY-BACKFILL"):
        study.cells.pair_cell({**base, "config": "SPF-SPF/newest/newest"})


def test_thesis_claims_on_the_original_logs_by_hand():
    """The readings of the thesis' text claims (Table 4.2's: the original logs, overrun and
    threshold) and §4.4's percentage-point reading, on two hand-made traces."""
    import xarray as xr

    from schedlab.studies.policies.analysis import ThesisTrace, immediate_points, thesis_claims_original

    pols, classes = ["FCFS", "SAF"], ["1", "1-10", "10-100", "100+"]

    def original(bsld, wait, backfilled, cls):
        dims = ("policy", "overrun", "threshold")
        shape = (2, 1, 1)
        return xr.Dataset({"mean_bsld": (dims, np.reshape(bsld, shape)), "avg_wait": (dims, np.reshape(wait, shape)),
                           "mean_ppbsld": (dims, np.reshape(bsld, shape)),
                           "backfilled": (dims, np.reshape(backfilled, shape)),
                           "bsld_class_jobs": (dims + ("bsld_class",), np.reshape(cls, shape + (4,)))},
                          coords={"policy": pols, "overrun": ["kill"], "threshold": ["200000s"], "bsld_class": classes})

    def samples(cls):     # two samples: (sample, policy, bsld_class)
        return xr.Dataset({"bsld_class_jobs": (("sample", "policy", "bsld_class"), np.asarray(cls))},
                          coords={"policy": pols, "bsld_class": classes})

    a = ThesisTrace("A", samples([[[10, 0, 0, 90], [20, 0, 0, 80]], [[30, 0, 0, 70], [30, 0, 0, 70]]]),
                    original([10.0, 5.0], [100.0, 80.0], [40, 10], [[10, 0, 0, 90], [12, 0, 0, 30]]),
                    ("FCFS", "SAF"), "200000s")
    b = ThesisTrace("B", samples([[[50, 0, 0, 50], [55, 0, 0, 45]], [[50, 0, 0, 50], [50, 0, 0, 50]]]),
                    original([4.0, 3.0], [50.0, 10.0], [20, 20], [[40, 0, 0, 60], [60, 0, 0, 20]]),
                    ("FCFS", "SAF"), "200000s")
    got = thesis_claims_original([a, b], "kill", None)
    assert got["thesis_gain_bsld"] == pytest.approx(50.0)          # A: 1 - 5/10
    assert got["thesis_gain_wait"] == pytest.approx(80.0)          # B: 1 - 10/50
    assert got["thesis_bsld100_saf"] == pytest.approx(3.0)         # A: 90/30 (B: 60/20 = 3 too)
    assert got["thesis_immediate_saf"] == pytest.approx(50.0)      # B: 60/40 - 1 (A: 12/10 - 1)
    assert got["thesis_backfilled_saf"] == pytest.approx(37.5)     # mean of A 75 % and B 0 %
    assert thesis_claims_original([a, b], "drop", None) == {}       # not simulated: left out
    # percentage points of all jobs, per sample then averaged: A (10 + 0) / 2 = 5, B (5 + 0) / 2 = 2.5
    assert immediate_points([a, b]) == (pytest.approx(5.0), "A")


def test_published_values_are_quoted():
    assert study.PUBLISHED["lelong_table1"][("SDSC-SP2", "SQF")] == 11234
    assert study.PUBLISHED["lelong_table2"][("SPF", "max_wait")] == 661280
    assert study.PUBLISHED["thesis_table_4_2"]["SAF"]["KTH-SP2"] == 11.41
    t2 = study.PUBLISHED["bandit_table2"]
    assert len(t2) == 7 and all(len(row) == 11 for row in t2.values())
    assert t2["CTC-SP2"]["LQF"] == -47 and t2["CEA-Curie"]["SAF"] == -17


# -------------------------------------------------------------- parameters --

def test_validate_parameters():
    p = validate(study.Params, {"lelong_policies": "[FCFS, EXP]", "table_traces": "[CTC-SP2]", "thesis_traces": [],
                                "thesis_threshold": "20h", "bandit_traces": "KTH-SP2, SDSC-SP2",
                                "bandit_threshold": "none", "lelong_weeks": "12", "thesis_weeks": "null"})
    assert p.lelong_policies == ("FCFS", "LEXP")
    assert [t.name for t in p.table_traces] == ["CTC-SP2"] and p.thesis_traces == ()
    assert [t.name for t in p.bandit_traces] == ["KTH-SP2", "SDSC-SP2"]
    assert (p.thesis_threshold, p.bandit_threshold, p.lelong_weeks, p.thesis_weeks) == (72000, None, 12, None)
    assert validate(study.Params, {"lelong_trace": None}).lelong_trace is None
    assert validate(study.Params, {}).bandit_threshold == 144000                 # Θ = 40 h, the default
    for kw, msg in [({"lelong_weeks": 0}, "lelong_weeks"), ({"thesis_samples": 2.5}, "thesis_samples"),
                    ({"bandit_policies": ["SPF", "SQF"]}, "must include FCFS"),
                    ({"thesis_policies": ["FCFS", "XYZ"]}, r"thesis_policies\[1\]: unknown"),
                    ({"lelong_policies": ["FCFS", "SPF", "spf"]}, "twice"),
                    ({"lelong_trace": ["KTH-SP2", "CTC-SP2"]}, "one trace"),
                    ({"bandit_traces": ["no-such-log"]}, "bandit_traces"),
                    ({"thesis_threshold": "soon"}, "thesis_threshold"), ({"seed": -1}, "seed"),
                    ({"table_traces": "[CTC-SP2"}, "table_traces"),
                    ({"workers": 2}, "not a parameter"), ({"profile": "quick"}, "not a parameter"),
                    ({"outdir": "x"}, "not a parameter")]:
        with pytest.raises(InputError, match=msg):
            validate(study.Params, kw)


def test_every_trace_parameter_reads_traces_as_traces_does(tmp_path):
    """lelong_trace, table_traces, thesis_traces and bandit_traces accept what
    ``traces`` accepts (traces.trace_list): names in any case, paths, text lists."""
    from schedlab.workloads import traces as _traces

    from test_study_traces import write_tiny

    path = write_tiny(tmp_path / "mine.swf")
    for name in ("lelong_trace", "table_traces", "thesis_traces", "bandit_traces"):
        for given in (["kth-sp2"], "KTH-SP2", str(path), [path], f"[{path}]"):
            p = validate(study.Params, {name: given})
            got = getattr(p, name)
            got = got if isinstance(got, tuple) else (got,)
            assert [t.name for t in got] == [t.name for t in _traces.trace_list(given, name)], (name, given)
        with pytest.raises(InputError, match=rf"^parameters: {name}\[0\]: unknown trace"):
            validate(study.Params, {name: ["no-such-log"]})


# ------------------------------------------------------------------- cells --

@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A generated 3-week trace on 16 processors, a fifth of its jobs premature."""
    rng = np.random.default_rng(5)
    n = 400
    run = rng.integers(1, 20000, n)
    prem = rng.random(n) < 0.2
    fields = {
        "job_id": np.arange(1, n + 1), "submit": np.sort(rng.integers(0, 3 * WEEK, n)), "run": run,
        "req_procs": rng.integers(1, 17, n),
        "req_time": np.where(prem, run * 150, run + rng.integers(0, 20000, n)),
        "user": rng.integers(1, 9, n), "status": np.ones(n, int),
    }
    path = tmp_path_factory.mktemp("tiny") / "tiny.swf"
    swf.write_swf(path, fields, ["MaxProcs: 16"])
    return str(path)


def test_same_policy_cell_is_the_simulate_cell_on_the_diagonal(tiny):
    base = {"trace": tiny, "workload": "original", "overrun": "drop", "metrics": ["avg_wait", "jobs"]}
    a = study.same_policy_cell({**base, "policy": "SPF"})
    b = simulate_cell({**base, "primary": "SPF", "backfill": "SPF"})
    assert a == b


def test_sqf_without_threshold_never_backfills(tiny):
    """thesis Proposition 1, through the thesis cell; with a small threshold it does."""
    cell = {"trace": tiny, "workload": "resample", "weeks": 3, "seed": 1, "sample": 0, "policy": "SQF",
            "threshold": None, "top": 5}
    out = study.thesis_cell(cell)
    assert out["backfilled"][1] == 0 and out["jobs"][1] > 0
    forced = study.thesis_cell({**cell, "threshold": 60})
    assert forced["forced"][1] > 0 and forced["backfilled"][1] > 0
    fcfs = study.thesis_cell({**cell, "policy": "FCFS"})
    assert fcfs["backfilled"][1] > 0
    with pytest.raises(InputError, match="is not a parameter of this cell"):
        study.thesis_cell({**cell, "colour": 1})


# ---------------------------------------------------------------- notebook --

NOTEBOOK = paths.NOTEBOOKS / "01-policy-comparison.ipynb"


def test_profiles_validate():
    quick = profile_params(get("policies"), "quick")
    assert quick == validate(study.Params, {})                              # the quick profile is the defaults
    full = profile_params(get("policies"), "full")
    assert (full.lelong_weeks, full.thesis_samples, full.bandit_samples, full.bandit_weeks) == (250, 10, 100, 104)
    assert (quick.lelong_weeks, quick.thesis_samples, quick.bandit_samples) == (100, 3, 3)


def test_bandit_part_shares_the_selection_studys_cells(tiny, tmp_path):
    """online-bandit Table 2 (this study) and the selection study's fixed
    policies are one set of simulations: at the full profile's sizes (100
    two-year traces of the same logs) every bandit cell is a selection cell
    (same cache directory and key), and a run of one after the other
    computes nothing."""
    from schedlab.studies import selection

    full = profile_params(get("policies"), "full")
    sel = selection.campaigns(profile_params(get("selection"), "full"))
    for t in full.bandit_traces:
        ours, theirs = study.campaigns(full)[f"bandit:{t.name}"], sel[f"fixed:{t.name}"]
        keys = {ours.key(p) for _, p in ours.cells()}
        assert len(keys) == full.bandit_samples * len(full.bandit_policies)
        assert f"pairs:{t.name}" in study.campaigns(full)           # the label-map readings' pairs
        assert ours.name == theirs.name and keys == {theirs.key(p) for _, p in theirs.cells()}
    # the same, run: the selection study's fixed campaign finds every cell the policies study computed
    pol = validate(study.Params, {"lelong_trace": None, "table_traces": [], "thesis_traces": [],
                                  "bandit_traces": [tiny], "bandit_samples": 2, "bandit_weeks": 2,
                                  "bandit_policies": ["FCFS", "SPF"], "seed": 4})
    sp = validate(selection.Params, {"traces": [tiny], "resamples": 2, "weeks": 2, "seed": 4})
    quiet = lambda *a: None  # noqa: E731
    with Runner(1, cache_dir=tmp_path, log=quiet) as runner:
        runner.run(study.campaigns(pol)[f"bandit:{pol.bandit_traces[0].name}"])
        assert (runner.computed, runner.cached) == (4, 0)
        runner.run(selection.campaigns(sp)[f"fixed:{sp.traces[0].name}"])
        assert (runner.computed, runner.cached) == (4 + 20, 4)     # its 2 x 12 cells: the 4 shared ones cached
    # and they part when a parameter differs (here the threshold)
    other = selection.campaigns(validate(selection.Params, {"weeks": 104, "resamples": 3,
                                                            "threshold": "20h"}))["fixed:KTH-SP2"]
    quick = study.campaigns(validate(study.Params, {}))["bandit:KTH-SP2"]
    assert not {quick.key(p) for _, p in quick.cells()} & {other.key(p) for _, p in other.cells()}


def test_notebook_runs_on_a_generated_trace(tiny, tmp_path):
    out = tmp_path / "out"
    params = {"lelong_trace": tiny, "lelong_weeks": 3, "lelong_policies": ["FCFS", "SPF"],
              "table_traces": [tiny], "thesis_traces": [tiny], "thesis_samples": 2, "thesis_weeks": 3,
              "thesis_policies": ["FCFS", "SQF"], "thesis_threshold": "10h", "bandit_traces": [tiny],
              "bandit_samples": 2, "bandit_weeks": 3, "bandit_policies": "[FCFS, LQF]",
              "bandit_threshold": "10h", "seed": 3}
    executed = execute_notebook(NOTEBOOK, tmp_path, {**params, "workers": 1, "outdir": str(out)})
    for rel in ("numbers.json", "findings.json", "parameters.json", "tables/lelong_table1.csv",
                "tables/lelong_pairs.md", "tables/thesis_table42.csv", "tables/bandit_table2.csv",
                "figures/lelong_fig2.png", "figures/lelong_fig4.pdf", "figures/thesis_cumulative.png",
                "figures/bandit_dots.png", "datasets/lelong.nc", "datasets/thesis-tiny.nc",
                "datasets/bandit-tiny.nc", "datasets/tables.nc"):
        assert (out / rel).is_file(), rel
    nums = json.loads((out / "numbers.json").read_text())
    science = {k: v for k, v in nums.items() if k not in ("provenance", "timing", "scorecard")}
    # the papers' claims are about their own logs: on a generated trace none is counted
    assert nums["scorecard"]["counts"]["compared"] == 0
    assert all(not isinstance(v, (dict, list)) for v in science.values())       # flat
    assert nums["lelong_weeks"] == 3 and nums["lelong_pairs"] == 4 and nums["bandit_samples"] == 2
    assert "profile" not in nums and nums["provenance"]["profile"] == "custom"
    assert nums["provenance"]["parameters"]["bandit_policies"] == ["FCFS", "LQF"]
    # every number the paper section reads exists (those of Tables 1-2 and of SPF/SAF need the
    # bundled CTC-SP2/SDSC-SP2 logs and policies the tiny run does not have)
    section = paths.PAPER / "sections" / "policies.typ"
    if section.exists():
        keys = set(re.findall(r'P\("([a-z0-9_]+)"', section.read_text()))
        assert len(keys) > 20
        missing = {k for k in keys if k not in nums and not k.startswith(("t1_", "t2_", "thesis_backfilled_"))}
        assert not missing, missing
    shown = shown_markdown(executed)
    assert "lelong2017 Table 1" in shown and "online-bandit Table 2" in shown

    # The same run again comes entirely from the cache, in-process, with the same numbers;
    # the values are those of a direct simulation.
    lines = []
    res = run_study("policies", overrides=params, outdir=tmp_path / "again", workers=1,
                    cache_dir=tmp_path / "results" / "cache", log=lines.append)
    assert any("0 to compute" in line for line in lines)
    assert not any("local dask cluster" in line for line in lines)
    assert res["timing"]["cells_computed"] == 0 and res["timing"]["cells_cached"] > 0
    again = {k: v for k, v in jsonable(res["numbers"]).items() if k not in ("provenance", "timing", "scorecard")}
    assert again == science
    assert jsonable(res["numbers"])["scorecard"] == nums["scorecard"]
    from schedlab.workloads import traces, workload
    jobs, _ = workload.clean(traces.load(tiny), overrun="drop")
    direct = sim.simulate(jobs, 16, "EASY-SQF-SQF", estimate="actual").summary()["avg_wait"]
    ds = res["datasets"]["tables"]
    assert float(ds.avg_wait.sel(trace=tiny, overrun="drop", estimate="actual", policy="SQF")) == direct
    bandit = res["bandit"][0]
    s = bandit.dataset.sum_wait.sel(policy="LQF").values.sum() / bandit.dataset.sum_wait.sel(policy="FCFS").values.sum()
    assert bandit.change["LQF"][0] == pytest.approx(s - 1)


def test_bandit_readings_through_the_study(tiny, tmp_path):
    """The study computes every reading at run time beside the counted
    values: a relabelling is the counted change of another policy, the
    ocst-07-19 reading the pairs campaign's diagonal against its FCFS."""
    params = {"lelong_trace": None, "table_traces": [], "thesis_traces": [], "bandit_traces": [tiny],
              "bandit_samples": 2, "bandit_reading_samples": 2, "bandit_weeks": 2, "bandit_threshold": "10h",
              "seed": 4}
    res = run_study("policies", overrides=params, outdir=tmp_path / "out", workers=1,
                    cache_dir=tmp_path / "cache", log=None)
    name = res["bandit"][0].trace
    per = res["bandit_readings"][name]
    from schedlab.studies.policies import readings as rd
    assert set(per) == set(rd.READING_TEXT)
    counted = res["bandit"][0].change
    assert per["S/L P,Q,A"]["SPF"] == counted["LPF"] and per["S/L P,Q,A"]["SRF"] == counted["SRF"]
    pairs = res["datasets"][f"pairs:{name}"]
    base = pairs.sum_wait.sel(config="FCFS-FCFS").values
    est = study.total_change(pairs.sum_wait.sel(config="SQF-SQF").values, base, seed=4)
    assert per["ocst-07-19"]["SQF"] == pytest.approx(est)
    assert (tmp_path / "out" / "tables" / "bandit_readings.csv").is_file()


# ------------------------------------------- online-bandit Table 2: the period's code (issue 42 item 6) --

def test_permute_weeks_is_ocsts_resampler():
    """ocst's ocs-sampler (9d6151d): the first and last weeks dropped, per user a permutation of the
    whole weeks, every other job once at the same offset in its week."""
    from schedlab.jobs import Jobs
    from schedlab.studies.policies.period import permute_weeks, WEEK
    rng = np.random.default_rng(1)
    n = 600
    sub = np.sort(rng.integers(WEEK // 2, 9 * WEEK + 100, n))
    user = rng.integers(0, 5, n)
    jobs = Jobs(sub, rng.integers(1, 100, n), np.full(n, 200), np.ones(n, np.int32), None, user)
    out = permute_weeks(jobs, 3)
    wid = sub // WEEK
    inner = (wid > wid.min()) & (wid < wid.max())
    assert len(out) == inner.sum()                                  # the partial weeks dropped, the rest once
    assert np.all(np.diff(out.submit) >= 0)
    assert sorted(out.submit % WEEK) == sorted(sub[inner] % WEEK)  # offsets in the week kept
    assert out.submit.min() >= 0 and out.submit.max() < (wid.max() - wid.min() - 1) * WEEK
    for u in range(5):                                               # a user's weeks: a permutation
        src = np.bincount(wid[inner & (user == u)] - wid.min() - 1, minlength=8)
        img = np.bincount(out.submit[out.user == u] // WEEK, minlength=8)
        assert sorted(src) == sorted(img)
    again = permute_weeks(jobs, 3)
    assert np.array_equal(again.submit, out.submit) and not np.array_equal(permute_weeks(jobs, 4).submit,
                                                                           out.submit)
    with pytest.raises(InputError, match="no whole week"):
        permute_weeks(Jobs(np.array([0, WEEK]), np.ones(2), np.full(2, 5), np.ones(2, np.int32), None,
                           np.zeros(2, np.int64)), 0)


def test_ocst_key_is_the_engine_threshold_except_where_a_criterion_passes_it(tiny):
    """The 9999999+wait key gives the engine's threshold (over-threshold jobs first, FCFS) where no
    criterion reaches 10^7, and lets a job of area above it pass the over-threshold jobs under LAF."""
    from schedlab.jobs import Jobs
    from schedlab.science import online_bandit as ob
    from schedlab.studies.policies import period
    jobs, m = ob.resampled(tiny, None, 2, 4, 0)
    for pol in ("SPF", "LQF", "FCFS", "LCFS", "SEXP"):
        a = sim.simulate(jobs, m, period.period_policy(pol, pol, {"both", "key"}, 3600), tie="newest")
        b = sim.simulate(jobs, m, period.period_policy(pol, pol, {"both"}, 3600), tie="newest")
        assert np.array_equal(a.start, b.start), pol
    # 4 processors: job 1 holds them all until 100; job 2 (q 1, over the threshold at 100) and job 3
    # (q 4, p~ 3e6, under the threshold: area 1.2e7 > 9999999 + job 2's wait) queue.  The engine's
    # threshold starts job 2 first, ocst's key job 3.
    j = Jobs(np.array([0, 1, 60]), np.array([100, 10, 10]), np.array([100, 10, 3_000_000]),
             np.array([4, 1, 4], np.int32))
    eng = sim.simulate(j, 4, period.period_policy("LAF", "LAF", {"both"}, 50))
    key = sim.simulate(j, 4, period.period_policy("LAF", "LAF", {"both", "key"}, 50))
    assert eng.start[1] == 100 and eng.start[2] > 100
    assert key.start[2] == 100 and key.start[1] > 100
    with pytest.raises(InputError, match="built-in"):
        period.ocst_key("WFQ", 10)


def test_period_cell_and_configs(tiny):
    """The period cell runs the config's flags; the period readings' configs are the period's labels."""
    from schedlab.science import online_bandit as ob
    from schedlab.studies.policies import period, readings as rd
    base = {"trace": tiny, "weeks": 2, "seed": 4, "sample": 0, "threshold": 3600}
    jobs, m = ob.resampled(tiny, None, 2, 4, 0)
    s = sim.simulate(jobs, m, sim.Policy("SPF", "SPF", 3600, threshold_backfill=True), tie="newest")
    assert period.period_cell({**base, "config": "SPF-SPF/both/newest"})["sum_wait"][1] == s.summary()["sum_wait"]
    pj, pm = period.permuted(tiny, None, 4, 0)
    s = sim.simulate(pj, pm, sim.Policy("SPF", "FCFS", 3600, threshold_backfill=False))
    assert period.period_cell({**base, "config": "SPF-FCFS/perm"})["sum_wait"][1] == s.summary()["sum_wait"]
    for bad in ("SPF-SPF/always", "SPF-SPF/key/key", "SPF"):
        with pytest.raises(InputError, match="PRIMARY-BACKFILL"):
            period.period_cell({**base, "config": bad})
    assert rd.period_config("ocst-04-24 key", "SPF") == "LPF-LPF/both/key/newest"
    assert rd.period_config("ocst-04-24 bandit", "SAF") == "LAF-FCFS/key/newest"
    assert rd.period_config("ocst-04-24 perm", "SRF") == "SRF-SRF/both/key/newest/perm"
    configs = rd.period_configs()
    assert all(rd.period_config(v, n) in configs for v in rd.PERIOD for n in ob.POLICIES)
    assert set(rd.PERIOD) <= set(rd.READING_TEXT)
