"""The classification study's rows of the scorecard
(:mod:`schedlab.protocol.scorecard`): thesis Tables 6.4-6.6 per trace and the
claims of chapter 6's text (the ranges of §6.1 and §6.5.1, Fig. 6.8's
small and large jobs)."""
from __future__ import annotations

import dataclasses

import numpy as np

from ...protocol.scorecard import Axis, Computed, Reading, Row, identify
from .params import THESIS_VARIANTS, VARIANTS
from .tables import CLAIMS, PUBLISHED

CI = "classification-idempotent"


#: Table 6.5 is not identified (issue 42): the reading and its fit rows were introduced together.
T65_NOT_IDENTIFIED = ("the reading 'of all jobs' and the fit rows (KTH-SP2) were introduced in the same commit "
                      "(dae3643), so the fit was not declared before the held-out values were computed; on the "
                      "held-out rows the reading brings 2 of 8 to close, below the rule's half")
T65_AXES = "the one axis (shares of the true class / of all jobs) was added with the fit rows, in dae3643"
#: The same as data (DESIGN §10.5, enforced by identify()).
T65_COMPUTED = Computed("dae3643", "2026-11-26T17:33:35+00:00")
T65_AXIS_LIST = (Axis("errors as shares of the true class / of all jobs", "dae3643", "2026-11-26T17:33:35+00:00"),)


def _thesis_forest(p) -> bool:
    """Whether the run's forests are the thesis' (scikit-learn's defaults:
    100 trees, each on a bootstrap sample of every training job)."""
    return p.trees >= 100 and p.max_samples is None


def _why(p) -> str:
    return ("unexplained" if _thesis_forest(p) else
            f"not compared: this run's forests are smaller than the thesis' ({p.trees} trees of "
            f"{p.max_samples if p.max_samples is not None else 'all'} samples; the thesis: 100 trees of all)")


def rows(res, p) -> list[Row]:
    """The rows; all of them "not compared" when the forests are not the
    thesis' (every value of the chapter goes through the classifier)."""
    out = _rows(res, p)
    if _thesis_forest(p):
        return out
    return [dataclasses.replace(r, comparable=False, verdict="") for r in out]


def _rows(res, p) -> list[Row]:
    out: list[Row] = []
    why = _why(p)
    for r in res:
        o = r.overall
        pub = PUBLISHED["table_6_4"].get(r.name)
        if pub:
            w = r.weekly
            for i, key in enumerate(("accuracy", "precision", "recall")):
                med = float(np.nanmedian(w[key][1:])) if np.isfinite(w[key][1:]).any() else float("nan")
                out.append(Row("thesis §6.3.3.1", "Table 6.4", r.name, f"{key} (%)", pub[i], o[key], explanation=why,
                               readings=[Reading("weekly median", WEEKLY_MEDIAN, med)] if np.isfinite(med) else []))
        pub = PUBLISHED["table_6_5"].get(r.name)
        if pub:
            for i, (key, label) in enumerate((("false_large", "false large FL/(FL+TL) (%)"),
                                              ("false_small", "false small FS/(FS+TS) (%)"))):
                out.append(Row("thesis §6.3.3.2", "Table 6.5", r.name, label, pub[i], o[key], explanation=why,
                               reading="errors as shares of their true class (the caption: '% of Large jobs are "
                                       "misclassified')",
                               readings=[Reading("of all jobs", "errors as shares of all jobs (FL/n, FS/n), which "
                                                 "Table 6.4's accuracy = 100 - FL - FS implies",
                                                 o.get(f"{key}_of_all"))]))
        pub = PUBLISHED["table_6_6"].get(r.name)
        pols = r.schedule.policy.values.tolist()
        variants = r.schedule.variant.values.tolist()
        if pub and pub.get("easypp") is not None:
            row = Row("thesis §6.6", "Table 6.6", r.name, "total bsld improvement over EASY-FCFS, EASY++ (%)",
                      pub["easypp"], r.gain("FCFS", "easy++"), baseline=0.0, source="table_6_6", explanation=why)
            if why == "unexplained" and row.by_rule not in ("reproduced", "close"):
                row.explanation = ("unexplained; no other reading computed: the study's readings are of the classes "
                                   "(classification, idempotent, clairvoyant) and EASY++ has none; the thesis' "
                                   "column differs from the EASY++ authors' own value on this trace too (EASY++ "
                                   "(authors) in table_6_6); gaussier2015 Table 6's EASY++ rows try the "
                                   "corrections (06-runtime-prediction)")
            out.append(row)
        if pub:
            for pol in ("FCFS", "SPF"):
                if pol in pols and pub.get(pol) is not None:
                    rds = [Reading(v, f"{v} instead of classification-idempotent: {VARIANTS[v]}", r.gain(pol, v))
                           for v in ("classification", "class-clairvoyant") if v in variants]
                    out.append(Row("thesis §6.6", "Table 6.6", r.name,
                                   f"total bsld improvement over EASY-FCFS, {pol}-CI (%)", pub[pol], r.gain(pol, CI),
                                   baseline=0.0, explanation=why, readings=rds))
    t65 = [r for r in out if r.item == "Table 6.5"]
    if t65:
        identify(t65, group="thesis Table 6.5: errors as shares of what", fit=lambda r: r.trace == FIT_TRACE,
                 fit_label=f"the {FIT_TRACE} rows of Table 6.5", not_identified=T65_NOT_IDENTIFIED,
                 axes_before_fit=T65_AXES, axes=T65_AXIS_LIST, computed=T65_COMPUTED)
    out += text_rows(res, why)
    if not res:
        return out
    names = ", ".join(r.name for r in res)
    pols = res[0].schedule.policy.values.tolist()
    for key, (where, claim, low, high) in CLAIMS.items():
        reads = []
        if key == "precision":
            vals = [r.overall["precision"] for r in res]
            med = [float(np.nanmedian(r.weekly["precision"][1:])) for r in res
                   if np.isfinite(r.weekly["precision"][1:]).any()]
            if len(med) == len(res):
                reads.append(Reading("weekly median", WEEKLY_MEDIAN, f"{min(med):.0f} to {max(med):.0f}",
                                     holds=all(low <= v <= high for v in med)))
        elif key.startswith("gain_") and key[5:] in pols:
            pol = key[5:]
            vals = [r.gain(pol, CI, (pol, "base")) for r in res]
        else:
            continue
        vals = [v for v in vals if np.isfinite(v)]
        if vals:
            if key.startswith("gain_"):
                for v_name, v_text in (("classification", "classes from the classifier, false small jobs run to "
                                        "completion (not killed at the divider)"),
                                       ("class-clairvoyant", "true classes (a perfect classifier)")):
                    other = [r.gain(pol, v_name, (pol, "base")) for r in res]
                    other = [v for v in other if np.isfinite(v)]
                    if other and v_name in res[0].schedule.variant.values.tolist():
                        reads.append(Reading(v_name, f"{v_name} instead of classification-idempotent: {v_text}",
                                             f"{min(other):.0f} to {max(other):.0f}",
                                             holds=all(low <= v <= high for v in other)))
            out.append(Row(f"thesis {where}", f"claim: {claim} between {low:g} and {high:g} % on every trace",
                           names, claim, f"{low:g} to {high:g}", f"{min(vals):.0f} to {max(vals):.0f}",
                           rule="claim", holds=all(low <= v <= high for v in vals), explanation=why,
                           readings=reads))
    fs_all = [r.overall["false_small_of_all"] for r in res if np.isfinite(r.overall["false_small_of_all"])]
    if fs_all:
        reads = [Reading("mean over the traces", "the false small jobs' share averaged over the traces instead "
                         "of the largest", f"{np.mean(fs_all):.1f}", holds=float(np.mean(fs_all)) <= 4.0)]
        killed = [100.0 * float(r.schedule.requeued.sel(policy=pol, variant=CI)) / max(len(r.prepared.jobs), 1)
                  for r in res for pol in r.schedule.policy.values.tolist()
                  if "requeued" in r.schedule and CI in r.schedule.variant.values.tolist()]
        if killed:
            reads.append(Reading("jobs restarted", "the jobs actually killed at the divider and requeued "
                                 "(classification-idempotent), % of all jobs, largest over (trace, policy)",
                                 f"{max(killed):.1f}", holds=max(killed) <= 4.0))
        out.append(Row("thesis §6.6", "claim: only false small jobs are restarted, 2-4 % of all jobs at most",
                       names, "false small jobs, % of all jobs (largest over the traces)", "<= 4",
                       f"{max(fs_all):.1f}", rule="claim", holds=max(fs_all) <= 4.0, explanation=why,
                       readings=reads))
    variants = res[0].schedule.variant.values.tolist()
    if all(v in variants for v in ("base", CI, "runtime-clairvoyant")):
        cells = [(r, pol) for r in res for pol in pols]
        ok = [(r.name, pol) for r, pol in cells
              if r.total(pol, CI) < r.total(pol, "base")
              and r.total(pol, "runtime-clairvoyant") <= min(r.total(pol, v) for v in variants
                                                              if v in THESIS_VARIANTS)]
        reads = []
        if "classification" in variants:
            ok2 = [(r.name, pol) for r, pol in cells
                   if r.total(pol, "classification") < r.total(pol, "base")
                   and r.total(pol, "runtime-clairvoyant") <= min(r.total(pol, v) for v in variants
                                                                  if v in THESIS_VARIANTS)]
            reads.append(Reading("classification", "the classification whose false small jobs run to completion "
                                 "instead of the idempotent one", f"{len(ok2)} of {len(cells)}",
                                 holds=4 * len(ok2) >= 3 * len(cells)))
        out.append(Row("thesis §6.6", "claim: Fig. 6.9, in general base >= classification-idempotent > "
                       "runtime-clairvoyant (the best)", names,
                       "(trace, policy) cells where the idempotent classification beats base and clairvoyant "
                       "runtimes are best (test: at least 3 in 4)", "in general",
                       f"{len(ok)} of {len(cells)}", rule="claim", holds=4 * len(ok) >= 3 * len(cells),
                       explanation=why, readings=reads))
    small, large = [], []
    for r in res:
        s = r.schedule
        for pol in pols:
            sb, sc = (float(s.mean_bsld_small.sel(policy=pol, variant=v)) for v in ("base", CI))
            lb, lc = (float(s.mean_bsld_large.sel(policy=pol, variant=v)) for v in ("base", CI))
            if sb > 0 and lb > 0:
                small.append(100 * (1 - sc / sb))
                large.append(100 * (lc / lb - 1))
    f68 = PUBLISHED["fig_6_8"]
    if small:
        out.append(Row(f"thesis {f68['where']}", "Fig. 6.8: the largest gain of the small jobs' mean bsld", names,
                       "largest gain over the (trace, policy) cells (%)", f68["small_gain_max"], max(small),
                       baseline=0.0, explanation=why))
        out.append(Row(f"thesis {f68['where']}", "claim: Fig. 6.8, the large jobs' mean bsld never worsens by more "
                       f"than {f68['large_loss_max']:g} %", names, "largest loss over the (trace, policy) cells (%)",
                       f"<= {f68['large_loss_max']:g}", f"{max(large):.0f}", rule="claim",
                       holds=max(large) <= f68["large_loss_max"], explanation=why))
    return out


#: the rows a reading may be identified on (declared before measuring): the thesis' first trace
FIT_TRACE = "KTH-SP2"
#: a reading of the classifier's scores: the median over the weeks of each week's score (thesis Fig. 6.4
#: shows them week by week) instead of the score of the pooled counts
WEEKLY_MEDIAN = ("the median over the weeks of each week's score (thesis Fig. 6.4, table weekly) instead of the "
                 "score of the counts pooled over the weeks")
#: thesis §6.5.5: class-clairvoyant SPF over base SPF (%), on the two traces where it helped least
CLAIRVOYANT_SPF = {"SDSC-SP2": 10.0, "KTH-SP2": 13.0}
#: thesis §6.6: the EASY++ improvements the thesis quotes (Tsafrir et al.'s own), 29-47 %
EASYPP_RANGE = (29.0, 47.0)
#: the four traces both works used (thesis §6.6)
EASYPP_TRACES = ("SDSC-BLUE", "SDSC-SP2", "KTH-SP2", "CTC-SP2")


def text_rows(res, why: str) -> list[Row]:
    """thesis §6.5.5 (class-clairvoyant SPF only 10 % and 13 % better than base
    SPF on SDSC-SP2 and KTH-SP2) and §6.6 (EASY++ improves the total bsld over
    EASY-FCFS by 29-47 % on the four traces both works used)."""
    out: list[Row] = []
    by = {r.name: r for r in res}
    for t, pub in CLAIRVOYANT_SPF.items():
        r = by.get(t)
        variants = r.schedule.variant.values.tolist() if r is not None else []
        if r is not None and "SPF" in r.schedule.policy.values.tolist() and "class-clairvoyant" in variants:
            # the sentence read as about the classifier's classes rather than the true ones
            rds = [Reading(v, f"{v} SPF instead of class-clairvoyant: {VARIANTS[v]}",
                           r.gain("SPF", v, ("SPF", "base")))
                   for v in (CI, "classification") if v in variants]
            out.append(Row("thesis §6.5.5", "text: class-clairvoyant improves on base SPF by only 10 % and 13 %", t,
                           "total bsld improvement of class-clairvoyant SPF over base SPF (%)", pub,
                           r.gain("SPF", "class-clairvoyant", ("SPF", "base")), baseline=0.0, explanation=why,
                           readings=rds))
    four = [by[t] for t in EASYPP_TRACES if t in by and "easy++" in by[t].schedule.variant.values.tolist()]
    if len(four) == len(EASYPP_TRACES):
        gains = [r.gain("FCFS", "easy++") for r in four]
        for label, pub, ours in (("lowest", EASYPP_RANGE[0], min(gains)), ("highest", EASYPP_RANGE[1], max(gains))):
            out.append(Row("thesis §6.6", "text: EASY++ improves the total bsld by 29-47 % (as quoted)",
                           ", ".join(EASYPP_TRACES), f"{label} EASY++ improvement over EASY-FCFS (%)", pub, ours,
                           baseline=0.0, source="table_6_6",
                           explanation=why if why not in ("", "unexplained") else
                           "unexplained; the thesis quotes the EASY++ authors' own values (column EASY++ (authors)), "
                           "from other simulations"))
    return out


