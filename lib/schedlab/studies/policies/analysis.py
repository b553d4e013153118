"""The computations of the policies study: plain functions of arrays and
datasets (no file, no plot, no printing), tested on inputs whose answers are
known by construction, and the per-part results (:class:`LelongResult`,
:class:`TablesResult`, :class:`ThesisTrace`, :class:`BanditTrace`) the
tables, figures and key numbers are read from."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ...engine import sim
from ... import stats
from ...errors import InputError
from .cells import TABLE_VARIANTS, bsld_classes, cumulative_by_week, premature_ratio, top_procs  # noqa: F401
from .params import PUBLISHED, SWAPS
from ...stats import total_change  # noqa: F401 - online-bandit Eq. 11, shared with the your-policy study

# ------------------------------------------------------------ computations --

def relative_summary(values, baseline, axis=-1, level=0.95, seed=0) -> dict[str, Any]:
    """Per-entry ratio ``values / baseline`` (:func:`schedlab.stats.relative`)
    summarised along ``axis`` (the weeks or samples): NaN-aware mean, first
    and last deciles, bootstrap confidence interval of the mean and the
    number of entries left out (NaN: the baseline is 0 but the value not)."""
    r = stats.relative(values, baseline)
    r = np.moveaxis(np.asarray(r, dtype=float), axis, -1)
    mean, lo, hi = stats.bootstrap_ci(r, axis=-1, level=level, seed=seed)
    d10, d90 = stats.deciles(r, axis=-1) if r.shape[-1] else (np.nan, np.nan)
    return {"ratio": r, "mean": mean, "ci_low": lo, "ci_high": hi, "d10": d10, "d90": d90,
            "left_out": np.isnan(r).sum(axis=-1)}


def pair_summary(avg_wait, max_wait, policies: Sequence[str], baseline: str = "FCFS",
                 seed: int = 0) -> list[dict[str, Any]]:
    """lelong2017 Figs. 2-4 for a (primary, backfill, week) grid of AvgWait and
    MaxWait: one record per pair, with

    * ``avg_*``: AvgWait relative to EASY-FCFS-FCFS on the same week, mean
      over weeks, deciles and bootstrap CI of the mean (Figs. 2-4, x axis);
    * ``max_*``: MaxWait relative per week, mean and deciles (Fig. 3, y);
    * ``maxmax``: the largest MaxWait of all weeks over the baseline's (Fig. 2, y).
    """
    avg = np.asarray(avg_wait, dtype=float)
    mx = np.asarray(max_wait, dtype=float)
    pols = list(policies)
    if avg.shape[:2] != (len(pols), len(pols)) or avg.shape != mx.shape:
        raise InputError(f"pair_summary: expected ({len(pols)}, {len(pols)}, weeks) arrays, "
                         f"got {avg.shape} and {mx.shape}")
    b = pols.index(baseline)
    base_avg, base_max = avg[b, b], mx[b, b]
    out = []
    for i, pr in enumerate(pols):
        for j, pb in enumerate(pols):
            a = relative_summary(avg[i, j], base_avg, seed=seed)
            m = relative_summary(mx[i, j], base_max, seed=seed)
            top, base_top = np.nanmax(mx[i, j]), np.nanmax(base_max)
            out.append({
                "primary": pr, "backfill": pb,
                "avg_mean": float(a["mean"]), "avg_ci_low": float(a["ci_low"]),
                "avg_ci_high": float(a["ci_high"]), "avg_d10": float(a["d10"]), "avg_d90": float(a["d90"]),
                "avg_left_out": int(a["left_out"]),
                "max_mean": float(m["mean"]), "max_ci_low": float(m["ci_low"]),
                "max_ci_high": float(m["ci_high"]), "max_d10": float(m["d10"]), "max_d90": float(m["d90"]),
                "maxmax": float(stats.relative(top, base_top)),
                "significant": bool(stats.significant(a["ci_low"], a["ci_high"])),
            })
    return out


def _swap(mapping: dict[str, float], pairs) -> dict[str, float]:
    out = dict(mapping)
    for a, b in pairs:
        if a in mapping and b in mapping:
            out[a], out[b] = mapping[b], mapping[a]
    return out


def mapping_check(ours: dict[str, dict[str, float]], published: dict[str, dict[str, float]],
                  swaps=SWAPS) -> list[dict[str, Any]]:
    """Compare our per-trace, per-policy values with the published ones under
    each label mapping of ``swaps`` (published labels exchanged): mean
    absolute difference, sign agreement (|value| < 1 counts as 0) and the
    Pearson correlation, over every (trace, policy) both have."""
    rows = []
    for name, pairs in swaps.items():
        ours_v, pub_v = [], []
        best_same = traces_n = 0
        for trace, pub in published.items():
            if trace not in ours:
                continue
            pub_m = _swap(pub, pairs)
            common = [pol for pol in pub_m if pol in ours[trace] and np.isfinite(ours[trace][pol])]
            for pol in common:
                ours_v.append(ours[trace][pol])
                pub_v.append(pub_m[pol])
            if common:
                traces_n += 1
                best_same += int(min(common, key=lambda k: ours[trace][k]) == min(common, key=lambda k: pub_m[k]))
        o, p = np.array(ours_v, dtype=float), np.array(pub_v, dtype=float)
        sign = lambda x: np.where(np.abs(x) < 1, 0, np.sign(x))  # noqa: E731
        n = int(o.size)
        corr = float(np.corrcoef(o, p)[0, 1]) if n > 2 and o.std() > 0 and p.std() > 0 else float("nan")
        rows.append({"mapping": name, "n": n,
                     "mean_abs_diff": float(np.abs(o - p).mean()) if n else float("nan"),
                     "sign_agreement": float((sign(o) == sign(p)).mean() * 100) if n else float("nan"),
                     "correlation": corr, "traces": traces_n, "same_best": best_same})
    return rows


# ---------------------------------------------------------------- helpers --

def _pct(x):
    return 100.0 * x if x is not None and np.isfinite(x) else float("nan")


def _ci(lo, hi, digits=1, scale=1.0) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    return f"[{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"


# ------------------------------------------------------------ lelong part --

@dataclass
class LelongResult:
    trace: str
    weeks: int
    policies: tuple[str, ...]
    dataset: Any
    pairs: list[dict[str, Any]]

    def pair(self, primary: str, backfill: str) -> dict[str, Any]:
        return next(r for r in self.pairs if r["primary"] == primary and r["backfill"] == backfill)

    @property
    def best(self) -> dict[str, Any]:
        return min(self.pairs, key=lambda r: (r["avg_mean"], r["primary"], r["backfill"]))

    def best_backfill(self, primary: str) -> str:
        return min(self.policies, key=lambda pb: self.pair(primary, pb)["avg_mean"])

    def backfill_gap(self, primary: str, backfill: str = "SPF", seed: int = 0) -> tuple[float, float, float]:
        """Paired comparison of ``backfill`` with the best backfilling policy
        for ``primary``: mean over weeks of the difference of their AvgWait
        ratios to EASY-FCFS-FCFS, with its bootstrap CI (0 when it is the best)."""
        best = self.best_backfill(primary)
        if best == backfill or backfill not in self.policies:
            return 0.0, 0.0, 0.0
        avg = self.dataset.avg_wait
        base = avg.sel(primary="FCFS", backfill="FCFS").values
        d = (stats.relative(avg.sel(primary=primary, backfill=backfill).values, base)
             - stats.relative(avg.sel(primary=primary, backfill=best).values, base))
        return tuple(float(v) for v in stats.bootstrap_ci(d, seed=seed))  # type: ignore[return-value]


def analyse_lelong(ds, trace: str, seed: int = 0) -> LelongResult:
    pols = tuple(str(x) for x in ds.primary.values)
    pairs = pair_summary(ds.avg_wait.transpose("primary", "backfill", "week").values,
                         ds.max_wait.transpose("primary", "backfill", "week").values, pols, seed=seed)
    return LelongResult(trace, int(ds.sizes["week"]), pols, ds, pairs)


def _spf_ties(lel: LelongResult) -> int:
    """Primary policies for which SPF backfilling is the best or within the
    paired CI of the best."""
    if "SPF" not in lel.policies:
        return 0
    return sum(1 for pr in lel.policies if lel.backfill_gap(pr, "SPF")[1] <= 0)


# ------------------------------------------------------------ tables part --

@dataclass
class TablesResult:
    """The original-log simulations of lelong2017 Tables 1-2: ``dataset`` of
    the ``tables`` campaign; ``traces`` their names; ``refs`` trace name ->
    the campaign's label of that trace (:func:`~.cells.campaigns`)."""

    dataset: Any
    traces: tuple[str, ...]
    refs: dict[str, str]

    def value(self, trace: str, policy: str, metric: str, overrun="drop", estimate="requested") -> float:
        ds = self.dataset
        return float(ds[metric].sel(trace=self.refs[trace], overrun=overrun, estimate=estimate, policy=policy))


def _closest_rank(items: list[dict], published: float) -> tuple[int, int]:
    k = min(range(len(items)), key=lambda i: abs(items[i]["wait"] - published))
    return items[k]["rank"], items[k]["wait"] - int(published)


def _closest_variant(r: TablesResult) -> tuple[str, float]:
    """The variant whose Tables 1-2 values are closest to the published ones
    (mean absolute relative difference, %)."""
    best = None
    for o in TABLE_VARIANTS["overrun"]:
        for e in TABLE_VARIANTS["estimate"]:
            diffs = []
            for (t, pol), pub in PUBLISHED["lelong_table1"].items():
                if t in r.traces:
                    diffs.append(abs(r.value(t, pol, "avg_wait", o, e) - pub) / pub)
            if "CTC-SP2" in r.traces:
                for (pol, m), pub in PUBLISHED["lelong_table2"].items():
                    diffs.append(abs(r.value("CTC-SP2", pol, m, o, e) - pub) / pub)
            if diffs:
                score = 100 * float(np.mean(diffs))
                if best is None or score < best[1]:
                    best = (f"{o}/{e}", score)
    return best or ("", float("nan"))


# ------------------------------------------------------------ thesis part --

@dataclass
class ThesisTrace:
    trace: str
    dataset: Any
    original: Any | None
    policies: tuple[str, ...]
    threshold: str = "none"

    def rel(self, var: str, policy: str, seed: int = 0) -> dict[str, Any]:
        ds = self.dataset
        return relative_summary(ds[var].sel(policy=policy).values, ds[var].sel(policy="FCFS").values,
                                seed=seed)

    def ratio_42(self, policy: str, seed: int = 0) -> tuple[float, float, float]:
        ds = self.dataset.sel(policy=policy)
        r = stats.relative(ds.mean_bsld_premature.values, ds.mean_bsld_standard.values)
        return tuple(float(v) for v in stats.bootstrap_ci(r, seed=seed))  # type: ignore[return-value]

    def original_sel(self, var: str, policy: str, overrun: str = "kill", threshold: str | None = None):
        """``var`` on the cleaned original log as floats (an array for a per-class
        variable), or None if not simulated (``threshold`` None: the thesis' T)."""
        o = self.original
        thr = self.threshold if threshold is None else threshold
        if o is None or overrun not in o.overrun.values or thr not in o.threshold.values:
            return None
        return o[var].sel(policy=policy, overrun=overrun, threshold=thr).values.astype(float)

    def original_value(self, var: str, policy: str, overrun: str = "kill", threshold: str | None = None) -> float:
        """``var`` on the cleaned original log (NaN if not simulated)."""
        v = self.original_sel(var, policy, overrun, threshold)
        return float("nan") if v is None else float(v)

    def ratio_42_original(self, policy: str, overrun: str = "kill", threshold: str | None = None) -> float:
        return float(stats.relative(self.original_value("mean_bsld_premature", policy, overrun, threshold),
                                    self.original_value("mean_bsld_standard", policy, overrun, threshold)))

    def classes(self, policy: str) -> np.ndarray:
        """Mean share (%) of the jobs in each bsld class over samples."""
        c = self.dataset.bsld_class_jobs.sel(policy=policy).values.astype(float)
        return 100 * np.nanmean(c / c.sum(axis=-1, keepdims=True), axis=0)


def analyse_thesis(datasets: dict[str, Any], original, threshold: int | None,
                   refs: dict[str, str]) -> list[ThesisTrace]:
    """The thesis part per trace: ``datasets`` trace name -> its resampled
    campaign; ``original`` the original-log campaign (or None), whose trace
    labels are ``refs`` (trace name -> label)."""
    out = []
    for name, ds in datasets.items():
        orig = None
        if original is not None and refs.get(name) in original.trace.values:
            orig = original.sel(trace=refs[name])
        out.append(ThesisTrace(name, ds, orig, tuple(str(x) for x in ds.policy.values),
                               sim.format_duration(threshold)))
    return out


def thesis_claims(res: list[ThesisTrace], seed: int = 0) -> dict[str, tuple[float, str]]:
    """Our values of the thesis' text claims (:data:`CLAIMS`): (value, where)."""
    return {k: (v, where) for k, (v, where, _, _) in thesis_claim_values(res, seed).items()}


def thesis_claim_values(res: list[ThesisTrace], seed: int = 0) -> dict[str, tuple[float, str, float, float]]:
    """Our values of the thesis' text claims (:data:`CLAIMS`): (value, where,
    95 % low, 95 % high); the interval is NaN where the value has none (a
    ratio of means over traces)."""
    out: dict[str, tuple[float, str, float, float]] = {}
    nan = float("nan")

    def best(var):
        cands = []
        for t in res:
            for pol in t.policies:
                if pol != "FCFS":
                    r = t.rel(var, pol, seed)
                    ci = _ci(1 - r["ci_high"], 1 - r["ci_low"], 1, 100)
                    cands.append((1 - r["mean"], f"{pol} on {t.trace}, CI {ci}", 1 - r["ci_high"], 1 - r["ci_low"]))
        return max(cands, key=lambda x: x[0]) if cands else (nan, "", nan, nan)

    for key, var in (("thesis_gain_bsld", "mean_bsld"), ("thesis_gain_wait", "avg_wait"),
                     ("thesis_gain_ppbsld", "mean_ppbsld")):
        v, where, lo, hi = best(var)
        out[key] = (100 * v, where, 100 * lo, 100 * hi)
    if any("SAF" in t.policies for t in res):
        fewer, imm = [], []
        for t in res:
            if "SAF" not in t.policies:
                continue
            c = t.dataset.bsld_class_jobs
            f, s = c.sel(policy="FCFS").values.astype(float), c.sel(policy="SAF").values.astype(float)
            fewer.append((float(np.nanmean(f[:, 3]) / np.nanmean(s[:, 3])) if np.nanmean(s[:, 3]) else np.nan, t.trace))
            imm.append((100 * (float(np.nanmean(s[:, 0]) / np.nanmean(f[:, 0])) - 1), t.trace))
        v = max(fewer, key=lambda x: -np.inf if not np.isfinite(x[0]) else x[0])
        out["thesis_bsld100_saf"] = (v[0], f"SAF on {v[1]}", nan, nan)
        v = max(imm, key=lambda x: x[0])
        out["thesis_immediate_saf"] = (v[0], f"SAF on {v[1]}", nan, nan)
    for pol in ("SAF", "SPF"):
        vals = [100 * (1 - t.rel("backfilled", pol, seed)["mean"]) for t in res if pol in t.policies]
        if vals:
            out[f"thesis_backfilled_{pol.lower()}"] = (float(np.mean(vals)), f"mean over {len(vals)} traces", nan, nan)
    return out


def thesis_claims_original(res: list[ThesisTrace], overrun: str = "kill",
                           threshold: str | None = None) -> dict[str, float]:
    """The thesis' text claims (:data:`CLAIMS`) computed as :func:`thesis_claim_values`
    does, but on each cleaned original log instead of the resamples (the readings of
    Table 4.2: ``overrun`` "kill"/"drop", ``threshold`` None = the thesis' T, or
    "none"); a claim whose inputs were not simulated is left out."""
    out: dict[str, float] = {}

    def val(t, var, pol):
        return t.original_value(var, pol, overrun, threshold)

    for key, var in (("thesis_gain_bsld", "mean_bsld"), ("thesis_gain_wait", "avg_wait"),
                     ("thesis_gain_ppbsld", "mean_ppbsld")):
        gains = [100 * (1 - float(stats.relative(val(t, var, pol), val(t, var, "FCFS"))))
                 for t in res for pol in t.policies if pol != "FCFS"]
        gains = [g for g in gains if np.isfinite(g)]
        if gains:
            out[key] = max(gains)
    fewer, imm = [], []
    for t in res:
        if "SAF" not in t.policies:
            continue
        f = t.original_sel("bsld_class_jobs", "FCFS", overrun, threshold)
        s = t.original_sel("bsld_class_jobs", "SAF", overrun, threshold)
        if f is None or s is None:
            continue
        if s[3]:
            fewer.append(f[3] / s[3])
        if f[0]:
            imm.append(100 * (s[0] / f[0] - 1))
    if fewer:
        out["thesis_bsld100_saf"] = max(fewer)
    if imm:
        out["thesis_immediate_saf"] = max(imm)
    for pol in ("SAF", "SPF"):
        vals = [100 * (1 - float(stats.relative(val(t, "backfilled", pol), val(t, "backfilled", "FCFS"))))
                for t in res if pol in t.policies]
        vals = [v for v in vals if np.isfinite(v)]
        if vals:
            out[f"thesis_backfilled_{pol.lower()}"] = float(np.mean(vals))
    return out


def immediate_points(res: list[ThesisTrace]) -> tuple[float, str] | None:
    """thesis §4.4's "SAF increases the jobs started at once by up to 9 %" read
    as percentage points of all jobs (bsld = 1 under SAF minus under FCFS, per
    sample, as a share of the sample's jobs; mean over samples), the largest
    over the traces: (value, trace)."""
    vals = []
    for t in res:
        if "SAF" not in t.policies:
            continue
        c = t.dataset.bsld_class_jobs
        f, s = c.sel(policy="FCFS").values.astype(float), c.sel(policy="SAF").values.astype(float)
        n = f.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            vals.append((float(np.nanmean(100 * (s[:, 0] - f[:, 0]) / n)), t.trace))
    vals = [v for v in vals if np.isfinite(v[0])]
    return max(vals) if vals else None


def thesis_comparison(res: list[ThesisTrace]) -> dict[str, Any]:
    """How our Table 4.2 compares with the thesis': mean |diff|, published
    values outside our CI, cells where the original-log value is closer to the
    published one than the resampled value, and the agreement of the policy
    order within each trace (% of policy pairs ranked the same way)."""
    cells = [(t, pol, PUBLISHED["thesis_table_4_2"][pol][t.trace]) for t in res for pol in t.policies
             if PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace) is not None]
    out: dict[str, Any] = {"cells": len(cells), "mean_abs_diff": float("nan"), "outside_ci": 0,
                           "log_closer": 0, "order_pairs": 0, "order_agree": 0}
    if not cells:
        return out
    diffs = []
    for t, pol, pub in cells:
        m, lo, hi = t.ratio_42(pol)
        diffs.append(abs(m - pub))
        out["outside_ci"] += int(not lo <= pub <= hi)
        out["log_closer"] += int(abs(t.ratio_42_original(pol) - pub) < abs(m - pub))
    out["mean_abs_diff"] = float(np.mean(diffs))
    for t in res:
        pols = [pol for pol in t.policies if PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace) is not None]
        ours = {pol: t.ratio_42(pol)[0] for pol in pols}
        pub = {pol: PUBLISHED["thesis_table_4_2"][pol][t.trace] for pol in pols}
        for i, a in enumerate(pols):
            for b in pols[i + 1:]:
                out["order_pairs"] += 1
                out["order_agree"] += int(np.sign(ours[a] - ours[b]) == np.sign(pub[a] - pub[b]))
    return out


# ------------------------------------------------------------ bandit part --

@dataclass
class BanditTrace:
    trace: str
    dataset: Any
    policies: tuple[str, ...]
    change: dict[str, tuple[float, float, float]]

    @property
    def best(self) -> str:
        return min((p for p in self.policies if p != "FCFS"), key=lambda p: self.change[p][0])


def analyse_bandit(datasets: dict[str, Any], seed: int = 0) -> list[BanditTrace]:
    out = []
    for name, ds in datasets.items():
        pols = tuple(str(x) for x in ds.policy.values)
        base = ds.sum_wait.sel(policy="FCFS").values
        change = {p: total_change(ds.sum_wait.sel(policy=p).values, base, seed=seed) for p in pols}
        out.append(BanditTrace(name, ds, pols, change))
    return out


def _bandit_columns(res: list[BanditTrace]) -> list[str]:
    order = [p for p in PUBLISHED["bandit_table2"]["KTH-SP2"]]
    have = {p for t in res for p in t.policies}
    return [p for p in order if p in have] + sorted(have - set(order) - {"FCFS"})
