"""What a cell produces, declared beside its inputs, and checked before a
campaign runs.

A cell states the variables it returns with :func:`produces`, stacked under
its registration::

    @cell("hourly-week", WeekInputs)
    @produces("avg_wait", "utilisation", "busy_hours")
    def week_cell(q): ...

Each name must be declared in :data:`schedlab.campaigns.store.VARIABLES`
(the engine's metrics, or the study's own through ``store.declare`` above the
cell).  The runner (:func:`schedlab.campaigns.runner.run`) calls
:func:`check_metrics` before it computes or even keys a cell: a campaign whose
``metrics`` name a variable its cell does not produce is refused in one line
naming the cell and what it produces.  The built-in ``simulate`` cell
produces the engine's summary metrics (:data:`BUILTIN`).

This module is imported by the cells that declare their outputs and by the
runner, never by :mod:`.cells`: a cell's cache key covers the code it imports
(:mod:`.fingerprint`), so the cells that declare nothing keep their keys.
"""
from __future__ import annotations

from typing import Callable

from ..errors import InputError
from .cells import resolve_cell
from .store import VARIABLES

#: The variables of the built-in cells: ``simulate`` returns the summary
#: metrics of :func:`schedlab.engine.metrics.summary` it is asked for.
BUILTIN: dict[str, tuple[str, ...]] = {
    "simulate": ("avg_wait", "max_wait", "sum_wait", "mean_bsld", "max_bsld", "mean_ppbsld", "utilisation",
                 "makespan", "jobs", "backfilled", "killed", "forced"),
}


def produces(*variables: str) -> Callable:
    """Declare the variables a cell function returns (stack it under
    :func:`schedlab.campaigns.cells.cell`).  Every name must be declared in
    :data:`~schedlab.campaigns.store.VARIABLES` first (declare a study's own
    with ``store.declare`` above the cell)."""
    for v in variables:
        if not isinstance(v, str) or v not in VARIABLES:
            raise InputError(f"produces: {str(v)[:60]!r} is not a declared variable (declare it with "
                             f"schedlab.campaigns.store.declare before the cell)")
    if len(set(variables)) != len(variables) or not variables:
        raise InputError(f"produces: give each variable once, at least one: {variables}")

    def deco(f):
        f.outputs = tuple(variables)
        return f
    return deco


def produced(cell: str) -> tuple[str, ...] | None:
    """The variables the campaign cell ``cell`` (a name or ``module:function``)
    declares it produces; None when it declares nothing."""
    if cell in BUILTIN:
        return BUILTIN[cell]
    return getattr(resolve_cell(cell), "outputs", None)


def check_metrics(name: str, cell: str, metrics) -> None:
    """Refuse, before anything runs, a campaign ``name`` whose ``metrics``
    name a variable its ``cell`` does not produce (a cell that declares
    nothing is not checked here)."""
    if metrics is None:
        return
    made = produced(cell)
    if made is None:
        return
    missing = [str(m)[:60] for m in metrics if m not in made]
    if missing:
        raise InputError(f"campaign {name}: cell {cell} does not produce {', '.join(missing)}; "
                         f"it produces {', '.join(made)}")
