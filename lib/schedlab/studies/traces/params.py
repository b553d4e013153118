"""The parameters of the traces study, declared once: the traces to
characterise; and the definition of premature jobs."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass

from ...engine import metrics
from ...workloads import traces as _traces
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param

STUDY = name_of(__name__)

#: The six main traces, the default.
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N", "CEA-Curie")

#: p~ >= PREMATURE_FACTOR * p makes a job premature (thesis §4.3.3); the two
#: readings of the definition (see the docstring of the package).
PREMATURE_FACTOR, READINGS = metrics.PREMATURE_FACTOR, metrics.PREMATURE_READINGS


@dataclass(frozen=True)
class Params(StudyParams):
    """The traces study's parameters (cheap: the quick and full profiles are the same)."""

    traces: tuple = param(DEFAULT_TRACES, check=_traces.trace_tuple,
                          help="traces to characterise: registry names (schedlab traces list) or SWF paths")


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("areas", "classes", "cleaning", "premature", "traces", "weekly"),
    figures=("runtimes", "weekly"),
    data=("runtime_histograms", "weekly"))
