/*
 * policies.c -- priority keys of the queue policies, and the ways of keeping
 * a queue's entries in an order (the kinetic list and the re-sorts); the
 * tournament (tour.c) and the choice between them (queue.c) are above it
 * (csrc/internal.h, "LAYERS").
 *
 * A queue (sl_queue) holds the indices of queued jobs in one policy's order.
 * Static keys (everything but SEXP/LEXP/WFP and a mixed policy with an
 * expansion weight) are computed once, when the job is queued; dynamic keys
 * change with the pass time.  A dynamic order is kept by its kinetic order
 * (below, issue 33): certificates of adjacent pairs, only the expired ones
 * compared at a pass, O(expired log len + new jobs' placement); when that
 * costs more than re-sorting (keys crossing fast in a short queue) or with
 * job classes, by an adaptive insertion sort: between two passes only new
 * jobs and key crossings move, so a pass costs O(len + moves), in one sweep
 * that also drops started jobs and computes the keys (rekey_sort).  A full
 * rebuild (policy change) uses a merge sort, O(len log len).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "exprops.h"
#include "internal.h"

static const char *const NAMES[SL_NPOLICIES] = {
    "FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF", "SAF", "LAF",
    "SRF", "LRF", "SEXP", "LEXP", "WFP", "MIXED", "SJBF", "EXPR", "PYKEYS"};

int sl_policy_check(const sl_policy *p, char *err, size_t errlen, const char *which)
{
    if (p->kind < 0 || p->kind >= SL_NPOLICIES) {
        snprintf(err, errlen, "%s policy: unknown kind %d", which, (int)p->kind);
        return SL_EINVAL;
    }
    if (p->kind == SL_EXPR)
        return sl_expr_check(p->expr, -1, err, errlen, which);
    if (p->kind == SL_PYKEYS) {
        if (p->keys == NULL) {
            snprintf(err, errlen, "%s policy: keys from a function need the function", which);
            return SL_EINVAL;
        }
        return SL_OK;
    }
    if (p->kind != SL_MIXED)
        return SL_OK;
    for (int i = 0; i < SL_NFEATURES; i++) {
        if (!isfinite(p->weights[i])) {
            snprintf(err, errlen, "%s policy: mixed weight %d is not finite", which, i);
            return SL_EINVAL;
        }
        if (!isfinite(p->scales[i]) || !(p->scales[i] > 0.0)) {
            snprintf(err, errlen, "%s policy: mixed scale %d must be finite and > 0", which, i);
            return SL_EINVAL;
        }
    }
    if (!sl_policy_finite(p)) {
        snprintf(err, errlen, "%s policy: mixed keys could overflow (sum over i of |w_i| 2^93 / s_i "
                 "must be below 1e300: a scale too close to 0 or a weight too large)", which);
        return SL_EINVAL;
    }
    (void)NAMES;
    return SL_OK;
}

int sl_policy_dynamic(const sl_policy *p)
{
    switch (p->kind) {
    case SL_SEXP: case SL_LEXP: case SL_WFP: case SL_PYKEYS:
        return 1;
    case SL_EXPR:
        return sl_expr_dynamic(p->expr);
    case SL_MIXED:
        /* The submit feature shifts every key by the same amount as time
         * passes, so only the expansion feature changes the order. */
        return p->weights[SL_F_EXP] != 0.0;
    default:
        return 0;
    }
}

/* Do two policies order a queue alike? */
int sl_policy_same(const sl_policy *a, const sl_policy *b)
{
    if (a->kind != b->kind)
        return 0;
    if (a->kind == SL_EXPR)
        return sl_expr_same(a->expr, b->expr);
    if (a->kind == SL_PYKEYS)
        return 0;       /* two calls may differ: each queue gets its own */
    if (a->kind == SL_MIXED)
        for (int i = 0; i < SL_NFEATURES; i++)
            if (a->weights[i] != b->weights[i] || a->scales[i] != b->scales[i])
                return 0;
    return 1;
}

/* Is every key of p a finite double, whatever the (valid) job and time?
 * Then sl_queue_before() is a strict total order, and every way of sorting a set of
 * jobs gives the same sequence.  The pure policies' keys are bounded (by
 * 2^186, WFP); a mixed key sums w_i (f_i / s_i) with |f_i| <= 2^93 (the
 * area p~ q <= 2^61 2^31 is the largest feature): finite when the sum of
 * |w_i| 2^93 / s_i is (with room to spare).  sl_policy_check refuses a
 * policy without this bound, so every queue's keys are finite. */
int sl_policy_finite(const sl_policy *p)
{
    if (p->kind != SL_MIXED)
        return 1;
    const double fmax = 9903520314283042199192993792.0;   /* 2^93 */
    double bound = 0.0;
    for (int i = 0; i < SL_NFEATURES; i++)
        bound += fabs(p->weights[i]) * (fmax / p->scales[i]);
    return bound < 1e300;
}

/* Key of job j at time t under policy p (lowest first).  The operation order
 * is part of the contract (csrc/SEMANTICS.md): each built-in is the
 * operations of its expression twin (schedlab.expr.BUILTIN_EXPRESSIONS),
 * composed of the same value functions (exprops.h). */
double sl_policy_key(const sl_sim *s, const sl_policy *p, int32_t j, int64_t t)
{
    switch (p->kind) {
    case SL_FCFS: return sl_op_submit(s, j, t, 0.0);
    case SL_LCFS: return sl_op_neg(sl_op_submit(s, j, t, 0.0));
    case SL_SPF: return sl_op_req(s, j, t, 0.0);
    case SL_LPF: return sl_op_neg(sl_op_req(s, j, t, 0.0));
    case SL_SQF: return sl_op_procs(s, j, t, 0.0);
    case SL_LQF: return sl_op_neg(sl_op_procs(s, j, t, 0.0));
    case SL_SAF: return sl_op_area(s, j, t, 0.0);
    case SL_LAF: return sl_op_neg(sl_op_area(s, j, t, 0.0));
    case SL_SRF: return sl_op_div(sl_op_req(s, j, t, 0.0), sl_op_procs(s, j, t, 0.0));
    case SL_LRF: return sl_op_neg(sl_op_div(sl_op_req(s, j, t, 0.0), sl_op_procs(s, j, t, 0.0)));
    case SL_SEXP: return sl_key_expansion(s, j, t);
    case SL_LEXP: return sl_op_neg(sl_key_expansion(s, j, t));
    case SL_WFP: return sl_key_wfp(s, j, t);
    case SL_SJBF: return sl_op_est(s, j, t, 0.0);
    case SL_EXPR: return sl_expr_eval(s, p->expr, j, t);
    case SL_MIXED: {
        double f[SL_NFEATURES];
        sl_mixed_features(&s->J, s->r0, j, p->weights[SL_F_EXP] != 0.0 ? sl_key_expansion(s, j, t) : 0.0, f);
        double acc = 0.0;
        for (int i = 0; i < SL_NFEATURES; i++)
            acc = acc + p->weights[i] * (f[i] / p->scales[i]);
        return acc;
    }
    default:
        return 0.0; /* unreachable: kinds are checked on entry */
    }
}

/* For tests (the twins' keys, bit for bit): sl_policy_key under the
 * simulation's primary or backfilling policy. */
double sl_debug_key(const sl_sim *sim, int32_t which, int32_t j, int64_t t)
{
    const sl_policy *p = which == 0 ? &sim->C.primary : which == 1 ? &sim->C.backfill : NULL;
    if (p == NULL || j < 0 || j >= sim->n || p->kind == SL_PYKEYS)
        return NAN;
    return sl_policy_key(sim, p, j, t);
}

static void merge_sort(const sl_sim *s, sl_queue *q, int32_t *tmp)
{
    int32_t *src = q->idx, *dst = tmp;
    const int32_t n = q->len;
    for (int32_t width = 1; width < n; width *= 2) {
        for (int32_t lo = 0; lo < n; lo += 2 * width) {
            int32_t mid = lo + width < n ? lo + width : n;
            int32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            int32_t i = lo, k = mid, o = lo;
            while (i < mid && k < hi)
                dst[o++] = sl_queue_before(s, q, src[k], src[i]) ? src[k++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (k < hi) dst[o++] = src[k++];
        }
        int32_t *sw = src; src = dst; dst = sw;
    }
    if (src != q->idx)
        memcpy(q->idx, src, (size_t)n * sizeof *src);
}

/* The key of a dynamic order, with the policy's kind a constant where
 * this is inlined (SEXP and LEXP without the switch; the same doubles as
 * sl_policy_key). */
static inline __attribute__((always_inline)) double dynamic_key(const sl_sim *s, const sl_queue *q, int32_t kind,
                                                                int32_t j, int64_t t)
{
    return kind == SL_SEXP ? sl_key_expansion(s, j, t) : kind == SL_LEXP ? sl_op_neg(sl_key_expansion(s, j, t))
                                                                     : sl_policy_key(s, &q->pol, j, t);
}


/* A dynamic queue (never fq) re-keyed at t and re-sorted, in one sweep:
 * each queued entry in turn (started ones dropped, as sl_queue_compact
 * does) gets its key and is inserted into the sorted prefix (an insertion
 * sort: between two passes only key crossings and new jobs move).  The
 * prefix's keys are kept by position (s->skey) so that a comparison reads
 * no index.  x goes before y exactly as sl_queue_before() says: by class (cls, a
 * constant NULL where inlined without classes), then kx < ky if kx != ky
 * (false if either is NaN), else tie_before -- that is, (kx < ky) ||
 * (kx == ky && tie_before).  The comparisons of compacting, keying, then
 * sorting by insertion: the same order, even for keys no order can sort
 * (NaN).  O(len + moves).  kind is a constant where this is inlined. */
static inline __attribute__((always_inline)) void rekey_sort(sl_sim *s, sl_queue *q, int32_t kind, const uint8_t *cls,
                                                             int64_t t)
{
    int32_t *a = q->idx;
    double *key = q->key, *sk = s->skey;
    const uint8_t *state = s->state;
    int32_t o = 0;
    for (int32_t i = q->first; i < q->len; i++) {
        const int32_t x = a[i];
        if (state[x] != SL_QUEUED)
            continue;
        const double kx = dynamic_key(s, q, kind, x, t);
        key[x] = kx;
        int32_t k = o++;        /* k <= i: a[i + 1..] is not touched */
        while (k > 0) {
            const int32_t y = a[k - 1];
            const double ky = sk[k - 1];
            const int goes_before = cls != NULL && cls[x] != cls[y] ? cls[x] > cls[y]
                                  : kx < ky || (kx == ky && sl_tie_before(s, x, y));
            if (!goes_before)
                break;
            a[k] = y;
            sk[k] = ky;
            k--;
        }
        a[k] = x;
        sk[k] = kx;
    }
    q->len = o;
    q->first = 0;
}

/* ------------------------------------------------ the kinetic order --
 *
 * Issue 33: re-keying and re-sorting a dynamic queue at every pass costs
 * O(queued) per pass (quadratic in a burst).  Instead the order of the last
 * pass is kept with a *certificate* per adjacent pair (a, b): a time before
 * which a is sure to go before b.  At a pass at t only the pairs whose
 * certificate has expired (a min-tree finds them) are compared with the
 * real keys at t; a pair out of order is swapped and its two new neighbour
 * pairs are checked in turn.  When every adjacent pair is in order at t
 * the queue is sorted at t (the order is strict and total), so the result
 * is exactly the re-sort's, whatever the certificates say, as long as none
 * claims too much.  Why none does:
 *
 * Every key is a double computed from a real function of t: the expansion
 * factor x = (t - r + p')/p' (linear; sl_key_expansion: two conversions, a sum
 * and a quotient, each rounded), a mixed sum with x as one feature
 * (linear), WFP's W = ((t - r)/p')^3 q (its cube root is linear).  Let V be
 * the real value of a key (SEXP x, LEXP -x, mixed the exact sum, WFP -W) and
 * A a bound of the magnitude it is computed from (x; the sum of the terms'
 * absolute values plus 2^-1000 for subnormal products; W).  Each key is
 * within 16 u A of V (u = 2^-53: x 4 roundings; a mixed term at most 3
 * plus, when x / s underflows, 2^-1075 s / x <= 2^-51 of the term (s <
 * 2^1024, x >= 1), and 6 additions; WFP 12 roundings relative).
 * (Expressions: the same argument, step by step, in expr.c, S1-S5.)  The test G(t) computes
 * V_b - V_a - eps (A_a + A_b) > 0 in doubles with eps = 2^-40; its own
 * rounding is below 16 u (A_a + A_b), so (32 u < 2^-41) G(t) implies the real condition
 * C(t): V_b - V_a > (eps / 2)(A_a + A_b), which implies key_a < key_b
 * strictly (a before b, whatever the tie-break).  C is linear in t (WFP: in
 * the cube roots, for t >= both submit times), so C holds on the interval
 * between two times where G holds: the certificate is the largest time
 * found with G true (from an estimate of the crossing, then halving), plus
 * one.  A pair that G cannot separate now (keys within 2^-40 of each other)
 * is checked again at the next pass; a pair whose keys are equal at every
 * time (the same features) never changes order (the tie-break decides).
 *
 * Started jobs stay in the chain until compaction (their keys still order
 * them among the others); compaction joins the certificates across them
 * (the least of the chain: transitivity).  Jobs queued since the last pass
 * are sorted and merged in by binary search.  More expired pairs than the
 * queue is long (a burst whose keys were all equal): a full re-sort. */

/* The debug mode: a setting of the process (atomic: a test may set it
 * while simulations run on other threads; it never changes a schedule). */
_Atomic int32_t sl_kinetic = 1;
static _Atomic int64_t kin_count[5];      /* totals of the simulations' counters */

int32_t sl_debug_kinetic(int32_t mode)
{
    const int32_t old = sl_kinetic;
    sl_kinetic = mode < 0 ? 0 : mode > 3 ? 3 : mode;
    return old;
}

void sl_kin_flush(sl_sim *s)
{
    for (int i = 0; i < 5; i++) {
        if (s->cnt.kin[i] != 0)
            atomic_fetch_add(&kin_count[i], s->cnt.kin[i]);
        s->cnt.kin[i] = 0;
    }
}

int64_t sl_debug_kinetic_count(int32_t which)
{
    return which >= 0 && which < 5 ? atomic_load(&kin_count[which]) : -1;
}

#define KIN_EPS 0x1p-40
#define KIN_TMAX (INT64_C(1) << 62)     /* beyond every event time (2^61) */
#define KIN_NEVER INT64_MAX

/* Real-valued model of job j's key at t: value *V (the key itself, as
 * computed) and magnitude *A (see above). */
static inline void kin_model(const sl_sim *s, const sl_queue *q, int32_t j, int64_t t, double *V, double *A)
{
    switch (q->pol.kind) {
    case SL_SEXP: {
        const double x = sl_key_expansion(s, j, t);
        *V = x;
        *A = x;
        return;
    }
    case SL_LEXP: {
        const double x = sl_key_expansion(s, j, t);
        *V = -x;
        *A = x;
        return;
    }
    case SL_WFP:
        *V = sl_key_wfp(s, j, t);
        *A = -*V;       /* |key|: the key is minus a product of nonnegative factors */
        return;
    case SL_EXPR: {
        sl_expr_model(s, q->pol.expr, q->kexpr, j, t, V, A, NULL, NULL);
        if (isnan(*V))
            *V = INFINITY;      /* as sl_expr_eval */
        return;
    }
    default: {     /* SL_MIXED, the terms as sl_policy_key computes them */
        const sl_policy *p = &q->pol;
        double f[SL_NFEATURES];
        sl_mixed_features(&s->J, s->r0, j, sl_key_expansion(s, j, t), f);
        double acc = 0.0, mag = 0x1p-1000;
        for (int i = 0; i < SL_NFEATURES; i++) {
            const double term = p->weights[i] * (f[i] / p->scales[i]);
            acc = acc + term;
            mag += fabs(term);
        }
        *V = acc;
        *A = mag;
        return;
    }
    }
}

/* G(t): is a sure to go before b at t (see above)? */
static inline double kin_margin(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b, int64_t t)
{
    double va, aa, vb, ab;
    kin_model(s, q, a, t, &va, &aa);
    kin_model(s, q, b, t, &vb, &ab);
    return (vb - va) - KIN_EPS * (aa + ab);
}

/* Are the keys of a and b equal at every time (the same features)? */
static int kin_same(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b)
{
    const sl_jobs *J = &s->J;
    const int64_t pa = J->req[a] > 1 ? J->req[a] : 1, pb = J->req[b] > 1 ? J->req[b] : 1;
    switch (q->pol.kind) {
    case SL_SEXP: case SL_LEXP:
        return J->submit[a] == J->submit[b] && pa == pb;
    case SL_WFP: {
        /* (p', q) and (2^k p', 2^3k q) give the same doubles: dividing by
         * 2^k p' scales w by 2^-k exactly, w^3 by 2^-3k (no underflow:
         * w >= 2^-61), and the product with q undoes it. */
        if (J->submit[a] != J->submit[b])
            return 0;
        int64_t p1 = pa, p2 = pb, q1 = J->procs[a], q2 = J->procs[b];
        if (p1 > p2) {
            int64_t tmp = p1; p1 = p2; p2 = tmp;
            tmp = q1; q1 = q2; q2 = tmp;
        }
        while (p1 < p2 && (p2 & 1) == 0 && (q2 & 7) == 0) {
            p2 >>= 1;
            q2 >>= 3;
        }
        return p1 == p2 && q1 == q2;
    }
    case SL_EXPR: {
        /* every value the program loads is the same for both jobs (one
         * sl_same_<load> per load of exprops.def; other operations read none) */
        const sl_expr *e = q->pol.expr;
#define SAME_LOAD(name) if (!sl_same_##name(s, a, b, e->arg[i])) return 0;
#define SAME_UNARY(name)
#define SAME_UNARG(name)
#define SAME_BINARY(name)
#define SAME_TERNARY(name)
#define OP(NAME, name, code, shape, kin, rounds) case SL_OP_##NAME: SAME_##shape(name) break;
        for (int32_t i = 0; i < e->len; i++) {
            switch (e->op[i]) {
#include "exprops.def"
            default: break;
            }
        }
#undef OP
#undef SAME_LOAD
#undef SAME_UNARY
#undef SAME_UNARG
#undef SAME_BINARY
#undef SAME_TERNARY
        return 1;
    }
    default: {
        const double *w = q->pol.weights;
        const double qa = (double)J->procs[a], qb = (double)J->procs[b];
        if (w[SL_F_PROCS] != 0.0 && J->procs[a] != J->procs[b]) return 0;
        if (w[SL_F_REQ] != 0.0 && J->req[a] != J->req[b]) return 0;
        if (w[SL_F_SUBMIT] != 0.0 && J->submit[a] != J->submit[b]) return 0;
        if (w[SL_F_RATIO] != 0.0 && (double)J->req[a] / qa != (double)J->req[b] / qb) return 0;
        if (w[SL_F_EXP] != 0.0 && (J->submit[a] != J->submit[b] || pa != pb)) return 0;
        if (w[SL_F_AREA] != 0.0 && (double)J->req[a] * qa != (double)J->req[b] * qb) return 0;
        return 1;
    }
    }
}

/* When a margin d0 > 0 at t falling by -slope a second reaches 0
 * (KIN_TMAX: never, or past every time). */
static int64_t kin_when(int64_t t, double d0, double slope)
{
    if (!(slope < 0.0) || !(d0 > 0.0))
        return KIN_TMAX;
    const double dt = d0 / -slope;
    if (!(dt < (double)(KIN_TMAX - t)))
        return KIN_TMAX;
    return t + (int64_t)dt;
}

/* An estimate of when G stops holding for a before b, from t (where it
 * holds): the crossing of the linear margin (WFP: of the cube roots).  Any
 * value will do (the certificate checks G there); KIN_TMAX if none. */
static int64_t kin_crossing(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b, int64_t t, double d0)
{
    const sl_jobs *J = &s->J;
    const double pa = (double)(J->req[a] > 1 ? J->req[a] : 1), pb = (double)(J->req[b] > 1 ? J->req[b] : 1);
    double slope;
    switch (q->pol.kind) {
    case SL_SEXP:
        slope = (1.0 - KIN_EPS) / pb - (1.0 + KIN_EPS) / pa;
        break;
    case SL_LEXP:
        slope = (1.0 - KIN_EPS) / pa - (1.0 + KIN_EPS) / pb;
        break;
    case SL_WFP: {
        /* a goes first while (t - r_a) c_a > (t - r_b) c_b, c = q^(1/3) / p' */
        const double ca = cbrt((double)J->procs[a]) / pa, cb = cbrt((double)J->procs[b]) / pb;
        const double ha = (double)(t - J->submit[a]) * ca, hb = (double)(t - J->submit[b]) * cb;
        d0 = ha - hb - KIN_EPS * (ha + hb);
        slope = ca - cb - KIN_EPS * (ca + cb);
        break;
    }
    default: {
        const double beta = q->pol.weights[SL_F_EXP] / q->pol.scales[SL_F_EXP];
        slope = beta * (1.0 / pb - 1.0 / pa) - KIN_EPS * fabs(beta) * (1.0 / pa + 1.0 / pb);
        break;
    }
    }
    return kin_when(t, d0, slope);
}

/* An expression's margin G at t (*d0, the same doubles as kin_margin) and
 * an estimate of when it stops holding, from one evaluation of each model
 * with its slopes: affine, the margin's own slope; a monomial, the
 * crossing of the d-th roots of C's two sides (linear in t). */
static int64_t kin_expr_crossing(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b, int64_t t, double *d0out)
{
    const sl_jobs *J = &s->J;
    double va, aa, dva, daa, vb, ab, dvb, dab, d0, slope;
    sl_expr_model(s, q->pol.expr, q->kexpr, a, t, &va, &aa, &dva, &daa);
    sl_expr_model(s, q->pol.expr, q->kexpr, b, t, &vb, &ab, &dvb, &dab);
    if (isnan(va))
        va = INFINITY;
    if (isnan(vb))
        vb = INFINITY;
    d0 = (vb - va) - KIN_EPS * (aa + ab);
    *d0out = d0;
    if (!(d0 > 0.0))
        return KIN_TMAX;
    if (q->kexpr == 1) {
        slope = (dvb - dva) - KIN_EPS * (daa + dab);
    } else {
        const double wa = (double)(t - J->submit[a]), wb = (double)(t - J->submit[b]);
        if (!(wa > 0.0) || !(wb > 0.0))
            return KIN_TMAX;
        /* C's sides c_a w_a^d and c_b w_b^d (c_a = va + eps aa, c_b = vb -
         * eps ab, over w^d): their d-th roots cross where w_b = rho w_a,
         * rho = (c_a / c_b)^(1/d) (w_b / w_a) at t -- one root and no power
         * (the crossing of the two roots, scaled by 1 / c_b^(1/d): kin_when
         * reads only d0 / slope).  An estimate: kin_cert tests G at the
         * ends of what it certifies. */
        const double ca = va + KIN_EPS * aa, cb = vb - KIN_EPS * ab;
        if (!((ca > 0.0 && cb > 0.0) || (ca < 0.0 && cb < 0.0)))
            return KIN_TMAX;    /* monotone in t, or no estimate */
        const double rho = pow(ca / cb, 1.0 / (double)q->kdeg) * (wb / wa);
        if (ca > 0.0) {         /* c_b^(1/d) w_b > c_a^(1/d) w_a */
            d0 = wb - rho * wa;
            slope = 1.0 - rho;
        } else {                /* |c_a|^(1/d) w_a > |c_b|^(1/d) w_b */
            d0 = rho * wa - wb;
            slope = rho - 1.0;
        }
    }
    return kin_when(t, d0, slope);
}

/* Certificate of the adjacent pair (a, b), a before b at t (checked by the
 * caller with the real keys): a time > t before which a goes before b. */
/* Work units of the kinetic order, against one per entry re-keyed and
 * re-sorted (measured by callgrind: a check costs about 8, a certificate
 * about 12). */
#define KIN_CHECK_UNITS 8
#define KIN_CERT_UNITS 12
#ifdef SL_CHECKED
/* The certificates' precondition: a goes before b at t, by the keys at t
 * and the tie rule (the checked core recomputes both keys). */
static int kin_before_at(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b, int64_t t)
{
    const double ka = dynamic_key(s, q, q->pol.kind, a, t), kb = dynamic_key(s, q, q->pol.kind, b, t);
    return ka < kb || (ka == kb && sl_tie_before(s, a, b));
}
#endif

static int64_t kin_cert(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b, int64_t t)
{
    SL_CHECK(kin_before_at(s, q, a, b, t));
    ((sl_sim *)s)->cnt.kin[2]++;
    ((sl_queue *)q)->kwork += KIN_CERT_UNITS;
    if (kin_same(s, q, a, b))
        return KIN_NEVER;
    double d0;
    int64_t cand;
    if (q->pol.kind == SL_EXPR) {
        cand = kin_expr_crossing(s, q, a, b, t, &d0);
        if (!(d0 > 0.0))
            return t + 1;
    } else {
        d0 = kin_margin(s, q, a, b, t);
        if (!(d0 > 0.0))
            return t + 1;
        cand = kin_crossing(s, q, a, b, t, d0);
    }
    int64_t lo = t;
    if (cand > lo)
        cand -= ((cand - lo) >> 12) + 1;    /* just inside the estimate */
    for (int it = 0; it < 8 && cand > lo; it++) {
        if (kin_margin(s, q, a, b, cand) > 0.0) {
            lo = cand;
            break;
        }
        cand = lo + (cand - lo) / 2;
    }
    SL_ASSERT(lo >= t);         /* G holds at lo: the interval [t, lo] of S5 */
    return lo >= KIN_TMAX - 1 ? KIN_NEVER : lo + 1;
}

/* For tour.c: can q's order be kept by certificates (a kinetic kind
 * without classes), and the certificate of a before b at t (a goes before
 * b at t: checked by the caller). */
int sl_kin_capable(const sl_sim *s, const sl_queue *q)
{
    const int32_t k = q->pol.kind;
    return q->dynamic && s->cls == NULL &&
           (k == SL_SEXP || k == SL_LEXP || k == SL_WFP || k == SL_MIXED || (k == SL_EXPR && q->kexpr != 0));
}

int64_t sl_kin_cert(const sl_sim *s, sl_queue *q, int32_t a, int32_t b, int64_t t)
{
    return kin_cert(s, q, a, b, t);
}

static int kin_alloc(sl_queue *q, int32_t need)
{
    if (need <= q->kcap)
        return 1;
    if (need > (INT32_C(1) << 30))
        return 0;               /* the min-tree's power of two would not fit: re-sort */
    int32_t cap = q->kcap > 0 ? q->kcap : 64;
    while (cap < need)
        cap *= 2;
    int64_t *e = realloc(q->kexp, (size_t)cap * sizeof *e);
    if (e == NULL)
        return 0;
    q->kexp = e;
    int64_t *g = realloc(q->kseg, 2 * (size_t)cap * sizeof *g);
    if (g == NULL)
        return 0;
    q->kseg = g;
    q->kcap = cap;
    return 1;
}

/* The min-tree over kexp[0..klen), O(klen). */
static void kin_tree(sl_queue *q)
{
    int32_t tn = 1;
    while (tn < q->klen)
        tn *= 2;
    q->ktn = tn;
    int64_t *g = q->kseg;
    memcpy(g + tn, q->kexp, (size_t)q->klen * sizeof *g);
    for (int32_t i = q->klen; i < tn; i++)
        g[tn + i] = KIN_NEVER;
    for (int32_t v = tn - 1; v >= 1; v--)
        g[v] = g[2 * v] < g[2 * v + 1] ? g[2 * v] : g[2 * v + 1];
}

/* The min-tree after kexp[lo..klen) changed and klen did not shrink:
 * O(klen - lo), or a rebuild if it no longer fits. */
static void kin_tree_from(sl_queue *q, int32_t lo)
{
    const int32_t tn = q->ktn;
    if (q->klen > tn || lo >= q->klen) {
        if (q->klen > tn)
            kin_tree(q);
        return;
    }
    int64_t *g = q->kseg;
    memcpy(g + tn + lo, q->kexp + lo, (size_t)(q->klen - lo) * sizeof *g);
    for (int32_t l = (tn + lo) / 2, h = (tn + q->klen - 1) / 2; l >= 1; l /= 2, h /= 2)
        for (int32_t v = l; v <= h; v++)
            g[v] = g[2 * v] < g[2 * v + 1] ? g[2 * v] : g[2 * v + 1];
}

static inline void kin_set(sl_queue *q, int32_t i, int64_t e)
{
    int64_t *g = q->kseg;
    q->kexp[i] = e;
    int32_t v = q->ktn + i;
    g[v] = e;
    for (v /= 2; v >= 1; v /= 2) {
        const int64_t m = g[2 * v] < g[2 * v + 1] ? g[2 * v] : g[2 * v + 1];
        if (g[v] == m)
            break;
        g[v] = m;
    }
}

/* Certificates of a queue sorted at t without started entries or pending
 * jobs (after a full sort), and its tree.  0 if out of memory (then the
 * queue stays on the old path). */
static int kin_build(sl_sim *s, sl_queue *q, int64_t t)
{
    q->kvalid = 0;
    if (!kin_alloc(q, q->len > 1 ? q->len : 1))
        return 0;
    q->klen = q->len;
    int32_t fuzz = 0;
    for (int32_t i = 0; i < q->len; i++) {
        q->kexp[i] = i < q->first || i + 1 >= q->len ? KIN_NEVER : kin_cert(s, q, q->idx[i], q->idx[i + 1], t);
        fuzz += q->kexp[i] == t + 1;
    }
    kin_tree(q);
    /* Most pairs unseparated (e.g. a burst at its submit time: every
     * expansion factor is 1): the next pass re-sorts at once. */
    q->kvalid = fuzz > q->len / 4 + 16 ? 2 : 1;
    return 1;
}

/* Every expired certificate checked at t, out-of-order pairs swapped (an
 * insertion sort driven by the certificates: a pair found in order waits
 * in s->scratch, marked KIN_PENDING, and gets its certificate once the
 * swaps are done, so a job that moves k places costs k comparisons and
 * a few certificates).  Returns 0 if that took more steps than the queue
 * is long (then the caller re-sorts). */
#define KIN_PENDING (INT64_MAX - 1)
static int kin_repair(sl_sim *s, sl_queue *q, int64_t t)
{
    const int32_t len = q->klen - q->first;
    int64_t budget = len / 2 + 64;
    const int64_t *g = q->kseg;
    int32_t *a = q->idx, *todo = s->scratch, ntodo = 0;
    const int32_t kind = q->pol.kind;
    while (g[1] <= t) {
        int32_t v = 1;
        while (v < q->ktn)
            v = g[2 * v] <= t ? 2 * v : 2 * v + 1;
        const int32_t i = v - q->ktn;
        if (i < q->first || i + 1 >= q->klen) {
            kin_set(q, i, KIN_NEVER);
            continue;
        }
        if (--budget < 0 || ntodo >= s->n)
            return 0;
        s->cnt.kin[4]++;
        q->kwork += KIN_CHECK_UNITS;
        const int32_t x = a[i], y = a[i + 1];
        const double kx = dynamic_key(s, q, kind, x, t), ky = dynamic_key(s, q, kind, y, t);
        if (!(kx < ky || (kx == ky && sl_tie_before(s, x, y)))) {
            s->cnt.kin[1]++;
            a[i] = y;
            a[i + 1] = x;
            if (i > q->first && q->kexp[i - 1] > t)
                kin_set(q, i - 1, t);
            if (i + 2 < q->klen && q->kexp[i + 1] > t)
                kin_set(q, i + 1, t);
            if (q->tvalid && (i + 1) % SL_BLOCK == 0) {
                /* a job moved across a block boundary */
                sl_queue_summarise(s, q, i / SL_BLOCK);
                sl_queue_summarise(s, q, (i + 1) / SL_BLOCK);
            }
        }
        kin_set(q, i, KIN_PENDING);
        todo[ntodo++] = i;
    }
    for (int32_t k = 0; k < ntodo; k++) {
        const int32_t i = todo[k];
        if (q->kexp[i] == KIN_PENDING)
            kin_set(q, i, kin_cert(s, q, a[i], a[i + 1], t));
    }
    return 1;
}

/* Jobs queued since the last pass (positions [klen, len)) merged into the
 * order at t: sorted, then placed by binary search. */
static int kin_insert(sl_sim *s, sl_queue *q, int64_t t)
{
    const int32_t kind = q->pol.kind;
    int32_t *a = q->idx;
    const int32_t lo0 = q->first > q->klen ? q->first : q->klen;
    const int32_t first = q->first;
    const int32_t ne = (q->klen > first ? q->klen : first) - first;
    /* the new queued jobs, keyed at t, sorted (in place at the tail) */
    int32_t np = 0;
    for (int32_t i = lo0; i < q->len; i++) {
        const int32_t j = a[i];
        if (s->state[j] != SL_QUEUED)
            continue;
        q->key[j] = dynamic_key(s, q, kind, j, t);
        a[lo0 + np++] = j;
    }
    int32_t *c = s->scratch;
    memcpy(c, a + lo0, (size_t)np * sizeof *c);
    for (int32_t k = 1; k < np; k++) {        /* insertion sort: usually a few */
        const int32_t j = c[k];
        int32_t i = k;
        while (i > 0 && sl_queue_before(s, q, j, c[i - 1])) {
            c[i] = c[i - 1];
            i--;
        }
        c[i] = j;
    }
    const int32_t nlen = first + ne + np;
    if (!kin_alloc(q, nlen))
        return 0;
    /* from the last new job down: its place among the kept ones (binary
     * search with the keys at t), the kept ones after it moved up */
    int32_t hi = first + ne;          /* kept positions [first, hi) not yet moved */
    int32_t top = nlen;               /* positions [top, nlen) final */
    for (int32_t k = np - 1; k >= 0; k--) {
        const int32_t j = c[k];
        const double kj = q->key[j];
        int32_t l = first, h = hi;
        while (l < h) {
            const int32_t mid = l + (h - l) / 2;
            const int32_t y = a[mid];
            const double ky = dynamic_key(s, q, kind, y, t);
            if (ky < kj || (ky == kj && sl_tie_before(s, y, j)))
                l = mid + 1;
            else
                h = mid;
        }
        const int32_t moved = hi - l;
        memmove(a + top - moved, a + l, (size_t)moved * sizeof *a);
        memmove(q->kexp + top - moved, q->kexp + l, (size_t)moved * sizeof *q->kexp);
        top -= moved;
        hi = l;
        top--;
        a[top] = j;
        c[k] = top;                   /* its final place */
    }
    const int32_t lo = np > 0 ? c[0] : nlen;   /* first position changed */
    q->len = nlen;
    q->klen = nlen;
    /* the certificates of the new jobs and of their predecessors (kept
     * ones keep theirs: the same pair, moved) */
    for (int32_t k = 0; k < np; k++) {
        const int32_t i = c[k];
        if (i > first && (k == 0 || c[k - 1] != i - 1))
            q->kexp[i - 1] = kin_cert(s, q, a[i - 1], a[i], t);
        q->kexp[i] = i + 1 < nlen ? kin_cert(s, q, a[i], a[i + 1], t) : KIN_NEVER;
    }
    if (nlen > 0)
        q->kexp[nlen - 1] = KIN_NEVER;
    kin_tree_from(q, lo > first ? lo - 1 : first);
    q->tvalid = 0;
    q->calm = 0;
    return 1;
}

/* Keys at t and a merge sort, after dropping started entries (a policy
 * change, or the first pass of a kinetic order). */
static void full_sort(sl_sim *s, sl_queue *q, int64_t t)
{
    sl_queue_compact(s, q);
    for (int32_t i = 0; i < q->len; i++)
        q->key[q->idx[i]] = sl_policy_key(s, &q->pol, q->idx[i], t);
    merge_sort(s, q, s->scratch);
}

/* Mode 2: is every adjacent pair of [first, len) in order at t? */
static void kin_check(sl_sim *s, sl_queue *q, int64_t t)
{
    for (int32_t i = q->first; i + 1 < q->len; i++) {
        const int32_t x = q->idx[i], y = q->idx[i + 1];
        const double kx = dynamic_key(s, q, q->pol.kind, x, t), ky = dynamic_key(s, q, q->pol.kind, y, t);
        if (!(kx < ky || (kx == ky && sl_tie_before(s, x, y))))
            s->cnt.kin[0]++;
    }
}

/* The kinetic order brought to t; 0 if it could not be (no memory). */
static int kin_reorder(sl_sim *s, sl_queue *q, int64_t t)
{
    const int was = q->kvalid;
    if (was != 1 || !kin_repair(s, q, t)) {
        /* A first build (or one after a clone, a policy change, or a pass
         * whose pairs were mostly unseparated) is paid once, as the re-sort
         * pays its own: it counts against the kinetic order only when a
         * repair failed (too many pairs out of order: keys crossing fast). */
        const int64_t work = q->kwork;
        q->kvalid = 0;
        full_sort(s, q, t);
        s->cnt.kin[3]++;
        q->tvalid = 0;
        q->calm = 0;
        if (!kin_build(s, q, t))
            return 0;
        if (was == 1) {
            int32_t lg = 1;
            while (lg < 31 && (INT32_C(1) << lg) < q->len)
                lg++;
            q->kwork += (int64_t)q->len * lg;
        } else {
            q->kwork = work;
        }
    } else if (q->len > q->klen && !kin_insert(s, q, t)) {
        q->kvalid = 0;
        return 0;
    }
    if (sl_kinetic == 2)
        kin_check(s, q, t);     /* mode 3: always kinetic, unchecked */
    return 1;
}

/* SL_PYKEYS: every queued job keyed by the caller's function at t, then
 * sorted (a merge sort: the function's keys need not follow any law).
 * A failing function stops the run (s->failed; sl_sim_run returns
 * SL_EINVAL) and leaves the order as it was. */
void sl_queue_sort_pykeys(sl_sim *s, sl_queue *q, int64_t t)
{
    q->kvalid = 0;
    q->tvalid = 0;
    q->calm = 0;
    q->dirty = 0;
    sl_queue_compact(s, q);
    if (s->failed || q->len == 0)
        return;
    double *out = s->skey;
    if (q->pol.keys(q->pol.kctx, q->idx, q->len, t, out) != 0) {
        s->failed = 2;      /* 2: a key function (1: an estimator; sl_sim_run says which) */
        snprintf(s->err, sizeof s->err, "the policy's key function failed");
        return;
    }
    for (int32_t i = 0; i < q->len; i++)
        q->key[q->idx[i]] = isnan(out[i]) ? INFINITY : out[i];
    merge_sort(s, q, s->scratch);
}

#define KIN_WINDOW 64
/* Mode 1: does the kinetic order pay for q?  Counts the pass; after a
 * window in which it cost more than re-sorting would have, q is re-sorted
 * for the next 64 x 2^k passes (k consecutive failures, at most 2^10), then
 * the kinetic order is tried again. */
static int kin_pays(sl_sim *s, sl_queue *q)
{
    (void)s;
    if (q->kcool > 0) {
        q->kcool--;
        return 0;
    }
    q->kbase += q->len - q->first;
    if (++q->kpass >= KIN_WINDOW) {
        const int fail = q->kwork > q->kbase;
        q->kpass = 0;
        q->kwork = 0;
        q->kbase = 0;
        if (fail) {
            q->kcool = KIN_WINDOW << (q->kfail < 10 ? q->kfail : 10);
            q->kfail++;
            q->kvalid = 0;
            return 0;
        }
        q->kfail = 0;
    }
    return 1;
}

int sl_queue_before_at(const sl_sim *s, sl_queue *q, int32_t a, int32_t b, int64_t t)
{
    if (q->dynamic && q->pol.kind != SL_PYKEYS) {     /* PYKEYS: keyed at t by the reorder */
        q->key[a] = sl_policy_key(s, &q->pol, a, t);
        q->key[b] = sl_policy_key(s, &q->pol, b, t);
    }
    return sl_queue_before(s, q, a, b);
}

/* Bring idx into q's order at t, the tournament aside (queue.c,
 * sl_queue_reorder): a dynamic order by its kinetic order (above), or with
 * sl_debug_kinetic(0) (or classes) re-keyed and re-sorted, O(len + moves);
 * O(len log len) after a policy change. */
void sl_queue_sort(sl_sim *s, sl_queue *q, int64_t t)
{
    if (q->dynamic && s->cls == NULL && (q->pol.kind != SL_EXPR || q->kexpr != 0) && sl_kinetic != 0 && (sl_kinetic >= 2 || kin_pays(s, q))) {
        if (q->dirty) {
            q->kvalid = 0;
            q->dirty = 0;
        }
        if (kin_reorder(s, q, t))
            return;
    }
    q->kvalid = 0;
    q->tvalid = 0;
    q->calm = 0;
    if (q->dirty) {
        sl_queue_compact(s, q);
        for (int32_t i = 0; i < q->len; i++)
            q->key[q->idx[i]] = sl_policy_key(s, &q->pol, q->idx[i], t);
        merge_sort(s, q, s->scratch);
        q->dirty = 0;
    } else if (s->cls == NULL && q->pol.kind == SL_SEXP) {
        rekey_sort(s, q, SL_SEXP, NULL, t);
    } else if (s->cls == NULL && q->pol.kind == SL_LEXP) {
        rekey_sort(s, q, SL_LEXP, NULL, t);
    } else {
        rekey_sort(s, q, q->pol.kind, s->cls, t);
    }
}

/* Started jobs at the front of a queue are skipped for good (q->first);
 * the others stay (skipped by every walk) until they make up half of the
 * queue: then it is compacted.  Amortised O(1) per start. */
void sl_queue_tidy(sl_sim *s, sl_queue *q)
{
    while (q->first < q->len && s->state[q->idx[q->first]] != SL_QUEUED)
        q->first++;
    if (q->len > 2 * s->nqueued + 32)
        sl_queue_compact(s, q);
}

/* Drop the jobs that are no longer queued, keeping the order.  O(len).
 * A kinetic order keeps its certificates: a kept job's pair with the next
 * kept one holds while every pair of the chain between them holds. */
void sl_queue_compact(sl_sim *s, sl_queue *q)
{
    int32_t o = 0, rest = q->first;     /* the jobs from rest on carry no certificate */
    if (q->kvalid) {
        int32_t kl = q->klen > q->first ? q->klen : q->first;
        if (kl > q->len)
            kl = q->len;
        for (int32_t i = q->first; i < kl; i++) {
            if (s->state[q->idx[i]] == SL_QUEUED) {
                q->kexp[o] = q->kexp[i];
                q->idx[o++] = q->idx[i];
            } else if (o > 0 && q->kexp[i] < q->kexp[o - 1]) {
                q->kexp[o - 1] = q->kexp[i];
            }
        }
        if (o > 0)
            q->kexp[o - 1] = KIN_NEVER;
        q->klen = o;
        rest = kl;
    }
    for (int32_t i = rest; i < q->len; i++)
        if (s->state[q->idx[i]] == SL_QUEUED)
            q->idx[o++] = q->idx[i];
    q->len = o;
    q->first = 0;
    q->tvalid = 0;
    q->calm = 0;
    if (q->kvalid)
        kin_tree(q);
}
