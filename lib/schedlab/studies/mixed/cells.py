"""The simulations of the mixed-policies study: a trace's weeks (months),
the weekly average bsld of a policy, the campaign cells -- the 12 pure
policies (:func:`pure_cell`), a grid of mixed policies (:func:`grid_cell`),
one black-box search (:func:`search_cell`) on one period -- and the
campaigns that run them (:func:`make_campaign`)."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ...campaigns import store
from ...campaigns.cells import TraceInputs, cell
from ...campaigns.spec import Campaign
from ...engine import metrics, sim
from ...science import optim
from ...workloads import workload
from ...workloads import traces as _traces
from ...declared import REQUIRED, CellInputs, duration, integer, number, one_of, param
from ...errors import InputError
from ...engine.sim import Jobs


#: The campaign variables the mixed study's cells record (:func:`schedlab.campaigns.store.declare`).
store.declare(__name__, {
    "weights": store.Var("weights of the mixed linear policy on its features (q, p~, r, p~/q, x, p~q), ||w||_1 = 1",
                         "1", "float64", store.NAN),
    "evaluations": store.Var("number of objective evaluations (simulations) an optimisation used", "1", "int64", -1),
    "optimisation_time": store.Var("wall time of one optimisation", "s", "float64", store.NAN),
    "best_so_far": store.Var("lowest objective value found after each evaluation of an optimisation",
                             "1", "float64", store.NAN),
})

# The constants the cells need live here, not in params.py: the cells then
# import nothing of the study's parameters or of the driver, so their cache
# keys (which follow the code the cells import) do not move when those do.

#: The thesis' threshold, 2.31 days (§5.8).
THRESHOLD = 200_000
#: The 12 pure policies (thesis §3.1.4).
POLICIES: tuple[str, ...] = sim.BANDIT_POLICIES
#: Black-box optimisers: name -> (method, number of features).
OPTIMISERS: dict[str, tuple[str, int]] = {"xnes3": ("xnes", 3), "xnes6": ("xnes", 6),
                                          "cma3": ("cma", 3), "cma6": ("cma", 6),
                                          "random3": ("random", 3), "random6": ("random", 6)}
BACKFILL_CHOICES = ("same", "FCFS")
PERIODS = ("week", "month")


# ---------------------------------------------------------------- workload --



@functools.lru_cache(maxsize=16)
def trace_units(trace: str, period: str = "week", skip_first: int = 1):
    """``(units, m, scales)`` of a trace: its weeks (or 30-day months) as
    :func:`schedlab.workloads.workload.weeks` slices them -- first period dropped,
    jobs whose recorded finish (an EASY-FCFS simulation's when the log
    records no wait: :func:`schedlab.workloads.workload.log_finish`) lies after their
    period's end removed --,
    the machine size and the per-trace feature scales (means over the whole
    cleaned trace).  Cached per process: the cells of a worker share it."""
    if period not in PERIODS:
        raise InputError(f"period must be one of {PERIODS}, got {period!r}")
    jobs, _, m, swf, _ = _traces.cleaned(trace)
    finish, _ = workload.log_finish(swf, jobs, m)      # an EASY-FCFS simulation's when the log has no waits
    units = workload.weeks(jobs, period=period, crossing="drop", skip_first=skip_first, finish=finish)
    return units, int(m), sim.default_scales(jobs)


def full_units(trace: str, period: str = "week") -> int:
    """Number of complete periods after the first (the last one, cut short
    by the end of the log, is not counted)."""
    units, _, _ = trace_units(trace, period)
    return max(len(units) - 1, 0)


def mixed_policy(weights, scales) -> sim.Mixed:
    """The engine's mixed policy for 3 or 6 weights, with fixed scales."""
    w = np.asarray(weights, dtype=float).ravel()
    return sim.Mixed(tuple(w.tolist()), tuple(scales))


def _policy(primary, threshold, backfill: str) -> sim.Policy:
    return sim.Policy(primary, primary if backfill == "same" else backfill, threshold)


def weekly_bsld(jobs: Jobs, m: int, primary, threshold=THRESHOLD, backfill: str = "same") -> float:
    """Average bounded slowdown (tau = 10 s) of ``jobs`` simulated alone
    under EASY-``primary``-(``primary`` or FCFS) with ``threshold``; NaN
    for no jobs."""
    if len(jobs) == 0:
        return float("nan")
    s = sim.simulate(jobs, m, _policy(primary, threshold, backfill))
    return float(np.mean(metrics.bsld(s)))


class Period:
    """One period's jobs simulated under many policies: :meth:`bsld` is
    :func:`weekly_bsld`, bit for bit, but the jobs are checked and handed to
    the core once (a simulation not yet run), then each policy runs on a
    clone of it (``csrc/SEMANTICS.md``: a clone run to the end gives what
    its source gives; ``set_policy`` applies from the next event, here the
    first).  The many simulations of a grid or a search on one week then
    cost the core's time, not Python's set-up."""

    def __init__(self, jobs: Jobs, m: int, threshold=THRESHOLD, backfill: str = "same"):
        self.jobs, self.m, self.threshold, self.backfill = jobs, m, threshold, backfill
        self._proto: sim.Simulation | None = None

    def bsld(self, primary) -> float:
        if len(self.jobs) == 0:
            return float("nan")
        policy = _policy(primary, self.threshold, self.backfill)
        if self._proto is None:
            self._proto = sim.Simulation(self.jobs, self.m, policy)
        with self._proto.clone() as c:
            c.set_policy(policy)
            c.run()
            s = sim.Schedule(self.jobs, self.m, c.policy, c.estimate, c._start, c._end, c._flags)
            return float(np.mean(metrics.bsld(s)))

    def close(self) -> None:
        if self._proto is not None:
            self._proto.close()
            self._proto = None



# ------------------------------------------------------------------- cells --

@dataclass(frozen=True)
class PeriodInputs(CellInputs):
    """What every mixed cell takes: one period (``unit``, 1-based) of a trace."""

    trace: str = TraceInputs.field("trace")
    period: str = param("week", help="the period's length", check=one_of(*PERIODS))
    skip_first: int = param(1, help="periods skipped at the log's start", check=integer(0))
    unit: int = param(REQUIRED, help="the period (1-based)", check=integer(1))
    threshold: int | None = param(THRESHOLD, help="the waiting-time threshold (none: none)", unit="s", check=duration)
    backfill: str = param("same", help="the backfilling queue's policy (same: the primary's)",
                          check=one_of(*BACKFILL_CHOICES))


@dataclass(frozen=True)
class GridInputs(PeriodInputs):
    """The grid cell's inputs: the lattice."""

    features: int = param(3, help="the mixed policy's features", check=integer(1))
    resolution: int = param(REQUIRED, help="the lattice's resolution", check=integer(1))


@dataclass(frozen=True)
class SearchInputs(PeriodInputs):
    """The search cell's inputs: one black-box optimisation."""

    optimiser: str = param(REQUIRED, help="the optimiser", check=one_of(*OPTIMISERS))
    budget: int = param(REQUIRED, help="evaluations allowed", check=integer(1))
    sigma0: float = param(0.5, help="the initial step size", check=number())
    penalty: float = param(0.01, help="the penalty outside the simplex", check=number())
    patience: int = param(8, help="generations without progress before stopping", check=integer(1))
    seed: int = param(0, help="the optimiser's seed", check=integer(0))


def _cell_setup(q: PeriodInputs, kind: str):
    units, m, scales = trace_units(q.trace, q.period, q.skip_first)
    if not 1 <= q.unit <= len(units):
        raise InputError(f"mixed {kind} cell: {q.period} {q.unit} out of range 1..{len(units)} for {q.trace}")
    return units[q.unit - 1], m, scales, q.threshold, q.backfill


@cell("mixed-pure", PeriodInputs)
def pure_cell(p: PeriodInputs) -> dict:
    """The 12 pure policies on one period: ``mean_bsld`` (policy) and ``jobs``."""
    jobs, m, _, thr, bf = _cell_setup(p, "pure")
    period = Period(jobs, m, thr, bf)
    out = np.array([period.bsld(pol) for pol in POLICIES])
    period.close()
    return {"mean_bsld": (("policy",), out), "jobs": ((), np.int64(len(jobs)))}


@cell("mixed-grid", GridInputs)
def grid_cell(p: GridInputs) -> dict:
    """Every point of the lattice (``features``, ``resolution``) on one
    period: ``mean_bsld`` (point), in :func:`schedlab.science.optim.l1_lattice` order."""
    jobs, m, scales, thr, bf = _cell_setup(p, "grid")
    points = optim.l1_lattice(p.features, p.resolution)
    if len(jobs) == 0:
        return {"mean_bsld": (("point",), np.full(len(points), np.nan))}
    return {"mean_bsld": (("point",), grid_bsld(jobs, m, points, scales, thr, bf))}


def grid_bsld(jobs: Jobs, m: int, points, scales, threshold=THRESHOLD, backfill: str = "same") -> np.ndarray:
    """:func:`weekly_bsld` of the mixed policy of every row of ``points``,
    bit for bit, from one call of the core that simulates them together
    (:func:`schedlab.engine.sim.simulate_mixed_many`: vectors that take the same
    decisions share one simulation); each distinct schedule's average bsld
    is computed once.  Points with an expansion weight (6 features) take
    the per-vector path (:class:`Period`)."""
    points = np.asarray(points, dtype=float)
    out = np.full(len(points), np.nan)
    if len(jobs) == 0 or len(points) == 0:
        return out
    if points.shape[1] > 4 and np.any(points[:, 4] != 0):
        period = Period(jobs, m, threshold, backfill)
        out[:] = [period.bsld(mixed_policy(w, scales)) for w in points]
        period.close()
        return out

    def got(vectors, schedule):
        out[vectors] = float(np.mean(metrics.bsld(schedule)))

    sim.simulate_mixed_many(jobs, m, points, tuple(scales), backfill=backfill, threshold=threshold, on_schedule=got)
    return out


def _seed(seed: int, unit: int, optimiser: str) -> int:
    ss = np.random.SeedSequence([int(seed), int(unit), list(OPTIMISERS).index(optimiser)])
    return int(ss.generate_state(1)[0])


@cell("mixed-search", SearchInputs)
def search_cell(p: SearchInputs) -> dict:
    """One black-box optimisation (``optimiser`` of :data:`OPTIMISERS`) on
    one period: the best ``mean_bsld`` found, its ``weights`` (6, zeros
    beyond the optimiser's features), the ``evaluations`` and
    ``optimisation_time`` spent, and ``best_so_far`` after each evaluation
    (NaN past the last one)."""
    jobs, m, scales, thr, bf = _cell_setup(p, "search")
    name = p.optimiser
    method, d = OPTIMISERS[name]
    budget = p.budget
    hist = np.full(budget, np.nan)
    if len(jobs) == 0:
        return {"mean_bsld": ((), np.nan), "weights": (("feature",), np.full(6, np.nan)),
                "evaluations": ((), np.int64(0)), "optimisation_time": ((), 0.0),
                "best_so_far": (("evaluation",), hist)}

    period = Period(jobs, m, thr, bf)

    def f(w):
        return period.bsld(mixed_policy(w, scales))

    def f_many(points):
        # static weight vectors (no expansion term): together, bit for bit f's values
        return grid_bsld(jobs, m, points, scales, thr, bf)

    r = optim.minimise_l1(f, d, method, budget, seed=_seed(p.seed, p.unit, name),
                          sigma0=p.sigma0, penalty=p.penalty, patience=p.patience,
                          f_many=f_many if d <= 4 else None)
    period.close()
    w6 = np.zeros(6)
    w6[:d] = r.x
    hist[:r.evaluations] = r.history
    return {"mean_bsld": ((), r.f), "weights": (("feature",), w6), "evaluations": ((), np.int64(r.evaluations)),
            "optimisation_time": ((), r.seconds), "best_so_far": (("evaluation",), hist)}


_CELLS = {kind: f"schedlab.studies.mixed.cells:{kind}_cell" for kind in ("pure", "grid", "search")}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "trace"


def make_campaign(kind: str, info: _traces.TraceInfo, period: str, units: Sequence[int], *,
                  thresholds: Sequence[int | None] = (THRESHOLD,), backfill: str = "same",
                  resolution: int | None = None, optimisers: Sequence[str] = (), budget: int = 0,
                  sigma0: float = 0.5, penalty: float = 0.01, patience: int = 8, seed: int = 0,
                  tag: str = "") -> Campaign:
    """The campaign of one kind ("pure", "grid", "search") on one trace:
    dims (threshold, unit) for pure and grid, (unit, optimiser) for search."""
    params: dict[str, Any] = {"trace": _traces.text(info), "period": period, "skip_first": 1,
                              "backfill": backfill}
    units = [int(u) for u in units]
    if kind in ("pure", "grid"):
        dims = {"threshold": [sim.format_duration(t) for t in thresholds], "unit": units}
        if kind == "grid":
            params.update(resolution=int(resolution), features=3)
    elif kind == "search":
        dims = {"unit": units, "optimiser": list(optimisers)}
        params.update(threshold=sim.format_duration(thresholds[0]), budget=int(budget), sigma0=float(sigma0),
                      penalty=float(penalty), patience=int(patience), seed=int(seed))
    else:
        raise InputError(f"unknown campaign kind {kind!r}")
    name = f"mixed-{kind}{tag}-{_slug(info.name)}-{period}"
    return Campaign(name, dims, params, _CELLS[kind])

