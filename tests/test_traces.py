"""Tests of schedlab.workloads.traces and of the registry data/traces.toml."""
from __future__ import annotations

import csv
import gzip
import hashlib
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest

from schedlab import paths
from schedlab.workloads import traces
from schedlab.errors import ChecksumError, InputError
from schedlab.workloads.swf import read_swf, read_swf_header, write_swf

NAMES = ["KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N", "CEA-Curie",
         "LANL-CM5", "LCG", "NASA-iPSC", "RICC", "SDSC-Par", "Sandia-Ross"]
MAIN = {"KTH-SP2", "CTC-SP2", "SDSC-SP2", "SDSC-BLUE", "HPC2N", "CEA-Curie"}
KTH_FILE = "KTH-SP2-1996-2.1-cln.swf.gz"


def _manifest() -> dict[str, dict[str, str]]:
    with open(paths.TRACES / "MANIFEST.tsv", newline="") as fh:
        return {row["file"]: row for row in csv.DictReader(fh, delimiter="\t")}


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_registry_entries():
    reg = traces.registry()
    assert list(reg) == NAMES
    assert {n for n, i in reg.items() if i.main} == MAIN
    for name, info in reg.items():
        assert info.name == name and info.registered
        assert info.path.parent == paths.TRACES
        assert info.source.startswith("https://www.cs.huji.ac.il/labs/parallel/workload/l_")
        assert info.url.startswith(info.source.rsplit("/", 1)[0] + "/") and info.url.endswith(info.file)
        expected_m = 80640 if name == "CEA-Curie" else info.max_procs
        assert info.m == expected_m, name
    assert "80640" in reg["CEA-Curie"].note


def test_registry_matches_manifest_and_headers():
    manifest = _manifest()
    reg = traces.registry()
    assert sorted(i.file for i in reg.values()) == sorted(manifest)
    for info in reg.values():
        row = manifest[info.file]
        assert info.jobs == int(row["jobs"])
        assert info.max_procs == int(row["maxprocs"])
        assert info.sha256 == row["sha256"]
        assert info.found_in == row["found_in"]
        header, _ = read_swf_header(info.path)
        assert int(header["MaxProcs"].split()[0]) == info.max_procs


def test_registry_toml_has_one_table_per_trace():
    with open(paths.TRACE_REGISTRY, "rb") as fh:
        raw = tomllib.load(fh)
    assert list(raw) == NAMES
    assert [k for k, v in raw.items() if "m" in v] == ["CEA-Curie"]
    assert all(v["main"] is (k in MAIN) for k, v in raw.items())


def test_checksums_verify():
    results = traces.verify_all()
    assert [r[0] for r in results] == NAMES
    assert all(ok for _, ok, _ in results), results
    for info in traces.registry().values():  # independently of sha256_file
        assert _sha256(info.path) == info.sha256


def test_sha256_file(tmp_path):
    p = tmp_path / "f.bin"
    data = bytes(range(256)) * 9000  # spans several read blocks
    p.write_bytes(data)
    assert traces.sha256_file(p) == hashlib.sha256(data).hexdigest()


@pytest.fixture
def fake_data(tmp_path, monkeypatch):
    """A data directory holding a copy of KTH-SP2 and a registry naming it."""
    tdir = tmp_path / "traces"
    tdir.mkdir()
    shutil.copy(paths.TRACES / KTH_FILE, tdir / KTH_FILE)
    reg = tmp_path / "traces.toml"
    text = paths.TRACE_REGISTRY.read_text()
    kth = text[text.index("[KTH-SP2]"):text.index("[CTC-SP2]")]
    reg.write_text(kth)
    monkeypatch.setattr(paths, "TRACES", tdir)
    monkeypatch.setattr(paths, "TRACE_REGISTRY", reg)
    return tdir / KTH_FILE


def test_intact_copy_loads(fake_data):
    assert list(traces.registry()) == ["KTH-SP2"]
    t = traces.load("KTH-SP2")
    assert t.n == 28476 and t.path == fake_data


def test_corrupted_copy_fails_verification(fake_data):
    expected = _sha256(fake_data)
    good = read_swf(fake_data)
    fields = dict(good.fields)
    fields["run"] = good["run"].copy()
    fields["run"][100] += 1  # a valid SWF file that is not the archive's
    write_swf(fake_data, fields, good.header_lines)
    actual = _sha256(fake_data)
    with pytest.raises(ChecksumError) as info:
        traces.load("KTH-SP2")
    msg = str(info.value)
    assert KTH_FILE in msg and expected in msg and actual in msg
    t = traces.load("KTH-SP2", verify=False)  # explicitly unchecked: reads
    assert t["run"][100] == good["run"][100] + 1
    [(name, ok, message)] = traces.verify_all()
    assert (name, ok) == ("KTH-SP2", False) and actual in message
    with pytest.raises(ChecksumError):
        traces.verify("KTH-SP2")


def test_truncated_copy_fails_verification(fake_data):
    fake_data.write_bytes(fake_data.read_bytes()[:-100])
    with pytest.raises(ChecksumError, match="expected 3e152f20"):
        traces.load("kth-sp2")


def test_missing_file_fails_verification(fake_data):
    fake_data.unlink()
    [(name, ok, message)] = traces.verify_all()
    assert not ok and "missing" in message


@pytest.mark.parametrize("query", [
    "KTH-SP2", "kth-sp2", "Kth-Sp2", KTH_FILE, KTH_FILE.upper(),
    "KTH-SP2-1996-2.1-cln",
])
def test_resolve_registered(query):
    info = traces.resolve(query)
    assert info.name == "KTH-SP2" and info.registered
    assert info.path == paths.TRACES / KTH_FILE
    assert (info.jobs, info.max_procs, info.m, info.main) == (28476, 100, 100, True)


def test_resolve_by_path(monkeypatch):
    assert traces.resolve(paths.TRACES / KTH_FILE).name == "KTH-SP2"
    assert traces.resolve(str(paths.TRACES / KTH_FILE)).name == "KTH-SP2"
    monkeypatch.chdir(paths.ROOT)
    assert traces.resolve(f"data/traces/{KTH_FILE}").name == "KTH-SP2"
    assert traces.resolve("cea-curie").m == 80640
    assert traces.resolve(traces.resolve("LCG")) == traces.resolve("lcg")


def test_resolve_unregistered_path(tmp_path):
    path = tmp_path / "mytrace.swf.gz"
    write_swf(path, {"job_id": np.arange(1, 4), "run": [5, 6, 7]},
              ["MaxNodes: 32", "MaxProcs: 64 (all of them)"])
    info = traces.resolve(path)
    assert not info.registered
    assert info.name == "mytrace"
    assert info.max_procs == info.m == 64
    assert info.jobs is None
    assert info.sha256 == _sha256(path)
    t = traces.load(str(path))
    assert t.n == 3 and t["run"].tolist() == [5, 6, 7]
    # a copy of a registered file elsewhere is just a file, never the registry's
    copy = tmp_path / KTH_FILE
    shutil.copy(paths.TRACES / KTH_FILE, copy)
    other = traces.resolve(copy)
    assert not other.registered and other.name == "KTH-SP2-1996-2.1-cln" and other.m == 100


def test_resolve_unknown():
    with pytest.raises(InputError, match="unknown trace"):
        traces.resolve("no-such-trace")
    with pytest.raises(InputError, match="KTH-SP2"):
        traces.resolve("/no/such/file.swf")


def test_load_checks_job_count(fake_data, monkeypatch):
    reg = paths.TRACE_REGISTRY
    reg.write_text(reg.read_text().replace("jobs = 28476", "jobs = 28475"))
    with pytest.raises(ChecksumError, match="28476 jobs"):
        traces.load("KTH-SP2")


def test_load_main_traces_match_registry():
    for name, info in traces.registry().items():
        if info.jobs is not None and info.jobs < 100_000:
            t = traces.load(name)
            assert t.n == info.jobs and t.max_procs == info.max_procs
            raw = gzip.decompress(info.path.read_bytes())
            assert raw.count(b"\n") == int(t.lines[-1])  # one job per line, to the last


def test_a_trace_spec_carries_cleaning_choices_in_its_name():
    info = traces.resolve("sdsc-sp2?m=peak&request=runtime*2")
    assert info.name == "SDSC-SP2?request=runtime*2&m=peak" and info.registered
    assert traces.text(info) == "SDSC-SP2?request=runtime*2&m=peak"
    assert traces.resolve(traces.text(info)) == info and info != traces.resolve("SDSC-SP2")
    jobs, report, m, _, _ = traces.cleaned(info)
    plain = traces.cleaned("SDSC-SP2")
    assert report.choices["request"] == "runtime*2" and "peak" in report.m_source and m != plain.m
    assert len(jobs) == len(plain.jobs) + (plain.trace.fields["req_time"] < 0).sum() - \
        ((plain.trace.fields["req_time"] < 0) & (plain.trace.fields["run"] < 0)).sum()
    for bad, match in (("KTH-SP2?color=red", "not a cleaning choice"), ("KTH-SP2?request=guess", "request"),
                       ("KTH-SP2?m=-3", "machine")):
        with pytest.raises(InputError, match=match):
            traces.resolve(bad)


def test_one_trace_to_text_keeps_a_spec_s_cleaning_choices(tmp_path):
    """A trace file given with cleaning choices (?m=..&request=..) reaches the
    campaign cells with them: every study names its traces with traces.text
    (Workload.text), the one trace-to-text function."""
    from schedlab.studies.prediction import cells as pr
    from test_study_traces import write_tiny

    path = write_tiny(tmp_path / "tiny.swf")
    info = traces.resolve(f"{path}?m=64&request=runtime")
    ref = traces.text(info)
    assert ref.startswith(str(path.resolve())) and ref.endswith("?request=runtime&m=64")
    assert traces.Workload.of(info).text == ref and traces.Workload.of(ref).text == ref
    assert traces.text(traces.resolve(str(path))) == str(path.resolve())
    assert traces.text(traces.resolve("KTH-SP2")) == "KTH-SP2"
    lib = Path(traces.__file__).parent
    for f in lib.rglob("*.py"):         # no other name for it left
        src = f.read_text()
        for alias in ("campaign_ref", "trace_ref", "trace_arg", "trace_spec", "_ref("):
            assert alias not in src.replace("_ref_correction", ""), f"{f}: {alias}"
    jobs, m = pr.load_jobs(ref, None, 0, None)          # what a cell loads: m from the spec
    assert m == 64
