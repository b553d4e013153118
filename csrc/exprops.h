/*
 * exprops.h -- the value of each policy-expression operation, one function
 * per line of exprops.def (csrc/SEMANTICS.md, "Policy expressions"): the
 * evaluator and the kinetic model of expr.c call them, and the built-in
 * policies' keys (policies.c, sl_policy_key) are composed of them, so that
 * a built-in and its expression twin (schedlab.expr.BUILTIN_EXPRESSIONS)
 * compute their keys with the very same operations.
 *
 * A load takes (s, j, t, arg): the simulation, the job, the pass's time
 * and the operation's argument; the others take their operands.  Every
 * operation is the IEEE double operation of C, or libm's function.
 */
#ifndef SL_EXPROPS_H
#define SL_EXPROPS_H

#include <math.h>
#include <string.h>

#include "internal.h"

#define SL_LOAD(name) static inline double sl_op_##name(const sl_sim *s, int32_t j, int64_t t, double arg)

SL_LOAD(const) { (void)s; (void)j; (void)t; return arg; }
SL_LOAD(req) { (void)t; (void)arg; return (double)s->J.req[j]; }
SL_LOAD(run) { (void)t; (void)arg; return (double)s->J.run[j]; }
SL_LOAD(procs) { (void)t; (void)arg; return (double)s->J.procs[j]; }
SL_LOAD(submit) { (void)t; (void)arg; return (double)s->J.submit[j]; }
/* the integer difference, then converted: one rounding */
SL_LOAD(wait) { (void)arg; return (double)(t - s->J.submit[j]); }
SL_LOAD(area) { (void)t; (void)arg; return (double)s->J.req[j] * (double)s->J.procs[j]; }
SL_LOAD(id) { (void)t; (void)arg; return (double)s->J.id[j]; }
SL_LOAD(now) { (void)s; (void)j; (void)arg; return (double)t; }
SL_LOAD(m) { (void)j; (void)t; (void)arg; return (double)s->C.m; }
SL_LOAD(col) { (void)t; return s->J.cols[(int64_t)j * s->J.ncols + (int64_t)arg]; }
SL_LOAD(est) { (void)t; (void)arg; return (double)s->est[j]; }
#undef SL_LOAD

/* Whether a load gives jobs a and b the same value at every time (the
 * kinetic list's ties, policies.c kin_same): one per load, so that a load
 * added to exprops.def without one does not compile (a switch's default
 * would count it as "the same" and certify a tie that is not). */
#define SL_SAME(name) static inline int sl_same_##name(const sl_sim *s, int32_t a, int32_t b, double arg)

SL_SAME(const) { (void)s; (void)a; (void)b; (void)arg; return 1; }
SL_SAME(req) { (void)arg; return s->J.req[a] == s->J.req[b]; }
SL_SAME(run) { (void)arg; return s->J.run[a] == s->J.run[b]; }
SL_SAME(procs) { (void)arg; return s->J.procs[a] == s->J.procs[b]; }
SL_SAME(submit) { (void)arg; return s->J.submit[a] == s->J.submit[b]; }
SL_SAME(wait) { (void)arg; return s->J.submit[a] == s->J.submit[b]; }
SL_SAME(area) { (void)arg; return s->J.req[a] == s->J.req[b] && s->J.procs[a] == s->J.procs[b]; }
SL_SAME(id) { (void)arg; return s->J.id[a] == s->J.id[b]; }
SL_SAME(now) { (void)s; (void)a; (void)b; (void)arg; return 1; }
SL_SAME(m) { (void)s; (void)a; (void)b; (void)arg; return 1; }
/* the same bits (NaN included: a NaN key sorts as +inf either way) */
SL_SAME(col)
{
    const double x = sl_op_col(s, a, 0, arg), y = sl_op_col(s, b, 0, arg);
    return memcmp(&x, &y, sizeof x) == 0;
}
SL_SAME(est) { (void)arg; return s->est[a] == s->est[b]; }
#undef SL_SAME

static inline double sl_op_add(double a, double b) { return a + b; }
static inline double sl_op_sub(double a, double b) { return a - b; }
static inline double sl_op_mul(double a, double b) { return a * b; }
static inline double sl_op_div(double a, double b) { return a / b; }
static inline double sl_op_pow(double a, double b) { return pow(a, b); }
/* a ** k for an integer k in -16..16 (arg): k factors multiplied left to
 * right, 1 / (a ** -k) for k < 0, 1 for k = 0 */
static inline double sl_op_powi(double a, double arg)
{
    const int k = (int)arg;
    if (k == 0)
        return 1.0;
    const int n = k < 0 ? -k : k;
    double acc = a;
    for (int i = 1; i < n; i++)
        acc = acc * a;
    return k < 0 ? 1.0 / acc : acc;
}
static inline double sl_op_min(double a, double b) { return isnan(a) || isnan(b) ? NAN : (a < b ? a : b); }
static inline double sl_op_max(double a, double b) { return isnan(a) || isnan(b) ? NAN : (a > b ? a : b); }
static inline double sl_op_lt(double a, double b) { return a < b; }
static inline double sl_op_le(double a, double b) { return a <= b; }
static inline double sl_op_gt(double a, double b) { return a > b; }
static inline double sl_op_ge(double a, double b) { return a >= b; }
static inline double sl_op_eq(double a, double b) { return a == b; }
static inline double sl_op_ne(double a, double b) { return a != b; }
static inline double sl_op_and(double a, double b) { return a != 0.0 && b != 0.0; }
static inline double sl_op_or(double a, double b) { return a != 0.0 || b != 0.0; }
static inline double sl_op_neg(double a) { return -a; }
static inline double sl_op_abs(double a) { return fabs(a); }
static inline double sl_op_log(double a) { return log(a); }
static inline double sl_op_log1p(double a) { return log1p(a); }
static inline double sl_op_sqrt(double a) { return sqrt(a); }
static inline double sl_op_exp(double a) { return exp(a); }
static inline double sl_op_not(double a) { return a == 0.0 ? 1.0 : 0.0; }
/* both evaluated (they are on the stack): a if c != 0, else b */
static inline double sl_op_where(double c, double a, double b) { return c != 0.0 ? a : b; }
static inline double sl_op_log2(double a) { return log2(a); }
static inline double sl_op_log10(double a) { return log10(a); }

/* ---------------------------------------- the built-ins' expression twins --
 * Each built-in time-varying key, as the operations of its expression in
 * schedlab.expr.BUILTIN_EXPRESSIONS (the static ones are one or two
 * operations each, composed in sl_policy_key).  max(req, 1) is the engine's
 * p~' (a job requesting 0 s counts as 1 s). */

/* max(req, 1) */
static inline double sl_key_pp(const sl_sim *s, int32_t j)
{
    return sl_op_max(sl_op_req(s, j, 0, 0.0), 1.0);
}

/* SEXP: (wait + max(req, 1)) / max(req, 1), job j's expansion factor at t:
 * wait and p~' loaded as doubles, then summed (rounded), then divided
 * (converting the integer sum once gave other doubles for waits above
 * 2^53 s, issue 53).  The one definition: SEXP's and LEXP's keys, the
 * mixed order's feature and the kinetic model. */
static inline double sl_key_expansion(const sl_sim *s, int32_t j, int64_t t)
{
    const double pp = sl_key_pp(s, j);
    return sl_op_div(sl_op_add(sl_op_wait(s, j, t, 0.0), pp), pp);
}

/* WFP: -((wait / max(req, 1)) ** 3 * procs) */
static inline double sl_key_wfp(const sl_sim *s, int32_t j, int64_t t)
{
    return sl_op_neg(sl_op_mul(sl_op_powi(sl_op_div(sl_op_wait(s, j, t, 0.0), sl_key_pp(s, j)), 3.0),
                               sl_op_procs(s, j, t, 0.0)));
}

/* The mixed order's features of job j (SL_MIXED; csrc/SEMANTICS.md): the
 * one definition that its keys, its kinetic model and sl_multi_run read.
 * exp is the expansion factor, or 0 where its weight is 0 (r0: the first
 * submission, the origin of the submit feature). */
static inline void sl_mixed_features(const sl_jobs *J, int64_t r0, int32_t j, double exp, double f[SL_NFEATURES])
{
    const double q = (double)J->procs[j], req = (double)J->req[j];
    f[SL_F_PROCS] = q;
    f[SL_F_REQ] = req;
    f[SL_F_SUBMIT] = (double)(J->submit[j] - r0);
    f[SL_F_RATIO] = sl_op_div(req, q);
    f[SL_F_EXP] = exp;
    f[SL_F_AREA] = sl_op_mul(req, q);
}

#endif
