"""Energy profiles of HPC processors (thesis zrigui2021, ch. 7).

Three layers, each usable on its own:

**Loaders.**  :func:`load` reads the bundled Colmet/RAPL table of the Gricad
*dahu* cluster (``data/energy/``, registry ``data/energy.toml``; see
``data/README.md``) -- or any CSV in the same format -- into an
:class:`xarray.Dataset` with dims ``(host, package, time)`` and variables
``pp0`` (the cores of a processor) and ``dram`` (its memory).  The file's
checksum is verified first (:class:`~schedlab.errors.ChecksumError`).  The
CSV is parsed with pandas' C parser (pandas is installed as a dependency of
xarray): the whole 30 MB file is checked, parsed and laid out in a few
seconds.

*Units.*  The file holds, per host and minute, the mean over the minute's
Colmet samples of the RAPL energy counted in each sample, in microjoules.
The sampling period is not recorded.  With ``unit="W"`` (the default) the
values are divided by ``sample_period`` (5 s, thesis §7.4.2.1: "energy
measurements are reported once every 5 seconds ... the average of every 12
observations") and shown in watts; :func:`unit_evidence` gives the checks
that support this reading on the data itself.  ``unit="uJ"`` keeps the raw
values.  The classification never depends on this choice: profiles are
scaled by the processor's power range (:func:`power_range`) before the tree
sees them, so any positive factor cancels out.

*Invalid values.*  A negative value is a 32-bit RAPL counter wrap that
Colmet did not undo (:func:`unit_evidence`); a value above ``max_power``
watts cannot be a processor's mean power (it spans a monitoring gap).  Both
are set to NaN and counted in the dataset's attributes.  Duplicate
(host, minute) rows (the source's files overlap by a minute) are averaged.

**Profiles.**  A :class:`Profile` is one energy signal, one value per minute.
:func:`job_profiles` is the general path of the thesis (§7.3): node series
plus a job table (job id, start, stop, hosts, full-processor flag, as an OAR
export gives) -> one profile per job.  The bundled data has no job table, so
:func:`derive_profiles` cuts each processor's signal instead, by one of
:data:`METHODS`: change-point ``segments`` (ruptures' C implementation of
PELT with the L2 cost, then neighbours closer than ``min_shift`` merged),
idle-delimited ``episodes`` of activity, or fixed ``windows``.  These
are *segments of processor activity*, not jobs.

**Preprocessing and the tree** (thesis §7.4.1-7.4.6).  :func:`preprocess`
applies the minimum length, trims the first and last minutes, removes
z-score outliers, bridges short gaps and scales the signal to the
processor's power range; :func:`aggregate` is the averaging of §7.4.2.1 for
data finer than a minute.  :func:`classify` runs the three tests --
:func:`stationarity_test` (the spread of window means),
:func:`variability_test` (the standard deviation) and
:func:`periodicity_test` (the discrete Fourier transform) -- each returning
its statistic *and* its verdict (:class:`TestResult`), and walks the tree of
Fig. 7.7 into one of :data:`CLASSES`.  :func:`synthetic` and
:func:`tree_accuracy` check the tree on generated signals of known class.

Choices where the thesis is silent (each a parameter):

* scale: the tree's thresholds (0.1) are "based on the maximum and the
  minimum energy that a job can consume" (§7.4.4); we scale each signal by
  the range of its channel over the platform, the ``range_quantiles``
  (0.1 % and 99.9 %) of all its values, not by the signal's own min/max
  (which would make every flat but noisy signal span [0, 1]);
* standard deviations with N - 1 (eq. 7.1), for the window means too;
* removed outliers are left out of the statistics and linearly interpolated
  for the Fourier transform, which needs evenly spaced samples;
* periodicity: the thesis compares the highest value of the periodogram to
  a threshold ("1 in the examples") without saying how the periodogram is
  scaled.  All criteria look at the dominant frequency among those that
  repeat at least ``min_cycles`` (3) times in the signal.
  ``criterion="acf"`` (default, threshold 0.4) validates that peak by the
  autocorrelation, computed from the DFT: a periodic signal is alike one
  period apart and unlike half a period apart (see
  :func:`periodicity_test`).  ``"share"`` (threshold 0.3) uses the share of
  the variance in the dominant frequency (its bin plus the larger
  neighbour); a lone bump in a short profile concentrates its variance at
  low frequencies and passes it, which is why it is not the default.
  ``"density"`` (threshold 1) is the literal reading: the peak of the
  one-sided periodogram density (one sample per minute) of the scaled
  signal; it grows with the profile's length.
"""
from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ... import paths
from ...errors import ChecksumError, InputError
from ...workloads.traces import sha256_file

__all__ = [
    "ENERGY_DIR", "REGISTRY", "COLUMNS", "CHANNELS", "SAMPLE_PERIOD_S", "MAX_POWER_W",
    "RAPL_ENERGY_UNIT_J", "RAPL_COUNTER_WRAP", "METHODS", "CLASSES", "PREDICTABLE", "CRITERIA",
    "DEFAULT_PERIODICITY", "KINDS", "DataInfo", "RawTable", "data_info", "sha256_file", "verify", "read_csv", "load",
    "unit_evidence", "select", "signal", "power_range", "Profile", "JobTable", "JobReport",
    "read_jobs", "job_profiles", "runs", "fill_gaps", "segment", "merge_segments", "Changepoints",
    "changepoints", "derive_profiles",
    "Preprocessing", "Prepared", "aggregate", "trim", "zscore_outliers", "normalise",
    "preprocess", "TestResult", "Tree", "Classification", "stationarity_test",
    "variability_test", "periodogram", "autocorrelation", "periodicity_test", "classify", "label",
    "synthetic", "tree_accuracy",
]

#: Where the bundled energy data lives, and its registry.
ENERGY_DIR = paths.DATA / "energy"
REGISTRY = paths.DATA / "energy.toml"

#: The columns of the bundled CSV, in order.
COLUMNS = ("hostname", "timestamp_minute", "timestamp",
           "pp0/package1", "DRAM/package1", "pp0/package2", "DRAM/package2")
#: CSV column -> (dataset variable, package).
CHANNELS: dict[str, tuple[str, int]] = {
    "pp0/package1": ("pp0", 1), "DRAM/package1": ("dram", 1),
    "pp0/package2": ("pp0", 2), "DRAM/package2": ("dram", 2),
}
#: Colmet's sampling period assumed by ``unit="W"`` (thesis §7.4.2.1).
SAMPLE_PERIOD_S = 5.0
#: Above this mean power (W) a value is invalid (a processor's TDP is 125 W).
MAX_POWER_W = 200.0
#: RAPL energy units of Skylake-SP (MSR_RAPL_POWER_UNIT: 2^-14 J for the
#: package and cores; 15.3 uJ for DRAM) and the wrap of a 32-bit counter.
RAPL_ENERGY_UNIT_J = {"pp0": 2.0 ** -14, "dram": 15.3e-6}
RAPL_COUNTER_WRAP = 2 ** 32

#: How :func:`derive_profiles` cuts a processor's signal.
METHODS = ("segments", "episodes", "windows")
#: The leaves of the tree (thesis Fig. 7.7), and the predictable ones.
CLASSES = ("constant", "periodic", "variable", "non-stationary")
PREDICTABLE = ("constant", "periodic")
#: Periodogram criteria of :func:`periodicity_test` and the threshold each
#: is held to by default.
CRITERIA = ("share", "acf", "density")
DEFAULT_PERIODICITY = {"share": 0.3, "acf": 0.4, "density": 1.0}
#: Kinds of generated signals (:func:`synthetic`) and the class each should get.
KINDS = {"constant": "constant", "periodic": "periodic", "irregular": "variable",
         "level-shift": "non-stationary", "chaotic": "non-stationary"}


# ================================================================ loading ==

@dataclass(frozen=True)
class DataInfo:
    """The registry entry of the bundled energy data (``data/energy.toml``)."""

    name: str
    path: Path
    sha256: str
    rows: int | None = None
    hosts: int | None = None
    period: str = ""
    source: str = ""
    licence: str = ""
    credit: str = ""
    extra: dict = field(default_factory=dict, compare=False, repr=False)


def data_info(registry: str | os.PathLike | None = None) -> DataInfo:
    """The first entry of the energy registry (``data/energy.toml`` unless
    ``registry`` names another file; its ``file`` is relative to the
    ``energy/`` directory beside it)."""
    reg = Path(registry) if registry is not None else REGISTRY
    try:
        raw = tomllib.loads(reg.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{reg}: energy registry not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{reg}: {exc}") from None
    for name, table in raw.items():
        if not isinstance(table, dict):
            continue
        for key in ("file", "sha256"):
            if not isinstance(table.get(key), str):
                raise InputError(f"{reg}: [{name}] needs a string {key!r}")
        known = {"file", "sha256", "rows", "hosts", "period", "source", "licence", "credit"}
        return DataInfo(name=name, path=reg.parent / "energy" / table["file"],
                        sha256=table["sha256"].lower(), rows=table.get("rows"),
                        hosts=table.get("hosts"), period=str(table.get("period", "")),
                        source=str(table.get("source", "")), licence=str(table.get("licence", "")),
                        credit=str(table.get("credit", "")),
                        extra={k: v for k, v in table.items() if k not in known})
    raise InputError(f"{reg}: no entry")


def verify(path: str | os.PathLike, sha256: str) -> None:
    """Raise :class:`ChecksumError` unless ``path`` has the given SHA-256."""
    path = Path(path)
    if not path.is_file():
        raise ChecksumError(f"{path}: missing (expected sha256 {sha256})")
    actual = sha256_file(path)
    if actual != sha256.lower():
        raise ChecksumError(f"{path}: sha256 mismatch: expected {sha256.lower()}, actual {actual}")


@dataclass
class RawTable:
    """The CSV's columns as arrays (one entry per row, file order); hosts as
    codes into ``host_names`` (sorted)."""

    path: Path
    sha256: str
    host_names: np.ndarray    # str, sorted
    host_codes: np.ndarray    # int, index into host_names
    minute: np.ndarray        # int64, unix time // 60
    timestamp: np.ndarray     # float64, mean unix time of the minute's samples
    values: dict[str, np.ndarray]   # CSV channel name -> float64 (uJ per sample)

    def __len__(self) -> int:
        return int(self.minute.size)

    @property
    def host(self) -> np.ndarray:
        """The host name of every row."""
        return self.host_names[self.host_codes]


def _resolve_data(path, sha256, registry) -> tuple[Path, str | None]:
    """The file to read and the checksum to hold it to (None: nothing to check)."""
    if path is None:
        info = data_info(registry)
        return info.path, info.sha256
    path = Path(path).expanduser()
    if sha256 is not None:
        return path, str(sha256)
    try:
        info = data_info(registry)
    except InputError:
        return path, None
    if path.is_file() and info.path.is_file() and path.resolve() == info.path.resolve():
        return path, info.sha256
    return path, None


def read_csv(path: str | os.PathLike | None = None, *, sha256: str | None = None,
             registry: str | os.PathLike | None = None, verify_checksum: bool = True) -> RawTable:
    """Read a Colmet/RAPL CSV in the bundled format (columns :data:`COLUMNS`,
    plain or gzip-compressed) into a :class:`RawTable`.

    ``path=None`` reads the registered file.  The checksum checked (unless
    ``verify_checksum=False``) is ``sha256`` if given, else the registry's
    when ``path`` is the registered file; another file has nothing to check.
    """
    import pandas as pd

    path, expected = _resolve_data(path, sha256, registry)
    if not path.is_file():
        raise InputError(f"{path}: energy data file not found")
    if verify_checksum and expected is not None:
        verify(path, expected)
    digest = expected if (verify_checksum and expected is not None) else ""
    dtypes = {"hostname": "category", "timestamp_minute": "int64", "timestamp": "float64",
              **{c: "float64" for c in CHANNELS}}
    try:
        df = pd.read_csv(path, dtype=dtypes)
    except (ValueError, TypeError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise InputError(f"{path}: cannot read as a Colmet/RAPL CSV ({', '.join(COLUMNS)}): "
                         f"{exc}") from None
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {missing}; expected {list(COLUMNS)}")
    if df.empty:
        raise InputError(f"{path}: no rows")
    hosts = df["hostname"].cat
    if df["hostname"].isna().any() or not np.isfinite(df["timestamp"].to_numpy()).all():
        raise InputError(f"{path}: rows without a hostname or a timestamp")
    names = np.asarray(hosts.categories, dtype=str)
    order = np.argsort(names, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return RawTable(path=path, sha256=digest or "", host_names=names[order],
                    host_codes=rank[hosts.codes.to_numpy().astype(np.int64)],
                    minute=df["timestamp_minute"].to_numpy(), timestamp=df["timestamp"].to_numpy(),
                    values={c: df[c].to_numpy() for c in CHANNELS})


def load(path: str | os.PathLike | None = None, *, sha256: str | None = None,
         registry: str | os.PathLike | None = None, unit: str = "W",
         sample_period: float = SAMPLE_PERIOD_S, max_power: float | None = MAX_POWER_W,
         verify_checksum: bool = True, raw: RawTable | None = None):
    """The energy data as an :class:`xarray.Dataset`.

    Dims ``host`` (sorted names), ``package`` (1, 2) and ``time`` (every
    minute from the first to the last in the file, UTC; minutes without a
    row are NaN).  Variables ``pp0`` and ``dram`` in watts (``unit="W"``:
    microjoules per sample / 10^6 / ``sample_period``) or in microjoules per
    Colmet sample (``unit="uJ"``); ``samples_offset`` (host, time): the mean
    sample time minus the minute's start, in seconds (27.5 s for 12 samples
    5 s apart).  Negative values (counter wraps) and values above
    ``max_power`` watts (``None``: no bound) become NaN; duplicate
    (host, minute) rows are averaged.  ``attrs`` record the file, its
    checksum, the unit and every count.  ``raw`` reuses a :func:`read_csv`.
    """
    import xarray as xr

    if unit not in ("W", "uJ"):
        raise InputError(f"unit: expected 'W' or 'uJ', got {unit!r}")
    if not (isinstance(sample_period, (int, float)) and sample_period > 0):
        raise InputError(f"sample_period: expected a positive number of seconds, got {sample_period!r}")
    if max_power is not None and not (isinstance(max_power, (int, float)) and max_power > 0):
        raise InputError(f"max_power: expected a positive number of watts or None, got {max_power!r}")
    tab = raw if raw is not None else read_csv(path, sha256=sha256, registry=registry,
                                               verify_checksum=verify_checksum)
    hosts, h_idx = tab.host_names, tab.host_codes
    m0, m1 = int(tab.minute.min()), int(tab.minute.max())
    n_t = m1 - m0 + 1
    t_idx = tab.minute - m0
    flat = h_idx.astype(np.int64) * n_t + t_idx
    size = hosts.size * n_t
    counts = np.bincount(flat, minlength=size)
    duplicates = int((counts > 1).sum())
    to_w = 1e-6 / float(sample_period)
    data = {"pp0": np.full((hosts.size, 2, n_t), np.nan), "dram": np.full((hosts.size, 2, n_t), np.nan)}
    masked_negative: dict[str, int] = {}
    masked_high: dict[str, int] = {}
    for col, (var, pkg) in CHANNELS.items():
        v = tab.values[col]
        watts = v * to_w
        neg = v < 0
        high = (watts > max_power) if max_power is not None else np.zeros_like(neg)
        ok = np.isfinite(v) & ~neg & ~high
        masked_negative[col] = int(neg.sum())
        masked_high[col] = int(high.sum())
        vals = watts if unit == "W" else v
        s = np.bincount(flat[ok], weights=vals[ok], minlength=size)
        c = np.bincount(flat[ok], minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(c > 0, s / np.maximum(c, 1), np.nan)
        data[var][:, pkg - 1, :] = mean.reshape(hosts.size, n_t)
    off = tab.timestamp - 60.0 * tab.minute
    s = np.bincount(flat, weights=off, minlength=size)
    offset = np.where(counts > 0, s / np.maximum(counts, 1), np.nan).reshape(hosts.size, n_t)
    time = (np.arange(m0, m1 + 1, dtype=np.int64) * 60).astype("datetime64[s]").astype("datetime64[ns]")
    unit_attr = "W" if unit == "W" else "uJ"
    note = (f"mean power over the minute, assuming one Colmet sample every {sample_period:g} s "
            "(microjoules per sample / 1e6 / sample period)" if unit == "W"
            else "mean over the minute's Colmet samples of the energy counted in one sample")
    ds = xr.Dataset(
        {
            "pp0": (("host", "package", "time"), data["pp0"],
                    {"long_name": "RAPL PP0 (cores) of the processor", "units": unit_attr, "comment": note}),
            "dram": (("host", "package", "time"), data["dram"],
                     {"long_name": "RAPL DRAM of the processor's memory", "units": unit_attr,
                      "comment": note}),
            "samples_offset": (("host", "time"), offset,
                               {"long_name": "mean time of the minute's samples minus the minute's start",
                                "units": "s"}),
        },
        coords={"host": hosts.astype(str), "package": np.array([1, 2]),
                "time": time, "minute": ("time", np.arange(m0, m1 + 1, dtype=np.int64),
                                         {"long_name": "unix time // 60"})},
        attrs={
            "source_file": str(tab.path.name),
            "sha256": tab.sha256,
            "rows": len(tab),
            "duplicate_keys": duplicates,
            "unit": unit_attr,
            "sample_period_s": float(sample_period),
            "max_power_W": float(max_power) if max_power is not None else float("nan"),
            "masked_negative": masked_negative,
            "masked_high": masked_high,
        },
    )
    return ds


def unit_evidence(raw: RawTable, sample_period: float = SAMPLE_PERIOD_S) -> dict[str, Any]:
    """What the data says about its unit and sampling period.

    * the share of minutes whose mean sample time lies 27.5 s after the
      minute's start: 12 samples 5 s apart;
    * the high quantiles of PP0 power under the ``sample_period``
      assumption: they should sit just under the processor's TDP (125 W for
      the Xeon Gold 6130 of dahu);
    * negative minutes: adding one wrap of a 32-bit RAPL counter
      (:data:`RAPL_COUNTER_WRAP` x :data:`RAPL_ENERGY_UNIT_J`) spread over 12
      samples should turn them into ordinary powers.
    """
    off = raw.timestamp - 60.0 * raw.minute
    out: dict[str, Any] = {"rows": len(raw),
                           "offset_27_5_share": float(np.mean(np.abs(off - 27.5) < 1e-6)),
                           "sample_period_s": float(sample_period), "channels": {}}
    for col, (var, _) in CHANNELS.items():
        v = raw.values[col]
        ok = np.isfinite(v) & (v >= 0)
        w = v[ok] * 1e-6 / sample_period
        neg = v[np.isfinite(v) & (v < 0)]
        wrap_uj = RAPL_COUNTER_WRAP * RAPL_ENERGY_UNIT_J[var] * 1e6
        repaired = (neg + wrap_uj / 12.0) * 1e-6 / sample_period
        q = np.percentile(w, [1, 50, 99, 99.9]) if w.size else [math.nan] * 4
        out["channels"][col] = {
            "median_W": float(q[1]), "p01_W": float(q[0]), "p99_W": float(q[2]), "p999_W": float(q[3]),
            "negative": int(neg.size),
            "negative_repaired_median_W": float(np.median(repaired)) if neg.size else math.nan,
            "negative_repaired_plausible_share": (float(np.mean((repaired >= 0) & (repaired <= 130)))
                                                  if neg.size else math.nan),
        }
    return out


def select(ds, hosts=None, days: float | None = None):
    """The dataset restricted to ``hosts`` (list of names, ``None`` = all) and
    to the first ``days`` days (``None`` = all)."""
    if hosts is not None:
        hosts = [str(h) for h in hosts]
        unknown = [h for h in hosts if h not in set(ds.host.values.tolist())]
        if unknown:
            raise InputError(f"hosts: {unknown} not in the data (known: {ds.host.values.tolist()})")
        ds = ds.sel(host=hosts)
    if days is not None:
        if not (isinstance(days, (int, float)) and days > 0):
            raise InputError(f"days: expected a positive number, got {days!r}")
        n = int(round(days * 1440))
        ds = ds.isel(time=slice(0, n))
    return ds


def signal(ds, channel: str = "pp0"):
    """The DataArray (host, package, time) of ``channel``: ``"pp0"``,
    ``"dram"`` or ``"pp0+dram"`` (their sum)."""
    if channel == "pp0+dram":
        out = ds["pp0"] + ds["dram"]
        out.attrs = dict(ds["pp0"].attrs, long_name="RAPL PP0 + DRAM of the processor")
        return out
    if channel not in ("pp0", "dram"):
        raise InputError(f"channel: expected 'pp0', 'dram' or 'pp0+dram', got {channel!r}")
    return ds[channel]


def power_range(da, quantiles: tuple[float, float] = (0.001, 0.999)) -> dict[int, tuple[float, float]]:
    """Per package: the ``quantiles`` of all values of ``da`` (host, package,
    time) -- the low and high power of a processor of the platform, the
    scale of the tree's thresholds."""
    lo_q, hi_q = quantiles
    if not (0.0 <= lo_q < hi_q <= 1.0):
        raise InputError(f"range quantiles: expected 0 <= low < high <= 1, got {quantiles!r}")
    out = {}
    for p in da.package.values.tolist():
        v = np.asarray(da.sel(package=p).values, dtype=float).ravel()
        v = v[np.isfinite(v)]
        if v.size == 0:
            raise InputError(f"package {p}: no valid value to scale by")
        lo, hi = np.quantile(v, [lo_q, hi_q])
        if not hi > lo:
            hi = lo + 1.0
        out[int(p)] = (float(lo), float(hi))
    return out


# =============================================================== profiles ==

@dataclass
class Profile:
    """One energy signal: one value per minute from ``start`` (unix minute),
    NaN where no measurement.  ``source``: ``job``, ``segment``, ``episode``
    or ``window``; ``host``: a host, or hosts joined by ``+``; ``package``:
    1, 2 or 0 (several processors averaged); ``lo``/``hi``: the power range
    the tree scales it by."""

    key: str
    host: str
    package: int
    start: int
    values: np.ndarray
    source: str
    lo: float = 0.0
    hi: float = 1.0
    meta: dict = field(default_factory=dict)

    @property
    def minutes(self) -> int:
        return int(self.values.size)

    @property
    def end(self) -> int:
        """The unix minute after the last value."""
        return self.start + self.minutes

    def mean(self) -> float:
        v = self.values[np.isfinite(self.values)]
        return float(v.mean()) if v.size else math.nan


@dataclass
class JobTable:
    """Jobs as an OAR export gives them: id, start and stop (unix s), hosts
    (a list of ``host`` or ``host/package`` tokens per job) and whether the
    job had its processors to itself (``full``)."""

    job_id: list[str]
    start: np.ndarray
    stop: np.ndarray
    hosts: list[list[str]]
    full: np.ndarray

    def __len__(self) -> int:
        return len(self.job_id)


_TRUE = {"1", "true", "t", "yes", "y"}
_FALSE = {"0", "false", "f", "no", "n", ""}


def _split_hosts(v) -> list[str]:
    if isinstance(v, (list, tuple, np.ndarray)):
        return [str(x).strip() for x in v if str(x).strip()]
    text = str(v)
    for sep in ("+", ";", " "):
        text = text.replace(sep, ",")
    return [t.strip() for t in text.split(",") if t.strip()]


def _as_bool(v, where: str) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return bool(v)
    s = str(v).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise InputError(f"{where}: expected a boolean (true/false, 1/0), got {v!r}")


def read_jobs(jobs) -> JobTable:
    """A :class:`JobTable` from a CSV path, a pandas DataFrame or a mapping of
    columns: ``job_id``, ``start``, ``stop`` (unix seconds), ``hosts``
    (``"dahu33,dahu34"``, ``"dahu33+dahu34"`` or a list; ``dahu33/1`` is
    package 1 of dahu33 only) and ``full`` (the job had whole processors).
    OAR's names ``start_time``/``stop_time``/``job_id`` are accepted."""
    if isinstance(jobs, JobTable):
        return jobs
    if isinstance(jobs, (str, os.PathLike)):
        import pandas as pd
        try:
            jobs = pd.read_csv(jobs, dtype={"job_id": str, "hosts": str})
        except (OSError, ValueError) as exc:
            raise InputError(f"{jobs}: cannot read the job table: {exc}") from None
    if hasattr(jobs, "to_dict") and hasattr(jobs, "columns"):
        cols = {c: jobs[c].tolist() for c in jobs.columns}
    elif isinstance(jobs, Mapping):
        cols = {k: list(v) for k, v in jobs.items()}
    else:
        raise InputError(f"jobs: expected a CSV path, a DataFrame or a mapping of columns, "
                         f"got {type(jobs).__name__}")
    for alias, name in (("start_time", "start"), ("stop_time", "stop"), ("id", "job_id")):
        if name not in cols and alias in cols:
            cols[name] = cols[alias]
    missing = [c for c in ("job_id", "start", "stop", "hosts", "full") if c not in cols]
    if missing:
        raise InputError(f"jobs: missing column(s) {missing} (need job_id, start, stop, hosts, full)")
    n = len(cols["job_id"])
    if any(len(cols[c]) != n for c in ("start", "stop", "hosts", "full")):
        raise InputError("jobs: columns of different lengths")
    try:
        start = np.asarray(cols["start"], dtype=np.float64)
        stop = np.asarray(cols["stop"], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"jobs: start and stop must be unix seconds: {exc}") from None
    bad = ~np.isfinite(start) | ~np.isfinite(stop) | (stop < start)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"jobs: job {cols['job_id'][i]!r}: need finite start <= stop, "
                         f"got {cols['start'][i]!r}, {cols['stop'][i]!r}")
    full = np.array([_as_bool(v, f"jobs: job {cols['job_id'][i]!r}: full") for i, v in enumerate(cols["full"])],
                    dtype=bool)
    return JobTable(job_id=[str(j) for j in cols["job_id"]], start=start, stop=stop,
                    hosts=[_split_hosts(h) for h in cols["hosts"]], full=full)


@dataclass
class JobReport:
    """What :func:`job_profiles` did with each job: ``kept`` and the jobs
    dropped, by reason (job id lists)."""

    jobs: int
    kept: list[str] = field(default_factory=list)
    dropped: dict[str, list[str]] = field(default_factory=dict)

    def drop(self, reason: str, job_id: str) -> None:
        self.dropped.setdefault(reason, []).append(job_id)

    def counts(self) -> dict[str, int]:
        return {"jobs": self.jobs, "kept": len(self.kept), **{k: len(v) for k, v in self.dropped.items()}}


def job_profiles(ds, jobs, *, channel: str = "pp0", combine: str = "mean", min_minutes: int = 1,
                 min_coverage: float = 0.95, ranges: dict[int, tuple[float, float]] | None = None
                 ) -> tuple[list[Profile], JobReport]:
    """One profile per job (thesis §7.3): the ``channel`` of the job's
    processors over the minutes that lie wholly inside [start, stop).

    A host token ``h`` stands for both packages of host ``h``, ``h/1`` for
    package 1 only.  Several processors are combined per minute by
    ``combine`` (``"mean"``, the default, keeps a profile on one processor's
    scale; ``"sum"``: the job's total).  Dropped, by reason: ``shared``
    (``full`` false: RAPL cannot separate jobs sharing a processor),
    ``unknown-host``, ``too-short`` (fewer than ``min_minutes`` whole
    minutes) and ``missing-data`` (a processor has values in fewer than
    ``min_coverage`` of the minutes).  ``ranges`` (per package, default
    :func:`power_range` of the data) is stored on each profile.
    """
    if combine not in ("mean", "sum"):
        raise InputError(f"combine: expected 'mean' or 'sum', got {combine!r}")
    if not (0.0 <= min_coverage <= 1.0):
        raise InputError(f"min_coverage: expected a fraction in [0, 1], got {min_coverage!r}")
    table = read_jobs(jobs)
    da = signal(ds, channel)
    values = np.asarray(da.values, dtype=float)        # host, package, time
    minute0 = int(ds.minute.values[0])
    n_t = values.shape[2]
    host_index = {h: i for i, h in enumerate(ds.host.values.tolist())}
    packages = [int(p) for p in ds.package.values.tolist()]
    ranges = ranges if ranges is not None else power_range(da)
    report = JobReport(jobs=len(table))
    out: list[Profile] = []
    for i, job in enumerate(table.job_id):
        if not table.full[i]:
            report.drop("shared", job)
            continue
        procs: list[tuple[int, int]] = []
        unknown = False
        for token in table.hosts[i]:
            name, _, pkg = token.partition("/")
            if name not in host_index:
                unknown = True
                break
            if pkg:
                p = int(pkg) if pkg.isdigit() else -1
                if p not in packages:
                    unknown = True
                    break
                procs.append((host_index[name], packages.index(p)))
            else:
                procs += [(host_index[name], j) for j in range(len(packages))]
        if unknown or not procs:
            report.drop("unknown-host", job)
            continue
        first = int(math.ceil(table.start[i] / 60.0))
        last = int(math.floor(table.stop[i] / 60.0))        # exclusive
        if last - first < max(min_minutes, 1):
            report.drop("too-short", job)
            continue
        a, b = first - minute0, last - minute0
        lo_pad, hi_pad = max(0, -a), max(0, b - n_t)
        block = np.full((len(procs), b - a), np.nan)
        if b > 0 and a < n_t:
            rows = np.array([h for h, _ in procs]), np.array([p for _, p in procs])
            block[:, lo_pad:(b - a) - hi_pad] = values[rows[0], rows[1], max(a, 0):min(b, n_t)]
        coverage = np.isfinite(block).mean(axis=1)
        if coverage.min() < min_coverage:
            report.drop("missing-data", job)
            continue
        with np.errstate(invalid="ignore"):
            counts = np.isfinite(block).sum(axis=0)
            combined = np.nansum(block, axis=0)
            if combine == "mean":
                combined = combined / np.maximum(counts, 1)
            combined = np.where(counts == len(procs), combined, np.nan)
        pkgs = {packages[p] for _, p in procs}
        pkg = pkgs.pop() if len(pkgs) == 1 and len(procs) == 1 else 0
        lo = float(np.mean([ranges[packages[p]][0] for _, p in procs]))
        hi = float(np.mean([ranges[packages[p]][1] for _, p in procs]))
        if combine == "sum":
            lo, hi = lo * len(procs), hi * len(procs)
        hosts = sorted({ds.host.values[h] for h, _ in procs})
        out.append(Profile(key=str(job), host="+".join(hosts), package=pkg, start=first,
                           values=combined, source="job", lo=lo, hi=hi,
                           meta={"job_id": str(job), "processors": len(procs)}))
        report.kept.append(str(job))
    return out, report


def runs(valid: np.ndarray, max_gap: int = 0) -> list[tuple[int, int]]:
    """[start, stop) index ranges of the True runs of ``valid``, joining runs
    separated by at most ``max_gap`` False values."""
    v = np.asarray(valid, dtype=bool)
    if not v.any():
        return []
    d = np.diff(np.concatenate([[0], v.astype(np.int8), [0]]))
    starts, stops = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    out = [[int(starts[0]), int(stops[0])]]
    for s, e in zip(starts[1:], stops[1:]):
        if s - out[-1][1] <= max_gap:
            out[-1][1] = int(e)
        else:
            out.append([int(s), int(e)])
    return [(a, b) for a, b in out]


def fill_gaps(x: np.ndarray) -> np.ndarray:
    """``x`` with NaNs replaced by linear interpolation (ends: nearest value)."""
    x = np.asarray(x, dtype=float)
    ok = np.isfinite(x)
    if ok.all() or not ok.any():
        return x.copy()
    idx = np.arange(x.size)
    return np.interp(idx, idx[ok], x[ok])


def segment(x: np.ndarray, min_size: int = 30, penalty: float = 1.0, jump: int = 1) -> list[int]:
    """Change points of ``x`` (no NaN): the end indices of its segments
    (the last one is ``len(x)``), by PELT with the L2 cost (a change of mean)
    as ruptures implements it in C (``KernelCPD(kernel="linear")``).

    A split pays ``penalty``; splitting n points into n1 + n2 whose means
    differ by d saves d^2 n1 n2 / n, so with ``penalty = s^2 m / 2`` a shift s
    between two segments of ``min_size`` = m points is just worth a split.
    """
    import ruptures

    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.size < 2 * min_size:
        return [int(x.size)]
    algo = ruptures.KernelCPD(kernel="linear", min_size=int(min_size), jump=int(jump)).fit(x)
    return [int(b) for b in algo.predict(pen=float(penalty))]


def merge_segments(x: np.ndarray, ends: Sequence[int], min_shift: float) -> list[int]:
    """Merge adjacent segments of ``x`` (end indices ``ends``) whose means
    differ by less than ``min_shift``, the closest pair first, until every
    neighbouring pair differs by at least ``min_shift``.  Returns the new
    end indices."""
    x = np.asarray(x, dtype=float)
    bounds = np.asarray([0, *ends], dtype=np.int64)
    if bounds.size <= 2:
        return [int(e) for e in ends]
    ok = np.isfinite(x)
    csum = np.concatenate([[0.0], np.cumsum(np.where(ok, x, 0.0))])
    ccnt = np.concatenate([[0], np.cumsum(ok)])
    sums = list(csum[bounds[1:]] - csum[bounds[:-1]])
    cnts = list(ccnt[bounds[1:]] - ccnt[bounds[:-1]])
    stops = [int(e) for e in bounds[1:]]

    def gap(i: int) -> float:
        a = sums[i] / cnts[i] if cnts[i] else math.nan
        b = sums[i + 1] / cnts[i + 1] if cnts[i + 1] else math.nan
        d = abs(b - a)
        return d if math.isfinite(d) else 0.0

    diffs = np.array([gap(i) for i in range(len(stops) - 1)])
    while diffs.size:
        i = int(np.argmin(diffs))
        if diffs[i] >= min_shift:
            break
        sums[i:i + 2] = [sums[i] + sums[i + 1]]
        cnts[i:i + 2] = [cnts[i] + cnts[i + 1]]
        del stops[i]
        diffs = np.delete(diffs, i)
        if i < diffs.size:
            diffs[i] = gap(i)
        if i > 0:
            diffs[i - 1] = gap(i - 1)
    return stops


@dataclass
class Changepoints:
    """Change points of every processor's signal (see :func:`changepoints`):
    per (host, package, first minute of a gap-free run) the end indices of
    the PELT segments, before merging."""

    min_size: int
    penalty: float
    max_gap: int
    runs: dict[tuple[str, int, int], list[int]] = field(default_factory=dict)


def _processor_runs(ds, channel, ranges, max_gap):
    """(host, package, minute of the run's start, raw run, scaled run, lo, hi)
    for every gap-separated run of every processor."""
    da = signal(ds, channel)
    values = np.asarray(da.values, dtype=float)
    minute0 = int(ds.minute.values[0])
    packages = [int(p) for p in ds.package.values.tolist()]
    for h, host in enumerate(ds.host.values.tolist()):
        for j, pkg in enumerate(packages):
            x = values[h, j]
            lo, hi = ranges[pkg]
            for a, b in runs(np.isfinite(x), max_gap):
                yield host, pkg, minute0 + a, x[a:b], (x[a:b] - lo) / (hi - lo), lo, hi


def changepoints(ds, *, channel: str = "pp0", ranges: dict[int, tuple[float, float]] | None = None,
                 min_size: int = 30, penalty: float | None = None, max_gap: int = 5) -> Changepoints:
    """PELT change points (:func:`segment`) of every processor's scaled
    signal, run by run (runs split at gaps longer than ``max_gap``).
    ``penalty`` defaults to ``0.1^2 min_size / 2`` (a shift of a tenth of the
    power range between two ``min_size`` segments); :func:`derive_profiles`
    then merges the segments closer than its ``min_shift``.  Computed once,
    it serves every ``min_shift``."""
    da = signal(ds, channel)
    ranges = ranges if ranges is not None else power_range(da)
    pen = 0.1 ** 2 * min_size / 2.0 if penalty is None else float(penalty)
    if not pen > 0:
        raise InputError(f"penalty: expected a positive number, got {penalty!r}")
    out = Changepoints(min_size=int(min_size), penalty=pen, max_gap=int(max_gap))
    for host, pkg, m, _, scaled, _, _ in _processor_runs(ds, channel, ranges, max_gap):
        out.runs[(host, pkg, m)] = segment(fill_gaps(scaled), min_size=min_size, penalty=pen)
    return out


def derive_profiles(ds, method: str = "segments", *, channel: str = "pp0",
                    ranges: dict[int, tuple[float, float]] | None = None, min_size: int = 30,
                    min_shift: float = 0.25, penalty: float | None = None, window: int = 360,
                    idle_level: float = 0.1, max_gap: int = 5,
                    cache: Changepoints | None = None) -> list[Profile]:
    """Profiles cut from each processor's signal (host x package), for data
    without a job table.  They are pieces of a processor's activity, not
    jobs.

    The signal is split first at gaps longer than ``max_gap`` minutes
    (shorter ones are bridged), then:

    * ``segments``: change points of the mean of the signal scaled to the
      package's range (:func:`changepoints`: PELT, L2 cost, segments of at
      least ``min_size`` minutes), then adjacent segments whose means differ
      by less than ``min_shift`` merged (:func:`merge_segments`): the pieces
      between level changes of at least ``min_shift`` of the power range.
      Job boundaries are such changes (thesis §7.3); so are large phase
      changes inside a job, and two jobs at the same level stay together;
    * ``episodes``: maximal runs where the scaled signal is above
      ``idle_level`` (dips to idle of at most ``max_gap`` minutes bridged):
      a processor's busy spells, each holding one or more jobs back to back;
    * ``windows``: consecutive blocks of ``window`` minutes (the last,
      shorter block is kept): blind to the signal.

    ``cache``: the :func:`changepoints` of the same data and parameters
    (to try several ``min_shift`` without re-segmenting).
    """
    if method not in METHODS:
        raise InputError(f"method: expected one of {METHODS}, got {method!r}")
    if not (isinstance(min_shift, (int, float)) and min_shift >= 0):
        raise InputError(f"min_shift: expected a number >= 0, got {min_shift!r}")
    if not (isinstance(window, (int, np.integer)) and window >= 1):
        raise InputError(f"window: expected a whole number of minutes >= 1, got {window!r}")
    da = signal(ds, channel)
    ranges = ranges if ranges is not None else power_range(da)
    if method == "segments" and cache is None:
        cache = changepoints(ds, channel=channel, ranges=ranges, min_size=min_size, penalty=penalty,
                             max_gap=max_gap)
    out: list[Profile] = []
    count: dict[tuple[str, int], int] = {}
    for host, pkg, m, raw, scaled, lo, hi in _processor_runs(ds, channel, ranges, max_gap):
        n = raw.size
        if method == "segments":
            try:
                ends = cache.runs[(host, pkg, m)]
            except KeyError:
                raise InputError("derive_profiles: the change-point cache does not match the data "
                                 "(other hosts, days or max_gap)") from None
            ends = merge_segments(scaled, ends, min_shift)
            cuts = list(zip([0] + ends[:-1], ends))
        elif method == "episodes":
            busy = np.nan_to_num(scaled, nan=-np.inf) > idle_level
            cuts = runs(busy, max_gap)
        else:
            cuts = [(s, min(s + window, n)) for s in range(0, n, window)]
        for s, e in cuts:
            i = count.get((host, pkg), 0)
            count[(host, pkg)] = i + 1
            out.append(Profile(key=f"{host}/{pkg}/{method[0]}{i:04d}", host=host, package=pkg,
                               start=m + s, values=raw[s:e].copy(), source=method[:-1],
                               lo=lo, hi=hi))
    return out


# =========================================================== preprocessing ==

def aggregate(times: np.ndarray, values: np.ndarray, period: float = 60.0,
              origin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Average ``values`` sampled at ``times`` (seconds) over consecutive bins
    of ``period`` seconds from ``origin`` (thesis §7.4.2.1: the mean of the
    12 five-second measurements of each minute).  Returns the start time of
    every bin from the first to the last sample and its mean (NaN for a bin
    without a valid sample)."""
    t = np.asarray(times, dtype=float)
    v = np.asarray(values, dtype=float)
    if t.shape != v.shape or t.ndim != 1:
        raise InputError("aggregate: times and values must be 1-d arrays of the same length")
    if not period > 0:
        raise InputError(f"aggregate: period must be positive, got {period!r}")
    if t.size == 0:
        return np.zeros(0), np.zeros(0)
    b = np.floor((t - origin) / period).astype(np.int64)
    b0 = int(b.min())
    idx = b - b0
    ok = np.isfinite(v)
    n = int(idx.max()) + 1
    s = np.bincount(idx[ok], weights=v[ok], minlength=n)
    c = np.bincount(idx[ok], minlength=n)
    with np.errstate(invalid="ignore"):
        mean = np.where(c > 0, s / np.maximum(c, 1), np.nan)
    return origin + (b0 + np.arange(n)) * period, mean


def trim(x: np.ndarray, head: int = 5, tail: int | None = None) -> np.ndarray:
    """``x`` without its first ``head`` and last ``tail`` (default ``head``)
    values: the start-up and closing phases of a job (thesis §7.4.2.2)."""
    tail = head if tail is None else tail
    if head < 0 or tail < 0:
        raise InputError("trim: head and tail must be >= 0")
    x = np.asarray(x)
    return x[head:x.size - tail] if head + tail < x.size else x[:0]


def zscore_outliers(x: np.ndarray, threshold: float = 3.0) -> np.ndarray:
    """True where |x - mean| > ``threshold`` standard deviations (thesis
    §7.4.2.2; one pass, NaNs ignored and never flagged; ``threshold`` <= 0 or
    ``inf`` flags nothing)."""
    x = np.asarray(x, dtype=float)
    ok = np.isfinite(x)
    out = np.zeros(x.shape, dtype=bool)
    if ok.sum() < 2 or not (0 < threshold < np.inf):
        return out
    m = x[ok].mean()
    s = x[ok].std(ddof=1)
    if s == 0:
        return out
    out[ok] = np.abs(x[ok] - m) > threshold * s
    return out


def normalise(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """``(x - lo) / (hi - lo)``: 0 at the platform's low power, 1 at its high."""
    if not hi > lo:
        raise InputError(f"normalise: need hi > lo, got lo={lo!r}, hi={hi!r}")
    return (np.asarray(x, dtype=float) - lo) / (hi - lo)


@dataclass(frozen=True)
class Preprocessing:
    """Parameters of :func:`preprocess` (thesis §7.4.1-7.4.2): profiles
    shorter than ``min_length`` minutes are dropped; ``trim`` minutes are cut
    at each end; points beyond ``zscore`` standard deviations are removed
    (``0``: none); gaps of at most ``max_gap`` minutes are bridged, a longer
    one drops the profile; fewer than ``min_points`` points left drops it."""

    min_length: int = 30
    trim: int = 5
    zscore: float = 3.0
    max_gap: int = 5
    min_points: int = 12

    def __post_init__(self):
        for name in ("min_length", "trim", "max_gap", "min_points"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 0:
                raise InputError(f"{name}: expected an integer >= 0, got {v!r}")
        if not isinstance(self.zscore, (int, float)) or isinstance(self.zscore, bool) or self.zscore < 0:
            raise InputError(f"zscore: expected a number >= 0 (0: no outlier removal), got {self.zscore!r}")


@dataclass
class Prepared:
    """A preprocessed profile: ``values`` scaled, NaN where removed;
    ``filled`` the same with removed points interpolated (for the DFT);
    ``dropped``: why the profile was left out (``None`` if kept)."""

    values: np.ndarray
    filled: np.ndarray
    trimmed: int
    outliers: int
    gaps: int
    dropped: str | None = None

    @property
    def kept(self) -> int:
        return int(np.isfinite(self.values).sum())


def preprocess(values: np.ndarray, lo: float, hi: float, params: Preprocessing = Preprocessing()) -> Prepared:
    """Minimum length, trimming, gap check, z-score outliers, then scaling
    to [lo, hi] (see :class:`Preprocessing`)."""
    x = np.asarray(values, dtype=float)
    empty = np.zeros(0)
    if x.size < params.min_length:
        return Prepared(empty, empty, 0, 0, 0, dropped="too-short")
    y = trim(x, params.trim)
    trimmed = x.size - y.size
    longest = max((b - a for a, b in runs(~np.isfinite(y))), default=0)
    gaps = int((~np.isfinite(y)).sum())
    if longest > params.max_gap:
        return Prepared(empty, empty, trimmed, 0, gaps, dropped="missing-data")
    out = zscore_outliers(y, params.zscore) if params.zscore > 0 else np.zeros(y.shape, dtype=bool)
    y = np.where(out, np.nan, y)
    if np.isfinite(y).sum() < max(params.min_points, 2):
        return Prepared(empty, empty, trimmed, int(out.sum()), gaps, dropped="too-few-points")
    z = normalise(y, lo, hi)
    return Prepared(z, fill_gaps(z), trimmed, int(out.sum()), gaps)


# ==================================================================== tree ==

@dataclass(frozen=True)
class TestResult:
    """One test of the tree: its ``statistic``, the ``threshold`` it was held
    to, its ``verdict`` (True = stationary / constant / periodic) and
    details (e.g. the window means, the dominant period)."""

    name: str
    statistic: float
    threshold: float
    verdict: bool
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Tree:
    """Parameters of the tree (thesis §7.4.3-7.4.6, Fig. 7.7)."""

    n_windows: int = 6
    stationarity: float = 0.1
    variability: float = 0.1
    periodicity: float = 0.4
    criterion: str = "acf"
    min_cycles: float = 3.0

    def __post_init__(self):
        if not isinstance(self.n_windows, (int, np.integer)) or isinstance(self.n_windows, bool) \
                or self.n_windows < 2:
            raise InputError(f"n_windows: expected an integer >= 2, got {self.n_windows!r}")
        for name in ("stationarity", "variability", "periodicity", "min_cycles"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not (v >= 0) or not math.isfinite(v):
                raise InputError(f"{name}: expected a finite number >= 0, got {v!r}")
        if self.criterion not in CRITERIA:
            raise InputError(f"criterion: expected one of {CRITERIA}, got {self.criterion!r}")


def _finite(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x[np.isfinite(x)]


def stationarity_test(x: np.ndarray, n_windows: int = 6, threshold: float = 0.1) -> TestResult:
    """Thesis §7.4.4: cut ``x`` into ``n_windows`` consecutive windows of
    (nearly) equal length, take each window's mean (NaNs ignored); the
    statistic is the standard deviation of the means; stationary if it is at
    most ``threshold``."""
    x = np.asarray(x, dtype=float)
    if x.size < n_windows:
        raise InputError(f"stationarity test: {x.size} points for {n_windows} windows")
    size, extra = divmod(x.size, n_windows)          # the windows of np.array_split
    starts = np.arange(n_windows) * size + np.minimum(np.arange(n_windows), extra)
    ok = np.isfinite(x)
    sums = np.add.reduceat(np.where(ok, x, 0.0), starts)
    counts = np.add.reduceat(ok.astype(np.int64), starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    m = means[np.isfinite(means)]
    stat = float(m.std(ddof=1)) if m.size >= 2 else 0.0
    return TestResult("stationarity", stat, float(threshold), stat <= threshold,
                      {"window_means": means.tolist()})


def variability_test(x: np.ndarray, threshold: float = 0.1) -> TestResult:
    """Thesis §7.4.5, eq. 7.1: the standard deviation (N - 1) of ``x``;
    constant if it is below ``threshold``."""
    v = _finite(x)
    stat = float(v.std(ddof=1)) if v.size >= 2 else 0.0
    return TestResult("variability", stat, float(threshold), stat < threshold, {"mean": float(v.mean()) if v.size else math.nan})


def periodogram(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The periodogram of ``x`` (evenly spaced, no NaN) without the zero
    frequency: frequencies k = 1 .. N/2 in cycles per signal, and
    |DFT_k|^2 / N of the mean-removed signal."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n < 4:
        return np.zeros(0), np.zeros(0)
    spec = np.abs(np.fft.rfft(x - x.mean())) ** 2 / n
    k = np.arange(spec.size, dtype=float)
    return k[1:], spec[1:]


def autocorrelation(x: np.ndarray) -> np.ndarray:
    """The autocorrelation of ``x`` (evenly spaced, no NaN) at lags 0 .. N-1,
    computed through the DFT (the inverse transform of the zero-padded
    periodogram, Wiener-Khinchin), unbiased (lag l divided by N - l) and
    scaled to 1 at lag 0 (all zeros for a flat signal)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return np.zeros(0)
    y = x - x.mean()
    f = np.fft.rfft(y, 2 * n)
    r = np.fft.irfft(f * np.conj(f), 2 * n)[:n]
    r = r / (n - np.arange(n))
    return r / r[0] if r[0] > 0 else np.zeros(n)


def periodicity_test(x: np.ndarray, threshold: float = 0.4, criterion: str = "acf",
                     min_cycles: float = 3.0) -> TestResult:
    """Thesis §7.4.6: the DFT of ``x`` (evenly spaced; pass the gap-filled
    values), its dominant frequency among those repeating at least
    ``min_cycles`` times in the signal, and a statistic held to
    ``threshold`` (periodic if above it), by ``criterion``:

    * ``share``: the fraction of the variance (sum of the periodogram) in the
      dominant bin plus its larger neighbour;
    * ``acf``: the periodogram's peak validated by the autocorrelation
      (computed from the DFT): half the difference between the
      autocorrelation at the dominant period (its best lag within half a bin
      of the dominant frequency) and at half that period.  A signal that
      repeats itself is alike one period apart and unlike half a period
      apart (1 for a clean square wave or sine); a lone bump, noise or a
      slow drift is not (about 0 or below).  The idea of checking a
      periodogram peak on the autocorrelation is AUTOPERIOD's (Vlachos,
      Yu and Castelli, SDM 2005);
    * ``density``: the dominant value of the one-sided periodogram density
      (2 |DFT_k|^2 / N, one sample per minute), the thesis' literal reading
      (it grows with the signal's length and amplitude).

    Details: all three statistics, the dominant ``cycles`` (per signal) and
    ``period`` (samples)."""
    if criterion not in CRITERIA:
        raise InputError(f"criterion: expected one of {CRITERIA}, got {criterion!r}")
    x = np.asarray(x, dtype=float)
    n = x.size
    k, p = periodogram(x)
    sel = k >= min_cycles
    total = float(p.sum())
    if not sel.any() or total <= 0:
        return TestResult("periodicity", 0.0, float(threshold), False,
                          {"cycles": math.nan, "period": math.nan, "criterion": criterion,
                           "share": 0.0, "acf": 0.0, "density": 0.0})
    idx = np.flatnonzero(sel)
    best = int(idx[np.argmax(p[idx])])
    nb = max(p[best - 1] if best - 1 >= 0 else 0.0, p[best + 1] if best + 1 < p.size else 0.0)
    share = float((p[best] + nb) / total)
    density = float(2.0 * p[best])
    cyc = float(k[best])
    lo_lag = max(1, int(math.ceil(n / (cyc + 0.5))))
    hi_lag = min(int(math.floor(n / max(cyc - 0.5, 1e-9))), (2 * n) // 3)
    r = autocorrelation(x)
    if hi_lag >= lo_lag:
        lag = lo_lag + int(np.argmax(r[lo_lag:hi_lag + 1]))
    else:
        lag = min(lo_lag, n - 1)
    acf = float((r[lag] - r[max(int(round(lag / 2)), 1)]) / 2.0)
    stat = {"share": share, "acf": acf, "density": density}[criterion]
    return TestResult("periodicity", stat, float(threshold), stat > threshold,
                      {"cycles": cyc, "period": float(n / cyc), "lag": lag, "criterion": criterion,
                       "share": share, "acf": acf, "density": density})


@dataclass(frozen=True)
class Classification:
    """The class of a profile and the three tests (all three are always run,
    so that the thresholds can be varied without recomputing)."""

    label: str
    stationarity: TestResult
    variability: TestResult
    periodicity: TestResult


def label(stationary: bool, constant: bool, periodic: bool) -> str:
    """The leaf of the tree (Fig. 7.7) for the three verdicts."""
    if not stationary:
        return "non-stationary"
    if constant:
        return "constant"
    return "periodic" if periodic else "variable"


def classify(x: np.ndarray, tree: Tree = Tree(), filled: np.ndarray | None = None) -> Classification:
    """Run the tree on a scaled profile ``x`` (NaN = removed point;
    ``filled``: the same gap-filled for the DFT, default interpolated)."""
    x = np.asarray(x, dtype=float)
    filled = fill_gaps(x) if filled is None else np.asarray(filled, dtype=float)
    s = stationarity_test(x, tree.n_windows, tree.stationarity)
    v = variability_test(x, tree.variability)
    p = periodicity_test(filled, tree.periodicity, tree.criterion, tree.min_cycles)
    return Classification(label(s.verdict, v.verdict, p.verdict), s, v, p)


# ============================================================== synthetic ==

def synthetic(kind: str, n: int = 240, noise: float = 0.0, rng: np.random.Generator | None = None,
              level: float | None = None, amplitude: float | None = None, period: float | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
    """A generated scaled signal of known class (:data:`KINDS`), ``n`` minutes,
    plus white noise of standard deviation ``noise``.  What is not given is
    drawn from ``rng``: ``level`` in [0.2, 0.8], ``amplitude`` (peak to peak)
    in [0.2, 0.6], ``period`` in [n/20, n/4] minutes.

    * ``constant``: ``level``;
    * ``periodic``: high and low phases (as compute and I/O) of ``amplitude``
      around ``level``, ``period`` minutes, the high phase a fraction drawn in
      [0.3, 0.7] of it, random phase;
    * ``irregular``: ``level`` with bursts up or down by ``amplitude`` (sign
      drawn per burst) lasting 1 to 6 minutes, starting at random (one every
      12 minutes on average): stationary and variable, but not periodic;
    * ``level-shift``: ``level -/+ amplitude/2``, switching once at a time
      drawn in the middle 60 % of the signal;
    * ``chaotic``: a random walk (steps of 0.03) plus regime switches to a
      level drawn in [0.1, 0.9] at random times (one every n/8 minutes on
      average), clipped to [0, 1].

    Returns the signal and its truth: ``kind``, the expected ``class``,
    ``stationary``, ``constant``, ``periodic`` and ``period``.
    """
    if kind not in KINDS:
        raise InputError(f"kind: expected one of {list(KINDS)}, got {kind!r}")
    rng = rng if rng is not None else np.random.default_rng()
    level = float(rng.uniform(0.2, 0.8)) if level is None else float(level)
    amplitude = float(rng.uniform(0.2, 0.6)) if amplitude is None else float(amplitude)
    t = np.arange(n, dtype=float)
    truth: dict[str, Any] = {"kind": kind, "class": KINDS[kind], "period": math.nan}
    if kind == "constant":
        x = np.full(n, level)
    elif kind == "periodic":
        per = float(period) if period is not None else float(rng.uniform(n / 20, n / 4))
        duty = rng.uniform(0.3, 0.7)
        phase = rng.uniform(0, per)
        x = level + amplitude / 2 * np.where(((t + phase) % per) < duty * per, 1.0, -1.0)
        truth["period"] = per
    elif kind == "irregular":
        x = np.full(n, level)
        for s0 in np.flatnonzero(rng.random(n) < 1.0 / 12.0):
            x[s0:s0 + int(rng.integers(1, 7))] = level + rng.choice([-1.0, 1.0]) * amplitude
    elif kind == "level-shift":
        at = int(rng.uniform(0.2, 0.8) * n)
        sign = rng.choice([-1.0, 1.0])
        x = np.where(t < at, level - sign * amplitude / 2, level + sign * amplitude / 2)
    else:
        walk = np.cumsum(rng.normal(0, 0.03, n))
        switches = np.flatnonzero(rng.random(n) < 8.0 / n)
        levels = np.empty(n)
        cur = rng.uniform(0.1, 0.9)
        prev = 0
        for s in list(switches) + [n]:
            levels[prev:s] = cur
            cur = rng.uniform(0.1, 0.9)
            prev = s
        x = np.clip(levels + walk - walk.mean(), 0.0, 1.0)
    x = x + rng.normal(0.0, noise, n) if noise > 0 else x
    truth.update(stationary=KINDS[kind] != "non-stationary", constant=kind == "constant",
                 periodic=kind == "periodic")
    return x, truth


def tree_accuracy(noises: Sequence[float] = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3), n_signals: int = 50,
                  n: int = 240, tree: Tree = Tree(), seed: int = 0,
                  kinds: Iterable[str] = tuple(KINDS), period_tolerance: float = 0.1
                  ) -> list[dict[str, Any]]:
    """How often each test is right on :func:`synthetic` signals: one record
    per (kind, noise) with the share of signals where the stationarity,
    variability and periodicity verdicts match the truth (``None`` where a
    test says nothing about that kind: variability and periodicity are only
    scored on stationary kinds), the share where the period found is within
    ``period_tolerance`` of the true one (periodic kind), and the share
    classified right.  Reproducible for a given ``seed``."""
    out = []
    for i, kind in enumerate(kinds):
        for j, noise in enumerate(noises):
            rng = np.random.default_rng([seed, i, j])
            hits = {"stationarity": 0, "variability": 0, "periodicity": 0, "period": 0, "class": 0}
            for _ in range(n_signals):
                x, truth = synthetic(kind, n=n, noise=noise, rng=rng)
                c = classify(x, tree)
                hits["stationarity"] += c.stationarity.verdict == truth["stationary"]
                hits["variability"] += c.variability.verdict == truth["constant"]
                hits["periodicity"] += c.periodicity.verdict == truth["periodic"]
                if kind == "periodic":
                    per = c.periodicity.details["period"]
                    hits["period"] += bool(abs(per - truth["period"]) <= period_tolerance * truth["period"])
                hits["class"] += c.label == truth["class"]
            stat = truth["stationary"]
            out.append({
                "kind": kind, "noise": float(noise), "signals": n_signals, "expected": KINDS[kind],
                "stationarity": hits["stationarity"] / n_signals,
                "variability": hits["variability"] / n_signals if stat else None,
                "periodicity": hits["periodicity"] / n_signals if stat else None,
                "period": hits["period"] / n_signals if kind == "periodic" else None,
                "class": hits["class"] / n_signals,
            })
    return out
