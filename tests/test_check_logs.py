"""Every schedule the engine writes for the bundled logs passes ``schedlab
check`` (whole logs, EASY-FCFS-FCFS as SWF and EASY-SPF-SPF as Batsim's
jobs.csv).  The two largest logs (RICC, CEA-Curie: about a minute of CPU
for their four checks, plus cleaning and simulating) are left to ``make
check-schedules`` (bench/bench_check.py), which checks all of them, to keep
the suite within its 10 minutes."""
import warnings

import pytest

from schedlab.workloads import check, formats, traces
from schedlab.engine.sim import simulate

LARGEST = ("RICC", "CEA-Curie")
LOGS = [n for n, info in traces.registry().items() if info.origin == "bundled" and n not in LARGEST]


def test_the_suite_leaves_out_only_the_two_largest_logs():
    reg = traces.registry()
    bundled = sorted((info.jobs, n) for n, info in reg.items() if info.origin == "bundled")
    assert {n for _, n in bundled[-2:]} == set(LARGEST)
    assert len(LOGS) == len(bundled) - 2


@pytest.mark.parametrize("name", LOGS)
@pytest.mark.parametrize("policy, fmt", [("EASY-FCFS-FCFS", "swf"), ("EASY-SPF-SPF", "batsim-csv")])
def test_the_engines_schedule_of_a_whole_bundled_log_passes_check(name, policy, fmt, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = traces.cleaned(name)
    s = simulate(c.jobs, c.m, policy)
    path = formats.write(s, tmp_path / f"schedule.{fmt}", fmt, trace=c.trace, workload_name=name)
    r = check.check(path, c.m, policy)
    assert r.ok, r.report(10)
    assert r.n_jobs == len(c.jobs) and r.passes > len(c.jobs) // 4
