"""The parameters of the runtime-prediction study: :class:`Params`,
:func:`validate` and the defaults and choices they read."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ... import paths, prediction, workload
from ... import values as check
from ...errors import InputError


STUDY = "prediction"

#: The five bundled logs of gaussier2015 (Table 4 without Metacentrum).
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")
#: Logs of the paper that we do not have.
LACKING: tuple[str, ...] = ("Metacentrum",)
#: Correction mechanisms of gaussier2015 §5.2 (names of ``schedlab.sim``).
CORRECTIONS: tuple[str, ...] = ("requested", "incremental", "doubling")
#: Backfilling orders: FCFS (EASY) and SJBF (EASY-SJBF), the primary queue is FCFS.
BACKFILLS: tuple[str, ...] = ("FCFS", "SJBF")
#: Non-learned estimates: label -> ``estimate=`` of :func:`schedlab.sim.simulate`.
BASE_ESTIMATES: dict[str, str] = {"clairvoyant": "actual", "requested": "requested", "easy++": "easy++"}
LEARNED = "learned:"


def learned_label(loss) -> str:
    return LEARNED + prediction.Loss.parse(loss).name


def estimate_labels(losses: Sequence) -> list[str]:
    """The ``estimate`` labels of the grid: clairvoyant, requested, easy++, learned:<loss>..."""
    return list(BASE_ESTIMATES) + [learned_label(x) for x in losses]


@dataclass(frozen=True)
class Params:
    """Validated parameters of the study (see :func:`validate`)."""

    traces: tuple[str, ...]            # specs the cells load (registry names or absolute paths)
    names: tuple[str, ...]             # the names tables use
    losses: tuple[prediction.Loss, ...]
    corrections: tuple[str, ...]
    backfills: tuple[str, ...]
    weeks: int | None
    skip_weeks: int
    max_jobs: int | None
    eta: float
    lam: float
    overrun: str
    workers: int
    outdir: Path
    cache_dir: Path

    @property
    def estimates(self) -> list[str]:
        return estimate_labels(self.losses)

    def as_dict(self) -> dict[str, Any]:
        return {"traces": list(self.names), "losses": [x.name for x in self.losses],
                "corrections": list(self.corrections), "backfills": list(self.backfills),
                "weeks": self.weeks, "skip_weeks": self.skip_weeks, "max_jobs": self.max_jobs,
                "eta": self.eta, "lam": self.lam, "overrun": self.overrun, "workers": self.workers,
                "outdir": str(self.outdir), "cache_dir": str(self.cache_dir)}


#: Words meaning "no limit" for weeks and max_jobs.
_NONE = ("", "none", "null", "all")


def validate(traces=DEFAULT_TRACES, losses="all", corrections=CORRECTIONS, backfills=BACKFILLS, weeks=None,
             skip_weeks=0, max_jobs=None, eta=prediction.DEFAULT_ETA, lam=prediction.DEFAULT_LAM,
             overrun="kill", workers=2, outdir=None, cache_dir=None) -> Params:
    """Check every parameter; raise :class:`InputError` saying what is wrong.
    Lists may be lists, YAML list text or comma-separated strings.

    * ``traces``: registry names or SWF paths (default: gaussier2015's five bundled logs);
    * ``losses``: ``"all"`` (the 20 of :data:`schedlab.prediction.LOSSES`) or
      names (``"E-Loss"``, ``"sq/lin/log(qp)"``, ...);
    * ``corrections``: some of requested, incremental, doubling;
    * ``backfills``: some of FCFS (EASY), SJBF (EASY-SJBF);
    * ``weeks`` (None: to the end), ``skip_weeks``, ``max_jobs`` (None: all):
      the window of each log simulated -- the jobs submitted from
      ``skip_weeks`` weeks after the first submission, for ``weeks`` weeks, at
      most the first ``max_jobs`` of them;
    * ``eta``, ``lam``: NAG's learning rate (s) and the L2 penalty;
    * ``overrun``: cleaning of jobs with p > p~ (``kill``: kept, killed at p~);
    * ``workers`` (local dask workers), ``outdir`` (None: results/prediction),
      ``cache_dir`` (None: results/cache).
    """
    infos = check.trace_list(traces)
    specs = tuple(i.name if i.registered else str(Path(i.path).resolve()) for i in infos)
    names = tuple(i.name for i in infos)
    if isinstance(losses, str) and losses.strip().lower() == "all":
        ls = prediction.LOSSES
    else:
        items = check.as_list(losses, "losses")
        ls = []
        for i, x in enumerate(items):
            try:
                loss = prediction.Loss.parse(x)
            except InputError as exc:
                raise InputError(f"losses[{i}]: {exc}") from None
            if loss in ls:
                raise InputError(f"losses: {loss.name} is given twice")
            ls.append(loss)
        ls = tuple(ls)
    cs = tuple(check.as_list(corrections, "corrections"))
    if not cs:
        raise InputError(f"corrections: give at least one of {CORRECTIONS}")
    for c in cs:
        if c not in CORRECTIONS:
            raise InputError(f"corrections: {c!r} is not one of {CORRECTIONS}")
    if len(set(cs)) != len(cs):
        raise InputError("corrections: a correction is given twice")
    bs = tuple(str(b).upper() for b in check.as_list(backfills, "backfills"))
    if not bs:
        raise InputError(f"backfills: give at least one of {BACKFILLS}")
    for b in bs:
        if b not in BACKFILLS:
            raise InputError(f"backfills: {b!r} is not one of {BACKFILLS}")
    if len(set(bs)) != len(bs):
        raise InputError("backfills: a backfilling order is given twice")
    if overrun not in workload.OVERRUN_CHOICES:
        raise InputError(f"overrun: expected one of {workload.OVERRUN_CHOICES}, got {overrun!r}")
    return Params(
        traces=specs, names=names, losses=tuple(ls), corrections=cs, backfills=bs,
        weeks=check.optional_integer(weeks, "weeks", 1, none_words=_NONE), skip_weeks=check.integer(skip_weeks, "skip_weeks", 0),
        max_jobs=check.optional_integer(max_jobs, "max_jobs", 1, none_words=_NONE), eta=check.number(eta, "eta", 0.0, low_open=True),
        lam=check.number(lam, "lam", 0.0), overrun=overrun, workers=check.integer(workers, "workers", 1),
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"))
