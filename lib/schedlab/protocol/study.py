"""The study protocol and its one driver, :func:`run_study`.

A study is a package ``schedlab.studies.<name>`` (registered in
:mod:`schedlab.studies.registry`) that holds its science and nothing else:

* ``Params``: a frozen dataclass subclassing :class:`Params`; every field is
  declared once with :func:`param` (default = the quick profile's value,
  unit, help text, validator).  ``params/<profile>/<stem>.yaml`` holds the
  values of another profile that differ, the notebook's parameters cell is
  generated from it (``python -m schedlab.protocol.study cells``), the command line's
  ``--set key=value`` is read by the same validators.
* ``compute(params, ctx) -> dict``: the study itself.  It runs its campaigns
  through ``ctx.campaign`` (local cluster or any scheduler, the cache,
  progress), writes tables, figures, datasets and data through ``ctx``
  (atomically, into the folder the driver chose), and returns its key
  numbers (``"numbers"``) and sentences (``"findings"``), the inputs that
  are not traces (``"inputs"``: name -> path relative to the repository,
  checksum), plus whatever the notebook shows.

:func:`run_study` does everything else, the same way for the notebook
(JupyterLab or papermill), ``make reproduce`` and ``schedlab study run``:
reads and validates the parameters, chooses the output folder
(``results/<profile>/<NN>-<study>/``; ``custom`` when the values match no
profile), opens one campaign runner, shows progress in the terminal too
(``$SCHEDLAB_PROGRESS``), and writes ``numbers.json`` (science, then
``provenance`` with paths relative to the repository, then measured
``timing``), ``findings.json`` and ``parameters.json``.
"""
from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

from .. import __version__, paths
from .. import validators as _validators
from ..campaigns.runner import PROGRESS_ENV
from ..declared import Params, param, plain, validate
from ..errors import InputError, SchedlabError
from ..studies.registry import STUDIES, Entry, get

__all__ = ["param", "Params", "Context", "run_study", "load_profile", "validate", "PROFILES", "relpath",
           "check_study", "tiny_log", "ProtocolError", "Outputs"]

PROFILES = ("quick", "full")
CUSTOM = "custom"


# ------------------------------------------------------------- parameters --

# param, Params, validate and plain live in schedlab.declared (shared with the cells' inputs)

def relpath(p) -> str:
    """:func:`schedlab.paths.relative` (what provenance records)."""
    return paths.relative(p)


# ---------------------------------------------------------------- outputs --

#: The kinds of output a study writes, each in its folder of the study's results.
OUTPUT_KINDS = ("tables", "figures", "datasets", "data")


@dataclass(frozen=True)
class Outputs:
    """What a study writes, declared by name (a study's ``OUTPUTS``): its
    tables, figures, datasets and data files.  A name may hold ``{trace}``
    (any trace's name or slug: ``bandit-{trace}``) or ``{any}`` (a period,
    a kind).  The driver refuses an output the study did not declare, and the
    notebooks and the paper may only name declared ones (a test), so a
    misspelt name fails instead of showing nothing.  The ``scorecard`` table
    is the driver's and always declared.

    ``feeds`` declares, for each table that sets published values beside
    ours, the scorecard items it feeds (prefixes of ``Row.item``), or
    :class:`schedlab.protocol.scorecard.Elsewhere` when another study counts
    them; a table whose rows name it (``Row.source``) needs no entry.  The
    driver checks that every such table feeds a row
    (:func:`check_scorecard_coverage`)."""

    tables: tuple[str, ...] = ()
    figures: tuple[str, ...] = ()
    datasets: tuple[str, ...] = ()
    data: tuple[str, ...] = ()
    feeds: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        import fnmatch

        for name in self.feeds:
            declared = (any(fnmatch.fnmatchcase(t, name) for t in self.tables) if "*" in name
                        else self.declares("tables", name))
            if not declared:
                raise SchedlabError(f"Outputs: feeds names table {name!r}, which the study does not declare")

    def patterns(self, kind: str) -> tuple[str, ...]:
        return tuple(getattr(self, kind)) + (("scorecard",) if kind == "tables" else ())

    def declares(self, kind: str, name: str) -> bool:
        import re

        for pat in self.patterns(kind):
            rx = re.escape(pat).replace(r"\{trace\}", r"[^/]+").replace(r"\{any\}", r"[^/]+")
            if re.fullmatch(rx, name):
                return True
        return False

    def undeclared(self, written: Mapping[str, Any]) -> list[str]:
        """``kind/name`` of each written output that no declaration covers."""
        return [f"{kind}/{name}" for kind in OUTPUT_KINDS for name in sorted(written.get(kind, ()))
                if not self.declares(kind, name)]


def load_profile(entry: Entry, profile: str) -> tuple[dict[str, Any], dict[str, int], Path]:
    """The values ``params/<profile>/<stem>.yaml`` sets, each key's line, and the file."""
    import yaml

    if profile not in PROFILES:
        raise InputError(f"unknown profile {profile!r}; the profiles: {', '.join(PROFILES)}")
    f = paths.PARAMS / profile / f"{entry.stem}.yaml"
    if not f.exists() and not entry.registered:      # a site's own study without profiles: its defaults
        return {}, {}, f
    if not f.exists():
        raise InputError(f"{relpath(f)}: missing parameters file of study {entry.name} (profile {profile})")
    text = f.read_text()
    try:
        values = _validators.read_yaml(text, relpath(f)) or {}
    except yaml.YAMLError as exc:
        raise InputError(f"{relpath(f)}: not valid YAML: {exc}") from None
    if not isinstance(values, dict):
        raise InputError(f"{relpath(f)}: expected a mapping of parameter names to values")
    lines = {}
    for i, line in enumerate(text.splitlines(), 1):
        key = line.split(":", 1)[0].strip()
        if key in values and not line.startswith((" ", "\t", "-", "#")):
            lines.setdefault(key, i)
    return values, lines, f


def profile_params(entry: Entry, profile: str) -> Params:
    """The validated parameters of a profile."""
    values, lines, f = load_profile(entry, profile)
    return validate(study_module(entry).Params, values, source=relpath(f), lines=lines)


def study_module(entry: Entry):
    mod = importlib.import_module(entry.module)
    if not hasattr(mod, "Params") or not hasattr(mod, "compute"):
        raise InputError(f"{entry.module} does not follow the study protocol (Params and compute)")
    return mod


# ---------------------------------------------------------------- context --

class Context:
    """What a study's ``compute`` gets from the driver: where its outputs go,
    its campaigns' runner, and the log that reaches the person who waits."""

    def __init__(self, entry: Entry, profile: str, outdir: Path, *, workers: int, scheduler: str | None,
                 cache_dir: Path, log: Callable[[str], None], progress: bool):
        from ..campaigns.runner import Runner

        self.entry, self.profile, self.outdir = entry, profile, Path(outdir)
        self.files: list[Path] = []
        self.tables: dict = {}          # name -> Table, the tables/ this run wrote
        self.written: dict[str, set] = {kind: set() for kind in OUTPUT_KINDS}   # kind -> names written
        self.timing: dict[str, float] = {}
        self._log, self.progress = log, progress
        self.runner = Runner(workers, scheduler, cache_dir, log=self.log)

    # -- the terminal ---------------------------------------------------------
    def log(self, text: str) -> None:
        """A line for the reader (the notebook's output) and for the terminal
        of ``make reproduce`` (the progress file)."""
        if self._log is not None:
            self._log(text)
        self.progress_line(text)

    def progress_line(self, text: str) -> None:
        from ..campaigns.runner import progress_line

        progress_line(text)

    # -- campaigns ------------------------------------------------------------
    def campaign(self, c, *, batch: int | None = None):
        """Run (or take from the cache) a campaign; returns its Dataset.
        ``batch``: cells per task (default: :func:`schedlab.campaigns.runner.run`'s)."""
        return self.runner.run(c, progress=self.progress, batch=batch)

    @contextlib.contextmanager
    def timer(self, name: str):
        """Measures a step: ``timing[name]`` in seconds (kept apart from the science)."""
        t = time.perf_counter()
        try:
            yield
        finally:
            self.timing[name] = round(time.perf_counter() - t, 2)

    # -- outputs, each written atomically ------------------------------------
    def path(self, *parts: str) -> Path:
        return self.outdir.joinpath(*parts)

    def declared(self, kind: str, name: str) -> None:
        """Refuse, before it is written, an output the study's ``OUTPUTS`` does
        not declare (one behaviour, in every run: the notebooks, the paper and
        the scorecard refer to outputs by their declared names)."""
        try:
            outputs = getattr(importlib.import_module(self.entry.module), "OUTPUTS", None)
        except ImportError:             # a tool's own context (the advisor): nothing declared to check against
            return
        if isinstance(outputs, Outputs) and not outputs.declares(kind, name):
            raise SchedlabError(f"study {self.entry.name}: {kind}/{name} is not declared in its OUTPUTS "
                                f"(add {name!r} to the {kind} of {self.entry.module}.OUTPUTS)")

    def table(self, name: str, table, folder: str = "tables"):
        self.declared(folder or "tables", name)
        self.files += table.write(self.path(folder, name))
        self.written.setdefault(folder, set()).add(name)
        if folder == "tables":
            self.tables[name] = table
        return table

    def data(self, name: str, table):
        """A table of data behind a figure, as CSV only (``data/<name>.csv``)."""
        from ..studies import write_text

        self.declared("data", name)
        self.files.append(write_text(self.path("data", f"{name}.csv"), table.to_csv()))
        self.written["data"].add(name)
        return table

    def figure(self, name: str, fig) -> list[Path]:
        from . import plots

        self.declared("figures", name)
        written = plots.savefig(fig, self.path("figures", name))
        self.files += written
        self.written["figures"].add(name)
        return written

    def dataset(self, name: str, ds, folder: str = "datasets") -> Path:
        """A dataset as netCDF (``<folder>/<name>.nc``), its provenance
        completed with the versions and commit (no machine paths)."""
        from ..campaigns import store

        self.declared(folder or "datasets", name)
        ds.attrs.setdefault("schedlab_version", __version__)
        ds.attrs.setdefault("git_commit", paths.git_commit())
        p = store.write_dataset(ds, self.path(folder, f"{name}.nc") if folder else self.path(f"{name}.nc"))
        self.files.append(p)
        self.written.setdefault(folder or "datasets", set()).add(name)
        return p

    def json(self, relname: str, obj) -> Path:
        from ..studies import write_json

        p = write_json(self.path(relname), obj)
        self.files.append(p)
        return p

    def close(self) -> None:
        self.runner.close()


# ----------------------------------------------------------------- driver --

def _namespace_values(cls: type[Params], namespace: Mapping[str, Any]) -> dict[str, Any]:
    return {k: namespace[k] for k in cls.names() if k in namespace}


#: set (to anything but "" or "0") to make a study whose published table feeds no scorecard row, or whose
#: counted miss says only "unexplained", fail (the test suite sets it); unset, both are warnings recorded
#: under numbers.scorecard.  (An undeclared output is refused always, without it: Context.declared.)
STRICT_SCORECARD = "SCHEDLAB_STRICT_SCORECARD"


def check_scorecard_coverage(entry: Entry, tables: dict, rows: list, numbers: dict, log=None) -> list[str]:
    """Every table of the study with a published column feeds a scorecard row
    (:func:`schedlab.protocol.scorecard.uncovered`, with the ``feeds`` of the study's ``OUTPUTS``).
    The tables that do not are recorded under ``numbers.scorecard.uncovered``
    and said; with :data:`STRICT_SCORECARD` set they are an error."""
    from . import scorecard as _scorecard

    outputs = getattr(importlib.import_module(entry.module), "OUTPUTS", None)
    feeds = outputs.feeds if isinstance(outputs, Outputs) else {}
    missing = _scorecard.uncovered(tables, rows, feeds)
    if missing:
        numbers.setdefault("scorecard", {})["uncovered"] = missing
        msg = (f"study {entry.name}: table(s) {', '.join(missing)} hold published values that feed no scorecard "
               f"row (give the rows source=<table> or declare the table in the feeds of {entry.module}.OUTPUTS)")
        if os.environ.get(STRICT_SCORECARD, "") not in ("", "0"):
            raise SchedlabError(msg)
        if log:
            log(f"warning: {msg}")
    return missing


def check_scorecard_explained(entry: Entry, rows: list, numbers: dict, log=None) -> list[str]:
    """No counted miss (not reproduced, magnitude off, inconclusive) says only "unexplained"
    (:func:`schedlab.protocol.scorecard.bare`): each names the readings tried or a
    reason.  The bare ones are recorded under ``numbers.scorecard.bare`` and
    said; with :data:`STRICT_SCORECARD` set (the test suite) they are an error."""
    from . import scorecard as _scorecard

    found = [f"{r.paper} | {r.item} | {r.trace} | {r.metric}" for r in _scorecard.bare(rows)]
    if found:
        numbers.setdefault("scorecard", {})["bare"] = found
        msg = (f"study {entry.name}: {len(found)} missed row(s) say only 'unexplained' (give them the "
               f"readings tried or a reason; DESIGN §10): " + "; ".join(found))
        if os.environ.get(STRICT_SCORECARD, "") not in ("", "0"):
            raise SchedlabError(msg)
        if log:
            log(f"warning: {msg}")
    return found


def check_outputs(entry: Entry, mod, written: Mapping[str, Any], log=None) -> list[str]:
    """Every output a run wrote is declared in the study's ``OUTPUTS``
    (:class:`Outputs`), else :class:`SchedlabError`, always (the context
    refuses each undeclared output before writing it; this also catches a
    study without ``OUTPUTS``)."""
    outputs = getattr(mod, "OUTPUTS", None)
    if not isinstance(outputs, Outputs):
        missing = [f"{entry.module} declares no OUTPUTS (schedlab.protocol.study.Outputs)"]
    else:
        missing = [f"{entry.module}: {name} written but not declared in its OUTPUTS"
                   for name in outputs.undeclared(written)]
    if missing:
        raise SchedlabError("; ".join(missing))
    return missing


def run_study(study: str | Entry, namespace: Mapping[str, Any] | None = None, *, profile: str | None = None,
              overrides: Mapping[str, Any] | None = None, outdir=None, workers: int | None = None,
              scheduler: str | None = None, cache_dir=None, log: Callable[[str], None] | None = print,
              progress: bool | None = None, traces=None) -> dict[str, Any]:
    """Run one study, the same way from every door.

    ``namespace``: a notebook's ``globals()`` (its parameters cell: ``profile``,
    every parameter of the study, and the execution options ``outdir``,
    ``workers``, ``cache_dir`` and ``scheduler``); ``profile``: a profile's values (``params/<profile>/...``);
    ``overrides``: values that replace them (``--set`` on the command line).
    The output folder is ``results/<profile>/<stem>/`` when the values are the
    profile's, ``results/custom/<stem>/`` otherwise, unless ``outdir`` is given.
    ``workers`` (default: all cores), ``scheduler`` (a dask scheduler address,
    default ``$SCHEDLAB_SCHEDULER``: a site cluster) and ``cache_dir``
    (default ``results/cache``) only change where and how fast it runs.
    ``traces`` (registry names, SWF paths or trace specs) replace every trace
    parameter of the study (:func:`trace_fields`): the study on the user's
    own workload, into ``results/traces/<their names>/<stem>/``.

    Returns what the study's ``compute`` returned, plus ``params``, ``outdir``,
    ``files``, ``timing`` and ``seconds``.
    """
    t0 = time.perf_counter()
    entry = study if isinstance(study, Entry) else get(study)
    mod = study_module(entry)
    if not entry.module.startswith("schedlab."):    # a site's own study: the runner may call its cells
        from ..campaigns.cells import allow_cell_modules
        allow_cell_modules(entry.module)
    ns = dict(namespace or {})
    own = None
    if traces:
        own = _as_trace_list(traces)
        fields = trace_fields(mod.Params)
        if not fields:
            raise InputError(f"study {entry.name} takes no trace")
        # the run would compute on one log and write under the other's name (leaving one out: allowed)
        clash = sorted(k for k, v in (overrides or {}).items()
                       if k in fields and not (v is None or (isinstance(v, (list, tuple, str)) and not v)))
        if clash:
            raise InputError(f"study {entry.name}: the traces are given twice (--trace / traces= and "
                             f"{', '.join(clash)}=); give them once")
        overrides = {**{k: (own if many else own[0]) for k, many in fields.items()}, **(overrides or {})}
    profile = profile or ns.get("profile") or "quick"
    base_values, lines, f = load_profile(entry, profile)
    given = {**_namespace_values(mod.Params, ns), **(overrides or {})}
    params = validate(mod.Params, {**base_values, **given},
                      source=relpath(f) if not given else f"{relpath(f)} with the values given",
                      lines=lines if not given else None)
    reference = validate(mod.Params, base_values, source=relpath(f), lines=lines)
    label = profile if params.record() == reference.record() else CUSTOM
    outdir = outdir if outdir is not None else ns.get("outdir")
    if own is not None and outdir is None:
        outdir = paths.RESULTS / "traces" / own_label(own) / entry.stem
    out = Path(outdir) if outdir is not None else paths.RESULTS / label / entry.stem
    workers = workers if workers is not None else ns.get("workers")
    # a local cluster of no worker waits forever for one: refused at once (None: all cores)
    workers = os.cpu_count() or 1 if workers is None else _validators.integer(workers, "workers", 1)
    scheduler = scheduler or ns.get("scheduler") or None
    cache_dir = cache_dir if cache_dir is not None else ns.get("cache_dir")
    cache_dir = Path(cache_dir) if cache_dir is not None else paths.RESULTS / "cache"
    if progress is None:
        progress = "ipykernel" in sys.modules or sys.stderr.isatty()
    ctx = Context(entry, label, out, workers=int(workers), scheduler=scheduler, cache_dir=cache_dir, log=log,
                  progress=progress)
    ctx.log(f"study {entry.name} ({entry.stem}), profile {label}: outputs in {relpath(out)}")
    params = with_study_columns(params)
    cleaning = cleaning_records(mod, params, ctx.log)
    check_columns_used(params)
    python_cost(mod, params, ctx.log)
    from ..engine.sim import jobs_simulated
    jobs_here = jobs_simulated()
    try:
        import warnings

        from ..workloads.workload import CleaningWarning
        with warnings.catch_warnings():
            # each trace's cleaning warnings were said once, just above: not again (with a file path and a
            # source line) each time a step of the study cleans the same log
            warnings.simplefilter("ignore", CleaningWarning)
            result = dict(mod.compute(params, ctx) or {})
    finally:
        ctx.close()
    wall = time.perf_counter() - t0
    numbers = dict(result.get("numbers") or {})
    if result.get("scorecard"):         # published beside ours, one row each (schedlab.protocol.scorecard)
        from . import scorecard as _scorecard
        # the study's rows that are not results (workload descriptions, properties, values another row
        # fixes, repeated comparisons), declared once in its scorecard module (DECLARED)
        _scorecard.declare(result["scorecard"], _scorecard.declarations(entry.module))
        ctx.table("scorecard", _scorecard.table(result["scorecard"]))
        numbers["scorecard"] = _scorecard.numbers(result["scorecard"])
    check_scorecard_coverage(entry, ctx.tables, result.get("scorecard") or [], numbers, ctx.log)
    check_scorecard_explained(entry, result.get("scorecard") or [], numbers, ctx.log)
    check_outputs(entry, mod, ctx.written, ctx.log)
    numbers["provenance"] = provenance(entry, label, params, out, cache_dir, scheduler)
    for name, record in cleaning.items():
        numbers["provenance"]["inputs"].setdefault(name, {})["cleaning"] = record
    numbers["provenance"]["inputs"].update(result.get("inputs") or {})   # inputs that are not traces
    numbers["timing"] = {**numbers.get("timing", {}), **ctx.timing, "wall_s": round(wall, 1),
                         "cells_computed": ctx.runner.computed, "cells_cached": ctx.runner.cached,
                         "jobs_simulated": ctx.runner.jobs + jobs_simulated() - jobs_here}
    result["numbers"] = numbers
    ctx.json("numbers.json", numbers)
    ctx.json("findings.json", result.get("findings") or {})
    ctx.json("parameters.json", params.record())
    if outdir is None:          # the driver's own folder: what this run did not write is stale
        for stale in _stale_files(out, ctx.files):
            stale.unlink()
            ctx.log(f"removed {relpath(stale)} (written by an earlier run, not by this one)")
    ctx.log(f"study {entry.name} done in {wall:.1f} s ({ctx.runner.computed} cells computed, "
            f"{ctx.runner.cached} from the cache)")
    result.update({"params": params, "profile": label, "outdir": out, "files": ctx.files,
                   "timing": numbers["timing"], "seconds": wall})
    return result


def with_study_columns(params: Params) -> Params:
    """``params`` whose traces carry the study's per-job columns (its
    ``columns`` parameter, :func:`schedlab.workloads.columns.study_columns`):
    every trace parameter gets them (:func:`schedlab.workloads.traces.with_columns`),
    so that every cell cleaning a log adds them to its jobs, keeps them
    through resampling and splitting, and keys its result by their content."""
    cols = getattr(params, "columns", None) if "columns" in params.names() else None
    if not cols:
        return params
    from ..workloads import traces as _traces

    changes = {}
    for name in params.names():
        v = getattr(params, name)
        if isinstance(v, _traces.TraceInfo):
            changes[name] = _traces.with_columns(v, cols)
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, _traces.TraceInfo) for x in v):
            changes[name] = type(v)(_traces.with_columns(x, cols) for x in v)
    return dataclasses.replace(params, **changes)


def _policy_texts(params: Params):
    """(parameter, text) of every text among a study's parameters (policies,
    estimates ...), one level into lists."""
    for name in params.names():
        v = getattr(params, name)
        for i, x in enumerate(v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(x, str):
                yield (f"{name}[{i}]" if isinstance(v, (list, tuple)) else name), x


def check_columns_used(params: Params) -> None:
    """Refuse, before any cell runs, a policy expression (``expr:...col.NAME``)
    or an estimate (``col:NAME``) naming a column a trace of the study does
    not carry: one line naming the parameter and how to give the column."""
    from ..expr import Expr, is_expr

    traces = study_traces(params)
    if not traces:
        return
    for where, text in _policy_texts(params):
        if is_expr(text):
            try:
                wanted = [c for c in Expr(text).columns if c != "user"]
            except InputError:
                continue            # the study's own validator says what is wrong with it
        elif text.startswith("col:"):
            wanted = [text[4:]]
        else:
            continue
        for info in traces:
            have = [n for n, _ in info.columns]
            missing = [c for c in wanted if c not in have]
            if missing:
                raise InputError(f"{where}: {text} reads column {missing[0]!r}, which {info.name} does not carry "
                                 f"(its columns: {', '.join(have) or 'none'}); give it as columns={{{missing[0]!r}: "
                                 f"FILE or 'module:function'}}, --column {missing[0]}=FILE, or the trace spec's "
                                 f"?col.{missing[0]}=FILE")


#: Jobs of the log a Python policy or estimator is timed on before a run (:func:`python_cost`).
COST_JOBS = 2000


def python_cost(mod, params: Params, log: Callable[[str], None]) -> None:
    """Say before the run what a Python policy or estimator (``py:module:name``)
    costs: one simulation of the first :data:`COST_JOBS` jobs of the study's
    first log is timed, and the time scaled to the whole log, one line each."""
    from ..jobs import PYTHON_PREFIX

    specs = [(w, t) for w, t in _policy_texts(params) if t.startswith(PYTHON_PREFIX)]
    traces = study_traces(params)
    if not specs or not traces:
        return
    from ..engine import sim
    from ..workloads import traces as _traces

    overrun = getattr(params, "overrun", None) or getattr(mod, "CLEANING", None) or "kill"
    c = _traces.cleaned(traces[0], overrun=overrun)
    jobs = c.jobs.subset(slice(0, min(COST_JOBS, len(c.jobs))))
    for where, spec in dict((t, (w, t)) for w, t in specs).values():
        is_policy = "estimate" not in where
        t0 = time.perf_counter()
        try:
            if is_policy:
                sim.simulate(jobs, c.m, sim.Policy(spec, spec))
            else:
                sim.simulate(jobs, c.m, "EASY-FCFS-FCFS", estimate=spec, correction="requested")
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        base = time.perf_counter()
        sim.simulate(jobs, c.m, "EASY-FCFS-FCFS")
        t_py, t_c = base - t0, time.perf_counter() - base
        whole = t_py * len(c.jobs) / max(len(jobs), 1)
        log(f"{where}: {spec} is Python ({'at every scheduling pass' if is_policy else 'at every job'}), slow: "
            f"{len(jobs)} jobs of {traces[0].name} took {t_py:.2f} s ({t_py / max(t_c, 1e-6):.0f}x the built-in "
            f"order), about {whole:.2g} s per simulation of the log's {len(c.jobs)} jobs; every cell that "
            "uses it pays this")


def _stale_files(out: Path, written) -> list[Path]:
    """Output files under ``out`` (tables, figures, data, datasets and the
    top-level results) that a run did not write."""
    keep = {Path(p).resolve() for p in written}
    found = [f for f in out.rglob("*") if f.is_file() and not f.name.startswith(".")
             and f.suffix in (".csv", ".md", ".png", ".pdf", ".nc", ".json")]
    return sorted(f for f in found if f.resolve() not in keep)


def _as_trace_list(traces) -> list:
    from ..workloads import traces as _traces

    return _traces.trace_list(traces, "traces")


def own_label(traces) -> str:
    """The results folder name of a run on the user's traces: their names,
    joined by ``+`` (cleaning choices after ``@``), safe as a folder name."""
    from ..names import component

    names = [getattr(t, "name", str(t)) for t in traces]
    return component("+".join(n.replace("?", "@").replace("&", ",").replace("*", "x") for n in names), 120)


def trace_fields(cls: type[Params]) -> dict[str, bool]:
    """The parameters of a study that name traces: name -> whether it takes
    a list (True) or one trace (False); found from the validated defaults."""
    from ..workloads import traces as _traces

    defaults = validate(cls, {})
    out = {}
    for name in cls.names():
        v = getattr(defaults, name)
        if isinstance(v, _traces.TraceInfo):
            out[name] = False
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, _traces.TraceInfo) for x in v):
            out[name] = True
    return out


def study_traces(params: Params) -> list:
    """The traces (:class:`~schedlab.workloads.traces.TraceInfo`) among a study's parameters."""
    from ..workloads import traces as _traces

    found = []
    for name in params.names():
        v = getattr(params, name)
        for item in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(item, _traces.TraceInfo) and item not in found:
                found.append(item)
    return found


def study_name(mod) -> str:
    """A study module's registered name (its module path when it has none)."""
    from ..studies.registry import name_of

    try:
        return name_of(mod.__name__)
    except ValueError:
        return mod.__name__


def cleaning_records(mod, params: Params, log: Callable[[str], None]) -> dict[str, dict]:
    """How each trace of a study is cleaned (the study's ``overrun``
    parameter, else its module's ``CLEANING``, else "kill"; its ``m``
    parameter when it has one): each report is logged -- with its warnings,
    for the notebook's reader and the terminal -- and returned as plain data
    for the provenance of every result.  A trace with fewer jobs after
    cleaning than the study's ``MIN_JOBS`` (declared in its package; default
    1) is refused here, before any cell runs, with the study's minimum and
    its reason (``MIN_JOBS_WHY``)."""
    import warnings

    from ..workloads import traces as _traces

    least = getattr(mod, "MIN_JOBS", 1)
    overrun = getattr(params, "overrun", None) or getattr(mod, "CLEANING", None) or "kill"
    m = getattr(params, "m", None)
    records = {}
    for info in study_traces(params):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = _traces.cleaned(info, m=m if isinstance(m, int) else None, overrun=overrun).report
        records[info.name] = report.record()
        if report.jobs_out < least:
            why = getattr(mod, "MIN_JOBS_WHY", "")
            raise InputError(f"{info.name}: {report.jobs_out} job(s) after cleaning; study {study_name(mod)} "
                             f"needs at least {least}" + (f" ({why})" if why else ""))
        choices = ", ".join(f"{k} {v}" for k, v in report.choices.items())
        log(f"cleaning {info.name}: {report.jobs_out} of {report.jobs_in} jobs kept "
            f"({100 * report.removed_share:.1f} % removed, {100 * report.removed_work_share:.1f} % of the "
            f"processor time); {choices}")
        for w in report.warnings:         # once per trace: one line, in the terminal and in the notebook
            log(f"WARNING {info.name}: {w}")
    return records


def provenance(entry: Entry, profile: str, params: Params, outdir: Path, cache_dir: Path,
               scheduler: str | None) -> dict[str, Any]:
    """What a result was made from, with no machine paths: versions, commit,
    the study and profile, its parameters, each input trace's name, path
    relative to the repository and sha256."""
    from ..workloads.columns import is_function

    inputs = {item.name: {"path": relpath(item.path), "sha256": item.sha256, "registered": item.registered}
              for item in study_traces(params)}
    for item in study_traces(params):
        if item.columns:        # the per-job columns its jobs carried (the cache keys hold their content)
            inputs[item.name]["columns"] = {n: src if is_function(src) else relpath(src) for n, src in item.columns}
    try:
        from ..engine.sim import VERSION as core
    except ImportError:                 # a study that needs no compiled core
        core = None
    return {"schedlab": __version__, "core": core, "git": paths.git_state(), "study": entry.name,
            "notebook": entry.notebook, "profile": profile, "parameters": params.record(), "inputs": inputs,
            "outdir": relpath(outdir), "cache_dir": relpath(cache_dir),
            "scheduler": "given" if scheduler else "local",
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}


# ------------------------------------------------------ the protocol check --

#: Parameters a study may not have: they are the driver's (where and how it runs).
DRIVER_NAMES = ("outdir", "cache_dir", "workers", "scheduler", "profile")


class ProtocolError(SchedlabError):
    """A study (or its cells) does not follow the protocol; the message lists every finding."""


def tiny_log(path, *, n: int = 360, weeks: int = 4, m: int = 32, seed: int = 5) -> Path:
    """A small generated SWF log for a study's behavioural check: ``n`` jobs
    over ``weeks`` weeks on ``m`` processors (log-uniform runtimes from 30 s
    to 11 h, requests 1-10 times them, 1-16 processors, five users, recorded
    waits), seeded."""
    import numpy as np

    from ..workloads.swf import write_swf

    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, weeks * 7 * 86400, n))
    submit[0] = 0
    run = np.exp(rng.uniform(np.log(30), np.log(40000), n)).astype(np.int64)
    procs = np.minimum(rng.choice([1, 1, 2, 4, 8, 16], n), m).astype(np.int64)
    user = rng.integers(1, 6, n)
    fields = {"job_id": np.arange(1, n + 1), "submit": submit, "wait": rng.integers(0, 20000, n), "run": run,
              "alloc_procs": procs, "req_procs": procs, "req_time": run * rng.choice([1, 1, 2, 3, 10], n),
              "status": np.ones(n, np.int64), "user": user, "group": user, "partition": np.ones(n, np.int64)}
    return write_swf(path, fields, header_lines=["Version: 2.2", "Computer: generated (schedlab.protocol.study.tiny_log)",
                                                 "UnixStartTime: 0", "TimeZoneString: UTC", f"MaxProcs: {m}"])


def _as_entry(study) -> Entry:
    """The registry entry of ``study`` (a name, an entry, a module or its
    name); a module that is not registered gets an entry of its own."""
    import types

    if isinstance(study, Entry):
        return study
    name = study.__name__ if isinstance(study, types.ModuleType) else str(study)
    from ..studies.registry import BY_NAME
    for e in STUDIES + tuple(BY_NAME.values()):
        if name in (e.name, e.module, e.stem):
            return e
    if not isinstance(study, types.ModuleType):
        import importlib.util
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return get(name)            # neither a study nor a module: the registry's error
    short = name.rsplit(".", 1)[-1]
    return Entry(short, 99, short.replace("_", "-"), short, "a study outside the registry", "", package=name)


#: The house rules of a study, each a named check of :func:`check_study`:
#: name -> (what it checks, how to fix a finding).  The test suite enforces
#: nothing about a study that is not here (DESIGN §8).
RULES: dict[str, tuple[str, str]] = {
    "params": ("Params is a frozen dataclass subclassing schedlab.protocol.study.Params; every field is a "
               "param() with help text and a validator, and none is the driver's (outdir, workers, cache_dir, "
               "scheduler, profile)",
               "declare each field with param(default, help=..., unit=..., check=...) in params.py; leave where "
               "and how it runs to the driver"),
    "one-driver": ("the package has no run() or validate() of its own: run_study runs every study",
                   "remove them; compute(params, ctx) is the study"),
    "outputs": ("OUTPUTS (schedlab.protocol.study.Outputs) declares every table, figure, dataset and data file by "
                "name, and the notebook and the paper section name only declared ones",
                "add the name to OUTPUTS in params.py, or correct the misspelt reference"),
    "tiny": ("TINY is a dict of parameters Params accepts: the seconds-long run of this check and the "
             "hostile-log tests", "TINY = {...} in params.py with valid values"),
    "profiles": ("params/quick/<stem>.yaml and params/full/<stem>.yaml exist and every key is a valid parameter",
                 "create or correct the file named (keys are Params fields; quick = the defaults)"),
    "notebook": ("notebooks/<stem>.ipynb exists, committed without outputs, on the schedlab kernel, opens with a "
                 "Markdown cell, has one parameters cell equal to the generated one (the quick profile's "
                 "values) and calls run_study(\"<name>\", globals())",
                 "python -m schedlab.protocol.study cells (the parameters cell); clear the outputs; call the "
                 "driver"),
    "numbering": ("the notebook's title starts '# Study N ' and the package's docstring 'Study N ', N the "
                  "number of its study.toml", "edit the notebook's first cell and the package docstring"),
    "published": ("every table of published.toml has a source (paper and table, figure or section)",
                  "add source = \"<paper> <table>\" to the table named"),
    "section": ("the paper section exists (section.typ in the package, or paper/sections/<name>.typ)",
                "write it; it reads numbers.<name> and /generated/<name>/ by the declared names"),
    "cell-inputs": ("every cell (a function named cell or *_cell in cells.py) is registered with "
                    "schedlab.campaigns.cells.cell(name, Inputs) and every input has help text",
                    "decorate it with @cell(\"<name>-...\", Inputs), Inputs a CellInputs dataclass of param() "
                    "fields"),
    "cell-imports": ("a cell imports no reporting code: not its study's params, analysis, tables, figures, report, "
                     "scorecard or run, not schedlab.protocol, publish or tools, not the campaign cache, assembly "
                     "or runner (its cache key covers the code it imports)",
                     "move what the cell needs into cells.py or schedlab/science/"),
    "no-sibling": ("no module of the study imports another study",
                   "move shared science to schedlab/science/; read another study's values with "
                   "schedlab.studies.load_published"),
    "run": ("a tiny run on a generated log writes numbers.json, findings.json, parameters.json and every file it "
            "names, keeps its parameters, and a second run computes 0 cells",
            "make the cells' parameters deterministic (no times or random seeds in them) and write through ctx"),
    "feeds": ("every table with a published column feeds a scorecard row, and no counted miss says only "
              "'unexplained' (DESIGN §4, §10)",
              "give the rows source=<table> or declare the table in OUTPUTS.feeds; name the readings tried"),
}


def _rule(rule: str, text: str) -> str:
    """A finding of check ``rule``: what is wrong, then how to fix it."""
    return f"[{rule}] {text} (fix: {RULES[rule][1]})"


def _cell_modules(mod_name: str) -> list:
    """The modules of a study package that register its cells (its ``cells`` module)."""
    from ..campaigns.cells import CELLS

    try:
        importlib.import_module(f"{mod_name}.cells")
    except ModuleNotFoundError as exc:
        if exc.name != f"{mod_name}.cells":
            raise
    return sorted({f.__module__ for f in CELLS.values() if f.__module__.startswith(mod_name + ".")})


def _cell_findings(mod_name: str) -> list[str]:
    """Every cell of a study's ``cells`` module declares its inputs
    (:func:`schedlab.campaigns.cells.cell`), each with a help text, and its
    cache key covers no reporting code."""
    import inspect

    from ..campaigns.fingerprint import module_closure

    found = []
    try:
        cells = importlib.import_module(f"{mod_name}.cells")
    except ModuleNotFoundError:
        return found
    for name, f in vars(cells).items():
        if not (inspect.isfunction(f) and getattr(f, "__module__", "") == cells.__name__):
            continue
        if not (name == "cell" or name.endswith("_cell")):
            continue
        inputs = getattr(f, "inputs", None)
        if inputs is None:
            found.append(_rule("cell-inputs", f"{cells.__name__}.{name}: a cell without declared inputs "
                                              f"(use schedlab.campaigns.cells.cell)"))
            continue
        for fld in dataclasses.fields(inputs):
            if not fld.metadata.get("help"):
                found.append(_rule("cell-inputs", f"{cells.__name__}.{name}: input {fld.name!r} has no help text"))
    own = _cell_modules(mod_name)
    machinery = {f"schedlab.campaigns.{m}" for m in ("cache", "assembly", "runner")}
    for cm in own:
        wrong = [n for n in module_closure(cm)
                 if n.startswith(("schedlab.protocol", "schedlab.publish", "schedlab.tools")) or n in machinery
                 or (n.startswith(mod_name + ".") and n not in own)]
        if wrong:
            found.append(_rule("cell-imports", f"{cm} imports, directly or not, {', '.join(wrong)}"))
    return found


def _sibling_findings(entry: Entry) -> list[str]:
    """The imports of another registered study by any module of this one."""
    import ast
    import importlib.util

    from ..studies.registry import BY_NAME

    spec = importlib.util.find_spec(entry.module)
    if spec is None or not spec.submodule_search_locations:
        return []
    found = []
    own = entry.module.split(".")
    for folder in spec.submodule_search_locations:
        for f in sorted(Path(folder).rglob("*.py")):
            rel = f.relative_to(folder).with_suffix("").parts
            name = own + [p for p in rel if p != "__init__"]
            package = name if f.name == "__init__.py" else name[:-1]
            for node in ast.walk(ast.parse(f.read_text(), str(f))):
                mods = []
                if isinstance(node, ast.Import):
                    mods = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = package[:len(package) - (node.level - 1)] if node.level else []
                    mod = ".".join(base + ([node.module] if node.module else []))
                    mods = [mod] + [f"{mod}.{a.name}" for a in node.names]
                for m in mods:
                    p = m.split(".")
                    if p[:2] == ["schedlab", "studies"] and len(p) > 2 and p[2] in BY_NAME and p[2] != entry.name \
                            and ".".join(p[:3]) != entry.module:
                        found.append(_rule("no-sibling", f"{relpath(f)} imports {m}"))
    return sorted(set(found))


def check_study(study, *, run: bool = True, trace=None, workdir=None,
                log: Callable[[str], None] | None = None) -> dict:
    """The protocol check of a study (cf. scikit-learn's ``check_estimator``):
    a registered study by name, or a site's own study package (its module or
    module name).  Raises :class:`ProtocolError` listing every finding, each
    as ``[rule] what is wrong (fix: how)``, the rules of :data:`RULES`: every
    house rule the test suite enforces on a study, so that a third party
    needs nothing but this function.

    Static: ``params``, ``one-driver``, ``outputs``, ``tiny``,
    ``cell-inputs``, ``cell-imports``, ``no-sibling``; for a registered
    study also ``profiles``, ``notebook``, ``numbering``, ``published`` and
    ``section``.

    Behavioural (``run``, rules ``run`` and ``feeds``): on a generated log
    (:func:`tiny_log`; or ``trace``, a path or trace spec) the study runs
    through the driver with ``TINY``, writes its ``numbers.json`` and every
    file it names, leaves its parameters as given, feeds the scorecard from
    every published table, and a second run computes 0 cells.  Returns what
    it measured (``cells``, ``files``, ``seconds``)."""
    import tempfile

    entry = _as_entry(study)
    findings: list[str] = []
    try:
        mod = importlib.import_module(entry.module)
    except ImportError as exc:
        raise ProtocolError(f"study {entry.name}: cannot import {entry.module}: {exc}") from None
    if not hasattr(mod, "compute") or not hasattr(mod, "Params"):
        raise ProtocolError(_rule("params", f"{entry.module} does not follow the study protocol (Params and compute)"))
    if callable(getattr(mod, "run", None)) or callable(getattr(mod, "validate", None)):
        findings.append(_rule("one-driver", f"{entry.module}: a second way to run or validate the study besides "
                                            f"the driver"))
    P = mod.Params
    if not (isinstance(P, type) and issubclass(P, Params) and dataclasses.is_dataclass(P)):
        raise ProtocolError(_rule("params", f"{entry.module}.Params is not a dataclass subclassing "
                                            f"schedlab.protocol.study.Params"))
    for f in dataclasses.fields(P):
        if not f.metadata.get("help"):
            findings.append(_rule("params", f"{entry.module}.Params.{f.name}: no help text"))
        if f.metadata.get("check") is None:
            findings.append(_rule("params", f"{entry.module}.Params.{f.name}: no validator"))
        if f.name in DRIVER_NAMES:
            findings.append(_rule("params", f"{entry.module}.Params.{f.name}: the driver's business, not the study's"))
    if not isinstance(getattr(mod, "OUTPUTS", None), Outputs):
        findings.append(_rule("outputs", f"{entry.module}: no OUTPUTS (schedlab.protocol.study.Outputs: what it "
                                         f"writes, by name)"))
    tiny = getattr(mod, "TINY", None)
    if not isinstance(tiny, dict):
        findings.append(_rule("tiny", f"{entry.module}: no TINY dict (the parameters of a tiny run, for this check)"))
        tiny = {}
    else:
        try:
            validate(P, tiny, source=f"{entry.module}.TINY")
        except InputError as exc:
            findings.append(_rule("tiny", str(exc)))
    if entry.registered:
        for profile in PROFILES:
            try:
                profile_params(entry, profile)
            except InputError as exc:
                findings.append(_rule("profiles", str(exc)))
        findings += _notebook_findings(entry)
        doc = mod.__doc__ or ""
        if not doc.startswith(f"Study {entry.number} "):
            findings.append(_rule("numbering", f"{entry.module}: its docstring starts {doc[:20]!r}, not "
                                               f"'Study {entry.number} '"))
        from ..studies import load_published
        try:
            published = load_published(entry.module)
        except InputError as exc:
            findings.append(_rule("published", str(exc)))
            published = {}
        for name, table in published.items():
            if not (isinstance(table, dict) and table.get("source")):
                findings.append(_rule("published", f"{entry.module} published.toml [{name}]: no source"))
        if not entry.section_source.is_file():
            findings.append(_rule("section", f"study {entry.name}: no paper section ({relpath(entry.section_source)})"))
    findings += _cell_findings(entry.module)
    findings += _sibling_findings(entry)
    if findings:
        raise ProtocolError(f"study {entry.name}: " + "; ".join(findings))
    if not run:
        return {}
    with tempfile.TemporaryDirectory(prefix=f"check-{entry.name}-") as tmp:
        where = Path(workdir) if workdir is not None else Path(tmp)
        trace = str(trace) if trace is not None else str(tiny_log(where / "tiny.swf"))
        takes_traces = bool(trace_fields(P))
        kw = dict(overrides=tiny, outdir=where / "out", workers=1, cache_dir=where / "cache", log=log,
                  progress=False, traces=[trace] if takes_traces else None)
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            first = run_study(entry, **kw)
            base = load_profile(entry, "quick")[0] if entry.registered else {}
            given = validate(P, {**base, **tiny, **({k: ([trace] if many else trace)
                                               for k, many in trace_fields(P).items()} if takes_traces else {})})
            if first["params"].record() != given.record():
                findings.append(_rule("run", f"study {entry.name}: the run changed its parameters "
                                             f"({first['params'].record()} != {given.record()})"))
            card = first["numbers"].get("scorecard") or {}
            if card.get("uncovered"):
                findings.append(_rule("feeds", f"study {entry.name}: table(s) {', '.join(card['uncovered'])} hold "
                                               f"published values that feed no scorecard row"))
            if card.get("bare"):
                findings.append(_rule("feeds", f"study {entry.name}: missed row(s) say only 'unexplained': "
                                               f"{'; '.join(card['bare'][:3])}"))
            out = where / "out"
            for name in ("numbers.json", "findings.json", "parameters.json"):
                if not (out / name).is_file():
                    findings.append(_rule("run", f"study {entry.name}: {name} not written"))
            missing = [str(f) for f in first["files"] if not Path(f).is_file()]
            if missing:
                findings.append(_rule("run", f"study {entry.name}: files named but not written: {missing[:3]}"))
            second = run_study(entry, **kw)
            if second["timing"]["cells_computed"]:
                findings.append(_rule("run", f"study {entry.name}: a second run computed "
                                             f"{second['timing']['cells_computed']} cells (the cache keys are not "
                                             f"stable)"))
    if findings:
        raise ProtocolError(f"study {entry.name}: " + "; ".join(findings))
    return {"cells": first["timing"]["cells_computed"], "files": len(first["files"]),
            "seconds": round(first["seconds"], 1)}


def undeclared_references(outputs: Outputs, notebook_code: str, paper_text: str = "", study: str = "") -> list[str]:
    """The outputs a notebook's code (``result["tables"]["name"]``, ``"name" in
    result["figures"]``; an f-string's ``{...}`` matches any part) or a paper
    section (``/generated/<study>/tables/<name>.csv``) names that ``outputs``
    does not declare."""
    import re

    refs = [(k, n) for k, n in re.findall(r'result\["(tables|figures|datasets|data)"\]\[f?"([^"]+)"\]', notebook_code)]
    refs += [(k, n) for n, k in re.findall(r'f?"([^"]+)" (?:not )?in result\["(tables|figures|datasets|data)"\]',
                                           notebook_code)]
    if study:
        refs += re.findall(rf'/generated/{re.escape(study)}/(tables|figures)/([^"/]+?)\.(?:csv|png)', paper_text)
    return [f"{k}/{n}" for k, n in refs if not outputs.declares(k, re.sub(r"\{[^}]*\}", "x", n))]


def _notebook_findings(entry: Entry) -> list[str]:
    import nbformat

    nb_path = paths.ROOT / entry.notebook
    if not nb_path.is_file():
        return [_rule("notebook", f"{entry.notebook}: missing")]
    nb = nbformat.read(str(nb_path), as_version=4)
    found = []
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1 or cells[0].source != parameters_cell(entry).rstrip("\n"):
        found.append(_rule("notebook", f"{entry.notebook}: parameters cell out of date or not one cell tagged "
                                       f"'parameters' (python -m schedlab.protocol.study cells)"))
    if not any(f'run_study("{entry.name}", globals())' in c.source for c in nb.cells if c.cell_type == "code"):
        found.append(_rule("notebook", f"{entry.notebook}: does not run the study through the driver"))
    if nb.metadata.get("kernelspec", {}).get("name") != "schedlab":
        found.append(_rule("notebook", f"{entry.notebook}: not on the schedlab kernel"))
    if any(c.cell_type == "code" and (c.outputs or c.execution_count is not None) for c in nb.cells):
        found.append(_rule("notebook", f"{entry.notebook}: committed with outputs"))
    first = nb.cells[0] if nb.cells else None
    if first is None or first.cell_type != "markdown":
        found.append(_rule("notebook", f"{entry.notebook}: does not open with a Markdown cell saying what it is"))
    elif not first.source.startswith(f"# Study {entry.number} "):
        found.append(_rule("numbering", f"{entry.notebook}: its title starts {first.source[:20]!r}, not "
                                        f"'# Study {entry.number} '"))
    outputs = getattr(importlib.import_module(entry.module), "OUTPUTS", None)
    if isinstance(outputs, Outputs):
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        section = entry.section_source
        paper = section.read_text() if section.is_file() else ""
        for ref in undeclared_references(outputs, code, paper, entry.name):
            found.append(_rule("outputs", f"{entry.notebook} or {relpath(section)}: names {ref}, not declared in "
                                          f"the study's OUTPUTS"))
    return found


# --------------------------------------------------------- notebook cells --

def _papermill_comment(text: str) -> str:
    """A help text papermill can read beside its assignment: its parameter
    inspection skips any line with a second '=' (then warns "Unable to parse
    line" and "Passed unknown parameter" on every run), so '=' reads 'is'."""
    return text.replace(" = ", " is ").replace("=", " is ")


def parameters_cell(entry: Entry) -> str:
    """The parameters cell of a study's notebook, generated from its Params
    and its quick profile: "Run All" in JupyterLab runs the quick profile
    into the folder ``make reproduce`` uses."""
    mod = study_module(entry)
    values, _, _ = load_profile(entry, "quick")
    defaults = mod.Params.defaults()
    lines = ["# Parameters (generated by `python -m schedlab.protocol.study cells` from the study's Params and",
             f"# params/quick/{entry.stem}.yaml; papermill replaces them with another profile's).",
             "# Change a value and the results go to results/custom/ instead of results/quick/.",
             'profile = "quick"']
    for f in dataclasses.fields(mod.Params):
        v = values.get(f.name, defaults[f.name])
        v = plain(v)
        unit = f" [{f.metadata['unit']}]" if f.metadata.get("unit") else ""
        lines.append(f"{f.name} = {v!r}  # {_papermill_comment(f.metadata.get('help', ''))}{unit}".rstrip())
    lines += ["# where and how it runs (not the science):",
              "outdir = None  # None: results/<profile>/<NN-study>/ (results/custom/ for changed values)",
              "workers = None  # dask workers of the local cluster (None: all cores)",
              "cache_dir = None  # the cache of computed cells (None: results/cache)",
              "scheduler = None  # or a dask scheduler address (a site cluster); default $SCHEDLAB_SCHEDULER"]
    return "\n".join(lines) + "\n"


def write_cells(entries=STUDIES) -> list[str]:
    """Rewrites the parameters cell of each protocol study's notebook; returns the stems changed."""
    import nbformat

    changed = []
    for entry in entries:
        try:
            study_module(entry)
        except InputError:
            continue
        nb_path = paths.ROOT / entry.notebook
        if not nb_path.is_file():
            raise InputError(f"{entry.notebook}: missing (schedlab study new {entry.name} starts a study with its "
                             f"notebook)")
        nb = nbformat.read(str(nb_path), as_version=4)
        tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        if len(tagged) != 1:
            raise InputError(f"{entry.notebook}: expected one cell tagged 'parameters', found {len(tagged)} (tag "
                             f"the cell that assigns the parameters: JupyterLab, property inspector, cell tags)")
        cell = tagged[0]
        text = parameters_cell(entry)
        if cell.source != text.rstrip("\n"):
            cell.source = text.rstrip("\n")
            from ..files import atomic

            with atomic(nb_path, suffix=".ipynb") as tmp:
                nbformat.write(nb, str(tmp))
            changed.append(entry.stem)
    return changed


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["cells"]:
        try:
            for stem in write_cells():
                print(f"rewrote the parameters cell of notebooks/{stem}.ipynb")
        except InputError as exc:
            print(f"schedlab.protocol.study cells: {exc}", file=sys.stderr)
            return 2
        return 0
    if argv[:1] == ["readme-table"]:
        from ..studies.registry import readme_table
        print(readme_table(), end="")
        return 0
    if argv[:1] == ["readme"]:         # make readme: the README's study table and the full run's account
        from ..files import atomic
        from ..studies.registry import readme_with_table
        readme = paths.ROOT / "README.md"
        text = readme.read_text()
        new = readme_with_table(text)
        if new != text:
            with atomic(readme) as tmp:
                Path(tmp).write_text(new)
            print("rewrote the study table and the full run's account of README.md")
        return 0
    print("usage: python -m schedlab.protocol.study cells | readme | readme-table", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
