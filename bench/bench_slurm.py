"""Campaign wall time on Slurm workers beside a local cluster (issue 21).

The lelong2017-size campaign (campaigns/lelong2017-kth.yaml: 98 cells, 24,500
week-long simulations) from an empty cache, through
``schedlab.campaigns.runner.run(..., scheduler=ADDRESS)`` (the path of
``schedlab campaign --scheduler``), on

* a local dask cluster of 1 and 2 single-threaded worker processes,
* a dask_jobqueue.SLURMCluster of 1 and 2 single-core workers (sbatch jobs),

each cluster started first and timed apart (start-up: until its workers
reach the scheduler), with fresh workers for every row.  Needs a Slurm; the
private one of ``make test-cluster`` serves:

    bash tests/cluster/with-slurm.sh .venv/bin/python bench/bench_slurm.py [--workers 1 2]

Figures only, no target: on a shared machine they are noisy.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from schedlab.campaigns.runner import run
from schedlab.campaigns.spec import Campaign
from schedlab import paths

SPEC = paths.ROOT / "campaigns" / "lelong2017-kth.yaml"


def timed_campaign(address: str, cache: Path):
    spec = Campaign.from_yaml(SPEC)
    t = time.perf_counter()
    ds = run(spec, scheduler=address, cache_dir=cache, progress=False, log=None)
    return time.perf_counter() - t, ds


def local_row(n: int, cache: Path):
    from distributed import Client, LocalCluster

    t = time.perf_counter()
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=40) as cluster, Client(cluster) as client:
        client.wait_for_workers(n, timeout=120)
        start = time.perf_counter() - t
        wall, ds = timed_campaign(cluster.scheduler_address, cache)
    return start, wall, ds


def slurm_row(n: int, cache: Path, state: Path):
    from dask_jobqueue import SLURMCluster
    from distributed import Client

    t = time.perf_counter()
    with SLURMCluster(cores=1, processes=1, memory="1GB", walltime="00:30:00", python=sys.executable,
                      log_directory=str(state / "jobs"), local_directory=str(state / "dask-worker-space"),
                      scheduler_options={"host": "127.0.0.1", "port": 0, "dashboard_address": ":0"}) as cluster, \
            Client(cluster) as client:
        cluster.scale(jobs=n)
        client.wait_for_workers(n, timeout=120)
        start = time.perf_counter() - t
        wall, ds = timed_campaign(cluster.scheduler_address, cache)
    return start, wall, ds


def submitted_jobs(state: Path) -> int | None:
    log = state / "log" / "slurmctld.log"
    return log.read_text().count("_slurm_rpc_submit_batch_job: JobId=") if log.exists() else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default: 1 2)")
    args = ap.parse_args()
    if not os.environ.get("SLURM_CONF"):
        print("bench_slurm: no SLURM_CONF; run it inside a Slurm, e.g. "
              "bash tests/cluster/with-slurm.sh .venv/bin/python bench/bench_slurm.py", file=sys.stderr)
        return 2
    state = Path(os.environ.get("SCHEDLAB_SLURM_STATE") or tempfile.mkdtemp(prefix="bench-slurm-"))
    sims = None
    rows = []
    reference = None
    for kind, row in (("local", local_row), ("slurm", slurm_row)):
        for n in args.workers:
            with tempfile.TemporaryDirectory() as cache:
                start, wall, ds = (row(n, Path(cache)) if kind == "local" else row(n, Path(cache), state))
            values = ds.drop_attrs(deep=False)
            if reference is None:
                reference = values
            elif not values.identical(reference):
                print(f"bench_slurm: {kind} with {n} worker(s) gave a different dataset", file=sys.stderr)
                return 1
            sims = int(ds.sizes["half"] * ds.sizes["primary"] * ds.sizes["backfill"] * ds.sizes["week"])
            rows.append((kind, n, start, wall))
    host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
    print(f"lelong2017-size campaign on KTH-SP2: {ds.attrs['cells_total']} cells, {sims} week simulations, "
          f"empty cache; {os.cpu_count()} cores on {host}; datasets identical")
    print(f"{'cluster':<14}{'workers':>8}{'start-up s':>12}{'campaign s':>12}{'weeks/s':>10}")
    for kind, n, start, wall in rows:
        name = "local" if kind == "local" else "SLURMCluster"
        print(f"{name:<14}{n:>8}{start:>12.1f}{wall:>12.1f}{sims / wall:>10.0f}")
    jobs = submitted_jobs(state)
    if jobs is not None:
        print(f"Slurm jobs submitted so far on this cluster: {jobs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
