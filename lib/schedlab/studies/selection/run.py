"""The pipeline of the online-selection study, :func:`run`: the campaigns,
then the datasets, tables, figures and numbers written under ``outdir``."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from ... import __version__, campaign, paths, plots, sim, store
from .. import write_json, write_text
from .analysis import analyse
from .cells import _ref, campaigns
from .figures import figure_fixed, figure_shares, figure_strategies
from .params import DEFAULT_TRACES, MISSING_TRACES, PERIODS, POLICIES, STRATEGIES, STUDY, Params, validate
from .published import PAPER, PUBLISHED_TABLE2
from .report import numbers
from .tables import data_curves, data_shares, tables


def _timing(datasets: dict[str, Any], p: Params, wall: float) -> dict[str, Any]:
    """Measured compute time per cell and the projection of the full
    profile (100 resamples of 104 weeks, both periods, every strategy) from it."""
    per_trace = {}
    total_cells, computed = 0, 0
    projected = 0.0
    scale = 104 / p.weeks
    for key, ds in datasets.items():
        kind, name = key.split(":", 1)
        t = ds.compute_time.values
        total_cells += int(t.size)
        computed += int(ds.attrs.get("cells_computed", 0))
        mean = float(np.nanmean(t))
        per_trace.setdefault(name, {})[f"{kind}_cell_s"] = mean
        if kind == "fixed":
            projected += mean * scale * 100 * len(POLICIES)
        else:
            # a strategy cell's time by period and strategy, scaled to the full grid
            by = ds.compute_time.mean("sample")
            for d in PERIODS:
                for s in STRATEGIES:
                    if d in by.period.values and s in by.strategy.values:
                        projected += float(by.sel(period=d, strategy=s)) * scale * 100
                    else:
                        projected += float(np.nanmean(by.values)) * scale * 100
    return {"wall_s": wall, "cells": total_cells, "cells_computed": computed,
            "cell_seconds_mean": per_trace, "workers": p.workers,
            "projected_full_profile_cpu_s": projected,
            "projected_full_profile_wall_s": projected / max(p.workers, 1),
            "projection_note": "CPU seconds per cell measured here, scaled linearly to 104 weeks and "
                               "100 resamples of the traces run here, both periods and every strategy, "
                               "divided by the workers"}


def run(traces: Iterable = DEFAULT_TRACES, resamples=100, weeks=104, periods=("day", "week"),
        strategies=STRATEGIES, epsilon=0.5, decay=1.0, noise=0.15, threshold="40h", seed=2017,
        workers=2, scheduler=None, outdir=None, cache_dir=None, profile="custom", log=print,
        n_boot: int = 2000) -> dict[str, Any]:
    """Run the study and write its outputs under ``outdir`` (default
    ``results/selection``), each file atomically:

    * ``data/{fixed,strategies}-<trace>.nc`` -- the campaigns' datasets;
    * ``tables/{table2,table2_ci,table3,table3_ci}.{csv,md}``;
    * ``figures/fixed``, ``figures/strategies_<period>``,
      ``figures/share_{noisy,bandit}`` (``.png`` and ``.pdf``);
    * ``data/{curves,shares}.csv`` -- the data behind the figures;
    * ``numbers.json`` -- key numbers, the published Table 2, timing,
      parameters and provenance.

    Parameters: see :func:`validate`.  Returns a dict with ``params``,
    ``results`` (one :class:`TraceResult` per trace), ``tables``,
    ``figures``, ``numbers``, ``files``, ``outdir`` and ``seconds``.
    """
    t0 = time.perf_counter()
    p = traces if isinstance(traces, Params) else validate(
        traces, resamples, weeks, periods, strategies, epsilon, decay, noise, threshold, seed, workers,
        scheduler, outdir, cache_dir, profile)
    out = p.outdir
    camps = campaigns(p)
    datasets: dict[str, Any] = {}
    with campaign.Runner(p.workers, p.scheduler, p.cache_dir, log) as runner:
        for key, c in camps.items():
            datasets[key] = runner.run(c)
    wall_campaigns = time.perf_counter() - t0
    files: list[Path] = []
    results = []
    for t in p.traces:
        fx = datasets[f"fixed:{t.name}"]
        st = datasets[f"strategies:{t.name}"]
        st["day"].attrs.update({"long_name": "day since the start of the resampled trace"})
        st.attrs["policies"] = list(POLICIES)
        for kind, ds in (("fixed", fx), ("strategies", st)):
            files.append(store.write_dataset(ds, out / "data" / f"{kind}-{t.name}.nc"))
        results.append(analyse(t.name, _ref(t), fx, st, seed=p.seed, n_boot=n_boot))
    tabs = tables(results, p.epsilon)
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    files.append(write_text(out / "data" / "curves.csv", data_curves(results).to_csv()))
    files.append(write_text(out / "data" / "shares.csv", data_shares(results).to_csv()))
    figs = {"fixed": plots.savefig(figure_fixed(results), out / "figures" / "fixed")}
    for d in p.periods:
        figs[f"strategies_{d}"] = plots.savefig(figure_strategies(results, d), out / "figures" / f"strategies_{d}")
    for s in ("noisy", "bandit"):
        if s in p.strategies:
            figs[f"share_{s}"] = plots.savefig(figure_shares(results, s), out / "figures" / f"share_{s}")
    for v in figs.values():
        files += v
    nums = numbers(results, p)
    seconds = time.perf_counter() - t0
    doc = {
        "study": STUDY,
        **nums,
        "parameters": p.as_dict(),
        "policies": list(POLICIES),
        "missing_traces": list(MISSING_TRACES),
        "published_table2": PUBLISHED_TABLE2,
        "source": PAPER,
        "timing": _timing(datasets, p, wall_campaigns),
        "provenance": {
            "schedlab": __version__, "core": sim.VERSION, "git_commit": paths.git_commit(),
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"), "wall_s": seconds,
            "inputs": {t.name: {"path": str(t.path), "sha256": t.sha256, "m": t.m} for t in p.traces},
        },
    }
    files.append(write_json(out / "numbers.json", doc))
    return {"params": p, "results": results, "datasets": datasets, "tables": tabs, "figures": figs,
            "numbers": doc, "files": files, "outdir": out, "seconds": time.perf_counter() - t0}
