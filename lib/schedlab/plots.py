"""The shared figure style of the compendium.

* :data:`RC` -- matplotlib rc settings of every figure (sizes, fonts, grid);
  :func:`style` applies them in a ``with`` block, :func:`apply_style` for good.
* :func:`figure` -- a new :class:`matplotlib.figure.Figure`, *not* registered
  with pyplot: library code never touches pyplot's global state, so figures
  are freed when dropped and no GUI window ever opens.
* :func:`trace_color` -- one colour per trace, the same in every figure.
* :func:`savefig` -- PNG and PDF side by side, each written atomically
  (temporary file, then ``os.replace``) and without timestamps, so
  re-running a study rewrites byte-identical files when nothing changed.

On a machine without a display (and outside a Jupyter kernel) importing this
module selects matplotlib's non-interactive Agg backend.
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path


def _choose_backend() -> None:
    """Agg when nothing can show a window; leave any explicit choice alone."""
    if os.environ.get("MPLBACKEND") or "ipykernel" in sys.modules:
        return
    if sys.platform.startswith(("linux", "freebsd")) and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        import matplotlib
        matplotlib.use("Agg")


_choose_backend()

import matplotlib  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

__all__ = ["RC", "TRACE_COLORS", "FORMATS", "style", "apply_style", "figure",
           "trace_color", "savefig"]

#: rc settings shared by every figure of the compendium.
RC: dict = {
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.05,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.2,
    "pdf.fonttype": 42,        # TrueType in PDFs: editable text, no Type 3 fonts
    "svg.fonttype": "none",
}

#: Fixed colours of the bundled traces (matplotlib's tab10, in registry order).
TRACE_COLORS: dict[str, str] = {
    "KTH-SP2": "#1f77b4",
    "CTC-SP2": "#ff7f0e",
    "SDSC-SP2": "#2ca02c",
    "SDSC-BLUE": "#d62728",
    "HPC2N": "#9467bd",
    "CEA-Curie": "#8c564b",
    "LANL-CM5": "#e377c2",
    "LCG": "#7f7f7f",
    "NASA-iPSC": "#bcbd22",
    "RICC": "#17becf",
    "SDSC-Par": "#393b79",
    "Sandia-Ross": "#637939",
}
# For traces not in the table (a user's own log): a stable pick from tab20b.
_EXTRA = ("#843c39", "#7b4173", "#5254a3", "#8ca252", "#bd9e39", "#ad494a",
          "#a55194", "#6b6ecf", "#b5cf6b", "#e7ba52", "#d6616b", "#ce6dbd")

#: The file formats :func:`savefig` writes.
FORMATS = ("png", "pdf")


def trace_color(name: str) -> str:
    """The colour of a trace: fixed for the bundled ones (any letter case),
    otherwise chosen from the trace name alone (not from call order), so a
    trace keeps its colour in every figure and every run."""
    for key, colour in TRACE_COLORS.items():
        if key.lower() == str(name).lower():
            return colour
    h = 0
    for ch in str(name).encode("utf-8"):
        h = (h * 131 + ch) % 1_000_003
    return _EXTRA[h % len(_EXTRA)]


@contextlib.contextmanager
def style():
    """``with style(): ...`` -- :data:`RC` in force inside the block."""
    with matplotlib.rc_context(RC):
        yield


def apply_style() -> None:
    """Put :data:`RC` in force for the rest of the session (notebooks)."""
    matplotlib.rcParams.update(RC)


def figure(width: float = 6.5, height: float = 4.0, **kw) -> Figure:
    """A new figure in the house style (``width`` x ``height`` inches),
    independent of pyplot.  Pass ``layout="constrained"`` (the default) or
    another layout engine through ``kw``."""
    kw.setdefault("layout", "constrained")
    with style():
        return Figure(figsize=(width, height), **kw)


def _save_one(fig: Figure, path: Path, fmt: str) -> Path:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            # No creation dates or software versions: the bytes depend on the
            # figure only.
            metadata = {"CreationDate": None, "Producer": None} if fmt == "pdf" else {"Software": None}
            with style():
                fig.savefig(fh, format=fmt, metadata=metadata)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return path


def savefig(fig: Figure, path_without_suffix: str | os.PathLike,
            formats: tuple[str, ...] = FORMATS) -> list[Path]:
    """Write ``fig`` as ``<path>.png`` and ``<path>.pdf`` (by default), each
    atomically; creates the directory.  Returns the paths written.

    The path is given without a suffix; one that already ends in a format's
    suffix (``fig.png``) is accepted and the suffix dropped.
    """
    base = Path(path_without_suffix)
    if base.suffix.lower().lstrip(".") in FORMATS:
        base = base.with_suffix("")
    base.parent.mkdir(parents=True, exist_ok=True)
    return [_save_one(fig, base.parent / f"{base.name}.{fmt}", fmt) for fmt in formats]


def interval(ax, pos, lo, hi, *, axis: str = "y", **kw):
    """Intervals [lo, hi] at positions ``pos`` (vertical segments for
    ``axis="y"``, horizontal for ``"x"``), drawn as they are: unlike
    ``errorbar``'s offsets from a point, right also when the point estimate
    lies outside its interval (a mean above its 9th decile, on a skewed
    log).  Non-finite intervals are left out.  ``kw`` go to vlines/hlines
    (``colors``, ``lw``, ``alpha``, ``label``)."""
    import numpy as np

    pos, lo, hi = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (pos, lo, hi)))
    ok = np.isfinite(pos) & np.isfinite(lo) & np.isfinite(hi)
    draw = ax.vlines if axis == "y" else ax.hlines
    return draw(pos[ok], lo[ok], hi[ok], **kw)
