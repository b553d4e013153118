/*
 * queue.h -- the queues (queue.c): push, first, free, and which structure
 * keeps a queue in order.  Apart from internal.h so that the units below
 * queue.c in the LAYERS order (internal.h) cannot reach them, even through
 * sl_queue_order, an inline call into queue.c.
 */
#ifndef SCHEDLAB_QUEUE_H
#define SCHEDLAB_QUEUE_H

#include "internal.h"

/* The debug counters' flush into the process totals (sl_counts). */
void sl_counts_flush(sl_sim *s);

void sl_queue_push(sl_sim *s, sl_queue *q, int32_t j, int64_t t);
void sl_queue_reorder(sl_sim *s, sl_queue *q, int64_t t);
/* Bring q into its order at time t: nothing to do for a static order. */
static inline void sl_queue_order(sl_sim *s, sl_queue *q, int64_t t)
{
    if (q->dynamic || q->dirty)
        sl_queue_reorder(s, q, t);
}
/* The first queued job of q, in the order q holds at t (sl_queue_order
 * first when it may be out of date), or -1: the tournament's top, or the
 * first queued entry of idx. */
int32_t sl_queue_first(sl_sim *s, sl_queue *q, int64_t t);
void sl_queue_free(sl_queue *q);

#endif
