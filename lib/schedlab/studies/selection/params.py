"""The parameters of the online-selection study: :class:`Params`,
:func:`validate` and the defaults and choices they read."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import paths, sim, workload
from ... import traces as _traces
from ... import values as check
from ...errors import InputError


STUDY = "selection"
DAY = workload.DAY
WEEK = workload.WEEK

#: The 12 policies of §4.1, in the order used for indices and ties.
POLICIES: tuple[str, ...] = sim.BANDIT_POLICIES
#: Selection strategies of §5 and §6.1.4.
STRATEGIES: tuple[str, ...] = ("full", "noisy", "bandit", "random")
#: Policy periods Δ (§6.1.4), in seconds.
PERIODS: dict[str, int] = {"day": DAY, "week": WEEK}
#: Traces of the paper that the compendium does not bundle.
MISSING_TRACES: tuple[str, ...] = ("ANL-Intrepid", "UniLu-Gaia")
#: The paper's traces that we have (Table 1 order).
DEFAULT_TRACES: tuple[str, ...] = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "CEA-Curie")

#: The strategies as tables and figures name them.
_STRATEGY_LABEL = {"full": "Full", "noisy": "Noisy", "bandit": "Bandit", "random": "Random"}


@dataclass(frozen=True)
class Params:
    """The validated parameters of the study (see :func:`validate`)."""

    traces: tuple[_traces.TraceInfo, ...]
    resamples: int = 100
    weeks: int = 104
    periods: tuple[str, ...] = ("day", "week")
    strategies: tuple[str, ...] = STRATEGIES
    epsilon: float = 0.5
    decay: float = 1.0
    noise: float = 0.15
    threshold: int | None = 40 * 3600
    seed: int = 2017
    workers: int = 2
    scheduler: str | None = None
    outdir: Path = field(default_factory=lambda: paths.RESULTS / STUDY)
    cache_dir: Path = field(default_factory=lambda: paths.RESULTS / "cache")
    profile: str = "custom"

    def as_dict(self) -> dict[str, Any]:
        return {"traces": [t.name for t in self.traces], "resamples": self.resamples,
                "weeks": self.weeks, "periods": list(self.periods), "strategies": list(self.strategies),
                "epsilon": self.epsilon, "decay": self.decay, "noise": self.noise,
                "threshold_s": self.threshold, "seed": self.seed, "workers": self.workers,
                "scheduler": self.scheduler, "outdir": str(self.outdir),
                "cache_dir": str(self.cache_dir), "profile": self.profile}


def validate(traces=DEFAULT_TRACES, resamples=100, weeks=104, periods=("day", "week"),
             strategies=STRATEGIES, epsilon=0.5, decay=1.0, noise=0.15, threshold="40h",
             seed=2017, workers=2, scheduler=None, outdir=None, cache_dir=None,
             profile="custom") -> Params:
    """Check every parameter and say what is wrong, before any computation.

    ``traces``: registry names or SWF paths (the machine size of an
    unregistered file comes from its header); ``resamples``: resampled
    traces per trace (§6.1.4: 100); ``weeks``: their length (two years: 104);
    ``periods``: among ``day``, ``week``; ``strategies``: among ``full``,
    ``noisy``, ``bandit``, ``random``; ``epsilon``: exploration probability
    of the bandit in [0, 1]; ``decay``: λ of Eqs. 4, 7, 8 in [0, 1];
    ``noise``: half-width of the noisy feedback's factor, in [0, 1);
    ``threshold``: Θ (``"40h"``; ``None`` for none); ``seed``: of the
    resampling and of every random choice; ``workers``: local dask workers
    (``scheduler``, or ``$SCHEDLAB_SCHEDULER``, to use an existing
    cluster); ``outdir``: default ``results/selection``.
    """
    infos = check.trace_list(traces)
    threshold_s = check.duration(threshold, "threshold")

    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise InputError(f"scheduler: expected an address such as 'tcp://host:8786' or None, got {scheduler!r}")
    return Params(
        traces=tuple(infos), resamples=check.integer(resamples, "resamples", 1), weeks=check.integer(weeks, "weeks", 1),
        periods=check.choices(periods, "periods", tuple(PERIODS)),
        strategies=check.choices(strategies, "strategies", STRATEGIES),
        epsilon=check.number(epsilon, "epsilon", 0.0, 1.0), decay=check.number(decay, "decay", 0.0, 1.0),
        noise=check.number(noise, "noise", 0.0, 1.0, high_open=True), threshold=threshold_s,
        seed=check.integer(seed, "seed", 0), workers=check.integer(workers, "workers", 1),
        scheduler=scheduler.strip() if isinstance(scheduler, str) else None,
        outdir=check.directory(outdir, "outdir", paths.RESULTS / STUDY),
        cache_dir=check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"), profile=str(profile))
