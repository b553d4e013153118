"""The losses of gaussier2015's learned runtime prediction and the defaults
of its learning (pure Python and numpy: no compiled core).

Both :mod:`schedlab.engine.sim` (its :class:`~schedlab.engine.sim.Learned` estimate, run
in C) and :mod:`schedlab.engine.prediction` (the readable Python reference) build
on this module, which imports neither; :mod:`schedlab.engine.prediction` re-exports
every name.  See :mod:`schedlab.engine.prediction` for the choices made where the
paper is silent (branch names, weights floored at 0).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

__all__ = ["BRANCHES", "WEIGHTS", "Loss", "LOSSES", "E_LOSS", "SQUARED_LOSS", "loss_by_name",
           "DEFAULT_ETA", "DEFAULT_LAM"]

#: Basis loss of a branch: z -> z^2 or z -> z (z >= 0 the size of the error).
BRANCHES: dict[str, str] = {"squared": "sq", "linear": "lin"}
_BRANCH_ALIASES = {"squared": "squared", "sq": "squared", "square": "squared",
                   "linear": "linear", "lin": "linear", "abs": "linear"}

#: The five job weights gamma_j of gaussier2015 Table 3 (name: what it favours).
WEIGHTS: dict[str, str] = {
    "1": "constant weight",
    "5+log(q/p)": "short jobs with a large resource request should be well predicted",
    "5+log(p/q)": "long jobs with a small resource request should be well predicted",
    "11+log(1/qp)": "jobs of small area should be well predicted",
    "log(qp)": "jobs of large area should be well predicted",
}


def _gamma(weight: str, p, q):
    """gamma_j of Table 3 for actual runtime p and processors q (arrays or
    scalars), p and q floored at 1, the result floored at 0."""
    p = np.maximum(np.asarray(p, dtype=np.float64), 1.0)
    q = np.maximum(np.asarray(q, dtype=np.float64), 1.0)
    if weight == "1":
        g = np.ones(np.broadcast(p, q).shape)
    elif weight == "5+log(q/p)":
        g = 5.0 + np.log(q / p)
    elif weight == "5+log(p/q)":
        g = 5.0 + np.log(p / q)
    elif weight == "11+log(1/qp)":
        g = 11.0 - np.log(q * p)
    elif weight == "log(qp)":
        g = np.log(q * p)
    else:  # pragma: no cover - Loss validates
        raise InputError(f"unknown weight {weight!r}")
    return np.maximum(g, 0.0)


def _gamma_scalar(weight: str, p: float, q: float) -> float:
    p = p if p > 1.0 else 1.0
    q = q if q > 1.0 else 1.0
    if weight == "1":
        return 1.0
    if weight == "5+log(q/p)":
        g = 5.0 + math.log(q / p)
    elif weight == "5+log(p/q)":
        g = 5.0 + math.log(p / q)
    elif weight == "11+log(1/qp)":
        g = 11.0 - math.log(q * p)
    else:
        g = math.log(q * p)
    return g if g > 0.0 else 0.0


@dataclass(frozen=True)
class Loss:
    """One loss of gaussier2015 §4.2: with e = f - p the prediction error,

    L = gamma_j * over(e)   if e > 0  (over-prediction)
    L = gamma_j * under(-e) if e < 0  (under-prediction)

    ``over`` and ``under`` are "squared" (z^2) or "linear" (z); ``weight`` a
    key of :data:`WEIGHTS`.  Every combination is convex in w.
    """

    over: str = "squared"
    under: str = "linear"
    weight: str = "log(qp)"

    def __post_init__(self):
        for side in ("over", "under"):
            v = getattr(self, side)
            if not isinstance(v, str) or v.strip().lower() not in _BRANCH_ALIASES:
                raise InputError(f"loss: {side} branch must be 'squared' or 'linear', got {v!r}")
            object.__setattr__(self, side, _BRANCH_ALIASES[v.strip().lower()])
        w = str(self.weight).replace(" ", "")
        if w not in WEIGHTS:
            raise InputError(f"loss: weight must be one of {list(WEIGHTS)}, got {self.weight!r}")
        object.__setattr__(self, "weight", w)

    @property
    def name(self) -> str:
        """``over/under/weight``, e.g. ``sq/lin/log(qp)`` (E-Loss)."""
        return f"{BRANCHES[self.over]}/{BRANCHES[self.under]}/{self.weight}"

    def __str__(self) -> str:
        return self.name

    @property
    def label(self) -> str:
        """The name, with E-Loss and the squared loss called so."""
        if self == E_LOSS:
            return "E-Loss"
        if self == SQUARED_LOSS:
            return "squared"
        return self.name

    @classmethod
    def parse(cls, text) -> "Loss":
        """A Loss from a Loss, ``"over/under/weight"`` or ``"E-Loss"``."""
        if isinstance(text, Loss):
            return text
        if not isinstance(text, str):
            raise InputError(f"loss: expected a name such as 'sq/lin/log(qp)' or 'E-Loss', got {text!r}")
        t = text.strip()
        if t.lower() in ("e-loss", "eloss", "e_loss"):
            return E_LOSS
        if t.lower() in ("squared", "square", "sq"):
            return SQUARED_LOSS
        parts = t.replace(" ", "").split("/", 2)
        if len(parts) != 3:
            raise InputError(f"loss {text!r}: expected 'over/under/weight' (e.g. 'sq/lin/log(qp)') or "
                             "'E-Loss'")
        return cls(*parts)

    def gamma(self, p, q):
        """The weight gamma_j (array) for actual runtimes p and processors q."""
        return _gamma(self.weight, p, q)

    def value(self, f, p, q):
        """The loss of predictions f for actual runtimes p (arrays)."""
        f = np.asarray(f, dtype=np.float64)
        e = f - np.asarray(p, dtype=np.float64)
        over = np.where(e > 0, e, 0.0)
        under = np.where(e < 0, -e, 0.0)
        lo = over * over if self.over == "squared" else over
        lu = under * under if self.under == "squared" else under
        return self.gamma(p, q) * (lo + lu)

    def derivative(self, f, p, q):
        """dL/df (arrays); 0 where f = p (a subgradient)."""
        f = np.asarray(f, dtype=np.float64)
        e = f - np.asarray(p, dtype=np.float64)
        do = 2.0 * e if self.over == "squared" else np.ones_like(e)
        du = 2.0 * e if self.under == "squared" else -np.ones_like(e)
        d = np.where(e > 0, do, np.where(e < 0, du, 0.0))
        return self.gamma(p, q) * d

    def dldf(self, f: float, p: float, q: float) -> float:
        """dL/df for one job (plain floats: the simulation's hot path)."""
        e = f - p
        if e > 0.0:
            d = 2.0 * e if self.over == "squared" else 1.0
        elif e < 0.0:
            d = 2.0 * e if self.under == "squared" else -1.0
        else:
            return 0.0
        return _gamma_scalar(self.weight, p, q) * d


#: E-Loss (gaussier2015 Eq. 3): squared over-prediction, linear under-prediction, weight log(q p).
E_LOSS = Loss("squared", "linear", "log(qp)")
#: The standard squared loss (constant weight, squared both ways).
SQUARED_LOSS = Loss("squared", "squared", "1")
#: The 20 losses of gaussier2015 Table 5 (over x under x weight).
LOSSES: tuple[Loss, ...] = tuple(Loss(o, u, w) for o in ("squared", "linear") for u in ("squared", "linear")
                                 for w in WEIGHTS)


def loss_by_name(name) -> Loss:
    """:meth:`Loss.parse`."""
    return Loss.parse(name)


#: NAG's learning rate, in seconds: the first steps move a prediction by
#: about this much.  The value of the authors' simulator configuration
#: (predictsim, github.com/freuk/predictsim, as forked in
#: jad-darrous/predictsim: experiments/experiment_dicts.py, ``eta: 5000``).
DEFAULT_ETA = 5000.0
#: The L2 penalty lambda of gaussier2015 Eq. 2, lambda ||w||^2 in every step.
#: The paper gives no value; the same configuration has ``lambda: 4e9`` for
#: a penalty written (lambda / 2) ||w||^2, i.e. 2e9 here.  On raw (unscaled)
#: weights this penalty all but removes the features of small magnitude
#: (the time of day and week, ratios) and leaves those of large magnitude
#: (runtimes and their products) nearly free; ``lam=0`` turns it off.
DEFAULT_LAM = 2e9
