"""The energy study's analysis: the classified profiles of one cut
(:class:`Analysis`) and pure functions of them and of the data (class
shares, hosts, times): no file I/O, no plotting, no printing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from . import signals as energy
from ...errors import InputError


@dataclass
class Analysis:
    """Every profile of one cut, preprocessed and classified.  ``columns``
    holds one array per quantity, one entry per profile: ``minutes``,
    ``dropped`` ('' if kept), ``mean_power`` (data unit), ``mean_scaled``,
    ``idle``, ``outliers``, the three statistics ``s_stat``, ``v_stat``,
    ``p_stat`` (the tree's criterion; ``p_share``, ``p_acf``, ``p_density``:
    all three), the dominant ``cycles`` and ``period`` (minutes) and
    ``label`` ('' if dropped)."""

    method: str
    profiles: list[energy.Profile]
    prepared: list[energy.Prepared]
    columns: dict[str, np.ndarray]
    tree: energy.Tree
    idle_level: float

    def __len__(self) -> int:
        return len(self.profiles)

    @property
    def kept(self) -> np.ndarray:
        return self.columns["dropped"] == ""

    def relabel(self, tree: energy.Tree | None = None, idle_level: float | None = None) -> np.ndarray:
        """Labels under other thresholds (same statistics); 'idle' marks
        kept profiles at idle power."""
        tree = tree or self.tree
        idle_level = self.idle_level if idle_level is None else idle_level
        c = self.columns
        stationary = c["s_stat"] <= tree.stationarity
        constant = c["v_stat"] < tree.variability
        periodic = c[f"p_{tree.criterion}"] > tree.periodicity
        lab = np.where(~stationary, "non-stationary",
                       np.where(constant, "constant", np.where(periodic, "periodic", "variable")))
        lab = np.where(self.kept, lab, "")
        return lab.astype(object)

    def idle(self, idle_level: float | None = None) -> np.ndarray:
        level = self.idle_level if idle_level is None else idle_level
        return self.kept & (self.columns["mean_scaled"] < level)


def shares(a: Analysis, include_idle: bool = False, labels: np.ndarray | None = None,
           idle_level: float | None = None) -> dict[str, Any]:
    """Class shares (% of the profiles counted, and % of their minutes);
    ``predictable`` = constant + periodic.  Idle profiles are counted apart
    (``idle``) unless ``include_idle``."""
    lab = a.columns["label"] if labels is None else labels
    idle = a.idle(idle_level)
    use = a.kept & (include_idle | ~idle)
    minutes = a.columns["minutes"].astype(float)
    n = int(use.sum())
    total = float(minutes[use].sum())
    out: dict[str, Any] = {"profiles": n, "minutes": int(total), "idle_profiles": int(idle.sum()),
                           "idle_minutes": int(minutes[idle].sum()), "count": {}, "duration": {}}
    for cls in energy.CLASSES:
        m = use & (lab == cls)
        out["count"][cls] = 100.0 * m.sum() / n if n else math.nan
        out["duration"][cls] = 100.0 * minutes[m].sum() / total if total else math.nan
    for key in ("count", "duration"):
        out[key]["predictable"] = sum(out[key][c] for c in energy.PREDICTABLE)
    return out


def flat_shares(s: dict) -> dict:
    """The shares of :func:`shares` as one flat row: "<class> % (count|duration)"."""
    out = {"profiles": s["profiles"], "idle_profiles": s["idle_profiles"]}
    for key in ("count", "duration"):
        for cls, v in s[key].items():
            out[f"{cls} % ({key})"] = v
    return out


def resolve_hosts(ds, hosts) -> list[str]:
    """The hosts of the data that the ``hosts`` parameter names ("all", "dahu" or a list)."""
    known = ds.host.values.tolist()
    if hosts == "all":
        return known
    if hosts == "dahu":
        out = [h for h in known if h.startswith("dahu")]
        if not out:
            raise InputError(f"hosts: 'dahu' matches no host of the data (hosts: {known})")
        return out
    unknown = [h for h in hosts if h not in known]
    if unknown:
        raise InputError(f"hosts: {unknown} not in the data; known: {known}")
    return list(hosts)


def utc_minute(minute: int) -> str:
    """Minute ``minute`` since the epoch as "YYYY-MM-DD HH:MM" (UTC)."""
    return datetime.fromtimestamp(int(minute) * 60, timezone.utc).strftime("%Y-%m-%d %H:%M")
