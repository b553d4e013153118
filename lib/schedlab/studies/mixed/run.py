"""The mixed-policies study: :func:`compute` runs the campaigns and hands
datasets, tables and figures to the driver (:func:`schedlab.protocol.study.run_study`);
:func:`time_optimisation` times one weekly optimisation (``python -m
schedlab.studies.mixed time``)."""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from .scorecard import rows as scorecard_rows
from ...science import optim
from ...engine import sim
from ...workloads import traces as _traces
from ... import validators
from ...errors import InputError
from .analysis import RTOL, Analysis, _count, _learning, reading_sums
from .cells import full_units, make_campaign, search_cell, trace_units
from .readings import readings_campaign
from .figures import (figure_convergence, figure_maps, figure_months, figure_pure, figure_saf, figure_search,
                      figure_weekly)
from .params import FEATURES3, OPTIMISERS, POLICIES, STUDY, THRESHOLD, Params
from .report import numbers
from .tables import (PUBLISHED, PUBLISHED_NOTES, THESIS, table_5_1, table_learning, table_pure, table_saf,
                     table_scales, table_search, table_thresholds, table_weights)


#: the trace of thesis Table 5.1
PUBLISHED_TABLE_5_1_TRACE = "SDSC-SP2"

# --------------------------------------------------------------------- run --

_COORD_ATTRS = {
    "unit": {"long_name": "period number: 1 is the first week (month) after the dropped first one"},
    "threshold": {"long_name": "waiting-time threshold", "units": "s", "comment": "'none': no threshold"},
    "policy": {"long_name": "pure queue policy (primary and backfilling)"},
    "point": {"long_name": "index of the grid point, see point_weights"},
    "point_weights": {"long_name": "weights (q, p~, r) of the grid point, ||w||_1 = 1", "units": "1"},
    "feature3": {"long_name": "feature of the 3-feature mixed policy"},
    "feature": {"long_name": "feature of the mixed policy"},
    "optimiser": {"long_name": "black-box optimiser and number of features"},
    "evaluation": {"long_name": "simulation number within one optimisation (0-based)"},
}


def _labelled(ds):
    """A campaign dataset with labelled coordinates: grid points' weights,
    policy and feature names, and their attributes."""
    ds = ds.copy()
    camp = ds.attrs.get("campaign")
    res = int(camp.get("params", {}).get("resolution", 0)) if isinstance(camp, dict) else 0
    if "point" in ds.dims and res:
        ds = ds.assign_coords(point_weights=(("point", "feature3"), optim.l1_lattice(3, res)),
                              feature3=list(FEATURES3))
    if "policy" in ds.dims:
        ds = ds.assign_coords(policy=list(POLICIES))
    if "feature" in ds.dims:
        ds = ds.assign_coords(feature=list(sim.FEATURES))
    for k, attrs in _COORD_ATTRS.items():
        if k in ds.coords:
            ds[k].attrs.update(attrs)
    return ds


#: complete weeks after the first that a trace needs: one to learn on, one to test on
MIN_WEEKS = 2


def compute(p: Params, ctx) -> dict[str, Any]:
    """Run the study's campaigns through ``ctx`` (any scheduler, the cache)
    and hand it every output:

    * ``tables/{table_5_1,learning,learning_months,pure,saf,search,thresholds,weights,scales}.{csv,md}``;
    * ``figures/{pure,saf,weekly,maps,search,convergence,months}.{png,pdf}``;
    * ``datasets/<campaign>.nc`` (every campaign's dataset, grid points as a coordinate).

    Returns ``numbers``, ``analyses`` (one :class:`Analysis` per trace),
    ``tables`` and ``figures``.  ``months=0`` skips months; ``optimisers=[]``
    skips the black-box searches.
    """
    analyses: list[Analysis] = []
    datasets: dict[str, Any] = {}
    left_out: list[str] = []
    common = dict(backfill=p.backfill)
    for info in p.traces:
        targ = _traces.text(info)
        notes: list[str] = []
        _, m, scales = trace_units(targ, "week")
        available = full_units(targ, "week")
        if available < MIN_WEEKS:
            left_out.append(f"{info.name}: {available} complete week(s) after the first; learning a weekly "
                            f"policy and testing it needs at least {MIN_WEEKS}: the trace is left out of this study.")
            continue
        n_w = _count(p.weeks[info.name], available, f"{info.name} weeks", notes)
        wk = list(range(1, n_w + 1))
        # pure policies at every threshold; grid at the main one (fine) and the others (coarser)
        c_pure = make_campaign("pure", info, "week", wk, thresholds=p.thresholds, **common)
        pure_ds = ctx.campaign(c_pure)
        c_grid = make_campaign("grid", info, "week", wk, thresholds=p.thresholds[:1],
                               resolution=p.grid_resolution, **common)
        grid_ds = ctx.campaign(c_grid)
        datasets[c_pure.name], datasets[c_grid.name] = pure_ds, grid_ds
        split = p.split[info.name]
        if split is not None and max(split[0][1], split[1][1]) > n_w:
            notes.append(f"{info.name}: training/testing weeks {split} go beyond the {n_w} weeks used; "
                         "the first and second halves are used instead.")
            split = None
        lr_w = _learning(info, "week", p.threshold, p.grid_resolution, wk, pure_ds, grid_ds, split)
        by_thr = {sim.format_duration(p.threshold): lr_w}
        if len(p.thresholds) > 1:
            c_thr = make_campaign("grid", info, "week", wk, thresholds=p.thresholds[1:],
                                  resolution=p.threshold_resolution, tag="-thr", **common)
            thr_ds = ctx.campaign(c_thr)
            datasets[c_thr.name] = thr_ds
            for t in p.thresholds[1:]:
                by_thr[sim.format_duration(t)] = _learning(info, "week", t, p.threshold_resolution, wk, pure_ds,
                                                  thr_ds, split)
        # black-box search
        search = None
        if p.optimisers:
            c_s = make_campaign("search", info, "week", wk, thresholds=p.thresholds[:1],
                                optimisers=p.optimisers, budget=p.budget, sigma0=p.sigma0,
                                penalty=p.penalty, patience=p.patience, seed=p.seed, **common)
            search = ctx.campaign(c_s)
            datasets[c_s.name] = search
        # maps
        maps: dict[int, np.ndarray] = {}
        map_points = None
        if p.map_trace == info.name:
            mw = [w for w in p.map_weeks if w <= n_w]
            if len(mw) < len(p.map_weeks):
                notes.append(f"map weeks beyond week {n_w} left out.")
            if mw:
                if p.map_resolution == p.grid_resolution:
                    src, map_points = grid_ds, lr_w.points
                else:
                    c_map = make_campaign("grid", info, "week", mw, thresholds=p.thresholds[:1],
                                          resolution=p.map_resolution, tag="-map", **common)
                    src = ctx.campaign(c_map)
                    datasets[c_map.name] = src
                    map_points = optim.l1_lattice(3, p.map_resolution)
                for w in mw:
                    maps[w] = src.mean_bsld.sel(threshold=sim.format_duration(p.threshold), unit=w).values
        # months
        lr_m = None
        if p.months[info.name] != 0:
            n_m_avail = full_units(targ, "month")
            if n_m_avail >= 2:
                n_m = _count(p.months[info.name], n_m_avail, f"{info.name} months", notes)
                mo = list(range(1, n_m + 1))
                c_mp = make_campaign("pure", info, "month", mo, thresholds=p.thresholds[:1], **common)
                c_mg = make_campaign("grid", info, "month", mo, thresholds=p.thresholds[:1],
                                     resolution=p.month_resolution, **common)
                mp_ds, mg_ds = ctx.campaign(c_mp), ctx.campaign(c_mg)
                datasets[c_mp.name], datasets[c_mg.name] = mp_ds, mg_ds
                if n_m >= 2:
                    lr_m = _learning(info, "month", p.threshold, p.month_resolution, mo, mp_ds, mg_ds, None)
            else:
                notes.append(f"{info.name}: fewer than 2 full months; months left out.")
        analyses.append(Analysis(info, m, tuple(scales), lr_w, lr_m, by_thr, search, maps, map_points, notes))
        if p.readings and info.name == PUBLISHED_TABLE_5_1_TRACE:
            # thesis Table 5.1's pure policies under every candidate reading (schedlab.science.thesis_readings)
            c_r = readings_campaign(info, wk, p.threshold, p.backfill)
            r_ds = ctx.campaign(c_r)
            datasets[c_r.name] = r_ds
            analyses[-1].readings, analyses[-1].reading_texts = reading_sums(r_ds, lr_w)
    for note in left_out + [n for a in analyses for n in a.notes]:
        ctx.log(f"note: {note}")
    if not analyses:
        return {"numbers": {"study": STUDY, "traces": {}, "left_out": left_out, "params": p.as_dict()},
                "analyses": [], "tables": {}, "figures": {}, "left_out": left_out}
    # datasets, with the grid points as a coordinate
    for name, ds in datasets.items():
        ctx.dataset(name, _labelled(ds))
    tabs = {"learning": table_learning(analyses, "week"), "pure": table_pure(analyses),
            "saf": table_saf(analyses), "weights": table_weights(analyses), "scales": table_scales(analyses)}
    main = next((a for a in analyses if a.name == "SDSC-SP2"), analyses[0])
    tabs["table_5_1"] = table_5_1(main)
    if any(a.months is not None for a in analyses):
        tabs["learning_months"] = table_learning(analyses, "month")
    if any(a.search is not None for a in analyses):
        tabs["search"] = table_search(analyses)
    if len(p.thresholds) > 1:
        tabs["thresholds"] = table_thresholds(analyses)
    for name, t in tabs.items():
        ctx.table(name, t)
    figs: dict[str, Any] = {}
    makers = {"pure": lambda: figure_pure(analyses), "saf": lambda: figure_saf(analyses),
              "weekly": lambda: figure_weekly(analyses), "search": lambda: figure_search(analyses),
              "convergence": lambda: figure_convergence(analyses), "months": lambda: figure_months(analyses)}
    map_a = next((a for a in analyses if a.maps), None)
    if map_a is not None:
        makers["maps"] = lambda: figure_maps(map_a, sorted(map_a.maps))
    for name, make in makers.items():
        fig = make()
        if fig is not None:
            figs[name] = ctx.figure(name, fig)
    nums = numbers(analyses)
    doc = {
        "study": STUDY,
        "main_trace": main.name,
        "traces": nums,
        "table_5_1": {"trace": main.name, "published": PUBLISHED["table_5_1"] if main.name == "SDSC-SP2" else {},
                      "reproduced": {r[0]: [r[2], r[4]] for r in tabs["table_5_1"].rows}},
        "map_weeks": sorted(map_a.maps) if map_a is not None else [],
        "definitions": {
            "objective": "weekly (monthly) average bounded slowdown, tau = 10 s, each period simulated alone",
            "features": list(sim.FEATURES), "features3": list(FEATURES3),
            "sign": "lowest key first; +w_q: small q first, +w_p: short p~ first, +w_r: early submit "
                    "first (FCFS = (0,0,1))",
            "scales": "means of the features over the whole cleaned trace (sim.default_scales)",
            "policy": "EASY-P-P" if p.backfill == "same" else f"EASY-P-{p.backfill}",
            "rtol": RTOL,
        },
        "published_source": THESIS,
        "published_notes": list(PUBLISHED_NOTES),
        "params": p.as_dict(),
        "left_out": left_out,
    }
    return {"numbers": doc, "analyses": analyses, "tables": tabs, "figures": figs, "left_out": left_out,
            "scorecard": scorecard_rows(analyses)}


# ------------------------------------------------------------------- timing --

def time_optimisation(trace: str = "SDSC-SP2", week: int = 73, optimiser: str = "xnes3", budget: int = 1000,
                      threshold=THRESHOLD, seed: int = 0, sigma0: float = 0.5, penalty: float = 0.01,
                      patience: int = 8, backfill: str = "same") -> dict[str, Any]:
    """Wall and CPU time of one weekly optimisation, in this process (no
    dask; the trace is loaded and the libraries imported before the clock
    starts)."""
    info = _traces.trace_list([trace])[0]
    if optimiser not in OPTIMISERS:
        raise InputError(f"optimiser must be one of {list(OPTIMISERS)}, got {optimiser!r}")
    if OPTIMISERS[optimiser][0] == "cma":
        import cma  # noqa: F401  (imported before the clock starts)
    trace_units(_traces.text(info), "week")
    cpu = time.process_time()
    res = search_cell({"trace": _traces.text(info), "period": "week", "skip_first": 1, "unit": int(week),
                       "threshold": sim.format_duration(sim.parse_duration(threshold)), "backfill": backfill,
                       "optimiser": optimiser, "budget": int(budget), "sigma0": sigma0, "penalty": penalty,
                       "patience": patience, "seed": seed})
    return {"trace": info.name, "week": week, "optimiser": optimiser, "budget": budget,
            "evaluations": int(res["evaluations"][1]), "seconds": float(res["optimisation_time"][1]),
            "cpu_seconds": time.process_time() - cpu,
            "mean_bsld": float(res["mean_bsld"][1]), "weights": res["weights"][1].tolist()}


def main(argv=None) -> int:
    """``python -m schedlab.studies.mixed time [TRACE] [--week N] [--budget B]``:
    the wall time of one weekly optimisation per optimiser."""
    import argparse
    ap = argparse.ArgumentParser(prog="python -m schedlab.studies.mixed", description=main.__doc__)
    ap.add_argument("action", choices=["time"])
    ap.add_argument("trace", nargs="?", default="SDSC-SP2")
    ap.add_argument("--week", type=int, default=73)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--optimisers", default=",".join(OPTIMISERS))
    args = ap.parse_args(argv)
    trace_units(_traces.text(_traces.trace_list([args.trace])[0]), "week")   # load outside the timing
    for o in args.optimisers.split(","):
        r = time_optimisation(args.trace, args.week, o.strip(), args.budget)
        print(f"{r['trace']} week {r['week']} {r['optimiser']}: {r['evaluations']} simulations in "
              f"{r['seconds']:.2f} s wall, {r['cpu_seconds']:.2f} s CPU "
              f"({1000 * r['seconds'] / max(r['evaluations'], 1):.2f} ms each); "
              f"average bsld {r['mean_bsld']:.3f}, w = {np.round(r['weights'], 3).tolist()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
