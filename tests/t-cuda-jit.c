/* t-cuda-jit.c - shapes no precompiled configuration covers (odd, distinct,
 * P = 24, 3x3 eight times, ...), which the planner sends to kernels made
 * for their exact shape and compiled with NVRTC at first use: the CUDA
 * handle against the CPU handle, modelled and measured plans, with and
 * without fusion, and X contiguous along m (the first launch's element-wise
 * load path).  Run by tests/t-jit-cache.sh, which gives it a fresh
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

/* X contiguous along m (RIGHT/N, LEFT/T or C): the first launch may read X
 * with the fast kernel's element-wise load path (kb_cuda_cfg_mrows: blocks
 * of whole sectors of vectors), on odd m, m below a block's vectors,
 * padded and unpadded ldx, single and strided-batched calls. */
static void run_mrows(kronblasDataType_t t, int right, int64_t m, int64_t n, const int64_t *p, const int64_t *q,
                      int tune)
{
  tc_case_t c;
  tc_case_init(&c, t, right ? KRONBLAS_SIDE_RIGHT : KRONBLAS_SIDE_LEFT,
               right ? KRONBLAS_OP_N : (int)tc_range(KRONBLAS_OP_T, KRONBLAS_OP_C), (int)tc_range(0, 2), m, n,
               p, q);
  c.ldx = m + (tc_range(0, 1) ? 5 : 0);
  c.variant = (int)tc_range(0, 3);
  tc_case_batch(&c, 3);
  if (tc_range(0, 3) == 0) c.beta[0] = c.beta[1] = 0;
  c.policy = tc_range(0, 3) == 0 ? KRONBLAS_KERNELS_NO_FUSION : KRONBLAS_KERNELS_ALL;
  c.tune = tune;
  tc_run(&c);
}

static void mrows_shapes(void)
{
  /* m and K large enough that the model takes the fast kernel for the
   * first launch (a few hundred blocks), and small ones where it keeps the
   * generic kernel (m below a block's vectors included). */
  static const struct { int64_t m, n, p[9], q[9]; } sh[] = {
    { 37, 5, { 8, 8, 8, 8, 8 }, { 8, 8, 8, 8, 8 } },
    { 100, 5, { 8, 8, 8, 8, 8 }, { 8, 8, 8, 8, 8 } },
    { 3, 5, { 8, 8, 8, 8, 8 }, { 8, 8, 8, 8, 8 } },
    { 1000, 4, { 8, 8, 8, 8 }, { 8, 8, 8, 8 } },
    { 37, 4, { 16, 16, 16, 16 }, { 16, 16, 16, 16 } },
    { 300, 3, { 16, 16, 16 }, { 16, 16, 16 } },
    { 100, 9, { 3, 3, 3, 3, 3, 3, 3, 3, 3 }, { 3, 3, 3, 3, 3, 3, 3, 3, 3 } },
    { 2000, 5, { 3, 3, 3, 3, 3 }, { 3, 3, 3, 3, 3 } },
    { 1000, 2, { 52, 65 }, { 50, 20 } },
    { 37, 2, { 52, 65 }, { 50, 20 } },
    { 64, 3, { 32, 32, 32 }, { 32, 32, 32 } },
  };
  static const kronblasDataType_t types[] = { KRONBLAS_R_32F, KRONBLAS_R_64F };
  size_t s;
  int ti, right;
  for (ti = 0; ti < 2; ti++)
    for (s = 0; s < sizeof sh / sizeof sh[0]; s++)
      for (right = 0; right < 2; right++)   /* racecheck (quick): at most 5 sectors of vectors */
        run_mrows(types[ti], right, tc_quick() && sh[s].m > 40 ? 40 : sh[s].m, sh[s].n, sh[s].p, sh[s].q, 0);
  /* Measured plans: the first launch's candidates are timed too (not
   * under racecheck, quick: the tuner launches every candidate). */
  for (ti = 0; ti < (tc_quick() ? 0 : 2); ti++)
    for (s = 0; s < 3; s++)
      run_mrows(types[ti], (int)s % 2, sh[s].m, sh[s].n, sh[s].p, sh[s].q, 1);
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
  /* Device pointer mode, alpha == 0 (X and factors NaN, unread): the
   * kernel's separate Y <- beta*Y loop, on fused JIT kernels of width 1
   * (3x3^8, 6x6^5) and up to 2 (2x2^6), beta zero or not, with the RIGHT side's
   * strided stores too. */
  for (ti = 0; ti < 2; ti++)
    for (s = 0; s < sizeof sh / sizeof sh[0]; s++) {
      tc_case_t c;
      int right = (int)tc_range(0, 1);
      if (s != 0 && s != 6 && s != 8)
        continue;
      tc_case_init(&c, types[ti], right ? KRONBLAS_SIDE_RIGHT : KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N,
                   sh[s].m, sh[s].n, sh[s].p, sh[s].q);
      c.dev_ptr = 1;
      c.nan_xf = 1;
      c.alpha[0] = c.alpha[1] = 0;
      if (tc_range(0, 2) == 0) c.beta[0] = c.beta[1] = 0;
      tc_run(&c);
    }
  /* Measured plans time the JIT candidates too. */
  if (!tc_quick()) {
    run(KRONBLAS_R_32F, sh[0].m, sh[0].n, sh[0].p, sh[0].q, KRONBLAS_KERNELS_ALL, 1);
    run(KRONBLAS_R_64F, sh[1].m, sh[1].n, sh[1].p, sh[1].q, KRONBLAS_KERNELS_ALL, 1);
  }
  mrows_shapes();
  tc_handles_done();
  return tap_done();
}
