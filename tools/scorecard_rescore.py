#!/usr/bin/env python3
"""Re-judge a run's scorecards by the current rules without re-running a cell.

    python tools/scorecard_rescore.py RESULTS [--out OUT] [--roles-only]

RESULTS is a folder of study folders (``shipped/full``, ``results/quick``), each
with ``tables/scorecard.csv`` and ``numbers.json`` written by a scorecard of
the format before issue 42 (no role column) or since (re-judging such a folder
again changes nothing: a test checks it on shipped/full).  Every row is read back into a
:class:`schedlab.protocol.scorecard.Row` from its own columns (published,
ours, interval, baseline, verdict) and the readings its explanation lists
("name: value (verdict)"), then judged by what the current code adds on top
of a row's values:

- its **role** in its group of readings (fit / held-out / held-out, same log /
  none): the group's membership and fit rows are declared below
  (:data:`GROUPS`, the same predicates as the studies' ``identify`` calls) and
  checked against the group's row counts in ``numbers.json``;
- the group's status as the study now declares it (``not_identified``,
  ``same_log``, the axes that existed before its fit rows were computed);
- the comparability rule (``RULES["comparability"]``), the description rule
  (``RULES["description"]``: the column "from the log alone", or for a CSV
  from before it the study's ``LOG_ONLY``), the study's declarations
  (``DECLARED``: workload descriptions, properties, values fixed by another
  row) and repeated comparisons counted once;
- each group identified again on its counted rows, by the same ``identify``
  the study calls, with the study's declared status and reading axes
  (``scorecard.regroup``, issue 52): the group summaries in ``numbers.json``
  are the rows', never the run's stored ones (a reading's value is read back
  at the 4 significant digits the explanation prints, which moves only a
  median error that breaks a tie);
- the explanations (identified reading first, lone hits named).

No value changes: a row's published value, ours, interval and verdict by the
rule are the run's.  The study's ``numbers.json`` gets the new counts.
``--roles-only`` adds the role column and nothing else (the "before" of issue
42 counted held-out only).  The output overwrites RESULTS unless ``--out``.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from schedlab.protocol import scorecard as sc  # noqa: E402
from schedlab.studies.registry import STUDIES  # noqa: E402
from schedlab.table import write_json, write_text  # noqa: E402


@dataclass(frozen=True)
class Group:
    member: Callable[[dict], bool]
    fit: Callable[[dict], bool]
    #: the study module's keyword arguments of identify() that changed with issue 42, by attribute name
    status: dict


def _item(name):
    return lambda r: r["item"] == name


def _trace(name):
    return lambda r: r["trace"] == name


GRID = ("w*", "w*_train", "w_greedy")
#: the groups of the shipped studies, by the name identify() gave them: which rows, which are fit rows
GROUPS = {
    "thesis Table 4.1: which jobs": Group(_item("Table 4.1"), _trace("KTH-SP2"),
                                          {"not_identified": ("traces", "NOT_IDENTIFIED"),
                                           "axes_before_fit": ("traces", "AXES_BEFORE_FIT")}),
    "thesis Table 6.1: which jobs": Group(_item("Table 6.1"), _trace("KTH-SP2"),
                                          {"not_identified": ("traces", "NOT_IDENTIFIED"),
                                           "axes_before_fit": ("traces", "AXES_BEFORE_FIT")}),
    "thesis Table 6.2: which jobs": Group(_item("Table 6.2"), _trace("KTH-SP2"),
                                          {"not_identified": ("traces", "NOT_IDENTIFIED"),
                                           "axes_before_fit": ("traces", "AXES_BEFORE_FIT")}),
    "thesis Table 4.2: resampled or original log, overrun, threshold": Group(
        _item("Table 4.2"), _trace("KTH-SP2"), {"axes_before_fit": ("policies", "T42_AXES")}),
    "online-bandit Table 2": Group(lambda r: r["paper"].startswith("online-bandit §6") and r["item"] == "Table 2",
                                   _trace("KTH-SP2"), {"axes_before_fit": ("policies", "BANDIT_AXES")}),
    "thesis Tables 5.2-5.5": Group(_item("Tables 5.2-5.5"), _trace("SDSC-SP2"),
                                   {"axes": ("thresholds", "THESIS_AXIS_LIST"), "computed": ("thresholds", "THESIS_COMPUTED")}),
    "thesis Table 5.1 (pure policies)": Group(
        lambda r: r["item"] == "Table 5.1" and not any(f", {g}, " in r["metric"] for g in GRID),
        lambda r: r["metric"].endswith("training weeks"),
        {"same_log": ("mixed", "TABLE_5_1_SAME_LOG"), "axes": ("mixed", "TABLE_5_1_AXIS_LIST"),
         "computed": ("mixed", "TABLE_5_1_COMPUTED")}),
    "thesis Table 6.5: errors as shares of what": Group(_item("Table 6.5"), _trace("KTH-SP2"),
                                                        {"not_identified": ("classification", "T65_NOT_IDENTIFIED"),
                                                         "axes_before_fit": ("classification", "T65_AXES"),
                                                         "axes": ("classification", "T65_AXIS_LIST"),
                                                         "computed": ("classification", "T65_COMPUTED")}),
    "gaussier2015 EASY++ (Tables 6-7): the correction": Group(
        lambda r: r["metric"] in ("AVEbsld EASY++", "EASY++ reduction vs EASY (%)"), _trace("KTH-SP2"),
        {"axes_before_fit": ("prediction", "EASYPP_AXES"), "axes": ("prediction", "EASYPP_AXIS_LIST"),
         "computed": ("prediction", "EASYPP_COMPUTED")}),
    "lawson2005 Tables 1-3 and the Fig. 6 claim (what online simulation replays)": Group(
        lambda r: r["item"] in ("Table 1", "Table 2", "Table 3")
        or r["item"].startswith("claim: Fig. 6, online simulation outperforms"), _trace("CTC-SP2"),
        {"axes_before_fit": ("multiqueue", "AXES"), "axes": ("multiqueue", "AXIS_LIST"),
         "computed": ("multiqueue", "COMPUTED")}),
}

_VERDICT = "|".join(re.escape(v) for v in sorted(sc.VERDICTS, key=len, reverse=True))
_LONE = ", lone hit: not identified for its group"
_ITEM = re.compile(rf"(?P<name>.+?): (?P<val>.*?) \((?P<verdict>{_VERDICT})(?:, identified on (?P<fit>.*?)|"
                   rf"(?P<lone>{re.escape(_LONE)}))?\)$")


def _num(text: str):
    if text is None or text == "":
        return None
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    try:
        x = float(text)
    except ValueError:
        return text
    return x


def _split(said: str) -> list[str]:
    """'a: 1 (reproduced); b: 2 (close)' -> the items (a ';' inside parentheses does not split)."""
    out, depth, cur = [], 0, ""
    i = 0
    while i < len(said):
        ch = said[i]
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and said.startswith("; ", i):
            out.append(cur)
            cur, i = "", i + 2
            continue
        cur += ch
        i += 1
    out.append(cur)
    return out


def _old_said(rule: str, readings: list) -> str:
    return "; ".join(f"{r.name}: {sc._fmt(r.ours if rule == 'value' else r.holds)} ({r.verdict}"
                     + (f", identified on {r.summary['fit']}" if r.identified and r.summary else "")
                     + (_LONE if getattr(r, "lone", False) else "") + ")"
                     for r in readings)


def parse_readings(rule: str, said: str, summary_of_fit: dict) -> list | None:
    """The readings an old explanation lists, or None when the text does not read back exactly."""
    out = []
    for part in _split(said):
        m = _ITEM.match(part)
        if not m:
            return None
        val = m["val"]
        rd = sc.Reading(m["name"], "", ours=_num(val) if rule == "value" else None,
                        holds=(val == "holds") if rule == "claim" else None, verdict=m["verdict"])
        if rule == "value" and not isinstance(rd.ours, (int, float)):
            rd.ours = val
        if m["fit"]:
            rd.identified, rd.summary = True, summary_of_fit.get(m["fit"], {"fit": m["fit"]})
        rd.lone = bool(m["lone"])
        out.append(rd)
    return out


#: The stated differences earlier runs wrote that the rules no longer list (issue 52: rule "same log" finds the
#: papers' CEA-Curie to be the bundled file), as those runs worded them: a row "different workload" for one of
#: these only is judged by its rule again.
STATED_BEFORE = [
    ("the paper's CEA-Curie log spans 3 months ({where}: 80,640 CPUs, 312k jobs, 3 months); the bundled log, which "
     "every study simulates whole, spans 8.3 months").format(where=w)
    for w in ("lelong2017 Table 3", "gaussier2015 Table 4", "online-bandit Table 1")]


#: The prediction study's span sentence of earlier runs (issue 52: no cause once rule "same log" applies)
SPAN_BEFORE = [f"the log simulated spans {m} months, the paper's 3 (gaussier2015 Table 4; the traces study's Table 3 "
               "row): not the workload the paper simulated, so its load and waits differ; no reading of this study "
               "changes the log" for m in ("8.3",)]


def lifted(rec: dict) -> str | None:
    """The explanation of a "different workload" row whose stated difference the rules no longer list (its
    difference text removed), or None when the row stays as it was."""
    text = rec["explanation"]
    head = f"{sc.DIFFERENT_WORKLOAD}: "
    if rec["verdict"] != sc.DIFFERENT_WORKLOAD or not text.startswith(head):
        return None
    rest = text[len(head):]
    for old in STATED_BEFORE:
        for form in (f"the value pools the paper's logs, CEA-Curie among them: {old}", old):
            if rest.startswith(form):
                rest = rest[len(form):]
                rest = rest[2:] if rest.startswith("; ") else rest
                if sc.workload_differs(rec["paper"], rec["trace"]):
                    # still different for another reason (e.g. logs the paper pools that are not bundled): keep
                    # the verdict, drop the lifted sentence
                    return None
                return rest
    return None


def drop_lifted(text: str) -> str:
    """An uncounted row's explanation without the stated differences the rules no longer list."""
    for old in STATED_BEFORE:
        for form in (f"the value pools the paper's logs, CEA-Curie among them: {old}; ", f"{old}; "):
            text = text.replace(form, "")
    return text


def read_row(rec: dict, summaries: list) -> tuple[sc.Row, bool]:
    """A CSV record back into a Row; the flag says whether its explanation read back exactly."""
    rule = rec["rule"]
    row = sc.Row.__new__(sc.Row)
    fields = dict(paper=rec["paper"], item=rec["item"], trace=rec["trace"], metric=rec["metric"],
                  published=_num(rec["published"]), ours=_num(rec["ours"]), low=_num(rec["ours 95% low"]),
                  high=_num(rec["ours 95% high"]), rule=rule, baseline=_num(rec["baseline"]), holds=None,
                  explanation=rec["explanation"], comparable=rec["verdict"] != sc.NOT_COMPARED,
                  construction=rec["explanation"] if rec["verdict"] == sc.BY_CONSTRUCTION else "",
                  reading="" if rec["reading"] == "the paper's text" else rec["reading"], readings=[], source="",
                  verdict=rec["verdict"], by_rule=rec.get("verdict by the rule") or rec["verdict"], role="none",
                  group="", log_only=rec.get("from the log alone", "no") == "yes")
    for k, v in fields.items():
        setattr(row, k, v)
    if isinstance(row.published, (int, float)) and isinstance(row.ours, str):
        row.published = rec["published"]
    by_fit = {s["fit"]: s for s in summaries}
    text, ok = rec["explanation"], True
    rest = lifted(rec)
    if rest is not None:            # rule "same log": judged by its rule again, with its own explanation
        row.verdict, text = row.by_rule, rest or ("" if row.by_rule == "reproduced" else "unexplained")
        row.explanation = text
        row.lifted = True
    elif row.verdict in sc.UNCOUNTED:
        row.explanation = drop_lifted(row.explanation)
        return row, True
    said = None
    if row.verdict in sc.GOOD and "under the other readings: " in text:
        head, said = text.split("under the other readings: ", 1)
        text = head[:-2] if head.endswith("; ") else head
    elif text.startswith("unexplained after: "):
        text, said = "unexplained", text[len("unexplained after: "):]
    elif "; readings tried: " in text:
        text, said = text.split("; readings tried: ", 1)
    elif text.startswith("identified reading ") and rec["identified reading"]:
        # this format's own: "identified reading X (...): v (verdict)[; under the paper's text: T][; other readings: ...]"
        head, _, said = text.partition("; other readings: ")
        said = said or None
        text = head.split("; under the paper's text: ", 1)[1] if "; under the paper's text: " in head else "unexplained"
        if said is None:
            row.explanation = text
    if said is not None:
        rds = parse_readings(rule, said, by_fit)
        if rds is None or _old_said(rule, rds) != said:
            ok = False
        else:
            row.readings = rds
            row.explanation = text
    # the identified reading's columns (every row of an identified group carries them)
    if rec["identified reading"]:
        s = next((s for s in summaries if s.get("identified") and s["chosen"]
                  and s["candidates"][s["chosen"]]["text"] == rec["identified reading"]), None)
        if s is not None:
            name = s["chosen"]
            rd = next((r for r in row.readings if r.name == name), None)
            if rd is None:
                rd = sc.Reading(name, rec["identified reading"], verdict=rec["verdict, identified reading"])
                rd.ours = _num(rec["ours, identified reading"])
                if rule == "claim":
                    rd.holds = rd.verdict == sc.VERDICTS[0]
                row.readings.append(rd)
            rd.text, rd.identified, rd.summary = rec["identified reading"], True, s
            if rule == "value" and rec["ours, identified reading"] != "":
                rd.ours = _num(rec["ours, identified reading"])
    return row, ok


def explained(study: str, rows) -> None:
    """The explanations the studies' code now writes where the run wrote generic text (issue 42 item 5; the
    selection study's claims: the seeds' code beside ours, issue 52 item 1)."""
    if study == "prediction":
        # the run said a CEA-Curie value differs because the log's span does (gaussier2015 Table 4's 3 months);
        # rule "same log" finds the same log: that sentence is no cause any more
        from schedlab.studies.prediction.scorecard import SAME_LOG_NOTE, span_differs
        for r in rows:
            if span_differs({"trace": r.trace, "months": 8.3}) == SAME_LOG_NOTE:
                for old in SPAN_BEFORE:
                    r.explanation = r.explanation.replace(old, SAME_LOG_NOTE)
    if study == "selection":
        from schedlab.studies.selection import scorecard as sel
        o = sel.oracle()
        for r in rows:
            if r.paper == sel.PAPER and any(r.item.startswith(k) for k in sel.CLAIMS) and r.comparable:
                inner = sel.claim_explanation(r.item, o)
                why = sc.workload_differs(r.paper, r.trace) if r.verdict == sc.DIFFERENT_WORKLOAD else ""
                r.explanation = f"{sc.DIFFERENT_WORKLOAD}: {why}; {inner}" if why else inner
    if study == "multiqueue":
        from schedlab.studies.multiqueue.scorecard import FIXED_NOTE, FIXED_NOTE_BEFORE
        for r in rows:
            r.explanation = r.explanation.replace(FIXED_NOTE_BEFORE, FIXED_NOTE)
    if study == "mixed":
        from schedlab.studies.mixed.scorecard import GRID_NOTE, GRID_ROWS
        for r in rows:
            if (r.item == "Table 5.1" and r.verdict in sc.VERDICTS and GRID_NOTE not in r.explanation
                    and any(f", {g}, " in r.metric for g in GRID_ROWS)):
                r.explanation = f"{r.explanation}; {GRID_NOTE}"


def study_of(folder: Path):
    stem = folder.name
    return next((e for e in STUDIES if e.stem == stem), None)


def rescore(folder: Path, out: Path, roles_only: bool = False, log=print) -> dict:
    import importlib

    entry = study_of(folder)
    path = folder / "tables" / "scorecard.csv"
    numbers = json.loads((folder / "numbers.json").read_text())
    summaries = numbers.get("scorecard", {}).get("readings", [])
    with open(path, newline="") as fh:
        recs = list(csv.DictReader(fh))
    rows, unread = [], []
    # rule "description": a CSV from before the column "from the log alone" takes the study's own statement
    # (LOG_ONLY of its scorecard module: True when every value of the study comes from the input log alone)
    log_only = False
    if entry is not None and not roles_only:
        import importlib.util
        if importlib.util.find_spec(f"{entry.module}.scorecard") is not None:
            log_only = getattr(importlib.import_module(f"{entry.module}.scorecard"), "LOG_ONLY", False)
    for rec in recs:
        row, ok = read_row(rec, summaries)
        if "from the log alone" not in rec:
            row.log_only = log_only
        rows.append(row)
        if not ok:
            unread.append(f"{row.item} | {row.trace} | {row.metric}")
    # roles, checked against the group's own counts
    for s in summaries:
        g = GROUPS.get(s["group"])
        if g is None:
            raise SystemExit(f"{folder.name}: group {s['group']!r} is not declared in GROUPS")
        members = [(r, rec) for r, rec in zip(rows, recs) if r.verdict not in sc.UNCOUNTED and g.member(rec)]
        # the run's counts did not include the rows rule "same log" brings back
        ran = [(r, rec) for r, rec in members if not getattr(r, "lifted", False)]
        nfit = sum(g.fit(rec) for _, rec in ran)
        if (len(ran), nfit) != (s["rows"], s["fit rows"]):
            raise SystemExit(f"{folder.name}: group {s['group']!r}: {len(ran)} rows, {nfit} fit declared here; "
                             f"the run says {s['rows']}, {s['fit rows']}")
        status = {k: getattr(importlib.import_module(f"schedlab.studies.{mod}.scorecard"), attr)
                  for k, (mod, attr) in g.status.items()}
        if roles_only:
            status = {}
        if status.get("not_identified"):
            s["why"] = f"not identified ({'it passes the rule on its held-out rows, but ' if s['identified'] else ''}" \
                       f"{status['not_identified']})"
            s["identified"] = False
            for r, _ in members:
                for rd in r.readings:
                    rd.identified = False
        if status.get("same_log"):
            s["held-out kind"] = f"same log: {status['same_log']}"
        if status.get("axes_before_fit"):
            s["axes before fit"] = status["axes_before_fit"]
        for r, rec in members:
            r.group = s["group"]
            r.role = "fit" if g.fit(rec) else ("held-out, same log" if status.get("same_log") else "held-out")
            for rd in r.readings:
                rd.summary = s
                if not rd.text:         # an explanation lists a reading's name; its words are the run's summary's
                    rd.text = s["candidates"].get(rd.name, {}).get("text", "")
        if not roles_only:
            # identified again on its rows once the rules below have run (scorecard.regroup, called by
            # declare): the same identify() as the study's, with the study's declared status
            args = dict(group=s["group"], fit=lambda r, g=g: g.fit(vars(r)), fit_label=s["fit"], **status)
            for r, _ in members:
                r.identify_args = args
    if not roles_only and entry is not None:
        explained(entry.name, rows)
    if not roles_only:
        for r in rows:                  # the comparability rule (Row.__post_init__ applies it to a new row)
            if r.verdict in sc.VERDICTS:
                why = sc.workload_differs(r.paper, r.trace)
                if why:
                    r.set_verdict(sc.DIFFERENT_WORKLOAD, why)
                    r.role, r.group = "none", ""
        sc.declare(rows, sc.declarations(entry.module) if entry else ())
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    if roles_only:
        cols = sc.COLUMNS
        with open(out / "tables" / "scorecard.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(cols)
            for r, rec in zip(rows, recs):
                d = dict(rec)
                d.update({"verdict by the rule": r.by_rule, "role": r.role, "group": r.group})
                w.writerow([d.get(c, "") for c in cols])
    else:
        write_text(out / "tables" / "scorecard.csv", sc.table(rows).to_csv())
    sc_numbers = numbers.setdefault("scorecard", {})
    if roles_only:
        sc_numbers.update({k: v for k, v in sc.numbers(rows).items() if k != "readings"})
        sc_numbers["readings"] = summaries
    else:           # every summary is its rows: the groups as regroup() identified them on the counted rows
        sc_numbers.update(sc.numbers(rows))
    if unread:
        sc_numbers["explanations kept as written"] = unread
    write_json(out / "numbers.json", numbers)
    log(f"{folder.name}: {len(rows)} rows re-judged; {len(unread)} explanations kept as written")
    return sc_numbers


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--out", help="write the re-judged study folders here (default: in place)")
    ap.add_argument("--roles-only", action="store_true")
    ap.add_argument("--ship", action="store_true",
                    help="RESULTS is shipped/full: re-judge in place and record the new checksums (and that the "
                         "scorecard was re-judged, by which commit) in its MANIFEST.json")
    args = ap.parse_args(argv)
    src = Path(args.results)
    folders = sorted(p.parent.parent for p in src.glob("*/tables/scorecard.csv"))
    for folder in folders:
        dest = Path(args.out) / folder.name if args.out else folder
        if args.out:
            (dest / "tables").mkdir(parents=True, exist_ok=True)
        rescore(folder, dest, roles_only=args.roles_only)
    if args.ship:
        if args.out or args.roles_only:
            raise SystemExit("--ship re-judges shipped/full in place: no --out, no --roles-only")
        reship(src, folders)
    return 0


def reship(base: Path, folders) -> None:
    """Record the re-judged files of a shipped folder in its manifest (checksums, and a note per study)."""
    import subprocess

    from schedlab.publish import shipped

    profile = base.name
    root = base.parent if base.resolve() != shipped.folder(profile).resolve() else None
    manifest = shipped.read_manifest(profile, root, missing_ok=False)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    for folder in folders:
        entry = manifest["studies"].get(folder.name)
        if entry is None:
            continue
        for rel in ("tables/scorecard.csv", "numbers.json"):
            entry["files"][rel] = shipped._sha256(folder / rel)
        entry["scorecard rejudged"] = (f"tools/scorecard_rescore.py at {commit}: the run's values, judged by the "
                                       f"current scorecard rules (no cell re-run)")
    shipped._write_manifest(manifest, profile, root)


if __name__ == "__main__":
    sys.exit(main())
