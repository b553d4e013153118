"""Study 2 -- policies: which queue policies should EASY use?

Three published comparisons of EASY-backfilling queue policies, recomputed
with the compendium's simulator, each beside the values the papers print:

* **lelong2017 §3.4, §5** (:data:`LELONG`).  The 7 x 7 pairs EASY-P_R-P_B
  of its policies (FCFS, LCFS, SPF, LPF, SQF, LQF and EXP, "largest
  expansion factor first", our LEXP) on resampled weeks of KTH-SP2: per
  week, AvgWait and MaxWait relative to EASY-FCFS-FCFS on the same week;
  means with first and last deciles (its Figs. 2-3), the backfilling
  policy conditioned on the primary one (Fig. 4); and its Tables 1-2 on
  the *original* CTC-SP2 and SDSC-SP2 logs.
* **thesis chapter 4** (zrigui2021 §4.2-4.3, :data:`THESIS`).  FCFS, SPF,
  SQF and SAF with a waiting-time threshold on resampled traces of five
  logs: cumulative weekly mean bsld, pp-bsld and wait with 10-90 percentile
  bands (Fig. 4.1), the processors q of the most delayed jobs (Fig. 4.2),
  bsld categories (Fig. 4.3), premature vs standard jobs (Table 4.2) and
  backfilled-job counts (Fig. 4.4).
* **online-bandit Table 2** (:data:`BANDIT`).  The 12 policies in
  EASY(P, 40 h), one thresholded queue for starting and backfilling, on
  two-year resampled traces: relative change of the total waiting time
  against EASY(FCFS, 40 h).

Every gain over FCFS comes with a percentile-bootstrap confidence interval
over the resampled weeks or traces (:func:`schedlab.stats.bootstrap_ci`).

Choices where the papers are silent (each is a parameter or written here once):

* **Cleaning.**  lelong2017 §7.2 removes the jobs with p > p~
  (``workload.clean(..., overrun="drop")``); the thesis and online-bandit
  §6.1.1 do not, so those parts use the project default (kept, killed at
  p~ by the simulator).  :data:`OVERRUN` holds the choice per part.
* **Estimates.**  Requested times p~ everywhere (the papers' EASY).
* **lelong2017 resampling.**  Each resampled week is its own week-long
  trace (``workload.resample_weeks``, lelong2017 §4.1), simulated by the
  campaign's built-in ``simulate`` cell.
* **Thesis protocol** (§4.2).  10 samples per trace, each a continuous
  resampled trace as long as the original (``weeks=None``: as many weeks as
  the cleaned log spans).  Chapter 4 does not print its threshold; its
  §5.8 says 2.31 days (200000 s) is "the value that is used for the rest of
  our research", which is the default here.  The threshold reorders the
  primary queue only (lelong2017 §6.1; the thesis' Batsim scheduler is not
  described further).  P_R = P_B = P ("backfill according to the selected
  policy", thesis Algorithm 1).  Premature: p~ >= 100 p (the ratio reading
  of :func:`schedlab.studies.traces.premature`).  bsld categories: bsld = 1,
  1 < bsld < 10, 10 <= bsld < 100, bsld >= 100.  "Cumulative weekly
  average" at week k: the mean over the jobs *finished* by the end of week
  k (jobs finishing after the last week count in the last one).  The
  most delayed jobs: the 100 jobs with the highest bsld of each sample
  (ties by job order).  Table 4.2 "ours" is the mean over samples of the
  per-sample ratio mean bsld(premature) / mean bsld(standard); the same
  ratio on the original log is shown beside it.
* **online-bandit protocol** (§6.1.3-6.2).  Per trace, ``samples``
  resampled traces of ``weeks`` = 104 weeks, each resampled as one
  continuous trace (``workload.resample``); EASY(P, Θ) = P for both queues
  with ``threshold_backfill=True``; the statistic is its Eq. 11,
  (sum_k W(T_k, P) - sum_k W(T_k, FCFS)) / sum_k W(T_k, FCFS), with W the
  total waiting time of a resampled trace.  We lack ANL-Intrepid and
  UniLu-Gaia, so their rows are published values only.

What is checked where we differ from the papers (each is an output):

* Tables 1-2 are recomputed with jobs p > p~ kept or removed and with
  requested or clairvoyant estimates (``lelong_variants``), and the
  largest waits behind MaxWait are listed (``lelong_maxwait``).
* Table 4.2 is recomputed on the original logs with and without the
  threshold and both cleanings, with the jobs SQF backfills in each case
  (``thesis_variants``).
* online-bandit Table 2 is scored against ours under three readings of its
  smallest/largest labels (:data:`SWAPS`, ``bandit_mapping``).

Campaigns (one per part and trace, :func:`campaigns`) share one local dask
cluster, started only when a cell is missing from the cache.  Cells:
the built-in ``simulate`` (lelong2017 pairs), :func:`same_policy_cell`
(EASY-P-P on the original logs), :func:`thesis_cell` and :func:`bandit_cell`.

The notebook ``notebooks/01-policy-comparison.ipynb`` validates its parameters with
:func:`validate` and calls :func:`run`, which runs the grids as campaigns
(dask, cached, resumable), writes datasets, tables, figures and
``numbers.json`` and returns everything it computed.  The computations are
plain functions of arrays (:func:`relative_summary`, :func:`bsld_classes`,
:func:`premature_ratio`, :func:`cumulative_by_week`, :func:`top_procs`,
:func:`total_change`, :func:`mapping_check`), tested on inputs whose answers
are known by construction.
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ... import __version__, campaign, metrics, paths, plots, sim, stats, store, workload
from ... import traces as _traces
from ...errors import InputError
from .. import Table, write_json
from ... import values as check
from ...metrics import PREMATURE_FACTOR, premature

__all__ = [
    "LELONG", "THESIS", "BANDIT", "PUBLISHED", "CLAIMS", "OVERRUN", "TABLE_POLICIES",
    "BSLD_CLASSES", "SWAPS", "Params", "validate", "campaigns", "run",
    "relative_summary", "pair_summary", "bsld_classes", "premature_ratio", "cumulative_by_week",
    "top_procs", "schedule_outputs", "total_change", "mapping_check", "thesis_comparison", "largest_waits",
    "source_weeks", "same_policy_cell", "thesis_cell", "bandit_cell", "findings", "numbers",
]

STUDY = "policies"
WEEK = workload.WEEK

# ----------------------------------------------------------------- sources --

LELONG = ("lelong2017: J. Lelong, V. Reis, D. Trystram, Tuning EASY-Backfilling Queues, JSSPP 2017, "
          "LNCS 10773, pp. 43-61")
THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, ch. 4")
BANDIT = ("online-bandit: anonymous authors, Online (Bandit) Policy Selection for EASY-Backfilling, "
          "manuscript (SC template), §6.1-6.2, Table 2")

#: The columns of online-bandit Table 2, in its order.
_BANDIT_COLUMNS = ("LCFS", "LPF", "SPF", "LQF", "SQF", "SEXP", "LEXP", "LRF", "SRF", "LAF", "SAF")

#: Values printed in the papers, keyed by our registry and policy names
#: (lelong2017's EXP is LEXP; the thesis' "SDSC Blue" is SDSC-BLUE).
PUBLISHED: dict[str, Any] = {
    # lelong2017 §3.4, Table 1: AvgWait (s) on the original logs.
    "lelong_table1": {("CTC-SP2", "LEXP"): 3074, ("SDSC-SP2", "LEXP"): 6765,
                      ("CTC-SP2", "SQF"): 2090, ("SDSC-SP2", "SQF"): 11234},
    # lelong2017 §3.4, Table 2: CTC-SP2 original log, (policy, metric) -> s.
    "lelong_table2": {("SPF", "avg_wait"): 2784, ("FCFS", "avg_wait"): 3974,
                      ("SPF", "max_wait"): 661280, ("FCFS", "max_wait"): 176090},
    # thesis §4.3.3, Table 4.2: mean bsld of premature jobs / mean bsld of standard jobs.
    "thesis_table_4_2": {
        "FCFS": {"HPC2N": 17.84, "SDSC-BLUE": 3.59, "SDSC-SP2": 3.94, "CTC-SP2": 5.58, "KTH-SP2": 8.69},
        "SPF": {"HPC2N": 17.29, "SDSC-BLUE": 7.17, "SDSC-SP2": 4.36, "CTC-SP2": 5.04, "KTH-SP2": 12.09},
        "SQF": {"HPC2N": 14.02, "SDSC-BLUE": 2.96, "SDSC-SP2": 2.04, "CTC-SP2": 1.67, "KTH-SP2": 9.31},
        "SAF": {"HPC2N": 17.88, "SDSC-BLUE": 7.41, "SDSC-SP2": 3.79, "CTC-SP2": 2.61, "KTH-SP2": 11.41},
    },
    # online-bandit Table 2: change of the total waiting time vs EASY(FCFS, 40h), in %.
    "bandit_table2": {t: dict(zip(_BANDIT_COLUMNS, map(int, row.split()))) for t, row in {
        "ANL-Intrepid": "-25 -9 -3 -28 -2 -21 -24 -21 -10 -19 5",
        "KTH-SP2": "-13 -16 5 -16 3 -8 -15 -8 -13 -12 15",
        "CTC-SP2": "-40 -19 -14 -47 15 -36 -19 -38 -12 -44 22",
        "SDSC-SP2": "-8 -15 4 -8 4 -3 -15 -3 -10 -11 18",
        "SDSC-BLUE": "-26 -29 0 -29 17 -17 -26 -15 -15 -32 23",
        "CEA-Curie": "-46 -23 -45 -57 -19 -51 -23 -57 -24 -40 -17",
        "UniLu-Gaia": "-58 -33 -10 -62 16 -49 -27 -56 -16 -62 20",
    }.items()},
}

#: Claims of the papers' text that the study checks (key -> (source, claim, value)).
CLAIMS: dict[str, tuple[str, str, float]] = {
    "lelong_best_gain": ("lelong2017 §5.1", "best of the 49 pairs reduces AvgWait on KTH-SP2 by about (%)", 30.0),
    "thesis_gain_bsld": ("thesis §4.3.1", "largest mean-bsld gain over FCFS, SPF (%)", 83.4),
    "thesis_gain_wait": ("thesis §4.3.1", "largest mean-wait gain over FCFS, SAF (%)", 61.4),
    "thesis_gain_ppbsld": ("thesis §4.3.1", "largest mean-pp-bsld gain over FCFS, SAF (%)", 85.1),
    "thesis_bsld100_saf": ("thesis §4.3.3", "SAF divides the jobs with bsld >= 100 by up to (x)", 2.8),
    "thesis_immediate_saf": ("thesis §4.4", "SAF increases the jobs started at once by up to (%)", 9.0),
    "thesis_backfilled_saf": ("thesis §4.3.4", "SAF backfills fewer jobs than FCFS, on average by (%)", 78.0),
    "thesis_backfilled_spf": ("thesis §4.3.4", "SPF backfills fewer jobs than FCFS, on average by (%)", 56.0),
}

#: Traces of the papers that are not bundled.
MISSING_TRACES = ("ANL-Intrepid", "UniLu-Gaia")

#: Cleaning of the jobs with p > p~, per part of the study.
OVERRUN = {"lelong": "drop", "tables": "drop", "thesis": "kill", "bandit": "kill"}
#: The policy pairs of lelong2017 Tables 1-2 (P_R = P_B).
TABLE_POLICIES = ("FCFS", "SPF", "SQF", "LEXP")
#: The variants of cleaning and estimates tried on Tables 1-2.
TABLE_VARIANTS = {"overrun": ["drop", "kill"], "estimate": ["requested", "actual"]}
#: bsld categories of thesis Fig. 4.3.
BSLD_CLASSES = ("1", "1-10", "10-100", "100+")
#: Number of most-delayed jobs per sample (thesis Fig. 4.2).
TOP = 100
#: Label mappings tried against online-bandit Table 2: "as printed", and the
#: smallest/largest labels exchanged for some policy families.
SWAPS: dict[str, tuple[tuple[str, str], ...]] = {
    "as printed": (),
    "S/L swapped for P, Q, A": (("SPF", "LPF"), ("SQF", "LQF"), ("SAF", "LAF")),
    "S/L swapped for P, Q, A, R, EXP": (("SPF", "LPF"), ("SQF", "LQF"), ("SAF", "LAF"),
                                        ("SRF", "LRF"), ("SEXP", "LEXP")),
}
DEFAULT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N")
BANDIT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")

# ------------------------------------------------------------- parameters --


@dataclass(frozen=True)
class Params:
    """The validated parameters of the study (see :func:`validate`)."""

    profile: str = "custom"
    lelong_trace: _traces.TraceInfo | None = None
    lelong_weeks: int = 250
    lelong_policies: tuple[str, ...] = sim.LELONG_POLICIES
    table_traces: tuple[_traces.TraceInfo, ...] = ()
    thesis_traces: tuple[_traces.TraceInfo, ...] = ()
    thesis_samples: int = 10
    thesis_weeks: int | None = None
    thesis_policies: tuple[str, ...] = ("FCFS", "SPF", "SQF", "SAF")
    thesis_threshold: int | None = 200000
    bandit_traces: tuple[_traces.TraceInfo, ...] = ()
    bandit_samples: int = 100
    bandit_weeks: int = 104
    bandit_policies: tuple[str, ...] = sim.BANDIT_POLICIES
    bandit_threshold: int | None = 40 * 3600
    seed: int = 2017
    workers: int = 2
    scheduler: str | None = None
    outdir: Path = field(default_factory=lambda: paths.RESULTS / STUDY)
    cache_dir: Path = field(default_factory=lambda: paths.RESULTS / "cache")

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly view (traces by name)."""
        return check.as_record(self)


def _traces_param(value, name: str) -> tuple[_traces.TraceInfo, ...]:
    items = check.as_list(value, name, none_is_empty=True)
    if isinstance(items, os.PathLike):
        items = [items]
    if not items:
        return ()
    try:
        return tuple(check.trace_list(items))
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None


def _policies_param(value, name: str, default) -> tuple[str, ...]:
    return check.policy_names(default if value is None else value, name,
                              "the baseline every result is relative to")


def validate(profile="custom", lelong_trace="KTH-SP2", lelong_weeks=250, lelong_policies=None,
             table_traces=("CTC-SP2", "SDSC-SP2"), thesis_traces=DEFAULT_TRACES, thesis_samples=10,
             thesis_weeks=None, thesis_policies=None, thesis_threshold=200000,
             bandit_traces=BANDIT_TRACES, bandit_samples=100, bandit_weeks=104, bandit_policies=None,
             bandit_threshold="40h", seed=2017, workers=2, scheduler=None, outdir=None,
             cache_dir=None) -> Params:
    """Check every parameter of the study and return them as :class:`Params`.

    Lists may be given as lists, YAML list text (``"[KTH-SP2, CTC-SP2]"``, what
    ``papermill -p`` passes) or comma-separated strings.  An empty trace list
    (or ``lelong_trace=None``) skips that part.  Raises
    :class:`~schedlab.errors.InputError` naming the parameter at fault.
    """
    if not isinstance(profile, str) or not profile.strip():
        raise InputError(f"profile: expected a name such as 'quick' or 'full', got {profile!r}")
    lel = _traces_param(lelong_trace, "lelong_trace")
    if len(lel) > 1:
        raise InputError(f"lelong_trace: give one trace (or None), got {[t.name for t in lel]}")
    scheduler = None if scheduler in (None, "") else str(scheduler)
    return Params(
        profile=profile.strip(),
        lelong_trace=lel[0] if lel else None,
        lelong_weeks=check.integer(lelong_weeks, "lelong_weeks"),
        lelong_policies=_policies_param(lelong_policies, "lelong_policies", sim.LELONG_POLICIES),
        table_traces=_traces_param(table_traces, "table_traces"),
        thesis_traces=_traces_param(thesis_traces, "thesis_traces"),
        thesis_samples=check.integer(thesis_samples, "thesis_samples"),
        thesis_weeks=check.optional_integer(thesis_weeks, "thesis_weeks"),
        thesis_policies=_policies_param(thesis_policies, "thesis_policies", ("FCFS", "SPF", "SQF", "SAF")),
        thesis_threshold=check.duration(thesis_threshold, "thesis_threshold"),
        bandit_traces=_traces_param(bandit_traces, "bandit_traces"),
        bandit_samples=check.integer(bandit_samples, "bandit_samples"),
        bandit_weeks=check.integer(bandit_weeks, "bandit_weeks"),
        bandit_policies=_policies_param(bandit_policies, "bandit_policies", sim.BANDIT_POLICIES),
        bandit_threshold=check.duration(bandit_threshold, "bandit_threshold"),
        seed=check.integer(seed, "seed", 0),
        workers=check.integer(workers, "workers"),
        scheduler=scheduler,
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"),
    )


# ------------------------------------------------------------ computations --

def relative_summary(values, baseline, axis=-1, level=0.95, seed=0) -> dict[str, Any]:
    """Per-entry ratio ``values / baseline`` (:func:`schedlab.stats.relative`)
    summarised along ``axis`` (the weeks or samples): NaN-aware mean, first
    and last deciles, bootstrap confidence interval of the mean and the
    number of entries left out (NaN: the baseline is 0 but the value not)."""
    r = stats.relative(values, baseline)
    r = np.moveaxis(np.asarray(r, dtype=float), axis, -1)
    mean, lo, hi = stats.bootstrap_ci(r, axis=-1, level=level, seed=seed)
    d10, d90 = stats.deciles(r, axis=-1) if r.shape[-1] else (np.nan, np.nan)
    return {"ratio": r, "mean": mean, "ci_low": lo, "ci_high": hi, "d10": d10, "d90": d90,
            "left_out": np.isnan(r).sum(axis=-1)}


def pair_summary(avg_wait, max_wait, policies: Sequence[str], baseline: str = "FCFS",
                 seed: int = 0) -> list[dict[str, Any]]:
    """lelong2017 Figs. 2-4 for a (primary, backfill, week) grid of AvgWait and
    MaxWait: one record per pair, with

    * ``avg_*``: AvgWait relative to EASY-FCFS-FCFS on the same week, mean
      over weeks, deciles and bootstrap CI of the mean (Figs. 2-4, x axis);
    * ``max_*``: MaxWait relative per week, mean and deciles (Fig. 3, y);
    * ``maxmax``: the largest MaxWait of all weeks over the baseline's (Fig. 2, y).
    """
    avg = np.asarray(avg_wait, dtype=float)
    mx = np.asarray(max_wait, dtype=float)
    pols = list(policies)
    if avg.shape[:2] != (len(pols), len(pols)) or avg.shape != mx.shape:
        raise InputError(f"pair_summary: expected ({len(pols)}, {len(pols)}, weeks) arrays, "
                         f"got {avg.shape} and {mx.shape}")
    b = pols.index(baseline)
    base_avg, base_max = avg[b, b], mx[b, b]
    out = []
    for i, pr in enumerate(pols):
        for j, pb in enumerate(pols):
            a = relative_summary(avg[i, j], base_avg, seed=seed)
            m = relative_summary(mx[i, j], base_max, seed=seed)
            top, base_top = np.nanmax(mx[i, j]), np.nanmax(base_max)
            out.append({
                "primary": pr, "backfill": pb,
                "avg_mean": float(a["mean"]), "avg_ci_low": float(a["ci_low"]),
                "avg_ci_high": float(a["ci_high"]), "avg_d10": float(a["d10"]), "avg_d90": float(a["d90"]),
                "avg_left_out": int(a["left_out"]),
                "max_mean": float(m["mean"]), "max_ci_low": float(m["ci_low"]),
                "max_ci_high": float(m["ci_high"]), "max_d10": float(m["d10"]), "max_d90": float(m["d90"]),
                "maxmax": float(stats.relative(top, base_top)),
                "significant": bool(stats.significant(a["ci_low"], a["ci_high"])),
            })
    return out


def bsld_classes(bsld) -> np.ndarray:
    """Number of jobs in each category of thesis Fig. 4.3 (:data:`BSLD_CLASSES`):
    bsld = 1 (started at once, or short enough), 1 < bsld < 10,
    10 <= bsld < 100 and bsld >= 100.  NaN (jobs not started) are not counted."""
    b = np.asarray(bsld, dtype=float)
    b = b[np.isfinite(b)]
    return np.array([(b <= 1).sum(), ((b > 1) & (b < 10)).sum(), ((b >= 10) & (b < 100)).sum(),
                     (b >= 100).sum()], dtype=np.int64)


def premature_ratio(bsld, run, req, factor: float = PREMATURE_FACTOR) -> tuple[float, float, int]:
    """(mean bsld of the premature jobs, mean bsld of the standard jobs,
    number of premature jobs); premature: p~ >= factor * p (thesis §4.3.3,
    :func:`schedlab.studies.traces.premature`).  NaN for an empty class."""
    b = np.asarray(bsld, dtype=float)
    prem = premature(run, req, factor, "ratio")
    if prem.shape != b.shape:
        raise InputError(f"premature_ratio: {b.shape[0]} bsld values for {prem.shape[0]} jobs")
    ok = np.isfinite(b)
    p, s = b[prem & ok], b[~prem & ok]
    nan = float("nan")
    return (float(p.mean()) if p.size else nan, float(s.mean()) if s.size else nan, int(prem.sum()))


def cumulative_by_week(values, end, n_weeks: int, origin: int = 0, week: int = WEEK):
    """Cumulative sum, count and mean of ``values`` over the jobs finished by
    the end of each week ``k`` = 0..n_weeks-1 (week k is ``[origin + k*week,
    origin + (k+1)*week)``; jobs ending after the last week count in it,
    those ending before ``origin`` in the first).  NaN values are left out."""
    v = np.asarray(values, dtype=float)
    e = np.asarray(end, dtype=np.int64)
    ok = np.isfinite(v)
    k = np.clip((e[ok] - origin) // week, 0, n_weeks - 1)
    s = np.cumsum(np.bincount(k, weights=v[ok], minlength=n_weeks))
    c = np.cumsum(np.bincount(k, minlength=n_weeks))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(c > 0, s / np.maximum(c, 1), np.nan)
    return s, c, mean


def top_procs(bsld, procs, k: int = TOP) -> np.ndarray:
    """Processors q of the ``k`` jobs with the highest bsld, by decreasing bsld
    (ties: job order); padded with -1 when there are fewer jobs."""
    b = np.asarray(bsld, dtype=float)
    q = np.asarray(procs)
    b = np.where(np.isfinite(b), b, -np.inf)
    order = np.lexsort((np.arange(b.size), -b))[:k]
    out = np.full(k, -1, dtype=np.int64)
    out[:order.size] = q[order]
    return out


def schedule_outputs(schedule: sim.Schedule, n_weeks: int | None = None, origin: int = 0,
                     week: int = WEEK, top: int = TOP) -> dict[str, tuple[tuple[str, ...], Any]]:
    """What the thesis part needs of one simulated schedule, as cell outputs:
    aggregates, the premature/standard bsld split, the bsld categories, the q
    of the ``top`` most delayed jobs and (with ``n_weeks``) the cumulative
    weekly means of bsld, pp-bsld and wait."""
    b = metrics.bsld(schedule)
    summ = schedule.summary()
    prem, std, n_prem = premature_ratio(b, schedule.jobs.run, schedule.jobs.req)
    out = {
        "jobs": ((), summ["jobs"]), "avg_wait": ((), summ["avg_wait"]), "max_wait": ((), summ["max_wait"]),
        "sum_wait": ((), summ["sum_wait"]), "mean_bsld": ((), summ["mean_bsld"]),
        "max_bsld": ((), summ["max_bsld"]), "mean_ppbsld": ((), summ["mean_ppbsld"]),
        "backfilled": ((), summ["backfilled"]), "forced": ((), summ["forced"]),
        "premature_jobs": ((), n_prem), "mean_bsld_premature": ((), prem), "mean_bsld_standard": ((), std),
        "bsld_class_jobs": (("bsld_class",), bsld_classes(b)),
        "top_bsld_procs": (("rank",), top_procs(b, schedule.jobs.procs, top)),
    }
    if n_weeks is not None:
        end = schedule.end
        for name, v in (("cum_mean_bsld", b), ("cum_mean_ppbsld", metrics.ppbsld(schedule)),
                        ("cum_avg_wait", metrics.wait(schedule))):
            out[name] = (("week",), cumulative_by_week(v, end, n_weeks, origin, week)[2])
    return out


def total_change(sums, baseline, level=0.95, seed=0, n_boot=2000) -> tuple[float, float, float]:
    """online-bandit Eq. 11: ``sum(sums) / sum(baseline) - 1`` over paired
    resampled traces, with a percentile-bootstrap CI that resamples the
    traces (pairs kept together) through :func:`schedlab.stats.bootstrap_ci`."""
    x = np.stack([np.asarray(sums, dtype=float), np.asarray(baseline, dtype=float)])
    if x.ndim != 2:
        raise InputError("total_change: expected two 1-d arrays of the same length")

    def ratio(a, axis=-1):
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.nansum(a[0], axis=axis) / np.nansum(a[1], axis=axis) - 1.0
        return np.broadcast_to(r, (2,) + np.shape(r))

    est, lo, hi = stats.bootstrap_ci(x, axis=-1, level=level, n_boot=n_boot, seed=seed, stat=ratio)
    return float(np.asarray(est)[0]), float(np.asarray(lo)[0]), float(np.asarray(hi)[0])


def _swap(mapping: dict[str, float], pairs) -> dict[str, float]:
    out = dict(mapping)
    for a, b in pairs:
        if a in mapping and b in mapping:
            out[a], out[b] = mapping[b], mapping[a]
    return out


def mapping_check(ours: dict[str, dict[str, float]], published: dict[str, dict[str, float]],
                  swaps=SWAPS) -> list[dict[str, Any]]:
    """Compare our per-trace, per-policy values with the published ones under
    each label mapping of ``swaps`` (published labels exchanged): mean
    absolute difference, sign agreement (|value| < 1 counts as 0) and the
    Pearson correlation, over every (trace, policy) both have."""
    rows = []
    for name, pairs in swaps.items():
        ours_v, pub_v = [], []
        best_same = traces_n = 0
        for trace, pub in published.items():
            if trace not in ours:
                continue
            pub_m = _swap(pub, pairs)
            common = [pol for pol in pub_m if pol in ours[trace] and np.isfinite(ours[trace][pol])]
            for pol in common:
                ours_v.append(ours[trace][pol])
                pub_v.append(pub_m[pol])
            if common:
                traces_n += 1
                best_same += int(min(common, key=lambda k: ours[trace][k]) == min(common, key=lambda k: pub_m[k]))
        o, p = np.array(ours_v, dtype=float), np.array(pub_v, dtype=float)
        sign = lambda x: np.where(np.abs(x) < 1, 0, np.sign(x))  # noqa: E731
        n = int(o.size)
        corr = float(np.corrcoef(o, p)[0, 1]) if n > 2 and o.std() > 0 and p.std() > 0 else float("nan")
        rows.append({"mapping": name, "n": n,
                     "mean_abs_diff": float(np.abs(o - p).mean()) if n else float("nan"),
                     "sign_agreement": float((sign(o) == sign(p)).mean() * 100) if n else float("nan"),
                     "correlation": corr, "traces": traces_n, "same_best": best_same})
    return rows


# ------------------------------------------------------------------ cells --

@functools.lru_cache(maxsize=8)
def _cleaned(trace: str, m: int | None, overrun: str) -> tuple[sim.Jobs, int]:
    info = _traces.resolve(trace)
    jobs, _ = workload.clean(_traces.load(info), m=m or info.m, overrun=overrun)
    return jobs, int(m or info.m or (jobs.procs.max() if len(jobs) else 1))


_PART_KEYS = {"thesis": 1, "bandit": 2}


@functools.lru_cache(maxsize=2)
def _resampled(trace: str, m: int | None, overrun: str, weeks: int, seed: int, part: str,
               sample: int) -> sim.Jobs:
    jobs, _ = _cleaned(trace, m, overrun)
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(_PART_KEYS[part], int(sample)))
    return workload.resample(jobs, int(weeks), ss).jobs


def source_weeks(trace: str, m: int | None = None, overrun: str = "kill") -> int:
    """Number of weeks the cleaned trace spans (first to last submission):
    the length of a thesis sample "proportional to the original trace"."""
    jobs, _ = _cleaned(str(trace), m, overrun)
    if len(jobs) == 0:
        raise InputError(f"{trace}: no jobs left after cleaning")
    return int(workload.period_edges(jobs, WEEK).size - 1)


_CELL_KEYS = {"trace", "m", "overrun", "workload", "weeks", "seed", "sample", "policy", "threshold",
              "threshold_backfill", "top", "cumulative"}


def _cell_setup(p: dict, part: str):
    unknown = set(p) - _CELL_KEYS
    if unknown:
        raise InputError(f"{part} cell: unknown parameter(s) {sorted(unknown)}")
    trace, m, overrun = str(p["trace"]), p.get("m"), p.get("overrun", "kill")
    if p.get("workload", "resample") == "original":
        jobs, m_ = _cleaned(trace, m, overrun)
    else:
        jobs = _resampled(trace, m, overrun, int(p["weeks"]), int(p["seed"]), part, int(p["sample"]))
        m_ = _cleaned(trace, m, overrun)[1]
    policy = sim.Policy(p["policy"], p["policy"], p.get("threshold"), bool(p.get("threshold_backfill", False)))
    return jobs, m_, policy


def thesis_cell(p: dict) -> dict:
    """One (trace, sample, policy) of the thesis part: EASY-P-P with the
    threshold on a resampled trace (``workload: resample``; ``sample`` picks
    the seed) or on the cleaned log (``workload: original``); outputs of
    :func:`schedule_outputs` (cumulative weekly means unless ``cumulative``
    is false)."""
    jobs, m, policy = _cell_setup(p, "thesis")
    s = sim.simulate(jobs, m, policy)
    cumulative = p.get("cumulative", True) and p.get("workload", "resample") != "original"
    n_weeks = int(p["weeks"]) if cumulative else None
    return schedule_outputs(s, n_weeks, 0, WEEK, int(p.get("top", TOP)))


def bandit_cell(p: dict) -> dict:
    """One (trace, sample, policy) of the online-bandit part: EASY(P, Θ) on a
    resampled trace of ``weeks`` weeks; total, mean and max waiting time,
    backfilled and forced jobs, and the total wait of the jobs finished by
    the end of each week (for the curves of online-bandit Fig. 2)."""
    jobs, m, policy = _cell_setup(p, "bandit")
    s = sim.simulate(jobs, m, policy)
    summ = s.summary()
    out = {k: ((), summ[k]) for k in ("jobs", "sum_wait", "avg_wait", "max_wait", "backfilled", "forced")}
    out["cum_sum_wait"] = (("week",), cumulative_by_week(metrics.wait(s), s.end, int(p["weeks"]))[0])
    return out


def same_policy_cell(p: dict) -> dict:
    """The campaign's built-in ``simulate`` cell with one ``policy`` for both
    queues (EASY-P-P), so that a grid can sweep the pairs P_R = P_B only."""
    q = dict(p)
    pol = q.pop("policy")
    q["primary"] = q["backfill"] = pol
    return campaign.simulate_cell(q)


campaign.register_cell("policies-same")(same_policy_cell)
campaign.register_cell("policies-thesis")(thesis_cell)
campaign.register_cell("policies-bandit")(bandit_cell)
_THESIS_CELL = "schedlab.studies.policies:thesis_cell"
_BANDIT_CELL = "schedlab.studies.policies:bandit_cell"
_SAME_CELL = "schedlab.studies.policies:same_policy_cell"


# -------------------------------------------------------------- campaigns --

def _ref(info: _traces.TraceInfo) -> str:
    """How a campaign names a trace: the registry name, or the file path."""
    return info.name if info.registered else str(info.path)


def _thresholds(threshold: int | None) -> list[str]:
    """Threshold labels of the original-log check: the chosen one, then none."""
    main = sim.format_duration(threshold)
    return [main] if main == "none" else [main, "none"]


def campaigns(p: Params) -> dict[str, campaign.Campaign]:
    """Every campaign of the study for parameters ``p``, by key:
    ``lelong``, ``tables``, ``thesis:<trace>``, ``thesis-original``,
    ``bandit:<trace>``.  Parts with no trace are left out."""
    out: dict[str, campaign.Campaign] = {}
    if p.lelong_trace is not None:
        out["lelong"] = campaign.Campaign(
            f"policies-lelong-{p.lelong_trace.name}", cell="simulate",
            dims={"primary": list(p.lelong_policies), "backfill": list(p.lelong_policies)},
            params={"trace": _ref(p.lelong_trace), "m": p.lelong_trace.m, "overrun": OVERRUN["lelong"],
                    "workload": "resample", "weeks": p.lelong_weeks, "seed": p.seed,
                    "estimate": "requested"},
            metrics=["avg_wait", "max_wait", "mean_bsld", "jobs", "backfilled"])
    if p.table_traces:
        out["tables"] = campaign.Campaign(
            "policies-tables", cell=_SAME_CELL,
            dims={"trace": [_ref(t) for t in p.table_traces], **TABLE_VARIANTS,
                  "policy": list(TABLE_POLICIES)},
            params={"workload": "original"},
            metrics=["avg_wait", "max_wait", "mean_bsld", "jobs", "backfilled", "utilisation"])
    common = {"threshold_backfill": False, "overrun": OVERRUN["thesis"], "seed": p.seed, "top": TOP}
    for t in p.thesis_traces:
        weeks = p.thesis_weeks or source_weeks(_ref(t), t.m, OVERRUN["thesis"])
        out[f"thesis:{t.name}"] = campaign.Campaign(
            f"policies-thesis-{t.name}", cell=_THESIS_CELL,
            dims={"sample": list(range(p.thesis_samples)), "policy": list(p.thesis_policies)},
            params={"trace": _ref(t), "m": t.m, "workload": "resample", "weeks": weeks,
                    "threshold": p.thesis_threshold, **common})
    if p.thesis_traces:
        out["thesis-original"] = campaign.Campaign(
            "policies-thesis-original", cell=_THESIS_CELL,
            dims={"trace": [_ref(t) for t in p.thesis_traces], "policy": list(p.thesis_policies),
                  "overrun": ["kill", "drop"], "threshold": _thresholds(p.thesis_threshold)},
            params={"workload": "original", "cumulative": False,
                    **{k: v for k, v in common.items() if k != "overrun"}})
    for t in p.bandit_traces:
        out[f"bandit:{t.name}"] = campaign.Campaign(
            f"policies-bandit-{t.name}", cell=_BANDIT_CELL,
            dims={"sample": list(range(p.bandit_samples)), "policy": list(p.bandit_policies)},
            params={"trace": _ref(t), "m": t.m, "overrun": OVERRUN["bandit"], "workload": "resample",
                    "weeks": p.bandit_weeks, "seed": p.seed, "threshold": p.bandit_threshold,
                    "threshold_backfill": True})
    return out


# ---------------------------------------------------------------- helpers --

def _pct(x):
    return 100.0 * x if x is not None and np.isfinite(x) else float("nan")


def _ci(lo, hi, digits=1, scale=1.0) -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    return f"[{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"


def _key(name: str) -> str:
    """A numbers.json key fragment from a trace name: "CEA-Curie" -> "cea_curie"."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _name(ref: str) -> str:
    return _traces.resolve(ref).name


POLICY_COLORS = dict(zip(sim.POLICIES, (
    "#000000", "#7f7f7f", "#1f77b4", "#aec7e8", "#2ca02c", "#98df8a", "#d62728", "#ff9896",
    "#9467bd", "#c5b0d5", "#8c564b", "#ff7f0e", "#17becf")))
POLICY_MARKERS = dict(zip(sim.POLICIES, "osD^v<>pP*Xhd"))


# ------------------------------------------------------------ lelong part --

@dataclass
class LelongResult:
    trace: str
    weeks: int
    policies: tuple[str, ...]
    dataset: Any
    pairs: list[dict[str, Any]]

    def pair(self, primary: str, backfill: str) -> dict[str, Any]:
        return next(r for r in self.pairs if r["primary"] == primary and r["backfill"] == backfill)

    @property
    def best(self) -> dict[str, Any]:
        return min(self.pairs, key=lambda r: (r["avg_mean"], r["primary"], r["backfill"]))

    def best_backfill(self, primary: str) -> str:
        return min(self.policies, key=lambda pb: self.pair(primary, pb)["avg_mean"])

    def backfill_gap(self, primary: str, backfill: str = "SPF", seed: int = 0) -> tuple[float, float, float]:
        """Paired comparison of ``backfill`` with the best backfilling policy
        for ``primary``: mean over weeks of the difference of their AvgWait
        ratios to EASY-FCFS-FCFS, with its bootstrap CI (0 when it is the best)."""
        best = self.best_backfill(primary)
        if best == backfill or backfill not in self.policies:
            return 0.0, 0.0, 0.0
        avg = self.dataset.avg_wait
        base = avg.sel(primary="FCFS", backfill="FCFS").values
        d = (stats.relative(avg.sel(primary=primary, backfill=backfill).values, base)
             - stats.relative(avg.sel(primary=primary, backfill=best).values, base))
        return tuple(float(v) for v in stats.bootstrap_ci(d, seed=seed))  # type: ignore[return-value]


def analyse_lelong(ds, trace: str, seed: int = 0) -> LelongResult:
    pols = tuple(str(x) for x in ds.primary.values)
    pairs = pair_summary(ds.avg_wait.transpose("primary", "backfill", "week").values,
                         ds.max_wait.transpose("primary", "backfill", "week").values, pols, seed=seed)
    return LelongResult(trace, int(ds.sizes["week"]), pols, ds, pairs)


def table_lelong_pairs(r: LelongResult) -> Table:
    rows = [[x["primary"], x["backfill"], x["avg_mean"], _ci(x["avg_ci_low"], x["avg_ci_high"], 3),
             x["avg_d10"], x["avg_d90"], x["max_mean"], x["max_d10"], x["max_d90"], x["maxmax"]]
            for x in sorted(r.pairs, key=lambda x: x["avg_mean"])]
    return Table(["P_R", "P_B", "AvgWait rel.", "95% CI", "AvgWait d10", "AvgWait d90",
                  "MaxWait rel.", "MaxWait d10", "MaxWait d90", "max MaxWait rel."], rows,
                 title=f"The {len(r.pairs)} pairs EASY-P_R-P_B on {r.weeks} resampled weeks of "
                       f"{r.trace} (lelong2017 Figs. 2-3), relative to EASY-FCFS-FCFS",
                 default_digits=3,
                 notes=["AvgWait rel., MaxWait rel.: mean over weeks of the week's value over "
                        "EASY-FCFS-FCFS's on the same week; d10/d90: first and last deciles over weeks; "
                        "95% CI: bootstrap interval of the mean over weeks.",
                        "max MaxWait rel.: the largest waiting time of all weeks over EASY-FCFS-FCFS's "
                        "(lelong2017 Fig. 2).",
                        "LEXP is lelong2017's EXP (largest expansion factor first); jobs with p > p~ removed "
                        "(lelong2017 §7.2)."])


def table_lelong_top(r: LelongResult, n: int = 8) -> Table:
    rows = []
    ranked = sorted(r.pairs, key=lambda x: x["avg_mean"])
    base = r.pair("FCFS", "FCFS")
    for x in ranked[:n] + ([base] if base not in ranked[:n] else []):
        rows.append([f"{x['primary']}-{x['backfill']}", _pct(x["avg_mean"] - 1),
                     _ci(x["avg_ci_low"] - 1, x["avg_ci_high"] - 1, 1, 100),
                     _pct(x["avg_d10"] - 1), _pct(x["avg_d90"] - 1), _pct(x["max_mean"] - 1), _pct(x["maxmax"] - 1)])
    return Table(["EASY-P_R-P_B", "AvgWait %", "95% CI", "d10 %", "d90 %", "MaxWait %", "max MaxWait %"],
                 rows, title=f"Best pairs on {r.trace} ({r.weeks} resampled weeks), change vs EASY-FCFS-FCFS",
                 default_digits=1,
                 notes=["% change of the per-week ratio to EASY-FCFS-FCFS (mean over weeks); negative is better.",
                        "max MaxWait: largest wait of all weeks vs EASY-FCFS-FCFS's."])


def table_lelong_backfill(r: LelongResult) -> Table:
    """lelong2017 Fig. 4 as a matrix: mean AvgWait change (%) vs
    EASY-FCFS-FCFS, rows = primary, columns = backfilling policy; ``*`` marks
    the best backfilling policy of each row."""
    rows = []
    for pr in r.policies:
        vals = {pb: r.pair(pr, pb)["avg_mean"] for pb in r.policies}
        best = r.best_backfill(pr)
        gap = r.backfill_gap(pr, "SPF")
        rows.append([pr] + [f"{_pct(vals[pb] - 1):.1f}" + ("*" if pb == best else "") for pb in r.policies]
                    + [_ci(gap[1], gap[2], 1, 100) if "SPF" in r.policies and best != "SPF" else ""])
    return Table(["P_R \\ P_B", *r.policies, "SPF - best, 95% CI (pp)"], rows,
                 title=f"AvgWait change (%) vs EASY-FCFS-FCFS by backfilling policy, conditioned on the "
                       f"primary policy ({r.trace}, lelong2017 Fig. 4)",
                 notes=["* the best backfilling policy for that primary policy; the CIs of every cell are in "
                        "lelong_pairs and lelong2017 Fig. 4.",
                        "last column: paired bootstrap CI over weeks of SPF's ratio minus the best's "
                        "(blank when SPF is the best); a CI that contains 0 means SPF cannot be told "
                        "apart from the best."])


def _plain_log_ticks(axis) -> None:
    """Plain numbers at 1, 2 and 5 times powers of ten on a log axis (0.5, 1, 2 ...)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def figure_lelong_bi(r: LelongResult, kind: str):
    """lelong2017 Fig. 2 (``kind="max"``: largest MaxWait of all weeks) or
    Fig. 3 (``kind="mean"``: mean per-week MaxWait ratio, with deciles)."""
    from matplotlib.lines import Line2D
    with plots.style():
        fig = plots.figure(6.5, 4.4)
        ax = fig.add_subplot()
        for x in r.pairs:
            c, mk = POLICY_COLORS[x["primary"]], POLICY_MARKERS[x["backfill"]]
            xv = x["avg_mean"]
            yv = x["maxmax"] if kind == "max" else x["max_mean"]
            xerr = [[xv - x["avg_d10"]], [x["avg_d90"] - xv]]
            yerr = None if kind == "max" else [[yv - x["max_d10"]], [x["max_d90"] - yv]]
            ax.errorbar(xv, yv, xerr=xerr, yerr=yerr, fmt="none", ecolor=c, alpha=0.25, lw=0.7)
            ax.plot(xv, yv, ls="none", marker=mk, color=c, mfc=c if x["primary"] == x["backfill"] else "none",
                    ms=5)
        ax.axvline(1, color="0.5", lw=0.6)
        ax.axhline(1, color="0.5", lw=0.6)
        ax.set_xlabel("AvgWait / EASY-FCFS-FCFS's (mean over weeks; bars: deciles)")
        ax.set_ylabel("largest MaxWait of all weeks / EASY-FCFS-FCFS's" if kind == "max"
                      else "MaxWait / EASY-FCFS-FCFS's (mean over weeks; bars: deciles)")
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis)
        h1 = [Line2D([], [], color=POLICY_COLORS[p], lw=2, label=p) for p in r.policies]
        h2 = [Line2D([], [], color="0.3", ls="none", marker=POLICY_MARKERS[p], mfc="none", label=p)
              for p in r.policies]
        leg = ax.legend(handles=h1, title="P_R (colour)", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.add_artist(leg)
        ax.legend(handles=h2, title="P_B (marker)", loc="lower left", bbox_to_anchor=(1.0, 0.0))
        ax.set_title(f"{len(r.pairs)} EASY-P_R-P_B pairs, {r.weeks} resampled weeks of {r.trace} "
                     f"(filled: P_R = P_B)")
    return fig


def figure_lelong_backfill(r: LelongResult):
    """lelong2017 Fig. 4: AvgWait vs EASY-FCFS-FCFS of each backfilling policy,
    grouped by primary policy, with 95% bootstrap CIs."""
    n = len(r.policies)
    with plots.style():
        fig = plots.figure(6.5, 3.4)
        ax = fig.add_subplot()
        width = 0.8 / n
        for j, pb in enumerate(r.policies):
            xs, ys, lo, hi = [], [], [], []
            for i, pr in enumerate(r.policies):
                x = r.pair(pr, pb)
                xs.append(i - 0.4 + (j + 0.5) * width)
                ys.append(x["avg_mean"])
                lo.append(x["avg_mean"] - x["avg_ci_low"])
                hi.append(x["avg_ci_high"] - x["avg_mean"])
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt=POLICY_MARKERS[pb], color=POLICY_COLORS[pb], ms=4,
                        lw=0.8, label=pb)
        ax.axhline(1, color="0.5", lw=0.6)
        ax.set_xticks(range(n), [f"P_R = {p}" for p in r.policies])
        ax.set_ylabel("AvgWait / EASY-FCFS-FCFS's")
        ax.legend(title="P_B", ncols=n, loc="upper center", bbox_to_anchor=(0.5, -0.12))
        ax.set_title(f"Backfilling policy conditioned on the primary policy ({r.trace}, 95% CI over weeks)")
    return fig


# ------------------------------------------------------------ tables part --

@dataclass
class TablesResult:
    dataset: Any
    traces: tuple[str, ...]

    def value(self, trace: str, policy: str, metric: str, overrun="drop", estimate="requested") -> float:
        ds = self.dataset
        ref = [t for t in ds.trace.values if _name(str(t)) == trace][0]
        return float(ds[metric].sel(trace=ref, overrun=overrun, estimate=estimate, policy=policy))


def table_lelong_table1(r: TablesResult) -> Table:
    rows = []
    for pol, label in (("LEXP", "EASY-EXP-EXP"), ("SQF", "EASY-SQF-SQF")):
        for t in r.traces:
            pub = PUBLISHED["lelong_table1"].get((t, pol))
            ours = r.value(t, pol, "avg_wait")
            rows.append([label, t, pub, ours, None if pub is None else ours - pub,
                         None if pub is None else 100 * (ours - pub) / pub])
    return Table(["policy", "trace", "AvgWait published (s)", "AvgWait ours (s)", "diff (s)", "diff %"], rows,
                 title="lelong2017 Table 1: AvgWait on the original logs", digits={"AvgWait ours (s)": 0,
                                                                                   "diff (s)": 0, "diff %": 1},
                 notes=["ours: jobs with p > p~ removed (lelong2017 §7.2), requested times as estimates.",
                        "EXP = LEXP, largest expansion factor first."])


def table_lelong_table2(r: TablesResult, trace: str = "CTC-SP2") -> Table:
    rows = []
    for metric, label in (("avg_wait", "AvgWait"), ("max_wait", "MaxWait")):
        for pol in ("SPF", "FCFS"):
            pub = PUBLISHED["lelong_table2"].get((pol, metric)) if trace == "CTC-SP2" else None
            ours = r.value(trace, pol, metric)
            rows.append([label, f"EASY-{pol}-{pol}", pub, ours, None if pub is None else ours - pub,
                         None if pub is None else 100 * (ours - pub) / pub])
    return Table(["metric", "policy", "published (s)", "ours (s)", "diff (s)", "diff %"], rows,
                 title=f"lelong2017 Table 2: AvgWait and MaxWait on the original {trace} log",
                 digits={"ours (s)": 0, "diff (s)": 0, "diff %": 1},
                 notes=["ours: jobs with p > p~ removed, requested times as estimates."])


def table_lelong_variants(r: TablesResult) -> Table:
    """What was checked: Tables 1-2 under the variants of cleaning and estimates."""
    rows = []
    entries = [(t, pol, "avg_wait", PUBLISHED["lelong_table1"].get((t, pol))) for t in r.traces
               for pol in ("LEXP", "SQF")]
    entries += [(t, pol, m, PUBLISHED["lelong_table2"].get((pol, m)) if t == "CTC-SP2" else None)
                for t in r.traces for pol in ("SPF", "FCFS") for m in ("avg_wait", "max_wait")]
    seen = set()
    for t, pol, m, pub in entries:
        if (t, pol, m) in seen:
            continue
        seen.add((t, pol, m))
        vals = [r.value(t, pol, m, o, e) for o in TABLE_VARIANTS["overrun"] for e in TABLE_VARIANTS["estimate"]]
        rows.append([t, f"EASY-{pol}-{pol}", "AvgWait" if m == "avg_wait" else "MaxWait", pub, *vals])
    cols = [f"{o}/{e}" for o in TABLE_VARIANTS["overrun"] for e in TABLE_VARIANTS["estimate"]]
    return Table(["trace", "policy", "metric", "published (s)", *cols], rows,
                 title="Tables 1-2 under other cleanings and estimates (what was checked)",
                 default_digits=0,
                 notes=["drop: jobs with p > p~ removed (lelong2017 §7.2); kill: kept and killed at p~.",
                        "requested: p~ as the estimate; actual: the clairvoyant runtime."])


def largest_waits(trace: str, policy: str, n: int = 6, overrun: str = "drop", m: int | None = None) -> list[dict]:
    """The ``n`` largest waits of EASY-P-P on the cleaned original log (a
    single deterministic simulation, the one behind Table 2): which jobs set
    MaxWait, and how close the next ones are."""
    jobs, m_ = _cleaned(trace, m, overrun)
    s = sim.simulate(jobs, m_, sim.Policy(policy, policy))
    w = s.wait
    order = np.lexsort((np.arange(w.size), -w))[:n]
    return [{"rank": k + 1, "job": int(jobs.id[i]), "submit": int(jobs.submit[i]), "wait": int(w[i]),
             "q": int(jobs.procs[i]), "req": int(jobs.req[i]), "run": int(jobs.run[i])}
            for k, i in enumerate(order)]


def table_maxwait(waits: dict[str, list[dict]], trace: str) -> Table:
    rows = []
    for pol, items in waits.items():
        pub = PUBLISHED["lelong_table2"].get((pol, "max_wait")) if trace == "CTC-SP2" else None
        for x in items:
            rows.append([f"EASY-{pol}-{pol}", x["rank"], x["job"], x["submit"], x["wait"],
                         None if pub is None else x["wait"] - pub, x["q"], x["req"], x["run"]])
    return Table(["policy", "rank", "job id", "submit (s)", "wait (s)", "wait - published MaxWait (s)", "q",
                  "p~ (s)", "p (s)"], rows,
                 title=f"The largest waits on the original {trace} log (what sets MaxWait in Table 2)",
                 notes=["jobs with p > p~ removed, requested times as estimates; job id: the SWF job number."])


def _closest_rank(items: list[dict], published: float) -> tuple[int, int]:
    k = min(range(len(items)), key=lambda i: abs(items[i]["wait"] - published))
    return items[k]["rank"], items[k]["wait"] - int(published)


def _closest_variant(r: TablesResult) -> tuple[str, float]:
    """The variant whose Tables 1-2 values are closest to the published ones
    (mean absolute relative difference, %)."""
    best = None
    for o in TABLE_VARIANTS["overrun"]:
        for e in TABLE_VARIANTS["estimate"]:
            diffs = []
            for (t, pol), pub in PUBLISHED["lelong_table1"].items():
                if t in r.traces:
                    diffs.append(abs(r.value(t, pol, "avg_wait", o, e) - pub) / pub)
            if "CTC-SP2" in r.traces:
                for (pol, m), pub in PUBLISHED["lelong_table2"].items():
                    diffs.append(abs(r.value("CTC-SP2", pol, m, o, e) - pub) / pub)
            if diffs:
                score = 100 * float(np.mean(diffs))
                if best is None or score < best[1]:
                    best = (f"{o}/{e}", score)
    return best or ("", float("nan"))


# ------------------------------------------------------------ thesis part --

@dataclass
class ThesisTrace:
    trace: str
    dataset: Any
    original: Any | None
    policies: tuple[str, ...]
    threshold: str = "none"

    def rel(self, var: str, policy: str, seed: int = 0) -> dict[str, Any]:
        ds = self.dataset
        return relative_summary(ds[var].sel(policy=policy).values, ds[var].sel(policy="FCFS").values,
                                seed=seed)

    def ratio_42(self, policy: str, seed: int = 0) -> tuple[float, float, float]:
        ds = self.dataset.sel(policy=policy)
        r = stats.relative(ds.mean_bsld_premature.values, ds.mean_bsld_standard.values)
        return tuple(float(v) for v in stats.bootstrap_ci(r, seed=seed))  # type: ignore[return-value]

    def original_value(self, var: str, policy: str, overrun: str = "kill", threshold: str | None = None) -> float:
        """``var`` on the cleaned original log (NaN if not simulated)."""
        if self.original is None:
            return float("nan")
        thr = self.threshold if threshold is None else threshold
        o = self.original
        if overrun not in o.overrun.values or thr not in o.threshold.values:
            return float("nan")
        return float(o[var].sel(policy=policy, overrun=overrun, threshold=thr))

    def ratio_42_original(self, policy: str, overrun: str = "kill", threshold: str | None = None) -> float:
        return float(stats.relative(self.original_value("mean_bsld_premature", policy, overrun, threshold),
                                    self.original_value("mean_bsld_standard", policy, overrun, threshold)))

    def classes(self, policy: str) -> np.ndarray:
        """Mean share (%) of the jobs in each bsld class over samples."""
        c = self.dataset.bsld_class_jobs.sel(policy=policy).values.astype(float)
        return 100 * np.nanmean(c / c.sum(axis=-1, keepdims=True), axis=0)


def analyse_thesis(datasets: dict[str, Any], original, threshold: int | None) -> list[ThesisTrace]:
    out = []
    for name, ds in datasets.items():
        orig = None
        if original is not None:
            refs = [t for t in original.trace.values if _name(str(t)) == name]
            orig = original.sel(trace=refs[0]) if refs else None
        out.append(ThesisTrace(name, ds, orig, tuple(str(x) for x in ds.policy.values),
                               sim.format_duration(threshold)))
    return out


def table_thesis_variants(res: list[ThesisTrace]) -> Table:
    """What was checked for Table 4.2: the ratio on the original logs with
    and without the threshold, with p > p~ jobs kept (killed) or removed, and
    how many jobs SQF backfills in each case."""
    rows = []
    variants = [("kill", None), ("kill", "none"), ("drop", None), ("drop", "none")]
    for t in res:
        for pol in t.policies:
            pub = PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace)
            vals = [t.ratio_42_original(pol, o, thr) for o, thr in variants]
            bf = [t.original_value("backfilled", pol, o, thr) for o, thr in variants[:2]]
            rows.append([t.trace, pol, pub, t.ratio_42(pol)[0], *vals, *bf])
    th = res[0].threshold if res else "T"
    return Table(["trace", "policy", "published", "resampled", f"log, kill, T={th}", "log, kill, no T",
                  f"log, drop, T={th}", "log, drop, no T", f"backfilled, log, T={th}", "backfilled, log, no T"],
                 rows, title="thesis Table 4.2 under other settings (what was checked)",
                 digits={f"backfilled, log, T={th}": 0, "backfilled, log, no T": 0},
                 notes=["resampled: our Table 4.2 value (mean over resampled traces); log: the cleaned "
                        "original log; kill: jobs with p > p~ kept and killed at p~; drop: removed.",
                        "backfilled: jobs started by backfilling on the original log (kill); thesis §4.3.4 "
                        "reports none for SQF in every sample, which Proposition 1 guarantees only "
                        "without a threshold."])


def table_thesis_42(res: list[ThesisTrace], seed: int = 0) -> Table:
    rows = []
    for t in res:
        for pol in t.policies:
            pub = PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace)
            mean, lo, hi = t.ratio_42(pol, seed)
            rows.append([t.trace, pol, pub, mean, _ci(lo, hi, 2), t.ratio_42_original(pol),
                         None if pub is None else mean - pub])
    return Table(["trace", "policy", "published", "ours", "95% CI", "original log", "diff"], rows,
                 title="thesis Table 4.2: mean bsld of premature jobs / mean bsld of standard jobs",
                 notes=["premature: p~ >= 100 p; ours: mean over resampled traces of the per-trace ratio, "
                        "95% bootstrap CI over them; original log: the same policy on the cleaned log.",
                        "Thesis' SDSC Blue is SDSC-BLUE."])


def table_thesis_gains(res: list[ThesisTrace], seed: int = 0) -> Table:
    rows = []
    for t in res:
        for pol in t.policies:
            if pol == "FCFS":
                continue
            row = [t.trace, pol]
            for var in ("mean_bsld", "mean_ppbsld", "avg_wait"):
                s = t.rel(var, pol, seed)
                row += [_pct(1 - s["mean"]), _ci(1 - s["ci_high"], 1 - s["ci_low"], 1, 100)]
            rows.append(row)
    return Table(["trace", "policy", "bsld gain %", "95% CI", "pp-bsld gain %", "95% CI ", "wait gain %",
                  "95% CI  "], rows, default_digits=1,
                 title="Gains over EASY-FCFS (thesis §4.3.1, Fig. 4.1): mean bsld, pp-bsld and wait",
                 notes=["gain: 1 - (policy's mean / FCFS's mean on the same resampled trace), mean over "
                        "traces; 95% bootstrap CI over the resampled traces. Positive is better."])


def table_thesis_classes(res: list[ThesisTrace]) -> Table:
    rows = []
    for t in res:
        base = t.dataset.bsld_class_jobs.sel(policy="FCFS").values.astype(float)
        for pol in t.policies:
            share = t.classes(pol)
            c = t.dataset.bsld_class_jobs.sel(policy=pol).values.astype(float)
            worst = float(np.nanmean(base[:, 3]) / np.nanmean(c[:, 3])) if np.nanmean(c[:, 3]) > 0 else float("nan")
            rows.append([t.trace, pol, *share, worst])
    return Table(["trace", "policy", "% bsld = 1", "% 1-10", "% 10-100", "% 100+", "FCFS / policy (100+)"],
                 rows, title="bsld categories (thesis Fig. 4.3), mean share of the jobs over resampled traces",
                 notes=["categories: bsld = 1; 1 < bsld < 10; 10 <= bsld < 100; bsld >= 100.",
                        "last column: how many times fewer jobs with bsld >= 100 than under FCFS."])


def table_thesis_backfilled(res: list[ThesisTrace], seed: int = 0) -> Table:
    rows = []
    for t in res:
        for pol in t.policies:
            b = t.dataset.backfilled.sel(policy=pol).values.astype(float)
            jobs = t.dataset.jobs.sel(policy=pol).values.astype(float)
            s = t.rel("backfilled", pol, seed)
            forced = t.dataset.forced.sel(policy=pol).values.astype(float)
            rows.append([t.trace, pol, float(np.mean(b)), float(np.mean(100 * b / jobs)),
                         _pct(s["mean"] - 1) if pol != "FCFS" else None,
                         _ci(s["ci_low"] - 1, s["ci_high"] - 1, 1, 100) if pol != "FCFS" else "",
                         float(np.mean(100 * forced / jobs))])
    return Table(["trace", "policy", "backfilled jobs", "% of jobs", "change vs FCFS %", "95% CI",
                  "% started over T"], rows,
                 title="Backfilled jobs per resampled trace (thesis §4.3.4, Fig. 4.4)", default_digits=1,
                 notes=["started over T: jobs that waited more than the threshold (moved to the head of "
                        "the queue); they are what lets SQF backfill at all (thesis Proposition 1)."])


def thesis_claims(res: list[ThesisTrace], seed: int = 0) -> dict[str, tuple[float, str]]:
    """Our values of the thesis' text claims (:data:`CLAIMS`): (value, where)."""
    out: dict[str, tuple[float, str]] = {}

    def best(var):
        cands = []
        for t in res:
            for pol in t.policies:
                if pol != "FCFS":
                    r = t.rel(var, pol, seed)
                    ci = _ci(1 - r["ci_high"], 1 - r["ci_low"], 1, 100)
                    cands.append((1 - r["mean"], f"{pol} on {t.trace}, CI {ci}"))
        return max(cands, key=lambda x: x[0]) if cands else (float("nan"), "")

    for key, var in (("thesis_gain_bsld", "mean_bsld"), ("thesis_gain_wait", "avg_wait"),
                     ("thesis_gain_ppbsld", "mean_ppbsld")):
        v, where = best(var)
        out[key] = (100 * v, where)
    if any("SAF" in t.policies for t in res):
        fewer, imm = [], []
        for t in res:
            if "SAF" not in t.policies:
                continue
            c = t.dataset.bsld_class_jobs
            f, s = c.sel(policy="FCFS").values.astype(float), c.sel(policy="SAF").values.astype(float)
            fewer.append((float(np.nanmean(f[:, 3]) / np.nanmean(s[:, 3])) if np.nanmean(s[:, 3]) else np.nan, t.trace))
            imm.append((100 * (float(np.nanmean(s[:, 0]) / np.nanmean(f[:, 0])) - 1), t.trace))
        v = max(fewer, key=lambda x: -np.inf if not np.isfinite(x[0]) else x[0])
        out["thesis_bsld100_saf"] = (v[0], f"SAF on {v[1]}")
        v = max(imm, key=lambda x: x[0])
        out["thesis_immediate_saf"] = (v[0], f"SAF on {v[1]}")
    for pol in ("SAF", "SPF"):
        vals = [100 * (1 - t.rel("backfilled", pol, seed)["mean"]) for t in res if pol in t.policies]
        if vals:
            out[f"thesis_backfilled_{pol.lower()}"] = (float(np.mean(vals)), f"mean over {len(vals)} traces")
    return out


def thesis_comparison(res: list[ThesisTrace]) -> dict[str, Any]:
    """How our Table 4.2 compares with the thesis': mean |diff|, published
    values outside our CI, cells where the original-log value is closer to the
    published one than the resampled value, and the agreement of the policy
    order within each trace (% of policy pairs ranked the same way)."""
    cells = [(t, pol, PUBLISHED["thesis_table_4_2"][pol][t.trace]) for t in res for pol in t.policies
             if PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace) is not None]
    out: dict[str, Any] = {"cells": len(cells), "mean_abs_diff": float("nan"), "outside_ci": 0,
                           "log_closer": 0, "order_pairs": 0, "order_agree": 0}
    if not cells:
        return out
    diffs = []
    for t, pol, pub in cells:
        m, lo, hi = t.ratio_42(pol)
        diffs.append(abs(m - pub))
        out["outside_ci"] += int(not lo <= pub <= hi)
        out["log_closer"] += int(abs(t.ratio_42_original(pol) - pub) < abs(m - pub))
    out["mean_abs_diff"] = float(np.mean(diffs))
    for t in res:
        pols = [pol for pol in t.policies if PUBLISHED["thesis_table_4_2"].get(pol, {}).get(t.trace) is not None]
        ours = {pol: t.ratio_42(pol)[0] for pol in pols}
        pub = {pol: PUBLISHED["thesis_table_4_2"][pol][t.trace] for pol in pols}
        for i, a in enumerate(pols):
            for b in pols[i + 1:]:
                out["order_pairs"] += 1
                out["order_agree"] += int(np.sign(ours[a] - ours[b]) == np.sign(pub[a] - pub[b]))
    return out


def figure_thesis_cumulative(res: list[ThesisTrace]):
    """thesis Fig. 4.1: cumulative weekly mean bsld, pp-bsld and wait, mean
    over samples (line) with the 10-90 percentile band."""
    n = len(res)
    cols = (("cum_mean_bsld", "mean bsld"), ("cum_mean_ppbsld", "mean pp-bsld"), ("cum_avg_wait", "mean wait (h)"))
    with plots.style():
        fig = plots.figure(7.0, 1.6 * n + 0.7)
        axes = fig.subplots(n, 3, squeeze=False)
        for row, t in zip(axes, res):
            for ax, (var, label) in zip(row, cols):
                for pol in t.policies:
                    v = t.dataset[var].sel(policy=pol).values.astype(float)
                    if var == "cum_avg_wait":
                        v = v / 3600
                    x = np.arange(v.shape[-1])
                    with np.errstate(all="ignore"), _quiet():
                        mean = np.nanmean(v, axis=0)
                        lo, hi = stats.deciles(v, axis=0)
                    c = POLICY_COLORS[pol]
                    ax.plot(x, mean, color=c, lw=1.0, label=pol)
                    ax.fill_between(x, lo, hi, color=c, alpha=0.15, lw=0)
                ax.set_ylabel(label)
            row[0].set_ylabel(f"{t.trace}\nmean bsld")
        for ax, (_, label) in zip(axes[0], cols):
            ax.set_title(f"cumulative {label}")
        for ax in axes[-1]:
            ax.set_xlabel("week of the resampled trace")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside upper center", ncols=len(labels),
                   title="lines: mean over resampled traces; bands: 10th-90th percentiles")
    return fig


@contextlib.contextmanager
def _quiet():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def _boxes(ax, data: list[np.ndarray], labels, colors):
    bp = ax.boxplot([d if d.size else np.array([np.nan]) for d in data], tick_labels=labels,
                    patch_artist=True, widths=0.6, showfliers=True,
                    flierprops={"markersize": 2, "alpha": 0.4}, medianprops={"color": "k", "lw": 0.8})
    for patch, c in zip(bp["boxes"], colors):
        patch.set_facecolor(c)
        patch.set_alpha(0.5)


def figure_thesis_delayed(res: list[ThesisTrace]):
    """thesis Fig. 4.2: processors q of the 100 jobs with the highest bsld of
    each resampled trace (all samples pooled)."""
    n = len(res)
    with plots.style():
        fig = plots.figure(min(2.0 * n + 0.5, 7.5), 2.6)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, t in zip(axes, res):
            data = []
            for pol in t.policies:
                q = t.dataset.top_bsld_procs.sel(policy=pol).values.ravel()
                data.append(q[q > 0].astype(float))
            _boxes(ax, data, t.policies, [POLICY_COLORS[p] for p in t.policies])
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
            ax.set_title(t.trace)
            ax.tick_params(axis="x", labelsize=6.5, rotation=45)
        axes[0].set_ylabel(f"q of the {TOP} jobs with highest bsld")
    return fig


def figure_thesis_classes(res: list[ThesisTrace]):
    """thesis Fig. 4.3: share of the jobs in each bsld category, per policy."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.2 + 1.9 * ((n + 2) // 3))
        axes = fig.subplots((n + 2) // 3, min(n, 3), squeeze=False).ravel()
        for ax, t in zip(axes, res):
            k = len(t.policies)
            width = 0.8 / k
            for j, pol in enumerate(t.policies):
                share = t.classes(pol)
                ax.bar(np.arange(4) - 0.4 + (j + 0.5) * width, share, width, color=POLICY_COLORS[pol], label=pol)
            ax.set_xticks(range(4), list(BSLD_CLASSES), fontsize=7)
            ax.set_xlabel("bsld category", fontsize=7)
            ax.set_yscale("log")
            _plain_log_ticks(ax.yaxis)
            ax.set_title(t.trace)
            ax.set_ylabel("% of jobs")
        for ax in axes[n:]:
            ax.set_visible(False)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside upper center", ncols=len(labels))
    return fig


def figure_thesis_backfilled(res: list[ThesisTrace]):
    """thesis Fig. 4.4: backfilled jobs per resampled trace, per policy."""
    n = len(res)
    with plots.style():
        fig = plots.figure(min(2.0 * n + 0.5, 7.5), 2.6)
        axes = fig.subplots(1, n, squeeze=False)[0]
        for ax, t in zip(axes, res):
            data = [t.dataset.backfilled.sel(policy=p).values.astype(float) for p in t.policies]
            _boxes(ax, data, t.policies, [POLICY_COLORS[p] for p in t.policies])
            ax.set_title(t.trace)
            ax.tick_params(axis="x", labelsize=6.5, rotation=45)
            ax.tick_params(axis="y", labelsize=7)
        axes[0].set_ylabel("backfilled jobs per resampled trace")
    return fig


# ------------------------------------------------------------ bandit part --

@dataclass
class BanditTrace:
    trace: str
    dataset: Any
    policies: tuple[str, ...]
    change: dict[str, tuple[float, float, float]]

    @property
    def best(self) -> str:
        return min((p for p in self.policies if p != "FCFS"), key=lambda p: self.change[p][0])


def analyse_bandit(datasets: dict[str, Any], seed: int = 0) -> list[BanditTrace]:
    out = []
    for name, ds in datasets.items():
        pols = tuple(str(x) for x in ds.policy.values)
        base = ds.sum_wait.sel(policy="FCFS").values
        change = {p: total_change(ds.sum_wait.sel(policy=p).values, base, seed=seed) for p in pols}
        out.append(BanditTrace(name, ds, pols, change))
    return out


def _bandit_columns(res: list[BanditTrace]) -> list[str]:
    order = [p for p in PUBLISHED["bandit_table2"]["KTH-SP2"]]
    have = {p for t in res for p in t.policies}
    return [p for p in order if p in have] + sorted(have - set(order) - {"FCFS"})


def table_bandit(res: list[BanditTrace]) -> Table:
    """online-bandit Table 2, published beside ours, wide (one row each)."""
    cols = _bandit_columns(res)
    rows = []
    for t in res:
        pub = PUBLISHED["bandit_table2"].get(t.trace, {})
        rows.append([t.trace, "published", *[pub.get(p) for p in cols]])
        rows.append([t.trace, "ours", *[_pct(t.change[p][0]) if p in t.change else None for p in cols]])
    for missing in MISSING_TRACES:
        pub = PUBLISHED["bandit_table2"][missing]
        rows.append([missing, "published (not bundled)", *[pub.get(p) for p in cols]])
    return Table(["trace", "values", *cols], rows, default_digits=0,
                 title="online-bandit Table 2: change (%) of the total waiting time vs EASY(FCFS, Θ)",
                 notes=["ours: Eq. 11 of online-bandit over the resampled traces; negative is better; 95% CIs "
                        "in bandit_table2_ci.", "ANL-Intrepid and UniLu-Gaia are not bundled: published only."])


def table_bandit_ci(res: list[BanditTrace]) -> Table:
    cols = _bandit_columns(res)
    swapped = {t: _swap(v, SWAPS["S/L swapped for P, Q, A"]) for t, v in PUBLISHED["bandit_table2"].items()}
    rows = []
    for t in res:
        pub = PUBLISHED["bandit_table2"].get(t.trace, {})
        for p in cols:
            if p not in t.change:
                continue
            est, lo, hi = t.change[p]
            rows.append([t.trace, p, pub.get(p), _pct(est), _ci(lo, hi, 1, 100),
                         None if p not in pub else _pct(est) - pub[p], swapped.get(t.trace, {}).get(p),
                         bool(stats.significant(lo, hi, 0.0))])
    return Table(["trace", "policy", "published %", "ours %", "95% CI", "diff (pp)",
                  "published, S/L swapped %", "CI excludes 0"], rows, default_digits=1,
                 title="online-bandit Table 2 with confidence intervals",
                 notes=["95% CI: percentile bootstrap over the resampled traces (pairs kept together).",
                        "published, S/L swapped: the published value of the opposite policy for P, Q and A "
                        "(SPF<->LPF, SQF<->LQF, SAF<->LAF)."])


def table_bandit_mapping(rows: list[dict[str, Any]]) -> Table:
    return Table(["labels of the published table", "values", "mean |diff| (pp)", "same sign %", "correlation",
                  "traces with the same best policy"],
                 [[r["mapping"], r["n"], r["mean_abs_diff"], r["sign_agreement"], r["correlation"],
                   f"{r['same_best']} of {r['traces']}"] for r in rows],
                 title="online-bandit Table 2: which reading of its labels matches ours", default_digits=2,
                 notes=["same sign: both below -1, both within +-1, or both above +1 (percentage points)."])


def figure_bandit(res: list[BanditTrace]):
    """online-bandit Table 2 as dots: ours with 95% CI, the published values
    (x), and the published values with S/L swapped for P, Q, A (hollow)."""
    cols = _bandit_columns(res)
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.5 * n + 0.8)
        axes = fig.subplots(n, 1, squeeze=False, sharex=True)[:, 0]
        for ax, t in zip(axes, res):
            pub = PUBLISHED["bandit_table2"].get(t.trace, {})
            sw = _swap(pub, SWAPS["S/L swapped for P, Q, A"])
            for i, p in enumerate(cols):
                if p in t.change:
                    est, lo, hi = (100 * v for v in t.change[p])
                    ax.errorbar(i, est, yerr=[[est - lo], [hi - est]], fmt="o", color=POLICY_COLORS[p], ms=4, lw=1)
                if p in pub:
                    ax.plot(i + 0.18, pub[p], "x", color="#d62728", ms=5)
                    if sw[p] != pub[p]:
                        ax.plot(i + 0.18, sw[p], "o", mfc="none", mec="0.4", ms=5)
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_ylabel(f"{t.trace}\n% vs FCFS")
        axes[-1].set_xticks(range(len(cols)), cols)
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], color="0.2", marker="o", ls="none", label="ours (95% CI)"),
                   Line2D([], [], color="#d62728", marker="x", ls="none", label="published"),
                   Line2D([], [], color="0.4", marker="o", mfc="none", ls="none",
                          label="published, S/L swapped (P, Q, A)")]
        fig.legend(handles=handles, loc="outside lower center", ncols=3)
    return fig


def figure_bandit_cumulative(res: list[BanditTrace]):
    """online-bandit Fig. 2 for every trace: change of the cumulative total
    waiting time (jobs finished so far) vs FCFS over the weeks, ratio of
    sums over the resampled traces; dashed: 10th/90th percentiles of the
    per-trace ratios for the best policy."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.2 + 1.9 * ((n + 1) // 2))
        axes = fig.subplots((n + 1) // 2, min(n, 2), squeeze=False).ravel()
        for ax, t in zip(axes, res):
            base = t.dataset.cum_sum_wait.sel(policy="FCFS").values.astype(float)
            for p in t.policies:
                if p == "FCFS":
                    continue
                v = t.dataset.cum_sum_wait.sel(policy=p).values.astype(float)
                with _quiet(), np.errstate(all="ignore"):
                    curve = 100 * (v.sum(axis=0) / base.sum(axis=0) - 1)
                x = np.arange(curve.size)
                ax.plot(x, curve, color=POLICY_COLORS[p], lw=1.0, label=p)
                if p == t.best:
                    with _quiet(), np.errstate(all="ignore"):
                        lo, hi = stats.deciles(100 * (stats.relative(v, base) - 1), axis=0)
                    ax.plot(x, lo, color=POLICY_COLORS[p], ls="--", lw=0.7)
                    ax.plot(x, hi, color=POLICY_COLORS[p], ls="--", lw=0.7)
            ax.axhline(0, color="0.5", lw=0.6)
            ax.set_title(t.trace)
            ax.set_ylabel("% vs FCFS")
            ax.set_xlabel("week")
        for ax in axes[n:]:
            ax.set_visible(False)
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=6)
    return fig


# -------------------------------------------------------------- findings --

def _fmt(x, digits=1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def _spf_ties(lel: LelongResult) -> int:
    """Primary policies for which SPF backfilling is the best or within the
    paired CI of the best."""
    if "SPF" not in lel.policies:
        return 0
    return sum(1 for pr in lel.policies if lel.backfill_gap(pr, "SPF")[1] <= 0)


def findings(res: dict[str, Any]) -> dict[str, str]:
    """Short Markdown statements computed from the results, one per part (the
    notebook's commentary stays free of numbers)."""
    out = {}
    lel: LelongResult | None = res.get("lelong")
    if lel is not None:
        b = lel.best
        n_sig = sum(1 for x in lel.pairs if x["significant"] and x["avg_mean"] < 1)
        bf_best = {pr: lel.best_backfill(pr) for pr in lel.policies}
        most = max(sorted(set(bf_best.values())), key=lambda k: list(bf_best.values()).count(k))
        spf_tie = _spf_ties(lel)
        out["lelong"] = (
            f"On {lel.weeks} resampled weeks of {lel.trace}, the best pair is EASY-{b['primary']}-{b['backfill']}: "
            f"AvgWait {_fmt(_pct(b['avg_mean'] - 1))} % vs EASY-FCFS-FCFS (95% CI "
            f"{_ci(b['avg_ci_low'] - 1, b['avg_ci_high'] - 1, 1, 100)} %; lelong2017 §5.1: about -30 %), while "
            f"its mean per-week MaxWait is {_fmt(_pct(b['max_mean'] - 1))} % and its largest MaxWait "
            f"{_fmt(_pct(b['maxmax'] - 1))} % off the baseline's. {n_sig} of {len(lel.pairs)} pairs have a CI "
            f"entirely below the baseline. The best backfilling policy is {most} for "
            f"{list(bf_best.values()).count(most)} of the {len(lel.policies)} primary policies "
            f"(lelong2017 §5.2: SPF for all of them); SPF is the best or cannot be told apart from the "
            f"best (paired 95% CI of the difference contains 0) for {spf_tie} of them.")
    tab: TablesResult | None = res.get("tables_result")
    if tab is not None:
        variant, score = _closest_variant(tab)
        out["tables"] = (f"Of the cleaning/estimate variants tried, {variant} is closest to the published "
                         f"Tables 1-2 (mean absolute difference {_fmt(score)} % over their entries).")
        mw = res.get("maxwait")
        if mw and "CTC-SP2" in tab.traces:
            for pol in ("SPF", "FCFS"):
                rank, diff = _closest_rank(mw[pol], PUBLISHED["lelong_table2"][(pol, "max_wait")])
                out["tables"] += (f" The published MaxWait of EASY-{pol}-{pol} is closest to our "
                                  f"{_ordinal(rank)} largest wait, which differs from it by {diff:+d} s.")
    th: list[ThesisTrace] | None = res.get("thesis")
    if th:
        c = thesis_comparison(th)
        gt1 = sum(1 for t in th for pol in t.policies if t.ratio_42(pol)[0] > 1)
        total = sum(len(t.policies) for t in th)
        text = (f"Premature jobs have a higher mean bsld than standard ones in {gt1} of {total} "
                f"(trace, policy) cells, as in the thesis.")
        if c["cells"]:
            text += (f" Against Table 4.2: mean |diff| {_fmt(c['mean_abs_diff'], 2)}; the published value lies "
                     f"outside our 95% CI in {c['outside_ci']} of {c['cells']} cells; our original-log value is "
                     f"closer to it than our resampled one in {c['log_closer']} of {c['cells']}; within each "
                     f"trace, {c['order_agree']} of {c['order_pairs']} pairs of policies are ordered as in the "
                     f"thesis.")
        sqf = [t for t in th if "SQF" in t.policies]
        if sqf:
            share = np.mean([np.mean(100 * t.dataset.backfilled.sel(policy="SQF").values
                                     / t.dataset.jobs.sel(policy="SQF").values) for t in sqf])
            no_t = int(np.nansum([t.original_value("backfilled", "SQF", "kill", "none") for t in sqf]))
            text += (f" SQF backfills {_fmt(share)} % of the jobs on our resampled traces with the threshold, "
                     f"and {no_t} job(s) on the original logs without it (the thesis: none).")
        out["thesis"] = text
    bd: list[BanditTrace] | None = res.get("bandit")
    if bd:
        mp = res.get("bandit_mapping") or []
        best_map = min(mp, key=lambda r: r["mean_abs_diff"]) if mp else None
        bests = ", ".join(f"{t.trace}: {t.best} ({_fmt(_pct(t.change[t.best][0]), 0)} %)" for t in bd)
        text = f"Best fixed policy per trace (ours): {bests}."
        if best_map is not None:
            text += (f" The reading of the published labels closest to ours is '{best_map['mapping']}' "
                     f"(mean |diff| {_fmt(best_map['mean_abs_diff'])} pp, same sign in "
                     f"{_fmt(best_map['sign_agreement'], 0)} % of cells, "
                     f"correlation {_fmt(best_map['correlation'], 2)}, "
                     f"same best policy on {best_map['same_best']} of {best_map['traces']} traces; as printed: "
                     f"mean |diff| {_fmt(mp[0]['mean_abs_diff'])} pp, correlation {_fmt(mp[0]['correlation'], 2)}).")
        out["bandit"] = text
    return out


# ---------------------------------------------------------------- numbers --

def numbers(res: dict[str, Any], p: Params) -> dict[str, Any]:
    """The flat dict of key numbers for the paper (``numbers.json``)."""
    n: dict[str, Any] = {"profile": p.profile, "seed": p.seed}
    lel: LelongResult | None = res.get("lelong")
    if lel is not None:
        b, base = lel.best, lel.pair("FCFS", "FCFS")
        n.update({
            "lelong_trace": lel.trace, "lelong_weeks": lel.weeks, "lelong_pairs": len(lel.pairs),
            "lelong_best_pair": f"EASY-{b['primary']}-{b['backfill']}",
            "lelong_best_avgwait_pct": _pct(b["avg_mean"] - 1),
            "lelong_best_avgwait_ci_low_pct": _pct(b["avg_ci_low"] - 1),
            "lelong_best_avgwait_ci_high_pct": _pct(b["avg_ci_high"] - 1),
            "lelong_best_maxwait_pct": _pct(b["max_mean"] - 1),
            "lelong_best_maxmax_pct": _pct(b["maxmax"] - 1),
            "lelong_pairs_better_significant": sum(1 for x in lel.pairs if x["significant"] and x["avg_mean"] < 1),
            "lelong_fcfs_avgwait_mean_s": float(np.nanmean(lel.dataset.avg_wait.sel(primary="FCFS", backfill="FCFS"))),
            "lelong_published_best_gain_pct": CLAIMS["lelong_best_gain"][2],
        })
        bf_best = [lel.best_backfill(pr) for pr in lel.policies]
        n["lelong_spf_best_backfill_count"] = bf_best.count("SPF")
        n["lelong_spf_tied_best_backfill_count"] = _spf_ties(lel)
        n["lelong_policies"] = len(lel.policies)
        n["lelong_fcfs_fcfs_left_out_weeks"] = base["avg_left_out"]
    tab: TablesResult | None = res.get("tables_result")
    if tab is not None:
        for (t, pol), pub in PUBLISHED["lelong_table1"].items():
            if t in tab.traces:
                key = f"t1_{t.split('-')[0].lower()}_{pol.lower()}"
                n[key + "_pub_s"] = pub
                n[key + "_ours_s"] = tab.value(t, pol, "avg_wait")
        if "CTC-SP2" in tab.traces:
            for (pol, m), pub in PUBLISHED["lelong_table2"].items():
                key = f"t2_{pol.lower()}_{m}"
                n[key + "_pub_s"] = pub
                n[key + "_ours_s"] = tab.value("CTC-SP2", pol, m)
        mw = res.get("maxwait")
        if mw and "CTC-SP2" in tab.traces:
            for pol in ("SPF", "FCFS"):
                rank, diff = _closest_rank(mw[pol], PUBLISHED["lelong_table2"][(pol, "max_wait")])
                n[f"t2_{pol.lower()}_maxwait_closest_rank"] = rank
                n[f"t2_{pol.lower()}_maxwait_closest_diff_s"] = diff
        variant, score = _closest_variant(tab)
        n["tables_closest_variant"] = variant
        n["tables_closest_variant_mad_pct"] = score
    th: list[ThesisTrace] | None = res.get("thesis")
    if th:
        n["thesis_traces"] = ", ".join(t.trace for t in th)
        n["thesis_samples"] = p.thesis_samples
        n["thesis_threshold_s"] = p.thesis_threshold if p.thesis_threshold is not None else "none"
        n["thesis_threshold_days"] = p.thesis_threshold / 86400 if p.thesis_threshold is not None else "none"
        for key, (v, where) in thesis_claims(th).items():
            n[f"{key}_ours"] = v
            n[f"{key}_where"] = where
            n[f"{key}_pub"] = CLAIMS[key][2]
        c = thesis_comparison(th)
        n.update({"t42_cells": c["cells"], "t42_mean_abs_diff": c["mean_abs_diff"],
                  "t42_outside_ci": c["outside_ci"], "t42_log_closer": c["log_closer"],
                  "t42_order_pairs": c["order_pairs"], "t42_order_agree": c["order_agree"]})
        n["t42_above_one"] = sum(1 for t in th for pol in t.policies if t.ratio_42(pol)[0] > 1)
        n["t42_total"] = sum(len(t.policies) for t in th)
        sqf = [t for t in th if "SQF" in t.policies]
        if sqf:
            share = lambda t, v: float(np.mean(100 * t.dataset[v].sel(policy="SQF").values  # noqa: E731
                                               / t.dataset.jobs.sel(policy="SQF").values))
            n["thesis_sqf_backfilled_pct"] = float(np.mean([share(t, "backfilled") for t in sqf]))
            n["thesis_sqf_forced_pct"] = float(np.mean([share(t, "forced") for t in sqf]))
            n["thesis_sqf_backfilled_log_with_T"] = int(np.nansum([t.original_value("backfilled", "SQF")
                                                                   for t in sqf]))
            n["thesis_sqf_backfilled_log_no_T"] = int(np.nansum([t.original_value("backfilled", "SQF", "kill", "none")
                                                                 for t in sqf]))
    bd: list[BanditTrace] | None = res.get("bandit")
    if bd:
        n["bandit_traces"] = ", ".join(t.trace for t in bd)
        n["bandit_samples"] = p.bandit_samples
        n["bandit_weeks"] = p.bandit_weeks
        n["bandit_threshold_h"] = p.bandit_threshold / 3600 if p.bandit_threshold is not None else "none"
        n["bandit_missing_traces"] = ", ".join(MISSING_TRACES)
        for t in bd:
            k = _key(t.trace)
            n[f"bandit_{k}_best"] = t.best
            n[f"bandit_{k}_best_pct"] = _pct(t.change[t.best][0])
            n[f"bandit_{k}_best_ci_low_pct"] = _pct(t.change[t.best][1])
            n[f"bandit_{k}_best_ci_high_pct"] = _pct(t.change[t.best][2])
        for r in res.get("bandit_mapping") or []:
            key = {"as printed": "printed", "S/L swapped for P, Q, A": "swapped_pqa",
                   "S/L swapped for P, Q, A, R, EXP": "swapped_all"}.get(r["mapping"], r["mapping"])
            n[f"bandit_map_{key}_mad_pp"] = r["mean_abs_diff"]
            n[f"bandit_map_{key}_same_sign_pct"] = r["sign_agreement"]
            n[f"bandit_map_{key}_corr"] = r["correlation"]
            n[f"bandit_map_{key}_same_best"] = r["same_best"]
            n[f"bandit_map_{key}_traces"] = r["traces"]
    return n


def table_claims(res: dict[str, Any], p: Params) -> Table:
    rows = []
    lel: LelongResult | None = res.get("lelong")
    if lel is not None:
        b = lel.best
        src, text, pub = CLAIMS["lelong_best_gain"]
        ci = _ci(1 - b["avg_ci_high"], 1 - b["avg_ci_low"], 1, 100)
        rows.append([src, text.replace("KTH-SP2", lel.trace), pub, -_pct(b["avg_mean"] - 1),
                     f"EASY-{b['primary']}-{b['backfill']}, CI {ci}"])
    th: list[ThesisTrace] | None = res.get("thesis")
    if th:
        for key, (v, where) in thesis_claims(th).items():
            src, text, pub = CLAIMS[key]
            rows.append([src, text, pub, v, where])
    return Table(["source", "claim", "published", "ours", "where"], rows, default_digits=1,
                 title="Claims of the papers' text, checked",
                 notes=["gains are positive when the policy beats FCFS; 'SAF divides ... by' = FCFS's count "
                        "over SAF's."])


# --------------------------------------------------------------------- run --

def run(params: Params | None = None, /, *, log: Callable = print, progress: bool = False,
        **kw) -> dict[str, Any]:
    """Run the study and write every output under ``params.outdir``
    (default ``results/policies``), each file atomically:

    * ``datasets/*.nc`` -- the campaigns' datasets (provenance in their attributes);
    * ``tables/<name>.{csv,md}``, ``figures/<name>.{png,pdf}``;
    * ``numbers.json`` -- flat key numbers for the paper; ``findings.json``.

    ``params`` is a :class:`Params` (from :func:`validate`), or give
    :func:`validate`'s keyword arguments.  Returns a dict: ``params``,
    ``datasets``, ``lelong``, ``tables_result``, ``thesis``, ``bandit``,
    ``bandit_mapping``, ``tables`` (name -> Table), ``figures`` (name ->
    [png, pdf]), ``numbers``, ``findings``, ``files``, ``outdir``, ``seconds``.
    """
    t0 = time.perf_counter()
    p = params if isinstance(params, Params) else validate(**kw)
    if isinstance(params, Params) and kw:
        raise InputError("run: give either a Params or keyword parameters, not both")
    out = p.outdir
    camps = campaigns(p)
    datasets: dict[str, Any] = {}
    with campaign.Runner(p.workers, p.scheduler, p.cache_dir, log) as runner:
        for key, c in camps.items():
            datasets[key] = runner.run(c, progress=progress)
    files: list[Path] = []
    for key, ds in datasets.items():
        ds = ds.copy()
        if "policy" in ds.coords:
            ds["policy"].attrs["long_name"] = "queue policy P (P_R = P_B)"
        if "bsld_class" in ds.coords:
            ds = ds.assign_coords(bsld_class=list(BSLD_CLASSES))
            ds["bsld_class"].attrs["long_name"] = "bounded-slowdown category"
        if "rank" in ds.coords:
            ds["rank"].attrs["long_name"] = "rank by decreasing bounded slowdown (0 = most delayed)"
        datasets[key] = ds
        files.append(store.write_dataset(ds, out / "datasets" / (key.replace(":", "-") + ".nc")))

    res: dict[str, Any] = {"params": p, "datasets": datasets}
    tabs: dict[str, Table] = {}
    figs: dict[str, Any] = {}
    if "lelong" in datasets:
        lel = analyse_lelong(datasets["lelong"], p.lelong_trace.name, seed=p.seed)
        res["lelong"] = lel
        tabs["lelong_pairs"] = table_lelong_pairs(lel)
        tabs["lelong_top"] = table_lelong_top(lel)
        tabs["lelong_backfill"] = table_lelong_backfill(lel)
        figs["lelong_fig2"] = figure_lelong_bi(lel, "max")
        figs["lelong_fig3"] = figure_lelong_bi(lel, "mean")
        figs["lelong_fig4"] = figure_lelong_backfill(lel)
    if "tables" in datasets:
        tr = TablesResult(datasets["tables"], tuple(t.name for t in p.table_traces))
        res["tables_result"] = tr
        tabs["lelong_table1"] = table_lelong_table1(tr)
        tabs["lelong_table2"] = table_lelong_table2(tr, "CTC-SP2" if "CTC-SP2" in tr.traces else tr.traces[0])
        tabs["lelong_variants"] = table_lelong_variants(tr)
        t2 = "CTC-SP2" if "CTC-SP2" in tr.traces else tr.traces[0]
        info = next(t for t in p.table_traces if t.name == t2)
        res["maxwait"] = {pol: largest_waits(_ref(info), pol, m=info.m) for pol in ("SPF", "FCFS")}
        tabs["lelong_maxwait"] = table_maxwait(res["maxwait"], t2)
    thesis_ds = {k.split(":", 1)[1]: v for k, v in datasets.items() if k.startswith("thesis:")}
    if thesis_ds:
        th = analyse_thesis(thesis_ds, datasets.get("thesis-original"), p.thesis_threshold)
        res["thesis"] = th
        tabs["thesis_table42"] = table_thesis_42(th, p.seed)
        tabs["thesis_variants"] = table_thesis_variants(th)
        tabs["thesis_gains"] = table_thesis_gains(th, p.seed)
        tabs["thesis_classes"] = table_thesis_classes(th)
        tabs["thesis_backfilled"] = table_thesis_backfilled(th, p.seed)
        figs["thesis_cumulative"] = figure_thesis_cumulative(th)
        figs["thesis_delayed_q"] = figure_thesis_delayed(th)
        figs["thesis_bsld_classes"] = figure_thesis_classes(th)
        figs["thesis_backfilled_dist"] = figure_thesis_backfilled(th)
    bandit_ds = {k.split(":", 1)[1]: v for k, v in datasets.items() if k.startswith("bandit:")}
    if bandit_ds:
        bd = analyse_bandit(bandit_ds, p.seed)
        res["bandit"] = bd
        ours = {t.trace: {pol: _pct(t.change[pol][0]) for pol in t.policies} for t in bd}
        res["bandit_mapping"] = mapping_check(ours, PUBLISHED["bandit_table2"])
        tabs["bandit_table2"] = table_bandit(bd)
        tabs["bandit_table2_ci"] = table_bandit_ci(bd)
        tabs["bandit_mapping"] = table_bandit_mapping(res["bandit_mapping"])
        figs["bandit_dots"] = figure_bandit(bd)
        figs["bandit_cumulative"] = figure_bandit_cumulative(bd)
    if res.get("lelong") is not None or res.get("thesis"):
        tabs["claims"] = table_claims(res, p)
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    fig_paths = {}
    for name, fig in figs.items():
        fig_paths[name] = plots.savefig(fig, out / "figures" / name)
        files += fig_paths[name]
    nums = numbers(res, p)
    found = findings(res)
    nums["wall_s"] = round(time.perf_counter() - t0, 1)
    nums["schedlab_version"] = __version__
    nums["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    files.append(write_json(out / "numbers.json", nums))
    files.append(write_json(out / "findings.json", found))
    files.append(write_json(out / "parameters.json", p.as_dict()))
    res.update({"tables": tabs, "figures": fig_paths, "numbers": nums, "findings": found, "files": files,
                "outdir": out, "seconds": time.perf_counter() - t0})
    return res
