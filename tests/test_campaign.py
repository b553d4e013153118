"""Campaigns: the same dataset with 1 and 2 workers, cache hits, resume after
a kill, provenance and metadata."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import xarray as xr
import yaml

from schedlab.campaigns import store
from schedlab.campaigns.cells import CELL_MODULES_ENV, simulate_cell
from schedlab.campaigns.fingerprint import _trace_sha, cell_fingerprint
from schedlab.campaigns.runner import SCHEDULER_ENV, Runner, run
from schedlab.campaigns.spec import Campaign
from schedlab.workloads import swf
from schedlab.errors import InputError


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    rng = np.random.default_rng(11)
    n = 600
    run = rng.integers(0, 20000, n)
    fields = {
        "job_id": np.arange(1, n + 1), "submit": np.sort(rng.integers(0, 8 * 7 * 86400, n)),
        "run": run, "req_procs": rng.integers(1, 17, n), "req_time": run + rng.integers(0, 30000, n),
        "user": rng.integers(1, 12, n), "status": np.ones(n, int),
    }
    path = tmp_path_factory.mktemp("trace") / "gen.swf"
    swf.write_swf(path, fields, ["MaxProcs: 16"])
    return str(path)


def spec(trace, **over):
    d = {"name": "tiny", "cell": "simulate",
         "dims": {"half": ["train", "test"], "primary": ["FCFS", "SPF"], "backfill": ["FCFS", "SAF"]},
         "params": {"trace": trace, "workload": "resample", "weeks": 6, "seed": 3, "threshold": "10h"},
         "metrics": ["avg_wait", "max_wait", "mean_bsld", "jobs", "backfilled"]}
    d.update(over)
    return Campaign.from_dict(d)


def data_only(ds):
    ds = ds.copy()
    ds.attrs = {}
    return ds


def test_one_and_two_workers_give_identical_datasets(trace, tmp_path):
    quiet = dict(progress=False, log=lambda *a: None)
    a = run(spec(trace), workers=1, cache_dir=tmp_path / "c1", **quiet)
    b = run(spec(trace), workers=2, cache_dir=tmp_path / "c2", batch=1, **quiet)
    xr.testing.assert_identical(data_only(a), data_only(b))
    assert a.sizes == {"half": 2, "primary": 2, "backfill": 2, "week": 6}
    assert a.jobs.dtype == np.int64 and (a.jobs.values > 0).all()
    # a real result: SPF differs from FCFS somewhere
    assert not np.array_equal(a.avg_wait.sel(primary="FCFS").values, a.avg_wait.sel(primary="SPF").values)
    # every job of every simulated week is counted once, whatever the workers
    assert a.attrs["jobs_simulated"] == b.attrs["jobs_simulated"] == int(a.jobs.sum())
    # and equals a direct simulation of the same cell
    cell = simulate_cell({**spec(trace).params, "half": "test", "primary": "SPF", "backfill": "SAF"})
    np.testing.assert_array_equal(cell["avg_wait"][1], a.avg_wait.sel(half="test", primary="SPF", backfill="SAF"))


def test_rerun_is_served_from_cache_without_a_cluster(trace, tmp_path):
    quiet = dict(progress=False, log=lambda *a: None)
    first = run(spec(trace), workers=1, cache_dir=tmp_path, **quiet)
    assert first.attrs["cells_computed"] == 8 and first.attrs["cells_cached"] == 0
    # An unreachable scheduler: a re-run must not need one.
    again = run(spec(trace), scheduler="tcp://127.0.0.1:9", cache_dir=tmp_path, **quiet)
    assert again.attrs["cells_cached"] == 8 and again.attrs["cells_computed"] == 0
    assert again.attrs["jobs_simulated"] == 0 < first.attrs["jobs_simulated"]   # the cache simulates nothing
    xr.testing.assert_identical(data_only(first), data_only(again))
    # A changed parameter changes the keys: only the new cells are computed.
    more = spec(trace, dims={"half": ["train", "test"], "primary": ["FCFS", "SPF", "LQF"],
                             "backfill": ["FCFS", "SAF"]})
    grown = run(more, workers=1, cache_dir=tmp_path, **quiet)
    assert grown.attrs["cells_cached"] == 8 and grown.attrs["cells_computed"] == 4


SLOW_CELL = """
import time
from schedlab.campaigns.cells import simulate_cell

def slow(p):
    time.sleep(0.4)
    return simulate_cell(p)
"""


def test_killed_campaign_resumes_to_the_same_dataset(trace, tmp_path, monkeypatch):
    (tmp_path / "slowcells.py").write_text(SLOW_CELL)
    monkeypatch.setenv(CELL_MODULES_ENV, "slowcells")   # a module of the user's own cells
    d = spec(trace).to_dict()
    d["cell"] = "slowcells:slow"
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(yaml.safe_dump(d))
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen([sys.executable, "-m", "schedlab.tools.cli", "campaign", str(spec_file), "--workers", "1",
                             "--batch", "1", "--cache", str(cache), "--no-progress", "-o", str(tmp_path / "x.nc")],
                            env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    def complete():   # finished cells (temporary files are hidden: ".*.tmp.npz")
        return [p for p in cache.rglob("*.npz") if not p.name.startswith(".")]

    deadline = time.time() + 90
    try:
        while time.time() < deadline and len(complete()) < 3:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done_before = len(complete())
    assert 3 <= done_before < 8, done_before
    sys.path.insert(0, str(tmp_path))
    try:
        quiet = dict(progress=False, log=lambda *a: None)
        c = Campaign.from_yaml(spec_file)
        resumed = run(c, workers=1, cache_dir=cache, **quiet)
        fresh = run(c, workers=1, cache_dir=tmp_path / "fresh", **quiet)
    finally:
        sys.path.remove(str(tmp_path))
    assert resumed.attrs["cells_cached"] == done_before
    assert resumed.attrs["cells_computed"] == 8 - done_before
    xr.testing.assert_identical(data_only(resumed), data_only(fresh))


HELD_CELL = """
import time
from distributed import get_client

def held(p):
    # Results of earlier tasks that the scheduler still keeps on workers:
    # wait (bounded) for the client to have fetched and released them all.
    def count(dask_scheduler):
        return sum(ts.state == "memory" and str(ts.key).startswith("_run_batch")
                   for ts in dask_scheduler.tasks.values())
    client = get_client()
    deadline = time.monotonic() + 5
    while (n := client.run_on_scheduler(count)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {"jobs": ((), n)}
"""


def test_results_already_cached_are_not_kept_on_the_workers(tmp_path, monkeypatch):
    """A result the client has cached is released at once: a worker lost
    afterwards (a cancelled Slurm job) takes only its running tasks with it,
    not every result it ever computed (which the scheduler would recompute
    while the client still held their futures)."""
    (tmp_path / "heldcells.py").write_text(HELD_CELL)
    monkeypatch.setenv(CELL_MODULES_ENV, "heldcells")    # a module of the user's own cells
    sys.path.insert(0, str(tmp_path))
    try:
        c = Campaign.from_dict({"name": "held", "cell": "heldcells:held", "dims": {"i": list(range(5))}})
        ds = run(c, workers=1, batch=1, cache_dir=tmp_path / "cache", progress=False,
                 log=lambda *a: None)
    finally:
        sys.path.remove(str(tmp_path))
    assert ds.jobs.values.tolist() == [0] * 5


def test_a_given_scheduler_without_workers_yet_is_waited_for(trace, tmp_path):
    """Workers of a site cluster arrive when their batch jobs start: a
    campaign started before waits for one instead of cutting its cells into
    tasks for a single worker, then runs on the workers present."""
    import threading

    from distributed import LocalCluster

    c = spec(trace)
    lines, result = [], {}
    with LocalCluster(n_workers=0, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=40) as cluster:
        waiting = threading.Thread(target=lambda: result.update(ds=run(
            c, scheduler=cluster.scheduler_address, cache_dir=tmp_path / "cache", progress=False,
            log=lines.append)))
        waiting.start()
        deadline = time.monotonic() + 120
        while not any("waiting for a worker" in line for line in lines) and time.monotonic() < deadline:
            time.sleep(0.05)
        cluster.scale(2)
        waiting.join(timeout=300)
    assert not waiting.is_alive()
    assert any(f"waiting for a worker on {cluster.scheduler_address}" in line for line in lines), lines
    ds = result["ds"]
    assert ds.attrs["workers"] >= 1 and ds.attrs["cells_computed"] == 8
    local = run(c, workers=1, cache_dir=tmp_path / "local", progress=False, log=None)
    xr.testing.assert_identical(data_only(ds), data_only(local))


def test_written_dataset_keeps_types_units_and_provenance(trace, tmp_path):
    ds = run(spec(trace), workers=1, cache_dir=tmp_path, progress=False, log=lambda *a: None)
    path = store.write_dataset(ds, tmp_path / "out" / "tiny.nc")
    back = store.read_dataset(path)
    xr.testing.assert_identical(data_only(ds), data_only(back))
    assert back.jobs.dtype == np.int64 and back.backfilled.dtype == np.int64
    for name, var in back.data_vars.items():
        assert var.attrs["units"] == store.VARIABLES[name].units
        assert var.attrs["long_name"] == store.VARIABLES[name].long_name
    a = back.attrs
    for key in ("schedlab_version", "core_version", "git_commit", "traces_sha256", "campaign", "seeds",
                "created", "wall_time_s", "Conventions"):
        assert key in a, key
    assert a["traces_sha256"] == {trace: _trace_sha(trace)}
    assert a["campaign"]["params"]["seed"] == 3 and a["seeds"] == [3]
    assert not list(path.parent.glob(".*tmp*"))


def test_metadata_table_is_complete():
    for name, v in store.VARIABLES.items():
        assert v.long_name and v.units, name
        if v.is_int:
            assert isinstance(v.fill, int) and v.fill < 0, name
        else:
            assert np.isnan(v.fill), name


@pytest.mark.parametrize("bad, match", [
    ({"name": "x", "dims": {"a": []}}, "non-empty list"),
    ({"name": "x", "dims": {"a": [1, 1]}}, "duplicate labels"),
    ({"name": "x", "dims": {"a": [1]}, "params": {"a": 2}}, "both a dimension"),
    ({"name": "x", "dims": {"a": [1]}, "cell": "nope"}, "unknown cell"),
    ({"name": "x", "dims": {"a": [1]}, "cell": "no.such.module:f"}, "may not provide cells"),
    ({"name": "x", "dims": {"a": [1]}, "colour": "red"}, "unknown key"),
    ({"dims": {"a": [1]}}, "required"),
])
def test_bad_specs(bad, match):
    with pytest.raises(InputError, match=match):
        Campaign.from_dict(bad)


def test_bad_cell_parameters(trace, tmp_path):
    with pytest.raises(InputError, match="simulate cell: 'colour' is not a parameter of this cell"):
        simulate_cell({"trace": trace, "colour": 1})
    with pytest.raises(InputError, match="simulate cell: a 'trace' parameter is required"):
        simulate_cell({})
    with pytest.raises(InputError, match="simulate cell: weeks: expected an integer >= 1"):
        simulate_cell({"trace": trace, "weeks": 0})
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("name: [unclosed\n")
    with pytest.raises(InputError, match="not valid YAML"):
        Campaign.from_yaml(bad_yaml)


def test_runner_shares_one_cluster_and_starts_none_for_cached_campaigns(trace, tmp_path, monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    quiet = lambda *a: None  # noqa: E731
    a = spec(trace)
    b = spec(trace, name="tiny-b", dims={"half": ["test"], "primary": ["LQF"], "backfill": ["FCFS"]})
    with Runner(1, cache_dir=tmp_path, log=quiet) as runner:
        assert runner.pending(a) == 8 and runner.pending(b) == 1
        ds_a = runner.run(a)
        first = runner.cluster
        assert first is not None
        runner.run(b)
        assert runner.cluster is first                # one cluster for both campaigns
        assert (runner.computed, runner.cached) == (9, 0)
    assert runner.cluster is None                     # closed on exit
    # Everything cached: no cluster is started at all.
    with Runner(1, cache_dir=tmp_path, log=quiet) as runner:
        again = runner.run(a)
        assert runner.cluster is None and (runner.computed, runner.cached) == (0, 8)
    xr.testing.assert_identical(data_only(ds_a), data_only(again))


def test_cache_keys_change_with_the_simulator_code(trace, monkeypatch):
    from schedlab.engine import _build, sim

    # The loaded core was built from the C sources of this tree (a stale build would say so).
    assert sim.SOURCE_HASH == _build.source_hash()
    c = spec(trace)
    _, params = c.cells()[0]
    before = c.key(params)
    assert c.key(params) == before                      # deterministic
    monkeypatch.setattr(sim, "SOURCE_HASH", "0" * 16)     # as if the C code had changed
    cell_fingerprint.cache_clear()
    try:
        assert c.key(params) != before
    finally:
        monkeypatch.undo()
        cell_fingerprint.cache_clear()
    assert c.key(params) == before


def test_git_provenance_in_and_outside_a_checkout(tmp_path, monkeypatch):
    from schedlab import paths
    g = paths.git_state()
    assert g["commit"] is None or len(g["commit"]) == 40
    assert paths.git_commit().startswith(g["commit"] or "unknown")
    monkeypatch.setattr(paths, "ROOT", tmp_path)          # not a git checkout
    assert paths.git_state() == {"commit": None, "dirty": None}
    assert paths.git_commit() == "unknown"
