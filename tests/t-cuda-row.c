/* t-cuda-row.c - the whole-row kernel (KB_KERNEL_ROW, kernels/cuda/row.cu:
 * every factor P x P with one P, a whole vector in shared memory, each
 * digit updated in place) against the CPU backend: forced through wisdom
 * files ("row:N" words) for every instantiated P in float and double, the
 * 128 KB rows (8x8^5 and 32x32^3 float), rows split over a cluster of
 * blocks (every instantiated cluster), both factor layouts, padded and
 * odd leading dimensions (the element-wise paths), strided batches with
 * their own factors, beta = 0 over a NaN Y (half of them with alpha = 1:
 * Y written without an epilogue), device pointer mode with alpha = 0 over
 * NaN inputs, Y = X; the words that cannot be one are refused on
 * import; the tuner times the kernel; P not a power of two with two
 * vectors per SM at least (256-thread blocks); the measured planner's
 * variants (row:N:cC:tT: cluster and block sizes fixed; row:N:c1:tT:p, the
 * next vector prefetched by a resident grid, double), forced and timed.
 * KRONBLAS_TEST_QUICK: one
 * case per shape, m <= 3, no tuner run (for racecheck).  SKIPs without a
 * CUDA device. */
#include "t-cuda-util.c"
#include "t-cuda-force.c"

/* One forced run of P x P ^ n (LEFT, X not transposed: X and Y contiguous
 * along K/L) with m in [mlo, mhi] and the plan "n-1:n:row:n" + word:
 * rep 0 as drawn, 1 beta = 0, 2 odd leading dimensions (X and Y rows not
 * 16-byte aligned: the element-wise paths). */
static void row_run(int type, int64_t P, int64_t n, int64_t mlo, int64_t mhi, int rep, const char *word)
{
  int64_t p[TC_MAXF], i;
  char plan[64];
  tc_case_t c;
  for (i = 0; i < n; i++)
    p[i] = P;
  tc_case_init(&c, type ? KRONBLAS_R_64F : KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, (int)tc_range(0, 2),
               tc_range(mlo, mhi), n, p, p);
  c.variant = (int)tc_range(0, 3);
  tc_case_batch(&c, 3);
  if (rep == 1) tc_beta_zero(&c);
  if (rep == 2) {
    c.ldx = tc_K(&c) + 1;
    c.ldy = tc_L(&c) + 3;
  }
  snprintf(plan, sizeof plan, "%lld:%lld:row:%lld%s", (long long)(n - 1), (long long)n, (long long)n, word);
  ts_forced(&c, plan);
}

static void forced(void)
{
  static const struct {
    int type;
    int64_t P, n, mmax, mmin; /* mmin 0: 1 */
  } sh[] = {
    { 0, 2, 6, 40, 0 },  { 0, 3, 4, 40, 0 },  { 0, 4, 5, 40, 0 },  { 0, 5, 3, 40, 0 }, { 0, 6, 3, 40, 0 },
    { 0, 7, 3, 40, 0 },  { 0, 8, 3, 40, 0 },  { 0, 16, 3, 20, 0 }, { 0, 32, 2, 40, 0 }, { 0, 8, 5, 5, 0 },
    { 0, 32, 3, 3, 0 },  { 0, 4, 7, 4, 0 },   { 1, 2, 5, 40, 0 },  { 1, 3, 5, 20, 0 },  { 1, 4, 4, 40, 0 },
    { 1, 5, 3, 40, 0 },  { 1, 6, 3, 40, 0 },  { 1, 7, 2, 40, 0 },  { 1, 8, 4, 10, 0 },  { 1, 16, 3, 5, 0 },
    /* over a cluster of blocks (every instantiated one; 5^7 and 7^6 leave
     * an odd count of positions per block: the element-wise last digit) */
    { 0, 4, 8, 3, 0 },   { 0, 5, 7, 3, 0 },   { 0, 6, 7, 2, 0 },   { 0, 7, 6, 3, 0 },  { 0, 8, 6, 3, 0 },
    { 0, 16, 4, 3, 0 },  { 1, 4, 8, 3, 0 },   { 1, 5, 7, 3, 0 },   { 1, 6, 6, 3, 0 },  { 1, 7, 6, 3, 0 },
    { 1, 8, 5, 3, 0 },   { 1, 16, 4, 3, 0 },
    /* vectors one block holds, split over a cluster of 128-thread blocks
     * by choice (the table's pref and T) */
    { 1, 4, 7, 3, 0 },   { 0, 6, 6, 3, 0 },
    /* two blocks per SM at least: P not a power of two runs 256-thread
     * blocks there (kb_cuda_row_geom) */
    { 0, 7, 5, 300, 280 }, { 0, 3, 7, 300, 280 }, { 1, 6, 5, 300, 280 }, { 1, 3, 7, 300, 280 },
  };
  size_t s;
  int rep;
  for (s = 0; s < sizeof sh / sizeof sh[0]; s++)
    for (rep = 0; rep < (tc_quick() ? 1 : 3); rep++)
      row_run(sh[s].type, sh[s].P, sh[s].n, sh[s].mmin > 0 && !tc_quick() ? sh[s].mmin : 1,
              tc_quick() && sh[s].mmax > 3 ? 3 : sh[s].mmax, rep, "");
}

/* A variant forced (row:N:cC:tT, and :p with pf), three reps: m in [mmin,
 * mmax], both at most 3 with KRONBLAS_TEST_QUICK. */
typedef struct {
  int type;
  int64_t P, n, mmin, mmax, C, T;
} variant_t;

static void variant_runs(const variant_t *sh, size_t count, int pf)
{
  size_t s;
  int rep;
  for (s = 0; s < count; s++)
    for (rep = 0; rep < (tc_quick() ? 1 : 3); rep++) {
      char word[32];
      snprintf(word, sizeof word, ":c%lld:t%lld%s", (long long)sh[s].C, (long long)sh[s].T, pf ? ":p" : "");
      row_run(sh[s].type, sh[s].P, sh[s].n, tc_quick() ? 1 : sh[s].mmin,
              tc_quick() && sh[s].mmax > 3 ? 3 : sh[s].mmax, rep, word);
    }
}

/* The measured planner's variants (row:N:cC:tT, the cluster and block
 * sizes fixed): one block of fewer threads than the geometry's choice,
 * every cluster size a type and P instantiates besides its usual one, and
 * block sizes that leave threads without a slice (T above the slices). */
static void variants(void)
{
  static const variant_t sh[] = {
    { 0, 8, 5, 1, 5, 1, 64 },   { 0, 8, 5, 1, 5, 2, 128 },  { 0, 8, 5, 1, 5, 8, 512 },  { 0, 8, 3, 1, 20, 1, 448 },
    { 0, 16, 4, 1, 3, 4, 192 }, { 0, 6, 5, 1, 9, 6, 64 },   { 0, 4, 6, 1, 9, 2, 256 },  { 1, 4, 6, 1, 9, 4, 128 },
    { 1, 4, 7, 1, 3, 4, 128 },  { 1, 8, 4, 1, 9, 4, 256 },  { 1, 6, 4, 1, 9, 2, 512 },  { 1, 16, 4, 1, 3, 8, 64 },
  };
  variant_runs(sh, sizeof sh / sizeof sh[0], 0);
}

/* The next vector prefetched (row:N:c1:tT:p; double, one block a vector):
 * m past the resident blocks of these rows -- one to three a
 * multiprocessor -- so that each block loops over several vectors and both
 * buffers, batches with their own factors among them; and launches of
 * fewer vectors than blocks.  rep 2's rows off a 16-byte boundary run
 * without the prefetch. */
static void prefetch(void)
{
  static const variant_t sh[] = {
    { 1, 6, 5, 200, 300, 1, 256 }, { 1, 8, 4, 450, 600, 1, 256 }, { 1, 4, 6, 450, 600, 1, 128 },
    { 1, 16, 3, 450, 600, 1, 512 }, { 1, 2, 8, 1, 9, 1, 64 },     { 1, 6, 4, 1, 9, 1, 192 },
    { 1, 8, 3, 1, 40, 1, 128 },
  };
  variant_runs(sh, sizeof sh / sizeof sh[0], 1);
}

/* One forced run of (P x P)^n, m = 7 or 9: device pointer mode (dp), alpha
 * = 0 over NaN X and factors (azero), Y = X (alias); tight: leading
 * dimensions K and L (else drawn, padded by up to 2: the vector paths then
 * run one time in three). */
static void special_one(kronblasDataType_t type, int64_t P, int64_t n, int dp, int azero, int alias, int tight,
                        const char *plan)
{
  int64_t p[TC_MAXF], i;
  tc_case_t c;
  for (i = 0; i < n; i++)
    p[i] = P;
  tc_case_init(&c, type, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, alias ? KRONBLAS_OP_T : KRONBLAS_OP_N, alias ? 9 : 7, n,
               p, p);
  c.dev_ptr = dp;
  if (azero) {
    c.alpha[0] = 0;
    c.nan_xf = 1;
  }
  if (alias)
    c.alias = TC_ALIAS_X;
  if (tight) {
    c.ldx = tc_K(&c);
    c.ldy = tc_L(&c);
  }
  ts_forced(&c, plan);
}

/* Device pointer mode (alpha = 0 over NaN X and factors), Y = X; the same
 * with the prefetch (alpha = 0 reads no row), for float 16 and 32 and for
 * every power-of-two cluster kernel with tight rows.  A NaN planted in
 * kb_row_cross's alpha = 0 branch fails exactly the five tight cluster
 * cases below (H100, session 28), which the padded rows had missed. */
static void special(void)
{
  special_one(KRONBLAS_R_32F, 8, 3, 1, 0, 0, 0, "2:3:row:3");
  special_one(KRONBLAS_R_32F, 8, 3, 1, 1, 0, 0, "2:3:row:3");
  special_one(KRONBLAS_R_64F, 4, 4, 0, 0, 1, 0, "3:4:row:4");
  special_one(KRONBLAS_R_64F, 8, 3, 1, 1, 0, 0, "2:3:row:3:c1:t256:p");
  special_one(KRONBLAS_R_64F, 4, 4, 0, 0, 1, 0, "3:4:row:4:c1:t128:p");
  /* float 16's output-stationary digits with tight rows (their vector
   * paths): one block, a cluster of four (its cross digit's own alpha = 0
   * branch), Y = X over the cluster */
  special_one(KRONBLAS_R_32F, 16, 3, 1, 1, 0, 1, "2:3:row:3");
  special_one(KRONBLAS_R_32F, 16, 4, 1, 1, 0, 1, "3:4:row:4");
  special_one(KRONBLAS_R_32F, 16, 4, 0, 0, 1, 1, "3:4:row:4");
  /* float 32 in one block (its first digit's vector loads from X) */
  special_one(KRONBLAS_R_32F, 32, 3, 1, 1, 0, 1, "2:3:row:3");
  /* the other power-of-two cluster kernels with tight rows: their cross
   * digit's alpha = 0 branch on its vector path (float 4^8 over two
   * blocks, 8^6 over eight; double 4^8 over four, 8^5 over four, 16^4 over
   * eight) */
  special_one(KRONBLAS_R_32F, 4, 8, 1, 1, 0, 1, "7:8:row:8");
  special_one(KRONBLAS_R_32F, 8, 6, 1, 1, 0, 1, "5:6:row:6");
  special_one(KRONBLAS_R_64F, 4, 8, 1, 1, 0, 1, "7:8:row:8");
  special_one(KRONBLAS_R_64F, 8, 5, 1, 1, 0, 1, "4:5:row:5");
  special_one(KRONBLAS_R_64F, 16, 4, 1, 1, 0, 1, "3:4:row:4");
}

static void bad_words(void)
{
  static const ts_bad_t bad[] = {
    { "t0 xk0 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3", "X along m" },
    { "t0 xk1 yl0 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3", "Y along m" },
    { "t2 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3", "complex" },
    { "t0 xk1 yl1 dp0 pol2 m3 8x8,8x8,8x8", "2:3:row:3", "GENERIC policy" },
    { "t0 xk1 yl1 dp0 pol1 m3 8x8,8x8,8x8", "2:3:row:3", "NO_FUSION policy" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,4x4", "2:3:row:3", "two factor sizes" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x4,8x4,8x4", "2:3:row:3", "rectangular factors" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:2:row:2 0:1:generic", "not every factor" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:2", "F != nf" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8", "0:1:row:1", "one factor" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8,8x8,8x8,8x8,8x8", "6:7:row:7", "an 8 MB row" },
    { "t1 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8,8x8,8x8,8x8", "5:6:row:6", "double 8^6: 1 MB a block of two" },
    { "t1 xk1 yl1 dp0 pol0 m3 32x32,32x32", "1:2:row:2", "double P = 32 (not instantiated)" },
    { "t0 xk1 yl1 dp0 pol0 m3 9x9,9x9", "1:2:row:2", "P = 9 (not instantiated)" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:03", "a leading zero" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c3:t128", "a cluster of 3 for P = 8 (not instantiated)" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c2:t96", "96 threads (not a multiple of 64)" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c2:t1024", "1024 threads" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c2", "no block size" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c02:t128", "a leading zero in C" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c0:t128", "C = 0" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c2:t128x", "trailing text" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8", "1:2:row:2:c2:t128", "a cluster with two factors" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8,8x8,8x8,8x8", "5:6:row:6:c1:t512", "float 8^6 in one block (1 MB)" },
    { "t1 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8,8x8,8x8", "4:5:row:5:c2:t256", "double 8^5 in clusters of 2 (not instantiated)" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c1:t256:p", "float prefetched (double only)" },
    { "t1 xk1 yl1 dp0 pol0 m3 4x4,4x4,4x4,4x4,4x4,4x4,4x4", "6:7:row:7:c1:t512:p", "double 4^7 prefetched in one block (2 x 128 KB)" },
    { "t1 xk1 yl1 dp0 pol0 m3 4x4,4x4,4x4,4x4,4x4,4x4,4x4", "6:7:row:7:c4:t128:p", "a cluster prefetched (one block only)" },
    { "t1 xk1 yl1 dp0 pol0 m3 3x3,3x3,3x3,3x3,3x3", "4:5:row:5:c1:t256:p", "a row of 3^5 doubles prefetched (not whole chunks)" },
    { "t1 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c1:t128:p1", "text after the prefetch" },
    { "t1 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:c1:t128:", "an empty option" },
    { "t1 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8", "2:3:row:3:p", "the prefetch without C and T" },
  };
  ts_refused(bad, sizeof bad / sizeof bad[0]);
  tap_ok(ts_import("t1 xk1 yl1 dp1 pol0 m3 8x8,8x8,8x8", "2:3:row:3"), "and takes it in device pointer mode");
  kronblasForgetWisdom(tc_gpu);
}

/* The tuner times the kernel (its log line) and what it keeps is right. */
static void tuned(void)
{
  static const int64_t p8[] = { 8, 8, 8, 8, 8 };
  tc_case_t c;
  char *b;
  /* racecheck (quick): the tuner launches every candidate, JIT ones
   * included, and the tool's process was killed (signal 9) within it
   * (H100, session 12, twice) */
  if (tc_quick()) {
    tap_skip("the tuner's run of 64_8x8^5 float: not with KRONBLAS_TEST_QUICK (sanitizer runs)");
    return;
  }
  tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 64, 5, p8, p8);
  c.tune = 1;
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "K=32768 row -6") != NULL, "the tuner times the whole-row kernel (64_8x8^5 float)");
  tap_ok(b != NULL && strstr(b, " c1:t512: ") != NULL && strstr(b, " c8:t128: ") != NULL,
         "  ... and its variants (one 512-thread block, clusters of eight 128-thread blocks)");
  /* the geometry's own choice is two 256-thread blocks: c1:t256 is one
   * block (a distinct candidate), not that cluster again */
  tap_ok(b != NULL && strstr(b, " c1:t256: ") != NULL, "  ... and one 256-thread block");
  free(b);
  kronblasForgetWisdom(tc_gpu);
  /* double: the prefetching variants too */
  tc_case_init(&c, KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 64, 4, p8, p8);
  c.tune = 1;
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, " c1:t256:p: ") != NULL && strstr(b, " c1:t128:p: ") != NULL,
         "the tuner times the whole-row kernel with the next vector prefetched (64_8x8^4 double)");
  free(b);
  kronblasForgetWisdom(tc_gpu);
}

int main(void)
{
  ts_setup("t-cuda-row");
  forced();
  variants();
  prefetch();
  special();
  bad_words();
  tuned();
  ts_teardown();
  return tap_done();
}
