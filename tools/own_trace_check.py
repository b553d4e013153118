"""Runs every trace-based study, at tiny sizes, on generated logs with each
property that breaks analyses written for the papers' logs (tests/own_traces.py),
on bundled logs with a field removed, and on the imported Slurm sample.

    python tools/own_trace_check.py [--kinds base,no-waits] [--studies policies,...]
                                    [--notebooks] [--out DIR]

Prints one line per (log, study): ok with its wall time, or the error.  With
``--notebooks`` each study runs through its notebook (papermill, kernel
``schedlab``) instead of the driver directly.  Exit status 1 if any failed.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

def removed_field_logs(folder: Path) -> dict[str, Path]:
    """KTH-SP2's first 6 weeks with field 9, field 3 or the header's MaxProcs removed."""
    import numpy as np

    from schedlab.workloads import traces
    from schedlab.workloads.swf import write_swf

    t = traces.load("KTH-SP2")
    keep = t.fields["submit"] < 6 * 7 * 86400
    base = {k: v[keep] for k, v in t.fields.items()}
    header = [h for h in t.header_lines]
    out = {}
    for name, field in (("kth-no-field9", "req_time"), ("kth-no-field3", "wait")):
        f = dict(base)
        f[field] = np.full(keep.sum(), -1)
        out[name] = write_swf(folder / f"{name}.swf", f, header)
    out["kth-no-maxprocs"] = write_swf(folder / "kth-no-maxprocs.swf", base,
                                       [h for h in header if not h.startswith(("MaxProcs", "MaxNodes"))])
    return out


def slurm_log(folder: Path) -> Path:
    from schedlab.workloads import importers

    return importers.write(ROOT / "data" / "site-logs" / "slurm-22.05" / "sacct-all-steps.psv",
                           folder / "slurm.swf", "sacct").report and folder / "slurm.swf"


def run_one(study: str, log: Path, out: Path, cache: Path, notebook: bool) -> None:
    from own_traces import TINY

    if not notebook:
        from schedlab.protocol.study import run_study
        run_study(study, overrides=TINY[study], traces=[str(log)], outdir=out, workers=1, cache_dir=cache,
                  log=None, progress=False)
        return
    import papermill

    from schedlab.protocol.study import trace_fields, study_module
    from schedlab.studies.registry import get

    entry = get(study)
    params = dict(TINY[study])
    for k, many in trace_fields(study_module(entry).Params).items():
        params[k] = [str(log)] if many else str(log)
    params.update({"outdir": str(out), "cache_dir": str(cache), "workers": 1})
    papermill.execute_notebook(str(ROOT / entry.notebook), str(out / "executed.ipynb"), parameters=params,
                               kernel_name="schedlab", progress_bar=False, cwd=str(out))


def main(argv=None) -> int:
    from own_traces import KINDS, TINY, make_log

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kinds", default=",".join([*KINDS, "kth-no-field9", "kth-no-field3", "kth-no-maxprocs",
                                                 "slurm"]))
    ap.add_argument("--studies", default="traces,policies,thresholds,mixed,classification,prediction,selection,"
                                          "multiqueue,schedules")
    ap.add_argument("--notebooks", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="own-traces-"))
    out.mkdir(parents=True, exist_ok=True)
    logs = {k: make_log(out / f"{k}.swf", k) for k in KINDS}
    logs.update(removed_field_logs(out))
    logs["slurm"] = slurm_log(out)
    failed = 0
    for kind in args.kinds.split(","):
        for study in args.studies.split(","):
            t = time.perf_counter()
            folder = out / "results" / kind / study
            folder.mkdir(parents=True, exist_ok=True)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    run_one(study, logs[kind], folder, out / "cache", args.notebooks)
                print(f"ok    {kind:<22} {study:<15} {time.perf_counter() - t:6.1f} s", flush=True)
            except Exception as exc:                         # noqa: BLE001 -- reported, counted
                failed += 1
                last = traceback.extract_tb(exc.__traceback__)[-1]
                print(f"FAIL  {kind:<22} {study:<15} {type(exc).__name__}: {str(exc)[:300]} "
                      f"[{Path(last.filename).name}:{last.lineno}]", flush=True)
    print(f"{failed} failed; outputs in {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
