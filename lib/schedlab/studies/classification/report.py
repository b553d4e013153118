"""The key numbers (``numbers.json``) and the sentences (``findings.json``)
of the classification study, for the paper and the notebook."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .analysis import TraceResult
from .cells import FEATURE_LABELS, FEATURES
from .params import DAY, MISSING_TRACES, POLICIES, THESIS_VARIANTS, VARIANT_LABELS, VARIANTS, Params
from .tables import CLAIMS, PUBLISHED, SMALL_LARGE_CLAIM


def _r(x, digits=2):
    return None if x is None or not np.isfinite(x) else round(float(x), digits)


def numbers(res: Sequence[TraceResult], p: Params, profile: str = "custom") -> dict[str, Any]:
    """The key numbers for the paper (``numbers.json``); ``profile``: the
    name of the profile they were computed with (the paper says it)."""
    names = [r.name for r in res]
    n: dict[str, Any] = {
        "profile": profile, "traces": names, "trace_list": ", ".join(names),
        "n_traces": len(names), "missing_traces": ", ".join(MISSING_TRACES),
        "policies": list(p.policies), "policy_list": ", ".join(p.policies),
        "threshold_s": p.threshold if p.threshold is not None else "none",
        "threshold_days": _r(p.threshold / DAY) if p.threshold is not None else "none",
        "trees": p.trees, "max_samples": p.max_samples if p.max_samples is not None else "all",
        "seed": p.seed, "weeks": p.weeks if p.weeks is not None else "all", "history": p.history,
        "divider_window": p.divider_window, "finish": p.finish, "features": len(FEATURES),
        "per_trace": {},
        "claims": {k: {"where": w, "claim": c, "low": lo, "high": hi} for k, (w, c, lo, hi) in CLAIMS.items()},
    }
    for r in res:
        o, a = r.overall, r.divider_summary()
        d: dict[str, Any] = {
            "weeks": r.prepared.n_weeks, "jobs": len(r.prepared.jobs), "finish_used": r.prepared.finish_rule,
            "classified_jobs": int(o["jobs"]),
            "accuracy_pct": _r(o["accuracy"]), "precision_pct": _r(o["precision"]), "recall_pct": _r(o["recall"]),
            "false_large_pct": _r(o["false_large"]), "false_small_pct": _r(o["false_small"]),
            "false_large_of_all_pct": _r(o["false_large_of_all"]),
            "false_small_of_all_pct": _r(o["false_small_of_all"]),
            **{k: (_r(v) if isinstance(v, float) else v) for k, v in a.items()},
        }
        pub = PUBLISHED["table_6_4"].get(r.name)
        if pub:
            d.update(published_accuracy_pct=pub[0], published_precision_pct=pub[1], published_recall_pct=pub[2])
        imp = np.asarray(r.classify.feature_importance.values)
        imp = imp[np.all(np.isfinite(imp), axis=1)]
        if imp.size:
            med = np.median(imp, axis=0)
            d["top_feature"] = FEATURE_LABELS[int(np.argmax(med))]
            d["top_feature_importance"] = _r(float(med.max()), 3)
        d["gain"] = {pol: {v: _r(r.gain(pol, v, (pol, "base")), 1) for v in VARIANTS if v != "base"}
                     for pol in r.schedule.policy.values.tolist()}
        d["gain_over_fcfs"] = {pol: {v: _r(r.gain(pol, v), 1) for v in VARIANTS}
                               for pol in r.schedule.policy.values.tolist()}
        d["fcfs_ci_gain_pct"] = _r(r.gain("FCFS", "classification-idempotent"), 1)
        if "SPF" in r.schedule.policy.values.tolist():
            d["spf_ci_gain_pct"] = _r(r.gain("SPF", "classification-idempotent"), 1)
        d["easypp_gain_pct"] = _r(r.gain("FCFS", "easy++"), 1)
        req = int(r.schedule.requeued.sel(policy="FCFS", variant="classification-idempotent"))
        d["requeued_fcfs"] = req
        d["requeued_fcfs_pct"] = _r(100.0 * req / max(len(r.prepared.jobs), 1))
        pub6 = PUBLISHED["table_6_6"].get(r.name)
        if pub6:
            d["published_fcfs_ci_gain_pct"] = pub6["FCFS"]
            d["published_spf_ci_gain_pct"] = pub6["SPF"]
            d["published_easypp_gain_pct"] = pub6["easypp"]
        n["per_trace"][r.name] = d
    # ranges over traces (the thesis' claims)
    if res:
        prec = [r.overall["precision"] for r in res]
        acc = [r.overall["accuracy"] for r in res]
        n.update(precision_min_pct=_r(np.nanmin(prec), 1), precision_max_pct=_r(np.nanmax(prec), 1),
                 accuracy_min_pct=_r(np.nanmin(acc), 1), accuracy_max_pct=_r(np.nanmax(acc), 1))
        for pol in dict.fromkeys(POLICIES + tuple(p.policies)):
            g = [r.gain(pol, "classification-idempotent", (pol, "base")) for r in res] if pol in p.policies else []
            n[f"ci_gain_{pol}_min_pct"] = _r(np.nanmin(g), 1) if g else None
            n[f"ci_gain_{pol}_max_pct"] = _r(np.nanmax(g), 1) if g else None
        diffs = [r.overall[k] - PUBLISHED["table_6_4"][r.name][i] for r in res if r.name in PUBLISHED["table_6_4"]
                 for i, k in enumerate(("accuracy", "precision", "recall"))]
        n["t64_cells"] = len(diffs)
        n["t64_mean_abs_diff_pp"] = _r(np.mean(np.abs(diffs)), 1) if diffs else None
        d66 = []
        for r in res:
            pub6 = PUBLISHED["table_6_6"].get(r.name)
            if pub6:
                d66.append(r.gain("FCFS", "classification-idempotent") - pub6["FCFS"])
                if "SPF" in r.schedule.policy.values.tolist():
                    d66.append(r.gain("SPF", "classification-idempotent") - pub6["SPF"])
        n["t66_cells"] = len(d66)
        n["t66_mean_abs_diff_pp"] = _r(np.mean(np.abs(d66)), 1) if d66 else None
        order = {}
        for r in res:
            for pol in r.schedule.policy.values.tolist():
                ranking = sorted(THESIS_VARIANTS, key=lambda v: r.total(pol, v))
                order[f"{r.name}/{pol}"] = ranking
        n["variant_best_counts"] = {v: sum(1 for rk in order.values() if rk[0] == v) for v in THESIS_VARIANTS}
        n["cells"] = len(order)
        ci_vs_base = [r.total(pol, "classification-idempotent") < r.total(pol, "base")
                      for r in res for pol in r.schedule.policy.values.tolist()]
        n["ci_better_than_base"] = int(sum(ci_vs_base))
        nk_vs_ci = [r.total(pol, "classification") >= r.total(pol, "classification-idempotent")
                    for r in res for pol in r.schedule.policy.values.tolist()]
        n["ci_better_than_no_kill"] = int(sum(nk_vs_ci))
    return n


def _fmt(x, digits=1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def findings(res: Sequence[TraceResult], p: Params) -> dict[str, str]:
    """Short Markdown statements computed from the results (the notebook's
    commentary holds no numbers)."""
    if not res:
        return {}
    out = {}
    parts = []
    for r in res:
        o = r.overall
        pub = PUBLISHED["table_6_4"].get(r.name)
        txt = (f"{r.name}: accuracy {_fmt(o['accuracy'])} %, precision {_fmt(o['precision'])} %, "
               f"recall {_fmt(o['recall'])} %")
        if pub:
            txt += f" (thesis {pub[0]}/{pub[1]}/{pub[2]})"
        parts.append(txt)
    out["classifier"] = "Overall classification quality, weeks 1 on: " + "; ".join(parts) + "."
    simulated = [r.name for r in res if r.prepared.finish_rule == "easy-fcfs"]
    if simulated:
        out["finish"] = (f"{', '.join(simulated)} record{'s' if len(simulated) == 1 else ''} no waiting time: "
                         "when a job finished (and so when its runtime is known to the classifier) is taken "
                         "from an EASY-FCFS simulation of the cleaned log, not from the machine's history.")
    tops = []
    for r in res:
        imp = np.asarray(r.classify.feature_importance.values)
        imp = imp[np.all(np.isfinite(imp), axis=1)]
        if imp.size:
            med = np.median(imp, axis=0)
            order = np.argsort(-med)[:3]
            tops.append(f"{r.name}: " + ", ".join(f"{FEATURE_LABELS[j]} ({med[j]:.2f})" for j in order))
    if tops:
        out["importance"] = "Highest median weekly importances -- " + "; ".join(tops) + "."
    pols = list(res[0].schedule.policy.values.tolist())
    gains = []
    for pol in pols:
        g = [r.gain(pol, "classification-idempotent", (pol, "base")) for r in res]
        claim = CLAIMS.get(f"gain_{pol}")
        txt = f"{pol} {_fmt(np.nanmin(g), 0)} to {_fmt(np.nanmax(g), 0)} %"
        if claim:
            txt += f" (thesis {claim[2]:g} to {claim[3]:g} %)"
        gains.append(txt)
    n_cells = len(res) * len(pols)
    better = sum(r.total(pol, "classification-idempotent") < r.total(pol, "base") for r in res for pol in pols)
    nokill = sum(r.total(pol, "classification") < r.total(pol, "base") for r in res for pol in pols)
    killbest = sum(r.total(pol, "classification-idempotent") <= r.total(pol, "classification")
                   for r in res for pol in pols)
    out["scheduling"] = (f"Classification-idempotent lowers the total bsld of the base policy in {better} of "
                         f"{n_cells} (trace, policy) cells; its gain ranges over the traces: " + "; ".join(gains)
                         + f". Without killing, classification still improves on the base policy in {nokill} of "
                         f"{n_cells} cells, and killing does at least as well as not killing in {killbest}.")
    ranks = {v: 0 for v in THESIS_VARIANTS}
    for r in res:
        for pol in pols:
            ranks[min(THESIS_VARIANTS, key=lambda v: r.total(pol, v))] += 1
    cc = sum(r.total(pol, "class-clairvoyant") <= r.total(pol, "classification-idempotent") for r in res
             for pol in pols)
    out["clairvoyant"] = ("Lowest total bsld per cell: " + ", ".join(f"{VARIANT_LABELS[v]} {k}" for v, k in
                                                                       ranks.items() if k)
                          + f" (of {n_cells}); class-clairvoyant is at least as good as classification-idempotent "
                            f"in {cc} of {n_cells} cells.")
    sl = []
    for r in res:
        for pol in pols:
            s = r.schedule
            sb = float(s.mean_bsld_small.sel(policy=pol, variant="base"))
            sc = float(s.mean_bsld_small.sel(policy=pol, variant="classification-idempotent"))
            lb = float(s.mean_bsld_large.sel(policy=pol, variant="base"))
            lc = float(s.mean_bsld_large.sel(policy=pol, variant="classification-idempotent"))
            sl.append((100 * (sc / sb - 1) if sb > 0 else np.nan, 100 * (lc / lb - 1) if lb > 0 else np.nan))
    sl = np.array(sl)
    out["small_large"] = (f"With classification-idempotent, the mean bsld of the small jobs changes by "
                          f"{np.nanmin(sl[:, 0]):+.0f} to {np.nanmax(sl[:, 0]):+.0f} % and that of the large jobs by "
                          f"{np.nanmin(sl[:, 1]):+.0f} to {np.nanmax(sl[:, 1]):+.0f} % over the (trace, policy) cells "
                          f"({SMALL_LARGE_CLAIM}).")
    t66 = []
    for r in res:
        pub6 = PUBLISHED["table_6_6"].get(r.name)
        if pub6:
            t66.append(f"{r.name} FCFS-CI {_fmt(r.gain('FCFS', 'classification-idempotent'), 0)} % (thesis "
                       f"{pub6['FCFS']}), EASY++ {_fmt(r.gain('FCFS', 'easy++'), 0)} % (thesis {pub6['easypp']})")
    if t66:
        out["table_6_6"] = "Against EASY-FCFS: " + "; ".join(t66) + "."
    dv = []
    for r in res:
        a = r.divider_summary()
        dv.append(f"{r.name}: weekly {_fmt(a['divider_weekly_min_s'], 0)}-{_fmt(a['divider_weekly_max_s'], 0)} s, "
                  f"{a['killed_at_divider']} of {a['predicted_small']} jobs classified small killed and requeued "
                  f"({a['false_small']} false small)")
    out["dividers"] = ("Each job classified small is killed at the divider of its week -- " + "; ".join(dv)
                       + ".")
    return out
