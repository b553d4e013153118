"""The traces study's pipeline: characterise the traces, write every output."""
from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from ... import __version__, paths, plots
from .. import write_json, write_text
from .analysis import JOBSETS
from .cells import characterise
from .figures import figure_runtimes, figure_weekly
from .params import DEFAULT_TRACES, PREMATURE_FACTOR, STUDY, validate_outdir, validate_traces
from .published import PUBLISHED_NOTES, THESIS
from .report import numbers
from .tables import data_histograms, data_weekly, tables


def run(traces: Iterable = DEFAULT_TRACES, outdir=None) -> dict[str, Any]:
    """Characterise ``traces`` and write every output under ``outdir``
    (default ``results/traces``), each file atomically:

    * ``tables/{traces,weekly,cleaning,premature,classes,areas}.{csv,md}``;
    * ``figures/{weekly,runtimes}.{png,pdf}``;
    * ``data/{weekly,runtime_histograms}.csv`` (the data behind the figures);
    * ``numbers.json`` (key numbers per trace, the thesis' values, provenance).

    Returns a dict: ``stats`` (list of :class:`TraceStats`), ``tables``
    (name -> :class:`~schedlab.studies.Table`), ``figures`` (name -> [png,
    pdf]), ``files`` (every path written), ``numbers``, ``outdir`` and
    ``seconds`` (wall time).
    """
    t0 = time.perf_counter()
    infos = validate_traces(list(traces) if not isinstance(traces, (str, os.PathLike)) else traces)
    out = validate_outdir(outdir)
    stats = [characterise(info) for info in infos]
    files: list[Path] = []
    tabs = tables(stats)
    for name, table in tabs.items():
        files += table.write(out / "tables" / name)
    files.append(write_text(out / "data" / "weekly.csv", data_weekly(stats).to_csv()))
    files.append(write_text(out / "data" / "runtime_histograms.csv", data_histograms(stats).to_csv()))
    figs = {}
    for name, make in (("weekly", figure_weekly), ("runtimes", figure_runtimes)):
        fig = make(stats)
        figs[name] = plots.savefig(fig, out / "figures" / name)
        files += figs[name]
    nums = numbers(stats)
    seconds = time.perf_counter() - t0
    doc = {
        "study": STUDY,
        "definitions": {
            "premature_factor": PREMATURE_FACTOR,
            "premature": "ratio reading p~ >= factor*p (difference reading p~ - p >= factor*p "
                         "under *_difference*); p = 0 is premature when p~ > 0",
            "divider": "median actual runtime p of the jobs",
            "small": "p <= divider; premature small: p~ > divider",
            "area": "p * q",
            "load": "sum of q*p of a week's submitted jobs / (m * 7 days), over full weeks",
            "jobs": JOBSETS,
            "units": {"*_pct": "percent", "*_s": "seconds", "load": "fraction of m"},
        },
        "traces": nums,
        "published_source": THESIS,
        "published_notes": list(PUBLISHED_NOTES),
        "provenance": {
            "schedlab": __version__,
            "git": paths.git_state(),
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "wall_s": seconds,
            "parameters": {"traces": [s.name for s in stats], "outdir": str(out)},
            "inputs": {s.name: {"path": str(s.path), "sha256": s.sha256, "registered": s.registered}
                       for s in stats},
        },
    }
    files.append(write_json(out / "numbers.json", doc))
    return {"stats": stats, "tables": tabs, "figures": figs, "files": files, "numbers": nums,
            "outdir": out, "seconds": time.perf_counter() - t0}
