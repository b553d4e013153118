"""The parameters of the multiple-queue study: :class:`Params` (one
:class:`TraceRef` per trace), :func:`validate` and the defaults and choices
they read."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import paths
from ... import values as check
from ...errors import InputError


STUDY = "multiqueue"
DEFAULT_TRACES = ("KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE")
#: Weeks simulated per trace: Table 2's "# Weeks".
PAPER_WEEKS = {"CTC-SP2": 48, "KTH-SP2": 48, "SDSC-SP2": 104, "SDSC-BLUE": 104}
THRESHOLDS = (2.5, 5.0, 7.5, 10.0, 25.0, 50.0, 75.0, 100.0)
HORIZONS = (1, 2)
PMAX = 4
#: The largest number of partitions the study accepts (pmax).
PMAX_LIMIT = 16
ESTIMATES = {"exact": "actual", "user": "requested"}
REPLAYS = ("oracle", "queued")
TRIGGERS = ("cumulative", "week")
CRITERIA = ("previous", "oracle")

#: Figure 8/9's parameter choices (T, L) for CTC (our reading, see PUBLISHED_NOTES).
FIG8_PARAMS = ((5.0, 1), (5.0, 2), (100.0, 1), (100.0, 2))

#: Part of every campaign cell's parameters, hence of its cache key: bump it
#: whenever the engine's multiple-queue semantics or this module's
#: simulation logic (fixed, online, ratio) change, so that cells computed by
#: an older version are never reused.
SEMANTICS = "lawson2005-lend-1"


@dataclass(frozen=True)
class TraceRef:
    spec: str             # registry name or path (what campaign cells load)
    name: str             # short name (registry name or file stem)
    weeks: int | None     # weeks simulated (None: the whole trace)


@dataclass(frozen=True)
class Params:
    """Validated parameters of :func:`run` (see :func:`validate`)."""

    traces: tuple[TraceRef, ...]
    thresholds: tuple[float, ...]
    horizons: tuple[int, ...]
    pmax: int
    initial: int
    replays: tuple[str, ...]
    trigger: str
    online_estimates: tuple[str, ...]
    fig8_trace: str | None
    fig8_params: tuple[tuple[float, int], ...]
    workers: int
    outdir: Path
    cache_dir: Path

    def as_dict(self) -> dict[str, Any]:
        return {"traces": [t.name for t in self.traces], "weeks": {t.name: t.weeks for t in self.traces},
                "thresholds": list(self.thresholds), "horizons": list(self.horizons), "pmax": self.pmax,
                "initial": self.initial, "replays": list(self.replays), "trigger": self.trigger,
                "online_estimates": list(self.online_estimates), "fig8_trace": self.fig8_trace,
                "fig8_params": [list(x) for x in self.fig8_params], "workers": self.workers,
                "outdir": str(self.outdir), "semantics": SEMANTICS}


def validate(traces=DEFAULT_TRACES, weeks=None, thresholds=THRESHOLDS, horizons=HORIZONS, pmax=PMAX,
             initial=None, replays=REPLAYS, trigger="cumulative", online_estimates=("user",),
             fig8_trace="CTC-SP2", fig8_params=FIG8_PARAMS, workers=2, outdir=None, cache_dir=None) -> Params:
    """Check every parameter of the study (clear errors for the notebook's
    parameters cell) and return :class:`Params`.

    ``weeks``: weeks simulated per trace: None (the paper's for its four
    traces, else the whole trace), one integer for all, or a mapping trace ->
    integer (traces not in it: as None)."""
    items = check.as_list(traces, "traces")
    infos = check.trace_list(items, "traces")
    if weeks is not None and not isinstance(weeks, dict):
        weeks = {str(n).strip(): weeks for n in items}
    refs = []
    for spec, info in zip(items, infos):
        spec = str(spec).strip()
        w = None
        if weeks is not None:
            w = weeks.get(spec, weeks.get(info.name))
        elif info.name in PAPER_WEEKS:
            w = PAPER_WEEKS[info.name]
        if w is not None:
            w = check.integer(w, f"weeks of {info.name}", 1)
        refs.append(TraceRef(spec, info.name, w))
    seen = {r.name for r in refs}
    ths = sorted({check.number(t, "thresholds", 1.0) for t in check.as_list(thresholds, "thresholds")})
    if not ths:
        raise InputError("thresholds: give at least one threshold T (a bounded slowdown >= 1)")
    hors = sorted({check.integer(h, "horizons", 1) for h in check.as_list(horizons, "horizons")})
    if not hors:
        raise InputError("horizons: give at least one horizon L (weeks >= 1)")
    pmax = check.integer(pmax, "pmax", 1)
    if pmax > PMAX_LIMIT:
        raise InputError(f"pmax: expected an integer between 1 and {PMAX_LIMIT}, got {pmax!r}")
    initial = pmax if initial is None else check.integer(initial, "initial", 1)
    if initial > pmax:
        raise InputError(f"initial: expected an integer between 1 and pmax = {pmax}, got {initial!r}")
    ests = [check.choice(e, "online_estimates", tuple(ESTIMATES))
            for e in check.as_list(online_estimates, "online_estimates")]
    reps = [check.choice(r, "replays", REPLAYS) for r in check.as_list(replays, "replays")]
    if not ests or not reps:
        raise InputError("online_estimates and replays need at least one value each")
    if fig8_trace is not None and fig8_trace not in seen:
        fig8_trace = None                   # e.g. the notebook on a user's own trace
    f8 = tuple((float(t), check.integer(h, "fig8_params horizon", 1)) for t, h in
               (_pair(x) for x in check.as_list(fig8_params, "fig8_params")))
    if not f8:
        raise InputError("fig8_params: give at least one (T, L) pair, e.g. [[5, 1], [5, 2]]")
    return Params(tuple(refs), tuple(ths), tuple(hors), pmax, initial, tuple(dict.fromkeys(reps)),
                  check.choice(trigger, "trigger", TRIGGERS), tuple(dict.fromkeys(ests)), fig8_trace, f8,
                  check.integer(workers, "workers", 1), validate_outdir(outdir),
                  check.directory(cache_dir, "cache_dir", paths.RESULTS / "cache"))


def _pair(x) -> tuple:
    if isinstance(x, str) and "/" in x:
        x = x.split("/")
    x = list(x)
    if len(x) != 2:
        raise InputError(f"fig8_params: expected (T, L) pairs, got {x!r}")
    return float(x[0]), x[1]


def validate_outdir(outdir) -> Path:
    """``None`` -> ``results/multiqueue``; otherwise the directory, made absolute."""
    return check.directory(outdir, "outdir", paths.RESULTS / STUDY)


def _criteria_for(estimate: str, criteria: str) -> str:
    """The paper's pairing: exact estimates with a priori criteria, user
    estimates with Figure 3's (previous week)."""
    if criteria == "paper":
        return "oracle" if estimate == "exact" else "previous"
    return check.choice(criteria, "criteria", CRITERIA)
