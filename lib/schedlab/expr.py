"""Policy expressions: your own queue order, compiled into the C core.

Anywhere a queue policy name is accepted, ``"expr:<expression>"`` is too: the
queued jobs are ordered by the expression's value, lowest first, ties as for
every policy (earlier submission, then smaller id; ``tie="newest"`` reverses
them).  For example::

    expr:req                      # SPF: shortest requested time first
    expr:-(wait/req)**3*procs     # WFP's shape, written out
    expr:wait/req + procs/m       # a fair-share-like mix (time-varying)
    expr:col.pred                 # a score from your own model (Jobs(columns=...))

The language (:data:`FEATURES`, :data:`FUNCTIONS`):

* per-job features: ``req`` (requested time p~, s), ``run`` (actual runtime,
  only with ``estimate="actual"``), ``procs`` (q), ``submit`` (r, s), ``wait``
  (now - r, s), ``area`` (p~ * q), ``user`` (the user's number in the log),
  ``id``, ``est`` (the scheduler's estimate at submission) and ``col.NAME``,
  a per-job column you supply;
* ``now`` (the pass's time, s) and ``m`` (the machine's processors);
* numbers, ``+ - * / **``, unary minus, comparisons (1 or 0; chained ones
  are joined with ``and``), ``and``, ``or``, ``not``, ``a if c else b``, and
  the functions ``min``, ``max``, ``abs``, ``log``, ``log2``, ``log10``,
  ``log1p``, ``sqrt``, ``exp``, ``where(cond, a, b)``.

The text is parsed once with Python's :mod:`ast` and checked against that
whitelist; it is **never evaluated as Python**.  Anything else (another
name, an attribute, a call, a subscript, a string, a lambda ...) is refused
with an :class:`~schedlab.errors.InputError` naming the expression and the
column of the offending token.  Length (2,000 characters), nesting (32
levels) and the program's size are bounded.  A constant part that is not a
finite number (``1/0``, ``log(0)``, ``1e999``) is refused when parsing.

The program runs in C (``csrc/expr.c``) with C's double arithmetic; the
rules a key follows at run time are ``csrc/SEMANTICS.md``, "Policy
expressions": ``x ** k`` for a literal integer k in -16..16 is repeated
multiplication (``x*x*x``, so the built-in WFP's doubles), and a key that
comes out NaN (``0/0``, ``log(-1)``) is +infinity: the job goes last.
An expression without ``wait`` and ``now`` is *static*: each job is keyed
once, when it is queued; otherwise the queue is re-ordered at every pass.

This module is pure Python (below the compiled core, like :mod:`schedlab.jobs`).
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError

__all__ = ["Expr", "PREFIX", "FEATURES", "FUNCTIONS", "is_expr", "column_name_error", "BUILTIN_EXPRESSIONS"]

PREFIX = "expr:"
MAX_LENGTH = 2000
MAX_DEPTH = 32
MAX_OPS = 1024          # SL_EXPR_MAXLEN
MAX_STACK = 64          # SL_EXPR_STACK
MAX_CONSTANT = 1e300

#: The operations of ``enum sl_op``, in code order (code = position), each
#: with its arity (values popped; every operation pushes one).  The one
#: table is the core's, ``csrc/exprops.def``; this module stays pure Python
#: (no core needed to parse), so the table is written here as data and the
#: engine checks it against the compiled core's at import
#: (``sl_expr_op_info``, schedlab.engine.sim).
OP_TABLE = (
    ("CONST", 0), ("REQ", 0), ("RUN", 0), ("PROCS", 0), ("SUBMIT", 0), ("WAIT", 0), ("AREA", 0), ("ID", 0),
    ("NOW", 0), ("M", 0), ("COL", 0), ("EST", 0),
    ("ADD", 2), ("SUB", 2), ("MUL", 2), ("DIV", 2), ("POW", 2), ("POWI", 1), ("MIN", 2), ("MAX", 2),
    ("LT", 2), ("LE", 2), ("GT", 2), ("GE", 2), ("EQ", 2), ("NE", 2), ("AND", 2), ("OR", 2),
    ("NEG", 1), ("ABS", 1), ("LOG", 1), ("LOG1P", 1), ("SQRT", 1), ("EXP", 1), ("NOT", 1), ("WHERE", 3),
    ("LOG2", 1), ("LOG10", 1),
)
#: The operation codes of ``enum sl_op``: name -> code.
OPS = {name: code for code, (name, _) in enumerate(OP_TABLE)}
_ARITY = {name: arity for name, arity in OP_TABLE}

#: Names an expression may read, and what each is.
FEATURES = {
    "req": "requested time p~ (s)",
    "run": "actual runtime p (s); only with estimate='actual'",
    "procs": "processors q",
    "submit": "submit time r (s)",
    "wait": "waiting time now - r (s)",
    "area": "p~ * q",
    "user": "the user's number in the log (needs the jobs' users)",
    "id": "job id",
    "est": "the scheduler's runtime estimate at submission (s)",
    "now": "the time of the scheduling pass (s)",
    "m": "processors of the machine",
}
_LOADS = {"req": "REQ", "run": "RUN", "procs": "PROCS", "submit": "SUBMIT", "wait": "WAIT", "area": "AREA",
          "id": "ID", "est": "EST", "now": "NOW", "m": "M"}
#: Functions an expression may call, with their number of arguments.
FUNCTIONS = {"min": (2, None), "max": (2, None), "abs": (1, 1), "log": (1, 1), "log2": (1, 1), "log10": (1, 1),
             "log1p": (1, 1), "sqrt": (1, 1), "exp": (1, 1), "where": (3, 3)}
_UNARY_FN = {"abs": "ABS", "log": "LOG", "log2": "LOG2", "log10": "LOG10", "log1p": "LOG1P", "sqrt": "SQRT",
             "exp": "EXP"}
_BINOPS = {ast.Add: "ADD", ast.Sub: "SUB", ast.Mult: "MUL", ast.Div: "DIV", ast.Pow: "POW"}
_CMPOPS = {ast.Lt: "LT", ast.LtE: "LE", ast.Gt: "GT", ast.GtE: "GE", ast.Eq: "EQ", ast.NotEq: "NE"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def column_name_error(name) -> str | None:
    """Why ``name`` cannot name a per-job column (None: it can): the
    grammar's identifier rule, checked where a column is made
    (``Jobs(columns=...)``, ``--column``) so that ``col.NAME`` always
    parses -- letters, digits and ``_``, not starting with a digit or
    ``__``, at most 64 characters, not a Python keyword (``col.class`` is a
    syntax error)."""
    import keyword

    if not isinstance(name, str) or not _NAME.fullmatch(name) or name.startswith("__"):
        return "letters, digits and _, not starting with a digit or __, at most 64 characters"
    if keyword.iskeyword(name):
        return f"{name!r} is a Python keyword: col.{name} could not be parsed"
    return None

#: The 13 built-in queue policies written as expressions: each gives the same
#: schedule as its built-in twin, bit for bit (tests/test_expr.py,
#: bench/schedule_hashes.py).  ``max(req, 1)`` is the engine's p~' (a job
#: requesting 0 s counts as 1 s in the time-varying orders).
BUILTIN_EXPRESSIONS = {
    "FCFS": "submit", "LCFS": "-submit",
    "SPF": "req", "LPF": "-req",
    "SQF": "procs", "LQF": "-procs",
    "SAF": "area", "LAF": "-area",
    "SRF": "req / procs", "LRF": "-(req / procs)",
    "SEXP": "(wait + max(req, 1)) / max(req, 1)",
    "LEXP": "-((wait + max(req, 1)) / max(req, 1))",
    "WFP": "-((wait / max(req, 1)) ** 3 * procs)",
}


def is_expr(x) -> bool:
    """Is ``x`` a policy expression (an :class:`Expr` or an ``"expr:..."`` string)?"""
    return isinstance(x, Expr) or (isinstance(x, str) and x.strip()[:len(PREFIX)].lower() == PREFIX)


class _Refused(Exception):
    def __init__(self, node, msg: str):
        super().__init__(msg)
        self.col = getattr(node, "col_offset", None)
        self.msg = msg


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 80 else repr(text[:77] + "...")


def _constant(node) -> float:
    v = node.value
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _Refused(node, f"{type(v).__name__} constant {v!r} is not a number")
    if isinstance(v, int) and abs(v) > 2 ** 63:
        raise _Refused(node, "integer constant too large (at most 2^63)")
    f = float(v)
    if not math.isfinite(f) or abs(f) > MAX_CONSTANT:
        raise _Refused(node, f"constant {v!r} is not a finite number of at most {MAX_CONSTANT:g}")
    return f


class _Compiler:
    """Postfix program of a parsed expression: a list of (op, arg), arg a
    float (CONST, POWI) or a column name (COL)."""

    def __init__(self):
        self.prog: list[tuple[str, object]] = []
        self.columns: list[str] = []

    def emit(self, op: str, arg=0.0):
        self.prog.append((op, arg))
        if len(self.prog) > MAX_OPS:
            raise _Refused(None, f"the expression compiles to more than {MAX_OPS} operations")

    def compile(self, node):
        """Emit ``node``'s program (its nesting was checked by _check_depth)."""
        if isinstance(node, ast.Constant):
            self.emit("CONST", _constant(node))
        elif isinstance(node, ast.Name):
            if node.id in _LOADS:
                self.emit(_LOADS[node.id])
            elif node.id == "user":
                self.emit("COL", "user")
            elif node.id in FUNCTIONS:
                raise _Refused(node, f"{node.id} is a function: call it, e.g. {node.id}(...)")
            else:
                raise _Refused(node, f"unknown name {node.id!r}; the features are {', '.join(FEATURES)}, "
                               "and col.NAME for a column of yours")
        elif isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id == "col" and isinstance(node.ctx, ast.Load)):
                raise _Refused(node, "attribute access is refused (only col.NAME, a column of yours)")
            if column_name_error(node.attr):
                raise _Refused(node, f"bad column name {node.attr!r}")
            self.emit("COL", node.attr)
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                if isinstance(node.operand, ast.Constant):
                    self.emit("CONST", -_constant(node.operand))
                else:
                    self.compile(node.operand)
                    self.emit("NEG")
            elif isinstance(node.op, ast.UAdd):
                self.compile(node.operand)
            elif isinstance(node.op, ast.Not):
                self.compile(node.operand)
                self.emit("NOT")
            else:
                raise _Refused(node, "operator ~ is refused")
        elif isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise _Refused(node, f"operator {type(node.op).__name__} is refused (use + - * / **)")
            self.compile(node.left)
            k = node.right
            if op == "POW" and isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub) \
                    and isinstance(k.operand, ast.Constant):
                kval = -_constant(k.operand)
            elif op == "POW" and isinstance(k, ast.Constant):
                kval = _constant(k)
            else:
                kval = None
            if kval is not None and kval == int(kval) and abs(kval) <= 16 \
                    and isinstance(getattr(k, "operand", k).value, int):
                self.emit("POWI", float(kval))
            else:
                self.compile(node.right)
                self.emit(op)
        elif isinstance(node, ast.Compare):
            left = node.left
            for i, (cop, right) in enumerate(zip(node.ops, node.comparators)):
                op = _CMPOPS.get(type(cop))
                if op is None:
                    raise _Refused(node, f"comparison {type(cop).__name__} is refused")
                self.compile(left)
                self.compile(right)
                self.emit(op)
                if i:
                    self.emit("AND")
                left = right
        elif isinstance(node, ast.BoolOp):
            op = "AND" if isinstance(node.op, ast.And) else "OR"
            self.compile(node.values[0])
            for v in node.values[1:]:
                self.compile(v)
                self.emit(op)
        elif isinstance(node, ast.IfExp):
            self.compile(node.test)
            self.compile(node.body)
            self.compile(node.orelse)
            self.emit("WHERE")
        elif isinstance(node, ast.Call):
            f = node.func
            if not isinstance(f, ast.Name) or f.id not in FUNCTIONS:
                what = f.id if isinstance(f, ast.Name) else ast.unparse(f)
                raise _Refused(node, f"unknown function {what!r}; the functions are {', '.join(FUNCTIONS)}")
            if node.keywords:
                raise _Refused(node.keywords[0].value, f"{f.id}() takes no keyword arguments")
            lo, hi = FUNCTIONS[f.id]
            if len(node.args) < lo or (hi is not None and len(node.args) > hi):
                want = f"{lo}" if lo == hi else f"at least {lo}"
                raise _Refused(node, f"{f.id}() takes {want} argument(s), got {len(node.args)}")
            for a in node.args:
                if isinstance(a, ast.Starred):
                    raise _Refused(a, "*arguments are refused")
            if f.id in _UNARY_FN:
                self.compile(node.args[0])
                self.emit(_UNARY_FN[f.id])
            elif f.id == "where":
                for a in node.args:
                    self.compile(a)
                self.emit("WHERE")
            else:
                self.compile(node.args[0])
                for a in node.args[1:]:
                    self.compile(a)
                    self.emit(f.id.upper())
        else:
            raise _Refused(node, f"{type(node).__name__} is refused: an expression holds only numbers, "
                           "features, operators and the listed functions")


def _check_constants(node, text: str):
    """Refuse a part of the expression that reads nothing and is not a
    finite number (1/0, log(0), sqrt(-1), 10.0**400)."""
    for sub in ast.walk(node):
        if not isinstance(sub, (ast.BinOp, ast.UnaryOp, ast.Call, ast.Compare, ast.BoolOp, ast.IfExp)):
            continue
        c = _Compiler()
        try:
            c.compile(sub)
        except _Refused:
            continue
        if any(_ARITY[op] == 0 and op != "CONST" for op, _ in c.prog):
            continue                    # reads a feature: not a constant part
        v = _run(c.prog, {}, 0, 0)
        if not math.isfinite(v):
            raise _Refused(sub, f"the constant part {ast.get_source_segment(text, sub) or ast.unparse(sub)!r} "
                           f"is {v!r}, not a finite number")


@dataclass(frozen=True)
class Expr:
    """A policy expression, parsed and compiled on creation (see the module).

    ``Expr("wait / req")`` or the string ``"expr:wait / req"`` wherever a
    policy is accepted.  ``program`` is the postfix program (op, arg);
    ``columns`` the per-job columns it reads (``user`` included);
    ``dynamic`` whether it reads ``wait`` or ``now``."""

    text: str
    program: tuple = field(init=False, repr=False, compare=False)
    columns: tuple = field(init=False, repr=False, compare=False)
    dynamic: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        text = self.text
        if not isinstance(text, str):
            raise InputError(f"a policy expression is a string, got {type(text).__name__}")
        if text.strip()[:len(PREFIX)].lower() == PREFIX:
            text = text.strip()[len(PREFIX):]
        text = text.strip()
        object.__setattr__(self, "text", text)
        if not text:
            raise InputError("empty policy expression: write e.g. 'expr:req' (shortest requested time first)")
        if len(text) > MAX_LENGTH:
            raise InputError(f"policy expression {_shown(text)} is {len(text)} characters long "
                             f"(at most {MAX_LENGTH})")
        if "\n" in text or "\r" in text or "\x00" in text:
            raise InputError(f"policy expression {_shown(text)}: one line, without control characters")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as e:
            # Python puts an error at the end of the text at offset 0 (or on a
            # line 2): columns count from 1, the end is len + 1
            col = e.offset if e.offset and e.lineno == 1 else len(text) + 1
            col = min(col, len(text) + 1)
            raise InputError(f"policy expression {_shown(text)}, column {col}: syntax error "
                             f"({e.msg})") from None
        except (RecursionError, MemoryError, ValueError) as e:
            raise InputError(f"policy expression {_shown(text)}: cannot be parsed ({type(e).__name__}: too "
                             "deep or too large)") from None
        c = _Compiler()
        try:
            _check_depth(tree.body)
            c.compile(tree.body)
            _check_constants(tree.body, text)
        except _Refused as e:
            where = f", column {e.col + 1}" if e.col is not None else ""
            raise InputError(f"policy expression {_shown(text)}{where}: {e.msg}") from None
        depth = peak = 0
        for op, _ in c.prog:
            depth += 1 - _ARITY[op]
            peak = max(peak, depth)
        if peak > MAX_STACK:
            raise InputError(f"policy expression {_shown(text)}: needs a stack deeper than {MAX_STACK}")
        cols = tuple(dict.fromkeys(a for op, a in c.prog if op == "COL"))
        object.__setattr__(self, "program", tuple(c.prog))
        object.__setattr__(self, "columns", cols)
        object.__setattr__(self, "dynamic", any(op in ("WAIT", "NOW") for op, _ in c.prog))

    @property
    def reads_run(self) -> bool:
        return any(op == "RUN" for op, _ in self.program)

    def arrays(self, columns: tuple[str, ...]):
        """(op codes int32, args float64) with each column as its index in ``columns``."""
        ops = np.array([OPS[op] for op, _ in self.program], dtype=np.int32)
        args = np.array([float(columns.index(a)) if op == "COL" else float(a) for op, a in self.program],
                        dtype=np.float64)
        return ops, args

    def key(self, job: dict, now: int, m: int) -> float:
        """The key of one job at time ``now`` on ``m`` processors, computed
        in Python with C's semantics (csrc/SEMANTICS.md, "Policy
        expressions"): the reference the engine is tested against, and what
        ``schedlab check`` replays.  ``job``: ``req``, ``procs``, ``submit``,
        ``id`` (integers), ``run``, ``est`` when read, and each column read
        (``user`` included) as a float."""
        return _reference_key(self.program, job, now, m)

    def __str__(self):
        return PREFIX + self.text


def _check_depth(node):
    """Refuse nesting deeper than MAX_DEPTH before compiling (iteratively)."""
    stack = [(node, 0)]
    while stack:
        n, d = stack.pop()
        if d > MAX_DEPTH:
            raise _Refused(n, f"nested more than {MAX_DEPTH} levels deep")
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(n))


# ------------------------------------------------- the Python reference --
# An evaluator of the postfix program written apart from csrc/expr.c, on
# Python floats and libm (the math module), with IEEE results where Python
# raises: the engine's keys are tested against it (tests/test_expr.py), and
# schedlab check replays with it.  It is deliberately a second
# implementation of the table's operations (csrc/exprops.def, exprops.h):
# a test oracle written apart, not generated from the table.

def _div(a: float, b: float) -> float:
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _pow(a: float, b: float) -> float:
    try:
        return math.pow(a, b)
    except OverflowError:
        odd = b == int(b) and int(b) % 2 == 1 if math.isfinite(b) else False
        return -math.inf if (a < 0 and odd) else math.inf
    except ValueError:
        if a == 0.0 and b < 0:
            odd = b == int(b) and int(b) % 2 == 1
            return math.copysign(math.inf, a) if odd else math.inf
        return math.nan


def _log(x: float) -> float:
    if math.isnan(x) or x < 0:
        return math.nan
    return -math.inf if x == 0 else math.log(x)


def _log_base(fn):
    def f(x: float) -> float:
        if math.isnan(x) or x < 0:
            return math.nan
        return -math.inf if x == 0 else fn(x)
    return f


def _log1p(x: float) -> float:
    if math.isnan(x) or x < -1:
        return math.nan
    return -math.inf if x == -1 else math.log1p(x)


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _powi(x: float, k: int) -> float:
    if k == 0:
        return 1.0
    acc = x
    for _ in range(abs(k) - 1):
        acc = acc * x
    return _div(1.0, acc) if k < 0 else acc


def _minmax(a: float, b: float, smaller: bool) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if smaller:
        return a if a < b else b
    return a if a > b else b


_REF_BINARY = {
    "ADD": lambda a, b: a + b if not (math.isinf(a) and math.isinf(b) and a != b) else math.nan,
    "SUB": lambda a, b: a - b if not (math.isinf(a) and math.isinf(b) and a == b) else math.nan,
    "MUL": lambda a, b: a * b,
    "DIV": _div, "POW": _pow,
    "MIN": lambda a, b: _minmax(a, b, True), "MAX": lambda a, b: _minmax(a, b, False),
    "LT": lambda a, b: float(a < b), "LE": lambda a, b: float(a <= b), "GT": lambda a, b: float(a > b),
    "GE": lambda a, b: float(a >= b), "EQ": lambda a, b: float(a == b), "NE": lambda a, b: float(a != b),
    "AND": lambda a, b: float(a != 0.0 and b != 0.0), "OR": lambda a, b: float(a != 0.0 or b != 0.0),
}
_REF_UNARY = {"NEG": lambda x: -x, "ABS": abs, "LOG": _log, "LOG2": _log_base(math.log2),
              "LOG10": _log_base(math.log10), "LOG1P": _log1p,
              "SQRT": lambda x: math.nan if math.isnan(x) or x < 0 else math.sqrt(x), "EXP": _exp,
              "NOT": lambda x: float(x == 0.0)}


def _reference_key(program, job: dict, now: int, m: int) -> float:
    k = _run(program, job, now, m)
    return math.inf if math.isnan(k) else k


def _run(program, job: dict, now: int, m: int) -> float:
    """The program's value, NaN kept (the constant check reads it)."""
    st: list[float] = []
    for op, arg in program:
        if op == "CONST":
            st.append(float(arg))
        elif op == "WAIT":
            st.append(float(int(now) - int(job["submit"])))
        elif op == "AREA":
            st.append(float(job["req"]) * float(job["procs"]))
        elif op == "NOW":
            st.append(float(now))
        elif op == "M":
            st.append(float(m))
        elif op == "COL":
            st.append(float(job[arg]))
        elif op in ("REQ", "RUN", "PROCS", "SUBMIT", "ID", "EST"):
            st.append(float(job[op.lower()]))
        elif op == "POWI":
            st.append(_powi(st.pop(), int(arg)))
        elif op in _REF_UNARY:
            st.append(_REF_UNARY[op](st.pop()))
        elif op == "WHERE":
            e, t, c = st.pop(), st.pop(), st.pop()
            st.append(t if c != 0.0 else e)
        else:
            b, a = st.pop(), st.pop()
            st.append(_REF_BINARY[op](a, b))
    return st[-1]
