"""Build the paper: collect the studies' generated outputs, then compile
``paper/paper.typ`` with the ``typst`` Python package.

For each executed study ``results/<profile>/<NN-study>/`` this copies
``figures/*.png`` and ``tables/*.csv`` to ``paper/generated/<study>/`` and
puts its ``numbers.json`` under the key ``<study>`` of ``paper/numbers.json``
(with a ``meta`` entry: versions, commit, profile, date).  The paper reads
nothing else.  ``build(..., paper_dir=tmp)`` works on a copy (tests).
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from . import __version__, paths

STEM = re.compile(r"^\d+-(?P<study>[a-z0-9_-]+)$")


def study_name(stem: str) -> str:
    """'01-policy-comparison' -> 'policies' (the registry's name: the study's
    key in numbers.json and paper/generated/)."""
    from .studies.registry import BY_STEM

    return BY_STEM[stem].name if stem in BY_STEM else stem


def collect(results: Path, paper_dir: Path, profile: str) -> dict:
    """Copy figures/tables and merge numbers; returns the numbers written."""
    from . import lockfile
    from .sim import VERSION
    from .traces import sha256_file

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
    for study_dir in sorted(p for p in Path(results).iterdir() if p.is_dir() and STEM.match(p.name)):
        nfile = study_dir / "numbers.json"
        if not nfile.exists():
            continue
        study = study_name(study_dir.name)
        numbers[study] = json.loads(nfile.read_text())
        numbers[study]["_notebook"] = f"{study_dir.name}.ipynb"
        dest = gen / study
        tmp = Path(tempfile.mkdtemp(dir=paper_dir, prefix=".gen-"))
        for sub, pattern in (("figures", "*.png"), ("tables", "*.csv")):
            (tmp / sub).mkdir()
            for f in sorted((study_dir / sub).glob(pattern)):
                shutil.copy2(f, tmp / sub / f.name)
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, dest)
    fd, tmp = tempfile.mkstemp(dir=paper_dir, prefix=".numbers.", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(numbers, f, indent=1, default=str)
    os.replace(tmp, paper_dir / "numbers.json")
    return numbers


def compile_pdf(paper_dir: Path, output: Path | None = None) -> Path:
    import typst

    output = Path(output or paper_dir / "paper.pdf")
    fd, tmp = tempfile.mkstemp(dir=output.parent, prefix=".paper.", suffix=".pdf")
    os.close(fd)
    try:
        typst.compile(str(paper_dir / "paper.typ"), output=tmp, root=str(paper_dir))
        os.replace(tmp, output)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return output


def build(profile: str = "quick", results: Path | None = None, paper_dir: Path | None = None) -> Path:
    results = Path(results or paths.RESULTS / profile)
    paper_dir = Path(paper_dir or paths.PAPER)
    if not results.exists():
        raise FileNotFoundError(f"{results}: no executed studies (run the notebooks first: make reproduce)")
    collect(results, paper_dir, profile)
    return compile_pdf(paper_dir)
