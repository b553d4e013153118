"""``schedlab study new NAME``: the starting files of a new study.

:func:`new_study` writes a study that runs and passes
:func:`schedlab.protocol.study.check_study` as it is, in the only places a
study lives (DESIGN §8):

* ``lib/schedlab/studies/<name>/``: ``study.toml`` (its registry entry,
  numbered after the last study), ``__init__``, ``params`` (``Params``,
  ``OUTPUTS``, ``TINY``), ``cells`` (one registered cell, inputs and outputs
  declared), ``analysis``, ``tables``, ``figures``, ``report``, ``run``
  (``compute``), ``published.toml`` and ``section.typ`` (its paper section);
* ``notebooks/<NN>-<slug>.ipynb``: the generated parameters cell (tagged
  ``parameters``) and the call of the driver;
* ``params/quick/<NN>-<slug>.yaml`` and ``params/full/<NN>-<slug>.yaml``.

The study it starts from is small and real: EASY with one policy on the
first weeks of each trace, each week simulated alone, its mean wait, maximum
wait, bounded slowdown and utilisation in a table and a figure.  Names and
texts are checked against a whitelist before anything is written; nothing
is written when any file already exists.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .. import paths
from ..errors import InputError
from ..files import write_bytes

#: What a title or a paper reference may hold: letters (any script), digits,
#: spaces and ``.,;:()'&%+/§-`` (it goes into Python, TOML, YAML and Typst text).
TEXT = re.compile(r"^[\w .,;:()'&%+/§-]{1,120}$")


@dataclass(frozen=True)
class NewStudy:
    """What :func:`new_study` wrote: the entry and the files."""

    name: str
    number: int
    stem: str
    files: tuple[Path, ...]

    def next_steps(self) -> str:
        """What to edit next, for the person who ran ``study new``."""
        pkg = f"lib/schedlab/studies/{self.name}"
        return "\n".join([
            f"study {self.name}: notebooks/{self.stem}.ipynb, {pkg}/, params/{{quick,full}}/{self.stem}.yaml",
            "It runs as it is:",
            f"  schedlab study run {self.name} --profile quick",
            f"  python -c 'from schedlab.protocol.study import check_study; print(check_study(\"{self.name}\"))'",
            "Then make it yours:",
            f"  {pkg}/study.toml    its one-line summary and the papers it reproduces",
            f"  {pkg}/params.py     its parameters (default = the quick profile), OUTPUTS, TINY",
            f"  {pkg}/cells.py      the simulations: inputs and produced variables declared",
            f"  {pkg}/analysis.py   pure functions of the campaigns' datasets",
            f"  {pkg}/tables.py, figures.py, report.py   what it shows; run.py: compute()",
            f"  {pkg}/published.toml   the papers' values, each with its source (then scorecard rows)",
            f"  {pkg}/section.typ   its section of the paper",
            f"  params/full/{self.stem}.yaml   the papers' sizes (values that differ from the defaults)",
            "After editing Params: python -m schedlab.protocol.study cells (the notebook's parameters cell).",
            "The rules it must keep: docs/DESIGN.md §8; how-tos: CONTRIBUTING.md.",
        ])


def _module_names() -> set[str]:
    """The top-level modules a study's package name must not shadow or be
    confused with: the standard library's, and those of the lock
    (requirements.lock) and of the installed distributions."""
    import importlib.metadata
    import sys

    from .. import lockfile

    names = set(sys.stdlib_module_names)
    try:
        names |= {lockfile.canonical(n).replace("-", "_") for n in lockfile.requirements()}
    except (InputError, OSError):       # no lock (a site's checkout): the installed distributions still count
        pass
    names |= {n.lower() for n in importlib.metadata.packages_distributions()}
    return names


def check_name(name: str, root=None) -> str:
    """A new study's name, checked against everything it becomes before
    anything is written: a lower-case identifier (no whitespace, not even a
    trailing newline) that is no Python keyword and no module of the
    standard library or of the lock, whose package, slug and notebook stem
    no study (nor a package the registry left out), module of
    ``schedlab.studies`` or notebook already uses."""
    import keyword

    from ..studies import registry

    shown = repr(str(name)[:60])
    if isinstance(name, str) and any(c.isspace() for c in name):
        raise InputError(f"study name {shown}: carries whitespace (it names a Python package and files)")
    if not isinstance(name, str) or not registry.NAME.fullmatch(name) or name in registry.RESERVED:
        raise InputError(f"study name {shown}: lower-case letters, digits and '_', starting with a "
                         f"letter, at most 40 characters (it names a Python package), not "
                         f"{', '.join(registry.RESERVED)}")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise InputError(f"study name {name!r}: a Python keyword (its package could not be imported by name)")
    if name in _module_names():
        raise InputError(f"study name {name!r}: the name of a module of Python's standard library or of the "
                         f"lock (requirements.lock); choose a name that cannot be confused with it")
    taken = registry.HERE / name
    if taken.exists() or (registry.HERE / f"{name}.py").exists():
        raise InputError(f"study name {name!r}: lib/schedlab/studies/{name} already exists")
    slug = name.replace("_", "-")
    found = registry.scan()
    for e in found.entries + found.left_out:
        if slug == e.slug:
            raise InputError(f"study name {name!r}: its slug {slug!r} (notebooks/NN-{slug}.ipynb) is study "
                             f"{e.name}'s; choose another name")
    root = Path(root) if root is not None else paths.ROOT
    for folder in ("notebooks", "params/quick", "params/full"):
        for f in sorted((root / folder).glob(f"[0-9][0-9]-{slug}.*")):
            raise InputError(f"study name {name!r}: {folder}/{f.name} already has the slug {slug!r} in its stem")
    return name


def _text(value: str, what: str) -> str:
    if not isinstance(value, str) or not TEXT.match(value) or value != value.strip():
        raise InputError(f"--{what} {str(value)[:60]!r}: one line of at most 120 characters: letters, digits, "
                         f"spaces and .,;:()'&%+/§- only")
    return value


def next_number() -> int:
    """The number after the last study's (read from the packages now, not
    from this process's registry)."""
    from ..studies import registry

    found = registry.scan()
    return max((e.number for e in found.entries + found.left_out), default=-1) + 1


def _substitute(template: str, values: dict[str, str]) -> str:
    out = template
    for key, value in values.items():
        out = out.replace("{{" + key + "}}", value)
    left = re.findall(r"\{\{[a-z_]+\}\}", out)
    if left:
        raise AssertionError(f"scaffold template: unfilled {left}")
    return out


def new_study(name: str, title: str | None = None, paper: str | None = None, *, root=None,
              log=None) -> NewStudy:
    """Write the starting files of study ``name`` (see the module's
    docstring); returns what it wrote.  ``title`` (default: the name) heads
    its notebook and paper section; ``paper`` names the papers it reproduces
    (default "none yet").  ``root``: the repository (default the checkout)."""
    from ..studies import registry

    check_name(name, root)
    title = _text(title if title is not None else name.replace("_", " ").capitalize(), "title")
    paper = _text(paper if paper is not None else "none yet", "paper")
    root = Path(root) if root is not None else paths.ROOT
    number = next_number()
    if number > 99:
        raise InputError("100 studies already: a study's number has two digits")
    slug = name.replace("_", "-")
    stem = f"{number:02d}-{slug}"
    pkg = registry.HERE / name
    targets = {pkg / f: t for f, t in PACKAGE.items()}
    targets[root / "notebooks" / f"{stem}.ipynb"] = None
    for profile in ("quick", "full"):
        targets[root / "params" / profile / f"{stem}.yaml"] = PROFILES[profile]
    clash = [str(p) for p in targets if p.exists()]
    if clash:
        raise InputError(f"study {name}: would overwrite {', '.join(clash)}")
    values = {"name": name, "number": str(number), "slug": slug, "stem": stem, "title": title, "paper": paper,
              "title_toml": json.dumps(title, ensure_ascii=False), "paper_toml": json.dumps(paper, ensure_ascii=False),
              "title_typ": json.dumps(title, ensure_ascii=False)}
    written = []
    pkg.mkdir(parents=True)
    try:
        for path, template in targets.items():
            if template is None:
                continue
            write_bytes(path, _substitute(template, values).encode("utf-8"))
            written.append(path)
        nb = root / "notebooks" / f"{stem}.ipynb"
        _write_notebook(nb, registry.read_entry(pkg), paper)
        written.append(nb)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        for p in sorted(pkg.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        pkg.rmdir()
        raise
    made = NewStudy(name, number, stem, tuple(written))
    if log:
        log(made.next_steps())
    return made


def _write_notebook(path: Path, entry, paper: str) -> None:
    """The study's thin notebook: what it is, the generated parameters cell, the driver's call, its outputs."""
    import importlib

    import nbformat

    from .study import parameters_cell

    importlib.invalidate_caches()
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"display_name": "schedlab", "language": "python", "name": "schedlab"},
                   "language_info": {"name": "python"}}
    intro = _substitute(NOTEBOOK_INTRO, {"number": str(entry.number), "title": entry.title, "paper": paper,
                                         "name": entry.name, "stem": entry.stem})
    cells = [nbformat.v4.new_markdown_cell(intro),
             nbformat.v4.new_code_cell(parameters_cell(entry).rstrip("\n"), metadata={"tags": ["parameters"]}),
             nbformat.v4.new_code_cell(_substitute(NOTEBOOK_RUN, {"name": entry.name})),
             nbformat.v4.new_markdown_cell(NOTEBOOK_WEEKS_TEXT),
             nbformat.v4.new_code_cell(NOTEBOOK_WEEKS)]
    for i, c in enumerate(cells):
        c["id"] = f"{entry.name}-{i:02d}"
    nb.cells = cells
    nbformat.validate(nb)
    from ..files import atomic

    with atomic(path, suffix=".ipynb") as tmp:
        nbformat.write(nb, str(tmp))


# ------------------------------------------------------------ the templates --
# {{name}}, {{number}}, {{title}}, {{paper}}, {{slug}}, {{stem}} are filled in;
# titles and papers are whitelisted (TEXT), so they are safe in every file.

NOTEBOOK_INTRO = """# Study {{number}} — {{title}} ({{paper}})

What this study shows, in a few sentences (edit this cell).  As made by `schedlab study new`, it
simulates EASY with one policy on the first weeks of each trace, each week alone, and shows the
mean and maximum wait, the mean bounded slowdown and the utilisation of every week.

"Run All" runs the quick profile into `results/quick/{{stem}}/`; change a value of the parameters
cell and the results go to `results/custom/` instead.  The same run from a terminal:
`schedlab study run {{name}}`."""

NOTEBOOK_RUN = """from IPython.display import Image, Markdown, display

from schedlab.protocol.study import run_study

result = run_study("{{name}}", globals())   # the one driver: same as make reproduce and `schedlab study run {{name}}`
display(Markdown(result["params"].describe().to_markdown()))"""

NOTEBOOK_WEEKS_TEXT = """## Every week

One row per simulated week, then the mean over the weeks of each trace."""

NOTEBOOK_WEEKS = """display(Markdown(result["tables"]["weeks"].to_markdown()))
display(Markdown(result["tables"]["summary"].to_markdown()))
display(Image(filename=str(result["figures"]["waits"][0])))"""

STUDY_TOML = """# This study's entry in the registry (schedlab.studies.registry reads every
# studies/<name>/study.toml): its notebook is notebooks/<NN>-<slug>.ipynb, its
# parameters params/{quick,full}/<NN>-<slug>.yaml, its results results/<profile>/<NN>-<slug>/.
number = {{number}}
slug = "{{slug}}"
title = {{title_toml}}
summary = "EASY on each week of each trace: waits, bounded slowdown, utilisation (made by schedlab study new)"
papers = {{paper_toml}}
data = ["traces"]
"""

INIT = '''"""Study {{number}} -- {{title}}.

What it computes and from which paper ({{paper}}): say it here, with the
choices the papers leave open written down once.  As made by
``schedlab study new``: EASY with one policy (``policy``) on the first
``weeks`` weeks of each trace, each week simulated alone (its jobs, those
submitted in it), and per week the mean and maximum wait, the mean bounded
slowdown and the utilisation.

The package: :mod:`~schedlab.studies.{{name}}.params` (``Params``,
``OUTPUTS``, ``TINY``), :mod:`~schedlab.studies.{{name}}.cells` (the
simulations), :mod:`~schedlab.studies.{{name}}.analysis` (pure functions of
the datasets), :mod:`~schedlab.studies.{{name}}.tables`,
:mod:`~schedlab.studies.{{name}}.figures`,
:mod:`~schedlab.studies.{{name}}.report`, :mod:`~schedlab.studies.{{name}}.run`
(:func:`compute`), ``published.toml`` and ``section.typ``.
"""
from .params import OUTPUTS, TINY, Params
from .run import compute

__all__ = ["Params", "OUTPUTS", "TINY", "compute"]
'''

PARAMS = '''"""The parameters of the {{name}} study, declared once (default = the quick
profile's value; params/full/{{stem}}.yaml holds the full profile's values
that differ)."""
from __future__ import annotations

from dataclasses import dataclass

from ...declared import integer
from ...jobs import Policy
from ...protocol.study import Outputs, param
from ...protocol.study import Params as StudyParams
from ...workloads import traces as _traces
from ..registry import name_of

STUDY = name_of(__name__)


def _policy(value, name: str) -> str:
    """An EASY policy of two pure queue orders, e.g. EASY-SPF-FCFS."""
    from ...errors import InputError

    try:
        p = Policy.parse(str(value))
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None
    if not isinstance(p.primary, str) or not isinstance(p.backfill, str):
        raise InputError(f"{name}: a pair of queue policies, e.g. EASY-SPF-FCFS, got {value!r}")
    return f"EASY-{p.primary}-{p.backfill}"


@dataclass(frozen=True)
class Params(StudyParams):
    """The {{name}} study's parameters."""

    traces: tuple = param(("KTH-SP2",), check=_traces.trace_tuple,
                          help="traces: registry names (schedlab traces list) or SWF paths")
    policy: str = param("EASY-FCFS-FCFS", check=_policy, help="the policy simulated, EASY-<P_R>-<P_B>")
    weeks: int = param(4, unit="weeks", check=integer(1),
                       help="the first weeks (with jobs) of each trace, each simulated alone")


#: The parameters of a tiny run of the study (seconds, on a generated log):
#: what schedlab.protocol.study.check_study and the own-trace tests run.
TINY = {"weeks": 2}


#: What the study writes, by name (schedlab.protocol.study.Outputs): the driver refuses an
#: undeclared output, and the notebook and the paper may name only these.
OUTPUTS = Outputs(
    tables=("weeks", "summary"),
    figures=("waits",))
'''

CELLS = '''"""The simulations of the {{name}} study: each cell registered with the
inputs it reads and the variables it produces.  A cell imports the engine,
the workloads, schedlab.campaigns' cells/spec/store and schedlab.science
only (never this study's params, analysis, tables, figures or report): its
cache key covers the code it imports, so editing how a result is shown never
recomputes it."""
from __future__ import annotations

from dataclasses import dataclass

from ...campaigns.cells import TraceInputs, cell
from ...campaigns.outputs import produces
from ...declared import integer, param, text
from ...engine import sim
from ...errors import InputError
from ...workloads import traces as _traces
from ...workloads import workload

#: The variables :func:`week_cell` produces (its @produces): the engine's
#: metrics (schedlab.campaigns.store.VARIABLES).  A variable of this study's
#: own is declared here with schedlab.campaigns.store.declare and listed too.
WEEK_OUTPUTS = ("avg_wait", "max_wait", "mean_bsld", "utilisation", "jobs")


@dataclass(frozen=True)
class WeekInputs(TraceInputs):
    """One week of one trace under one policy."""

    policy: str = param("EASY-FCFS-FCFS", help="the policy simulated, EASY-<P_R>-<P_B>", check=text)
    week: int = param(0, help="the week of the cleaned log (0: the first)", unit="weeks", check=integer(0))


@cell("{{name}}-week", WeekInputs)
@produces(*WEEK_OUTPUTS)
def week_cell(q: WeekInputs) -> dict:
    """EASY on week ``week`` of the trace: the jobs submitted in it,
    simulated alone on the trace's machine."""
    jobs, _, m, _, _ = _traces.cleaned(q["trace"], m=q["m"], overrun=q["overrun"])
    weeks = workload.weeks(jobs)
    if q["week"] >= len(weeks) or not len(weeks[q["week"]]):
        raise InputError(f"{{name}}-week cell: week {q['week']} of the log has no job")
    summary = sim.simulate(weeks[q["week"]], m, q["policy"]).summary()
    return {k: ((), summary[k]) for k in WEEK_OUTPUTS}


def busy_weeks(jobs, n: int) -> list[int]:
    """The first ``n`` weeks of ``jobs`` that hold a job (the weeks a campaign runs)."""
    return [i for i, w in enumerate(workload.weeks(jobs)) if len(w)][:n]
'''

ANALYSIS = '''"""The computations of the {{name}} study: pure functions of the campaigns'
datasets (no file I/O, no plotting), each easy to test on a dataset made by
hand."""
from __future__ import annotations

import numpy as np


def per_trace(datasets: dict) -> dict:
    """trace -> the mean over its weeks of each variable, and the weeks."""
    out = {}
    for name, ds in datasets.items():
        row = {"weeks": int(ds.sizes["week"])}
        for var in ("avg_wait", "max_wait", "mean_bsld", "utilisation"):
            values = np.asarray(ds[var].values, dtype=float)
            row[var] = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
        out[name] = row
    return out
'''

TABLES = '''"""The tables of the {{name}} study."""
from __future__ import annotations

from .. import Table


def table_weeks(datasets: dict) -> Table:
    """One row per trace and simulated week."""
    rows = []
    for name, ds in datasets.items():
        for i, week in enumerate(ds["week"].values):
            rows.append([name, int(week), int(ds["jobs"].values[i]), float(ds["avg_wait"].values[i]) / 3600,
                         float(ds["max_wait"].values[i]) / 3600, float(ds["mean_bsld"].values[i]),
                         float(ds["utilisation"].values[i])])
    return Table(["trace", "week", "jobs", "mean wait (h)", "max wait (h)", "mean bsld", "utilisation"], rows,
                 title="EASY on each week, simulated alone", digits={"mean wait (h)": 2, "max wait (h)": 1},
                 notes=["week: index of the week of the cleaned log, from its first submission."])


def table_summary(summary: dict) -> Table:
    """The mean over the weeks of each trace (:func:`analysis.per_trace`)."""
    rows = [[name, s["weeks"], s["avg_wait"] / 3600, s["max_wait"] / 3600, s["mean_bsld"], s["utilisation"]]
            for name, s in summary.items()]
    return Table(["trace", "weeks", "mean wait (h)", "max wait (h)", "mean bsld", "utilisation"], rows,
                 title="Mean over the weeks of each trace")
'''

FIGURES = '''"""The figures of the {{name}} study (drawing only)."""
from __future__ import annotations

from ...protocol import plots


def figure_waits(datasets: dict, policy: str):
    """The mean wait of each simulated week, one line per trace."""
    with plots.style():
        fig = plots.figure(6.5, 3.0)
        ax = fig.add_subplot(111)
        for name, ds in datasets.items():
            ax.plot(ds["week"].values, ds["avg_wait"].values / 3600, marker="o", ms=3,
                    color=plots.trace_color(name), label=name)
        ax.set_xlabel("week of the log")
        ax.set_ylabel("mean wait (h)")
        ax.set_title(f"{policy}, each week simulated alone")
        ax.legend(loc="upper right")
    return fig
'''

REPORT = '''"""The key numbers and findings of the {{name}} study (for the notebook and the paper)."""
from __future__ import annotations


def numbers(summary: dict, policy: str) -> dict:
    return {"study": "{{name}}", "policy": policy, "traces": summary}


def findings(summary: dict, policy: str) -> dict:
    return {name: f"{policy}: mean wait {s['avg_wait'] / 3600:.2f} h, utilisation {s['utilisation']:.2f} "
                  f"over {s['weeks']} weeks" for name, s in summary.items()}
'''

RUN = '''"""The {{name}} study, :func:`compute`: the campaigns, then the tables,
figures and numbers handed to the driver (schedlab.protocol.study.run_study),
which writes them."""
from __future__ import annotations

from typing import Any

from ...campaigns.spec import Campaign
from ...workloads import traces as _traces
from . import cells
from .analysis import per_trace
from .figures import figure_waits
from .params import STUDY, Params
from .report import findings, numbers
from .tables import table_summary, table_weeks


def compute(params: Params, ctx) -> dict[str, Any]:
    """Through ``ctx``: ``tables/{weeks,summary}``, ``figures/waits``."""
    datasets = {}
    for info in params.traces:
        weeks = cells.busy_weeks(_traces.cleaned(info).jobs, params.weeks)
        campaign = Campaign(f"{STUDY}-{info.name}", {"week": weeks},
                            {"trace": _traces.text(info), "policy": params.policy},
                            cell=f"{cells.__name__}:week_cell")
        datasets[info.name] = ctx.campaign(campaign)
    summary = per_trace(datasets)
    tables = {"weeks": ctx.table("weeks", table_weeks(datasets)),
              "summary": ctx.table("summary", table_summary(summary))}
    figures = {"waits": ctx.figure("waits", figure_waits(datasets, params.policy))}
    return {"numbers": numbers(summary, params.policy), "findings": findings(summary, params.policy),
            "tables": tables, "figures": figures, "datasets": datasets}
'''

PUBLISHED = '''# The values the papers publish that this study compares with (read by
# schedlab.studies.load_published("schedlab.studies.{{name}}")).  One table per
# published table, figure or claim, each with a `source` citing it; a study that
# sets them beside its own results returns scorecard rows
# (schedlab.protocol.scorecard.Row) and declares the tables they feed
# (Outputs.feeds in params.py).  For example:
#
# [table_1]
# source = "{{paper}}, Table 1"
# columns = ["avg_wait_s"]
# [table_1.traces]
# KTH-SP2 = [12345.0]
'''

SECTION = '''#import "/lib.typ": *

// The {{name}} study's section of the paper (copied to paper/generated/{{name}}/ by
// the paper's build).  Numbers come from numbers.{{name}}, tables and figures from
// /generated/{{name}}/, by the names the study declares in its OUTPUTS.
= #{{title_typ}}

#let S = numbers.{{name}}
#let nb = "{{stem}}.ipynb"

EASY with the policy #raw(S.policy) on the first weeks of each trace, each week simulated alone.

#tab("/generated/{{name}}/tables/summary.csv", [The mean over the weeks of each trace.], nb, digits: 2)

#fig("/generated/{{name}}/figures/waits.png", [The mean wait of each simulated week.], nb)
'''

PROFILES = {
    "quick": "# Study {{number}} ({{name}}): {{title}} -- notebooks/{{stem}}.ipynb.\n"
             "# The quick profile is the defaults of schedlab.studies.{{name}}.Params.\n{}\n",
    "full": "# Study {{number}} ({{name}}): {{title}} -- notebooks/{{stem}}.ipynb.\n"
            "# The full profile: the values that differ from the defaults (the papers' sizes).\n"
            "weeks: 26\n",
}

#: The package's files and their templates.
PACKAGE = {"study.toml": STUDY_TOML, "__init__.py": INIT, "params.py": PARAMS, "cells.py": CELLS,
           "analysis.py": ANALYSIS, "tables.py": TABLES, "figures.py": FIGURES, "report.py": REPORT,
           "run.py": RUN, "published.toml": PUBLISHED, "section.typ": SECTION}
