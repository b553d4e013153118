#!/usr/bin/env python3
"""The scorecard of a run counted by paper: verdicts under the papers' text
and, where the CSV has them, under identified readings; and how many rows
that are misses (not reproduced, magnitude off, inconclusive) still say only "unexplained".

    python tools/scorecard_by_paper.py [RESULTS]     # default: shipped/full

RESULTS is a folder of study folders (``shipped/full``, ``results/quick``),
each with ``tables/scorecard.csv``.
"""
from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from schedlab.protocol.scorecard import MISSES, UNCOUNTED, VERDICTS  # noqa: E402

SHORT = {"reproduced": "R", "close": "C", "consistent, wide interval": "W", "direction only": "D",
         "direction only, magnitude off": "M", "inconclusive": "I", "not reproduced": "N"}


def paper_of(row: dict) -> str:
    return row["paper"].split()[0].rstrip(",")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="?", default=str(ROOT / "shipped" / "full"))
    args = ap.parse_args(argv)
    text, ident = defaultdict(Counter), defaultdict(Counter)
    bare = Counter()
    for path in sorted(Path(args.results).glob("*/tables/scorecard.csv")):
        with open(path, newline="") as fh:
            for row in csv.DictReader(fh):
                v = row["verdict"]
                if v in UNCOUNTED:
                    continue
                p = paper_of(row)
                text[p][v] += 1
                ident[p][row.get("verdict, identified reading") or v] += 1
                if v in MISSES and row["explanation"].strip() in ("", "unexplained"):
                    bare[p] += 1
    cols = [v for v in VERDICTS]
    print(f"{'paper':<16}" + "".join(f"{SHORT[v]:>6}" for v in cols) + f"{'R+C %':>8}{'bare':>6}   (text | identified)")
    for name, counts in (("text", text), ("identified", ident)):
        total = Counter()
        for p in sorted(counts):
            c = counts[p]
            total.update(c)
            n = sum(c.values())
            print(f"{p:<16}" + "".join(f"{c[v]:>6}" for v in cols)
                  + f"{100 * (c['reproduced'] + c['close']) / max(n, 1):>8.1f}" + f"{bare[p] if name == 'text' else '':>6}"
                  + f"   {name}")
        n = sum(total.values())
        print(f"{'all':<16}" + "".join(f"{total[v]:>6}" for v in cols)
              + f"{100 * (total['reproduced'] + total['close']) / max(n, 1):>8.1f}"
              + f"{sum(bare.values()) if name == 'text' else '':>6}   {name}, {n} rows")
    print("R reproduced, C close, W consistent (wide interval), D direction only, M direction only (magnitude off), "
          "I inconclusive, N not reproduced; bare: misses (N, M, I) explained only by 'unexplained'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
