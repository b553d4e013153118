"""Cells declare what they produce (schedlab.campaigns.outputs): a campaign
asking a cell for a variable it does not produce is refused in one line,
naming the cell and what it produces, before any cell is keyed, cached or
run; the built-in cell's declaration is what the engine's summary returns."""
import re

import pytest

from schedlab.campaigns import outputs, runner
from schedlab.campaigns.cells import allow_cell_modules
from schedlab.campaigns.spec import Campaign
from schedlab.errors import InputError


def test_a_metric_the_simulate_cell_does_not_produce_is_refused_before_anything_runs(tmp_path, monkeypatch):
    c = Campaign("refused", {"primary": ["FCFS", "SPF"]}, {"trace": "KTH-SP2", "workload": "original"},
                 metrics=["avg_wait", "requeued"])          # requeued is declared (by another study), not produced here
    monkeypatch.setattr(Campaign, "key", lambda self, p: pytest.fail("a cell was keyed"))
    with pytest.raises(InputError) as exc:
        runner.run(c, cache_dir=tmp_path / "cache", workers=1, progress=False, log=None)
    text = str(exc.value)
    assert "\n" not in text and text.startswith("campaign refused: cell simulate does not produce requeued; "
                                                "it produces avg_wait, max_wait,")
    assert not (tmp_path / "cache").exists()
    with pytest.raises(InputError, match="does not produce requeued"):
        runner.Runner(1, None, tmp_path / "cache").run(c)


def test_the_simulate_cell_s_declaration_is_the_engine_s_summary():
    import numpy as np

    from schedlab.engine import sim
    from schedlab.jobs import Jobs

    jobs = Jobs(submit=np.array([0, 5]), run=np.array([10, 20]), procs=np.array([1, 2]), req=np.array([10, 30]))
    assert set(outputs.BUILTIN["simulate"]) == set(sim.simulate(jobs, 2, "EASY-FCFS-FCFS").summary())


def test_a_study_cell_declares_its_outputs_beside_its_inputs(tmp_path, monkeypatch):
    pkg = tmp_path / "produced_cells"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "cells.py").write_text(
        "from dataclasses import dataclass\n"
        "from schedlab.campaigns.cells import SimulateInputs, cell, simulate_cell\n"
        "from schedlab.campaigns.outputs import produces\n\n"
        "@cell('produced-cell', SimulateInputs)\n"
        "@produces('avg_wait', 'jobs')\n"
        "def my_cell(q):\n"
        "    return {k: v for k, v in simulate_cell(q).items() if k in ('avg_wait', 'jobs')}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    allow_cell_modules("produced_cells")
    assert outputs.produced("produced_cells.cells:my_cell") == ("avg_wait", "jobs")
    outputs.check_metrics("ok", "produced_cells.cells:my_cell", ["jobs"])
    with pytest.raises(InputError, match=re.escape("campaign c: cell produced_cells.cells:my_cell does not produce "
                                                   "max_wait; it produces avg_wait, jobs")):
        outputs.check_metrics("c", "produced_cells.cells:my_cell", ["jobs", "max_wait"])
    outputs.check_metrics("c", "produced_cells.cells:my_cell", None)      # no metrics asked: nothing to check


def test_produces_takes_declared_variables_only():
    with pytest.raises(InputError, match="'median_wait' is not a declared variable"):
        outputs.produces("avg_wait", "median_wait")
    with pytest.raises(InputError, match="give each variable once"):
        outputs.produces("avg_wait", "avg_wait")
