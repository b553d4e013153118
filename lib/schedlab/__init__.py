"""schedlab: a reproducible research compendium about tuning EASY-backfilling.

The scheduling itself happens in a small C core (``csrc/``) bound with cffi;
``schedlab.engine.sim`` is its Python face.  See README.md for the map of the package.
"""
from __future__ import annotations

__version__ = "0.1.0"
