"""The parameters of the your-policy study, declared once (defaults = the quick profile)."""
from __future__ import annotations

from dataclasses import dataclass

from ..registry import name_of
from ... import validators
from ...errors import InputError
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from ...workloads import columns as _columns
from ...workloads import traces as _traces

STUDY = name_of(__name__)

#: The example priority: jobs that waited long for their request first, narrow
#: ones a little earlier (lowest key first; a fair-share-like mix).
EXAMPLE = "expr:procs / m - wait / max(req, 1)"


def _compare(value, name: str) -> tuple[str, ...]:
    out = validators.policy_specs(value, name)
    if "FCFS" not in out:
        raise InputError(f"{name}: must include FCFS, the baseline every gain is measured from (got {list(out)})")
    return out


@dataclass(frozen=True)
class Params(StudyParams):
    """Your policies and the protocol's sizes (the quick profile: 3 resampled
    traces per log; online-bandit used 100)."""

    traces: tuple = param(("KTH-SP2",), check=_traces.trace_tuple,
                          help="the logs (registry names or SWF paths; your own log here)")
    policies: tuple = param((EXAMPLE,), check=validators.policy_specs,
                            help="your queue orders: 'expr:<expression>' (both queues), or built-in names")
    compare: tuple = param(("FCFS", "SPF", "LEXP", "WFP"), check=_compare,
                           help="built-in policies run beside yours on the same traces (FCFS: the baseline)")
    samples: int = param(3, check=validators.integer,
                         help="resampled traces per log (online-bandit: 100)")
    weeks: int = param(104, unit="weeks", check=validators.integer,
                       help="length of each resampled trace (online-bandit: 104, two years)")
    threshold: int | None = param(40 * 3600, unit="s", check=validators.duration,
                                  help="Θ of EASY(P, Θ): jobs waiting longer lead both queues (40h; None: none)")
    seed: int = param(2017, check=lambda v, n: validators.integer(v, n, 0),
                      help="seed of the resampling and of the bootstrap")
    columns: tuple = param((), check=_columns.study_columns,
                           help="per-job columns your policies read as col.NAME: {NAME: a file of 'job id,value' "
                                "lines, or 'module:function' of the cleaned jobs}; they follow the jobs through "
                                "resampling")


#: The parameters of a tiny run of the study (seconds, on a generated log).
TINY = {"samples": 2, "weeks": 3, "compare": ["FCFS", "SPF"], "threshold": "10h", "seed": 3}

#: What the study writes, by name (schedlab.protocol.study.Outputs).
OUTPUTS = Outputs(tables=("gains",), figures=("gains",), datasets=("runs-{trace}",))
