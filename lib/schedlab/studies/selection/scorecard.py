"""The online-selection study's rows of the scorecard
(:mod:`schedlab.protocol.scorecard`): the two quantitative claims of online-bandit's
abstract.  (Its Table 2 is counted once, in the policies study.)  The paper
runs 7 logs; we have 5 of them, so "up to" is taken over ours."""
from __future__ import annotations

import json
from pathlib import Path

from ...protocol.scorecard import Row
from .params import MISSING_TRACES
from .published import PUBLISHED_TABLE2

PAPER = "online-bandit, abstract"
#: The seeds' own selection code run beside the study's strategies on the same resamples
#: (tools/oracles/ocst_selection.py, issue 52 item 1): its provenance (ocst and obandit commits, commands,
#: resamples, date, CPU seconds) and, per log and period, Σ W(strategy) / Σ W(EASY-FCFS) under ocst and
#: under the engine.  CI has no ocst: the values are read from this file, never recomputed there.
ORACLE = Path(__file__).with_name("oracle.json")
#: Where the seeds' selection code departs from the paper's text (read in ocst 9f6d02f, src/bandit.ml and
#: src/simulate.ml): the candidate causes of a difference between it and ours.
OCST_DEPARTS = {
    "noisy": ("its noisy feedback re-simulates, at each period's start, the jobs started during the past period "
              "plus the queue, from an empty machine, backfilling by SQF, and scales each policy's period total "
              "by one factor in [0.8, 1.2] (the text: each job's wait by its own factor in [0.85, 1.15], the jobs "
              "submitted in the period); the system it schedules backfills in FCFS order without the threshold"),
    "bandit": ("its bandit is rewarded with the waits of the jobs started (not finished) in the period, each "
               "policy's count starting at 1; the system it schedules backfills in FCFS order without the "
               "threshold (the text: by the policy, the threshold leading both queues)"),
}
#: How close ours and the seeds' code must be to be called equal (a share of the seeds' value)
SAME = 0.05


def table2_bound() -> str:
    """What the paper's own Table 2 says about where its claims can come from: the logs on which a fixed
    policy halves EASY-FCFS's total wait (factor 2), and those on which one brings it to 40 % or less."""
    best = {t: min(row.values()) for t, row in PUBLISHED_TABLE2.items()}

    def logs(cut):
        return ", ".join(f"{t} ({v:+d} %)" for t, v in best.items() if v <= cut) or "none"
    return (f"the paper's own Table 2 has a fixed policy that halves EASY-FCFS's total wait only on {logs(-50)}, "
            f"and one at 40 % of it or less only on {logs(-60)}")


def oracle() -> dict | None:
    """The stored oracle readings (:data:`ORACLE`), or None when the file is absent."""
    return json.loads(ORACLE.read_text()) if ORACLE.exists() else None


def oracle_best(o: dict, strategy: str, who: str) -> tuple[float, str, str] | None:
    """(lowest Σ W(strategy) / Σ W(EASY-FCFS), its log, its period) under ``who`` ("ocst" or "engine")."""
    best = None
    for trace, rec in o["traces"].items():
        for key, ratio in rec["ratio"][who].items():
            s, period = key.split()
            if s == strategy and (best is None or ratio < best[0]):
                best = (ratio, trace, period)
    return best


def oracle_text(o: dict | None, strategy: str, as_factor: bool, published: float) -> str:
    """The row's measured cause: the seeds' code's value beside ours on the same resamples, and whether
    ours equals it (both then miss the paper) or differs (and where the codes differ)."""
    if o is None:
        return ("the seeds' code has no value here: tools/oracles/ocst_selection.py was not run (needs ocst's "
                "git history, tools/oracles/build_ocst_selection.sh)")
    oc, en = oracle_best(o, strategy, "ocst"), oracle_best(o, strategy, "engine")
    if oc is None or en is None:
        return f"the seeds' code has no value here: {ORACLE.name} holds no {strategy} runs"

    def val(r):
        return f"{1 / r:.2f}" if as_factor else f"{100 * r:.0f} %"
    runs = ", ".join(f"{t} {len(rec['resamples'])} x {rec['weeks']} weeks" for t, rec in o["traces"].items()
                     if any(k.startswith(strategy) for k in rec["ratio"]["ocst"]))
    # ours and the seeds' code on the same resamples, log and period by log and period
    pairs = [(rec["ratio"]["engine"][k] - r) for t, rec in o["traces"].items()
             for k, r in rec["ratio"]["ocst"].items() if k.split()[0] == strategy]
    same = o["traces"][oc[1]]["ratio"]["engine"][f"{strategy} {oc[2]}"]
    head = (f"the seeds' code (ocst {o['ocst_commit'][:7]}, its release for the paper, with obandit "
            f"{o['obandit_commit'][:7]}; {' '.join(o['commands'][oc[2]][strategy][:3 if strategy == 'noisy' else 2])}"
            f", Θ = 40 h; resamples: {runs}): {val(oc[0])} (best: {oc[1]}, {oc[2]}); ours on the same resamples "
            f"{val(same)} there (ours' best {val(en[0])}: {en[1]}, {en[2]}); over the {len(pairs)} log-period "
            f"pairs, ours minus the seeds' code is {100 * min(pairs):+.0f} to {100 * max(pairs):+.0f} points of "
            f"the ratio to EASY-FCFS")
    missing = "".join(f"; no run of the seeds' code on {log}: {why[strategy]}"
                      for log, why in o.get("not_run", {}).items() if strategy in why)
    gap = abs(same - oc[0]) / oc[0]
    pub = published if as_factor else published / 100
    miss = "miss" if (1 / oc[0] < pub if as_factor else oc[0] > pub) else "reach"
    if gap <= SAME:
        return (f"{head}: at the seeds' best, ours equals the seeds' code (within {100 * gap:.0f} % of the ratio) "
                f"and both {miss} the paper's {published:g}{'' if as_factor else ' %'} on these logs{missing}")
    return (f"{head}: at the seeds' best, ours differs from the seeds' code by {100 * gap:.0f} % of the ratio, and "
            f"the seeds' code {'also misses' if miss == 'miss' else 'reaches'} the paper's "
            f"{published:g}{'' if as_factor else ' %'}; the codes differ where {OCST_DEPARTS[strategy]}{missing}")


def _best(results, strategy: str):
    """(lowest ratio of the total waiting time to EASY-FCFS's, its trace and period) of a strategy."""
    best = None
    for r in results:
        for (s, q), (est, _lo, _hi) in r.table3.items():
            if s == strategy and (best is None or 1 + est < best[0]):
                best = (1 + est, r.name, q)
    return best


#: The claims' strategies, by the first words of their rows' items
CLAIMS = {"claim: noisy feedback": ("noisy", True, 2.0), "claim: the bandit brings": ("bandit", False, 40.0)}


def claim_explanation(item: str, o: dict | None) -> str:
    """A claim row's explanation (the study's rows and tools/scorecard_rescore.py write the same): the seeds'
    code's value and the measured cause, then what bounds the paper's 'up to'."""
    strategy, as_factor, published = next(v for k, v in CLAIMS.items() if item.startswith(k))
    return (f"{oracle_text(o, strategy, as_factor, published)}; the paper's 'up to' is over 7 logs, "
            f"{', '.join(MISSING_TRACES)} among them (not bundled); {table2_bound()}")


def rows(results, paper_arms: bool = True) -> list[Row]:
    """The rows; with other arms than the paper's 12 (``paper_arms`` false)
    they are shown but not compared: the strategies chose among other policies."""
    out: list[Row] = []
    names = ", ".join(r.name for r in results)
    o = oracle()
    other = ("not compared: the strategies chose among other policies than the paper's 12 "
             f"({', '.join(results[0].policies) if results else ''})")
    noisy = _best(results, "noisy")
    item = "claim: noisy feedback divides the average waiting time by up to 2"
    if noisy:
        out.append(Row(PAPER, item, names,
                       f"largest factor EASY-FCFS / noisy-selection total wait (best: {noisy[1]}, {noisy[2]})",
                       2.0, 1 / noisy[0] if noisy[0] > 0 else float("inf"), baseline=1.0,
                       explanation=claim_explanation(item, o) if paper_arms else other,
                       comparable=paper_arms))
    bandit = _best(results, "bandit")
    item = "claim: the bandit brings the average waiting time down to 40 % of EASY-FCFS's"
    if bandit:
        out.append(Row(PAPER, item,
                       names, f"lowest ratio bandit-selection / EASY-FCFS total wait (%) (best: {bandit[1]}, "
                              f"{bandit[2]})", 40.0, 100 * bandit[0], baseline=100.0,
                       explanation=claim_explanation(item, o) if paper_arms else other,
                       comparable=paper_arms))
    return out


