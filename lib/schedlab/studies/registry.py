"""The registry of the studies, discovered from their packages: each study
package ``schedlab/studies/<name>/`` holds a ``study.toml`` (number, slug,
title, summary, papers, data) and nothing else registers it.  From here come
the notebooks' names, the results folders, the paper's keys and sections, the
README's study table and every test that iterates over the studies
(tests/test_study_protocol.py fails when any of them drifts).

An entry is data only: importing this module reads the ``study.toml`` files
and imports no study.  A package that is refused (a bad ``study.toml``, a
number or slug another study has) is left out of :data:`STUDIES` with its
problem in :data:`PROBLEMS` -- naming the package to fix -- so that one bad
package never stops ``study list`` or the other studies (issue 54);
:func:`discover` is the strict form, which raises the first problem.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

#: The folder of the study packages.
HERE = Path(__file__).resolve().parent
#: A study's name: a Python identifier in lower case (its package, its key in numbers.json).
NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
#: Names a study may not take: keys of paper/numbers.json beside the studies', and the registry's own module.
RESERVED = ("meta", "quick_check", "registry")
#: A study's slug: its notebook's and results folder's name after the number.
SLUG = re.compile(r"^[a-z][a-z0-9-]{0,39}$")


@dataclass(frozen=True)
class Entry:
    """One study: ``name`` (its package ``schedlab.studies.<name>``, its key in
    ``paper/numbers.json`` and ``paper/generated/``), ``number`` and ``slug``
    (its notebook ``notebooks/<NN>-<slug>.ipynb`` and results folder
    ``results/<profile>/<NN>-<slug>/``), ``title`` (README and paper section
    heading), ``summary`` (the README's one line), ``papers`` (keys and
    sections of the papers it reproduces), ``data`` (what it reads)."""

    name: str
    number: int
    slug: str
    title: str
    summary: str
    papers: str
    data: tuple[str, ...] = ("traces",)
    #: the study's package when it is not ``schedlab.studies.<name>`` (a site's own study)
    package: str = ""

    @property
    def stem(self) -> str:
        return f"{self.number:02d}-{self.slug}"

    @property
    def notebook(self) -> str:
        return f"notebooks/{self.stem}.ipynb"

    @property
    def module(self) -> str:
        return self.package or f"schedlab.studies.{self.name}"

    @property
    def registered(self) -> bool:
        return BY_NAME.get(self.name) is self

    @property
    def own_section(self) -> Path:
        """The section the study's package holds (``section.typ``, a new study's)."""
        return HERE / self.name / "section.typ"

    @property
    def section(self) -> str:
        """The paper's section file, relative to ``paper/``: the package's own
        ``section.typ`` (the paper's build copies it to
        ``paper/generated/<name>/section.typ``), else ``sections/<name>.typ``."""
        return f"generated/{self.name}/section.typ" if self.own_section.is_file() else f"sections/{self.name}.typ"

    @property
    def section_source(self) -> Path:
        """The file the section is written in."""
        from .. import paths

        return self.own_section if self.own_section.is_file() else paths.PAPER / self.section


#: The keys of a study.toml (``data`` may be left out: ``["traces"]``).
KEYS = ("number", "slug", "title", "summary", "papers", "data")


def read_entry(folder: Path) -> Entry:
    """The entry a study package's ``study.toml`` declares; every key is
    checked and an error names the file and the key."""
    from ..errors import InputError

    f = Path(folder) / "study.toml"
    where = f"lib/schedlab/studies/{Path(folder).name}/study.toml"
    try:
        d = tomllib.loads(f.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: {exc}") from None
    name = Path(folder).name
    unknown = sorted(set(d) - set(KEYS))
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}; the keys: {', '.join(KEYS)}")
    for key in KEYS[:-1]:
        if key not in d:
            raise InputError(f"{where}: missing {key!r}")
    if not NAME.fullmatch(name) or name in RESERVED:
        raise InputError(f"{where}: the package name {name!r} is not a study name (lower case, digits, _; "
                         f"not {', '.join(RESERVED)})")
    if not (isinstance(d["number"], int) and not isinstance(d["number"], bool) and 0 <= d["number"] <= 99):
        raise InputError(f"{where}: number must be an integer from 0 to 99, got {d['number']!r}")
    if not (isinstance(d["slug"], str) and SLUG.fullmatch(d["slug"])):
        raise InputError(f"{where}: slug must be lower-case letters, digits and '-', got {d['slug']!r}")
    for key in ("title", "summary", "papers"):
        if not isinstance(d[key], str) or "\n" in d[key] or "|" in d[key]:
            raise InputError(f"{where}: {key} must be one line of text without '|', got {d[key]!r}")
    data = d.get("data", ["traces"])
    if not (isinstance(data, list) and data and all(isinstance(x, str) and x for x in data)):
        raise InputError(f"{where}: data must be a list of strings (e.g. [\"traces\"]), got {data!r}")
    return Entry(name, d["number"], d["slug"], d["title"], d["summary"], d["papers"], tuple(data))


@dataclass(frozen=True)
class Scan:
    """What :func:`scan` found: the studies, the packages left out that
    declare a valid entry (one whose number or slug another study has), and
    each left-out package's problem (package name -> one line with its fix)."""

    entries: tuple[Entry, ...]
    left_out: tuple[Entry, ...]
    problems: dict


def scan(root: Path = HERE) -> Scan:
    """Every study package under ``root`` (a folder with ``study.toml``), by
    number; a package whose ``study.toml`` is refused, or whose number or
    slug a study before it (by number, then name) has, is left out with its
    problem instead of stopping the others."""
    from ..errors import InputError

    entries, problems = [], {}
    for f in sorted(Path(root).glob("*/study.toml")):
        try:
            entries.append(read_entry(f.parent))
        except InputError as exc:
            problems[f.parent.name] = f"{exc} (study {f.parent.name} is left out until its study.toml is fixed)"
    kept, left, seen = [], [], {}
    for e in sorted(entries, key=lambda e: (e.number, e.name)):
        clash = next(((a, seen[a, getattr(e, a)]) for a in ("number", "slug") if (a, getattr(e, a)) in seen), None)
        if clash:
            attr, other = clash
            problems[e.name] = (f"studies {other} and {e.name} have the same {attr} {getattr(e, attr)!r}: study "
                                f"{e.name} is left out; give it another {attr} in "
                                f"lib/schedlab/studies/{e.name}/study.toml (and its notebook and parameter "
                                f"files the new name), or rename or remove the package lib/schedlab/studies/"
                                f"{e.name}/")
            left.append(e)
            continue
        seen.update({(a, getattr(e, a)): e.name for a in ("number", "slug")})
        kept.append(e)
    return Scan(tuple(kept), tuple(left), problems)


def discover(root: Path = HERE) -> tuple[Entry, ...]:
    """:func:`scan`'s studies, strictly: the first problem is raised."""
    from ..errors import InputError

    found = scan(root)
    if found.problems:
        raise InputError(next(iter(found.problems.values())))
    return found.entries


_SCAN = scan()
STUDIES: tuple[Entry, ...] = _SCAN.entries
#: The packages left out of :data:`STUDIES`, each with its problem and fix (``study list`` prints them).
PROBLEMS: dict = _SCAN.problems

BY_NAME = {e.name: e for e in STUDIES}
BY_STEM = {e.stem: e for e in STUDIES}


def get(name_or_stem: str) -> Entry:
    """The entry of a study by name (``policies``), notebook stem
    (``01-policy-comparison``) or number (``1``)."""
    from ..errors import InputError

    key = str(name_or_stem).strip()
    if key in BY_NAME:
        return BY_NAME[key]
    if key in BY_STEM:
        return BY_STEM[key]
    for e in STUDIES:
        if key in (str(e.number), f"{e.number:02d}", e.slug):
            return e
    if key in PROBLEMS:
        raise InputError(PROBLEMS[key])
    raise InputError(f"unknown study {name_or_stem!r}; the studies: {', '.join(e.name for e in STUDIES)}")


#: The README's study table lies between these two lines (``make readme`` rewrites it).
README_BEGIN = "<!-- studies: generated from the registry by `make readme`; edit study.toml, not this table -->"
README_END = "<!-- studies: end -->"


def shipped(entry: Entry) -> bool:
    """Whether the study is shipped executed at full size (its notebook in ``shipped/full/notebooks/``)."""
    from .. import paths

    return (paths.ROOT / "shipped" / "full" / "notebooks" / f"{entry.stem}.ipynb").is_file()


def readme_table() -> str:
    """The README's table of the studies shipped at full size (a study
    joins it when it is shipped: ``python -m schedlab.publish.reproduce ship``)."""
    lines = ["| notebook | study | papers | run at full size |", "|---|---|---|---|"]
    lines += [f"| `{e.stem}` | {e.summary} | {e.papers} | [executed](shipped/full/notebooks/{e.stem}.ipynb) |"
              for e in STUDIES if shipped(e)]
    return "\n".join(lines) + "\n"


#: The README's account of the shipped full run lies between these two lines, generated from the run's
#: own figures file (``shipped/full/bench-profile-full.json``, bench/bench_profile.py's), never typed.
RUN_BEGIN = ("<!-- full run: generated from shipped/full/bench-profile-full.json by `make readme`; "
             "ship a run, not this text -->")
RUN_END = "<!-- full run: end -->"


def readme_run(figures: dict | None = None) -> str:
    """The README's account of the shipped full run: its commit, date, passes, wall
    time and CPU-s, and per study the wall minutes, CPU-s, cells computed and cells
    taken from the cache (the run's own ``bench-profile-full.json``)."""
    import json

    from .. import paths

    if figures is None:
        figures = json.loads((paths.ROOT / "shipped" / "full" / "bench-profile-full.json").read_text())
    rows = figures["studies"]
    cpu = sum(r.get("cpu_s", 0.0) for r in rows)
    passes = len(figures.get("passes") or [None])
    how = ((("one cold run" if figures.get("cold") else "one run on a kept cache (not cold)") + " of the whole full profile")
           if figures.get("complete") else "part of the full profile (an unfinished run)")
    head = (f"The shipped run: {how} from a fresh clone at `{figures['commit'][:7]}`, "
            f"{figures['created'][:10]}, {figures['cores']} cores"
            + (f", in {passes} passes on one clone and cache (`passes` in the file)" if passes > 1 else "")
            + f": {figures['total_s'] / 60:.0f} min of wall time, {cpu:,.0f} CPU-s (the studies' processes and "
              "their workers).")
    lines = [head, ""]
    if figures.get("note"):         # how the run was made (its passes, what shared the machine), from the file
        lines += [f"How it was run: {figures['note']}", ""]
    lines += ["| study | wall (min) | CPU-s | cells computed | cells from the cache |", "|---|---:|---:|---:|---:|"]
    lines += [f"| `{r['stem']}` | {r['wall_s'] / 60:.1f} | {r.get('cpu_s', 0.0):,.0f} | {r.get('cells', 0):,} | "
              f"{r.get('cached', 0):,} |" for r in rows]
    return "\n".join(lines) + "\n"


def _between(text: str, begin: str, end: str, body: str, what: str) -> str:
    from ..errors import InputError

    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise InputError(f"README.md: the {what}'s markers are missing or out of order ({begin!r} ... {end!r})")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body}{end}{tail}"


def readme_with_table(text: str) -> str:
    """``text`` (the README) with the study table between :data:`README_BEGIN` and
    :data:`README_END` and the full run's account between :data:`RUN_BEGIN` and
    :data:`RUN_END` regenerated."""
    text = _between(text, README_BEGIN, README_END, readme_table(), "study table")
    return _between(text, RUN_BEGIN, RUN_END, readme_run(), "full run's account")


def name_of(module: str) -> str:
    """The registered name of the study a module belongs to
    (``schedlab.studies.mixed.params`` -> ``mixed``): a study's ``STUDY``
    comes from here, so its name is written once, in its package's folder
    (a package with a ``study.toml``, found now: a study made in this process
    by ``schedlab study new`` is one)."""
    parts = module.split(".")
    if (parts[:2] != ["schedlab", "studies"] or len(parts) < 3
            or not (parts[2] in BY_NAME or (NAME.fullmatch(parts[2]) and (HERE / parts[2] / "study.toml").is_file()))):
        raise ValueError(f"{module} is not a module of a registered study")
    return parts[2]
