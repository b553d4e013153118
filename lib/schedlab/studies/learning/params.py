"""The parameters of the learning study, declared once (default = the quick
profile's value; params/full/11-learning-to-schedule.yaml holds the full
profile's values that differ)."""
from __future__ import annotations

from dataclasses import dataclass

from ... import validators
from ...protocol.study import Outputs, param
from ...protocol.study import Params as StudyParams
from ...workloads import traces as _traces
from ..registry import name_of

STUDY = name_of(__name__)


@dataclass(frozen=True)
class Params(StudyParams):
    """The learning study's parameters (quick: 5 held-out resampled traces of 26 weeks)."""

    traces: tuple = param(("KTH-SP2",), check=_traces.trace_tuple,
                          help="the logs: the first half of each trains, the second is held out")
    period: str = param("day", check=lambda v, n: validators.choices(v, n, ("day", "week"))[0],
                        help="the selection period Δ")
    samples: int = param(5, check=validators.integer, help="resampled held-out traces per log (online-bandit: 100)")
    weeks: int = param(26, unit="weeks", check=validators.integer,
                       help="length of each resampled held-out trace (online-bandit: 104)")
    episodes: int = param(20, check=validators.integer, help="training episodes of the learned selector")
    train_weeks: int = param(4, unit="weeks", check=validators.integer,
                             help="length of a training episode (a resampled trace of the first half)")
    threshold: int | None = param(40 * 3600, unit="s", check=validators.duration,
                                  help="Θ of EASY(P, Θ) (40h; None: none)")
    seed: int = param(2017, check=lambda v, n: validators.integer(v, n, 0),
                      help="seed of the resampling, the strategies, the training and the bootstrap")


#: The parameters of a tiny run of the study (seconds, on a generated log).
TINY = {"samples": 2, "weeks": 2, "episodes": 2, "train_weeks": 1, "seed": 3}

#: What the study writes, by name (schedlab.protocol.study.Outputs).
OUTPUTS = Outputs(tables=("arms",), figures=("arms",), datasets=("runs-{trace}",))
