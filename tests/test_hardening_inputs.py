"""Hardening of the inputs (issue 17): the SWF reader, the campaign cache and
spec loader, the command line's errors.  Each test reproduces a defect the
fuzzing found (it failed before the fix)."""
from __future__ import annotations

import bz2
import dataclasses
import gzip
import lzma

import numpy as np
import pytest

from schedlab.workloads import swf
from schedlab.declared import REQUIRED, param
from schedlab.errors import InputError, SWFFormatError

BASE = [1, 0, 5, 10, 1, -1, -1, 1, 20, -1, 1, 1, 1, -1, -1, -1, -1, -1]


def row(**values) -> str:
    r = [str(v) for v in BASE]
    for k, v in values.items():
        r[swf.FIELDS.index(k)] = str(v)
    return " ".join(r) + "\n"


def write(tmp_path, text: str, name: str = "x.swf"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------- SWF: integers --

@pytest.mark.parametrize("other", ["", row(run="10.0"), row(avg_cpu="1.5", run="7e1")])
def test_integers_beyond_2_53_are_read_exactly_whatever_the_other_lines(tmp_path, other):
    t = swf.read_swf(write(tmp_path, row(submit=2**53 + 1, job_id=2**62 + 3) + other))
    assert t["submit"][0] == 2**53 + 1 and t["job_id"][0] == 2**62 + 3


@pytest.mark.parametrize("token", ["1.0000000000000001", "0.99999999999999999", "1e-400",
                                   "100000000000000000000.5e-1"])
@pytest.mark.parametrize("other", ["", row(run="10.0")])
def test_a_token_not_exactly_integral_is_refused_in_an_integer_field(tmp_path, token, other):
    with pytest.raises(SWFFormatError, match="not an integer") as info:
        swf.read_swf(write(tmp_path, other + row(run=token)))
    assert (info.value.line, info.value.field) == (2 if other else 1, "run")


@pytest.mark.parametrize("token, value", [("12.0", 12), ("1.5e1", 15), ("150e-1", 15), ("+0.0e-999", 0),
                                          ("9007199254740993.000", 2**53 + 1),
                                          ("922337203685477580.7e1", 2**63 - 1), ("-00012", -12)])
def test_exactly_integral_forms_are_read_exactly(tmp_path, token, value):
    t = swf.read_swf(write(tmp_path, row(run=token) + row()))
    assert t["run"].tolist() == [value, 10]


@pytest.mark.parametrize("other", ["", row(), row(run="10.0"), row(run="abc")])
def test_int64_min_is_refused_whatever_the_other_lines(tmp_path, other):
    with pytest.raises(SWFFormatError, match="out of range") as info:
        swf.read_swf(write(tmp_path, row(submit=-2**63) + other))
    assert (info.value.line, info.value.field) == (1, "submit")


@pytest.mark.parametrize("token", ["1" * 4400, "1" * 5000 + ".0", "1e" + "9" * 5000, "1e-" + "9" * 5000])
def test_numbers_of_thousands_of_digits_give_a_located_error(tmp_path, token):
    with pytest.raises(SWFFormatError) as info:
        swf.read_swf(write(tmp_path, row() + row(req_time=token)))
    assert (info.value.line, info.value.field) == (2, "req_time")
    assert len(str(info.value)) < 300


def test_a_huge_bad_token_is_not_copied_into_the_error(tmp_path):
    with pytest.raises(SWFFormatError) as info:
        swf.read_swf(write(tmp_path, row() + row(user="x" * 2_000_000)))
    msg = str(info.value)
    assert len(msg) < 300 and "2000000 bytes" in msg and (info.value.line, info.value.field) == (2, "user")


# -------------------------------------------------- SWF: compressed files --

@pytest.mark.parametrize("suffix, compress", [(".bz2", bz2.compress), (".gz", gzip.compress),
                                              (".xz", lzma.compress)])
@pytest.mark.parametrize("cut", [1, 30, 200])
def test_truncated_compressed_files_give_an_error_naming_the_file(tmp_path, suffix, compress, cut):
    data = compress(("; MaxProcs: 4\n" + "".join(row(job_id=i, submit=7 * i) for i in range(3000))).encode())
    assert len(data) > 1000
    p = tmp_path / f"x.swf{suffix}"
    p.write_bytes(data[:-cut])
    for reader in (swf.read_swf, swf.count_jobs):
        with pytest.raises(InputError, match="cannot decompress") as info:
            reader(p)
        assert str(p) in str(info.value)
    try:   # the header alone may be readable from a truncated file
        header, _ = swf.read_swf_header(p)
    except InputError as exc:
        assert str(p) in str(exc)
    else:
        assert header == {"MaxProcs": "4"}


def test_header_reader_splits_lines_as_the_reader_does(tmp_path):
    p = tmp_path / "mac.swf"
    p.write_bytes(b"; MaxProcs: 4\r; Note: old Mac line ends\r" + row().encode().replace(b"\n", b"\r"))
    assert swf.read_swf_header(p)[0] == swf.read_swf(p).header == {"MaxProcs": "4", "Note": "old Mac line ends"}


# ------------------------------------------------------------ the cache --

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
import zipfile  # noqa: E402

import xarray as xr  # noqa: E402
import yaml  # noqa: E402

from schedlab.campaigns.cache import Cache, CacheWarning  # noqa: E402
from schedlab.campaigns.cells import CELL_MODULES_ENV, cell, resolve_cell, simulate_cell  # noqa: E402
from schedlab.campaigns.runner import run  # noqa: E402
from schedlab.campaigns.spec import Campaign  # noqa: E402
from schedlab.declared import CellInputs  # noqa: E402

KEY = "ab" + "0123456789abcdef" * 3 + "01234567890123"
RESULT = {"avg_wait": ((), np.float64(12.5)), "jobs": ((), np.int64(7)),
          "cum_avg_wait": (("week",), np.array([1.0, 2.5, np.nan]))}


def same(a: dict, b: dict) -> bool:
    return set(a) == set(b) and all(
        tuple(a[k][0]) == tuple(b[k][0]) and np.asarray(a[k][1]).dtype == np.asarray(b[k][1]).dtype
        and np.array_equal(a[k][1], b[k][1], equal_nan=True) for k in a)


def test_a_cache_entry_round_trips_and_every_flipped_byte_is_caught(tmp_path):
    cache = Cache(tmp_path, "flip")
    cache.put(KEY, RESULT)
    path = cache.path(KEY)
    good = path.read_bytes()
    assert same(cache.load(KEY), RESULT)
    caught = 0
    for i in range(len(good)):
        bad = bytearray(good)
        bad[i] ^= 0x20
        path.write_bytes(bytes(bad))
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = cache.load(KEY)
        if got is None:   # detected: warned with the file's name, and removed
            caught += 1
            assert [w.category for w in seen] == [CacheWarning] and str(path) in str(seen[0].message)
            assert not path.exists()
        else:             # a byte no reader looks at (zip padding, a date): the content is intact
            assert same(got, RESULT) and not seen
    assert caught > len(good) // 2


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "altered", "other key"])
def test_a_corrupt_or_altered_entry_is_never_used(tmp_path, damage):
    cache = Cache(tmp_path, "damaged")
    cache.put(KEY, RESULT)
    path = cache.path(KEY)
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:-100])
    elif damage == "garbage":
        path.write_bytes(os.urandom(0) + b"PK\x03\x04" + bytes(range(256)) * 4)
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "altered":   # a valid .npz with one value changed, its checksum kept
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
        arrays["v_avg_wait"] = np.float64(12.0)
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)
        assert zipfile.is_zipfile(path)
    else:                       # a valid entry of another cell, copied over this one
        other = "cd" + KEY[2:]
        cache.put(other, {"avg_wait": ((), np.float64(99.0))})
        path.write_bytes(cache.path(other).read_bytes())
    with pytest.warns(CacheWarning, match=str(path)):
        assert cache.load(KEY) is None
    with pytest.raises(FileNotFoundError):
        cache.get(KEY)


@dataclasses.dataclass(frozen=True)
class SquareInputs(CellInputs):
    x: int = param(REQUIRED, help="the number squared")


@cell("hardening-square", SquareInputs)
def square_cell(p):
    return {"avg_wait": ((), float(p["x"]) ** 2), "jobs": ((), int(p["x"]))}


def test_a_corrupt_entry_is_recomputed_by_the_campaign(tmp_path):
    from dask.distributed import LocalCluster

    c = Campaign("squares", {"x": [1, 2, 3]}, cell="hardening-square")
    quiet = dict(progress=False, log=None, cache_dir=tmp_path)
    with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
        first = run(c, scheduler=cluster.scheduler_address, **quiet)
        path = Cache(tmp_path, "squares").path(c.key(c.cells()[1][1]))
        path.write_bytes(path.read_bytes()[:50])
        with pytest.warns(CacheWarning, match=str(path)):
            again = run(c, scheduler=cluster.scheduler_address, **quiet)
    assert (again.attrs["cells_cached"], again.attrs["cells_computed"]) == (2, 1)
    assert again.avg_wait.values.tolist() == [1.0, 4.0, 9.0]
    xr.testing.assert_identical(first.drop_attrs(), again.drop_attrs())
    assert Cache(tmp_path, "squares").load(c.key(c.cells()[1][1])) is not None


@pytest.mark.parametrize("name", ["..", ".", "../outside", "a/b", "a\\b", "x\0y", "line\nbreak", "\u200b",
                                  "x" * 300, "", 5, None])
def test_a_campaign_name_cannot_leave_the_cache(tmp_path, name):
    with pytest.raises(InputError, match="name"):
        Campaign(name, {"x": [1]}, cell="hardening-square")
    with pytest.raises(InputError):
        Cache(tmp_path / "cache", name)
    assert not (tmp_path / "cache").exists() and list(tmp_path.iterdir()) == []


def test_odd_but_harmless_names_stay_inside_the_cache(tmp_path):
    for name in ("policies-thesis-mine?request=runtime*2&m=peak", "a b", "été", "...", "-x"):
        cache = Cache(tmp_path, name)
        cache.put(KEY, RESULT)
        assert cache.path(KEY).resolve().is_relative_to(tmp_path.resolve())
        assert cache.path(KEY).parent.parent.parent == tmp_path


# ------------------------------------------------------ hostile specs --

def spec_file(tmp_path, text: str):
    p = tmp_path / "spec.yaml"
    p.write_text(text) if isinstance(text, str) else p.write_bytes(text)
    return p


@pytest.mark.parametrize("cell", ["subprocess:run", "os:system", "builtins:eval", "shutil:rmtree",
                                  "schedlab.studies.policies.cells:np", "schedlab.workloads.swf:write_swf",
                                  "schedlab.studies.policies.cells:campaigns.__globals__", "antigravity:fly",
                                  "schedlab.studies.policies.cells:cell", "schedlab.studies.policies.cells:workload"])
def test_a_spec_cannot_run_commands(tmp_path, cell):
    marker = tmp_path / "pwned"
    text = yaml.safe_dump({"name": "evil", "cell": cell, "dims": {"check": [True]},
                           "params": {"args": ["touch", str(marker)]}})
    path = spec_file(tmp_path, text)
    with pytest.raises(InputError, match="refused|not module:function") as info:
        Campaign.from_yaml(path)
    assert str(path) in str(info.value) and "cell" in str(info.value)
    assert not marker.exists()
    c = Campaign("ok", {"x": [1]}, cell="hardening-square")
    c.cell = cell     # changed after the checks: run() checks again, before any cell runs
    with pytest.raises(InputError, match="refused|not module:function"):
        run(c, scheduler="tcp://127.0.0.1:9", cache_dir=tmp_path, progress=False, log=None)


def test_registered_cells_and_allowed_modules_are_accepted(tmp_path, monkeypatch):
    assert resolve_cell("simulate") is simulate_cell
    assert resolve_cell("schedlab.campaigns.cells:simulate_cell") is simulate_cell
    from schedlab.studies.mixed import cells
    assert resolve_cell("schedlab.studies.mixed.cells:grid_cell") is cells.grid_cell
    (tmp_path / "sitecells.py").write_text("def mine(p):\n    return {}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(InputError, match="may not provide cells"):
        resolve_cell("sitecells:mine")
    monkeypatch.setenv(CELL_MODULES_ENV, "othercells, sitecells")
    assert resolve_cell("sitecells:mine").__name__ == "mine"


ALIAS_BOMB = "name: bomb\ndims: {x: [1]}\nparams:\n  a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
    f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9))

HOSTILE = [
    ("- a list\n- not a mapping\n", "expected a mapping"),
    ("name: x\ndims: {a: [1]}\ncolour: red\n", "unknown key"),
    ("dims: {a: [1]}\n", "required"),
    ("name: 5\ndims: {a: [1]}\n", "name"),
    ("name: [x]\ndims: {a: [1]}\n", "name"),
    ("name: ..\ndims: {a: [1]}\n", "name"),
    ("name: x\ndims: [a, b]\n", "dims"),
    ("name: x\ndims: {a: abc}\n", "dims.a"),
    ("name: x\ndims: {a: []}\n", "dims.a"),
    ("name: x\ndims: {a: [{b: 1}]}\n", r"dims.a\[0\]"),
    ("name: x\ndims: {a: [.nan]}\n", r"dims.a\[0\]"),
    ("name: x\ndims: {1: [1]}\n", "dims"),
    ("name: x\ndims: {'a b': [1]}\n", "dims"),
    ("name: x\ndims: {a: [1, 1]}\n", "duplicate"),
    ("name: x\ndims: {" + ", ".join(f"d{i}: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]" for i in range(7)) + "}\n", "cells"),
    ("name: x\ndims: {a: [1]}\nparams: [1, 2]\n", "params"),
    ("name: x\ndims: {a: [1]}\nparams: {a: 2}\n", "both a dimension"),
    ("name: x\ndims: {a: [1]}\nparams: {5: 2}\n", "params"),
    (ALIAS_BOMB, "aliases"),
    ("name: x\ndims: {a: [1]}\ncell: 5\n", "cell"),
    ("name: x\ndims: {a: [1]}\ncell: nope\n", "unknown cell"),
    ("name: x\ndims: {a: [1]}\nmetrics: avg_wait\n", "metrics"),
    ("name: x\ndims: {a: [1]}\nmetrics: [avg_wait, colour]\n", "metrics"),
    ("name: x\ndims: {a: [1]}\nparams: !!python/object/apply:os.system [echo]\n", "not valid YAML"),
    ("name: [unclosed\n", "not valid YAML"),
    ("[" * 20000 + "]" * 20000, "nested too deeply|not valid YAML"),
    (b"name: \xff\xfe\ndims: {a: [1]}\n", "not UTF-8"),
]


@pytest.mark.parametrize("text, match", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_specs_give_a_clear_error_naming_the_file(tmp_path, text, match):
    path = spec_file(tmp_path, text)
    with pytest.raises(InputError, match=match) as info:
        Campaign.from_yaml(path)
    msg = str(info.value)
    assert msg.startswith(str(path)) and len(msg) < 2000


def test_the_bundled_specs_still_load():
    from schedlab import paths

    for path in sorted((paths.ROOT / "campaigns").glob("*.yaml")):
        Campaign.from_yaml(path)


# ------------------------------------------- the command line's OSErrors --

def tiny_trace(tmp_path):
    p = tmp_path / "t.swf"
    p.write_text("; MaxProcs: 4\n" + "".join(row(job_id=i, submit=10 * i) for i in range(1, 30)))
    return p


def run_cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "schedlab.tools.cli", *args], capture_output=True, text=True, **kw)


def one_line_error(proc, *names):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("schedlab: error: "), proc.stderr
    assert "Traceback" not in proc.stderr and all(str(n) in lines[0] for n in names), proc.stderr


def test_cli_output_into_a_read_only_file_system(tmp_path):
    # /proc refuses new files even to root (a chmod-ed directory does not stop root).
    target = "/proc/schedlab-test-output.swf"
    one_line_error(run_cli(["simulate", str(tiny_trace(tmp_path)), "-o", target]), target)
    assert not os.path.exists(target)


def test_cli_output_onto_a_directory(tmp_path):
    out = tmp_path / "adir"
    out.mkdir()
    one_line_error(run_cli(["simulate", str(tiny_trace(tmp_path)), "-o", str(out)]), out)


def test_cli_output_on_a_full_disk(tmp_path):
    """A file size limit (RLIMIT_FSIZE) makes write() fail as a full disk does
    (EFBIG instead of ENOSPC), in a real process, without filling a disk."""
    resource = pytest.importorskip("resource")
    out = tmp_path / "out.swf"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    one_line_error(run_cli(["simulate", str(tiny_trace(tmp_path)), "-o", str(out)], preexec_fn=limit), out)
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["t.swf"]   # no temporary left


def test_cli_reads_an_unreadable_input(tmp_path):
    d = tmp_path / "dir.swf"
    d.mkdir()
    one_line_error(run_cli(["simulate", str(d)]), d)


# ---------------------------------------------- found by fuzzing: cleaning --

def test_runtime_times_k_of_a_huge_runtime_does_not_wrap_around(tmp_path):
    from schedlab.workloads import workload

    p = tmp_path / "huge.swf"
    p.write_text("; MaxProcs: 4\n" + row(run=2**62, req_time=-1) + row(job_id=2, req_time=-1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", workload.CleaningWarning)
        jobs, rep = workload.clean(swf.read_swf(p), request="runtime*2")
    assert jobs.req.tolist() == [2**62, 20] and jobs.run.tolist() == [2**62, 10]


def test_write_swf_splits_header_lines_at_every_line_end(tmp_path):
    p = swf.write_swf(tmp_path / "h.swf", {"job_id": [1]}, ["a\rb", "c\r\nd", "e\nf"])
    assert swf.read_swf(p).header_lines == ["a", "b", "c", "d", "e", "f"]


def test_a_trace_parameter_of_any_type_gives_a_schedlab_error_in_the_cache_key():
    c = Campaign("typed", {"trace": [5, 2.5, True, "no-such-trace"]}, cell="hardening-square")
    for _, params in c.cells():
        with pytest.raises(InputError):
            c.key(params)


FULL_DISK_DATASET = """
import resource, sys
import numpy as np, xarray as xr
from schedlab.campaigns import store
resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
ds = xr.Dataset({"avg_wait": (("week",), np.arange(5000.0))})
try:
    store.write_dataset(ds, sys.argv[1])
except OSError as e:
    print("OSError", e.filename)
"""


def test_a_dataset_written_on_a_full_disk_raises_an_oserror_naming_it(tmp_path):
    pytest.importorskip("resource")
    out = tmp_path / "out" / "x.nc"
    proc = subprocess.run([sys.executable, "-c", FULL_DISK_DATASET, str(out)], capture_output=True, text=True)
    assert proc.stdout.strip() == f"OSError {out}", proc.stdout + proc.stderr
    assert list((tmp_path / "out").iterdir()) == []
