"""Campaigns on a real Slurm through dask-jobqueue (issue 21).

Runs only inside the private single-node Slurm of ``make test-cluster``
(``tests/cluster/with-slurm.sh``, which exports ``SLURM_CONF`` and
``SCHEDLAB_SLURM_STATE``); the file name does not match ``test_*.py``, so
plain ``pytest`` / ``make test`` never collect it.

The cluster is what a site user starts: ``dask_jobqueue.SLURMCluster`` with
single-core workers, each a real ``sbatch`` job; the campaign runs the way the
README tells users to run it, ``schedlab campaign SPEC --scheduler ADDRESS``
(``campaign.run(..., scheduler=...)``, the path ``run_study`` and ``schedlab
study run --scheduler`` take too), in a process of its own.  Every dataset
must equal the same campaign on a local cluster, cell for cell.

Faults: a worker's Slurm job cancelled (``scancel``) mid-campaign, the
campaign's client killed (SIGKILL) mid-campaign and run again.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

STATE = os.environ.get("SCHEDLAB_SLURM_STATE")
if not STATE or not os.environ.get("SLURM_CONF"):
    pytest.fail("tests/cluster/check_slurm.py needs the private Slurm of `make test-cluster` "
                "(bash tests/cluster/with-slurm.sh .venv/bin/python -m pytest tests/cluster/check_slurm.py): "
                "SLURM_CONF and SCHEDLAB_SLURM_STATE are not set", pytrace=False)

import dask  # noqa: E402
import xarray as xr  # noqa: E402
from distributed import Client  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402

from schedlab import paths  # noqa: E402

SPEC = paths.ROOT / "campaigns" / "lelong2017-kth.yaml"
SCHEDLAB = Path(sys.executable).parent / "schedlab"   # the console script of this environment
WORKERS = int(os.environ.get("SCHEDLAB_SLURM_WORKERS", "3"))
LOCAL_WORKERS = 2
CAMPAIGN_TIMEOUT = 600      # seconds for one campaign (about 10 s on 2 idle cores)
WORKER_TIMEOUT = 120        # seconds for sbatch'ed workers to reach the scheduler
CELLS = 98                  # 2 halves x 7 x 7 policy pairs
# the campaigns' environment: the scheduler is the one named on the command line
ENV = {k: v for k, v in os.environ.items() if k != "SCHEDLAB_SCHEDULER"}
KEY = re.compile(r"^[0-9a-f]{64}\.npz$")


# ---------------------------------------------------------------- helpers --

def campaign_cmd(cache: Path, out: Path, *, scheduler: str | None = None, workers: int | None = None):
    cmd = [str(SCHEDLAB), "campaign", str(SPEC), "--cache", str(cache), "-o", str(out), "--no-progress"]
    if scheduler:
        cmd += ["--scheduler", scheduler]
    if workers:
        cmd += ["--workers", str(workers)]
    return cmd


def run_campaign(cache: Path, out: Path, **kw) -> str:
    """The campaign through the command line; its output (stdout + stderr)."""
    proc = subprocess.run(campaign_cmd(cache, out, **kw), cwd=paths.ROOT, capture_output=True, text=True,
                          timeout=CAMPAIGN_TIMEOUT, stdin=subprocess.DEVNULL, env=ENV)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"schedlab campaign failed (exit {proc.returncode}):\n{text[-4000:]}"
    return text


def cached_cells(cache: Path) -> int:
    """Complete cell files in the campaign's cache (temporary files excluded)."""
    return sum(1 for p in cache.rglob("*.npz") if KEY.match(p.name))


def counts(text: str) -> tuple[int, int, int]:
    """(cells, from cache, to compute) from the campaign's first line."""
    m = re.search(r"campaign \S+: (\d+) cells, (\d+) from cache, (\d+) to compute", text)
    assert m, f"no campaign start line in:\n{text[-2000:]}"
    return tuple(int(g) for g in m.groups())


def load(path: Path) -> xr.Dataset:
    with xr.open_dataset(path) as ds:
        return ds.load()


def assert_same_results(got: xr.Dataset, want: xr.Dataset) -> None:
    """Every variable, coordinate and their attributes identical; of the
    global attributes, those that do not describe the run (where, when, how
    many workers, how many cells came from the cache)."""
    same = ("campaign", "code_fingerprint", "core_source_sha256", "traces_sha256", "seeds", "cells_total")
    xr.testing.assert_identical(got.drop_attrs(deep=False), want.drop_attrs(deep=False))
    for k in same:
        assert got.attrs[k] == want.attrs[k], k


def wait_until(what: str, predicate, timeout: float, every: float = 0.1):
    t0 = time.monotonic()
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(every)


class TaskLog(SchedulerPlugin):
    """On the scheduler: how many times each task was assigned to a worker
    and finished there, and which worker ran it."""

    name = "schedlab-task-log"

    def __init__(self):
        self.assigned: dict = {}
        self.finished: dict = {}
        self.ran_on: dict = {}
        self.scheduler = None

    async def start(self, scheduler):
        self.scheduler = scheduler

    def transition(self, key, start, finish, *args, **kwargs):
        if not str(key).startswith("_run_batch"):
            return
        if finish == "processing":
            self.assigned[key] = self.assigned.get(key, 0) + 1
            ts = self.scheduler.tasks.get(key)
            if ts is not None and ts.processing_on is not None:
                self.ran_on.setdefault(key, []).append(ts.processing_on.name)
        elif finish == "memory":
            self.finished[key] = self.finished.get(key, 0) + 1

    def reset(self):
        self.assigned, self.finished, self.ran_on = {}, {}, {}


# --------------------------------------------------------------- fixtures --

@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The campaign on a local cluster: the reference."""
    d = tmp_path_factory.mktemp("local")
    t0 = time.monotonic()
    text = run_campaign(d / "cache", d / "local.nc", workers=LOCAL_WORKERS)
    print(f"\nlocal cluster ({LOCAL_WORKERS} workers): {time.monotonic() - t0:.1f} s; {text.splitlines()[-2]}")
    return load(d / "local.nc")


@pytest.fixture(scope="module")
def slurm():
    """A SLURMCluster of single-core workers on the private Slurm, its
    client and the scheduler's task log."""
    from dask_jobqueue import SLURMCluster

    jobs = Path(STATE) / "jobs"
    # A cancelled worker's job is dropped by the cluster 2 s after its worker
    # leaves (default 15 s), so that scale() can replace it sooner.
    with dask.config.set({"distributed.deploy.lost-worker-timeout": "2s"}):
        cluster = SLURMCluster(cores=1, processes=1, memory="1GB", walltime="00:30:00", queue="schedlab",
                               python=sys.executable, log_directory=str(jobs),
                               local_directory=str(Path(STATE) / "dask-worker-space"),
                               scheduler_options={"host": "127.0.0.1", "port": 0, "dashboard_address": ":0"})
        client = Client(cluster)
        try:
            print("\n" + cluster.job_script())
            cluster.scale(jobs=WORKERS)
            client.wait_for_workers(WORKERS, timeout=WORKER_TIMEOUT)
            client.register_plugin(TaskLog())
            log = wait_until("task log on the scheduler", lambda: cluster.scheduler.plugins.get(TaskLog.name), 30)
            yield cluster, client, log
        finally:
            client.close()
            cluster.close()


def job_of(cluster, worker_name) -> str:
    return cluster.workers[worker_name].job_id


def squeue() -> set[str]:
    out = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True, check=True).stdout
    return set(out.split())


# ------------------------------------------------------------------ tests --

def test_workers_are_slurm_jobs(slurm):
    cluster, client, _ = slurm
    names = {w["name"] for w in client.scheduler_info()["workers"].values()}
    assert len(names) == WORKERS
    ids = {job_of(cluster, n) for n in names}
    assert ids <= squeue(), f"workers' jobs {ids} not all in squeue {squeue()}"
    assert all(w["nthreads"] == 1 for w in client.scheduler_info()["workers"].values())


def test_campaign_on_slurm_equals_local(slurm, local, tmp_path):
    cluster, _, log = slurm
    log.reset()
    t0 = time.monotonic()
    text = run_campaign(tmp_path / "cache", tmp_path / "slurm.nc", scheduler=cluster.scheduler_address)
    print(f"\nSLURMCluster ({WORKERS} workers): {time.monotonic() - t0:.1f} s; {text.splitlines()[-2]}")
    total, cached, todo = counts(text)
    assert (cached, todo) == (0, total)
    ds = load(tmp_path / "slurm.nc")
    assert_same_results(ds, local)
    assert ds.attrs["workers"] == WORKERS
    assert cached_cells(tmp_path / "cache") == total
    used = {w for names in log.ran_on.values() for w in names}
    assert len(used) == WORKERS, f"tasks ran on {sorted(used)}, not on all {WORKERS} workers"
    assert all(n == 1 for n in log.finished.values()), "a task ran twice without a fault"


def test_scancel_a_worker_mid_campaign(slurm, local, tmp_path):
    """scancel one worker's job while it computes: the campaign finishes on
    the others with identical results; only the tasks the cancelled worker
    held (running or queued there, or finished there and not yet fetched by
    the client) run again.  Then scale() replaces the job."""
    cluster, client, log = slurm
    log.reset()
    cache = tmp_path / "cache"
    proc = subprocess.Popen(campaign_cmd(cache, tmp_path / "slurm.nc", scheduler=cluster.scheduler_address),
                            cwd=paths.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, env=ENV)
    try:
        # a third of the cells in: every worker has finished tasks by now
        wait_until("a third of the cells in the cache",
                   lambda: cached_cells(cache) >= CELLS // 3 or proc.poll() is not None, CAMPAIGN_TIMEOUT, 0.05)
        assert proc.poll() is None, "the campaign ended before a worker could be cancelled"

        def busy():
            for ws in list(cluster.scheduler.workers.values()):
                if ws.processing:
                    return ws
        victim = wait_until("a worker computing", busy, 30, 0.02)
        job = job_of(cluster, victim.name)
        before = cached_cells(cache)
        subprocess.run(["scancel", job], check=True)
        t_cancel = time.time()
        print(f"\nscancel {job} (worker {victim.name}) with {before} cells cached")
        out, _ = proc.communicate(timeout=CAMPAIGN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, f"campaign failed after scancel:\n{out[-4000:]}"
    total, cached, todo = counts(out)
    assert (cached, todo) == (0, total)
    assert_same_results(load(tmp_path / "slurm.nc"), local)
    assert cached_cells(cache) == total, "a cell is missing from, or doubled in, the cache"

    # The scheduler's own account of the removal: what the worker was
    # processing and which finished results only it held.
    removal = [e for _, e in client.get_events(victim.address)
               if isinstance(e, dict) and e.get("action") == "remove-worker"]
    assert removal, f"the scheduler never removed worker {victim.name} ({victim.address})"
    processing = set(removal[0]["processing-tasks"])
    lost = set(removal[0]["lost-computed-tasks"])
    t_removed = min(t for t, e in client.get_events(victim.address)
                    if isinstance(e, dict) and e.get("action") == "remove-worker")
    assert t_removed >= t_cancel - 1
    assert job not in squeue(), f"cancelled job {job} still in squeue"

    reassigned = {k for k, n in log.assigned.items() if n > 1}
    rerun = {k for k, n in log.finished.items() if n > 1}
    assert set(log.finished) == set(log.assigned), "a task never finished"
    assert reassigned <= processing | lost, (
        f"tasks assigned again that the cancelled worker did not hold: {reassigned - processing - lost}")
    assert rerun <= lost, f"finished tasks run again that were not lost with the worker: {rerun - lost}"
    assert victim.name not in {n for k in reassigned for n in log.ran_on[k][1:]}
    n_tasks = len(log.finished)
    print(f"{n_tasks} tasks; the cancelled worker held {len(processing)} in processing and {len(lost)} "
          f"finished but unfetched; {len(reassigned)} assigned again, {len(rerun)} finished twice; "
          f"{cached_cells(cache)} cells cached once each")

    # The job is gone; the cluster drops it and scale() submits a new one.
    wait_until(f"cluster dropping worker {victim.name}", lambda: victim.name not in cluster.workers, 60)
    cluster.scale(jobs=WORKERS)
    client.wait_for_workers(WORKERS, timeout=WORKER_TIMEOUT)
    names = {w["name"] for w in client.scheduler_info()["workers"].values()}
    new = {job_of(cluster, n) for n in names} - {job}
    assert len(new) == WORKERS and new <= squeue()
    print(f"workers back to {WORKERS}: jobs {sorted(new, key=int)}")


def test_kill_the_client_and_run_again(slurm, local, tmp_path):
    """SIGKILL the campaign's client mid-campaign: the cells it had received
    stay in the cache; the same command run again computes only the others."""
    cluster, _, _ = slurm
    cache = tmp_path / "cache"
    cmd = campaign_cmd(cache, tmp_path / "slurm.nc", scheduler=cluster.scheduler_address)
    proc = subprocess.Popen(cmd, cwd=paths.ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=ENV)
    try:
        wait_until("first cells in the cache", lambda: cached_cells(cache) > 0 or proc.poll() is not None,
                   CAMPAIGN_TIMEOUT, 0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the campaign ended before its client could be killed"
    assert not (tmp_path / "slurm.nc").exists()
    at_kill = cached_cells(cache)
    text = run_campaign(cache, tmp_path / "slurm.nc", scheduler=cluster.scheduler_address)
    total, cached, todo = counts(text)
    print(f"\nclient killed with {at_kill} of {total} cells cached; the re-run: {cached} from cache, "
          f"{todo} computed")
    assert 0 < at_kill < total
    assert cached == at_kill and todo == total - at_kill
    assert_same_results(load(tmp_path / "slurm.nc"), local)
    assert cached_cells(cache) == total
