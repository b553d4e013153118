/*
 * dispatch.c -- decisions by the caller (issue 44, schedlab/JobDispatch-v0;
 * csrc/SEMANTICS.md, "Decisions by the caller").
 *
 * In dispatch mode, step 2 of the pass (start_in_order's walk of the
 * primary order, easy.c) is the caller's.  When a queued job fits in the
 * free processors, sl_sim_run stops in the middle of the pass and returns
 * SL_DECIDE; the caller names a queued job with sl_sim_decide:
 *   - it fits: it starts now; while a queued job still fits, the next
 *     decision of the same pass follows (sl_sim_decide returns SL_DECIDE);
 *     then the pass ends behind the first queued job of the primary order
 *     (nothing fits: whichever head, no job can start in steps 3-4);
 *   - it does not fit: it is the head, and the pass goes on as EASY's
 *     (reservation, backfilling in P_B order, easy.c's sl_easy_pass_end).
 * A pass in which no queued job fits asks nothing.  Every pass chooses its
 * head anew, so an agent that always names the job P_R would put first
 * makes start_in_order's choices: EASY-P_R-P_B job for job.
 *
 * Cost: O(1) per decision but the exact "does a queued job fit" test,
 * which scans the queue once each time the jobs of the least processor
 * count have all started (as easy.c's none_fits).
 *
 * The event loop (engine.c) runs sl_dispatch_pass instead of easy.c's pass
 * in dispatch mode: easy.c's steps before and after step 2, this unit's
 * step 2 between them (csrc/internal.h, "LAYERS": easy.c below, never
 * calling back).
 */
#include <stdio.h>

#include "internal.h"
#include "queue.h"

static inline int64_t free_now(const sl_sim *s)
{
    return (int64_t)s->C.m - s->used;
}

/* Does a queued job fit in the free processors now?  Exact: s->minq, a
 * lower bound of the queued jobs' q while nminq = 0, is made exact by a
 * scan of the queued jobs then. */
static int some_fits(sl_sim *s)
{
    const int64_t free = free_now(s);
    if (s->nqueued == 0 || free < s->minq)
        return 0;
    if (s->nminq > 0)
        return 1;
    sl_minq_rescan(s);
    return free >= s->minq;
}

/* The first queued job of the primary order (ordered at this pass), or -1:
 * start_in_order's head when no queued job fits. */
static inline int32_t first_queued(sl_sim *s, int64_t t)
{
    return sl_queue_first(s, &s->pq, t);
}

/* EASY's pass at t with step 2 the caller's: a pending decision pauses
 * the pass, which sl_sim_decide ends. */
void sl_dispatch_pass(sl_sim *s, int64_t t)
{
    if (!sl_easy_pass_begin(s, t))
        return;
    if (!some_fits(s)) {
        sl_easy_pass_end(s, t, first_queued(s, t));
        return;
    }
    s->dpending = 1;
    s->dt = t;
}

int sl_dispatch_check(sl_sim *s, int64_t threshold, int partitioned)
{
    if (partitioned) {
        snprintf(s->err, sizeof s->err, "dispatch mode (decisions by the caller) has one primary queue, "
                 "not multiple-queue backfilling (partitions)");
        return SL_EINVAL;
    }
    if (threshold >= 0) {
        snprintf(s->err, sizeof s->err, "dispatch mode (decisions by the caller) takes no threshold "
                 "(over-threshold jobs would lead the order the caller chooses)");
        return SL_EINVAL;
    }
    return SL_OK;
}

void sl_dispatch_clone(sl_sim *dst, const sl_sim *src)
{
    dst->dispatch = src->dispatch;
    dst->dpending = src->dpending;
    dst->dt = src->dt;
}

int sl_sim_set_dispatch(sl_sim *s, int32_t on)
{
    if (s == NULL)
        return SL_EINVAL;
    if (s->dpending) {
        snprintf(s->err, sizeof s->err, "a decision is pending (sl_sim_decide first)");
        return SL_ESTATE;
    }
    if (on && sl_dispatch_check(s, s->C.threshold, s->mq != NULL) != SL_OK)
        return SL_EINVAL;
    s->dispatch = on != 0;
    return SL_OK;
}

static const char *state_name(uint8_t st)
{
    switch (st) {
    case SL_PENDING: return "not submitted yet";
    case SL_RUNNING: return "running";
    case SL_DONE: return "done";
    default: return "queued";
    }
}

int sl_sim_decide(sl_sim *s, int32_t j)
{
    if (s == NULL)
        return SL_EINVAL;
    if (!s->dpending) {
        snprintf(s->err, sizeof s->err, "no decision is pending (sl_sim_run did not return SL_DECIDE)");
        return SL_ESTATE;
    }
    if (j < 0 || j >= s->n) {
        snprintf(s->err, sizeof s->err, "job index %d outside 0..%d", (int)j, (int)s->n - 1);
        return SL_EINVAL;
    }
    if (s->state[j] != SL_QUEUED) {
        snprintf(s->err, sizeof s->err, "job %lld (index %d) is %s, not queued", (long long)s->J.id[j],
                 (int)j, state_name(s->state[j]));
        return SL_EINVAL;
    }
    if (s->sg != NULL)
        return sl_sg_decide(s, j);      /* SchedGym's rules: j is held until it starts */
    const int64_t t = s->dt;
    int32_t head = j;
    if (s->J.procs[j] <= free_now(s)) {
        sl_machine_start(s, j, t, 0);
        if (some_fits(s))
            return SL_DECIDE;       /* the next decision of this pass */
        head = first_queued(s, t);
    }
    s->dpending = 0;
    sl_easy_pass_end(s, t, head);
    return s->failed ? SL_EINVAL : SL_OK;
}

int sl_sim_dispatch(const sl_sim *s, int32_t *on, int32_t *pending, int64_t *t)
{
    if (s == NULL)
        return SL_EINVAL;
    if (on != NULL)
        *on = s->dispatch;
    if (pending != NULL)
        *pending = s->dpending;
    if (t != NULL)
        *t = s->dpending ? s->dt : INT64_MIN;
    return SL_OK;
}

int sl_sim_queued(sl_sim *s, int32_t *out, int32_t max, int32_t *count)
{
    if (s == NULL || count == NULL || (max > 0 && out == NULL))
        return SL_EINVAL;
    /* FCFS is a static order: sorting now gives the order the next pass
     * would give (the queue is in it already, but before the first pass). */
    sl_queue_order(s, &s->fq, s->now);
    int32_t k = 0;
    for (int32_t i = s->fq.first; i < s->fq.len && k < max; i++) {
        const int32_t j = s->fq.idx[i];
        if (s->state[j] == SL_QUEUED)
            out[k++] = j;
    }
    *count = k;
    return SL_OK;
}
