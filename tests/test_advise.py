"""schedlab advise: the recommendation on logs built to have a known
answer, its consistency with the thresholds study on the same log and
protocol, the command line and notebook, and bad input."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schedlab.tools import cli
from schedlab.tools.advise import BASELINE, advise
from schedlab.tools.advise.cells import parse
from schedlab.errors import InputError
from schedlab.workloads.swf import write_swf

WEEK = 7 * 86400
SMALL = {"weeks": 6, "policies": ["FCFS", "SPF"], "extra": [], "mixed_resolution": 0, "classification": False,
         "workers": 1, "echo": None,
         "progress": False}


def _log(path: Path, kind: str, weeks: int = 8, seed: int = 1) -> Path:
    """``short-first``: an overloaded 16-processor machine where a fifth of
    the jobs run 6-11 h and the others minutes, requests exact: shortest
    first must win by far.  ``identical``: every job the same (4 processors,
    1 h, requested 1 h) at 80 % load: jobs wait, but no order changes anything."""
    rng = np.random.default_rng(seed)
    n = 260 * weeks if kind == "short-first" else 560 * weeks
    submit = np.sort(rng.integers(0, weeks * WEEK, n))
    if kind == "short-first":
        long = rng.random(n) < 0.2
        run = np.where(long, rng.integers(22000, 40000, n), rng.integers(60, 600, n))
        procs = rng.choice([1, 2, 4, 8], n)
    elif kind == "identical":
        run, procs = np.full(n, 3600), np.full(n, 4)
    else:
        raise ValueError(kind)
    user = rng.integers(1, 6, n)
    fields = {"job_id": np.arange(1, n + 1), "submit": submit, "wait": np.zeros(n, np.int64), "run": run,
              "alloc_procs": procs, "req_procs": procs, "req_time": run, "status": np.ones(n, np.int64),
              "user": user, "group": user, "partition": np.ones(n, np.int64)}
    return write_swf(path, fields, header_lines=["Version: 2.2", "MaxProcs: 16", "UnixStartTime: 0"])


def test_a_log_where_shortest_first_wins_gets_it(tmp_path):
    log = _log(tmp_path / "short.swf", "short-first")
    adv = advise(log, out=tmp_path / "out", cache_dir=tmp_path / "cache", **SMALL)
    d = adv.decision
    assert not d.keep
    assert parse(d.recommended).primary == "SPF", d.recommended
    r = d.row(d.recommended)
    assert r.test_gain_ci[0] > 0 and r.test_gain > 20
    # the worst waits are measured for it and for the baseline, on the held-out weeks
    assert set(adv.detail) >= {d.recommended, BASELINE}
    assert all(np.isfinite(adv.detail[BASELINE]["top1_wait"]))
    page = adv.report.read_text()
    assert f"deploy {d.recommended}" in page and "Limits" in page and "Slurm" in page
    assert "data:image/png;base64," in page          # self-contained: figures embedded
    assert (tmp_path / "out" / "tables" / "candidates.csv").is_file()


def test_a_log_where_nothing_helps_keeps_easy_fcfs_fcfs(tmp_path):
    log = _log(tmp_path / "same.swf", "identical")
    adv = advise(log, out=tmp_path / "out", cache_dir=tmp_path / "cache",
                 **{**SMALL, "policies": ["FCFS", "SPF", "SQF"]})
    d = adv.decision
    assert np.nanmean(adv.detail[BASELINE]["avg_wait"]) > 60      # jobs do wait
    assert d.keep and d.recommended == BASELINE
    assert all(abs(r.test_gain) < 1e-9 for r in d.rows if np.isfinite(r.test_gain))
    assert f"keep {BASELINE}" in adv.first_screen()
    assert f"keep {BASELINE}" in adv.report.read_text()
    # 8 weeks: 4 source weeks a half, too few for the intervals: said in the terminal too (issue 32)
    assert "WARNING: the log has" in adv.first_screen() and "too few for the intervals" in adv.first_screen()


def test_consistent_with_the_thresholds_study(tmp_path):
    """The same log and protocol: the thresholds study's learned pair and
    held-out gain at T are the advisor's, and the advisor learns the same
    pair when its candidates are the study's."""
    from schedlab.protocol.study import run_study

    log = _log(tmp_path / "short.swf", "short-first", seed=4)
    res = run_study("thresholds", traces=[str(log)], overrides={
        "weeks": 6, "policies": ["FCFS", "SPF", "SQF"], "threshold": "20h", "sweep_traces": [], "fig5_trace": None,
        "thesis_traces": []}, outdir=tmp_path / "study", cache_dir=tmp_path / "cache-study", workers=1, log=None,
        progress=False)
    (name, study), = res["fig8"].items()
    adv = advise(log, out=tmp_path / "out", cache_dir=tmp_path / "cache-advise",
                 **{**SMALL, "policies": ["FCFS", "SPF", "SQF"]})
    mine = adv.consistency["20h"]
    assert mine.pair == study.pair
    assert mine.test_gain == pytest.approx(study.test_gain, rel=1e-12)
    assert mine.test_gain_ci == pytest.approx(study.test_gain_ci, rel=1e-12)
    # the study's pair at T is one of the advisor's candidates, with the same held-out gain
    label = study.pair if study.pair.startswith("EASY-FCFS-") else f"{study.pair}/T=20h"
    assert adv.decision.row(label).test_gain == pytest.approx(study.test_gain, rel=1e-12)
    # the advisor's own cell simulates the same weeks as the study's campaigns
    base = adv.detail[BASELINE]["avg_wait"]
    assert np.nanmean(base) == pytest.approx(study.test_base_avg, rel=1e-12)


def test_command_line_runs_the_notebook_and_reads_sacct(tmp_path, capsys):
    sacct = Path(__file__).parents[1] / "data" / "site-logs" / "slurm-22.05" / "sacct-allocations.psv"
    out = tmp_path / "out"
    rc = cli.main(["advise", str(sacct), "--format", "sacct", "--weeks", "2", "--out", str(out), "--cache",
                   str(tmp_path / "cache"), "--workers", "1", "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Recommendation" in text
    assert "too few for the intervals shown" in text       # a log of minutes: said in the terminal (issue 32)
    assert (out / "report.html").is_file() and (out / "advise.ipynb").is_file()
    assert (out / "html" / "advise.html").is_file()
    assert (out / "sacct-allocations.swf").is_file()        # the import, kept beside the report
    import csv
    with open(out / "tables" / "candidates.csv") as fh:
        families = {row["family"] for row in csv.DictReader(fh)}
    assert len(families) == 4          # pairs, runtime predictions, online selection, the mixed policy


def test_bad_input_names_file_line_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 16\n1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n"
                   "2 10 0 abc 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    assert cli.main(["advise", str(bad), "--out", str(tmp_path / "o"), "--no-notebook", "--no-progress",
                     "--cache", str(tmp_path / "c"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "bad.swf" in err and ":3" in err and "run" in err.lower()
    sacct = tmp_path / "bad.psv"
    src = (Path(__file__).parents[1] / "data" / "site-logs" / "slurm-22.05" / "sacct-allocations.psv").read_text()
    lines = src.splitlines()
    lines[2] = lines[2].replace("COMPLETED", "COMPLETED").replace("2026-11-23T20:27:35", "not-a-date", 1)
    sacct.write_text("\n".join(lines) + "\n")
    assert cli.main(["advise", str(sacct), "--format", "sacct", "--out", str(tmp_path / "o2"), "--no-notebook",
                     "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "bad.psv" in err and "3" in err and "Start" in err
    with pytest.raises(InputError, match="objective"):
        advise(bad, objective="fastest", out=tmp_path / "o3")
    with pytest.raises(InputError, match="max_wait_risk"):
        advise(bad, max_wait_risk=0.5, out=tmp_path / "o3")


def test_small_first_candidates_get_the_classifiers_classes(tmp_path):
    from schedlab.engine import sim
    from schedlab.tools.advise.cells import week_classes

    log = _log(tmp_path / "short.swf", "short-first")
    adv = advise(log, out=tmp_path / "out", cache_dir=tmp_path / "cache", **{**SMALL, "weeks": 3,
                                                                             "classification": True})
    rows = [r for r in adv.decision.rows if r.family == "small-first classification (thesis ch. 6)"]
    assert len(rows) == 4
    # the classes reach the simulation: small-first FCFS is not EASY-FCFS-FCFS
    fcfs = next(r for r in rows if r.name.startswith("EASY-FCFS-FCFS/"))
    assert fcfs.train_gain != 0
    # classes follow each job by its line in the log
    jobs = sim.Jobs([0, 5, 9], [10, 10, 10], [10, 10, 10], [1, 1, 1], lines=[12, 40, 7])
    assert week_classes(jobs, np.array([7, 12])).tolist() == [1, 0, 1]


def test_max_wait_risk_excludes_what_starves_the_worst_jobs(tmp_path):
    log = _log(tmp_path / "short.swf", "short-first")
    free = advise(log, out=tmp_path / "a", cache_dir=tmp_path / "cache", **SMALL).decision
    assert free.row(free.learned).train_maxwait_rel > 1.5            # shortest first starves the long jobs
    held = advise(log, out=tmp_path / "b", cache_dir=tmp_path / "cache", max_wait_risk=1.2, **SMALL).decision
    assert held.row(held.learned).train_maxwait_rel <= 1.2
    assert held.learned != free.learned
    assert all(r.allowed == (r.train_maxwait_rel <= 1.2 or r.name == BASELINE) for r in held.rows)
