/*
 * schedgym.c -- SchedGym's rules (RLScheduler's HPCSimPickJobs, DIR-LAB/
 * deep-batch-scheduler; csrc/SEMANTICS.md, "SchedGym's rules"), a run mode
 * of the core chosen at creation (sl_config.rules).
 *
 * SchedGym does not run passes at event times.  It processes one event at a
 * time -- the next submission if it comes no later than the next completion,
 * else that one completion -- and asks for a job whenever its queue is not
 * empty and no job is held: after a start (same time, same state), or after
 * the submission that ended an empty queue.  The job picked (the first in
 * P_R order, or the caller's in dispatch mode) is held until it fits: events
 * are processed one by one until it does, and with backfilling, before each
 * of them, the queued jobs are tried in submission order and start if they
 * fit now and end, by their estimate, strictly before the pick's earliest
 * start (computed once, when the pick is found not to fit).
 *
 * Two orders of SchedGym's Python lists are kept exactly (both are stable
 * sorts of lists that jobs join at the end):
 *   - completions at one instant: in start order, except that two jobs both
 *     running when SchedGym last sorted its running jobs by estimated end
 *     (when a pick was found not to fit, with backfilling) go by estimated
 *     end first (seq, born, nsorts below);
 *   - the backfilling walk: submit time, and among jobs submitted at the same
 *     time, those queued at the pick in P_R order at the pick's time (SchedGym
 *     sorted its queue by P_R then), the others after them in arrival order.
 *
 * Cost: O(running) per pick that does not fit, O(queued) per backfilling
 * walk (one before every event while a pick waits), O(log running) per event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "queue.h"

struct sl_sg {
    int32_t backfill;       /* SL_RULES_SCHEDGYM: backfilling behind the pick */
    int32_t pick;           /* the job held, or -1                        */
    int32_t mark;           /* jobs [0, mark) had been submitted at the pick */
    int32_t has_shadow;     /* shadow is the held pick's earliest start   */
    int64_t tpick, shadow;
    int64_t nstarts;        /* jobs started so far                        */
    int64_t nsorts;         /* sorts of the running jobs by estimated end */
    int64_t *seq;           /* seq[j]: job j's rank among the starts      */
    int64_t *born;          /* born[j]: nsorts when job j started         */
};

int sl_sg_check(const sl_config *C, const sl_policy *primary, const sl_policy *backfill, int64_t threshold,
                char *err, size_t errlen)
{
    const char *why = NULL;
    if (threshold >= 0)
        why = "no threshold";
    else if (backfill->kind != SL_FCFS)
        why = "the backfilling policy FCFS (SchedGym backfills in submission order)";
    else if (primary->kind == SL_PYKEYS)
        why = "a primary policy that is not a Python key function";
    else if (C->tie != SL_TIE_OLDEST)
        why = "the default tie order (oldest first)";
    else if (C->correction != SL_CORR_NOW)
        why = "no estimate correction";
    else if (C->estimate != SL_EST_REQUESTED && C->estimate != SL_EST_ACTUAL && C->estimate != SL_EST_ARRAY)
        why = "a requested, actual or array estimate";
    if (why == NULL)
        return SL_OK;
    sl_set_err(err, errlen, "SchedGym's rules need %s", why);
    return SL_EINVAL;
}

int sl_sg_new(sl_sim *s)
{
    struct sl_sg *g = calloc(1, sizeof *g);
    const size_t n = s->n > 0 ? (size_t)s->n : 1;
    if (g == NULL)
        return SL_ENOMEM;
    g->seq = malloc(n * sizeof *g->seq);
    g->born = malloc(n * sizeof *g->born);
    if (g->seq == NULL || g->born == NULL) {
        sl_sg_free(g);
        return SL_ENOMEM;
    }
    g->backfill = s->C.rules == SL_RULES_SCHEDGYM;
    g->pick = -1;
    s->sg = g;
    return SL_OK;
}

void sl_sg_free(struct sl_sg *g)
{
    if (g == NULL)
        return;
    free(g->seq);
    free(g->born);
    free(g);
}

int sl_sg_clone(sl_sim *dst, const sl_sim *src)
{
    if (src->sg == NULL)
        return SL_OK;
    if (sl_sg_new(dst) != SL_OK)
        return SL_ENOMEM;
    struct sl_sg *g = dst->sg;
    int64_t *seq = g->seq, *born = g->born;
    *g = *src->sg;
    g->seq = seq;
    g->born = born;
    memcpy(seq, src->sg->seq, (size_t)src->n * sizeof *seq);
    memcpy(born, src->sg->born, (size_t)src->n * sizeof *born);
    return SL_OK;
}

/* Atomic, as every debug setting of the core (issue 53 item 5): a test may
 * set it while simulations run on other threads. */
static _Atomic int32_t sl_sg_debug = 0;

int32_t sl_debug_schedgym(int32_t mask)
{
    return atomic_exchange(&sl_sg_debug, mask);
}

static inline int64_t free_procs(const sl_sim *s)
{
    return (int64_t)s->C.m - s->used;
}

static inline void set_now(sl_sim *s, int64_t t)
{
    if (t > s->now)
        s->now = t;
    if (t > s->clock)
        s->clock = t;
}

static void start(sl_sim *s, int32_t j, uint8_t flags)
{
    struct sl_sg *g = s->sg;
    g->seq[j] = g->nstarts++;
    g->born[j] = g->nsorts;
    sl_machine_start(s, j, s->now, flags);
}

/* Of two running jobs that end at the same time, does a complete first?
 * (SchedGym takes the first of its running list sorted by end, stably.) */
static int completes_before(const sl_sim *s, int32_t a, int32_t b)
{
    const struct sl_sg *g = s->sg;
    if (sl_sg_debug & 1)
        return a < b;
    if (g->born[a] < g->nsorts && g->born[b] < g->nsorts && s->rend[a] != s->rend[b])
        return s->rend[a] < s->rend[b];
    return g->seq[a] < g->seq[b];
}

/* One completion: of the running jobs that end first, the one SchedGym
 * takes first. */
static void complete_one(sl_sim *s)
{
    const int64_t e = s->O.end[s->heap[0]];
    int32_t *buf = s->scratch, k = 0, best = 0;
    while (s->nheap > 0 && s->O.end[s->heap[0]] == e)
        buf[k++] = sl_heap_pop(s);
    for (int32_t i = 1; i < k; i++)
        if (completes_before(s, buf[i], buf[best]))
            best = i;
    for (int32_t i = 0; i < k; i++)
        if (i != best)
            sl_heap_push(s, buf[i]);
    set_now(s, e);
    sl_machine_complete(s, buf[best], e);
}

/* One event, if there is one at a time <= until: the next submission if it
 * comes no later than the next completion, else that completion.  Returns
 * 1 if an event was processed; 0 otherwise, *rc set on an error. */
static int step(sl_sim *s, int64_t until, int *rc)
{
    const int sub = s->next_sub < s->n && s->J.submit[s->next_sub] <= s->cutoff;
    const int64_t ts = sub ? s->J.submit[s->next_sub] : INT64_MAX;
    const int64_t te = s->nheap > 0 ? s->O.end[s->heap[0]] : INT64_MAX;
    if (sub && ts <= te) {
        if (ts > until)
            return 0;
        set_now(s, ts);
        if (sl_machine_submit(s, ts) != SL_OK) {
            *rc = SL_EINVAL;
            return 0;
        }
        return 1;
    }
    if (s->nheap == 0 || te > until)
        return 0;
    complete_one(s);
    return 1;
}

/* The pick's earliest start: the estimated end of the running job, in
 * order of estimated ends, with which enough processors are free (not
 * clamped to now: a past time lets nothing backfill, as now would). */
static int64_t earliest_start(const sl_sim *s, int32_t pick)
{
    int64_t avail = free_procs(s), when = s->now;
    const int64_t need = s->J.procs[pick];
    for (int32_t k = 0; k < s->nrun && avail < need; k++) {
        const int32_t j = s->run[k];
        avail += s->J.procs[j];
        when = s->rend[j];
    }
    return when;
}

/* Does a go before b in the backfilling walk (a, b submitted at the same time)? */
static int walk_before(const sl_sim *s, int32_t a, int32_t b)
{
    const struct sl_sg *g = s->sg;
    if (sl_sg_debug & 2)
        return sl_tie_before(s, a, b);
    if ((a < g->mark) != (b < g->mark))
        return a < g->mark;
    if (a < g->mark) {
        const double ka = sl_policy_key(s, &s->C.primary, a, g->tpick);
        const double kb = sl_policy_key(s, &s->C.primary, b, g->tpick);
        if (ka != kb)
            return ka < kb;
    }
    return sl_tie_before(s, a, b);
}

static void try_start(sl_sim *s, int32_t j)
{
    const struct sl_sg *g = s->sg;
    const int64_t end = s->now + sl_est(s, j);
    if (j != g->pick && s->J.procs[j] <= free_procs(s) && (end < g->shadow || ((sl_sg_debug & 4) && end == g->shadow)))
        start(s, j, SL_BACKFILLED);
}

/* SchedGym's backfilling walk at now: every queued job, by submit time (ties
 * by walk_before), starts if it fits now and ends, by its estimate, strictly
 * before the held pick's earliest start. */
static void backfill_walk(sl_sim *s)
{
    int32_t *run = s->scratch;
    const sl_queue *q = &s->fq;
    int32_t i = q->first;
    while (i < q->len && free_procs(s) > 0) {
        const int32_t j = q->idx[i++];
        if (s->state[j] != SL_QUEUED)
            continue;
        /* The queued jobs submitted when j was: in walk order. */
        int32_t k = 0;
        run[k++] = j;
        while (i < q->len && s->J.submit[q->idx[i]] == s->J.submit[j]) {
            const int32_t x = q->idx[i++];
            if (s->state[x] != SL_QUEUED)
                continue;
            int32_t p = k++;
            while (p > 0 && walk_before(s, x, run[p - 1])) {
                run[p] = run[p - 1];
                p--;
            }
            run[p] = x;
        }
        for (int32_t r = 0; r < k && free_procs(s) > 0; r++)
            try_start(s, run[r]);
    }
}

static void tidy(sl_sim *s)
{
    sl_queue_tidy(s, &s->fq);
    sl_queue_tidy(s, &s->pq);
    if (!s->shared)
        sl_queue_tidy(s, &s->bq);
}

/* Hold the pick until it fits, then start it.  Returns 1 when it started; 0
 * when the next event lies after until (or on an error, *rc set). */
static int hold(sl_sim *s, int64_t until, int *rc)
{
    struct sl_sg *g = s->sg;
    const int32_t p = g->pick;
    if (g->backfill && !g->has_shadow && s->J.procs[p] > free_procs(s)) {
        g->nsorts++;            /* SchedGym sorts its running jobs by estimated end here */
        g->shadow = earliest_start(s, p);
        g->has_shadow = 1;
    }
    while (s->J.procs[p] > free_procs(s)) {
        if (g->backfill && (sl_sg_debug & 8))
            g->shadow = earliest_start(s, p);
        if (g->backfill)
            backfill_walk(s);
        if (!step(s, until, rc))
            return 0;
    }
    start(s, p, 0);
    g->pick = -1;
    g->has_shadow = 0;
    tidy(s);
    return 1;
}

static void choose(sl_sim *s, int32_t j)
{
    struct sl_sg *g = s->sg;
    g->pick = j;
    g->tpick = s->now;
    g->mark = s->next_sub;
    g->has_shadow = 0;
}

/* The first queued job in P_R order at now. */
static int32_t first_in_order(sl_sim *s)
{
    sl_queue_order(s, &s->pq, s->now);
    return sl_queue_first(s, &s->pq, s->now);
}

int sl_sg_run(sl_sim *s, int64_t until)
{
    struct sl_sg *g = s->sg;
    int rc = SL_OK;
    for (;;) {
        if (g->pick >= 0) {
            if (!hold(s, until, &rc))
                break;
            continue;
        }
        if (s->nqueued > 0) {
            /* A decision at now: the caller's, or P_R's first job. */
            if (s->dispatch) {
                s->dpending = 1;
                s->dt = s->now;
                return SL_DECIDE;
            }
            choose(s, first_in_order(s));
            continue;
        }
        if (!step(s, until, &rc))
            break;
    }
    if (rc != SL_OK)
        return rc;
    if (until != INT64_MAX && until > s->clock)
        s->clock = until;
    return SL_OK;
}

int sl_sg_decide(sl_sim *s, int32_t j)
{
    choose(s, j);
    s->dpending = 0;
    return SL_OK;
}
