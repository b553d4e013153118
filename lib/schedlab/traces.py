"""The registry of bundled workload traces (``data/traces.toml``).

>>> from schedlab import traces
>>> info = traces.resolve("kth-sp2")        # name, case-insensitive
>>> trace = traces.load("KTH-SP2")          # checksum verified, then read
>>> trace.n, info.m
(28476, 100)

:func:`resolve` also takes a registry file name (``"KTH-SP2-1996-2.1-cln.swf.gz"``)
or any path to an SWF file; an unregistered file gets a :class:`TraceInfo`
named after its stem, with ``m`` taken from its header.
"""
from __future__ import annotations

import hashlib
import os
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from . import paths
from .errors import ChecksumError, InputError
from .swf import SWFTrace, header_max_procs, read_swf, read_swf_header

__all__ = ["TraceInfo", "registry", "resolve", "load", "verify", "verify_all", "sha256_file"]

_SWF_SUFFIXES = (".gz", ".bz2", ".xz", ".swf")


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True, eq=False)
class TraceInfo:
    """What the registry (or, for an unregistered file, its header) says about a trace.

    ``m`` is the machine size to simulate: the registry's ``m`` if given,
    else ``max_procs``.  ``sha256`` is the registry's checksum; for an
    unregistered file it is computed from the file on first access.
    """

    name: str
    path: Path
    jobs: int | None = None
    max_procs: int | None = None
    m: int | None = None
    main: bool = False
    note: str = ""
    source: str = ""
    installation: str = ""
    url: str = ""
    found_in: str = ""
    registered: bool = False
    _sha256: str | None = field(default=None, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "path", Path(self.path))
        if self.m is None:
            object.__setattr__(self, "m", self.max_procs)

    @property
    def sha256(self) -> str:
        if self._sha256 is None:
            object.__setattr__(self, "_sha256", sha256_file(self.path))
        return self._sha256  # type: ignore[return-value]

    @property
    def file(self) -> str:
        return self.path.name

    def __eq__(self, other) -> bool:
        if not isinstance(other, TraceInfo):
            return NotImplemented
        return (self.name, self.path, self.registered) == (other.name, other.path, other.registered)

    def __hash__(self) -> int:
        return hash((self.name, self.path, self.registered))


# --------------------------------------------------------------------------
# the registry

def _int_or_none(table: dict, key: str, name: str, where: Path) -> int | None:
    v = table.get(key)
    if v is None:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
        raise InputError(f"{where}: [{name}] {key} must be a positive integer, got {v!r}")
    return v


@lru_cache(maxsize=4)
def _parse_registry(text: str, registry_path: Path, traces_dir: Path) -> dict[str, TraceInfo]:
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{registry_path}: {exc}") from exc
    out: dict[str, TraceInfo] = {}
    for name, table in raw.items():
        if not isinstance(table, dict):
            continue
        for key in ("file", "sha256"):
            if not isinstance(table.get(key), str):
                raise InputError(f"{registry_path}: [{name}] needs a string {key!r}")
        out[name] = TraceInfo(
            name=name,
            path=traces_dir / table["file"],
            jobs=_int_or_none(table, "jobs", name, registry_path),
            max_procs=_int_or_none(table, "max_procs", name, registry_path),
            m=_int_or_none(table, "m", name, registry_path),
            main=bool(table.get("main", False)),
            note=str(table.get("note", "")),
            source=str(table.get("source", "")),
            installation=str(table.get("installation", "")),
            url=str(table.get("url", "")),
            found_in=str(table.get("found_in", "")),
            registered=True,
            _sha256=table["sha256"].lower(),
        )
    return out


def registry() -> dict[str, TraceInfo]:
    """The traces of ``data/traces.toml``, by short name, in file order."""
    reg = paths.TRACE_REGISTRY
    text = reg.read_text(encoding="utf-8")
    return dict(_parse_registry(text, reg, paths.TRACES))


def _strip_suffixes(file_name: str) -> str:
    stem = file_name
    while True:
        for suffix in _SWF_SUFFIXES:
            if stem.lower().endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        else:
            return stem


def resolve(name_or_path: str | os.PathLike | TraceInfo) -> TraceInfo:
    """The :class:`TraceInfo` of a registry name (case-insensitive), a
    registry file name (with or without its ``.swf.gz``), or a path to any
    SWF file.  A bare name is looked up in the registry first; a path is
    the registry's entry only if it is that very file (a copy elsewhere is
    an unregistered trace)."""
    if isinstance(name_or_path, TraceInfo):
        return name_or_path
    reg = registry()
    text = os.fspath(name_or_path)
    is_bare = isinstance(name_or_path, str) and os.sep not in text and "/" not in text
    if is_bare:
        key = text.lower()
        for name, info in reg.items():
            if key in (name.lower(), info.file.lower(), _strip_suffixes(info.file).lower()):
                return info
    path = Path(text).expanduser()
    if path.is_file():
        resolved = path.resolve()
        for info in reg.values():
            if info.path.resolve() == resolved:
                return info
        header, _ = read_swf_header(path)
        return TraceInfo(name=_strip_suffixes(path.name), path=path,
                         max_procs=header_max_procs(header),
                         installation=header.get("Installation", ""), registered=False)
    known = ", ".join(reg)
    raise InputError(f"unknown trace {text!r}: neither a registered name ({known}) nor an existing file")


def verify(name_or_path: TraceInfo | str | os.PathLike) -> None:
    """Raise :class:`ChecksumError` unless a registered trace's file matches
    its registry checksum (unregistered files have nothing to check)."""
    _check(resolve(name_or_path))


def _check(info: TraceInfo) -> None:
    if not info.registered:
        return
    if not info.path.is_file():
        raise ChecksumError(f"{info.path}: missing (registered as {info.name}, sha256 {info.sha256})")
    actual = sha256_file(info.path)
    if actual != info.sha256:
        raise ChecksumError(f"{info.path}: sha256 mismatch for {info.name}: "
                            f"expected {info.sha256}, actual {actual}")


def load(name_or_path: str | os.PathLike | TraceInfo, verify: bool = True) -> SWFTrace:
    """Read a trace.  Unless ``verify=False``, a registered file's checksum
    is checked first and its job count after: a mismatch raises
    :class:`ChecksumError`."""
    info = resolve(name_or_path)
    if verify:
        _check(info)
    trace = read_swf(info.path)
    if verify and info.registered and info.jobs is not None and trace.n != info.jobs:
        raise ChecksumError(f"{info.path}: {trace.n} jobs, the registry says {info.jobs}")
    return trace


def verify_all() -> list[tuple[str, bool, str]]:
    """Check every registered file: a list of (name, ok, message)."""
    out = []
    for name, info in registry().items():
        try:
            _check(info)
        except ChecksumError as exc:
            out.append((name, False, str(exc)))
        else:
            out.append((name, True, f"{info.file}: sha256 ok"))
    return out
