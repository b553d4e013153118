"""The analyses of the multiple-queue study: pure functions on the
campaigns' datasets -- the results of a trace (:class:`TraceResult`: R of a
fixed P, Table 2's statistics of an online run, the best T/L) and the
datasets of every trace together."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .cells import TraceRef, Workload


@dataclass
class TraceResult:
    """The campaigns of one trace: ``fixed`` (estimate, partitions[, week])
    and ``online`` (estimate, threshold, horizon[, week, new_partitions])."""

    ref: TraceRef
    workload: Workload
    fixed: Any
    online: Any
    replay: str = "oracle"          # the replay of Tables 1-2 and Figs. 6-9

    @property
    def name(self) -> str:
        return self.ref.name

    def fixed_r(self, estimate: str, p: int) -> float:
        return float(self.fixed.mean_slowdown_ratio.sel(estimate=estimate, partitions=p))

    def has_online(self, estimate: str, t: float, h: int, replay: str | None = None) -> bool:
        o = self.online
        return (o is not None and estimate in o.estimate.values and float(t) in o.threshold.values
                and int(h) in o.horizon.values and (replay or self.replay) in o.replay.values)

    def online_sel(self, var: str, estimate: str, t: float, h: int, replay: str | None = None):
        return self.online[var].sel(estimate=estimate, threshold=float(t), horizon=int(h),
                                    replay=replay or self.replay)

    def online_stats(self, estimate: str, t: float, h: int, replay: str | None = None) -> dict[str, Any] | None:
        """Table 2's statistics (and R) of one online run; None if not run."""
        if not self.has_online(estimate, t, h, replay):
            return None
        sel = lambda v: self.online_sel(v, estimate, t, h, replay)  # noqa: E731
        tests = int(sel("online_tests"))
        changes = int(sel("partition_changes"))
        weeks = self.workload.weeks
        return {"T": float(t), "L": int(h), "R": float(sel("mean_slowdown_ratio")),
                "weeks": weeks, "tests": tests, "pct_weeks_with_test": 100.0 * tests / weeks,
                "changes": changes, "pct_tests_with_change": 100.0 * changes / tests if tests else float("nan"),
                "changes_to": [int(v) for v in sel("changes_to").values],
                "mean_slowdown": float(sel("mean_lawson_slowdown"))}

    def best(self, estimate: str, replay: str | None = None) -> tuple[float, int, float] | None:
        """(T, L, R) of the highest aggregate R of the online grid."""
        if self.online is None or estimate not in self.online.estimate.values:
            return None
        r = self.online.mean_slowdown_ratio.sel(estimate=estimate, replay=replay or self.replay)
        i, j = np.unravel_index(int(np.nanargmax(r.values)), r.shape)
        return float(r.threshold.values[i]), int(r.horizon.values[j]), float(r.values[i, j])


def _label(t: float, h: int) -> str:
    return f"{t:g}/{h}"


def _dataset(parts: Sequence[Any], names: Sequence[str]):
    """Concatenate per-trace datasets along ``trace`` (weeks: outer join)."""
    import xarray as xr

    from ...campaigns.store import VARIABLES
    ds = xr.concat([d.expand_dims(trace=[n]) for d, n in zip(parts, names)], dim="trace", join="outer")
    for v in list(ds.data_vars):
        if VARIABLES[v].is_int:
            ds[v] = ds[v].fillna(VARIABLES[v].fill).astype(VARIABLES[v].dtype)
    attrs = dict(parts[0].attrs)
    attrs["campaigns"] = [dict(d.attrs.get("campaign", {})) for d in parts]
    attrs["cells_total"] = sum(int(d.attrs.get("cells_total", 0)) for d in parts)
    attrs["cells_cached"] = sum(int(d.attrs.get("cells_cached", 0)) for d in parts)
    attrs.pop("campaign", None)
    ds.attrs = attrs
    return ds
