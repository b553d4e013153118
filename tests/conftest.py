"""Shared test set-up.

Hypothesis runs derandomized (see below).  The suite never sees traces fetched on this machine (``make data`` writes
``data/traces.local.toml``): the tests of the registry check the committed
one, whatever was downloaded since.  Tests of fetching point the local
registry somewhere of their own.
"""
import inspect
import os
import shutil
import tempfile

import pytest
from hypothesis import settings

from schedlab import paths

# Property tests draw the same examples on every run and machine (derandomize),
# never time out on a loaded machine (deadline) and keep no example database
# between runs: `make test` passes every time or fails every time.
settings.register_profile("schedlab", derandomize=True, deadline=None, database=None)
settings.load_profile("schedlab")

# Every study a test runs (in process or in a notebook kernel, which inherits
# the environment) fails if a table of it with published values feeds no
# scorecard row (schedlab.protocol.study.check_scorecard_coverage).
os.environ["SCHEDLAB_STRICT_SCORECARD"] = "1"

# The on-disk cache of cleaned workloads (schedlab.workloads.traces.Workload.cleaned) of
# the suite's run is its own, never the repository's results/cache.
os.environ["SCHEDLAB_WORKLOAD_CACHE"] = tempfile.mkdtemp(prefix="schedlab-workloads-")


def _loads_core(module) -> bool:
    """Does a test module use the C core directly: does it hold (imported at
    its top) a module of schedlab.engine, or a function, class or cffi
    object from one?"""
    for v in vars(module).values():
        name = getattr(v, "__name__", None) if inspect.ismodule(v) else getattr(v, "__module__", None)
        if not isinstance(name, str):
            name = getattr(v, "__name__", None)      # the cffi lib: schedlab.engine._core.lib
        if isinstance(name, str) and name.startswith("schedlab.engine"):
            return True
    return False


def pytest_collection_modifyitems(config, items):
    """Every test of a module that uses the core directly is marked ``core``:
    ``make test-asan`` runs ``-m core`` against the sanitised core (issue 53:
    a hand list of files had left tests/test_kinetic.py out)."""
    seen: dict = {}
    for item in items:
        mod = getattr(item, "module", None)
        if mod is None:
            continue
        if mod not in seen:
            seen[mod] = _loads_core(mod)
        if seen[mod]:
            item.add_marker(pytest.mark.core)


@pytest.fixture(autouse=True, scope="session")
def _no_local_trace_registry(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(paths, "LOCAL_TRACE_REGISTRY",
                   tmp_path_factory.mktemp("no-local-registry") / "traces.local.toml")
        yield


@pytest.fixture
def paper_copy(tmp_path):
    """The paper's sources copied to a temporary folder (nothing generated): build it there."""
    dest = tmp_path / "paper"
    shutil.copytree(paths.PAPER, dest, ignore=shutil.ignore_patterns("generated", "numbers.json", "*.pdf", ".*"))
    return dest
