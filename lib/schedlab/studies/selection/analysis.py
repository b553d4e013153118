"""The analyses of the online-selection study: pure functions on the
campaigns' datasets and arrays -- Eq. 11 with its bootstrap interval, the
cumulative curves, the shares of the policies, Tables 2 and 3 of a trace
(:func:`analyse`) -- and the S/L-swapped reading of a published row."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import stats
from .params import POLICIES


#: A reading of the published Table 2 with the "smallest" and "largest"
#: labels exchanged for the processing time, the processors and the area
#: (SPF <-> LPF, SQF <-> LQF, SAF <-> LAF); see :func:`table2_agreement`.
SWAP_PQA: tuple[tuple[str, str], ...] = (("SPF", "LPF"), ("SQF", "LQF"), ("SAF", "LAF"))


def change(sums, baseline) -> float:
    """Eq. 11: (sum_k W_k - sum_k B_k) / sum_k B_k."""
    s, b = float(np.nansum(sums)), float(np.nansum(baseline))
    return s / b - 1.0 if b > 0 else (0.0 if s == 0 else float("nan"))


def _ratio_stat(x, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(x[0], axis=axis) / np.sum(x[1], axis=axis) - 1.0


def change_ci(sums, baseline, level: float = 0.95, seed: int = 0,
              n_boot: int = 2000) -> tuple[float, float, float]:
    """Eq. 11 with a percentile-bootstrap interval over the resampled traces
    (each trace's pair of totals kept together)."""
    x = np.stack([np.asarray(sums, float), np.asarray(baseline, float)])
    if x.shape[1] < 2:
        est = change(sums, baseline)
        return est, float("nan"), float("nan")
    est, lo, hi = stats.bootstrap_ci(x, axis=-1, level=level, n_boot=n_boot, seed=seed, stat=_ratio_stat)
    return float(est), float(lo), float(hi)


def curve(cum, cum_base) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cumulative-improvement curve (Figs. 2-4) from (resample, week) arrays
    of cumulative total waits: Eq. 11 at each week, and the 10th and 90th
    percentiles over resamples of the per-resample relative change."""
    cum, base = np.asarray(cum, float), np.asarray(cum_base, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tot_b = base.sum(axis=0)
        mean = np.where(tot_b > 0, cum.sum(axis=0) / np.where(tot_b > 0, tot_b, 1) - 1.0, np.nan)
    rel = stats.relative(cum, base) - 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        p10, p90 = stats.deciles(rel, axis=0)
    return mean, p10, p90


def shares(chosen_daily, n_policies: int = len(POLICIES), days: int = 7) -> np.ndarray:
    """Share of each policy per block of ``days`` days (Figs. 5-6): from a
    (resample, day) array of policy indices, the fraction of (resample, day)
    pairs of each block in which each policy was in force; shape (blocks,
    policies), rows summing to 1."""
    c = np.asarray(chosen_daily, dtype=np.int64)
    n_days = c.shape[-1]
    blocks = (n_days + days - 1) // days
    out = np.zeros((blocks, n_policies))
    for k in range(blocks):
        part = c[..., k * days:(k + 1) * days].ravel()
        part = part[part >= 0]
        if part.size:
            out[k] = np.bincount(part, minlength=n_policies)[:n_policies] / part.size
    return out


@dataclass
class TraceResult:
    """Everything computed about one trace."""

    name: str
    ref: str
    fixed: Any                       # xarray.Dataset: (sample, policy)
    strategies: Any                  # xarray.Dataset: (sample, period, strategy)
    table2: dict[str, tuple[float, float, float]]
    table3: dict[tuple[str, str], tuple[float, float, float]]
    on_best: dict[tuple[str, str], float]
    most_chosen: dict[tuple[str, str], tuple[str, float]] = field(default_factory=dict)

    @property
    def policies(self) -> list[str]:
        """The arms, in the order a strategy's ``policy_chosen`` indexes them
        (the fixed campaign's policy dimension)."""
        return [str(p) for p in self.fixed.policy.values]

    @property
    def best_fixed(self) -> str:
        return min(self.table2, key=lambda k: self.table2[k][0])

    @property
    def best_strategy(self) -> tuple[str, str] | None:
        return min(self.table3, key=lambda k: self.table3[k][0]) if self.table3 else None

    @property
    def jobs_mean(self) -> float:
        return float(self.fixed.jobs.sel(policy="FCFS").mean())


def analyse(name: str, ref: str, fixed, strategies, seed: int = 0, n_boot: int = 2000) -> TraceResult:
    """Tables 2 and 3 (with intervals) and the share of periods on the best
    fixed policy, from the two datasets of a trace."""
    base = fixed.sum_wait.sel(policy="FCFS").values
    t2 = {str(p): change_ci(fixed.sum_wait.sel(policy=p).values, base, seed=seed, n_boot=n_boot)
          for p in fixed.policy.values}
    r = TraceResult(name, ref, fixed, strategies, t2, {}, {})
    arms = r.policies
    ibest = arms.index(r.best_fixed)
    if strategies is not None:
        for period in strategies.period.values:
            for strat in strategies.strategy.values:
                v = strategies.sel(period=period, strategy=strat)
                key = (str(strat), str(period))
                r.table3[key] = change_ci(v.sum_wait.values, base, seed=seed, n_boot=n_boot)
                chosen = v.policy_chosen.values
                r.on_best[key] = float(np.mean(chosen == ibest))
                counts = np.bincount(chosen[chosen >= 0].ravel(), minlength=len(arms))
                top = int(np.argmax(counts))
                r.most_chosen[key] = (arms[top], float(counts[top] / max(counts.sum(), 1)))
    return r


def _pct(x: float) -> float:
    return 100.0 * x if x is not None and np.isfinite(x) else float("nan")


def _sign(x: float, tol: float = 1.0) -> int:
    return 0 if abs(x) <= tol else (1 if x > 0 else -1)


def swapped(values: dict[str, float], pairs=SWAP_PQA) -> dict[str, float]:
    """``values`` with the labels of each pair exchanged."""
    out = dict(values)
    for a, b in pairs:
        if a in values and b in values:
            out[a], out[b] = values[b], values[a]
    return out
