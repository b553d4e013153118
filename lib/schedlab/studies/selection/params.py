"""The parameters of the online-selection study, declared once
(:class:`Params`; defaults = the quick profile), and the choices they read."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass

from ... import validators
from ...workloads import columns as _columns
from ...workloads import traces as _traces
from ...protocol.scorecard import Elsewhere
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from .cells import DAY, PERIODS, POLICIES, STRATEGIES, WEEK

__all__ = ["STUDY", "DAY", "WEEK", "POLICIES", "STRATEGIES", "PERIODS", "MISSING_TRACES", "PAPER_TRACES", "Params"]

STUDY = name_of(__name__)
#: Traces of the paper that the compendium does not bundle.
MISSING_TRACES: tuple[str, ...] = ("ANL-Intrepid", "UniLu-Gaia")
#: The paper's traces that we have (Table 1 order): the full profile's.
PAPER_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")

#: The strategies as tables and figures name them.
_STRATEGY_LABEL = {"full": "Full", "noisy": "Noisy", "bandit": "Bandit", "random": "Random"}


def _unit(low: float, high: float, high_open: bool = False):
    return lambda v, n: validators.number(v, n, low, high, high_open=high_open)


@dataclass(frozen=True)
class Params(StudyParams):
    """The online-selection study's parameters.  The defaults are the quick
    profile: three of the five traces, 5 resampled traces of one year each
    (the paper: 100 of two years), both policy periods, every strategy."""

    traces: tuple = param(("KTH-SP2", "CTC-SP2", "SDSC-SP2"), check=_traces.trace_tuple,
                          help="traces: registry names or SWF paths (an unregistered file's header gives m)")
    resamples: int = param(5, check=lambda v, n: validators.integer(v, n, 1),
                           help="resampled traces per trace (paper: 100)")
    weeks: int = param(52, unit="weeks", check=lambda v, n: validators.integer(v, n, 1),
                       help="length of each resampled trace (paper: 104, two years)")
    policies: tuple = param(POLICIES, check=lambda v, n: validators.policy_specs(
                                v, n, baseline="the baseline of Tables 2 and 3"),
                            help="the arms: queue policies the strategies choose among, names or expr:... "
                                 "(paper: the 12 of §4.1); FCFS must be one")
    periods: tuple = param(("day", "week"), check=lambda v, n: validators.choices(v, n, tuple(PERIODS)),
                           help="policy periods Δ among day, week")
    strategies: tuple = param(STRATEGIES, check=lambda v, n: validators.choices(v, n, STRATEGIES),
                              help="selection strategies among full, noisy, bandit, random")
    epsilon: float = param(0.5, check=_unit(0.0, 1.0),
                           help="exploration probability of the bandit (paper's figures: 0.5)")
    decay: float = param(1.0, check=_unit(0.0, 1.0), help="λ of Eqs. 4, 7, 8: decay of past feedback (paper: 1)")
    noise: float = param(0.15, check=_unit(0.0, 1.0, high_open=True),
                         help="half-width of the noisy simulator's factor (paper: 0.15)")
    threshold: int | None = param(40 * 3600, unit="s", check=validators.duration,
                                  help="Θ of EASY(P, Θ): jobs that waited longer lead the queue (40h; None: none)")
    seed: int = param(2017, check=lambda v, n: validators.integer(v, n, 0),
                      help="seed of the resampling and of every random choice")
    columns: tuple = param((), check=_columns.study_columns,
                           help="per-job columns your policies read as col.NAME: {NAME: a file of 'job id,value' "
                                "lines, or 'module:function' of the cleaned jobs}; they follow the jobs through "
                                "resampling")


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'resamples': 2, 'weeks': 2, 'periods': ['day', 'week'], 'epsilon': 0.5, 'decay': 1.0}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("table2", "table2_ci", "table3", "table3_ci"),
    figures=("fixed", "share_{any}", "strategies_{any}"),
    datasets=("fixed-{trace}", "strategies-{trace}"),
    data=("curves", "shares"),
    feeds={"table2_ci": Elsewhere("policies", "Table 2")})
