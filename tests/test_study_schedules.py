"""Study 9 (schedules): one EASY pass on a real excerpt, checked and drawn."""
import json

import pytest

from schedlab.workloads import check, formats
from schedlab.protocol.study import run_study


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("schedules")
    return run_study("schedules", profile="quick", outdir=out, log=None)


def test_the_pass_shown_is_the_rule_of_lelong2017_algorithm_1(result):
    n = result["numbers"]
    P = n["pass"]
    d = result["decision"]
    sf = result["schedules"][result["params"].policy]
    q = {sf.ids[k]: int(sf.procs[k]) for k in range(sf.n)}
    req = {sf.ids[k]: float(sf.requested[k]) for k in range(sf.n)}
    assert P["head"] == sf.ids[d.head] and q[P["head"]] > P["free"] - sum(q[j] for j in P["started"])
    assert P["backfilled_by_extra"], "the chosen pass has a backfill on extra processors (the rule)"
    for j in P["backfilled_by_shadow"]:
        assert P["t"] + req[j] <= P["shadow"]
    assert sum(q[j] for j in P["backfilled_by_extra"]) <= P["extra"]
    for j in P["backfilled_by_extra"]:
        assert P["t"] + req[j] > P["shadow"]
    # every backfilled job starts at the pass in the schedule written
    start = {sf.ids[k]: float(sf.start[k]) for k in range(sf.n)}
    assert all(start[j] == P["t"] for j in P["backfilled"])
    assert all(v["violations"] == 0 for v in n["policies"].values())


def test_outputs_land_where_the_driver_says(result):
    out = result["outdir"]
    for f in ("figures/pass.png", "figures/timeline.png", "figures/compare.png", "tables/pass.csv",
              "data/jobs-EASY-FCFS-FCFS.csv", "data/jobs-EASY-SPF-SPF.csv", "numbers.json"):
        assert (out / f).exists(), f
    numbers = json.loads((out / "numbers.json").read_text())
    assert numbers["pass"] == result["numbers"]["pass"]
    rows = (out / "tables" / "pass.csv").read_text().splitlines()
    assert len(rows) == 1 + result["numbers"]["pass"]["queued"]


def test_the_written_jobs_csv_is_read_by_evalys_and_checked(result):
    from evalys.jobset import JobSet

    path = result["outdir"] / "data" / "jobs-EASY-SPF-SPF.csv"
    js = JobSet.from_csv(str(path))
    assert len(js.df) == result["params"].jobs
    assert check.check(path, result["numbers"]["m"], "EASY-SPF-SPF").ok
    assert formats.read(path).backfilled is not None


def test_an_excerpt_beyond_the_log_falls_back_to_the_first_window_that_backfills(tmp_path):
    r = run_study("schedules", overrides={"first_job": 28470}, outdir=tmp_path, log=None)
    ex = r["numbers"]["excerpt"]
    assert "do not fit in the log (28475 jobs after cleaning)" in ex["note"]
    assert ex["first_job"] % 60 == 0 and ex["first_job"] + 60 <= 28475
    assert r["numbers"]["pass"]["backfilled"]              # the window shows a job backfilling
