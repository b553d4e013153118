"""A tiny study on the protocol, for the driver's tests: it simulates
EASY-P-P for each of its policies on its traces through one campaign,
and reports AvgWait.  A tenth study writes the same parts at full size."""
from schedlab import validators
from schedlab.workloads import traces as _traces
from schedlab.protocol.study import Params as _Base
from schedlab.protocol.study import Outputs, param
from dataclasses import dataclass

from .cells import campaign_for


@dataclass(frozen=True)
class Params(_Base):
    traces: tuple = param(("KTH-SP2",), help="traces: registry names or SWF paths", check=lambda v, n: tuple(_traces.trace_list(v, n)))
    policies: tuple = param(("FCFS", "SPF"), help="queue policies (P_R = P_B)", check=validators.policy_names)
    weeks: int = param(2, unit="weeks", help="resampled weeks per trace", check=lambda v, n: validators.integer(v, n, 1))


#: what it writes
OUTPUTS = Outputs(tables=("avg_wait",))

#: a tiny run (schedlab.protocol.study.check_study)
TINY = {"weeks": 1, "policies": ["FCFS", "SPF"]}


def compute(params, ctx):
    from schedlab.studies import Table

    rows = []
    for info in params.traces:
        ds = ctx.campaign(campaign_for(info, params))
        for pol in params.policies:
            rows.append([info.name, pol, float(ds.avg_wait.sel(primary=pol).mean())])
    ctx.table("avg_wait", Table(["trace", "policy", "avg_wait_s"], rows))
    return {"numbers": {"avg_wait_s": {f"{r[0]}/{r[1]}": r[2] for r in rows}}, "findings": {"n": str(len(rows))}}
