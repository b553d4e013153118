/*
 * easy.c -- one EASY-P_R-P_B scheduling pass (csrc/SEMANTICS.md, "One pass").
 *
 * Cost of a pass: ordering the queues (see policies.c), then one walk of the
 * primary order from its first queued job to the head, one walk of the
 * running jobs up to the shadow time, and the backfilling walk, stopping as
 * soon as no processor is free.  A long static backfilling order (at least
 * sl_tree_min entries, walked at length, stable for two passes) is walked by blocks: a min-tree of block
 * summaries skips, in O(log) steps, every block that holds no job that
 * could start (issue 17: 1e6 jobs queued at once no longer cost O(queued)
 * per pass).  A dynamic order (SEXP, LEXP, WFP, mixed with expansion) is
 * kept between passes by its kinetic order (policies.c, issue 33: only the
 * pairs whose certificate expired are compared), so its walk uses the block
 * summaries too; a swap across a block boundary re-summarises both blocks.
 *
 * Two shortcuts, each giving exactly the plain pass's result (issue 19;
 * sl_debug_shortcuts turns them off, for the tests): a pass in which no
 * queued job fits in the free processors is skipped (none_fits), and a pass
 * that finds nothing improved since the last one -- typically a submission
 * without a completion -- backfills only the jobs submitted since
 * (backfill_new: O(new jobs) instead of O(queued)).  With P_B ordering like
 * P_R, one queue (pq) serves both (s->shared).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "queue.h"
#include "blocks.h"

/* Is job j over the threshold at time t (wait strictly greater than T)? */
static inline int over(const sl_sim *s, int32_t j, int64_t t)
{
    return s->C.threshold >= 0 && t - s->J.submit[j] > s->C.threshold;
}

static inline int64_t free_procs(const sl_sim *s)
{
    return (int64_t)s->C.m - s->used;
}

/* Shadow time and extra processors for the head job (step 3). */
static void reserve(const sl_sim *s, int32_t head, int64_t t, int64_t *shadow, int64_t *extra)
{
    int64_t avail = free_procs(s);
    const int64_t need = s->J.procs[head];
    int32_t k = 0;
    int64_t when = t;
    while (k < s->nrun && avail < need) {
        const int32_t j = s->run[k++];
        const int64_t e = s->rend[j];
        when = e > t ? e : t;
        avail += s->J.procs[j];
    }
    /* Every running job whose estimated end is also the shadow time. */
    while (k < s->nrun) {
        const int32_t j = s->run[k];
        const int64_t e = s->rend[j];
        if ((e > t ? e : t) != when)
            break;
        avail += s->J.procs[j];
        k++;
    }
    *shadow = when;
    *extra = avail - need;
}

/* The backfilling step under way: its time, head and shadow time, and the
 * processors free now and extra at the shadow time (both kept here as
 * jobs start, not recomputed from the simulation at every try). */
typedef struct bf_walk {
    int64_t t, shadow, free, extra;
    int32_t head;
} bf_walk;

/* Try job j in the backfilling step; returns 1 if it started. */
static inline int try_backfill(sl_sim *s, int32_t j, bf_walk *w)
{
    const int64_t q = s->J.procs[j];
    if (q > w->free)
        return 0;
    if (w->t + sl_est(s, j) <= w->shadow) {
        /* ends by the shadow time: extra unchanged */
    } else if (q <= w->extra) {
        w->extra -= q;
    } else {
        return 0;
    }
    sl_machine_start(s, j, w->t, (uint8_t)(SL_BACKFILLED | (over(s, j, w->t) ? SL_FORCED : 0)));
    w->free -= q;               /* = free_procs(s) */
    return 1;
}

/* ------------------------------------------ block summaries of a queue -- */

_Atomic int32_t sl_tree_min = 1024;

int32_t sl_debug_tree_min(int32_t n)
{
    const int32_t old = sl_tree_min;
    sl_tree_min = n < 0 ? 0 : n;
    return old;
}

static int alloc_tree(const sl_sim *s, sl_queue *q)
{
    int32_t cap = 1;
    while ((int64_t)cap * SL_BLOCK < s->n)
        cap *= 2;
    q->tcap = cap;
    q->tk = sl_block_bucket(s->C.m) + 1;
    q->tq = malloc(2 * (size_t)cap * sizeof *q->tq);
    q->te = malloc(2 * (size_t)cap * (size_t)q->tk * sizeof *q->te);
    if (q->tq == NULL || q->te == NULL) {
        free(q->tq);
        free(q->te);
        q->tq = NULL;
        q->te = NULL;
        return 0;
    }
    return 1;
}

/* The tree over the blocks in use: O(len + blocks x buckets). */
static void build(const sl_sim *s, sl_queue *q)
{
    int32_t tn = 1;
    while ((int64_t)tn * SL_BLOCK < q->len)
        tn *= 2;
    q->tn = tn;
    for (int32_t b = 0; b < tn; b++)
        sl_block_leaf(s, q, b, q->first);
    for (int32_t v = tn - 1; v >= 1; v--)
        sl_block_merge(q, v);
    q->tvalid = 1;
}

/* May node v hold a job that try_backfill would start (q <= free and
 * either q <= extra or estimate <= slack)?  A necessary condition: the
 * bucket kf of free counts every q <= 2^kf >= free. */
static inline int may_fit(const sl_queue *q, int32_t v, int64_t free, int32_t kf, int64_t extra, int64_t slack)
{
    return q->tq[v] <= free && (q->tq[v] <= extra || q->te[(size_t)v * (size_t)q->tk + (size_t)kf] <= slack);
}

/* First block >= b0 that may hold a job to backfill, or -1. */
static int32_t next_block(const sl_queue *q, int32_t b0, int64_t free, int64_t extra, int64_t slack)
{
    if (b0 >= q->tn)
        return -1;
    const int32_t kf = sl_block_bucket(free);
    int32_t v = q->tn + b0;
    for (;;) {
        if (may_fit(q, v, free, kf, extra, slack)) {
            if (v >= q->tn)
                return v - q->tn;
            v = 2 * v;
            continue;
        }
        while (v & 1)
            v /= 2;
        if (v == 0)
            return -1;
        v++;
    }
}

static void tour_walk(sl_sim *s, sl_queue *q, bf_walk *w);

/* The backfilling walk of queue q (every queued job but the head, in
 * order, until no processor is free): entry by entry for a short queue or
 * a dynamic order re-sorted at every pass; for a long kept one (static, or
 * in a valid kinetic order), only
 * the blocks whose summary may hold a job that fits, each re-summarised
 * once walked.  The same jobs start, in the same order: a block skipped
 * holds none that try_backfill would start.  O(log + blocks walked). */
static void walk(sl_sim *s, sl_queue *q, bf_walk *w)
{
    /* The summaries pay when the queue is long, the walks are long (most
     * entries fit nowhere) and the queue keeps its shape for a while (a
     * push or compaction means a rebuild); sl_tree_min = 0 forces them. */
    if (q->tmode) {
        tour_walk(s, q, w);
        return;
    }
    const int32_t live = q->len - q->first;
    const int tree = sl_queue_kept(q) &&
        (sl_tree_min == 0 || (live >= sl_tree_min && (q->tvalid || (q->calm >= 2 && q->walked >= live / 2))));
    q->calm = q->calm < INT32_MAX ? q->calm + 1 : q->calm;
    if (!tree || (q->tq == NULL && !alloc_tree(s, q))) {
        int32_t i = q->first;
        for (; i < q->len && w->free > 0; i++) {
            const int32_t j = q->idx[i];
            if (s->state[j] == SL_QUEUED && j != w->head)
                try_backfill(s, j, w);
        }
        q->walked = i - q->first;
        return;
    }
    q->walked = live;
    if (!q->tvalid)
        build(s, q);
    int32_t i = q->first;
    while (i < q->len && w->free > 0) {
        const int32_t b = next_block(q, i / SL_BLOCK, w->free, w->extra, w->shadow - w->t);
        if (b < 0)
            break;
        const int32_t lo = b * SL_BLOCK > i ? b * SL_BLOCK : i;
        const int32_t hi = (b + 1) * SL_BLOCK < q->len ? (b + 1) * SL_BLOCK : q->len;
        for (i = lo; i < hi && w->free > 0; i++) {
            const int32_t j = q->idx[i];
            if (s->state[j] == SL_QUEUED && j != w->head)
                try_backfill(s, j, w);
        }
        sl_block_summarise(s, q, b);
        i = hi;
    }
}

/* The backfilling walk of a queue kept as a tournament (tour.c): the
 * next job to start is the first in order that can start, q <= free and
 * (q <= extra or t + estimate <= shadow); a job that could not start at
 * some point of the walk cannot later in it (free and extra only fall),
 * so these are exactly the jobs the plain walk starts, in its order.  The
 * positions hold the jobs by (q, estimate): those with q <= min(free,
 * extra) are a prefix (one range query), and those of a count q in
 * (extra, free] whose estimate fits are a prefix of its run (sl_tour_fit). */
static void tour_walk(sl_sim *s, sl_queue *q, bf_walk *w)
{
    sl_tour *T = q->tour;
    const int64_t t = w->t, slack = w->shadow - w->t;
    int32_t ghi = T->G;         /* runs [0, ghi) have q <= free */
    while (w->free > 0) {
        s->cnt.tour[2]++;
        sl_tour_refresh(s, q, t);   /* after the jobs started so far */
        while (ghi > 0 && T->gq[ghi - 1] > w->free)
            ghi--;
        int32_t gx = ghi;       /* runs [gx, ghi) have q > extra */
        while (gx > 0 && T->gq[gx - 1] > w->extra)
            gx--;
        /* The first job of every run with q <= free: the answer if it can
         * start; else it is a job of (extra, free] that cannot, and the
         * two parts are asked apart. */
        int32_t best = sl_tour_range_min(s, q, 0, T->glo[ghi], t, -1);
        if (best < 0)
            break;
        if (s->J.procs[best] > w->extra && s->est[best] > slack) {
            best = sl_tour_range_min(s, q, 0, T->glo[gx], t, -1);
            best = sl_tour_fit(s, q, gx, ghi, slack, t, best);
            if (best < 0)
                break;
        }
        if (!try_backfill(s, best, w))
            SL_ASSERT(!"tour_walk: the first job that can start did not");
    }
}

/* Step 4 over every queued job. */
static void backfill(sl_sim *s, bf_walk *w)
{
    const int64_t t = w->t;
    /* EASY-P-P: the primary queue, ordered at t a moment ago, is the
     * backfilling order too (s->shared; keeping or sorting a second copy
     * would double the cost of the queues). */
    sl_queue *bq = &s->pq;
    if (!s->shared) {
        bq = &s->bq;
        sl_queue_order(s, bq, t);
    }
    if (s->C.threshold_backfill && s->C.threshold >= 0) {
        /* Over-threshold jobs first, in FCFS order (a prefix of fq). */
        for (int32_t i = s->fq.first; i < s->fq.len && w->free > 0; i++) {
            const int32_t j = s->fq.idx[i];
            if (!over(s, j, t))
                break;
            if (j != w->head && s->state[j] == SL_QUEUED)
                try_backfill(s, j, w);
        }
        /* Then the others in P_B order: not over is r_j >= t - T. */
        const int64_t lim = t - s->C.threshold;
        for (int32_t i = bq->first; i < bq->len && w->free > 0; i++) {
            const int32_t j = bq->idx[i];
            if (s->state[j] == SL_QUEUED && s->J.submit[j] >= lim && j != w->head)
                try_backfill(s, j, w);
        }
    } else {
        walk(s, bq, w);
    }
}

/* ------------------------------------------ backfilling only the new jobs --
 *
 * A job that could not start in a pass's backfilling step cannot start in a
 * later one while nothing has improved: it failed either for want of
 * processors (q_j > free) or because it would end after the shadow time
 * and takes more than the extra processors (t' + e_j > S and q_j > extra);
 * free and extra only fall during the walk, so it fails at the values the
 * walk ended with (free_f, S, extra_f), and a job the walk did not reach
 * (it stops when free reaches 0; the block summaries skip only blocks
 * without a job that could start) fails there too, as does the head.  At a
 * later pass t >= t' (its estimate unchanged while it waits) with free <=
 * free_f, shadow S' <= S and extra' <= extra_f, it fails again, whatever
 * the order: the backfilling step then starts exactly the jobs the full
 * walk would start, by trying only the jobs submitted since, in the
 * backfilling order.  Typically a submission, with no completion since the
 * last pass: O(new jobs) instead of O(queued).  The primary walk and the
 * reservation are computed as always (a change of the order, a threshold
 * crossing, a correction or a primary start shows in S' and extra'). */

static _Atomic int32_t sl_shortcuts = 1;

int32_t sl_debug_shortcuts(int32_t on)
{
    const int32_t old = sl_shortcuts;
    sl_shortcuts = on != 0;
    return old;
}

/* Record what the pass leaves: every job still queued failed at
 * (free, shadow, extra) or would (no job queued: nothing to fail). */
static void record(sl_sim *s, int64_t free, int64_t shadow, int64_t extra)
{
    s->bf_valid = 1;
    s->bf_mark = s->next_sub;
    s->bf_free = free;
    s->bf_shadow = shadow;
    s->bf_extra = extra;
}

/* The backfilling step by the new jobs only, if the record allows it (see
 * above; the backfilling order is a strict total order, the keys being
 * finite, so the new jobs sorted alone keep their order in the queue).  Returns 1 if done
 * (w updated), 0 if the full walk is needed. */
static int backfill_new(sl_sim *s, bf_walk *w)
{
    const int64_t t = w->t;
    const int32_t head = w->head;
    if (!sl_shortcuts || !s->bf_valid || w->free > s->bf_free || w->shadow > s->bf_shadow || w->extra > s->bf_extra)
        return 0;
    sl_queue *bq = s->shared ? &s->pq : &s->bq;
    if (!s->shared)
        sl_queue_order(s, bq, t);       /* the keys at t (before scratch is used) */
    /* The new queued jobs (usually one) ... */
    int32_t *c = s->scratch, k = 0;
    for (int32_t j = s->bf_mark; j < s->next_sub; j++) {
        if (j == head || s->state[j] != SL_QUEUED)
            continue;
        if (over(s, j, t))
            return 0;       /* it would lead the order (never: new jobs have not waited) */
        c[k++] = j;
    }
    /* ... in backfilling order. */
    for (int32_t a = 1; a < k; a++) {
        const int32_t j = c[a];
        int32_t i = a;
        while (i > 0 && sl_queue_before_at(s, bq, j, c[i - 1], t)) {
            c[i] = c[i - 1];
            i--;
        }
        c[i] = j;
    }
    for (int32_t i = 0; i < k && w->free > 0; i++)
        try_backfill(s, c[i], w);
    return 1;
}

/* Steps 1-2: start jobs in primary order; returns the head job or -1. */
static int32_t start_in_order(sl_sim *s, int64_t t)
{
    if (s->C.threshold >= 0) {
        for (int32_t i = s->fq.first; i < s->fq.len; i++) {
            const int32_t j = s->fq.idx[i];
            if (!over(s, j, t))
                break;
            if (s->state[j] != SL_QUEUED)
                continue;
            if (s->J.procs[j] > free_procs(s))
                return j;
            sl_machine_start(s, j, t, SL_FORCED);
        }
    }
    if (s->pq.tmode) {
        /* The tournament's winner while it fits (no threshold here). */
        for (;;) {
            const int32_t j = sl_tour_top(s, &s->pq, t);
            if (j < 0)
                return -1;
            if (s->J.procs[j] > free_procs(s))
                return j;
            sl_machine_start(s, j, t, 0);
        }
    }
    for (int32_t i = s->pq.first; i < s->pq.len; i++) {
        const int32_t j = s->pq.idx[i];
        if (s->state[j] != SL_QUEUED || over(s, j, t))
            continue;
        if (s->J.procs[j] > free_procs(s))
            return j;
        sl_machine_start(s, j, t, 0);
    }
    return -1;
}

/* The increments of the incremental correction (Tsafrir et al., used by
 * gaussier2015 §5.2): 1m 5m 15m 30m 1h 2h 5h 10h 20h 50h 100h; the last
 * one repeats. */
static const int64_t INCREMENTS[] = {60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000};
#define NINCREMENTS ((int)(sizeof INCREMENTS / sizeof INCREMENTS[0]))

static int64_t corrected(sl_sim *s, int32_t j, int64_t t)
{
    const int64_t start = s->O.start[j], req = s->J.req[j];
    int64_t e = s->est[j];
    switch (s->C.correction) {
    case SL_CORR_REQUESTED:
        e = req;
        break;
    case SL_CORR_INCREMENTAL: {
        /* Add the next increment while the estimated end is <= t and e < p~.
         * The first NINCREMENTS - 1 steps one by one; from then on every
         * step adds the last increment D: k steps at once, k the smallest
         * count that ends the loop (start + e + k D > t or e + k D >= p~).
         * O(1) however far t is (issue 17); same result as stepping. */
        while (start + e <= t && e < req && s->ncorr[j] < NINCREMENTS - 1) {
            e += INCREMENTS[s->ncorr[j]];
            s->ncorr[j]++;
        }
        if (start + e <= t && e < req) {
            const int64_t D = INCREMENTS[NINCREMENTS - 1];
            const int64_t k_time = (t - start - e) / D + 1;   /* first k with e + k D > t - start */
            const int64_t k_req = (req - e + D - 1) / D;     /* first k with e + k D >= p~ */
            const int64_t k = k_time < k_req ? k_time : k_req;
            e += k * D;
            s->ncorr[j] = (uint8_t)(s->ncorr[j] + k < 255 ? s->ncorr[j] + k : 255);
        }
        break;
    }
    case SL_CORR_DOUBLING: {
        const int64_t elapsed = t - start;
        e = elapsed > 0 ? 2 * elapsed : 1;
        break;
    }
    default:
        break;
    }
    return e < req ? e : req;
}

/* Running jobs whose estimate has expired (estimated end <= t while they
 * still run) get a corrected estimate (gaussier2015 §5.2).  They form a
 * prefix of the running array: O(expired x (log running + moves)). */
static void correct_estimates(sl_sim *s, int64_t t)
{
    if (s->C.correction == SL_CORR_NOW)
        return;
    int32_t k = 0;
    while (k < s->nrun && s->rend[s->run[k]] <= t)
        s->scratch[k] = s->run[k], k++;
    for (int32_t i = 0; i < k; i++) {
        const int32_t j = s->scratch[i];
        sl_run_remove(s, j);
        s->est[j] = corrected(s, j, t);
        sl_run_insert(s, j);
    }
}

/* sl_queue_tidy, and a short static queue (walked entry by entry) is
 * compacted as soon as a third of its entries are started jobs, which every
 * walk would skip again (sl_queue_tidy waits for half plus 32).  Any
 * compaction keeps the order; the order being strict and total (finite
 * keys), the positions new jobs get among the queued ones do not depend on
 * the started entries left. */
static void tidy(sl_sim *s, sl_queue *q)
{
    sl_queue_tidy(s, q);
    const int32_t live = s->nqueued, stale = q->len - q->first - live;
    if (sl_queue_kept(q) && live < sl_tree_min && stale > live / 2 + 4)
        sl_queue_compact(s, q);
}

/* Can no queued job start now, for want of processors (free < every
 * queued job's q)?  s->minq is exact while nminq > 0; otherwise it is a
 * lower bound, made exact here by a scan of fq when it does not already
 * answer (once per exhaustion of the least q), if the scan is worth it:
 * in a short queue, or when the pass it may save re-sorts a dynamic order
 * (a long static queue's passes are cheap enough: measured). */
/* s->minq and s->nminq made exact by a scan of the FCFS queue. */
void sl_minq_rescan(sl_sim *s)
{
    int64_t mq = INT64_MAX;
    int32_t cnt = 0;
    for (int32_t i = s->fq.first; i < s->fq.len; i++) {
        const int32_t j = s->fq.idx[i];
        if (s->state[j] != SL_QUEUED)
            continue;
        const int64_t q = s->J.procs[j];
        if (q < mq)
            mq = q, cnt = 0;
        cnt += q == mq;
    }
    s->minq = mq;
    s->nminq = cnt;
}

#define SL_MINQ_SCAN 64
static int none_fits(sl_sim *s)
{
    const int64_t free = free_procs(s);
    if (free < s->minq)
        return 1;
    if (s->nminq > 0 || (s->nqueued > SL_MINQ_SCAN && !s->pq.dynamic && (s->shared || !s->bq.dynamic)))
        return 0;
    sl_minq_rescan(s);
    return free < s->minq;
}

/* The pass at t up to step 2: returns 0 if it ends there (nothing queued,
 * or nothing fits), 1 with the queues in their order at t. */
static inline int pass_begin(sl_sim *s, int64_t t)
{
    if (s->nqueued == 0)
        return 0;
    correct_estimates(s, t);
    /* A pass in which no queued job fits in the free processors starts
     * nothing (its head is its first job, every backfilling try fails on
     * q > free): skipped, orders and all (the keys being finite, a later
     * re-sort gives the order it would have given from any start). */
    if (sl_shortcuts && none_fits(s)) {
        record(s, free_procs(s), INT64_MAX, INT64_MAX);
        return 0;
    }
    sl_queue_order(s, &s->fq, t);
    sl_queue_order(s, &s->pq, t);
    return 1;
}

int sl_easy_pass_begin(sl_sim *s, int64_t t)
{
    return pass_begin(s, t);
}

void sl_easy_pass(sl_sim *s, int64_t t)
{
    if (pass_begin(s, t))
        sl_easy_pass_end(s, t, start_in_order(s, t));
}

void sl_easy_pass_end(sl_sim *s, int64_t t, int32_t head)
{
    if (head >= 0 && free_procs(s) > 0) {
        bf_walk w = {.t = t, .head = head, .free = free_procs(s)};
        reserve(s, head, t, &w.shadow, &w.extra);
        if (!backfill_new(s, &w))
            backfill(s, &w);
        record(s, w.free, w.shadow, w.extra);
    } else {
        /* No processor free (every queued job wants one), or none queued. */
        record(s, head >= 0 ? 0 : INT64_MAX, INT64_MAX, INT64_MAX);
    }
    sl_queue_tidy(s, &s->fq);
    tidy(s, &s->pq);
    if (!s->shared)
        tidy(s, &s->bq);
}
