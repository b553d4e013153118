"""The scorecard: every published-vs-ours comparison as one row, judged by
rules stated once (:data:`RULES`).

A study's ``compute`` returns ``"scorecard": [Row, ...]``; the driver
(:func:`schedlab.study.run_study`) writes them as ``tables/scorecard.csv``
and puts their counts by verdict under ``numbers.scorecard``, which the
paper's opening summary reads.  A row says which paper, table, figure or
claim it compares; the trace and metric; the published value; ours and our
95 % interval when there is one; the rule it was judged by; the verdict;
and the explanation: a measured cause, or "unexplained".  A row whose
comparison the run's protocol does not allow (``comparable=False``: e.g. a
profile that simulates a window of the log where the paper simulated all
of it) keeps its values but is not counted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

#: verdicts, best first
VERDICTS = ("reproduced", "close", "direction only", "not reproduced")
NOT_COMPARED = "not compared"

#: how each rule judges a row (stated once: the paper and the CSV quote it)
RULES = {
    "value": "reproduced: within 5 % of the published value, or the published value inside our 95 % "
             "interval; close: within 15 %; direction only (for a value with a baseline, e.g. a gain over "
             "EASY-FCFS-FCFS): ours on the same side of the baseline as the published value; else not "
             "reproduced",
    "claim": "reproduced: the published claim holds on our results (a yes/no test stated in the row); "
             "else not reproduced",
}
CLOSE, NEAR = 0.05, 0.15


@dataclass
class Row:
    """One comparison."""

    paper: str                      # "lelong2017 §3.4"
    item: str                       # "Table 1", "Fig. 8", "claim: ..."
    trace: str
    metric: str
    published: float | str | None
    ours: float | str | None
    low: float | None = None        # our 95 % interval
    high: float | None = None
    rule: str = "value"
    baseline: float | None = None   # "direction only" is judged against it (none: no such tier)
    holds: bool | None = None       # for a claim: whether it holds on our results
    explanation: str = "unexplained"
    comparable: bool = True
    verdict: str = field(default="", init=True)

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"scorecard rule must be one of {list(RULES)}, got {self.rule!r}")
        if not self.verdict:
            self.verdict = judge(self) if self.comparable else NOT_COMPARED
        if self.verdict == "reproduced" and self.explanation == "unexplained":
            self.explanation = ""           # nothing to explain

    def as_list(self) -> list:
        return [self.paper, self.item, self.trace, self.metric, self.published, self.ours, self.low, self.high,
                self.rule, self.verdict, self.explanation]


COLUMNS = ["paper", "item", "trace", "metric", "published", "ours", "ours 95% low", "ours 95% high", "rule",
           "verdict", "explanation"]


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def judge(row: Row) -> str:
    """The verdict of a row by its rule (:data:`RULES`)."""
    if row.rule == "claim":
        if row.holds is None:
            raise ValueError(f"a claim row needs holds=True/False: {row.item}")
        return VERDICTS[0] if row.holds else VERDICTS[-1]
    pub, ours = row.published, row.ours
    if not (_finite(pub) and _finite(ours)):
        return VERDICTS[-1]
    rel = abs(ours - pub) / abs(pub) if pub != 0 else (0.0 if ours == 0 else math.inf)
    inside = _finite(row.low) and _finite(row.high) and row.low <= pub <= row.high
    if rel <= CLOSE or inside:
        return "reproduced"
    if rel <= NEAR:
        return "close"
    ref = row.baseline
    if _finite(ref) and ((pub - ref) * (ours - ref) > 0 or (pub == ref and ours == ref)):
        return "direction only"
    return "not reproduced"


def counts(rows) -> dict:
    """Rows by verdict (the comparable ones), and how many were not compared."""
    out = {v: 0 for v in VERDICTS}
    out[NOT_COMPARED] = 0
    for r in rows:
        out[r.verdict] += 1
    out["compared"] = sum(out[v] for v in VERDICTS)
    return out


def table(rows, title: str = "Scorecard: every published value beside ours"):
    """The rows as a :class:`schedlab.studies.Table`."""
    from .studies import Table

    return Table(COLUMNS, [r.as_list() for r in rows], title=title, default_digits=2,
                 notes=[f"{name}: {text}" for name, text in RULES.items()]
                 + [f"{NOT_COMPARED}: the run's protocol differs from the paper's; shown, not counted."])
