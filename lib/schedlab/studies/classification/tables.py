"""The tables of the classification study, the thesis' published values
(``published.toml``, read into :data:`PUBLISHED` and :data:`CLAIMS`)
beside ours."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import Table, load_published
from .analysis import TraceResult
from .params import MISSING_TRACES, THESIS_VARIANTS, VARIANT_LABELS, VARIANTS

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, ch. 6")


def _published() -> tuple[dict[str, Any], dict[str, tuple[str, str, float, float]]]:
    """:data:`PUBLISHED` and :data:`CLAIMS` from ``published.toml``."""
    doc = load_published("schedlab.studies.classification")
    pub: dict[str, Any] = {
        "table_6_1": dict(doc["table_6_1"]["traces"]),
        "table_6_4": {t: tuple(v) for t, v in doc["table_6_4"]["traces"].items()},
        "table_6_5": {t: tuple(v) for t, v in doc["table_6_5"]["traces"].items()},
        "table_6_6": {t: dict(v) for t, v in doc["table_6_6"]["traces"].items()},
        "fig_6_8": {k: doc["fig_6_8"][k] for k in ("where", "small_gain_max", "large_loss_max")},
    }
    claims = {name.removeprefix("claim_"): (c["where"], c["claim"], c["low"], c["high"])
              for name, c in doc.items() if name.startswith("claim_")}
    return pub, claims


#: Values printed in the thesis (``published.toml``), keyed by our registry
#: names ("SDSC_BLUE" of Table 6.5 is SDSC-BLUE); MetaCentrum is not
#: bundled.  ``table_6_1``: trace -> divider (s); ``table_6_4``: trace ->
#: overall (accuracy, precision, recall) in %; ``table_6_5``: trace -> (FL %,
#: FS %) as printed, "FL/(FL+TL)", "FS/(FS+TS)"; ``table_6_6``: trace ->
#: improvement (%) of the total bsld over EASY-FCFS: EASY++ as the thesis
#: measured it (``easypp``) [and as its authors did], Gaussier et al. [as they
#: did], classification-idempotent with FCFS and with SPF; ``fig_6_8``: the
#: largest gain of small jobs and loss of large jobs (%, §6.5.3).
#: :data:`CLAIMS`: claims of the thesis' text checked by the study, key ->
#: (where, claim, low, high) in %.
PUBLISHED, CLAIMS = _published()
#: The claim of thesis §6.5.3 (Fig. 6.8) on small and large jobs, as our outputs state it.
SMALL_LARGE_CLAIM = (f"thesis {PUBLISHED['fig_6_8']['where']}: small jobs gain up to "
                     f"{PUBLISHED['fig_6_8']['small_gain_max']:g} %, large jobs lose at most "
                     f"{PUBLISHED['fig_6_8']['large_loss_max']:g} %")

_SOURCE = "thesis: " + THESIS.split(", PhD")[0] + " ch. 6."


def _pub(table: str, trace: str, i=None):
    v = PUBLISHED[table].get(trace)
    if v is None or i is None:
        return v
    return v.get(i) if isinstance(v, dict) else v[i]


def table_6_4(res: Sequence[TraceResult]) -> Table:
    rows = []
    for r in res:
        o = r.overall
        rows.append([r.name, int(o["jobs"]), _pub("table_6_4", r.name, 0), o["accuracy"],
                     _pub("table_6_4", r.name, 1), o["precision"], _pub("table_6_4", r.name, 2), o["recall"]])
    names = {r.name for r in res}
    for t in PUBLISHED["table_6_4"]:
        if t not in names and t in MISSING_TRACES:
            a, p, rc = PUBLISHED["table_6_4"][t]
            rows.append([t, None, a, None, p, None, rc, None])
    return Table(["trace", "jobs", "accuracy % (thesis)", "accuracy %", "precision % (thesis)", "precision %",
                  "recall % (thesis)", "recall %"], rows, default_digits=1,
                 title="Overall classification quality (thesis §6.3.3, Table 6.4)",
                 notes=["counts TS, FS, TL, FL summed over the weeks with a classifier (week 1 on; week 0 is "
                        "all large); accuracy (TS+TL)/n, precision TS/(TS+FS), recall TS/(TS+FL).",
                        "MetaCentrum is not bundled: published values only.", _SOURCE])


def table_6_5(res: Sequence[TraceResult]) -> Table:
    rows = []
    names = [r.name for r in res] + [t for t in PUBLISHED["table_6_5"] if t in MISSING_TRACES]
    by = {r.name: r for r in res}
    for name in names:
        pub = PUBLISHED["table_6_5"].get(name)
        acc = _pub("table_6_4", name, 0)
        expected_acc = 100.0 - pub[0] - pub[1] if pub is not None else None
        o = by[name].overall if name in by else {}
        rows.append([name, pub[0] if pub else None, o.get("false_large"), o.get("false_large_of_all"),
                     pub[1] if pub else None, o.get("false_small"), o.get("false_small_of_all"), expected_acc, acc])
    return Table(["trace", "FL % (thesis)", "FL/(FL+TL) %", "FL/n %", "FS % (thesis)", "FS/(FS+TS) %", "FS/n %",
                  "100-FL-FS (thesis)", "accuracy % (thesis)"], rows, default_digits=2,
                 title="Classification errors (thesis §6.3.3.2, Table 6.5)",
                 notes=["the thesis prints FL/(FL+TL) and FS/(FS+TS); its Table 6.4 accuracy matches "
                        "100 - FL - FS, i.e. the errors as shares of all jobs (FL/n, FS/n), for most traces: "
                        "both readings are shown.", _SOURCE])


def table_totals(res: Sequence[TraceResult], variants=THESIS_VARIANTS) -> Table:
    rows = []
    for r in res:
        for pol in r.schedule.policy.values.tolist():
            row = [r.name, pol]
            for v in variants:
                row.append(r.total(pol, v))
            for v in variants[1:]:
                row.append(r.gain(pol, v, (pol, "base")))
            rows.append(row)
    cols = (["trace", "policy"] + [f"total bsld {VARIANT_LABELS[v]}" for v in variants]
            + [f"gain % {VARIANT_LABELS[v]}" for v in variants[1:]])
    return Table(cols, rows, default_digits=1, digits={c: 0 for c in cols if c.startswith("total")},
                 title="Total bounded slowdown per variant (thesis Fig. 6.9)",
                 notes=["total bsld: sum over all jobs of max((wait + d)/max(d, 10), 1); gain: 1 - total / total "
                        "of the base policy, in %."] + [f"{VARIANT_LABELS[v]}: {VARIANTS[v]}." for v in variants])


def table_gains(res: Sequence[TraceResult]) -> Table:
    """Compact: the gains (%) of classification-idempotent over the base
    policy, per trace and policy (the §6.5.1 claims)."""
    pols = list(res[0].schedule.policy.values.tolist()) if res else []
    rows = [[r.name] + [r.gain(p, "classification-idempotent", (p, "base")) for p in pols] for r in res]
    notes = [f"thesis §6.5.1, {k.split('_')[1]}: {CLAIMS[k][2]:g} to {CLAIMS[k][3]:g} %"
             for k in ("gain_FCFS", "gain_SPF", "gain_SAF")]
    return Table(["trace"] + pols, rows, default_digits=1,
                 title="Gain (%) of classification-idempotent over the base policy (total bsld)",
                 notes=["; ".join(notes) + "."])


def table_6_6(res: Sequence[TraceResult]) -> Table:
    rows = []
    names = [r.name for r in res]
    by = {r.name: r for r in res}
    for name in names + [t for t in PUBLISHED["table_6_6"] if t not in names]:
        pub = PUBLISHED["table_6_6"].get(name, {})
        r = by.get(name)
        have_spf = r is not None and "SPF" in r.schedule.policy.values.tolist()
        rows.append([name, pub.get("easypp"), pub.get("easypp_authors"),
                     r.gain("FCFS", "easy++") if r is not None else None, pub.get("gaussier_authors"),
                     pub.get("FCFS"), r.gain("FCFS", "classification-idempotent") if r is not None else None,
                     pub.get("SPF"), r.gain("SPF", "classification-idempotent") if have_spf else None])
    return Table(["trace", "EASY++ (thesis)", "EASY++ (authors)", "EASY++", "Gaussier et al. (authors)",
                  "FCFS-CI (thesis)", "FCFS-CI", "SPF-CI (thesis)", "SPF-CI"], rows, default_digits=0,
                 title="Improvement (%) of the total bsld over EASY-FCFS (thesis Table 6.6)",
                 notes=["CI: classification-idempotent.  EASY++ here: EASY-FCFS-SJBF on EASY++ predictions "
                        "with incremental corrections (Tsafrir et al.), with the same threshold.  '(authors)': the values the original "
                        "papers reported, as quoted by the thesis; Gaussier et al.'s method is the subject of "
                        "the runtime-prediction study.", _SOURCE])


def table_small_large(res: Sequence[TraceResult]) -> Table:
    rows = []
    for r in res:
        s = r.schedule
        for pol in s.policy.values.tolist():
            def v(var, cls):
                return float(s[f"mean_bsld_{cls}"].sel(policy=pol, variant=var))
            sb, sc = v("base", "small"), v("classification-idempotent", "small")
            lb, lc = v("base", "large"), v("classification-idempotent", "large")
            rows.append([r.name, pol, sb, sc, 100 * (sc / sb - 1) if sb > 0 else None,
                         lb, lc, 100 * (lc / lb - 1) if lb > 0 else None])
    return Table(["trace", "policy", "small: base", "small: CI", "small change %", "large: base", "large: CI",
                  "large change %"], rows, default_digits=1,
                 title="Mean bsld of small and large jobs (thesis Fig. 6.8)",
                 notes=["small / large: true classes (p <= divider of the job's week); CI: "
                        f"classification-idempotent.  {SMALL_LARGE_CLAIM}."])


def table_dividers(res: Sequence[TraceResult]) -> Table:
    rows = []
    for r in res:
        a = r.divider_summary()
        rows.append([r.name, r.prepared.n_weeks, PUBLISHED["table_6_1"].get(r.name), a["divider_trace_s"],
                     a["divider_weekly_min_s"], a["divider_weekly_median_s"], a["divider_weekly_max_s"],
                     a["predicted_small"], a["false_small"], a["killed_at_divider"]])
    return Table(["trace", "weeks", "divider (s, thesis Table 6.1)", "median p (s)", "weekly min (s)",
                  "weekly median (s)", "weekly max (s)", "classified small", "false small",
                  "killed at their week's divider"], rows, default_digits=0,
                 title="Dividers, week by week, and the jobs killed at them",
                 notes=["weekly divider: median runtime of the jobs known at the start of the week; it labels "
                        "the week's training data and true classes, and a job classified small that week is "
                        "killed at it (classification-idempotent).",
                        "false small: classified small, p > its week's divider; killed: classified small and "
                        "min(p, p~) > its week's divider (a false small job whose request is below the "
                        "divider is cut at p~ instead), requeued as large under every policy."])


def table_weekly_summary(res: Sequence[TraceResult]) -> Table:
    rows = []
    for r in res:
        w = r.weekly
        with np.errstate(all="ignore"):
            rows.append([r.name, r.prepared.n_weeks, int(np.asarray(r.classify.train_jobs)[-1]),
                         float(np.nanmedian(w["accuracy"][1:])), float(np.nanmin(w["accuracy"][1:])),
                         float(np.nanmedian(w["precision"][1:])), float(np.nanmedian(w["recall"][1:])),
                         int(np.isnan(w["precision"][1:]).sum())])
    return Table(["trace", "weeks", "training jobs (last week)", "weekly accuracy median %",
                  "weekly accuracy min %", "weekly precision median %", "weekly recall median %",
                  "weeks without precision"], rows, default_digits=1,
                 title="Weekly classification quality (thesis Fig. 6.4)",
                 notes=["over weeks 1 on; precision is undefined in a week where no job is classified small."])
