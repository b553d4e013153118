"""Parameters of the classification study, declared once (:class:`Params`:
default = the quick profile's value, unit, meaning, validator); the traces,
policies and variants of thesis ch. 6 and the choices of the package's
docstring (history, divider window, finish) are constants of the cells."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass
from typing import Any

from ... import validators
from ...workloads import traces as _traces
from ...protocol.scorecard import Elsewhere
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from .cells import (DAY, DEFAULT_TRACES, DIVIDER_WINDOWS, FINISHES, HISTORIES, MISSING_TRACES, MONTH, POLICIES,
                    THESIS_VARIANTS, THRESHOLD, VARIANT_LABELS, VARIANTS, WEEK)

STUDY = name_of(__name__)

__all__ = ["STUDY", "MISSING_TRACES", "DEFAULT_TRACES", "POLICIES", "VARIANTS", "THESIS_VARIANTS",
           "VARIANT_LABELS", "HISTORIES", "DIVIDER_WINDOWS", "FINISHES", "THRESHOLD", "WEEK", "DAY", "MONTH",
           "Params"]


def _policies(value, name):
    return validators.policy_names(value, name, "the baseline of Table 6.6")


@dataclass(frozen=True)
class Params(StudyParams):
    """The parameters of the study (see the package docstring)."""

    traces: tuple = param(DEFAULT_TRACES, check=_traces.trace_tuple,
                          help="traces: registry names or SWF paths")
    weeks: int | None = param(None, unit="weeks", check=lambda v, n: validators.optional_integer(v, n, 2),
                              help="keep only the first N weeks of each trace (None: all)")
    policies: tuple = param(POLICIES, check=_policies, help="queue policies (P_R = P_B), FCFS included")
    threshold: int | None = param(THRESHOLD, unit="s", check=validators.duration,
                                  help="waiting-time threshold (thesis §5.8: 200000 s = 2.31 days; None: none)")
    trees: int = param(10, check=validators.integer, help="trees of each week's random forest (thesis: 100)")
    max_samples: int | None = param(5000, check=validators.optional_integer,
                                    help="training jobs drawn for each tree (None: all of them)")
    seed: int = param(2021, check=lambda v, n: validators.integer(v, n, 0), help="seed of the random forests")
    history: str = param("completed", check=lambda v, n: validators.choice(v, n, HISTORIES),
                         help="the user history the features see: completed jobs, or previous weeks'")
    divider_window: str = param("all", check=lambda v, n: validators.choice(v, n, DIVIDER_WINDOWS),
                                help="the divider: median runtime of all jobs finished so far, or of the last week's")
    finish: str = param("auto", check=lambda v, n: validators.choice(v, n, FINISHES),
                        help="when a job is known to be finished: the log's end times (log), an EASY-FCFS "
                             "simulation's (easy-fcfs), or the log's unless it records no wait (auto)")

    def classifier_params(self) -> dict[str, Any]:
        """The parameters a classification depends on (cache keys)."""
        return {"weeks": self.weeks, "trees": self.trees, "max_samples": self.max_samples, "seed": self.seed,
                "history": self.history, "divider_window": self.divider_window, "finish": self.finish}


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'policies': ['FCFS', 'SPF'], 'trees': 5}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("dividers", "gains", "small_large", "table_6_4", "table_6_5", "table_6_6", "totals", "weekly"),
    figures=("cumulative", "importance", "monthly", "small_large", "totals", "weekly_scores"),
    datasets=("classify-{trace}", "schedule-{trace}"),
    data=("weekly_scores",),
    feeds={"dividers": Elsewhere("traces", "Table 6.1"), "table_6_4": "Table 6.4", "table_6_5": "Table 6.5",
           "table_6_6": "Table 6.6"})
