"""The computations of the dispatching study: pure functions of the campaigns'
datasets (no file I/O, no plotting), each easy to test on a dataset made by
hand."""
from __future__ import annotations

import numpy as np


def per_trace(datasets: dict) -> dict:
    """trace -> the mean over its weeks of each variable, and the weeks."""
    out = {}
    for name, ds in datasets.items():
        row = {"weeks": int(ds.sizes["week"])}
        for var in ("avg_wait", "max_wait", "mean_bsld", "utilisation"):
            values = np.asarray(ds[var].values, dtype=float)
            row[var] = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
        out[name] = row
    return out
