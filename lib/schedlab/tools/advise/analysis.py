"""The advisor's decision, from simulated weeks only (no file, no plot):
the candidate learned on the training weeks with the thresholds study's
selection rule (:func:`schedlab.studies.thresholds.analysis.select`), its
gain on the held-out weeks with the study's paired bootstrap interval
(:func:`~schedlab.studies.thresholds.analysis.gain_ci`), and how stable that
choice is."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError
from ...studies.thresholds import gain_ci, ratio_of_means, select

#: objective -> the metric of a week it averages
OBJECTIVES = {"avgwait": "avg_wait", "bsld": "mean_bsld", "ppbsld": "mean_ppbsld"}
BASELINE = "EASY-FCFS-FCFS"
#: how many bootstrap resamples of the training weeks re-learn the choice
N_RELEARN = 200


@dataclass
class Row:
    """One candidate: costs relative to EASY-FCFS-FCFS on the same weeks
    (ratios of means; gains = 100 x (1 - ratio), in %)."""

    name: str
    family: str
    train_gain: float
    test_gain: float
    test_gain_ci: tuple[float, float]
    train_maxwait_rel: float
    test_maxwait_rel: float
    allowed: bool                   # within the MaxWait risk on the training weeks
    train_rank: int = 0
    test_rank: int = 0


@dataclass
class Decision:
    objective: str
    metric: str
    weeks: int                      # resampled weeks per half
    learned: str                    # the candidate learned on the training weeks
    recommended: str                # = learned, or the baseline when it does not beat it with confidence
    reason: str
    rows: list[Row]
    max_wait_risk: float | None
    spearman: float                 # train vs test ranking of the candidates
    test_rank: int                  # of the learned candidate on the held-out weeks (1 = best)
    learned_on_test: str            # the candidate the held-out weeks would have picked
    learned_on_halves: tuple[str, str]  # ... the first and the second half of the training weeks
    relearn_share: float            # share of bootstrap resamples of the training weeks that pick it
    relearn_top: list[tuple[str, float]] = field(default_factory=list)

    def row(self, name: str) -> Row:
        return next(r for r in self.rows if r.name == name)

    @property
    def keep(self) -> bool:
        return self.recommended == BASELINE


def _spearman(x, y) -> float:
    from scipy.stats import spearmanr

    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.ptp(x[ok]) == 0 or np.ptp(y[ok]) == 0:
        return float("nan")
    return float(spearmanr(x[ok], y[ok]).statistic)


def _ranks(cost) -> np.ndarray:
    """1 = lowest cost; NaN costs last."""
    c = np.where(np.isfinite(cost), cost, np.inf)
    order = np.argsort(c, kind="stable")
    r = np.empty(len(c), dtype=int)
    r[order] = np.arange(1, len(c) + 1)
    return r


def interval_problem(lo: float, hi: float) -> str | None:
    """Why a 95 % interval of a gain (in %) cannot hold, or None: a gain is
    100 x (1 - cost / baseline's cost) with costs >= 0, so no bound can pass
    100 %; and an interval of zero width comes from weeks that are all the
    same source week (resampling one week gives it back every time)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    if hi > 100.0 + 1e-9 or lo > 100.0 + 1e-9:
        return (f"too few weeks: the 95 % interval {lo:+.1f} to {hi:+.1f} % passes +100 %, which no reduction "
                "of a cost can reach")
    if hi - lo <= 1e-9:
        return (f"too few weeks: the 95 % interval {lo:+.1f} to {hi:+.1f} % has no width (the resampled weeks are "
                "copies of one source week)")
    return None


def _masked(a, allowed):
    return np.where(np.asarray(allowed)[:, None], a, np.nan)


def decide(names, families, train: dict[str, np.ndarray], test: dict[str, np.ndarray], objective: str = "avgwait",
           max_wait_risk: float | None = None, seed: int = 0) -> Decision:
    """The decision on (candidates, weeks) arrays of each half (``train``,
    ``test``: metric -> array; ``max_wait`` and the objective's metric
    needed), candidates ``names`` (EASY-FCFS-FCFS among them).

    Learning: the candidate with the lowest mean objective over the training
    weeks (:func:`select`, criterion "mean", as the thresholds study), among
    those whose mean MaxWait on the training weeks is at most
    ``max_wait_risk`` times the baseline's (all when None).  It is
    recommended when its gain on the held-out weeks has a 95 % interval
    above 0 (and, with a risk, its held-out MaxWait ratio stays within it);
    otherwise the answer is to keep EASY-FCFS-FCFS."""
    if objective not in OBJECTIVES:
        raise InputError(f"objective: expected one of {list(OBJECTIVES)}, got {objective!r}")
    names = list(names)
    if BASELINE not in names:
        raise InputError(f"the candidates must include {BASELINE}")
    metric = OBJECTIVES[objective]
    b = names.index(BASELINE)
    tr, te = np.asarray(train[metric], float), np.asarray(test[metric], float)
    tr_m, te_m = np.asarray(train["max_wait"], float), np.asarray(test["max_wait"], float)
    n = len(names)
    tr_mx = np.array([ratio_of_means(tr_m[i], tr_m[b]) for i in range(n)])
    te_mx = np.array([ratio_of_means(te_m[i], te_m[b]) for i in range(n)])
    allowed = np.ones(n, bool) if max_wait_risk is None else (np.nan_to_num(tr_mx, nan=np.inf) <= max_wait_risk)
    allowed[b] = True
    i = select(_masked(tr, allowed), tr[b], "mean")
    with np.errstate(invalid="ignore", divide="ignore"):
        tr_cost = np.nanmean(tr, axis=1)
        te_cost = np.nanmean(te, axis=1)
    tr_rank, te_rank = _ranks(np.where(allowed, tr_cost, np.nan)), _ranks(te_cost)
    rows = []
    for k in range(n):
        g_te = gain_ci(te[k], te[b], seed=seed)
        rows.append(Row(names[k], families[k], 100.0 * (1.0 - ratio_of_means(tr[k], tr[b])), g_te[0],
                        (g_te[1], g_te[2]), float(tr_mx[k]), float(te_mx[k]), bool(allowed[k]),
                        int(tr_rank[k]), int(te_rank[k])))
    rows.sort(key=lambda r: r.train_rank)
    learned = rows[[r.name for r in rows].index(names[i])]
    if i == b:
        rec, reason = BASELINE, "no candidate does better than EASY-FCFS-FCFS on the training weeks"
    elif not np.isfinite(learned.test_gain):
        rec, reason = BASELINE, (f"{learned.name}, the best on the training weeks, has no measurable gain on the "
                                 f"held-out weeks (EASY-FCFS-FCFS's {metric} there is "
                                 f"{np.nanmean(te[b]) if np.isfinite(te[b]).any() else float('nan'):g}: "
                                 "nothing to gain, or no job)")
    elif interval_problem(*learned.test_gain_ci):
        rec, reason = BASELINE, (f"{learned.name}, the best on the training weeks: "
                                 f"{interval_problem(*learned.test_gain_ci)}; collect a longer log")
    elif not np.isfinite(learned.test_gain_ci[0]) or learned.test_gain_ci[0] <= 0:
        rec, reason = BASELINE, (f"{learned.name}, the best on the training weeks, does not beat EASY-FCFS-FCFS "
                                 f"with confidence on the held-out weeks (gain {learned.test_gain:+.1f} %, 95 % "
                                 f"interval {learned.test_gain_ci[0]:+.1f} to {learned.test_gain_ci[1]:+.1f} %)")
    elif max_wait_risk is not None and not learned.test_maxwait_rel <= max_wait_risk:
        rec, reason = BASELINE, (f"{learned.name} gains on the held-out weeks but its MaxWait there is "
                                 f"{learned.test_maxwait_rel:.2f} x EASY-FCFS-FCFS's, beyond the accepted "
                                 f"{max_wait_risk:g} x")
    else:
        rec, reason = names[i], (f"best of {n} candidates on the training weeks, and its gain holds on the "
                                 f"held-out weeks with 95 % confidence")
    # -- stability of the choice
    w = tr.shape[1]
    h = w // 2
    on_test = names[select(te, te[b], "mean")]
    halves = tuple(names[select(_masked(tr[:, s], allowed), tr[b, s], "mean")]
                   for s in (slice(0, h), slice(h, w))) if h >= 1 else (names[i], names[i])
    rng = np.random.default_rng(seed)
    picks = []
    for _ in range(N_RELEARN):
        idx = rng.integers(0, w, w)
        try:
            picks.append(select(_masked(tr[:, idx], allowed), tr[b, idx], "mean"))
        except InputError:              # every resampled week empty
            continue
    counts = np.bincount(np.asarray(picks, dtype=int), minlength=n) if picks else np.zeros(n)
    share = float(counts[i] / max(1, len(picks)))
    top = [(names[k], float(counts[k] / max(1, len(picks)))) for k in np.argsort(-counts, kind="stable")[:3]
           if counts[k]]
    return Decision(objective, metric, w, names[i], rec, reason, rows, max_wait_risk,
                    _spearman(tr_cost[allowed], te_cost[allowed]), int(te_rank[i]), on_test, halves, share, top)
