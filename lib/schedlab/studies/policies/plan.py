"""The policies study's campaigns for a set of parameters (:func:`campaigns`).

Kept apart from :mod:`.cells` on purpose: a cell's cached results are keyed by
the code of its module and of every module it imports
(:func:`schedlab.campaigns.fingerprint.cell_fingerprint`), and building the
campaigns needs the study's parameters and readings, which import the study
protocol; here, editing the scorecard or the protocol does not recompute the
cells (``tests/test_layers.py`` checks every study's cell modules)."""
from __future__ import annotations

from ...names import campaign_part
from ...campaigns.spec import Campaign
from ...engine import sim
from ...science import online_bandit
from ...workloads import traces as _traces
from .cells import OVERRUN, TABLE_POLICIES, TABLE_VARIANTS, TOP, _SAME_CELL, _THESIS_CELL, source_weeks
from .readings import pair_campaign, period_campaign


def _thresholds(threshold: int | None) -> list[str]:
    """Threshold labels of the original-log check: the chosen one, then none."""
    main = sim.format_duration(threshold)
    return [main] if main == "none" else [main, "none"]


def _period_traces(p) -> set[str]:
    """The names of the traces the ocst-04-24 period readings run on
    (``bandit_period_traces``; None: the online-bandit part's but CEA-Curie)."""
    chosen = p.bandit_period_traces
    if chosen is None:
        return {t.name for t in p.bandit_traces if t.name != "CEA-Curie"}
    return {t.name for t in chosen}


def campaigns(p) -> dict[str, Campaign]:
    """Every campaign of the study for parameters ``p`` (its Params), by key:
    ``lelong``, ``tables``, ``thesis:<trace>``, ``thesis-original``,
    ``bandit:<trace>``, ``pairs:<trace>`` (the queue pairs online-bandit Table
    2's label-map readings need, :mod:`.readings`).  Parts with no trace are left out."""
    out: dict[str, Campaign] = {}
    if p.lelong_trace is not None:
        out["lelong"] = Campaign(
            f"policies-lelong-{campaign_part(p.lelong_trace.name)}", cell="simulate",
            dims={"primary": list(p.lelong_policies), "backfill": list(p.lelong_policies)},
            params={"trace": _traces.text(p.lelong_trace), "overrun": OVERRUN["lelong"],
                    "workload": "resample", "weeks": p.lelong_weeks, "seed": p.seed,
                    "estimate": "requested"},
            metrics=["avg_wait", "max_wait", "mean_bsld", "jobs", "backfilled"])
    if p.table_traces:
        out["tables"] = Campaign(
            "policies-tables", cell=_SAME_CELL,
            dims={"trace": [_traces.text(t) for t in p.table_traces], **TABLE_VARIANTS,
                  "policy": list(TABLE_POLICIES)},
            params={"workload": "original"},
            metrics=["avg_wait", "max_wait", "mean_bsld", "jobs", "backfilled", "utilisation"])
    common = {"threshold_backfill": False, "overrun": OVERRUN["thesis"], "seed": p.seed, "top": TOP}
    for t in p.thesis_traces:
        weeks = p.thesis_weeks or source_weeks(_traces.text(t), None, OVERRUN["thesis"])
        out[f"thesis:{t.name}"] = Campaign(
            f"policies-thesis-{campaign_part(t.name)}", cell=_THESIS_CELL,
            dims={"sample": list(range(p.thesis_samples)), "policy": list(p.thesis_policies)},
            params={"trace": _traces.text(t), "workload": "resample", "weeks": weeks,
                    "threshold": p.thesis_threshold, **common})
    if p.thesis_traces:
        out["thesis-original"] = Campaign(
            "policies-thesis-original", cell=_THESIS_CELL,
            dims={"trace": [_traces.text(t) for t in p.thesis_traces], "policy": list(p.thesis_policies),
                  "overrun": ["kill", "drop"], "threshold": _thresholds(p.thesis_threshold)},
            params={"workload": "original", "cumulative": False,
                    **{k: v for k, v in common.items() if k != "overrun"}})
    readings = p.bandit_reading_samples and set(online_bandit.POLICIES) <= set(p.bandit_policies)
    period_traces = _period_traces(p)
    for t in p.bandit_traces:
        # the selection study's fixed-policy cells: the same simulations, run once for both studies
        out[f"bandit:{t.name}"] = online_bandit.fixed_campaign(
            t, p.bandit_samples, p.bandit_weeks, p.seed, p.bandit_threshold,
            p.bandit_policies + tuple(x for x in p.extra_policies if x not in p.bandit_policies))
        if readings:
            out[f"pairs:{t.name}"] = pair_campaign(t, p.bandit_reading_samples, p.bandit_weeks, p.seed,
                                                   p.bandit_threshold)
        if readings and t.name in period_traces:
            out[f"period:{t.name}"] = period_campaign(t, p.bandit_reading_samples, p.bandit_weeks, p.seed,
                                                      p.bandit_threshold)
    return out
