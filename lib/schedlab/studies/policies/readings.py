"""Candidate readings of online-bandit Table 2's protocol (issue 30, item 2;
DESIGN §10): which simulated policy each published name refers to.

The paper's simulator is ``freuk/ocst`` (its appendix: "the lightweight ocaml
backfilling simulator specially written for this work").  Its history (read
in the repository, not copied) shows that, between April and July 2017, the
direction in which each EASY queue sorts its key and the key each policy name
stands for changed several times.  A Table 2 computed with one of those builds
carries labels that do not say what ran.  Each version is a candidate reading,
stated as a map ``name -> (primary policy, backfill policy)`` applied to both
the policy's column and to the FCFS baseline (which a version may also
mislabel):

* ``ocst-04-28`` (commits 1d193fb..5d1c689, 2017-04-28 to 05-08, e.g.
  60b15a4): both queues sort descending; the S-names key on +key (SPF on p~,
  SQF on q, SRF on p/q, SAF on q*p~), so every S/L pair of P, Q, R, A runs
  swapped in both queues; FCFS/LCFS and SEXP/LEXP as named.  The same policy
  in both queues, so a pure relabelling of the counted simulations.  (At
  60b15a4 its SRF key used the actual runtime p, not p~: not reproduced here.)
* ``ocst-05-09`` (5acddb4..4978b17, 05-09 to 06-07): the primary queue sorts
  ascending, backfilling descending, keys as in ``ocst-04-28``: the primary
  queue runs P, Q, R, A as named but FCFS as LCFS and SEXP as LEXP (and back);
  the backfilling queue runs P, Q, R, A swapped, FCFS and EXP as named.
* ``ocst-06-08`` (2b8da2c "fix the metric naming" .. 74097fe, 06-08 to
  07-18): the names fixed (L-names key on +key), the primary queue still
  ascending: every name runs reversed in the primary queue (FCFS as LCFS, SPF
  as LPF, ...), as named in the backfilling queue.
* ``ocst-07-19`` (b0970ff "fixing the 'reverse order' problem" and later):
  every name as named.

In every ocst version the waiting-time threshold (``fixed --threshold``, added
on 2017-07-18 in 80b608e) reorders the *primary* queue only; the counted
reading (ours) also puts the thresholded jobs first in the backfilling order
(``threshold_backfill=True``, the paper's Algorithm 1: "starts and backfill
jobs according to the (thresholded) reordering policy P").  So the three
versions that need new simulations (``ocst-05-09``, ``ocst-06-08``,
``ocst-07-19``) run with the threshold in the primary queue only, as ocst
does; ``ocst-07-19`` thus differs from the counted reading by that alone.
Not reproduced: before b0970ff, ocst kept the thresholded jobs in the primary
order rather than FCFS; ocst's sorts are stable (ties keep its waiting list's
order), the engine breaks ties by submit time then id.

Two relabellings found earlier by comparing the whole table
(:data:`.params.SWAPS`) are kept as candidates too: ``S/L P,Q,A`` and
``S/L P,Q,A,R,EXP`` (same policy in both queues).

**Declared fit rows** (chosen before any held-out value was looked at, for a
reason from the paper, not from the results): the KTH-SP2 row of Table 2 (its
11 cells).  KTH-SP2 is the workload the paper itself takes as its example
(§5, Fig. 1: "the weekly average waiting time in the KTH-SP2 trace") and the
log of the authors' earlier study (lelong2017), so it is the row whose
protocol the authors checked most.  Predicted: the CTC-SP2, SDSC-SP2,
SDSC-BLUE and CEA-Curie rows (44 cells).

**Issue 42 item 6: the period's code as readings** (declared here, in a commit
of its own, before any of their values was computed in this repository; the fit
rows stay the KTH-SP2 row above, the predicted rows the other four).  ocst as
it stood when the paper's selection code was in it (``9d6151d``, 2017-04-24,
the last version with ``src/bandit.ml``'s bandit and ``simulate.ml``'s
``threshold``, ``bandit-random`` and ``bandit-onpolicy`` commands) runs:

* labels: both queues sort by decreasing criterion (``easy.ml``: ``compare
  (crit i2) (crit i1)``) with ``spf`` = +p~, ``sqf`` = +q, ``saf`` = +q p~,
  ``srf`` = q/p~, ``expfact`` = -(w+p~)/p~, ``wait`` = w: S/L swapped for P,
  Q and A, R, EXP and FCFS as named -- the ``S/L P,Q,A`` relabelling, which
  the whole-table comparison had found, is the period's own labelling;
* the tie rule: OCaml's ``List.sort`` is stable, equal keys keep the waiting
  list's order, newest first (``tie="newest"``; csrc/SEMANTICS.md rule 1);
* the threshold as a key (``metrics.ml``, ``MakeThresholdedCriteria``): a job
  that waited more than Θ gets the criterion 9999999 + wait, the others
  their policy's criterion, in one decreasing sort: under a criterion that can
  pass 10^7 (``saf``, q p~, the published SAF column under the period's
  labels) a job with q p~ > 9999999 + wait goes before the over-threshold
  jobs;
* the threshold in both queues (``threshold`` command: the reservation and
  the backfilling criteria both wrapped) or in the primary queue only with
  backfilling by wait, unthresholded (``bandit-random`` / ``bandit-onpolicy``:
  ``--backfill`` defaults to ``wait``, the policies wrapped, Θ defaults to 0);
* the resampler (``sampler.ml``, ``ocs-sampler``): for every user a
  permutation of the log's whole weeks (cut at multiples of 604,800 s of the
  log's clock, first and last partial weeks dropped), each job moved to its
  week's image keeping its offset: the log's length, every job once;
* the reward (basic / centered / ratio / raw) is the bandit's, not read by a
  fixed-policy run: Table 2 does not depend on it, so it is no axis here.
"""
from __future__ import annotations

import numpy as np

from ...names import campaign_part
from ...campaigns.spec import Campaign
from ...science import online_bandit as ob
from ...workloads import traces as _traces
from .cells import pair_cell  # noqa: F401  (the cell of pair_campaign)
from .params import SWAPS

__all__ = ["VERSIONS", "RELABELS", "READING_TEXT", "FIT_TRACE", "FIT_LABEL", "PERIOD", "version_map", "pair_configs",
           "pair_campaign", "relabel_changes", "pair_changes", "period_config", "period_configs", "period_campaign",
           "period_changes"]

#: The declared fit rows of the group (see the module's docstring).
FIT_TRACE = "KTH-SP2"
FIT_LABEL = ("the KTH-SP2 row of online-bandit Table 2 (the paper's own example workload, §5 Fig. 1); "
             "predicted: CTC-SP2, SDSC-SP2, SDSC-BLUE, CEA-Curie")

_FAMILIES = (("SPF", "LPF"), ("SQF", "LQF"), ("SRF", "LRF"), ("SAF", "LAF"), ("SEXP", "LEXP"),
             ("FCFS", "LCFS"))
_OTHER = {a: b for x, y in _FAMILIES for a, b in ((x, y), (y, x))}


def _swap(names: set[str]):
    return lambda n: _OTHER[n] if n in names else n


_PQRA = {"SPF", "LPF", "SQF", "LQF", "SRF", "LRF", "SAF", "LAF"}
_ALL = set(_OTHER)

#: Version -> (primary map, backfill map): name -> the policy that queue ran.
VERSIONS = {
    "ocst-04-28": (_swap(_PQRA), _swap(_PQRA)),
    "ocst-05-09": (_swap(_ALL - _PQRA), _swap(_PQRA)),
    "ocst-06-08": (_swap(_ALL), _swap(set())),
    "ocst-07-19": (_swap(set()), _swap(set())),
}
#: Versions that run the same policy in both queues with the counted
#: threshold: read off the counted simulations, no new run.
RELABELS = {
    "ocst-04-28": "ocst-04-28",
    "S/L P,Q,A": "S/L swapped for P, Q, A",
    "S/L P,Q,A,R,EXP": "S/L swapped for P, Q, A, R, EXP",
}
#: The same versions as their ``fixed`` command ran before 80b608e (2017-07-18,
#: "added thresholding to fixed"): no waiting-time threshold at all.  Added
#: after the first measurement (the fit rows stay the declared ones).
NO_THRESHOLD = {"ocst-04-28 no threshold": "ocst-04-28", "ocst-05-09 no threshold": "ocst-05-09",
                "ocst-06-08 no threshold": "ocst-06-08"}
NONE = "/none"
#: ocst's order of equal keys (newest submission first; csrc/SEMANTICS.md "Other simulators", rule 1) with
#: a version's labels: exact for the versions that run one policy in both queues (ocst-07-19), where ocst's
#: backfilling ties follow its primary order.  Added after the first measurement (issue 30, 2026-11-26);
#: the fit rows stay the declared ones.
NEWEST = {"ocst-07-19 newest": "ocst-07-19"}
TIE = "/newest"
READING_TEXT = {
    "ocst-04-28": "labels as ocst ran them 2017-04-28..05-08 (1d193fb-5d1c689): S/L swapped for P, Q, R, A "
                  "in both queues",
    "ocst-05-09": "labels as ocst ran them 2017-05-09..06-07 (5acddb4-4978b17): primary queue FCFS<->LCFS, "
                  "SEXP<->LEXP; backfilling queue S/L swapped for P, Q, R, A; threshold in the primary queue",
    "ocst-06-08": "labels as ocst ran them 2017-06-08..07-18 (2b8da2c-74097fe): every name reversed in the "
                  "primary queue, as named in backfilling; threshold in the primary queue",
    "ocst-07-19": "ocst from 2017-07-19 (b0970ff): labels as named, threshold in the primary queue only",
    "S/L P,Q,A": "labels S/L swapped for P, Q, A in both queues (the whole-table comparison's best)",
    **{k: f"the labels of {v}, without a threshold (ocst's fixed command before 80b608e, 2017-07-18)"
       for k, v in NO_THRESHOLD.items()},
    **{k: f"ocst as {v} (labels as named, threshold in the primary queue only) with ocst's order of equal "
          f"keys: the newest submission first (csrc/SEMANTICS.md rule 1)" for k, v in NEWEST.items()},
    "S/L P,Q,A,R,EXP": "labels S/L swapped for P, Q, A, R, EXP in both queues",
}

#: Issue 42 item 6: ocst as the period's code ran it (9d6151d, 2017-04-24; declared in the module's
#: docstring before any value was computed), each adding one axis to the one before:
#: reading -> (label map, the period cell's flags, the backfilling policy if not the name's own).
PERIOD_LABELS = "S/L P,Q,A"
PERIOD = {
    "ocst-04-24 newest": (PERIOD_LABELS, "both/newest", None),
    "ocst-04-24 key": (PERIOD_LABELS, "both/key/newest", None),
    "ocst-04-24 perm": (PERIOD_LABELS, "both/key/newest/perm", None),
    "ocst-04-24 bandit": (PERIOD_LABELS, "key/newest", "FCFS"),
}
READING_TEXT.update({
    "ocst-04-24 newest": "ocst 9d6151d's labels (S/L swapped for P, Q, A), its threshold command (the threshold "
                         "leading both queues) and its order of equal keys (newest first)",
    "ocst-04-24 key": "ocst-04-24 newest with the threshold as ocst's key (9999999 + wait, one decreasing sort: "
                      "a job with q p~ above it goes first under the area criterion)",
    "ocst-04-24 perm": "ocst-04-24 key on ocst's resampler (ocs-sampler: per user a permutation of the log's "
                       "whole weeks, the log's length) instead of §6.1.3's draws with replacement",
    "ocst-04-24 bandit": "ocst-04-24 key with the selection commands' queues (bandit-random, bandit-onpolicy): the "
                         "threshold key in the primary queue only, backfilling by wait (their --backfill default)",
})


def version_map(version: str, name: str) -> tuple[str, str]:
    """(primary, backfill) that ``name`` ran under ``version``."""
    version = NO_THRESHOLD.get(version, NEWEST.get(version, version))
    if version in VERSIONS:
        pr, bf = VERSIONS[version]
        return pr(name), bf(name)
    swaps = dict(SWAPS[RELABELS[version]])
    swaps.update({b: a for a, b in list(swaps.items())})
    return swaps.get(name, name), swaps.get(name, name)


def _config(pr: str, bf: str) -> str:
    return f"{pr}-{bf}"


def pair_configs(policies=ob.POLICIES) -> list[str]:
    """Every (primary-backfill) pair the simulated versions need, the FCFS baselines included."""
    out: list[str] = []
    for v in VERSIONS:
        if v in RELABELS:
            continue
        for n in policies:
            c = _config(*version_map(v, n))
            if c not in out:
                out.append(c)
    for v, sfx in [*((v, NONE) for v in NO_THRESHOLD), *((v, TIE) for v in NEWEST)]:
        for n in policies:
            c = _config(*version_map(v, n)) + sfx
            if c not in out:
                out.append(c)
    return out


PAIR_CELL = "schedlab.studies.policies.cells:pair_cell"
PERIOD_CELL = "schedlab.studies.policies.period:period_cell"


def period_config(reading: str, name: str) -> str:
    """The period cell's config that ``name`` ran under a :data:`PERIOD` reading."""
    labels, flags, backfill = PERIOD[reading]
    pr = version_map(labels, name)[0]
    return f"{pr}-{backfill or pr}/{flags}"


def period_configs(policies=ob.POLICIES) -> list[str]:
    """Every config the :data:`PERIOD` readings need, the FCFS baselines included."""
    out: list[str] = []
    for v in PERIOD:
        for n in policies:
            c = period_config(v, n)
            if c not in out:
                out.append(c)
    return out


def period_campaign(info: _traces.TraceInfo, samples: int, weeks: int, seed: int,
                    threshold: int | None) -> Campaign:
    """The period readings' runs on one trace, on the first ``samples``
    resampled traces of the fixed-policy campaign (or, for ``/perm``, as many
    of ocst's resamples)."""
    return Campaign(
        f"policies-bandit-period-{campaign_part(info.name)}", cell=PERIOD_CELL,
        dims={"sample": list(range(samples)), "config": period_configs()},
        params={"trace": _traces.text(info), "weeks": weeks, "seed": seed, "threshold": threshold})


def period_changes(period_ds, reading: str, names, seed: int) -> dict[str, tuple[float, float, float]]:
    """A :data:`PERIOD` reading's Table 2: Eq. 11 of each name's run against
    the run of its "FCFS" with the same flags."""
    from .analysis import total_change
    base = period_ds.sum_wait.sel(config=period_config(reading, "FCFS")).values
    return {n: total_change(period_ds.sum_wait.sel(config=period_config(reading, n)).values, base, seed=seed)
            for n in names}


def pair_campaign(info: _traces.TraceInfo, samples: int, weeks: int, seed: int,
                  threshold: int | None) -> Campaign:
    """The pairs the label-map readings need on one trace, on the first
    ``samples`` resampled traces of the fixed-policy campaign."""
    return Campaign(
        f"policies-bandit-pairs-{campaign_part(info.name)}", cell=PAIR_CELL,
        dims={"sample": list(range(samples)), "config": pair_configs()},
        params={"trace": _traces.text(info), "weeks": weeks, "seed": seed, "threshold": threshold})


def relabel_changes(change: dict[str, tuple[float, float, float]], fixed_ds, version: str,
                    seed: int) -> dict[str, tuple[float, float, float]]:
    """A relabelling reading: the published name n is our simulated policy
    ``version_map(version, n)`` (same policy in both queues), against the
    policy the version's "FCFS" ran; Eq. 11 on the counted simulations."""
    from .analysis import total_change
    base_name = version_map(version, "FCFS")[0]
    base = fixed_ds.sum_wait.sel(policy=base_name).values
    out = {}
    for n in change:
        pol = version_map(version, n)[0]
        out[n] = total_change(fixed_ds.sum_wait.sel(policy=pol).values, base, seed=seed)
    return out


def pair_changes(pairs_ds, version: str, names, seed: int) -> dict[str, tuple[float, float, float]]:
    """A simulated version's Table 2: Eq. 11 of each name's pair against the
    pair the version's "FCFS" ran, over the pair campaign's samples."""
    from .analysis import total_change
    sfx = NONE if version in NO_THRESHOLD else TIE if version in NEWEST else ""
    base = pairs_ds.sum_wait.sel(config=_config(*version_map(version, "FCFS")) + sfx).values
    return {n: total_change(pairs_ds.sum_wait.sel(config=_config(*version_map(version, n)) + sfx).values, base,
                            seed=seed) for n in names}


def all_changes(bandit_traces, pair_datasets: dict, seed: int,
                period_datasets: dict | None = None) -> dict[str, dict[str, dict]]:
    """trace -> reading -> name -> (estimate, low, high) (fractions), for
    every reading of :data:`READING_TEXT` the run has the simulations for."""
    out: dict[str, dict[str, dict]] = {}
    for t in bandit_traces:
        names = [n for n in t.policies if n != "FCFS"]
        per: dict[str, dict] = {}
        for v in RELABELS:
            per[v] = relabel_changes({n: None for n in names}, t.dataset, v, seed)
        ds = pair_datasets.get(t.trace)
        if ds is not None:
            for v in [*VERSIONS, *NO_THRESHOLD, *NEWEST]:
                if v not in RELABELS:
                    per[v] = pair_changes(ds, v, names, seed)
        pds = (period_datasets or {}).get(t.trace)
        if pds is not None:
            for v in PERIOD:
                per[v] = period_changes(pds, v, names, seed)
        out[t.trace] = {v: per[v] for v in READING_TEXT if v in per}
    return out


def _samples(trace: str, ds, pairs: dict) -> str:
    n = int(ds.sizes.get("sample", 0)) if ds is not None else 0
    return str(n)


def table_bandit_readings(changes: dict[str, dict[str, dict]], pairs: dict, p) -> "Table":
    """Every reading x every cell of Table 2 (%), with the published value."""
    from .. import Table
    from .params import PUBLISHED

    readings = list(READING_TEXT)
    rows = []
    for trace, per in changes.items():
        pub = PUBLISHED["bandit_table2"].get(trace, {})
        for name in pub:
            vals = [100 * per[v][name][0] if v in per and name in per[v] else None for v in readings]
            rows.append([trace, name, pub[name], *vals])
    n_pairs = {t: int(ds.sizes.get("sample", 0)) for t, ds in pairs.items()}
    return Table(["trace", "name", "published %", *readings], rows, default_digits=1,
                 title="online-bandit Table 2 under each candidate reading of its labels (%)",
                 notes=[f"{v}: {READING_TEXT[v]}" for v in readings]
                 + [f"relabellings ({', '.join(RELABELS)}) use the counted simulations ({p.bandit_samples} "
                    f"resampled traces per log); the other readings the first {p.bandit_reading_samples} "
                    f"(pairs campaign: {n_pairs})",
                    f"the ocst-04-24 readings: the first {p.bandit_reading_samples} resamples (period "
                    f"campaign, policies/period.py)",
                    f"declared fit rows: {FIT_LABEL} (policies/readings.py)"])
