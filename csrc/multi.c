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
 * run depth first, so at most one group per pending branch is alive
 * (unless re-merging is on: sl_debug_multi_merge, "groups" below).  A
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

#include "internal.h"

typedef struct mstart {
    int32_t j;
    uint8_t flags;
} mstart;

typedef struct mleaf {
    int32_t lo, hi;     /* range of perm */
    int32_t off, cnt;   /* its starts in the pool */
    int32_t cls;
    int32_t comp;       /* the component of its group it came from */
} mleaf;

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
    int32_t comp;           /* the component being planned */
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

/* before() of policies.c under vector v (no classes). */
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
    L->comp = M->comp;
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

/* The pass at t for the vectors perm[lo, hi) (box B): leaves added to
 * M->leaves. */
static void plan_pass(mctx *M, const sl_sim *s, int32_t lo, int32_t hi, const mbox *B)
{
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
int32_t sl_multi_solo = 8;

int32_t sl_debug_multi_solo(int32_t k)
{
    const int32_t old = sl_multi_solo;
    sl_multi_solo = k < 0 ? 0 : k;
    return old;
}

/* Re-merging groups whose live state is identical (1), or the groups run
 * depth first without it (0, the default: re-merging measured exact but
 * slower on three of the mixed study's four logs, issue 33; the same
 * schedules either way; csrc/SEMANTICS.md, "Many mixed policies at once"). */
int32_t sl_multi_merge = 0;

int32_t sl_debug_multi_merge(int32_t on)
{
    const int32_t old = sl_multi_merge;
    sl_multi_merge = on != 0;
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
        sl_engine_start(s, M->pool[L->off + i].j, t, M->pool[L->off + i].flags);
    sl_queue_tidy(s, &s->fq);
    sl_queue_tidy(s, &s->pq);
}

/* What a merged group's vectors recorded before the merge, where it differs
 * from the group they joined: jobs started before the merge (they never
 * change after their start), with their own start, end and flags. */
typedef struct movl {
    int32_t cnt, refs;
    int32_t *j;
    int64_t *start, *end;
    uint8_t *flags;
} movl;

/* A vector's overlays, newest first (shared, reference counted: by the
 * vectors whose chain starts here and by the nodes whose next it is). */
typedef struct mchain {
    movl *ov;
    struct mchain *next;
    int64_t refs;
    int64_t fwd_merge;      /* during merge number fwd_merge: the node made for
                               this chain (fwd); 0: none */
    struct mchain *fwd;
} mchain;

static void chain_release(mchain *c)
{
    while (c != NULL && --c->refs == 0) {
        mchain *next = c->next;
        if (--c->ov->refs == 0)
            free(c->ov);
        free(c);
        c = next;
    }
}

typedef struct mcomp {
    int32_t lo, hi;
    mbox B;
    int boxok;
} mcomp;

typedef struct mgroup {
    sl_sim *s;
    int64_t *start, *end;
    uint8_t *flags;
    int32_t *vec;           /* its vectors */
    int32_t nv;
    int64_t next;           /* its next event time */
    int64_t seq;            /* creation order (ties) */
    uint64_t hash;          /* of its live state, when in the table */
    struct mgroup *hnext;   /* the table's chain */
    /* Its components: ranges of vec planned each with its own box (a merged
     * group keeps the boxes of its parts: one box over both would certify
     * few decisions). */
    struct mcomp *comp;
    int32_t ncomp, capcomp;
} mgroup;

static void group_free(mgroup *g)
{
    if (g == NULL)
        return;
    sl_sim_free(g->s);
    free(g->start);
    free(g->end);
    free(g->flags);
    free(g->vec);
    free(g->comp);
    free(g);
}

/* Room for k components. */
static int comp_room(mgroup *g, int32_t k)
{
    if (k <= g->capcomp)
        return 1;
    const int32_t cap = k > 2 * g->capcomp ? k : 2 * g->capcomp;
    mcomp *c = realloc(g->comp, (size_t)cap * sizeof *c);
    if (c == NULL)
        return 0;
    g->comp = c;
    g->capcomp = cap;
    return 1;
}

static mgroup *group_new(int32_t n, int32_t nv, int64_t seq)
{
    mgroup *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    const size_t m = n > 0 ? (size_t)n : 1;
    g->start = malloc(m * sizeof *g->start);
    g->end = malloc(m * sizeof *g->end);
    g->flags = malloc(m);
    g->vec = malloc((size_t)(nv > 0 ? nv : 1) * sizeof *g->vec);
    g->nv = nv;
    g->seq = seq;
    if (!g->start || !g->end || !g->flags || !g->vec || !comp_room(g, 1)) {
        group_free(g);
        return NULL;
    }
    g->ncomp = 1;
    g->comp[0].lo = 0;
    g->comp[0].hi = nv;
    g->comp[0].boxok = 0;
    return g;
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

/* A clone of g's simulation with the vectors vec[0, nv). */
static mgroup *group_clone(const mgroup *g, int32_t n, const int32_t *vec, int32_t nv, int64_t seq)
{
    mgroup *h = group_new(n, nv, seq);
    if (h == NULL)
        return NULL;
    sl_out ho = group_out(h);
    if (sl_sim_clone(g->s, &ho, &h->s) != SL_OK) {
        group_free(h);
        return NULL;
    }
    memcpy(h->vec, vec, (size_t)nv * sizeof *vec);
    return h;
}

/* The live state of a simulation after a pass: what decides the rest of
 * the schedule of any vector (static orders, no classes, no correction, an
 * estimate a function of the job): the jobs submitted so far (next_sub),
 * the running jobs with their starts (their ends and estimated ends follow),
 * the queued jobs (a static order is a function of the queued set).  Jobs
 * done matter no more.  The hash is a sum, so independent of the order. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

static uint64_t state_hash(const sl_sim *s)
{
    uint64_t h = mix64((uint64_t)s->next_sub * UINT64_C(0x9e3779b97f4a7c15) + 1);
    for (int32_t k = 0; k < s->nrun; k++) {
        const int32_t j = s->run[k];
        h += mix64(((uint64_t)(uint32_t)j << 1 | 1) ^ mix64((uint64_t)s->O.start[j]));
    }
    for (int32_t i = s->fq.first; i < s->fq.len; i++) {
        const int32_t j = s->fq.idx[i];
        if (s->state[j] == SL_QUEUED)
            h += mix64((uint64_t)(uint32_t)j << 1);
    }
    return h;
}

/* The full check: the same live state. */
static int same_state(const sl_sim *a, const sl_sim *b)
{
    if (a->next_sub != b->next_sub || a->nrun != b->nrun || a->nqueued != b->nqueued || a->used != b->used ||
        a->nheap != b->nheap)
        return 0;
    /* run is sorted by (estimated end, index): equal sets are equal lists
     * once the starts are equal. */
    for (int32_t k = 0; k < a->nrun; k++) {
        const int32_t j = a->run[k];
        if (b->run[k] != j || a->O.start[j] != b->O.start[j] || a->O.end[j] != b->O.end[j] ||
            a->rend[j] != b->rend[j] || b->state[j] != SL_RUNNING)
            return 0;
    }
    /* The queued jobs, in FCFS order in both. */
    int32_t i = a->fq.first, k = b->fq.first;
    for (;;) {
        while (i < a->fq.len && a->state[a->fq.idx[i]] != SL_QUEUED)
            i++;
        while (k < b->fq.len && b->state[b->fq.idx[k]] != SL_QUEUED)
            k++;
        if (i == a->fq.len || k == b->fq.len)
            return i == a->fq.len && k == b->fq.len;
        const int32_t j = a->fq.idx[i];
        if (j != b->fq.idx[k] || a->est[j] != b->est[j])
            return 0;
        i++;
        k++;
    }
}

/* The pending groups: a binary heap by (next event, creation) when merging
 * (all groups move through time together, so that equal states meet), by
 * latest creation otherwise (depth first). */
typedef struct mheap {
    mgroup **a;
    int32_t n, cap;
    int bytime;
} mheap;

static inline int hbefore(const mheap *H, const mgroup *x, const mgroup *y)
{
    if (H->bytime && x->next != y->next)
        return x->next < y->next;
    return H->bytime ? x->seq < y->seq : x->seq > y->seq;
}

static int heap_add(mheap *H, mgroup *g)
{
    if (H->n == H->cap) {
        const int32_t cap = H->cap ? 2 * H->cap : 64;
        mgroup **p = realloc(H->a, (size_t)cap * sizeof *p);
        if (p == NULL)
            return 0;
        H->a = p;
        H->cap = cap;
    }
    int32_t i = H->n++;
    while (i > 0 && hbefore(H, g, H->a[(i - 1) / 2])) {
        H->a[i] = H->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    H->a[i] = g;
    return 1;
}

static mgroup *heap_take(mheap *H)
{
    mgroup *top = H->a[0], *last = H->a[--H->n];
    int32_t i = 0;
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= H->n)
            break;
        if (c + 1 < H->n && hbefore(H, H->a[c + 1], H->a[c]))
            c++;
        if (!hbefore(H, H->a[c], last))
            break;
        H->a[i] = H->a[c];
        i = c;
    }
    if (H->n > 0)
        H->a[i] = last;
    return top;
}

/* The groups pending by the hash of their live state. */
typedef struct mtable {
    mgroup **b;
    int32_t cap, n;         /* cap a power of two */
} mtable;

static int table_add(mtable *T, mgroup *g)
{
    if (2 * (T->n + 1) > T->cap) {
        const int32_t cap = T->cap ? 2 * T->cap : 256;
        mgroup **b = calloc((size_t)cap, sizeof *b);
        if (b == NULL)
            return 0;
        for (int32_t i = 0; i < T->cap; i++)
            for (mgroup *x = T->b[i], *nx; x != NULL; x = nx) {
                nx = x->hnext;
                x->hnext = b[x->hash & (uint64_t)(cap - 1)];
                b[x->hash & (uint64_t)(cap - 1)] = x;
            }
        free(T->b);
        T->b = b;
        T->cap = cap;
    }
    mgroup **slot = &T->b[g->hash & (uint64_t)(T->cap - 1)];
    g->hnext = *slot;
    *slot = g;
    T->n++;
    return 1;
}

static void table_remove(mtable *T, mgroup *g)
{
    if (T->cap == 0)
        return;
    for (mgroup **p = &T->b[g->hash & (uint64_t)(T->cap - 1)]; *p != NULL; p = &(*p)->hnext)
        if (*p == g) {
            *p = g->hnext;
            g->hnext = NULL;
            T->n--;
            return;
        }
}

static mgroup *table_find(const mtable *T, const mgroup *g)
{
    if (T->cap == 0)
        return NULL;
    for (mgroup *x = T->b[g->hash & (uint64_t)(T->cap - 1)]; x != NULL; x = x->hnext)
        if (x->hash == g->hash && same_state(x->s, g->s))
            return x;
    return NULL;
}

/* The run's state beside mctx. */
typedef struct mrun {
    mctx *M;
    const sl_jobs *jobs;
    const sl_config *cfg;
    const double *weights;
    int32_t n;
    sl_multi_fn fn;
    void *ctx;
    sl_multi_stats *stats;
    mchain **chain;         /* per vector, or NULL: no merge behind it */
    int64_t *ostart, *oend; /* n: a schedule with overlays applied */
    uint8_t *oflags;
    int32_t *tmpv;          /* nvec scratch */
    int64_t nlive, seq;
    char *err;
    size_t errlen;
} mrun;

static int cmp_chain(const void *a, const void *b, const mrun *R)
{
    const uintptr_t x = (uintptr_t)R->chain[*(const int32_t *)a], y = (uintptr_t)R->chain[*(const int32_t *)b];
    if (x != y) return x < y ? -1 : 1;
    return *(const int32_t *)a < *(const int32_t *)b ? -1 : *(const int32_t *)a > *(const int32_t *)b;
}

static const mrun *sort_run;
static int cmp_chain_q(const void *a, const void *b)
{
    return cmp_chain(a, b, sort_run);
}

/* vec sorted by chain (vectors with the same overlays side by side). */
static void sort_by_chain(mrun *R, int32_t *vec, int32_t nv)
{
    int all_null = 1;
    for (int32_t p = 0; p < nv && all_null; p++)
        all_null = R->chain[vec[p]] == NULL;
    if (all_null)
        return;
    sort_run = R;
    qsort(vec, (size_t)nv, sizeof *vec, cmp_chain_q);
}

/* The schedule of g's simulation, ended, handed to the caller for the
 * vectors vec[0, nv): for each set of vectors with the same overlays, the
 * group's outputs with them applied, newest merge first. */
static int deliver(mrun *R, const mgroup *g, int32_t *vec, int32_t nv)
{
    sort_by_chain(R, vec, nv);
    int rc = SL_OK;
    for (int32_t p = 0; p < nv;) {
        int32_t q = p + 1;
        mchain *c = R->chain[vec[p]];
        while (q < nv && R->chain[vec[q]] == c)
            q++;
        const int64_t *st = g->start, *en = g->end;
        const uint8_t *fl = g->flags;
        if (c != NULL) {
            memcpy(R->ostart, g->start, (size_t)R->n * sizeof *R->ostart);
            memcpy(R->oend, g->end, (size_t)R->n * sizeof *R->oend);
            memcpy(R->oflags, g->flags, (size_t)R->n);
            for (const mchain *x = c; x != NULL; x = x->next)
                for (int32_t i = 0; i < x->ov->cnt; i++) {
                    const int32_t j = x->ov->j[i];
                    R->ostart[j] = x->ov->start[i];
                    R->oend[j] = x->ov->end[i];
                    R->oflags[j] = x->ov->flags[i];
                }
            st = R->ostart;
            en = R->oend;
            fl = R->oflags;
        }
        R->stats->schedules++;
        if (rc == SL_OK && R->fn(R->ctx, vec + p, q - p, st, en, fl) != 0) {
            sl_set_err(R->err, R->errlen, "sl_multi_run: stopped by the caller's function");
            rc = SL_EINVAL;
        }
        for (int32_t k = p; k < q; k++) {
            chain_release(R->chain[vec[k]]);
            R->chain[vec[k]] = NULL;
        }
        p = q;
    }
    return rc;
}

/* Merge r into x (the same live state): r's vectors join x's; each keeps
 * what r recorded before, where it differs from x's record. */
static int merge_into(mrun *R, mgroup *x, mgroup *r)
{
    const sl_sim *s = r->s;
    int32_t cnt = 0;
    for (int32_t j = 0; j < s->next_sub; j++)
        if (s->state[j] >= SL_RUNNING &&
            (r->start[j] != x->start[j] || r->end[j] != x->end[j] || r->flags[j] != x->flags[j]))
            cnt++;
    int32_t *nv = realloc(x->vec, (size_t)(x->nv + r->nv) * sizeof *nv);
    if (nv == NULL)
        return SL_ENOMEM;
    x->vec = nv;
    if (!comp_room(x, x->ncomp + r->ncomp))
        return SL_ENOMEM;
    if (cnt > 0) {
        const size_t sz = sizeof(movl) + (size_t)cnt * (sizeof(int32_t) + 2 * sizeof(int64_t) + 1);
        movl *o = malloc(sz);
        if (o == NULL)
            return SL_ENOMEM;
        o->start = (int64_t *)(o + 1);
        o->end = o->start + cnt;
        o->j = (int32_t *)(o->end + cnt);
        o->flags = (uint8_t *)(o->j + cnt);
        o->cnt = cnt;
        o->refs = 0;
        int32_t i = 0;
        for (int32_t j = 0; j < s->next_sub; j++)
            if (s->state[j] >= SL_RUNNING &&
                (r->start[j] != x->start[j] || r->end[j] != x->end[j] || r->flags[j] != x->flags[j])) {
                o->j[i] = j;
                o->start[i] = r->start[j];
                o->end[i] = r->end[j];
                o->flags[i] = r->flags[j];
                i++;
            }
        /* One new node per distinct chain of r's vectors: o, then it. */
        mchain *fromnull = NULL;
        for (int32_t p = 0; p < r->nv; p++) {
            mchain *old = R->chain[r->vec[p]];
            mchain *c = old == NULL ? fromnull : old->fwd_merge == R->stats->merges + 1 ? old->fwd : NULL;
            if (c == NULL) {
                c = malloc(sizeof *c);
                if (c == NULL) {
                    if (o->refs == 0)
                        free(o);
                    return SL_ENOMEM;
                }
                c->ov = o;
                o->refs++;
                c->next = old;
                c->refs = 0;
                c->fwd_merge = 0;
                c->fwd = NULL;
                if (old == NULL) {
                    fromnull = c;
                } else {
                    old->refs++;            /* c's reference */
                    old->fwd_merge = R->stats->merges + 1;
                    old->fwd = c;
                }
            }
            if (old != NULL)
                old->refs--;                /* the vector's, moved to c */
            c->refs++;
            R->chain[r->vec[p]] = c;
        }
    }
    for (int32_t k = 0; k < r->ncomp; k++) {
        x->comp[x->ncomp] = r->comp[k];
        x->comp[x->ncomp].lo += x->nv;
        x->comp[x->ncomp].hi += x->nv;
        x->ncomp++;
    }
    memcpy(x->vec + x->nv, r->vec, (size_t)r->nv * sizeof *r->vec);
    x->nv += r->nv;
    R->stats->merges++;
    return SL_OK;
}

/* A group this small: each vector's own simulation, by the engine, from the
 * shared state (set_policy applies from the next event; a static order
 * depends on the queued set only).  g is freed. */
static int run_solo(mrun *R, mgroup *g)
{
    int rc = SL_OK;
    for (int32_t p = 0; p < g->nv && rc == SL_OK; p++) {
        mgroup *h = g;
        if (p + 1 < g->nv) {
            h = group_clone(g, R->n, g->vec + p, 1, 0);
            if (h == NULL) {
                rc = SL_ENOMEM;
                break;
            }
            R->stats->forks++;
        }
        const int32_t v = g->vec[p];
        sl_policy prim = R->cfg->primary, back;
        memcpy(prim.weights, R->weights + (size_t)v * SL_NFEATURES, sizeof prim.weights);
        memset(&back, 0, sizeof back);
        back.kind = SL_FCFS;
        if (R->M->same)
            back = prim;
        if (sl_sim_set_policy(h->s, &prim, &back, R->cfg->threshold, R->cfg->threshold_backfill) != SL_OK ||
            sl_sim_run(h->s, INT64_MAX) != SL_OK) {
            sl_set_err(R->err, R->errlen, "%s", h->s->err);
            rc = SL_EINVAL;
        }
        int32_t one = v;
        if (rc == SL_OK)
            rc = deliver(R, h, &one, 1);
        if (h != g)
            group_free(h);
    }
    group_free(g);
    R->nlive--;
    return rc;
}

/* The events and the pass at g's next event time t; g goes on with the
 * first class of vectors, the others are new groups (out[0, *nout)).  g
 * and every new group are at t, after the pass. */
static int step(mrun *R, mgroup *g, mgroup ***out, int32_t *nout, int32_t *capout)
{
    mctx *M = R->M;
    const int64_t t = g->next;
    *nout = 0;
    if (sl_engine_events(g->s, t) != SL_OK) {
        sl_set_err(R->err, R->errlen, "%s", g->s->err);
        return SL_EINVAL;
    }
    if (g->s->nqueued == 0)
        return SL_OK;
    R->stats->passes++;
    M->t = t;
    M->perm = g->vec;
    M->nleaves = 0;
    M->npool = 0;
    for (int32_t k = 0; k < g->ncomp; k++) {
        mcomp *c = &g->comp[k];
        if (!c->boxok) {
            box_of(M, c->lo, c->hi, &c->B);
            c->boxok = 1;
        }
        M->comp = k;
        plan_pass(M, g->s, c->lo, c->hi, &c->B);
        if (M->oom)
            return SL_ENOMEM;
    }
    for (int32_t i = 0; i < M->nleaves; i++)
        qsort(M->pool + M->leaves[i].off, (size_t)M->leaves[i].cnt, sizeof *M->pool, cmp_start);
    /* Classes of leaves with the same starts, in leaf order (their first
     * leaf stands for them). */
    mleaf *cls = malloc((size_t)M->nleaves * sizeof *cls);
    if (cls == NULL)
        return SL_ENOMEM;
    int32_t ncls = 0;
    for (int32_t i = 0; i < M->nleaves; i++) {
        int32_t c = 0;
        while (c < ncls && !same_outcome(M, &cls[c], &M->leaves[i]))
            c++;
        if (c == ncls)
            cls[ncls++] = M->leaves[i];
        M->leaves[i].cls = c;
    }
    if (ncls == 1) {
        /* One outcome: the components stay (a component's leaves are
         * ranges of it, their vectors reordered within it). */
        apply(g->s, M, &cls[0], t);
        free(cls);
        return SL_OK;
    }
    int rc = SL_OK;
    if (ncls > *capout) {
        mgroup **o = realloc(*out, (size_t)ncls * sizeof *o);
        if (o == NULL) {
            free(cls);
            return SL_ENOMEM;
        }
        *out = o;
        *capout = ncls;
    }
    /* Each class's vectors into tmpv (class by class, and within a class
     * component by component: the leaves are in component order), and its
     * components: the part of each old component it has. */
    mcomp *cc = malloc((size_t)M->nleaves * sizeof *cc);
    int32_t *cfirst = malloc((size_t)(ncls + 1) * sizeof *cfirst);
    if (cc == NULL || cfirst == NULL) {
        free(cls); free(cc); free(cfirst);
        return SL_ENOMEM;
    }
    int32_t p = 0, ncc = 0;
    for (int32_t c = 0; c < ncls; c++) {
        cls[c].lo = p;
        cfirst[c] = ncc;
        int32_t last = -1;
        for (int32_t i = 0; i < M->nleaves; i++) {
            const mleaf *L = &M->leaves[i];
            if (L->cls != c || L->hi == L->lo)
                continue;
            if (L->comp != last) {
                if (last >= 0 && cc[ncc - 1].hi - cc[ncc - 1].lo == g->comp[last].hi - g->comp[last].lo)
                    cc[ncc - 1].B = g->comp[last].B, cc[ncc - 1].boxok = g->comp[last].boxok;
                cc[ncc].lo = p - cls[c].lo;
                cc[ncc].boxok = 0;
                ncc++;
                last = L->comp;
            }
            for (int32_t k = L->lo; k < L->hi; k++)
                R->tmpv[p++] = g->vec[k];
            cc[ncc - 1].hi = p - cls[c].lo;
        }
        /* A component all of whose vectors are in this class keeps its box. */
        if (last >= 0 && cc[ncc - 1].hi - cc[ncc - 1].lo == g->comp[last].hi - g->comp[last].lo)
            cc[ncc - 1].B = g->comp[last].B, cc[ncc - 1].boxok = g->comp[last].boxok;
        cls[c].hi = p;
    }
    cfirst[ncls] = ncc;
    /* Forks for classes 1.. (clones before g's own starts), then class 0
     * goes on in g. */
    for (int32_t c = 1; c < ncls; c++) {
        mgroup *h = group_clone(g, R->n, R->tmpv + cls[c].lo, cls[c].hi - cls[c].lo, ++R->seq);
        if (h == NULL || !comp_room(h, cfirst[c + 1] - cfirst[c])) {
            group_free(h);
            rc = SL_ENOMEM;
            break;
        }
        h->ncomp = cfirst[c + 1] - cfirst[c];
        memcpy(h->comp, cc + cfirst[c], (size_t)h->ncomp * sizeof *cc);
        apply(h->s, M, &cls[c], t);
        h->next = t;
        (*out)[(*nout)++] = h;
        R->nlive++;
        R->stats->forks++;
    }
    if (rc == SL_OK && !comp_room(g, cfirst[1] - cfirst[0]))
        rc = SL_ENOMEM;
    if (rc == SL_OK) {
        apply(g->s, M, &cls[0], t);
        memcpy(g->vec, R->tmpv + cls[0].lo, (size_t)(cls[0].hi - cls[0].lo) * sizeof *g->vec);
        g->nv = cls[0].hi - cls[0].lo;
        g->ncomp = cfirst[1] - cfirst[0];
        memcpy(g->comp, cc, (size_t)g->ncomp * sizeof *cc);
    }
    free(cls); free(cc); free(cfirst);
    return rc;
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
    if (jobs->cls != NULL || cfg->correction != SL_CORR_NOW ||
        (cfg->estimate != SL_EST_REQUESTED && cfg->estimate != SL_EST_ACTUAL && cfg->estimate != SL_EST_ARRAY &&
         cfg->estimate != SL_EST_EASYPP)) {
        sl_set_err(err, errlen, "sl_multi_run: needs no classes, no correction and a requested, actual, array or "
                   "easy++ estimate");
        return SL_EINVAL;
    }
    /* Merging needs a live state that is all of the future: with easy++ the
     * estimates of jobs to come depend on the users' past completions. */
    const int merging = sl_multi_merge && cfg->estimate != SL_EST_EASYPP;
    sl_config base = *cfg;
    memset(&base.primary, 0, sizeof base.primary);
    base.primary.kind = SL_FCFS;
    base.backfill = base.primary;
    const int32_t n = (int32_t)(jobs->n > 0 ? jobs->n : 0);
    mgroup *root = group_new(n, nvec, 0);
    if (root == NULL) {
        sl_set_err(err, errlen, "out of memory for %d jobs", (int)n);
        return SL_ENOMEM;
    }
    sl_out o = group_out(root);
    int rc = sl_sim_new(jobs, &base, &o, &root->s, err, errlen);
    if (rc != SL_OK || nvec == 0) {
        group_free(root);
        return rc;
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
    mrun R;
    memset(&R, 0, sizeof R);
    R.M = &M;
    R.jobs = jobs;
    R.cfg = cfg;
    R.weights = weights;
    R.n = n;
    R.fn = fn;
    R.ctx = ctx;
    R.stats = stats;
    R.err = err;
    R.errlen = errlen;
    const size_t nn = n > 0 ? (size_t)n : 1;
    M.G = malloc(nn * SL_NFEATURES * sizeof *M.G);
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
    R.chain = calloc((size_t)nvec, sizeof *R.chain);
    R.ostart = malloc(nn * sizeof *R.ostart);
    R.oend = malloc(nn * sizeof *R.oend);
    R.oflags = malloc(nn);
    R.tmpv = malloc((size_t)nvec * sizeof *R.tmpv);
    mheap H;
    memset(&H, 0, sizeof H);
    H.bytime = merging;
    mtable T;
    memset(&T, 0, sizeof T);
    mgroup **out = NULL;
    int32_t nout = 0, capout = 0;
    if (!M.G || !M.tmp || !M.lab || !M.mark || !M.Q || !M.N || !M.klo || !M.khi || !M.st || !M.c0 || !M.c1 ||
        !R.chain || !R.ostart || !R.oend || !R.oflags || !R.tmpv) {
        rc = SL_ENOMEM;
        goto done;
    }
    const double *sc = cfg->primary.scales;
    const int64_t r0 = n > 0 ? jobs->submit[0] : 0;
    for (int32_t j = 0; j < n; j++) {
        const int64_t r = jobs->submit[j], req = jobs->req[j];
        const double q = (double)jobs->procs[j];
        double f[SL_NFEATURES];
        f[SL_F_PROCS] = q;
        f[SL_F_REQ] = (double)req;
        f[SL_F_SUBMIT] = (double)(r - r0);
        f[SL_F_RATIO] = (double)req / q;
        f[SL_F_EXP] = 0.0;
        f[SL_F_AREA] = (double)req * q;
        for (int i = 0; i < SL_NFEATURES; i++)
            M.G[(size_t)j * SL_NFEATURES + (size_t)i] = f[i] / sc[i];
    }
    for (int32_t v = 0; v < nvec; v++)
        root->vec[v] = v;
    root->next = sl_engine_next_event(root->s);
    if (!heap_add(&H, root)) {
        rc = SL_ENOMEM;
        goto done;
    }
    root = NULL;
    R.nlive = 1;
    stats->peak_live = 1;
    const int64_t per_group = (int64_t)nn * 108;   /* sl_sim arrays (83 bytes a job) and outputs */
    /* One group at a time, the earliest (merging) or the newest (depth
     * first); its events and pass at its next event time, then each group
     * that comes out of it: run alone if small, delivered if ended, merged
     * into a pending group with the same live state, or pending. */
    while (H.n > 0 && rc == SL_OK) {
        mgroup *g = heap_take(&H);
        if (merging)
            table_remove(&T, g);
        for (;;) {
            if (g->nv <= sl_multi_solo) {
                rc = run_solo(&R, g);
                break;
            }
            if (g->next == INT64_MAX) {
                rc = deliver(&R, g, g->vec, g->nv);
                group_free(g);
                R.nlive--;
                break;
            }
            rc = step(&R, g, &out, &nout, &capout);
            if (R.nlive > stats->peak_live)
                stats->peak_live = R.nlive;
            /* g and the new groups, all at the same time after the pass. */
            int gone = 0;
            int32_t i = -1;
            for (; i < nout && rc == SL_OK; i++) {
                mgroup *h = i < 0 ? g : out[i];
                h->next = sl_engine_next_event(h->s);
                if (h->nv <= sl_multi_solo || h->next == INT64_MAX) {
                    if (h->nv <= sl_multi_solo) {
                        rc = run_solo(&R, h);
                    } else {
                        rc = deliver(&R, h, h->vec, h->nv);
                        group_free(h);
                        R.nlive--;
                    }
                    gone |= i < 0;
                    continue;
                }
                if (i < 0 && (!merging || (nout == 0 && H.n == 0)))
                    continue;           /* g goes on: depth first, or alone */
                gone |= i < 0;          /* g pending, or merged */
                if (!merging) {
                    if (!heap_add(&H, h)) { rc = SL_ENOMEM; group_free(h); R.nlive--; }
                    continue;
                }
                h->hash = state_hash(h->s);
                mgroup *x = table_find(&T, h);
                if (x != NULL) {
                    rc = merge_into(&R, x, h);
                    group_free(h);
                    R.nlive--;
                    continue;
                }
                if (!table_add(&T, h)) { rc = SL_ENOMEM; group_free(h); R.nlive--; continue; }
                if (!heap_add(&H, h)) { rc = SL_ENOMEM; table_remove(&T, h); group_free(h); R.nlive--; }
            }
            if (rc != SL_OK) {
                /* The groups not yet placed (g too if still held). */
                for (int32_t k = i < 0 ? 0 : i; k < nout; k++) {
                    group_free(out[k]);
                    R.nlive--;
                }
                if (!gone)
                    group_free(g);
                break;
            }
            if (gone)
                break;
        }
    }
    stats->peak_bytes = stats->peak_live * per_group;
done:
    while (H.n > 0)
        group_free(heap_take(&H));
    group_free(root);
    if (R.chain != NULL)
        for (int32_t v = 0; v < nvec; v++)
            chain_release(R.chain[v]);
    if (rc == SL_ENOMEM && err && errlen && err[0] == '\0')
        sl_set_err(err, errlen, "sl_multi_run: out of memory");
    free(H.a); free(T.b); free(out);
    free(R.chain); free(R.ostart); free(R.oend); free(R.oflags); free(R.tmpv);
    free(M.G); free(M.tmp); free(M.lab); free(M.mark); free(M.Q); free(M.N);
    free(M.klo); free(M.khi); free(M.st); free(M.c0); free(M.c1); free(M.leaves); free(M.pool); free(M.outs);
    return rc;
}
