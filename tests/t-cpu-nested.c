/* t-cpu-nested.c - the CPU backend's parallel regions (lib/cpu_backend.c):
 * a one-thread run outside any parallel region opens none (libgomp would
 * allocate a team and a work share on every call) and still computes every
 * tile; a run of two threads opens its own; calls made from inside the
 * caller's own parallel region, two handles at once, open a region of one
 * each, so that the backend's worksharing loops never bind to the caller's
 * team.  Checked through omp_get_level() where the last run ran (test hook
 * of lib/cpu_plan.h; linked statically to reach it) and the results, on
 * fresh random data with poisoned outputs, against the explicit product
 * (small shapes) or the randomised identity (the large one).  An alarm
 * turns a hang into a failure.  Without OpenMP only the results are
 * checked. */
#include <kronblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "tap.h"
#include "cpu_plan.h"
#include "kb_oracle.h"

typedef struct {
  int dbl;
  int64_t m, P, n;
} kb_n_shape_t;

/* Small shapes (one thread by the small-work rule): banded and unbanded
 * plans among them; and one above the rule's limit (two threads). */
static const kb_n_shape_t kb_n_small[] = {
  { 0, 16, 8, 3 }, { 0, 1, 2, 2 }, { 0, 9, 3, 4 }, { 1, 16, 8, 3 }, { 0, 4, 16, 3 }, { 0, 3, 5, 3 },
};
static const kb_n_shape_t kb_n_big = { 0, 256, 8, 4 };
#define KB_N_NSMALL ((int)(sizeof kb_n_small / sizeof kb_n_small[0]))

typedef struct {
  const kb_n_shape_t *s;
  int64_t K, p[8], ldf[8];
  void *X, *Y, *F[8];
  kronblasStatus_t st;
  int level;
} kb_n_call_t;

static kb_rng_t kb_n_rng;

static kronblasDataType_t kb_n_type(const kb_n_shape_t *s)
{
  return s->dbl ? KRONBLAS_R_64F : KRONBLAS_R_32F;
}

/* Fresh random X and factors, Y poisoned. */
static void kb_n_setup(kb_n_call_t *c, const kb_n_shape_t *s)
{
  const size_t esz = s->dbl ? sizeof(double) : sizeof(float);
  int64_t f;
  memset(c, 0, sizeof *c);
  c->s = s;
  c->K = 1;
  for (f = 0; f < s->n; f++) {
    c->p[f] = c->ldf[f] = s->P;
    c->K *= s->P;
  }
  c->X = malloc(esz * (size_t)(c->K * s->m));
  c->Y = malloc(esz * (size_t)(c->K * s->m));
  kb_rng_fill(&kb_n_rng, kb_n_type(s), c->X, c->K * s->m);
  for (f = 0; f < s->n; f++) {
    c->F[f] = malloc(esz * (size_t)(s->P * s->P));
    kb_rng_fill(&kb_n_rng, kb_n_type(s), c->F[f], s->P * s->P);
  }
  kb_oracle_poison(kb_n_type(s), c->Y, c->K * s->m);
}

static void kb_n_free(kb_n_call_t *c)
{
  int64_t f;
  free(c->X);
  free(c->Y);
  for (f = 0; f < c->s->n; f++)
    free(c->F[f]);
}

/* The call on h; the level its run ran at. */
static void kb_n_run(kronblasHandle_t h, kb_n_call_t *c)
{
  static const float sa = 1.0f, sb = 0.0f;
  static const double da = 1.0, db = 0.0;
  const kb_n_shape_t *s = c->s;
  c->st = s->dbl ? kronblasDgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, c->p, c->p,
                                     &da, c->X, c->K, (const double *const *)c->F, c->ldf, &db, c->Y, c->K)
                 : kronblasSgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, c->p, c->p,
                                     &sa, c->X, c->K, (const float *const *)c->F, c->ldf, &sb, c->Y, c->K);
  c->level = kb_cpu_test_last_level();
}

/* Whether the call's Y is right: the explicit product where it is small,
 * else the randomised identity. */
static int kb_n_right(const kb_n_call_t *c, double *worst)
{
  const kb_n_shape_t *s = c->s;
  const kronblasDataType_t t = kb_n_type(s);
  long double *ref, *mag;
  int ok;
  *worst = 0;
  if (c->st != KRONBLAS_STATUS_SUCCESS)
    return 0;
  if (c->K * c->K * (s->m + s->n) > KB_ORACLE_MAX_WORK)
    return kb_identity_check(t, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, c->p, c->p, c->X,
                             c->K, (const void *const *)c->F, c->ldf, c->Y, c->K, kb_rng_next(&kb_n_rng), worst) == 0;
  ref = malloc(sizeof *ref * (size_t)(c->K * s->m));
  mag = malloc(sizeof *mag * (size_t)(c->K * s->m));
  {
    const double one = 1.0, zero = 0.0;
    const float onef = 1.0f, zerof = 0.0f;
    ok = ref != NULL && mag != NULL &&
         kb_oracle_gekmm(t, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, c->p, c->p,
                         s->dbl ? (const void *)&one : (const void *)&onef, c->X, c->K,
                         (const void *const *)c->F, c->ldf, s->dbl ? (const void *)&zero : (const void *)&zerof,
                         c->Y, c->K, ref, mag) == 0 &&
         kb_oracle_compare(t, KRONBLAS_SIDE_LEFT, s->m, c->K, c->Y, c->K, ref, mag, c->K, 4.0, worst) == 0;
  }
  free(ref);
  free(mag);
  return ok;
}

static const char *kb_n_name(const kb_n_shape_t *s, char *buf, size_t len)
{
  snprintf(buf, len, "%s %lld_%lldx%lld^%lld", s->dbl ? "double" : "float", (long long)s->m, (long long)s->P,
           (long long)s->P, (long long)s->n);
  return buf;
}

static kronblasHandle_t kb_n_handle(int nthreads)
{
  kronblasHandle_t h = NULL;
  if (kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS)
    return NULL;
  if (kronblasSetNumThreads(h, nthreads) != KRONBLAS_STATUS_SUCCESS) {
    kronblasDestroy(h);
    return NULL;
  }
  return h;
}

int main(void)
{
  const uint64_t seed = kb_test_seed();
  kb_n_call_t c, in[2][KB_N_NSMALL + 1];
  kronblasHandle_t h;
  long band0, band1;
  int i, t, banded = 0, unbanded = 0, team = 0, right, rule;
  char name[64];
  double worst;

  alarm(300);
  kb_rng_seed(&kb_n_rng, seed);
  tap_diag("seed 0x%llx (KRONBLAS_TEST_SEED)", (unsigned long long)seed);
  /* the small-work rule as it comes (KRONBLAS_CPU_SMALL_WORK unset) puts the
   * small shapes of a two-thread handle on one thread and the large one on
   * two; set, the test asks for one thread itself and leaves the large
   * shape's level unchecked */
  rule = getenv("KRONBLAS_CPU_SMALL_WORK") == NULL;
  h = kb_n_handle(rule ? 2 : 1);
  if (h == NULL)
    tap_skip_all("no CPU handle");

  /* 1. one thread, outside any parallel region */
  for (i = 0; i < KB_N_NSMALL; i++) {
    kb_n_setup(&c, &kb_n_small[i]);
    band0 = kb_cpu_test_band_runs();
    kb_n_run(h, &c);
    band1 = kb_cpu_test_band_runs();
    banded += band1 > band0;
    unbanded += band1 == band0;
    right = kb_n_right(&c, &worst);
    tap_ok(right && c.level == 0 && kb_cpu_test_last_team() == 1,
           "%s, one thread outside any region: status %d, worst %.2g of tol, level %d (want 0), team %d",
           kb_n_name(c.s, name, sizeof name), (int)c.st, worst, c.level, kb_cpu_test_last_team());
    kb_n_free(&c);
  }
  tap_ok(banded > 0 && unbanded > 0, "the one-thread runs cover banded (%d) and unbanded (%d) plans", banded,
         unbanded);

  /* 2. two threads: a region of their own */
  kronblasDestroy(h);
  h = kb_n_handle(2);
  if (h == NULL) {
    tap_ok(0, "a CPU handle of two threads");
    return tap_done();
  }
  kb_n_setup(&c, &kb_n_big);
  kb_n_run(h, &c);
  right = kb_n_right(&c, &worst);
#ifdef _OPENMP
  tap_ok(right && (c.level == 1 || !rule), "%s, two threads: status %d, rel. error %.2g, level %d (want 1%s)",
         kb_n_name(c.s, name, sizeof name), (int)c.st, worst, c.level,
         rule ? "" : "; not checked with KRONBLAS_CPU_SMALL_WORK set");
#else
  tap_ok(right, "%s (no OpenMP): status %d, rel. error %.2g", kb_n_name(c.s, name, sizeof name),
         (int)c.st, worst);
#endif
  kb_n_free(&c);
  kronblasDestroy(h);

  /* 3. from inside the caller's region: two handles at once, each thread
   * its own calls, in opposite orders */
  for (t = 0; t < 2; t++)
    for (i = 0; i <= KB_N_NSMALL; i++)
      kb_n_setup(&in[t][i], i < KB_N_NSMALL ? &kb_n_small[i] : &kb_n_big);
#ifdef _OPENMP
#pragma omp parallel num_threads(2)
#endif
  {
    int tid = 0, j;
    kronblasHandle_t hh;
#ifdef _OPENMP
    tid = omp_get_thread_num();
    if (tid == 0)
      team = omp_get_num_threads();
#else
    team = 1;
#endif
    hh = kb_n_handle(2);
    for (j = 0; j <= KB_N_NSMALL && hh != NULL; j++) {
      const int k = tid == 0 ? j : KB_N_NSMALL - j;
      kb_n_run(hh, &in[tid][k]);
    }
    if (hh != NULL)
      kronblasDestroy(hh);
  }
  for (t = 0; t < team; t++)
    for (i = 0; i <= KB_N_NSMALL; i++) {
      kb_n_call_t *e = &in[t][i];
      /* an active caller's region of two: each run opened its own inside it */
      const int want = team > 1 ? 2 : e->level;
      right = kb_n_right(e, &worst);
      tap_ok(right && e->level == want,
             "%s from thread %d of the caller's region of %d: status %d, error %.2g, level %d (want %d)",
             kb_n_name(e->s, name, sizeof name), t, team, (int)e->st, worst, e->level, want);
    }
  for (t = 0; t < 2; t++)
    for (i = 0; i <= KB_N_NSMALL; i++)
      kb_n_free(&in[t][i]);
  return tap_done();
}
