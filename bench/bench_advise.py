"""schedlab advise benchmark (issue 22): the whole advice on a log -- the
thresholds study's 49-pair grid with and without threshold, the prediction
triples, the online bandit, the learned mixed policy, the small-first
classifier, 30 resampled weeks per half -- from an empty cache (what a fresh
clone pays), then again from the cache.  Target: a year of a mid-size
machine (CTC-SP2: 430 processors, 11 months) in a few minutes -- under 5 --
on this 2-core machine.

Usage: python bench/bench_advise.py [LOG] [--workers N] [--weeks W]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from schedlab.tools.advise import advise

TARGET_S = 300.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", nargs="?", default="CTC-SP2")
    ap.add_argument("--workers", type=int, default=None, help="default: all cores")
    ap.add_argument("--weeks", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs, advs = [], []
        for _ in range(2):
            t = time.perf_counter()
            advs.append(advise(args.log, out=Path(tmp) / "out", cache_dir=Path(tmp) / "cache",
                               workers=args.workers, weeks=args.weeks, echo=None, progress=False))
            runs.append(time.perf_counter() - t)
    n = advs[0].numbers
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in n["timing"].items() if k not in ("wall_s", "cells_computed",
                                                                                   "cells_cached"))
    print(f"advise {args.log}: {n['candidates']} candidates, {args.weeks} resampled weeks per half, "
          f"{n['timing']['cells_computed']} cells computed; cold run's steps: {steps}")
    print(f"cold (empty cache)  {runs[0]:8.1f} s   target < {TARGET_S:.0f} s: "
          f"{'met' if runs[0] < TARGET_S else 'NOT MET'}")
    print(f"warm (all cached)   {runs[1]:8.1f} s")
    print(f"answer: {advs[0].first_screen().splitlines()[1].strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
