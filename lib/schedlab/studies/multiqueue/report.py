"""The key numbers of the multiple-queue study for the paper, ours beside
the published ones."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .analysis import TraceResult, _label
from .params import ESTIMATES, Params
from .published import COLUMNS, PUBLISHED


def numbers(results: Sequence[TraceResult], p: Params) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        pub1 = PUBLISHED["table1"].get(r.name)
        d: dict[str, Any] = {
            "weeks": r.workload.weeks, "jobs": len(r.workload.jobs), "m": r.workload.m,
            "fixed": {est: {f"P{k}": r.fixed_r(est, k) for k in range(1, p.pmax + 1)} for est in ESTIMATES},
            "baseline_mean_slowdown": {est: float(r.fixed.baseline_mean_lawson_slowdown.sel(
                estimate=est, partitions=1)) for est in ESTIMATES},
            "online": {},
        }
        for est in p.online_estimates:
            d["online"][est] = {}
            for rep in p.replays:
                best = r.best(est, rep)
                grid = r.online.mean_slowdown_ratio.sel(estimate=est, replay=rep)
                d["online"][est][rep] = {
                    "paper_params": r.online_stats(est, *pub1, rep) if pub1 else None,
                    "best": {"T": best[0], "L": best[1], "R": best[2]} if best else None,
                    "grid": {_label(t, h): float(r.online_sel("mean_slowdown_ratio", est, t, h, rep))
                             for t in p.thresholds for h in p.horizons},
                    "positive": int((grid.values > 0).sum()), "cells": int(grid.size),
                    "min": float(np.nanmin(grid.values)), "max": float(np.nanmax(grid.values)),
                    "tests_total": int(r.online.online_tests.sel(estimate=est, replay=rep).sum()),
                    "changes_total": int(r.online.partition_changes.sel(estimate=est, replay=rep).sum()),
                }
        if r.name in PUBLISHED["table1"]:
            t3 = PUBLISHED["table3"][r.name]
            d["published"] = {"table1": {"T": pub1[0], "L": pub1[1]},
                              "table2": dict(zip(COLUMNS["table2"], PUBLISHED["table2"][r.name])),
                              "table3_at_table1": t3[pub1], "table3_max": max(t3.values()),
                              "table3_min": min(t3.values())}
            ours = [(c, r.online_sel("mean_slowdown_ratio", "user", *c)) for c in t3 if r.has_online("user", *c)]
            if ours:
                same = sum(1 for c, v in ours if (float(v) > 0) == (t3[c] > 0))
                d["sign_agreement"] = {"cells": len(ours), "same_sign": same}
        out[r.name] = d
    cells = [(r, c) for r in results for c in PUBLISHED["table3"].get(r.name, {}) if r.has_online("user", *c)]
    summary = {
        "table3_cells": len(cells),
        "table3_positive_ours": sum(1 for r, c in cells if float(r.online_sel("mean_slowdown_ratio", "user", *c)) > 0),
        "table3_positive_paper": sum(1 for r, c in cells if PUBLISHED["table3"][r.name][c] > 0),
        "replays": {},
    }
    if "user" in p.online_estimates:
        for rep in p.replays:
            per = [out[r.name]["online"]["user"][rep] for r in results]
            summary["replays"][rep] = {k: sum(d[k] for d in per) for k in ("cells", "positive", "tests_total",
                                                                           "changes_total")}
            # Thresholds at which every horizon L gives the same R (L does not matter).
            grids = [r.online.mean_slowdown_ratio.sel(estimate="user", replay=rep).values for r in results]
            summary["replays"][rep]["thresholds"] = sum(g.shape[0] for g in grids)
            summary["replays"][rep]["same_for_every_horizon"] = int(sum(
                int(np.all(g == g[:, :1], axis=1).sum()) for g in grids))
    return {"traces": out, "summary": summary}
