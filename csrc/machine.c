/*
 * machine.c -- the machine's state (csrc/internal.h, "LAYERS"): the running
 * jobs, starting a job, a completion, a submission (the scheduler's
 * estimate made, the job queued) and a false small job queued again.  The
 * passes (easy.c, schedgym.c, dispatch.c, multiqueue.c) start jobs here;
 * the event loop (engine.c) completes and submits them here.
 *
 * Completions come from a binary min-heap of running jobs on (end, job):
 * O(log running) per completion.  Running jobs are also kept in an array
 * sorted by estimated end so that the shadow time is a prefix walk;
 * insertion and removal are a binary search plus a memmove.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "queue.h"

/* ---------------------------------------------------------------- heap -- */

static inline int heap_less(const sl_sim *s, int32_t a, int32_t b)
{
    const int64_t ea = s->O.end[a], eb = s->O.end[b];
    return ea != eb ? ea < eb : a < b;
}

void sl_heap_push(sl_sim *s, int32_t j)
{
    int32_t i = s->nheap++;
    while (i > 0) {
        const int32_t parent = (i - 1) / 2;
        if (!heap_less(s, j, s->heap[parent]))
            break;
        s->heap[i] = s->heap[parent];
        i = parent;
    }
    s->heap[i] = j;
}

int32_t sl_heap_pop(sl_sim *s)
{
    const int32_t top = s->heap[0];
    const int32_t last = s->heap[--s->nheap];
    int32_t i = 0;
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= s->nheap)
            break;
        if (c + 1 < s->nheap && heap_less(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!heap_less(s, s->heap[c], last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap > 0)
        s->heap[i] = last;
    return top;
}

/* ------------------------------------------- running jobs by estimated end -- */

static inline int run_less(const sl_sim *s, int32_t a, int32_t b)
{
    const int64_t ea = s->rend[a], eb = s->rend[b];
    return ea != eb ? ea < eb : a < b;
}

/* First position whose job is not before j. */
static int32_t run_lower_bound(const sl_sim *s, int32_t j)
{
    int32_t lo = 0, hi = s->nrun;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (run_less(s, s->run[mid], j))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sl_run_insert(sl_sim *s, int32_t j)
{
    s->rend[j] = s->O.start[j] + sl_est(s, j);
    const int32_t pos = run_lower_bound(s, j);
    memmove(s->run + pos + 1, s->run + pos, (size_t)(s->nrun - pos) * sizeof *s->run);
    s->run[pos] = j;
    s->nrun++;
}

void sl_run_remove(sl_sim *s, int32_t j)
{
    const int32_t pos = run_lower_bound(s, j); /* s->run[pos] == j */
    memmove(s->run + pos, s->run + pos + 1, (size_t)(s->nrun - pos - 1) * sizeof *s->run);
    s->nrun--;
}

void sl_machine_start(sl_sim *s, int32_t j, int64_t t, uint8_t flags)
{
    s->state[j] = SL_RUNNING;
    s->nqueued--;
    s->O.start[j] = t;
    s->O.end[j] = t + s->dur[j];
    if (s->cls != NULL && s->cls[j]) {
        /* A false small job: killed when its elapsed time exceeds its divider. */
        const int64_t d = sl_divider(s, j);
        if (d >= 0 && s->dur[j] > d) {
            s->O.end[j] = t + d;
            s->doomed[j] = 1;
        }
    }
    s->O.flags[j] = (uint8_t)(s->O.flags[j] | flags);
    if (s->J.procs[j] == s->minq)
        s->nminq--;
    s->used += s->J.procs[j];
    sl_heap_push(s, j);
    sl_run_insert(s, j);
    if (s->learn != NULL)
        sl_learn_started(s, j);
    if (s->pq.tmode || s->bq.tmode)
        sl_tour_started(s, j);
}

/* The scheduler's estimate of a newly submitted job (SL_EST_EASYPP,
 * SL_EST_CALLBACK and SL_EST_LEARNED are computed now, from what has
 * completed so far). */
static int predict(sl_sim *s, int32_t j, int64_t t)
{
    const int64_t req = s->J.req[j];
    if (s->C.estimate == SL_EST_EASYPP) {
        const int32_t u = s->J.user[j];
        const int64_t e = s->hcount[u] == 0 ? req
                        : s->hcount[u] == 1 ? s->hist1[u]
                                            : (s->hist1[u] + s->hist2[u]) / 2;
        s->est[j] = e < req ? e : req;
    } else if (s->C.estimate == SL_EST_CALLBACK) {
        const int64_t e = s->C.predict(s->C.ctx, j, t);
        if (e < 0 || e > SL_TIME_MAX) {
            snprintf(s->err, sizeof s->err, "job %lld (index %d): the estimator returned %lld, outside 0..2^61",
                     (long long)s->J.id[j], (int)j, (long long)e);
            return SL_EINVAL;
        }
        s->est[j] = e;
    } else if (s->C.estimate == SL_EST_LEARNED) {
        s->est[j] = sl_learn_predict(s, j, t);
    }
    if (s->O.predicted != NULL)
        s->O.predicted[j] = s->est[j];
    return SL_OK;
}

/* What the scheduler learns when job j completes at t. */
static void observe(sl_sim *s, int32_t j, int64_t t)
{
    if (s->C.estimate == SL_EST_EASYPP) {
        const int32_t u = s->J.user[j];
        s->hist2[u] = s->hist1[u];
        s->hist1[u] = s->dur[j];
        if (s->hcount[u] < 2)
            s->hcount[u]++;
    } else if (s->C.estimate == SL_EST_CALLBACK && s->C.observe != NULL) {
        s->C.observe(s->C.ctx, j, t, s->dur[j]);
    } else if (s->C.estimate == SL_EST_LEARNED) {
        sl_learn_observe(s, j, t);
    }
}

static inline void queue_job(sl_sim *s, int32_t j, int64_t t)
{
    const int64_t q = s->J.procs[j];
    if (s->nqueued == 0 || q < s->minq) {
        s->minq = q;
        s->nminq = 1;
    } else if (q == s->minq) {
        s->nminq++;
    }
    s->state[j] = SL_QUEUED;
    s->nqueued++;
    sl_queue_push(s, &s->fq, j, t);
    sl_queue_push(s, &s->pq, j, t);
    if (!s->shared)
        sl_queue_push(s, &s->bq, j, t);
}

/* Kill a false small job at time t (its work is lost) and queue it again as
 * large, keeping its submit time (thesis Algorithm 4, idempotent jobs). */
void sl_machine_requeue(sl_sim *s, int32_t j, int64_t t)
{
    sl_run_remove(s, j);                       /* before its class changes */
    s->bf_valid = 0;                           /* a job queued again, not new */
    if (s->learn != NULL)
        sl_learn_stopped(s, j);                /* before its start changes */
    s->used -= s->J.procs[j];
    s->doomed[j] = 0;
    /* The queues may still hold j's entries from its first stay: drop them. */
    sl_queue_compact(s, &s->fq);
    sl_queue_compact(s, &s->pq);
    sl_queue_compact(s, &s->bq);
    if (s->O.first_start != NULL && s->O.first_start[j] < 0)
        s->O.first_start[j] = s->O.start[j];
    /* The flags describe the run that completes: those of the killed run go. */
    s->O.flags[j] = (uint8_t)((s->O.flags[j] & ~(SL_BACKFILLED | SL_FORCED | SL_BORROWED)) | SL_REQUEUED);
    s->O.start[j] = -1;
    s->O.end[j] = -1;
    s->cls[j] = 0;
    queue_job(s, j, t);
}

/* Job j, taken off the heap, completes at t. */
void sl_machine_complete(sl_sim *s, int32_t j, int64_t t)
{
    s->state[j] = SL_DONE;
    s->used -= s->J.procs[j];
    s->ndone++;
    sl_run_remove(s, j);
    if (s->mq != NULL)
        sl_mq_completed(s, j);
    observe(s, j, t);
}

/* The next job (s->next_sub) is submitted at t. */
int sl_machine_submit(sl_sim *s, int64_t t)
{
    if (predict(s, s->next_sub, t) != SL_OK) {
        s->failed = 1;
        return SL_EINVAL;
    }
    if (s->mq != NULL)
        sl_mq_submitted(s, s->next_sub);
    queue_job(s, s->next_sub++, t);
    return SL_OK;
}
