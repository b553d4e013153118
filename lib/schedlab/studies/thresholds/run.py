"""The thresholds study, :func:`compute`: every grid through ``ctx.campaign``,
then the tables, figures, datasets and key numbers handed to the driver
(:func:`schedlab.protocol.study.run_study`), which writes them."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...engine import sim
from .. import Table
from .analysis import (ThesisResult, TrainTest, _provenance, generalisation, thesis_reading_sums, thesis_tables,
                       threshold_effect, traintest_dataset)
from .cells import (_table3_row, fig5_campaigns, thesis_campaign, thesis_checks,
                    traintest_campaigns)
from .figures import figure_fig5, figure_fig8, figure_sweep, figure_thesis
from .params import STUDY, Params
from .readings import thesis_readings_campaign
from .report import _key, numbers
from .scorecard import rows as scorecard_rows
from .tables import (table_fig5, table_fig8, table_fig8_maxwait, table_sec73, table_table3, table_thesis,
                     table_thesis_5_6, table_thesis_checks, table_thesis_readings, table_traintest)
from ...engine.sim import format_duration


def compute(params: Params, ctx) -> dict[str, Any]:
    """Run every grid through ``ctx.campaign`` (any scheduler, cached,
    resumable) and hand ``ctx``:

    * ``tables/{table3,fig5,traintest,sec73,fig8,fig8_maxwait,thesis_<trace>,
      thesis_5_6,thesis_checks,thesis_readings}.{csv,md}``;
    * ``figures/{fig5,sweep,fig8,thesis}.{png,pdf}``;
    * ``datasets/{fig5,fig5_baseline,traintest,thesis}.nc``: the simulated
      weeks, with the campaigns' provenance and the parameters.

    Returns ``numbers`` (flat: key numbers for the paper), ``tables``,
    ``figures`` (name -> [png, pdf]), ``datasets``, ``fig5``, ``sweep``,
    ``fig8`` and ``thesis``.
    """
    import xarray as xr

    p = params
    tables: dict[str, Table] = {}
    figures: dict[str, list] = {}
    datasets: dict[str, Any] = {}
    # -- lelong2017 Table 3
    t3 = [_table3_row(ref, p.overrun) for ref in p.traces]
    tables["table3"] = table_table3(t3)

    # -- Fig. 5
    f5 = None
    if p.fig5_trace is not None:
        grid, base = [ctx.campaign(c) for c in fig5_campaigns(p)]
        f5 = threshold_effect(grid, base, p.threshold, p.fig5_backfill, p.fig5_trace.name, p.seed)
        datasets["fig5"] = grid
        datasets["fig5_baseline"] = base
        tables["fig5"] = table_fig5(f5)
        figures["fig5"] = ctx.figure("fig5", figure_fig5(f5))

    # -- train/test: the sweep and T = 20 h
    order = [r.name for r in p.traces] + [r.name for r in p.sweep_traces
                                          if r.name not in {x.name for x in p.traces}]
    refs = {r.name: r for r in (*p.traces, *p.sweep_traces)}
    sweep: dict[str, dict[str, TrainTest]] = {}
    fig8: dict[str, TrainTest] = {}
    per_trace = []
    for name in order:
        ref = refs[name]
        ths = set()
        if any(r.name == name for r in p.sweep_traces):
            ths.update(p.thresholds)
        if any(r.name == name for r in p.traces):
            ths.add(p.threshold)
        ths = sorted(ths, key=lambda t: (t is None, t or 0))
        parts = [ctx.campaign(c) for c in traintest_campaigns(p, ref, ths)]
        ds = traintest_dataset(parts, p.policies, ths)
        per_trace.append(ds.expand_dims(trace=[name]))
        res = generalisation(ds, p.criterion, p.seed)
        if any(r.name == name for r in p.sweep_traces):
            sweep[name] = res           # every threshold simulated for it, p.threshold included
        if any(r.name == name for r in p.traces):
            fig8[name] = res[format_duration(p.threshold)]
    if per_trace:
        labels = sorted({str(x) for d in per_trace for x in d.threshold.values},
                        key=lambda s: (s == "none", sim.parse_duration(s) or 0))
        tt = xr.concat([d.reindex(threshold=labels) for d in per_trace], dim="trace", join="outer")
        tt["jobs"] = tt.jobs.fillna(-1).astype(np.int64)
        tt.attrs = _provenance(per_trace)
        datasets["traintest"] = tt
    if sweep:
        tables["traintest"] = table_traintest(sweep, [r.name for r in p.sweep_traces])
        tables["sec73"] = table_sec73(sweep, p.threshold)
        figures["sweep"] = ctx.figure("sweep", figure_sweep(sweep, [r.name for r in p.sweep_traces]))
    tables["fig8"] = table_fig8(fig8, [r.name for r in p.traces], p.threshold)
    tables["fig8_maxwait"] = table_fig8_maxwait(fig8, [r.name for r in p.traces])
    figures["fig8"] = ctx.figure("fig8", figure_fig8(fig8, [r.name for r in p.traces], p.threshold))

    # -- thesis Tables 5.2-5.5
    thesis: list[ThesisResult] = []
    th_parts = []
    for ref in p.thesis_traces:
        ds = ctx.campaign(thesis_campaign(p, ref))
        r = thesis_tables(ds, ref.name)
        thesis_checks(p, ref, r, ctx.campaign)
        if p.thesis_readings:
            thesis_reading_sums(ctx.campaign(thesis_readings_campaign(p, ref)), r, p.thesis_thresholds)
        thesis.append(r)
        th_parts.append(ds.sel(finish=p.thesis_finish).expand_dims(trace=[ref.name]))
        tables[f"thesis_{_key(ref.name)}"] = table_thesis(r)
    sdsc = [ref for ref in p.thesis_traces if ref.name == "SDSC-SP2"]
    if sdsc:
        tables["thesis_5_6"] = table_thesis_5_6(sdsc[0], p.overrun)
    if thesis:
        tables["thesis_checks"] = table_thesis_checks(thesis, p.thesis_finish)
        if p.thesis_readings:
            tables["thesis_readings"] = table_thesis_readings(thesis)
        figures["thesis"] = ctx.figure("thesis", figure_thesis(thesis))
        th = xr.concat(th_parts, dim="trace", join="outer")
        th["jobs"] = th.jobs.fillna(-1).astype(np.int64)
        th.attrs = _provenance(th_parts)
        datasets["thesis"] = th

    for name, table in tables.items():
        ctx.table(name, table)
    for name, ds in datasets.items():
        ds.attrs["study"] = STUDY
        ds.attrs["parameters"] = p.record()
        ctx.dataset(name, ds)
    return {"numbers": numbers(p, f5, sweep, fig8, thesis, t3), "tables": tables, "figures": figures,
            "scorecard": scorecard_rows(p, fig8, thesis, tables.get("sec73"), tables.get("thesis_5_6"), sweep),
            "datasets": datasets, "fig5": f5, "sweep": sweep, "fig8": fig8, "thesis": thesis}
