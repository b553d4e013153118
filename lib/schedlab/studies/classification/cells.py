"""Study 6 -- classification: weekly small/large job classification,
small-first queues, kill-and-requeue, clairvoyant bounds (thesis ch. 6).

The thesis (zrigui2021 ch. 6, :data:`THESIS`) learns online, week after week,
whether a job will run longer than the *divider* (the median actual
runtime), runs the jobs classified small first, kills a job running as
small once it passes the divider of its week and requeues it as large,
and compares
with schedulers that know the true classes or the true runtimes.  This
module recomputes it on the bundled logs (or any SWF trace):

* **the classifier** (§6.3): features of Table 6.3 (:data:`FEATURES`), a
  random forest retrained at the start of every week on everything known
  by then and used for that week; the first week every job is large;
  accuracy, precision and recall per week and overall (Fig. 6.4, Tables
  6.4-6.5) and the weekly Gini feature importances (Fig. 6.5);
* **the scheduling study** (§6.4-6.5): EASY with FCFS, SPF, SAF and WFP
  (P_R = P_B = P) and a waiting-time threshold, each in the variants of
  :data:`VARIANTS` -- cumulative bsld (Fig. 6.7), monthly mean bsld
  (Fig. 6.6), small vs large jobs (Fig. 6.8), totals (Fig. 6.9) and the
  improvement over EASY-FCFS (Table 6.6), published beside ours.

The thesis' sixth trace, MetaCentrum (zegox), is not bundled
(:data:`MISSING_TRACES`): its rows are published values only.

Definitions and choices (the thesis is silent or ambiguous on each; every
one is a parameter or written here once):

* **Weeks** are consecutive 7-day periods from the first submission
  (:func:`schedlab.workload.period_edges`); week k is ``[e_k, e_k+1)`` and
  a job belongs to the week of its submission.  ``weeks=N`` keeps only the
  first N weeks of a trace (for quick runs).
* **Runtime** p is the log's actual runtime (the thesis' Table 6.1 dividers
  are medians of p, see :mod:`schedlab.studies.traces`); jobs with p > p~
  are kept and the simulator kills them at p~ (project default).
* **When a job is known.**  A job's runtime (hence its class) becomes
  known when it finishes.  By default (``finish="log"``) that is the
  finish time the log records, r + wait + p (what the real machine knew);
  a job whose log wait is missing is never known.  ``finish="easy-fcfs"``
  uses the EASY-FCFS simulation of the cleaned trace instead (for logs
  without wait times).  Known means finished *strictly* before the moment
  of use, so no job ever sees itself.
* **Divider of week k** (:func:`weekly_dividers`): the median runtime of
  the jobs known at e_k -- all of them (``divider_window="all"``, "the
  median actual runtime of the previous data") or only those that
  finished during week k-1 (``"week"``, the thesis' "median execution time
  over the workload log of the previous week").  Week 0 has none; where
  one is needed for week-0 jobs the first divider is used.  Early dividers
  are low: the jobs that have finished by a week's start are biased
  towards short ones (KTH-SP2's first divider is 30 s, its last 847 s).
* **True class** of a job: small iff p <= the divider of its week.
* **Features** (:func:`features`, Table 6.3) are computed at submission:
  p~ and q; hour, day of week, day of month, month, ISO week and quarter
  of the submission in the trace's local time (header ``TimeZoneString``,
  else UTC); for each category (u, p~), (u, q) and (u, day) of the job --
  same user and same request, same processors, same local calendar day --
  the classes of the three most recently *completed* jobs of that category
  (1 small, 0 large, -1 none) and the share of small jobs among all its
  completed jobs (-1 when none).  A completed job's class is recorded with
  the divider in force when it finished.  With ``history="completed"``
  (default) "completed" means finished before the job's submission;
  ``history="previous-weeks"`` freezes the history at the start of the
  job's week, as the thesis' decoupled implementation did (§6.3.2).
* **Training** (:func:`training_mask`, §6.3.2): the model of week k >= 1 is
  a random forest trained on the jobs known at e_k (their features as
  computed at their submission; labels with the divider of week k), and
  classifies the jobs submitted in week k.  No known job or a single known
  class: all jobs of the week are large (or that class).  The forest is
  scikit-learn's ``RandomForestClassifier`` (Gini; ``trees`` trees;
  ``max_samples`` caps each tree's bootstrap sample, None = as many as the
  training rows); its seed is derived from ``seed`` and the week.
* **Scores** (:func:`scores`): TS, FS, TL, FL as in §6.3.3 (footnote 3);
  accuracy (TS+TL)/n, precision TS/(TS+FS), recall TS/(TS+FL); undefined
  (NaN) when the denominator is 0.  Overall scores (Table 6.4) sum the
  counts of the weeks with a classifier (week 1 on).  Table 6.5 is shown
  under its printed formulas, FL/(FL+TL) and FS/(FS+TS), and as shares of
  all jobs, FL/n and FS/n -- the reading its own Table 6.4 agrees with.
* **Scheduling** (:func:`simulate_variant`): EASY-P-P with threshold
  ``threshold`` (default 200000 s = 2.31 days, "the value that is used for
  the rest of our research", thesis §5.8) in every variant; the
  variants are listed in :data:`VARIANTS`.  Runtime-clairvoyant gives the
  heuristic the actual runtime: p~ is replaced by the duration the job
  runs, min(p, p~), in the queue keys *and* the estimates (with
  ``estimate="actual"`` alone, SPF/SAF/WFP would still order by p~).
  A sixth variant, EASY++ (P_R = P, SJBF backfilling on the EASY++
  predictions with incremental corrections), is the regression reference of
  Table 6.6.
* **Kill divider** (:func:`kill_dividers`): classification-idempotent
  kills a job running as small at the divider of the week it was
  classified in -- the divider computed from the data before that week,
  the one that labels its week's training data and its true class (thesis
  §6.4, Algorithm 4 with the weekly divider of §6.3) -- rounded down
  (runtimes are integers).  The engine takes one divider per job.  So a
  job is killed and requeued iff it is classified small and the duration it
  runs, min(p, p~), exceeds its week's divider: the same jobs under every
  policy, never a truly small one (``requeued_true_small`` is 0).
* **Metrics**: bsld with tau = 10 s on the duration of the run that
  completed (thesis Eq. 3.3); a requeued job's wait includes its killed
  run.  "Cumulative bsld" is the total bsld of the jobs finished by the
  end of each week; the total (Fig. 6.9, Table 6.6) is the sum over all
  jobs; the improvement over EASY-FCFS is 1 - total / total(FCFS base).
  Monthly values are means over the jobs submitted in each 30-day period
  from the first submission.

The notebook ``notebooks/04-classification.ipynb`` validates its
parameters (:func:`validate`) and calls :func:`run`, which runs the weekly
classifiers and the simulations as campaigns (dask, cached per cell,
resumable) and writes datasets, tables, figures and ``numbers.json``.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ... import __version__, campaign, metrics, paths, plots, sim, store, workload
from ... import traces as _traces
from ...errors import InputError
from .. import Table, write_json, write_text
from ... import values as check


__all__ = [
    "THESIS", "PUBLISHED", "CLAIMS", "MISSING_TRACES", "DEFAULT_TRACES", "POLICIES", "VARIANTS",
    "FEATURES", "OUTCOMES", "Params", "validate", "week_edges", "known_finish", "weekly_dividers",
    "completion_classes", "temporal_features", "history_features", "features", "training_mask",
    "fit_week", "confusion", "scores", "kill_dividers", "simulate_variant", "schedule_outputs",
    "pack_classes", "unpack_classes", "classify_cell", "schedule_cell", "classify_trace",
    "campaigns_classify", "campaign_schedule", "run", "Prepared", "prepare", "feature_matrix",
    "effective_dividers", "true_classes", "TraceResult", "numbers", "findings",
]

STUDY = "classification"
WEEK = workload.WEEK
DAY = workload.DAY
MONTH = workload.MONTH

# ----------------------------------------------------------------- sources --

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, ch. 6")

#: Values printed in the thesis, keyed by our registry names ("SDSC_BLUE"
#: of Table 6.5 is SDSC-BLUE).  MetaCentrum is not bundled.
PUBLISHED: dict[str, Any] = {
    # Table 6.4: overall accuracy, precision, recall (%).
    "table_6_4": {
        "CTC-SP2": (85, 82, 86), "HPC2N": (90, 87, 89), "KTH-SP2": (86, 79, 90),
        "SDSC-BLUE": (80, 78, 83), "SDSC-SP2": (87, 89, 91), "MetaCentrum": (85, 83, 87),
    },
    # Table 6.5: "False Large (%) FL/(FL+TL)", "False Small (%) FS/(FS+TS)".
    "table_6_5": {
        "CTC-SP2": (8.16, 6.29), "HPC2N": (7.59, 5.05), "KTH-SP2": (9.27, 4.03),
        "MetaCentrum": (8.43, 6.36), "SDSC-BLUE": (11.29, 8.52), "SDSC-SP2": (7.20, 5.85),
    },
    # Table 6.6: improvement (%) of the total bsld over EASY-FCFS.  EASY++ as
    # the thesis measured it [and as its authors did]; Gaussier et al. [as
    # they did]; classification-idempotent with FCFS and with SPF.
    "table_6_6": {
        "KTH-SP2": {"easypp": 23, "easypp_authors": 36, "gaussier_authors": 44, "FCFS": 50, "SPF": 59},
        "CTC-SP2": {"easypp": 1, "easypp_authors": 37, "gaussier_authors": 59, "FCFS": 79, "SPF": 85},
        "SDSC-BLUE": {"easypp": 38, "easypp_authors": 47, "gaussier_authors": 5, "FCFS": 63, "SPF": 74},
        "SDSC-SP2": {"easypp": 32, "easypp_authors": 29, "gaussier_authors": 15, "FCFS": 66, "SPF": 75},
    },
}

#: Claims of the thesis' text checked by the study: key -> (where, claim, low, high) in %.
CLAIMS: dict[str, tuple[str, str, float, float]] = {
    "gain_FCFS": ("§6.5.1", "classification-idempotent vs base, total bsld, FCFS", 33, 79),
    "gain_SPF": ("§6.5.1", "classification-idempotent vs base, total bsld, SPF", 3, 32),
    "gain_SAF": ("§6.5.1", "classification-idempotent vs base, total bsld, SAF", 10, 51),
    "precision": ("§6.1", "precision of the online classifier", 78, 89),
}

MISSING_TRACES = ("MetaCentrum",)
DEFAULT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N")
POLICIES = ("FCFS", "SPF", "SAF", "WFP")
#: Scheduling variants: name -> description.
VARIANTS: dict[str, str] = {
    "base": "EASY-P-P on the requested times (no classes)",
    "classification": "classes from the weekly classifier, small first; false small jobs run to completion",
    "classification-idempotent": "classes from the weekly classifier, small first; a job running as small "
                                 "is killed at the divider of its week and requeued as large",
    "class-clairvoyant": "true classes (p <= divider of the job's week), small first",
    "runtime-clairvoyant": "no classes; the heuristic and the backfilling get the actual duration "
                           "min(p, p~) instead of p~",
    "easy++": "no classes; EASY++ (Tsafrir et al., as gaussier2015 §3 describes it): predictions = mean of "
              "the user's last two completed runtimes, incremental correction of expired predictions, "
              "backfilling in SJBF order; the reference of Table 6.6",
}
#: The variants the thesis' figures compare (easy++ only feeds Table 6.6).
THESIS_VARIANTS = ("base", "classification", "classification-idempotent", "class-clairvoyant",
                   "runtime-clairvoyant")
VARIANT_LABELS = {"base": "base", "classification": "classification",
                  "classification-idempotent": "classif.-idempotent", "class-clairvoyant": "class-clairvoyant",
                  "runtime-clairvoyant": "runtime-clairvoyant", "easy++": "EASY++"}
VARIANT_COLORS = {"base": "0.15", "classification": "#ff7f0e", "classification-idempotent": "#17becf",
                  "class-clairvoyant": "#2ca02c", "runtime-clairvoyant": "#9467bd", "easy++": "#8c564b"}

#: The features of Table 6.3: (name, label, group), in column order.
FEATURES: tuple[tuple[str, str, str], ...] = (
    ("req", "p~", "job"), ("procs", "q", "job"),
    ("hour", "h", "temporal"), ("day_of_week", "D_week", "temporal"), ("day_of_month", "d_month", "temporal"),
    ("month", "m", "temporal"), ("week_of_year", "w", "temporal"), ("quarter", "Q", "temporal"),
    ("class_user_req_1", "Cp~1", "lag"), ("class_user_req_2", "Cp~2", "lag"), ("class_user_req_3", "Cp~3", "lag"),
    ("class_user_procs_1", "Cq1", "lag"), ("class_user_procs_2", "Cq2", "lag"), ("class_user_procs_3", "Cq3", "lag"),
    ("class_user_day_1", "Cd1", "lag"), ("class_user_day_2", "Cd2", "lag"), ("class_user_day_3", "Cd3", "lag"),
    ("small_share_user_procs", "mean_q", "aggregation"), ("small_share_user_req", "mean_p~", "aggregation"),
    ("small_share_user_day", "mean_d", "aggregation"),
)
FEATURE_NAMES = tuple(f[0] for f in FEATURES)
FEATURE_LABELS = tuple(f[1] for f in FEATURES)
#: Confusion counts, in this order (§6.3.3 footnote 3).
OUTCOMES = ("TS", "FS", "TL", "FL")
LAGS = 3
HISTORIES = ("completed", "previous-weeks")
DIVIDER_WINDOWS = ("all", "week")
FINISHES = ("log", "easy-fcfs")
#: The threshold of thesis §5.8, "used for the rest of our research".
THRESHOLD = 200000
_NEVER = np.iinfo(np.int64).max


# ------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params:
    """The validated parameters of the study (see :func:`validate`)."""

    profile: str = "custom"
    traces: tuple[_traces.TraceInfo, ...] = ()
    weeks: int | None = None
    policies: tuple[str, ...] = POLICIES
    threshold: int | None = THRESHOLD
    trees: int = 100
    max_samples: int | None = None
    seed: int = 2021
    history: str = "completed"
    divider_window: str = "all"
    finish: str = "log"
    workers: int = 2
    scheduler: str | None = None
    outdir: Path = field(default_factory=lambda: paths.RESULTS / STUDY)
    cache_dir: Path = field(default_factory=lambda: paths.RESULTS / "cache")

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly view (traces by name)."""
        return check.as_record(self)

    def classifier_params(self) -> dict[str, Any]:
        """The parameters a classification depends on (cache keys)."""
        return {"weeks": self.weeks, "trees": self.trees, "max_samples": self.max_samples, "seed": self.seed,
                "history": self.history, "divider_window": self.divider_window, "finish": self.finish}


def validate(profile="custom", traces=DEFAULT_TRACES, weeks=None, policies=None, threshold=THRESHOLD,
             trees=100, max_samples=None, seed=2021, history="completed", divider_window="all",
             finish="log", workers=2, scheduler=None, outdir=None, cache_dir=None) -> Params:
    """Check every parameter of the study and return them as :class:`Params`.

    ``traces``: registry names or SWF paths (list, YAML list text or
    comma-separated); ``weeks``: keep only the first N weeks of each trace
    (None: all); ``policies``: queue policies (P_R = P_B), FCFS included;
    ``threshold``: waiting-time threshold (a duration such as 200000,
    "2.31d", or None); ``trees`` / ``max_samples``: the random forest;
    ``history``, ``divider_window``, ``finish``: see the module docstring.
    Raises :class:`~schedlab.errors.InputError` naming the parameter at fault.
    """
    if not isinstance(profile, str) or not profile.strip():
        raise InputError(f"profile: expected a name such as 'quick' or 'full', got {profile!r}")
    items = check.as_list(traces, "traces", none_is_empty=True)
    if not items:
        raise InputError("traces: give at least one trace (registry name or SWF path)")
    try:
        infos = tuple(check.trace_list(items))
    except InputError as exc:
        raise InputError(f"traces: {exc}") from None
    thr = check.duration(threshold, "threshold")
    return Params(
        profile=profile.strip(), traces=infos,
        weeks=check.optional_integer(weeks, "weeks", 2),
        policies=check.policy_names(POLICIES if policies is None else policies, "policies",
                                    "the baseline of Table 6.6"), threshold=thr,
        trees=check.integer(trees, "trees"),
        max_samples=check.optional_integer(max_samples, "max_samples"),
        seed=check.integer(seed, "seed", 0),
        history=check.choice(history, "history", HISTORIES),
        divider_window=check.choice(divider_window, "divider_window", DIVIDER_WINDOWS),
        finish=check.choice(finish, "finish", FINISHES),
        workers=check.integer(workers, "workers"),
        scheduler=None if scheduler in (None, "") else str(scheduler),
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"),
    )


# ------------------------------------------------------------- classifier --

def week_edges(submit, n_weeks: int | None = None) -> np.ndarray:
    """Edges e_0 < ... < e_K of the consecutive weeks from the first
    submission (K weeks; e_K after the last submission).  ``n_weeks`` caps K."""
    sub = np.asarray(submit, dtype=np.int64)
    if sub.size == 0:
        raise InputError("no jobs: cannot cut a trace into weeks")
    t0 = int(sub.min())
    k = (int(sub.max()) - t0) // WEEK + 1
    if n_weeks is not None:
        k = min(k, int(n_weeks))
    return t0 + WEEK * np.arange(k + 1, dtype=np.int64)


def _week_index(times, edges) -> np.ndarray:
    """Week of each time (-1 before e_0, K at or after e_K)."""
    return np.searchsorted(edges, np.asarray(times), "right") - 1


def known_finish(trace, jobs: sim.Jobs, how: str = "log", m: int | None = None) -> np.ndarray:
    """When each job's runtime becomes known: its finish time in the log
    (``how="log"``: r + wait + p; never, i.e. int64 max, when the log's wait
    is missing) or in the EASY-FCFS simulation of ``jobs`` on ``m``
    processors (``how="easy-fcfs"``)."""
    if how == "log":
        if jobs.lines is None:
            raise InputError("known_finish: the jobs carry no source lines; use jobs from workload.clean")
        tl = np.asarray(trace.lines)
        rows = np.clip(np.searchsorted(tl, jobs.lines), 0, max(tl.size - 1, 0))
        if tl.size == 0 or np.any(tl[rows] != jobs.lines):
            raise InputError(f"known_finish: the jobs were not cleaned from {trace.path}")
        wait = trace.fields["wait"][rows]
        if len(jobs) and np.all(wait < 0):
            raise InputError(f"{trace.path}: the log records no waiting time, so when a job finished is "
                             "unknown; use finish='easy-fcfs' (finish times of an EASY-FCFS simulation)")
        return np.where(wait >= 0, jobs.submit + np.maximum(wait, 0) + jobs.run, _NEVER).astype(np.int64)
    if how == "easy-fcfs":
        if m is None:
            raise InputError("known_finish: how='easy-fcfs' needs the machine size m")
        return sim.simulate(jobs, m, "EASY-FCFS-FCFS").end.astype(np.int64)
    raise InputError(f"known_finish: how must be one of {FINISHES}, got {how!r}")


def weekly_dividers(run, finish, edges, window: str = "all") -> np.ndarray:
    """Divider of each week: ``D[k]`` (k = 0..K) is the median runtime of
    the jobs known at e_k (finish < e_k): all of them (``window="all"``)
    or those that finished in week k-1 (``"week"``).  NaN when no job is
    known (always for week 0); with ``"week"``, a week where none finished
    keeps the previous divider."""
    if window not in DIVIDER_WINDOWS:
        raise InputError(f"divider window must be one of {DIVIDER_WINDOWS}, got {window!r}")
    run = np.asarray(run, dtype=np.float64)
    finish = np.asarray(finish, dtype=np.int64)
    order = np.argsort(finish, kind="stable")
    fs, rs = finish[order], run[order]
    K = len(edges) - 1
    D = np.full(K + 1, np.nan)
    for k in range(1, K + 1):
        hi = int(np.searchsorted(fs, edges[k], "left"))
        lo = 0 if window == "all" else int(np.searchsorted(fs, edges[k - 1], "left"))
        D[k] = np.median(rs[lo:hi]) if hi > lo else D[k - 1]
    return D


def effective_dividers(D) -> np.ndarray:
    """``D`` with every NaN replaced by the next defined divider (week 0 and
    any week before the first known job get the first divider)."""
    D = np.asarray(D, dtype=np.float64).copy()
    nxt = np.nan
    for k in range(D.size - 1, -1, -1):
        if np.isnan(D[k]):
            D[k] = nxt
        else:
            nxt = D[k]
    return D


def completion_classes(run, finish, edges, D) -> np.ndarray:
    """Class recorded when each job finishes (1 small, 0 large): its runtime
    against the divider in force at its finish time (week 0 and weeks
    without a divider use the next one)."""
    De = effective_dividers(D)
    w = np.clip(_week_index(finish, edges), 0, len(edges) - 1)
    d = De[w]
    return (np.asarray(run) <= np.where(np.isnan(d), -np.inf, d)).astype(np.int8)


def true_classes(run, week, D) -> np.ndarray:
    """True class of each job (1 small): p <= divider of its submission
    week (week 0: the first divider)."""
    d = effective_dividers(D)[np.asarray(week)]
    return (np.asarray(run) <= np.where(np.isnan(d), -np.inf, d)).astype(np.int8)


def _local(submit, unix_start_time: int | None, tz: str | None):
    import pandas as pd

    t = pd.to_datetime(np.asarray(submit, dtype=np.int64) + int(unix_start_time or 0), unit="s", utc=True)
    if tz:
        try:
            t = t.tz_convert(tz)
        except Exception:  # unknown zone name in a header: UTC, reported by the caller
            pass
    return t


def temporal_features(submit, unix_start_time: int | None = None, tz: str | None = None):
    """(hour, day of week (0 = Monday), day of month, month, ISO week,
    quarter) of each submission in local time, and the local calendar day
    number (for the (u, day) category)."""
    t = _local(submit, unix_start_time, tz)
    cols = np.column_stack([t.hour, t.day_of_week, t.day, t.month,
                            np.asarray(t.isocalendar().week, dtype=np.int64), t.quarter]).astype(np.float64)
    naive = t.tz_localize(None) if t.tz is not None else t
    day = naive.to_numpy().astype("datetime64[D]").astype(np.int64)
    return cols, day


def history_features(user, req, procs, day, finish, query, done_class) -> np.ndarray:
    """Lag and aggregation features (Table 6.3) of each job from the jobs
    finished *strictly before* its query time ``query`` (its submission,
    or its week's start).  Columns: the classes of the 3 most recently
    finished jobs of the categories (u, p~), (u, q), (u, day) (most recent
    first; -1 when fewer), then the share of small jobs among the finished
    jobs of (u, q), (u, p~), (u, day) (-1 when none).  ``done_class`` is
    the class recorded at each job's completion.  O(n log n) for the sort,
    then one pass over the 2n events."""
    n = len(user)
    X = np.full((n, 3 * LAGS + 3), -1.0)
    if n == 0:
        return X
    finish = np.asarray(finish, dtype=np.int64)
    query = np.asarray(query, dtype=np.int64)
    oc = np.argsort(finish, kind="stable").tolist()
    fin = np.asarray(finish)[oc].tolist()
    u, p, q, d = (np.asarray(a).tolist() for a in (user, req, procs, day))
    c = np.asarray(done_class).tolist()
    hist: tuple[dict, dict, dict] = ({}, {}, {})
    agg_col = (9 + 1, 9 + 0, 9 + 2)          # (u, p~) -> mean_p~, (u, q) -> mean_q, (u, day) -> mean_d
    qt = query.tolist()
    ci = 0
    for i in np.argsort(query, kind="stable").tolist():
        t = qt[i]
        while ci < n and fin[ci] < t:
            j = oc[ci]
            ci += 1
            cj = c[j]
            for h, key in zip(hist, ((u[j], p[j]), (u[j], q[j]), (u[j], d[j]))):
                e = h.get(key)
                if e is None:
                    e = h[key] = [deque(maxlen=LAGS), 0, 0]
                e[0].appendleft(cj)
                e[1] += 1
                e[2] += cj
        row = X[i]
        for k, (h, key) in enumerate(zip(hist, ((u[i], p[i]), (u[i], q[i]), (u[i], d[i])))):
            e = h.get(key)
            if e is not None:
                for lag, v in enumerate(e[0]):
                    row[LAGS * k + lag] = v
                row[agg_col[k]] = e[2] / e[1]
    return X


def features(jobs: sim.Jobs, finish, edges, D, *, history: str = "completed",
             unix_start_time: int | None = None, tz: str | None = None) -> np.ndarray:
    """The feature matrix of Table 6.3 (columns :data:`FEATURE_NAMES`),
    one row per job, computed from what is known at its submission (or at
    the start of its week, ``history="previous-weeks"``)."""
    if history not in HISTORIES:
        raise InputError(f"history must be one of {HISTORIES}, got {history!r}")
    if jobs.user is None:
        raise InputError("features: the jobs have no users (Jobs(..., user=...))")
    temporal, day = temporal_features(jobs.submit, unix_start_time, tz)
    week = np.clip(_week_index(jobs.submit, edges), 0, len(edges) - 2)
    query = jobs.submit if history == "completed" else np.asarray(edges)[week]
    done = completion_classes(jobs.run, finish, edges, D)
    lag = history_features(jobs.user, jobs.req, jobs.procs, day, finish, query, done)
    X = np.column_stack([jobs.req.astype(np.float64), jobs.procs.astype(np.float64), temporal, lag])
    assert X.shape[1] == len(FEATURES)
    return X


def training_mask(finish, edges, k: int) -> np.ndarray:
    """The jobs the model of week k is trained on: those known (finished)
    strictly before the start of week k."""
    return np.asarray(finish) < edges[k]


def _forest_seed(seed: int, week: int) -> int:
    return int(np.random.SeedSequence(entropy=int(seed), spawn_key=(int(week),)).generate_state(1)[0])


def fit_week(X, run, finish, edges, D, week_of_job, k: int, *, trees: int = 100,
             max_samples: int | None = None, seed: int = 0) -> dict[str, Any]:
    """Train the model of week k and classify the jobs of week k.

    Returns ``predicted`` (1 = small, for the jobs of week k in order),
    ``train_jobs``, ``train_small`` and ``importance`` (Gini importances,
    NaN without a forest).  Week 0, weeks without a divider and weeks
    without training jobs classify every job large."""
    rows = np.flatnonzero(np.asarray(week_of_job) == k)
    out = {"predicted": np.zeros(rows.size, dtype=np.int8), "train_jobs": 0, "train_small": 0,
           "importance": np.full(X.shape[1], np.nan)}
    if k == 0 or not np.isfinite(D[k]):
        return out
    train = training_mask(finish, edges, k)
    y = (np.asarray(run)[train] <= D[k]).astype(np.int8)
    out["train_jobs"], out["train_small"] = int(train.sum()), int(y.sum())
    if y.size == 0:
        return out
    if y.min() == y.max():                          # one class known: predict it
        out["predicted"][:] = y[0]
        return out
    from sklearn.ensemble import RandomForestClassifier

    ms = None if max_samples is None or max_samples >= y.size else int(max_samples)
    forest = RandomForestClassifier(n_estimators=int(trees), max_samples=ms, random_state=_forest_seed(seed, k),
                                    n_jobs=1)
    forest.fit(X[train], y)
    if rows.size:
        out["predicted"] = forest.predict(X[rows]).astype(np.int8)
    out["importance"] = forest.feature_importances_.astype(np.float64)
    return out


def confusion(predicted, truth) -> np.ndarray:
    """(TS, FS, TL, FL) counts of predicted vs true classes (1 = small)."""
    p = np.asarray(predicted).astype(bool)
    t = np.asarray(truth).astype(bool)
    return np.array([(p & t).sum(), (p & ~t).sum(), (~p & ~t).sum(), (~p & t).sum()], dtype=np.int64)


def scores(counts) -> dict[str, float]:
    """Accuracy, precision, recall (Eqs. 6.1-6.3) and the error shares of
    Table 6.5 (printed formulas and shares of all jobs), in %, from (TS,
    FS, TL, FL) counts (last axis); NaN where a denominator is 0."""
    c = np.asarray(counts, dtype=np.float64)
    ts, fs, tl, fl = (c[..., i] for i in range(4))
    n = ts + fs + tl + fl

    def ratio(a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(b > 0, 100.0 * a / np.where(b > 0, b, 1), np.nan)

    out = {"accuracy": ratio(ts + tl, n), "precision": ratio(ts, ts + fs), "recall": ratio(ts, ts + fl),
           "false_large": ratio(fl, fl + tl), "false_small": ratio(fs, fs + ts),
           "false_large_of_all": ratio(fl, n), "false_small_of_all": ratio(fs, n), "jobs": n}
    return {k: (float(v) if np.ndim(v) == 0 else v) for k, v in out.items()}


# ---------------------------------------------------- per-trace preparation --

@dataclass(frozen=True, eq=False)
class Prepared:
    """A cleaned trace cut into weeks, with finish times and dividers."""

    name: str
    jobs: sim.Jobs
    m: int
    edges: np.ndarray
    week: np.ndarray          # submission week of each job
    finish: np.ndarray        # when each job becomes known
    dividers: np.ndarray      # D[0..K]
    truth: np.ndarray         # true class (1 small)
    tz: str | None
    unix_start_time: int | None

    @property
    def n_weeks(self) -> int:
        return len(self.edges) - 1

    @property
    def slots(self) -> int:
        """The most jobs submitted in one week (the width of per-week outputs)."""
        return int(np.bincount(self.week, minlength=self.n_weeks).max()) if len(self.jobs) else 0


@functools.lru_cache(maxsize=8)
def _load(trace: str, m: int | None):
    info = _traces.resolve(trace)
    swf = _traces.load(info)
    m = m or info.m or swf.max_procs
    if m is None:
        raise InputError(f"{info.path}: the header gives no machine size (MaxProcs)")
    jobs, _ = workload.clean(swf, m=int(m))
    if len(jobs) == 0:
        raise InputError(f"{info.path}: no jobs left after cleaning")
    return info, swf, jobs, int(m)


@functools.lru_cache(maxsize=8)
def prepare(trace: str, m: int | None = None, weeks: int | None = None, finish: str = "log",
            divider_window: str = "all") -> Prepared:
    """The trace ready for the study (cached per process)."""
    info, swf, jobs, m = _load(str(trace), m)
    edges = week_edges(jobs.submit, weeks)
    keep = jobs.submit < edges[-1]
    if not keep.all():
        jobs = jobs.subset(keep)
    fin = known_finish(swf, jobs, finish, m)
    D = weekly_dividers(jobs.run, fin, edges, divider_window)
    week = _week_index(jobs.submit, edges)
    return Prepared(info.name, jobs, m, edges, week, fin, D, true_classes(jobs.run, week, D),
                    swf.time_zone_string, swf.unix_start_time)


@functools.lru_cache(maxsize=4)
def feature_matrix(trace: str, m: int | None = None, weeks: int | None = None, finish: str = "log",
                   divider_window: str = "all", history: str = "completed") -> np.ndarray:
    """:func:`features` of a prepared trace (cached per process)."""
    pr = prepare(trace, m, weeks, finish, divider_window)
    X = features(pr.jobs, pr.finish, pr.edges, pr.dividers, history=history,
                 unix_start_time=pr.unix_start_time, tz=pr.tz)
    X.setflags(write=False)
    return X


# -------------------------------------------------------------- scheduling --

def kill_dividers(predicted, week, D) -> np.ndarray | None:
    """The divider each job is killed at while it runs as small: that of
    the week it was classified in (week 0: the first divider, as for its
    true class), rounded down (runtimes are integers, so p <= D iff
    p <= floor(D)).  None if no job is classified small.  A job classified
    large is never killed: without a divider (no job known at any week's
    start) it gets 0; a job classified small always has one (its week's
    model was trained on known jobs)."""
    p = np.asarray(predicted).astype(bool)
    if not p.any():
        return None
    d = effective_dividers(D)[np.asarray(week)]
    if not np.isfinite(d[p]).all():
        i = int(np.flatnonzero(p & ~np.isfinite(d))[0])
        raise InputError(f"kill_dividers: job index {i} is classified small but its week has no divider")
    return np.where(np.isfinite(d), np.floor(d), 0).astype(np.int64)


def simulate_variant(jobs: sim.Jobs, m: int, policy: str, variant: str, *, threshold=THRESHOLD,
                     predicted=None, truth=None, divider=None) -> sim.Schedule:
    """EASY-P-P with ``threshold`` in one of :data:`VARIANTS`.  ``divider``
    (classification-idempotent): seconds, or one per job
    (:func:`kill_dividers`)."""
    pol = sim.Policy(policy, policy, threshold)
    if variant == "base":
        return sim.simulate(jobs, m, pol)
    if variant in ("classification", "classification-idempotent"):
        if predicted is None:
            raise InputError(f"variant {variant!r} needs the predicted classes")
        kill = divider if variant == "classification-idempotent" else None
        return sim.simulate(jobs, m, pol, classes=np.asarray(predicted, dtype=np.uint8), divider=kill)
    if variant == "class-clairvoyant":
        if truth is None:
            raise InputError("variant 'class-clairvoyant' needs the true classes")
        return sim.simulate(jobs, m, pol, classes=np.asarray(truth, dtype=np.uint8))
    if variant == "runtime-clairvoyant":
        d = np.minimum(jobs.run, jobs.req)
        known = sim.Jobs(jobs.submit, d, d, jobs.procs, jobs.id, jobs.user)
        s = sim.simulate(known, m, pol, estimate="actual")
        return sim.Schedule(jobs, s.m, s.policy, s.estimate, s.start, s.end, s.flags, s.first_start, s.predicted)
    if variant == "easy++":
        return sim.simulate(jobs, m, sim.Policy(policy, "SJBF", threshold), estimate="easy++",
                            correction="incremental")
    raise InputError(f"unknown variant {variant!r}; expected one of {list(VARIANTS)}")


def cumulative_sum_by_period(values, times, edges) -> np.ndarray:
    """Sum of ``values`` whose time is before the end of each period
    ``[e_k, e_k+1)`` (NaN values ignored; times past the last edge count in
    the last period)."""
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v)
    k = np.clip(np.searchsorted(edges[1:], np.asarray(times)[ok], "right"), 0, len(edges) - 2)
    return np.cumsum(np.bincount(k, weights=v[ok], minlength=len(edges) - 1))


def schedule_outputs(s: sim.Schedule, truth, edges, months) -> dict:
    """The outputs of one simulation: totals, means by true class, the
    cumulative total bsld per week and the mean bsld per month."""
    b = metrics.bsld(s)
    summ = s.summary()
    t = np.asarray(truth).astype(bool)
    ok = np.isfinite(b)
    mk = np.clip(np.searchsorted(months, s.jobs.submit, "right") - 1, 0, len(months) - 2)
    n_m = len(months) - 1
    cnt = np.bincount(mk[ok], minlength=n_m)
    tot = np.bincount(mk[ok], weights=b[ok], minlength=n_m)
    with np.errstate(invalid="ignore", divide="ignore"):
        month_mean = np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)
    req = s.requeued
    out = {k: ((), summ[k]) for k in ("jobs", "mean_bsld", "avg_wait", "max_wait", "utilisation",
                                       "backfilled", "killed", "forced")}
    out.update({
        "sum_bsld": ((), float(np.nansum(b))),
        "mean_bsld_small": ((), float(np.nanmean(b[t])) if (t & ok).any() else np.nan),
        "mean_bsld_large": ((), float(np.nanmean(b[~t])) if (~t & ok).any() else np.nan),
        "requeued": ((), int(req.sum())),
        "requeued_true_small": ((), int((req & t).sum())),
        "cum_sum_bsld": (("week",), cumulative_sum_by_period(b, s.end, edges)),
        "month_mean_bsld": (("month",), month_mean),
    })
    return out


def month_edges(pr: Prepared) -> np.ndarray:
    t0 = int(pr.edges[0])
    k = max(1, -(-(int(pr.edges[-1]) - t0) // MONTH))
    return t0 + MONTH * np.arange(k + 1, dtype=np.int64)


# ---------------------------------------------------------- class encoding --

def pack_classes(classes) -> str:
    """Classes (0/1 per job) as compact text for a campaign parameter
    (bit-packed, base64): the cache key then depends on them exactly."""
    c = np.asarray(classes)
    if c.size and (c.min() < 0 or c.max() > 1):
        raise InputError("pack_classes: classes must be 0 or 1")
    return f"{c.size}:" + base64.b64encode(np.packbits(c.astype(np.uint8)).tobytes()).decode()


def unpack_classes(text: str) -> np.ndarray:
    try:
        n, _, data = str(text).partition(":")
        bits = np.unpackbits(np.frombuffer(base64.b64decode(data, validate=True), dtype=np.uint8))
        n = int(n)
    except (ValueError, TypeError) as exc:
        raise InputError(f"classes: not packed classes ({exc})") from None
    if bits.size < n or bits.size - n >= 8:
        raise InputError("classes: length does not match the packed data")
    return bits[:n].astype(np.int8)


# ------------------------------------------------------------------ cells --

_CLASSIFY_KEYS = {"trace", "m", "week", "weeks", "trees", "max_samples", "seed", "history",
                  "divider_window", "finish"}
_SCHEDULE_KEYS = {"trace", "m", "weeks", "policy", "variant", "threshold", "classes", "trees",
                  "max_samples", "seed", "history", "divider_window", "finish", "version"}
#: Version of the schedule cell's semantics, a parameter of its campaign: the
#: cache keys cells by their parameters (not by code), so a change of what the
#: cell computes must bump it.  2: each job is killed at its week's divider
#: (1: at one median divider per simulation).
SCHEDULE_CELL_VERSION = 2


def _check_keys(p: dict, allowed: set, what: str) -> None:
    unknown = set(p) - allowed
    if unknown:
        raise InputError(f"{what} cell: unknown parameter(s) {sorted(unknown)}; known: {sorted(allowed)}")
    if "trace" not in p:
        raise InputError(f"{what} cell: a 'trace' parameter is required")


def _prep_args(p: dict) -> tuple:
    return (str(p["trace"]), p.get("m"), p.get("weeks"), p.get("finish", "log"), p.get("divider_window", "all"))


def classify_cell(p: dict) -> dict:
    """One week of one trace: train the model of that week (on the jobs
    known at its start), classify its jobs; outputs the week's divider,
    training size, confusion counts, feature importances and the
    predicted classes of its jobs (in submit order, padded with -1 to the
    trace's largest week)."""
    _check_keys(p, _CLASSIFY_KEYS, "classify")
    pr = prepare(*_prep_args(p))
    X = feature_matrix(*_prep_args(p), p.get("history", "completed"))
    k = int(p["week"])
    if not 0 <= k < pr.n_weeks:
        raise InputError(f"classify cell: week {k} outside 0..{pr.n_weeks - 1} of {pr.name}")
    r = fit_week(X, pr.jobs.run, pr.finish, pr.edges, pr.dividers, pr.week, k, trees=int(p.get("trees", 100)),
                 max_samples=p.get("max_samples"), seed=int(p.get("seed", 0)))
    rows = pr.week == k
    slots = np.full(pr.slots, -1, dtype=np.int64)
    slots[:r["predicted"].size] = r["predicted"]
    return {
        "divider": ((), float(pr.dividers[k])),
        "train_jobs": ((), r["train_jobs"]),
        "train_small": ((), r["train_small"]),
        "week_jobs": ((), int(rows.sum())),
        "confusion": (("outcome",), confusion(r["predicted"], pr.truth[rows])),
        "feature_importance": (("feature",), r["importance"]),
        "predicted_small": (("slot",), slots),
    }


campaign.register_cell("classification-classify")(classify_cell)
_CLASSIFY_CELL = "schedlab.studies.classification.cells:classify_cell"


def classify_trace(trace: str, m: int | None = None, *, weeks: int | None = None, trees: int = 100,
                   max_samples: int | None = None, seed: int = 0, history: str = "completed",
                   divider_window: str = "all", finish: str = "log") -> np.ndarray:
    """Every week of a trace classified in this process (what the classify
    campaign computes, without dask): the predicted class of each job."""
    p = {"trace": trace, "m": m, "weeks": weeks, "trees": trees, "max_samples": max_samples, "seed": seed,
         "history": history, "divider_window": divider_window, "finish": finish}
    pr = prepare(*_prep_args(p))
    out = np.zeros(len(pr.jobs), dtype=np.int8)
    for k in range(pr.n_weeks):
        res = classify_cell({**p, "week": k})
        out[pr.week == k] = res["predicted_small"][1][: int(res["week_jobs"][1])]
    return out


@functools.lru_cache(maxsize=2)
def _classes_in_process(args: tuple) -> np.ndarray:
    return classify_trace(**dict(args))


def schedule_cell(p: dict) -> dict:
    """One (trace, policy, variant): simulate and summarise
    (:func:`schedule_outputs`); classification-idempotent kills each job at
    its week's divider (:func:`kill_dividers`).  ``classes`` holds the
    predicted classes (:func:`pack_classes`); without it they are computed
    in the worker with the classifier parameters given.  ``version``, if
    given, must be :data:`SCHEDULE_CELL_VERSION`."""
    _check_keys(p, _SCHEDULE_KEYS, "schedule")
    if p.get("version", SCHEDULE_CELL_VERSION) != SCHEDULE_CELL_VERSION:
        raise InputError(f"schedule cell: version {p['version']!r}, this code computes version "
                         f"{SCHEDULE_CELL_VERSION}")
    pr = prepare(*_prep_args(p))
    if p.get("classes") is not None:
        pred = unpack_classes(p["classes"])
        if pred.size != len(pr.jobs):
            raise InputError(f"schedule cell: {pred.size} classes for {len(pr.jobs)} jobs of {pr.name}")
    else:
        args = {k: p.get(k) for k in ("m", "weeks", "max_samples")}
        args.update(trace=str(p["trace"]), trees=int(p.get("trees", 100)), seed=int(p.get("seed", 0)),
                    history=p.get("history", "completed"), divider_window=p.get("divider_window", "all"),
                    finish=p.get("finish", "log"))
        pred = _classes_in_process(tuple(sorted(args.items())))
    div = kill_dividers(pred, pr.week, pr.dividers)
    s = simulate_variant(pr.jobs, pr.m, str(p["policy"]), str(p["variant"]), threshold=p.get("threshold"),
                         predicted=pred, truth=pr.truth, divider=div)
    return schedule_outputs(s, pr.truth, pr.edges, month_edges(pr))


campaign.register_cell("classification-schedule")(schedule_cell)
_SCHEDULE_CELL = "schedlab.studies.classification.cells:schedule_cell"


# -------------------------------------------------------------- campaigns --

def _ref(info: _traces.TraceInfo) -> str:
    """How a campaign names a trace: the registry name, or the file path."""
    return info.name if info.registered else str(info.path)


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def _prepared(p: Params, t: _traces.TraceInfo) -> Prepared:
    return prepare(_ref(t), t.m, p.weeks, p.finish, p.divider_window)


def campaigns_classify(p: Params) -> dict[str, campaign.Campaign]:
    """One campaign per trace: a cell per week (train that week's model,
    classify its jobs)."""
    out = {}
    for t in p.traces:
        pr = _prepared(p, t)
        out[t.name] = campaign.Campaign(
            f"classification-classify-{_slug(t.name)}", cell=_CLASSIFY_CELL,
            dims={"week": list(range(pr.n_weeks))},
            params={"trace": _ref(t), "m": t.m, **p.classifier_params()})
    return out


def campaign_schedule(p: Params, t: _traces.TraceInfo, predicted) -> campaign.Campaign:
    """The simulations of one trace: a cell per (policy, variant), the
    predicted classes passed packed (:func:`pack_classes`)."""
    return campaign.Campaign(
        f"classification-schedule-{_slug(t.name)}", cell=_SCHEDULE_CELL,
        dims={"policy": list(p.policies), "variant": list(VARIANTS)},
        params={"trace": _ref(t), "m": t.m, "weeks": p.weeks, "threshold": p.threshold, "finish": p.finish,
                "divider_window": p.divider_window, "classes": pack_classes(predicted),
                "version": SCHEDULE_CELL_VERSION})


# --------------------------------------------------------------- analysis --

@dataclass
class TraceResult:
    """Everything the study computed about one trace."""

    name: str
    prepared: Prepared
    classify: Any                  # xarray.Dataset (week, outcome, feature, slot)
    predicted: np.ndarray          # predicted class of each job (1 small)
    schedule: Any = None           # xarray.Dataset (policy, variant, week, month)

    @property
    def counts(self) -> np.ndarray:
        """Confusion counts per week, (K, 4)."""
        return np.asarray(self.classify.confusion.values, dtype=np.int64)

    @property
    def weekly(self) -> dict[str, np.ndarray]:
        return scores(self.counts)

    @property
    def overall(self) -> dict[str, float]:
        """Scores over the weeks with a classifier (week 1 on)."""
        return scores(self.counts[1:].sum(axis=0))

    @property
    def kill_dividers(self) -> np.ndarray | None:
        return kill_dividers(self.predicted, self.prepared.week, self.prepared.dividers)

    def divider_summary(self) -> dict[str, Any]:
        """The weekly dividers and the jobs killed at them: those classified
        small that run (min(p, p~)) longer than their week's divider --
        every policy of classification-idempotent requeues exactly these."""
        pr = self.prepared
        D = self.kill_dividers
        small = self.predicted.astype(bool)
        run = pr.jobs.run
        weekly = pr.dividers[1:]
        weekly = weekly[np.isfinite(weekly)]
        out = {"divider_weekly_min_s": float(weekly.min()) if weekly.size else np.nan,
               "divider_weekly_median_s": float(np.median(weekly)) if weekly.size else np.nan,
               "divider_weekly_max_s": float(weekly.max()) if weekly.size else np.nan,
               "divider_trace_s": float(np.median(run)), "predicted_small": int(small.sum()),
               "false_small": int((small & (pr.truth == 0)).sum())}
        d = np.minimum(run, pr.jobs.req)            # the duration run (overrun="kill")
        out["killed_at_divider"] = 0 if D is None else int((small & (d > D)).sum())
        return out

    def total(self, policy: str, variant: str) -> float:
        return float(self.schedule.sum_bsld.sel(policy=policy, variant=variant))

    def gain(self, policy: str, variant: str, baseline: tuple[str, str] = ("FCFS", "base")) -> float:
        """Improvement (%) of the total bsld over ``baseline`` (policy, variant)."""
        b = self.total(*baseline)
        return 100.0 * (1.0 - self.total(policy, variant) / b) if b > 0 else np.nan


def _classify_dataset(ds):
    ds = ds.assign_coords(outcome=list(OUTCOMES), feature=list(FEATURE_NAMES))
    ds["outcome"].attrs["long_name"] = "TS, FS, TL, FL: true/false small/large (thesis §6.3.3)"
    ds["feature"].attrs["long_name"] = "classification feature (thesis Table 6.3)"
    ds["slot"].attrs["long_name"] = "position of a job among the jobs submitted in its week"
    ds["week"].attrs["long_name"] = "week of the trace (7-day periods from the first submission)"
    return ds


def _schedule_dataset(ds):
    ds["policy"].attrs["long_name"] = "queue policy P (P_R = P_B), with the waiting-time threshold"
    ds["variant"].attrs["long_name"] = "scheduling variant (thesis §6.5)"
    ds["week"].attrs["long_name"] = "week of the trace: cumulative values at its end"
    ds["month"].attrs["long_name"] = "30-day period from the first submission (jobs by submit time)"
    return ds


def predictions_from(ds, pr: Prepared) -> np.ndarray:
    """The predicted class of every job from a classify dataset."""
    out = np.zeros(len(pr.jobs), dtype=np.int8)
    n = np.asarray(ds.week_jobs.values, dtype=np.int64)
    slots = np.asarray(ds.predicted_small.values)
    for k in range(pr.n_weeks):
        rows = pr.week == k
        if int(rows.sum()) != n[k]:
            raise InputError(f"{pr.name}: week {k} has {int(rows.sum())} jobs, the classification {n[k]}")
        out[rows] = slots[k, :n[k]].astype(np.int8)
    return out


# ------------------------------------------------------------------ tables --

_SOURCE = "thesis: " + THESIS.split(", PhD")[0] + " ch. 6."


def _pub(table: str, trace: str, i=None):
    v = PUBLISHED[table].get(trace)
    if v is None or i is None:
        return v
    return v.get(i) if isinstance(v, dict) else v[i]


def table_6_4(res: Sequence[TraceResult]) -> Table:
    rows = []
    for r in res:
        o = r.overall
        rows.append([r.name, int(o["jobs"]), _pub("table_6_4", r.name, 0), o["accuracy"],
                     _pub("table_6_4", r.name, 1), o["precision"], _pub("table_6_4", r.name, 2), o["recall"]])
    names = {r.name for r in res}
    for t in PUBLISHED["table_6_4"]:
        if t not in names and t in MISSING_TRACES:
            a, p, rc = PUBLISHED["table_6_4"][t]
            rows.append([t, None, a, None, p, None, rc, None])
    return Table(["trace", "jobs", "accuracy % (thesis)", "accuracy %", "precision % (thesis)", "precision %",
                  "recall % (thesis)", "recall %"], rows, default_digits=1,
                 title="Overall classification quality (thesis §6.3.3, Table 6.4)",
                 notes=["counts TS, FS, TL, FL summed over the weeks with a classifier (week 1 on; week 0 is "
                        "all large); accuracy (TS+TL)/n, precision TS/(TS+FS), recall TS/(TS+FL).",
                        "MetaCentrum is not bundled: published values only.", _SOURCE])


def table_6_5(res: Sequence[TraceResult]) -> Table:
    rows = []
    names = [r.name for r in res] + [t for t in PUBLISHED["table_6_5"] if t in MISSING_TRACES]
    by = {r.name: r for r in res}
    for name in names:
        pub = PUBLISHED["table_6_5"].get(name)
        acc = _pub("table_6_4", name, 0)
        expected_acc = 100.0 - pub[0] - pub[1] if pub is not None else None
        o = by[name].overall if name in by else {}
        rows.append([name, pub[0] if pub else None, o.get("false_large"), o.get("false_large_of_all"),
                     pub[1] if pub else None, o.get("false_small"), o.get("false_small_of_all"), expected_acc, acc])
    return Table(["trace", "FL % (thesis)", "FL/(FL+TL) %", "FL/n %", "FS % (thesis)", "FS/(FS+TS) %", "FS/n %",
                  "100-FL-FS (thesis)", "accuracy % (thesis)"], rows, default_digits=2,
                 title="Classification errors (thesis §6.3.3.2, Table 6.5)",
                 notes=["the thesis prints FL/(FL+TL) and FS/(FS+TS); its Table 6.4 accuracy matches "
                        "100 - FL - FS, i.e. the errors as shares of all jobs (FL/n, FS/n), for most traces: "
                        "both readings are shown.", _SOURCE])


def table_totals(res: Sequence[TraceResult], variants=THESIS_VARIANTS) -> Table:
    rows = []
    for r in res:
        for pol in r.schedule.policy.values.tolist():
            row = [r.name, pol]
            for v in variants:
                row.append(r.total(pol, v))
            for v in variants[1:]:
                row.append(r.gain(pol, v, (pol, "base")))
            rows.append(row)
    cols = (["trace", "policy"] + [f"total bsld {VARIANT_LABELS[v]}" for v in variants]
            + [f"gain % {VARIANT_LABELS[v]}" for v in variants[1:]])
    return Table(cols, rows, default_digits=1, digits={c: 0 for c in cols if c.startswith("total")},
                 title="Total bounded slowdown per variant (thesis Fig. 6.9)",
                 notes=["total bsld: sum over all jobs of max((wait + d)/max(d, 10), 1); gain: 1 - total / total "
                        "of the base policy, in %."] + [f"{VARIANT_LABELS[v]}: {VARIANTS[v]}." for v in variants])


def table_gains(res: Sequence[TraceResult]) -> Table:
    """Compact: the gains (%) of classification-idempotent over the base
    policy, per trace and policy (the §6.5.1 claims)."""
    pols = list(res[0].schedule.policy.values.tolist()) if res else []
    rows = [[r.name] + [r.gain(p, "classification-idempotent", (p, "base")) for p in pols] for r in res]
    notes = [f"thesis §6.5.1, {k.split('_')[1]}: {CLAIMS[k][2]:g} to {CLAIMS[k][3]:g} %"
             for k in ("gain_FCFS", "gain_SPF", "gain_SAF")]
    return Table(["trace"] + pols, rows, default_digits=1,
                 title="Gain (%) of classification-idempotent over the base policy (total bsld)",
                 notes=["; ".join(notes) + "."])


def table_6_6(res: Sequence[TraceResult]) -> Table:
    rows = []
    names = [r.name for r in res]
    by = {r.name: r for r in res}
    for name in names + [t for t in PUBLISHED["table_6_6"] if t not in names]:
        pub = PUBLISHED["table_6_6"].get(name, {})
        r = by.get(name)
        have_spf = r is not None and "SPF" in r.schedule.policy.values.tolist()
        rows.append([name, pub.get("easypp"), pub.get("easypp_authors"),
                     r.gain("FCFS", "easy++") if r is not None else None, pub.get("gaussier_authors"),
                     pub.get("FCFS"), r.gain("FCFS", "classification-idempotent") if r is not None else None,
                     pub.get("SPF"), r.gain("SPF", "classification-idempotent") if have_spf else None])
    return Table(["trace", "EASY++ (thesis)", "EASY++ (authors)", "EASY++", "Gaussier et al. (authors)",
                  "FCFS-CI (thesis)", "FCFS-CI", "SPF-CI (thesis)", "SPF-CI"], rows, default_digits=0,
                 title="Improvement (%) of the total bsld over EASY-FCFS (thesis Table 6.6)",
                 notes=["CI: classification-idempotent.  EASY++ here: EASY-FCFS-SJBF on EASY++ predictions "
                        "with incremental corrections (Tsafrir et al.), with the same threshold.  '(authors)': the values the original "
                        "papers reported, as quoted by the thesis; Gaussier et al.'s method is the subject of "
                        "the runtime-prediction study.", _SOURCE])


def table_small_large(res: Sequence[TraceResult]) -> Table:
    rows = []
    for r in res:
        s = r.schedule
        for pol in s.policy.values.tolist():
            def v(var, cls):
                return float(s[f"mean_bsld_{cls}"].sel(policy=pol, variant=var))
            sb, sc = v("base", "small"), v("classification-idempotent", "small")
            lb, lc = v("base", "large"), v("classification-idempotent", "large")
            rows.append([r.name, pol, sb, sc, 100 * (sc / sb - 1) if sb > 0 else None,
                         lb, lc, 100 * (lc / lb - 1) if lb > 0 else None])
    return Table(["trace", "policy", "small: base", "small: CI", "small change %", "large: base", "large: CI",
                  "large change %"], rows, default_digits=1,
                 title="Mean bsld of small and large jobs (thesis Fig. 6.8)",
                 notes=["small / large: true classes (p <= divider of the job's week); CI: "
                        "classification-idempotent.  thesis §6.5.3: small jobs gain up to 55 %, large jobs "
                        "lose at most 15 %."])


def table_dividers(res: Sequence[TraceResult]) -> Table:
    from ..traces import PUBLISHED as TRACES_PUBLISHED
    rows = []
    for r in res:
        a = r.divider_summary()
        pub = TRACES_PUBLISHED["table_6_1"].get(r.name)
        rows.append([r.name, r.prepared.n_weeks, pub[0] if pub else None, a["divider_trace_s"],
                     a["divider_weekly_min_s"], a["divider_weekly_median_s"], a["divider_weekly_max_s"],
                     a["predicted_small"], a["false_small"], a["killed_at_divider"]])
    return Table(["trace", "weeks", "divider (s, thesis Table 6.1)", "median p (s)", "weekly min (s)",
                  "weekly median (s)", "weekly max (s)", "classified small", "false small",
                  "killed at their week's divider"], rows, default_digits=0,
                 title="Dividers, week by week, and the jobs killed at them",
                 notes=["weekly divider: median runtime of the jobs known at the start of the week; it labels "
                        "the week's training data and true classes, and a job classified small that week is "
                        "killed at it (classification-idempotent).",
                        "false small: classified small, p > its week's divider; killed: classified small and "
                        "min(p, p~) > its week's divider (a false small job whose request is below the "
                        "divider is cut at p~ instead), requeued as large under every policy."])


def table_weekly_summary(res: Sequence[TraceResult]) -> Table:
    rows = []
    for r in res:
        w = r.weekly
        with np.errstate(all="ignore"):
            rows.append([r.name, r.prepared.n_weeks, int(np.asarray(r.classify.train_jobs)[-1]),
                         float(np.nanmedian(w["accuracy"][1:])), float(np.nanmin(w["accuracy"][1:])),
                         float(np.nanmedian(w["precision"][1:])), float(np.nanmedian(w["recall"][1:])),
                         int(np.isnan(w["precision"][1:]).sum())])
    return Table(["trace", "weeks", "training jobs (last week)", "weekly accuracy median %",
                  "weekly accuracy min %", "weekly precision median %", "weekly recall median %",
                  "weeks without precision"], rows, default_digits=1,
                 title="Weekly classification quality (thesis Fig. 6.4)",
                 notes=["over weeks 1 on; precision is undefined in a week where no job is classified small."])


# ----------------------------------------------------------------- figures --

def _grid(n: int, per_row: int = 3):
    cols = min(n, per_row)
    rows = -(-n // cols)
    return rows, cols


def figure_weekly_scores(res: Sequence[TraceResult]):
    """Thesis Fig. 6.4: accuracy, precision and recall of every week."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.3 * n + 0.7)
        axes = fig.subplots(n, 1, squeeze=False, sharex=False)[:, 0]
        for ax, r in zip(axes, res):
            w = r.weekly
            x = np.arange(r.prepared.n_weeks)
            for key, colour in (("accuracy", "0.2"), ("precision", "#1f77b4"), ("recall", "#d62728")):
                ax.plot(x[1:], w[key][1:], color=colour, lw=0.9, label=key, marker=".", ms=2)
            ax.set_ylim(0, 105)
            ax.set_ylabel(f"{r.name}\n%")
            ax.set_xlim(-0.5, max(r.prepared.n_weeks - 0.5, 1))
        axes[-1].set_xlabel("week (the model of week k is trained on the jobs known at its start)")
        axes[0].legend(loc="lower right", ncols=3)
    return fig


def figure_importance(res: Sequence[TraceResult]):
    """Thesis Fig. 6.5: Gini importances of the weekly models."""
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.5 * n + 0.8)
        axes = fig.subplots(n, 1, squeeze=False, sharex=True)[:, 0]
        groups = [f[2] for f in FEATURES]
        colours = {"job": "#1f77b4", "temporal": "#7f7f7f", "lag": "#ff7f0e", "aggregation": "#2ca02c"}
        for ax, r in zip(axes, res):
            imp = np.asarray(r.classify.feature_importance.values)
            imp = imp[np.all(np.isfinite(imp), axis=1)]
            data = [imp[:, j] for j in range(len(FEATURES))] if imp.size else [np.zeros(0)] * len(FEATURES)
            bp = ax.boxplot(data, widths=0.6, patch_artist=True, showfliers=False)
            for patch, g in zip(bp["boxes"], groups):
                patch.set_facecolor(colours[g])
                patch.set_alpha(0.6)
            for med in bp["medians"]:
                med.set_color("k")
            ax.set_ylabel(f"{r.name}\nimportance")
        axes[-1].set_xticks(np.arange(1, len(FEATURES) + 1), FEATURE_LABELS, rotation=60)
        from matplotlib.patches import Patch
        fig.legend(handles=[Patch(color=c, alpha=0.6, label=g) for g, c in colours.items()],
                   loc="outside upper center", ncols=4)
    return fig


_POLICY_STYLES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (1, 3)))


def figure_cumulative(res: Sequence[TraceResult], variants=("base", "classification-idempotent")):
    """Thesis Fig. 6.7: cumulative total bsld through time, base (black)
    vs classification-idempotent (cyan), one line style per policy."""
    from matplotlib.lines import Line2D
    rows, cols = _grid(len(res), 2)
    with plots.style():
        fig = plots.figure(7.0, 2.2 * rows + 0.6)
        axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
        pols = res[0].schedule.policy.values.tolist() if res else []
        for ax, r in zip(axes, res):
            x = np.arange(1, r.prepared.n_weeks + 1)
            for i, pol in enumerate(pols):
                for v in variants:
                    y = r.schedule.cum_sum_bsld.sel(policy=pol, variant=v).values
                    ax.plot(x, y, color=VARIANT_COLORS[v], ls=_POLICY_STYLES[i % len(_POLICY_STYLES)], lw=1.0)
            ax.set_title(r.name)
            ax.set_xlabel("week")
            ax.set_ylabel("cumulative bsld")
            ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 3))
        for ax in axes[len(res):]:
            ax.set_visible(False)
        handles = [Line2D([], [], color=VARIANT_COLORS[v], label=VARIANT_LABELS[v]) for v in variants]
        handles += [Line2D([], [], color="0.4", ls=_POLICY_STYLES[i % len(_POLICY_STYLES)], label=p)
                    for i, p in enumerate(pols)]
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles))
    return fig


def figure_monthly(res: Sequence[TraceResult]):
    """Thesis Fig. 6.6: mean bsld of every month, base vs
    classification-idempotent, each month a line."""
    pols = res[0].schedule.policy.values.tolist() if res else []
    n, k = len(res), len(pols)
    with plots.style():
        fig = plots.figure(max(1.5 * k, 4.0), 1.5 * n + 0.5)
        axes = fig.subplots(n, k, squeeze=False)
        for i, r in enumerate(res):
            for j, pol in enumerate(pols):
                ax = axes[i, j]
                a = r.schedule.month_mean_bsld.sel(policy=pol, variant="base").values
                b = r.schedule.month_mean_bsld.sel(policy=pol, variant="classification-idempotent").values
                ok = np.isfinite(a) & np.isfinite(b)
                better = b[ok] <= a[ok]
                for ya, yb, good in zip(a[ok], b[ok], better):
                    ax.plot([0, 1], [ya, yb], color="#17becf" if good else "#d62728", lw=0.7, marker="o", ms=2)
                ax.set_yscale("log")
                ax.set_xlim(-0.3, 1.3)
                ax.set_xticks([0, 1], ["base", "CI"])
                ax.grid(False, axis="x")
                if i == 0:
                    ax.set_title(pol)
                if j == 0:
                    ax.set_ylabel(f"{r.name}\nmonthly mean bsld")
    return fig


def figure_small_large(res: Sequence[TraceResult]):
    """Thesis Fig. 6.8: mean bsld of small and large jobs, base vs
    classification-idempotent."""
    pols = res[0].schedule.policy.values.tolist() if res else []
    n = len(res)
    with plots.style():
        fig = plots.figure(7.0, 1.6 * n + 0.6)
        axes = fig.subplots(n, 2, squeeze=False)
        x = np.arange(len(pols))
        for i, r in enumerate(res):
            for j, cls in enumerate(("small", "large")):
                ax = axes[i, j]
                for o, v in ((-0.2, "base"), (0.2, "classification-idempotent")):
                    y = [float(r.schedule[f"mean_bsld_{cls}"].sel(policy=p, variant=v)) for p in pols]
                    ax.bar(x + o, y, width=0.4, color=VARIANT_COLORS[v], label=VARIANT_LABELS[v])
                ax.set_xticks(x, pols)
                if i == 0:
                    ax.set_title(f"{cls} jobs")
                if j == 0:
                    ax.set_ylabel(f"{r.name}\nmean bsld")
        axes[0, 0].legend(loc="upper right")
    return fig


def figure_totals(res: Sequence[TraceResult], variants=THESIS_VARIANTS):
    """Thesis Fig. 6.9: total bsld per policy and variant, relative to the
    base policy."""
    pols = res[0].schedule.policy.values.tolist() if res else []
    rows, cols = _grid(len(res), 2)
    with plots.style():
        fig = plots.figure(7.0, 2.0 * rows + 0.6)
        axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
        w = 0.8 / len(variants)
        x = np.arange(len(pols))
        for ax, r in zip(axes, res):
            for i, v in enumerate(variants):
                y = [r.total(p, v) for p in pols]
                ax.bar(x - 0.4 + w * (i + 0.5), y, width=w, color=VARIANT_COLORS[v], label=VARIANT_LABELS[v])
            ax.set_xticks(x, pols)
            ax.set_title(r.name)
            ax.set_ylabel("total bsld")
            ax.ticklabel_format(axis="y", style="sci", scilimits=(0, 3))
        for ax in axes[len(res):]:
            ax.set_visible(False)
        h, lab = axes[0].get_legend_handles_labels()
        fig.legend(h, lab, loc="outside lower center", ncols=len(variants))
    return fig


# ----------------------------------------------------------------- numbers --

def _r(x, digits=2):
    return None if x is None or not np.isfinite(x) else round(float(x), digits)


def numbers(res: Sequence[TraceResult], p: Params) -> dict[str, Any]:
    """The key numbers for the paper (``numbers.json``)."""
    names = [r.name for r in res]
    n: dict[str, Any] = {
        "profile": p.profile, "traces": names, "trace_list": ", ".join(names),
        "n_traces": len(names), "missing_traces": ", ".join(MISSING_TRACES),
        "policies": list(p.policies), "policy_list": ", ".join(p.policies),
        "threshold_s": p.threshold if p.threshold is not None else "none",
        "threshold_days": _r(p.threshold / DAY) if p.threshold is not None else "none",
        "trees": p.trees, "max_samples": p.max_samples if p.max_samples is not None else "all",
        "seed": p.seed, "weeks": p.weeks if p.weeks is not None else "all", "history": p.history,
        "divider_window": p.divider_window, "finish": p.finish, "features": len(FEATURES),
        "per_trace": {},
        "claims": {k: {"where": w, "claim": c, "low": lo, "high": hi} for k, (w, c, lo, hi) in CLAIMS.items()},
    }
    for r in res:
        o, a = r.overall, r.divider_summary()
        d: dict[str, Any] = {
            "weeks": r.prepared.n_weeks, "jobs": len(r.prepared.jobs),
            "classified_jobs": int(o["jobs"]),
            "accuracy_pct": _r(o["accuracy"]), "precision_pct": _r(o["precision"]), "recall_pct": _r(o["recall"]),
            "false_large_pct": _r(o["false_large"]), "false_small_pct": _r(o["false_small"]),
            "false_large_of_all_pct": _r(o["false_large_of_all"]),
            "false_small_of_all_pct": _r(o["false_small_of_all"]),
            **{k: (_r(v) if isinstance(v, float) else v) for k, v in a.items()},
        }
        pub = PUBLISHED["table_6_4"].get(r.name)
        if pub:
            d.update(published_accuracy_pct=pub[0], published_precision_pct=pub[1], published_recall_pct=pub[2])
        imp = np.asarray(r.classify.feature_importance.values)
        imp = imp[np.all(np.isfinite(imp), axis=1)]
        if imp.size:
            med = np.median(imp, axis=0)
            d["top_feature"] = FEATURE_LABELS[int(np.argmax(med))]
            d["top_feature_importance"] = _r(float(med.max()), 3)
        d["gain"] = {pol: {v: _r(r.gain(pol, v, (pol, "base")), 1) for v in VARIANTS if v != "base"}
                     for pol in r.schedule.policy.values.tolist()}
        d["gain_over_fcfs"] = {pol: {v: _r(r.gain(pol, v), 1) for v in VARIANTS}
                               for pol in r.schedule.policy.values.tolist()}
        d["fcfs_ci_gain_pct"] = _r(r.gain("FCFS", "classification-idempotent"), 1)
        if "SPF" in r.schedule.policy.values.tolist():
            d["spf_ci_gain_pct"] = _r(r.gain("SPF", "classification-idempotent"), 1)
        d["easypp_gain_pct"] = _r(r.gain("FCFS", "easy++"), 1)
        req = int(r.schedule.requeued.sel(policy="FCFS", variant="classification-idempotent"))
        d["requeued_fcfs"] = req
        d["requeued_fcfs_pct"] = _r(100.0 * req / max(len(r.prepared.jobs), 1))
        pub6 = PUBLISHED["table_6_6"].get(r.name)
        if pub6:
            d["published_fcfs_ci_gain_pct"] = pub6["FCFS"]
            d["published_spf_ci_gain_pct"] = pub6["SPF"]
            d["published_easypp_gain_pct"] = pub6["easypp"]
        n["per_trace"][r.name] = d
    # ranges over traces (the thesis' claims)
    if res:
        prec = [r.overall["precision"] for r in res]
        acc = [r.overall["accuracy"] for r in res]
        n.update(precision_min_pct=_r(np.nanmin(prec), 1), precision_max_pct=_r(np.nanmax(prec), 1),
                 accuracy_min_pct=_r(np.nanmin(acc), 1), accuracy_max_pct=_r(np.nanmax(acc), 1))
        for pol in dict.fromkeys(POLICIES + tuple(p.policies)):
            g = [r.gain(pol, "classification-idempotent", (pol, "base")) for r in res] if pol in p.policies else []
            n[f"ci_gain_{pol}_min_pct"] = _r(np.nanmin(g), 1) if g else None
            n[f"ci_gain_{pol}_max_pct"] = _r(np.nanmax(g), 1) if g else None
        diffs = [r.overall[k] - PUBLISHED["table_6_4"][r.name][i] for r in res if r.name in PUBLISHED["table_6_4"]
                 for i, k in enumerate(("accuracy", "precision", "recall"))]
        n["t64_cells"] = len(diffs)
        n["t64_mean_abs_diff_pp"] = _r(np.mean(np.abs(diffs)), 1) if diffs else None
        d66 = []
        for r in res:
            pub6 = PUBLISHED["table_6_6"].get(r.name)
            if pub6:
                d66.append(r.gain("FCFS", "classification-idempotent") - pub6["FCFS"])
                if "SPF" in r.schedule.policy.values.tolist():
                    d66.append(r.gain("SPF", "classification-idempotent") - pub6["SPF"])
        n["t66_cells"] = len(d66)
        n["t66_mean_abs_diff_pp"] = _r(np.mean(np.abs(d66)), 1) if d66 else None
        order = {}
        for r in res:
            for pol in r.schedule.policy.values.tolist():
                ranking = sorted(THESIS_VARIANTS, key=lambda v: r.total(pol, v))
                order[f"{r.name}/{pol}"] = ranking
        n["variant_best_counts"] = {v: sum(1 for rk in order.values() if rk[0] == v) for v in THESIS_VARIANTS}
        n["cells"] = len(order)
        ci_vs_base = [r.total(pol, "classification-idempotent") < r.total(pol, "base")
                      for r in res for pol in r.schedule.policy.values.tolist()]
        n["ci_better_than_base"] = int(sum(ci_vs_base))
        nk_vs_ci = [r.total(pol, "classification") >= r.total(pol, "classification-idempotent")
                    for r in res for pol in r.schedule.policy.values.tolist()]
        n["ci_better_than_no_kill"] = int(sum(nk_vs_ci))
    return n


def _fmt(x, digits=1) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.{digits}f}"


def findings(res: Sequence[TraceResult], p: Params) -> dict[str, str]:
    """Short Markdown statements computed from the results (the notebook's
    commentary holds no numbers)."""
    if not res:
        return {}
    out = {}
    parts = []
    for r in res:
        o = r.overall
        pub = PUBLISHED["table_6_4"].get(r.name)
        txt = (f"{r.name}: accuracy {_fmt(o['accuracy'])} %, precision {_fmt(o['precision'])} %, "
               f"recall {_fmt(o['recall'])} %")
        if pub:
            txt += f" (thesis {pub[0]}/{pub[1]}/{pub[2]})"
        parts.append(txt)
    out["classifier"] = "Overall classification quality, weeks 1 on: " + "; ".join(parts) + "."
    tops = []
    for r in res:
        imp = np.asarray(r.classify.feature_importance.values)
        imp = imp[np.all(np.isfinite(imp), axis=1)]
        if imp.size:
            med = np.median(imp, axis=0)
            order = np.argsort(-med)[:3]
            tops.append(f"{r.name}: " + ", ".join(f"{FEATURE_LABELS[j]} ({med[j]:.2f})" for j in order))
    if tops:
        out["importance"] = "Highest median weekly importances -- " + "; ".join(tops) + "."
    pols = list(res[0].schedule.policy.values.tolist())
    gains = []
    for pol in pols:
        g = [r.gain(pol, "classification-idempotent", (pol, "base")) for r in res]
        claim = CLAIMS.get(f"gain_{pol}")
        txt = f"{pol} {_fmt(np.nanmin(g), 0)} to {_fmt(np.nanmax(g), 0)} %"
        if claim:
            txt += f" (thesis {claim[2]:g} to {claim[3]:g} %)"
        gains.append(txt)
    n_cells = len(res) * len(pols)
    better = sum(r.total(pol, "classification-idempotent") < r.total(pol, "base") for r in res for pol in pols)
    nokill = sum(r.total(pol, "classification") < r.total(pol, "base") for r in res for pol in pols)
    killbest = sum(r.total(pol, "classification-idempotent") <= r.total(pol, "classification")
                   for r in res for pol in pols)
    out["scheduling"] = (f"Classification-idempotent lowers the total bsld of the base policy in {better} of "
                         f"{n_cells} (trace, policy) cells; its gain ranges over the traces: " + "; ".join(gains)
                         + f". Without killing, classification still improves on the base policy in {nokill} of "
                         f"{n_cells} cells, and killing does at least as well as not killing in {killbest}.")
    ranks = {v: 0 for v in THESIS_VARIANTS}
    for r in res:
        for pol in pols:
            ranks[min(THESIS_VARIANTS, key=lambda v: r.total(pol, v))] += 1
    cc = sum(r.total(pol, "class-clairvoyant") <= r.total(pol, "classification-idempotent") for r in res
             for pol in pols)
    out["clairvoyant"] = ("Lowest total bsld per cell: " + ", ".join(f"{VARIANT_LABELS[v]} {k}" for v, k in
                                                                       ranks.items() if k)
                          + f" (of {n_cells}); class-clairvoyant is at least as good as classification-idempotent "
                            f"in {cc} of {n_cells} cells.")
    sl = []
    for r in res:
        for pol in pols:
            s = r.schedule
            sb = float(s.mean_bsld_small.sel(policy=pol, variant="base"))
            sc = float(s.mean_bsld_small.sel(policy=pol, variant="classification-idempotent"))
            lb = float(s.mean_bsld_large.sel(policy=pol, variant="base"))
            lc = float(s.mean_bsld_large.sel(policy=pol, variant="classification-idempotent"))
            sl.append((100 * (sc / sb - 1) if sb > 0 else np.nan, 100 * (lc / lb - 1) if lb > 0 else np.nan))
    sl = np.array(sl)
    out["small_large"] = (f"With classification-idempotent, the mean bsld of the small jobs changes by "
                          f"{np.nanmin(sl[:, 0]):+.0f} to {np.nanmax(sl[:, 0]):+.0f} % and that of the large jobs by "
                          f"{np.nanmin(sl[:, 1]):+.0f} to {np.nanmax(sl[:, 1]):+.0f} % over the (trace, policy) cells "
                          f"(thesis §6.5.3: small jobs gain up to 55 %, large jobs lose at most 15 %).")
    t66 = []
    for r in res:
        pub6 = PUBLISHED["table_6_6"].get(r.name)
        if pub6:
            t66.append(f"{r.name} FCFS-CI {_fmt(r.gain('FCFS', 'classification-idempotent'), 0)} % (thesis "
                       f"{pub6['FCFS']}), EASY++ {_fmt(r.gain('FCFS', 'easy++'), 0)} % (thesis {pub6['easypp']})")
    if t66:
        out["table_6_6"] = "Against EASY-FCFS: " + "; ".join(t66) + "."
    dv = []
    for r in res:
        a = r.divider_summary()
        dv.append(f"{r.name}: weekly {_fmt(a['divider_weekly_min_s'], 0)}-{_fmt(a['divider_weekly_max_s'], 0)} s, "
                  f"{a['killed_at_divider']} of {a['predicted_small']} jobs classified small killed and requeued "
                  f"({a['false_small']} false small)")
    out["dividers"] = ("Each job classified small is killed at the divider of its week -- " + "; ".join(dv)
                       + ".")
    return out


# --------------------------------------------------------------------- run --

def run(params: Params | None = None, /, *, log: Callable = print, progress: bool = False,
        **kw) -> dict[str, Any]:
    """Run the study and write every output under ``params.outdir`` (default
    ``results/classification``), each file atomically:

    * ``datasets/classify-<trace>.nc`` (per week: divider, training size,
      confusion counts, feature importances, predicted classes) and
      ``datasets/schedule-<trace>.nc`` (per policy and variant);
    * ``tables/<name>.{csv,md}``, ``figures/<name>.{png,pdf}``,
      ``data/weekly_scores.csv``;
    * ``numbers.json`` (key numbers for the paper), ``findings.json``,
      ``parameters.json``.

    ``params`` is a :class:`Params` (from :func:`validate`), or give
    :func:`validate`'s keyword arguments.  Returns a dict: ``params``,
    ``results`` (a :class:`TraceResult` per trace), ``tables``, ``figures``,
    ``numbers``, ``findings``, ``files``, ``outdir``, ``seconds``.
    """
    t0 = time.perf_counter()
    if isinstance(params, Params) and kw:
        raise InputError("run: give either a Params or keyword parameters, not both")
    p = params if isinstance(params, Params) else validate(**kw)
    out = p.outdir
    cluster = campaign.Runner(p.workers, p.scheduler, p.cache_dir, log)
    results: list[TraceResult] = []
    files: list[Path] = []
    timing = {}
    try:
        t = time.perf_counter()
        for info, c in zip(p.traces, campaigns_classify(p).values()):
            ds = _classify_dataset(cluster.run(c, progress=progress))
            pr = _prepared(p, info)
            results.append(TraceResult(info.name, pr, ds, predictions_from(ds, pr)))
            files.append(store.write_dataset(ds, out / "datasets" / f"classify-{_slug(info.name)}.nc"))
        timing["classify_s"] = time.perf_counter() - t
        t = time.perf_counter()
        for info, r in zip(p.traces, results):
            c = campaign_schedule(p, info, r.predicted)
            ds = _schedule_dataset(cluster.run(c, progress=progress))
            spec = c.to_dict()
            spec["params"] = {**spec["params"], "classes": "sha256:" + hashlib.sha256(
                spec["params"]["classes"].encode()).hexdigest()}
            ds.attrs["campaign"] = spec          # the packed classes, by checksum
            r.schedule = ds
            files.append(store.write_dataset(ds, out / "datasets" / f"schedule-{_slug(info.name)}.nc"))
        timing["schedule_s"] = time.perf_counter() - t
    finally:
        cluster.close()

    tabs = {"table_6_4": table_6_4(results), "table_6_5": table_6_5(results), "table_6_6": table_6_6(results),
            "weekly": table_weekly_summary(results), "gains": table_gains(results), "totals": table_totals(results),
            "small_large": table_small_large(results), "dividers": table_dividers(results)}
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    rows = []
    for r in results:
        w = r.weekly
        for k in range(r.prepared.n_weeks):
            rows.append([r.name, k, float(r.classify.divider.values[k]), int(r.classify.train_jobs.values[k]),
                         *[int(x) for x in r.counts[k]], w["accuracy"][k], w["precision"][k], w["recall"][k]])
    weekly = Table(["trace", "week", "divider_s", "train_jobs", *OUTCOMES, "accuracy", "precision", "recall"], rows)
    files.append(write_text(out / "data" / "weekly_scores.csv", weekly.to_csv()))
    figs = {"weekly_scores": figure_weekly_scores(results), "importance": figure_importance(results),
            "cumulative": figure_cumulative(results), "monthly": figure_monthly(results),
            "small_large": figure_small_large(results), "totals": figure_totals(results)}
    fig_paths = {}
    for name, fig in figs.items():
        fig_paths[name] = plots.savefig(fig, out / "figures" / name)
        files += fig_paths[name]
    nums = numbers(results, p)
    found = findings(results, p)
    nums.update({k: round(v, 1) for k, v in timing.items()})
    nums["wall_s"] = round(time.perf_counter() - t0, 1)
    nums["schedlab_version"] = __version__
    nums["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    files.append(write_json(out / "numbers.json", nums))
    files.append(write_json(out / "findings.json", found))
    files.append(write_json(out / "parameters.json", p.as_dict()))
    return {"params": p, "results": results, "tables": tabs, "figures": fig_paths, "numbers": nums,
            "findings": found, "files": files, "outdir": out, "seconds": time.perf_counter() - t0}
