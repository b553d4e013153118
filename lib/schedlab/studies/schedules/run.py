"""The schedules study: simulate the excerpt, check both schedules, replay
the passes, choose one, hand tables, figures and numbers to the driver."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import check, formats, traces
from ...errors import InputError
from ...sim import simulate
from .analysis import choose_pass, pass_table, roles
from .figures import figure_compare, figure_pass, figure_timeline
from .params import STUDY, Params


def compute(params: Params, ctx) -> dict[str, Any]:
    """Through ``ctx``: ``figures/{pass,timeline,compare}``, ``tables/pass``,
    ``data/jobs-<policy>.csv`` (Batsim's jobs.csv of each schedule)."""
    info = params.traces[0]
    c = traces.cleaned(info)
    n = len(c.jobs)
    if params.first_job + params.jobs > n:
        raise InputError(f"first_job + jobs = {params.first_job + params.jobs}: {info.name} has {n} jobs "
                         "after cleaning")
    jobs = c.jobs.subset(np.arange(params.first_job, params.first_job + params.jobs))
    m = c.m
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
    if d is None:
        raise InputError(f"no job backfills in jobs {params.first_job}..{params.first_job + params.jobs - 1} of "
                         f"{info.name} under {params.policy}: choose another first_job")
    tables = {"pass": ctx.table("pass", pass_table(d, sf, est))}
    labels = (params.policy, params.compare)
    figures = {"pass": ctx.figure("pass", figure_pass(sf, m, d, params.policy)),
               "timeline": ctx.figure("timeline", figure_timeline(sched[labels[0]], sched[labels[1]], m, labels)),
               "compare": ctx.figure("compare", figure_compare(sched[labels[0]], sched[labels[1]], m, labels))}
    r = roles(d, est)
    ids = lambda js: [sf.ids[j] for j in js]  # noqa: E731
    per_policy = {}
    for label, s in sched.items():
        wait = s.start - s.submit
        per_policy[label] = {"avg_wait_s": float(wait.mean()), "max_wait_s": float(wait.max()),
                             "passes_replayed": checks[label].passes, "violations": len(checks[label].violations)}
    doc = {
        "study": STUDY,
        "trace": info.name,
        "m": int(m),
        "excerpt": {"first_job": params.first_job, "jobs": params.jobs,
                    "first_id": sf.ids[0], "last_id": sf.ids[-1],
                    "span_s": float(sf.end.max() - sf.submit.min())},
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
