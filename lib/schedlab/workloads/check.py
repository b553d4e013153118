"""``schedlab check``: is a schedule a valid EASY-P_R-P_B schedule?

Given any schedule (SWF with waits, Batsim's jobs.csv, or a simulated
:class:`schedlab.engine.sim.Schedule`), the machine size ``m`` and the policy it
claims, report every violation with the job ids:

``start-before-submit``
    a job starts before it is submitted;
``over-capacity``
    more than ``m`` processors busy at some instant (runs are half-open
    ``[start, end)``: a run of zero length holds nothing);
``overran``
    a job runs longer than its requested time (a job killed at p~ runs
    exactly p~);
``wider-than-m``
    a job asks for more processors than the machine has (the EASY replay
    is then not run: no pass can start it);
``shared-processors``
    a processor allocated to two jobs running at the same time (Batsim's
    ``allocated_resources``);
``allocation-size``
    an allocation whose size differs from the processors the job asked
    for, or that names processors beyond ``m`` (ids ``0 .. m-1``);
``execution-time``
    Batsim's ``execution_time`` is not finite or differs from
    ``finish_time - starting_time`` (by more than 1e-6 s relative);

and, when a policy is given (``csrc/SEMANTICS.md``, "One pass"), the EASY
rules at every pass.  The checker *replays* the schedule: at every instant
where a job is submitted or completes, it takes the state the schedule
itself is in (its queued and running jobs), works out what one
EASY-P_R-P_B pass does there (primary order with the threshold, the jobs
that start while they fit, the head, its shadow time and extra processors,
the backfilling walk) and compares with the jobs the schedule starts then:

``delayed-reservation``
    a backfilled job that ends after the head's shadow time (by its
    estimate) and uses more processors than the extra ones left: it delays
    the reservation of the head of the primary queue;
``not-started``
    a job that fits at a pass (in the primary order before the head, or as
    a backfill that honours the reservation) and does not start;
``out-of-order``
    a job started at a pass where EASY-P_R-P_B does not start it, for
    another reason (it jumps the primary queue, or takes a backfilling
    slot an earlier job of the P_B order gets);
``no-pass``
    a job started at an instant where nothing is submitted or completes
    (EASY starts jobs only at passes).

A job of zero length that starts completes at once and the pass is
repeated at that instant, as in the engine.  The state at each pass is read
from the schedule, not from a re-simulation, so each violation is local:
it names the pass (time) and the jobs, and a valid schedule has none.

Estimates: ``requested`` (p~: a running job is expected to end at start +
p~) or ``actual`` (the run's real length).  Policies: the 13 pure ones of
the engine (FCFS ... WFP; not MIXED or SJBF), with an optional threshold
(and ``threshold_backfill``).  Runs killed by the decision process (Batsim
``COMPLETED_KILLED``, kill-and-requeue) are counted for capacity but such
schedules are not EASY-P_R-P_B schedules and the EASY check refuses them.

Cost: O(n log n) for the sorts, plus at each pass where some queued job
fits the free processors, the primary jobs started and the running jobs
walked for the shadow time and the queued jobs walked for backfilling.
"""
from __future__ import annotations

import time as _time
from dataclasses import dataclass, field

import numpy as np
from sortedcontainers import SortedList

from ..errors import InputError
from .formats.schedule import ScheduleFile, from_schedule, read
from ..expr import Expr
from ..jobs import POLICIES, Policy, as_policy

__all__ = ["KINDS", "Violation", "CheckResult", "PassDecision", "check", "check_file", "explain", "passes"]

#: Every kind of violation, in report order.
KINDS = ("start-before-submit", "over-capacity", "overran", "wider-than-m", "shared-processors",
         "allocation-size", "execution-time", "delayed-reservation", "not-started", "out-of-order", "no-pass")
_STATIC = {"FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF", "SAF", "LAF", "SRF", "LRF"}
_DYNAMIC = {"SEXP", "LEXP", "WFP"}
ESTIMATES = ("requested", "actual")


@dataclass(frozen=True)
class Violation:
    kind: str
    time: float
    jobs: tuple[str, ...]
    message: str

    def __str__(self):
        return f"{self.kind:<20} t={_t(self.time)}  jobs {', '.join(self.jobs)}: {self.message}"


@dataclass
class CheckResult:
    """Violations found (all of them), and what was checked."""

    source: str
    m: int
    policy: Policy | None
    estimate: str
    n_jobs: int
    passes: int = 0
    violations: list[Violation] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def counts(self) -> dict[str, int]:
        out = {k: 0 for k in KINDS}
        for v in self.violations:
            out[v.kind] += 1
        return out

    def jobs(self, kind: str) -> set[str]:
        """Job ids named by violations of ``kind``."""
        return {j for v in self.violations if v.kind == kind for j in v.jobs}

    def report(self, limit: int | None = 50) -> str:
        what = f"EASY-{self.policy.primary}-{self.policy.backfill}" if self.policy else "no policy"
        if self.policy and self.policy.threshold is not None:
            what += f" T={self.policy.threshold}s"
        head = (f"{self.source}: {self.n_jobs} jobs, m = {self.m}, {what}, estimate {self.estimate}, "
                f"{self.passes} passes replayed in {self.seconds:.2f} s")
        head += "".join(f"\nnote: {note}" for note in self.notes)
        if self.ok:
            return head + "\nvalid: no violation"
        lines = [head, f"INVALID: {len(self.violations)} violation(s): "
                 + ", ".join(f"{k} {c}" for k, c in self.counts().items() if c)]
        shown = self.violations if limit is None else self.violations[:limit]
        lines += [f"  {v}" for v in shown]
        if len(shown) < len(self.violations):
            lines.append(f"  ... and {len(self.violations) - len(shown)} more (--all shows them)")
        return "\n".join(lines)


@dataclass
class PassDecision:
    """What one EASY-P_R-P_B pass does at time ``t`` (from the state before it)."""

    t: float
    free: int                           # free processors before the pass
    queue: list[int]                    # queued jobs (indices) in primary order
    started: list[int]                  # started in primary order while they fit
    head: int | None                    # first job that does not fit
    shadow: float | None                # the head's shadow time
    extra: int | None                   # extra processors at the shadow time
    backfilled: list[int]               # started by backfilling, in P_B order
    backfill_order: list[int] = field(default_factory=list)   # the P_B walk (without head and started)


def _t(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


# ----------------------------------------------------------- simple checks --

def _basic(sf: ScheduleFile, m: int, out: list[Violation]) -> None:
    bad = np.flatnonzero(sf.start < sf.submit)
    for i in bad:
        out.append(Violation("start-before-submit", sf.start[i], (sf.ids[i],),
                             f"starts at {_t(sf.start[i])}, submitted at {_t(sf.submit[i])}"))
    over = np.flatnonzero((sf.requested >= 0) & (sf.end - sf.start > sf.requested) & ~sf.killed_run)
    for i in over:
        out.append(Violation("overran", sf.start[i], (sf.ids[i],),
                             f"runs {_t(sf.end[i] - sf.start[i])} s, requested {_t(sf.requested[i])} s: "
                             "not killed at its requested time"))
    # capacity: +q at start, -q at end, ends first at one instant; zero-length runs hold nothing
    pos = sf.end > sf.start
    t = np.concatenate([sf.end[pos], sf.start[pos]])
    d = np.concatenate([-sf.procs[pos], sf.procs[pos]])
    kind = np.concatenate([np.zeros(pos.sum(), np.int8), np.ones(pos.sum(), np.int8)])
    o = np.lexsort((kind, t))
    t, d = t[o], d[o]
    busy = np.cumsum(d)
    # the busy count after the last event of each instant
    last = np.r_[t[1:] != t[:-1], True] if t.size else np.zeros(0, bool)
    ti, bi = t[last], busy[last]
    k = 0
    while k < ti.size:
        if bi[k] <= m:
            k += 1
            continue
        k2 = k
        while k2 + 1 < ti.size and bi[k2 + 1] > m:
            k2 += 1
        t0, t1 = ti[k], ti[k2 + 1] if k2 + 1 < ti.size else ti[k2]
        peak = int(bi[k:k2 + 1].max())
        running = np.flatnonzero(pos & (sf.start <= t0) & (sf.end > t0))
        ids = tuple(sf.ids[i] for i in running[np.argsort(sf.start[running], kind="stable")])
        out.append(Violation("over-capacity", t0, ids,
                             f"{peak} processors busy (m = {m}) from {_t(t0)} to {_t(t1)}; the jobs running at "
                             f"{_t(t0)} are named"))
        k = k2 + 1


def _allocations(sf: ScheduleFile, m: int, out: list[Violation]) -> None:
    """Batsim's allocated_resources: the size of each allocation, its
    processors within the machine, no processor held by two jobs at once."""
    from sortedcontainers import SortedList as _Sorted

    from .formats import intervals as iv

    alloc = sf.allocated
    for i in range(sf.n):
        got = iv.size(alloc[i])
        if got != sf.procs[i]:
            out.append(Violation("allocation-size", sf.start[i], (sf.ids[i],),
                                 f"allocated {got} processors ({iv.to_string(alloc[i]) or 'none'}), asked for "
                                 f"{sf.procs[i]}"))
        elif alloc[i] and alloc[i][-1][1] >= m:
            out.append(Violation("allocation-size", sf.start[i], (sf.ids[i],),
                                 f"allocated {iv.to_string(alloc[i])}: processors beyond the machine's 0-{m - 1}"))
    # sweep in time: busy intervals (a, b, job) of the running jobs; ends before starts at one instant
    pos = np.flatnonzero(sf.end > sf.start)
    events = sorted([(sf.end[i], 0, i) for i in pos] + [(sf.start[i], 1, i) for i in pos])
    busy = _Sorted()
    longest = 0
    reported = set()
    for t, kind, i in events:
        if kind == 0:
            for a, b in alloc[i]:
                busy.discard((a, b, i))
            continue
        for a, b in alloc[i]:
            k = busy.bisect_left((a - longest, -1, -1))
            while k < len(busy) and busy[k][0] <= b:
                a2, b2, j = busy[k]
                if b2 >= a and (j, i) not in reported:
                    reported.add((j, i))
                    lo, hi = max(a, a2), min(b, b2)
                    out.append(Violation("shared-processors", t, (sf.ids[j], sf.ids[i]),
                                         f"processors {lo if lo == hi else f'{lo}-{hi}'} held by job {sf.ids[j]} "
                                         f"(from {_t(sf.start[j])} to {_t(sf.end[j])}) are allocated to job "
                                         f"{sf.ids[i]} at {_t(t)}"))
                k += 1
        for a, b in alloc[i]:
            busy.add((a, b, i))
            longest = max(longest, b - a)


def _execution(sf: ScheduleFile, out: list[Violation]) -> None:
    ex = sf.execution
    span = sf.end - sf.start
    for i in range(sf.n):
        if not np.isfinite(ex[i]):
            out.append(Violation("execution-time", sf.start[i], (sf.ids[i],),
                                 f"execution_time {ex[i]:g} is not finite (finish - start = {_t(span[i])})"))
        elif abs(ex[i] - span[i]) > 1e-6 * max(1.0, abs(span[i])):
            out.append(Violation("execution-time", sf.start[i], (sf.ids[i],),
                                 f"execution_time {_t(ex[i])} differs from finish_time - starting_time = "
                                 f"{_t(span[i])}"))


# --------------------------------------------------------------- the replay --

class _Replay:
    """Replays the schedule pass by pass (see the module docstring)."""

    def __init__(self, sf: ScheduleFile, m: int, policy: Policy, estimate: str, on_pass=None):
        for name, p in (("primary", policy.primary), ("backfill", policy.backfill)):
            if isinstance(p, Expr):
                bad = [c for c in p.columns] + (["run"] if p.reads_run else []) + \
                    (["est"] if any(op == "EST" for op, _ in p.program) else [])
                if bad:
                    raise InputError(f"check: {name} policy {p}: reads {', '.join(bad)}, which a schedule file does "
                                     "not hold; an expression of req, procs, submit, wait, area, id, now and m can "
                                     "be checked")
            elif not isinstance(p, str) or p not in POLICIES:
                raise InputError(f"check: {name} policy {p}: only the pure policies "
                                 f"{', '.join(POLICIES)} and policy expressions can be checked")
        if estimate not in ESTIMATES:
            raise InputError(f"check: estimate must be one of {', '.join(ESTIMATES)}, got {estimate!r}")
        if sf.killed_run.any():
            i = int(np.flatnonzero(sf.killed_run)[0])
            raise InputError(f"{sf.where(i)}: a run killed by the decision process (COMPLETED_KILLED): "
                             "kill-and-requeue schedules are not EASY-P_R-P_B schedules; check them without "
                             "--policy")
        if estimate == "requested" and (sf.requested < 0).any():
            i = int(np.flatnonzero(sf.requested < 0)[0])
            raise InputError(f"{sf.where(i)}: no requested time: the requested-time estimate needs one for "
                             "every job (or check with --estimate actual)")
        self.sf, self.m, self.policy, self.on_pass = sf, m, policy, on_pass
        n = sf.n
        self.n = n
        # a job started before its submission (reported apart) enters the queue at its start
        self.enter = np.minimum(sf.submit, sf.start).tolist()
        self.submit = sf.submit.tolist()
        self.q = sf.procs.astype(np.int64).tolist()
        self.req = sf.requested.tolist()
        dur = (sf.end - sf.start)
        self.est = (sf.requested if estimate == "requested" else dur).tolist()
        self.start = sf.start.tolist()
        self.end = sf.end.tolist()
        # static ranks: (key, submit, order)
        fcfs = np.lexsort((sf.order, sf.submit))
        self.rank_fcfs = np.empty(n, np.int64)
        self.rank_fcfs[fcfs] = np.arange(n)
        self.rank = {}
        for p in {policy.primary, policy.backfill}:
            if (isinstance(p, Expr) and not p.dynamic) or (isinstance(p, str) and p in _STATIC and p != "FCFS"):
                o = np.lexsort((sf.order, sf.submit, self._static_key(p)))
                r = np.empty(n, np.int64)
                r[o] = np.arange(n)
                self.rank[p] = r.tolist()
        self.rank_fcfs = self.rank_fcfs.tolist()
        self.rank["FCFS*"] = self.rank_fcfs   # the FCFS order (the threshold's, and FCFS's)
        # the queue, kept sorted in every static order the pass walks
        self.queue: set[int] = set()
        self.queue_q = SortedList()
        self.sq = {p: SortedList(key=self.rank[p].__getitem__) for p in self.rank}
        self.T = policy.threshold
        self.violations: list[Violation] = []
        self.passes = 0

    def _job(self, j: int) -> dict:
        sf = self.sf
        return {"req": self.req[j], "procs": self.q[j], "submit": self.submit[j], "id": int(sf.ids[j])}

    def _static_key(self, p) -> np.ndarray:
        if isinstance(p, Expr):
            return np.array([p.key(self._job(j), 0, self.m) for j in range(self.n)], dtype=np.float64)
        sf = self.sf
        r, pt, q = sf.submit, sf.requested.astype(np.float64), sf.procs.astype(np.float64)
        return {"FCFS": r, "LCFS": -r, "SPF": pt, "LPF": -pt, "SQF": q, "LQF": -q, "SAF": pt * q,
                "LAF": -(pt * q), "SRF": pt / q, "LRF": -(pt / q)}[p]

    def _dyn_key(self, p, j: int, t: float) -> float:
        if isinstance(p, Expr):
            return p.key(self._job(j), t, self.m)
        wait = t - self.submit[j]
        pp = max(self.req[j], 1.0)
        if p == "SEXP":
            return (wait + pp) / pp
        if p == "LEXP":
            return -((wait + pp) / pp)
        w = wait / pp
        return -(w * w * w * float(self.q[j]))

    def enqueue(self, j: int) -> None:
        self.queue.add(j)
        self.queue_q.add(self.q[j])
        for sl in self.sq.values():
            sl.add(j)

    def dequeue(self, j: int) -> None:
        self.queue.discard(j)
        self.queue_q.remove(self.q[j])
        for sl in self.sq.values():
            sl.remove(j)

    def _order(self, p: str, t: float):
        """The queue in policy ``p``'s order (an iterator)."""
        if p == "FCFS":
            return iter(self.sq["FCFS*"])
        if p in self.sq:
            return iter(self.sq[p])
        sub, fc = self.submit, self.rank_fcfs
        return iter(sorted(self.queue, key=lambda j: (self._dyn_key(p, j, t), sub[j], fc[j])))

    def _with_threshold(self, p: str, t: float):
        """``p``'s order with the jobs waiting more than T first, in FCFS order."""
        if self.T is None:
            yield from self._order(p, t)
            return
        lim = t - self.T
        sub = self.submit
        for j in self.sq["FCFS*"]:
            if sub[j] >= lim:
                break
            yield j
        for j in self._order(p, t):
            if sub[j] >= lim:
                yield j

    def decide(self, t: float, running: SortedList, free: int, full: bool = False) -> PassDecision:
        """One pass at ``t`` on the current queue, the running jobs (a
        SortedList of (estimated end, index)) and the free processors.
        ``full``: also list the whole queue in primary order."""
        pol = self.policy
        q, est = self.q, self.est
        started, head = [], None
        f = free
        primary = self._with_threshold(pol.primary, t)
        for j in primary:
            if q[j] <= f:
                started.append(j)
                f -= q[j]
            else:
                head = j
                break
        order = (started + ([head] if head is not None else []) + list(primary)) if full else []
        if head is None:
            return PassDecision(t, free, order, started, None, None, None, [], [])
        # the reservation: running jobs (and those just started) by estimated end
        extra_runs = sorted((max(t + est[j], t), j) for j in started)
        avail, shadow = f, None
        need = q[head]
        it_a, it_b = iter(running), iter(extra_runs)
        a, b = next(it_a, None), next(it_b, None)
        while a is not None or b is not None:
            if b is None or (a is not None and a <= b):
                e, j = a
                a = next(it_a, None)
            else:
                e, j = b
                b = next(it_b, None)
            e = max(e, t)
            if shadow is not None and e != shadow:
                break
            avail += q[j]
            if shadow is None and avail >= need:
                shadow = e
        if shadow is None:
            shadow = float("inf")
        extra = avail - need
        done = set(started)
        done.add(head)
        walk = self._with_threshold(pol.backfill, t) if pol.threshold_backfill else self._order(pol.backfill, t)
        backfilled, bf_order = [], []
        x = extra
        qmin = self.queue_q[0]
        if full:
            bf_order = [j for j in walk if j not in done]
            walk = bf_order
        horizon = shadow - t
        for j in walk:
            qj = q[j]
            if qj > f or j in done:
                if f < qmin and not full:
                    break
                continue
            if est[j] <= horizon:
                backfilled.append(j)
                f -= qj
            elif qj <= x:
                backfilled.append(j)
                f -= qj
                x -= qj
        return PassDecision(t, free, order, started, head, shadow, extra, backfilled, bf_order)

    def run(self) -> None:
        sf, n = self.sf, self.n
        submit, start, end, q = self.submit, self.start, self.end, self.q
        enter = self.enter
        by_submit = sorted(range(n), key=lambda j: (enter[j], self.rank_fcfs[j]))
        by_start = sorted(range(n), key=lambda j: (start[j], self.rank_fcfs[j]))
        pos_end = sorted((end[j], j) for j in range(n) if end[j] > start[j])
        times = sorted(set(enter) | set(start) | {e for e, _ in pos_end})
        event_times = set(enter) | {e for e, _ in pos_end}
        queue = self.queue
        queue_q = self.queue_q
        full = self.on_pass is not None
        running = SortedList()              # (estimated end, index)
        run_key: dict[int, tuple] = {}
        free = self.m

        def take(j: int, t) -> int:
            """Start job j at t: dequeue it and, unless it lasts 0 s, hold its
            processors until its estimated end; returns the processors held."""
            self.dequeue(j)
            if end[j] <= start[j]:
                return 0
            k = (max(t + self.est[j], t), j)
            run_key[j] = k
            running.add(k)
            return q[j]
        isub = ist = iend = 0
        for t in times:
            while iend < len(pos_end) and pos_end[iend][0] <= t:
                j = pos_end[iend][1]
                iend += 1
                if j in run_key:
                    running.remove(run_key.pop(j))
                    free += q[j]
            while isub < n and enter[by_submit[isub]] <= t:
                j = by_submit[isub]
                isub += 1
                self.enqueue(j)
            sched: list[int] = []
            while ist < n and start[by_start[ist]] <= t:
                sched.append(by_start[ist])
                ist += 1
            sched = [j for j in sched if j in queue]   # (a start before submit is reported apart)
            if t not in event_times:
                for j in sched:
                    self._add(Violation("no-pass", t, (sf.ids[j],),
                                        f"starts at {_t(t)}, when no job is submitted or completes"))
            elif queue and (sched or queue_q[0] <= free):
                remaining = set(sched)
                while True:
                    self.passes += 1
                    d = self.decide(t, running, free, full)
                    want = d.started + d.backfilled
                    if not full and not remaining.issubset(want):
                        # the schedule starts a job this pass does not (yet): the same pass again, with
                        # the whole queue and backfilling order listed, to name it
                        d = self.decide(t, running, free, True)
                    if self.on_pass is not None:
                        self.on_pass(d)
                    took = [j for j in want if j in remaining]
                    missing = [j for j in want if j not in remaining]
                    for j in missing:
                        how = "in the primary order before the head" if j in d.started else \
                            "as a backfill that honours the reservation"
                        head = f" (head {sf.ids[d.head]}, shadow time {_t(d.shadow)}, extra {d.extra})" \
                            if d.head is not None else ""
                        self._add(Violation("not-started", t, (sf.ids[j],),
                                            f"fits at the pass at {_t(t)} {how}{head} and does not start "
                                            f"(starts at {_t(start[j])})"))
                    again = False
                    for j in took:
                        remaining.discard(j)
                        held = take(j, t)
                        free -= held
                        if not held:
                            again = True       # a zero-length job completes now: another pass
                    if not again or not queue:
                        break
                if remaining:
                    self._classify(t, d, took, sorted(remaining, key=self.rank_fcfs.__getitem__))
                sched = [j for j in sched if j in remaining]
            else:
                if sched:   # nothing fits, yet the schedule starts jobs: classify with a pass
                    self.passes += 1
                    d = self.decide(t, running, free, True)
                    self._classify(t, d, [], sched)
            for j in sched:                   # what the schedule does, right or wrong
                if j in queue:
                    free -= take(j, t)

    def _classify(self, t, d: PassDecision, took: list[int], extra_starts: list[int]) -> None:
        """Name the starts the pass ``d`` does not make: a backfill that the
        reservation cannot afford (walking the schedule's own backfills in
        P_B order, as the pass would) delays the head; any other is out of
        order."""
        sf, pol = self.sf, self.policy
        pos = {j: k for k, j in enumerate(d.backfill_order)}
        delayed = set()
        if d.head is not None:
            x = d.extra
            for j in sorted((j for j in took + extra_starts if j in pos), key=pos.__getitem__):
                if t + self.est[j] <= d.shadow:
                    continue
                if self.q[j] <= x:
                    x -= self.q[j]
                else:
                    delayed.add(j)
        for j in extra_starts:
            if j in delayed:
                self._add(Violation(
                    "delayed-reservation", t, (sf.ids[j], sf.ids[d.head]),
                    f"backfilled at {_t(t)}, expected to end at {_t(t + self.est[j])}, after the shadow time "
                    f"{_t(d.shadow)} of head {sf.ids[d.head]}, on {self.q[j]} processors beyond the {d.extra} "
                    "extra ones: it delays the head's reservation"))
                continue
            if j == d.head:
                why = f"it is the head of the primary queue and needs {self.q[j]} processors, {d.free} are free"
            elif d.head is None:
                why = f"it needs {self.q[j]} processors, {d.free} are free"
            else:
                why = (f"head {sf.ids[d.head]} is not started, and an earlier job of the {pol.backfill} "
                       "backfilling order takes the processors or it does not fit")
            self._add(Violation("out-of-order", t, (sf.ids[j],),
                                f"starts at {_t(t)} where EASY-{pol.primary}-{pol.backfill} does not start "
                                f"it: {why}"))

    def _add(self, v: Violation) -> None:
        self.violations.append(v)


# ------------------------------------------------------------------- public --

def _as_file(schedule) -> ScheduleFile:
    if isinstance(schedule, ScheduleFile):
        return schedule
    if hasattr(schedule, "jobs") and hasattr(schedule, "flags"):
        return from_schedule(schedule)
    return read(schedule)


def check(schedule, m: int | None = None, policy=None, threshold=None, estimate: str = "requested",
          threshold_backfill: bool | None = None) -> CheckResult:
    """Check a schedule (a path, a :class:`ScheduleFile` or a simulated
    :class:`~schedlab.engine.sim.Schedule`) on ``m`` processors; with ``policy``
    (``"EASY-SPF-FCFS"``, a :class:`Policy`) also the EASY rules."""
    t0 = _time.perf_counter()
    sf = _as_file(schedule)
    if m is None:
        m = sf.m
    if m is None:
        raise InputError(f"{sf.source}: give the machine size (-m): the file does not say it")
    m = int(m)
    if m < 1:
        raise InputError(f"check: machine size m={m} must be positive")
    if sf.n == 0:
        raise InputError(f"{sf.source}: no job: an empty schedule cannot be vouched for")
    pol = None if policy is None else as_policy(policy, threshold, threshold_backfill)
    res = CheckResult(sf.source, m, pol, estimate, int((~sf.killed_run).sum()))
    big = np.flatnonzero(sf.procs > m)
    for i in big:
        res.violations.append(Violation("wider-than-m", sf.start[i], (sf.ids[i],),
                                        f"needs {sf.procs[i]} processors, the machine has m = {m}"))
    _basic(sf, m, res.violations)
    if sf.allocated is not None:
        _allocations(sf, m, res.violations)
    if sf.execution is not None:
        _execution(sf, res.violations)
    if pol is not None and big.size:
        res.notes.append(f"the EASY replay was not run: {big.size} job(s) wider than m")
    elif pol is not None:
        rp = _Replay(sf, m, pol, estimate)
        rp.run()
        res.violations += rp.violations
        res.passes = rp.passes
    res.seconds = _time.perf_counter() - t0
    return res


def check_file(path, m=None, policy=None, threshold=None, estimate="requested") -> CheckResult:
    """:func:`check` of a file (SWF with waits or Batsim's jobs.csv)."""
    return check(read(path), m, policy, threshold, estimate)


def passes(schedule, m: int, policy, threshold=None, estimate: str = "requested") -> list[PassDecision]:
    """Every pass the checker replays on a schedule where some queued job
    fits the free processors (the others start nothing), each with the
    whole queue in primary order (:class:`PassDecision`)."""
    sf = _as_file(schedule)
    got: list[PassDecision] = []
    _Replay(sf, int(m), as_policy(policy, threshold), estimate, on_pass=got.append).run()
    return got


def explain(schedule, m: int, policy, t: float, threshold=None, estimate: str = "requested") -> list[PassDecision]:
    """The EASY passes at instant ``t`` of a schedule, as the checker
    replays them (several when zero-length jobs start): the queue in
    primary order, the jobs started, the head, its shadow time and extra
    processors, the backfilled jobs."""
    sf = _as_file(schedule)
    got: list[PassDecision] = []
    rp = _Replay(sf, int(m), as_policy(policy, threshold), estimate,
                 on_pass=lambda d: got.append(d) if d.t == t else None)
    rp.run()
    return got
