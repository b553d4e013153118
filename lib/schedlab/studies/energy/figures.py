"""Study 9 -- energy profiles: preprocessing and the stationarity /
variability / periodicity tree of thesis ch. 7 on real RAPL measurements.

The thesis (zrigui2021, :data:`THESIS`) classifies the energy profiles of
the jobs of 40 nodes of the Gricad *dahu* cluster (16 days from 2019-06-25)
as non-stationary, constant or periodic with a tree of three tests, and
finds that "around 75% of the total jobs (and respectively total execution
area) are predictable" (§7.4.6, Fig. 7.12; §7.5).  The compendium bundles
Colmet/RAPL measurements of the same cluster and period (``data/energy/``,
see ``data/README.md``), per node and minute -- but no job table.  So:

* **profiles** are cut from each processor's PP0 (cores) signal
  (:func:`schedlab.energy.derive_profiles`): by default change-point
  ``segments`` (pieces between level changes of at least ``min_shift`` of
  the processor's power range), beside idle-delimited ``episodes`` and
  fixed ``windows`` for comparison.  They are *segments of processor
  activity*, not jobs; the per-job path
  (:func:`schedlab.energy.job_profiles`) is there for data with a job table.
  Profiles whose mean lies at idle power (below ``idle_level`` of the range)
  are most likely processors without a job; they are left out of the
  shares unless ``include_idle``, and counted apart;
* **preprocessing** (thesis §7.4.1-7.4.2): minimum length ``min_length``
  minutes, ``trim`` minutes cut at each end, z-score outliers beyond
  ``zscore`` removed, gaps of at most ``max_gap`` minutes bridged; the data
  is already the per-minute aggregate the thesis used;
* **the tree** (§7.4.3-7.4.6) with every parameter exposed; each test
  returns its statistic and verdict (:mod:`schedlab.energy`);
* **shares** of the classes by number of profiles and by duration (the
  thesis' "number" and "area": one processor per profile, so area =
  duration), beside the thesis' values, for each way of cutting profiles;
* **sensitivity** of the shares to each parameter, one at a time;
* **the tree on generated signals** of known class across noise levels.

The notebook ``notebooks/05-energy.ipynb`` validates its parameters
(:func:`validate`) and calls :func:`run`, which writes tables, figures,
``data/profiles.csv``, ``profiles.nc`` and ``numbers.json``.
"""
from __future__ import annotations

import math
import os
import time
import warnings
from dataclasses import asdict, dataclass, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ... import __version__, energy, paths, plots
from ...errors import InputError
from .. import Table, write_json, write_text
from ... import values as check

__all__ = [
    "STUDY", "THESIS", "PUBLISHED", "PUBLISHED_NOTES", "CLASS_COLORS", "SENSITIVITY", "PERIODICITY_GRID",
    "Params", "validate", "validate_outdir", "Analysis", "analyse", "shares", "sensitivity",
    "numbers", "run",
]

STUDY = "energy"

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, ch. 7")

#: What the thesis reports (ch. 7), for the comparison.  The class shares of
#: Fig. 7.12 are only given in words ("around half ... constant and a quarter
#: ... periodic"; "around 75% ... predictable"), so they are approximate.
PUBLISHED: dict[str, Any] = {
    "predictable_pct": 75.0,
    "constant_pct": 50.0,
    "periodic_pct": 25.0,
    "machines": 40,
    "days": 16,
    "period": "2019-06-25 to 2019-07-11",
    "jobs": 21885,
    "short_jobs_pct": 41.8,
    "missing_measurements_jobs_pct": 18.0,
    "missing_measurements_time_pct": 19.0,
    "full_processor_jobs_pct": 36.6,
    "full_processor_area_pct": 63.9,
    "min_length_min": 30,
    "n_windows": 6,
    "stationarity_threshold": 0.1,
    "variability_threshold": 0.1,
    "periodicity_threshold": 1.0,
    "zscore": 3.0,
}

PUBLISHED_NOTES: tuple[str, ...] = (
    "Thesis §7.4.6 and Fig. 7.12: 'around half of the jobs belong to the constant class and a "
    "quarter of the jobs belong to the periodic class'; 'around 75% of the total jobs (and "
    "respectively total execution area) are predictable'.  §7.5: 'constant and periodic jobs make "
    "up around 75% of the total execution time'.  Fig. 7.12's exact values are not in the text.",
    "The thesis' profiles are jobs that use whole processors for at least 30 minutes; ours are "
    "pieces of a processor's signal (no job table is available).",
    "The thesis' periodicity threshold (1) applies to a periodogram whose scaling it does not "
    "give; ours is a share of the variance (criterion 'share') unless criterion = 'density'.",
)

#: One colour per class, the same in every figure.
CLASS_COLORS = {"constant": "#1f77b4", "periodic": "#2ca02c", "variable": "#ff7f0e",
                "non-stationary": "#d62728", "idle": "#7f7f7f"}

#: The default sensitivity grid: parameter -> values tried (one at a time,
#: the others at their set values).
#: ``periodicity`` None: the values of :data:`PERIODICITY_GRID` for the
#: criterion in use; ``criterion``: each with its default threshold.
SENSITIVITY: dict[str, list | None] = {
    "stationarity": [0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3],
    "variability": [0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3],
    "periodicity": None,
    "criterion": list(energy.CRITERIA),
    "n_windows": [3, 4, 6, 8, 12],
    "min_cycles": [2.0, 3.0, 4.0, 6.0],
    "zscore": [0.0, 2.0, 2.5, 3.0, 4.0],
    "trim": [0, 2, 5, 10, 15],
    "min_length": [30, 60, 120, 240],
    "idle_level": [0.05, 0.1, 0.15, 0.2],
    "min_shift": [0.1, 0.25, 0.5, 0.75],
}
PERIODICITY_GRID = {"share": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                    "acf": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
                    "density": [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]}
#: Change-point segments are at least this many minutes long (the thesis'
#: minimum job length); a longer ``min_length`` drops the shorter ones.
SEGMENT_MIN_SIZE = 30
_TREE_KEYS = ("n_windows", "stationarity", "variability", "periodicity", "criterion", "min_cycles")


# -------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params:
    """The study's parameters (see the module docstring and :func:`validate`)."""

    data: str | None = None
    hosts: tuple[str, ...] | str = "dahu"
    days: float | None = None
    channel: str = "pp0"
    method: str = "segments"
    min_shift: float = 0.25
    window: int = 360
    idle_level: float = 0.1
    include_idle: bool = False
    min_length: int = 30
    trim: int = 5
    zscore: float = 3.0
    max_gap: int = 5
    n_windows: int = 6
    stationarity: float = 0.1
    variability: float = 0.1
    periodicity: float | None = None
    criterion: str = "acf"
    min_cycles: float = 3.0
    range_quantiles: tuple[float, float] = (0.001, 0.999)
    compare_methods: bool = True
    sensitivity: Any = True
    synthetic_signals: int = 50
    synthetic_noises: tuple[float, ...] = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3)
    seed: int = 0

    @property
    def tree(self) -> energy.Tree:
        kw = {k: getattr(self, k) for k in _TREE_KEYS}
        if kw["periodicity"] is None:
            kw["periodicity"] = energy.DEFAULT_PERIODICITY[self.criterion]
        return energy.Tree(**kw)

    @property
    def preprocessing(self) -> energy.Preprocessing:
        return energy.Preprocessing(min_length=self.min_length, trim=self.trim, zscore=self.zscore,
                                    max_gap=self.max_gap)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sensitivity"] = self.sensitivity
        return d


def _number(name, v, *, integer=False, minimum=None, positive=False, maximum=None):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise InputError(f"{name}: expected a number, got {v!r}") from None
        else:
            raise InputError(f"{name}: expected a number, got {v!r}")
    if not math.isfinite(float(v)):
        raise InputError(f"{name}: expected a finite number, got {v!r}")
    if integer:
        if float(v) != int(v):
            raise InputError(f"{name}: expected a whole number, got {v!r}")
        v = int(v)
    else:
        v = float(v)
    if positive and not v > 0:
        raise InputError(f"{name}: expected a number > 0, got {v!r}")
    if minimum is not None and v < minimum:
        raise InputError(f"{name}: expected a number >= {minimum}, got {v!r}")
    if maximum is not None and v > maximum:
        raise InputError(f"{name}: expected a number <= {maximum}, got {v!r}")
    return v


def _bool(name, v):
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        return v.strip().lower() in ("true", "yes", "1")
    raise InputError(f"{name}: expected true or false, got {v!r}")


def validate(**kw) -> Params:
    """The study's parameters, checked: a :class:`Params`, or an
    :class:`~schedlab.errors.InputError` that names the parameter and says
    what is expected.  Unknown names are refused."""
    names = {f.name for f in fields(Params)}
    unknown = sorted(set(kw) - names - {"outdir"})
    if unknown:
        raise InputError(f"unknown parameter(s) {unknown}; known: {sorted(names)}")
    kw.pop("outdir", None)
    d = Params()
    out: dict[str, Any] = {}
    data = kw.get("data", d.data)
    if data is not None:
        if not isinstance(data, (str, os.PathLike)) or not str(data).strip():
            raise InputError(f"data: expected a path to a CSV in the bundled format or None, got {data!r}")
        p = Path(data).expanduser()
        if not p.is_file():
            raise InputError(f"data: {p} is not a file")
        data = str(p)
    out["data"] = data
    hosts = kw.get("hosts", d.hosts)
    if isinstance(hosts, str) and hosts.strip().lower() in ("dahu", "all"):
        hosts = hosts.strip().lower()
    else:
        hosts = tuple(str(h) for h in check.as_list(hosts, "hosts"))
        if not hosts:
            raise InputError("hosts: give 'dahu', 'all' or a non-empty list of host names")
    out["hosts"] = hosts
    days = kw.get("days", d.days)
    out["days"] = None if days is None else _number("days", days, positive=True)
    for name, choices in (("channel", ("pp0", "dram", "pp0+dram")), ("method", energy.METHODS),
                          ("criterion", energy.CRITERIA)):
        v = kw.get(name, getattr(d, name))
        if v not in choices:
            raise InputError(f"{name}: expected one of {list(choices)}, got {v!r}")
        out[name] = v
    out["min_shift"] = _number("min_shift", kw.get("min_shift", d.min_shift), minimum=0.0)
    out["window"] = _number("window", kw.get("window", d.window), integer=True, minimum=1)
    out["idle_level"] = _number("idle_level", kw.get("idle_level", d.idle_level))
    out["include_idle"] = _bool("include_idle", kw.get("include_idle", d.include_idle))
    for name in ("min_length", "trim", "max_gap"):
        out[name] = _number(name, kw.get(name, getattr(d, name)), integer=True, minimum=0)
    out["min_length"] = max(out["min_length"], 1)
    out["zscore"] = _number("zscore", kw.get("zscore", d.zscore), minimum=0.0)
    out["n_windows"] = _number("n_windows", kw.get("n_windows", d.n_windows), integer=True, minimum=2)
    for name in ("stationarity", "variability", "min_cycles"):
        out[name] = _number(name, kw.get(name, getattr(d, name)), minimum=0.0)
    per = kw.get("periodicity", None)
    out["periodicity"] = (energy.DEFAULT_PERIODICITY[out["criterion"]] if per is None
                          else _number("periodicity", per, minimum=0.0))
    q = check.as_list(kw.get("range_quantiles", d.range_quantiles), "range_quantiles")
    if len(q) != 2:
        raise InputError(f"range_quantiles: expected [low, high], got {q!r}")
    q = (_number("range_quantiles[0]", q[0], minimum=0.0, maximum=1.0),
         _number("range_quantiles[1]", q[1], minimum=0.0, maximum=1.0))
    if not q[0] < q[1]:
        raise InputError(f"range_quantiles: need low < high, got {list(q)}")
    out["range_quantiles"] = q
    out["compare_methods"] = _bool("compare_methods", kw.get("compare_methods", d.compare_methods))
    sens = kw.get("sensitivity", d.sensitivity)
    if isinstance(sens, (bool, str)) and not (isinstance(sens, str) and sens.strip().startswith("{")):
        sens = _bool("sensitivity", sens)
    else:
        if isinstance(sens, str):
            import yaml
            sens = yaml.safe_load(sens)
        if not isinstance(sens, dict):
            raise InputError("sensitivity: expected true, false or a mapping parameter -> list of values")
        bad = sorted(set(sens) - set(SENSITIVITY))
        if bad:
            raise InputError(f"sensitivity: unknown parameter(s) {bad}; known: {sorted(SENSITIVITY)}")
        sens = {k: [v for v in check.as_list(vals, f"sensitivity.{k}")] for k, vals in sens.items()}
        for k, vals in sens.items():
            if k == "criterion":
                bad = [v for v in vals if v not in energy.CRITERIA]
                if bad:
                    raise InputError(f"sensitivity.criterion: {bad} not in {list(energy.CRITERIA)}")
                continue
            integer = k in ("n_windows", "trim", "min_length")
            sens[k] = [_number(f"sensitivity.{k}", v, integer=integer,
                               minimum=2 if k == "n_windows" else 0) for v in vals]
    out["sensitivity"] = sens
    out["synthetic_signals"] = _number("synthetic_signals", kw.get("synthetic_signals", d.synthetic_signals),
                                       integer=True, minimum=0)
    noises = check.as_list(kw.get("synthetic_noises", d.synthetic_noises), "synthetic_noises")
    out["synthetic_noises"] = tuple(_number("synthetic_noises", v, minimum=0.0) for v in noises)
    out["seed"] = _number("seed", kw.get("seed", d.seed), integer=True, minimum=0)
    p = Params(**out)
    p.tree                                  # noqa: B018 -- validates the tree
    return p


def validate_outdir(value) -> Path:
    """The output directory (``None``: ``results/energy`` under the project
    root), made absolute; it must not be an existing file."""
    return check.directory(value, "outdir", paths.RESULTS / STUDY)


# ---------------------------------------------------------------- analysis --

@dataclass
class Analysis:
    """Every profile of one cut, preprocessed and classified.  ``columns``
    holds one array per quantity, one entry per profile: ``minutes``,
    ``dropped`` ('' if kept), ``mean_power`` (data unit), ``mean_scaled``,
    ``idle``, ``outliers``, the three statistics ``s_stat``, ``v_stat``,
    ``p_stat`` (the tree's criterion; ``p_share``, ``p_acf``, ``p_density``:
    all three), the dominant ``cycles`` and ``period`` (minutes) and
    ``label`` ('' if dropped)."""

    method: str
    profiles: list[energy.Profile]
    prepared: list[energy.Prepared]
    columns: dict[str, np.ndarray]
    tree: energy.Tree
    idle_level: float

    def __len__(self) -> int:
        return len(self.profiles)

    @property
    def kept(self) -> np.ndarray:
        return self.columns["dropped"] == ""

    def relabel(self, tree: energy.Tree | None = None, idle_level: float | None = None) -> np.ndarray:
        """Labels under other thresholds (same statistics); 'idle' marks
        kept profiles at idle power."""
        tree = tree or self.tree
        idle_level = self.idle_level if idle_level is None else idle_level
        c = self.columns
        stationary = c["s_stat"] <= tree.stationarity
        constant = c["v_stat"] < tree.variability
        periodic = c[f"p_{tree.criterion}"] > tree.periodicity
        lab = np.where(~stationary, "non-stationary",
                       np.where(constant, "constant", np.where(periodic, "periodic", "variable")))
        lab = np.where(self.kept, lab, "")
        return lab.astype(object)

    def idle(self, idle_level: float | None = None) -> np.ndarray:
        level = self.idle_level if idle_level is None else idle_level
        return self.kept & (self.columns["mean_scaled"] < level)


def analyse(profiles: Sequence[energy.Profile], prep: energy.Preprocessing, tree: energy.Tree,
            idle_level: float = 0.1, method: str = "",
            prepared: Sequence[energy.Prepared] | None = None) -> Analysis:
    """Preprocess (unless ``prepared`` is given: the same profiles already
    preprocessed with ``prep``) and classify every profile.  A profile left
    with fewer than two points per window of the stationarity test is
    dropped (``too-few-points``)."""
    n = len(profiles)
    cols: dict[str, np.ndarray] = {
        "minutes": np.array([p.minutes for p in profiles], dtype=np.int64),
        "dropped": np.full(n, "", dtype=object),
        "mean_power": np.full(n, np.nan), "mean_scaled": np.full(n, np.nan),
        "outliers": np.zeros(n, dtype=np.int64), "kept_points": np.zeros(n, dtype=np.int64),
        "s_stat": np.full(n, np.nan), "v_stat": np.full(n, np.nan), "p_stat": np.full(n, np.nan),
        **{f"p_{k}": np.full(n, np.nan) for k in energy.CRITERIA},
        "cycles": np.full(n, np.nan), "period": np.full(n, np.nan), "lag": np.full(n, -1, dtype=np.int64),
        "label": np.full(n, "", dtype=object),
    }
    given, prepared = prepared, []
    for i, p in enumerate(profiles):
        cols["mean_power"][i] = p.mean()
        pr = energy.preprocess(p.values, p.lo, p.hi, prep) if given is None else given[i]
        prepared.append(pr)
        dropped = pr.dropped
        if dropped is None and pr.kept < 2 * tree.n_windows:
            dropped = "too-few-points"
        if dropped is not None:
            cols["dropped"][i] = dropped
            continue
        c = energy.classify(pr.values, tree, pr.filled)
        cols["mean_scaled"][i] = float(np.nanmean(pr.values))
        cols["outliers"][i] = pr.outliers
        cols["kept_points"][i] = pr.kept
        cols["s_stat"][i] = c.stationarity.statistic
        cols["v_stat"][i] = c.variability.statistic
        cols["p_stat"][i] = c.periodicity.statistic
        for k in energy.CRITERIA:
            cols[f"p_{k}"][i] = c.periodicity.details[k]
        cols["cycles"][i] = c.periodicity.details["cycles"]
        cols["lag"][i] = c.periodicity.details.get("lag", -1)
        cols["period"][i] = c.periodicity.details["period"]
        cols["label"][i] = c.label
    return Analysis(method, list(profiles), prepared, cols, tree, idle_level)


def shares(a: Analysis, include_idle: bool = False, labels: np.ndarray | None = None,
           idle_level: float | None = None) -> dict[str, Any]:
    """Class shares (% of the profiles counted, and % of their minutes);
    ``predictable`` = constant + periodic.  Idle profiles are counted apart
    (``idle``) unless ``include_idle``."""
    lab = a.columns["label"] if labels is None else labels
    idle = a.idle(idle_level)
    use = a.kept & (include_idle | ~idle)
    minutes = a.columns["minutes"].astype(float)
    n = int(use.sum())
    total = float(minutes[use].sum())
    out: dict[str, Any] = {"profiles": n, "minutes": int(total), "idle_profiles": int(idle.sum()),
                           "idle_minutes": int(minutes[idle].sum()), "count": {}, "duration": {}}
    for cls in energy.CLASSES:
        m = use & (lab == cls)
        out["count"][cls] = 100.0 * m.sum() / n if n else math.nan
        out["duration"][cls] = 100.0 * minutes[m].sum() / total if total else math.nan
    for key in ("count", "duration"):
        out[key]["predictable"] = sum(out[key][c] for c in energy.PREDICTABLE)
    return out


def _derive(ds, method, p: Params, ranges, cache):
    return energy.derive_profiles(ds, method, channel=p.channel, ranges=ranges,
                                  min_size=SEGMENT_MIN_SIZE, min_shift=p.min_shift, window=p.window,
                                  idle_level=p.idle_level, max_gap=p.max_gap, cache=cache)


def sensitivity(base: Analysis, ds, p: Params, ranges, cache, grid: dict[str, list]) -> list[dict]:
    """Class shares when one parameter at a time takes each value of
    ``grid`` (the others as in ``p``).  Thresholds, the criterion and the
    idle level only re-label (the idle level decides which profiles count as
    idle, not how episodes are cut); ``n_windows`` and ``min_cycles`` re-run
    the tests; ``trim``, ``zscore`` and ``min_length`` the preprocessing too;
    ``min_shift`` re-cuts the segments (only for ``method='segments'``)."""
    rows = []
    for name, values in grid.items():
        if name == "min_shift" and p.method != "segments":
            continue
        if name == "periodicity" and values is None:
            values = PERIODICITY_GRID[p.criterion]
        for v in values:
            if name in ("stationarity", "variability", "periodicity"):
                tree = replace(base.tree, **{name: v})
                s = shares(base, p.include_idle, base.relabel(tree))
            elif name == "criterion":
                tree = replace(base.tree, criterion=v, periodicity=energy.DEFAULT_PERIODICITY[v])
                s = shares(base, p.include_idle, base.relabel(tree))
            elif name == "idle_level":
                s = shares(base, p.include_idle, idle_level=v)
            elif name == "min_shift":
                q = replace(p, min_shift=v)
                a = analyse(_derive(ds, p.method, q, ranges, cache), q.preprocessing, q.tree,
                            q.idle_level, p.method)
                s = shares(a, p.include_idle)
            else:
                q = replace(p, **{name: v})
                reuse = base.prepared if name in ("n_windows", "min_cycles") else None
                a = analyse(base.profiles, q.preprocessing, q.tree, q.idle_level, p.method, reuse)
                s = shares(a, p.include_idle)
            rows.append({"parameter": name, "value": v, "default": bool(v == getattr(p, name)), **_flat(s)})
    return rows


def _flat(s: dict) -> dict:
    out = {"profiles": s["profiles"], "idle_profiles": s["idle_profiles"]}
    for key in ("count", "duration"):
        for cls, v in s[key].items():
            out[f"{cls} % ({key})"] = v
    return out


# ----------------------------------------------------------------- helpers --

def _resolve_hosts(ds, hosts) -> list[str]:
    known = ds.host.values.tolist()
    if hosts == "all":
        return known
    if hosts == "dahu":
        out = [h for h in known if h.startswith("dahu")]
        if not out:
            raise InputError(f"hosts: 'dahu' matches no host of the data (hosts: {known})")
        return out
    unknown = [h for h in hosts if h not in known]
    if unknown:
        raise InputError(f"hosts: {unknown} not in the data; known: {known}")
    return list(hosts)


def _utc(minute: int) -> str:
    return datetime.fromtimestamp(int(minute) * 60, timezone.utc).strftime("%Y-%m-%d %H:%M")


def _pct(x) -> float:
    return float(x) if x is not None else math.nan


# ------------------------------------------------------------------ tables --

def table_data(ds_all, ds, hosts, ev, t_load) -> Table:
    a = ds_all.attrs
    rows = [
        ["file", a["source_file"]],
        ["sha256 (verified)", a["sha256"] or "(not registered: not checked)"],
        ["rows", a["rows"]],
        ["hosts in the file", ds_all.sizes["host"]],
        ["hosts analysed", len(hosts)],
        ["first minute (UTC)", _utc(int(ds_all.minute.values[0]))],
        ["last minute (UTC)", _utc(int(ds_all.minute.values[-1]))],
        ["days analysed", ds.sizes["time"] / 1440.0],
        ["duplicate (host, minute) keys, averaged", a["duplicate_keys"]],
        ["minutes with 12 samples 5 s apart (mean sample time 27.5 s into the minute), %",
         100.0 * ev["offset_27_5_share"]],
        ["negative values (32-bit counter wraps), set missing", sum(a["masked_negative"].values())],
        [f"values above {a['max_power_W']:g} W, set missing", sum(a["masked_high"].values())],
        ["processor-minutes analysed with a PP0 value, %",
         100.0 * float(np.isfinite(ds["pp0"].values).mean())],
        ["load time (s)", t_load],
    ]
    return Table(["quantity", "value"], rows, title="The energy data",
                 digits={"value": 2})


def table_units(ev) -> Table:
    rows = []
    for col, c in ev["channels"].items():
        rows.append([col, c["p01_W"], c["median_W"], c["p99_W"], c["p999_W"], c["negative"],
                     c["negative_repaired_median_W"], 100.0 * _pct(c["negative_repaired_plausible_share"])])
    return Table(["channel", "1% (W)", "median (W)", "99% (W)", "99.9% (W)", "negative minutes",
                  "negative + one wrap: median (W)", "negative + one wrap in [0, 130] W (%)"],
                 rows, title="Units: microjoules per sample, one sample every 5 s",
                 digits={"negative + one wrap in [0, 130] W (%)": 1},
                 notes=["W = value / 10^6 / 5 s.  The processors (Xeon Gold 6130) have a TDP of "
                        "125 W: PP0's high quantiles sit just under it.",
                        "one wrap: 2^32 RAPL energy units (2^-14 J for PP0, 15.3 uJ for DRAM) spread "
                        "over the 12 samples of a minute: a negative minute is one sample whose "
                        "32-bit counter wrapped."])


def table_hosts(ds, ranges, p: Params) -> Table:
    da = energy.signal(ds, p.channel)
    rows = []
    for h in ds.host.values.tolist():
        row = [h]
        for pkg in (1, 2):
            x = np.asarray(da.sel(host=h, package=pkg).values, dtype=float)
            ok = np.isfinite(x)
            lo, hi = ranges[pkg]
            busy = float(np.mean((x[ok] - lo) / (hi - lo) >= p.idle_level)) * 100 if ok.any() else math.nan
            row += [100.0 * ok.mean(), float(np.nanmean(x)) if ok.any() else math.nan, busy]
        rows.append(row)
    unit = ds["pp0"].attrs.get("units", "W")
    return Table(["host", "coverage p1 %", f"mean p1 ({unit})", "busy p1 %",
                  "coverage p2 %", f"mean p2 ({unit})", "busy p2 %"], rows,
                 title=f"Hosts: coverage and mean {p.channel} per package (p1, p2)",
                 digits={c: 1 for c in ["coverage p1 %", "busy p1 %", "coverage p2 %", "busy p2 %"]},
                 notes=[f"busy: minutes above the idle level ({p.idle_level:g} of the package's power range)."])


def table_funnel(a: Analysis, include_idle: bool) -> Table:
    c = a.columns
    minutes = c["minutes"]
    total_n, total_m = len(a), int(minutes.sum())
    rows = [["profiles cut", total_n, total_m, 100.0, 100.0]]
    for reason in ("too-short", "missing-data", "too-few-points"):
        m = c["dropped"] == reason
        rows.append([f"dropped: {reason}", int(m.sum()), int(minutes[m].sum()),
                     100.0 * m.sum() / max(total_n, 1), 100.0 * minutes[m].sum() / max(total_m, 1)])
    idle = a.idle()
    rows.append([("counted apart" if not include_idle else "kept") + ": idle level", int(idle.sum()),
                 int(minutes[idle].sum()), 100.0 * idle.sum() / max(total_n, 1),
                 100.0 * minutes[idle].sum() / max(total_m, 1)])
    use = a.kept & (include_idle | ~idle)
    rows.append(["classified", int(use.sum()), int(minutes[use].sum()), 100.0 * use.sum() / max(total_n, 1),
                 100.0 * minutes[use].sum() / max(total_m, 1)])
    return Table(["step", "profiles", "minutes", "% of profiles", "% of minutes"], rows,
                 title=f"From processor signals to classified profiles ({a.method}; cf. thesis Fig. 7.3)",
                 digits={"% of profiles": 1, "% of minutes": 1},
                 notes=["too-short: under min_length minutes; missing-data: a gap longer than max_gap "
                        "after trimming; too-few-points: too little left after trimming and outliers.",
                        "idle level: mean under idle_level of the power range, most likely a processor "
                        "without a job."])


def table_classes(s: dict, method: str) -> Table:
    rows = []
    for cls in (*energy.CLASSES, "predictable"):
        thesis = {"constant": PUBLISHED["constant_pct"], "periodic": PUBLISHED["periodic_pct"],
                  "predictable": PUBLISHED["predictable_pct"]}.get(cls)
        rows.append([cls, thesis, s["count"][cls], s["duration"][cls]])
    return Table(["class", "thesis % (approx.)", "% of profiles", "% of duration"], rows,
                 title=f"Class shares ({method}; thesis Fig. 7.12)", default_digits=1,
                 notes=["predictable = constant + periodic.", PUBLISHED_NOTES[0], PUBLISHED_NOTES[1]])


def table_methods(results: dict[str, dict[str, dict]]) -> Table:
    rows = [["thesis (jobs)", "", None, None, PUBLISHED["constant_pct"], PUBLISHED["periodic_pct"],
             None, None, PUBLISHED["predictable_pct"], PUBLISHED["predictable_pct"]]]
    for method, by_idle in results.items():
        for idle_key, s in by_idle.items():
            rows.append([method, idle_key, s["profiles"], s["minutes"] / 60.0, s["count"]["constant"],
                         s["count"]["periodic"], s["count"]["variable"], s["count"]["non-stationary"],
                         s["count"]["predictable"], s["duration"]["predictable"]])
    return Table(["profiles", "idle", "n", "hours", "constant %", "periodic %", "variable %",
                  "non-stationary %", "predictable % (count)", "predictable % (duration)"], rows,
                 title="Class shares by how profiles are cut", default_digits=1,
                 notes=["class shares by count; predictable = constant + periodic.",
                        "segments: between level changes of at least min_shift of the power range; "
                        "episodes: busy spells between idle periods; windows: fixed blocks.",
                        "idle: 'without' leaves out the profiles whose mean is at idle power, 'with' "
                        "counts them.", PUBLISHED_NOTES[0]])


def table_sensitivity(rows: list[dict]) -> Table:
    cols = ["parameter", "value", "default", "profiles"] + [
        f"{c} % ({k})" for k in ("count", "duration") for c in (*energy.CLASSES, "predictable")]
    return Table(cols, [[r[c] for c in cols] for r in rows],
                 title="Sensitivity of the class shares to each parameter (one at a time)",
                 default_digits=1,
                 notes=["value: the parameter's value; every other parameter at its set value.",
                        "stationarity, variability, periodicity: thresholds of the three tests; "
                        "n_windows: windows of the stationarity test; min_cycles: repetitions the "
                        "dominant period needs; zscore: outlier threshold (0 = none); trim: minutes cut "
                        "at each end; min_length: minimum minutes; idle_level: below it a profile is "
                        "idle; min_shift: level change that separates segments."])


def table_synthetic(records: list[dict], tree: energy.Tree) -> Table:
    cols = ["kind", "noise", "signals", "expected", "stationarity", "variability", "periodicity",
            "period", "class"]
    return Table(cols, [[r[c] if r[c] is None or not isinstance(r[c], float) or c == "noise"
                         else 100.0 * r[c] for c in cols] for r in records],
                 title="The tree on generated signals: % of signals each test gets right",
                 default_digits=0, digits={"noise": 2},
                 notes=["noise: standard deviation of the white noise added, in units of the power "
                        "range; signals of 240 minutes.",
                        "variability and periodicity are scored on the stationary kinds only; period: "
                        "the dominant period found within 10% of the true one.",
                        f"tree: {tree.n_windows} windows, thresholds {tree.stationarity:g} / "
                        f"{tree.variability:g} / {tree.periodicity:g} ({tree.criterion}), "
                        f"min_cycles {tree.min_cycles:g}."])


# ----------------------------------------------------------------- figures --

def _minutes_axis(ax, n):
    ax.set_xlim(0, max(n, 1) / 60.0)
    ax.set_xlabel("hours")


def figure_overview(ds, p: Params, profiles_unit: str):
    """Heat map of every processor's signal (hourly means), the data at a glance."""
    da = energy.signal(ds, p.channel)
    v = np.asarray(da.values, dtype=float)              # host, package, time
    n_h = v.shape[2] // 60
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # hours without data: NaN
        hourly = np.nanmean(v[:, :, : n_h * 60].reshape(v.shape[0], v.shape[1], n_h, 60), axis=3) \
            if n_h else np.zeros(v.shape[:2] + (0,))
    img = hourly.reshape(-1, n_h)
    labels = [f"{h}/{k}" for h in ds.host.values.tolist() for k in ds.package.values.tolist()]
    with plots.style():
        fig = plots.figure(7.0, max(2.5, 0.06 * len(labels) + 1.2))
        ax = fig.subplots()
        im = ax.imshow(img, aspect="auto", interpolation="nearest", cmap="viridis",
                       extent=(0, n_h / 24.0, len(labels), 0))
        ax.set_xlabel(f"days since {_utc(int(ds.minute.values[0]))} UTC")
        hosts = ds.host.values.tolist()
        step = max(1, len(hosts) // 45)
        ax.set_yticks(np.arange(0, len(hosts), step) * 2 + 1.0, hosts[::step], fontsize=5)
        for y in range(2, len(labels), 2):
            ax.axhline(y, color="white", lw=0.3)
        ax.grid(False)
        fig.colorbar(im, ax=ax, label=f"{p.channel} ({profiles_unit}), hourly mean", shrink=0.8)
        ax.set_title("Every processor (two rows per host: package 1, package 2); white = no data")
    return fig


def _pick_history(a: Analysis, days: float):
    """The processor and the stretch of ``days`` with the most distinct classes."""
    by_proc: dict[tuple[str, int], list[int]] = {}
    for i, pr in enumerate(a.profiles):
        by_proc.setdefault((pr.host, pr.package), []).append(i)
    best, best_key = None, (-1, -1)
    span = int(days * 1440)
    for proc, idx in sorted(by_proc.items()):
        for i0 in idx:
            t0 = a.profiles[i0].start
            sel = [i for i in idx if a.profiles[i].start >= t0 and a.profiles[i].end <= t0 + span]
            labels = {a.columns["label"][i] for i in sel if a.columns["label"][i]}
            key = (len(labels), len(sel))
            if key > best_key:
                best_key, best = key, (proc, t0, sel)
    return best


def figure_history(a: Analysis, ds, p: Params, unit: str, days: float = 3.0):
    """Analogue of thesis Fig. 7.2: one processor's signal over a few days,
    cut into profiles, each shaded by its class."""
    pick = _pick_history(a, days)
    with plots.style():
        fig = plots.figure(7.0, 2.6)
        ax = fig.subplots()
        if pick is None:
            ax.text(0.5, 0.5, "no profile", ha="center", transform=ax.transAxes)
            return fig
        (host, pkg), t0, sel = pick
        da = energy.signal(ds, p.channel).sel(host=host, package=pkg)
        m0 = int(ds.minute.values[0])
        span = int(days * 1440)
        x = np.asarray(da.values, dtype=float)[t0 - m0: t0 - m0 + span]
        t = np.arange(x.size) / 60.0
        ax.plot(t, x, color="k", lw=0.6)
        idle = a.idle()
        for i in sel:
            pr = a.profiles[i]
            lab = a.columns["label"][i] or "dropped"
            if idle[i]:
                lab = "idle"
            colour = CLASS_COLORS.get(lab, "0.9")
            ax.axvspan((pr.start - t0) / 60.0, (pr.end - t0) / 60.0, color=colour, alpha=0.25, lw=0)
        from matplotlib.patches import Patch
        handles = [Patch(color=CLASS_COLORS[c], alpha=0.4, label=c) for c in (*energy.CLASSES, "idle")]
        handles.append(Patch(color="0.9", label="too short / dropped"))
        ax.legend(handles=handles, loc="upper center", ncols=6, fontsize=7, bbox_to_anchor=(0.5, 1.22))
        ax.set_ylabel(f"{p.channel} ({unit})")
        ax.set_xlabel(f"hours from {_utc(t0)} UTC; {host}, package {pkg}")
        ax.set_xlim(0, span / 60.0)
    return fig


def figure_aggregation(a: Analysis, ds, p: Params, unit: str, period_min: int = 5, hours: int = 6):
    """Analogue of Fig. 7.4: ``hours`` of one busy, stationary profile per
    minute (as bundled: already the mean of 12 samples) and averaged over
    ``period_min`` minutes (:func:`energy.aggregate`).  The profile shown is
    the one with the largest minute-to-minute noise among the stationary,
    non-idle profiles at least ``hours`` long."""
    c = a.columns
    idle = a.idle()
    best, key = None, -1.0
    for i, pr in enumerate(a.profiles):
        if c["dropped"][i] or idle[i] or c["minutes"][i] < hours * 60 or c["s_stat"][i] > p.stationarity:
            continue
        x = pr.values[: hours * 60]
        if np.isfinite(x).mean() < 0.95:
            continue
        noise = float(np.nanstd(np.diff(x)))
        if noise > key:
            key, best = noise, i
    with plots.style():
        fig = plots.figure(7.0, 3.4)
        axes = fig.subplots(2, 1, sharex=True, sharey=True)
        if best is None:
            axes[0].text(0.5, 0.5, "no profile long enough", ha="center", transform=axes[0].transAxes)
            return fig
        pr = a.profiles[best]
        x = pr.values[: hours * 60]
        t = np.arange(x.size) * 60.0
        bt, bm = energy.aggregate(t, x, period=period_min * 60.0)
        axes[0].plot(t / 3600.0, x, color="k", lw=0.6)
        axes[1].step(np.r_[bt, bt[-1] + period_min * 60.0] / 3600.0, np.r_[bm, bm[-1]], where="post",
                     color="C0", lw=0.9)
        axes[0].set_ylabel(f"per minute\n({unit})")
        axes[1].set_ylabel(f"{period_min}-min mean\n({unit})")
        axes[1].set_xlabel(f"hours from {_utc(pr.start)} UTC; {pr.host}, package {pr.package}")
    return fig


def figure_outliers(a: Analysis, p: Params):
    """Analogue of Fig. 7.5: a profile with its trimmed ends and its z-score outliers."""
    c = a.columns
    idle = a.idle()
    cand = [i for i in range(len(a)) if c["dropped"][i] == "" and 120 <= c["minutes"][i] <= 1440
            and not idle[i]]
    if not cand:
        cand = [i for i in range(len(a)) if c["dropped"][i] == ""]
    with plots.style():
        fig = plots.figure(7.0, 2.6)
        ax = fig.subplots()
        if not cand:
            return fig
        i = max(cand, key=lambda j: (c["outliers"][j], -j))
        pr = a.profiles[i]
        x = energy.normalise(pr.values, pr.lo, pr.hi)
        t = np.arange(x.size) / 60.0
        tr = p.trim
        out = np.zeros(x.size, dtype=bool)
        inner = energy.trim(x, tr)
        out[tr:tr + inner.size] = energy.zscore_outliers(inner, p.zscore) if p.zscore > 0 else False
        keep = np.ones(x.size, dtype=bool)
        keep[:tr] = False
        keep[x.size - tr:] = False
        keep &= ~out
        ax.plot(t, x, color="0.6", lw=0.5, zorder=1)
        ax.scatter(t[keep], x[keep], s=3, color="k", zorder=2, label="kept")
        ends = ~keep & ~out
        ax.scatter(t[ends], x[ends], s=10, color="C0", zorder=3, label=f"trimmed ({tr} min at each end)")
        ax.scatter(t[out], x[out], s=14, color="C3", marker="x", zorder=3,
                   label=f"outliers (|z| > {p.zscore:g})")
        ax.legend(loc="best", fontsize=7)
        ax.set_ylabel("scaled power")
        _minutes_axis(ax, x.size)
        ax.set_title(f"{pr.host}, package {pr.package}, from {_utc(pr.start)} UTC")
    return fig


def _examples(a: Analysis, per_class: int):
    """Per class, up to ``per_class`` non-idle profiles spread over the
    statistic that put them there (low, middle, high): deterministic."""
    c = a.columns
    idle = a.idle()
    out = {}
    for cls in energy.CLASSES:
        idx = [i for i in range(len(a)) if c["label"][i] == cls and not idle[i] and c["minutes"][i] >= 60]
        key = {"non-stationary": "s_stat", "constant": "v_stat", "periodic": "p_stat",
               "variable": "v_stat"}[cls]
        idx.sort(key=lambda i: (c[key][i], i))
        if len(idx) > per_class:
            pos = np.linspace(0, len(idx) - 1, per_class + 2)[1:-1].round().astype(int)
            idx = [idx[j] for j in pos]
        out[cls] = idx
    return out


def figure_examples(a: Analysis, per_class: int = 3):
    """Analogue of Figs. 7.6, 7.8 and 7.9: profiles of each class (scaled,
    after preprocessing), low, middle and high in the statistic that decided
    their class; S, V, P: the statistics of the three tests."""
    ex = _examples(a, per_class)
    c = a.columns
    with plots.style():
        fig = plots.figure(7.0, 1.45 * len(energy.CLASSES) + 0.4)
        axes = fig.subplots(len(energy.CLASSES), per_class, squeeze=False)
        for r, cls in enumerate(energy.CLASSES):
            for k in range(per_class):
                ax = axes[r, k]
                if k >= len(ex[cls]):
                    ax.axis("off")
                    continue
                i = ex[cls][k]
                x = a.prepared[i].values
                ax.plot(np.arange(x.size) / 60.0, x, color=CLASS_COLORS[cls], lw=0.7)
                ax.set_ylim(-0.05, 1.05)
                ax.set_title(f"S {c['s_stat'][i]:.2f}  V {c['v_stat'][i]:.2f}  P {c['p_stat'][i]:.2f}",
                             fontsize=7)
                if k == 0:
                    ax.set_ylabel(f"{cls}\nscaled power")
                if r == len(energy.CLASSES) - 1:
                    ax.set_xlabel("hours")
    return fig


def figure_periodograms(a: Analysis, tree: energy.Tree):
    """Analogue of Figs. 7.10 and 7.11: a periodic and a stationary
    non-periodic ('variable') profile: the signal, its periodogram (share of
    the variance per frequency; dotted: ``min_cycles``; dashed: the
    threshold of criterion ``share``) and its autocorrelation (grey: the
    lags of the dominant frequency; solid: the period T chosen, dotted: T/2;
    the ``acf`` statistic is (r(T) - r(T/2)) / 2)."""
    ex = _examples(a, 1)
    picks = [(cls, ex[cls][0]) for cls in ("periodic", "variable") if ex[cls]]
    with plots.style():
        fig = plots.figure(7.0, 1.9 * max(len(picks), 1) + 0.3)
        axes = fig.subplots(max(len(picks), 1), 3, squeeze=False, width_ratios=[1.3, 1, 1])
        for r, (cls, i) in enumerate(picks):
            pr = a.prepared[i]
            x = pr.filled
            n = x.size
            k, pw = energy.periodogram(x)
            share = pw / pw.sum() if pw.sum() > 0 else pw
            acf = energy.autocorrelation(x)
            colour = CLASS_COLORS[cls]
            axes[r, 0].plot(np.arange(n) / 60.0, x, color=colour, lw=0.7)
            axes[r, 0].set_ylabel(f"{cls}\nscaled power")
            axes[r, 0].set_xlabel("hours")
            axes[r, 1].vlines(k, 0, share, color=colour, lw=0.8)
            axes[r, 1].axvline(tree.min_cycles, color="0.5", lw=0.6, ls=":")
            if tree.criterion == "share":
                axes[r, 1].axhline(tree.periodicity, color="k", lw=0.8, ls="--")
            axes[r, 1].set_xscale("log")
            axes[r, 1].set_ylabel("share of variance")
            axes[r, 1].set_xlabel("cycles per profile")
            axes[r, 1].set_title(f"share {a.columns['p_share'][i]:.2f}, density "
                                 f"{a.columns['p_density'][i]:.2f}", fontsize=7)
            lags = np.arange(min(n, (2 * n) // 3 + 1))
            axes[r, 2].plot(lags, acf[:lags.size], color=colour, lw=0.8)
            cyc = a.columns["cycles"][i]
            if np.isfinite(cyc):
                axes[r, 2].axvspan(n / (cyc + 0.5), n / max(cyc - 0.5, 1e-9), color="0.85", lw=0)
                lag = int(a.columns["lag"][i])
                axes[r, 2].axvline(lag, color="k", lw=0.7)
                axes[r, 2].axvline(round(lag / 2), color="k", lw=0.7, ls=":")
            axes[r, 2].set_ylim(-1.05, 1.05)
            axes[r, 2].set_xlim(0, max(lags.size - 1, 1))
            axes[r, 2].set_ylabel("autocorrelation")
            axes[r, 2].set_xlabel("lag (minutes)")
            axes[r, 2].set_title(f"acf statistic {a.columns['p_acf'][i]:.2f}, period "
                                 f"{a.columns['period'][i]:.0f} min", fontsize=7)
    return fig


def figure_distribution(s: dict, method: str):
    """Analogue of Fig. 7.12: class shares by number and by duration, the
    thesis' approximate shares beside."""
    classes = list(energy.CLASSES)
    with plots.style():
        fig = plots.figure(7.0, 2.8)
        ax = fig.subplots()
        x = np.arange(len(classes))
        w = 0.27
        thesis = [PUBLISHED["constant_pct"] if c == "constant" else PUBLISHED["periodic_pct"]
                  if c == "periodic" else math.nan for c in classes]
        for j, (lab, vals, hatch) in enumerate((
                ("profiles (count)", [s["count"][c] for c in classes], None),
                ("duration", [s["duration"][c] for c in classes], "//"),
                ("thesis, jobs (approx.)", thesis, ".."))):
            bars = ax.bar(x + (j - 1) * w, np.nan_to_num(vals, nan=0.0), w,
                          color=[CLASS_COLORS[c] for c in classes],
                          alpha=1.0 if j == 0 else 0.55, hatch=hatch, edgecolor="k", lw=0.3, label=lab)
            for b, v in zip(bars, vals):
                if np.isfinite(v):
                    ax.text(b.get_x() + b.get_width() / 2, v + 1, f"{v:.0f}", ha="center", fontsize=6)
        ax.set_xticks(x, classes)
        ax.set_ylabel("%")
        ax.set_ylim(0, 105)
        ax.set_title(f"{method}: predictable (constant + periodic) {s['count']['predictable']:.0f}% of "
                     f"the profiles, {s['duration']['predictable']:.0f}% of the duration; thesis about "
                     f"{PUBLISHED['predictable_pct']:.0f}%", fontsize=8)
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(facecolor="0.4", edgecolor="k", label="profiles (count)"),
                           Patch(facecolor="0.8", hatch="//", edgecolor="k", label="duration"),
                           Patch(facecolor="0.8", hatch="..", edgecolor="k", label="thesis, jobs (approx.)")],
                  loc="upper right")
    return fig


def figure_methods(results: dict[str, dict[str, dict]]):
    """Stacked class shares (count and duration) for each way of cutting
    profiles, with and without idle profiles, and the thesis."""
    labels, stacks = [], []
    labels.append("thesis (jobs)")
    stacks.append([PUBLISHED["constant_pct"], PUBLISHED["periodic_pct"], math.nan, math.nan])
    for method, by_idle in results.items():
        for idle_key, s in by_idle.items():
            for key in ("count", "duration"):
                labels.append(f"{method}, {idle_key} idle, {key}")
                stacks.append([s[key][c] for c in energy.CLASSES])
    with plots.style():
        fig = plots.figure(7.0, 0.28 * len(labels) + 1.0)
        ax = fig.subplots()
        y = np.arange(len(labels))[::-1]
        left = np.zeros(len(labels))
        for j, cls in enumerate(energy.CLASSES):
            vals = np.array([st[j] for st in stacks], dtype=float)
            ax.barh(y, np.nan_to_num(vals), left=left, color=CLASS_COLORS[cls], label=cls, height=0.7)
            left += np.nan_to_num(vals)
        ax.barh(y[0], 100 - left[0], left=left[0], color="white", edgecolor="0.5", hatch="..", height=0.7,
                label="thesis: not given")
        ax.axvline(PUBLISHED["predictable_pct"], color="k", ls="--", lw=0.8)
        ax.set_yticks(y, labels, fontsize=7)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% (dashed: the thesis' 75% predictable)")
        fig.legend(loc="outside lower center", ncols=5, fontsize=7)
    return fig


def figure_sensitivity(rows: list[dict], p: Params):
    """Class shares (by count) and the predictable share (count, duration)
    as each parameter varies; the thesis' 75% dotted."""
    params = list(dict.fromkeys(r["parameter"] for r in rows))
    n = len(params)
    ncols = 3
    nrows = max(1, math.ceil(n / ncols))
    with plots.style():
        fig = plots.figure(7.0, 1.9 * nrows + 0.5)
        axes = fig.subplots(nrows, ncols, squeeze=False)
        for ax in axes.flat[n:]:
            ax.axis("off")
        for ax, name in zip(axes.flat, params):
            rs = [r for r in rows if r["parameter"] == name]
            categorical = any(isinstance(r["value"], str) for r in rs)
            x = np.arange(len(rs), dtype=float) if categorical else np.array([r["value"] for r in rs], dtype=float)
            for cls in energy.CLASSES:
                ax.plot(x, [r[f"{cls} % (count)"] for r in rs], color=CLASS_COLORS[cls], lw=0.9, marker=".")
            ax.plot(x, [r["predictable % (count)"] for r in rs], color="k", lw=1.6)
            ax.plot(x, [r["predictable % (duration)"] for r in rs], color="k", lw=1.0, ls="--")
            ax.axhline(PUBLISHED["predictable_pct"], color="k", ls=":", lw=0.7)
            if categorical:
                ax.set_xticks(x, [str(r["value"]) for r in rs])
                ax.set_xlim(-0.5, len(rs) - 0.5)
                default = [i for i, r in enumerate(rs) if r["default"]]
                if default:
                    ax.axvline(default[0], color="0.6", lw=0.6)
            else:
                ax.axvline(float(getattr(p, name)), color="0.6", lw=0.6)
            ax.set_ylim(0, 100)
            title = f"{name} ({p.criterion})" if name == "periodicity" else name
            ax.set_title(title, fontsize=8)
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], color=CLASS_COLORS[c], marker=".", label=c) for c in energy.CLASSES]
        handles += [Line2D([], [], color="k", lw=1.6, label="predictable (count)"),
                    Line2D([], [], color="k", ls="--", label="predictable (duration)"),
                    Line2D([], [], color="k", ls=":", lw=0.7, label="thesis 75%")]
        fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=7)
    return fig


def figure_synthetic(records: list[dict]):
    """% of generated signals classified right, per kind, against the noise."""
    kinds = list(dict.fromkeys(r["kind"] for r in records))
    with plots.style():
        fig = plots.figure(7.0, 2.4)
        axes = fig.subplots(1, len(kinds), squeeze=False, sharey=True)[0]
        for ax, kind in zip(axes, kinds):
            rs = [r for r in records if r["kind"] == kind]
            x = [r["noise"] for r in rs]
            for key, style in (("stationarity", "-"), ("variability", "--"), ("periodicity", "-."),
                               ("class", "-")):
                y = [100 * r[key] if r[key] is not None else np.nan for r in rs]
                if np.all(np.isnan(y)):
                    continue
                ax.plot(x, y, ls=style, lw=1.8 if key == "class" else 0.9,
                        color="k" if key == "class" else None, marker=".", label=key)
            ax.set_title(f"{kind}\n(-> {energy.KINDS[kind]})", fontsize=7)
            ax.set_xlabel("noise (sd)")
            ax.set_ylim(-3, 103)
        axes[0].set_ylabel("% right")
        axes[0].legend(fontsize=6, loc="lower left")
    return fig


# ---------------------------------------------------------------- profiles --

def profiles_table(a: Analysis, unit: str) -> Table:
    c = a.columns
    idle = a.idle()
    rows = []
    for i, pr in enumerate(a.profiles):
        rows.append([pr.key, pr.host, pr.package, _utc(pr.start), int(c["minutes"][i]),
                     c["dropped"][i], bool(idle[i]), c["mean_power"][i], c["mean_scaled"][i],
                     int(c["outliers"][i]), c["s_stat"][i], c["v_stat"][i], c["p_stat"][i],
                     c["period"][i], c["label"][i]])
    return Table(["profile", "host", "package", "start (UTC)", "minutes", "dropped", "idle",
                  f"mean ({unit})", "mean scaled", "outliers", "stationarity statistic",
                  "variability statistic", "periodicity statistic", "period (min)", "class"], rows)


def profiles_dataset(a: Analysis, p: Params, unit: str, attrs: dict):
    import xarray as xr

    c = a.columns
    idle = a.idle()
    starts = np.array([pr.start * 60 for pr in a.profiles], dtype="int64").astype("datetime64[s]") \
        .astype("datetime64[ns]")
    ds = xr.Dataset(
        {
            "host": ("profile", np.array([pr.host for pr in a.profiles], dtype=object)),
            "package": ("profile", np.array([pr.package for pr in a.profiles], dtype=np.int64)),
            "start": ("profile", starts),
            "minutes": ("profile", c["minutes"], {"units": "min", "long_name": "length of the profile"}),
            "dropped": ("profile", c["dropped"].astype(object),
                        {"long_name": "why preprocessing dropped the profile (empty: kept)"}),
            "idle": ("profile", idle.astype(np.int8), {"long_name": "kept and mean below the idle level"}),
            "mean_power": ("profile", c["mean_power"], {"units": unit, "long_name": f"mean {p.channel}"}),
            "mean_scaled": ("profile", c["mean_scaled"],
                            {"units": "1", "long_name": "mean after preprocessing, in units of the power range"}),
            "stationarity_statistic": ("profile", c["s_stat"],
                                       {"units": "1", "long_name": "standard deviation of the window means"}),
            "variability_statistic": ("profile", c["v_stat"], {"units": "1", "long_name": "standard deviation"}),
            "periodicity_statistic": ("profile", c["p_stat"],
                                      {"units": "1", "long_name": f"periodogram statistic ({p.criterion})"}),
            "period": ("profile", c["period"], {"units": "min", "long_name": "dominant period"}),
            "label": ("profile", c["label"].astype(object), {"long_name": "class from the tree (empty: dropped)"}),
        },
        coords={"profile": np.array([pr.key for pr in a.profiles], dtype=object)},
        attrs=attrs,
    )
    return ds


# --------------------------------------------------------------------- run --

def run(params: Params | None = None, outdir=None, **kw) -> dict[str, Any]:
    """Run the study with ``params`` (a :class:`Params` from :func:`validate`,
    or the parameters as keywords ``kw``, validated here) and write every
    output under ``outdir`` (default ``results/energy``), each file
    atomically:

    * ``tables/{data,units,hosts,funnel,classes,methods,sensitivity,synthetic}.{csv,md}``;
    * ``figures/{overview,history,aggregation,outliers,examples,periodograms,
      distribution,methods,sensitivity,synthetic}.{png,pdf}``;
    * ``data/profiles.csv`` and ``profiles.nc`` (every profile, its
      statistics and class); ``numbers.json`` (key numbers, the thesis'
      values, parameters, provenance).

    Returns a dict: ``params``, ``analysis`` (:class:`Analysis` of the chosen
    method), ``shares``, ``methods``, ``sensitivity`` (rows), ``synthetic``
    (records), ``tables``, ``figures``, ``files``, ``numbers``, ``outdir``,
    ``seconds`` and ``timings``.
    """
    t0 = time.perf_counter()
    if params is not None and kw:
        raise InputError("run: give either params (a Params) or keyword parameters, not both")
    if params is not None and not isinstance(params, Params):
        raise InputError(f"run: params must come from validate(), got {type(params).__name__}")
    p = params if params is not None else validate(**kw)
    out = validate_outdir(outdir)
    timings: dict[str, float] = {}

    t = time.perf_counter()
    raw = energy.read_csv(p.data)
    ds_all = energy.load(raw=raw)
    timings["load_s"] = time.perf_counter() - t
    ev = energy.unit_evidence(raw)
    del raw
    hosts = _resolve_hosts(ds_all, p.hosts)
    unit = ds_all["pp0"].attrs["units"]
    ranges = energy.power_range(energy.signal(energy.select(ds_all, hosts), p.channel), p.range_quantiles)
    ds = energy.select(ds_all, hosts, p.days)

    t = time.perf_counter()
    need_cp = p.method == "segments" or p.compare_methods
    cache = energy.changepoints(ds, channel=p.channel, ranges=ranges, min_size=SEGMENT_MIN_SIZE,
                                max_gap=p.max_gap) if need_cp else None
    timings["changepoints_s"] = time.perf_counter() - t

    t = time.perf_counter()
    base = analyse(_derive(ds, p.method, p, ranges, cache), p.preprocessing, p.tree, p.idle_level, p.method)
    s = shares(base, p.include_idle)
    methods = {}
    for m in (energy.METHODS if p.compare_methods else (p.method,)):
        a = base if m == p.method else analyse(_derive(ds, m, p, ranges, cache), p.preprocessing,
                                               p.tree, p.idle_level, m)
        methods[m] = {"without": shares(a, False), "with": shares(a, True)}
    timings["classify_s"] = time.perf_counter() - t

    t = time.perf_counter()
    grid = SENSITIVITY if p.sensitivity is True else (p.sensitivity or {})
    sens = sensitivity(base, ds, p, ranges, cache, grid) if grid else []
    timings["sensitivity_s"] = time.perf_counter() - t

    t = time.perf_counter()
    synth = energy.tree_accuracy(p.synthetic_noises, p.synthetic_signals, tree=p.tree, seed=p.seed) \
        if p.synthetic_signals > 0 else []
    timings["synthetic_s"] = time.perf_counter() - t

    files: list[Path] = []
    tabs = {
        "data": table_data(ds_all, ds, hosts, ev, timings["load_s"]),
        "units": table_units(ev),
        "hosts": table_hosts(ds, ranges, p),
        "funnel": table_funnel(base, p.include_idle),
        "classes": table_classes(s, p.method),
        "methods": table_methods(methods),
    }
    if sens:
        tabs["sensitivity"] = table_sensitivity(sens)
    if synth:
        tabs["synthetic"] = table_synthetic(synth, p.tree)
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    files.append(write_text(out / "data" / "profiles.csv", profiles_table(base, unit).to_csv()))

    t = time.perf_counter()
    makers = {
        "overview": lambda: figure_overview(ds, p, unit),
        "history": lambda: figure_history(base, ds, p, unit),
        "aggregation": lambda: figure_aggregation(base, ds, p, unit),
        "outliers": lambda: figure_outliers(base, p),
        "examples": lambda: figure_examples(base),
        "periodograms": lambda: figure_periodograms(base, p.tree),
        "distribution": lambda: figure_distribution(s, p.method),
        "methods": lambda: figure_methods(methods),
    }
    if sens:
        makers["sensitivity"] = lambda: figure_sensitivity(sens, p)
    if synth:
        makers["synthetic"] = lambda: figure_synthetic(synth)
    figs = {}
    for name, make in makers.items():
        figs[name] = plots.savefig(make(), out / "figures" / name)
        files += figs[name]
    timings["figures_s"] = time.perf_counter() - t

    nums = numbers(p, ds_all, ds, hosts, ev, ranges, base, s, methods, sens, synth, unit)
    seconds = time.perf_counter() - t0
    timings["total_s"] = seconds
    provenance = {
        "schedlab": __version__,
        "git": paths.git_state(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "wall_s": seconds,
        "timings": timings,
        "input": {"file": ds_all.attrs["source_file"], "sha256": ds_all.attrs["sha256"],
                  "path": str(p.data) if p.data else "data/energy (registry data/energy.toml)"},
    }
    from ...store import write_dataset
    attrs = {"title": "energy profiles (schedlab study 9, thesis zrigui2021 ch. 7)",
             "parameters": p.as_dict(), "schedlab_version": __version__,
             "git_commit": provenance["git"]["commit"] or "", "input_sha256": ds_all.attrs["sha256"],
             "input_file": ds_all.attrs["source_file"], "created": provenance["created"],
             "note": "profiles are pieces of a processor's signal, not jobs"}
    files.append(write_dataset(profiles_dataset(base, p, unit, attrs), out / "profiles.nc"))
    doc = {"study": STUDY, **nums, "published_source": THESIS, "published_notes": list(PUBLISHED_NOTES),
           "provenance": provenance}
    files.append(write_json(out / "numbers.json", doc))
    return {"params": p, "analysis": base, "shares": s, "methods": methods, "sensitivity": sens,
            "synthetic": synth, "tables": tabs, "figures": figs, "files": files, "numbers": doc,
            "outdir": out, "seconds": time.perf_counter() - t0, "timings": timings, "dataset": ds}


def numbers(p, ds_all, ds, hosts, ev, ranges, base, s, methods, sens, synth, unit) -> dict[str, Any]:
    """The key numbers for the paper (flat-ish)."""
    c = base.columns
    a = ds_all.attrs
    pp0 = ev["channels"]["pp0/package1"], ev["channels"]["pp0/package2"]
    data = {
        "file": a["source_file"], "rows": a["rows"], "hosts_in_file": int(ds_all.sizes["host"]),
        "hosts": len(hosts), "dahu_hosts": sum(h.startswith("dahu") for h in hosts),
        "first": _utc(int(ds_all.minute.values[0])), "last": _utc(int(ds_all.minute.values[-1])),
        "days_in_file": ds_all.sizes["time"] / 1440.0, "days": ds.sizes["time"] / 1440.0,
        "duplicate_keys": a["duplicate_keys"],
        "negative_values": int(sum(a["masked_negative"].values())),
        "negative_pct": 100.0 * sum(a["masked_negative"].values()) / (4 * a["rows"]),
        "high_values": int(sum(a["masked_high"].values())),
        "unit": unit, "sample_period_s": a["sample_period_s"],
        "offset_27_5_pct": 100.0 * ev["offset_27_5_share"],
        "pp0_median_W": float(np.mean([q["median_W"] for q in pp0])),
        "pp0_p99_W": float(np.mean([q["p99_W"] for q in pp0])),
        "dram_median_W": float(np.mean([ev["channels"][k]["median_W"] for k in ("DRAM/package1", "DRAM/package2")])),
        "wrap_repaired_plausible_pct": 100.0 * float(np.mean([ev["channels"][k]["negative_repaired_plausible_share"]
                                                               for k in energy.CHANNELS])),
        "coverage_pct": 100.0 * float(np.isfinite(ds[p.channel if p.channel != "pp0+dram" else "pp0"].values).mean()),
        "range_lo": {str(k): v[0] for k, v in ranges.items()},
        "range_hi": {str(k): v[1] for k, v in ranges.items()},
    }
    minutes = c["minutes"]
    prof = {
        "method": p.method, "cut": len(base), "classified": s["profiles"], "idle": s["idle_profiles"],
        "idle_minutes": s["idle_minutes"],
        "too_short": int((c["dropped"] == "too-short").sum()),
        "missing_data": int((c["dropped"] == "missing-data").sum()),
        "too_few_points": int((c["dropped"] == "too-few-points").sum()),
        "median_minutes": float(np.median(minutes[base.kept])) if base.kept.any() else math.nan,
        "hours": float(minutes[base.kept].sum() / 60.0),
        "outliers_removed": int(c["outliers"].sum()),
    }
    meth = {m: {f"{key}_{cls}".replace("-", "_"): v for key in ("count", "duration")
                for cls, v in by["without" if not p.include_idle else "with"][key].items()}
            | {"profiles": by["without" if not p.include_idle else "with"]["profiles"],
               "predictable_count_with_idle": by["with"]["count"]["predictable"],
               "predictable_duration_with_idle": by["with"]["duration"]["predictable"]}
            for m, by in methods.items()}
    preds = [m["count_predictable"] for m in meth.values()] + [m["duration_predictable"] for m in meth.values()]
    sens_out: dict[str, Any] = {}
    for name in dict.fromkeys(r["parameter"] for r in sens):
        rs = [r for r in sens if r["parameter"] == name]
        vals = [r["predictable % (count)"] for r in rs]
        sens_out[name] = {"values": [r["value"] for r in rs], "predictable_count": vals,
                          "predictable_duration": [r["predictable % (duration)"] for r in rs],
                          "min": float(np.nanmin(vals)), "max": float(np.nanmax(vals))}
    if sens:
        allv = [r["predictable % (count)"] for r in sens]
        sens_out["overall_min"] = float(np.nanmin(allv))
        sens_out["overall_max"] = float(np.nanmax(allv))
        spans = {k: v["max"] - v["min"] for k, v in sens_out.items() if isinstance(v, dict)}
        sens_out["by_span"] = sorted(spans, key=lambda k: (-spans[k], k))
        sens_out["spans"] = spans
    synth_out: dict[str, Any] = {}
    if synth:
        low = [r for r in synth if r["noise"] <= 0.05]
        synth_out = {
            "signals": synth[0]["signals"], "noises": sorted({r["noise"] for r in synth}),
            "class_min_low_noise_pct": 100.0 * min(r["class"] for r in low) if low else math.nan,
            "class_by_kind": {k: {f"{r['noise']:g}": 100.0 * r["class"] for r in synth if r["kind"] == k}
                              for k in dict.fromkeys(r["kind"] for r in synth)},
        }
    return {
        "data": data,
        "profiles": prof,
        "shares": {"count": s["count"], "duration": s["duration"]},
        "predictable_count_pct": s["count"]["predictable"],
        "predictable_duration_pct": s["duration"]["predictable"],
        "methods": meth,
        "predictable_range": {"min": float(np.nanmin(preds)), "max": float(np.nanmax(preds))},
        "vs_thesis": {  # our share minus the thesis' (percentage points, by count)
            "predictable": s["count"]["predictable"] - PUBLISHED["predictable_pct"],
            "constant": s["count"]["constant"] - PUBLISHED["constant_pct"],
            "periodic": s["count"]["periodic"] - PUBLISHED["periodic_pct"],
        },
        "thesis": {k: v for k, v in PUBLISHED.items()},
        "sensitivity": sens_out,
        "synthetic": synth_out,
        "parameters": p.as_dict(),
    }
