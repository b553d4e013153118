#!/usr/bin/env python3
"""The guard of a refactor: compare two numbers.json files (a study's, or the
paper's merged one) value by value, leaving out what is not science: measured
timings, creation dates, versions, commits and machine paths.

    python tools/compare_numbers.py OLD.json NEW.json [--rtol 0]

Prints every value that differs (path, old, new, relative size) and the
counts; exits 1 when a science value differs.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys

# keys that are not science: measured timings (of this machine and load),
# dates, versions, commits, the environment, and paths
TIMINGS = {"wall_s", "classify_s", "schedule_s", "figures_s", "fixed_cell_s", "learned_s", "load_s",
           "changepoints_s", "sensitivity_s", "strategies_cell_s", "synthetic_s", "total_s", "python_s",
           "requested_s", "c_s", "overall_speedup", "projected_full_profile_cpu_s",
           "projected_full_profile_wall_s", "max_seconds", "median_seconds", "seconds", "timing", "timings",
           "characterise_s",
           "slowdown",      # prediction's: ratios of measured wall times
           "cpu_seconds"}   # study 12's training: measured CPU time of this machine and load
NOT_SCIENCE = re.compile(r"^(created|git_commit|commit|dirty|git|schedlab_version|schedlab|core_version|"
                         r"prediction_version|outdir|cache_dir|path|paths|files|_notebook|lock_sha256|locked|"
                         r"python|environment_is_lock|provenance)$")


def flatten(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from flatten(v, f"{prefix}/{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from flatten(v, f"{prefix}[{i}]")
    else:
        yield prefix, obj


def science(path: str) -> bool:
    parts = [part for part in re.split(r"[/\[\]]", path) if part]
    return not any(NOT_SCIENCE.match(part) or part in TIMINGS for part in parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rtol", type=float, default=0.0)
    a = ap.parse_args(argv)
    old = dict(flatten(json.load(open(a.old))))
    new = dict(flatten(json.load(open(a.new))))
    diffs, skipped, same = [], 0, 0
    for k in sorted(set(old) | set(new)):
        if not science(k):
            skipped += 1
            continue
        o, n = old.get(k, "<absent>"), new.get(k, "<absent>")
        if isinstance(o, (int, float)) and isinstance(n, (int, float)) and not isinstance(o, bool):
            if o == n or (math.isfinite(o) and abs(n - o) <= a.rtol * max(abs(o), abs(n))):
                same += 1
                continue
            rel = abs(n - o) / max(abs(o), 1e-300)
            diffs.append((k, o, n, f"{rel:.3g}"))
        elif o == n:
            same += 1
        else:
            diffs.append((k, o, n, ""))
    for k, o, n, rel in diffs:
        print(f"{k}: {o!r} -> {n!r} {rel}")
    print(f"{same} equal, {len(diffs)} differ, {skipped} not science (timings, dates, versions, paths)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
