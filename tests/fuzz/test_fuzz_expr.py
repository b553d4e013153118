"""Fuzz target: the policy-expression compiler (issue 53, item 7).

Each example draws an expression from the grammar (every name, function and
operator the compiler knows, constants across the whole double range,
subnormals included) and, most of the time, mutates its text: a token
replaced, inserted or deleted from a list of troublemakers (Python that is
not in the whitelist -- calls, attributes, lambdas, subscripts, strings --,
1e999, ** 17, deep nesting, NUL, non-ASCII ...).  Then:

* the compiler (:class:`schedlab.expr.Expr`) accepts the text or refuses it
  with one clean line (a SchedlabError naming the expression, no newline,
  bounded length): never another exception;
* an accepted expression runs in the core on a small workload with a
  column, and the re-sort, the kinetic list, the forced tournament and the
  default give the same schedule (the certificates hold for whatever the
  compiler lets through), or the engine refuses it with a SchedlabError
  (e.g. the actual runtime without estimate="actual").

Budget: ``SCHEDLAB_FUZZ_EXAMPLES`` (``make fuzz``, ``make test-fuzz``),
else 150 (``make test``: a few seconds).
"""
from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fuzz_inputs import Tally, WrongResult, budget
from schedlab.engine._core import lib
from schedlab.engine.sim import Jobs, Policy, simulate
from schedlab.errors import SchedlabError
from schedlab.expr import Expr

TALLY = Tally("expr")
_tally = TALLY.fixture()

NAMES = ["wait", "now", "req", "procs", "submit", "area", "id", "m", "est", "run", "col.x", "max(req, 1)"]
CONSTS = ["0", "1", "3", "0.5", "1e-320", "5e-324", "2.2250738585072014e-308", "1e-300", "1e300", "1e20",
          "9007199254740993", "1e16"]
NASTY = ["__import__('os')", "lambda x: x", "open('f')", "x.y", "col.", "col.zz", "[1]", "{}", "'s'", "b''",
         "1e999", "1e400", "** 17", "** -17", "** 2.5", "** wait", "(" * 40, ")" * 3, "\x00", "\u00e9", "\ufeff",
         ";", "@", "if", "1 if 2 else 3", "yield", "await", "not", "and", "or", "==", "<", ",", "0x10", "1_0",
         "nan", "inf", "-", "*", "/", "//", "%", "", " ", "\n", "wait" * 3, "max(1)", "where(1, 2)", "log()",
         "exp(1000)", "1/0", "log(0)", "sqrt(-1)", "10**400", "9" * 400]


def _const():
    return st.one_of(st.sampled_from(CONSTS),
                     st.floats(min_value=5e-324, max_value=1e300).map(repr),
                     st.tuples(st.integers(1, 9), st.integers(-323, 300)).map(lambda x: f"{x[0]}e{x[1]}"))


EXPR = st.recursive(
    st.one_of(st.sampled_from(NAMES), _const()),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=", "and", "or"]),
                  inner).map(lambda x: f"({x[0]} {x[1]} {x[2]})"),
        st.tuples(inner, st.integers(-16, 16)).map(lambda x: f"({x[0]}) ** {x[1]}"),
        st.tuples(inner, inner).map(lambda x: f"({x[0]}) ** ({x[1]})"),
        st.tuples(st.sampled_from(["abs", "log", "log1p", "sqrt", "exp", "-", "not "]), inner).map(
            lambda x: f"{x[0]}({x[1]})"),
        st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(lambda x: f"{x[0]}({x[1]}, {x[2]})"),
        st.tuples(inner, inner, inner).map(lambda x: f"where({x[0]}, {x[1]}, {x[2]})")),
    max_leaves=8)

mutation = st.tuples(st.sampled_from(["insert", "replace", "delete"]), st.floats(0, 1), st.sampled_from(NASTY))


def mutate(text: str, mutations) -> str:
    for kind, where, token in mutations:
        i = int(where * len(text))
        if kind == "insert":
            text = text[:i] + token + text[i:]
        elif kind == "replace":
            text = text[:i] + token + text[i + len(token):]
        else:
            text = text[:i] + text[i + max(1, len(token)):]
    return text


def _jobs():
    rng = np.random.default_rng(53)
    n = 12
    run = rng.integers(1, 8, n)
    return Jobs(np.sort(rng.integers(0, 6, n)), run, run + rng.integers(0, 3, n), rng.integers(1, 5, n),
                columns={"x": rng.choice([0.0, 1.5, -2.0, 1e-310], n)})


JOBS = _jobs()


def _schedule(e, tour: int, kinetic: int):
    old_t, old_k = lib.sl_debug_tour(tour), lib.sl_debug_kinetic(kinetic)
    try:
        s = simulate(JOBS, 6, Policy(e, e, None))
    finally:
        lib.sl_debug_tour(old_t)
        lib.sl_debug_kinetic(old_k)
    return [s.start.tolist(), s.end.tolist(), s.flags.tolist()]


def clean(exc: BaseException) -> str:
    if not isinstance(exc, SchedlabError):
        raise exc
    text = str(exc)
    if "\n" in text or len(text) > 2000:
        raise WrongResult(f"error not one bounded line: {text[:300]!r}")
    return "clean error"


def check(text: str) -> str:
    try:
        e = Expr(text)
    except Exception as exc:   # noqa: BLE001 -- classified by clean()
        out = clean(exc)
        if "expression" not in str(exc):
            raise WrongResult(f"refusal does not say it is the expression: {exc}")
        return out
    try:
        resort = _schedule(e, 0, 0)
    except Exception as exc:   # noqa: BLE001
        return clean(exc)
    for tour, kinetic, what in ((0, 2, "kinetic list"), (2, 1, "forced tournament"), (1, 1, "default")):
        if _schedule(e, tour, kinetic) != resort:
            raise WrongResult(f"{what} differs from the re-sort for {text!r}")
    return "accepted"


@budget(150)
@given(text=EXPR, mutations=st.one_of(st.just([]), st.just([]), st.lists(mutation, min_size=1, max_size=3)))
def test_fuzz_expression_compiler(text, mutations):
    TALLY.run(check, mutate(text, mutations))
