"""Campaigns and a study on a real Slurm through dask-jobqueue (issue 21).

Runs only inside the private single-node Slurm of ``make test-cluster``
(``tests/cluster/with-slurm.sh``, which exports ``SLURM_CONF`` and
``SCHEDLAB_SLURM_STATE``); the file name does not match ``test_*.py``, so
plain ``pytest`` / ``make test`` never collect it.

The cluster is what the README tells a site user to start:
``tools/cluster/slurm_cluster.py`` (a ``dask_jobqueue.SLURMCluster`` of
single-core workers, each a real ``sbatch`` job, kept at its number of jobs);
campaigns and the study run the way users run them, ``schedlab campaign SPEC
--scheduler ADDRESS`` and ``schedlab study run NAME --scheduler ADDRESS``
(``schedlab.campaigns.runner.run(..., scheduler=...)`` / ``run_study(..., scheduler=...)``),
each in a process of its own.  Every result must equal the same run on a
local cluster.

Faults: a worker's Slurm job cancelled (``scancel``) mid-campaign; the
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

import cloudpickle  # noqa: E402
import xarray as xr  # noqa: E402
from distributed import Client  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402

from schedlab import paths  # noqa: E402
from schedlab.campaigns.spec import Campaign  # noqa: E402

# The scheduler runs in tools/cluster/slurm_cluster.py, which cannot import
# this file: what it receives from here (the task log) travels by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SPEC = paths.ROOT / "campaigns" / "lelong2017-kth.yaml"
SCHEDLAB = Path(sys.executable).parent / "schedlab"   # the console script of this environment
HELPER = paths.ROOT / "tools" / "cluster" / "slurm_cluster.py"
WORKERS = 3                 # single-core workers (Slurm jobs); the node declares 4 CPUs
LOCAL_WORKERS = 2
CAMPAIGN_TIMEOUT = 600      # seconds for one campaign (about 10 s on 2 idle cores)
WORKER_TIMEOUT = 120        # seconds for sbatch'ed workers to reach the scheduler
CELLS = len(Campaign.from_yaml(SPEC).cells())
# the campaigns' environment: the scheduler is the one named on the command line
ENV = {k: v for k, v in os.environ.items() if k != "SCHEDLAB_SCHEDULER"}
KEY = re.compile(r"^[0-9a-f]{64}\.npz$")


# ---------------------------------------------------------------- helpers --

def campaign_cmd(cache, out, *, scheduler: str | None = None, workers: int | None = None,
                 schedlab=SCHEDLAB, spec=SPEC):
    cmd = [str(schedlab), "campaign", str(spec), "--cache", str(cache), "-o", str(out), "--no-progress"]
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


def task_log(client, reset=False) -> dict:
    """The scheduler's task log (assigned, finished, ran_on), reset if asked."""
    def get(dask_scheduler, reset=reset):
        log = dask_scheduler.plugins[TaskLog.name]
        out = {"assigned": dict(log.assigned), "finished": dict(log.finished), "ran_on": dict(log.ran_on)}
        if reset:
            log.reset()
        return out
    return client.run_on_scheduler(get)


# --------------------------------------------------------------- fixtures --

@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The campaign on a local cluster: the reference."""
    d = tmp_path_factory.mktemp("local")
    t0 = time.monotonic()
    text = run_campaign(d / "cache", d / "local.nc", workers=LOCAL_WORKERS)
    print(f"\nlocal cluster ({LOCAL_WORKERS} workers): {time.monotonic() - t0:.1f} s; {text.splitlines()[-2]}")
    return load(d / "local.nc")


def helper_cmd(address_file, state=STATE, python=sys.executable, helper=HELPER) -> list[str]:
    """The cluster, as the README starts it on a site (plus this test's
    partition, scratch and log directories, and the loopback address)."""
    return [str(python), str(helper), "--jobs", str(WORKERS), "--memory", "1GB", "--walltime", "00:30:00",
            "--queue", "schedlab", "--host", "127.0.0.1", "--address-file", str(address_file),
            "--log-directory", f"{state}/jobs", "--local-directory", f"{state}/dask-worker-space",
            "--keep-every", "1"]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """tools/cluster/slurm_cluster.py keeping WORKERS single-core workers
    (sbatch jobs) on the private Slurm; a client and the task log on its
    scheduler."""
    d = tmp_path_factory.mktemp("cluster")
    address_file = d / "scheduler.txt"
    out = (d / "slurm_cluster.log").open("w")
    helper = subprocess.Popen(helper_cmd(address_file), cwd=paths.ROOT, stdout=out, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL, env=ENV)
    try:
        wait_until("tools/cluster/slurm_cluster.py writing the scheduler's address",
                   lambda: address_file.exists() or helper.poll() is not None, WORKER_TIMEOUT, 0.2)
        assert helper.poll() is None, (f"slurm_cluster.py exited ({helper.returncode}):\n"
                                       + (d / "slurm_cluster.log").read_text()[-4000:])
        address = address_file.read_text().strip()
        with Client(address, timeout=30) as client:
            client.wait_for_workers(WORKERS, timeout=WORKER_TIMEOUT)
            client.register_plugin(TaskLog())
            yield address, client
    finally:
        helper.send_signal(signal.SIGTERM)
        try:
            helper.wait(timeout=60)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()
        out.close()
        print(f"\n----- slurm_cluster.py (exit {helper.returncode}) -----\n"
              + "\n".join((d / "slurm_cluster.log").read_text().splitlines()[-25:]))
    assert helper.returncode == 0, "slurm_cluster.py did not stop cleanly on SIGTERM"


def jobs_of(client) -> dict[str, str]:
    """worker address -> its Slurm job id (read in the worker's environment)."""
    return client.run(lambda: os.environ.get("SLURM_JOB_ID"))


def squeue() -> set[str]:
    out = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True, check=True).stdout
    return set(out.split())


# ------------------------------------------------------------------ tests --

def workers(client) -> dict[str, dict]:
    return client.scheduler_info(n_workers=-1)["workers"]


def test_workers_are_slurm_jobs(slurm):
    _, client = slurm
    info = workers(client)
    assert len(info) == WORKERS
    assert all(w["nthreads"] == 1 for w in info.values())
    ids = set(jobs_of(client).values())
    assert len(ids) == WORKERS and ids <= squeue(), f"workers' jobs {ids} not all in squeue {squeue()}"


def test_campaign_on_slurm_equals_local(slurm, local, tmp_path):
    address, client = slurm
    task_log(client, reset=True)
    t0 = time.monotonic()
    text = run_campaign(tmp_path / "cache", tmp_path / "slurm.nc", scheduler=address)
    print(f"\nSLURMCluster ({WORKERS} workers): {time.monotonic() - t0:.1f} s; {text.splitlines()[-2]}")
    total, cached, todo = counts(text)
    assert (cached, todo) == (0, total) and total == CELLS
    ds = load(tmp_path / "slurm.nc")
    assert_same_results(ds, local)
    assert ds.attrs["workers"] == WORKERS
    assert cached_cells(tmp_path / "cache") == total
    log = task_log(client)
    used = {w for names in log["ran_on"].values() for w in names}
    assert len(used) == WORKERS, f"tasks ran on {sorted(used)}, not on all {WORKERS} workers"
    assert log["finished"] and all(n == 1 for n in log["finished"].values()), "a task ran twice without a fault"


def test_scancel_a_worker_mid_campaign(slurm, local, tmp_path):
    """scancel one worker's job while it computes: the campaign finishes on
    the others with identical results; only the tasks the cancelled worker
    held (running or queued there, or finished there and not yet fetched by
    the client) run again.  Then slurm_cluster.py submits a job in its place."""
    address, client = slurm
    task_log(client, reset=True)
    job_ids = jobs_of(client)
    cache = tmp_path / "cache"
    proc = subprocess.Popen(campaign_cmd(cache, tmp_path / "slurm.nc", scheduler=address),
                            cwd=paths.ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL, env=ENV)
    try:
        # a third of the cells in: every worker has finished tasks by now
        wait_until("a third of the cells in the cache",
                   lambda: cached_cells(cache) >= CELLS // 3 or proc.poll() is not None, CAMPAIGN_TIMEOUT, 0.05)
        assert proc.poll() is None, "the campaign ended before a worker could be cancelled"
        busy = wait_until("a worker computing", lambda: [w for w, keys in client.processing().items() if keys],
                          30, 0.02)
        victim = busy[0]
        job = job_ids[victim]
        before = cached_cells(cache)
        t_cancel = time.time()
        subprocess.run(["scancel", job], check=True)
        print(f"\nscancel {job} (worker {victim}) with {before} of {CELLS} cells cached")
        out, _ = proc.communicate(timeout=CAMPAIGN_TIMEOUT)
        t_end = time.time()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, f"campaign failed after scancel:\n{out[-4000:]}"
    total, cached, todo = counts(out)
    assert (cached, todo) == (0, total)
    assert_same_results(load(tmp_path / "slurm.nc"), local)
    assert cached_cells(cache) == total, "a cell is missing from the cache"

    # The scheduler's own account of the removal: the tasks the worker was
    # processing, and the finished results only it held (not yet fetched).
    removal = [(t, e) for t, e in client.get_events(victim)
               if isinstance(e, dict) and e.get("action") == "remove-worker"]
    assert removal, f"the scheduler never removed worker {victim} (job {job})"
    t_removed, event = removal[0]
    assert t_cancel - 1 <= t_removed < t_end, "the worker did not leave during the campaign"
    processing, lost = set(event["processing-tasks"]), set(event["lost-computed-tasks"])

    log = task_log(client)
    reassigned = {k for k, n in log["assigned"].items() if n > 1}
    rerun = {k for k, n in log["finished"].items() if n > 1}
    assert set(log["finished"]) == set(log["assigned"]), "a task never finished"
    assert reassigned <= processing | lost, (
        f"tasks assigned again that the cancelled worker did not hold: {reassigned - processing - lost}")
    assert rerun <= lost, f"finished tasks run again that were not lost with the worker: {rerun - lost}"
    print(f"{len(log['finished'])} tasks; the cancelled worker held {len(processing)} (running or queued) and "
          f"{len(lost)} finished but not yet fetched; {len(reassigned)} assigned again, {len(rerun)} finished "
          f"twice; the client cached each of the {cached_cells(cache)} cells once")

    # The job is gone from Slurm; slurm_cluster.py submits one in its place.
    wait_until(f"job {job} leaving squeue", lambda: job not in squeue(), 60, 0.2)
    wait_until(f"{WORKERS} workers again", lambda: len(workers(client)) == WORKERS
               and job not in set(jobs_of(client).values()), WORKER_TIMEOUT, 0.5)
    now = jobs_of(client)
    assert set(now.values()) <= squeue() and len(set(now.values())) == WORKERS
    print(f"workers back to {WORKERS}: jobs {sorted(now.values(), key=int)} (job {job} cancelled)")


def test_kill_the_client_and_run_again(slurm, local, tmp_path):
    """SIGKILL the campaign's client mid-campaign: the cells it had received
    stay in the cache; the same command run again computes only the others."""
    address, _ = slurm
    cache = tmp_path / "cache"
    proc = subprocess.Popen(campaign_cmd(cache, tmp_path / "slurm.nc", scheduler=address), cwd=paths.ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            env=ENV)
    try:
        wait_until("first cells in the cache", lambda: cached_cells(cache) > 0 or proc.poll() is not None,
                   CAMPAIGN_TIMEOUT, 0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the campaign ended before its client could be killed"
    assert not (tmp_path / "slurm.nc").exists()
    at_kill = cached_cells(cache)
    text = run_campaign(cache, tmp_path / "slurm.nc", scheduler=address)
    total, cached, todo = counts(text)
    print(f"\nclient killed with {at_kill} of {total} cells cached; the same command again: {cached} from "
          f"cache, {todo} computed")
    assert 0 < at_kill < total
    assert cached == at_kill and todo == total - at_kill
    assert_same_results(load(tmp_path / "slurm.nc"), local)
    assert cached_cells(cache) == total


# A whole study on the cluster: the thresholds study (Study 2), made small.
STUDY = ["thresholds", "--set", "traces=[KTH-SP2]", "--set", "sweep_traces=null", "--set", "weeks=10",
         "--set", "policies=[FCFS, SPF, SQF]", "--set", "thesis_traces=[KTH-SP2]",
         "--set", "thesis_policies=[FCFS, SPF, SAF]"]


def study_cmd(outdir, cache, *where: str, schedlab=SCHEDLAB) -> list[str]:
    return [str(schedlab), "study", "run", *STUDY, "--outdir", str(outdir), "--cache", str(cache),
            "--no-progress", *where]


def run_study(outdir: Path, cache: Path, *where: str) -> str:
    cmd = study_cmd(outdir, cache, *where)
    proc = subprocess.run(cmd, cwd=paths.ROOT, capture_output=True, text=True, timeout=CAMPAIGN_TIMEOUT,
                          stdin=subprocess.DEVNULL, env=ENV)
    text = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"schedlab study run failed (exit {proc.returncode}):\n{text[-4000:]}"
    return text


def science(numbers: dict) -> dict:
    return {k: v for k, v in numbers.items() if k not in ("provenance", "timing")}


def test_whole_study_on_slurm_equals_local(slurm, tmp_path):
    """schedlab study run --scheduler: every campaign of the study on the
    Slurm workers; the datasets, tables and numbers equal a local run's."""
    import json

    address, _ = slurm
    t0 = time.monotonic()
    run_study(tmp_path / "local", tmp_path / "local-cache", "--workers", str(LOCAL_WORKERS))
    t_local = time.monotonic() - t0
    t0 = time.monotonic()
    text = run_study(tmp_path / "slurm", tmp_path / "slurm-cache", "--scheduler", address)
    print(f"\nstudy thresholds (small): local {t_local:.1f} s, SLURMCluster {time.monotonic() - t0:.1f} s; "
          f"{text.strip().splitlines()[-2]}")
    computed = re.search(r"study thresholds done in \S+ s \((\d+) cells computed, 0 from the cache\)", text)
    assert computed and int(computed.group(1)) > 0, text[-2000:]
    nums = {w: json.loads((tmp_path / w / "numbers.json").read_text()) for w in ("local", "slurm")}
    assert science(nums["slurm"]) == science(nums["local"])
    assert nums["slurm"]["provenance"]["scheduler"] == "given"
    assert nums["local"]["provenance"]["scheduler"] == "local"
    datasets = sorted(p.name for p in (tmp_path / "local" / "datasets").glob("*.nc"))
    assert datasets and datasets == sorted(p.name for p in (tmp_path / "slurm" / "datasets").glob("*.nc"))
    for name in datasets:
        got, want = load(tmp_path / "slurm" / "datasets" / name), load(tmp_path / "local" / "datasets" / name)
        xr.testing.assert_identical(got.drop_attrs(deep=False), want.drop_attrs(deep=False))
    tables = sorted(p.relative_to(tmp_path / "local") for p in (tmp_path / "local" / "tables").iterdir())
    assert tables
    for rel in tables:
        assert (tmp_path / "slurm" / rel).read_bytes() == (tmp_path / "local" / rel).read_bytes(), rel


def test_readme_shows_the_commands_of_this_test():
    """The README's site-cluster section lists the commands this file runs,
    word for word (paths and addresses as placeholders)."""
    import shlex

    readme = (paths.ROOT / "README.md").read_text()
    m = re.search(r"with\s+these commands .*?```sh\n(.*?)```", readme, re.S)
    assert m, "README: no command block after 'with these commands'"
    shown = [shlex.split(line, comments=True) for line in m.group(1).replace("\\\n", " ").splitlines()]
    shown = [words for words in shown if words]
    cli = ".venv/bin/schedlab"
    ours = [helper_cmd("scheduler.txt", "$STATE", ".venv/bin/python", "tools/cluster/slurm_cluster.py"),
            campaign_cmd("CACHE", "slurm.nc", scheduler="$ADDRESS", schedlab=cli, spec="campaigns/lelong2017-kth.yaml"),
            campaign_cmd("CACHE2", "local.nc", workers=LOCAL_WORKERS, schedlab=cli,
                         spec="campaigns/lelong2017-kth.yaml"),
            study_cmd("OUT", "CACHE3", "--scheduler", "$ADDRESS", schedlab=cli)]
    assert shown == ours, "\n".join(f"README: {shlex.join(a)}\ntest:   {shlex.join(b)}"
                                    for a, b in zip(shown, ours) if a != b) or f"{len(shown)} != {len(ours)}"
    assert SPEC == paths.ROOT / "campaigns" / "lelong2017-kth.yaml" and HELPER.is_file()
