"""The comparison of the learning study (pure: datasets in, rows out)."""
from __future__ import annotations

from typing import Any

from ...stats import total_change

BASELINE = "FCFS"


def rows(datasets: dict[str, Any], strategies: tuple[str, ...], agent: str, seed: int = 0) -> list[dict[str, Any]]:
    """One row per (trace, arm but FCFS): online-bandit Eq. 11's change of
    the total wait against EASY(FCFS, Θ) on the same held-out resampled
    traces (%), its 95 % bootstrap interval (traces resampled, pairs kept),
    and the arm's rank among the trace's arms (1: the largest reduction)."""
    out = []
    for trace, ds in datasets.items():
        arms = [str(a) for a in ds.arm.values if str(a) != BASELINE]
        base = ds.sum_wait.sel(arm=BASELINE).values
        per = {a: total_change(ds.sum_wait.sel(arm=a).values, base, seed=seed) for a in arms}
        order = sorted(arms, key=lambda a: per[a][0])
        for a in arms:
            est, lo, hi = (100.0 * x for x in per[a])
            kind = "learned" if a == agent else "strategy" if a in strategies else "fixed"
            out.append({"trace": trace, "arm": a, "kind": kind, "change_pct": est, "low_pct": lo, "high_pct": hi,
                        "excludes_0": bool(lo > 0 or hi < 0), "rank": order.index(a) + 1,
                        "samples": int(ds.sizes["sample"])})
    return out
