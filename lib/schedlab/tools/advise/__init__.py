"""``schedlab advise``: which EASY configuration should this machine run,
how much would it gain on weeks it was not tuned on, and at what risk.

:func:`advise` answers a system administrator's question about one log with
the studies' own protocol and code, never a copy of them:

* **the weeks**: the log is cleaned as the thresholds study cleans it
  (lelong2017 §7.2: jobs overrunning their request dropped), split at its
  temporal midpoint, and ``weeks`` weeks are resampled from each half
  (lelong2017 §7.1, the thresholds study's campaigns,
  :func:`schedlab.studies.thresholds.cells.traintest_campaigns`): the
  earlier half to learn on, the later half held out;
* **the candidates**, all simulated on the same weeks: the 49 EASY-P_R-P_B
  pairs of lelong2017, without threshold and with the threshold T (20 h),
  exactly the thresholds study's grid (its cache is shared); gaussier2015's
  prediction/correction/ordering triples (EASY++ estimates, E-Loss learned
  estimates, incremental correction, SJBF backfilling); online-bandit's
  epsilon-greedy online selection (it needs no offline tuning: it learns
  inside each held-out week), with the selection study's mechanics; thesis
  ch. 5's mixed linear policy, its weights learned on the training weeks
  on the mixed study's lattice; thesis ch. 6's small-first queues, the
  classes predicted by the classification study's weekly classifier (its
  campaign), when the log has two weeks or more;
* **the choice**: the lowest mean objective on the training weeks (the
  thresholds study's :func:`~schedlab.studies.thresholds.analysis.select`),
  within the accepted MaxWait risk; its gain on the held-out weeks with the
  study's paired bootstrap interval; recommended only when that interval
  lies above 0, otherwise "keep EASY-FCFS-FCFS";
* **the report**: ``report.html`` (one self-contained page: the answer
  first, then its stability, operator terms, limits and the evidence) beside
  ``tables/``, ``figures/``, ``numbers.json``; ``schedlab advise`` also
  writes the executed notebook ``advise.ipynb`` and its HTML.

The consistency with the thresholds study is by construction (its campaigns
and its :func:`~schedlab.studies.thresholds.analysis.generalisation` give
the table "the thresholds study on this log"), and tested.
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ... import paths
from ...engine import sim
from ... import validators
from ...errors import InputError
from ...protocol.study import Params, param, relpath, validate
from .analysis import BASELINE, OBJECTIVES, Decision, decide
from .cells import pair_label, parse

__all__ = ["advise", "Settings", "Advice", "FORMATS", "OBJECTIVES", "BASELINE", "default_outdir"]

FORMATS = ("swf", "sacct", "sacct-json", "batsim")
#: gaussier2015's triples and online-bandit's selection, besides the pairs
EXTRA_CANDIDATES = ("EASY-FCFS-SJBF/est=easy++/corr=incremental", "EASY-FCFS-SJBF/est=learned/corr=incremental",
                    "bandit/period=day")
#: candidates kept for the worst-waits table: the learned one, its runners-up, the baseline
N_DETAIL = 4


def _risk(v, name):
    if v is None or (isinstance(v, str) and v.strip().lower() in ("none", "")):
        return None
    return validators.number(v, name, 1.0)


def _machine(v, name):
    """The one machine-size parser (schedlab.workloads.workload.machine_size), naming the setting."""
    from ...workloads.workload import machine_size
    try:
        return machine_size(v)
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None


def _flag(v, name):
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "yes", "1", "false", "no", "0"):
        return v.strip().lower() in ("true", "yes", "1")
    raise InputError(f"{name}: expected true or false, got {v!r}")


def _candidates(v, name):
    if isinstance(v, str):
        v = [v]
    out = []
    for x in v or ():
        try:
            out.append(parse(x).label)
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
    return tuple(out)


@dataclass(frozen=True)
class Settings(Params):
    """What :func:`advise` does (defaults: the thresholds study's quick profile)."""

    log: str = param("", help="the log: an SWF file, a registry name or a trace spec PATH?request=..&m=.., or a "
                              "site accounting file with format")
    format: str = param("swf", check=lambda v, n: validators.choice(v, n, FORMATS),
                        help="the log's format: swf, or sacct / sacct-json / batsim (imported first)")
    m: int | None = param(None, unit="processors", check=lambda v, n: None if v is None else _machine(v, n),
                          help="machine size (None: the spec's, the registry's, the header's or the log's peak)")
    objective: str = param("avgwait", check=lambda v, n: validators.choice(v, n, tuple(OBJECTIVES)),
                           help="what to minimise: avgwait, bsld (mean bounded slowdown) or ppbsld (per processor)")
    max_wait_risk: float | None = param(None, check=_risk,
                                        help="largest accepted ratio of the mean weekly MaxWait to EASY-FCFS-FCFS's "
                                             "(e.g. 1.5; None: not constrained, reported)")
    weeks: int = param(30, unit="weeks", check=lambda v, n: validators.integer(v, n, 2),
                       help="resampled weeks per half (the thresholds study's quick profile: 30; the papers: 250)")
    seed: int = param(2017, check=lambda v, n: validators.integer(v, n, 0), help="seed of the resampled weeks")
    threshold: int = param("20h", unit="s", check=lambda v, n: validators.duration(v, n),
                           help="the waiting-time threshold T of the thresholded pairs (lelong2017: 20h)")
    policies: tuple = param(sim.LELONG_POLICIES, check=validators.policy_names,
                            help="policies of both queues (the pairs are their product)")
    extra: tuple = param(EXTRA_CANDIDATES, check=_candidates,
                         help="candidates besides the pairs (labels: see schedlab.tools.advise.cells)")
    classification: bool = param(True, check=lambda v, n: _flag(v, n),
                                 help="small-first candidates with the classification study's weekly classifier "
                                      "(when the log has 2 weeks or more)")
    mixed_resolution: int = param(5, check=lambda v, n: validators.integer(v, n, 0),
                                  help="lattice resolution of the mixed policy's weights learned on the training "
                                       "weeks (thesis §5.5.2; 4n^2+2 points; 0: no mixed candidate)")


@dataclass
class Advice:
    """What :func:`advise` found and wrote."""

    decision: Decision
    settings: Settings
    trace: str                      # the trace spec simulated
    outdir: Path
    report: Path
    numbers: dict
    consistency: dict               # the thresholds study's generalisation on the same weeks
    detail: dict                    # name -> test-week worst waits
    seconds: float
    files: list = dataclasses.field(default_factory=list)

    @property
    def recommended(self) -> str:
        return self.decision.recommended

    def first_screen(self) -> str:
        from .page import first_screen
        return first_screen(self)


def default_outdir(log: str) -> Path:
    """``results/advise/<the log's name>/``."""
    from ...protocol.study import own_label
    from ...workloads.traces import resolve

    return paths.RESULTS / "advise" / own_label([resolve(log)])


def _entry():
    from ...studies.registry import Entry

    return Entry("advise", 10, "advise", "Which configuration for this machine?",
                 "train on the earlier weeks, test on the later ones, against EASY-FCFS-FCFS",
                 "lelong2017 §7, gaussier2015, online-bandit, thesis ch. 5-6")


def _import(s: Settings, outdir: Path, log: Callable) -> str:
    """The SWF spec of the log (a site accounting file imported first)."""
    if s.format == "swf":
        return s.log
    from ...workloads import importers

    src = Path(s.log.partition("?")[0])
    query = s.log.partition("?")[2]
    out = outdir / f"{src.name.split('.')[0]}.swf"
    result = importers.write(src, out, s.format, max_procs=s.m)
    log(f"imported {src} ({s.format}): {result.n} jobs -> {relpath(out)}")
    for line in str(result.report).splitlines():
        log(f"  {line}")
    return f"{out}?{query}" if query else str(out)


def _with_m(spec: str, m: int | None) -> str:
    if m is None:
        return spec
    base, _, query = spec.partition("?")
    kept = [kv for kv in query.split("&") if kv and not kv.startswith("m=")]
    return f"{base}?{'&'.join(kept + [f'm={m}'])}"


def advise(log, format: str = "swf", m: int | None = None, objective: str = "avgwait",
           max_wait_risk: float | None = None, *, out=None, scheduler: str | None = None,
           workers: int | None = None, cache_dir=None, progress: bool | None = None,
           echo: Callable[[str], None] | None = print, **more) -> Advice:
    """Advise on ``log`` (see the module's docstring); ``more``: the other
    :class:`Settings` (``weeks``, ``seed``, ``threshold``, ``policies``,
    ``extra``).  Writes into ``out`` (default ``results/advise/<log>/``),
    runs its campaigns on a local cluster of ``workers`` (all cores) or on
    ``scheduler`` (a site cluster), cached in ``cache_dir``
    (``results/cache``, shared with the studies)."""
    import sys

    from ...workloads import traces
    from ...studies.thresholds import Params as ThresholdsParams
    from ...studies.thresholds import generalisation, traintest_campaigns, traintest_dataset
    from ...protocol.study import Context
    from . import page

    t0 = time.perf_counter()
    s = validate(Settings, {"log": os.fspath(log), "format": format, "m": m, "objective": objective,
                            "max_wait_risk": max_wait_risk, **more}, source="advise")
    if not s.log:
        raise InputError("advise: give a log")
    workers = _how_it_runs(workers, cache_dir)
    outdir = Path(out) if out is not None else None
    if outdir is None:
        outdir = default_outdir(s.log.partition("?")[0] if s.format != "swf" else s.log) \
            if s.format == "swf" else paths.RESULTS / "advise" / Path(s.log.partition("?")[0]).name.split(".")[0]
    if progress is None:
        progress = "ipykernel" in sys.modules or sys.stderr.isatty()
    ctx = Context(_entry(), "custom", outdir, workers=int(workers or os.cpu_count() or 1), scheduler=scheduler,
                  cache_dir=Path(cache_dir) if cache_dir is not None else paths.RESULTS / "cache", log=echo,
                  progress=progress)
    try:
        spec = _with_m(_import(s, outdir, ctx.log), s.m)
        info, cleaned = _read_log(spec)
        ctx.log(f"advise on {info.name}: outputs in {relpath(outdir)}")
        rep = cleaned.report
        ctx.log(f"cleaning {info.name}: {rep.jobs_out} of {rep.jobs_in} jobs kept "
                f"({100 * rep.removed_share:.1f} % removed); m = {rep.m}; "
                + ", ".join(f"{k} {v}" for k, v in rep.choices.items()))
        for w in rep.warnings:
            ctx.log(f"WARNING {info.name}: {w}")
        weeks_in_log = _log_weeks(cleaned.jobs)
        few = page.too_few_weeks(weeks_in_log[1], weeks_in_log[2])
        if few:
            ctx.log(f"WARNING {info.name}: {few}")
        tp = validate(ThresholdsParams, {"traces": [spec], "sweep_traces": [], "weeks": s.weeks, "seed": s.seed,
                                         "threshold": s.threshold, "policies": list(s.policies), "fig5_trace": None,
                                         "thesis_traces": [], "overrun": "drop", "criterion": "mean"},
                      source="advise (the thresholds study's parameters)")
        ref = tp.traces[0]
        ths = [None, s.threshold]
        # -- the thresholds study's train/test grid, as it runs it
        camps = traintest_campaigns(tp, ref, ths)
        if s.objective == "ppbsld":
            for c in camps:
                c.metrics = list(c.metrics) + ["mean_ppbsld"]
        with ctx.timer("pairs"):
            ds = traintest_dataset([ctx.campaign(c) for c in camps], tp.policies, ths)
        consistency = generalisation(ds, "mean", s.seed)
        # -- the other candidates, on the same weeks
        from ...campaigns.spec import Campaign

        base = {"trace": traces.text(ref), "overrun": "drop", "weeks": s.weeks, "seed": s.seed}
        others = list(s.extra)
        if s.mixed_resolution:
            with ctx.timer("mixed weights"):
                others.append(_learn_mixed(ctx, info, base, s))
        extra = None
        if others:
            with ctx.timer("other candidates"):
                extra = ctx.campaign(Campaign(
                    f"advise-{_slug(info.name)}", {"half": ["train", "test"], "candidate": others}, base,
                    cell="schedlab.tools.advise.cells:candidate_cell"))
        classes, packed = _classes_campaign(ctx, info, spec, base, s) if s.classification else (None, None)
        names, families, train, test = _arrays(ds, [x for x in (extra, classes) if x is not None], s)
        decision = decide(names, families, train, test, s.objective, s.max_wait_risk, s.seed)
        # -- the worst waits of the learned candidate, its runners-up and the baseline, held-out weeks
        keep = [r.name for r in decision.rows if r.allowed][:N_DETAIL]
        keep = list(dict.fromkeys([decision.learned, *keep, BASELINE]))
        detail = {}
        with ctx.timer("worst waits"):
            for group, extra_params, prefix in (([c for c in keep if not parse(c).classes], {}, "advise"),
                                                ([c for c in keep if parse(c).classes], {"classes": packed},
                                                 "advise-classes")):
                if not group:
                    continue
                det = ctx.campaign(Campaign(
                    f"{prefix}-{_slug(info.name)}", {"candidate": group}, {**base, **extra_params, "half": "test"},
                    cell="schedlab.tools.advise.cells:candidate_cell"))
                detail.update({str(c): {k: det[k].sel(candidate=c).values for k in det.data_vars}
                               for c in det.candidate.values})
        detail = {c: detail[c] for c in keep}
        adv = Advice(decision, s, spec, outdir, outdir / "report.html", {}, consistency, detail,
                     time.perf_counter() - t0)
        adv.numbers = page.numbers(adv, weeks_in_log, rep.record(), info)
        page.outputs(adv, ctx, train, test, names)
        adv.numbers["timing"] = {**ctx.timing, "wall_s": round(time.perf_counter() - t0, 1),
                                 "cells_computed": ctx.runner.computed, "cells_cached": ctx.runner.cached}
        adv.numbers["first_screen"] = adv.first_screen()
        ctx.json("numbers.json", adv.numbers)
        adv.seconds = time.perf_counter() - t0
        adv.files = ctx.files
        page.write(adv)
        ctx.log(f"advise done in {adv.seconds:.1f} s ({ctx.runner.computed} cells computed, "
                f"{ctx.runner.cached} from the cache): {page.headline(adv)}")
        ctx.log(f"wrote {relpath(adv.report)}")
        return adv
    finally:
        ctx.close()


def _how_it_runs(workers, cache_dir) -> int | None:
    """Refuse at once what would hang or fail late: a worker count below 1
    (a local cluster of none waits forever for a worker), a cache that is a
    file.  Returns the worker count (None: all cores)."""
    if workers is not None:
        workers = validators.integer(workers, "workers", 1)
    if cache_dir is not None:
        validators.directory(cache_dir, "cache", paths.RESULTS / "cache")
    return workers


def _read_log(spec: str):
    """The log's :class:`TraceInfo` and its cleaning as the advisor cleans it,
    refused in one line when nothing can be advised on it (too few jobs,
    every job submitted at one instant)."""
    import warnings

    from ...workloads import traces

    info = traces.resolve(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the cleaning's warnings: logged once, by the caller
        cleaned = traces.cleaned(spec, overrun="drop")
    if len(cleaned.jobs) < 2:
        raise InputError(f"{info.name}: {len(cleaned.jobs)} job(s) left after cleaning; nothing to advise on")
    _enough_time(info.name, cleaned.jobs)
    return info, cleaned


def preflight(log, *, format: str = "swf", m=None, workers=None, cache_dir=None, **more) -> None:
    """Every check :func:`advise` makes before its first campaign, without
    running one (``schedlab advise`` calls it before starting the notebook, so
    a bad input is one line in both modes): the settings, the worker count,
    the cache, the log read (imported into a scratch folder when it is a site
    accounting file) and cleaned."""
    import tempfile

    s = validate(Settings, {"log": os.fspath(log), "format": format, "m": m,
                            **{k: v for k, v in more.items() if k in Settings.names() and v is not None}},
                 source="advise")
    if not s.log:
        raise InputError("advise: give a log")
    _how_it_runs(workers, cache_dir)
    with tempfile.TemporaryDirectory(prefix="schedlab-advise-") as tmp:
        _read_log(_with_m(_import(s, Path(tmp), lambda line: None), s.m))


def _classes_campaign(ctx, info, spec: str, base: dict, s: Settings):
    """thesis ch. 6's small-first queues on the same weeks: every job of the
    log classified by the classification study's weekly classifier (its
    campaign and parameters: trained on the weeks before the job's), the
    classes passed to the advisor's cell; None (said) when the log has too
    few weeks."""
    from ...campaigns.spec import Campaign
    from ...workloads import traces
    from ...studies.classification import (MIN_WEEKS, POLICIES, THRESHOLD, campaigns_classify, pack_classes, predictions_from, prepare)
    from ...studies.classification import Params as ClassParams

    cp = validate(ClassParams, {"traces": [spec]}, source="advise (the classification study's parameters)")
    t = cp.traces[0]
    # the log as the classification study's campaign reads it: the whole spec (machine size, request
    # choice), so its weeks are the campaign's; classes then reach the advisor's jobs by their log line
    pr = prepare(traces.text(t), None, cp.weeks, cp.finish, cp.divider_window)
    if pr.n_weeks < MIN_WEEKS:
        ctx.log(f"note: no small-first candidate: {info.name} has {pr.n_weeks} week(s), the weekly classifier "
                f"needs {MIN_WEEKS}")
        return None, None
    c = campaigns_classify(cp)[t.name]
    with ctx.timer("classify"):
        pred = predictions_from(ctx.campaign(c), pr)
    lines = np.asarray(traces.cleaned(spec, overrun="drop").jobs.lines)
    small = np.isin(lines, np.asarray(pr.jobs.lines)[pred.astype(bool)]).astype(np.uint8)
    labels = [f"EASY-{pol}-{pol}/T={sim.format_duration(THRESHOLD)}/classes=learned" for pol in POLICIES]
    packed = pack_classes(small)
    with ctx.timer("small-first"):
        return ctx.campaign(Campaign(
            f"advise-classes-{_slug(info.name)}", {"half": ["train", "test"], "candidate": labels},
            {**base, "classes": packed}, cell="schedlab.tools.advise.cells:candidate_cell")), packed


def _learn_mixed(ctx, info, base: dict, s: Settings) -> str:
    """The mixed policy learned on the training weeks (thesis §5.5.2's
    w*_train: the lattice point with the lowest mean objective over them,
    the thresholds study's :func:`select`), as a candidate label."""
    from ...campaigns.spec import Campaign
    from ...science import optim
    from ...studies.mixed import THRESHOLD
    from ...studies.thresholds import select
    from .cells import mixed_label

    grid = ctx.campaign(Campaign(
        f"advise-mixed-{_slug(info.name)}", {"week": list(range(s.weeks))},
        {**base, "resolution": s.mixed_resolution, "threshold": THRESHOLD},
        cell="schedlab.tools.advise.cells:mixed_grid_cell"))
    cost = grid[OBJECTIVES[s.objective]].transpose("point", "week").values
    points = optim.l1_lattice(3, s.mixed_resolution)
    with np.errstate(all="ignore"):
        if not np.isfinite(cost).any():
            cost = np.zeros_like(cost)
        i = select(cost, cost[0], "mean")
    label = mixed_label(points[i], THRESHOLD)
    ctx.log(f"mixed policy learned on the training weeks: {label} (of {len(points)} lattice points)")
    return label


def _slug(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:80]


def _enough_time(name: str, jobs) -> None:
    """Refuse, before any campaign, a log whose halves cannot be resampled:
    its jobs submitted at one instant (the split at the temporal midpoint
    leaves the earlier half empty), or a half without a job."""
    from ...workloads import workload

    train, test = workload.split(jobs)
    span = float(jobs.submit.max() - jobs.submit.min())
    if len(train) == 0 or len(test) == 0:
        raise InputError(f"{name}: its {len(jobs)} jobs are submitted over {span:.0f} s, so the split at its temporal "
                         f"midpoint leaves {len(train)} job(s) to learn on and {len(test)} held out: advise needs "
                         "submissions spread over time (weeks; at least 10 source weeks per half for intervals to "
                         "be trusted, a year is a good size)")


def _log_weeks(jobs) -> tuple[float, float, float]:
    """Weeks the cleaned log spans, and in each half (split at the temporal midpoint)."""
    from ...workloads import workload

    span = lambda j: float(j.submit.max() - j.submit.min()) / workload.WEEK if len(j) else 0.0  # noqa: E731
    train, test = workload.split(jobs)
    return span(jobs), span(train), span(test)


def _arrays(ds, extra, s: Settings):
    """Candidate names, families and (candidates, weeks) arrays per half from
    the pairs' dataset (the FCFS-primary pairs once: a threshold changes
    nothing for them) and the other candidates'."""
    metric = OBJECTIVES[s.objective]
    want = list(dict.fromkeys(["max_wait", metric]))
    names, families = [], []
    train = {k: [] for k in want}
    test = {k: [] for k in want}
    for label in ds.threshold.values:
        t = None if str(label) == "none" else sim.parse_duration(str(label))
        for pr in ds.primary.values:
            if pr == "FCFS" and t is not None:
                continue
            for bf in ds.backfill.values:
                name = pair_label(str(pr), str(bf), t)
                names.append(name)
                families.append(parse(name).family)
                cell = ds.sel(threshold=label, primary=pr, backfill=bf)
                for half, out in (("train", train), ("test", test)):
                    for k in want:
                        out[k].append(cell[k].sel(half=half).values)
    for dset in extra:
        for c in dset.candidate.values:
            names.append(str(c))
            families.append(parse(str(c)).family)
            for half, out in (("train", train), ("test", test)):
                for k in want:
                    out[k].append(dset[k].sel(candidate=c, half=half).values)
    return names, families, {k: np.vstack(v) for k, v in train.items()}, {k: np.vstack(v) for k, v in test.items()}


NOTEBOOK = paths.NOTEBOOKS / "advise" / "advise.ipynb"


def _absolute(log: str) -> str:
    """A log argument with its file part made absolute (the notebook runs
    in its own folder); registry names stay names."""
    base, q, query = str(log).partition("?")
    if Path(base).exists():
        base = str(Path(base).resolve())
    return base + q + query


def run_notebook(log, *, out=None, **values) -> Path:
    """Execute ``notebooks/advise/advise.ipynb`` with papermill (kernel
    ``schedlab``) for ``log`` into ``out`` (default
    ``results/advise/<log>/``): the executed notebook ``advise.ipynb``
    and its HTML ``html/advise.html`` beside ``report.html``; the progress
    lines reach this terminal.  ``values``: the notebook's other
    parameters (:class:`Settings`, ``scheduler``, ``workers``,
    ``cache_dir``).  Returns the executed notebook."""
    from ...publish.reproduce import execute

    log = _absolute(log)
    fmt = values.get("format", "swf")
    out = Path(out) if out is not None else (default_outdir(log) if fmt == "swf" else
                                             paths.RESULTS / "advise" / Path(log.partition("?")[0]).name.split(".")[0])
    out = out.resolve()
    params = {"log": log, "outdir": str(out), **{k: v for k, v in values.items() if v is not None}}
    if params.get("cache_dir") is not None:
        params["cache_dir"] = str(Path(params["cache_dir"]).resolve())
    return execute(NOTEBOOK, out / "advise.ipynb", out / "html" / "advise.html", params, out / ".advise.progress")


def cli_run(args) -> int:
    """``schedlab advise`` (see :mod:`schedlab.tools.cli`): through the notebook
    (the executed notebook beside the report), or the function alone with
    ``--no-notebook``; prints the answer."""
    import json

    values = {"format": args.format, "m": args.m, "objective": args.objective, "max_wait_risk": args.max_wait_risk,
              "scheduler": args.scheduler, "workers": args.workers, "cache_dir": args.cache}
    if args.weeks is not None:
        values["weeks"] = args.weeks
    if getattr(args, "candidates", None):
        values["extra"] = list(EXTRA_CANDIDATES) + list(args.candidates)
    # the settings and the log are checked here first: a bad input is one line before a kernel starts
    preflight(str(args.log), **values)
    if args.no_notebook:
        adv = advise(args.log, out=args.out, progress=not args.no_progress,
                     **{k: v for k, v in values.items() if v is not None and k != "cache_dir"},
                     cache_dir=args.cache)
        print(adv.first_screen())
        print(f"report: {relpath(adv.report)}")
        return 0
    executed = run_notebook(args.log, out=args.out, **values)
    nums = json.loads((executed.parent / "numbers.json").read_text())
    print(nums.get("first_screen", ""))
    print(f"report: {relpath(executed.parent / 'report.html')}; notebook: {relpath(executed)}")
    return 0


def settings_help() -> list[tuple[str, Any, str]]:
    return [(f.name, f.default, f.metadata.get("help", "")) for f in dataclasses.fields(Settings)]
