"""`schedlab study new NAME`: a new study that runs and passes the protocol
check straight away, touching nothing outside its package, its notebook and
its two parameter files (done in a copy of the repository, in a subprocess,
so the suite's own registry never sees it)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from schedlab import paths
from schedlab.errors import InputError
from schedlab.protocol import scaffold
from schedlab.studies.registry import STUDIES

#: a study name the repository does not use yet (a user may have made a "demo" already)
NAME = next(n for n in (f"probe{i}" for i in range(100)) if not (paths.ROOT / "lib" / "schedlab" / "studies" / n).exists())
COPIED = ("lib", "notebooks", "params", "paper", "docs", "README.md", "CONTRIBUTING.md")


def _snapshot(root) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and "__pycache__" not in rel and not rel.startswith(("results/", "data/")) \
                and not rel.endswith(".so"):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture
def repo_copy(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    for name in COPIED:
        src = paths.ROOT / name
        if src.is_dir():
            shutil.copytree(src, root / name, ignore=shutil.ignore_patterns("__pycache__", "generated", "*.pdf",
                                                                             "numbers.json", "*.egg-info"))
        else:
            shutil.copy2(src, root / name)
    core = next((paths.ROOT / "lib" / "schedlab" / "engine").glob("_core*.so"))
    shutil.copy2(core, root / "lib" / "schedlab" / "engine" / core.name)
    (root / "data").symlink_to(paths.ROOT / "data")
    return root


@pytest.mark.slow
def test_study_new_runs_and_passes_check_study_touching_only_its_own_files(repo_copy, tmp_path):
    before = _snapshot(repo_copy)
    env = {**os.environ, "PYTHONPATH": str(repo_copy / "lib"), "SCHEDLAB_ROOT": str(repo_copy),
           "SCHEDLAB_STRICT_SCORECARD": "1"}        # as under test: an undeclared output is an error
    schedlab = [sys.executable, "-c", "import sys; from schedlab.tools import cli; sys.exit(cli.main(sys.argv[1:]))"]
    check = textwrap.dedent("""
        import json, sys
        from schedlab.protocol.study import check_study
        from schedlab.studies.registry import get
        measured = check_study(sys.argv[2], workdir=sys.argv[1])
        print("MEASURED " + json.dumps({"check": measured, "number": get(sys.argv[2]).number}))
    """)
    outs = []
    for argv in (schedlab + ["study", "new", NAME, "--title", "A demo study", "--paper", "none yet"],
                 schedlab + ["study", "run", NAME, "--profile", "quick", "--workers", "1", "--no-progress"],
                 [sys.executable, "-c", check, str(tmp_path / "check"), NAME]):
        out = subprocess.run(argv, cwd=repo_copy, env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
        outs.append(out.stdout)
    assert f"schedlab study run {NAME} --profile quick" in outs[0]        # what to do next, printed
    out = subprocess.CompletedProcess([], 0, outs[2])
    measured = json.loads(out.stdout.split("MEASURED ", 1)[1].splitlines()[0])
    number = max(e.number for e in STUDIES) + 1
    assert measured["number"] == number and measured["check"]["cells"] > 0
    stem = f"{number:02d}-{NAME}"
    after = _snapshot(repo_copy)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    pkg = [f"lib/schedlab/studies/{NAME}/" + f for f in ("__init__.py", "analysis.py", "cells.py", "figures.py",
                                                      "params.py", "published.toml", "report.py", "run.py",
                                                      "section.typ", "study.toml", "tables.py")]
    assert changed == sorted(pkg + [f"notebooks/{stem}.ipynb", f"params/full/{stem}.yaml",
                                    f"params/quick/{stem}.yaml"])
    numbers = json.loads((repo_copy / "results" / "quick" / stem / "numbers.json").read_text())
    assert numbers["traces"]["KTH-SP2"]["weeks"] == 4 and numbers["provenance"]["profile"] == "quick"


def test_study_new_refuses_bad_names_texts_and_existing_studies():
    with pytest.raises(InputError, match="lower-case letters"):
        scaffold.new_study("Bad-Name")
    with pytest.raises(InputError, match="not meta, quick_check, registry"):
        scaffold.new_study("meta")
    with pytest.raises(InputError, match="lib/schedlab/studies/policies already exists"):
        scaffold.new_study("policies")
    with pytest.raises(InputError, match="--title"):
        scaffold.new_study("fresh_one", title='x"""; import os')
    with pytest.raises(InputError, match="--paper"):
        scaffold.new_study("fresh_one", paper="a\nb")
    assert not (paths.ROOT / "lib" / "schedlab" / "studies" / "fresh_one").exists()
    assert scaffold.next_number() == max(e.number for e in STUDIES) + 1
