"""Results as labelled xarray datasets: one metadata table, atomic netCDF.

Every variable a campaign can produce is declared once in :data:`VARIABLES`
(long name, CF-style units, dtype, fill value); :func:`variable` builds the
``xarray.Variable`` from that table so that every dataset says the same thing
about the same quantity.  Integers stay integers: their fill value is an
explicit sentinel (-1), never NaN.

Format: netCDF-4 (HDF5) through the ``netCDF4`` engine.  netCDF is one
self-describing file per campaign, readable from any language and by
``xarray.open_dataset``; netCDF-4 (unlike netCDF-3) stores int64 and strings.
Zarr would suit appending by many writers, but campaigns are assembled once,
by the client, from the per-cell cache, so one atomic file is simpler.
"""
from __future__ import annotations

import errno
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from ..files import atomic


@dataclass(frozen=True)
class Var:
    long_name: str
    units: str
    dtype: str
    fill: float | int

    @property
    def is_int(self) -> bool:
        return np.dtype(self.dtype).kind in "iu"


NAN = float("nan")

#: The result variables (CF-style units; "1" = dimensionless): the engine's metrics here, each study's
#: own beside its cells (:func:`declare`), so that a study's new variable touches its package only.
VARIABLES: dict[str, Var] = {
    "avg_wait": Var("mean waiting time (start - submit) of the jobs", "s", "float64", NAN),
    "max_wait": Var("maximum waiting time of the jobs", "s", "float64", NAN),
    "p99_wait": Var("99th percentile of the waiting times of the jobs", "s", "float64", NAN),
    "top1_wait": Var("mean waiting time of the worst 1 % of the jobs (at least one)", "s", "float64", NAN),
    "sum_wait": Var("total waiting time of the jobs", "s", "float64", NAN),
    "mean_bsld": Var("mean bounded slowdown (tau = 10 s)", "1", "float64", NAN),
    "max_bsld": Var("maximum bounded slowdown (tau = 10 s)", "1", "float64", NAN),
    "mean_ppbsld": Var("mean per-processor bounded slowdown (tau = 10 s)", "1", "float64", NAN),
    "utilisation": Var("processor-seconds used / (m x span)", "1", "float64", NAN),
    "makespan": Var("last end - first submit", "s", "float64", NAN),
    "jobs": Var("number of jobs simulated", "1", "int64", -1),
    "backfilled": Var("number of jobs started by backfilling", "1", "int64", -1),
    "killed": Var("number of jobs killed at their requested time", "1", "int64", -1),
    "forced": Var("number of jobs started after waiting more than the threshold", "1", "int64", -1),
    "compute_time": Var("CPU time (of the worker process) spent computing one campaign cell", "s", "float64", NAN),
    "requeued": Var("number of jobs killed at the divider while running as small and requeued as large", "1",
                    "int64", -1),
}


def declare(owner: str, variables: dict[str, Var]) -> None:
    """Add ``owner``'s variables (a cells module's ``__name__``) to
    :data:`VARIABLES` when it is imported.  A name declared twice must mean
    the same variable (a re-import), else :class:`~schedlab.errors.SchedlabError`."""
    from ..errors import SchedlabError

    for name, var in variables.items():
        old = VARIABLES.get(name)
        if old is not None and old != var:
            raise SchedlabError(f"{owner}: campaign variable {name!r} is already declared as {old}")
        VARIABLES[name] = var


#: Attributes of the coordinates campaigns commonly sweep.
COORDS: dict[str, dict[str, str]] = {
    "trace": {"long_name": "workload trace (registry name or file stem)"},
    "half": {"long_name": "part of the trace: all, or the train/test halves split at the temporal midpoint"},
    "primary": {"long_name": "primary queue policy P_R"},
    "backfill": {"long_name": "backfilling queue policy P_B"},
    "threshold": {"long_name": "waiting-time threshold T (none, or a duration such as 20h)"},
    "estimate": {"long_name": "runtime estimate used for reservations and backfilling"},
    "engine": {"long_name": "where a learned estimate is computed: c (the C core) or python (the reference)"},
    "sample": {"long_name": "resampling seed index"},
    "week": {"long_name": "week index (resampled week, or week of the original trace)"},
}


def variable(name: str, dims: tuple[str, ...], data) -> "xarray.Variable":  # noqa: F821
    """An xarray.Variable with the metadata of the table (KeyError if the
    name is not declared: declare it first)."""
    import xarray as xr

    spec = VARIABLES[name]
    arr = np.asarray(data)
    if spec.is_int and arr.dtype.kind == "f":
        arr = np.where(np.isnan(arr), spec.fill, arr)
    arr = arr.astype(spec.dtype)
    attrs = {"long_name": spec.long_name, "units": spec.units}
    if spec.is_int:
        attrs["comment"] = f"{spec.fill} where missing (no _FillValue, so readers keep integers)"
    return xr.Variable(dims, arr, attrs=attrs)


def _attr_value(v):
    """netCDF attributes hold strings and numbers: encode the rest as JSON."""
    if isinstance(v, (str, int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return v
    if isinstance(v, bool):
        return int(v)
    return json.dumps(v, sort_keys=True, default=str)


def write_dataset(ds, path) -> Path:
    """Write ``ds`` to netCDF-4 atomically (temporary file, then rename).
    A failed write (a full disk, say) raises OSError naming ``path``, and
    leaves no file behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ds = ds.copy()
    ds.attrs = {k: _attr_value(v) for k, v in ds.attrs.items()}
    encoding = {}
    for name, var in ds.data_vars.items():
        spec = VARIABLES.get(name)
        if spec is not None:
            # Integers get no _FillValue: a reader would otherwise mask them
            # into floats.  Their sentinel is documented in the comment.
            fill = None if spec.is_int else spec.fill
            encoding[name] = {"_FillValue": fill, "zlib": True, "complevel": 4}
    with atomic(path, suffix=".tmp.nc") as tmp:
        try:
            ds.to_netcdf(tmp, engine="netcdf4", format="NETCDF4", encoding=encoding)
        except RuntimeError as exc:   # netCDF4 reports a failed write (full disk ...) as "NetCDF: HDF error"
            raise OSError(errno.EIO, f"cannot write netCDF ({exc})", str(path)) from exc
    return path


def read_dataset(path):
    """Open a result dataset (loaded into memory, file closed)."""
    import xarray as xr

    with xr.open_dataset(path, engine="netcdf4") as ds:
        ds = ds.load()
    for k, v in list(ds.attrs.items()):
        if isinstance(v, str) and v[:1] in "{[":
            try:
                ds.attrs[k] = json.loads(v)
            except ValueError:
                pass
    return ds
