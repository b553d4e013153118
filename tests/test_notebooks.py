"""Every study notebook: committed without outputs, one papermill
``parameters`` cell, parameter files for both profiles whose keys are
parameters of the notebook (a misspelt key is refused, naming file and line)."""
from pathlib import Path

import nbformat
import pytest

from schedlab import paths
from schedlab.publish import reproduce
from schedlab.errors import InputError

NOTEBOOKS = sorted(paths.NOTEBOOKS.glob("*.ipynb"))


def test_every_study_has_a_notebook():
    assert len(NOTEBOOKS) >= 9
    assert [nb.stem[:2] for nb in NOTEBOOKS] == [f"{i:02d}" for i in range(len(NOTEBOOKS))]


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_clean(nb):
    book = nbformat.read(str(nb), as_version=4)
    assert book.metadata.kernelspec.name == reproduce.KERNEL    # the project's kernel (make install)
    assert book.cells[0].cell_type == "markdown"           # says what the study is
    for c in book.cells:
        if c.cell_type == "code":
            assert c.outputs == [] and c.execution_count is None, f"{nb.name}: outputs committed"
            assert "import numpy" not in c.source, f"{nb.name}: logic belongs in schedlab.studies"
    names = reproduce.notebook_parameters(nb)
    assert "profile" in names or "outdir" in names    # the study protocol's cell, or a study not on it yet


@pytest.mark.parametrize("profile", ["quick", "full"])
@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_parameter_files_name_only_notebook_parameters(nb, profile):
    params = reproduce.notebook_params(nb.stem, profile)     # raises on an unknown key
    if not reproduce._on_protocol(nb.stem):                 # on the protocol, {} means the defaults
        assert params, f"params/{profile}/{nb.stem}.yaml is empty"


def test_a_misspelt_parameter_is_refused(tmp_path, monkeypatch):
    nb = NOTEBOOKS[0]
    for profile in ("quick",):
        (tmp_path / "params" / profile).mkdir(parents=True)
        (tmp_path / "params" / profile / f"{nb.stem}.yaml").write_text("# a comment\nworkerz: 2\n")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    with pytest.raises(InputError, match=rf"{nb.stem}.yaml:2: 'workerz' is not a parameter of notebooks/{nb.name}"):
        reproduce.notebook_params(nb.stem, "quick")


def test_parameters_cell_must_be_unique(tmp_path):
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell("a = 1")]
    f = Path(tmp_path) / "x.ipynb"
    nbformat.write(book, str(f))
    with pytest.raises(InputError, match="one cell tagged 'parameters', found 0"):
        reproduce.notebook_parameters(f)


def test_papermill_reads_every_notebook_s_parameters_cell():
    """Issue 32: papermill's own parameter inspection finds every name the
    parameters cell assigns, without "Unable to parse line" (a line it
    skips: then every run warns "Passed unknown parameter")."""
    import ast
    import logging

    import nbformat
    import papermill

    notebooks = sorted(paths.NOTEBOOKS.glob("*.ipynb")) + sorted(paths.NOTEBOOKS.glob("*/*.ipynb"))
    assert len(notebooks) >= 11
    for nb_path in notebooks:
        nb = nbformat.read(nb_path, as_version=4)
        cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
        assert len(cells) == 1, nb_path
        assigned = [t.id for node in ast.parse(cells[0].source).body if isinstance(node, ast.Assign)
                    for t in node.targets]
        records = []
        handler = logging.Handler()
        handler.emit = records.append
        logger = logging.getLogger("papermill")
        logger.addHandler(handler)
        try:
            found = papermill.inspect_notebook(str(nb_path))
        finally:
            logger.removeHandler(handler)
        assert list(found) == assigned, (nb_path, sorted(set(assigned) - set(found)))
        assert not [r.getMessage() for r in records if "Unable to parse" in r.getMessage()], nb_path


def test_a_profile_s_notebook_gets_every_value_of_the_profile():
    """papermill gives a study's notebook every value of the profile, not only those its YAML
    sets: classification's, prediction's and multiqueue's full YAMLs do not set ``traces`` (the
    full profile is the defaults), while their notebooks' parameters cells hold the quick
    profile's two or three traces; given only the YAML, make reproduce PROFILE=full ran them on
    the quick traces into results/custom/."""
    from schedlab.protocol.study import profile_params
    from schedlab.publish.reproduce import notebook_inputs
    from schedlab.studies.registry import BY_STEM

    for stem in ("04-classification", "06-runtime-prediction", "08-multiqueue"):
        full = notebook_inputs(stem, "full")
        assert full["profile"] == "full"
        assert full["traces"] == profile_params(BY_STEM[stem], "full").record()["traces"]
        assert full["traces"] != notebook_inputs(stem, "quick")["traces"]
    assert len(notebook_inputs("04-classification", "full")["traces"]) == 5
    mine = notebook_inputs("04-classification", "quick", {"traces": ["HPC2N"]})
    assert mine["traces"] == ["HPC2N"]                       # the user's values win


def test_a_list_given_with_papermill_p_is_read_as_the_list_it_looks_like(tmp_path, capsys):
    """issue 51 item 5: ``papermill -p policies '[...]'`` injects the list's
    text; notebook 10's first step iterated it character by character
    (``unknown queue policy '['``).  Executed here: the parameters cell, the
    cell papermill injects, and every code cell before the driver runs."""
    import papermill

    out = tmp_path / "10.ipynb"
    papermill.execute_notebook(str(paths.NOTEBOOKS / "10-your-policy.ipynb"), str(out), prepare_only=True,
                               parameters={"policies": '["expr:wait / req", "expr:req * procs"]'},
                               kernel_name=reproduce.KERNEL)
    book = nbformat.read(str(out), as_version=4)
    ns: dict = {}
    for cell in book.cells:
        if cell.cell_type != "code":
            continue
        if "run_study(" in cell.source:
            break
        exec(compile(cell.source, str(out), "exec"), ns)
    assert isinstance(ns["policies"], str)          # what papermill gives
    text = capsys.readouterr().out
    assert "expr:wait / req: mean wait" in text and "expr:req * procs: mean wait" in text, text
