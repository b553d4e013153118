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

Pictures of a schedule (a simulated :class:`schedlab.engine.sim.Schedule` or a
schedule file read by :func:`schedlab.workloads.formats.read`):

* :func:`gantt` -- processor ids x time (ids from the file's
  ``allocated_resources``, else :func:`schedlab.workloads.formats.intervals.place`),
  backfilled jobs and jobs killed at their requested time marked, and
  optionally the head job's reservation (its shadow time, from
  :func:`schedlab.workloads.check.explain`);
* :func:`utilisation_and_queue` -- busy processors and queued jobs over time;
* :func:`compare_gantt` -- two schedules of the same jobs side by side, with
  each job's change of start time.

On a machine without a display (and outside a Jupyter kernel) importing this
module selects matplotlib's non-interactive Agg backend.
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from ..files import atomic


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
           "trace_color", "savefig", "SCHEDULE_COLORS", "gantt", "utilisation_and_queue", "compare_gantt",
           "schedule_table"]

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
    with atomic(path) as tmp, open(tmp, "wb") as fh:
        # No creation dates or software versions: the bytes depend on the
        # figure only.
        metadata = {"CreationDate": None, "Producer": None} if fmt == "pdf" else {"Software": None}
        with style():
            fig.savefig(fh, format=fmt, metadata=metadata)
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


# ---------------------------------------------------------- schedule pictures --

#: Colours of the schedule pictures.
SCHEDULE_COLORS = {"job": "#9ecae1", "backfilled": "#fdae6b", "killed": "#d62728", "reservation": "#2ca02c",
                   "edge": "#3c3c3c", "queue": "#7b4173", "busy": "#1f77b4",
                   "by_shadow": "#e6550d", "by_extra": "#756bb1", "other_backfilled": "#fdd0a2"}


def schedule_table(schedule, m: int | None = None) -> dict:
    """The columns the pictures need, from a simulated schedule or a
    :class:`schedlab.workloads.formats.ScheduleFile`: ids (str), submit, start, end,
    procs, requested, backfilled and killed (booleans; False where a file
    does not say), the processor intervals of each job and m."""
    import numpy as np

    from ..workloads.formats import intervals
    from ..workloads.formats.schedule import ScheduleFile, from_schedule

    sf = schedule if isinstance(schedule, ScheduleFile) else from_schedule(schedule)
    m = int(m or sf.m or 0)
    if m < 1:
        raise ValueError("schedule_table: give the machine size m")
    alloc = sf.allocated if sf.allocated is not None else intervals.place(sf.start, sf.end, sf.procs, m, sf.ids)
    n = sf.n
    return {"ids": list(sf.ids), "submit": sf.submit, "start": sf.start, "end": sf.end, "procs": sf.procs,
            "requested": sf.requested, "alloc": alloc, "m": m,
            "backfilled": sf.backfilled if sf.backfilled is not None else np.zeros(n, bool),
            "killed": sf.walltime | sf.killed_run}


def gantt(ax, schedule, m: int | None = None, *, window=None, reservation=None, labels: bool = True,
          title: str | None = None):
    """Draw a Gantt chart on ``ax``: one rectangle per job and processor
    interval (time on x, processor ids on y); backfilled jobs in orange,
    jobs killed at their requested time hatched in red; ``window`` =
    (t0, t1) limits the time axis; ``reservation`` = a
    :class:`schedlab.workloads.check.PassDecision` whose head's reservation is drawn
    (a dashed box from the shadow time for the head's requested time on the
    processors it gets, and the pass time and shadow time as lines).
    Returns the table of :func:`schedule_table`."""
    from matplotlib.patches import Patch, Rectangle

    tab = schedule if isinstance(schedule, dict) else schedule_table(schedule, m)
    C = SCHEDULE_COLORS
    t0, t1 = window if window is not None else (float(tab["start"].min()), float(tab["end"].max()))
    # with a pass: its backfills by the shadow time / on extra processors stand out
    at_pass: dict[int, str] = {}
    if reservation is not None and reservation.head is not None:
        d = reservation
        for j in d.backfilled:
            j = tab["ids"].index(j) if isinstance(j, str) else int(j)
            at_pass[j] = "by_shadow" if float(tab["end"][j] - tab["start"][j]) <= 0 or \
                d.t + _estimate(tab, j) <= d.shadow else "by_extra"
    for k, jid in enumerate(tab["ids"]):
        s, e = float(tab["start"][k]), float(tab["end"][k])
        if e < t0 or s > t1 or e == s:
            continue
        if k in at_pass:
            face = C[at_pass[k]]
        elif tab["backfilled"][k]:
            face = C["other_backfilled"] if at_pass or reservation is not None else C["backfilled"]
        else:
            face = C["job"]
        for a, b in tab["alloc"][k]:
            ax.add_patch(Rectangle((s, a), e - s, b - a + 1, facecolor=face, edgecolor=C["edge"], linewidth=0.5,
                                   hatch="///" if tab["killed"][k] else None, zorder=2))
        a, b = tab["alloc"][k][0]
        big = (min(e, t1) - max(s, t0)) > 0.03 * (t1 - t0) and (b - a + 1) >= 0.025 * tab["m"]
        if labels and (big or k in at_pass):
            ax.text(max(s, t0) + 0.01 * (t1 - t0), a + (b - a + 1) / 2, jid, fontsize=6, va="center",
                    zorder=3, clip_on=True)
    if reservation is not None:
        handles = [Patch(facecolor=C["job"], edgecolor=C["edge"], label="job"),
                   Patch(facecolor=C["by_shadow"], edgecolor=C["edge"], label="backfilled here, ends by S"),
                   Patch(facecolor=C["by_extra"], edgecolor=C["edge"], label="backfilled here, on extra processors"),
                   Patch(facecolor=C["other_backfilled"], edgecolor=C["edge"], label="backfilled at another pass")]
    else:
        handles = [Patch(facecolor=C["job"], edgecolor=C["edge"], label="job"),
                   Patch(facecolor=C["backfilled"], edgecolor=C["edge"], label="backfilled")]
    if tab["killed"].any():
        handles.append(Patch(facecolor="white", edgecolor=C["killed"], hatch="///", label="killed at p~"))
    if reservation is not None and reservation.head is not None:
        d = reservation
        h = tab["ids"].index(d.head) if isinstance(d.head, str) else int(d.head)
        S = float(d.shadow)
        ax.axvline(d.t, color=C["edge"], linestyle=":", linewidth=1, zorder=4)
        ax.axvline(S, color=C["reservation"], linestyle="--", linewidth=1.2, zorder=4)
        span = _estimate(tab, h)
        for a, b in tab["alloc"][h]:
            ax.add_patch(Rectangle((S, a), span, b - a + 1, fill=False, edgecolor=C["reservation"],
                                   linestyle="--", linewidth=1.5, zorder=5))
        handles.append(Patch(fill=False, edgecolor=C["reservation"], linestyle="--",
                             label=f"reservation of head {tab['ids'][h]} from S = {S:.0f}"))
    ax.set_xlim(t0, t1)
    ax.set_ylim(0, tab["m"])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("processor id")
    ax.grid(False)
    if title:
        ax.set_title(title)
    ax.legend(handles=handles, loc="upper right", fontsize=7, framealpha=0.8, frameon=True)
    return tab


def _estimate(tab, j: int) -> float:
    """The requested time of job j (its run when the schedule gives none)."""
    r = float(tab["requested"][j])
    return r if r >= 0 else float(tab["end"][j] - tab["start"][j])


def _steps(times_plus, times_minus):
    import numpy as np

    t = np.concatenate([times_minus, times_plus])
    d = np.concatenate([-np.ones(len(times_minus)), np.ones(len(times_plus))])
    o = np.lexsort((d, t))
    t, level = t[o], np.cumsum(d[o])
    last = np.r_[t[1:] != t[:-1], True] if t.size else np.zeros(0, bool)
    return t[last], level[last]


def utilisation_and_queue(ax_util, ax_queue, schedule, m: int | None = None, *, window=None, label=None,
                          color=None):
    """Busy processors (as a share of m) and queued jobs (submitted, not
    started) over time, as step functions, on two axes."""
    import numpy as np

    tab = schedule if isinstance(schedule, dict) else schedule_table(schedule, m)
    pos = tab["end"] > tab["start"]
    # busy processors: +q at start, -q at end
    t = np.concatenate([tab["end"][pos], tab["start"][pos]])
    d = np.concatenate([-tab["procs"][pos], tab["procs"][pos]]).astype(float)
    o = np.lexsort((d, t))
    t, busy = t[o], np.cumsum(d[o])
    last = np.r_[t[1:] != t[:-1], True] if t.size else np.zeros(0, bool)
    ax_util.step(t[last], busy[last] / tab["m"], where="post", label=label, color=color or SCHEDULE_COLORS["busy"])
    ax_util.set_ylabel("utilisation")
    ax_util.set_ylim(0, 1.05)
    tq, level = _steps(tab["submit"], tab["start"])
    ax_queue.step(tq, level, where="post", label=label, color=color or SCHEDULE_COLORS["queue"])
    ax_queue.set_ylabel("queued jobs")
    ax_queue.set_xlabel("time (s)")
    if window is not None:
        ax_util.set_xlim(*window)
        ax_queue.set_xlim(*window)
    return tab


def compare_gantt(schedule_a, schedule_b, labels=("A", "B"), m: int | None = None, *, window=None,
                  width: float = 10.0, height: float = 4.0):
    """Two schedules of the same jobs side by side (two Gantt charts on the
    same time axis) and, below, each job's start under B minus under A
    (positive: B starts it later).  Returns the figure."""
    import numpy as np

    ta, tb = schedule_table(schedule_a, m), schedule_table(schedule_b, m)
    if ta["ids"] != tb["ids"]:
        raise ValueError("compare_gantt: the two schedules must hold the same jobs in the same order")
    if window is None:
        window = (float(min(ta["start"].min(), tb["start"].min())), float(max(ta["end"].max(), tb["end"].max())))
    fig = figure(width, height + 1.6)
    gs = fig.add_gridspec(2, 2, height_ratios=[height, 1.6])
    ax1 = fig.add_subplot(gs[0, 0])
    ax2 = fig.add_subplot(gs[0, 1], sharey=ax1)
    with style():
        gantt(ax1, ta, window=window, title=labels[0])
        gantt(ax2, tb, window=window, title=labels[1])
        ax3 = fig.add_subplot(gs[1, :])
        delta = tb["start"] - ta["start"]
        x = np.arange(len(delta))
        ax3.bar(x, delta, color=np.where(delta > 0, SCHEDULE_COLORS["killed"], SCHEDULE_COLORS["busy"]))
        ax3.axhline(0, color=SCHEDULE_COLORS["edge"], linewidth=0.5)
        step = max(1, len(x) // 30)
        ax3.set_xticks(x[::step], [ta["ids"][k] for k in x[::step]], rotation=90, fontsize=6)
        ax3.set_ylabel(f"start {labels[1]} - {labels[0]} (s)")
        ax3.set_xlabel("job (submission order)")
    return fig
