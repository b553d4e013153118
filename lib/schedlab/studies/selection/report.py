"""The key numbers of the online-selection study for the paper, with the
agreement of our Table 2 with the published one."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .analysis import SWAP_PQA, TraceResult, _pct, _sign, swapped
from .params import _STRATEGY_LABEL
from .published import PUBLISHED_TABLE2, TABLE2_COLUMNS


def table2_agreement(results: Sequence[TraceResult]) -> dict[str, dict[str, float]]:
    """How our Table 2 agrees with the published one, read as printed and
    with S/L exchanged for P, Q, A: number of values compared, of values
    with the same sign (both < -1 %, both within +-1 %, both > +1 %), mean
    absolute difference (percentage points) and correlation."""
    out = {}
    for label, pairs in (("as_printed", ()), ("swapped_pqa", SWAP_PQA)):
        ours, theirs = [], []
        for r in results:
            pub = PUBLISHED_TABLE2.get(r.name)
            if pub is None:
                continue
            pub = swapped(pub, pairs)
            for k in TABLE2_COLUMNS:
                if k in r.table2 and np.isfinite(r.table2[k][0]):
                    ours.append(_pct(r.table2[k][0]))
                    theirs.append(float(pub[k]))
        a, b = np.asarray(ours), np.asarray(theirs)
        n = int(a.size)
        out[label] = {
            "compared": n,
            "same_sign": int(sum(_sign(x) == _sign(y) for x, y in zip(a, b))),
            "mean_abs_diff_pp": float(np.mean(np.abs(a - b))) if n else float("nan"),
            "correlation": float(np.corrcoef(a, b)[0, 1]) if n > 2 and a.std() > 0 and b.std() > 0
            else float("nan"),
        }
    return out


def _triple(t: tuple[float, float, float]) -> dict[str, float]:
    return {"pct": _pct(t[0]), "low_pct": _pct(t[1]), "high_pct": _pct(t[2])}


def numbers(results: Sequence[TraceResult]) -> dict[str, Any]:
    """Key numbers for the paper: per trace and across traces."""
    per = {}
    for r in results:
        d: dict[str, Any] = {
            "jobs_mean": r.jobs_mean,
            "best_fixed": r.best_fixed,
            "best_fixed_pct": _pct(r.table2[r.best_fixed][0]),
            "fixed": {k: {**_triple(v), "published_pct": PUBLISHED_TABLE2.get(r.name, {}).get(k)}
                      for k, v in r.table2.items()},
        }
        pub = PUBLISHED_TABLE2.get(r.name)
        if pub is not None:
            d["published_best_fixed"] = min(pub, key=pub.get)
            d["table2_agreement"] = table2_agreement([r])
        if r.table3:
            d["strategies"] = {f"{s}_{q}": {**_triple(v), "vs_best_fixed_pp": 100 * (v[0] - r.table2[r.best_fixed][0]),
                                             "days_on_best_fixed_pct": 100 * r.on_best[(s, q)],
                                             "most_chosen": r.most_chosen[(s, q)][0],
                                             "most_chosen_pct": 100 * r.most_chosen[(s, q)][1]}
                               for (s, q), v in r.table3.items()}
            bs = r.best_strategy
            d["best_strategy"] = f"{_STRATEGY_LABEL[bs[0]]} ({bs[1]})"
            d["best_strategy_pct"] = _pct(r.table3[bs][0])
        per[r.name] = d
    summary: dict[str, Any] = {"traces": len(results),
                               "best_fixed_mean_pct": float(np.mean([per[r.name]["best_fixed_pct"] for r in results]))}
    keys = {k for r in results for k in r.table3}
    for s, q in sorted(keys):
        vals = [_pct(r.table3[(s, q)][0]) for r in results if (s, q) in r.table3]
        summary[f"{s}_{q}_mean_pct"] = float(np.mean(vals))
        summary[f"{s}_{q}_min_pct"] = float(np.min(vals))
        summary[f"{s}_{q}_max_pct"] = float(np.max(vals))
        summary[f"{s}_{q}_vs_best_mean_pp"] = float(np.mean(
            [100 * (r.table3[(s, q)][0] - r.table2[r.best_fixed][0]) for r in results if (s, q) in r.table3]))
    return {"per_trace": per, "summary": summary, "table2_agreement": table2_agreement(results)}
