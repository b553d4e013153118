"""The one place where project paths are built: from the package location,
never from the current directory.  ``SCHEDLAB_ROOT`` overrides the root (for
an installed, non-editable package used against a checkout elsewhere)."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("SCHEDLAB_ROOT") or Path(__file__).resolve().parents[2])
DATA = ROOT / "data"
TRACES = DATA / "traces"
TRACE_REGISTRY = DATA / "traces.toml"
# Logs not bundled that `schedlab traces fetch` (make data) downloads, and the
# registry of the ones it fetched on this machine (written by it, git-ignored).
FETCH_REGISTRY = DATA / "fetch.toml"
LOCAL_TRACE_REGISTRY = DATA / "traces.local.toml"
RESULTS = ROOT / "results"
NOTEBOOKS = ROOT / "notebooks"
PAPER = ROOT / "paper"
