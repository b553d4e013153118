"""Issue 46: nothing a name can run, one line for every error, an exit status
that tells the truth.  One test (or a few) per numbered finding of the
issue, each failing on the code before it, and a fuzz target of the HTML
writers (the trace report, the site's scorecard, an executed notebook's
export) with names from an XSS corpus: no page gains an element or an
attribute that the name carried."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from own_traces import make_log
from schedlab import names
from schedlab.errors import InputError
from schedlab.tools import cli

ROOT = Path(__file__).resolve().parents[1]

#: names that try to become markup, script, a link, a path or a shell command
XSS = [
    '<img src=x onerror="document.body.setAttribute(\'data-pwned\',\'yes\')">',
    "<script>alert(1)</script>", "</script><script>alert(1)</script>", "<!--<script>", "<svg/onload=alert(1)>",
    '"><b onmouseover=alert(1)>x</b>', "'><iframe src=javascript:alert(1)>", "[x](javascript:alert(1))",
    "[y](jav&#97;script:alert(1))", "<javascript:alert(1)>", "&lt;img src=x onerror=alert(1)&gt;",
    "a|b</td><td onclick=x()>", "`<b>x</b>`", "\\<b>x\\</b>", "x\u2028y\u2029<z>", "__proto__",
    "x';>pwned;'", "$(touch pwned)", "...", "a\\b", "a\nb", "my log's name",
]


class _Shape(HTMLParser):
    """The elements and attributes of a page (their names, counted): what a
    name must not add to.  Text and attribute values are not counted."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: dict[str, int] = {}

    def _add(self, key):
        self.found[key] = self.found.get(key, 0) + 1

    def handle_starttag(self, tag, attrs):
        self._add(tag)
        for a, v in attrs:
            self._add(f"{tag}@{a}")
            if v and v.strip().lower().startswith(("javascript:", "vbscript:")):
                self._add(f"{tag}@{a}=javascript")

    handle_startendtag = handle_starttag


def shape(page: str) -> dict[str, int]:
    p = _Shape()
    p.feed(page)
    p.close()
    return p.found


def assert_inert(page_with, page_plain, name):
    got, want = shape(page_with), shape(page_plain)
    assert got == want, (name, {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
                                if got.get(k) != want.get(k)})


# ------------------------------------------------------------------ the helpers --

@pytest.mark.parametrize("name", XSS)
def test_each_escaper_keeps_the_name_as_data(name):
    assert "<" not in names.html_text(name) and '"' not in names.html_text(name)
    cell = names.md_cell(name)
    assert "<" not in cell and "\n" not in cell and "[" not in cell
    assert names.md_uncell(cell) == re.sub(r"[\n\u2028\u2029]+", " ", name)
    text = names.script_json({"rows": [[name]]})
    assert not any(c in text for c in "<>&\u2028\u2029")
    assert json.loads(text) == {"rows": [[name]]}
    comp = names.component(name)
    assert "/" not in comp and "\\" not in comp and not comp.startswith(".") and comp.isprintable() and comp
    part = names.campaign_part(name)
    assert "/" not in part and "\\" not in part and part.isprintable() and not part.startswith(".")


def test_safe_names_keep_their_folders_and_caches():
    for n in ("KTH-SP2", "CEA-Curie", "site@request=runtime,m=48", "a.b_c"):
        assert names.component(n) == n
    for n in ("KTH-SP2", "KTH-SP2?request=runtime&m=64", "my log"):
        assert names.campaign_part(n) == n


# ---- 1. a script in a log's name: the Markdown tables and the executed notebook's export ----

def _export(md: str, tmp_path: Path, tag: str) -> str:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    from schedlab.publish.reproduce import _write_html

    nb = new_notebook()
    cell = new_code_cell("display(Markdown(t))")
    cell.outputs = [new_output("display_data", data={"text/markdown": md, "text/plain": "<Markdown>"})]
    nb.cells = [new_markdown_cell("# A study <b>on</b> a log"), cell]
    src = tmp_path / f"{tag}.ipynb"
    nbformat.write(nb, str(src))
    out = tmp_path / f"{tag}.html"
    _write_html(src, out)
    return out.read_text()


def _table(name: str):
    from schedlab.table import Table

    return Table(["trace", "jobs"], [[name, 12], [f"{name}?request=runtime", 3]], title=f"Cleaning of {name}",
                 notes=[f"{name}: cleaning removed 5 %"])


def test_a_name_in_a_markdown_table_is_text_in_the_exported_notebook(tmp_path):
    name = XSS[0] + ".swf"
    page = _export(_table(name).to_markdown(), tmp_path, "hostile")
    plain = _export(_table("plain.swf").to_markdown(), tmp_path, "plain")
    assert_inert(page, plain, name)
    assert "data-pwned" in page            # shown, as text


def test_raw_html_and_script_links_in_a_markdown_output_are_shown_as_text(tmp_path):
    # a study's own Markdown that carried a name unescaped: the export makes it inert anyway
    hostile = f"| a |\n|:--|\n| {XSS[0]} |\n\n[x](javascript:alert(1)) [y](jav&#97;script:1) <P_R>\n"
    plain = "| a |\n|:--|\n| b |\n\n[x](#here) [y](#there) P_R\n"
    page, ref = _export(hostile, tmp_path, "raw"), _export(plain, tmp_path, "plain")
    got, want = shape(page), shape(ref)
    assert "img" not in got and "img@onerror" not in got and "a@href=javascript" not in got
    assert got.get("a", 0) <= want.get("a", 0)
    assert "&lt;P_R&gt;" in page           # shown, not swallowed as an unknown tag


def test_a_markdown_table_still_reads_back_as_its_csv():
    from schedlab.publish.shipped import markdown_tables

    t = _table("a|b<c>&[d]\\e`f")
    (got,) = markdown_tables(t.to_markdown())
    assert got["rows"][0][0] == "a|b<c>&[d]\\e`f" and got["title"] == "Cleaning of a|b<c>&[d]\\e`f"


# ---- 2. make variables never reach a shell; PROFILE is checked ----

def _make(*args, timeout=120):
    return subprocess.run(["make", "--no-print-directory", "-s", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.skipif(not (ROOT / ".venv" / ".schedlab-installed").exists(), reason="needs make install")
def test_make_variables_cannot_run_a_command(tmp_path):
    probe = tmp_path / "pwned"
    for traces in (f"x';touch {probe}1;'", f"$(shell touch {probe}2)", f"`touch {probe}3`",
                   f"$$(touch {probe}4)", f"a; touch {probe}5"):
        r = _make("reproduce", f"TRACES={traces}")
        assert r.returncode != 0, r
        assert "trace report:" in r.stderr, r.stderr     # refused by the program, in one line
    r = _make("reproduce", f"TRACES=nonexist", f"PROFILE=quick>{probe}6")
    assert r.returncode != 0
    assert f"unknown PROFILE 'quick>{probe}6': known profiles are quick full" in r.stderr, r.stderr
    assert not list(tmp_path.iterdir()), list(tmp_path.iterdir())


def test_an_unknown_profile_is_one_line_naming_the_known_ones():
    r = _make("reproduce", "PROFILE=bogus")
    assert r.returncode == 2
    assert r.stderr.strip().endswith("unknown PROFILE 'bogus': known profiles are quick full.  Stop."), r.stderr
    assert "No rule to make target" not in r.stderr


def test_traces_are_split_in_python_quoting_as_a_shell_does(tmp_path):
    from schedlab.publish.trace_report import split_logs

    odd = tmp_path / "my log's.swf"
    odd.write_text("; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n")
    assert split_logs(str(odd)) == [str(odd)]                     # one existing file, whatever it holds
    assert split_logs(f"'{tmp_path}/a b.swf' KTH-SP2?request=runtime") == [f"{tmp_path}/a b.swf",
                                                                          "KTH-SP2?request=runtime"]
    assert split_logs("x';>pwned;'") == ["x;>pwned;"]                # a word, never a command
    with pytest.raises(InputError, match="quote a log whose name holds"):
        split_logs("it's.swf b.swf")


def test_make_lab_as_root_passes_allow_root():
    r = _make("-n", "lab")
    assert "--allow-root" in r.stdout and "running as root" in r.stdout, r.stdout


# ---- 3. the site's scorecard: no cell ends the data, __proto__ is a value ----

def _scorecard(cell: str) -> str:
    from schedlab.protocol.scorecard import VERDICTS
    from schedlab.publish.site import scorecard_body

    row = ["policies", "lelong2017", "Table 3", cell, "AvgWait", "1", "2", "[1, 3]", "reproduced", "", cell,
           "notebooks/x.html"]
    return scorecard_body([row, [*row[:3], "__proto__", *row[4:]]], [f"{cell}: 2 rows"], 1, VERDICTS)


def _embedded(page: str):
    start = page.index('<script type="application/json" id="rows">') + len('<script type="application/json" id="rows">')
    return json.loads(page[start:page.index("</script>", start)])


@pytest.mark.parametrize("cell", ["<!--<script>", "</script><script>alert(1)</script>", "a\u2028b", "__proto__"])
def test_the_scorecard_data_survives_any_cell(cell):
    page = _scorecard(cell)
    assert_inert(page, _scorecard("plain"), cell)
    data = _embedded(page)
    assert data["rows"][0][3] == cell and data["rows"][1][3] == "__proto__"
    from schedlab.publish.site import SCORECARD_JS
    assert SCORECARD_JS.count("Object.create(null)") >= 2      # counts keyed by any value, __proto__ too


# ---- 4. --trace and --set traces together ----

def test_trace_and_set_traces_together_are_refused(tmp_path):
    from schedlab.protocol.study import run_study

    a, b = make_log(tmp_path / "small.swf"), make_log(tmp_path / "oneweek.swf", "few-weeks")
    with pytest.raises(InputError, match="traces are given twice"):
        run_study("traces", traces=[str(a)], overrides={"traces": [str(b)]}, outdir=tmp_path / "o", log=None)
    assert not (tmp_path / "o").exists()


# ---- 5. make reproduce TRACES=...: the status and the messages whole ----

def test_the_trace_report_exits_non_zero_with_each_message_whole(tmp_path, monkeypatch, capsys):
    from schedlab.publish import trace_report

    log = make_log(tmp_path / "site.swf")
    long = "x" * 400 + " -- the end of the message"

    def failing(nb, profile, results=None, overrides=None):
        raise InputError(f"{nb.stem}: {long}")
    monkeypatch.setattr("schedlab.publish.reproduce.run_notebook", failing)
    monkeypatch.setenv("SCHEDLAB_TEST_TRACES", str(log))
    rc = trace_report.main(["--logs-from-env", "SCHEDLAB_TEST_TRACES", "--studies", "traces,mixed",
                            "--out", str(tmp_path / "out")])
    out = capsys.readouterr()
    assert rc == 1
    assert out.err.count("the end of the message") == 2 and "2 of 2 studies failed" in out.err, out.err
    assert "the end of the message" in (tmp_path / "out" / "report.html").read_text()


def test_make_reproduce_exits_non_zero_with_each_study_s_message(monkeypatch, capsys):
    from schedlab.errors import NotebookInputError
    from schedlab.publish import reproduce

    def failing(nb, profile, results=None, overrides=None):
        raise NotebookInputError(f"{nb.stem}: " + "y" * 400 + " -- whole", "InputError", nb.name)
    monkeypatch.setattr(reproduce, "run_notebook", failing)
    assert reproduce.main(["notebook", "00-traces", "09-schedules"]) == 1
    err = capsys.readouterr().err
    assert err.count(" -- whole") == 4 and "2 notebook(s) failed" in err and "Traceback" not in err, err


def test_an_empty_log_is_refused_at_once_by_name(tmp_path, capsys):
    empty = tmp_path / "empty.swf"
    empty.write_bytes(b"")
    from schedlab.publish import trace_report
    assert trace_report.main([str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"trace report: TRACES[0]: {empty}: empty file (0 bytes): not a log", err
    assert cli.main(["advise", str(tmp_path)]) == 2
    assert "is a directory, not a log file" in capsys.readouterr().err


# ---- a SchedlabError inside an executed notebook is its message; the kernel runs over IPC ----

def test_an_error_raised_in_a_notebook_is_its_one_line_message(tmp_path, capfd):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    from schedlab.errors import NotebookInputError
    from schedlab.publish.reproduce import execute

    nb = new_notebook(metadata={"kernelspec": {"name": "schedlab", "language": "python", "display_name": "schedlab"}})
    nb.cells = [new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
                new_code_cell("from schedlab.errors import InputError\nraise InputError(f'bad log {x}')")]
    src = tmp_path / "n.ipynb"
    nbformat.write(nb, str(src))
    with pytest.raises(NotebookInputError) as info:
        execute(src, tmp_path / "out" / "n.ipynb", tmp_path / "out" / "n.html", {"x": 7}, tmp_path / "out" / "p")
    assert str(info.value) == "bad log 7" and info.value.kind == "InputError"
    assert isinstance(info.value, InputError)
    assert "without encryption" not in capfd.readouterr().err


def test_from_notebook_keeps_a_bug_as_it_is():
    from papermill.exceptions import PapermillExecutionError

    from schedlab.errors import NotebookError, from_notebook

    bug = PapermillExecutionError(1, 1, "x", "KeyError", "'a'", ["tb"])
    assert from_notebook(bug) is bug
    gone = from_notebook(PapermillExecutionError(1, 1, "x", "FileNotFoundError", "no such file: a.swf", ["tb"]))
    assert isinstance(gone, NotebookError) and not isinstance(gone, InputError) and str(gone) == "no such file: a.swf"


# ---- 6. the advisor's -m and ?request= reach the classification study's campaign ----

def test_advise_options_reach_the_classification(tmp_path, monkeypatch):
    # the weekly classifier read the bare path ("week 0 has 68 jobs, the classification 41")
    import schedlab.studies.classification as classification
    from schedlab.protocol.study import validate
    from schedlab.tools import advise

    class Seen(Exception):
        pass

    def prepare(trace, *args, **kw):
        raise Seen(trace)
    monkeypatch.setattr(classification, "prepare", prepare)
    log = make_log(tmp_path / "noreq.swf", "two-thirds-no-request")
    spec = f"{log}?request=runtime&m=48"
    s = validate(advise.Settings, {"log": spec})
    with pytest.raises(Seen) as seen:
        advise._classes_campaign(None, None, spec, {}, s)
    assert "request=runtime" in str(seen.value) and "m=48" in str(seen.value), seen.value


# ---- 7. thresholds: non-finite refused, whole seconds kept exact ----

@pytest.mark.parametrize("value", [float("nan"), float("-inf"), 0.5, "0.5s", "1.5", 1799.5])
def test_a_threshold_that_is_not_whole_seconds_or_not_finite_is_refused(value):
    from schedlab.jobs import parse_duration

    with pytest.raises(InputError):
        parse_duration(value)


def test_durations_that_are_whole_seconds_are_kept():
    from schedlab.jobs import parse_duration

    assert parse_duration("2.31d") == 199584 and parse_duration(72000.0) == 72000
    assert parse_duration(float("inf")) is None and parse_duration("0.25h") == 900


def test_a_nan_threshold_on_the_command_line_is_one_line(tmp_path, capsys):
    log = make_log(tmp_path / "small.swf")
    rc = cli.main(["study", "run", "thresholds", "--trace", str(log), "--set", "thresholds=[.nan, 2h]",
                   "--outdir", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and "thresholds[0]" in err and len(err.strip().splitlines()) == 1, err


# ---- 8. Jobs() ----

def test_jobs_leave_the_callers_arrays_as_they_were():
    from schedlab.jobs import Jobs

    u = np.array([1, 2, 3])
    j = Jobs(u, u, u, u)
    u[0] = 9                                   # raised "assignment destination is read-only"
    assert u.flags.writeable and j.submit[0] == 1 and not j.submit.flags.writeable


def test_jobs_refuse_floats_outside_int64_and_boolean_counts():
    from schedlab.jobs import Jobs

    ok = dict(submit=[0, 1], run=[1, 1], req=[1, 1], procs=[1, 1])
    with pytest.raises(InputError, match="outside the range of int64"):
        Jobs(**{**ok, "run": np.array([1.0, 2.0 ** 63])})
    with pytest.raises(InputError, match="booleans"):
        Jobs(**{**ok, "procs": np.array([True, True])})


# ---- 9. intervals that cannot hold ----

def test_an_interval_that_cannot_hold_is_too_few_weeks():
    from schedlab.tools.advise.analysis import BASELINE, decide, interval_problem

    assert "passes +100 %" in interval_problem(-3.0, 109.6)
    assert "no width" in interval_problem(37.0, 37.0)
    assert interval_problem(-3.0, 40.0) is None
    weeks = 6                                      # every resampled week a copy of one source week
    train = {"avg_wait": np.array([[100.0] * weeks, [63.0] * weeks]), "max_wait": np.ones((2, weeks))}
    d = decide([BASELINE, "EASY-SPF-SPF"], ["pair", "pair"], train, train)
    assert d.learned == "EASY-SPF-SPF" and d.recommended == BASELINE and "too few weeks" in d.reason


# ---- 10 and 14: odd log names stay in their folder and get their campaigns ----

@pytest.mark.parametrize("stem", ["..", "...", "a\\b", "a\nb", "<b>x</b>", "it's a log"])
def test_odd_log_names_stay_under_their_folder_and_get_campaigns(tmp_path, stem):
    from schedlab.campaigns.spec import check_name
    from schedlab.protocol.study import own_label, validate
    from schedlab.studies.thresholds import Params, traintest_campaigns
    from schedlab.workloads.traces import resolve

    log = make_log(tmp_path / f"{stem}.swf")
    info = resolve(str(log))
    label = own_label([info])
    assert (Path("/r/traces") / label).resolve().parent == Path("/r/traces") and label.isprintable()
    p = validate(Params, {"traces": [str(log)], "sweep_traces": [], "fig5_trace": None, "thesis_traces": [],
                          "weeks": 2, "policies": ["FCFS", "SPF"]})
    for c in traintest_campaigns(p, p.traces[0], [None, 72000]):
        assert check_name(c.name) == c.name


# ---- 11. the advisor's notebook mode: one line, exit 2, before any kernel ----

@pytest.mark.parametrize("case", ["missing", "empty", "dir", "fake-gz", "sacct-on-swf", "one-job", "m=abc", "cache",
                                  "all-larger-than-m"])
def test_advise_input_errors_are_one_line_in_notebook_mode(tmp_path, capsys, case, monkeypatch):
    import schedlab.publish.reproduce as reproduce

    monkeypatch.setattr(reproduce, "execute", lambda *a, **k: pytest.fail("a kernel was started"))
    log = make_log(tmp_path / "small.swf")
    args = {"missing": [str(tmp_path / "nope.swf")], "dir": [str(tmp_path)], "m=abc": [f"{log}?m=abc"],
            "sacct-on-swf": [str(log), "--format", "sacct"],
            "cache": [str(log), "--cache", str(log)]}.get(case)
    if case == "empty":
        (tmp_path / "e.swf").write_bytes(b"")
        args = [str(tmp_path / "e.swf")]
    elif case == "fake-gz":
        (tmp_path / "t.swf.gz").write_text("plain text\n")
        args = [str(tmp_path / "t.swf.gz")]
    elif case == "one-job":
        lines = log.read_text().splitlines()
        (tmp_path / "one.swf").write_text("\n".join([x for x in lines if x.startswith(";")] +
                                                    [next(x for x in lines if not x.startswith(";"))]) + "\n")
        args = [str(tmp_path / "one.swf")]
    elif case == "all-larger-than-m":
        def wide(line):
            f = line.split()
            f[4] = f[7] = "64"                    # allocated and requested processors > MaxProcs 32
            return " ".join(f)
        (tmp_path / "wide.swf").write_text("\n".join(x if x.startswith(";") else wide(x)
                                                     for x in log.read_text().splitlines()) + "\n")
        args = [str(tmp_path / "wide.swf")]
    rc = cli.main(["advise", *args, "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and err.startswith("schedlab: error: "), err


# ---- 12. negative workers: refused at once ----

def test_negative_workers_are_refused_at_once(tmp_path):
    from schedlab.protocol.study import run_study
    from schedlab.tools.advise import advise

    for argv in (["study", "run", "traces", "--workers", "-1"], ["advise", "x.swf", "--workers", "-3"]):
        with pytest.raises(SystemExit) as info:
            cli.main(argv)
        assert info.value.code == 2
    with pytest.raises(InputError, match="workers"):
        run_study("traces", workers=-1, traces=[str(make_log(tmp_path / "a.swf"))], outdir=tmp_path / "o", log=None)
    with pytest.raises(InputError, match="workers"):
        advise(make_log(tmp_path / "b.swf"), workers=-3, out=tmp_path / "p", echo=None)


# ---- 13. huge or non-integer weeks, nested lists where names go ----

@pytest.mark.parametrize("study,setting,match", [
    ("thresholds", "weeks=99999999999999999999999999999", "more than 10,000"),
    ("thresholds", "weeks=1e9", "more than 10,000"),
    ("thresholds", "weeks=2.5", "expected an integer"),
    ("mixed", "optimisers=[[]]", r"optimisers\[0\]: expected a name"),
    ("prediction", "traces=[[KTH-SP2]]", r"traces\[0\]"),
])
def test_odd_values_are_one_line(study, setting, match, capsys):
    rc = cli.main(["study", "run", study, "--set", setting])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    import re
    assert re.search(match, err), err


# ---- noise: one warning line per cleaning report; dask shows the user's error only ----

def test_a_cleaning_warning_is_one_line(tmp_path, recwarn):
    from schedlab.protocol.study import cleaning_records, study_module, validate
    from schedlab.studies.registry import get
    from schedlab.workloads.workload import CleaningWarning

    log = make_log(tmp_path / "noreq.swf", "two-thirds-no-request")
    lines: list[str] = []
    mod = study_module(get("traces"))
    cleaning_records(mod, validate(mod.Params, {"traces": [str(log)]}), lines.append)
    said = [x for x in lines if "no requested time" in x]
    assert len(said) == 1 and said[0].startswith("WARNING noreq:"), lines
    assert not [w for w in recwarn if issubclass(w.category, CleaningWarning)]


def test_a_bug_in_a_dask_cell_is_shown_once_without_compute_failed(tmp_path):
    (tmp_path / "bugcell.py").write_text(textwrap.dedent("""
        def cell(p):
            raise ValueError("a site cell's own error")
    """))
    (tmp_path / "c.yaml").write_text("name: buggy\ncell: bugcell:cell\ndims:\n  k: [1, 2]\nparams: {}\n"
                                     "metrics: [avg_wait]\n")
    env = dict(os.environ, SCHEDLAB_CELL_MODULES="bugcell",
               PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-m", "schedlab.tools.cli", "campaign", str(tmp_path / "c.yaml"),
                        "--workers", "1", "--cache", str(tmp_path / "cache"), "-o", str(tmp_path / "o.nc"),
                        "--no-progress"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert r.returncode != 0
    assert "Compute Failed" not in r.stderr, r.stderr
    assert r.stderr.count("ValueError: a site cell's own error") == 2, r.stderr   # the error, and in its note
    assert "raised on a dask worker" in r.stderr


# ---- the fuzz target: names from the corpus through every HTML writer ----

def _report_page(tmp: Path, name: str) -> str:
    from schedlab.publish import trace_report
    from schedlab.studies.registry import get

    entry = get("traces")
    folder = tmp / entry.stem
    (folder / "tables").mkdir(parents=True, exist_ok=True)
    _table(name).write(folder / "tables" / "cleaning")
    (folder / "findings.json").write_text(json.dumps({"a": f"{name} has 3 weeks"}))
    (folder / "numbers.json").write_text(json.dumps({"left_out": [f"{name}: too short"], "provenance": {"inputs": {
        name: {"path": f"/x/{name}.swf", "cleaning": {
            "choices": {"request": name}, "jobs_in": 3, "jobs_out": 2, "removed_share": 0.3,
            "removed_work_share": 0.1, "m": 4, "m_source": name, "steps": [[name, 1, name, name]],
            "warnings": [name]}}}}}))
    page = trace_report.write(tmp, [entry], [name], "quick", {entry.stem: {"ok": False, "seconds": 1,
                                                                          "error": f"InputError: {name}"}})
    return page.read_text()


_corpus = st.sampled_from(XSS)
_names = st.one_of(_corpus, st.builds(lambda a, b: a + b, _corpus, _corpus),
                   st.builds(lambda a, t: a + t, _corpus, st.text(alphabet="<>\"'&[]()|\\`/:;=!- \nabcjs", max_size=12)))


@settings(max_examples=int(os.environ.get("SCHEDLAB_FUZZ_EXAMPLES", 12)), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(name=_names)
def test_fuzz_no_html_writer_gains_an_element_or_attribute_from_a_name(tmp_path_factory, name):
    tmp = tmp_path_factory.mktemp("fuzz")
    if not _PLAIN:
        _PLAIN.update(report=_report_page(tmp / "plain", "plainname"), card=_scorecard("plainname"),
                      export=_export(_table("plainname").to_markdown(), tmp, "plain"))
    assert_inert(_report_page(tmp / "a", name), _PLAIN["report"], name)
    assert_inert(_scorecard(name), _PLAIN["card"], name)
    assert_inert(_export(_table(name).to_markdown(), tmp, "n"), _PLAIN["export"], name)


_PLAIN: dict[str, str] = {}
