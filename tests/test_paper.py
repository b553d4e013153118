"""The paper compiles from generated outputs, and a study not yet executed
leaves a placeholder instead of breaking the build."""
import json

import pytest

from schedlab.publish import paper
from schedlab.protocol.study import run_study

from test_study_traces import write_tiny


def test_paper_compiles_from_a_generated_study(tmp_path, paper_copy):
    trace = write_tiny(tmp_path / "tiny.swf")
    results = tmp_path / "results" / "quick"
    run_study("traces", overrides={"traces": [str(trace)]}, outdir=results / "00-traces", log=None)
    pdf = paper.build("quick", results=results, paper_dir=paper_copy)
    assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.stat().st_size > 10_000
    numbers = json.loads((paper_copy / "numbers.json").read_text())
    assert numbers["meta"]["profile"] == "quick" and "traces" in numbers
    from schedlab import lockfile
    assert numbers["meta"]["locked"] == lockfile.direct_versions() and numbers["meta"]["environment_is_lock"]
    assert (paper_copy / "generated" / "traces" / "figures" / "runtimes.png").exists()
    # The other studies are absent: their sections are placeholders.
    import typst
    text = typst.query(str(paper_copy / "paper.typ"), "heading", field="body", root=str(paper_copy))
    assert "Workload traces" in text and "Policy comparison" in text
    assert '"text": "Environment"' in text     # the locked versions it ran with


def test_paper_without_results_says_so(tmp_path, paper_copy):
    with pytest.raises(FileNotFoundError, match="run the notebooks first"):
        paper.build("quick", results=tmp_path / "nothing", paper_dir=paper_copy)
