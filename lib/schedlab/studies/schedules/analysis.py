"""Pure functions on the passes of a schedule (schedlab.workloads.check.PassDecision)."""
from __future__ import annotations


def roles(d, est) -> dict[int, str]:
    """The role of every queued job at pass ``d``: ``started`` (primary
    order, it fits), ``head``, ``backfilled (ends by S)``, ``backfilled
    (extra)`` or ``waits``; ``est`` gives each job's estimate."""
    out = {j: "waits" for j in d.queue}
    for j in d.started:
        out[j] = "started"
    if d.head is not None:
        out[d.head] = "head"
    for j in d.backfilled:
        out[j] = "backfilled (ends by S)" if d.t + est[j] <= d.shadow else "backfilled (extra)"
    return out


def choose_pass(decisions, est):
    """The pass to show: the first where a job backfills on the extra
    processors (it ends after the shadow time), else the first where a job
    backfills; None when no job backfills."""
    first_any = None
    for d in decisions:
        if d.head is None or not d.backfilled:
            continue
        if first_any is None:
            first_any = d
        if any(d.t + est[j] > d.shadow for j in d.backfilled):
            return d
    return first_any


def pass_table(d, sf, est):
    """One row per queued job at pass ``d``, in primary order: id, submit,
    wait so far, processors, estimate, estimated end if started now, role."""
    from .. import Table

    r = roles(d, est)
    rows = []
    for j in d.queue:
        rows.append([sf.ids[j], int(sf.submit[j]), int(d.t - sf.submit[j]), int(sf.procs[j]), int(est[j]),
                     int(d.t + est[j]), r[j]])
    return Table(["job", "submit_s", "wait_s", "procs", "estimate_s", "end_if_started_s", "role"], rows)
