"""The learning study, :func:`compute`: the held-out campaign of each log
(the 12 fixed policies, the selection study's strategies and the learned
selector on the same resampled traces of the log's second half), then the
table, the figure and the numbers handed to the driver."""
from __future__ import annotations

from typing import Any

from .. import Table
from ...campaigns.spec import Campaign
from ...jobs import format_duration
from ...names import campaign_part
from ...science.online_selection import POLICIES
from ...workloads import traces as _traces
from . import cells
from .analysis import rows as arm_rows
from .figures import figure_arms
from .params import STUDY, Params

COLUMNS = ["trace", "arm", "kind", "change %", "95% CI", "CI excludes 0", "rank", "samples"]


def campaign(p: Params, info) -> Campaign:
    arms = list(POLICIES) + list(cells.STRATEGIES) + [cells.AGENT]
    return Campaign(f"{STUDY}-{campaign_part(info.name)}", cell=f"{cells.__name__}:run_cell",
                    dims={"sample": list(range(p.samples)), "arm": arms},
                    params={"trace": _traces.text(info), "weeks": p.weeks, "seed": p.seed, "threshold": p.threshold,
                            "period": p.period, "episodes": p.episodes, "train_weeks": p.train_weeks})


def compute(params: Params, ctx) -> dict[str, Any]:
    """Through ``ctx``: ``datasets/runs-<trace>.nc``, ``tables/arms``,
    ``figures/arms``; returns ``numbers`` (each arm's change, interval and
    rank per log) and ``rows``."""
    p = params
    datasets = {}
    for t in p.traces:
        ds = ctx.campaign(campaign(p, t))
        ds["arm"].attrs["long_name"] = "a fixed policy EASY(P, Θ), a selection strategy, or the learned selector"
        datasets[t.name] = ds
        ctx.dataset(f"runs-{t.name}", ds)
    rows = arm_rows(datasets, cells.STRATEGIES, cells.AGENT, seed=p.seed)
    table = Table(COLUMNS, [[r["trace"], r["arm"], r["kind"], r["change_pct"],
                             f"[{r['low_pct']:.1f}, {r['high_pct']:.1f}]", r["excludes_0"], r["rank"], r["samples"]]
                            for r in sorted(rows, key=lambda r: (r["trace"], r["rank"]))],
                  title="A learned selector beside the fixed policies and the selection strategies: change (%) of "
                        "the total waiting time vs EASY(FCFS, Θ) on resampled traces of each log's held-out half",
                  digits={"change %": 1},
                  notes=[f"Θ = {format_duration(p.threshold)}; period: {p.period}; {p.samples} resampled traces of "
                         f"{p.weeks} weeks of each log's second half; 'learned': per-policy ridge regression on the "
                         f"queue and machine state, trained under full feedback on {p.episodes} resampled traces of "
                         f"{p.train_weeks} weeks of the first half (schedlab/PolicySelection-v0), then run frozen; "
                         "negative is better; 95 % percentile-bootstrap intervals over the traces."])
    ctx.table("arms", table)
    fig = ctx.figure("arms", figure_arms(rows, [t.name for t in p.traces]))
    numbers = {"study": STUDY, "period": p.period,
               "arms": {t.name: {r["arm"]: {k: r[k] for k in ("change_pct", "low_pct", "high_pct", "rank")}
                                 for r in rows if r["trace"] == t.name} for t in p.traces}}
    numbers["learned_rank"] = {t.name: next(r["rank"] for r in rows if r["trace"] == t.name and r["kind"] == "learned")
                               for t in p.traces}
    return {"numbers": numbers, "tables": {"arms": table}, "figures": {"arms": fig}, "rows": rows,
            "datasets": datasets}
