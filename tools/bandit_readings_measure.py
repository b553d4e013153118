"""Measure online-bandit Table 2's candidate readings (policies/readings.py)
on every row: the counted reading (EASY(P, 40h), threshold in both queues)
and each label-map reading, on the same resampled traces.  Prints one table
(readings x rows) and writes build/bandit/readings.json.  Usage:
    .venv/bin/python tools/bandit_readings_measure.py SAMPLES [CEA_SAMPLES]"""
import json
import sys
import time

import numpy as np
import xarray as xr

from schedlab.science import online_bandit as ob
from schedlab.workloads import traces as _traces
from schedlab.protocol.scorecard import Reading, Row, identify
from schedlab.studies.policies import readings as R
from schedlab.studies.policies.analysis import total_change
from schedlab.studies.policies.params import PUBLISHED, Params

n_small = int(sys.argv[1]) if len(sys.argv) > 1 else 20
n_cea = int(sys.argv[2]) if len(sys.argv) > 2 else 8
from schedlab.protocol.study import validate
p = validate(Params, {})
res = {}
for info in p.bandit_traces:
    n = n_cea if info.name == "CEA-Curie" else n_small
    fixed = np.zeros((len(ob.POLICIES), n))
    cfgs = R.pair_configs()
    pairs = np.zeros((len(cfgs), n))
    t0 = time.time()
    for s in range(n):
        base = {"trace": _traces.text(info), "weeks": p.bandit_weeks, "seed": p.seed, "sample": s,
                "threshold": p.bandit_threshold}
        for i, pol in enumerate(ob.POLICIES):
            fixed[i, s] = ob.fixed_cell({**base, "policy": pol})["sum_wait"][1]
        for i, c in enumerate(cfgs):
            pairs[i, s] = R.pair_cell({**base, "config": c})["sum_wait"][1]
        print(f"{info.name}: sample {s + 1}/{n} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    fds = xr.Dataset({"sum_wait": (("policy", "sample"), fixed)}, coords={"policy": list(ob.POLICIES)})
    pds = xr.Dataset({"sum_wait": (("config", "sample"), pairs)}, coords={"config": cfgs})
    names = [x for x in ob.POLICIES if x != "FCFS"]
    per = {"as printed (counted)": {x: total_change(fds.sum_wait.sel(policy=x).values,
                                                     fds.sum_wait.sel(policy="FCFS").values, seed=p.seed)
                                    for x in names}}
    for v in R.READING_TEXT:
        per[v] = (R.relabel_changes(dict.fromkeys(names), fds, v, p.seed) if v in R.RELABELS
                  else R.pair_changes(pds, v, names, p.seed))
    res[info.name] = {"samples": n, "readings": {k: {x: list(map(float, t)) for x, t in d.items()}
                                                 for k, d in per.items()}}
json.dump(res, open("build/bandit/readings.json", "w"), indent=1)

# the table: one line per (trace, name), published then each reading (%)
keys = list(next(iter(res.values()))["readings"])
short = {k: k.replace("as printed (counted)", "printed") for k in keys}
print("trace      name  pub " + " ".join(f"{short[k]:>16}" for k in keys))
rows = []
for tr, d in res.items():
    pub = PUBLISHED["bandit_table2"].get(tr, {})
    for x in pub:
        vals = {k: [100 * v for v in d["readings"][k][x]] for k in keys}
        c = vals["as printed (counted)"]
        row = Row("online-bandit §6.2", "Table 2", tr, f"total wait change vs FCFS, {x} (%)", pub[x], *c,
                  baseline=0.0, readings=[Reading(k, R.READING_TEXT[k], *vals[k]) for k in R.READING_TEXT])
        rows.append(row)
        print(f"{tr:10} {x:5} {pub[x]:4.0f} " + " ".join(f"{vals[k][0]:7.1f} {row.judge_as(Reading('', '', *vals[k]))[:8]:>8}"
                                                         if k != keys[0] else f"{vals[k][0]:7.1f} {row.verdict[:8]:>8}"
                                                         for k in keys))
summary = identify(rows, group="online-bandit Table 2", fit=lambda r: r.trace == R.FIT_TRACE, fit_label=R.FIT_LABEL)
print(json.dumps({k: v for k, v in summary.items() if k != "candidates"}, indent=1))
for k, c in summary["candidates"].items():
    print(f"{k:18} fit good {c['fit good']:2d}  held-out good {c['held-out good']:2d}  fit med|log| "
          f"{c['fit median |log ratio|']}  held med|log| {c['held-out median |log ratio|']}  held {c['held-out verdicts']}")
