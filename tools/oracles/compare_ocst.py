#!/usr/bin/env python3
"""freuk/ocst beside schedlab's engine, job by job, on the same cleaned input.

ocst (Lelong/Reis' OCaml EASY simulator: lelong2017, the thesis, online-bandit) is
built by tools/oracles/build_ocst.sh into build/oracles/ocst/.  This tool cleans a log
the way ocst needs it, writes it once, runs both simulators on it under the same
EASY-P_R-P_B, and compares the start of every job: the share of identical starts,
AvgWait both ways, and the first divergence with its context (the queue, the free
processors, the head's shadow time and extra processors under both simulators'
rules) and its cause.

ocst's input constraints (src/io.ml, parse_job): p > 0, p~ >= p, q > 0, q read from
SWF field 8 and m from the header line `; MaxProcs: m`.  So the input is the log
cleaned by schedlab.workloads.workload.clean(overrun="drop") (jobs with p > p~ removed, as in
lelong2017 §7.2) minus the jobs with p = 0, written with q in fields 5 and 8.
ocst's `--threshold` defaults to 0, which moves every job that has waited at all
to the head in FCFS order; "no threshold" is given as a value no wait reaches.

Policy names: at the pinned commit (after b0970ff, 2017-07-19, "fixing the 'reverse
order' problem") both of ocst's queues sort by decreasing criterion, and each name's
criterion (src/metrics.ml) is the negated key of the same name in the engine
(fcfs = wait, spf = -p~, saf = -p~.q, lqf = q, ...), so `--primary=spf` is EASY's SPF.
The comparison checks it: the same name gives (near) identical schedules, the
opposite name does not (--check-names).

Transformations that remove ties (both simulators get the transformed input):
  submits   times scaled by K = 10^6, and the jobs of a same-second submission group
            get submit offsets 0, 1, 2, ... in (submit, id) order: no two jobs share a
            submit time, so no tie in FCFS/LCFS and no same-instant queue order;
  ends      p~ scaled by K plus a job-specific offset in [0, K) (a permutation of the
            job index): no two running jobs end, by estimate, at the same instant
            (the shadow-time rule then cannot differ) and no two p~ are equal;
  procs     m scaled by V and q -> q V - v_j with v_j in [0, V/m) (the job's rank among
            the jobs of its q, modulo V/m): no two queued q equal (unless V/m jobs of one
            q lie between them) and
            every set of jobs that fitted still fits, every set that did not fit still
            does not (used with SQF/LQF, whose keys are q).

Usage:
  compare_ocst.py logs  [--traces ...] [--policies ...] [--untie ...] [--json F]
  compare_ocst.py weeks [--traces ...] [--policies ...] [--untie ...] [--json F]
  compare_ocst.py one TRACE POLICY [--untie ...]        (one run, first divergence shown)
Exit status: 0 done; 3 the ocst binary is missing (build it: make oracles); 2 bad input.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
OCST_DIR = ROOT / "build" / "oracles" / "ocst"
OCST_BIN = Path(os.environ.get("OCST_BIN", OCST_DIR / "ocst-simulator"))
WORK = ROOT / "build" / "oracles" / "work"

WEEK = 604800
#: ocst's "no threshold": no wait reaches it, even in the scaled times (int63).
NO_THRESHOLD = 4_000_000_000_000_000_000
K_TIME = 1_000_000          # time scale of the 'submits' / 'ends' transformations
V_PROCS = 1 << 20           # processor scale of the 'procs' transformation (m V < 2^31)
UNTIE = ("submits", "ends", "procs")
LOGS = ("KTH-SP2", "CTC-SP2", "SDSC-SP2")
POLICIES = ("FCFS-FCFS", "SPF-SPF", "SAF-SAF", "LCFS-LCFS", "LQF-LQF", "SQF-SQF", "LAF-LAF", "FCFS-SPF")

# engine name -> ocst name; ocst's criterion is the negated engine key (see the docstring)
OCST_NAME = {p: p.lower() for p in ("FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF", "SAF", "LAF",
                                     "SRF", "LRF", "SEXP", "LEXP")}
OPPOSITE = {"FCFS": "LCFS", "LCFS": "FCFS", "SPF": "LPF", "LPF": "SPF", "SQF": "LQF", "LQF": "SQF",
            "SAF": "LAF", "LAF": "SAF", "SRF": "LRF", "LRF": "SRF", "SEXP": "LEXP", "LEXP": "SEXP"}


class OcstMissing(RuntimeError):
    pass


# ------------------------------------------------------------------ input --

@dataclass
class Input:
    """A cleaned job set as both simulators get it (arrays in (submit, id) order)."""
    name: str
    m: int
    id: np.ndarray
    r: np.ndarray
    p: np.ndarray
    pe: np.ndarray
    q: np.ndarray
    scale: int = 1                  # time unit of r, p, pe: 1/scale s
    untie: tuple = ()
    notes: list = field(default_factory=list)

    @property
    def n(self) -> int:
        return int(self.r.size)

    def subset(self, mask, name) -> "Input":
        return Input(name, self.m, self.id[mask], self.r[mask], self.p[mask], self.pe[mask], self.q[mask],
                     self.scale, self.untie, list(self.notes))


def load_log(trace: str) -> Input:
    """The log cleaned for ocst: workload.clean(overrun='drop'), then p > 0 only."""
    import warnings

    from schedlab.workloads import traces, workload
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", workload.CleaningWarning)
        jobs, rep = workload.clean(traces.load(trace), overrun="drop")
    keep = jobs.run > 0
    notes = [f"clean(overrun='drop'): {rep.jobs_out} of {rep.jobs_in} jobs; "
             f"p = 0 removed for ocst: {int((~keep).sum())}"]
    j = jobs.subset(keep)
    assert np.all(j.req >= j.run) and np.all(j.procs > 0) and np.all(np.diff(j.submit) >= 0)
    return Input(trace, int(rep.m), j.id.copy(), j.submit.copy(), j.run.copy(), j.req.copy(),
                 j.procs.astype(np.int64), notes=notes)


def untie(inp: Input, what) -> Input:
    """The input transformed so that the named kinds of ties cannot arise (module docstring)."""
    what = tuple(w for w in UNTIE if w in what)
    bad = set(what) - set(UNTIE)
    if bad:
        raise ValueError(f"untie: unknown kind(s) {sorted(bad)}; choose among {UNTIE}")
    if not what:
        return inp
    r, p, pe, q, m = inp.r.copy(), inp.p.copy(), inp.pe.copy(), inp.q.copy(), inp.m
    scale = inp.scale
    if "submits" in what or "ends" in what:
        r, p, pe, scale = r * K_TIME, p * K_TIME, pe * K_TIME, scale * K_TIME
    if "submits" in what:
        # rank within each same-submit group, in (submit, id) order (inputs are sorted so)
        first = np.r_[True, inp.r[1:] != inp.r[:-1]]
        start_idx = np.maximum.accumulate(np.where(first, np.arange(inp.n), 0))
        rank = np.arange(inp.n) - start_idx
        if rank.max() >= K_TIME:
            raise ValueError(f"{inp.name}: {rank.max() + 1} jobs share one submit second (> {K_TIME})")
        r = r + rank
    if "ends" in what:
        pe = pe + (np.arange(inp.n, dtype=np.int64) * 7919 + 1) % 999_983
    if "procs" in what:
        span = V_PROCS // m
        if span < 2:
            raise ValueError(f"{inp.name}: m = {m} too large for the 'procs' transformation")
        # v_j: the job's rank among the jobs of its q (submit order), modulo span: two
        # jobs of one q get the same v only span same-q submissions apart
        order = np.lexsort((np.arange(inp.n), inp.q))
        grp_first = np.r_[True, inp.q[order][1:] != inp.q[order][:-1]]
        start_pos = np.maximum.accumulate(np.where(grp_first, np.arange(inp.n), 0))
        v = np.empty(inp.n, np.int64)
        v[order] = (np.arange(inp.n) - start_pos) % span
        q = q * V_PROCS - v
        m = m * V_PROCS
    out = Input(inp.name, m, inp.id, r, p, pe, q, scale, tuple(sorted(set(inp.untie) | set(what))), list(inp.notes))
    return out


def write_swf(inp: Input, path: Path) -> None:
    """SWF as ocst reads it: single spaces, q in fields 5 and 8, p~ in 9, MaxProcs header."""
    path.parent.mkdir(parents=True, exist_ok=True)
    cols = np.column_stack([inp.id, inp.r, np.full(inp.n, -1), inp.p, inp.q, np.full(inp.n, -1),
                            np.full(inp.n, -1), inp.q, inp.pe, np.full(inp.n, -1), np.ones(inp.n, np.int64),
                            np.full(inp.n, -1), *[np.full(inp.n, -1)] * 6]).astype(np.int64)
    with open(path, "w") as fh:
        fh.write(f"; MaxProcs: {inp.m}\n")
        np.savetxt(fh, cols, fmt="%d", delimiter=" ")


# ------------------------------------------------------------------ runs ---

def ocst_available() -> bool:
    return OCST_BIN.is_file() and os.access(OCST_BIN, os.X_OK)


def run_ocst(inp: Input, primary: str, backfill: str, swf: Path) -> tuple[np.ndarray, float]:
    """ocst's start of every job (-1: not started) and its own printed AvgWait (s)."""
    if not ocst_available():
        raise OcstMissing(f"ocst is not built ({OCST_BIN}); run: make oracles "
                          "(OCST_SRC=<a git copy of freuk/ocst> when offline)")
    out = swf.with_suffix(".ocst.swf")
    cmd = [str(OCST_BIN), "fixed", f"--primary={primary}", f"--backfill={backfill}",
           f"--threshold={NO_THRESHOLD}", f"--max_procs={inp.m}", "--stat=avgwait",
           f"--output={out}", str(swf)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"ocst failed ({res.returncode}) on {swf}: {res.stderr.strip()[-500:]}")
    start = np.full(inp.n, -1, np.int64)
    pos = {int(i): k for k, i in enumerate(inp.id)}
    data = np.loadtxt(out, dtype=np.int64, usecols=(0, 1, 2), ndmin=2)
    for jid, r, w in data:
        start[pos[int(jid)]] = r + w
    out.unlink()
    return start, float(res.stdout.strip().split(",")[0]) / inp.scale


def run_engine(inp: Input, policy: str) -> tuple[np.ndarray, np.ndarray]:
    """The engine's start of every job and its 'backfilled' flags."""
    from schedlab.jobs import Jobs
    from schedlab.engine.sim import simulate
    jobs = Jobs(inp.r, inp.p, inp.pe, inp.q.astype(np.int32), inp.id)
    sched = simulate(jobs, inp.m, f"EASY-{policy}")
    return sched.start.copy(), sched.backfilled.copy()


# ------------------------------------------------------------ diagnosis ---

def engine_key(name: str, inp: Input, idx: np.ndarray, t: int) -> np.ndarray:
    """The engine's key (csrc/SEMANTICS.md, lowest first) of the jobs idx at time t."""
    r, pe, q = inp.r[idx].astype(float), inp.pe[idx].astype(float), inp.q[idx].astype(float)
    x = (t - inp.r[idx] + np.maximum(inp.pe[idx], 1)).astype(float) / np.maximum(inp.pe[idx], 1)
    keys = {"FCFS": r, "SPF": pe, "SQF": q, "SAF": pe * q, "SRF": pe / q, "SEXP": x}
    base = name if name in keys else OPPOSITE[name]
    k = keys[base]
    return k if base == name else -k


def diagnose(inp: Input, policy: str, se: np.ndarray, so: np.ndarray, bf: np.ndarray) -> dict | None:
    """The first divergence: its time, the jobs started differently, the pass's
    context from the shared history before it, and its cause."""
    diff = se != so
    if not diff.any():
        return None
    t = int(np.minimum(np.where(diff, se, np.inf), np.where(diff, so, np.inf)).min())
    prim, back = policy.split("-")
    end = se + inp.p
    queued = np.flatnonzero((inp.r <= t) & ((se >= t) | (se < 0)))
    running = np.flatnonzero((se >= 0) & (se < t) & (end > t))
    free = inp.m - int(inp.q[running].sum())
    order = queued[np.lexsort((inp.id[queued], inp.r[queued], engine_key(prim, inp, queued, t)))]
    # the engine's pass, step 2: start while the jobs fit
    f, started, head = free, [], None
    for j in order:
        if inp.q[j] <= f:
            f -= int(inp.q[j])
            started.append(j)
        else:
            head = j
            break
    ctx = {"time": t / inp.scale, "free": free, "queued": int(queued.size),
           "running": int(running.size)}
    e_only = [j for j in np.flatnonzero(diff) if se[j] == t]
    o_only = [j for j in np.flatnonzero(diff) if so[j] == t]
    ctx["engine_starts"] = [int(inp.id[j]) for j in e_only]
    ctx["ocst_starts"] = [int(inp.id[j]) for j in o_only]
    jobinfo = lambda j: {"id": int(inp.id[j]), "r": inp.r[j] / inp.scale, "q": int(inp.q[j]),  # noqa: E731
                         "p_req": inp.pe[j] / inp.scale}   # seconds (q as simulated)
    ctx["queue_head"] = [jobinfo(j) for j in order[:6]]
    causes = []
    # (a) ties in a queue's key: among the jobs started differently, or for the head
    #     (ocst's head may be another job of the same key: its reservation differs)
    diffset = set(e_only) | set(o_only)
    kp = engine_key(prim, inp, queued, t)
    kb = engine_key(back, inp, queued, t)
    for j in sorted(diffset) + ([head] if head is not None else []):
        i = int(np.flatnonzero(queued == j)[0])
        others = np.arange(queued.size) != i
        tie = others & ((kp == kp[i]) | ((kb == kb[i]) if j in diffset else False))
        if tie.any():
            same_r = tie & (inp.r[queued] == inp.r[j])
            causes.append("same-second submissions" if same_r.any() else
                          f"equal {prim if (others & (kp == kp[i])).any() else back} keys")
            break
    # (b) several running jobs end, by estimate, at the shadow time: the engine counts
    #     them all as extra, ocst stops at the first that covers the head, taking the
    #     equal ends in its running list's order: latest pass first; within a pass the
    #     backfilled jobs in the order they were picked, then the others in reverse
    #     (easy.ml: decisions = started @ List.rev picked; engine.ml prepends each)
    if head is not None:
        run_end = [(int(se[j] + inp.pe[j]), j) for j in running]
        now_end = [(t + int(inp.pe[j]), j) for j in started]
        eng = sorted(run_end + now_end, key=lambda x: (x[0], x[1]))
        def pass_rank(j):
            kb_j = float(engine_key(back, inp, np.array([j]), int(se[j]))[0])
            return (0, kb_j, int(inp.r[j]), j) if bf[j] else (1, 0.0, 0, -j)
        ocs = [(e, j) for e, _, _, j in sorted((e, -int(se[j]), pass_rank(j), j) for e, j in run_end)]
        ocs = sorted(ocs + now_end, key=lambda x: x[0])   # stable: running before started now
        need = int(inp.q[head])

        def covering(order):
            avail = f
            for e, j in order:
                avail += int(inp.q[j])
                if avail >= need:
                    return e, avail - need
            return None, None
        shadow, extra_ocst = covering(ocs)
        if shadow is not None:
            at = [j for e, j in eng if e == shadow]
            extra_eng = f + sum(int(inp.q[j]) for e, j in eng if e <= shadow) - need
            ctx.update(head=jobinfo(head), shadow=shadow / inp.scale, extra_engine=extra_eng,
                       extra_ocst=extra_ocst, ending_at_shadow=[int(inp.id[j]) for j in at])
            # ocst's extra depends on which tied job its list holds first: the smallest
            # over the orders of the tied jobs (the running list's order is emulated
            # above, not read from ocst)
            import itertools
            before = f + sum(int(inp.q[j]) for e, j in eng if e < shadow)
            orders = itertools.islice(itertools.permutations([int(inp.q[j]) for j in at]), 5040)
            low = min(next(a for a in itertools.accumulate(o, initial=before) if a >= need) - need
                      for o in orders)
            ctx["extra_ocst_min"] = low
            # the engine backfilled, on extra processors ocst does not count, a job
            # running past the shadow time (ocst's extra is the smaller, by its rule)
            if extra_eng > low and any(t + inp.pe[j] > shadow for j in e_only):
                causes.insert(0, "several running jobs end at the shadow time")
    ctx["cause"] = causes[0] if causes else "unexplained"
    ctx["causes"] = causes
    return ctx


def compare(inp: Input, policy: str, swf: Path | None = None, names: str = "same") -> dict:
    """Both simulators on inp under EASY-policy ('FCFS-SPF'); the job-by-job comparison."""
    prim, back = policy.split("-")
    oprim, oback = (OCST_NAME[prim], OCST_NAME[back]) if names == "same" else \
        (OCST_NAME[OPPOSITE[prim]], OCST_NAME[OPPOSITE[back]])
    tmp = None
    if swf is None:
        tmp = tempfile.TemporaryDirectory(dir=WORK if WORK.is_dir() else None)
        swf = Path(tmp.name) / "in.swf"
        write_swf(inp, swf)
    try:
        so, ocst_avg = run_ocst(inp, oprim, oback, swf)
    finally:
        if tmp is not None:
            tmp.cleanup()
    se, bf = run_engine(inp, policy)
    same = se == so
    w_e = (se - inp.r) / inp.scale
    w_o = (so - inp.r) / inp.scale
    res = {"trace": inp.name, "policy": policy, "untie": list(inp.untie), "jobs": inp.n,
           "identical": int(same.sum()), "identical_share": float(same.mean()) if inp.n else 1.0,
           "avgwait_engine": float(w_e.mean()), "avgwait_ocst": float(w_o.mean()),
           "avgwait_ocst_printed": ocst_avg,
           "first_divergence": diagnose(inp, policy, se, so, bf)}
    return res


# ------------------------------------------------------------------ weeks --

def weeks_of(inp: Input, n_weeks: int) -> list[Input]:
    """ocst's subtrace.ml weeks: week index r // 604800 minus that of the first job;
    weeks 1..n_weeks (the first, partial week skipped), jobs kept by submit only."""
    w = inp.r // (WEEK * inp.scale)
    w = w - w.min()
    return [inp.subset(w == k, f"{inp.name} week {k}") for k in range(1, n_weeks + 1)]


# -------------------------------------------------------------------- CLI --

def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _inputs(traces, policies, unties):
    """(trace, policy, input) for every log, untie reading and policy, the
    log read once."""
    for tr in traces:
        base = load_log(tr)
        for u in unties:
            for pol in policies:
                yield tr, pol, untie(base, untie_for(pol, u))


def run_logs(traces, policies, unties, names="same") -> list[dict]:
    rows = []
    for tr, pol, inp in _inputs(traces, policies, unties):
        swf = WORK / f"{tr}-{'+'.join(inp.untie) or 'none'}.swf"
        write_swf(inp, swf)
        t0 = time.time()
        res = compare(inp, pol, swf, names)
        res["seconds"] = round(time.time() - t0, 2)
        rows.append(res)
        fd = res["first_divergence"]
        _progress(f"{tr:9s} {pol:10s} untie={'+'.join(inp.untie) or 'none':20s} "
                  f"identical {100 * res['identical_share']:6.2f} %  AvgWait engine "
                  f"{res['avgwait_engine']:9.1f} ocst {res['avgwait_ocst']:9.1f}  "
                  f"first: {fd['cause'] if fd else '-'} ({res['seconds']} s)")
        swf.unlink()
    return rows


def run_weeks(traces, policies, unties) -> list[dict]:
    from schedlab.studies.mixed.params import THESIS_WEEKS
    rows = []
    for tr, pol, inp in _inputs(traces, policies, unties):
        t0 = time.time()
        agg = {"trace": tr, "policy": pol, "untie": list(inp.untie), "weeks": THESIS_WEEKS[tr],
               "jobs": 0, "identical": 0, "weeks_identical": 0, "causes": {}, "examples": {}}
        for wk in weeks_of(inp, THESIS_WEEKS[tr]):
            if wk.n == 0:
                continue
            res = compare(wk, pol)
            agg["jobs"] += res["jobs"]
            agg["identical"] += res["identical"]
            fd = res["first_divergence"]
            if fd is None:
                agg["weeks_identical"] += 1
            else:
                agg["causes"][fd["cause"]] = agg["causes"].get(fd["cause"], 0) + 1
                agg["examples"].setdefault(fd["cause"], {"week": wk.name, **fd})
        agg["identical_share"] = agg["identical"] / max(agg["jobs"], 1)
        agg["seconds"] = round(time.time() - t0, 1)
        rows.append(agg)
        _progress(f"{tr:9s} {pol:10s} untie={'+'.join(inp.untie) or 'none':20s} weeks "
                  f"{agg['weeks_identical']}/{agg['weeks']} identical, jobs "
                  f"{100 * agg['identical_share']:6.2f} %  first causes {agg['causes']} "
                  f"({agg['seconds']} s)")
    return rows


def _unties(args) -> list:
    return [() if u == "none" else ("all",) if u == "all" else tuple(u.split("+")) for u in args.untie]


def untie_for(policy: str, what) -> tuple:
    """'all' = every tie that can be removed for this policy: submits and ends, and
    procs when a queue is keyed on q alone (SQF/LQF).  procs is refused with an area
    key: p~ q then overflows ocst's 63-bit integer product (metrics.ml, LAF)."""
    what = tuple(what)
    keyed = set(policy.split("-"))
    if "all" in what:
        what = ("submits", "ends") + (("procs",) if keyed & {"SQF", "LQF"} else ())
    if "procs" in what and keyed & {"SAF", "LAF"}:
        raise ValueError(f"untie 'procs' with {policy}: p~ q would overflow ocst's integers")
    return what


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("logs", "weeks"):
        s = sub.add_parser(name)
        s.add_argument("--traces", nargs="+", default=list(LOGS))
        s.add_argument("--policies", nargs="+", default=list(POLICIES))
        s.add_argument("--untie", nargs="+", default=["none"],
                       help="none, all, or kinds joined by '+': submits, ends, procs")
        s.add_argument("--json", type=Path)
        if name == "logs":
            s.add_argument("--names", choices=("same", "opposite"), default="same",
                           help="opposite: run ocst under the opposite name (checks the name map)")
    s = sub.add_parser("one")
    s.add_argument("trace")
    s.add_argument("policy")
    s.add_argument("--untie", default="none")
    args = ap.parse_args(argv)
    if not ocst_available():
        print(f"compare_ocst: ocst is not built ({OCST_BIN}); run: make oracles", file=sys.stderr)
        return 3
    WORK.mkdir(parents=True, exist_ok=True)
    if args.cmd == "one":
        inp = untie(load_log(args.trace), untie_for(args.policy, () if args.untie == "none" else args.untie.split("+")))
        print(json.dumps(compare(inp, args.policy), indent=1, default=int))
        return 0
    for p in args.policies:
        if "-" not in p or any(x not in OCST_NAME for x in p.split("-")):
            print(f"compare_ocst: bad policy {p!r}: expected P_R-P_B among {sorted(OCST_NAME)}", file=sys.stderr)
            return 2
    rows = (run_logs(args.traces, args.policies, _unties(args), args.names) if args.cmd == "logs"
            else run_weeks(args.traces, args.policies, _unties(args)))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        meta = json.loads((OCST_DIR / "BUILD.json").read_text()) if (OCST_DIR / "BUILD.json").exists() else {}
        args.json.write_text(json.dumps({"ocst": meta, "command": " ".join(sys.argv), "rows": rows},
                                        indent=1, default=int) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
