"""The key numbers of the mixed-policies study, for the paper
(``numbers.json``)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .analysis import RTOL, Analysis, _ranges
from ...engine import sim
from .params import POLICIES
from .tables import PUBLISHED


def _pct(a: float, b: float) -> float:
    """How much lower ``a`` is than ``b``, in % of ``b``."""
    return 100.0 * (1.0 - a / b) if b else float("nan")


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def numbers(analyses: Sequence[Analysis]) -> dict[str, Any]:
    """Key numbers per trace (for the paper)."""
    out: dict[str, Any] = {}
    for a in analyses:
        lr = a.weeks
        s = lr.sums()
        saf, best, opt = lr.column("SAF"), lr.best_pure, lr.opt
        ok = ~np.isnan(saf)
        (a0, b0), (c0, d0) = _ranges(lr)
        means = np.nanmean(lr.pure, axis=0)
        rank = [POLICIES[j] for j in np.argsort(means)]
        d: dict[str, Any] = {
            "m": a.m, "scales": list(a.scales), "weeks": int(len(lr.units)),
            "jobs": int(np.nansum(lr.jobs)), "grid_resolution": lr.resolution, "grid_points": int(len(lr.points)),
            "threshold_s": lr.threshold, "pure_ranking": rank, "best_pure_mean": rank[0],
            "saf_best_weeks": int(np.sum(saf[ok] <= best[ok] * (1 + RTOL))),
            "best_pure_10pct_better_weeks": int(np.sum(saf[ok] > best[ok] * 1.1)),
            "wstar_10pct_better_weeks": int(np.sum(saf[ok] > opt[ok] * 1.1)),
            "max_saf_over_wstar": float(np.nanmax(saf / opt)),
            "max_best_pure_over_wstar": float(np.nanmax(best / opt)),
            "sum_all": {k: v[2] for k, v in s.items()},
            "wstar_gain_vs_saf_pct": _pct(s["w*"][2], s["SAF"][2]),
            "wstar_gain_vs_fcfs_pct": _pct(s["w*"][2], s["FCFS"][2]),
            "train_weeks": [a0, b0], "test_weeks": [c0, d0],
            "train": {k: v[0] for k, v in s.items()}, "test": {k: v[1] for k, v in s.items()},
            "wtrain_weights": lr.w_train.tolist(),
            "wtrain_vs_saf_test_pct": _pct(s["w*_train"][1], s["SAF"][1]),
            "greedy_vs_saf_test_pct": _pct(s["w_greedy"][1], s["SAF"][1]),
            "wtrain_over_saf_test": _ratio(s["w*_train"][1], s["SAF"][1]),
            "greedy_over_saf_test": _ratio(s["w_greedy"][1], s["SAF"][1]),
            "wstar_over_saf_test": _ratio(s["w*"][1], s["SAF"][1]),
            "greedy_beats_saf_weeks": int(np.sum(lr.greedy[1:] < saf[1:] * (1 - RTOL))),
            "greedy_worse_than_saf_weeks": int(np.sum(lr.greedy[1:] > saf[1:] * (1 + RTOL))),
        }
        if a.months is not None:
            ms = a.months.sums()
            d["months"] = {"count": int(len(a.months.units)), "resolution": a.months.resolution,
                           "train": {k: v[0] for k, v in ms.items()}, "test": {k: v[1] for k, v in ms.items()},
                           "wstar_gain_vs_saf_pct": _pct(ms["w*"][2], ms["SAF"][2]),
                           "wtrain_vs_saf_test_pct": _pct(ms["w*_train"][1], ms["SAF"][1]),
                           "wtrain_over_saf_test": _ratio(ms["w*_train"][1], ms["SAF"][1]),
                           "wstar_over_saf_test": _ratio(ms["w*"][1], ms["SAF"][1])}
        d["thresholds"] = {sim.format_duration(l.threshold): {k: v[2] for k, v in l.sums().items()}
                           for l in a.thresholds.values()}
        if a.search is not None:
            units = list(lr.units)
            srch = {}
            for o in a.search.optimiser.values:
                sel = a.search.sel(optimiser=o).reindex(unit=units)
                v = sel.mean_bsld.values
                r = v / opt
                srch[str(o)] = {"sum": float(np.nansum(v)), "gain_vs_grid_pct": _pct(float(np.nansum(v)),
                                                                                       float(np.nansum(opt))),
                                "weeks_within_tol_or_better": int(np.sum(r <= 1 + RTOL)),
                                "weeks_better": int(np.sum(r < 1 - RTOL)),
                                "evaluations": int(np.nanmax(sel.evaluations.values)),
                                "median_seconds": float(np.nanmedian(sel.optimisation_time.values)),
                                "max_seconds": float(np.nanmax(sel.optimisation_time.values))}
            d["search"] = srch
        if a.name == "SDSC-SP2":
            t = PUBLISHED["table_5_1"]
            d["published"] = {"table_5_1": t,
                              "wtrain_over_saf_test": _ratio(t["w*_train"][1], t["SAF"][1]),
                              "greedy_over_saf_test": _ratio(t["w_greedy"][1], t["SAF"][1]),
                              "wstar_over_saf_test": _ratio(t["w*"][1], t["SAF"][1])}
        else:
            d["published"] = {}
        d["notes"] = a.notes
        out[a.name] = d
    return out
