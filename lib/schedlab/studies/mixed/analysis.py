"""The analysis of the mixed-policies study, pure functions of the
campaigns' arrays and datasets: the weekly optimum w* among tied grid
points, w*_train learned on the training periods, w_greedy (last period's
optimum), and the per-trace results (:class:`Learning`, :class:`Analysis`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ...science import optim
from ...errors import InputError
from ...engine import sim
from .params import POLICIES

if TYPE_CHECKING:
    from ...workloads.traces import TraceInfo

#: Relative tolerance under which two weekly averages count as equal.
RTOL = 1e-3


def best_index(values, points=None, rtol: float = 1e-9) -> int:
    """Index of the lowest value; among ties (within ``rtol``), the point
    closest to the mean of the tied points (without ``points``: the first).
    -1 when every value is NaN."""
    v = np.asarray(values, dtype=float)
    if v.size == 0 or np.all(np.isnan(v)):
        return -1
    lo = np.nanmin(v)
    tied = np.flatnonzero(v <= lo + rtol * max(abs(lo), 1.0))
    if points is None or tied.size == 1:
        return int(tied[0])
    p = np.asarray(points, dtype=float)[tied]
    centre = p.mean(axis=0)
    return int(tied[int(np.argmin(((p - centre) ** 2).sum(axis=1)))])


def weekly_optimum(grid, points=None) -> tuple[np.ndarray, np.ndarray]:
    """Per period (rows of ``grid``: periods x points): index of the optimum
    (:func:`best_index`) and its value."""
    g = np.asarray(grid, dtype=float)
    idx = np.array([best_index(row, points) for row in g], dtype=np.int64)
    val = np.array([row[i] if i >= 0 else np.nan for row, i in zip(g, idx)])
    return idx, val


def greedy(grid, idx, fallback=None) -> np.ndarray:
    """w_greedy: period k scheduled with the optimum of period k-1
    (``idx`` from :func:`weekly_optimum`); the first period, or one after a
    period without optimum, takes ``fallback[k]`` (NaN if not given)."""
    g = np.asarray(grid, dtype=float)
    out = np.full(g.shape[0], np.nan)
    for k in range(g.shape[0]):
        if k > 0 and idx[k - 1] >= 0:
            out[k] = g[k, idx[k - 1]]
        elif fallback is not None:
            out[k] = fallback[k]
    return out


def learned(grid, train, points=None) -> tuple[int, np.ndarray]:
    """w*_train (thesis Eq. 5.2): the point with the lowest sum over the
    ``train`` periods (a boolean mask or indices) and its value in every period."""
    g = np.asarray(grid, dtype=float)
    i = best_index(np.nansum(g[np.asarray(train)], axis=0), points)
    return i, g[:, i]


@dataclass
class Learning:
    """The mixed-policy results of one trace at one granularity and threshold.

    ``units`` are the period numbers (1-based), ``pure`` (units x 12
    policies) and ``grid`` (units x points) the average bsld, ``points`` the
    lattice; ``train`` / ``test`` boolean masks over the units; derived:
    ``opt_idx`` / ``opt`` (w*), ``train_idx`` / ``wtrain`` (w*_train) and
    ``greedy`` (w_greedy) per unit."""

    trace: str
    period: str
    threshold: int | None
    resolution: int
    units: np.ndarray
    jobs: np.ndarray
    pure: np.ndarray
    grid: np.ndarray
    points: np.ndarray
    train: np.ndarray
    test: np.ndarray
    opt_idx: np.ndarray = field(init=False)
    opt: np.ndarray = field(init=False)
    train_idx: int = field(init=False)
    wtrain: np.ndarray = field(init=False)
    greedy: np.ndarray = field(init=False)

    def __post_init__(self):
        self.opt_idx, self.opt = weekly_optimum(self.grid, self.points)
        self.train_idx, self.wtrain = learned(self.grid, self.train, self.points)
        self.greedy = greedy(self.grid, self.opt_idx, fallback=self.column("FCFS"))

    def column(self, policy: str) -> np.ndarray:
        return self.pure[:, POLICIES.index(policy)]

    @property
    def best_pure(self) -> np.ndarray:
        return np.nanmin(self.pure, axis=1)

    @property
    def best_pure_name(self) -> list[str]:
        return [POLICIES[int(np.nanargmin(r))] if not np.all(np.isnan(r)) else "" for r in self.pure]

    def series(self) -> dict[str, np.ndarray]:
        """Per-unit values of every strategy: w*, w*_train, w_greedy and the pure policies."""
        out = {"w*": self.opt, "w*_train": self.wtrain, "w_greedy": self.greedy}
        out.update({p: self.column(p) for p in POLICIES})
        return out

    def sums(self) -> dict[str, tuple[float, float, float]]:
        """(training, testing, all) sums of the weekly averages per strategy."""
        return {k: (float(np.nansum(v[self.train])), float(np.nansum(v[self.test])), float(np.nansum(v)))
                for k, v in self.series().items()}

    @property
    def w_train(self) -> np.ndarray:
        return self.points[self.train_idx]


@dataclass
class Analysis:
    """Everything :func:`run` computed for one trace."""

    info: TraceInfo
    m: int
    scales: tuple[float, ...]
    weeks: Learning
    months: Learning | None
    thresholds: dict[str, Learning]
    search: Any | None        # xarray.Dataset (unit, optimiser) or None
    maps: dict[int, np.ndarray]
    map_points: np.ndarray | None
    notes: list[str] = field(default_factory=list)
    #: reading name -> policy -> (training, testing) sums of the weekly mean bsld of the pure policies
    #: under the candidate readings of the protocol (:func:`reading_sums`); empty when not computed
    readings: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    reading_texts: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.info.name


def _mask(units: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return (units >= lo) & (units <= hi)


def _split_masks(units: np.ndarray, split) -> tuple[np.ndarray, np.ndarray]:
    if split is not None:
        (a, b), (c, d) = split
        return _mask(units, a, b), _mask(units, c, d)
    half = len(units) // 2
    train = np.zeros(len(units), bool)
    train[:half] = True
    return train, ~train


def _count(requested: int | None, available: int, what: str, notes: list[str]) -> int:
    if available < 1:
        raise InputError(f"{what}: no complete period after the first one")
    if requested is None:
        return available
    if requested > available:
        notes.append(f"{what}: {requested} requested, only {available} available; using {available}.")
        return available
    return requested


def _ranges(lr: Learning) -> tuple[tuple[int, int], tuple[int, int]]:
    u = lr.units
    tr, te = u[lr.train], u[lr.test]
    return ((int(tr.min()), int(tr.max())) if tr.size else (0, 0),
            (int(te.min()), int(te.max())) if te.size else (0, 0))


def _search_sums(a: Analysis) -> dict[str, tuple[float, float]]:
    if a.search is None:
        return {}
    out = {}
    units = list(a.weeks.units)
    for opt in a.search.optimiser.values:
        v = a.search.mean_bsld.sel(optimiser=opt).reindex(unit=units).values
        out[str(opt)] = (float(np.nansum(v[a.weeks.train])), float(np.nansum(v[a.weeks.test])))
    return out


def _learning(info, period, thr, resolution, units, pure_ds, grid_ds, split) -> Learning:
    label = sim.format_duration(thr)
    pure = pure_ds.mean_bsld.sel(threshold=label).values
    jobs = pure_ds.jobs.sel(threshold=label).values
    grid = grid_ds.mean_bsld.sel(threshold=label).values
    u = np.asarray(units)
    train, test = _split_masks(u, split)
    if not train.any() or not test.any():
        raise InputError(f"{info.name}: the training ({split}) or testing {period}s select none of the "
                         f"{period}s used ({u.min()}-{u.max()}); set split or weeks")
    return Learning(info.name, period, thr, resolution, u, jobs, pure, grid,
                    optim.l1_lattice(3, resolution), train, test)


def reading_sums(ds, lr: Learning) -> tuple[dict, dict]:
    """From a readings campaign dataset (crossing, align, policy, unit; the
    units of ``lr``): per candidate reading of
    :func:`schedlab.science.thesis_readings.thesis_readings`, per pure policy, the
    (training, testing) sums of the weekly mean bsld over ``lr``'s masks.
    Returns (sums, texts)."""
    from ...science.thesis_readings import (BSLD_VARIABLE, cleaning_readings, newest_readings, text_reading, thesis_readings)

    if ds.sizes["unit"] != len(lr.units):
        raise ValueError(f"readings of {lr.trace}: {ds.sizes['unit']} weeks simulated, {len(lr.units)} expected")
    sums, texts = {}, {}
    # the study's cleaning (jobs with p > p~ killed at p~), then the same readings with them removed
    # ... and every one of these, the text's included, with ocst's order of equal keys (tie="newest")
    kill, drop = thesis_readings(), cleaning_readings("drop")
    cands = [(*c, "kill", "oldest") for c in kill] + [(*c, "drop", "oldest") for c in drop] + \
        [(*c, "kill", "newest") for c in newest_readings([text_reading()] + kill)] + \
        [(*c, "drop", "newest") for c in newest_readings(drop)]
    for name, text, tau, crossing, align, overrun, tie in cands:
        d = np.asarray(ds[BSLD_VARIABLE[tau]].sel(overrun=overrun, crossing=crossing, align=align, tie=tie)
                       .transpose("unit", "policy").values)
        sums[name] = {pol: (float(np.nansum(d[lr.train, k])), float(np.nansum(d[lr.test, k])))
                      for k, pol in enumerate(POLICIES)}
        texts[name] = text
    return sums, texts
