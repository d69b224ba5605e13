/* t-cuda-gemm.c - the slice-GEMM kernel (kernels/cuda/gemm.cu: one float
 * 64x64 or 128x128 factor as a register-tiled GEMM per vector over a
 * resident grid; its fused kernels: two 16x16 factors, three 8x8, three
 * 16x16, four 8x8; the last two also with their outputs stored by the
 * TMA, ":tma") against the CPU backend: each instantiation forced
 * through wisdom files ("gemm:..." words) as the first step (reading X),
 * a middle one and the last (writing Y with alpha and beta, beta = 0 over
 * a NaN Y), rows of X or Y aligned to 16 bytes or not (4-byte accesses), both
 * factor layouts, strided batches with per-entry factors, more tiles than
 * resident blocks; the TMA entries launched their TMA kernels where they
 * can store by TMA and their plain twins where not (counted by gemm.cu);
 * the words that cannot be one are refused on import; the tuner times the
 * kernel.  Linked statically (an internal function).  SKIPs without a
 * CUDA device. */
#include "t-cuda-util.c"
#include "t-cuda-force.c"
#include "kb_cuda_kernels.h"

#define W64A "gemm:p64:q64:ts128:tk32:st4:mb2"
#define W64B "gemm:p64:q64:ts64:tk32:st4:mb3"
#define W128A "gemm:p128:q128:ts128:tk32:st3:mb1"
#define W128B "gemm:p128:q128:ts64:tk32:st4:mb2"
#define W64K3 "gemm:p64:q64:ts128:tk32:st2:mb3:kt"
#define W64K3W "gemm:p64:q64:ts128:tk32:st2:mb3:kt:w84"
#define W64K6 "gemm:p64:q64:ts64:tk32:st2:mb6:kt"
#define W128K "gemm:p128:q128:ts128:tk32:st2:mb2:kt"
#define W128K64 "gemm:p128:q128:ts64:tk32:st2:mb2:kt"
#define W64U16 "gemm:p64:q64:ts128:tk32:st2:mb3:kt:u16"
#define WPA "gemm:p16:q16:ts64:tk16:st2:mb1:f2"
#define WPB "gemm:p16:q16:ts32:tk16:st3:mb2:f2"
#define WPC "gemm:p16:q16:ts32:tk16:st2:mb3:f2"
#define WT "gemm:p8:q8:ts32:tk8:st2:mb1:f3"
#define WT3 "gemm:p8:q8:ts32:tk8:st3:mb1:f3"
#define WT16 "gemm:p16:q16:ts8:tk16:st2:mb1:f3"
#define WQ8 "gemm:p8:q8:ts8:tk8:st2:mb1:f4"
#define WQ8T "gemm:p8:q8:ts8:tk8:st2:mb1:f4:tma"
#define WT16T "gemm:p16:q16:ts8:tk16:st2:mb1:f3:tma"

/* Shapes whose 64x64 (128x128) factors see S = K/P a multiple of 128:
 * the first step S = 2*64 (3*128), the last after a 2x4 (3x2) factor. */
static const int64_t pA[] = { 64, 2, 64 }, qA[] = { 64, 4, 64 };
static const int64_t pB[] = { 3, 128, 128 }, qB[] = { 2, 128, 128 };
static const int64_t pC[] = { 128, 3, 128 }, qC[] = { 128, 2, 128 };
/* The pair kernel's (two fused 16x16 factors, tiles of 32 or 64 slabs of
 * 256): K = 2^16, or 3 * 2^16 then 2^17 around a 3x2 factor. */
static const int64_t pD[] = { 16, 16, 16, 16 };
/* The trip8 kernel's (three fused 8x8 factors, tiles of 32 slabs of 512):
 * K = 2^15, or 3 * 2^18 then 2^19 around a 3x2 factor. */
static const int64_t pG[] = { 8, 8, 8, 8, 8 };
static const int64_t pH[] = { 8, 8, 8, 3, 8, 8, 8 }, qH[] = { 8, 8, 8, 2, 8, 8, 8 };
static const int64_t pE[] = { 16, 16, 3, 16, 16 }, qE[] = { 16, 16, 2, 16, 16 };
/* The slab-4096 kernels' (three fused 16x16, four fused 8x8; tiles of 8
 * slabs, 2^15 elements): pD at K = 2^16, pG at 2^15; around a 3x2 factor
 * K = 3 * 2^16 then 2^17 (16x16), 3 * 2^15 then 2^16 (8x8). */
static const int64_t pI[] = { 16, 3, 16, 16, 16 }, qI[] = { 16, 2, 16, 16, 16 };
static const int64_t pJ[] = { 16, 16, 16, 3, 16 }, qJ[] = { 16, 16, 16, 2, 16 };
static const int64_t pK[] = { 8, 8, 8, 8, 3, 8 }, qK[] = { 8, 8, 8, 8, 2, 8 };
static const int64_t pL[] = { 8, 3, 8, 8, 8, 8 }, qL[] = { 8, 2, 8, 8, 8, 8 };

/* Runs a TMA entry's forced plan (ts_forced) and checks which kernel its
 * launches took (kb_cuda_gemm_tma_counts; both compute the same outputs):
 * the TMA's stores where the step writes rows aligned to 16 bytes with
 * beta = 0 (rep 0, or a first step writing the workspace in reps 1 and
 * 4), the plain twin where the last step writes Y with beta != 0 (rep 1)
 * or off 16 bytes (rep 4); on a device before sm_90 the plain one always.
 * Other reps (random variants, alpha 0 among them) are not checked. */
static void forced_tma(tc_case_t *c, const char *plan, int rep, int has_tma)
{
  const size_t len = strlen(plan);
  const int last = len > 4 && strcmp(plan + len - 4, ":tma") == 0;
  long long t0, p0, t1, p1;
  int want;
  kb_cuda_gemm_tma_counts(&t0, &p0);
  ts_forced(c, plan);
  kb_cuda_gemm_tma_counts(&t1, &p1);
  if (rep != 0 && rep != 1 && rep != 4)
    return;
  want = has_tma && (rep == 0 || !last);
  tap_ok(want ? t1 > t0 && p1 == p0 : t1 == t0 && p1 > p0, "  ... its launches %s (TMA %lld, plain %lld)",
         want ? "stored by TMA" : "took the plain kernel", t1 - t0, p1 - p0);
}

static void forced(void)
{
  static const struct {
    const int64_t *p, *q;
    const char *plan;
    int64_t maxm;
    int n;
  } sh[] = {
    { pA, qA, "2:1:" W64A " 1:1:generic 0:1:" W64A, 9, 3 },
    { pA, qA, "2:1:" W64B " 1:1:generic 0:1:" W64B, 9, 3 },
    { pA, qA, "2:1:" W64A " 1:1:generic 0:1:" W64B, 40, 3 },
    { pB, qB, "2:1:" W128A " 1:1:" W128A " 0:1:generic", 3, 3 },
    { pB, qB, "2:1:" W128B " 1:1:" W128B " 0:1:generic", 3, 3 },
    { pC, qC, "2:1:" W128A " 1:1:generic 0:1:" W128B, 5, 3 },
    { pA, qA, "2:1:" W64K3 " 1:1:generic 0:1:" W64K3, 40, 3 },
    { pA, qA, "2:1:" W64A " 1:1:generic 0:1:" W64K3, 9, 3 },
    { pA, qA, "2:1:" W64K3W " 1:1:generic 0:1:" W64K6, 40, 3 },
    { pB, qB, "2:1:" W128K " 1:1:" W128K64 " 0:1:generic", 3, 3 },
    { pC, qC, "2:1:" W128K64 " 1:1:generic 0:1:" W128K, 5, 3 },
    { pA, qA, "2:1:" W64U16 " 1:1:generic 0:1:" W64U16, 40, 3 },
    { pA, qA, "2:1:" W64U16 " 1:1:generic 0:1:" W64K3, 40, 3 },
    /* m up to 70: more tiles (70 * 2^16 / 8192 = 560) than the resident
     * blocks of tiles of 32 (264 or 396) */
    { pD, pD, "3:2:" WPA " 1:2:" WPB, 70, 4 },
    { pD, pD, "3:2:" WPC " 1:2:" WPA, 70, 4 },
    { pE, qE, "4:2:" WPB " 2:1:generic 1:2:" WPC, 5, 5 },
    { pE, qE, "4:2:" WPA " 2:1:generic 1:1:generic 0:1:generic", 5, 5 },
    /* m up to 80: more tiles (2m) than resident blocks (132) */
    { pG, pG, "4:3:" WT " 1:1:generic 0:1:generic", 80, 5 },
    { pG, pG, "4:1:generic 3:1:generic 2:3:" WT, 80, 5 },
    { pH, qH, "6:3:" WT " 3:1:generic 2:3:" WT, 5, 7 },
    { pG, pG, "4:3:" WT3 " 1:1:generic 0:1:generic", 80, 5 },
    { pH, qH, "6:3:" WT3 " 3:1:generic 2:3:" WT3, 5, 7 },
    /* m up to 70 (150): 2m (m) tiles of 8 slabs, past the 132 resident
     * blocks for m > 66 (132) */
    { pD, pD, "3:3:" WT16 " 0:1:generic", 70, 4 },
    { pD, pD, "3:1:generic 2:3:" WT16, 70, 4 },
    { pI, qI, "4:3:" WT16 " 1:1:generic 0:1:generic", 5, 5 },
    { pJ, qJ, "4:1:generic 3:1:generic 2:3:" WT16, 5, 5 },
    { pG, pG, "4:4:" WQ8 " 0:1:generic", 150, 5 },
    { pG, pG, "4:1:generic 3:4:" WQ8, 150, 5 },
    { pK, qK, "5:1:generic 4:1:generic 3:4:" WQ8, 5, 6 },
    { pL, qL, "5:4:" WQ8 " 1:1:generic 0:1:generic", 5, 6 },
    /* the TMA entries (rep 0: rows aligned and beta = 0, the TMA stores
     * where the step writes Y; rep 4, Y off 16 bytes, and beta != 0: the
     * plain kernel their launchers take instead; a middle step writes
     * the aligned workspace, the TMA stores every rep) */
    { pG, pG, "4:4:" WQ8T " 0:1:generic", 150, 5 },
    { pG, pG, "4:1:generic 3:4:" WQ8T, 150, 5 },
    { pK, qK, "5:1:generic 4:1:generic 3:4:" WQ8T, 5, 6 },
    { pL, qL, "5:4:" WQ8T " 1:1:generic 0:1:generic", 5, 6 },
    { pD, pD, "3:3:" WT16T " 0:1:generic", 70, 4 },
    { pD, pD, "3:1:generic 2:3:" WT16T, 70, 4 },
    { pI, qI, "4:3:" WT16T " 1:1:generic 0:1:generic", 5, 5 },
    { pJ, qJ, "4:1:generic 3:1:generic 2:3:" WT16T, 5, 5 },
  };
  size_t s;
  int rep, dev = 0, major = 0, has_tma;
  has_tma = cudaGetDevice(&dev) == cudaSuccess &&
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major >= 9;
  for (s = 0; s < sizeof sh / sizeof sh[0]; s++)
    for (rep = 0; rep < 5; rep++) {
      tc_case_t c;
      /* LEFT with X not transposed: X and Y contiguous along K/L */
      tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, (int)tc_range(0, 1),
                   tc_range(1, sh[s].maxm), sh[s].n, sh[s].p, sh[s].q);
      if (rep == 0) {
        c.ldx = tc_K(&c);   /* rows aligned: 16-byte copies */
        c.ldy = tc_L(&c);   /* and Y's (its random pad put them off 16 bytes in two cases of three) */
        tc_beta_zero(&c);
      } else if (rep == 1) {
        c.ldx = tc_K(&c) + 1;   /* rows of X off 16 bytes: 4-byte copies */
        c.m = 2 + c.m % 4;
      } else if (rep == 4) {
        /* X aligned, rows of Y off 16 bytes: the k-major kernel's 4-byte
         * stores where the last step writes Y */
        c.ldx = tc_K(&c);
        c.ldy = tc_L(&c) + 1;
        c.m = 2 + c.m % 4;
      } else if (rep == 2) {
        c.variant = TC_SB;   /* strided batches, factors per entry or shared */
        tc_case_batch(&c, 3);
      } else {
        c.variant = (int)tc_range(0, 3);
      }
      if (strstr(sh[s].plan, ":tma") != NULL)
        forced_tma(&c, sh[s].plan, rep, has_tma);
      else
        ts_forced(&c, sh[s].plan);
    }
}

static void bad_words(void)
{
  static const ts_bad_t bad[] = {
    { "t1 xk1 yl1 dp0 pol0 m3 64x64,2x4,64x64", "2:1:" W64A " 1:1:generic 0:1:generic", "double" },
    { "t2 xk1 yl1 dp0 pol0 m3 64x64,2x4,64x64", "2:1:" W64A " 1:1:generic 0:1:generic", "complex" },
    { "t0 xk0 yl1 dp0 pol0 m3 64x64,2x4,64x64", "2:1:" W64A " 1:1:generic 0:1:generic", "X along m" },
    { "t0 xk1 yl0 dp0 pol0 m3 64x64,2x4,64x64", "2:1:generic 1:1:generic 0:1:" W64A, "Y along m" },
    { "t0 xk1 yl1 dp1 pol0 m3 64x64,2x4,64x64", "2:1:" W64A " 1:1:generic 0:1:generic", "device pointer mode" },
    { "t0 xk1 yl1 dp0 pol2 m3 64x64,2x4,64x64", "2:1:" W64A " 1:1:generic 0:1:generic", "GENERIC policy" },
    { "t0 xk1 yl1 dp0 pol3 m3 64x64,2x4,64x64", "2:1:" W64A " 1:1:generic 0:1:generic", "CUBLAS policy" },
    { "t0 xk1 yl1 dp0 pol0 m3 64x64,2x4,64x64", "2:1:" W128A " 1:1:generic 0:1:generic", "a 128 word on 64x64" },
    { "t0 xk1 yl1 dp0 pol0 m3 64x64,64x64", "1:1:" W64A " 0:1:generic", "64 slices, tiles of 128" },
    { "t0 xk1 yl1 dp0 pol0 m3 64x64,64x64,64x64", "2:2:" W64A " 0:1:generic", "two factors in one step" },
    { "t0 xk1 yl1 dp0 pol0 m3 64x64,2x4,64x64", "2:1:gemm:p64:q64:ts128:tk32:st9:mb2 1:1:generic 0:1:generic",
      "no such instantiation" },
    { "t0 xk1 yl1 dp0 pol0 m3 16x16,16x16,16x16,16x16", "3:1:" WPA " 2:1:generic 1:1:generic 0:1:generic",
      "a pair word on one factor" },
    { "t0 xk1 yl1 dp0 pol0 m3 16x16,16x16,3x2,16x16,16x16", "4:1:generic 3:1:generic 2:2:" WPA " 0:1:generic",
      "a pair word on 3x2 and 16x16" },
    { "t0 xk1 yl1 dp0 pol1 m3 16x16,16x16,16x16,16x16", "3:2:" WPA " 1:1:generic 0:1:generic",
      "a pair word under NO_FUSION" },
    { "t0 xk1 yl1 dp0 pol0 m3 16x16,16x16,16x16", "2:2:" WPA " 0:1:generic", "a pair word at K = 4096" },
    { "t0 xk1 yl1 dp0 pol0 m3 16x16,16x16,16x16", "2:3:" WT16, "a trip16 word at K = 4096" },
    { "t0 xk1 yl1 dp0 pol1 m3 8x8,8x8,8x8,8x8,8x8", "4:4:" WQ8 " 0:1:generic", "a quad8 word under NO_FUSION" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8,8x8,8x8", "4:3:" WQ8 " 1:1:generic 0:1:generic",
      "a quad8 word on three factors" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,3x2,8x8,8x8,8x8", "5:4:" WQ8 " 1:1:generic 0:1:generic",
      "a quad8 word on 3x2 and 8x8" },
  };
  ts_refused(bad, sizeof bad / sizeof bad[0]);
  tap_ok(ts_import("t0 xk1 yl1 dp0 pol1 m3 64x64,2x4,64x64", "2:1:" W64A " 1:1:generic 0:1:" W64B),
         "import takes it under NO_FUSION");
  kronblasForgetWisdom(tc_gpu);
}

/* Whether the tuner, tuning float m x p[0..nf-1] (LEFT, N), names every
 * one of words (NULL-terminated) in its log; what it keeps is checked by
 * tc_run.  Its wisdom forgotten after. */
static int tuner_times(int64_t m, int nf, const int64_t *p, const int64_t *q, const char *const *words)
{
  tc_case_t c;
  char *b;
  int ok;
  tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m, nf, p, q);
  c.tune = 1;
  b = ts_run_log(&c);
  ok = b != NULL;
  for (; ok && *words != NULL; words++)
    ok = strstr(b, *words) != NULL;
  free(b);
  kronblasForgetWisdom(tc_gpu);
  return ok;
}

/* The tuner times the instantiations that fit (its log lines). */
static void tuned(void)
{
  static const char *const w64[] = { " gemm -16 ", " gemm -17 ", W64A, NULL };
  static const char *const wpair[] = { WPA, WPB, WPC, NULL };
  static const char *const wtrip[] = { WT, WT3, WQ8, WQ8T, NULL };
  static const char *const wt16[] = { WPA, WT16, WT16T, NULL };
  tap_ok(tuner_times(4, 3, pA, qA, w64), "the tuner times both 64x64 instantiations (4_64x64,2x4,64x64 float)");
  tap_ok(tuner_times(5, 4, pD, pD, wpair), "the tuner times the pair kernel's instantiations (5_16x16^4 float)");
  tap_ok(tuner_times(5, 5, pG, pG, wtrip),
         "the tuner times the trip8 and quad8 kernels' instantiations (5_8x8^5 float)");
  tap_ok(tuner_times(5, 4, pD, pD, wt16), "the tuner times the pair and trip16 kernels (5_16x16^4 float)");
}

int main(void)
{
  ts_setup("t-cuda-gemm");
  forced();
  bad_words();
  tuned();
  ts_teardown();
  return tap_done();
}
