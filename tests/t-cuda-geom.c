/* t-cuda-geom.c - the whole-row kernel's launch geometry
 * (kb_cuda_row_geom, kernels/cuda/row.cu) as the planner sees it, with or
 * without a GPU (CI has none: the library then assumes an H100's 132 SMs
 * and 227 KB of shared memory a block, kb_cuda_dev_props_assume, and no
 * clusters): which steps prefetch the next vector by default, the
 * variants' kernel numbers, and a one-block request kept one block; on a
 * GPU with clusters, the model's plan of float 16x16^4 (one row over
 * clusters, KB_ROW_CL16_F); with or without, the model's plan of the
 * seed's 50_32x8,64x128 (one whole-vector launch); the slice-GEMM table's
 * words and the model's plans on an H200's rates (the TMA entries for
 * 16_8x8^8 and 1024_16x16^5); on a GPU, when the TMA entries' tensor maps
 * are made.  Statically linked for the internal functions. */
#include "tap.h"
#include "cuda_internal.h"
#include "kb_cuda_kernels.h"
#include "kb_testproblem.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

/* The geometry of m vectors of (P x P)^n, type 0 float / 1 double; kern 0:
 * the default; -1 where there is none. */
static int geom(int kern, int type, int64_t m, int64_t P, int n, kb_cuda_row_geom_t *g)
{
  int64_t p[KB_CUDA_MAXF], K = 1;
  int i;
  for (i = 0; i < n; i++) {
    p[i] = P;
    K *= P;
  }
  return kern == 0 ? kb_cuda_row_geom(type, m, 1, K, n, p, p, g) : kb_cuda_row_geom_k(kern, type, m, 1, K, n, p, p, g);
}

enum { WANT_REFUSED, WANT_NO_PF, WANT_PF, WANT_NO_PF_IF_ANY };
typedef struct {
  int C, T, pf;       /* the variant asked for; pf -1: the plain kernel (the geometry's choice) */
  int type;           /* 0 float, 1 double */
  int64_t m, P;
  int n;
  int want, wantC, wantT;   /* wantC, wantT 0: not checked */
  const char *what;
} geom_case_t;

static const geom_case_t cases[] = {
  /* the default prefetch: double rows of one block whose two buffers leave
   * three blocks an SM, with vectors for two a resident block */
  { 0, 0, -1, 1, 1024, 8, 4, WANT_PF, 1, 0, "double 1024_8x8^4: one block, two row buffers, the next vector prefetched" },
  { 0, 0, -1, 0, 1024, 8, 4, WANT_NO_PF, 1, 0, "float 1024_8x8^4: no prefetch (measured even)" },
  { 0, 0, -1, 1, 300, 8, 4, WANT_NO_PF, 1, 0, "double 300_8x8^4: no prefetch (vectors for one a block)" },
  { 0, 0, -1, 1, 1024, 3, 7, WANT_NO_PF, 0, 0, "double 1024_3x3^7: no prefetch (a row of 2187: not whole chunks)" },
  { 0, 0, -1, 1, 1024, 6, 5, WANT_NO_PF, 1, 0, "double 1024_6x6^5: no prefetch (two buffers of 61 KB)" },
  { 0, 0, -1, 1, 1024, 8, 5, WANT_NO_PF_IF_ANY, 0, 0, "double 1024_8x8^5: no prefetch (clusters of 64 KB shares)" },
  { 0, 0, -1, 0, 1024, 16, 4, WANT_NO_PF_IF_ANY, 0, 0, "float 1024_16x16^4: no prefetch" },
  /* the tuner's variants */
  { 1, 256, 1, 1, 1024, 8, 4, WANT_PF, 1, 256, "double 1024_8x8^4 c1:t256:p: prefetched on request" },
  { 1, 256, 0, 1, 1024, 8, 4, WANT_NO_PF, 1, 256, "double 1024_8x8^4 c1:t256: not prefetched on request" },
  { 1, 128, 1, 1, 1024, 4, 6, WANT_PF, 1, 128, "double 1024_4x4^6 c1:t128:p: one block, prefetched" },
  { 1, 256, 1, 0, 1024, 8, 4, WANT_REFUSED, 0, 0, "float 1024_8x8^4 c1:t256:p refused (the prefetching kernel is double only)" },
  { 4, 128, 1, 1, 1024, 4, 7, WANT_REFUSED, 0, 0, "double 1024_4x4^7 c4:t128:p refused (one block a vector only)" },
  { 1, 512, 1, 1, 64, 4, 7, WANT_REFUSED, 0, 0, "double 4^7 c1:t512:p refused (two 128 KB buffers)" },
  { 1, 256, 1, 1, 64, 3, 5, WANT_REFUSED, 0, 0, "double 3^5 c1:t256:p refused (a row of 243: not whole chunks)" },
  /* float 4^7 (64 KB) takes clusters of two by choice where the device
   * has clusters; c1 is one block either way */
  { 1, 512, 0, 0, 1024, 4, 7, WANT_NO_PF, 1, 512, "float 1024_4x4^7 c1:t512: one block" },
};

/* The model's plan of float m_16x16^4 (LEFT, N: X and Y along K and L):
 * one whole-row step over clusters (H100, session 22: m = 100 0.059 ms
 * against the two passes' 0.089, even at m = 256 .. 2048), or from 2^24
 * elements on the pair kernel's two steps (below).  Only where the device
 * has clusters (a GPU): without one the row has no geometry. */
static void plan_16x16(int64_t m)
{
  int64_t p[4] = { 16, 16, 16, 16 }, fs_l[4] = { 1, 1, 1, 1 }, fs_k[4] = { 16, 16, 16, 16 }, n;
  kb_cuda_pstep_t steps[4];
  kb_cuda_row_geom_t g;
  kb_problem_t pb;
  if (kb_cuda_row_geom(0, m, 1, 65536, 4, p, p, &g) != 0 || g.cluster < 2) {
    tap_skip("float %lld_16x16^4: the row over clusters needs a GPU with clusters", (long long)m);
    return;
  }
  kb_t_square_pb(KRONBLAS_R_32F, m, 4, p, &pb);
  pb.batch = 1;
  pb.fs_l = fs_l;
  pb.fs_k = fs_k;
  n = kb_cuda_plan(&pb, KRONBLAS_KERNELS_ALL, g.nsm, steps);
  if (m < 256) {
    tap_ok(n == 1 && kb_cuda_kernel_is_row(steps[0].kernel) && steps[0].nf == 4,
           "float %lld_16x16^4: the model's plan is one row over clusters of %d (%lld steps, first kernel %d)",
           (long long)m, g.cluster, (long long)n, n > 0 ? steps[0].kernel : 0);
    return;
  }
  /* From 2^24 elements on, the slice-GEMM kernel's pair kernel twice where
   * its FMAs set its price (H200, session 37: m = 1024 0.3075 ms against
   * 0.3277 for the row over clusters); where its bytes do (an H100's
   * bandwidth) it ties the fast kernel's pairs, and the row stays. */
  tap_ok((n == 2 && kb_cuda_kernel_is_gemm(steps[0].kernel) && steps[0].nf == 2 &&
          kb_cuda_kernel_is_gemm(steps[1].kernel) && steps[1].nf == 2) ||
             (n == 1 && kb_cuda_kernel_is_row(steps[0].kernel) && steps[0].nf == 4),
         "float %lld_16x16^4: the model's plan is the pair kernel twice or one row over clusters of %d (%lld steps, "
         "first kernel %d)",
         (long long)m, g.cluster, (long long)n, n > 0 ? steps[0].kernel : 0);
}

/* The model's plan of 50_32x8,64x128 (the seed's real-world row; LEFT, N):
 * one launch of the whole-vector kernel for both factors, float and double.
 * Double took two cuBLAS steps while the model priced them at 8 us each;
 * the tuner's isolated ones take ~11 (H100, session 24: the fused launch
 * 0.0182 ms a call against 0.0240, KB_CUBLAS_FIXED_S). */
static void plan_50_32x8_64x128(kronblasDataType_t type, const char *name)
{
  int64_t p[2] = { 32, 64 }, q[2] = { 8, 128 }, fs_l[2] = { 1, 1 }, fs_k[2] = { 8, 128 }, n;
  kb_cuda_pstep_t steps[2];
  kb_problem_t pb;
  kb_t_square_pb(type, 50, 2, p, &pb);
  pb.q = q;
  pb.L = q[0] * q[1];
  pb.ys_m = pb.L;
  pb.batch = 1;
  pb.fs_l = fs_l;
  pb.fs_k = fs_k;
  n = kb_cuda_plan(&pb, KRONBLAS_KERNELS_ALL, 132, steps);
  tap_ok(n == 1 && steps[0].kernel == KB_KERNEL_SMALL && steps[0].nf == 2,
         "%s 50_32x8,64x128: the model's plan is one whole-vector launch (%lld steps, first kernel %d)", name,
         (long long)n, n > 0 ? steps[0].kernel : 0);
}

/* The model's plan (kb_cuda_plan, 132 SMs, policy ALL) of m rows of n
 * square P x P factors of the type (LEFT, N); steps has room for n. */
static int64_t square_plan(kronblasDataType_t type, int64_t m, int n, int64_t P, kb_cuda_pstep_t *steps)
{
  int64_t p[8], fs_l[8], fs_k[8];
  kb_problem_t pb;
  int i;
  for (i = 0; i < n && i < 8; i++) {
    p[i] = P;
    fs_l[i] = 1;
    fs_k[i] = P;
  }
  kb_t_square_pb(type, m, n, p, &pb);
  pb.batch = 1;
  pb.fs_l = fs_l;
  pb.fs_k = fs_k;
  return kb_cuda_plan(&pb, KRONBLAS_KERNELS_ALL, 132, steps);
}

/* The model's plan of float 1024_8x8^6 (LEFT, N): its fused fast steps on
 * blocks of at most 256 threads, or on blocks that share their SM.  A
 * 512-thread block alone on its SM ran the 2^28-element passes 12-15%
 * slower than two 256-thread blocks an SM, which the model priced alike
 * and took first (H200, session 31: 1.48 against 1.30 ms; lib/
 * cuda_plan.c, KB_ALONE_BIG).  Without a GPU (CI) the plan is two fused
 * fast steps; on a GPU with clusters the model may take the row over
 * clusters instead (one step, no fast configuration).  Occupancies are the
 * estimates of an H100-class SM here (no kernel is loaded), as the
 * planner ranks JIT configurations before they are.  On an H200 the model
 * takes the trip8 kernel's three fused factors (512 threads alone on its
 * SM, measured 8% faster than the fast launch; session 38). */
static void plan_8x8_6(void)
{
  int64_t p[6] = { 8, 8, 8, 8, 8, 8 }, n, i;
  kb_cuda_pstep_t steps[6];
  const kb_cuda_fast_cfg_t *cfg;
  int ncfg, fused = 0, row = 0, trip = 0, big_alone = 0, big_cfg = 0;
  kb_cuda_row_geom_t g;
  const int clusters = kb_cuda_row_geom(0, 1024, 1, 262144, 6, p, p, &g) == 0;
  n = square_plan(KRONBLAS_R_32F, 1024, 6, 8, steps);
  cfg = kb_cuda_fast_cfgs(&ncfg);
  for (i = 0; i < ncfg; i++)
    big_cfg += cfg[i].type == 0 && cfg[i].P == 8 && cfg[i].F > 1 && cfg[i].threads > 256 && cfg[i].occupancy == 1;
  for (i = 0; i < n; i++) {
    row += kb_cuda_kernel_is_row(steps[i].kernel);
    trip += kb_cuda_kernel_is_gemm(steps[i].kernel) && steps[i].nf == 3;
    if (steps[i].kernel >= 0 && steps[i].kernel < ncfg && steps[i].nf > 1) {
      fused++;
      big_alone += cfg[steps[i].kernel].threads > 256 && cfg[steps[i].kernel].occupancy == 1;
    }
  }
  tap_ok(big_cfg > 0, "float P = 8: a fused configuration of more than 256 threads, alone on its SM, is a candidate");
  tap_ok(big_alone == 0 && (clusters ? n >= 1 && fused + row + trip == n : n >= 2 && fused + trip == n),
         "float 1024_8x8^6: the model's %lld steps (%d fused, %d rows over clusters, %d on the trip8 kernel, alone "
         "on its SM but measured faster) run fast blocks that share their SM (%d alone)",
         (long long)n, fused, row, trip, big_alone);
}

/* Float P x P ^ n at m: how many of the model's steps are the slice-GEMM
 * kernel's with F factors, and (*nsteps) how many steps; with stages > 0,
 * only its entries of that many stages. */
static int gemm_f_steps(int64_t m, int n, int64_t P, int F, int stages, int64_t *nsteps)
{
  kb_cuda_pstep_t steps[8];
  const int64_t ns = square_plan(KRONBLAS_R_32F, m, n, P, steps);
  int64_t i;
  int k = 0;
  for (i = 0; i < ns; i++)
    k += kb_cuda_kernel_is_gemm(steps[i].kernel) && steps[i].nf == F &&
         (stages == 0 || kb_cuda_gemm_info(KB_KERNEL_GEMM_0 - steps[i].kernel)->stages == stages);
  *nsteps = ns;
  return k;
}

/* Of float P x P ^ n at m, the model's steps on TMA entries (":tma"). */
static int gemm_tma_steps(int64_t m, int n, int64_t P)
{
  kb_cuda_pstep_t steps[8];
  const int64_t ns = square_plan(KRONBLAS_R_32F, m, n, P, steps);
  int64_t i;
  int k = 0;
  for (i = 0; i < ns; i++)
    k += kb_cuda_kernel_is_gemm(steps[i].kernel) && kb_cuda_gemm_info(KB_KERNEL_GEMM_0 - steps[i].kernel)->tma;
  return k;
}

/* The model's plans on rates given for a device (kb_cuda_model_rates).  On
 * an H200's (4.18e12 B/s, an H100's FMA rate) they are what sessions 38
 * to 40's H200 planned and measured fastest: float 1024_8x8^6 in two
 * trip8 launches of three stages, 16_16x16^6 in three pair launches,
 * 1024_16x16^5 in one trip16 launch and one pair launch (session 40: 6.38
 * ms against 7.12 for a pair, a pair and a lone factor).  On
 * an H100's (2.85e12) the bytes price those kernels and the fast kernel's
 * fused launches alike, and the model keeps the fast ones (neither kernel
 * measured on an H100). */
static void plan_rates(void)
{
  int64_t n8, n16, n5;
  int t8, p16, t16, p5, q8;
  kb_cuda_model_rates(4.18e12, 1.0);
  t8 = gemm_f_steps(1024, 6, 8, 3, 3, &n8);
  p16 = gemm_f_steps(16, 6, 16, 2, 0, &n16);
  tap_ok(t8 == 2 && n8 == 2 && p16 == 3 && n16 == 3,
         "an H200's rates: float 1024_8x8^6 on the trip8 kernel's three stages (%d of %lld steps), 16_16x16^6 on "
         "the pair kernel (%d of %lld)",
         t8, (long long)n8, p16, (long long)n16);
  t16 = gemm_f_steps(1024, 5, 16, 3, 0, &n5);
  p5 = gemm_f_steps(1024, 5, 16, 2, 0, &n5);
  tap_ok(t16 == 1 && p5 == 1 && n5 == 2 && gemm_tma_steps(1024, 5, 16) == 1,
         "an H200's rates: float 1024_16x16^5 on the trip16 kernel's TMA entry (%d step) and the pair kernel (%d) "
         "of %lld", t16, p5, (long long)n5);
  q8 = gemm_f_steps(16, 8, 8, 4, 0, &n5);
  tap_ok(q8 == 2 && n5 == 2 && gemm_tma_steps(16, 8, 8) == 2,
         "an H200's rates: float 16_8x8^8 in two passes of the quad8 kernel's TMA entry (%d of %lld steps)", q8,
         (long long)n5);
  kb_cuda_model_rates(2.85e12, 1.0);
  t8 = gemm_f_steps(1024, 6, 8, 3, 0, &n8);
  p16 = gemm_f_steps(16, 6, 16, 2, 0, &n16);
  tap_ok(t8 == 0 && p16 == 0 && n8 >= 1 && n16 >= 1,
         "an H100's rates: float 1024_8x8^6 and 16_16x16^6 on neither (%d trip8 of %lld steps, %d pair of %lld)", t8,
         (long long)n8, p16, (long long)n16);
  kb_cuda_model_rates(0, 0);
}

/* The TMA entries' tensor maps (kernels/cuda/gemm.cu), on a GPU: made for
 * an output aligned to 16 bytes, rows a multiple of 4 apart, beta = 0;
 * not made (the plain kernels launched instead) off 16 bytes, at an odd
 * row stride, or where beta is not 0.  On a device before sm_90 (no TMA)
 * none is made. */
static void tma_maps(void)
{
  const int64_t K = 65536, m = 3;
  float *y = NULL;
  int n = 0, dev = 0, major = 0, q8[5], t16[5], ok;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1 || cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaMalloc((void **)&y, (size_t)(m * K + 8) * 4) != cudaSuccess) {
    (void)cudaGetLastError();
    tap_skip("no CUDA device: the TMA entries' tensor maps");
    return;
  }
  if (major < 9) {
    kb_cuda_gemm_tma_maps(y, m, K, K, 1, &q8[0], &t16[0]);
    tap_ok(q8[0] + t16[0] == 0, "sm_%d (no TMA): no tensor map made for aligned rows and beta = 0 (quad8 %d, trip16 %d)",
           major, q8[0], t16[0]);
    cudaFree(y);
    return;
  }
  kb_cuda_gemm_tma_maps(y, m, K, K, 1, &q8[0], &t16[0]);
  kb_cuda_gemm_tma_maps(y, m, K, K + 4, 1, &q8[1], &t16[1]);
  kb_cuda_gemm_tma_maps(y + 1, m, K, K, 1, &q8[2], &t16[2]);
  kb_cuda_gemm_tma_maps(y, m, K, K + 1, 1, &q8[3], &t16[3]);
  kb_cuda_gemm_tma_maps(y, m, K, K, 0, &q8[4], &t16[4]);
  ok = q8[0] == 1 && t16[0] >= 1 && q8[1] == 1 && t16[1] >= 1 && q8[2] + t16[2] + q8[3] + t16[3] + q8[4] + t16[4] == 0;
  tap_ok(ok, "the TMA entries' tensor maps: made for aligned rows and beta = 0 (quad8 %d %d, trip16's form %d %d), "
         "not off 16 bytes (%d %d), at a row stride of K + 1 (%d %d) or with beta (%d %d)", q8[0], q8[1], t16[0], t16[1],
         q8[2], t16[2], q8[3], t16[3], q8[4], t16[4]);
  cudaFree(y);
}

/* The slice-GEMM table's words name its entries one to one (wisdom files
 * name kernels by them), and its fused entries (":fF": the pair kernel's
 * two 16x16 float factors, the trip8 kernel's three 8x8, the trip16
 * kernel's three 16x16, the quad8 kernel's four 8x8) fit vectors of whole
 * tiles of TS slabs of P^F up to 2^31 - 1 elements (their 32-bit
 * offsets), and only their own P x P, float. */
static void gemm_words(void)
{
  int i, n = kb_cuda_gemm_count(), words = 1, fused[5][17] = { { 0 } }, fits = 1;
  char w[96], f[8];
  for (i = 0; i < n; i++) {
    const kb_cuda_gemm_info_t *g = kb_cuda_gemm_info(i);
    snprintf(f, sizeof f, ":f%d", g->F);
    words = words && kb_cuda_gemm_word(i, w, (int)sizeof w) > 0 && kb_cuda_gemm_parse(w) == i &&
            (strstr(w, ":f") != NULL) == (g->F > 1) && (g->F == 1 || strstr(w, f) != NULL);
    if (g->F > 1 && g->F <= 4 && (g->P == 8 || g->P == 16)) {
      /* whole tiles of TS slabs of P^F, below 2^31 elements, float P x P only */
      const int64_t slab = g->P == 8 ? (int64_t)1 << (3 * g->F) : (int64_t)1 << (4 * g->F);
      const int other = g->P == 8 ? 16 : 8;
      fused[g->F][g->P]++;
      fits = fits && kb_cuda_gemm_find(0, g->P, g->P, slab * g->TS, i) == 0 &&
             kb_cuda_gemm_find(0, g->P, g->P, 3 * slab * g->TS, i) == 0 &&
             kb_cuda_gemm_find(0, g->P, g->P, slab * g->TS / 2, i) != 0 &&
             kb_cuda_gemm_find(0, g->P, g->P, (int64_t)1 << 31, i) != 0 &&
             kb_cuda_gemm_find(1, g->P, g->P, slab * g->TS, i) != 0 &&
             kb_cuda_gemm_find(0, g->P, g->P / 2, slab * g->TS, i) != 0 &&
             kb_cuda_gemm_find(0, other, other, slab * g->TS, i) != 0;
    } else if (g->F > 1) {
      fits = 0;   /* a fused entry this test does not know */
    }
  }
  tap_ok(words && n > 0, "the slice-GEMM table's %d words parse back to their entries, \":fF\" on the fused ones'", n);
  tap_ok(fits && fused[2][16] >= 2 && fused[3][8] >= 2 && fused[3][16] >= 1 && fused[4][8] >= 1,
         "the fused entries (pair %d, trip8 %d, trip16 %d, quad8 %d) fit whole tiles of slabs of P^F below 2^31 "
         "elements, float P x P only", fused[2][16], fused[3][8], fused[3][16], fused[4][8]);
}

/* The model's plans of the standard P >= 64 rows and the slice-GEMM
 * kernel (kernels/cuda/gemm.cu): float 1024_64x64^3 and 16_64x64^4 on it,
 * in tiles of 128 slices with the slices k-major (kb_gemm_kt_kernel), every
 * step (H200, session 35: 0.925 ms a factor against 0.954 for the
 * slice-major kernel and cuBLAS' 0.984), its k-loop unrolled by 16
 * (session 36: 0.877); float 1024_128x128^2, 16_128x128^3 and
 * 320_128x128^3 on its 128x128 k-major entry (session 36: 0.1165 ms a
 * factor at m = 1024 against cuBLAS' 0.1205); double 1024_64x64^3 not (it
 * has no double entries). */
static void plan_gemm(kronblasDataType_t type, int64_t m, int nf, int64_t P, int want)
{
  int64_t n, i;
  kb_cuda_pstep_t steps[4];
  int on = 0, on128 = 0, onkt = 0, onu16 = 0;
  char w[96];
  n = square_plan(type, m, nf, P, steps);
  for (i = 0; i < n; i++)
    if (kb_cuda_kernel_is_gemm(steps[i].kernel)) {
      on++;
      if (kb_cuda_gemm_word(KB_KERNEL_GEMM_0 - steps[i].kernel, w, (int)sizeof w) > 0) {
        on128 += strstr(w, ":ts128:") != NULL;
        onkt += strstr(w, ":kt") != NULL;
        onu16 += strstr(w, ":u16") != NULL;
      }
    }
  tap_ok(want ? n == nf && on == nf && on128 == nf && onkt == nf && onu16 == (P == 64 ? nf : 0) : on == 0,
         "%s %lld_%lldx%lld^%d: the model's plan %s the slice-GEMM kernel (%lld steps, %d on it, %d in tiles of "
         "128, %d k-major, %d with the k-loop unrolled by 16)",
         type == KRONBLAS_R_32F ? "float" : "double", (long long)m, (long long)P, (long long)P, nf,
         want ? "runs every step on" : "keeps off", (long long)n, on, on128, onkt, onu16);
}

/* Whether the row kernel's magic numbers (the multiplier plus delta: a
 * planted error) divide n by d as the processor does, for n at the
 * multiples of d around a few places (and at 2^31 - 1) and at random below
 * 2^31. */
static int magic_ok(uint32_t d, int delta, uint64_t *rng)
{
  static const uint32_t at[] = { 0, 1, 1000, 65535, 65536, 1u << 20, 12345678, 1u << 30, 2147483647u };
  uint32_t mul;
  int sh, i, k;
  kb_cuda_row_magic(d, &mul, &sh);
  if (mul != 0)
    mul += (uint32_t)delta;
  for (i = 0; i < (int)(sizeof at / sizeof at[0]); i++)
    for (k = -2; k <= 2; k++) {
      const int64_t base = (int64_t)(at[i] / d) * d + (int64_t)k * d;
      int64_t n;
      for (n = base - 1; n <= base + 1; n++) {
        uint32_t q;
        if (n < 0 || n > 2147483647)
          continue;
        q = mul == 0 ? (uint32_t)n : (uint32_t)(((uint64_t)n * mul) >> 32) >> sh;
        if (q != (uint32_t)n / d)
          return 0;
      }
    }
  for (i = 0; i < 2000; i++) {
    uint32_t n, q;
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    n = (uint32_t)(*rng >> 33);
    q = mul == 0 ? n : (uint32_t)(((uint64_t)n * mul) >> 32) >> sh;
    if (q != n / d)
      return 0;
  }
  return 1;
}

/* The strides P^e of every P up to 64 below 2^31, every divisor up to
 * 4096, and the largest ones. */
static void magic(void)
{
  uint64_t rng = 12345;
  uint32_t d, P;
  int ok = 1, low = 1, high = 1;
  for (P = 2; P <= 64; P++) {
    uint64_t s;
    for (s = 1; s < 2147483648u; s *= P)
      ok = ok && magic_ok((uint32_t)s, 0, &rng);
  }
  for (d = 1; d <= 4096; d++)
    ok = ok && magic_ok(d, 0, &rng);
  for (d = 2147483647u; d > 2147483647u - 64; d--)
    ok = ok && magic_ok(d, 0, &rng);
  tap_ok(ok, "row kernel: magic-number division equals n / d for the strides P^e and other divisors");
  /* planted: multipliers one off must fail the same check */
  for (P = 3; P <= 64; P += 2) {
    uint64_t s;
    for (s = P; s < 2147483648u; s *= P) {
      low = low && magic_ok((uint32_t)s, -1, &rng);
      high = high && magic_ok((uint32_t)s, 1, &rng);
    }
  }
  tap_ok(!low && !high, "row kernel: the check sees multipliers one too small and one too large");
}

int main(void)
{
  kb_cuda_row_geom_t g;
  int k, c, t, pf, ok = 1;
  size_t i;
  kb_cuda_dev_props_assume(132, 232448);

  /* variant numbers: C, T and PF back from every one, none the plain kernel */
  for (pf = 0; pf <= 1; pf++)
    for (c = 1; c <= 8; c++)
      for (t = 64; t <= 512; t += 64) {
        k = kb_cuda_row_var_kernel(c, t, pf);
        ok = ok && kb_cuda_kernel_is_row(k) && k < KB_KERNEL_ROW_VAR && kb_cuda_row_var_C(k) == c &&
             kb_cuda_row_var_T(k) == t && kb_cuda_row_var_PF(k) == pf;
      }
  tap_ok(ok, "row variants: C, T and PF come back from the kernel number");
  tap_ok(kb_cuda_row_var_PF(KB_KERNEL_ROW) < 0 && kb_cuda_row_var_C(KB_KERNEL_ROW) == 0,
         "the plain whole-row kernel leaves the prefetch to the geometry");

  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const geom_case_t *e = &cases[i];
    const int kern = e->pf < 0 ? 0 : kb_cuda_row_var_kernel(e->C, e->T, e->pf);
    const int rc = geom(kern, e->type, e->m, e->P, e->n, &g);
    if (e->want == WANT_REFUSED)
      ok = rc != 0;
    else if (e->want == WANT_NO_PF_IF_ANY)
      ok = rc != 0 || g.pf == 0;
    else {
      /* one row buffer, or two with the prefetch, each the share rounded
       * up to whole 128-byte rows; the factors after them */
      const int64_t esz = e->type ? 8 : 4, chunk = 8 * (16 / esz);
      int64_t K = 1, rb;
      int f;
      for (f = 0; f < e->n; f++)
        K *= e->P;
      rb = rc == 0 ? (K / g.cluster + chunk - 1) / chunk * chunk : 0;
      ok = rc == 0 && g.pf == (e->want == WANT_PF) && (e->wantC == 0 || g.cluster == e->wantC) &&
           (e->wantT == 0 || g.threads == e->wantT) && g.fsm == (g.pf ? 2 : 1) * rb &&
           g.smem == (g.fsm + e->n * e->P * e->P) * esz;
    }
    tap_ok(ok, "%s", e->what);
  }
  magic();
  gemm_words();
  tma_maps();
  plan_16x16(100);
  plan_16x16(1024);
  plan_8x8_6();
  plan_rates();
  plan_50_32x8_64x128(KRONBLAS_R_32F, "float");
  plan_50_32x8_64x128(KRONBLAS_R_64F, "double");
  plan_gemm(KRONBLAS_R_32F, 1024, 3, 64, 1);
  plan_gemm(KRONBLAS_R_32F, 16, 4, 64, 1);
  plan_gemm(KRONBLAS_R_32F, 1024, 2, 128, 1);
  plan_gemm(KRONBLAS_R_32F, 16, 3, 128, 1);
  plan_gemm(KRONBLAS_R_32F, 320, 3, 128, 1);
  plan_gemm(KRONBLAS_R_64F, 1024, 3, 64, 0);
  return tap_done();
}
