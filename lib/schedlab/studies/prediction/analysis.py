"""The analyses of the runtime-prediction study: pure functions on the
grid's dataset (trace x backfill x estimate x correction) and the timing
campaign's (trace x engine) -- EASY and EASY++ of a log, Table 6's values,
the leave-one-log-out selection of the heuristic triple, the correlations
between logs, the cost of learning -- and the labels of the triples."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...engine import prediction
from .cells import LEARNED, learned_label


def _short(estimate: str) -> str:
    """Readable name of an estimate label (E-Loss and squared named)."""
    if estimate.startswith(LEARNED):
        loss = prediction.Loss.parse(estimate[len(LEARNED):])
        return loss.label if loss.label != loss.name else loss.name
    # your own estimates (col:NAME, py:module:name) by their label
    return {"easy++": "EASY++ (AVE2)", "requested": "requested", "clairvoyant": "clairvoyant"}.get(estimate, estimate)


def triple_label(estimate: str, correction: str, backfill: str) -> str:
    """``prediction / correction / EASY or EASY-SJBF``."""
    return f"{_short(estimate)} / {correction} / {'EASY' if backfill == 'FCFS' else 'EASY-' + backfill}"


def engines_identical(timing) -> bool:
    """Do the timing campaign's two engines agree on every output but the
    wall time (every metric, every quantile of the errors and estimates)?"""
    if timing is None or "engine" not in timing.dims:
        return False
    ref = timing.sel(engine=prediction.ENGINES[0])
    for name, var in timing.data_vars.items():
        if name == "simulation_time":
            continue
        for e in prediction.ENGINES[1:]:
            if not np.array_equal(var.sel(engine=e).values, ref[name].values, equal_nan=True):
                return False
    return True


def _v(ds, var: str, trace: str, backfill: str, estimate: str, correction: str) -> float:
    try:
        return float(ds[var].sel(trace=trace, backfill=backfill, estimate=estimate, correction=correction))
    except KeyError:
        return float("nan")


def _ref_correction(ds) -> str:
    cs = [str(c) for c in ds.correction.values]
    return "incremental" if "incremental" in cs else cs[0]


def _pct(x: float, base: float) -> float:
    return 100.0 * (1.0 - x / base) if base and math.isfinite(base) and math.isfinite(x) else float("nan")


def easy(ds, trace: str) -> float:
    return _v(ds, "mean_bsld", trace, "FCFS", "requested", _ref_correction(ds))


def easypp(ds, trace: str) -> float:
    return _v(ds, "mean_bsld", trace, "SJBF", "easy++", "incremental")


def _learned(ds) -> list[str]:
    return [str(e) for e in ds.estimate.values if str(e).startswith(LEARNED)]


def table6_values(ds, trace: str) -> dict[str, float]:
    c = _ref_correction(ds)
    out = {"clairvoyant FCFS": _v(ds, "mean_bsld", trace, "FCFS", "clairvoyant", c),
           "clairvoyant SJBF": _v(ds, "mean_bsld", trace, "SJBF", "clairvoyant", c),
           "EASY": easy(ds, trace), "EASY++": easypp(ds, trace)}
    learned = _learned(ds)
    for b in ("FCFS", "SJBF"):
        if learned and b in [str(x) for x in ds.backfill.values]:
            v = ds.mean_bsld.sel(trace=trace, backfill=b, estimate=learned).values
            out[f"learning {b} best"] = float(np.nanmin(v))
            out[f"learning {b} worst"] = float(np.nanmax(v))
        else:
            out[f"learning {b} best"] = out[f"learning {b} worst"] = float("nan")
    return out


def _candidates(ds) -> list[tuple[str, str, str]]:
    """Every non-clairvoyant (estimate, correction, backfill) of the grid, in grid order."""
    return [(str(e), str(c), str(b)) for b in ds.backfill.values for e in ds.estimate.values
            for c in ds.correction.values if str(e) != "clairvoyant"]


def _matrix(ds, cands) -> np.ndarray:
    """AVEbsld of each candidate triple (rows) on each log (columns)."""
    return np.array([[_v(ds, "mean_bsld", t, b, e, c) for t in ds.trace.values] for e, c, b in cands])


@dataclass
class Selection:
    """The leave-one-log-out selection on one log."""

    trace: str
    triple: tuple[str, str, str]
    value: float
    easy: float
    easypp: float
    eloss: float          # the paper's recommended triple (E-Loss / incremental / SJBF)
    best: tuple[str, str, str]
    best_value: float

    @property
    def label(self) -> str:
        return triple_label(*self.triple)


def loo_selection(ds) -> tuple[list[Selection], tuple[str, str, str] | None]:
    """gaussier2015 §6.3.3: for each log, the triple with the least sum of
    AVEbsld over the other logs, evaluated on it.  Also returns the triple
    selected on all the logs together."""
    traces = [str(x) for x in ds.trace.values]
    cands = _candidates(ds)
    M = _matrix(ds, cands)
    out = []
    eloss = learned_label(prediction.E_LOSS)
    for j, t in enumerate(traces):
        own = M[:, j]
        if len(traces) > 1:
            others = np.delete(M, j, axis=1)
            score = np.where(np.all(np.isfinite(others), axis=1), others.sum(axis=1), np.inf)
        else:
            score = np.where(np.isfinite(own), own, np.inf)
        k = int(np.argmin(score))
        kb = int(np.nanargmin(np.where(np.isfinite(own), own, np.inf)))
        out.append(Selection(t, cands[k], float(own[k]), easy(ds, t), easypp(ds, t),
                             _v(ds, "mean_bsld", t, "SJBF", eloss, "incremental"), cands[kb], float(own[kb])))
    total = np.where(np.all(np.isfinite(M), axis=1), M.sum(axis=1), np.inf)
    overall = cands[int(np.argmin(total))] if len(cands) and np.isfinite(total).any() else None
    return out, overall


def correlations(ds) -> dict[str, Any]:
    """Pearson correlation of the non-clairvoyant triples' AVEbsld between
    every pair of logs (gaussier2015 §6.3.2)."""
    traces = [str(x) for x in ds.trace.values]
    M = _matrix(ds, _candidates(ds))
    pairs = {}
    for i in range(len(traces)):
        for j in range(i + 1, len(traces)):
            x, y = M[:, i], M[:, j]
            ok = np.isfinite(x) & np.isfinite(y)
            r = float(np.corrcoef(x[ok], y[ok])[0, 1]) if ok.sum() > 2 and x[ok].std() > 0 and y[ok].std() > 0 \
                else float("nan")
            pairs[f"{traces[i]} / {traces[j]}"] = r
    v = np.array([x for x in pairs.values() if math.isfinite(x)])
    return {"pairs": pairs, "mean": float(v.mean()) if v.size else float("nan"),
            "min": float(v.min()) if v.size else float("nan"), "max": float(v.max()) if v.size else float("nan")}


T8_ESTIMATES = ("requested", "easy++", "learned:" + prediction.E_LOSS.name, "learned:" + prediction.SQUARED_LOSS.name)


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 and math.isfinite(a) else float("nan")


def slowdowns(ds, timing=None) -> dict[str, Any]:
    """Wall time of the learned-prediction simulations over the requested-time
    ones.  Per log: ``ratio``, the mean time of a learned cell of the grid
    (C estimator) over the mean time of a requested-time cell; with
    ``timing`` (:func:`make_timing_campaign`'s dataset, trace x engine):
    ``c_s`` and ``python_s``, the time of its learned triple with each
    engine, ``ratio_python`` = ``python_s`` over the requested-time mean and
    ``speedup`` = ``python_s`` / ``c_s``.  ``overall``, ``overall_python``
    and ``overall_speedup``: the same over all logs (times summed over the
    logs: mean learned cells, requested cells, each engine's runs)."""
    out: dict[str, Any] = {}
    nan = float("nan")
    learned = _learned(ds)
    if not learned or "requested" not in [str(x) for x in ds.estimate.values]:
        return {"per_trace": {}, "overall": nan, "overall_python": nan, "overall_speedup": nan}
    st = ds.simulation_time
    have = timing is not None and "engine" in timing.dims
    tracesT = [str(x) for x in timing.trace.values] if have else []
    tot_r = tot_l = tot_c = tot_p = tot_rt = 0.0
    for t in ds.trace.values:
        req = float(st.sel(trace=t, estimate="requested").mean())   # over backfill x correction
        lrn = float(st.sel(trace=t, estimate=learned).mean())        # over backfill x estimate x correction
        row = {"ratio": _ratio(lrn, req), "requested_s": req, "learned_s": lrn,
               "jobs": int(ds.jobs.sel(trace=t, estimate="requested").values.ravel()[0]),
               "c_s": nan, "python_s": nan, "ratio_python": nan, "speedup": nan}
        tot_r += req
        tot_l += lrn
        if str(t) in tracesT:
            ts = timing.simulation_time.sel(trace=str(t))
            c, py = float(ts.sel(engine="c")), float(ts.sel(engine="python"))
            row.update({"c_s": c, "python_s": py, "ratio_python": _ratio(py, req), "speedup": _ratio(py, c)})
            tot_c += c
            tot_p += py
            tot_rt += req
        out[str(t)] = row
    return {"per_trace": out, "overall": _ratio(tot_l, tot_r),
            "overall_python": _ratio(tot_p, tot_rt) if tracesT else nan,
            "overall_speedup": _ratio(tot_p, tot_c) if tracesT else nan}


def _fig_runs(ds):
    b = "SJBF" if "SJBF" in [str(x) for x in ds.backfill.values] else str(ds.backfill.values[0])
    return b, _ref_correction(ds)
