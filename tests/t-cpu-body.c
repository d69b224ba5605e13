/* t-cpu-body.c - the fast CPU path's tests, for one kernel ISA.
 *
 * #included by t-cpu-avx512.c, t-cpu-avx2.c, t-cpu-generic.c and
 * t-cpu-ref.c, which define KB_TEST_ISA.  The programs link the library
 * statically to reach the test hooks of lib/cpu_plan.h: the ISA is forced
 * for the whole run (SKIP when the CPU lacks it), and the planner's fusion
 * depth and strategy are forced per problem, so every kernel path runs:
 * rows or slices as lanes, direct and transposed tile loads and stores,
 * scalar edges, every group size.
 *
 * Every result is checked element by element, against the explicit
 * Kronecker product (kb_oracle_gekmm) where K*L is small and against the
 * randomised identity (kb_identity_check) on the issue's shapes at reduced
 * m; Y is poisoned with NaN when beta = 0, and the padding rows of Y (its
 * leading dimension beyond the rows) must come back untouched.  Thread
 * counts 1, 2 and 3 must agree.  The seed is printed; KRONBLAS_TEST_SEED
 * reproduces a run.  t-cpu-tune.c includes it with KB_T_NO_MAIN for the
 * helpers. */
#include <kronblas.h>
#include <inttypes.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "kb_oracle.h"
#include "cpu_plan.h"
#include "kb_testproblem.h"

#define KB_T_MAXF 8
#define KB_T_SENT 1234.5   /* what the padding of Y holds */

static const kronblasDataType_t kb_t_types[4] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };

typedef struct {
  kronblasDataType_t type;
  int side, tX, tF;
  int64_t m, n, p[KB_T_MAXF], q[KB_T_MAXF], K, L;
  int64_t batch;
  int fuse, strategy, nthreads;
  int inplace;             /* 0: the model's, 1: digits in place forced, 2: forbidden */
  int band;                /* 0: the model's, 1: banded plan forced (where allowed), 2: forbidden */
  int dense;               /* banded plans: 0 the model's dense step, d > 0 the d fastest digits forced
                            * as one (where allowed), -1 none */
  int seg;                 /* banded plans: 0 the model's segments, 1 forced (where allowed), 2 forced
                            * and first (where allowed), -1 none */
  int col;                 /* banded plans: 0 the model's column tiles, 1 forced (where allowed), -1 none */
  int alpha_one, beta_zero;
  int64_t pad;             /* extra rows of every leading dimension */
} kb_t_prob_t;

static kronblasStatus_t kb_t_call(kronblasHandle_t h, const kb_t_prob_t *P, const void *alpha,
                                  const void *X, int64_t ldx, long long sX, const void *const *F,
                                  const int64_t *ldf, const long long *sF, const void *beta,
                                  void *Y, int64_t ldy, long long sY)
{
  const kronblasSideMode_t sd = (kronblasSideMode_t)P->side;
  const kronblasOperation_t tx = (kronblasOperation_t)P->tX, tf = (kronblasOperation_t)P->tF;
  switch (P->type) {
  case KRONBLAS_R_32F:
    return kronblasSgekmmStridedBatched_64(h, sd, tx, tf, P->m, P->n, P->p, P->q, (const float *)alpha,
                                           (const float *)X, ldx, sX, (const float *const *)F, ldf, sF,
                                           (const float *)beta, (float *)Y, ldy, sY, P->batch);
  case KRONBLAS_R_64F:
    return kronblasDgekmmStridedBatched_64(h, sd, tx, tf, P->m, P->n, P->p, P->q, (const double *)alpha,
                                           (const double *)X, ldx, sX, (const double *const *)F, ldf, sF,
                                           (const double *)beta, (double *)Y, ldy, sY, P->batch);
  case KRONBLAS_C_32F:
    return kronblasCgekmmStridedBatched_64(h, sd, tx, tf, P->m, P->n, P->p, P->q,
                                           (const kronblasComplex *)alpha, (const kronblasComplex *)X, ldx,
                                           sX, (const kronblasComplex *const *)F, ldf, sF,
                                           (const kronblasComplex *)beta, (kronblasComplex *)Y, ldy, sY,
                                           P->batch);
  default:
    return kronblasZgekmmStridedBatched_64(h, sd, tx, tf, P->m, P->n, P->p, P->q,
                                           (const kronblasDoubleComplex *)alpha,
                                           (const kronblasDoubleComplex *)X, ldx, sX,
                                           (const kronblasDoubleComplex *const *)F, ldf, sF,
                                           (const kronblasDoubleComplex *)beta, (kronblasDoubleComplex *)Y,
                                           ldy, sY, P->batch);
  }
}

static void kb_t_set(kronblasDataType_t type, void *v, int64_t i, double re, double im)
{
  switch (type) {
  case KRONBLAS_R_32F: ((float *)v)[i] = (float)re; break;
  case KRONBLAS_R_64F: ((double *)v)[i] = re; break;
  case KRONBLAS_C_32F: ((float *)v)[2 * i] = (float)re; ((float *)v)[2 * i + 1] = (float)im; break;
  default: ((double *)v)[2 * i] = re; ((double *)v)[2 * i + 1] = im; break;
  }
}

static double kb_t_get(kronblasDataType_t type, const void *v, int64_t i, int part)
{
  switch (type) {
  case KRONBLAS_R_32F: return part ? 0.0 : ((const float *)v)[i];
  case KRONBLAS_R_64F: return part ? 0.0 : ((const double *)v)[i];
  case KRONBLAS_C_32F: return ((const float *)v)[2 * i + part];
  default: return ((const double *)v)[2 * i + part];
  }
}

static void kb_t_describe(const kb_t_prob_t *P, char *buf, size_t cap)
{
  static const char *const ops = "NTC";
  size_t o;
  int64_t i;
  o = (size_t)snprintf(buf, cap, "%s %s X=%c F=%c m=%" PRId64 " batch=%" PRId64 " p,q=",
                       kb_oracle_type_name(P->type), P->side == KRONBLAS_SIDE_LEFT ? "LEFT" : "RIGHT",
                       ops[P->tX], ops[P->tF], P->m, P->batch);
  for (i = 0; i < P->n && o < cap; i++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%" PRId64 "x%" PRId64, i ? "," : "", P->p[i], P->q[i]);
  if (o < cap)
    snprintf(buf + o, cap - o, " fuse=%d strategy=%d threads=%d alpha=%s beta=%s pad=%" PRId64,
             P->fuse, P->strategy, P->nthreads, P->alpha_one ? "1" : "rand", P->beta_zero ? "0" : "rand",
             P->pad);
}

/* Runs P on fresh random data and checks every element of every batch
 * entry.  Returns 0, or 1 with a description in why.  *Yout (may be NULL)
 * receives the computed Y (caller frees) for cross-thread comparisons;
 * rng_data seeds the data so that reruns see the same inputs. */
static int kb_t_run(kronblasHandle_t h, const kb_t_prob_t *P, uint64_t data_seed, int use_oracle,
                    void **Yout, int64_t *ldy_out, char *why, size_t cap)
{
  const kronblasDataType_t type = P->type;
  const size_t esz = kb_oracle_type_size(type);
  const int cplx = kb_oracle_type_is_complex(type);
  kb_rng_t r;
  int64_t xr, xc, yr, yc, fr[KB_T_MAXF], fc[KB_T_MAXF], ldx, ldy, ldf[KB_T_MAXF];
  int64_t nx, ny, nf[KB_T_MAXF], i, b, e, sumlen = 0;
  long long sX, sY, sF[KB_T_MAXF];
  void *X = NULL, *Y = NULL, *Y0 = NULL, *F[KB_T_MAXF] = { NULL };
  const void *Fb[KB_T_MAXF];
  long double *ref = NULL, *mag = NULL;
  double alpha[2], beta[2];
  unsigned char al[16], be[16];
  kronblasStatus_t st;
  int bad = 1;
  char desc[400];

  kb_t_describe(P, desc, sizeof desc);
  kb_rng_seed(&r, data_seed);
  kb_oracle_x_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->tX, P->m, P->K, &xr, &xc);
  kb_oracle_y_dims((kronblasSideMode_t)P->side, P->m, P->L, &yr, &yc);
  ldx = (xr > 1 ? xr : 1) + P->pad;
  ldy = (yr > 1 ? yr : 1) + P->pad;
  nx = kb_oracle_extent(xr, xc, ldx);
  ny = kb_oracle_extent(yr, yc, ldy);
  sX = (long long)nx + 3;
  sY = (long long)ny + 5;
  for (i = 0; i < P->n; i++) {
    kb_oracle_f_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->tF, P->p[i], P->q[i], &fr[i], &fc[i]);
    ldf[i] = (fr[i] > 1 ? fr[i] : 1) + (P->pad ? 1 : 0);
    nf[i] = kb_oracle_extent(fr[i], fc[i], ldf[i]);
    /* every other factor shared by the batch (stride 0) */
    sF[i] = i % 2 ? 0 : (long long)nf[i] + 1;
    sumlen += P->p[i] + 1;
  }
  X = malloc((size_t)(sX * P->batch) * esz);
  Y = malloc((size_t)(sY * P->batch) * esz);
  Y0 = malloc((size_t)(sY * P->batch) * esz);
  for (i = 0; i < P->n; i++)
    F[i] = malloc((size_t)((sF[i] ? sF[i] : nf[i]) * P->batch + 1) * esz);
  if (use_oracle) {
    ref = malloc((size_t)(P->m * P->L * 2) * sizeof *ref);
    mag = malloc((size_t)(P->m * P->L * 2) * sizeof *mag);
  }
  if (X == NULL || Y == NULL || Y0 == NULL || (use_oracle && (ref == NULL || mag == NULL))) {
    snprintf(why, cap, "out of memory for %s", desc);
    goto out;
  }
  for (i = 0; i < P->n; i++)
    if (F[i] == NULL) {
      snprintf(why, cap, "out of memory for %s", desc);
      goto out;
    }
  kb_rng_fill(&r, type, X, sX * P->batch);
  for (i = 0; i < P->n; i++)
    kb_rng_fill(&r, type, F[i], (sF[i] ? sF[i] : nf[i]) * P->batch + 1);
  alpha[0] = P->alpha_one ? 1.0 : kb_rng_uniform(&r);
  alpha[1] = P->alpha_one || !cplx ? 0.0 : kb_rng_uniform(&r);
  beta[0] = P->beta_zero ? 0.0 : kb_rng_uniform(&r);
  beta[1] = P->beta_zero || !cplx ? 0.0 : kb_rng_uniform(&r);
  kb_t_set(type, al, 0, alpha[0], alpha[1]);
  kb_t_set(type, be, 0, beta[0], beta[1]);
  /* Y: NaN where beta = 0 must not be read, random otherwise; the padding
   * rows and the gaps between entries hold a sentinel */
  if (P->beta_zero)
    kb_oracle_poison(type, Y, sY * P->batch);
  else
    kb_rng_fill(&r, type, Y, sY * P->batch);
  for (b = 0; b < P->batch; b++)
    for (e = 0; e < sY; e++) {
      int64_t col = e / ldy, row = e % ldy;
      if (e >= ny || row >= yr || col >= yc)
        kb_t_set(type, Y, b * sY + e, KB_T_SENT, cplx ? -KB_T_SENT : 0.0);
    }
  memcpy(Y0, Y, (size_t)(sY * P->batch) * esz);

  st = kb_t_call(h, P, al, X, ldx, sX, (const void *const *)F, ldf, sF, be, Y, ldy, sY);
  if (st != KRONBLAS_STATUS_SUCCESS) {
    snprintf(why, cap, "%s: status %s", desc, kronblasGetStatusName(st));
    goto out;
  }
  for (b = 0; b < P->batch; b++) {
    const void *Xb = (const char *)X + (size_t)(b * sX) * esz;
    const void *Yb = (const char *)Y + (size_t)(b * sY) * esz;
    const void *Y0b = (const char *)Y0 + (size_t)(b * sY) * esz;
    for (i = 0; i < P->n; i++)
      Fb[i] = (const char *)F[i] + (size_t)(b * sF[i]) * esz;
    for (e = 0; e < sY; e++) {
      int64_t col = e / ldy, row = e % ldy;
      if ((e >= ny || row >= yr || col >= yc) &&
          (kb_t_get(type, Yb, e, 0) != KB_T_SENT || kb_t_get(type, Yb, e, 1) != (cplx ? -KB_T_SENT : 0.0))) {
        snprintf(why, cap, "%s: entry %" PRId64 " wrote outside Y (row %" PRId64 ", col %" PRId64 ")",
                 desc, b, row, col);
        goto out;
      }
    }
    if (use_oracle) {
      int64_t nbad;
      double worst = 0;
      if (kb_oracle_gekmm(type, (kronblasSideMode_t)P->side, (kronblasOperation_t)P->tX,
                          (kronblasOperation_t)P->tF, P->m, P->n, P->p, P->q, al, Xb, ldx, Fb, ldf, be,
                          Y0b, ldy, ref, mag) != 0) {
        snprintf(why, cap, "%s: the oracle refused it", desc);
        goto out;
      }
      nbad = kb_oracle_compare(type, (kronblasSideMode_t)P->side, P->m, P->L, Yb, ldy, ref, mag, sumlen,
                               cplx ? 4.0 : 2.0, &worst);
      if (nbad != 0) {
        const kb_oracle_bad_t *w = kb_oracle_last_bad();
        snprintf(why, cap, "%s: %" PRId64 " wrong in entry %" PRId64 ", first (r=%" PRId64 ", l=%" PRId64
                 ") got (%.9g,%.9g) want (%.9g,%.9g)", desc, nbad, b, w->r, w->l, w->got_re, w->got_im,
                 w->want_re, w->want_im);
        goto out;
      }
    } else {
      double rel = 0;
      int rc = kb_identity_check(type, (kronblasSideMode_t)P->side, (kronblasOperation_t)P->tX,
                                 (kronblasOperation_t)P->tF, P->m, P->n, P->p, P->q, Xb, ldx, Fb, ldf, Yb,
                                 ldy, kb_rng_next(&r), &rel);
      if (rc != 0) {
        snprintf(why, cap, "%s: randomised identity rc %d, relative error %.3g", desc, rc, rel);
        goto out;
      }
    }
  }
  bad = 0;
  if (Yout != NULL) {
    *Yout = Y;
    *ldy_out = ldy;
    Y = NULL;
  }
out:
  free(X);
  free(Y);
  free(Y0);
  for (i = 0; i < P->n; i++)
    free(F[i]);
  free(ref);
  free(mag);
  return bad;
}

static void kb_t_dims(kb_t_prob_t *P)
{
  int64_t i;
  P->K = P->L = 1;
  for (i = 0; i < P->n; i++) {
    P->K *= P->p[i];
    P->L *= P->q[i];
  }
}

/* Runs one problem under the forced plan; records the first failure. */
static void kb_t_one(kronblasHandle_t h, kb_t_prob_t *P, uint64_t seed, int use_oracle, int *nbad,
                     int *nrun, char *first, size_t cap)
{
  char why[700];
  kb_t_dims(P);
  kb_cpu_test_force_plan(P->fuse, P->strategy);
  kb_cpu_test_force_inplace(P->inplace == 1 ? 1 : P->inplace == 2 ? 0 : -1);
  kb_cpu_test_force_band(P->band == 1 ? 1 : P->band == 2 ? 0 : -1);
  kb_cpu_test_force_band_dense(P->dense > 0 ? P->dense : P->dense < 0 ? 0 : -1);
  kb_cpu_test_force_band_seg(P->seg > 0 ? P->seg : P->seg < 0 ? 0 : -1);
  kb_cpu_test_force_band_col(P->col > 0 ? 1 : P->col < 0 ? 0 : -1);
  kronblasSetNumThreads(h, P->nthreads);
  (*nrun)++;
  if (kb_t_run(h, P, seed, use_oracle, NULL, NULL, why, sizeof why) != 0) {
    if (*nbad == 0)
      snprintf(first, cap, "%s", why);
    (*nbad)++;
  }
  kb_cpu_test_force_plan(0, -1);
  kb_cpu_test_force_inplace(-1);
  kb_cpu_test_force_band(-1);
  kb_cpu_test_force_band_dense(-1);
  kb_cpu_test_force_band_seg(-1);
  kb_cpu_test_force_band_col(-1);
}

typedef struct {
  int64_t m, n, p, q;
} kb_t_shape_t;

/* The issue's CPU shapes at reduced m, those with K beyond 2^16 also with
 * fewer factors (the identity check costs O(K sum p) in long double), and
 * the m = 1 matrix-vector case. */
static const kb_t_shape_t kb_t_issue[] = {
  { 3, 5, 8, 8 }, { 3, 4, 16, 16 }, { 2, 3, 32, 32 }, { 3, 2, 64, 64 }, { 2, 2, 128, 128 },
  { 5, 7, 3, 3 }, { 3, 6, 6, 6 }, { 2, 3, 16, 16 }, { 1, 5, 8, 8 },
};

/* How many factors of issue shape S a test runs for type, and the vector
 * length *K they make: the complex identity check is four times dearer,
 * so fewer factors where it would cost more than about 2^19 terms. */
static int64_t kb_t_issue_factors(const kb_t_shape_t *S, kronblasDataType_t type, int64_t *K)
{
  int64_t n = S->n, i;
  *K = 1;
  for (i = 0; i < n; i++)
    *K *= S->p;
  while (kb_oracle_type_is_complex(type) && n > 2 && *K * n * S->p > (1 << 19)) {
    n--;
    *K /= S->p;
  }
  return n;
}

/* Batches of 1..2 and m cut until the explicit product (m K L n per
 * entry, KL = K * L) stays within 2^lg.  (inline here and below: t-cpu-tune
 * includes this file and does not call every helper.) */
static inline void kb_t_fit_batch(kb_rng_t *r, kb_t_prob_t *P, int64_t KL, int lg)
{
  P->batch = kb_rng_range(r, 1, 2);
  while (P->m > 1 && P->m * KL * P->batch * P->n > ((int64_t)1 << lg))
    P->m = (P->m + 1) / 2;
}

/* A LEFT problem of type with X not transposed (X along K, Y along L:
 * what the in-place and banded plans take) and a random factor transpose;
 * the caller sets m, the factors and the rest. */
static inline void kb_t_left_start(kb_rng_t *r, kb_t_prob_t *P, kronblasDataType_t type)
{
  memset(P, 0, sizeof *P);
  P->type = type;
  P->side = KRONBLAS_SIDE_LEFT;
  P->tX = KRONBLAS_OP_N;
  P->tF = (int)kb_rng_range(r, 0, 2);
}

/* kb_t_left_start with m = 1..3 now and then, else odd up to 2*mhalf+1. */
static inline void kb_t_left_prob(kb_rng_t *r, kb_t_prob_t *P, kronblasDataType_t type, int64_t mhalf)
{
  kb_t_left_start(r, P, type);
  P->m = kb_rng_range(r, 0, 3) == 0 ? kb_rng_range(r, 1, 3) : 2 * kb_rng_range(r, 1, mhalf) + 1;
}

/* The TAP line of a section of banded-plan cases: without optimised
 * kernels (kt NULL) none may run that way, else all right and at least
 * need entries counted by the section's test hook (runs). */
static inline void kb_t_band_report(const kb_cpu_opt_t *kt, kronblasDataType_t type, const char *what,
                                    const char *detail, int nbad, int nrun, const char *first, long runs,
                                    long need, const char *counted)
{
  if (kt == NULL)
    tap_ok(nbad == 0 && runs == 0, "%s: no %s without optimised kernels", kb_oracle_type_name(type), what);
  else
    tap_ok(nbad == 0 && runs >= need, "%s: %s (%s): %d of %d wrong%s%s; %ld %s", kb_oracle_type_name(type), what,
           detail, nbad, nrun, nbad ? ": " : "", first, runs, counted);
}

/* 1..3 threads, alpha 1 or not, beta 0 or not, padded leading
 * dimensions now and then. */
static inline void kb_t_random_call(kb_rng_t *r, kb_t_prob_t *P)
{
  P->nthreads = (int)kb_rng_range(r, 1, 3);
  P->alpha_one = (int)kb_rng_range(r, 0, 1);
  P->beta_zero = (int)kb_rng_range(r, 0, 1);
  P->pad = kb_rng_range(r, 0, 1) * kb_rng_range(r, 1, 17);
}

/* The factors of a fixed shape (a row of a section's table: p then q,
 * each 0-terminated within 7) into P; returns the product of p*q. */
static inline int64_t kb_t_fixed_factors(kb_t_prob_t *P, const int64_t pq[2][7])
{
  int64_t KL = 1;
  for (P->n = 0; P->n < 7 && pq[0][P->n] > 0; P->n++) {
    P->p[P->n] = pq[0][P->n];
    P->q[P->n] = pq[1][P->n];
    KL *= P->p[P->n] * P->q[P->n];
  }
  return KL;
}

/* P as a banded call (the model's strategy, batches of 1..2 where the
 * caller left P->batch 0, random threads, scalars and padding), checked
 * against the explicit product where m K L n stays within 2^24, else
 * against the randomised identity, which knows nothing of alpha and
 * beta. */
static inline void kb_t_band_call(kronblasHandle_t h, kb_rng_t *r, kb_t_prob_t *P, int64_t KL, int *nbad,
                                  int *nrun, char *first, size_t nfirst)
{
  const int64_t big = KL * P->m * P->n;
  if (P->batch == 0)
    P->batch = kb_rng_range(r, 1, 2);
  P->strategy = -1;
  P->band = 1;
  kb_t_random_call(r, P);
  if (big * P->batch > ((int64_t)1 << 24))
    P->alpha_one = P->beta_zero = 1;
  kb_t_one(h, P, kb_rng_next(r), big * P->batch <= ((int64_t)1 << 24), nbad, nrun, first, nfirst);
}

/* A section of banded calls on a table of fixed shapes, each run nseg
 * times with P.seg = seg0 + (run % nseg) and P.col = col, m odd up to
 * 2*mhalf+1; runs() is the section's test hook (batch entries that took
 * its path), which must count at least half the problems; one TAP line. */
static inline void kb_t_band_section(kronblasHandle_t h, kb_rng_t *r, kronblasDataType_t type,
                                     const int64_t (*fixed)[2][7], int nfixed, int seg0, int nseg, int col,
                                     int64_t mhalf, long (*runs)(void), const char *what, const char *detail,
                                     const char *counted)
{
  const long runs0 = runs();
  int nbad = 0, nrun = 0, c;
  char first[800];
  first[0] = '\0';
  for (c = 0; c < nseg * nfixed; c++) {
    kb_t_prob_t P;
    int64_t KL;
    kb_t_left_prob(r, &P, type, mhalf);
    KL = kb_t_fixed_factors(&P, fixed[c / nseg]);
    P.seg = seg0 + c % nseg;
    P.col = col;
    /* a batch of two in every other run (a checkerboard of shapes and
     * runs), fixed rather than drawn, 1..2 drawn in the others: fewer
     * than half the problems can take the path (5^5 has no segments, the
     * model's runs on rows in L1 none), so half is reached only through
     * batches of two.  Float on the generic kernels has segments in 18
     * problems of 42, and with every batch drawn fewer than three of them
     * came out two (18-20 entries, want 21) for about 1 seed in 1500
     * (AVX-512: 20 problems, 1 seed in 10^6); now each shape that takes
     * the path in two consecutive runs counts at least three entries. */
    P.batch = (c / nseg + c % nseg) % 2 ? 2 : 0;
    kb_t_band_call(h, r, &P, KL, &nbad, &nrun, first, sizeof first);
  }
  kb_t_band_report(kb_cpu_kernels_for(type), type, what, detail, nbad, nrun, first, runs() - runs0, nrun / 2,
                   counted);
}

/* A random odd problem of type: side, transposes, m in 1..70, 1..4
 * factors with p, q in 1..13 (and 52 now and then with with52), batches of
 * 1..3, m cut until the explicit product (m K L n per entry) stays cheap.
 * The caller sets the rest (fusion, strategy, threads, scalars, padding). */
static void kb_t_random_shape(kb_rng_t *r, kronblasDataType_t type, int with52, kb_t_prob_t *P)
{
  int64_t i, KL = 1;
  memset(P, 0, sizeof *P);
  P->type = type;
  P->side = (int)kb_rng_range(r, 0, 1);
  P->tX = (int)kb_rng_range(r, 0, 2);
  P->tF = (int)kb_rng_range(r, 0, 2);
  P->m = kb_rng_range(r, 0, 3) == 0 ? 1 : kb_rng_range(r, 2, 70);
  P->n = kb_rng_range(r, 1, 4);
  for (i = 0; i < P->n; i++) {
    P->p[i] = with52 && kb_rng_range(r, 0, 9) == 0 ? 52 : kb_rng_range(r, 1, 13);
    P->q[i] = with52 && kb_rng_range(r, 0, 9) == 0 ? 52 : kb_rng_range(r, 1, 13);
    if (KL * P->p[i] * P->q[i] > (1 << 16)) {
      P->p[i] = kb_rng_range(r, 1, 3);
      P->q[i] = kb_rng_range(r, 1, 3);
    }
    KL *= P->p[i] * P->q[i];
  }
  P->batch = kb_rng_range(r, 1, 3);
  while (P->m > 1 && P->m * KL * P->batch * P->n > (1 << 19))
    P->m = (P->m + 1) / 2;
}

/* Issue shape S with n factors on one side, random transposes, one of
 * 1..max_threads threads, alpha = 1, beta = 0, sometimes padded. */
static void kb_t_issue_prob(kb_rng_t *r, const kb_t_shape_t *S, kronblasDataType_t type, int64_t n, int side,
                            int max_threads, kb_t_prob_t *P)
{
  int64_t i;
  memset(P, 0, sizeof *P);
  P->type = type;
  P->side = side;
  P->tX = (int)kb_rng_range(r, 0, 2);
  P->tF = (int)kb_rng_range(r, 0, 2);
  P->m = S->m;
  P->n = n;
  for (i = 0; i < n; i++) {
    P->p[i] = S->p;
    P->q[i] = S->q;
  }
  P->batch = 1;
  P->strategy = -1;
  P->nthreads = (int)kb_rng_range(r, 1, max_threads);
  P->alpha_one = 1;
  P->beta_zero = 1;
  P->pad = kb_rng_range(r, 0, 1) * kb_rng_range(r, 1, 5);
}

/* A fixed problem: LEFT, X not transposed, n equal p x p factors, one
 * batch entry, the model's strategy, dimensions filled in. */
static void kb_t_square_prob(kronblasDataType_t type, int64_t m, int64_t n, int64_t p, int nthreads, int alpha_one,
                             int beta_zero, kb_t_prob_t *P)
{
  int64_t i;
  memset(P, 0, sizeof *P);
  P->type = type;
  P->side = KRONBLAS_SIDE_LEFT;
  P->m = m;
  P->n = n;
  for (i = 0; i < n; i++)
    P->p[i] = P->q[i] = p;
  P->batch = 1;
  P->strategy = -1;
  P->nthreads = nthreads;
  P->alpha_one = alpha_one;
  P->beta_zero = beta_zero;
  kb_t_dims(P);
}

static double kb_t_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#ifndef KB_T_NO_MAIN
/* The problem of a drawn test call P (its own q and L; kb_t_dims done) as
 * the planner sees it, and plan options for rows with digits in place. */
static void kb_t_inplace_pb(kronblasDataType_t type, const kb_t_prob_t *P, kb_problem_t *pb, kb_cpu_plan_opts_t *o)
{
  kb_t_square_pb(type, P->m, P->n, P->p, pb);
  pb->q = P->q;
  pb->L = P->L;
  pb->ys_m = P->L;
  kb_cpu_plan_opts_default(o, P->nthreads);
  o->strategy = KB_CPU_PER_ROW;
  o->inplace = 1;
}

/* The model's plan (*pl, memset first) of m vectors of n equal p x p
 * factors on nthreads, and its fusion groups as "hi-lo,hi-lo,..." in got
 * (empty where it could not plan). */
static void kb_t_model_groups(kronblasDataType_t type, int64_t m, int64_t n, int64_t p, int nthreads,
                              kb_cpu_plan_t *pl, char *got, size_t len)
{
  int64_t pq[8];
  kb_problem_t pb;
  kb_cpu_plan_opts_t o;
  size_t w = 0;
  int k;
  for (k = 0; k < n && k < 8; k++)
    pq[k] = p;
  kb_t_square_pb(type, m, n, pq, &pb);
  kb_cpu_plan_opts_default(&o, nthreads);
  memset(pl, 0, sizeof *pl);
  got[0] = '\0';
  if (kb_cpu_plan_with(&pb, kb_cpu_kernels_for(pb.type), &o, pl) == KRONBLAS_STATUS_SUCCESS)
    for (k = 0; k < pl->ngroups && w + 32 < len; k++)
      w += (size_t)snprintf(got + w, len - w, "%s%d-%d", k ? "," : "", pl->g[k].hi, pl->g[k].lo);
}

/* kb_cpu_split_at's choice for a float call of m vectors of n square
 * factors p on h, with X, Y and the factors in buffers of their own
 * (allocated, never touched: only their addresses are compared). */
static int kb_t_split_choice(kronblasHandle_t h, int64_t m, int64_t n, const int64_t *p)
{
  kb_problem_t pb;
  const void *F[KB_T_MAXF];
  int64_t ld[KB_T_MAXF], i;
  void *X, *Y, *Fb;
  int s = -1;
  kb_t_square_pb(KRONBLAS_R_32F, m, n, p, &pb);
  X = malloc((size_t)(m * pb.K) * sizeof(float));
  Y = malloc((size_t)(m * pb.L) * sizeof(float));
  Fb = malloc((size_t)n * 256 * sizeof(float));
  if (X != NULL && Y != NULL && Fb != NULL) {
    for (i = 0; i < n; i++) {
      F[i] = (const float *)Fb + i * 256;
      ld[i] = p[i];
    }
    pb.batch = 1;
    pb.X = X;
    pb.Y = Y;
    pb.F = F;
    pb.ldf = ld;
    pb.ldx = pb.ldy = pb.K;
    pb.f_contig_k = 1;
    s = kb_cpu_test_split_at(h, &pb);
  }
  free(X);
  free(Y);
  free(Fb);
  return s;
}

/* One case of the split rule's check: the choice on h against want (0
 * where the kernels are not optimised, on 0), appended to got. */
static void kb_t_split_case(kronblasHandle_t h, int64_t m, int64_t n, const int64_t *p, int want, int on, int *ok,
                            char *got, size_t cap)
{
  const int w = kb_t_split_choice(h, m, n, p);
  const size_t g = strlen(got);
  snprintf(got + g, cap - g, " %d", w);
  if (w != (on ? want : 0))
    *ok = 0;
}

/* A per-CPU plan check (sections 6b, 6c): the model's plan of a square
 * shape on forced caches and rates.  lastnb, colld, colw and y_stream < 0
 * (or lastnb 0) are not checked. */
typedef struct {
  kronblasDataType_t type;
  int64_t m, n, p;
  int nthreads;
  const char *rates;
  const char *groups;
  int inplace, band, lastnb;
  int64_t colld;    /* the banded plan's column-tile rows this far apart (0: not padded) */
  int64_t colw;     /* its column tiles' vectors (0: one, not straight to Y) */
  int y_stream;
  int ra;           /* 1: the next row read ahead, -1: not, 0: not checked */
  int l1pf;         /* 1: digit0 prefetches that row into L1 too (d0_pf_l1), -1: not, 0: not checked */
  int cpf;          /* 1: digit0 reads its next chunk ahead (d0_next_chunk), -1: not, 0: not checked */
} kb_t_rate_case_t;

/* One TAP line: every case's plan on caches l1 / l2 / llc is as expected
 * (the first that is not is named).  Skips without the avx512 kernels. */
static void kb_t_rate_plans(const char *what, size_t l1, size_t l2, size_t llc, const kb_t_rate_case_t *cases,
                            size_t ncases)
{
  const kb_cpu_opt_t *kt = kb_cpu_kernels_for(KRONBLAS_R_32F);
  char got[256], msg[700];
  size_t ci;
  int ok = 1;
  if (kt == NULL || strcmp(kt->name, "avx512") != 0) {
    tap_skip("%s plans are for avx512 kernels, not %s", what, KB_TEST_ISA);
    return;
  }
  msg[0] = '\0';
  kb_cpu_test_caches(l1, l2, llc);
  for (ci = 0; ok && ci < ncases; ci++) {
    const kb_t_rate_case_t *c = &cases[ci];
    kb_cpu_plan_t pl;
    const char *rn = kb_cpu_test_rates(c->rates);
    kb_t_model_groups(c->type, c->m, c->n, c->p, c->nthreads, &pl, got, sizeof got);
    if (strcmp(rn, c->rates) != 0 || strcmp(got, c->groups) != 0 || pl.inplace != c->inplace ||
        pl.band != c->band || (c->lastnb > 0 && (pl.ngroups < 1 || pl.g[pl.ngroups - 1].nb != c->lastnb)) ||
        (pl.band && c->colld >= 0 && pl.band_col_ld != c->colld) ||
        (pl.band && c->colw >= 0 && pl.band_col_w != c->colw) || (c->y_stream >= 0 && pl.y_stream != c->y_stream) ||
        (c->ra != 0 && pl.pf_next_row != (c->ra > 0)) || (c->l1pf != 0 && pl.d0_pf_l1 != (c->l1pf > 0)) ||
        (c->cpf != 0 && pl.d0_next_chunk != (c->cpf > 0))) {
      ok = 0;
      snprintf(msg, sizeof msg,
               ": %c %lld_%lldx%lld^%lld, %d threads, rates %s (asked %s): groups %s (last nb %d)%s%s col_ld %lld "
               "col_w %lld y_stream %d read-ahead %d (L1 %d, chunks %d), expected %s%s%s col_ld %lld col_w %lld "
               "y_stream %d read-ahead %d (L1 %d, chunks %d)",
               c->type == KRONBLAS_R_32F ? 's' : 'd', (long long)c->m, (long long)c->p, (long long)c->p,
               (long long)c->n, c->nthreads, rn, c->rates, got, pl.ngroups > 0 ? pl.g[pl.ngroups - 1].nb : 0,
               pl.inplace ? " ip1" : "", pl.band ? " bd1" : "", (long long)pl.band_col_ld, (long long)pl.band_col_w,
               pl.y_stream, pl.pf_next_row, pl.d0_pf_l1, pl.d0_next_chunk, c->groups, c->inplace ? " ip1" : "",
               c->band ? " bd1" : "", (long long)c->colld, (long long)c->colw, c->y_stream, c->ra, c->l1pf, c->cpf);
    }
  }
  kb_cpu_test_caches(0, 0, 0);
  kb_cpu_test_rates(NULL);
  tap_ok(ok, "model's plans on %s caches and rates%s", what, msg);
}

int main(void)
{
  const uint64_t seed = kb_test_seed();
  kronblasHandle_t h = NULL;
  kb_rng_t r;
  int ti, k;
  double t0;
  char first[800];

  /* the thread counts compared here must run as asked, however small the
   * call (lib/env.c, KRONBLAS_CPU_SMALL_WORK); before the first call */
  setenv("KRONBLAS_CPU_SMALL_WORK", "0", 1);
  printf("# seed %" PRIu64 " (KRONBLAS_TEST_SEED=%" PRIu64 " reproduces this run), kernels %s\n", seed, seed,
         KB_TEST_ISA);
  if (kb_cpu_test_force_isa(KB_TEST_ISA) != 0)
    tap_skip_all("this CPU or build has no %s kernels", KB_TEST_ISA);
  kb_rng_seed(&r, seed);
  tap_plan(1 + 4 * 5 + 2 + 2 + 2 + 2 + 2 + 2 + 2 + 2 + 2 + 2 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 4 + 1 + 1 + 1);
  tap_ok(kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_SUCCESS, "CPU handle");

  t0 = kb_t_now();
  /* 1. the issue's shapes at reduced m, both sides, random transposes */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    int nbad = 0, nrun = 0;
    size_t si;
    first[0] = '\0';
    for (si = 0; si < sizeof kb_t_issue / sizeof kb_t_issue[0]; si++) {
      const kb_t_shape_t *S = &kb_t_issue[si];
      kb_t_prob_t P;
      int64_t K, n = kb_t_issue_factors(S, type, &K);
      /* one side per shape and type: every side meets every shape over
       * the four types */
      for (k = 0; k < (K < 4096 ? 2 : 1); k++) {
        kb_t_issue_prob(&r, S, type, n, K < 4096 ? k : (int)((si + (size_t)ti) % 2), 3, &P);
        kb_t_one(h, &P, kb_rng_next(&r), 0, &nbad, &nrun, first, sizeof first);
      }
    }
    tap_ok(nbad == 0, "%s: the issue's shapes at reduced m against the randomised identity: %d of %d wrong%s%s",
           kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first);
  }

  tap_diag("issue shapes: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 2. every fusion depth under both strategies, against the explicit
   * product: small factors so that long chains stay cheap */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    int nbad = 0, nrun = 0, strat, fuse;
    first[0] = '\0';
    for (strat = KB_CPU_PASSES; strat <= KB_CPU_PER_ROW; strat++)
      for (fuse = 0; fuse <= 6; fuse++) {
        kb_t_prob_t P;
        int64_t i, KL = 1;
        memset(&P, 0, sizeof P);
        P.type = type;
        P.side = (int)kb_rng_range(&r, 0, 1);
        P.tX = (int)kb_rng_range(&r, 0, 2);
        P.tF = (int)kb_rng_range(&r, 0, 2);
        P.m = kb_rng_range(&r, 1, 40);
        P.n = 6;
        for (i = 0; i < P.n; i++) {
          P.p[i] = kb_rng_range(&r, 1, 4);
          P.q[i] = kb_rng_range(&r, 1, 4);
          KL *= P.p[i] * P.q[i];
        }
        /* keep the explicit product cheap */
        for (i = 0; KL > (1 << 15); i = (i + 1) % P.n)
          if (P.p[i] > 1) {
            KL /= P.p[i];
            P.p[i] = 1;
          }
        kb_t_fit_batch(&r, &P, KL, 20);
        P.fuse = fuse;
        P.strategy = strat;
        P.nthreads = (int)kb_rng_range(&r, 1, 3);
        P.alpha_one = (int)kb_rng_range(&r, 0, 1);
        P.beta_zero = (int)kb_rng_range(&r, 0, 1);
        P.pad = kb_rng_range(&r, 0, 3);
        kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
      }
    tap_ok(nbad == 0, "%s: fusion depth 1..6 and whole chains, rows and slices as lanes, against the explicit "
           "product: %d of %d wrong%s%s", kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first);
  }

  tap_diag("fusion depths: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3. random odd shapes: p, q up to 13 and the occasional 52, random
   * everything else, against the explicit product */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    int nbad = 0, nrun = 0, c;
    first[0] = '\0';
    for (c = 0; c < 30; c++) {
      kb_t_prob_t P;
      kb_t_random_shape(&r, type, 1, &P);
      P.fuse = kb_rng_range(&r, 0, 1) ? 0 : (int)kb_rng_range(&r, 1, 3);
      P.strategy = (int)kb_rng_range(&r, -1, 1);
      kb_t_random_call(&r, &P);
      kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    }
    tap_ok(nbad == 0, "%s: random odd shapes (p, q in 1..13 and 52, m in 1..70, batches, padding, alpha, "
           "beta, conjugation) against the explicit product: %d of %d wrong%s%s", kb_oracle_type_name(type),
           nbad, nrun, nbad ? ": " : "", first);
  }

  tap_diag("random shapes: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3b. digits in place (real types, X and Y contiguous along K and L, the
   * fastest factor's q a multiple of the vector length): the fastest
   * digits through digit0 alone or fused with up to three more, the rest
   * as lanes = inner digits, rows or tiles shared by the threads */
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    const long runs0 = kb_cpu_test_inplace_runs();
    int nbad = 0, nrun = 0, c;
    long runs, nent = 0; /* batch entries: the hook counts each */
    first[0] = '\0';
    for (c = 0; c < 24 && kt != NULL; c++) {
      kb_t_prob_t P;
      int64_t i, KL = 1;
      kb_t_left_start(&r, &P, type);
      P.m = kb_rng_range(&r, 0, 3) == 0 ? 1 : kb_rng_range(&r, 2, 20);
      P.n = kb_rng_range(&r, 1, 4);
      for (i = P.n - 1; i >= 0; i--) {
        if (i == P.n - 1) {
          P.p[i] = kb_rng_range(&r, 0, 2) == 0 ? kb_rng_range(&r, 30, 40) : kb_rng_range(&r, 1, 9);
          P.q[i] = kt->vl * kb_rng_range(&r, 1, 4);
        } else {
          P.p[i] = kb_rng_range(&r, 1, 9);
          P.q[i] = kb_rng_range(&r, 0, 2) == 0 ? kt->vl * kb_rng_range(&r, 1, 2) : kb_rng_range(&r, 1, 9);
          if (KL * P.p[i] * P.q[i] > (1 << 17)) {
            P.p[i] = kb_rng_range(&r, 1, 3);
            P.q[i] = kb_rng_range(&r, 1, 3);
          }
        }
        KL *= P.p[i] * P.q[i];
      }
      for (i = 0; i < P.n && c >= 40; i++)
        KL *= P.p[i] * P.q[i];
      kb_t_fit_batch(&r, &P, KL, 19);
      P.fuse = (int)kb_rng_range(&r, 0, 4);
      P.strategy = KB_CPU_PER_ROW;
      P.inplace = 1;
      kb_t_random_call(&r, &P);
      kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
      nent += P.batch;
    }
    runs = kb_cpu_test_inplace_runs() - runs0;
    if (kt == NULL)
      tap_ok(nbad == 0 && runs == 0, "%s: no digits in place without optimised kernels", kb_oracle_type_name(type));
    else
      tap_ok(nbad == 0 && runs == nent, "%s: digits in place (digit0 alone and fused, lanes = inner digits, "
             "1-3 threads) against the explicit product: %d of %d wrong%s%s; %ld of %ld entries ran in place",
             kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first, runs, nent);
  }
  tap_diag("digits in place: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3c'. wide tiles (up to KB_CPU_NVT_WIDE vectors) in the later groups
   * of in-place plans whose row buffers exceed L2: caches shrunk to an
   * L2 of 32 KiB so that rows of 5-9 thousand elements take them; the
   * last tile of a row ragged (inner lanes no multiple of the tile),
   * rows or tiles shared by 1-3 threads, alpha, beta, poisoned Y, padding */
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    int nbad = 0, nrun = 0, nwide = 0, c;
    first[0] = '\0';
    if (kt == NULL || kt->digit0 == NULL) {
      tap_skip("%s: no digits in place (%s): no wide tiles", kb_oracle_type_name(type), KB_TEST_ISA);
      continue;
    }
    kb_cpu_test_caches((size_t)48 << 10, (size_t)32 << 10, (size_t)1 << 20);
    for (c = 0; c < 8; c++) {
      kb_t_prob_t P;
      kb_problem_t pb;
      kb_cpu_plan_opts_t o;
      kb_cpu_plan_t pl;
      int g, wide = 0;
      kb_t_left_start(&r, &P, type);
      P.m = c % 3 == 0 ? 1 : kb_rng_range(&r, 2, 3);
      P.n = 3;
      /* the fastest factor's q whole vectors, the others odd sizes; the
       * middle one's q makes the last group's lanes (q of the two faster
       * factors, 128-448) a few tiles wide; the slowest has few outputs
       * (the oracle's cost is K*L), but more than one micro-tile's rows
       * in every other problem (then the tile is copied, else read in
       * place).  The fastest factor's q is two vectors in six problems of
       * eight, fixed rather than drawn: the model takes wide tiles for
       * those and not for one vector, and a coin per problem left all
       * eight one vector for about 1 seed in 256 (a red CI). */
      P.p[2] = kb_rng_range(&r, 20, 28);
      P.q[2] = kt->vl * (c % 4 == 3 ? 1 : 2);
      P.p[1] = kb_rng_range(&r, 16, 18);
      P.q[1] = kb_rng_range(&r, 8, 14);
      P.p[0] = kb_rng_range(&r, 16, 18);
      P.q[0] = c % 2 ? kb_rng_range(&r, 1, 4) : kb_rng_range(&r, 7, 9);
      P.batch = 1;
      P.strategy = KB_CPU_PER_ROW;
      P.inplace = 1;
      kb_t_random_call(&r, &P);
      kb_t_dims(&P);
      kb_t_inplace_pb(type, &P, &pb, &o);
      if (kb_cpu_plan_with(&pb, kt, &o, &pl) == KRONBLAS_STATUS_SUCCESS)
        for (g = 1; g < pl.ngroups; g++)
          wide |= pl.inplace && pl.g[g].nb > 4 * kt->vl;
      nwide += wide;
      kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    }
    kb_cpu_test_caches(0, 0, 0);
    /* the model takes them for most of these problems with AVX-512
     * vectors, for fewer with shorter ones (lanes of fewer vectors) */
    tap_ok(nbad == 0 && nwide >= (strcmp(kt->name, "avx512") == 0 ? nrun / 2 : 1),
           "%s: wide tiles of later in-place groups over rows beyond L2 (32 KiB) against the explicit "
           "product: %d of %d wrong%s%s; %d of them with tiles over 4 vectors",
           kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first, nwide);
  }
  tap_diag("wide tiles: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3c''. digit0 reading its next chunk of X ahead (d0_next_chunk),
   * double: caches shrunk to an L2 of 32 KiB so that rows of one to a few
   * thousand elements are not read ahead whole but a chunk at a time;
   * five factors of 4-5 (the fastest 4-6), fused at most three or four
   * (digit0 of three or four factors: its intermediates alternate with
   * the row buffer's chunk from either buffer), every sixth problem with
   * factors that grow (q of p + 1 or p + 2, factors 1 and 2 of 12-13),
   * every sixth with q of 2-3 (then
   * intermediates exceed the chunk: both buffers kept); four rows on
   * one or two threads, alpha, beta, padding.  The
   * plans with the flag are counted, digit0 of an odd and of an even
   * number of factors among them. */
  {
    const kronblasDataType_t type = KRONBLAS_R_64F;
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    int nbad = 0, nrun = 0, non = 0, par[2] = { 0, 0 }, c;
    first[0] = '\0';
    if (kt == NULL || kt->digit0 == NULL) {
      tap_skip("%s: no digits in place (%s): no chunk read-ahead", kb_oracle_type_name(type), KB_TEST_ISA);
    } else {
      kb_cpu_test_caches((size_t)48 << 10, (size_t)32 << 10, (size_t)1 << 20);
      /* beyond the 18 problems, up to 18 more while one parity has not
       * been seen or fewer than a third had the flag: those fuse at most
       * three (odd) or four (even) factors to draw the parity missing
       * (with 18 alone, one parity was missing for about 1 seed in 60 and
       * the third for 1 in 5000; with the extra draws, none in 16000) */
      for (c = 0; c < 18 || (c < 36 && (!(par[0] && par[1]) || non * 3 < c)); c++) {
        kb_t_prob_t P;
        kb_problem_t pb;
        kb_cpu_plan_opts_t o;
        kb_cpu_plan_t pl;
        int64_t i;
        kb_t_left_start(&r, &P, type);
        P.m = 4;
        P.n = 5;
        for (i = 0; i < P.n; i++) {
          P.p[i] = kb_rng_range(&r, 4, i == 4 ? 6 : 5);
          P.q[i] = c % 6 == 2 ? (i == 1 || i == 2 ? kb_rng_range(&r, 12, 13) : P.p[i] + kb_rng_range(&r, 1, 2))
                   : c % 6 == 5 ? kb_rng_range(&r, 2, 3) : P.p[i];
        }
        /* the fastest factor's q whole vectors (digits in place) */
        P.q[P.n - 1] = kt->vl;
        P.batch = 1;
        P.strategy = KB_CPU_PER_ROW;
        P.inplace = 1;
        P.fuse = c < 18 ? 3 + c % 2 : (par[1] ? 4 : 3);
        kb_t_random_call(&r, &P);
        /* threads on rows (at most two threads for four rows) */
        P.nthreads = 1 + (c / 2) % 2;
        kb_t_dims(&P);
        kb_t_inplace_pb(type, &P, &pb, &o);
        o.max_fuse = P.fuse;
        if (kb_cpu_plan_with(&pb, kt, &o, &pl) == KRONBLAS_STATUS_SUCCESS && pl.d0_next_chunk) {
          non++;
          par[(pl.g[0].hi - pl.g[0].lo + 1) % 2] = 1;
        }
        /* the explicit product where it is cheap, else the identity (which
         * takes alpha = 1, beta = 0) */
        if (P.K * P.L > ((int64_t)1 << 22))
          P.alpha_one = P.beta_zero = 1;
        kb_t_one(h, &P, kb_rng_next(&r), P.K * P.L <= ((int64_t)1 << 22), &nbad, &nrun, first, sizeof first);
      }
      kb_cpu_test_caches(0, 0, 0);
      tap_ok(nbad == 0 && non >= nrun / 3 && par[0] && par[1],
             "%s: digit0 reading its next chunk ahead over rows beyond L2 (32 KiB) against the explicit "
             "product or the identity: %d of %d wrong%s%s; %d of them with the read-ahead (digit0 of odd / even "
             "factors: %d / %d)",
             kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first, non, par[1], par[0]);
    }
  }
  tap_diag("chunk read-ahead: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3c'''. long rows split in two calls (kb_cpu_gekmm_split): forced
   * wherever the layout allows, on small problems against the explicit
   * product -- m = 1..3 (one vector after another), leading dimensions
   * padded now and then, two to four distinct factors, the split after
   * the first (forced) factor, random factor transposes (conjugates for
   * complex), alpha, beta, 1-3 threads; batches of two run unsplit and
   * are counted apart.  Then the rule: rows of 8 MiB (m = 1, factors of
   * p <= 8) split where the optimised kernels exist, against the
   * identity, and not split under a user workspace. */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    int nbad = 0, nrun = 0, c, want = 0;
    const long s0 = kb_cpu_test_split_runs();
    long got;
    first[0] = '\0';
    kb_cpu_test_force_split(1);
    for (c = 0; c < 14; c++) {
      kb_t_prob_t P;
      int64_t i;
      kb_t_left_start(&r, &P, type);
      P.m = kb_rng_range(&r, 1, 3);
      P.n = kb_rng_range(&r, 2, 4);
      for (i = 0; i < P.n; i++) {
        P.p[i] = kb_rng_range(&r, 1, 5);
        P.q[i] = kb_rng_range(&r, 1, 5);
      }
      P.batch = 1;
      kb_t_random_call(&r, &P);
      if (c % 7 == 6)
        P.batch = 2;
      want += P.batch == 1;
      kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    }
    kb_cpu_test_force_split(-1);
    got = kb_cpu_test_split_runs() - s0;
    tap_ok(nbad == 0 && got == want,
           "%s: long rows split in two calls (forced; m = 1..3, 2-4 distinct factors, alpha, beta, transposes, "
           "1-3 threads) against the explicit product: %d of %d wrong%s%s; %ld split (want %d)",
           kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first, got, want);
  }
  {
    int nbad = 0, nrun = 0, nsplit = 0, nwant = 0, nip = 0;
    first[0] = '\0';
    /* float and complex double (the rule does not look at the type but
     * through the row's bytes; the forced cases above cover every type's
     * two calls, the choices below the rule's other conditions) */
    for (ti = 0; ti < 2; ti++) {
      const kronblasDataType_t type = kb_t_types[ti == 1 ? 3 : 0];
      kb_t_prob_t P;
      long s0 = kb_cpu_test_split_runs();
      int64_t i;
      kb_t_left_start(&r, &P, type);
      P.m = 1;
      /* rows of 8 MiB: float 8^7, complex double 8^6 then 2 */
      P.n = 7;
      for (i = 0; i < P.n; i++)
        P.p[i] = P.q[i] = i < 6 || ti == 0 ? 8 : 2;
      P.batch = 1;
      P.nthreads = 2;
      P.alpha_one = P.beta_zero = 1;
      kb_t_one(h, &P, kb_rng_next(&r), 0, &nbad, &nrun, first, sizeof first);
      nsplit += kb_cpu_test_split_runs() - s0 > 0;
      nwant += kb_cpu_kernels_for(type) != NULL;
    }
    {
      /* Y == X (in place), split forced: not split (one vector's Y would
       * be the next one's X), and the same as a separate Y */
      static const int64_t p3[3] = { 4, 3, 5 };
      const int64_t K3 = 60, m3 = 3;
      const float one = 1.0f, zero = 0.0f;
      float Xs[180], Yr[180];
      const float *F3[3];
      float Fd[3][25];
      int64_t ld3[3], i;
      long s0;
      double err = 0, mag = 0;
      for (i = 0; i < 3; i++) {
        int64_t j;
        for (j = 0; j < p3[i] * p3[i]; j++)
          Fd[i][j] = (float)(kb_rng_range(&r, 0, 2000) - 1000) / 1000.0f;
        F3[i] = Fd[i];
        ld3[i] = p3[i];
      }
      for (i = 0; i < K3 * m3; i++)
        Xs[i] = (float)(kb_rng_range(&r, 0, 2000) - 1000) / 1000.0f;
      kb_cpu_test_force_split(0);
      if (kronblasSgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m3, 3, p3, p3, &one, Xs, K3, F3, ld3,
                            &zero, Yr, K3) != KRONBLAS_STATUS_SUCCESS)
        nip = 1;
      kb_cpu_test_force_split(1);
      s0 = kb_cpu_test_split_runs();
      if (kronblasSgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m3, 3, p3, p3, &one, Xs, K3, F3, ld3,
                            &zero, Xs, K3) != KRONBLAS_STATUS_SUCCESS || kb_cpu_test_split_runs() != s0)
        nip = 1;
      kb_cpu_test_force_split(-1);
      for (i = 0; i < K3 * m3; i++) {
        err = fmax(err, fabs((double)Xs[i] - (double)Yr[i]));
        mag = fmax(mag, fabs((double)Yr[i]));
      }
      if (!(err <= 64 * FLT_EPSILON * (mag + 1)))
        nip = 1;
    }
    tap_ok(nbad == 0 && nsplit == nwant && nip == 0,
           "rows of 8 MiB (float, complex double) split by the rule where optimised kernels exist, against the identity: %d of %d "
           "wrong%s%s; %d split (want %d); in place (forced) %s",
           nbad, nrun, nbad ? ": " : "", first, nsplit, nwant, nip ? "split or wrong" : "not split, right");
  }
  {
    /* the rule's choices, planned only: float 1_8x8^7 splits after two
     * factors, 1_8x8^8 after three (rows of 512 KiB at most), but not
     * two vectors, a row of 2 MiB, factors of 16, a handle with a user
     * workspace, or a handle in MEASURE mode holding a plan for the whole
     * call (a wisdom entry); without optimised kernels never */
    static const int64_t p8[8] = { 8, 8, 8, 8, 8, 8, 8, 8 }, p16[6] = { 16, 16, 16, 16, 16, 16 };
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(KRONBLAS_R_32F);
    const int on = kt != NULL;
    kronblasHandle_t h3 = NULL;
    char key[160], plan[160], got[400];
    int ok = 1, wis = 0, c;
    static char ws[64];
    got[0] = '\0';
    kb_t_split_case(h, 1, 7, p8, 2, on, &ok, got, sizeof got);
    kb_t_split_case(h, 1, 8, p8, 3, on, &ok, got, sizeof got);
    kb_t_split_case(h, 2, 7, p8, 0, on, &ok, got, sizeof got);
    kb_t_split_case(h, 1, 6, p8, 0, on, &ok, got, sizeof got);
    kb_t_split_case(h, 1, 6, p16, 0, on, &ok, got, sizeof got);
    kronblasSetWorkspace(h, ws, sizeof ws);
    kb_t_split_case(h, 1, 7, p8, 0, on, &ok, got, sizeof got);
    kronblasSetWorkspace(h, NULL, 0);
    /* a MEASURE handle: splits until it holds a plan for the call */
    if (kronblasCreateWithBackend(&h3, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS ||
        kronblasSetNumThreads(h3, 1) != KRONBLAS_STATUS_SUCCESS ||
        kronblasSetTuningMode(h3, KRONBLAS_TUNING_MEASURE) != KRONBLAS_STATUS_SUCCESS)
      ok = 0;
    kb_t_split_case(h3, 1, 7, p8, 2, on, &ok, got, sizeof got);
    if (on) {
      static const char *const specs[] = { "rows split0 t1 6-5:64,4-3:64,2-0:64", "rows split1 t1 6-5:64,4-3:64,2-0:64",
                                           "passes split0 t1 6-5:64,4-3:64,2-0:64" };
      snprintf(key, sizeof key, "s %s xk yl m1 t1 8x8,8x8,8x8,8x8,8x8,8x8,8x8", kt->name);
      for (c = 0; !wis && c < 3; c++) {
        snprintf(plan, sizeof plan, "%s", specs[c]);
        wis = kb_cpu_backend.wisdom_add(h3, key, plan) == KRONBLAS_STATUS_SUCCESS;
      }
      ok = ok && wis;
      kb_t_split_case(h3, 1, 7, p8, 0, on, &ok, got, sizeof got);
    }
    kronblasDestroy(h3);
    tap_ok(ok, "the split rule's choices (float 1_8x8^7, 1_8x8^8, 2_8x8^7, 1_8x8^6, 1_16x16^6, a user workspace, "
               "MEASURE without and with a wisdom entry%s): leading factors%s",
           on ? (wis ? "" : ", which was refused") : "; no optimised kernels: none", got);
  }
  tap_diag("split rows: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3c'''. digit0's first two factors at once (kb_d01_run: double on
   * AVX-512 where the two fastest factors are 8 x 8): two to four factors,
   * the others of 1-9 (p != q among them), digit0 of two (then it writes Y:
   * alpha, beta, non-temporal stores where the model streams Y), three and
   * four factors (both buffer parities), the whole problem in one group
   * or not; every other problem with L2 shrunk to 32 KiB, so that rows of
   * a few thousand elements are read ahead whole or chunk by chunk; 1-3
   * threads, padding.  The plans whose digit0 starts with the two 8 x 8
   * factors are counted (with AVX-512 the kernel takes them at once). */
  {
    const kronblasDataType_t type = KRONBLAS_R_64F;
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    int nbad = 0, nrun = 0, n01 = 0, nf2 = 0, c;
    first[0] = '\0';
    if (kt == NULL || kt->digit0 == NULL) {
      tap_skip("%s: no digits in place (%s): no digit0 of two 8 x 8 factors", kb_oracle_type_name(type),
               KB_TEST_ISA);
    } else {
      for (c = 0; c < 16; c++) {
        kb_t_prob_t P;
        kb_problem_t pb;
        kb_cpu_plan_opts_t o;
        kb_cpu_plan_t pl;
        int64_t i;
        kb_t_left_start(&r, &P, type);
        P.n = 2 + c % 3;
        /* the third fastest factor of q 7-9 in every other problem (more
         * than one row chunk of micro-tiles: then a buffer planted wrong
         * shows), the fourth small (the explicit product's cost) */
        for (i = 0; i < P.n - 2; i++) {
          P.p[i] = i == P.n - 3 ? kb_rng_range(&r, 1, 7) : kb_rng_range(&r, 1, 3);
          P.q[i] = i == P.n - 3 && c % 2 == 0 ? kb_rng_range(&r, 7, 9) : kb_rng_range(&r, 0, 1) ? P.p[i]
                   : kb_rng_range(&r, 1, i == P.n - 3 ? 7 : 3);
        }
        P.p[P.n - 2] = P.q[P.n - 2] = P.p[P.n - 1] = P.q[P.n - 1] = 8;
        P.m = c % 4 == 0 ? 1 : kb_rng_range(&r, 2, 6);
        P.batch = 1;
        P.strategy = KB_CPU_PER_ROW;
        P.inplace = 1;
        /* groups of 2..n factors in turn */
        P.fuse = 2 + (c / 3) % ((int)P.n - 1);
        kb_t_random_call(&r, &P);
        kb_t_dims(&P);
        if (c % 2)
          kb_cpu_test_caches((size_t)48 << 10, (size_t)32 << 10, (size_t)1 << 20);
        kb_t_inplace_pb(type, &P, &pb, &o);
        o.max_fuse = P.fuse;
        if (kb_cpu_plan_with(&pb, kt, &o, &pl) == KRONBLAS_STATUS_SUCCESS && pl.inplace &&
            pl.g[0].hi == P.n - 1 && pl.g[0].lo <= P.n - 2) {
          n01++;
          nf2 += pl.g[0].lo == P.n - 2;
        }
        kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
        kb_cpu_test_caches(0, 0, 0);
      }
      tap_ok(nbad == 0 && n01 >= nrun / 2 && nf2 > 0,
             "%s: digit0 starting with two 8 x 8 factors (at once with AVX-512 doubles), two to four "
             "factors, rows in or beyond L2, against the explicit product: %d of %d wrong%s%s; %d of them "
             "with both in digit0 (%d with digit0 of just those two)",
             kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first, n01, nf2);
    }
  }
  tap_diag("digit0 of two 8 x 8 factors: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3c. banded plans (real types, X and Y contiguous along K and L):
   * whole rows, digits slowest first; straight steps (tails where the
   * stride is no multiple of the vector length, factors p != q), fused
   * pairs of 2x2 or 3x3, banded steps of square p = 2..8 at strides below
   * the vector length, the row copied first when the first step is banded;
   * RIGHT problems (Y along m) fall back to the other plans */
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    static const int64_t ps[] = { 2, 3, 3, 3, 5, 6, 7, 8, 4, 1, 16 };
    /* chains that reach every step kind of both vector lengths (AVX-512:
     * float 16, double 8): half-vector steps of stride vl/2 with odd and
     * even p (8 after 8 or 5 after 8; 4 after 4, 3 after 2x2), pair steps
     * (stride 1, p = vl/2), slices as a GEMM (stride 1, q a multiple of
     * vl: 16, 8), two straight digits in one pass over several column
     * chunks (2, 2 before 8x16 or 8x8), the rest banded or straight */
    static const int64_t fixed[][4] = { { 8, 8, 0, 0 }, { 5, 8, 0, 0 }, { 7, 8, 2, 0 }, { 16, 16, 0, 0 },
                                        { 4, 4, 4, 0 }, { 3, 2, 2, 0 }, { 8, 8, 8, 0 }, { 3, 4, 4, 0 },
                                        { 2, 8, 16, 0 }, { 4, 4, 8, 0 }, { 2, 2, 8, 16 }, { 2, 2, 8, 8 } };
    const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    const long runs0 = kb_cpu_test_band_runs();
    int nbad = 0, nrun = 0, nleft = 0, c;
    long runs;
    first[0] = '\0';
    for (c = 0; c < 40 + nfixed; c++) {
      kb_t_prob_t P;
      int64_t i, KL = 1, pc;
      memset(&P, 0, sizeof P);
      P.type = type;
      P.side = kb_rng_range(&r, 0, 4) == 0 ? KRONBLAS_SIDE_RIGHT : KRONBLAS_SIDE_LEFT;
      P.tX = P.side == KRONBLAS_SIDE_RIGHT ? KRONBLAS_OP_T : KRONBLAS_OP_N;
      P.tF = (int)kb_rng_range(&r, 0, 2);
      P.m = kb_rng_range(&r, 0, 3) == 0 ? kb_rng_range(&r, 1, 3) : 2 * kb_rng_range(&r, 1, 10) + 1;
      P.n = kb_rng_range(&r, 1, 7);
      pc = ps[kb_rng_range(&r, 0, 10)];
      if (c >= 40) {
        P.side = KRONBLAS_SIDE_LEFT;
        P.tX = KRONBLAS_OP_N;
        for (P.n = 0; P.n < 4 && fixed[c - 40][P.n] > 0; P.n++)
          P.p[P.n] = P.q[P.n] = fixed[c - 40][P.n];
      }
      for (i = 0; i < P.n && c < 40; i++) {
        /* mostly equal square factors (banded and fused steps), now and
         * then one of another size or shape anywhere in the chain */
        P.p[i] = P.q[i] = pc;
        if (kb_rng_range(&r, 0, 5) == 0) {
          P.p[i] = kb_rng_range(&r, 1, 7);
          P.q[i] = kb_rng_range(&r, 1, 7);
        }
        if (KL * P.p[i] * P.q[i] > (1 << 16)) {
          P.p[i] = kb_rng_range(&r, 1, 2);
          P.q[i] = kb_rng_range(&r, 1, 2);
        }
        KL *= P.p[i] * P.q[i];
      }
      for (i = 0; i < P.n && c >= 40; i++)
        KL *= P.p[i] * P.q[i];
      kb_t_fit_batch(&r, &P, KL, 19);
      P.strategy = -1;
      P.band = 1;
      kb_t_random_call(&r, &P);
      kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
      nleft += P.side == KRONBLAS_SIDE_LEFT ? P.batch : 0; /* entries, as the hook counts */
    }
    runs = kb_cpu_test_band_runs() - runs0;
    kb_t_band_report(kt, type, "banded plans",
                     "straight, fused, banded, half-vector, pair and slice-GEMM steps, p = 1..16, p != q, 1-3 "
                     "threads, LEFT and RIGHT, against the explicit product",
                     nbad, nrun, first, runs, nleft, "LEFT entries banded (all must be)");
  }
  tap_diag("banded plans: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3d. dense steps of banded plans: the d fastest digits (2 .. all of
   * them) as one GEMM against their Kronecker product, its q rounded up
   * to whole vectors (the last vector of a slice masked; column chunks
   * where q is beyond four vectors; one vector), p != q, p or q = 1,
   * after straight, fused and banded steps or alone; odd m, 1-3 threads,
   * alpha, beta (NaN in Y where beta = 0), padded leading dimensions */
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    /* 3^7 (27 x 27 after two fused pairs), 2^7, 5^3, 4 x 4 after 16,
     * 9 x 2 (q = 18: a vector and a tail), q = 42 and 126 from p = 1 and
     * 4 (columns in chunks of four vectors), 1 x 6 and 6 x 1 */
    static const int64_t fixed[][2][7] = {
      { { 3, 3, 3, 3, 3, 3, 3 }, { 3, 3, 3, 3, 3, 3, 3 } }, { { 2, 2, 2, 2, 2, 2, 2 }, { 2, 2, 2, 2, 2, 2, 2 } },
      { { 5, 5, 5, 0 }, { 5, 5, 5, 0 } }, { { 16, 4, 4, 0 }, { 16, 4, 4, 0 } },
      { { 3, 7, 9, 2 }, { 2, 7, 9, 2 } }, { { 4, 1, 1, 0 }, { 3, 6, 7, 0 } }, { { 4, 1, 6, 0 }, { 3, 6, 1, 0 } } };
    const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
    const long runs0 = kb_cpu_test_dense_runs();
    int nbad = 0, nrun = 0, c;
    long runs;
    first[0] = '\0';
    for (c = 0; c < 24 + 2 * nfixed; c++) {
      kb_t_prob_t P;
      int64_t i, KL = 1;
      kb_t_left_prob(&r, &P, type, 10);
      if (c >= 24) {
        const int fx = (c - 24) / 2;
        for (P.n = 0; P.n < 7 && fixed[fx][0][P.n] > 0; P.n++) {
          P.p[P.n] = fixed[fx][0][P.n];
          P.q[P.n] = fixed[fx][1][P.n];
        }
      } else {
        P.n = kb_rng_range(&r, 2, 6);
        for (i = 0; i < P.n; i++) {
          P.p[i] = P.q[i] = kb_rng_range(&r, 2, 5);
          if (kb_rng_range(&r, 0, 3) == 0) {
            P.p[i] = kb_rng_range(&r, 1, 7);
            P.q[i] = kb_rng_range(&r, 1, 7);
          }
          if (KL * P.p[i] * P.q[i] > (1 << 16))
            P.p[i] = P.q[i] = 1;
          KL *= P.p[i] * P.q[i];
        }
      }
      for (i = 0, KL = 1; i < P.n; i++)
        KL *= P.p[i] * P.q[i];
      /* the fixed chains: the model's dense step and every forced one in turn */
      P.dense = c >= 24 && c % 2 == 0 ? 0 : (int)kb_rng_range(&r, 2, P.n);
      kb_t_fit_batch(&r, &P, KL, 19);
      P.strategy = -1;
      P.band = 1;
      kb_t_random_call(&r, &P);
      kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    }
    runs = kb_cpu_test_dense_runs() - runs0;
    kb_t_band_report(kt, type, "dense steps",
                     "of banded plans, 2 .. all digits, q up to 126, p != q, 1-3 threads, against the explicit "
                     "product", nbad, nrun, first, runs, nrun / 2, "batch entries with a dense step");
  }
  tap_diag("dense steps: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3d'. dense steps across slices (kb_band_tdense): 3^3, 2^5 and 6^2 as
   * the dense step after straight and fused steps or alone, slices in
   * whole blocks of a vector's lanes and a ragged last one (3^3 alone: S =
   * 1; 3^5: S = 9; 3^7: 81; 2^7: 4; 2^8: 8; 6^2 alone: 1; 6^4: 36; 6^5:
   * 216), the outputs straight into the next block (plain stores), through
   * the epilogue or non-temporal (shifted onto Y's lines), odd m, 1-3
   * threads, alpha, beta, padding; the model's dense steps of 3^7 and 6^4
   * too (6^2: 36 vectors, more than registers: kb_td_block's T path) */
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    static const struct {
      int64_t p, n;
      int dense;
    } td[] = { { 3, 7, 3 }, { 3, 7, 0 }, { 3, 3, 3 }, { 3, 4, 3 }, { 3, 5, 3 }, { 2, 5, 5 }, { 2, 7, 5 }, { 2, 8, 5 },
              { 6, 2, 2 }, { 6, 3, 2 }, { 6, 4, 2 }, { 6, 5, 2 }, { 6, 4, 0 } };
    const long runs0 = kb_cpu_test_tdense_runs();
    int nbad = 0, nrun = 0, c;
    first[0] = '\0';
    for (c = 0; c < 3 * (int)(sizeof td / sizeof td[0]); c++) {
      kb_t_prob_t P;
      int64_t KL = 1, i;
      kb_t_left_prob(&r, &P, type, 10);
      P.n = td[c / 3].n;
      for (i = 0; i < P.n; i++) {
        P.p[i] = P.q[i] = td[c / 3].p;
        KL *= P.p[i] * P.q[i];
      }
      P.dense = td[c / 3].dense;
      /* every third call with a last-level cache so small that Y goes
       * non-temporal (y_stream, beta = 0): rows of Y that start off a
       * line (odd lengths, padding) take kb_td_block's shifted stores */
      if (c % 3 == 2)
        kb_cpu_test_caches((size_t)48 << 10, (size_t)1024 << 10, (size_t)64 << 10);
      kb_t_band_call(h, &r, &P, KL, &nbad, &nrun, first, sizeof first);
      if (c % 3 == 2)
        kb_cpu_test_caches(0, 0, 0);
    }
    /* (the AVX-512 kernels only: elsewhere none may run that way) */
    kb_t_band_report(kt != NULL && kt->band_half ? kt : NULL, type,
                     "dense steps across slices",
                     "3^3, 2^5 and 6^2 after other steps or alone, whole and ragged blocks of slices, plain, "
                     "epilogue and non-temporal stores, 1-3 threads, against the explicit product or the identity",
                     nbad, nrun, first, kb_cpu_test_tdense_runs() - runs0, nrun / 2,
                     "batch entries with one");
  }
  tap_diag("dense steps across slices: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3d''. float half-vector + pair steps of p = 8 as one pass
   * (kb_band_hp8, AVX-512: an 8 x 8 block's two digits without permutes
   * but the last stage): alone (the row copied in; the pass writes Y),
   * after a straight digit of p = 3 or 5 (q 7: p != q before it) writing
   * Y, in segments last or first (8^3 .. 8^5, 3 x 8^3, 2 x 8^4, 8^4
   * with the slowest q 16), over blocks of 64 in pairs and an odd last
   * one (rows of 1, 3 and 5 blocks); the Y it writes through the epilogue (alpha, beta, NaN in Y
   * where beta = 0) or non-temporal (every third call with a last-level
   * cache so small that Y streams); odd m, 1-3 threads, padding; half
   * steps of p = 7, 6 and 4 before a pair step as a control (the old
   * path, not counted).  Against the explicit product or the identity. */
  {
    const kronblasDataType_t type = KRONBLAS_R_32F;
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    static const int64_t hp[][2][7] = {
      { { 8, 8 }, { 8, 8 } }, { { 3, 8, 8 }, { 3, 8, 8 } }, { { 5, 8, 8 }, { 7, 8, 8 } },
      { { 8, 8, 8 }, { 8, 8, 8 } }, { { 8, 8, 8, 8 }, { 8, 8, 8, 8 } }, { { 3, 8, 8, 8 }, { 3, 8, 8, 8 } },
      { { 2, 8, 8, 8, 8 }, { 2, 8, 8, 8, 8 } }, { { 8, 8, 8, 8, 8 }, { 8, 8, 8, 8, 8 } },
      { { 8, 8, 8, 8 }, { 16, 8, 8, 8 } }, { { 7, 8 }, { 7, 8 } }, { { 6, 8 }, { 6, 8 } }, { { 4, 4, 8 }, { 4, 4, 8 } } };
    const int nhp = (int)(sizeof hp / sizeof hp[0]);
    const long runs0 = kb_cpu_test_hp8_runs();
    int nbad = 0, nrun = 0, c;
    first[0] = '\0';
    for (c = 0; c < 3 * nhp; c++) {
      kb_t_prob_t P;
      int64_t KL;
      kb_t_left_prob(&r, &P, type, 6);
      KL = kb_t_fixed_factors(&P, hp[c / 3]);
      /* the model's plan, segments last, segments first */
      P.seg = c % 3;
      if (c % 3 == 1)
        kb_cpu_test_caches((size_t)48 << 10, (size_t)1024 << 10, (size_t)64 << 10);
      kb_t_band_call(h, &r, &P, KL, &nbad, &nrun, first, sizeof first);
      if (c % 3 == 1)
        kb_cpu_test_caches(0, 0, 0);
    }
    /* (the AVX-512 float kernels only: elsewhere none may run that way) */
    kb_t_band_report(kt != NULL && kt->band_half ? kt : NULL, type, "half-vector and pair steps of p = 8 at once",
                     "alone, after straight digits, in segments last or first, epilogue and non-temporal "
                     "stores, 1-3 threads, against the explicit product or the identity",
                     nbad, nrun, first, kb_cpu_test_hp8_runs() - runs0, nrun / 2, "batch entries with it");
  }
  tap_diag("half-vector and pair steps at once: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3e. segmented steps of banded plans: the fastest digits a few blocks
   * at a time through L1 buffers, after the other steps or first (straight
   * from X), over straight steps with masked tails, slice GEMMs, half-
   * vector and pair steps, fused and dense steps; p != q (segments last
   * only), several segments a row and a short last one, odd m, 1-3
   * threads, alpha, beta (NaN in Y where beta = 0), padded leading
   * dimensions; against the explicit product where it is cheap, else the
   * randomised identity */
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    /* 8^4 (float: half-vector + pair steps; double: a slice GEMM), 4^6
     * (double: half + pair), 16^3, 3^7 (fused and dense), 6^4 (strides
     * of masked tails), 8,8,8,5 (q != p), 2 x 8^3 and 7 x 8^3 (a row of
     * segments and a short one), 5^5 (band matrices: no segments); 8^3,
     * 4^3, 3x2,8,8 small enough for the explicit product (alpha, beta);
     * 3,2,8^3: two steps on the row after segments that go first */
    static const int64_t fixed[][2][7] = {
      { { 8, 8, 8, 8 }, { 8, 8, 8, 8 } }, { { 4, 4, 4, 4, 4, 4 }, { 4, 4, 4, 4, 4, 4 } },
      { { 16, 16, 16 }, { 16, 16, 16 } }, { { 3, 3, 3, 3, 3, 3, 3 }, { 3, 3, 3, 3, 3, 3, 3 } },
      { { 6, 6, 6, 6 }, { 6, 6, 6, 6 } }, { { 8, 8, 8, 8 }, { 8, 8, 8, 5 } }, { { 8, 8, 8, 7 }, { 8, 8, 8, 7 } },
      { { 2, 8, 8, 8 }, { 2, 8, 8, 8 } }, { { 7, 8, 8, 8 }, { 7, 8, 8, 8 } }, { { 5, 5, 5, 5, 5 }, { 5, 5, 5, 5, 5 } },
      { { 8, 8, 8 }, { 8, 8, 8 } }, { { 4, 4, 4 }, { 4, 4, 4 } }, { { 3, 8, 8 }, { 2, 8, 8 } },
      { { 3, 2, 8, 8, 8 }, { 3, 2, 8, 8, 8 } } };
    /* the model's choice, segments last, segments first */
    kb_t_band_section(h, &r, type, fixed, (int)(sizeof fixed / sizeof fixed[0]), 0, 3, 0, 6, kb_cpu_test_seg_runs,
                      "segmented steps",
                      "of banded plans, last or first, straight, slice-GEMM, half-vector, pair, fused and dense "
                      "steps, p != q, 1-3 threads, against the explicit product or the randomised identity",
                      "batch entries with segments");
  }
  tap_diag("segmented steps: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 3f. column tiles of banded plans: the slowest straight digits a
   * vector of columns at a time in an L1 tile (gathered from the row,
   * in place, scattered to Y or to the row buffer), after segments that
   * go first or before segments that go last; the fused straight +
   * slice-GEMM pass (double AVX-512) inside the segments; p = 2..8 for the
   * slowest digit, q != p in the segments (segments last), odd m, 1-3
   * threads, alpha, beta (NaN in Y where beta = 0), padded leading
   * dimensions; against the explicit product where it is cheap, else the
   * randomised identity */
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    /* 8^5 (two column digits after three in segments), 4^7 (double:
     * half + pair segments), 2 x 8^4, 3 x 8^4, 7 x 8^4 (the slowest p
     * odd or small), 8^4 x 16 (q != p: segments last, the columns
     * first), 8,8,8,8,16 likewise, 8^3 x 2 and 5 x 8^3 small enough for
     * the explicit product; 2,3,2 x 8^3 and 8^6: three column digits (one
     * in place) */
    static const int64_t fixed[][2][7] = {
      { { 8, 8, 8, 8, 8 }, { 8, 8, 8, 8, 8 } }, { { 4, 4, 4, 4, 4, 4, 4 }, { 4, 4, 4, 4, 4, 4, 4 } },
      { { 2, 8, 8, 8, 8 }, { 2, 8, 8, 8, 8 } }, { { 3, 8, 8, 8, 8 }, { 3, 8, 8, 8, 8 } },
      { { 7, 8, 8, 8, 8 }, { 7, 8, 8, 8, 8 } }, { { 8, 8, 8, 8, 8 }, { 8, 8, 8, 8, 16 } },
      { { 2, 8, 8, 8 }, { 2, 8, 8, 8 } }, { { 5, 8, 8, 8 }, { 5, 8, 8, 8 } }, { { 2, 2, 8, 8, 8 }, { 2, 2, 8, 8, 16 } },
      { { 2, 3, 2, 8, 8, 8 }, { 2, 3, 2, 8, 8, 8 } }, { { 8, 8, 8, 8, 8, 8 }, { 8, 8, 8, 8, 8, 8 } } };
    /* segments last, segments first (where every factor is square) */
    const long wide0 = kb_cpu_test_wide_runs();
    kb_t_band_section(h, &r, type, fixed, (int)(sizeof fixed / sizeof fixed[0]), 1, 2, 1, 4, kb_cpu_test_col_runs,
                      "column tiles",
                      "of banded plans, after or before segments, p = 2..8, q != p, 1-3 threads, against the "
                      "explicit product or the randomised identity",
                      "batch entries with column tiles");
    /* the section above must have run the wide tiles (the planner's
     * default where segments go first and the tiles reach 512-byte runs),
     * or it no longer tests them */
    {
      const long wide = kb_cpu_test_wide_runs() - wide0;
      const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
      if (kt == NULL)
        tap_ok(wide == 0, "%s: no wide column tiles without optimised kernels", kb_oracle_type_name(type));
      else
        tap_ok(wide > 0, "%s: column tiles: %ld batch entries with wide tiles straight to Y",
               kb_oracle_type_name(type), wide);
    }
    /* the same with the tile rows c apart in the row buffer (where
     * segments go first they are a vector more apart by default,
     * kb_cpu_plan_t.band_col_ld, and the previous row goes to Y during
     * the next one): the last column step scatters straight to Y */
    kb_cpu_test_force_band_colpad(0);
    kb_t_band_section(h, &r, type, fixed, (int)(sizeof fixed / sizeof fixed[0]), 1, 2, 1, 4, kb_cpu_test_col_runs,
                      "column tiles, rows not padded",
                      "of banded plans, after or before segments, the last step's stores straight to Y, against "
                      "the explicit product or the randomised identity",
                      "batch entries with column tiles");
    kb_cpu_test_force_band_colpad(-1);
    /* padded rows where the planner would take wide tiles straight to Y
     * (kb_cpu_plan_t.band_col_w; every padded case above: tiles of 8 or
     * more vectors, 4 digits in segments for 8^6) kept one vector wide:
     * the last step back into the row buffer, the row to Y after it or
     * during the next one (kb_bpf_copy) */
    kb_cpu_test_force_band_wide(0);
    kb_t_band_section(h, &r, type, fixed, (int)(sizeof fixed / sizeof fixed[0]), 1, 2, 1, 4, kb_cpu_test_col_runs,
                      "column tiles, one vector wide",
                      "of banded plans, after or before segments, padded rows copied to Y, against the explicit "
                      "product or the randomised identity",
                      "batch entries with column tiles");
    kb_cpu_test_force_band_wide(-1);
  }
  tap_diag("column tiles: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 4. 1, 2 and 3 threads give the same values (within the rounding bound
   * of the oracle, which each also meets) */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    static const kb_t_shape_t sh[] = { { 1, 4, 8, 8 }, { 3, 3, 8, 8 }, { 13, 3, 5, 5 }, { 16, 2, 12, 12 },
                                       { 13, 7, 3, 3 } };
    const double eps = kb_oracle_eps(type);
    int nbad = 0, nrun = 0;
    size_t si;
    first[0] = '\0';
    for (si = 0; si < sizeof sh / sizeof sh[0]; si++) {
      kb_t_prob_t P;
      void *Yt[3] = { NULL, NULL, NULL };
      int64_t ldy = 0, i, e, nY;
      const uint64_t dseed = kb_rng_next(&r);
      char why[700];
      double ymax = 0;
      int t, ok = 1;
      memset(&P, 0, sizeof P);
      P.type = type;
      P.side = (int)kb_rng_range(&r, 0, 1);
      P.tX = (int)kb_rng_range(&r, 0, 2);
      P.tF = (int)kb_rng_range(&r, 0, 2);
      P.m = sh[si].m;
      P.n = sh[si].n;
      for (i = 0; i < P.n; i++) {
        P.p[i] = sh[si].p;
        P.q[i] = sh[si].q;
      }
      P.batch = 1;
      P.strategy = -1;
      P.alpha_one = 1;
      P.beta_zero = 1;
      kb_t_dims(&P);
      for (t = 0; t < 3; t++) {
        P.nthreads = t + 1;
        kronblasSetNumThreads(h, P.nthreads);
        nrun++;
        if (kb_t_run(h, &P, dseed, P.K * P.L <= (1 << 20), &Yt[t], &ldy, why, sizeof why) != 0) {
          if (nbad == 0)
            snprintf(first, sizeof first, "%s", why);
          ok = 0;
        }
      }
      /* LEFT: L x m, RIGHT: m x L, stored with ldy; the bound is the
       * oracle's with the largest magnitude in Y */
      nY = P.side == KRONBLAS_SIDE_LEFT ? ldy * (P.m - 1) + P.L : ldy * (P.L - 1) + P.m;
      if (ok)
        for (e = 0; e < nY; e++)
          if (fabs(kb_t_get(type, Yt[0], e, 0)) + fabs(kb_t_get(type, Yt[0], e, 1)) > ymax)
            ymax = fabs(kb_t_get(type, Yt[0], e, 0)) + fabs(kb_t_get(type, Yt[0], e, 1));
      for (t = 1; t < 3 && ok; t++)
        for (e = 0; e < nY && ok; e++) {
          int part;
          for (part = 0; part < 2; part++) {
            double a = kb_t_get(type, Yt[0], e, part), b = kb_t_get(type, Yt[t], e, part);
            if (fabs(a - b) > 4.0 * (double)(P.n * (P.p[0] + 1) + 2) * eps * ymax) {
              if (nbad == 0)
                snprintf(first, sizeof first, "%s m=%" PRId64 " %" PRId64 "x%" PRId64 "^%" PRId64
                         ": element %" PRId64 " differs between 1 and %d threads: %.9g vs %.9g",
                         kb_oracle_type_name(type), P.m, P.p[0], P.q[0], P.n, e, t + 1, a, b);
              ok = 0;
            }
          }
        }
      if (!ok)
        nbad++;
      for (t = 0; t < 3; t++)
        free(Yt[t]);
    }
    tap_ok(nbad == 0, "%s: 1, 2 and 3 threads agree (m = 1, 3, 13, 16; 13_3x3^7 banded for real types): "
           "%d of %d runs wrong%s%s",
           kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first);
  }

  tap_diag("thread counts: %.2f s", kb_t_now() - t0);
  t0 = kb_t_now();
  /* 4b. tail rows of plans on rows (the last row of each thread, shared):
   * with the test hook thread 0 takes no rows and runs every unit
   * (digit0's chunks, tiles) of the others' tail rows, in their row
   * buffers, group after group; per-row plans of one to three groups, in
   * place or not, 2 and 3 threads, m from all rows tail (m = threads) to
   * 13, against the explicit product */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(type);
    static const int64_t ms[2][4] = { { 2, 4, 12, 13 }, { 3, 6, 12, 13 } };
    const long units0 = kb_cpu_test_tail_help_units();
    int nbad = 0, nrun = 0, c;
    long units;
    first[0] = '\0';
    kb_cpu_test_force_tail_helper(1);
    for (c = 0; c < 24; c++) {
      kb_t_prob_t P;
      int64_t i;
      memset(&P, 0, sizeof P);
      P.type = type;
      P.nthreads = 2 + c % 2;
      P.m = ms[c % 2][c / 2 % 4];
      P.n = 3;
      for (i = 0; i < P.n; i++)
        P.p[i] = P.q[i] = 4 + (c + i) % 3 * 2;
      P.batch = 1;
      P.fuse = c % 3 + 1;
      P.strategy = KB_CPU_PER_ROW;
      /* digits in place need X along K (LEFT, X not transposed) */
      P.inplace = ti < 2 && c % 4 < 2 ? 1 : 2;
      if (P.inplace == 2) {
        P.side = (int)kb_rng_range(&r, 0, 1);
        P.tX = (int)kb_rng_range(&r, 0, 2);
        P.tF = (int)kb_rng_range(&r, 0, 2);
      }
      P.band = 2;
      P.alpha_one = (int)kb_rng_range(&r, 0, 1);
      P.beta_zero = (int)kb_rng_range(&r, 0, 1);
      P.pad = kb_rng_range(&r, 0, 2);
      kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    }
    kb_cpu_test_force_tail_helper(0);
    units = kb_cpu_test_tail_help_units() - units0;
    if (kt == NULL)
      tap_ok(nbad == 0 && units == 0, "%s: no tail rows without optimised kernels", kb_oracle_type_name(type));
    else
      tap_ok(nbad == 0 && units >= nrun, "%s: tail rows run by a helper thread (plans on rows, 1-3 groups, "
             "in place or not, 2 and 3 threads): %d of %d wrong, %ld units helped%s%s",
             kb_oracle_type_name(type), nbad, nrun, units, nbad ? ": " : "", first);
  }
  tap_diag("tail rows: %.2f s", kb_t_now() - t0);
  /* 5. read-ahead of each thread's next row of X (pf_next_row): on in the
   * model's plan where it fits, off through the plan options, a spec and a
   * wisdom entry (" ra0"), which parses strictly and gives right results */
  {
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(KRONBLAS_R_32F);
    if (kt == NULL) {
      tap_skip("no fast kernels (%s): no read-ahead", KB_TEST_ISA);
    } else {
      static const int64_t p8[3] = { 8, 8, 8 };
      static const char *const bad[] = { " ra1", " ra0 ", " ra", " ra0,0-0:16", " ra00" };
      kb_problem_t pb;
      kb_cpu_plan_opts_t o;
      kb_cpu_plan_t pl, pl0, ple;
      kb_cpu_plan_spec_t sp;
      kronblasHandle_t h3 = NULL;
      kb_t_prob_t P;
      char key[128], plan[256], why[700], msg[900];
      size_t n, bi;
      long timed0;
      int k, ok = 1;
      msg[0] = '\0';
      kb_t_square_pb(KRONBLAS_R_32F, 6, 3, p8, &pb);
      kb_cpu_plan_opts_default(&o, 1);
      /* the tiled plans' read-ahead (the model's banded plan, which reads
       * ahead its own way, is not what is tested here) */
      o.band = 0;
      if (kb_cpu_plan_with(&pb, kt, &o, &pl0) != KRONBLAS_STATUS_SUCCESS || !pl0.pf_next_row) {
        ok = 0;
        snprintf(msg, sizeof msg, "the model's plan for 6_8x8^3 does not read ahead");
      }
      o.no_read_ahead = 1;
      if (ok && (kb_cpu_plan_with(&pb, kt, &o, &pl) != KRONBLAS_STATUS_SUCCESS || pl.pf_next_row ||
                 (kb_cpu_plan_spec_of(&pl, &sp), sp.no_read_ahead != 1) ||
                 kb_cpu_plan_explicit(&pb, kt, &sp, &ple) != KRONBLAS_STATUS_SUCCESS || ple.pf_next_row)) {
        ok = 0;
        snprintf(msg, sizeof msg, "no_read_ahead does not switch it off (options or spec)");
      }
      sp.no_read_ahead = 0;
      if (ok && (kb_cpu_plan_explicit(&pb, kt, &sp, &ple) != KRONBLAS_STATUS_SUCCESS || !ple.pf_next_row)) {
        ok = 0;
        snprintf(msg, sizeof msg, "a spec without no_read_ahead does not read ahead");
      }
      sp.no_read_ahead = 2;
      if (ok && kb_cpu_plan_explicit(&pb, kt, &sp, &ple) != KRONBLAS_STATUS_INVALID_VALUE) {
        ok = 0;
        snprintf(msg, sizeof msg, "no_read_ahead = 2 accepted");
      }
      /* only where the row of X, the row buffers and the tiles take at
       * most 3/4 of L2: double 1024_8x8^5 in place on two threads fills
       * 81% of AMD Zen 5's 1 MiB (18.2-19.6 ms without the read-ahead
       * against 20.4-22.7 with it), 65% of Ice Lake's 1.25 MiB */
      if (ok && strcmp(kt->name, "avx512") == 0) {
        static const int64_t p85[5] = { 8, 8, 8, 8, 8 };
        const kb_cpu_opt_t *ktd = kb_cpu_kernels_for(KRONBLAS_R_64F);
        kb_problem_t pbd;
        kb_cpu_plan_opts_t od;
        kb_cpu_plan_t pz, pi;
        kronblasStatus_t sz, si;
        kb_t_square_pb(KRONBLAS_R_64F, 1024, 5, p85, &pbd);
        kb_cpu_plan_opts_default(&od, 2);
        od.band = 0;
        od.inplace = 1;
        /* the same groups (4-2,1-0) on both: Ice Lake's rates (AMD Zen
         * 5's take one group, 4-0, section 6b) */
        kb_cpu_test_rates("default");
        kb_cpu_test_caches((size_t)48 << 10, (size_t)1024 << 10, (size_t)32 << 20);
        sz = kb_cpu_plan_with(&pbd, ktd, &od, &pz);
        kb_cpu_test_caches((size_t)48 << 10, (size_t)1280 << 10, (size_t)48 << 20);
        si = kb_cpu_plan_with(&pbd, ktd, &od, &pi);
        kb_cpu_test_caches(0, 0, 0);
        kb_cpu_test_rates(NULL);
        if (sz != KRONBLAS_STATUS_SUCCESS || si != KRONBLAS_STATUS_SUCCESS || !pz.inplace || !pi.inplace ||
            pz.pf_next_row || !pi.pf_next_row) {
          ok = 0;
          snprintf(msg, sizeof msg,
                   "double 1024_8x8^5 in place, 2 threads: read-ahead %d with a 1 MiB L2 (want 0), %d with "
                   "1.25 MiB (want 1)",
                   sz == KRONBLAS_STATUS_SUCCESS ? pz.pf_next_row : -1,
                   si == KRONBLAS_STATUS_SUCCESS ? pi.pf_next_row : -1);
        }
      }
      /* the wisdom entry of the model's groups, read-ahead off */
      snprintf(key, sizeof key, "s %s xk yl m6 t1 8x8,8x8,8x8", kt->name);
      n = (size_t)snprintf(plan, sizeof plan, "rows split1 t1 ");
      for (k = 0; k < pl0.ngroups; k++)
        n += (size_t)snprintf(plan + n, sizeof plan - n, "%s%d-%d:%d", k ? "," : "", pl0.g[k].hi,
                              pl0.g[k].lo, pl0.g[k].nb);
      if (ok && (kronblasCreateWithBackend(&h3, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS ||
                 kronblasSetNumThreads(h3, 1) != KRONBLAS_STATUS_SUCCESS ||
                 kronblasSetTuningMode(h3, KRONBLAS_TUNING_MEASURE) != KRONBLAS_STATUS_SUCCESS)) {
        ok = 0;
        snprintf(msg, sizeof msg, "handle");
      }
      for (bi = 0; ok && bi < sizeof bad / sizeof bad[0]; bi++) {
        snprintf(plan + n, sizeof plan - n, "%s", bad[bi]);
        if (kb_cpu_backend.wisdom_add(h3, key, plan) != KRONBLAS_STATUS_INVALID_VALUE ||
            kb_cpu_test_plan_count(h3) != 0) {
          ok = 0;
          snprintf(msg, sizeof msg, "malformed plan \"%s\" accepted", plan);
        }
      }
      snprintf(plan + n, sizeof plan - n, " ra0");
      if (ok && (kb_cpu_backend.wisdom_add(h3, key, plan) != KRONBLAS_STATUS_SUCCESS ||
                 kb_cpu_test_plan_count(h3) != 1)) {
        ok = 0;
        snprintf(msg, sizeof msg, "\"%s\" \"%s\" refused", key, plan);
      }
      /* the handle runs that plan (nothing timed) and gets the right values */
      kb_t_square_prob(KRONBLAS_R_32F, 6, 3, 8, 1, 1, 1, &P);
      timed0 = kb_cpu_test_timed_count();
      if (ok && kb_t_run(h3, &P, kb_rng_next(&r), 1, NULL, NULL, why, sizeof why) != 0) {
        ok = 0;
        snprintf(msg, sizeof msg, "%s", why);
      }
      if (ok && kb_cpu_test_timed_count() != timed0) {
        ok = 0;
        snprintf(msg, sizeof msg, "the handle timed candidates instead of using \"%s\"", plan);
      }
      tap_ok(ok, "read-ahead of the next row: model on, off through options, spec and wisdom (\"%s\")%s%s",
             plan, ok ? "" : ": ", msg);
      kronblasDestroy(h3);
    }
  }
  /* 6. the model's fusion groups on the issue-4 machine's caches (48 KiB
   * L1, 1.25 MiB L2, 48 MiB LLC) and AVX-512 vectors: rows whose two
   * buffers exceed L2 at most twofold take L1-sized pairs where no banded
   * plan with column tiles is cheaper (was: 16_8x8^6 float,
   * 2 MiB: 9.6-9.9 ms against 10.8-11.3 for two three-factor groups, one
   * thread), larger ones (16_8x8^6 double, 4 MiB) and smaller ones
   * (1024_6x6^6 double, 746 KiB, without its banded plan's dense step
   * across slices) keep three-factor groups, rows in L2 keep
   * their split (1024_8x8^5 float); 16_32x32^4
   * float keeps its digits in place once X from DRAM is priced (the
   * rotating plan's transposing first group waits for it: 62.7 ms against
   * 55.6 in place, one thread), and with X from DRAM a first group whose
   * chunks stay in L2 runs its later factors at the L1 rate: 3 + 1
   * factors (float 40.4 ms against 43.2 for 2 + 2, double 78.6 against
   * 86.2, one thread), likewise 16_16x16^5 float 4 + 1 and 16_8x8^6
   * double 5 + 1; rows in L2 keep the rotating 3-2,1-0 of 1024_16x16^4
   * float (106 ms against 115 for one in-place group); p = 64 in place:
   * float 16_64x64^3 runs digit0 alone, then 1-0 over 64 lanes read in
   * place (12.4-12.8 ms against 13.6-13.9, one thread), not in double,
   * with one or two rows, or sharing a row's tiles; double 1024_64x64^2
   * one digit0 group 1-0 (chunks of 64 KiB: 16.4 ms against 17.0-17.9),
   * not 256_128x128^2 double (chunks of 256 KiB) nor 1_64x64^2 double on
   * two threads sharing the row; small factors take banded plans */
  {
    static const struct {
      kronblasDataType_t type;
      int64_t m, n, p;
      int nthreads;
      const char *groups;
      int inplace;        /* -1: either */
      int band;           /* the banded plan (kb_cpu_plan_t.band) */
      int lastnb;         /* the last group's tile width (0: any) */
    } cases[] = {
      /* 16_8x8^6 banded with segments first and column tiles (session 9,
       * one thread: float 6.7-7.4 ms against 10.4-15 tiled, double
       * 13.9-14.5 against 14.3-15.0) */
      { KRONBLAS_R_32F, 16, 6, 8, 1, "5-0", 0, 1, 0 }, { KRONBLAS_R_32F, 16, 6, 8, 2, "5-0", 0, 1, 0 },
      { KRONBLAS_R_64F, 16, 6, 8, 2, "5-0", 0, 1, 0 },
      /* float 8^5 banded (half-vector steps, two straight digits per
       * pass): 47-48 ms against 66-68 ms, one thread; double too since
       * segmented steps are priced in L1 (session 10: 49.5-55 ms against
       * 58.7-65 tiled, two threads), also 256_ and 4_8x8^5, 64_8x8^4 */
      { KRONBLAS_R_32F, 1024, 5, 8, 1, "4-0", 0, 1, 0 }, { KRONBLAS_R_64F, 1024, 5, 8, 2, "4-0", 0, 1, 0 },
      { KRONBLAS_R_64F, 64, 4, 8, 1, "3-0", 0, 1, 0 },
      /* double 16_16x16^5: 4 + 1 with chunks of 512 KiB (all of L2, X
       * from DRAM), 48-57 ms against 56-61 for 3 + 2, two threads */
      { KRONBLAS_R_64F, 16, 5, 16, 2, "4-1,0-0", 1, 0, 0 },
      /* the last group, factor 0 alone over row buffers of 4-8 MiB, in
       * tiles of 16 vectors (AMD Zen 5, float, one thread: 1080 against
       * 1640 kcycles a row at 4 vectors) */
      { KRONBLAS_R_32F, 16, 4, 32, 1, "3-1,0-0", 1, 0, 256 },
      { KRONBLAS_R_32F, 16, 4, 32, 2, "3-1,0-0", 1, 0, 256 },
      { KRONBLAS_R_64F, 16, 4, 32, 1, "3-1,0-0", 1, 0, 128 },
      { KRONBLAS_R_32F, 16, 5, 16, 1, "4-1,0-0", 1, 0, 256 },
      { KRONBLAS_R_32F, 1024, 4, 16, 1, "3-2,1-0", 0, 0, 0 },
      { KRONBLAS_R_32F, 16, 3, 64, 1, "2-2,1-0", 1, 0, 0 },
      { KRONBLAS_R_32F, 16, 3, 64, 2, "2-2,1-0", 1, 0, 0 },
      { KRONBLAS_R_64F, 16, 3, 64, 1, "2-1,0-0", 1, 0, 0 }, { KRONBLAS_R_32F, 2, 3, 64, 1, "2-1,0-0", 1, 0, 0 },
      { KRONBLAS_R_32F, 1, 3, 64, 2, "2-1,0-0", 1, 0, 0 },
      { KRONBLAS_R_64F, 1024, 2, 64, 1, "1-0", 1, 0, 0 }, { KRONBLAS_R_64F, 1024, 2, 64, 2, "1-0", 1, 0, 0 },
      { KRONBLAS_R_64F, 1, 2, 64, 2, "1-1,0-0", 1, 0, 0 },
      { KRONBLAS_R_64F, 256, 2, 128, 1, "1-1,0-0", 1, 0, 0 },
      /* banded plans: 3^7 (float 0.75x the other plan's time, one thread,
       * double 0.90x); 6^6 with its two fastest digits as a dense step
       * across slices (session 29; with band matrices of p = 6 it was
       * float 1.04x, double 1.07-1.12x, and not taken) */
      { KRONBLAS_R_32F, 1024, 7, 3, 1, "6-0", 0, 1, 0 }, { KRONBLAS_R_32F, 1024, 7, 3, 2, "6-0", 0, 1, 0 },
      { KRONBLAS_R_64F, 1024, 7, 3, 2, "6-0", 0, 1, 0 },
      { KRONBLAS_R_32F, 1024, 6, 6, 1, "5-0", 0, 1, 0 }, { KRONBLAS_R_64F, 1024, 6, 6, 1, "5-0", 0, 1, 0 },
    };
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(KRONBLAS_R_32F);
    if (kt == NULL || strcmp(kt->name, "avx512") != 0) {
      tap_skip("the issue machine's plans are for avx512 kernels, not %s", KB_TEST_ISA);
    } else {
      char got[256], msg[600];
      size_t ci;
      int ok = 1;
      msg[0] = '\0';
      /* Ice Lake's caches and the model's rates for it (whatever this
       * CPU is) */
      kb_cpu_test_caches((size_t)48 << 10, (size_t)1280 << 10, (size_t)48 << 20);
      kb_cpu_test_rates("default");
      for (ci = 0; ok && ci < sizeof cases / sizeof cases[0]; ci++) {
        kb_cpu_plan_t pl;
        kb_t_model_groups(cases[ci].type, cases[ci].m, cases[ci].n, cases[ci].p, cases[ci].nthreads, &pl, got,
                          sizeof got);
        /* 3^7 banded with the three fastest digits as one dense step
         * (float 2.97 -> 2.66 ms, double 7.6 -> 5.6, one thread) */
        if (strcmp(got, cases[ci].groups) != 0 || (cases[ci].inplace >= 0 && pl.inplace != cases[ci].inplace) ||
            pl.band != cases[ci].band ||
            (cases[ci].lastnb > 0 && (pl.ngroups < 1 || pl.g[pl.ngroups - 1].nb != cases[ci].lastnb)) ||
            (pl.band && (cases[ci].p == 3) != (pl.band_dense[pl.band_nsteps - 1] == 3)) ||
            (pl.band && cases[ci].p == 6 &&
             (pl.band_dense[pl.band_nsteps - 1] != 2 || !pl.band_tdense[pl.band_nsteps - 1])) ||
            (pl.band && (cases[ci].m == 16) != (pl.band_col_e > 0))) {
          ok = 0;
          snprintf(msg, sizeof msg,
                   ": %c %lld_%lldx%lld^%lld, %d threads: groups %s (last nb %d)%s%s, expected %s%s%s",
                   cases[ci].type == KRONBLAS_R_32F ? 's' : 'd', (long long)cases[ci].m, (long long)cases[ci].p,
                   (long long)cases[ci].p, (long long)cases[ci].n, cases[ci].nthreads, got,
                   pl.ngroups > 0 ? pl.g[pl.ngroups - 1].nb : 0,
                   pl.inplace ? " ip1" : "", pl.band ? (pl.band_dense[pl.band_nsteps - 1] ? " bd1 dense" : " bd1") : "",
                   cases[ci].groups,
                   cases[ci].inplace == 1 ? " ip1" : "", cases[ci].band ? " bd1" : "");
        }
      }
      /* without that dense step, rows whose two buffers are within L2
       * (1024_6x6^6 double, 746 KiB) keep three-factor groups */
      if (ok) {
        kb_cpu_plan_t pl;
        kb_cpu_test_force_band_tdense(0);
        kb_t_model_groups(KRONBLAS_R_64F, 1024, 6, 6, 1, &pl, got, sizeof got);
        kb_cpu_test_force_band_tdense(-1);
        if (strcmp(got, "5-3,2-0") != 0 || pl.band) {
          ok = 0;
          snprintf(msg, sizeof msg, ": d 1024_6x6^6 without dense steps across slices: groups %s%s, expected 5-3,2-0",
                   got, pl.band ? " bd1" : "");
        }
      }
      kb_cpu_test_caches(0, 0, 0);
      kb_cpu_test_rates(NULL);
      tap_ok(ok, "model's fusion groups on the issue machine's caches%s", msg);
    }
  }
  /* 6b. the model's plans on AMD Zen 5 (48 KiB L1, 1 MiB L2, 32 MiB L3 a
   * core complex) with its rates (kb_cpu_rates_zen5: row buffers beyond
   * L2 come back at L3 bandwidth): double 16_8x8^6 on two threads takes
   * digits in place, 5-1 then 0-0 in tiles of 16 vectors (2.73-2.79 ms
   * against 4.17-4.44 banded, interleaved, two threads; one thread 5.6-6.1
   * against 10.0-10.6), where Ice Lake's rates keep the banded plan on
   * the same caches (and on Ice Lake's, section 6); float 16_8x8^6 stays
   * banded (its row buffers are near L2: no rate differs).  Digit0's
   * later factors over chunks in L2 run at the L1 rate there: float
   * 1024_16x16^4 in one group in place, 3-0 (23.5-25.5 ms against
   * 26.8-27.8 for the rotating 3-2,1-0, interleaved, two threads), where
   * Ice Lake measured the rotating plan faster (106 ms against 115, one
   * thread).  The banded plans of 16_8x8^6 hold their column tiles' rows a
   * vector more than 2 KiB (float: 16 KiB) apart (kb_cpu_plan_t.
   * band_col_ld); float takes four digits in segments (KB_CPU_BAND_SEG_MAX)
   * and two in column tiles of 8 vectors that write Y straight
   * (band_col_w); double's 4-digit segments would not fit.  Y is
   * written around the cache where X and Y together take the 32 MiB
   * (float 16_8x8^6, 1024_64x64^2 and double 1_8x8^7: 16 + 16 MiB;
   * float 1024_64x64^2 2.54-3.00 ms against 3.18-3.48), not where they
   * take half of it (float 1_8x8^7) */
  {
    static const kb_t_rate_case_t cases[] = {
      { KRONBLAS_R_64F, 16, 6, 8, 2, "zen5", "5-1,0-0", 1, 0, 128, 0, 0, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 16, 6, 8, 1, "zen5", "5-1,0-0", 1, 0, 128, 0, 0, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 16, 6, 8, 2, "default", "5-0", 0, 1, 0, 512 + 8, 0, -1, 0, 0, 0 },
      { KRONBLAS_R_32F, 16, 6, 8, 2, "zen5", "5-0", 0, 1, 0, 4096 + 16, 8, 1, 0, 0, 0 },
      { KRONBLAS_R_32F, 1024, 4, 16, 2, "zen5", "3-0", 1, 0, 0, 0, 0, -1, 0, 0, 0 },
      { KRONBLAS_R_32F, 1024, 4, 16, 2, "default", "3-2,1-0", 0, 0, 0, 0, 0, -1, 0, 0, 0 },
      { KRONBLAS_R_32F, 1024, 2, 64, 2, "zen5", "1-0", 1, 0, 0, -1, -1, 1, 0, 0, 0 },
      { KRONBLAS_R_64F, 1, 7, 8, 2, "zen5", "6-2,1-0", 1, 0, 0, -1, -1, 1, 0, 0, 0 },
      { KRONBLAS_R_32F, 1, 7, 8, 2, "zen5", "6-5,4-3,2-0", 0, 0, 0, -1, -1, 0, 0, 0, 0 },
    };
    kb_t_rate_plans("AMD Zen 5's", (size_t)48 << 10, (size_t)1024 << 10, (size_t)32 << 20, cases,
                    sizeof cases / sizeof cases[0]);
  }
  /* 6c. the model's plans on Intel Emerald Rapids (48 KiB L1, 2 MiB L2,
   * the 260 MiB L3 a 2-vCPU guest is told of) with its rates
   * (kb_cpu_rates_emr): operands beyond 6 MiB are not cached between
   * calls, so float 16_16x16^5 reads X from DRAM and keeps its digits in
   * place, 4-1 then 0-0 (15.8 ms against 29.3 for the rotating 4-3,2-0
   * that the whole L3 gives; two threads, interleaved pairs, medians),
   * double 1_8x8^7 likewise 6-2,1-0 (3.60 ms against 9.39), float
   * 1024_8x8^5 writes Y around the cache (16.9 ms against 25.5, same
   * plan); double 16_8x8^6's 8 MiB of row buffers still count as near L2
   * (digits in place, not banded: 5.67 ms against 7.93).  Digit0's later
   * factors run at the L1 rate for p <= 16 only:
   * double 1024_8x8^5 in one group in place (not banded), 1024_32x32^3
   * stays 2-2,1-0.  Ice Lake's rates on the same caches keep the old
   * plans.  Double 64 x 64 (and larger) factors: where X and Y together
   * exceed 48 MiB, digit0's first factor is priced at 0.78 of KB_EFF_D0
   * (kb_cpu_rates_emr.d0_mem_eff), so 1024_64x64^2 rotates, 1-1,0-0 (7.88
   * ms against 8.48 for 1-0 in place), and 256_128x128^2 leaves its digits
   * in natural order (14.80 against 14.97); 512_64x64^2 (32 MiB) keeps
   * 1-0 in place, as Ice Lake's rates keep both.  Double 1024_8x8^5
   * reads each thread's next row ahead (digit0's two 256 KiB buffers, not
   * its tile area, beside the row: 0.92x, medians of 12 pairs);
   * 1024_16x16^4 (8 and 16 FMAs per byte of X) does not (double slower
   * in 4 of 6 pairs with it, float in most).  Double 1024_8x8^5's digit0
   * also prefetches the row read ahead into L1 (d0_pf_l1: 0.94x, 24
   * pairs); 1024_32x32^3 (12 FMAs a byte) reads ahead without it.
   * Double 16_8x8^6, whose 2 MiB rows are not read ahead whole, has
   * digit0 read its next 256 KiB chunk ahead instead (d0_next_chunk:
   * about 0.96x, calls alternating in one process); 16_16x16^5 (10 FMAs
   * a byte) and the rows read ahead whole do not. */
  {
    static const kb_t_rate_case_t cases[] = {
      { KRONBLAS_R_32F, 16, 5, 16, 2, "emr", "4-1,0-0", 1, 0, 0, -1, -1, 1, 0, 0, 0 },
      { KRONBLAS_R_32F, 16, 5, 16, 2, "default", "4-3,2-0", 0, 0, 0, -1, -1, 0, 0, 0, 0 },
      { KRONBLAS_R_64F, 1, 7, 8, 2, "emr", "6-2,1-0", 1, 0, 0, -1, -1, 1, 0, 0, 0 },
      { KRONBLAS_R_64F, 1, 7, 8, 2, "default", "6-4,3-0", 0, 0, 0, -1, -1, 0, 0, 0, 0 },
      { KRONBLAS_R_32F, 1024, 5, 8, 2, "emr", "4-0", 0, 1, 0, -1, -1, 1, 0, 0, 0 },
      { KRONBLAS_R_32F, 1024, 5, 8, 2, "default", "4-0", 0, 1, 0, -1, -1, 0, 0, 0, 0 },
      { KRONBLAS_R_64F, 16, 6, 8, 2, "emr", "5-1,0-0", 1, 0, 0, -1, -1, 1, -1, -1, 1 },
      { KRONBLAS_R_64F, 16, 5, 16, 2, "emr", "4-1,0-0", 1, 0, 0, -1, -1, -1, -1, -1, -1 },
      { KRONBLAS_R_64F, 1024, 5, 8, 2, "emr", "4-0", 1, 0, 0, -1, -1, 1, 1, 1, -1 },
      { KRONBLAS_R_64F, 1024, 4, 16, 2, "emr", "3-0", 1, 0, 0, -1, -1, -1, -1, -1, 0 },
      { KRONBLAS_R_32F, 1024, 4, 16, 2, "emr", "3-0", 1, 0, 0, -1, -1, -1, -1, -1, 0 },
      { KRONBLAS_R_64F, 1024, 5, 8, 2, "default", "4-0", 0, 1, 0, -1, -1, 1, 0, 0, 0 },
      { KRONBLAS_R_64F, 1024, 3, 32, 2, "emr", "2-2,1-0", 1, 0, 0, -1, -1, 1, 1, -1, 0 },
      { KRONBLAS_R_64F, 1024, 2, 64, 2, "emr", "1-1,0-0", 0, 0, 32, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 1024, 2, 64, 2, "default", "1-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 512, 2, 64, 2, "emr", "1-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 256, 2, 128, 2, "emr", "1-1,0-0", 0, 0, 32, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 256, 2, 128, 2, "default", "1-1,0-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
    };
    kb_t_rate_plans("Emerald Rapids'", (size_t)48 << 10, (size_t)2048 << 10, (size_t)260 << 20, cases,
                    sizeof cases / sizeof cases[0]);
  }
  /* 6d. the model's plans on AMD Zen 4 (32 KiB L1, 1 MiB L2, 32 MiB L3 a
   * core complex; issue 4's EPYC guest since session 32) with its rates
   * (kb_cpu_rates_zen4: Zen 5's, but digit0's later factors at the L1
   * rate for double only up to p = 32): double 16_8x8^6 takes digits in
   * place, 5-1 then 0-0 (about 0.77x the banded plan Ice Lake's rates
   * give: 4.57-5.24 ms against 6.14-6.26, two threads, interleaved),
   * double 1024_8x8^5 one group in place (0.78x), float 1024_16x16^4 one
   * group in place (0.83x), float 256_128x128^2 one group 1-0 (0.97x);
   * double 1024_64x64^2 and 256_128x128^2 keep two groups (one group
   * 1.02-1.03x slower there). */
  {
    static const kb_t_rate_case_t cases[] = {
      { KRONBLAS_R_64F, 16, 6, 8, 2, "zen4", "5-1,0-0", 1, 0, 0, 0, 0, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 16, 6, 8, 2, "default", "5-0", 0, 1, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 1024, 5, 8, 2, "zen4", "4-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_32F, 1024, 4, 16, 2, "zen4", "3-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_32F, 256, 2, 128, 2, "zen4", "1-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 1024, 2, 64, 2, "zen4", "1-1,0-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 1024, 2, 64, 2, "zen5", "1-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
      { KRONBLAS_R_64F, 256, 2, 128, 2, "zen4", "1-1,0-0", 1, 0, 0, -1, -1, -1, 0, 0, 0 },
    };
    kb_t_rate_plans("AMD Zen 4's", (size_t)32 << 10, (size_t)1024 << 10, (size_t)32 << 20, cases,
                    sizeof cases / sizeof cases[0]);
  }
  /* 7. banded plans as specs and wisdom entries (" bd1"): the model's
   * spec reads back, variations the kernels do not take are refused, a
   * wisdom entry runs without timing (and banded), malformed or
   * inapplicable entries are refused */
  {
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(KRONBLAS_R_32F);
    if (kt == NULL) {
      tap_skip("no fast kernels (%s): no banded plans", KB_TEST_ISA);
    } else {
      static const int64_t p3[7] = { 3, 3, 3, 3, 3, 3, 3 };
      static const char *const badsuf[] = { " bd1 ", " bd0", " bd", " bd1 ip1", " ip1 bd1", " bd1 ra0", " bd11" };
      kb_problem_t pb;
      kb_cpu_plan_opts_t o;
      kb_cpu_plan_t pl, ple;
      kb_cpu_plan_spec_t sp, sp2;
      kronblasHandle_t h3 = NULL;
      kb_t_prob_t P;
      char key[160], keym[160], plan[160], why[700], msg[900];
      size_t bi;
      long timed0, runs0;
      int k, ok = 1;
      msg[0] = '\0';
      kb_t_square_pb(KRONBLAS_R_32F, 5, 7, p3, &pb);
      kb_cpu_plan_opts_default(&o, 1);
      o.band = 1;
      if (kb_cpu_plan_with(&pb, kt, &o, &pl) != KRONBLAS_STATUS_SUCCESS || !pl.band ||
          (kb_cpu_plan_spec_of(&pl, &sp), !sp.band) || kb_cpu_plan_explicit(&pb, kt, &sp, &ple) != KRONBLAS_STATUS_SUCCESS ||
          !ple.band || ple.band_nsteps != pl.band_nsteps || ple.total != pl.total) {
        ok = 0;
        snprintf(msg, sizeof msg, "a forced banded plan does not read back as a spec");
      }
      for (k = 0; ok && k < 7; k++) {
        sp2 = sp;
        switch (k) {
        case 0: sp2.split_rows = 0; break;
        case 1: sp2.nb[0] = 2 * kt->vl; break;
        case 2: sp2.inplace = 1; break;
        case 3: sp2.no_read_ahead = 1; break;
        case 4: sp2.band = 2; break;
        case 5: sp2.strategy = KB_CPU_PASSES; sp2.split_rows = 0; break;
        default: sp2.ngroups = 2; sp2.lo[0] = 3; sp2.hi[1] = 2; sp2.lo[1] = 0; sp2.nb[1] = kt->vl; break;
        }
        if (kb_cpu_plan_explicit(&pb, kt, &sp2, &ple) != KRONBLAS_STATUS_INVALID_VALUE) {
          ok = 0;
          snprintf(msg, sizeof msg, "banded spec variation %d accepted", k);
        }
      }
      /* X along m: no banded plan */
      pb.x_contig_k = 0;
      pb.xs_m = 1;
      pb.xs_k = 5;
      if (ok && kb_cpu_plan_explicit(&pb, kt, &sp, &ple) != KRONBLAS_STATUS_INVALID_VALUE) {
        ok = 0;
        snprintf(msg, sizeof msg, "a banded spec accepted for X along m");
      }
      snprintf(key, sizeof key, "s %s xk yl m5 t1 3x3,3x3,3x3,3x3,3x3,3x3,3x3", kt->name);
      snprintf(keym, sizeof keym, "s %s xm yl m5 t1 3x3,3x3,3x3,3x3,3x3,3x3,3x3", kt->name);
      if (ok && (kronblasCreateWithBackend(&h3, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS ||
                 kronblasSetNumThreads(h3, 1) != KRONBLAS_STATUS_SUCCESS ||
                 kronblasSetTuningMode(h3, KRONBLAS_TUNING_MEASURE) != KRONBLAS_STATUS_SUCCESS)) {
        ok = 0;
        snprintf(msg, sizeof msg, "handle");
      }
      for (bi = 0; ok && bi < sizeof badsuf / sizeof badsuf[0]; bi++) {
        snprintf(plan, sizeof plan, "rows split1 t1 6-0:%d%s", kt->vl, badsuf[bi]);
        if (kb_cpu_backend.wisdom_add(h3, key, plan) != KRONBLAS_STATUS_INVALID_VALUE || kb_cpu_test_plan_count(h3) != 0) {
          ok = 0;
          snprintf(msg, sizeof msg, "malformed or inapplicable plan \"%s\" accepted", plan);
        }
      }
      snprintf(plan, sizeof plan, "rows split0 t1 6-0:%d bd1", kt->vl);
      if (ok && (kb_cpu_backend.wisdom_add(h3, key, plan) != KRONBLAS_STATUS_INVALID_VALUE ||
                 kb_cpu_test_plan_count(h3) != 0)) {
        ok = 0;
        snprintf(msg, sizeof msg, "\"%s\" accepted", plan);
      }
      snprintf(plan, sizeof plan, "rows split1 t1 6-0:%d bd1", kt->vl);
      if (ok && (kb_cpu_backend.wisdom_add(h3, keym, plan) != KRONBLAS_STATUS_INVALID_VALUE ||
                 kb_cpu_test_plan_count(h3) != 0)) {
        ok = 0;
        snprintf(msg, sizeof msg, "\"%s\" accepted for X along m", plan);
      }
      if (ok && (kb_cpu_backend.wisdom_add(h3, key, plan) != KRONBLAS_STATUS_SUCCESS ||
                 kb_cpu_test_plan_count(h3) != 1)) {
        ok = 0;
        snprintf(msg, sizeof msg, "\"%s\" \"%s\" refused", key, plan);
      }
      /* the handle runs it: banded, nothing timed, right values (beta too) */
      kb_t_square_prob(KRONBLAS_R_32F, 5, 7, 3, 1, 0, 0, &P);
      timed0 = kb_cpu_test_timed_count();
      runs0 = kb_cpu_test_band_runs();
      if (ok && kb_t_run(h3, &P, kb_rng_next(&r), 1, NULL, NULL, why, sizeof why) != 0) {
        ok = 0;
        snprintf(msg, sizeof msg, "%s", why);
      }
      if (ok && (kb_cpu_test_timed_count() != timed0 || kb_cpu_test_band_runs() != runs0 + 1)) {
        ok = 0;
        snprintf(msg, sizeof msg, "the handle did not run \"%s\" untimed and banded", plan);
      }
      tap_ok(ok, "banded plans as specs and wisdom (\"%s\"), variations refused%s%s", plan, ok ? "" : ": ", msg);
      kronblasDestroy(h3);
    }
  }
  kronblasDestroy(h);
  kb_cpu_test_force_isa(NULL);
  return tap_done();
}
#endif /* KB_T_NO_MAIN */
