"""The key numbers and findings of the dispatching study (for the notebook and the paper)."""
from __future__ import annotations


def numbers(summary: dict, policy: str) -> dict:
    return {"study": "dispatching", "policy": policy, "traces": summary}


def findings(summary: dict, policy: str) -> dict:
    return {name: f"{policy}: mean wait {s['avg_wait'] / 3600:.2f} h, utilisation {s['utilisation']:.2f} "
                  f"over {s['weeks']} weeks" for name, s in summary.items()}
