"""The online-selection study, :func:`compute`: the campaigns, then the
datasets, tables, figures and numbers handed to the driver
(:func:`schedlab.protocol.study.run_study`), which writes them."""
from __future__ import annotations

from typing import Any

import numpy as np

from .scorecard import rows as scorecard_rows
from .analysis import analyse
from ...workloads import traces as _traces
from .cells import campaigns
from .figures import figure_fixed, figure_shares, figure_strategies
from .params import MISSING_TRACES, PERIODS, POLICIES, STRATEGIES, STUDY, Params
from .published import PAPER, PUBLISHED_TABLE2
from .report import numbers
from .tables import data_curves, data_shares, tables


def _timing(datasets: dict[str, Any], p: Params, workers: int) -> dict[str, Any]:
    """Measured compute time per cell and the projection of the full
    profile (100 resamples of 104 weeks, both periods, every strategy) from
    it, on ``workers`` workers (the driver adds the wall time and the cells
    computed and cached)."""
    per_trace = {}
    total_cells = 0
    projected = 0.0
    scale = 104 / p.weeks
    for key, ds in datasets.items():
        kind, name = key.split(":", 1)
        t = ds.compute_time.values
        total_cells += int(t.size)
        mean = float(np.nanmean(t))
        per_trace.setdefault(name, {})[f"{kind}_cell_s"] = mean
        if kind == "fixed":
            projected += mean * scale * 100 * len(p.policies)
        else:
            # a strategy cell's time by period and strategy, scaled to the full grid
            by = ds.compute_time.mean("sample")
            for d in PERIODS:
                for s in STRATEGIES:
                    if d in by.period.values and s in by.strategy.values:
                        projected += float(by.sel(period=d, strategy=s)) * scale * 100
                    else:
                        projected += float(np.nanmean(by.values)) * scale * 100
    return {"cells": total_cells, "cell_seconds_mean": per_trace, "workers": workers,
            "projected_full_profile_cpu_s": projected,
            "projected_full_profile_wall_s": projected / max(workers, 1),
            "projection_note": "CPU seconds per cell measured here, scaled linearly to 104 weeks and "
                               "100 resamples of the traces run here, both periods and every strategy, "
                               "divided by the workers"}


def compute(params: Params, ctx) -> dict[str, Any]:
    """Run the study's campaigns through ``ctx`` and hand it:

    * ``datasets/{fixed,strategies}-<trace>.nc`` -- the campaigns' datasets;
    * ``tables/{table2,table2_ci,table3,table3_ci}.{csv,md}``;
    * ``figures/fixed``, ``figures/strategies_<period>``,
      ``figures/share_{noisy,bandit}`` (``.png`` and ``.pdf``);
    * ``data/{curves,shares}.csv`` -- the data behind the figures.

    Returns ``numbers`` (key numbers, the published Table 2, and under
    ``timing`` the measured time per cell and the projection of the
    paper-sized campaign), ``findings``, ``results`` (one
    :class:`TraceResult` per trace), ``datasets``, ``tables`` and ``figures``.
    """
    p = params
    datasets: dict[str, Any] = {}
    with ctx.timer("campaigns_s"):
        for key, c in campaigns(p).items():
            datasets[key] = ctx.campaign(c)
    results = []
    for t in p.traces:
        fx = datasets[f"fixed:{t.name}"]
        st = datasets[f"strategies:{t.name}"]
        st["day"].attrs.update({"long_name": "day since the start of the resampled trace"})
        st.attrs["policies"] = list(p.policies)
        for kind, ds in (("fixed", fx), ("strategies", st)):
            ctx.dataset(f"{kind}-{t.name}", ds)
        results.append(analyse(t.name, _traces.text(t), fx, st, seed=p.seed))
    tabs = {name: ctx.table(name, table) for name, table in tables(results, p.epsilon).items()}
    ctx.data("curves", data_curves(results))
    ctx.data("shares", data_shares(results))
    figs = {"fixed": ctx.figure("fixed", figure_fixed(results))}
    for d in p.periods:
        figs[f"strategies_{d}"] = ctx.figure(f"strategies_{d}", figure_strategies(results, d))
    for s in ("noisy", "bandit"):
        if s in p.strategies:
            figs[f"share_{s}"] = ctx.figure(f"share_{s}", figure_shares(results, s))
    nums = numbers(results)
    doc = {
        "study": STUDY,
        **nums,
        "policies": list(p.policies),
        "missing_traces": list(MISSING_TRACES),
        "published_table2": PUBLISHED_TABLE2,
        "source": PAPER,
        "timing": _timing(datasets, p, ctx.runner.workers),
    }
    findings = {r.name: f"best fixed policy {r.best_fixed}" for r in results}
    return {"numbers": doc, "findings": findings, "results": results, "datasets": datasets, "tables": tabs,
            "figures": figs, "scorecard": scorecard_rows(results, tuple(p.policies) == POLICIES)}
