"""Your own model through the papers' protocols (issue 51, items 1-2): a
per-job column given as a file or as a function of the jobs, named in a
study's ``columns`` parameter, on the command line or in the trace spec,
follows the jobs through cleaning, resampling and splitting, keys the cells
by its content, and a missing or malformed one is one error before any cell
runs; a Python policy (``py:module:name``) runs where the protocol runs and
its twin expression gives the same numbers."""
from __future__ import annotations

import numpy as np
import pytest

from schedlab.campaigns.spec import Campaign
from schedlab.errors import InputError
from schedlab.jobs import Jobs
from schedlab.protocol import study
from schedlab.workloads import columns, traces, workload

MODEL = "schedlab.studies.yourpolicy.model"
PRED = f"{MODEL}:user_runtime"
SPF_PY = f"py:{MODEL}:shortest_request"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A generated log and a column file for its cleaned jobs (1.5 x the runtime)."""
    d = tmp_path_factory.mktemp("columns")
    log = study.tiny_log(d / "tiny.swf", m=16)
    c = traces.cleaned(str(log))
    f = d / "pred.csv"
    f.write_text("id,pred\n" + "".join(f"{i},{1.5 * r}\n" for i, r in zip(c.jobs.id, c.jobs.run)))
    return log, f, c


def _jobs(n=40, seed=0):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 4 * 7 * 86400, n))
    run = rng.integers(1, 5000, n)
    return Jobs(submit, run, run + 10, rng.integers(1, 4, n), None, rng.integers(0, 5, n),
                columns={"pred": np.arange(n, dtype=float) * 3.0})


# -------------------------------------------------------- the jobs' columns --

def test_a_resampled_job_keeps_its_source_jobs_value():
    jobs = _jobs()
    r = workload.resample(jobs, 6, 4)
    assert r.jobs.columns is not None
    np.testing.assert_array_equal(r.jobs.columns["pred"], jobs.columns["pred"][r.source_index])
    week = r.week_jobs(2)
    b = r.week_bounds
    np.testing.assert_array_equal(week.columns["pred"], r.jobs.columns["pred"][b[2]:b[3]])
    train, test = workload.split(jobs)
    np.testing.assert_array_equal(np.r_[train.columns["pred"], test.columns["pred"]], jobs.columns["pred"])
    for part in workload.weeks(jobs, shift=True):
        np.testing.assert_array_equal(part.columns["pred"], part.id * 3.0 - 3.0)


def test_a_trace_carries_its_columns_in_its_text_and_its_key_by_content(tiny, tmp_path):
    log, f, c = tiny
    info = traces.with_columns(traces.resolve(str(log)), {"pred": str(f)})
    assert info.name == "tiny" and info.columns == (("pred", str(f.resolve())),)
    text = traces.text(info)
    assert text.endswith(f"?col.pred={f.resolve()}")
    assert traces.resolve(text).columns == info.columns          # a cell on a worker gets it back
    got = traces.cleaned(text).jobs.columns["pred"]
    np.testing.assert_array_equal(got, 1.5 * c.jobs.run)
    # the cache key sees the content, not the path: a copy elsewhere keys alike, other values do not
    moved = tmp_path / "elsewhere.csv"
    moved.write_bytes(f.read_bytes())
    other = tmp_path / "other.csv"
    other.write_text("id,pred\n" + "".join(f"{i},{2.0 * r}\n" for i, r in zip(c.jobs.id, c.jobs.run)))
    camp = Campaign("k", {"policy": ["FCFS"]}, {"weeks": 2, "seed": 1, "sample": 0, "threshold": None},
                    cell="schedlab.science.online_bandit:fixed_cell")
    key = lambda src: camp.key({**camp.params, "policy": "FCFS",  # noqa: E731
                                "trace": traces.text(traces.with_columns(traces.resolve(str(log)), {"pred": str(src)}))})
    assert key(f) == key(moved) != key(other)
    # a trace without columns: its parameters are keyed as they always were
    plain = {"trace": traces.text(traces.resolve(str(log))), "policy": "FCFS"}
    from schedlab.campaigns.spec import _keyed
    assert _keyed(plain) is plain and traces.keyed_text(plain["trace"]) == plain["trace"]


def test_a_function_column_is_computed_from_the_cleaned_jobs(tiny):
    log, _, c = tiny
    text = f"{log}?col.pred={PRED}"
    got = traces.cleaned(text).jobs.columns["pred"]
    from schedlab.studies.yourpolicy.model import user_runtime
    np.testing.assert_array_equal(got, user_runtime(c.jobs))
    assert (got <= c.jobs.req).all() and got.min() >= 0


@pytest.mark.parametrize("source, says", [
    ("missing.csv", "is not a file"),
    ("nosuchmodule_xyz:fn", "cannot import 'nosuchmodule_xyz'"),
    (f"{MODEL}:nothing", "has no function 'nothing'"),
    ("schedlab.jobs:parse_duration", "raised InputError|must return"),
])
def test_a_bad_column_source_is_one_line(tiny, tmp_path, source, says):
    log, _, _ = tiny
    with pytest.raises(InputError, match=says) as e:
        if source.endswith(".csv"):
            columns.study_columns({"pred": str(tmp_path / source)}, "columns")
        else:
            traces.cleaned(f"{log}?col.pred={source}")
    assert "\n" not in str(e.value)


# ------------------------------------------------------ through the studies --

def _run(name, ov, tmp_path, **kw):
    return study.run_study(name, overrides=ov, outdir=tmp_path / "out", workers=1, cache_dir=tmp_path / "cache",
                           log=None, **kw)


def test_your_policy_with_a_file_column_a_function_column_and_a_python_twin(tiny, tmp_path):
    """Done-when of issue 51: a policy reading col.pred runs through the
    your-policy study with a study-level column (file, then function), and
    the KeyFunction twin of ``expr:req`` gives SPF's numbers."""
    from schedlab.studies.yourpolicy.params import TINY

    log, f, _ = tiny
    pols = ["expr:col.pred * procs", "expr:req", SPF_PY]
    res = _run("yourpolicy", dict(TINY, traces=[str(log)], policies=pols, columns={"pred": str(f)}), tmp_path)
    change = {r["policy"]: r["change_pct"] for r in res["rows"]}
    assert change["expr:req"] == change[SPF_PY] == change["SPF"]
    assert np.isfinite(change["expr:col.pred * procs"])
    ds = res["datasets"]["tiny"]
    np.testing.assert_array_equal(ds.sum_wait.sel(policy=SPF_PY).values, ds.sum_wait.sel(policy="SPF").values)
    assert res["numbers"]["provenance"]["inputs"]["tiny"]["columns"] == {"pred": str(f.resolve())}
    # the same column as a function of the jobs: another content, other numbers; run again: all cached
    res2 = _run("yourpolicy", dict(TINY, traces=[str(log)], policies=pols[:1], columns={"pred": PRED}), tmp_path)
    assert res2["timing"]["cells_computed"] > 0
    res3 = _run("yourpolicy", dict(TINY, traces=[str(log)], policies=pols[:1], columns={"pred": PRED}), tmp_path)
    assert res3["timing"]["cells_computed"] == 0


def test_a_missing_column_stops_before_any_cell(tiny, tmp_path):
    from schedlab.studies.yourpolicy.params import TINY

    log, _, _ = tiny
    with pytest.raises(InputError, match=r"policies\[0\]: expr:col.pred \* procs reads column 'pred', which tiny "
                                         r"does not carry \(its columns: none\)"):
        _run("yourpolicy", dict(TINY, traces=[str(log)], policies=["expr:col.pred * procs"]), tmp_path)
    bad = tmp_path / "bad.csv"
    bad.write_text("1,2\n2,x\n")
    with pytest.raises(InputError, match=r"bad.csv:2: field 2 \(pred\): 'x' is not a finite number"):
        _run("yourpolicy", dict(TINY, traces=[str(log)], policies=["expr:col.pred"], columns={"pred": str(bad)}),
             tmp_path)
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.nc"))


def test_selection_and_policy_comparison_take_columns_and_python_policies(tiny, tmp_path):
    from schedlab.studies.policies.params import TINY as POL
    from schedlab.studies.selection.params import TINY as SEL

    log, f, _ = tiny
    arms = ["FCFS", "SPF", "expr:col.pred", SPF_PY]
    res = _run("selection", dict(SEL, traces=[str(log)], policies=arms, periods=["day"], resamples=2,
                                 columns={"pred": str(f)}), tmp_path / "sel")
    (r,) = res["results"]
    assert np.array_equal(r.fixed.sum_wait.sel(policy="SPF").values, r.fixed.sum_wait.sel(policy=SPF_PY).values)
    ov = dict(POL, bandit_policies=["FCFS", "SPF"], extra_policies=["expr:col.pred * procs", SPF_PY],
              lelong_trace=None, table_traces=[], thesis_traces=[], bandit_traces=[str(log)], bandit_weeks=4,
              columns={"pred": PRED})
    res = _run("policies", ov, tmp_path / "pol")
    (bd,) = res["bandit"]
    assert bd.change["SPF"] == bd.change[SPF_PY]


def test_the_command_line_takes_columns_and_a_trace_spec_carrying_one(tiny, tmp_path, capsys):
    from schedlab.tools import cli

    log, f, _ = tiny
    common = ["study", "run", "yourpolicy", "--workers", "1", "--no-progress", "--cache", str(tmp_path / "cache"),
              "--set", "samples=2", "--set", "weeks=3", "--set", "compare=[FCFS]",
              "--set", 'policies=["expr:col.pred * procs"]']
    assert cli.main(common + ["--trace", str(log), "--column", f"pred={f}", "--outdir", str(tmp_path / "a")]) == 0
    assert cli.main(common + ["--trace", f"{log}?col.pred={PRED}", "--outdir", str(tmp_path / "b")]) == 0
    assert (tmp_path / "b" / "tables" / "gains.csv").is_file()
    # a bundled log (the study's default trace) with a function column
    assert cli.main(common + ["--column", f"pred={PRED}", "--outdir", str(tmp_path / "c")]) == 0
    assert "expr:col.pred * procs" in (tmp_path / "c" / "tables" / "gains.csv").read_text()
    capsys.readouterr()
    assert cli.main(common + ["--trace", str(log), "--column", "pred=nothing.csv"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing.csv" in err[0] and "is not a file" in err[0], err


def test_notebook_10_puts_a_models_score_through_the_protocol(tiny, tmp_path):
    """Item 6: the notebook's model step (a per-user runtime prediction learned
    on the training half, as a column) runs beside the built-ins, with intervals."""
    from test_study_prediction import execute_notebook

    from schedlab import paths
    from schedlab.studies.yourpolicy.params import TINY

    log, _, _ = tiny
    out = tmp_path / "out"
    params = {**TINY, "traces": [str(log)], "workers": 1, "outdir": str(out)}
    nb = execute_notebook(paths.NOTEBOOKS / "10-your-policy.ipynb", tmp_path, params)
    printed = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "tiny: expr:col.pred * procs: " in printed, printed[-2000:]
    table = (out / "your-model" / "tables" / "gains.csv").read_text()
    assert "expr:col.pred * procs" in table and "SPF" in table


def test_the_prediction_study_takes_a_column_and_a_python_estimator(tiny, tmp_path):
    """Your own estimates beside gaussier2015's: col:NAME and a Python
    Estimator; the Estimator twin of the requested time gets its numbers."""
    from schedlab.studies.prediction.params import TINY

    log, f, _ = tiny
    mine = ["col:pred", f"py:{MODEL}:Requested"]
    ov = dict(TINY, traces=[str(log)], extra_estimates=mine, columns={"pred": str(f)})
    res = _run("prediction", ov, tmp_path)
    ds = res["dataset"]
    for var in ("avg_wait", "mean_bsld", "mae"):
        np.testing.assert_array_equal(ds[var].sel(estimate=mine[1]).values, ds[var].sel(estimate="requested").values)
    assert not np.array_equal(ds.mae.sel(estimate="col:pred").values, ds.mae.sel(estimate="requested").values)
    with pytest.raises(InputError, match=r"extra_estimates\[0\]: col:other reads column 'other'"):
        _run("prediction", dict(ov, extra_estimates=["col:other"]), tmp_path)


def test_the_advisor_takes_a_python_policy_as_a_candidate():
    from schedlab.tools.advise.cells import parse

    c = parse(f"{SPF_PY}|T=20h")
    assert (c.primary, c.backfill, c.threshold, c.family) == (SPF_PY, SPF_PY, 72000, "your policy (Python)")
    with pytest.raises(InputError, match="cannot import 'nosuch_xyz'"):
        parse("py:nosuch_xyz:keys")


def test_the_columns_parameter_reads_a_mapping_a_list_or_their_text(tiny):
    _, f, _ = tiny
    want = (("pred", f.resolve()), ("fn", PRED))
    assert columns.study_columns({"pred": str(f), "fn": PRED}, "columns") == want
    assert columns.study_columns([f"pred={f}", f"fn={PRED}"], "columns") == want        # what --column gives
    assert columns.study_columns(f'{{pred: "{f}", fn: "{PRED}"}}', "columns") == want    # papermill -p
    assert columns.study_columns([], "columns") == columns.study_columns("none", "columns") == ()
    for bad, says in (({"user": str(f)}, "'user' is the jobs' users"), (["pred"], r"columns\[0\]: expected NAME=FILE"),
                      ([f"pred={f}", f"pred={PRED}"], "given twice"), ({"pred": "a&b.csv"}, "a trace spec cannot carry")):
        with pytest.raises(InputError, match=says):
            columns.study_columns(bad, "columns")
