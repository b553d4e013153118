"""Every input bounded (issue 54): output paths that never replace a device,
names that cannot brick the registry, environments that fail in one line,
and no input that can take the machine's memory.  Each test reproduces a
finding of the sweep (it failed before the fix)."""
from __future__ import annotations

import ast
import os
import socket
import stat
import subprocess
import sys
import textwrap

import pytest

from schedlab import files, paths
from schedlab.errors import InputError

LIB = paths.ROOT / "lib" / "schedlab"
ROW = "{i} {s} 5 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n"


def tiny_trace(tmp_path, n=29):
    p = tmp_path / "t.swf"
    p.write_text("; MaxProcs: 4\n" + "".join(ROW.format(i=i, s=10 * i) for i in range(1, n + 1)))
    return p


def run_cli(args, **kw):
    # a timeout: opening a FIFO for writing waits for a reader (how `-o fifo` hung before the fix)
    return subprocess.run([sys.executable, "-m", "schedlab.tools.cli", *args], capture_output=True, text=True,
                          timeout=kw.pop("timeout", 120), **kw)


def one_line_error(proc, *names):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("schedlab: error: "), proc.stderr
    assert "Traceback" not in proc.stderr and all(str(n) in lines[0] for n in names), proc.stderr
    return lines[0]


# ----------------------------------------------- 1. writers never replace --

def _device(p):
    os.mknod(p, 0o666 | stat.S_IFCHR, os.makedev(1, 3))     # the null device's numbers, made in tmp_path


def _fifo(p):
    os.mkfifo(p)


def _socket(p):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(p))
    s.close()


def _directory(p):
    p.mkdir()


KINDS = {"device": _device, "fifo": _fifo, "socket": _socket, "directory": _directory}
IS_KIND = {"device": stat.S_ISCHR, "fifo": stat.S_ISFIFO, "socket": stat.S_ISSOCK, "directory": stat.S_ISDIR}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_atomic_writer_refuses_a_path_that_is_not_a_regular_file(tmp_path, kind):
    target = tmp_path / "out"
    KINDS[kind](target)
    word = {"device": "character device", "fifo": "FIFO"}.get(kind, kind)
    with pytest.raises(InputError, match=f"{target}: exists and is a {word}, not a regular file"):
        files.write_bytes(target, b"x")
    assert IS_KIND[kind](os.lstat(target).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]      # no temporary left


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_simulate_onto_a_device_or_fifo_is_one_line_and_leaves_it(tmp_path, kind):
    """Finding 1: `schedlab simulate KTH-SP2 -o d` replaced a device (and a FIFO) with a regular file."""
    target = tmp_path / kind
    KINDS[kind](target)
    one_line_error(run_cli(["simulate", str(tiny_trace(tmp_path)), "-o", str(target)]), target, "regular file")
    assert IS_KIND[kind](os.lstat(target).st_mode)


def test_a_symlink_to_a_device_is_refused_and_a_regular_file_still_replaced(tmp_path):
    dev = tmp_path / "dev"
    _device(dev)
    link = tmp_path / "link"
    link.symlink_to(dev)
    with pytest.raises(InputError, match="not a regular file"):
        files.write_bytes(link, b"x")
    assert stat.S_ISCHR(os.stat(link).st_mode)
    plain = tmp_path / "plain"
    plain.write_bytes(b"old")
    files.write_bytes(plain, b"new")
    assert plain.read_bytes() == b"new"


@pytest.fixture
def alarm():
    """Fail a test that blocks (opening a FIFO waits for its other end) instead of hanging the suite."""
    import signal

    def ring(*_):
        raise TimeoutError("blocked for 20 s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("kind", ["device", "fifo", "socket"])
def test_the_folder_writer_refuses_a_path_that_is_not_a_folder(tmp_path, kind, alarm):
    """Before: rmtree on the path (a FIFO: blocked, opening it for reading, until a writer came)."""
    target = tmp_path / "site"
    KINDS[kind](target)
    with pytest.raises(InputError, match="not a folder"):
        with files.atomic_folder(target) as tmp:
            (tmp / "index.html").write_text("x")
    assert IS_KIND[kind](os.lstat(target).st_mode)


#: Calls that create or replace a file: each is inside a ``with atomic(...)``
#: / ``with atomic_folder(...)`` block (its temporary), or in a function listed
#: here with its reason.
PATH_WRITES = {"write_text", "write_bytes"}          # Path's methods (one argument: the data)
SHUTIL_WRITES = {"copyfile", "copy2", "copy", "copytree"}
WRITES = {"savez", "savez_compressed", "to_netcdf", "savefig"}     # plots.savefig: the library's, atomic
RENAMES = {"replace", "rename", "move", "renames"}
WRITES_ELSEWHERE = {
    ("schedlab.publish.site", "*"): "writes into the temporary folder atomic_folder gave build()",
    ("schedlab.campaigns.runner", "progress_line"): "appends to $SCHEDLAB_PROGRESS (written through, never replaced)",
}


def _write_calls():
    """(module, function, line, what) of every file-writing call outside an atomic block."""
    found = []
    for f in sorted(LIB.rglob("*.py")):
        module = ".".join(f.relative_to(LIB.parent).with_suffix("").parts).removesuffix(".__init__")
        if module == "schedlab.files":
            continue
        tree = ast.parse(f.read_text())

        def visit(node, func, atomic):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                func = node.name
            if isinstance(node, (ast.With, ast.AsyncWith)):
                names = {getattr(i.context_expr.func, "id", getattr(i.context_expr.func, "attr", None))
                         for i in node.items if isinstance(i.context_expr, ast.Call)}
                atomic = atomic or bool(names & {"atomic", "atomic_folder"})
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", None))
                mode = next((a.value for a in node.args[1:2] if isinstance(a, ast.Constant)),
                            next((k.value.value for k in node.keywords if k.arg == "mode"
                                  and isinstance(k.value, ast.Constant)), "r"))
                opens = name == "open" and isinstance(mode, str) and set(mode) & set("wax+")
                owner = getattr(node.func.value, "id", "") if isinstance(node.func, ast.Attribute) else ""
                method = isinstance(node.func, ast.Attribute) and len(node.args) == 1 and name in PATH_WRITES
                if name in RENAMES and owner in ("os", "shutil"):
                    found.append((module, func, node.lineno, f"{owner}.{name}"))
                elif ((name in WRITES and owner != "plots") or opens or (owner, name) == ("nbformat", "write") or method or (owner == "shutil" and name in SHUTIL_WRITES)) \
                        and not atomic:
                    found.append((module, func, node.lineno, name))
            for child in ast.iter_child_nodes(node):
                visit(child, func, atomic)

        visit(tree, "", False)
    return found


def test_every_writer_of_the_library_goes_through_the_atomic_writer():
    """The one check (files.py) covers a new writer only if it goes through it:
    nothing else renames over a path, and every write lands in an atomic
    block's temporary (or is listed with its reason)."""
    stray = [c for c in _write_calls() if (c[0], c[1]) not in WRITES_ELSEWHERE and (c[0], "*") not in WRITES_ELSEWHERE]
    assert not stray, f"writes outside schedlab.files.atomic/atomic_folder: {stray}"


def test_the_writer_check_sees_a_stray_write(tmp_path, monkeypatch):
    f = LIB / "zz_probe_writer.py"
    f.write_text("import os\ndef w(p):\n    p.write_text('x')\n    os.replace(p, p)\n"
                 "def ok(p):\n    with atomic(p) as t:\n        t.write_text('x')\n")
    try:
        found = [c for c in _write_calls() if c[0] == "schedlab.zz_probe_writer"]
    finally:
        f.unlink()
    assert found == [("schedlab.zz_probe_writer", "w", 3, "write_text"),
                     ("schedlab.zz_probe_writer", "w", 4, "os.replace")]


# --------------------------------------- 3. environments fail in one line --

def _jobs(n=40, users=True):
    from schedlab.engine.sim import Jobs
    import numpy as np

    submit = np.arange(n, dtype=np.int64) * 3600 * 5          # five hours apart: about 34 jobs a week
    kw = {"user": np.arange(n) % 3} if users else {}
    return Jobs(submit=submit, run=np.full(n, 600), req=np.full(n, 900), procs=np.full(n, 2), **kw)


def _dispatch(**kw):
    from schedlab.gym.dispatch import JobDispatchEnv
    # the jobs never wait (every window trivial): kept, so that reset has an episode to start
    return JobDispatchEnv(_jobs(), m=4, **{"skip_trivial": False, **kw})


def _selection(**kw):
    from schedlab.gym.selection import PolicySelectionEnv
    return PolicySelectionEnv(_jobs(), m=4, **{"weeks": 1, **kw})


ENVS = {"dispatch": _dispatch, "selection": _selection}


@pytest.mark.parametrize("env", sorted(ENVS))
def test_step_after_a_failed_reset_is_refused_in_one_line(env):
    """Finding 3: reset(options={"week": 999}) then step(0) gave AttributeError ('NoneType' ... 'decide')."""
    e = ENVS[env](window="week")
    e.reset(seed=0)
    with pytest.raises(InputError, match="week"):
        e.reset(options={"week": 999})
    with pytest.raises(InputError, match="reset"):
        e.step(0)


@pytest.mark.parametrize("env", sorted(ENVS))
@pytest.mark.parametrize("options", ["abc", 5, ["week"]])
def test_options_that_are_not_a_mapping_are_refused(env, options):
    with pytest.raises(InputError, match="options: expected a dict"):
        ENVS[env](window="week").reset(options=options)


@pytest.mark.parametrize("env, window, options", [
    ("dispatch", "week", {"start": 0}), ("dispatch", "jobs", {"week": 0}), ("dispatch", "log", {"sample": 1}),
    ("dispatch", "resampled", {"week": 0}), ("selection", "resampled", {"week": 3}),
    ("selection", "week", {"sample": 1}), ("selection", "log", {"week": 0})])
def test_an_option_that_does_not_apply_to_the_window_is_refused(env, window, options):
    """Finding 3: PolicySelection's {"week": 3} in a resampled window (JobDispatch's {"start": 0} in a week window) was ignored."""
    kw = {"jobs": 8} if window == "jobs" else {}
    e = ENVS[env](window=window, **kw)
    key = next(iter(options))
    with pytest.raises(InputError, match=f"{key}.*window={window!r}"):
        e.reset(seed=0, options=options)


@pytest.mark.parametrize("env", sorted(ENVS))
@pytest.mark.parametrize("action", [True, False, np_bool := "np.bool_"])
def test_a_boolean_action_is_refused_by_both_environments(env, action):
    """Finding 6: PolicySelection took True as action 1 where JobDispatch refused it (both refuse now)."""
    import numpy as np

    action = np.bool_(True) if action == "np.bool_" else action
    e = ENVS[env](window="log")
    e.reset(seed=0)
    with pytest.raises(InputError, match="action"):
        e.step(action)


@pytest.mark.parametrize("env", sorted(ENVS))
@pytest.mark.parametrize("action", [1.0, "1", None, [0]])
def test_a_non_index_action_is_refused_by_both(env, action):
    e = ENVS[env](window="log")
    e.reset(seed=0)
    with pytest.raises(InputError, match="action"):
        e.step(action)


def test_integer_actions_of_every_kind_are_taken():
    import numpy as np

    for env in ENVS.values():
        e = env(window="log")
        e.reset(seed=0)
        e.step(np.int64(0))
        e.step(np.array(0))


def test_k_is_bounded_by_what_an_episode_can_hold():
    """Finding 3: K=10**12 tried a 4.55 TiB allocation."""
    with pytest.raises(InputError, match=r"K: at most 128 .*got 1000000000000"):
        _dispatch(window="log", K=10**12)
    assert _dispatch(window="log", K=128).K == 128        # the default stays valid on a small log
    assert _dispatch(window="log", K=None).K == 40


@pytest.mark.parametrize("env", sorted(ENVS))
def test_weeks_of_a_resampled_window_are_bounded(env):
    """Finding 3: window="resampled", weeks=10**6 was killed by the out-of-memory killer."""
    with pytest.raises(InputError, match=r"weeks: at most 520 .*got 1000000"):
        ENVS[env](window="resampled", weeks=10**6)


def test_an_empty_policy_list_is_refused():
    """Finding 3: policies=[] gave ValueError: n (counts) have to be positive."""
    with pytest.raises(InputError, match="policies: .*at least one"):
        _selection(policies=[])


@pytest.mark.parametrize("env", sorted(ENVS))
@pytest.mark.parametrize("how", ["deepcopy", "copy", "pickle"])
def test_copying_or_pickling_an_environment_is_refused_in_one_line(env, how):
    """Finding 3: copy.deepcopy(env) and pickle gave TypeError: cannot pickle '_cffi_backend.__CDataGCP'."""
    import copy
    import pickle

    e = ENVS[env](window="log")
    e.reset(seed=0)
    do = {"deepcopy": copy.deepcopy, "copy": copy.copy, "pickle": pickle.dumps}[how]
    with pytest.raises(InputError, match="cannot be copied or pickled.*same parameters"):
        do(e)


@pytest.mark.parametrize("name", ["schedlab/JobDispatch-v0", "schedlab/PolicySelection-v0"])
def test_a_made_environment_refuses_pickling_in_one_line_too(name):
    import pickle

    import gymnasium

    import schedlab.gym  # noqa: F401

    e = gymnasium.make(name, trace=_jobs(), m=4, window="log")
    with pytest.raises(InputError, match="cannot be copied or pickled"):
        pickle.dumps(e)


# ------------------------------------------------- 4. bounded reading --

def alias_bomb(wide=9, deep=8, size=10_000) -> str:
    """A flow-style YAML list whose first item's aliases expand ``wide ** deep``
    times (43 million items at 9 and 8), padded with a long text to ``size`` bytes."""
    parts = ["&a0 [" + ", ".join(["xxxxxxxx"] * wide) + "]"]
    for level in range(1, deep + 1):
        parts.append(f"&a{level} [" + ", ".join([f"*a{level - 1}"] * wide) + "]")
    text = "[[" + ", ".join(parts) + "], "           # the first item holds them all: an error quoting it quotes all
    return text + "y" * max(0, size - len(text) - 1) + "]"


def _measured(code: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run ``code`` in a fresh Python; its result, peak memory (MB) and seconds (user + system)."""
    # Peak memory: the process's own high-water mark (VmHWM); getrusage's
    # ru_maxrss keeps the parent's peak across fork and exec (a pytest worker
    # at 500 MB would pass it on), so it is only the fallback.
    wrapper = textwrap.dedent("""
        import resource, sys, time
        code = sys.stdin.read()
        try:
            exec(compile(code, "probe", "exec"), {"__name__": "__probe__"})
        finally:
            u = resource.getrusage(resource.RUSAGE_SELF)
            mb = u.ru_maxrss / 1024
            try:
                with open("/proc/self/status") as fh:
                    mb = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:")) / 1024
            except (OSError, StopIteration):
                pass
            print(f"MEASURED {mb:.1f} {u.ru_utime + u.ru_stime:.2f}", file=sys.stderr)
    """)
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"   # a bug fails, not the machine
    out = subprocess.run([sys.executable, "-c", wrapper], input=limit + code, capture_output=True, text=True,
                         timeout=timeout)
    line = [x for x in out.stderr.splitlines() if x.startswith("MEASURED ")][-1].split()
    return out, float(line[1]), float(line[2])


def test_an_alias_bomb_in_set_is_refused_in_one_short_line_within_bounds(tmp_path):
    """Finding 4: a --set alias bomb (nine wide, eight deep) became a 254 MB error line."""
    bomb = alias_bomb()
    assert 9_000 < len(bomb) <= 10_000
    (tmp_path / "bomb.txt").write_text(bomb)
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from schedlab.tools import cli
        rc = cli.main(["study", "run", "thresholds", "--set", "traces=" + Path({str(tmp_path / 'bomb.txt')!r}).read_text()])
        print("RC", rc)
    """)
    out, mb, seconds = _measured(code)
    assert "RC 2" in out.stdout, out.stderr[-2000:]
    lines = [x for x in out.stderr.splitlines() if not x.startswith("MEASURED ")]
    assert len(lines) == 1 and "aliases" in lines[0] and "--set traces" in lines[0] and len(lines[0]) < 300, lines
    assert mb < 400 and seconds < 30, (mb, seconds)


def test_aliases_are_refused_in_parameter_files_and_list_texts():
    from schedlab import validators

    for text in ("a: &x [1, 2]\nb: *x\n", "[&x 1, *x]"):
        with pytest.raises(InputError, match=r"where: line \d+, column \d+: YAML aliases \(\*x\)"):
            validators.read_yaml(text, "where")
    with pytest.raises(InputError, match="traces: .*aliases"):
        validators.as_list("[&x KTH-SP2, *x]", "traces")
    assert validators.read_yaml("a: [1, 2]\nb: {c: 20h}\n", "w") == {"a": [1, 2], "b": {"c": "20h"}}


def test_a_bad_value_is_quoted_by_a_short_prefix():
    from schedlab import validators

    long = "z" * 10_000
    for call in (lambda: validators.integer(long, "n"), lambda: validators.choice(long, "c", ["a"]),
                 lambda: validators.as_names([[long]], "names"), lambda: validators.duration(long, "threshold")):
        with pytest.raises(InputError) as info:
            call()
        assert len(str(info.value)) < 200 and "z" * 65 not in str(info.value), str(info.value)[:300]


def test_every_yaml_read_of_the_library_goes_through_read_yaml():
    """The one bounded reader (validators.read_yaml): a new reader gets the alias refusal by using it."""
    stray = []
    for f in sorted(LIB.rglob("*.py")):
        if f.name == "validators.py" and f.parent == LIB:
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Attribute) and getattr(node.value, "id", "") == "yaml" and \
                    node.attr in ("load", "safe_load", "full_load", "unsafe_load", "load_all", "safe_load_all",
                                  "compose", "parse"):
                stray.append(f"{f.relative_to(LIB)}:{node.lineno} yaml.{node.attr}")
    assert not stray, stray


def gzip_bomb(path, members=1024):
    """About 1 MB of gzip that expands to ``members`` MiB of newlines: one
    member of 1 MiB, repeated (a gzip file may hold several members)."""
    import gzip

    one = gzip.compress(b"\n" * (1 << 20), compresslevel=9, mtime=0)
    path.write_bytes(one * members)
    return path


@pytest.mark.parametrize("command", [["simulate"], ["check"], ["traces", "info"]])
def test_a_gzip_bomb_is_refused_in_one_line_within_bounds(tmp_path, command):
    """Finding 5: 1 MB of gzip expanding to 1 GiB of newlines was read whole (past 300 s at 2.1 GB)."""
    bomb = gzip_bomb(tmp_path / "bomb.swf.gz")
    assert bomb.stat().st_size < 1_100_000
    code = textwrap.dedent(f"""
        from schedlab.tools import cli
        print("RC", cli.main({command + [str(bomb)]!r}))
    """)
    out, mb, seconds = _measured(code)
    assert "RC 2" in out.stdout, out.stdout[-2000:] + out.stderr[-2000:]
    lines = [x for x in out.stderr.splitlines() if not x.startswith("MEASURED ")]
    assert len(lines) == 1 and str(bomb) in lines[0] and "compression bomb" in lines[0], lines
    assert mb < 400 and seconds < 30, (mb, seconds)


def test_every_bundled_log_is_within_the_expansion_cap():
    from schedlab.workloads import swf

    for f in sorted((paths.ROOT / "data" / "traces").glob("*.gz")):
        with swf._open_text_stream(f) as fh:
            while fh.read(1 << 22):
                pass


# ------------------------------------- 2. names checked against everything --

@pytest.mark.parametrize("name, reason", [
    ("your_policy", "slug 'your-policy' .* is study yourpolicy's"),
    ("class", "Python keyword"), ("import", "Python keyword"), ("match", "Python keyword"),
    ("os", "standard library"), ("json", "standard library"), ("numpy", "of the lock"), ("yaml", "of the lock"),
    ("probe_a\n", "whitespace"), ("probe a", "whitespace"), (" probe_a", "whitespace"),
    ("policies", "already exists")])
def test_study_new_refuses_a_name_that_collides_before_writing_anything(name, reason):
    """Finding 2: `study new your_policy` bricked the registry; class, import, os, numpy and a trailing newline were accepted."""
    from schedlab.protocol import scaffold

    before = sorted(p.name for p in (LIB / "studies").iterdir())
    with pytest.raises(InputError, match=reason):
        scaffold.new_study(name)
    assert sorted(p.name for p in (LIB / "studies").iterdir()) == before


def test_study_new_refuses_a_slug_a_notebook_already_has(tmp_path):
    from schedlab.protocol import scaffold

    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "42-orphan-study.ipynb").write_text("{}")
    with pytest.raises(InputError, match="notebooks/42-orphan-study.ipynb already has the slug 'orphan-study'"):
        scaffold.check_name("orphan_study", tmp_path)


@pytest.fixture
def lib_copy(tmp_path):
    """A copy of the library (and the compiled core) to add packages to, run in a subprocess."""
    import shutil

    root = tmp_path / "repo"
    shutil.copytree(paths.ROOT / "lib", root / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("notebooks", "params", "requirements.lock"):
        (root / name).symlink_to(paths.ROOT / name)
    return root


def _in_copy(root, code: str):
    env = {**os.environ, "PYTHONPATH": str(root / "lib"), "SCHEDLAB_ROOT": str(root)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          cwd=root, timeout=120)


def test_a_duplicate_study_package_is_left_out_with_its_fix_and_the_others_still_work(lib_copy):
    """Finding 2: a second package with the slug your-policy made `study list`, `study new` and `study run` fail."""
    import shutil

    studies = lib_copy / "lib" / "schedlab" / "studies"
    shutil.copytree(studies / "yourpolicy", studies / "your_policy")
    toml = (studies / "your_policy" / "study.toml").read_text()
    (studies / "your_policy" / "study.toml").write_text(toml.replace("number = 10", "number = 77"))
    (studies / "broken").mkdir()
    (studies / "broken" / "study.toml").write_text("number = [")
    out = _in_copy(lib_copy, """
        import sys
        from schedlab.tools import cli
        from schedlab.studies import registry
        from schedlab.protocol import scaffold
        print("RC", cli.main(["study", "list"]))
        print("POLICIES", registry.get("policies").stem)
        print("NEXT", scaffold.next_number(), scaffold.check_name("probe_fresh"))
        try:
            registry.get("your_policy")
        except Exception as e:
            print("REFUSED", type(e).__name__, e)
    """)
    assert "RC 0" in out.stdout, out.stdout[-2000:] + out.stderr[-3000:]
    assert "yourpolicy" in out.stdout and "POLICIES 01-" in out.stdout and "NEXT 78 probe_fresh" in out.stdout
    warnings = out.stderr.strip().splitlines()
    assert len(warnings) == 2 and all(w.startswith("schedlab: warning: ") for w in warnings), out.stderr
    assert any("studies yourpolicy and your_policy have the same slug 'your-policy'" in w
               and "lib/schedlab/studies/your_policy/" in w for w in warnings)
    assert any("broken/study.toml" in w and "left out" in w for w in warnings)
    assert "REFUSED InputError studies yourpolicy and your_policy" in out.stdout


def test_the_repository_s_registry_leaves_nothing_out():
    from schedlab.studies import registry

    assert registry.PROBLEMS == {}


# --------------------------------------------- 5. the remaining tracebacks --

@pytest.mark.parametrize("argv", [["study", "run", "traces"], ["campaign", "campaigns/lelong2017-kth.yaml"],
                                  ["advise", "LOG"]])
def test_a_bogus_scheduler_is_one_line(tmp_path, argv):
    """Finding 6: --scheduler bogus gave ValueError: missing port number in address 'bogus'."""
    argv = [str(tiny_trace(tmp_path)) if a == "LOG" else str(paths.ROOT / a) if a.startswith("campaigns/") else a
            for a in argv]
    line = one_line_error(run_cli([*argv, "--scheduler", "bogus", *(["--out", str(tmp_path / "o")]
                                                                     if argv[0] == "advise" else [])]),
                          "--scheduler", "'bogus'")
    assert "HOST:PORT" in line


def test_a_bogus_scheduler_in_the_environment_is_one_line_naming_it(monkeypatch):
    from schedlab.campaigns import runner

    monkeypatch.setenv(runner.SCHEDULER_ENV, "bogus")
    with pytest.raises(InputError, match=r"\$SCHEDLAB_SCHEDULER: expected a dask scheduler's address"):
        runner.Runner()
    for address in ("tcp://127.0.0.1:8786", "10.0.0.5:8786", "tls://[::1]:8786", "inproc://192.0.2.2/24317/1"):
        monkeypatch.setenv(runner.SCHEDULER_ENV, address)      # the last: an in-process cluster's
        assert runner.Runner().scheduler == address


@pytest.mark.parametrize("name", ["class", "import", "lambda", "None", "2x", "__x", "a-b", "a" * 65])
def test_a_column_name_the_grammar_cannot_read_is_refused_when_made(name):
    """Finding 6: a per-job column named `class` was accepted by Jobs, then expr:col.class was a syntax error."""
    from schedlab.jobs import Jobs
    from schedlab.workloads.columns import parse_column_arg

    with pytest.raises(InputError, match="columns: bad column name"):
        Jobs(submit=[0], run=[1], req=[1], procs=[1], columns={name: [1.0]})
    with pytest.raises(InputError, match="--column .*bad column name"):
        parse_column_arg(f"{name}=f.csv")


def test_the_column_names_the_grammar_reads_are_taken():
    from schedlab.expr import Expr
    from schedlab.jobs import Jobs

    for name in ("pred", "match", "_x", "Class", "a" * 64):
        Jobs(submit=[0], run=[1], req=[1], procs=[1], columns={name: [1.0]})
        assert Expr(f"col.{name}").columns == (name,)


@pytest.mark.parametrize("text, column", [("req +", 6), ("+", 2), ("(req", 1), ("req 1", 5), ("req)", 4)])
def test_a_syntax_error_at_the_end_counts_columns_from_1(text, column):
    """Finding 6: expr:req + reported column 0 where every other error counts from 1."""
    from schedlab.expr import Expr

    with pytest.raises(InputError, match=rf", column {column}: syntax error"):
        Expr(text)


def test_a_log_too_small_for_a_study_is_refused_with_its_minimum(tmp_path):
    """Finding 6: make reproduce TRACES=<a 1-job log> gave 02-thresholds FAILED: ZeroDivisionError."""
    log = tiny_trace(tmp_path, n=1)
    line = one_line_error(run_cli(["study", "run", "thresholds", "--trace", str(log), "--workers", "1",
                                   "--no-progress", "--outdir", str(tmp_path / "o")]), "t")
    assert "1 job(s) after cleaning; study thresholds needs at least 2" in line


def test_a_log_in_which_no_job_waits_is_refused_by_the_thresholds_study(tmp_path):
    log = tmp_path / "idle.swf"        # two jobs a day apart on an idle machine: nothing ever waits
    log.write_text("; MaxProcs: 4\n" + ROW.format(i=1, s=0) + ROW.format(i=2, s=86400))
    line = one_line_error(run_cli(["study", "run", "thresholds", "--trace", str(log), "--workers", "1",
                                   "--no-progress", "--outdir", str(tmp_path / "o")]), "idle")
    assert "no job waits in the baseline" in line


@pytest.mark.parametrize("env", sorted(ENVS))
@pytest.mark.parametrize("seed", [-1, "x", 1.5, True])
def test_a_bad_seed_is_an_input_error(env, seed):
    """The sweep's probe of this branch: reset(seed=-1) raised gymnasium.error.Error, not an InputError."""
    with pytest.raises(InputError, match="reset seed: expected None or an integer >= 0"):
        ENVS[env](window="log").reset(seed=seed)
