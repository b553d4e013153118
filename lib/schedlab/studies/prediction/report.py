"""The key numbers of the runtime-prediction study for the paper
(``num("prediction", ...)``), ours beside the published ones."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .analysis import (T8_ESTIMATES, _candidates, _fig_runs, _pct, _ref_correction, _short, _v, easy,
                       engines_identical, table6_values, triple_label)
from .params import LACKING, Params
from .published import COLUMNS, PUBLISHED, T6_ROWS, _pub


def numbers(ds, sel, overall, corr, logs, p: Params, timing=None) -> dict[str, Any]:
    """Key numbers for the paper (``num("prediction", ...)``); the cost of
    learning, a measured timing, is the driver's (``numbers.timing.slowdown``)."""
    traces = [str(x) for x in ds.trace.values]
    t1 = {}
    c = _ref_correction(ds)
    for t in traces:
        e = easy(ds, t)
        cl = _v(ds, "mean_bsld", t, "FCFS", "clairvoyant", c)
        t1[t] = {"easy": e, "clairvoyant": cl, "decrease_pct": _pct(cl, e),
                 "published": dict(zip(COLUMNS["table1"], _pub("table1", t) or ()))}
    t6 = {t: {**table6_values(ds, t), "published": dict(zip(T6_ROWS, _pub("table6", t) or ()))} for t in traces}
    t7 = {}
    for s in sel:
        pub = _pub("table7", s.trace)
        t7[s.trace] = {"selected": s.label, "cv": s.value, "cv_reduction_pct": _pct(s.value, s.easy),
                       "easy": s.easy, "easypp": s.easypp, "easypp_reduction_pct": _pct(s.easypp, s.easy),
                       "eloss_triple": s.eloss, "eloss_reduction_pct": _pct(s.eloss, s.easy),
                       "cv_vs_easypp_pct": _pct(s.value, s.easypp),
                       "best": triple_label(*s.best), "best_value": s.best_value,
                       "published": dict(zip(COLUMNS["table7"], pub)) if pub else {}}

    def mean(key):
        v = [x[key] for x in t7.values() if math.isfinite(x[key])]
        return float(np.mean(v)) if v else float("nan")
    pub7 = [v for k, v in PUBLISHED["table7"].items()]
    sel_names = sorted({s.label for s in sel})
    b, cc = _fig_runs(ds)
    t8 = {}
    for e in T8_ESTIMATES:
        if e in [str(x) for x in ds.estimate.values]:
            per = {t: {"mae": _v(ds, "mae", t, b, e, cc), "mean_eloss": _v(ds, "mean_eloss", t, b, e, cc),
                       "underpredicted_pct": 100.0 * _v(ds, "underpredicted", t, b, e, cc)} for t in traces}
            t8[_short(e)] = {"per_trace": per,
                             **{f"mean_{k}": float(np.nanmean([v[k] for v in per.values()]))
                                for k in ("mae", "mean_eloss", "underpredicted_pct")}}
    return {
        "traces": traces,
        "lacking": list(LACKING),
        "n_traces": len(traces),
        "n_losses": len(p.losses),
        "n_triples": len(_candidates(ds)),
        "n_cells": int(np.prod([ds.sizes[d] for d in ("trace", "backfill", "estimate", "correction")])),
        "jobs_simulated": {r["trace"]: r["jobs_simulated"] for r in logs},
        "table1": t1,
        "table6": t6,
        "table7": t7,
        "selected_triples": sel_names,
        "n_selected_triples": len(sel_names),
        "selected_all_logs": triple_label(*overall) if overall else None,
        "mean_cv_reduction_pct": mean("cv_reduction_pct"),
        "mean_cv_vs_easypp_pct": mean("cv_vs_easypp_pct"),
        "mean_easypp_reduction_pct": mean("easypp_reduction_pct"),
        "mean_eloss_reduction_pct": mean("eloss_reduction_pct"),
        "published_summary": {**PUBLISHED["summary"],
                              "mean_table7_cv_reduction_pct": float(np.mean([v[1] for v in pub7])),
                              "mean_table7_cv_vs_easypp_pct": float(np.mean([_pct(v[0], v[3]) for v in pub7]))},
        "correlation": corr,
        "table8": t8,
        "published_table8": {"EASY++ (AVE2)": dict(zip(COLUMNS["table8"], PUBLISHED["table8"]["easy++"])),
                             "E-Loss": dict(zip(COLUMNS["table8"], PUBLISHED["table8"]["E-Loss"]))},
        "engines_identical": engines_identical(timing),
    }
