"""The energy study's pipeline: load the data, cut and classify the
profiles, the sensitivity and the generated signals, write every output.
"""
from __future__ import annotations

import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ... import __version__, energy, paths, plots
from ...errors import InputError
from .. import write_json, write_text
from .analysis import resolve_hosts, shares
from .cells import analyse, derive, sensitivity
from .figures import (figure_aggregation, figure_distribution, figure_examples, figure_history, figure_methods,
                      figure_outliers, figure_overview, figure_periodograms, figure_sensitivity, figure_synthetic)
from .params import SEGMENT_MIN_SIZE, SENSITIVITY, STUDY, Params, validate, validate_outdir
from .published import PUBLISHED_NOTES, THESIS
from .report import numbers
from .tables import (profiles_dataset, profiles_table, table_classes, table_data, table_funnel, table_hosts,
                     table_methods, table_sensitivity, table_synthetic, table_units)


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
    hosts = resolve_hosts(ds_all, p.hosts)
    unit = ds_all["pp0"].attrs["units"]
    ranges = energy.power_range(energy.signal(energy.select(ds_all, hosts), p.channel), p.range_quantiles)
    ds = energy.select(ds_all, hosts, p.days)

    t = time.perf_counter()
    need_cp = p.method == "segments" or p.compare_methods
    cache = energy.changepoints(ds, channel=p.channel, ranges=ranges, min_size=SEGMENT_MIN_SIZE,
                                max_gap=p.max_gap) if need_cp else None
    timings["changepoints_s"] = time.perf_counter() - t

    t = time.perf_counter()
    base = analyse(derive(ds, p.method, p, ranges, cache), p.preprocessing, p.tree, p.idle_level, p.method)
    s = shares(base, p.include_idle)
    methods = {}
    for m in (energy.METHODS if p.compare_methods else (p.method,)):
        a = base if m == p.method else analyse(derive(ds, m, p, ranges, cache), p.preprocessing,
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
