"""Reading and writing the Standard Workload Format (SWF).

SWF is the format of the Parallel Workloads Archive
(https://www.cs.huji.ac.il/labs/parallel/workload/swf.html): comment lines
start with ``;`` and the header ones carry ``Key: value`` pairs (e.g.
``; MaxProcs: 128``); every other non-blank line is one job, 18
whitespace-separated numbers in the order of :data:`FIELDS`, ``-1`` meaning
"missing".

:func:`read_swf` parses a whole file into one numpy array per field.  The
common case goes through numpy's C text reader in one call.  Should that
fail, or should the input hold any byte outside digits, signs, '.', 'e',
blanks and newlines, the file is parsed again in pieces of ~0.5 MB, and a
piece that the C reader does not take is parsed by a plain line-by-line scan.
That scan is the authority on what is valid: it raises
:class:`~schedlab.errors.SWFFormatError` naming the file, the 1-based line
number and the field of the first bad value.  (The tests check that the fast
path never accepts what the scan rejects, and reads the same values.)

Accepted numbers: ``[+-]digits[.digits][e[+-]digits]`` (also ``.5``, ``5.``).
Integer fields take any such number whose *exact decimal value* is an
integer in [-(2**63 - 1), 2**63 - 1] (``12.0`` and ``1.5e1`` are 12 and 15;
``12.5`` and ``1.0000000000000001`` are errors, however close to an
integer; ``-9223372036854775808`` is out of range): an integer is never
read through a float, so it is never rounded.  ``avg_cpu`` and ``used_mem``
may be any finite number (some archive logs carry e.g. ``142.00`` there),
read as the nearest double.  Which path reads a line (fast or line by
line) never changes what is accepted or the values read: the result of a
line never depends on the other lines of the file.

Errors are :class:`~schedlab.errors.SWFFormatError` (file, line, field) for
a bad line and :class:`~schedlab.errors.InputError` (file) for a file that
cannot be decompressed; a bad token is quoted in the message up to
40 bytes, with its length when it is longer.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

import numpy as np

from ..files import write_bytes
from ..errors import InputError, SWFFormatError

__all__ = [
    "FIELDS", "FLOAT_FIELDS", "INT_FIELDS", "N_FIELDS", "SWFTrace",
    "read_swf", "read_swf_header", "write_swf", "parse_header", "header_max_procs",
    "count_jobs",
]

#: The 18 SWF fields, in file order.
FIELDS: tuple[str, ...] = (
    "job_id", "submit", "wait", "run", "alloc_procs", "avg_cpu", "used_mem",
    "req_procs", "req_time", "req_mem", "status", "user", "group", "app",
    "queue", "partition", "preceding_job", "think_time",
)
N_FIELDS = len(FIELDS)
#: Fields stored as float64 (every other one is int64).
FLOAT_FIELDS: frozenset[str] = frozenset({"avg_cpu", "used_mem"})
INT_FIELDS: tuple[str, ...] = tuple(f for f in FIELDS if f not in FLOAT_FIELDS)

_FLOAT_COLS = tuple(i for i, f in enumerate(FIELDS) if f in FLOAT_FIELDS)
_ROW_DTYPE = np.dtype([(f, np.float64 if f in FLOAT_FIELDS else np.int64) for f in FIELDS])

# Bytes the fast path lets numpy see; anything else sends the file to the
# line-by-line scan (so numpy's own notions of whitespace, 'nan', 'inf', ...
# never decide what is valid).
_FAST_ALPHABET = b"0123456789+-.eE \t\n"
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")
# The parts of a _NUMBER token: sign, whole digits, fraction digits, exponent.
_NUMBER_PARTS = re.compile(rb"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?")
# Tokens the float pass of the fast path cannot be trusted with: a mantissa
# of 16 or more digits (a double keeps 15 exactly: '1.0000000000000001'
# would become 1) or a 3-digit exponent (1e-400 underflows to 0).
_FLOAT_PASS_DOUBT = re.compile(rb"(?:\d\.?){16}|[eE][+-]?\d{3}")
#: Longest part of a bad token quoted in an error message (bytes).
SHOWN_TOKEN = 40
# A header pair, matched on a comment's text (the line without ';' and one
# blank): the key must start the text, so indented continuation lines (and
# 'http://...') stay raw comments.
_HEADER_PAIR = re.compile(r"([A-Za-z][A-Za-z0-9_]*)[ \t]*:(?!//)(.*)")
_LEADING_INT = re.compile(r"\s*([+-]?\d+)")
_I64_MAX = 2**63 - 1
_I64_MIN = -(2**63)  # valid in an int64 array but out of the range SWF integers take
_MAGIC = ((b"\x1f\x8b", "gz"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "xz"))


# --------------------------------------------------------------------------
# the trace object

@dataclass(eq=False)
class SWFTrace:
    """The content of one SWF file.

    ``header`` maps each header key to its value (whitespace-stripped, in
    file order; a key that occurs on several lines, like ``Note`` or
    ``Queue``, maps to its values joined by newlines).  ``header_lines``
    holds every comment line of the file, without the leading ``;`` and one
    following blank, so that ``write_swf(..., header_lines=t.header_lines)``
    reproduces them.  ``fields`` maps each name of :data:`FIELDS` to an
    array (int64, float64 for :data:`FLOAT_FIELDS`); ``lines[i]`` is the
    1-based line number of job ``i`` in the file.
    """

    path: Path
    header: dict[str, str]
    header_lines: list[str]
    fields: dict[str, np.ndarray]
    lines: np.ndarray = field(repr=False)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.fields[name]

    def __len__(self) -> int:
        return self.n

    def __repr__(self) -> str:
        return f"SWFTrace(path={str(self.path)!r}, n={self.n}, max_procs={self.max_procs})"

    @property
    def n(self) -> int:
        """Number of jobs."""
        return int(self.lines.shape[0])

    def header_int(self, key: str) -> int | None:
        """Leading integer of header value ``key`` ('338 (batch ...)' -> 338), else None."""
        return _leading_int(self.header.get(key))

    @property
    def max_procs(self) -> int | None:
        """Header ``MaxProcs`` (else ``MaxNodes``) as a positive int, else None."""
        return header_max_procs(self.header)

    @property
    def max_nodes(self) -> int | None:
        v = self.header_int("MaxNodes")
        return v if v is not None and v > 0 else None

    @property
    def unix_start_time(self) -> int | None:
        return self.header_int("UnixStartTime")

    @property
    def time_zone_string(self) -> str | None:
        v = self.header.get("TimeZoneString")
        return v.split("\n", 1)[0] if v else None


def header_max_procs(header: Mapping[str, str]) -> int | None:
    """Leading integer of ``MaxProcs``, else of ``MaxNodes``, if positive; else None."""
    for key in ("MaxProcs", "MaxNodes"):
        v = _leading_int(header.get(key))
        if v is not None and v > 0:
            return v
    return None


def _leading_int(value: str | None) -> int | None:
    if value is None:
        return None
    m = _LEADING_INT.match(value)
    return int(m.group(1)) if m else None


# --------------------------------------------------------------------------
# reading

def _compression(head: bytes) -> str | None:
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return None


#: A compressed log may expand to at most this many times its size (the
#: bundled logs expand 4 to 11 times) or :data:`EXPANDED_FLOOR` bytes,
#: whichever is more; beyond it the reading stops (a compression bomb: 1 MB
#: of gzip can expand to 1 GiB).
EXPANDED_RATIO = 64
EXPANDED_FLOOR = 64 << 20


class _Capped(io.RawIOBase):
    """A decompressing stream that refuses, in one line, to expand past its cap."""

    def __init__(self, inner, path: Path, compressed: int):
        self._inner, self._path, self._compressed = inner, path, compressed
        self._cap = max(EXPANDED_RATIO * compressed, EXPANDED_FLOOR)
        self._seen = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._inner.readinto(buffer)
        self._seen += n
        if self._seen > self._cap:
            raise InputError(f"{self._path}: expands to more than {self._cap} bytes from {self._compressed} "
                             f"compressed (at most {EXPANDED_RATIO} times, or {EXPANDED_FLOOR >> 20} MiB): "
                             f"refused as a likely compression bomb")
        return n

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()


def _read_bytes(path: Path) -> bytes:
    with open(path, "rb") as fh:
        head = fh.read(6)
    kind = _compression(head)
    if kind is None and path.suffix in (".gz", ".bz2", ".xz") and head:
        raise InputError(f"{path}: suffix {path.suffix} but not a {path.suffix[1:]} file")
    if kind is None:
        return path.read_bytes()
    try:
        with _open_text_stream(path) as fh:
            return b"".join(iter(lambda: fh.read(1 << 20), b""))
    except InputError:
        raise
    except _DECOMPRESS_ERRORS as exc:
        if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile) and exc.errno is not None:
            raise   # a real I/O error, not a corrupt stream
        raise InputError(f"{path}: cannot decompress ({kind}): {exc}") from exc


# What the decompressors raise on a truncated or corrupt stream (bz2 raises a
# bare ValueError, gzip an OSError or EOFError, lzma its own error).
_DECOMPRESS_ERRORS = (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error)


def _open_text_stream(path: Path):
    """A binary stream of the decompressed content, which refuses to expand
    past :data:`EXPANDED_RATIO` times the compressed size (the one way the
    library reads a compressed log)."""
    with open(path, "rb") as fh:
        head = fh.read(6)
        compressed = os.fstat(fh.fileno()).st_size
    opener = {"gz": gzip.open, "bz2": bz2.open, "xz": lzma.open}.get(_compression(head))
    if opener is None:
        return open(path, "rb")
    return io.BufferedReader(_Capped(opener(path, "rb"), path, compressed), 1 << 16)


def _comment_text(line: bytes) -> str:
    """The text of a comment line: without the ';' and one following blank."""
    s = line.lstrip()[1:].rstrip(b"\r\n")
    if s[:1] == b" ":
        s = s[1:]
    return s.decode("utf-8", errors="surrogateescape")


def parse_header(comment_lines: Iterable[str]) -> dict[str, str]:
    """``Key: value`` pairs of comment texts (as in ``SWFTrace.header_lines``)."""
    header: dict[str, str] = {}
    for text in comment_lines:
        m = _HEADER_PAIR.fullmatch(text.rstrip("\r\n"))
        if m is None:
            continue
        key, value = m.group(1), m.group(2).strip()
        header[key] = header[key] + "\n" + value if key in header else value
    return header


def read_swf_header(path: str | os.PathLike) -> tuple[dict[str, str], list[str]]:
    """Only the leading comment block of an SWF file: (header, header_lines).

    Reads no further than the first job line, so it is cheap on big files.
    """
    path = Path(path)
    texts: list[str] = []
    with _open_text_stream(path) as fh:
        try:
            for line in _lines(fh):
                s = line.strip()
                if not s:
                    continue
                if not s.startswith(b";"):
                    break
                texts.append(_comment_text(line))
        except InputError:
            raise
        except _DECOMPRESS_ERRORS as exc:
            if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile) and exc.errno is not None:
                raise   # a real I/O error, not a corrupt stream
            raise InputError(f"{path}: cannot decompress: {exc}") from exc
    return parse_header(texts), texts


def _lines(fh):
    """The lines of a binary stream, ending at '\\n', '\\r\\n' or '\\r' (as
    :func:`read_swf` reads them), each with its line end."""
    tail = b""
    while block := fh.read(1 << 16):
        data = tail + block
        if data.endswith(b"\r"):       # a '\r\n' may straddle two blocks
            data, tail = data[:-1], b"\r"
        else:
            tail = b""
        parts = re.split(rb"(\r\n|\r|\n)", data)
        for i in range(0, len(parts) - 2, 2):
            yield parts[i] + b"\n"
        tail = parts[-1] + tail
    if tail:
        yield tail


def count_jobs(path: str | os.PathLike) -> int:
    """The number of job lines of an SWF file -- ``read_swf(path).n`` --
    counted on the decompressed stream without parsing or keeping the jobs
    (for files too big to read just to count them).  Non-blank lines that
    are not comments count, whatever their content; ``\\r`` ends a line as
    ``\\n`` does.  Raises :class:`InputError` if the file cannot be
    decompressed (a truncated ``.gz``, say)."""
    path = Path(path)
    n, tail = 0, b""
    try:
        with _open_text_stream(path) as fh:
            while block := fh.read(1 << 22):
                rows = re.split(rb"[\r\n]", tail + block)
                tail = rows.pop()
                n += sum(1 for r in rows if (s := r.strip()) and not s.startswith(b";"))
    except InputError:
        raise
    except _DECOMPRESS_ERRORS as exc:
        if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile) and exc.errno is not None:
            raise   # a real I/O error, not a corrupt stream
        raise InputError(f"{path}: cannot decompress: {exc}") from exc
    s = tail.strip()
    return n + (1 if s and not s.startswith(b";") else 0)


def _split_comments(data: bytes) -> tuple[list[str], bytes, int, np.ndarray | None]:
    """Separate the comment lines from the jobs.

    Returns (comment texts, body, first_line, line_numbers): ``body`` is the
    rest of the file after the leading comment block, with any later comment
    line blanked out (so it stays line-aligned with the file from line
    ``first_line`` on).  line_numbers is None unless comments had to be
    blanked out; see :func:`_job_lines`.
    """
    texts: list[str] = []
    pos, lineno, n = 0, 1, len(data)
    while pos < n:  # the leading block of comment (and blank) lines
        end = data.find(b"\n", pos)
        end = n if end < 0 else end + 1
        s = data[pos:end].strip()
        if s and not s.startswith(b";"):
            break
        if s:
            texts.append(_comment_text(data[pos:end]))
        pos, lineno = end, lineno + 1
    body = data[pos:]
    if b";" not in body:
        return texts, body, lineno, None
    # Rare: comment lines among the jobs; blank them out, keep the count.
    rows = body.split(b"\n")
    for i, row in enumerate(rows):
        if row.lstrip().startswith(b";"):
            texts.append(_comment_text(row))
            rows[i] = b""
    body = b"\n".join(rows)
    return texts, body, lineno, _job_lines(body, lineno)


def _job_lines(body: bytes, first_line: int) -> np.ndarray:
    """File line numbers of the non-blank lines of body."""
    return np.asarray([first_line + i for i, row in enumerate(body.split(b"\n"))
                       if row.strip()], dtype=np.int64)


def _n_lines(body: bytes) -> int:
    return body.count(b"\n") + (0 if not body or body.endswith(b"\n") else 1)


def _fast_parse(body: bytes, float_pass: bool = True) -> np.ndarray | None:
    """numpy's C reader on a body of job lines; None whenever in doubt.

    Only bytes of :data:`_FAST_ALPHABET` reach numpy; on those, its integer
    and float readers accept exactly the tokens of ``_INTEGER`` and
    ``_NUMBER`` (checked exhaustively for short tokens by the tests).  A
    first pass reads integer fields as int64; should that fail (e.g.
    ``12.0`` or ``1e3`` in an integer field) a second one reads everything
    as float64 and keeps the result if every integer field is integral and
    exactly representable.
    """
    if body.translate(None, _FAST_ALPHABET):
        return None
    if not body.strip():
        return np.zeros(0, dtype=_ROW_DTYPE)
    for dtype in (_ROW_DTYPE, np.float64) if float_pass else (_ROW_DTYPE,):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                rows = np.loadtxt(io.BytesIO(body), dtype=dtype, comments=None,
                                  ndmin=2 if dtype is np.float64 else 1, encoding="latin1")
        except (ValueError, Warning, OverflowError):
            continue
        if dtype is np.float64:
            if rows.shape[1] != N_FIELDS or not np.isfinite(rows).all():
                return None
            ints = rows[:, [i for i in range(N_FIELDS) if i not in _FLOAT_COLS]]
            # Exact only for integers below 2**53 written with at most 15
            # significant digits and small exponents (DBL_DIG): else the
            # exact parse decides, whatever the other lines hold.
            if (ints != np.floor(ints)).any() or (np.abs(ints) >= 2.0**53).any() \
                    or _FLOAT_PASS_DOUBT.search(body):
                return None
            out = np.zeros(rows.shape[0], dtype=_ROW_DTYPE)
            for i, name in enumerate(FIELDS):
                out[name] = rows[:, i]
            return out
        if all(np.isfinite(rows[name]).all() for name in FLOAT_FIELDS) \
                and not any((rows[name] == _I64_MIN).any() for name in INT_FIELDS):
            return rows
        return None
    return None


def _chunks(body: bytes, first_line: int, size: int):
    """(first line number, piece) pieces of about ``size`` bytes, cut at line ends."""
    pos, line, n = 0, first_line, len(body)
    while pos < n:
        end = body.find(b"\n", min(pos + size, n))
        end = n if end < 0 else end + 1
        piece = body[pos:end]
        yield line, piece
        line += piece.count(b"\n")
        pos = end


def _parse_body(path, body: bytes, first_line: int,
                numbers: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Rows and line numbers of the job lines in body (which holds no comments)."""
    rows = _fast_parse(body, float_pass=False)
    if rows is None:
        # Something unusual: parse piece by piece so that only the piece
        # holding it goes through the (slow) line-by-line scan.
        parts, nums = [], []
        for line, piece in _chunks(body, first_line, 1 << 19):
            r = _fast_parse(piece)
            if r is None:
                r, ln = _slow_parse(path, piece, line)
            else:
                ln = _job_numbers(piece, line, r.shape[0])
            parts.append(r)
            nums.append(ln)
        rows = np.concatenate(parts) if parts else np.zeros(0, dtype=_ROW_DTYPE)
        numbers = np.concatenate(nums) if nums else np.zeros(0, dtype=np.int64)
    elif numbers is None:
        numbers = _job_numbers(body, first_line, rows.shape[0])
    if numbers.shape[0] != rows.shape[0]:  # cannot happen
        raise AssertionError("SWF reader: job count and line count differ")
    return rows, numbers


def _job_numbers(body: bytes, first_line: int, n_rows: int) -> np.ndarray:
    if n_rows == _n_lines(body):  # no blank lines: the jobs are contiguous
        return np.arange(first_line, first_line + n_rows, dtype=np.int64)
    return _job_lines(body, first_line)


def shown_token(tok: bytes) -> str:
    """A token as error messages quote it: at most :data:`SHOWN_TOKEN` bytes,
    with its length when it is longer (a 2 MB token is not copied whole)."""
    text = repr(tok[:SHOWN_TOKEN].decode("utf-8", errors="replace"))
    return text if len(tok) <= SHOWN_TOKEN else f"{text[:-1]}...{text[-1]} ({len(tok)} bytes)"


def _integer_value(tok: bytes) -> tuple[str, int]:
    """The exact value of a number token (one matching ``_NUMBER``) as an
    integer field takes it: ("ok", value), ("fraction", 0) when its decimal
    value is not an integer, ("range", 0) when it is beyond +-(2**63 - 1).
    Exact decimal arithmetic on the digits (never a float), and never more
    than 19 digits converted, whatever the token's length or exponent."""
    sign, whole, frac, exp = _NUMBER_PARTS.fullmatch(tok).groups()
    frac = frac or b""
    digits = (whole + frac).lstrip(b"0")
    if not digits:
        return "ok", 0
    e = (exp or b"0").lstrip(b"+-").lstrip(b"0") or b"0"
    shift = 10**18 if len(e) > 18 else int(e)            # 10**18: beyond any token length
    shift = -shift if exp and exp[:1] == b"-" else shift
    k = shift - len(frac)                                 # value = int(digits) * 10**k
    if k < 0:
        if -k >= len(digits) or digits[len(digits) + k:].strip(b"0"):
            return "fraction", 0                          # a nonzero digit after the point
        digits, k = digits[:len(digits) + k], 0
    if len(digits) + k > 19:
        return "range", 0
    v = int(digits) * 10**k
    if v > _I64_MAX:
        return "range", 0
    return "ok", -v if sign == b"-" else v


def _parse_token(tok: bytes, name: str, path, lineno: int) -> int | float:
    if _NUMBER.fullmatch(tok) is None:
        raise SWFFormatError(path, lineno, name, f"not a number: {shown_token(tok)}")
    if name in FLOAT_FIELDS:
        v = float(tok)
        if not np.isfinite(v):
            raise SWFFormatError(path, lineno, name, f"number out of range: {shown_token(tok)}")
        return v
    kind, v = _integer_value(tok)
    if kind == "fraction":
        raise SWFFormatError(path, lineno, name,
                             f"not an integer: {shown_token(tok)} (field {name} is integral)")
    if kind == "range":
        raise SWFFormatError(path, lineno, name, f"integer out of range: {shown_token(tok)} "
                             f"(field {name} takes -(2**63 - 1) to 2**63 - 1)")
    return v


def _slow_parse(path, body: bytes, first_line: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Line-by-line parse of job lines (``first_line`` being the file line
    number of body's first line): the reference for what is valid.  Raises
    on the first bad line; returns (rows, line numbers)."""
    numbers: list[int] = []
    cols: list[list] = [[] for _ in FIELDS]
    for lineno, line in enumerate(body.split(b"\n"), start=first_line):
        toks = line.split()
        if not toks:
            continue
        if len(toks) != N_FIELDS:
            if len(toks) < N_FIELDS:
                missing = FIELDS[len(toks)]
                raise SWFFormatError(path, lineno, missing,
                                     f"{len(toks)} fields, expected {N_FIELDS} "
                                     f"(first missing: {missing})")
            raise SWFFormatError(path, lineno, None,
                                 f"{len(toks)} fields, expected {N_FIELDS}")
        for j, (name, tok) in enumerate(zip(FIELDS, toks)):
            cols[j].append(_parse_token(tok, name, path, lineno))
        numbers.append(lineno)
    rows = np.zeros(len(numbers), dtype=_ROW_DTYPE)
    for name, col in zip(FIELDS, cols):
        rows[name] = col
    return rows, np.asarray(numbers, dtype=np.int64)


def read_swf(path: str | os.PathLike) -> SWFTrace:
    """Read an SWF file (plain, ``.gz``, ``.bz2`` or ``.xz``, told apart by
    their magic bytes) into an :class:`SWFTrace`.

    Raises :class:`~schedlab.errors.SWFFormatError` on the first bad line.
    """
    path = Path(path)
    data = _read_bytes(path)
    if b"\r" in data:  # CRLF (or CR) line ends: normalise once.
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    texts, body, first_line, numbers = _split_comments(data)
    rows, numbers = _parse_body(path, body, first_line, numbers)
    fields = {name: np.ascontiguousarray(rows[name]) for name in FIELDS}
    return SWFTrace(path=path, header=parse_header(texts), header_lines=texts,
                    fields=fields, lines=numbers)


# --------------------------------------------------------------------------
# writing

def _format_float(v: float) -> str:
    if v != v:  # NaN: missing
        return "-1"
    if v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v)  # shortest text that reads back as the same double


def _int_column(name: str, values: np.ndarray) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (np.abs(arr) > 2.0**63 - 1024)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"write_swf: field {name} must be integral; job {i} has {arr[i]!r}")
    elif arr.dtype.kind not in "iub":
        raise InputError(f"write_swf: field {name} has non-numeric dtype {arr.dtype}")
    return arr.astype(np.int64)


def _column(name: str, values) -> tuple[str, list]:
    """(printf conversion with width, Python values) of one column."""
    if name in FLOAT_FIELDS:
        arr = np.asarray(values, dtype=np.float64)
        if np.isinf(arr).any():
            raise InputError(f"write_swf: field {name} holds an infinite value")
        arr = np.where(np.isnan(arr), -1.0, arr)
        if not (arr == np.floor(arr)).all() or (np.abs(arr) >= 1e16).any():
            strs = [_format_float(v) for v in arr.tolist()]
            return f"%{max(map(len, strs), default=1)}s", strs
        ints = arr.astype(np.int64)
    else:
        ints = _int_column(name, values)
    if ints.size == 0:
        return "%d", []
    width = max(len(str(int(ints.max()))), len(str(int(ints.min()))))
    return f"%{width}d", ints.tolist()


def _render(fields: Mapping[str, Iterable], header_lines: Iterable[str] | None) -> bytes:
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise InputError(f"write_swf: unknown SWF fields {sorted(unknown)}")
    arrays = {k: np.asarray(v) for k, v in fields.items()}
    for k, a in arrays.items():
        if a.ndim != 1:
            raise InputError(f"write_swf: field {k} must be one-dimensional")
    lengths = {a.shape[0] for a in arrays.values()}
    if len(lengths) > 1:
        raise InputError(f"write_swf: fields of different lengths {sorted(lengths)}")
    n = lengths.pop() if lengths else 0
    convs, columns = [], []
    for name in FIELDS:
        conv, col = _column(name, arrays[name]) if name in arrays else ("%2d", [-1] * n)
        convs.append(conv)
        columns.append(col)
    row_format = " ".join(convs) + "\n"
    out = []
    for line in header_lines or ():
        # A line end inside a header line starts a new comment line (a bare
        # '\r' too, as the reader splits there: else the rest would be read as a job).
        for part in re.split("\r\n|\r|\n", str(line)):
            out.append(";" + (" " + part if part else "") + "\n")
    out.extend([row_format % row for row in zip(*columns)])
    return "".join(out).encode("utf-8", errors="surrogateescape")


def write_swf(path: str | os.PathLike, fields: Mapping[str, Iterable],
              header_lines: list[str] | None = None) -> Path:
    """Write jobs as an SWF file, atomically; returns the path.

    ``fields`` maps names of :data:`FIELDS` to equal-length arrays; absent
    fields are written as -1 (as are NaN float values).  ``header_lines``
    are written first, each as a ``; `` comment line (a line holding line
    ends -- ``\n``, ``\r\n`` or ``\r`` -- as several).  A ``.gz``, ``.bz2``
    or ``.xz`` suffix compresses the file (deterministically: no timestamp).
    """
    path = Path(path)
    data = _render(fields, header_lines)
    suffix = path.suffix.lower()
    if suffix == ".gz":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    elif suffix == ".bz2":
        data = bz2.compress(data, compresslevel=9)
    elif suffix == ".xz":
        data = lzma.compress(data)
    return write_bytes(path, data)        # atomically; an OSError names the file
