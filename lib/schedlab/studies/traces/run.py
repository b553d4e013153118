"""The traces study: characterise the traces, hand every output to the driver
(:func:`schedlab.protocol.study.run_study`), which writes it."""
from __future__ import annotations

from typing import Any

from .analysis import JOBSETS
from .cells import characterise
from .figures import figure_runtimes, figure_weekly
from .params import PREMATURE_FACTOR, STUDY, Params
from .published import PUBLISHED_NOTES, THESIS
from .scorecard import rows as scorecard_rows
from .report import numbers
from .tables import data_histograms, data_weekly, tables


def compute(params: Params, ctx) -> dict[str, Any]:
    """Characterise ``params.traces``; through ``ctx``:

    * ``tables/{traces,weekly,cleaning,premature,classes,areas}.{csv,md}``;
    * ``figures/{weekly,runtimes}.{png,pdf}``;
    * ``data/{weekly,runtime_histograms}.csv`` (the data behind the figures).

    Returns ``numbers`` (key numbers per trace, definitions, the thesis'
    values), ``stats`` (a :class:`TraceStats` per trace), ``tables`` and
    ``figures`` (name -> [png, pdf]).
    """
    with ctx.timer("characterise_s"):
        stats = [characterise(info) for info in params.traces]
    tabs = {name: ctx.table(name, table) for name, table in tables(stats).items()}
    ctx.data("weekly", data_weekly(stats))
    ctx.data("runtime_histograms", data_histograms(stats))
    figs = {name: ctx.figure(name, make(stats)) for name, make in (("weekly", figure_weekly),
                                                                     ("runtimes", figure_runtimes))}
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
        "traces": numbers(stats),
        "published_source": THESIS,
        "published_notes": list(PUBLISHED_NOTES),
    }
    return {"numbers": doc, "stats": stats, "tables": tabs, "figures": figs, "scorecard": scorecard_rows(stats)}
