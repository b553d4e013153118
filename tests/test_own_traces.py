"""Every trace-based study runs to its end, analysis and figures included,
on logs that break analyses written for the papers' logs (issue "your own
trace"): few weeks, a single user, no or zero waits, weeks whose mean lies
outside their deciles, a job larger than half the machine, bursts of
identical submit times, missing requested times and machine size -- alone
and combined (tests/own_traces.py).  Tiny sizes; the driver as a user calls
it (``run_study(..., traces=[path])``).  tools/own_trace_check.py runs the
same on every property alone, through the notebooks too."""
from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, example, given, settings

from own_traces import TINY, logs, make_log
from schedlab.protocol.study import run_study

STUDIES = list(TINY)

#: two combinations that hold every property between them, then one drawn
SHORT = "no-requests+no-waits+grid+few-weeks+single-user+bursts"
LONG = "two-thirds-no-request+skewed-weeks+wide-job"


@pytest.mark.slow
@pytest.mark.parametrize("study", STUDIES)
@settings(max_examples=1, suppress_health_check=list(HealthCheck))
@example(log=(SHORT, 1))
@example(log=(LONG, 2))
@given(log=logs())
def test_every_study_runs_to_its_end_on_hostile_logs(study, log, tmp_path_factory):
    kind, seed = log
    folder = tmp_path_factory.mktemp(f"own-{study}")
    path = make_log(folder / "own.swf", kind, seed=seed)
    out = folder / "out"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_study(study, overrides=TINY[study], traces=[str(path)], outdir=out, workers=1,
                           cache_dir=folder / "cache", log=None, progress=False)
    numbers = json.loads((out / "numbers.json").read_text())
    cleaning = numbers["provenance"]["inputs"]["own"]["cleaning"]
    # the cleaning choices and the machine size are stated with every result
    assert {"request", "overrun", "machine"} <= set(cleaning["choices"]), cleaning
    assert cleaning["m"] > 0 and cleaning["jobs_out"] > 0
    if "grid" in kind:
        assert cleaning["m_source"].startswith("the log's"), cleaning     # its peak, or its largest job
    if "no-requests" in kind or "grid" in kind:
        assert cleaning["choices"]["request"].startswith("runtime"), cleaning
    # every figure it names was written, and what it leaves out says why
    for files in (result.get("figures") or {}).values():
        for f in files:
            assert f.is_file() and f.stat().st_size > 0
    for note in result.get("left_out") or []:     # a part left out says why
        assert ("own" in note and "needs at least" in note) or "no job backfills" in note, note


@pytest.mark.slow
@pytest.mark.parametrize("study", STUDIES)
def test_every_study_passes_the_protocol_check_and_keeps_a_cleaning_choice_in_every_cell(study, tmp_path,
                                                                                          monkeypatch):
    """schedlab.protocol.study.check_study on a site's log given as ``site.swf?request=runtime``:
    the study follows the protocol, runs, a second run computes 0 cells -- and
    every campaign cell that names the log names it with the choice (a bare
    path would clean it with the default)."""
    from schedlab.campaigns import runner
    from schedlab.protocol.study import check_study

    path = make_log(tmp_path / "site.swf", "base", seed=3)
    seen: list = []
    real = runner.run

    def recording(c, *args, **kw):
        seen.append(c)
        return real(c, *args, **kw)

    monkeypatch.setattr(runner, "run", recording)
    measured = check_study(study, trace=f"{path}?request=runtime", workdir=tmp_path)
    assert measured["files"] > 0

    def texts(c):
        for v in c.params.values():
            yield v
        for labels in c.dims.values():
            yield from labels

    named = [(c.name, t) for c in seen for t in texts(c) if isinstance(t, str) and "site.swf" in t]
    if study not in ("traces", "energy", "schedules"):
        assert named, f"{study}: no campaign cell names the log"
    assert all("request=runtime" in t for _, t in named), [x for x in named if "request=runtime" not in x[1]]
