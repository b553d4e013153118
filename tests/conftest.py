"""Shared test set-up.

The suite never sees traces fetched on this machine (``make data`` writes
``data/traces.local.toml``): the tests of the registry check the committed
one, whatever was downloaded since.  Tests of fetching point the local
registry somewhere of their own.
"""
import pytest

from schedlab import paths


@pytest.fixture(autouse=True, scope="session")
def _no_local_trace_registry(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(paths, "LOCAL_TRACE_REGISTRY",
                   tmp_path_factory.mktemp("no-local-registry") / "traces.local.toml")
        yield
