"""The key numbers of the traces study, per trace (for the paper)."""
from __future__ import annotations

from typing import Any, Sequence

from .cells import TraceStats


def numbers(stats: Sequence[TraceStats]) -> dict[str, Any]:
    """The key numbers of the study, per trace (for the paper)."""
    out = {}
    for s in stats:
        w = s.weekly.summary()
        out[s.name] = {
            "m": s.m, "jobs_in_file": s.jobs_in_file, "jobs": s.jobs, "users": s.users,
            "period_days": s.period_days, "period_weeks": s.period_weeks,
            "period_months": s.period_months, "weeks": len(s.weekly), "full_weeks": s.weekly.n_full,
            "jobs_per_week_mean": w["jobs_mean"], "jobs_per_week_median": w["jobs_median"],
            "load_per_week_mean": w["load_mean"], "load_per_week_median": w["load_median"],
            "mean_runtime_s": s.mean_runtime["cleaned"],
            "premature_pct": s.classes["cleaned"].premature_ratio,
            "premature_pct_difference_reading": s.classes["cleaned"].premature_difference,
            "divider_s": s.classes["cleaned"].divider,
            "by_jobs": {k: {"n": c.n, **{f: v for f, v in c.as_dict().items() if f != "n"}}
                        for k, c in s.classes.items()},
            "published": s.published,
        }
    return out
