/* t-cuda-gekmm.c - the CUDA backend against the CPU backend: every type,
 * side and transpose, the fast kernels (fused and unfused plans, shapes the
 * precompiled configurations cover, alone and after a generic step) and the
 * generic kernel on odd and distinct shapes, leading dimensions and all four
 * entry points; beta = 0 now and then, half of those with alpha = 1 (the
 * launch that writes Y then has no epilogue).  SKIPs without a CUDA device. */
#include "t-cuda-util.c"

static const kronblasDataType_t types[] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };

/* Random side, transposes, entry point and scalars on a given shape. */
static void run_shape_t(kronblasDataType_t t, int64_t m, int64_t n, const int64_t *p, const int64_t *q,
                        int policy, int tune)
{
  tc_case_t c;
  tc_case_init(&c, t, (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), m, n, p, q);
  c.variant = (int)tc_range(0, 3);
  tc_case_batch(&c, 2);
  if (tc_range(0, 3) == 0) tc_beta_zero(&c);
  c.policy = policy;
  c.tune = tune;
  tc_run(&c);
}

static void run_shape(kronblasDataType_t t, int64_t m, int64_t n, const int64_t *p, const int64_t *q,
                      int policy)
{
  run_shape_t(t, m, n, p, q, policy, 0);
}

static void fast_shapes(void)
{
  /* square factors the precompiled set covers, with vector lengths that are
   * multiples of the thread-block slab */
  static const struct { int64_t m, P, n; } sh[] = {
    { 3, 8, 4 }, { 2, 8, 5 }, { 33, 8, 5 }, { 5, 16, 3 }, { 2, 16, 4 },
    { 2, 32, 3 }, { 3, 64, 2 }, { 2, 128, 2 },
  };
  int64_t p[16], q[16];
  size_t s;
  int ti, pol;
  for (ti = 0; ti < 2; ti++)
    for (s = 0; s < sizeof sh / sizeof sh[0]; s++) {
      int64_t i;
      /* racecheck (quick): the same kernels on fewer vectors, untuned (the
       * tuner launches every candidate) */
      const int64_t m = tc_quick() && sh[s].m > 3 ? 3 : sh[s].m;
      for (i = 0; i < sh[s].n; i++) p[i] = q[i] = sh[s].P;
      for (pol = 0; pol < 4; pol++)
        run_shape(types[ti], m, sh[s].n, p, q, pol);
      if (tc_quick())
        continue;
      /* measured plans: first call tunes, the second reuses the plan */
      run_shape_t(types[ti], m, sh[s].n, p, q, KRONBLAS_KERNELS_ALL, 1);
      run_shape_t(types[ti], m, sh[s].n, p, q, KRONBLAS_KERNELS_ALL, 1);
    }
  /* more tiles than blocks: each block walks several, loads overlapping
   * (quick: float only) */
  for (ti = 0; ti < (tc_quick() ? 1 : 2); ti++) {
    int64_t i;
    for (i = 0; i < 4; i++) p[i] = q[i] = 8;
    run_shape(types[ti], 1000, 4, p, q, KRONBLAS_KERNELS_ALL);
  }
  /* fast steps after a generic one: a 3x5 factor first changes K to 4096*5 */
  for (ti = 0; ti < 2; ti++) {
    const int64_t pm[] = { 8, 8, 8, 8, 3 }, qm[] = { 8, 8, 8, 8, 5 };
    const int64_t pm2[] = { 16, 16, 2 }, qm2[] = { 16, 16, 1 };
    run_shape(types[ti], 4, 5, pm, qm, KRONBLAS_KERNELS_ALL);
    run_shape(types[ti], 3, 3, pm2, qm2, KRONBLAS_KERNELS_ALL);
  }
}

static void odd_shapes(void)
{
  int it, ti;
  for (ti = 0; ti < 4; ti++)
    for (it = 0; it < 10; it++) {
      int64_t p[6], q[6], n = tc_range(1, 4), i;
      for (i = 0; i < n; i++) {
        p[i] = tc_range(1, 7);
        q[i] = tc_range(1, 7);
      }
      run_shape(types[ti], tc_range(1, 9), n, p, q, (int)tc_range(0, 3));
    }
}

int main(void)
{
  tc_seed();
  tc_handles();
  fast_shapes();
  odd_shapes();
  tc_handles_done();
  return tap_done();
}
