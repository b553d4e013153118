#!/usr/bin/env python3
"""The scorecard of a run counted by paper: verdicts under the papers' text
and under identified readings (held-out rows only: a fit row keeps its text
verdict), the fit rows and the held-out rows on the fitted log's other weeks
apart; the rows that are not results (workload descriptions, properties) by
their verdict by the rule, on their own lines; the rows shown but not
counted; and how many misses (not reproduced, magnitude off, inconclusive)
still say only "unexplained".

    python tools/scorecard_by_paper.py [RESULTS]     # default: shipped/full

RESULTS is a folder of study folders (``shipped/full``, ``results/quick``),
each with ``tables/scorecard.csv``.  A CSV written before the role column
(issue 42) is counted as it was then: every row of an identified group under
its reading, and said so.
"""
from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from schedlab.protocol.scorecard import (INPUTS, MISSES, NOT_COMPARED, UNCOUNTED, VERDICTS,  # noqa: E402
                                         count_records, paper_key)

SHORT = {"reproduced": "R", "close": "C", "consistent, wide interval": "W", "direction only": "D",
         "direction only, magnitude off": "M", "inconclusive": "I", "not reproduced": "N"}


def paper_of(row: dict) -> str:
    return paper_key(row["paper"])


def tally(results) -> dict:
    """Counters by paper: text, identified (held-out only), fit rows, same-log rows (text and reading),
    inputs (by the rule), uncounted (by verdict), bare misses; and whether every CSV had roles."""
    t = {k: defaultdict(Counter) for k in ("text", "identified", "fit", "same log, text", "same log, reading",
                                           "inputs", "uncounted")}
    bare, roles = Counter(), True
    by_paper = defaultdict(list)
    for path in sorted(Path(results).glob("*/tables/scorecard.csv")):
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                by_paper[paper_of(row)].append(row)
                v, p = row["verdict"], paper_of(row)
                has_role = "role" in row
                roles &= has_role
                if v in INPUTS:
                    t["inputs"][p][row.get("verdict by the rule") or v] += 1
                    t["uncounted"][p][v] += 1
                    continue
                if v in UNCOUNTED:
                    t["uncounted"][p][v] += 1
                    continue
                idv = row.get("verdict, identified reading") or ""
                role = row.get("role", "held-out")
                if idv and role == "fit":
                    t["fit"][p][v] += 1
                if idv and role == "held-out, same log":
                    t["same log, text"][p][v] += 1
                    t["same log, reading"][p][idv] += 1
                if v in MISSES and row["explanation"].strip() in ("", "unexplained"):
                    bare[p] += 1
    # the counts by verdict: the scorecard's one count (schedlab.protocol.scorecard.count_records), as the paper's
    for p, recs in by_paper.items():
        if not roles:           # a CSV before the role column: every row of an identified group under its reading
            recs = [{**r, "role": r.get("role", "held-out")} for r in recs]
        for key, ident in (("text", False), ("identified", True)):
            c = count_records(recs, identified=ident)
            t[key][p].update({v: c[v] for v in VERDICTS if c[v]})
    return {"counts": t, "bare": bare, "roles": roles}


def _line(label, c, extra=""):
    n = sum(c[v] for v in VERDICTS)
    return (f"{label:<16}" + "".join(f"{c[v]:>6}" for v in VERDICTS)
            + f"{100 * (c['reproduced'] + c['close']) / max(n, 1):>8.1f}{n:>6}" + extra)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default=str(ROOT / "shipped" / "full"))
    args = ap.parse_args(argv)
    res = tally(args.results)
    t, bare = res["counts"], res["bare"]
    head = f"{'paper':<16}" + "".join(f"{SHORT[v]:>6}" for v in VERDICTS) + f"{'R+C %':>8}{'rows':>6}"
    titles = {"text": "under the papers' text (bare: misses explained only by 'unexplained')",
              "identified": "under identified readings, held-out rows only (fit rows and same-log rows keep "
                            "their text verdict)" if res["roles"] else
                            "under identified readings (no role column: fit rows counted under their reading)",
              "fit": "fit rows of identified readings (counted under the text above, never as predictions)",
              "same log, text": "held-out rows on the fitted log's other weeks, under the text (counted apart)",
              "same log, reading": "the same rows under the identified reading (counted apart)",
              "inputs": "not results: workload descriptions and properties, by their verdict by the rule "
                        "(never in R+C)"}
    for key, title in titles.items():
        counts = t[key]
        if not counts:
            continue
        print(f"-- {title}")
        print(head + ("  bare" if key == "text" else ""))
        total = Counter()
        for p in sorted(counts):
            total.update(counts[p])
            print(_line(p, counts[p], f"{bare[p]:>6}" if key == "text" else ""))
        print(_line("all", total, f"{sum(bare.values()):>6}" if key == "text" else ""))
    un = t["uncounted"]
    if un:
        print("-- shown, not counted")
        kinds = [v for v in UNCOUNTED if any(un[p][v] for p in un)]
        print(f"{'paper':<16}" + "".join(f"{k[:18]:>20}" for k in kinds))
        for p in sorted(un):
            print(f"{p:<16}" + "".join(f"{un[p][k]:>20}" for k in kinds))
        print(f"{'all':<16}" + "".join(f"{sum(un[p][k] for p in un):>20}" for k in kinds))
    print("R reproduced, C close, W consistent (wide interval), D direction only, M direction only (magnitude off), "
          f"I inconclusive, N not reproduced; '{NOT_COMPARED}' and the others: shown, not counted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
