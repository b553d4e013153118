/*
 * schedlab.h -- the public C API of the schedlab EASY-backfilling simulator.
 *
 * This header is the contract between the C core and Python: the cffi builder
 * (lib/schedlab/_build.py) passes it verbatim to ffi.cdef() after dropping the
 * preprocessor lines, so it holds only plain declarations.  Every entry point
 * returns an sl_status code; nothing in the core aborts or prints.
 *
 * Times are integer seconds (int64_t), processor counts int32_t.
 * Semantics of a scheduling pass: see ../README.md ("Simulator semantics")
 * and the comments of easy.c.
 */
#ifndef SCHEDLAB_H
#define SCHEDLAB_H

enum sl_status {
    SL_OK = 0,
    SL_EINVAL = 1,      /* invalid argument or input data           */
    SL_ENOMEM = 2,      /* allocation failed                        */
    SL_ESTATE = 3,      /* call not valid in the handle's state     */
    SL_DECIDE = 4       /* dispatch mode: sl_sim_run paused at a
                           decision for sl_sim_decide (not an error) */
};

/* Queue policies. Lowest key first; "largest first" policies negate. */
enum sl_policy_kind {
    SL_FCFS = 0, SL_LCFS = 1,
    SL_SPF = 2, SL_LPF = 3,      /* requested time p~            */
    SL_SQF = 4, SL_LQF = 5,      /* requested processors q       */
    SL_SAF = 6, SL_LAF = 7,      /* area p~ * q                  */
    SL_SRF = 8, SL_LRF = 9,      /* ratio p~ / q                 */
    SL_SEXP = 10, SL_LEXP = 11,  /* expansion (wait + p~) / p~   */
    SL_WFP = 12,                 /* (wait / p~)^3 * q, largest   */
    SL_MIXED = 13,               /* w . x, see sl_policy         */
    SL_SJBF = 14,                /* shortest estimate first (the  */
                                 /* scheduler's prediction)       */
    SL_EXPR = 15,                /* a policy expression, see      */
                                 /* sl_expr in csrc/expr.c        */
    SL_PYKEYS = 16,              /* keys from a caller's function */
                                 /* at every pass, see sl_keys_fn */
    SL_NPOLICIES = 17
};

/* Policy expressions (csrc/SEMANTICS.md, "Policy expressions"): a key per
 * job computed by a postfix program of these operations on a stack of
 * doubles.  Loads push one value; unary operations replace the top; binary
 * ones pop b then a and push a op b; SL_OP_WHERE pops else, then, cond and
 * pushes cond != 0 ? then : else.  Each operation is defined once, in the
 * table csrc/exprops.def (expr.c asserts that its codes are these); the
 * codes are written out here because cffi's cdef reads no #include. */
enum sl_op {
    SL_OP_CONST = 0,    /* arg                                         */
    SL_OP_REQ = 1,      /* requested time p~ (s)                       */
    SL_OP_RUN = 2,      /* actual runtime p (s; needs SL_EST_ACTUAL)   */
    SL_OP_PROCS = 3,    /* q                                           */
    SL_OP_SUBMIT = 4,   /* r (s)                                       */
    SL_OP_WAIT = 5,     /* now - r (s)                                 */
    SL_OP_AREA = 6,     /* p~ * q                                      */
    SL_OP_ID = 7,       /* job id                                      */
    SL_OP_NOW = 8,      /* the pass's time (s)                         */
    SL_OP_M = 9,        /* processors of the machine                   */
    SL_OP_COL = 10,     /* sl_jobs.cols column (int) arg               */
    SL_OP_EST = 11,     /* the scheduler's estimate at submission      */
    SL_OP_ADD = 12, SL_OP_SUB = 13, SL_OP_MUL = 14, SL_OP_DIV = 15,
    SL_OP_POW = 16,     /* pow(a, b)                                   */
    SL_OP_POWI = 17,    /* a^k, k = (int)arg in -16..16, by repeated
                           multiplication left to right (1/a^-k if k<0) */
    SL_OP_MIN = 18, SL_OP_MAX = 19,
    SL_OP_LT = 20, SL_OP_LE = 21, SL_OP_GT = 22, SL_OP_GE = 23,
    SL_OP_EQ = 24, SL_OP_NE = 25,   /* 1 or 0                          */
    SL_OP_AND = 26, SL_OP_OR = 27,  /* on != 0, 1 or 0                 */
    SL_OP_NEG = 28, SL_OP_ABS = 29, SL_OP_LOG = 30, SL_OP_LOG1P = 31,
    SL_OP_SQRT = 32, SL_OP_EXP = 33,
    SL_OP_NOT = 34,
    SL_OP_WHERE = 35,
    SL_OP_LOG2 = 36, SL_OP_LOG10 = 37,  /* libm's log2, log10           */
    SL_NOPS = 38
};

enum { SL_EXPR_MAXLEN = 1024, SL_EXPR_STACK = 64 };

/* The table of operations (csrc/exprops.def), for the bindings: the name
 * (its SL_OP_ suffix, e.g. "ADD") and the arity (values popped; each
 * operation pushes one) of operation code; SL_EINVAL for a code outside
 * 0 .. SL_NOPS - 1.  schedlab.expr's OPS is checked against it. */
int sl_expr_op_info(int32_t code, const char **name, int32_t *arity);

/* A compiled policy expression; the caller keeps it (and its arrays) alive
 * and unchanged while any handle using it exists. */
typedef struct sl_expr {
    int32_t len;              /* operations, 1..SL_EXPR_MAXLEN        */
    const int32_t *op;        /* enum sl_op, len entries              */
    const double *arg;        /* len entries: the constant, column or k */
} sl_expr;

/* Keys from the caller (SL_PYKEYS): at each pass that orders the queue,
 * keys(ctx, jobs, n, now, out) writes the key of each of the n queued jobs
 * (indices) into out; a non-zero return stops the run (SL_EINVAL) and the
 * handle refuses to run further. */
typedef int (*sl_keys_fn)(void *ctx, const int32_t *jobs, int32_t n, int64_t now, double *out);

/* Features of the mixed linear policy, in the order of sl_policy.weights. */
enum sl_feature {
    SL_F_PROCS = 0,    /* q                                      */
    SL_F_REQ = 1,      /* p~                                     */
    SL_F_SUBMIT = 2,   /* r (equivalently -wait: FCFS is +1)     */
    SL_F_RATIO = 3,    /* p~ / q                                 */
    SL_F_EXP = 4,      /* (wait + p~) / p~                       */
    SL_F_AREA = 5,     /* p~ * q                                 */
    SL_NFEATURES = 6
};

/* Which runtime estimate reservations and backfilling use. */
enum sl_estimate {
    SL_EST_REQUESTED = 0,   /* p~                                   */
    SL_EST_ACTUAL = 1,      /* the runtime the job really runs      */
    SL_EST_ARRAY = 2,       /* sl_jobs.estimate, one value per job  */
    SL_EST_EASYPP = 3,      /* mean of the user's last two completed
                               runtimes at submission (Tsafrir's EASY++;
                               one: that one; none: p~), at most p~  */
    SL_EST_CALLBACK = 4,    /* sl_config.predict at submission       */
    SL_EST_LEARNED = 5      /* gaussier2015's online regression
                               (csrc/learned.c, sl_config.learned): a
                               prediction at submission from 20 features,
                               one NAG step at each completion; needs the
                               users (sl_jobs.user, nusers)           */
};

/* Learned estimate (gaussier2015 §4; SEMANTICS.md, "Learned estimate"): the
 * loss of a prediction f of a job of actual runtime p and q processors is
 * gamma(p, q) * over(f - p) if f > p, gamma(p, q) * under(p - f) if f < p. */
enum sl_loss_branch {
    SL_LOSS_SQUARED = 0,    /* z -> z^2                              */
    SL_LOSS_LINEAR = 1      /* z -> z                                */
};

/* The job weights gamma of gaussier2015 Table 3 (p, q floored at 1, natural
 * logarithms, gamma floored at 0). */
enum sl_loss_weight {
    SL_WEIGHT_ONE = 0,          /* 1                                  */
    SL_WEIGHT_Q_OVER_P = 1,     /* 5 + log(q / p)                     */
    SL_WEIGHT_P_OVER_Q = 2,     /* 5 + log(p / q)                     */
    SL_WEIGHT_SMALL_AREA = 3,   /* 11 + log(1 / (q p))                */
    SL_WEIGHT_LARGE_AREA = 4    /* log(q p)                           */
};

/* Sizes of the learned model: 20 features, degree-2 basis of 231 terms. */
enum { SL_LEARNED_NFEATURES = 20, SL_LEARNED_DIM = 231 };

typedef struct sl_learned {
    int32_t over;     /* enum sl_loss_branch of an over-prediction (f > p)  */
    int32_t under;    /* enum sl_loss_branch of an under-prediction (f < p) */
    int32_t weight;   /* enum sl_loss_weight                                */
    double eta;       /* NAG learning rate (seconds), finite and > 0        */
    double lam;       /* L2 penalty lam ||w||^2 per step, finite and >= 0   */
} sl_learned;

/* What the scheduler does when a running job outlives its estimate
 * (gaussier2015 §5.2); every corrected estimate is capped at p~. */
enum sl_correction {
    SL_CORR_NOW = 0,          /* no correction: expected to end "now"  */
    SL_CORR_REQUESTED = 1,    /* the requested time p~                 */
    SL_CORR_INCREMENTAL = 2,  /* + 1m, 5m, 15m, 30m, 1h, 2h, 5h, 10h,
                                 20h, 50h, 100h at successive corrections */
    SL_CORR_DOUBLING = 3      /* twice the elapsed time                */
};

/* Callback estimator: predict(ctx, job, now) at submission returns an
 * estimate in 0..sl_time_max() (any other value aborts the run with
 * SL_EINVAL and the handle refuses to run further);
 * observe(ctx, job, now, runtime) is called at each completion (may be NULL). */
typedef int64_t (*sl_predict_fn)(void *ctx, int32_t job, int64_t now);
typedef void (*sl_observe_fn)(void *ctx, int32_t job, int64_t now, int64_t runtime);

/* What happens to a job whose actual runtime p exceeds p~. */
enum sl_overrun {
    SL_OVERRUN_KILL = 0,    /* killed at p~ (flag SL_KILLED)        */
    SL_OVERRUN_RUN = 1      /* runs its full p                       */
};

/* The order of queued jobs whose keys are equal (csrc/SEMANTICS.md,
 * "Equal keys").  SL_TIE_NEWEST is freuk/ocst's rule (its stable sort of a
 * waiting list that holds the newest submission first), a reading of the
 * papers computed with it, not this engine's semantics. */
enum sl_tie {
    SL_TIE_OLDEST = 0,      /* earlier submit time, then smaller id, then
                               earlier input position first            */
    SL_TIE_NEWEST = 1       /* each of the three reversed               */
};

/* Whose scheduling rules the simulation follows (csrc/SEMANTICS.md, "SchedGym's
 * rules"): EASY's passes (the default), or SchedGym's (RLScheduler's
 * HPCSimPickJobs): the job picked -- the first in P_R order, or the caller's
 * in dispatch mode -- is held until it starts; with SL_RULES_SCHEDGYM the jobs
 * queued behind it are backfilled in submission order while it waits, if
 * they end, by their estimate, strictly before its earliest start time. */
enum sl_rules {
    SL_RULES_EASY = 0,
    SL_RULES_SCHEDGYM = 1,        /* SchedGym with backfil=True            */
    SL_RULES_SCHEDGYM_NOBF = 2    /* SchedGym with backfil=False           */
};

/* Per-job output flags. */
enum sl_flag {
    SL_BACKFILLED = 1,      /* started by the backfilling step       */
    SL_KILLED = 2,          /* cut at p~ (p > p~, SL_OVERRUN_KILL)   */
    SL_FORCED = 4,          /* waited more than the threshold when started */
    SL_REQUEUED = 8,        /* ran as small, killed at the divider, requeued as large */
    SL_BORROWED = 16        /* multiple queues: started on processors lent
                               by other partitions                     */
};

/* Input jobs, struct of arrays; the caller keeps them alive and unchanged
 * while any handle using them exists.  Jobs must be sorted by submit time;
 * submit times are >= 0 and every time is bounded (sl_time_max()). */
typedef struct sl_jobs {
    int64_t n;
    const int64_t *submit;     /* r                                  */
    const int64_t *run;        /* actual runtime p >= 0              */
    const int64_t *req;        /* requested time p~ >= 0             */
    const int32_t *procs;      /* q, 1 <= q <= m                     */
    const int64_t *id;         /* job id, for tie-breaking           */
    const int64_t *estimate;   /* per-job estimate (SL_EST_ARRAY) or NULL */
    const uint8_t *cls;        /* per-job class, 1 = small, 0 = large; or NULL */
    const int64_t *divider;    /* per-job divider (with cls): job j running as
                                  small longer than divider[j] is killed and
                                  requeued as large; < 0: j is never killed.
                                  NULL: sl_config.divider for every job   */
    const int32_t *user;       /* user index 0..nusers-1 (SL_EST_EASYPP)  */
    int32_t nusers;
    const double *cols;        /* per-job columns for policy expressions:
                                  column c of job j at cols[j * ncols + c]
                                  (so a slice of jobs is a slice of rows); or NULL */
    int32_t ncols;
} sl_jobs;

typedef struct sl_policy {
    int32_t kind;                 /* enum sl_policy_kind               */
    double weights[6];            /* SL_MIXED: w, one per sl_feature   */
    double scales[6];             /* SL_MIXED: x_i is divided by these */
    const sl_expr *expr;          /* SL_EXPR: the program              */
    sl_keys_fn keys;              /* SL_PYKEYS: the caller's function  */
    void *kctx;                   /* ... and its context               */
} sl_policy;

typedef struct sl_config {
    int32_t m;                    /* processors of the machine           */
    sl_policy primary;            /* P_R: starting and reservation order */
    sl_policy backfill;           /* P_B: backfilling order              */
    int64_t threshold;            /* T in seconds; < 0 means none        */
    int32_t threshold_backfill;   /* 1: over-threshold jobs also lead P_B */
    int32_t estimate;             /* enum sl_estimate                    */
    int32_t overrun;              /* enum sl_overrun                     */
    int64_t divider;              /* with classes: a small job running longer
                                     is killed and requeued as large; < 0:
                                     small jobs run to completion.  Ignored
                                     when sl_jobs.divider is given          */
    int32_t correction;           /* enum sl_correction                  */
    sl_predict_fn predict;        /* SL_EST_CALLBACK                     */
    sl_observe_fn observe;
    void *ctx;
    sl_learned learned;           /* SL_EST_LEARNED                      */
    int32_t tie;                  /* enum sl_tie: the order of jobs whose keys
                                     are equal, in every queue (0: oldest
                                     first, the default); sl_multi_run
                                     needs SL_TIE_OLDEST                    */
    int32_t rules;                /* an enum sl_rules value; 0: EASY's, the default */
} sl_config;

/* Caller-owned outputs, n elements each; -1 until the job starts/ends. */
typedef struct sl_out {
    int64_t *start;
    int64_t *end;
    uint8_t *flags;
    int64_t *first_start;   /* optional (NULL): start of a killed small run */
    int64_t *predicted;     /* optional (NULL): the estimate at submission  */
} sl_out;

typedef struct sl_state {
    int64_t now;          /* time of the last processed event (or INT64_MIN) */
    int64_t next_event;   /* time of the next event, or INT64_MAX if none    */
    int64_t submitted;
    int64_t queued;
    int64_t running;
    int64_t done;
    int64_t used;         /* processors busy now */
} sl_state;

typedef struct sl_sim sl_sim;

/* Create a simulation.  Validates every input; on error returns a code and
 * writes a message naming the job index and field into err (if errlen > 0).
 * O(n) time and memory. */
int sl_sim_new(const sl_jobs *jobs, const sl_config *cfg, const sl_out *out,
               sl_sim **sim, char *err, size_t errlen);

/* Process every event whose time is <= until (INT64_MAX: to the end). */
int sl_sim_run(sl_sim *sim, int64_t until);

/* Change the policies and threshold; applies from the next event on. */
int sl_sim_set_policy(sl_sim *sim, const sl_policy *primary,
                      const sl_policy *backfill, int64_t threshold,
                      int32_t threshold_backfill);

/* Deep copy of the state; the clone writes into out (the source's outputs
 * so far are copied there) and shares the read-only input arrays. */
int sl_sim_clone(const sl_sim *src, const sl_out *out, sl_sim **dst);

/* Point a callback estimator at a new context (e.g. after a clone). */
int sl_sim_set_context(sl_sim *sim, void *ctx);

int sl_sim_state(const sl_sim *sim, sl_state *state);

/* The learned estimator's model (SL_EST_LEARNED; SL_ESTATE otherwise):
 * SL_LEARNED_DIM weights w, scales s (largest |phi_i| seen) and sums of
 * squared gradients G (each array may be NULL), the normaliser N and the
 * number of steps t (may be NULL). */
int sl_sim_learned_model(const sl_sim *sim, double *w, double *s, double *G, double *N, int64_t *t);

/* Raw predictions w . Phi(x_j) at submission, before rounding and clipping
 * (n = number of jobs; NaN for jobs not submitted). */
int sl_sim_learned_raw(const sl_sim *sim, double *raw, int64_t n);

/* Features x_j (SL_LEARNED_NFEATURES values) of a submitted job;
 * SL_EINVAL for a job not submitted yet. */
int sl_sim_learned_features(const sl_sim *sim, int32_t job, double *x);
const char *sl_sim_error(const sl_sim *sim);
void sl_sim_free(sl_sim *sim);

/* ---- Decisions by the caller (csrc/dispatch.c; SEMANTICS.md, "Decisions by
 * the caller"): in dispatch mode, step 2 of each pass is the caller's. When a
 * queued job fits in the free processors, sl_sim_run returns SL_DECIDE in the
 * middle of the pass at time t (sl_sim_state's now); the caller names a
 * queued job with sl_sim_decide: if it fits it starts at t, and sl_sim_decide
 * returns SL_DECIDE while another queued job fits (the next decision of the
 * same pass); if it does not fit it is the head, the pass ends as EASY's
 * (reservation, backfilling in P_B order) and sl_sim_decide returns SL_OK:
 * sl_sim_run then goes on to the next decision.  sl_sim_run called while a
 * decision is pending returns SL_DECIDE at once.  Needs a single queue (no
 * partitions) and no threshold. */
int sl_sim_set_dispatch(sl_sim *sim, int32_t on);
int sl_sim_decide(sl_sim *sim, int32_t job);
/* on: dispatch mode; pending: a decision is pending, at time t (else
 * INT64_MIN); each pointer may be NULL. */
int sl_sim_dispatch(const sl_sim *sim, int32_t *on, int32_t *pending, int64_t *t);
/* The first (at most max) queued jobs in FCFS order (submit time, then id,
 * then input position; with SL_TIE_NEWEST each reversed) into out; *count
 * gets how many were written.  O(queue entries walked). */
int sl_sim_queued(sl_sim *sim, int32_t *out, int32_t max, int32_t *count);

/* ---- Batched dispatch environments (csrc/venv.c; SEMANTICS.md, "Batched
 * environments"): N environments of schedlab/JobDispatch-v0, each a
 * simulation in dispatch mode over an episode's jobs, stepped in one call
 * with an action per environment; observations, rewards, terminations and
 * counters are written into the caller's arrays, and the episodes are reset
 * here (a window [lo, hi) of a template simulation's jobs, given or drawn
 * from each environment's seeded stream among a table of windows). */
enum sl_venv_reward { SL_VENV_BSLD = 0, SL_VENV_WAIT = 1 };
enum sl_venv_timing { SL_VENV_EPISODE = 0, SL_VENV_STEP = 1 };
/* An action >= the visible count: wrapped (action % visible, counted) or
 * the step refused before anything moves. */
enum sl_venv_invalid { SL_VENV_WRAP = 0, SL_VENV_REFUSE = 1 };
enum sl_venv_autoreset {
    SL_VENV_DISABLED = 0,   /* a step of an ended episode is refused      */
    SL_VENV_NEXT_STEP = 1,  /* the step after the end resets (its action
                               unused, reward 0, not terminated)          */
    SL_VENV_SAME_STEP = 2   /* the ending step resets: its observation is
                               the new episode's (final_stats: the old)   */
};
/* Counters of each environment (int64, sl_venv_out.stats rows). */
enum sl_venv_stat {
    SL_VS_TIME = 0,         /* the pending decision's time (s)            */
    SL_VS_JOB = 1,          /* the job the last action named (index in the
                               episode's jobs), -1 after a reset          */
    SL_VS_STARTED = 2,      /* ... it fitted and started (else: the head) */
    SL_VS_DECISIONS = 3,    /* actions taken in the episode               */
    SL_VS_INVALID = 4,      /* ... that named no visible job (wrapped:
                               action % visible)                          */
    SL_VS_QUEUED = 5,       /* jobs queued                                */
    SL_VS_VISIBLE = 6,      /* jobs visible (rows of the mask set)        */
    SL_VS_JOBS = 7,         /* jobs of the episode                        */
    SL_VS_WINDOW = 8,       /* the episode's window in the table, or -1   */
    SL_VS_LO = 9,           /* its first job in the template's jobs       */
    SL_VS_EPISODES = 10,    /* episodes ended in this environment         */
    SL_VS_RESET = 11,       /* 1: the observation is an episode's first   */
    SL_VS_NSTATS = 12
};

typedef struct sl_venv_config {
    int32_t nenv;           /* N environments                             */
    int32_t K;              /* visible jobs                               */
    int32_t reward;         /* enum sl_venv_reward                        */
    int32_t timing;         /* enum sl_venv_timing                        */
    int32_t autoreset;      /* enum sl_venv_autoreset                     */
    int32_t invalid;        /* enum sl_venv_invalid                       */
} sl_venv_config;

/* The caller's arrays, row i for environment i (C order), zeroed by the
 * caller (visible: -1) and then the core's: the rows beyond the visible jobs
 * are cleared where the last observation wrote.  Between steps the caller
 * may replace an environment's visible jobs (its row of visible and its
 * SL_VS_VISIBLE count, e.g. an observation of its own): the next actions
 * name those. */
typedef struct sl_venv_out {
    double *jobs;           /* N x K x 5: wait, req (h), procs / m, submit
                               (h from the episode's first), fits         */
    int8_t *mask;           /* N x K                                      */
    double *machine;        /* N x 3: free / m, queued, time (h)          */
    int32_t *visible;       /* N x K: the visible jobs (-1 beyond)        */
    double *reward;         /* N                                          */
    uint8_t *terminated;    /* N                                          */
    uint8_t *truncated;     /* N (always 0)                               */
    int64_t *stats;         /* N x SL_VS_NSTATS                           */
    int64_t *final_stats;   /* N x SL_VS_NSTATS: stats as an episode ended */
    double *ended;          /* N x 2: mean bsld and wait (s) of the episode
                               that ended at this step, else NaN         */
} sl_venv_out;

typedef struct sl_venv sl_venv;

/* N environments over the jobs of tmpl, a simulation in dispatch mode that
 * has not run (its jobs, configuration and run modes are every episode's;
 * it must outlive the vector); windows: nwindows (lo, hi) pairs, the
 * episodes drawn at autoresets and sl_venv_reset(lo < 0).  verdict: NULL,
 * or nwindows bytes (0 at first) in which the draws keep, per window, 1
 * when a choice changes the score (the always-first and always-last agents
 * differ; probed at the window's first draw), 2 when none does: such a
 * window is drawn again (at most 1000 times in a row).  Every environment
 * starts ended: reset each. */
int sl_venv_new(const sl_sim *tmpl, const int64_t *windows, int64_t nwindows, uint8_t *verdict,
                const sl_venv_config *cfg, const sl_venv_out *out, sl_venv **venv, char *err, size_t errlen);
/* The state of environment env's stream (the windows it draws). */
int sl_venv_seed(sl_venv *venv, int32_t env, uint64_t seed);
/* A new episode in environment env: jobs [lo, hi) of tmpl's (NULL: the
 * vector's template); lo < 0: a window drawn from its stream (tmpl NULL),
 * or all of tmpl's jobs. */
int sl_venv_reset(sl_venv *venv, int32_t env, const sl_sim *tmpl, int64_t lo, int64_t hi);
/* One decision in every environment: actions[i] in 0..K-1 names visible
 * job actions[i] (>= visible: actions[i] % visible, counted invalid, or
 * refused); every action is checked before any environment moves.
 * wrapped (may be NULL): how many actions were wrapped. */
int sl_venv_step(sl_venv *venv, const int32_t *actions, int64_t *wrapped);
/* The simulation of environment env's episode (the vector's, for reading:
 * valid until its next reset; NULL before the first). */
int sl_venv_sim(sl_venv *venv, int32_t env, sl_sim **sim);
/* The episode's outputs so far (n = its jobs; each pointer may be NULL). */
int sl_venv_outputs(const sl_venv *venv, int32_t env, int64_t *start, int64_t *end, uint8_t *flags,
                    int64_t *predicted, int64_t n);
const char *sl_venv_error(const sl_venv *venv);
void sl_venv_free(sl_venv *venv);

const char *sl_status_message(int code);
/* The bound on every time of a simulation (SL_TIME_MAX = 2^61 s; see
 * csrc/SEMANTICS.md, "Time bounds"). */
int64_t sl_time_max(void);
const char *sl_version(void);
/* sha256 (first 16 hex digits) of the C sources this core was built from. */
const char *sl_source_hash(void);

/* ---- Multiple-queue backfilling (lawson2005; csrc/multiqueue.c) -------------
 * The contract is the section "Multiple-queue backfilling" of SEMANTICS.md.
 * P partitions, one FCFS queue each; a job goes to the partition of its
 * estimate under the criteria (P-1 boundaries, then the top t_P). */
enum { SL_MAX_PARTITIONS = 16 };

typedef struct sl_partitions {
    int32_t nparts;          /* P; 0: the single-queue pass              */
    int64_t bounds[16];      /* criteria: P-1 boundaries, then t_P       */
    int64_t home[16];        /* processors of each partition (m/P each)  */
    int64_t busy[16];        /* ... busy, by its own or other partitions' jobs */
    int64_t lent[16];        /* processors of other partitions its running
                                jobs hold                                */
    int64_t queued[16];      /* jobs queued in each partition            */
    int32_t pivot[16];       /* pivot job index of each partition, or -1 */
    int64_t held;            /* queued jobs keeping a reservation (A.2)  */
    int64_t period;          /* criteria recomputation period (<= 0: none) */
    int64_t origin;          /* ... boundaries are origin + k * period   */
    int64_t next;            /* next boundary                            */
    int64_t recomputed;      /* recomputations done                      */
    int64_t reconfigured;    /* changes of P                             */
} sl_partitions;

/* Switch to the multiple-queue pass with nparts partitions (1..16) or
 * reconfigure it (Appendix A.1-A.3).  bounds: nparts values, non-decreasing
 * (the P-1 boundaries, then the top t_P); NULL: the uniform reassignment of
 * the current t_P (A.1; refused for the first call).  Same P: new criteria
 * for the jobs submitted from now on.  Needs FCFS queues, no threshold, no
 * classes, no correction.  O(n). */
int sl_sim_set_partitions(sl_sim *sim, int32_t nparts, const int64_t *bounds);

/* Recompute the criteria at every boundary origin + k * period (k >= 1)
 * from the jobs completed in the period before (Figure 3); period <= 0
 * stops it.  Needs partitions. */
int sl_sim_set_recompute(sl_sim *sim, int64_t period, int64_t origin);

/* Jobs submitted after last_submit are never submitted (an online
 * simulation of the jobs already there); INT64_MAX: all.  Raising it is
 * refused (SL_EINVAL) when a job it would let in is submitted at or before a
 * time the simulation has already processed (time never moves backwards). */
int sl_sim_set_cutoff(sl_sim *sim, int64_t last_submit);

int sl_sim_partitions(const sl_sim *sim, sl_partitions *out);

/* Tests only: queues of at least this many entries use the block summaries
 * in the backfilling walk (default 1024, when walks are long and the queue
 * is stable; 0: always; the result is the same
 * either way).  Returns the previous value. */
int32_t sl_debug_tree_min(int32_t n);

/* Tests only: 0 turns off the pass's shortcuts (a pass in which no queued
 * job fits is skipped; a pass with nothing improved since the last one
 * backfills only the new jobs), 1 (default) turns them on; the result is
 * the same either way.  Returns the previous value. */
int32_t sl_debug_shortcuts(int32_t on);

/* Tests only: how dynamic orders (SEXP, LEXP, WFP, mixed with an expansion
 * weight) are brought to a pass's time: 1 (default) the kinetic order
 * (certificates of adjacent pairs, repaired where they expire), 0 the
 * re-key and re-sort of every queued job at every pass (the old path),
 * 2 the kinetic order always (mode 1 re-sorts a queue whose kinetic order
 * costs more), checked against the keys at every pass (every adjacent pair
 * out of order counts in sl_debug_kinetic_count(0)), 3 the kinetic order
 * always, unchecked; the
 * result is the same either way.  Returns the previous mode.  Takes effect
 * for the queues at their next pass. */
int32_t sl_debug_kinetic(int32_t mode);

/* Tests only: how a long queue under a kinetic kind (SEXP, LEXP, WFP,
 * mixed with expansion; no classes, threshold or multiple queues) is kept:
 * 1 (default) as a tournament (csrc/tour.c) from 2048 queued jobs until
 * fewer than 512 are, 0 never, 2 always; the result is the same either
 * way.  Returns the previous mode. */
int32_t sl_debug_tour(int32_t mode);

/* The debug settings above are settings of the process, kept in atomic
 * variables: one may be changed while simulations run on other threads
 * (each reads it at its next use; the schedules do not depend on them).
 * The counters below are kept per simulation and added to the process
 * totals at the end of each sl_sim_run and when a simulation is freed, so
 * simulations on several threads count exactly (issue 53).
 *
 * Tests and benchmarks: counters of the tournaments since the library was
 * loaded: 0 nodes refreshed, 1 comparisons made in refreshes, 2 steps of
 * the backfilling walks, 3 builds, 4 range queries. */
int64_t sl_debug_tour_count(int32_t which);

/* Tests and benchmarks: counters of the kinetic order since the library
 * was loaded: 0 pairs found out of order by mode 2, 1 adjacent swaps,
 * 2 certificates computed, 3 full re-sorts, 4 expired pairs checked. */
int64_t sl_debug_kinetic_count(int32_t which);

/* Tests only: SchedGym's rules with one of its details dropped, to show what
 * each decides (csrc/SEMANTICS.md, "SchedGym's rules"; the schedules then
 * differ from SchedGym's): a bitmask, 0 (default) none; 1 running jobs that
 * end at the same instant complete in index order; 2 the backfilling walk
 * orders jobs submitted at the same time by the tie rule alone; 4 a job
 * backfills if it ends by the pick's earliest start (<=, not <); 8 the
 * earliest start is recomputed before every walk.  Returns the previous mask. */
int32_t sl_debug_schedgym(int32_t mask);

/* Benchmarks: bytes the queues of a simulation hold in one structure, which
 * 0 the tournaments (tour.c), 1 the kinetic lists' certificates and their
 * min-tree (policies.c), 2 the backfilling walk's block summaries (easy.c);
 * -1 for another which. */
int64_t sl_debug_queue_bytes(const sl_sim *sim, int32_t which);

/* Tests: the key of job j at time t under the simulation's primary (which
 * 0) or backfilling (1) policy, as its queue computes it (the built-ins and
 * their expression twins must agree to the bit, csrc/SEMANTICS.md); NaN
 * for another which, a job out of range or a key function (SL_PYKEYS). */
double sl_debug_key(const sl_sim *sim, int32_t which, int32_t j, int64_t t);

/* Partition of every job (n = number of jobs): the one it was assigned to
 * at submission or at the last reconfiguration while queued or running;
 * -1 before submission or without partitions. */
int sl_sim_job_partitions(const sl_sim *sim, int32_t *out, int64_t n);

/* ---- Many mixed policies of one workload at once (csrc/multi.c) ------------
 * Simulates jobs under EASY with P_R = the mixed policy of each of nvec
 * weight vectors (weights: nvec x 6 doubles, row v the weights of vector v;
 * the scales are cfg->primary.scales, cfg->primary.kind must be SL_MIXED)
 * and P_B = the same mixed policy (cfg->backfill.kind SL_MIXED; its weights
 * are ignored) or FCFS (SL_FCFS); threshold, threshold_backfill, m,
 * estimate and overrun from cfg.  Every vector gets exactly the schedule
 * sl_sim_run gives it alone, but vectors that take the same decisions share
 * one simulation until their decisions differ (SEMANTICS.md, "Many mixed
 * policies at once").  fn is called once per distinct simulation, when it
 * ends, with its vectors (indices into weights) and its outputs (n each;
 * valid during the call only); a non-zero return stops the run (SL_EINVAL).
 * Needs static orders (expansion weight 0), no classes, no correction and a
 * requested, actual, array or easy++ estimate.  stats may be NULL. */
typedef int (*sl_multi_fn)(void *ctx, const int32_t *vectors, int32_t nvec, const int64_t *start,
                           const int64_t *end, const uint8_t *flags);

typedef struct sl_multi_stats {
    int64_t schedules;    /* simulations run to the end (calls of fn)        */
    int64_t forks;        /* clones made where a group's decisions differed  */
    int64_t passes;       /* passes planned (one per group and event time)   */
    int64_t fallbacks;    /* vector-decisions taken vector by vector          */
    int64_t peak_live;    /* most simulations alive at once                  */
    int64_t peak_bytes;   /* ... their memory (about 108 bytes a job each)   */
} sl_multi_stats;

/* Tests only: groups of at most k vectors (default 8) finish vector by
 * vector with the engine's pass; 0: every pass is planned by multi.c (the
 * result is the same either way).  Returns the previous value. */
int32_t sl_debug_multi_solo(int32_t k);

int sl_multi_run(const sl_jobs *jobs, const sl_config *cfg, const double *weights, int32_t nvec,
                 sl_multi_fn fn, void *ctx, sl_multi_stats *stats, char *err, size_t errlen);

#endif
