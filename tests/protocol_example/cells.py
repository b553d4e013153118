from schedlab.campaigns import campaign


def campaign_for(info, params):
    return campaign.Campaign(f"example-{info.name}", {"primary": list(params.policies)},
                             {"trace": str(info.path), "workload": "resample", "weeks": params.weeks, "seed": 1},
                             cell="protocol_example.cells:cell")


@campaign.cell("protocol-example", campaign.SimulateInputs)
def cell(q):
    """EASY-P-P: the simulate cell with the backfilling queue ordered as the primary one."""
    p = dict(q)
    p["backfill"] = p["primary"]
    return campaign.simulate_cell(p)
