"""The pipeline of the classification study: :func:`run` runs the weekly
classifiers and the simulations as campaigns and writes datasets, tables,
figures, ``numbers.json``, ``findings.json`` and ``parameters.json``."""
from __future__ import annotations

import hashlib
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ... import __version__, campaign, plots, store
from ...errors import InputError
from .. import Table, write_json, write_text
from .analysis import TraceResult, predictions_from
from .cells import FEATURE_NAMES, OUTCOMES, _prepared, _slug, campaign_schedule, campaigns_classify
from .figures import (figure_cumulative, figure_importance, figure_monthly, figure_small_large, figure_totals,
                      figure_weekly_scores)
from .params import Params, validate
from .report import findings, numbers
from .tables import (table_6_4, table_6_5, table_6_6, table_dividers, table_gains, table_small_large,
                     table_totals, table_weekly_summary)


def _classify_dataset(ds):
    ds = ds.assign_coords(outcome=list(OUTCOMES), feature=list(FEATURE_NAMES))
    ds["outcome"].attrs["long_name"] = "TS, FS, TL, FL: true/false small/large (thesis §6.3.3)"
    ds["feature"].attrs["long_name"] = "classification feature (thesis Table 6.3)"
    ds["slot"].attrs["long_name"] = "position of a job among the jobs submitted in its week"
    ds["week"].attrs["long_name"] = "week of the trace (7-day periods from the first submission)"
    return ds


def _schedule_dataset(ds):
    ds["policy"].attrs["long_name"] = "queue policy P (P_R = P_B), with the waiting-time threshold"
    ds["variant"].attrs["long_name"] = "scheduling variant (thesis §6.5)"
    ds["week"].attrs["long_name"] = "week of the trace: cumulative values at its end"
    ds["month"].attrs["long_name"] = "30-day period from the first submission (jobs by submit time)"
    return ds


def run(params: Params | None = None, /, *, log: Callable = print, progress: bool = False,
        **kw) -> dict[str, Any]:
    """Run the study and write every output under ``params.outdir`` (default
    ``results/classification``), each file atomically:

    * ``datasets/classify-<trace>.nc`` (per week: divider, training size,
      confusion counts, feature importances, predicted classes) and
      ``datasets/schedule-<trace>.nc`` (per policy and variant);
    * ``tables/<name>.{csv,md}``, ``figures/<name>.{png,pdf}``,
      ``data/weekly_scores.csv``;
    * ``numbers.json`` (key numbers for the paper), ``findings.json``,
      ``parameters.json``.

    ``params`` is a :class:`Params` (from :func:`validate`), or give
    :func:`validate`'s keyword arguments.  Returns a dict: ``params``,
    ``results`` (a :class:`TraceResult` per trace), ``tables``, ``figures``,
    ``numbers``, ``findings``, ``files``, ``outdir``, ``seconds``.
    """
    t0 = time.perf_counter()
    if isinstance(params, Params) and kw:
        raise InputError("run: give either a Params or keyword parameters, not both")
    p = params if isinstance(params, Params) else validate(**kw)
    out = p.outdir
    cluster = campaign.Runner(p.workers, p.scheduler, p.cache_dir, log)
    results: list[TraceResult] = []
    files: list[Path] = []
    timing = {}
    try:
        t = time.perf_counter()
        for info, c in zip(p.traces, campaigns_classify(p).values()):
            ds = _classify_dataset(cluster.run(c, progress=progress))
            pr = _prepared(p, info)
            results.append(TraceResult(info.name, pr, ds, predictions_from(ds, pr)))
            files.append(store.write_dataset(ds, out / "datasets" / f"classify-{_slug(info.name)}.nc"))
        timing["classify_s"] = time.perf_counter() - t
        t = time.perf_counter()
        for info, r in zip(p.traces, results):
            c = campaign_schedule(p, info, r.predicted)
            ds = _schedule_dataset(cluster.run(c, progress=progress))
            spec = c.to_dict()
            spec["params"] = {**spec["params"], "classes": "sha256:" + hashlib.sha256(
                spec["params"]["classes"].encode()).hexdigest()}
            ds.attrs["campaign"] = spec          # the packed classes, by checksum
            r.schedule = ds
            files.append(store.write_dataset(ds, out / "datasets" / f"schedule-{_slug(info.name)}.nc"))
        timing["schedule_s"] = time.perf_counter() - t
    finally:
        cluster.close()

    tabs = {"table_6_4": table_6_4(results), "table_6_5": table_6_5(results), "table_6_6": table_6_6(results),
            "weekly": table_weekly_summary(results), "gains": table_gains(results), "totals": table_totals(results),
            "small_large": table_small_large(results), "dividers": table_dividers(results)}
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    rows = []
    for r in results:
        w = r.weekly
        for k in range(r.prepared.n_weeks):
            rows.append([r.name, k, float(r.classify.divider.values[k]), int(r.classify.train_jobs.values[k]),
                         *[int(x) for x in r.counts[k]], w["accuracy"][k], w["precision"][k], w["recall"][k]])
    weekly = Table(["trace", "week", "divider_s", "train_jobs", *OUTCOMES, "accuracy", "precision", "recall"], rows)
    files.append(write_text(out / "data" / "weekly_scores.csv", weekly.to_csv()))
    figs = {"weekly_scores": figure_weekly_scores(results), "importance": figure_importance(results),
            "cumulative": figure_cumulative(results), "monthly": figure_monthly(results),
            "small_large": figure_small_large(results), "totals": figure_totals(results)}
    fig_paths = {}
    for name, fig in figs.items():
        fig_paths[name] = plots.savefig(fig, out / "figures" / name)
        files += fig_paths[name]
    nums = numbers(results, p)
    found = findings(results, p)
    nums.update({k: round(v, 1) for k, v in timing.items()})
    nums["wall_s"] = round(time.perf_counter() - t0, 1)
    nums["schedlab_version"] = __version__
    nums["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    files.append(write_json(out / "numbers.json", nums))
    files.append(write_json(out / "findings.json", found))
    files.append(write_json(out / "parameters.json", p.as_dict()))
    return {"params": p, "results": results, "tables": tabs, "figures": fig_paths, "numbers": nums,
            "findings": found, "files": files, "outdir": out, "seconds": time.perf_counter() - t0}
