"""Study 5 -- runtime prediction for backfilling (gaussier2015).

Reproduces, from the logs of the Parallel Workloads Archive, the experiments
of gaussier2015 (:data:`GAUSSIER`): EASY-backfilling scheduled with four
kinds of runtime estimates,

* **clairvoyant** -- the actual runtime (an upper bound on what prediction can give);
* **requested** -- the user's requested time p~ (plain EASY);
* **EASY++** (AVE_2) -- the mean of the user's last two completed runtimes
  (Tsafrir et al.; computed in the C core);
* **learned** -- the online polynomial regression of gaussier2015 §4 under each
  of its 20 losses (:mod:`schedlab.prediction`; E-Loss among them), learned
  inside the simulation from the jobs completed so far (in the C core:
  :class:`schedlab.sim.Learned`, bit for bit the Python reference
  :class:`schedlab.prediction.LearnedEstimator`),

times the three corrections of an estimate that a running job outlives
(requested time, incremental, recursive doubling; gaussier2015 §5.2) times two
backfilling orders, EASY (EASY-FCFS-FCFS) and EASY-SJBF (EASY-FCFS-SJBF:
backfill the shortest estimate first).  One cell of that grid -- a *heuristic
triple* (prediction, correction, backfilling) on one log -- is one
simulation, run through :mod:`schedlab.campaign` (dask, cached): see
:func:`prediction_cell`.  From the grid the study computes

* **Table 1** -- EASY vs EASY-Clairvoyant (:func:`table1`);
* **Table 6** -- the AVEbsld of every approach, best and worst of the learned
  ones (:func:`table6`);
* **Table 7** -- the leave-one-log-out selection of the heuristic triple: on
  each log, the triple with the least sum of AVEbsld over the *other* logs
  (:func:`loo_selection`); also the paper's recommended triple (E-Loss,
  incremental, EASY-SJBF) on every log, and the Pearson correlations of the
  triples' AVEbsld between logs (§6.3.2);
* **Table 8** -- MAE and mean E-Loss of the EASY++ and E-Loss predictions
  (:func:`table8`);
* **Figs. 4-5** -- ECDFs of the prediction errors and of the predicted values
  (:func:`figure_errors`, :func:`figure_predicted`);
* and Table 4 (the logs) with our job counts, the AVEbsld of every triple
  relative to EASY (:func:`figure_triples`), and the cost of learning: the
  wall time of a learned-prediction simulation over a requested-time one, with
  the C estimator and with the Python reference (:func:`slowdowns`).

Definitions (the choices where the paper is terse are written here, once):

* **Logs and cleaning.** gaussier2015 §6.2 (Table 4) uses KTH-SP2, CTC-SP2,
  SDSC-SP2, SDSC-BLUE, Curie (CEA-Curie) and Metacentrum; it says nothing
  about cleaning, and its job counts are those of the whole PWA files.
  Metacentrum is not in the Parallel Workloads Archive's files we bundle: it
  is left out (the leave-one-log-out selection runs over five logs, not six).
  Every log goes through :func:`schedlab.workload.clean` with the project's
  defaults (jobs with p > p~ are kept and killed at p~ by the simulator, so
  no estimate is ever needed beyond p~); m from the registry (CEA-Curie: the
  80640 cores of its thin nodes, as the paper's Table 4).  ``weeks`` /
  ``skip_weeks`` / ``max_jobs`` cut a window of each log (the quick profile);
  by default the whole log.
* **AVEbsld** (§5.3): mean over the jobs of max((wait + d) / max(d, 10), 1),
  d the duration run (:func:`schedlab.metrics.bsld`).
* **EASY** = requested / FCFS backfilling; **EASY++** = AVE_2 / incremental /
  SJBF (gaussier2015 §6.2); **clairvoyant** and **requested** estimates are
  never outlived, so the correction changes nothing for them (the grid
  computes them for every correction; the tables use the incremental one).
* **Learning columns of Table 6**: best and worst AVEbsld over the learned
  predictions (20 losses) x the 3 corrections, per backfilling order.
* **Selection** (§6.3.3): the candidate triples are every non-clairvoyant
  (prediction, correction, backfilling) of the grid; the one with the least
  sum of AVEbsld over the other logs is evaluated on the held-out log; ties
  go to the first in grid order.  The *reduction* of a triple is 100 x (1 -
  AVEbsld / AVEbsld of EASY), in %.  Means of reductions are plain means over
  the logs.  (The paper's summary "28 % vs EASY, 11 % vs EASY++" is not the
  mean of its Table 7's reductions, which is 37 % and 21 %; both readings are
  given.)
* **Prediction quality** (Table 8, Figs. 4-5): the estimate each job got at
  submission (``Schedule.predicted``: rounded, within [1, p~]) against the
  duration it ran; error = estimate - duration (> 0: over-prediction).  The
  paper does not say on which log or run its Table 8 is measured: we give it
  per log for the EASY-SJBF / incremental runs (our MAE of AVE_2 on KTH-SP2
  matches the paper's to 0.1 %, which suggests its table is KTH-SP2's).
* **Cost of learning**: the wall time of each cell's simulation
  (``simulation_time``); the slowdown of a log is the mean time of its
  learned-prediction cells (C estimator) over the mean time of its
  requested-time cells.  A second, small campaign (:func:`make_timing_campaign`)
  runs one learned triple per log -- E-Loss, the reference correction
  (incremental), EASY-SJBF -- with each engine (``c``, ``python``: the
  reference estimator called back by the C core): its Python time over the
  requested-time mean is the slowdown the Python reference would cost, its
  Python time over its C time the speed-up of the C estimator.  The two
  engines' cells must agree on everything but the wall time (checked:
  ``engines_identical``).

The notebook ``notebooks/06-runtime-prediction.ipynb`` validates its
parameters (:func:`validate`) and calls :func:`run`.
"""
from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ... import __version__, campaign, paths, plots, prediction, sim, workload
from ... import traces as _traces
from ...errors import InputError
from .. import Table, write_json
from ... import values as check


__all__ = [
    "GAUSSIER", "PUBLISHED", "PUBLISHED_NAMES", "DEFAULT_TRACES", "LACKING", "CORRECTIONS", "BACKFILLS",
    "BASE_ESTIMATES", "Params", "validate", "estimate_labels", "learned_label", "triple_label",
    "load_jobs", "prediction_cell", "make_campaign", "table4", "table1", "table6", "loo_selection",
    "table7", "table_selected", "correlations", "table8", "slowdowns", "make_timing_campaign",
    "engines_identical", "figure_errors", "figure_predicted",
    "figure_triples", "numbers", "run",
]

STUDY = "prediction"

# ----------------------------------------------------------------- sources --

GAUSSIER = ("gaussier2015: E. Gaussier, D. Glesser, V. Reis, D. Trystram, Improving Backfilling by "
            "using Machine Learning to predict Running Times, SC'15, 2015, doi:10.1145/2807591.2807646")

#: gaussier2015's log names, keyed by our registry names.
PUBLISHED_NAMES = {"KTH-SP2": "KTH-SP2", "CTC-SP2": "CTC-SP2", "SDSC-SP2": "SDSC-SP2",
                   "SDSC-BLUE": "SDSC-BLUE", "CEA-Curie": "Curie", "Metacentrum": "Metacentrum"}

#: Values published in gaussier2015, keyed by our registry names (Metacentrum
#: is not bundled; it is quoted for completeness).
PUBLISHED: dict[str, Any] = {
    # Table 4 "Workload logs used in the simulations": (year, CPUs, jobs (thousands), months)
    "table4": {
        "KTH-SP2": (1996, 100, 28, 11), "CTC-SP2": (1996, 338, 77, 11), "SDSC-SP2": (2000, 128, 59, 24),
        "SDSC-BLUE": (2003, 1152, 243, 32), "CEA-Curie": (2012, 80640, 312, 3),
        "Metacentrum": (2013, 3356, 495, 6),
    },
    # Table 1: AVEbsld of EASY (requested times) and EASY-Clairvoyant (decrease in %)
    "table1": {
        "KTH-SP2": (92.6, 71.7, 22), "CTC-SP2": (49.6, 37.2, 25), "SDSC-SP2": (87.9, 70.5, 19),
        "SDSC-BLUE": (36.5, 30.6, 16), "CEA-Curie": (202.1, 69.9, 65), "Metacentrum": (97.6, 81.7, 16),
    },
    # Table 6: clairvoyant FCFS, clairvoyant SJBF, EASY, EASY++,
    # learning FCFS (best, worst), learning SJBF (best, worst)
    "table6": {
        "KTH-SP2": (71.7, 49.8, 92.6, 63.5, 62.6, 93.2, 51.4, 74.5),
        "CTC-SP2": (37.2, 17.6, 49.6, 85.8, 25.5, 163.5, 16.3, 134.7),
        "SDSC-SP2": (70.5, 56.8, 87.9, 79.4, 70.9, 102.3, 69.7, 194.8),
        "SDSC-BLUE": (30.6, 13.2, 36.5, 21.0, 16.5, 48.0, 12.6, 47.8),
        "CEA-Curie": (69.9, 12.1, 202.1, 193.5, 26.3, 9348.8, 24.3, 4010.0),
        "Metacentrum": (81.7, 67.2, 97.6, 87.2, 86.3, 98.1, 81.5, 89.8),
    },
    # Table 7: C-V heuristic triple (reduction % vs EASY), EASY, EASY++ (reduction %)
    "table7": {
        "KTH-SP2": (51.4, 44, 92.6, 63.5, 31), "CTC-SP2": (20.5, 59, 49.6, 85.8, -72),
        "SDSC-SP2": (75.0, 15, 87.9, 79.4, 10), "SDSC-BLUE": (34.7, 5, 36.5, 21.0, 42),
        "CEA-Curie": (27.9, 86, 202.1, 193.5, 4), "Metacentrum": (84.2, 14, 97.6, 87.2, 11),
    },
    # §6.3.4: "an average AVEbsld reduction of 28% compared to EASY and 11%
    # compared to EASY++"; §6.3.2: Pearson correlation between logs, mean 0.26 (min 0.01, max 0.80)
    "summary": {"reduction_vs_easy_pct": 28.0, "reduction_vs_easypp_pct": 11.0,
                "correlation_mean": 0.26, "correlation_min": 0.01, "correlation_max": 0.80},
    # Table 8: MAE and mean E-Loss (the paper: "all values are in seconds")
    "table8": {"easy++": (5217.0, 10.2e8), "E-Loss": (6762.0, 2.35e5)},
    # §6.3.3: the triple selected on every log (SDSC-SP2: requested-time correction instead)
    "selected": "E-Loss / incremental / EASY-SJBF",
}

#: The five bundled logs of gaussier2015 (Table 4 without Metacentrum).
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")
#: Logs of the paper that we do not have.
LACKING: tuple[str, ...] = ("Metacentrum",)
#: Correction mechanisms of gaussier2015 §5.2 (names of ``schedlab.sim``).
CORRECTIONS: tuple[str, ...] = ("requested", "incremental", "doubling")
#: Backfilling orders: FCFS (EASY) and SJBF (EASY-SJBF), the primary queue is FCFS.
BACKFILLS: tuple[str, ...] = ("FCFS", "SJBF")
#: Non-learned estimates: label -> ``estimate=`` of :func:`schedlab.sim.simulate`.
BASE_ESTIMATES: dict[str, str] = {"clairvoyant": "actual", "requested": "requested", "easy++": "easy++"}
LEARNED = "learned:"

WEEK = workload.WEEK
#: Quantile levels of the prediction errors and predicted values stored per cell.
N_LEVELS = 201


def learned_label(loss) -> str:
    return LEARNED + prediction.Loss.parse(loss).name


def estimate_labels(losses: Sequence) -> list[str]:
    """The ``estimate`` labels of the grid: clairvoyant, requested, easy++, learned:<loss>..."""
    return list(BASE_ESTIMATES) + [learned_label(x) for x in losses]


def _short(estimate: str) -> str:
    """Readable name of an estimate label (E-Loss and squared named)."""
    if estimate.startswith(LEARNED):
        loss = prediction.Loss.parse(estimate[len(LEARNED):])
        return loss.label if loss.label != loss.name else loss.name
    return {"easy++": "EASY++ (AVE2)", "requested": "requested", "clairvoyant": "clairvoyant"}[estimate]


def triple_label(estimate: str, correction: str, backfill: str) -> str:
    """``prediction / correction / EASY or EASY-SJBF``."""
    return f"{_short(estimate)} / {correction} / {'EASY' if backfill == 'FCFS' else 'EASY-' + backfill}"


# -------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params:
    """Validated parameters of the study (see :func:`validate`)."""

    traces: tuple[str, ...]            # specs the cells load (registry names or absolute paths)
    names: tuple[str, ...]             # the names tables use
    losses: tuple[prediction.Loss, ...]
    corrections: tuple[str, ...]
    backfills: tuple[str, ...]
    weeks: int | None
    skip_weeks: int
    max_jobs: int | None
    eta: float
    lam: float
    overrun: str
    workers: int
    outdir: Path
    cache_dir: Path

    @property
    def estimates(self) -> list[str]:
        return estimate_labels(self.losses)

    def as_dict(self) -> dict[str, Any]:
        return {"traces": list(self.names), "losses": [x.name for x in self.losses],
                "corrections": list(self.corrections), "backfills": list(self.backfills),
                "weeks": self.weeks, "skip_weeks": self.skip_weeks, "max_jobs": self.max_jobs,
                "eta": self.eta, "lam": self.lam, "overrun": self.overrun, "workers": self.workers,
                "outdir": str(self.outdir), "cache_dir": str(self.cache_dir)}


#: Words meaning "no limit" for weeks and max_jobs.
_NONE = ("", "none", "null", "all")


def validate(traces=DEFAULT_TRACES, losses="all", corrections=CORRECTIONS, backfills=BACKFILLS, weeks=None,
             skip_weeks=0, max_jobs=None, eta=prediction.DEFAULT_ETA, lam=prediction.DEFAULT_LAM,
             overrun="kill", workers=2, outdir=None, cache_dir=None) -> Params:
    """Check every parameter; raise :class:`InputError` saying what is wrong.
    Lists may be lists, YAML list text or comma-separated strings.

    * ``traces``: registry names or SWF paths (default: gaussier2015's five bundled logs);
    * ``losses``: ``"all"`` (the 20 of :data:`schedlab.prediction.LOSSES`) or
      names (``"E-Loss"``, ``"sq/lin/log(qp)"``, ...);
    * ``corrections``: some of requested, incremental, doubling;
    * ``backfills``: some of FCFS (EASY), SJBF (EASY-SJBF);
    * ``weeks`` (None: to the end), ``skip_weeks``, ``max_jobs`` (None: all):
      the window of each log simulated -- the jobs submitted from
      ``skip_weeks`` weeks after the first submission, for ``weeks`` weeks, at
      most the first ``max_jobs`` of them;
    * ``eta``, ``lam``: NAG's learning rate (s) and the L2 penalty;
    * ``overrun``: cleaning of jobs with p > p~ (``kill``: kept, killed at p~);
    * ``workers`` (local dask workers), ``outdir`` (None: results/prediction),
      ``cache_dir`` (None: results/cache).
    """
    infos = check.trace_list(traces)
    specs = tuple(i.name if i.registered else str(Path(i.path).resolve()) for i in infos)
    names = tuple(i.name for i in infos)
    if isinstance(losses, str) and losses.strip().lower() == "all":
        ls = prediction.LOSSES
    else:
        items = check.as_list(losses, "losses")
        ls = []
        for i, x in enumerate(items):
            try:
                loss = prediction.Loss.parse(x)
            except InputError as exc:
                raise InputError(f"losses[{i}]: {exc}") from None
            if loss in ls:
                raise InputError(f"losses: {loss.name} is given twice")
            ls.append(loss)
        ls = tuple(ls)
    cs = tuple(check.as_list(corrections, "corrections"))
    if not cs:
        raise InputError(f"corrections: give at least one of {CORRECTIONS}")
    for c in cs:
        if c not in CORRECTIONS:
            raise InputError(f"corrections: {c!r} is not one of {CORRECTIONS}")
    if len(set(cs)) != len(cs):
        raise InputError("corrections: a correction is given twice")
    bs = tuple(str(b).upper() for b in check.as_list(backfills, "backfills"))
    if not bs:
        raise InputError(f"backfills: give at least one of {BACKFILLS}")
    for b in bs:
        if b not in BACKFILLS:
            raise InputError(f"backfills: {b!r} is not one of {BACKFILLS}")
    if len(set(bs)) != len(bs):
        raise InputError("backfills: a backfilling order is given twice")
    if overrun not in workload.OVERRUN_CHOICES:
        raise InputError(f"overrun: expected one of {workload.OVERRUN_CHOICES}, got {overrun!r}")
    return Params(
        traces=specs, names=names, losses=tuple(ls), corrections=cs, backfills=bs,
        weeks=check.optional_integer(weeks, "weeks", 1, none_words=_NONE), skip_weeks=check.integer(skip_weeks, "skip_weeks", 0),
        max_jobs=check.optional_integer(max_jobs, "max_jobs", 1, none_words=_NONE), eta=check.number(eta, "eta", 0.0, low_open=True),
        lam=check.number(lam, "lam", 0.0), overrun=overrun, workers=check.integer(workers, "workers", 1),
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"))


# ------------------------------------------------------------------- cells --

@functools.lru_cache(maxsize=8)
def _cleaned(trace: str, overrun: str) -> tuple[sim.Jobs, int, int, int | None]:
    """(cleaned jobs, m, jobs in the file, UnixStartTime) of a log; cached per process."""
    info = _traces.resolve(trace)
    swf = _traces.load(info)
    m = info.m if info.m is not None else swf.max_procs
    if m is None:
        raise InputError(f"{info.path}: the header gives no machine size (MaxProcs)")
    jobs, _ = workload.clean(swf, m=int(m), overrun=overrun)
    return jobs, int(m), swf.n, swf.unix_start_time


@functools.lru_cache(maxsize=16)
def load_jobs(trace: str, weeks: int | None, skip_weeks: int, max_jobs: int | None,
              overrun: str = "kill") -> tuple[sim.Jobs, int]:
    """The cleaned jobs of a log (or of its window) and m; cached per process."""
    jobs, m, _, _ = _cleaned(trace, overrun)
    if len(jobs) and (weeks is not None or skip_weeks):
        t0 = int(jobs.submit[0]) + skip_weeks * WEEK
        keep = jobs.submit >= t0
        if weeks is not None:
            keep &= jobs.submit < t0 + weeks * WEEK
        jobs = jobs.subset(keep)
    if max_jobs is not None and len(jobs) > max_jobs:
        jobs = jobs.subset(np.arange(max_jobs))
    return jobs, m


CELL_PARAMS = {"trace": None, "weeks": None, "skip_weeks": 0, "max_jobs": None, "overrun": "kill",
               "backfill": "FCFS", "estimate": "requested", "correction": "incremental",
               "eta": prediction.DEFAULT_ETA, "lam": prediction.DEFAULT_LAM, "levels": N_LEVELS,
               "version": prediction.VERSION, "engine": "c"}


def _quantiles(x: np.ndarray, levels: int) -> np.ndarray:
    if x.size == 0:
        return np.full(levels, np.nan)
    return np.quantile(x, np.linspace(0.0, 1.0, levels))


@campaign.register_cell("prediction")
def prediction_cell(p: dict) -> dict:
    """Campaign cell: one heuristic triple (``estimate``, ``correction``,
    ``backfill``) on one log: EASY-FCFS-<backfill> with that estimate
    (learned ones with ``engine`` "c", the default, or "python").
    Returns the schedule's summary metrics, the quality of the estimates at
    submission (MAE, mean E-Loss, share under-predicted, quantiles of the
    errors and of the estimates over ``quantile``) and the simulation's wall
    time."""
    unknown = set(p) - set(CELL_PARAMS)
    if unknown:
        raise InputError(f"prediction cell: unknown parameter(s) {sorted(unknown)}; known: {sorted(CELL_PARAMS)}")
    q = {**CELL_PARAMS, **p}
    if q["trace"] is None:
        raise InputError("prediction cell: a 'trace' parameter is required")
    jobs, m = load_jobs(str(q["trace"]), None if q["weeks"] is None else int(q["weeks"]), int(q["skip_weeks"]),
                        None if q["max_jobs"] is None else int(q["max_jobs"]), str(q["overrun"]))
    policy = sim.Policy("FCFS", str(q["backfill"]))
    est = str(q["estimate"])
    engine = str(q["engine"])
    if engine not in prediction.ENGINES:
        raise InputError(f"prediction cell: engine must be one of {prediction.ENGINES}, got {engine!r}")
    t0 = time.perf_counter()
    if est.startswith(LEARNED):
        s, _ = prediction.simulate_learned(jobs, m, policy, est[len(LEARNED):], str(q["correction"]),
                                           float(q["eta"]), float(q["lam"]), overrun="kill", engine=engine)
    elif est in BASE_ESTIMATES:
        s = sim.simulate(jobs, m, policy, estimate=BASE_ESTIMATES[est], correction=str(q["correction"]))
    else:
        raise InputError(f"prediction cell: unknown estimate {est!r}; expected one of {list(BASE_ESTIMATES)} "
                         f"or '{LEARNED}<loss>'")
    wall = time.perf_counter() - t0
    summ = s.summary()
    ok = s.start >= 0
    d = (s.end - s.start)[ok].astype(np.float64)
    e = s.predicted[ok].astype(np.float64)
    qual = prediction.quality(e, d, jobs.procs[ok])
    levels = int(q["levels"])
    out = {k: ((), summ[k]) for k in ("mean_bsld", "avg_wait", "max_wait", "max_bsld", "utilisation",
                                      "jobs", "backfilled", "killed")}
    out.update({
        "mae": ((), qual["mae"]),
        "mean_eloss": ((), qual[f"mean_loss:{prediction.E_LOSS.name}"]),
        "underpredicted": ((), qual["under_share"]),
        "error_quantiles": (("quantile",), _quantiles(e - d, levels)),
        "predicted_quantiles": (("quantile",), _quantiles(e, levels)),
        "simulation_time": ((), wall),
    })
    return out


def make_campaign(p: Params) -> campaign.Campaign:
    """The grid of the study: trace x backfill x estimate x correction."""
    return campaign.Campaign(
        "prediction",
        {"trace": list(p.traces), "backfill": list(p.backfills), "estimate": p.estimates,
         "correction": list(p.corrections)},
        {"weeks": p.weeks, "skip_weeks": p.skip_weeks, "max_jobs": p.max_jobs, "overrun": p.overrun,
         "eta": p.eta, "lam": p.lam, "levels": N_LEVELS, "version": prediction.VERSION},
        cell="schedlab.studies.prediction:prediction_cell")


#: The learned triple the timing campaign runs with each engine (the paper's recommended one).
TIMING_ESTIMATE = LEARNED + prediction.E_LOSS.name


def _timing_triple(p: Params) -> tuple[str, str]:
    """(correction, backfill) of the timing campaign: incremental / SJBF if in the grid."""
    c = "incremental" if "incremental" in p.corrections else p.corrections[0]
    b = "SJBF" if "SJBF" in p.backfills else p.backfills[0]
    return c, b


def make_timing_campaign(p: Params) -> campaign.Campaign:
    """The cost of learning with each engine: E-Loss / incremental /
    EASY-SJBF (or the grid's first correction and backfilling order) on every
    log, with the C estimator and with the Python reference."""
    c, b = _timing_triple(p)
    return campaign.Campaign(
        "prediction-timing",
        {"trace": list(p.traces), "engine": list(prediction.ENGINES)},
        {"weeks": p.weeks, "skip_weeks": p.skip_weeks, "max_jobs": p.max_jobs, "overrun": p.overrun,
         "estimate": TIMING_ESTIMATE, "correction": c, "backfill": b,
         "eta": p.eta, "lam": p.lam, "levels": N_LEVELS, "version": prediction.VERSION},
        cell="schedlab.studies.prediction:prediction_cell")


def engines_identical(timing) -> bool:
    """Do the timing campaign's two engines agree on every output but the
    wall time (every metric, every quantile of the errors and estimates)?"""
    if timing is None or "engine" not in timing.dims:
        return False
    ref = timing.sel(engine=prediction.ENGINES[0])
    for name, var in timing.data_vars.items():
        if name == "simulation_time":
            continue
        for e in prediction.ENGINES[1:]:
            if not np.array_equal(var.sel(engine=e).values, ref[name].values, equal_nan=True):
                return False
    return True


def _label_dataset(ds, p: Params):
    """Readable trace names, quantile levels and coordinate attributes."""
    ds = ds.assign_coords(trace=list(p.names), quantile=np.linspace(0.0, 1.0, N_LEVELS))
    ds["quantile"].attrs = {"long_name": "quantile level (fraction of the jobs)", "units": "1"}
    ds["estimate"].attrs = {"long_name": "runtime estimate: clairvoyant, requested, easy++ (AVE2) or "
                                         "learned:<over>/<under>/<weight> (gaussier2015 §4.2)"}
    ds["correction"].attrs = {"long_name": "correction of an outlived estimate (gaussier2015 §5.2)"}
    ds["backfill"].attrs = {"long_name": "backfilling queue order (primary: FCFS); SJBF = shortest estimate first"}
    return ds


# ---------------------------------------------------------------- analyses --

def _v(ds, var: str, trace: str, backfill: str, estimate: str, correction: str) -> float:
    try:
        return float(ds[var].sel(trace=trace, backfill=backfill, estimate=estimate, correction=correction))
    except KeyError:
        return float("nan")


def _ref_correction(ds) -> str:
    cs = [str(c) for c in ds.correction.values]
    return "incremental" if "incremental" in cs else cs[0]


def _pct(x: float, base: float) -> float:
    return 100.0 * (1.0 - x / base) if base and math.isfinite(base) and math.isfinite(x) else float("nan")


def _pub(table: str, name: str):
    return PUBLISHED[table].get(name)


def easy(ds, trace: str) -> float:
    return _v(ds, "mean_bsld", trace, "FCFS", "requested", _ref_correction(ds))


def easypp(ds, trace: str) -> float:
    return _v(ds, "mean_bsld", trace, "SJBF", "easy++", "incremental")


def table4(rows: Sequence[dict]) -> Table:
    """gaussier2015 Table 4 (the logs) beside ours."""
    out = []
    for r in rows:
        pub = _pub("table4", r["trace"]) or (None, None, None, None)
        out.append([r["trace"], pub[0], r["year"], pub[1], r["m"], pub[2], r["jobs_in_file"], r["jobs"],
                    r["jobs_simulated"], pub[3], r["months"]])
    for name in LACKING:
        pub = PUBLISHED["table4"][name]
        out.append([name, pub[0], None, pub[1], None, pub[2], None, None, None, pub[3], None])
    return Table(["log", "year (paper)", "year", "CPUs (paper)", "m", "jobs (paper, k)", "jobs in file",
                  "jobs cleaned", "jobs simulated", "months (paper)", "months simulated"], out,
                 title="The logs (gaussier2015 Table 4)", digits={"months simulated": 1},
                 notes=["jobs simulated: the window of the log of this run (the whole cleaned log in "
                        "the full profile); months: first to last submission of those jobs.",
                        "Metacentrum is not bundled: it is left out of every table.", GAUSSIER])


def table1(ds) -> Table:
    """Table 1: EASY vs EASY-Clairvoyant (FCFS backfilling)."""
    rows = []
    c = _ref_correction(ds)
    for t in [str(x) for x in ds.trace.values]:
        pub = _pub("table1", t) or (None, None, None)
        e = _v(ds, "mean_bsld", t, "FCFS", "requested", c)
        cl = _v(ds, "mean_bsld", t, "FCFS", "clairvoyant", c)
        rows.append([t, pub[0], e, pub[1], cl, pub[2], _pct(cl, e)])
    return Table(["log", "EASY (paper)", "EASY", "clairvoyant (paper)", "clairvoyant", "decrease % (paper)",
                  "decrease %"], rows, title="AVEbsld of EASY and EASY-Clairvoyant (gaussier2015 Table 1)",
                 digits={"decrease %": 0},
                 notes=["EASY: requested times; clairvoyant: actual runtimes; both EASY-FCFS-FCFS.",
                        "decrease: 100 x (1 - clairvoyant / EASY)."])


T6_ROWS = ("clairvoyant FCFS", "clairvoyant SJBF", "EASY", "EASY++", "learning FCFS best",
           "learning FCFS worst", "learning SJBF best", "learning SJBF worst")


def _learned(ds) -> list[str]:
    return [str(e) for e in ds.estimate.values if str(e).startswith(LEARNED)]


def table6_values(ds, trace: str) -> dict[str, float]:
    c = _ref_correction(ds)
    out = {"clairvoyant FCFS": _v(ds, "mean_bsld", trace, "FCFS", "clairvoyant", c),
           "clairvoyant SJBF": _v(ds, "mean_bsld", trace, "SJBF", "clairvoyant", c),
           "EASY": easy(ds, trace), "EASY++": easypp(ds, trace)}
    learned = _learned(ds)
    for b in ("FCFS", "SJBF"):
        if learned and b in [str(x) for x in ds.backfill.values]:
            v = ds.mean_bsld.sel(trace=trace, backfill=b, estimate=learned).values
            out[f"learning {b} best"] = float(np.nanmin(v))
            out[f"learning {b} worst"] = float(np.nanmax(v))
        else:
            out[f"learning {b} best"] = out[f"learning {b} worst"] = float("nan")
    return out


def table6(ds) -> Table:
    """Table 6, one row per approach, paper and ours side by side per log."""
    traces = [str(x) for x in ds.trace.values]
    vals = {t: table6_values(ds, t) for t in traces}
    cols = ["approach"]
    for t in traces:
        cols += [f"{t} (paper)", t]
    rows = []
    for i, key in enumerate(T6_ROWS):
        row: list[Any] = [key]
        for t in traces:
            pub = _pub("table6", t)
            row += [pub[i] if pub else None, vals[t][key]]
        rows.append(row)
    return Table(cols, rows, title="AVEbsld of each approach (gaussier2015 Table 6)", default_digits=1,
                 notes=["EASY: requested / FCFS backfilling; EASY++: AVE2 / incremental / SJBF; clairvoyant: "
                        "actual runtimes.",
                        "learning: best and worst over the learned predictions (losses) x the corrections, "
                        "per backfilling order."])


def _candidates(ds) -> list[tuple[str, str, str]]:
    """Every non-clairvoyant (estimate, correction, backfill) of the grid, in grid order."""
    return [(str(e), str(c), str(b)) for b in ds.backfill.values for e in ds.estimate.values
            for c in ds.correction.values if str(e) != "clairvoyant"]


def _matrix(ds, cands) -> np.ndarray:
    """AVEbsld of each candidate triple (rows) on each log (columns)."""
    return np.array([[_v(ds, "mean_bsld", t, b, e, c) for t in ds.trace.values] for e, c, b in cands])


@dataclass
class Selection:
    """The leave-one-log-out selection on one log."""

    trace: str
    triple: tuple[str, str, str]
    value: float
    easy: float
    easypp: float
    eloss: float          # the paper's recommended triple (E-Loss / incremental / SJBF)
    best: tuple[str, str, str]
    best_value: float

    @property
    def label(self) -> str:
        return triple_label(*self.triple)


def loo_selection(ds) -> tuple[list[Selection], tuple[str, str, str] | None]:
    """gaussier2015 §6.3.3: for each log, the triple with the least sum of
    AVEbsld over the other logs, evaluated on it.  Also returns the triple
    selected on all the logs together."""
    traces = [str(x) for x in ds.trace.values]
    cands = _candidates(ds)
    M = _matrix(ds, cands)
    out = []
    eloss = learned_label(prediction.E_LOSS)
    for j, t in enumerate(traces):
        own = M[:, j]
        if len(traces) > 1:
            others = np.delete(M, j, axis=1)
            score = np.where(np.all(np.isfinite(others), axis=1), others.sum(axis=1), np.inf)
        else:
            score = np.where(np.isfinite(own), own, np.inf)
        k = int(np.argmin(score))
        kb = int(np.nanargmin(np.where(np.isfinite(own), own, np.inf)))
        out.append(Selection(t, cands[k], float(own[k]), easy(ds, t), easypp(ds, t),
                             _v(ds, "mean_bsld", t, "SJBF", eloss, "incremental"), cands[kb], float(own[kb])))
    total = np.where(np.all(np.isfinite(M), axis=1), M.sum(axis=1), np.inf)
    overall = cands[int(np.argmin(total))] if len(cands) and np.isfinite(total).any() else None
    return out, overall


def table7(sel: Sequence[Selection]) -> Table:
    """Table 7 beside ours, with the paper's E-Loss triple (the selected
    triples themselves: :func:`table_selected`)."""
    rows = []
    for s in sel:
        pub = _pub("table7", s.trace) or (None,) * 5
        rows.append([s.trace, pub[0], s.value, pub[1], _pct(s.value, s.easy), pub[2], s.easy,
                     pub[3], s.easypp, pub[4], _pct(s.easypp, s.easy), s.eloss, _pct(s.eloss, s.easy)])
    return Table(["log", "C-V (paper)", "C-V", "C-V red. % (paper)", "C-V red. %", "EASY (paper)",
                  "EASY", "EASY++ (paper)", "EASY++", "EASY++ red. % (paper)", "EASY++ red. %",
                  "E-Loss triple", "E-Loss triple red. %"], rows,
                 title="Leave-one-log-out selection of the heuristic triple (gaussier2015 Table 7)",
                 default_digits=1, digits={"C-V red. %": 0, "EASY++ red. %": 0, "E-Loss triple red. %": 0},
                 notes=["C-V: AVEbsld of the (prediction, correction, backfilling) triple with the least sum of "
                        "AVEbsld on the other logs, evaluated on this one (the triples: see the selection table).",
                        "red.: AVEbsld reduction relative to EASY, 100 x (1 - AVEbsld / EASY's).",
                        "E-Loss triple: the paper's recommended triple, E-Loss / incremental / EASY-SJBF.",
                        "The paper selects among six logs (with Metacentrum); we have five."])


def table_selected(sel: Sequence[Selection], overall) -> Table:
    """The triple selected for each log, and each log's best one in hindsight."""
    rows = [[s.trace, s.label, s.value, triple_label(*s.best), s.best_value] for s in sel]
    if overall is not None:
        rows.append(["(all logs)", triple_label(*overall), None, None, None])
    return Table(["log", "C-V triple (selected on the other logs)", "C-V", "best triple on the log", "best"],
                 rows, title="Selected triples (gaussier2015 §6.3.3)", default_digits=1,
                 notes=["triple: prediction / correction / backfilling; the paper selects E-Loss / incremental / "
                        "EASY-SJBF on every log but SDSC-SP2 (requested-time correction there).",
                        "(all logs): the triple with the least sum of AVEbsld over every log."])


def correlations(ds) -> dict[str, Any]:
    """Pearson correlation of the non-clairvoyant triples' AVEbsld between
    every pair of logs (gaussier2015 §6.3.2)."""
    traces = [str(x) for x in ds.trace.values]
    M = _matrix(ds, _candidates(ds))
    pairs = {}
    for i in range(len(traces)):
        for j in range(i + 1, len(traces)):
            x, y = M[:, i], M[:, j]
            ok = np.isfinite(x) & np.isfinite(y)
            r = float(np.corrcoef(x[ok], y[ok])[0, 1]) if ok.sum() > 2 and x[ok].std() > 0 and y[ok].std() > 0 \
                else float("nan")
            pairs[f"{traces[i]} / {traces[j]}"] = r
    v = np.array([x for x in pairs.values() if math.isfinite(x)])
    return {"pairs": pairs, "mean": float(v.mean()) if v.size else float("nan"),
            "min": float(v.min()) if v.size else float("nan"), "max": float(v.max()) if v.size else float("nan")}


def table_correlations(corr: dict[str, Any]) -> Table:
    pub = PUBLISHED["summary"]
    rows = [[k, v] for k, v in corr["pairs"].items()]
    rows += [["mean (paper: {:.2f})".format(pub["correlation_mean"]), corr["mean"]],
             ["min (paper: {:.2f})".format(pub["correlation_min"]), corr["min"]],
             ["max (paper: {:.2f})".format(pub["correlation_max"]), corr["max"]]]
    return Table(["pair of logs", "Pearson r"], rows, title="Correlation of the triples' AVEbsld between logs "
                 "(gaussier2015 §6.3.2)",
                 notes=["over every non-clairvoyant triple of the grid; the paper's values are over six logs."])


T8_ESTIMATES = ("requested", "easy++", "learned:" + prediction.E_LOSS.name, "learned:" + prediction.SQUARED_LOSS.name)


def table8(ds) -> Table:
    """Table 8: MAE and mean E-Loss of the predictions (EASY-SJBF, incremental runs)."""
    rows = []
    traces = [str(x) for x in ds.trace.values]
    b = "SJBF" if "SJBF" in [str(x) for x in ds.backfill.values] else str(ds.backfill.values[0])
    c = _ref_correction(ds)
    pubs = {"easy++": PUBLISHED["table8"]["easy++"],
            "learned:" + prediction.E_LOSS.name: PUBLISHED["table8"]["E-Loss"]}
    for e in T8_ESTIMATES:
        if e not in [str(x) for x in ds.estimate.values]:
            continue
        pub = pubs.get(e, (None, None))
        maes = [_v(ds, "mae", t, b, e, c) for t in traces]
        els = [_v(ds, "mean_eloss", t, b, e, c) for t in traces]
        unders = [_v(ds, "underpredicted", t, b, e, c) for t in traces]
        for t, mae, el, u in zip(traces, maes, els, unders):
            rows.append([_short(e), t, pub[0], mae, pub[1], el, 100.0 * u])
        rows.append([_short(e), "mean over the logs", pub[0], float(np.nanmean(maes)), pub[1],
                     float(np.nanmean(els)), 100.0 * float(np.nanmean(unders))])
    return Table(["prediction", "log", "MAE (paper, s)", "MAE (s)", "mean E-Loss (paper)", "mean E-Loss",
                  "under-predicted %"], rows,
                 title="Prediction errors: MAE and mean E-Loss (gaussier2015 Table 8)", default_digits=0,
                 digits={"under-predicted %": 1},
                 notes=[f"the estimates each job got at submission in the EASY-{b} / {c} runs, against the "
                        "duration it ran.",
                        "E-Loss: log(q p) (e - p)^2 if e >= p, log(q p) (p - e) otherwise (gaussier2015 Eq. 3).",
                        "The paper does not say which log its Table 8 is measured on."])


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 and math.isfinite(a) else float("nan")


def slowdowns(ds, timing=None) -> dict[str, Any]:
    """Wall time of the learned-prediction simulations over the requested-time
    ones.  Per log: ``ratio``, the mean time of a learned cell of the grid
    (C estimator) over the mean time of a requested-time cell; with
    ``timing`` (:func:`make_timing_campaign`'s dataset, trace x engine):
    ``c_s`` and ``python_s``, the time of its learned triple with each
    engine, ``ratio_python`` = ``python_s`` over the requested-time mean and
    ``speedup`` = ``python_s`` / ``c_s``.  ``overall``, ``overall_python``
    and ``overall_speedup``: the same over all logs (times summed over the
    logs: mean learned cells, requested cells, each engine's runs)."""
    out: dict[str, Any] = {}
    nan = float("nan")
    learned = _learned(ds)
    if not learned or "requested" not in [str(x) for x in ds.estimate.values]:
        return {"per_trace": {}, "overall": nan, "overall_python": nan, "overall_speedup": nan}
    st = ds.simulation_time
    have = timing is not None and "engine" in timing.dims
    tracesT = [str(x) for x in timing.trace.values] if have else []
    tot_r = tot_l = tot_c = tot_p = tot_rt = 0.0
    for t in ds.trace.values:
        req = float(st.sel(trace=t, estimate="requested").mean())   # over backfill x correction
        lrn = float(st.sel(trace=t, estimate=learned).mean())        # over backfill x estimate x correction
        row = {"ratio": _ratio(lrn, req), "requested_s": req, "learned_s": lrn,
               "jobs": int(ds.jobs.sel(trace=t, estimate="requested").values.ravel()[0]),
               "c_s": nan, "python_s": nan, "ratio_python": nan, "speedup": nan}
        tot_r += req
        tot_l += lrn
        if str(t) in tracesT:
            ts = timing.simulation_time.sel(trace=str(t))
            c, py = float(ts.sel(engine="c")), float(ts.sel(engine="python"))
            row.update({"c_s": c, "python_s": py, "ratio_python": _ratio(py, req), "speedup": _ratio(py, c)})
            tot_c += c
            tot_p += py
            tot_rt += req
        out[str(t)] = row
    return {"per_trace": out, "overall": _ratio(tot_l, tot_r),
            "overall_python": _ratio(tot_p, tot_rt) if tracesT else nan,
            "overall_speedup": _ratio(tot_p, tot_c) if tracesT else nan}


def table_slowdown(sd: dict[str, Any]) -> Table:
    per = sd["per_trace"]

    def us(s, v):
        return 1e6 * s / v["jobs"] if v["jobs"] > 0 and math.isfinite(s) else None
    rows = [[t, v["jobs"], v["requested_s"], v["learned_s"], v["ratio"], v["python_s"], v.get("ratio_python"),
             v["speedup"], us(v["learned_s"], v), us(v["python_s"], v)] for t, v in per.items()]
    rows.append(["all logs", sum(v["jobs"] for v in per.values()), None, None, sd["overall"], None,
                 sd["overall_python"], sd["overall_speedup"], None, None])
    return Table(["log", "jobs", "requested run (s)", "learned run, C (s)", "slowdown, C",
                  "learned run, Python (s)", "slowdown, Python", "C speed-up", "C us/job", "Python us/job"],
                 rows, title="Cost of learning: wall time of one simulation",
                 digits={"requested run (s)": 3, "learned run, C (s)": 3, "slowdown, C": 1,
                         "learned run, Python (s)": 2, "slowdown, Python": 0, "C speed-up": 0,
                         "C us/job": 2, "Python us/job": 1},
                 notes=["requested: mean wall time of the log's requested-time simulations (the C core alone); "
                        "learned, C: mean over its learned-prediction simulations, the estimator in the C core "
                        "(features, prediction, one NAG step per job); slowdown: learned / requested.",
                        "learned, Python: the E-Loss / incremental / EASY-SJBF simulation with the Python "
                        "reference estimator (called back by the C core twice per job); C speed-up: its time "
                        "over the same simulation's with the C estimator.  Both compute the same bits.",
                        "Wall times depend on the machine and its load; the campaign's cells run in parallel."])


# ----------------------------------------------------------------- figures --

FIG_ESTIMATES = (("requested", "requested", "0.55", "-"), ("easy++", "EASY++ (AVE2)", "#1f77b4", "-"),
                 ("learned:" + prediction.E_LOSS.name, "E-Loss", "#d62728", "-"),
                 ("learned:" + prediction.SQUARED_LOSS.name, "squared loss", "#2ca02c", "--"))


def _fig_runs(ds):
    b = "SJBF" if "SJBF" in [str(x) for x in ds.backfill.values] else str(ds.backfill.values[0])
    return b, _ref_correction(ds)


def _NullLocator():
    from matplotlib.ticker import NullLocator
    return NullLocator()


def _ecdf_figure(ds, variable: str, runs, xlabel: str, values=lambda x: x, axis=lambda ax: None):
    """One ECDF panel per log of ``variable`` (quantiles over the jobs) for
    each estimate of ``runs`` ((estimate, label, colour, line style)) present
    in ``ds``; ``values`` maps the quantiles, ``axis`` sets up each panel."""
    traces = [str(x) for x in ds.trace.values]
    b, c = _fig_runs(ds)
    levels = ds["quantile"].values
    ests = [str(x) for x in ds.estimate.values]
    n = len(traces)
    with plots.style():
        fig = plots.figure(min(2.4 * n, 12.0), 2.8)
        axes = fig.subplots(1, n, squeeze=False, sharey=True)[0]
        for ax, t in zip(axes, traces):
            for e, label, colour, ls in runs:
                if e not in ests:
                    continue
                x = ds[variable].sel(trace=t, backfill=b, estimate=e, correction=c).values
                ax.plot(values(x), levels, color=colour, ls=ls, label=label, drawstyle="steps-post")
            axis(ax)
            ax.set_title(t)
            ax.set_xlabel(xlabel)
        axes[0].set_ylabel("fraction of jobs")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return fig


def figure_errors(ds):
    """gaussier2015 Fig. 4: ECDF of the prediction errors (estimate - duration)
    of the main techniques, one panel per log (symmetric log scale, cut at
    +-10^6 s)."""
    def axis(ax):
        ax.axvline(0, color="k", lw=0.6)
        ax.set_xscale("symlog", linthresh=100)
        ax.set_xlim(-1e6, 1e6)                 # +-11.6 days; the rare larger errors run off the sides
        ax.set_xticks([-1e5, -1e3, 0, 1e3, 1e5])
        ax.xaxis.set_minor_locator(_NullLocator())

    return _ecdf_figure(ds, "error_quantiles", FIG_ESTIMATES, "estimate - duration (s)", axis=axis)


def figure_predicted(ds):
    """gaussier2015 Fig. 5: ECDF of the predicted values (and, for the
    clairvoyant estimate, of the durations), one panel per log (log scale)."""
    runs = (("clairvoyant", "actual duration", "k", ":"),) + FIG_ESTIMATES
    return _ecdf_figure(ds, "predicted_quantiles", runs, "estimate at submission (s)",
                        values=lambda x: np.maximum(x, 0.5), axis=lambda ax: ax.set_xscale("log"))


def figure_triples(ds):
    """AVEbsld of every non-clairvoyant triple relative to EASY (log2 colour
    scale: blue better, red worse), one panel per log."""
    from matplotlib.colors import TwoSlopeNorm
    traces = [str(x) for x in ds.trace.values]
    ests = [str(e) for e in ds.estimate.values if str(e) != "clairvoyant"]
    cols = [(str(b), str(c)) for b in ds.backfill.values for c in ds.correction.values]
    n = len(traces)
    with plots.style():
        fig = plots.figure(min(1.6 * n + 2.2, 12.0), 0.17 * len(ests) + 1.6)
        axes = fig.subplots(1, n, squeeze=False, sharey=True)[0]
        norm = TwoSlopeNorm(vmin=-3.0, vcenter=0.0, vmax=3.0)
        im = None
        for ax, t in zip(axes, traces):
            base = easy(ds, t)
            z = np.array([[math.log2(_v(ds, "mean_bsld", t, b, e, c) / base) if base > 0 else np.nan
                           for b, c in cols] for e in ests])
            im = ax.imshow(np.clip(z, -3, 3), cmap="RdBu_r", norm=norm, aspect="auto", interpolation="nearest")
            ax.set_xticks(range(len(cols)), [f"{'EASY' if b == 'FCFS' else b} {c[:4]}." for b, c in cols],
                          rotation=90)
            ax.set_title(t)
            ax.grid(False)
        axes[0].set_yticks(range(len(ests)), [_short(e) for e in ests])
        if im is not None:
            cb = fig.colorbar(im, ax=list(axes), shrink=0.8)
            cb.set_label("log2(AVEbsld / EASY's)")
    return fig


# ----------------------------------------------------------------- numbers --

def _log_row(spec: str, name: str, p: Params) -> dict[str, Any]:
    full, m, in_file, unix_start = _cleaned(spec, p.overrun)
    jobs, _ = load_jobs(spec, p.weeks, p.skip_weeks, p.max_jobs, p.overrun)
    year = None
    if unix_start is not None and len(full):
        year = datetime.fromtimestamp(int(unix_start) + int(full.submit.min()), timezone.utc).year
    months = float(jobs.submit.max() - jobs.submit.min()) / (365.25 / 12 * 86400) if len(jobs) else float("nan")
    return {"trace": name, "year": year, "m": m, "jobs_in_file": in_file, "jobs": len(full),
            "jobs_simulated": len(jobs), "months": months}


def numbers(ds, sel, overall, corr, sd, logs, p: Params, timing=None) -> dict[str, Any]:
    """Key numbers for the paper (``num("prediction", ...)``)."""
    traces = [str(x) for x in ds.trace.values]
    t1 = {}
    c = _ref_correction(ds)
    for t in traces:
        e = easy(ds, t)
        cl = _v(ds, "mean_bsld", t, "FCFS", "clairvoyant", c)
        t1[t] = {"easy": e, "clairvoyant": cl, "decrease_pct": _pct(cl, e),
                 "published": dict(zip(("easy", "clairvoyant", "decrease_pct"), _pub("table1", t) or ()))}
    t6 = {t: {**table6_values(ds, t), "published": dict(zip(T6_ROWS, _pub("table6", t) or ()))} for t in traces}
    t7 = {}
    for s in sel:
        pub = _pub("table7", s.trace)
        t7[s.trace] = {"selected": s.label, "cv": s.value, "cv_reduction_pct": _pct(s.value, s.easy),
                       "easy": s.easy, "easypp": s.easypp, "easypp_reduction_pct": _pct(s.easypp, s.easy),
                       "eloss_triple": s.eloss, "eloss_reduction_pct": _pct(s.eloss, s.easy),
                       "cv_vs_easypp_pct": _pct(s.value, s.easypp),
                       "best": triple_label(*s.best), "best_value": s.best_value,
                       "published": dict(zip(("cv", "cv_reduction_pct", "easy", "easypp", "easypp_reduction_pct"),
                                             pub)) if pub else {}}

    def mean(key):
        v = [x[key] for x in t7.values() if math.isfinite(x[key])]
        return float(np.mean(v)) if v else float("nan")
    pub7 = [v for k, v in PUBLISHED["table7"].items()]
    sel_names = sorted({s.label for s in sel})
    b, cc = _fig_runs(ds)
    t8 = {}
    for e in T8_ESTIMATES:
        if e in [str(x) for x in ds.estimate.values]:
            per = {t: {"mae": _v(ds, "mae", t, b, e, cc), "mean_eloss": _v(ds, "mean_eloss", t, b, e, cc),
                       "underpredicted_pct": 100.0 * _v(ds, "underpredicted", t, b, e, cc)} for t in traces}
            t8[_short(e)] = {"per_trace": per,
                             **{f"mean_{k}": float(np.nanmean([v[k] for v in per.values()]))
                                for k in ("mae", "mean_eloss", "underpredicted_pct")}}
    return {
        "traces": traces,
        "lacking": list(LACKING),
        "n_traces": len(traces),
        "n_losses": len(p.losses),
        "n_triples": len(_candidates(ds)),
        "n_cells": int(np.prod([ds.sizes[d] for d in ("trace", "backfill", "estimate", "correction")])),
        "window": {"weeks": p.weeks, "skip_weeks": p.skip_weeks, "max_jobs": p.max_jobs},
        "jobs_simulated": {r["trace"]: r["jobs_simulated"] for r in logs},
        "eta": p.eta, "lam": p.lam,
        "table1": t1,
        "table6": t6,
        "table7": t7,
        "selected_triples": sel_names,
        "n_selected_triples": len(sel_names),
        "selected_all_logs": triple_label(*overall) if overall else None,
        "mean_cv_reduction_pct": mean("cv_reduction_pct"),
        "mean_cv_vs_easypp_pct": mean("cv_vs_easypp_pct"),
        "mean_easypp_reduction_pct": mean("easypp_reduction_pct"),
        "mean_eloss_reduction_pct": mean("eloss_reduction_pct"),
        "published_summary": {**PUBLISHED["summary"],
                              "mean_table7_cv_reduction_pct": float(np.mean([v[1] for v in pub7])),
                              "mean_table7_cv_vs_easypp_pct": float(np.mean([_pct(v[0], v[3]) for v in pub7]))},
        "correlation": corr,
        "table8": t8,
        "published_table8": {"EASY++ (AVE2)": dict(zip(("mae", "mean_eloss"), PUBLISHED["table8"]["easy++"])),
                             "E-Loss": dict(zip(("mae", "mean_eloss"), PUBLISHED["table8"]["E-Loss"]))},
        "slowdown": sd,
        "engines_identical": engines_identical(timing),
    }


# --------------------------------------------------------------------- run --

def run(traces=DEFAULT_TRACES, losses="all", corrections=CORRECTIONS, backfills=BACKFILLS, weeks=None,
        skip_weeks=0, max_jobs=None, eta=prediction.DEFAULT_ETA, lam=prediction.DEFAULT_LAM, overrun="kill",
        workers=2, outdir=None, cache_dir=None, scheduler=None, log: Callable | None = print,
        params: Params | None = None) -> dict[str, Any]:
    """Run the study (the grid through :mod:`schedlab.campaign`) and write
    under ``outdir`` (default ``results/prediction``), atomically:

    * ``tables/{table4,table1,table6,table7,selected,correlations,table8,slowdown}.{csv,md}``;
    * ``figures/{errors,predicted,triples}.{png,pdf}`` (Figs. 4, 5 and the grid);
    * ``prediction.nc`` (every cell: trace x backfill x estimate x correction);
    * ``timing.nc`` (the learned triple of the cost of learning: trace x engine);
    * ``numbers.json`` (key numbers for the paper, provenance).

    Parameters are those of :func:`validate` (or a validated ``params``);
    ``scheduler``: the address of an existing dask scheduler (default: a
    local cluster of ``workers`` processes, or ``$SCHEDLAB_SCHEDULER``).
    Returns a dict: ``params``, ``dataset``, ``timing``, ``tables``, ``figures``,
    ``selection``, ``numbers``, ``files``, ``outdir``, ``seconds``.
    """
    from ...store import write_dataset

    t0 = time.perf_counter()
    p = params or validate(traces, losses, corrections, backfills, weeks, skip_weeks, max_jobs, eta, lam,
                           overrun, workers, outdir, cache_dir)
    log = log or (lambda *a, **k: None)
    out = p.outdir
    camps = (make_campaign(p), make_timing_campaign(p))
    with campaign.Runner(p.workers, scheduler, p.cache_dir, log) as runner:
        ds, timing = (runner.run(c) for c in camps)
    ds = _label_dataset(ds, p)
    timing = timing.assign_coords(trace=list(p.names))
    timing["engine"].attrs = {"long_name": "learned estimator: c (in the C core) or python (the reference, "
                                           "called back by the C core)"}
    timing.attrs["study"] = STUDY
    ds.attrs["study"] = STUDY
    ds.attrs["parameters"] = p.as_dict()
    logs = [_log_row(spec, name, p) for spec, name in zip(p.traces, p.names)]
    sel, overall = loo_selection(ds)
    corr = correlations(ds)
    sd = slowdowns(ds, timing)
    tables = {"table4": table4(logs), "table1": table1(ds), "table6": table6(ds), "table7": table7(sel),
              "selected": table_selected(sel, overall), "correlations": table_correlations(corr), "table8": table8(ds), "slowdown": table_slowdown(sd)}
    files: list[Path] = []
    for name, table in tables.items():
        files += table.write(out / "tables" / name)
    figures = {}
    for name, make in (("errors", figure_errors), ("predicted", figure_predicted), ("triples", figure_triples)):
        figures[name] = plots.savefig(make(ds), out / "figures" / name)
        files += figures[name]
    files.append(write_dataset(ds, out / "prediction.nc"))
    files.append(write_dataset(timing, out / "timing.nc"))
    nums = numbers(ds, sel, overall, corr, sd, logs, p, timing)
    nums["wall_s"] = time.perf_counter() - t0
    doc = {"study": STUDY, **nums,
           "published_source": GAUSSIER,
           "provenance": {"schedlab": __version__, "core": sim.VERSION, "prediction_version": prediction.VERSION,
                          "git_commit": ds.attrs.get("git_commit"),
                          "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                          "cells_cached": ds.attrs.get("cells_cached"),
                          "cells_computed": ds.attrs.get("cells_computed"),
                          "parameters": p.as_dict()}}
    files.append(write_json(out / "numbers.json", doc))
    return {"params": p, "dataset": ds, "timing": timing, "tables": tables, "figures": figures, "selection": sel,
            "selected_all_logs": overall, "numbers": doc, "files": files, "outdir": out,
            "seconds": time.perf_counter() - t0}
