"""Study 12 -- Learning to dispatch (RLScheduler's kernel network).

What it computes and from which paper (zhang2020 (RLScheduler, SC20) §4-5): say it here, with the
choices the papers leave open written down once.  As made by
``schedlab study new``: EASY with one policy (``policy``) on the first
``weeks`` weeks of each trace, each week simulated alone (its jobs, those
submitted in it), and per week the mean and maximum wait, the mean bounded
slowdown and the utilisation.

The package: :mod:`~schedlab.studies.dispatching.params` (``Params``,
``OUTPUTS``, ``TINY``), :mod:`~schedlab.studies.dispatching.cells` (the
simulations), :mod:`~schedlab.studies.dispatching.analysis` (pure functions of
the datasets), :mod:`~schedlab.studies.dispatching.tables`,
:mod:`~schedlab.studies.dispatching.figures`,
:mod:`~schedlab.studies.dispatching.report`, :mod:`~schedlab.studies.dispatching.run`
(:func:`compute`), ``published.toml`` and ``section.typ``.
"""
from .params import OUTPUTS, TINY, Params
from .run import compute

__all__ = ["Params", "OUTPUTS", "TINY", "compute"]
