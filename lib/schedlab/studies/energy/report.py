"""The key numbers of the energy study (for the paper)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import signals as energy
from .analysis import utc_minute
from .published import PUBLISHED


def numbers(p, ds_all, ds, hosts, ev, ranges, base, s, methods, sens, synth, unit) -> dict[str, Any]:
    """The key numbers for the paper (flat-ish)."""
    c = base.columns
    a = ds_all.attrs
    pp0 = ev["channels"]["pp0/package1"], ev["channels"]["pp0/package2"]
    data = {
        "file": a["source_file"], "rows": a["rows"], "hosts_in_file": int(ds_all.sizes["host"]),
        "hosts": len(hosts), "dahu_hosts": sum(h.startswith("dahu") for h in hosts),
        "first": utc_minute(int(ds_all.minute.values[0])), "last": utc_minute(int(ds_all.minute.values[-1])),
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
