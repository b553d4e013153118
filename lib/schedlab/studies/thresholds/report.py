"""The key numbers of the thresholds study for the paper (:func:`numbers`,
``numbers.json``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .analysis import Fig5, ThesisResult, TrainTest, _spearman
from .params import HOUR, LEVEL, PUBLISHED, THESIS_THRESHOLDS, Params
from ...engine.sim import format_duration

#: numbers.json key fragment of each thesis threshold column.

_THESIS_KEYS = {None: "none", 200000: "2_31d", 72000: "20h"}


def _key(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_")


def _finite(x):
    x = float(x)
    return x if np.isfinite(x) else None


def numbers(p: Params, fig5: Fig5 | None, sweep: dict[str, dict[str, TrainTest]],
            fig8: dict[str, TrainTest], thesis: list[ThesisResult], table3: list[dict]) -> dict[str, Any]:
    """Flat dict of the key numbers (for the paper's text)."""
    out: dict[str, Any] = {
        "traces": ",".join(fig8), "trace_keys": ",".join(_key(n) for n in fig8),
        "sweep_traces": ",".join(sweep), "thesis_traces": ",".join(r.trace for r in thesis),
        "thesis_trace_keys": ",".join(_key(r.trace) for r in thesis),
        "weeks": p.weeks, "threshold": format_duration(p.threshold), "threshold_h": p.threshold / HOUR,
        "n_traces": len(fig8), "n_sweep_traces": len(sweep), "n_thresholds": len(p.thresholds),
        "n_pairs": len(p.policies) ** 2, "n_policies": len(p.policies), "seed": p.seed,
        "criterion": p.criterion, "ci_level_pct": 100 * LEVEL, "n_thesis_policies": len(p.thesis_policies),
        "thesis_weeks_list": ", ".join(str(r.weeks) for r in thesis),
    }
    if fig5 is not None:
        pol = fig5.policies
        out.update({"fig5_trace": fig5.trace, "fig5_backfill": fig5.backfill,
                    "fig5_base_max_wait_h": fig5.base_maxmax_h,
                    "fig5_max_maxwait_h_thr": float(np.nanmax(fig5.maxmax_h["thr"])),
                    "fig5_max_maxwait_h_none": float(np.nanmax(fig5.maxmax_h["none"])),
                    "fig5_best_avg_rel_thr": float(np.nanmin(fig5.avg_rel["thr"])),
                    "fig5_best_avg_rel_none": float(np.nanmin(fig5.avg_rel["none"])),
                    "fig5_best_thr": pol[int(np.nanargmin(fig5.avg_rel["thr"]))],
                    "fig5_best_none": pol[int(np.nanargmin(fig5.avg_rel["none"]))]})
    for name, r in fig8.items():
        k = _key(name)
        pub = PUBLISHED["fig8_gain_pct"].get(name) if p.threshold == 72000 else None
        out.update({f"{k}_learned": r.pair, f"{k}_gain_pct": r.test_gain,
                    f"{k}_gain_low_pct": r.test_gain_ci[0], f"{k}_gain_high_pct": r.test_gain_ci[1],
                    f"{k}_train_gain_pct": r.train_gain, f"{k}_maxwait_rel": r.test_max_rel,
                    f"{k}_maxwait_s": r.test_max, f"{k}_base_maxwait_s": r.test_base_max,
                    f"{k}_base_avgwait_s": r.test_base_avg, f"{k}_published_gain_pct": pub})
    if fig8:
        gains = [r.test_gain for r in fig8.values()]
        out["gain_min_pct"], out["gain_max_pct"] = min(gains), max(gains)
        out["n_gain_significant"] = sum(r.test_gain_ci[0] > 0 for r in fig8.values())
    for label, key in (("none", "none"), (format_duration(p.threshold), "thr")):
        rs = [r[label] for r in sweep.values() if label in r]
        if rs:
            out[f"sweep_{key}_avg_rel_min"] = min(r.test_avg_rel for r in rs)
            out[f"sweep_{key}_avg_rel_max"] = max(r.test_avg_rel for r in rs)
            out[f"sweep_{key}_max_rel_max"] = max(r.test_max_rel for r in rs)
    for r in thesis:
        k = _key(r.trace)
        pub = PUBLISHED["thesis"].get(r.trace, {})
        out[f"thesis_{k}_weeks"] = r.weeks
        best = min(r.policies, key=lambda pol: r.sums[pol][0])
        out[f"thesis_{k}_best"] = best
        for c, t in enumerate(r.thresholds):
            if t in THESIS_THRESHOLDS and pub:
                col = THESIS_THRESHOLDS.index(t)
                common = [pol for pol in r.policies if pol in pub]
                rho = _spearman([pub[pol][col] for pol in common], [r.sums[pol][c] for pol in common])
                tk = _THESIS_KEYS[t]
                out[f"thesis_{k}_spearman_{tk}"] = _finite(rho)
                if "FCFS" in r.sums and "FCFS" in pub:
                    out[f"thesis_{k}_fcfs_{tk}"] = r.sums["FCFS"][c]
                    out[f"thesis_{k}_fcfs_{tk}_published"] = pub["FCFS"][col]
    for row in table3:
        out[f"{_key(row['trace'])}_jobs_cleaned"] = row["jobs"]
    return {k: (_finite(v) if isinstance(v, (float, np.floating)) else v) for k, v in out.items()}
