"""The multiple-queue study, :func:`compute`: the campaigns of every trace,
then the tables, figures, datasets and numbers handed to the driver
(:func:`schedlab.protocol.study.run_study`), which writes them."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .scorecard import rows as scorecard_rows
from .analysis import TraceResult, _dataset
from .cells import fixed_campaign, load, online_campaign
from .figures import figure_fig4, figure_fig5, figure_fig6, figure_fig7, figure_fig8, figure_fig9
from .params import STUDY, Params
from .published import PAPER, PUBLISHED_NOTES
from .report import numbers
from .tables import table_fig4, table_fig6, table_table1, table_table2, table_table3


def _run_campaign(c, ctx):
    ds = ctx.campaign(c)
    if "new_partitions" in ds.dims:
        ds = ds.assign_coords(new_partitions=np.arange(1, ds.sizes["new_partitions"] + 1))
    return ds


def compute(params: Params, ctx) -> dict[str, Any]:
    """Run every simulation through ``ctx.campaign`` (any scheduler, cached,
    resumable) and hand ``ctx``:

    * ``tables/{fig4,table1,table2,table3,table3_long,fig6}.{csv,md}``;
    * ``figures/{fig4,fig5,fig6,fig7[,fig8,fig9]}.{png,pdf}``;
    * ``datasets/fixed.nc`` and ``datasets/online.nc`` (every run, per week).

    Returns ``numbers`` (definitions, key numbers, the paper's values),
    ``findings``, ``results`` (one :class:`TraceResult` per trace),
    ``tables``, ``figures`` and ``datasets``.
    """
    p = params
    results: list[TraceResult] = []
    for ref in p.refs:
        fx = _run_campaign(fixed_campaign(p, ref), ctx)
        on = _run_campaign(online_campaign(p, ref), ctx)
        results.append(TraceResult(ref, load(ref.spec, ref.weeks), fx, on, p.replays[0]))

    # the paper's machine sizes (a reading, Params.paper_machines): the counted replay only
    machines: dict[str, tuple[int, TraceResult]] = {}
    for name, (m, mref) in p.machine_refs().items():
        fx = _run_campaign(fixed_campaign(p, mref), ctx)
        on = _run_campaign(online_campaign(p, mref, replays=p.replays[:1]), ctx)
        machines[name] = (m, TraceResult(mref, load(mref.spec, mref.weeks), fx, on, p.replays[0]))

    tables = {"fig4": table_fig4(results, p.pmax), "table1": table_table1(results),
              "table2": table_table2(results, p.pmax)}
    tables["table3"], tables["table3_long"] = table_table3(results, p)
    tables["fig6"] = table_fig6(results, p.pmax)
    makers: dict[str, Callable[[], Any]] = {
        "fig4": lambda: figure_fig4(results, p.pmax), "fig5": lambda: figure_fig5(results, p.pmax),
        "fig6": lambda: figure_fig6(results, p.pmax), "fig7": lambda: figure_fig7(results, p.pmax)}
    f8 = next((r for r in results if p.fig8_trace is not None and r.name == p.fig8_trace.name), None)
    if f8 is not None and "user" in p.online_estimates:
        makers["fig8"] = lambda: figure_fig8(f8, p.fig8_params)
        makers["fig9"] = lambda: figure_fig9(f8, p.fig8_params)
    for name, table in tables.items():
        ctx.table(name, table)
    figures = {name: ctx.figure(name, make()) for name, make in makers.items()}
    datasets = {"fixed": _dataset([r.fixed for r in results], [r.name for r in results]),
                "online": _dataset([r.online for r in results], [r.name for r in results])}
    for name, ds in datasets.items():
        ctx.dataset(name, ds)
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
        **nums,
        # the paper's machine sizes, a reading shown in the scorecard (Params.paper_machines)
        "paper_machines": {name: {"m": m, "R_exact": mr.fixed_r("exact", p.pmax),
                                  "R_user": mr.fixed_r("user", p.pmax)}
                           for name, (m, mr) in machines.items()},
        "published_source": PAPER,
        "published_notes": list(PUBLISHED_NOTES),
    }
    findings = {r.name: f"P = {p.pmax} queues: R = {r.fixed_r('exact', p.pmax):.2f} with exact estimates, "
                        f"{r.fixed_r('user', p.pmax):.2f} with user estimates" for r in results}
    return {"numbers": doc, "findings": findings, "results": results, "tables": tables, "figures": figures,
            "datasets": datasets, "scorecard": scorecard_rows(results, p, machines)}
