"""The advisor's campaign cell: one candidate configuration on the resampled
weeks of one half of a log (the weeks of the thresholds study's train/test
protocol, :func:`schedlab.campaigns.cells.workload_for`), with the waits the
summary metrics do not give (the worst 1 %).

A candidate is named by a label, so that it can be a campaign dimension:

* ``EASY-SPF-FCFS`` or ``EASY-SPF-FCFS/T=20h``: EASY-P_R-P_B with a
  waiting-time threshold on the primary queue (lelong2017 §6-7);
* ``EASY-FCFS-SJBF/est=easy++/corr=incremental``: gaussier2015's triple,
  a runtime estimate (``requested``, ``easy++``, ``learned``: E-Loss), its
  correction when a job outlives it, and the backfilling order;
* ``EASY-MIXED/w=0.2,0.3,0.5/T=200000s``: thesis ch. 5's mixed linear
  policy (q, p~, r weights, the mixed study's
  :func:`~schedlab.studies.mixed.cells.mixed_policy`, ordering both queues),
  its features scaled by the means over the training half; the weights are
  learned on the training weeks by :func:`mixed_grid_cell` (thesis §5.5.2's
  w*_train on the mixed study's lattice);
* ``EASY-SPF-SPF/T=200000s/classes=learned``: thesis ch. 6's small-first
  queues: each job's class (small or large) predicted by the
  classification study's weekly classifier, trained only on the weeks
  before the job's (its campaign, :func:`~schedlab.studies.classification.
  cells.campaigns_classify`); the classes travel with the jobs into the
  resampled weeks (by their line in the log), passed packed as ``classes``;
* ``expr:<expression>`` or ``expr:<expression>|T=20h``: your own queue order,
  a policy expression (:mod:`schedlab.expr`) ordering both queues, with an
  optional threshold after ``|`` (the expression may hold ``/`` and ``-``);
* ``bandit/period=day``: online-bandit's epsilon-greedy choice among its 12
  policies, period by period, with the selection study's mechanics
  (:func:`schedlab.studies.selection.cells.run_strategy`) and parameters
  (``eps``, ``decay``, ``T``: its defaults unless the label says otherwise).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import functools

from ...campaigns.cells import TraceInputs, cell, workload_for
from ...science import optim
from ...workloads import workload
from ...engine import metrics, sim
from ...declared import REQUIRED, CellInputs, duration, integer, one_of, param, text
from ...errors import InputError
# the studies' cells modules, not their packages: a cell's cache key follows the code it imports, and
# a figure of the mixed study must not invalidate the advisor's cells
from ...studies.mixed import cells as mixed_study
from ...studies.selection import cells as selection_study

#: what each cell records, per week
METRICS = ("avg_wait", "max_wait", "mean_bsld", "mean_ppbsld", "p99_wait", "top1_wait", "jobs")

@dataclass(frozen=True)
class CandidateInputs(CellInputs):
    """The candidate cell's inputs."""

    trace: str = TraceInputs.field("trace")
    overrun: str = param("drop", help="what cleaning does with jobs that overran their request",
                         check=one_of(*workload.OVERRUN_CHOICES))
    weeks: int = param(30, help="resampled weeks", unit="weeks", check=integer(1))
    seed: int = param(0, help="the resampling's seed", check=integer(0))
    half: str = param("test", help="the half of the log resampled", check=one_of("train", "test", "all"))
    candidate: str = param(REQUIRED, help="the candidate's label (see parse)", check=text)
    classes: object = param(None, help="the predicted classes (pack_classes), for a class-aware candidate")


#: The candidate cell's parameters and their defaults.
CELL_PARAMS = CandidateInputs.defaults()

#: online-bandit's defaults (the selection study's): threshold Θ, epsilon, decay
BANDIT = {"T": 40 * 3600, "eps": 0.5, "decay": 1.0, "period": "day"}
ESTIMATES = ("requested", "easy++", "learned")
CORRECTIONS = ("none", "requested", "incremental", "doubling")


@dataclass(frozen=True)
class Candidate:
    """A configuration read from its label (see the module's docstring)."""

    label: str
    kind: str                   # "easy" or "bandit"
    primary: str = "FCFS"
    backfill: str = "FCFS"
    threshold: int | None = None
    estimate: str = "requested"
    correction: str = "none"
    options: tuple = ()
    weights: tuple = ()
    classes: bool = False

    @property
    def backfill_same(self) -> bool:
        return self.kind == "mixed"

    @property
    def family(self) -> str:
        if self.primary.startswith("expr:"):
            return "your policy (expression)"
        if self.primary.startswith(sim.PYTHON_PREFIX):
            return "your policy (Python)"
        if self.kind == "bandit":
            return "online selection (online-bandit)"
        if self.kind == "mixed":
            return "mixed linear policy (thesis ch. 5)"
        if self.classes:
            return "small-first classification (thesis ch. 6)"
        if self.estimate != "requested":
            return "runtime prediction (gaussier2015)"
        return "queue orders and threshold (lelong2017)"


def parse(label: str) -> Candidate:
    """The :class:`Candidate` of a label; a bad label raises
    :class:`~schedlab.errors.InputError` naming the part."""
    text = str(label).strip()
    if text[:5].lower() == "expr:" or text.startswith(sim.PYTHON_PREFIX):
        body, *rest = text.split("|")
        opts = {}
        for part in rest:
            key, eq, value = part.strip().partition("=")
            if key.strip() != "T" or not eq or not value.strip():
                raise InputError(f"candidate {text!r}: after '|' only T=<duration>, got {part!r}")
            opts["T"] = value.strip()
        if text.startswith(sim.PYTHON_PREFIX):          # a KeyFunction named by where it lives
            e = body.strip()
            sim.python_key_function(e)                  # importable and a key function, checked here
        else:
            e = str(sim.Expr(body))                     # the whitelist parser: never evaluated
        threshold = sim.parse_duration(opts["T"]) if "T" in opts else None
        canon = e if threshold is None else f"{e}|T={sim.format_duration(threshold)}"
        return Candidate(canon, "easy", e, e, threshold)
    head, *rest = text.split("/")
    opts = {}
    for part in rest:
        key, eq, value = part.partition("=")
        if not eq or not value:
            raise InputError(f"candidate {text!r}: {part!r} is not key=value")
        opts[key] = value
    if head == "bandit":
        bad = set(opts) - set(BANDIT)
        if bad:
            raise InputError(f"candidate {text!r}: unknown option(s) {sorted(bad)}; known: {sorted(BANDIT)}")
        q = {**BANDIT, **opts}
        if q["period"] not in selection_study.PERIODS:
            raise InputError(f"candidate {text!r}: period must be one of {list(selection_study.PERIODS)}")
        return Candidate(text, "bandit", threshold=sim.parse_duration(q["T"]) if isinstance(q["T"], str) else q["T"],
                         options=(("eps", float(q["eps"])), ("decay", float(q["decay"])), ("period", q["period"])))
    if head == "EASY-MIXED":
        bad = set(opts) - {"w", "T"}
        if bad or "w" not in opts:
            raise InputError(f"candidate {text!r}: EASY-MIXED takes w=a,b,c (and T=..), got {sorted(opts)}")
        try:
            w = tuple(float(x) for x in opts["w"].split(","))
        except ValueError:
            raise InputError(f"candidate {text!r}: w must be numbers separated by commas") from None
        sim.Mixed(w)                                    # the engine's own check of the weights
        threshold = sim.parse_duration(opts["T"]) if "T" in opts else None
        return Candidate(text, "mixed", "MIXED", "MIXED", threshold, weights=w)
    parts = head.split("-")
    if len(parts) != 3 or parts[0] != "EASY":
        raise InputError(f"candidate {text!r}: expected EASY-<primary>-<backfill>[/T=..][/est=..][/corr=..] "
                         f"or bandit[/period=..]")
    bad = set(opts) - {"T", "est", "corr", "classes"}
    if bad:
        raise InputError(f"candidate {text!r}: unknown option(s) {sorted(bad)}; known: T, est, corr, classes")
    if opts.get("classes", "learned") != "learned":
        raise InputError(f"candidate {text!r}: classes must be 'learned'")
    est, corr = opts.get("est", "requested"), opts.get("corr", "none")
    if est not in ESTIMATES:
        raise InputError(f"candidate {text!r}: est must be one of {ESTIMATES}")
    if corr not in CORRECTIONS:
        raise InputError(f"candidate {text!r}: corr must be one of {CORRECTIONS}")
    threshold = sim.parse_duration(opts["T"]) if "T" in opts else None
    sim.Policy(parts[1], parts[2], threshold)          # the engine's own check of the names
    return Candidate(text, "easy", parts[1], parts[2], threshold, est, corr, classes="classes" in opts)


def pair_label(primary: str, backfill: str, threshold: int | None) -> str:
    """The label of EASY-P_R-P_B at a threshold (none: no ``/T``)."""
    base = f"EASY-{primary}-{backfill}"
    return base if threshold is None else f"{base}/T={sim.format_duration(threshold)}"


def mixed_label(weights, threshold: int | None) -> str:
    """The label of the mixed policy with these weights (both queues)."""
    w = ",".join(f"{float(x):g}" for x in weights)
    return f"EASY-MIXED/w={w}" + ("" if threshold is None else f"/T={sim.format_duration(threshold)}")


@functools.lru_cache(maxsize=8)
def training_scales(trace: str, overrun: str) -> tuple[float, ...]:
    """The mixed policy's feature scales: the means over the training half
    of the cleaned log (:func:`schedlab.engine.sim.default_scales`), so that a
    weight vector is one policy in every resampled week."""
    from ...workloads import traces

    jobs = traces.cleaned(trace, overrun=overrun).jobs
    return sim.default_scales(workload.split(jobs)[0])


def _log_lines(trace: str, overrun: str) -> np.ndarray:
    """The log lines of the cleaned jobs (what resampled weeks keep)."""
    from ...workloads import traces

    lines = traces.cleaned(trace, overrun=overrun).jobs.lines
    if lines is None:
        raise InputError(f"{trace}: the jobs carry no log lines; classes cannot follow them")
    return np.asarray(lines)


def week_classes(jobs: sim.Jobs, small_lines: np.ndarray) -> np.ndarray:
    """1 for the jobs of a (resampled) week whose log line is classified small."""
    if jobs.lines is None:
        raise InputError("resampled jobs carry no log lines; classes cannot follow them")
    return np.isin(np.asarray(jobs.lines), small_lines).astype(np.uint8)


def _run(c: Candidate, jobs: sim.Jobs, m: int, seed: tuple, scales=None, small_lines=None) -> sim.Schedule:
    if c.kind == "bandit":
        o = dict(c.options)
        edges = selection_study.period_edges(7 * 86400 // selection_study.PERIODS[o["period"]],
                                             selection_study.PERIODS[o["period"]])
        rng = np.random.default_rng(list(seed))
        return selection_study.run_strategy("bandit", jobs, m, edges, threshold=c.threshold, epsilon=o["eps"],
                                            decay=o["decay"], rng=rng).schedule
    if c.kind == "mixed":
        pol = mixed_study.mixed_policy(c.weights, scales)
        return sim.simulate(jobs, m, sim.Policy(pol, pol, c.threshold))
    est = sim.Learned() if c.estimate == "learned" else c.estimate
    classes = None
    if c.classes:
        if small_lines is None:
            raise InputError(f"candidate {c.label}: needs the packed 'classes' of the log's jobs")
        classes = week_classes(jobs, small_lines)
    return sim.simulate(jobs, m, sim.Policy(c.primary, c.backfill, c.threshold), estimate=est,
                        correction=c.correction, classes=classes)


def week_metrics(s: sim.Schedule) -> dict[str, float]:
    """The summary metrics of one simulated week, and its worst waits: the
    99th percentile (``p99_wait``) and the mean of the worst 1 % of the
    waits, at least one job (``top1_wait``)."""
    out = {k: float(v) for k, v in metrics.summary(s).items() if k in METRICS}
    w = np.sort(metrics.wait(s)[s.start >= 0].astype(np.float64))
    if w.size:
        out["p99_wait"] = float(np.percentile(w, 99))
        out["top1_wait"] = float(w[-max(1, int(np.ceil(0.01 * w.size))):].mean())
    else:
        out["p99_wait"] = out["top1_wait"] = float("nan")
    return out


@cell("advise-candidate", CandidateInputs)
def candidate_cell(q: CandidateInputs) -> dict:
    """Campaign cell: one candidate (a label, see :func:`parse`) on the
    ``weeks`` resampled weeks (seed ``seed``) of the ``half`` of ``trace``
    -- the thresholds study's weeks, each simulated on its own.  Returns
    :data:`METRICS` over ``week``."""
    c = parse(q["candidate"])
    sets, m = workload_for(str(q["trace"]), None, q["overrun"], "resample", int(q["weeks"]),
                           int(q["seed"]), str(q["half"]))
    out = {k: np.full(len(sets), np.nan) for k in METRICS}
    half = ("train", "test", "all").index(str(q["half"]))
    scales = training_scales(str(q["trace"]), q["overrun"]) if c.kind == "mixed" else None
    small = None
    if q["classes"] is not None:
        from ...studies.classification.cells import unpack_classes

        lines = _log_lines(str(q["trace"]), q["overrun"])
        bits = unpack_classes(q["classes"])
        if bits.size != lines.size:
            raise InputError(f"advise cell: {bits.size} classes for the {lines.size} jobs of {q['trace']}")
        small = lines[bits.astype(bool)]
    for i, jobs in enumerate(sets):
        if len(jobs) == 0:
            out["jobs"][i] = 0
            continue
        for k, v in week_metrics(_run(c, jobs, m, (int(q["seed"]), half, i), scales, small)).items():
            out[k][i] = v
    return {k: (("week",), v) for k, v in out.items()}


@dataclass(frozen=True)
class GridInputs(CellInputs):
    """The mixed-grid cell's inputs."""

    trace: str = TraceInputs.field("trace")
    overrun: str = CandidateInputs.field("overrun")
    weeks: int = CandidateInputs.field("weeks")
    seed: int = CandidateInputs.field("seed")
    week: int = param(REQUIRED, help="the training week (0-based)", check=integer(0))
    resolution: int = param(5, help="the lattice's resolution", check=integer(1))
    threshold: int | None = param(mixed_study.THRESHOLD, help="the waiting-time threshold (None: none)", unit="s",
                                check=duration)


#: The mixed-grid cell's parameters and their defaults.
GRID_PARAMS = GridInputs.defaults()
GRID_METRICS = ("avg_wait", "max_wait", "mean_bsld", "mean_ppbsld")


@cell("advise-mixed-grid", GridInputs)
def mixed_grid_cell(q: GridInputs) -> dict:
    """Campaign cell: every point of the mixed study's lattice
    (:func:`schedlab.science.optim.l1_lattice` with 3 features, ``resolution``) on
    training week ``week``: :data:`GRID_METRICS` over ``point``."""
    sets, m = workload_for(str(q["trace"]), None, q["overrun"], "resample", int(q["weeks"]),
                           int(q["seed"]), "train")
    jobs = sets[int(q["week"])]
    points = optim.l1_lattice(3, int(q["resolution"]))
    out = {k: np.full(len(points), np.nan) for k in GRID_METRICS}
    if len(jobs):
        scales = training_scales(str(q["trace"]), q["overrun"])
        thr = q["threshold"]
        # Every point in one call of the core (sim.simulate_mixed_many: the
        # schedule sim.simulate gives each, points with the same decisions
        # sharing one simulation); each distinct schedule summarised once.
        def got(vectors, schedule):
            summ = metrics.summary(schedule)
            for k in GRID_METRICS:
                out[k][vectors] = summ[k]

        sim.simulate_mixed_many(jobs, m, points, tuple(scales), threshold=thr, on_schedule=got)
    return {k: (("point",), v) for k, v in out.items()}
