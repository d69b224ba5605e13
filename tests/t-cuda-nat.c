/* t-cuda-nat.c - the natural-order cuBLAS plan (KB_KERNEL_CUBLAS_NAT,
 * lib/cuda_cublas.c: X, the intermediates and Y contiguous along K/L with
 * their digits in natural order, one GEMM or batch of GEMMs per factor)
 * against the CPU backend: forced through wisdom files ("cublas_nat" words)
 * on odd and distinct shapes, float and double, both factor layouts,
 * padded leading dimensions (one batch per row) and contiguous rows (rows
 * merged into one batch), strided batches, beta = 0 over a NaN Y; the words
 * that cannot be one are refused on import; the tuner times the plan.
 * Plans whose trailing factors run first on sub-vectors, forced and the
 * model's.  SKIPs without a CUDA device. */
#include "t-cuda-util.c"
#include "t-cuda-force.c"

static const int64_t pA[] = { 3, 4 }, qA[] = { 5, 4 }, pB[] = { 16, 2, 7 }, qB[] = { 9, 3, 7 };
static const int64_t pC[] = { 1, 6, 2, 3 }, qC[] = { 4, 6, 1, 3 };
/* The precompiled float configuration of two fused 64x64 factors over a
 * whole vector of 4096 (kernels/cuda/fast_s.cu) */
#define KB_T_WHOLE64 "fast:t0:p64:q64:f2:tk4096:tm2:tp64:rk4:rq8:rm1:st2:xu4"

/* Plans forced through wisdom.  All GEMMs (sub 0): padded leading
 * dimensions (one batch per row) and contiguous rows (rows merged into one
 * batch).  Sub-vector launches first (sub 1: the trailing factors applied
 * to the m * pre sub-vectors of their inputs, kb_cuda_nat_sub, any kernel
 * there, then GEMMs): X's rows contiguous (the sub-vectors one after
 * another) or, the fourth time, padded (the plan is then planned again,
 * and still right). */
static void forced(void)
{
  static const struct {
    int64_t n;
    const int64_t *p, *q;
    int sub;
    const char *plan;
  } sh[] = {
    { 2, pA, qA, 0, "1:1:cublas_nat 0:1:cublas_nat" },
    { 3, pB, qB, 0, "2:1:cublas_nat 1:1:cublas_nat 0:1:cublas_nat" },
    { 4, pC, qC, 0, "3:1:cublas_nat 2:1:cublas_nat 1:1:cublas_nat 0:1:cublas_nat" },
    { 3, pB, qB, 1, "2:2:small:2 0:1:cublas_nat" },
    { 3, pB, qB, 1, "2:1:cublas 1:1:generic 0:1:cublas_nat" },
    { 4, pC, qC, 1, "3:1:generic 2:1:generic 1:1:cublas_nat 0:1:cublas_nat" },
    { 4, pC, qC, 1, "3:2:small:2 1:1:cublas_nat 0:1:cublas_nat" },
  };
  size_t s;
  int rep;
  for (s = 0; s < sizeof sh / sizeof sh[0]; s++)
    for (rep = 0; rep < 4; rep++) {
      const int padded_sub = sh[s].sub && rep == 3;
      tc_case_t c;
      /* LEFT with X not transposed: X and Y contiguous along K/L */
      tc_case_init(&c, rep % 2 ? KRONBLAS_R_64F : KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N,
                   (int)tc_range(0, 2), tc_range(padded_sub ? 2 : 1, 40), sh[s].n, sh[s].p, sh[s].q);
      c.variant = (int)tc_range(0, 3);
      tc_case_batch(&c, 3);
      if (rep == 1) c.beta[0] = c.beta[1] = 0;
      if (sh[s].sub) {
        c.ldx = tc_K(&c) + (padded_sub ? tc_range(1, 3) : 0);
      } else if (rep >= 2) {
        /* contiguous rows: the merged batches */
        c.ldx = tc_K(&c);
        c.ldy = tc_L(&c);
      }
      ts_forced(&c, sh[s].plan);
    }
}

/* The model's plan of float 16_64x64^3 (the whole-vector 64^2 launch over
 * 1024 sub-vectors, then a GEMM), with X's rows contiguous and then
 * padded (planned again: no sub-vector steps); and of 64_64x64^3, whose
 * GEMMs over 2^24 elements run below cuBLAS' long-vector rate
 * (kb_cublas_rate). */
static void sub_model(void)
{
  static const int64_t p64[] = { 64, 64, 64 };
  static const struct { int64_t m; int pad; } run[] = { { 16, 0 }, { 16, 1 }, { 64, 0 } };
  tc_case_t c;
  char *b;
  size_t r;
  if (tc_quick()) {
    /* racecheck: 4M elements through shared memory; the launch is
     * t-cuda-gekmm's fused 64x64 one, the sub-vector steps forced()'s */
    tap_skip("the model's plans of 16_ and 64_64x64^3 (quick mode)");
    return;
  }
  for (r = 0; r < sizeof run / sizeof run[0]; r++) {
    const int pad = run[r].pad;
    tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, run[r].m, 3, p64, p64);
    c.ldx = tc_K(&c) + pad;
    b = ts_run_log(&c);
    tap_ok(b != NULL && (strstr(b, "(sub-vectors)") != NULL) == !pad,
           "  ... the model's plan %s sub-vector steps (%lld_64x64^3 float, X rows %s)", pad ? "has no" : "has",
           (long long)run[r].m, pad ? "padded" : "contiguous");
    free(b);
  }
}

static void bad_words(void)
{
  static const ts_bad_t bad[] = {
    { "t0 xk0 yl1 dp0 pol0 m3 3x5,4x4", "1:1:cublas_nat 0:1:cublas_nat", "X along m" },
    { "t0 xk1 yl0 dp0 pol0 m3 3x5,4x4", "1:1:cublas_nat 0:1:cublas_nat", "Y along m" },
    { "t0 xk1 yl1 dp1 pol0 m3 3x5,4x4", "1:1:cublas_nat 0:1:cublas_nat", "device pointer mode" },
    { "t3 xk1 yl1 dp0 pol0 m3 3x5,4x4", "1:1:cublas_nat 0:1:cublas_nat", "complex" },
    { "t0 xk1 yl1 dp0 pol2 m3 3x5,4x4", "1:1:cublas_nat 0:1:cublas_nat", "GENERIC policy" },
    { "t0 xk1 yl1 dp0 pol0 m3 3x5,4x4", "1:1:cublas_nat 0:1:cublas", "mixed with a rotated cuBLAS step" },
    { "t0 xk1 yl1 dp0 pol0 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_nat", "mixed with a column step" },
    { "t0 xk1 yl1 dp0 pol0 m3 3x5,4x4", "1:2:cublas_nat", "two factors in one step" },
    { "t0 xk1 yl1 dp0 pol0 m3 16x9,2x3,7x7", "2:1:generic 1:1:cublas_nat 0:1:generic",
      "a step of another kind after a GEMM" },
    { "t0 xk0 yl1 dp0 pol0 m3 16x9,2x3,7x7", "2:2:small:2 0:1:cublas_nat", "sub-vectors of X along m" },
    { "t0 xk1 yl1 dp0 pol1 m3 16x9,2x3,7x7", "2:2:small:2 0:1:cublas_nat", "a fused step under NO_FUSION" },
    { "t0 xk1 yl1 dp0 pol0 m4611686018427387904 16x9,2x3,7x7", "2:2:small:2 0:1:cublas_nat",
      "m times the sub-vectors overflows" },
  };
  ts_refused(bad, sizeof bad / sizeof bad[0]);
  /* The whole-vector 64^2 launch fits only as a sub-vector step: its slab
   * is the 4096 of the sub-problem, not the vector of 64^3 or 64^4. */
  tap_ok(ts_import("t0 xk1 yl1 dp0 pol0 m16 64x64,64x64,64x64", "2:2:" KB_T_WHOLE64 " 0:1:cublas_nat"),
         "import takes the whole-vector 64^2 launch on the sub-vectors of 64^3");
  tap_ok(!ts_import("t0 xk1 yl1 dp0 pol0 m16 64x64,64x64,64x64,64x64", "3:2:" KB_T_WHOLE64
                    " 1:1:generic 0:1:cublas_nat"),
         "import skips it on sub-vectors of 64^3 (the plan's sub-problem after factor 0)");
  tap_ok(!ts_import("t0 xk1 yl1 dp0 pol0 m16 64x64,64x64,64x64", "2:2:" KB_T_WHOLE64 " 0:1:cublas"),
         "import skips it on the whole vector of 64^3 (no GEMM after it: no sub-vectors)");
  tap_ok(ts_import("t1 xk1 yl1 dp0 pol3 m3 3x5,4x4", "1:1:cublas_nat 0:1:cublas_nat"),
         "and takes it under the CUBLAS policy");
  kronblasForgetWisdom(tc_gpu);
}

/* The tuner times the plan (its log line) and what it keeps is right. */
static void tuned(void)
{
  static const int64_t p64[] = { 64, 64, 64 };
  tc_case_t c;
  char *b;
  tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 16, 2, p64, p64);
  c.tune = 1;
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "tune: natural-order GEMMs") != NULL && strstr(b, "cublas_nat") != NULL,
         "the tuner times the natural-order GEMMs (16_64x64^2 float)");
  free(b);
  kronblasForgetWisdom(tc_gpu);
  /* the model's plan with sub-vector steps too, then whatever it keeps
   * runs right (above) */
  if (tc_quick()) {
    tap_skip("the tuner on 16_64x64^3 (quick mode)");
    return;
  }
  tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 16, 3, p64, p64);
  c.ldx = tc_K(&c);
  c.tune = 1;
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "tune: natural-order plan with factors 2..1 on sub-vectors") != NULL,
         "the tuner times the plan with sub-vector steps (16_64x64^3 float)");
  free(b);
  kronblasForgetWisdom(tc_gpu);
}

int main(void)
{
  ts_setup("t-cuda-nat");
  forced();
  sub_model();
  bad_words();
  tuned();
  ts_teardown();
  return tap_done();
}
