"""Pictures of a schedule: Gantt chart (backfilled and killed jobs, the head's
reservation), utilisation and queue over time, two policies side by side."""
import numpy as np
from matplotlib.colors import to_hex
from matplotlib.patches import Rectangle

from schedlab.workloads import check, formats
from schedlab.protocol import plots
from schedlab.engine.sim import Jobs, simulate


def _jobs(n=80, m=16, seed=3):
    rng = np.random.default_rng(seed)
    run = rng.integers(1, 900, n)
    return Jobs(submit=np.sort(rng.integers(0, n * 30, n)), run=run,
                req=np.maximum(run + rng.integers(-60, 900, n), 1), procs=rng.integers(1, m + 1, n)), m


def _boxes(ax, colour):
    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_fill()
            and to_hex(p.get_facecolor()) == colour]


def test_gantt_draws_every_processor_interval_and_marks_backfilled_and_killed_jobs(tmp_path):
    jobs, m = _jobs()
    s = simulate(jobs, m, "EASY-FCFS-FCFS")
    assert s.backfilled.any() and s.killed.any()
    fig = plots.figure(8, 4)
    ax = fig.add_subplot(111)
    tab = plots.gantt(ax, s)
    pos = s.end > s.start
    n_iv = [len(tab["alloc"][k]) for k in range(len(jobs))]
    bf = sum(n for k, n in enumerate(n_iv) if pos[k] and s.backfilled[k])
    other = sum(n for k, n in enumerate(n_iv) if pos[k] and not s.backfilled[k])
    assert len(_boxes(ax, plots.SCHEDULE_COLORS["backfilled"])) == bf
    assert len(_boxes(ax, plots.SCHEDULE_COLORS["job"])) == other
    hatched = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch()]
    assert len(hatched) == sum(n for k, n in enumerate(n_iv) if pos[k] and s.killed[k])
    assert ax.get_ylim() == (0, m)
    plots.savefig(fig, tmp_path / "gantt")
    assert (tmp_path / "gantt.png").exists()


def test_gantt_of_a_batsim_file_uses_its_allocated_resources_and_draws_the_reservation(tmp_path):
    jobs, m = _jobs()
    s = simulate(jobs, m, "EASY-FCFS-FCFS")
    sf = formats.read(formats.write(s, tmp_path / "jobs.csv", "batsim-csv"))
    t = float(s.start[np.flatnonzero(s.backfilled)[0]])
    d = check.explain(sf, m, "EASY-FCFS-FCFS", t)[0]
    assert d.head is not None and d.backfilled
    fig = plots.figure(8, 4)
    ax = fig.add_subplot(111)
    tab = plots.gantt(ax, sf, m, reservation=d)
    assert tab["alloc"] is sf.allocated
    dashed = [p for p in ax.patches if isinstance(p, Rectangle) and not p.get_fill()]
    assert len(dashed) == len(sf.allocated[d.head])
    assert all(p.get_x() == d.shadow for p in dashed)
    assert any(line.get_xdata()[0] == d.shadow for line in ax.lines)


def test_utilisation_and_queue_over_time():
    jobs, m = _jobs()
    s = simulate(jobs, m, "EASY-SPF-FCFS")
    fig = plots.figure(8, 4)
    a1, a2 = fig.subplots(2, 1, sharex=True)
    plots.utilisation_and_queue(a1, a2, s)
    util = a1.lines[0].get_ydata()
    queue = a2.lines[0].get_ydata()
    assert 0 <= util.min() and util.max() <= 1 and util[-1] == 0
    assert queue.min() == 0 and queue[-1] == 0
    assert queue.max() == max(int(((jobs.submit <= t) & (s.start > t)).sum()) for t in np.unique(jobs.submit))


def test_two_policies_side_by_side_with_the_change_of_each_start():
    jobs, m = _jobs(n=120, seed=8)
    a, b = simulate(jobs, m, "EASY-FCFS-FCFS"), simulate(jobs, m, "EASY-SPF-SPF")
    assert not np.array_equal(a.start, b.start)
    fig = plots.compare_gantt(a, b, ("FCFS", "SPF"))
    gantt_a, gantt_b, diff = fig.axes[:3]
    assert gantt_a.get_title() == "FCFS" and gantt_b.get_title() == "SPF"
    heights = [p.get_height() for p in diff.patches]
    assert heights == (b.start - a.start).tolist()
