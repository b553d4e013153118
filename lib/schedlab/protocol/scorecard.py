"""The scorecard: every published-vs-ours comparison as one row, judged by
rules stated once (:data:`RULES`).

A study's ``compute`` returns ``"scorecard": [Row, ...]``; the driver
(:func:`schedlab.protocol.study.run_study`) writes them as ``tables/scorecard.csv``
and puts their counts by verdict under ``numbers.scorecard``, which the
paper's opening summary reads.  A row says which paper, table, figure or
claim it compares; the trace and metric; the published value; ours and our
95 % interval when there is one; the baseline a gain is measured from; the
rule it was judged by; the verdict; and the explanation: a measured cause,
or the readings tried and what each gave (a miss always, :func:`bare`; a row
that is not a miss may say only "unexplained", and the count says how many).

Two kinds of rows are shown but not counted: a row whose comparison the
run's protocol does not allow (``comparable=False``, e.g. a profile that
simulates a window of the log where the paper simulated all of it: "not
compared"), and a row that holds by construction (``construction=...``, e.g.
a machine size set from the paper: "by construction").

**Readings.**  The counted verdict is always the one under the paper's own
text (``reading`` states it when a choice had to be made).  A row may carry
other readings of the paper's protocol (:class:`Reading`: another week
cutting, another metric constant, another label map), computed by the study
beside the counted value.  :func:`identify` decides, for a group of rows,
whether one of them is *identified* (DESIGN §10): it is chosen on a declared
part of the rows only and must then move the group's other rows to
reproduced or close.  An identified reading is shown beside the counted
verdict and counted apart (:func:`counts` with ``identified=True``); a reading
chosen on every row explains nothing and is never reported as a cause.
"""
from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

#: verdicts of counted rows, best first
VERDICTS = ("reproduced", "close", "consistent, wide interval", "direction only", "direction only, magnitude off",
            "inconclusive", "not reproduced")
#: the verdicts that count as a match
GOOD = ("reproduced", "close")
NOT_COMPARED = "not compared"
BY_CONSTRUCTION = "by construction"
#: a row computed on a workload that differs from the paper's in a way the paper states (:data:`STATED_WORKLOADS`)
DIFFERENT_WORKLOAD = "different workload"
#: a row that describes the input (jobs, CPUs, span, mean runtime, listed jobs): not a result
WORKLOAD_DESCRIPTION = "workload description"
#: a row true by the algorithm's definition (e.g. thesis Proposition 1): not a result
PROPERTY = "property"
#: a row that repeats another row's comparison, or whose value another row fixes: counted once, there
COUNTED_ONCE = "counted once"
#: the rows that describe the input or the algorithm: shown on their own line, never in R+C
INPUTS = (WORKLOAD_DESCRIPTION, PROPERTY)
#: shown, never counted
UNCOUNTED = (NOT_COMPARED, BY_CONSTRUCTION, DIFFERENT_WORKLOAD, WORKLOAD_DESCRIPTION, PROPERTY, COUNTED_ONCE)
#: a row's role in its group of readings (:func:`identify`): chosen on ("fit"), predicted ("held-out"), or the
#: fitted log's other weeks ("held-out, same log": counted apart, not as a prediction), or in no group
ROLES = ("fit", "held-out", "held-out, same log", "none")

CLOSE, NEAR = 0.05, 0.15
#: an interval whose half-width exceeds this share of the published value is "wide"
WIDE = 0.25
#: a direction-only effect more than this factor from the published one (either way) is "magnitude off"
MAGNITUDE = 2.0
#: the share of held-out rows an identified reading must bring to reproduced or close
IDENTIFIED_SHARE = 0.5

#: how each rule judges a row (stated once: the paper and the CSV quote it)
RULES = {
    "value": "reproduced: within 5 % of the published value, or the published value inside our 95 % interval "
             "when that interval's half-width is at most 25 % of the published value; close: within 15 %; "
             "consistent, wide interval: the published value inside our interval, which is wider than that; "
             "for a value with a baseline (e.g. a gain over EASY-FCFS-FCFS, a ratio to 1), ours on the same "
             "side of the baseline as the published value is: inconclusive when our interval contains the "
             "baseline, direction only, magnitude off when our effect (ours - baseline) is more than twice or "
             "less than half the published effect, direction only otherwise; else not reproduced",
    "claim": "reproduced: the published claim holds on our results (a yes/no test stated in the row); "
             "else not reproduced",
    "description": "a value computed from the input log alone, without scheduling -- a statistic of the log's "
                   "recorded fields into which neither a schedule nor a method of the paper (a classifier, a "
                   "predictor) entered: the job counts, CPUs and span of a log, its runtimes and their median, the "
                   "shares of its jobs or of their areas by class -- is a \"workload description\": shown with its "
                   "verdict by the rule, never counted; each row states whether its value comes from the log alone "
                   "(the column \"from the log alone\"), and the rule applies to every row of every study by that "
                   "column",
    "comparability": "a row computed on a workload that differs from the paper's in a way the paper states (the "
                     "log's span, the machine size, logs the paper pools that this run does not simulate) is "
                     "\"different workload\": shown with its verdict by the rule, not counted; the stated "
                     "differences are listed once (schedlab.protocol.scorecard.STATED_WORKLOADS) and applied to "
                     "every row of every study; a stated span is no difference when the paper's job count is the "
                     "bundled file's (within 1 %), its CPUs those of a partition the file's header names, and no "
                     "window of the stated span holds that many jobs (rule 'same log': the description is the "
                     "whole log's, its span misstated)",
}
NOTES = {
    NOT_COMPARED: "the run's protocol differs from the paper's; shown, not counted",
    BY_CONSTRUCTION: "the value is an input set from the paper (e.g. the machine size); shown, not counted",
    DIFFERENT_WORKLOAD: "computed on a workload the paper states differently (span, machine size, pooled "
                        "logs): shown, not counted (rule 'comparability')",
    WORKLOAD_DESCRIPTION: "the row's value is computed from the input log alone, without scheduling (rule "
                          "'description'), not a result: shown on its own line, never in reproduced or close",
    PROPERTY: "the row holds by the algorithm's definition, not a result: shown on its own line, never in "
              "reproduced or close",
    COUNTED_ONCE: "the row repeats another row's comparison (same published value, same ours) or its value is "
                  "fixed by another row: counted once, there",
    "readings": "the counted verdict is the paper's own text; a reading is identified only when chosen on a "
                "declared part of a group's rows (role 'fit') and then bringing at least half of the group's "
                "other rows (role 'held-out') to reproduced or close (and more of them than the paper's text "
                "does); the count under identified readings takes the reading's verdict on held-out rows only "
                "(fit rows keep their text verdict; 'held-out, same log' rows are counted apart)",
    "intervals": "our 95 % intervals: percentile bootstrap over 10 or more resampled units; Student's t "
                 "(jackknife standard error, n - 1 degrees of freedom) below 10",
}


#: What the papers' table of logs states about a log (lelong2017 Table 3 = gaussier2015 Table 4 = online-bandit
#: Table 1, one table printed three times): its job count, CPUs and span in months.
@dataclass(frozen=True)
class StatedLog:
    jobs: int
    cpus: int
    months: float
    where: str


#: A bundled log's own figures, measured on its file (tests/test_scorecard.py recomputes each from the file):
#: the jobs in the file, the CPUs of each node partition its header names, its span in months of 30.4 days
#: (first to last submission, cleaned jobs) and the most cleaned jobs submitted within any window of a given
#: number of months (schedlab.studies.traces.scorecard.most_in_window).
@dataclass(frozen=True)
class BundledLog:
    jobs: int
    partitions: tuple
    months: float
    most_in_months: tuple       # ((months, most jobs in any window of that many months), ...)


#: The share by which a stated job count may differ from the file's and still be its count (the papers print
#: thousands: 312k for 312,826)
JOB_COUNT_TOLERANCE = 0.01


def same_log(stated: StatedLog, bundled: BundledLog) -> str:
    """The rule "same log" (part of rule "comparability"): a stated span shorter than the bundled log's does not
    make the workload differ when the statement cannot describe any cut of the log but does describe the whole:
    the stated job count is the file's (within :data:`JOB_COUNT_TOLERANCE`), the stated CPUs are the CPUs of
    one of the partitions the file's header names, and no window of the stated span holds the stated job count
    (so no cut of that span is the log the paper describes: the span is misstated, the log is ours).  Returns
    the reason, or "" when the rule does not apply (the stated span then stands as a difference)."""
    if stated.months >= 0.8 * bundled.months:
        return ""
    if abs(bundled.jobs - stated.jobs) > JOB_COUNT_TOLERANCE * stated.jobs or stated.cpus not in bundled.partitions:
        return ""
    most = dict(bundled.most_in_months).get(stated.months)
    if most is None or most >= (1 - JOB_COUNT_TOLERANCE) * stated.jobs:
        return ""
    return (f"the same log ({stated.where} states {stated.jobs / 1000:.0f}k jobs, {stated.cpus:,} CPUs, "
            f"{stated.months:g} months; the bundled file has {bundled.jobs:,} jobs on a {stated.cpus:,}-CPU "
            f"partition over {bundled.months:.1f} months, and no {stated.months:g}-month window of it holds more "
            f"than {most / 1000:.1f}k jobs: no cut of the stated span matches the stated job count, the "
            f"description is the whole log's with a misstated span; rule 'same log')")


#: The bundled logs the papers' table describes with a span that differs from the file's.
BUNDLED_LOGS = {
    # CEA-Curie-2011-2.1-cln.swf.gz: 312,826 jobs (data/traces.toml); header MaxProcs 93,312 = 80,640 thin +
    # 11,520 fat + 1,152 hybrid cores; cleaned jobs submitted over 8.34 months; at most 165,888 in 3 months
    "CEA-Curie": BundledLog(312_826, (93_312, 80_640, 11_520, 1_152), 8.34, ((3, 165_888),)),
}
_CURIE_STATED = {"lelong2017": "lelong2017 Table 3", "gaussier2015": "gaussier2015 Table 4",
                 "online-bandit": "online-bandit Table 1"}
#: The papers' stated descriptions of those logs.
STATED_LOGS = {paper: {"CEA-Curie": StatedLog(312_000, 80_640, 3, where)} for paper, where in _CURIE_STATED.items()}
#: Why a paper's log, stated with another span, is nonetheless the bundled one (rule "same log"), per paper and log.
SAME_LOG = {paper: {log: why for log, st in logs.items() if (why := same_log(st, BUNDLED_LOGS[log]))}
            for paper, logs in STATED_LOGS.items()}

#: How a paper's workload differs from ours, as the paper itself states it (rule "comparability"): per paper
#: (the first word of ``Row.paper``), a log named in a row's trace -> the stated difference.  A row whose
#: trace names such a log, for that paper, is "different workload".  A stated span is listed only when rule
#: "same log" (:func:`same_log`) does not apply to it.
_SPAN = ("the paper's {log} log spans {months:g} months ({where}: {cpus:,} CPUs, {jobs}k jobs, {months:g} months); "
         "the bundled log, which every study simulates whole, spans {ours:.1f} months")
STATED_WORKLOADS = {
    **{paper: {log: _SPAN.format(log=log, months=st.months, where=st.where, cpus=st.cpus, jobs=st.jobs // 1000,
                                 ours=BUNDLED_LOGS[log].months)
               for log, st in logs.items() if log not in SAME_LOG[paper]}
       for paper, logs in STATED_LOGS.items()},
    "lawson2005": {"CTC-SP2": "the paper simulates CTC-SP2 on 512 nodes (lawson2005 §3); the log's batch partition, "
                              "our m, is 338"},
}
#: Logs a paper pools over (a mean, a range, a claim over its logs) that no study simulates: a row over the
#: paper's logs (its trace names several logs, or says "over the logs"/"pairs of logs") is "different workload".
POOLED_UNBUNDLED = {
    "gaussier2015": ("Metacentrum",),
    "online-bandit": ("ANL-Intrepid", "UniLu-Gaia"),
}
_POOLED = re.compile(r",|\bover the logs\b|\bpairs of logs\b|\bover \d+ (?:traces|logs)\b|sweep's logs", re.I)
#: a trace field that pools the paper's logs without naming them
_GENERIC_POOLED = re.compile(r"\bover the logs\b|\bpairs of logs\b|\bover \d+ (?:traces|logs)\b|sweep's logs", re.I)


#: why a row computed without scheduling is outside the count (rule "description")
DESCRIBED = "computed from the input log alone, without scheduling: a description of the input, not a result"


def paper_key(paper: str) -> str:
    """The paper a row's ``paper`` names: its first word ("thesis §5.8" -> "thesis")."""
    return paper.split()[0].rstrip(",") if paper else ""


def workload_differs(paper: str, trace: str) -> str:
    """Why a row of ``paper`` on ``trace`` is computed on a workload that differs from the paper's in a way
    the paper states (rule "comparability"), or "" when it is not."""
    key = paper_key(paper)
    stated = STATED_WORKLOADS.get(key, {})
    why = [text for log, text in stated.items() if re.search(rf"\b{re.escape(log)}\b", trace)]
    if not why and stated and _GENERIC_POOLED.search(trace or ""):
        why = [f"the value pools the paper's logs, {log} among them: {text}" for log, text in stated.items()]
    missing = POOLED_UNBUNDLED.get(key)
    if missing and _POOLED.search(trace or ""):
        why.append(f"the paper's value is over its logs, {', '.join(missing)} among them, which this compendium "
                   f"does not simulate")
    return "; ".join(why)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass
class Reading:
    """Our value under another reading of the paper's protocol.

    ``name`` is a short key shared by every row of a group that has this
    reading; ``text`` says what the reading is.  For a claim row give
    ``holds``.  :func:`identify` fills ``verdict``, ``role`` ("fitted" or
    "predicted" for the reading it chose), ``identified`` and ``summary``."""

    name: str
    text: str
    ours: float | str | None = None
    low: float | None = None
    high: float | None = None
    holds: bool | None = None
    verdict: str = ""
    role: str = ""
    identified: bool = False
    summary: dict | None = field(default=None, repr=False)


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
    baseline: float | None = None   # the "direction only" tiers are judged against it (none: no such tier)
    holds: bool | None = None       # for a claim: whether it holds on our results
    explanation: str = "unexplained"
    comparable: bool = True
    construction: str = ""          # why the value holds by construction (an input set from the paper)
    reading: str = ""               # the counted reading, when the paper's text had to be read one way
    readings: list[Reading] = field(default_factory=list)
    source: str = ""                # the study's table the comparison comes from
    verdict: str = field(default="", init=True)
    by_rule: str = ""               # the verdict by the row's rule alone (before "not a result" verdicts)
    role: str = "none"              # its role in its group of readings (ROLES), set by identify()
    group: str = ""                 # that group's name
    log_only: bool = False          # the value comes from the input log alone, no schedule, no model (rule "description")

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"scorecard rule must be one of {list(RULES)}, got {self.rule!r}")
        if not self.verdict:
            if self.construction:
                self.verdict = BY_CONSTRUCTION
            else:
                self.verdict = judge(self) if self.comparable else NOT_COMPARED
        if not self.by_rule:            # a row not compared, or by construction, is not judged by the rule
            self.by_rule = self.verdict
        if self.verdict == "reproduced" and self.explanation == "unexplained":
            self.explanation = ""           # nothing to explain
        if self.log_only and self.verdict in VERDICTS:     # the description rule, before any other
            self.set_verdict(WORKLOAD_DESCRIPTION, DESCRIBED)
        # the comparability rule, on the rows this run compares (a row whose protocol here differs from the
        # paper's, e.g. a profile's window of the log, stays "not compared")
        differs = workload_differs(self.paper, self.trace) if self.verdict in VERDICTS else ""
        if differs:
            self.set_verdict(DIFFERENT_WORKLOAD, differs)

    def set_verdict(self, verdict: str, why: str) -> None:
        """Give a row one of the verdicts that keep it out of the count (:data:`UNCOUNTED`), saying why
        first; its verdict by the rule stays in ``by_rule``."""
        if verdict not in UNCOUNTED:
            raise ValueError(f"set_verdict is for the verdicts outside the count {UNCOUNTED}, got {verdict!r}")
        self.verdict = verdict
        self.uncounted_why = why

    #: why the row is outside the count (set by :meth:`set_verdict`), said first by :meth:`full_explanation`
    uncounted_why: str = ""

    def judge_as(self, reading: Reading) -> str:
        """This row's verdict had ours been the reading's value."""
        if self.rule == "claim":
            if reading.holds is None:
                raise ValueError(f"a claim's reading needs holds=True/False: {self.item}, {reading.name}")
            return VERDICTS[0] if reading.holds else VERDICTS[-1]
        return judge_value(self.published, reading.ours, reading.low, reading.high, self.baseline)

    @property
    def effect_ratio(self) -> float | None:
        """(ours - baseline) / (published - baseline), for a row with a baseline."""
        b, pub, ours = self.baseline, self.published, self.ours
        if not (_finite(b) and _finite(pub) and _finite(ours)) or pub == b:
            return None
        return (ours - b) / (pub - b)

    def judged_readings(self) -> list[Reading]:
        """The readings, each with its verdict on this row."""
        for rd in self.readings:
            if not rd.verdict:
                rd.verdict = self.judge_as(rd)
        return self.readings

    def identified_reading(self) -> Reading | None:
        """The identified reading of a counted row (none for a row shown but not counted)."""
        if self.verdict in UNCOUNTED:
            return None
        return next((r for r in self.readings if r.identified), None)

    def full_explanation(self) -> str:
        """The explanation, saying what is known first (DESIGN §10.4): a row of a group whose reading is
        identified names that reading, its value and verdict first ("identified reading X"); a reading that
        matches this row without being identified for its group is a "lone hit"; the readings tried follow."""
        text = self.explanation
        if self.uncounted_why:          # outside the count: why first, then what the rule's verdict would say
            inner = self._explained(self.by_rule)
            inner = "" if inner in ("", "unexplained") else inner
            return f"{self.verdict}: {self.uncounted_why}" + (f"; {inner}" if inner else "")
        return self._explained(self.verdict)

    def _explained(self, verdict: str) -> str:
        text = self.explanation
        tried = self.judged_readings()
        if verdict in UNCOUNTED or not tried:
            return text
        ident = next((r for r in tried if r.identified), None) if verdict == self.verdict else None

        def said(r: Reading) -> str:
            tag = r.verdict
            if r is not ident and r.verdict in GOOD:
                tag += ", lone hit: not identified for its group"
            return f"{r.name}: {_fmt(r.ours if self.rule == 'value' else r.holds)} ({tag})"

        others = "; ".join(said(r) for r in tried if r is not ident)
        if verdict in GOOD:
            if not self.reading:
                return text
            return f"{text}; under the other readings: {others}" if text else f"under the other readings: {others}"
        if ident is not None:
            fit = ident.summary["fit"] if ident.summary else "its group's declared rows"
            role = {"fit": "a row it was fitted on", "held-out, same log": "the fitted log's other weeks, "
                    "counted apart"}.get(self.role, "held out")
            head = (f"identified reading {ident.name} (fitted on {fit}; this row: {role}): "
                    f"{_fmt(ident.ours if self.rule == 'value' else ident.holds)} ({ident.verdict})")
            rest = "" if text in ("", "unexplained") else f"; under the paper's text: {text}"
            return head + rest + (f"; other readings: {others}" if others else "")
        if text in ("", "unexplained"):
            return f"unexplained after: {others}"
        return f"{text}; readings tried: {others}"

    def as_list(self) -> list:
        idr = self.identified_reading()
        return [self.paper, self.item, self.trace, self.metric, self.published, self.ours, self.low, self.high,
                self.baseline, self.effect_ratio, self.rule, self.verdict, self.by_rule, self.role, self.group,
                self.reading or "the paper's text",
                idr.text if idr else "", idr.ours if idr else None, idr.verdict if idr else "",
                "yes" if self.log_only else "no", self.construction or self.full_explanation()]


COLUMNS = ["paper", "item", "trace", "metric", "published", "ours", "ours 95% low", "ours 95% high", "baseline",
           "effect ratio", "rule", "verdict", "verdict by the rule", "role", "group", "reading", "identified reading",
           "ours, identified reading", "verdict, identified reading", "from the log alone", "explanation"]


def _fmt(x) -> str:
    if isinstance(x, bool):
        return "holds" if x else "fails"
    if _finite(x):
        return f"{x:.4g}"
    return str(x)


def judge_value(pub, ours, low=None, high=None, baseline=None) -> str:
    """The verdict of a published value against ours by the "value" rule (:data:`RULES`)."""
    if not (_finite(pub) and _finite(ours)):
        return VERDICTS[-1]
    rel = abs(ours - pub) / abs(pub) if pub != 0 else (0.0 if ours == 0 else math.inf)
    interval = _finite(low) and _finite(high)
    inside = interval and low <= pub <= high
    wide = interval and (high - low) / 2 > WIDE * abs(pub)
    if rel <= CLOSE or (inside and not wide):
        return "reproduced"
    if rel <= NEAR:
        return "close"
    if inside:
        return "consistent, wide interval"
    ref = baseline
    if _finite(ref) and (pub - ref) * (ours - ref) > 0:
        if interval and low <= ref <= high:
            return "inconclusive"
        ratio = (ours - ref) / (pub - ref)
        if ratio > MAGNITUDE or ratio < 1 / MAGNITUDE:
            return "direction only, magnitude off"
        return "direction only"
    return "not reproduced"


def judge(row: Row) -> str:
    """The verdict of a row by its rule (:data:`RULES`)."""
    if row.rule == "claim":
        if row.holds is None:
            raise ValueError(f"a claim row needs holds=True/False: {row.item}")
        return VERDICTS[0] if row.holds else VERDICTS[-1]
    return judge_value(row.published, row.ours, row.low, row.high, row.baseline)


@dataclass(frozen=True)
class Axis:
    """One axis of a group's readings (DESIGN §10.5), kept as data: ``name``; ``uses``, a regular expression
    searched in a reading's name (the reading uses this axis when it matches; "" for an axis every reading of
    the group varies, such as tau); and the commit that declared it with that commit's date (ISO 8601, from
    ``git log``).  :func:`identify` compares the date with the group's :class:`Computed`."""

    name: str
    commit: str
    date: str
    uses: str = ""

    def used_by(self, reading: str) -> bool:
        return not self.uses or re.search(self.uses, reading) is not None


@dataclass(frozen=True)
class Computed:
    """When a group's held-out values under its readings were first computed: the commit and its date."""

    commit: str
    date: str


def _when(date: str):
    from datetime import datetime

    return datetime.fromisoformat(date)


def late_axes(axes, computed: Computed | None) -> list[Axis]:
    """The axes declared after the group's held-out values were computed (DESIGN §10.5): a reading that uses
    one was not declared before the values it is tested on, and cannot be identified."""
    if computed is None:
        return []
    return [a for a in axes if _when(a.date) > _when(computed.date)]


def axes_text(axes, computed: Computed | None) -> str:
    """The axes of a group beside the first computation of its held-out values, in words (the summary's
    "axes before fit"), from the data alone."""
    if computed is None or not axes:
        return ""
    late = late_axes(axes, computed)
    before = [a for a in axes if a not in late]
    text = (f"held-out values first computed at {computed.commit} ({computed.date[:16].replace('T', ' ')}); "
            f"axes declared by then: " + ", ".join(f"{a.name} ({a.commit})" for a in before))
    if late:
        text += ("; declared after (a reading that uses them is never chosen): "
                 + ", ".join(f"{a.name} ({a.commit}, {a.date[:16].replace('T', ' ')})" for a in late))
    return text


def identify(rows: Iterable[Row], *, group: str, fit: Callable[[Row], bool], fit_label: str,
             share: float = IDENTIFIED_SHARE, not_identified: str = "", same_log: str = "",
             axes_before_fit: str = "", axes=(), computed: Computed | None = None) -> dict:
    """Whether one of the readings the rows carry is identified for ``group``.

    ``fit`` declares the rows a reading may be chosen on (``fit_label`` says
    which, in words: "the SDSC-SP2 rows").  Among the readings every counted
    row of the group carries, the one with the most reproduced-or-close fit
    rows is chosen (ties: the smallest median |log(ours / published)|), and
    only if it matches more fit rows than the paper's text does.  It is
    **identified** when, on the other (held-out) rows, at least ``share`` of
    them and more than under the paper's text are reproduced or close.

    Every reading of every row gets its verdict; the chosen one its role
    ("fitted" / "predicted") and, when identified, ``identified=True``; every
    counted row its ``role`` in the group ("fit" / "held-out") and ``group``.

    ``not_identified``: why this group's choice cannot count as an
    out-of-sample identification whatever its held-out rows give (e.g. its
    fit rows were declared after the held-out values were seen): the group
    is then never identified, and the summary says why.  ``same_log``: the
    held-out rows are the fitted log's other weeks, not an independent test:
    their role is "held-out, same log" and they are counted apart.
    ``axes_before_fit``: which reading axes existed before the group's fit
    rows were first computed (from the history), stated in the summary.
    ``axes`` (:class:`Axis`) and ``computed`` (:class:`Computed`): the
    group's reading axes with the commits that declared them, and when its
    held-out values were first computed.  A reading that uses an axis
    declared after that is never chosen (DESIGN §10.5, enforced here rather
    than trusted): the choice is made among the other readings.

    Rows outside the count (:data:`UNCOUNTED`) are not in the group.  The
    arguments are kept on the rows, so that :func:`regroup` can identify the
    group again once other rules (:func:`declare`) have taken rows out of the
    count: a group's summary is always its counted rows.
    Returns the group's summary (also attached to the rows' readings)."""
    rows = list(rows)
    args = dict(group=group, fit=fit, fit_label=fit_label, share=share, not_identified=not_identified,
                same_log=same_log, axes_before_fit=axes_before_fit, axes=tuple(axes), computed=computed)
    for r in rows:
        r.identify_args = args
        if r.verdict in UNCOUNTED:      # out of the group: no role, no group, no reading identified on it
            r.role, r.group = "none", ""
            for rd in r.readings:
                rd.identified, rd.role, rd.summary = False, "", None
    rows = [r for r in rows if r.verdict not in UNCOUNTED]
    for r in rows:
        for rd in r.readings:
            if not rd.verdict:          # a row read back from its CSV keeps the verdicts it was judged by
                rd.verdict = r.judge_as(rd)
    names = [rd.name for rd in rows[0].readings] if rows else []
    names = [n for n in names if all(any(rd.name == n for rd in r.readings) for r in rows)]
    late = late_axes(axes, computed)
    too_late = {n: [a.name for a in late if a.used_by(n)] for n in names}
    eligible = [n for n in names if not too_late[n]]
    if axes and not axes_before_fit:
        axes_before_fit = axes_text(axes, computed)
    fitted = [r for r in rows if fit(r)]
    held = [r for r in rows if not fit(r)]

    def _get(r: Row, name: str) -> Reading:
        return next(rd for rd in r.readings if rd.name == name)

    def good(rs, name=None) -> int:
        return sum((r.verdict if name is None else _get(r, name).verdict) in GOOD for r in rs)

    def med_err(rs, name=None) -> float | None:
        errs = []
        for r in rs:
            v = r.ours if name is None else _get(r, name).ours
            if r.rule == "value" and _finite(v) and _finite(r.published) and v * r.published > 0:
                errs.append(abs(math.log(v / r.published)))
        errs.sort()
        return errs[len(errs) // 2] if errs else None

    def tally(rs, name=None) -> dict:
        out: dict[str, int] = {}
        for r in rs:
            v = r.verdict if name is None else _get(r, name).verdict
            out[v] = out.get(v, 0) + 1
        return out

    candidates = {}
    for n in [None] + names:
        key = "the paper's text" if n is None else n
        candidates[key] = {"text": "the paper's text" if n is None else _get(rows[0], n).text,
                           "fit good": good(fitted, n), "held-out good": good(held, n),
                           "fit median |log ratio|": med_err(fitted, n), "held-out median |log ratio|": med_err(held, n),
                           "held-out verdicts": tally(held, n)}
        if n is not None and too_late[n]:
            candidates[key]["declared after the held-out values"] = too_late[n]
    chosen = None
    if fitted and held and eligible:
        def fit_score(n):           # most fit rows matched, then the smallest median error
            err = candidates[n]["fit median |log ratio|"]
            return candidates[n]["fit good"], -(math.inf if err is None else err)
        best = max(eligible, key=fit_score)
        if candidates[best]["fit good"] > candidates["the paper's text"]["fit good"]:
            chosen = best
    identified = bool(chosen) and good(held, chosen) >= share * len(held) and good(held, chosen) > good(held)
    passes = identified
    identified = identified and not not_identified
    summary = {"group": group, "fit": fit_label, "rows": len(rows), "fit rows": len(fitted), "held-out rows": len(held),
               "chosen": chosen, "identified": identified, "candidates": candidates}
    if not fitted or not held:
        summary["why"] = "no fit rows" if not fitted else "no held-out rows"
    if not_identified:
        summary["why"] = (f"not identified ({'it passes the rule on its held-out rows, but ' if passes else ''}"
                          f"{not_identified})")
    if same_log:
        summary["held-out kind"] = f"same log: {same_log}"
    if axes_before_fit:
        summary["axes before fit"] = axes_before_fit
    if any(too_late.values()):
        summary["not chosen: declared after the held-out values"] = sum(bool(v) for v in too_late.values())
    for r in rows:
        r.group = group
        r.role = "fit" if fit(r) else ("held-out, same log" if same_log else "held-out")
    for r in rows:
        for rd in r.readings:
            rd.summary = summary
            rd.role, rd.identified = "", False
            if rd.name == chosen:
                rd.role = "fitted" if fit(r) else "predicted"
                rd.identified = identified
    return summary


def regroup(rows) -> list[dict]:
    """Identify every group of ``rows`` again on its rows as they now are (:func:`identify`, with the
    arguments it was first given): a row another rule took out of the count (a workload description, a
    repeated comparison, a different workload) leaves its group, and the group's summary, its choice and its
    counts are those of the rows that remain.  Returns the summaries."""
    rows = list(rows)
    by_group: dict[str, tuple[dict, list[Row]]] = {}
    for r in rows:
        args = getattr(r, "identify_args", None)
        if args is not None:
            by_group.setdefault(args["group"], (args, []))[1].append(r)
    return [identify(members, **args) for args, members in by_group.values()]


def summaries(rows: Iterable[Row]) -> list[dict]:
    """The groups' summaries of :func:`identify` found on the rows, once each."""
    seen, out = set(), []
    for r in rows:
        for rd in r.readings:
            if rd.summary is not None and id(rd.summary) not in seen:
                seen.add(id(rd.summary))
                out.append(rd.summary)
    return out


def record(row: Row) -> dict:
    """The columns of a row that its counts read, as its CSV holds them (:data:`COLUMNS`)."""
    idr = row.identified_reading() if row.verdict not in UNCOUNTED else None
    return {"verdict": row.verdict, "verdict by the rule": row.by_rule, "role": row.role, "group": row.group,
            "verdict, identified reading": idr.verdict if idr else "",
            "explanation": row.construction or row.full_explanation()}


def count_records(records, identified: bool = False) -> dict:
    """Rows by verdict, from their columns alone (a CSV's records or :func:`record` of rows): the one count
    behind every number the paper, the README, the site and ``tools/scorecard_by_paper.py`` show (issue 52).
    ``identified``: a **held-out** row of a group whose reading is identified counts by that reading's verdict
    instead (DESIGN §10.5: fit rows keep their text verdict, "held-out, same log" rows too: they are counted
    apart, :func:`same_log_counts`).  Also the fit rows' number (``"fit rows"``) and the rows that describe the
    input or the algorithm by their verdict by the rule (``"inputs, by the rule"``: never in reproduced or
    close), and the counted rows other than reproduced whose explanation is only "unexplained"
    (``"unexplained"``, by verdict: a miss never is, :func:`bare`)."""
    out = {v: 0 for v in VERDICTS + UNCOUNTED}
    fit = 0
    inputs = {v: 0 for v in VERDICTS}
    unexplained = {v: 0 for v in VERDICTS[1:]}
    for rec in records:
        v = rec["verdict"]
        idv = (rec.get("verdict, identified reading") or "") if v not in UNCOUNTED else ""
        role = rec.get("role") or "none"
        if idv and role == "fit":
            fit += 1
        out[idv if identified and idv and role == "held-out" else v] += 1
        by_rule = rec.get("verdict by the rule") or v
        if v in INPUTS and by_rule in inputs:
            inputs[by_rule] += 1
        if v in unexplained and (rec.get("explanation") or "").strip() in ("", "unexplained"):
            unexplained[v] += 1
    out["compared"] = sum(out[v] for v in VERDICTS)
    out["fit rows"] = fit
    out["inputs, by the rule"] = inputs
    out["unexplained"] = unexplained
    return out


def counts(rows, identified: bool = False) -> dict:
    """Rows by verdict (the counted ones), and how many were shown but not counted: :func:`count_records` of
    the rows' columns."""
    return count_records([record(r) for r in rows], identified=identified)


def group_records(records) -> dict[str, dict]:
    """Each group's numbers from its rows' columns alone (``group``, ``role``, ``verdict`` and the identified
    reading's verdict): its counted rows, fit and held-out, and how many of each are reproduced or close under
    the paper's text and, for an identified group, under its reading.  What :func:`identify` states in a group's
    summary equals this on the rows it leaves (a test checks it on every shipped scorecard)."""
    out: dict[str, dict] = {}
    for rec in records:
        g = rec.get("group") or ""
        if not g or rec["verdict"] in UNCOUNTED:
            continue
        d = out.setdefault(g, {"rows": 0, "fit rows": 0, "held-out rows": 0, "text": {"fit good": 0,
                               "held-out good": 0}, "reading": {"fit good": 0, "held-out good": 0}})
        part = "fit" if rec.get("role") == "fit" else "held-out"
        d["rows"] += 1
        d[f"{part} rows"] += 1
        d["text"][f"{part} good"] += rec["verdict"] in GOOD
        d["reading"][f"{part} good"] += (rec.get("verdict, identified reading") or "") in GOOD
    return out


def same_log_counts(rows) -> dict:
    """The "held-out, same log" rows of identified groups by their verdict under the paper's text and under
    the reading (counted apart from both counts: the test is on the fitted log's other weeks)."""
    text, reading = {v: 0 for v in VERDICTS}, {v: 0 for v in VERDICTS}
    for r in rows:
        idr = r.identified_reading() if r.verdict not in UNCOUNTED else None
        if idr is not None and r.role == "held-out, same log":
            text[r.verdict] += 1
            reading[idr.verdict] += 1
    return {"text": text, "reading": reading, "rows": sum(text.values())}


def over_papers_logs(traces, papers) -> dict:
    """Row arguments for a result the paper states over ``papers``' logs (a
    claim, a range): compared only when this run simulated every one of them
    (``traces``: a name or names); otherwise shown, not compared, saying which
    are missing (a range over other logs, or a generated log, is another
    quantity)."""
    have = {traces} if isinstance(traces, str) else set(traces)
    missing = [t for t in papers if t not in have]
    if not missing:
        return {}
    return {"comparable": False, "explanation": f"the paper's claim is over {', '.join(papers)}; this run does "
                                               f"not simulate {', '.join(missing)}: shown, not compared"}


@dataclass(frozen=True)
class Declared:
    """A study's declaration that the rows it matches are not results: ``verdict`` is
    :data:`WORKLOAD_DESCRIPTION`, :data:`PROPERTY` or :data:`COUNTED_ONCE` (a value another row fixes),
    ``why`` says so in the row.  A row matches when each given field (``paper``, ``item``, ``metric``: regular
    expressions searched in the row's field) matches.  Declarations are data on the row's own columns, so the
    same ones apply to a study's rows as it computes them and to a scorecard read back from its CSV
    (``tools/scorecard_rescore.py``)."""

    verdict: str
    why: str
    paper: str = ""
    item: str = ""
    metric: str = ""

    def __post_init__(self):
        if self.verdict not in (WORKLOAD_DESCRIPTION, PROPERTY, COUNTED_ONCE):
            raise ValueError(f"a declaration's verdict is one of {INPUTS + (COUNTED_ONCE,)}, got {self.verdict!r}")
        if not (self.paper or self.item or self.metric):
            raise ValueError("a declaration matches on at least one of paper, item, metric")

    def matches(self, row: Row) -> bool:
        return all(re.search(pat, getattr(row, name)) for name, pat in
                   (("paper", self.paper), ("item", self.item), ("metric", self.metric)) if pat)


def declare(rows, declared=()) -> list[Row]:
    """Apply a study's declarations (:class:`Declared`), then count repeated comparisons once
    (:func:`counted_once`).  Rows by construction keep their verdict; a declared row's verdict by the rule
    stays in ``by_rule``.  Then every group of readings is identified again on its counted rows
    (:func:`regroup`): a group's summary is its rows as they are counted.  Returns the rows (the same
    objects)."""
    rows = list(rows)
    for r in rows:
        if r.verdict == BY_CONSTRUCTION:
            continue
        d = next((d for d in declared if d.matches(r)), None)
        if d is not None and d.verdict == WORKLOAD_DESCRIPTION:
            r.log_only = True           # a declared description: the log alone, the same rule below
        if r.log_only:                  # rule "description", before any other declaration
            if r.verdict != WORKLOAD_DESCRIPTION:
                r.set_verdict(WORKLOAD_DESCRIPTION, d.why if d is not None and d.verdict == WORKLOAD_DESCRIPTION
                              else DESCRIBED)
            continue
        if d is not None and r.verdict != d.verdict:
            r.set_verdict(d.verdict, d.why)
    counted_once(rows)
    regroup(rows)           # the groups' summaries are their counted rows, after these rules
    return rows


def declarations(study_module: str) -> tuple:
    """A study's declarations: ``DECLARED`` of its ``scorecard`` module (none when it has no such module)."""
    import importlib
    import importlib.util

    name = f"{study_module}.scorecard"
    if importlib.util.find_spec(name) is None:
        return ()
    return tuple(getattr(importlib.import_module(name), "DECLARED", ()))


def _same(a, b) -> bool:
    if _finite(a) and _finite(b):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def counted_once(rows) -> list[Row]:
    """Rows that repeat one comparison (same paper, item, trace, published value and ours, and the same
    interval) are one result: the first is counted, the others are :data:`COUNTED_ONCE` and name it.
    Returns the rows it changed."""
    first: list[Row] = []
    changed = []
    for r in rows:
        if r.verdict not in VERDICTS:
            continue
        twin = next((f for f in first if (f.paper, f.item, f.trace, f.rule) == (r.paper, r.item, r.trace, r.rule)
                     and all(_same(getattr(f, k), getattr(r, k)) for k in ("published", "ours", "low", "high"))), None)
        if twin is None:
            first.append(r)
            continue
        r.set_verdict(COUNTED_ONCE, f"the same comparison as the row \"{twin.metric}\" (published {_fmt(r.published)}, "
                                    f"ours {_fmt(r.ours)}), counted there")
        changed.append(r)
    return changed


#: the verdicts of a miss that must name what was tried (:func:`bare`): not reproduced, and the two
#: that say our value disagrees with the published one in size or cannot be told from the baseline
MISSES = ("direction only, magnitude off", "inconclusive", "not reproduced")


def bare(rows) -> list[Row]:
    """The counted misses (:data:`MISSES`) whose explanation says nothing:
    only "unexplained" (or nothing), no reading tried, no reason (DESIGN §10:
    a miss names what was tried or why nothing could be)."""
    return [r for r in rows if r.verdict in MISSES
            and (r.construction or r.full_explanation()).strip() in ("", "unexplained")]


def table(rows, title: str = "Scorecard: every published value beside ours"):
    """The rows as a :class:`schedlab.table.Table`."""
    from ..studies import Table

    return Table(COLUMNS, [r.as_list() for r in rows], title=title, default_digits=2,
                 notes=[f"{name}: {text}" for name, text in {**RULES, **NOTES}.items()])


def numbers(rows) -> dict:
    """What the driver puts under ``numbers.scorecard``."""
    rows = list(rows)
    return {"counts": counts(rows), "counts under identified readings": counts(rows, identified=True),
            "identified on the fitted log's other weeks": same_log_counts(rows),
            "readings": summaries(rows), "rules": dict(RULES),
            "logs not simulated": sorted({log for logs in POOLED_UNBUNDLED.values() for log in logs})}


# ------------------------------------------------------------- coverage --
#: a column holding a paper's value: "published %", "AvgWait published (s)", "CPUs (thesis)", "EASY (paper)"
PUBLISHED_COLUMN = re.compile(r"publish|\bpaper\b|thesis|authors", re.I)


@dataclass(frozen=True)
class Elsewhere:
    """A table whose published values another study's scorecard counts (once)."""

    study: str
    item: str


def compares(table) -> bool:
    """Whether the table sets a published value beside one of ours: some row
    holds a number in a published column and one in another column (a table
    that lists the papers' values for logs this run did not simulate does not)."""
    pub = {j for j, name in enumerate(table.columns) if PUBLISHED_COLUMN.search(str(name))}
    return any(any(_finite(row[j]) for j in pub) and any(_finite(row[j]) for j in range(len(row)) if j not in pub)
               for row in table.rows)


def uncovered(tables: dict, rows, feeds: dict | None = None) -> list[str]:
    """The tables that set published values beside ours (:func:`compares`)
    and feed no scorecard row.

    A table feeds a row when the row names it (``Row.source``), when the
    study's ``OUTPUTS.feeds`` (:class:`schedlab.protocol.study.Outputs`) maps it to items its rows compare (prefixes of
    ``Row.item``), or to :class:`Elsewhere` (another study counts them)."""
    feeds = feeds or {}
    rows = list(rows)
    out = []
    for name, table in tables.items():
        if name == "scorecard" or not compares(table):
            continue
        if any(r.source == name for r in rows):
            continue
        fed = feeds.get(name)
        if fed is None:         # a pattern: "thesis_*"
            fed = next((v for k, v in feeds.items() if "*" in k and fnmatch.fnmatchcase(name, k)), ())
        if isinstance(fed, Elsewhere):
            continue
        if any(r.item.startswith(item) for r in rows for item in ((fed,) if isinstance(fed, str) else fed)):
            continue
        out.append(name)
    return out

