"""What a cell's cached result depends on besides its parameters: the code
(:func:`module_closure`, :func:`cell_fingerprint`: the C sources and the
sources of the cell's module and of every schedlab module it imports, read
from the files, never a version bumped by hand) and the traces it reads
(:func:`_trace_identity`: each file's sha256 and the machine size the
registry gives it).  :meth:`schedlab.campaigns.spec.Campaign.key` hashes them
with the parameters into a cell's cache key."""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from .cells import _import_cell


def _module_file(name: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _imports(name: str, path: Path) -> set[str]:
    """The modules of schedlab and of ``name``'s own top-level package that
    module ``name`` (file ``path``) imports, anywhere in its body
    (function-level imports too), read from its source."""
    import ast

    ours = {"schedlab", name.split(".")[0]}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] in ours}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] not in ours:
                continue
            found.add(mod)
            # "from .pkg import name": name may itself be a module
            found |= {f"{mod}.{a.name}" for a in node.names if _module_file(f"{mod}.{a.name}") is not None}
    return {m for m in found if _module_file(m) is not None}


@functools.lru_cache(maxsize=None)
def module_closure(name: str) -> tuple[str, ...]:
    """Module ``name`` and every module of schedlab or of its own package it imports, directly or not
    (by reading their sources, not by importing them), sorted."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        f = _module_file(m)
        if f is None:
            continue
        seen.add(m)
        todo += sorted(_imports(m, f) - seen)
    return tuple(sorted(seen))


def python_code_text(path: Path) -> bytes:
    """The code of the Python file ``path`` up to its comments, docstrings
    and layout: the dump of its syntax tree (no line numbers) with the
    docstring of the module and of each class and function left out.  A
    cell's cached result depends on what its code does, and a comment or a
    docstring changes nothing it does (none of schedlab's cells reads a
    ``__doc__``).  A file that does not parse is taken as its bytes.  The
    dump's format belongs to the Python version: another Python recomputes
    the cells once."""
    import ast

    raw = path.read_bytes()
    try:
        tree = ast.parse(raw, str(path))
    except (SyntaxError, ValueError):
        return raw
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:]
    return ast.dump(tree, annotate_fields=False, include_attributes=False).encode()


@functools.lru_cache(maxsize=None)
def cell_fingerprint(cell: str) -> str:
    """The code a cell's result depends on besides its parameters: the C
    sources of the loaded core and the source of the cell function's module
    and of every schedlab module it imports, directly or not (sha256, 16 hex
    digits).  Derived from the sources, never a version number bumped by
    hand: edit a cell or a helper it imports and its cached results are
    recomputed; edit a table, a figure or another study, or a comment or a
    docstring anywhere (:func:`python_code_text`; the C sources' hash is
    comment-proof too: ``_build.c_code_text``), and they are not."""
    from ..engine import sim

    f = _import_cell(cell)
    h = hashlib.sha256(sim.SOURCE_HASH.encode())
    for name in module_closure(f.__module__):
        h.update(name.encode() + b"\0" + python_code_text(_module_file(name)) + b"\0")
    return h.hexdigest()[:16]


def python_fingerprint(module: str) -> str:
    """The code of a Python policy's or estimator's module (``py:module:name``):
    its source and that of every module of its own package (and of schedlab)
    it imports, as a cell's own code is fingerprinted.  Not cached: a
    notebook may edit the module between two runs (the file is read again)."""
    h = hashlib.sha256()
    for name in module_closure.__wrapped__(module):
        h.update(name.encode() + b"\0" + _module_file(name).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _traces_of(params: dict) -> list:
    t = params.get("trace")
    return [] if t is None else (list(t) if isinstance(t, (list, tuple)) else [t])


@functools.lru_cache(maxsize=256)
def _trace_identity(name_or_path: str) -> dict:
    """What a cell knows of a trace besides its parameters: the file's sha256
    and the machine size the registry gives it (a cell that simulates on the
    registry's m must be recomputed when that m changes)."""
    from ..workloads import traces

    return {"sha256": _trace_sha(name_or_path), "m": traces.resolve(name_or_path).m}


@functools.lru_cache(maxsize=256)
def _trace_sha(name_or_path: str) -> str:
    from ..workloads import traces

    info = traces.resolve(name_or_path)
    return info.sha256 or traces.sha256_file(info.path)
