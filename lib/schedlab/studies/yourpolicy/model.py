"""A model's score through the protocol: examples of a per-job column and of
a Python policy, named where they live so that every dask worker loads them.

* :func:`user_runtime` -- a column (``columns={"pred": "schedlab.studies.yourpolicy.model:user_runtime"}``,
  ``schedlab study run yourpolicy --column pred=schedlab.studies.yourpolicy.model:user_runtime``):
  each job's runtime predicted as its user's mean runtime on the log's
  training half (the first half in time, :func:`schedlab.workloads.workload.split`),
  the training half's median for a user it never saw; at most the job's
  request.  A scikit-learn model fits here the same way: learn on
  ``train``, predict for every job, return one number per job.
* :class:`Requested` -- a Python runtime estimator
  (``py:schedlab.studies.yourpolicy.model:Requested``, in the prediction
  study's ``extra_estimates``): each job's requested time, the twin of
  ``estimate="requested"``.
* :data:`shortest_request` -- a Python policy (``py:schedlab.studies.yourpolicy.model:shortest_request``):
  a :class:`~schedlab.jobs.KeyFunction` ordering by the requested time, the
  twin of ``expr:req`` (SPF) -- the same schedules, at Python's speed.

A column function receives the cleaned log's jobs (:class:`~schedlab.jobs.Jobs`),
before any resampling; the resampled traces and the halves keep each job's value.
"""
from __future__ import annotations

import numpy as np

from ...engine import sim
from ...jobs import Jobs, KeyFunction
from ...workloads import workload

__all__ = ["user_runtime", "shortest_request", "Requested"]


def user_runtime(jobs: Jobs) -> np.ndarray:
    """Each job's predicted runtime (s): its user's mean runtime over the
    training half of the log, the training half's median runtime for a user
    absent from it, capped at the job's requested time."""
    train, _ = workload.split(jobs)
    users, inverse = np.unique(train.user, return_inverse=True)
    mean = np.bincount(inverse, weights=train.run.astype(float)) / np.bincount(inverse)
    default = float(np.median(train.run)) if len(train) else 0.0
    pos = np.searchsorted(users, jobs.user)
    known = (pos < users.size) & (users[np.minimum(pos, users.size - 1)] == jobs.user)
    pred = np.where(known, mean[np.minimum(pos, users.size - 1)], default)
    return np.minimum(pred, jobs.req.astype(float))


def _requested(features: dict, now: int) -> np.ndarray:
    return features["req"]


#: SPF written in Python: the twin of ``expr:req`` (slow: Python at every pass).
shortest_request = KeyFunction(_requested, "shortest_request")


class Requested(sim.Estimator):
    """The requested time as a Python estimator: the twin of
    ``estimate="requested"`` (one Python call per job)."""

    def predict(self, job: int, now: int) -> int:
        return int(self.simulation.jobs.req[job])

    def observe(self, job: int, now: int, runtime: int) -> None:
        pass
