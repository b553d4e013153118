"""schedlab: a reproducible research compendium about tuning EASY-backfilling.

The scheduling itself happens in a small C core (``csrc/``) bound with cffi.
**The top level is the API**: the few names a user needs, each loaded on first
use (so ``import schedlab`` stays cheap and reading a trace never loads the
compiled core)::

    import schedlab
    c = schedlab.cleaned("KTH-SP2")                    # read, check and clean a bundled log
    s = schedlab.simulate(c.jobs, c.m, "EASY-SPF-SPF")  # a Schedule
    s.summary()["mean_bsld"]
    schedlab.simulate(c.jobs, c.m, "expr:wait / req + procs / m")   # your own priority, in C

=====================  ====================================================
name                   what it is (its home)
=====================  ====================================================
``Jobs``               the job table (``schedlab.jobs``); ``columns=`` for your scores
``Policy``, ``Mixed``  EASY-P_R-P_B with a threshold; the mixed linear policy
``Expr``               a policy expression, ``"expr:..."`` (``schedlab.expr``)
``KeyFunction``        a queue order from your own Python function (slow)
``simulate``           one simulation to the end (``schedlab.engine.sim``)
``Simulation``         a stepping simulation (run until, set_policy, clone)
``Schedule``           a simulation's result (start, end, flags, summary())
``load_trace``         read an SWF log (``schedlab.workloads.traces.load``)
``cleaned``            read and clean a log: ``.jobs``, ``.m``, the report
``resample``           per-user weekly resampling (``schedlab.workloads.workload``)
``metrics``            wait, bsld, utilisation, summary of a schedule (module)
``run_study``          run one study of the compendium (``schedlab.protocol.study``)
``parse_duration``     "20h" -> 72000
``SchedlabError``      every error schedlab raises on bad input or state
=====================  ====================================================

These names are stable; the modules behind them may move (``schedlab.sim``
moved to ``schedlab.engine.sim`` and still answers, with a warning).
"""
from __future__ import annotations

import importlib as _importlib

__version__ = "0.1.0"

#: The API: name -> (module, attribute or None for the module itself).
API = {
    "Jobs": ("schedlab.jobs", "Jobs"),
    "Policy": ("schedlab.jobs", "Policy"),
    "Mixed": ("schedlab.jobs", "Mixed"),
    "KeyFunction": ("schedlab.jobs", "KeyFunction"),
    "parse_duration": ("schedlab.jobs", "parse_duration"),
    "Expr": ("schedlab.expr", "Expr"),
    "SchedlabError": ("schedlab.errors", "SchedlabError"),
    "InputError": ("schedlab.errors", "InputError"),
    "simulate": ("schedlab.engine.sim", "simulate"),
    "Simulation": ("schedlab.engine.sim", "Simulation"),
    "Schedule": ("schedlab.engine.sim", "Schedule"),
    "metrics": ("schedlab.engine.metrics", None),
    "load_trace": ("schedlab.workloads.traces", "load"),
    "cleaned": ("schedlab.workloads.traces", "cleaned"),
    "resample": ("schedlab.workloads.workload", "resample"),
    "run_study": ("schedlab.protocol.study", "run_study"),
}

__all__ = sorted(API) + ["__version__"]


def __getattr__(name: str):
    """PEP 562: the API's names, imported on first use."""
    try:
        module, attr = API[name]
    except KeyError:
        raise AttributeError(f"module 'schedlab' has no attribute {name!r}; the API: {', '.join(sorted(API))}") \
            from None
    mod = _importlib.import_module(module)
    value = mod if attr is None else getattr(mod, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(API))
