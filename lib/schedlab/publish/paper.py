"""Build the paper: collect the studies' generated outputs, then compile
``paper/paper.typ`` with the ``typst`` Python package.

For each executed study ``results/<profile>/<NN-study>/`` this copies
``figures/*.png`` and ``tables/*.csv`` to ``paper/generated/<study>/`` and
puts its ``numbers.json`` under the key ``<study>`` of ``paper/numbers.json``
(with a ``meta`` entry: versions, commit, profile, date, and ``studies``: the
registry's studies in order, each with its title, notebook and section
file, which the paper's section list reads).  A study whose package holds its
own ``section.typ`` has it copied to ``paper/generated/<study>/section.typ``.  The paper reads
nothing else.  ``build(..., paper_dir=tmp)`` works on a copy (tests).
"""
from __future__ import annotations

import json
import platform
import re
import shutil
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__, paths
from ..files import atomic, atomic_folder

STEM = re.compile(r"^\d+-(?P<study>[a-z0-9_-]+)$")


def study_name(stem: str) -> str:
    """'01-policy-comparison' -> 'policies' (the registry's name: the study's
    key in numbers.json and paper/generated/)."""
    from ..studies.registry import BY_STEM

    return BY_STEM[stem].name if stem in BY_STEM else stem


def collect(results: Path, paper_dir: Path, profile: str, use_shipped: bool = True,
            shipped_root: Path | None = None) -> dict:
    """Copy figures/tables and merge numbers; returns the numbers written.

    Each study is read from the full-size results shipped with the
    repository (:mod:`schedlab.publish.shipped`) when there are some and
    ``use_shipped``, else from this build's ``results``; ``meta.sources``
    says which, and a quick build's scorecard rows are checked against the
    shipped ones (``quick_check``, ``generated/quick_check.csv``)."""
    from .. import lockfile
    from . import shipped
    from ..engine.sim import VERSION
    from ..workloads.traces import sha256_file

    gen = paper_dir / "generated"
    numbers = {"meta": {"schedlab_version": __version__, "core_version": VERSION, "git_commit": paths.git_commit(),
                        "profile": profile,
                        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                        # the environment it ran in: the lock's versions of the direct
                        # requirements, the lock's checksum, and whether what was
                        # installed was exactly the lock
                        "python": platform.python_version(),
                        "locked": lockfile.direct_versions(),
                        "lock_sha256": sha256_file(lockfile.UV_LOCK),
                        "environment_is_lock": not lockfile.differences()}}
    from ..studies.registry import BY_STEM, STUDIES
    # the sections, in the registry's order: every registered study has one, executed or not
    numbers["meta"]["studies"] = [{"name": e.name, "title": e.title, "notebook": f"{e.stem}.ipynb",
                                   "section": e.section} for e in STUDIES]
    srcs = shipped.sources(profile, results, use_shipped=use_shipped and profile != "full", root=shipped_root)
    numbers["meta"]["sources"] = {}
    manifest = shipped.read_manifest("full", shipped_root)
    for stem, (study_dir, kind) in sorted(srcs.items()):
        if not STEM.match(stem):
            continue
        nfile = study_dir / "numbers.json"
        study = study_name(stem)
        numbers[study] = json.loads(nfile.read_text())
        numbers[study]["_notebook"] = f"{stem}.ipynb"
        if kind == "shipped":
            m = manifest["studies"][stem]
            numbers["meta"]["sources"][study] = {"from": "shipped", "profile": "full", "commit": m.get("commit"),
                                                 "created": m.get("created"), "wall_s": m.get("wall_s"),
                                                 "jobs_simulated": m.get("jobs_simulated")}
        else:
            numbers["meta"]["sources"][study] = {"from": "run", "profile": profile}
        with atomic_folder(gen / study) as tmp:
            for sub, pattern in (("figures", "*.png"), ("tables", "*.csv")):
                (tmp / sub).mkdir()
                for f in sorted((study_dir / sub).glob(pattern)):
                    shutil.copy2(f, tmp / sub / f.name)
            entry = BY_STEM.get(stem)
            if entry is not None and entry.own_section.is_file():     # a section its package holds
                shutil.copy2(entry.own_section, tmp / "section.typ")
    if profile != "full" and use_shipped and Path(results).exists():
        rows, counts = shipped.quick_check(results, root=shipped_root)
        if rows:
            from ..studies import Table
            disagree = [r for r in rows if r[7] == "disagree"]
            gen.mkdir(parents=True, exist_ok=True)
            Table(shipped.QUICK_CHECK_COLUMNS, rows).write(gen / "quick_check")
            Table(shipped.QUICK_CHECK_COLUMNS, disagree).write(gen / "quick_check_disagree")
            numbers["quick_check"] = {"profile": profile, "counts": counts,
                                      "total": {s: sum(c[s] for c in counts.values()) for s in shipped.STATUSES}}
    with atomic(paper_dir / "numbers.json") as tmp, open(tmp, "w") as f:
        json.dump(numbers, f, indent=1, default=str)
    return numbers


def compile_pdf(paper_dir: Path, output: Path | None = None) -> Path:
    import typst

    output = Path(output or paper_dir / "paper.pdf")
    with atomic(output, suffix=".pdf") as tmp:
        typst.compile(str(paper_dir / "paper.typ"), output=str(tmp), root=str(paper_dir))
    return output


def build(profile: str = "quick", results: Path | None = None, paper_dir: Path | None = None,
          use_shipped: bool = True, shipped_root: Path | None = None) -> Path:
    results = Path(results or paths.RESULTS / profile)
    paper_dir = Path(paper_dir or paths.PAPER)
    if not results.exists():
        raise FileNotFoundError(f"{results}: no executed studies (run the notebooks first: make reproduce)")
    collect(results, paper_dir, profile, use_shipped=use_shipped, shipped_root=shipped_root)
    return compile_pdf(paper_dir)
