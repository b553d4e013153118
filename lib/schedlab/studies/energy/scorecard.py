"""The energy study's rows of the scorecard (:mod:`schedlab.protocol.scorecard`):
thesis ch. 7's class shares (§7.4.6, Fig. 7.12; §7.5), published in words
("around half", "a quarter", "around 75 %"), beside ours.

Ours are not the thesis' unit: without dahu's job table, a profile is a
change-point segment of one processor's power signal (``profiles.method``),
not a job.  Each row says so and gives the measured spread of the same share
over the three ways of cutting profiles (segments, episodes, windows) and
over the periodicity threshold: how much the unit and the threshold the
thesis does not scale can move it."""
from __future__ import annotations

from typing import Any

from ...protocol.scorecard import Row

SOURCE = "thesis §7.4.6"


def _spread(doc: dict, key: str) -> tuple[float, float] | None:
    methods = doc.get("methods") or {}
    vals = [m[key] for m in methods.values() if isinstance(m, dict) and key in m]
    return (min(vals), max(vals)) if vals else None


def rows(doc: dict[str, Any]) -> list[Row]:
    thesis, shares = doc.get("thesis") or {}, doc.get("shares") or {}
    count, duration = shares.get("count") or {}, shares.get("duration") or {}
    if not count:
        return []
    unit = (f"ours: {doc.get('profiles', {}).get('classified', 0)} profiles cut by "
            f"{doc.get('profiles', {}).get('method', '?')} from {doc.get('data', {}).get('hosts', '?')} processors' "
            f"RAPL signal over {doc.get('data', {}).get('days', 0):.0f} days, not the thesis' "
            f"{thesis.get('jobs', '?')} jobs (dahu's job table is not public)")
    per = (doc.get("sensitivity") or {}).get("periodicity") or {}

    def why(key: str, extra: str = "") -> str:
        s = _spread(doc, key)
        spread = f"; over the three ways of cutting profiles {s[0]:.1f}-{s[1]:.1f} %" if s else ""
        return unit + spread + extra + "; the difference that remains is unexplained"

    out = []
    if "predictable_pct" in thesis:
        extra = (f"; over periodicity thresholds {per['min']:.1f}-{per['max']:.1f} %" if per.get("min") is not None
                 else "")
        out.append(Row(SOURCE, "Fig. 7.12: predictable jobs", "dahu", "predictable (constant or periodic), % of count",
                       thesis["predictable_pct"], count.get("predictable"),
                       explanation=why("count_predictable", extra)))
        out.append(Row("thesis §7.5", "claim: predictable share of execution time", "dahu",
                       "predictable, % of duration", thesis["predictable_pct"], duration.get("predictable"),
                       explanation=why("duration_predictable")))
    prof = doc.get("profiles") or {}
    if prof.get("cut"):
        # thesis §7.4.1 (Fig. 7.3a): the jobs its sample discards; ours are profiles of node signals, which
        # have neither a "job too short to run a minute" nor a job with no measurement
        not_jobs = (unit + ": a profile is cut from a continuous signal, so the thesis' filters of jobs (shorter "
                    "than a minute, no measurement) have no counterpart; shown, not compared")
        for label, pub, key in (("too short (< 1 min), % of jobs", 41.8, "too_short"),
                                ("missing energy measurements, % of jobs", 18.0, "missing_data")):
            out.append(Row("thesis §7.4.1", "text: Fig. 7.3a, jobs discarded from the sample", "dahu", label, pub,
                           100 * prof.get(key, 0) / prof["cut"], comparable=False, explanation=not_jobs))
    if "constant_pct" in thesis:
        out.append(Row(SOURCE, "Fig. 7.12: constant jobs", "dahu", "constant, % of count", thesis["constant_pct"],
                       count.get("constant"), explanation=why("count_constant")))
    if "periodic_pct" in thesis:
        out.append(Row(SOURCE, "Fig. 7.12: periodic jobs", "dahu", "periodic, % of count", thesis["periodic_pct"],
                       count.get("periodic"),
                       explanation=why("count_periodic", "; the thesis' periodicity threshold (1) is on a periodogram "
                                                         "whose scaling it does not give (ours: a share of the variance)")))
    return out


