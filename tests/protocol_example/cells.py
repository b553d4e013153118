from schedlab import campaign


def campaign_for(info, params):
    return campaign.Campaign(f"example-{info.name}", {"primary": list(params.policies)},
                             {"trace": str(info.path), "workload": "resample", "weeks": params.weeks, "seed": 1},
                             cell="protocol_example.cells:cell")


def cell(p):
    q = dict(p)
    q["backfill"] = q["primary"]
    return campaign.simulate_cell(q)
