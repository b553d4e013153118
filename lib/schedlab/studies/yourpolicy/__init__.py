"""Study 10 -- your policy: a priority of your own, through the papers' protocol.

Write a queue order as a policy expression (``expr:...``, :mod:`schedlab.expr`:
compiled into the C core, as fast as a built-in) and measure it as
online-bandit §6.1 measured its 12 policies: EASY(P, Θ) -- P orders both
queues, the jobs that waited more than Θ lead them -- on ``samples``
per-user resampled traces of ``weeks`` weeks of each log, and the change of
the total waiting time against EASY(FCFS, Θ) on the same traces (Eq. 11),
with a bootstrap interval over the traces.  The built-in policies of
``compare`` run beside yours on the very same traces; their cells are the
policies and selection studies' own (same campaign, same parameters), so a
run after those studies computes only your policies.

The package: :mod:`~schedlab.studies.yourpolicy.params`,
:mod:`~schedlab.studies.yourpolicy.analysis` (pure: the gains),
:mod:`~schedlab.studies.yourpolicy.figures`,
:mod:`~schedlab.studies.yourpolicy.run` (:func:`compute`) and
``published.toml`` (the protocol it follows; it compares with no published value).
"""
from __future__ import annotations

from .analysis import gains
from .params import STUDY, Params
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute

__all__ = ["STUDY", "Params", "compute", "gains"]
