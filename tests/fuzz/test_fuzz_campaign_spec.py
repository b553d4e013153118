"""Fuzz target: the campaign spec loader (issue 17).

Two kinds of hostile specs: mappings built from a spec's keys and junk keys
with values of every YAML type (huge numbers, NaN, deep nesting, hostile
cells such as ``subprocess:run``, names such as ``..``), and the bundled
specs of ``campaigns/`` with their text mutated (flipped bytes, YAML tags,
anchors and aliases, brackets, NUL, tabs ...).  :meth:`Campaign.from_yaml`
must either refuse with an InputError that starts with the file's name, or
give a campaign that is safe to run:

* its cell is registered or defined in an allowed module (never an
  arbitrary function), and nothing ran while loading (no marker file);
* its cache directory is directly under the cache root;
* its grid has the size its dims say (at most ``MAX_CELLS``), and the cache
  key of its first cell can be computed (or a schedlab error says why).
"""
from __future__ import annotations

import inspect
import math

import yaml
from hypothesis import given
from hypothesis import strategies as st

from fuzz_inputs import Tally, WrongResult, budget, clean_error
from schedlab.campaigns.cache import Cache
from schedlab.campaigns.cells import CELLS, _import_cell, _module_allowed
from schedlab.campaigns.spec import MAX_CELLS, Campaign
from schedlab import paths
from schedlab.errors import SchedlabError

TALLY = Tally("campaign spec")
_tally = TALLY.fixture()

BUNDLED = sorted((paths.ROOT / "campaigns").glob("*.yaml"))
CELL_NAMES = ["simulate", "subprocess:run", "os:system", "builtins:exec", "schedlab.workloads.swf:write_swf",
         "schedlab.studies.mixed.cells:grid_cell", "schedlab.studies.mixed.cells:np",
         "schedlab.campaigns.cells:simulate_cell", "schedlab.campaigns.runner:run", "policies-thesis", "nope", "a:b:c", ":",
         "schedlab.studies.policies.cells:campaigns.__globals__", "..:x", "antigravity:fly", ""]
NAMES = ["x", "..", ".", "a/b", "a\\b", "\x00", "é", "x" * 300, "-", "...", " ", "a?b*c&d=e"]
YAML_BITS = ["!!python/object/apply:os.system ['touch pwned']", "!!python/name:os.system", "&a [1, 2]", "*a",
             "*nope", "{", "}", "[", "]", ": ", "- ", "\t", "\x00", "\n...\n", "\n---\n", "%YAML 1.1\n", "'",
             '"', "#", "? ", "!!binary AAAA", "1e999", ".nan", "0x10", "~", "<<: *a"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-10, 10), st.floats(),
                    st.text(max_size=10), st.sampled_from(CELL_NAMES + NAMES))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=5), inner, max_size=4)),
                      max_leaves=30)
labels = st.lists(st.one_of(st.integers(-5, 5), st.text(max_size=4), st.floats(), st.none(), values),
                  min_size=0, max_size=4)
spec = st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.sampled_from(NAMES), values),
    "cell": st.one_of(st.sampled_from(CELL_NAMES), values),
    "dims": st.one_of(st.dictionaries(st.one_of(st.sampled_from(["primary", "sample", "trace", "x"]),
                                                st.text(max_size=5), st.integers()), labels, max_size=4), values),
    "params": st.one_of(st.dictionaries(st.one_of(st.sampled_from(["trace", "weeks", "seed", "args", "primary"]),
                                                  st.text(max_size=5)), values, max_size=4), values),
    "metrics": st.one_of(st.lists(st.sampled_from(["avg_wait", "jobs", "colour", ""]), max_size=3), values),
    "colour": values,
})
mutation = st.tuples(st.sampled_from(["flip", "insert", "delete"]), st.floats(0, 1), st.sampled_from(YAML_BITS),
                     st.integers(1, 255))


def mutate(text: bytes, kind, where, bit, k) -> bytes:
    i = min(int(where * len(text)), len(text) - 1)
    if kind == "flip":
        return text[:i] + bytes([text[i] ^ k]) + text[i + 1:]
    if kind == "insert":
        return text[:i] + bit.encode() + text[i:]
    return text[:i] + text[i + k % 30 + 1:]


def check(path, content: bytes):
    path.write_bytes(content)
    marker = path.parent / "pwned"
    try:
        c = Campaign.from_yaml(path)
    except Exception as exc:   # noqa: BLE001
        outcome = clean_error(exc, path)
        if not str(exc).startswith(str(path)):
            raise WrongResult(f"error not starting with the file: {str(exc)[:200]!r}") from None
        return outcome
    finally:
        if marker.exists():
            marker.unlink()
            raise WrongResult("loading the spec ran a command")
    f = _import_cell(c.cell)
    module = inspect.getmodule(f)
    if f not in CELLS.values() and not _module_allowed(getattr(module, "__name__", "")):
        raise WrongResult(f"cell {c.cell!r} is neither registered nor in an allowed module")
    root = path.parent / "cache"
    if Cache(root, c.name).dir.parent != root:
        raise WrongResult(f"campaign {c.name!r} caches outside {root}")
    if math.prod(c.shape) > MAX_CELLS:
        raise WrongResult(f"grid of {math.prod(c.shape)} cells accepted")
    cells = c.cells()
    if len(cells) != math.prod(c.shape):
        raise WrongResult("grid size differs from the dims")
    try:
        c.key(cells[0][1])
    except SchedlabError:
        pass
    return "accepted"


@budget(200)
@given(d=spec)
def test_fuzz_spec_mappings(tmp_path_factory, d):
    text = yaml.safe_dump(d, allow_unicode=True).encode("utf-8", "surrogatepass")
    TALLY.run(check, scratch(tmp_path_factory) / "spec.yaml", text)


@budget(200)
@given(i=st.integers(0, len(BUNDLED) - 1), mutations=st.lists(mutation, min_size=1, max_size=4))
def test_fuzz_spec_texts(tmp_path_factory, i, mutations):
    text = BUNDLED[i].read_bytes()
    for m in mutations:
        text = mutate(text, *m)
    TALLY.run(check, scratch(tmp_path_factory) / "spec.yaml", text)


def scratch(factory, _dirs={}):
    if "d" not in _dirs:
        _dirs["d"] = factory.mktemp("fuzz-spec")
    return _dirs["d"]
