"""The runtime-prediction study, :func:`compute`: the campaigns, then the
tables, figures, datasets and numbers handed to the driver
(:func:`schedlab.protocol.study.run_study`), which writes them."""
from __future__ import annotations

from typing import Any

import numpy as np

from .scorecard import rows as scorecard_rows
from .analysis import correlations, loo_selection, slowdowns
from .cells import N_LEVELS, log_row, make_campaign, make_timing_campaign
from .figures import figure_errors, figure_predicted, figure_triples
from .params import STUDY, Params
from .published import GAUSSIER
from .report import numbers
from .tables import (table1, table4, table6, table7, table8, table_correlations, table_selected,
                     table_slowdown)


def _label_dataset(ds, p: Params):
    """Readable trace names, quantile levels and coordinate attributes."""
    ds = ds.assign_coords(trace=[t.name for t in p.traces], quantile=np.linspace(0.0, 1.0, N_LEVELS))
    ds["quantile"].attrs = {"long_name": "quantile level (fraction of the jobs)", "units": "1"}
    ds["estimate"].attrs = {"long_name": "runtime estimate: clairvoyant, requested, easy++ (AVE2) or "
                                         "learned:<over>/<under>/<weight> (gaussier2015 §4.2)"}
    ds["correction"].attrs = {"long_name": "correction of an outlived estimate (gaussier2015 §5.2)"}
    ds["backfill"].attrs = {"long_name": "backfilling queue order (primary: FCFS); SJBF = shortest estimate first"}
    return ds


def compute(params: Params, ctx) -> dict[str, Any]:
    """Run the grid and the cost-of-learning campaign through ``ctx``, and
    hand it:

    * ``tables/{table4,table1,table6,table7,selected,correlations,table8,slowdown}.{csv,md}``;
    * ``figures/{errors,predicted,triples}.{png,pdf}`` (Figs. 4, 5 and the grid);
    * ``datasets/prediction.nc`` (every cell: trace x backfill x estimate x correction);
    * ``datasets/timing.nc`` (the learned triple of the cost of learning: trace x engine).

    Returns ``numbers`` (key numbers for the paper; the cost of learning, a
    measured timing, under ``timing.slowdown``), ``findings``, ``dataset``,
    ``timing_dataset``, ``tables``, ``figures``, ``selection`` and ``selected_all_logs``.
    """
    p = params
    ds, timing = (ctx.campaign(c) for c in (make_campaign(p), make_timing_campaign(p)))
    ds = _label_dataset(ds, p)
    timing = timing.assign_coords(trace=[t.name for t in p.traces])
    timing["engine"].attrs = {"long_name": "learned estimator: c (in the C core) or python (the reference, "
                                           "called back by the C core)"}
    timing.attrs["study"] = ds.attrs["study"] = STUDY
    ds.attrs["parameters"] = p.record()
    logs = [log_row(info, p) for info in p.traces]
    sel, overall = loo_selection(ds)
    corr = correlations(ds)
    sd = slowdowns(ds, timing)
    tables = {"table4": table4(logs), "table1": table1(ds), "table6": table6(ds), "table7": table7(sel),
              "selected": table_selected(sel, overall), "correlations": table_correlations(corr),
              "table8": table8(ds), "slowdown": table_slowdown(sd)}
    for name, table in tables.items():
        ctx.table(name, table)
    figures = {name: ctx.figure(name, make(ds)) for name, make in
               (("errors", figure_errors), ("predicted", figure_predicted), ("triples", figure_triples))}
    ctx.dataset("prediction", ds)
    ctx.dataset("timing", timing)
    nums = numbers(ds, sel, overall, corr, logs, p, timing)
    doc = {"study": STUDY, **nums, "published_source": GAUSSIER, "timing": {"slowdown": sd}}
    findings = {
        "selected_all_logs": f"selected on all logs together: {nums['selected_all_logs']}",
        "reductions": "mean AVEbsld reduction vs EASY: selected on the other logs {:.1f} %, EASY++ {:.1f} %, "
                      "E-Loss triple {:.1f} %".format(nums["mean_cv_reduction_pct"], nums["mean_easypp_reduction_pct"],
                                                      nums["mean_eloss_reduction_pct"]),
        "engines_identical": f"C and Python estimators give the same cells: {nums['engines_identical']}",
    }
    return {"numbers": doc, "findings": findings, "dataset": ds, "timing_dataset": timing, "tables": tables,
            "figures": figures, "selection": sel, "selected_all_logs": overall, "scorecard": scorecard_rows(ds, sel, p, corr, tables["table8"], logs)}
