"""The computations of the classification study that run in its campaign
cells: a trace cut into weeks with its dividers and true classes, the
features of Table 6.3 and the weekly random forest (:func:`fit_week`), the
scheduling variants (:func:`simulate_variant`) and their outputs; the
cells (:func:`classify_cell`, one week; :func:`schedule_cell`, one policy
and variant) and the campaigns that run them."""
from __future__ import annotations

import base64
import functools
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...campaigns import store
from ...campaigns.cells import TraceInputs, cell
from ...campaigns.spec import Campaign
from ...workloads import workload
from ...engine import metrics, sim
from ...workloads import traces as _traces
from ...declared import REQUIRED, CellInputs, duration, integer, param, text
from ...errors import InputError


#: The campaign variables the classification study's cells record (:func:`schedlab.campaigns.store.declare`).
store.declare(__name__, {
    "divider": store.Var("job-size divider of the week: median runtime of the jobs known at its start",
                         "s", "float64", store.NAN),
    "train_jobs": store.Var("number of jobs the weekly classifier was trained on", "1", "int64", -1),
    "train_small": store.Var("number of small jobs among the weekly classifier's training jobs", "1", "int64", -1),
    "week_jobs": store.Var("number of jobs submitted in the week", "1", "int64", -1),
    "confusion": store.Var("classification outcome counts: true small, false small, true large, false large",
                           "1", "int64", -1),
    "feature_importance": store.Var("Gini importance of each feature in the weekly random forest (sum 1)",
                                    "1", "float64", store.NAN),
    "predicted_small": store.Var("predicted class of each job of the week, in submit order (1 small, 0 large; -1 past "
                                 "the week's jobs)",
                                 "1", "int64", -1),
    "sum_bsld": store.Var("total bounded slowdown of the jobs (tau = 10 s)", "1", "float64", store.NAN),
    "mean_bsld_small": store.Var("mean bounded slowdown of the truly small jobs", "1", "float64", store.NAN),
    "mean_bsld_large": store.Var("mean bounded slowdown of the truly large jobs", "1", "float64", store.NAN),
    "cum_sum_bsld": store.Var("total bounded slowdown of the jobs finished by the end of each week",
                              "1", "float64", store.NAN),
    "month_mean_bsld": store.Var("mean bounded slowdown of the jobs submitted in each month",
                                 "1", "float64", store.NAN),
    "requeued_true_small": store.Var("number of requeued jobs that were small by their week's divider",
                                     "1", "int64", -1),
})

# The constants the cells need live here, not in params.py: the cells then
# import nothing of the study's parameters or of the driver, so their cache
# keys (which follow the code the cells import) do not move when those do.
WEEK = workload.WEEK
DAY = workload.DAY
MONTH = workload.MONTH

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
HISTORIES = ("completed", "previous-weeks")
DIVIDER_WINDOWS = ("all", "week")
FINISHES = ("auto", "log", "easy-fcfs")
#: The threshold of thesis §5.8, "used for the rest of our research".
THRESHOLD = 200000

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
_NEVER = np.iinfo(np.int64).max


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


def finish_used(trace, jobs: sim.Jobs, how: str = "auto") -> str:
    """The finish rule ``how`` resolves to on this trace: ``"auto"`` is the
    log's finish times when it records a wait for any of the jobs, else
    those of an EASY-FCFS simulation (stated in the study's numbers and
    text)."""
    if how not in FINISHES:
        raise InputError(f"known_finish: how must be one of {FINISHES}, got {how!r}")
    if how != "auto":
        return how
    return "log" if len(jobs) == 0 or np.any(workload.log_waits(trace, jobs, "known_finish") >= 0) else "easy-fcfs"


def known_finish(trace, jobs: sim.Jobs, how: str = "auto", m: int | None = None) -> np.ndarray:
    """When each job's runtime becomes known: its finish time in the log
    (``how="log"``: r + wait + p; never, i.e. int64 max, when the log's wait
    is missing), in the EASY-FCFS simulation of ``jobs`` on ``m``
    processors (``how="easy-fcfs"``), or the first when the log records
    any wait and else the second (``how="auto"``, :func:`finish_used`)."""
    how = finish_used(trace, jobs, how)
    if how == "log":
        wait = workload.log_waits(trace, jobs, "known_finish")
        if len(jobs) and np.all(wait < 0):
            raise InputError(f"{trace.path}: the log records no waiting time, so when a job finished is "
                             "unknown; use finish='easy-fcfs' (finish times of an EASY-FCFS simulation) "
                             "or finish='auto'")
        return np.where(wait >= 0, jobs.submit + np.maximum(wait, 0) + jobs.run, _NEVER).astype(np.int64)
    if m is None:
        raise InputError("known_finish: how='easy-fcfs' needs the machine size m")
    return sim.simulate(jobs, m, "EASY-FCFS-FCFS").end.astype(np.int64)


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


#: the bound of the integer random states scikit-learn draws for the trees of a forest
_MAX_INT = np.iinfo(np.int32).max


def fit_forest(X, y, *, trees: int = 100, max_samples: int | None = None, random_state: int = 0):
    """scikit-learn's ``RandomForestClassifier(n_estimators=trees,
    max_samples=max_samples, random_state=random_state)`` fitted on
    ``(X, y)`` -- the same forest, tree for tree, in less time.

    The forest's own fit draws an integer random state per tree, draws each
    tree's bootstrap sample with it and grows the tree on all ``n`` rows,
    each weighted by how often the bootstrap drew it.  This does exactly
    that, except that the rows equal in every feature and in the label are
    merged into one row whose weight is the sum of their bootstrap counts
    (jobs of one user submitted alike in the same hour are often equal:
    half of HPC2N's training rows).  A tree sees the same values with the
    same total weights: the weights are integers, so every weighted count
    the Gini criterion sums is exact and in any order equal, the splits,
    thresholds, leaf values and feature draws are the same
    (``tests/test_study_classification.py`` compares them tree by tree with
    ``RandomForestClassifier.fit``), and the trees sort 1.2-2x fewer rows.
    Returns a ``RandomForestClassifier`` holding those trees: its
    ``predict`` and ``feature_importances_`` are scikit-learn's."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    X = np.asarray(X)
    y = np.asarray(y)
    n = y.size
    if n == 0 or X.shape[0] != n:
        raise InputError(f"fit_forest: {X.shape[0]} rows of features for {n} labels")
    n_boot = n if max_samples is None else int(max_samples)
    # the distinct (features, label) rows, by their bytes (equal bytes: equal values)
    Z = np.ascontiguousarray(np.column_stack([X.astype(np.float64), y.astype(np.float64)]))
    _, first, group = np.unique(Z.view(np.dtype((np.void, Z.dtype.itemsize * Z.shape[1]))).ravel(),
                                return_index=True, return_inverse=True)
    group = group.ravel()
    Xu = np.ascontiguousarray(X[first], dtype=np.float32)   # the forest's own dtype for X
    yu = y[first]
    forest = RandomForestClassifier(n_estimators=int(trees), max_samples=max_samples, random_state=random_state)
    rng = np.random.RandomState(random_state)            # as the forest's fit draws its trees' states
    estimators = []
    for _ in range(int(trees)):
        tree_state = rng.randint(_MAX_INT)
        drawn = np.random.RandomState(tree_state).randint(0, n, n_boot)   # the tree's bootstrap sample
        weight = np.bincount(group, weights=np.bincount(drawn, minlength=n), minlength=first.size)
        tree = DecisionTreeClassifier(criterion=forest.criterion, max_depth=forest.max_depth,
                                      min_samples_split=forest.min_samples_split,
                                      min_samples_leaf=forest.min_samples_leaf,
                                      min_weight_fraction_leaf=forest.min_weight_fraction_leaf,
                                      max_features=forest.max_features, max_leaf_nodes=forest.max_leaf_nodes,
                                      min_impurity_decrease=forest.min_impurity_decrease,
                                      ccp_alpha=forest.ccp_alpha, random_state=tree_state)
        estimators.append(tree.fit(Xu, yu, sample_weight=weight))
    forest.estimators_ = estimators
    forest.estimator_ = estimators[0] if estimators else DecisionTreeClassifier()
    forest.classes_ = estimators[0].classes_ if estimators else np.unique(y)
    forest.n_classes_ = len(forest.classes_)
    forest.n_outputs_ = 1
    forest.n_features_in_ = X.shape[1]
    return forest


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
    ms = None if max_samples is None or max_samples >= y.size else int(max_samples)
    forest = fit_forest(X[train], y, trees=int(trees), max_samples=ms, random_state=_forest_seed(seed, k))
    if rows.size:
        out["predicted"] = forest.predict(X[rows]).astype(np.int8)
    out["importance"] = forest.feature_importances_.astype(np.float64)
    return out


def confusion(predicted, truth) -> np.ndarray:
    """(TS, FS, TL, FL) counts of predicted vs true classes (1 = small)."""
    p = np.asarray(predicted).astype(bool)
    t = np.asarray(truth).astype(bool)
    return np.array([(p & t).sum(), (p & ~t).sum(), (~p & ~t).sum(), (~p & t).sum()], dtype=np.int64)


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
    finish_rule: str = "log"  # what ``finish`` resolved to (:func:`finish_used`)

    @property
    def n_weeks(self) -> int:
        return len(self.edges) - 1

    @property
    def slots(self) -> int:
        """The most jobs submitted in one week (the width of per-week outputs)."""
        return int(np.bincount(self.week, minlength=self.n_weeks).max()) if len(self.jobs) else 0


def _load(trace: str, m: int | None):
    jobs, _, m, swf, info = _traces.cleaned(trace, m=m)
    return info, swf, jobs, int(m)


@functools.lru_cache(maxsize=8)
def prepare(trace: str, m: int | None = None, weeks: int | None = None, finish: str = "auto",
            divider_window: str = "all") -> Prepared:
    """The trace ready for the study (cached per process)."""
    info, swf, jobs, m = _load(str(trace), m)
    edges = week_edges(jobs.submit, weeks)
    keep = jobs.submit < edges[-1]
    if not keep.all():
        jobs = jobs.subset(keep)
    rule = finish_used(swf, jobs, finish)
    fin = known_finish(swf, jobs, rule, m)
    D = weekly_dividers(jobs.run, fin, edges, divider_window)
    week = _week_index(jobs.submit, edges)
    return Prepared(info.name, jobs, m, edges, week, fin, D, true_classes(jobs.run, week, D),
                    swf.time_zone_string, swf.unix_start_time, rule)


@functools.lru_cache(maxsize=4)
def feature_matrix(trace: str, m: int | None = None, weeks: int | None = None, finish: str = "auto",
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

@dataclass(frozen=True)
class _Inputs(CellInputs):
    """What both classification cells take: the trace and the classifier's settings."""

    trace: str = TraceInputs.field("trace")
    m: int | None = TraceInputs.field("m")
    weeks: int | None = param(None, help="weeks of the log kept (None: all)", unit="weeks",
                              check=integer(1, optional=True))
    trees: int = param(100, help="trees of each week's forest", check=integer(1))
    max_samples: object = param(None, help="the forest's bootstrap size (None: every training job)")
    seed: int = param(0, help="the forests' seed", check=integer(0))
    history: str = param("completed", help="which past jobs the features see", check=text)
    divider_window: str = param("all", help="the jobs a week's divider is computed on", check=text)
    finish: str = param("log", help="the finish times that say what is known at a week's start", check=text)


@dataclass(frozen=True)
class ClassifyInputs(_Inputs):
    """The classify cell's inputs."""

    week: int = param(REQUIRED, help="the week classified (0-based)", check=integer(0))


@dataclass(frozen=True)
class ScheduleInputs(_Inputs):
    """The schedule cell's inputs."""

    policy: str = param(REQUIRED, help="the policy of both queues", check=text)
    variant: str = param(REQUIRED, help="the classification variant", check=text)
    threshold: int | None = param(None, help="the waiting-time threshold (None: none)", unit="s", check=duration)
    classes: object = param(None, help="the predicted classes (pack_classes; None: computed here)")


def _prep_args(p: dict) -> tuple:
    return (str(p["trace"]), p.get("m"), p.get("weeks"), p.get("finish", "log"), p.get("divider_window", "all"))


@cell("classification-classify", ClassifyInputs)
def classify_cell(p: ClassifyInputs) -> dict:
    """One week of one trace: train the model of that week (on the jobs
    known at its start), classify its jobs; outputs the week's divider,
    training size, confusion counts, feature importances and the
    predicted classes of its jobs (in submit order, padded with -1 to the
    trace's largest week)."""
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


@cell("classification-schedule", ScheduleInputs)
def schedule_cell(p: ScheduleInputs) -> dict:
    """One (trace, policy, variant): simulate and summarise
    (:func:`schedule_outputs`); classification-idempotent kills each job at
    its week's divider (:func:`kill_dividers`).  ``classes`` holds the
    predicted classes (:func:`pack_classes`); without it they are computed
    in the worker with the classifier parameters given."""
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

_SCHEDULE_CELL = "schedlab.studies.classification.cells:schedule_cell"


# -------------------------------------------------------------- campaigns --



def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def _prepared(p, t: _traces.TraceInfo) -> Prepared:
    return prepare(_traces.text(t), None, p.weeks, p.finish, p.divider_window)


def campaigns_classify(p) -> dict[str, Campaign]:
    """One campaign per trace: a cell per week (train that week's model,
    classify its jobs)."""
    out = {}
    for t in p.traces:
        pr = _prepared(p, t)
        out[t.name] = Campaign(
            f"classification-classify-{_slug(t.name)}", cell=_CLASSIFY_CELL,
            dims={"week": list(range(pr.n_weeks))},
            params={"trace": _traces.text(t), **p.classifier_params()})
    return out


def campaign_schedule(p, t: _traces.TraceInfo, predicted) -> Campaign:
    """The simulations of one trace: a cell per (policy, variant), the
    predicted classes passed packed (:func:`pack_classes`)."""
    return Campaign(
        f"classification-schedule-{_slug(t.name)}", cell=_SCHEDULE_CELL,
        dims={"policy": list(p.policies), "variant": list(VARIANTS)},
        params={"trace": _traces.text(t), "weeks": p.weeks, "threshold": p.threshold, "finish": p.finish,
       "divider_window": p.divider_window, "classes": pack_classes(predicted)})
