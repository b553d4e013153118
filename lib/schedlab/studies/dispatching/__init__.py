"""Study 12 -- Learning to dispatch (RLScheduler's kernel network; issue 50).

RLScheduler (Zhang et al., SC20) trains a network to pick, decision by
decision, which queued job goes next, in SchedGym (its ``HPCSimPickJobs``),
and compares it with SchedGym's heuristics FCFS, WFP3, UNICEP, SJF and F1.
This study does the same through the house's batched environment,
``gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=N)``
(:mod:`schedlab.gym.vector`), under SchedGym's rules (``rules="schedgym"``,
csrc/SEMANTICS.md "SchedGym's rules": the rules RLScheduler's published
results were computed under, with backfilling), on 256-job sequences
(SchedGym's ``JOB_SEQUENCE_SIZE``, the environment's default window).

Each log is cut at half its jobs: the agent trains on sequences wholly in
the first half and is evaluated frozen, acting greedily, on ``sequences``
sequences drawn from the second half; the five heuristics
(:data:`schedlab.gym.schedgym.HEURISTICS`) run on the same sequences.  The
score of a sequence is SchedGym's (:func:`schedlab.gym.schedgym.avg_bsld`,
the mean bounded slowdown, tau = 10 s).  The table gives each arm's mean
with a 95 % bootstrap interval over the sequences (:func:`schedlab.stats.
bootstrap_ci`) and its change against SJF on the same sequences with the
paired interval (:func:`schedlab.stats.total_change`); the learning curve is
the agent's mean on each epoch's training sequences over SJF's and FCFS's
on the same sequences.

Choices the issue leaves open, written down once: the network, its input
and the REINFORCE with a leave-one-out baseline (:mod:`.cells`'s
docstring); plain numpy (nothing in the lock does policy gradients, and
the network is 865 parameters); the log as the house cleans it (overruns
killed at the request), not SchedGym's loading; the observation
JobDispatch-v0's own (the vector does not compute SchedGym's); the split by
job count; the agent's greedy action at evaluation (RLScheduler samples).

The package: :mod:`~schedlab.studies.dispatching.params`,
:mod:`~schedlab.studies.dispatching.cells` (the network and its training),
:mod:`~schedlab.studies.dispatching.analysis`,
:mod:`~schedlab.studies.dispatching.figures`,
:mod:`~schedlab.studies.dispatching.run` (:func:`compute`),
``published.toml`` (none: why) and ``section.typ``.
"""
from .params import OUTPUTS, TINY, Params
from .run import compute

__all__ = ["Params", "OUTPUTS", "TINY", "compute"]
