"""The classification study: :func:`compute` runs the weekly classifiers
and the simulations as campaigns and hands datasets, tables and figures to
the driver (:func:`schedlab.protocol.study.run_study`), which writes them with
``numbers.json``, ``findings.json`` and ``parameters.json``."""
from __future__ import annotations

import hashlib
from typing import Any

from .scorecard import rows as scorecard_rows
from .. import Table
from .analysis import TraceResult, predictions_from
from .cells import FEATURE_NAMES, OUTCOMES, _prepared, _slug, campaign_schedule, campaigns_classify
from .figures import (figure_cumulative, figure_importance, figure_monthly, figure_small_large, figure_totals,
                      figure_weekly_scores)
from .params import Params
from .report import findings, numbers
from .tables import (table_6_4, table_6_5, table_6_6, table_dividers, table_gains, table_small_large,
                     table_totals, table_weekly_summary)


def _classify_dataset(ds):
    ds = ds.assign_coords(outcome=list(OUTCOMES), feature=list(FEATURE_NAMES))
    ds["outcome"].attrs["long_name"] = "TS, FS, TL, FL: true/false small/large (thesis §6.3.3)"
    ds["feature"].attrs["long_name"] = "classification feature (thesis Table 6.3)"
    ds["slot"].attrs["long_name"] = "position of a job among the jobs submitted in its week"
    ds["week"].attrs["long_name"] = "week of the trace (7-day periods from the first submission)"
    return ds


def _schedule_dataset(ds):
    ds["policy"].attrs["long_name"] = "queue policy P (P_R = P_B), with the waiting-time threshold"
    ds["variant"].attrs["long_name"] = "scheduling variant (thesis §6.5)"
    ds["week"].attrs["long_name"] = "week of the trace: cumulative values at its end"
    ds["month"].attrs["long_name"] = "30-day period from the first submission (jobs by submit time)"
    return ds


#: weeks a trace needs: the classifier of a week learns from the weeks before it
MIN_WEEKS = 2


def compute(p: Params, ctx) -> dict[str, Any]:
    """Run the study's campaigns (the weekly classifiers, then the
    simulations) through ``ctx`` and hand it every output:

    * ``datasets/classify-<trace>.nc`` (per week: divider, training size,
      confusion counts, feature importances, predicted classes) and
      ``datasets/schedule-<trace>.nc`` (per policy and variant);
    * ``tables/<name>.{csv,md}``, ``figures/<name>.{png,pdf}``,
      ``data/weekly_scores.csv``.

    Returns ``numbers`` (for the paper), ``findings``, ``results`` (a
    :class:`TraceResult` per trace), ``tables`` and ``figures``.
    """
    results: list[TraceResult] = []
    left_out = []
    for info in p.traces:
        n_weeks = _prepared(p, info).n_weeks
        if n_weeks < MIN_WEEKS:
            left_out.append(f"{info.name}: {n_weeks} week(s); a weekly classifier learns from the weeks before "
                            f"the one it classifies, so it needs at least {MIN_WEEKS}: the trace is left out "
                            "of this study.")
            ctx.log(f"note: {left_out[-1]}")
    usable = [info for info in p.traces if not any(n.startswith(f"{info.name}: ") for n in left_out)]
    if not usable:
        return {"numbers": {"left_out": left_out}, "findings": {"left_out": " ".join(left_out)}, "results": [],
                "tables": {}, "figures": {}, "left_out": left_out}
    campaigns = campaigns_classify(p)
    with ctx.timer("classify_s"):
        for info in usable:
            # one week per task: a week's forest costs up to seconds (its
            # training set grows week after week), so batches of weeks would
            # leave the last, largest ones to a single worker, and a week is
            # cached as soon as it is done
            ds = _classify_dataset(ctx.campaign(campaigns[info.name], batch=1))
            pr = _prepared(p, info)
            results.append(TraceResult(info.name, pr, ds, predictions_from(ds, pr)))
            ctx.dataset(f"classify-{_slug(info.name)}", ds)
    with ctx.timer("schedule_s"):
        for info, r in zip(usable, results):
            c = campaign_schedule(p, info, r.predicted)
            ds = _schedule_dataset(ctx.campaign(c))
            spec = ds.attrs["campaign"] if isinstance(ds.attrs.get("campaign"), dict) else c.to_dict()
            spec["params"] = {**spec["params"], "classes": "sha256:" + hashlib.sha256(
                c.params["classes"].encode()).hexdigest()}
            ds.attrs["campaign"] = spec          # the packed classes, by checksum
            r.schedule = ds
            ctx.dataset(f"schedule-{_slug(info.name)}", ds)

    tabs = {"table_6_4": table_6_4(results), "table_6_5": table_6_5(results), "table_6_6": table_6_6(results),
            "weekly": table_weekly_summary(results), "gains": table_gains(results), "totals": table_totals(results),
            "small_large": table_small_large(results), "dividers": table_dividers(results)}
    for name, table in tabs.items():
        ctx.table(name, table)
    rows = []
    for r in results:
        w = r.weekly
        for k in range(r.prepared.n_weeks):
            rows.append([r.name, k, float(r.classify.divider.values[k]), int(r.classify.train_jobs.values[k]),
                         *[int(x) for x in r.counts[k]], w["accuracy"][k], w["precision"][k], w["recall"][k]])
    ctx.data("weekly_scores", Table(["trace", "week", "divider_s", "train_jobs", *OUTCOMES, "accuracy",
                                     "precision", "recall"], rows))
    figs = {"weekly_scores": figure_weekly_scores(results), "importance": figure_importance(results),
            "cumulative": figure_cumulative(results), "monthly": figure_monthly(results),
            "small_large": figure_small_large(results), "totals": figure_totals(results)}
    fig_paths = {name: ctx.figure(name, fig) for name, fig in figs.items()}
    nums = {**numbers(results, p, ctx.profile), "left_out": left_out}
    found = findings(results, p)
    if left_out:
        found["left_out"] = " ".join(left_out)
    return {"numbers": nums, "findings": found, "results": results, "tables": tabs, "figures": fig_paths,
            "left_out": left_out, "scorecard": scorecard_rows(results, p)}
