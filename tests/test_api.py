"""``import schedlab`` is the API (issue 43, item 4): every name of
``schedlab.API`` resolves, importing the top level loads no compiled core,
the old ``schedlab.sim`` path still answers (with a warning naming the new
one), and the README's "From Python" examples run importing only the top
level."""
import re
import subprocess
import sys
import textwrap

import pytest

import schedlab
from schedlab import paths


def test_every_api_name_resolves_and_unknown_names_say_what_exists():
    for name in schedlab.API:
        assert getattr(schedlab, name) is not None
    with pytest.raises(AttributeError, match="the API: .*simulate"):
        schedlab.simulat  # noqa: B018


def test_importing_the_top_level_loads_no_compiled_core():
    code = "import sys, schedlab; schedlab.Jobs; schedlab.cleaned; assert 'schedlab.engine._core' not in sys.modules"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_the_old_sim_path_answers_with_a_warning_naming_the_new_one():
    with pytest.warns(DeprecationWarning, match="schedlab.engine.sim.simulate"):
        from schedlab.sim import simulate
    assert simulate is schedlab.simulate


def _readme_blocks():
    text = (paths.ROOT / "README.md").read_text()
    section = text[text.index("## From Python\n"):]
    section = section[:section.index("\n## ", 5)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_examples_run_importing_only_the_top_level(tmp_path):
    blocks = _readme_blocks()
    assert len(blocks) >= 2
    for code in blocks:
        imports = re.findall(r"^\s*(?:from|import)\s+([\w.]+)", code, re.M)
        assert all(m in ("schedlab", "numpy") for m in imports), imports
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                           cwd=tmp_path, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]


_SCRIPT = """\
import schedlab
{indent}r = schedlab.run_study("yourpolicy", overrides={{"samples": 2, "weeks": 3, "compare": ["FCFS", "SPF"],
{indent}                      "threshold": "10h", "seed": 3}}, outdir={out!r}, cache_dir={cache!r},
{indent}                      workers=1, log=None, progress=False)
{indent}print("ran", sorted(r["files"])[:1])
"""


def test_run_study_from_a_plain_script_runs_under_a_main_guard_and_stops_in_one_line_without(tmp_path):
    """issue 51 item 4: the workers start by the spawn method, which re-runs
    the main script; without a guard dask said only 'Nanny failed to start'
    after a 240-line traceback.  Now: one line naming the script's line."""
    bare = tmp_path / "bare.py"
    bare.write_text(_SCRIPT.format(indent="", out=str(tmp_path / "o1"), cache=str(tmp_path / "c1")))
    r = subprocess.run([sys.executable, str(bare)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode != 0
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, r.stderr[-3000:]
    assert f"{bare}, line 2:" in lines[0] and "__main__" in lines[0], lines[0]
    guarded = tmp_path / "guarded.py"
    guarded.write_text(_SCRIPT.format(indent="    ", out=str(tmp_path / "o2"), cache=str(tmp_path / "c2"))
                       .replace("import schedlab\n", "import schedlab\nif __name__ == '__main__':\n"))
    r = subprocess.run([sys.executable, str(guarded)], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.startswith("ran"), r.stdout
