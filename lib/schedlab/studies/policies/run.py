"""The policies study, :func:`compute`: its campaigns, then the tables,
figures, datasets and key numbers handed to the driver
(:func:`schedlab.protocol.study.run_study`), which writes them."""
from __future__ import annotations

from typing import Any

from .. import Table
from ...workloads import traces as _traces
from .analysis import TablesResult, _pct, analyse_bandit, analyse_lelong, analyse_thesis, mapping_check
from .cells import largest_waits
from .plan import campaigns
from .figures import (figure_bandit, figure_bandit_cumulative, figure_lelong_backfill, figure_lelong_bi,
                      figure_thesis_backfilled, figure_thesis_classes, figure_thesis_cumulative,
                      figure_thesis_delayed)
from .readings import all_changes, table_bandit_readings
from .scorecard import rows as scorecard_rows
from ...engine.sim import BANDIT_POLICIES
from .params import BSLD_CLASSES, PUBLISHED, Params
from .report import findings, numbers
from .tables import (table_bandit, table_bandit_ci, table_bandit_mapping, table_claims, table_lelong_backfill,
                     table_lelong_pairs, table_lelong_table1, table_lelong_table2, table_lelong_top,
                     table_lelong_variants, table_maxwait, table_thesis_42, table_thesis_backfilled,
                     table_thesis_classes, table_thesis_gains, table_thesis_variants)


def compute(params: Params, ctx) -> dict[str, Any]:
    """Run the campaigns of every part through ``ctx.campaign`` (any
    scheduler, cached, resumable) and hand ``ctx``:

    * ``datasets/*.nc`` -- the campaigns' datasets (provenance in their attributes);
    * ``tables/<name>.{csv,md}``, ``figures/<name>.{png,pdf}``.

    Returns ``numbers`` (flat key numbers for the paper), ``findings``,
    ``datasets``, ``lelong``, ``tables_result``, ``maxwait``, ``thesis``,
    ``bandit``, ``bandit_mapping``, ``tables`` (name -> Table) and
    ``figures`` (name -> [png, pdf]).
    """
    p = params
    datasets: dict[str, Any] = {}
    with ctx.timer("campaigns_s"):
        for key, c in campaigns(p).items():
            datasets[key] = ctx.campaign(c)
    for key, ds in datasets.items():
        ds = ds.copy()
        if "policy" in ds.coords:
            ds["policy"].attrs["long_name"] = "queue policy P (P_R = P_B)"
        if "bsld_class" in ds.coords:
            ds = ds.assign_coords(bsld_class=list(BSLD_CLASSES))
            ds["bsld_class"].attrs["long_name"] = "bounded-slowdown category"
        if "rank" in ds.coords:
            ds["rank"].attrs["long_name"] = "rank by decreasing bounded slowdown (0 = most delayed)"
        datasets[key] = ds
        ctx.dataset(key.replace(":", "-"), ds)

    res: dict[str, Any] = {"datasets": datasets}
    tabs: dict[str, Table] = {}
    figs: dict[str, Any] = {}
    if "lelong" in datasets:
        lel = analyse_lelong(datasets["lelong"], p.lelong_trace.name, seed=p.seed)
        res["lelong"] = lel
        tabs["lelong_pairs"] = table_lelong_pairs(lel)
        tabs["lelong_top"] = table_lelong_top(lel)
        tabs["lelong_backfill"] = table_lelong_backfill(lel)
        figs["lelong_fig2"] = figure_lelong_bi(lel, "max")
        figs["lelong_fig3"] = figure_lelong_bi(lel, "mean")
        figs["lelong_fig4"] = figure_lelong_backfill(lel)
    if "tables" in datasets:
        tr = TablesResult(datasets["tables"], tuple(t.name for t in p.table_traces),
                          {t.name: _traces.text(t) for t in p.table_traces})
        res["tables_result"] = tr
        tabs["lelong_table1"] = table_lelong_table1(tr)
        tabs["lelong_table2"] = table_lelong_table2(tr, "CTC-SP2" if "CTC-SP2" in tr.traces else tr.traces[0])
        tabs["lelong_variants"] = table_lelong_variants(tr)
        t2 = "CTC-SP2" if "CTC-SP2" in tr.traces else tr.traces[0]
        info = next(t for t in p.table_traces if t.name == t2)
        res["maxwait"] = {pol: largest_waits(_traces.text(info), pol) for pol in ("SPF", "FCFS")}
        tabs["lelong_maxwait"] = table_maxwait(res["maxwait"], t2)
    thesis_ds = {k.split(":", 1)[1]: v for k, v in datasets.items() if k.startswith("thesis:")}
    if thesis_ds:
        th = analyse_thesis(thesis_ds, datasets.get("thesis-original"), p.thesis_threshold,
                            {t.name: _traces.text(t) for t in p.thesis_traces})
        res["thesis"] = th
        tabs["thesis_table42"] = table_thesis_42(th, p.seed)
        tabs["thesis_variants"] = table_thesis_variants(th)
        tabs["thesis_gains"] = table_thesis_gains(th, p.seed)
        tabs["thesis_classes"] = table_thesis_classes(th)
        tabs["thesis_backfilled"] = table_thesis_backfilled(th, p.seed)
        figs["thesis_cumulative"] = figure_thesis_cumulative(th)
        figs["thesis_delayed_q"] = figure_thesis_delayed(th)
        figs["thesis_bsld_classes"] = figure_thesis_classes(th)
        figs["thesis_backfilled_dist"] = figure_thesis_backfilled(th)
    bandit_ds = {k.split(":", 1)[1]: v for k, v in datasets.items() if k.startswith("bandit:")}
    if bandit_ds:
        bd = analyse_bandit(bandit_ds, p.seed)
        res["bandit"] = bd
        ours = {t.trace: {pol: _pct(t.change[pol][0]) for pol in t.policies} for t in bd}
        res["bandit_mapping"] = mapping_check(ours, PUBLISHED["bandit_table2"])
        tabs["bandit_table2"] = table_bandit(bd)
        tabs["bandit_table2_ci"] = table_bandit_ci(bd)
        tabs["bandit_mapping"] = table_bandit_mapping(res["bandit_mapping"])
        pairs = {k.split(":", 1)[1]: v for k, v in datasets.items() if k.startswith("pairs:")}
        if all(set(BANDIT_POLICIES) <= set(t.policies) for t in bd):
            period = {k.split(":", 1)[1]: v for k, v in datasets.items() if k.startswith("period:")}
            res["bandit_readings"] = all_changes(bd, pairs, p.seed, period)
            tabs["bandit_readings"] = table_bandit_readings(res["bandit_readings"], pairs, p)
        figs["bandit_dots"] = figure_bandit(bd)
        figs["bandit_cumulative"] = figure_bandit_cumulative(bd)
    if res.get("lelong") is not None or res.get("thesis"):
        tabs["claims"] = table_claims(res, p)
    for name, table in tabs.items():
        ctx.table(name, table)
    fig_paths = {name: ctx.figure(name, fig) for name, fig in figs.items()}
    res.update({"tables": tabs, "figures": fig_paths, "numbers": numbers(res, p), "findings": findings(res),
                "scorecard": scorecard_rows(res, p)})
    return res
