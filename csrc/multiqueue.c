/*
 * multiqueue.c -- multiple-queue backfilling (lawson2005 §2.1, Figure 2),
 * the weekly recomputation of the partitioning criteria (Figure 3) and the
 * reconfiguration rules of Appendix A.1-A.3.  The contract is the last
 * section of csrc/SEMANTICS.md ("Multiple-queue backfilling"); this file
 * implements it, tests/reference_multiqueue.py re-implements it slowly.
 *
 * State (struct sl_mq, allocated once when the pass is enabled):
 *   P partitions; the criteria (P-1 boundaries on the scheduler's estimate
 *   and the top t_P); the processors each partition is home to and how many
 *   of them are busy; for every running job, how many processors it holds
 *   in each partition (a slot of an m x 16 table); the partition of every
 *   submitted job; pinned pivots and held reservations (Appendix A.2); the
 *   completed jobs in completion order (Figure 3).
 *
 * Cost of a pass: one walk of the FCFS queue; one walk of the running jobs
 * (sorted by estimated end) per start to recompute every reservation:
 * O(queued + (1 + starts) x running x holders), no allocation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "queue.h"

/* ------------------------------------------------------------ helpers -- */

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* In-place heapsort of v[0..n-1] (no allocation, unlike some qsorts). */
static void sift(int64_t *v, int32_t i, int32_t n)
{
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && v[c + 1] > v[c])
            c++;
        if (v[i] >= v[c])
            return;
        const int64_t tmp = v[i];
        v[i] = v[c];
        v[c] = tmp;
        i = c;
    }
}

static void heapsort64(int64_t *v, int32_t n)
{
    for (int32_t i = n / 2 - 1; i >= 0; i--)
        sift(v, i, n);
    for (int32_t end = n - 1; end > 0; end--) {
        const int64_t tmp = v[0];
        v[0] = v[end];
        v[end] = tmp;
        sift(v, 0, end);
    }
}

/* ----------------------------------------------------- criteria (Fig. 3) -- */

/* Balanced criteria from the estimates v[0..n-1] (n >= 1, sorted): boundary
 * k (1..P-1) is v[k*n/P], the top t_P is v[n-1]. */
static void quantile_bounds(struct sl_mq *mq, const int64_t *v, int32_t n)
{
    for (int32_t k = 1; k < mq->np; k++)
        mq->bounds[k - 1] = v[(int64_t)k * n / mq->np];
    mq->bounds[mq->np - 1] = v[n - 1];
}

/* Uniform reassignment of the top t_P over P' partitions (A.1, Fig. 10):
 * boundary k is floor(k * t_P / P'). */
static void uniform_bounds(int64_t *out, int64_t top, int32_t np)
{
    for (int32_t k = 1; k < np; k++)
        out[k - 1] = (top / np) * k + (top % np) * k / np;
    out[np - 1] = top;
}

/* The first boundary strictly after x (boundaries: origin + k*period, k >= 1). */
static int64_t boundary_after(const struct sl_mq *mq, int64_t x)
{
    if (x < mq->origin + mq->period)
        return mq->origin + mq->period;
    const int64_t k = (x - mq->origin) / mq->period + 1;
    if (k > (INT64_MAX / 2) / mq->period)       /* |origin|, period <= INT64_MAX/4 */
        return INT64_MAX;
    return mq->origin + k * mq->period;
}

/* Recompute the criteria at every boundary b <= t from the jobs that
 * completed in [b - period, b) (Figure 3); an empty window keeps them. */
void sl_mq_advance(sl_sim *s, int64_t t)
{
    struct sl_mq *mq = s->mq;
    if (mq == NULL || mq->period <= 0)
        return;
    if (t > INT64_MAX / 2)
        t = INT64_MAX / 2;
    while (mq->next <= t) {
        const int64_t b = mq->next;
        while (mq->cpos < mq->ncomp && s->O.end[mq->comp[mq->cpos]] < b - mq->period)
            mq->cpos++;
        if (mq->cpos == mq->ncomp || s->O.end[mq->comp[mq->cpos]] >= b) {
            /* Empty window: jump to the first boundary whose window may
             * hold a completion, or past t. */
            const int64_t past = boundary_after(mq, t);
            const int64_t target = mq->cpos < mq->ncomp ? boundary_after(mq, s->O.end[mq->comp[mq->cpos]]) : past;
            mq->next = min64(target, past);
            continue;
        }
        int32_t cnt = 0;
        while (mq->cpos < mq->ncomp && s->O.end[mq->comp[mq->cpos]] < b)
            mq->vals[cnt++] = s->est[mq->comp[mq->cpos++]];
        heapsort64(mq->vals, cnt);
        quantile_bounds(mq, mq->vals, cnt);
        mq->nrecompute++;
        mq->next = b > INT64_MAX - mq->period ? INT64_MAX : b + mq->period;
    }
}

int sl_mq_policy_ok(const sl_policy *primary, const sl_policy *backfill, int64_t threshold)
{
    return primary->kind == SL_FCFS && backfill->kind == SL_FCFS && threshold < 0;
}

/* ---------------------------------------------------------------- pass -- */

static inline int64_t idle(const struct sl_mq *mq, int32_t k) { return mq->home[k] - mq->busy[k]; }

static int32_t add_res(struct sl_mq *mq, int32_t j, int32_t age)
{
    sl_mq_res *r = &mq->res[mq->nres];
    r->job = j;
    r->part = mq->part[j];
    r->age = age;
    r->active = 1;
    return mq->nres++;
}

static int32_t res_of(const struct sl_mq *mq, int32_t j)
{
    for (int32_t i = 0; i < mq->nres; i++)
        if (mq->res[i].active && mq->res[i].job == j)
            return i;
    return -1;
}

static int pin_valid(const sl_sim *s, int32_t k)
{
    const int32_t p = s->mq->pin[k];
    return p >= 0 && s->state[p] == SL_QUEUED && s->mq->part[p] == k;
}

/* The holders of this pass: the pivot of each partition (its pinned pivot,
 * else its first queued job in arrival order) and the held jobs. */
static void collect(sl_sim *s)
{
    struct sl_mq *mq = s->mq;
    mq->nres = 0;
    for (int32_t k = 0; k < mq->np; k++) {
        mq->pivot[k] = -1;
        mq->first[k] = -1;
        if (!pin_valid(s, k))
            mq->pin[k] = -1;
    }
    for (int32_t i = 0; i < s->fq.len; i++) {
        const int32_t j = s->fq.idx[i];
        if (s->state[j] != SL_QUEUED)
            continue;
        const int32_t k = mq->part[j];
        if (mq->first[k] < 0)
            mq->first[k] = i;
        const int is_pivot = mq->pin[k] == j || (mq->pin[k] < 0 && mq->first[k] == i);
        if (is_pivot)
            mq->pivot[k] = j;
        if (is_pivot || mq->held[j])
            add_res(mq, j, i);
    }
}

/* After the pivot of partition k started: its next queued job in arrival
 * order becomes the pivot (and a holder, if it is not one already). */
static void next_pivot(sl_sim *s, int32_t k)
{
    struct sl_mq *mq = s->mq;
    mq->pivot[k] = -1;
    mq->pin[k] = -1;
    for (int32_t i = mq->first[k]; i >= 0 && i < s->fq.len; i++) {
        const int32_t j = s->fq.idx[i];
        if (s->state[j] == SL_QUEUED && mq->part[j] == k) {
            mq->first[k] = i;
            mq->pivot[k] = j;
            if (res_of(mq, j) < 0)
                add_res(mq, j, i);
            return;
        }
    }
    mq->first[k] = -1;
}

/* Reservation (shadow time t, extra x) of every active holder: a holder
 * needing at most the processors of its partition reserves among them
 * (local): idle ones now, and those running jobs (of any partition) hold
 * there at their estimated ends; otherwise among all processors (wide),
 * exactly as EASY.  As EASY's step 3: the first time q are available; every
 * other running job ending at that same time counts too.  One walk of the
 * running jobs for all holders. */
static void reserve_all(sl_sim *s, int64_t t)
{
    struct sl_mq *mq = s->mq;
    const int64_t free_all = (int64_t)s->C.m - s->used;
    int32_t open = 0;
    for (int32_t i = 0; i < mq->nres; i++) {
        sl_mq_res *r = &mq->res[i];
        if (!r->active)
            continue;
        const int64_t q = s->J.procs[r->job];
        r->wide = q > mq->home[r->part];
        r->avail = r->wide ? free_all : idle(mq, r->part);
        r->t = t;
        r->state = r->avail >= q;
        open++;
    }
    for (int32_t k = 0; k < s->nrun && open > 0; k++) {
        const int32_t j = s->run[k];
        const int64_t e0 = s->O.start[j] + sl_est(s, j);
        const int64_t e = e0 > t ? e0 : t;
        const int32_t *a = sl_mq_row(mq, j);
        for (int32_t i = 0; i < mq->nres; i++) {
            sl_mq_res *r = &mq->res[i];
            if (!r->active || r->state == 2)
                continue;
            if (r->state == 1 && e > r->t) {
                r->state = 2;
                open--;
                continue;
            }
            r->avail += r->wide ? s->J.procs[j] : a[r->part];
            if (r->state == 0 && r->avail >= s->J.procs[r->job]) {
                r->state = 1;
                r->t = e;
            }
        }
    }
    for (int32_t i = 0; i < mq->nres; i++) {
        sl_mq_res *r = &mq->res[i];
        if (r->active)
            r->x = r->avail - s->J.procs[r->job];
    }
}

/* Is holder r protected from the start of job j (age, holder or not)? */
static inline int protects(const sl_mq_res *r, int32_t j, int32_t age, int holder)
{
    return r->active && r->job != j && (!holder || r->age < age);
}

static int has_holder(const struct sl_mq *mq, int32_t k)
{
    for (int32_t i = 0; i < mq->nres; i++)
        if (mq->res[i].active && mq->res[i].part == k)
            return 1;
    return 0;
}

/* Figure 2 for one job: start j now on idle processors of its own
 * partition and, if needed, of others, unless that would delay a protected
 * holder.  cap[k]: the idle processors of partition k, at most the extra of
 * every protected local holder of k whose reservation j outlasts. */
static int try_start(sl_sim *s, int32_t j, int32_t age, int holder, int64_t t)
{
    struct sl_mq *mq = s->mq;
    const int32_t l = mq->part[j];
    const int64_t q = s->J.procs[j];
    const int64_t end = t + sl_est(s, j);
    int64_t cap[SL_MAX_PARTITIONS];
    for (int32_t k = 0; k < mq->np; k++)
        cap[k] = idle(mq, k);
    for (int32_t i = 0; i < mq->nres; i++) {
        const sl_mq_res *r = &mq->res[i];
        if (!protects(r, j, age, holder) || end <= r->t)
            continue;
        if (r->wide) {
            if (q > r->x)
                return 0;                    /* would delay a wide holder */
        } else if (r->x < cap[r->part]) {
            cap[r->part] = r->x;
        }
    }
    int64_t total = 0;
    for (int32_t k = 0; k < mq->np; k++)
        total += cap[k];
    if (total < q)
        return 0;
    /* Own partition first; then partitions nobody waits in, then the
     * others, each in index order. */
    const int32_t slot = mq->freeslot[--mq->nfree];
    mq->slot[j] = slot;
    int32_t *a = sl_mq_row(mq, j);
    for (int32_t k = 0; k < mq->np; k++)
        a[k] = 0;
    int64_t need = q;
    const int64_t use = min64(cap[l], need);
    a[l] = (int32_t)use;
    need -= use;
    for (int round = 0; round < 2 && need > 0; round++) {
        for (int32_t k = 0; k < mq->np && need > 0; k++) {
            if (k == l || has_holder(mq, k) != round)
                continue;
            const int64_t take = min64(cap[k], need);
            a[k] = (int32_t)take;
            need -= take;
        }
    }
    for (int32_t k = 0; k < mq->np; k++)
        mq->busy[k] += a[k];
    uint8_t flags = holder ? 0 : SL_BACKFILLED;
    if (use < q)
        flags = (uint8_t)(flags | SL_BORROWED);
    sl_machine_start(s, j, t, flags);
    return 1;
}

void sl_mq_pass(sl_sim *s, int64_t t)
{
    struct sl_mq *mq = s->mq;
    if (s->nqueued == 0)
        return;
    sl_queue_order(s, &s->fq, t);
    if (s->used < s->C.m) {
        collect(s);
        reserve_all(s, t);
        for (int32_t i = 0; i < s->fq.len && s->used < s->C.m; i++) {
            const int32_t j = s->fq.idx[i];
            if (s->state[j] != SL_QUEUED)
                continue;
            const int32_t r = res_of(mq, j);
            if (!try_start(s, j, i, r >= 0, t))
                continue;
            if (r >= 0) {
                mq->res[r].active = 0;
                const int32_t k = mq->part[j];
                if (mq->pivot[k] == j)
                    next_pivot(s, k);
            }
            mq->held[j] = 0;
            reserve_all(s, t);
        }
    }
    sl_queue_tidy(s, &s->fq);
    sl_queue_tidy(s, &s->pq);
    sl_queue_tidy(s, &s->bq);
}

/* ------------------------------------------------------ reconfiguration -- */

static void mq_free(struct sl_mq *mq)
{
    if (mq == NULL)
        return;
    free(mq->part); free(mq->slot); free(mq->alloc); free(mq->freeslot);
    free(mq->held); free(mq->comp); free(mq->vals); free(mq->res);
    free(mq);
}

void sl_mq_free(struct sl_mq *mq) { mq_free(mq); }

static struct sl_mq *mq_alloc(int32_t n, int32_t m)
{
    struct sl_mq *mq = calloc(1, sizeof *mq);
    if (mq == NULL)
        return NULL;
    const size_t nn = n > 0 ? (size_t)n : 1;
    const size_t mm = (size_t)m;
    mq->part = malloc(nn * sizeof *mq->part);
    mq->slot = malloc(nn * sizeof *mq->slot);
    mq->alloc = malloc(mm * SL_MAX_PARTITIONS * sizeof *mq->alloc);
    mq->freeslot = malloc(mm * sizeof *mq->freeslot);
    mq->held = calloc(nn, sizeof *mq->held);
    mq->comp = malloc(nn * sizeof *mq->comp);
    mq->vals = malloc(nn * sizeof *mq->vals);
    mq->res = malloc((nn + SL_MAX_PARTITIONS) * sizeof *mq->res);
    if (!mq->part || !mq->slot || !mq->alloc || !mq->freeslot || !mq->held || !mq->comp || !mq->vals ||
        !mq->res) {
        mq_free(mq);
        return NULL;
    }
    for (size_t j = 0; j < nn; j++) {
        mq->part[j] = -1;
        mq->slot[j] = -1;
    }
    /* Rows are handed out from the top of the stack: row 0 first. */
    for (int32_t i = 0; i < m; i++)
        mq->freeslot[i] = m - 1 - i;
    mq->nfree = m;
    for (int32_t k = 0; k < SL_MAX_PARTITIONS; k++)
        mq->pin[k] = -1;
    return mq;
}

int sl_mq_clone(sl_sim *dst, const sl_sim *src)
{
    if (src->mq == NULL)
        return SL_OK;
    struct sl_mq *mq = mq_alloc(src->n, src->C.m);
    if (mq == NULL)
        return SL_ENOMEM;
    const struct sl_mq *from = src->mq;
    int32_t *part = mq->part, *slot = mq->slot, *alloc = mq->alloc, *freeslot = mq->freeslot, *comp = mq->comp;
    uint8_t *held = mq->held;
    int64_t *vals = mq->vals;
    sl_mq_res *res = mq->res;
    *mq = *from;
    mq->part = part; mq->slot = slot; mq->alloc = alloc; mq->freeslot = freeslot;
    mq->held = held; mq->comp = comp; mq->vals = vals; mq->res = res;
    const size_t n = (size_t)src->n, m = (size_t)src->C.m;
    memcpy(mq->part, from->part, n * sizeof *mq->part);
    memcpy(mq->slot, from->slot, n * sizeof *mq->slot);
    memcpy(mq->freeslot, from->freeslot, m * sizeof *mq->freeslot);
    memcpy(mq->held, from->held, n * sizeof *mq->held);
    memcpy(mq->comp, from->comp, (size_t)from->ncomp * sizeof *mq->comp);
    for (int32_t i = 0; i < src->nrun; i++) {          /* only the rows in use */
        const size_t r = (size_t)from->slot[src->run[i]] * SL_MAX_PARTITIONS;
        memcpy(mq->alloc + r, from->alloc + r, SL_MAX_PARTITIONS * sizeof *mq->alloc);
    }
    dst->mq = mq;
    return SL_OK;
}

/* The holders of the current state, in arrival order: the pivot of each
 * partition and the held jobs (with no multi-queue state yet: the head of
 * the single FCFS queue).  Returns their number; out has room for n. */
static int32_t current_holders(sl_sim *s, int32_t *out)
{
    struct sl_mq *mq = s->mq;
    int32_t cnt = 0;
    if (mq->np == 0) {
        for (int32_t i = 0; i < s->fq.len; i++)
            if (s->state[s->fq.idx[i]] == SL_QUEUED) {
                out[cnt++] = s->fq.idx[i];
                break;
            }
        return cnt;
    }
    collect(s);
    for (int32_t i = 0; i < mq->nres; i++)
        out[cnt++] = mq->res[i].job;
    return cnt;
}

static int check_bounds(sl_sim *s, int32_t np, const int64_t *bounds)
{
    for (int32_t k = 0; k < np; k++) {
        if (bounds[k] < 0 || (k > 0 && bounds[k] < bounds[k - 1])) {
            snprintf(s->err, sizeof s->err,
                     "partitioning criteria must be >= 0 and non-decreasing (criterion %d is %lld)",
                     (int)k, (long long)bounds[k]);
            return SL_EINVAL;
        }
    }
    return SL_OK;
}

/* Equal split of the processors (m/P, the first m mod P one more); the
 * running jobs, in the order of the running array (estimated end, index),
 * hold processors of their own partition first, then of the others in
 * index order, as far as each has room. */
static void place_running(sl_sim *s)
{
    struct sl_mq *mq = s->mq;
    const int32_t np = mq->np;
    for (int32_t k = 0; k < np; k++) {
        mq->home[k] = s->C.m / np + (k < s->C.m % np ? 1 : 0);
        mq->busy[k] = 0;
    }
    for (int32_t i = 0; i < s->nrun; i++) {
        const int32_t j = s->run[i];
        const int32_t l = mq->part[j];
        int32_t *a = sl_mq_row(mq, j);
        int64_t need = s->J.procs[j];
        for (int32_t k = 0; k < SL_MAX_PARTITIONS; k++)
            a[k] = 0;
        for (int32_t step = -1; step < np && need > 0; step++) {
            const int32_t k = step < 0 ? l : step;
            if (step == l)
                continue;
            const int64_t take = min64(idle(mq, k), need);
            a[k] += (int32_t)take;
            mq->busy[k] += take;
            need -= take;
        }
    }
}

int sl_sim_set_partitions(sl_sim *s, int32_t np, const int64_t *bounds)
{
    if (s == NULL)
        return SL_EINVAL;
    if (np < 1 || np > SL_MAX_PARTITIONS) {
        snprintf(s->err, sizeof s->err, "number of partitions %d outside 1..%d", (int)np, SL_MAX_PARTITIONS);
        return SL_EINVAL;
    }
    if (s->dispatch && sl_dispatch_check(s, -1, 1) != SL_OK)
        return SL_EINVAL;
    if (s->sg != NULL) {
        snprintf(s->err, sizeof s->err, "SchedGym's rules have one queue, not multiple-queue backfilling (partitions)");
        return SL_EINVAL;
    }
    if (!sl_mq_policy_ok(&s->C.primary, &s->C.backfill, s->C.threshold) || s->cls != NULL ||
        s->C.correction != SL_CORR_NOW) {
        snprintf(s->err, sizeof s->err, "multiple-queue backfilling needs FCFS queues without threshold, "
                 "job classes or estimate corrections");
        return SL_EINVAL;
    }
    if (bounds == NULL && s->mq == NULL) {
        snprintf(s->err, sizeof s->err, "the first partitioning needs its criteria");
        return SL_EINVAL;
    }
    if (bounds != NULL && check_bounds(s, np, bounds) != SL_OK)
        return SL_EINVAL;
    if (s->mq != NULL && s->mq->np == np) {
        /* Same P: new criteria for the jobs submitted from now on. */
        if (bounds != NULL)
            memcpy(s->mq->bounds, bounds, (size_t)np * sizeof *bounds);
        return SL_OK;
    }
    int fresh = 0;
    if (s->mq == NULL) {
        s->mq = mq_alloc(s->n, s->C.m);
        if (s->mq == NULL)
            return SL_ENOMEM;
        fresh = 1;
        /* Running jobs (a single-queue simulation switched to partitions). */
        for (int32_t i = 0; i < s->nrun; i++)
            s->mq->slot[s->run[i]] = s->mq->freeslot[--s->mq->nfree];
    }
    struct sl_mq *mq = s->mq;
    /* A.2: the holders of the current configuration, in arrival order
     * (into the simulation's scratch array, free between passes). */
    int32_t *old = s->scratch;
    const int32_t nold = current_holders(s, old);
    /* A.1: the new criteria (given, or the uniform reassignment of t_P). */
    int64_t nb[SL_MAX_PARTITIONS];
    if (bounds != NULL)
        memcpy(nb, bounds, (size_t)np * sizeof *nb);
    else
        uniform_bounds(nb, mq->bounds[mq->np - 1], np);
    memcpy(mq->bounds, nb, (size_t)np * sizeof *nb);
    mq->np = np;
    /* Queued and running jobs are repartitioned by their estimates;
     * completed jobs keep the partition they ran in. */
    for (int32_t j = 0; j < s->n; j++) {
        if (s->state[j] == SL_QUEUED || s->state[j] == SL_RUNNING)
            mq->part[j] = sl_mq_assign(mq, s->est[j]);
        mq->held[j] = 0;
    }
    place_running(s);
    /* A.2: the oldest old holder of each new partition becomes its pivot,
     * the others keep a reservation (held). */
    for (int32_t k = 0; k < SL_MAX_PARTITIONS; k++)
        mq->pin[k] = -1;
    for (int32_t i = 0; i < nold; i++) {
        const int32_t h = old[i];
        const int32_t k = mq->part[h];
        if (mq->pin[k] < 0)
            mq->pin[k] = h;
        else
            mq->held[h] = 1;
    }
    if (!fresh)
        mq->nreconfig++;
    mq->nres = 0;
    return SL_OK;
}

int sl_sim_set_recompute(sl_sim *s, int64_t period, int64_t origin)
{
    if (s == NULL)
        return SL_EINVAL;
    if (s->mq == NULL) {
        snprintf(s->err, sizeof s->err, "criteria recomputation needs partitions (sl_sim_set_partitions first)");
        return SL_ESTATE;
    }
    if (origin < INT64_MIN / 4 || origin > INT64_MAX / 4 || period > INT64_MAX / 4) {
        snprintf(s->err, sizeof s->err, "recomputation period or origin out of range");
        return SL_EINVAL;
    }
    struct sl_mq *mq = s->mq;
    mq->period = period;
    mq->origin = origin;
    if (period > 0)
        mq->next = s->now == INT64_MIN ? origin + period : boundary_after(mq, s->now);
    return SL_OK;
}

int sl_sim_set_cutoff(sl_sim *s, int64_t last_submit)
{
    if (s == NULL)
        return SL_EINVAL;
    /* Time never moves backwards: a job let in now must not be submitted at
     * or before a time already processed (its submission would be an event
     * in the past; e.g. it could start while processors were full). */
    if (s->next_sub < s->n) {
        const int64_t r = s->J.submit[s->next_sub];
        if (r <= last_submit && r <= s->clock) {
            snprintf(s->err, sizeof s->err, "job %lld (index %d) submitted at %lld would be submitted in the past: "
                     "the simulation has processed every event up to %lld (set the cutoff before running past it, "
                     "or raise it on a clone taken earlier)",
                     (long long)s->J.id[s->next_sub], (int)s->next_sub, (long long)r, (long long)s->clock);
            return SL_EINVAL;
        }
    }
    s->cutoff = last_submit;
    return SL_OK;
}

int sl_sim_partitions(const sl_sim *s, sl_partitions *out)
{
    if (s == NULL || out == NULL)
        return SL_EINVAL;
    memset(out, 0, sizeof *out);
    const struct sl_mq *mq = s->mq;
    for (int32_t k = 0; k < SL_MAX_PARTITIONS; k++)
        out->pivot[k] = -1;
    if (mq == NULL)
        return SL_OK;
    out->nparts = mq->np;
    out->period = mq->period;
    out->origin = mq->origin;
    out->next = mq->next;
    out->recomputed = mq->nrecompute;
    out->reconfigured = mq->nreconfig;
    for (int32_t k = 0; k < mq->np; k++) {
        out->bounds[k] = mq->bounds[k];
        out->home[k] = mq->home[k];
        out->busy[k] = mq->busy[k];
        const int32_t p = mq->pin[k];
        if (p >= 0 && s->state[p] == SL_QUEUED && mq->part[p] == k)
            out->pivot[k] = p;
    }
    for (int32_t i = 0; i < s->nrun; i++) {
        const int32_t j = s->run[i];
        out->lent[mq->part[j]] += s->J.procs[j] - sl_mq_row(mq, j)[mq->part[j]];
    }
    for (int32_t i = 0; i < s->fq.len; i++) {
        const int32_t j = s->fq.idx[i];
        if (s->state[j] != SL_QUEUED)
            continue;
        const int32_t k = mq->part[j];
        out->queued[k]++;
        if (out->pivot[k] < 0)
            out->pivot[k] = j;
        if (mq->held[j])
            out->held++;
    }
    return SL_OK;
}

int sl_sim_job_partitions(const sl_sim *s, int32_t *out, int64_t n)
{
    if (s == NULL || (out == NULL && n > 0) || n != s->n)
        return SL_EINVAL;
    for (int32_t j = 0; j < s->n; j++)
        out[j] = s->mq != NULL ? s->mq->part[j] : -1;
    return SL_OK;
}
