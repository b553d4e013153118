"""The your-policy study: the fixed-policy campaign of online-bandit §6.1
with your policies beside the built-in ones, then the gains."""
from __future__ import annotations

from typing import Any

from .. import Table
from ...expr import Expr, is_expr
from ...jobs import PYTHON_PREFIX, format_duration
from ...science import online_bandit
from .analysis import gains
from .figures import figure_gains
from .params import STUDY, Params

COLUMNS = ["trace", "policy", "yours", "change %", "95% CI", "CI excludes 0", "rank", "samples"]


def _reads_columns(policy: str) -> bool:
    """Whether a policy may read the jobs' own columns: an expression naming
    ``col.NAME``, or Python code (``py:module:name``)."""
    if policy.startswith(PYTHON_PREFIX):
        return True
    return is_expr(policy) and any(c != "user" for c in Expr(policy).columns)


def _runs(ctx, info, p: Params, pols: tuple):
    """The fixed-policy campaign of one log: the policies that read no column
    on the log as it is (the very cells of the policies and selection
    studies, cached once for all of them), those that do on the log with
    its columns (cells keyed by the columns' content), in one dataset."""
    import dataclasses

    import xarray as xr

    split = {False: [q for q in pols if not _reads_columns(q)], True: [q for q in pols if _reads_columns(q)]}
    if not info.columns or not split[True] or not split[False]:
        t = info if info.columns and split[True] else dataclasses.replace(info, columns=())
        return ctx.campaign(online_bandit.fixed_campaign(t, p.samples, p.weeks, p.seed, p.threshold, pols))
    parts = [ctx.campaign(online_bandit.fixed_campaign(t, p.samples, p.weeks, p.seed, p.threshold, tuple(qs)))
             for t, qs in ((dataclasses.replace(info, columns=()), split[False]), (info, split[True]))]
    ds = xr.concat(parts, dim="policy", combine_attrs="override").sel(policy=list(pols))
    ds.attrs["campaigns"] = "policies reading no column on the log as it is, the others on the log with its columns"
    return ds


def compute(params: Params, ctx) -> dict[str, Any]:
    """Through ``ctx``: ``datasets/runs-<trace>.nc`` (the campaign of each
    log), ``tables/gains``, ``figures/gains``; returns ``numbers`` (each
    policy's change, interval and rank per log) and ``rows``."""
    p = params
    pols = tuple(dict.fromkeys(p.compare + p.policies))
    datasets = {}
    for t in p.traces:
        ds = _runs(ctx, t, p, pols)
        ds["policy"].attrs["long_name"] = "queue policy P (P_R = P_B), EASY(P, Θ)"
        datasets[t.name] = ds
        ctx.dataset(f"runs-{t.name}", ds)
    rows = gains(datasets, p.policies, seed=p.seed)
    table = Table(COLUMNS, [[r["trace"], r["policy"], "yes" if r["yours"] else "", r["change_pct"],
                             f"[{r['low_pct']:.1f}, {r['high_pct']:.1f}]", r["excludes_0"], r["rank"], r["samples"]]
                            for r in rows],
                  title="Your policies beside the built-in ones: change (%) of the total waiting time vs "
                        "EASY(FCFS, Θ) on the same resampled traces (online-bandit Eq. 11)",
                  digits={"change %": 1},
                  notes=[f"EASY(P, Θ) with Θ = {format_duration(p.threshold)}, {p.samples} resampled traces of {p.weeks} weeks per "
                         "log; negative is better; 95 % percentile-bootstrap intervals over the traces (pairs "
                         "kept together); rank 1 is the largest reduction among the log's policies."])
    ctx.table("gains", table)
    fig = ctx.figure("gains", figure_gains(rows, [t.name for t in p.traces]))
    numbers = {"study": STUDY, "policies": list(p.policies), "compare": list(p.compare),
               "gains": {t.name: {r["policy"]: {k: r[k] for k in ("change_pct", "low_pct", "high_pct", "rank")}
                                  for r in rows if r["trace"] == t.name} for t in p.traces}}
    best = {t.name: min((r for r in rows if r["trace"] == t.name), key=lambda r: r["change_pct"])["policy"]
            for t in p.traces}
    numbers["best"] = best
    return {"numbers": numbers, "tables": {"gains": table}, "figures": {"gains": fig}, "rows": rows,
            "datasets": datasets}
