"""`make reproduce TRACES=...`: every trace-based study through its notebook
on the user's log, and one self-contained page that states how the log was
cleaned, what a study left out and why, and which study failed."""
from __future__ import annotations

import json

import pytest

from own_traces import make_log
from schedlab.publish import trace_report
from schedlab.errors import InputError


def test_the_trace_based_studies_are_those_the_registry_says_read_traces():
    """trace_report finds them by their parameters (a trace field), the
    registry says it in study.toml (data = ["traces"]): the two agree, so
    the hostile-log tests (tests/own_traces.py) cover every one."""
    from own_traces import TINY
    from schedlab.studies.registry import STUDIES

    names = [e.name for e, _ in trace_report.trace_studies()]
    assert names == [e.name for e in STUDIES if "traces" in e.data] == list(TINY)
    assert "energy" not in names and {"traces", "policies", "schedules"} <= set(names)


def test_an_unknown_study_is_refused(tmp_path):
    log = make_log(tmp_path / "site.swf", "base")
    with pytest.raises(InputError, match="not a trace-based study: energy"):
        trace_report.run([str(log)], only=["energy"], out=tmp_path / "out", log=lambda s: None)


@pytest.mark.slow
def test_the_report_states_cleaning_left_out_studies_and_failures(tmp_path, monkeypatch):
    log = make_log(tmp_path / "site.swf", "few-weeks+no-requests")
    lines = []
    page = trace_report.run([f"{log}?m=48"], "quick", only=["traces", "mixed"], out=tmp_path / "out",
                            log=lines.append)
    text = page.read_text()
    status = json.loads((tmp_path / "out" / "status.json").read_text())
    assert status["00-traces"]["ok"] and status["03-mixed-policies"]["ok"], status
    assert (tmp_path / "out" / "html" / "00-traces.html").is_file()
    assert "2 of 2 trace-based studies ran to their end" in text
    assert "m = 48 (the trace spec&#x27;s m)" in text                 # where m came from
    assert "request = runtime (auto)" in text                          # the forced choice, and its warning
    assert "have no requested time" in text
    assert "Left out: site" in text and "needs at least 2" in text     # mixed: one week is too short
    assert text.count("data:image/png;base64,") >= 2                   # the traces study's figures, inline

    def broken(nb, profile, results=None, overrides=None):
        raise RuntimeError("kernel died")
    monkeypatch.setattr("schedlab.publish.reproduce.run_notebook", broken)
    page = trace_report.run([str(log)], "quick", only=["traces"], out=tmp_path / "out2", log=lines.append)
    text = page.read_text()
    assert "0 of 1 trace-based studies ran to their end" in text and "kernel died" in text
