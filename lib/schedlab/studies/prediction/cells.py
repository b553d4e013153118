"""The simulations of the runtime-prediction study (gaussier2015): the
cleaned logs and their windows, the campaign cell -- one heuristic triple
(prediction, correction, backfilling) on one log -- and the two campaigns
built from the parameters (the grid, and the cost of learning with each
engine)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
import time
from datetime import datetime, timezone
from typing import Any, Sequence

import numpy as np

from ...campaigns import store
from ...campaigns.cells import TraceInputs, cell
from ...campaigns.spec import Campaign
from ...workloads import workload
from ...engine import metrics, prediction, sim
from ...workloads import traces as _traces
from ...declared import CellInputs, integer, number, one_of, param, text
from ...errors import InputError


#: The campaign variables the prediction study's cells record (:func:`schedlab.campaigns.store.declare`).
store.declare(__name__, {
    "mae": store.Var("mean absolute error |e - d| of the runtime estimates at submission (d: duration run)",
                     "s", "float64", store.NAN),
    "mean_eloss": store.Var("mean E-Loss of the runtime estimates at submission (gaussier2015 Eq. 3: log(q p) (e - "
                            "p)^2 if e >= p, log(q p) (p - e) otherwise; e, p in s)",
                            "1", "float64", store.NAN),
    "underpredicted": store.Var("share of the jobs whose runtime estimate at submission is below their duration",
                                "1", "float64", store.NAN),
    "error_quantiles": store.Var("quantiles of the runtime estimate error e - d over the jobs (at the quantile "
                                 "levels)",
                                 "s", "float64", store.NAN),
    "predicted_quantiles": store.Var("quantiles of the runtime estimates at submission over the jobs",
                                     "s", "float64", store.NAN),
    "simulation_time": store.Var("wall time of one simulation (C core and estimator callbacks)",
                                 "s", "float64", store.NAN),
})

WEEK = workload.WEEK
#: Quantile levels of the prediction errors and predicted values stored per cell.
N_LEVELS = 201
#: The campaign cell of the study (module:function).
CELL = "schedlab.studies.prediction.cells:prediction_cell"
#: Non-learned estimates: label -> ``estimate=`` of :func:`schedlab.engine.sim.simulate`.
BASE_ESTIMATES: dict[str, str] = {"clairvoyant": "actual", "requested": "requested", "easy++": "easy++"}
#: Prefix of the labels of learned estimates (``learned:<loss>``).
LEARNED = "learned:"


def learned_label(loss) -> str:
    return LEARNED + prediction.Loss.parse(loss).name


def estimate_labels(losses: Sequence) -> list[str]:
    """The ``estimate`` labels of the grid: clairvoyant, requested, easy++, learned:<loss>..."""
    return list(BASE_ESTIMATES) + [learned_label(x) for x in losses]




def _cleaned(trace: str, overrun: str) -> tuple[sim.Jobs, int, int, int | None]:
    """(cleaned jobs, m, jobs in the file, UnixStartTime) of a log; cached per process."""
    c = _traces.cleaned(trace, overrun=overrun)
    return c.jobs, c.m, c.trace.n, c.trace.unix_start_time


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


@dataclass(frozen=True)
class PredictionInputs(CellInputs):
    """The prediction cell's inputs (the machine size is the trace's)."""

    trace: str = TraceInputs.field("trace")
    overrun: str = TraceInputs.field("overrun")
    weeks: int | None = param(None, help="weeks of the log kept (None: all)", unit="weeks",
                              check=integer(1, optional=True))
    skip_weeks: int = param(0, help="weeks skipped at the log's start", unit="weeks", check=integer(0))
    max_jobs: int | None = param(None, help="the first jobs kept (None: all)", check=integer(1, optional=True))
    backfill: str = param("FCFS", help="the backfilling queue's policy", check=text)
    estimate: str = param("requested", help="the runtime estimate (a base one or learned:<loss>)", check=text)
    correction: str = param("incremental", help="what happens when a job outlives its estimate", check=text)
    eta: float = param(prediction.DEFAULT_ETA, help="the learning rate", check=number())
    lam: float = param(prediction.DEFAULT_LAM, help="the regularisation", check=number())
    levels: int = param(N_LEVELS, help="quantile levels returned", check=integer(1))
    engine: str = param("c", help="the learned estimates' engine", check=one_of(*prediction.ENGINES))


#: The cell's parameters and their defaults (for readers of the campaign specs).
CELL_PARAMS = PredictionInputs.defaults()


def _quantiles(x: np.ndarray, levels: int) -> np.ndarray:
    if x.size == 0:
        return np.full(levels, np.nan)
    return np.quantile(x, np.linspace(0.0, 1.0, levels))


@cell("prediction", PredictionInputs)
def prediction_cell(q: PredictionInputs) -> dict:
    """Campaign cell: one heuristic triple (``estimate``, ``correction``,
    ``backfill``) on one log: EASY-FCFS-<backfill> with that estimate
    (learned ones with ``engine`` "c", the default, or "python").
    Returns the schedule's summary metrics, the quality of the estimates at
    submission (MAE, mean E-Loss, share under-predicted, quantiles of the
    errors and of the estimates over ``quantile``) and the simulation's wall
    time."""
    jobs, m = load_jobs(q.trace, q.weeks, q.skip_weeks, q.max_jobs, q.overrun)
    policy = sim.Policy("FCFS", str(q["backfill"]))
    est = str(q["estimate"])
    engine = q.engine
    t0 = time.perf_counter()
    if est.startswith(LEARNED):
        s, _ = prediction.simulate_learned(jobs, m, policy, est[len(LEARNED):], str(q["correction"]),
                                           float(q["eta"]), float(q["lam"]), overrun="kill", engine=engine)
    elif est in BASE_ESTIMATES:
        s = sim.simulate(jobs, m, policy, estimate=BASE_ESTIMATES[est], correction=str(q["correction"]))
    elif est.startswith("col:") or est.startswith(sim.PYTHON_PREFIX):      # your own: a column, a Python Estimator
        s = sim.simulate(jobs, m, policy, estimate=est, correction=str(q["correction"]))
    else:
        raise InputError(f"prediction cell: unknown estimate {est!r}; expected one of {list(BASE_ESTIMATES)}, "
                         f"'{LEARNED}<loss>', col:NAME or py:module:name")
    wall = time.perf_counter() - t0
    summ = s.summary()
    ok = s.start >= 0
    d = metrics.duration(s)[ok]
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


def make_campaign(p) -> Campaign:
    """The grid of the study (``p``: its Params): trace x backfill x estimate x correction."""
    return Campaign(
        "prediction",
        {"trace": [_traces.text(t) for t in p.traces], "backfill": list(p.backfills), "estimate": p.estimates,
         "correction": list(p.corrections)},
        {"weeks": p.weeks, "skip_weeks": p.skip_weeks, "max_jobs": p.max_jobs, "overrun": p.overrun,
         "eta": p.eta, "lam": p.lam, "levels": N_LEVELS},
        cell=CELL)


#: The learned triple the timing campaign runs with each engine (the paper's recommended one).
TIMING_ESTIMATE = LEARNED + prediction.E_LOSS.name


def _timing_triple(p) -> tuple[str, str]:
    """(correction, backfill) of the timing campaign: incremental / SJBF if in the grid."""
    c = "incremental" if "incremental" in p.corrections else p.corrections[0]
    b = "SJBF" if "SJBF" in p.backfills else p.backfills[0]
    return c, b


def make_timing_campaign(p) -> Campaign:
    """The cost of learning with each engine: E-Loss / incremental /
    EASY-SJBF (or the grid's first correction and backfilling order) on every
    log, with the C estimator and with the Python reference."""
    c, b = _timing_triple(p)
    return Campaign(
        "prediction-timing",
        {"trace": [_traces.text(t) for t in p.traces], "engine": list(prediction.ENGINES)},
        {"weeks": p.weeks, "skip_weeks": p.skip_weeks, "max_jobs": p.max_jobs, "overrun": p.overrun,
         "estimate": TIMING_ESTIMATE, "correction": c, "backfill": b,
         "eta": p.eta, "lam": p.lam, "levels": N_LEVELS},
        cell=CELL)


def log_row(info, p) -> dict[str, Any]:
    """A log of Table 4 (``info``: a TraceInfo of ``p.traces``): its year,
    machine size, jobs in the file, after cleaning and in the window."""
    spec, name = _traces.text(info), info.name
    full, m, in_file, unix_start = _cleaned(spec, p.overrun)
    jobs, _ = load_jobs(spec, p.weeks, p.skip_weeks, p.max_jobs, p.overrun)
    year = None
    if unix_start is not None and len(full):
        year = datetime.fromtimestamp(int(unix_start) + int(full.submit.min()), timezone.utc).year
    months = float(jobs.submit.max() - jobs.submit.min()) / (365.25 / 12 * 86400) if len(jobs) else float("nan")
    return {"trace": name, "year": year, "m": m, "jobs_in_file": in_file, "jobs": len(full),
            "jobs_simulated": len(jobs), "months": months}
