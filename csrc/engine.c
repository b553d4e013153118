/*
 * engine.c -- the simulation handle, the top of the core's layers
 * (csrc/internal.h, "LAYERS"): validation, the event loop (which pass runs
 * at an event: EASY's, the caller's decisions, multiple queues or
 * SchedGym's rules), stepping, policy change and cloning.
 *
 * Events: submissions are read in order from the (sorted) job arrays;
 * completions from the machine's heap of running jobs (machine.c).  Every
 * buffer is allocated once in sl_sim_new (O(n) memory); the event loop
 * allocates only the block summaries of a queue the first time it is long
 * (easy.c; O(n / 16) nodes; if that allocation fails, the walk goes entry
 * by entry, same result).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "queue.h"

const char *sl_sim_error(const sl_sim *sim) { return sim ? sim->err : "no simulation"; }

static int64_t next_event(const sl_sim *s)
{
    int64_t t = INT64_MAX;
    if (s->next_sub < s->n && s->J.submit[s->next_sub] <= s->cutoff)
        t = s->J.submit[s->next_sub];
    if (s->nheap > 0 && s->O.end[s->heap[0]] < t)
        t = s->O.end[s->heap[0]];
    return t;
}

/* The events at time t (t = next_event(s)): every completion at t, then
 * every submission at t; the pass at t is the caller's (sl_sim_run, or
 * multi.c, which plans one pass for many policies). */
int sl_engine_events(sl_sim *s, int64_t t)
{
    if (s->mq != NULL)
        sl_mq_advance(s, t);    /* criteria of the boundaries <= t */
    s->now = t;
    if (t > s->clock)
        s->clock = t;
    while (s->nheap > 0 && s->O.end[s->heap[0]] == t) {
        const int32_t j = sl_heap_pop(s);
        if (s->doomed[j]) {
            sl_machine_requeue(s, j, t);
            continue;
        }
        sl_machine_complete(s, j, t);
    }
    while (s->next_sub < s->n && s->J.submit[s->next_sub] == t && t <= s->cutoff)
        if (sl_machine_submit(s, t) != SL_OK)
            return SL_EINVAL;
    return SL_OK;
}

int64_t sl_engine_next_event(const sl_sim *s)
{
    return next_event(s);
}

static int run_to(sl_sim *s, int64_t until)
{
    if (s->failed) {
        snprintf(s->err, sizeof s->err, "the simulation stopped at %s error and cannot run further",
                 s->failed == 2 ? "a policy key function" : "an estimator");
        return SL_ESTATE;
    }
    if (s->dpending)
        return SL_DECIDE;           /* dispatch.c: the pending decision first */
    if (s->sg != NULL)
        return sl_sg_run(s, until); /* schedgym.c: SchedGym's rules */
    for (;;) {
        const int64_t t = next_event(s);
        if (t == INT64_MAX || t > until)
            break;
        if (sl_engine_events(s, t) != SL_OK)
            return SL_EINVAL;
        if (s->mq != NULL) {
            s->bf_valid = 0;
            sl_mq_pass(s, t);
        } else if (s->dispatch) {
            sl_dispatch_pass(s, t); /* EASY's pass, its step 2 the caller's */
        } else {
            sl_easy_pass(s, t);
        }
        if (s->failed)
            return SL_EINVAL;       /* a key function failed in the pass (pykeys_sort) */
        if (s->dpending)
            return SL_DECIDE;       /* the pass waits for sl_sim_decide */
    }
    if (until != INT64_MAX && until > s->clock)
        s->clock = until;
    if (s->mq != NULL && until != INT64_MAX)
        sl_mq_advance(s, until);
    return SL_OK;
}

int sl_sim_run(sl_sim *s, int64_t until)
{
    if (s == NULL)
        return SL_EINVAL;
    const int rc = run_to(s, until);
    sl_counts_flush(s);
    return rc;
}

/* ---------------------------------------------------------- validation -- */

static int check_jobs(const sl_jobs *J, const sl_config *C, char *err, size_t errlen)
{
    if (J->n < 0 || J->n > INT32_MAX - 1) {
        sl_set_err(err, errlen, "number of jobs %lld out of range", (long long)J->n);
        return SL_EINVAL;
    }
    if (J->n > 0 && (!J->submit || !J->run || !J->req || !J->procs || !J->id)) {
        sl_set_err(err, errlen, "a job array is NULL");
        return SL_EINVAL;
    }
    if (C->estimate == SL_EST_ARRAY && J->n > 0 && !J->estimate) {
        sl_set_err(err, errlen, "estimate=array but no estimate array given");
        return SL_EINVAL;
    }
    const int users = C->estimate == SL_EST_EASYPP || C->estimate == SL_EST_LEARNED;
    if (users && J->n > 0 && (!J->user || J->nusers < 1)) {
        sl_set_err(err, errlen, "estimate=%s needs the users of the jobs",
                C->estimate == SL_EST_EASYPP ? "easy++" : "learned");
        return SL_EINVAL;
    }
    if (J->n > 0 && J->divider != NULL && !J->cls) {
        sl_set_err(err, errlen, "a per-job divider needs the classes of the jobs");
        return SL_EINVAL;
    }
    if (C->divider > SL_TIME_MAX) {
        sl_set_err(err, errlen, "divider %lld too large", (long long)C->divider);
        return SL_EINVAL;
    }
    if (C->estimate == SL_EST_CALLBACK && !C->predict) {
        sl_set_err(err, errlen, "estimate=callback but no predict function given");
        return SL_EINVAL;
    }
    for (int64_t i = 0; i < J->n; i++) {
        if (i > 0 && J->submit[i] < J->submit[i - 1]) {
            sl_set_err(err, errlen, "job %lld (index %lld): field submit: %lld is before the previous job's %lld; jobs must be sorted by submit time",
                    (long long)J->id[i], (long long)i, (long long)J->submit[i], (long long)J->submit[i - 1]);
            return SL_EINVAL;
        }
        if (J->run[i] < 0) {
            sl_set_err(err, errlen, "job %lld (index %lld): field run: negative runtime %lld",
                    (long long)J->id[i], (long long)i, (long long)J->run[i]);
            return SL_EINVAL;
        }
        if (J->req[i] < 0) {
            sl_set_err(err, errlen, "job %lld (index %lld): field req: negative requested time %lld",
                    (long long)J->id[i], (long long)i, (long long)J->req[i]);
            return SL_EINVAL;
        }
        if (J->procs[i] < 1 || J->procs[i] > C->m) {
            sl_set_err(err, errlen, "job %lld (index %lld): field procs: %d processors, outside 1..m=%d",
                    (long long)J->id[i], (long long)i, (int)J->procs[i], (int)C->m);
            return SL_EINVAL;
        }
        if (users && (J->user[i] < 0 || J->user[i] >= J->nusers)) {
            sl_set_err(err, errlen, "job %lld (index %lld): field user: index %d outside 0..%d",
                    (long long)J->id[i], (long long)i, (int)J->user[i], (int)J->nusers - 1);
            return SL_EINVAL;
        }
        if (C->estimate == SL_EST_ARRAY && J->estimate[i] < 0) {
            sl_set_err(err, errlen, "job %lld (index %lld): field estimate: negative estimate %lld",
                    (long long)J->id[i], (long long)i, (long long)J->estimate[i]);
            return SL_EINVAL;
        }
        if (J->divider != NULL && J->divider[i] > SL_TIME_MAX) {
            sl_set_err(err, errlen, "job %lld (index %lld): field divider: divider %lld too large",
                    (long long)J->id[i], (long long)i, (long long)J->divider[i]);
            return SL_EINVAL;
        }
        /* Time bounds (SEMANTICS.md, "Time bounds"): no sum of times overflows. */
        if (J->submit[i] < 0) {
            sl_set_err(err, errlen, "job %lld (index %lld): field submit: negative submit time %lld (times start at 0)",
                    (long long)J->id[i], (long long)i, (long long)J->submit[i]);
            return SL_EINVAL;
        }
        const char *big = J->submit[i] > SL_TIME_MAX ? "submit" : J->run[i] > SL_TIME_MAX ? "run"
                        : J->req[i] > SL_TIME_MAX ? "req"
                        : C->estimate == SL_EST_ARRAY && J->estimate[i] > SL_TIME_MAX ? "estimate" : NULL;
        if (big != NULL) {
            const int64_t v = big[0] == 's' ? J->submit[i] : big[0] == 'r' && big[1] == 'u' ? J->run[i]
                            : big[0] == 'r' ? J->req[i] : J->estimate[i];
            sl_set_err(err, errlen, "job %lld (index %lld): field %s: time value too large: %lld > 2^61 s",
                    (long long)J->id[i], (long long)i, big, (long long)v);
            return SL_EINVAL;
        }
    }
    /* The whole timeline: no event happens after the last submit time plus
     * the time every job can hold processors (its duration, plus the part
     * of it a false small job runs before it is killed and requeued). */
    int64_t horizon = J->n > 0 ? J->submit[J->n - 1] : 0;
    for (int64_t i = 0; i < J->n; i++) {
        const int64_t p = J->run[i], req = J->req[i];
        const int64_t dur = p > req && C->overrun == SL_OVERRUN_KILL ? req : p;
        int64_t hold = dur;
        if (J->cls != NULL && J->cls[i]) {
            const int64_t d = J->divider != NULL ? J->divider[i] : C->divider;
            if (d >= 0 && dur > d)
                hold += d;          /* <= 2 * SL_TIME_MAX: no overflow */
        }
        if (hold > SL_TIME_MAX - horizon) {
            sl_set_err(err, errlen, "job %lld (index %lld): time value too large: the last submit time plus the "
                    "runtimes of the jobs up to this one exceed 2^61 s, the bound of every time of a simulation",
                    (long long)J->id[i], (long long)i);
            return SL_EINVAL;
        }
        horizon += hold;
    }
    return SL_OK;
}

static int check_config(const sl_config *C, char *err, size_t errlen)
{
    if (C->m < 1) {
        sl_set_err(err, errlen, "machine size m=%d must be >= 1", (int)C->m);
        return SL_EINVAL;
    }
    if (C->estimate < SL_EST_REQUESTED || C->estimate > SL_EST_LEARNED) {
        sl_set_err(err, errlen, "unknown estimate kind %d", (int)C->estimate);
        return SL_EINVAL;
    }
    if (C->estimate == SL_EST_LEARNED && sl_learn_check(&C->learned, err, errlen) != SL_OK)
        return SL_EINVAL;
    if (C->correction < SL_CORR_NOW || C->correction > SL_CORR_DOUBLING) {
        sl_set_err(err, errlen, "unknown correction kind %d", (int)C->correction);
        return SL_EINVAL;
    }
    if (C->tie != SL_TIE_OLDEST && C->tie != SL_TIE_NEWEST) {
        sl_set_err(err, errlen, "unknown tie order %d", (int)C->tie);
        return SL_EINVAL;
    }
    if (C->overrun != SL_OVERRUN_KILL && C->overrun != SL_OVERRUN_RUN) {
        sl_set_err(err, errlen, "unknown overrun kind %d", (int)C->overrun);
        return SL_EINVAL;
    }
    if (C->rules != SL_RULES_EASY && C->rules != SL_RULES_SCHEDGYM && C->rules != SL_RULES_SCHEDGYM_NOBF) {
        sl_set_err(err, errlen, "unknown rules %d", (int)C->rules);
        return SL_EINVAL;
    }
    int rc = sl_policy_check(&C->primary, err, errlen, "primary");
    if (rc == SL_OK)
        rc = sl_policy_check(&C->backfill, err, errlen, "backfill");
    if (rc == SL_OK && C->rules != SL_RULES_EASY)
        rc = sl_sg_check(C, &C->primary, &C->backfill, C->threshold, err, errlen);
    return rc;
}

/* What a policy expression reads must be there: its columns, and the
 * actual runtime only when the scheduler is told it (SL_EST_ACTUAL). */
static int check_expr_inputs(const sl_policy *p, const sl_jobs *J, int32_t estimate, char *err, size_t errlen,
                             const char *which)
{
    if (p->kind != SL_EXPR)
        return SL_OK;
    if (sl_expr_check(p->expr, J->cols != NULL ? J->ncols : 0, err, errlen, which) != SL_OK)
        return SL_EINVAL;
    if (sl_expr_uses(p->expr, SL_OP_RUN) && estimate != SL_EST_ACTUAL) {
        sl_set_err(err, errlen, "%s policy: the expression reads the actual runtime (run), which needs "
                   "the actual-runtime estimate", which);
        return SL_EINVAL;
    }
    return SL_OK;
}

static int check_policy_inputs(const sl_policy *primary, const sl_policy *backfill, const sl_jobs *J,
                               int32_t estimate, char *err, size_t errlen)
{
    int rc = check_expr_inputs(primary, J, estimate, err, errlen, "primary");
    if (rc == SL_OK)
        rc = check_expr_inputs(backfill, J, estimate, err, errlen, "backfill");
    return rc;
}

/* ----------------------------------------------------- create and free -- */

static void set_queue_policy(sl_queue *q, const sl_policy *p)
{
    q->pol = *p;
    q->dynamic = sl_policy_dynamic(p);
    q->dirty = 1;
    q->kvalid = 0;
    q->kdeg = 0;
    q->kexpr = p->kind == SL_EXPR && q->dynamic ? sl_expr_kinetic(p->expr, &q->kdeg) : 0;
}

/* Does pq serve as the backfilling order (bq left empty)?  When P_B orders
 * like P_R, both queues would hold one sequence (any sort of the same jobs
 * by a strict total order gives it: the keys are finite, sl_policy_check). */
static int shares_order(const sl_policy *primary, const sl_policy *backfill)
{
    return sl_policy_same(primary, backfill);
}

/* EASY++ per-user history (only with SL_EST_EASYPP). */
static int alloc_history(sl_sim *s)
{
    if (s->C.estimate != SL_EST_EASYPP)
        return SL_OK;
    const size_t u = s->J.nusers > 0 ? (size_t)s->J.nusers : 1;
    s->hist1 = calloc(u, sizeof *s->hist1);
    s->hist2 = calloc(u, sizeof *s->hist2);
    s->hcount = calloc(u, sizeof *s->hcount);
    return s->hist1 && s->hist2 && s->hcount ? SL_OK : SL_ENOMEM;
}

static sl_sim *alloc_sim(int32_t n)
{
    sl_sim *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    const size_t m = n > 0 ? (size_t)n : 1;
    s->dur = malloc(m * sizeof *s->dur);
    s->est = malloc(m * sizeof *s->est);
    s->state = malloc(m * sizeof *s->state);
    s->doomed = calloc(m, sizeof *s->doomed);
    s->ncorr = calloc(m, sizeof *s->ncorr);
    s->fq.idx = malloc(m * sizeof(int32_t));
    s->pq.idx = malloc(m * sizeof(int32_t));
    s->bq.idx = malloc(m * sizeof(int32_t));
    s->fq.key = malloc(m * sizeof(double));
    s->pq.key = malloc(m * sizeof(double));
    s->bq.key = malloc(m * sizeof(double));
    s->heap = malloc(m * sizeof(int32_t));
    s->run = malloc(m * sizeof(int32_t));
    s->rend = malloc(m * sizeof(int64_t));
    s->scratch = malloc(m * sizeof(int32_t));
    s->skey = malloc(m * sizeof(double));
    if (!s->dur || !s->est || !s->state || !s->doomed || !s->ncorr || !s->fq.idx || !s->pq.idx || !s->bq.idx || !s->fq.key ||
        !s->pq.key || !s->bq.key || !s->heap || !s->run || !s->rend || !s->scratch || !s->skey) {
        sl_sim_free(s);
        return NULL;
    }
    s->n = n;
    s->cutoff = INT64_MAX;
    return s;
}

void sl_sim_free(sl_sim *s)
{
    if (s == NULL)
        return;
    sl_counts_flush(s);
    free(s->dur); free(s->est); free(s->state); free(s->doomed); free(s->cls); free(s->ncorr);
    free(s->hist1); free(s->hist2); free(s->hcount);
    free(s->fq.idx); free(s->pq.idx); free(s->bq.idx);
    free(s->fq.key); free(s->pq.key); free(s->bq.key);
    free(s->heap); free(s->run); free(s->rend); free(s->scratch); free(s->skey);
    sl_queue_free(&s->fq); sl_queue_free(&s->pq); sl_queue_free(&s->bq);
    sl_mq_free(s->mq);
    sl_learn_free(s->learn);
    sl_sg_free(s->sg);
    free(s);
}

int sl_sim_new(const sl_jobs *jobs, const sl_config *cfg, const sl_out *out, sl_sim **sim, char *err,
               size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!jobs || !cfg || !out || !sim) {
        sl_set_err(err, errlen, "NULL argument");
        return SL_EINVAL;
    }
    *sim = NULL;
    int rc = check_config(cfg, err, errlen);
    if (rc == SL_OK)
        rc = check_jobs(jobs, cfg, err, errlen);
    if (rc == SL_OK && cfg->rules != SL_RULES_EASY && jobs->cls != NULL) {
        sl_set_err(err, errlen, "SchedGym's rules take no job classes");
        rc = SL_EINVAL;
    }
    if (rc == SL_OK && (jobs->ncols < 0 || (jobs->ncols > 0 && jobs->n > 0 && jobs->cols == NULL))) {
        sl_set_err(err, errlen, "%d job columns but no column array", (int)jobs->ncols);
        rc = SL_EINVAL;
    }
    if (rc == SL_OK)
        rc = check_policy_inputs(&cfg->primary, &cfg->backfill, jobs, cfg->estimate, err, errlen);
    if (rc != SL_OK)
        return rc;
    if (jobs->n > 0 && (!out->start || !out->end || !out->flags)) {
        sl_set_err(err, errlen, "an output array is NULL");
        return SL_EINVAL;
    }
    const int32_t n = (int32_t)jobs->n;
    sl_sim *s = alloc_sim(n);
    if (s == NULL) {
        sl_set_err(err, errlen, "out of memory for %d jobs", (int)n);
        return SL_ENOMEM;
    }
    s->J = *jobs;
    s->C = *cfg;
    s->O = *out;
    s->r0 = n > 0 ? jobs->submit[0] : 0;
    if (alloc_history(s) != SL_OK || (cfg->estimate == SL_EST_LEARNED && sl_learn_new(s) != SL_OK)) {
        sl_sim_free(s);
        sl_set_err(err, errlen, "out of memory for %d users", (int)jobs->nusers);
        return SL_ENOMEM;
    }
    if (jobs->cls != NULL) {
        s->cls = malloc((size_t)(n > 0 ? n : 1));
        if (s->cls == NULL) {
            sl_sim_free(s);
            sl_set_err(err, errlen, "out of memory for %d jobs", (int)n);
            return SL_ENOMEM;
        }
        for (int32_t j = 0; j < n; j++)
            s->cls[j] = jobs->cls[j] ? 1 : 0;
    }
    for (int32_t j = 0; j < n; j++) {
        if (out->first_start != NULL)
            out->first_start[j] = -1;
        if (out->predicted != NULL)
            out->predicted[j] = -1;
        const int64_t p = jobs->run[j], req = jobs->req[j];
        const int cut = p > req && cfg->overrun == SL_OVERRUN_KILL;
        s->dur[j] = cut ? req : p;
        /* EASY++, callback and learned estimates are made at submission. */
        s->est[j] = cfg->estimate == SL_EST_ACTUAL ? s->dur[j]
                  : cfg->estimate == SL_EST_ARRAY  ? jobs->estimate[j]
                                                   : req;
        s->state[j] = SL_PENDING;
        out->start[j] = -1;
        out->end[j] = -1;
        out->flags[j] = cut ? SL_KILLED : 0;
    }
    sl_policy fcfs;
    memset(&fcfs, 0, sizeof fcfs);
    fcfs.kind = SL_FCFS;
    set_queue_policy(&s->fq, &fcfs);
    set_queue_policy(&s->pq, &cfg->primary);
    set_queue_policy(&s->bq, &cfg->backfill);
    s->shared = shares_order(&cfg->primary, &cfg->backfill);
    s->now = INT64_MIN;
    s->clock = INT64_MIN;
    if (cfg->rules != SL_RULES_EASY && sl_sg_new(s) != SL_OK) {
        sl_sim_free(s);
        sl_set_err(err, errlen, "out of memory for %d jobs", (int)n);
        return SL_ENOMEM;
    }
    *sim = s;
    return SL_OK;
}

int sl_sim_set_policy(sl_sim *s, const sl_policy *primary, const sl_policy *backfill, int64_t threshold,
                      int32_t threshold_backfill)
{
    if (s == NULL || primary == NULL || backfill == NULL)
        return SL_EINVAL;
    int rc = sl_policy_check(primary, s->err, sizeof s->err, "primary");
    if (rc == SL_OK)
        rc = sl_policy_check(backfill, s->err, sizeof s->err, "backfill");
    if (rc != SL_OK)
        return rc;
    if (rc == SL_OK)
        rc = check_policy_inputs(primary, backfill, &s->J, s->C.estimate, s->err, sizeof s->err);
    if (rc != SL_OK)
        return rc;
    if (s->dpending) {
        snprintf(s->err, sizeof s->err, "a decision is pending (sl_sim_decide first)");
        return SL_ESTATE;
    }
    if (s->dispatch && sl_dispatch_check(s, threshold, 0) != SL_OK)
        return SL_EINVAL;
    if (s->sg != NULL && sl_sg_check(&s->C, primary, backfill, threshold, s->err, sizeof s->err) != SL_OK)
        return SL_EINVAL;
    if (s->mq != NULL && !sl_mq_policy_ok(primary, backfill, threshold)) {
        snprintf(s->err, sizeof s->err, "multiple-queue backfilling needs FCFS queues without threshold");
        return SL_EINVAL;
    }
    s->C.primary = *primary;
    s->C.backfill = *backfill;
    s->C.threshold = threshold;
    s->C.threshold_backfill = threshold_backfill;
    const int shared = shares_order(primary, backfill);
    if (s->shared && !shared) {
        /* bq was left empty: it takes pq's jobs, sorted at the next pass. */
        memcpy(s->bq.idx, s->pq.idx + s->pq.first, (size_t)(s->pq.len - s->pq.first) * sizeof *s->bq.idx);
        s->bq.len = s->pq.len - s->pq.first;
    } else if (shared) {
        s->bq.len = 0;
    }
    s->bq.first = 0;
    s->bq.tvalid = 0;
    s->shared = shared;
    s->bf_valid = 0;
    set_queue_policy(&s->pq, primary);
    set_queue_policy(&s->bq, backfill);
    return SL_OK;
}

static void copy_queue(sl_queue *dst, const sl_queue *src, int32_t n)
{
    int32_t *idx = dst->idx;
    double *key = dst->key;
    *dst = *src;
    dst->idx = idx;
    dst->key = key;
    dst->tq = NULL;             /* the summaries: allocated when needed */
    dst->te = NULL;
    dst->tvalid = 0;
    dst->kexp = NULL;           /* the kinetic order: rebuilt at the next pass */
    dst->kseg = NULL;
    dst->kcap = 0;
    dst->kvalid = 0;
    dst->tour = NULL;           /* the tournament: a copy (sl_sim_clone) */
    memcpy(dst->idx, src->idx, (size_t)src->len * sizeof *idx);
    memcpy(dst->key, src->key, (size_t)n * sizeof *key);
}

int sl_sim_clone(const sl_sim *src, const sl_out *out, sl_sim **dst)
{
    if (src == NULL || out == NULL || dst == NULL)
        return SL_EINVAL;
    *dst = NULL;
    const int32_t n = src->n;
    if (n > 0 && (!out->start || !out->end || !out->flags))
        return SL_EINVAL;
    sl_sim *s = alloc_sim(n);
    if (s == NULL)
        return SL_ENOMEM;
    s->J = src->J;
    s->C = src->C;
    s->O = *out;
    s->r0 = src->r0;
    const size_t sz = (size_t)n;
    memcpy(s->dur, src->dur, sz * sizeof *s->dur);
    memcpy(s->est, src->est, sz * sizeof *s->est);
    memcpy(s->state, src->state, sz * sizeof *s->state);
    memcpy(s->doomed, src->doomed, sz * sizeof *s->doomed);
    memcpy(s->ncorr, src->ncorr, sz * sizeof *s->ncorr);
    if (alloc_history(s) != SL_OK) {
        sl_sim_free(s);
        return SL_ENOMEM;
    }
    if (s->hist1 != NULL) {
        const size_t u = (size_t)s->J.nusers;
        memcpy(s->hist1, src->hist1, u * sizeof *s->hist1);
        memcpy(s->hist2, src->hist2, u * sizeof *s->hist2);
        memcpy(s->hcount, src->hcount, u * sizeof *s->hcount);
    }
    s->failed = src->failed;
    if (src->cls != NULL) {
        s->cls = malloc(sz > 0 ? sz : 1);
        if (s->cls == NULL) {
            sl_sim_free(s);
            return SL_ENOMEM;
        }
        memcpy(s->cls, src->cls, sz);
    }
    if (n > 0) {
        memcpy(out->start, src->O.start, sz * sizeof *out->start);
        memcpy(out->end, src->O.end, sz * sizeof *out->end);
        memcpy(out->flags, src->O.flags, sz * sizeof *out->flags);
        if (out->predicted != NULL && src->O.predicted != NULL)
            memcpy(out->predicted, src->O.predicted, sz * sizeof *out->predicted);
        if (out->first_start != NULL && src->O.first_start != NULL)
            memcpy(out->first_start, src->O.first_start, sz * sizeof *out->first_start);
        else if (out->first_start != NULL)
            for (int32_t j = 0; j < n; j++)
                out->first_start[j] = -1;
    }
    copy_queue(&s->fq, &src->fq, n);
    copy_queue(&s->pq, &src->pq, n);
    copy_queue(&s->bq, &src->bq, n);
    /* A tournament is copied, not rebuilt: a clone taken with a dispatch
     * decision pending is in the middle of a pass, where the walk reads it
     * (issue 53: it was left NULL with its mode kept, and read). */
    if (!sl_tour_clone(&s->fq, &src->fq, n) || !sl_tour_clone(&s->pq, &src->pq, n) ||
        !sl_tour_clone(&s->bq, &src->bq, n)) {
        sl_sim_free(s);
        return SL_ENOMEM;
    }
    memcpy(s->heap, src->heap, (size_t)src->nheap * sizeof *s->heap);
    s->nheap = src->nheap;
    memcpy(s->run, src->run, (size_t)src->nrun * sizeof *s->run);
    for (int32_t i = 0; i < src->nrun; i++)
        s->rend[src->run[i]] = src->rend[src->run[i]];
    s->nrun = src->nrun;
    s->now = src->now;
    s->next_sub = src->next_sub;
    s->used = src->used;
    s->ndone = src->ndone;
    s->nqueued = src->nqueued;
    s->minq = src->minq;
    s->nminq = src->nminq;
    s->shared = src->shared;
    s->cutoff = src->cutoff;
    s->clock = src->clock;
    sl_dispatch_clone(s, src);
    if (sl_mq_clone(s, src) != SL_OK || sl_learn_clone(s, src) != SL_OK || sl_sg_clone(s, src) != SL_OK) {
        sl_sim_free(s);
        return SL_ENOMEM;
    }
    *dst = s;
    return SL_OK;
}

int sl_sim_set_context(sl_sim *s, void *ctx)
{
    if (s == NULL)
        return SL_EINVAL;
    s->C.ctx = ctx;
    return SL_OK;
}

int64_t sl_debug_queue_bytes(const sl_sim *s, int32_t which)
{
    if (s == NULL || which < 0 || which > 2)
        return -1;
    const sl_queue *qs[3] = {&s->fq, &s->pq, &s->bq};
    int64_t b = 0;
    for (int k = 0; k < 3; k++) {
        const sl_queue *q = qs[k];
        if (which == 0)
            b += sl_tour_bytes(s, q);
        else if (which == 1 && q->kexp != NULL)
            b += (int64_t)q->kcap * (int64_t)(sizeof *q->kexp + 2 * sizeof *q->kseg);
        else if (which == 2 && q->tq != NULL)
            b += 2 * (int64_t)q->tcap * (int64_t)(sizeof *q->tq + (size_t)q->tk * sizeof *q->te);
    }
    return b;
}

int sl_sim_state(const sl_sim *s, sl_state *st)
{
    if (s == NULL || st == NULL)
        return SL_EINVAL;
    st->now = s->now;
    st->next_event = next_event(s);
    st->submitted = s->next_sub;
    st->queued = s->nqueued;
    st->running = s->nheap;
    st->done = s->ndone;
    st->used = s->used;
    return SL_OK;
}
