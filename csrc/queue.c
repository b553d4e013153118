/*
 * queue.c -- the queues (csrc/internal.h, "LAYERS"): which structure keeps
 * a queue in its order.  A static order is kept sorted as jobs are queued
 * (sl_queue_push); a dynamic one, at each pass, by the tournament of a long
 * queue (tour.c) or else by policies.c's kinetic list or re-sort.  The
 * orders themselves (keys, ties, certificates) are policies.c's; this unit
 * only chooses between the structures, and so sits above both.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "queue.h"

/* Queue job j.  A static order is kept sorted at all times (binary search
 * and memmove: O(log len + moves)); a dynamic or dirty one is appended to
 * and sorted at the next pass. */
void sl_queue_push(sl_sim *s, sl_queue *q, int32_t j, int64_t t)
{
    q->tvalid = 0;
    q->calm = 0;
    if (q->dynamic || q->dirty) {
        q->idx[q->len++] = j;
        if (q->tmode)
            sl_tour_pushed(q, j);
        return;
    }
    q->key[j] = q->pol.kind == SL_FCFS ? (double)s->J.submit[j] : sl_policy_key(s, &q->pol, j, t);
    /* With a strict total order, a job that goes after the last entry goes
     * at the end (always so in FCFS order, submissions being in order). */
    if (q->len > q->first && sl_queue_before(s, q, q->idx[q->len - 1], j)) {
        q->idx[q->len++] = j;
        return;
    }
    int32_t lo = q->first, hi = q->len;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo) / 2;
        if (sl_queue_before(s, q, q->idx[mid], j))
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(q->idx + lo + 1, q->idx + lo, (size_t)(q->len - lo) * sizeof *q->idx);
    q->idx[lo] = j;
    q->len++;
}

/* Bring q into its order at time t (sl_queue_order: a static order is
 * always in order): a long dynamic one by its tournament, any other by
 * policies.c's sl_queue_sort (the kinetic list or a re-sort). */
void sl_queue_reorder(sl_sim *s, sl_queue *q, int64_t t)
{
    if (q->pol.kind == SL_PYKEYS) {
        sl_queue_sort_pykeys(s, q, t);
        return;
    }
    if (sl_tour_wanted(s, q)) {
        if (q->dirty) {
            q->dirty = 0;
            if (q->tour != NULL)
                q->tour->valid = 0;
        }
        q->kvalid = 0;
        if (sl_tour_reorder(s, q, t))
            return;
    }
    if (q->tmode) {
        /* Leaving the tournament: idx is in no order, sorted below. */
        q->tmode = 0;
        q->dirty = 1;
        if (q->tour != NULL)
            q->tour->valid = 0;
    }
    sl_queue_sort(s, q, t);
}

int32_t sl_queue_first(sl_sim *s, sl_queue *q, int64_t t)
{
    if (q->tmode)
        return sl_tour_top(s, q, t);
    for (int32_t i = q->first; i < q->len; i++) {
        const int32_t j = q->idx[i];
        if (s->state[j] == SL_QUEUED)
            return j;
    }
    return -1;
}

void sl_queue_free(sl_queue *q)
{
    free(q->tq);
    free(q->te);
    free(q->kexp);
    free(q->kseg);
    sl_tour_free(q);
}

/* The simulation's debug counters added to the process totals. */
void sl_counts_flush(sl_sim *s)
{
    sl_kin_flush(s);
    sl_tour_flush(s);
}
