/*
 * policies.c -- priority keys of the queue policies and the ordered queues.
 *
 * A queue (sl_queue) holds the indices of queued jobs in one policy's order.
 * Static keys (everything but SEXP/LEXP/WFP and a mixed policy with an
 * expansion weight) are computed once, when the job is queued; dynamic keys
 * are recomputed at every pass.  Orders are kept by an adaptive insertion
 * sort: between two passes only new jobs and key crossings move, so a pass
 * costs O(len + moves), in one sweep that also drops started jobs and
 * computes the keys (rekey_sort).  A full rebuild (policy change) uses a
 * merge sort, O(len log len).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const NAMES[SL_NPOLICIES] = {
    "FCFS", "LCFS", "SPF", "LPF", "SQF", "LQF", "SAF", "LAF",
    "SRF", "LRF", "SEXP", "LEXP", "WFP", "MIXED", "SJBF"};

int sl_policy_check(const sl_policy *p, char *err, size_t errlen, const char *which)
{
    if (p->kind < 0 || p->kind >= SL_NPOLICIES) {
        snprintf(err, errlen, "%s policy: unknown kind %d", which, (int)p->kind);
        return SL_EINVAL;
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
    case SL_SEXP: case SL_LEXP: case SL_WFP:
        return 1;
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
    if (a->kind == SL_MIXED)
        for (int i = 0; i < SL_NFEATURES; i++)
            if (a->weights[i] != b->weights[i] || a->scales[i] != b->scales[i])
                return 0;
    return 1;
}

/* Is every key of p a finite double, whatever the (valid) job and time?
 * Then before() is a strict total order, and every way of sorting a set of
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
 * is part of the contract (csrc/SEMANTICS.md). */
double sl_policy_key(const sl_sim *s, const sl_policy *p, int32_t j, int64_t t)
{
    const int64_t r = s->J.submit[j], req = s->J.req[j];
    const double q = (double)s->J.procs[j];
    const int64_t pp = req > 1 ? req : 1;
    const int64_t wait = t - r;
    switch (p->kind) {
    case SL_FCFS: return (double)r;
    case SL_LCFS: return -(double)r;
    case SL_SPF: return (double)req;
    case SL_LPF: return -(double)req;
    case SL_SQF: return q;
    case SL_LQF: return -q;
    case SL_SAF: return (double)req * q;
    case SL_LAF: return -((double)req * q);
    case SL_SRF: return (double)req / q;
    case SL_LRF: return -((double)req / q);
    case SL_SEXP: return (double)(wait + pp) / (double)pp;
    case SL_LEXP: return -((double)(wait + pp) / (double)pp);
    case SL_WFP: {
        const double w = (double)wait / (double)pp;
        return -(w * w * w * q);
    }
    case SL_SJBF: return (double)s->est[j];
    case SL_MIXED: {
        double f[SL_NFEATURES];
        f[SL_F_PROCS] = q;
        f[SL_F_REQ] = (double)req;
        f[SL_F_SUBMIT] = (double)(r - s->r0);
        f[SL_F_RATIO] = (double)req / q;
        f[SL_F_EXP] = p->weights[SL_F_EXP] != 0.0 ? (double)(wait + pp) / (double)pp : 0.0;
        f[SL_F_AREA] = (double)req * q;
        double acc = 0.0;
        for (int i = 0; i < SL_NFEATURES; i++)
            acc = acc + p->weights[i] * (f[i] / p->scales[i]);
        return acc;
    }
    default:
        return 0.0; /* unreachable: kinds are checked on entry */
    }
}

/* Strict order: small jobs first (with classes; not in the FCFS queue,
 * whose over-threshold prefix ignores classes), then key, then submit time,
 * then id, then input order. */
static inline int before(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b)
{
    const double *key = q->key;
    if (s->cls != NULL && q != &s->fq && s->cls[a] != s->cls[b]) return s->cls[a] > s->cls[b];
    if (key[a] != key[b]) return key[a] < key[b];
    if (s->J.submit[a] != s->J.submit[b]) return s->J.submit[a] < s->J.submit[b];
    if (s->J.id[a] != s->J.id[b]) return s->J.id[a] < s->J.id[b];
    return a < b;
}

int sl_queue_before(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b)
{
    return before(s, q, a, b);
}

/* Queue job j.  A static order is kept sorted at all times (binary search
 * and memmove: O(log len + moves)); a dynamic or dirty one is appended to
 * and sorted at the next pass. */
void sl_queue_push(sl_sim *s, sl_queue *q, int32_t j, int64_t t)
{
    q->tvalid = 0;
    q->calm = 0;
    if (q->dynamic || q->dirty) {
        q->idx[q->len++] = j;
        return;
    }
    q->key[j] = q->pol.kind == SL_FCFS ? (double)s->J.submit[j] : sl_policy_key(s, &q->pol, j, t);
    /* With a strict total order, a job that goes after the last entry goes
     * at the end (always so in FCFS order, submissions being in order). */
    if (q->len > q->first && before(s, q, q->idx[q->len - 1], j)) {
        q->idx[q->len++] = j;
        return;
    }
    int32_t lo = q->first, hi = q->len;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (before(s, q, q->idx[mid], j))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(q->idx + lo + 1, q->idx + lo, (size_t)(q->len - lo) * sizeof *q->idx);
    q->idx[lo] = j;
    q->len++;
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
                dst[o++] = before(s, q, src[k], src[i]) ? src[k++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (k < hi) dst[o++] = src[k++];
        }
        int32_t *sw = src; src = dst; dst = sw;
    }
    if (src != q->idx)
        memcpy(q->idx, src, (size_t)n * sizeof *src);
}

/* Expansion factor x = (wait + p~') / p~' of job j at t (SEXP, LEXP). */
static inline double expansion(const sl_sim *s, int32_t j, int64_t t)
{
    const int64_t req = s->J.req[j];
    const int64_t pp = req > 1 ? req : 1;
    return (double)(t - s->J.submit[j] + pp) / (double)pp;
}

/* The key of a dynamic order, with the policy's kind a constant where
 * this is inlined (SEXP and LEXP without the switch; the same doubles as
 * sl_policy_key). */
static inline __attribute__((always_inline)) double dynamic_key(const sl_sim *s, const sl_queue *q, int32_t kind,
                                                                int32_t j, int64_t t)
{
    return kind == SL_SEXP ? expansion(s, j, t) : kind == SL_LEXP ? -expansion(s, j, t) : sl_policy_key(s, &q->pol, j, t);
}

/* before() for a queue other than fq once the keys differ in neither
 * class nor key: submit time, id, input order. */
static inline int tie_before(const sl_sim *s, int32_t a, int32_t b)
{
    if (s->J.submit[a] != s->J.submit[b]) return s->J.submit[a] < s->J.submit[b];
    if (s->J.id[a] != s->J.id[b]) return s->J.id[a] < s->J.id[b];
    return a < b;
}

/* A dynamic queue (never fq) re-keyed at t and re-sorted, in one sweep:
 * each queued entry in turn (started ones dropped, as sl_queue_compact
 * does) gets its key and is inserted into the sorted prefix (an insertion
 * sort: between two passes only key crossings and new jobs move).  The
 * prefix's keys are kept by position (s->skey) so that a comparison reads
 * no index.  x goes before y exactly as before() says: by class (cls, a
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
                                  : kx < ky || (kx == ky && tie_before(s, x, y));
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

/* Bring q into its order at time t (sl_queue_order: a static order is
 * always in order): O(len + moves) for a dynamic one; O(len log len) after
 * a policy change. */
void sl_queue_reorder(sl_sim *s, sl_queue *q, int64_t t)
{
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

void sl_queue_free(sl_queue *q)
{
    free(q->tq);
    free(q->te);
}

/* Drop the jobs that are no longer queued, keeping the order.  O(len). */
void sl_queue_compact(sl_sim *s, sl_queue *q)
{
    int32_t o = 0;
    for (int32_t i = q->first; i < q->len; i++)
        if (s->state[q->idx[i]] == SL_QUEUED)
            q->idx[o++] = q->idx[i];
    q->len = o;
    q->first = 0;
    q->tvalid = 0;
    q->calm = 0;
}
