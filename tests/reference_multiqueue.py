"""A slow, obviously-correct pure-Python multiple-queue backfilling simulator.

It re-implements the section "Multiple-queue backfilling" of
``csrc/SEMANTICS.md`` (lawson2005 Figure 2, Figure 3 and Appendix A.1-A.3)
without looking at ``csrc/multiqueue.c``'s data structures: every decision
recomputes the pivots, the held reservations and every reservation from
plain lists.  It also checks, by brute force, the property the engine is
built around: a start never makes a protected reservation later (with
``check=True``, every start is followed by a recomputation of every
reservation and a comparison).

Entry point: :func:`reference_multiqueue`.  The event loop is the one of
``tests/reference.py`` (completions, then submissions, then one pass).
"""
from __future__ import annotations

from reference import jobs_as_lists


class DelayError(AssertionError):
    """A start made a protected reservation later."""


def balanced_criteria(estimates, nparts):
    """Figure 3: the P-1 boundaries that balance the number of jobs (the
    estimate of rank k*n/P in increasing order), then the top t_P (the
    largest estimate)."""
    v = sorted(int(e) for e in estimates)
    n = len(v)
    return [v[k * n // nparts] for k in range(1, nparts)] + [v[-1]]


def uniform_criteria(top, nparts):
    """Appendix A.1 (Figure 10): [0, t_P) cut into P equal parts."""
    return [k * top // nparts for k in range(1, nparts)] + [top]


def reference_multiqueue(submit, run, req, procs, ids, m, *, estimate="requested", overrun="kill",
                         partitions=1, criteria=None, recompute=None, changes=(), cutoff=None,
                         check=True, trace=None):
    """Simulate multiple-queue backfilling on ``m`` processors.

    ``partitions`` P and ``criteria`` (P values: boundaries then t_P; None
    for P = 1 means [0]) at the start; ``recompute`` = (period, origin) or
    None; ``changes`` = [(time, P, criteria or None)] applied after every
    event <= time (as ``run(until=time)`` then ``set_partitions``);
    ``cutoff``: jobs submitted after it are never submitted.

    Returns a dict of lists: start, end, backfilled, borrowed, killed,
    partition.  With ``trace`` (a list), one dict per start is appended:
    t, job, partition, holder, holds ({partition: processors held there}).
    """
    n = len(submit)
    submit, run, req, procs, ids, duration, killed = jobs_as_lists(submit, run, req, procs, ids, m, overrun)
    if isinstance(estimate, str):
        est = list(req) if estimate == "requested" else list(duration)
    else:
        est = [int(v) for v in estimate]

    def arrival(j):
        return (submit[j], ids[j], j)

    # ---- state
    start = [-1] * n
    end = [-1] * n
    backfilled = [False] * n
    borrowed = [False] * n
    part = [-1] * n
    holds = {}          # running job -> {partition: processors it holds there}
    queue = []          # submitted, not started
    running = []
    done = []           # completed, in completion order
    P = 0
    bounds = []
    home = []           # processors of each partition
    pin = {}
    held = set()

    def assign(e):
        return sum(1 for b in bounds[:P - 1] if b <= e)

    def busy(k):
        return sum(holds[i].get(k, 0) for i in running)

    def idle(k):
        return home[k] - busy(k)

    def used():
        return sum(procs[i] for i in running)

    def pivot(k):
        p = pin.get(k, -1)
        if p >= 0 and p in queue and part[p] == k:
            return p
        mine = sorted((j for j in queue if part[j] == k), key=arrival)
        return mine[0] if mine else -1

    def holders():
        hs = {pivot(k) for k in range(P)} - {-1}
        hs |= {h for h in held if h in queue}
        return sorted(hs, key=arrival)

    def reservation(h, t):
        """(wide, t_h, x_h) of holder h at pass time t."""
        k = part[h]
        wide = procs[h] > home[k]
        base = (m - used()) if wide else idle(k)

        def held_by(i):             # processors running job i frees for h
            return procs[i] if wide else holds[i].get(k, 0)

        def avail(tau):
            return base + sum(held_by(i) for i in running if max(start[i] + est[i], t) <= tau)

        times = sorted({t} | {max(start[i] + est[i], t) for i in running})
        th = next(tau for tau in times if avail(tau) >= procs[h])
        return wide, th, avail(th) - procs[h]

    def place_running():
        """Equal split; each running job (by estimated end, then index) holds
        processors of its own partition first, then of the others in index
        order, as far as each has room."""
        nonlocal home
        home = [m // P + (1 if k < m % P else 0) for k in range(P)]
        for i in running:
            holds[i] = {}
        for i in sorted(running, key=lambda i: (start[i] + est[i], i)):
            need = procs[i]
            for k in [part[i]] + [k for k in range(P) if k != part[i]]:
                take = min(idle(k), need)
                if take:
                    holds[i][k] = take
                    need -= take
            assert need == 0

    def set_partitions(newP, crit):
        nonlocal P, bounds
        if P == newP:
            if crit is not None:
                bounds = list(crit)
            return
        if P == 0:
            old = sorted(queue, key=arrival)[:1]
        else:
            old = holders()
        bounds = list(crit) if crit is not None else uniform_criteria(bounds[P - 1], newP)
        P = newP
        for j in queue + running:
            part[j] = assign(est[j])
        place_running()
        pin.clear()
        held.clear()
        for h in old:                      # in arrival order
            if part[h] not in pin:
                pin[part[h]] = h
            else:
                held.add(h)

    set_partitions(partitions, [0] if criteria is None and partitions == 1 else criteria)

    # ---- weekly recomputation (Figure 3)
    period, origin = recompute if recompute is not None else (0, 0)
    next_b = origin + period

    def recompute_until(t):
        nonlocal next_b, bounds
        if period <= 0:
            return
        while next_b <= t:
            b = next_b
            window = [est[j] for j in done if b - period <= end[j] < b]
            if window:
                bounds = balanced_criteria(window, P)
            next_b += period

    # ---- one start decision
    def try_start(j, t, hs, res):
        holder = j in hs
        protected = [h for h in hs if h != j and (not holder or arrival(h) < arrival(j))]
        l, q, e = part[j], procs[j], t + est[j]
        # Processors each partition can give: its idle ones, at most the
        # extra of every protected local holder there that j outlasts; a
        # protected wide holder j outlasts must have q to spare.
        cap = [idle(k) for k in range(P)]
        for h in protected:
            wide, th, xh = res[h]
            if e <= th:
                continue
            if wide and q > xh:
                return False
            if not wide:
                cap[part[h]] = min(cap[part[h]], xh)
        if sum(cap) < q:
            return False
        with_holders = {part[h] for h in hs}
        order = [l] + [k for k in range(P) if k != l and k not in with_holders] + \
            [k for k in range(P) if k != l and k in with_holders]
        need, got = q, {}
        for k in order:
            take = min(cap[k], need)
            if take:
                got[k] = take
                need -= take
        before = {h: res[h][1] for h in protected}
        queue.remove(j)
        running.append(j)
        holds[j] = got
        start[j] = t
        end[j] = t + duration[j]
        backfilled[j] = not holder
        borrowed[j] = got.get(l, 0) < q
        if trace is not None:
            trace.append({"t": t, "job": j, "partition": l, "holder": holder, "holds": dict(got)})
        if check:
            for h in before:
                after = reservation(h, t)[1]
                if after > before[h]:
                    raise DelayError(f"start of job {j} at {t} delays holder {h}: {before[h]} -> {after}")
        return True

    def scheduling_pass(t):
        if not queue:
            return
        for j in sorted(queue, key=arrival):
            if used() >= m:
                break
            if j not in queue:
                continue
            hs = holders()
            res = {h: reservation(h, t) for h in hs}
            if try_start(j, t, hs, res):
                held.discard(j)
        assert sum(home) == m and all(0 <= busy(k) <= home[k] for k in range(P)), (home, t)

    # ---- event loop
    pending = sorted(changes, key=lambda c: c[0])
    next_submit = 0
    last = cutoff if cutoff is not None else float("inf")
    while True:
        times = [end[k] for k in running]
        if next_submit < n and submit[next_submit] <= last:
            times.append(submit[next_submit])
        if not times:
            break
        t = min(times)
        while pending and pending[0][0] < t:
            ct, cP, ccrit = pending.pop(0)
            recompute_until(ct)
            set_partitions(cP, ccrit)
        recompute_until(t)
        for k in [k for k in running if end[k] == t]:
            running.remove(k)
            done.append(k)
        while next_submit < n and submit[next_submit] == t and t <= last:
            part[next_submit] = assign(est[next_submit])
            queue.append(next_submit)
            next_submit += 1
        scheduling_pass(t)
    return {"start": start, "end": end, "backfilled": backfilled, "borrowed": borrowed,
            "killed": killed, "partition": part}
