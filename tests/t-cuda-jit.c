/* t-cuda-jit.c - shapes no precompiled configuration covers (odd, distinct,
 * P = 24, 3x3 eight times, ...), which the planner sends to kernels made
 * for their exact shape and compiled with NVRTC at first use: the CUDA
 * handle against the CPU handle, modelled and measured plans, with and
 * without fusion.  Run by tests/t-jit-cache.sh, which gives it a fresh
 * KRONBLAS_CACHE_DIR and checks the disk cache across processes.  SKIPs
 * without a CUDA device. */
#include "t-cuda-util.c"

static void run(kronblasDataType_t t, int64_t m, int64_t n, const int64_t *p, const int64_t *q, int policy,
                int tune)
{
  tc_case_t c;
  /* X contiguous along K (left side, X not transposed): every step can
   * take a fast kernel, the first one included. */
  tc_case_init(&c, t, 0, 0, (int)tc_range(0, 2), m, n, p, q);
  if (tc_range(0, 3) == 0) c.beta[0] = c.beta[1] = 0;
  c.policy = policy;
  c.tune = tune;
  tc_run(&c);
}

int main(void)
{
  static const struct { int64_t m, n, p[8], q[8]; } sh[] = {
    { 5, 8, { 3, 3, 3, 3, 3, 3, 3, 3 }, { 3, 3, 3, 3, 3, 3, 3, 3 } },
    { 3, 2, { 52, 65 }, { 50, 20 } },
    { 4, 3, { 24, 24, 24 }, { 24, 24, 24 } },
    { 2, 4, { 5, 7, 6, 7 }, { 5, 7, 6, 7 } },
    { 7, 4, { 6, 6, 6, 6 }, { 6, 6, 6, 6 } },
    { 2, 3, { 12, 20, 12 }, { 10, 12, 4 } },
    { 3, 5, { 6, 6, 6, 6, 6 }, { 6, 6, 6, 6, 6 } },   /* fused runs of 9 outputs: width 1 */
    { 2, 6, { 6, 6, 6, 6, 6, 6 }, { 6, 6, 6, 6, 6, 6 } },
    { 64, 6, { 2, 2, 2, 2, 2, 2 }, { 2, 2, 2, 2, 2, 2 } },
  };
  static const kronblasDataType_t types[] = { KRONBLAS_R_32F, KRONBLAS_R_64F };
  size_t s;
  int ti;
  tc_seed();
  tc_handles();
  for (ti = 0; ti < 2; ti++)
    for (s = 0; s < sizeof sh / sizeof sh[0]; s++) {
      run(types[ti], sh[s].m, sh[s].n, sh[s].p, sh[s].q, KRONBLAS_KERNELS_ALL, 0);
      run(types[ti], sh[s].m, sh[s].n, sh[s].p, sh[s].q, KRONBLAS_KERNELS_NO_FUSION, 0);
    }
  /* Measured plans time the JIT candidates too. */
  run(KRONBLAS_R_32F, sh[0].m, sh[0].n, sh[0].p, sh[0].q, KRONBLAS_KERNELS_ALL, 1);
  run(KRONBLAS_R_64F, sh[1].m, sh[1].n, sh[1].p, sh[1].q, KRONBLAS_KERNELS_ALL, 1);
  tc_handles_done();
  return tap_done();
}
