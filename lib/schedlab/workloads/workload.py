"""Workloads: from SWF records to simulator jobs, with cleaning, per-user
weekly resampling, a temporal train/test split and period slicing.

* :func:`clean` -- SWF trace -> :class:`~schedlab.jobs.Jobs`; follows DESIGN §2
  (lelong2017 §7.2, online-bandit §6.1.1); every filter reports how many jobs
  it changed or removed and why (:class:`CleanReport`).
* :func:`resample` / :func:`resample_weeks` -- per-user weekly resampling
  (lelong2017 §4.1, online-bandit §6.1.3, thesis §4.2 Algorithm 2): a
  :class:`Resampled` trace that remembers where every job came from.
* :func:`split` -- the train/test split at the temporal midpoint (lelong2017 §7.1).
* :func:`weeks` / :func:`period_edges` -- the consecutive weeks (days, 30-day or
  calendar months) of a trace, with or without the jobs that cross a
  boundary (thesis §5.2); :func:`recorded_finish` gives the log's own finish
  times for that test.

Times are integer seconds, in the time frame of the jobs given (for a trace
read by :func:`clean`, seconds since the log's ``UnixStartTime``).
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..jobs import Jobs, parse_duration

#: Seconds in a day, a week, and a calendar-free "month" (30 days).
DAY = 86400
WEEK = 7 * DAY
MONTH = 30 * DAY

OVERRUN_CHOICES = ("kill", "drop")

#: What cleaning does with a job that has no requested time (p~ < 0):
#: ``drop`` it (no estimate to schedule by); give it its ``runtime``
#: (clairvoyant) or ``runtime*K`` (K >= 1); its user's or its partition's
#: largest runtime in the log (``user-max``, ``partition-max``); or a site's
#: maximum walltime (``limit:SECONDS``, e.g. ``limit:86400``; a job that ran
#: longer gets its runtime).  ``auto``: ``drop`` when at most half of the jobs
#: lack one, else ``runtime`` -- the choice made is reported.
REQUEST_CHOICES = ("auto", "drop", "runtime", "runtime*K", "user-max", "partition-max", "limit:SECONDS")

#: How cleaning finds the machine size m when none is given: the header's
#: ``MaxProcs``/``MaxNodes`` (``header``), the log's peak concurrent
#: allocation (``peak``: from the recorded starts, else the largest job), or
#: ``auto``: the header, else the peak -- stated in the report.
MACHINE_CHOICES = ("auto", "header", "peak")

#: Cleaning that removes more than this share of the jobs, or of their
#: processor time, warns (the report, the command line and the notebooks).
WARN_SHARE = 0.10


class CleaningWarning(UserWarning):
    """Cleaning removed a large share of a log, or made a choice for it."""


def request_choice(value) -> str:
    """The canonical text of a missing-requested-time choice (see
    :data:`REQUEST_CHOICES`); raises :class:`InputError` for anything else."""
    text = str(value).strip().lower().replace(" ", "")
    if text in ("auto", "drop", "runtime", "user-max", "partition-max"):
        return text
    if text.startswith("runtime*"):
        try:
            k = float(text[len("runtime*"):])
        except ValueError:
            k = float("nan")
        if np.isfinite(k) and k >= 1:
            return f"runtime*{k:g}"
    if text.startswith("limit:"):
        try:
            seconds = parse_duration(text[len("limit:"):])
        except InputError:
            seconds = None
        if seconds is not None and seconds > 0:
            return f"limit:{seconds}"
    raise InputError(f"request: expected one of {', '.join(REQUEST_CHOICES)} "
                     f"(e.g. runtime*2, limit:86400 or limit:24h), got {value!r}")


#: The largest machine size the core simulates (its processor counts are int32).
MAX_M = 2**31 - 1


def machine_choice(value) -> str | int:
    """``auto``, ``header``, ``peak`` or a machine size (an int in 1 ..
    :data:`MAX_M`): the one parser of a machine size, for every command
    (``-m``, ``--max-procs``, a trace spec's ``?m=``, a study's settings)."""
    number = None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        number = int(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        if text in MACHINE_CHOICES:
            return text
        if text.isascii() and text.isdigit():
            number = int(text)
    elif value is None:
        return "auto"
    if number is not None and 1 <= number <= MAX_M:
        return number
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    if number is not None and number > MAX_M:
        raise InputError(f"machine: {shown} processors: more than the core simulates ({MAX_M})")
    raise InputError(f"machine: expected {', '.join(MACHINE_CHOICES)} or a positive integer, got {shown}")


def machine_size(value) -> int:
    """A machine size given as a number (``schedlab check -m``,
    ``--max-procs``): :func:`machine_choice`'s rules, no named choice."""
    m = machine_choice(value)
    if not isinstance(m, int):
        raise InputError(f"machine: expected a positive integer here, got {value!r}")
    return m


@dataclass
class CleanReport:
    """What cleaning did: the choices it made (``choices``: name -> value,
    each as stated in provenance and text), (step, jobs affected, action,
    reason) rows, the machine size used and where it came from, the share of
    jobs and of processor time removed, and ``warnings``."""

    source: str
    jobs_in: int
    jobs_out: int = 0
    steps: list[tuple[str, int, str, str]] = field(default_factory=list)
    choices: dict = field(default_factory=dict)
    m: int | None = None
    m_source: str = ""
    work_in: float = 0.0
    work_out: float = 0.0
    #: share of the kept jobs whose wait the log records
    waits_recorded: float = 1.0
    warnings: list[str] = field(default_factory=list)

    def add(self, step: str, count: int, action: str, reason: str) -> None:
        self.steps.append((step, int(count), action, reason))

    @property
    def removed_share(self) -> float:
        """Share of the log's jobs that cleaning removed."""
        return 1 - self.jobs_out / self.jobs_in if self.jobs_in else 0.0

    @property
    def removed_work_share(self) -> float:
        """Share of the log's processor time (runtime x processors, over the
        jobs whose runtime and processors are known) that cleaning removed."""
        return 1 - self.work_out / self.work_in if self.work_in > 0 else 0.0

    def record(self) -> dict:
        """Plain data for provenance: choices, m, counts, shares, warnings."""
        return {"choices": dict(self.choices), "m": self.m, "m_source": self.m_source,
                "jobs_in": self.jobs_in, "jobs_out": self.jobs_out,
                "removed_share": round(self.removed_share, 6),
                "removed_work_share": round(self.removed_work_share, 6),
                "waits_recorded": round(self.waits_recorded, 6),
                "steps": [list(s) for s in self.steps], "warnings": list(self.warnings)}

    def __str__(self) -> str:
        lines = [f"cleaning {self.source}: {self.jobs_in} jobs in, {self.jobs_out} out "
                 f"({100 * self.removed_share:.1f} % of the jobs and {100 * self.removed_work_share:.1f} % "
                 f"of the processor time removed)"]
        if self.choices:
            lines.append("  choices: " + ", ".join(f"{k}={v}" for k, v in self.choices.items()))
        if self.m is not None:
            lines.append(f"  machine: m = {self.m} ({self.m_source})")
        lines += [f"  {step:<14} {count:>8} {action:<9} {reason}" for step, count, action, reason in self.steps]
        lines += [f"  WARNING: {w}" for w in self.warnings]
        return "\n".join(lines)


def peak_allocation(trace) -> tuple[int, str]:
    """The log's peak number of processors in use at once, from its recorded
    starts (submit + wait) and runtimes and the allocated (else requested)
    processors; when the log records no start, its largest job.  Returns
    (peak, how it was found)."""
    f = trace.fields
    q = np.where(f["alloc_procs"] > 0, f["alloc_procs"], f["req_procs"])
    ok = (q > 0) & (f["run"] >= 0) & (f["wait"] >= 0) & (f["submit"] >= 0)
    if ok.any():
        start = f["submit"][ok] + f["wait"][ok]
        end = start + f["run"][ok]
        t = np.concatenate([start, end])
        d = np.concatenate([q[ok], -q[ok]])
        order = np.lexsort((d, t))              # at one instant, ends before starts
        peak = int(np.cumsum(d[order]).max())
        return peak, f"the log's peak concurrent allocation ({int(ok.sum())} jobs with a recorded start)"
    if (q > 0).any():
        return int(q[q > 0].max()), "the log's largest job (the log records no start times)"
    raise InputError(f"{trace.path}: no job gives its processors and the header has no MaxProcs: "
                     "give the machine size m")


def _requested_times(f, missing, choice: str) -> np.ndarray:
    """p~ with the missing ones filled by ``choice`` (not ``drop``/``auto``)."""
    req = f["req_time"].copy()
    run = np.maximum(f["run"], 0)
    if choice == "runtime":
        fill = run
    elif choice.startswith("runtime*"):
        # Saturated at 2**62 s (beyond the simulator's bound, which then refuses it
        # with a located error): runtime*K of a huge runtime must not wrap around int64.
        fill = np.ceil(np.minimum(run * float(choice[len("runtime*"):]), 2.0**62)).astype(np.int64)
    elif choice.startswith("limit:"):
        fill = np.maximum(run, int(choice[len("limit:"):]))
    else:
        key = f["user"] if choice == "user-max" else f["partition"]
        _, group = np.unique(key, return_inverse=True)
        largest = np.zeros(group.max() + 1 if group.size else 0, np.int64)
        np.maximum.at(largest, group, run)
        fill = largest[group]
    req[missing] = fill[missing]
    return req


def clean(trace, m: int | str | None = None, overrun: str = "kill", request: str = "auto",
          warn_share: float = WARN_SHARE, m_source: str = "given") -> tuple[Jobs, CleanReport]:
    """Jobs from an SWF trace (``schedlab.workloads.swf.SWFTrace``), cleaned.

    * q = requested processors, or allocated when the request is missing
      (<= 0); jobs with neither are removed (online-bandit §6.1.1 (2));
    * jobs whose requested *or* allocated processors exceed m are removed
      (lelong2017 §7.2, online-bandit §6.1.1 (1));
    * negative runtime or submit time: removed (online-bandit §6.1.1 (3));
    * missing requested time (p~ < 0): ``request`` decides (see
      :data:`REQUEST_CHOICES`; ``auto`` removes them, as the papers do,
      unless more than half of the jobs lack one);
    * p > p~: ``overrun="kill"`` (default) keeps them, and the simulator
      kills them at p~; ``overrun="drop"`` removes them (lelong2017 §7.2);
    * p = 0 jobs are kept.

    ``m``: a machine size, or ``"header"``, ``"peak"`` or ``"auto"``/None
    (the header's, else the log's peak concurrent allocation; see
    :func:`peak_allocation`); ``m_source`` says where a given size came
    from (the report and provenance state it).  Every choice lands in the report's
    ``choices``; removing more than ``warn_share`` of the jobs or of the
    processor time, or a choice the log forced, issues a
    :class:`CleaningWarning` and a line in ``report.warnings``.
    """
    import warnings as _warnings

    if overrun not in OVERRUN_CHOICES:
        raise InputError(f"overrun must be one of {OVERRUN_CHOICES}, got {overrun!r}")
    request = request_choice(request)
    machine = machine_choice(m)
    f = trace.fields
    n = trace.n
    rep = CleanReport(str(trace.path), n)
    notes: list[str] = []
    if isinstance(machine, int):
        m, rep.m_source = machine, m_source
    elif machine in ("auto", "header") and trace.max_procs is not None:
        m, rep.m_source = trace.max_procs, "the header's MaxProcs/MaxNodes"
    elif machine == "header":
        raise InputError(f"{trace.path}: no MaxProcs/MaxNodes in the header; give the machine size m "
                         "(or machine=peak: the log's peak concurrent allocation)")
    else:
        m, rep.m_source = peak_allocation(trace)
        if machine == "auto":
            notes.append(f"no MaxProcs/MaxNodes in the header: m = {m}, {rep.m_source}")
    rep.m = int(m)
    req_p, alloc_p = f["req_procs"], f["alloc_procs"]
    q = np.where(req_p > 0, req_p, alloc_p)
    replaced = (req_p <= 0) & (alloc_p > 0)
    keep = np.ones(n, bool)
    work = np.where((f["run"] > 0) & (q > 0), f["run"].astype(float) * np.maximum(q, 0), 0.0)
    rep.work_in = float(work.sum())

    def drop(step, bad, reason):
        bad = bad & keep
        rep.add(step, bad.sum(), "removed", reason)
        keep[bad] = False

    rep.add("procs", replaced.sum(), "replaced", "requested processors missing: allocated used")
    drop("procs", q <= 0, "neither requested nor allocated processors")
    drop("too-large", (req_p > m) | (alloc_p > m), f"requested or allocated processors > m={m}")
    drop("cancelled", (f["status"] == 5) & (f["run"] < 0) & (f["wait"] < 0), "cancelled before starting")
    drop("runtime", f["run"] < 0, "negative runtime")
    drop("submit", f["submit"] < 0, "negative submit time")
    missing = f["req_time"] < 0
    chosen = request
    if request == "auto":
        share = float(missing[keep].mean()) if keep.any() else 0.0
        chosen = "drop" if share <= 0.5 else "runtime"
        if chosen != "drop":
            notes.append(f"{100 * share:.0f} % of the jobs have no requested time: "
                         f"request=runtime (each such job gets its runtime as p~: clairvoyant)")
    req_time = f["req_time"]
    if chosen == "drop":
        drop("request", missing, "missing requested time")
    else:
        req_time = _requested_times(f, missing, chosen)
        rep.add("request", (missing & keep).sum(), "filled", f"missing requested time: p~ = {chosen}")
    over = (f["run"] > req_time) & (req_time >= 0)
    if overrun == "drop":
        drop("overrun", over, "runtime > requested time (lelong2017 §7.2)")
    else:
        rep.add("overrun", (over & keep).sum(), "kept", "runtime > requested time: killed at p~ by the simulator")
    rep.jobs_out = int(keep.sum())
    rep.work_out = float(work[keep].sum())
    rep.waits_recorded = float((f["wait"][keep] >= 0).mean()) if keep.any() else 0.0
    if keep.any() and rep.waits_recorded == 0:
        notes.append("the log records no waiting time (field 3): where a study needs when a job finished, it "
                     "takes the finish times of an EASY-FCFS simulation of the cleaned log (workload.log_finish)")
    rep.choices = {"request": chosen + (" (auto)" if request == "auto" else ""), "overrun": overrun,
                   "machine": f"{machine} (m = {rep.m})" if isinstance(machine, str)
                   else f"{m_source} (m = {rep.m})"}
    if rep.removed_share > warn_share or rep.removed_work_share > warn_share:
        notes.append(f"cleaning removed {100 * rep.removed_share:.1f} % of the jobs and "
                     f"{100 * rep.removed_work_share:.1f} % of the processor time "
                     f"(more than {100 * warn_share:.0f} %): see the cleaning report")
    if rep.jobs_out == 0:
        why = "; ".join(f"{count} {reason}" for _, count, action, reason in rep.steps
                        if count and action == "removed")
        raise InputError(f"{trace.path}: no jobs left after cleaning ({n} in the file, m = {rep.m}): {why}")
    for note in notes:
        rep.warnings.append(note)
        _warnings.warn(f"{trace.path}: {note}", CleaningWarning, stacklevel=2)
    jobs = Jobs(f["submit"][keep], f["run"][keep], req_time[keep], q[keep],
                f["job_id"][keep], f["user"][keep], str(trace.path), trace.lines[keep])
    return jobs.sorted(), rep


# ---------------------------------------------------------------- helpers --

def _need_jobs(jobs, what: str) -> None:
    if not isinstance(jobs, Jobs):
        raise InputError(f"{what}: jobs must be a schedlab.engine.sim.Jobs, got {type(jobs).__name__}")


def _integer(x, what: str) -> int:
    """An exact integer from an int, a numpy integer or an integral float."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer, float, np.floating)):
        raise InputError(f"{what} must be an integer, got {x!r}")
    if isinstance(x, (float, np.floating)) and not (np.isfinite(x) and float(x).is_integer()):
        raise InputError(f"{what} must be an integer, got {x!r}")
    return int(x)


def _count(x, what: str) -> int:
    v = _integer(x, what)
    if v < 0:
        raise InputError(f"{what} must be >= 0, got {x!r}")
    return v


def _seconds(x, what: str) -> int:
    """A positive duration in seconds: 604800, "7d", "1w", "90m", ..."""
    if isinstance(x, bool):
        raise InputError(f"{what} must be a positive duration, got {x!r}")
    try:
        v = parse_duration(x)
    except InputError as exc:
        raise InputError(f"{what}: {exc}") from None
    if v is None or v <= 0:
        raise InputError(f"{what} must be a positive duration in seconds, got {x!r}")
    return v


def _rng(seed) -> np.random.Generator:
    """A Generator from an int seed, a SeedSequence or a Generator (used as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return np.random.default_rng(int(seed))
    raise InputError(f"seed must be a non-negative int, a numpy SeedSequence or a numpy Generator, "
                     f"got {seed!r} (None is refused: a resampled trace must be reproducible)")


# ------------------------------------------------------------- resampling --

@dataclass(frozen=True, eq=False)
class Resampled:
    """A resampled trace and where each of its jobs comes from.

    ``jobs`` holds all resampled weeks in one trace: sorted by submit time
    (ties by source job index), ids 1..n, ``user`` kept from the source
    (and ``lines``, the source file lines, when the source had them).
    Resampled week ``i`` covers ``[origin + i*week_length, origin +
    (i+1)*week_length)`` in submit time (jobs may run past its end).

    Per resampled job ``j`` (arrays aligned with ``jobs``):

    * ``source_index[j]`` -- index of the job in the source ``Jobs`` it
      copies (so ``source.id[source_index]`` are the original ids, see
      :attr:`source_id`);
    * ``source_week[j]`` -- the source week it was taken from, 0-based from
      ``start`` (week ``w`` is ``[start + w*week_length, start +
      (w+1)*week_length)``);
    * ``week[j]`` -- its resampled week, 0..n_weeks-1 (non-decreasing).

    ``draws[i, k]`` is the source week drawn for user ``users[k]`` in
    resampled week ``i`` -- recorded even when that user submitted nothing
    in that week (the draw then adds no job).  ``n_source_weeks`` is the
    number of weeks the source span was cut into, from ``start`` (trace
    time); ``origin`` is where resampled week 0 starts; ``source`` is the
    source ``Jobs``.  :meth:`week_jobs` and :meth:`weeks` give each
    resampled week as its own trace starting at time 0.
    """

    jobs: Jobs
    source_index: np.ndarray
    source_week: np.ndarray
    week: np.ndarray
    draws: np.ndarray
    users: np.ndarray
    week_length: int
    start: int
    origin: int
    n_source_weeks: int
    source: Jobs = field(repr=False)

    def __len__(self) -> int:
        return len(self.jobs)

    def __repr__(self) -> str:
        return (f"Resampled(n_weeks={self.n_weeks}, jobs={len(self.jobs)}, users={self.users.size}, "
                f"week_length={self.week_length}, start={self.start}, origin={self.origin}, "
                f"n_source_weeks={self.n_source_weeks})")

    @property
    def n_weeks(self) -> int:
        return int(self.draws.shape[0])

    @property
    def source_id(self) -> np.ndarray:
        """Original job id of each resampled job."""
        return self.source.id[self.source_index]

    @property
    def week_bounds(self) -> np.ndarray:
        """``jobs`` positions: week ``i`` is ``jobs[week_bounds[i]:week_bounds[i+1]]``."""
        return np.searchsorted(self.week, np.arange(self.n_weeks + 1))

    def week_jobs(self, i: int) -> Jobs:
        """Resampled week ``i`` as its own trace: submit times relative to
        the week's start (so in ``[0, week_length)``), ids 1..n_i."""
        i = _integer(i, "week")
        if not 0 <= i < self.n_weeks:
            raise InputError(f"week {i} out of range 0..{self.n_weeks - 1}")
        b = self.week_bounds
        s = slice(int(b[i]), int(b[i + 1]))
        j = self.jobs
        return Jobs(j.submit[s] - (self.origin + i * self.week_length), j.run[s], j.req[s],
                    j.procs[s], None, j.user[s], j.source, None if j.lines is None else j.lines[s],
                    _pick_columns(j, s))

    def weeks(self) -> list[Jobs]:
        """Every resampled week as its own trace (see :meth:`week_jobs`)."""
        return [self.week_jobs(i) for i in range(self.n_weeks)]


def _pick_columns(jobs: Jobs, index) -> dict | None:
    """The per-job columns of the jobs ``index`` selects (a copied job keeps its source job's values)."""
    return None if jobs.columns is None else {k: v[index] for k, v in jobs.columns.items()}


def resample(jobs: Jobs, n_weeks: int, seed, *, week=WEEK, start=None, stop=None,
             users_active_only: bool = False, origin: int = 0) -> Resampled:
    """Per-user weekly resampling of a trace (needs ``jobs.user``).

    The source is cut into consecutive weeks of ``week`` seconds from
    ``start`` (default: its first submit time) up to ``stop`` (exclusive;
    default: just after its last submit), the last one usually partial.
    Only jobs submitted in ``[start, stop)`` are used; their users are "the
    users of the source" (a missing SWF user, -1, is one user like any other).
    For each resampled week ``i`` in 0..n_weeks-1 and each user, one source
    week is drawn uniformly at random, independently, with replacement:

    * ``users_active_only=False`` (default): among *all* weeks of the
      source span.  A user drawn on a week where they submitted nothing
      contributes nothing, so users keep their share of inactivity and a
      resampled week carries, in expectation, the mean weekly load of the
      source.  This is online-bandit §6.1.3 ("we choose a week of the
      original trace uniformly at random") and, read that way, lelong2017
      §4.1 and thesis Algorithm 2 (whose user profile is the user's
      activity "split into many weekly time periods").
    * ``users_active_only=True``: among the weeks in which that user
      submitted at least one job.  Every user is then active in every
      resampled week, which inflates the load by the ratio of users to
      mean active users per week: the offered load of KTH-SP2 goes from
      0.70 to 1.65, SDSC-BLUE's from 0.77 to 3.1, CEA-Curie's from 0.72 to
      1.4 (an overloaded machine, waits of days).  Offered for comparison,
      not as the papers' method.

    All of that user's jobs of the drawn week are copied into resampled week
    ``i``, keeping their offset in the week: a job submitted at ``start +
    w*week + d`` becomes ``origin + i*week + d`` (``origin`` defaults to 0).
    Runtime, request, processors, user and the per-job columns
    (``Jobs.columns``: a resampled job has its source job's values) are kept.

    ``seed`` is a non-negative int, a ``numpy.random.SeedSequence`` or a
    ``numpy.random.Generator`` (used, and advanced, as is): the same seed
    gives the same trace.  Returns a :class:`Resampled` (the trace plus, per
    job, its source index, source week and resampled week).

    Cost: one sort of the source by (user, week), then per draw a binary
    search and a slice gather -- all vectorised -- and a sort of each
    resampled week; e.g. 250 weeks of the cleaned CEA-Curie trace (2.2
    million jobs) in about 0.2 s.
    """
    _need_jobs(jobs, "resample")
    if jobs.user is None:
        raise InputError("resample: the jobs have no user field (jobs.user is None); per-user "
                         "resampling needs one -- build Jobs(..., user=...) or use workload.clean()")
    n_weeks = _count(n_weeks, "n_weeks")
    rng = _rng(seed)
    week = _seconds(week, "week")
    origin = _integer(origin, "origin")
    if len(jobs) == 0:
        raise InputError("resample: no jobs to resample")
    sub = jobs.submit
    t0 = int(sub.min()) if start is None else _integer(start, "start")
    t1 = int(sub.max()) + 1 if stop is None else _integer(stop, "stop")
    if t1 <= t0:
        raise InputError(f"resample: stop={t1} must be after start={t0}")
    sel = np.flatnonzero((sub >= t0) & (sub < t1))
    if sel.size == 0:
        raise InputError(f"resample: no job submitted in [start={t0}, stop={t1})")
    n_src = (t1 - t0 + week - 1) // week

    # Group the source jobs by (user, week) once: a stable sort on the key
    # user_rank * n_src + week keeps each group in input (submit) order.
    users, uidx = np.unique(jobs.user[sel], return_inverse=True)
    n_users = int(users.size)
    key = uidx.reshape(-1).astype(np.int64) * n_src + (sub[sel] - t0) // week
    order = np.argsort(key, kind="stable")
    skey, ssrc = key[order], sel[order]

    if users_active_only:
        groups = skey[np.r_[True, skey[1:] != skey[:-1]]]           # distinct (user, week), sorted
        per_user = np.bincount(groups // n_src, minlength=n_users)  # >= 1 for every user
        first = np.cumsum(per_user) - per_user
        pick = rng.integers(0, per_user, size=(n_weeks, n_users))
        draws = groups[first + pick] % n_src
    else:
        draws = rng.integers(0, n_src, size=(n_weeks, n_users))
    draws = np.asarray(draws, dtype=np.int64).reshape(n_weeks, n_users)

    # Cell c = (i, k) in row-major order: its jobs are skey's run of key
    # q[c]; a job of source week w copied into week i is shifted by (i - w) weeks.
    q = (np.arange(n_users, dtype=np.int64) * n_src + draws).ravel()
    lo = np.searchsorted(skey, q, "left")
    cnt = np.searchsorted(skey, q, "right") - lo
    total = int(cnt.sum())
    pos = np.arange(total, dtype=np.int64) + np.repeat(lo - (np.cumsum(cnt) - cnt), cnt)
    src = ssrc[pos]
    shift = ((np.arange(n_weeks, dtype=np.int64)[:, None] - draws) * week).ravel() - t0
    rel = sub[src] + np.repeat(shift, cnt)          # time since origin, in [0, n_weeks*week)

    # Sort by (new submit, source index): unique pairs, as one user (hence
    # one source job) is drawn once per resampled week.
    n = len(jobs)
    if total and n_weeks * week < (2**62) // n:
        # One int64 key per job.  The jobs are already grouped by resampled
        # week (cells are in (week, user) order), so sorting each week's
        # block sorts them all -- in cache, ~3x faster than one argsort.
        key = rel * n + src
        b0 = 0
        for b1 in np.cumsum(cnt.reshape(n_weeks, n_users).sum(axis=1)).tolist():
            key[b0:b1].sort()
            b0 = b1
        rel, src = np.divmod(key, n)
    else:
        o = np.lexsort((src, rel))
        src, rel = src[o], rel[o]
    rweek = rel // week
    sweek = (sub[src] - t0) // week
    label = None if jobs.source is None else f"{jobs.source} (resampled)"
    out = Jobs(origin + rel, jobs.run[src], jobs.req[src], jobs.procs[src], None,
               jobs.user[src], label, None if jobs.lines is None else jobs.lines[src], _pick_columns(jobs, src))
    for a in (src, rweek, sweek, draws, users):
        a.setflags(write=False)
    return Resampled(out, src, sweek, rweek, draws, users, week, t0, origin, int(n_src), jobs)


def resample_weeks(jobs: Jobs, n_weeks: int, seed, **kw) -> list[Jobs]:
    """``n_weeks`` resampled weeks, each its own trace starting at time 0
    (lelong2017 §4.1: week-long logs simulated separately).  Same arguments
    as :func:`resample`, and the same weeks: ``resample_weeks(j, n, s)[i]``
    is ``resample(j, n, s).week_jobs(i)``."""
    return resample(jobs, n_weeks, seed, **kw).weeks()


# ------------------------------------------------------------------ split --

SPLIT_BY = ("time", "jobs")


def split(jobs: Jobs, at: float = 0.5, *, by: str = "time") -> tuple[Jobs, Jobs]:
    """Temporal train/test split: ``(train, test)``.

    ``by="time"`` (default; lelong2017 §7.1 "split at temporal midpoint"):
    the cut is ``t = r_min + at * (r_max - r_min)`` over the submit times;
    train holds the jobs submitted before ``t``, test those at or after it.
    ``by="jobs"``: the cut is the submit time of the ``round(at * n)``-th
    job in submit order, so train holds about ``at * n`` jobs (fewer when
    jobs tie with that submit time: a tie is never cut).  Either way every
    train submit is < every test submit, no job is in both and together
    they are all the jobs.  The halves keep their absolute times, ids and
    users (and input order); resampling a half draws only from that half.
    """
    _need_jobs(jobs, "split")
    if by not in SPLIT_BY:
        raise InputError(f"split: by must be one of {SPLIT_BY}, got {by!r}")
    if isinstance(at, bool) or not isinstance(at, (int, float, np.integer, np.floating)) \
            or not 0 < float(at) < 1:
        raise InputError(f"split: at must be a fraction strictly between 0 and 1, got {at!r}")
    n = len(jobs)
    if n == 0:
        raise InputError("split: no jobs to split")
    sub = jobs.submit
    if by == "time":
        lo, hi = int(sub.min()), int(sub.max())
        train = (sub - lo) < float(at) * (hi - lo)
    else:
        k = min(int(round(float(at) * n)), n - 1)
        cut = np.partition(sub, k)[k]
        train = sub < cut
    return jobs.subset(train), jobs.subset(~train)


# ---------------------------------------------------------------- periods --

#: Calendar-free periods, in seconds.
FIXED_PERIODS = {"day": DAY, "week": WEEK, "month": MONTH}
#: Calendar periods: Monday 00:00 / the 1st 00:00, local time.
CALENDAR_PERIODS = ("calendar-week", "calendar-month")
CROSSING_CHOICES = ("keep", "drop")


def _zone(tz):
    if tz is None:
        return _dt.timezone.utc
    if isinstance(tz, _dt.tzinfo):
        return tz
    import zoneinfo
    try:
        return zoneinfo.ZoneInfo(str(tz))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
        raise InputError(f"unknown time zone {tz!r}: {exc}") from None


def _calendar_edges(kind: str, t0: int, last: int, unix_start_time, tz) -> list[int]:
    if unix_start_time is None:
        raise InputError(f"period={kind!r} needs unix_start_time (the SWF header's "
                         "UnixStartTime: SWFTrace.unix_start_time) and a time zone "
                         "(SWFTrace.time_zone_string; default UTC)")
    u0 = _integer(unix_start_time, "unix_start_time")
    zone = _zone(tz)
    here = _dt.datetime.fromtimestamp(u0 + t0, zone)
    if kind == "calendar-month":
        b = here.replace(day=1, hour=0, minute=0, second=0, microsecond=0)

        def step(d):
            return d.replace(year=d.year + d.month // 12, month=d.month % 12 + 1)
    else:
        b = (here - _dt.timedelta(days=here.weekday())).replace(hour=0, minute=0, second=0,
                                                                microsecond=0)

        def step(d):
            return d + _dt.timedelta(days=7)   # wall-clock: DST-aware
    edges = [t0]
    while edges[-1] <= last:
        b = step(b)
        edges.append(int(b.timestamp()) - u0)
    return edges


def period_edges(jobs: Jobs, period="week", *, start=None, unix_start_time=None,
                 tz=None) -> np.ndarray:
    """Boundaries ``e_0 < e_1 < ... < e_K`` of the consecutive periods that
    cover the jobs submitted at or after ``start``: period ``k`` is
    ``[e_k, e_{k+1})`` and ``e_K`` > the last submit time.

    ``e_0`` is ``start`` (default: the first submit time).  ``period`` is
    ``"day"``, ``"week"``, ``"month"`` (30 days: calendar-free), a duration
    in seconds (``3600``, ``"2d"``), or a calendar period,
    ``"calendar-week"`` (Mondays 00:00) or ``"calendar-month"`` (the 1st,
    00:00), local time in ``tz`` (an IANA name such as the SWF header's
    ``TimeZoneString``; default UTC), which needs the trace's
    ``unix_start_time`` (submit time 0 as a Unix time); the first calendar
    period is then the partial one from ``start`` to the next boundary.
    """
    _need_jobs(jobs, "period_edges")
    sub = jobs.submit
    if start is None:
        if len(jobs) == 0:
            raise InputError("period_edges: no jobs (give start to get an empty slicing)")
        t0 = int(sub.min())
    else:
        t0 = _integer(start, "start")
    after = sub[sub >= t0]
    if after.size == 0:
        return np.array([t0], dtype=np.int64)
    last = int(after.max())
    if isinstance(period, str) and period.strip().lower() in CALENDAR_PERIODS:
        return np.asarray(_calendar_edges(period.strip().lower(), t0, last, unix_start_time, tz),
                          dtype=np.int64)
    if isinstance(period, str) and period.strip().lower() in FIXED_PERIODS:
        length = FIXED_PERIODS[period.strip().lower()]
    else:
        try:
            length = _seconds(period, "period")
        except InputError:
            raise InputError(f"period must be one of {sorted(FIXED_PERIODS)}, {CALENDAR_PERIODS} "
                             f"or a positive duration in seconds, got {period!r}") from None
    k = (last - t0) // length + 1
    return t0 + length * np.arange(k + 1, dtype=np.int64)


def _finish_times(jobs: Jobs, finish) -> np.ndarray:
    if isinstance(finish, str):
        if finish == "run":
            return jobs.submit + jobs.run
        if finish == "req":
            return jobs.submit + jobs.req
        raise InputError(f"finish must be 'run', 'req' or an array of finish times, got {finish!r}")
    a = np.asarray(finish)
    if a.ndim != 1 or a.shape[0] != len(jobs):
        raise InputError(f"finish: expected {len(jobs)} finish times, got shape {a.shape}")
    if a.dtype.kind not in "iu":
        if a.dtype.kind != "f" or not np.all(np.isfinite(a)):
            raise InputError(f"finish: expected integer times, got dtype {a.dtype}")
    return a


def weeks(jobs: Jobs, *, period="week", crossing: str = "keep", start=None, skip_first: int = 0,
          finish="run", shift: bool = False, unix_start_time=None, tz=None) -> list[Jobs]:
    """The trace cut into its consecutive periods (weeks by default).

    Job j belongs to period ``k`` of :func:`period_edges` when ``e_k <= r_j
    < e_{k+1}`` (by submit time; jobs submitted before ``start`` belong to
    none).  Returns one ``Jobs`` per period, ``skip_first`` onwards (the
    thesis §5.2 drops the first period: ``skip_first=1``), empty periods
    included, so element ``i`` is period ``skip_first + i``.  Each slice is
    a :meth:`Jobs.subset`: ids, users, lines and input order are kept, and
    times stay absolute unless ``shift=True``, which subtracts the period's
    start ``e_k`` (submit times then lie in ``[0, e_{k+1} - e_k)``).

    ``crossing="drop"`` removes the jobs that cross the period's end, i.e.
    whose finish time is after ``e_{k+1}`` (a job ending exactly at the
    boundary stays).  The thesis (§5.2: "remove the jobs that start in one
    week and finish in another") used the log's own start and finish; a
    schedule-free finish is needed here, chosen by ``finish``:

    * ``"run"`` (default): ``r_j + p_j``, the earliest the job can end --
      drops only the jobs that cannot fit in the period whatever the schedule;
    * ``"req"``: ``r_j + p~_j``, the end the scheduler plans for if started
      at once;
    * an array of per-job finish times, e.g. :func:`recorded_finish` (the
      log's ``r_j + wait_j + p_j``), as in the thesis.  Note that a job
      submitted in week k that the log started and finished in week k+1
      crosses here (its slice is the submit week), while the thesis'
      wording would keep it, in some week.

    ``crossing="keep"`` (default) keeps every job.
    """
    _need_jobs(jobs, "weeks")
    if crossing not in CROSSING_CHOICES:
        raise InputError(f"crossing must be one of {CROSSING_CHOICES}, got {crossing!r}")
    skip_first = _count(skip_first, "skip_first")
    if len(jobs) == 0 and start is None:
        return []
    edges = period_edges(jobs, period, start=start, unix_start_time=unix_start_time, tz=tz)
    n_periods = edges.size - 1
    k = np.searchsorted(edges, jobs.submit, "right") - 1    # -1: before start
    keep = k >= 0
    if crossing == "drop":
        fin = _finish_times(jobs, finish)
        keep &= ~(fin > edges[np.clip(k + 1, 0, n_periods)])
    idx = np.flatnonzero(keep)
    idx = idx[np.argsort(k[idx], kind="stable")]
    bounds = np.searchsorted(k[idx], np.arange(n_periods + 1))
    out = []
    for p in range(skip_first, n_periods):
        part = jobs.subset(idx[bounds[p]:bounds[p + 1]])
        if shift:
            part = Jobs(part.submit - edges[p], part.run, part.req, part.procs, part.id,
                        part.user, part.source, part.lines, part.columns)
        out.append(part)
    return out


def log_waits(trace, jobs: Jobs, what: str = "recorded_finish") -> np.ndarray:
    """Each job's wait as the log records it (-1 where it has none),
    matched to the rows of ``trace`` (the ``SWFTrace`` the jobs were cleaned
    from) by their file line numbers, ``jobs.lines``, which :func:`clean`,
    ``Jobs.subset``, :func:`weeks` and :func:`resample` keep."""
    _need_jobs(jobs, what)
    if jobs.lines is None:
        raise InputError(f"{what}: the jobs carry no source line numbers (jobs.lines); "
                         "use jobs from workload.clean(trace)")
    tl = np.asarray(trace.lines)
    rows = np.clip(np.searchsorted(tl, jobs.lines), 0, max(tl.size - 1, 0))
    if tl.size == 0 or np.any(tl[rows] != jobs.lines):
        raise InputError(f"{what}: some jobs' lines are not job lines of {trace.path}: "
                         "were the jobs cleaned from this trace?")
    return trace.fields["wait"][rows]


def recorded_finish(trace, jobs: Jobs) -> np.ndarray:
    """Each job's finish time in the original log, ``r_j + wait_j + p_j``,
    in the jobs' own time frame (so it also fits shifted slices and
    resampled jobs), for ``weeks(..., finish=recorded_finish(trace, jobs))``;
    jobs are matched to the log by :func:`log_waits`.  A missing wait (-1)
    counts as 0 (the finish is then a lower bound); see :func:`log_finish`
    for a log that records no wait at all.
    """
    return jobs.submit + np.maximum(log_waits(trace, jobs), 0) + jobs.run


def log_finish(trace, jobs: Jobs, m: int) -> tuple[np.ndarray, str]:
    """Each job's finish time as the log records it (:func:`recorded_finish`,
    rule ``"recorded"``), or -- when the log records no wait for any of the
    jobs -- as an EASY-FCFS-FCFS simulation of ``jobs`` on ``m`` processors
    gives it (rule ``"easy-fcfs"``; the cleaning report says the log has no
    waits).  Returns (finish times, rule)."""
    waits = log_waits(trace, jobs, "log_finish")
    if len(jobs) == 0 or np.any(waits >= 0):
        return jobs.submit + np.maximum(waits, 0) + jobs.run, "recorded"
    from ..engine.sim import simulate

    return np.asarray(simulate(jobs, m, "EASY-FCFS-FCFS").end, dtype=np.int64), "easy-fcfs"
