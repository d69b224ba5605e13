/* t-cpu-memo.c - the CPU backend's kept model plan (lib/cpu_backend.c
 * kb_cpu_memo_plan): a call that repeats the handle's last problem runs the
 * plan kept then, and any change the planner reads -- the factor sizes, m,
 * a leading dimension, the layout, the thread count, the kernel policy, a
 * planner test hook -- plans again.  Checked through the hit counter (test
 * hook of lib/cpu_plan.h; linked statically to reach it) and every result
 * against the explicit product (the randomised identity for the large
 * shapes), on fresh random data with Y poisoned. */
#include <kronblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "cpu_plan.h"
#include "kb_oracle.h"

static kb_rng_t kb_m_rng;

/* One float call of m x (P x Q)^n -- the first factor Pf x Qf and the last
 * Pl x Ql where those are not 0 --, X's and Y's leading dimensions padded
 * by padx and pady, on side, into a fresh Y checked against the explicit product:
 * whether it is right and whether it ran a kept plan (*hit). */
static int kb_m_call(kronblasHandle_t h, kronblasSideMode_t side, int64_t m, int64_t P, int64_t Q, int64_t n,
                     const int64_t fl[4], int64_t padx, int64_t pady, int *hit)
{
  static const float one = 1.0f, zero = 0.0f;
  int64_t p[8], q[8], ldf[8], fr[8], fc[8], K = 1, L = 1, xr, xc, yr, yc, ldx, ldy, f;
  float *X, *Y, *F[8];
  long double *ref, *mag;
  long hits0;
  int ok;
  double worst = 0;
  for (f = 0; f < n; f++) {
    p[f] = f == 0 && fl[0] > 0 ? fl[0] : f == n - 1 && fl[2] > 0 ? fl[2] : P;
    q[f] = f == 0 && fl[1] > 0 ? fl[1] : f == n - 1 && fl[3] > 0 ? fl[3] : Q;
    K *= p[f];
    L *= q[f];
    kb_oracle_f_dims(side, KRONBLAS_OP_N, p[f], q[f], &fr[f], &fc[f]);
  }
  kb_oracle_x_dims(side, KRONBLAS_OP_N, m, K, &xr, &xc);
  kb_oracle_y_dims(side, m, L, &yr, &yc);
  ldx = xr + padx;
  ldy = yr + pady;
  X = malloc(sizeof *X * (size_t)(ldx * xc));
  Y = malloc(sizeof *Y * (size_t)(ldy * yc));
  kb_rng_fill(&kb_m_rng, KRONBLAS_R_32F, X, ldx * xc);
  for (f = 0; f < n; f++) {
    ldf[f] = fr[f];
    F[f] = malloc(sizeof *F[f] * (size_t)(fr[f] * fc[f]));
    kb_rng_fill(&kb_m_rng, KRONBLAS_R_32F, F[f], fr[f] * fc[f]);
  }
  kb_oracle_poison(KRONBLAS_R_32F, Y, ldy * yc);
  hits0 = kb_cpu_test_memo_hits();
  ok = kronblasSgekmm_64(h, side, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, q, &one, X, ldx, (const float *const *)F,
                         ldf, &zero, Y, ldy) == KRONBLAS_STATUS_SUCCESS;
  *hit = kb_cpu_test_memo_hits() > hits0;
  if (K * L * (m + n) > ((int64_t)1 << 22)) {   /* the explicit product would take seconds */
    ok = ok && kb_identity_check(KRONBLAS_R_32F, side, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, q, X, ldx,
                                 (const void *const *)F, ldf, Y, ldy, kb_rng_next(&kb_m_rng), &worst) == 0;
    ref = mag = NULL;
  } else {
    ref = malloc(sizeof *ref * (size_t)(m * L));
    mag = malloc(sizeof *mag * (size_t)(m * L));
    ok = ok && ref != NULL && mag != NULL &&
         kb_oracle_gekmm(KRONBLAS_R_32F, side, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, q, &one, X, ldx,
                         (const void *const *)F, ldf, &zero, Y, ldy, ref, mag) == 0 &&
         kb_oracle_compare(KRONBLAS_R_32F, side, m, L, Y, ldy, ref, mag, K, 2.0, &worst) == 0;
  }
  free(ref);
  free(mag);
  free(X);
  free(Y);
  for (f = 0; f < n; f++)
    free(F[f]);
  return ok;
}

typedef struct {
  const char *what;
  kronblasSideMode_t side;
  int64_t m, P, Q, n, padx, pady;
  int64_t fl[4];            /* the first factor's p and q, the last's (0: P, Q) */
  int threads;              /* 0: as before */
  int policy;               /* -1: as before */
  int hook;                 /* 1: a planner hook changes before the call, 2: and back */
  int want_hit;
} kb_m_step_t;

int main(void)
{
  static const kb_m_step_t steps[] = {
    { "first call", KRONBLAS_SIDE_LEFT, 16, 8, 8, 3, 0, 0, { 0 }, 2, -1, 0, 0 },
    { "the same again", KRONBLAS_SIDE_LEFT, 16, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 1 },
    { "and again", KRONBLAS_SIDE_LEFT, 16, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 1 },
    { "another P", KRONBLAS_SIDE_LEFT, 16, 4, 4, 3, 0, 0, { 0 }, 0, -1, 0, 0 },
    { "the first shape after another (one plan kept)", KRONBLAS_SIDE_LEFT, 16, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 0 },
    { "another m", KRONBLAS_SIDE_LEFT, 17, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 0 },
    { "another Q", KRONBLAS_SIDE_LEFT, 17, 8, 5, 3, 0, 0, { 0 }, 0, -1, 0, 0 },
    { "the same again", KRONBLAS_SIDE_LEFT, 17, 8, 5, 3, 0, 0, { 0 }, 0, -1, 0, 1 },
    { "leading dimensions padded", KRONBLAS_SIDE_LEFT, 17, 8, 5, 3, 3, 3, { 0 }, 0, -1, 0, 0 },
    { "the same again", KRONBLAS_SIDE_LEFT, 17, 8, 5, 3, 3, 3, { 0 }, 0, -1, 0, 1 },
    { "RIGHT side (X and Y along m)", KRONBLAS_SIDE_RIGHT, 17, 8, 5, 3, 3, 3, { 0 }, 0, -1, 0, 0 },
    { "one thread", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 1, -1, 0, 0 },
    { "the same again", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 1 },
    { "two threads", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 2, -1, 0, 0 },
    { "the same again", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 1 },
    { "kernel policy NO_FUSION", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 0, KRONBLAS_KERNELS_NO_FUSION, 0, 0 },
    { "kernel policy ALL again", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 0, KRONBLAS_KERNELS_ALL, 0, 0 },
    { "a planner hook (fusion depth 1)", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 0, -1, 1, 0 },
    { "the same again", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 1 },
    { "the hook back", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 0, { 0 }, 0, -1, 2, 0 },
    { "X's leading dimension alone padded", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 2, 0, { 0 }, 0, -1, 0, 0 },
    { "Y's alone", KRONBLAS_SIDE_RIGHT, 600, 8, 8, 3, 0, 2, { 0 }, 0, -1, 0, 0 },
    { "above the small-work limit", KRONBLAS_SIDE_LEFT, 1200, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 0 },
    { "the same again", KRONBLAS_SIDE_LEFT, 1200, 8, 8, 3, 0, 0, { 0 }, 0, -1, 0, 1 },
    { "another Q there", KRONBLAS_SIDE_LEFT, 1200, 8, 7, 3, 0, 0, { 0 }, 0, -1, 0, 0 },
    { "another P there", KRONBLAS_SIDE_LEFT, 1200, 7, 7, 3, 0, 0, { 0 }, 0, -1, 0, 0 },
    { "p 2,8,8, q 4,4,4", KRONBLAS_SIDE_LEFT, 8000, 8, 4, 3, 0, 0, { 2, 4, 8, 4 }, 0, -1, 0, 0 },
    { "the same again", KRONBLAS_SIDE_LEFT, 8000, 8, 4, 3, 0, 0, { 2, 4, 8, 4 }, 0, -1, 0, 1 },
    { "p 8,8,2: only p differs", KRONBLAS_SIDE_LEFT, 8000, 8, 4, 3, 0, 0, { 8, 4, 2, 4 }, 0, -1, 0, 0 },
    { "p 4,4,4, q 2,8,8", KRONBLAS_SIDE_LEFT, 8000, 4, 8, 3, 0, 0, { 4, 2, 4, 8 }, 0, -1, 0, 0 },
    { "q 8,8,2: only q differs", KRONBLAS_SIDE_LEFT, 8000, 4, 8, 3, 0, 0, { 4, 8, 4, 2 }, 0, -1, 0, 0 },
  };
  const uint64_t seed = kb_test_seed();
  kronblasHandle_t h;
  size_t i;

  kb_rng_seed(&kb_m_rng, seed);
  tap_diag("seed 0x%llx (KRONBLAS_TEST_SEED)", (unsigned long long)seed);
  if (kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS)
    tap_skip_all("no CPU handle");
  for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    const kb_m_step_t *s = &steps[i];
    int hit = -1, right;
    if (s->threads > 0)
      (void)kronblasSetNumThreads(h, s->threads);
    if (s->policy >= 0)
      (void)kronblasSetKernelPolicy(h, (kronblasKernelPolicy_t)s->policy);
    if (s->hook == 1)
      kb_cpu_test_force_plan(1, -1);
    else if (s->hook == 2)
      kb_cpu_test_force_plan(0, -1);
    right = kb_m_call(h, s->side, s->m, s->P, s->Q, s->n, s->fl, s->padx, s->pady, &hit);
    tap_ok(right && hit == s->want_hit, "%s: %lld_%lldx%lld^%lld, %s, pads %lld %lld: result %s, %s plan (want %s)",
           s->what, (long long)s->m, (long long)s->P, (long long)s->Q, (long long)s->n,
           s->side == KRONBLAS_SIDE_LEFT ? "LEFT" : "RIGHT", (long long)s->padx, (long long)s->pady,
           right ? "right" : "WRONG",
           hit ? "the kept" : "a new", s->want_hit ? "the kept" : "a new");
  }
  kronblasDestroy(h);
  return tap_done();
}
