"""The tables of the policies study (:class:`~schedlab.studies.Table`),
each published value beside ours where the papers print one."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import stats
from .. import Table
from .analysis import (BanditTrace, LelongResult, TablesResult, ThesisTrace, _bandit_columns, _ci, _pct,
                       _swap, thesis_claims)
from .params import CLAIMS, MISSING_TRACES, PUBLISHED, SWAPS, TABLE_VARIANTS, Params

# ------------------------------------------------------------ lelong part --

def table_lelong_pairs(r: LelongResult) -> Table:
    rows = [[x["primary"], x["backfill"], x["avg_mean"], _ci(x["avg_ci_low"], x["avg_ci_high"], 3),
             x["avg_d10"], x["avg_d90"], x["max_mean"], x["max_d10"], x["max_d90"], x["maxmax"]]
            for x in sorted(r.pairs, key=lambda x: x["avg_mean"])]
    return Table(["P_R", "P_B", "AvgWait rel.", "95% CI", "AvgWait d10", "AvgWait d90",
                  "MaxWait rel.", "MaxWait d10", "MaxWait d90", "max MaxWait rel."], rows,
                 title=f"The {len(r.pairs)} pairs EASY-P_R-P_B on {r.weeks} resampled weeks of "
                       f"{r.trace} (lelong2017 Figs. 2-3), relative to EASY-FCFS-FCFS",
                 default_digits=3,
                 notes=["AvgWait rel., MaxWait rel.: mean over weeks of the week's value over "
                        "EASY-FCFS-FCFS's on the same week; d10/d90: first and last deciles over weeks; "
                        "95% CI: bootstrap interval of the mean over weeks.",
                        "max MaxWait rel.: the largest waiting time of all weeks over EASY-FCFS-FCFS's "
                        "(lelong2017 Fig. 2).",
                        "LEXP is lelong2017's EXP (largest expansion factor first); jobs with p > p~ removed "
                        "(lelong2017 §7.2)."])


def table_lelong_top(r: LelongResult, n: int = 8) -> Table:
    rows = []
    ranked = sorted(r.pairs, key=lambda x: x["avg_mean"])
    base = r.pair("FCFS", "FCFS")
    for x in ranked[:n] + ([base] if base not in ranked[:n] else []):
        rows.append([f"{x['primary']}-{x['backfill']}", _pct(x["avg_mean"] - 1),
                     _ci(x["avg_ci_low"] - 1, x["avg_ci_high"] - 1, 1, 100),
                     _pct(x["avg_d10"] - 1), _pct(x["avg_d90"] - 1), _pct(x["max_mean"] - 1), _pct(x["maxmax"] - 1)])
    return Table(["EASY-P_R-P_B", "AvgWait %", "95% CI", "d10 %", "d90 %", "MaxWait %", "max MaxWait %"],
                 rows, title=f"Best pairs on {r.trace} ({r.weeks} resampled weeks), change vs EASY-FCFS-FCFS",
                 default_digits=1,
                 notes=["% change of the per-week ratio to EASY-FCFS-FCFS (mean over weeks); negative is better.",
                        "max MaxWait: largest wait of all weeks vs EASY-FCFS-FCFS's."])


def table_lelong_backfill(r: LelongResult) -> Table:
    """lelong2017 Fig. 4 as a matrix: mean AvgWait change (%) vs
    EASY-FCFS-FCFS, rows = primary, columns = backfilling policy; ``*`` marks
    the best backfilling policy of each row."""
    rows = []
    for pr in r.policies:
        vals = {pb: r.pair(pr, pb)["avg_mean"] for pb in r.policies}
        best = r.best_backfill(pr)
        gap = r.backfill_gap(pr, "SPF")
        rows.append([pr] + [f"{_pct(vals[pb] - 1):.1f}" + ("*" if pb == best else "") for pb in r.policies]
                    + [_ci(gap[1], gap[2], 1, 100) if "SPF" in r.policies and best != "SPF" else ""])
    return Table(["P_R \\ P_B", *r.policies, "SPF - best, 95% CI (pp)"], rows,
                 title=f"AvgWait change (%) vs EASY-FCFS-FCFS by backfilling policy, conditioned on the "
                       f"primary policy ({r.trace}, lelong2017 Fig. 4)",
                 notes=["* the best backfilling policy for that primary policy; the CIs of every cell are in "
                        "lelong_pairs and lelong2017 Fig. 4.",
                        "last column: paired bootstrap CI over weeks of SPF's ratio minus the best's "
                        "(blank when SPF is the best); a CI that contains 0 means SPF cannot be told "
                        "apart from the best."])


# ------------------------------------------------------------ tables part --

def table_lelong_table1(r: TablesResult) -> Table:
    rows = []
    for pol, label in (("LEXP", "EASY-EXP-EXP"), ("SQF", "EASY-SQF-SQF")):
        for t in r.traces:
            pub = PUBLISHED["lelong_table1"].get((t, pol))
            ours = r.value(t, pol, "avg_wait")
            rows.append([label, t, pub, ours, None if pub is None else ours - pub,
                         None if pub is None else 100 * (ours - pub) / pub])
    return Table(["policy", "trace", "AvgWait published (s)", "AvgWait ours (s)", "diff (s)", "diff %"], rows,
                 title="lelong2017 Table 1: AvgWait on the original logs", digits={"AvgWait ours (s)": 0,
                                                                                   "diff (s)": 0, "diff %": 1},
                 notes=["ours: jobs with p > p~ removed (lelong2017 §7.2), requested times as estimates.",
                        "EXP = LEXP, largest expansion factor first."])


def table_lelong_table2(r: TablesResult, trace: str = "CTC-SP2") -> Table:
    rows = []
    for metric, label in (("avg_wait", "AvgWait"), ("max_wait", "MaxWait")):
        for pol in ("SPF", "FCFS"):
            pub = PUBLISHED["lelong_table2"].get((pol, metric)) if trace == "CTC-SP2" else None
            ours = r.value(trace, pol, metric)
            rows.append([label, f"EASY-{pol}-{pol}", pub, ours, None if pub is None else ours - pub,
                         None if pub is None else 100 * (ours - pub) / pub])
    return Table(["metric", "policy", "published (s)", "ours (s)", "diff (s)", "diff %"], rows,
                 title=f"lelong2017 Table 2: AvgWait and MaxWait on the original {trace} log",
                 digits={"ours (s)": 0, "diff (s)": 0, "diff %": 1},
                 notes=["ours: jobs with p > p~ removed, requested times as estimates."])


def table_lelong_variants(r: TablesResult) -> Table:
    """What was checked: Tables 1-2 under the variants of cleaning and estimates."""
    rows = []
    entries = [(t, pol, "avg_wait", PUBLISHED["lelong_table1"].get((t, pol))) for t in r.traces
               for pol in ("LEXP", "SQF")]
    entries += [(t, pol, m, PUBLISHED["lelong_table2"].get((pol, m)) if t == "CTC-SP2" else None)
                for t in r.traces for pol in ("SPF", "FCFS") for m in ("avg_wait", "max_wait")]
    seen = set()
    for t, pol, m, pub in entries:
        if (t, pol, m) in seen:
            continue
        seen.add((t, pol, m))
        vals = [r.value(t, pol, m, o, e) for o in TABLE_VARIANTS["overrun"] for e in TABLE_VARIANTS["estimate"]]
        rows.append([t, f"EASY-{pol}-{pol}", "AvgWait" if m == "avg_wait" else "MaxWait", pub, *vals])
    cols = [f"{o}/{e}" for o in TABLE_VARIANTS["overrun"] for e in TABLE_VARIANTS["estimate"]]
    return Table(["trace", "policy", "metric", "published (s)", *cols], rows,
                 title="Tables 1-2 under other cleanings and estimates (what was checked)",
                 default_digits=0,
                 notes=["drop: jobs with p > p~ removed (lelong2017 §7.2); kill: kept and killed at p~.",
                        "requested: p~ as the estimate; actual: the clairvoyant runtime."])


def table_maxwait(waits: dict[str, list[dict]], trace: str) -> Table:
    rows = []
    for pol, items in waits.items():
        pub = PUBLISHED["lelong_table2"].get((pol, "max_wait")) if trace == "CTC-SP2" else None
        for x in items:
            rows.append([f"EASY-{pol}-{pol}", x["rank"], x["job"], x["submit"], x["wait"],
                         None if pub is None else x["wait"] - pub, x["q"], x["req"], x["run"]])
    return Table(["policy", "rank", "job id", "submit (s)", "wait (s)", "wait - published MaxWait (s)", "q",
                  "p~ (s)", "p (s)"], rows,
                 title=f"The largest waits on the original {trace} log (what sets MaxWait in Table 2)",
                 notes=["jobs with p > p~ removed, requested times as estimates; job id: the SWF job number."])


# ------------------------------------------------------------ thesis part --

def table_thesis_variants(res: list[ThesisTrace]) -> Table:
    """What was checked for Table 4.2: the ratio on the original logs with
    and without the threshold, with p > p~ jobs kept (killed) or removed, and
    how many jobs SQF backfills in each case."""
    rows = []
    variants = [("kill", None), ("kill", "none"), ("drop", None), ("drop", "none")]
    for t in res:
        for pol in t.policies:
            pub = PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace)
            vals = [t.ratio_42_original(pol, o, thr) for o, thr in variants]
            bf = [t.original_value("backfilled", pol, o, thr) for o, thr in variants[:2]]
            rows.append([t.trace, pol, pub, t.ratio_42(pol)[0], *vals, *bf])
    th = res[0].threshold if res else "T"
    return Table(["trace", "policy", "published", "resampled", f"log, kill, T={th}", "log, kill, no T",
                  f"log, drop, T={th}", "log, drop, no T", f"backfilled, log, T={th}", "backfilled, log, no T"],
                 rows, title="thesis Table 4.2 under other settings (what was checked)",
                 digits={f"backfilled, log, T={th}": 0, "backfilled, log, no T": 0},
                 notes=["resampled: our Table 4.2 value (mean over resampled traces); log: the cleaned "
                        "original log; kill: jobs with p > p~ kept and killed at p~; drop: removed.",
                        "backfilled: jobs started by backfilling on the original log (kill); thesis §4.3.4 "
                        "reports none for SQF in every sample, which Proposition 1 guarantees only "
                        "without a threshold."])


def table_thesis_42(res: list[ThesisTrace], seed: int = 0) -> Table:
    rows = []
    for t in res:
        for pol in t.policies:
            pub = PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace)
            mean, lo, hi = t.ratio_42(pol, seed)
            rows.append([t.trace, pol, pub, mean, _ci(lo, hi, 2), t.ratio_42_original(pol),
                         None if pub is None else mean - pub])
    return Table(["trace", "policy", "published", "ours", "95% CI", "original log", "diff"], rows,
                 title="thesis Table 4.2: mean bsld of premature jobs / mean bsld of standard jobs",
                 notes=["premature: p~ >= 100 p; ours: mean over resampled traces of the per-trace ratio, "
                        "95% bootstrap CI over them; original log: the same policy on the cleaned log.",
                        "Thesis' SDSC Blue is SDSC-BLUE."])


def table_thesis_gains(res: list[ThesisTrace], seed: int = 0) -> Table:
    rows = []
    for t in res:
        for pol in t.policies:
            if pol == "FCFS":
                continue
            row = [t.trace, pol]
            for var in ("mean_bsld", "mean_ppbsld", "avg_wait"):
                s = t.rel(var, pol, seed)
                row += [_pct(1 - s["mean"]), _ci(1 - s["ci_high"], 1 - s["ci_low"], 1, 100)]
            rows.append(row)
    return Table(["trace", "policy", "bsld gain %", "95% CI", "pp-bsld gain %", "95% CI ", "wait gain %",
                  "95% CI  "], rows, default_digits=1,
                 title="Gains over EASY-FCFS (thesis §4.3.1, Fig. 4.1): mean bsld, pp-bsld and wait",
                 notes=["gain: 1 - (policy's mean / FCFS's mean on the same resampled trace), mean over "
                        "traces; 95% bootstrap CI over the resampled traces. Positive is better."])


def table_thesis_classes(res: list[ThesisTrace]) -> Table:
    rows = []
    for t in res:
        base = t.dataset.bsld_class_jobs.sel(policy="FCFS").values.astype(float)
        for pol in t.policies:
            share = t.classes(pol)
            c = t.dataset.bsld_class_jobs.sel(policy=pol).values.astype(float)
            worst = float(np.nanmean(base[:, 3]) / np.nanmean(c[:, 3])) if np.nanmean(c[:, 3]) > 0 else float("nan")
            rows.append([t.trace, pol, *share, worst])
    return Table(["trace", "policy", "% bsld = 1", "% 1-10", "% 10-100", "% 100+", "FCFS / policy (100+)"],
                 rows, title="bsld categories (thesis Fig. 4.3), mean share of the jobs over resampled traces",
                 notes=["categories: bsld = 1; 1 < bsld < 10; 10 <= bsld < 100; bsld >= 100.",
                        "last column: how many times fewer jobs with bsld >= 100 than under FCFS."])


def table_thesis_backfilled(res: list[ThesisTrace], seed: int = 0) -> Table:
    rows = []
    for t in res:
        for pol in t.policies:
            b = t.dataset.backfilled.sel(policy=pol).values.astype(float)
            jobs = t.dataset.jobs.sel(policy=pol).values.astype(float)
            s = t.rel("backfilled", pol, seed)
            forced = t.dataset.forced.sel(policy=pol).values.astype(float)
            rows.append([t.trace, pol, float(np.mean(b)), float(np.mean(100 * b / jobs)),
                         _pct(s["mean"] - 1) if pol != "FCFS" else None,
                         _ci(s["ci_low"] - 1, s["ci_high"] - 1, 1, 100) if pol != "FCFS" else "",
                         float(np.mean(100 * forced / jobs))])
    return Table(["trace", "policy", "backfilled jobs", "% of jobs", "change vs FCFS %", "95% CI",
                  "% started over T"], rows,
                 title="Backfilled jobs per resampled trace (thesis §4.3.4, Fig. 4.4)", default_digits=1,
                 notes=["started over T: jobs that waited more than the threshold (moved to the head of "
                        "the queue); they are what lets SQF backfill at all (thesis Proposition 1)."])


# ------------------------------------------------------------ bandit part --

def table_bandit(res: list[BanditTrace]) -> Table:
    """online-bandit Table 2, published beside ours, wide (one row each)."""
    cols = _bandit_columns(res)
    rows = []
    for t in res:
        pub = PUBLISHED["bandit_table2"].get(t.trace, {})
        rows.append([t.trace, "published", *[pub.get(p) for p in cols]])
        rows.append([t.trace, "ours", *[_pct(t.change[p][0]) if p in t.change else None for p in cols]])
    for missing in MISSING_TRACES:
        pub = PUBLISHED["bandit_table2"][missing]
        rows.append([missing, "published (not bundled)", *[pub.get(p) for p in cols]])
    return Table(["trace", "values", *cols], rows, default_digits=0,
                 title="online-bandit Table 2: change (%) of the total waiting time vs EASY(FCFS, Θ)",
                 notes=["ours: Eq. 11 of online-bandit over the resampled traces; negative is better; 95% CIs "
                        "in bandit_table2_ci.", "ANL-Intrepid and UniLu-Gaia are not bundled: published only."])


def table_bandit_ci(res: list[BanditTrace]) -> Table:
    cols = _bandit_columns(res)
    swapped = {t: _swap(v, SWAPS["S/L swapped for P, Q, A"]) for t, v in PUBLISHED["bandit_table2"].items()}
    rows = []
    for t in res:
        pub = PUBLISHED["bandit_table2"].get(t.trace, {})
        for p in cols:
            if p not in t.change:
                continue
            est, lo, hi = t.change[p]
            rows.append([t.trace, p, pub.get(p), _pct(est), _ci(lo, hi, 1, 100),
                         None if p not in pub else _pct(est) - pub[p], swapped.get(t.trace, {}).get(p),
                         bool(stats.significant(lo, hi, 0.0))])
    return Table(["trace", "policy", "published %", "ours %", "95% CI", "diff (pp)",
                  "published, S/L swapped %", "CI excludes 0"], rows, default_digits=1,
                 title="online-bandit Table 2 with confidence intervals",
                 notes=["95% CI: percentile bootstrap over the resampled traces (pairs kept together).",
                        "published, S/L swapped: the published value of the opposite policy for P, Q and A "
                        "(SPF<->LPF, SQF<->LQF, SAF<->LAF)."])


def table_bandit_mapping(rows: list[dict[str, Any]]) -> Table:
    return Table(["labels of the published table", "values", "mean |diff| (pp)", "same sign %", "correlation",
                  "traces with the same best policy"],
                 [[r["mapping"], r["n"], r["mean_abs_diff"], r["sign_agreement"], r["correlation"],
                   f"{r['same_best']} of {r['traces']}"] for r in rows],
                 title="online-bandit Table 2: which reading of its labels matches ours", default_digits=2,
                 notes=["same sign: both below -1, both within +-1, or both above +1 (percentage points)."])


# ----------------------------------------------------------------- claims --

def table_claims(res: dict[str, Any], p: Params) -> Table:
    rows = []
    lel: LelongResult | None = res.get("lelong")
    if lel is not None:
        b = lel.best
        src, text, pub = CLAIMS["lelong_best_gain"]
        ci = _ci(1 - b["avg_ci_high"], 1 - b["avg_ci_low"], 1, 100)
        rows.append([src, text.replace("KTH-SP2", lel.trace), pub, -_pct(b["avg_mean"] - 1),
                     f"EASY-{b['primary']}-{b['backfill']}, CI {ci}"])
    th: list[ThesisTrace] | None = res.get("thesis")
    if th:
        for key, (v, where) in thesis_claims(th).items():
            src, text, pub = CLAIMS[key]
            rows.append([src, text, pub, v, where])
    return Table(["source", "claim", "published", "ours", "where"], rows, default_digits=1,
                 title="Claims of the papers' text, checked",
                 notes=["gains are positive when the policy beats FCFS; 'SAF divides ... by' = FCFS's count "
                        "over SAF's."])
