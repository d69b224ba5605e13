/* cuda_plan.c - the CUDA backend's planner: which factors each launch
 * applies and with which kernel.
 *
 * Factors are taken last first.  A launch is either one factor on the
 * generic kernel or cuBLAS (lib/cuda_cublas.c), or F consecutive factors
 * of any shapes on the whole-vector kernel (kernels/cuda/small.cu: every
 * intermediate of a vector in shared memory; any type, any input layout),
 * or -- all factors at once, every one P x P with one P, the vector whole in
 * shared memory -- the whole-row kernel (kernels/cuda/row.cu, digits in
 * place), or F consecutive equal
 * square factors on a fast configuration, usable where its input runs along
 * k (X for the first launch when it is contiguous along K; the workspace
 * intermediates always), or -- first launch only -- along m with a block of
 * whole 32-byte sectors of vectors (kb_cuda_cfg_mrows: element-wise loads,
 * priced at KB_BW_MROWS, rows past m padded), and the input length is a
 * multiple of its slab.  The last launch writes Y: where Y runs along m
 * (RIGHT/N), configurations with whole sectors of vectors per block stage
 * their outputs in shared memory and store whole sectors
 * (kb_cuda_cfg_mstore); others store element by element, priced a sector
 * per element.  Among the splits of the
 * factor list into launches, the planner takes the one of least modelled
 * time (dynamic programming over the factor position, which alone fixes the
 * vector length):
 *     max(bytes moved / bandwidth, flops / rate) + launch overhead
 * (the sum where a launch cannot overlap its loads with its multiplies),
 * divided by the fraction of the GPU the launch fills when it has fewer
 * blocks than fit at once (but no more than one block's latency alone).
 * Fusing F factors moves the vectors once instead of F times (seed,
 * Section 4.2); that is what the model mostly decides.  The rates are
 * fitted to an H100's tuner timings and only rank the candidates; the
 * bandwidth of the fast launches and the whole-row kernel and all FMA
 * rates scale with the device's (kb_dev_model).
 * Where X and Y both run along m, the column plan (one cuBLAS GEMM per
 * factor, lib/cuda_cublas.c) is priced too and taken when cheaper; where
 * they run along K/L, natural-order plans whose trailing factors are one
 * fused launch over sub-vectors (kb_cuda_plan_nat_sub) likewise.
 *
 * Shapes the precompiled set does not cover get a few configurations made
 * for their exact (type, P, Q) and input length (kb_jit_candidates), added
 * to the registry and compiled with NVRTC (lib/cuda_jit.c) only once a plan
 * uses them: the model prices them from their tiles and an estimated
 * occupancy, without compiling.  One that cannot be compiled is marked
 * failed and the split is planned again without it, down to the generic
 * kernel.  The measured planner (lib/cuda_tune.c) times them like the
 * others; they are compiled just before their first timing. */
#include "cuda_internal.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KB_BW_COL 2.6e12            /* the column plan's GEMMs (kb_col_cost; fitted on an H200) */
#define KB_BW_ONE_STAGE 0.9e12     /* measured: a whole-vector 8^5 slab, 2026-11-21 */
#define KB_BW_GENERIC 0.4e12
#define KB_BW_MROWS 1.2e12         /* X along m, element-wise cp.async (H200, RIGHT/N 16_16x16^5
                                      float: the first launch 0.095 ms, priced 0.09) */
#define KB_LAUNCH_S 4e-6
#define KB_DRAM_BURST 64.0        /* bytes: HBM's access granule (two 32-byte sectors) */
#define KB_BW_BLOCK 50e9            /* bytes/s one block alone moves: a guess, fitted with KB_STEP_LAT_S */
#define KB_STEP_LAT_S 0.15e-6      /* per factor of a tile: loads' latency, barriers */
/* Share of an SM's FMA rate one block alone reaches (few warps, latency
 * bound): H200, a 64x128 double JIT configuration at m = 50 took 29.6 us
 * where the full SM rate would price it at 7 us. */
#define KB_RATE_BLOCK_FRAC 0.25
#define KB_ALONE_BIG 0.15          /* kb_fast_cost: a block of > 256 threads alone on its SM */

/* The bandwidth the fast kernels reach on the current device, and its FMA
 * rate against an H100's: the model's prices of fast launches and of the
 * whole-row kernel scale with them, so that a device of faster memory
 * (H200) ranks bandwidth-bound launches against compute-bound ones as it
 * runs them (cuBLAS' steps keep an H100's bandwidth: on an H200 they ran
 * within 10% of their H100 times, session 10).  H100, session 10:
 * two-stage fast launches of P <= 16 moved 2.84-2.90 TB/s whatever F,
 * cuBLAS' double 32x32 steps 2.95; the copy ceiling is 2.99 and the peak
 * 3.35 (5120-bit HBM3 at 2.62 GHz).  So 0.85 of the peak the attributes
 * give; their absence gives the H100's. */
#define KB_BW_PEAK_SHARE 0.85
#define KB_BW_H100 2.85e12
#define KB_FMA_H100 (132.0 * 1980e3)   /* SMs x peak clock, kHz */
#define KB_MODEL_DEVS 64
typedef struct {
  double bw;    /* bytes/s of a fast launch */
  double fma;   /* FMA rate against an H100's */
} kb_dev_rates_t;
static double kb_dev_bw[KB_MODEL_DEVS], kb_dev_fma[KB_MODEL_DEVS];
static kb_dev_rates_t kb_dev_given;   /* kb_cuda_model_rates; bw 0: read them */
static pthread_mutex_t kb_dev_lock = PTHREAD_MUTEX_INITIALIZER;

void kb_cuda_model_rates(double bw, double fma)
{
  pthread_mutex_lock(&kb_dev_lock);
  kb_dev_given.bw = bw > 0 && fma > 0 ? bw : 0;
  kb_dev_given.fma = bw > 0 && fma > 0 ? fma : 0;
  pthread_mutex_unlock(&kb_dev_lock);
}

/* The current device's, read once per device and process (or the rates
 * kb_cuda_model_rates gave). */
static kb_dev_rates_t kb_dev_model(void)
{
  kb_dev_rates_t r = { KB_BW_H100, 1.0 };
  int dev = 0, mclk = 0, bus = 0, nsm = 0, clk = 0, given;
  pthread_mutex_lock(&kb_dev_lock);
  given = kb_dev_given.bw > 0;
  if (given)
    r = kb_dev_given;
  pthread_mutex_unlock(&kb_dev_lock);
  if (given)
    return r;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= KB_MODEL_DEVS) {
    (void)cudaGetLastError();
    return r;
  }
  pthread_mutex_lock(&kb_dev_lock);
  if (kb_dev_bw[dev] == 0) {
    kb_dev_bw[dev] = KB_BW_H100;
    kb_dev_fma[dev] = 1.0;
    if (cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess && mclk > 0 && bus > 0)
      kb_dev_bw[dev] = KB_BW_PEAK_SHARE * 2.0 * (double)mclk * 1e3 * (double)bus / 8.0;
    if (cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev) == cudaSuccess && nsm > 0 && clk > 0)
      kb_dev_fma[dev] = (double)nsm * (double)clk / KB_FMA_H100;
    (void)cudaGetLastError();
  }
  r.bw = kb_dev_bw[dev];
  r.fma = kb_dev_fma[dev];
  pthread_mutex_unlock(&kb_dev_lock);
  return r;
}

/* FMA rate of a two-stage fast launch of configuration c at input length
 * K that is not bandwidth bound (H100, session 10, tuner's timings: float
 * 32x32 two fused 27.8 TFLOP/s, 64x64 27.4, 128x128 25.4; double 32x32
 * 15.8, 64x64 12.6, 128x128 13.5; P <= 16 were bandwidth bound at every
 * position of the standard shapes, up to 21 float and 11.4 double; on an
 * H200 two fused 16x16 float reached 25.5).  Two fused float 64x64
 * factors over a whole vector of 4096 run faster than that slab rate
 * (session 18, tuner's timings over 1024, 2048, 4096 and 8192 vectors:
 * 0.0361, 0.0702, 0.1346, 0.2587 ms, 29.8-33.2 TFLOP/s, where 27 priced
 * 1024 at 0.045 ms): at 31 the model takes them over the sub-vectors of
 * 32_64x64^3 before a GEMM, as the tuner does (kb_cuda_plan_nat_sub). */
static double kb_fast_rate(const kb_problem_t *pb, const kb_dev_rates_t *dv, const kb_cuda_fast_cfg_t *c,
                           int64_t K)
{
  const int P = c->P;
  const int whole64 = c->TK == K && c->F == 2 && P == 64 && c->Q == 64;
  const double r = pb->type == KRONBLAS_R_32F ? (whole64 ? 31e12 : P >= 16 ? 27e12 : 22e12)
                                              : (P == 32 ? 15e12 : P >= 64 ? 13e12 : 12e12);
  return r * dv->fma;
}

static double kb_rate(const kb_problem_t *pb, int P)
{
  /* FMA rate a sliced multiply reaches: small P spends more on shared
   * memory per FMA. */
  double peak = pb->type == KRONBLAS_R_32F ? 30e12 : 15e12;
  return P >= 64 ? peak : P >= 32 ? 0.8 * peak : 0.6 * peak;
}

/* Modelled seconds of one fast launch at factor i with input length K;
 * mrows: the input runs along m.  Then a block's TM vectors are computed
 * even past m, and the loads read whole sectors of vectors.  mout: the
 * output runs along m (the last launch of RIGHT/N): whole sectors where
 * the configuration stages its outputs (kb_cuda_cfg_mstore), else a
 * sector per element. */
static double kb_fast_cost(const kb_problem_t *pb, const kb_dev_rates_t *dv, const kb_cuda_fast_cfg_t *c, int nsm,
                           int64_t K, int mrows, int mout)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  /* One resident block per SM cannot overlap one tile's loads with
   * another's multiply either (H200: a two-stage 4x4^7 float slab of 16384,
   * one 256-thread block per SM, took 0.31 ms where two launches of 4 and 3
   * fused factors took 0.15). */
  /* A block of 256 threads or more that fuses at most three factors
   * keeps its own next tile loading while it multiplies (H100, session 9:
   * double 8x8 with two vectors a thread, one 256-thread block per SM, one
   * to three fused factors at K = 2^18 in 1.49-1.52 ms, against 1.65-2.16
   * for 128-thread blocks three to an SM). */
  const int overlaps_alone = c->threads >= 256 && c->F <= 3;
  /* Such a launch moves its bytes while it multiplies: the longer of the
   * two (H100, session 10: P <= 16 launches took the time of their bytes
   * whatever F, P >= 32 that of their FMAs; the sum priced them 1.5-2.4x
   * over and ranked the whole-row kernel and cuBLAS above them, e.g.
   * 1024_32x32^4 double on cuBLAS 22.7 ms against 17.4 on fast launches). */
  const int two = c->stages == 2 && (c->occupancy != 1 || overlaps_alone);
  /* Not where the accesses are narrower than 16 bytes (P or the output
   * runs not a multiple of a vector): those JIT configurations, whole
   * vectors of 3x3^7 or 4x4^6 in scalar accesses, ran at about the sum
   * (H100, session 10: 1526_4x4^6 double 0.099 ms against 0.073 for the
   * whole-row kernel the sum had chosen). */
  const int overlapped = two && c->vw * esz == 16.0;
  /* But a block of more than 256 threads alone on its SM overlaps only part
   * of them: H200, session 31, the tuner's timings of float 8x8 three fused
   * (the precompiled slabs of 16384 and 8192, 512 threads one block an SM
   * against 256 threads two an SM): 0.737-0.741 ms against 0.651-0.656 at
   * 2^28 elements, 0.0371-0.0375 against 0.0320-0.0322 at 2^25, the model
   * pricing both alike (the first taken, so 1024_8x8^6 ran 1.48 ms where
   * its tuned plan ran 1.26-1.29).  Priced as KB_ALONE_BIG of the shorter
   * of bytes and flops not overlapped. */
  const int alone_big = c->occupancy == 1 && c->threads > 256;
  const double bw = two ? dv->bw : KB_BW_ONE_STAGE;
  const int64_t sec = 32 / (int64_t)kb_type_size(pb->type);
  const double mpad = mrows || mout ? (double)((pb->m + c->TM - 1) / c->TM * c->TM) : m;
  const double msec = (double)((pb->m + sec - 1) / sec * sec);
  double flops = 0, Kf = (double)K, t, tb, tf, fill, tiles, wburst;
  int f;
  for (f = 0; f < c->F; f++) {
    flops += 2.0 * mpad * Kf * c->Q;
    Kf = Kf / c->P * c->Q;
  }
  /* Output runs of one 32-byte sector (TK / P^F elements; a slab that is
   * the whole vector writes it whole): DRAM takes 64-byte bursts, so each
   * such run costs a burst (H100, tuner's timings: float 4x4 four fused
   * on slabs of 2048 and double on 1024, runs of 32 bytes, took 1.3-1.6x
   * as long as one to three fused at every m from 100 to 1024, where the
   * model priced them equal; the reads are whole). */
  wburst = c->TK != K && c->run * esz < KB_DRAM_BURST ? KB_DRAM_BURST / (c->run * esz) : 1.0;
  tb = (mrows ? msec * (double)K * esz / (KB_BW_MROWS < bw ? KB_BW_MROWS : bw) : m * (double)K * esz / bw) +
       (!mout ? m * Kf * esz * wburst / bw
              : kb_cuda_cfg_mstore(c) ? msec * Kf * esz / (KB_BW_MROWS < bw ? KB_BW_MROWS : bw)
                                      : m * Kf * 32.0 / bw);
  tiles = (double)(K / c->TK) * (double)((pb->m + c->TM - 1) / c->TM);
  fill = tiles / ((double)nsm * (c->occupancy > 0 ? c->occupancy : 1));
  if (overlapped) {
    tf = flops / kb_fast_rate(pb, dv, c, K);
    /* The multiply runs in whole waves of tiles: a last partial wave takes
     * as long as a full one (H100, session 10: float 64x64 at K = 4096,
     * m = 1024, 512 tiles on 396 resident blocks, 31.2 us where its FMAs
     * at the fitted rate take 19.9, and cuBLAS 20.8: priced 23.9 against
     * 24.3, the fast launch won).  Bytes are not: the blocks of a partial
     * wave get the whole bandwidth.  Only P >= 32, whose big tiles are
     * bound by their FMAs: for P = 8 the term sent 156_8x8^3 float to a
     * plan of 0.0189 ms instead of 0.0101 (the small shapes' other prices
     * are looser than this one). */
    if (fill > 1.0 && c->P >= 32) {
      double waves = (double)(int64_t)fill;
      if (waves < fill)
        waves += 1.0;
      tf *= waves / fill;
    }
    t = tb > tf ? tb : tf;
    if (alone_big)
      t += KB_ALONE_BIG * (tb < tf ? tb : tf);
  } else {
    t = tb + flops / kb_rate(pb, c->P);
  }
  if (fill < 1.0) {
    /* Fewer tiles than resident blocks: each block runs one tile, with
     * more than its share of bandwidth but at least the latency of one
     * block alone (measured on an H200 for 2x2^9 and 8x8^3 at m <= 50:
     * 4.1-4.6 us per launch whatever F, where the share alone, t / fill,
     * priced them at 11-15 us and let slower kernels win). */
    const double alone = (m * ((double)K + Kf) * esz / tiles) / KB_BW_BLOCK +
                         flops / tiles / (KB_RATE_BLOCK_FRAC * kb_rate(pb, c->P) / nsm) +
                         c->F * KB_STEP_LAT_S;
    const double share = t / (fill > 0 ? fill : 1e-3);
    t = share < (alone > t ? alone : t) ? share : (alone > t ? alone : t);
  }
  return t + KB_LAUNCH_S;
}

/* The share of the bandwidth cuBLAS' GEMMs with a short inner dimension p
 * reach grows with the bytes of a factor row, b/(b+24) (fitted on the
 * column plan's GEMMs, kb_col_cost). */
static double kb_cublas_bw_share(const kb_problem_t *pb, int64_t i)
{
  const double b = (double)(pb->p[i] < pb->q[i] ? pb->p[i] : pb->q[i]) * (double)kb_type_size(pb->type);
  return b / (b + 24);
}

/* The FMA rate of cuBLAS' per-factor GEMMs of factor i at input length K.
 * Float GEMMs with an inner dimension of 64 to 127 over vectors of at most
 * 4096 stay well below the 33 TFLOP/s of the rest (H100, in-run per-factor
 * GEMM baseline: 64x64 at K = 4096, m = 1024, 21 us a GEMM, 25.5 TFLOP/s;
 * m = 2048 49.5 us, 21.7): at 33 the model sent 2048_64x64^2 to cuBLAS
 * (0.099 ms) where the fused launch takes 0.078.  Over longer vectors they
 * do reach it (K = 2^18: 1024_64x64^3 3.15 ms, 32.7 TFLOP/s; 16_64x64^4
 * 32): priced at 25 there too, the model took fast launches that run at
 * 27 (session 17).  Nor do they over fewer than 2^25 elements in all
 * (tuner, 64x64 at K = 2^18, less the two launches' 8 us, TFLOP/s: m = 16
 * 25.6, 32 29, 64 29.4, 128 29.4, 256 32.4, 1024 33.1; 16_64x64^4, K =
 * 2^24, 32): at 33 the model kept 64 and 128_64x64^3 on three GEMMs
 * (0.24 and 0.46 ms) where fusing the trailing two over sub-vectors takes
 * 0.21 and 0.40 (session 18).  Below 64 the GEMMs are bound by their
 * bytes and the rate does not decide.  Double (FP64 tensor cores) as
 * fitted. */
#define KB_CUBLAS_SMALL_ELEMS 33554432.0  /* 2^25 elements of m x K */
static double kb_cublas_rate(const kb_problem_t *pb, int64_t i, int64_t K)
{
  if (pb->type != KRONBLAS_R_32F)
    return 40e12;
  if (pb->p[i] < 64 || pb->p[i] >= 128)
    return 33e12;
  if (K <= 4096)
    return 25e12;
  return (double)pb->m * (double)K <= KB_CUBLAS_SMALL_ELEMS ? 29e12 : 33e12;
}

/* A cuBLAS step costs at least this, its host side and launch: the tuner's
 * isolated cuBLAS steps of the small real-world shapes (H100, session 24,
 * 64 launches of under 10^5 elements) took 7.3-20 us, median 11, where
 * the model said 8; it then kept double 50_32x8,64x128 on two GEMMs
 * (0.023 ms, 0.95-1.14x the GEMM baseline) where the fused whole-vector
 * launch takes 14.5 us. */
#define KB_CUBLAS_FIXED_S 11e-6

/* cuBLAS reaches most of the GEMM rate, FP64 tensor cores for double, and
 * moves its bytes at the share above of an H100's bandwidth, whatever the
 * device's (H200: 1024_16x16^5 float with its last factor on cuBLAS 11.7
 * ms, on the fast kernel 9.8; 1024_6x6^7 one factor 2.9 ms float, 4.7
 * double on cuBLAS, 1.3 and 1.8 fast.  Session 10: float 32x32 steps took
 * 3.9 ms at K = 2^20, m = 1024, on the H100 and 3.6 on the H200, 2.2-2.4
 * TB/s on both; double 32x32 5.67 ms on the H100, 2.95 TB/s). */
static double kb_cublas_cost(const kb_problem_t *pb, const kb_dev_rates_t *dv, int64_t i, int64_t K)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  const double Kn = (double)K / pb->p[i] * pb->q[i];
  const double rate = kb_cublas_rate(pb, i, K);
  /* Bytes and FMAs overlap (H100, session 10: double 32x32 at K = 2^20
   * 5.67 ms, its bytes' time at 2.95 TB/s; float 128x128 0.12 ms, its
   * FMAs'). */
  const double tb = m * ((double)K + Kn) * esz / (KB_BW_H100 * kb_cublas_bw_share(pb, i));
  const double tf = 2.0 * m * Kn * pb->p[i] / (rate * dv->fma);
  return (tb > tf ? tb : tf) + KB_CUBLAS_FIXED_S;
}

/* The slice-GEMM kernel's FMA rate per instantiation (H200, session 33,
 * the tuner's timings of one factor, float): 64x64 in tiles of 128 slices
 * 36.3 TFLOP/s (K = 2^18, m = 1024: 0.952 ms against cuBLAS' 0.984; K =
 * 2^24, m = 16: 0.953 against 0.989), in tiles of 64 33.4 (1.032).  Its
 * 128x128 instantiations ran slower than cuBLAS (K = 2^14, m = 1024:
 * 0.1256 ms against 0.1207; K = 2^21, m = 16: 0.236 against 0.219), which
 * kb_cublas_rate prices low for P = 128: the model leaves them to the
 * tuner (0: not a candidate).  Session 35: the k-major kernel
 * (kb_gemm_kt_kernel, 64x64, tiles of 128, three blocks an SM) 0.925 ms
 * at K = 2^18, m = 1024: 37.1 TFLOP/s.  Session 36: its 128x128 entry in
 * tiles of 128, two blocks an SM, beats cuBLAS where the old one did not
 * (K = 2^14, m = 1024: 0.1165 ms against 0.1205; K = 2^21, m = 16: 0.219
 * against 0.221; m = 320: 3.99 against 3.99), 38 TFLOP/s with its whole
 * rounds counted.  The other kt entries ran slower than these two, but
 * for the 64x64 one with its k-loop unrolled by 16 (KU, session 36: 0.877
 * ms against 0.933 at K = 2^18, m = 1024), 39.5. */
static double kb_gemm_rate(const kb_cuda_gemm_info_t *g)
{
  const int full = g->ku == 0 || g->ku == g->TKC;
  /* The pair kernel (two fused 16x16 factors), session 37's stand-alone
   * trial on an H200: tiles of 64 slabs, two stages, 0.599 ms at K = 2^24,
   * m = 16 (28.7 TFLOP/s); tiles of 32, three stages, 0.612 there and
   * 2.427 at K = 2^20, m = 1024 (28.3); tiles of 32, two stages, three
   * blocks an SM, 0.651 (tuner only).  Its bytes are priced at the fast
   * launches' bandwidth, so on an H100, where those bytes take longer than
   * its FMAs, it ties the fast kernel's two fused 16x16 factors and the
   * planner keeps those (measured only on the H200). */
  if (g->F == 2)
    return g->stages == 2 && g->minb == 3 ? 0 : g->TS == 64 ? 28.7e12 : 28.3e12;
  /* The trip8 kernel (three fused 8x8 factors), session 38's tuner on an
   * H200: 0.582-0.590 ms at K = 2^18, m = 1024, and 0.605-0.608 at K =
   * 2^24, m = 16, against 0.637-0.647 for the fast kernel's three fused
   * 8x8 (which kb_fast_rate prices at 0.586).  Priced in the same
   * proportion, 0.92 of that: 24 TFLOP/s with its rounds counted.  On an
   * H100 their bytes bind both and the fast launch stays.  With three
   * stages (the exchange in the stage its tile came in), session 39's
   * tuner, ms a pass against two stages: 2^28 elements 0.567-0.575 against
   * 0.584-0.592 (K = 2^18, m = 1024) and 0.601-0.605 against 0.605-0.608
   * (K = 2^24, m = 16); 2^27 0.289-0.291 against 0.298-0.302; 2^26
   * 0.149-0.151 against 0.152-0.154; but 2^25 0.082-0.083 against
   * 0.078-0.080, below KB_GEMM_TRIP8_MIN_ELEMS, where the model takes
   * neither.  24.7, so the model takes three stages wherever it took
   * two. */
  if (g->F == 3 && g->P == 8)
    return g->stages == 3 ? 24.7e12 : 24e12;
  /* The slab-4096 kernels, session 40's tuner on an H200 (tiles of 8
   * slabs in two halves, two stages): three fused 16x16 4.015-4.047 ms a
   * pass at K = 2^20, m = 1024 (25.6 TFLOP/s), 1.013-1.026 at K = 2^24, m
   * = 16, 0.265-0.266 at K = 2^16, m = 1024; four fused 8x8 0.884-0.895 at
   * 2^28 elements (19.4).  Bound by neither their FMAs nor their bytes (a
   * copy of a 2^28 pass takes 0.51 ms) but, session 41's samples say, by
   * their output stores, which hold every warp at once; priced by what they
   * did.  Not measured on an H100, where the model, its bytes slower, would
   * take the quad8 kernel's two passes for 16_8x8^8 over three (jit-time -B
   * 2.85e12).  Their TMA entries, which hand a tile's outputs to the
   * tensor memory accelerator (session 42's tuner, H200): trip16 3.59-3.60
   * ms a pass of 2^30 (4.01 plain), 0.908-0.910 at K = 2^24, m = 16 (1.014-
   * 1.018), 0.245 at 2^26 (0.269); quad8 0.739-0.748 at 2^28 (0.882-0.886
   * plain); priced in the same proportion.  Where no tensor map can be
   * made (beta != 0, Y off 16 bytes) they launch the plain kernel, what the
   * plain entry would have run: the model does not look. */
  if (g->F == 3 && g->P == 16)
    return g->tma ? 28.4e12 : 25.5e12;
  if (g->F == 4 && g->P == 8)
    return g->tma ? 22.9e12 : 19.4e12;
  if (g->F >= 3)
    return 0;   /* a fused entry not priced above: the tuner's only */
  if (g->kt == 1 && g->TS == 128 && g->P == 64 && g->minb == 3)
    return g->ku == 16 ? 39.5e12 : full ? 37.1e12 : 0;
  if (g->kt == 1 && g->TS == 128 && g->P == 128 && g->minb == 2)
    return full ? 38e12 : 0;
  if (g->kt || g->P != 64)
    return 0;
  return g->TS >= 128 ? 36.3e12 : 33.4e12;
}

/* The pair kernel's smallest size timed (session 37: 2^24 elements, m =
 * 16, K = 2^20, 0.050 ms), below which the model leaves it to the tuner. */
#define KB_GEMM_PAIR_MIN_ELEMS 16777216.0
/* The trip8 kernel's: below 2^26 elements the one five-factor launch of
 * 1024_8x8^5 (the whole-row kernel, 0.131 ms, session 38) beats its three
 * fused (0.0795 ms at 2^25) and a second launch for the other two.  The
 * slab-4096 kernels' too: their smallest size timed is 2^26 (session 40). */
#define KB_GEMM_TRIP8_MIN_ELEMS 67108864.0

/* Below these many elements of m x K the model leaves the slice-GEMM
 * kernel to the tuner: 2^25 for P = 64 (the sizes of KB_CUBLAS_SMALL_ELEMS,
 * where the model keeps the plans it had: float 16_64x64^3 and
 * 64_64x64^3, sub-vector steps, then a GEMM; t-cuda-nat), 2^24 for P =
 * 128, the smallest size its entry was timed at (1024_128x128^2), where
 * no fused launch competes. */
static double kb_gemm_min_elems(const kb_cuda_gemm_info_t *g)
{
  if (g->F >= 3)
    return KB_GEMM_TRIP8_MIN_ELEMS;
  if (g->F == 2)
    return KB_GEMM_PAIR_MIN_ELEMS;
  return g->P >= 128 ? 16777216.0 : KB_CUBLAS_SMALL_ELEMS;
}

/* The slice-GEMM kernel (kernels/cuda/gemm.cu): its FMAs at its rate over
 * the resident blocks, tiles in whole rounds (a partial last round costs a
 * whole one); bytes overlap with them. */
static double kb_gemm_cost(const kb_problem_t *pb, const kb_dev_rates_t *dv, int64_t i, int64_t K, int kernel,
                           int nsm)
{
  const kb_cuda_gemm_info_t *g = kb_cuda_gemm_info(KB_KERNEL_GEMM_0 - kernel);
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  double Kn = (double)K, flops = 0;
  int64_t tiles, slots, rounds, slab = 1;
  double tb, tf, rate;
  int f;
  if (g == NULL || (rate = kb_gemm_rate(g)) <= 0 || m * (double)K < kb_gemm_min_elems(g))
    return -1;
  for (f = 0; f < g->F; f++) {
    flops += 2.0 * m * Kn * pb->q[i - f];
    Kn = Kn / pb->p[i - f] * pb->q[i - f];
    slab *= pb->p[i - f];
  }
  tiles = pb->m * (K / slab / g->TS);
  slots = (int64_t)(nsm > 0 ? nsm : 132) * g->minb;
  rounds = (tiles + slots - 1) / slots;
  tb = m * ((double)K + Kn) * esz / dv->bw;
  tf = flops / (rate * dv->fma) * ((double)rounds * (double)slots / (double)tiles);
  return (tb > tf ? tb : tf) + KB_LAUNCH_S;
}

int kb_cuda_gemm_usable(const kb_problem_t *pb, int64_t i, int64_t K, int index)
{
  const kb_cuda_gemm_info_t *g = kb_cuda_gemm_info(index);
  int f;
  if (g == NULL || pb->type != KRONBLAS_R_32F || pb->pointer_mode != KRONBLAS_POINTER_MODE_HOST || i + 1 < g->F)
    return 0;
  /* X along K where this step reads it, Y along L where it writes it */
  if ((i == pb->nfactors - 1 && pb->xs_k != 1) || (i + 1 == g->F && pb->ys_l != 1))
    return 0;
  for (f = 1; f < g->F; f++)
    if (pb->p[i - f] != pb->p[i] || pb->q[i - f] != pb->q[i])
      return 0;
  return kb_cuda_gemm_find((int)pb->type, pb->p[i], pb->q[i], K, index) == 0;
}

/* A slice-GEMM instantiation's word ("gemm:p64:q64:ts128:tk32:st4:mb2"),
 * the form tuning files name it by. */
int kb_cuda_gemm_word(int index, char *buf, int size)
{
  const kb_cuda_gemm_info_t *g = kb_cuda_gemm_info(index);
  int n;
  if (g == NULL || size <= 0)
    return -1;
  n = snprintf(buf, (size_t)size, "gemm:p%d:q%d:ts%d:tk%d:st%d:mb%d%s", g->P, g->Q, g->TS, g->TKC, g->stages,
               g->minb, g->kt == 2 ? ":kt:w84" : g->kt ? ":kt" : "");
  if (n >= 0 && n < size && g->F > 1)   /* fused factors: ":f2" pair, ":f3" trip8 or trip16, ":f4" quad8 */
    n += snprintf(buf + n, (size_t)(size - n), ":f%d", g->F);
  if (n >= 0 && n < size && g->tma)   /* the outputs stored by the tensor memory accelerator */
    n += snprintf(buf + n, (size_t)(size - n), ":tma");
  if (n >= 0 && n < size && g->ku != 0 && g->ku != g->TKC)
    n += snprintf(buf + n, (size_t)(size - n), ":u%d", g->ku);
  return n >= 0 && n < size ? n : -1;
}

int kb_cuda_gemm_parse(const char *word)
{
  int i, n = kb_cuda_gemm_count();
  char w[96];
  for (i = 0; i < n; i++)
    if (kb_cuda_gemm_word(i, w, (int)sizeof w) > 0 && strcmp(w, word) == 0)
      return i;
  return -1;
}

/* The whole-vector kernel (kernels/cuda/small.cu) at factors i, i-1, ...,
 * i-nf+1: the vectors are read and written once; the flops of the earlier
 * factors are repeated by each of the lsplit blocks that share a vector,
 * at the rate of shared-memory register tiles (about half the fast
 * kernel's); the blocks fill the GPU as far as there are some. */
#define KB_BW_SMALL 0.9e12      /* loads then math, no overlap within a block: a guess */
/* Fitted loosely to the tuner's timings on H100 (2026-11-21): one launch
 * for 52x50,65x20 at m = 10 took 21.7 us against 16 us for two (fast +
 * cuBLAS), 13-14 us alone where the generic kernel took 10: staging, one
 * barrier per factor and single-warp chains of k-steps dominate. */
#define KB_SMALL_FIXED_S 0.5e-6 /* staging latency */
#define KB_SMALL_FACTOR_S 1.6e-6  /* per factor: barrier, stores into the next layout
                                   (H200, m <= 50: 4.6, 6.4, 7.9 us for 1, 2, 3 factors
                                   against 3.3-4.5 us per generic launch) */
#define KB_SMALL_KSTEP_S 50e-9  /* one k-step of a register tile, latency-bound */
static double kb_small_cost(const kb_problem_t *pb, int64_t i, int64_t K, int nf)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  const int cplx = pb->type == KRONBLAS_C_32F || pb->type == KRONBLAS_C_64F;
  int64_t p[KB_CUDA_MAXF], q[KB_CUDA_MAXF], len = K;
  kb_cuda_small_geom_t g;
  double flops = 0, crit = 0, t, fill, rate;
  int f;
  if (nf < 1 || nf > KB_CUDA_MAXF || i + 1 < nf)
    return -1;
  for (f = 0; f < nf; f++) {
    p[f] = pb->p[i - f];
    q[f] = pb->q[i - f];
  }
  if (kb_cuda_small_geom((int)pb->type, pb->m, 1, K, nf, p, q, &g) != 0)
    return -1;
  for (f = 0; f < nf; f++) {
    /* The longest chain of one block: rounds of 256 register tiles (4 x 4,
     * complex 2 x 2), p dependent k-steps each. */
    const int64_t rt = cplx ? 2 : 4;
    const int64_t rows = f < nf - 1 ? q[f] : (q[f] + g.lsplit - 1) / g.lsplit;
    const int64_t tiles = g.tm * ((len / p[f] + rt - 1) / rt) * ((rows + rt - 1) / rt);
    crit += (double)((tiles + 255) / 256) * (double)p[f] * KB_SMALL_KSTEP_S;
    len = len / p[f] * q[f];
    flops += (cplx ? 8.0 : 2.0) * m * (double)len * (double)p[f] * (f < nf - 1 ? g.lsplit : 1);
  }
  rate = 0.5 * kb_rate(pb, 64);
  /* X along m: element-wise loads of a few vectors per block. */
  t = m * (double)K * esz / (i == pb->nfactors - 1 && pb->xs_k != 1 ? KB_BW_GENERIC : KB_BW_SMALL) +
      m * (double)len * esz / KB_BW_SMALL + flops / rate;
  fill = (double)g.blocks / (double)g.nsm;
  if (fill < 1.0)
    t /= fill > 0 ? fill : 1e-3;
  return (t > crit ? t : crit) + KB_SMALL_FIXED_S + nf * KB_SMALL_FACTOR_S + KB_LAUNCH_S;
}

/* The whole-row kernel (kernels/cuda/row.cu): X read and Y written once,
 * but one block per SM for rows over 113 KB, whose loads, in-place digit
 * steps and copy-out follow each other: priced as the sum of the bytes at
 * the two-stage bandwidth and the flops at the peak constant, slower for P
 * = 32, whose two-slice register tiles multiply at about half the rate
 * (H100, 2026-11-21, float ms measured / priced: 1024_8x8^5 0.18 / 0.20,
 * 1024_32x32^3 0.50 / 0.50, 1024_4x4^7 0.090 / 0.087, 1024_6x6^6 0.40 /
 * 0.27, 1024_3x3^7 0.024 / 0.014; double 1024_4x4^7 0.215 / 0.17).  Rows
 * split over a cluster (row.cu) are priced alike: H100, 2026-11-21, float
 * 1024_8x8^5 0.164 (two blocks a vector), 1024_8x8^6 1.94, 1024_16x16^4
 * 0.51, double 1024_8x8^5 0.33, 1024_16x16^4 0.79 ms measured. */
#define KB_ROW_P32_FRAC 0.45
#define KB_ROW_SHARED 0.85
#define KB_ROW_ALONE 1.2
/* Float P = 16 in clusters (row.cu's two-slice local digits, session 22),
 * against the two passes of fused pairs, which the model prices at 0.385
 * ms for 1024_16x16^4 (the row 0.4075 before this factor).  H100, model
 * plans, medians of three interleaved runs, ms, the pairs / the row:
 * m = 100 0.089 / 0.059, 256 0.120 / 0.123, 512 0.218 / 0.221, 1024 0.417
 * / 0.421, 2048 0.814 / 0.812: even at full waves, far ahead where the
 * pairs' launches leave a partial wave (the model prices none for P = 16).
 * Priced below the pairs: the row at every m. */
#define KB_ROW_CL16_F 0.9
static double kb_row_cost(const kb_problem_t *pb, const kb_dev_rates_t *dv, int64_t K, int nf, int nsm)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  kb_cuda_row_geom_t g;
  double rate = kb_rate(pb, 64), t, fill;
  if (kb_cuda_row_geom((int)pb->type, pb->m, 1, K, nf, pb->p, pb->q, &g) != 0)
    return -1;
  if (pb->p[0] >= 32)
    rate *= KB_ROW_P32_FRAC;
  /* Loads, digit steps and stores follow each other within a block;
   * several blocks per SM overlap them in part, one alone does not
   * (H100, session 10, measured / the sum: float 1024_8x8^5 in 64 KB
   * shares 0.160 / 0.187, double 8^5 0.312 / 0.371, double 16^4 0.785 /
   * 0.95; float 1024_8x8^6 in 128 KB shares, one block per SM, 1.93 /
   * 1.61). */
  t = (2.0 * m * (double)K * esz / dv->bw + 2.0 * m * (double)K * (double)pb->p[0] * nf / (rate * dv->fma)) *
      (2 * g.smem > g.smem_max ? KB_ROW_ALONE : KB_ROW_SHARED);
  if (g.cluster > 1 && pb->type == KRONBLAS_R_32F && pb->p[0] == 16)
    t *= KB_ROW_CL16_F;
  fill = (double)g.blocks / (double)(g.nsm > 0 ? g.nsm : nsm);
  if (fill < 1.0)
    t /= fill > 0 ? fill : 1e-3;
  return t + KB_LAUNCH_S;
}

/* The generic kernel: one thread an output, its p-long sum a chain of
 * loads and FMAs, so a launch of few outputs takes at least p k-steps of
 * load latency (H100, tuner, isolated launches, us, float / double:
 * 10_52x50,65x20 p = 52 10.0 / 12.9, p = 65 9.3 / 14.8; 50_32x8,64x128 p =
 * 32 13.2 / 15.0; priced 4.7-8.6 without it, so the model took it over
 * fast launches of 6-10 us: double 10_52x50,65x20 0.026 ms, 0.83x the GEMM
 * baseline; with it 0.0195 ms). */
#define KB_GENERIC_KSTEP_S 100e-9
static double kb_generic_cost(const kb_problem_t *pb, int64_t i, int64_t K)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  const double Kn = (double)K / pb->p[i] * pb->q[i];
  const double t = m * ((double)K + Kn) * esz / KB_BW_GENERIC + 2.0 * m * Kn * pb->p[i] / 2e12;
  const double lat = (double)pb->p[i] * KB_GENERIC_KSTEP_S;
  return (t > lat ? t : lat) + KB_LAUNCH_S;
}

typedef struct {
  const kb_problem_t *pb;
  int nsm;
  kb_dev_rates_t dv;
  int precompiled;     /* plan with the precompiled configurations only */
} kb_model_ctx_t;

/* ------------------------------------------------------------ JIT shapes */

/* Largest d <= lim dividing n and a multiple of v (0 if none). */
static int kb_div_le(int64_t n, int lim, int v)
{
  int d;
  for (d = lim - lim % v; d >= v; d -= v)
    if (n % d == 0)
      return d;
  return 0;
}

/* One FastKron-style configuration for F factors P x Q at input length K
 * (slab of about target elements), or -1.  Tiles: TP = P up to 32 (else a
 * divisor), a register tile of RK slices x RQ columns, 128-256 threads
 * (more vectors per block where one vector's slab gives too few), vector
 * accesses as wide as P and Q allow.  tm > 0: exactly tm vectors per block
 * (input along m, kb_cuda_cfg_mrows), more of them per thread (RM) where
 * the threads would exceed 256. */
static int kb_jit_make(const kb_problem_t *pb, int64_t P, int64_t Q, int F, int64_t K, int target, int tm)
{
  kb_cuda_fast_cfg_t c;
  const int esz = (int)kb_type_size(pb->type);
  int64_t PF = 1, j, NS;
  int f, V;
  memset(&c, 0, sizeof c);
  if (P > 1024 || Q > 1024)
    return -1;
  for (V = 16 / esz; V > 1 && (P % V != 0 || Q % V != 0); V /= 2)
    ;
  for (f = 0; f < F; f++)
    PF *= P;
  if (K % PF != 0 || PF > 4 * (int64_t)target)
    return -1;
  /* The largest slab <= target that divides K and holds whole fused
   * slices; at least one slice group. */
  for (j = target / PF > 1 ? target / PF : 1; j > 1 && (K / PF) % j != 0; j--)
    ;
  c.TK = (int)(PF * j);
  NS = c.TK / P;
  /* A vector store holds V consecutive outputs of one run (TK / P^F). */
  if (j % V != 0)
    V = 1;
  c.type = (int)pb->type;
  c.P = (int)P;
  c.Q = (int)Q;
  c.F = F;
  c.vw = V;
  c.TP = F > 1 ? (int)P : kb_div_le(P, 32, V);
  c.RK = kb_div_le(NS, 4 * V > 8 ? 8 : 4 * V, V);
  c.RQ = kb_div_le(Q, 8, V);
  c.RM = 1;
  c.TM = tm > 0 ? tm : 1;
  c.stages = 2;
  c.unroll = 1;
  if (c.TP == 0 || c.RK == 0 || c.RQ == 0)
    return -1;
  /* Fewer than 128 threads: more vectors per block while the launch keeps
   * a few hundred blocks (short vectors and few of them are
   * latency-bound).  (Halving the register tile instead measured 2.5x
   * slower on 1024_4x4^7, H100.) */
  while (tm == 0 && (int64_t)c.TM * (NS / c.RK) * (Q / c.RQ) < 128 && c.TM < 16 && c.TM * 2 <= pb->m &&
         (K / c.TK) * ((pb->m + 2 * c.TM - 1) / (2 * c.TM)) >= 256)
    c.TM *= 2;
  while ((c.TM / c.RM) * (NS / c.RK) * (Q / c.RQ) > 256 && c.TM % (2 * c.RM) == 0 && 2 * c.RM * c.RK * c.RQ <= 64)
    c.RM *= 2;
  /* More than 256: bigger register tiles. */
  while ((NS / c.RK) * (Q / c.RQ) * (c.TM / c.RM) > 256 && NS % (2 * c.RK) == 0 && 2 * c.RM * c.RK * c.RQ <= 64)
    c.RK *= 2;
  if (kb_cuda_cfg_complete(&c) != 0) {
    c.stages = 1;   /* a slab too large for two stages */
    if (kb_cuda_cfg_complete(&c) != 0)
      return -1;
  }
  return kb_cuda_cfg_add(&c);
}

/* Adds configurations for factor i (and the run of equal factors before
 * it) where no precompiled one fits; run: how many equal consecutive
 * factors end at i; mrows: its input runs along m (only configurations
 * with whole sectors of vectors per block fit). */
static void kb_jit_candidates(const kb_problem_t *pb, int64_t i, int64_t K, int run, int mrows)
{
  const kb_cuda_fast_cfg_t *cfg;
  const int64_t P = pb->p[i], Q = pb->q[i];
  const int target = pb->type == KRONBLAS_R_32F ? 2048 : 1024;
  const int sec = 32 / (int)kb_type_size(pb->type);
  int ncfg, c, F;
  cfg = kb_cuda_fast_cfgs(&ncfg);
  for (c = 0; c < ncfg; c++)
    if (cfg[c].jit == KB_CFG_TABLE && cfg[c].type == (int)pb->type && cfg[c].P == P && cfg[c].Q == Q &&
        K % cfg[c].TK == 0 && (!mrows || kb_cuda_cfg_mrows(&cfg[c])))
      return;
  if (!kb_cuda_jit_available())
    return;
  if (mrows) {
    /* One sector of vectors per block, with a slab per vector 4x the usual
     * share, and four sectors with a quarter of it: the same shared memory
     * per block (2 stages: 64 KB float), more vectors or a longer slab. */
    (void)kb_jit_make(pb, P, Q, 1, K, 4 * target / sec, sec);
    (void)kb_jit_make(pb, P, Q, 1, K, target / sec, 4 * sec);
    for (F = 2; F <= run && P == Q && P <= 32; F++)
      if (kb_jit_make(pb, P, Q, F, K, 4 * target / sec, sec) < 0 &&
          kb_jit_make(pb, P, Q, F, K, 16 * target / sec, sec) < 0)
        break;
    return;
  }
  (void)kb_jit_make(pb, P, Q, 1, K, target, 0);
  (void)kb_jit_make(pb, P, Q, 1, K, target / 4, 0);
  /* Fusion of equal square factors while the slab holds P^F. */
  for (F = 2; F <= run && P == Q && P <= 32; F++)
    if (kb_jit_make(pb, P, Q, F, K, target, 0) < 0 && kb_jit_make(pb, P, Q, F, K, 4 * target, 0) < 0)
      break;
}

/* Measured planning only: neighbours of the precompiled configurations
 * for factor i with P == Q <= 32, the sliced multiplies whose rate the
 * register tile and the block's shape decide (FFMA and shared-memory
 * loads; the precompiled set is one guess per shape): twice the vectors
 * per block, and two per thread; slices and columns of the register tile
 * traded; the other unroll, and two k-steps unrolled where the
 * configuration is rolled and the full unroll is more than two (session
 * 44, H200, the tuner's timings of two fused 32x32 factors at 2^29
 * elements: 2.175 ms with two k-steps against 2.292 rolled and 3.06 fully
 * unrolled; 16_32x32^5 tuned 5.84 -> 5.62 ms); half and twice the slab.
 * They are added to the registry as JIT configurations marked variant,
 * which the model never plans (it could not rank them apart from their
 * parent, and model plans must not change with what a process tuned
 * before); the tuner times them like the others, so a faster one is kept
 * in the measured plan and its wisdom word.  At most 8 per precompiled
 * configuration, each compiled once per process (and cached on disk). */
static void kb_jit_variants(const kb_problem_t *pb, int64_t i, int64_t K, int run)
{
  const kb_cuda_fast_cfg_t *cfg;
  int ncfg, c;
  if (!kb_cuda_jit_available() || pb->p[i] != pb->q[i] || pb->p[i] > 32)
    return;
  cfg = kb_cuda_fast_cfgs(&ncfg);
  for (c = 0; c < ncfg; c++) {
    const kb_cuda_fast_cfg_t *b = &cfg[c];
    kb_cuda_fast_cfg_t v[8];
    int nv = 0, j;
    if (b->jit != KB_CFG_TABLE || b->type != (int)pb->type || b->P != pb->p[i] || b->Q != pb->q[i] ||
        b->F > run || K % b->TK != 0)
      continue;
    if (pb->m >= 2 * (int64_t)b->TM) {
      v[nv] = *b;
      v[nv++].TM = 2 * b->TM;
      v[nv] = *b;
      v[nv].TM = 2 * b->TM;
      v[nv].RM = 2 * b->RM;
      v[nv++].RK = b->RK / 2;
    }
    v[nv] = *b;
    v[nv].RK = 2 * b->RK;
    v[nv++].RQ = b->RQ / 2;
    v[nv] = *b;
    v[nv].RK = b->RK / 2;
    v[nv++].RQ = 2 * b->RQ;
    v[nv] = *b;
    v[nv++].unroll = b->unroll == 1 ? b->TP / b->vw : 1;
    if (b->unroll == 1 && b->TP / b->vw > 2) {
      v[nv] = *b;
      v[nv++].unroll = 2;
    }
    if (K % (2 * (int64_t)b->TK) == 0) {
      v[nv] = *b;
      v[nv++].TK = 2 * b->TK;
    }
    v[nv] = *b;
    v[nv++].TK = b->TK / 2;
    for (j = 0; j < nv; j++) {
      v[j].jit = KB_CFG_JIT;
      v[j].variant = 1;
      if (v[j].RK >= 1 && v[j].RQ >= 1 && v[j].TK >= 1 && K % v[j].TK == 0)
        (void)kb_cuda_cfg_add(&v[j]);   /* invalid tiles are refused there */
    }
  }
}

/* Compiles (or finds) a JIT configuration's kernel for the current
 * device; 0 when it can be launched.  A failure marks it KB_CFG_JIT_FAILED
 * (lib/cuda_jit.c), so it is never chosen again. */
static int kb_jit_ready(const kb_cuda_fast_cfg_t *cfg, int c)
{
  const void *fn;
  int max_blocks;
  /* The registry entry is writable storage (steps.cu); cuda_jit.c records
   * the measured occupancy and the failed state in it. */
  if (kb_cuda_jit_kernel(c, (kb_cuda_fast_cfg_t *)&cfg[c], &fn, &max_blocks) == 0)
    return 0;
  ((kb_cuda_fast_cfg_t *)&cfg[c])->jit = KB_CFG_JIT_FAILED;   /* also where it failed before loading */
  return -1;
}

const char *kb_cuda_kernel_word(int kernel, char *buf, int size)
{
  int ncfg;
  const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
  if (kernel < KB_KERNEL_ROW_VAR && kb_cuda_kernel_is_row(kernel))
    snprintf(buf, (size_t)size, "c%d:t%d%s", kb_cuda_row_var_C(kernel), kb_cuda_row_var_T(kernel),
             kb_cuda_row_var_PF(kernel) > 0 ? ":p" : "");
  else if (kb_cuda_kernel_is_gemm(kernel)) {
    if (kb_cuda_gemm_word(KB_KERNEL_GEMM_0 - kernel, buf, size) < 0)
      buf[0] = '\0';
  } else if (kernel < 0 || kernel >= ncfg || kb_cuda_cfg_format(&cfg[kernel], buf, size) < 0)
    buf[0] = '\0';
  return buf;
}

static double kb_model_cost(void *ctx, int64_t i, int64_t K, int kernel, int nf)
{
  const kb_model_ctx_t *mc = ctx;
  int ncfg;
  const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
  double t;
  if (kernel == KB_KERNEL_SMALL)
    t = kb_small_cost(mc->pb, i, K, nf);
  else if (kernel == KB_KERNEL_ROW)
    t = kb_row_cost(mc->pb, &mc->dv, K, nf, mc->nsm);
  else if (kernel == KB_KERNEL_CUBLAS)
    t = kb_cublas_cost(mc->pb, &mc->dv, i, K);
  else if (kb_cuda_kernel_is_gemm(kernel))
    t = kb_gemm_cost(mc->pb, &mc->dv, i, K, kernel, mc->nsm);
  else if (kernel < 0)
    t = kb_generic_cost(mc->pb, i, K);
  else
    t = kb_fast_cost(mc->pb, &mc->dv, &cfg[kernel], mc->nsm, K,
                     i == mc->pb->nfactors - 1 && mc->pb->xs_k != 1, i + 1 == nf && mc->pb->ys_l != 1);
  /* Next to the tuner's "tune:" lines (the same words), what calibrating
   * the model needs. */
  if (kb_env()->log_level >= KB_LOG_DEBUG) {
    char word[160];
    (void)kb_cuda_kernel_word(kernel, word, (int)sizeof word);
    kb_log(KB_LOG_DEBUG, "model: factors %lld..%lld K=%lld kernel %d (%d threads, %d blocks/SM)%s%s: %.4f ms",
           (long long)i, (long long)(i - nf + 1), (long long)K, kernel, kernel >= 0 ? cfg[kernel].threads : 0,
           kernel >= 0 ? cfg[kernel].occupancy : 0, word[0] ? " " : "", word, t * 1e3);
  }
  return t;
}

/* The column plan (lib/cuda_cublas.c): one GEMM per factor over the S
 * slices, C_s (m x q) = X_s (m x p) B, every operand contiguous along m;
 * a launch per factor.  cuBLAS moves these small GEMMs' bytes at a share of
 * the bandwidth that falls with m and with the bytes of a factor row (H200,
 * tuner's timings per factor: m = 1024 float 8x8 1.3 TB/s, 16x16 2.0,
 * double 8x8 1.4, 16x16 2.7; m = 320 float 32x32 2.2; m = 16 float 16x16
 * 0.77): fitted as m/(m+32) * b/(b+24) of KB_BW_COL, b = min(p, q)
 * times the element size; the flops overlap the bytes (320_32x32^3 float:
 * 0.115 ms measured, 0.199 priced as their sum). */
static double kb_col_cost(const kb_problem_t *pb)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  double t = 0;
  int64_t i, K = pb->K;
  for (i = pb->nfactors - 1; i >= 0; i--) {
    const double Kn = (double)(K / pb->p[i] * pb->q[i]);
    const double bw = KB_BW_COL * (m / (m + 32)) * kb_cublas_bw_share(pb, i);
    const double tb = m * ((double)K + Kn) * esz / bw;
    const double tf = 2.0 * m * Kn * (double)pb->p[i] / kb_cublas_rate(pb, i, K);
    t += (tb > tf ? tb : tf) + KB_LAUNCH_S;
    K = K / pb->p[i] * pb->q[i];
  }
  return t;
}

int64_t kb_cuda_plan_sliced(const kb_problem_t *pb, int policy, int nsm, kb_cuda_pstep_t *steps, double *total)
{
  kb_model_ctx_t mc;
  mc.pb = pb;
  mc.nsm = nsm;
  mc.dv = kb_dev_model();
  mc.precompiled = 0;
  return kb_cuda_plan_with(pb, policy, kb_model_cost, &mc, steps, total);
}

int64_t kb_cuda_plan_nat_sub(const kb_problem_t *pb, int policy, int nsm, kb_cuda_pstep_t *steps, double *total)
{
  const int64_t n = pb->nfactors;
  kb_model_ctx_t mc;
  kb_cuda_pstep_t *sub_steps;
  int64_t g0, i, j, ns = 0, K;
  double best = 1e30;

  *total = 1e30;
  /* A fused launch needs two trailing factors, a GEMM step one leading. */
  if (n < 3 || !kb_cuda_nat_sub_usable(pb, policy) || policy != KRONBLAS_KERNELS_ALL)
    return 0;
  sub_steps = malloc((size_t)n * sizeof *sub_steps);
  if (sub_steps == NULL)
    return 0;
  mc.nsm = nsm;
  mc.dv = kb_dev_model();
  mc.precompiled = 1;
  for (g0 = 1; g0 <= n - 2; g0++) {
    kb_problem_t sub;
    double t = 0;
    int64_t nsub, fused = 0;
    kb_cuda_nat_sub(pb, g0, &sub);
    mc.pb = &sub;
    nsub = kb_cuda_plan_with(&sub, policy, kb_model_cost, &mc, sub_steps, &t);
    for (j = 0; j < nsub; j++)
      fused |= sub_steps[j].nf >= 2;
    if (!fused)
      continue;
    /* The leading factors' GEMMs, at the vector lengths they see. */
    K = pb->K / sub.K * sub.L;
    for (i = g0 - 1; i >= 0; i--) {
      t += kb_cublas_cost(pb, &mc.dv, i, K);
      K = K / pb->p[i] * pb->q[i];
    }
    if (kb_env()->log_level >= KB_LOG_DEBUG)
      kb_log(KB_LOG_DEBUG, "model: natural-order plan with factors %lld..%lld on sub-vectors %.4f ms",
             (long long)(n - 1), (long long)g0, t * 1e3);
    if (t >= best)
      continue;
    best = t;
    for (j = 0; j < nsub; j++) {
      steps[j] = sub_steps[j];
      steps[j].i_hi += g0;
    }
    for (i = g0 - 1; i >= 0; i--, j++) {
      steps[j].i_hi = i;
      steps[j].nf = 1;
      steps[j].kernel = KB_KERNEL_CUBLAS_NAT;
    }
    ns = j;
  }
  free(sub_steps);
  *total = best;
  return ns;
}

int64_t kb_cuda_plan(const kb_problem_t *pb, int policy, int nsm, kb_cuda_pstep_t *steps)
{
  double sliced = 0, col, nat;
  kb_cuda_pstep_t *alt;
  int64_t ns, na;
  if (kb_cuda_col_usable(pb, policy) && policy == KRONBLAS_KERNELS_CUBLAS)
    return kb_cuda_gemm_steps(pb, KB_KERNEL_CUBLAS_COL, steps);
  ns = kb_cuda_plan_sliced(pb, policy, nsm, steps, &sliced);
  if (kb_cuda_col_usable(pb, policy)) {
    col = kb_col_cost(pb);
    if (kb_env()->log_level >= KB_LOG_DEBUG)
      kb_log(KB_LOG_DEBUG, "model: column plan %.4f ms, sliced %.4f ms", col * 1e3, sliced * 1e3);
    if (col < sliced)
      return kb_cuda_gemm_steps(pb, KB_KERNEL_CUBLAS_COL, steps);
  }
  if (kb_cuda_nat_sub_usable(pb, policy) && (alt = malloc((size_t)pb->nfactors * sizeof *alt)) != NULL) {
    na = kb_cuda_plan_nat_sub(pb, policy, nsm, alt, &nat);
    if (na > 0 && nat < sliced) {
      memcpy(steps, alt, (size_t)na * sizeof *alt);
      ns = na;
    }
    free(alt);
  }
  return ns;
}

int64_t kb_cuda_plan_with(const kb_problem_t *pb, int policy, kb_cuda_cost_fn cost, void *ctx,
                          kb_cuda_pstep_t *steps, double *total)
{
  const int64_t n = pb->nfactors;
  const int real = pb->type == KRONBLAS_R_32F || pb->type == KRONBLAS_R_64F;
  const int64_t min_run = 32 / (int64_t)kb_type_size(pb->type);   /* a 32-byte sector */
  const int fast_ok = policy != KRONBLAS_KERNELS_GENERIC && policy != KRONBLAS_KERNELS_CUBLAS && real;
  const int model = cost == kb_model_cost;
  /* The model planning a natural-order plan's sub-problem: no JIT kernels. */
  const int precompiled = model && ((const kb_model_ctx_t *)ctx)->precompiled;
  int ncfg = 0, redo;
  const kb_cuda_fast_cfg_t *cfg;
  int64_t i, ns = 0, *Kin, *choice_nf;
  int *choice_k;
  double *best;
  char *mem;

  /* best[i + 1]: least time to apply factors i, i-1, ..., 0; Kin[i]: the
   * vector length when factor i is next. */
  if (total != NULL)
    *total = 1e30;   /* unknown (no memory to plan) */
  mem = malloc((size_t)(n + 1) * (sizeof *best + sizeof *Kin + sizeof *choice_nf + sizeof *choice_k));
  if (mem == NULL) {
    /* No room to plan: one generic launch per factor is always right. */
    for (i = n - 1; i >= 0; i--) {
      steps[ns].i_hi = i;
      steps[ns].nf = 1;
      steps[ns].kernel = -1;
      ns++;
    }
    return ns;
  }
  best = (double *)mem;
  Kin = (int64_t *)(best + n + 1);
  choice_nf = Kin + n + 1;
  choice_k = (int *)(choice_nf + n + 1);
  Kin[n - 1] = pb->K;
  for (i = n - 1; i > 0; i--)
    Kin[i - 1] = Kin[i] / pb->p[i] * pb->q[i];

  for (i = 0; i < n && fast_ok && !precompiled; i++) {
    int64_t run = 1;
    while (run < KB_CUDA_MAXF && i - run >= 0 && pb->p[i - run] == pb->p[i] && pb->q[i - run] == pb->q[i])
      run++;
    kb_jit_candidates(pb, i, Kin[i], (int)run, i == n - 1 && pb->xs_k != 1);
    /* Launches that may end at factor 0 write Y: along m, configurations
     * with whole sectors of vectors per block store it coalesced. */
    if (pb->ys_l != 1 && i < run && !(i == n - 1 && pb->xs_k != 1))
      kb_jit_candidates(pb, i, Kin[i], (int)run, 1);
    if (!model && policy == KRONBLAS_KERNELS_ALL)
      kb_jit_variants(pb, i, Kin[i], (int)run);
  }
  cfg = kb_cuda_fast_cfgs(&ncfg);

again:
  best[0] = 0;
  for (i = 0; i < n; i++) {
    /* mrows: X along m, read by the first launch. */
    const int mrows = i == n - 1 && pb->xs_k != 1;
    int64_t run = 1;
    int c, F;
    best[i + 1] = cost(ctx, i, Kin[i], KB_KERNEL_GENERIC, 1) + best[i];
    choice_nf[i] = 1;
    choice_k[i] = KB_KERNEL_GENERIC;
    if (policy == KRONBLAS_KERNELS_GENERIC)
      continue;
    /* The whole-vector kernel: any type and shapes, F factors while their
     * intermediates fit in shared memory (more factors only add one). */
    for (F = 1; (policy == KRONBLAS_KERNELS_ALL || (policy == KRONBLAS_KERNELS_NO_FUSION && F == 1)) &&
                F <= KB_CUDA_MAXF && F <= i + 1; F++) {
      int64_t ps[KB_CUDA_MAXF], qs[KB_CUDA_MAXF];
      kb_cuda_small_geom_t g;
      double t;
      int f;
      for (f = 0; f < F; f++) {
        ps[f] = pb->p[i - f];
        qs[f] = pb->q[i - f];
      }
      /* Checked here, not by the cost: the measured one would launch it. */
      if (kb_cuda_small_geom((int)pb->type, pb->m, 1, Kin[i], F, ps, qs, &g) != 0)
        break;
      t = cost(ctx, i, Kin[i], KB_KERNEL_SMALL, F);
      if (t < 0)
        continue;
      if (t + best[i + 1 - F] < best[i + 1]) {
        best[i + 1] = t + best[i + 1 - F];
        choice_nf[i] = F;
        choice_k[i] = KB_KERNEL_SMALL;
      }
    }
    if (!real)
      continue;
    /* The whole-row kernel: every factor in one launch, X along K, Y along
     * L (its step's output is the natural order only with all factors). */
    if (i == n - 1 && n >= 2 && policy == KRONBLAS_KERNELS_ALL && pb->xs_k == 1 && pb->ys_l == 1) {
      kb_cuda_row_geom_t g;
      if (kb_cuda_row_geom((int)pb->type, pb->m, 1, pb->K, (int)n, pb->p, pb->q, &g) == 0) {
        const double t = cost(ctx, i, Kin[i], KB_KERNEL_ROW, (int)n);
        if (t >= 0 && t < best[i + 1]) {
          best[i + 1] = t;
          choice_nf[i] = n;
          choice_k[i] = KB_KERNEL_ROW;
        }
        /* Measured planning only: the kernel's other cluster and block
         * sizes, with and without the next vector's prefetch (H100,
         * session 12: double 1024_4x4^7 in clusters of four 128-thread
         * blocks 0.191 ms against 0.220 for its one 512-thread block,
         * 2967_4x4^7 0.485 against 0.592; other shapes within noise;
         * session 21: the prefetch, row.cu's kb_row_pf_pays). */
        for (c = 1; c <= 8 && !model; c++) {
          static const int T[] = { 128, 256, 512 };
          size_t t;
          for (t = 0; t < 2 * sizeof T / sizeof T[0]; t++) {
            const int pf = (int)(t / (sizeof T / sizeof T[0]));
            const int k = kb_cuda_row_var_kernel(c, T[t % (sizeof T / sizeof T[0])], pf);
            kb_cuda_row_geom_t gv;
            double tv;
            if (kb_cuda_row_geom_k(k, (int)pb->type, pb->m, 1, pb->K, (int)n, pb->p, pb->q, &gv) != 0 ||
                (gv.cluster == g.cluster && gv.threads == g.threads && gv.pf == g.pf))
              continue;
            tv = cost(ctx, i, Kin[i], k, (int)n);
            if (tv >= 0 && tv < best[i + 1]) {
              best[i + 1] = tv;
              choice_nf[i] = n;
              choice_k[i] = k;
            }
          }
        }
      }
    }
    while (run < KB_CUDA_MAXF && i - run >= 0 && pb->p[i - run] == pb->p[i] && pb->q[i - run] == pb->q[i])
      run++;
    for (c = 0; c < ncfg && policy != KRONBLAS_KERNELS_CUBLAS; c++) {
      double t;
      if (cfg[c].type != (int)pb->type || cfg[c].P != pb->p[i] || cfg[c].Q != pb->q[i])
        continue;
      if (cfg[c].F > run || Kin[i] % cfg[c].TK != 0 || cfg[c].jit == KB_CFG_JIT_FAILED)
        continue;
      if ((model && cfg[c].variant) || (precompiled && cfg[c].jit != KB_CFG_TABLE))
        continue;
      if (mrows && !kb_cuda_cfg_mrows(&cfg[c]))
        continue;
      if (policy == KRONBLAS_KERNELS_NO_FUSION && cfg[c].F != 1)
        continue;
      /* Short output runs waste sectors, unless the slab is the vector or
       * the output runs along m in whole sectors. */
      if (cfg[c].run < min_run && cfg[c].TK != Kin[i] &&
          !(pb->ys_l != 1 && i + 1 == cfg[c].F && kb_cuda_cfg_mstore(&cfg[c])))
        continue;
      /* Measured: a JIT kernel is compiled before it is timed. */
      if (!model && cfg[c].jit == KB_CFG_JIT && kb_jit_ready(cfg, c) != 0)
        continue;
      t = cost(ctx, i, Kin[i], c, cfg[c].F);
      if (t < 0)
        continue;
      t += best[i + 1 - cfg[c].F];
      if (t < best[i + 1]) {
        best[i + 1] = t;
        choice_nf[i] = cfg[c].F;
        choice_k[i] = c;
      }
    }
    /* The slice-GEMM kernel's instantiations (one factor each, two for
     * the pair kernel, three for the trip8 and trip16 kernels, four for
     * the quad8 kernel). */
    for (c = 0; (policy == KRONBLAS_KERNELS_ALL || policy == KRONBLAS_KERNELS_NO_FUSION) && c < kb_cuda_gemm_count();
         c++) {
      const int F = kb_cuda_gemm_info(c)->F;
      double t;
      if ((F > 1 && policy != KRONBLAS_KERNELS_ALL) || !kb_cuda_gemm_usable(pb, i, Kin[i], c))
        continue;
      t = cost(ctx, i, Kin[i], KB_KERNEL_GEMM_0 - c, F);
      if (t >= 0 && t + best[i + 1 - F] < best[i + 1]) {
        best[i + 1] = t + best[i + 1 - F];
        choice_nf[i] = F;
        choice_k[i] = KB_KERNEL_GEMM_0 - c;
      }
    }
    /* cuBLAS steps read their input along k only. */
    if ((policy == KRONBLAS_KERNELS_ALL || policy == KRONBLAS_KERNELS_CUBLAS) && !mrows &&
        kb_cuda_cublas_usable(pb, pb->p[i], pb->q[i], Kin[i], i == 0)) {
      double t = policy == KRONBLAS_KERNELS_CUBLAS ? 0 : cost(ctx, i, Kin[i], KB_KERNEL_CUBLAS, 1);
      if (t >= 0 && t + best[i] < best[i + 1]) {
        best[i + 1] = t + best[i];
        choice_nf[i] = 1;
        choice_k[i] = KB_KERNEL_CUBLAS;
      }
    }
  }
  /* Modelled: the JIT kernels of the chosen split are compiled now, so that
   * one that fails is replaced here rather than failing the call. */
  redo = 0;
  for (i = n - 1; i >= 0 && model; i -= choice_nf[i])
    if (choice_k[i] >= 0 && cfg[choice_k[i]].jit == KB_CFG_JIT && kb_jit_ready(cfg, choice_k[i]) != 0)
      redo = 1;
  if (redo)
    goto again;
  for (i = n - 1; i >= 0; i -= choice_nf[i]) {
    steps[ns].i_hi = i;
    steps[ns].nf = (int)choice_nf[i];
    steps[ns].kernel = choice_k[i];
    ns++;
  }
  if (total != NULL)
    *total = best[n];
  free(mem);
  return ns;
}
