"""online-bandit Table 2 as ocst ran in the paper's period (issue 42 item 6;
the readings are declared in :mod:`.readings`): one cell that runs EASY with
the options the period's code had, and ocst's own resampler.

Kept in a module of its own, not in :mod:`.cells` or
:mod:`schedlab.workloads.workload`, so that adding it leaves every existing
cell's cache key as it was (a key follows the sources its cell's module
imports: :mod:`schedlab.campaigns.fingerprint`).

What the period's code does, read in ``freuk/ocst`` at ``9d6151d``
(2017-04-24; read there, nothing copied):

* ``src/sampler.ml`` (``ocs-sampler``): the log's weeks are its submit
  times divided by 604,800 s on the log's own clock; the first and the last
  (partial) weeks are dropped; for every user id from the smallest to the
  largest, one uniform permutation of the remaining weeks; a job of user u
  submitted in week w at offset d goes to week perm_u(w) at offset d.  Every
  kept job appears once, the trace keeps the log's length.  Its random
  numbers are OCaml's ``Random``; :func:`permute_weeks` draws its
  permutations with numpy, so it is the same distribution, not the same
  traces.
* ``src/metrics.ml`` ``MakeThresholdedCriteria``: the criterion of a job that
  waited more than Θ (strictly) is ``9999999 + wait``, else its policy's, and
  one decreasing sort orders the queue.  In the engine's terms (lowest key
  first) that is the expression ``where(wait > Θ, -(9999999 + wait), K)``
  with K the policy's own key (:func:`ocst_key`): where K < -(9999999 +
  wait), e.g. LAF's -q p~ of a job with q p~ above ~10^7, that job goes
  before the jobs over the threshold.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
import time as _time

import numpy as np

from ...campaigns.cells import cell
from ...declared import REQUIRED, param, text
from ...engine import sim
from ...errors import InputError
from ...expr import BUILTIN_EXPRESSIONS
from ...science import online_bandit
from ...workloads import traces as _traces

WEEK = 604_800
#: ocst's key for a job over the threshold: 9999999 + its wait (metrics.ml, MakeThresholdedCriteria)
OCST_OVER = 9_999_999
#: The flags a period cell's config may carry after PRIMARY-BACKFILL (see :func:`period_cell`).
FLAGS = ("both", "key", "newest", "perm")


def permute_weeks(jobs: sim.Jobs, seed, week: int = WEEK) -> sim.Jobs:
    """ocst's resampler (``ocs-sampler``, see the module's docstring): per
    user, a uniform permutation of the log's whole weeks; every job of the
    inner weeks once, moved to its week's image at the same offset.  The
    result is sorted by (new submit, input index); its clock starts at 0 at
    the first inner week's image.  ``seed``: an int, a SeedSequence or a
    Generator."""
    if jobs.user is None:
        raise InputError("permute_weeks: the jobs have no user field (jobs.user is None)")
    if len(jobs) == 0:
        raise InputError("permute_weeks: no jobs")
    week = int(week)
    if week <= 0:
        raise InputError(f"permute_weeks: week={week} must be positive")
    rng = np.random.default_rng(seed)
    sub = np.asarray(jobs.submit, dtype=np.int64)
    wid = sub // week
    wmin, wmax = int(wid.min()), int(wid.max())
    inner = np.arange(wmin + 1, wmax)                     # the whole weeks (first and last dropped)
    if inner.size == 0:
        raise InputError(f"permute_weeks: the log spans weeks {wmin}..{wmax}: no whole week to permute")
    keep = np.flatnonzero((wid > wmin) & (wid < wmax))
    users, uidx = np.unique(jobs.user[keep], return_inverse=True)
    perms = np.stack([rng.permutation(inner.size) for _ in range(users.size)])   # user rank -> image
    new_week = perms[uidx.reshape(-1), wid[keep] - (wmin + 1)]
    rel = new_week * week + (sub[keep] - wid[keep] * week)
    o = np.lexsort((keep, rel))
    src = keep[o]
    label = None if jobs.source is None else f"{jobs.source} (ocst weeks permuted)"
    return sim.Jobs(rel[o], jobs.run[src], jobs.req[src], jobs.procs[src], None, jobs.user[src], label,
                    None if jobs.lines is None else jobs.lines[src],
                    None if jobs.columns is None else {k: v[src] for k, v in jobs.columns.items()})


@functools.lru_cache(maxsize=2)
def permuted(trace: str, m: int | None, seed: int, sample: int) -> tuple[sim.Jobs, int]:
    """Resample ``sample`` of ``trace`` by :func:`permute_weeks`, on the log
    cleaned as the fixed-policy cells clean it (:data:`online_bandit.CLEANING`)."""
    c = _traces.cleaned(str(trace), m=m, overrun=online_bandit.CLEANING)
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(sample), 1))
    return permute_weeks(c.jobs, ss), c.m


#: ocst's FCFS and LCFS criteria are the wait and its negation (metrics.ml ``wait``, ``mwait``), not the
#: submit time: the key must be their negation, or an absolute submit time (above 10^7 s after ~4 months of
#: a log's clock) would pass the over-threshold key.  The other built-ins' keys are ocst's criteria negated.
OCST_KEYS = {**BUILTIN_EXPRESSIONS, "FCFS": "-wait", "LCFS": "wait"}


def ocst_key(policy: str, threshold: int) -> str:
    """The engine expression of ocst's thresholded criterion around
    ``policy`` (a built-in name): lowest first, as ocst's highest first."""
    if policy not in OCST_KEYS:
        raise InputError(f"ocst_key: {policy!r} is not a built-in policy ({', '.join(OCST_KEYS)})")
    return f"expr:where(wait > {int(threshold)}, -({OCST_OVER} + wait), {OCST_KEYS[policy]})"


def parse_config(config: str) -> tuple[str, str, frozenset]:
    """``PRIMARY-BACKFILL[/flag...]`` -> (primary, backfill, flags); flags from :data:`FLAGS`, each once."""
    head, *flags = str(config).split("/")
    if head.count("-") != 1 or not set(flags) <= set(FLAGS) or len(set(flags)) != len(flags):
        raise InputError(f"online-bandit-period cell: config {config!r} is not PRIMARY-BACKFILL[/flag...] "
                         f"with flags from {', '.join(FLAGS)}, each once")
    pr, bf = head.split("-")
    return pr, bf, frozenset(flags)


def period_policy(pr: str, bf: str, flags, threshold: int | None) -> sim.Policy:
    """The EASY run of a config: ``both``: the threshold leads the backfilling
    order too (ocst's ``threshold`` command; without it, the primary queue
    only, as ``bandit-random`` and ``bandit-onpolicy``); ``key``: the
    threshold as ocst's key (:func:`ocst_key`) instead of the engine's
    over-threshold jobs first in FCFS order."""
    if threshold is None or "key" not in flags:
        return sim.Policy(pr, bf, threshold, threshold_backfill="both" in flags)
    return sim.Policy(ocst_key(pr, threshold), ocst_key(bf, threshold) if "both" in flags else bf, None)


@dataclass(frozen=True)
class PeriodInputs(online_bandit.ResampleInputs):
    """The period cell's inputs."""

    config: str = param(REQUIRED, help="PRIMARY-BACKFILL, then flags: /both (threshold in both queues), /key "
                        "(ocst's 9999999+wait key), /newest (ties newest first), /perm (ocst's resampler)",
                        check=text)


@cell("online-bandit-period", PeriodInputs)
def period_cell(p: PeriodInputs) -> dict:
    """One (trace, resample, config) as ocst's period code ran it
    (:func:`parse_config`, :func:`period_policy`): on the fixed-policy cells'
    resampled trace, or with ``/perm`` on ocst's resampler's
    (:func:`permuted`; ``weeks`` is then not read).  Outputs: jobs, the total
    wait and the cell's compute time."""
    t0 = _time.process_time()
    pr, bf, flags = parse_config(p["config"])
    if "perm" in flags:
        jobs, m = permuted(p.trace, p.m, p.seed, p.sample)
    else:
        jobs, m = online_bandit.resampled(p.trace, p.m, p.weeks, p.seed, p.sample)
    s = sim.simulate(jobs, m, period_policy(pr, bf, flags, p.get("threshold")),
                     tie="newest" if "newest" in flags else "oldest")
    summ = s.summary()
    return {"jobs": ((), summ["jobs"]), "sum_wait": ((), summ["sum_wait"]),
            "compute_time": ((), _time.process_time() - t0)}
