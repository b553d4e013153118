"""The gains of the your-policy study (pure: datasets in, rows out)."""
from __future__ import annotations

from typing import Any

from ...stats import ranked_changes

BASELINE = "FCFS"


def gains(datasets: dict[str, Any], mine: tuple[str, ...], seed: int = 0) -> list[dict[str, Any]]:
    """One row per (trace, policy but FCFS): online-bandit Eq. 11's change of
    the total wait against EASY(FCFS, Θ) on the same resampled traces (%),
    its 95 % bootstrap interval, whether the interval excludes 0, and the
    policy's rank among the trace's policies (1: the largest reduction)."""
    rows = []
    for trace, ds in datasets.items():
        sums = {str(p): ds.sum_wait.sel(policy=p).values for p in ds.policy.values}
        for p, (est, lo, hi, rank) in ranked_changes(sums, BASELINE, seed=seed).items():
            est, lo, hi = 100.0 * est, 100.0 * lo, 100.0 * hi
            rows.append({"trace": trace, "policy": p, "yours": p in mine, "change_pct": est, "low_pct": lo,
                         "high_pct": hi, "excludes_0": bool(lo > 0 or hi < 0), "rank": rank,
                         "samples": int(ds.sizes["sample"])})
    return rows
