"""What the policies study says: the key numbers for the paper
(:func:`numbers`, ``numbers.json``) and short statements computed from the
results (:func:`findings`, ``findings.json``), so that the notebook's
commentary stays free of numbers."""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from .analysis import (BanditTrace, LelongResult, TablesResult, ThesisTrace, _ci, _closest_rank,
                       _closest_variant, _pct, _spf_ties, thesis_claims, thesis_comparison)
from .params import CLAIMS, MISSING_TRACES, PUBLISHED, Params


def _fmt(x, digits=1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _key(name: str) -> str:
    """A numbers.json key fragment from a trace name: "CEA-Curie" -> "cea_curie"."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


# -------------------------------------------------------------- findings --

def findings(res: dict[str, Any]) -> dict[str, str]:
    """Short Markdown statements computed from the results, one per part (the
    notebook's commentary stays free of numbers)."""
    out = {}
    lel: LelongResult | None = res.get("lelong")
    if lel is not None:
        b = lel.best
        n_sig = sum(1 for x in lel.pairs if x["significant"] and x["avg_mean"] < 1)
        bf_best = {pr: lel.best_backfill(pr) for pr in lel.policies}
        most = max(sorted(set(bf_best.values())), key=lambda k: list(bf_best.values()).count(k))
        spf_tie = _spf_ties(lel)
        out["lelong"] = (
            f"On {lel.weeks} resampled weeks of {lel.trace}, the best pair is EASY-{b['primary']}-{b['backfill']}: "
            f"AvgWait {_fmt(_pct(b['avg_mean'] - 1))} % vs EASY-FCFS-FCFS (95% CI "
            f"{_ci(b['avg_ci_low'] - 1, b['avg_ci_high'] - 1, 1, 100)} %; lelong2017 §5.1: about -30 %), while "
            f"its mean per-week MaxWait is {_fmt(_pct(b['max_mean'] - 1))} % and its largest MaxWait "
            f"{_fmt(_pct(b['maxmax'] - 1))} % off the baseline's. {n_sig} of {len(lel.pairs)} pairs have a CI "
            f"entirely below the baseline. The best backfilling policy is {most} for "
            f"{list(bf_best.values()).count(most)} of the {len(lel.policies)} primary policies "
            f"(lelong2017 §5.2: SPF for all of them); SPF is the best or cannot be told apart from the "
            f"best (paired 95% CI of the difference contains 0) for {spf_tie} of them.")
    tab: TablesResult | None = res.get("tables_result")
    if tab is not None:
        variant, score = _closest_variant(tab)
        out["tables"] = (f"Of the cleaning/estimate variants tried, {variant} is closest to the published "
                         f"Tables 1-2 (mean absolute difference {_fmt(score)} % over their entries).")
        mw = res.get("maxwait")
        if mw and "CTC-SP2" in tab.traces:
            for pol in ("SPF", "FCFS"):
                rank, diff = _closest_rank(mw[pol], PUBLISHED["lelong_table2"][(pol, "max_wait")])
                out["tables"] += (f" The published MaxWait of EASY-{pol}-{pol} is closest to our "
                                  f"{_ordinal(rank)} largest wait, which differs from it by {diff:+d} s.")
    th: list[ThesisTrace] | None = res.get("thesis")
    if th:
        c = thesis_comparison(th)
        gt1 = sum(1 for t in th for pol in t.policies if t.ratio_42(pol)[0] > 1)
        total = sum(len(t.policies) for t in th)
        text = (f"Premature jobs have a higher mean bsld than standard ones in {gt1} of {total} "
                f"(trace, policy) cells, as in the thesis.")
        if c["cells"]:
            text += (f" Against Table 4.2: mean |diff| {_fmt(c['mean_abs_diff'], 2)}; the published value lies "
                     f"outside our 95% CI in {c['outside_ci']} of {c['cells']} cells; our original-log value is "
                     f"closer to it than our resampled one in {c['log_closer']} of {c['cells']}; within each "
                     f"trace, {c['order_agree']} of {c['order_pairs']} pairs of policies are ordered as in the "
                     f"thesis.")
        sqf = [t for t in th if "SQF" in t.policies]
        if sqf:
            share = np.mean([np.mean(100 * t.dataset.backfilled.sel(policy="SQF").values
                                     / t.dataset.jobs.sel(policy="SQF").values) for t in sqf])
            no_t = int(np.nansum([t.original_value("backfilled", "SQF", "kill", "none") for t in sqf]))
            text += (f" SQF backfills {_fmt(share)} % of the jobs on our resampled traces with the threshold, "
                     f"and {no_t} job(s) on the original logs without it (the thesis: none).")
        out["thesis"] = text
    bd: list[BanditTrace] | None = res.get("bandit")
    if bd:
        mp = res.get("bandit_mapping") or []
        best_map = min(mp, key=lambda r: r["mean_abs_diff"]) if mp else None
        bests = ", ".join(f"{t.trace}: {t.best} ({_fmt(_pct(t.change[t.best][0]), 0)} %)" for t in bd)
        text = f"Best fixed policy per trace (ours): {bests}."
        if best_map is not None:
            text += (f" The reading of the published labels closest to ours is '{best_map['mapping']}' "
                     f"(mean |diff| {_fmt(best_map['mean_abs_diff'])} pp, same sign in "
                     f"{_fmt(best_map['sign_agreement'], 0)} % of cells, "
                     f"correlation {_fmt(best_map['correlation'], 2)}, "
                     f"same best policy on {best_map['same_best']} of {best_map['traces']} traces; as printed: "
                     f"mean |diff| {_fmt(mp[0]['mean_abs_diff'])} pp, correlation {_fmt(mp[0]['correlation'], 2)}).")
        out["bandit"] = text
    return out


# ---------------------------------------------------------------- numbers --

def numbers(res: dict[str, Any], p: Params) -> dict[str, Any]:
    """The flat dict of key numbers for the paper (``numbers.json``)."""
    n: dict[str, Any] = {"seed": p.seed}
    lel: LelongResult | None = res.get("lelong")
    if lel is not None:
        b, base = lel.best, lel.pair("FCFS", "FCFS")
        n.update({
            "lelong_trace": lel.trace, "lelong_weeks": lel.weeks, "lelong_pairs": len(lel.pairs),
            "lelong_best_pair": f"EASY-{b['primary']}-{b['backfill']}",
            "lelong_best_avgwait_pct": _pct(b["avg_mean"] - 1),
            "lelong_best_avgwait_ci_low_pct": _pct(b["avg_ci_low"] - 1),
            "lelong_best_avgwait_ci_high_pct": _pct(b["avg_ci_high"] - 1),
            "lelong_best_maxwait_pct": _pct(b["max_mean"] - 1),
            "lelong_best_maxmax_pct": _pct(b["maxmax"] - 1),
            "lelong_pairs_better_significant": sum(1 for x in lel.pairs if x["significant"] and x["avg_mean"] < 1),
            "lelong_fcfs_avgwait_mean_s": float(np.nanmean(lel.dataset.avg_wait.sel(primary="FCFS", backfill="FCFS"))),
            "lelong_published_best_gain_pct": CLAIMS["lelong_best_gain"][2],
        })
        bf_best = [lel.best_backfill(pr) for pr in lel.policies]
        n["lelong_spf_best_backfill_count"] = bf_best.count("SPF")
        n["lelong_spf_tied_best_backfill_count"] = _spf_ties(lel)
        n["lelong_policies"] = len(lel.policies)
        n["lelong_fcfs_fcfs_left_out_weeks"] = base["avg_left_out"]
    tab: TablesResult | None = res.get("tables_result")
    if tab is not None:
        for (t, pol), pub in PUBLISHED["lelong_table1"].items():
            if t in tab.traces:
                key = f"t1_{t.split('-')[0].lower()}_{pol.lower()}"
                n[key + "_pub_s"] = pub
                n[key + "_ours_s"] = tab.value(t, pol, "avg_wait")
        if "CTC-SP2" in tab.traces:
            for (pol, m), pub in PUBLISHED["lelong_table2"].items():
                key = f"t2_{pol.lower()}_{m}"
                n[key + "_pub_s"] = pub
                n[key + "_ours_s"] = tab.value("CTC-SP2", pol, m)
        mw = res.get("maxwait")
        if mw and "CTC-SP2" in tab.traces:
            for pol in ("SPF", "FCFS"):
                rank, diff = _closest_rank(mw[pol], PUBLISHED["lelong_table2"][(pol, "max_wait")])
                n[f"t2_{pol.lower()}_maxwait_closest_rank"] = rank
                n[f"t2_{pol.lower()}_maxwait_closest_diff_s"] = diff
        variant, score = _closest_variant(tab)
        n["tables_closest_variant"] = variant
        n["tables_closest_variant_mad_pct"] = score
    th: list[ThesisTrace] | None = res.get("thesis")
    if th:
        n["thesis_traces"] = ", ".join(t.trace for t in th)
        n["thesis_samples"] = p.thesis_samples
        n["thesis_threshold_s"] = p.thesis_threshold if p.thesis_threshold is not None else "none"
        n["thesis_threshold_days"] = p.thesis_threshold / 86400 if p.thesis_threshold is not None else "none"
        for key, (v, where) in thesis_claims(th).items():
            n[f"{key}_ours"] = v
            n[f"{key}_where"] = where
            n[f"{key}_pub"] = CLAIMS[key][2]
        c = thesis_comparison(th)
        n.update({"t42_cells": c["cells"], "t42_mean_abs_diff": c["mean_abs_diff"],
                  "t42_outside_ci": c["outside_ci"], "t42_log_closer": c["log_closer"],
                  "t42_order_pairs": c["order_pairs"], "t42_order_agree": c["order_agree"]})
        n["t42_above_one"] = sum(1 for t in th for pol in t.policies if t.ratio_42(pol)[0] > 1)
        n["t42_total"] = sum(len(t.policies) for t in th)
        sqf = [t for t in th if "SQF" in t.policies]
        if sqf:
            share = lambda t, v: float(np.mean(100 * t.dataset[v].sel(policy="SQF").values  # noqa: E731
                                               / t.dataset.jobs.sel(policy="SQF").values))
            n["thesis_sqf_backfilled_pct"] = float(np.mean([share(t, "backfilled") for t in sqf]))
            n["thesis_sqf_forced_pct"] = float(np.mean([share(t, "forced") for t in sqf]))
            n["thesis_sqf_backfilled_log_with_T"] = int(np.nansum([t.original_value("backfilled", "SQF")
                                                                   for t in sqf]))
            n["thesis_sqf_backfilled_log_no_T"] = int(np.nansum([t.original_value("backfilled", "SQF", "kill", "none")
                                                                 for t in sqf]))
    bd: list[BanditTrace] | None = res.get("bandit")
    if bd:
        n["bandit_traces"] = ", ".join(t.trace for t in bd)
        n["bandit_samples"] = p.bandit_samples
        n["bandit_weeks"] = p.bandit_weeks
        n["bandit_threshold_h"] = p.bandit_threshold / 3600 if p.bandit_threshold is not None else "none"
        n["bandit_missing_traces"] = ", ".join(MISSING_TRACES)
        for t in bd:
            k = _key(t.trace)
            n[f"bandit_{k}_best"] = t.best
            n[f"bandit_{k}_best_pct"] = _pct(t.change[t.best][0])
            n[f"bandit_{k}_best_ci_low_pct"] = _pct(t.change[t.best][1])
            n[f"bandit_{k}_best_ci_high_pct"] = _pct(t.change[t.best][2])
        for r in res.get("bandit_mapping") or []:
            key = {"as printed": "printed", "S/L swapped for P, Q, A": "swapped_pqa",
                   "S/L swapped for P, Q, A, R, EXP": "swapped_all"}.get(r["mapping"], r["mapping"])
            n[f"bandit_map_{key}_mad_pp"] = r["mean_abs_diff"]
            n[f"bandit_map_{key}_same_sign_pct"] = r["sign_agreement"]
            n[f"bandit_map_{key}_corr"] = r["correlation"]
            n[f"bandit_map_{key}_same_best"] = r["same_best"]
            n[f"bandit_map_{key}_traces"] = r["traces"]
    return n
