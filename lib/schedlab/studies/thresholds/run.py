"""The pipeline of the thresholds study: :func:`run` runs every grid through
:mod:`schedlab.campaign` and writes the tables, figures, datasets and key
numbers."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from ... import campaign, plots, sim
from .. import Table, write_json
from .analysis import ThesisResult, TrainTest, _provenance, generalisation, thesis_tables, threshold_effect, traintest_dataset
from .cells import _table3_row, fig5_campaigns, thesis_campaign, thesis_checks, traintest_campaigns
from .figures import figure_fig5, figure_fig8, figure_sweep, figure_thesis
from .params import DEFAULT_THRESHOLDS, DEFAULT_TRACES, STUDY, THESIS_TRACES, Params, threshold_label, validate
from .report import _key, numbers
from .tables import (table_fig5, table_fig8, table_fig8_maxwait, table_sec73, table_table3, table_thesis,
                     table_thesis_5_6, table_thesis_checks, table_traintest)


def run(traces=DEFAULT_TRACES, sweep_traces=None, thresholds=DEFAULT_THRESHOLDS, threshold="20h",
        weeks=250, policies=sim.LELONG_POLICIES, fig5_trace="KTH-SP2", fig5_backfill="SPF",
        thesis_traces=THESIS_TRACES, thesis_thresholds=("none", 200000, "20h"),
        thesis_policies=sim.BANDIT_POLICIES, thesis_weeks=None, thesis_finish="recorded", seed=2017,
        overrun="drop", criterion="mean", workers=2, outdir=None, cache_dir=None, log=print,
        params: Params | None = None) -> dict[str, Any]:
    """Run the study (every grid through :mod:`schedlab.campaign`) and write
    under ``outdir`` (default ``results/thresholds``), atomically:

    * ``tables/{table3,fig5,traintest,sec73,fig8,fig8_maxwait,thesis_<trace>,
      thesis_5_6,thesis_checks}.{csv,md}``;
    * ``figures/{fig5,sweep,fig8,thesis}.{png,pdf}``;
    * ``fig5.nc``, ``fig5_baseline.nc``, ``traintest.nc``, ``thesis.nc``: the
      simulated weeks, with the campaigns' provenance and the parameters;
    * ``numbers.json`` (flat: key numbers for the paper).

    Parameters are those of :func:`validate` (or a validated ``params``).
    Returns a dict: ``params``, ``tables``, ``figures``, ``datasets``,
    ``fig5``, ``sweep``, ``fig8``, ``thesis``, ``numbers``, ``files``,
    ``outdir``, ``seconds``.
    """
    import xarray as xr

    from ...store import write_dataset

    t0 = time.perf_counter()
    p = params or validate(traces, sweep_traces, thresholds, threshold, weeks, policies, fig5_trace,
                           fig5_backfill, thesis_traces, thesis_thresholds, thesis_policies,
                           thesis_weeks, thesis_finish, seed, overrun, criterion, workers, outdir,
                           cache_dir)
    log = log or (lambda *a, **k: None)
    out = p.outdir
    files: list[Path] = []
    tables: dict[str, Table] = {}
    figures: dict[str, list[Path]] = {}
    datasets: dict[str, Any] = {}
    cluster = campaign.Runner(p.workers, None, p.cache_dir, log)
    try:
        # -- lelong2017 Table 3
        t3 = [_table3_row(ref, p.overrun) for ref in p.traces]
        tables["table3"] = table_table3(t3)

        # -- Fig. 5
        f5 = None
        if p.fig5_trace is not None:
            grid, base = [cluster.run(c) for c in fig5_campaigns(p)]
            f5 = threshold_effect(grid, base, p.threshold, p.fig5_backfill, p.fig5_trace.name, p.seed)
            datasets["fig5"] = grid
            datasets["fig5_baseline"] = base
            tables["fig5"] = table_fig5(f5)
            figures["fig5"] = plots.savefig(figure_fig5(f5), out / "figures" / "fig5")

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
            parts = [cluster.run(c) for c in traintest_campaigns(p, ref, ths)]
            ds = traintest_dataset(parts, p.policies, ths)
            per_trace.append(ds.expand_dims(trace=[name]))
            res = generalisation(ds, p.criterion, p.seed)
            if any(r.name == name for r in p.sweep_traces):
                sweep[name] = res           # every threshold simulated for it, p.threshold included
            if any(r.name == name for r in p.traces):
                fig8[name] = res[threshold_label(p.threshold)]
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
            figures["sweep"] = plots.savefig(figure_sweep(sweep, [r.name for r in p.sweep_traces]),
                                             out / "figures" / "sweep")
        tables["fig8"] = table_fig8(fig8, [r.name for r in p.traces], p.threshold)
        tables["fig8_maxwait"] = table_fig8_maxwait(fig8, [r.name for r in p.traces])
        figures["fig8"] = plots.savefig(figure_fig8(fig8, [r.name for r in p.traces], p.threshold),
                                        out / "figures" / "fig8")

        # -- thesis Tables 5.2-5.5
        thesis: list[ThesisResult] = []
        th_parts = []
        for ref in p.thesis_traces:
            ds = cluster.run(thesis_campaign(p, ref))
            r = thesis_tables(ds, ref.name)
            thesis_checks(p, ref, r, cluster, log)
            thesis.append(r)
            th_parts.append(ds.sel(finish=p.thesis_finish).expand_dims(trace=[ref.name]))
            tables[f"thesis_{_key(ref.name)}"] = table_thesis(r)
        sdsc = [ref for ref in p.thesis_traces if ref.name == "SDSC-SP2"]
        if sdsc:
            tables["thesis_5_6"] = table_thesis_5_6(sdsc[0], sdsc[0].m, p.overrun)
        if thesis:
            tables["thesis_checks"] = table_thesis_checks(thesis, p.thesis_finish)
            figures["thesis"] = plots.savefig(figure_thesis(thesis), out / "figures" / "thesis")
            th = xr.concat(th_parts, dim="trace", join="outer")
            th["jobs"] = th.jobs.fillna(-1).astype(np.int64)
            th.attrs = _provenance(th_parts)
            datasets["thesis"] = th
    finally:
        cluster.close()

    for name, table in tables.items():
        files += table.write(out / "tables" / name)
    for paths_ in figures.values():
        files += paths_
    for name, ds in datasets.items():
        ds.attrs["study"] = STUDY
        ds.attrs["parameters"] = p.as_dict()
        files.append(write_dataset(ds, out / f"{name}.nc"))
    nums = numbers(p, f5, sweep, fig8, thesis, t3)
    nums["wall_s"] = time.perf_counter() - t0
    files.append(write_json(out / "numbers.json", nums))
    return {"params": p, "tables": tables, "figures": figures, "datasets": datasets, "fig5": f5,
            "sweep": sweep, "fig8": fig8, "thesis": thesis, "numbers": nums, "files": files,
            "outdir": out, "seconds": time.perf_counter() - t0}
