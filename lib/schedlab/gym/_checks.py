"""The checks every environment of :mod:`schedlab.gym` shares (issue 54), so
that a new environment -- or a vector of them -- gets them by calling these:

* :func:`begin_reset`: a reset ends the episode before anything can fail
  (a step after a failed reset is refused, never run on a closed
  simulation), its ``seed`` is None or an integer >= 0, and its
  ``options`` are a mapping whose keys apply to the window;
* :func:`action_index`: an action is an integer index (a Python or numpy
  integer, or a 0-d integer array), never a bool -- ``True`` is not "policy
  1" in one environment and an error in the other;
* :func:`bounded`: a size parameter against the most the log can fill,
  the bound stated in the error;
* :class:`NoCopy`: an environment holds a live simulation of the C core,
  which neither ``copy`` nor ``pickle`` can carry: both are refused in one
  line that says what to do instead (make one with the same parameters and
  reset it with the same seed: episodes are deterministic for a seed).

Every error is an :class:`~schedlab.errors.InputError` naming the
parameter, option or call.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from .. import validators
from ..errors import InputError

__all__ = ["MAX_WEEKS", "begin_reset", "action_index", "bounded", "NoCopy"]

#: The most weeks a resampled window may last: ten years.  Memory grows with
#: the episode's jobs (about 145 MB for KTH-SP2 at 1,000 weeks); the
#: selection study uses 52.
MAX_WEEKS = 520


def begin_reset(env, seed, options, applies: Mapping[str, tuple[str, ...]]) -> dict:
    """Start ``env``'s reset (in place of ``super().reset(seed=seed)``):
    mark its episode over and close its simulation (so a step after a reset
    that fails is refused), seed its generator (``seed`` None or an integer
    >= 0), then return the options as a dict -- ``None`` or a mapping whose
    every key is one of ``applies`` (option -> the windows it applies to)
    and applies to ``env.window``."""
    import gymnasium

    env._done = True
    env.close()
    if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
                             or seed < 0):
        raise InputError(f"reset seed: expected None or an integer >= 0, got {validators.shown(seed)}")
    gymnasium.Env.reset(env, seed=None if seed is None else int(seed))
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InputError(f"reset options: expected a dict, got {type(options).__name__} "
                         f"{validators.shown(options)}")
    options = dict(options)
    unknown = sorted(str(k) for k in options if k not in applies)
    if unknown:
        raise InputError(f"reset options: unknown {unknown}; expected "
                         f"{' or '.join(repr(k) for k in applies)}")
    for key in options:
        if env.window not in applies[key]:
            where = ", ".join(f"window={w!r}" for w in applies[key])
            raise InputError(f"reset options: {key!r} does not apply to window={env.window!r} "
                             f"(only to {where})")
    return options


def action_index(action, n: int, what: str) -> int:
    """``action`` as an index 0..n-1: a Python or numpy integer or a 0-d
    integer array; a bool, a float, a text or anything else is refused."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
            or not 0 <= int(action) < n:
        raise InputError(f"action: expected {what} 0..{n - 1}, got {validators.shown(action)}")
    return int(action)


def bounded(value: int, name: str, bound: int, why: str) -> int:
    """``value`` if it is at most ``bound``, else an error stating the bound and ``why``."""
    if value > bound:
        raise InputError(f"{name}: at most {bound} ({why}), got {value}")
    return value


class NoCopy:
    """Refuse ``copy``, ``deepcopy`` and ``pickle`` in one line (mixed into
    an environment before ``gym.Env``)."""

    def _refuse_copy(self, *_):
        name = type(self).__name__
        raise InputError(f"{name} cannot be copied or pickled: it holds a simulation of the C core; make "
                         f"another {name} with the same parameters and reset it with the same seed "
                         f"(its episodes are deterministic for a seed)")

    __copy__ = __deepcopy__ = __reduce_ex__ = __reduce__ = __getstate__ = _refuse_copy
