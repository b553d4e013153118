"""schedlab: a reproducible research compendium about tuning EASY-backfilling.

The scheduling itself happens in a small C core (``csrc/``) bound with cffi;
``schedlab.sim`` is its Python face.  See README.md for the map of the package.
"""
from __future__ import annotations

import os as _os

__version__ = "0.1.0"

# `make test-asan` builds a sanitised copy of the C core elsewhere and points
# this variable at it; the package then loads that copy of `schedlab._core`.
if _os.environ.get("SCHEDLAB_CORE_DIR"):
    __path__.insert(0, _os.path.join(_os.environ["SCHEDLAB_CORE_DIR"], "schedlab"))  # type: ignore[name-defined]
