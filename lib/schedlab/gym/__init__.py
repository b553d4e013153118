"""Gymnasium environments over the engine (issue 44), registered when this
package is imported:

* ``schedlab/PolicySelection-v0`` (:class:`schedlab.gym.selection.PolicySelectionEnv`):
  online-bandit's problem -- each step a period, the action one of the
  queue policies, EASY(P, Θ) running the period with the queue carried over,
  the observation the selection study's full, noisy or bandit feedback and
  the queue's and the machine's state;
* ``schedlab/JobDispatch-v0`` (:class:`schedlab.gym.dispatch.JobDispatchEnv`):
  SchedGym's problem -- each step a scheduling decision, the action which
  of the first K queued jobs goes first (it starts, or gets EASY's
  reservation), EASY backfilling the rest in the engine (its decision
  point, csrc/SEMANTICS.md "Decisions by the caller").

``gymnasium.make("schedlab/PolicySelection-v0", trace="KTH-SP2", ...)``
after ``import schedlab.gym`` (or ``gymnasium.make("schedlab.gym:schedlab/PolicySelection-v0")``);
likewise ``"schedlab/JobDispatch-v0"``, whose vector form
``gymnasium.make_vec("schedlab/JobDispatch-v0", num_envs=N)`` steps N
environments in one call of the C core
(:class:`schedlab.gym.vector.JobDispatchVectorEnv`).
"""
from __future__ import annotations

import gymnasium

#: The environments' ids and their entry points (by string: a module is imported when its environment is made).
ENVIRONMENTS = {
    "schedlab/PolicySelection-v0": "schedlab.gym.selection:PolicySelectionEnv",
    "schedlab/JobDispatch-v0": "schedlab.gym.dispatch:JobDispatchEnv",
}

#: The environments stepped as a vector by the C core (issue 50): ``gymnasium.make_vec(id, num_envs=N)``.
VECTOR_ENVIRONMENTS = {
    "schedlab/JobDispatch-v0": "schedlab.gym.vector:JobDispatchVectorEnv",
}

for _id, _entry in ENVIRONMENTS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_entry, vector_entry_point=VECTOR_ENVIRONMENTS.get(_id))

__all__ = ["ENVIRONMENTS", "VECTOR_ENVIRONMENTS"]
