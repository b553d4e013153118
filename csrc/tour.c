/*
 * tour.c -- a kinetic tournament for a long time-varying queue order
 * (issue 43: 10^6 jobs queued at once under WFP or a mixed order with a
 * waiting-time term must not cost O(queued) per pass).
 *
 * The kinetic order of policies.c keeps the whole queue sorted, with a
 * certificate per adjacent pair: it pays for every crossing of every pair,
 * which a waiting-time term makes quadratic over a burst.  A pass does not
 * need the whole order: it reads the primary order up to its head, and
 * the backfilling step starts, again and again, the first job in order
 * that can start: q <= free and (q <= extra or estimate <= slack).  So a
 * long queue of a kinetic kind (SEXP, LEXP, WFP, mixed with expansion; no
 * classes, no threshold, no multiple queues, estimates known from the
 * start) is kept instead as a tournament over every job of the
 * simulation, its leaves sorted by (q, estimate): each node holds the first
 * queued job of its subtree in the order at the last refresh, and the
 * certificate of its own comparison (policies.c's sl_kin_cert: the pair
 * keeps its order at every pass time before it).  A pass refreshes only
 * the nodes whose subtree holds an expired certificate or a job that left
 * or joined.  The primary walk takes the root's winner while it fits.  The
 * first job that can start is the least of the winners of a few position
 * ranges: the jobs with q <= min(free, extra) are a prefix of the
 * positions, and for each count q in (extra, free] the jobs with estimate
 * <= slack are a prefix of its run (easy.c, tour_walk).  A pass costs
 * O((refreshed nodes + (1 + counts in (extra, free]) x starts) log n).
 *
 * Exactness: a winner is the least job of its subtree by the same
 * comparison as the re-sort (key at t, then tie_before), because every
 * comparison it rests on is either made at t or certified up to a time
 * after t by a certificate that never claims too much (policies.c, "the
 * kinetic order").  So the jobs come out in exactly the re-sort's order.
 * sl_debug_tour(2) uses the tournament for every dynamic queue of a
 * kinetic kind, however short, so that the conformance cases and the
 * schedule hashes compare it with the re-sort (sl_debug_kinetic(0)).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define TOUR_NEVER INT64_MAX
#define TOUR_EXPIRED INT64_MIN

/* 0: never; 1 (default): queues of at least TOUR_ENTER queued jobs, until
 * fewer than TOUR_LEAVE are; 2: always (tests). */
_Atomic int32_t sl_tour_mode = 1;
#define TOUR_ENTER 2048
#define TOUR_LEAVE 512
#define TOUR_MAX_JOBS (INT32_C(1) << 30)

static _Atomic int64_t tour_count[5];    /* totals of the simulations' counters */

/* Bytes held by q's tournament (0: none). */
int64_t sl_tour_bytes(const sl_sim *s, const sl_queue *q)
{
    const sl_tour *T = q->tour;
    if (T == NULL)
        return 0;
    const size_t n = (size_t)(s->n > 0 ? s->n : 1), nodes = 2 * (size_t)T->L, G = (size_t)T->G;
    return (int64_t)(sizeof *T + nodes * (sizeof *T->win + sizeof *T->ocert + sizeof *T->cert) +
                     n * (sizeof *T->uord + sizeof *T->upos + sizeof *T->uest + sizeof *T->kt) +
                     G * (sizeof *T->gq + sizeof *T->rfirst) + (G + 1) * sizeof *T->glo);
}

void sl_tour_flush(sl_sim *s)
{
    for (int i = 0; i < 5; i++) {
        if (s->cnt.tour[i] != 0)
            atomic_fetch_add(&tour_count[i], s->cnt.tour[i]);
        s->cnt.tour[i] = 0;
    }
}

int64_t sl_debug_tour_count(int32_t which)
{
    return which >= 0 && which < 5 ? atomic_load(&tour_count[which]) : -1;
}

int32_t sl_debug_tour(int32_t mode)
{
    const int32_t old = sl_tour_mode;
    sl_tour_mode = mode < 0 ? 0 : mode > 2 ? 2 : mode;
    return old;
}

int sl_tour_wanted(const sl_sim *s, const sl_queue *q)
{
    if (sl_tour_mode == 0 || sl_kinetic == 0 || s->C.threshold >= 0 || s->mq != NULL || !sl_kin_capable(s, q) ||
        s->C.estimate > SL_EST_ARRAY)
        return 0;
    if (sl_tour_mode == 2)
        return 1;
    return s->nqueued >= (q->tmode ? TOUR_LEAVE : TOUR_ENTER);
}

void sl_tour_free(sl_queue *q)
{
    sl_tour *T = q->tour;
    if (T == NULL)
        return;
    free(T->win);
    free(T->ocert);
    free(T->cert);
    free(T->uord);
    free(T->upos);
    free(T->uest);
    free(T->gq);
    free(T->glo);
    free(T->rfirst);
    free(T->kt);
    free(T);
    q->tour = NULL;
}

/* A copy of src's tournament for dst (a clone, sl_sim_clone): the clone
 * owns its own, in the state the source's is in -- also in the middle of a
 * pass (a dispatch decision pending), where it cannot be rebuilt.  0 if
 * out of memory (dst then has none). */
static void *dup_array(const void *p, size_t count, size_t size)
{
    void *d = malloc(count > 0 ? count * size : 1);
    if (d != NULL && count > 0)
        memcpy(d, p, count * size);
    return d;
}

int sl_tour_clone(sl_queue *dst, const sl_queue *src, int32_t n)
{
    dst->tour = NULL;
    const sl_tour *S = src->tour;
    if (S == NULL)
        return 1;
    sl_tour *T = calloc(1, sizeof *T);
    if (T == NULL)
        return 0;
    *T = *S;
    dst->tour = T;
    const size_t nj = (size_t)(n > 0 ? n : 1), nodes = 2 * (size_t)S->L, G = (size_t)S->G;
    T->win = dup_array(S->win, nodes, sizeof *T->win);
    T->ocert = dup_array(S->ocert, nodes, sizeof *T->ocert);
    T->cert = dup_array(S->cert, nodes, sizeof *T->cert);
    T->uord = dup_array(S->uord, nj, sizeof *T->uord);
    T->upos = dup_array(S->upos, nj, sizeof *T->upos);
    T->uest = dup_array(S->uest, nj, sizeof *T->uest);
    T->kt = dup_array(S->kt, nj, sizeof *T->kt);
    T->gq = dup_array(S->gq, G, sizeof *T->gq);
    T->glo = dup_array(S->glo, G + 1, sizeof *T->glo);
    T->rfirst = dup_array(S->rfirst, G, sizeof *T->rfirst);
    if (T->win == NULL || T->ocert == NULL || T->cert == NULL || T->uord == NULL || T->upos == NULL ||
        T->uest == NULL || T->kt == NULL || T->gq == NULL || T->glo == NULL || T->rfirst == NULL) {
        sl_tour_free(dst);
        return 0;
    }
    return 1;
}

/* Key of job j at t, computed once per time. */
static inline double key_at(const sl_sim *s, sl_queue *q, int32_t j, int64_t t)
{
    sl_tour_key *k = &q->tour->kt[j];
    if (k->t != t) {
        k->key = sl_policy_key(s, &q->pol, j, t);
        k->t = t;
    }
    return k->key;
}

/* The tie rule out of line: keys are rarely equal here, and inlined into
 * the refresh it cost the refresh 2% more instructions (callgrind, WFP
 * burst). */
static __attribute__((noinline)) int tie_before(const sl_sim *s, int32_t a, int32_t b)
{
    return sl_tie_before(s, a, b);
}

static inline int less_at(const sl_sim *s, sl_queue *q, int32_t a, int32_t b, int64_t t)
{
    const double ka = key_at(s, q, a, t), kb = key_at(s, q, b, t);
    return ka < kb || (ka == kb && tie_before(s, a, b));
}

/* Leaf p and its ancestors to be refreshed. */
static inline void expire(sl_tour *T, int32_t p)
{
    for (int32_t v = T->L + p; v >= 1 && T->cert[v] != TOUR_EXPIRED; v /= 2)
        T->cert[v] = TOUR_EXPIRED;
}

/* The positions: every job by (q, estimate, index), a merge sort. */
static int universe(const sl_sim *s, sl_tour *T)
{
    const int32_t n = s->n;
    int32_t *a = T->uord, *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    if (b == NULL)
        return 0;
    for (int32_t j = 0; j < n; j++)
        a[j] = j;
    for (int32_t width = 1; width < n; width *= 2) {
        for (int32_t lo = 0; lo < n; lo += 2 * width) {
            const int32_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int32_t i = lo, k = mid, o = lo;
            while (i < mid && k < hi) {
                const int32_t x = a[i], y = a[k];
                const int y_first = s->J.procs[y] != s->J.procs[x] ? s->J.procs[y] < s->J.procs[x]
                                  : s->est[y] != s->est[x] ? s->est[y] < s->est[x] : y < x;
                b[o++] = y_first ? a[k++] : a[i++];
            }
            while (i < mid) b[o++] = a[i++];
            while (k < hi) b[o++] = a[k++];
        }
        int32_t *sw = a; a = b; b = sw;
    }
    if (a != T->uord) {
        memcpy(T->uord, a, (size_t)n * sizeof *a);
        b = a;
    }
    free(b);
    int32_t G = 0;
    for (int32_t p = 0; p < n; p++) {
        T->upos[T->uord[p]] = p;
        T->uest[p] = s->est[T->uord[p]];
        G += p == 0 || s->J.procs[T->uord[p]] != s->J.procs[T->uord[p - 1]];
    }
    T->gq = malloc((size_t)(G > 0 ? G : 1) * sizeof *T->gq);
    T->glo = malloc((size_t)(G + 1) * sizeof *T->glo);
    T->rfirst = malloc((size_t)(G > 0 ? G : 1) * sizeof *T->rfirst);
    if (T->gq == NULL || T->glo == NULL || T->rfirst == NULL)
        return 0;
    G = 0;
    for (int32_t p = 0; p < n; p++) {
        if (p == 0 || s->J.procs[T->uord[p]] != s->J.procs[T->uord[p - 1]]) {
            T->gq[G] = s->J.procs[T->uord[p]];
            T->glo[G++] = p;
        }
    }
    T->glo[G] = n;
    T->G = G;
    return 1;
}

/* Allocate the tournament (once per simulation) and expire every node.
 * 0 if out of memory. */
static int build(sl_sim *s, sl_queue *q)
{
    sl_tour *T = q->tour;
    s->cnt.tour[3]++;
    if (T == NULL) {
        /* The limit of the kinetic list (policies.c, kin_alloc): below
         * 2^30 jobs, L <= 2^30 and every node index (< 2L, and L + hi in
         * sl_tour_range_min) fits an int32_t; sizes are computed in size_t.
         * Beyond it, no tournament: the caller keeps the queue sorted. */
        if (s->n >= TOUR_MAX_JOBS)
            return 0;
        T = calloc(1, sizeof *T);
        if (T == NULL)
            return 0;
        q->tour = T;
        const size_t n = (size_t)(s->n > 0 ? s->n : 1);
        size_t L = 1;
        while (L < n)
            L *= 2;
        T->L = (int32_t)L;
        T->uord = malloc(n * sizeof *T->uord);
        T->upos = malloc(n * sizeof *T->upos);
        T->uest = malloc(n * sizeof *T->uest);
        T->kt = malloc(n * sizeof *T->kt);
        T->win = malloc(2 * L * sizeof *T->win);
        T->ocert = malloc(2 * L * sizeof *T->ocert);
        T->cert = malloc(2 * L * sizeof *T->cert);
        if (T->uord == NULL || T->upos == NULL || T->uest == NULL || T->kt == NULL || T->win == NULL || T->ocert == NULL ||
            T->cert == NULL || !universe(s, T)) {
            sl_tour_free(q);
            return 0;
        }
    }
    for (int32_t j = 0; j < s->n; j++)
        T->kt[j].t = TOUR_EXPIRED;
    for (int32_t g = 0; g < T->G; g++)
        T->rfirst[g] = T->glo[g];
    const size_t nodes = 2 * (size_t)T->L;
    for (size_t v = 0; v < nodes; v++) {
        T->win[v] = -1;
        T->ocert[v] = TOUR_EXPIRED;
        T->cert[v] = TOUR_EXPIRED;
    }
    T->valid = 1;
    return 1;
}

/* Node v brought to t (its cert <= t): the expired nodes of its subtree
 * recomputed, children first. */
static void refresh(sl_sim *s, sl_queue *q, sl_tour *T, int32_t v, int64_t t)
{
    s->cnt.tour[0]++;
    if (v >= T->L) {
        const int32_t p = v - T->L;
        T->win[v] = p < s->n && s->state[T->uord[p]] == SL_QUEUED ? T->uord[p] : -1;
        T->ocert[v] = TOUR_NEVER;
        T->cert[v] = TOUR_NEVER;
        return;
    }
    const int32_t a = 2 * v, b = a + 1;
    int changed = T->ocert[v] <= t;
    if (T->cert[a] <= t) {
        const int32_t old = T->win[a];
        refresh(s, q, T, a, t);
        changed |= T->win[a] != old;
    }
    if (T->cert[b] <= t) {
        const int32_t old = T->win[b];
        refresh(s, q, T, b, t);
        changed |= T->win[b] != old;
    }
    if (changed) {
        const int32_t wa = T->win[a], wb = T->win[b];
        if (wa < 0 || wb < 0) {
            T->win[v] = wa < 0 ? wb : wa;
            T->ocert[v] = TOUR_NEVER;
        } else {
            s->cnt.tour[1]++;
            if (less_at(s, q, wa, wb, t)) {
                T->win[v] = wa;
                T->ocert[v] = sl_kin_cert(s, q, wa, wb, t);
            } else {
                T->win[v] = wb;
                T->ocert[v] = sl_kin_cert(s, q, wb, wa, t);
            }
        }
    }
    int64_t c = T->ocert[v];
    if (T->cert[a] < c)
        c = T->cert[a];
    if (T->cert[b] < c)
        c = T->cert[b];
    T->cert[v] = c;
}

void sl_tour_refresh(sl_sim *s, sl_queue *q, int64_t t)
{
    sl_tour *T = q->tour;
    if (T->cert[1] <= t)
        refresh(s, q, T, 1, t);
}

/* The first queued job of q's order at t (-1: none), its tournament
 * refreshed. */
int32_t sl_tour_top(sl_sim *s, sl_queue *q, int64_t t)
{
    sl_tour_refresh(s, q, t);
    return q->tour->win[1];
}

/* Bring q's tournament to t: built at the first pass (or after a clone
 * or a policy change), then refreshed.  0 if out of memory (the caller
 * falls back to the sorted queue). */
int sl_tour_reorder(sl_sim *s, sl_queue *q, int64_t t)
{
    if (!q->tmode || q->tour == NULL || !q->tour->valid) {
        if (!build(s, q)) {
            q->tmode = 0;
            return 0;
        }
        q->tmode = 1;
    }
    sl_tour_refresh(s, q, t);
    return 1;
}

/* Job j queued: its leaf and path to be refreshed, its run's first
 * queued position moved back to it if need be. */
void sl_tour_pushed(sl_queue *q, int32_t j)
{
    sl_tour *T = q->tour;
    if (!q->tmode || T == NULL || !T->valid)
        return;
    const int32_t p = T->upos[j];
    expire(T, p);
    int32_t lo = 0, hi = T->G;      /* the run of p: the last g with glo[g] <= p */
    while (hi - lo > 1) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (T->glo[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    if (p < T->rfirst[lo])
        T->rfirst[lo] = p;
}

/* Job j started: its leaf and path in each tournament to be refreshed. */
void sl_tour_started(sl_sim *s, int32_t j)
{
    sl_queue *qs[2] = {&s->pq, &s->bq};
    for (int k = 0; k < 2; k++) {
        sl_tour *T = qs[k]->tour;
        if (qs[k]->tmode && T != NULL && T->valid)
            expire(T, T->upos[j]);
    }
}

/* The first queued job in order among positions [lo, hi) of a refreshed
 * tournament, if it goes before best (-1: none); else best.  Bottom up
 * over the O(log) nodes that cover the range. */
int32_t sl_tour_range_min(const sl_sim *s, sl_queue *q, int32_t lo, int32_t hi, int64_t t, int32_t best)
{
    const sl_tour *T = q->tour;
    ((sl_sim *)s)->cnt.tour[4]++;
    for (int32_t l = lo + T->L, r = hi + T->L; l < r; l /= 2, r /= 2) {
        if (l & 1) {
            const int32_t w = T->win[l++];
            if (w >= 0 && w != best && (best < 0 || less_at(s, q, w, best, t)))
                best = w;
        }
        if (r & 1) {
            const int32_t w = T->win[--r];
            if (w >= 0 && w != best && (best < 0 || less_at(s, q, w, best, t)))
                best = w;
        }
    }
    return best;
}

/* End of the positions of run g whose estimate is <= slack. */
static int32_t est_end(const sl_tour *T, int32_t g, int64_t slack)
{
    int32_t lo = T->glo[g], hi = T->glo[g + 1];
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (T->uest[mid] <= slack)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first job in order, if it goes before best (-1: none), among the
 * jobs of runs [g0, g1) whose estimate is <= slack; else best.  A run's
 * queued jobs whose estimate fits are a prefix of its positions, and it
 * holds one exactly when its first queued job fits (rfirst, moved on past
 * the jobs started since): only such runs are asked. */
int32_t sl_tour_fit(const sl_sim *s, sl_queue *q, int32_t g0, int32_t g1, int64_t slack, int64_t t, int32_t best)
{
    sl_tour *T = q->tour;
    for (int32_t g = g0; g < g1; g++) {
        int32_t p = T->rfirst[g];
        while (p < T->glo[g + 1] && s->state[T->uord[p]] != SL_QUEUED)
            p++;
        T->rfirst[g] = p;
        if (p < T->glo[g + 1] && T->uest[p] <= slack)
            best = sl_tour_range_min(s, q, p, est_end(T, g, slack), t, best);
    }
    return best;
}
