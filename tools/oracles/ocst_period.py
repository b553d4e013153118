#!/usr/bin/env python3
"""online-bandit Table 2 run by the seeds' own code of the paper's period beside the engine
(issue 42 item 6), job by job.

ocst at 9d6151d (2017-04-24; the last version holding src/bandit.ml and the selection
commands) is built outside this repository from a git copy (nothing copied here):

    git --git-dir=<freuk/ocst git dir> archive 9d6151d | tar -x -C DIR
    cd DIR && ocamlbuild -use-ocamlfind -I src src/simulator.native src/sampler.native

(Debian's ocaml-nox, ocaml-findlib, ocamlbuild, libbatteries-ocaml-dev,
libcmdliner-ocaml-dev are enough.)  This tool then, for each resample of a log:

* takes the fixed-policy cells' resampled trace (schedlab.science.online_bandit.resampled),
  or with --sampler ocst the period's ocs-sampler run on the cleaned log;
* makes one input both simulators read: p := max(1, min(p, p~)) (the runs kill a job at
  its request; ocst needs 0 < p <= p~), ids 1..n in (submit, input) order;
* runs ocst's ``threshold`` command (--primary=X --backfill=X --threshold=Θ: ocst's
  Table 2 runs as the period's code gives them, the threshold in both queues as the
  9999999+wait key) for each published name X, lower-cased as ocst spells it
  (FCFS: wait, LCFS: mwait, SEXP: expfact, LEXP: mexpfact);
* runs the engine's period cell policy (schedlab.studies.policies.period) for the same
  name read with the period's labels (S/L swapped for P, Q, A), ``/both/key/newest``;
* prints, per name, the share of jobs with the same start, the total waits, and Eq. 11's
  change against FCFS (per resample; the mean over resamples) under both.

Usage: ocst_period.py --ocst DIR [--trace KTH-SP2] [--samples 3] [--weeks 104]
                      [--seed S] [--threshold 40h] [--sampler ours|ocst] [--json F]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lib"))

OCST_NAME = {"FCFS": "wait", "LCFS": "mwait", "SEXP": "expfact", "LEXP": "mexpfact"}


def ocst_name(name: str) -> str:
    return OCST_NAME.get(name, name.lower())


def prepare(jobs):
    """(order, r, p, p~, q): the one input both simulators read."""
    o = np.lexsort((np.arange(len(jobs)), jobs.submit))
    r = np.asarray(jobs.submit)[o].astype(np.int64)
    pe = np.maximum(np.asarray(jobs.req)[o].astype(np.int64), 1)
    p = np.maximum(np.minimum(np.asarray(jobs.run)[o].astype(np.int64), pe), 1)
    q = np.asarray(jobs.procs)[o].astype(np.int64)
    return r, p, pe, q


def write_swf(path: Path, r, p, pe, q, m: int, user=None) -> None:
    n = r.size
    u = np.full(n, -1) if user is None else user
    cols = np.column_stack([np.arange(1, n + 1), r, np.full(n, -1), p, q, np.full(n, -1), np.full(n, -1), q, pe,
                            np.full(n, -1), np.ones(n, np.int64), u, *[np.full(n, -1)] * 6]).astype(np.int64)
    with open(path, "w") as fh:
        fh.write(f"; MaxProcs: {m}\n")
        np.savetxt(fh, cols, fmt="%d", delimiter=" ")


def run_ocst(binary: Path, swf: Path, name: str, threshold: int, n: int) -> np.ndarray:
    out = swf.with_suffix(f".{name}.out")
    cmd = [str(binary), "threshold", f"--primary={ocst_name(name)}", f"--backfill={ocst_name(name)}",
           f"--threshold={threshold}", "--th_objective=wait", f"--output={out}", str(swf)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"ocst failed ({res.returncode}): {' '.join(cmd)}: {res.stderr.strip()[-400:]}")
    data = np.loadtxt(out, dtype=np.int64, usecols=(0, 1, 2), ndmin=2)
    out.unlink()
    wait = np.full(n, -1, np.int64)
    wait[data[:, 0] - 1] = data[:, 2]
    return wait


def ocst_sampler(binary: Path, log_swf: Path, seed: int, out: Path) -> np.ndarray:
    res = subprocess.run([str(binary), "-i", str(log_swf), "-o", str(out), "-seed", str(seed)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"ocs-sampler failed: {res.stderr.strip()[-400:]}")
    return np.loadtxt(out, dtype=np.int64, ndmin=2, comments=";")


def main(argv=None) -> int:
    from schedlab.engine import sim
    from schedlab.jobs import Jobs
    from schedlab.science import online_bandit as ob
    from schedlab.studies.policies import period
    from schedlab.studies.policies.readings import version_map
    from schedlab.workloads import traces as _traces

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ocst", required=True, type=Path, help="the built ocst tree (simulator.native, sampler.native)")
    ap.add_argument("--trace", default="KTH-SP2")
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--weeks", type=int, default=104)
    ap.add_argument("--seed", type=int, default=2017)
    ap.add_argument("--threshold", type=int, default=40 * 3600)
    ap.add_argument("--sampler", choices=("ours", "ocst"), default="ours")
    ap.add_argument("--policies", default=",".join(ob.POLICIES))
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    sim_bin, samp_bin = a.ocst / "simulator.native", a.ocst / "sampler.native"
    if not sim_bin.exists():
        print(f"ocst_period: {sim_bin} missing (build it: see this file's docstring)", file=sys.stderr)
        return 3
    names = [n for n in a.policies.split(",") if n]
    if "FCFS" not in names:
        names.insert(0, "FCFS")
    rows = {n: {"same_start": [], "ocst_sum_wait": [], "engine_sum_wait": []} for n in names}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for s in range(a.samples):
            if a.sampler == "ours":
                jobs, m = ob.resampled(a.trace, None, a.weeks, a.seed, s)
            else:
                c = _traces.cleaned(a.trace, overrun=ob.CLEANING)
                m = c.m
                r, p, pe, q = prepare(c.jobs)
                o = np.lexsort((np.arange(len(c.jobs)), c.jobs.submit))
                log = tmp / "log.swf"
                write_swf(log, r, p, pe, q, m, np.asarray(c.jobs.user)[o])
                d = ocst_sampler(samp_bin, log, a.seed + s, tmp / "sampled.swf")
                jobs = Jobs(d[:, 1], d[:, 3], d[:, 8], d[:, 4].astype(np.int32), None, np.zeros(len(d), np.int64))
            r, p, pe, q = prepare(jobs)
            swf = tmp / f"s{s}.swf"
            write_swf(swf, r, p, pe, q, m)
            same = Jobs(r, p, pe, q.astype(np.int32))
            for n in names:
                w_o = run_ocst(sim_bin, swf, n, a.threshold, r.size)
                pr = version_map("S/L P,Q,A", n)[0]
                sch = sim.simulate(same, m, period.period_policy(pr, pr, {"both", "key"}, a.threshold), tie="newest")
                w_e = sch.start - r
                rows[n]["same_start"].append(float(np.mean(w_o == w_e)))
                rows[n]["ocst_sum_wait"].append(float(w_o.sum()))
                rows[n]["engine_sum_wait"].append(float(w_e.sum()))
                print(f"sample {s} {n:5s} same start {100 * np.mean(w_o == w_e):6.2f} %  ocst {w_o.sum():.4g}  "
                      f"engine {w_e.sum():.4g}", flush=True)
    base_o = np.array(rows["FCFS"]["ocst_sum_wait"])
    base_e = np.array(rows["FCFS"]["engine_sum_wait"])
    for n in names:
        ro, re_ = np.array(rows[n]["ocst_sum_wait"]), np.array(rows[n]["engine_sum_wait"])
        rows[n]["ocst_change_pct"] = float(100 * np.mean(ro / base_o - 1))
        rows[n]["engine_change_pct"] = float(100 * np.mean(re_ / base_e - 1))
        print(f"{n:5s} same start {100 * np.mean(rows[n]['same_start']):6.2f} %  change vs FCFS: ocst "
              f"{rows[n]['ocst_change_pct']:+7.2f} %  engine {rows[n]['engine_change_pct']:+7.2f} %")
    if a.json:
        a.json.write_text(json.dumps({"trace": a.trace, "samples": a.samples, "weeks": a.weeks, "seed": a.seed,
                                      "threshold": a.threshold, "sampler": a.sampler, "ocst_commit": "9d6151d",
                                      "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
