/* t-cuda-small.c - the whole-vector fused kernel (KB_KERNEL_SMALL,
 * kernels/cuda/small.cu) against the CPU backend.  Plans naming it
 * ("small:F") are forced through wisdom files written for each case's key
 * (imported on a handle in MEASURE mode; afterwards the handle must still
 * hold that one plan, so nothing was tuned instead): distinct, odd and
 * size-1 shapes, F = 1..5, several launches and a generic one between,
 * every type, side and transpose, leading dimensions and batch strides,
 * beta = 0 on a NaN Y, device pointer mode (alpha = 0 on the device too).
 * Also: malformed or unfitting "small" words are skipped on import, the
 * model picks the kernel for 5_3x5,7x2,4x4 (complex double: three generic
 * launches otherwise), and not for a vector too long for shared memory
 * (its plans read from a debug log).  SKIPs
 * without a CUDA device. */
#include "t-cuda-util.c"
#include "t-cuda-force.c"

static void ts_case(tc_case_t *c, kronblasDataType_t t, int side, int tX, int tF, int64_t m, int64_t n,
                    const int64_t *p, const int64_t *q)
{
  tc_case_init(c, t, side, tX, tF, m, n, p, q);
}

static const int64_t pA[] = { 3, 7, 4 }, qA[] = { 5, 2, 4 };            /* 3x5,7x2,4x4 */
static const int64_t pB[] = { 52, 65 }, qB[] = { 50, 20 };              /* 52x50,65x20 */
static const int64_t pC[] = { 3, 7, 4, 5 }, qC[] = { 5, 2, 4, 3 };      /* 3x5,7x2,4x4,5x3 */
static const int64_t pD[] = { 2, 5, 3, 7, 1 }, qD[] = { 3, 5, 2, 1, 4 };
static const int64_t pE[] = { 32, 64 }, qE[] = { 8, 128 };              /* 32x8,64x128 */

static void fixed_cases(void)
{
  const int L = KRONBLAS_SIDE_LEFT, R = KRONBLAS_SIDE_RIGHT, N = KRONBLAS_OP_N, T = KRONBLAS_OP_T,
            C = KRONBLAS_OP_C;
  tc_case_t c;

  ts_case(&c, KRONBLAS_R_64F, L, N, N, 5, 3, pA, qA);
  ts_forced(&c, "2:3:small:3");
  ts_case(&c, KRONBLAS_R_32F, L, N, T, 7, 3, pA, qA);
  ts_forced(&c, "2:1:small:1 1:2:small:2");
  ts_case(&c, KRONBLAS_C_64F, L, T, N, 6, 3, pA, qA);   /* X along m */
  ts_forced(&c, "2:2:small:2 0:1:small:1");
  ts_case(&c, KRONBLAS_C_32F, R, N, T, 9, 4, pC, qC);   /* X and Y along m */
  ts_forced(&c, "3:4:small:4");
  ts_case(&c, KRONBLAS_R_64F, L, N, N, 33, 4, pC, qC);
  ts_forced(&c, "3:1:small:1 2:1:generic 1:2:small:2");
  ts_case(&c, KRONBLAS_R_64F, R, T, C, 4, 4, pC, qC);
  ts_forced(&c, "3:1:small:1 2:1:small:1 1:1:small:1 0:1:small:1");
  ts_case(&c, KRONBLAS_C_64F, L, C, C, 4, 5, pD, qD);   /* size-1 factors, F = 5 */
  ts_forced(&c, "4:5:small:5");
  ts_case(&c, KRONBLAS_R_32F, R, T, N, 3, 5, pD, qD);
  ts_forced(&c, "4:2:small:2 2:3:small:3");
  /* the real-world shape, both types, and wider leading dimensions */
  ts_case(&c, KRONBLAS_R_64F, L, N, N, 10, 2, pB, qB);
  c.ldx = 52 * 65 + 3;
  c.ldy = 50 * 20 + 5;
  ts_forced(&c, "1:2:small:2");
  ts_case(&c, KRONBLAS_R_32F, L, N, T, 10, 2, pB, qB);
  ts_forced(&c, "1:2:small:2");
  ts_case(&c, KRONBLAS_R_64F, R, T, N, 10, 2, pB, qB);
  ts_forced(&c, "1:1:small:1 0:1:small:1");
  /* the other real-world pair: 34 KB of staged factors a block (complex
   * double: read through L1) */
  ts_case(&c, KRONBLAS_R_32F, L, N, N, 50, 2, pE, qE);
  ts_forced(&c, "1:2:small:2");
  ts_case(&c, KRONBLAS_C_64F, L, N, C, 7, 2, pE, qE);
  ts_forced(&c, "1:2:small:2");
  /* many vectors: several per block, X along m */
  ts_case(&c, KRONBLAS_R_64F, L, T, N, 1000, 3, pA, qA);
  ts_forced(&c, "2:3:small:3");
  ts_case(&c, KRONBLAS_R_32F, L, N, N, 777, 3, pA, qA);
  ts_forced(&c, "2:3:small:3");
  /* batches with strides, factors shared or strided */
  ts_case(&c, KRONBLAS_R_64F, L, N, N, 5, 3, pA, qA);
  c.variant = TC_SB;
  c.batch = 3;
  c.sX = c.sY = -1;
  c.sF[0] = -1;
  c.sF[1] = 0;
  c.sF[2] = -1;
  ts_forced(&c, "2:3:small:3");
  ts_case(&c, KRONBLAS_C_32F, R, T, T, 6, 4, pC, qC);
  c.variant = TC_SB_64;
  c.batch = 2;
  c.sX = c.sY = c.sF[0] = c.sF[1] = c.sF[2] = c.sF[3] = -1;
  ts_forced(&c, "3:2:small:2 1:2:small:2");
  /* scalars: beta = 0 (Y NaN), alpha = beta = 1, device pointers */
  ts_case(&c, KRONBLAS_R_64F, L, N, N, 5, 3, pA, qA);
  c.beta[0] = c.beta[1] = 0;
  ts_forced(&c, "2:3:small:3");
  ts_case(&c, KRONBLAS_R_32F, L, N, N, 5, 3, pA, qA);
  c.alpha[0] = 1;
  c.beta[0] = 1;
  ts_forced(&c, "2:1:small:1 1:2:small:2");
  ts_case(&c, KRONBLAS_R_64F, L, N, N, 5, 3, pA, qA);
  c.dev_ptr = 1;
  ts_forced(&c, "2:2:small:2 0:1:small:1");
  ts_case(&c, KRONBLAS_C_64F, R, N, N, 5, 3, pA, qA);
  c.dev_ptr = 1;
  c.beta[0] = c.beta[1] = 0;
  ts_forced(&c, "2:3:small:3");
  ts_case(&c, KRONBLAS_R_64F, L, N, N, 5, 3, pA, qA);
  c.dev_ptr = 1;
  c.alpha[0] = 0;
  c.nan_xf = 1;   /* alpha = 0 on the device: X and the factors unread */
  ts_forced(&c, "2:1:small:1 1:2:small:2");
  ts_case(&c, KRONBLAS_R_32F, L, N, N, 5, 3, pA, qA);
  c.dev_ptr = 1;
  c.alpha[0] = 0;
  c.beta[0] = 0;
  c.nan_xf = 1;
  ts_forced(&c, "2:3:small:3");
}

/* Random shapes split at random into small launches (a generic one now
 * and then). */
static void random_cases(void)
{
  static const kronblasDataType_t types[] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };
  int it;
  for (it = 0; it < 24; it++) {
    /* small enough that any split fits in shared memory */
    int64_t p[6], q[6], n = tc_range(1, 4), i;
    char plan[256];
    size_t o = 0;
    tc_case_t c;
    for (i = 0; i < n; i++) {
      p[i] = tc_range(1, 6);
      q[i] = tc_range(1, 6);
    }
    ts_case(&c, types[it % 4], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), tc_range(2, 40),
            n, p, q);
    c.variant = (int)tc_range(0, 3);
    tc_case_batch(&c, 3);
    if (tc_range(0, 3) == 0) c.beta[0] = c.beta[1] = 0;
    c.dev_ptr = tc_range(0, 3) == 0;
    for (i = n - 1; i >= 0;) {
      int64_t F = tc_range(1, i + 1);
      if (tc_range(0, 5) == 0) {
        o += (size_t)snprintf(plan + o, sizeof plan - o, "%s%lld:1:generic", o ? " " : "", (long long)i);
        i -= 1;
      } else {
        o += (size_t)snprintf(plan + o, sizeof plan - o, "%s%lld:%lld:small:%lld", o ? " " : "", (long long)i,
                              (long long)F, (long long)F);
        i -= F;
      }
    }
    ts_forced(&c, plan);
  }
}

/* Words that do not fit their key are skipped on import. */
static void bad_words(void)
{
  static const ts_bad_t bad[] = {
    { "t1 xk1 yl1 dp0 pol0 m3 3x5,7x2", "1:2:small:1", "F != nf" },
    { "t1 xk1 yl1 dp0 pol0 m3 3x5,7x2", "1:2:small:02", "leading zero" },
    { "t1 xk1 yl1 dp0 pol0 m3 3x5,7x2", "1:2:small:", "no F" },
    { "t1 xk1 yl1 dp0 pol0 m3 3x5,7x2", "1:2:small:2x", "trailing text" },
    { "t1 xk1 yl1 dp0 pol0 m3 3x5,7x2", "1:1:small:1 0:1:small:0", "F = 0" },
    { "t1 xk1 yl1 dp0 pol1 m3 3x5,7x2", "1:2:small:2", "fusion under NO_FUSION" },
    { "t1 xk1 yl1 dp0 pol2 m3 3x5,7x2", "1:1:small:1 0:1:generic", "GENERIC policy" },
    { "t1 xk1 yl1 dp0 pol3 m3 3x5,7x2", "1:1:small:1 0:1:generic", "CUBLAS policy" },
    { "t1 xk1 yl1 dp0 pol0 m3 40000x2", "0:1:small:1", "a vector too long for shared memory" },
    { "t0 xk1 yl1 dp0 pol0 m3 200x1,10x400", "1:2:small:2", "an intermediate too long" },
  };
  ts_refused(bad, sizeof bad / sizeof bad[0]);
  tap_ok(ts_import("t1 xk1 yl1 dp0 pol1 m3 3x5,7x2", "1:1:small:1 0:1:small:1"),
         "and takes small:1 under NO_FUSION");
  tap_ok(ts_import("t0 xk1 yl1 dp0 pol0 m3 200x1,10x400", "1:1:small:1 0:1:generic"),
         "and small:1 where the vector fits, though the next intermediate would not");
  kronblasForgetWisdom(tc_gpu);
}

/* The model's choice, from the debug log of the call. */
static void model_choice(void)
{
  static const int64_t pbig[] = { 40000 }, qbig[] = { 2 };
  tc_case_t c;
  char *b;

  /* Complex: the alternative is one generic launch per factor. */
  ts_case(&c, KRONBLAS_C_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 5, 3, pA, qA);
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "factors 2..0, kernel -4") != NULL,
         "the model runs 5_3x5,7x2,4x4 (complex double) as one whole-vector launch");
  free(b);

  ts_case(&c, KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 3, 1, pbig, qbig);
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "cuda plan step") != NULL && strstr(b, "kernel -4") == NULL,
         "and a 40000-element double vector on another kernel");
  free(b);
}

int main(void)
{
  ts_setup("t-cuda-small");
  fixed_cases();
  random_cases();
  bad_words();
  model_choice();
  ts_teardown();
  return tap_done();
}
