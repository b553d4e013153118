"""Study 4 (mixed policies): the optimiser against the pure policies and an
exhaustive grid on a generated week, the ||w||_1 = 1 parametrisation (pure
policies are vertices, scale invariance), the analysis (ties, greedy,
learned), parameter validation, the whole study on a generated trace through
cached dask campaigns, and the notebook under papermill."""
from __future__ import annotations

import fcntl
import json
import math
import os

import nbformat
import numpy as np
import pytest

from schedlab.campaigns import runner
from schedlab.campaigns.cells import resolve_cell
from schedlab.campaigns.spec import Campaign
from schedlab.science import optim
from schedlab import paths
from schedlab.workloads import swf
from schedlab.engine import sim
from schedlab.declared import validate as read_inputs
from schedlab.errors import InputError
from schedlab.studies import mixed as study
from schedlab.studies.mixed import cells

DAY = 86400


def generated_week(seed: int = 2, n: int = 60, m: int = 16):
    """60 jobs submitted over two days on 16 processors: log-normal runtimes,
    requests 1-4 times the runtime, mostly small jobs."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 2 * DAY, n))
    run = np.round(rng.lognormal(7.5, 1.3, n)).astype(int) + 1
    req = run * rng.integers(1, 5, n)
    q = np.minimum(rng.choice([1, 1, 2, 4, 8, 16], n), m)
    return sim.Jobs(submit, run, req, q), m


# ----------------------------------------------------------- done when --

@pytest.fixture(scope="module")
def week():
    jobs, m = generated_week()
    scales = sim.default_scales(jobs)

    def f(w):
        return study.weekly_bsld(jobs, m, study.mixed_policy(w, scales), None)
    grid = optim.l1_lattice(3, 30)
    values = np.array([f(w) for w in grid])
    pure = {p: study.weekly_bsld(jobs, m, p, None) for p in study.POLICIES}
    return f, grid, values, pure


@pytest.mark.parametrize("optimiser", ["xnes3", "cma3", "xnes6", "cma6"])
def test_optimiser_beats_every_pure_policy_and_matches_the_grid(week, optimiser):
    """Done when: on a small generated week the optimiser finds a weight vector
    at least as good as the best pure policy and equal (within tolerance) to
    the optimum of an exhaustive grid of ||w||_1 = 1 (step 1/30, 3602 points)."""
    f, grid, values, pure = week
    best_pure = min(pure.values())
    grid_best = values.min()
    assert grid_best < best_pure * 0.98          # the week is one where a mix beats every pure policy
    method, d = study.OPTIMISERS[optimiser]
    r = optim.minimise_l1(f, d, method, 300, seed=11)
    assert r.evaluations <= 300
    assert np.sum(np.abs(r.x)) == pytest.approx(1.0)
    assert r.f == pytest.approx(f(r.x))          # the reported value is the policy's, no penalty
    assert r.f <= best_pure
    if d == 3:
        assert r.f == pytest.approx(grid_best, rel=1e-2)
    else:                                        # more features: at least as good as the 3-feature grid
        assert r.f <= grid_best * (1 + 1e-2)


def test_grid_optimum_is_a_grid_point(week):
    f, grid, values, pure = week
    i = study.best_index(values, grid)
    assert values[i] == values.min() and f(grid[i]) == values[i]


# ------------------------------------------------- the ||w||_1 = 1 sphere --

VERTEX = {"SQF": (1, 0, 0, 0, 0, 0), "LQF": (-1, 0, 0, 0, 0, 0), "SPF": (0, 1, 0, 0, 0, 0),
          "LPF": (0, -1, 0, 0, 0, 0), "FCFS": (0, 0, 1, 0, 0, 0), "LCFS": (0, 0, -1, 0, 0, 0),
          "SRF": (0, 0, 0, 1, 0, 0), "LRF": (0, 0, 0, -1, 0, 0), "SEXP": (0, 0, 0, 0, 1, 0),
          "LEXP": (0, 0, 0, 0, -1, 0), "SAF": (0, 0, 0, 0, 0, 1), "LAF": (0, 0, 0, 0, 0, -1)}


@pytest.mark.parametrize("policy", sorted(VERTEX))
def test_each_pure_policy_is_a_vertex_job_by_job(policy):
    """The sign convention: lowest key first, +w_q / +w_p~ small / short
    first, +w_r earliest submission first (FCFS = (0,0,1))."""
    jobs, m = generated_week(seed=4, n=80)
    scales = (3.0, 5000.0, 7000.0, 900.0, 1.0, 20000.0)          # fixed, not the week's means
    pure = sim.simulate(jobs, m, cells._policy(policy, None, "same"))
    mixed = sim.simulate(jobs, m, cells._policy(study.mixed_policy(VERTEX[policy], scales), None, "same"))
    np.testing.assert_array_equal(pure.start, mixed.start)


def test_the_order_only_depends_on_the_direction_of_w():
    jobs, m = generated_week(seed=5, n=80)
    scales = sim.default_scales(jobs)
    w = np.array([0.3, -0.5, 0.2])
    a = sim.simulate(jobs, m, cells._policy(study.mixed_policy(w, scales), 20000, "same"))
    b = sim.simulate(jobs, m, cells._policy(study.mixed_policy(7.5 * w, scales), 20000, "same"))
    c = sim.simulate(jobs, m, cells._policy(study.mixed_policy(-w, scales), 20000, "same"))
    np.testing.assert_array_equal(a.start, b.start)
    assert not np.array_equal(a.start, c.start)
    assert np.sum(np.abs(optim.normalise(7.5 * w))) == pytest.approx(1.0)


# ------------------------------------------------------------- analysis --

def test_best_index_takes_the_centre_of_tied_optima():
    pts = np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0.4, 0.6, 0], [0, 1.0, 0], [0, 0, 1.0]])
    assert study.best_index([3, 1, 1, 1, 2], pts) == 2       # tie 1..3: centre (0.3, 0.7, 0) -> point 2
    assert study.best_index([3, 1, 1, 1, 2]) == 1             # without points: the first
    assert study.best_index([np.nan, np.nan]) == -1
    assert study.best_index([2.0, np.nan, 1.0]) == 2


def test_weekly_optimum_greedy_and_learned():
    grid = np.array([[5.0, 1.0, 9.0],      # week 1: optimum 1
                     [2.0, 8.0, 1.0],      # week 2: optimum 2
                     [1.0, 3.0, 7.0],      # week 3: optimum 0
                     [4.0, 4.0, 0.5]])     # week 4: optimum 2
    idx, val = study.weekly_optimum(grid)
    assert idx.tolist() == [1, 2, 0, 2] and val.tolist() == [1.0, 1.0, 1.0, 0.5]
    g = study.greedy(grid, idx, fallback=[6.0, 6.0, 6.0, 6.0])
    assert g.tolist() == [6.0, 8.0, 7.0, 4.0]                 # week k uses week k-1's optimum
    i, v = study.learned(grid, np.array([True, True, False, False]))
    assert i == 0 and v.tolist() == [5.0, 2.0, 1.0, 4.0]      # column sums over weeks 1-2: 7, 9, 10


def test_learning_sums():
    units = np.arange(1, 5)
    pure = np.arange(48, dtype=float).reshape(4, 12) + 10
    grid = np.array([[5.0, 1.0], [2.0, 8.0], [1.0, 3.0], [4.0, 4.0]])
    pts = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    lr = study.Learning("x", "week", None, 1, units, np.ones(4), pure, grid, pts,
                        np.array([True, True, False, False]), np.array([False, False, True, True]))
    s = lr.sums()
    assert s["w*"] == (3.0, 5.0, 8.0)                         # weekly minima 1, 2 | 1, 4
    assert s["w*_train"] == (7.0, 5.0, 12.0)                  # column 0 (sum 7 on the training weeks)
    fcfs = pure[:, 0]
    assert s["w_greedy"] == (fcfs[0] + 8.0, 1.0 + 4.0, fcfs[0] + 13.0)   # week 1 falls back on FCFS
    assert s["SAF"][2] == pytest.approx(pure[:, study.POLICIES.index("SAF")].sum())


# ----------------------------------------------------------- parameters --

def validate(traces=None, **kw):
    from schedlab.protocol.study import validate as protocol_validate
    return protocol_validate(study.Params, kw if traces is None else {"traces": traces, **kw})


def test_validate():
    p = validate()
    assert [t.name for t in p.traces] == list(study.DEFAULT_TRACES)
    assert p.weeks == study.THESIS_WEEKS and p.months["SDSC-SP2"] == 20 and p.months["KTH-SP2"] is None
    assert p.split["SDSC-SP2"] == ((29, 64), (65, 100)) and p.split["KTH-SP2"] is None
    assert p.threshold == 200_000 and p.thresholds == (200_000, None, 72_000)
    p = validate(["KTH-SP2"], weeks=10, months=0, thresholds=["20h"], optimisers="xnes3, cma6",
                       split={"kth-sp2": [[1, 5], [6, 10]]}, map_trace="SDSC-SP2")
    assert p.weeks == {"KTH-SP2": 10} and p.months == {"KTH-SP2": 0} and p.thresholds == (72_000,)
    assert p.optimisers == ("xnes3", "cma6") and p.split["KTH-SP2"] == ((1, 5), (6, 10))
    assert p.map_trace == "KTH-SP2"                           # the default map trace falls back
    for kw, msg in ((dict(optimisers=["sa3"]), "unknown"), (dict(grid_resolution=0), "grid_resolution"),
                    (dict(grid_resolution=1000), "grid points"), (dict(weeks={"nope": 3}), "unknown trace"),
                    (dict(thresholds=[None, "none"]), "names one duration twice"), (dict(map_trace="CTC"), "map_trace"),
                    (dict(split={"KTH-SP2": [[5, 1], [6, 9]]}), "first <= last"),
                    (dict(backfill="SPF"), "backfill"), (dict(budget=0), "budget"),
                    (dict(traces=["no-such-trace"]), "unknown trace")):
        with pytest.raises(InputError, match=msg):
            validate(**kw)
    # map_trace accepts what traces accepts: a path names the same trace
    from schedlab.workloads import traces as registry
    kth = str(registry.resolve("KTH-SP2").path)
    assert validate(["KTH-SP2"], map_trace=kth).map_trace == "KTH-SP2"
    for kw in (dict(workers=2), dict(outdir="x"), dict(scheduler="tcp://h:1")):   # the driver's business
        with pytest.raises(InputError, match="not a parameter of this study"):
            validate(**kw)


def test_bundled_weeks_and_a_vertex_on_a_real_week():
    """SDSC-SP2 has the thesis' 100 weeks after the first; on one of them the
    SAF vertex with the trace's scales equals the pure-policy cell's SAF."""
    assert study.full_units("SDSC-SP2") >= 100 and study.full_units("KTH-SP2") >= 45
    cell = {"trace": "SDSC-SP2", "unit": 70, "threshold": "200000"}
    pure = study.pure_cell(cell)["mean_bsld"][1]
    jobs, m, scales, thr, bf = cells._cell_setup(read_inputs(cells.PeriodInputs, cell), "test")
    saf = study.weekly_bsld(jobs, m, study.mixed_policy((0, 0, 0, 0, 0, 1), scales), thr, bf)
    assert saf == pure[study.POLICIES.index("SAF")]
    from schedlab.workloads import traces, workload
    whole, _ = workload.clean(traces.load("SDSC-SP2"), m=128)
    assert scales == sim.default_scales(whole) != sim.default_scales(jobs)    # per trace, not per week


# ------------------------------------------------- the study on a trace --

def write_trace(path):
    """100 days of jobs on 16 processors, with recorded waits."""
    rng = np.random.default_rng(17)
    n = 1400
    submit = np.sort(rng.integers(0, 100 * DAY, n))
    run = np.round(rng.lognormal(7.0, 1.4, n)).astype(int) + 1
    fields = {"job_id": np.arange(1, n + 1), "submit": submit, "run": run,
              "req_procs": np.minimum(rng.choice([1, 1, 2, 4, 8, 16], n), 16),
              "req_time": run * rng.integers(1, 6, n), "user": rng.integers(1, 20, n),
              "status": np.ones(n, int), "wait": rng.integers(0, 3600, n)}
    fields["alloc_procs"] = fields["req_procs"]
    return swf.write_swf(path, fields, ["Version: 2.2", "Computer: generated", "MaxProcs: 16",
                                        "UnixStartTime: 0"])


TINY = dict(weeks=8, months="all", grid_resolution=3, threshold_resolution=2, month_resolution=2,
            map_resolution=4, map_weeks=[2, 3], thresholds=[200000, None], optimisers=["xnes3", "cma6"],
            budget=20)


def run(trace, cache, outdir, **kw):
    """The study through its driver, on one trace."""
    from schedlab.protocol.study import run_study
    return run_study("mixed", overrides={**TINY, "traces": [str(trace)], "map_trace": "gen"}, outdir=outdir,
                     workers=1, cache_dir=cache, log=None, **kw)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The study on the generated trace.  Under pytest-xdist the trace and the
    campaign cache are shared by the workers (the first computes, under a
    lock, the others read its cache)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "mixed-tiny"
    shared.mkdir(parents=True, exist_ok=True)
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        trace = shared / "gen.swf"
        if not trace.exists():
            write_trace(trace)
        cache = shared / "cache"
        res = run(trace, cache, tmp_path_factory.mktemp("out"))
    return trace, cache, res


def test_run_writes_everything(tiny):
    trace, cache, res = tiny
    out = res["outdir"]
    names = {str(p.relative_to(out)) for p in res["files"]}
    for t in ("table_5_1", "learning", "learning_months", "pure", "saf", "search", "thresholds", "weights",
              "scales"):
        assert {f"tables/{t}.csv", f"tables/{t}.md"} <= names
    for f in ("pure", "saf", "weekly", "maps", "search", "convergence", "months"):
        assert {f"figures/{f}.png", f"figures/{f}.pdf"} <= names
    assert "datasets/mixed-grid-gen-week.nc" in names and "numbers.json" in names
    assert not list(out.rglob("*.tmp"))
    doc = json.loads((out / "numbers.json").read_text())
    g = doc["traces"]["gen"]
    assert g["weeks"] == 8 and g["train_weeks"] == [1, 4] and g["test_weeks"] == [5, 8]
    assert g["grid_points"] == 38 and set(g["search"]) == {"xnes3", "cma6"}
    assert g["months"]["count"] == 2
    a = res["analyses"][0]
    # w* is the best of the grid each week, so never worse than w*_train, w_greedy or the FCFS vertex
    lr = a.weeks
    assert np.all(lr.opt <= lr.wtrain + 1e-12) and np.all(lr.opt[1:] <= lr.greedy[1:] + 1e-12)
    assert np.all(lr.opt <= lr.column("FCFS") + 1e-12)       # (0, 0, 1) is a grid point
    # a black-box optimum starts from the best vertex: never worse than the 3-feature pure policies
    three = [study.POLICIES.index(p) for p in ("FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF")]
    xnes3 = a.search.mean_bsld.sel(optimiser="xnes3").values
    assert np.all(xnes3 <= lr.pure[:, three].min(axis=1) + 1e-12)
    t51 = res["tables"]["table_5_1"].records()
    assert t51[0]["policy"] == "w*" and t51[0]["training (thesis)"] is None     # not SDSC-SP2
    assert t51[0]["training"] == pytest.approx(doc["traces"]["gen"]["train"]["w*"])
    assert sorted(a.maps) == [2, 3] and len(a.maps[2]) == optim.lattice_size(3, 4)


def test_rerun_comes_from_the_cache(tiny, tmp_path):
    trace, cache, res = tiny
    again = run(trace, cache, tmp_path, scheduler="tcp://127.0.0.1:9")    # no cluster is needed
    assert again["numbers"]["timing"]["cells_computed"] == 0 and again["numbers"]["timing"]["cells_cached"] > 0
    a, b = res["analyses"][0], again["analyses"][0]
    np.testing.assert_array_equal(a.weeks.grid, b.weeks.grid)
    np.testing.assert_array_equal(a.search.weights.values, b.search.weights.values)


def test_cells_agree_with_direct_simulation(tiny):
    trace, _, res = tiny
    a = res["analyses"][0]
    cell = {"trace": str(trace), "unit": 3, "threshold": "200000", "resolution": 3}
    jobs, m, scales, thr, bf = cells._cell_setup(read_inputs(cells.GridInputs, cell), "test")
    assert scales == a.scales
    w = optim.l1_lattice(3, 3)[7]
    assert study.grid_cell(cell)["mean_bsld"][1][7] == study.weekly_bsld(
        jobs, m, study.mixed_policy(w, scales), thr, bf) == a.weeks.grid[2, 7]
    c = study.make_campaign("search", a.info, "week", [1, 2], optimisers=["xnes3"], budget=5)
    assert c.cell == "schedlab.studies.mixed.cells:search_cell" and resolve_cell(c.cell) is study.search_cell


@pytest.mark.parametrize("threshold,backfill", [(None, "same"), (20000, "same"), (3600, "FCFS")])
def test_period_is_weekly_bsld_bit_for_bit(threshold, backfill):
    """The cells' Period (one set-up, a clone per policy) gives exactly
    weekly_bsld (a simulation of its own) for every grid point, 6-feature
    weights with the expansion feature, and every pure policy, in any order
    (a clone never sees another policy's run)."""
    jobs, m = generated_week()
    scales = sim.default_scales(jobs)
    period = cells.Period(jobs, m, threshold, backfill)
    rng = np.random.default_rng(5)
    ws = list(optim.l1_lattice(3, 6)) + [rng.normal(size=6) for _ in range(20)]
    policies = [study.mixed_policy(w, scales) for w in ws] + list(study.POLICIES)
    for k in rng.permutation(len(policies)):
        assert period.bsld(policies[k]) == study.weekly_bsld(jobs, m, policies[k], threshold, backfill)
    period.close()
    assert math.isnan(cells.Period(jobs.subset(np.arange(0)), m).bsld("FCFS"))


def test_campaign_specs_load_and_share_the_full_profile_cache():
    specs = sorted((paths.ROOT / "campaigns").glob("mixed-*.yaml"))
    assert specs
    for path in specs:
        c = Campaign.from_yaml(path)
        assert c.cell.startswith("schedlab.studies.mixed.cells:")
        _, p = c.cells()[0]
        assert set(p) - {"metrics"} <= set(resolve_cell(c.cell).inputs.names())
    # the same cells, hence the same cache entries, as the full profile of the notebook
    from schedlab.workloads import traces
    info = traces.resolve("SDSC-SP2")
    full = {"mixed-grid-sdsc-sp2.yaml": study.make_campaign("grid", info, "week", range(1, 101),
                                                            resolution=100),
            "mixed-search-sdsc-sp2.yaml": study.make_campaign("search", info, "week", range(1, 101),
                                                              optimisers=list(study.OPTIMISERS), budget=2000,
                                                              seed=2019)}
    for name, made in full.items():
        c = Campaign.from_yaml(paths.ROOT / "campaigns" / name)
        assert c.name == made.name and [c.key(p) for _, p in c.cells()] == [made.key(p) for _, p in made.cells()]


# -------------------------------------------------------------- notebook --

NOTEBOOK = paths.NOTEBOOKS / "03-mixed-policies.ipynb"


def test_notebook_runs_with_tiny_parameters(tiny, tmp_path):
    papermill = pytest.importorskip("papermill")
    trace, cache, _ = tiny
    out = tmp_path / "out"
    params = {**TINY, "traces": [str(trace)], "map_trace": "gen", "cache_dir": str(cache), "outdir": str(out),
              "workers": 1}
    papermill.execute_notebook(str(NOTEBOOK), str(tmp_path / "executed.ipynb"), parameters=params,
                               kernel_name="schedlab", progress_bar=False, cwd=str(tmp_path))
    doc = json.loads((out / "numbers.json").read_text())
    assert doc["traces"]["gen"]["weeks"] == 8 and (out / "figures" / "maps.png").is_file()
    executed = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    shown = "".join(o.get("data", {}).get("text/markdown", "") + o.get("text", "")
                    for c in executed.cells if c.cell_type == "code" for o in c.outputs)
    assert "Table 5.1, gen" in shown and "simulations in" in shown


# ------------------------------------------- readings of thesis Table 5.1 --

def test_readings_cell_is_the_pure_cell_under_the_papers_text(tiny):
    """The readings cell under the paper's text (tau = 10 s, recorded crossing,
    weeks from the first submission) is the counted pure cell, bit for bit;
    tau = 60 s never raises a week's mean bsld; the origin alignment cuts
    other weeks (the generated log starts at 0, so here the same ones)."""
    from schedlab.studies.mixed import readings
    from schedlab.studies.mixed.analysis import reading_sums

    trace, _, res = tiny
    out = readings.readings_cell({"trace": str(trace), "units": [1, 2, 3], "threshold": "200000"})
    for u in (1, 2, 3):
        pure = cells.pure_cell({"trace": str(trace), "unit": u, "threshold": "200000"})["mean_bsld"][1]
        assert out["mean_bsld"][1][:, u - 1].tolist() == pure.tolist()
    assert np.all(out["mean_bsld_tau60"][1] <= out["mean_bsld"][1])
    same = readings.readings_cell({"trace": str(trace), "units": [1, 2, 3], "threshold": "200000", "align": "origin"})
    assert same["mean_bsld"][1].tolist() == out["mean_bsld"][1].tolist()
    with pytest.raises(InputError, match="align"):
        readings.readings_cell({"trace": str(trace), "units": [1], "align": "monday"})
    with pytest.raises(InputError, match="out of range"):
        readings.readings_cell({"trace": str(trace), "units": [99]})
    # the sums over the study's training / testing masks, per reading
    a = res["analyses"][0]
    ds = runner.run(readings.readings_campaign(a.info, a.weeks.units.tolist(), 200000, "same"), progress=False,
                    log=None, cache_dir=tiny[1])
    sums, texts = reading_sums(ds, a.weeks)
    # 15 + 16 readings with the engine's order of equal keys, the 16 + 16 with ocst's (tie="newest")
    assert len(sums) == 31 + 32 and set(texts) == set(sums)
    k = study.POLICIES.index("SAF")
    for name, tie in (("tau60-keep-first", "oldest"), ("tau60-keep-first-newest", "newest")):
        tau60 = ds.mean_bsld_tau60.sel(overrun="kill", crossing="keep", align="first", tie=tie) \
            .transpose("unit", "policy").values[:, k]
        assert sums[name]["SAF"] == (pytest.approx(np.nansum(tau60[a.weeks.train])),
                                     pytest.approx(np.nansum(tau60[a.weeks.test])))
    assert "tau10-recorded-first-newest" in sums and "tau10-recorded-first-drop-newest" in sums
    with pytest.raises(InputError, match="tie"):
        readings.readings_cell({"trace": str(trace), "units": [1], "tie": "latest"})


def test_table_5_1_rows_carry_the_readings_fitted_on_the_training_column():
    """The pure policies' Table 5.1 rows carry the 15 readings, the grid rows
    none; identify() chooses on the training column and judges the testing
    one: a reading right on both is identified (fitted / predicted)."""
    import types

    from schedlab.studies.mixed.scorecard import rows
    from schedlab.studies.mixed.tables import PUBLISHED
    from schedlab.science.thesis_readings import thesis_readings

    units = np.arange(1, 101)
    pts = optim.l1_lattice(3, 100)[:3]
    lr = study.Learning("SDSC-SP2", "week", 200000, 100, units, np.ones(100), np.full((100, 12), 9.0),
                        np.ones((100, 3)), pts, (units >= 29) & (units <= 64), units >= 65)
    pub = PUBLISHED["table_5_1"]
    good = "tau60-keep-origin"
    readings = {name: {pol: tuple(v * (1.0 if name == good else 3.0) for v in pub[pol])
                       for pol in study.POLICIES if pol in pub} for name, *_ in thesis_readings()}
    a = types.SimpleNamespace(name="SDSC-SP2", weeks=lr, readings=readings,
                              reading_texts={n: n for n in readings})
    out = [r for r in rows([a]) if r.item == "Table 5.1"]
    pure = [r for r in out if r.readings]
    assert len(pure) == 2 * sum(pol in pub for pol in study.POLICIES) == 22
    assert all(not r.readings for r in out if r not in pure)            # w*, w*_train, w_greedy
    s = pure[0].readings[0].summary
    assert s["chosen"] == good and s["identified"] and s["fit rows"] == 11 and s["held-out rows"] == 11
    for r in pure:
        rd = next(x for x in r.readings if x.name == good)
        assert rd.role == ("fitted" if r.metric.endswith("training weeks") else "predicted") and rd.identified


def test_the_w_star_claims_carry_readings_of_their_wording(tiny):
    """thesis §5.5.2's claims on w* and w*_train carry readings of their wording, computed from
    the same weekly values: against EASY-FCFS instead of the best pure policy, Table 5.1's weeks
    only; w*_train ranked without w_greedy, and on the training weeks."""
    from schedlab.studies.mixed.scorecard import rows

    trace, cache, res = tiny
    a = res["analyses"][0]
    lr = a.weeks
    by = {r.item: r for r in rows(res["analyses"])}
    up_to = by["claim: w* is up to 3 times better than the best pure policy of a week"]
    got = {rd.name: rd.ours for rd in up_to.readings}
    assert got["against FCFS"] == pytest.approx(float(np.nanmax(lr.column("FCFS") / lr.opt)))
    assert got["against FCFS"] >= up_to.ours            # FCFS is one of the pure policies
    rank = by["claim: w*_train is first or second on the testing weeks"]
    assert [rd.name for rd in rank.readings] == ["without w_greedy", "training weeks"]
    sums = lr.sums()
    plain = sorted((k for k in sums if k not in ("w*", "w_greedy")), key=lambda k: sums[k][1])
    assert rank.readings[0].ours == f"{plain.index('w*_train') + 1} of {len(plain)}"


@pytest.mark.parametrize("optimiser", ["xnes3", "cma3", "random3"])
def test_search_hands_generations_to_the_grid_path_bit_for_bit(optimiser, monkeypatch):
    """The search cell hands each generation (and the vertices, the random
    points) to grid_bsld at once: the same search, value for value, as
    Period.bsld one point at a time (optim.minimise_l1 without f_many)."""
    jobs, m = generated_week()
    common = dict(trace="x", unit=1, optimiser=optimiser, budget=120, threshold=20000)
    setup = (jobs, m, sim.default_scales(jobs), 20000, "same")
    monkeypatch.setattr(cells, "_cell_setup", lambda q, kind: setup)
    together = cells.search_cell(cells.SearchInputs(**common))
    alone_optim = optim.minimise_l1
    monkeypatch.setattr(optim, "minimise_l1", lambda *a, f_many=None, **k: alone_optim(*a, **k))
    alone = cells.search_cell(cells.SearchInputs(**common))
    for key in ("mean_bsld", "weights", "evaluations", "best_so_far"):
        assert np.asarray(together[key][1]).tobytes() == np.asarray(alone[key][1]).tobytes(), key
    assert together["evaluations"][1] == 120 or optimiser != "random3"
