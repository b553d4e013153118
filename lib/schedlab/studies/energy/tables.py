"""The tables of the energy study (the data, units, hosts, the funnel from
signals to classified profiles, class shares beside the thesis',
sensitivity, generated signals) and its data products (every profile as a
table and as a dataset).
"""
from __future__ import annotations

import math

import numpy as np

from . import signals as energy
from .. import Table
from .analysis import Analysis, utc_minute
from .params import Params
from .published import PUBLISHED, PUBLISHED_NOTES


def _pct(x) -> float:
    return float(x) if x is not None else math.nan


def table_data(ds_all, ds, hosts, ev, t_load) -> Table:
    a = ds_all.attrs
    rows = [
        ["file", a["source_file"]],
        ["sha256 (verified)", a["sha256"] or "(not registered: not checked)"],
        ["rows", a["rows"]],
        ["hosts in the file", ds_all.sizes["host"]],
        ["hosts analysed", len(hosts)],
        ["first minute (UTC)", utc_minute(int(ds_all.minute.values[0]))],
        ["last minute (UTC)", utc_minute(int(ds_all.minute.values[-1]))],
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


def profiles_table(a: Analysis, unit: str) -> Table:
    c = a.columns
    idle = a.idle()
    rows = []
    for i, pr in enumerate(a.profiles):
        rows.append([pr.key, pr.host, pr.package, utc_minute(pr.start), int(c["minutes"][i]),
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
