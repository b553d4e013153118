"""The pipeline of the multiple-queue study, :func:`run`: the campaigns of
every trace, then the tables, figures, datasets and numbers written under
``outdir``."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ... import __version__, campaign, paths, plots
from .. import write_json
from .analysis import TraceResult, _dataset
from .cells import fixed_campaign, load, online_campaign
from .figures import figure_fig4, figure_fig5, figure_fig6, figure_fig7, figure_fig8, figure_fig9
from .params import DEFAULT_TRACES, FIG8_PARAMS, HORIZONS, PMAX, REPLAYS, STUDY, THRESHOLDS, Params, validate
from .published import PAPER, PUBLISHED_NOTES
from .report import numbers
from .tables import table_fig4, table_fig6, table_table1, table_table2, table_table3


def _run_campaign(c: campaign.Campaign, runner: campaign.Runner):
    ds = runner.run(c)
    if "new_partitions" in ds.dims:
        ds = ds.assign_coords(new_partitions=np.arange(1, ds.sizes["new_partitions"] + 1))
    return ds


def run(traces=DEFAULT_TRACES, weeks=None, thresholds=THRESHOLDS, horizons=HORIZONS, pmax=PMAX, initial=None,
        replays=REPLAYS, trigger="cumulative", online_estimates=("user",), fig8_trace="CTC-SP2",
        fig8_params=FIG8_PARAMS, workers=2, outdir=None, cache_dir=None, log=print,
        params: Params | None = None) -> dict[str, Any]:
    """Run the study (every simulation through :mod:`schedlab.campaign`:
    dask, cached, resumable) and write under ``outdir`` (default
    ``results/multiqueue``), atomically:

    * ``tables/{fig4,table1,table2,table3,table3_long,fig6}.{csv,md}``;
    * ``figures/{fig4,fig5,fig6,fig7[,fig8,fig9]}.{png,pdf}``;
    * ``fixed.nc`` and ``online.nc`` (every run, per week);
    * ``numbers.json`` (key numbers, the paper's values, provenance).

    Parameters are those of :func:`validate` (or a validated ``params``).
    Returns a dict: ``params``, ``results`` (list of :class:`TraceResult`),
    ``tables``, ``figures``, ``datasets``, ``numbers``, ``files``, ``outdir``,
    ``seconds``.
    """
    from ...store import write_dataset

    t_start = time.perf_counter()
    p = params or validate(traces, weeks, thresholds, horizons, pmax, initial, replays, trigger,
                           online_estimates, fig8_trace, fig8_params, workers, outdir, cache_dir)
    log = log or (lambda *a, **k: None)
    out = p.outdir
    cluster = campaign.Runner(p.workers, None, p.cache_dir, log)
    results: list[TraceResult] = []
    try:
        for ref in p.traces:
            fx = _run_campaign(fixed_campaign(p, ref), cluster)
            on = _run_campaign(online_campaign(p, ref), cluster)
            results.append(TraceResult(ref, load(ref.spec, ref.weeks), fx, on, p.replays[0]))
    finally:
        cluster.close()

    tables = {"fig4": table_fig4(results, p.pmax), "table1": table_table1(results),
              "table2": table_table2(results, p.pmax)}
    tables["table3"], tables["table3_long"] = table_table3(results, p)
    tables["fig6"] = table_fig6(results, p.pmax)
    makers: dict[str, Callable[[], Any]] = {
        "fig4": lambda: figure_fig4(results, p.pmax), "fig5": lambda: figure_fig5(results, p.pmax),
        "fig6": lambda: figure_fig6(results, p.pmax), "fig7": lambda: figure_fig7(results, p.pmax)}
    f8 = next((r for r in results if r.name == p.fig8_trace), None)
    if f8 is not None and "user" in p.online_estimates:
        makers["fig8"] = lambda: figure_fig8(f8, p.fig8_params)
        makers["fig9"] = lambda: figure_fig9(f8, p.fig8_params)
    files: list[Path] = []
    for name, table in tables.items():
        files += table.write(out / "tables" / name)
    figures = {}
    for name, make in makers.items():
        figures[name] = plots.savefig(make(), out / "figures" / name)
        files += figures[name]
    datasets = {"fixed": _dataset([r.fixed for r in results], [r.name for r in results]),
                "online": _dataset([r.online for r in results], [r.name for r in results])}
    for name, ds in datasets.items():
        files.append(write_dataset(ds, out / f"{name}.nc"))
    nums = numbers(results, p)
    doc = {
        "study": STUDY,
        "definitions": {
            "slowdown": "s = 1 + wait / max(10 s, runtime) (lawson2005 §2.2)",
            "R": "per job (s_1 - s_m) / min(s_1, s_m) against single-queue EASY-FCFS-FCFS with the same "
                 "estimates; jobs < 10 s that requested > 60 s ignored; aggregate = mean over jobs, weekly = "
                 "over the jobs submitted in the week",
            "exact": "estimate = the real runtime; criteria of each week from the jobs submitted that week",
            "user": "estimate = requested time; criteria from the jobs completed in the previous week (Fig. 3)",
            "trigger": {"cumulative": "mean slowdown of every job completed so far",
                        "week": "mean slowdown of the jobs completed in the week just ended"}[p.trigger],
            "replay": {"oracle": "the online simulations replay the jobs waiting at the test and those "
                                 "actually submitted in the horizon (the trace's future)",
                       "queued": "the online simulations replay the jobs waiting at the test only"},
            "primary_replay": p.replays[0],
            "engine": "csrc/SEMANTICS.md, section 'Multiple-queue backfilling'",
        },
        "parameters": p.as_dict(),
        **nums,
        "published_source": PAPER,
        "published_notes": list(PUBLISHED_NOTES),
        "provenance": {"schedlab": __version__, "git_commit": paths.git_commit(),
                       "inputs": {r.name: {"spec": r.ref.spec, "sha256": campaign._trace_sha(r.ref.spec)}
                                  for r in results}},
        "wall_s": time.perf_counter() - t_start,
    }
    files.append(write_json(out / "numbers.json", doc))
    return {"params": p, "results": results, "tables": tables, "figures": figures, "datasets": datasets,
            "numbers": doc, "files": files, "outdir": out, "seconds": time.perf_counter() - t_start}
