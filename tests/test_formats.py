"""Schedules in the field's formats: Batsim's jobs.csv (read by evalys) and SWF
with waits, and the deterministic processor placement behind
``allocated_resources``."""
import csv

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from schedlab.tools import cli
from schedlab.workloads import formats, swf  # noqa: E402
from schedlab.errors import InputError  # noqa: E402
from schedlab.workloads.formats import intervals  # noqa: E402
from schedlab.engine.sim import Jobs, simulate  # noqa: E402


def _workload(n=400, m=32, seed=5):
    rng = np.random.default_rng(seed)
    run = rng.integers(0, 3000, n)
    req = np.maximum(run + rng.integers(-300, 4000, n), 0)
    return Jobs(submit=np.sort(rng.integers(0, 5 * 86400 // 10, n)), run=run, req=req,
                procs=rng.integers(1, m + 1, n), id=np.arange(101, 101 + n)), m


def _no_processor_shared(start, end, alloc):
    """No processor runs two jobs at once (half-open [start, end))."""
    rows = [(p, s, e) for s, e, iv in zip(start, end, alloc) if e > s for a, b in iv for p in range(a, b + 1)]
    rows.sort()
    for (p0, _, e0), (p1, s1, _) in zip(rows, rows[1:]):
        if p0 == p1 and s1 < e0:
            return False
    return True


# ------------------------------------------------------------- placement --

def test_interval_strings_are_batsim_canonical_and_read_any_notation():
    assert intervals.to_string([(5, 5), (0, 2), (3, 3), (7, 9)]) == "0-3 5 7-9"
    assert intervals.parse("5 2-2 7 1-3") == [(1, 3), (5, 5), (7, 7)]
    assert intervals.parse("1-2 1-3 5 7") == [(1, 3), (5, 5), (7, 7)]
    assert intervals.to_string(intervals.parse("37-42")) == "37-42"
    for bad in ("3-1", "a", "1-", "-2"):
        with pytest.raises(InputError, match="allocated_resources"):
            intervals.parse(bad)


def test_lowest_free_ids_at_each_start_by_hand():
    # m = 6.  a: 0..10 on 2, b: 0..5 on 3, c: 5..8 on 2 (takes b's lowest freed ids after a's),
    # z: zero-length at 5 on 4 (takes the lowest free at that instant and gives them back),
    # d: 8..9 on 4
    start, end, procs = [0, 0, 5, 5, 8], [10, 5, 8, 5, 9], [2, 3, 2, 4, 4]
    got = intervals.place(start, end, procs, 6)
    assert [intervals.to_string(x) for x in got] == ["0-1", "2-4", "2-3", "2-5", "2-5"]


def test_placement_refuses_more_than_m_busy_and_names_the_job():
    with pytest.raises(InputError, match=r"at time 3, job 12 needs 3 processors and only 2"):
        intervals.place([0, 3], [10, 5], [4, 3], 6, labels=["11", "12"])


def test_placement_of_an_engine_schedule_never_shares_a_processor_and_is_deterministic():
    jobs, m = _workload()
    s = simulate(jobs, m, "EASY-SPF-FCFS")
    a = intervals.place(s.start, s.end, jobs.procs, m)
    assert [intervals.size(x) for x in a] == jobs.procs.tolist()
    assert all(lo >= 0 and hi < m for x in a for lo, hi in x)
    assert _no_processor_shared(s.start, s.end, a)
    assert a == intervals.place(s.start.copy(), s.end.copy(), jobs.procs.copy(), m)


# ------------------------------------------------------------- jobs.csv --

def test_batsim_csv_has_every_documented_column_in_order_and_the_schedule(tmp_path):
    jobs, m = _workload()
    s = simulate(jobs, m, "EASY-FCFS-FCFS")
    path = formats.write(s, tmp_path / "jobs.csv", "batsim-csv", workload_name="w0")
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0]) == formats.BATSIM_COLUMNS
    assert rows[0] == ["job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
                       "requested_time", "success", "final_state", "starting_time", "execution_time",
                       "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
                       "consumed_energy", "metadata"]
    body = [dict(zip(rows[0], r)) for r in rows[1:]]
    assert len(body) == len(jobs)
    for i in (0, 17, len(jobs) - 1):
        r = body[i]
        assert r["job_id"] == str(jobs.id[i]) and r["workload_name"] == "w0"
        assert float(r["starting_time"]) == s.start[i] and float(r["finish_time"]) == s.end[i]
        assert float(r["waiting_time"]) == s.start[i] - jobs.submit[i]
        assert float(r["turnaround_time"]) == s.end[i] - jobs.submit[i]
        assert int(r["requested_number_of_resources"]) == jobs.procs[i]
        assert intervals.size(intervals.parse(r["allocated_resources"])) == jobs.procs[i]
        assert r["profile"] == f"delay{jobs.run[i]}"
    killed = s.killed
    assert killed.any() and (~killed).any()
    states = np.array([r["final_state"] for r in body])
    assert np.array_equal(states == "COMPLETED_WALLTIME_REACHED", killed)
    assert np.array_equal(states == "COMPLETED_SUCCESSFULLY", ~killed)
    assert np.array_equal(np.array([r["success"] for r in body]) == "1", ~killed)
    bf = np.array(["backfilled" in r["metadata"].split() for r in body])
    assert np.array_equal(bf, s.backfilled) and bf.any()
    positive = s.end > s.start
    stretch = np.array([float(r["stretch"]) for r in body])
    expect = (s.end - jobs.submit)[positive] / (s.end - s.start)[positive]
    assert np.allclose(stretch[positive], expect, rtol=1e-6)
    assert np.all(np.isinf(stretch[~positive][(s.end - jobs.submit)[~positive] > 0]))


def test_a_requeued_job_has_its_killed_run_as_completed_killed(tmp_path):
    # one small job of 100 s classed small with a divider of 30 s: killed at 30, requeued, runs again
    jobs = Jobs(submit=[0, 0], run=[100, 10], req=[200, 20], procs=[2, 1])
    s = simulate(jobs, 2, "EASY-FCFS-FCFS", classes=[1, 1], divider=30)
    assert s.requeued[0]
    with pytest.raises(InputError, match="give the divider"):
        formats.write(s, tmp_path / "x.csv", "batsim-csv")
    path = formats.write(s, tmp_path / "jobs.csv", "batsim-csv", divider=30)
    back = formats.read(path)
    assert back.ids[:2] == ["1#0", "1"]
    assert back.killed_run.tolist() == [True, False, False]
    assert back.start[0] == s.first_start[0] and back.end[0] == s.first_start[0] + 30
    assert back.start[1] == s.start[0]


def test_evalys_reads_the_jobs_csv_and_draws_its_gantt_chart(tmp_path):
    import matplotlib.pyplot as plt
    from evalys.jobset import JobSet
    from evalys.visu import core, gantt

    jobs, m = _workload(n=120)
    s = simulate(jobs, m, "EASY-SAF-FCFS")
    path = formats.write(s, tmp_path / "jobs.csv", "batsim-csv")
    js = JobSet.from_csv(str(path))
    assert len(js.df) == len(jobs)
    assert js.MaxProcs <= m
    assert js.df["proc_alloc"].tolist() == jobs.procs.tolist()
    assert js.df["starting_time"].tolist() == s.start.tolist()
    layout = core.SimpleLayout(wtitle="schedlab")
    try:
        plot = layout.inject(gantt.GanttVisualization, spskey="all", title="Gantt chart")
        plot.build(js)
        rects = [p for p in layout.fig.axes[0].patches if isinstance(p, matplotlib.patches.Rectangle)]
        n_intervals = sum(len(intervals.parse(row[14])) for row in formats.batsim_rows(s) if row[9] != "0.000000")
        assert len(rects) == n_intervals
        lefts = sorted(r.get_x() for r in rects)
        assert lefts[0] == s.start.min()
        layout.fig.savefig(tmp_path / "gantt.png")
    finally:
        plt.close(layout.fig)
    assert (tmp_path / "gantt.png").stat().st_size > 1000


def test_read_batsim_csv_errors_name_file_line_and_field(tmp_path):
    jobs, m = _workload(n=20)
    s = simulate(jobs, m, "EASY-FCFS-FCFS")
    path = formats.write(s, tmp_path / "jobs.csv", "batsim-csv")
    lines = path.read_text().splitlines()
    bad = lines[5].split(",")
    bad[8] = "soon"
    lines[5] = ",".join(bad)
    (tmp_path / "bad.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"bad.csv:6: field starting_time: 'soon' is not a number"):
        formats.read(tmp_path / "bad.csv")
    (tmp_path / "nohead.csv").write_text("job_id,foo\n1,2\n")
    with pytest.raises(InputError, match=r"nohead.csv:1: no column 'submission_time'"):
        formats.read(tmp_path / "nohead.csv")


def test_swf_schedule_reads_back_what_the_engine_used(tmp_path):
    jobs, m = _workload()
    s = simulate(jobs, m, "EASY-FCFS-FCFS")
    path = formats.write(s, tmp_path / "s.swf", "swf")
    back = formats.read(path)
    assert back.kind == "swf" and back.m == m
    assert np.array_equal(back.start, s.start) and np.array_equal(back.end, s.end)
    assert np.array_equal(back.procs, jobs.procs) and np.array_equal(back.requested, jobs.req)
    assert np.array_equal(back.walltime, s.killed)


# ------------------------------------------------------------------ CLI --

def _write_log(path, jobs, max_procs: int):
    """``jobs`` as an SWF log whose header says ``max_procs``."""
    fields = {"job_id": jobs.id, "submit": jobs.submit, "run": jobs.run, "req_procs": jobs.procs,
              "req_time": jobs.req, "status": np.ones(len(jobs), int)}
    return swf.write_swf(path, fields, ["Version: 2.2", f"MaxProcs: {max_procs}"])


def test_simulate_format_batsim_csv_from_the_command_line(tmp_path, capsys):
    jobs, m = _workload(n=200)
    src = _write_log(tmp_path / "mine.swf", jobs, m)
    out = tmp_path / "jobs.csv"
    assert cli.main(["simulate", str(src), "--policy", "EASY-SPF-SPF", "-o", str(out), "--format", "batsim-csv"]) == 0
    assert "batsim-csv" in capsys.readouterr().out
    back = formats.read(out)
    s = simulate(jobs, m, "EASY-SPF-SPF")
    order = np.argsort(back.order)
    assert np.array_equal(back.start[order], s.start)
    assert back.allocated is not None and _no_processor_shared(back.start, back.end, back.allocated)


def test_swf_schedule_header_gives_the_simulated_machine_size(tmp_path):
    jobs, m = _workload(n=50)
    src = _write_log(tmp_path / "big.swf", jobs, 4 * m)
    out = tmp_path / "s.swf"
    assert cli.main(["simulate", str(src), "-m", str(m), "-o", str(out)]) == 0
    back = formats.read(out)
    assert back.m == m
    assert any(f"MaxProcs was {4 * m}" in h for h in swf.read_swf(out).header_lines)
