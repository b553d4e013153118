"""The analysis of the classification study, pure functions of the
campaigns' results: accuracy, precision, recall and the error shares of
confusion counts (:func:`scores`), a trace's results (:class:`TraceResult`:
totals, gains, dividers and the jobs killed at them) and the predicted
classes read back from a classify dataset."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import InputError
from .cells import Prepared, kill_dividers


def scores(counts) -> dict[str, float]:
    """Accuracy, precision, recall (Eqs. 6.1-6.3) and the error shares of
    Table 6.5 (printed formulas and shares of all jobs), in %, from (TS,
    FS, TL, FL) counts (last axis); NaN where a denominator is 0."""
    c = np.asarray(counts, dtype=np.float64)
    ts, fs, tl, fl = (c[..., i] for i in range(4))
    n = ts + fs + tl + fl

    def ratio(a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(b > 0, 100.0 * a / np.where(b > 0, b, 1), np.nan)

    out = {"accuracy": ratio(ts + tl, n), "precision": ratio(ts, ts + fs), "recall": ratio(ts, ts + fl),
           "false_large": ratio(fl, fl + tl), "false_small": ratio(fs, fs + ts),
           "false_large_of_all": ratio(fl, n), "false_small_of_all": ratio(fs, n), "jobs": n}
    return {k: (float(v) if np.ndim(v) == 0 else v) for k, v in out.items()}


@dataclass
class TraceResult:
    """Everything the study computed about one trace."""

    name: str
    prepared: Prepared
    classify: Any                  # xarray.Dataset (week, outcome, feature, slot)
    predicted: np.ndarray          # predicted class of each job (1 small)
    schedule: Any = None           # xarray.Dataset (policy, variant, week, month)

    @property
    def counts(self) -> np.ndarray:
        """Confusion counts per week, (K, 4)."""
        return np.asarray(self.classify.confusion.values, dtype=np.int64)

    @property
    def weekly(self) -> dict[str, np.ndarray]:
        return scores(self.counts)

    @property
    def overall(self) -> dict[str, float]:
        """Scores over the weeks with a classifier (week 1 on)."""
        return scores(self.counts[1:].sum(axis=0))

    @property
    def kill_dividers(self) -> np.ndarray | None:
        return kill_dividers(self.predicted, self.prepared.week, self.prepared.dividers)

    def divider_summary(self) -> dict[str, Any]:
        """The weekly dividers and the jobs killed at them: those classified
        small that run (min(p, p~)) longer than their week's divider --
        every policy of classification-idempotent requeues exactly these."""
        pr = self.prepared
        D = self.kill_dividers
        small = self.predicted.astype(bool)
        run = pr.jobs.run
        weekly = pr.dividers[1:]
        weekly = weekly[np.isfinite(weekly)]
        out = {"divider_weekly_min_s": float(weekly.min()) if weekly.size else np.nan,
               "divider_weekly_median_s": float(np.median(weekly)) if weekly.size else np.nan,
               "divider_weekly_max_s": float(weekly.max()) if weekly.size else np.nan,
               "divider_trace_s": float(np.median(run)), "predicted_small": int(small.sum()),
               "false_small": int((small & (pr.truth == 0)).sum())}
        d = np.minimum(run, pr.jobs.req)            # the duration run (overrun="kill")
        out["killed_at_divider"] = 0 if D is None else int((small & (d > D)).sum())
        return out

    def total(self, policy: str, variant: str) -> float:
        return float(self.schedule.sum_bsld.sel(policy=policy, variant=variant))

    def gain(self, policy: str, variant: str, baseline: tuple[str, str] = ("FCFS", "base")) -> float:
        """Improvement (%) of the total bsld over ``baseline`` (policy, variant)."""
        b = self.total(*baseline)
        return 100.0 * (1.0 - self.total(policy, variant) / b) if b > 0 else np.nan


def predictions_from(ds, pr: Prepared) -> np.ndarray:
    """The predicted class of every job from a classify dataset."""
    out = np.zeros(len(pr.jobs), dtype=np.int8)
    n = np.asarray(ds.week_jobs.values, dtype=np.int64)
    slots = np.asarray(ds.predicted_small.values)
    for k in range(pr.n_weeks):
        rows = pr.week == k
        if int(rows.sum()) != n[k]:
            raise InputError(f"{pr.name}: week {k} has {int(rows.sum())} jobs, the classification {n[k]}")
        out[rows] = slots[k, :n[k]].astype(np.int8)
    return out
