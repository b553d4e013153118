/*
 * learned.c -- gaussier2015's learned runtime estimate (SL_EST_LEARNED).
 *
 * The same estimator as lib/schedlab/prediction.py's LearnedEstimator, the
 * readable reference, computed in the same floating-point operations in the
 * same order, so that both give the same bits (tests/test_learned.py):
 *
 *   at submission of job j (user u, at time t)
 *     x_j  = the 20 features of gaussier2015 Table 2 (features() below);
 *     phi  = Phi(x_j), the degree-2 basis: v = (1, x_1..x_20), phi = the
 *            upper triangle of v v^T, diagonal included, row by row;
 *     NAG receives phi (scales grow, weights rescaled);
 *     f    = w . phi, summed left to right;
 *     estimate = 0 if p~ = 0; p~ if f is not finite or f >= p~; 1 if f < 1;
 *            otherwise f rounded to the nearest integer, ties to even;
 *   at completion of job j (duration run d_j)
 *     the user's history takes d_j; phi is rebuilt from x_j; f = w . phi at
 *     the current weights; one NAG step with dL/df (the job's loss).
 *
 * Memory: the features of every job (20 doubles each, kept so that phi can
 * be rebuilt at completion and read back by sl_sim_learned_features), its
 * raw prediction, and per user its history and its running jobs in start
 * order (a doubly linked list: the oldest gives the longest elapsed time).
 * Every array is allocated at creation; O(1) work per event besides the
 * 231-term model (no allocation in the event loop).
 *
 * Floating point: plain IEEE double operations (the build passes
 * -ffp-contract=off, so no multiply-add is fused); cos, sin and log are the
 * C library's, as Python's math module uses.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define NF SL_LEARNED_NFEATURES
#define DIM SL_LEARNED_DIM
/* Model arrays have one more, inert coordinate (phi = w = s = 0, G = G0:
 * no step ever moves it, and the dot products stop before it) so that the
 * element-wise loops run over an even count, which compilers vectorise
 * (two doubles at a time) without a scalar remainder. */
#define DIMP (DIM + (DIM & 1))
#define DAY INT64_C(86400)
#define WEEK (7 * DAY)

/* Python's math.pi (the double nearest to pi). */
static const double PI = 3.141592653589793;
/* Initial sum of squared gradients: sqrt(G) > 0 (prediction.NAG._G0). */
static const double G0 = 1e-300;

struct sl_learn {
    sl_learned par;
    int32_t nusers, n;
    /* per user */
    double *last;         /* 3 per user: completed runtimes, most recent first */
    double *sum_run;      /* sum of the completed runtimes                     */
    double *sum_q;        /* sum of q of the submitted jobs                     */
    int64_t *n_done;      /* completed jobs                                     */
    int64_t *n_sub;       /* submitted jobs                                     */
    int64_t *last_end;    /* time of the last completion                        */
    int64_t *n_run;       /* running jobs                                       */
    int64_t *occ;         /* ... their processors                               */
    int64_t *sum_start;   /* ... the sum of their start times                   */
    int32_t *head, *tail; /* ... in start order (-1: none)                      */
    /* per job */
    int32_t *prev, *next; /* running list links                                 */
    double *x;            /* NF features at submission                          */
    double *raw;          /* w . phi at submission (NaN before)                 */
    /* the blocks the arrays above live in */
    double *ud, *jd;
    int64_t *ui;
    int32_t *uj, *jj;
    /* the model (NAG) */
    double w[DIMP];       /* weights                                            */
    double sc[DIMP];      /* s_i: largest |phi_i| seen (0: none yet)            */
    double inv[DIMP];     /* 1 / s_i, 0 while s_i = 0                           */
    double G[DIMP];       /* sums of squared gradients                          */
    double N;             /* sum over the steps of sum_i (phi_i / s_i)^2        */
    int64_t t;            /* steps                                              */
    double phi[DIMP], g[DIMP];  /* scratch */
};

int sl_learn_check(const sl_learned *p, char *err, size_t errlen)
{
    if (p->over != SL_LOSS_SQUARED && p->over != SL_LOSS_LINEAR) {
        sl_set_err(err, errlen, "learned estimate: over-prediction branch %d is not 0 (squared) or 1 (linear)",
                (int)p->over);
        return SL_EINVAL;
    }
    if (p->under != SL_LOSS_SQUARED && p->under != SL_LOSS_LINEAR) {
        sl_set_err(err, errlen, "learned estimate: under-prediction branch %d is not 0 (squared) or 1 (linear)",
                (int)p->under);
        return SL_EINVAL;
    }
    if (p->weight < SL_WEIGHT_ONE || p->weight > SL_WEIGHT_LARGE_AREA) {
        sl_set_err(err, errlen, "learned estimate: unknown loss weight %d (0..4, gaussier2015 Table 3)",
                (int)p->weight);
        return SL_EINVAL;
    }
    if (!isfinite(p->eta) || !(p->eta > 0.0)) {
        sl_set_err(err, errlen, "learned estimate: eta must be a finite number > 0, got %g", p->eta);
        return SL_EINVAL;
    }
    if (!isfinite(p->lam) || !(p->lam >= 0.0)) {
        sl_set_err(err, errlen, "learned estimate: lam must be a finite number >= 0, got %g", p->lam);
        return SL_EINVAL;
    }
    return SL_OK;
}

/* ------------------------------------------------------------ storage -- */

static size_t nusers_of(const struct sl_learn *l) { return l->nusers > 0 ? (size_t)l->nusers : 1; }
static size_t njobs_of(const struct sl_learn *l) { return l->n > 0 ? (size_t)l->n : 1; }

/* Point the arrays into the blocks. */
static void layout(struct sl_learn *l)
{
    const size_t u = nusers_of(l), n = njobs_of(l);
    l->last = l->ud;
    l->sum_run = l->ud + 3 * u;
    l->sum_q = l->ud + 4 * u;
    l->n_done = l->ui;
    l->n_sub = l->ui + u;
    l->last_end = l->ui + 2 * u;
    l->n_run = l->ui + 3 * u;
    l->occ = l->ui + 4 * u;
    l->sum_start = l->ui + 5 * u;
    l->head = l->uj;
    l->tail = l->uj + u;
    l->prev = l->jj;
    l->next = l->jj + n;
    l->x = l->jd;
    l->raw = l->jd + (size_t)NF * n;
}

static struct sl_learn *alloc_learn(const sl_learned *par, int32_t nusers, int32_t n)
{
    struct sl_learn *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    l->par = *par;
    l->nusers = nusers;
    l->n = n;
    const size_t u = nusers_of(l), m = njobs_of(l);
    l->ud = calloc(5 * u, sizeof *l->ud);
    l->ui = calloc(6 * u, sizeof *l->ui);
    l->uj = malloc(2 * u * sizeof *l->uj);
    l->jj = malloc(2 * m * sizeof *l->jj);
    l->jd = malloc((size_t)(NF + 1) * m * sizeof *l->jd);
    if (!l->ud || !l->ui || !l->uj || !l->jj || !l->jd) {
        sl_learn_free(l);
        return NULL;
    }
    layout(l);
    return l;
}

void sl_learn_free(struct sl_learn *l)
{
    if (l == NULL)
        return;
    free(l->ud); free(l->ui); free(l->uj); free(l->jj); free(l->jd);
    free(l);
}

int sl_learn_new(sl_sim *s)
{
    struct sl_learn *l = alloc_learn(&s->C.learned, s->J.nusers, s->n);
    if (l == NULL)
        return SL_ENOMEM;
    const size_t u = nusers_of(l), n = njobs_of(l);
    for (size_t k = 0; k < 2 * u; k++)
        l->uj[k] = -1;
    for (size_t k = 0; k < 2 * n; k++)
        l->jj[k] = -1;
    memset(l->x, 0, (size_t)NF * n * sizeof *l->x);
    for (size_t j = 0; j < n; j++)
        l->raw[j] = NAN;
    for (int i = 0; i < DIMP; i++) {
        l->w[i] = 0.0;
        l->sc[i] = 0.0;
        l->inv[i] = 0.0;
        l->G[i] = G0;
        l->phi[i] = 0.0;
    }
    l->N = 0.0;
    l->t = 0;
    s->learn = l;
    return SL_OK;
}

int sl_learn_clone(sl_sim *dst, const sl_sim *src)
{
    dst->learn = NULL;
    const struct sl_learn *a = src->learn;
    if (a == NULL)
        return SL_OK;
    struct sl_learn *l = alloc_learn(&a->par, a->nusers, a->n);
    if (l == NULL)
        return SL_ENOMEM;
    const size_t u = nusers_of(a), n = njobs_of(a);
    memcpy(l->ud, a->ud, 5 * u * sizeof *l->ud);
    memcpy(l->ui, a->ui, 6 * u * sizeof *l->ui);
    memcpy(l->uj, a->uj, 2 * u * sizeof *l->uj);
    memcpy(l->jj, a->jj, 2 * n * sizeof *l->jj);
    memcpy(l->jd, a->jd, (size_t)(NF + 1) * n * sizeof *l->jd);
    memcpy(l->w, a->w, sizeof l->w);
    memcpy(l->sc, a->sc, sizeof l->sc);
    memcpy(l->inv, a->inv, sizeof l->inv);
    memcpy(l->G, a->G, sizeof l->G);
    memset(l->phi, 0, sizeof l->phi);
    l->N = a->N;
    l->t = a->t;
    dst->learn = l;
    return SL_OK;
}

/* --------------------------------------------- running jobs of a user -- */

void sl_learn_started(sl_sim *s, int32_t j)
{
    struct sl_learn *l = s->learn;
    const int32_t u = s->J.user[j];
    /* Jobs start in time order: appending keeps the list in start order. */
    l->prev[j] = l->tail[u];
    l->next[j] = -1;
    if (l->tail[u] >= 0)
        l->next[l->tail[u]] = j;
    else
        l->head[u] = j;
    l->tail[u] = j;
    l->n_run[u]++;
    l->occ[u] += s->J.procs[j];
    l->sum_start[u] += s->O.start[j];
}

/* Before O.start[j] changes. */
static void unlink_job(sl_sim *s, int32_t j)
{
    struct sl_learn *l = s->learn;
    const int32_t u = s->J.user[j];
    const int32_t p = l->prev[j], q = l->next[j];
    if (p >= 0)
        l->next[p] = q;
    else
        l->head[u] = q;
    if (q >= 0)
        l->prev[q] = p;
    else
        l->tail[u] = p;
    l->prev[j] = l->next[j] = -1;
    l->n_run[u]--;
    l->occ[u] -= s->J.procs[j];
    l->sum_start[u] -= s->O.start[j];
}

void sl_learn_stopped(sl_sim *s, int32_t j) { unlink_job(s, j); }

/* ----------------------------------------------------------- the model -- */

/* Features of gaussier2015 Table 2 (prediction.FeatureTracker.submitted),
 * in the order of prediction.FEATURES; records the submission. */
static void features(struct sl_learn *l, const sl_sim *s, int32_t j, int64_t t, double *x)
{
    const int32_t u = s->J.user[j];
    const double q = (double)s->J.procs[j];
    const double *last = l->last + 3 * (size_t)u;
    const int64_t done = l->n_done[u];
    const int64_t k = done < 3 ? done : 3;
    const double l1 = k > 0 ? last[0] : 0.0;
    const double l2 = k > 1 ? last[1] : 0.0;
    const double l3 = k > 2 ? last[2] : 0.0;
    const double ave2 = k ? (l1 + l2) / (double)(k < 2 ? k : 2) : 0.0;
    const double ave3 = k ? (l1 + l2 + l3) / (double)k : 0.0;
    const double ave_all = done ? l->sum_run[u] / (double)done : 0.0;
    const int64_t nsub = l->n_sub[u];
    const double ave_q = nsub ? l->sum_q[u] / (double)nsub : 0.0;
    const double ratio = nsub ? q / ave_q : 1.0;
    /* The user's running jobs: the Python reference sums one float per job
     * (processors, elapsed times); those sums are of integers, exact below
     * 2^53, hence equal to these integer sums converted once. */
    const int64_t nr = l->n_run[u];
    const double occ = (double)l->occ[u];
    const double longest = nr ? (double)(t - s->O.start[l->head[u]]) : 0.0;
    const double total = (double)(nr * t - l->sum_start[u]);
    const double ave_curr = nr ? occ / (double)nr : 0.0;
    const double brk = done ? (double)(t - l->last_end[u]) : 0.0;
    int64_t td = t % DAY, tw = t % WEEK;        /* Python's %: never negative */
    if (td < 0)
        td += DAY;
    if (tw < 0)
        tw += WEEK;
    const double ad = 2.0 * PI * (double)td / (double)DAY;
    const double aw = 2.0 * PI * (double)tw / (double)WEEK;
    x[0] = (double)s->J.req[j];
    x[1] = l1;
    x[2] = l2;
    x[3] = l3;
    x[4] = ave2;
    x[5] = ave3;
    x[6] = ave_all;
    x[7] = q;
    x[8] = ave_q;
    x[9] = ratio;
    x[10] = ave_curr;
    x[11] = (double)nr;
    x[12] = longest;
    x[13] = total;
    x[14] = occ;
    x[15] = brk;
    x[16] = cos(ad);
    x[17] = sin(ad);
    x[18] = cos(aw);
    x[19] = sin(aw);
    l->n_sub[u] = nsub + 1;
    l->sum_q[u] += q;
}

/* Phi(x): (1, x_1, ..., x_n, x_1^2, x_1 x_2, ..., x_n^2), prediction.polynomial. */
static void basis(const double *x, double *phi)
{
    double v[NF + 1];
    v[0] = 1.0;
    for (int i = 0; i < NF; i++)
        v[i + 1] = x[i];
    int k = 0;
    for (int a = 0; a <= NF; a++)
        for (int b = a; b <= NF; b++)
            phi[k++] = v[a] * v[b];
}

/* a . b summed left to right (as np.cumsum(a * b)[-1]). */
static double dot(const double *a, const double *b)
{
    double f = a[0] * b[0];
    for (int i = 1; i < DIM; i++)
        f += a[i] * b[i];
    return f;
}

/* NAG.normalise of l->phi: grow the scales, rescaling the weights they concern. */
static void normalise(struct sl_learn *l)
{
    for (int i = 0; i < DIMP; i++) {
        const double a = fabs(l->phi[i]);
        if (a > l->sc[i]) {
            l->w[i] *= l->sc[i] / a;
            l->sc[i] = a;
            l->inv[i] = 1.0 / a;
        }
    }
}

/* gamma_j of Table 3 (prediction._gamma_scalar). */
static double gamma_of(int32_t weight, double p, double q)
{
    p = p > 1.0 ? p : 1.0;
    q = q > 1.0 ? q : 1.0;
    double g;
    switch (weight) {
    case SL_WEIGHT_ONE: return 1.0;
    case SL_WEIGHT_Q_OVER_P: g = 5.0 + log(q / p); break;
    case SL_WEIGHT_P_OVER_Q: g = 5.0 + log(p / q); break;
    case SL_WEIGHT_SMALL_AREA: g = 11.0 - log(q * p); break;
    default: g = log(q * p); break;
    }
    return g > 0.0 ? g : 0.0;
}

/* dL/df of the loss at prediction f for runtime p, q processors (Loss.dldf). */
static double dldf(const sl_learned *par, double f, double p, double q)
{
    const double e = f - p;
    double d;
    if (e > 0.0)
        d = par->over == SL_LOSS_SQUARED ? 2.0 * e : 1.0;
    else if (e < 0.0)
        d = par->under == SL_LOSS_SQUARED ? 2.0 * e : -1.0;
    else
        return 0.0;
    return gamma_of(par->weight, p, q) * d;
}

/* NAG.step on the example l->phi (already normalised), with dL/df = d.
 * (The model arrays are members of *l, not pointers: the compiler sees
 * they do not overlap and vectorises the element-wise loops.) */
static void step(struct sl_learn *l, double d)
{
    l->t++;
    double r = l->phi[0] * l->inv[0];
    double rr = r * r;                          /* r . r, left to right */
    for (int i = 1; i < DIM; i++) {
        r = l->phi[i] * l->inv[i];
        rr += r * r;
    }
    l->N += rr;
    const double lam2 = 2.0 * l->par.lam;
    if (l->par.lam != 0.0)
        for (int i = 0; i < DIMP; i++)
            l->g[i] = l->phi[i] * d + lam2 * l->w[i];
    else
        for (int i = 0; i < DIMP; i++)
            l->g[i] = l->phi[i] * d;
    for (int i = 0; i < DIMP; i++)
        l->G[i] += l->g[i] * l->g[i];
    if (l->N <= 0.0)
        return;
    const double c = l->par.eta * sqrt((double)l->t / l->N);
    for (int i = 0; i < DIMP; i++)
        l->w[i] -= ((l->g[i] / sqrt(l->G[i])) * l->inv[i]) * c;
}

/* ---------------------------------------------------------- the hooks -- */

int64_t sl_learn_predict(sl_sim *s, int32_t j, int64_t t)
{
    struct sl_learn *l = s->learn;
    double *x = l->x + (size_t)j * NF;
    features(l, s, j, t, x);
    basis(x, l->phi);
    normalise(l);
    const double f = dot(l->w, l->phi);
    l->raw[j] = f;
    const int64_t req = s->J.req[j];
    if (req <= 0)
        return 0;
    if (!isfinite(f) || f >= (double)req)
        return req;
    return f >= 1.0 ? (int64_t)nearbyint(f) : 1;   /* ties to even, as Python's round */
}

void sl_learn_observe(sl_sim *s, int32_t j, int64_t t)
{
    struct sl_learn *l = s->learn;
    const int32_t u = s->J.user[j];
    const double p = (double)s->dur[j];
    double *last = l->last + 3 * (size_t)u;
    last[2] = last[1];
    last[1] = last[0];
    last[0] = p;
    l->n_done[u]++;
    l->sum_run[u] += p;
    l->last_end[u] = t;
    unlink_job(s, j);
    basis(l->x + (size_t)j * NF, l->phi);
    const double f = dot(l->w, l->phi);
    step(l, dldf(&l->par, f, p, (double)s->J.procs[j]));
}

/* ------------------------------------------------------------ getters -- */

int sl_sim_learned_model(const sl_sim *s, double *w, double *sc, double *G, double *N, int64_t *t)
{
    if (s == NULL)
        return SL_EINVAL;
    const struct sl_learn *l = s->learn;
    if (l == NULL)
        return SL_ESTATE;
    if (w != NULL)
        memcpy(w, l->w, DIM * sizeof *w);
    if (sc != NULL)
        memcpy(sc, l->sc, DIM * sizeof *sc);
    if (G != NULL)
        memcpy(G, l->G, DIM * sizeof *G);
    if (N != NULL)
        *N = l->N;
    if (t != NULL)
        *t = l->t;
    return SL_OK;
}

int sl_sim_learned_raw(const sl_sim *s, double *raw, int64_t n)
{
    if (s == NULL || (raw == NULL && n > 0))
        return SL_EINVAL;
    if (s->learn == NULL)
        return SL_ESTATE;
    if (n != s->n)
        return SL_EINVAL;
    if (n > 0)
        memcpy(raw, s->learn->raw, (size_t)n * sizeof *raw);
    return SL_OK;
}

int sl_sim_learned_features(const sl_sim *s, int32_t job, double *x)
{
    if (s == NULL || x == NULL)
        return SL_EINVAL;
    if (s->learn == NULL)
        return SL_ESTATE;
    if (job < 0 || job >= s->next_sub)
        return SL_EINVAL;
    memcpy(x, s->learn->x + (size_t)job * NF, NF * sizeof *x);
    return SL_OK;
}
