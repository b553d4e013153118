"""The tables of the online-selection study: online-bandit Tables 2 and 3
(published beside ours, with confidence intervals) and the data behind the
figures (long format)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ... import stats
from .. import Table
from .analysis import TraceResult, _pct, _sign, curve, shares, swapped
from .params import MISSING_TRACES, PERIODS, _STRATEGY_LABEL
from .published import PUBLISHED_TABLE2, TABLE2_COLUMNS


def _ci_text(lo: float, hi: float) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _columns(results: Sequence[TraceResult]) -> list[str]:
    """Table 2's policies: the paper's, then the arms it does not have
    (``policies``: a user's names or expressions), in the study's order."""
    extra = [p for r in results for p in r.policies if p not in TABLE2_COLUMNS]
    return [*TABLE2_COLUMNS, *dict.fromkeys(extra)]


def table2(results: Sequence[TraceResult]) -> Table:
    """Table 2: the fixed policies, published beside ours, one pair of rows per trace."""
    cols = _columns(results)
    rows = []
    for r in results:
        pub = PUBLISHED_TABLE2.get(r.name)
        if pub is not None:
            rows.append([r.name, "published", *[pub.get(p) for p in cols]])
        rows.append([r.name, "ours", *[_pct(r.table2[p][0]) if p in r.table2 else None
                                       for p in cols]])
    for name in MISSING_TRACES:
        rows.append([name, "published (trace not bundled)", *[PUBLISHED_TABLE2[name].get(p) for p in cols]])
    return Table(["trace", "values", *cols], rows, default_digits=1,
                 title="online-bandit Table 2: change (%) of the total waiting time of EASY(P, 40 h) "
                       "vs EASY(FCFS, 40 h)",
                 notes=["Eq. 11 over the resampled two-year traces; negative: less waiting than FCFS.",
                        "95% bootstrap intervals in table2_ci.",
                        "ANL-Intrepid and UniLu-Gaia are not bundled: published values only."])


def table2_ci(results: Sequence[TraceResult]) -> Table:
    rows = []
    for r in results:
        pub = PUBLISHED_TABLE2.get(r.name, {})
        sw = swapped(pub)
        for p in _columns(results):
            if p not in r.table2:
                continue
            est, lo, hi = r.table2[p]
            same = None if p not in pub else bool(_sign(_pct(est)) == _sign(pub[p]))
            same_sw = None if p not in sw else bool(_sign(_pct(est)) == _sign(sw[p]))
            rows.append([r.name, p, pub.get(p), _pct(est), _ci_text(lo, hi),
                         bool(stats.significant(lo, hi, 0.0)), same, sw.get(p), same_sw])
    return Table(["trace", "policy", "published %", "ours %", "95% CI (%)", "CI excludes 0", "same sign",
                  "published, S/L swapped %", "same sign, swapped"],
                 rows, default_digits=1, title="Table 2 with confidence intervals",
                 notes=["95% CI: percentile bootstrap over the resampled traces (pairs kept together).",
                        "same sign: both below -1 %, both within +-1 %, or both above +1 %.",
                        "published, S/L swapped: the published value of the opposite policy for the "
                        "processing time, the processors and the area (SPF<->LPF, SQF<->LQF, SAF<->LAF)."])


def _t3_columns(results: Sequence[TraceResult]) -> list[tuple[str, str]]:
    keys = {k for r in results for k in r.table3}
    order = [("random", p) for p in PERIODS] + [(s, p) for s in ("full", "noisy", "bandit") for p in PERIODS]
    return [k for k in order if k in keys]


def table3(results: Sequence[TraceResult], epsilon: float) -> Table:
    """Table 3: the strategies (the paper's is a placeholder), with the best
    fixed policy for reference."""
    cols = _t3_columns(results)
    rows = []
    for r in results:
        rows.append([r.name, r.best_fixed, _pct(r.table2[r.best_fixed][0]),
                     *[_pct(r.table3[k][0]) for k in cols]])
    return Table(["trace", "best fixed P", "best fixed %",
                  *[f"{_STRATEGY_LABEL[s]} {p}" for s, p in cols]], rows, default_digits=1,
                 title="online-bandit Table 3 (first complete version): change (%) of the total waiting "
                       "time vs EASY(FCFS, 40 h)",
                 notes=["Eq. 11 over the resampled traces; negative: less waiting than FCFS.",
                        f"Bandit: epsilon-greedy, epsilon = {epsilon:g}; Full/Noisy: simulation of each "
                        "past period; Random: a uniform draw per period.",
                        "best fixed P: the fixed policy of least total wait, known only a posteriori.",
                        "95% bootstrap intervals in table3_ci."])


def table3_ci(results: Sequence[TraceResult]) -> Table:
    rows = []
    for r in results:
        for k in _t3_columns(results):
            est, lo, hi = r.table3[k]
            gap = est - r.table2[r.best_fixed][0]
            rows.append([r.name, _STRATEGY_LABEL[k[0]], k[1], _pct(est), _ci_text(lo, hi),
                         bool(stats.significant(lo, hi, 0.0)), 100.0 * gap, 100.0 * r.on_best[k]])
    return Table(["trace", "strategy", "period", "ours %", "95% CI (%)", "CI excludes 0",
                  "vs best fixed (pp)", "days on best fixed %"], rows, default_digits=1,
                 title="Table 3 with confidence intervals",
                 notes=["vs best fixed: the strategy's change minus the best fixed policy's, in "
                        "percentage points (positive: the strategy waits more).",
                        "days on best fixed: share of (resample, day) pairs in which the strategy "
                        "used the a-posteriori best fixed policy."])


def tables(results: Sequence[TraceResult], epsilon: float) -> dict[str, Table]:
    out = {"table2": table2(results), "table2_ci": table2_ci(results)}
    if any(r.table3 for r in results):
        out["table3"] = table3(results, epsilon)
        out["table3_ci"] = table3_ci(results)
    return out


def data_curves(results: Sequence[TraceResult]) -> Table:
    """The data of Figs. 2-4 (long format)."""
    rows = []
    for r in results:
        base = r.fixed.cum_sum_wait.sel(policy="FCFS").values
        runs = [(str(p), None, r.fixed.cum_sum_wait.sel(policy=p).values) for p in r.fixed.policy.values]
        if r.strategies is not None:
            runs += [(str(s), str(d), r.strategies.cum_sum_wait.sel(strategy=s, period=d).values)
                     for d in r.strategies.period.values for s in r.strategies.strategy.values]
        for label, period, cum in runs:
            mean, p10, p90 = curve(cum, base)
            for k in range(mean.size):
                rows.append([r.name, label, period or "", k + 1, _pct(mean[k]), _pct(p10[k]), _pct(p90[k])])
    return Table(["trace", "run", "period", "week", "change %", "p10 %", "p90 %"], rows)


def data_shares(results: Sequence[TraceResult]) -> Table:
    """The data of Figs. 5-6 (long format, weekly shares)."""
    rows = []
    for r in results:
        if r.strategies is None:
            continue
        for d in r.strategies.period.values:
            for s in r.strategies.strategy.values:
                sh = shares(r.strategies.policy_chosen.sel(period=d, strategy=s).values, len(r.policies))
                for k in range(sh.shape[0]):
                    rows += [[r.name, str(s), str(d), k + 1, p, float(sh[k, i])]
                             for i, p in enumerate(r.policies)]
    return Table(["trace", "strategy", "period", "week", "policy", "share"], rows)
