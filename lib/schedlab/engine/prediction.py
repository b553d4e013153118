"""Runtime prediction learned online during the simulation (gaussier2015 §4).

gaussier2015 (Gaussier, Glesser, Reis, Trystram, *Improving Backfilling by
using Machine Learning to predict Running Times*, SC'15) replaces the
requested time p~ of EASY-backfilling with a prediction made when the job is
submitted, by a model learned online from the jobs that have completed:

* **Features** (its Table 2): the 20 values of :data:`FEATURES`, computed at
  submission from the job, its user's history and the current state of the
  system (:class:`FeatureTracker`);
* **Model** (its Eq. 1): f(w, x) = w . Phi(x), with Phi the degree-2
  polynomial basis (1, x_i, x_i^2, x_i x_k for i < k): 1 + 2n + n(n-1)/2 =
  231 terms for n = 20 (:func:`polynomial`);
* **Learning** (its Eq. 2): the cumulative loss plus an L2 penalty, minimised
  online by the Normalized Adaptive Gradient (NAG, Ross, Mineiro and
  Langford, *Normalized online learning*, UAI 2013, Algorithm 2) --
  :class:`NAG`;
* **Losses** (its §4.2, Tables 3 and 5): an asymmetric loss with a squared or
  linear branch for over-prediction (f > p) and for under-prediction (f < p),
  times one of the five job weights gamma_j of Table 3 -- 2 x 2 x 5 = 20
  losses (:class:`Loss`, :data:`LOSSES`); **E-Loss** (its Eq. 3, the loss of
  the heuristic triple it recommends) is squared over-prediction, linear
  under-prediction, weight log(q p) (:data:`E_LOSS`).

:class:`LearnedEstimator` puts all of it behind the simulator's
:class:`schedlab.engine.sim.Estimator` interface: ``predict(job, now)`` is called by
the C core at each submission and ``observe(job, now, runtime)`` at each
completion, so the model sees exactly what a real scheduler would have seen
(the runtimes of the jobs completed so far, in completion order).

**Two engines, one estimator.**  This module is the readable reference.
The C core computes the same estimator itself (``estimate=``
:class:`schedlab.engine.sim.Learned`, ``csrc/learned.c``): the same features, basis
order, NAG update and rounding, in the same floating-point operations and
order, so that both give the same bits -- the predictions, the raw values
and the model (``tests/test_learned.py`` checks it on generated and real
logs).  For that, every dot product is summed left to right (:func:`_dot`),
not by BLAS, whose order depends on the CPU.  The C engine costs about 2 us
of CPU per job instead of about 30 (a whole CEA-Curie simulation: about 1 s
instead of 10-20 s, against 0.3 s with requested times; ``bench/
bench_engine.py``): :func:`simulate_learned` uses it by default
(``engine="c"``), ``engine="python"`` runs this reference.

Choices where the paper is silent or ambiguous (each is a parameter or written
here once):

* **Branch names.** The paper's §4.2 formula labels the branch f >= p "L_u"
  and calls it the under-prediction loss, while its Eq. 3 and §6.4 say that
  E-Loss is *squared for over-prediction* (f > p) and *linear for
  under-prediction*.  We name branches by the sign of the error: ``over``
  applies when f > p, ``under`` when f < p; E-Loss = ``Loss("squared",
  "linear", "log(qp)")``.  Loss names read ``over/under/weight``, e.g.
  ``"sq/lin/log(qp)"``.
* **Weights** (Table 3) use the actual runtime p (known when the job is
  learned) and q, each floored at 1 (p = 0 would make the logarithms
  infinite), natural logarithms, and are floored at 0: the paper chooses its
  constants "to ensure positivity with typical running times", and a job for
  which a weight would be negative (e.g. log(q p) for q = p = 1) contributes
  no loss rather than a reversed one.  E-Loss's "log(r_j . p_j)" (Eq. 3) is
  read as log(q_j . p_j) (Table 3: "jobs of large area").
* **History features.** "Historically recorded jobs" are the user's
  *completed* jobs (the runtime is known only then), most recent completion
  first; a missing value is 0 (Table 2 says so for p_{j-1..j-3}); AVE_2 and
  AVE_3 average the runtimes available (one or two) when the user has fewer.
  The average resource request AVE_hist(q) is over the user's jobs
  *submitted* before j (q is known at submission); q / AVE_hist(q) is 1 for a
  user's first job.  Break time: seconds since the user's last completion (0
  before the first).
* **System-state features** (jobs of the user currently running, their
  resources, elapsed times) need the start times of the running jobs, which
  ``predict`` and ``observe`` do not pass: the simulation attaches its
  estimator (:meth:`schedlab.engine.sim.Estimator.attach`) and the estimator reads
  its live :attr:`schedlab.engine.sim.Simulation.start_times`.  "Running" means
  started and not completed (a job killed as small and requeued is not
  running until it restarts).  An estimator fed by hand, outside any
  simulation, counts the user's jobs *submitted and not yet completed*
  (queued or running) instead, and says so in
  :attr:`LearnedEstimator.state_source`.
* **Time of day/week**: r_j mod 86400 and r_j mod 604800 in trace time (as in
  Table 2).  The phase of the origin does not matter: shifting it rotates
  each (cos, sin) pair, which a degree-2 polynomial model absorbs.
* **Online learning with delayed labels.** NAG's feature-scale update
  ("receive x_t") happens at submission, when the features are known; the
  gradient step happens at completion, at the weights of that moment (the
  prediction is recomputed), with the job's weight gamma_j.  The L2 penalty
  lambda ||w||^2 is added to every step's gradient (2 lambda w).
* **Predictions** are rounded to integer seconds and kept within [1, p~]
  (0 when p~ = 0): a job is killed at p~, so predicting more is never useful,
  and a zero estimate would let any job backfill.

Defaults (``eta``, ``lam``): see :data:`DEFAULT_ETA` and :data:`DEFAULT_LAM`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from . import sim
from ..errors import InputError
from .losses import (BRANCHES, DEFAULT_ETA, DEFAULT_LAM, E_LOSS, LOSSES, SQUARED_LOSS, WEIGHTS, Loss,
                     loss_by_name)
from .sim import Learned

__all__ = ["FEATURES", "N_FEATURES", "BRANCHES", "WEIGHTS", "Loss", "LOSSES", "E_LOSS", "SQUARED_LOSS",
           "loss_by_name", "polynomial", "poly_dim", "NAG", "FeatureTracker", "LearnedEstimator",
           "simulate_learned", "TrainedModel", "Learned", "ENGINES", "prediction_errors", "quality",
           "DEFAULT_ETA", "DEFAULT_LAM"]

DAY = 86400
WEEK = 7 * DAY

#: The features of gaussier2015 Table 2, in the order of the feature vector.
FEATURES: tuple[str, ...] = (
    "req",              # p~_j, the requested time
    "last1",            # p^(k)_{j-1}: runtime of the user's last completed job (0 if none)
    "last2",            # p^(k)_{j-2}
    "last3",            # p^(k)_{j-3}
    "ave2",             # AVE^(k)_2(p): mean of the last two completed runtimes
    "ave3",             # AVE^(k)_3(p): mean of the last three
    "ave_all",          # AVE^(k)_all(p): mean of all the user's completed runtimes
    "procs",            # q_j
    "ave_hist_q",       # AVE^(k)_hist,r_j(q): mean q of the user's earlier submissions
    "q_ratio",          # q_j / AVE^(k)_hist,r_j(q)
    "ave_curr_q",       # AVE^(k)_curr,r_j(q): mean q of the user's running jobs
    "running",          # number of the user's running jobs
    "longest_running",  # longest elapsed time of the user's running jobs
    "sum_running",      # sum of the elapsed times of the user's running jobs
    "occupied",         # processors allocated to the user's running jobs
    "break_time",       # time since the user's last completion
    "cos_day", "sin_day",     # time of day of r_j
    "cos_week", "sin_week",   # time of week of r_j
)
N_FEATURES = len(FEATURES)

# --------------------------------------------------------------- the model --

def poly_dim(n: int = N_FEATURES) -> int:
    """Length of the degree-2 basis of n features: 1 + 2n + n(n-1)/2."""
    return 1 + 2 * n + n * (n - 1) // 2


_TRIU: dict[int, np.ndarray] = {}


def _triu(n: int) -> np.ndarray:
    """Flat indices of the upper triangle (diagonal included) of an (n+1)^2 matrix."""
    if n not in _TRIU:
        _TRIU[n] = np.flatnonzero(np.triu(np.ones((n + 1, n + 1), dtype=bool))).astype(np.intp)
    return _TRIU[n]


def _dot(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> float:
    """a . b summed left to right, in index order (``out``: a scratch array
    of the same length, to save an allocation).  Not ``a @ b``: BLAS sums in
    blocks, with fused multiply-adds, in an order that depends on the
    library and the CPU it detects at run time; a defined order is what lets
    the C core (``csrc/learned.c``) compute the very same bits.  (An
    accumulation adds sequentially: each partial sum is an output.)"""
    prod = np.multiply(a, b, out=out)
    return float(np.add.accumulate(prod, out=prod)[-1])


def polynomial(x) -> np.ndarray:
    """Phi(x): the degree-2 basis of x (shape (n,) or (m, n), one row per
    job), i.e. the upper triangle, diagonal included, of v v^T with v = (1,
    x_1, ..., x_n), row by row: (1, x_1, ..., x_n, x_1^2, x_1 x_2, ...,
    x_1 x_n, x_2^2, ..., x_n^2) -- the constant, every x_i, every square and
    every product x_i x_k (i < k): 1 + 2n + n(n-1)/2 terms."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    v = np.concatenate((np.ones(x.shape[:-1] + (1,)), x), axis=-1)
    outer = v[..., :, None] * v[..., None, :]
    return outer.reshape(x.shape[:-1] + ((n + 1) ** 2,))[..., _triu(n)]


class NAG:
    """Normalized Adaptive Gradient descent (Ross, Mineiro and Langford,
    *Normalized online learning*, UAI 2013, Algorithm 2) of a linear model
    y = w . phi, with an L2 penalty lam ||w||^2 in every step.

    Per coordinate i it keeps the largest |phi_i| seen, s_i (a new maximum
    rescales w_i by s_i / |phi_i|), and the sum of squared gradients G_i;
    N accumulates sum_i (phi_i / s_i)^2 and t counts the steps.  A step is

        w_i -= eta * sqrt(t / N) * g_i / (s_i * sqrt(G_i)),
        g_i = dL/df * phi_i + 2 lam w_i.

    The update is invariant to a rescaling of any feature, which is why the
    paper uses it: features such as the break time are unbounded.  ``eta``
    is in units of the target (seconds here): the first steps move a
    prediction by about eta.
    """

    #: Initial G_i: sqrt(G_i) > 0, so a coordinate whose gradients were all 0 gets a 0 step.
    _G0 = 1e-300

    def __init__(self, dim: int, eta: float, lam: float = 0.0):
        if not isinstance(dim, (int, np.integer)) or dim < 1:
            raise InputError(f"NAG: dimension must be an integer >= 1, got {dim!r}")
        if not (isinstance(eta, (int, float)) and math.isfinite(eta) and eta > 0):
            raise InputError(f"NAG: eta must be a positive number, got {eta!r}")
        if not (isinstance(lam, (int, float)) and math.isfinite(lam) and lam >= 0):
            raise InputError(f"NAG: lam must be a number >= 0, got {lam!r}")
        self.dim, self.eta, self.lam = int(dim), float(eta), float(lam)
        self.w = np.zeros(self.dim)
        self.s = np.zeros(self.dim)
        self.inv_s = np.zeros(self.dim)      # 1 / s_i, 0 while s_i = 0
        self.G = np.full(self.dim, self._G0)
        self.N = 0.0
        self.t = 0
        self._buf = np.empty(self.dim)
        self._dotbuf = np.empty(self.dim)

    def normalise(self, phi: np.ndarray) -> None:
        """Receive phi: grow the scales, rescaling the weights they concern."""
        a = np.abs(phi)
        grow = a > self.s
        if grow.any():
            ag = a[grow]
            self.w[grow] *= self.s[grow] / ag     # s = 0: weight 0 (it was never moved)
            self.s[grow] = ag
            self.inv_s[grow] = 1.0 / ag

    def predict(self, phi: np.ndarray) -> float:
        """w . phi (summed left to right: :func:`_dot`)."""
        return _dot(self.w, phi, self._dotbuf)

    def gradient(self, phi: np.ndarray, dldf: float) -> np.ndarray:
        """Gradient in w of L(w . phi) + lam ||w||^2, given dL/df at w . phi."""
        g = phi * dldf
        if self.lam:
            g += (2.0 * self.lam) * self.w
        return g

    def step(self, phi: np.ndarray, dldf: float, normalised: bool = False) -> None:
        """One gradient step for an example of features phi whose loss has
        derivative ``dldf`` with respect to the prediction (at the current w);
        ``normalised``: phi went through :meth:`normalise` already."""
        if not normalised:
            self.normalise(phi)
        self.t += 1
        r = phi * self.inv_s
        self.N += _dot(r, r, r)
        g = self.gradient(phi, dldf)
        self.G += g * g
        if self.N <= 0.0:
            return
        buf = self._buf
        np.sqrt(self.G, out=buf)
        np.divide(g, buf, out=buf)
        buf *= self.inv_s
        buf *= self.eta * math.sqrt(self.t / self.N)
        self.w -= buf

    def fit(self, X, y, loss: "Loss" = None, q=None, passes: int = 1) -> "NAG":
        """Learn from rows of basis vectors X (m, dim) and targets y, one
        example at a time (``loss`` default: squared; q: processors for the
        loss weights, default 1)."""
        loss = SQUARED_LOSS if loss is None else loss
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        q = np.ones_like(y) if q is None else np.asarray(q, dtype=np.float64)
        for _ in range(passes):
            for phi, p, qq in zip(X, y, q):
                self.normalise(phi)
                self.step(phi, loss.dldf(self.predict(phi), float(p), float(qq)), normalised=True)
        return self


# ------------------------------------------------------------- the features --

class _User:
    __slots__ = ("last", "n_done", "sum_run", "n_sub", "sum_q", "last_end", "active")

    def __init__(self):
        self.last: list[float] = []   # completed runtimes, most recent first (at most 3)
        self.n_done = 0
        self.sum_run = 0.0
        self.n_sub = 0
        self.sum_q = 0.0
        self.last_end: int | None = None
        self.active: set[int] = set()  # submitted, not completed


class FeatureTracker:
    """Online state behind the features of :data:`FEATURES` (gaussier2015
    Table 2): per user, the last completed runtimes, their sum, the
    submitted requests, the last completion, and the jobs in the system.

    ``submitted(j, now)`` returns job j's feature vector and records the
    submission; ``completed(j, now, runtime)`` records a completion.
    ``start`` (optional, updated in place by the simulator) gives the start
    time of each job (-1 before it starts): with it, "running" means started
    and not completed; without it, submitted and not completed.  (A job
    started at time -1 exactly is read as not started: the C estimator,
    which knows, differs from this reference only then.)
    """

    def __init__(self, jobs: sim.Jobs, start: np.ndarray | None = None):
        if not isinstance(jobs, sim.Jobs):
            raise InputError(f"jobs must be a schedlab.engine.sim.Jobs, got {type(jobs).__name__}")
        user = jobs.user if jobs.user is not None else np.zeros(len(jobs), np.int64)
        self._user = user.tolist()
        self._req = jobs.req.astype(np.float64).tolist()
        self._procs = jobs.procs.astype(np.float64).tolist()
        self._users: dict[int, _User] = {}
        self.start = start

    def user_state(self, j: int) -> _User:
        u = self._user[j]
        h = self._users.get(u)
        if h is None:
            h = self._users[u] = _User()
        return h

    def submitted(self, j: int, now: int) -> tuple[float, ...]:
        """Job j's features (a tuple in the order of :data:`FEATURES`); records its submission."""
        h = self.user_state(j)
        q = self._procs[j]
        last = h.last
        k = len(last)
        l1 = last[0] if k > 0 else 0.0
        l2 = last[1] if k > 1 else 0.0
        l3 = last[2] if k > 2 else 0.0
        ave2 = (l1 + l2) / min(k, 2) if k else 0.0
        ave3 = (l1 + l2 + l3) / min(k, 3) if k else 0.0
        ave_all = h.sum_run / h.n_done if h.n_done else 0.0
        ave_q = h.sum_q / h.n_sub if h.n_sub else 0.0
        ratio = q / ave_q if h.n_sub else 1.0
        n_run, occ, longest, total = 0, 0.0, 0.0, 0.0
        start = self.start
        procs = self._procs
        for i in h.active:
            if start is None:
                el = 0.0
            else:
                st = start[i]
                if st == -1:        # the outputs' "not started" (times may be negative)
                    continue
                el = float(now - st)
            n_run += 1
            occ += procs[i]
            total += el
            if el > longest:
                longest = el
        ave_curr = occ / n_run if n_run else 0.0
        brk = float(now - h.last_end) if h.last_end is not None else 0.0
        td = 2.0 * math.pi * (now % DAY) / DAY
        tw = 2.0 * math.pi * (now % WEEK) / WEEK
        h.n_sub += 1
        h.sum_q += q
        h.active.add(j)
        return (self._req[j], l1, l2, l3, ave2, ave3, ave_all, q, ave_q, ratio, ave_curr,
                float(n_run), longest, total, occ, brk, math.cos(td), math.sin(td), math.cos(tw), math.sin(tw))

    def completed(self, j: int, now: int, runtime: int) -> None:
        h = self.user_state(j)
        h.last.insert(0, float(runtime))
        if len(h.last) > 3:
            h.last.pop()
        h.n_done += 1
        h.sum_run += float(runtime)
        h.last_end = int(now)
        h.active.discard(j)


# ---------------------------------------------------------------- estimator --

class LearnedEstimator(sim.Estimator):
    """gaussier2015's learned runtime prediction as a simulator estimator.

    ``predict(j, now)`` builds job j's features, expands them (degree 2),
    predicts w . Phi, rounds and keeps it in [1, p~] (0 if p~ = 0);
    ``observe(j, now, runtime)`` updates the user history and takes one NAG
    step on the job's loss.  ``raw`` holds every prediction before rounding
    and clipping (NaN for jobs not submitted yet).

    Cost: about 30 us of CPU per job (features and basis in Python, the
    231-term model in numpy: some twenty small numpy calls per job, each
    dominated by call overhead), against about 2 us per job for the same
    estimator in the C core (:class:`schedlab.engine.sim.Learned`), which computes
    the same bits: this class is its readable reference.

    A :class:`schedlab.engine.sim.Simulation` attaches it (:meth:`attach`) and it
    reads the running jobs' start times from there.
    """

    def __init__(self, jobs: sim.Jobs, loss=E_LOSS, eta: float = DEFAULT_ETA, lam: float = DEFAULT_LAM,
                 keep_features: bool = False):
        if not isinstance(jobs, sim.Jobs):
            raise InputError(f"jobs must be a schedlab.engine.sim.Jobs, got {type(jobs).__name__}")
        self.loss = Loss.parse(loss)
        self.jobs = jobs
        self.tracker = FeatureTracker(jobs)
        self.model = NAG(poly_dim(N_FEATURES), eta, lam)
        self._req = jobs.req.tolist()
        self._procs = jobs.procs.astype(np.float64).tolist()
        self._phi: dict[int, np.ndarray] = {}
        self._triu = _triu(N_FEATURES)
        self.raw = np.full(len(jobs), np.nan)
        #: job -> its feature tuple, when ``keep_features`` (for inspection and tests).
        self.features: dict[int, tuple[float, ...]] | None = {} if keep_features else None

    @property
    def state_source(self) -> str:
        """"started" (attached to a simulation) or "in-system" (see the module docstring)."""
        return "in-system" if self.tracker.start is None else "started"

    def attach(self, simulation: sim.Simulation) -> "LearnedEstimator":
        """Read the running jobs' start times from ``simulation``'s live
        :attr:`~schedlab.engine.sim.Simulation.start_times`.  The simulation calls
        it when it is created (and a clone on its copy of the estimator):
        there is no need to call it."""
        if not isinstance(simulation, sim.Simulation):
            raise InputError(f"attach: expected a schedlab.engine.sim.Simulation, got {type(simulation).__name__}")
        if simulation.jobs is not self.jobs and len(simulation.jobs) != len(self.jobs):
            raise InputError("attach: the simulation does not simulate this estimator's jobs")
        super().attach(simulation)
        self.tracker.start = simulation.start_times
        return self

    def predict(self, job: int, now: int) -> int:
        x = self.tracker.submitted(job, now)
        if self.features is not None:
            self.features[job] = x
        v = np.array((1.0,) + x)
        phi = np.multiply.outer(v, v).take(self._triu)      # polynomial(), without its checks
        model = self.model
        model.normalise(phi)
        f = model.predict(phi)
        self._phi[job] = phi
        self.raw[job] = f
        req = self._req[job]
        if req <= 0:
            return 0
        if not math.isfinite(f) or f >= req:
            return int(req)
        return int(round(f)) if f >= 1.0 else 1

    def observe(self, job: int, now: int, runtime: int) -> None:
        self.tracker.completed(job, now, runtime)
        phi = self._phi.pop(job)
        model = self.model
        f = model.predict(phi)
        model.step(phi, self.loss.dldf(f, float(runtime), self._procs[job]), normalised=True)


@dataclass(eq=False)
class TrainedModel:
    """What a learned simulation in the C core leaves (as a
    :class:`LearnedEstimator` does): the loss, ``raw`` (every prediction
    before rounding and clipping; NaN for jobs never submitted) and
    ``model``, the :class:`NAG` as it ended (its ``w``, ``s``, ``G``, ``N``,
    ``t``)."""

    loss: Loss
    raw: np.ndarray
    model: NAG
    engine: str = "c"

    @classmethod
    def of(cls, simulation: sim.Simulation) -> "TrainedModel":
        """The model of a simulation with ``estimate=Learned(...)``, now."""
        learned = simulation.learned
        if learned is None:
            raise InputError("TrainedModel.of: the simulation does not use the learned estimate")
        state = simulation.learned_model()
        nag = NAG(poly_dim(N_FEATURES), learned.eta, learned.lam)
        nag.w, nag.s, nag.G, nag.N, nag.t = state["w"], state["s"], state["G"], state["N"], state["t"]
        nag.inv_s = np.divide(1.0, nag.s, out=np.zeros_like(nag.s), where=nag.s > 0)
        return cls(learned.loss, simulation.learned_raw, nag)


ENGINES = ("c", "python")


def simulate_learned(jobs: sim.Jobs, m: int, policy="EASY-FCFS-SJBF", loss=E_LOSS, correction="incremental",
                     eta: float = DEFAULT_ETA, lam: float = DEFAULT_LAM, overrun: str = "kill",
                     engine: str = "c") -> tuple[sim.Schedule, "TrainedModel | LearnedEstimator"]:
    """Simulate ``policy`` with learned predictions (``loss``) and
    ``correction``; returns the schedule and the trained model: its
    ``raw`` predictions, its ``model`` (:class:`NAG`), its ``loss``.
    Defaults: gaussier2015's heuristic triple (E-Loss, incremental,
    EASY-SJBF).

    ``engine``: ``"c"`` (default) learns inside the C core
    (:class:`schedlab.engine.sim.Learned`; returns a :class:`TrainedModel`);
    ``"python"`` runs the reference :class:`LearnedEstimator` through the
    callback interface (returns it), 10-15 times slower.  Both give the
    same schedule, predictions and model, bit for bit."""
    if engine not in ENGINES:
        raise InputError(f"engine must be one of {ENGINES}, got {engine!r}")
    if not isinstance(jobs, sim.Jobs):
        raise InputError(f"jobs must be a schedlab.engine.sim.Jobs, got {type(jobs).__name__}")
    if jobs.user is None:
        raise InputError("learned predictions need the users of the jobs (Jobs(..., user=...))")
    if engine == "c":
        learned = sim.Learned(loss, eta, lam)
        with sim.Simulation(jobs, m, policy, estimate=learned, overrun=overrun, correction=correction) as s:
            s.run()
            return s.schedule, TrainedModel.of(s)
    est = LearnedEstimator(jobs, loss, eta, lam)
    with sim.Simulation(jobs, m, policy, estimate=est, overrun=overrun, correction=correction) as s:
        s.run()
        return s.schedule, est


# --------------------------------------------------------------- evaluation --

def prediction_errors(predicted, duration) -> np.ndarray:
    """predicted - actual duration (s), float; positive = over-prediction."""
    return np.asarray(predicted, dtype=np.float64) - np.asarray(duration, dtype=np.float64)


def quality(predicted, duration, procs, losses: Iterable[Loss] = (E_LOSS,)) -> dict[str, float]:
    """MAE, mean of each loss, and the share of under-predicted jobs of
    predictions against actual durations (gaussier2015 Table 8)."""
    f = np.asarray(predicted, dtype=np.float64)
    p = np.asarray(duration, dtype=np.float64)
    out = {"mae": float(np.mean(np.abs(f - p))) if f.size else float("nan"),
           "under_share": float(np.mean(f < p)) if f.size else float("nan")}
    for loss in losses:
        out[f"mean_loss:{loss.name}"] = float(np.mean(loss.value(f, p, procs))) if f.size else float("nan")
    return out
