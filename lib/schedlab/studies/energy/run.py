"""The energy study: load the data, cut and classify the profiles, the
sensitivity and the generated signals; every output goes through the driver
(:func:`schedlab.protocol.study.run_study`), which writes it.
"""
from __future__ import annotations

from typing import Any

from ... import paths
from . import signals as energy
from .analysis import resolve_hosts, shares
from .cells import analyse, derive, sensitivity
from .figures import (figure_aggregation, figure_distribution, figure_examples, figure_history, figure_methods,
                      figure_outliers, figure_overview, figure_periodograms, figure_sensitivity, figure_synthetic)
from .params import SEGMENT_MIN_SIZE, SENSITIVITY, STUDY, Params
from .published import PUBLISHED_NOTES, THESIS
from .report import numbers
from .tables import (profiles_dataset, profiles_table, table_classes, table_data, table_funnel, table_hosts,
                     table_methods, table_sensitivity, table_synthetic, table_units)


def compute(p: Params, ctx) -> dict[str, Any]:
    """Run the study with parameters ``p``; through ``ctx``:

    * ``tables/{data,units,hosts,funnel,classes,methods,sensitivity,synthetic}.{csv,md}``;
    * ``figures/{overview,history,aggregation,outliers,examples,periodograms,
      distribution,methods,sensitivity,synthetic}.{png,pdf}``;
    * ``data/profiles.csv`` and ``profiles.nc`` (every profile, its
      statistics and class).

    Returns ``numbers`` (key numbers, the thesis' values), ``inputs`` (the
    data file and its checksum, for the provenance), ``analysis`` (:class:`Analysis` of the chosen method),
    ``shares``, ``methods``, ``sensitivity`` (rows), ``synthetic`` (records),
    ``tables``, ``figures`` and ``dataset``.
    """
    with ctx.timer("load_s"):
        raw = energy.read_csv(p.data)
        ds_all = energy.load(raw=raw)
    ev = energy.unit_evidence(raw)
    del raw
    hosts = resolve_hosts(ds_all, p.hosts)
    unit = ds_all["pp0"].attrs["units"]
    ranges = energy.power_range(energy.signal(energy.select(ds_all, hosts), p.channel), p.range_quantiles)
    ds = energy.select(ds_all, hosts, p.days)

    with ctx.timer("changepoints_s"):
        need_cp = p.method == "segments" or p.compare_methods
        cache = energy.changepoints(ds, channel=p.channel, ranges=ranges, min_size=SEGMENT_MIN_SIZE,
                                    max_gap=p.max_gap) if need_cp else None

    with ctx.timer("classify_s"):
        base = analyse(derive(ds, p.method, p, ranges, cache), p.preprocessing, p.tree, p.idle_level, p.method)
        s = shares(base, p.include_idle)
        methods = {}
        for m in (energy.METHODS if p.compare_methods else (p.method,)):
            a = base if m == p.method else analyse(derive(ds, m, p, ranges, cache), p.preprocessing,
                                                   p.tree, p.idle_level, m)
            methods[m] = {"without": shares(a, False), "with": shares(a, True)}

    with ctx.timer("sensitivity_s"):
        grid = SENSITIVITY if p.sensitivity is True else (p.sensitivity or {})
        sens = sensitivity(base, ds, p, ranges, cache, grid) if grid else []

    with ctx.timer("synthetic_s"):
        synth = energy.tree_accuracy(p.synthetic_noises, p.synthetic_signals, tree=p.tree, seed=p.seed) \
            if p.synthetic_signals > 0 else []

    tabs = {
        "data": table_data(ds_all, ds, hosts, ev, ctx.timing["load_s"]),
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
        ctx.table(name, table)
    ctx.data("profiles", profiles_table(base, unit))

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
    with ctx.timer("figures_s"):
        figs = {name: ctx.figure(name, make()) for name, make in makers.items()}

    nums = numbers(p, ds_all, ds, hosts, ev, ranges, base, s, methods, sens, synth, unit)
    source = {"file": ds_all.attrs["source_file"], "sha256": ds_all.attrs["sha256"],
              "path": paths.relative(p.data) if p.data else "data/energy (registry data/energy.toml)"}
    attrs = {"title": "energy profiles (schedlab study 5, thesis zrigui2021 ch. 7)",
             "parameters": p.as_dict(), "input_sha256": ds_all.attrs["sha256"],
             "input_file": ds_all.attrs["source_file"],
             "note": "profiles are pieces of a processor's signal, not jobs"}
    ctx.dataset("profiles", profiles_dataset(base, p, unit, attrs), folder="")
    doc = {"study": STUDY, **nums, "published_source": THESIS, "published_notes": list(PUBLISHED_NOTES)}
    from .scorecard import rows as scorecard_rows
    return {"numbers": doc, "inputs": {"energy": source}, "analysis": base, "scorecard": scorecard_rows(doc), "shares": s, "methods": methods, "sensitivity": sens,
            "synthetic": synth, "tables": tabs, "figures": figs, "dataset": ds}
