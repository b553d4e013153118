"""The registry of workload traces: the bundled ones (``data/traces.toml``)
and those fetched from the Parallel Workloads Archive on this machine.

>>> from schedlab.workloads import traces
>>> info = traces.resolve("kth-sp2")        # name, case-insensitive
>>> trace = traces.load("KTH-SP2")          # checksum verified, then read
>>> trace.n, info.m
(28476, 100)

:func:`resolve` also takes a registry file name (``"KTH-SP2-1996-2.1-cln.swf.gz"``)
or any path to an SWF file; an unregistered file gets a :class:`TraceInfo`
named after its stem, with ``m`` taken from its header.

Logs that are not bundled are listed in ``data/fetch.toml``; :func:`fetch`
(``schedlab traces fetch``, ``make data``) downloads one into
``data/traces/``, checks it against the checksum recorded there (or, when
none is, records the one it computed: trust on first use) and registers it
in ``data/traces.local.toml``, which this machine writes and git ignores.
:func:`registry` merges the two registries; a local entry never replaces a
bundled trace.

A trace may carry its cleaning choices for a log that lacks a field, after
a ``?`` (a *trace spec*): ``"mylog.swf?request=user-max&m=peak"`` (see
:func:`spec_options`).  The choices become part of the trace's name, so a
campaign's cache keys and a study's tables tell the variants apart, and
:func:`cleaned` applies them.
"""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import tomllib
import urllib.error
import urllib.request
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Callable, NamedTuple

from .. import __version__, paths
from ..errors import ChecksumError, FetchError, InputError
from ..validators import as_list
from ..files import atomic
from .swf import (N_FIELDS, SWFTrace, _open_text_stream, count_jobs, header_max_procs, read_swf,
                  read_swf_header)

__all__ = ["TraceInfo", "Fetchable", "Workload", "Cleaned", "registry", "resolve", "load", "cleaned", "text", "spec_options", "with_options",
           "with_columns", "keyed_text",
           "verify", "verify_all", "sha256_file", "fetchable", "fetch"]

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
    #: "bundled" (data/traces.toml), "fetched" (data/traces.local.toml) or
    #: "" (an unregistered file)
    origin: str = ""
    #: a fetched trace whose checksum was recorded on first use, not known beforehand
    tofu: bool = False
    #: cleaning choices the trace spec carries (``request``, ``m``): see :func:`spec_options`
    options: tuple = ()
    #: per-job columns the cleaned jobs get, ``((name, source), ...)``: a file of ``job id,value``
    #: lines (absolute path) or ``module:function`` (:func:`with_columns`, ``PATH?col.NAME=SOURCE``);
    #: not part of the name (outputs are named after the log), part of :func:`text`
    columns: tuple = ()
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

    def as_plain(self) -> str:
        """How a declared parameter records this trace (:func:`schedlab.declared.plain`): its name."""
        return self.name

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


@lru_cache(maxsize=8)
def _parse_registry(text: str, registry_path: Path, traces_dir: Path,
                    origin: str = "bundled") -> dict[str, TraceInfo]:
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
        folder = traces_dir
        if origin == "fetched" and table.get("dir"):  # fetched with --dest elsewhere
            folder = Path(str(table["dir"])).expanduser()
        out[name] = TraceInfo(
            name=name,
            path=folder / table["file"],
            jobs=_int_or_none(table, "jobs", name, registry_path),
            max_procs=_int_or_none(table, "max_procs", name, registry_path),
            m=_int_or_none(table, "m", name, registry_path),
            main=origin == "bundled" and bool(table.get("main", False)),
            note=str(table.get("note", "")),
            source=str(table.get("source", "")),
            installation=str(table.get("installation", "")),
            url=str(table.get("url", "")),
            found_in=str(table.get("found_in", "")),
            registered=True,
            origin=origin,
            tofu=origin == "fetched" and table.get("checksum") == "first use",
            _sha256=table["sha256"].lower(),
        )
    return out


def _keys(name: str, file: str) -> set[str]:
    """What resolve() matches a bare name against, lower-cased."""
    return {name.lower(), file.lower(), _strip_suffixes(file).lower()}


def _bundled() -> dict[str, TraceInfo]:
    reg = paths.TRACE_REGISTRY
    return _parse_registry(reg.read_text(encoding="utf-8"), reg, paths.TRACES)


def _names_taken(infos: dict[str, TraceInfo]) -> dict[str, str]:
    """Every key resolve() matches (lower-cased name, file, stem) -> trace name."""
    return {key: name for name, info in infos.items() for key in _keys(name, info.file)}


def _load_toml(where: Path, hint: str = "") -> dict:
    """The tables of TOML file ``where`` ({} if there is none)."""
    if not where.is_file():
        return {}
    try:
        raw = tomllib.loads(where.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: {exc}{hint}") from exc
    return {k: v for k, v in raw.items() if isinstance(v, dict)}


def registry() -> dict[str, TraceInfo]:
    """The traces of ``data/traces.toml``, by short name, in file order,
    followed by those ``schedlab traces fetch`` registered in
    ``data/traces.local.toml``.  A local entry whose name or file is that of
    a bundled trace is ignored (with a warning): it cannot replace it."""
    out = dict(_bundled())
    local = paths.LOCAL_TRACE_REGISTRY
    if not local.is_file():
        return out
    taken = _names_taken(out)
    fetched = _parse_registry(local.read_text(encoding="utf-8"), local, paths.TRACES, "fetched")
    for name, info in fetched.items():
        clash = sorted(_keys(name, info.file) & taken.keys())
        if clash:
            warnings.warn(f"{local}: [{name}] ignored: it would shadow the bundled trace "
                          f"{taken[clash[0]]}", stacklevel=2)
            continue
        out[name] = info
    return out


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
    text = os.fspath(name_or_path)
    if "?" in text and not Path(text).expanduser().is_file():
        base, _, query = text.partition("?")
        query, cols = _column_parts(query, text)
        return with_columns(with_options(resolve(base), spec_options(query, text)), cols, text)
    reg = registry()
    is_bare = isinstance(name_or_path, str) and os.sep not in text and "/" not in text
    if is_bare:
        key = text.lower()
        for name, info in reg.items():
            if key in (name.lower(), info.file.lower(), _strip_suffixes(info.file).lower()):
                return info
    path = Path(text).expanduser()
    if path.is_dir() and not (is_bare and text.lower() in {n.lower() for n in reg}):
        raise InputError(f"{text}: is a directory, not a log file (give an SWF file in it, or a registered name)")
    if path.is_file():
        if path.stat().st_size == 0:
            raise InputError(f"{text}: empty file (0 bytes): not a log")
        resolved = path.resolve()
        for info in reg.values():
            if info.path.resolve() == resolved:
                return info
        header, _ = read_swf_header(path)
        return TraceInfo(name=_strip_suffixes(path.name), path=path,
                         max_procs=header_max_procs(header),
                         installation=header.get("Installation", ""), registered=False)
    if is_bare:
        for fx in fetchable().values():
            if text.lower() in _keys(fx.name, fx.file):
                raise InputError(f"trace {text!r} ({fx.file}) is not bundled and not fetched yet: "
                                 f"run `make data` or `schedlab traces fetch {fx.name}` (needs the network)")
    known = ", ".join(reg)
    raise InputError(f"unknown trace {text!r}: neither a registered name ({known}) nor an existing file")


#: The cleaning choices a trace spec may carry, with their readers.
SPEC_KEYS = ("request", "m")
#: The prefix of a per-job column in a trace spec: ``PATH?col.pred=preds.csv`` (:func:`with_columns`).
COLUMN_PREFIX = "col."


def _column_parts(query: str, where: str) -> tuple[str, list]:
    """A spec's query split into its cleaning choices and its columns
    (``col.NAME=SOURCE`` parts, in order)."""
    keep, cols = [], []
    for part in filter(None, query.split("&")):
        key, eq, value = part.partition("=")
        if key.strip().lower().startswith(COLUMN_PREFIX):
            if not eq:
                raise InputError(f"trace {where!r}: {part!r}: expected col.NAME=FILE or col.NAME=module:function")
            cols.append((key.strip()[len(COLUMN_PREFIX):], value))
        else:
            keep.append(part)
    return "&".join(keep), cols


def with_columns(info: "TraceInfo", columns, where: str = "columns") -> "TraceInfo":
    """``info`` whose cleaned jobs get per-job columns: ``columns`` is a
    mapping or pairs of name -> source, a file of ``job id,value`` lines or
    ``module:function`` (a function of the cleaned jobs; see
    :mod:`schedlab.workloads.columns`); a name given again replaces its
    source.  Every cell that cleans the log gets them (:func:`text`
    carries them), resampling and splitting keep each job's value, and a
    cell's cache key covers each column's content (:func:`keyed_text`)."""
    import dataclasses

    from . import columns as _columns

    pairs = list(columns.items()) if isinstance(columns, dict) else list(columns or ())
    if not pairs:
        return info
    merged = dict(info.columns)
    for item in pairs:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise InputError(f"{where}: expected NAME=SOURCE pairs, got {item!r}")
        name = _columns.check_name(item[0], where)
        merged[name] = _columns.source(item[1], f"{where}: {name}")
    return dataclasses.replace(info, columns=tuple(merged.items()))


def spec_options(query: str, where: str = "") -> dict:
    """The cleaning choices of a trace spec's query ``request=...&m=...``:
    ``request`` (what a job without a requested time gets, see
    :data:`schedlab.workloads.workload.REQUEST_CHOICES`) and ``m`` (the machine size:
    an integer, ``header``, ``peak`` or ``auto``)."""
    from . import workload

    out = {}
    for part in filter(None, query.split("&")):
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq or key not in SPEC_KEYS:
            raise InputError(f"trace {where!r}: {part!r} is not a cleaning choice; "
                             f"a trace spec is PATH?key=value&... with keys {', '.join(SPEC_KEYS)}")
        if key in out:
            raise InputError(f"trace {where!r}: {key} given twice; give each cleaning choice once")
        try:
            out[key] = workload.request_choice(value) if key == "request" else workload.machine_choice(value)
        except InputError as exc:
            raise InputError(f"trace {where!r}: {exc}") from None
    return out


def with_options(info: TraceInfo, options: dict) -> TraceInfo:
    """``info`` carrying cleaning choices (merged over its own): its name gets
    them in canonical order (``SDSC-SP2?request=runtime``), its ``m`` the
    machine size when one is given."""
    import dataclasses

    merged = {**dict(info.options), **options}
    if not merged:
        return info
    base = info.name.partition("?")[0]
    query = "&".join(f"{k}={merged[k]}" for k in SPEC_KEYS if k in merged)
    m = merged.get("m")
    return dataclasses.replace(info, name=f"{base}?{query}", options=tuple(sorted(merged.items())),
                               m=m if isinstance(m, int) else (info.m if m in (None, "auto", "header") else None))


class Cleaned(NamedTuple):
    """A trace turned into jobs: the cleaned ``jobs``, the cleaning
    ``report``, the machine size ``m`` used, the ``trace`` as read and its
    ``info``."""

    jobs: object
    report: object
    m: int
    trace: SWFTrace
    info: TraceInfo


@dataclass(frozen=True)
class Workload:
    """The one workload input: a trace (with the cleaning choices its spec
    carries: ``request``, ``m``), the cleaning's ``overrun`` choice and a
    machine size given by the caller.  A study resolves it once
    (:meth:`of`); a cell on another machine gets it back from its
    :attr:`text` (:meth:`of`, with the cell's ``overrun`` and ``m``);
    :meth:`cleaned` is cached in the process and on disk, and :attr:`m` is
    the one place the machine size is chosen."""

    info: TraceInfo
    overrun: str = "kill"
    m_given: int | None = None

    @classmethod
    def of(cls, trace, *, overrun: str | None = None, m: int | None = None) -> "Workload":
        """A workload from a :class:`Workload` (``overrun`` and ``m`` replace
        its own when given), a :class:`TraceInfo`, a registry name, a path or
        a trace spec."""
        from . import workload as _cleaning

        if isinstance(trace, Workload):
            overrun = overrun or trace.overrun
            m = m or trace.m_given
            trace = trace.info
        overrun = overrun or "kill"
        if overrun not in _cleaning.OVERRUN_CHOICES:
            raise InputError(f"overrun must be one of {_cleaning.OVERRUN_CHOICES}, got {overrun!r}")
        if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
            raise InputError(f"m must be a positive integer, got {m!r}")
        return cls(resolve(trace), overrun, int(m) if m else None)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def text(self) -> str:
        """How a campaign cell names the trace -- the one trace-to-text
        function: its registry name, or the file's absolute path, each with
        the spec's cleaning choices (``/abs/site.swf?m=512&request=runtime``),
        so that a cell in another process (or on a site cluster's worker)
        cleans it exactly as the driver did, and a change of those choices
        changes the cell's cache key."""
        return text(self.info)

    @property
    def m(self) -> int:
        """The machine size simulated: ``m`` if given, else the spec's
        choice, else the registry's, else the header's, else the log's peak
        concurrent allocation (stated in the cleaning report)."""
        return self.cleaned().m

    def _machine(self) -> tuple[int | str | None, str]:
        options = dict(self.info.options)
        if self.m_given:
            return self.m_given, "given"
        if options.get("m") is not None:
            return options["m"], "the trace spec's m"
        if self.info.registered and self.info.m:
            return self.info.m, "the registry's m"
        return None, "given"        # the header's MaxProcs, else the log's peak (stated by clean)

    def cleaned(self, verify: bool = True) -> Cleaned:
        """The trace read and cleaned with its choices (:class:`Cleaned`),
        from this process's cache, else the disk cache, else computed; with
        the trace's per-job columns (:attr:`TraceInfo.columns`) added to its jobs."""
        if self.info.columns:
            import dataclasses

            plain = dataclasses.replace(self, info=dataclasses.replace(self.info, columns=()))
            c = plain.cleaned(verify)
            return c._replace(jobs=_column_jobs(c, self.info.columns), info=self.info)
        path = self.info.path
        st = path.stat() if path.is_file() else None      # a file rewritten in place is another workload
        key = (path.resolve(), st and (st.st_size, st.st_mtime_ns), self.info.name, self.info.registered,
               self.overrun, self.m_given)
        hit = _CLEANED.get(key)
        if hit is not None and (hit[0] or not verify):
            return hit[1]
        c = _cleaned_on_disk(self, verify)
        _CLEANED[key] = (verify, c)
        while len(_CLEANED) > _CLEANED_MAX:
            _CLEANED.pop(next(iter(_CLEANED)))
        return c


#: The cleaned workloads of this process (key -> (verified, Cleaned)), oldest first.
_CLEANED: dict = {}
_CLEANED_MAX = 8
#: The columns computed in this process ((jobs, source, file stat) -> values), oldest first.
_COLUMNS: dict = {}


def _column_jobs(c: Cleaned, columns: tuple):
    """``c.jobs`` with the columns added, each computed once per process
    (per cleaned jobs and, for a file, per size and modification time)."""
    from . import columns as _columns

    values = {}
    for name, src in columns:
        st = None
        if not _columns.is_function(src):
            try:
                s = os.stat(src)
                st = (s.st_size, s.st_mtime_ns)
            except OSError:
                st = None           # read_column says what is wrong
        key = (id(c.jobs), name, src, st)
        hit = _COLUMNS.get(key)
        if hit is None or hit[0] is not c.jobs:
            hit = (c.jobs, _columns.compute(src, c.jobs, name))
            _COLUMNS[key] = hit
            while len(_COLUMNS) > 4 * _CLEANED_MAX:
                _COLUMNS.pop(next(iter(_COLUMNS)))
        values[name] = hit[1]
    return _columns.with_columns(c.jobs, values)

#: Environment variable: the folder of the on-disk cache of cleaned workloads
#: (default ``results/cache/workloads``; "off" disables it).
WORKLOAD_CACHE_ENV = "SCHEDLAB_WORKLOAD_CACHE"


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """What the cleaning of a trace depends on: this module, the SWF reader,
    the cleaning and the job arrays, by their source."""
    from .. import jobs as _jobs
    from . import swf as _swf
    from . import workload as _cleaning

    h = hashlib.sha256(__version__.encode())
    for mod in (__import__(__name__, fromlist=["x"]), _swf, _cleaning, _jobs):
        h.update(Path(mod.__file__).read_bytes())
    return h.hexdigest()[:16]


def _cache_folder() -> Path | None:
    where = os.environ.get(WORKLOAD_CACHE_ENV, "")
    if where.lower() == "off":
        return None
    return Path(where) if where else paths.RESULTS / "cache" / "workloads"


def _cleaned_on_disk(w: Workload, verify: bool) -> Cleaned:
    """:meth:`Workload.cleaned` through the disk cache: keyed by the file's
    sha256, the choices and the cleaning code; a registered file is
    verified once per (size, mtime) and after that by its stat alone."""
    import pickle

    from . import workload as _cleaning

    info = w.info
    folder = _cache_folder()
    st = info.path.stat() if info.path.is_file() else None
    digest = None
    if folder is not None and st is not None:
        sha = info.sha256 if info.registered else _stat_sha(info.path, st)
        choice = json.dumps([info.name.partition("?")[2], w.overrun, w.m_given, _code_fingerprint()])
        digest = f"{sha[:32]}-{hashlib.sha256(choice.encode()).hexdigest()[:16]}"
        f = folder / f"{digest}.pkl"
        if f.is_file():
            try:
                with open(f, "rb") as fh:
                    stat_seen, c = pickle.load(fh)
            except Exception:           # a torn or foreign file: recompute and replace it
                stat_seen, c = None, None
            if c is not None and (not verify or stat_seen == (st.st_size, st.st_mtime_ns)):
                return c._replace(info=info)
    machine, source = w._machine()
    trace = load(info, verify=verify)
    jobs, report = _cleaning.clean(trace, m=machine, overrun=w.overrun,
                                   request=dict(info.options).get("request", "auto"), m_source=source)
    c = Cleaned(jobs, report, int(report.m), trace, info)
    if digest is not None:


        try:
            with atomic(folder / f"{digest}.pkl") as tmp:
                tmp.write_bytes(pickle.dumps(((st.st_size, st.st_mtime_ns) if verify else None, c), protocol=5))
        except OSError:                 # a read-only checkout: the cache is an optimisation only
            pass
    return c


def _stat_sha(path: Path, st) -> str:
    """An unregistered file's sha256, computed once per (path, size, mtime) in this process."""
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _STAT_SHA:
        _STAT_SHA[key] = sha256_file(path)
    return _STAT_SHA[key]


_STAT_SHA: dict = {}


def text(info: TraceInfo) -> str:
    """The one trace-to-text function (:attr:`Workload.text`): a registered
    trace's name, or the file's absolute path, each with the spec's cleaning
    choices, then its per-job columns (``col.NAME=SOURCE``)."""
    if info.registered:
        base = info.name
    else:
        query = info.name.partition("?")[2]
        path = str(Path(info.path).resolve())
        base = f"{path}?{query}" if query else path
    if not info.columns:
        return base
    return base + ("&" if "?" in base else "?") + "&".join(f"{COLUMN_PREFIX}{n}={src}" for n, src in info.columns)


def keyed_text(trace: str) -> str:
    """:func:`text` as a cell's cache key sees it: each column's source
    replaced by its content's digest (:func:`schedlab.workloads.columns.digest`),
    so that a column file moved keeps the cells' results and a column
    whose values change recomputes them.  A trace without columns is its text."""
    if not isinstance(trace, str) or COLUMN_PREFIX not in trace:
        return trace
    from . import columns as _columns

    _, cols = _column_parts(trace.partition("?")[2], trace)
    if not cols:
        return trace
    stats = []
    for _, src in cols:                 # a file rewritten in place is another column
        try:
            st = None if _columns.is_function(src) else os.stat(src)
        except OSError:
            st = None
        stats.append(st and (st.st_size, st.st_mtime_ns))
    memo = (trace, tuple(stats))
    if memo not in _KEYED:
        info = resolve(trace)
        values = Workload.of(info).cleaned().jobs.columns
        digests = tuple((n, _columns.digest(src, values[n])) for n, src in info.columns)
        import dataclasses

        _KEYED[memo] = text(dataclasses.replace(info, columns=digests))
        while len(_KEYED) > 64:
            _KEYED.pop(next(iter(_KEYED)))
    return _KEYED[memo]


#: keyed_text's answers in this process ((text, the column files' size and mtime) -> keyed text).
_KEYED: dict = {}


def cleaned(name_or_spec, m: int | None = None, overrun: str = "kill", verify: bool = True) -> Cleaned:
    """A trace (spec) read and cleaned with its choices (:class:`Cleaned`):
    :meth:`Workload.cleaned` of ``Workload.of(name_or_spec, overrun=, m=)`` --
    the one place every study and command turns a trace into jobs."""
    return Workload.of(name_or_spec, overrun=overrun, m=m).cleaned(verify=verify)


def verify(name_or_path: TraceInfo | str | os.PathLike) -> None:
    """Raise :class:`ChecksumError` unless a registered trace's file matches
    its registry checksum (unregistered files have nothing to check)."""
    _check(resolve(name_or_path))


def _check(info: TraceInfo) -> None:
    if not info.registered:
        return
    fetched = info.origin == "fetched"
    if not info.path.is_file():
        hint = (f"; it was fetched (see {paths.LOCAL_TRACE_REGISTRY}): run `make data` again"
                if fetched else "")
        raise ChecksumError(f"{info.path}: missing (registered as {info.name}, sha256 {info.sha256}){hint}")
    actual = sha256_file(info.path)
    if actual != info.sha256:
        hint = (f" (as recorded by `schedlab traces fetch` in {paths.LOCAL_TRACE_REGISTRY})"
                if fetched else "")
        raise ChecksumError(f"{info.path}: sha256 mismatch for {info.name}: "
                            f"expected {info.sha256}{hint}, actual {actual}")


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


def verify_all(bundled_only: bool = False) -> list[tuple[str, bool, str]]:
    """Check every registered file, bundled or fetched (only the bundled ones
    with ``bundled_only``): a list of (name, ok, message)."""
    out = []
    for name, info in registry().items():
        if bundled_only and info.origin != "bundled":
            continue
        try:
            _check(info)
        except ChecksumError as exc:
            out.append((name, False, str(exc)))
        else:
            tofu = " (recorded on first use: see data/README.md)" if info.tofu else ""
            out.append((name, True, f"{info.file}: sha256 ok{tofu}"))
    return out


# --------------------------------------------------------------------------
# fetching the logs that are not bundled (`make data`)

_HEX64 = re.compile(r"[0-9a-f]{64}")
_MAGIC = {".gz": b"\x1f\x8b", ".bz2": b"BZh", ".xz": b"\xfd7zXZ\x00"}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Fetchable:
    """A log of ``data/fetch.toml``: where to download it from and, if
    known, the checksum it must have (``sha256`` None: not known yet)."""

    name: str
    file: str
    url: str
    source: str = ""
    sha256: str | None = None
    m: int | None = None
    note: str = ""


def fetchable() -> dict[str, Fetchable]:
    """The logs ``schedlab traces fetch`` can download (``data/fetch.toml``), by name."""
    where = paths.FETCH_REGISTRY
    raw = _load_toml(where)
    if not raw:
        return {}
    bundled = _names_taken(_bundled())
    out: dict[str, Fetchable] = {}
    for name, table in raw.items():
        for key in ("file", "url"):
            if not isinstance(table.get(key), str) or not table[key]:
                raise InputError(f"{where}: [{name}] needs a string {key!r}")
        if "/" in table["file"] or table["file"].startswith("."):
            raise InputError(f"{where}: [{name}] file must be a plain file name, got {table['file']!r}")
        sha = table.get("sha256") or None
        if sha is not None and (not isinstance(sha, str) or not _HEX64.fullmatch(sha.lower())):
            raise InputError(f"{where}: [{name}] sha256 must be 64 hex digits or empty, got {sha!r}")
        clash = sorted(_keys(name, table["file"]) & bundled.keys())
        if clash:
            raise InputError(f"{where}: [{name}] has the name or file of the bundled trace "
                             f"{bundled[clash[0]]}")
        out[name] = Fetchable(name=name, file=table["file"], url=table["url"],
                              source=str(table.get("source", "")), sha256=sha and sha.lower(),
                              m=_int_or_none(table, "m", name, where), note=str(table.get("note", "")))
    return out


def _find_fetchable(name: str) -> Fetchable:
    items = fetchable()
    for fx in items.values():
        if name.lower() in _keys(fx.name, fx.file):
            return fx
    known = ", ".join(items) or "none"
    raise InputError(f"{name!r} is not a fetchable trace of {paths.FETCH_REGISTRY} (those are: {known})")


def _read_local() -> dict[str, dict]:
    return _load_toml(paths.LOCAL_TRACE_REGISTRY,
                      " (written by `schedlab traces fetch`; delete it and fetch again)")


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    # a JSON string is a TOML basic string, once DEL is escaped too
    return json.dumps(str(v), ensure_ascii=False).replace("\x7f", "\\u007f")


def _write_local(tables: dict[str, dict]) -> None:
    where = paths.LOCAL_TRACE_REGISTRY
    lines = ["# Traces fetched on this machine by `schedlab traces fetch` (make data).",
             "# Written by the program and ignored by git; data/traces.toml is the",
             "# committed registry.  checksum = \"first use\": the sha256 was computed from",
             "# the download, not known beforehand -- see data/README.md.", ""]
    for name, table in tables.items():
        key = name if _BARE_KEY.fullmatch(name) else _toml_value(name)
        lines.append(f"[{key}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in table.items() if v is not None and v != ""]
        lines.append("")
    with atomic(where) as tmp:
        tmp.write_text("\n".join(lines), encoding="utf-8")


def _download(url: str, out, timeout: float) -> tuple[str, int]:
    """Copy ``url`` into the open binary file ``out``: (sha256, bytes)."""
    req = urllib.request.Request(url, headers={"User-Agent": f"schedlab/{__version__} (make data)"})
    h, size = hashlib.sha256(), 0
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            length = resp.headers.get("Content-Length") if resp.headers else None
            while block := resp.read(_CHUNK):
                out.write(block)
                h.update(block)
                size += len(block)
    except urllib.error.HTTPError as exc:
        raise FetchError(f"cannot fetch {url}: HTTP {exc.code} {exc.reason}") from exc
    except urllib.error.URLError as exc:
        raise FetchError(f"cannot fetch {url}: {exc.reason}") from exc
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise FetchError(f"cannot fetch {url}: {type(exc).__name__}: {exc}") from exc
    if length is not None and length.isdigit() and int(length) != size:
        raise FetchError(f"cannot fetch {url}: the transfer ended after {size} of {length} bytes")
    return h.hexdigest(), size


def _inspect(path: Path, file: str, url: str) -> tuple[int, int | None, str]:
    """Check that a download is an SWF file: (jobs, MaxProcs, Installation)."""
    magic = _MAGIC.get(Path(file).suffix)
    with open(path, "rb") as fh:
        head = fh.read(6)
    if magic is not None and not head.startswith(magic):
        raise InputError(f"{url}: not a {Path(file).suffix[1:]} file (it starts with {head!r}), "
                         f"so not {file}")
    try:
        header, _ = read_swf_header(path)
        jobs = count_jobs(path)
    except (OSError, EOFError, InputError) as exc:
        raise InputError(f"{url}: not a readable SWF file: {exc}") from exc
    if jobs == 0:
        raise InputError(f"{url}: no job lines: not an SWF log")
    # the first job line must have the 18 SWF fields (an HTML page would not)
    with _open_text_stream(path) as fh:
        for line in fh:
            s = line.strip()
            if s and not s.startswith(b";"):
                if len(s.split()) != N_FIELDS:
                    raise InputError(f"{url}: its first job line has {len(s.split())} fields, "
                                     f"not the {N_FIELDS} of SWF")
                break
    return jobs, header_max_procs(header), header.get("Installation", "")


def fetch(name: str, dest: str | os.PathLike | None = None, url: str | None = None, *,
          timeout: float = 60.0, log: Callable[[str], None] | None = print) -> TraceInfo:
    """Download the log ``name`` of ``data/fetch.toml`` into ``dest``
    (default ``data/traces/``), check it and register it in
    ``data/traces.local.toml``; return its :class:`TraceInfo`.

    The file is written to a temporary file in ``dest`` and renamed only
    once complete and checked, so an interrupted or refused download leaves
    nothing behind.  Its sha256 must be the one ``data/fetch.toml`` records,
    or else the one recorded by an earlier fetch; with neither, the computed
    checksum is recorded (trust on first use) and ``log`` is told to have
    it checked.  A file already present with the expected checksum is not
    downloaded again.  ``url`` replaces the recorded URL (a mirror).
    Raises :class:`FetchError` (network), :class:`ChecksumError` (wrong
    checksum) or :class:`InputError` (not an SWF file, unknown name).
    """
    say = log or (lambda _msg: None)
    fx = _find_fetchable(name)
    folder = Path(dest).expanduser().resolve() if dest is not None else paths.TRACES
    target = folder / fx.file
    url = url or fx.url
    local = _read_local()
    entry = local.get(fx.name, {})
    expected = fx.sha256 or (entry.get("sha256") or "").lower() or None
    origin = "data/fetch.toml" if fx.sha256 else (
        f"{paths.LOCAL_TRACE_REGISTRY.name} (recorded on first use)" if expected else None)

    if target.is_file() and expected is not None:
        if sha256_file(target) == expected:
            same_place = Path(str(entry.get("dir") or paths.TRACES)).expanduser().resolve() == folder.resolve()
            if entry.get("sha256", "").lower() == expected and entry.get("file") == fx.file and same_place:
                say(f"{fx.name}: {target} present, sha256 ok: nothing to do")
                return registry()[fx.name]
            jobs, max_procs, installation = _inspect(target, fx.file, str(target))
            say(f"{fx.name}: {target} present, sha256 ok: registered")
            return _register(fx, folder, url, expected, not fx.sha256, jobs, max_procs, installation, entry)
        say(f"{fx.name}: {target} present but its sha256 is not the expected one: downloading again")
    elif target.is_file():
        say(f"{fx.name}: {target} present but no checksum is known for it: downloading again")

    folder.mkdir(parents=True, exist_ok=True)
    say(f"{fx.name}: downloading {url}")
    with atomic(target, suffix=".part", fsync=True) as tmp:
        with open(tmp, "wb") as out:
            digest, size = _download(url, out, timeout)
        if expected is not None and digest != expected:
            raise ChecksumError(
                f"{target}: sha256 mismatch for {fx.name} downloaded from {url}: expected {expected} "
                f"(from {origin}), got {digest}; the download was removed"
                + ("" if fx.sha256 else f".  If the archive has changed the file, delete the "
                                        f"[{fx.name}] entry of {paths.LOCAL_TRACE_REGISTRY} and fetch again"))
        jobs, max_procs, installation = _inspect(Path(tmp), fx.file, url)
    say(f"{fx.name}: saved {target} ({size:,} bytes, {jobs:,} jobs, MaxProcs {max_procs})")
    # without a checksum in data/fetch.toml, the expected one (if any) was itself first-use
    info = _register(fx, folder, url, digest, not fx.sha256, jobs, max_procs, installation, entry)
    if expected is None:
        say(f"{fx.name}: WARNING: no checksum is recorded for {fx.file}, so the one of this\n"
            f"  download is trusted on first use:\n"
            f"    sha256 {digest}\n"
            f"  It is now recorded in {paths.LOCAL_TRACE_REGISTRY}\n"
            f"  and checked at every later load and fetch.  Please check it against the archive's\n"
            f"  file: as far as we know the archive publishes no checksums, so compare it with a\n"
            f"  copy downloaded independently (`sha256sum {fx.file}` on another machine);\n"
            f"  once confirmed, it belongs in {paths.FETCH_REGISTRY}.")
    else:
        say(f"{fx.name}: sha256 ok (from {origin})")
    return info


def _register(fx: Fetchable, folder: Path, url: str, digest: str, tofu: bool, jobs: int,
              max_procs: int | None, installation: str, old: dict) -> TraceInfo:
    local = _read_local()
    elsewhere = folder.resolve() != paths.TRACES.resolve()
    local[fx.name] = {
        "file": fx.file,
        "dir": str(folder) if elsewhere else None,
        "sha256": digest,
        "checksum": "first use" if tofu else "recorded",
        "jobs": jobs,
        "max_procs": max_procs,
        "m": fx.m,
        "installation": installation,
        "note": fx.note,
        "source": fx.source,
        "url": url,
        "fetched": (old.get("fetched") if old.get("sha256") == digest else None)
        or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    _write_local(local)
    return registry()[fx.name]


# ------------------------------------------------------ trace parameters --

def trace_list(value, name: str = "traces") -> list:
    """The traces of a study as a list of :class:`TraceInfo`:
    the one reader of trace parameters, for every study and part of a study.

    Accepts a list (or tuple) of registry names, paths and ``TraceInfo``, a
    single name or path, a comma-separated string of names, or the text of a
    YAML/JSON list (what ``papermill -p traces ...`` passes).  Raises
    :class:`~schedlab.errors.InputError`, naming the parameter, for an empty
    list, a value that is not a name or path, an unknown trace, or two traces
    with the same name (their outputs would collide).
    """
    if isinstance(value, TraceInfo):
        items = [value]
    elif value is not None and not isinstance(value, (str, os.PathLike, list, tuple)):
        raise InputError(f"{name}: expected a list of trace names or paths, got {type(value).__name__} "
                         f"{value!r}")
    else:
        items = as_list(value, name)
    if not items:
        raise InputError(f"{name}: give at least one trace (a registry name such as 'KTH-SP2' "
                         "or a path to an SWF file)")
    out: list = []
    seen: dict[str, str] = {}
    for i, item in enumerate(items):
        if isinstance(item, TraceInfo):
            info = item
        elif isinstance(item, (str, os.PathLike)) and str(item).strip():
            try:
                info = resolve(item if isinstance(item, os.PathLike) else str(item).strip())
            except InputError as exc:
                raise InputError(f"{name}[{i}]: {exc}") from None
        else:
            raise InputError(f"{name}[{i}]: expected a registry name or a path to an SWF file, "
                             f"got {item!r}")
        key = info.name.lower()
        if key in seen:
            raise InputError(f"{name}: {seen[key]!r} and {str(item)!r} are both named {info.name!r}; "
                             "their outputs would overwrite each other (rename one file)")
        seen[key] = str(item)
        out.append(info)
    return out


def trace_tuple(value, name: str = "traces") -> tuple:
    """:func:`trace_list` as a tuple (the value of a frozen study parameter)."""
    return tuple(trace_list(value, name))
