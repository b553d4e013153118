"""The dispatching study, :func:`compute`: per log, the agent's campaign
(trained on the first half, run frozen on held-out sequences of the second)
and the heuristics' campaign on the same sequences, then the table, the
figures and the numbers handed to the driver."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import Table
from ...campaigns.spec import Campaign
from ...names import campaign_part
from ...workloads import traces as _traces
from . import cells
from .analysis import REFERENCE, arms, rows as arm_rows
from .figures import figure_heldout, figure_learning
from .params import STUDY, Params

COLUMNS = ["trace", "arm", "mean bsld", "95% CI", f"vs {REFERENCE} %", "95% CI (paired)", "CI excludes 0", "rank",
           "sequences"]


def _fixed(p: Params, info) -> dict:
    return {"trace": _traces.text(info), "rules": p.rules, "sequence": p.sequence, "sequences": p.sequences}


def agent_campaign(p: Params, info) -> Campaign:
    return Campaign(f"{STUDY}-agent-{campaign_part(info.name)}", cell=f"{cells.__name__}:agent_cell",
                    dims={"train_seed": list(p.train_seeds)},
                    params={**_fixed(p, info), "seed": p.seed, "epochs": p.epochs, "envs": p.envs, "group": p.group,
                            "lr": p.lr})


def heuristics_campaign(p: Params, info) -> Campaign:
    return Campaign(f"{STUDY}-heuristics-{campaign_part(info.name)}", cell=f"{cells.__name__}:heuristic_cell",
                    dims={"heuristic": list(cells.HEURISTICS)}, params={**_fixed(p, info), "seed": p.seed})


def _training(curve: dict, d, last: int) -> dict:
    """What one agent's training took and did (for numbers.json)."""
    return {"steps": int(d.train_steps.values), "cpu_seconds": float(d.train_cpu.values),
            "first_epochs_vs_sjf": float(np.mean(curve["agent"][:last]) / np.mean(curve["sjf"][:last])),
            "last_epochs_vs_sjf": float(np.mean(curve["agent"][-last:]) / np.mean(curve["sjf"][-last:])),
            "validation_before": float(curve["check_bsld"][0]), "validation_after": float(curve["check_bsld"][-1])}


def compute(params: Params, ctx) -> dict[str, Any]:
    """Through ``ctx``: ``datasets/agent-<trace>.nc``,
    ``datasets/heuristics-<trace>.nc``, ``tables/heldout``,
    ``figures/learning``, ``figures/heldout``; returns ``numbers`` (each
    arm's mean bounded slowdown, interval, change against SJF and rank per
    log, and the training's size), ``findings`` and ``rows``."""
    p = params
    if p.envs % p.group:
        from ...errors import InputError
        raise InputError(f"envs ({p.envs}) must be a multiple of group ({p.group})")
    rows, curves, training, datasets, left_out = [], {}, {}, {}, []
    for info in p.traces:
        n = len(_traces.cleaned(info).jobs)
        if n // 2 < p.sequence:
            left_out.append(f"{info.name}: {n} jobs; the agent trains on sequences of the log's first half and is "
                            f"evaluated on its second, so it needs at least {2 * p.sequence} (two sequences of "
                            f"{p.sequence}): the trace is left out of this study.")
            ctx.log(f"note: {left_out[-1]}")
    usable = [t for t in p.traces if not any(n.startswith(f"{t.name}: ") for n in left_out)]
    if not usable:
        return {"numbers": {"study": STUDY, "left_out": left_out}, "findings": {"left_out": " ".join(left_out)},
                "tables": {}, "figures": {}, "rows": [], "left_out": left_out}
    names = {s: cells.AGENT if len(p.train_seeds) == 1 else f"{cells.AGENT}-s{s}" for s in p.train_seeds}
    for t in usable:
        agents = ctx.campaign(agent_campaign(p, t))
        heur = ctx.campaign(heuristics_campaign(p, t))
        ctx.dataset(f"agent-{t.name}", agents)
        ctx.dataset(f"heuristics-{t.name}", heur)
        datasets[t.name] = {"agent": agents, "heuristics": heur}
        by_arm = {names[s]: agents.sel(train_seed=s) for s in p.train_seeds}
        rows += arm_rows(arms(by_arm, heur), t.name, seed=p.seed)
        first = by_arm[names[p.train_seeds[0]]]
        curves[t.name] = {"reference": dict(zip(cells.HEURISTICS, first.check_heuristic_bsld.values.tolist())),
                          "agents": {a: {"agent": d.curve_agent.values, "sjf": d.curve_sjf.values,
                                         "fcfs": d.curve_fcfs.values, "check_epoch": d.check_epoch.values,
                                         "check_bsld": d.check_bsld.values} for a, d in by_arm.items()}}
        last = max(1, p.epochs // 10)
        training[t.name] = {"episodes": p.epochs * p.envs, **{a: _training(c, d, last) for (a, c), d in
                                                             zip(curves[t.name]["agents"].items(), by_arm.values())},
                            "validation_heuristics": curves[t.name]["reference"]}
    order = list(cells.HEURISTICS) + list(names.values())
    table = Table(COLUMNS, [[r["trace"], r["arm"], r["mean_bsld"], f"[{r['low']:.2f}, {r['high']:.2f}]",
                             r["vs_sjf_pct"], f"[{r['vs_sjf_low']:.1f}, {r['vs_sjf_high']:.1f}]",
                             r["vs_sjf_excludes_0"], r["rank"], r["sequences"]]
                            for r in sorted(rows, key=lambda r: (r["trace"], order.index(r["arm"])))],
                  title="RLScheduler's kernel network trained by REINFORCE beside SchedGym's heuristics: mean "
                        "bounded slowdown on held-out sequences of each log's second half",
                  digits={"mean bsld": 2, f"vs {REFERENCE} %": 1},
                  notes=[f"rules: {p.rules}; {p.sequences} sequences of {p.sequence} jobs drawn from each log's "
                         f"second half (seed {p.seed}); each agent (training seeds {list(p.train_seeds)}) trained "
                         f"for {p.epochs} epochs of {p.envs} "
                         f"episodes ({p.envs // p.group} sequences of the first half, {p.group} episodes each), "
                         f"then run frozen, greedily; 95 % percentile-bootstrap intervals over the sequences; "
                         f"'vs {REFERENCE}': mean over mean on the same sequences, minus 1 (negative: better than "
                         f"{REFERENCE})."])
    ctx.table("heldout", table)
    figures = {"learning": ctx.figure("learning", figure_learning(curves, p.envs)),
               "heldout": ctx.figure("heldout", figure_heldout(rows, [t.name for t in usable]))}
    numbers = {"study": STUDY, "rules": p.rules, "sequence": p.sequence, "sequences": p.sequences,
               "arms": {t.name: {r["arm"]: {k: r[k] for k in ("mean_bsld", "low", "high", "vs_sjf_pct",
                                                              "vs_sjf_low", "vs_sjf_high", "rank")}
                                 for r in rows if r["trace"] == t.name} for t in usable},
               "training": training, "left_out": left_out}
    numbers["agent_rank"] = {t.name: {a: numbers["arms"][t.name][a]["rank"] for a in names.values()}
                             for t in usable}
    findings = {"left_out": " ".join(left_out)} if left_out else {}
    for t in usable:
        a = numbers["arms"][t.name]
        best = min(cells.HEURISTICS, key=lambda h: a[h]["mean_bsld"])
        said = []
        for name in names.values():
            ag = a[name]
            verdict = ("better than" if ag["vs_sjf_high"] < 0 else "worse than" if ag["vs_sjf_low"] > 0
                       else "not distinguishable from")
            said.append(f"{name}: mean bsld {ag['mean_bsld']:.2f} [{ag['low']:.2f}, {ag['high']:.2f}], rank "
                        f"{ag['rank']} of {len(a)}, {verdict} SJF ({ag['vs_sjf_pct']:+.1f} % "
                        f"[{ag['vs_sjf_low']:+.1f}, {ag['vs_sjf_high']:+.1f}])")
        findings[t.name] = (f"on {p.sequences} held-out sequences, " + "; ".join(said)
                            + f"; the best heuristic {best} {a[best]['mean_bsld']:.2f}")
    return {"numbers": numbers, "findings": findings, "tables": {"heldout": table}, "figures": figures,
            "rows": rows, "datasets": datasets, "left_out": left_out}
