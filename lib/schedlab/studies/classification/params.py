"""Parameters of the classification study: the traces, policies and
variants of thesis ch. 6, the choices its docstring describes (history,
divider window, finish), :class:`Params` and :func:`validate`."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import paths, workload
from ... import traces as _traces
from ... import values as check
from ...errors import InputError

STUDY = "classification"
WEEK = workload.WEEK
DAY = workload.DAY
MONTH = workload.MONTH

MISSING_TRACES = ("MetaCentrum",)
DEFAULT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N")
POLICIES = ("FCFS", "SPF", "SAF", "WFP")
#: Scheduling variants: name -> description.
VARIANTS: dict[str, str] = {
    "base": "EASY-P-P on the requested times (no classes)",
    "classification": "classes from the weekly classifier, small first; false small jobs run to completion",
    "classification-idempotent": "classes from the weekly classifier, small first; a job running as small "
                                 "is killed at the divider of its week and requeued as large",
    "class-clairvoyant": "true classes (p <= divider of the job's week), small first",
    "runtime-clairvoyant": "no classes; the heuristic and the backfilling get the actual duration "
                           "min(p, p~) instead of p~",
    "easy++": "no classes; EASY++ (Tsafrir et al., as gaussier2015 §3 describes it): predictions = mean of "
              "the user's last two completed runtimes, incremental correction of expired predictions, "
              "backfilling in SJBF order; the reference of Table 6.6",
}
#: The variants the thesis' figures compare (easy++ only feeds Table 6.6).
THESIS_VARIANTS = ("base", "classification", "classification-idempotent", "class-clairvoyant",
                   "runtime-clairvoyant")
VARIANT_LABELS = {"base": "base", "classification": "classification",
                  "classification-idempotent": "classif.-idempotent", "class-clairvoyant": "class-clairvoyant",
                  "runtime-clairvoyant": "runtime-clairvoyant", "easy++": "EASY++"}
HISTORIES = ("completed", "previous-weeks")
DIVIDER_WINDOWS = ("all", "week")
FINISHES = ("log", "easy-fcfs")
#: The threshold of thesis §5.8, "used for the rest of our research".
THRESHOLD = 200000


# ------------------------------------------------------------- parameters --

@dataclass(frozen=True)
class Params:
    """The validated parameters of the study (see :func:`validate`)."""

    profile: str = "custom"
    traces: tuple[_traces.TraceInfo, ...] = ()
    weeks: int | None = None
    policies: tuple[str, ...] = POLICIES
    threshold: int | None = THRESHOLD
    trees: int = 100
    max_samples: int | None = None
    seed: int = 2021
    history: str = "completed"
    divider_window: str = "all"
    finish: str = "log"
    workers: int = 2
    scheduler: str | None = None
    outdir: Path = field(default_factory=lambda: paths.RESULTS / STUDY)
    cache_dir: Path = field(default_factory=lambda: paths.RESULTS / "cache")

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly view (traces by name)."""
        return check.as_record(self)

    def classifier_params(self) -> dict[str, Any]:
        """The parameters a classification depends on (cache keys)."""
        return {"weeks": self.weeks, "trees": self.trees, "max_samples": self.max_samples, "seed": self.seed,
                "history": self.history, "divider_window": self.divider_window, "finish": self.finish}


def validate(profile="custom", traces=DEFAULT_TRACES, weeks=None, policies=None, threshold=THRESHOLD,
             trees=100, max_samples=None, seed=2021, history="completed", divider_window="all",
             finish="log", workers=2, scheduler=None, outdir=None, cache_dir=None) -> Params:
    """Check every parameter of the study and return them as :class:`Params`.

    ``traces``: registry names or SWF paths (list, YAML list text or
    comma-separated); ``weeks``: keep only the first N weeks of each trace
    (None: all); ``policies``: queue policies (P_R = P_B), FCFS included;
    ``threshold``: waiting-time threshold (a duration such as 200000,
    "2.31d", or None); ``trees`` / ``max_samples``: the random forest;
    ``history``, ``divider_window``, ``finish``: see the module docstring.
    Raises :class:`~schedlab.errors.InputError` naming the parameter at fault.
    """
    if not isinstance(profile, str) or not profile.strip():
        raise InputError(f"profile: expected a name such as 'quick' or 'full', got {profile!r}")
    items = check.as_list(traces, "traces", none_is_empty=True)
    if not items:
        raise InputError("traces: give at least one trace (registry name or SWF path)")
    try:
        infos = tuple(check.trace_list(items))
    except InputError as exc:
        raise InputError(f"traces: {exc}") from None
    thr = check.duration(threshold, "threshold")
    return Params(
        profile=profile.strip(), traces=infos,
        weeks=check.optional_integer(weeks, "weeks", 2),
        policies=check.policy_names(POLICIES if policies is None else policies, "policies",
                                    "the baseline of Table 6.6"), threshold=thr,
        trees=check.integer(trees, "trees"),
        max_samples=check.optional_integer(max_samples, "max_samples"),
        seed=check.integer(seed, "seed", 0),
        history=check.choice(history, "history", HISTORIES),
        divider_window=check.choice(divider_window, "divider_window", DIVIDER_WINDOWS),
        finish=check.choice(finish, "finish", FINISHES),
        workers=check.integer(workers, "workers"),
        scheduler=None if scheduler in (None, "") else str(scheduler),
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"),
    )
