/*
 * blocks.h -- the block summaries of a queue (sl_queue's tq, te: a min-tree
 * over blocks of SL_BLOCK positions; easy.c, "block summaries of a queue").
 * easy.c builds and walks them; policies.c's kinetic list re-summarises the
 * two blocks a swap crosses.  Defined here, static, so that neither unit
 * calls the other (csrc/internal.h, "LAYERS") and the walk's calls stay
 * local.  The leaf and the re-summary are static, not inline, as they were
 * in easy.c: marked inline, the compiler inlined them into the walk, which
 * cost 2% more instructions there (callgrind, bench/callgrind_core.py curie).
 */
#ifndef SCHEDLAB_BLOCKS_H
#define SCHEDLAB_BLOCKS_H

#include <stdint.h>
#include <string.h>

#include "internal.h"

/* Processor bucket of q >= 1: q - 1 up to SL_EXACT_Q (one bucket per
 * count: the summaries are exact there), then one per power of two.
 * Non-decreasing in q. */
#define SL_EXACT_Q 64
static inline int32_t sl_block_bucket(int64_t q)
{
    if (q <= SL_EXACT_Q)
        return (int32_t)(q - 1);
    int32_t k = SL_EXACT_Q;
    while (k < SL_EXACT_Q + 40 && ((int64_t)SL_EXACT_Q << (k - SL_EXACT_Q + 1)) < q)
        k++;
    return k;
}

static inline void sl_block_merge(sl_queue *q, int32_t v)
{
    const int32_t a = 2 * v, c = 2 * v + 1, K = q->tk;
    q->tq[v] = q->tq[a] < q->tq[c] ? q->tq[a] : q->tq[c];
    int64_t *e = q->te + (size_t)v * (size_t)K;
    const int64_t *ea = q->te + (size_t)a * (size_t)K, *ec = q->te + (size_t)c * (size_t)K;
    for (int32_t k = 0; k < K; k++)
        e[k] = ea[k] < ec[k] ? ea[k] : ec[k];
}

/* Leaf of block b from the jobs queued in positions [from, block end). */
static __attribute__((unused)) void sl_block_leaf(const sl_sim *s, sl_queue *q, int32_t b, int32_t from)
{
    const int32_t K = q->tk, v = q->tn + b;
    int64_t *e = q->te + (size_t)v * (size_t)K;
    int32_t mq = INT32_MAX;
    for (int32_t k = 0; k < K; k++)
        e[k] = INT64_MAX;
    const int32_t lo = b * SL_BLOCK > from ? b * SL_BLOCK : from;
    const int32_t hi = (b + 1) * SL_BLOCK < q->len ? (b + 1) * SL_BLOCK : q->len;
    for (int32_t i = lo; i < hi; i++) {
        const int32_t j = q->idx[i];
        if (s->state[j] != SL_QUEUED)
            continue;
        const int32_t pj = s->J.procs[j];
        if (pj < mq)
            mq = pj;
        const int32_t k = sl_block_bucket(pj);
        const int64_t ej = sl_est(s, j);
        if (ej < e[k])
            e[k] = ej;
    }
    for (int32_t k = 1; k < K; k++)
        if (e[k - 1] < e[k])
            e[k] = e[k - 1];
    q->tq[v] = mq;
}

/* Block b re-summarised, and its ancestors as long as they change. */
static __attribute__((unused)) void sl_block_summarise(const sl_sim *s, sl_queue *q, int32_t b)
{
    sl_block_leaf(s, q, b, 0);
    const size_t K = (size_t)q->tk;
    int64_t old[SL_EXACT_Q + 48];
    for (int32_t v = (q->tn + b) / 2; v >= 1; v /= 2) {
        const int32_t oq = q->tq[v];
        int64_t *e = q->te + (size_t)v * K;
        memcpy(old, e, K * sizeof *e);
        sl_block_merge(q, v);
        if (q->tq[v] == oq && memcmp(old, e, K * sizeof *e) == 0)
            break;      /* unchanged: so is everything above */
    }
}

/* Block b of q's summaries recomputed (q->tvalid), after a kinetic swap
 * moved a job across a block boundary (policies.c). */
static inline void sl_queue_summarise(const sl_sim *s, sl_queue *q, int32_t b)
{
    if (b < q->tn)
        sl_block_summarise(s, q, b);
}

#endif
