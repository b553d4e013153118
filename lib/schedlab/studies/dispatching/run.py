"""The dispatching study, :func:`compute`: the campaigns, then the tables,
figures and numbers handed to the driver (schedlab.protocol.study.run_study),
which writes them."""
from __future__ import annotations

from typing import Any

from ...campaigns.spec import Campaign
from ...workloads import traces as _traces
from . import cells
from .analysis import per_trace
from .figures import figure_waits
from .params import STUDY, Params
from .report import findings, numbers
from .tables import table_summary, table_weeks


def compute(params: Params, ctx) -> dict[str, Any]:
    """Through ``ctx``: ``tables/{weeks,summary}``, ``figures/waits``."""
    datasets = {}
    for info in params.traces:
        weeks = cells.busy_weeks(_traces.cleaned(info).jobs, params.weeks)
        campaign = Campaign(f"{STUDY}-{info.name}", {"week": weeks},
                            {"trace": _traces.text(info), "policy": params.policy},
                            cell=f"{cells.__name__}:week_cell")
        datasets[info.name] = ctx.campaign(campaign)
    summary = per_trace(datasets)
    tables = {"weeks": ctx.table("weeks", table_weeks(datasets)),
              "summary": ctx.table("summary", table_summary(summary))}
    figures = {"waits": ctx.figure("waits", figure_waits(datasets, params.policy))}
    return {"numbers": numbers(summary, params.policy), "findings": findings(summary, params.policy),
            "tables": tables, "figures": figures, "datasets": datasets}
