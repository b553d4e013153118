"""A campaign's result: one labelled xarray.Dataset assembled from its cells'
results (:func:`assemble`: the campaign's dims first, then the cells' own,
variables and coordinates described by :mod:`.store`), with its provenance in
the global attributes (:func:`provenance`: versions, code fingerprint, git
commit, trace checksums, the spec, seeds, wall time, cells computed and
cached)."""
from __future__ import annotations

import os
from datetime import datetime, timezone

import numpy as np

from .. import __version__, paths
from ..errors import InputError
from .fingerprint import _trace_sha, _traces_of, cell_fingerprint
from .spec import Campaign


def assemble(campaign: Campaign, results: list[tuple[tuple[int, ...], dict]]):
    """One Dataset from the cells' results: campaign dims first, then the
    cells' own dims (which must agree across cells)."""
    import xarray as xr

    from .store import COORDS, VARIABLES, variable

    shape = campaign.shape
    first = results[0][1]
    layout = {}
    for name, (dims, arr) in first.items():
        if name not in VARIABLES:
            raise InputError(f"cell output {name!r} is not declared in schedlab.campaigns.store.VARIABLES")
        layout[name] = (tuple(dims), np.shape(arr))
    data = {name: np.full(shape + s, VARIABLES[name].fill, dtype=np.float64 if VARIABLES[name].is_int else VARIABLES[name].dtype)
            for name, (_, s) in layout.items()}
    for idx, res in results:
        if set(res) != set(layout):
            raise InputError(f"cell {idx}: outputs {sorted(res)} differ from the first cell's {sorted(layout)}")
        for name, (dims, arr) in res.items():
            if (tuple(dims), np.shape(arr)) != layout[name]:
                raise InputError(f"cell {idx}: {name} has dims {dims} shape {np.shape(arr)}, "
                                 f"the first cell had {layout[name]}")
            data[name][idx] = arr
    cdims = tuple(campaign.dims)
    variables = {name: variable(name, cdims + layout[name][0], data[name]) for name in layout}
    coords = {}
    for k, labels in campaign.dims.items():
        vals = labels if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in labels) \
            else [str(x) for x in labels]
        coords[k] = xr.Variable((k,), np.asarray(vals), attrs=COORDS.get(k, {}))
    for name, (dims, s) in layout.items():
        for d, n in zip(dims, s):
            if d not in coords:
                coords[d] = xr.Variable((d,), np.arange(n, dtype=np.int64), attrs=COORDS.get(d, {}))
    return xr.Dataset(variables, coords=coords)


def provenance(campaign: Campaign, n_cached: int, n_computed: int, wall: float, n_workers: int) -> dict:
    from ..engine import sim

    traces = {}
    for _, p in campaign.cells():
        for t in _traces_of(p):
            traces[paths.relative(t) if os.path.sep in str(t) else str(t)] = _trace_sha(str(t))
    spec = campaign.to_dict()
    spec["params"] = {k: (paths.relative(v) if k == "trace" and isinstance(v, str) and os.path.sep in v else v)
                      for k, v in spec["params"].items()}
    if "trace" in spec["dims"]:
        spec["dims"]["trace"] = [paths.relative(t) if isinstance(t, str) and os.path.sep in t else t
                                 for t in spec["dims"]["trace"]]
    seeds = sorted({p["seed"] for _, p in campaign.cells() if "seed" in p}, key=str)
    return {
        "title": f"schedlab campaign {campaign.name}",
        "Conventions": "CF-1.10",
        "schedlab_version": __version__,
        "core_version": sim.VERSION,
        "core_source_sha256": sim.SOURCE_HASH,
        "code_fingerprint": cell_fingerprint(campaign.cell),
        "git_commit": paths.git_commit(),
        "traces_sha256": traces,
        "campaign": spec,
        "seeds": seeds,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "wall_time_s": round(wall, 3),
        "cells_total": n_cached + n_computed,
        "cells_cached": n_cached,
        "cells_computed": n_computed,
        "workers": n_workers,
    }
