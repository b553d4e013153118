"""Study 1 (traces): the computations on a generated trace whose answers are
known by construction, the parameter validation, the outputs of run(), the
notebook under papermill, and two regression checks on bundled traces."""
from __future__ import annotations

import json
import math
from pathlib import Path

import nbformat
import numpy as np
import pytest

from schedlab import paths
from schedlab.protocol import plots
from schedlab.errors import InputError
from schedlab.engine.sim import Jobs
from schedlab.studies import Table
from schedlab.studies import traces as study
from schedlab.workloads.swf import write_swf

WEEK = 7 * 86400
M = 10

# The generated trace: 12 jobs in the file, 10 after cleaning.
#   job  submit        p     p~     q  user status   what it is for
#    1   0            10   1000     1   1   1   premature: p~ = 100 p exactly (ratio yes, difference no)
#    2   10            5  36000     2   1   1   premature (both readings)
#    3   20            0    600     1   2   1   premature: p = 0 < p~
#    4   30            0      0     1   2   1   not premature: p = p~ = 0
#    5   W+0          50     60     1   3   1   small non-premature
#    6   W+10        200    150     2   3   0   overrun (p > p~), failed
#    7   W+20       1000   2000     4   3   1
#    8   2W+0       3000   3600     4   4   1
#    9   2W+10      5000   5000     8   4   5   cancelled
#   10   3W+100     4353  10000    10  -1   1   last week (partial); user missing
#   11   W+30         -1    100     1   5   1   removed: negative runtime
#   12   W+40        100    100    20   5   1   removed: q > m
# Sorted runtimes 0 0 5 10 50 | 200 1000 3000 4353 5000: divider (50+200)/2 = 125.
# Small (p <= 125): jobs 1-5; premature small (p~ > 125): 1, 2, 3.
# Areas p*q: small premature 10+10+0 = 20, small non-premature 0+50 = 50,
# large 400+4000+12000+40000+43530 = 99930; total 100000.
JOBS = [
    (1, 0, 10, 1000, 1, 1, 1),
    (2, 10, 5, 36000, 2, 1, 1),
    (3, 20, 0, 600, 1, 2, 1),
    (4, 30, 0, 0, 1, 2, 1),
    (5, WEEK, 50, 60, 1, 3, 1),
    (6, WEEK + 10, 200, 150, 2, 3, 0),
    (7, WEEK + 20, 1000, 2000, 4, 3, 1),
    (11, WEEK + 30, -1, 100, 1, 5, 1),
    (12, WEEK + 40, 100, 100, 20, 5, 1),
    (8, 2 * WEEK, 3000, 3600, 4, 4, 1),
    (9, 2 * WEEK + 10, 5000, 5000, 8, 4, 5),
    (10, 3 * WEEK + 100, 4353, 10000, 10, -1, 1),
]


def write_tiny(path: Path) -> Path:
    cols = list(zip(*JOBS))
    fields = {"job_id": cols[0], "submit": cols[1], "run": cols[2], "req_time": cols[3],
              "req_procs": cols[4], "alloc_procs": cols[4], "user": cols[5], "status": cols[6],
              "wait": [0] * len(JOBS)}
    return write_swf(path, fields, header_lines=["Version: 2.2", "Computer: generated",
                                                  f"MaxProcs: {M}", "UnixStartTime: 0"])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return write_tiny(tmp_path_factory.mktemp("tiny") / "tiny.swf")


@pytest.fixture(scope="module")
def tiny_stats(tiny) -> study.TraceStats:
    return study.characterise(str(tiny))


# ------------------------------------------------------------ definitions --

def test_premature_readings_and_zero_runtimes():
    p = [10, 5, 0, 0, 50, 10]
    pt = [1000, 36000, 600, 0, 60, 1010]
    assert study.premature(p, pt, reading="ratio").tolist() == [True, True, True, False, False, True]
    assert study.premature(p, pt, reading="difference").tolist() == [False, True, True, False, False, True]
    assert study.premature(p, pt, factor=2).tolist() == [True, True, True, False, False, True]
    with pytest.raises(InputError, match="reading"):
        study.premature(p, pt, reading="quotient")
    with pytest.raises(InputError, match="lengths"):
        study.premature([1, 2], [1])


def test_divider_and_size_classes():
    assert study.divider([0, 0, 5, 10, 50, 200, 1000, 3000, 4353, 5000]) == 125.0
    assert study.divider([3, 1, 2]) == 2.0
    assert math.isnan(study.divider([]))
    large, snp, sp = study.size_classes([10, 125, 126, 5], [10, 200, 126, 125], 125)
    assert large.tolist() == [False, False, True, False]
    assert snp.tolist() == [True, False, False, True]     # p~ <= divider
    assert sp.tolist() == [False, True, False, False]     # p~ > divider


def test_class_stats_known_by_construction(tiny_stats):
    c = tiny_stats.classes["cleaned"]
    assert c.n == 10
    assert c.premature_ratio == pytest.approx(30.0)
    assert c.premature_difference == pytest.approx(20.0)
    assert c.divider == 125.0
    assert c.small_nonpremature == pytest.approx(20.0)
    assert c.small_premature == pytest.approx(30.0)
    assert c.area_large == pytest.approx(99.93)
    assert c.area_small_nonpremature == pytest.approx(0.05)
    assert c.area_small_premature == pytest.approx(0.02)


def test_jobsets(tiny_stats):
    assert tiny_stats.counts == {"cleaned": 10, "no-overrun": 9, "completed": 8}
    # completed: jobs 1 2 3 4 5 7 8 10; runtimes 0 0 5 10 | 50 1000 3000 4353 -> divider 30
    c = tiny_stats.classes["completed"]
    assert (c.n, c.divider) == (8, 30.0)
    assert c.premature_ratio == pytest.approx(37.5)
    assert c.small_premature == pytest.approx(37.5)        # jobs 1 2 3
    assert c.small_nonpremature == pytest.approx(12.5)     # job 4
    # no-overrun: without job 6 (p 200 > p~ 150): runtimes 0 0 5 10 50 1000 ... -> divider 50
    n = tiny_stats.classes["no-overrun"]
    assert (n.n, n.divider) == (9, 50.0)
    assert n.small_nonpremature == pytest.approx(100 * 1 / 9)   # job 4
    assert n.small_premature == pytest.approx(100 * 4 / 9)      # jobs 1 2 3, and 5 (p~ 60 > 50)
    assert tiny_stats.mean_runtime["no-overrun"] == pytest.approx((10 + 5 + 50 + 1000 + 3000 + 5000 + 4353) / 9)


def test_trace_level_numbers(tiny_stats):
    s = tiny_stats
    assert (s.name, s.m, s.jobs_in_file, s.jobs, s.users) == ("tiny", M, 12, 10, 4)
    assert s.report.jobs_in == 12 and s.report.jobs_out == 10
    removed = {step: count for step, count, action, _ in s.report.steps if action == "removed" and count}
    assert removed == {"runtime": 1, "too-large": 1}
    assert s.period_days == pytest.approx((3 * WEEK + 100) / 86400)
    assert s.start_date == "1970-01-01"
    assert s.published == {}
    assert s.mean_runtime["cleaned"] == pytest.approx((10 + 5 + 50 + 200 + 1000 + 3000 + 5000 + 4353) / 10)


def test_weekly_known_by_construction(tiny_stats):
    w = tiny_stats.weekly
    assert w.start.tolist() == [0, WEEK, 2 * WEEK, 3 * WEEK]
    assert w.jobs.tolist() == [4, 3, 2, 1]
    assert w.full.tolist() == [True, True, True, False]
    expected = np.array([20, 50 + 400 + 4000, 12000 + 40000, 43530]) / (M * WEEK)
    np.testing.assert_allclose(w.load, expected)
    summ = w.summary()
    assert summ["jobs_mean"] == 3.0 and summ["jobs_median"] == 3.0 and summ["jobs_max"] == 4.0
    assert summ["load_mean"] == pytest.approx(expected[:3].mean())
    assert summ["load_median"] == pytest.approx(expected[1])


def test_weekly_counts_every_job_once():
    rng = np.random.default_rng(3)
    sub = np.sort(rng.integers(0, 10 * WEEK, 500))
    run = rng.integers(0, 5000, 500)
    jobs = Jobs(sub, run, run + 10, rng.integers(1, 9, 500))
    w = study.weekly(jobs, 8)
    assert w.jobs.sum() == 500
    assert w.load.sum() * 8 * WEEK == pytest.approx(float((jobs.procs * run).sum()))
    with pytest.raises(InputError):
        study.weekly(jobs, 0)


def test_histogram():
    h = study.histogram([0, 1, 5, 10, 99, 1e7, 2e7], edges=[1, 10, 100, 1e7])
    assert h.counts.tolist() == [2, 2, 0]
    assert (h.below, h.above, h.n) == (1, 2, 7)
    np.testing.assert_allclose(h.share, [2 / 7, 2 / 7, 0])
    with pytest.raises(InputError):
        study.histogram([1], edges=[10, 1])
    assert study.RUNTIME_EDGES[0] == 1 and study.RUNTIME_EDGES[-1] == pytest.approx(1e7)


def test_histograms_of_the_trace(tiny_stats):
    assert tiny_stats.actual.below == 2                  # two jobs with p = 0
    assert tiny_stats.actual.n == tiny_stats.requested.n == 10
    assert tiny_stats.requested.below == 1               # p~ = 0


# ------------------------------------------------------------- parameters --

def test_validate_traces(tiny):
    validate_traces = lambda v: study.Params.__dataclass_fields__["traces"].metadata["check"](v, "traces")  # noqa: E731
    assert [i.name for i in validate_traces(["KTH-SP2", str(tiny)])] == ["KTH-SP2", "tiny"]
    assert [i.name for i in validate_traces("kth-sp2")] == ["KTH-SP2"]
    assert [i.name for i in validate_traces(tiny)] == ["tiny"]
    assert [i.name for i in validate_traces("KTH-SP2, CTC-SP2")] == ["KTH-SP2", "CTC-SP2"]
    assert [i.name for i in validate_traces("['KTH-SP2', 'HPC2N']")] == ["KTH-SP2", "HPC2N"]
    for bad, msg in (([], "at least one"), (None, "at least one"), ("", "at least one"),
                     (["nope-trace"], r"traces\[0\]: unknown trace"), ([3], "expected a registry"),
                     (["KTH-SP2", "kth-sp2"], "both named"), (42, "expected a list"),
                     ("[KTH-SP2", "cannot read")):
        with pytest.raises(InputError, match=msg):
            validate_traces(bad)


# ----------------------------------------------------------------- outputs --

def test_published_values_are_quoted():
    assert study.PUBLISHED["table_4_1"]["SDSC-BLUE"] == 30.2
    assert study.published_for("kth-sp2")["table_6_1"] == (847, 15.37, 34.63)
    assert "table_6_1" not in study.published_for("CEA-Curie")
    for rows in study.PUBLISHED["table_6_1"].values():       # small shares add up to half
        assert rows[1] + rows[2] == pytest.approx(50, abs=0.1)


def test_published_values_are_data_with_their_sources():
    from schedlab.studies import load_published

    doc = load_published("schedlab.studies.traces")
    assert list(doc) == list(study.PUBLISHED) == ["table_3_1", "table_4_1", "table_6_1", "table_6_2"]
    for name, table in doc.items():
        assert table["source"].startswith("zrigui2021 §"), name
        assert table["traces"], name
    # the thesis prints no mean runtime for HPC2N: absent in the file, None here
    assert study.PUBLISHED["table_3_1"]["HPC2N"] == {"cpus": 240, "months": 42, "jobs": 202871,
                                                      "mean_runtime_s": None}
    assert all(isinstance(v, tuple) and len(v) == 3 for t in ("table_6_1", "table_6_2")
               for v in study.PUBLISHED[t].values())
    assert len(study.PUBLISHED_NOTES) == 4 and "MetaCentrum" in study.PUBLISHED_NOTES[3]


def test_table_text():
    t = Table(["a", "b", "c"], [["x|y", 1.23456, float("nan")], ["z", None, 3]], title="T",
              digits={"b": 1}, notes=["n"])
    md = t.to_markdown()
    assert "| x\\|y | 1.2 |  |" in md and md.startswith("**T**") and "* n" in md
    assert t.to_csv().splitlines() == ["a,b,c", "x|y,1.23456,", "z,,3"]
    with pytest.raises(ValueError):
        Table(["a"], [[1, 2]])


def test_run_writes_everything(tiny, tmp_path):
    from schedlab.protocol.study import run_study

    out = tmp_path / "out"
    res = run_study("traces", overrides={"traces": [str(tiny)]}, outdir=out, log=None)
    assert res["profile"] == "custom"
    names = sorted(str(p.relative_to(out)) for p in res["files"])
    expected = sorted([f"tables/{t}.{ext}" for t in ("traces", "weekly", "cleaning", "premature",
                                                       "classes", "areas") for ext in ("csv", "md")]
                      + ["figures/weekly.png", "figures/weekly.pdf", "figures/runtimes.png",
                         "figures/runtimes.pdf", "data/weekly.csv", "data/runtime_histograms.csv",
                         "numbers.json", "findings.json", "parameters.json"])
    assert names == expected
    assert all((out / n).stat().st_size > 0 for n in names)
    assert not list(out.rglob("*.tmp"))
    assert (out / "figures" / "weekly.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "figures" / "runtimes.pdf").read_bytes()[:5] == b"%PDF-"
    doc = json.loads((out / "numbers.json").read_text())
    t = doc["traces"]["tiny"]
    assert t["premature_pct"] == pytest.approx(30.0)
    assert t["premature_pct_difference_reading"] == pytest.approx(20.0)
    assert t["divider_s"] == 125.0 and t["jobs_per_week_mean"] == 3.0
    assert t["by_jobs"]["completed"]["n"] == 8
    assert doc["provenance"]["inputs"]["tiny"]["sha256"] == res["stats"][0].sha256
    prem = res["tables"]["premature"].records()
    assert prem[0]["jobs"] == "cleaned" and prem[0]["premature % (thesis)"] is None
    lines = (out / "tables" / "premature.csv").read_text().splitlines()
    assert lines[1].startswith("tiny,cleaned,10,,30.0,20.0")
    weekly = (out / "data" / "weekly.csv").read_text().splitlines()
    assert weekly[1:] and [r.split(",")[4] for r in weekly[1:]] == ["4", "3", "2", "1"]


def test_plots_savefig_and_colours(tmp_path):
    fig = plots.figure(2, 2)
    fig.add_subplot().plot([0, 1], [0, 1])
    written = plots.savefig(fig, tmp_path / "sub" / "f.png")
    assert [p.name for p in written] == ["f.png", "f.pdf"]
    assert plots.trace_color("kth-sp2") == plots.TRACE_COLORS["KTH-SP2"]
    assert plots.trace_color("my-own-log") == plots.trace_color("my-own-log")


# ---------------------------------------------------------------- notebook --

NOTEBOOK = paths.NOTEBOOKS / "00-traces.ipynb"


def test_notebook_runs_on_a_new_trace(tiny, tmp_path):
    """Adapting the study to a new trace is one parameter."""
    papermill = pytest.importorskip("papermill")
    out = tmp_path / "out"
    papermill.execute_notebook(str(NOTEBOOK), str(tmp_path / "executed.ipynb"),
                               parameters={"traces": [str(tiny)], "outdir": str(out)},
                               kernel_name="schedlab", progress_bar=False, cwd=str(tmp_path))
    for rel in ("numbers.json", "tables/premature.md", "tables/classes.csv", "figures/weekly.png",
                "figures/runtimes.pdf", "data/weekly.csv"):
        assert (out / rel).is_file(), rel
    doc = json.loads((out / "numbers.json").read_text())
    assert list(doc["traces"]) == ["tiny"]
    assert doc["traces"]["tiny"]["premature_pct"] == pytest.approx(30.0)
    executed = nbformat.read(tmp_path / "executed.ipynb", as_version=4)
    shown = "".join(o.get("data", {}).get("text/markdown", "") for c in executed.cells
                    if c.cell_type == "code" for o in c.outputs)
    assert "Premature jobs" in shown and "| tiny | cleaned | 10 |" in shown


# ----------------------------------------------- regression on bundled logs --

@pytest.mark.parametrize("name", ["KTH-SP2", "CTC-SP2"])
def test_completed_jobs_reproduce_thesis_table_6_1(name):
    """Found by this study: counted on the completed jobs (SWF status 1), the
    shares of thesis Table 6.1 are reproduced to the printed digits, while
    its divider column is the median of all the cleaned jobs."""
    s = study.characterise(name)
    divider, snp, sp = study.PUBLISHED["table_6_1"][name]
    done = s.classes["completed"]
    assert round(done.small_nonpremature, 2) == snp
    assert round(done.small_premature, 2) == sp
    assert s.classes["cleaned"].divider == divider
