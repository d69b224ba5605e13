/* t-cuda-right.c - X and Y contiguous along m (RIGHT with X not
 * transposed: "RIGHT/N") on the CUDA backend, against the CPU backend.
 * (1) Fast configurations with whole sectors of vectors per block, forced
 * through wisdom files: the first launch loads X along m, the last one
 * stages its outputs in shared memory and stores Y along m (padded and
 * unpadded rows, k-tiles, fusion, a single launch doing both, rows past m,
 * p != q), and one whose outputs do not fit a stage (strided stores).
 * (2) The column plan ("cublas_col" words) forced the same way, and the
 * words that cannot be one refused on import.  (3) The model and the
 * tuner weigh the column plan against the sliced split (their log lines).
 * Each forced case runs with random entry point, scalars, leading
 * dimensions and transposes of the factors.  SKIPs without a CUDA device. */
#include "t-cuda-util.c"
#include "t-cuda-force.c"

/* Random entry point, batches, beta = 0 (over a NaN Y) now and then. */
static void tr_case(tc_case_t *c, kronblasDataType_t t, int64_t m, int64_t n, const int64_t *p,
                    const int64_t *q, int dev_ok)
{
  tc_case_init(c, t, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_N, (int)tc_range(0, 2), m, n, p, q);
  c->variant = (int)tc_range(0, 3);
  tc_case_batch(c, 3);
  if (tc_range(0, 3) == 0) tc_beta_zero(c);
  c->dev_ptr = dev_ok && tc_range(0, 3) == 0;
}

static const int64_t p8x3[] = { 8, 8, 8 }, p8x2[] = { 8, 8 }, p4x8[] = { 4, 4, 4 }, q4x8[] = { 8, 8, 8 };
static const int64_t p84[] = { 8, 8 }, q84[] = { 4, 8 }, p4x3[] = { 4, 4, 4 }, p8[] = { 8 };

/* (1) */
static void fast_cases(void)
{
  /* float: V = 4, a sector is 8 vectors; double: V = 2, 4 vectors. */
  static const struct {
    kronblasDataType_t t;
    int64_t m, n;
    const int64_t *p, *q;
    const char *plan, *what;
  } fc[] = {
    { KRONBLAS_R_32F, 13, 3, p8x3, p8x3,
      "2:1:fast:t0:p8:q8:f1:tk64:tm8:tp8:rk4:rq4:rm1:st2:xu1 "
      "1:2:fast:t0:p8:q8:f2:tk64:tm8:tp8:rk4:rq4:rm1:st2:xu1:vw1",
      "fused last launch, padded rows" },
    { KRONBLAS_R_64F, 6, 2, p8x2, p8x2,
      "1:1:fast:t1:p8:q8:f1:tk64:tm4:tp8:rk2:rq4:rm1:st2:xu1 "
      "0:1:fast:t1:p8:q8:f1:tk64:tm4:tp8:rk2:rq4:rm1:st2:xu1",
      "double, rows past m" },
    { KRONBLAS_R_32F, 9, 3, p4x8, q4x8,
      "2:1:fast:t0:p4:q8:f1:tk64:tm8:tp4:rk4:rq4:rm1:st2:xu1 "
      "1:1:fast:t0:p4:q8:f1:tk64:tm8:tp4:rk4:rq4:rm1:st2:xu1 "
      "0:1:fast:t0:p4:q8:f1:tk64:tm8:tp4:rk4:rq4:rm1:st2:xu1",
      "4x8: outputs larger than a stage, strided stores" },
    { KRONBLAS_R_32F, 21, 2, p84, q84,
      "1:1:fast:t0:p8:q8:f1:tk64:tm8:tp8:rk4:rq4:rm1:st2:xu1 "
      "0:1:fast:t0:p8:q4:f1:tk64:tm16:tp4:rk4:rq4:rm1:st2:xu1",
      "8x4 in two k-tiles, unpadded rows" },
    { KRONBLAS_R_64F, 5, 1, p8, p8, "0:1:fast:t1:p8:q8:f1:tk8:tm32:tp8:rk1:rq8:rm1:st2:xu1:vw1",
      "one launch loads and stores along m" },
    { KRONBLAS_R_32F, 17, 3, p4x3, p4x3, "2:3:fast:t0:p4:q4:f3:tk64:tm8:tp4:rk4:rq4:rm1:st2:xu1:vw1",
      "three fused factors in one launch" },
    { KRONBLAS_R_32F, 40, 3, p4x3, p4x3, "2:3:fast:t0:p4:q4:f3:tk64:tm8:tp4:rk4:rq4:rm1:st1:xu1:vw1",
      "one stage" },
  };
  size_t i;
  int rep;
  for (i = 0; i < sizeof fc / sizeof fc[0]; i++)
    for (rep = 0; rep < 3; rep++) {
      tc_case_t c;
      tr_case(&c, fc[i].t, fc[i].m, fc[i].n, fc[i].p, fc[i].q, 1);
      printf("# %s\n", fc[i].what);
      ts_forced(&c, fc[i].plan);
    }
}

static const int64_t pA[] = { 3, 4 }, qA[] = { 5, 4 }, pB[] = { 16, 2, 16 }, qB[] = { 16, 3, 9 };

/* (2) */
static void col_cases(void)
{
  int rep;
  for (rep = 0; rep < 3; rep++) {
    tc_case_t c;
    tr_case(&c, rep % 2 ? KRONBLAS_R_64F : KRONBLAS_R_32F, 7 + rep, 2, pA, qA, 0);
    ts_forced(&c, "1:1:cublas_col 0:1:cublas_col");
    tr_case(&c, rep % 2 ? KRONBLAS_R_32F : KRONBLAS_R_64F, 33, 3, pB, qB, 0);
    ts_forced(&c, "2:1:cublas_col 1:1:cublas_col 0:1:cublas_col");
  }
}

static void col_bad_words(void)
{
  static const ts_bad_t bad[] = {
    { "t0 xk1 yl0 dp0 pol0 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_col", "X along K" },
    { "t0 xk0 yl1 dp0 pol0 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_col", "Y along L" },
    { "t0 xk0 yl0 dp1 pol0 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_col", "device pointer mode" },
    { "t2 xk0 yl0 dp0 pol0 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_col", "complex" },
    { "t0 xk0 yl0 dp0 pol1 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_col", "NO_FUSION policy" },
    { "t0 xk0 yl0 dp0 pol2 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_col", "GENERIC policy" },
    { "t0 xk0 yl0 dp0 pol0 m3 3x5,4x4", "1:1:cublas_col 0:1:generic", "mixed with a sliced launch" },
    { "t0 xk0 yl0 dp0 pol0 m3 3x5,4x4", "1:1:generic 0:1:cublas_col", "mixed, the other way" },
    { "t0 xk0 yl0 dp0 pol0 m3 3x5,4x4", "1:2:cublas_col", "two factors in one step" },
    { "t0 xk0 yl0 dp0 pol0 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_colx", "trailing text" },
  };
  ts_refused(bad, sizeof bad / sizeof bad[0]);
  tap_ok(ts_import("t1 xk0 yl0 dp0 pol3 m3 3x5,4x4", "1:1:cublas_col 0:1:cublas_col"),
         "and takes the column plan under the CUBLAS policy");
  kronblasForgetWisdom(tc_gpu);
}

/* (3) The model's and the tuner's comparison, from the debug log. */
static void planner_choice(void)
{
  static const int64_t p16[] = { 16, 16 }, p2[] = { 2, 2, 2 };
  tc_case_t c;
  char *b;

  tr_case(&c, KRONBLAS_R_32F, 64, 2, p16, p16, 0);
  c.dev_ptr = 0;
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "model: column plan") != NULL,
         "the model weighs the column plan for RIGHT/N 64_16x16^2");
  free(b);

  tr_case(&c, KRONBLAS_R_64F, 64, 2, p16, p16, 0);
  c.tune = 1;
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "tune: column plan") != NULL && strstr(b, "cublas_col") != NULL,
         "and the tuner times it, a GEMM per factor");
  free(b);
  kronblasForgetWisdom(tc_gpu);

  /* Device pointer mode: never the column plan (cuBLAS' alpha = 0 rules). */
  tr_case(&c, KRONBLAS_R_32F, 64, 2, p16, p16, 0);
  c.dev_ptr = 1;
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "cuda plan step") != NULL && strstr(b, "model: column plan") == NULL &&
             strstr(b, "kernel -3") == NULL,
         "nor in device pointer mode");
  free(b);

  /* Small factors: whatever the planner picks is right. */
  tr_case(&c, KRONBLAS_R_32F, 100, 3, p2, p2, 1);
  tc_run(&c);
}

int main(void)
{
  ts_setup("t-cuda-right");
  fast_cases();
  col_cases();
  col_bad_words();
  planner_choice();
  ts_teardown();
  return tap_done();
}
