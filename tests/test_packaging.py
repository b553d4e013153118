"""The packaging stays consistent: environment.yml lists the dependencies of
pyproject.toml (runtime and test), and the installed core matches the header."""
import re
import tomllib

import schedlab
from schedlab import lockfile, paths

ROOT = paths.ROOT


def _conda_deps():
    """environment.yml's pinned dependencies (conda list and its pip: list) as {name: version}."""
    deps = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        m = re.match(r"\s+-\s+([A-Za-z0-9_.\-]+)==(\S+)", line)
        if m:
            deps[lockfile.canonical(m.group(1))] = m.group(2)
    return deps


def test_environment_yml_pins_the_locked_versions():
    locked = lockfile.requirements()
    conda = _conda_deps()
    wanted = set(lockfile.direct_versions()) | {"distributed"}
    assert wanted - set(conda) == set(), f"environment.yml lacks {sorted(wanted - set(conda))}"
    assert set(conda) - wanted == set(), f"environment.yml has {sorted(set(conda) - wanted)} not in pyproject.toml"
    wrong = {n: (v, locked[n]) for n, v in conda.items() if locked[n] != v}
    assert wrong == {}, f"environment.yml differs from the lock (theirs, lock's): {wrong}; run make lock"


def test_the_installed_environment_is_the_lock():
    # make install checks it too; this catches a package installed or removed by hand
    assert lockfile.differences() == []


def test_the_lock_covers_pyproject_and_every_supported_python():
    import tomllib
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert lock["requires-python"] == py["requires-python"]
    names = {lockfile.canonical(p["name"]) for p in lock["package"]}
    for group in lockfile.direct().values():
        for req in group:
            assert lockfile._req_name(req) in names, f"{req} of pyproject.toml is not in uv.lock: run make lock"
    # requirements.lock is uv.lock exported: the same versions, each with hashes
    text = (ROOT / "requirements.lock").read_text()
    pinned = re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+?)\s", text, flags=re.M)
    versions = {(lockfile.canonical(p["name"]), p["version"]) for p in lock["package"]}
    assert pinned and all((lockfile.canonical(n), v) in versions for n, v in pinned)
    for block in re.split(r"\n(?=\S)", text):
        if "==" in block and not block.startswith("#"):
            assert "--hash=sha256:" in block, block.splitlines()[0]


def test_a_lock_line_that_is_not_pinned_is_refused(tmp_path):
    import pytest
    from schedlab.errors import InputError
    f = tmp_path / "r.lock"
    f.write_text("numpy==2.0 \\\n    --hash=sha256:00\nscipy>=1\n")
    with pytest.raises(InputError, match=r"r.lock:3: not a pinned requirement"):
        lockfile.requirements(f)


def test_versions_agree():
    from schedlab.engine import sim
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert schedlab.__version__ == py == sim.VERSION


def test_cdef_is_the_header():
    from schedlab.engine._build import cdef_text
    from schedlab.engine._core import lib
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
