/*
 * multi.c -- many static mixed policies of one workload simulated together
 * (sl_multi_run; issue 33 item 1; csrc/SEMANTICS.md, "Many mixed policies
 * at once").
 *
 * A group is a set of weight vectors that have taken every scheduling
 * decision alike so far: they share one simulation (one sl_sim, its queues
 * kept in FCFS order).  At each event time the completions and submissions
 * are applied by the engine (sl_engine_events); then the pass at t is
 * *planned* here for the whole group, EASY's steps as easy.c takes them
 * (csrc/SEMANTICS.md, "One pass"): the over-threshold jobs in FCFS order,
 * then the jobs in P_R order while they fit (the first one that does not is
 * the head), the reservation, then the backfilling walk in P_B order (the
 * vector's own order, or FCFS).  A decision that depends on the order (which
 * queued job comes first; the order of the jobs that could be backfilled
 * when not all of them fit) is taken for the whole group when it is
 * *certified*: an interval bound over the box of the group's weights shows
 * that every vector of the group orders those jobs alike (with a margin
 * 10^6 times the rounding error of a key, so that the floating-point keys
 * agree too).  Otherwise each vector of the group decides with its own keys
 * (the very doubles sl_policy_key computes, and before()'s tie-break), and
 * the group's vectors are split by their decision; the plan goes on in each
 * part.  Parts whose passes start the same jobs with the same flags stay one
 * group (their simulations would be identical: the order of a static policy
 * is a function of the queued set); the others each get a clone of the
 * simulation (sl_sim_clone) with their own starts applied.  A group's
 * simulation ends when it has no event left: its schedule is handed to the
 * caller's function with the group's vectors, and it is freed.  Groups are
 * run depth first, so at most one group per pending branch is alive.  A
 * group of at most sl_multi_solo vectors (8) finishes vector by vector with
 * the engine's own pass (sl_sim_set_policy, then sl_sim_run).
 *
 * Exact: every vector gets the schedule sl_sim_run computes for it alone
 * (tests/test_multi.py and bench/core_identity.py hash both).  Needs static
 * mixed policies (expansion weight 0), P_B either the vector's P_R or FCFS,
 * no classes, no correction, an estimate known at submission without a
 * callback (requested, actual, array, easy++).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exprops.h"
#include "internal.h"

typedef struct mstart {
    int32_t j;
    uint8_t flags;
} mstart;

typedef struct mleaf {
    int32_t lo, hi;     /* range of perm */
    int32_t off, cnt;   /* its starts in the pool */
    int32_t cls;
} mleaf;

typedef struct mgroup {
    sl_sim *s;
    int64_t *start, *end;
    uint8_t *flags;
    int32_t lo, hi;
} mgroup;

typedef struct mbox {
    double lo[SL_NFEATURES], hi[SL_NFEATURES], mx[SL_NFEATURES];
} mbox;

typedef struct mctx {
    const sl_jobs *J;
    int32_t n, nvec;
    const double *W;        /* nvec x 6 weights */
    double *G;              /* n x 6: f_i / s_i, as sl_policy_key divides */
    int same;               /* P_B = the vector's P_R (else FCFS) */
    int64_t threshold;
    int32_t threshold_backfill;
    int32_t m;
    int32_t *perm;          /* vectors; a group is a range */
    int32_t *tmp;           /* nvec scratch */
    int64_t *lab;           /* nvec scratch: a label per position */
    uint8_t *mark;          /* n: started in the plan under way */
    int32_t *Q;             /* n: queued jobs in FCFS order */
    int32_t nQ;
    int32_t *N;             /* n scratch */
    double *klo, *khi;      /* n scratch */
    mstart *st;             /* n: the plan's starts so far */
    int32_t nst;
    mleaf *leaves;
    int32_t nleaves, capleaves;
    mstart *pool;
    int32_t npool, cappool;
    int32_t *c0;            /* n scratch: backfilling candidates */
    int32_t *c1;            /* n scratch */
    uint8_t *outs;          /* distinct greedy outcomes (fallback) */
    int64_t capouts;
    int64_t t;
    sl_multi_stats *stats;
    int oom;
} mctx;

/* ---------------------------------------------------------------- keys -- */

/* The key of job j under vector v: sl_policy_key's doubles exactly (the
 * same products and sums in the same order; the expansion feature is 0). */
static inline double vkey(const mctx *M, int32_t v, int32_t j)
{
    const double *w = M->W + (size_t)v * SL_NFEATURES, *g = M->G + (size_t)j * SL_NFEATURES;
    double acc = 0.0;
    for (int i = 0; i < SL_NFEATURES; i++)
        acc = acc + w[i] * g[i];
    return acc;
}

static inline int tie_before(const sl_jobs *J, int32_t a, int32_t b)
{
    if (J->submit[a] != J->submit[b]) return J->submit[a] < J->submit[b];
    if (J->id[a] != J->id[b]) return J->id[a] < J->id[b];
    return a < b;
}

/* sl_queue_before (internal.h) under vector v (no classes). */
static inline int vbefore(const mctx *M, int32_t v, int32_t a, int32_t b)
{
    const double ka = vkey(M, v, a), kb = vkey(M, v, b);
    if (ka != kb) return ka < kb;
    return tie_before(M->J, a, b);
}

static void box_of(const mctx *M, int32_t lo, int32_t hi, mbox *B)
{
    for (int i = 0; i < SL_NFEATURES; i++) {
        B->lo[i] = INFINITY;
        B->hi[i] = -INFINITY;
    }
    for (int32_t p = lo; p < hi; p++) {
        const double *w = M->W + (size_t)M->perm[p] * SL_NFEATURES;
        for (int i = 0; i < SL_NFEATURES; i++) {
            if (w[i] < B->lo[i]) B->lo[i] = w[i];
            if (w[i] > B->hi[i]) B->hi[i] = w[i];
        }
    }
    for (int i = 0; i < SL_NFEATURES; i++)
        B->mx[i] = fabs(B->lo[i]) > fabs(B->hi[i]) ? fabs(B->lo[i]) : fabs(B->hi[i]);
}

/* The margin: |a key's rounding error| <= 7u sum |w_i g_i| (six products,
 * six sums); 1e-9 sum max|w_i| |g_i| covers it and the bound's own
 * rounding many times over. */
#define MARGIN 1e-9

/* Interval of job j's key over the box, widened by the margin: every
 * vector of the box has its floating-point key inside. */
static inline void key_range(const mctx *M, const mbox *B, int32_t j, double *lo, double *hi)
{
    const double *g = M->G + (size_t)j * SL_NFEATURES;
    double a = 0.0, b = 0.0, e = 0.0;
    for (int i = 0; i < SL_NFEATURES; i++) {
        const double x = B->lo[i] * g[i], y = B->hi[i] * g[i];
        a += x < y ? x : y;
        b += x < y ? y : x;
        e += B->mx[i] * fabs(g[i]);
    }
    *lo = a - MARGIN * e;
    *hi = b + MARGIN * e;
}

/* 1: every vector of the box puts a before b; -1: b before a; 0: unknown. */
static inline int pair_order(const mctx *M, const mbox *B, int32_t a, int32_t b)
{
    const double *ga = M->G + (size_t)a * SL_NFEATURES, *gb = M->G + (size_t)b * SL_NFEATURES;
    double lo = 0.0, hi = 0.0, e = 0.0;
    for (int i = 0; i < SL_NFEATURES; i++) {
        const double c = ga[i] - gb[i];
        const double x = B->lo[i] * c, y = B->hi[i] * c;
        lo += x < y ? x : y;
        hi += x < y ? y : x;
        e += B->mx[i] * (fabs(ga[i]) + fabs(gb[i]));
    }
    e *= MARGIN;
    if (hi < -e) return 1;
    if (lo > e) return -1;
    return 0;
}

/* ----------------------------------------------------------- the plan -- */

static inline int over(const mctx *M, int32_t j)
{
    return M->threshold >= 0 && M->t - M->J->submit[j] > M->threshold;
}

static void push_start(mctx *M, int32_t j, uint8_t flags)
{
    M->st[M->nst].j = j;
    M->st[M->nst].flags = flags;
    M->nst++;
    M->mark[j] = 1;
}

/* Undo the starts planned after position k. */
static void undo_to(mctx *M, int32_t k)
{
    while (M->nst > k)
        M->mark[M->st[--M->nst].j] = 0;
}

static void leaf(mctx *M, int32_t lo, int32_t hi)
{
    if (M->nleaves == M->capleaves) {
        const int32_t cap = M->capleaves ? 2 * M->capleaves : 64;
        mleaf *p = realloc(M->leaves, (size_t)cap * sizeof *p);
        if (p == NULL) { M->oom = 1; return; }
        M->leaves = p;
        M->capleaves = cap;
    }
    while (M->npool + M->nst > M->cappool) {
        const int32_t cap = M->cappool ? 2 * M->cappool : 1024;
        mstart *p = realloc(M->pool, (size_t)cap * sizeof *p);
        if (p == NULL) { M->oom = 1; return; }
        M->pool = p;
        M->cappool = cap;
    }
    mleaf *L = &M->leaves[M->nleaves++];
    L->lo = lo;
    L->hi = hi;
    L->off = M->npool;
    L->cnt = M->nst;
    L->cls = -1;
    memcpy(M->pool + M->npool, M->st, (size_t)M->nst * sizeof *M->st);
    M->npool += M->nst;
}

/* An index with a 64-bit key, sorted by key, then index: the vectors by
 * their decision label, the started jobs by their estimated end. */
typedef struct keyed {
    int64_t key;
    int32_t i;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Sort perm[lo, hi) by the labels M->lab[lo, hi) (then by vector), the
 * labels sorted alongside; 0 if out of memory. */
static int sort_by_label(mctx *M, int32_t lo, int32_t hi)
{
    keyed *a = malloc((size_t)(hi - lo) * sizeof *a);
    if (a == NULL) { M->oom = 1; return 0; }
    for (int32_t p = lo; p < hi; p++) {
        a[p - lo].key = M->lab[p];
        a[p - lo].i = M->perm[p];
    }
    qsort(a, (size_t)(hi - lo), sizeof *a, cmp_keyed);
    for (int32_t p = lo; p < hi; p++) {
        M->lab[p] = a[p - lo].key;
        M->perm[p] = a[p - lo].i;
    }
    free(a);
    return 1;
}

static void plan_c(mctx *M, const sl_sim *s, int32_t lo, int32_t hi, const mbox *B, int64_t nfree, int32_t head);

/* Step 2 for the vectors perm[lo, hi) (box B): start the jobs in P_R order
 * while they fit; forced >= 0: every vector's first job is known. */
static void plan_b(mctx *M, const sl_sim *s, int32_t lo, int32_t hi, const mbox *B, int64_t nfree, int32_t forced)
{
    const sl_jobs *J = M->J;
    for (;;) {
        int32_t x = forced;
        forced = -1;
        if (x < 0) {
            int32_t nN = 0;
            double minhi = INFINITY;
            for (int32_t i = 0; i < M->nQ; i++) {
                const int32_t j = M->Q[i];
                if (M->mark[j] || over(M, j))
                    continue;
                key_range(M, B, j, &M->klo[j], &M->khi[j]);
                if (M->khi[j] < minhi)
                    minhi = M->khi[j];
                M->N[nN++] = j;
            }
            if (nN == 0) {
                leaf(M, lo, hi);        /* every queued job started: no head */
                return;
            }
            /* The candidates to be first: a job whose least key is above
             * another's greatest is first for no vector of the box. */
            int32_t nc = 0;
            for (int32_t i = 0; i < nN; i++)
                if (!(M->klo[M->N[i]] > minhi))
                    M->N[nc++] = M->N[i];
            if (nc == 1) {
                x = M->N[0];
            } else {
                const int32_t v0 = M->perm[lo];
                int32_t b = M->N[0];
                for (int32_t i = 1; i < nc; i++)
                    if (vbefore(M, v0, M->N[i], b))
                        b = M->N[i];
                int ok = 1;
                for (int32_t i = 0; i < nc && ok; i++)
                    if (M->N[i] != b && pair_order(M, B, b, M->N[i]) != 1)
                        ok = 0;
                if (ok) {
                    x = b;
                } else {
                    /* Each vector's own first job; the vectors split by it. */
                    M->stats->fallbacks += hi - lo;
                    for (int32_t p = lo; p < hi; p++) {
                        const int32_t v = M->perm[p];
                        int32_t f = M->N[0];
                        for (int32_t i = 1; i < nc; i++)
                            if (vbefore(M, v, M->N[i], f))
                                f = M->N[i];
                        M->lab[p] = f;
                    }
                    if (!sort_by_label(M, lo, hi))
                        return;
                    const int32_t k0 = M->nst;
                    for (int32_t p = lo; p < hi && !M->oom;) {
                        int32_t q = p + 1;
                        while (q < hi && M->lab[q] == M->lab[p])
                            q++;
                        const int32_t f = (int32_t)M->lab[p];
                        mbox Bp;
                        box_of(M, p, q, &Bp);
                        plan_b(M, s, p, q, &Bp, nfree, f);
                        undo_to(M, k0);
                        p = q;
                    }
                    return;
                }
            }
        }
        if (J->procs[x] > nfree) {
            plan_c(M, s, lo, hi, B, nfree, x);
            return;
        }
        push_start(M, x, 0);
        nfree -= J->procs[x];
    }
}

/* easy.c's reserve() on the state the plan leaves: the running jobs of s
 * and the jobs the plan started, by estimated end (then index). */
static void reserve_plan(mctx *M, const sl_sim *s, int32_t head, int64_t nfree, int64_t *shadow, int64_t *extra)
{
    const int64_t t = M->t;
    keyed small[64];
    keyed *P = M->nst <= 64 ? small : malloc((size_t)M->nst * sizeof *P);
    if (P == NULL) { M->oom = 1; *shadow = t; *extra = 0; return; }
    for (int32_t i = 0; i < M->nst; i++) {
        P[i].i = M->st[i].j;
        P[i].key = t + sl_est(s, M->st[i].j);
    }
    qsort(P, (size_t)M->nst, sizeof *P, cmp_keyed);
    int64_t avail = nfree;
    const int64_t need = M->J->procs[head];
    int32_t k = 0, i = 0;
    int64_t when = t;
    /* The next running job in (estimated end, index) order. */
#define NEXT_E() (k < s->nrun && (i >= M->nst || s->rend[s->run[k]] < P[i].key || \
                  (s->rend[s->run[k]] == P[i].key && s->run[k] < P[i].i)))
    while ((k < s->nrun || i < M->nst) && avail < need) {
        int32_t j;
        int64_t e;
        if (NEXT_E()) { j = s->run[k++]; e = s->rend[j]; }
        else { j = P[i].i; e = P[i].key; i++; }
        when = e > t ? e : t;
        avail += M->J->procs[j];
    }
    while (k < s->nrun || i < M->nst) {
        int32_t j;
        int64_t e;
        const int fromrun = NEXT_E();
        if (fromrun) { j = s->run[k]; e = s->rend[j]; }
        else { j = P[i].i; e = P[i].key; }
        if ((e > t ? e : t) != when)
            break;
        avail += M->J->procs[j];
        if (fromrun) k++; else i++;
    }
#undef NEXT_E
    if (P != small)
        free(P);
    *shadow = when;
    *extra = avail - need;
}

/* try_backfill of easy.c on the plan: 1 if j starts. */
static inline int try_bf(mctx *M, const sl_sim *s, int32_t j, int64_t *nfree, int64_t shadow, int64_t *extra,
                         int record)
{
    const int64_t q = M->J->procs[j];
    if (q > *nfree)
        return 0;
    if (M->t + sl_est(s, j) <= shadow) {
    } else if (q <= *extra) {
        *extra -= q;
    } else {
        return 0;
    }
    if (record)
        push_start(M, j, (uint8_t)(SL_BACKFILLED | (over(M, j) ? SL_FORCED : 0)));
    *nfree -= q;
    return 1;
}

/* Step 4: the backfilling walk, for the vectors perm[lo, hi). */
static void plan_c(mctx *M, const sl_sim *s, int32_t lo, int32_t hi, const mbox *B, int64_t nfree, int32_t head)
{
    if (nfree <= 0) {
        leaf(M, lo, hi);
        return;
    }
    int64_t shadow, extra;
    reserve_plan(M, s, head, nfree, &shadow, &extra);
    const sl_jobs *J = M->J;
    const int tb = M->threshold_backfill && M->threshold >= 0;
    if (tb) {
        /* Over-threshold jobs first, in FCFS order. */
        for (int32_t i = 0; i < M->nQ && nfree > 0; i++) {
            const int32_t j = M->Q[i];
            if (!over(M, j))
                break;
            if (j != head && !M->mark[j])
                try_bf(M, s, j, &nfree, shadow, &extra, 1);
        }
    }
    /* The jobs left that could start now (a job that cannot, fails at every
     * later try of the walk: free and extra only fall). */
    int32_t nc = 0;
    int64_t sumq = 0, sumx = 0;
    for (int32_t i = 0; i < M->nQ; i++) {
        const int32_t j = M->Q[i];
        if (j == head || M->mark[j] || (tb && over(M, j)))
            continue;
        const int64_t q = J->procs[j];
        const int ends_by = M->t + sl_est(s, j) <= shadow;
        if (q > nfree || (!ends_by && q > extra))
            continue;
        M->c0[nc++] = j;
        sumq += q;
        if (!ends_by)
            sumx += q;
    }
    if (!M->same || nc <= 1 || (sumq <= nfree && sumx <= extra)) {
        /* FCFS order, or an outcome no order changes (one candidate; all of
         * them fit together). */
        for (int32_t i = 0; i < nc && nfree > 0; i++)
            try_bf(M, s, M->c0[i], &nfree, shadow, &extra, 1);
        leaf(M, lo, hi);
        return;
    }
    /* The candidates in the first vector's order; certified if every
     * adjacent pair is. */
    const int32_t v0 = M->perm[lo];
    for (int32_t a = 1; a < nc; a++) {
        const int32_t j = M->c0[a];
        int32_t i = a;
        while (i > 0 && vbefore(M, v0, j, M->c0[i - 1])) {
            M->c0[i] = M->c0[i - 1];
            i--;
        }
        M->c0[i] = j;
    }
    int ok = 1;
    for (int32_t a = 0; a + 1 < nc && ok; a++)
        if (pair_order(M, B, M->c0[a], M->c0[a + 1]) != 1)
            ok = 0;
    if (ok) {
        for (int32_t i = 0; i < nc && nfree > 0; i++)
            try_bf(M, s, M->c0[i], &nfree, shadow, &extra, 1);
        leaf(M, lo, hi);
        return;
    }
    /* Each vector's own walk of the candidates; the vectors split by the
     * set of jobs it starts (a 0/1 string over c0, in FCFS order: c0 is
     * re-sorted by index, the queue's FCFS order being by index). */
    M->stats->fallbacks += hi - lo;
    for (int32_t a = 1; a < nc; a++) {
        const int32_t j = M->c0[a];
        int32_t i = a;
        while (i > 0 && j < M->c0[i - 1]) {
            M->c0[i] = M->c0[i - 1];
            i--;
        }
        M->c0[i] = j;
    }
    int64_t nout = 0;
    for (int32_t p = lo; p < hi; p++) {
        const int32_t v = M->perm[p];
        memcpy(M->c1, M->c0, (size_t)nc * sizeof *M->c1);
        for (int32_t a = 1; a < nc; a++) {
            const int32_t j = M->c1[a];
            int32_t i = a;
            while (i > 0 && vbefore(M, v, j, M->c1[i - 1])) {
                M->c1[i] = M->c1[i - 1];
                i--;
            }
            M->c1[i] = j;
        }
        /* Greedy walk; the outcome as a 0/1 string over c0's positions. */
        if ((nout + 1) * nc > M->capouts) {
            const int64_t cap = (nout + 1) * nc * 2 + 64;
            uint8_t *o = realloc(M->outs, (size_t)cap);
            if (o == NULL) { M->oom = 1; return; }
            M->outs = o;
            M->capouts = cap;
        }
        uint8_t *o = M->outs + nout * nc;
        memset(o, 0, (size_t)nc);
        int64_t f = nfree, x = extra;
        for (int32_t i = 0; i < nc && f > 0; i++) {
            const int32_t j = M->c1[i];
            if (try_bf(M, s, j, &f, shadow, &x, 0)) {
                /* position of j in c0 (sorted by index) */
                int32_t a = 0, b = nc;
                while (a < b) {
                    const int32_t mid = a + (b - a) / 2;
                    if (M->c0[mid] < j) a = mid + 1; else b = mid;
                }
                o[a] = 1;
            }
        }
        int64_t id = 0;
        while (id < nout && memcmp(M->outs + id * nc, o, (size_t)nc) != 0)
            id++;
        if (id == nout)
            nout++;
        M->lab[p] = id;
    }
    if (!sort_by_label(M, lo, hi))
        return;
    const int32_t k0 = M->nst;
    for (int32_t p = lo; p < hi && !M->oom;) {
        int32_t q = p + 1;
        while (q < hi && M->lab[q] == M->lab[p])
            q++;
        const uint8_t *o = M->outs + M->lab[p] * nc;
        for (int32_t a = 0; a < nc; a++)
            if (o[a])
                push_start(M, M->c0[a], (uint8_t)(SL_BACKFILLED | (over(M, M->c0[a]) ? SL_FORCED : 0)));
        leaf(M, p, q);
        undo_to(M, k0);
        p = q;
    }
}

/* The pass at t for the group [lo, hi): leaves in M->leaves. */
static void plan_pass(mctx *M, const sl_sim *s, int32_t lo, int32_t hi, const mbox *B)
{
    M->nleaves = 0;
    M->npool = 0;
    M->nst = 0;
    int64_t nfree = (int64_t)M->m - s->used;
    /* No queued job fits (none_fits of easy.c): nothing starts. */
    int64_t minq = s->minq;
    if (nfree >= minq && s->nminq <= 0) {
        minq = INT64_MAX;
        for (int32_t i = s->fq.first; i < s->fq.len; i++) {
            const int32_t j = s->fq.idx[i];
            if (s->state[j] == SL_QUEUED && s->J.procs[j] < minq)
                minq = s->J.procs[j];
        }
    }
    if (nfree < minq) {
        leaf(M, lo, hi);
        return;
    }
    M->nQ = 0;
    for (int32_t i = s->fq.first; i < s->fq.len; i++) {
        const int32_t j = s->fq.idx[i];
        if (s->state[j] == SL_QUEUED)
            M->Q[M->nQ++] = j;
    }
    /* Step 1: over-threshold jobs in FCFS order. */
    if (M->threshold >= 0) {
        for (int32_t i = 0; i < M->nQ; i++) {
            const int32_t j = M->Q[i];
            if (!over(M, j))
                break;
            if (M->J->procs[j] > nfree) {
                plan_c(M, s, lo, hi, B, nfree, j);
                undo_to(M, 0);
                return;
            }
            push_start(M, j, SL_FORCED);
            nfree -= M->J->procs[j];
        }
    }
    plan_b(M, s, lo, hi, B, nfree, -1);
    undo_to(M, 0);
}

/* ------------------------------------------------------------- groups -- */

/* Groups of at most this many vectors finish vector by vector with the
 * engine's own pass (same result: tests set 0 to plan every pass). */
_Atomic int32_t sl_multi_solo = 8;

int32_t sl_debug_multi_solo(int32_t k)
{
    const int32_t old = sl_multi_solo;
    sl_multi_solo = k < 0 ? 0 : k;
    return old;
}

static int cmp_start(const void *a, const void *b)
{
    const mstart *x = a, *y = b;
    return x->j < y->j ? -1 : x->j > y->j;
}

static int same_outcome(const mctx *M, const mleaf *a, const mleaf *b)
{
    if (a->cnt != b->cnt)
        return 0;
    for (int32_t i = 0; i < a->cnt; i++) {
        const mstart *x = M->pool + a->off + i, *y = M->pool + b->off + i;
        if (x->j != y->j || x->flags != y->flags)
            return 0;
    }
    return 1;
}

static void apply(sl_sim *s, const mctx *M, const mleaf *L, int64_t t)
{
    for (int32_t i = 0; i < L->cnt; i++)
        sl_machine_start(s, M->pool[L->off + i].j, t, M->pool[L->off + i].flags);
    sl_queue_tidy(s, &s->fq);
    sl_queue_tidy(s, &s->pq);
}

static void group_free(mgroup *g)
{
    sl_sim_free(g->s);
    free(g->start);
    free(g->end);
    free(g->flags);
    g->s = NULL;
}

static int group_alloc(mgroup *g, int32_t n)
{
    const size_t m = n > 0 ? (size_t)n : 1;
    g->start = malloc(m * sizeof *g->start);
    g->end = malloc(m * sizeof *g->end);
    g->flags = malloc(m);
    g->s = NULL;
    return g->start && g->end && g->flags;
}

static sl_out group_out(mgroup *g)
{
    sl_out o;
    memset(&o, 0, sizeof o);
    o.start = g->start;
    o.end = g->end;
    o.flags = g->flags;
    return o;
}

int sl_multi_run(const sl_jobs *jobs, const sl_config *cfg, const double *weights, int32_t nvec,
                 sl_multi_fn fn, void *ctx, sl_multi_stats *stats, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!jobs || !cfg || !fn || (nvec > 0 && !weights) || nvec < 0) {
        sl_set_err(err, errlen, "NULL argument or negative number of vectors");
        return SL_EINVAL;
    }
    sl_multi_stats dummy;
    if (stats == NULL)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    /* The policies: every vector a valid static mixed policy on the
     * primary's scales; P_B the vector's own (backfill kind MIXED) or FCFS. */
    if (cfg->primary.kind != SL_MIXED) {
        sl_set_err(err, errlen, "primary policy: must be SL_MIXED (its scales serve every vector)");
        return SL_EINVAL;
    }
    if (cfg->backfill.kind != SL_MIXED && cfg->backfill.kind != SL_FCFS) {
        sl_set_err(err, errlen, "backfill policy: must be SL_MIXED (each vector's own order) or SL_FCFS");
        return SL_EINVAL;
    }
    for (int32_t v = 0; v < nvec; v++) {
        sl_policy p = cfg->primary;
        memcpy(p.weights, weights + (size_t)v * SL_NFEATURES, sizeof p.weights);
        char which[48];
        snprintf(which, sizeof which, "weight vector %d", (int)v);
        if (sl_policy_check(&p, err, errlen, which) != SL_OK)
            return SL_EINVAL;
        if (p.weights[SL_F_EXP] != 0.0) {
            sl_set_err(err, errlen, "weight vector %d: the expansion weight must be 0 (orders that change with time "
                       "are not supported by sl_multi_run)", (int)v);
            return SL_EINVAL;
        }
    }
    if (jobs->cls != NULL || cfg->correction != SL_CORR_NOW || cfg->tie != SL_TIE_OLDEST || cfg->rules != SL_RULES_EASY ||
        (cfg->estimate != SL_EST_REQUESTED && cfg->estimate != SL_EST_ACTUAL && cfg->estimate != SL_EST_ARRAY &&
         cfg->estimate != SL_EST_EASYPP)) {
        sl_set_err(err, errlen, "sl_multi_run: needs EASY's rules, no classes, no correction, the default tie order (oldest "
                   "first: its decisions share tie_before's order) and a requested, actual, array or easy++ estimate");
        return SL_EINVAL;
    }
    sl_config base = *cfg;
    memset(&base.primary, 0, sizeof base.primary);
    base.primary.kind = SL_FCFS;
    base.backfill = base.primary;
    mgroup root;
    memset(&root, 0, sizeof root);
    const int32_t n = (int32_t)(jobs->n > 0 ? jobs->n : 0);
    if (!group_alloc(&root, n)) {
        group_free(&root);
        sl_set_err(err, errlen, "out of memory for %d jobs", (int)n);
        return SL_ENOMEM;
    }
    sl_out o = group_out(&root);
    int rc = sl_sim_new(jobs, &base, &o, &root.s, err, errlen);
    if (rc != SL_OK) {
        group_free(&root);
        return rc;
    }
    if (nvec == 0) {
        group_free(&root);
        return SL_OK;
    }
    mctx M;
    memset(&M, 0, sizeof M);
    M.J = jobs;
    M.n = n;
    M.nvec = nvec;
    M.W = weights;
    M.same = cfg->backfill.kind == SL_MIXED;
    M.threshold = cfg->threshold;
    M.threshold_backfill = cfg->threshold_backfill;
    M.m = cfg->m;
    M.stats = stats;
    const size_t nn = n > 0 ? (size_t)n : 1;
    M.G = malloc(nn * SL_NFEATURES * sizeof *M.G);
    M.perm = malloc((size_t)nvec * sizeof *M.perm);
    M.tmp = malloc((size_t)nvec * sizeof *M.tmp);
    M.lab = malloc((size_t)nvec * sizeof *M.lab);
    M.mark = calloc(nn, 1);
    M.Q = malloc(nn * sizeof *M.Q);
    M.N = malloc(nn * sizeof *M.N);
    M.klo = malloc(nn * sizeof *M.klo);
    M.khi = malloc(nn * sizeof *M.khi);
    M.st = malloc(nn * sizeof *M.st);
    M.c0 = malloc(nn * sizeof *M.c0);
    M.c1 = malloc(nn * sizeof *M.c1);
    int32_t capstack = 64, nstack = 0;
    mgroup *stack = malloc((size_t)capstack * sizeof *stack);
    mleaf *cls = NULL;
    int32_t *order = NULL;
    if (!M.G || !M.perm || !M.tmp || !M.lab || !M.mark || !M.Q || !M.N || !M.klo || !M.khi || !M.st || !M.c0 ||
        !M.c1 || !stack) {
        rc = SL_ENOMEM;
        goto done;
    }
    const double *sc = cfg->primary.scales;
    const int64_t r0 = n > 0 ? jobs->submit[0] : 0;
    for (int32_t j = 0; j < n; j++) {
        double f[SL_NFEATURES];
        sl_mixed_features(jobs, r0, j, 0.0, f);      /* no expansion weight here */
        for (int i = 0; i < SL_NFEATURES; i++)
            M.G[(size_t)j * SL_NFEATURES + (size_t)i] = f[i] / sc[i];
    }
    for (int32_t v = 0; v < nvec; v++)
        M.perm[v] = v;
    root.lo = 0;
    root.hi = nvec;
    stack[nstack++] = root;
    memset(&root, 0, sizeof root);
    stats->peak_live = 1;
    const int64_t per_group = (int64_t)nn * 108;   /* sl_sim arrays (83 bytes a job) and outputs */
    while (nstack > 0 && rc == SL_OK) {
        mgroup g = stack[--nstack];
        mbox B;
        box_of(&M, g.lo, g.hi, &B);
        for (;;) {
            if (g.hi - g.lo <= sl_multi_solo) {
                /* A group this small: each vector's own simulation, by the
                 * engine, from the shared state (set_policy applies from
                 * the next event; a static order depends on the queued set
                 * only). */
                for (int32_t p = g.lo; p < g.hi && rc == SL_OK; p++) {
                    mgroup h = g;
                    if (p + 1 < g.hi) {
                        memset(&h, 0, sizeof h);
                        sl_out ho;
                        if (!group_alloc(&h, n) || (ho = group_out(&h), sl_sim_clone(g.s, &ho, &h.s)) != SL_OK) {
                            group_free(&h);
                            rc = SL_ENOMEM;
                            break;
                        }
                        stats->forks++;
                    }
                    sl_policy prim = cfg->primary, back;
                    memcpy(prim.weights, weights + (size_t)M.perm[p] * SL_NFEATURES, sizeof prim.weights);
                    memset(&back, 0, sizeof back);
                    back.kind = SL_FCFS;
                    if (M.same)
                        back = prim;
                    if (sl_sim_set_policy(h.s, &prim, &back, cfg->threshold, cfg->threshold_backfill) != SL_OK ||
                        sl_sim_run(h.s, INT64_MAX) != SL_OK) {
                        sl_set_err(err, errlen, "%s", h.s->err);
                        rc = SL_EINVAL;
                    }
                    stats->schedules++;
                    if (rc == SL_OK && fn(ctx, M.perm + p, 1, h.start, h.end, h.flags) != 0) {
                        sl_set_err(err, errlen, "sl_multi_run: stopped by the caller's function");
                        rc = SL_EINVAL;
                    }
                    if (p + 1 < g.hi)
                        group_free(&h);
                }
                group_free(&g);
                break;
            }
            const int64_t t = sl_engine_next_event(g.s);
            if (t == INT64_MAX) {
                stats->schedules++;
                if (fn(ctx, M.perm + g.lo, g.hi - g.lo, g.start, g.end, g.flags) != 0) {
                    sl_set_err(err, errlen, "sl_multi_run: stopped by the caller's function");
                    rc = SL_EINVAL;
                }
                group_free(&g);
                break;
            }
            if (sl_engine_events(g.s, t) != SL_OK) {
                sl_set_err(err, errlen, "%s", g.s->err);
                group_free(&g);
                rc = SL_EINVAL;
                break;
            }
            if (g.s->nqueued == 0)
                continue;
            stats->passes++;
            M.t = t;
            plan_pass(&M, g.s, g.lo, g.hi, &B);
            if (M.oom) {
                group_free(&g);
                rc = SL_ENOMEM;
                break;
            }
            for (int32_t i = 0; i < M.nleaves; i++)
                qsort(M.pool + M.leaves[i].off, (size_t)M.leaves[i].cnt, sizeof *M.pool, cmp_start);
            if (M.nleaves == 1) {
                apply(g.s, &M, &M.leaves[0], t);
                continue;
            }
            /* Classes of leaves with the same starts, in leaf order. */
            int32_t ncls = 0;
            free(cls);
            cls = malloc((size_t)M.nleaves * sizeof *cls);
            free(order);
            order = malloc((size_t)M.nleaves * sizeof *order);
            if (cls == NULL || order == NULL) {
                group_free(&g);
                rc = SL_ENOMEM;
                break;
            }
            for (int32_t i = 0; i < M.nleaves; i++) {
                int32_t c = 0;
                while (c < ncls && !same_outcome(&M, &cls[c], &M.leaves[i]))
                    c++;
                if (c == ncls)
                    cls[ncls++] = M.leaves[i];
                M.leaves[i].cls = c;
            }
            /* perm[g.lo, g.hi) regrouped class by class. */
            int32_t p = g.lo;
            for (int32_t c = 0; c < ncls; c++) {
                cls[c].lo = p;
                for (int32_t i = 0; i < M.nleaves; i++)
                    if (M.leaves[i].cls == c)
                        for (int32_t k = M.leaves[i].lo; k < M.leaves[i].hi; k++)
                            M.tmp[p++] = M.perm[k];
                cls[c].hi = p;
            }
            memcpy(M.perm + g.lo, M.tmp + g.lo, (size_t)(g.hi - g.lo) * sizeof *M.perm);
            if (ncls == 1) {
                apply(g.s, &M, &cls[0], t);
                continue;
            }
            /* Forks for classes 1.., then class 0 goes on in g. */
            for (int32_t c = 1; c < ncls && rc == SL_OK; c++) {
                mgroup h;
                memset(&h, 0, sizeof h);
                if (!group_alloc(&h, n)) {
                    group_free(&h);
                    rc = SL_ENOMEM;
                    break;
                }
                sl_out ho = group_out(&h);
                if (sl_sim_clone(g.s, &ho, &h.s) != SL_OK) {
                    group_free(&h);
                    rc = SL_ENOMEM;
                    break;
                }
                apply(h.s, &M, &cls[c], t);
                h.lo = cls[c].lo;
                h.hi = cls[c].hi;
                if (nstack == capstack) {
                    mgroup *ns = realloc(stack, (size_t)capstack * 2 * sizeof *stack);
                    if (ns == NULL) {
                        group_free(&h);
                        rc = SL_ENOMEM;
                        break;
                    }
                    stack = ns;
                    capstack *= 2;
                }
                stack[nstack++] = h;
                stats->forks++;
            }
            if (nstack + 1 > stats->peak_live)
                stats->peak_live = nstack + 1;
            if (rc != SL_OK) {
                group_free(&g);
                break;
            }
            apply(g.s, &M, &cls[0], t);
            g.lo = cls[0].lo;
            g.hi = cls[0].hi;
            box_of(&M, g.lo, g.hi, &B);
        }
    }
    stats->peak_bytes = stats->peak_live * per_group;
done:
    for (int32_t i = 0; i < nstack; i++)
        group_free(&stack[i]);
    if (root.s != NULL || root.start != NULL)
        group_free(&root);
    if (rc == SL_ENOMEM && err && errlen && err[0] == '\0')
        sl_set_err(err, errlen, "sl_multi_run: out of memory");
    free(stack); free(cls); free(order);
    free(M.G); free(M.perm); free(M.tmp); free(M.lab); free(M.mark); free(M.Q); free(M.N);
    free(M.klo); free(M.khi); free(M.st); free(M.c0); free(M.c1); free(M.leaves); free(M.pool); free(M.outs);
    return rc;
}
