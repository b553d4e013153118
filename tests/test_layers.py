"""Dependencies point one way (DESIGN §1): the job table, durations and policy
names (``schedlab.jobs``) are below the simulator, so reading, cleaning and
resampling a trace never loads the compiled core; the simulator does not
import the prediction module built on it; no study imports another; and the
library's folders are its layers, bottom up (LAYER_ORDER): a module imports
only from its own layer and those below."""
import ast
import subprocess
import sys
import textwrap

import pytest

from schedlab import paths
from schedlab.studies.registry import STUDIES

LIB = paths.ROOT / "lib"
STUDIES_DIR = LIB / "schedlab" / "studies"


def _module_name(path) -> str:
    rel = path.relative_to(LIB).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imported(path, source: str | None = None) -> set[str]:
    """Every module (and ``module.name`` of a ``from module import name``)
    that the file at ``path`` (or ``source``, as if it were that file)
    reaches anywhere in its body, made absolute: its import statements, its
    ``importlib.import_module(...)`` and ``__import__(...)`` calls whose name
    is a literal, a module-level string constant or an f-string with a
    literal head (``f"schedlab.studies.{name}"`` reaches ``schedlab.studies``),
    and the attributes it reads from a schedlab module it holds
    (``schedlab.studies.mixed.cells`` after ``import schedlab``)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    text = path.read_text() if source is None else source
    tree = ast.parse(text, str(path))
    found: set[str] = set()
    held: dict[str, str] = {}          # a local name -> the schedlab module (or name of one) it is bound to

    def absolute(level: int, module: str | None) -> str:
        if not level:
            return module or ""
        base = package.split(".")
        base = base[:len(base) - (level - 1)]
        return ".".join(base + ([module] if module else []))

    constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                 and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                 for t in n.targets if isinstance(t, ast.Name)}

    def literal(arg) -> str | None:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
        if isinstance(arg, ast.Name) and arg.id in constants:
            return constants[arg.id]
        if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
            head = str(arg.values[0].value)
            return head.rpartition(".")[0] if "." in head else None
        return None

    importers = {"__import__", "import_module"} | {a.asname for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                                                  and n.module == "importlib" for a in n.names
                                                  if a.name == "import_module" and a.asname}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
            for a in node.names:
                if a.name.split(".")[0] == "schedlab":
                    held[a.asname or a.name.split(".")[0]] = a.name if a.asname else "schedlab"
        elif isinstance(node, ast.ImportFrom):
            mod = absolute(node.level, node.module)
            found.add(mod)
            found |= {f"{mod}.{a.name}" for a in node.names}
            if mod.split(".")[0] == "schedlab":
                held.update({a.asname or a.name: f"{mod}.{a.name}" for a in node.names})
        elif isinstance(node, ast.Call):
            f = node.func
            dynamic = (isinstance(f, ast.Attribute) and f.attr == "import_module") or \
                (isinstance(f, ast.Name) and f.id in importers)
            if dynamic and node.args:
                target = literal(node.args[0])
                if target:
                    level = len(target) - len(target.lstrip("."))
                    found.add(absolute(level, target.lstrip(".") or None) if level else target)
    for node in ast.walk(tree):          # attribute reach: held.x.y -> the module held.x.y (or its longest module prefix)
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "ctx", None), ast.Del):
            parts, cur = [], node
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id in held:
                found.add(".".join([held[cur.id]] + parts[::-1]))
    return found


def test_reading_cleaning_and_resampling_a_trace_needs_no_compiled_core():
    script = textwrap.dedent("""
        import sys
        from schedlab import paths
        # the committed registry only, as for the rest of the suite (tests/conftest.py)
        paths.LOCAL_TRACE_REGISTRY = paths.ROOT / "no-such-dir" / "traces.local.toml"
        import schedlab.jobs, schedlab.workloads.swf, schedlab.workloads.traces, schedlab.validators, schedlab.workloads.workload
        from schedlab import jobs, validators
        from schedlab.workloads import traces, workload

        trace = traces.load("KTH-SP2")
        cleaned, report = workload.clean(trace, m=traces.resolve("KTH-SP2").m)
        assert isinstance(cleaned, jobs.Jobs) and len(cleaned) > 20000, len(cleaned)
        sample = workload.resample(cleaned, 3, seed=1)
        assert isinstance(sample.jobs, jobs.Jobs) and len(sample.jobs) > 0
        assert workload.split(cleaned)[0].n > 0
        assert validators.policy_names("spf, exp", "policies") == ("SPF", "LEXP")
        assert validators.duration("20h", "threshold") == 72000
        assert str(jobs.Policy.parse("EASY-SPF-FCFS", "2.31d")) == "EASY-SPF-FCFS T=199584s"
        loaded = sorted(m for m in sys.modules if m.startswith("schedlab"))
        print(" ".join(loaded))
        for forbidden in ("schedlab.engine._core", "schedlab.engine.sim", "schedlab.engine.prediction"):
            assert forbidden not in sys.modules, (forbidden, loaded)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "schedlab.jobs" in out.stdout.split()


def test_the_simulator_does_not_import_the_prediction_built_on_it():
    out = subprocess.run([sys.executable, "-c", "import sys, schedlab.engine.sim; print('schedlab.engine.prediction' in sys.modules)"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    sim = _imported(LIB / "schedlab" / "engine" / "sim.py")
    assert not any(m == "schedlab.engine.prediction" or m.startswith("schedlab.engine.prediction.") for m in sim), \
        "schedlab.engine.sim imports schedlab.engine.prediction (even lazily): the two would depend on each other"


@pytest.mark.parametrize("module", ["jobs", "expr", "engine/losses"])
def test_the_bottom_layer_imports_only_errors(module):
    # the job table may use the policy expressions' parser, itself on errors only
    ours = {m for m in _imported(LIB / "schedlab" / f"{module}.py") if m.startswith("schedlab")}
    allowed = {"schedlab.errors", "schedlab.errors.InputError"}
    if module == "jobs":
        allowed |= {"schedlab.expr", "schedlab.expr.Expr", "schedlab.expr.is_expr", "schedlab.expr.column_name_error"}
    assert ours <= allowed, ours


def _study_of(path) -> str | None:
    """The study a file under lib/schedlab/studies belongs to (None: the
    package's shared helpers and registry)."""
    first = path.relative_to(STUDIES_DIR).parts[0]
    name = first[:-3] if first.endswith(".py") else first
    return name if name in {e.name for e in STUDIES} else None


#: Imports across studies that predate this test, owned by the study that
#: makes them: (importing study, imported study) -> why it is tolerated for now.
#: Remove an entry when its import goes (e.g. read the other study's
#: published.toml with schedlab.studies.load_published instead).
KNOWN: dict = {}      # (study, other study) -> why; empty: no study imports another


def test_no_study_imports_another_study():
    names = {e.name for e in STUDIES}
    files = sorted(STUDIES_DIR.rglob("*.py"))
    assert files
    bad = []
    for f in files:
        own = _study_of(f)
        for mod in _imported(f):
            parts = mod.split(".")
            if parts[:2] != ["schedlab", "studies"] or len(parts) < 3 or parts[2] not in names:
                continue
            other = parts[2]
            if other != own and (own, other) not in KNOWN:
                bad.append(f"{f.relative_to(paths.ROOT)} imports {mod}")
    assert not bad, "a study imports another study:\n" + "\n".join(sorted(set(bad)))


def test_the_study_import_check_sees_relative_and_absolute_imports():
    source = "from .. import energy\nfrom ..policies import Params\nimport schedlab.studies.mixed\n"
    got = _imported(STUDIES_DIR / "traces" / "cells.py", source)       # a module of a study package
    assert {"schedlab.studies.energy", "schedlab.studies.policies.Params", "schedlab.studies.mixed"} <= got
    got = _imported(STUDIES_DIR / "traces.py", "from . import energy\nfrom .policies import Params\n")
    assert {"schedlab.studies.energy", "schedlab.studies.policies.Params"} <= got
    assert _study_of(STUDIES_DIR / "traces" / "cells.py") == _study_of(STUDIES_DIR / "traces.py") == "traces"
    assert _study_of(STUDIES_DIR / "registry.py") is None


def test_the_advisor_uses_the_studies_public_names_only():
    """schedlab.tools.advise takes from a study only names its package exports
    (``__all__``), from the package or (for cells, whose cache keys follow the
    code they import) from its ``cells`` module."""
    import importlib

    names = {e.name for e in STUDIES}
    bad = []
    files = sorted((LIB / "schedlab" / "tools" / "advise").rglob("*.py"))
    assert files
    for f in files:
        for node in ast.walk(ast.parse(f.read_text())):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            parts = node.module.split(".")
            study = parts[1] if parts[0] == "studies" and len(parts) > 1 else None
            if study not in names:
                continue
            if parts[2:] not in ([], ["cells"]):
                bad.append(f"{f.name}: from {node.module} (a study's inner module)")
                continue
            public = importlib.import_module(f"schedlab.studies.{study}").__all__
            bad += [f"{f.name}: {study}.{a.name} is not in its __all__" for a in node.names
                    if a.name != "cells" and a.name not in public]
    assert not bad, bad


def _unit(module: str) -> str:
    """The unit of the library a module belongs to: a top-level module or
    package of schedlab, or one study package."""
    p = module.split(".")
    return ".".join(p[:3]) if p[1:2] == ["studies"] and len(p) > 2 else ".".join(p[:2])


def _unit_cycles(edges: dict[str, set]) -> list[list[str]]:
    """The groups of units that import each other, directly or not (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_two_units_of_the_library_import_each_other():
    """No import cycle between the library's modules and packages (a study
    counts as one), lazy imports included: each unit sits above the ones it uses."""
    files = {_module_name(f): f for f in (LIB / "schedlab").rglob("*.py")}
    edges: dict[str, set] = {}
    for name, f in files.items():
        for mod in _imported(f):
            parts = mod.split(".")
            target = next((".".join(parts[:k]) for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in files),
                          None)
            if target is not None and _unit(target) != _unit(name):
                edges.setdefault(_unit(name), set()).add(_unit(target))
    assert _unit_cycles(edges) == []
    assert _unit_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]   # it sees one


#: The layers of the library, bottom up: the folders of lib/schedlab ("" is
#: the top level, the floor).  A module imports only from its own layer and
#: the layers before it (README, "Layout"; tools/layer_lines.py counts them).
#: The study package's shared names and its registry (studies/__init__.py,
#: studies/registry.py) are the protocol's: the driver reads them.
LAYER_ORDER = ["", "engine", "workloads", "campaigns", "protocol", "science", "gym", "studies", "publish", "tools"]
PROTOCOL_MODULES = {"schedlab.studies", "schedlab.studies.registry"}

#: Imports that go up a layer, each made inside a function (never at import
#: time) and each with its reason.  Remove an entry when its import goes; the
#: test fails on a new one and on an entry that no longer happens.
UPWARD: dict = {
    ("schedlab.sim", "schedlab.engine.sim"): "the deprecated schedlab.sim (issue 43) answers, on first use and "
                                             "with a DeprecationWarning, with the names of schedlab.engine.sim",
}


def _layer(module: str) -> int:
    """The rank of a schedlab module's layer in LAYER_ORDER."""
    if module in PROTOCOL_MODULES:
        return LAYER_ORDER.index("protocol")
    parts = module.split(".")
    folder = parts[1] if len(parts) > 2 or (len(parts) == 2 and (LIB / "schedlab" / parts[1]).is_dir()) else ""
    return LAYER_ORDER.index(folder)


def _upward_imports() -> dict[tuple[str, str], bool]:
    """(module, imported module) -> whether it happens at import time, for
    every import of a higher layer, lazy ones included."""
    files = {_module_name(f): f for f in (LIB / "schedlab").rglob("*.py")}
    found: dict[tuple[str, str], bool] = {}
    for name, f in sorted(files.items()):
        tree = ast.parse(f.read_text())
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            one = ast.Module(body=[node], type_ignores=[])
            targets = set()
            for mod in _imported(f, ast.unparse(one)):
                parts = mod.split(".")
                targets.add(next((".".join(parts[:k]) for k in range(len(parts), 0, -1)
                                  if ".".join(parts[:k]) in files), None))
            # `from package import module` imports the module (and runs the package's __init__)
            targets = {t for t in targets if t and not any(o.startswith(t + ".") for o in targets)}
            for target in targets:
                if target == "schedlab" or _layer(target) <= _layer(name):
                    continue
                found[(name, target)] = found.get((name, target), False) or id(node) in top
        # dynamic imports and attribute reach: the whole file, and its import-time part (function bodies emptied)
        for target, eager in _reach(f, tree, files).items():
            if target == "schedlab" or _layer(target) <= _layer(name):
                continue
            found[(name, target)] = found.get((name, target), False) or eager
    return found


def _module_of(mod: str, files) -> str | None:
    parts = mod.split(".")
    return next((".".join(parts[:k]) for k in range(len(parts), 0, -1) if ".".join(parts[:k]) in files), None)


class _NoBodies(ast.NodeTransformer):
    """Function bodies emptied: what a module runs when it is imported."""

    def visit_FunctionDef(self, node):
        node.body = [ast.Pass()]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def _reach(f, tree, files) -> dict[str, bool]:
    """The modules a file reaches other than by an import statement
    (``importlib.import_module``, ``__import__``, attributes of a held
    schedlab module) -> whether it happens at import time."""
    import copy

    statements = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            statements |= {_module_of(m, files) for m in _imported(f, ast.unparse(ast.Module(body=[node],
                                                                                             type_ignores=[])))}
    lazy = {_module_of(m, files) for m in _imported(f, ast.unparse(tree))} - statements - {None}
    eager = {_module_of(m, files) for m in _imported(f, ast.unparse(_NoBodies().visit(copy.deepcopy(tree))))}
    return {t: t in eager for t in lazy}


def test_every_folder_of_the_library_is_a_layer():
    folders = {p.name for p in (LIB / "schedlab").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(LAYER_ORDER) - {""}, "place the new folder in LAYER_ORDER (and tools/layer_lines.py)"


def test_each_layer_imports_only_from_its_floor_and_below():
    found = _upward_imports()
    at_import = sorted(k for k, eager in found.items() if eager)
    assert not at_import, f"imports of a higher layer at import time: {at_import}"
    new = sorted(set(found) - set(UPWARD))
    assert not new, "a layer imports a higher one (move the code down or the import up):\n" + \
        "\n".join(f"{a} -> {b}" for a, b in new)
    stale = sorted(set(UPWARD) - set(found))
    assert not stale, f"UPWARD lists imports that no longer happen (remove them): {stale}"


def test_the_layer_check_sees_an_upward_import():
    assert _layer("schedlab.engine.sim") < _layer("schedlab.campaigns.runner") < _layer("schedlab.studies.mixed.cells")
    assert _layer("schedlab.studies.registry") == _layer("schedlab.protocol.study") < _layer("schedlab.studies.mixed")
    assert _layer("schedlab.errors") == 0 and _layer("schedlab.tools.cli") == len(LAYER_ORDER) - 1
    sim = LIB / "schedlab" / "engine" / "sim.py"
    assert "schedlab.campaigns.runner" in _imported(sim, "from ..campaigns import runner\n")


@pytest.mark.parametrize("source, reached", [
    ("import importlib\ndef f():\n    return importlib.import_module('schedlab.studies.mixed.cells')\n",
     "schedlab.studies.mixed.cells"),
    ("from importlib import import_module as im\nX = 'schedlab.tools.cli'\ndef f():\n    return im(X)\n",
     "schedlab.tools.cli"),
    ("from importlib import import_module\nX = 'schedlab.tools.cli'\ndef f():\n    return import_module(X)\n",
     "schedlab.tools.cli"),
    ("def f(name):\n    return __import__(f'schedlab.studies.{name}.cells')\n", "schedlab.studies"),
    ("import importlib\ndef f():\n    return importlib.import_module('..tools.cli', __package__)\n",
     "schedlab.tools.cli"),
    ("import schedlab\ndef f():\n    return schedlab.publish.paper.build\n", "schedlab.publish.paper.build"),
    ("import schedlab.workloads as w\nY = w.traces\ndef f():\n    return schedlab_x.y\n", "schedlab.workloads.traces"),
    ("from .. import protocol\ndef f():\n    return protocol.study.run_study\n", "schedlab.protocol.study.run_study"),
])
def test_the_layer_check_sees_dynamic_imports_and_attribute_reach(source, reached):
    sim = LIB / "schedlab" / "engine" / "sim.py"
    got = _imported(sim, source)
    assert reached in got, got
    files = {_module_name(f): f for f in (LIB / "schedlab").rglob("*.py")}
    tree = ast.parse(source)
    if reached and reached.startswith(("schedlab.studies.", "schedlab.tools", "schedlab.publish")):
        target = _module_of(reached, files)
        reach = _reach(sim, tree, files)
        assert target in reach and reach[target] is False, reach       # lazy: inside a function
        assert _layer(target) > _layer("schedlab.engine.sim")


def test_an_import_time_reach_is_eager():
    files = {_module_name(f): f for f in (LIB / "schedlab").rglob("*.py")}
    sim = LIB / "schedlab" / "engine" / "sim.py"
    source = "import importlib\nCLI = importlib.import_module('schedlab.tools.cli')\n"
    assert _reach(sim, ast.parse(source), files) == {"schedlab.tools.cli": True}


def test_a_cell_s_cached_results_do_not_depend_on_the_protocol_or_a_study_s_reporting():
    """A cell's cache key holds the code of its module and of every module it imports
    (schedlab.campaigns.fingerprint.cell_fingerprint).  So no cell of the library may import,
    even lazily, the study protocol, the paper build, the tools, a study's parameters,
    analysis, tables, figures or scorecard, or how campaigns are run, cached and assembled
    (CAMPAIGN_MACHINERY): editing how a result is reported or judged, or how cells are
    scheduled, must not recompute the simulations (it did: the policies cells reached the
    scorecard rules through a lazy import in their campaign builder, so a scorecard edit
    recomputed ~7,000 full-size cells).  The advisor's cells (a tool over whole studies)
    are the stated exception."""
    import importlib
    import pkgutil

    import schedlab
    from schedlab.campaigns.cells import CELLS
    from schedlab.campaigns.fingerprint import module_closure

    for m in pkgutil.walk_packages(schedlab.__path__, "schedlab."):
        if not m.name.endswith("__main__"):
            importlib.import_module(m.name)
    # the library's cells (a test module may have registered its own)
    cell_modules = {f.__module__ for f in CELLS.values() if f.__module__.startswith("schedlab.")}
    assert {"schedlab.studies.policies.cells", "schedlab.studies.mixed.cells"} <= cell_modules
    exempt = {"schedlab.tools.advise.cells"}
    bad = {}
    for mod in sorted(cell_modules - exempt):
        wrong = [n for n in module_closure(mod)
                 if n.startswith(("schedlab.protocol", "schedlab.publish", "schedlab.tools"))
                 or n in CAMPAIGN_MACHINERY
                 or (n.startswith("schedlab.studies.") and n.count(".") >= 3 and n not in cell_modules)]
        if wrong:
            bad[mod] = wrong
    assert not bad, f"cell modules whose cache keys depend on reporting code: {bad}"


#: The modules of schedlab/campaigns, bottom up (schedlab/campaigns/__init__.py says
#: what each does): each imports, even lazily, only modules before it, so none of them
#: import each other and a study's cells, which import ``cells`` and ``spec``, do not
#: import the cache, the assembly or the dask runner (CAMPAIGN_MACHINERY).
CAMPAIGN_MODULES = ["store", "cells", "outputs", "fingerprint", "spec", "cache", "assembly", "runner"]
CAMPAIGN_MACHINERY = {f"schedlab.campaigns.{m}" for m in ("cache", "assembly", "runner")}


def test_each_campaign_module_imports_only_those_below_it():
    folder = LIB / "schedlab" / "campaigns"
    assert sorted(f.stem for f in folder.glob("*.py") if f.stem != "__init__") == sorted(CAMPAIGN_MODULES), \
        "place the new module in CAMPAIGN_MODULES (and describe it in schedlab/campaigns/__init__.py)"
    rank = {f"schedlab.campaigns.{m}": i for i, m in enumerate(CAMPAIGN_MODULES)}
    bad = []
    for name, i in rank.items():
        for mod in _imported(folder / f"{name.rpartition('.')[2]}.py"):
            target = next((m for m in rank if mod == m or mod.startswith(m + ".")), None)
            if target is not None and rank[target] >= i:
                bad.append(f"{name} imports {mod}")
    assert not bad, "a campaigns module imports one at or above it:\n" + "\n".join(bad)
    assert not CAMPAIGN_MACHINERY & {"schedlab.campaigns." + m for m in CAMPAIGN_MODULES[:5]}


def test_the_simulate_cell_and_a_campaign_spec_need_none_of_the_campaign_machinery():
    from schedlab.campaigns.fingerprint import module_closure

    for mod in ("schedlab.campaigns.cells", "schedlab.campaigns.spec"):
        closure = set(module_closure(mod))
        assert mod in closure and not closure & CAMPAIGN_MACHINERY, (mod, sorted(closure & CAMPAIGN_MACHINERY))
    assert CAMPAIGN_MACHINERY <= set(module_closure("schedlab.campaigns.runner"))   # the check sees them
