"""Parameters of the mixed-policies study: the thesis' protocol as defaults
(traces, weeks, months, training/testing split, thresholds), the choices
(optimisers, backfilling, periods), :class:`Params` and :func:`validate`."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ... import optim, paths, sim
from ... import traces as _traces
from ... import values as check
from ...errors import InputError

STUDY = "mixed"

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


def _per_trace(value, names: Sequence[str], what: str, default: Mapping[str, int],
               minimum: int = 1) -> dict[str, int | None]:
    """Per-trace counts from an int, "all"/None (every full period), or a
    mapping trace -> either (missing traces take ``default``, else all)."""
    def one(v, name):
        if v is None or (isinstance(v, str) and v.strip().lower() == "all"):
            return None
        return check.integer(v, f"{what}[{name}]" if name else what, minimum)

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


def _thr_label(t: int | None) -> str:
    return "none" if t is None else str(int(t))


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
                a, b, c, d = (check.integer(x, f"split[{k}]") for x in (a, b, c, d))
            except (TypeError, ValueError):
                raise InputError(f"split[{k}]: expected [[first, last], [first, last]], got {v!r}") from None
            if not (a <= b and c <= d):
                raise InputError(f"split[{k}]: each range must have first <= last, got {v!r}")
            split_[lower[str(k).lower()]] = ((a, b), (c, d))
    res = {k: check.integer(v, k) for k, v in (("grid_resolution", grid_resolution),
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
    weeks_list = check.as_list(map_weeks, "map_weeks")
    if not weeks_list:
        raise InputError(f"map_weeks: expected a list of week numbers, got {map_weeks!r}")
    map_weeks = tuple(check.integer(w, "map_weeks") for w in weeks_list)
    if isinstance(thresholds, (str, int)) or thresholds is None:
        thresholds = [thresholds]
    if not isinstance(thresholds, (list, tuple)) or not thresholds:
        raise InputError(f"thresholds: expected a list of durations (or None), got {thresholds!r}")
    thr = tuple(check.duration(t, "thresholds") for t in thresholds)
    if len(set(thr)) != len(thr):
        raise InputError(f"thresholds: duplicates in {list(thresholds)}")
    optimisers = check.as_list(optimisers, "optimisers")
    bad = [o for o in optimisers if o not in OPTIMISERS]
    if bad:
        raise InputError(f"optimisers: unknown {bad}; choose among {list(OPTIMISERS)}")
    if backfill not in BACKFILL_CHOICES:
        raise InputError(f"backfill: expected one of {BACKFILL_CHOICES}, got {backfill!r}")
    if workers is not None:
        workers = check.integer(workers, "workers")
    if scheduler is not None and not (isinstance(scheduler, str) and scheduler.strip()):
        raise InputError(f"scheduler: expected a dask scheduler address or None, got {scheduler!r}")
    cache_dir = check.directory(cache_dir, "cache_dir", None)
    return Params(infos, weeks_, months_, split_, res["grid_resolution"], res["threshold_resolution"],
                  res["month_resolution"], res["map_resolution"], map_trace, map_weeks, thr,
                  tuple(optimisers), check.integer(budget, "budget"),
                  check.number(sigma0, "sigma0", 0, low_open=True), check.number(penalty, "penalty", 0),
                  check.integer(patience, "patience"),
                  check.integer(seed, "seed", 0), backfill, workers, scheduler, cache_dir)


def validate_outdir(value) -> Path:
    """``None`` -> ``results/mixed``; otherwise the directory, made absolute."""
    return check.directory(value, "outdir", paths.RESULTS / STUDY)

