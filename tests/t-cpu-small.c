/* t-cpu-small.c - the CPU backend's small-work rule (lib/cpu_backend.c):
 * a call the model prices below the limit (KRONBLAS_CPU_SMALL_WORK, or the
 * default) runs on one thread whatever the handle's count; a call above it
 * (by its size, or by its batch entries together) keeps the handle's.
 * Checked through the team size the last parallel region ran with (test
 * hook of lib/cpu_plan.h; linked statically to reach it), results against
 * a one-thread handle, a user workspace of exactly kronblasGetWorkspaceSize
 * for both kinds of call, and measured planning (the tuner times and keeps
 * the plan for the threads that run).
 *
 * The library reads the environment once per process: run with
 * KRONBLAS_CPU_SMALL_WORK unset it checks the default rule; with 0 (as
 * tests/t-cpu-small-off.sh runs it) that every call keeps two threads;
 * with another value it skips. */
#include <kronblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "cpu_plan.h"

typedef struct {
  int m, n, p, batch;
  int dbl;
} kb_s_shape_t;

/* The thread count in a measured plan's key (" t1 ", " t2 "). */
typedef struct {
  int keyt;
} kb_s_keys_t;

static void kb_s_put(void *ctx, const char *key, const char *plan)
{
  kb_s_keys_t *k = ctx;
  (void)plan;
  if (strstr(key, " t1 ") != NULL)
    k->keyt = 1;
  else if (strstr(key, " t2 ") != NULL)
    k->keyt = 2;
}

/* One call of shape s on a new handle of nthreads (measured planning if
 * measure, a user workspace of exactly kronblasGetWorkspaceSize if ws) into
 * Y: its status; the team size of its last region into *team, and the
 * thread count of the key its measured plan is kept under into *keyt (0:
 * none).  On handle reuse instead of a new one, where given (its threads
 * set to nthreads, nothing else changed). */
static kronblasStatus_t kb_s_call(const kb_s_shape_t *s, int nthreads, int measure, int ws, void *Y,
                                  int *team, int *keyt, kronblasHandle_t reuse)
{
  const size_t esz = s->dbl ? sizeof(double) : sizeof(float);
  long long K = 1, strideX, i, sF[8];
  int p[8], ldf[8], f;
  const void *F[8];
  void *X, *Fm[8], *W = NULL;
  size_t wbytes = 0;
  kronblasHandle_t h = NULL;
  kronblasStatus_t st;
  const float sa = 1.0f, sb = 0.0f;
  const double da = 1.0, db = 0.0;

  for (f = 0; f < s->n; f++) {
    p[f] = ldf[f] = s->p;
    sF[f] = 0; /* one set of factors for every entry */
    K *= s->p;
  }
  strideX = (long long)s->m * K;
  X = malloc(esz * (size_t)(strideX * s->batch));
  for (i = 0; i < strideX * s->batch; i++) {
    double v = (double)((i * 7 + 3) % 23) / 23.0 - 0.5;
    if (s->dbl)
      ((double *)X)[i] = v;
    else
      ((float *)X)[i] = (float)v;
  }
  for (f = 0; f < s->n; f++) {
    Fm[f] = malloc(esz * (size_t)(s->p * s->p));
    for (i = 0; i < s->p * s->p; i++) {
      double v = (double)((i * 5 + f + 1) % 13) / 13.0 - 0.4;
      if (s->dbl)
        ((double *)Fm[f])[i] = v;
      else
        ((float *)Fm[f])[i] = (float)v;
    }
    F[f] = Fm[f];
  }
  *team = 0;
  *keyt = 0;
  h = reuse;
  st = reuse != NULL ? KRONBLAS_STATUS_SUCCESS : kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU);
  if (st == KRONBLAS_STATUS_SUCCESS)
    st = kronblasSetNumThreads(h, nthreads);
  if (st == KRONBLAS_STATUS_SUCCESS && measure)
    st = kronblasSetTuningMode(h, KRONBLAS_TUNING_MEASURE);
  if (st == KRONBLAS_STATUS_SUCCESS && ws) {
    int64_t p64[8];
    for (f = 0; f < s->n; f++)
      p64[f] = s->p;
    st = kronblasGetWorkspaceSize(h, s->dbl ? KRONBLAS_R_64F : KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT,
                                  KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, p64, p64, &wbytes);
    W = malloc(wbytes > 0 ? wbytes : 1);
    if (st == KRONBLAS_STATUS_SUCCESS)
      st = kronblasSetWorkspace(h, W, wbytes);
  }
  if (st == KRONBLAS_STATUS_SUCCESS) {
    if (s->dbl)
      st = kronblasDgekmmStridedBatched(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, p, p,
                                        &da, (const double *)X, (int)K, strideX,
                                        (const double *const *)F, ldf, sF, &db, (double *)Y, (int)K,
                                        strideX, s->batch);
    else
      st = kronblasSgekmmStridedBatched(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, p, p,
                                        &sa, (const float *)X, (int)K, strideX,
                                        (const float *const *)F, ldf, sF, &sb, (float *)Y, (int)K,
                                        strideX, s->batch);
    *team = kb_cpu_test_last_team();
  }
  if (st == KRONBLAS_STATUS_SUCCESS && measure) {
    kb_s_keys_t k = { 0 };
    kb_cpu_wisdom_each(h, kb_s_put, &k);
    *keyt = k.keyt;
  }
  if (h != NULL && reuse == NULL)
    kronblasDestroy(h);
  free(W);
  free(X);
  for (f = 0; f < s->n; f++)
    free(Fm[f]);
  return st;
}

/* Largest difference between a and b relative to b's largest element. */
static double kb_s_diff(const kb_s_shape_t *s, const void *a, const void *b)
{
  long long n = (long long)s->m * s->batch, i;
  double d = 0, mx = 0;
  int f;
  for (f = 0; f < s->n; f++)
    n *= s->p;
  for (i = 0; i < n; i++) {
    double x = s->dbl ? ((const double *)a)[i] : ((const float *)a)[i];
    double y = s->dbl ? ((const double *)b)[i] : ((const float *)b)[i];
    if (fabs(x - y) > d)
      d = fabs(x - y);
    if (fabs(y) > mx)
      mx = fabs(y);
  }
  return mx > 0 ? d / mx : d;
}

/* Shape s on two threads: runs with want threads (1 or 2), right against
 * one thread; with a user workspace (ws); with measured planning (measure):
 * the plan is timed and kept for want threads, and runs on no more (the
 * tuner's candidates for two threads include a one-thread plan, which a
 * loaded machine may make the fastest). */
static void kb_s_check(const kb_s_shape_t *s, int want, int ws, int measure, const char *why)
{
  const size_t esz = s->dbl ? sizeof(double) : sizeof(float);
  long long n = (long long)s->m * s->batch;
  void *Y1, *Y2;
  int f, team1, team2, keyt1, keyt2;
  kronblasStatus_t s1, s2;
  double d;
  for (f = 0; f < s->n; f++)
    n *= s->p;
  Y1 = calloc((size_t)n, esz);
  Y2 = calloc((size_t)n, esz);
  s1 = kb_s_call(s, 1, 0, 0, Y1, &team1, &keyt1, NULL);
  s2 = kb_s_call(s, 2, measure, ws, Y2, &team2, &keyt2, NULL);
  d = s1 == KRONBLAS_STATUS_SUCCESS && s2 == KRONBLAS_STATUS_SUCCESS ? kb_s_diff(s, Y2, Y1) : 1;
  tap_ok(s2 == KRONBLAS_STATUS_SUCCESS && (measure ? team2 <= want && keyt2 == want : team2 == want) &&
             d <= (s->dbl ? 1e-12 : 1e-5),
         "%s %d_%dx%d^%d batch %d, 2 threads%s%s: ran on %d (want %d)%s, status %d, diff to 1 thread %.2g (%s)",
         s->dbl ? "double" : "float", s->m, s->p, s->p, s->n, s->batch, ws ? ", user workspace" : "",
         measure ? ", measured" : "", team2, want,
         measure ? (keyt2 == 1 ? ", plan kept for 1" : keyt2 == 2 ? ", plan kept for 2" : ", no plan kept") : "",
         (int)s2, d, why);
  free(Y1);
  free(Y2);
}

int main(void)
{
  /* well under the default limit on any ISA (at most a few 1e4..1e5
   * vector FMAs), and far above it (over 2e6) */
  static const kb_s_shape_t tiny_s = { 16, 3, 8, 1, 0 }, tiny_d = { 4, 3, 8, 1, 1 };
  static const kb_s_shape_t big_s = { 256, 4, 8, 1, 0 }, big_d = { 64, 3, 16, 1, 1 };
  /* a tiny entry, 64 of them: above the limit together */
  static const kb_s_shape_t many = { 16, 3, 8, 64, 0 };
  const char *e = getenv("KRONBLAS_CPU_SMALL_WORK");
  const int off = e != NULL && strcmp(e, "0") == 0;

  if (e != NULL && *e != '\0' && !off)
    tap_skip_all("KRONBLAS_CPU_SMALL_WORK=%s: checks the default (unset) or 0 only", e);
  if (kb_cpu_kernels_for(KRONBLAS_R_32F) == NULL)
    tap_skip_all("the fast CPU path is off (KRONBLAS_CPU_ISA=ref): the rule prices fast-path plans only");
#ifndef _OPENMP
  tap_skip_all("built without OpenMP: every call runs on one thread");
#endif
  tap_plan(11);
  tap_ok(kb_cpu_test_small_work() == (off ? 0.0 : 5e5), "small-work limit in force %g (KRONBLAS_CPU_SMALL_WORK %s)",
         kb_cpu_test_small_work(), off ? "0" : "unset");
  kb_s_check(&tiny_s, off ? 2 : 1, 0, 0, off ? "rule off" : "small: one thread");
  kb_s_check(&tiny_d, off ? 2 : 1, 0, 0, off ? "rule off" : "small: one thread");
  kb_s_check(&big_s, 2, 0, 0, "large: the handle's threads");
  kb_s_check(&big_d, 2, 0, 0, "large: the handle's threads");
  kb_s_check(&many, 2, 0, 0, "small entries, large call: the handle's threads");
  kb_s_check(&tiny_s, off ? 2 : 1, 1, 0, "the workspace reported is enough");
  kb_s_check(&many, 2, 1, 0, "the workspace reported for one entry is enough for the batch's threads");
  {
    /* one handle: the decision follows the batch count and the thread
     * count from call to call (the handle remembers its last one) */
    const long long n = (long long)big_s.m * 8 * 8 * 8 * 8; /* the largest Y of the calls below */
    kronblasHandle_t h = NULL;
    float *Y = calloc((size_t)n, sizeof *Y);
    int team[6] = { 0 }, keyt, ok = kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_SUCCESS;
    ok = ok && kb_s_call(&tiny_s, 2, 0, 0, Y, &team[0], &keyt, h) == KRONBLAS_STATUS_SUCCESS;
    ok = ok && kb_s_call(&many, 2, 0, 0, Y, &team[1], &keyt, h) == KRONBLAS_STATUS_SUCCESS;
    ok = ok && kb_s_call(&tiny_s, 2, 0, 0, Y, &team[2], &keyt, h) == KRONBLAS_STATUS_SUCCESS;
    ok = ok && kb_s_call(&tiny_s, 3, 0, 0, Y, &team[3], &keyt, h) == KRONBLAS_STATUS_SUCCESS;
    ok = ok && kb_s_call(&big_s, 3, 0, 0, Y, &team[4], &keyt, h) == KRONBLAS_STATUS_SUCCESS;
    ok = ok && kb_s_call(&big_s, 2, 0, 0, Y, &team[5], &keyt, h) == KRONBLAS_STATUS_SUCCESS;
    tap_ok(ok && team[0] == (off ? 2 : 1) && team[1] == 2 && team[2] == team[0] && team[3] == (off ? 3 : 1) &&
               team[4] == 3 && team[5] == 2,
           "one handle: float 16_8x8^3 on 2 threads ran on %d, 64 of them on %d, one again on %d, on 3 threads "
           "on %d; float 256_8x8^4 on 3 threads on %d, on 2 on %d",
           team[0], team[1], team[2], team[3], team[4], team[5]);
    if (h != NULL)
      kronblasDestroy(h);
    free(Y);
  }
  kb_s_check(&tiny_s, off ? 2 : 1, 0, 1, "the tuner times the threads that run");
  kb_s_check(&big_s, 2, 0, 1, "the tuner times the threads that run");
  return tap_done();
}
