"""Fuzz target: cleaning (issue 17).

Each example writes a small SWF log (values drawn around the cleaning rules:
-1 for missing, 0, small and huge numbers, status 5, with or without
MaxProcs), reads it back, and cleans it with drawn choices (machine size,
overrun, missing requested times).  On success the report must add up and
agree with the documented rules, job by job:

* jobs in = the file's jobs; jobs out = the jobs returned; jobs in - jobs
  out = the sum of the "removed" rows of the report; every count >= 0;
* a kept job satisfies every rule (1 <= q <= m, q = requested else
  allocated processors, runtime >= 0, submit >= 0, p~ >= 0, not cancelled
  before starting, and p <= p~ under overrun=drop), keeps its file values
  (submit, runtime, requested time unless it was missing), and the jobs come
  sorted by submit time; a removed job breaks at least one rule;
* no numpy overflow (a RuntimeWarning is a failure) and no exception but
  schedlab's.
"""
from __future__ import annotations

import traceback
import warnings

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz_inputs import Tally, WrongResult, budget, clean_error
from schedlab.workloads import swf, workload

TALLY = Tally("cleaning")
_tally = TALLY.fixture()

small = st.one_of(st.sampled_from([-1, 0, 1]), st.integers(-3, 40))
times = st.one_of(st.sampled_from([-1, 0, 1, 10, 3600]), st.integers(-5, 10**6),
                  st.sampled_from([2**31, 2**53 + 1, 2**61, 2**62, 2**63 - 1, -(2**63 - 1)]))
COLUMNS = {"submit": times, "wait": times, "run": times, "alloc_procs": small, "req_procs": small,
           "req_time": times, "status": st.sampled_from([-1, 0, 1, 5]), "user": small, "partition": small}


@st.composite
def log(draw):
    n = draw(st.integers(1, 8))
    fields = {k: np.array(draw(st.lists(s, min_size=n, max_size=n)), dtype=np.int64) for k, s in COLUMNS.items()}
    fields["job_id"] = np.arange(1, n + 1)
    header = draw(st.sampled_from([[], ["MaxProcs: 16"], ["MaxProcs: 1"], ["MaxNodes: 8"], ["MaxProcs: -1"],
                                   ["MaxProcs: 99999999999999999999"]]))
    return fields, header


choices = st.fixed_dictionaries({
    "m": st.one_of(st.none(), st.sampled_from(["auto", "header", "peak"]), st.integers(1, 64)),
    "overrun": st.sampled_from(["kill", "drop"]),
    "request": st.sampled_from(["auto", "drop", "runtime", "runtime*2", "runtime*1.5", "user-max",
                                "partition-max", "limit:3600", "limit:24h"]),
})


def check(path, fields, header, options):
    swf.write_swf(path, fields, header)
    t = swf.read_swf(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", workload.CleaningWarning)
            warnings.simplefilter("error", RuntimeWarning)   # an overflow is a wrong result in waiting
            jobs, rep = workload.clean(t, **options)
    except RuntimeWarning as w:
        raise WrongResult(f"numpy: {w} at {traceback.extract_tb(w.__traceback__)[-1].line}") from None
    except Exception as exc:   # noqa: BLE001
        return clean_error(exc, path)
    f, m = t.fields, rep.m
    if rep.jobs_in != t.n or rep.jobs_out != len(jobs) or not 1 <= m:
        raise WrongResult(f"report: in {rep.jobs_in} (file {t.n}), out {rep.jobs_out} (jobs {len(jobs)}), m {m}")
    removed = sum(c for _, c, action, _ in rep.steps if action == "removed")
    if any(c < 0 for _, c, _, _ in rep.steps) or rep.jobs_in - rep.jobs_out != removed:
        raise WrongResult(f"report does not add up: {rep.steps}, in {rep.jobs_in}, out {rep.jobs_out}")
    if np.any(np.diff(jobs.submit) < 0):
        raise WrongResult("jobs not sorted by submit time")
    row = {int(line): i for i, line in enumerate(t.lines)}
    kept = np.zeros(t.n, bool)
    for j, line in enumerate(jobs.lines):
        i = row[int(line)]
        kept[i] = True
        q = f["req_procs"][i] if f["req_procs"][i] > 0 else f["alloc_procs"][i]
        expect = (jobs.submit[j], jobs.run[j], jobs.procs[j]) == (f["submit"][i], f["run"][i], q)
        if not expect or (f["req_time"][i] >= 0 and jobs.req[j] != f["req_time"][i]):
            raise WrongResult(f"line {line}: kept job changed its values")
    q = np.where(f["req_procs"] > 0, f["req_procs"], f["alloc_procs"])
    missing = f["req_time"] < 0
    chosen = rep.choices["request"].split(" ")[0]
    breaks = ((q <= 0) | (f["req_procs"] > m) | (f["alloc_procs"] > m) | (f["run"] < 0) | (f["submit"] < 0)
              | ((f["status"] == 5) & (f["run"] < 0) & (f["wait"] < 0)) | (missing & (chosen == "drop")))
    if options["overrun"] == "drop":
        # p > p~ with p~ as filled (a filled p~ may be below p: limit:S, user-max of others)
        req = np.full(t.n, -1, np.int64)
        for j, line in enumerate(jobs.lines):
            req[row[int(line)]] = jobs.req[j]
        breaks |= (f["run"] > f["req_time"]) & ~missing
        if np.any(kept & missing & (f["run"] > req)):
            raise WrongResult("overrun=drop kept a job whose filled p~ is below its runtime")
    bad_kept = np.flatnonzero(kept & breaks)
    # a removed job with a missing p~ may have been dropped by overrun=drop after filling
    bad_removed = np.flatnonzero(~kept & ~breaks & ~(missing & (options["overrun"] == "drop")))
    if bad_kept.size or bad_removed.size or np.any(jobs.req < 0):
        raise WrongResult(f"kept jobs that break a rule at {t.lines[bad_kept].tolist()}, removed jobs that "
                          f"break none at {t.lines[bad_removed].tolist()}")
    return "accepted"


@budget(200)
@given(data=log(), options=choices)
def test_fuzz_cleaning(tmp_path_factory, data, options):
    fields, header = data
    TALLY.run(check, scratch(tmp_path_factory) / "log.swf", fields, header, options)


def scratch(factory, _dirs={}):
    if "d" not in _dirs:
        _dirs["d"] = factory.mktemp("fuzz-cleaning")
    return _dirs["d"]
