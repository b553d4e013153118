"""The online-selection study's rows of the scorecard
(:mod:`schedlab.protocol.scorecard`): the two quantitative claims of online-bandit's
abstract.  (Its Table 2 is counted once, in the policies study.)  The paper
runs 7 logs; we have 5 of them, so "up to" is taken over ours."""
from __future__ import annotations

from ...protocol.scorecard import Row
from .params import MISSING_TRACES

PAPER = "online-bandit, abstract"


def _best(results, strategy: str):
    """(lowest ratio of the total waiting time to EASY-FCFS's, its trace and period) of a strategy."""
    best = None
    for r in results:
        for (s, q), (est, _lo, _hi) in r.table3.items():
            if s == strategy and (best is None or 1 + est < best[0]):
                best = (1 + est, r.name, q)
    return best


def rows(results, paper_arms: bool = True) -> list[Row]:
    """The rows; with other arms than the paper's 12 (``paper_arms`` false)
    they are shown but not compared: the strategies chose among other policies."""
    out: list[Row] = []
    names = ", ".join(r.name for r in results)
    why = f"unexplained (the paper's 'up to' is over 7 logs; {', '.join(MISSING_TRACES)} are not bundled)"
    if not paper_arms:
        why = ("not compared: the strategies chose among other policies than the paper's 12 "
               f"({', '.join(results[0].policies) if results else ''})")
    noisy = _best(results, "noisy")
    if noisy:
        out.append(Row(PAPER, "claim: noisy feedback divides the average waiting time by up to 2", names,
                       f"largest factor EASY-FCFS / noisy-selection total wait (best: {noisy[1]}, {noisy[2]})",
                       2.0, 1 / noisy[0] if noisy[0] > 0 else float("inf"), baseline=1.0, explanation=why,
                       comparable=paper_arms))
    bandit = _best(results, "bandit")
    if bandit:
        out.append(Row(PAPER, "claim: the bandit brings the average waiting time down to 40 % of EASY-FCFS's",
                       names, f"lowest ratio bandit-selection / EASY-FCFS total wait (%) (best: {bandit[1]}, "
                              f"{bandit[2]})", 40.0, 100 * bandit[0], baseline=100.0, explanation=why,
                       comparable=paper_arms))
    return out


