"""The simulations of the dispatching study: each cell registered with the
inputs it reads and the variables it produces.  A cell imports the engine,
the workloads, schedlab.campaigns' cells/spec/store and schedlab.science
only (never this study's params, analysis, tables, figures or report): its
cache key covers the code it imports, so editing how a result is shown never
recomputes it."""
from __future__ import annotations

from dataclasses import dataclass

from ...campaigns.cells import TraceInputs, cell
from ...campaigns.outputs import produces
from ...declared import integer, param, text
from ...engine import sim
from ...errors import InputError
from ...workloads import traces as _traces
from ...workloads import workload

#: The variables :func:`week_cell` produces (its @produces): the engine's
#: metrics (schedlab.campaigns.store.VARIABLES).  A variable of this study's
#: own is declared here with schedlab.campaigns.store.declare and listed too.
WEEK_OUTPUTS = ("avg_wait", "max_wait", "mean_bsld", "utilisation", "jobs")


@dataclass(frozen=True)
class WeekInputs(TraceInputs):
    """One week of one trace under one policy."""

    policy: str = param("EASY-FCFS-FCFS", help="the policy simulated, EASY-<P_R>-<P_B>", check=text)
    week: int = param(0, help="the week of the cleaned log (0: the first)", unit="weeks", check=integer(0))


@cell("dispatching-week", WeekInputs)
@produces(*WEEK_OUTPUTS)
def week_cell(q: WeekInputs) -> dict:
    """EASY on week ``week`` of the trace: the jobs submitted in it,
    simulated alone on the trace's machine."""
    jobs, _, m, _, _ = _traces.cleaned(q["trace"], m=q["m"], overrun=q["overrun"])
    weeks = workload.weeks(jobs)
    if q["week"] >= len(weeks) or not len(weeks[q["week"]]):
        raise InputError(f"dispatching-week cell: week {q['week']} of the log has no job")
    summary = sim.simulate(weeks[q["week"]], m, q["policy"]).summary()
    return {k: ((), summary[k]) for k in WEEK_OUTPUTS}


def busy_weeks(jobs, n: int) -> list[int]:
    """The first ``n`` weeks of ``jobs`` that hold a job (the weeks a campaign runs)."""
    return [i for i, w in enumerate(workload.weeks(jobs)) if len(w)][:n]
