"""The notebooks run in the project's own Jupyter kernel, `schedlab`, that
`make install` registers in the environment: a reader who opens them in
JupyterLab (`make lab`) runs them in the same environment, with the same
kernel, as `make reproduce` (papermill) does."""
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

from schedlab import paths
from schedlab.publish import reproduce


def test_the_schedlab_kernel_is_this_environment():
    try:
        spec = KernelSpecManager().get_kernel_spec(reproduce.KERNEL)
    except NoSuchKernel:
        pytest.fail("no 'schedlab' Jupyter kernel: make install registers it")
    assert Path(spec.argv[0]).absolute() == Path(sys.executable).absolute(), spec.argv
    assert spec.language == "python"


def test_jupyterlab_is_installed():
    from importlib import metadata
    assert metadata.version("jupyterlab")


def test_a_notebook_runs_through_the_kernel_by_name(tmp_path):
    from nbclient import NotebookClient

    nb = nbformat.read(str(paths.NOTEBOOKS / "00-traces.ipynb"), as_version=4)
    assert nb.metadata.kernelspec.name == reproduce.KERNEL
    # what papermill does with a profile: one cell after the parameters cell
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(f'traces = ["KTH-SP2"]\noutdir = {str(tmp_path)!r}\n'
                                                      "import sys\nkernel_python = sys.executable"))
    nb.cells.append(nbformat.v4.new_code_cell("print(kernel_python)"))
    NotebookClient(nb, kernel_name=reproduce.KERNEL, timeout=600,
                   resources={"metadata": {"path": str(paths.NOTEBOOKS)}}).execute()
    assert nb.cells[-1].outputs[0]["text"].strip() == str(Path(sys.executable).absolute())
    assert (tmp_path / "numbers.json").exists()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
