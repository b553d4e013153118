"""Test ids are stable: pytest-xdist refuses to run when its workers collect
different ids, so an id that depends on the clock, on randomness, on hash
seeds or on the order of collection makes `make test` fail on a fresh clone
whenever the workers happen to differ.  Here two collections differ in all
four on purpose, every time, and must still agree."""
import os
import subprocess
import sys

from schedlab import paths

# Runs pytest's collection with the clock shifted by OFFSET seconds and the
# random module seeded with SEED (numpy's unseeded generators differ between
# processes anyway).
COLLECT = """
import random, sys, time
offset = float(sys.argv[1])
real = time.time
time.time = lambda: real() + offset
time.time_ns = lambda: int((real() + offset) * 1e9)
random.seed(int(sys.argv[2]))
import pytest
sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *sys.argv[3:]]))
"""


def _start(offset, seed, hashseed, files):
    env = dict(os.environ, PYTHONHASHSEED=str(hashseed), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.Popen([sys.executable, "-c", COLLECT, str(offset), str(seed), *files],
                            cwd=paths.ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _ids(proc):
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err + out[-2000:]
    return sorted(line for line in out.splitlines() if "::" in line)


def test_two_collections_under_other_clocks_seeds_and_orders_agree():
    files = sorted(str(p.relative_to(paths.ROOT)) for p in (paths.ROOT / "tests").glob("test_*.py"))
    a = _start(0, 1, 1, files)
    b = _start(86400 * 400 + 0.5, 2, 2, files[::-1])     # another day, seed, hash seed and file order
    ids_a, ids_b = _ids(a), _ids(b)
    assert len(ids_a) > 700
    only_a, only_b = sorted(set(ids_a) - set(ids_b)), sorted(set(ids_b) - set(ids_a))
    assert (only_a, only_b) == ([], []), "test ids that depend on the clock, randomness or order"
    assert len(ids_a) == len(set(ids_a)), "duplicate test ids"


def test_the_check_sees_a_clock_dependent_id(tmp_path):
    # the check above can fail: an id made from gzip.compress without mtime is caught
    t = tmp_path / "test_clock.py"
    t.write_text("import gzip, pytest\n"
                 "@pytest.mark.parametrize('x', [gzip.compress(b'a')])\n"
                 "def test_x(x):\n    pass\n")
    a, b = _start(0, 1, 1, [str(t)]), _start(86400 * 400, 2, 2, [str(t)])
    assert _ids(a) != _ids(b)


def test_no_test_draws_its_data_from_the_hash_seed():
    # hash() of a str changes with PYTHONHASHSEED, so a test seeded by it passes in one
    # process and fails in another (it happened: a finite-difference check, 1 run in 3)
    import ast

    found = []
    for f in sorted((paths.ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hash":
                found.append(f"{f.relative_to(paths.ROOT)}:{node.lineno}")
    assert found == [], "use a stable digest (zlib.crc32, hashlib) instead of hash(): " + ", ".join(found)
