"""Tests of schedlab.workloads.workload: cleaning, per-user weekly resampling, the
train/test split and period slicing, on small hand-made traces whose every
job is known."""
from __future__ import annotations

import datetime as dt
import zoneinfo

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.workloads import traces, workload
from schedlab.errors import InputError
from schedlab.engine.sim import Jobs
from schedlab.workloads.swf import read_swf, write_swf
from schedlab.workloads.workload import (CleaningWarning, Resampled, clean, peak_allocation, period_edges, recorded_finish, resample, resample_weeks, split, weeks)

W = 7 * 86400
T0 = 5000                       # first submit of the generated trace
USERS = (17, 3, 42, 100, 7)     # non-contiguous ids, not sorted
# Weeks in which each user submits (10 source weeks, 0..9).
ACTIVE = {17: range(10), 3: range(0, 10, 2), 42: (2, 7), 100: (1, 2, 3, 9), 7: (5,)}


def make_trace(seed: int = 0) -> Jobs:
    """5 users over 10 weeks.  Each job's req encodes where it comes from:
    req = 1_000_000 * user + 1000 * week + j; run is unique (its index)."""
    rng = np.random.default_rng(seed)
    rows = []
    for u in USERS:
        for w in ACTIVE[u]:
            offsets = rng.integers(0, W, size=int(rng.integers(1, 6)))
            if u == 17 and w == 0:
                offsets[0] = 0              # the trace starts at T0 exactly
            if u in (17, 3) and w == 2:
                offsets[0] = 3600           # a tie between two users
            for j, off in enumerate(offsets):
                rows.append((T0 + w * W + int(off), 1_000_000 * u + 1000 * w + j, int(rng.integers(1, 9)), u))
    rows.sort(key=lambda r: (r[0], r[1]))
    a = np.array(rows, dtype=np.int64)
    return Jobs(submit=a[:, 0], run=np.arange(len(a)) + 1, req=a[:, 1], procs=a[:, 2],
                user=a[:, 3])


JOBS = make_trace()


def _source_week(jobs: Jobs, start=T0, week=W):
    return (jobs.submit - start) // week


def check_resampled(r: Resampled, src: Jobs, start: int, week: int, origin: int = 0):
    """Every invariant of a resampled trace against its source."""
    j = r.jobs
    n = len(j)
    assert r.source is src
    assert j.id.tolist() == list(range(1, n + 1))
    assert r.source_index.shape == r.source_week.shape == r.week.shape == (n,)
    # Sorted by submit time, ties by source index (deterministic).
    order = np.lexsort((r.source_index, j.submit))
    assert np.array_equal(order, np.arange(n))
    # Contents copied from the source job it names.
    si = r.source_index
    for f in ("run", "req", "procs", "user"):
        assert np.array_equal(getattr(j, f), getattr(src, f)[si]), f
    # Source week and offset within the week preserved.
    assert np.array_equal(r.source_week, (src.submit[si] - start) // week)
    offset = src.submit[si] - start - r.source_week * week
    assert np.all((0 <= offset) & (offset < week))
    assert np.array_equal(j.submit, origin + r.week * week + offset)
    assert np.all(np.diff(r.week) >= 0)
    # Each (resampled week, user) is exactly the whole of that user's jobs in
    # the single source week drawn for them.
    users = list(r.users)
    assert sorted(users) == users
    sw_all = (src.submit - start) // week
    in_range = src.submit >= start
    for i in range(r.n_weeks):
        for k, u in enumerate(users):
            mine = (r.week == i) & (j.user == u)
            want = np.flatnonzero(in_range & (src.user == u) & (sw_all == r.draws[i, k]))
            assert sorted(si[mine].tolist()) == want.tolist(), (i, u)
            assert set(r.source_week[mine].tolist()) <= {int(r.draws[i, k])}


# ------------------------------------------------------------- resampling --

@pytest.mark.parametrize("active_only", [False, True])
def test_resample_user_weeks_come_whole_from_one_source_week(active_only):
    r = resample(JOBS, 40, 1, users_active_only=active_only)
    assert isinstance(r, Resampled)
    assert r.n_weeks == 40 and r.draws.shape == (40, len(USERS))
    assert r.n_source_weeks == 10 and r.start == T0 and r.origin == 0 and r.week_length == W
    assert r.users.tolist() == sorted(USERS)
    check_resampled(r, JOBS, T0, W)
    # The req field encodes (user, source week): read it back from the content.
    req = r.jobs.req
    assert np.array_equal(req // 1_000_000, r.jobs.user)
    assert np.array_equal(req // 1000 % 1000, r.source_week)
    for i in range(r.n_weeks):
        for u in USERS:
            got = set((req[(r.week == i) & (r.jobs.user == u)] // 1000 % 1000).tolist())
            assert len(got) <= 1


def test_resample_keeps_offsets_within_the_week_and_origin():
    r = resample(JOBS, 12, 7, origin=1_000_000)
    check_resampled(r, JOBS, T0, W, origin=1_000_000)
    off_new = r.jobs.submit - 1_000_000 - r.week * W
    off_src = JOBS.submit[r.source_index] - T0 - r.source_week * W
    assert np.array_equal(off_new, off_src)
    assert r.jobs.submit.min() >= 1_000_000 and r.jobs.submit.max() < 1_000_000 + 12 * W


def test_resample_tie_between_users_broken_by_source_index():
    # Users 17 and 3 both submit at offset 3600 of source week 2: force the
    # draw of week 2 for everybody by resampling only that week.
    r = resample(JOBS, 3, 0, start=T0 + 2 * W, stop=T0 + 3 * W)
    assert r.n_source_weeks == 1 and (r.draws == 0).all()
    tied = np.flatnonzero(r.jobs.submit % W == 3600)
    assert len(tied) == 3 * 2
    for i in range(3):
        t = tied[r.week[tied] == i]
        assert len(t) == 2 and r.source_index[t[0]] < r.source_index[t[1]]
    check_resampled(r, JOBS, T0 + 2 * W, W)


def test_resample_same_seed_same_trace_different_seed_different():
    a = resample(JOBS, 30, 123)
    b = resample(JOBS, 30, 123)
    c = resample(JOBS, 30, np.random.default_rng(123))
    d = resample(JOBS, 30, np.random.SeedSequence(123))
    for x in (b, c, d):
        assert np.array_equal(a.draws, x.draws)
        for f in ("submit", "run", "req", "procs", "id", "user"):
            assert np.array_equal(getattr(a.jobs, f), getattr(x.jobs, f))
        assert np.array_equal(a.source_index, x.source_index)
    e = resample(JOBS, 30, 124)
    assert not np.array_equal(a.draws, e.draws)
    assert len(a.jobs) != len(e.jobs) or not np.array_equal(a.jobs.submit, e.jobs.submit)
    # A Generator is used (and advanced) as is: two calls draw different weeks.
    g = np.random.default_rng(9)
    assert not np.array_equal(resample(JOBS, 30, g).draws, resample(JOBS, 30, g).draws)


@pytest.mark.parametrize("n_weeks", [0, 1, 3, 37, 250])
def test_resample_produces_the_requested_number_of_weeks(n_weeks):
    r = resample(JOBS, n_weeks, 5)
    assert r.n_weeks == n_weeks and r.draws.shape == (n_weeks, 5)
    if len(r.jobs):
        assert 0 <= r.week.min() and r.week.max() < n_weeks
    ws = resample_weeks(JOBS, n_weeks, 5)
    assert len(ws) == n_weeks
    b = r.week_bounds
    assert b[0] == 0 and b[-1] == len(r.jobs)
    for i, wk in enumerate(ws):
        assert len(wk) == b[i + 1] - b[i] == int((r.week == i).sum())
        assert wk.id.tolist() == list(range(1, len(wk) + 1))
        assert np.all((wk.submit >= 0) & (wk.submit < W))
        s = slice(b[i], b[i + 1])
        assert np.array_equal(wk.submit, r.jobs.submit[s] - i * W)
        assert np.array_equal(wk.req, r.jobs.req[s]) and np.array_equal(wk.user, r.jobs.user[s])


def test_users_active_only_draws_only_active_weeks_default_draws_all_uniformly():
    n = 2000
    act = resample(JOBS, n, 3, users_active_only=True)
    dflt = resample(JOBS, n, 3)
    for k, u in enumerate(act.users.tolist()):
        assert set(act.draws[:, k].tolist()) == set(ACTIVE[u])
        # Uniform among the active weeks.
        counts = np.bincount(act.draws[:, k], minlength=10)[list(ACTIVE[u])]
        expect = n / len(ACTIVE[u])
        assert np.all(np.abs(counts - expect) < 5 * np.sqrt(expect)), (u, counts)
        # Default: uniform among all 10 weeks, inactive ones included.
        assert set(dflt.draws[:, k].tolist()) == set(range(10))
        counts = np.bincount(dflt.draws[:, k], minlength=10)
        assert np.all(np.abs(counts - n / 10) < 5 * np.sqrt(n / 10)), (u, counts)
    # Every user is active in every week only with active_only.
    assert all(set(act.jobs.user[act.week == i].tolist()) == set(USERS) for i in range(20))
    # The default keeps the source's mean weekly job count; active_only inflates it.
    mean_src = len(JOBS) / 10
    assert abs(len(dflt.jobs) / n - mean_src) < 0.1 * mean_src
    assert len(act.jobs) / n > 1.5 * mean_src
    check_resampled(act, JOBS, T0, W)


def test_resample_start_stop_and_week_length():
    start, stop = T0 + 3 * W, T0 + 8 * W
    r = resample(JOBS, 20, 4, start=start, stop=stop)
    assert r.n_source_weeks == 5
    src = JOBS.submit[r.source_index]
    assert src.min() >= start and src.max() < stop
    assert r.source_week.max() <= 4
    # Users are those of [start, stop): user 7 (week 5) yes, 42 (weeks 2, 7) yes.
    assert set(r.users.tolist()) == {u for u in USERS if any(3 <= w < 8 for w in ACTIVE[u])}
    check_resampled(r, JOBS, start, W)
    # Another period length: days, given as a duration string.
    d = resample(JOBS, 10, 4, week="1d")
    assert d.week_length == 86400 and d.n_source_weeks == (JOBS.submit.max() - T0) // 86400 + 1
    check_resampled(d, JOBS, T0, 86400)


def test_resample_huge_period_takes_the_overflow_safe_sort():
    # n_weeks * week * n would overflow int64: the (submit, index) sort
    # falls back to lexsort, with the same order and tie-breaking.
    r = resample(JOBS, 3, 0, week=2**56)
    assert r.n_source_weeks == 1 and len(r.jobs) == 3 * len(JOBS)
    check_resampled(r, JOBS, T0, 2**56)
    tied = np.flatnonzero(r.jobs.submit == r.week * 2**56 + 2 * W + 3600)
    assert len(tied) == 6 and np.all(np.diff(r.source_index[tied].reshape(3, 2)) > 0)


def test_resample_errors():
    no_user = Jobs(JOBS.submit, JOBS.run, JOBS.req, JOBS.procs)
    with pytest.raises(InputError, match="user"):
        resample(no_user, 3, 0)
    with pytest.raises(InputError, match="seed"):
        resample(JOBS, 3, None)
    with pytest.raises(InputError, match="seed"):
        resample(JOBS, 3, 1.5)
    with pytest.raises(InputError, match="n_weeks"):
        resample(JOBS, -1, 0)
    with pytest.raises(InputError, match="week"):
        resample(JOBS, 3, 0, week=0)
    with pytest.raises(InputError, match="no job"):
        resample(JOBS, 3, 0, start=T0 + 100 * W, stop=T0 + 101 * W)
    with pytest.raises(InputError, match="stop"):
        resample(JOBS, 3, 0, start=T0 + 100 * W)
    with pytest.raises(InputError):
        resample(JOBS.subset(np.zeros(len(JOBS), bool)), 3, 0)
    with pytest.raises(InputError, match="Jobs"):
        resample({"submit": [1]}, 3, 0)
    with pytest.raises(InputError):
        Resampled.week_jobs(resample(JOBS, 2, 0), 2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_resample_property(data):
    n = data.draw(st.integers(1, 60))
    week = data.draw(st.sampled_from([10, 100, 604800]))
    submit = np.sort(np.array(data.draw(st.lists(st.integers(0, 20 * week), min_size=n, max_size=n))))
    user = np.array(data.draw(st.lists(st.integers(-1, 4), min_size=n, max_size=n)))
    jobs = Jobs(submit, np.arange(n), np.arange(n) * 7, np.ones(n, int), user=user)
    n_weeks = data.draw(st.integers(0, 12))
    seed = data.draw(st.integers(0, 2**32))
    active = data.draw(st.booleans())
    r = resample(jobs, n_weeks, seed, week=week, users_active_only=active)
    check_resampled(r, jobs, int(submit.min()), week)
    if active:
        sw = (submit - submit.min()) // week
        for k, u in enumerate(r.users.tolist()):
            assert set(r.draws[:, k].tolist()) <= set(sw[user == u].tolist())


def test_resample_real_trace_keeps_the_weekly_job_count():
    jobs, _ = clean(traces.load("KTH-SP2"), m=100)
    r = resample(jobs, 250, 2024)
    assert len(r.users) == len(np.unique(jobs.user))
    for f in ("run", "req", "procs", "user"):
        assert np.array_equal(getattr(r.jobs, f), getattr(jobs, f)[r.source_index])
    off = jobs.submit[r.source_index] - r.start - r.source_week * W
    assert np.array_equal(r.jobs.submit, r.week * W + off) and off.min() >= 0 and off.max() < W
    per_week_src = len(jobs) / r.n_source_weeks
    assert abs(len(r.jobs) / 250 - per_week_src) < 0.15 * per_week_src
    assert r.jobs.source.endswith("(resampled)")
    assert np.array_equal(r.jobs.lines, jobs.lines[r.source_index])


# ------------------------------------------------------------------ split --

def _check_halves(train: Jobs, test: Jobs, src: Jobs):
    assert len(train) + len(test) == len(src)
    assert set(train.id.tolist()).isdisjoint(test.id.tolist())
    assert sorted(train.id.tolist() + test.id.tolist()) == sorted(src.id.tolist())
    assert train.submit.max() < test.submit.min()


def test_split_at_the_temporal_midpoint():
    train, test = split(JOBS)
    _check_halves(train, test, JOBS)
    lo, hi = JOBS.submit.min(), JOBS.submit.max()
    mid = lo + (hi - lo) / 2
    assert np.all(train.submit < mid) and np.all(test.submit >= mid)
    assert np.array_equal(train.user, JOBS.user[JOBS.submit < mid])
    tr, te = split(JOBS, 0.25)
    _check_halves(tr, te, JOBS)
    assert np.all(tr.submit < lo + (hi - lo) * 0.25)
    assert np.all(te.submit >= lo + (hi - lo) * 0.25)


def test_split_exact_cut_in_time_and_in_jobs():
    j = Jobs(submit=[0, 1, 2, 5, 5, 5, 6, 10], run=[1] * 8, req=[1] * 8, procs=[1] * 8,
             user=[1] * 8)
    train, test = split(j)                    # midpoint 5: jobs at 5 go to test
    assert train.submit.tolist() == [0, 1, 2] and test.submit.tolist() == [5, 5, 5, 6, 10]
    train, test = split(j, by="jobs")         # 4th job is at 5: the tie is not cut
    assert train.submit.tolist() == [0, 1, 2] and test.submit.tolist() == [5, 5, 5, 6, 10]
    train, test = split(j, 0.75, by="jobs")   # 6th job (index 6) at 6
    assert train.submit.tolist() == [0, 1, 2, 5, 5, 5] and test.submit.tolist() == [6, 10]
    train, test = split(j, 0.7)               # cut at 7
    assert train.submit.tolist() == [0, 1, 2, 5, 5, 5, 6] and test.submit.tolist() == [10]
    for bad in (0, 1, 1.5, -0.1, "half", True):
        with pytest.raises(InputError):
            split(j, bad)
    with pytest.raises(InputError, match="by"):
        split(j, by="users")


def test_resampling_a_half_uses_only_that_half():
    train, test = split(JOBS)
    for half, other in ((train, test), (test, train)):
        r = resample(half, 50, 11)
        check_resampled(r, half, int(half.submit.min()), W)
        ids = set(half.id[r.source_index].tolist())
        assert ids <= set(half.id.tolist()) and ids.isdisjoint(other.id.tolist())
        assert set(r.source_id.tolist()) == ids
        src_submit = half.submit[r.source_index]
        assert src_submit.min() >= half.submit.min() and src_submit.max() <= half.submit.max()
        assert set(r.users.tolist()) == set(half.user.tolist())


# ---------------------------------------------------------------- periods --

def _period_jobs():
    """Start 100, week W.  (submit, run, req): the crossing jobs are known."""
    rows = [
        (100, 10, 20),              # 0 week 0, fine
        (100 + W - 50, 50, 60),     # 1 week 0, ends exactly at the boundary (run); req crosses
        (100 + W - 50, 51, 51),     # 2 week 0, crosses by run
        (100 + W, 5, 5),            # 3 week 1, first second
        (100 + W + 10, 4 * W, 4 * W),  # 4 week 1, runs for 4 weeks (past a 30-day month too)
        (100 + 3 * W + 7, 1, 1),    # 5 week 3 (week 2 empty)
    ]
    a = np.array(rows)
    return Jobs(a[:, 0], a[:, 1], a[:, 2], np.ones(len(a), int), id=[10, 11, 12, 13, 14, 15],
                user=[1, 2, 1, 2, 1, 2])


def test_weeks_keep_and_drop_remove_exactly_the_crossing_jobs():
    j = _period_jobs()
    e = period_edges(j)
    assert e.tolist() == [100 + k * W for k in range(5)]
    keep = weeks(j)
    assert [w.id.tolist() for w in keep] == [[10, 11, 12], [13, 14], [], [15]]
    assert all(np.array_equal(w.submit, j.submit[np.isin(j.id, w.id)]) for w in keep)
    drop = weeks(j, crossing="drop")
    assert [w.id.tolist() for w in drop] == [[10, 11], [13], [], [15]]
    drop = weeks(j, crossing="drop", finish="req")
    assert [w.id.tolist() for w in drop] == [[10], [13], [], [15]]
    fin = j.submit + np.array([0, 0, 0, 2 * W, 0, 0])   # e.g. the log's finish times
    drop = weeks(j, crossing="drop", finish=fin)
    assert [w.id.tolist() for w in drop] == [[10, 11, 12], [14], [], [15]]
    # skip_first, shift, another start.
    sk = weeks(j, skip_first=1, shift=True)
    assert [w.id.tolist() for w in sk] == [[13, 14], [], [15]]
    assert sk[0].submit.tolist() == [0, 10] and sk[2].submit.tolist() == [7]
    assert sk[0].user.tolist() == [2, 1]
    late = weeks(j, start=100 + W)
    assert [w.id.tolist() for w in late] == [[13, 14], [], [15]]
    assert weeks(j, skip_first=10) == []
    with pytest.raises(InputError, match="crossing"):
        weeks(j, crossing="maybe")
    with pytest.raises(InputError, match="finish"):
        weeks(j, crossing="drop", finish="wall")
    with pytest.raises(InputError, match="finish"):
        weeks(j, crossing="drop", finish=[1, 2])


def test_weeks_other_periods():
    j = _period_jobs()
    assert period_edges(j, "day")[:3].tolist() == [100, 100 + 86400, 100 + 2 * 86400]
    m = weeks(j, period="month")                # 30 days: everything in month 0
    assert [w.id.tolist() for w in m] == [[10, 11, 12, 13, 14, 15]]
    assert [w.id.tolist() for w in weeks(j, period="month", crossing="drop")] == [[10, 11, 12, 13, 15]]
    assert [w.id.tolist() for w in weeks(j, period=2 * W)] == [[10, 11, 12, 13, 14], [15]]
    assert [w.id.tolist() for w in weeks(j, period="14d")] == [[10, 11, 12, 13, 14], [15]]
    with pytest.raises(InputError, match="period"):
        weeks(j, period="fortnight")
    with pytest.raises(InputError, match="unix_start_time"):
        weeks(j, period="calendar-month")


def test_calendar_periods():
    unix0 = int(dt.datetime(2021, 1, 15, 12, tzinfo=dt.timezone.utc).timestamp())
    day = 86400
    sub = np.array([0, 10 * day, 17 * day, 20 * day, 45 * day, 80 * day])
    j = Jobs(sub, np.ones(6, int), np.ones(6, int), np.ones(6, int), user=np.ones(6, int))
    e = period_edges(j, "calendar-month", unix_start_time=unix0)
    months = [dt.datetime(2021, mo, 1, tzinfo=dt.timezone.utc) for mo in (2, 3, 4, 5)]
    assert e.tolist() == [0] + [int(x.timestamp()) - unix0 for x in months]
    ms = weeks(j, period="calendar-month", unix_start_time=unix0)
    assert [len(x) for x in ms] == [2, 2, 1, 1]    # from Jan 15 12:00, Feb, Mar, Apr
    paris = zoneinfo.ZoneInfo("Europe/Paris")
    e = period_edges(j, "calendar-week", unix_start_time=unix0, tz="Europe/Paris")
    local = [dt.datetime.fromtimestamp(unix0 + t, paris) for t in e[1:]]
    assert all(x.weekday() == 0 and (x.hour, x.minute, x.second) == (0, 0, 0) for x in local)
    assert local[0].date() == dt.date(2021, 1, 18)
    # The week of the switch to summer time (28 March 2021) is one hour short.
    assert sorted(set(np.diff(e[1:]).tolist())) == [7 * day - 3600, 7 * day]
    with pytest.raises(InputError, match="time zone"):
        period_edges(j, "calendar-week", unix_start_time=unix0, tz="Mars/Olympus")


# ------------------------------------------------------------ the cleaning --

M = 10
# (job_id, submit, wait, run, alloc_procs, req_procs, req_time): what each
# filter of clean() (m = 10) must do with it.
CLEAN_ROWS = [
    (1, 0, 5, 10, 4, 4, 20),      # kept
    (2, 1, -1, 10, 3, -1, 20),    # kept: requested procs missing, allocated (3) used
    (3, 2, 0, 10, -1, -1, 20),    # removed: neither requested nor allocated processors
    (4, 3, 0, 10, 0, 0, 20),      # removed: neither (0 counts as missing)
    (5, 4, 0, 10, 4, 11, 20),     # removed: requested > m
    (6, 5, 0, 10, 12, 4, 20),     # removed: allocated > m
    (7, 6, 0, -1, 4, 4, 20),      # removed: negative runtime
    (8, -5, 0, 10, 4, 4, 20),     # removed: negative submit
    (9, 7, 0, 10, 4, 4, -1),      # removed: missing requested time
    (10, 8, 0, 30, 4, 4, 20),     # overrun: kept (kill) or removed (drop)
    (11, 9, 0, 0, 4, 4, 20),      # kept: p = 0
    (12, 10, 0, 10, 20, -1, 20),  # allocated used (counted) but 20 > m: removed
    (13, 11, 0, -1, -1, -1, 20),  # two reasons: counted once, by the first filter (procs)
    (14, 12, 0, 0, 4, 4, 0),      # kept: p = p~ = 0
    (15, 13, 0, 20, 4, 4, 20),    # kept: p = p~ is no overrun
]


def _clean_trace(tmp_path, header=True):
    a = np.array(CLEAN_ROWS, dtype=np.int64)
    fields = {"job_id": a[:, 0], "submit": a[:, 1], "wait": a[:, 2], "run": a[:, 3],
              "alloc_procs": a[:, 4], "req_procs": a[:, 5], "req_time": a[:, 6],
              "user": a[:, 0] % 3 + 1}
    path = write_swf(tmp_path / "t.swf", fields,
                     header_lines=["MaxProcs: 10", "UnixStartTime: 0"] if header else None)
    return read_swf(path)


def _steps(rep):
    return {(step, action): count for step, count, action, _ in rep.steps}


@pytest.mark.parametrize("overrun", ["kill", "drop"])
def test_clean_each_filter_removes_exactly_what_it_should(tmp_path, overrun):
    trace = _clean_trace(tmp_path)
    jobs, rep = clean(trace, m=M, overrun=overrun)
    kept = [1, 2, 10, 11, 14, 15] if overrun == "kill" else [1, 2, 11, 14, 15]
    assert sorted(jobs.id.tolist()) == kept
    assert rep.jobs_in == 15 and rep.jobs_out == len(kept)
    s = _steps(rep)
    assert s[("procs", "replaced")] == 2          # jobs 2 and 12
    assert s[("procs", "removed")] == 3           # 3, 4, 13
    assert s[("too-large", "removed")] == 3       # 5, 6, 12
    assert s[("runtime", "removed")] == 1         # 7 (13 already gone)
    assert s[("submit", "removed")] == 1          # 8
    assert s[("request", "removed")] == 1         # 9
    if overrun == "kill":
        assert s[("overrun", "kept")] == 1        # 10, killed later by the simulator
    else:
        assert s[("overrun", "removed")] == 1
    removed = sum(c for (step, action), c in s.items() if action == "removed")
    assert removed == 15 - len(kept)
    by_id = {int(i): k for k, i in enumerate(jobs.id)}
    assert jobs.procs[by_id[2]] == 3 and jobs.procs[by_id[1]] == 4
    assert jobs.run[by_id[11]] == 0 and jobs.req[by_id[14]] == 0
    if overrun == "kill":
        assert jobs.run[by_id[10]] == 30 and jobs.req[by_id[10]] == 20
    assert np.all(np.diff(jobs.submit) >= 0)
    assert jobs.user.tolist() == [int(i) % 3 + 1 for i in jobs.id]
    assert str(rep).startswith(f"cleaning {trace.path}: 15 jobs in, {len(kept)} out")


def test_clean_machine_size_from_header_and_errors(tmp_path):
    trace = _clean_trace(tmp_path)
    jobs, _ = clean(trace)                        # MaxProcs: 10
    assert sorted(jobs.id.tolist()) == [1, 2, 10, 11, 14, 15]
    jobs, rep = clean(trace, m=100)               # nothing is too large now
    assert _steps(rep)[("too-large", "removed")] == 0
    assert sorted(jobs.id.tolist()) == [1, 2, 5, 6, 10, 11, 12, 14, 15]
    with pytest.raises(InputError, match="overrun"):
        clean(trace, m=M, overrun="run")
    bare = _clean_trace(tmp_path / "bare", header=False)
    with pytest.raises(InputError, match="MaxProcs"):
        clean(bare, m="header")
    # No header: the log's peak concurrent allocation, stated and warned.  At
    # t = 13 jobs 1, 5, 6, 9, 10, 12 and 15 run: 4+4+12+4+4+20+4 = 52.
    with pytest.warns(CleaningWarning, match="m = 52, the log's peak concurrent allocation"):
        jobs, rep = clean(bare)
    assert rep.m == 52 and "peak" in rep.m_source and rep.choices["machine"] == "auto (m = 52)"
    assert clean(bare, m="peak")[1].m == 52
    assert peak_allocation(bare) == (52, "the log's peak concurrent allocation (9 jobs with a recorded start)")
    with pytest.raises(InputError, match="machine"):
        clean(bare, m="biggest")


def test_clean_missing_requested_time_choices(tmp_path):
    trace = _clean_trace(tmp_path)                 # job 9 (run 10, user 1) has no p~
    def req_of_9(**kw):
        jobs, rep = clean(trace, **kw)
        return (int(jobs.req[jobs.id == 9][0]) if 9 in jobs.id else None), rep
    assert req_of_9()[0] is None                   # auto: 1 job of 15 lacks p~ -> drop
    assert req_of_9()[1].choices["request"] == "drop (auto)"
    assert req_of_9(request="drop")[1].choices["request"] == "drop"
    assert req_of_9(request="runtime")[0] == 10
    assert req_of_9(request="runtime*2.5")[0] == 25
    assert req_of_9(request="limit:1m")[0] == 60   # a site's maximum walltime
    # user-max: the largest runtime of user 9 % 3 + 1 = 1 among all its jobs (3, 6, 9, 12, 15) = 20
    assert req_of_9(request="user-max")[0] == 20
    jobs, rep = clean(trace, request="runtime")
    assert ("request", 1, "filled", "missing requested time: p~ = runtime") in rep.steps
    assert "request=runtime" in str(rep)
    for bad in ("runtime*0.5", "limit:-3", "guess", "runtime*x"):
        with pytest.raises(InputError, match="request"):
            clean(trace, request=bad)


def test_clean_warns_on_a_large_loss_and_fills_a_log_without_requests(tmp_path):
    a = np.array(CLEAN_ROWS, dtype=np.int64)
    fields = {"job_id": a[:, 0], "submit": np.abs(a[:, 1]), "wait": a[:, 2], "run": np.abs(a[:, 3]),
              "alloc_procs": np.full(len(a), 2), "req_procs": np.full(len(a), 2),
              "req_time": np.full(len(a), -1), "user": a[:, 0] % 3 + 1}
    none = read_swf(write_swf(tmp_path / "none.swf", fields, header_lines=["MaxProcs: 10"]))
    with pytest.warns(CleaningWarning, match="100 % of the jobs have no requested time: request=runtime"):
        jobs, rep = clean(none)
    assert len(jobs) == 15 and np.array_equal(jobs.req, jobs.run) and rep.choices["request"] == "runtime (auto)"
    with pytest.raises(InputError, match="no jobs left after cleaning"):
        clean(none, request="drop")
    with pytest.warns(CleaningWarning, match=r"removed 60.0 % of the jobs"):
        clean(_clean_trace(tmp_path))             # 9 of 15 removed
    rec = clean(none)[1].record()
    assert rec["choices"]["request"] == "runtime (auto)" and rec["m"] == 10 and rec["warnings"]


def test_recorded_finish_and_weeks_by_the_log(tmp_path):
    trace = _clean_trace(tmp_path)
    jobs, _ = clean(trace, m=M)
    fin = recorded_finish(trace, jobs)
    wait = {r[0]: max(r[2], 0) for r in CLEAN_ROWS}
    assert fin.tolist() == [int(s + wait[int(i)] + r) for i, s, r in zip(jobs.id, jobs.submit, jobs.run)]
    # It follows a subset and a shift of the same jobs.
    part = weeks(jobs, period=5, shift=True)[1]
    assert np.array_equal(recorded_finish(trace, part), part.submit + (fin - jobs.submit)[np.isin(jobs.id, part.id)])
    # Job 1 (submit 0, wait 5, run 10) ends at 15 by the log, 10 by its runtime.
    ws = weeks(jobs, period=12, crossing="drop", finish=fin)
    assert 1 not in ws[0].id.tolist()
    assert 1 in weeks(jobs, period=12, crossing="drop")[0].id.tolist()
    with pytest.raises(InputError, match="lines"):
        recorded_finish(trace, Jobs(jobs.submit, jobs.run, jobs.req, jobs.procs))


def test_a_log_without_waits_gets_simulated_finish_times_and_says_so(tmp_path):
    import warnings as _w

    from own_traces import make_log
    from schedlab.engine import sim as _sim
    from schedlab.workloads import traces as _traces
    from schedlab.workloads.workload import CleaningWarning, log_finish, recorded_finish

    with pytest.warns(CleaningWarning, match="records no waiting time"):
        jobs, rep, m, swf, _ = _traces.cleaned(str(make_log(tmp_path / "nowait.swf", "no-waits")))
    assert rep.waits_recorded == 0 and rep.record()["waits_recorded"] == 0
    fin, rule = log_finish(swf, jobs, m)
    assert rule == "easy-fcfs"
    assert np.array_equal(fin, _sim.simulate(jobs, m, "EASY-FCFS-FCFS").end)
    with _w.catch_warnings():
        _w.simplefilter("error")            # a log with waits: no such warning, the log's own finish times
        jobs, rep, m, swf, _ = _traces.cleaned(str(make_log(tmp_path / "base.swf", "base")))
    fin, rule = log_finish(swf, jobs, m)
    assert rule == "recorded" and rep.waits_recorded == 1
    assert np.array_equal(fin, recorded_finish(swf, jobs))
