"""A dask cluster on Slurm for schedlab campaigns and studies: a dask
scheduler here, workers as Slurm batch jobs (dask_jobqueue.SLURMCluster),
until stopped.

    .venv/bin/python tools/cluster/slurm_cluster.py --jobs 100 --address-file scheduler.txt &
    .venv/bin/schedlab campaign campaigns/lelong2017-kth.yaml --scheduler "$(cat scheduler.txt)"
    .venv/bin/schedlab study run thresholds --profile full --scheduler "$(cat scheduler.txt)"
    kill %1        # cancels the workers' jobs, stops the scheduler

Each job is one worker process with ``--cores`` threads (default 1:
single-core workers).  A worker whose job ends (scancel, preemption, walltime)
is replaced: every few seconds the cluster is scaled back to ``--jobs``, which
submits a job for each one lost (dask-jobqueue does not do it by itself).
The scheduler's address is printed and written to ``--address-file`` once the
first ``--wait`` workers are connected.  SIGTERM or SIGINT closes the cluster:
its jobs are cancelled.  ``make test-cluster`` runs its campaigns on this.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2, help="Slurm jobs (workers) to keep (default 2)")
    ap.add_argument("--cores", type=int, default=1, help="cores (worker threads) per job (default 1)")
    ap.add_argument("--memory", default="2GB", help="memory per job (default 2GB)")
    ap.add_argument("--walltime", default="02:00:00", help="walltime per job (default 02:00:00)")
    ap.add_argument("--queue", default=None, help="partition (sbatch -p; default: Slurm's)")
    ap.add_argument("--account", default=None, help="account (sbatch -A)")
    ap.add_argument("--directive", action="append", default=[], metavar="OPTION",
                    help="extra sbatch option, e.g. --directive=--qos=long (repeatable)")
    ap.add_argument("--python", default=sys.executable,
                    help="the workers' Python, with schedlab installed (default: this one)")
    ap.add_argument("--host", default=None,
                    help="address the scheduler listens on, reachable from the compute nodes "
                         "(default: dask-jobqueue's choice)")
    ap.add_argument("--log-directory", default=None, help="the jobs' stdout/stderr files")
    ap.add_argument("--local-directory", default=None, help="the workers' scratch directory")
    ap.add_argument("--address-file", default=None, help="write the scheduler's address here")
    ap.add_argument("--wait", type=int, default=None,
                    help="workers to wait for before printing the address (default: --jobs)")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds to wait for them (default 600: queues can be slow)")
    ap.add_argument("--keep-every", type=float, default=5.0,
                    help="seconds between two checks for lost jobs (default 5)")
    args = ap.parse_args(argv)
    for name in ("jobs", "cores"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.wait is not None and not 0 <= args.wait <= args.jobs:
        ap.error(f"--wait must be between 0 and --jobs ({args.jobs}), got {args.wait}")

    import dask
    from dask_jobqueue import SLURMCluster
    from distributed import Client

    # A lost worker's job is dropped 2 s after its worker leaves (dask's
    # default: 15 s), so that the next check replaces it.
    dask.config.set({"distributed.deploy.lost-worker-timeout": "2s"})
    options = {"port": 0, "dashboard_address": ":0"}
    if args.host:
        options["host"] = args.host
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    signal.signal(signal.SIGINT, lambda *a: stop.set())

    cluster = SLURMCluster(cores=args.cores, processes=1, memory=args.memory, walltime=args.walltime,
                           queue=args.queue, account=args.account, python=args.python,
                           job_extra_directives=args.directive, log_directory=args.log_directory,
                           local_directory=args.local_directory, scheduler_options=options)
    try:
        with Client(cluster) as client:
            print(cluster.job_script(), flush=True)
            cluster.scale(jobs=args.jobs)
            wait = args.jobs if args.wait is None else args.wait
            t0 = time.monotonic()
            while len(client.scheduler_info(n_workers=-1)["workers"]) < wait:
                if stop.wait(0.2):
                    return 1
                if time.monotonic() - t0 > args.timeout:
                    print(f"slurm_cluster: {wait} worker(s) not connected after {args.timeout:.0f} s; "
                          f"see squeue and the jobs' logs ({args.log_directory or 'the submission directory'})",
                          file=sys.stderr, flush=True)
                    return 1
            address = cluster.scheduler_address
            if args.address_file:
                tmp = Path(f"{args.address_file}.tmp{os.getpid()}")
                tmp.write_text(address + "\n")
                tmp.replace(args.address_file)
            print(f"scheduler {address}: {wait} worker(s) connected, {args.jobs} job(s) kept "
                  f"(SIGTERM or Ctrl-C stops them)", flush=True)
            while not stop.wait(args.keep_every):
                cluster.scale(jobs=args.jobs)      # resubmits a job for each one lost
    finally:
        cluster.close()
        print("slurm_cluster: jobs cancelled, scheduler stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
