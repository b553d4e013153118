"""The pipeline of the runtime-prediction study, :func:`run`: the campaigns,
then the tables, figures, datasets and numbers written under ``outdir``."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ... import __version__, campaign, plots, prediction, sim
from .. import write_json
from .analysis import correlations, loo_selection, slowdowns
from .cells import N_LEVELS, _log_row, make_campaign, make_timing_campaign
from .figures import figure_errors, figure_predicted, figure_triples
from .params import BACKFILLS, CORRECTIONS, DEFAULT_TRACES, STUDY, Params, validate
from .published import GAUSSIER
from .report import numbers
from .tables import (table1, table4, table6, table7, table8, table_correlations, table_selected,
                     table_slowdown)


def _label_dataset(ds, p: Params):
    """Readable trace names, quantile levels and coordinate attributes."""
    ds = ds.assign_coords(trace=list(p.names), quantile=np.linspace(0.0, 1.0, N_LEVELS))
    ds["quantile"].attrs = {"long_name": "quantile level (fraction of the jobs)", "units": "1"}
    ds["estimate"].attrs = {"long_name": "runtime estimate: clairvoyant, requested, easy++ (AVE2) or "
                                         "learned:<over>/<under>/<weight> (gaussier2015 §4.2)"}
    ds["correction"].attrs = {"long_name": "correction of an outlived estimate (gaussier2015 §5.2)"}
    ds["backfill"].attrs = {"long_name": "backfilling queue order (primary: FCFS); SJBF = shortest estimate first"}
    return ds


def run(traces=DEFAULT_TRACES, losses="all", corrections=CORRECTIONS, backfills=BACKFILLS, weeks=None,
        skip_weeks=0, max_jobs=None, eta=prediction.DEFAULT_ETA, lam=prediction.DEFAULT_LAM, overrun="kill",
        workers=2, outdir=None, cache_dir=None, scheduler=None, log: Callable | None = print,
        params: Params | None = None) -> dict[str, Any]:
    """Run the study (the grid through :mod:`schedlab.campaign`) and write
    under ``outdir`` (default ``results/prediction``), atomically:

    * ``tables/{table4,table1,table6,table7,selected,correlations,table8,slowdown}.{csv,md}``;
    * ``figures/{errors,predicted,triples}.{png,pdf}`` (Figs. 4, 5 and the grid);
    * ``prediction.nc`` (every cell: trace x backfill x estimate x correction);
    * ``timing.nc`` (the learned triple of the cost of learning: trace x engine);
    * ``numbers.json`` (key numbers for the paper, provenance).

    Parameters are those of :func:`validate` (or a validated ``params``);
    ``scheduler``: the address of an existing dask scheduler (default: a
    local cluster of ``workers`` processes, or ``$SCHEDLAB_SCHEDULER``).
    Returns a dict: ``params``, ``dataset``, ``timing``, ``tables``, ``figures``,
    ``selection``, ``numbers``, ``files``, ``outdir``, ``seconds``.
    """
    from ...store import write_dataset

    t0 = time.perf_counter()
    p = params or validate(traces, losses, corrections, backfills, weeks, skip_weeks, max_jobs, eta, lam,
                           overrun, workers, outdir, cache_dir)
    log = log or (lambda *a, **k: None)
    out = p.outdir
    camps = (make_campaign(p), make_timing_campaign(p))
    with campaign.Runner(p.workers, scheduler, p.cache_dir, log) as runner:
        ds, timing = (runner.run(c) for c in camps)
    ds = _label_dataset(ds, p)
    timing = timing.assign_coords(trace=list(p.names))
    timing["engine"].attrs = {"long_name": "learned estimator: c (in the C core) or python (the reference, "
                                           "called back by the C core)"}
    timing.attrs["study"] = STUDY
    ds.attrs["study"] = STUDY
    ds.attrs["parameters"] = p.as_dict()
    logs = [_log_row(spec, name, p) for spec, name in zip(p.traces, p.names)]
    sel, overall = loo_selection(ds)
    corr = correlations(ds)
    sd = slowdowns(ds, timing)
    tables = {"table4": table4(logs), "table1": table1(ds), "table6": table6(ds), "table7": table7(sel),
              "selected": table_selected(sel, overall), "correlations": table_correlations(corr), "table8": table8(ds), "slowdown": table_slowdown(sd)}
    files: list[Path] = []
    for name, table in tables.items():
        files += table.write(out / "tables" / name)
    figures = {}
    for name, make in (("errors", figure_errors), ("predicted", figure_predicted), ("triples", figure_triples)):
        figures[name] = plots.savefig(make(ds), out / "figures" / name)
        files += figures[name]
    files.append(write_dataset(ds, out / "prediction.nc"))
    files.append(write_dataset(timing, out / "timing.nc"))
    nums = numbers(ds, sel, overall, corr, sd, logs, p, timing)
    nums["wall_s"] = time.perf_counter() - t0
    doc = {"study": STUDY, **nums,
           "published_source": GAUSSIER,
           "provenance": {"schedlab": __version__, "core": sim.VERSION, "prediction_version": prediction.VERSION,
                          "git_commit": ds.attrs.get("git_commit"),
                          "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                          "cells_cached": ds.attrs.get("cells_cached"),
                          "cells_computed": ds.attrs.get("cells_computed"),
                          "parameters": p.as_dict()}}
    files.append(write_json(out / "numbers.json", doc))
    return {"params": p, "dataset": ds, "timing": timing, "tables": tables, "figures": figures, "selection": sel,
            "selected_all_logs": overall, "numbers": doc, "files": files, "outdir": out,
            "seconds": time.perf_counter() - t0}
