"""The comparison of the dispatching study (pure: datasets in, rows out)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...stats import bootstrap_ci, total_change

#: The heuristic every arm is compared with, pair by pair (RLScheduler's strongest on its own sequences).
REFERENCE = "SJF"


def arms(agents: dict, heuristics) -> dict[str, np.ndarray]:
    """arm -> its held-out scores (one per sequence, in the same order): the
    heuristics of the heuristics' dataset, then each agent's (``agents``:
    arm name -> its dataset)."""
    out = {str(h): heuristics.heldout_bsld.sel(heuristic=h).values for h in heuristics.heuristic.values}
    for name, agent in agents.items():
        if not np.array_equal(agent.heldout_start.values, heuristics.heldout_start.isel(heuristic=0).values):
            raise ValueError("the agent and the heuristics were run on different held-out sequences")
        out[name] = agent.heldout_bsld.values
    return out


def rows(scores: dict[str, np.ndarray], trace: str, seed: int = 0) -> list[dict[str, Any]]:
    """One row per arm: its mean bounded slowdown over the held-out sequences
    with a 95 % bootstrap interval (sequences resampled; Student's t below
    ten), its change against SJF on the same sequences (the ratio of the two
    means minus one, %) with the paired bootstrap's interval, and its rank
    (1: the lowest mean)."""
    order = sorted(scores, key=lambda a: float(np.mean(scores[a])))
    out = []
    for a, v in scores.items():
        est, lo, hi = bootstrap_ci(v, seed=seed)
        if a == REFERENCE:
            c = (0.0, 0.0, 0.0)
        else:
            c = tuple(100.0 * x for x in total_change(v, scores[REFERENCE], seed=seed))
        out.append({"trace": trace, "arm": a, "kind": "learned" if a.startswith("agent") else "heuristic",
                    "mean_bsld": float(est), "low": float(lo), "high": float(hi),
                    "vs_sjf_pct": c[0], "vs_sjf_low": c[1], "vs_sjf_high": c[2],
                    "vs_sjf_excludes_0": bool(a != REFERENCE and (c[1] > 0 or c[2] < 0)),
                    "rank": order.index(a) + 1, "sequences": int(len(v))})
    return out
