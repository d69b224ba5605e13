// kb_fast.cuh - FastKron's sliced-multiply kernel (seed paper, Figure 4)
// for real types and input vectors contiguous along k (or along m, for
// blocks of whole 32-byte sectors of vectors: MROWS below; their outputs
// along m go through shared memory: MSTORE), with fusion of
// consecutive square factors in shared memory (Section 4.2) and shift
// caching (Figure 5).  Instantiated for a small set of configurations in
// fast_s.cu and fast_d.cu, and for any other at run time by NVRTC
// (lib/cuda_jit.c compiles this file as embedded text: keep host-only code
// under #ifndef __CUDACC_RTC__); kb_cuda_kernels.h says what a step
// computes.
//
// One thread block takes TM vectors and a slab of TK = NS*P consecutive
// input elements of each (NS slices of P), loads TP elements of every slice
// into shared memory at a time, and produces all Q columns for those NS
// slices.  A thread owns RM vectors x RK consecutive slices x RQ factor
// columns in registers.  With F > 1 the result stays in shared memory and
// the next factor is applied to it; the outputs of the last factor go from
// registers straight to their final index in global memory.
#ifndef KB_FAST_CUH
#define KB_FAST_CUH

#include "kb_cuda_kernels.h"
#include "kb_cuda_ops.cuh"

#ifndef __CUDACC_RTC__
#include <climits>
#endif

// Vector accesses of N elements: 16 bytes where P and Q allow, narrower
// (down to one element) so that any P, Q runs at full specialisation.
template <typename T, int N> struct kb_vec;
template <> struct kb_vec<float, 4> { typedef float4 type; };
template <> struct kb_vec<float, 2> { typedef float2 type; };
template <> struct kb_vec<float, 1> { typedef float type; };
template <> struct kb_vec<double, 2> { typedef double2 type; };
template <> struct kb_vec<double, 1> { typedef double type; };

template <typename T>
struct kb_fast_args {
  int64_t m, batch, K;
  const T *F[KB_CUDA_MAXF];
  int64_t fs_l[KB_CUDA_MAXF], fs_k[KB_CUDA_MAXF], f_bs[KB_CUDA_MAXF];
  const T *in;
  int64_t in_rs, in_is, in_bs;   // in_is != 1: input along m (kb_fast_shape::MROWS)
  T *out;
  int64_t out_rs, out_is, out_bs;
  int epilogue;
  kb_scalars<T> sc;
  int vec_in;    // in, in_rs and in_bs allow vector loads
  int vec_f;     // every factor runs along l with vector-aligned columns
  int vec_out;   // out_is == 1 and out, out_rs, out_bs allow vector stores
  int f_varies;  // batch > 1 and some factor differs between entries (f_bs != 0)
};

template <int N>
struct kb_ipow { template <int B> __host__ __device__ static constexpr int of() { return B * kb_ipow<N - 1>::template of<B>(); } };
template <>
struct kb_ipow<0> { template <int B> __host__ __device__ static constexpr int of() { return 1; } };

// Shift caching: the RK slices a thread reads form a group of R = RK*TP
// elements; group g is stored rotated by V*g elements, so that the 16-byte
// reads of neighbouring threads (same offset in consecutive groups) fall in
// different banks.  Keeps V-aligned runs contiguous.
// Unsigned: signed division and remainder by a power of two cost four
// instructions where unsigned ones cost one (ncu, H100: the index
// arithmetic was a third of the P = 16 kernel's instructions).
template <int R, int V>
__device__ __forceinline__ unsigned kb_shift(unsigned c)
{
  const unsigned g = c / R;
  return g * R + ((c % R) + V * g) % R;
}

// x % R for x < 2R.
template <int R>
__device__ __forceinline__ unsigned kb_wrap(unsigned x)
{
  if constexpr ((R & (R - 1)) == 0)
    return x & (R - 1);
  else
    return x >= (unsigned)R ? x - R : x;
}

// A tile's slab, block of vectors and batch entry: 32-bit division where
// the tiles fit (a 64-bit division is a subroutine of ~70 instructions,
// twice per tile).
struct kb_tile_pos {
  int64_t slab, rb, b;
};

__device__ __forceinline__ kb_tile_pos kb_tile_split(int64_t tile, int64_t nslab, int64_t nrb, bool small)
{
  kb_tile_pos t;
  if (small) {
    const unsigned u = (unsigned)tile, q = u / (unsigned)nslab;
    t.slab = u - q * (unsigned)nslab;
    t.rb = q % (unsigned)nrb;
    t.b = q / (unsigned)nrb;
  } else {
    t.slab = tile % nslab;
    t.rb = (tile / nslab) % nrb;
    t.b = tile / (nslab * nrb);
  }
  return t;
}

template <typename VT, typename T>
__device__ __forceinline__ T kb_vget(const VT &v, int i)
{
  return reinterpret_cast<const T *>(&v)[i];
}

// acc[RM][RK][RQ] += X slices (shared, shifted) x factor tile Fs[k][Q].
template <typename T, int V, int Q, int TP, int NS, int RM, int RK, int RQ, int XU>
__device__ __forceinline__ void kb_fast_mac(const T *__restrict__ Xs, const T *__restrict__ Fs,
                                            T (&acc)[RM][RK][RQ], int sg, int qg, int mg)
{
  typedef typename kb_vec<T, V>::type VT;
  constexpr int R = RK * TP;
  constexpr int SLAB = NS * TP;
  const T *xb = Xs + mg * RM * SLAB + sg * R;
  const unsigned rot = (unsigned)(V * sg) % R;
  // XU: how many k-steps of V are unrolled.  Fully unrolled, ptxas hoists
  // the next step's shared loads over this step's FMAs (latency hidden, more
  // registers); 1 keeps registers for occupancy.
#pragma unroll XU
  for (int e0 = 0; e0 < TP; e0 += V) {
    VT xv[RM][RK];
#pragma unroll
    for (int im = 0; im < RM; im++)
#pragma unroll
      for (int i = 0; i < RK; i++)
        xv[im][i] = *reinterpret_cast<const VT *>(xb + im * SLAB + kb_wrap<R>((unsigned)(i * TP + e0) + rot));
#pragma unroll
    for (int ev = 0; ev < V; ev++) {
      T fr[RQ];
#pragma unroll
      for (int j = 0; j < RQ; j += V)
        *reinterpret_cast<VT *>(&fr[j]) =
            *reinterpret_cast<const VT *>(Fs + (e0 + ev) * Q + qg * RQ + j);
#pragma unroll
      for (int im = 0; im < RM; im++)
#pragma unroll
        for (int i = 0; i < RK; i++) {
          const T x = kb_vget<VT, T>(xv[im][i], ev);
#pragma unroll
          for (int j = 0; j < RQ; j++)
            acc[im][i][j] = kb_fma(x, fr[j], acc[im][i][j]);
        }
    }
  }
}

// A thread's register tile into shared rows: output ee = l*NS + s of
// vector row mg*RM + im goes to dst[row*LD + pos(ee)], V elements at a
// time, pos = kb_shift<R, V> where SHIFT (the layout the multiply reads),
// else the identity.  ZERO clears the accumulators on the way (the next
// fused factor accumulates into them).
template <typename T, typename VT, int V, int NS, int RM, int RK, int RQ, int LD, int R, bool SHIFT, bool ZERO,
          typename A>
__device__ __forceinline__ void kb_fast_tile_to_smem(A &acc, T *dst, int sg, int qg, int mg)
{
#pragma unroll
  for (int im = 0; im < RM; im++)
#pragma unroll
    for (int j = 0; j < RQ; j++)
#pragma unroll
      for (int i0 = 0; i0 < RK; i0 += V) {
        VT w;
        T *ws = reinterpret_cast<T *>(&w);
#pragma unroll
        for (int e = 0; e < V; e++) {
          ws[e] = acc[im][i0 + e][j];
          if constexpr (ZERO)
            acc[im][i0 + e][j] = T(0);
        }
        const unsigned ee = (unsigned)((qg * RQ + j) * NS + sg * RK + i0);
        *reinterpret_cast<VT *>(dst + (mg * RM + im) * LD + (SHIFT ? kb_shift<R, V>(ee) : ee)) = w;
      }
}

template <typename T, int P, int Q, int F, int TP, int NS, int TM, int RM, int RK, int RQ, int ST, int XU,
          int VW>
struct kb_fast_shape {
  static constexpr int V = VW;
  static constexpr int NSG = NS / RK;
  static constexpr int NQG = Q / RQ;
  static constexpr int NT = (TM / RM) * NSG * NQG;
  static constexpr int TK = NS * P;
  static constexpr int SLAB = NS * TP;
  static constexpr int NTP = P / TP;                        // k-tiles per slab
  static constexpr int PF = kb_ipow<F>::template of<P>();   // P^F
  static constexpr int RL = TK / PF;                        // run of consecutive outputs
  static constexpr int FS = F > 1 ? F * P * Q : TP * Q;     // factor tile elements
  // FO: fused factors (whole factors a stage, TP == P) are the same in
  // every stage of one batch entry, so one copy after the stages serves
  // them all (two fused 32x32 float factors: 80 -> 72 KB a block, a third
  // block per SM; ncu, H100: two blocks left 40% of issue slots without an
  // eligible warp).  Otherwise each stage carries its k-tile of the factor
  // (one factor's tile is small, and single-factor kernels keep the code
  // they were measured with).  A stage of FO keeps 4 elements a vector
  // spare, the padding of MSTORE's rows below.  kb_cuda_cfg_stage
  // (kb_cuda_kernels.h) says the same.
  static constexpr bool FO = F > 1;
  static constexpr int STAGE = TM * SLAB + (FO ? 4 * TM : FS);   // elements between stages
  static constexpr int SMEM = (ST * STAGE + (FO ? FS : 0)) * (int)sizeof(T);
  // Input contiguous along m (in_is != 1, in_rs == 1: X of RIGHT/N and
  // LEFT/T) is loaded one element per thread, MG consecutive vectors (one
  // 32-byte sector) side by side; only a block of whole sectors of vectors
  // coalesces, so only such shapes carry that load path (kb_fast_mrows_ok).
  static constexpr int MG = 32 / (int)sizeof(T);
  static constexpr bool MROWS = TM % MG == 0;
  // Output along m (out_is != 1: Y of RIGHT/N) goes through shared memory
  // (the tile's own stage, free once it is multiplied), so that
  // consecutive threads store consecutive vectors, whole sectors as the
  // MROWS loads read them.  Rows of NSQ outputs, padded by 4 elements
  // where there is room (against bank conflicts of the column reads).
  // Where the tile's outputs do not fit in one stage the stores stay
  // strided.  kb_cuda_cfg_mstore (kb_cuda_kernels.h) says the same.
  static constexpr int NSQ = NS * Q;
  static constexpr int LDM = TM * (NSQ + 4) <= STAGE ? NSQ + 4 : NSQ;
  static constexpr bool MSTORE = MROWS && TM * NSQ <= STAGE;
  static_assert(F == 1 || (TP == P && P == Q), "fusion needs whole slices of square factors");
  static_assert(P % TP == 0 && TP % V == 0 && RK % V == 0 && RQ % V == 0, "tile sizes");
  static_assert(P % V == 0 && Q % V == 0, "vector accesses stay within a slice and a factor row");
  static_assert(NS % RK == 0 && Q % RQ == 0 && TM % RM == 0, "tile sizes");
  static_assert(RL >= 1 && RL * PF == TK, "a slab holds whole fused slices");
  static_assert(ST == 1 || ST == 2, "one or two stages");
};

template <typename T, int V>
__device__ __forceinline__ void kb_fast_cp_elems(T *dst, const T *src, bool vec, bool valid, const T *dummy)
{
  if (vec && V * sizeof(T) == 16) {
    kb_cp16(dst, valid ? (const void *)src : (const void *)dummy, valid);
  } else if (vec) {
    kb_cp<V * (int)sizeof(T)>(dst, valid ? (const void *)src : (const void *)dummy, valid);
  } else {
#pragma unroll
    for (int e = 0; e < V; e++)
      kb_cp<(int)sizeof(T)>(dst + e, valid ? (const void *)(src + e) : (const void *)dummy, valid);
  }
}

// FU: how many of the fused factors' multiplies (F - 1 of them) are
// unrolled.  The precompiled set unrolls them all; JIT instantiations of
// 4 or more fused factors keep the loop rolled (lib/cuda_jit.c,
// kb_jit_name): one copy of the multiply instead of F - 1 is less NVRTC
// time, and the loop body (two barriers, a register-to-shared store, a
// whole multiply) leaves little for unrolling to overlap.
//
// YP: the twin launched where the step blends into Y (beta != 0; only
// where kb_fast_twin says).  As a tile starts it asks L2 for the lines of
// the old outputs its epilogue will read, so that those reads do not each
// wait on DRAM.  A twin rather than a runtime test: in the one kernel the
// prefetch cost beta = 0 2-2.5% on the 32x32 plans (session 46).
template <typename T, int P, int Q, int F, int TP, int NS, int TM, int RM, int RK, int RQ, int ST, int XU,
          int VW, int FU = KB_CUDA_MAXF, bool YP = false>
__global__ void __launch_bounds__(kb_fast_shape<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW>::NT)
kb_fast_kernel(const kb_fast_args<T> a)
{
  typedef kb_fast_shape<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW> S;
  typedef typename kb_vec<T, VW>::type VT;
  constexpr int V = S::V, NT = S::NT, TK = S::TK, SLAB = S::SLAB, RL = S::RL, NTP = S::NTP;
  constexpr int R = RK * TP;
  extern __shared__ __align__(16) unsigned char kb_fast_smem[];
  T *const smem = reinterpret_cast<T *>(kb_fast_smem);

  const int tid = threadIdx.x;
  const int sg = tid % S::NSG;
  const int qg = (tid / S::NSG) % S::NQG;
  const int mg = tid / (S::NSG * S::NQG);

  const kb_epi_vals<T> ep = kb_epi_start(a.sc);
  if (ep.azero && a.epilogue == KB_EPI_NONE)
    return;
  const T alpha = ep.alpha, beta = ep.beta;
  const bool azero = ep.azero, bzero = ep.bzero;

  const int64_t nslab = a.K / TK;
  const int64_t nrb = (a.m + TM - 1) / TM;
  const int64_t ntiles = nslab * nrb * a.batch;
  const int64_t kdiv = a.K / S::PF;   // stride between runs of the output
  const int64_t my_tiles = ntiles > (int64_t)blockIdx.x ? (ntiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
  const bool small = ntiles <= (int64_t)0xffffffffLL;
  const int64_t nu = azero ? 0 : my_tiles * NTP;   // stages: (tile, k-tile) pairs

  // FO with factors per batch entry: whether the next stage's tile lies in
  // another entry than this one's (its factors then replace the one copy).
  // Tiles step by gridDim.x and entries hold tpe tiles each, so tracking
  // tile % tpe needs no division per stage (one there cost ptxas 16
  // registers and spills in the double 16x16 kernels).
  const int64_t tpe = nslab * nrb;
  int64_t rem = S::FO && a.f_varies ? (int64_t)blockIdx.x % tpe : 0;
  auto next_crosses = [&]() {
    if ((int64_t)gridDim.x >= tpe)
      return true;
    rem += gridDim.x;
    if (rem < tpe)
      return false;
    rem -= tpe;
    return true;
  };
  // The factor tile stage u multiplies by.
  auto factors = [&](int64_t u) {
    return S::FO ? smem + ST * S::STAGE : smem + (ST == 2 ? (int)(u & 1) : 0) * S::STAGE + TM * SLAB;
  };

  // Starts the loads of stage u (tile u / NTP, k-tile u % NTP) into its
  // buffer; FO loads the factors only where new_f says (a new entry's).
  auto issue = [&](int64_t u, bool new_f) {
    const int64_t tile = blockIdx.x + (u / NTP) * gridDim.x;
    const int tp = (int)(u % NTP) * TP;
    const kb_tile_pos pos = kb_tile_split(tile, nslab, nrb, small);
    const int64_t slab = pos.slab, rb = pos.rb, b = pos.b;
    T *Xs = smem + (ST == 2 ? (int)(u & 1) : 0) * S::STAGE;
    T *Fs = factors(u);
    const T *in = a.in + b * a.in_bs + (slab * TK + tp) * a.in_is;
    if (S::MROWS && a.in_is != 1) {
      // Along m: a warp reads 32/MG sectors of MG vectors each, one element
      // per thread, into the same shifted layout (element-wise kb_shift
      // keeps V-aligned runs together).  Uniform branch per launch.
      constexpr int MG = S::MG;
#pragma unroll 1
      for (int i = tid; i < TM * SLAB; i += NT) {
        const int rr = i % MG + (i / (MG * SLAB)) * MG;
        const int c = (i / MG) % SLAB;        // s*TP + e
        const int64_t r = rb * TM + rr;
        const bool ok = r < a.m;
        kb_cp<(int)sizeof(T)>(Xs + rr * SLAB + kb_shift<R, V>(c),
                              ok ? (const void *)(in + r * a.in_rs + ((c / TP) * P + (c % TP)) * a.in_is)
                                 : (const void *)a.in,
                              ok);
      }
    } else if constexpr (TM == 1 && TP == P) {
      // One vector, whole slices: the tile is SLAB consecutive elements of
      // a vector that exists (rb < m), so a thread's chunks are fixed
      // offsets from one pointer (the general loop below spent ~50
      // instructions a 16-byte copy on 64-bit index arithmetic).
      const T *src = in + rb * a.in_rs;
#pragma unroll(P >= 32 ? 1 : 4)
      for (int k = 0; k < (SLAB / V + NT - 1) / NT; k++) {
        const unsigned c = ((unsigned)tid + (unsigned)(k * NT)) * V;
        if ((SLAB / V) % NT != 0 && c >= (unsigned)SLAB)
          break;
        kb_fast_cp_elems<T, V>(Xs + kb_shift<R, V>(c), src + c, a.vec_in != 0, true, a.in);
      }
    } else {
      // Unrolled for P <= 16; for P >= 32 a rolled loop leaves the
      // registers to the multiply (measured on an H200, 2026-11-21: P = 32
      // float 5-9% faster rolled, P = 8, 16 2-3% slower).
#pragma unroll(P >= 32 ? 1 : 4)
      for (int i = tid; i < TM * SLAB / V; i += NT) {
        const unsigned rr = (unsigned)i / (SLAB / V);
        const unsigned c = ((unsigned)i % (SLAB / V)) * V;     // s*TP + e
        const int64_t r = rb * TM + rr;
        kb_fast_cp_elems<T, V>(Xs + rr * SLAB + kb_shift<R, V>(c), in + r * a.in_rs + (c / TP) * P + (c % TP),
                            a.vec_in != 0, r < a.m, a.in);
      }
    }
    // Factor tiles Fs[k][l] = A(l, tp + k): one k-tile (F == 1) or all
    // fused factors (F > 1, tp == 0).
    const bool load_f = !S::FO || new_f;
#pragma unroll
    for (int f = 0; f < F && load_f; f++) {
      const T *Fg = a.F[f] + b * a.f_bs[f] + tp * a.fs_k[f];
      T *Fd = Fs + f * TP * Q;
#pragma unroll 1
      for (int i = tid; i < TP * Q / V; i += NT) {
        const unsigned k = (unsigned)(i * V) / Q, l = (unsigned)(i * V) % Q;
        if (a.vec_f) {
          kb_fast_cp_elems<T, V>(Fd + k * Q + l, Fg + l + k * a.fs_k[f], true, true, Fg);
        } else {
#pragma unroll
          for (int e = 0; e < V; e++)
            kb_cp<(int)sizeof(T)>(Fd + k * Q + l + e, Fg + (l + e) * a.fs_l[f] + k * a.fs_k[f], true);
        }
      }
    }
    kb_cp_commit();
  };

  // Writes a tile's outputs at their final index: local ee = l*NS + s is
  // element (ee % RL) of run (ee / RL); runs are kdiv apart, slabs RL apart.
  auto epilogue = [&](int64_t tile, const T (&acc)[RM][RK][RQ]) {
    const kb_tile_pos pos = kb_tile_split(tile, nslab, nrb, small);
    const int64_t slab = pos.slab, rb = pos.rb, b = pos.b;
    // Where runs hold whole groups of RK slices (RL % RK == 0; NS % RL == 0
    // always), column j's RK outputs are one run: gi = base + j*jstep + i0.
    constexpr bool RUNS = RL % RK == 0;
    const unsigned eb = (unsigned)(qg * RQ * NS + sg * RK);
    const int64_t gbase = (int64_t)(eb / RL) * kdiv + slab * RL + eb % RL;
    const int64_t jstep = (int64_t)(NS / RL) * kdiv;
#pragma unroll
    for (int im = 0; im < RM; im++) {
      const int64_t r = rb * TM + mg * RM + im;
      if (r >= a.m)
        continue;
      T *orow = a.out + b * a.out_bs + r * a.out_rs;
#pragma unroll
      for (int j = 0; j < RQ; j++)
#pragma unroll
        for (int i0 = 0; i0 < RK; i0 += V) {
          const unsigned ee = eb + (unsigned)(j * NS + i0);
          const int64_t gi = RUNS ? gbase + j * jstep + i0 : (int64_t)(ee / RL) * kdiv + slab * RL + ee % RL;
          T v[V];
#pragma unroll
          for (int e = 0; e < V; e++)
            v[e] = acc[im][i0 + e][j];
          if (a.epilogue != KB_EPI_NONE) {
#pragma unroll
            for (int e = 0; e < V; e++)
              v[e] = azero ? T(0) : alpha * v[e];
          }
          // (One element: the strided store below is the same access.)
          if (V > 1 && a.vec_out) {
            VT *o = reinterpret_cast<VT *>(orow + gi);
            if (a.epilogue == KB_EPI_AXPBY && !bzero) {
              const VT y = *o;
#pragma unroll
              for (int e = 0; e < V; e++)
                v[e] = kb_fma(beta, kb_vget<VT, T>(y, e), v[e]);
            }
            *o = *reinterpret_cast<const VT *>(v);
          } else {
#pragma unroll
            for (int e = 0; e < V; e++) {
              T *o = orow + (gi + e) * a.out_is;
              *o = (a.epilogue == KB_EPI_AXPBY && !bzero) ? kb_fma(beta, *o, v[e]) : v[e];
            }
          }
        }
    }
  };

  // YP: asks L2 for the lines of the outputs epilogue(tile) will read.
  auto prefetch_out = [&](int64_t tile) {
    const kb_tile_pos pos = kb_tile_split(tile, nslab, nrb, small);
    const int64_t slab = pos.slab, rb = pos.rb, b = pos.b;
    const unsigned eb = (unsigned)(qg * RQ * NS + sg * RK);
#pragma unroll
    for (int im = 0; im < RM; im++) {
      const int64_t r = rb * TM + mg * RM + im;
      if (r >= a.m)
        continue;
      // Through an opaque copy: the epilogue's same addresses, shared with
      // these, would otherwise stay live in registers across the multiply.
      const T *orow = a.out + b * a.out_bs + r * a.out_rs;
      asm volatile("mov.b64 %0, %0;" : "+l"(orow));
#pragma unroll 1
      for (int j = 0; j < RQ; j++)
#pragma unroll
        for (int i0 = 0; i0 < RK; i0 += V) {
          const unsigned ee = eb + (unsigned)(j * NS + i0);
          const int64_t gi = (int64_t)(ee / RL) * kdiv + slab * RL + ee % RL;
          kb_prefetch_l2(orow + gi * a.out_is);
        }
    }
  };
  const bool pf = YP && a.epilogue == KB_EPI_AXPBY && !bzero;

  // The same outputs along m (S::MSTORE): the tile's outputs go into Ys
  // (this stage's buffer) row by row, then each thread stores one element
  // of MG consecutive vectors, a sector per MG threads.
  auto epilogue_m = [&](int64_t tile, const T (&acc)[RM][RK][RQ], T *Ys) {
    constexpr int NSQ = S::NSQ, LD = S::LDM, MG = S::MG;
    const kb_tile_pos pos = kb_tile_split(tile, nslab, nrb, small);
    const int64_t slab = pos.slab, rb = pos.rb, b = pos.b;
    __syncthreads();   // every thread is done reading this stage
    kb_fast_tile_to_smem<T, VT, V, NS, RM, RK, RQ, LD, R, false, false>(acc, Ys, sg, qg, mg);
    __syncthreads();
    T *const ob = a.out + b * a.out_bs;
    const bool axpby = a.epilogue == KB_EPI_AXPBY && !bzero;
#pragma unroll 1
    for (int i = tid; i < TM * NSQ; i += NT) {
      const int rr = i % MG + (i / (MG * NSQ)) * MG;
      const int ee = (i / MG) % NSQ;
      const int64_t r = rb * TM + rr;
      if (r >= a.m)
        continue;
      T v = Ys[rr * LD + ee];
      if (a.epilogue != KB_EPI_NONE)
        v = alpha * v;
      T *o = ob + r * a.out_rs + ((int64_t)(ee / RL) * kdiv + slab * RL + ee % RL) * a.out_is;
      *o = axpby ? kb_fma(beta, *o, v) : v;
    }
  };

  T acc[RM][RK][RQ];
#pragma unroll
  for (int im = 0; im < RM; im++)
#pragma unroll
    for (int i = 0; i < RK; i++)
#pragma unroll
      for (int j = 0; j < RQ; j++)
        acc[im][i][j] = T(0);

  if (azero) {
    // Final step with alpha == 0 (device mode): Y <- beta*Y only, over the
    // same outputs as the epilogue (local ee = l*NS + s), one element per
    // thread in a rolled loop: a second inlined copy of the register-tile
    // epilogue would be a third of the kernel's code (NVRTC time) for a
    // path no one times.
    const bool axpby = a.epilogue == KB_EPI_AXPBY && !bzero;
    for (int64_t t = 0; t < my_tiles; t++) {
      const int64_t tile = blockIdx.x + t * gridDim.x;
      const kb_tile_pos pos = kb_tile_split(tile, nslab, nrb, small);
      const int64_t slab = pos.slab, rb = pos.rb, b = pos.b;
#pragma unroll 1
      for (int i = tid; i < TM * NS * Q; i += NT) {
        const int ee = i % (NS * Q);
        const int64_t r = rb * TM + i / (NS * Q);
        if (r >= a.m)
          continue;
        T *o = a.out + b * a.out_bs + r * a.out_rs + ((int64_t)(ee / RL) * kdiv + slab * RL + ee % RL) * a.out_is;
        *o = axpby ? kb_fma(beta, *o, T(0)) : T(0);
      }
    }
    return;
  }

  if (nu > 0)
    issue(0, true);
  for (int64_t u = 0; u < nu; u++) {
    // The next stage's loads go ahead of this multiply, except where they
    // replace the one copy of the factors it reads (FO, another entry's).
    const bool cross = S::FO && a.f_varies && u + 1 < nu && next_crosses();
    const bool ahead = ST == 2 && u + 1 < nu && !cross;
    if (ahead) {
      issue(u + 1, false);
      kb_cp_wait<1>();
    } else {
      kb_cp_wait<0>();
    }
    __syncthreads();
    if (pf && u % NTP == 0)
      prefetch_out(blockIdx.x + (u / NTP) * gridDim.x);
    T *Xs = smem + (ST == 2 ? (int)(u & 1) : 0) * S::STAGE;
    const T *Fs = factors(u);
    kb_fast_mac<T, V, Q, TP, NS, RM, RK, RQ, XU>(Xs, Fs, acc, sg, qg, mg);
    if (u % NTP == NTP - 1) {
#pragma unroll FU
      for (int f = 1; f < F; f++) {
        // The slab's next state: output l*NS + s of this factor, stored in
        // the shifted layout the next multiply reads.
        __syncthreads();
        kb_fast_tile_to_smem<T, VT, V, NS, RM, RK, RQ, SLAB, R, true, true>(acc, Xs, sg, qg, mg);
        __syncthreads();
        kb_fast_mac<T, V, Q, TP, NS, RM, RK, RQ, XU>(Xs, Fs + f * P * Q, acc, sg, qg, mg);
      }
      if constexpr (S::MSTORE) {
        if (a.out_is != 1)
          epilogue_m(blockIdx.x + (u / NTP) * gridDim.x, acc, Xs);
        else
          epilogue(blockIdx.x + (u / NTP) * gridDim.x, acc);
      } else {
        epilogue(blockIdx.x + (u / NTP) * gridDim.x, acc);
      }
#pragma unroll
      for (int im = 0; im < RM; im++)
#pragma unroll
        for (int i = 0; i < RK; i++)
#pragma unroll
          for (int j = 0; j < RQ; j++)
            acc[im][i][j] = T(0);
    }
    __syncthreads();   // this buffer (and the factors) free for the next loads
    if (!ahead && u + 1 < nu)
      issue(u + 1, cross);
  }
}

#ifndef __CUDACC_RTC__
// ------------------------------------------------------------ host side

// One table entry per instantiation: its configuration, its launcher and
// the call that raises its shared-memory limit and reads its occupancy.
struct kb_fast_entry {
  kb_cuda_fast_cfg_t cfg;
  int (*launch)(const kb_cuda_step_t *st, void *stream, int max_blocks);
  int (*attr)(int *blocks_per_sm);
};

// The fast kernel's arguments for a step of F factors with vector accesses
// of V elements: shared by the precompiled launchers and the JIT launcher
// (steps.cu), whose kernels take the same struct.
template <typename T>
static inline void kb_fast_fill_args(kb_fast_args<T> *a, const kb_cuda_step_t *st, int F, int V)
{
  const int vb = V * (int)sizeof(T);
  int f;
  a->m = st->m;
  a->batch = st->batch;
  a->K = st->K;
  a->vec_f = 1;
  a->f_varies = 0;
  for (f = 0; f < KB_CUDA_MAXF; f++) {
    if (f < F && st->batch > 1 && st->f_bs[f] != 0)
      a->f_varies = 1;
    a->F[f] = f < F ? (const T *)st->F[f] : nullptr;
    a->fs_l[f] = f < F ? st->fs_l[f] : 0;
    a->fs_k[f] = f < F ? st->fs_k[f] : 0;
    a->f_bs[f] = f < F ? st->f_bs[f] : 0;
    if (f < F && !(a->fs_l[f] == 1 && kb_aligned(a->F[f], vb) && a->fs_k[f] % V == 0 &&
                   (a->batch == 1 || a->f_bs[f] % V == 0)))
      a->vec_f = 0;
  }
  a->in = (const T *)st->in;
  a->in_rs = st->in_rs;
  a->in_is = st->in_is;
  a->in_bs = st->in_bs;
  a->out = (T *)st->out;
  a->out_rs = st->out_rs;
  a->out_is = st->out_is;
  a->out_bs = st->out_bs;
  a->epilogue = st->epilogue;
  a->sc = kb_make_scalars<T>(st->alpha, st->beta, st->dev_scalars, st->beta_zero);
  a->vec_in = a->in_is == 1 && kb_aligned(a->in, vb) && (a->m == 1 || a->in_rs % V == 0) && (a->batch == 1 || a->in_bs % V == 0);
  a->vec_out = a->out_is == 1 && kb_aligned(a->out, vb) && (a->m == 1 || a->out_rs % V == 0) &&
               (a->batch == 1 || a->out_bs % V == 0);
}

// Blocks of a launch: one per tile, at most max_blocks (those that fit on
// the device at once; each then walks several tiles).
static inline unsigned kb_fast_grid(const kb_cuda_step_t *st, int TK, int TM, int max_blocks)
{
  const int64_t ntiles = (st->K / TK) * ((st->m + TM - 1) / TM) * st->batch;
  const int64_t cap = max_blocks > 0 ? max_blocks : INT_MAX;
  return (unsigned)(ntiles < cap ? ntiles : cap);
}

// Whether an entry has the beta != 0 twin (YP).  Measured on an H200,
// beta = 1, model plans, against no twin (session 47, doc/performance.md):
// float P = 32 (the 32x32 plans' last step) 5-16% faster; float 64x64 f2
// (1024_64x64^2) 4.7% slower and 8x8 f3 (1024_8x8^5) no change.  Also
// tried: the next tile's lines instead of this one's (-0.6% to +7.7%), and
// the row pointer not laundered (32x32 f2 168 -> 253 registers, 5-18%
// slower).  Double is unmeasured.
template <typename T, int P>
static constexpr bool kb_fast_twin()
{
  return sizeof(T) == 4 && P == 32;
}

// Blocks per SM of an entry's two twins (YP false, true), as kb_fast_attr
// read them: the beta != 0 twin may hold more registers, and its grid then
// shrinks by the same ratio so that its blocks are still all resident.
template <typename T, int P, int Q, int F, int TP, int NS, int TM, int RM, int RK, int RQ, int ST, int XU>
static int *kb_fast_twin_blocks()
{
  static int blocks[2];
  return blocks;
}

template <typename T, int P, int Q, int F, int TP, int NS, int TM, int RM, int RK, int RQ, int ST, int XU>
static int kb_fast_launch(const kb_cuda_step_t *st, void *stream, int max_blocks)
{
  constexpr int VW = 16 / (int)sizeof(T);
  typedef kb_fast_shape<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW> S;
  kb_fast_args<T> a;
  if (st->in_is != 1 && !S::MROWS)
    return (int)cudaErrorInvalidValue;   // the planner never sends such a step here
  kb_fast_fill_args<T>(&a, st, F, VW);
  if constexpr (kb_fast_twin<T, P>()) {
    if (st->epilogue == KB_EPI_AXPBY && !st->beta_zero) {
      const int *tb = kb_fast_twin_blocks<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU>();
      const int mb = tb[0] > 0 && tb[1] > 0 ? max_blocks / tb[0] * tb[1] : max_blocks;
      kb_fast_kernel<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW, KB_CUDA_MAXF, true>
          <<<kb_fast_grid(st, S::TK, TM, mb), S::NT, S::SMEM, (cudaStream_t)stream>>>(a);
      return (int)cudaGetLastError();
    }
  }
  kb_fast_kernel<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW>
      <<<kb_fast_grid(st, S::TK, TM, max_blocks), S::NT, S::SMEM, (cudaStream_t)stream>>>(a);
  return (int)cudaGetLastError();
}

template <typename T, int P, int Q, int F, int TP, int NS, int TM, int RM, int RK, int RQ, int ST, int XU>
static int kb_fast_attr(int *blocks_per_sm)
{
  constexpr int VW = 16 / (int)sizeof(T);
  typedef kb_fast_shape<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW> S;
  // Both twins (YP) where there are two; the planner sees the beta = 0
  // twin's occupancy.
  void (*const k0)(kb_fast_args<T>) = kb_fast_kernel<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW>;
  cudaError_t err = cudaSuccess;
  int b0 = 0, b1 = 0;
  *blocks_per_sm = 0;
  if (S::SMEM > 48 * 1024)
    err = cudaFuncSetAttribute(k0, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM);
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b0, k0, S::NT, S::SMEM);
  if constexpr (kb_fast_twin<T, P>()) {
    void (*const k1)(kb_fast_args<T>) = kb_fast_kernel<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, VW, KB_CUDA_MAXF, true>;
    if (err == cudaSuccess && S::SMEM > 48 * 1024)
      err = cudaFuncSetAttribute(k1, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM);
    if (err == cudaSuccess)
      err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b1, k1, S::NT, S::SMEM);
  }
  if (err == cudaSuccess) {
    int *tb = kb_fast_twin_blocks<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU>();
    tb[0] = b0;
    tb[1] = b1;
    *blocks_per_sm = b0;
  }
  return (int)err;
}

// The precompiled set uses 16-byte vectors.
#define KB_FAST_SHAPE(T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU) \
  kb_fast_shape<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU, 16 / (int)sizeof(T)>
#define KB_FAST_ENTRY(T, TYPE, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU)                              \
  { { TYPE, P, Q, F, NS * P, TM, TP, RK, RQ, RM,                                                  \
      KB_FAST_SHAPE(T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU)::NT,                                  \
      KB_FAST_SHAPE(T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU)::SMEM, ST,                            \
      KB_FAST_SHAPE(T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU)::RL, 0, XU,                           \
      16 / (int)sizeof(T), KB_CFG_TABLE },                                                          \
    kb_fast_launch<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU>,                                       \
    kb_fast_attr<T, P, Q, F, TP, NS, TM, RM, RK, RQ, ST, XU> }

extern const kb_fast_entry kb_fast_table_s[];
extern const int kb_fast_table_s_n;
extern const kb_fast_entry kb_fast_table_d[];
extern const int kb_fast_table_d_n;
#endif // !__CUDACC_RTC__

#endif // KB_FAST_CUH
