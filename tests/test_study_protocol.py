"""The study protocol (schedlab.protocol.study): the registry agrees with the
notebooks, parameter files, paper and README; parameters are declared once
and read by their validators, with errors naming file, line and parameter;
the one driver runs a study into the folder of its profile with provenance
free of machine paths; cache keys follow the code a cell runs."""
import json
import re
import sys
import textwrap

import pytest

from schedlab.campaigns.assembly import provenance
from schedlab.campaigns.cells import allow_cell_modules, resolve_cell
from schedlab.campaigns.fingerprint import _trace_identity, _trace_sha, cell_fingerprint, module_closure
from schedlab.campaigns.spec import Campaign
from schedlab import paths
from schedlab.protocol import study
from schedlab.errors import InputError, SchedlabError
from schedlab.studies import registry
from schedlab.studies.registry import STUDIES

import protocol_example


# ---------------------------------------------------------- the registry --

def test_registry_matches_notebooks_and_parameter_files():
    stems = [e.stem for e in STUDIES]
    assert sorted(p.stem for p in paths.NOTEBOOKS.glob("*.ipynb")) == sorted(stems)
    for profile in study.PROFILES:
        assert sorted(p.stem for p in (paths.ROOT / "params" / profile).glob("*.yaml")) == sorted(stems)
    assert len({e.name for e in STUDIES}) == len({e.number for e in STUDIES}) == len(STUDIES)


def test_registry_matches_the_paper(tmp_path):
    """The paper's sections are the registry's, in its order: paper.typ keeps no
    list of its own, the build writes it (numbers.meta.studies) and copies a
    section a study package holds."""
    from schedlab.publish import paper

    text = (paths.PAPER / "paper.typ").read_text()
    assert not re.findall(r'^#section\(', text, flags=re.M), "paper.typ lists studies by hand"
    assert 'numbers.meta.at("studies"' in text
    (tmp_path / "results").mkdir()
    numbers = paper.collect(tmp_path / "results", tmp_path / "paper", "quick", use_shipped=False)
    assert numbers["meta"]["studies"] == [{"name": e.name, "title": e.title, "notebook": f"{e.stem}.ipynb",
                                           "section": e.section} for e in STUDIES]
    for e in STUDIES:
        assert e.section_source.is_file(), e.name
        assert paper.study_name(e.stem) == e.name


def test_the_registry_is_discovered_from_the_study_packages(tmp_path):
    """A folder with a study.toml is a study; its keys are checked, each error
    naming the file and the key; two studies may not share a number or slug."""
    assert registry.discover() == STUDIES
    assert [e.number for e in STUDIES] == sorted(e.number for e in STUDIES)
    good = "number = 3\nslug = \"a-b\"\ntitle = \"A\"\nsummary = \"s\"\npapers = \"p\"\n"
    for name, text in (("one", good), ("two", good.replace("3", "4").replace("a-b", "c"))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "study.toml").write_text(text)
    found = registry.discover(tmp_path)
    assert [(e.name, e.number, e.stem, e.data) for e in found] == [("one", 3, "03-a-b", ("traces",)),
                                                                    ("two", 4, "04-c", ("traces",))]
    (tmp_path / "two" / "study.toml").write_text(good.replace("a-b", "x"))
    with pytest.raises(InputError, match="studies one and two have the same number 3"):
        registry.discover(tmp_path)
    for text, expect in ((good.replace('slug = "a-b"', 'slug = "A B"'), "two/study.toml: slug must be"),
                         (good + "colour = 1\n", "unknown key(s) colour"),
                         (good.replace("papers", "paper"), "unknown key(s) paper"),
                         (good.replace("number = 3", "number = 'x'"), "number must be an integer"),
                         ("number = [", "two/study.toml: ")):
        (tmp_path / "two" / "study.toml").write_text(text)
        with pytest.raises(InputError, match=re.escape(expect)):
            registry.discover(tmp_path)


def test_registry_matches_the_readme():
    """The README's study table is the registry's shipped studies, generated between its markers."""
    readme = (paths.ROOT / "README.md").read_text()
    assert registry.readme_with_table(readme) == readme, "README's study table is out of date: make readme"
    table = registry.readme_table()
    for e in STUDIES:
        assert (f"| `{e.stem}` |" in table) == registry.shipped(e), e.stem
    with pytest.raises(InputError, match="markers are missing"):
        registry.readme_with_table(readme.replace(registry.README_END, ""))
    with pytest.raises(InputError, match="full run's account's markers are missing"):
        registry.readme_with_table(readme.replace(registry.RUN_BEGIN, ""))


def test_the_readme_account_of_the_full_run_is_its_figures_file():
    """Commit, date, minutes and CPU-s come from the shipped bench-profile-full.json (none typed),
    and an unfinished or warm run says so."""
    shipped = json.loads((paths.ROOT / "shipped" / "full" / "bench-profile-full.json").read_text())
    text = registry.readme_run()
    assert f"`{shipped['commit'][:7]}`" in text and shipped["created"][:10] in text
    assert f"{shipped['total_s'] / 60:.0f} min of wall time" in text
    assert f"{sum(r['cpu_s'] for r in shipped['studies']):,.0f} CPU-s" in text
    assert [line.split("`")[1] for line in text.splitlines() if line.startswith("| `")] == \
        [r["stem"] for r in shipped["studies"]]
    rows = [{"stem": "00-traces", "wall_s": 60.0, "cpu_s": 50.0, "cells": 1, "cached": 0},
            {"stem": "01-policy-comparison", "wall_s": 600.0, "cpu_s": 1100.4, "cells": 7837, "cached": 12}]
    fake = {"commit": "7c9970d0", "created": "2026-11-29T13:00:00+00:00", "cores": 2, "cold": True,
            "complete": True, "total_s": 660.0, "studies": rows, "passes": [{}, {}]}
    text = registry.readme_run(fake)
    assert text.startswith("The shipped run: one cold run of the whole full profile from a fresh clone at `7c9970d`, "
                           "2026-11-29, 2 cores, in 2 passes on one clone and cache")
    assert ": 11 min of wall time, 1,150 CPU-s" in text
    assert "| `01-policy-comparison` | 10.0 | 1,100 | 7,837 | 12 |" in text
    assert "one run on a kept cache (not cold)" in registry.readme_run({**fake, "cold": False})
    assert "an unfinished run" in registry.readme_run({**fake, "complete": False})
    assert "How it was run" not in text
    assert "\nHow it was run: two passes; the first shared the machine.\n" in \
        registry.readme_run({**fake, "note": "two passes; the first shared the machine."})


def test_registry_lookup():
    assert registry.get("policies") is registry.get("01-policy-comparison") is registry.get("1")
    with pytest.raises(InputError, match="unknown study 'nope'; the studies: traces, policies"):
        registry.get("nope")


# ----------------------------------------------------------- parameters --

def test_validation_reads_values_and_names_file_line_and_parameter():
    P = protocol_example.Params
    p = study.validate(P, {"weeks": "3", "policies": "spf, fcfs"})
    assert (p.weeks, p.policies, [t.name for t in p.traces]) == (3, ("SPF", "FCFS"), ["KTH-SP2"])
    with pytest.raises(InputError, match=r"^p.yaml:4: 'wekes' is not a parameter of this study \(did you mean weeks\?\)"):
        study.validate(P, {"wekes": 3}, source="p.yaml", lines={"wekes": 4})
    with pytest.raises(InputError, match=r"^p.yaml:2: weeks: expected an integer >= 1, got 0"):
        study.validate(P, {"weeks": 0}, source="p.yaml", lines={"weeks": 2})
    assert P.defaults()["weeks"] == 2 and "resampled" in P().describe().to_markdown()


# --------------------------------------------------------------- driver --

@pytest.fixture
def example(tmp_path, monkeypatch):
    """The example study registered as study 9, with its own parameter files."""
    entry = registry.Entry("example", 9, "example", "Example", "an example", "none")
    monkeypatch.setattr(entry.__class__, "module", property(lambda self: "protocol_example"))
    monkeypatch.setattr(registry, "BY_NAME", {**registry.BY_NAME, "example": entry})
    root = tmp_path / "repo"
    for profile, text in (("quick", "weeks: 1\n"), ("full", "weeks: 3\npolicies: [FCFS, SPF, LPF]\n")):
        (root / "params" / profile).mkdir(parents=True)
        (root / "params" / profile / "09-example.yaml").write_text(text)
    monkeypatch.setattr(paths, "RESULTS", root / "results")
    monkeypatch.setattr(paths, "PARAMS", root / "params")
    return entry, root


def test_the_driver_runs_a_profile_into_its_folder(example, monkeypatch):
    entry, root = example
    lines = []
    r = study.run_study("example", profile="quick", workers=1, cache_dir=root / "cache", log=lines.append)
    out = root / "results" / "quick" / "09-example"
    assert r["outdir"] == out and r["profile"] == "quick" and r["params"].weeks == 1
    numbers = json.loads((out / "numbers.json").read_text())
    assert set(numbers["avg_wait_s"]) == {"KTH-SP2/FCFS", "KTH-SP2/SPF"}
    prov = numbers["provenance"]
    assert prov["inputs"]["KTH-SP2"]["path"] == "data/traces/KTH-SP2-1996-2.1-cln.swf.gz"
    assert prov["parameters"] == {"traces": ["KTH-SP2"], "policies": ["FCFS", "SPF"], "weeks": 1}
    assert numbers["timing"]["cells_computed"] == 2 and numbers["timing"]["wall_s"] > 0
    assert str(paths.ROOT) not in json.dumps(numbers)          # no machine path
    assert (out / "tables" / "avg_wait.csv").exists() and (out / "parameters.json").exists()
    assert any("study example" in line for line in lines)
    # the same values given by hand are still the quick profile; another value is custom
    again = study.run_study("example", {"profile": "quick", "weeks": 1}, workers=1, cache_dir=root / "cache",
                            log=None)
    assert again["profile"] == "quick" and again["timing"]["cells_cached"] == 2
    other = study.run_study("example", overrides={"weeks": 2}, workers=1, cache_dir=root / "cache", log=None)
    assert other["outdir"] == root / "results" / "custom" / "09-example"
    # a file an earlier run wrote and this one did not is removed from the driver's folder
    (out / "tables" / "gone.csv").write_text("x\n")
    lines.clear()
    study.run_study("example", profile="quick", workers=1, cache_dir=root / "cache", log=lines.append)
    assert not (out / "tables" / "gone.csv").exists() and (out / "tables" / "avg_wait.csv").exists()
    assert any("removed results/quick/09-example/tables/gone.csv" in line or "gone.csv" in line for line in lines)


def test_the_driver_reports_progress_to_a_file(example, monkeypatch, tmp_path):
    entry, root = example
    progress = tmp_path / "progress.log"
    monkeypatch.setenv(study.PROGRESS_ENV, str(progress))
    study.run_study("example", profile="full", workers=1, cache_dir=root / "cache", log=None)
    text = progress.read_text()
    assert "study example (09-example), profile full" in text
    assert text.count("campaign example-KTH-SP2: 3 cells, 0 from cache, 3 to compute") == 1
    assert re.search(r"campaign example-KTH-SP2: 3/3 cells computed, [0-9.]+ cells/s, done", text)


def test_a_bad_profile_value_names_the_file_and_line(example):
    entry, root = example
    (root / "params" / "quick" / "09-example.yaml").write_text("# tiny\nweeks: 1\npolicies: [FCFS, NOPE]\n")
    with pytest.raises(InputError, match=r"/params/quick/09-example.yaml:3: policies\[1\]"):
        study.run_study("example", workers=1, log=None)


# ---------------------------------------------------------- cache keys --

@pytest.fixture
def code(tmp_path, monkeypatch):
    """A package of two cells: one imports a helper, the other nothing;
    tables.py is imported by neither."""
    pkg = tmp_path / "code" / "fakestudy"
    pkg.mkdir(parents=True)
    files = {
        "__init__.py": "",
        "helper.py": "def scale(x):\n    return 2 * x\n",
        "cells.py": "from . import helper\n\ndef cell(p):\n    return helper.scale(p)\n",
        "other.py": "def cell(p):\n    from schedlab.engine import metrics\n    return p\n",
        "tables.py": "from .cells import cell\n\nTITLE = 'a table'\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    # another test's fakestudy, imported from its own tmp_path, must not answer for this one
    for name in [m for m in sys.modules if m == "fakestudy" or m.startswith("fakestudy.")]:
        monkeypatch.delitem(sys.modules, name)
    cell_fingerprint.cache_clear()
    module_closure.cache_clear()
    yield pkg
    cell_fingerprint.cache_clear()
    module_closure.cache_clear()


def _prints(cells=("fakestudy.cells:cell", "fakestudy.other:cell")):
    cell_fingerprint.cache_clear()
    module_closure.cache_clear()
    return [cell_fingerprint(c) for c in cells]


def test_editing_a_cell_or_its_helper_invalidates_exactly_its_cells(code):
    a, b = _prints()
    (code / "tables.py").write_text("from .cells import cell\n\nTITLE = 'another table'\n")
    assert _prints() == [a, b]                       # a table: no cell depends on it
    (code / "helper.py").write_text("def scale(x):\n    return 3 * x\n")
    a2, b2 = _prints()
    assert a2 != a and b2 == b                       # the helper of the first cell only
    (code / "cells.py").write_text("from . import helper\n\ndef cell(p):\n    return helper.scale(p) + 0\n")
    a3, b3 = _prints()
    assert a3 not in (a, a2) and b3 == b
    assert "schedlab.engine.metrics" in module_closure("fakestudy.other")
    assert "fakestudy.tables" not in module_closure("fakestudy.cells")


def test_a_changed_trace_file_changes_the_keys_of_its_cells_only(tmp_path):
    from test_study_traces import write_tiny

    t1, t2 = write_tiny(tmp_path / "a.swf"), write_tiny(tmp_path / "b.swf")
    c = Campaign("keys", {"trace": [str(t1), str(t2)]}, {"workload": "original"})
    before = [c.key(p) for _, p in c.cells()]
    with open(t1, "a") as fh:
        fh.write("; an edited header comment\n")
    _trace_sha.cache_clear()
    _trace_identity.cache_clear()
    after = [c.key(p) for _, p in c.cells()]
    assert after[0] != before[0] and after[1] == before[1]


def test_a_changed_machine_size_in_the_registry_changes_the_keys(monkeypatch):
    import dataclasses

    from schedlab.workloads import traces

    c = Campaign("keys-m", {"primary": ["FCFS"]}, {"trace": "KTH-SP2", "workload": "original"})
    _, params = c.cells()[0]
    _trace_identity.cache_clear()
    before = c.key(params)
    real = traces.resolve
    monkeypatch.setattr(traces, "resolve", lambda t: dataclasses.replace(real(t), m=real(t).m + 1))
    _trace_identity.cache_clear()
    try:
        assert c.key(params) != before
    finally:
        monkeypatch.undo()
        _trace_identity.cache_clear()
    assert c.key(params) == before


def test_the_real_studies_cells_do_not_depend_on_their_figures():
    for cell in ("simulate",):
        mods = module_closure(resolve_cell(cell).__module__)
        assert "schedlab.protocol.plots" not in mods and "schedlab.engine.sim" in mods and "schedlab.campaigns.cells" in mods
        # nor on how campaigns are run, cached or assembled
        assert not {"schedlab.campaigns.runner", "schedlab.campaigns.cache", "schedlab.campaigns.assembly"} & set(mods)


# ------------------------------------------- every study, one contract --

@pytest.mark.parametrize("entry", STUDIES, ids=lambda e: e.name)
def test_every_study_follows_the_protocol(entry):
    """The static part of schedlab.protocol.study.check_study (the behavioural part runs
    in tests/test_own_traces.py, on a site's log)."""
    assert study.check_study(entry, run=False) == {}


def test_the_protocol_check_runs_a_site_s_own_study(monkeypatch):
    """check_study on a study outside the registry (tests/protocol_example):
    its cells declare their inputs, it runs on a generated log, a second run
    computes 0 cells."""
    allow_cell_modules("protocol_example")
    measured = study.check_study("protocol_example")
    assert measured["cells"] == 2 and measured["files"] >= 4


BROKEN = {
    "no_help": ("traces: tuple = param(('KTH-SP2',), help='', check=lambda v, n: tuple(_traces.trace_list(v, n)))",
                "Params.traces: no help text"),
    "driver_name": ("workers: int = param(1, help='workers', check=lambda v, n: v)",
                    "Params.workers: the driver's business"),
    "bad_tiny": ("traces: tuple = param(('KTH-SP2',), help='traces', check=lambda v, n: tuple(_traces.trace_list(v, n)))",
                 "'wekes' is not a parameter of this study"),
}


@pytest.mark.parametrize("kind", [*BROKEN, "undeclared_cell", "unstable_keys", "cell_imports_analysis", "sibling"])
def test_the_protocol_check_names_what_a_study_breaks(kind, tmp_path, monkeypatch):
    pkg = tmp_path / f"broken_{kind}"
    pkg.mkdir()
    field, expect = BROKEN.get(kind, ("traces: tuple = param(('KTH-SP2',), help='traces', "
                                      "check=lambda v, n: tuple(_traces.trace_list(v, n)))", ""))
    tiny = "{'wekes': 1}" if kind == "bad_tiny" else "{}"
    (pkg / "__init__.py").write_text(("import schedlab.studies.policies.cells\n" if kind == "sibling" else "") + f"""
from dataclasses import dataclass
from schedlab.campaigns.spec import Campaign
from schedlab import validators
from schedlab.workloads import traces as _traces
from schedlab.protocol.study import Outputs, Params as _Base, param
TINY = {tiny}
OUTPUTS = Outputs()

@dataclass(frozen=True)
class Params(_Base):
    {field}

def compute(params, ctx):
    import time
    for info in params.traces:
        ctx.campaign(Campaign("broken-" + info.name, {{"primary": ["FCFS"]}},
                     {{"trace": str(info.path), "note": time.time_ns() if {kind == "unstable_keys"} else 0}},
                     cell="{pkg.name}.cells:my_cell"))
    return {{"numbers": {{}}}}
""")
    decl = "" if kind == "undeclared_cell" else "@cell('broken-{kind}', Inputs)\n"
    (pkg / "analysis.py").write_text("SCALE = 1\n")
    (pkg / "cells.py").write_text(("from .analysis import SCALE\n" if kind == "cell_imports_analysis" else "") + f"""
from dataclasses import dataclass
from schedlab.campaigns.cells import SimulateInputs, cell, simulate_cell
from schedlab.declared import param

@dataclass(frozen=True)
class Inputs(SimulateInputs):
    note: int = param(0, help="anything")

{decl}def my_cell(q):
    p = dict(q)
    p.pop("note")
    return simulate_cell(p)
""")
    monkeypatch.syspath_prepend(str(tmp_path))
    allow_cell_modules(pkg.name)
    expect = expect or {"undeclared_cell": "[cell-inputs] broken_undeclared_cell.cells.my_cell: a cell without "
                                           "declared inputs",
                        "unstable_keys": "[run] study broken_unstable_keys: a second run computed 1 cells",
                        "cell_imports_analysis": "[cell-imports] broken_cell_imports_analysis.cells imports, "
                                                 "directly or not, broken_cell_imports_analysis.analysis (fix: move",
                        "sibling": "imports schedlab.studies.policies.cells (fix: move shared science to "
                                   "schedlab/science/"}[kind]
    with pytest.raises(study.ProtocolError, match=re.escape(expect)):
        study.check_study(pkg.name)


def test_every_finding_names_its_rule_and_its_fix(example, monkeypatch):
    """check_study's findings are named rules (study.RULES), each with its fix: here a
    registered study whose notebook, numbering, section and profiles are all wrong."""
    entry, root = example
    monkeypatch.setattr(paths, "ROOT", root)
    (root / "params" / "full" / "09-example.yaml").write_text("wekes: 3\n")
    with pytest.raises(study.ProtocolError) as exc:
        study.check_study("example", run=False)
    text = str(exc.value)
    for rule, what in (("profiles", "'wekes' is not a parameter"), ("notebook", "notebooks/09-example.ipynb: missing"),
                       ("numbering", "its docstring starts"), ("section", "no paper section")):
        assert f"[{rule}] " in text and what in text, (rule, text)
        assert f"(fix: {study.RULES[rule][1]})" in text
    assert all(desc and fix for desc, fix in study.RULES.values())


def test_make_reproduce_prints_the_progress_lines_of_the_kernel(tmp_path, capsys):
    # papermill keeps the kernel's output in the notebook; the progress file reaches the terminal
    from schedlab.publish import reproduce

    f = tmp_path / "p.log"
    f.write_text("")
    with reproduce._Tail(str(f), "[01-x] "):
        with open(f, "a") as fh:
            fh.write("campaign c: 3/10 cells computed, 1.00 cells/s, ETA 7 s\n")
    assert capsys.readouterr().out == "[01-x] campaign c: 3/10 cells computed, 1.00 cells/s, ETA 7 s\n"


def test_campaign_provenance_records_repository_paths_only():
    trace = paths.TRACES / "KTH-SP2-1996-2.1-cln.swf.gz"
    c = Campaign("prov", {"primary": ["FCFS"]}, {"trace": str(trace), "workload": "resample", "weeks": 1})
    attrs = provenance(c, 0, 1, 0.1, 1)
    assert attrs["campaign"]["params"]["trace"] == "data/traces/KTH-SP2-1996-2.1-cln.swf.gz"
    assert list(attrs["traces_sha256"]) == ["data/traces/KTH-SP2-1996-2.1-cln.swf.gz"]
    assert str(paths.ROOT) not in json.dumps(attrs, default=str)


def test_the_command_line_runs_the_same_driver(tmp_path, capsys):
    from schedlab.tools import cli
    from test_study_traces import write_tiny

    trace = write_tiny(tmp_path / "tiny.swf")
    assert cli.main(["study", "list"]) == 0
    assert "traces" in capsys.readouterr().out
    out = tmp_path / "out"
    assert cli.main(["study", "run", "traces", "--set", f"traces=[{trace}]", "--outdir", str(out),
                     "--no-progress"]) == 0
    numbers = json.loads((out / "numbers.json").read_text())
    assert list(numbers["traces"]) == ["tiny"] and numbers["provenance"]["profile"] == "custom"
    assert cli.main(["study", "run", "traces", "--set", "tracez=KTH-SP2", "--outdir", str(out)]) == 2
    assert "'tracez' is not a parameter of this study (did you mean traces?)" in capsys.readouterr().err
    assert cli.main(["study", "run", "nope"]) == 2


@pytest.mark.parametrize("entry", STUDIES, ids=lambda e: e.name)
def test_one_numbering(entry):
    # the registry's number is the notebook's NN, its title's "Study N" and the package's
    import importlib

    import nbformat

    nb = nbformat.read(str(paths.ROOT / entry.notebook), as_version=4)
    assert nb.cells[0].source.startswith(f"# Study {entry.number} "), nb.cells[0].source[:40]
    doc = importlib.import_module(entry.module).__doc__
    assert doc.startswith(f"Study {entry.number} "), doc[:40]


def test_a_misspelt_output_in_a_notebook_or_the_paper_is_named():
    """Outputs are declared by name: a notebook or paper section naming one that
    is not (a typo shows nothing otherwise) is a finding of check_study."""
    out = study.Outputs(tables=("table2",), figures=("strategies_{any}",), datasets=("fixed-{trace}",))
    code = ('display(result["tables"]["tabel2"]); display(result["figures"][f"strategies_{d}"])\n'
            'if "table3" in result["tables"]: pass\nds = result["datasets"]["fixed-KTH-SP2"]')
    paper = '#tab("/generated/selection/tables/table2.csv") #fig("/generated/selection/figures/fixd.png")'
    assert study.undeclared_references(out, code, paper, "selection") == \
        ["tables/tabel2", "tables/table3", "figures/fixd"]
    assert out.declares("tables", "scorecard") and not out.declares("figures", "strategies_")
    assert out.undeclared({"tables": {"table2", "extra"}, "datasets": {"fixed-own"}}) == ["tables/extra"]


def test_the_driver_refuses_an_undeclared_output(example, monkeypatch):
    entry, root = example
    monkeypatch.setattr(protocol_example, "OUTPUTS", study.Outputs(tables=("avg_wiat",)))
    monkeypatch.delenv(study.STRICT_SCORECARD, raising=False)        # one behaviour, no switch: refused always
    with pytest.raises(SchedlabError, match=r"study example: tables/avg_wait is not declared in its OUTPUTS "
                                            r"\(add 'avg_wait' to the tables of protocol_example\.OUTPUTS\)"):
        study.run_study("example", profile="quick", workers=1, cache_dir=root / "cache", log=None)
    assert not (root / "results" / "quick" / "09-example" / "tables" / "avg_wait.csv").exists()   # before writing
    with pytest.raises(SchedlabError, match="protocol_example declares no OUTPUTS"):
        study.check_outputs(entry, object(), {"tables": {"avg_wait"}})


def test_writing_the_parameters_cells_names_a_missing_notebook_or_tag(example, monkeypatch, capsys):
    """python -m schedlab.protocol.study cells: a study without its notebook, or a notebook
    without one cell tagged 'parameters', is an error naming the file (not a bare
    StopIteration or FileNotFoundError)."""
    import nbformat

    entry, root = example
    monkeypatch.setattr(paths, "ROOT", root)
    with pytest.raises(InputError, match="notebooks/09-example.ipynb: missing \\(schedlab study new example"):
        study.write_cells([entry])
    (root / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("weeks = 1")]
    nbformat.write(nb, str(root / "notebooks" / "09-example.ipynb"))
    with pytest.raises(InputError, match="expected one cell tagged 'parameters', found 0"):
        study.write_cells([entry])
    real = study.write_cells
    monkeypatch.setattr(study, "write_cells", lambda: real([entry]))       # the command, on this study
    assert study.main(["cells"]) == 2
    assert "cells: notebooks/09-example.ipynb: expected one cell tagged 'parameters'" in capsys.readouterr().err


def test_a_comment_or_docstring_edit_keeps_every_key_and_a_code_edit_changes_its_cells(code):
    """issue 52 item 6: the fingerprint hashed whole files, so a docstring
    edit recomputed every cell importing the file (3,368 cells at quick)."""
    a, b = _prints()
    (code / "helper.py").write_text('"""Helpers."""\n# a comment\n\ndef scale(x):\n'
                                    '    """Twice x."""\n    return 2 * x   # doubled\n\n\n')
    (code / "cells.py").write_text("from . import helper\n\n\ndef cell(p):\n    '''the cell'''\n"
                                   "    return (helper.scale(p))\n")
    assert _prints() == [a, b]                       # comments, docstrings, blank lines, parentheses
    (code / "helper.py").write_text('"""Helpers."""\ndef scale(x):\n    """Twice x."""\n    return 2 * x + 0\n')
    a2, b2 = _prints()
    assert a2 != a and b2 == b
    (code / "helper.py").write_text('def scale(x):\n    "Twice x."\n    return 2 * x\n    "a string statement"\n')
    assert _prints()[0] != a                         # only the first string of a body is a docstring


def test_the_c_sources_hash_ignores_comments_and_layout_not_code():
    from schedlab.engine._build import c_code_text

    base = 'int f(int a) {\n    return a + 1; /* one */\n}\nconst char *s = "/* kept */ // too";\n'
    same = ('/* header */\nint f(int a)\n{\n        return a + 1;   // one\n}\n'
            'const char *s = "/* kept */ // too";  /* tail\n comment */\n')
    assert c_code_text(base) == c_code_text(same)
    for changed in (base.replace("a + 1", "a + 2"), base.replace("/* kept */", "/* gone */"),
                    base.replace("int f", "intf")):
        assert c_code_text(changed) != c_code_text(base), changed
    assert c_code_text("a/**/b") == "a b" and c_code_text("'\\''/*x*/;") == "'\\'' ;"
