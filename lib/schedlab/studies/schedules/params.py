"""The parameters of the schedules study, declared once."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass

from ... import validators
from ...workloads import traces as _traces
from ...jobs import Policy
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param

STUDY = name_of(__name__)


def _policy(value, name: str) -> str:
    from ...errors import InputError

    try:
        p = Policy.parse(str(value))
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None
    if not isinstance(p.primary, str) or not isinstance(p.backfill, str) or "SJBF" in (p.primary, p.backfill):
        raise InputError(f"{name}: a pair of pure policies, e.g. EASY-SPF-FCFS, got {value!r}")
    return f"EASY-{p.primary}-{p.backfill}"


@dataclass(frozen=True)
class Params(StudyParams):
    """The excerpt and the two policies (cheap: the quick and full profiles are the same)."""

    traces: tuple = param(("KTH-SP2",), check=_traces.trace_tuple,
                          help="the log to take the excerpt from (the first one is used): a registry name or SWF path")
    first_job: int = param(750, unit="jobs", check=lambda v, n: validators.integer(v, n, 0),
                           help="index of the excerpt's first job in the cleaned log (0-based)")
    jobs: int = param(60, unit="jobs", check=lambda v, n: validators.integer(v, n, 5),
                      help="number of jobs of the excerpt")
    policy: str = param("EASY-FCFS-FCFS", check=_policy, help="the policy whose pass is shown, EASY-<P_R>-<P_B>")
    compare: str = param("EASY-SPF-SPF", check=_policy, help="the policy drawn beside it on the same jobs")


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'jobs': 30}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("pass",),
    figures=("compare", "pass", "timeline"),
    data=("jobs-{any}",))
