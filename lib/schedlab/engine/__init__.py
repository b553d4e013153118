"""The engine: the C core (``csrc/``, built by ``_build.py`` into
``schedlab.engine._core``), its Python face :mod:`schedlab.engine.sim`, the
metrics of a schedule, the learned estimator's losses and its readable
reference (:mod:`schedlab.engine.prediction`).  Below it: the floor
(errors, paths, files, jobs, ...).  It imports nothing above it."""
from __future__ import annotations

import os as _os

# `make test-asan` builds a sanitised copy of the C core elsewhere and points
# this variable at it; the package then loads that copy of `schedlab.engine._core`.
if _os.environ.get("SCHEDLAB_CORE_DIR"):
    __path__.insert(0, _os.path.join(_os.environ["SCHEDLAB_CORE_DIR"], "schedlab", "engine"))  # type: ignore[name-defined]
