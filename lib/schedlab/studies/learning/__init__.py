"""Study 11 -- Learning to schedule (issue 44).

Online-bandit (§5-6) chooses EASY's queue policy period by period from
feedback; this study asks whether a small learned selector, trained through
``schedlab/PolicySelection-v0`` (:mod:`schedlab.gym.selection`), does better
on weeks it has not seen.  Each log is cut at half its time span: the first
half trains the selector (:class:`~schedlab.studies.learning.cells.LinearSelector`: one ridge
regression per policy of its relative period cost on the queue and machine
state, fitted with plain numpy under full feedback on resampled traces of the
first half, acting epsilon-greedily); the second half is held out.  On the
same resampled traces of the held-out half (online-bandit §6.1.3) run the 12
fixed policies EASY(P, Θ), the online-selection study's strategies (full,
noisy, bandit with epsilon 0.5, random; the mechanics of
:mod:`schedlab.science.online_selection`) and the frozen selector, which
reads only the state (bandit feedback).  The table gives each arm's change of
the total wait against EASY(FCFS, Θ) (Eq. 11) with a 95 % percentile-bootstrap
interval over the traces, as the your-policy study does.

Choices the issue leaves open, written down once: the split at half the time
span (:func:`schedlab.workloads.workload.split`); the selector's features
(a bias and log(1 + x) of each state field); training episodes drawn from the
seed; the strategies' random streams are this study's own (spawn keys after
the resample index), not the selection study's.

The package: :mod:`~schedlab.studies.learning.params`,
:mod:`~schedlab.studies.learning.cells` (with the selector),
:mod:`~schedlab.studies.learning.analysis`, :mod:`~schedlab.studies.learning.figures`,
:mod:`~schedlab.studies.learning.run` (:func:`compute`), ``published.toml`` and ``section.typ``.
"""
from .params import OUTPUTS, TINY, Params
from .run import compute

__all__ = ["Params", "OUTPUTS", "TINY", "compute"]
