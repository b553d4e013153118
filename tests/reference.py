"""A slow, obviously-correct pure-Python EASY-P_R-P_B simulator.

This module re-implements ``csrc/SEMANTICS.md`` (the contract of the C core)
independently of the C sources, favouring clarity over speed: every scheduling
pass recomputes everything from scratch from plain lists.  The property tests
in ``test_engine_reference.py`` compare the C core with it job by job.

Entry point: :func:`reference_simulate`.
"""
from __future__ import annotations

# policy expressions: the parser and the Python evaluator of schedlab.expr
# (pure Python, written apart from csrc/expr.c), not the engine
from schedlab.expr import Expr

PURE_POLICIES = (
    "FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF",
    "SAF", "LAF", "SRF", "LRF", "SEXP", "LEXP", "WFP",
)
POLICIES = PURE_POLICIES + ("MIXED", "SJBF")
ESTIMATES = ("requested", "actual", "easy++")
CORRECTIONS = ("none", "requested", "incremental", "doubling")
#: The increments of the incremental correction (gaussier2015 §5.2), seconds.
INCREMENTS = (60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000)
NFEATURES = 6


# ---------------------------------------------------------------------------
# Priority keys (lowest first)
# ---------------------------------------------------------------------------

def mixed_features(t, r, ptilde, q, r0):
    """The six MIXED features f = (q, p~, r - r0, p~/q, x, p~*q) as floats.

    Computed in the operation order SEMANTICS.md prescribes (bit for bit).
    """
    wait = t - r
    pprime = max(ptilde, 1)
    x = (float(wait) + float(pprime)) / float(pprime)
    return (
        float(q),
        float(ptilde),
        float(r - r0),
        float(ptilde) / float(q),
        x,
        float(ptilde) * float(q),
    )


def policy_key(policy, mixed, t, r, ptilde, q, r0, estimate=None):
    """Priority key of one job at pass time ``t`` (the lowest key goes first).

    ``policy`` is a name of ``POLICIES``; ``mixed`` is ``(weights, scales)``
    for ``"MIXED"`` (ignored otherwise); ``r0`` is the first submit time of
    the job set (used by MIXED only); ``estimate`` is the scheduler's
    current estimate of the job (used by SJBF only).  Keys are Python floats (IEEE doubles)
    computed in exactly the operation order SEMANTICS.md prescribes.
    """
    wait = t - r                       # integer
    pprime = max(ptilde, 1)            # p~' (no division by zero)
    if policy == "FCFS":
        return float(r)
    if policy == "LCFS":
        return -float(r)
    if policy == "SPF":
        return float(ptilde)
    if policy == "LPF":
        return -float(ptilde)
    if policy == "SQF":
        return float(q)
    if policy == "LQF":
        return -float(q)
    if policy == "SAF":
        return float(ptilde) * float(q)
    if policy == "LAF":
        return -(float(ptilde) * float(q))
    if policy == "SRF":
        return float(ptilde) / float(q)
    if policy == "LRF":
        return -(float(ptilde) / float(q))
    if policy == "SEXP":
        return (float(wait) + float(pprime)) / float(pprime)
    if policy == "LEXP":
        return -((float(wait) + float(pprime)) / float(pprime))
    if policy == "WFP":
        w = float(wait) / float(pprime)
        return -(((w * w) * w) * float(q))
    if policy == "SJBF":
        return float(estimate)
    if policy == "MIXED":
        weights, scales = mixed
        features = mixed_features(t, r, ptilde, q, r0)
        acc = 0.0
        for i in range(NFEATURES):
            acc = acc + float(weights[i]) * (features[i] / float(scales[i]))
        return acc
    raise ValueError(f"unknown policy {policy!r}")


# ---------------------------------------------------------------------------
# Configuration (policies + threshold), possibly changed during the run
# ---------------------------------------------------------------------------

def _check_policy(name, mixed, what):
    if isinstance(name, Expr):
        return
    if name not in POLICIES:
        raise ValueError(f"{what}: unknown policy {name!r}")
    if name == "MIXED":
        if mixed is None:
            raise ValueError(f"{what}: MIXED needs (weights, scales)")
        weights, scales = mixed
        if len(weights) != NFEATURES or len(scales) != NFEATURES:
            raise ValueError(f"{what}: MIXED needs 6 weights and 6 scales")
        if any(not s > 0 for s in scales):
            raise ValueError(f"{what}: MIXED scales must be positive")


def _make_config(primary, backfill, threshold, threshold_backfill, mixed_primary, mixed_backfill):
    _check_policy(primary, mixed_primary, "primary")
    _check_policy(backfill, mixed_backfill, "backfill")
    if threshold is not None and threshold < 0:
        raise ValueError("threshold must be None or >= 0")
    return {
        "primary": primary,
        "backfill": backfill,
        "threshold": threshold,
        "threshold_backfill": bool(threshold_backfill),
        "mixed_primary": mixed_primary,
        "mixed_backfill": mixed_backfill,
    }


# ---------------------------------------------------------------------------
# The simulator
# ---------------------------------------------------------------------------

def jobs_as_lists(submit, run, req, procs, ids, m, overrun):
    """The job arrays as checked lists of ints, plus the duration actually
    run d_j and the killed flag of each job (SEMANTICS.md, Jobs)."""
    n = len(submit)
    submit = [int(v) for v in submit]
    run = [int(v) for v in run]
    req = [int(v) for v in req]
    procs = [int(v) for v in procs]
    ids = list(range(1, n + 1)) if ids is None else [int(v) for v in ids]
    if not (len(run) == len(req) == len(procs) == len(ids) == n):
        raise ValueError("job arrays differ in length")
    if m < 1:
        raise ValueError("m must be >= 1")
    for j in range(n):
        if j > 0 and submit[j] < submit[j - 1]:
            raise ValueError(f"job {j}: submit times not sorted")
        if run[j] < 0 or req[j] < 0:
            raise ValueError(f"job {j}: negative runtime or request")
        if not 1 <= procs[j] <= m:
            raise ValueError(f"job {j}: procs out of 1..m")
    if overrun not in ("kill", "run"):
        raise ValueError(f"unknown overrun {overrun!r}")
    duration = [min(run[j], req[j]) if overrun == "kill" else run[j] for j in range(n)]
    killed = [overrun == "kill" and run[j] > req[j] for j in range(n)]
    return submit, run, req, procs, ids, duration, killed


def reference_simulate(
    submit,
    run,
    req,
    procs,
    ids,
    m,
    primary,
    backfill,
    threshold=None,
    estimate="requested",
    overrun="kill",
    threshold_backfill=False,
    mixed_primary=None,
    mixed_backfill=None,
    policy_changes=(),
    trace=None,
    classes=None,
    divider=None,
    users=None,
    correction="none",
    columns=None,
):
    """Simulate EASY-P_R-P_B on one machine of ``m`` processors.

    ``primary`` / ``backfill`` may be :class:`schedlab.expr.Expr` (keys from
    its Python evaluator); ``columns``: name -> per-job floats it reads.

    Jobs are given as parallel sequences (``submit`` sorted non-decreasing).
    ``estimate`` is ``"requested"``, ``"actual"``, ``"easy++"`` (needs
    ``users``), a list of per-job ints, or an object with ``predict(job, now)``
    and ``observe(job, now, runtime)`` (called at submission and completion).
    ``correction`` is one of ``CORRECTIONS``.  ``classes`` (1 = small) and
    ``divider`` are thesis Algorithms 3-4: ``divider`` is seconds for every
    job, a list of per-job seconds (job j running as small is killed at its
    own divider[j]), or None (small jobs run to completion).
    ``policy_changes`` is a list of tuples
    ``(time, primary, backfill, threshold, mixed_primary, mixed_backfill
    [, threshold_backfill])`` in chronological order; each one applies to the
    passes at event times strictly greater than ``time`` (a run until ``time``
    followed by ``set_policy``).  ``threshold_backfill`` defaults to False in
    a change, like ``Simulation.set_policy``.

    If ``trace`` is a list, one dict per scheduling pass is appended to it:
    ``t``, ``order`` (the primary order), ``started`` (step 2), ``head``,
    ``shadow``, ``extra`` (at the start of step 4; None without a head) and
    ``backfilled`` (step 4).

    Returns a dict of lists: ``start``, ``end``, ``backfilled``, ``killed``,
    ``forced``, ``requeued``, ``first_start`` and ``predicted``.
    """
    n = len(submit)
    submit, run, req, procs, ids, duration, killed = jobs_as_lists(submit, run, req, procs, ids, m, overrun)
    if correction not in CORRECTIONS:
        raise ValueError(f"unknown correction {correction!r}")

    # Job classes: small[j] is the class the job has now (a requeued job is large).
    if classes is None:
        if divider is not None:
            raise ValueError("a divider needs classes")
        small = [False] * n
    else:
        small = [bool(c) for c in classes]
        if len(small) != n:
            raise ValueError("classes must have n values")
    # kill_at[j]: the divider of job j, or None (never killed).
    if divider is None or not hasattr(divider, "__len__"):
        kill_at = [None if divider is None else int(divider)] * n
    else:
        kill_at = [int(v) for v in divider]
        if len(kill_at) != n:
            raise ValueError("a per-job divider must have n values")
    if any(d is not None and d < 0 for d in kill_at):
        raise ValueError("divider must be >= 0")

    # Estimates: fixed ones are known in advance; the others are made at submission.
    history = {}            # EASY++: user -> completed durations, oldest first
    model = None            # a predict/observe object
    fixed = None
    if isinstance(estimate, str):
        if estimate == "requested":
            fixed = list(req)
        elif estimate == "actual":
            fixed = list(duration)
        elif estimate == "easy++":
            if users is None or len(users) != n:
                raise ValueError("easy++ needs one user per job")
        else:
            raise ValueError(f"unknown estimate {estimate!r}")
    elif hasattr(estimate, "predict"):
        model = estimate
    else:
        fixed = [int(v) for v in estimate]
        if len(fixed) != n or any(v < 0 for v in fixed):
            raise ValueError("per-job estimate must have n values >= 0")
    est = [None] * n        # the scheduler's current estimate (set at submission)
    predicted = [-1] * n    # the estimate each job got at submission
    ncorr = [0] * n         # corrections applied to a job so far

    def predict(j, t):
        if fixed is not None:
            e = fixed[j]
        elif model is not None:
            e = int(model.predict(j, t))
            if e < 0:
                raise ValueError(f"job {j}: the estimator returned {e}")
        else:
            past = history.get(users[j], [])
            if not past:
                e = req[j]
            elif len(past) == 1:
                e = past[-1]
            else:
                e = (past[-1] + past[-2]) // 2
            e = min(e, req[j])
        est[j] = e
        predicted[j] = e

    def observe(j, t):
        if model is not None:
            model.observe(j, t, duration[j])
        elif users is not None and estimate == "easy++":
            history.setdefault(users[j], []).append(duration[j])

    def expected(j):
        """What the scheduler expects job j to take: a job classified small
        with a divider is expected to end by its divider."""
        if small[j] and kill_at[j] is not None:
            return min(est[j], kill_at[j])
        return est[j]

    base_config = _make_config(primary, backfill, threshold, threshold_backfill, mixed_primary, mixed_backfill)
    changes = []
    for change in policy_changes:
        time, c_primary, c_backfill, c_threshold, c_mp, c_mb = change[:6]
        c_tb = change[6] if len(change) > 6 else False
        changes.append((time, _make_config(c_primary, c_backfill, c_threshold, c_tb, c_mp, c_mb)))
    for a, b in zip(changes, changes[1:]):
        if b[0] < a[0]:
            raise ValueError("policy_changes must be in chronological order")

    def config_at(t):
        """The configuration of a pass at time t: the last change before t."""
        config = base_config
        for time, changed in changes:
            if time < t:
                config = changed
        return config

    r0 = submit[0] if n else 0

    start = [-1] * n
    end = [-1] * n
    backfilled = [False] * n
    forced = [False] * n
    requeued = [False] * n
    first_start = [-1] * n
    doomed = [False] * n     # running as small, to be killed at the divider

    queue = []      # indices of submitted jobs not started yet
    running = []    # indices of started jobs not completed yet
    next_submit = 0  # index of the next job to submit

    def start_job(j, t, config, by_backfill):
        start[j] = t
        doomed[j] = small[j] and kill_at[j] is not None and duration[j] > kill_at[j]
        end[j] = t + (kill_at[j] if doomed[j] else duration[j])
        backfilled[j] = by_backfill
        T = config["threshold"]
        forced[j] = T is not None and t - submit[j] > T
        queue.remove(j)
        running.append(j)

    def ordered(jobs, policy, mixed, t):
        """Small jobs first, then by key, then submit time, then id, then input order."""
        if isinstance(policy, Expr):    # a policy expression: schedlab.expr's own Python evaluator
            def job(j):
                return {"req": req[j], "procs": procs[j], "submit": submit[j], "id": ids[j], "run": run[j],
                        "est": est[j], **{k: v[j] for k, v in (columns or {}).items()}}
            return sorted(jobs, key=lambda j: (not small[j], policy.key(job(j), t, m), submit[j], ids[j], j))
        return sorted(
            jobs,
            key=lambda j: (not small[j],
                           policy_key(policy, mixed, t, submit[j], req[j], procs[j], r0, est[j]),
                           submit[j], ids[j], j),
        )

    def threshold_first(order, T, t):
        """Jobs waiting strictly more than T lead, in FCFS order (whatever
        their class); the rest keep their order."""
        over = [j for j in order if t - submit[j] > T]
        over = sorted(over, key=lambda j: (submit[j], ids[j], j))
        rest = [j for j in order if not t - submit[j] > T]
        return over + rest

    def correct(j, t):
        """A corrected estimate for running job j, which outlived its estimate."""
        e = est[j]
        if correction == "requested":
            e = req[j]
        elif correction == "incremental":
            while start[j] + e <= t and e < req[j]:
                e += INCREMENTS[min(ncorr[j], len(INCREMENTS) - 1)]
                ncorr[j] += 1
        elif correction == "doubling":
            elapsed = t - start[j]
            e = 2 * elapsed if elapsed > 0 else 1
        return min(e, req[j])

    def scheduling_pass(t):
        config = config_at(t)
        T = config["threshold"]
        record = {"t": t, "order": None, "started": [], "head": None,
                  "shadow": None, "extra": None, "backfilled": []}
        if not queue:
            # Nothing to decide (and no correction: they are made by passes that decide).
            record["order"] = []
            if trace is not None:
                trace.append(record)
            return

        # 0. Corrections of the estimates running jobs have outlived.
        if correction != "none":
            for k in sorted(running):
                if start[k] + expected(k) <= t:
                    est[k] = correct(k, t)

        # 1. Primary order.
        order = ordered(queue, config["primary"], config["mixed_primary"], t)
        if T is not None:
            order = threshold_first(order, T, t)
        record["order"] = list(order)

        # 2. Start jobs in primary order while they fit; the first that does not is the head.
        head = None
        for j in order:
            free = m - sum(procs[k] for k in running)
            if procs[j] <= free:
                start_job(j, t, config, False)
                record["started"].append(j)
            else:
                head = j
                break
        if head is None:
            if trace is not None:
                trace.append(record)
            return

        # 3. Reservation for the head.
        def estimated_end(k):
            return max(start[k] + expected(k), t)

        free = m - sum(procs[k] for k in running)
        by_end = sorted(running, key=lambda k: (estimated_end(k), k))
        available = free
        shadow = None
        for k in by_end:
            available += procs[k]
            if available >= procs[head]:
                shadow = estimated_end(k)
                break
        assert shadow is not None, "q_head <= m, so the walk must reach it"
        # Every running job whose estimated end is <= shadow frees its processors by then
        # (the walked ones plus the others with an estimated end equal to the shadow time).
        available_at_shadow = free + sum(procs[k] for k in running if estimated_end(k) <= shadow)
        extra = available_at_shadow - procs[head]
        record["head"] = head
        record["shadow"] = shadow
        record["extra"] = extra

        # 4. Backfill the others in P_B order.
        candidates = [j for j in queue if j != head]
        border = ordered(candidates, config["backfill"], config["mixed_backfill"], t)
        if T is not None and config["threshold_backfill"]:
            border = threshold_first(border, T, t)
        for j in border:
            free = m - sum(procs[k] for k in running)
            if procs[j] > free:
                continue
            if t + expected(j) <= shadow:
                start_job(j, t, config, True)
                record["backfilled"].append(j)
            elif procs[j] <= extra:
                extra -= procs[j]
                start_job(j, t, config, True)
                record["backfilled"].append(j)
        if trace is not None:
            trace.append(record)

    # Event loop: one distinct event time at a time.
    while True:
        times = [end[k] for k in running]
        if next_submit < n:
            times.append(submit[next_submit])
        if not times:
            break
        t = min(times)
        # Completions and kills at t (jobs started at t with zero duration
        # included), in input order.
        for k in sorted(k for k in running if end[k] == t):
            running.remove(k)
            if doomed[k]:
                # Killed at the divider: work lost, queued again as large.
                doomed[k] = False
                small[k] = False
                requeued[k] = True
                if first_start[k] < 0:
                    first_start[k] = start[k]
                start[k] = end[k] = -1
                backfilled[k] = forced[k] = False
                queue.append(k)
            else:
                observe(k, t)
        # Submissions at t.
        while next_submit < n and submit[next_submit] == t:
            predict(next_submit, t)
            queue.append(next_submit)
            next_submit += 1
        # One pass.  A zero-duration job it starts completes at t: a new event
        # at t, handled by the next iteration (min(times) == t again).
        scheduling_pass(t)

    assert not queue and not running
    return {
        "start": start,
        "end": end,
        "backfilled": backfilled,
        "killed": killed,
        "forced": forced,
        "requeued": requeued,
        "first_start": first_start,
        "predicted": predicted,
    }
