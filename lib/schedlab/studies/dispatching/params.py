"""The parameters of the dispatching study, declared once (default = the quick
profile's value; params/full/12-dispatching.yaml holds the full profile's values
that differ)."""
from __future__ import annotations

from dataclasses import dataclass

from ...declared import integer
from ...jobs import Policy
from ...protocol.study import Outputs, param
from ...protocol.study import Params as StudyParams
from ...workloads import traces as _traces
from ..registry import name_of

STUDY = name_of(__name__)


def _policy(value, name: str) -> str:
    """An EASY policy of two pure queue orders, e.g. EASY-SPF-FCFS."""
    from ...errors import InputError

    try:
        p = Policy.parse(str(value))
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None
    if not isinstance(p.primary, str) or not isinstance(p.backfill, str):
        raise InputError(f"{name}: a pair of queue policies, e.g. EASY-SPF-FCFS, got {value!r}")
    return f"EASY-{p.primary}-{p.backfill}"


@dataclass(frozen=True)
class Params(StudyParams):
    """The dispatching study's parameters."""

    traces: tuple = param(("KTH-SP2",), check=_traces.trace_tuple,
                          help="traces: registry names (schedlab traces list) or SWF paths")
    policy: str = param("EASY-FCFS-FCFS", check=_policy, help="the policy simulated, EASY-<P_R>-<P_B>")
    weeks: int = param(4, unit="weeks", check=integer(1),
                       help="the first weeks (with jobs) of each trace, each simulated alone")


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {"weeks": 2}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("weeks", "summary"),
    figures=("waits",))
