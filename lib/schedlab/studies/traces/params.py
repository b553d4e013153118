"""The parameters of the traces study: the traces to characterise (and the
output directory), their defaults, and the definition of premature jobs.
"""
from __future__ import annotations

from pathlib import Path

from ... import metrics, paths
from ... import traces as _traces
from ... import values as check

STUDY = "traces"

#: The six main traces, the notebook's default.
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N", "CEA-Curie")

#: p~ >= PREMATURE_FACTOR * p makes a job premature (thesis §4.3.3); the two
#: readings of the definition (see the docstring of the package).
PREMATURE_FACTOR, READINGS = metrics.PREMATURE_FACTOR, metrics.PREMATURE_READINGS


# ----------------------------------------------------------- validators --

def validate_traces(value) -> list[_traces.TraceInfo]:
    """:func:`schedlab.values.trace_list` (kept for the notebook)."""
    return check.trace_list(value)


def validate_outdir(value) -> Path:
    """The output directory: ``None`` (or "") means ``results/traces`` under the
    project root (:mod:`schedlab.paths`); otherwise a path, made absolute."""
    return check.directory(value, "outdir", paths.RESULTS / STUDY)
