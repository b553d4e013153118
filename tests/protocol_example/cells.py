from schedlab.campaigns import cells as campaign_cells
from schedlab.campaigns.spec import Campaign


def campaign_for(info, params):
    return Campaign(f"example-{info.name}", {"primary": list(params.policies)},
                    {"trace": str(info.path), "workload": "resample", "weeks": params.weeks, "seed": 1},
                    cell="protocol_example.cells:cell")


@campaign_cells.cell("protocol-example", campaign_cells.SimulateInputs)
def cell(q):
    """EASY-P-P: the simulate cell with the backfilling queue ordered as the primary one."""
    p = dict(q)
    p["backfill"] = p["primary"]
    return campaign_cells.simulate_cell(p)
