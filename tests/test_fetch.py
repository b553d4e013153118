"""Tests of `schedlab traces fetch` (make data), offline: the "archive" is a
directory of generated SWF files served through file:// URLs or a local HTTP
server on 127.0.0.1, and every registry path points into tmp_path."""
from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import os
import shutil
import threading
import tomllib
import urllib.request

import numpy as np
import pytest

from schedlab.tools import cli
from schedlab import paths
from schedlab.workloads import traces
from schedlab.errors import ChecksumError, FetchError, InputError
from schedlab.workloads.swf import count_jobs, read_swf, write_swf

FILE = "TEST-Log-2020-1.swf.gz"
KTH_FILE = "KTH-SP2-1996-2.1-cln.swf.gz"
REAL_TRACE_REGISTRY = paths.TRACE_REGISTRY
REAL_TRACES = paths.TRACES


def _fields(n: int, seed: int = 3) -> dict:
    rng = np.random.default_rng(seed)
    run = rng.integers(0, 2000, n)
    return {"job_id": np.arange(1, n + 1), "submit": np.sort(rng.integers(0, 14 * 86400, n)),
            "run": run, "req_procs": rng.integers(1, 33, n), "req_time": run + rng.integers(0, 3000, n),
            "user": rng.integers(1, 9, n), "status": np.ones(n, int)}


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Env:
    """An archive directory, a fetch.toml naming one log in it, a bundled
    registry holding only KTH-SP2, and empty data/traces and local registry."""

    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.archive = tmp_path / "archive"
        self.source = write_swf(self.archive / FILE, _fields(250),
                                ["Version: 2.2", "Installation: Test machine", "MaxProcs: 32 (all)"])
        self.traces = tmp_path / "traces"
        self.local = tmp_path / "traces.local.toml"
        self.fetch_toml = tmp_path / "fetch.toml"
        self.messages: list[str] = []
        self.write_fetch_toml()

    def write_fetch_toml(self, sha256: str = "", url: str | None = None, name: str = "Test-Log",
                         file: str = FILE) -> None:
        url = url or (self.archive / file).as_uri()
        self.fetch_toml.write_text(
            f'[{name}]\nfile = "{file}"\nurl = "{url}"\n'
            f'source = "https://example.org/l_test/index.html"\nsha256 = "{sha256}"\n')

    def fetch(self, **kw):
        return traces.fetch("Test-Log", log=self.messages.append, **kw)

    def leftovers(self, folder=None) -> list[str]:
        folder = folder or self.traces
        return sorted(p.name for p in folder.iterdir()) if folder.exists() else []

    def local_table(self) -> dict:
        return tomllib.loads(self.local.read_text())


@pytest.fixture
def env(tmp_path, monkeypatch):
    e = Env(tmp_path)
    reg = tmp_path / "traces.toml"
    text = REAL_TRACE_REGISTRY.read_text()
    reg.write_text(text[text.index("[KTH-SP2]"):text.index("[CTC-SP2]")])
    monkeypatch.setattr(paths, "TRACE_REGISTRY", reg)
    monkeypatch.setattr(paths, "TRACES", e.traces)
    monkeypatch.setattr(paths, "FETCH_REGISTRY", e.fetch_toml)
    monkeypatch.setattr(paths, "LOCAL_TRACE_REGISTRY", e.local)
    return e


def _no_network(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("no download expected")
    monkeypatch.setattr(urllib.request, "urlopen", refuse)


# --------------------------------------------------------------------------
# the first fetch: trust on first use

def test_first_fetch_records_checksum_and_registers(env):
    bundled_registry = paths.TRACE_REGISTRY.read_bytes()
    info = env.fetch()
    target = env.traces / FILE
    assert target.read_bytes() == env.source.read_bytes()
    assert env.leftovers() == [FILE]                       # no .part file left
    entry = env.local_table()["Test-Log"]
    assert entry["sha256"] == _sha(env.source)
    assert (entry["jobs"], entry["max_procs"], entry["checksum"]) == (250, 32, "first use")
    assert entry["file"] == FILE and entry["url"] == (env.archive / FILE).as_uri()
    assert entry["installation"] == "Test machine" and "dir" not in entry
    assert paths.TRACE_REGISTRY.read_bytes() == bundled_registry   # the committed registry is untouched
    text = "\n".join(env.messages)
    assert "trusted on first use" in text and _sha(env.source) in text and str(env.local) in text
    # the fetched trace is now a registered one
    assert info.registered and info.origin == "fetched" and info.tofu and not info.main
    for query in ("Test-Log", "test-log", FILE, "TEST-Log-2020-1"):
        assert traces.resolve(query) == info
    assert info.path == target and (info.jobs, info.max_procs, info.m) == (250, 32, 32)
    t = traces.load("test-log")
    assert t.n == 250 and np.array_equal(t["run"], _fields(250)["run"])
    assert list(traces.registry()) == ["KTH-SP2", "Test-Log"]
    assert [(n, ok) for n, ok, _ in traces.verify_all()][1] == ("Test-Log", True)
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask   # not mkstemp's 0600


def test_refetch_of_a_verified_file_is_a_noop(env, monkeypatch):
    env.fetch()
    target = env.traces / FILE
    before = (target.stat().st_mtime_ns, env.local.read_text())
    _no_network(monkeypatch)
    info = env.fetch()
    assert (target.stat().st_mtime_ns, env.local.read_text()) == before
    assert "nothing to do" in env.messages[-1]
    assert info == traces.resolve("Test-Log")


def test_later_fetch_checks_the_first_use_checksum(env):
    env.fetch()
    first = _sha(env.source)
    (env.traces / FILE).unlink()
    assert traces.verify_all()[1][1] is False               # a fetched file gone is reported
    write_swf(env.source, _fields(250, seed=4), ["MaxProcs: 32"])   # the "archive" changed its file
    with pytest.raises(ChecksumError) as exc:
        env.fetch()
    msg = str(exc.value)
    assert FILE in msg and first in msg and _sha(env.source) in msg and "first use" in msg
    assert env.leftovers() == []
    assert env.local_table()["Test-Log"]["sha256"] == first  # the record stands


def test_file_present_without_record_is_downloaded_again(env):
    env.traces.mkdir()
    (env.traces / FILE).write_bytes(b"something else")
    env.fetch()
    assert _sha(env.traces / FILE) == _sha(env.source)
    assert any("downloading again" in m for m in env.messages)


def test_fetch_to_another_directory(env, tmp_path, monkeypatch):
    elsewhere = tmp_path / "scratch" / "pwa"
    info = env.fetch(dest=elsewhere)
    assert info.path == elsewhere / FILE and env.leftovers() == []
    assert env.local_table()["Test-Log"]["dir"] == str(elsewhere)
    assert traces.load("Test-Log").n == 250
    _no_network(monkeypatch)
    env.fetch(dest=elsewhere)
    assert "nothing to do" in env.messages[-1]


# --------------------------------------------------------------------------
# recorded checksums

def test_recorded_checksum_is_checked(env):
    env.write_fetch_toml(sha256=_sha(env.source).upper())
    info = env.fetch()
    assert not info.tofu and env.local_table()["Test-Log"]["checksum"] == "recorded"
    assert not any("WARNING" in m for m in env.messages)
    assert "sha256 ok (from data/fetch.toml)" in env.messages[-1]


def test_wrong_recorded_checksum_is_refused_and_nothing_kept(env):
    env.write_fetch_toml(sha256="ab" * 32)
    with pytest.raises(ChecksumError) as exc:
        env.fetch()
    msg = str(exc.value)
    assert FILE in msg and "expected " + "ab" * 32 in msg and "got " + _sha(env.source) in msg
    assert "removed" in msg
    assert env.leftovers() == [] and not env.local.exists()
    with pytest.raises(InputError, match="not fetched yet"):
        traces.resolve("Test-Log")


def test_malformed_recorded_checksum(env):
    env.write_fetch_toml(sha256="1234")
    with pytest.raises(InputError, match="64 hex digits"):
        traces.fetchable()


# --------------------------------------------------------------------------
# broken downloads leave nothing behind

class _Response:
    """What urlopen returns, reading ``blocks`` and then raising ``error``."""

    def __init__(self, blocks, error=None, length=None):
        self.blocks, self.error = list(blocks), error
        self.headers = {"Content-Length": str(length)} if length is not None else {}

    def read(self, n=-1):
        if self.blocks:
            return self.blocks.pop(0)
        if self.error is not None:
            raise self.error
        return b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("error, expected", [
    (ConnectionResetError(104, "Connection reset by peer"), FetchError),
    (TimeoutError("timed out"), FetchError),
    (KeyboardInterrupt(), KeyboardInterrupt),
])
def test_interrupted_download_leaves_no_file(env, monkeypatch, error, expected):
    data = env.source.read_bytes()
    monkeypatch.setattr(urllib.request, "urlopen",
                        lambda *a, **k: _Response([data[:100], data[100:200]], error))
    with pytest.raises(expected) as exc:
        env.fetch()
    if expected is FetchError:
        assert (env.archive / FILE).as_uri() in str(exc.value) and str(error) in str(exc.value)
    assert env.leftovers() == [] and not env.local.exists()


def test_short_transfer_is_refused(env, monkeypatch):
    data = env.source.read_bytes()
    monkeypatch.setattr(urllib.request, "urlopen",
                        lambda *a, **k: _Response([data[:-10]], length=len(data)))
    with pytest.raises(FetchError, match=f"ended after {len(data) - 10} of {len(data)} bytes"):
        env.fetch()
    assert env.leftovers() == []


def test_truncated_gzip_is_refused(env, monkeypatch):
    data = env.source.read_bytes()
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: _Response([data[:-10]]))
    with pytest.raises(InputError, match="not a readable SWF file"):
        env.fetch()
    assert env.leftovers() == [] and not env.local.exists()


@pytest.mark.parametrize("payload, match", [
    (b"<html><body>Not here</body></html>", "not a gz file"),
    (gzip.compress(b"; MaxProcs: 4\n", mtime=0), "no job lines"),
    (gzip.compress(b"<html>\n<body>Moved</body>\n</html>\n", mtime=0), "fields, not the 18 of SWF"),
], ids=["html-page", "gzipped-header-only", "gzipped-html"])
def test_what_is_not_an_swf_log_is_refused(env, payload, match):
    (env.archive / FILE).write_bytes(payload)
    with pytest.raises(InputError, match=match):
        env.fetch()
    assert env.leftovers() == [] and not env.local.exists()


# --------------------------------------------------------------------------
# over HTTP

@pytest.fixture
def server(env):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(env.archive))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_fetch_over_http(env, server):
    env.write_fetch_toml(url=f"{server}/{FILE}")
    info = env.fetch()
    assert info.jobs == 250 and _sha(info.path) == _sha(env.source)
    assert env.local_table()["Test-Log"]["url"] == f"{server}/{FILE}"


def test_http_error_names_url_and_reason(env, server):
    url = f"{server}/l_test/{FILE}"
    env.write_fetch_toml(url=url)
    with pytest.raises(FetchError) as exc:
        env.fetch()
    assert url in str(exc.value) and "HTTP 404" in str(exc.value)
    assert env.leftovers() == []


def test_unreachable_host(env):
    url = "http://127.0.0.1:9/none.swf.gz"                     # the discard port: refused
    env.write_fetch_toml(url=url)
    with pytest.raises(FetchError, match=r"cannot fetch http://127\.0\.0\.1:9/none\.swf\.gz: .+"):
        env.fetch(timeout=5)
    assert env.leftovers() == []


@pytest.mark.parametrize("text", ['plain', 'with "quotes" and \\ backslash', "two\nlines\ttab",
                                  "d\u00e9j\u00e0 vu", "del\x7fand\x00nul", "\U0001F600"])
def test_local_registry_round_trips_strings(env, text):
    traces._write_local({"Odd name.x": {"file": "f.swf.gz", "sha256": "ab" * 32, "note": text, "jobs": 3}})
    table = env.local_table()["Odd name.x"]
    assert table == {"file": "f.swf.gz", "sha256": "ab" * 32, "note": text, "jobs": 3}


# --------------------------------------------------------------------------
# a fetched trace never replaces a bundled one

def test_local_entry_cannot_shadow_a_bundled_trace(env):
    env.fetch()
    kth = traces.resolve("KTH-SP2")
    fake = env.traces / "fake.swf.gz"
    write_swf(fake, _fields(5), ["MaxProcs: 8"])
    env.local.write_text(env.local.read_text() + (
        f'\n[KTH-SP2]\nfile = "fake.swf.gz"\nsha256 = "{_sha(fake)}"\njobs = 5\n'
        f'\n[Other]\nfile = "{kth.file}"\nsha256 = "{_sha(fake)}"\njobs = 5\n'
        f'\n["kth-sp2-1996-2.1-CLN"]\nfile = "fake.swf.gz"\nsha256 = "{_sha(fake)}"\n'))
    with pytest.warns(UserWarning, match="shadow the bundled trace KTH-SP2") as caught:
        reg = traces.registry()
    assert len(caught) == 3
    assert list(reg) == ["KTH-SP2", "Test-Log"]
    assert reg["KTH-SP2"].origin == "bundled" and reg["KTH-SP2"].sha256 == kth.sha256
    with pytest.warns(UserWarning):
        assert traces.resolve("kth-sp2").origin == "bundled"


def test_fetch_registry_cannot_name_a_bundled_trace(env):
    env.write_fetch_toml(name="KTH-SP2", file="KTH-SP2-1996-2.1-cln.swf.gz")
    with pytest.raises(InputError, match="bundled trace KTH-SP2"):
        traces.fetchable()
    env.write_fetch_toml(name="Mine", file="KTH-SP2-1996-2.1-cln.swf.gz")
    with pytest.raises(InputError, match="bundled trace KTH-SP2"):
        traces.fetch("Mine")


def test_unknown_fetch_name(env):
    with pytest.raises(InputError, match="not a fetchable trace.*Test-Log"):
        traces.fetch("ANL-Intrepid")


# --------------------------------------------------------------------------
# the committed data/fetch.toml

def test_committed_fetch_registry():
    with open(paths.FETCH_REGISTRY, "rb") as fh:
        raw = tomllib.load(fh)
    items = traces.fetchable()                 # also checks: no clash with a bundled trace
    assert list(items) == list(raw) == ["ANL-Intrepid", "UniLu-Gaia", "MetaCentrum"]
    pwa = "https://www.cs.huji.ac.il/labs/parallel/workload/"
    assert {fx.url for fx in items.values()} == {
        pwa + "l_anl_int/ANL-Intrepid-2009-1.swf.gz",
        pwa + "l_unilu_gaia/UniLu-Gaia-2014-2.swf.gz",
        pwa + "l_metacentrum2/METACENTRUM-2013-3.swf.gz"}
    ignored = set((paths.ROOT / ".gitignore").read_text().split())
    for fx in items.values():
        assert fx.url.endswith("/" + fx.file) and fx.source == fx.url.rsplit("/", 1)[0] + "/index.html"
        assert fx.sha256 is None                # not known: nobody could check one yet
        assert f"/data/traces/{fx.file}" in ignored
        assert raw[fx.name]["used_by"]
    assert "/data/traces.local.toml" in ignored
    with pytest.raises(InputError, match="not fetched yet.*make data"):
        traces.resolve("anl-intrepid")


# --------------------------------------------------------------------------
# count_jobs is read_swf's count, without reading the jobs

def test_count_jobs_matches_read_swf(tmp_path):
    line = b"1 0 -1 10 1 -1 -1 1 20 -1 1 1 -1 -1 -1 -1 -1 -1"
    odd = (b"; MaxProcs: 4\r\n\r\n" + line + b"\r\n" + b"   \n; a comment among jobs\n"
           + line + b"\r" + line + b"\n\n" + line)          # CRLF, CR, blanks, no final newline
    for name, data in [("odd.swf", odd), ("odd.swf.gz", gzip.compress(odd))]:
        (tmp_path / name).write_bytes(data)
        assert count_jobs(tmp_path / name) == read_swf(tmp_path / name).n == 4
    kth = paths.TRACES / KTH_FILE
    assert count_jobs(kth) == 28476
    (tmp_path / "cut.swf.gz").write_bytes(gzip.compress(odd * 50)[:-20])
    with pytest.raises(InputError, match="cannot decompress"):
        count_jobs(tmp_path / "cut.swf.gz")


# --------------------------------------------------------------------------
# the command line

def test_cli_fetch_list_verify_info(env, capsys):
    env.traces.mkdir()
    shutil.copy(REAL_TRACES / KTH_FILE, env.traces / KTH_FILE)   # the bundled trace of the env
    assert cli.main(["traces", "list"]) == 0
    out = capsys.readouterr().out
    assert f"{FILE}  [not fetched (make data)]" in out and "KTH-SP2" in out
    assert cli.main(["traces", "fetch", "--all"]) == 0
    out = capsys.readouterr().out
    assert "Test-Log: downloading file://" in out and "trusted on first use" in out
    assert cli.main(["traces", "list"]) == 0
    out = capsys.readouterr().out
    assert "[fetched, sha256 trusted on first use]" in out and "not fetched" not in out
    assert "Test-Log" in out and "250" in out
    assert cli.main(["traces", "verify"]) == 0
    out = capsys.readouterr().out
    assert "ok  KTH-SP2" in out and "ok  Test-Log" in out
    assert cli.main(["traces", "info", "test-log"]) == 0
    assert "jobs     250" in capsys.readouterr().out
    assert cli.main(["traces", "fetch", "Test-Log"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    (env.traces / FILE).unlink()
    assert cli.main(["traces", "list"]) == 0
    assert "[fetched, but the file is missing (make data)]" in capsys.readouterr().out
    # A missing fetched log fails `verify`, not `verify --bundled` (what make reproduce runs).
    assert cli.main(["traces", "verify"]) == 1
    assert "BAD Test-Log" in capsys.readouterr().out
    assert cli.main(["traces", "verify", "--bundled"]) == 0
    out = capsys.readouterr().out
    assert "ok  KTH-SP2" in out and "Test-Log" not in out


def test_cli_fetch_errors(env, capsys):
    bad = (env.archive / "gone.swf.gz").as_uri()
    assert cli.main(["traces", "fetch", "Test-Log", "--url", bad]) == 1
    err = capsys.readouterr().err
    assert f"cannot fetch {bad}" in err and "not fetched: Test-Log" in err
    assert env.leftovers() == []
    env.write_fetch_toml(sha256="cd" * 32)
    assert cli.main(["traces", "fetch", "test-log"]) == 1
    assert "sha256 mismatch" in capsys.readouterr().err
    for argv in (["traces", "fetch"], ["traces", "fetch", "nope"], ["traces", "fetch", "Test-Log", "--all"],
                 ["traces", "fetch", "--all", "--url", bad]):
        assert cli.main(argv) == 2, argv
        assert "schedlab: error:" in capsys.readouterr().err


def test_cli_fetch_interrupted(env, monkeypatch, capsys):
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: _Response([b"\x1f\x8b"], KeyboardInterrupt()))
    assert cli.main(["traces", "fetch", "Test-Log"]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert env.leftovers() == []
