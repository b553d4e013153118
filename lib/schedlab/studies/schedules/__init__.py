"""Study 9 -- schedules: one EASY pass, drawn.

On a small real excerpt of a bundled log (``first_job`` .. ``first_job +
jobs - 1`` of the cleaned trace, submitted to the whole machine), simulate
EASY-P_R-P_B (``policy``) and a second policy (``compare``) and show what
one scheduling pass does, as lelong2017 Algorithm 1 describes it and
``csrc/SEMANTICS.md`` makes exact: the queue in primary order, the jobs
started while they fit, the head, its shadow time and extra processors, and
the jobs that backfill (ending by the shadow time, or on the extra
processors).

The pass shown is chosen by rule, not by hand (:func:`choose_pass`): the
first pass of the excerpt where a job backfills on the extra processors
(it ends after the shadow time); if there is none, the first pass where a
job backfills.  The passes are those ``schedlab check`` replays from the
engine's schedule (:func:`schedlab.workloads.check.passes`), so the picture is also a
check: both schedules are verified to be valid EASY schedules.

Outputs: the Gantt chart of the pass (processor ids x time, backfilled jobs
marked, the head's reservation), utilisation and queue length over the
excerpt for both policies, the two schedules side by side; the table of the
pass (every queued job and its role); the schedules as Batsim ``jobs.csv``
(``data/``), which evalys reads.

The package: :mod:`~schedlab.studies.schedules.params`,
:mod:`~schedlab.studies.schedules.analysis` (pure: the pass chosen, its
table), :mod:`~schedlab.studies.schedules.figures`,
:mod:`~schedlab.studies.schedules.run` (:func:`compute`) and
``published.toml`` (the rule of lelong2017 Algorithm 1 the picture shows).
"""
from __future__ import annotations

from .analysis import choose_pass, pass_table, roles
from .params import STUDY, Params
from .params import OUTPUTS, TINY  # noqa: F401  (the driver, schedlab.protocol.study.check_study)
from .run import compute

__all__ = ["STUDY", "Params", "compute", "choose_pass", "pass_table", "roles"]
