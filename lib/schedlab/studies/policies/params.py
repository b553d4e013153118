"""The parameters of the policies study (:class:`Params`, :func:`validate`),
the choices it makes once (cleaning per part, the policies of Tables 1-2,
bsld categories, label mappings), and the values of the papers it compares
with (:data:`PUBLISHED`, :data:`CLAIMS`), read from ``published.toml``."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import paths, sim, workload
from ... import traces as _traces
from ... import values as check
from ...errors import InputError
from .. import load_published

STUDY = "policies"
WEEK = workload.WEEK

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

#: Cleaning of the jobs with p > p~, per part of the study.
OVERRUN = {"lelong": "drop", "tables": "drop", "thesis": "kill", "bandit": "kill"}

#: The policy pairs of lelong2017 Tables 1-2 (P_R = P_B).
TABLE_POLICIES = ("FCFS", "SPF", "SQF", "LEXP")

#: The variants of cleaning and estimates tried on Tables 1-2.
TABLE_VARIANTS = {"overrun": ["drop", "kill"], "estimate": ["requested", "actual"]}

#: bsld categories of thesis Fig. 4.3.
BSLD_CLASSES = ("1", "1-10", "10-100", "100+")

#: Number of most-delayed jobs per sample (thesis Fig. 4.2).
TOP = 100

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


# ------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params:
    """The validated parameters of the study (see :func:`validate`)."""

    profile: str = "custom"
    lelong_trace: _traces.TraceInfo | None = None
    lelong_weeks: int = 250
    lelong_policies: tuple[str, ...] = sim.LELONG_POLICIES
    table_traces: tuple[_traces.TraceInfo, ...] = ()
    thesis_traces: tuple[_traces.TraceInfo, ...] = ()
    thesis_samples: int = 10
    thesis_weeks: int | None = None
    thesis_policies: tuple[str, ...] = ("FCFS", "SPF", "SQF", "SAF")
    thesis_threshold: int | None = 200000
    bandit_traces: tuple[_traces.TraceInfo, ...] = ()
    bandit_samples: int = 100
    bandit_weeks: int = 104
    bandit_policies: tuple[str, ...] = sim.BANDIT_POLICIES
    bandit_threshold: int | None = 40 * 3600
    seed: int = 2017
    workers: int = 2
    scheduler: str | None = None
    outdir: Path = field(default_factory=lambda: paths.RESULTS / STUDY)
    cache_dir: Path = field(default_factory=lambda: paths.RESULTS / "cache")

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly view (traces by name)."""
        return check.as_record(self)


def _traces_param(value, name: str) -> tuple[_traces.TraceInfo, ...]:
    items = check.as_list(value, name, none_is_empty=True)
    if isinstance(items, os.PathLike):
        items = [items]
    if not items:
        return ()
    try:
        return tuple(check.trace_list(items))
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None


def _policies_param(value, name: str, default) -> tuple[str, ...]:
    return check.policy_names(default if value is None else value, name,
                              "the baseline every result is relative to")


def validate(profile="custom", lelong_trace="KTH-SP2", lelong_weeks=250, lelong_policies=None,
             table_traces=("CTC-SP2", "SDSC-SP2"), thesis_traces=DEFAULT_TRACES, thesis_samples=10,
             thesis_weeks=None, thesis_policies=None, thesis_threshold=200000,
             bandit_traces=BANDIT_TRACES, bandit_samples=100, bandit_weeks=104, bandit_policies=None,
             bandit_threshold="40h", seed=2017, workers=2, scheduler=None, outdir=None,
             cache_dir=None) -> Params:
    """Check every parameter of the study and return them as :class:`Params`.

    Lists may be given as lists, YAML list text (``"[KTH-SP2, CTC-SP2]"``, what
    ``papermill -p`` passes) or comma-separated strings.  An empty trace list
    (or ``lelong_trace=None``) skips that part.  Raises
    :class:`~schedlab.errors.InputError` naming the parameter at fault.
    """
    if not isinstance(profile, str) or not profile.strip():
        raise InputError(f"profile: expected a name such as 'quick' or 'full', got {profile!r}")
    lel = _traces_param(lelong_trace, "lelong_trace")
    if len(lel) > 1:
        raise InputError(f"lelong_trace: give one trace (or None), got {[t.name for t in lel]}")
    scheduler = None if scheduler in (None, "") else str(scheduler)
    return Params(
        profile=profile.strip(),
        lelong_trace=lel[0] if lel else None,
        lelong_weeks=check.integer(lelong_weeks, "lelong_weeks"),
        lelong_policies=_policies_param(lelong_policies, "lelong_policies", sim.LELONG_POLICIES),
        table_traces=_traces_param(table_traces, "table_traces"),
        thesis_traces=_traces_param(thesis_traces, "thesis_traces"),
        thesis_samples=check.integer(thesis_samples, "thesis_samples"),
        thesis_weeks=check.optional_integer(thesis_weeks, "thesis_weeks"),
        thesis_policies=_policies_param(thesis_policies, "thesis_policies", ("FCFS", "SPF", "SQF", "SAF")),
        thesis_threshold=check.duration(thesis_threshold, "thesis_threshold"),
        bandit_traces=_traces_param(bandit_traces, "bandit_traces"),
        bandit_samples=check.integer(bandit_samples, "bandit_samples"),
        bandit_weeks=check.integer(bandit_weeks, "bandit_weeks"),
        bandit_policies=_policies_param(bandit_policies, "bandit_policies", sim.BANDIT_POLICIES),
        bandit_threshold=check.duration(bandit_threshold, "bandit_threshold"),
        seed=check.integer(seed, "seed", 0),
        workers=check.integer(workers, "workers"),
        scheduler=scheduler,
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"),
    )
