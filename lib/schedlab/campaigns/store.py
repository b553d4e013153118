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

#: The single table of result variables (CF-style units; "1" = dimensionless).
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
    # Study 1 (policies): per-job quantities summarised by the policies cells.
    "cum_avg_wait": Var("mean waiting time of the jobs finished by the end of each week", "s", "float64", NAN),
    "cum_mean_bsld": Var("mean bounded slowdown of the jobs finished by the end of each week", "1", "float64", NAN),
    "cum_mean_ppbsld": Var("mean per-processor bounded slowdown of the jobs finished by the end of each week",
                           "1", "float64", NAN),
    "cum_sum_wait": Var("total waiting time of the jobs finished by the end of each week", "s", "float64", NAN),
    "top_bsld_procs": Var("processors q of the jobs with the highest bounded slowdowns, by decreasing bsld",
                          "1", "int64", -1),
    "bsld_class_jobs": Var("number of jobs per bounded-slowdown class: 1, (1, 10), [10, 100), >= 100",
                           "1", "int64", -1),
    "premature_jobs": Var("number of premature jobs (requested time >= 100 x runtime)", "1", "int64", -1),
    "mean_bsld_premature": Var("mean bounded slowdown of the premature jobs", "1", "float64", NAN),
    "mean_bsld_standard": Var("mean bounded slowdown of the standard (non-premature) jobs", "1", "float64", NAN),
    # Study 3 (mixed policies): black-box searches of the mixed-policy weights.
    "weights": Var("weights of the mixed linear policy on its features (q, p~, r, p~/q, x, p~q), ||w||_1 = 1",
                   "1", "float64", NAN),
    "evaluations": Var("number of objective evaluations (simulations) an optimisation used", "1", "int64", -1),
    "optimisation_time": Var("wall time of one optimisation", "s", "float64", NAN),
    "best_so_far": Var("lowest objective value found after each evaluation of an optimisation",
                       "1", "float64", NAN),
    # Study 7 (online policy selection, online-bandit §5-6).
    "policy_chosen": Var("index, in the study's list of queue policies, of the policy in force during each day",
                         "1", "int64", -1),
    "explorations": Var("number of periods in which the epsilon-greedy bandit chose a policy at random",
                        "1", "int64", -1),
    "compute_time": Var("CPU time (of the worker process) spent computing one campaign cell", "s", "float64", NAN),
    # Study 6 (runtime prediction, gaussier2015): quality of the scheduler's runtime estimates.
    "mae": Var("mean absolute error |e - d| of the runtime estimates at submission (d: duration run)",
               "s", "float64", NAN),
    "mean_eloss": Var("mean E-Loss of the runtime estimates at submission (gaussier2015 Eq. 3: "
                      "log(q p) (e - p)^2 if e >= p, log(q p) (p - e) otherwise; e, p in s)",
                      "1", "float64", NAN),
    "underpredicted": Var("share of the jobs whose runtime estimate at submission is below their duration",
                          "1", "float64", NAN),
    "error_quantiles": Var("quantiles of the runtime estimate error e - d over the jobs (at the quantile levels)",
                           "s", "float64", NAN),
    "predicted_quantiles": Var("quantiles of the runtime estimates at submission over the jobs",
                               "s", "float64", NAN),
    "simulation_time": Var("wall time of one simulation (C core and estimator callbacks)", "s", "float64", NAN),
    # Study 4 (classification): weekly small/large classifier and small-first scheduling.
    "divider": Var("job-size divider of the week: median runtime of the jobs known at its start", "s",
                   "float64", NAN),
    "train_jobs": Var("number of jobs the weekly classifier was trained on", "1", "int64", -1),
    "train_small": Var("number of small jobs among the weekly classifier's training jobs", "1", "int64", -1),
    "week_jobs": Var("number of jobs submitted in the week", "1", "int64", -1),
    "confusion": Var("classification outcome counts: true small, false small, true large, false large",
                     "1", "int64", -1),
    "feature_importance": Var("Gini importance of each feature in the weekly random forest (sum 1)", "1",
                              "float64", NAN),
    "predicted_small": Var("predicted class of each job of the week, in submit order (1 small, 0 large; "
                           "-1 past the week's jobs)", "1", "int64", -1),
    "sum_bsld": Var("total bounded slowdown of the jobs (tau = 10 s)", "1", "float64", NAN),
    "mean_bsld_small": Var("mean bounded slowdown of the truly small jobs", "1", "float64", NAN),
    "mean_bsld_large": Var("mean bounded slowdown of the truly large jobs", "1", "float64", NAN),
    "cum_sum_bsld": Var("total bounded slowdown of the jobs finished by the end of each week", "1", "float64", NAN),
    "month_mean_bsld": Var("mean bounded slowdown of the jobs submitted in each month", "1", "float64", NAN),
    "requeued": Var("number of jobs killed at the divider while running as small and requeued as large", "1",
                    "int64", -1),
    "requeued_true_small": Var("number of requeued jobs that were small by their week's divider", "1",
                               "int64", -1),
    # Study 8 (self-adaptive multiple-queue backfilling, lawson2005).
    "mean_slowdown_ratio": Var("mean over the jobs of lawson2005's slowdown ratio R = (s_1 - s_m) / min(s_1, s_m) "
                               "against single-queue EASY-FCFS-FCFS, s = 1 + wait / max(10 s, runtime); R > 0: "
                               "better (jobs < 10 s that requested > 60 s ignored)", "1", "float64", NAN),
    "weekly_slowdown_ratio": Var("mean slowdown ratio R of the jobs submitted in each week", "1", "float64", NAN),
    "ratio_jobs": Var("number of jobs the slowdown ratio R is averaged over", "1", "int64", -1),
    "mean_lawson_slowdown": Var("mean bounded slowdown 1 + wait / max(10 s, runtime) (lawson2005 §2.2)",
                                "1", "float64", NAN),
    "baseline_mean_lawson_slowdown": Var("mean bounded slowdown 1 + wait / max(10 s, runtime) of single-queue "
                                         "EASY-FCFS-FCFS with the same estimates", "1", "float64", NAN),
    "borrowed_jobs": Var("number of jobs started on processors lent by other partitions", "1", "int64", -1),
    "online_tests": Var("number of online-simulation tests (weeks whose trigger exceeded the threshold T)",
                        "1", "int64", -1),
    "partition_changes": Var("number of tests that changed the number of partitions P", "1", "int64", -1),
    "changes_to": Var("number of changes of the number of partitions to each P", "1", "int64", -1),
    "weekly_partitions": Var("number of partitions P in force during each week", "1", "int64", -1),
    "weekly_tests": Var("1 if an online-simulation test ran at the start of the week, else 0", "1", "int64", -1),
    "online_time": Var("wall time of one online-simulation run (the real system and every test)",
                       "s", "float64", NAN),
}

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
