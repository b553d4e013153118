"""The parameters of the policies study, declared once (:class:`Params`;
defaults = the quick profile), the choices it makes once (label mappings;
the cells' cleaning per part, policies of Tables 1-2 and bsld categories live
in :mod:`.cells`), and the values of the papers it compares with
(:data:`PUBLISHED`, :data:`CLAIMS`), read from ``published.toml``."""
from __future__ import annotations

from ..registry import name_of

from dataclasses import dataclass
from typing import Any

from ...engine import sim
from ... import validators
from ...workloads import columns as _columns
from ...workloads import traces as _traces
from ...errors import InputError
from ...protocol.study import Outputs, Params as StudyParams
from ...protocol.study import param
from ...workloads.traces import TraceInfo
from .. import load_published
from .cells import BSLD_CLASSES, OVERRUN, TABLE_POLICIES, TABLE_VARIANTS, TOP, WEEK

__all__ = ["STUDY", "LELONG", "THESIS", "BANDIT", "PUBLISHED", "CLAIMS", "MISSING_TRACES", "OVERRUN",
           "TABLE_POLICIES", "TABLE_VARIANTS", "BSLD_CLASSES", "TOP", "WEEK", "SWAPS", "DEFAULT_TRACES",
           "BANDIT_TRACES", "THESIS_POLICIES", "Params"]

STUDY = name_of(__name__)

# ----------------------------------------------------------------- sources --

LELONG = ("lelong2017: J. Lelong, V. Reis, D. Trystram, Tuning EASY-Backfilling Queues, JSSPP 2017, "
          "LNCS 10773, pp. 43-61")

THESIS = ("zrigui2021: S. Zrigui, Understanding and improving HPC performance using Machine "
          "Learning and Statistical analysis, PhD thesis, Université Grenoble Alpes, 2021, ch. 4")

BANDIT = ("online-bandit: anonymous authors, Online (Bandit) Policy Selection for EASY-Backfilling, "
          "manuscript (SC template), §6.1-6.2, Table 2")


# --------------------------------------------------------- published values --

def _published() -> tuple[dict[str, Any], dict[str, tuple[str, str, float]]]:
    """:data:`PUBLISHED` and :data:`CLAIMS` from ``published.toml`` (each of
    its tables cites its source; a claim is a table with a ``claim`` key)."""
    data = load_published("schedlab.studies.policies")
    t1 = data["lelong_table1"]["values"]        # metric -> policy -> trace -> s
    t2 = data["lelong_table2"]["values"]        # metric -> policy -> s
    bandit = data["bandit_table2"]
    columns = bandit["columns"]
    for trace, row in bandit["values"].items():
        if len(row) != len(columns):
            raise InputError(f"policies/published.toml: bandit_table2 {trace}: {len(row)} values "
                             f"for {len(columns)} columns")
    published = {
        "lelong_table1": {(trace, pol): v for pol, row in t1["avg_wait"].items() for trace, v in row.items()},
        "lelong_table2": {(pol, metric): v for metric, row in t2.items() for pol, v in row.items()},
        "thesis_table_4_2": data["thesis_table_4_2"]["values"],
        "bandit_table2": {trace: dict(zip(columns, row)) for trace, row in bandit["values"].items()},
    }
    claims = {key: (t["source"], t["claim"], t["value"]) for key, t in data.items() if "claim" in t}
    return published, claims


#: Values printed in the papers (``published.toml``), keyed by our registry
#: and policy names (lelong2017's EXP is LEXP; the thesis' "SDSC Blue" is
#: SDSC-BLUE): ``lelong_table1`` (trace, policy) -> AvgWait (s),
#: ``lelong_table2`` (policy, metric) -> s on CTC-SP2, ``thesis_table_4_2``
#: policy -> trace -> ratio, ``bandit_table2`` trace -> policy -> %.  And
#: the claims of the papers' text that the study checks, :data:`CLAIMS`:
#: key -> (source, claim, value).
PUBLISHED, CLAIMS = _published()


# ---------------------------------------------------------------- choices --

#: Traces of the papers that are not bundled.
MISSING_TRACES = ("ANL-Intrepid", "UniLu-Gaia")

#: Label mappings tried against online-bandit Table 2: "as printed", and the
#: smallest/largest labels exchanged for some policy families.
SWAPS: dict[str, tuple[tuple[str, str], ...]] = {
    "as printed": (),
    "S/L swapped for P, Q, A": (("SPF", "LPF"), ("SQF", "LQF"), ("SAF", "LAF")),
    "S/L swapped for P, Q, A, R, EXP": (("SPF", "LPF"), ("SQF", "LQF"), ("SAF", "LAF"),
                                        ("SRF", "LRF"), ("SEXP", "LEXP")),
}

#: The traces of the thesis part and of the online-bandit part (the defaults).
DEFAULT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N")
BANDIT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")
#: The policies of thesis chapter 4.
THESIS_POLICIES = ("FCFS", "SPF", "SQF", "SAF")


# ------------------------------------------------------------- parameters --

def _part_traces(value, name: str) -> tuple[TraceInfo, ...]:
    """The traces of one part, read as every study reads ``traces``
    (:func:`schedlab.workloads.traces.trace_tuple`: registry names or SWF paths); an
    empty list (``[]``, ``none``) skips the part."""
    if not isinstance(value, TraceInfo) and not validators.as_list(value, name, none_is_empty=True):
        return ()
    return _traces.trace_tuple(value, name)


def _one_trace(value, name: str) -> TraceInfo | None:
    """One trace (registry name or SWF path, read as ``traces`` is) or None (skips the part)."""
    infos = _part_traces(value, name)
    if len(infos) > 1:
        raise InputError(f"{name}: give one trace (or None), got {[t.name for t in infos]}")
    return infos[0] if infos else None


def _policies(value, name: str) -> tuple[str, ...]:
    return validators.policy_names(value, name, "the baseline every result is relative to")


@dataclass(frozen=True)
class Params(StudyParams):
    """The policies study's parameters.  The defaults are the quick profile:
    the papers' protocols with fewer samples (lelong2017: 100 resampled weeks
    instead of 250; thesis: 3 resampled traces per log instead of 10;
    online-bandit: 3 two-year traces per log instead of 100).  An empty trace
    list (or ``lelong_trace: null``) skips that part."""

    lelong_trace: TraceInfo | None = param("KTH-SP2", check=_one_trace,
                                           help="trace of the lelong2017 pairs (a registry name or SWF path, "
                                                "as traces are; None: no lelong2017 part)")
    lelong_weeks: int = param(100, unit="weeks", check=validators.integer,
                              help="resampled weeks of the lelong2017 pairs (paper: 250)")
    lelong_policies: tuple = param(sim.LELONG_POLICIES, check=_policies,
                                   help="policies of both queues of the lelong2017 pairs (FCFS among them)")
    table_traces: tuple = param(("CTC-SP2", "SDSC-SP2"), check=_part_traces,
                                help="original logs of lelong2017 Tables 1-2 ([]: none)")
    thesis_traces: tuple = param(DEFAULT_TRACES, check=_part_traces,
                                 help="traces of the thesis part (chapter 4; []: none)")
    thesis_samples: int = param(3, check=validators.integer,
                                help="resampled traces per log of the thesis part (thesis: 10)")
    thesis_weeks: int | None = param(None, unit="weeks", check=validators.optional_integer,
                                     help="length of each thesis sample (None: as long as the cleaned log)")
    thesis_policies: tuple = param(THESIS_POLICIES, check=_policies, help="policies of the thesis part")
    thesis_threshold: int | None = param(200000, unit="s", check=validators.duration,
                                         help="waiting-time threshold of the thesis part (2.31 days, thesis "
                                              "§5.8; None: none)")
    bandit_traces: tuple = param(BANDIT_TRACES, check=_part_traces,
                                 help="traces of the online-bandit part (Table 2; []: none)")
    bandit_samples: int = param(3, check=validators.integer,
                                help="resampled traces per log of the online-bandit part (paper: 100)")
    bandit_weeks: int = param(104, unit="weeks", check=validators.integer,
                              help="length of each online-bandit resampled trace (paper: 104, two years)")
    bandit_policies: tuple = param(sim.BANDIT_POLICIES, check=_policies,
                                   help="policies of the online-bandit part (the 12 of its Table 2)")
    extra_policies: tuple = param((), check=validators.policy_specs,
                                  help="your own queue orders, 'expr:<expression>' or names, added to the "
                                       "online-bandit part: EASY(P, Θ) on the same resampled traces, their "
                                       "change of total wait against FCFS with the same intervals (tables "
                                       "bandit_table2, bandit_table2_ci)")
    bandit_reading_samples: int = param(3, check=lambda v, n: validators.integer(v, n, 0),
                                        help="resampled traces (the first ones of the online-bandit part) on "
                                             "which the label-map readings of Table 2 that need new "
                                             "simulations run (policies/readings.py; 0: none; they need all "
                                             "12 policies)")
    bandit_period_traces: tuple | None = param(None, check=lambda v, n: None if v is None else _part_traces(v, n),
                                               help="traces (among bandit_traces) on which the ocst-04-24 readings "
                                                    "of Table 2 run (policies/period.py); None: bandit_traces but "
                                                    "CEA-Curie, whose long queues under the period's time-varying "
                                                    "threshold key (re-sorted at every pass) cost most of the "
                                                    "study's time")
    bandit_threshold: int | None = param(40 * 3600, unit="s", check=validators.duration,
                                         help="Θ of EASY(P, Θ) in the online-bandit part (40h; None: none)")
    seed: int = param(2017, check=lambda v, n: validators.integer(v, n, 0),
                      help="seed of the resampling and of the bootstrap")
    columns: tuple = param((), check=_columns.study_columns,
                           help="per-job columns your policies read as col.NAME: {NAME: a file of 'job id,value' "
                                "lines, or 'module:function' of the cleaned jobs}; they follow the jobs through "
                                "resampling")


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {'lelong_weeks': 3,
 'lelong_policies': ['FCFS', 'SPF'],
 'thesis_samples': 2,
 'thesis_weeks': 3,
 'thesis_policies': ['FCFS', 'SQF'],
 'thesis_threshold': '10h',
 'bandit_samples': 2,
 'bandit_weeks': 3,
 'bandit_policies': ['FCFS', 'LQF'],
 'bandit_threshold': '10h',
 'seed': 3}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("bandit_mapping", "bandit_readings", "bandit_table2", "bandit_table2_ci", "claims",
        "lelong_backfill", "lelong_maxwait", "lelong_pairs", "lelong_table1", "lelong_table2", "lelong_top",
        "lelong_variants", "thesis_backfilled", "thesis_classes", "thesis_gains", "thesis_table42",
        "thesis_variants"),
    figures=("bandit_cumulative", "bandit_dots", "lelong_fig2", "lelong_fig3", "lelong_fig4",
        "thesis_backfilled_dist", "thesis_bsld_classes", "thesis_cumulative", "thesis_delayed_q"),
    datasets=("bandit-{trace}", "lelong", "pairs-{trace}", "period-{trace}", "tables", "thesis-{trace}",
              "thesis-original"),
    feeds={"bandit_table2_ci": "Table 2", "lelong_maxwait": "Table 2", "lelong_table1": "Table 1",
           "lelong_table2": "Table 2", "lelong_variants": ("Table 1", "Table 2"), "thesis_table42": "Table 4.2",
           "thesis_variants": "Table 4.2"})
