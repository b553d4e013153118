#!/usr/bin/env python3
"""online-bandit's two abstract claims run by the seeds' own selection code beside the
engine's strategies, on the same resampled traces (issue 52 item 1).

The seeds' code is ocst at its ``zenodo-up`` tag (9f6d02f, 2017-04-02; the source of the
``obps-article`` branch, the release the paper cites) with obandit 42766b8, built by
tools/oracles/build_ocst_selection.sh into build/oracles/ocst-selection/ (nothing copied
here).  For each resample k of a log (the selection study's own resamples:
:func:`schedlab.science.online_bandit.resampled`, 104 weeks, seed 2017) this tool

* writes one input both simulators read: p := max(1, min(p, p~)) (the study kills a job
  at its request; ocst needs 0 < p <= p~), ids 1..n in (submit, input) order;
* runs ocst's commands as the period's code offers them, Θ = 40 h:
  baseline ``threshold --primary=wait --backfill=wait --threshold=144000`` (EASY(FCFS, 40 h));
  noisy ``bandit-onpolicy --clairvoyant --noisy --policies=<the 12> --period=Δ``;
  bandit ``bandit-onpolicy --hyperparameter=0.5 --policies=<the 12> --period=Δ``
  (``--hyperparameter`` is the probability of *exploiting* in that code, so 0.5 is the
  paper's ε = 0.5 either way), each with ``--seed=k``;
* runs the study's own cells' code for the same resample: EASY(FCFS, 40 h) and the noisy
  and bandit strategies with the study's random streams (so ours are the study's values
  for that resample);
* reports, per log and period, Σ_k W(strategy) / Σ_k W(FCFS) under both, and writes JSON.

What the seeds' selection code does differently from the paper's text (read in
src/bandit.ml and src/simulate.ml at 9f6d02f; the causes the scorecard rows name):
the bandit's reward is the waits of the jobs *started* in the period (incStat at start),
its counts start at 1; the policies are thresholded in the primary queue only and
backfilling is by ``--backfill`` (FCFS, unthresholded); noisy feedback re-simulates, at
each period's start, the jobs started during the past period plus the current queue from
an empty machine, backfilling by SQF, and multiplies each policy's period total by one
factor uniform in [0.8, 1.2] (not ±15 % per job).

Usage: ocst_selection.py [--ocst DIR] [--traces KTH-SP2,CEA-Curie] [--samples 2]
                         [--weeks 104] [--periods day,week] [--json F]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "tools" / "oracles"))

from ocst_period import prepare, write_swf  # noqa: E402  (same input format)

#: ocst's names of the 12 policies (9f6d02f's metrics.ml criteriaList), the study's order.
OCST_NAMES = {"FCFS": "wait", "LCFS": "mwait", "SPF": "spf", "LPF": "lpf", "SQF": "sqf", "LQF": "lqf",
              "SEXP": "expfact", "LEXP": "mexpfact", "SRF": "srf", "LRF": "lrf", "SAF": "saf", "LAF": "laf"}
THRESHOLD = 40 * 3600
PERIOD_S = {"day": 86400, "week": 604800}


def run_ocs(binary: Path, swf: Path, args: list[str], n: int, seed: int) -> tuple[np.ndarray, float]:
    """Each job's wait under one ocs command, and the command's CPU seconds."""
    out = swf.with_suffix(".out")
    cmd = [str(binary), *args, f"--seed={seed}", f"--output={out}", str(swf)]
    t0 = os.times()
    res = subprocess.run(cmd, capture_output=True, text=True)
    t1 = os.times()
    if res.returncode != 0:
        raise RuntimeError(f"ocs failed ({res.returncode}): {' '.join(cmd)}: {res.stderr.strip()[-400:]}")
    data = np.loadtxt(out, dtype=np.int64, usecols=(0, 2), ndmin=2)
    out.unlink()
    wait = np.full(n, -1, np.int64)
    wait[data[:, 0] - 1] = data[:, 1]
    if (wait < 0).any():
        raise RuntimeError(f"ocs: {int((wait < 0).sum())} jobs never started: {' '.join(cmd)}")
    return wait, (t1.children_user + t1.children_system) - (t0.children_user + t0.children_system)


def ocst_commands(policies, period: str) -> dict[str, list[str]]:
    pol = ",".join(OCST_NAMES[p] for p in policies)
    common = [f"--policies={pol}", f"--period={PERIOD_S[period]}", f"--threshold={THRESHOLD}"]
    return {"noisy": ["bandit-onpolicy", "--clairvoyant", "--noisy", *common],
            "bandit": ["bandit-onpolicy", "--hyperparameter=0.5", *common]}


def merge(paths: list[Path], out: Path, not_run: list[str] = ()) -> int:
    """One file from several runs of this tool on different logs (same build, weeks, seed): each log keeps
    its own resamples and date."""
    runs = [json.loads(p.read_text()) for p in paths]
    keys = ("ocst_commit", "obandit_commit", "seed", "threshold", "epsilon", "baseline_command")
    if any(r[k] != runs[0][k] for r in runs for k in keys):
        print("ocst_selection: the runs differ in " + ", ".join(k for k in keys if any(r[k] != runs[0][k] for r in runs)),
              file=sys.stderr)
        return 2
    res = {k: runs[0][k] for k in ("ocst_commit", "obandit_commit", "ocaml", *keys[2:])}
    res["commands"] = {p: c for r in runs for p, c in r["commands"].items()}
    res["tool"] = "tools/oracles/ocst_selection.py"
    res["traces"] = {}
    for r in runs:
        for t, rec in r["traces"].items():
            rec = {"resamples": rec.get("resamples", r.get("resamples")), "weeks": rec.get("weeks", r["weeks"]),
                   "date": rec.get("date", r["date"]),
                   **{k: v for k, v in rec.items() if k not in ("resamples", "weeks", "date")}}
            have = res["traces"].get(t)
            if have is None:
                res["traces"][t] = rec
                continue
            # the same log run again for other strategies: same resamples and baseline, the readings joined
            if (have["resamples"], have["weeks"]) != (rec["resamples"], rec["weeks"]) or \
                    have["ocst"]["FCFS"] != rec["ocst"]["FCFS"]:
                print(f"ocst_selection: {t}: the runs have other resamples or baselines", file=sys.stderr)
                return 2
            for who in ("ocst", "engine", "ratio"):
                have[who].update(rec[who])
            for who in ("ocst", "engine"):
                have["cpu_s"][who] += rec["cpu_s"][who]
            have["date"] = max(have["date"], rec["date"])
    res["date"] = max(rec["date"] for rec in res["traces"].values())
    # what the paper publishes (its abstract; Table 3, per log and period, is printed empty)
    res["published"] = {"noisy": {"factor EASY-FCFS / noisy, up to": 2.0},
                        "bandit": {"ratio bandit / EASY-FCFS (%), down to": 40.0},
                        "per log and period": "none: the paper's Table 3 is printed with placeholders"}
    res["not_run"] = {}
    for item in not_run:
        log, strategy, why = item.split(":", 2)
        res["not_run"].setdefault(log, {})[strategy] = why
    res["resamples"] = sorted({k for rec in res["traces"].values() for k in rec["resamples"]})
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(f"ocst_selection: merged {len(paths)} runs ({', '.join(res['traces'])}) into {out}")
    return 0


def main(argv=None) -> int:
    from schedlab.engine import metrics, sim
    from schedlab.science import online_bandit as ob
    from schedlab.science.online_selection import (PERIODS, POLICIES, WEEK, period_costs, period_edges,
                                                   run_strategy)
    from schedlab.studies.selection.cells import _rng

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ocst", type=Path, default=ROOT / "build" / "oracles" / "ocst-selection")
    ap.add_argument("--traces", default="KTH-SP2")
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--first", type=int, default=0, help="first resample index")
    ap.add_argument("--weeks", type=int, default=104)
    ap.add_argument("--seed", type=int, default=2017)
    ap.add_argument("--periods", default="day,week")
    ap.add_argument("--strategies", default="noisy,bandit")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--merge", type=Path, nargs="+", help="merge these outputs (of one build) into --json, and stop")
    ap.add_argument("--not-run", action="append", default=[], metavar="LOG:STRATEGY:WHY",
                    help="with --merge: record why a log has no run of a strategy")
    a = ap.parse_args(argv)
    if a.merge:
        return merge(a.merge, a.json, a.not_run)
    ocs = a.ocst / "ocs"
    if not ocs.exists():
        print(f"ocst_selection: {ocs} missing (bash tools/oracles/build_ocst_selection.sh)", file=sys.stderr)
        return 3
    stamp = json.loads((a.ocst / "BUILD.json").read_text())
    periods = [p for p in a.periods.split(",") if p]
    strategies = [s for s in a.strategies.split(",") if s]
    if not set(strategies) <= {"noisy", "bandit"}:
        print(f"ocst_selection: --strategies takes noisy and/or bandit, got {a.strategies!r}", file=sys.stderr)
        return 2
    out = {"ocst_commit": stamp["commit"], "obandit_commit": stamp["obandit_commit"], "ocaml": stamp["ocaml"],
           "weeks": a.weeks, "seed": a.seed, "threshold": THRESHOLD, "epsilon": 0.5,
           "resamples": list(range(a.first, a.first + a.samples)),
           "commands": {p: ocst_commands(POLICIES, p) for p in periods},
           "baseline_command": ["threshold", "--primary=wait", "--backfill=wait", f"--threshold={THRESHOLD}"],
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "traces": {}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for trace in [t for t in a.traces.split(",") if t]:
            rec = {"resamples": out["resamples"], "weeks": a.weeks, "ocst": {"FCFS": []}, "engine": {"FCFS": []},
                   "cpu_s": {"ocst": 0.0, "engine": 0.0}, "jobs": []}
            for p in periods:
                for s in strategies:
                    rec["ocst"][f"{s} {p}"] = []
                    rec["engine"][f"{s} {p}"] = []
            for k in out["resamples"]:
                jobs, m = ob.resampled(trace, None, a.weeks, a.seed, k)
                r, pp, pe, q = prepare(jobs)
                swf = tmp / f"{trace}-{k}.swf"
                write_swf(swf, r, pp, pe, q, m)
                n = r.size
                rec["jobs"].append(int(n))
                w, c = run_ocs(ocs, swf, out["baseline_command"], n, k)
                rec["ocst"]["FCFS"].append(float(w.sum()))
                rec["cpu_s"]["ocst"] += c
                t0 = time.process_time()
                base = sim.simulate(jobs, m, ob.easy("FCFS", THRESHOLD))
                rec["engine"]["FCFS"].append(float(metrics.wait(base).sum()))
                rec["cpu_s"]["engine"] += time.process_time() - t0
                for p in periods:
                    for s, cmd in ocst_commands(POLICIES, p).items():
                        if s not in strategies:
                            continue
                        w, c = run_ocs(ocs, swf, cmd, n, k)
                        rec["ocst"][f"{s} {p}"].append(float(w.sum()))
                        rec["cpu_s"]["ocst"] += c
                    t0 = time.process_time()
                    edges = period_edges(a.weeks * WEEK // PERIODS[p], PERIODS[p])
                    noisy = None
                    if "noisy" in strategies:
                        _exact, noisy, _ = period_costs(jobs, m, edges, POLICIES, THRESHOLD, 0.15,
                                                        _rng(a.seed, k, "noise", p, trace))
                    for s in strategies:
                        run = run_strategy(s, jobs, m, edges, policies=POLICIES, threshold=THRESHOLD,
                                           costs=noisy if s == "noisy" else None, epsilon=0.5, decay=1.0,
                                           rng=_rng(a.seed, k, s, p, trace) if s == "bandit" else None)
                        rec["engine"][f"{s} {p}"].append(float(metrics.wait(run.schedule).sum()))
                    rec["cpu_s"]["engine"] += time.process_time() - t0
                # the sums so far, written after every resample (a run stopped early keeps what it finished)
                rec["resamples"] = out["resamples"][:len(rec["jobs"])]
                rec["ratio"] = {who: {key: float(np.sum(v) / np.sum(rec[who]["FCFS"]))
                                      for key, v in rec[who].items() if key != "FCFS"}
                                for who in ("ocst", "engine")}
                out["traces"][trace] = rec
                if a.json:
                    a.json.parent.mkdir(parents=True, exist_ok=True)
                    a.json.write_text(json.dumps(out, indent=1) + "\n")
                print(f"{trace} resample {k}: " + "  ".join(
                    f"{key} ocst {rec['ocst'][key][-1] / rec['ocst']['FCFS'][-1]:.3f} engine "
                    f"{rec['engine'][key][-1] / rec['engine']['FCFS'][-1]:.3f}"
                    for key in rec["ocst"] if key != "FCFS"), flush=True)
            print(f"{trace}: ratio to EASY(FCFS, 40 h), ocst / engine: " + "  ".join(
                f"{key} {rec['ratio']['ocst'][key]:.3f} / {rec['ratio']['engine'][key]:.3f}"
                for key in rec["ratio"]["ocst"]) + f"  (CPU s: ocst {rec['cpu_s']['ocst']:.1f}, "
                f"engine {rec['cpu_s']['engine']:.1f})", flush=True)
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
