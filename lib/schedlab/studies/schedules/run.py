"""The schedules study: simulate the excerpt, check both schedules, replay
the passes, choose one, hand tables, figures and numbers to the driver."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...workloads import check, formats, traces
from ...errors import InputError
from ...engine.sim import simulate
from .analysis import choose_pass, pass_table, roles
from .figures import figure_compare, figure_pass, figure_timeline
from .params import STUDY, Params


def compute(params: Params, ctx) -> dict[str, Any]:
    """Through ``ctx``: ``figures/{pass,timeline,compare}``, ``tables/pass``,
    ``data/jobs-<policy>.csv`` (Batsim's jobs.csv of each schedule)."""
    info = params.traces[0]
    c = traces.cleaned(info)
    m = c.m
    first, d, note = _window(c.jobs, m, params)
    if note:
        ctx.log(f"note: {note}")
    jobs = c.jobs.subset(np.arange(first, first + min(params.jobs, len(c.jobs))))
    files = {}
    sched = {}
    for label in (params.policy, params.compare):
        s = simulate(jobs, m, label)
        path = formats.write(s, ctx.path("data", f"jobs-{label}.csv"), "batsim-csv", workload_name=info.name)
        ctx.files.append(path)
        files[label] = path
        sched[label] = formats.read(path)        # what evalys and other tools read
    checks = {label: check.check(sf, m, label) for label, sf in sched.items()}
    for label, r in checks.items():
        ctx.log(f"schedlab check {label}: {r.n_jobs} jobs, {r.passes} passes replayed, "
                f"{'valid' if r.ok else f'{len(r.violations)} violations'}")
        if not r.ok:
            raise InputError(f"the engine's {label} schedule fails schedlab check: {r.report(5)}")
    sf = sched[params.policy]
    est = sf.requested.tolist()
    decisions = check.passes(sf, m, params.policy)
    d = choose_pass(decisions, est)
    labels = (params.policy, params.compare)
    figures = {"timeline": ctx.figure("timeline", figure_timeline(sched[labels[0]], sched[labels[1]], m, labels)),
               "compare": ctx.figure("compare", figure_compare(sched[labels[0]], sched[labels[1]], m, labels))}
    excerpt = {"first_job": first, "jobs": len(jobs), "first_id": sf.ids[0], "last_id": sf.ids[-1],
               "span_s": float(sf.end.max() - sf.submit.min()), "note": note}
    per_policy = {}
    for label, s in sched.items():
        wait = s.start - s.submit
        per_policy[label] = {"avg_wait_s": float(wait.mean()), "max_wait_s": float(wait.max()),
                             "passes_replayed": checks[label].passes, "violations": len(checks[label].violations)}
    if d is None:                # no job backfills anywhere: the schedules, without a pass to show
        return {"numbers": {"study": STUDY, "trace": info.name, "m": int(m), "excerpt": excerpt, "pass": None,
                            "policies": per_policy},
                "tables": {}, "figures": figures, "decision": None, "schedules": sched, "files": files,
                "left_out": [note]}
    tables = {"pass": ctx.table("pass", pass_table(d, sf, est))}
    figures["pass"] = ctx.figure("pass", figure_pass(sf, m, d, params.policy))
    r = roles(d, est)
    ids = lambda js: [sf.ids[j] for j in js]  # noqa: E731
    doc = {
        "study": STUDY,
        "trace": info.name,
        "m": int(m),
        "excerpt": excerpt,
        "pass": {"t": float(d.t), "free": int(d.free), "queued": len(d.queue), "started": ids(d.started),
                 "head": sf.ids[d.head], "head_procs": int(sf.procs[d.head]), "shadow": float(d.shadow),
                 "shadow_after_s": float(d.shadow - d.t), "extra": int(d.extra),
                 "backfilled": ids(d.backfilled),
                 "backfilled_by_extra": [sf.ids[j] for j in d.backfilled if r[j] == "backfilled (extra)"],
                 "backfilled_by_shadow": [sf.ids[j] for j in d.backfilled if r[j] == "backfilled (ends by S)"],
                 "passes_with_backfill": sum(1 for x in decisions if x.backfilled)},
        "policies": per_policy,
    }
    return {"numbers": doc, "tables": tables, "figures": figures, "decision": d, "schedules": sched,
            "files": files}


def _window(jobs, m: int, params) -> tuple[int, object, str]:
    """The excerpt to show: ``first_job`` when its ``jobs`` jobs fit in the
    log and one of them backfills under the policy; else the first window of
    that many jobs, from the log's start, where one does (another log than
    the one ``first_job`` was chosen on), said in the note.  Returns (first
    job, the chosen pass or None, note)."""
    from ...workloads.formats.schedule import from_schedule

    n, size = len(jobs), min(params.jobs, len(jobs))

    def pass_of(first):
        s = simulate(jobs.subset(np.arange(first, first + size)), m, params.policy)
        sf = from_schedule(s)
        return choose_pass(check.passes(sf, m, params.policy), sf.requested.tolist())

    fits = params.first_job + size <= n
    if fits:
        d = pass_of(params.first_job)
        if d is not None:
            return params.first_job, d, ""
    for first in range(0, n - size + 1, size):
        if fits and first == params.first_job:
            continue
        d = pass_of(first)
        if d is not None:
            why = ("fit in the log" if not fits else "include a job that backfills")
            return first, d, (f"jobs {params.first_job}..{params.first_job + params.jobs - 1} do not {why} "
                              f"({n} jobs after cleaning): the excerpt is jobs {first}..{first + size - 1}, "
                              f"the first window of {size} jobs where one backfills under {params.policy}")
    first = params.first_job if fits else 0
    return first, None, (f"no job backfills under {params.policy} in any window of {size} jobs of the log "
                         f"({n} jobs after cleaning): the schedules are shown without a pass")
