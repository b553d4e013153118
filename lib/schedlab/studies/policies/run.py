"""The pipeline of the policies study: :func:`run` runs the campaigns and
writes every output (datasets, tables, figures, key numbers, findings)."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ... import __version__, campaign, plots, store
from ...errors import InputError
from .. import Table, write_json
from .analysis import TablesResult, _pct, analyse_bandit, analyse_lelong, analyse_thesis, mapping_check
from .cells import _ref, campaigns, largest_waits
from .figures import (figure_bandit, figure_bandit_cumulative, figure_lelong_backfill, figure_lelong_bi,
                      figure_thesis_backfilled, figure_thesis_classes, figure_thesis_cumulative,
                      figure_thesis_delayed)
from .params import BSLD_CLASSES, PUBLISHED, Params, validate
from .report import findings, numbers
from .tables import (table_bandit, table_bandit_ci, table_bandit_mapping, table_claims, table_lelong_backfill,
                     table_lelong_pairs, table_lelong_table1, table_lelong_table2, table_lelong_top,
                     table_lelong_variants, table_maxwait, table_thesis_42, table_thesis_backfilled,
                     table_thesis_classes, table_thesis_gains, table_thesis_variants)


def run(params: Params | None = None, /, *, log: Callable = print, progress: bool = False,
        **kw) -> dict[str, Any]:
    """Run the study and write every output under ``params.outdir``
    (default ``results/policies``), each file atomically:

    * ``datasets/*.nc`` -- the campaigns' datasets (provenance in their attributes);
    * ``tables/<name>.{csv,md}``, ``figures/<name>.{png,pdf}``;
    * ``numbers.json`` -- flat key numbers for the paper; ``findings.json``.

    ``params`` is a :class:`Params` (from :func:`validate`), or give
    :func:`validate`'s keyword arguments.  Returns a dict: ``params``,
    ``datasets``, ``lelong``, ``tables_result``, ``thesis``, ``bandit``,
    ``bandit_mapping``, ``tables`` (name -> Table), ``figures`` (name ->
    [png, pdf]), ``numbers``, ``findings``, ``files``, ``outdir``, ``seconds``.
    """
    t0 = time.perf_counter()
    p = params if isinstance(params, Params) else validate(**kw)
    if isinstance(params, Params) and kw:
        raise InputError("run: give either a Params or keyword parameters, not both")
    out = p.outdir
    camps = campaigns(p)
    datasets: dict[str, Any] = {}
    with campaign.Runner(p.workers, p.scheduler, p.cache_dir, log) as runner:
        for key, c in camps.items():
            datasets[key] = runner.run(c, progress=progress)
    files: list[Path] = []
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
        files.append(store.write_dataset(ds, out / "datasets" / (key.replace(":", "-") + ".nc")))

    res: dict[str, Any] = {"params": p, "datasets": datasets}
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
                          {t.name: _ref(t) for t in p.table_traces})
        res["tables_result"] = tr
        tabs["lelong_table1"] = table_lelong_table1(tr)
        tabs["lelong_table2"] = table_lelong_table2(tr, "CTC-SP2" if "CTC-SP2" in tr.traces else tr.traces[0])
        tabs["lelong_variants"] = table_lelong_variants(tr)
        t2 = "CTC-SP2" if "CTC-SP2" in tr.traces else tr.traces[0]
        info = next(t for t in p.table_traces if t.name == t2)
        res["maxwait"] = {pol: largest_waits(_ref(info), pol, m=info.m) for pol in ("SPF", "FCFS")}
        tabs["lelong_maxwait"] = table_maxwait(res["maxwait"], t2)
    thesis_ds = {k.split(":", 1)[1]: v for k, v in datasets.items() if k.startswith("thesis:")}
    if thesis_ds:
        th = analyse_thesis(thesis_ds, datasets.get("thesis-original"), p.thesis_threshold,
                            {t.name: _ref(t) for t in p.thesis_traces})
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
        figs["bandit_dots"] = figure_bandit(bd)
        figs["bandit_cumulative"] = figure_bandit_cumulative(bd)
    if res.get("lelong") is not None or res.get("thesis"):
        tabs["claims"] = table_claims(res, p)
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    fig_paths = {}
    for name, fig in figs.items():
        fig_paths[name] = plots.savefig(fig, out / "figures" / name)
        files += fig_paths[name]
    nums = numbers(res, p)
    found = findings(res)
    nums["wall_s"] = round(time.perf_counter() - t0, 1)
    nums["schedlab_version"] = __version__
    nums["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    files.append(write_json(out / "numbers.json", nums))
    files.append(write_json(out / "findings.json", found))
    files.append(write_json(out / "parameters.json", p.as_dict()))
    res.update({"tables": tabs, "figures": fig_paths, "numbers": nums, "findings": found, "files": files,
                "outdir": out, "seconds": time.perf_counter() - t0})
    return res
