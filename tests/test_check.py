"""``schedlab check``: valid schedules pass, and each kind of violation, made on
purpose, is reported with its job ids (exit status 1)."""
import numpy as np
import pytest

from schedlab.workloads import check, formats
from schedlab.tools import cli
from schedlab.errors import InputError
from schedlab.engine.sim import Jobs, simulate

# m = 4, EASY-FCFS-FCFS, requested estimates (p~ = p here).  By hand:
# t=0: job 1 (3 procs) starts.  t=1: job 2 (4 procs) does not fit: head, shadow time 10
# (job 1's estimated end), extra 4 - 4 = 0.  t=2: job 3 (1 proc, p~ 8) ends at 10 <= 10:
# backfilled.  t=3: job 4 (1 proc): nothing free.  t=10: jobs 1 and 3 end, job 2 starts;
# t=15: job 2 ends, job 4 starts.
M = 4
BASE = dict(submit=[0, 1, 2, 3], run=[10, 5, 8, 5], req=[10, 5, 8, 5], procs=[3, 4, 1, 1])
STARTS = [0, 10, 2, 15]


def _file(starts, runs=None, req=None, tmp_path=None):
    """A schedule file (SWF with waits) of BASE with these starts."""
    from schedlab.workloads import swf
    runs = BASE["run"] if runs is None else runs
    req = BASE["req"] if req is None else req
    n = len(starts)
    fields = {"job_id": np.arange(1, n + 1), "submit": BASE["submit"], "wait": np.subtract(starts, BASE["submit"]),
              "run": runs, "req_procs": BASE["procs"], "alloc_procs": BASE["procs"], "req_time": req,
              "status": np.ones(n, int)}
    path = tmp_path / "s.swf"
    swf.write_swf(path, fields, ["Version: 2.2", f"MaxProcs: {M}"])
    return path


def test_the_hand_worked_schedule_is_the_engines_and_is_valid(tmp_path):
    s = simulate(Jobs(**BASE), M, "EASY-FCFS-FCFS")
    assert s.start.tolist() == STARTS
    r = check.check(_file(STARTS, tmp_path=tmp_path), None, "EASY-FCFS-FCFS")
    assert r.ok, r.report()
    assert r.m == M                       # from the header


@pytest.mark.parametrize("kind, starts, runs, req, jobs", [
    # job 4 starts at 1, before its submission at 3 (SWF wait -2; -1 would be "missing")
    ("start-before-submit", [0, 10, 2, 1], None, None, {"4"}),
    # job 4 starts at 3 on a full machine: 5 processors busy
    ("over-capacity", [0, 10, 2, 3], None, None, {"1", "3", "4"}),
    # job 3 runs 9 s with a request of 8 and is not killed
    ("overran", [0, 10, 2, 15], [10, 5, 9, 5], None, {"3"}),
    # job 4 starts at 16, where nothing happens, one second after it fitted at 15
    ("no-pass", [0, 10, 2, 16], None, None, {"4"}),
    ("not-started", [0, 10, 2, 16], None, None, {"4"}),
    # job 4 jumps the FCFS queue at 10 (job 2 fits there and waits until 15)
    ("out-of-order", [0, 15, 2, 10], None, None, {"4"}),
    ("not-started", [0, 15, 2, 10], None, None, {"2"}),
    # job 3 asks 9 s: backfilled at 2 it would end at 11, after the shadow time 10 with no extra
    # processor; a simulator that ignores the reservation starts it anyway
    ("delayed-reservation", [0, 10, 2, 15], [10, 5, 8, 5], [10, 5, 9, 5], {"3", "2"}),
])
def test_each_kind_of_violation_is_reported_with_its_jobs(tmp_path, capsys, kind, starts, runs, req, jobs):
    path = _file(starts, runs, req, tmp_path)
    r = check.check(path, M, "EASY-FCFS-FCFS")
    assert not r.ok
    assert r.counts()[kind] >= 1, r.report()
    assert r.jobs(kind) == jobs, r.report()
    assert cli.main(["check", str(path), "--policy", "EASY-FCFS-FCFS"]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and kind in out


def test_the_delayed_reservation_schedule_is_not_what_easy_does():
    # the same jobs through the engine: job 3 waits for job 2
    s = simulate(Jobs(BASE["submit"], BASE["run"], [10, 5, 9, 5], BASE["procs"]), M, "EASY-FCFS-FCFS")
    assert s.start.tolist() == [0, 10, 15, 3]        # job 4 (ends at 8 <= 10) is backfilled instead
    assert check.check(s, M, "EASY-FCFS-FCFS").ok


def test_without_a_policy_only_the_policy_free_checks(tmp_path):
    # out of FCFS order but physically possible: valid without --policy
    path = _file([0, 15, 2, 10], tmp_path=tmp_path)
    assert check.check(path, M).ok
    assert not check.check(path, M, "EASY-FCFS-FCFS").ok


POLICIES = ["EASY-FCFS-FCFS", "EASY-SPF-SPF", "EASY-SAF-FCFS", "EASY-LCFS-SQF", "EASY-LPF-LRF",
            "EASY-SEXP-LEXP", "EASY-WFP-FCFS", "EASY-LQF-LAF", "EASY-SRF-SPF"]


def _workload(n, m, seed):
    rng = np.random.default_rng(seed)
    run = rng.integers(0, 600, n) * (rng.random(n) > 0.05)          # some zero-length jobs
    req = np.maximum(run + rng.integers(-100, 900, n), 0)             # some p > p~: killed
    submit = np.sort(rng.integers(0, n * 40, n))
    submit[5:9] = submit[4]                                           # ties of submissions
    return Jobs(submit=submit, run=run, req=req, procs=rng.integers(1, m + 1, n), id=rng.permutation(n) + 1)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("threshold, estimate", [(None, "requested"), ("20m", "requested"), (None, "actual"),
                                                 ("5m", "actual")])
def test_every_engine_schedule_is_valid(policy, threshold, estimate):
    m = 16
    for seed in range(3):
        jobs = _workload(250, m, seed).sorted()
        s = simulate(jobs, m, policy, threshold=threshold, estimate=estimate)
        r = check.check(s, m, policy, threshold, estimate)
        assert r.ok, r.report(10)
        assert r.passes > 0


def test_threshold_backfill_schedules_are_valid_and_differ():
    m = 16
    jobs = _workload(300, m, 7).sorted()
    s = simulate(jobs, m, "EASY-SPF-SPF", threshold="10m", threshold_backfill=True)
    assert check.check(s, m, "EASY-SPF-SPF", "10m", threshold_backfill=True).ok
    assert not check.check(s, m, "EASY-SPF-SPF", "10m").ok


@pytest.mark.parametrize("seed", range(6))
def test_an_engine_schedule_with_two_starts_swapped_is_invalid(seed):
    m = 16
    jobs = _workload(200, m, seed).sorted()
    s = simulate(jobs, m, "EASY-SPF-FCFS")
    rng = np.random.default_rng(seed)
    while True:
        i, j = rng.choice(len(jobs), 2, replace=False)
        if s.start[i] != s.start[j]:
            break
    sf = formats.from_schedule(s)
    sf.start[[i, j]] = sf.start[[j, i]]
    sf.end = sf.start + (s.end - s.start)
    r = check.check(sf, m, "EASY-SPF-FCFS")
    assert not r.ok
    assert {str(jobs.id[i]), str(jobs.id[j])} & set().union(*(set(v.jobs) for v in r.violations))


def test_a_schedule_checked_under_another_policy_is_invalid():
    m = 16
    jobs = _workload(300, m, 2).sorted()
    s = simulate(jobs, m, "EASY-SPF-SPF")
    assert check.check(s, m, "EASY-SPF-SPF").ok
    r = check.check(s, m, "EASY-FCFS-FCFS")
    assert not r.ok and (r.counts()["not-started"] or r.counts()["out-of-order"])


def test_batsim_csv_schedules_are_checked_too(tmp_path, capsys):
    m = 16
    jobs = _workload(200, m, 4).sorted()
    s = simulate(jobs, m, "EASY-SAF-SAF", threshold="30m")
    path = formats.write(s, tmp_path / "jobs.csv", "batsim-csv")
    assert cli.main(["check", str(path), "-m", str(m), "--policy", "EASY-SAF-SAF", "--threshold", "30m"]) == 0
    assert "valid: no violation" in capsys.readouterr().out
    assert cli.main(["check", str(path), "-m", str(m), "--policy", "EASY-SAF-SAF"]) == 1


def test_check_input_errors_name_the_file_and_what_is_missing(tmp_path, capsys):
    path = formats.write(simulate(_workload(30, 8, 1).sorted(), 8, "EASY-FCFS-FCFS"), tmp_path / "j.csv",
                         "batsim-csv")
    assert cli.main(["check", str(path), "--policy", "EASY-FCFS-FCFS"]) == 2
    assert "give the machine size" in capsys.readouterr().err
    r = check.check(path, 2, "EASY-FCFS-FCFS")           # jobs wider than m: violations with their ids
    assert r.counts()["wider-than-m"] >= 1 and "EASY replay was not run" in r.report()
    with pytest.raises(InputError, match="only the pure policies"):
        check.check(path, 8, "EASY-SJBF-FCFS")


@pytest.mark.parametrize("policy, threshold", [("EASY-FCFS-FCFS", None), ("EASY-SPF-LPF", "15m"),
                                               ("EASY-WFP-SAF", None), ("EASY-LCFS-SEXP", "5m")])
def test_the_replayed_passes_are_those_of_the_reference_simulator(policy, threshold):
    # every pass that starts a job: the same time, jobs started in primary order, head,
    # shadow time, extra processors and backfilled jobs as tests/reference.py records them
    from reference import reference_simulate

    from schedlab.jobs import Policy

    m = 16
    jobs = _workload(200, m, 11).sorted()
    p = Policy.parse(policy, threshold)
    trace = []
    ref = reference_simulate(jobs.submit.tolist(), jobs.run.tolist(), jobs.req.tolist(), jobs.procs.tolist(),
                             jobs.id.tolist(), m, p.primary, p.backfill, threshold=p.threshold, trace=trace)
    s = simulate(jobs, m, p)
    assert s.start.tolist() == ref["start"]

    def key(t, started, head, shadow, extra, backfilled):
        return (t, list(started), head, None if head is None else shadow, None if head is None else extra,
                list(backfilled))

    want = [key(r["t"], r["started"], r["head"], r["shadow"], r["extra"], r["backfilled"]) for r in trace
            if r["started"] or r["backfilled"]]
    got = [key(d.t, d.started, d.head, d.shadow, d.extra, d.backfilled) for d in check.passes(s, m, p)
           if d.started or d.backfilled]
    assert len(got) > 50
    assert got == want


# ---- issue 32, item 3: what a Batsim jobs.csv claims is checked too ----

def _csv(tmp_path, edit=None, name="jobs.csv"):
    """Batsim's jobs.csv of the hand-worked schedule (BASE on M = 4), edited."""
    import csv
    path = formats.write(simulate(Jobs(**BASE), M, "EASY-FCFS-FCFS"), tmp_path / name, "batsim-csv")
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    header = list(rows[0])
    if edit:
        edit({r["job_id"]: r for r in rows})
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, header)
        w.writeheader()
        w.writerows(rows)
    return path


def _set(job, **kw):
    return lambda rows: rows[job].update(kw)


@pytest.mark.parametrize("kind, edit, jobs", [
    # jobs 1 (0-10, 3 procs) and 3 (2-10, 1 proc) run together: job 3 given processor 2, job 1's
    ("shared-processors", _set("3", allocated_resources="2"), {"1", "3"}),
    # job 4 asks for 1 processor and is given 4; then 0-50 on a machine of 4
    ("allocation-size", _set("4", allocated_resources="0-3"), {"4"}),
    ("allocation-size", lambda rows: rows["2"].update(allocated_resources="0-50"), {"2"}),
    ("allocation-size", _set("4", allocated_resources="7"), {"4"}),
    # execution_time against finish - start (100000 vs 5), NaN, inf
    ("execution-time", _set("2", execution_time="100000"), {"2"}),
    ("execution-time", _set("2", execution_time="nan"), {"2"}),
    ("execution-time", _set("4", execution_time="inf"), {"4"}),
    # a job wider than the machine: a violation naming it, not unreadable input
    ("wider-than-m", lambda rows: rows["2"].update(requested_number_of_resources="5", allocated_resources="0-4"),
     {"2"}),
])
def test_each_new_kind_of_violation_is_reported_with_its_jobs(tmp_path, capsys, kind, edit, jobs):
    assert check.check(_csv(tmp_path, name="valid.csv"), M, "EASY-FCFS-FCFS").ok
    path = _csv(tmp_path, edit)
    r = check.check(path, M, "EASY-FCFS-FCFS")
    assert r.jobs(kind) == jobs, r.report()
    assert cli.main(["check", str(path), "-m", str(M), "--policy", "EASY-FCFS-FCFS"]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and kind in out


@pytest.mark.parametrize("text, message", [
    ("", "no job"),
    ("job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
     "final_state,starting_time,execution_time,finish_time\n", "no job"),
    ("; Version: 2.2\n; MaxProcs: 4\n", "no job"),
])
def test_an_empty_or_job_less_schedule_is_an_error(tmp_path, capsys, text, message):
    path = tmp_path / "empty.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        check.check(path, M)
    assert cli.main(["check", str(path), "-m", "4"]) == 2
    err = capsys.readouterr()
    assert str(path) in err.err and "valid" not in err.out


def test_a_csv_without_job_id_says_which_column_is_missing(tmp_path, capsys):
    path = _csv(tmp_path)
    lines = path.read_text().splitlines()
    cols = lines[0].split(",")
    k = cols.index("job_id")
    path.write_text("\n".join(",".join(c for j, c in enumerate(line.split(",")) if j != k) for line in lines) + "\n")
    assert cli.main(["check", str(path), "-m", "4"]) == 2
    err = capsys.readouterr().err
    assert "no column 'job_id'" in err and "SWF" not in err
