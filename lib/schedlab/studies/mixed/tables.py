"""The tables of the mixed-policies study, the thesis' published values
(``published.toml``, read into :data:`PUBLISHED`) beside ours."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...engine import sim
from .. import Table, load_published
from .analysis import RTOL, Analysis, _ranges, _search_sums
from .params import OPTIMISERS, POLICIES

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using "
          "Machine Learning and Statistical analysis, PhD thesis, Université Grenoble "
          "Alpes, 2021, ch. 5 (after Legrand, Trystram and Zrigui, IPDPS 2019)")


def _published() -> tuple[dict[str, Any], tuple[str, ...]]:
    """:data:`PUBLISHED` and :data:`PUBLISHED_NOTES` from ``published.toml``."""
    doc = load_published("schedlab.studies.mixed")
    table_5_1 = {name: tuple(v) for name, v in doc["table_5_1"]["policies"].items()}
    thresholds = {doc[t]["trace"]: {name: tuple(v) for name, v in doc[t]["policies"].items()}
                  for t in ("table_5_2", "table_5_3", "table_5_4", "table_5_5")}
    notes = (doc["table_5_1"]["notes"][0], doc["table_5_2"]["notes"][0])
    return {"table_5_1": table_5_1, "tables_5_2_5_5": thresholds}, notes


#: Published values (thesis Tables 5.1-5.5, from ``published.toml``).
#: ``table_5_1``: policy -> (training, testing), the sums of the weekly
#: average bsld of SDSC-SP2 over the training (28/29-64) and testing
#: (65-100) weeks; ``tables_5_2_5_5``: trace -> policy -> the sums over all
#: the weeks of the trace at the thresholds (none, 2.31 days, 20 hours), for
#: SAF and FCFS (the thesis publishes pure policies only).
#: :data:`PUBLISHED_NOTES`: what each of the two says, shown with our tables.
PUBLISHED, PUBLISHED_NOTES = _published()
_TABLE_ORDER = tuple(PUBLISHED["table_5_1"])


def _thr_text(t: int | None) -> str:
    if t is None:
        return "none"
    if t % 3600 == 0 and t < 4 * 86400:
        return f"{t // 3600} h"
    return f"{t / 86400:.2f} d"


def table_5_1(a: Analysis) -> Table:
    """Thesis Table 5.1 (sums over the training and testing weeks) beside ours."""
    sums = a.weeks.sums()
    extra = _search_sums(a)
    rows = []
    for name in _TABLE_ORDER + tuple(p for p in POLICIES if p not in _TABLE_ORDER) + tuple(extra):
        pub = PUBLISHED["table_5_1"].get(name, (None, None)) if a.name == "SDSC-SP2" else (None, None)
        tr, te = (sums[name][0], sums[name][1]) if name in sums else extra[name]
        rows.append([name, pub[0], tr, pub[1], te])
    (a0, b0), (c0, d0) = _ranges(a.weeks)
    return Table(["policy", "training (thesis)", "training", "testing (thesis)", "testing"], rows,
                 title=f"Sums of the weekly average bsld, {a.name}: training weeks {a0}-{b0}, testing "
                       f"weeks {c0}-{d0} (thesis Table 5.1)",
                 notes=[f"w*: the weekly optimum of the 3-feature grid (resolution n = {a.weeks.resolution}, "
                        f"{len(a.weeks.points)} points); w*_train: the grid point with the lowest sum over the "
                        "training weeks; w_greedy: last week's optimum; xnes*/cma*: black-box weekly optima "
                        "(3 or 6 features).", *PUBLISHED_NOTES[:1]])


def table_learning(analyses: Sequence[Analysis], period: str = "week") -> Table:
    """Every trace: sums of the weekly (monthly) averages per strategy over
    the training, testing and all periods."""
    rows = []
    for a in analyses:
        lr = a.weeks if period == "week" else a.months
        if lr is None:
            continue
        sums = lr.sums()
        extra = _search_sums(a) if period == "week" else {}
        (a0, b0), (c0, d0) = _ranges(lr)
        order = sorted(sums, key=lambda k: sums[k][0])
        for k in order:
            rows.append([a.name, k, f"{a0}-{b0}", sums[k][0], f"{c0}-{d0}", sums[k][1], sums[k][2]])
        for k, (tr, te) in extra.items():
            rows.append([a.name, k, f"{a0}-{b0}", tr, f"{c0}-{d0}", te, tr + te])
    return Table(["trace", "policy", f"training {period}s", "training", f"testing {period}s", "testing",
                  f"all {period}s"], rows,
                 title=f"Learning over a long period ({period}s): sums of the {period}ly average bsld",
                 notes=["w*: per-period optimum of the grid (hindsight); w*_train: grid point learned on the "
                        "training periods; w_greedy: previous period's optimum (FCFS for the first)."])


def table_pure(analyses: Sequence[Analysis]) -> Table:
    """Fig. 5.1 in numbers: the pure policies ranked by their mean weekly average bsld."""
    rows = []
    for a in analyses:
        lr = a.weeks
        means = np.nanmean(lr.pure, axis=0)
        best = lr.best_pure_name
        for rank, j in enumerate(np.argsort(means), start=1):
            col = lr.pure[:, j]
            rows.append([a.name, rank, POLICIES[j], float(means[j]), float(np.nanmedian(col)),
                         float(np.nanpercentile(col, 25)), float(np.nanpercentile(col, 75)),
                         int(sum(b == POLICIES[j] for b in best))])
    return Table(["trace", "rank", "policy", "mean", "median", "q1", "q3", "weeks best"], rows,
                 title="Pure policies: weekly average bsld (thesis §5.3, Fig. 5.1)",
                 notes=["mean, median and quartiles over the weeks; 'weeks best': weeks where the policy "
                        "has the lowest average (ties to the first in the policy order)."])


def table_saf(analyses: Sequence[Analysis]) -> Table:
    """Fig. 5.2 in numbers: SAF against the best pure policy and w* per week."""
    rows = []
    for a in analyses:
        lr = a.weeks
        saf, best, opt = lr.column("SAF"), lr.best_pure, lr.opt
        ok = ~np.isnan(saf)
        rows.append([a.name, int(ok.sum()), int(np.sum(saf[ok] <= best[ok] * (1 + RTOL))),
                     int(np.sum(saf[ok] > best[ok] * 1.1)), float(np.nanmax(saf / best)),
                     int(np.sum(saf[ok] > opt[ok] * 1.1)), float(np.nanmax(saf / opt)),
                     float(np.nansum(saf)), float(np.nansum(best)), float(np.nansum(opt))])
    return Table(["trace", "weeks", "SAF best", "best pure > 10% better", "max SAF / best pure",
                  "w* > 10% better", "max SAF / w*", "sum SAF", "sum best pure", "sum w*"], rows,
                 title="The one size fits all policy? SAF against the best pure policy and w* "
                       "per week (thesis Fig. 5.2)",
                 notes=[f"'SAF best': SAF within {RTOL:.1%} of the best pure policy of the week."])


def table_search(analyses: Sequence[Analysis]) -> Table:
    """Fig. 5.5 in numbers: the black-box optima against the grid's."""
    rows = []
    for a in analyses:
        if a.search is None:
            continue
        units = list(a.weeks.units)
        grid = a.weeks.opt
        for opt in a.search.optimiser.values:
            s = a.search.sel(optimiser=opt).reindex(unit=units)
            v = s.mean_bsld.values
            ok = ~np.isnan(v) & ~np.isnan(grid)
            r = v[ok] / grid[ok]
            rows.append([a.name, str(opt), OPTIMISERS[str(opt)][1], int(np.nanmax(s.evaluations.values)),
                         float(np.nansum(v)), float(np.nansum(grid)), int(np.sum(r < 1 - RTOL)),
                         int(np.sum(np.abs(r - 1) <= RTOL)), int(np.sum(r > 1 + RTOL)),
                         float(np.nanmax(r)) if r.size else None,
                         float(np.nanmedian(s.optimisation_time.values))])
    return Table(["trace", "optimiser", "features", "evaluations", "sum", "sum grid w*", "weeks better",
                  "weeks equal", "weeks worse", "max ratio to grid", "median s per week"], rows,
                 title="Black-box weekly optima against the grid optimum w*_3 (thesis §5.6.1, Fig. 5.5)",
                 notes=[f"equal: within {RTOL:.1%} of the grid optimum; evaluations = simulations of the "
                        "week per optimisation (the 2d vertices included); seconds: wall time of one "
                        "weekly optimisation in a dask worker."])


def table_thresholds(analyses: Sequence[Analysis]) -> Table:
    """The mixed rows of thesis Tables 5.2-5.5: sums over all the weeks per threshold."""
    rows = []
    pub_all = PUBLISHED["tables_5_2_5_5"]
    col = {None: 0, 200_000: 1, 72_000: 2}
    for a in analyses:
        pub = pub_all.get(a.name, {})
        for label, lr in a.thresholds.items():
            thr = lr.threshold
            j = col.get(thr)
            s = lr.sums()
            rows.append([a.name, _thr_text(thr), lr.resolution,
                         pub.get("SAF", (None,) * 3)[j] if j is not None and pub else None, s["SAF"][2],
                         pub.get("FCFS", (None,) * 3)[j] if j is not None and pub else None, s["FCFS"][2],
                         s["w*"][2], s["w*_train"][2], s["w_greedy"][2]])
    return Table(["trace", "threshold", "grid n", "SAF (thesis)", "SAF", "FCFS (thesis)", "FCFS", "w*",
                  "w*_train", "w_greedy"], rows,
                 title="Mixed policies under the thresholds of thesis §5.8 (sums over all the weeks; "
                       "Tables 5.2-5.5 publish the pure policies only)",
                 notes=["w*_train is learned on the training weeks and summed over all the weeks (in part "
                        "in-sample); grid n: resolution of the grid at that threshold.", PUBLISHED_NOTES[1]])


def table_weights(analyses: Sequence[Analysis]) -> Table:
    """The learned weights and the spread of the weekly optima."""
    rows = []
    for a in analyses:
        for lr in [a.weeks] + ([a.months] if a.months is not None else []):
            w = lr.w_train
            opts = lr.points[lr.opt_idx[lr.opt_idx >= 0]]
            rows.append([a.name, lr.period, "w*_train", *w.tolist(), None])
            rows.append([a.name, lr.period, "w* (mean)", *opts.mean(axis=0).tolist(),
                         float(np.mean(opts[:, 0] >= 0)) if len(opts) else None])
    return Table(["trace", "period", "weights", "w_q", "w_p~", "w_r", "share of optima with w_q >= 0"], rows,
                 title="Learned weights (q, p~, r; ||w||_1 = 1) and the mean of the weekly optima",
                 digits={"w_q": 3, "w_p~": 3, "w_r": 3})


def table_scales(analyses: Sequence[Analysis]) -> Table:
    rows = [[a.name, a.m, *a.scales] for a in analyses]
    return Table(["trace", "m", *(f"s_{f}" for f in sim.FEATURES)], rows,
                 title="Feature scales of the mixed policy (means over the whole cleaned trace)")

