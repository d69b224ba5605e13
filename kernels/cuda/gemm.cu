// gemm.cu - the slice-GEMM kernel (KB_KERNEL_GEMM_0 - i): one float factor
// of P x Q with P, Q in {64, 128}, applied to vectors contiguous along k,
// as one register-tiled GEMM per vector,
//     C_r (S x Q) = A_r^T (S x P) * B (P x Q),   S = K / P,
// A_r the vector as P x S (k fastest), C_r the output vector with its new
// digit slowest (the step semantics of kb_cuda_kernels.h, what the cuBLAS
// step computes through cublasSgemmStridedBatched).  Its pair kernel
// (kb_gemm_pair_kernel, below the others) takes two fused 16x16 factors,
// its trip8 kernel (kb_gemm_trip8_kernel) three fused 8x8 ones, and the
// slab-4096 kernels three fused 16x16 (kb_gemm_trip16_kernel) or four
// fused 8x8 (kb_gemm_quad8_kernel).
//
// Why not cuBLAS: for P >= 64 a step is compute bound, and cuBLAS' batched
// GEMMs of inner dimension 64 or 128 run at 66-70% of the in-run SGEMM
// rate (H200, session 33: 1024_64x64^3 0.98 ms a factor, 1024_128x128^2
// 0.120 ms): every 64 x 64 or 128 x 128 GEMM fills and drains its own
// pipeline.  Here a resident grid keeps the factor in shared memory and
// walks tiles of TS slices of the vectors, its cp.async pipeline running
// on across tile boundaries, so that the next tile's loads overlap this
// one's multiply and its stores.  Measured (H200, session 33, float): 64x64
// in tiles of 128 slices 0.952 ms a factor at K = 2^18, m = 1024 (36.3
// TFLOP/s, cuBLAS 0.984); 128x128 0.1256 ms at K = 2^14, m = 1024 (cuBLAS
// 0.1207).  ncu (64x64): 62% of issue slots busy, 87% of the instructions
// FFMAs, two warps a scheduler with 1.1 eligible: latency, not bandwidth,
// holds it.  Not kept: more warps an SM with fewer registers (three or four
// 128-thread blocks, 256-thread blocks of 256 slices: 1.10-1.14 ms), the
// next k-steps' slices loaded a group ahead by hand (0.952), k-chunks of
// 64 (0.957), 128x128 in two blocks of 64 columns (0.126-0.134); session
// 34: slices stored k-major (1.075), warp tiles of 8 x 4 threads (0.962),
// 16-byte stores of four consecutive slices (0.961; 128x128 0.1237, still
// behind cuBLAS); session 35 (branch wip/gemm-rj4): 8 x 4 outputs a
// thread in 256-thread blocks at 121-128 registers (0.975; with the next
// k-group's slices read ahead 0.956: 3.8 warps a scheduler, 68.6% of
// issue slots, but the 1.5x shared reads fill the L1 wavefront pipe to
// 80%), their warps as 8 x 4 threads (0.988-1.003).  This kernel's
// stalls sit in the FFMAs' operands (short scoreboard, dispatch), which
// two warps a scheduler do not cover.  Faster, and what the model picks
// since session 36 (this one is the tuner's): kb_gemm_kt_kernel below,
// slices stored k-major through registers with 16-byte loads and stores,
// 167 registers, three blocks an SM: 0.925, 0.877 with its k-loop
// unrolled by 16; its 128x128 entry 0.1165 against cuBLAS' 0.1205.
//
// Shared layout: the factor as B[k][l] (l fastest); then ST stages of one
// k-chunk of a tile, slice s's TKC elements at s * (TKC + 4): the padding
// puts the 16-byte reads of eight consecutive slices in eight distinct
// bank groups.  Thread (ts, tq) holds the outputs of slices ts + (TS/8)*i
// (i < 8) and columns 4*tq + j, Q/2 + 4*tq + j (j < 4): per four k-steps
// it reads 8 + 8 16-byte vectors for 256 multiply-adds.
#include "kb_cuda_kernels.h"
#include "kb_cuda_ops.cuh"

#include <cuda.h>   // CUtensorMap (the slab-4096 kernels' TMA stores); no libcuda link: the encoder is reached at run time
#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

template <int P, int Q, int TS, int TKC, int ST>
struct kb_gemm_shape {
  static constexpr int NT = (TS / 8) * (Q / 8);   // threads
  static constexpr int AS = TKC + 4;               // a slice's stride in a stage
  static constexpr int STAGE = TS * AS;
  static constexpr int NKC = P / TKC;              // k-chunks of a tile
  static constexpr int SMEM = (P * Q + ST * STAGE) * 4;
  static_assert(P % TKC == 0 && TKC % 4 == 0 && Q % 8 == 0 && TS % 8 == 0, "tile");
  static_assert(TS * TKC / 4 % NT == 0 && P * Q % NT == 0, "a chunk's copies and the factor spread evenly");
};

struct kb_gemm_args {
  const float *F;
  int64_t fs_l, fs_k;
  const float *in;
  int64_t in_rs;
  float *out;
  int64_t out_rs;
  int64_t S;          // slices of a vector, K / P
  int64_t tps;        // tiles a vector: S / TS
  int64_t ntiles;     // m * tps
  const float *F1;    // kb_gemm_pair_kernel: the second factor
  int64_t fs_l1, fs_k1;
  const float *F2;    // the trip8, trip16 and quad8 kernels: the third factor
  int64_t fs_l2, fs_k2;
  const float *F3;    // kb_gemm_quad8_kernel: the fourth factor
  int64_t fs_l3, fs_k3;
  int epilogue;
  int vec;            // 16-byte copies (the input aligned); else 4-byte ones
  int vec_out;        // the output aligned to 16 bytes (kb_gemm_kt_kernel)
  float alpha, beta;
  int beta_zero;
  int tma;            // the TMA entries' tensor map: trip16's form (1 or 2); 1 for quad8's
  int tma_dev;        // the device has the TMA (kb_gemm_dev_has_tma): the TMA entries may make a map
};

// What both slice-GEMM kernels share.  A block walks tiles blockIdx.x,
// blockIdx.x + gridDim.x, ...; its chunk g is k-chunk g % nkc of the g /
// nkc-th of them.
__device__ __forceinline__ int64_t kb_gemm_mine(const kb_gemm_args &a)
{
  return a.ntiles > (int64_t)blockIdx.x ? (a.ntiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
}

// The cp.async pipeline of ST stages the slice kernel and the fused ones
// (pair, trip8, trip16, quad8) run over their n chunks: start issues chunks 0 .. ST - 2; next, at the top of chunk g,
// waits for chunk g, makes sure every thread is done with the stage chunk
// g + ST - 1 goes into (it read it for chunk g - 1), and issues that one.
// The barrier also covers what a kernel staged before (its factors).
template <int ST, class Issue>
__device__ __forceinline__ void kb_gemm_pipe_start(int64_t n, Issue issue)
{
#pragma unroll
  for (int s = 0; s < ST - 1; s++) {
    if (s < n)
      issue(s);
    kb_cp_commit();
  }
}

template <int ST, class Issue>
__device__ __forceinline__ void kb_gemm_pipe_next(int64_t g, int64_t n, Issue issue)
{
  kb_cp_wait<ST - 2>();
  __syncthreads();
  if (g + ST - 1 < n)
    issue(g + ST - 1);
  kb_cp_commit();
}

// The tile of chunk g: its vector r and its block of TS slices sb.
__device__ __forceinline__ void kb_gemm_tile(const kb_gemm_args &a, int64_t g, int nkc, int64_t *r, int64_t *sb)
{
  const int64_t t = blockIdx.x + (g / nkc) * gridDim.x;
  *r = t / a.tps;
  *sb = t % a.tps;
}

// A factor F (A[l,k] = F[l*fs_l + k*fs_k]) into shared memory as B[k][l],
// l fastest.
template <int P, int Q, int NT>
__device__ __forceinline__ void kb_gemm_stage_factor(const float *F, int64_t fs_l, int64_t fs_k, float *Bs)
{
  for (int e = threadIdx.x; e < P * Q; e += NT)
    Bs[e] = F[(e % Q) * fs_l + (e / Q) * fs_k];
}

// A fused kernel's NF factors (a.F, a.F1, ...) into shared memory one
// after another, P x P each.
template <int P, int NT, int NF>
__device__ __forceinline__ void kb_gemm_stage_fused(const kb_gemm_args &a, float *Fs)
{
  kb_gemm_stage_factor<P, P, NT>(a.F, a.fs_l, a.fs_k, Fs);
  if (NF >= 2)
    kb_gemm_stage_factor<P, P, NT>(a.F1, a.fs_l1, a.fs_k1, Fs + P * P);
  if (NF >= 3)
    kb_gemm_stage_factor<P, P, NT>(a.F2, a.fs_l2, a.fs_k2, Fs + 2 * P * P);
  if (NF >= 4)
    kb_gemm_stage_factor<P, P, NT>(a.F3, a.fs_l3, a.fs_k3, Fs + 3 * P * P);
}

// Whether the epilogue reads the old output (beta != 0).
__device__ __forceinline__ bool kb_gemm_reads_y(const kb_gemm_args &a)
{
  return a.epilogue == KB_EPI_AXPBY && !a.beta_zero;
}

// The epilogue of one output v whose old value is w (read only where
// kb_gemm_reads_y).
__device__ __forceinline__ float kb_gemm_epi(const kb_gemm_args &a, float v, float w)
{
  if (a.epilogue == KB_EPI_NONE)
    return v;
  if (kb_gemm_reads_y(a))
    return a.alpha * v + a.beta * w;
  return a.alpha * v;
}

// The old values of N outputs y[0], y[d], y[2 d], ... into w, all loads
// before any use: the store loops that follow may alias them as far as the
// compiler knows, so a load left beside its store would wait out a whole
// memory latency per output (beta != 0 ran 2-3.5x slower that way).
// beta = 0 never reads y.
template <int N>
__device__ __forceinline__ void kb_gemm_old(const kb_gemm_args &a, const float *y, int d, float (&w)[N])
{
  if (kb_gemm_reads_y(a)) {
#pragma unroll
    for (int i = 0; i < N; i++)
      w[i] = y[i * d];
  } else {
#pragma unroll
    for (int i = 0; i < N; i++)
      w[i] = 0.0f;
  }
}

// The epilogue of one output at y, its old value read right beside its
// store: the k-major and register-tiled kernels (kb_gemm_kt_kernel,
// kb_gemm_kernel) keep it, because loading a group first there made beta = 0
// 2-3% slower and beta != 0 only 1-3% faster (session 46).  Its test is
// spelled out, not kb_gemm_reads_y: that alone changed kt's code.
__device__ __forceinline__ float kb_gemm_epi_at(const kb_gemm_args &a, float v, const float *y)
{
  if (a.epilogue == KB_EPI_NONE)
    return v;
  if (a.epilogue == KB_EPI_AXPBY && !a.beta_zero)
    return a.alpha * v + a.beta * *y;
  return a.alpha * v;
}

// The same for four consecutive outputs, y read with one 16-byte load
// when FAST (aligned).
template <int FAST>
__device__ __forceinline__ float4 kb_gemm_epi4_at(const kb_gemm_args &a, float4 v, const float *y)
{
  if (a.epilogue == KB_EPI_AXPBY && !a.beta_zero) {
    const float4 w = FAST ? *(const float4 *)y : make_float4(y[0], y[1], y[2], y[3]);
    return make_float4(a.alpha * v.x + a.beta * w.x, a.alpha * v.y + a.beta * w.y, a.alpha * v.z + a.beta * w.z,
                       a.alpha * v.w + a.beta * w.w);
  }
  if (a.epilogue != KB_EPI_NONE)
    return make_float4(a.alpha * v.x, a.alpha * v.y, a.alpha * v.z, a.alpha * v.w);
  return v;
}

template <int P, int Q, int TS, int TKC, int ST, int MINB>
__global__ void __launch_bounds__(kb_gemm_shape<P, Q, TS, TKC, ST>::NT, MINB)
kb_gemm_kernel(const kb_gemm_args a)
{
  typedef kb_gemm_shape<P, Q, TS, TKC, ST> S;
  extern __shared__ float4 kb_gemm_smem[];
  float *const Bs = (float *)kb_gemm_smem;
  float *const As = Bs + P * Q;
  const int tid = threadIdx.x;
  const int ts = tid % (TS / 8), tq = tid / (TS / 8);
  const int64_t mine = kb_gemm_mine(a);
  const int64_t nchunks = mine * S::NKC;
  float acc[8][8];

  kb_gemm_stage_factor<P, Q, S::NT>(a.F, a.fs_l, a.fs_k, Bs);

  // chunk g of this block (kb_gemm_tile) into stage g % ST
  auto load = [&](int64_t g) {
    const int kc = (int)(g % S::NKC);
    int64_t r, sb;
    kb_gemm_tile(a, g, S::NKC, &r, &sb);
    const float *src = a.in + r * a.in_rs + sb * TS * P + kc * TKC;
    const unsigned dst = (unsigned)__cvta_generic_to_shared(As + (int)(g % ST) * S::STAGE);
    if (a.vec) {
#pragma unroll
      for (int it = 0; it < TS * TKC / 4 / S::NT; it++) {
        const int e = tid + it * S::NT, row = e / (TKC / 4), c = e % (TKC / 4);
        kb_cp_s<16>(dst + (unsigned)(row * S::AS + 4 * c) * 4u, src + (int64_t)row * P + 4 * c, true);
      }
    } else {
      for (int it = 0; it < TS * TKC / S::NT; it++) {
        const int e = tid + it * S::NT, row = e / TKC, c = e % TKC;
        kb_cp_s<4>(dst + (unsigned)(row * S::AS + c) * 4u, src + (int64_t)row * P + c, true);
      }
    }
  };

  kb_gemm_pipe_start<ST>(nchunks, load);
#pragma unroll
  for (int i = 0; i < 8; i++)
#pragma unroll
    for (int j = 0; j < 8; j++)
      acc[i][j] = 0.0f;

  for (int64_t g = 0; g < nchunks; g++) {
    kb_gemm_pipe_next<ST>(g, nchunks, load);
    const float *A = As + (int)(g % ST) * S::STAGE + ts * S::AS;
    const int kc = (int)(g % S::NKC);
    const float *B = Bs + kc * TKC * Q + 4 * tq;
#pragma unroll
    for (int kk = 0; kk < TKC; kk += 4) {
      float4 av[8];
#pragma unroll
      for (int i = 0; i < 8; i++)
        av[i] = *(const float4 *)(A + i * (TS / 8) * S::AS + kk);
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const float4 b0 = *(const float4 *)(B + (kk + u) * Q);
        const float4 b1 = *(const float4 *)(B + (kk + u) * Q + Q / 2);
#pragma unroll
        for (int i = 0; i < 8; i++) {
          const float x = u == 0 ? av[i].x : u == 1 ? av[i].y : u == 2 ? av[i].z : av[i].w;
          acc[i][0] = fmaf(x, b0.x, acc[i][0]);
          acc[i][1] = fmaf(x, b0.y, acc[i][1]);
          acc[i][2] = fmaf(x, b0.z, acc[i][2]);
          acc[i][3] = fmaf(x, b0.w, acc[i][3]);
          acc[i][4] = fmaf(x, b1.x, acc[i][4]);
          acc[i][5] = fmaf(x, b1.y, acc[i][5]);
          acc[i][6] = fmaf(x, b1.z, acc[i][6]);
          acc[i][7] = fmaf(x, b1.w, acc[i][7]);
        }
      }
    }
    if (kc == S::NKC - 1) {
      int64_t r, sb;
      kb_gemm_tile(a, g, S::NKC, &r, &sb);
      float *o = a.out + r * a.out_rs + sb * TS + ts;
#pragma unroll
      for (int j = 0; j < 8; j++) {
        const int l = j < 4 ? 4 * tq + j : Q / 2 + 4 * tq + j - 4;
        float *y = o + (int64_t)l * a.S;
#pragma unroll
        for (int i = 0; i < 8; i++) {
          float *yi = y + i * (TS / 8);
          *yi = kb_gemm_epi_at(a, acc[i][j], yi);
          acc[i][j] = 0.0f;
        }
      }
    }
  }
  kb_cp_wait<0>();
}


// The same GEMM with the slices stored k-major in shared memory, as
// register-tiled SGEMMs store A: row k of a stage holds element k of the
// tile's TS slices (stride TS + 4: the transposing 16-byte stores of a warp
// -- 8 k-groups x 4 slice groups -- fill all eight bank groups, and the
// 16-byte reads of consecutive slice groups stay conflict-free).  A thread
// loads 4 x 4 blocks (4 consecutive slices x 4 consecutive k) into
// registers, one chunk ahead, and stores them transposed with 16-byte
// shared stores.  Thread (ts, tq) owns slices 4*ts + i and TS/2 + 4*ts + i,
// columns 4*tq + j and Q/2 + 4*tq + j (i, j < 4): per k-step 2 + 2 16-byte
// shared reads for 64 multiply-adds with only that step's 16 operands live
// (the slice-major kernel holds four steps' 32 slice operands), so that 8
// x 8 outputs fit three blocks of four warps an SM (64x64, TS = 128: 167
// registers).  FAST: X and Y aligned to 16 bytes (16-byte loads and
// stores); else 4-byte ones.  W84: a warp's threads as 8 slice groups x 4
// column groups (its slice reads one wavefront, not two); else TS/8 x
// 32/(TS/8).  k-chunks of 32, two stages.  Measured (H200, session 35, the
// tuner's timing of one 64x64 factor at K = 2^18, m = 1024): TS = 128,
// MINB = 3: 0.925 ms against 0.954 for kb_gemm_kernel and 0.985 for
// cuBLAS; MINB = 4 (128 registers, the staged blocks spilled) 1.064.
// Session 36: 128x128, TS = 128, MINB = 2 0.1165 ms at K = 2^14, m = 1024
// (cuBLAS 0.1205, kb_gemm_kernel 0.1256), 0.219 at K = 2^21, m = 16
// (cuBLAS 0.221); W84 0.938 and TS = 64 (MINB 6) 1.02-1.03 for 64x64, TS =
// 64 0.1234 for 128x128: tuner-only.  ncu (64x64, TS = 128): 2.8 warps a
// scheduler, 66% of issue slots busy, its stalls "not selected" (1.17 of
// 4.08 cycles an instruction), short scoreboard 0.51, no instruction 0.53:
// the fully unrolled k-loop (2048 FFMAs a chunk) runs out of the
// instruction cache.  KU: the k-loop unrolled by KU steps.  64x64 with KU
// = 16: 0.877 ms (KU = 8 0.895, 4 0.943, 32 0.933); 128x128 with KU = 8 or
// 16 0.126-0.128 against 0.1164 at 32 (ptxas spills at 128 registers).
template <int P, int Q, int TS, int MINB, int FAST, int W84>
struct kb_gemm_kt_shape {
  static constexpr int TKC = 32, NKC = P / TKC, RS = TS + 4, STAGE = TKC * RS;
  static constexpr int NT = (TS / 8) * (Q / 8);
  static constexpr int NBLK = TS / 4 * (TKC / 4) / NT;   // 4 x 4 blocks a thread a chunk
  static constexpr int SMEM = (P * Q + 2 * STAGE) * 4;
  static_assert(P % TKC == 0 && TS % 64 == 0 && Q % 32 == 0 && NBLK >= 1 && NBLK * NT == TS / 4 * (TKC / 4) &&
                P * Q % NT == 0, "kt tile");
};

template <int P, int Q, int TS, int MINB, int FAST, int W84, int KU>
__global__ void __launch_bounds__(kb_gemm_kt_shape<P, Q, TS, MINB, FAST, W84>::NT, MINB)
kb_gemm_kt_kernel(const kb_gemm_args a)
{
  typedef kb_gemm_kt_shape<P, Q, TS, MINB, FAST, W84> S;
  constexpr int TKC = S::TKC, NKC = S::NKC, RS = S::RS, STAGE = S::STAGE, NT = S::NT, NBLK = S::NBLK;
  extern __shared__ float4 kb_gemm_smem[];
  float *const Bs = (float *)kb_gemm_smem;
  float *const As = Bs + P * Q;
  const int tid = threadIdx.x;
  const int ts = W84 ? tid % 8 + 8 * (tid / 32 % (TS / 64)) : tid % (TS / 8);
  const int tq = W84 ? tid / 8 % 4 + 4 * (tid / 32 / (TS / 64)) : tid / (TS / 8);
  const int64_t mine = kb_gemm_mine(a);
  const int64_t nchunks = mine * NKC;
  float acc[8][8];
  float4 stg[NBLK][4];

  kb_gemm_stage_factor<P, Q, NT>(a.F, a.fs_l, a.fs_k, Bs);

  // chunk g (kb_gemm_tile) into registers.  Block b of a thread: k-group kg = blk % 8, slice group G = blk / 8; a
  // warp's loads of one j are 4 slices' 128 contiguous bytes each.
  auto load = [&](int64_t g) {
    const int kc = (int)(g % NKC);
    int64_t r, sb;
    kb_gemm_tile(a, g, NKC, &r, &sb);
    const float *src = a.in + r * a.in_rs + sb * TS * P + kc * TKC;
#pragma unroll
    for (int b = 0; b < NBLK; b++) {
      const int blk = tid + b * NT, kg = blk % (TKC / 4), G = blk / (TKC / 4);
#pragma unroll
      for (int j = 0; j < 4; j++) {
        const float *p = src + (int64_t)(4 * G + j) * P + 4 * kg;
        if (FAST)
          stg[b][j] = __ldg((const float4 *)p);
        else
          stg[b][j] = make_float4(__ldg(p), __ldg(p + 1), __ldg(p + 2), __ldg(p + 3));
      }
    }
  };
  auto store = [&](int64_t g) {
    float *dst = As + (int)(g % 2) * STAGE;
#pragma unroll
    for (int b = 0; b < NBLK; b++) {
      const int blk = tid + b * NT, kg = blk % (TKC / 4), G = blk / (TKC / 4);
      float *d = dst + 4 * kg * RS + 4 * G;
      *(float4 *)(d + 0 * RS) = make_float4(stg[b][0].x, stg[b][1].x, stg[b][2].x, stg[b][3].x);
      *(float4 *)(d + 1 * RS) = make_float4(stg[b][0].y, stg[b][1].y, stg[b][2].y, stg[b][3].y);
      *(float4 *)(d + 2 * RS) = make_float4(stg[b][0].z, stg[b][1].z, stg[b][2].z, stg[b][3].z);
      *(float4 *)(d + 3 * RS) = make_float4(stg[b][0].w, stg[b][1].w, stg[b][2].w, stg[b][3].w);
    }
  };

#pragma unroll
  for (int i = 0; i < 8; i++)
#pragma unroll
    for (int j = 0; j < 8; j++)
      acc[i][j] = 0.0f;
  if (nchunks > 0) {
    load(0);
    store(0);
  }
  __syncthreads();   // also: the factor is staged
  if (nchunks > 1)
    load(1);

  for (int64_t g = 0; g < nchunks; g++) {
    const float *A = As + (int)(g % 2) * STAGE + 4 * ts;
    const int kc = (int)(g % NKC);
    const float *B = Bs + kc * TKC * Q + 4 * tq;
#pragma unroll KU
    for (int k = 0; k < TKC; k++) {
      const float4 a0 = *(const float4 *)(A + k * RS), a1 = *(const float4 *)(A + k * RS + TS / 2);
      const float4 b0 = *(const float4 *)(B + k * Q), b1 = *(const float4 *)(B + k * Q + Q / 2);
      const float av[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
      const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
      for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++)
          acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    if (kc == NKC - 1) {
      int64_t r, sb;
      kb_gemm_tile(a, g, NKC, &r, &sb);
      float *o = a.out + r * a.out_rs + sb * TS + 4 * ts;
#pragma unroll
      for (int j = 0; j < 8; j++) {
        const int l = j < 4 ? 4 * tq + j : Q / 2 + 4 * tq + j - 4;
#pragma unroll
        for (int h = 0; h < 2; h++) {
          float *y = o + (int64_t)l * a.S + h * (TS / 2);
          const float4 v = kb_gemm_epi4_at<FAST>(
              a, make_float4(acc[4 * h][j], acc[4 * h + 1][j], acc[4 * h + 2][j], acc[4 * h + 3][j]), y);
          if (FAST) {
            *(float4 *)y = v;
          } else {
            y[0] = v.x;
            y[1] = v.y;
            y[2] = v.z;
            y[3] = v.w;
          }
#pragma unroll
          for (int i = 0; i < 4; i++)
            acc[4 * h + i][j] = 0.0f;
        }
      }
    }
    if (g + 1 < nchunks)
      store(g + 1);
    // the stage just stored is read from chunk g + 1 on; the one chunk g
    // read is stored next
    __syncthreads();
    if (g + 2 < nchunks)
      load(g + 2);
  }
}

// The pair and trip8 kernels' copy of tile it of this block into its
// stage: whole slabs of SLAB elements, a slab's stride SS in shared memory.
// 16-byte piece tid + c NT of the tile is slab (tid + c NT) / (SLAB / 4),
// piece tid % (SLAB / 4) of it; 4-byte copies where X is off 16 bytes.
template <int U, int SLAB, int SS, int NT, int ST, int FAST>
__device__ __forceinline__ void kb_gemm_issue_slabs(const kb_gemm_args &a, float *As, int64_t it, int tid)
{
  constexpr int PPS = SLAB / 4, STAGE = U * SS, CPT = U * SLAB / 4 / NT;
  static_assert(NT % PPS == 0 && (U * SLAB / 4) % NT == 0, "whole slabs a round of pieces");
  int64_t r, sb;
  kb_gemm_tile(a, it, 1, &r, &sb);
  const float *src = a.in + r * a.in_rs + sb * (U * SLAB) + 4 * tid;
  float *dst = As + (int)(it % ST) * STAGE + (tid / PPS) * SS + 4 * (tid % PPS);
#pragma unroll
  for (int c = 0; c < CPT; c++) {
    if (FAST) {
      kb_cp16(dst + c * (NT / PPS) * SS, src + c * 4 * NT, true);
    } else {
#pragma unroll
      for (int e = 0; e < 4; e++)
        kb_cp<4>(dst + c * (NT / PPS) * SS + e, src + c * 4 * NT + e, true);
    }
  }
}

// The fused kernels' first factor on a P x P sub-slab X[d1][d0]
// (rows of P): T[d1][j] = sum_d0 X[d1][d0] A[d0][4 tq + j] for all P d1,
// A staged as rows of P / 4 float4 (kb_gemm_stage_factor), read as
// broadcasts where tq is warp-uniform.
template <int P>
__device__ __forceinline__ void kb_gemm_first_factor(const float *X, const float *Fa, int tq, float (&T)[P][4])
{
#pragma unroll
  for (int d1 = 0; d1 < P; d1++)
#pragma unroll
    for (int j = 0; j < 4; j++)
      T[d1][j] = 0.0f;
#pragma unroll
  for (int g = 0; g < P / 4; g++) {
    float4 b[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      b[k] = ((const float4 *)Fa)[(4 * g + k) * (P / 4) + tq];
#pragma unroll
    for (int d1 = 0; d1 < P; d1++) {
      const float4 x = *(const float4 *)(X + d1 * P + 4 * g);
      const float xv[4] = { x.x, x.y, x.z, x.w };
#pragma unroll
      for (int k = 0; k < 4; k++) {
        T[d1][0] = fmaf(xv[k], b[k].x, T[d1][0]);
        T[d1][1] = fmaf(xv[k], b[k].y, T[d1][1]);
        T[d1][2] = fmaf(xv[k], b[k].z, T[d1][2]);
        T[d1][3] = fmaf(xv[k], b[k].w, T[d1][3]);
      }
    }
  }
}

// kb_gemm_pair_kernel: two fused float 16x16 factors, the second one's sum
// local to a thread (session 37).  A vector is slabs u of 256 elements,
// X[u][d1][d0]; four threads share a slab, thread (u, tq) taking the
// columns l0 = 4 tq + j (j < 4) of the first factor:
//     T[d1][j]  = sum_d0 X[u][d1][d0] A[d0][4 tq + j]     (all 16 d1)
//     Y[l1][4 tq + j][u] = sum_d1 T[d1][j] B[d1][l1]      (all 16 l1)
// so the first factor's outputs a thread needs for the second are its own
// registers: no intermediate in shared memory, no barrier or transpose
// between the two.  Per slab a thread reads 64 + 16 + 64 16-byte vectors
// of shared memory for 2048 multiply-adds, the factors' as broadcasts
// (a warp is 32 slabs of one tq).  Tiles of U slabs are staged whole by
// cp.async, ST deep, and walked by a resident grid; a warp's stores of one
// (l1, l0) are 128 contiguous bytes, out at their final index.  H200,
// stand-alone trial (session 37): 0.599 ms at K =
// 2^24, m = 16 (U 64, ST 2) against 0.685 for the fast kernel's two fused
// 16x16 factors, and 2.427 at K = 2^20, m = 1024 (U 32, ST 3) against
// 2.68: a copy of the same bytes took 0.552 and 2.40 (the trial's source:
// branch wip/pair-loc-trial, tools/pairloc_bench.cu).  In the library the
// tuner timed 0.570-0.574 and 2.252-2.254 (U 64).  Its first factor alone
// (NF = 1, T stored as it is) ran slower than the fast kernel's one 16x16
// factor (2.33 ms at K = 2^20, m = 1024) and was dropped.
template <int U, int ST>
struct kb_gemm_pair_shape {
  static constexpr int P = 16, SS = P * P + 4;   // a slab's stride: 16-byte reads of 8 slabs in 8 bank groups
  static constexpr int NT = 4 * U, STAGE = U * SS;
  static constexpr int SMEM = (2 * P * P + ST * STAGE) * 4;
  static_assert(U % 32 == 0 && ST >= 2, "pair tile: a warp is 32 slabs of one tq");
};

template <int U, int ST, int MINB, int FAST>
__global__ void __launch_bounds__(4 * U, MINB) kb_gemm_pair_kernel(const kb_gemm_args a)
{
  typedef kb_gemm_pair_shape<U, ST> S;
  constexpr int P = S::P, SS = S::SS, NT = S::NT, STAGE = S::STAGE;
  extern __shared__ float4 kb_gemm_smem[];
  float *const Fa = (float *)kb_gemm_smem, *const Fb = Fa + P * P, *const As = Fb + P * P;
  const int tid = threadIdx.x, ul = tid % U;
  // warp-uniform, and said so: the compiler keeps it in a uniform register
  const int tq = __shfl_sync(0xffffffffu, tid / U, 0);
  const int64_t mine = kb_gemm_mine(a);
  const int s0 = (int)a.S;   // K / 256: the output's l0 stride; K < 2^31 (kb_cuda_gemm_find)

  kb_gemm_stage_fused<P, NT, 2>(a, Fa);
  auto issue = [&](int64_t it) { kb_gemm_issue_slabs<U, P * P, SS, NT, ST, FAST>(a, As, it, tid); };
  kb_gemm_pipe_start<ST>(mine, issue);
  for (int64_t it = 0; it < mine; it++) {
    kb_gemm_pipe_next<ST>(it, mine, issue);
    const float *A = As + (int)(it % ST) * STAGE + ul * SS;
    float T[P][4];
    kb_gemm_first_factor<P>(A, Fa, tq, T);
    int64_t r, sb;
    kb_gemm_tile(a, it, 1, &r, &sb);
    float *y = a.out + r * a.out_rs + sb * U + ul + 4 * tq * (int64_t)s0;
    // the second factor in two halves of l1: 32 accumulators, not 64
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float acc[4][8];
#pragma unroll
      for (int j = 0; j < 4; j++)
#pragma unroll
        for (int i = 0; i < 8; i++)
          acc[j][i] = 0.0f;
#pragma unroll
      for (int d1 = 0; d1 < P; d1++) {
        const float4 b0 = ((const float4 *)Fb)[d1 * (P / 4) + 2 * h];
        const float4 b1 = ((const float4 *)Fb)[d1 * (P / 4) + 2 * h + 1];
        const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
          for (int i = 0; i < 8; i++)
            acc[j][i] = fmaf(T[d1][j], bv[i], acc[j][i]);
      }
      // 32-bit offsets within the row: one a column, stepped by K / 16
#pragma unroll
      for (int j = 0; j < 4; j++) {
        float *yj = y + (8 * h * P + j) * s0;
        float w[8];
        kb_gemm_old(a, yj, P * s0, w);
#pragma unroll
        for (int i = 0; i < 8; i++)
          yj[i * P * s0] = kb_gemm_epi(a, acc[j][i], w[i]);
      }
    }
  }
  kb_cp_wait<0>();
}

// The fused kernels' factors after the first, one input row d at a time:
// acc[l][j] += in[j] * C[d][l] for NL outputs l of a staged factor C
// (rows of RS floats, read as float4 broadcasts) and 4 columns j; NL = 8
// of RS = 16 takes half of a 16x16 factor's columns (C offset to them).
template <int NL = 8, int RS = NL>
__device__ __forceinline__ void kb_gemm_outer4(const float (&in)[4], const float *C, int d, float (&acc)[NL][4])
{
  float4 c[NL / 4];
#pragma unroll
  for (int g = 0; g < NL / 4; g++)
    c[g] = ((const float4 *)C)[d * (RS / 4) + g];
#pragma unroll
  for (int g = 0; g < NL / 4; g++) {
    const float cv[4] = { c[g].x, c[g].y, c[g].z, c[g].w };
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
      for (int j = 0; j < 4; j++)
        acc[4 * g + i][j] = fmaf(in[j], cv[i], acc[4 * g + i][j]);
  }
}

template <int NL>
__device__ __forceinline__ void kb_gemm_zero4(float (&acc)[NL][4])
{
#pragma unroll
  for (int l = 0; l < NL; l++)
#pragma unroll
    for (int j = 0; j < 4; j++)
      acc[l][j] = 0.0f;
}

// kb_gemm_trip8_kernel: three fused float 8x8 factors in the pair kernel's
// manner (written in session 37 after the stand-alone trial
// tools/trip8_bench.cu on branch wip/pair-loc-trial; H200, session 38:
// 0.582-0.608 ms a pass of 2^28 elements against the fast kernel's
// 0.637-0.647, where a copy of the same bytes takes 0.55).  A vector is
// slabs u of 512, X[u][d2][d1][d0]; thread (u, d2, tq) sums the first two factors
// of its sub-slab of 64 in registers,
//     T[d1][j] = sum_d0 X[u][d2][d1][d0] A[d0][4 tq + j],  V[l1][j] = sum_d1 T[d1][j] B[d1][l1],
// writes V to E[u][tq][l1][d2][j] in shared memory, and after a barrier
// thread (u, r, tq) takes l1 = r:
//     Y[l2][r][4 tq + j][u] = sum_d2 E[u][tq][r][d2][j] C[d2][l2].
// A warp is 32 slabs of one (d2, tq): the factors' reads are broadcasts,
// 16-byte reads of 32 slabs hit 8 bank groups, a warp's stores of one
// (l2, l0) are 128 contiguous bytes.  Tiles of U = 32 slabs (64 KB), two
// stages, 512 threads, one block an SM (194 KB), 100 registers.
// With ST = 3 the exchange goes into the stage the tile came in (E[u] in
// slab u's place, after a barrier: every thread is done with X), so three
// stages fit where two and E did: two tiles' loads in flight, not one
// (96 registers; H200, session 39: 0.567-0.605 ms a pass of 2^28
// elements, 0.6-3.2% faster than two stages from 2^26 elements, 4% slower
// at 2^25).  The next tile's cp.async into that stage waits for
// kb_gemm_pipe_next's barrier, after every thread has read E.
template <int ST>
struct kb_gemm_trip8_shape {
  static constexpr int P = 8, SLAB = P * P * P, SS = SLAB + 4, U = 32, NT = U * P * 2;
  static constexpr int STAGE = U * SS;
  static constexpr int SMEM = (3 * P * P + ST * STAGE + (ST == 2 ? U * SS : 0)) * 4;
  static_assert(ST == 2 || ST == 3, "E apart (2 stages) or in place (3)");
};

template <int ST, int FAST>
__global__ void __launch_bounds__(kb_gemm_trip8_shape<ST>::NT, 1) kb_gemm_trip8_kernel(const kb_gemm_args a)
{
  typedef kb_gemm_trip8_shape<ST> S;
  constexpr int P = S::P, SLAB = S::SLAB, SS = S::SS, U = S::U, NT = S::NT, STAGE = S::STAGE;
  extern __shared__ float4 kb_gemm_smem[];
  float *const Fa = (float *)kb_gemm_smem, *const Fb = Fa + P * P, *const Fc = Fb + P * P;
  float *const As = Fc + P * P, *const E = As + ST * STAGE;
  const int tid = threadIdx.x, ul = tid % U;
  const int w = __shfl_sync(0xffffffffu, tid / U, 0);   // warp-uniform: d2 (then r) and tq
  const int d2 = w % P, tq = w / P;
  const int64_t mine = kb_gemm_mine(a);
  const int s0 = (int)a.S;   // K / 512: the output's l0 stride; K < 2^31 (kb_cuda_gemm_find)

  kb_gemm_stage_fused<P, NT, 3>(a, Fa);
  auto issue = [&](int64_t it) { kb_gemm_issue_slabs<U, SLAB, SS, NT, ST, FAST>(a, As, it, tid); };
  kb_gemm_pipe_start<ST>(mine, issue);
  for (int64_t it = 0; it < mine; it++) {
    kb_gemm_pipe_next<ST>(it, mine, issue);   // also: E the last tile read is free
    const float *X = As + (int)(it % ST) * STAGE + ul * SS + d2 * P * P;
    float T[P][4];
    kb_gemm_first_factor<P>(X, Fa, tq, T);
    float V[P][4];
    kb_gemm_zero4(V);
#pragma unroll
    for (int d1 = 0; d1 < P; d1++)
      kb_gemm_outer4(T[d1], Fb, d1, V);
    if (ST == 3)
      __syncthreads();   // E takes the place of this tile's X
    float *Eu = (ST == 2 ? E : As + (int)(it % ST) * STAGE) + ul * SS + tq * (P * P * 4);   // E[u][tq][l1][d2][j]
#pragma unroll
    for (int l = 0; l < P; l++)
      *(float4 *)(Eu + (l * P + d2) * 4) = make_float4(V[l][0], V[l][1], V[l][2], V[l][3]);
    __syncthreads();
    const int r1 = d2;   // this thread's l1 from here on
    float Z[P][4];
    kb_gemm_zero4(Z);
#pragma unroll
    for (int dd = 0; dd < P; dd++) {
      const float4 e = *(const float4 *)(Eu + (r1 * P + dd) * 4);
      const float ev[4] = { e.x, e.y, e.z, e.w };
      kb_gemm_outer4(ev, Fc, dd, Z);
    }
    int64_t r, sb;
    kb_gemm_tile(a, it, 1, &r, &sb);
    float *y = a.out + r * a.out_rs + sb * U + ul;
    // Y[l2][r1][4 tq + j][u]: 32-bit offsets within the row
#pragma unroll
    for (int j = 0; j < 4; j++) {
      float *yj = y + (r1 * P + 4 * tq + j) * s0;
      float w[P];
      kb_gemm_old(a, yj, P * P * s0, w);
#pragma unroll
      for (int l = 0; l < P; l++)
        yj[l * P * P * s0] = kb_gemm_epi(a, Z[l][j], w[l]);
    }
  }
  kb_cp_wait<0>();
}

// The slab-4096 kernels (kb_gemm_trip16_kernel, kb_gemm_quad8_kernel)
// walk tiles of 8 slabs (TS) in two halves, chunk g being half g % 2 of
// tile g / 2 (kb_gemm_tile with nkc = 2): half h is the slabs 2 u + h (u <
// 4), so that a thread's outputs of the two halves are neighbours.  Both
// halves' outputs go out after the second as 8-byte stores, four lanes a
// 32-byte sector: a tile of 4 consecutive slabs would write each sector in
// two halves from two SMs, and the L2 fills such sectors from DRAM (session
// 40's first trial, 4-byte stores of tiles of 4 consecutive slabs, three
// stages: 0.7 TB/s, 1.6x the DRAM reads a copy makes, its warps stalled on
// lg_throttle; quad8 2.88-2.98 ms a pass of 2^28 elements, trip16
// 12.4-12.7 at 2^30).  A thread keeps its first half's outputs in its own
// words of shared memory (Sg) meanwhile, and there is no room for a third
// stage beside them.  H200, session 40's tuner: quad8 0.884-0.895 ms a pass
// of 2^28, trip16 4.015-4.047 at 2^30 (25.6 TFLOP/s; 1.013-1.026 at 2^28),
// where a copy of the same bytes takes 0.51 and 2.05.  Not kept (branch
// wip/slab4096-c2): clusters of two blocks taking the two halves of a
// tile at once, three stages and no Sg, the partner's outputs read through
// distributed shared memory after a cluster barrier: quad8 1.026-1.028,
// trip16 9.34-9.35.  Where quad8's time goes (session 41, ncu samples a
// SASS instruction): a quarter of its warps' samples wait in the output
// code for the LSU to take the 8-byte stores (23.6% on the branches after
// them), almost none for the cp.async data; the block's 16 warps pass
// three barriers a chunk, so all of them wait on the same tile's 512
// stores.  Not kept, all slower or equal: the cluster pairs meeting
// through st.async and mbarriers instead (wip/slab4096-push: quad8 1.08,
// trip16 4.86); an L2 prefetch of the chunk 1-3 ahead (wip/l2pf: quad8
// 0.924, trip8 up to 1.4x slower); blocks started up to 22 us apart (no
// change); half the second half's outputs stored during the next chunk
// (wip/defer: quad8 1.059, its deferred values spilled).  The exchange
// mid-chunk keeps the warps in step; hiding the stores needs them spread
// through the multiply-adds without spills, or another engine to store
// them: the TMA entries (":tma" words, TMA = 1) hand each tile's outputs
// to the tensor memory accelerator in boxes of 4 or 8 KB (session 42's
// tuner: quad8 0.739-0.747 ms, trip16 3.59-3.60; -16% and -10%).  Not
// kept, quad8 the same or slower (session 43): 8 columns a thread on 256
// threads (wip/q8j8: 0.739-0.759); the tile's outputs in two 64 KB boxes,
// or half of them in one drained during the next chunk (wip/q8tma2:
// 0.79-0.97); each chunk's copy issued after the third factor of the
// chunk two back (wip/q8early: 0.941).  Copies and stores apart, as now,
// did best; in SASS both kinds of wait are DEPBAR on one scoreboard (SB0).
// Why no form does much better (session 44's probe, tools/tma_probe.cu on
// branch wip/tma-probe): a tile of 8 slabs makes 32-byte output rows, and
// the H200 stores those at 2.7 TB/s, by TMA or st.global alike (64- and
// 128-byte rows: 3.7-3.9); copying quad8's input and storing its outputs
// in this pattern, with no arithmetic, takes 0.70-0.74 ms a pass.  Rows of
// 64 bytes need 16 slabs' outputs (256 KB) in one place; pairs of SMs
// joining rows through distributed shared memory, the mirrored form
// (contiguous stores, reads gathered 16 bytes at a time) and L2 eviction
// hints (wip/l2hint) were all slower or the same.
//
// Their copy of chunk g into its stage: U slabs of SLAB elements, each as
// SLAB / SUB sub-slabs of SUB at stride SUBS (the padding that keeps their
// 16-byte reads of eight sub-slabs in eight bank groups), a slab at stride
// SS.  Piece tid + c NT of the chunk is in sub-slab (tid + c NT) / (SUB /
// 4) counted over the chunk.
template <int U, int SLAB, int SUB, int SUBS, int SS, int NT, int ST, int FAST>
__device__ __forceinline__ void kb_gemm_issue_halves(const kb_gemm_args &a, float *As, int64_t g, int tid)
{
  constexpr int PPS = SUB / 4, NSUB = SLAB / SUB, STAGE = U * SS, CPT = U * SLAB / 4 / NT;
  static_assert(NT % PPS == 0 && (U * SLAB / 4) % NT == 0, "whole sub-slabs a round of pieces");
  int64_t r, sb;
  kb_gemm_tile(a, g, 2, &r, &sb);
  const float *src = a.in + r * a.in_rs + (sb * (2 * U) + (g & 1)) * SLAB + 4 * (tid % PPS);
  float *dst = As + (int)(g % ST) * STAGE + 4 * (tid % PPS);
  const int sub0 = tid / PPS;
#pragma unroll
  for (int c = 0; c < CPT; c++) {
    const int sub = sub0 + c * (NT / PPS), u = sub / NSUB, k = sub % NSUB;
    float *d = dst + u * SS + k * SUBS;
    const float *s = src + (2 * u * NSUB + k) * SUB;
    if (FAST) {
      kb_cp16(d, s, true);
    } else {
#pragma unroll
      for (int e = 0; e < 4; e++)
        kb_cp<4>(d + e, s + e, true);
    }
  }
}

// The old values of two outputs of neighbouring slabs, y[0] and y[1], one
// 8-byte load where y is aligned to 8 bytes.
__device__ __forceinline__ float2 kb_gemm_old2(const kb_gemm_args &a, const float *y, bool al)
{
  if (!kb_gemm_reads_y(a))
    return make_float2(0.0f, 0.0f);
  return al ? *(const float2 *)y : make_float2(y[0], y[1]);
}

// Two outputs of neighbouring slabs, v0 at y[0] and v1 at y[1] (their old
// values w), one 8-byte store where y is aligned to 8 bytes.
__device__ __forceinline__ void kb_gemm_put2(const kb_gemm_args &a, float v0, float v1, float2 w, float *y, bool al)
{
  v0 = kb_gemm_epi(a, v0, w.x);
  v1 = kb_gemm_epi(a, v1, w.y);
  if (al) {
    *(float2 *)y = make_float2(v0, v1);
  } else {
    y[0] = v0;
    y[1] = v1;
  }
}

// The first half's NK x 4 outputs Z of a thread into its words of Sg
// (float4 k at k NT + tid: conflict-free), or, in the second half, back out
// beside this half's: output k, j of slab 2 u + h goes to y[pos(k, j)] of
// the tile, pos counted in slabs.
template <int NT, int NK, bool PF, class Pos>
__device__ __forceinline__ void kb_gemm_halves_out(const kb_gemm_args &a, int64_t g, float *Sg, int tid, int u,
                                                   const float (&Z)[NK][4], Pos pos)
{
  float4 *const S4 = (float4 *)Sg + tid;
  if ((g & 1) == 0) {
#pragma unroll
    for (int k = 0; k < NK; k++)
      S4[k * NT] = make_float4(Z[k][0], Z[k][1], Z[k][2], Z[k][3]);
    // PF (the plain kernels, which beta != 0 takes): ask L2 now for the old
    // outputs the second half reads, a whole half of the tile's work ahead;
    // one thread of the four (u) whose pairs make up a 32-byte row.
    if (PF && kb_gemm_reads_y(a) && u == 0) {
      int64_t r, sb;
      kb_gemm_tile(a, g, 2, &r, &sb);
      const float *y = a.out + r * a.out_rs + sb * 8;
#pragma unroll
      for (int k = 0; k < NK; k++)
#pragma unroll
        for (int j = 0; j < 4; j++)
          kb_prefetch_l2(y + pos(k, j));
    }
    return;
  }
  int64_t r, sb;
  kb_gemm_tile(a, g, 2, &r, &sb);
  float *y = a.out + r * a.out_rs + sb * 8 + 2 * u;
  // pos(k, j) is a multiple of S, which is a multiple of TS = 8: y decides
  const bool al = ((uintptr_t)y & 7) == 0 && (a.S % 2 == 0);
#pragma unroll
  for (int k = 0; k < NK; k++) {
    const float4 z = S4[k * NT];
    const float zv[4] = { z.x, z.y, z.z, z.w };
    float2 w[4];   // loaded before any store (kb_gemm_old says why)
#pragma unroll
    for (int j = 0; j < 4; j++)
      w[j] = kb_gemm_old2(a, y + pos(k, j), al);
#pragma unroll
    for (int j = 0; j < 4; j++)
      kb_gemm_put2(a, zv[j], Z[k][j], w[j], y + pos(k, j), al);
  }
}

// The TMA's stores (the slab-4096 kernels' outputs of a tile, from boxes of
// shared memory; kb_gemm_quad8_tma_out says why).  The TMA exists from
// sm_90 on: for older targets (--with-cuda-arch=80,90) these compile to
// nothing, and the host never launches the TMA kernels on such a device
// (kb_gemm_dev_has_tma, a.tma_dev).
__device__ __forceinline__ void kb_bar_named(int id, int n)
{
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}

// The first 128-byte boundary at or past p, a pointer into shared memory:
// offset from p itself, so that the compiler keeps its stores STS (through
// a cast to an integer they became generic ST.E, session 42's samples).
__device__ __forceinline__ float *kb_smem_align128(float *p)
{
  const unsigned s = (unsigned)__cvta_generic_to_shared(p);
  return p + (128 - s % 128) % 128 / 4;
}

template <int N>
__device__ __forceinline__ void kb_bulk_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

template <int N>
__device__ __forceinline__ void kb_bulk_wait_read(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#endif
}

// The threads' writes to shared memory, seen by the TMA that reads it.
__device__ __forceinline__ void kb_fence_proxy_async(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void kb_tma_store5(const CUtensorMap *tm, const float *box, int c0, int c1, int c2, int c3,
                                              int c4)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned s = (unsigned)__cvta_generic_to_shared(box);
  asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];\n"
               ::"l"((uint64_t)tm), "r"(s), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

// The trip16 kernel's outputs of a tile by TMA: one l2 a step, the whole
// block's 16 l1 x 16 l0 x 8 slabs in a box of 8 KB, two boxes taken in turn
// (one barrier a step: the leader's wait before it frees the box the next
// step fills).  a.tma 1: the map is (slab, l1, l0, l2, row), so that eight
// lanes' l1 are 8 words apart in the box (no bank conflicts); 2: (slab, l0,
// l1, l2, row), where the encoder refused the first.
template <class S>
__device__ __forceinline__ void kb_gemm_trip16_tma_out(const kb_gemm_args &a, const CUtensorMap &tm, int64_t it,
                                                       float *Sg, int tid, int u, int r1, int tq,
                                                       const float (&Z)[S::P][4])
{
  constexpr int P = S::P, NT = S::NT;
  float *const Ob = kb_smem_align128(Sg + S::SG);   // the boxes, past Sg
  const float al = a.epilogue != KB_EPI_NONE ? a.alpha : 1.0f;
  const int s1 = a.tma == 1 ? 8 : P * 8, s0 = a.tma == 1 ? P * 8 : 8;   // box strides of l1 and l0
  int64_t r, sb;
  kb_gemm_tile(a, it, 2, &r, &sb);
#pragma unroll
  for (int l2 = 0; l2 < P; l2++) {
    float *const B = Ob + (l2 % 2) * S::BOX;
    const float4 z = ((const float4 *)Sg)[l2 * NT + tid];
    const float zv[4] = { z.x, z.y, z.z, z.w };
#pragma unroll
    for (int j = 0; j < 4; j++)
      *(float2 *)(B + r1 * s1 + (4 * tq + j) * s0 + 2 * u) = make_float2(al * zv[j], al * Z[l2][j]);
    kb_fence_proxy_async();
    if (tid == 0)
      kb_bulk_wait_read<0>();   // the box the next step fills: its store has read it
    kb_bar_named(1, NT);
    if (tid == 0)
      kb_tma_store5(&tm, B, (int)(sb * 8), 0, 0, l2, (int)r);
  }
}

// kb_gemm_trip16_kernel: three fused float 16x16 factors on slabs of 4096,
// the trip8 kernel's scheme on halves of 4 slabs (64 KB; 32 slabs would be
// 512 KB).  Thread (u, d2, tq) sums the first two factors of its sub-slab
// X[u][d2] (the pair kernel's sums; the second in two halves of l1, 32
// accumulators) and writes V to E[u][tq][l1][d2][j] in the place of slab
// u, after a barrier; after another, thread (u, r, tq) takes l1 = r:
//     Y[l2][r][4 tq + j][2 u + h] = sum_d2 E[u][tq][r][d2][j] C[d2][l2]
// (h the half).
// A warp is 4 slabs x 8 d2 of one tq: the factors' reads are broadcasts;
// eight consecutive lanes are 8 d2 of one slab, and the strides (SUBS 260,
// ES 68 words) put their 16-byte reads and writes in eight bank groups.
template <int ST, int TMA = 0>
struct kb_gemm_trip16_shape {
  static constexpr int P = 16, SLAB = P * P * P, SUB = P * P, SUBS = SUB + 4, U = 4, NT = U * P * 4;
  static constexpr int ES = 4 * P + 4;   // E: the P float4 of one (tq, l1), and padding
  static constexpr int SS = 4 * P * ES;  // E[u] in slab u's place
  static constexpr int STAGE = U * SS, SG = NT * P * 4;
  // TMA: two boxes of 16 l1 x 16 l0 x 8 slabs, 128-byte aligned
  static constexpr int BOX = P * P * 8, OB = TMA ? 2 * BOX + 32 : 0;
  static constexpr int SMEM = (3 * P * P + ST * STAGE + SG + OB) * 4;
  static_assert(SS >= P * SUBS && ST >= 2, "E[u] covers slab u");
};

template <int ST, int FAST, int TMA = 0>
__global__ void __launch_bounds__(kb_gemm_trip16_shape<ST>::NT, 1)
    kb_gemm_trip16_kernel(const kb_gemm_args a, const __grid_constant__ CUtensorMap tm)
{
  typedef kb_gemm_trip16_shape<ST, TMA> S;
  constexpr int P = S::P, SLAB = S::SLAB, SUB = S::SUB, SUBS = S::SUBS, U = S::U, NT = S::NT;
  constexpr int ES = S::ES, SS = S::SS, STAGE = S::STAGE;
  extern __shared__ float4 kb_gemm_smem[];
  float *const Fa = (float *)kb_gemm_smem, *const Fb = Fa + P * P, *const Fc = Fb + P * P;
  float *const As = Fc + P * P, *const Sg = As + ST * STAGE;
  const int tid = threadIdx.x, lane = tid % 32, u = lane / 8;
  const int w = __shfl_sync(0xffffffffu, tid / 32, 0);   // warp-uniform
  const int tq = w / 2, d2 = (w % 2) * 8 + lane % 8;
  const int64_t n = 2 * kb_gemm_mine(a);
  const int s0 = (int)a.S;   // K / 4096: the output's l0 stride; K < 2^31 (kb_cuda_gemm_find)

  kb_gemm_stage_fused<P, NT, 3>(a, Fa);
  auto issue = [&](int64_t g) { kb_gemm_issue_halves<U, SLAB, SUB, SUBS, SS, NT, ST, FAST>(a, As, g, tid); };
  kb_gemm_pipe_start<ST>(n, issue);
  for (int64_t it = 0; it < n; it++) {
    kb_gemm_pipe_next<ST>(it, n, issue);   // also: the E the last chunk read is free
    float *const Su = As + (int)(it % ST) * STAGE + u * SS;
    float T[P][4];
    kb_gemm_first_factor<P>(Su + d2 * SUBS, Fa, tq, T);
    __syncthreads();   // every thread is done with this chunk's X: E takes its place
    float *const Eu = Su + tq * (P * ES);   // E[u][tq][l1][d2][j] at l1 ES + 4 d2 + j
#pragma unroll
    for (int h = 0; h < 2; h++) {
      float V[8][4];
      kb_gemm_zero4(V);
#pragma unroll
      for (int d1 = 0; d1 < P; d1++)
        kb_gemm_outer4<8, P>(T[d1], Fb + 8 * h, d1, V);
#pragma unroll
      for (int i = 0; i < 8; i++)
        *(float4 *)(Eu + (8 * h + i) * ES + 4 * d2) = make_float4(V[i][0], V[i][1], V[i][2], V[i][3]);
    }
    __syncthreads();
    const int r1 = d2;   // this thread's l1 from here on
    float Z[P][4];
    kb_gemm_zero4(Z);
#pragma unroll
    for (int dd = 0; dd < P; dd++) {
      const float4 e = *(const float4 *)(Eu + r1 * ES + 4 * dd);
      const float ev[4] = { e.x, e.y, e.z, e.w };
      kb_gemm_outer4(ev, Fc, dd, Z);
    }
    // Y[l2][r1][4 tq + j][slab]: 32-bit offsets within the row
    if (TMA && (it & 1) == 1) {
      kb_gemm_trip16_tma_out<S>(a, tm, it, Sg, tid, u, r1, tq, Z);
    } else {
      kb_gemm_halves_out<NT, P, !TMA>(a, it, Sg, tid, u, Z,
                                [&](int l, int j) { return ((l * P + r1) * P + 4 * tq + j) * s0; });
    }
  }
  kb_cp_wait<0>();
  if (TMA && tid == 0)
    kb_bulk_wait<0>();   // the last boxes written out before the block's shared memory goes
}

// The quad8 kernel's outputs of a tile through the tensor memory
// accelerator (TMA = 1).  Each half of the block (tq, 256 threads,
// named barrier 1 + tq) fills a box of shared memory with two l2 of one
// l3 a step -- outputs (l2 = 4 tq + 2 jh + jl, c, slab 2 u + h), the first
// half's from Sg -- and one thread stores the box with
// cp.async.bulk.tensor: the warps go on while the TMA writes the 32-byte
// sectors, where 8-byte stores held every warp until the LSU took them
// (session 41's samples).  NB boxes a half in turn, counted across tiles
// (*nb), one barrier a step: before it the leader waits until the store of
// step s - NB + 1 has read its box, which step s + 1 fills.  Session 42's
// first form, one 8 KB box a half and two barriers a step with the
// leader's wait for the store just issued between them, took the same
// time (tuner, H200: 0.741-0.748 ms a pass of 2^28 against 0.739-0.747):
// its samples at barriers fell from 21% to 13%, but the others' grew.
// The tensor map (kb_gemm_quad8_map) is Y's row as (slab, c, l2, l3, row).
template <class S>
__device__ __forceinline__ void kb_gemm_quad8_tma_out(const kb_gemm_args &a, const CUtensorMap &tm, int64_t it,
                                                      float *Sg, int tid, int u, int c, int tq,
                                                      const float (&V)[S::P][4], int &nb)
{
  constexpr int P = S::P, NT = S::NT, NB = S::NB;
  float *const Ob = kb_smem_align128(Sg + S::SG) + tq * NB * S::BOX;   // this half's boxes, past Sg
  const bool lead = tid % (NT / 2) == 0;
  const float al = a.epilogue != KB_EPI_NONE ? a.alpha : 1.0f;
  int64_t r, sb;
  kb_gemm_tile(a, it, 2, &r, &sb);
#pragma unroll
  for (int l3 = 0; l3 < P; l3++) {
    const float4 z = ((const float4 *)Sg)[l3 * NT + tid];
    const float zv[4] = { z.x, z.y, z.z, z.w };
#pragma unroll
    for (int jh = 0; jh < 2; jh++) {
      float *const B = Ob + nb * S::BOX;
#pragma unroll
      for (int jl = 0; jl < 2; jl++)
        *(float2 *)(B + (jl * P * P + c) * 8 + 2 * u) = make_float2(al * zv[2 * jh + jl], al * V[l3][2 * jh + jl]);
      kb_fence_proxy_async();
      if (lead)
        kb_bulk_wait_read<NB - 2>();   // the box the next step fills: its store has read it
      kb_bar_named(1 + tq, NT / 2);
      if (lead)
        kb_tma_store5(&tm, B, (int)(sb * 8), 0, 4 * tq + 2 * jh, l3, (int)r);
      nb = nb == NB - 1 ? 0 : nb + 1;
    }
  }
}

// kb_gemm_quad8_kernel: four fused float 8x8 factors on slabs of 4096,
// X[u][d3][d2][d1][d0], halves of U = 4 slabs, two pairs a slab.  Thread
// (u, g = (d3, d2), tq) sums the first two factors of its sub-slab of 64
// (the trip8 kernel's first phase) and writes them, after a barrier, in
// the place of its sub-slab as W[u][g][c] (c = (l1, l0), rows of WS = 68
// words).  After another barrier thread (u, c, tq) sums the last two over
// the 64 g of its column, the second pair as the first, its rows read as
// scalars:
//     T[d3][j] = sum_d2 W[u][d3 d2][c] C[d2][4 tq + j],
//     Y[l3][4 tq + j][c][2 u + h] = sum_d3 T[d3][j] D[d3][l3].
// A warp is 4 slabs x 8 g (then 8 c) of one tq: the factors' reads are
// broadcasts, eight consecutive lanes' 16-byte reads and writes land in
// eight bank groups (SUBS, WS = 68), and the scalar reads of 4 slabs x 8
// columns in 32 banks (SS = 8 mod 32).
template <int ST, int TMA = 0>
struct kb_gemm_quad8_shape {
  static constexpr int P = 8, SLAB = P * P * P * P, SUB = P * P, SUBS = SUB + 4, U = 4, NT = U * P * P * 2;
  static constexpr int SS = P * P * SUBS + 8;
  static constexpr int STAGE = U * SS, SG = NT * P * 4;
  // TMA: NB boxes of 2 l2 x 64 c x 8 slabs (4 KB) for each half of the
  // block (tq), 128-byte aligned
  static constexpr int NB = 3, BOX = 2 * P * P * 8, OB = TMA ? 2 * NB * BOX + 32 : 0;
  static constexpr int SMEM = (4 * P * P + ST * STAGE + SG + OB) * 4;
  static_assert(ST >= 2 && SS % 32 == 8, "scalar reads of 4 slabs x 8 columns in 32 banks");
  static_assert(NB >= 2 && SMEM <= 232448, "the TMA's boxes: two or more a half, within an SM's 227 KB");
};

template <int ST, int FAST, int TMA = 0>
__global__ void __launch_bounds__(kb_gemm_quad8_shape<ST>::NT, 1)
    kb_gemm_quad8_kernel(const kb_gemm_args a, const __grid_constant__ CUtensorMap tm)
{
  typedef kb_gemm_quad8_shape<ST, TMA> S;
  constexpr int P = S::P, SLAB = S::SLAB, SUB = S::SUB, SUBS = S::SUBS, U = S::U, NT = S::NT;
  constexpr int SS = S::SS, STAGE = S::STAGE;
  extern __shared__ float4 kb_gemm_smem[];
  float *const Fa = (float *)kb_gemm_smem, *const Fb = Fa + P * P, *const Fc = Fb + P * P, *const Fd = Fc + P * P;
  float *const As = Fd + P * P, *const Sg = As + ST * STAGE;
  const int tid = threadIdx.x, lane = tid % 32, u = lane / 8;
  const int w = __shfl_sync(0xffffffffu, tid / 32, 0);   // warp-uniform
  const int tq = w / 8, g = (w % 8) * 8 + lane % 8;      // g: (d3, d2), then c: (l1, l0)
  const int64_t n = 2 * kb_gemm_mine(a);
  const int s0 = (int)a.S;   // K / 4096: the output's l0 stride; K < 2^31 (kb_cuda_gemm_find)

  kb_gemm_stage_fused<P, NT, 4>(a, Fa);
  auto issue = [&](int64_t gg) { kb_gemm_issue_halves<U, SLAB, SUB, SUBS, SS, NT, ST, FAST>(a, As, gg, tid); };
  int nb = 0;   // the TMA's next box (kb_gemm_quad8_tma_out)
  kb_gemm_pipe_start<ST>(n, issue);
  for (int64_t it = 0; it < n; it++) {
    kb_gemm_pipe_next<ST>(it, n, issue);   // also: the W the last chunk read is free
    float *const Su = As + (int)(it % ST) * STAGE + u * SS;
    float T[P][4];
    kb_gemm_first_factor<P>(Su + g * SUBS, Fa, tq, T);
    float V[P][4];
    kb_gemm_zero4(V);
#pragma unroll
    for (int d1 = 0; d1 < P; d1++)
      kb_gemm_outer4(T[d1], Fb, d1, V);
    __syncthreads();   // every thread is done with this chunk's X: W takes its place
#pragma unroll
    for (int l = 0; l < P; l++)
      *(float4 *)(Su + g * SUBS + l * P + 4 * tq) = make_float4(V[l][0], V[l][1], V[l][2], V[l][3]);
    __syncthreads();
    const int c = g;   // this thread's column (l1, l0) from here on
    kb_gemm_zero4(T);
#pragma unroll
    for (int d2 = 0; d2 < P; d2++) {
      const float4 b = ((const float4 *)Fc)[d2 * (P / 4) + tq];
#pragma unroll
      for (int d3 = 0; d3 < P; d3++) {
        const float x = Su[(d3 * P + d2) * SUBS + c];
        T[d3][0] = fmaf(x, b.x, T[d3][0]);
        T[d3][1] = fmaf(x, b.y, T[d3][1]);
        T[d3][2] = fmaf(x, b.z, T[d3][2]);
        T[d3][3] = fmaf(x, b.w, T[d3][3]);
      }
    }
    kb_gemm_zero4(V);
#pragma unroll
    for (int d3 = 0; d3 < P; d3++)
      kb_gemm_outer4(T[d3], Fd, d3, V);
    // Y[l3][4 tq + j][c][slab]: 32-bit offsets within the row
    if (TMA && (it & 1) == 1) {
      kb_gemm_quad8_tma_out<S>(a, tm, it, Sg, tid, u, c, tq, V, nb);
    } else {
      kb_gemm_halves_out<NT, P, !TMA>(a, it, Sg, tid, u, V,
                                [&](int l, int j) { return (l * P * P * P + (4 * tq + j) * P * P + c) * s0; });
    }
  }
  kb_cp_wait<0>();
  if (TMA && tid % (NT / 2) == 0)
    kb_bulk_wait<0>();   // the last boxes written out before the block's shared memory goes
}

// ------------------------------------------------------------- host side

// One instantiation: its parameters (kb_cuda_gemm_info_t), its kernel and
// its launcher.
struct kb_gemm_entry {
  kb_cuda_gemm_info_t info;
  const void *fn;
  const void *fn2;   // a second kernel the launcher may pick (kt: unaligned X or Y), or NULL
  int (*launch)(const kb_gemm_args &a, unsigned grid, void *stream);
};

template <int P, int Q, int TS, int TKC, int ST, int MINB>
static int kb_gemm_launch_t(const kb_gemm_args &a, unsigned grid, void *stream)
{
  typedef kb_gemm_shape<P, Q, TS, TKC, ST> S;
  kb_gemm_kernel<P, Q, TS, TKC, ST, MINB><<<grid, S::NT, S::SMEM, (cudaStream_t)stream>>>(a);
  return (int)cudaGetLastError();
}

#define KB_GEMM_ENTRY(P, Q, TS, TKC, ST, MINB)                                                      \
  { { P, Q, TS, TKC, ST, MINB, 0, kb_gemm_shape<P, Q, TS, TKC, ST>::NT, kb_gemm_shape<P, Q, TS, TKC, ST>::SMEM, 0, 1 }, \
    (const void *)kb_gemm_kernel<P, Q, TS, TKC, ST, MINB>, nullptr, kb_gemm_launch_t<P, Q, TS, TKC, ST, MINB> }

// kb_gemm_kt_kernel: 16-byte accesses where X and Y allow them.
template <int P, int Q, int TS, int MINB, int W84, int KU>
static int kb_gemm_kt_launch_t(const kb_gemm_args &a, unsigned grid, void *stream)
{
  typedef kb_gemm_kt_shape<P, Q, TS, MINB, 1, W84> S;
  if (a.vec && a.vec_out)
    kb_gemm_kt_kernel<P, Q, TS, MINB, 1, W84, KU><<<grid, S::NT, S::SMEM, (cudaStream_t)stream>>>(a);
  else
    kb_gemm_kt_kernel<P, Q, TS, MINB, 0, W84, KU><<<grid, S::NT, S::SMEM, (cudaStream_t)stream>>>(a);
  return (int)cudaGetLastError();
}

// Its occupancy is read from the FAST kernel; both use the same registers
// bound (MINB) and shared memory.  kt: 1, or 2 with W84.
#define KB_GEMM_KT_ENTRY(P, Q, TS, MINB, W84, KU)                                                   \
  { { P, Q, TS, 32, 2, MINB, 1 + W84, kb_gemm_kt_shape<P, Q, TS, MINB, 1, W84>::NT,                 \
      kb_gemm_kt_shape<P, Q, TS, MINB, 1, W84>::SMEM, KU, 1 },                                      \
    (const void *)kb_gemm_kt_kernel<P, Q, TS, MINB, 1, W84, KU>,                                    \
    (const void *)kb_gemm_kt_kernel<P, Q, TS, MINB, 0, W84, KU>, kb_gemm_kt_launch_t<P, Q, TS, MINB, W84, KU> }

// The fused kernels' launch: K1, its 16-byte-copy kernel, where X allows
// it, else K0 (4-byte copies); their stores do not depend on it.
template <class S, void (*K1)(kb_gemm_args), void (*K0)(kb_gemm_args)>
static int kb_gemm_vec_launch_t(const kb_gemm_args &a, unsigned grid, void *stream)
{
  (a.vec ? K1 : K0)<<<grid, S::NT, S::SMEM, (cudaStream_t)stream>>>(a);
  return (int)cudaGetLastError();
}

// TS: slabs of 256 a tile; TKC: the whole first factor (16); F = 2.
#define KB_GEMM_PAIR_ENTRY(U, ST, MINB)                                                               \
  { { 16, 16, U, 16, ST, MINB, 0, kb_gemm_pair_shape<U, ST>::NT, kb_gemm_pair_shape<U, ST>::SMEM, 0, 2 }, \
    (const void *)kb_gemm_pair_kernel<U, ST, MINB, 1>, (const void *)kb_gemm_pair_kernel<U, ST, MINB, 0>, \
    kb_gemm_vec_launch_t<kb_gemm_pair_shape<U, ST>, kb_gemm_pair_kernel<U, ST, MINB, 1>,                  \
                         kb_gemm_pair_kernel<U, ST, MINB, 0>> }

// The trip8, trip16 and quad8 kernels (K, shape SH): F fused P x P factors,
// TS slabs a tile, TKC the whole first factor, one block an SM.
#define KB_GEMM_SLAB_ENTRY(P, F, TS, ST, SH, K)                                                      \
  { { P, P, TS, P, ST, 1, 0, SH<ST>::NT, SH<ST>::SMEM, 0, F }, (const void *)K<ST, 1>,                \
    (const void *)K<ST, 0>, kb_gemm_vec_launch_t<SH<ST>, K<ST, 1>, K<ST, 0>> }

// The TMA entries of the slab-4096 kernels (":tma" words): a tile's
// outputs go out through a tensor map of the output's rows, encoded here
// for each launch.  Where no map can be made (the output off 16 bytes, a
// row stride not a multiple of 4, beta != 0, a device before sm_90, or a
// driver without the encoder) the entry launches the plain kernel, so that
// it is never slower than the plain entry.  The encoder is the driver's, reached through the
// runtime: nothing links libcuda.
typedef CUresult (*kb_tmap_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                      const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                      CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static kb_tmap_encode_fn kb_tmap_encoder(void)
{
  static std::once_flag once;
  static kb_tmap_encode_fn fn = nullptr;
  std::call_once(once, [] {
    void *p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
#else
    const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q);
#endif
    if (e == cudaSuccess && q == cudaDriverEntryPointSuccess)
      fn = (kb_tmap_encode_fn)p;
  });
  return fn;
}

// Encodes a 5-d float map of the output a.out (strides of dimensions 1-4
// in bytes, box in elements) where TMA can store it: the output and its
// rows' stride aligned to 16 bytes, beta = 0, a device with the TMA; false
// where not, or where the encoder refuses.
static bool kb_gemm_tma_encode(const kb_gemm_args &a, CUtensorMap *tm, const cuuint64_t (&dims)[5],
                               const cuuint64_t (&strides)[4], const cuuint32_t (&box)[5])
{
  const kb_tmap_encode_fn enc = kb_tmap_encoder();
  const cuuint32_t es[5] = { 1, 1, 1, 1, 1 };
  if (enc == nullptr || dims[4] < 1 || ((uintptr_t)a.out & 15) != 0 || a.S % 4 != 0 || strides[3] % 16 != 0 ||
      (a.epilogue == KB_EPI_AXPBY && !a.beta_zero) || !a.tma_dev)
    return false;
  return enc(tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 5, a.out, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The output's rows (vectors) a launch covers.
static int64_t kb_gemm_rows(const kb_gemm_args &a)
{
  return a.tps > 0 ? a.ntiles / a.tps : 0;
}

// The row stride of the output in bytes (any multiple of 16 for one row).
static cuuint64_t kb_gemm_tma_rs(const kb_gemm_args &a)
{
  return (cuuint64_t)(kb_gemm_rows(a) > 1 ? a.out_rs : 4096 * a.S) * 4;
}

// The quad8 kernel's map: Y's row as (slab, c, l2, l3, row); 1 if made, 0
// where TMA cannot store it.
static int kb_gemm_quad8_map(const kb_gemm_args &a, CUtensorMap *tm)
{
  const cuuint64_t S = (cuuint64_t)a.S, m = (cuuint64_t)kb_gemm_rows(a);
  const cuuint64_t dims[5] = { S, 64, 8, 8, m }, strides[4] = { S * 4, S * 256, S * 2048, kb_gemm_tma_rs(a) };
  const cuuint32_t box[5] = { 8, 64, 2, 1, 1 };
  return kb_gemm_tma_encode(a, tm, dims, strides, box) ? 1 : 0;
}

// The trip16 kernel's map: Y's row as (slab, l1, l0, l2, row) (a.tma 1), or
// (slab, l0, l1, l2, row) (2) where the encoder takes only the first
// form's strides in order; 0 where TMA cannot store it.
static int kb_gemm_trip16_map(const kb_gemm_args &a, CUtensorMap *tm)
{
  const cuuint64_t S = (cuuint64_t)a.S, m = (cuuint64_t)kb_gemm_rows(a);
  const cuuint64_t dims[5] = { S, 16, 16, 16, m }, l1 = S * 64, l0 = S * 4;
  const cuuint32_t box[5] = { 8, 16, 16, 1, 1 };
  const cuuint64_t form1[4] = { l1, l0, S * 1024, kb_gemm_tma_rs(a) }, form2[4] = { l0, l1, S * 1024, kb_gemm_tma_rs(a) };
  return kb_gemm_tma_encode(a, tm, dims, form1, box) ? 1 : kb_gemm_tma_encode(a, tm, dims, form2, box) ? 2 : 0;
}

// Launches of the ":tma" entries that stored by TMA ([1]) and that took
// their plain twin ([0]; kb_cuda_gemm_tma_counts): both compute the same
// outputs, so only these counts let a test tell a TMA launch from a
// silent fallback (a map the encoder refused, say).
static std::atomic<long long> kb_gemm_tma_n[2];

extern "C" void kb_cuda_gemm_tma_counts(long long *tma, long long *plain)
{
  *tma = kb_gemm_tma_n[1].load(std::memory_order_relaxed);
  *plain = kb_gemm_tma_n[0].load(std::memory_order_relaxed);
}

// A slab-4096 kernel's launch: its TMA instantiation (K11 where X is
// aligned to 16 bytes, K01 where not) where MAP made a tensor map, else
// the plain one (K10, K00).
typedef void (*kb_gemm_s4096_fn)(kb_gemm_args, CUtensorMap);
template <class S1, class S0, kb_gemm_s4096_fn K11, kb_gemm_s4096_fn K01, kb_gemm_s4096_fn K10, kb_gemm_s4096_fn K00,
          int (*MAP)(const kb_gemm_args &, CUtensorMap *), int TMA>
static int kb_gemm_s4096_launch_t(const kb_gemm_args &a0, unsigned grid, void *stream)
{
  kb_gemm_args a = a0;
  CUtensorMap tm;
  memset(&tm, 0, sizeof tm);
  a.tma = TMA ? MAP(a, &tm) : 0;
  if (TMA)
    kb_gemm_tma_n[a.tma != 0].fetch_add(1, std::memory_order_relaxed);
  if (a.tma)
    (a.vec ? K11 : K01)<<<grid, S1::NT, S1::SMEM, (cudaStream_t)stream>>>(a, tm);
  else
    (a.vec ? K10 : K00)<<<grid, S0::NT, S0::SMEM, (cudaStream_t)stream>>>(a, tm);
  return (int)cudaGetLastError();
}

// The trip16 (F = 3, P = 16) and quad8 (F = 4, P = 8) entries: kernel K,
// shape SH, tensor map MAP; TMA 1 the ":tma" entry.
#define KB_GEMM_S4096_ENTRY(P, F, ST, TMA, SH, K, MAP)                                                     \
  { { P, P, 8, P, ST, 1, 0, SH<ST, TMA>::NT, SH<ST, TMA>::SMEM, 0, F, TMA }, (const void *)K<ST, 1, TMA>,     \
    (const void *)K<ST, 0, TMA>,                                                                           \
    kb_gemm_s4096_launch_t<SH<ST, 1>, SH<ST, 0>, K<ST, 1, 1>, K<ST, 0, 1>, K<ST, 1, 0>, K<ST, 0, 0>, MAP, TMA> }

// The instantiations; index i is kernel KB_KERNEL_GEMM_0 - i within a
// process (tuning files name them by their parameters, kb_cuda_gemm_word).
static const kb_gemm_entry kb_gemm_table[] = {
  KB_GEMM_ENTRY(64, 64, 128, 32, 4, 2),
  KB_GEMM_ENTRY(64, 64, 64, 32, 4, 3),
  KB_GEMM_ENTRY(128, 128, 128, 32, 3, 1),
  KB_GEMM_ENTRY(128, 128, 64, 32, 4, 2),
  KB_GEMM_KT_ENTRY(64, 64, 128, 3, 0, 32),
  KB_GEMM_KT_ENTRY(64, 64, 128, 3, 1, 32),
  KB_GEMM_KT_ENTRY(64, 64, 64, 6, 0, 32),
  KB_GEMM_KT_ENTRY(128, 128, 128, 2, 0, 32),
  KB_GEMM_KT_ENTRY(128, 128, 64, 2, 0, 32),
  KB_GEMM_KT_ENTRY(64, 64, 128, 3, 0, 16),
  KB_GEMM_PAIR_ENTRY(64, 2, 1),
  KB_GEMM_PAIR_ENTRY(32, 3, 2),
  KB_GEMM_PAIR_ENTRY(32, 2, 3),
  // slabs of 512 a tile of 32; slabs of 4096 a tile of 8 (two halves)
  KB_GEMM_SLAB_ENTRY(8, 3, 32, 2, kb_gemm_trip8_shape, kb_gemm_trip8_kernel),
  KB_GEMM_SLAB_ENTRY(8, 3, 32, 3, kb_gemm_trip8_shape, kb_gemm_trip8_kernel),
  KB_GEMM_S4096_ENTRY(16, 3, 2, 0, kb_gemm_trip16_shape, kb_gemm_trip16_kernel, kb_gemm_trip16_map),
  KB_GEMM_S4096_ENTRY(8, 4, 2, 0, kb_gemm_quad8_shape, kb_gemm_quad8_kernel, kb_gemm_quad8_map),
  // the slab-4096 kernels' outputs stored by TMA (each after its plain twin,
  // which it launches where no tensor map can be made: kb_gemm_twin)
  KB_GEMM_S4096_ENTRY(8, 4, 2, 1, kb_gemm_quad8_shape, kb_gemm_quad8_kernel, kb_gemm_quad8_map),
  KB_GEMM_S4096_ENTRY(16, 3, 2, 1, kb_gemm_trip16_shape, kb_gemm_trip16_kernel, kb_gemm_trip16_map),
};
static_assert(kb_gemm_trip8_shape<2>::U == 32 && kb_gemm_trip16_shape<2>::U == 4 && kb_gemm_quad8_shape<2>::U == 4,
              "the slab entries' TS: the trip8 kernel's tile, the slab-4096 kernels' two halves");
static const int kb_gemm_n = (int)(sizeof kb_gemm_table / sizeof kb_gemm_table[0]);
// Kernel numbers past KB_KERNEL_GEMM_MAX are not recognised as slice-GEMM
// steps (kb_cuda_kernel_is_gemm): session 38's first trip8 run had the 17th
// entry fail every launch with EXECUTION_FAILED.
static_assert(sizeof kb_gemm_table / sizeof kb_gemm_table[0] <= KB_KERNEL_GEMM_MAX,
              "raise KB_KERNEL_GEMM_MAX (kb_cuda_kernels.h)");

// Per device: whether an instantiation's shared-memory limit was raised
// and its occupancy read; whether it has the TMA (0 not yet asked, 1, -1).
static struct {
  bool known[sizeof kb_gemm_table / sizeof kb_gemm_table[0]];
  int occ[sizeof kb_gemm_table / sizeof kb_gemm_table[0]];
  int tma;
} kb_gemm_dev[KB_CUDA_MAXDEV];
static std::mutex kb_gemm_lock;

// Whether device dev (< KB_CUDA_MAXDEV) has the TMA: sm_90 on; the kernels
// built for older targets leave its stores out.  Asked once a device;
// kb_gemm_lock held.
static bool kb_gemm_dev_has_tma_locked(int dev)
{
  if (kb_gemm_dev[dev].tma == 0) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;   // not kept: asked again at the next launch
    }
    kb_gemm_dev[dev].tma = major >= 9 ? 1 : -1;
  }
  return kb_gemm_dev[dev].tma > 0;
}

static bool kb_gemm_dev_has_tma(int dev)
{
  if (dev < 0 || dev >= KB_CUDA_MAXDEV)
    return false;
  std::lock_guard<std::mutex> lock(kb_gemm_lock);
  return kb_gemm_dev_has_tma_locked(dev);
}

extern "C" const kb_cuda_gemm_info_t *kb_cuda_gemm_info(int index)
{
  return index >= 0 && index < kb_gemm_n ? &kb_gemm_table[index].info : nullptr;
}

extern "C" int kb_cuda_gemm_count(void) { return kb_gemm_n; }

extern "C" int kb_cuda_gemm_find(int type, int64_t p, int64_t q, int64_t K, int index)
{
  if (type != 0 || index < 0 || index >= kb_gemm_n || p <= 0 || K % p != 0)
    return -1;
  const kb_cuda_gemm_info_t *g = &kb_gemm_table[index].info;
  int64_t slab = 1;   // p^F: a slice (F = 1) or a slab of the fused kernels
  for (int f = 0; f < g->F; f++)
    slab *= p;
  // whole tiles of TS; the fused kernels' offsets within a vector are 32-bit
  return g->P == p && g->Q == q && K % (slab * g->TS) == 0 && (g->F == 1 || K <= INT_MAX) ? 0 : -1;
}

// The TMA entries' tensor maps for a float output at out, m rows of K at
// stride rs, the epilogue reading it or not (t-cuda-geom checks when they
// are made, on a GPU): *q8 1 if quad8's was made, *t16 trip16's form (1,
// 2; 0 if none).
extern "C" void kb_cuda_gemm_tma_maps(void *out, int64_t m, int64_t K, int64_t rs, int beta_zero, int *q8, int *t16)
{
  kb_gemm_args a;
  CUtensorMap tm;
  memset(&a, 0, sizeof a);
  a.out = (float *)out;
  a.out_rs = rs;
  a.S = K / 4096;
  a.tps = a.S / 8;
  a.ntiles = m * a.tps;
  a.epilogue = KB_EPI_AXPBY;
  a.beta_zero = beta_zero;
  int dev = 0;
  a.tma_dev = cudaGetDevice(&dev) == cudaSuccess && kb_gemm_dev_has_tma(dev);
  (void)cudaGetLastError();
  *q8 = kb_gemm_quad8_map(a, &tm) ? 1 : 0;
  *t16 = kb_gemm_trip16_map(a, &tm);
}

// A TMA entry's plain twin (the same kernel and parameters, its outputs
// stored by threads), which its launcher takes where no tensor map can be
// made; -1 for an entry without TMA, or none found.
static int kb_gemm_twin(int i)
{
  const kb_cuda_gemm_info_t *g = &kb_gemm_table[i].info;
  for (int j = 0; g->tma && j < kb_gemm_n; j++) {
    const kb_cuda_gemm_info_t *h = &kb_gemm_table[j].info;
    if (!h->tma && h->P == g->P && h->Q == g->Q && h->TS == g->TS && h->TKC == g->TKC && h->stages == g->stages &&
        h->F == g->F && h->kt == g->kt && h->threads == g->threads)
      return j;
  }
  return -1;
}

// kb_gemm_occupancy on device dev, kb_gemm_lock held.
static int kb_gemm_occupancy_locked(int dev, int i)
{
  int occ = 0, twin;
  if (!kb_gemm_dev[dev].known[i]) {
    const kb_gemm_entry *e = &kb_gemm_table[i];
    // Both kernels of an entry need the shared-memory limit raised: session
    // 35's first kt run set it for the aligned kernel only, and every call
    // with X or Y off 16 bytes failed to launch.  A TMA entry's twin too,
    // which its launcher may take instead.
    if (e->info.tma && ((twin = kb_gemm_twin(i)) < 0 || kb_gemm_occupancy_locked(dev, twin) <= 0))
      return 0;
    if (cudaFuncSetAttribute(e->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, e->info.smem) != cudaSuccess ||
        (e->fn2 != nullptr &&
         cudaFuncSetAttribute(e->fn2, cudaFuncAttributeMaxDynamicSharedMemorySize, e->info.smem) != cudaSuccess) ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, e->fn, e->info.threads, (size_t)e->info.smem) !=
            cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    // the launcher sizes its grid for the TMA kernel; the twin must fit it
    if (e->info.tma && occ > kb_gemm_dev[dev].occ[twin])
      occ = kb_gemm_dev[dev].occ[twin];
    kb_gemm_dev[dev].occ[i] = occ;
    kb_gemm_dev[dev].known[i] = true;
  }
  return kb_gemm_dev[dev].occ[i];
}

// Blocks per SM of instantiation i on device dev (the current one), its
// shared-memory limit raised on the way (once per device); 0 on error.
// *tma: a TMA entry on a device with the TMA.  One lock a launch.
static int kb_gemm_occupancy(int dev, int i, int *tma)
{
  *tma = 0;
  if (dev < 0 || dev >= KB_CUDA_MAXDEV)
    return 0;
  std::lock_guard<std::mutex> lock(kb_gemm_lock);
  *tma = kb_gemm_table[i].info.tma && kb_gemm_dev_has_tma_locked(dev);
  return kb_gemm_occupancy_locked(dev, i);
}

extern "C" int kb_cuda_gemm_launch(const kb_cuda_step_t *st, void *stream)
{
  const int i = KB_KERNEL_GEMM_0 - st->kernel;
  int dev, nsm, smem_max, occ, tma_dev, f;
  int64_t b;
  if (i < 0 || i >= kb_gemm_n || st->nf != kb_gemm_table[i].info.F || st->in_is != 1 || st->out_is != 1 ||
      st->dev_scalars || kb_cuda_gemm_find(st->type, st->p[0], st->q[0], st->K, i) != 0)
    return (int)cudaErrorInvalidValue;   // the planner never sends such a step here
  for (f = 1; f < st->nf; f++)
    if (st->p[f] != st->p[0] || st->q[f] != st->q[0])
      return (int)cudaErrorInvalidValue;
  if (kb_cuda_dev_props(&dev, &nsm, &smem_max) != 0 || (occ = kb_gemm_occupancy(dev, i, &tma_dev)) <= 0)
    return (int)cudaErrorInvalidConfiguration;
  const kb_cuda_gemm_info_t *g = &kb_gemm_table[i].info;
  kb_gemm_args a;
  a.fs_l = st->fs_l[0];
  a.fs_k = st->fs_k[0];
  a.in_rs = st->in_rs;
  a.out_rs = st->out_rs;
  a.S = st->K;   // slices (F = 1) or slabs: the output's stride of l0
  for (f = 0; f < g->F; f++)
    a.S /= g->P;
  a.fs_l1 = g->F >= 2 ? st->fs_l[1] : 0;
  a.fs_k1 = g->F >= 2 ? st->fs_k[1] : 0;
  a.fs_l2 = g->F >= 3 ? st->fs_l[2] : 0;
  a.fs_k2 = g->F >= 3 ? st->fs_k[2] : 0;
  a.fs_l3 = g->F >= 4 ? st->fs_l[3] : 0;
  a.fs_k3 = g->F >= 4 ? st->fs_k[3] : 0;
  a.tps = a.S / g->TS;
  a.ntiles = st->m * a.tps;
  a.epilogue = st->epilogue;
  a.alpha = st->alpha != nullptr ? *(const float *)st->alpha : 1.0f;
  a.beta_zero = st->beta_zero || st->beta == nullptr;
  a.beta = a.beta_zero ? 0.0f : *(const float *)st->beta;
  a.tma = 0;
  a.tma_dev = tma_dev;
  const int64_t cap = (int64_t)occ * nsm;
  const unsigned grid = (unsigned)(a.ntiles < cap ? a.ntiles : cap);
  if (grid == 0)
    return (int)cudaSuccess;
  for (b = 0; b < st->batch; b++) {
    a.F = (const float *)st->F[0] + b * st->f_bs[0];
    a.F1 = g->F >= 2 ? (const float *)st->F[1] + b * st->f_bs[1] : nullptr;
    a.F2 = g->F >= 3 ? (const float *)st->F[2] + b * st->f_bs[2] : nullptr;
    a.F3 = g->F >= 4 ? (const float *)st->F[3] + b * st->f_bs[3] : nullptr;
    a.in = (const float *)st->in + b * st->in_bs;
    a.out = (float *)st->out + b * st->out_bs;
    a.vec = kb_aligned(a.in, 16) && (st->m == 1 || a.in_rs % 4 == 0);
    a.vec_out = kb_aligned(a.out, 16) && (st->m == 1 || a.out_rs % 4 == 0) && a.S % 4 == 0;
    const int err = kb_gemm_table[i].launch(a, grid, stream);
    if (err != (int)cudaSuccess)
      return err;
  }
  return (int)cudaSuccess;
}
