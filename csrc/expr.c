/*
 * expr.c -- policy expressions: a user's priority, compiled by Python
 * (schedlab.expr) into a postfix program that the core runs per key.
 *
 * The program is checked once (sl_expr_check: known operations, a stack
 * that never underflows nor grows past SL_EXPR_STACK, exactly one value
 * left, columns that exist), then evaluated with no allocation and no
 * Python.  The contract (csrc/SEMANTICS.md, "Policy expressions"): every
 * operation is the IEEE double operation of C (libm's log, log1p, sqrt,
 * exp, pow), x ** k for a constant integer k in -16..16 is repeated
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
    for (int32_t i = 0; i < e->len; i++) {
        const double arg = e->arg[i];
        double a, b;
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
            default: a = NAN; break;      /* unreachable: checked */
            }
            st[sp - 1] = a;
            break;
        }
    }
    const double k = st[0];
    return isnan(k) ? INFINITY : k;
}
