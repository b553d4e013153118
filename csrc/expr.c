/*
 * expr.c -- policy expressions: a user's priority, compiled by Python
 * (schedlab.expr) into a postfix program that the core runs per key.
 *
 * The program is checked once (sl_expr_check: known operations, a stack
 * that never underflows nor grows past SL_EXPR_STACK, exactly one value
 * left, columns that exist), then evaluated with no allocation and no
 * Python.  The contract (csrc/SEMANTICS.md, "Policy expressions"): every
 * operation is the IEEE double operation of C (libm's log, log2, log10,
 * log1p, sqrt, exp, pow), x ** k for a constant integer k in -16..16 is repeated
 * multiplication left to right, and a key that comes out NaN is +infinity
 * (the job goes after every job with a number key; the tie rule orders
 * such jobs among themselves).  So a key is always a double that compares,
 * and the queue's order stays a strict total order.
 *
 * Each operation is defined once, in the table exprops.def (its shape,
 * kinetic rule and roundings) and its value function in exprops.h: the
 * checker's arity, the evaluator, the kinetic classifier and the kinetic
 * model below are expanded from them, and the built-in keys of
 * policies.c are composed of the same value functions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exprops.h"

/* ------------------------------------------------------------ the table --
 * Tied to enum sl_op (schedlab.h, written out there because cffi's cdef
 * reads no #include): each line's code is its enum constant and its
 * position in the table, so the codes are 0 .. SL_NOPS - 1 with no gap and
 * an array indexed by code covers them all. */
#define OP(NAME, name, code, shape, kin, rounds) SL_OPIDX_##NAME,
enum {
#include "exprops.def"
    SL_OPS_IN_TABLE
};
#undef OP
#define OP(NAME, name, code, shape, kin, rounds)                                                               \
    _Static_assert(SL_OP_##NAME == (code) && SL_OPIDX_##NAME == (code),                                         \
                   "exprops.def: " #NAME " is not enum sl_op's code, or not in the code's place");
#include "exprops.def"
#undef OP
_Static_assert((int)SL_OPS_IN_TABLE == (int)SL_NOPS, "exprops.def: one line for each operation of enum sl_op");
_Static_assert(SL_EXPR_STACK <= 64, "the kinetic model keeps one bit per stack slot in a uint64_t");

enum { ARITY_LOAD = 0, ARITY_UNARY = 1, ARITY_UNARG = 1, ARITY_BINARY = 2, ARITY_TERNARY = 3 };
enum { KIN_STATIC, KIN_WAIT, KIN_NOW, KIN_LINEAR, KIN_PROD, KIN_QUOT, KIN_POWI, KIN_NONE };

/* a load's rule says whether it varies in time; an operation's, how it
 * treats an operand that does */
#define OP(NAME, name, code, shape, kin, rounds)                                                               \
    _Static_assert((ARITY_##shape == 0) == (KIN_##kin <= KIN_NOW),                                             \
                   "exprops.def: " #NAME ": a load's rule is STATIC, WAIT or NOW, and only a load's");
#include "exprops.def"
#undef OP

#define OP(NAME, name, code, shape, kin, rounds) [SL_OP_##NAME] = ARITY_##shape,
static const int8_t op_arity[SL_NOPS] = {
#include "exprops.def"
};
#undef OP
#define OP(NAME, name, code, shape, kin, rounds) [SL_OP_##NAME] = KIN_##kin,
static const int8_t op_kin[SL_NOPS] = {
#include "exprops.def"
};
#undef OP
#define OP(NAME, name, code, shape, kin, rounds) [SL_OP_##NAME] = #NAME,
static const char *const op_name[SL_NOPS] = {
#include "exprops.def"
};
#undef OP

/* Roundings of operation op on a time-varying value (S1 below); k: the
 * integer of a power. */
static int64_t op_rounds(int32_t op, int k)
{
    int64_t r = 0;
    switch (op) {
#define OP(NAME, name, code, shape, kin, rounds) case SL_OP_##NAME: r = (rounds); break;
#include "exprops.def"
#undef OP
    default: break;
    }
    (void)k;
    return r > 0 ? r : 0;
}

/* How many values an operation pops (loads: 0; each pushes one), -1 for
 * an unknown code. */
static inline int arity(int32_t op)
{
    return op >= 0 && op < SL_NOPS ? op_arity[op] : -1;
}

int sl_expr_op_info(int32_t code, const char **name, int32_t *nargs)
{
    if (code < 0 || code >= SL_NOPS)
        return SL_EINVAL;
    *name = op_name[code];
    *nargs = op_arity[code];
    return SL_OK;
}

int sl_expr_check(const sl_expr *e, int32_t ncols, char *err, size_t errlen, const char *which)
{
    if (e == NULL || e->op == NULL || e->arg == NULL || e->len < 1 || e->len > SL_EXPR_MAXLEN) {
        snprintf(err, errlen, "%s policy: an expression needs 1..%d operations", which, (int)SL_EXPR_MAXLEN);
        return SL_EINVAL;
    }
    int depth = 0;
    for (int32_t i = 0; i < e->len; i++) {
        const int32_t op = e->op[i];
        const int a = arity(op);
        if (a < 0) {
            snprintf(err, errlen, "%s policy: expression operation %d: unknown code %d", which, (int)i, (int)op);
            return SL_EINVAL;
        }
        if (depth < a) {
            snprintf(err, errlen, "%s policy: expression operation %d: stack underflow", which, (int)i);
            return SL_EINVAL;
        }
        if (op == SL_OP_CONST && !isfinite(e->arg[i])) {
            snprintf(err, errlen, "%s policy: expression constant %d is not finite", which, (int)i);
            return SL_EINVAL;
        }
        if (op == SL_OP_COL && (!(e->arg[i] >= 0.0) || e->arg[i] != floor(e->arg[i]) ||
                                (ncols >= 0 && e->arg[i] >= (double)ncols))) {
            snprintf(err, errlen, "%s policy: expression operation %d: no column %g (the jobs have %d)", which,
                     (int)i, e->arg[i], (int)(ncols > 0 ? ncols : 0));
            return SL_EINVAL;
        }
        if (op == SL_OP_POWI && (!(fabs(e->arg[i]) <= 16.0) || e->arg[i] != floor(e->arg[i]))) {
            snprintf(err, errlen, "%s policy: expression operation %d: integer power %g outside -16..16", which,
                     (int)i, e->arg[i]);
            return SL_EINVAL;
        }
        depth += 1 - a;
        if (depth > SL_EXPR_STACK) {
            snprintf(err, errlen, "%s policy: expression needs a stack deeper than %d", which, (int)SL_EXPR_STACK);
            return SL_EINVAL;
        }
    }
    if (depth != 1) {
        snprintf(err, errlen, "%s policy: expression leaves %d values, not 1", which, depth);
        return SL_EINVAL;
    }
    return SL_OK;
}

int sl_expr_uses(const sl_expr *e, int32_t op)
{
    for (int32_t i = 0; i < e->len; i++)
        if (e->op[i] == op)
            return 1;
    return 0;
}

int sl_expr_dynamic(const sl_expr *e)
{
    return sl_expr_uses(e, SL_OP_WAIT) || sl_expr_uses(e, SL_OP_NOW);
}

int sl_expr_same(const sl_expr *a, const sl_expr *b)
{
    if (a == b)
        return 1;
    if (a == NULL || b == NULL || a->len != b->len)
        return 0;
    for (int32_t i = 0; i < a->len; i++)
        if (a->op[i] != b->op[i] || memcmp(&a->arg[i], &b->arg[i], sizeof(double)) != 0)
            return 0;
    return 1;
}

/* -------------------------------------------- the evaluator and the model --
 *
 * One interpreter, expanded from the table, serves both (so the model's
 * value is the key by construction): RUN_EVAL computes the value only;
 * RUN_MODEL also the magnitude A of S2 (below) and RUN_SLOPES the slopes
 * of the value and of A.  In a model, the slots of time-varying values
 * (bit i of tv: slot i) carry their magnitude m, their u_r of S2 (u) and
 * their slopes (dv, dm); a static slot is a constant of the job: its
 * magnitude is |value|, its u 1, its slopes 0, read where a time-varying
 * operation needs them.  Each operation's kinetic rule (its kin in the
 * table) is the macro M_<kin> below; an operation with no rule (NONE) meets
 * only static operands in a model (sl_expr_kinetic). */

#define KIN_FLOOR 0x1p-1000
#define KIN_CEILING 0x1p1000

enum { RUN_EVAL, RUN_MODEL, RUN_SLOPES };

#define BIT(i) ((uint64_t)1 << (i))
#define TV(i) ((tv >> (i)) & 1)
/* The magnitude, u, slope and magnitude's slope of slot i, static or not. */
#define MAG(i, x) (TV(i) ? m[i] : fabs(x))
#define UN(i) (TV(i) ? u[i] : 1.0)
#define DV(i) (TV(i) ? dv[i] : 0.0)
#define DM(i) (TV(i) ? dm[i] : 0.0)
/* the result of a time-varying operation goes to slot x (x + 1 freed) */
#define TIMED(x) (tv = (tv | BIT(x)) & ~BIT((x) + 1))

/* loads */
#define M_STATIC_LOAD(x) ((void)0)
#define M_WAIT_LOAD(x) M_TIME_LOAD(x, kclass == 2 ? x : 1.0)
#define M_NOW_LOAD(x) M_TIME_LOAD(x, 1.0)
#define M_TIME_LOAD(x, ux)                                                                                      \
    do {                                                                                                        \
        tv |= BIT(sp);                                                                                          \
        m[sp] = fabs(x);                                                                                        \
        u[sp] = (ux);                                                                                           \
        if (mode == RUN_SLOPES)                                                                                 \
            dv[sp] = dm[sp] = 1.0;                                                                              \
    } while (0)

/* unary, on slot x: a negation keeps the magnitude; its slope is negated */
#define M_LINEAR_1(name, x)                                                                                     \
    do {                                                                                                        \
        if (mode == RUN_SLOPES && TV(x))                                                                        \
            dv[x] = sl_op_##name(dv[x]);                                                                        \
    } while (0)
#define M_NONE_1(name, x) SL_CHECK(!TV(x))
/* x ** k, k >= 1 on a time-varying value (sl_expr_kinetic): k - 1
 * products, each with its floor; with slopes, k a^(k-1) and k |a|^(k-1)
 * times the operand's (a^(k-1) as sl_op_powi multiplies it: left to right,
 * in the same loop) */
#define M_POWI_1(name, x)                                                                                       \
    do {                                                                                                        \
        if (TV(x)) {                                                                                            \
            const int k = (int)arg;                                                                             \
            const double ma = m[x], ua = u[x];                                                                  \
            double mr = ma, ur = ua, pa = 1.0, pm = 1.0;                                                        \
            if (k > 1) {                                                                                        \
                pa = a;                                                                                         \
                pm = ma;                                                                                        \
                ur = ur * ua;                                                                                   \
                mr = mr * ma + KIN_FLOOR * ur;                                                                  \
                for (int r = 2; r < k; r++) {                                                                   \
                    pa = pa * a;                                                                                \
                    pm = pm * ma;                                                                               \
                    ur = ur * ua;                                                                               \
                    mr = mr * ma + KIN_FLOOR * ur;                                                              \
                }                                                                                               \
            }                                                                                                   \
            m[x] = mr;                                                                                          \
            u[x] = ur;                                                                                          \
            msum += mr;                                                                                         \
            if (mode == RUN_SLOPES) {                                                                           \
                dv[x] = (double)k * pa * dv[x];                                                                 \
                dm[x] = (double)k * pm * dm[x];                                                                 \
            }                                                                                                   \
            (void)pa;                                                                                           \
            (void)pm;                                                                                           \
        }                                                                                                       \
    } while (0)

/* binary, a in slot x, b in x + 1, the result r to slot x */
#define M_NONE_2(name, x) SL_CHECK(!TV(x) && !TV((x) + 1))
/* A rule for each way the operands vary (ta, tb: constants, so that each
 * way is straight-line code); none: a static result, nothing to do. */
#define BY_OPERANDS(rule, name, x)                                                                              \
    do {                                                                                                        \
        switch ((tv >> (x)) & 3) {                                                                              \
        case 1: rule(name, x, 1, 0); break;                                                                     \
        case 2: rule(name, x, 0, 1); break;                                                                     \
        case 3: rule(name, x, 1, 1); break;                                                                     \
        default: break;                                                                                         \
        }                                                                                                       \
    } while (0)
#define MAG_(ti, i, x) ((ti) ? m[i] : fabs(x))
#define UN_(ti, i) ((ti) ? u[i] : 1.0)
#define DV_(ti, i) ((ti) ? dv[i] : 0.0)
#define DM_(ti, i) ((ti) ? dm[i] : 0.0)
#define M_LINEAR_2(name, x) BY_OPERANDS(LINEAR_RULE, name, x)
#define LINEAR_RULE(name, x, ta, tb)                                                                            \
    do {                                                                                                        \
        const double mr = MAG_(ta, x, a) + MAG_(tb, (x) + 1, b);                                                \
        u[x] = (ta) ? u[x] : u[(x) + 1];                                                                        \
        if (mode == RUN_SLOPES) {                                                                               \
            dv[x] = sl_op_##name(DV_(ta, x), DV_(tb, (x) + 1));                                                 \
            dm[x] = DM_(ta, x) + DM_(tb, (x) + 1);                                                              \
        }                                                                                                       \
        m[x] = mr;                                                                                              \
        msum += mr;                                                                                             \
        TIMED(x);                                                                                               \
    } while (0)
#define M_PROD_2(name, x) BY_OPERANDS(PROD_RULE, name, x)
#define PROD_RULE(name, x, ta, tb)                                                                              \
    do {                                                                                                        \
        const double ma = MAG_(ta, x, a), mb = MAG_(tb, (x) + 1, b), ur = UN_(ta, x) * UN_(tb, (x) + 1);        \
        const double mr = ma * mb + KIN_FLOOR * ur;                                                             \
        if (mode == RUN_SLOPES) {                                                                               \
            const double da = DV_(ta, x), db = DV_(tb, (x) + 1), dma = DM_(ta, x), dmb = DM_(tb, (x) + 1);      \
            dv[x] = da * b + a * db;                                                                            \
            dm[x] = dma * mb + ma * dmb;                                                                        \
        }                                                                                                       \
        m[x] = mr;                                                                                              \
        u[x] = ur;                                                                                              \
        msum += mr;                                                                                             \
        TIMED(x);                                                                                               \
    } while (0)
/* by a static divisor (sl_expr_kinetic): a is time-varying */
#define M_QUOT_2(name, x)                                                                                       \
    do {                                                                                                        \
        if (TV(x)) {                                                                                            \
            SL_CHECK(!TV((x) + 1));                                                                             \
            const double mb = fabs(b), mr = m[x] / mb + KIN_FLOOR * u[x];                                       \
            if (mode == RUN_SLOPES) {                                                                           \
                dv[x] = dv[x] / b;                                                                              \
                dm[x] = dm[x] / mb;                                                                             \
            }                                                                                                   \
            m[x] = mr;                                                                                          \
            msum += mr;                                                                                         \
        }                                                                                                       \
    } while (0)

/* The shapes: how an operation takes its operands and leaves its value. */
#define S_LOAD(name, kin)                                                                                       \
    do {                                                                                                        \
        const double x = sl_op_##name(s, j, t, arg);                                                            \
        v[sp] = x;                                                                                              \
        if (mode != RUN_EVAL)                                                                                   \
            M_##kin##_LOAD(x);                                                                                  \
        sp++;                                                                                                   \
    } while (0)
#define S_UNARY(name, kin)                                                                                      \
    do {                                                                                                        \
        const double a = v[sp - 1];                                                                             \
        v[sp - 1] = sl_op_##name(a);                                                                            \
        (void)a;                                                                                                \
        if (mode != RUN_EVAL)                                                                                   \
            M_##kin##_1(name, sp - 1);                                                                          \
    } while (0)
#define S_UNARG(name, kin)                                                                                      \
    do {                                                                                                        \
        const double a = v[sp - 1];                                                                             \
        v[sp - 1] = sl_op_##name(a, arg);                                                                       \
        if (mode != RUN_EVAL)                                                                                   \
            M_##kin##_1(name, sp - 1);                                                                          \
    } while (0)
#define S_BINARY(name, kin)                                                                                     \
    do {                                                                                                        \
        sp--;                                                                                                   \
        const double a = v[sp - 1], b = v[sp];                                                                  \
        v[sp - 1] = sl_op_##name(a, b);                                                                         \
        if (mode != RUN_EVAL)                                                                                   \
            M_##kin##_2(name, sp - 1);                                                                          \
    } while (0)
#define S_TERNARY(name, kin)                                                                                    \
    do {                                                                                                        \
        sp -= 2;                                                                                                \
        v[sp - 1] = sl_op_##name(v[sp - 1], v[sp], v[sp + 1]);                                                  \
        SL_CHECK(mode == RUN_EVAL || !((tv >> (sp - 1)) & 7));                                                  \
    } while (0)

/* The program e run for job j at t (mode: what it computes, a constant
 * where inlined).  Returns the value (NaN kept); a model also sets *A
 * (infinite past the ceiling of S5) and, with slopes, *dV and *dA. */
static inline __attribute__((always_inline)) double run(const sl_sim *s, const sl_expr *e, int32_t j, int64_t t,
                                                        const int mode, int32_t kclass, double *A, double *dV,
                                                        double *dA)
{
    double v[SL_EXPR_STACK];
    double m[SL_EXPR_STACK], u[SL_EXPR_STACK], dv[SL_EXPR_STACK], dm[SL_EXPR_STACK];
    uint64_t tv = 0;                  /* bit i: slot i is time-varying */
    v[0] = 0.0;                       /* (len >= 1: always set; for the compiler) */
    double msum = 0.0;                /* the time-varying magnitudes' sum: the ceiling of S5 */
    ptrdiff_t sp = 0;
    const int32_t len = e->len;
    const int32_t *op = e->op;
    const double *args = e->arg;
    (void)kclass;
    /* The program passed sl_expr_check: every operation finds its operands
     * and leaves the stack within SL_EXPR_STACK, one value at the end. */
    SL_CHECK(len >= 1 && len <= SL_EXPR_MAXLEN);
    for (ptrdiff_t i = 0; i < len; i++) {
#define arg (args[i])
        SL_CHECK(sp >= arity(op[i]) && sp - arity(op[i]) + 1 <= SL_EXPR_STACK);
        switch (op[i]) {
#define OP(NAME, name, code, shape, kin, rounds) case SL_OP_##NAME: S_##shape(name, kin); break;
#include "exprops.def"
#undef OP
        default: SL_ASSERT(!"an expression operation that sl_expr_check refuses");
        }
#undef arg
    }
    SL_CHECK(sp == 1);
    if (mode != RUN_EVAL) {
        *A = msum <= KIN_CEILING ? MAG(0, v[0]) : INFINITY;     /* each below it (NaN: not) */
        if (mode == RUN_SLOPES) {
            *dV = DV(0);
            *dA = DM(0);
        }
    }
    return v[0];
}

double sl_expr_eval(const sl_sim *s, const sl_expr *e, int32_t j, int64_t t)
{
    const double k = run(s, e, j, t, RUN_EVAL, 0, NULL, NULL, NULL);
    return isnan(k) ? INFINITY : k;
}

/* ------------------------------------ expressions with a kinetic model --
 *
 * A time-varying expression keeps a long queue in a kinetic order (the
 * list or the tournament, policies.c and tour.c) when its real value is,
 * job by job, (1) affine in the time (wait and now enter only through +,
 * -, unary -, a product with a static factor, a quotient by a static
 * divisor, ** 1), or (2) a monomial c w^d in wait, d >= 1 (products,
 * quotients by a static divisor, integer powers >= 1, and sums of
 * monomials of one degree).  A static subexpression (one that loads
 * neither wait nor now) is a constant of the job: the double it computes,
 * exact by definition.  The certificates rest on five steps, each checked
 * here or in policies.c (kin_cert):
 *
 * S1 (roundings).  Every operation on a time-varying value is +, -, x or /
 *    by a constant, or x ** k (k - 1 products, left to right); each rounds
 *    once, and each load of wait or now is one rounded conversion.  Their
 *    number K (sl_expr_kinetic counts it from the table's rounds: a load or
 *    + - x / 1, ** k k - 1, unary - 0) is at most SL_KIN_ROUNDINGS = 1024,
 *    else the expression has no kinetic model and is re-sorted at every
 *    pass: gamma_K = K u / (1 - K u) < 2^-42.99 (u = 2^-53).
 * S2 (magnitude).  The model runs the program on magnitudes beside the
 *    values (the same run, run() above): a constant of the job by its absolute value, wait by w,
 *    now by |t|, - and unary - as +, and to every product and quotient
 *    (each step of a power) a floor F u_r added, F = 2^-1000, where u_r is
 *    1 in class (1) and w^d_r in class (2) (d_r: the degree of that value
 *    as a monomial in w).  Call A(t) that program's real value.
 * S3 (error).  An operation's rounding error is at most u |result| plus,
 *    for a product or a quotient only, an underflow error eta <= 2^-1075
 *    (sums of doubles are exact when their result is subnormal).  By
 *    induction over the program, |key - V| <= gamma_K A_0 + E, where V is
 *    the real value, A_0 the magnitude without floors and E the underflow
 *    errors carried forward; E is carried forward by the same products
 *    and sums as the floors in A, and each eta is below 2^-70 F u_r when
 *    w >= 1 (when w = 0 in class (2) every time-varying value is exactly
 *    +-0 and carries no error), so E <= 2^-69 (A - A_0) and |key - V| <=
 *    2^-42.9 A.  With no floor (the review of issue 53), a key
 *    wait / req * 1e-320 was subnormal, A underflowed with it and the
 *    margin below was 0 while the error was not.
 * S4 (margin).  The certificates test G(t): key_b - key_a - 2^-40
 *    (A_a + A_b) > 0 in doubles.  A as computed is within 2^-40 of A
 *    (relative; 2K + 66 roundings, no underflow past the floors), and G's
 *    three roundings cost at most 2^-51 (A_a + A_b); so G(t) implies the
 *    real condition C(t): V_b - V_a > 2^-41 (A_a + A_b), which implies
 *    key_a < key_b by S3 (2 x 2^-42.9 < 2^-41).
 * S5 (interval).  C holds on the whole interval between two times where
 *    it holds: in class (1) V is affine and A convex in t (sums of |affine|
 *    with positive weights and constant floors), so C is concave; in class
 *    (2) V = c w^d and A = alpha w^d (the floors scale with w^d_r), so C
 *    compares (c_b - 2^-41 alpha_b) w_b^d with (c_a + 2^-41 alpha_a) w_a^d,
 *    whose d-th roots are linear in t when the signs agree and which is
 *    monotone when they do not.  Overflow: a magnitude of a time-varying
 *    value above 2^1000 makes A infinite (G false); magnitudes are convex
 *    (1) or nondecreasing (2) in t, so one within bounds at both ends of
 *    the interval is within bounds (far from overflow) inside it.
 *
 * A certificate is the largest time found with G true, plus one (kin_cert);
 * G is tested at both ends of the interval it covers. */

/* Kinetic class of e: 0 none, 1 affine, 2 monomial of degree *deg (each
 * operation by its kinetic rule in exprops.def). */
int sl_expr_kinetic(const sl_expr *e, int32_t *deg)
{
    /* per stack slot: time-varying or not, and its degree as a monomial
     * in wait (-1: not one) */
    int8_t dyn[SL_EXPR_STACK];
    int32_t md[SL_EXPR_STACK];
    int affine = 1, mono = 1, sp = 0;
    int64_t rounds = 0;               /* K of S1 */
    for (int32_t i = 0; i < e->len; i++) {
        const int32_t op = e->op[i];
        const int a = arity(op), kin = a >= 0 ? op_kin[op] : KIN_NONE;
        const int k = kin == KIN_POWI ? (int)e->arg[i] : 0;      /* a power's integer (-16..16) */
        if (a == 0) {
            dyn[sp] = kin == KIN_WAIT || kin == KIN_NOW;
            md[sp] = kin == KIN_WAIT ? 1 : kin == KIN_NOW ? -1 : 0;
            rounds += op_rounds(op, k);
            sp++;
            continue;
        }
        const int x = sp - a;         /* the result's slot */
        const int da = dyn[x], db = a >= 2 ? dyn[x + 1] : 0, dc = a == 3 ? dyn[x + 2] : 0;
        sp = x + 1;
        if (!da && !db && !dc) {      /* static: a constant of the job */
            dyn[x] = 0;
            md[x] = 0;
            continue;
        }
        const int32_t ma = md[x], mb = a >= 2 ? md[x + 1] : 0;
        dyn[x] = 1;
        rounds += op_rounds(op, k);
        switch (kin) {
        case KIN_LINEAR:              /* a monomial if both terms are, of one degree */
            if (a == 2)
                md[x] = da && db && ma == mb ? ma : -1;
            break;
        case KIN_PROD:
            if (da && db)
                affine = 0;
            md[x] = ma < 0 || mb < 0 ? -1 : ma + mb;
            break;
        case KIN_QUOT:
            if (db)
                affine = mono = 0;
            break;
        case KIN_POWI:
            if (k < 1)
                affine = mono = 0;
            if (k > 1)
                affine = 0;
            md[x] = ma < 0 ? -1 : ma * k;
            break;
        default:                      /* KIN_NONE: no rule on time */
            affine = mono = 0;
            break;
        }
        if (md[x] > 64)
            md[x] = -1;
        if ((!affine && !mono) || rounds > SL_KIN_ROUNDINGS)
            return 0;
    }
    if (affine)
        return 1;
    if (mono && dyn[0] && md[0] >= 1) {
        *deg = md[0];
        return 2;
    }
    return 0;
}

/* The kinetic model of job j's key at t (e of class kclass, 1 or 2): *V
 * the key as sl_expr_eval computes it (the same run; NaN not mapped), *A
 * the magnitude of S2 (infinite past the ceiling of S5), and their slopes
 * in t, *dV and *dA (forward derivatives in doubles, floors left out:
 * estimates, used only to guess a crossing; not computed when dV is NULL). */
void sl_expr_model(const sl_sim *s, const sl_expr *e, int32_t kclass, int32_t j, int64_t t, double *V, double *A,
                   double *dV, double *dA)
{
    SL_ASSERT(kclass == 1 || kclass == 2);      /* a model exists only for these (S1) */
    if (dV != NULL)
        *V = run(s, e, j, t, RUN_SLOPES, kclass, A, dV, dA);
    else
        *V = run(s, e, j, t, RUN_MODEL, kclass, A, NULL, NULL);
}
