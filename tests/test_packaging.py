"""The packaging stays consistent: environment.yml lists the dependencies of
pyproject.toml (runtime and test), and the installed core matches the header."""
import re
import tomllib

import schedlab
from schedlab import paths

ROOT = paths.ROOT


# pip extras that conda-forge ships as packages of their own
CONDA_EXTRAS = {"dask[distributed]": {"distributed"}}


def _names(reqs):
    names = set()
    for r in reqs:
        names.add(re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].strip().lower())
        for pip_name, extra in CONDA_EXTRAS.items():
            if r.replace(" ", "").lower().startswith(pip_name):
                names |= extra
    return names


def _conda_deps():
    deps, inside = [], False
    for line in (ROOT / "environment.yml").read_text().splitlines():
        if line.startswith("dependencies:"):
            inside = True
            continue
        if inside:
            m = re.match(r"\s+-\s+([^#\s]+)", line)
            if m and not m.group(1).endswith(":"):      # "- pip:" opens the pip sub-list
                deps.append(m.group(1))
            elif line and not line.startswith(" "):
                inside = False
    return deps


def test_environment_yml_matches_pyproject():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _names(py["dependencies"]) | _names(py["optional-dependencies"]["test"])
    conda = _names(_conda_deps())
    missing = wanted - conda
    assert not missing, f"environment.yml lacks {sorted(missing)} from pyproject.toml"
    extra = conda - wanted - {"python", "pip", "setuptools", "wheel", "c-compiler"}
    assert not extra, f"environment.yml has {sorted(extra)} that pyproject.toml does not declare"


def test_versions_agree():
    from schedlab import sim
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert schedlab.__version__ == py == sim.VERSION


def test_cdef_is_the_header():
    from schedlab._build import cdef_text
    from schedlab._core import lib
    text = cdef_text()
    for name in re.findall(r"\b(sl_\w+)\s*\(", text):
        assert hasattr(lib, name), name


def test_nothing_reads_outside_the_clone():
    # A user's clone has no ../shared (the papers and data of the development
    # setting): no shipped file may point there.
    import subprocess

    import pytest
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    files = subprocess.run(["git", "ls-files", "lib", "notebooks", "paper", "params", "campaigns", "csrc",
                            "Makefile", "README.md", "data/README.md"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    bad = [f for f in files if (ROOT / f).is_file() and "../shared" in (ROOT / f).read_text(errors="ignore")]
    assert bad == []
