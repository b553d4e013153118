"""One full-profile cell of the multiple-queue study (lawson2005), for
callgrind and for timing, under any build of the C core (issue 33, item 5:
the study's full run took 229.4 s at f63f4f9 and 267.0 s at 18ccb19).

  python bench/callgrind_multiqueue.py prep DIR [TRACE]     # the workload, once
  valgrind --tool=callgrind '--toggle-collect=*sl_sim_run' \\
      python bench/callgrind_multiqueue.py online DIR [TRACE] [key=value ...]
  callgrind_annotate callgrind.out.<pid> | head

(The core is one LTO unit with hidden symbols: sl_sim_run is inlined into
cffi's wrapper _cffi_f_sl_sim_run, so the toggle names the wrapper by its
suffix; the wrapper's own instructions are a few hundred per call.)

``online`` runs the study's own cell function, ``multiqueue.cells.online_cell``
(the campaign's ``multiqueue-online-<TRACE>`` cell: its baseline EASY-FCFS-FCFS
run, then the online simulation policy with its tests: at each week boundary
whose trigger measure exceeds T, a clone per P = 1..pmax run over the
horizon), with the full profile's parameters: the paper's weeks (Table 2),
pmax = initial = 4, trigger cumulative; by default the dominant cell,
SDSC-BLUE (175,393 jobs, 104 weeks, 103 tests) with user estimates, oracle
replay, T = 2.5, L = 2.  ``fixed`` runs ``fixed_cell`` (estimate, partitions).
Only the trace's cleaning is taken out of the measured run: ``prep`` saves the
cleaned workload, and the cell's ``load`` reads it back.

It prints a digest of the cell's outputs (but ``online_time``, a clock), of
the online and baseline schedules (start, end, flags, partition) and of every
test (week, P before, scores, P chosen, jobs replayed), so that two builds can
be compared for identical results.

To compare two commits' cores with one library (the study's code, sim.py and
metrics.py are identical between f63f4f9 and 18ccb19):

  git worktree add --detach /tmp/core-A f63f4f9; git worktree add --detach /tmp/core-B 18ccb19
  (cd /tmp/core-B && python bench/build_core.py /tmp/core-A/csrc /tmp/core-A-build
                  && python bench/build_core.py /tmp/core-B/csrc /tmp/core-B-build)
  PYTHONPATH=/tmp/core-B/lib SCHEDLAB_CORE_DIR=/tmp/core-A-build python bench/callgrind_multiqueue.py online DIR

The script imports only ``schedlab.studies.multiqueue.cells`` (and numpy), so
it runs with that commit's layout as with the current one."""
from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import numpy as np

from schedlab.studies.multiqueue import cells

TRACE = "SDSC-BLUE"
#: Table 2's weeks (the full profile's ``weeks: null``).
PAPER_WEEKS = {"CTC-SP2": 48, "KTH-SP2": 48, "SDSC-SP2": 104, "SDSC-BLUE": 104}
ONLINE = {"estimate": "user", "replay": "oracle", "threshold": 2.5, "horizon": 2, "pmax": 4, "initial": 4,
          "trigger": "cumulative"}
FIXED = {"estimate": "user", "partitions": 4, "criteria": "paper"}
FIELDS = ("submit", "run", "req", "procs", "id")


def _file(d: Path, trace: str) -> Path:
    return d / f"{trace}-{PAPER_WEEKS.get(trace)}w.npz"


def prep(d: Path, trace: str = TRACE) -> None:
    d.mkdir(parents=True, exist_ok=True)
    w = cells.load(trace, PAPER_WEEKS.get(trace))
    np.savez(_file(d, trace), m=np.array([w.m]), t0=np.array([w.t0]), weeks=np.array([w.weeks]),
             **{f: getattr(w.jobs, f) for f in FIELDS})
    print(f"{trace}: {len(w.jobs)} jobs, m={w.m}, {w.weeks} weeks -> {_file(d, trace)}")


def _workload(d: Path, trace: str):
    z = np.load(_file(d, trace))
    jobs = cells.Jobs(*(z[f] for f in FIELDS))
    return cells.Workload(trace, jobs, int(z["m"][0]), int(z["t0"][0]), int(z["weeks"][0]))


def _value(h, v) -> None:
    a = np.ascontiguousarray(np.asarray(v))
    h.update(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())


def _schedule(h, s) -> None:
    for a in (s.start, s.end, s.flags, s.partition):
        if a is not None:
            _value(h, a)


def run(kind: str, d: Path, trace: str = TRACE, *kv: str) -> None:
    w = _workload(d, trace)
    cells.load = lambda spec, weeks=None: w            # the saved workload, not the trace's cleaning
    seen: dict = {}
    baseline, online, fixed = cells.baseline, cells.online, cells.fixed

    def base_rec(*a, **k):
        seen["baseline"] = s = baseline(*a, **k)
        return s

    def online_rec(*a, **k):
        seen["online"] = r = online(*a, **k)
        return r

    def fixed_rec(*a, **k):
        seen["fixed"] = s = fixed(*a, **k)
        return s

    cells.baseline, cells.online, cells.fixed = base_rec, online_rec, fixed_rec
    p = dict(ONLINE if kind == "online" else FIXED)
    for x in kv:
        k, v = x.split("=", 1)
        p[k] = type(p[k])(v) if k in p else v
    p.update(trace=trace, weeks=PAPER_WEEKS.get(trace))
    t = time.perf_counter()
    out = (cells.online_cell if kind == "online" else cells.fixed_cell)(p)
    dt = time.perf_counter() - t
    h = hashlib.sha256()
    for name in sorted(out):
        if name != "online_time":
            h.update(name.encode())
            _value(h, out[name][1])
    _schedule(h, seen["baseline"])
    if "online" in seen:
        r = seen["online"]
        _schedule(h, r.schedule)
        for test in r.tests:
            h.update(repr((test.week, test.time, test.current, sorted(test.scores.items()), test.chosen,
                           test.replayed)).encode())
        extra = f"{len(r.tests)} tests, {len(r.changes)} changes, "
    else:
        _schedule(h, seen["fixed"])
        extra = ""
    print(f"{kind} {trace} {len(w.jobs)} jobs {w.weeks} weeks {p}: {extra}"
          f"R={float(out['mean_slowdown_ratio'][1]):.6f}, {dt:.2f} s, digest {h.hexdigest()[:16]}")


if __name__ == "__main__":
    action, d, rest = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
    if action == "prep":
        prep(d, *rest)
    else:
        run(action, d, *rest)
