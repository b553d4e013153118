"""Black-box minimisation of mixed-policy weights on the sphere ||w||_1 = 1.

Shared, hence not inside a study: the mixed-policies study and the advisor
(``schedlab advise``'s mixed candidates) both search and lattice these weights.

The mixed linear policy (``schedlab.engine.sim.Mixed``) orders jobs by w . x; the
order is the same for w and lambda * w (lambda > 0), so the thesis
(zrigui2021 §5.4) searches the sphere ||w||_1 = 1, whose 2d vertices
(+-e_i) are the pure policies on the d features.  This module holds what
the mixed-policy study needs to search it, independent of scheduling:

* :func:`normalise` -- w / ||w||_1, the one map from a search point to a policy;
* :func:`l1_lattice` -- the uniform discretisation of the sphere at
  resolution n: every w whose components are multiples of 1/n and whose
  absolute values sum to 1 (4n^2 + 2 points in 3 dimensions), the
  exhaustive grid of thesis §5.5.1; :func:`vertices` are its 2d corners;
* :func:`xnes` -- exponential natural evolution strategies (xNES), written
  here from the published algorithm (Glasmachers, Schaul, Sun, Wierstra and
  Schmidhuber, "Exponential natural evolution strategies", GECCO 2010,
  Algorithm 1 with its default parameters);
* :func:`cmaes` -- CMA-ES from the maintained ``cma`` library (Hansen),
  restarted from the best point when one of its stopping rules fires before
  the budget is spent;
* :func:`minimise_l1` -- either optimiser on the sphere: a search point v
  (unconstrained) is evaluated as f(v / ||v||_1) plus the thesis' penalty
  lambda (||v||_1 + 1 / ||v||_1) (thesis Eq. 5.4), which is smallest on the
  sphere and keeps the search there (the policy itself only sees the
  direction).  The search starts from the best vertex (the best pure policy
  on those features), so its result is never worse than that policy.

Every optimiser counts evaluations against a budget and records the best
value found after each evaluation (:class:`Result`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ..errors import InputError

__all__ = ["Result", "normalise", "l1_lattice", "lattice_size", "vertices", "uniform_l1", "xnes",
           "xnes_defaults", "cmaes", "minimise_l1", "METHODS"]

METHODS = ("xnes", "cma", "random")


# --------------------------------------------------------------- the sphere --

def normalise(v) -> np.ndarray:
    """``v / ||v||_1`` (rows of a 2-d array each normalised).  A zero vector
    has no direction: ValueError."""
    a = np.asarray(v, dtype=float)
    norm = np.abs(a).sum(axis=-1, keepdims=True)
    if np.any(norm <= 0) or not np.all(np.isfinite(norm)):
        raise ValueError("normalise: a zero (or non-finite) weight vector has no direction")
    return a / norm


def uniform_l1(rng: np.random.Generator, d: int, size: int | None = None) -> np.ndarray:
    """Points drawn uniformly on ||w||_1 = 1: i.i.d. Laplace components,
    normalised (the L1 analogue of normalising Gaussians for the L2 sphere)."""
    d = _dim(d)
    x = rng.laplace(size=(d,) if size is None else (size, d))
    return normalise(x)


def vertices(d: int) -> np.ndarray:
    """The 2d vertices of ||w||_1 = 1: +e_0, -e_0, +e_1, -e_1, ... (each a
    pure policy: e.g. on the mixed policy's features, +e_0 is SQF and -e_0 LQF)."""
    d = _dim(d)
    out = np.zeros((2 * d, d))
    for i in range(d):
        out[2 * i, i], out[2 * i + 1, i] = 1.0, -1.0
    return out


def lattice_size(d: int, n: int) -> int:
    """Number of points of :func:`l1_lattice` (d, n): sum over the k nonzero
    components of C(d, k) 2^k C(n-1, k-1)."""
    d, n = _dim(d), _resolution(n)
    return sum(math.comb(d, k) * 2 ** k * math.comb(n - 1, k - 1) for k in range(1, min(d, n) + 1))


def l1_lattice(d: int, n: int) -> np.ndarray:
    """Every w with ||w||_1 = 1 whose components are multiples of 1/n, as a
    (points, d) array in lexicographic order (4n^2 + 2 points for d = 3).
    The resolution n is the number of steps from the centre of a face's
    edge to a vertex: n = 100 gives the 0.01 step of thesis §5.5.1."""
    d, n = _dim(d), _resolution(n)
    size = lattice_size(d, n)
    if size > 5_000_000:
        raise InputError(f"l1_lattice: {size} points for d={d}, n={n}; choose a coarser resolution")
    rows: list[tuple[int, ...]] = []

    def rec(prefix: tuple[int, ...], left: int, k: int):
        if k == 1:
            rows.extend([prefix + (left,), prefix + (-left,)] if left else [prefix + (0,)])
            return
        for a in range(-left, left + 1):
            rec(prefix + (a,), left - abs(a), k - 1)

    rec((), n, d)
    out = np.array(sorted(rows), dtype=float) / n
    assert out.shape == (size, d)
    return out


def _dim(d) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise InputError(f"dimension must be a positive integer, got {d!r}")
    return int(d)


def _resolution(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"grid resolution must be a positive integer, got {n!r}")
    return int(n)


def _budget(b) -> int:
    if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 1:
        raise InputError(f"budget must be a positive number of evaluations, got {b!r}")
    return int(b)


# ------------------------------------------------------------------ results --

@dataclass
class Result:
    """What an optimiser found: the best point ``x`` and its value ``f``,
    the ``evaluations`` spent, ``history[k]`` the best value among the first
    k + 1 evaluations, the wall time and the method's name.  For
    :func:`minimise_l1`, ``x`` is on the sphere and ``f`` is the objective
    without the penalty."""

    x: np.ndarray
    f: float
    evaluations: int
    history: np.ndarray
    seconds: float
    method: str
    info: dict = field(default_factory=dict)


def _improved(now: float, before: float) -> bool:
    """Did the best value improve (by more than a relative 1e-6)?"""
    if not math.isfinite(before):
        return now < before
    return now < before - 1e-6 * max(abs(before), 1.0)


class _Counter:
    """Wraps f: counts evaluations, remembers the best point and value."""

    def __init__(self, f: Callable[[np.ndarray], float], budget: int):
        self.f, self.budget = f, budget
        self.best_x: np.ndarray | None = None
        self.best_f = math.inf
        self.values: list[float] = []

    @property
    def left(self) -> int:
        return self.budget - len(self.values)

    def __call__(self, x: np.ndarray) -> float:
        v = float(self.f(np.asarray(x, dtype=float)))
        if math.isnan(v):
            v = math.inf
        self.values.append(v)
        if v < self.best_f:
            self.best_f, self.best_x = v, np.array(x, dtype=float)
        return v

    def result(self, method: str, t0: float, **info) -> Result:
        hist = np.minimum.accumulate(np.asarray(self.values, dtype=float)) if self.values else np.zeros(0)
        return Result(self.best_x, self.best_f, len(self.values), hist, time.perf_counter() - t0, method, info)


# --------------------------------------------------------------------- xNES --

def xnes_defaults(d: int) -> dict:
    """The default parameters of xNES (Glasmachers et al. 2010, Table 1):
    population size lambda = 4 + floor(3 ln d), learning rates eta_mu = 1
    and eta_sigma = eta_B = 3 (3 + ln d) / (5 d sqrt(d)), and the rank-based
    utilities u_k = max(0, ln(lambda/2 + 1) - ln k) / sum_j max(...) - 1/lambda
    (k = 1 for the best sample)."""
    d = _dim(d)
    lam = 4 + int(math.floor(3 * math.log(d)))
    eta = 3 * (3 + math.log(d)) / (5 * d * math.sqrt(d))
    return {"popsize": lam, "eta_mu": 1.0, "eta_sigma": eta, "eta_B": eta, "utilities": _utilities(lam)}


def _utilities(lam: int) -> np.ndarray:
    k = np.arange(1, lam + 1)
    raw = np.maximum(0.0, math.log(lam / 2 + 1) - np.log(k))
    return raw / raw.sum() - 1.0 / lam


def _expm_sym(a: np.ndarray) -> np.ndarray:
    """Matrix exponential of a symmetric matrix (through its eigenvectors)."""
    vals, vecs = np.linalg.eigh((a + a.T) / 2)
    return (vecs * np.exp(vals)) @ vecs.T


def xnes(f: Callable[[np.ndarray], float], x0, sigma0: float, budget: int, seed=0,
         popsize: int | None = None, patience: int | None = None, tol_sigma: float = 0.0,
         ahead: Callable[[np.ndarray], None] | None = None) -> Result:
    """Minimise ``f`` from ``x0`` with step size ``sigma0`` by xNES for at
    most ``budget`` evaluations (whole generations).  It stops earlier when
    the best value has not improved for ``patience`` generations, or when
    sigma falls below ``tol_sigma`` x ``sigma0`` (``info["stop"]`` says why).

    The search distribution is N(mu, sigma^2 B B^T) with det B = 1.  Each
    generation draws s_k ~ N(0, I), evaluates z_k = mu + sigma B s_k, sorts
    the samples by f (best first) and follows the natural gradient:
    G_delta = sum u_k s_k, G_M = sum u_k (s_k s_k^T - I), G_sigma =
    tr(G_M) / d, G_B = G_M - G_sigma I; then mu += eta_mu sigma B G_delta,
    sigma *= exp(eta_sigma / 2 G_sigma), B = B expm(eta_B / 2 G_B).

    ``ahead``, if given, is shown each generation's points before ``f``
    evaluates them one by one (:func:`minimise_l1` computes their values
    together there); it changes nothing else.
    """
    x0 = np.asarray(x0, dtype=float).ravel()
    d = x0.size
    if d < 1 or not np.all(np.isfinite(x0)):
        raise InputError(f"xnes: x0 must be a finite non-empty vector, got {x0!r}")
    if not (isinstance(sigma0, (int, float)) and sigma0 > 0 and math.isfinite(sigma0)):
        raise InputError(f"xnes: sigma0 must be a positive number, got {sigma0!r}")
    budget = _budget(budget)
    par = xnes_defaults(d)
    lam = par["popsize"] if popsize is None else int(popsize)
    if lam < 2:
        raise InputError(f"xnes: popsize must be >= 2, got {popsize!r}")
    u = _utilities(lam) if popsize is not None else par["utilities"]
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    count = _Counter(f, budget)
    mu, sigma, B = x0.copy(), float(sigma0), np.eye(d)
    eye = np.eye(d)
    generations, since, stop = 0, 0, "budget"
    while count.left >= lam:
        if patience is not None and since >= patience:
            stop = "patience"
            break
        if sigma < tol_sigma * sigma0:
            stop = "tol_sigma"
            break
        before = count.best_f
        s = rng.standard_normal((lam, d))
        z = mu + sigma * s @ B.T
        if ahead is not None:
            ahead(z)
        fz = np.array([count(zk) for zk in z])
        order = np.argsort(fz, kind="stable")
        s = s[order]
        g_delta = u @ s
        g_m = (s.T * u) @ s - u.sum() * eye
        g_sigma = np.trace(g_m) / d
        g_b = g_m - g_sigma * eye
        mu = mu + par["eta_mu"] * sigma * B @ g_delta
        sigma *= math.exp(par["eta_sigma"] / 2 * g_sigma)
        B = B @ _expm_sym(par["eta_B"] / 2 * g_b)
        generations += 1
        since = 0 if _improved(count.best_f, before) else since + 1
    if count.best_x is None:            # budget smaller than a population: evaluate x0
        count(x0)
    return count.result("xnes", t0, generations=generations, popsize=lam, sigma=sigma, mean=mu, stop=stop)


# ------------------------------------------------------------------- CMA-ES --

def cmaes(f: Callable[[np.ndarray], float], x0, sigma0: float, budget: int, seed=0,
          popsize: int | None = None, patience: int | None = None,
          ahead: Callable[[np.ndarray], None] | None = None) -> Result:
    """Minimise ``f`` from ``x0`` with step size ``sigma0`` by CMA-ES (the
    ``cma`` library, default parameters) for at most ``budget`` evaluations
    (whole generations).  It stops earlier when one of ``cma``'s own
    stopping rules fires (e.g. flat fitness, tiny step size) or when the
    best value has not improved for ``patience`` generations.  ``ahead``:
    as in :func:`xnes`."""
    import cma

    x0 = np.asarray(x0, dtype=float).ravel()
    if x0.size < 2:
        raise InputError("cmaes: the cma library needs at least 2 dimensions")
    if not (isinstance(sigma0, (int, float)) and sigma0 > 0 and math.isfinite(sigma0)):
        raise InputError(f"cmaes: sigma0 must be a positive number, got {sigma0!r}")
    budget = _budget(budget)
    t0 = time.perf_counter()
    count = _Counter(f, budget)
    seq = np.random.SeedSequence(int(seed) if isinstance(seed, (int, np.integer)) else 0)
    cma_seed = int(seq.generate_state(1)[0] % (2**31 - 2)) + 1      # 0 would mean "from the clock"
    opts = {"seed": cma_seed, "verbose": -9, "verb_log": 0, "verb_disp": 0, "maxfevals": budget}
    if popsize is not None:
        opts["popsize"] = int(popsize)
    es = cma.CMAEvolutionStrategy(x0.tolist(), float(sigma0), opts)
    lam = es.popsize
    since, stop = 0, "budget"
    while count.left >= lam:
        if es.stop():
            stop = ",".join(sorted(es.stop()))
            break
        if patience is not None and since >= patience:
            stop = "patience"
            break
        before = count.best_f
        xs = es.ask()
        if ahead is not None:
            ahead(np.asarray(xs, dtype=float))
        es.tell(xs, [count(x) for x in xs])
        since = 0 if _improved(count.best_f, before) else since + 1
    if count.best_x is None:
        count(x0)
    return count.result("cma", t0, popsize=lam, stop=stop)


# ----------------------------------------------------- search on the sphere --

def minimise_l1(f: Callable[[np.ndarray], float], d: int, method: str = "xnes", budget: int = 300,
                seed=0, sigma0: float = 0.5, penalty: float = 0.01, patience: int | None = 8,
                restarts: bool = True, start: Sequence[float] | None = None,
                f_many: Callable[[np.ndarray], Sequence[float]] | None = None) -> Result:
    """Minimise ``f(w)`` over ||w||_1 = 1 (``f`` takes a d-vector on the sphere).

    Unless ``start`` is given, the 2d vertices are evaluated first and the
    search starts from the best one; they count in ``budget``.  The
    optimiser (``method``: "xnes" or "cma") minimises, over unconstrained v,
    ``f(v / ||v||_1) + lambda (||v||_1 + 1 / ||v||_1)`` (thesis Eq. 5.4)
    with lambda = ``penalty`` x |f(start)| (the thesis gives no value;
    relative to the objective so that one setting fits light and heavy
    weeks).  The objective of a schedule is piecewise constant in w and has
    many local optima, so a run that has not improved for ``patience``
    generations (or that ``cma`` stops) is restarted, while budget is left,
    from a random point of the sphere (:func:`uniform_l1`) with a doubled
    population (the IPOP restart scheme of Auger and Hansen 2005);
    ``restarts=False`` makes a single run.  ``method="random"`` is the
    baseline: after the vertices, points drawn uniformly on the sphere.
    Returns the best point *on the sphere* and its value of
    ``f`` (no penalty); ``history`` counts every evaluation, vertices
    included; ``info["runs"]`` the runs made.

    ``f_many(W)``, if given, must return ``[f(w) for w in W]`` (the same
    floats): the points of a step that are known together (the vertices,
    the random points, a generation) are then handed to it at once, and the
    search takes their values from it in its usual order, one by one.  The
    result is the same with or without it; only the time differs (the mixed
    study evaluates many weight vectors in one simulation).
    """
    d = _dim(d)
    budget = _budget(budget)
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    if method == "cma" and d < 2:
        raise InputError("method 'cma' needs at least 2 features")
    if not (isinstance(penalty, (int, float)) and penalty >= 0 and math.isfinite(penalty)):
        raise InputError(f"penalty must be a number >= 0, got {penalty!r}")
    if patience is not None:
        patience = _budget(patience)
    t0 = time.perf_counter()
    raw: list[float] = []
    best = {"f": math.inf, "w": None}
    known: dict[bytes, float] = {}      # f_many's values, by the point's bytes, until used

    def ahead(points) -> None:
        """f_many's values of the points (on the sphere) about to be evaluated."""
        points = [w for w in points if w is not None]
        if f_many is None or not points:
            return
        for w, v in zip(points, f_many(np.asarray(points, dtype=float))):
            known[w.tobytes()] = v

    def sphere(v: np.ndarray) -> tuple[np.ndarray | None, float]:
        """The point of the sphere that ``objective`` evaluates for v (None:
        none) and v's norm."""
        norm = float(np.abs(v).sum())
        if not norm > 1e-12 or not math.isfinite(norm):
            return None, norm
        return v / norm, norm

    def on_sphere(w: np.ndarray) -> float:
        v = known.pop(w.tobytes(), None)
        v = float(f(w)) if v is None else float(v)
        if math.isnan(v):
            v = math.inf
        raw.append(v)
        if v < best["f"]:
            best["f"], best["w"] = v, w.copy()
        return v

    if start is None:
        verts = vertices(d)
        ahead(list(verts[:budget]))
        values = [on_sphere(w) for w in verts[:budget]]
        x0 = verts[int(np.argmin(values))]
    else:
        x0 = np.asarray(start, dtype=float).ravel()
        if x0.size != d:
            raise InputError(f"start has {x0.size} components, expected {d}")
        x0 = normalise(x0)
        on_sphere(x0)
    lam = penalty * abs(best["f"]) if math.isfinite(best["f"]) and best["f"] != 0 else penalty

    def objective(v: np.ndarray) -> float:
        w, norm = sphere(v)
        if w is None:
            return math.inf
        return on_sphere(w) + lam * (norm + 1.0 / norm)

    def ahead_of(z: np.ndarray) -> None:
        ahead([sphere(np.asarray(v, dtype=float))[0] for v in z])

    rng = np.random.default_rng(seed)
    default_popsize = xnes_defaults(d)["popsize"]          # also cma's default, 4 + floor(3 ln d)
    popsize = default_popsize if method == "xnes" else None
    runs: list[dict] = []
    if method == "random":
        points = uniform_l1(rng, d, budget - len(raw)) if budget > len(raw) else []
        ahead(list(points))
        for w in points:
            on_sphere(w)
    while method != "random" and budget - len(raw) > 0:
        left = budget - len(raw)
        run_seed = int(rng.integers(0, 2**31 - 1))
        if left < default_popsize:             # not even one generation left
            break
        if method == "xnes":
            if popsize > left:                 # the rest of the budget: a last run at the default size
                popsize = default_popsize
            r = xnes(objective, x0, sigma0, left, run_seed, popsize=popsize,
                     patience=patience if restarts else None, ahead=ahead_of if f_many else None)
        else:
            if popsize is not None and popsize > left:
                popsize = None                 # the rest of the budget: a last run at cma's default size
            r = cmaes(objective, x0, sigma0, left, run_seed, popsize=popsize,
                      patience=patience if restarts else None, ahead=ahead_of if f_many else None)
        runs.append({"start": x0.tolist(), "popsize": r.info["popsize"], "evaluations": r.evaluations,
                     "stop": r.info["stop"]})
        if not restarts or r.evaluations == 0:
            break
        popsize = 2 * int(r.info["popsize"])
        x0 = uniform_l1(rng, d)
    hist = np.minimum.accumulate(np.asarray(raw, dtype=float))
    info = {"start": x0, "penalty_lambda": lam, "runs": runs}
    return Result(best["w"], best["f"], len(raw), hist, time.perf_counter() - t0, method, info)
