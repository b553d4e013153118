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
PARAMS = ROOT / "params"


def git_state() -> dict:
    """The checkout's commit and whether tracked files differ from it
    (``{"commit": None, "dirty": None}`` outside a git checkout): the
    provenance every result records."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=10)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return {"commit": None, "dirty": None}
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    return {"commit": head.stdout.strip(), "dirty": bool(dirty)}


def git_commit() -> str:
    """:func:`git_state` as one string: the commit, "-dirty" appended when
    tracked files changed, "unknown" outside a git checkout."""
    g = git_state()
    return "unknown" if g["commit"] is None else g["commit"] + ("-dirty" if g["dirty"] else "")


def relative(p) -> str:
    """A path relative to the repository when inside it (``data/traces/x.swf.gz``),
    else as given: what provenance records, so that results carry no machine
    paths and two clones of one commit write the same files."""
    path = Path(os.fspath(p))
    try:
        return path.resolve().relative_to(ROOT.resolve()).as_posix()
    except (ValueError, OSError):
        return os.fspath(p)
