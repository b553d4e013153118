/*
 * internal.h -- private state of the schedlab C core, shared by its units.
 * Not part of the cffi contract.
 *
 * LAYERS (bottom up): the units of csrc/, each using only the units listed
 * before it, so that no two units call each other, directly or around a
 * circle (issue 53; tests/test_core_layers.py reads this list and checks
 * every use of another unit's function or variable against it; a static
 * inline function or macro of a header counts as part of each unit that
 * uses it):
 *
 *   base.c        error messages, status names, version, sl_assert_fail
 *   expr.c        policy expressions: checks, evaluation, kinetic models
 *   policies.c    the orders: keys, ties, kinetic certificates, and the
 *                 kinetic list and re-sort that keep a queue's idx in order
 *   tour.c        the kinetic tournament of a long dynamic queue
 *   queue.c       the queues: push, first, and which structure orders them
 *   learned.c     the learned estimator
 *   machine.c     the machine: running jobs, start, completion, submission
 *   easy.c        EASY's pass (steps 1-5) and its backfilling walks
 *   schedgym.c    SchedGym's rules (its own events and pass)
 *   dispatch.c    EASY's pass with step 2 the caller's (sl_sim_decide)
 *   multiqueue.c  multiple-queue backfilling (partitions)
 *   engine.c      the simulation handle: event loop (which pass runs),
 *                 stepping, policy change, cloning, validation
 *   multi.c       many mixed policies planned in one pass (sl_multi_run)
 *   venv.c        N dispatch environments stepped at once
 *
 * END LAYERS.  The declarations below follow the same order.
 */
#ifndef SCHEDLAB_INTERNAL_H
#define SCHEDLAB_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "schedlab.h"

#define SL_VERSION "0.1.0"
#define SL_ERRLEN 256

/* Invariants that fail loudly (issue 53): a broken one prints what and
 * where on stderr and aborts the process, rather than cutting a walk short
 * or reading past a stack.  SL_ASSERT is in every build: it guards branches
 * that never run, or checks made once per call, at no measurable cost.
 * SL_CHECK is compiled only into the checked core (SL_CHECKED: the ASan/UBSan
 * build of make test-asan), for invariants of the hottest loops (one check
 * per evaluator operation) or ones that cost a second computation (a
 * certificate's precondition recomputes two keys).  sl_assert_fail: base.c. */
__attribute__((noreturn, cold)) void sl_assert_fail(const char *what, const char *file, int line);
#define SL_ASSERT(c) ((c) ? (void)0 : sl_assert_fail(#c, __FILE__, __LINE__))
#ifdef SL_CHECKED
#define SL_CHECK(c) SL_ASSERT(c)
#else
#define SL_CHECK(c) ((void)0)
#endif

/* Every time the simulation can reach is at most SL_TIME_MAX = 2^61 s (about
 * 7.3e10 years; csrc/SEMANTICS.md, "Time bounds"): submit times are in
 * [0, SL_TIME_MAX]; runtimes, requested times, estimates and dividers are at
 * most SL_TIME_MAX; and the last submit time plus every job's longest stay on
 * the machine is at most SL_TIME_MAX (checked in sl_sim_new).  Then a start
 * plus an estimate (plus a correction increment) or twice an elapsed time
 * stays below 2^62 + 2^61 < INT64_MAX: no sum of times overflows. */
#define SL_TIME_MAX (INT64_C(1) << 61)

enum sl_job_state { SL_PENDING = 0, SL_QUEUED = 1, SL_RUNNING = 2, SL_DONE = 3 };

/* A queue of job indices kept in one order, with the keys of that order. */
typedef struct sl_queue {
    int32_t *idx;     /* job indices, in order               */
    int32_t len;
    int32_t first;    /* idx[0..first) hold no queued job (started ones
                         skipped for good; reset by compaction)      */
    sl_policy pol;
    int dynamic;      /* keys depend on the pass time         */
    int dirty;        /* order must be rebuilt from scratch   */
    double *key;      /* key[j] per job (n entries)           */
    /* Block summaries for the backfilling walk of a long queue (easy.c):
     * a min-tree over blocks of SL_BLOCK positions of idx; node v holds the
     * least q of the jobs queued in its blocks when they were summarised
     * (tq[v]) and, for k = 0..tk-1, the least estimate of those with
     * q <= 2^k (te[v * tk + k]).  A job started since is dropped when its
     * block is next walked.  Rebuilt after idx changes shape (push,
     * compaction, sort); allocated the first time a queue is long. */
    int32_t *tq;      /* 2 * tcap nodes, or NULL                */
    int64_t *te;      /* 2 * tcap * tk                          */
    int32_t tcap;     /* leaves allocated: a power of two >= n / SL_BLOCK */
    int32_t tn;       /* leaves in use: a power of two >= len / SL_BLOCK */
    int32_t calm;     /* walks since idx last changed shape     */
    int32_t walked;   /* entries the last walk visited          */
    int32_t tk;       /* processor buckets: 2^(tk-1) >= m       */
    int tvalid;       /* the summaries describe idx             */
    /* The kinetic order of a dynamic queue without classes (policies.c,
     * issue 33): positions [first, klen) of idx hold jobs (queued, or
     * started since: kept in place until compaction) in the order of the
     * last pass; kexp[i] is a certificate: idx[i] goes before idx[i + 1] at
     * every time t < kexp[i] (from that pass's time on); kseg is a min-tree
     * over kexp (leaves ktn..2 ktn-1).  Positions [klen, len) hold the jobs
     * queued since, in submission order.  kvalid = 0: rebuilt at the next
     * pass (after a clone, the old path or a change of policy). */
    int64_t *kexp;    /* kcap entries                           */
    int64_t *kseg;    /* 2 * kcap nodes                         */
    int32_t kcap;     /* allocated: a power of two              */
    int32_t ktn;      /* leaves in use: a power of two >= klen  */
    int32_t klen;
    int kvalid;
    /* Which way pays (mode 1): the kinetic order's work over a window of
     * passes against the re-sort's (one unit per queued entry); when the
     * kinetic order costs more, the queue is re-sorted for kcool passes
     * (doubling at each consecutive failure). */
    int64_t kwork, kbase;
    int32_t kpass, kcool, kfail;
    /* The tournament of a long dynamic queue (tour.c, issue 43): with
     * tmode set, idx holds the queued jobs in no particular order and the
     * tournament gives the order; tour == NULL or tour->valid == 0:
     * rebuilt at the next pass. */
    struct sl_tour *tour;
    int tmode;
    /* An expression policy's kinetic class (expr.c, sl_expr_kinetic): 0
     * none (re-sorted at every pass), 1 affine in time, 2 a monomial of
     * degree kdeg in wait. */
    int32_t kexpr, kdeg;
} sl_queue;

/* tour.c: a kinetic tournament over every job of the simulation, its
 * leaves (positions) in the order (q, estimate, index): the jobs of one
 * processor count form a run of positions, by estimate within it.  Node v
 * of [1, 2L) holds win[v], the first queued job of its subtree in the queue's order at the last refresh (-1: none), ocert[v]
 * the certificate of its own comparison (its two children's winners keep
 * their order at every pass time < ocert[v]) and cert[v] the least ocert
 * of its subtree (INT64_MIN where a job left or joined since). */
typedef struct sl_tour_key {
    double key;             /* the key at t                           */
    int64_t t;              /* INT64_MIN: none                        */
} sl_tour_key;

typedef struct sl_tour {
    int32_t L;              /* leaves: a power of two >= n            */
    int valid;
    int32_t *win;
    int64_t *ocert, *cert;
    int32_t *uord;          /* uord[p]: the job at position p (n)      */
    int32_t *upos;          /* upos[j]: the position of job j (n)      */
    int64_t *uest;          /* uest[p]: the estimate of job uord[p] (n) */
    int32_t G;              /* processor counts                       */
    int64_t *gq;            /* gq[g]: the count of run g (increasing) */
    int32_t *glo;           /* run g: positions [glo[g], glo[g + 1])   */
    int32_t *rfirst;        /* rfirst[g]: no job of run g before it is queued */
    sl_tour_key *kt;        /* kt[j]: job j's key, computed once per time */
} sl_tour;

#define SL_BLOCK 16

/* The debug counters of one simulation (sl_debug_kinetic_count,
 * sl_debug_tour_count): written in hot paths, so kept per simulation (no
 * two threads write one), and added to the process totals, atomically, at
 * the end of each sl_sim_run and when the simulation is freed (issue 53:
 * they were process globals, raced over by simulations on two threads). */
typedef struct sl_counts {
    int64_t kin[5], tour[5];
} sl_counts;

struct sl_sim {
    sl_counts cnt;
    sl_jobs J;
    sl_config C;
    sl_out O;
    int32_t n;

    int64_t *dur;       /* duration actually run, per job       */
    int64_t *est;       /* estimate used by the scheduler       */
    uint8_t *state;     /* enum sl_job_state                    */
    uint8_t *cls;       /* current class (1 small), or NULL     */
    uint8_t *doomed;    /* running small job to be killed       */
    uint8_t *ncorr;     /* corrections applied to a running job */
    int64_t *hist1;     /* EASY++: user's last completed runtime */
    int64_t *hist2;     /*         and the one before           */
    uint8_t *hcount;    /*         how many of the two are known */
    int failed;         /* 1: a callback estimator failed, 2: a key function (SL_PYKEYS) */
    int64_t r0;         /* first submit time (mixed policy)     */

    sl_queue fq;        /* queued jobs in FCFS order            */
    sl_queue pq;        /* queued jobs in P_R order             */
    sl_queue bq;        /* queued jobs in P_B order, unless shared  */
    int shared;         /* P_B orders like P_R (both orders are one
                           sequence): pq serves as the backfilling
                           order, bq is left empty                 */

    int32_t *heap;      /* running jobs, min-heap on (end, j)   */
    int32_t nheap;
    int32_t *run;       /* running jobs sorted by (est end, j)  */
    int64_t *rend;      /* estimated end start + sl_est of a running job,
                           set when it enters run (its estimate, start
                           and class change only while out of run)   */
    int32_t nrun;
    int32_t *scratch;   /* n entries, for merge sort            */
    double *skey;       /* n entries: keys by position in a re-sort */

    int64_t now;
    int32_t next_sub;   /* next job to submit                   */
    int64_t used;       /* processors busy                      */
    int64_t ndone;
    int32_t nqueued;    /* jobs waiting (queues may hold started ones too) */
    /* What the last single-queue pass left (easy.c, "Backfilling only the
     * new jobs"): every job then queued could not start in the backfilling
     * step with bf_free processors free, shadow time bf_shadow and bf_extra
     * extra processors, nor with fewer, nor earlier; jobs from index
     * bf_mark on were not yet submitted.  bf_valid = 0: unknown. */
    int64_t minq;       /* at most the least q of the queued jobs  */
    int32_t nminq;      /* queued jobs with q = minq (0: minq may be
                           lower than every queued job's q)          */
    int bf_valid;
    int32_t bf_mark;
    int64_t bf_free, bf_shadow, bf_extra;
    int64_t cutoff;     /* jobs submitted after this are never submitted */
    int64_t clock;      /* every event up to this time has been processed
                           (the largest `until` or event time so far)      */
    struct sl_mq *mq;   /* multiple-queue state (multiqueue.c), or NULL  */
    struct sl_learn *learn; /* learned estimator (learned.c), or NULL    */
    char err[SL_ERRLEN];
    /* Dispatch mode (dispatch.c, SEMANTICS.md "Decisions by the caller"):
     * step 2 of the pass is the caller's; dpending: the pass at dt waits
     * for sl_sim_decide. */
    int32_t dispatch;
    int32_t dpending;
    int64_t dt;
    /* SchedGym's rules (schedgym.c; SEMANTICS.md "SchedGym's rules"), or
     * NULL under EASY's. */
    struct sl_sg *sg;
};

/* ------------------------------------------------------------- base.c -- */

/* Formats an error message into err (err may be NULL). */
void sl_set_err(char *err, size_t errlen, const char *fmt, ...);

/* ------------------------------------------------------------- expr.c -- */

int sl_expr_check(const sl_expr *e, int32_t ncols, char *err, size_t errlen, const char *which);
int sl_expr_uses(const sl_expr *e, int32_t op);
int sl_expr_dynamic(const sl_expr *e);
int sl_expr_same(const sl_expr *a, const sl_expr *b);
double sl_expr_eval(const sl_sim *s, const sl_expr *e, int32_t j, int64_t t);
/* The most roundings an expression's key may take and still be kept by
 * certificates (expr.c, S1). */
#define SL_KIN_ROUNDINGS 1024
int sl_expr_kinetic(const sl_expr *e, int32_t *deg);
void sl_expr_model(const sl_sim *s, const sl_expr *e, int32_t kclass, int32_t j, int64_t t, double *V, double *A,
                   double *dV, double *dA);

/* --------------------------------------------------------- policies.c -- */

int sl_policy_check(const sl_policy *p, char *err, size_t errlen, const char *which);
int sl_policy_dynamic(const sl_policy *p);
int sl_policy_same(const sl_policy *a, const sl_policy *b);
int sl_policy_finite(const sl_policy *p);
double sl_policy_key(const sl_sim *s, const sl_policy *p, int32_t j, int64_t t);

/* The order of two jobs whose keys differ in neither class nor key:
 * submit time, id, input order; each reversed under SL_TIE_NEWEST (the
 * newest first; sl_config.tie). */
static inline int sl_tie_before(const sl_sim *s, int32_t a, int32_t b)
{
    const int newest = s->C.tie == SL_TIE_NEWEST;
    if (s->J.submit[a] != s->J.submit[b]) return (s->J.submit[a] < s->J.submit[b]) != newest;
    if (s->J.id[a] != s->J.id[b]) return (s->J.id[a] < s->J.id[b]) != newest;
    return (a < b) != newest;
}

/* Strict order: small jobs first (with classes; not in the FCFS queue,
 * whose over-threshold prefix ignores classes), then key, then
 * sl_tie_before. */
static inline int sl_queue_before(const sl_sim *s, const sl_queue *q, int32_t a, int32_t b)
{
    const double *key = q->key;
    if (s->cls != NULL && q != &s->fq && s->cls[a] != s->cls[b]) return s->cls[a] > s->cls[b];
    if (key[a] != key[b]) return key[a] < key[b];
    return sl_tie_before(s, a, b);
}

/* Bring idx into q's order at t by the kinetic list or a re-sort (the
 * tournament aside: queue.c's sl_queue_reorder chooses). */
void sl_queue_sort(sl_sim *s, sl_queue *q, int64_t t);
/* SL_PYKEYS: every queued job keyed by the caller's function, then sorted. */
void sl_queue_sort_pykeys(sl_sim *s, sl_queue *q, int64_t t);
void sl_queue_compact(sl_sim *s, sl_queue *q);
void sl_queue_tidy(sl_sim *s, sl_queue *q);
/* sl_queue_before with the keys of a and b computed at t (a dynamic queue
 * keeps only the keys it needs). */
int sl_queue_before_at(const sl_sim *s, sl_queue *q, int32_t a, int32_t b, int64_t t);
/* Is q's order kept between passes (static, or dynamic with a valid
 * kinetic order), so that block summaries of it stay valid? */
static inline int sl_queue_kept(const sl_queue *q)
{
    return !q->dynamic || q->kvalid;
}
/* For tour.c: the kinetic certificates. */
int sl_kin_capable(const sl_sim *s, const sl_queue *q);
int64_t sl_kin_cert(const sl_sim *s, sl_queue *q, int32_t a, int32_t b, int64_t t);
extern _Atomic int32_t sl_kinetic;
void sl_kin_flush(sl_sim *s);      /* the kinetic counters added to the totals */

/* ------------------------------------------------------------- tour.c -- */

extern _Atomic int32_t sl_tour_mode;
void sl_tour_flush(sl_sim *s);
int64_t sl_tour_bytes(const sl_sim *s, const sl_queue *q);
int sl_tour_wanted(const sl_sim *s, const sl_queue *q);
int sl_tour_reorder(sl_sim *s, sl_queue *q, int64_t t);
void sl_tour_refresh(sl_sim *s, sl_queue *q, int64_t t);
int32_t sl_tour_top(sl_sim *s, sl_queue *q, int64_t t);
void sl_tour_started(sl_sim *s, int32_t j);
void sl_tour_pushed(sl_queue *q, int32_t j);
int32_t sl_tour_range_min(const sl_sim *s, sl_queue *q, int32_t lo, int32_t hi, int64_t t, int32_t best);
int32_t sl_tour_fit(const sl_sim *s, sl_queue *q, int32_t g0, int32_t g1, int64_t slack, int64_t t, int32_t best);
void sl_tour_free(sl_queue *q);
int sl_tour_clone(sl_queue *dst, const sl_queue *src, int32_t n);

/* queue.c's declarations: queue.h (included by the units above it). */

/* ---------------------------------------------------------- learned.c -- */

/* The learned estimator (SL_EST_LEARNED) and its hooks. */
struct sl_learn;
int sl_learn_check(const sl_learned *p, char *err, size_t errlen);
int sl_learn_new(sl_sim *s);                   /* SL_OK or SL_ENOMEM */
int sl_learn_clone(sl_sim *dst, const sl_sim *src);
void sl_learn_free(struct sl_learn *l);
int64_t sl_learn_predict(sl_sim *s, int32_t j, int64_t t);   /* at submission */
void sl_learn_observe(sl_sim *s, int32_t j, int64_t t);      /* at completion */
void sl_learn_started(sl_sim *s, int32_t j);                 /* j started     */
void sl_learn_stopped(sl_sim *s, int32_t j);                 /* j requeued    */

/* ---------------------------------------------------------- machine.c -- */

/* Divider of job j (< 0: never killed): its own, or the simulation's. */
static inline int64_t sl_divider(const sl_sim *s, int32_t j)
{
    return s->J.divider != NULL ? s->J.divider[j] : s->C.divider;
}

/* Estimate the scheduler uses for job j: a job running as small with
 * killing on is expected to end by its divider. */
static inline int64_t sl_est(const sl_sim *s, int32_t j)
{
    if (s->cls != NULL && s->cls[j]) {
        const int64_t d = sl_divider(s, j);
        if (d >= 0 && s->est[j] > d)
            return d;
    }
    return s->est[j];
}

/* The heap of running jobs on (end, index), and the running jobs sorted by
 * estimated end. */
void sl_heap_push(sl_sim *s, int32_t j);
int32_t sl_heap_pop(sl_sim *s);
void sl_run_insert(sl_sim *s, int32_t j);
void sl_run_remove(sl_sim *s, int32_t j);
void sl_machine_start(sl_sim *s, int32_t j, int64_t t, uint8_t flags);
/* Job j, taken off the heap, completes at t. */
void sl_machine_complete(sl_sim *s, int32_t j, int64_t t);
/* The next job (s->next_sub) is submitted at t. */
int sl_machine_submit(sl_sim *s, int64_t t);
/* A false small job, taken off the heap, killed at t and queued again. */
void sl_machine_requeue(sl_sim *s, int32_t j, int64_t t);

/* The partitions' share of the machine (multiple-queue backfilling): which
 * partition a job is in and which processors a running job holds, kept up
 * at each submission and completion (machine.c); the pass and the
 * reconfigurations are multiqueue.c's. */
/* A job holding a reservation this pass: a pivot or a held job (A.2). */
typedef struct sl_mq_res {
    int32_t job;
    int32_t part;
    int32_t age;        /* position in the FCFS queue: lower is older */
    int32_t active;     /* 0 once started                           */
    int32_t wide;       /* q > processors of its partition           */
    int64_t t;          /* reservation (shadow) time                 */
    int64_t x;          /* processors to spare at t (extra)          */
    int64_t avail;      /* scratch of the reservation walk           */
    int32_t state;      /* scratch: 0 open, 1 found, 2 closed        */
} sl_mq_res;

struct sl_mq {
    int32_t np;                              /* P                           */
    int64_t bounds[SL_MAX_PARTITIONS];       /* P-1 boundaries, then top    */
    int64_t home[SL_MAX_PARTITIONS];         /* processors of each partition */
    int64_t busy[SL_MAX_PARTITIONS];         /* ... busy (any job's)        */
    int32_t pin[SL_MAX_PARTITIONS];          /* pinned pivot (A.2) or -1    */
    int32_t pivot[SL_MAX_PARTITIONS];        /* scratch: pivot of the pass  */
    int32_t first[SL_MAX_PARTITIONS];        /* scratch: queue scan pointer */
    int32_t *part;       /* n: partition of each submitted job, -1 before   */
    int32_t *slot;       /* n: row of a running job in alloc                */
    int32_t *alloc;      /* m x SL_MAX_PARTITIONS: processors held per home */
    int32_t *freeslot;   /* m: stack of free rows                           */
    int32_t nfree;
    uint8_t *held;       /* n: keeps a reservation without being a pivot    */
    int32_t *comp;       /* n: completed jobs, in completion order          */
    int32_t ncomp;
    int32_t cpos;        /* first completion not yet behind every window    */
    int64_t *vals;       /* n: scratch for the quantiles                    */
    sl_mq_res *res;      /* n + SL_MAX_PARTITIONS: holders of a pass        */
    int32_t nres;
    int64_t period;      /* recomputation period (<= 0: none)               */
    int64_t origin;
    int64_t next;        /* next boundary                                   */
    int64_t nrecompute;  /* recomputations that changed nothing count too   */
    int64_t nreconfig;   /* changes of P                                    */
};

/* Partition of a job with estimate e: the number of boundaries <= e. */
static inline int32_t sl_mq_assign(const struct sl_mq *mq, int64_t e)
{
    int32_t k = 0;
    while (k < mq->np - 1 && mq->bounds[k] <= e)
        k++;
    return k;
}

static inline int32_t *sl_mq_row(const struct sl_mq *mq, int32_t j)
{
    return mq->alloc + (size_t)mq->slot[j] * SL_MAX_PARTITIONS;
}

static inline void sl_mq_submitted(sl_sim *s, int32_t j)
{
    s->mq->part[j] = sl_mq_assign(s->mq, s->est[j]);
}

/* The processors job j held go back to their partitions. */
static inline void sl_mq_completed(sl_sim *s, int32_t j)
{
    struct sl_mq *mq = s->mq;
    const int32_t *a = sl_mq_row(mq, j);
    for (int32_t k = 0; k < mq->np; k++)
        mq->busy[k] -= a[k];
    mq->freeslot[mq->nfree++] = mq->slot[j];
    mq->slot[j] = -1;
    mq->comp[mq->ncomp++] = j;
}

/* ------------------------------------------------------------- easy.c -- */

/* Queues shorter than sl_tree_min are walked entry by entry (same result;
 * sl_debug_tree_min changes it, for tests). */
extern _Atomic int32_t sl_tree_min;
void sl_easy_pass(sl_sim *s, int64_t t);
/* The pass in two parts: up to step 2 (0: the pass ends there; 1: the
 * queues are in their order at t), and steps 3-5 behind head (-1: none). */
int sl_easy_pass_begin(sl_sim *s, int64_t t);
void sl_easy_pass_end(sl_sim *s, int64_t t, int32_t head);
void sl_minq_rescan(sl_sim *s);

/* --------------------------------------------------------- schedgym.c -- */

/* SchedGym's rules (sl_config.rules != SL_RULES_EASY). */
struct sl_sg;
int sl_sg_check(const sl_config *C, const sl_policy *primary, const sl_policy *backfill, int64_t threshold,
                char *err, size_t errlen);
int sl_sg_new(sl_sim *s);                      /* SL_OK or SL_ENOMEM */
int sl_sg_clone(sl_sim *dst, const sl_sim *src);
void sl_sg_free(struct sl_sg *g);
int sl_sg_run(sl_sim *s, int64_t until);
int sl_sg_decide(sl_sim *s, int32_t j);        /* j queued, a decision pending */

/* --------------------------------------------------------- dispatch.c -- */

/* The caller's decisions (dispatch mode): EASY's pass at t with step 2 the
 * caller's (s->dpending set while a decision is pending). */
void sl_dispatch_pass(sl_sim *s, int64_t t);
/* May dispatch mode be on with this threshold and partitioning?  SL_OK, or
 * SL_EINVAL with a message in s->err. */
int sl_dispatch_check(sl_sim *s, int64_t threshold, int partitioned);
void sl_dispatch_clone(sl_sim *dst, const sl_sim *src);

/* ------------------------------------------------------- multiqueue.c -- */

/* The multiple-queue pass and its hooks in the event loop. */
void sl_mq_pass(sl_sim *s, int64_t t);
void sl_mq_advance(sl_sim *s, int64_t t);      /* criteria at boundaries <= t */
int sl_mq_policy_ok(const sl_policy *primary, const sl_policy *backfill, int64_t threshold);
int sl_mq_clone(sl_sim *dst, const sl_sim *src);
void sl_mq_free(struct sl_mq *mq);

/* ----------------------------------------------------------- engine.c -- */

/* The completions and submissions at t = sl_engine_next_event(s), without the pass. */
int sl_engine_events(sl_sim *s, int64_t t);
int64_t sl_engine_next_event(const sl_sim *s);

#endif
