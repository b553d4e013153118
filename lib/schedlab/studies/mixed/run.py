"""Study 4 -- mixed policies: how far can a linear mix of job features beat
every pure policy, and can the mix be learned from the past?

Thesis zrigui2021 ch. 5 (see :data:`THESIS`), on the weeks (and months) of
SDSC-SP2, SDSC-BLUE, CTC-SP2 and KTH-SP2, or of any SWF trace:

1. the 12 pure policies week by week (§5.3, Figs. 5.1, 5.2);
2. the weekly optimum w* of the 3-feature mix (q, p~, r) found by a uniform
   discretisation of ||w||_1 = 1 (§5.5.1), and by black-box search -- xNES
   (:func:`schedlab.optim.xnes`, written from the published algorithm) and
   CMA-ES (the ``cma`` library) -- with 3 and 6 features (§5.6, Fig. 5.5);
3. learning (§5.5.2): w*_train, the grid point with the lowest sum of
   weekly average bsld over the training weeks, evaluated on the testing
   weeks (Table 5.1), and w_greedy, last week's optimum used this week
   (Fig. 5.3); the same with months (§5.9, Fig. 5.15);
4. maps of the search space for consecutive weeks (§5.5.3, Fig. 5.4);
5. w*, w*_train and w_greedy under the three thresholds of §5.8 (the
   mixed rows that Tables 5.2-5.5 leave out; their pure columns belong to
   the thresholds study).

Every simulation runs in a campaign cell (:func:`pure_cell`,
:func:`grid_cell`, :func:`search_cell`) on dask.distributed, cached by
:mod:`schedlab.campaign` under a key of its inputs: a re-run recomputes only
what changed.  :func:`run` writes tables, figures, datasets and
``numbers.json``; the notebook ``notebooks/03-mixed-policies.ipynb`` only
validates its parameters (:func:`validate`) and calls :func:`run`.

Choices (where the thesis is silent or ambiguous; each is a parameter
where it reasonably could be):

* **Policy.** The mixed policy of the engine (``schedlab.sim.Mixed``):
  key = sum_i w_i f_i / s_i, *lowest key first*, features f = (q, p~, r,
  p~/q, expansion, p~ q).  Thesis §5.4: "a positive value means that
  shorter/smaller jobs are prioritized" and "FCFS corresponds to
  (0,0,1,0,0,0)".  Its third feature is called *wait*, but lowest-first on
  the wait would be LCFS; ordering by the submit time r is what makes
  (0,0,1) FCFS (at a pass at time t, r = t - wait, so a weight on r is the
  opposite weight on the wait).  We use r: w = (w_q, w_p, w_r) with
  positive w_q / w_p favouring small / short jobs and positive w_r the
  earliest submitted (FCFS = (0,0,1), LCFS = (0,0,-1)); the other three
  features follow the same sign rule (SRF, SEXP, SAF at +1).
* **Scales.** Features are divided by per-trace scales, the means of
  :func:`schedlab.sim.default_scales` over *the whole cleaned trace* (not
  the simulated week, whose means change from week to week): the same w is
  the same policy in every week, which learning and w_greedy need.
* **Queues.** The policy orders both the primary and the backfilling
  queue (EASY-P-P; ``backfill="same"``); ``backfill="FCFS"`` keeps FCFS
  backfilling.  Threshold 2.31 days = 200,000 s (§5.8: "the value that is
  used for the rest of our research"), jobs over it first in FCFS order.
  Estimates: the requested times; runtimes above the request are killed
  at the request (the project's default cleaning).
* **Weeks** (§5.2): consecutive 7-day periods from the first submission
  (:func:`schedlab.workload.weeks`); the first is dropped ("benchmarking
  phase"); jobs whose *recorded* finish (the log's submit + wait + run,
  :func:`schedlab.workload.recorded_finish`) lies after the end of their
  submission week are removed; then the first 100 weeks of SDSC-SP2 and
  SDSC-BLUE and the first 45 of CTC-SP2 and KTH-SP2.  Weeks are numbered
  1, 2, ... from the first kept one and each is simulated alone, from an
  empty machine.  The objective is the week's average bounded slowdown
  (tau = 10 s) over its jobs.  Months: 30-day periods, same rules.
* **Grid** (§5.5.1): every w with ||w||_1 = 1 whose components are
  multiples of 1/n (:func:`schedlab.optim.l1_lattice`: 4n^2 + 2 points);
  n = 100 is the thesis' 0.01 step (its "100 points per dimension and
  sign", normalised).
* **Ties.** Light weeks leave many grid points with the same value; the
  optimum of a week is then the tied point closest to the mean of the tied
  points (:func:`best_index`), so that w_greedy carries the centre of last
  week's optimal region, not an arbitrary corner.
* **Training and testing** (§5.5.2.1): for SDSC-SP2, weeks 29-64 and 65-100
  (the thesis ignores the first 28 weeks and splits the 72 others in two
  halves; its Eq. 5.2 writes 28 as the first training week, which would
  make 37 training weeks); for the other traces (and for months) the first
  and second halves of the weeks used.  w_greedy needs the previous week's
  optimum; week 1 has none and runs FCFS.
* **Black-box search** (§5.6.1): the thesis' objective (Eq. 5.4) sum bsld +
  lambda (||w||_1 + 1/||w||_1) over unconstrained w, the policy seeing only
  w / ||w||_1; lambda is ``penalty`` times the objective at the start
  point.  The search starts from the best vertex (pure policy) of its
  features, step size ``sigma0``, for ``budget`` simulations per week
  (the thesis gives neither budget nor lambda).  A weekly landscape is
  piecewise constant with small optimal regions (often a handful of the
  10,000 points of a 0.02-step grid), where a single run converges to a
  local optimum; so a run that has not improved for ``patience``
  generations restarts from a random point with a doubled population
  (IPOP, :func:`schedlab.optim.minimise_l1`).  ``random3`` / ``random6``
  (uniform points on the sphere, same budget) are the baseline that tells
  what the evolution strategies add.
"""
from __future__ import annotations

import functools
import math
import os
import re
import subprocess
import time
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ... import __version__, optim, paths, plots, sim, store, workload
from ... import campaign as _campaign
from ... import traces as _traces
from ...errors import InputError
from ...sim import Jobs
from .. import Table, write_json
from ... import values as check


__all__ = [
    "THESIS", "PUBLISHED", "DEFAULT_TRACES", "THESIS_WEEKS", "THESIS_SPLIT", "THESIS_MONTHS",
    "THRESHOLD", "POLICIES", "FEATURES3", "OPTIMISERS", "Params", "validate", "validate_outdir",
    "trace_arg", "trace_units", "full_units", "make_campaign", "weekly_bsld", "mixed_policy",
    "pure_cell", "grid_cell", "search_cell", "best_index", "weekly_optimum", "greedy", "learned",
    "Learning", "Analysis", "time_optimisation", "run",
]

STUDY = "mixed"
#: Version of each kind of cell, part of its cache key: bump it when the
#: cell's computation (or the optimiser it calls) changes.
CELL_VERSION = {"pure": 1, "grid": 1, "search": 2}

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using "
          "Machine Learning and Statistical analysis, PhD thesis, Université Grenoble "
          "Alpes, 2021, ch. 5 (after Legrand, Trystram and Zrigui, IPDPS 2019)")

#: The four traces of thesis §5.2, main one first.
DEFAULT_TRACES: tuple[str, ...] = ("SDSC-SP2", "SDSC-BLUE", "CTC-SP2", "KTH-SP2")
#: Weeks used per trace (thesis §5.2: "45 consecutive weeks from CTC-SP2 and
#: KTH-SP2 and 100 consecutive weeks from SDSC-SP2 and SDSC-BLUE").
THESIS_WEEKS: dict[str, int] = {"SDSC-SP2": 100, "SDSC-BLUE": 100, "CTC-SP2": 45, "KTH-SP2": 45}
#: Training and testing weeks (1-based, inclusive), thesis §5.5.2.1.
THESIS_SPLIT: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {"SDSC-SP2": ((29, 64), (65, 100))}
#: Months used per trace (thesis §5.9: "train on the first 10 months ... test
#: on the second half"): 20 months of SDSC-SP2; every full month elsewhere.
THESIS_MONTHS: dict[str, int] = {"SDSC-SP2": 20}
#: The thesis' threshold, 2.31 days (§5.8).
THRESHOLD = 200_000
#: The thresholds of Tables 5.2-5.5: 2.31 days, none, 20 hours.
THESIS_THRESHOLDS: tuple[int | None, ...] = (200_000, None, 72_000)
#: The 12 pure policies (thesis §3.1.4).
POLICIES: tuple[str, ...] = sim.BANDIT_POLICIES
#: The 3 features of thesis §5.5 (the first three of the engine's six).
FEATURES3: tuple[str, ...] = sim.FEATURES[:3]
#: Black-box optimisers: name -> (method, number of features).
OPTIMISERS: dict[str, tuple[str, int]] = {"xnes3": ("xnes", 3), "xnes6": ("xnes", 6),
                                          "cma3": ("cma", 3), "cma6": ("cma", 6),
                                          "random3": ("random", 3), "random6": ("random", 6)}
DEFAULT_OPTIMISERS: tuple[str, ...] = tuple(OPTIMISERS)
BACKFILL_CHOICES = ("same", "FCFS")
PERIODS = ("week", "month")
#: Relative tolerance under which two weekly averages count as equal.
RTOL = 1e-3

#: Published values (thesis Tables 5.1-5.5).  Table 5.1: sums of the weekly
#: average bsld of SDSC-SP2 over the training (28/29-64) and testing
#: (65-100) weeks; Tables 5.2-5.5: sums over all the weeks of a trace at
#: the thresholds none / 2.31 days / 20 hours (pure policies only).
PUBLISHED: dict[str, Any] = {
    "table_5_1": {
        "w*": (376.67, 357.51), "w*_train": (682.11, 778.44), "SAF": (691.10, 721.54),
        "SPF": (706.24, 787.92), "w_greedy": (818.71, 902.55), "LEXP": (820.94, 934.21),
        "SQF": (970.49, 869.41), "SEXP": (1016.52, 1204.73), "LRF": (1041.18, 1134.92),
        "SRF": (1147.96, 1114.46), "FCFS": (1180.24, 1398.13), "LPF": (1239.79, 1483.35),
        "LQF": (1702.14, 2191.97), "LAF": (2109.84, 2355.16),
    },
    # (no threshold, 2.31 days, 20 hours) for SAF and FCFS, the rows the
    # thresholds table of this study sets beside the mixed policies.
    "tables_5_2_5_5": {
        "SDSC-SP2": {"SAF": (1461.39, 1585.53, 2395.29), "FCFS": (2864.63, 2864.63, 2879.22)},
        "SDSC-BLUE": {"SAF": (302.73, 311.83, 344.51), "FCFS": (487.37, 487.37, 487.37)},
        "KTH-SP2": {"SAF": (501.16, 507.76, 632.93), "FCFS": (850.16, 850.16, 850.16)},
        "CTC-SP2": {"SAF": (190.95, 191.24, 219.51), "FCFS": (357.75, 358.56, 341.83)},
    },
}
PUBLISHED_NOTES = (
    "Table 5.1 omits LCFS; its w* and w*_train rows are 3-feature grid optima.",
    "Tables 5.2-5.5 publish only pure policies; the thresholds table sets their SAF and FCFS "
    "sums beside ours for scale.",
)
_TABLE_ORDER = tuple(PUBLISHED["table_5_1"])


# -------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params:
    """Validated parameters of the study (see :func:`validate`)."""

    traces: tuple[_traces.TraceInfo, ...]
    weeks: dict[str, int | None]
    months: dict[str, int | None]
    split: dict[str, tuple[tuple[int, int], tuple[int, int]] | None]
    grid_resolution: int = 100
    threshold_resolution: int = 20
    month_resolution: int = 50
    map_resolution: int = 100
    map_trace: str | None = "SDSC-SP2"
    map_weeks: tuple[int, ...] = (70, 71, 72, 73)
    thresholds: tuple[int | None, ...] = THESIS_THRESHOLDS
    optimisers: tuple[str, ...] = ("xnes3", "xnes6", "cma3", "cma6", "random3", "random6")
    budget: int = 1000
    sigma0: float = 0.5
    penalty: float = 0.01
    patience: int = 8
    seed: int = 2019
    backfill: str = "same"
    workers: int | None = 2
    scheduler: str | None = None
    cache_dir: Path | None = None

    @property
    def threshold(self) -> int | None:
        """The main threshold (the first of :attr:`thresholds`)."""
        return self.thresholds[0]

    def as_dict(self) -> dict[str, Any]:
        return {"traces": [t.name for t in self.traces], "weeks": self.weeks, "months": self.months,
                "split": self.split, "grid_resolution": self.grid_resolution,
                "threshold_resolution": self.threshold_resolution,
                "month_resolution": self.month_resolution, "map_resolution": self.map_resolution,
                "map_trace": self.map_trace, "map_weeks": list(self.map_weeks),
                "thresholds": [_thr_label(t) for t in self.thresholds],
                "optimisers": list(self.optimisers), "budget": self.budget, "sigma0": self.sigma0,
                "penalty": self.penalty, "patience": self.patience, "seed": self.seed, "backfill": self.backfill,
                "workers": self.workers, "scheduler": self.scheduler,
                "cache_dir": None if self.cache_dir is None else str(self.cache_dir)}


def _posint(value, what: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        if isinstance(value, float) and value.is_integer() and value >= minimum:
            return int(value)
        raise InputError(f"{what}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


def _number(value, what: str, lo: float = 0.0, strict: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or (value <= lo if strict else value < lo):
        raise InputError(f"{what}: expected a number {'>' if strict else '>='} {lo:g}, got {value!r}")
    return float(value)


def _per_trace(value, names: Sequence[str], what: str, default: Mapping[str, int],
               minimum: int = 1) -> dict[str, int | None]:
    """Per-trace counts from an int, "all"/None (every full period), or a
    mapping trace -> either (missing traces take ``default``, else all)."""
    def one(v, name):
        if v is None or (isinstance(v, str) and v.strip().lower() == "all"):
            return None
        return _posint(v, f"{what}[{name}]" if name else what, minimum)

    if isinstance(value, Mapping):
        lower = {str(k).lower(): v for k, v in value.items()}
        unknown = set(lower) - {n.lower() for n in names}
        if unknown:
            raise InputError(f"{what}: unknown trace(s) {sorted(unknown)}; the traces are {list(names)}")
        return {n: one(lower[n.lower()], n) if n.lower() in lower else default.get(n) for n in names}
    if value == "thesis":
        return {n: default.get(n) for n in names}
    v = one(value, "")
    return {n: v for n in names}


def _threshold(value) -> int | None:
    try:
        return sim.parse_duration(value)
    except InputError as exc:
        raise InputError(f"thresholds: {exc}") from None


def _thr_label(t: int | None) -> str:
    return "none" if t is None else str(int(t))


def _thr_text(t: int | None) -> str:
    if t is None:
        return "none"
    if t % 3600 == 0 and t < 4 * 86400:
        return f"{t // 3600} h"
    return f"{t / 86400:.2f} d"


def validate(traces=DEFAULT_TRACES, weeks="thesis", months="thesis", split=None,
             grid_resolution=100, threshold_resolution=20, month_resolution=50, map_resolution=100,
             map_trace="SDSC-SP2", map_weeks=(70, 71, 72, 73), thresholds=THESIS_THRESHOLDS,
             optimisers=DEFAULT_OPTIMISERS, budget=1000, sigma0=0.5, penalty=0.01, patience=8,
             seed=2019, backfill="same", workers=2, scheduler=None, cache_dir=None) -> Params:
    """Check every parameter of the study and return them as :class:`Params`;
    raises :class:`~schedlab.errors.InputError` saying what is wrong.

    * ``traces``: registry names or SWF paths (as in the traces study);
    * ``weeks`` / ``months``: per-trace number of periods, ``"thesis"``
      (:data:`THESIS_WEEKS` / :data:`THESIS_MONTHS`, every full period for
      other traces), an int, ``"all"``, or a mapping trace -> int/"all";
      ``months=0`` leaves the months out;
    * ``split``: mapping trace -> [[first, last], [first, last]] training and
      testing weeks (1-based, inclusive); default :data:`THESIS_SPLIT`, else halves;
    * ``grid_resolution`` (main threshold), ``threshold_resolution`` (the
      other thresholds), ``month_resolution``, ``map_resolution``: n of
      :func:`schedlab.optim.l1_lattice`;
    * ``map_trace`` (None: no maps) and ``map_weeks`` for Fig. 5.4;
    * ``thresholds``: durations or None; the first is the main one;
    * ``optimisers``: subset of :data:`OPTIMISERS`; ``budget``
      (simulations per weekly optimisation), ``sigma0``, ``penalty``, ``seed``;
    * ``backfill``: "same" (EASY-P-P) or "FCFS";
    * ``workers`` (local dask workers), ``scheduler`` (address of an existing
      dask scheduler), ``cache_dir`` (default ``results/cache``).
    """
    infos = tuple(check.trace_list(traces))
    names = [i.name for i in infos]
    weeks_ = _per_trace(weeks, names, "weeks", THESIS_WEEKS)
    months_ = _per_trace(0 if months is False else months, names, "months", THESIS_MONTHS, minimum=0)
    split_: dict[str, Any] = {n: THESIS_SPLIT.get(n) for n in names}
    if split is not None:
        if not isinstance(split, Mapping):
            raise InputError("split: expected a mapping trace -> [[train first, last], [test first, last]]")
        lower = {n.lower(): n for n in names}
        for k, v in split.items():
            if str(k).lower() not in lower:
                raise InputError(f"split: unknown trace {k!r}; the traces are {names}")
            try:
                (a, b), (c, d) = v
                a, b, c, d = (_posint(x, f"split[{k}]") for x in (a, b, c, d))
            except (TypeError, ValueError):
                raise InputError(f"split[{k}]: expected [[first, last], [first, last]], got {v!r}") from None
            if not (a <= b and c <= d):
                raise InputError(f"split[{k}]: each range must have first <= last, got {v!r}")
            split_[lower[str(k).lower()]] = ((a, b), (c, d))
    res = {k: _posint(v, k) for k, v in (("grid_resolution", grid_resolution),
                                          ("threshold_resolution", threshold_resolution),
                                          ("month_resolution", month_resolution),
                                          ("map_resolution", map_resolution))}
    for k, v in res.items():
        if optim.lattice_size(3, v) > 500_000:
            raise InputError(f"{k}: {v} gives {optim.lattice_size(3, v)} grid points per week; at most 353")
    if map_trace is not None:
        lower = {n.lower(): n for n in names}
        if str(map_trace).lower() not in lower:
            if str(map_trace) == "SDSC-SP2":         # the default, when SDSC-SP2 is not studied
                map_trace = names[0]
            else:
                raise InputError(f"map_trace: {map_trace!r} is not one of the traces {names}")
        else:
            map_trace = lower[str(map_trace).lower()]
    if isinstance(map_weeks, (int, np.integer)):
        map_weeks = [map_weeks]
    if not isinstance(map_weeks, (list, tuple)) or not map_weeks:
        raise InputError(f"map_weeks: expected a list of week numbers, got {map_weeks!r}")
    map_weeks = tuple(_posint(w, "map_weeks") for w in map_weeks)
    if isinstance(thresholds, (str, int)) or thresholds is None:
        thresholds = [thresholds]
    if not isinstance(thresholds, (list, tuple)) or not thresholds:
        raise InputError(f"thresholds: expected a list of durations (or None), got {thresholds!r}")
    thr = tuple(_threshold(t) for t in thresholds)
    if len(set(thr)) != len(thr):
        raise InputError(f"thresholds: duplicates in {list(thresholds)}")
    if isinstance(optimisers, str):
        optimisers = [o.strip() for o in optimisers.split(",") if o.strip()]
    if not isinstance(optimisers, (list, tuple)):
        raise InputError(f"optimisers: expected a list among {list(OPTIMISERS)}, got {optimisers!r}")
    bad = [o for o in optimisers if o not in OPTIMISERS]
    if bad:
        raise InputError(f"optimisers: unknown {bad}; choose among {list(OPTIMISERS)}")
    if backfill not in BACKFILL_CHOICES:
        raise InputError(f"backfill: expected one of {BACKFILL_CHOICES}, got {backfill!r}")
    if workers is not None:
        workers = _posint(workers, "workers")
    if scheduler is not None and not (isinstance(scheduler, str) and scheduler.strip()):
        raise InputError(f"scheduler: expected a dask scheduler address or None, got {scheduler!r}")
    if cache_dir is not None:
        if not isinstance(cache_dir, (str, os.PathLike)):
            raise InputError(f"cache_dir: expected a directory path or None, got {cache_dir!r}")
        cache_dir = Path(os.fspath(cache_dir)).expanduser().resolve()
    return Params(infos, weeks_, months_, split_, res["grid_resolution"], res["threshold_resolution"],
                  res["month_resolution"], res["map_resolution"], map_trace, map_weeks, thr,
                  tuple(optimisers), _posint(budget, "budget"), _number(sigma0, "sigma0"),
                  _number(penalty, "penalty", strict=False), _posint(patience, "patience"),
                  _posint(seed, "seed", 0), backfill, workers, scheduler, cache_dir)


def validate_outdir(value) -> Path:
    """``None`` -> ``results/mixed``; otherwise the directory, made absolute."""
    return check.directory(value, "outdir", paths.RESULTS / STUDY)


# ---------------------------------------------------------------- workload --

def trace_arg(info: _traces.TraceInfo) -> str:
    """How a campaign names a trace: registry name, or the file's path."""
    return info.name if info.registered else str(info.path)


@functools.lru_cache(maxsize=16)
def trace_units(trace: str, period: str = "week", skip_first: int = 1):
    """``(units, m, scales)`` of a trace: its weeks (or 30-day months) as
    :func:`schedlab.workload.weeks` slices them -- first period dropped,
    jobs whose recorded finish lies after their period's end removed --,
    the machine size and the per-trace feature scales (means over the whole
    cleaned trace).  Cached per process: the cells of a worker share it."""
    if period not in PERIODS:
        raise InputError(f"period must be one of {PERIODS}, got {period!r}")
    info = _traces.resolve(trace)
    swf = _traces.load(info)
    jobs, _ = workload.clean(swf, m=info.m)
    m = info.m or int(jobs.procs.max())
    finish = workload.recorded_finish(swf, jobs)
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
    d = (s.end - s.start).astype(np.float64)
    w = (s.start - jobs.submit).astype(np.float64)
    return float(np.mean(np.maximum((w + d) / np.maximum(d, 10.0), 1.0)))


# ------------------------------------------------------------------- cells --

_CELL_KEYS = {"trace", "period", "skip_first", "unit", "threshold", "backfill", "version",
              "resolution", "features", "optimiser", "budget", "sigma0", "penalty", "patience", "seed"}


def _cell_setup(p: dict, kind: str):
    unknown = set(p) - _CELL_KEYS
    if unknown:
        raise InputError(f"mixed {kind} cell: unknown parameter(s) {sorted(unknown)}")
    units, m, scales = trace_units(str(p["trace"]), str(p.get("period", "week")), int(p.get("skip_first", 1)))
    unit = int(p["unit"])
    if not 1 <= unit <= len(units):
        raise InputError(f"mixed {kind} cell: {p.get('period', 'week')} {unit} out of range 1..{len(units)} "
                         f"for {p['trace']}")
    thr = p.get("threshold", _thr_label(THRESHOLD))
    threshold = None if thr in (None, "none") else int(thr)
    backfill = p.get("backfill", "same")
    if backfill not in BACKFILL_CHOICES:
        raise InputError(f"mixed {kind} cell: backfill must be one of {BACKFILL_CHOICES}, got {backfill!r}")
    return units[unit - 1], m, scales, threshold, backfill


def pure_cell(p: dict) -> dict:
    """The 12 pure policies on one period: ``mean_bsld`` (policy) and ``jobs``."""
    jobs, m, _, thr, bf = _cell_setup(p, "pure")
    out = np.array([weekly_bsld(jobs, m, pol, thr, bf) for pol in POLICIES])
    return {"mean_bsld": (("policy",), out), "jobs": ((), np.int64(len(jobs)))}


def grid_cell(p: dict) -> dict:
    """Every point of the lattice (``features``, ``resolution``) on one
    period: ``mean_bsld`` (point), in :func:`schedlab.optim.l1_lattice` order."""
    jobs, m, scales, thr, bf = _cell_setup(p, "grid")
    points = optim.l1_lattice(int(p.get("features", 3)), int(p["resolution"]))
    if len(jobs) == 0:
        return {"mean_bsld": (("point",), np.full(len(points), np.nan))}
    out = np.array([weekly_bsld(jobs, m, mixed_policy(w, scales), thr, bf) for w in points])
    return {"mean_bsld": (("point",), out)}


def _seed(seed: int, unit: int, optimiser: str) -> int:
    ss = np.random.SeedSequence([int(seed), int(unit), list(OPTIMISERS).index(optimiser)])
    return int(ss.generate_state(1)[0])


def search_cell(p: dict) -> dict:
    """One black-box optimisation (``optimiser`` of :data:`OPTIMISERS`) on
    one period: the best ``mean_bsld`` found, its ``weights`` (6, zeros
    beyond the optimiser's features), the ``evaluations`` and
    ``optimisation_time`` spent, and ``best_so_far`` after each evaluation
    (NaN past the last one)."""
    jobs, m, scales, thr, bf = _cell_setup(p, "search")
    name = p["optimiser"]
    if name not in OPTIMISERS:
        raise InputError(f"mixed search cell: optimiser must be one of {list(OPTIMISERS)}, got {name!r}")
    method, d = OPTIMISERS[name]
    budget = int(p["budget"])
    hist = np.full(budget, np.nan)
    if len(jobs) == 0:
        return {"mean_bsld": ((), np.nan), "weights": (("feature",), np.full(6, np.nan)),
                "evaluations": ((), np.int64(0)), "optimisation_time": ((), 0.0),
                "best_so_far": (("evaluation",), hist)}

    def f(w):
        return weekly_bsld(jobs, m, mixed_policy(w, scales), thr, bf)

    r = optim.minimise_l1(f, d, method, budget, seed=_seed(p.get("seed", 0), p["unit"], name),
                          sigma0=float(p.get("sigma0", 0.5)), penalty=float(p.get("penalty", 0.01)),
                          patience=int(p.get("patience", 8)))
    w6 = np.zeros(6)
    w6[:d] = r.x
    hist[:r.evaluations] = r.history
    return {"mean_bsld": ((), r.f), "weights": (("feature",), w6), "evaluations": ((), np.int64(r.evaluations)),
            "optimisation_time": ((), r.seconds), "best_so_far": (("evaluation",), hist)}


_CELLS = {kind: f"schedlab.studies.mixed.run:{kind}_cell" for kind in ("pure", "grid", "search")}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "trace"


def make_campaign(kind: str, info: _traces.TraceInfo, period: str, units: Sequence[int], *,
                  thresholds: Sequence[int | None] = (THRESHOLD,), backfill: str = "same",
                  resolution: int | None = None, optimisers: Sequence[str] = (), budget: int = 0,
                  sigma0: float = 0.5, penalty: float = 0.01, patience: int = 8, seed: int = 0,
                  tag: str = "") -> _campaign.Campaign:
    """The campaign of one kind ("pure", "grid", "search") on one trace:
    dims (threshold, unit) for pure and grid, (unit, optimiser) for search."""
    params: dict[str, Any] = {"trace": trace_arg(info), "period": period, "skip_first": 1,
                              "backfill": backfill, "version": CELL_VERSION.get(kind, 0)}
    units = [int(u) for u in units]
    if kind in ("pure", "grid"):
        dims = {"threshold": [_thr_label(t) for t in thresholds], "unit": units}
        if kind == "grid":
            params.update(resolution=int(resolution), features=3)
    elif kind == "search":
        dims = {"unit": units, "optimiser": list(optimisers)}
        params.update(threshold=_thr_label(thresholds[0]), budget=int(budget), sigma0=float(sigma0),
                      penalty=float(penalty), patience=int(patience), seed=int(seed))
    else:
        raise InputError(f"unknown campaign kind {kind!r}")
    name = f"mixed-{kind}{tag}-{_slug(info.name)}-{period}"
    return _campaign.Campaign(name, dims, params, _CELLS[kind])


# ---------------------------------------------------------------- analysis --

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

    info: _traces.TraceInfo
    m: int
    scales: tuple[float, ...]
    weeks: Learning
    months: Learning | None
    thresholds: dict[str, Learning]
    search: Any | None        # xarray.Dataset (unit, optimiser) or None
    maps: dict[int, np.ndarray]
    map_points: np.ndarray | None
    notes: list[str] = field(default_factory=list)

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


# ------------------------------------------------------------------- tables --

def table_5_1(a: Analysis) -> Table:
    """Thesis Table 5.1 (sums over the training and testing weeks) beside ours."""
    sums = a.weeks.sums()
    extra = _search_sums(a)
    rows = []
    for name in _TABLE_ORDER + tuple(p for p in POLICIES if p not in _TABLE_ORDER) + tuple(extra):
        pub = PUBLISHED["table_5_1"].get(name, (None, None)) if a.name == "SDSC-SP2" else (None, None)
        tr, te = (sums[name][0], sums[name][1]) if name in sums else extra[name]
        rows.append([name, pub[0], tr, pub[1], te])
    (a0, b0), (c0, d0) = _ranges(a.weeks)
    return Table(["policy", "training (thesis)", "training", "testing (thesis)", "testing"], rows,
                 title=f"Sums of the weekly average bsld, {a.name}: training weeks {a0}-{b0}, testing "
                       f"weeks {c0}-{d0} (thesis Table 5.1)",
                 notes=[f"w*: the weekly optimum of the 3-feature grid (resolution n = {a.weeks.resolution}, "
                        f"{len(a.weeks.points)} points); w*_train: the grid point with the lowest sum over the "
                        "training weeks; w_greedy: last week's optimum; xnes*/cma*: black-box weekly optima "
                        "(3 or 6 features).", *PUBLISHED_NOTES[:1]])


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


def table_learning(analyses: Sequence[Analysis], period: str = "week") -> Table:
    """Every trace: sums of the weekly (monthly) averages per strategy over
    the training, testing and all periods."""
    rows = []
    for a in analyses:
        lr = a.weeks if period == "week" else a.months
        if lr is None:
            continue
        sums = lr.sums()
        extra = _search_sums(a) if period == "week" else {}
        (a0, b0), (c0, d0) = _ranges(lr)
        order = sorted(sums, key=lambda k: sums[k][0])
        for k in order:
            rows.append([a.name, k, f"{a0}-{b0}", sums[k][0], f"{c0}-{d0}", sums[k][1], sums[k][2]])
        for k, (tr, te) in extra.items():
            rows.append([a.name, k, f"{a0}-{b0}", tr, f"{c0}-{d0}", te, tr + te])
    return Table(["trace", "policy", f"training {period}s", "training", f"testing {period}s", "testing",
                  f"all {period}s"], rows,
                 title=f"Learning over a long period ({period}s): sums of the {period}ly average bsld",
                 notes=["w*: per-period optimum of the grid (hindsight); w*_train: grid point learned on the "
                        "training periods; w_greedy: previous period's optimum (FCFS for the first)."])


def table_pure(analyses: Sequence[Analysis]) -> Table:
    """Fig. 5.1 in numbers: the pure policies ranked by their mean weekly average bsld."""
    rows = []
    for a in analyses:
        lr = a.weeks
        means = np.nanmean(lr.pure, axis=0)
        best = lr.best_pure_name
        for rank, j in enumerate(np.argsort(means), start=1):
            col = lr.pure[:, j]
            rows.append([a.name, rank, POLICIES[j], float(means[j]), float(np.nanmedian(col)),
                         float(np.nanpercentile(col, 25)), float(np.nanpercentile(col, 75)),
                         int(sum(b == POLICIES[j] for b in best))])
    return Table(["trace", "rank", "policy", "mean", "median", "q1", "q3", "weeks best"], rows,
                 title="Pure policies: weekly average bsld (thesis §5.3, Fig. 5.1)",
                 notes=["mean, median and quartiles over the weeks; 'weeks best': weeks where the policy "
                        "has the lowest average (ties to the first in the policy order)."])


def table_saf(analyses: Sequence[Analysis]) -> Table:
    """Fig. 5.2 in numbers: SAF against the best pure policy and w* per week."""
    rows = []
    for a in analyses:
        lr = a.weeks
        saf, best, opt = lr.column("SAF"), lr.best_pure, lr.opt
        ok = ~np.isnan(saf)
        rows.append([a.name, int(ok.sum()), int(np.sum(saf[ok] <= best[ok] * (1 + RTOL))),
                     int(np.sum(saf[ok] > best[ok] * 1.1)), float(np.nanmax(saf / best)),
                     int(np.sum(saf[ok] > opt[ok] * 1.1)), float(np.nanmax(saf / opt)),
                     float(np.nansum(saf)), float(np.nansum(best)), float(np.nansum(opt))])
    return Table(["trace", "weeks", "SAF best", "best pure > 10% better", "max SAF / best pure",
                  "w* > 10% better", "max SAF / w*", "sum SAF", "sum best pure", "sum w*"], rows,
                 title="The one size fits all policy? SAF against the best pure policy and w* "
                       "per week (thesis Fig. 5.2)",
                 notes=[f"'SAF best': SAF within {RTOL:.1%} of the best pure policy of the week."])


def table_search(analyses: Sequence[Analysis]) -> Table:
    """Fig. 5.5 in numbers: the black-box optima against the grid's."""
    rows = []
    for a in analyses:
        if a.search is None:
            continue
        units = list(a.weeks.units)
        grid = a.weeks.opt
        for opt in a.search.optimiser.values:
            s = a.search.sel(optimiser=opt).reindex(unit=units)
            v = s.mean_bsld.values
            ok = ~np.isnan(v) & ~np.isnan(grid)
            r = v[ok] / grid[ok]
            rows.append([a.name, str(opt), OPTIMISERS[str(opt)][1], int(np.nanmax(s.evaluations.values)),
                         float(np.nansum(v)), float(np.nansum(grid)), int(np.sum(r < 1 - RTOL)),
                         int(np.sum(np.abs(r - 1) <= RTOL)), int(np.sum(r > 1 + RTOL)),
                         float(np.nanmax(r)) if r.size else None,
                         float(np.nanmedian(s.optimisation_time.values))])
    return Table(["trace", "optimiser", "features", "evaluations", "sum", "sum grid w*", "weeks better",
                  "weeks equal", "weeks worse", "max ratio to grid", "median s per week"], rows,
                 title="Black-box weekly optima against the grid optimum w*_3 (thesis §5.6.1, Fig. 5.5)",
                 notes=[f"equal: within {RTOL:.1%} of the grid optimum; evaluations = simulations of the "
                        "week per optimisation (the 2d vertices included); seconds: wall time of one "
                        "weekly optimisation in a dask worker."])


def table_thresholds(analyses: Sequence[Analysis]) -> Table:
    """The mixed rows of thesis Tables 5.2-5.5: sums over all the weeks per threshold."""
    rows = []
    pub_all = PUBLISHED["tables_5_2_5_5"]
    col = {None: 0, 200_000: 1, 72_000: 2}
    for a in analyses:
        pub = pub_all.get(a.name, {})
        for label, lr in a.thresholds.items():
            thr = lr.threshold
            j = col.get(thr)
            s = lr.sums()
            rows.append([a.name, _thr_text(thr), lr.resolution,
                         pub.get("SAF", (None,) * 3)[j] if j is not None and pub else None, s["SAF"][2],
                         pub.get("FCFS", (None,) * 3)[j] if j is not None and pub else None, s["FCFS"][2],
                         s["w*"][2], s["w*_train"][2], s["w_greedy"][2]])
    return Table(["trace", "threshold", "grid n", "SAF (thesis)", "SAF", "FCFS (thesis)", "FCFS", "w*",
                  "w*_train", "w_greedy"], rows,
                 title="Mixed policies under the thresholds of thesis §5.8 (sums over all the weeks; "
                       "Tables 5.2-5.5 publish the pure policies only)",
                 notes=["w*_train is learned on the training weeks and summed over all the weeks (in part "
                        "in-sample); grid n: resolution of the grid at that threshold.", PUBLISHED_NOTES[1]])


def table_weights(analyses: Sequence[Analysis]) -> Table:
    """The learned weights and the spread of the weekly optima."""
    rows = []
    for a in analyses:
        for lr in [a.weeks] + ([a.months] if a.months is not None else []):
            w = lr.w_train
            opts = lr.points[lr.opt_idx[lr.opt_idx >= 0]]
            rows.append([a.name, lr.period, "w*_train", *w.tolist(), None])
            rows.append([a.name, lr.period, "w* (mean)", *opts.mean(axis=0).tolist(),
                         float(np.mean(opts[:, 0] >= 0)) if len(opts) else None])
    return Table(["trace", "period", "weights", "w_q", "w_p~", "w_r", "share of optima with w_q >= 0"], rows,
                 title="Learned weights (q, p~, r; ||w||_1 = 1) and the mean of the weekly optima",
                 digits={"w_q": 3, "w_p~": 3, "w_r": 3})


def table_scales(analyses: Sequence[Analysis]) -> Table:
    rows = [[a.name, a.m, *a.scales] for a in analyses]
    return Table(["trace", "m", *(f"s_{f}" for f in sim.FEATURES)], rows,
                 title="Feature scales of the mixed policy (means over the whole cleaned trace)")


# ------------------------------------------------------------------ figures --

def _integer_ticks(axis) -> None:
    from matplotlib import ticker
    axis.set_major_locator(ticker.MaxNLocator(integer=True))


def _plain_log(axis) -> None:
    """Log-scale ticks at 1, 2, 5 x 10^k labelled as plain numbers."""
    from matplotlib import ticker
    axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(ticker.NullFormatter())


_OPT_COLOURS = {"xnes3": "#1f77b4", "xnes6": "#d62728", "cma3": "#2ca02c", "cma6": "#ff7f0e",
                "random3": "0.5", "random6": "0.2"}
_SERIES_STYLE = {"FCFS": dict(color="0.55", lw=0.9), "SAF": dict(color="#1f77b4", lw=1.0),
                 "w*": dict(color="#d62728", lw=1.1), "w*_train": dict(color="#2ca02c", lw=1.0, ls="--"),
                 "w_greedy": dict(color="#9467bd", lw=0.9, ls=":")}


def figure_pure(analyses: Sequence[Analysis]):
    """Thesis Fig. 5.1: Tukey box plots of the weekly average bsld of the 12
    pure policies, sorted by their mean; the three best filled."""
    n = len(analyses)
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    with plots.style():
        fig = plots.figure(7.0, 2.4 * rows + 0.3)
        axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
        for ax, a in zip(axes, analyses):
            pure = a.weeks.pure
            order = np.argsort(np.nanmean(pure, axis=0))
            data = [pure[:, j][~np.isnan(pure[:, j])] for j in order]
            bp = ax.boxplot(data, whis=1.5, patch_artist=True, widths=0.6,
                            medianprops=dict(color="k", lw=0.8), flierprops=dict(ms=2, alpha=0.5))
            for k, box in enumerate(bp["boxes"]):
                box.set_facecolor(plots.trace_color(a.name) if k < 3 else "white")
                box.set_alpha(0.8 if k < 3 else 1.0)
            ax.plot(np.arange(1, len(order) + 1), np.nanmean(pure[:, order], axis=0), "k^", ms=3,
                    label="mean")
            ax.set_xticks(np.arange(1, len(order) + 1), [POLICIES[j] for j in order], rotation=60)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_title(f"{a.name} ({len(a.weeks.units)} weeks)")
            ax.set_ylabel("weekly average bsld")
        for ax in axes[n:]:
            ax.set_visible(False)
        axes[0].legend(loc="upper left")
    return fig


def figure_saf(analyses: Sequence[Analysis]):
    """Thesis Figs. 5.2, 5.6, 5.9, 5.12: SAF against the best pure policy of
    each week (coloured by which policy it is) and against w*."""
    import matplotlib
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    n = len(analyses)
    cmap = matplotlib.colormaps["tab20"]
    colour = {p: cmap(i / max(len(POLICIES) - 1, 1)) for i, p in enumerate(POLICIES)}
    with plots.style():
        fig = plots.figure(7.0, 1.9 * n + 0.6)
        axes = fig.subplots(n, 1, squeeze=False)[:, 0]
        seen = set()
        for ax, a in zip(axes, analyses):
            lr = a.weeks
            x = lr.units
            ax.bar(x, lr.column("SAF"), color="0.85", width=0.9, label="SAF")
            names = lr.best_pure_name
            for p in POLICIES:
                sel = np.array([b == p for b in names])
                if sel.any():
                    ax.plot(x[sel], lr.best_pure[sel], ls="none", marker="o", ms=3, color=colour[p])
                    seen.add(p)
            ax.plot(x, lr.opt, ls="none", marker="_", ms=5, color="#d62728")
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_ylabel(f"{a.name}\nweekly avg bsld")
            ax.set_xlim(x[0] - 1, x[-1] + 1)
            _integer_ticks(ax.xaxis)
        axes[-1].set_xlabel("week")
        handles = [Patch(color="0.85", label="SAF"),
                   Line2D([], [], ls="none", marker="_", ms=6, color="#d62728", label="w* (grid)")]
        handles += [Line2D([], [], ls="none", marker="o", ms=3, color=colour[p], label=f"best pure: {p}")
                    for p in POLICIES if p in seen]
        fig.legend(handles=handles, loc="outside lower center", ncols=5, fontsize=7)
    return fig


def _figure_series(items: Sequence[tuple[str, Learning]], unit_label: str):
    n = len(items)
    with plots.style():
        fig = plots.figure(7.0, 1.9 * n + 0.6)
        axes = fig.subplots(n, 1, squeeze=False)[:, 0]
        for ax, (name, lr) in zip(axes, items):
            x = lr.units
            for label, mask, shade in (("training", lr.train, "#e8f4e8"), ("testing", lr.test, "#f4ece8")):
                if mask.any():
                    ax.axvspan(x[mask].min() - 0.5, x[mask].max() + 0.5, color=shade, zorder=0)
                    ax.text((x[mask].min() + x[mask].max()) / 2, 1.0, label, transform=ax.get_xaxis_transform(),
                            ha="center", va="top", fontsize=7, color="0.4")
            series = lr.series()
            for key, st in _SERIES_STYLE.items():
                ax.plot(x, series[key], drawstyle="steps-mid", label=key, **st)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_ylabel(f"{name}\n{unit_label}ly avg bsld")
            ax.set_xlim(x[0] - 0.5, x[-1] + 0.5)
            _integer_ticks(ax.xaxis)
        axes[-1].set_xlabel(unit_label)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=5)
    return fig


def figure_weekly(analyses: Sequence[Analysis]):
    """Thesis Figs. 5.3, 5.7, 5.10, 5.13: FCFS, SAF, w*, w*_train and
    w_greedy week by week, training and testing weeks shaded."""
    return _figure_series([(a.name, a.weeks) for a in analyses], "week")


def figure_months(analyses: Sequence[Analysis]):
    """Thesis Fig. 5.15: the same at month granularity."""
    items = [(a.name, a.months) for a in analyses if a.months is not None]
    return _figure_series(items, "month") if items else None


def _diamond(values: np.ndarray, points: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The q <= 0 and q >= 0 halves of the sphere as images over (w_p, w_r)."""
    neg = np.full((2 * n + 1, 2 * n + 1), np.nan)
    pos = neg.copy()
    i = np.rint(points[:, 1] * n).astype(int) + n
    j = np.rint(points[:, 2] * n).astype(int) + n
    up, down = points[:, 0] >= -1e-12, points[:, 0] <= 1e-12
    pos[j[up], i[up]] = values[up]
    neg[j[down], i[down]] = values[down]
    return neg, pos


def figure_maps(a: Analysis, weeks: Sequence[int]):
    """Thesis Fig. 5.4: weekly average bsld over the sphere ||w||_1 = 1 of
    (q, p~, r) for consecutive weeks, each as its halves q <= 0 (left) and
    q >= 0 (right) drawn over the (w_p~, w_r) plane (w_q = -+(1 - |w_p~| -
    |w_r|)); lighter is better (log colour scale, per week).  Red dot: the
    week's optimum; blue triangle: w*_train."""
    from matplotlib.colors import LogNorm
    weeks = [w for w in weeks if w in a.maps]
    if not weeks or a.map_points is None:
        return None
    pts = a.map_points
    n = int(round(1 / np.min(np.abs(pts[np.abs(pts) > 0]))))
    wt = a.weeks.w_train
    cols = 2 * min(len(weeks), 2)
    rows = math.ceil(len(weeks) / 2)
    with plots.style():
        fig = plots.figure(7.0, 2.0 * rows + 0.4)
        axes = fig.subplots(rows, cols, squeeze=False)
        for k, week in enumerate(weeks):
            vals = a.maps[week]
            neg, pos = _diamond(vals, pts, n)
            lo, hi = np.nanmin(vals), np.nanmax(vals)
            norm = LogNorm(vmin=lo, vmax=max(hi, lo * 1.0001))
            ibest = best_index(vals, pts)
            wb = pts[ibest]
            r, c = divmod(k, 2)
            for h, (img, half) in enumerate(((neg, "q <= 0"), (pos, "q >= 0"))):
                ax = axes[r, 2 * c + h]
                im = ax.imshow(img, origin="lower", extent=(-1 - 0.5 / n, 1 + 0.5 / n) * 2,
                               cmap="magma_r", norm=norm, interpolation="nearest")
                sign = -1 if h == 0 else 1
                if sign * wb[0] >= -1e-12:
                    ax.plot(wb[1], wb[2], "o", color="red", ms=4, mec="white", mew=0.5)
                if sign * wt[0] >= -1e-12:
                    ax.plot(wt[1], wt[2], "^", color="#1f77b4", ms=4, mec="white", mew=0.5)
                ax.set_title(f"week {week}, {half}", fontsize=8)
                ax.set_xticks([-1, 0, 1])
                ax.set_yticks([-1, 0, 1])
                ax.grid(False)
                if h == 0:
                    ax.set_ylabel("w_r (FCFS +)")
                ax.set_xlabel("w_p~ (SPF +)")
            cb = fig.colorbar(im, ax=list(axes[r, 2 * c:2 * c + 2]), shrink=0.8, pad=0.02)
            _plain_log(cb.ax.yaxis)
        for k in range(len(weeks), rows * 2):
            r, c = divmod(k, 2)
            axes[r, 2 * c].set_visible(False)
            axes[r, 2 * c + 1].set_visible(False)
    return fig


def figure_search(analyses: Sequence[Analysis]):
    """Thesis Figs. 5.5, 5.8, 5.11, 5.14: each black-box weekly optimum
    divided by the grid optimum w*_3 of the same week (below 1: better than
    the grid)."""
    items = [a for a in analyses if a.search is not None]
    if not items:
        return None
    markers = {o: (mk, _OPT_COLOURS[o]) for o, mk in zip(OPTIMISERS, "osx+.1")}
    with plots.style():
        fig = plots.figure(7.0, 1.8 * len(items) + 0.6)
        axes = fig.subplots(len(items), 1, squeeze=False)[:, 0]
        for ax, a in zip(axes, items):
            units = list(a.weeks.units)
            for opt in a.search.optimiser.values:
                v = a.search.mean_bsld.sel(optimiser=opt).reindex(unit=units).values
                mk, col = markers.get(str(opt), ("o", "k"))
                ax.plot(a.weeks.units, v / a.weeks.opt, ls="none", marker=mk, ms=3, color=col,
                        label=str(opt), mfc="none" if mk in "os" else None)
            ax.axhline(1.0, color="k", lw=0.7)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_ylabel(f"{a.name}\nbsld / grid w*_3")
            _integer_ticks(ax.xaxis)
        axes[-1].set_xlabel("week")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=4)
    return fig


def figure_convergence(analyses: Sequence[Analysis]):
    """Median over the weeks of the best value found after k evaluations,
    divided by the week's grid optimum, per optimiser (25-75% band)."""
    items = [a for a in analyses if a.search is not None]
    if not items:
        return None
    colours = _OPT_COLOURS
    with plots.style():
        fig = plots.figure(7.0, 2.3 * math.ceil(len(items) / 2) + 0.5)
        axes = fig.subplots(math.ceil(len(items) / 2), min(len(items), 2), squeeze=False).ravel()
        for ax, a in zip(axes, items):
            units = list(a.weeks.units)
            for opt in a.search.optimiser.values:
                h = a.search.best_so_far.sel(optimiser=opt).reindex(unit=units).values
                r = h / a.weeks.opt[:, None]
                ok = ~np.all(np.isnan(r), axis=1)
                if not ok.any():
                    continue
                used = ~np.all(np.isnan(r[ok]), axis=0)         # evaluations some week made
                r = r[ok][:, used]
                k = np.flatnonzero(used) + 1
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)   # weeks that stopped earlier: NaN
                    med = np.nanmedian(r, axis=0)
                    lo, hi = np.nanpercentile(r, [25, 75], axis=0)
                ax.plot(k, med, color=colours.get(str(opt), "k"), label=str(opt))
                ax.fill_between(k, lo, hi, color=colours.get(str(opt), "k"), alpha=0.15, lw=0)
            ax.axhline(1.0, color="k", lw=0.7)
            ax.set_xscale("log")
            _plain_log(ax.xaxis)
            ax.set_yscale("log")
            _plain_log(ax.yaxis)
            ax.set_title(a.name)
            ax.set_xlabel("simulations")
            ax.set_ylabel("best so far / grid w*_3")
        for ax in axes[len(items):]:
            ax.set_visible(False)
        axes[0].legend()
    return fig


# ------------------------------------------------------------------ numbers --

def _pct(a: float, b: float) -> float:
    """How much lower ``a`` is than ``b``, in % of ``b``."""
    return 100.0 * (1.0 - a / b) if b else float("nan")


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def numbers(analyses: Sequence[Analysis]) -> dict[str, Any]:
    """Key numbers per trace (for the paper)."""
    out: dict[str, Any] = {}
    for a in analyses:
        lr = a.weeks
        s = lr.sums()
        saf, best, opt = lr.column("SAF"), lr.best_pure, lr.opt
        ok = ~np.isnan(saf)
        (a0, b0), (c0, d0) = _ranges(lr)
        means = np.nanmean(lr.pure, axis=0)
        rank = [POLICIES[j] for j in np.argsort(means)]
        d: dict[str, Any] = {
            "m": a.m, "scales": list(a.scales), "weeks": int(len(lr.units)),
            "jobs": int(np.nansum(lr.jobs)), "grid_resolution": lr.resolution, "grid_points": int(len(lr.points)),
            "threshold_s": lr.threshold, "pure_ranking": rank, "best_pure_mean": rank[0],
            "saf_best_weeks": int(np.sum(saf[ok] <= best[ok] * (1 + RTOL))),
            "best_pure_10pct_better_weeks": int(np.sum(saf[ok] > best[ok] * 1.1)),
            "wstar_10pct_better_weeks": int(np.sum(saf[ok] > opt[ok] * 1.1)),
            "max_saf_over_wstar": float(np.nanmax(saf / opt)),
            "max_best_pure_over_wstar": float(np.nanmax(best / opt)),
            "sum_all": {k: v[2] for k, v in s.items()},
            "wstar_gain_vs_saf_pct": _pct(s["w*"][2], s["SAF"][2]),
            "wstar_gain_vs_fcfs_pct": _pct(s["w*"][2], s["FCFS"][2]),
            "train_weeks": [a0, b0], "test_weeks": [c0, d0],
            "train": {k: v[0] for k, v in s.items()}, "test": {k: v[1] for k, v in s.items()},
            "wtrain_weights": lr.w_train.tolist(),
            "wtrain_vs_saf_test_pct": _pct(s["w*_train"][1], s["SAF"][1]),
            "greedy_vs_saf_test_pct": _pct(s["w_greedy"][1], s["SAF"][1]),
            "wtrain_over_saf_test": _ratio(s["w*_train"][1], s["SAF"][1]),
            "greedy_over_saf_test": _ratio(s["w_greedy"][1], s["SAF"][1]),
            "wstar_over_saf_test": _ratio(s["w*"][1], s["SAF"][1]),
            "greedy_beats_saf_weeks": int(np.sum(lr.greedy[1:] < saf[1:] * (1 - RTOL))),
            "greedy_worse_than_saf_weeks": int(np.sum(lr.greedy[1:] > saf[1:] * (1 + RTOL))),
        }
        if a.months is not None:
            ms = a.months.sums()
            d["months"] = {"count": int(len(a.months.units)), "resolution": a.months.resolution,
                           "train": {k: v[0] for k, v in ms.items()}, "test": {k: v[1] for k, v in ms.items()},
                           "wstar_gain_vs_saf_pct": _pct(ms["w*"][2], ms["SAF"][2]),
                           "wtrain_vs_saf_test_pct": _pct(ms["w*_train"][1], ms["SAF"][1]),
                           "wtrain_over_saf_test": _ratio(ms["w*_train"][1], ms["SAF"][1]),
                           "wstar_over_saf_test": _ratio(ms["w*"][1], ms["SAF"][1])}
        d["thresholds"] = {_thr_label(l.threshold): {k: v[2] for k, v in l.sums().items()}
                           for l in a.thresholds.values()}
        if a.search is not None:
            units = list(lr.units)
            srch = {}
            for o in a.search.optimiser.values:
                sel = a.search.sel(optimiser=o).reindex(unit=units)
                v = sel.mean_bsld.values
                r = v / opt
                srch[str(o)] = {"sum": float(np.nansum(v)), "gain_vs_grid_pct": _pct(float(np.nansum(v)),
                                                                                       float(np.nansum(opt))),
                                "weeks_within_tol_or_better": int(np.sum(r <= 1 + RTOL)),
                                "weeks_better": int(np.sum(r < 1 - RTOL)),
                                "evaluations": int(np.nanmax(sel.evaluations.values)),
                                "median_seconds": float(np.nanmedian(sel.optimisation_time.values)),
                                "max_seconds": float(np.nanmax(sel.optimisation_time.values))}
            d["search"] = srch
        if a.name == "SDSC-SP2":
            t = PUBLISHED["table_5_1"]
            d["published"] = {"table_5_1": t,
                              "wtrain_over_saf_test": _ratio(t["w*_train"][1], t["SAF"][1]),
                              "greedy_over_saf_test": _ratio(t["w_greedy"][1], t["SAF"][1]),
                              "wstar_over_saf_test": _ratio(t["w*"][1], t["SAF"][1])}
        else:
            d["published"] = {}
        d["notes"] = a.notes
        out[a.name] = d
    return out


def _git() -> dict[str, Any]:
    try:
        head = subprocess.run(["git", "-C", str(paths.ROOT), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(paths.ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if head.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": head.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


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


def _learning(info, period, thr, resolution, units, pure_ds, grid_ds, split) -> Learning:
    label = _thr_label(thr)
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


def run(traces=DEFAULT_TRACES, weeks="thesis", months="thesis", split=None, grid_resolution=100,
        threshold_resolution=20, month_resolution=50, map_resolution=100, map_trace="SDSC-SP2",
        map_weeks=(70, 71, 72, 73), thresholds=THESIS_THRESHOLDS, optimisers=DEFAULT_OPTIMISERS,
        budget=1000, sigma0=0.5, penalty=0.01, patience=8, seed=2019, backfill="same", workers=2,
        scheduler=None, cache_dir=None, outdir=None, log=print) -> dict[str, Any]:
    """Run the study (parameters: :func:`validate`) and write under ``outdir``
    (default ``results/mixed``), each file atomically:

    * ``tables/{table_5_1,learning,learning_months,pure,saf,search,thresholds,weights,scales}.{csv,md}``;
    * ``figures/{pure,saf,weekly,maps,search,convergence,months}.{png,pdf}``;
    * ``datasets/<campaign>.nc`` (every campaign's dataset, grid points as a coordinate);
    * ``numbers.json``.

    Returns ``analyses`` (one :class:`Analysis` per trace), ``tables``,
    ``figures``, ``files``, ``numbers``, ``params``, ``outdir`` and ``seconds``.
    ``months=0`` skips months; ``optimisers=[]`` skips the black-box searches.
    """
    t0 = time.perf_counter()
    p = validate(traces, weeks, months, split, grid_resolution, threshold_resolution,
                 month_resolution, map_resolution, map_trace, map_weeks, thresholds, optimisers, budget,
                 sigma0, penalty, patience, seed, backfill, workers, scheduler, cache_dir)
    out = validate_outdir(outdir)
    runner = _campaign.Runner(p.workers, p.scheduler, p.cache_dir, log)
    analyses: list[Analysis] = []
    datasets: dict[str, Any] = {}
    common = dict(backfill=p.backfill)
    try:
        for info in p.traces:
            targ = trace_arg(info)
            notes: list[str] = []
            _, m, scales = trace_units(targ, "week")
            n_w = _count(p.weeks[info.name], full_units(targ, "week"), f"{info.name} weeks", notes)
            wk = list(range(1, n_w + 1))
            # pure policies at every threshold; grid at the main one (fine) and the others (coarser)
            c_pure = make_campaign("pure", info, "week", wk, thresholds=p.thresholds, **common)
            pure_ds = runner.run(c_pure)
            c_grid = make_campaign("grid", info, "week", wk, thresholds=p.thresholds[:1],
                                   resolution=p.grid_resolution, **common)
            grid_ds = runner.run(c_grid)
            datasets[c_pure.name], datasets[c_grid.name] = pure_ds, grid_ds
            split = p.split[info.name]
            if split is not None and max(split[0][1], split[1][1]) > n_w:
                notes.append(f"{info.name}: training/testing weeks {split} go beyond the {n_w} weeks used; "
                             "the first and second halves are used instead.")
                split = None
            lr_w = _learning(info, "week", p.threshold, p.grid_resolution, wk, pure_ds, grid_ds, split)
            by_thr = {_thr_label(p.threshold): lr_w}
            if len(p.thresholds) > 1:
                c_thr = make_campaign("grid", info, "week", wk, thresholds=p.thresholds[1:],
                                      resolution=p.threshold_resolution, tag="-thr", **common)
                thr_ds = runner.run(c_thr)
                datasets[c_thr.name] = thr_ds
                for t in p.thresholds[1:]:
                    by_thr[_thr_label(t)] = _learning(info, "week", t, p.threshold_resolution, wk, pure_ds,
                                                      thr_ds, split)
            # black-box search
            search = None
            if p.optimisers:
                c_s = make_campaign("search", info, "week", wk, thresholds=p.thresholds[:1],
                                    optimisers=p.optimisers, budget=p.budget, sigma0=p.sigma0,
                                    penalty=p.penalty, patience=p.patience, seed=p.seed, **common)
                search = runner.run(c_s)
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
                        src = runner.run(c_map)
                        datasets[c_map.name] = src
                        map_points = optim.l1_lattice(3, p.map_resolution)
                    for w in mw:
                        maps[w] = src.mean_bsld.sel(threshold=_thr_label(p.threshold), unit=w).values
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
                    mp_ds, mg_ds = runner.run(c_mp), runner.run(c_mg)
                    datasets[c_mp.name], datasets[c_mg.name] = mp_ds, mg_ds
                    if n_m >= 2:
                        lr_m = _learning(info, "month", p.threshold, p.month_resolution, mo, mp_ds, mg_ds, None)
                else:
                    notes.append(f"{info.name}: fewer than 2 full months; months left out.")
            analyses.append(Analysis(info, m, tuple(scales), lr_w, lr_m, by_thr, search, maps, map_points, notes))
    finally:
        runner.close()
    for note in (n for a in analyses for n in a.notes):
        log(f"note: {note}")
    files: list[Path] = []
    # datasets, with the grid points as a coordinate
    for name, ds in datasets.items():
        files.append(store.write_dataset(_labelled(ds), out / "datasets" / f"{name}.nc"))
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
        files += t.write(out / "tables" / name)
    figs: dict[str, list[Path]] = {}
    makers = {"pure": lambda: figure_pure(analyses), "saf": lambda: figure_saf(analyses),
              "weekly": lambda: figure_weekly(analyses), "search": lambda: figure_search(analyses),
              "convergence": lambda: figure_convergence(analyses), "months": lambda: figure_months(analyses)}
    map_a = next((a for a in analyses if a.maps), None)
    if map_a is not None:
        makers["maps"] = lambda: figure_maps(map_a, sorted(map_a.maps))
    for name, make in makers.items():
        fig = make()
        if fig is not None:
            figs[name] = plots.savefig(fig, out / "figures" / name)
            files += figs[name]
    nums = numbers(analyses)
    seconds = time.perf_counter() - t0
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
        "cells": {"computed": runner.computed, "cached": runner.cached},
        "provenance": {"schedlab": __version__, "core": sim.VERSION, "git": _git(),
                       "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       "wall_s": seconds,
                       "inputs": {a.name: {"path": str(a.info.path), "sha256": a.info.sha256} for a in analyses}},
    }
    files.append(write_json(out / "numbers.json", doc))
    return {"analyses": analyses, "tables": tabs, "figures": figs, "files": files, "numbers": doc,
            "params": p, "outdir": out, "seconds": time.perf_counter() - t0}


# ------------------------------------------------------------------- timing --

def time_optimisation(trace: str = "SDSC-SP2", week: int = 73, optimiser: str = "xnes3", budget: int = 1000,
                      threshold=THRESHOLD, seed: int = 0, sigma0: float = 0.5, penalty: float = 0.01,
                      patience: int = 8, backfill: str = "same") -> dict[str, Any]:
    """Wall and CPU time of one weekly optimisation, in this process (no
    dask; the trace is loaded and the libraries imported before the clock
    starts)."""
    info = check.trace_list([trace])[0]
    if optimiser not in OPTIMISERS:
        raise InputError(f"optimiser must be one of {list(OPTIMISERS)}, got {optimiser!r}")
    if OPTIMISERS[optimiser][0] == "cma":
        import cma  # noqa: F401  (imported before the clock starts)
    trace_units(trace_arg(info), "week")
    cpu = time.process_time()
    res = search_cell({"trace": trace_arg(info), "period": "week", "skip_first": 1, "unit": int(week),
                       "threshold": _thr_label(sim.parse_duration(threshold)), "backfill": backfill,
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
    trace_units(trace_arg(check.trace_list([args.trace])[0]), "week")   # load outside the timing
    for o in args.optimisers.split(","):
        r = time_optimisation(args.trace, args.week, o.strip(), args.budget)
        print(f"{r['trace']} week {r['week']} {r['optimiser']}: {r['evaluations']} simulations in "
              f"{r['seconds']:.2f} s wall, {r['cpu_seconds']:.2f} s CPU "
              f"({1000 * r['seconds'] / max(r['evaluations'], 1):.2f} ms each); "
              f"average bsld {r['mean_bsld']:.3f}, w = {np.round(r['weights'], 3).tolist()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
