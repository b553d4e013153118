/*
 * venv.c -- batched dispatch environments (issue 50; csrc/SEMANTICS.md,
 * "Batched environments"; schedlab/JobDispatch-v0 and its vector form).
 *
 * A vector of N environments, each one simulation in dispatch mode
 * (dispatch.c) over an episode's jobs.  One call of sl_venv_step takes an
 * action per environment, makes the decisions, runs each simulation to its
 * next decision and writes, into the caller's arrays, every environment's
 * observation (the first K queued jobs in FCFS order x 5 features, the
 * machine's 3 features, the mask), reward, termination and counters.  The
 * reset is here too: an episode's jobs are a window [lo, hi) of the
 * template simulation's jobs -- given, or drawn from the environment's own
 * seeded stream among a table of windows prepared once -- so an autoreset
 * needs no Python.
 *
 * Every simulation is made by sl_sim_new from the template's jobs (a
 * slice) and configuration, and takes the template's run modes with
 * sl_dispatch_clone (what sl_sim_clone carries): whatever a simulation can
 * be configured to do, its environments do.  No state outside the sl_venv
 * (no globals): distinct vectors may be stepped in distinct threads.
 *
 * The observation's numbers are computed as JobDispatch-v0 computed them
 * in numpy (same operations in the same order: the same bits); the
 * episode's mean cost sums in job order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define HOUR 3600.0
#define TAU 10.0        /* bounded slowdown's tau (s), schedlab.engine.metrics.TAU */
#define NJOBF 5         /* wait, req, procs, submit, fits */
#define NMACH 3         /* free, queued, time */

typedef struct venv_env {
    sl_sim *s;
    sl_jobs J;              /* the episode's jobs (pointers into the template's) */
    int64_t cap;            /* outputs allocated                          */
    int64_t *start, *end, *pred;
    uint8_t *flags;
    uint8_t *counted;       /* reward_timing step: cost already rewarded  */
    int32_t low;            /* ... every job below it is                  */
    int64_t origin;         /* the episode's first submit time            */
    uint64_t rng;           /* the environment's stream (splitmix64)      */
    int done;               /* the episode is over                        */
    int32_t shown;          /* rows of the observation written last time  */
} venv_env;

struct sl_venv {
    const sl_sim *tmpl;
    sl_venv_config cfg;
    sl_venv_out out;
    int64_t *win;           /* nwin (lo, hi) pairs                          */
    int64_t nwin;
    uint8_t *verdict;       /* per window: 0 unknown, 1 a choice matters, 2 none
                               does (skipped); the caller's, or NULL: no skip */
    int32_t *scratch;       /* K entries: the probes' queue              */
    venv_env *env;
    char err[SL_ERRLEN];
};

/* splitmix64: a seeded stream per environment (Steele, Lea and Flood 2014). */
static uint64_t next_u64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in 0..bound-1 (bound >= 1), by rejection: no modulo bias. */
static int64_t below(uint64_t *x, uint64_t bound)
{
    const uint64_t cut = (UINT64_MAX - bound + 1) % bound;     /* 2^64 mod bound */
    uint64_t r;
    do
        r = next_u64(x);
    while (r < cut);
    return (int64_t)(r % bound);
}

static int fail(sl_venv *v, int code, const char *fmt, int32_t i, const char *detail)
{
    char head[64];
    snprintf(head, sizeof head, fmt, (int)i);
    snprintf(v->err, sizeof v->err, "%s%s", head, detail ? detail : "");
    return code;
}

/* The observation of environment i at its pending decision (and its
 * visible jobs); zeros when the episode is over. */
static void observe(sl_venv *v, int32_t i)
{
    const int32_t K = v->cfg.K;
    double *rows = v->out.jobs + (size_t)i * (size_t)K * NJOBF;
    int8_t *mask = v->out.mask + (size_t)i * (size_t)K;
    double *mach = v->out.machine + (size_t)i * NMACH;
    int32_t *vis = v->out.visible + (size_t)i * (size_t)K;
    int64_t *st = v->out.stats + (size_t)i * SL_VS_NSTATS;
    venv_env *e = &v->env[i];
    int32_t n = 0;
    if (!e->done) {
        sl_sim *s = e->s;
        sl_sim_queued(s, vis, K, &n);
        const int64_t free = (int64_t)s->C.m - s->used;
        const double t = (double)(s->dt - e->origin) / HOUR;
        const double m = (double)s->C.m;
        for (int32_t k = 0; k < n; k++) {
            const int32_t j = vis[k];
            double *r = rows + (size_t)k * NJOBF;
            r[1] = (double)e->J.req[j] / HOUR;
            r[2] = (double)e->J.procs[j] / m;
            r[3] = (double)(e->J.submit[j] - e->origin) / HOUR;
            r[0] = t - r[3];
            r[4] = e->J.procs[j] <= free ? 1.0 : 0.0;
            mask[k] = 1;
        }
        mach[0] = (double)free / m;
        mach[1] = (double)s->nqueued;
        mach[2] = t;
        st[SL_VS_TIME] = s->dt;
        st[SL_VS_QUEUED] = s->nqueued;
    } else {
        mach[0] = mach[1] = mach[2] = 0.0;
        st[SL_VS_QUEUED] = 0;
    }
    /* Rows beyond the visible jobs are zero: clear those the last
     * observation wrote (the arrays start cleared; they are the core's). */
    if (e->shown > n) {
        memset(rows + (size_t)n * NJOBF, 0, sizeof(double) * (size_t)(e->shown - n) * NJOBF);
        memset(mask + n, 0, (size_t)(e->shown - n));
        for (int32_t k = n; k < e->shown; k++)
            vis[k] = -1;
    }
    e->shown = n;
    st[SL_VS_VISIBLE] = n;
}

/* The reward's cost of started job j (bounded slowdown, or wait in s), as
 * schedlab.engine.metrics.bounded_slowdown computes it. */
static double cost(const sl_venv *v, const venv_env *e, int32_t j)
{
    const double w = (double)(e->start[j] - e->J.submit[j]);
    if (v->cfg.reward == SL_VENV_WAIT)
        return w;
    const double d = (double)(e->end[j] - e->start[j]);
    const double b = (w + d) / (d > TAU ? d : TAU);
    return b > 1.0 ? b : 1.0;
}

/* reward_timing step: the costs of the jobs started and not yet rewarded,
 * in job order. */
static double new_costs(const sl_venv *v, venv_env *e)
{
    double sum = 0.0;
    const int32_t top = e->s->next_sub;
    for (int32_t j = e->low; j < top; j++) {
        if (!e->counted[j] && e->start[j] >= 0) {
            e->counted[j] = 1;
            sum += cost(v, e, j);
        }
    }
    while (e->low < top && e->counted[e->low])
        e->low++;
    return sum;
}

static int grow(venv_env *e, int64_t n)
{
    if (n <= e->cap)
        return SL_OK;
    free(e->start);
    free(e->end);
    free(e->pred);
    free(e->flags);
    free(e->counted);
    const size_t c = (size_t)(n > 0 ? n : 1);
    e->start = malloc(c * sizeof(int64_t));
    e->end = malloc(c * sizeof(int64_t));
    e->pred = malloc(c * sizeof(int64_t));
    e->flags = malloc(c);
    e->counted = malloc(c);
    if (!e->start || !e->end || !e->pred || !e->flags || !e->counted) {
        e->cap = 0;
        return SL_ENOMEM;
    }
    e->cap = n;
    return SL_OK;
}

/* The slice [lo, hi) of J (every per-job array offset by lo). */
static sl_jobs slice(const sl_jobs *J, int64_t lo, int64_t hi)
{
    sl_jobs w = *J;
#define OFF(f) if (w.f != NULL) w.f += lo
    OFF(submit); OFF(run); OFF(req); OFF(procs); OFF(id); OFF(estimate); OFF(cls); OFF(divider); OFF(user);
#undef OFF
    if (w.cols != NULL)
        w.cols += lo * w.ncols;
    w.n = hi - lo;
    return w;
}

/* A new episode in environment i: jobs [lo, hi) of tmpl's. */
static int start_episode(sl_venv *v, int32_t i, const sl_sim *tmpl, int64_t lo, int64_t hi, int64_t window)
{
    venv_env *e = &v->env[i];
    int64_t *st = v->out.stats + (size_t)i * SL_VS_NSTATS;
    if (e->s != NULL) {
        sl_sim_free(e->s);
        e->s = NULL;
    }
    e->done = 1;
    if (grow(e, hi - lo) != SL_OK)
        return fail(v, SL_ENOMEM, "environment %d: ", i, "out of memory");
    e->J = slice(&tmpl->J, lo, hi);
    sl_out o = {e->start, e->end, e->flags, NULL, e->pred};
    char err[SL_ERRLEN];
    int rc = sl_sim_new(&e->J, &tmpl->C, &o, &e->s, err, sizeof err);
    if (rc != SL_OK)
        return fail(v, rc, "environment %d: ", i, err);
    sl_dispatch_clone(e->s, tmpl);         /* the template's run modes */
    memset(e->counted, 0, (size_t)(hi - lo));
    e->low = 0;
    e->origin = e->J.submit[0];
    rc = sl_sim_run(e->s, INT64_MAX);
    if (rc != SL_DECIDE) {
        if (rc == SL_OK)
            return fail(v, SL_EINVAL, "environment %d: ", i, "the episode's jobs ask no decision");
        return fail(v, rc, "environment %d: ", i, sl_sim_error(e->s));
    }
    e->done = 0;
    st[SL_VS_JOB] = -1;
    st[SL_VS_STARTED] = 0;
    st[SL_VS_DECISIONS] = 0;
    st[SL_VS_INVALID] = 0;
    st[SL_VS_JOBS] = hi - lo;
    st[SL_VS_WINDOW] = window;
    st[SL_VS_LO] = lo;
    st[SL_VS_RESET] = 1;
    observe(v, i);
    return SL_OK;
}

/* The episode's mean cost (the reward's: bsld or wait) when the agent
 * always names the first visible job (last = 0) or the last one (last = 1):
 * a probe of a window, in environment e's output arrays (no episode lives
 * there while it runs).  SL_OK, or an error in v->err. */
static int probe(sl_venv *v, int32_t i, int64_t lo, int64_t hi, int last, double *score)
{
    venv_env *e = &v->env[i];
    if (grow(e, hi - lo) != SL_OK)
        return fail(v, SL_ENOMEM, "environment %d: ", i, "out of memory");
    sl_jobs J = slice(&v->tmpl->J, lo, hi);
    sl_out o = {e->start, e->end, e->flags, NULL, e->pred};
    sl_sim *s = NULL;
    char err[SL_ERRLEN];
    int rc = sl_sim_new(&J, &v->tmpl->C, &o, &s, err, sizeof err);
    if (rc != SL_OK)
        return fail(v, rc, "environment %d: ", i, err);
    sl_dispatch_clone(s, v->tmpl);
    rc = sl_sim_run(s, INT64_MAX);
    while (rc == SL_DECIDE) {
        int32_t n = 0;
        sl_sim_queued(s, v->scratch, v->cfg.K, &n);
        rc = sl_sim_decide(s, v->scratch[last ? n - 1 : 0]);
        if (rc == SL_OK)
            rc = sl_sim_run(s, INT64_MAX);
    }
    if (rc != SL_OK) {
        rc = fail(v, rc, "environment %d: ", i, sl_sim_error(s));
        sl_sim_free(s);
        return rc;
    }
    double sum = 0.0;
    const venv_env probe_env = {.J = J, .start = e->start, .end = e->end};
    for (int32_t j = 0; j < s->n; j++)
        sum += cost(v, &probe_env, j);
    *score = sum / s->n;
    sl_sim_free(s);
    return SL_OK;
}

/* Does a choice matter in window w?  (1 yes, 2 no: the always-first and
 * always-last agents score the same), probed once and kept in verdict. */
static int window_verdict(sl_venv *v, int32_t i, int64_t w, int *verdict)
{
    if (v->verdict[w] == 0) {
        double a, b;
        int rc = probe(v, i, v->win[2 * w], v->win[2 * w + 1], 0, &a);
        if (rc == SL_OK)
            rc = probe(v, i, v->win[2 * w], v->win[2 * w + 1], 1, &b);
        if (rc != SL_OK)
            return rc;
        v->verdict[w] = a != b ? 1 : 2;
    }
    *verdict = v->verdict[w];
    return SL_OK;
}

/* Draws at most this many windows in a row in which no choice matters. */
#define MAX_SKIPS 1000

static int draw_episode(sl_venv *v, int32_t i)
{
    if (v->nwin == 0)
        return fail(v, SL_ESTATE, "environment %d: ", i, "no windows to draw from (give the window)");
    venv_env *e = &v->env[i];
    if (e->s != NULL) {                 /* the probes write in its outputs */
        sl_sim_free(e->s);
        e->s = NULL;
        e->done = 1;
    }
    for (int tries = 0;; tries++) {
        if (tries >= MAX_SKIPS)
            return fail(v, SL_ESTATE, "environment %d: ", i, "1000 windows drawn in a row in which no choice "
                        "changes the score (always-first = always-last): keep them (skip_trivial=False)");
        const int64_t w = below(&v->env[i].rng, (uint64_t)v->nwin);
        int verdict = 1;
        if (v->verdict != NULL) {
            const int rc = window_verdict(v, i, w, &verdict);
            if (rc != SL_OK)
                return rc;
        }
        if (verdict == 1)
            return start_episode(v, i, v->tmpl, v->win[2 * w], v->win[2 * w + 1], w);
    }
}

int sl_venv_new(const sl_sim *tmpl, const int64_t *windows, int64_t nwindows, uint8_t *verdict,
                const sl_venv_config *cfg, const sl_venv_out *out, sl_venv **venv, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    if (!tmpl || !cfg || !out || !venv || (nwindows > 0 && !windows)) {
        sl_set_err(err, errlen, "NULL argument");
        return SL_EINVAL;
    }
    *venv = NULL;
    if (cfg->nenv < 1 || cfg->K < 1) {
        sl_set_err(err, errlen, "nenv and K must be >= 1 (got %d, %d)", (int)cfg->nenv, (int)cfg->K);
        return SL_EINVAL;
    }
    if ((uint32_t)cfg->reward > SL_VENV_WAIT || (uint32_t)cfg->timing > SL_VENV_STEP
        || (uint32_t)cfg->autoreset > SL_VENV_SAME_STEP || (uint32_t)cfg->invalid > SL_VENV_REFUSE) {
        sl_set_err(err, errlen, "reward, timing, autoreset or invalid out of range");
        return SL_EINVAL;
    }
    if (!out->jobs || !out->mask || !out->machine || !out->visible || !out->reward || !out->terminated
        || !out->truncated || !out->stats || !out->final_stats || !out->ended) {
        sl_set_err(err, errlen, "an output array is NULL");
        return SL_EINVAL;
    }
    if (!tmpl->dispatch || tmpl->dpending || tmpl->clock != INT64_MIN) {
        sl_set_err(err, errlen, "the template must be a simulation in dispatch mode that has not run");
        return SL_ESTATE;
    }
    if (tmpl->C.estimate == SL_EST_CALLBACK || tmpl->C.primary.kind == SL_PYKEYS
        || tmpl->C.backfill.kind == SL_PYKEYS) {
        sl_set_err(err, errlen, "batched environments run without Python: no callback estimator or key function");
        return SL_EINVAL;
    }
    for (int64_t w = 0; w < nwindows; w++) {
        const int64_t lo = windows[2 * w], hi = windows[2 * w + 1];
        if (lo < 0 || hi <= lo || hi > tmpl->J.n) {
            sl_set_err(err, errlen, "window %lld: jobs [%lld, %lld) outside the template's 0..%lld",
                       (long long)w, (long long)lo, (long long)hi, (long long)tmpl->J.n);
            return SL_EINVAL;
        }
    }
    sl_venv *v = calloc(1, sizeof *v);
    if (v == NULL) {
        sl_set_err(err, errlen, "out of memory");
        return SL_ENOMEM;
    }
    v->tmpl = tmpl;
    v->cfg = *cfg;
    v->out = *out;
    v->nwin = nwindows;
    v->verdict = verdict;
    v->scratch = malloc((size_t)cfg->K * sizeof(int32_t));
    v->win = malloc((size_t)(nwindows > 0 ? 2 * nwindows : 1) * sizeof(int64_t));
    v->env = calloc((size_t)cfg->nenv, sizeof *v->env);
    if (v->win == NULL || v->env == NULL || v->scratch == NULL) {
        sl_venv_free(v);
        sl_set_err(err, errlen, "out of memory");
        return SL_ENOMEM;
    }
    if (nwindows > 0)
        memcpy(v->win, windows, (size_t)(2 * nwindows) * sizeof(int64_t));
    for (int32_t i = 0; i < cfg->nenv; i++) {
        v->env[i].done = 1;
        v->env[i].rng = (uint64_t)i;
        observe(v, i);
        v->out.stats[(size_t)i * SL_VS_NSTATS + SL_VS_EPISODES] = 0;
    }
    *venv = v;
    return SL_OK;
}

int sl_venv_seed(sl_venv *v, int32_t i, uint64_t seed)
{
    if (v == NULL || i < 0 || i >= v->cfg.nenv)
        return SL_EINVAL;
    v->env[i].rng = seed;
    return SL_OK;
}

int sl_venv_reset(sl_venv *v, int32_t i, const sl_sim *tmpl, int64_t lo, int64_t hi)
{
    if (v == NULL)
        return SL_EINVAL;
    if (i < 0 || i >= v->cfg.nenv)
        return fail(v, SL_EINVAL, "environment %d: ", i, "no such environment");
    if (lo < 0 && tmpl == NULL)
        return draw_episode(v, i);
    if (tmpl == NULL)
        tmpl = v->tmpl;
    else if (!tmpl->dispatch || tmpl->dpending || tmpl->clock != INT64_MIN
             || tmpl->C.estimate == SL_EST_CALLBACK || tmpl->C.primary.kind == SL_PYKEYS
             || tmpl->C.backfill.kind == SL_PYKEYS)
        return fail(v, SL_EINVAL, "environment %d: ", i, "the episode's template must be a simulation in "
                    "dispatch mode that has not run, without callbacks");
    if (lo < 0) {
        lo = 0;
        hi = tmpl->J.n;
    }
    if (hi <= lo || hi > tmpl->J.n)
        return fail(v, SL_EINVAL, "environment %d: ", i, "jobs outside the template's");
    return start_episode(v, i, tmpl, lo, hi, -1);
}

/* The episode of environment i ended at this step: its reward, the
 * averages and the counters it ended with; then the autoreset. */
static int end_episode(sl_venv *v, int32_t i, double *reward)
{
    venv_env *e = &v->env[i];
    int64_t *st = v->out.stats + (size_t)i * SL_VS_NSTATS;
    double *ended = v->out.ended + (size_t)i * 2;
    const int32_t n = e->s->n;
    double bsld = 0.0, wait = 0.0;
    for (int32_t j = 0; j < n; j++) {
        const double w = (double)(e->start[j] - e->J.submit[j]);
        const double d = (double)(e->end[j] - e->start[j]);
        const double b = (w + d) / (d > TAU ? d : TAU);
        bsld += b > 1.0 ? b : 1.0;
        wait += w;
    }
    ended[0] = bsld / n;
    ended[1] = wait / n;
    if (v->cfg.timing == SL_VENV_EPISODE)
        *reward = -ended[v->cfg.reward == SL_VENV_WAIT ? 1 : 0];
    else
        *reward = -(new_costs(v, e) / n);
    e->done = 1;
    st[SL_VS_EPISODES]++;
    observe(v, i);
    memcpy(v->out.final_stats + (size_t)i * SL_VS_NSTATS, st, sizeof(int64_t) * SL_VS_NSTATS);
    if (v->cfg.autoreset == SL_VENV_SAME_STEP)
        return draw_episode(v, i);
    return SL_OK;
}

int sl_venv_step(sl_venv *v, const int32_t *actions, int64_t *wrapped)
{
    if (v == NULL || actions == NULL)
        return SL_EINVAL;
    const int32_t N = v->cfg.nenv, K = v->cfg.K;
    int64_t nwrapped = 0;
    for (int32_t i = 0; i < N; i++) {       /* refused before anything moves */
        const int64_t nv = v->out.stats[(size_t)i * SL_VS_NSTATS + SL_VS_VISIBLE];
        if (actions[i] < 0 || actions[i] >= K) {
            snprintf(v->err, sizeof v->err, "environment %d: action %d outside 0..%d", (int)i, (int)actions[i],
                     (int)K - 1);
            return SL_EINVAL;
        }
        if (v->env[i].done) {
            if (v->cfg.autoreset != SL_VENV_NEXT_STEP)
                return fail(v, SL_ESTATE, "environment %d: ", i, "the episode is over (reset it)");
        } else if (actions[i] >= nv) {
            if (v->cfg.invalid == SL_VENV_REFUSE) {
                snprintf(v->err, sizeof v->err, "environment %d: action %d names no job: %lld job(s) visible",
                         (int)i, (int)actions[i], (long long)nv);
                return SL_EINVAL;
            }
            nwrapped++;
        }
    }
    if (wrapped != NULL)
        *wrapped = nwrapped;
    for (int32_t i = 0; i < N; i++) {
        venv_env *e = &v->env[i];
        int64_t *st = v->out.stats + (size_t)i * SL_VS_NSTATS;
        double reward = 0.0;
        v->out.terminated[i] = 0;
        v->out.truncated[i] = 0;
        v->out.ended[2 * i] = v->out.ended[2 * i + 1] = NAN;
        if (e->done) {                      /* next-step autoreset: the action is not used */
            const int rc = draw_episode(v, i);
            v->out.reward[i] = 0.0;
            if (rc != SL_OK)
                return rc;
            continue;
        }
        st[SL_VS_RESET] = 0;
        const int64_t nv = st[SL_VS_VISIBLE];
        int64_t a = actions[i];
        if (a >= nv) {
            a %= nv;
            st[SL_VS_INVALID]++;
        }
        const int32_t j = v->out.visible[(size_t)i * (size_t)K + (size_t)a];
        sl_sim *s = e->s;
        const int64_t now = s->dt;
        int rc = sl_sim_decide(s, j);
        st[SL_VS_JOB] = j;
        st[SL_VS_STARTED] = e->start[j] == now;
        st[SL_VS_DECISIONS]++;
        if (rc == SL_OK)
            rc = sl_sim_run(s, INT64_MAX);
        if (rc == SL_DECIDE) {
            if (v->cfg.timing == SL_VENV_STEP)
                reward = -(new_costs(v, e) / s->n);
            observe(v, i);
        } else if (rc == SL_OK) {
            v->out.terminated[i] = 1;
            rc = end_episode(v, i, &reward);
            if (rc != SL_OK)
                return rc;
        } else {
            return fail(v, rc, "environment %d: ", i, sl_sim_error(s));
        }
        v->out.reward[i] = reward;
    }
    return SL_OK;
}

int sl_venv_sim(sl_venv *v, int32_t i, sl_sim **sim)
{
    if (v == NULL || sim == NULL || i < 0 || i >= v->cfg.nenv)
        return SL_EINVAL;
    *sim = v->env[i].s;
    return SL_OK;
}

int sl_venv_outputs(const sl_venv *v, int32_t i, int64_t *start, int64_t *end, uint8_t *flags, int64_t *predicted,
                    int64_t n)
{
    if (v == NULL || i < 0 || i >= v->cfg.nenv || v->env[i].s == NULL || n != v->env[i].s->n)
        return SL_EINVAL;
    const venv_env *e = &v->env[i];
    const size_t b = (size_t)n * sizeof(int64_t);
    if (start != NULL)
        memcpy(start, e->start, b);
    if (end != NULL)
        memcpy(end, e->end, b);
    if (predicted != NULL)
        memcpy(predicted, e->pred, b);
    if (flags != NULL)
        memcpy(flags, e->flags, (size_t)n);
    return SL_OK;
}

const char *sl_venv_error(const sl_venv *v)
{
    return v == NULL ? "NULL vector" : v->err;
}

void sl_venv_free(sl_venv *v)
{
    if (v == NULL)
        return;
    if (v->env != NULL) {
        for (int32_t i = 0; i < v->cfg.nenv; i++) {
            venv_env *e = &v->env[i];
            sl_sim_free(e->s);
            free(e->start);
            free(e->end);
            free(e->pred);
            free(e->flags);
            free(e->counted);
        }
    }
    free(v->env);
    free(v->win);
    free(v->scratch);
    free(v);
}
