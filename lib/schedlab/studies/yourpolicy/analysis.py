"""The gains of the your-policy study (pure: datasets in, rows out)."""
from __future__ import annotations

from typing import Any

from ...stats import total_change

BASELINE = "FCFS"


def gains(datasets: dict[str, Any], mine: tuple[str, ...], seed: int = 0) -> list[dict[str, Any]]:
    """One row per (trace, policy but FCFS): online-bandit Eq. 11's change of
    the total wait against EASY(FCFS, Θ) on the same resampled traces (%),
    its 95 % bootstrap interval, whether the interval excludes 0, and the
    policy's rank among the trace's policies (1: the largest reduction)."""
    rows = []
    for trace, ds in datasets.items():
        pols = [str(p) for p in ds.policy.values if str(p) != BASELINE]
        base = ds.sum_wait.sel(policy=BASELINE).values
        per = {p: total_change(ds.sum_wait.sel(policy=p).values, base, seed=seed) for p in pols}
        order = sorted(pols, key=lambda p: per[p][0])
        for p in pols:
            est, lo, hi = (100.0 * x for x in per[p])
            rows.append({"trace": trace, "policy": p, "yours": p in mine, "change_pct": est, "low_pct": lo,
                         "high_pct": hi, "excludes_0": bool(lo > 0 or hi < 0), "rank": order.index(p) + 1,
                         "samples": int(ds.sizes["sample"])})
    return rows
