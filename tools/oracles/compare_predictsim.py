#!/usr/bin/env python3
"""gaussier2015's simulator (predictsim's pyss, jad-darrous/predictsim at 174c453,
fetched by tools/oracles/fetch_predictsim.sh) beside the engine: EASY (FCFS, requested
times: pyss's easy_backfill_scheduler, run as it is under Python 2.7) on a cleaned log,
job by job (share of identical starts, AvgWait, first divergence with its context).

  compare_predictsim.py [TRACE] [--untie none separate] [--json F]

'separate' transforms the input both simulators get: times scaled by 10^6, each
submission moved to a distinct offset 1 + rank within its second, and every p and p~
lengthened by the same job-specific offset in [1, 5*10^5) (p <= p~ kept): no two events
share an instant, so pyss's one-pass-per-event order cannot differ from the engine's
one pass per instant, and no two estimated ends coincide.
Python 2.7: PREDICTSIM_PYTHON, else python2.7 on PATH, else pyenv's 2.7.
Exit status: 0 done; 3 predictsim or Python 2.7 missing.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_ocst as co  # noqa: E402

SRC_GLOB = str(co.ROOT / "build" / "oracles" / "predictsim" / "src-*")
CONFIG = 'scheduler = {"name": "easy_backfill_scheduler"}\nnum_processors = None\nstats = False\n'


def python27() -> str | None:
    for cand in (os.environ.get("PREDICTSIM_PYTHON"), shutil.which("python2.7"),
                 str(Path.home() / ".pyenv/versions/2.7.18/bin/python2.7")):
        if cand and Path(cand).is_file():
            if subprocess.run([cand, "-c", "import sys; assert sys.version_info[:2] == (2, 7)"],
                              capture_output=True).returncode == 0:
                return cand
    return None


def separate(inp: co.Input) -> co.Input:
    K = co.K_TIME
    first = np.r_[True, inp.r[1:] != inp.r[:-1]]
    start_idx = np.maximum.accumulate(np.where(first, np.arange(inp.n), 0))
    rank = np.arange(inp.n) - start_idx
    u = 1 + (np.arange(inp.n, dtype=np.int64) * 7919) % 499_979
    return co.Input(inp.name, inp.m, inp.id, inp.r * K + 1 + rank, inp.p * K + u, inp.pe * K + u, inp.q,
                    K, ("separate",), list(inp.notes))


def run_pyss(inp: co.Input, swf: Path, py: str, src: Path) -> np.ndarray:
    cfg = swf.with_suffix(".cfg")
    cfg.write_text(CONFIG)
    out = swf.with_suffix(".pyss.swf")
    res = subprocess.run([py, "run_simulator.py", str(swf), str(cfg), str(out)], cwd=src,
                         capture_output=True, text=True)
    if res.returncode != 0 or not out.exists():
        raise RuntimeError(f"pyss failed ({res.returncode}): {res.stderr.strip()[-800:]}")
    data = np.loadtxt(out, comments=";", dtype=np.int64, usecols=(0, 1, 2), ndmin=2)
    pos = {int(i): k for k, i in enumerate(inp.id)}
    start = np.full(inp.n, -1, np.int64)
    for jid, r, w in data:
        start[pos[int(jid)]] = r + w
    return start


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", nargs="?", default="KTH-SP2")
    ap.add_argument("--untie", nargs="+", default=["none", "separate"], choices=("none", "separate"))
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    srcs = sorted(glob.glob(SRC_GLOB))
    py = python27()
    if not srcs or py is None:
        print("compare_predictsim: needs " + ("predictsim (tools/oracles/fetch_predictsim.sh)" if not srcs
                                               else "Python 2.7 (PREDICTSIM_PYTHON=...)"), file=sys.stderr)
        return 3
    co.WORK.mkdir(parents=True, exist_ok=True)
    base = co.load_log(args.trace)
    rows = []
    for u in args.untie:
        inp = base if u == "none" else separate(base)
        swf = co.WORK / f"{args.trace}-pyss-{u}.swf"
        co.write_swf(inp, swf)
        t0 = time.time()
        print(f"{args.trace} EASY-FCFS-FCFS untie={u}: running pyss (about a minute of CPU on KTH-SP2)...",
              file=sys.stderr, flush=True)
        sp = run_pyss(inp, swf, py, Path(srcs[-1]))
        se, bf = co.run_engine(inp, "FCFS-FCFS")
        same = se == sp
        fd = co.diagnose(inp, "FCFS-FCFS", se, sp, bf)
        if fd is not None:   # diagnose names the other side "ocst" and judges ocst's rules
            fd = {("pyss_starts" if k == "ocst_starts" else k): v for k, v in fd.items()
                  if k not in ("extra_ocst", "extra_ocst_min", "cause", "causes")}
        row = {"trace": args.trace, "policy": "FCFS-FCFS", "untie": u, "jobs": inp.n,
               "identical": int(same.sum()), "identical_share": float(same.mean()),
               "avgwait_engine": float((se - inp.r).mean() / inp.scale),
               "avgwait_pyss": float((sp - inp.r).mean() / inp.scale),
               "first_divergence": fd, "seconds": round(time.time() - t0, 1)}
        rows.append(row)
        print(f"{args.trace} EASY-FCFS-FCFS untie={u}: identical {100 * row['identical_share']:.2f} %, "
              f"AvgWait engine {row['avgwait_engine']:.1f} pyss {row['avgwait_pyss']:.1f} "
              f"({row['seconds']} s)", file=sys.stderr)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"predictsim": srcs[-1].rsplit("src-", 1)[1], "rows": rows},
                                        indent=1, default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
