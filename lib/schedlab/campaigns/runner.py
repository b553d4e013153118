"""Running campaigns on dask.distributed: one task per batch of cells, on a
local cluster (all cores) or on an existing scheduler (``scheduler=`` or
``$SCHEDLAB_SCHEDULER``), batched so that task overhead stays small next to
simulation time (:func:`run`; :class:`Runner` keeps one cluster for several
campaigns).  The client takes what it can from the cache (:mod:`.cache`),
caches each result as it arrives, and assembles the campaign's Dataset
(:mod:`.assembly`); progress goes to a bar on stderr and, every
:data:`PROGRESS_EVERY` seconds, to ``$SCHEDLAB_PROGRESS``."""
from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from .. import paths
from .assembly import assemble, provenance
from .cache import Cache
from .cells import _import_cell, resolve_cell
from .outputs import check_metrics
from .spec import Campaign

#: Environment variable: the address of a dask scheduler to run on (unset: a local cluster).
SCHEDULER_ENV = "SCHEDLAB_SCHEDULER"
#: A file to which campaigns (and the study driver) append progress lines:
#: ``make reproduce`` sets it and prints them, since papermill keeps the
#: kernel's own output inside the notebook.
PROGRESS_ENV = "SCHEDLAB_PROGRESS"
PROGRESS_EVERY = 10.0     # seconds between two progress lines of a campaign


def progress_line(text: str) -> None:
    """Append a line to ``$SCHEDLAB_PROGRESS`` (nothing when it is unset)."""
    target = os.environ.get(PROGRESS_ENV)
    if target:
        with open(target, "a") as fh:
            fh.write(text.rstrip("\n") + "\n")


def _run_batch(cell: str, batch: list[tuple[str, dict]]) -> tuple[list[tuple[str, dict]], int]:
    """Worker side: run a batch of cells; results, and how many jobs their
    simulations completed, go back to the client
    (which checked the cell: :func:`run`).  Cleaning warnings are not
    repeated here: the driver states each trace's cleaning once (and records
    it in provenance) before its campaigns run."""
    import warnings

    from ..workloads.workload import CleaningWarning

    from ..engine.sim import jobs_simulated

    from ..errors import SchedlabError

    f = _import_cell(cell)
    before = jobs_simulated()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CleaningWarning)
        try:
            results = [(key, f(params)) for key, params in batch]
        except SchedlabError as exc:
            # Returned, not raised: dask would log "Compute Failed" with the
            # worker's traceback before the driver says the one line a local
            # run says (CellFailed.raise_ below).
            return CellFailed(exc), jobs_simulated() - before
        except Exception as exc:                      # noqa: BLE001 -- carried back whole, see below
            # Another exception (a bug, or a site cell's own error): returned
            # too, with the worker's traceback as a note, so that it is shown
            # once, as a local run shows it, not after dask's "Compute Failed"
            # block.
            return CellFailed(_carried(exc)), jobs_simulated() - before
    return results, jobs_simulated() - before


def _carried(exc: BaseException) -> BaseException:
    """``exc`` with the worker's traceback as a note, picklable (else a
    RuntimeError with its class, message and that traceback)."""
    import pickle
    import traceback

    tb = "".join(traceback.format_exception(exc)).rstrip()
    try:
        exc.add_note(f"(raised on a dask worker)\n{tb}")
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:                                  # noqa: BLE001 -- an exception that does not travel
        return RuntimeError(f"{type(exc).__name__}: {exc} (raised on a dask worker)\n{tb}")


class CellFailed:
    """A cell's :class:`~schedlab.errors.SchedlabError`, carried back from a
    worker as a result; the driver raises it as a local run would."""

    def __init__(self, error):
        self.error = error

    def raise_(self):
        raise self.error.with_traceback(None) from None


def _batches(items: list, n_workers: int, batch: int | None) -> list[list]:
    if not items:
        return []
    size = batch or max(1, min(32, math.ceil(len(items) / (4 * max(1, n_workers)))))
    return [items[i:i + size] for i in range(0, len(items), size)]


class _Progress:
    """Cells done, rate and ETA on stderr."""

    def __init__(self, total: int, enabled: bool, label: str):
        self.total, self.done, self.t0 = total, 0, time.time()
        self.bar = None
        if enabled and total:
            from tqdm.auto import tqdm
            self.bar = tqdm(total=total, desc=label, unit="cell", file=sys.stderr, smoothing=0.1)

    def update(self, n: int):
        self.done += n
        if self.bar is not None:
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """While the local cluster starts its worker processes: SIGINT ignored,
    a disposition they inherit, so that Ctrl-C (sent by the terminal to the
    whole process group) reaches only this process, which stops the cluster
    and says in one line what the cache keeps -- not one traceback per
    worker.  Only from the main thread (where signals are handled)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _is_main_test(node) -> bool:
    """``__name__ == "__main__"`` (either side)."""
    import ast

    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
        return False
    sides = [node.left, node.comparators[0]]
    return (any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
            and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides))


def unguarded_main_call() -> tuple[str, int] | None:
    """Where a script run as ``python script.py`` calls, at its top level and
    outside ``if __name__ == "__main__":``, the function now starting worker
    processes: (path, line), else None.  The workers start by the spawn
    method, which re-runs the main script from the top in each of them, so
    such a call would start workers from the workers, and dask reports only
    ``Nanny failed to start`` after a long traceback.  Notebooks, ``python -c``,
    the REPL and console scripts have no such frame."""
    import ast

    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path or not str(path).endswith(".py"):
        return None
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_globals is vars(main) and frame.f_code.co_name == "<module>"):
        frame = frame.f_back
    if frame is None:
        return None
    line = frame.f_lineno
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_main_test(node.test):
            body_end = max(getattr(n, "end_lineno", n.lineno) for n in node.body)
            if node.body[0].lineno <= line <= body_end:
                return None
    return str(path), line


def check_main_guard() -> None:
    """One line instead of dask's traceback when a plain script would start
    worker processes without a main guard (:func:`unguarded_main_call`): the
    script stops (SystemExit, status 1) -- it cannot go on, and a traceback
    would bury the fix.  Never raised in a notebook or under a guard."""
    where = unguarded_main_call()
    if where is not None:
        path, line = where
        raise SystemExit(f"schedlab: {path}, line {line}: this call starts worker processes, which re-run the script "
                         f"from the top; put it under 'if __name__ == \"__main__\":' (or pass scheduler= "
                         f"an existing dask scheduler)")


def local_cluster(n: int):
    """A local dask cluster of ``n`` single-threaded worker processes that
    leave Ctrl-C to this process, and log only errors.  Refused in one line
    from an unguarded script (:func:`check_main_guard`)."""
    from dask.distributed import LocalCluster

    check_main_guard()
    with _workers_ignore_ctrl_c():
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                            silence_logs=40)


def _address(scheduler: str | None) -> str | None:
    """The scheduler given, else ``$SCHEDLAB_SCHEDULER``, checked (None: a local cluster)."""
    from .. import validators

    if scheduler:
        return validators.scheduler_address(scheduler, "--scheduler")
    env = os.environ.get(SCHEDULER_ENV)
    return validators.scheduler_address(env, f"${SCHEDULER_ENV}") if env else None


def _client(scheduler: str | None, workers: int | None):
    from dask.distributed import Client

    address = _address(scheduler)
    if address:
        return Client(address), None
    n = workers or os.cpu_count() or 1
    cluster = local_cluster(n)
    return Client(cluster), cluster


def run(campaign: Campaign, *, scheduler: str | None = None, workers: int | None = None,
        cache_dir=None, progress: bool = True, batch: int | None = None, log=print):
    """Run (or resume) a campaign; returns its xarray.Dataset.  ``log``:
    where progress lines go (None: nowhere); a progress bar on stderr when
    ``progress``, and lines of cells done, rate and ETA every
    :data:`PROGRESS_EVERY` seconds to ``$SCHEDLAB_PROGRESS`` when it is set
    (the study driver's ``log`` writes the other lines there too)."""
    if log is None:
        def log(*args, **kwargs):
            return None
    t0 = time.time()
    resolve_cell(campaign.cell)   # the campaign may have been changed since it was checked
    check_metrics(campaign.name, campaign.cell, campaign.metrics)   # what its cell produces, before any work
    cells = campaign.cells()
    keyed = [(idx, campaign.key(p), p) for idx, p in cells]
    cache = Cache(cache_dir or paths.RESULTS / "cache", campaign.name)
    found = {}
    todo = []
    for _, k, p in keyed:
        entry = cache.load(k)   # checked; a corrupt entry warns and is recomputed
        if entry is None:
            todo.append((k, p))
        else:
            found[k] = entry
    n_cached = len(keyed) - len(todo)
    log(f"campaign {campaign.name}: {len(keyed)} cells, {n_cached} from cache, {len(todo)} to compute")
    last = [time.time()]

    def report(done: int) -> None:
        now = time.time()
        if done < len(todo) and now - last[0] < PROGRESS_EVERY:
            return
        last[0] = now
        rate = done / max(now - t0, 1e-9)
        eta = f"ETA {(len(todo) - done) / rate:.0f} s" if done < len(todo) else "done"
        progress_line(f"campaign {campaign.name}: {done}/{len(todo)} cells computed, {rate:.2f} cells/s, {eta}")
    n_workers = 0
    n_jobs = 0
    if todo:
        client, cluster = _client(scheduler, workers)
        try:
            from dask.distributed import as_completed

            n_workers = len(client.scheduler_info(n_workers=-1).get("workers", {}))
            if cluster is None and not n_workers:
                # A given scheduler whose workers are not up yet (batch jobs
                # still queued): wait for one rather than cut the campaign
                # into tasks for a single worker.
                log(f"campaign {campaign.name}: waiting for a worker on {client.scheduler.address}")
                client.wait_for_workers(1)
                n_workers = len(client.scheduler_info(n_workers=-1).get("workers", {}))
            n_workers = n_workers or (workers or 1)
            bar = _Progress(len(todo), progress, campaign.name)
            futures = [client.submit(_run_batch, campaign.cell, b, pure=False)
                       for b in _batches(todo, n_workers, batch)]
            try:
                for fut in as_completed(futures):
                    results, jobs = fut.result()
                    if isinstance(results, CellFailed):
                        results.raise_()
                    n_jobs += jobs
                    for key, res in results:
                        cache.put(key, res)
                        found[key] = {k: (tuple(d), np.asarray(v)) for k, (d, v) in res.items()}
                    # Cached here: the workers may forget the result, so a
                    # worker lost later (a cancelled or preempted batch job)
                    # costs only the tasks it was running, not all it ran.
                    fut.release()
                    bar.update(len(results))
                    report(bar.done)
            finally:
                bar.close()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    ds = assemble(campaign, [(idx, found[k]) for idx, k, _ in keyed])
    ds.attrs.update(provenance(campaign, n_cached, len(todo), time.time() - t0, n_workers))
    ds.attrs["jobs_simulated"] = n_jobs   # by the cells computed here (the cached ones cost nothing)
    log(f"campaign {campaign.name}: done in {time.time() - t0:.1f} s "
        f"({len(todo)} computed, {n_cached} cached)")
    return ds


class Runner:
    """Runs several campaigns on one dask cluster: the scheduler given (or
    ``$SCHEDLAB_SCHEDULER``), else a local cluster of ``workers`` processes
    started at the first campaign that has a cell to compute (a run served
    entirely from the cache starts none) and kept for the next ones, so its
    workers start once and keep their per-process trace caches.  A context
    manager; ``computed`` and ``cached`` count cells over its campaigns.
    """

    def __init__(self, workers: int | None = None, scheduler: str | None = None, cache_dir=None,
                 log=print):
        self.workers = workers or os.cpu_count() or 1
        self.scheduler = _address(scheduler)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else paths.RESULTS / "cache"
        self.log = log
        self.cluster = None
        self.computed = self.cached = 0
        self.jobs = 0   # jobs simulated by the cells computed on its cluster

    def pending(self, campaign: Campaign) -> int:
        """How many of the campaign's cells are not in the cache."""
        cache = Cache(self.cache_dir, campaign.name)
        return sum(cache.load(campaign.key(params)) is None for _, params in campaign.cells())

    def address(self) -> str:
        """The scheduler's address, starting the local cluster if needed."""
        if self.scheduler:
            return self.scheduler
        if self.cluster is None:
            self.cluster = local_cluster(self.workers)
            if self.log is not None:
                self.log(f"local dask cluster: {self.workers} worker(s)")
        return self.cluster.scheduler_address

    def run(self, campaign: Campaign, **kw):
        """:func:`run` on this runner's cluster (none if every cell is cached)."""
        check_metrics(campaign.name, campaign.cell, campaign.metrics)    # before a cluster starts
        scheduler = self.address() if self.pending(campaign) else None
        ds = run(campaign, scheduler=scheduler, cache_dir=self.cache_dir, progress=kw.pop("progress", False),
                 log=self.log, **kw)
        self.computed += int(ds.attrs.get("cells_computed", 0))
        self.cached += int(ds.attrs.get("cells_cached", 0))
        self.jobs += int(ds.attrs.get("jobs_simulated", 0))
        return ds

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
