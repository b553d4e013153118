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
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* How many values an operation pops and pushes (loads: 0 -> 1). */
static int arity(int32_t op)
{
    if (op >= SL_OP_CONST && op <= SL_OP_EST)
        return 0;
    if (op == SL_OP_POWI)
        return 1;
    if (op >= SL_OP_ADD && op <= SL_OP_OR)
        return 2;
    if (op >= SL_OP_NEG && op <= SL_OP_NOT)
        return 1;
    if (op == SL_OP_WHERE)
        return 3;
    if (op == SL_OP_LOG2 || op == SL_OP_LOG10)
        return 1;
    return -1;
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

static inline double powi(double x, int k)
{
    if (k == 0)
        return 1.0;
    const int n = k < 0 ? -k : k;
    double acc = x;
    for (int i = 1; i < n; i++)
        acc = acc * x;
    return k < 0 ? 1.0 / acc : acc;
}

double sl_expr_eval(const sl_sim *s, const sl_expr *e, int32_t j, int64_t t)
{
    double st[SL_EXPR_STACK];
    int sp = 0;
    const sl_jobs *J = &s->J;
    /* The program passed sl_expr_check: every operation finds its operands
     * and leaves the stack within SL_EXPR_STACK, one value at the end. */
    SL_CHECK(e->len >= 1 && e->len <= SL_EXPR_MAXLEN);
    for (int32_t i = 0; i < e->len; i++) {
        const double arg = e->arg[i];
        double a, b;
        SL_CHECK(sp >= arity(e->op[i]) && sp - arity(e->op[i]) + 1 <= SL_EXPR_STACK);
        switch (e->op[i]) {
        case SL_OP_CONST: st[sp++] = arg; break;
        case SL_OP_REQ: st[sp++] = (double)J->req[j]; break;
        case SL_OP_RUN: st[sp++] = (double)J->run[j]; break;
        case SL_OP_PROCS: st[sp++] = (double)J->procs[j]; break;
        case SL_OP_SUBMIT: st[sp++] = (double)J->submit[j]; break;
        case SL_OP_WAIT: st[sp++] = (double)(t - J->submit[j]); break;
        case SL_OP_AREA: st[sp++] = (double)J->req[j] * (double)J->procs[j]; break;
        case SL_OP_ID: st[sp++] = (double)J->id[j]; break;
        case SL_OP_NOW: st[sp++] = (double)t; break;
        case SL_OP_M: st[sp++] = (double)s->C.m; break;
        case SL_OP_COL: st[sp++] = J->cols[(int64_t)j * J->ncols + (int64_t)arg]; break;
        case SL_OP_EST: st[sp++] = (double)s->est[j]; break;
        case SL_OP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case SL_OP_ABS: st[sp - 1] = fabs(st[sp - 1]); break;
        case SL_OP_LOG: st[sp - 1] = log(st[sp - 1]); break;
        case SL_OP_LOG1P: st[sp - 1] = log1p(st[sp - 1]); break;
        case SL_OP_LOG2: st[sp - 1] = log2(st[sp - 1]); break;
        case SL_OP_LOG10: st[sp - 1] = log10(st[sp - 1]); break;
        case SL_OP_SQRT: st[sp - 1] = sqrt(st[sp - 1]); break;
        case SL_OP_EXP: st[sp - 1] = exp(st[sp - 1]); break;
        case SL_OP_NOT: st[sp - 1] = st[sp - 1] == 0.0 ? 1.0 : 0.0; break;
        case SL_OP_POWI: st[sp - 1] = powi(st[sp - 1], (int)arg); break;
        case SL_OP_WHERE: {
            const double el = st[--sp], th = st[--sp];
            st[sp - 1] = st[sp - 1] != 0.0 ? th : el;
            break;
        }
        default:
            b = st[--sp];
            a = st[sp - 1];
            switch (e->op[i]) {
            case SL_OP_ADD: a = a + b; break;
            case SL_OP_SUB: a = a - b; break;
            case SL_OP_MUL: a = a * b; break;
            case SL_OP_DIV: a = a / b; break;
            case SL_OP_POW: a = pow(a, b); break;
            case SL_OP_MIN: a = isnan(a) || isnan(b) ? NAN : (a < b ? a : b); break;
            case SL_OP_MAX: a = isnan(a) || isnan(b) ? NAN : (a > b ? a : b); break;
            case SL_OP_LT: a = a < b; break;
            case SL_OP_LE: a = a <= b; break;
            case SL_OP_GT: a = a > b; break;
            case SL_OP_GE: a = a >= b; break;
            case SL_OP_EQ: a = a == b; break;
            case SL_OP_NE: a = a != b; break;
            case SL_OP_AND: a = (a != 0.0 && b != 0.0); break;
            case SL_OP_OR: a = (a != 0.0 || b != 0.0); break;
            default: SL_ASSERT(!"sl_expr_eval: an operation sl_expr_check refuses");
            }
            st[sp - 1] = a;
            break;
        }
    }
    SL_CHECK(sp == 1);
    const double k = st[0];
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
 *    number K (sl_expr_kinetic counts it: a load or + - x / 1, ** k k - 1,
 *    unary - 0) is at most SL_KIN_ROUNDINGS = 1024, else the expression
 *    has no kinetic model and is re-sorted at every pass: gamma_K =
 *    K u / (1 - K u) < 2^-42.99 (u = 2^-53).
 * S2 (magnitude).  The model runs the program a second time on
 *    magnitudes: a constant of the job by its absolute value, wait by w,
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

#define KIN_FLOOR 0x1p-1000
#define KIN_CEILING 0x1p1000

/* Kinetic class of e: 0 none, 1 affine, 2 monomial of degree *deg. */
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
        const int a = arity(op);
        if (a == 0) {
            dyn[sp] = op == SL_OP_WAIT || op == SL_OP_NOW;
            md[sp] = op == SL_OP_WAIT ? 1 : op == SL_OP_NOW ? -1 : 0;
            rounds += dyn[sp];
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
        switch (op) {
        case SL_OP_NEG:
            break;
        case SL_OP_ADD: case SL_OP_SUB:
            md[x] = da && db && ma == mb ? ma : -1;
            rounds++;
            break;
        case SL_OP_MUL:
            if (da && db)
                affine = 0;
            md[x] = ma < 0 || mb < 0 ? -1 : ma + mb;
            rounds++;
            break;
        case SL_OP_DIV:
            if (db)
                affine = mono = 0;
            rounds++;
            break;
        case SL_OP_POWI: {
            const int k = (int)e->arg[i];
            if (k < 1)
                affine = mono = 0;
            if (k > 1)
                affine = 0;
            md[x] = ma < 0 ? -1 : ma * k;
            rounds += k > 1 ? k - 1 : 0;
            break;
        }
        default:                      /* no other operation on time */
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
 * the key as sl_expr_eval computes it (the same operations; NaN not
 * mapped), *A the magnitude of S2 (infinite past the ceiling of S5), and
 * their slopes in t, *dV and *dA (forward derivatives in doubles, floors
 * left out: estimates, used only to guess a crossing; not computed when dV
 * is NULL). */
void sl_expr_model(const sl_sim *s, const sl_expr *e, int32_t kclass, int32_t j, int64_t t, double *V, double *A,
                   double *dV, double *dA)
{
    double v[SL_EXPR_STACK], dv[SL_EXPR_STACK], m[SL_EXPR_STACK], dm[SL_EXPR_STACK];
    double un[SL_EXPR_STACK];         /* u_r of S2: 1, or w^d_r in class 2 */
    int8_t tv[SL_EXPR_STACK];         /* time-varying */
    int sp = 0;
    double msum = 0.0;                /* the time-varying magnitudes' sum: the ceiling of S5 */
    const sl_jobs *J = &s->J;
    SL_ASSERT(kclass == 1 || kclass == 2);      /* a model exists only for these (S1) */
    for (int32_t i = 0; i < e->len; i++) {
        const double arg = e->arg[i];
        const int32_t op = e->op[i];
        if (arity(op) == 0) {
            double x;
            switch (op) {
            case SL_OP_CONST: x = arg; break;
            case SL_OP_REQ: x = (double)J->req[j]; break;
            case SL_OP_RUN: x = (double)J->run[j]; break;
            case SL_OP_PROCS: x = (double)J->procs[j]; break;
            case SL_OP_SUBMIT: x = (double)J->submit[j]; break;
            case SL_OP_WAIT: x = (double)(t - J->submit[j]); break;
            case SL_OP_AREA: x = (double)J->req[j] * (double)J->procs[j]; break;
            case SL_OP_ID: x = (double)J->id[j]; break;
            case SL_OP_NOW: x = (double)t; break;
            case SL_OP_M: x = (double)s->C.m; break;
            case SL_OP_COL: x = J->cols[(int64_t)j * J->ncols + (int64_t)arg]; break;
            default: x = (double)s->est[j]; break;      /* SL_OP_EST */
            }
            const int timed = op == SL_OP_WAIT || op == SL_OP_NOW;
            v[sp] = x;
            m[sp] = fabs(x);
            dv[sp] = timed ? 1.0 : 0.0;
            dm[sp] = dv[sp];
            un[sp] = op == SL_OP_WAIT && kclass == 2 ? x : 1.0;
            tv[sp] = (int8_t)timed;
            sp++;
            continue;
        }
        switch (op) {
        case SL_OP_NEG:
            v[sp - 1] = -v[sp - 1];
            dv[sp - 1] = -dv[sp - 1];
            break;
        case SL_OP_POWI: {
            const int k = (int)arg;
            const double a = v[sp - 1], ma = m[sp - 1], ua = un[sp - 1];
            if (!tv[sp - 1]) {
                v[sp - 1] = powi(a, k);
                m[sp - 1] = fabs(v[sp - 1]);
            } else {           /* k >= 1 (class 1 or 2): k - 1 products, each floored */
                double mr = ma, ur = ua;
                for (int r = 1; r < k; r++) {
                    ur = ur * ua;
                    mr = mr * ma + KIN_FLOOR * ur;
                }
                v[sp - 1] = powi(a, k);
                m[sp - 1] = mr;
                un[sp - 1] = ur;
                msum += mr;
                if (dV != NULL) {
                    dv[sp - 1] = (double)k * powi(a, k - 1) * dv[sp - 1];
                    dm[sp - 1] = (double)k * powi(ma, k - 1) * dm[sp - 1];
                }
            }
            break;
        }
        default: {
            const int arity3 = op == SL_OP_WHERE;
            if (arity3) {      /* static only (class 1 or 2) */
                const double el = v[--sp], th = v[--sp];
                v[sp - 1] = v[sp - 1] != 0.0 ? th : el;
                m[sp - 1] = fabs(v[sp - 1]);
                break;
            }
            const int unary = arity(op) == 1;
            if (unary) {       /* static only */
                double a = v[sp - 1];
                switch (op) {
                case SL_OP_ABS: a = fabs(a); break;
                case SL_OP_LOG: a = log(a); break;
                case SL_OP_LOG1P: a = log1p(a); break;
                case SL_OP_LOG2: a = log2(a); break;
                case SL_OP_LOG10: a = log10(a); break;
                case SL_OP_SQRT: a = sqrt(a); break;
                case SL_OP_EXP: a = exp(a); break;
                case SL_OP_NOT: a = a == 0.0 ? 1.0 : 0.0; break;
                default: break;
                }
                v[sp - 1] = a;
                m[sp - 1] = fabs(a);
                break;
            }
            sp--;
            const int ta = tv[sp - 1], tb = tv[sp], timed = ta || tb;
            tv[sp - 1] = (int8_t)timed;
            const double a = v[sp - 1], b = v[sp], da = dv[sp - 1], db = dv[sp];
            const double ma = m[sp - 1], mb = m[sp], dma = dm[sp - 1], dmb = dm[sp];
            double r = NAN, dr = 0.0, mr, dmr = 0.0, ur = 1.0;
            switch (op) {
            case SL_OP_ADD: r = a + b; break;
            case SL_OP_SUB: r = a - b; break;
            case SL_OP_MUL: r = a * b; break;
            case SL_OP_DIV: r = a / b; break;
            case SL_OP_POW: r = pow(a, b); break;
            case SL_OP_MIN: r = isnan(a) || isnan(b) ? NAN : (a < b ? a : b); break;
            case SL_OP_MAX: r = isnan(a) || isnan(b) ? NAN : (a > b ? a : b); break;
            case SL_OP_LT: r = a < b; break;
            case SL_OP_LE: r = a <= b; break;
            case SL_OP_GT: r = a > b; break;
            case SL_OP_GE: r = a >= b; break;
            case SL_OP_EQ: r = a == b; break;
            case SL_OP_NE: r = a != b; break;
            case SL_OP_AND: r = (a != 0.0 && b != 0.0); break;
            case SL_OP_OR: r = (a != 0.0 || b != 0.0); break;
            default: break;
            }
            if (!timed) {
                mr = fabs(r);               /* static: a constant */
            } else {
                /* u_r: the degrees of a product add; a sum's terms and a
                 * quotient's dividend have the result's degree (a static
                 * value's u is 1) */
                const double ua = un[sp - 1], ub = un[sp];
                switch (op) {
                case SL_OP_ADD: case SL_OP_SUB:
                    ur = ta ? ua : ub;
                    mr = ma + mb;
                    break;
                case SL_OP_MUL:
                    ur = ua * ub;
                    mr = ma * mb + KIN_FLOOR * ur;
                    break;
                default:                        /* SL_OP_DIV by a constant */
                    ur = ua;
                    mr = ma / mb + KIN_FLOOR * ur;
                    break;
                }
                msum += mr;
                if (dV != NULL) {
                    switch (op) {
                    case SL_OP_ADD: dr = da + db; dmr = dma + dmb; break;
                    case SL_OP_SUB: dr = da - db; dmr = dma + dmb; break;
                    case SL_OP_MUL: dr = da * b + a * db; dmr = dma * mb + ma * dmb; break;
                    default: dr = da / b; dmr = dma / mb; break;
                    }
                }
            }
            v[sp - 1] = r;
            dv[sp - 1] = dr;
            m[sp - 1] = mr;
            dm[sp - 1] = dmr;
            un[sp - 1] = ur;
            break;
        }
        }
    }
    *V = v[0];
    *A = msum <= KIN_CEILING ? m[0] : INFINITY;     /* each below it (NaN: not) */
    if (dV != NULL) {
        *dV = dv[0];
        *dA = dm[0];
    }
}
