"""Fuzz targets: the importers (issue 32), one per format, built from the
real Slurm samples of data/site-logs/slurm-22.05 (and, for Batsim, the
workload written from them).

Each example mutates a sample: a field of one record (or one JSON value at
a path) replaced by a troublemaker (20-digit integers, 1e300, NaN, -50,
null, a list, an object, a string where a number goes ...), a record
duplicated or deleted, a key removed, bytes flipped.  Outcomes (see
fuzz_inputs.Tally): a clean error (a SchedlabError naming the file), or an
accepted conversion that must pass the oracle of "wrong" below; anything
else is a raw exception.

Oracle for an accepted conversion:

* conservation: records read = jobs written + records skipped;
* every field within SWF's conventions: submit >= 0, wait/run/processors/
  requested time >= -1, status in {0, 1, 5}, every value an int64, job ids
  unique; the SWF written reads back (read_swf) to the same fields;
* no duplicate slipped through: when a reference scan of the input (plain
  Python on the raw records) finds two records with one job id and step,
  the default conversion must refuse the file;
* the values are the input's: where the job ids are the input's own, each
  job's runtime equals the record's (ElapsedRaw, time.elapsed, the delay
  profile's delay rounded) and its processors the record's.
"""
from __future__ import annotations

import copy
import json
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz_inputs import Tally, WrongResult, budget, clean_error
from schedlab.workloads import importers, swf
from schedlab import paths
from schedlab.workloads.importers import batsim

SITE = paths.ROOT / "data" / "site-logs" / "slurm-22.05"
I64 = 2**63 - 1

TALLY = {fmt: Tally(f"importer-{fmt}") for fmt in ("sacct", "sacct-json", "batsim")}
_tally_psv = TALLY["sacct"].fixture()
_tally_json = TALLY["sacct-json"].fixture()
_tally_batsim = TALLY["batsim"].fixture()

TEXT_NASTY = ["9" * 20, "1" * 400, "-50", "-1", "0", "1", "2", "1e300", "nan", "inf", "-0", "+7", "1.5", "", " ",
              "None", "Unknown", "UNLIMITED", "Partition_Limit", "5", "1-00:00:00", "99999999-00:00:00",
              "2026-11-23T20:27:20", "1969-12-31T23:59:59", "9999-12-31T23:59:59", "0001-01-01T00:00:00",
              "2026-02-30T00:00:00", "COMPLETED", "RUNNING", "CANCELLED by 0", "FAILED", "x|y", "\u00b2", "٣",
              "3.batch", "6_[2-4]", "4", "\x00", "\u00e9"]
JSON_NASTY = [None, True, False, 0, 1, -1, -50, 10**20, 10**30, -(10**30), 2**63, 2**63 - 1, 1e300, 1.5, -0.0,
              float("nan"), float("inf"), "", "x", "5", "COMPLETED", [], [1], [[1, 2]], {}, {"a": 1},
              {"set": True, "infinite": False, "number": 10**30}, {"set": False}, {"infinite": True},
              [{"type": "cpu", "count": 10**30}], [{"type": "cpu", "count": None}], ["cpu"]]


def _psv_rows(name):
    lines = (SITE / name).read_text().splitlines()
    return lines[0].split("|"), [line.split("|") for line in lines[1:]]


PSV = {name: _psv_rows(name) for name in ("sacct-allocations.psv", "sacct-all-steps.psv")}
SACCT_JSON = json.loads((SITE / "sacct.json").read_text())


def _batsim_sample():
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as d:
        conv = importers.convert(SITE / "sacct-allocations.psv", "sacct", max_procs=2)
        conv.write(Path(d) / "s.swf")
        batsim.write_workload(Path(d) / "s.swf", Path(d) / "w.json")
        doc = json.loads((Path(d) / "w.json").read_text())
    for k, job in enumerate(doc["jobs"]):           # fractional times and named users too
        if k % 3 == 0:
            job["subtime"] = job["subtime"] + 0.4
        job["user"] = f"u{job.get('user', 0)}"
    return doc


BATSIM = _batsim_sample()


# ------------------------------------------------------------- the oracle --

def _check_accepted(conv, path, tmp):
    f, rep = conv.fields, conv.report
    if rep.records != rep.jobs + sum(rep.skipped.values()):
        raise WrongResult(f"records {rep.records} != jobs {rep.jobs} + skipped {dict(rep.skipped)}")
    n = conv.n
    for name, v in f.items():
        if v.dtype != np.int64 or len(v) != n:
            raise WrongResult(f"field {name}: dtype {v.dtype}, length {len(v)} of {n}")
    lows = {"submit": 0, "wait": -1, "run": -1, "alloc_procs": -1, "req_procs": -1, "req_time": -1}
    for name, low in lows.items():
        if n and int(f[name].min()) < low:
            raise WrongResult(f"field {name}: {int(f[name].min())} below {low}")
    if n and not set(f["status"].tolist()) <= {0, 1, 5}:
        raise WrongResult(f"status {set(f['status'].tolist())}")
    if len(set(f["job_id"].tolist())) != n:
        raise WrongResult("job ids not unique")
    if n:
        out = tmp / "out.swf"
        conv.write(out)
        t = swf.read_swf(out)
        for name, v in f.items():
            if not np.array_equal(t[name], v):
                raise WrongResult(f"field {name}: wrote {v.tolist()}, read back {t[name].tolist()}")
    return "accepted"


def _run(fmt, path, tmp, dup_keys, expected):
    """Convert; classify; ``dup_keys``: the reference scan's repeated keys;
    ``expected``: {job id: (run, processors)} from the raw records."""
    try:
        conv = importers.convert(path, fmt)
    except Exception as exc:   # noqa: BLE001
        return clean_error(exc, path)
    if dup_keys:
        raise WrongResult(f"duplicate records {sorted(map(str, dup_keys))[:3]} accepted")
    outcome = _check_accepted(conv, path, tmp)
    if not any("numbered 1..n" in note for note in conv.report.notes):
        f = conv.fields
        for i, jid in enumerate(f["job_id"].tolist()):
            if jid in expected:
                run, procs = expected[jid]
                if run is not None and f["run"][i] >= 0 and f["run"][i] != run:
                    raise WrongResult(f"job {jid}: run {f['run'][i]}, the record says {run}")
                if procs is not None and f["req_procs"][i] != procs:
                    raise WrongResult(f"job {jid}: processors {f['req_procs'][i]}, the record says {procs}")
    return outcome


# ------------------------------------------------------------------- sacct --

psv_mutation = st.tuples(st.sampled_from(["field", "field", "field", "duplicate", "delete", "flip"]),
                         st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(TEXT_NASTY),
                         st.integers(1, 255))


def _psv_reference(names, rows):
    dups, seen, expected = set(), set(), {}
    col = {n: i for i, n in enumerate(names)}
    for r in rows:
        if len(r) != len(names):
            return set(), {}
        key = (r[col["JobIDRaw"]] or r[col["JobID"]]).strip()
        if key in seen and key:
            dups.add(key)
        seen.add(key)
        raw = r[col["JobIDRaw"]].strip()
        if raw.isascii() and raw.isdigit() and len(raw) < 19:
            el, req = r[col["ElapsedRaw"]].strip(), r[col["ReqCPUS"]].strip()
            expected[int(raw)] = (int(el) if el.isascii() and el.isdigit() and len(el) < 19 else None,
                                  int(req) if req.isascii() and req.isdigit() and len(req) < 19 else None)
    return dups, expected


def check_psv(tmp, name, mutations):
    names, rows = PSV[name]
    rows = [list(r) for r in rows]
    flips = []
    for kind, a, b, token, k in mutations:
        if not rows:
            break
        i = a % len(rows)
        if kind == "field":
            rows[i][b % len(names)] = token
        elif kind == "duplicate":
            rows.insert(b % (len(rows) + 1), list(rows[i]))
        elif kind == "delete":
            del rows[i]
        else:
            flips.append((a, k))
    text = "\n".join(["|".join(names)] + ["|".join(r) for r in rows]).encode("utf-8")
    text = _flip(text, flips)
    path = tmp / "fuzz.psv"
    path.write_bytes(text)
    dups, expected = _psv_reference(names, [line.split("|") for line in
                                            text.decode("utf-8", "replace").splitlines()[1:] if line.strip()])
    return _run("sacct", path, tmp, dups, expected if not flips else {})


@budget(150)
@given(name=st.sampled_from(sorted(PSV)), mutations=st.lists(psv_mutation, min_size=0, max_size=4))
def test_fuzz_sacct_importer(tmp_path_factory, name, mutations):
    TALLY["sacct"].run(check_psv, scratch(tmp_path_factory, "sacct"), name, mutations)


# -------------------------------------------------------------- JSON paths --

def _set_path(doc, path, value):
    """Set doc[path] (keys and list indexes, modulo lengths); False when the path does not lead anywhere."""
    node = doc
    for key in path[:-1]:
        if isinstance(node, list) and node:
            node = node[key % len(node)] if isinstance(key, int) else None
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return False
    last = path[-1]
    if isinstance(node, list) and node and isinstance(last, int):
        node[last % len(node)] = value
    elif isinstance(node, dict) and not isinstance(last, int):
        node[last] = value
    else:
        return False
    return True


def _flip(text: bytes, flips) -> bytes:
    """``text`` with the byte at each offset ``a`` (modulo its length) XOR-ed with ``k``."""
    for a, k in flips:
        i = a % len(text)
        text = text[:i] + bytes([text[i] ^ k]) + text[i + 1:]
    return text


def _json_mutate(doc, mutations, paths_of_job):
    doc = json.loads(json.dumps(doc))
    for kind, a, p, value in mutations:
        value = copy.deepcopy(value)       # JSON_NASTY's lists and dicts are shared between examples
        jobs = doc.get("jobs") if isinstance(doc, dict) else None
        if not isinstance(jobs, list) or not jobs:
            break
        i = a % len(jobs)
        if kind == "set":
            _set_path(doc, ["jobs", i] + paths_of_job[p % len(paths_of_job)], value)
        elif kind == "top":
            _set_path(doc, [["jobs", "profiles", "nb_res", "meta"][p % 4]], value)
        elif kind == "duplicate":
            jobs.insert(p % (len(jobs) + 1), json.loads(json.dumps(jobs[i])))
        elif kind == "delete":
            del jobs[i]
        elif kind == "drop-key" and isinstance(jobs[i], dict):
            path = paths_of_job[p % len(paths_of_job)]
            node = jobs[i]
            for key in path[:-1]:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict):
                node.pop(path[-1], None)
    return doc


json_mutation = st.tuples(st.sampled_from(["set", "set", "set", "top", "duplicate", "delete", "drop-key"]),
                          st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(JSON_NASTY))

SACCT_PATHS = [["job_id"], ["state"], ["state", "current"], ["time"], ["time", "submission"], ["time", "start"],
               ["time", "end"], ["time", "elapsed"], ["time", "limit"], ["required"], ["required", "CPUs"],
               ["tres"], ["tres", "allocated"], ["tres", "allocated", 0], ["tres", "allocated", 0, "count"],
               ["tres", "requested"], ["user"], ["group"], ["qos"], ["partition"], ["cluster"]]
BATSIM_PATHS = [["id"], ["subtime"], ["walltime"], ["res"], ["profile"], ["user"]]


def _json_reference_sacct(doc):
    dups, seen, expected = set(), set(), {}
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    for job in jobs if isinstance(jobs, list) else []:
        if not isinstance(job, dict):
            continue
        jid = job.get("job_id")
        if type(jid) is int or (type(jid) is float and math.isfinite(jid) and jid.is_integer()):
            key = int(jid)
            if key in seen:
                dups.add(key)
            seen.add(key)
            t = job.get("time") if isinstance(job.get("time"), dict) else {}
            el = t.get("elapsed")
            req = job.get("required", {}).get("CPUs") if isinstance(job.get("required"), dict) else None
            expected[key] = (el if type(el) is int else None, req if type(req) is int else None)
    return dups, expected


def _mutated_json(path, doc, mutations, paths_of_job, flips):
    """``doc`` mutated (:func:`_json_mutate`), dumped, its bytes flipped and
    written to ``path``: (the mutated document, the bytes written)."""
    doc = _json_mutate(doc, mutations, paths_of_job)
    text = _flip(json.dumps(doc).encode(), flips)
    path.write_bytes(text)
    return doc, text


def check_sacct_json(tmp, mutations, flips):
    path = tmp / "fuzz.json"
    doc, text = _mutated_json(path, SACCT_JSON, mutations, SACCT_PATHS, flips)
    dups, expected = _json_reference_sacct(doc)
    if flips:     # the bytes changed: reference the parsed file, if it parses
        try:
            dups, expected = _json_reference_sacct(json.loads(text))
        except (ValueError, RecursionError):
            dups, expected = set(), {}
    return _run("sacct-json", path, tmp, dups, expected)


flips = st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=1)


@budget(150)
@given(mutations=st.lists(json_mutation, min_size=0, max_size=4), flips=st.one_of(st.just([]), flips))
def test_fuzz_sacct_json_importer(tmp_path_factory, mutations, flips):
    TALLY["sacct-json"].run(check_sacct_json, scratch(tmp_path_factory, "sacct-json"), mutations, flips)


# ------------------------------------------------------------------ batsim --

def _json_reference_batsim(doc):
    dups, seen, expected = set(), set(), {}
    if not isinstance(doc, dict):
        return dups, expected
    profiles = doc.get("profiles") if isinstance(doc.get("profiles"), dict) else {}
    for job in doc.get("jobs", []) if isinstance(doc.get("jobs"), list) else []:
        if not isinstance(job, dict) or "id" not in job or type(job["id"]) not in (str, int):
            continue
        key = str(job["id"])
        if key in seen:
            dups.add(key)
        seen.add(key)
        prof = profiles.get(job.get("profile")) if isinstance(job.get("profile"), str) else None
        delay = prof.get("delay") if isinstance(prof, dict) else None
        run = math.floor(delay + 0.5) if type(delay) in (int, float) and math.isfinite(delay) and \
            0 <= delay < 2**62 else None
        res = job.get("res") if type(job.get("res")) is int else None
        if key.isascii() and key.isdigit() and len(key) < 19:
            expected[int(key)] = (run, res)
    return dups, expected


def check_batsim(tmp, mutations, flips):
    path = tmp / "fuzz-batsim.json"
    _, text = _mutated_json(path, BATSIM, mutations, BATSIM_PATHS, flips)
    try:
        dups, expected = _json_reference_batsim(json.loads(text))
    except (ValueError, RecursionError):
        dups, expected = set(), {}
    return _run("batsim", path, tmp, dups, expected)


@budget(150)
@given(mutations=st.lists(json_mutation, min_size=0, max_size=4), flips=st.one_of(st.just([]), flips))
def test_fuzz_batsim_importer(tmp_path_factory, mutations, flips):
    TALLY["batsim"].run(check_batsim, scratch(tmp_path_factory, "batsim"), mutations, flips)


def scratch(factory, name, _dirs={}):
    """One directory per target for every example (each overwrites its files)."""
    if name not in _dirs:
        _dirs[name] = factory.mktemp(f"fuzz-{name}")
    return _dirs[name]
