"""The tables of the runtime-prediction study: each of gaussier2015's
tables (4, 1, 6, 7, 8) with the published values beside ours, the selected
triples, the correlations between logs and the cost of learning."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ...engine import prediction
from .. import Table
from .analysis import (T8_ESTIMATES, Selection, _pct, _ref_correction, _short, _v, table6_values,
                       triple_label)
from .params import LACKING
from .published import GAUSSIER, PUBLISHED, T6_ROWS, _pub


def table4(rows: Sequence[dict]) -> Table:
    """gaussier2015 Table 4 (the logs) beside ours."""
    out = []
    for r in rows:
        pub = _pub("table4", r["trace"]) or (None, None, None, None)
        out.append([r["trace"], pub[0], r["year"], pub[1], r["m"], pub[2], r["jobs_in_file"], r["jobs"],
                    r["jobs_simulated"], pub[3], r["months"]])
    for name in LACKING:
        pub = PUBLISHED["table4"][name]
        out.append([name, pub[0], None, pub[1], None, pub[2], None, None, None, pub[3], None])
    return Table(["log", "year (paper)", "year", "CPUs (paper)", "m", "jobs (paper, k)", "jobs in file",
                  "jobs cleaned", "jobs simulated", "months (paper)", "months simulated"], out,
                 title="The logs (gaussier2015 Table 4)", digits={"months simulated": 1},
                 notes=["jobs simulated: the window of the log of this run (the whole cleaned log in "
                        "the full profile); months: first to last submission of those jobs.",
                        "Metacentrum is not bundled: it is left out of every table.", GAUSSIER])


def table1(ds) -> Table:
    """Table 1: EASY vs EASY-Clairvoyant (FCFS backfilling)."""
    rows = []
    c = _ref_correction(ds)
    for t in [str(x) for x in ds.trace.values]:
        pub = _pub("table1", t) or (None, None, None)
        e = _v(ds, "mean_bsld", t, "FCFS", "requested", c)
        cl = _v(ds, "mean_bsld", t, "FCFS", "clairvoyant", c)
        rows.append([t, pub[0], e, pub[1], cl, pub[2], _pct(cl, e)])
    return Table(["log", "EASY (paper)", "EASY", "clairvoyant (paper)", "clairvoyant", "decrease % (paper)",
                  "decrease %"], rows, title="AVEbsld of EASY and EASY-Clairvoyant (gaussier2015 Table 1)",
                 digits={"decrease %": 0},
                 notes=["EASY: requested times; clairvoyant: actual runtimes; both EASY-FCFS-FCFS.",
                        "decrease: 100 x (1 - clairvoyant / EASY)."])


def table6(ds) -> Table:
    """Table 6, one row per approach, paper and ours side by side per log."""
    traces = [str(x) for x in ds.trace.values]
    vals = {t: table6_values(ds, t) for t in traces}
    cols = ["approach"]
    for t in traces:
        cols += [f"{t} (paper)", t]
    rows = []
    for i, key in enumerate(T6_ROWS):
        row: list[Any] = [key]
        for t in traces:
            pub = _pub("table6", t)
            row += [pub[i] if pub else None, vals[t][key]]
        rows.append(row)
    return Table(cols, rows, title="AVEbsld of each approach (gaussier2015 Table 6)", default_digits=1,
                 notes=["EASY: requested / FCFS backfilling; EASY++: AVE2 / incremental / SJBF; clairvoyant: "
                        "actual runtimes.",
                        "learning: best and worst over the learned predictions (losses) x the corrections, "
                        "per backfilling order."])


def table7(sel: Sequence[Selection]) -> Table:
    """Table 7 beside ours, with the paper's E-Loss triple (the selected
    triples themselves: :func:`table_selected`)."""
    rows = []
    for s in sel:
        pub = _pub("table7", s.trace) or (None,) * 5
        rows.append([s.trace, pub[0], s.value, pub[1], _pct(s.value, s.easy), pub[2], s.easy,
                     pub[3], s.easypp, pub[4], _pct(s.easypp, s.easy), s.eloss, _pct(s.eloss, s.easy)])
    return Table(["log", "C-V (paper)", "C-V", "C-V red. % (paper)", "C-V red. %", "EASY (paper)",
                  "EASY", "EASY++ (paper)", "EASY++", "EASY++ red. % (paper)", "EASY++ red. %",
                  "E-Loss triple", "E-Loss triple red. %"], rows,
                 title="Leave-one-log-out selection of the heuristic triple (gaussier2015 Table 7)",
                 default_digits=1, digits={"C-V red. %": 0, "EASY++ red. %": 0, "E-Loss triple red. %": 0},
                 notes=["C-V: AVEbsld of the (prediction, correction, backfilling) triple with the least sum of "
                        "AVEbsld on the other logs, evaluated on this one (the triples: see the selection table).",
                        "red.: AVEbsld reduction relative to EASY, 100 x (1 - AVEbsld / EASY's).",
                        "E-Loss triple: the paper's recommended triple, E-Loss / incremental / EASY-SJBF.",
                        "The paper selects among six logs (with Metacentrum); we have five."])


def table_selected(sel: Sequence[Selection], overall) -> Table:
    """The triple selected for each log, and each log's best one in hindsight."""
    rows = [[s.trace, s.label, s.value, triple_label(*s.best), s.best_value] for s in sel]
    if overall is not None:
        rows.append(["(all logs)", triple_label(*overall), None, None, None])
    return Table(["log", "C-V triple (selected on the other logs)", "C-V", "best triple on the log", "best"],
                 rows, title="Selected triples (gaussier2015 §6.3.3)", default_digits=1,
                 notes=["triple: prediction / correction / backfilling; the paper selects E-Loss / incremental / "
                        "EASY-SJBF on every log but SDSC-SP2 (requested-time correction there).",
                        "(all logs): the triple with the least sum of AVEbsld over every log."])


def table_correlations(corr: dict[str, Any]) -> Table:
    pub = PUBLISHED["summary"]
    rows = [[k, v] for k, v in corr["pairs"].items()]
    rows += [["mean (paper: {:.2f})".format(pub["correlation_mean"]), corr["mean"]],
             ["min (paper: {:.2f})".format(pub["correlation_min"]), corr["min"]],
             ["max (paper: {:.2f})".format(pub["correlation_max"]), corr["max"]]]
    return Table(["pair of logs", "Pearson r"], rows, title="Correlation of the triples' AVEbsld between logs "
                 "(gaussier2015 §6.3.2)",
                 notes=["over every non-clairvoyant triple of the grid; the paper's values are over six logs."])


def table8(ds) -> Table:
    """Table 8: MAE and mean E-Loss of the predictions (EASY-SJBF, incremental runs)."""
    rows = []
    traces = [str(x) for x in ds.trace.values]
    b = "SJBF" if "SJBF" in [str(x) for x in ds.backfill.values] else str(ds.backfill.values[0])
    c = _ref_correction(ds)
    pubs = {"easy++": PUBLISHED["table8"]["easy++"],
            "learned:" + prediction.E_LOSS.name: PUBLISHED["table8"]["E-Loss"]}
    for e in T8_ESTIMATES:
        if e not in [str(x) for x in ds.estimate.values]:
            continue
        pub = pubs.get(e, (None, None))
        maes = [_v(ds, "mae", t, b, e, c) for t in traces]
        els = [_v(ds, "mean_eloss", t, b, e, c) for t in traces]
        unders = [_v(ds, "underpredicted", t, b, e, c) for t in traces]
        for t, mae, el, u in zip(traces, maes, els, unders):
            rows.append([_short(e), t, pub[0], mae, pub[1], el, 100.0 * u])
        rows.append([_short(e), "mean over the logs", pub[0], float(np.nanmean(maes)), pub[1],
                     float(np.nanmean(els)), 100.0 * float(np.nanmean(unders))])
    return Table(["prediction", "log", "MAE (paper, s)", "MAE (s)", "mean E-Loss (paper)", "mean E-Loss",
                  "under-predicted %"], rows,
                 title="Prediction errors: MAE and mean E-Loss (gaussier2015 Table 8)", default_digits=0,
                 digits={"under-predicted %": 1},
                 notes=[f"the estimates each job got at submission in the EASY-{b} / {c} runs, against the "
                        "duration it ran.",
                        "E-Loss: log(q p) (e - p)^2 if e >= p, log(q p) (p - e) otherwise (gaussier2015 Eq. 3).",
                        "The paper does not say which log its Table 8 is measured on."])


def table_slowdown(sd: dict[str, Any]) -> Table:
    per = sd["per_trace"]

    def us(s, v):
        return 1e6 * s / v["jobs"] if v["jobs"] > 0 and math.isfinite(s) else None
    rows = [[t, v["jobs"], v["requested_s"], v["learned_s"], v["ratio"], v["python_s"], v.get("ratio_python"),
             v["speedup"], us(v["learned_s"], v), us(v["python_s"], v)] for t, v in per.items()]
    rows.append(["all logs", sum(v["jobs"] for v in per.values()), None, None, sd["overall"], None,
                 sd["overall_python"], sd["overall_speedup"], None, None])
    return Table(["log", "jobs", "requested run (s)", "learned run, C (s)", "slowdown, C",
                  "learned run, Python (s)", "slowdown, Python", "C speed-up", "C us/job", "Python us/job"],
                 rows, title="Cost of learning: wall time of one simulation",
                 digits={"requested run (s)": 3, "learned run, C (s)": 3, "slowdown, C": 1,
                         "learned run, Python (s)": 2, "slowdown, Python": 0, "C speed-up": 0,
                         "C us/job": 2, "Python us/job": 1},
                 notes=["requested: mean wall time of the log's requested-time simulations (the C core alone); "
                        "learned, C: mean over its learned-prediction simulations, the estimator in the C core "
                        "(features, prediction, one NAG step per job); slowdown: learned / requested.",
                        "learned, Python: the E-Loss / incremental / EASY-SJBF simulation with the Python "
                        "reference estimator (called back by the C core twice per job); C speed-up: its time "
                        "over the same simulation's with the C estimator.  Both compute the same bits.",
                        "Wall times depend on the machine and its load; the campaign's cells run in parallel."])
