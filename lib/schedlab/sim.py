"""Moved: the simulator's Python face is :mod:`schedlab.engine.sim`, and its
names are on the top level (``import schedlab; schedlab.simulate(...)``).

This module keeps scripts written against ``schedlab.sim`` working: each name
is looked up in ``schedlab.engine.sim`` on first use, with a
``DeprecationWarning`` naming the new place.
"""
from __future__ import annotations

import importlib as _importlib
import warnings as _warnings

NEW = "schedlab.engine.sim"


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    _warnings.warn(f"schedlab.sim.{name} moved to {NEW}.{name} (or the top level: schedlab.{name} where listed "
                   "in schedlab.API)", DeprecationWarning, stacklevel=2)
    return getattr(_importlib.import_module(NEW), name)
