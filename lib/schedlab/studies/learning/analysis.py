"""The comparison of the learning study (pure: datasets in, rows out)."""
from __future__ import annotations

from typing import Any

from ...stats import ranked_changes

BASELINE = "FCFS"


def rows(datasets: dict[str, Any], strategies: tuple[str, ...], agent: str, seed: int = 0) -> list[dict[str, Any]]:
    """One row per (trace, arm but FCFS): online-bandit Eq. 11's change of
    the total wait against EASY(FCFS, Θ) on the same held-out resampled
    traces (%), its 95 % bootstrap interval (traces resampled, pairs kept),
    and the arm's rank among the trace's arms (1: the largest reduction)."""
    out = []
    for trace, ds in datasets.items():
        sums = {str(a): ds.sum_wait.sel(arm=a).values for a in ds.arm.values}
        for a, (est, lo, hi, rank) in ranked_changes(sums, BASELINE, seed=seed).items():
            est, lo, hi = 100.0 * est, 100.0 * lo, 100.0 * hi
            kind = "learned" if a == agent else "strategy" if a in strategies else "fixed"
            out.append({"trace": trace, "arm": a, "kind": kind, "change_pct": est, "low_pct": lo, "high_pct": hi,
                        "excludes_0": bool(lo > 0 or hi < 0), "rank": rank,
                        "samples": int(ds.sizes["sample"])})
    return out
