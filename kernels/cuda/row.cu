// row.cu - the whole-row kernel (KB_KERNEL_ROW): one launch applies all nf
// factors of a problem whose factors are all P x P (one P) to vectors that
// fit in shared memory whole -- one block's, or a thread-block cluster's
// (below, "rows over a cluster") --, each factor's digit updated in place.
//
// Why in place: the rotating sliced multiply (kb_fast.cuh, small.cu)
// writes each factor's output into a second buffer with its new digit
// moved first, so a vector in shared memory needs twice its size; for 8^5
// and 32^3 float (128 KB) that does not fit and they took two passes over
// global memory.  With square factors, factor f applied to digit f (stride
// P^f) of the natural layout needs one buffer: a thread reads its slices'
// P elements into registers, multiplies them and writes the P outputs
// where the inputs were.  Factors act on distinct digits, so the order is
// free: the slowest digit goes first, read straight from global memory
// (consecutive threads take consecutive slices: coalesced), the fastest
// last, and the row is then copied out with the epilogue in whole 16-byte
// vectors.  Step semantics (kb_cuda_kernels.h) with nf == all factors
// give the natural order too, so this is one step of a one-step plan.
//
// Shared layout: the row in natural order, its 16-byte chunks permuted
// within rows of 8 chunks (chunk c at c ^ ((c >> 3) & 7)) for even P, so
// that the strided digits' vector accesses and the contiguous digit's
// slice reads fall in distinct banks (checked for every even P and digit
// of rows up to 220 KB: at most 2-way); odd P keep the identity, and P = 8
// and float P = 4 XOR in (c >> 4) & 4 too (kb_row_shape::SWZ_HI).  After
// the row, the factors: A_f[l,k] at F_f + k*P + l.
#include "kb_cuda_kernels.h"
#include "kb_cuda_ops.cuh"

#include <cooperative_groups.h>
#include <cstring>
#include <mutex>

template <typename T, int N> struct kb_row_vec;   // vector types of N elements
template <> struct kb_row_vec<float, 4> { typedef float4 type; };
template <> struct kb_row_vec<float, 2> { typedef float2 type; };
template <> struct kb_row_vec<double, 2> { typedef double2 type; };

// Registers per thread: x[G][P] (G slices at once) and acc[G][LQ] (LQ
// outputs at a time); G slices share every factor load.  Measured (H100,
// 2026-11-21, float): two slices in 1024-thread blocks for P <= 8 were
// slower than four in 512 (1024_8x8^5 0.193 against 0.179 ms, 1024_4x4^7
// 0.136 against 0.091); four slices of P = 32 in 256-thread blocks of 255
// registers ran 1024_32x32^3 in 0.88 ms, two in 512 threads in 0.50.  An
// L2 prefetch of a persistent block's next vector made 8x8^5 slower
// (0.182 -> 0.199 ms).
#define KB_ROW_NT 512   // most threads per block

template <typename T, int P>
struct kb_row_shape {
  static constexpr int VL = 16 / (int)sizeof(T);   // elements of a 16-byte chunk
  static constexpr bool SWZ = P % 2 == 0;
  // A second swizzle term, (c >> 4) & 4, for P = 8 and float P = 4 (H100,
  // session 23, model plans, three interleaved rounds, time with / without:
  // double 1024_8x8^5 0.90, 320_8x8^5 0.89, float 1024_8x8^5 0.96, float
  // 2967_4x4^7 0.92, 1526_4x4^6 0.97; double P = 4 1.00-1.01, float
  // 1024_16x16^3 1.19 in session 22).  Their accesses are conflict-free
  // either way: the gain is ptxas' code for the new addresses (double P = 8
  // in one block 104 -> 124 registers), not banks.
  static constexpr bool SWZ_HI = P == 8 || (P == 4 && sizeof(T) == 4);
  // Chunk strides the swizzle commutes with: the XOR term reads bits 3-5
  // (and 6) of the chunk index, so adding a multiple of 64 (128) to an
  // index adds it to the place.
  static constexpr unsigned SWZ_PERIOD = !SWZ ? 1u : SWZ_HI ? 128u : 64u;
  static constexpr int G = sizeof(T) == 4 ? (P <= 16 ? 4 : 2) : (P <= 16 ? 2 : 1);
  // Whether the strided digits' vector path has a linear variant
  // (kb_row_digit_vec's LIN).  Not for double P = 4 (H100, session 25,
  // model plans, ms with / without: double
  // 2967_4x4^7 0.464 / 0.420, 1024_4x4^7 0.178 / 0.166 -- its 128-thread
  // cluster kernel took 100 registers, not 86: four blocks an SM, not
  // five); double P = 8 gains from it (1024_8x8^5 0.269 / 0.286, 320_8x8^5
  // 0.107 / 0.114), float rows are even within 1-2%.
  static constexpr bool LIN = !(sizeof(T) == 8 && P == 4);
  // The cluster kernel's local digits (kb_row_digit): two float slices of
  // 16 a thread, not four (H100, session 22, the tuner's timings of float
  // 1024_16x16^4 in clusters of four 256-thread blocks: 0.466 -> 0.392 ms,
  // 2048_16x16^4 0.884 -> 0.762; ptxas: 128 registers either way, 752 ->
  // 288 bytes of spill loads; in the benchmark the row then ran 0.42 ms,
  // even with the two-pass plan).  Capped at 80 registers for three blocks
  // an SM (spilling) it ran 1.06x slower than uncapped (H200).
  static constexpr int GC = sizeof(T) == 4 && P == 16 ? 2 : G;
  // Float P = 16: every digit output-stationary (kb_row_digit_os,
  // kb_row_gin_os, kb_row_cross_os): a thread's GO slices hold all P
  // outputs while k runs, so each factor load serves four slices with only
  // four inputs live -- where x[4][16] beside the outputs spilled (above).
  // ptxas: the cluster kernel's local digits 0.15-0.20 other instructions
  // a multiply-add instead of 0.30-0.36, 9% fewer in all a vector, 128
  // registers, no spills (with only the shared digits output-stationary,
  // ptxas spilled the cross digit's inputs, 768 bytes).  H100, session 27,
  // model plans, three interleaved rounds, new / old: float 1024_16x16^4
  // 0.958, 2048_16x16^4 0.946, 256_16x16^4 0.976, one-block 1024_16x16^3
  // 0.976; without the first (global) digit's change 1.01-1.02.  Not for
  // float P = 8 (LQ = P already shares each factor load over four slices:
  // 1024_8x8^5 1.10x slower), nor four positions a thread in the cross
  // digit (1024_16x16^4 1.05x slower).  GC above is left to the first digit
  // where X is not 16-byte aligned.  Float P = 32 (G = 2 slices, 64 outputs)
  // over clusters of two 256-thread blocks ran 1024_32x32^3 in 0.261 ms, the
  // same as its two passes, and made the one-block kernel slower (0.378
  // against 0.336 ms; H100, session 28, doc/performance.md): not taken.
  static constexpr bool OS = sizeof(T) == 4 && P == 16;
  // Float P = 8: digits 1 and 0 as one pass (kb_row_pair01) where the
  // share has a block of 64 elements for every thread.
  static constexpr bool PAIR = sizeof(T) == 4 && P == 8;
  static constexpr int GO = 4;
  static constexpr int LQ = P <= 8 ? P : (sizeof(T) == 4 && P >= 32 ? 8 : 4);
  static constexpr int NT = KB_ROW_NT;
  // The one-block kernel's __launch_bounds__: 1024 threads for float
  // P = 5 (it launches at most NT), so that ptxas keeps it at 64 registers
  // as it did on its own until session 25's shared-address change (92
  // then: two 256-thread blocks of 62.5 KB an SM instead of three, float
  // 1024_5x5^6 0.127 -> 0.141 ms, H100).  Not (NT, 2): a second argument,
  // even 1, on every instantiation changed ptxas' code for P = 3 and 4
  // (float 2967_4x4^7 0.20 -> 0.26 ms, 1024_3x3^8 0.076 -> 0.085).
  static constexpr int LB = sizeof(T) == 4 && P == 5 ? 1024 : NT;
  // The cluster kernel's: 768 threads for float P = 5 (at most 80
  // registers: three 256-thread blocks of its 62.5 KB shares an SM, as it
  // ran at 64 registers before session 26's magic-number division, which
  // took it to 93 -- two blocks, float 1024_5x5^7 1.27 -> 1.49 ms, H100 --
  // and which spills 80 bytes capped at 64).
  static constexpr int LBC = sizeof(T) == 4 && P == 5 ? 768 : NT;
  static_assert(P % LQ == 0, "output chunks");
};

// The widest vector (elements) that divides n and the chunk.
template <typename T>
__host__ __device__ constexpr int kb_row_w(int n)
{
  return (n % (16 / (int)sizeof(T)) == 0) ? 16 / (int)sizeof(T) : (n % 2 == 0 && sizeof(T) == 4) ? 2 : 1;
}

// N consecutive elements, W at a time (W-aligned), through a vector
// variable: casting the register arrays themselves to vector types would
// put them in local memory.
template <typename T, int N, int W>
__device__ __forceinline__ void kb_row_ld(T *dst, const T *src)
{
  if constexpr (W == 1) {
#pragma unroll
    for (int e = 0; e < N; e++)
      dst[e] = src[e];
  } else {
    typedef typename kb_row_vec<T, W>::type VT;
#pragma unroll
    for (int e = 0; e < N; e += W) {
      const VT t = *reinterpret_cast<const VT *>(src + e);
#pragma unroll
      for (int i = 0; i < W; i++)
        dst[e + i] = reinterpret_cast<const T *>(&t)[i];
    }
  }
}

template <typename T, int N, int W>
__device__ __forceinline__ void kb_row_st(T *dst, const T *src)
{
  if constexpr (W == 1) {
#pragma unroll
    for (int e = 0; e < N; e++)
      dst[e] = src[e];
  } else {
    typedef typename kb_row_vec<T, W>::type VT;
#pragma unroll
    for (int e = 0; e < N; e += W) {
      VT t;
#pragma unroll
      for (int i = 0; i < W; i++)
        reinterpret_cast<T *>(&t)[i] = src[e + i];
      *reinterpret_cast<VT *>(dst + e) = t;
    }
  }
}

// 16-byte chunk c's place in the shared row (in chunks).  Unsigned: with
// int indices every division and remainder by VL took a sign fix-up, and
// the swizzle's shifts arithmetic ones (ptxas, CUDA 13: ~11 instructions
// an access in the strided digits, ~45% of the loop beside 512 FMAs).
template <typename T, int P>
__device__ __forceinline__ unsigned kb_row_swz(unsigned c)
{
  typedef kb_row_shape<T, P> S;
  if constexpr (!S::SWZ)
    return c;
  else if constexpr (S::SWZ_HI)
    return c ^ ((c >> 3) & 7u) ^ ((c >> 4) & 4u);
  else
    return c ^ ((c >> 3) & 7u);
}

// Element e's place in the shared row.
template <typename T, int P>
__device__ __forceinline__ int kb_row_at(int e)
{
  typedef kb_row_shape<T, P> S;
  if constexpr (!S::SWZ) {
    return e;
  } else {
    const unsigned u = (unsigned)e;
    return (int)(kb_row_swz<T, P>(u / S::VL) * S::VL + u % S::VL);
  }
}

// acc[g][j] = sum_k x[g][k] * A[k*P + l0 + j]; the k = 0 term a product,
// not an FMA into zeroed registers (G * LQ / 2 fewer instructions: an
// FMA into +0 differs from the product only in the sign of a zero).
template <typename T, int P, int G, int LQ>
__device__ __forceinline__ void kb_row_mac(const T (&x)[G][P], const T *__restrict__ A, int l0, T (&acc)[G][LQ])
{
  constexpr int W = kb_row_w<T>(P) < kb_row_w<T>(LQ) ? kb_row_w<T>(P) : kb_row_w<T>(LQ);
#pragma unroll
  for (int k = 0; k < P; k++) {
    T fr[LQ];
    kb_row_ld<T, LQ, W>(fr, A + k * P + l0);
#pragma unroll
    for (int g = 0; g < G; g++)
#pragma unroll
      for (int j = 0; j < LQ; j++)
        acc[g][j] = k == 0 ? x[g][k] * fr[j] : kb_fma(x[g][k], fr[j], acc[g][j]);
  }
}

// Slice j's chunk c0 + i in the shared row, i < P / VL: a slice of the
// contiguous digit is P / VL consecutive chunks from c0 = j * P / VL, so
// where that count divides 8 they share the swizzle's term (bits 3 and up
// of the chunk index) and it is computed once a slice.
template <typename T, int P>
struct kb_row_slice {
  static constexpr int VL = kb_row_shape<T, P>::VL, NC = P / VL;
  static constexpr bool ONE = NC > 0 && 8 % (NC > 0 ? NC : 1) == 0;   // one term a slice
  unsigned c0, x;
  __device__ __forceinline__ explicit kb_row_slice(unsigned j) : c0(j * NC), x(0)
  {
    if constexpr (ONE)
      x = kb_row_swz<T, P>(c0) ^ c0;
  }
  __device__ __forceinline__ unsigned at(int i) const
  {
    if constexpr (ONE)
      return (c0 + (unsigned)i) ^ x;
    else
      return kb_row_swz<T, P>(c0 + (unsigned)i);
  }
};

// j / s and j % s (j < 2^31) for a digit's stride s = P^e: shifts where P
// is a power of two (sh = log2 s), else a multiply-high and a shift with
// the magic number of s (mul and sh from kb_cuda_row_magic, computed on the
// host: kb_row_args' dmul, dsh; mul = 0 for s = 1), not a division (~20
// instructions unsigned, ~28 signed).
template <int P>
__device__ __forceinline__ void kb_row_divmod(unsigned j, unsigned s, int sh, unsigned mul, unsigned &hi,
                                              unsigned &lo)
{
  if constexpr ((P & (P - 1)) == 0) {
    hi = j >> sh;
    lo = j & (s - 1);
  } else {
    hi = mul == 0 ? j : __umulhi(j, mul) >> sh;
    lo = j - hi * s;
  }
}

// Vector unit u of a strided digit (G consecutive slices, kb_row_digit_vec
// and kb_row_digit_os_vec): its first element's index base, that
// element's chunk cb and, with LIN, its place in the shared row (else the
// offset within the chunk: the caller applies the swizzle per k).
template <typename T, int P, int G, bool LIN>
__device__ __forceinline__ T *kb_row_vec_unit(T *buf, int u, int s, int sh, unsigned mul, unsigned &base,
                                              unsigned &cb)
{
  constexpr int VL = kb_row_shape<T, P>::VL;
  unsigned hi, lo;
  kb_row_divmod<P>((unsigned)(u * G), (unsigned)s, sh, mul, hi, lo);
  base = hi * P * (unsigned)s + lo;
  cb = base / VL;
  return buf + (LIN ? kb_row_swz<T, P>(cb) * VL : 0u) + base % VL;
}

// A strided digit over vectors of G consecutive slices (consecutive lo;
// s % G == 0 and s % VL == 0): one G-wide access per k, consecutive
// threads on consecutive vectors.  Element base + k*s is in chunk cb +
// k*sc at offset base % VL, the same for every k; LIN: sc is a multiple of
// the swizzle's period, so that place is the first one's plus k*s.  GIN:
// the inputs come from gin (global memory), in natural order.
template <typename T, int P, int G, bool GIN, bool LIN>
__device__ __forceinline__ void kb_row_digit_vec(T *buf, const T *__restrict__ A, int nsl, int s, unsigned mul,
                                                 int msh, const T *__restrict__ gin)
{
  typedef kb_row_shape<T, P> S;
  constexpr int LQ = S::LQ, VL = S::VL;
  const int nu = nsl / G, sh = (P & (P - 1)) == 0 ? __ffs(s) - 1 : msh, NT = blockDim.x;
  const unsigned sc = (unsigned)s / VL;
#pragma unroll 1
  for (int u = threadIdx.x; u < nu; u += NT) {
    unsigned base, cb;
    T *const b0 = kb_row_vec_unit<T, P, G, LIN>(buf, u, s, sh, mul, base, cb);
    const T *const g0 = GIN ? gin + base : nullptr;
    T x[G][P];
#pragma unroll
    for (int k = 0; k < P; k++) {
      T v[G];
      if constexpr (GIN)
        kb_row_ld<T, G, G>(v, g0 + k * s);
      else if constexpr (LIN)
        kb_row_ld<T, G, G>(v, b0 + k * s);
      else
        kb_row_ld<T, G, G>(v, b0 + kb_row_swz<T, P>(cb + k * sc) * VL);
#pragma unroll
      for (int g = 0; g < G; g++)
        x[g][k] = v[g];
    }
#pragma unroll
    for (int l0 = 0; l0 < P; l0 += LQ) {
      T acc[G][LQ];
      kb_row_mac<T, P, G, LQ>(x, A, l0, acc);
#pragma unroll
      for (int j2 = 0; j2 < LQ; j2++) {
        T v[G];
#pragma unroll
        for (int g = 0; g < G; g++)
          v[g] = acc[g][j2];
        if constexpr (LIN)
          kb_row_st<T, G, G>(b0 + (l0 + j2) * s, v);
        else
          kb_row_st<T, G, G>(b0 + kb_row_swz<T, P>(cb + (l0 + j2) * sc) * VL, v);
      }
    }
  }
}

// One digit of stride s in place: slice j (j < K/P) is the P elements
// hi*P*s + lo + k*s, lo = j % s, hi = j / s (mul, msh: s's magic number,
// kb_row_divmod).  gin: the row in global memory to read the inputs from
// (the first digit), else the shared row.  vec_in:
// gin allows G-element vector loads.  GIN: gin is given (a template
// parameter, so that the shared-memory digits' loop is not the global one
// predicated: their registers differ).
template <typename T, int P, int G, bool GIN>
__device__ __forceinline__ void kb_row_digit(T *buf, const T *__restrict__ A, int K, int s, unsigned mul, int msh,
                                             const T *gin, bool vec_in)
{
  typedef kb_row_shape<T, P> S;
  constexpr int LQ = S::LQ, VL = S::VL;
  // The strides P^f of an odd P are odd, never a multiple of G >= 2: the
  // vector path is left out there (compiled but dead, it raised float P =
  // 5 from 64 to 100 registers).
  constexpr bool VEC = P % 2 == 0 || G == 1;
  const int nsl = K / P, NT = blockDim.x, tid = threadIdx.x;
  if (!GIN && s == 1 && P % VL == 0) {
    // The contiguous digit: each thread takes G slices NT apart and reads
    // every slice as 16-byte chunks.
#pragma unroll 1
    for (int j0 = 0; j0 < nsl; j0 += NT * G) {
      T x[G][P];
#pragma unroll
      for (int g = 0; g < G; g++) {
        const int j = j0 + g * NT + tid;
        const kb_row_slice<T, P> sl((unsigned)j);
#pragma unroll
        for (int c = 0; c < P; c += VL) {
          if (j < nsl)
            kb_row_ld<T, VL, VL>(&x[g][c], buf + sl.at(c / VL) * VL);
          else
#pragma unroll
            for (int e = 0; e < VL; e++)
              x[g][c + e] = T(0);
        }
      }
#pragma unroll
      for (int l0 = 0; l0 < P; l0 += LQ) {
        T acc[G][LQ];
        kb_row_mac<T, P, G, LQ>(x, A, l0, acc);
#pragma unroll
        for (int g = 0; g < G; g++) {
          const int j = j0 + g * NT + tid;
          const kb_row_slice<T, P> sl((unsigned)j);
          if (j < nsl)
#pragma unroll
            for (int c = 0; c < LQ; c += VL)
              kb_row_st<T, (LQ < VL ? LQ : VL), kb_row_w<T>(LQ < VL ? LQ : VL)>(
                  buf + sl.at((l0 + c) / VL) * VL + (l0 + c) % VL, &acc[g][c]);
        }
      }
    }
  } else if (VEC && s % G == 0 && s % VL == 0 && (!GIN || vec_in)) {
    if (S::LIN && (unsigned)s / VL % S::SWZ_PERIOD == 0)
      kb_row_digit_vec<T, P, G, GIN, S::LIN>(buf, A, nsl, s, mul, msh, gin);
    else
      kb_row_digit_vec<T, P, G, GIN, false>(buf, A, nsl, s, mul, msh, gin);
  } else {
    // Any stride, element by element: G slices NT apart per thread.  For
    // double the global loads keep a run-time test of gin (always true
    // here): ptxas' code without it ran double odd-P rows slower, with it
    // float ones (H100, session 25, model plans, three interleaved rounds,
    // time against the tree before the template GIN, without / with the
    // test: double 1024_7x7^5 1.13 / 1.01, 1024_5x5^6 1.04 / 1.00, 100_7x7^4
    // 1.15 / 1.05; float 1024_7x7^4 1.05 / 1.11, 100_7x7^4 1.01 / 1.09,
    // 1024_5x5^6 0.99 / 1.02).
#pragma unroll 1
    for (int j0 = 0; j0 < nsl; j0 += NT * G) {
      T x[G][P];
      int base[G];
#pragma unroll
      for (int g = 0; g < G; g++) {
        const int j = j0 + g * NT + tid;
        if constexpr ((P & (P - 1)) == 0) {
          // Power-of-two P keeps its signed division here: a first version
          // that gave it shifts too moved the registers of power-of-two
          // kernels (the double 4 cluster kernel 92 -> 105); unmeasured.
          base[g] = j < nsl ? (j / s) * P * s + j % s : -1;
        } else {
          unsigned hi, lo;
          kb_row_divmod<P>((unsigned)j, (unsigned)s, msh, mul, hi, lo);
          base[g] = j < nsl ? (int)(hi * P * (unsigned)s + lo) : -1;
        }
#pragma unroll
        for (int k = 0; k < P; k++)
          x[g][k] = base[g] < 0 ? T(0) : GIN && (sizeof(T) == 4 || gin != nullptr) ? gin[base[g] + k * s]
                                                                                  : buf[kb_row_at<T, P>(base[g] + k * s)];
      }
#pragma unroll
      for (int l0 = 0; l0 < P; l0 += LQ) {
        T acc[G][LQ];
        kb_row_mac<T, P, G, LQ>(x, A, l0, acc);
#pragma unroll
        for (int g = 0; g < G; g++)
          if (base[g] >= 0)
#pragma unroll
            for (int j2 = 0; j2 < LQ; j2++)
              buf[kb_row_at<T, P>(base[g] + (l0 + j2) * s)] = acc[g][j2];
      }
    }
  }
}

// acc[g][l] (+)= v[g] * A[k*P + l] for every l: step k of the
// output-stationary digit, one vector load of the factor's row k per W
// outputs, shared by the G slices.
template <typename T, int P, int G>
__device__ __forceinline__ void kb_row_fma_k(const T (&v)[G], const T *__restrict__ A, int k, T (&acc)[G][P])
{
  constexpr int W = kb_row_w<T>(P);
#pragma unroll
  for (int l0 = 0; l0 < P; l0 += W) {
    T fr[W];
    kb_row_ld<T, W, W>(fr, A + k * P + l0);
#pragma unroll
    for (int g = 0; g < G; g++)
#pragma unroll
      for (int j = 0; j < W; j++)
        acc[g][l0 + j] = k == 0 ? v[g] * fr[j] : kb_fma(v[g], fr[j], acc[g][l0 + j]);
  }
}

// kb_row_digit_os over vectors of G consecutive slices (s % G == 0, s % VL
// == 0; LIN as in kb_row_digit_vec).
template <typename T, int P, int G, bool GIN, bool LIN>
__device__ __forceinline__ void kb_row_digit_os_vec(T *buf, const T *__restrict__ A, int nsl, int s, unsigned mul,
                                                    int msh, const T *__restrict__ gin)
{
  constexpr int VL = kb_row_shape<T, P>::VL;
  const int nu = nsl / G, sh = (P & (P - 1)) == 0 ? __ffs(s) - 1 : msh, NT = blockDim.x;
  const unsigned sc = (unsigned)s / VL;
#pragma unroll 1
  for (int u = threadIdx.x; u < nu; u += NT) {
    unsigned base, cb;
    T *const b0 = kb_row_vec_unit<T, P, G, LIN>(buf, u, s, sh, mul, base, cb);
    T acc[G][P];
#pragma unroll
    for (int k = 0; k < P; k++) {
      T v[G];
      if constexpr (GIN)
        kb_row_ld<T, G, G>(v, gin + base + k * s);
      else
        kb_row_ld<T, G, G>(v, LIN ? b0 + k * s : b0 + kb_row_swz<T, P>(cb + k * sc) * VL);
      kb_row_fma_k<T, P, G>(v, A, k, acc);
    }
#pragma unroll
    for (int l = 0; l < P; l++) {
      T w[G];
#pragma unroll
      for (int g = 0; g < G; g++)
        w[g] = acc[g][l];
      kb_row_st<T, G, G>(LIN ? b0 + l * s : b0 + kb_row_swz<T, P>(cb + l * sc) * VL, w);
    }
  }
}

// One digit of stride s in the shared row, output-stationary
// (kb_row_shape::OS): a thread's G slices keep all P outputs in registers
// while k runs, and write them where their inputs were once every input is
// read.  Same slices per thread as kb_row_digit: the contiguous digit G
// slices NT apart, strided digits G consecutive ones (vector accesses).
template <typename T, int P, int G>
__device__ __forceinline__ void kb_row_digit_os(T *buf, const T *__restrict__ A, int K, int s, unsigned mul, int msh)
{
  typedef kb_row_shape<T, P> S;
  constexpr int VL = S::VL;
  // Every stride but 1 is then a multiple of G and of a chunk.
  static_assert(P % VL == 0 && P % G == 0, "output-stationary digits: whole chunks, G-element vectors");
  const int nsl = K / P, NT = blockDim.x, tid = threadIdx.x;
  if (s == 1) {
#pragma unroll 1
    for (int j0 = 0; j0 < nsl; j0 += NT * G) {
      T acc[G][P];
#pragma unroll
      for (int c = 0; c < P / VL; c++) {
        T xc[G][VL];
#pragma unroll
        for (int g = 0; g < G; g++) {
          const int j = j0 + g * NT + tid;
          const kb_row_slice<T, P> sl((unsigned)j);
          if (j < nsl)
            kb_row_ld<T, VL, VL>(xc[g], buf + sl.at(c) * VL);
          else
#pragma unroll
            for (int e = 0; e < VL; e++)
              xc[g][e] = T(0);
        }
#pragma unroll
        for (int e = 0; e < VL; e++) {
          T v[G];
#pragma unroll
          for (int g = 0; g < G; g++)
            v[g] = xc[g][e];
          kb_row_fma_k<T, P, G>(v, A, c * VL + e, acc);
        }
      }
#pragma unroll
      for (int g = 0; g < G; g++) {
        const int j = j0 + g * NT + tid;
        const kb_row_slice<T, P> sl((unsigned)j);
        if (j < nsl)
#pragma unroll
          for (int c = 0; c < P / VL; c++)
            kb_row_st<T, VL, VL>(buf + sl.at(c) * VL, &acc[g][c * VL]);
      }
    }
  } else {
    if (S::LIN && (unsigned)s / VL % S::SWZ_PERIOD == 0)
      kb_row_digit_os_vec<T, P, G, false, S::LIN>(buf, A, nsl, s, mul, msh, nullptr);
    else
      kb_row_digit_os_vec<T, P, G, false, false>(buf, A, nsl, s, mul, msh, nullptr);
  }
}

// The first digit (read from gin) output-stationary, where kb_row_shape::OS
// and vector loads allow; false: not done.
template <typename T, int P>
__device__ __forceinline__ bool kb_row_gin_os(T *buf, const T *__restrict__ A, int K, int s, unsigned mul, int msh,
                                              const T *__restrict__ gin, bool vec_in)
{
  typedef kb_row_shape<T, P> S;
  if constexpr (S::OS) {
    if (!vec_in || s % S::GO != 0 || s % S::VL != 0)
      return false;
    if (S::LIN && (unsigned)s / S::VL % S::SWZ_PERIOD == 0)
      kb_row_digit_os_vec<T, P, S::GO, true, S::LIN>(buf, A, K / P, s, mul, msh, gin);
    else
      kb_row_digit_os_vec<T, P, S::GO, true, false>(buf, A, K / P, s, mul, msh, gin);
    return true;
  } else {
    return false;
  }
}

// A digit in the shared row: output-stationary where kb_row_shape::OS says
// so, else kb_row_digit's G slices a thread.
template <typename T, int P, int G>
__device__ __forceinline__ void kb_row_digit_sh(T *buf, const T *__restrict__ A, int K, int s, unsigned mul, int msh)
{
  if constexpr (kb_row_shape<T, P>::OS)
    kb_row_digit_os<T, P, kb_row_shape<T, P>::GO>(buf, A, K, s, mul, msh);
  else
    kb_row_digit<T, P, G, false>(buf, A, K, s, mul, msh, nullptr, false);
}

// Four floats from shared memory at p, loaded here and nowhere else (a
// volatile load): ptxas otherwise kept the pair's factor rows in registers
// across its row groups and spilled x (CUDA 13: 44 spill loads a block).
__device__ __forceinline__ void kb_row_lds4(float *dst, uint32_t addr)
{
  asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(dst[0]), "=f"(dst[1]), "=f"(dst[2]), "=f"(dst[3])
               : "r"(addr));
}

// Digits 1 and 0 of float P = 8 in one pass over the shared row (where
// kb_row_shape::PAIR): a thread takes a block of 64 consecutive elements
// (digit 1 = its rows r, digit 0 = its columns c) into registers, applies
// A0 along the rows and A1 along the columns, and writes the block back --
// one read and one write of the row where the two digits took two each.
// Why: a digit step of P = 8 moves 64 bytes of the row through shared
// memory per 64 FMAs a slice; with the factor broadcasts that is about 80
// shared wavefronts a warp per 256 FMA instructions, 1.25x the FMA pipe's
// time.  The pair moves half the row bytes per FMA (48 wavefronts per 256)
// and issues 1177-1181 instructions per 1024 FMAs where the two digits
// issued 1380 (SASS, CUDA 13).  Measured (H200, session 31, the tuner's
// timings, pair / two digits): one block a vector 0.92-0.94 (1024_8x8^5),
// the 8^6 row over clusters of eight 0.95, 1024 and 2048_8x8^5 over
// clusters of two 0.97, 320_8x8^5 1.02 -- so shared memory was a part of
// the digit phases' time, not most of it.  Where a share has fewer blocks
// of 64 than threads (K <= 4096 a block) the idle threads made 8^3 and 8^4
// rows 6-12% slower: the kernels take the pair only where every thread
// has a block.
//
// Addresses and banks: with the P = 8 swizzle (kb_row_swz), chunk i = 8ih +
// il of block b sits at chunk 16b + 8ih + (il ^ ih ^ t), t = (2b & 7) ^ (b &
// 4) -- even, so eight consecutive blocks' chunk i fall in only four bank
// groups (2-way conflicts).  Threads with h = (b >> 2) & 1 set take chunk i
// ^ 1 into slot i, i.e. the block's columns c ^ 4 into slot c, which puts
// them in the other four groups: slot i is at 16b + 8ih + (il ^ ih ^ y), y
// = t ^ h, one xor mask a thread (eight consecutive blocks: y = 0 2 4 6 5 7
// 1 3).  Digit 1 does not see the permutation (every column gets A1);
// digit 0 reads A0 with both indices xored by 4h (a0 below).
template <typename T, int P>
__device__ __forceinline__ void kb_row_pair01(T *buf, const T *__restrict__ A1, const T *__restrict__ A0, int K)
{
  static_assert(sizeof(T) == 4 && P == 8, "the pair is float P = 8's");
  constexpr int VL = 4, GP = 4;   // elements a chunk; rows or columns sharing a factor load
  const int nb = K / (P * P), NT = blockDim.x;
#pragma unroll 1
  for (int b = threadIdx.x; b < nb; b += NT) {
    const unsigned ub = (unsigned)b, h = ub >> 2 & 1u, y = ((ub << 1) & 7u) ^ (ub & 4u) ^ h;
    T *const blk = buf + ub * 16u * VL;
    T x[P][P];   // x[r][c]: slot column c holds the block's column c ^ 4h
#pragma unroll
    for (int i = 0; i < 2 * P; i++)
      kb_row_ld<T, VL, VL>(&x[i / 2][(i % 2) * VL], blk + ((i & 8) + ((unsigned)(i & 7) ^ (unsigned)(i >> 3) ^ y)) * VL);
    // Digit 0: along each row, rows GP at a time.  Slot k holds column k ^
    // 4h and slot l receives column l ^ 4h: A0[(k ^ 4h) * P + (l ^ 4h)],
    // which is A0[k * P + l] moved by +-32 +-4 (the signs by k >= 4, l >= 4).
    const uint32_t s0 = (uint32_t)__cvta_generic_to_shared(A0), s1 = (uint32_t)__cvta_generic_to_shared(A1);
    uint32_t a0[2][2];
#pragma unroll
    for (int kh = 0; kh < 2; kh++)
#pragma unroll
      for (int lh = 0; lh < 2; lh++)
        a0[kh][lh] = s0 + h * (uint32_t)(((kh ? -4 * P : 4 * P) + (lh ? -4 : 4)) * (int)sizeof(T));
#pragma unroll
    for (int r0 = 0; r0 < P; r0 += GP) {
      T acc[GP][P];
#pragma unroll
      for (int k = 0; k < P; k++) {
#pragma unroll
        for (int l0 = 0; l0 < P; l0 += VL) {
          T fr[VL];
          kb_row_lds4(fr, a0[k >= 4][l0 >= 4] + (uint32_t)((k * P + l0) * sizeof(T)));
#pragma unroll
          for (int g = 0; g < GP; g++)
#pragma unroll
            for (int j = 0; j < VL; j++)
              acc[g][l0 + j] = k == 0 ? x[r0 + g][k] * fr[j] : kb_fma(x[r0 + g][k], fr[j], acc[g][l0 + j]);
        }
      }
#pragma unroll
      for (int g = 0; g < GP; g++)
#pragma unroll
        for (int l = 0; l < P; l++)
          x[r0 + g][l] = acc[g][l];
    }
    // Digit 1: along each column, the four columns of a chunk at a time;
    // each group's outputs are the chunks (r, c0 / VL) of every row, stored
    // as soon as they are done, so that they do not stay in registers beside
    // the next group (with the cluster kernels' other live values ptxas
    // spilled them).
#pragma unroll
    for (int c0 = 0; c0 < P; c0 += VL) {
      T acc[VL][P];
#pragma unroll
      for (int k = 0; k < P; k++) {
#pragma unroll
        for (int l0 = 0; l0 < P; l0 += VL) {
          T fr[VL];
          kb_row_lds4(fr, s1 + (uint32_t)((k * P + l0) * sizeof(T)));
#pragma unroll
          for (int g = 0; g < VL; g++)
#pragma unroll
            for (int j = 0; j < VL; j++)
              acc[g][l0 + j] = k == 0 ? x[k][c0 + g] * fr[j] : kb_fma(x[k][c0 + g], fr[j], acc[g][l0 + j]);
        }
      }
#pragma unroll
      for (int l = 0; l < P; l++) {
        T w[VL];
#pragma unroll
        for (int g = 0; g < VL; g++)
          w[g] = acc[g][l];
        const int i = 2 * l + c0 / VL;   // slot chunk (row l, this half)
        kb_row_st<T, VL, VL>(blk + ((i & 8) + ((unsigned)(i & 7) ^ (unsigned)(i >> 3) ^ y)) * VL, w);
      }
    }
  }
}

template <typename T>
struct kb_row_args {
  int nf, K, fsm;               // fsm: offset of the staged factors (elements)
  const T *F[KB_CUDA_MAXF];
  int64_t fs_l[KB_CUDA_MAXF], fs_k[KB_CUDA_MAXF], f_bs[KB_CUDA_MAXF];
  int fb_varies;                // some f_bs != 0: factors staged per batch entry
  const T *in;
  int64_t in_rs, in_bs;
  T *out;
  int64_t out_rs, out_bs;
  int64_t m, total;             // vectors per entry, vectors in all
  int epilogue;
  kb_scalars<T> sc;
  int vec_in, vec_out;          // in allows G-element, out 16-byte vector accesses
  int vec_out_g;                // out allows G-element vector accesses (the cluster kernel)
  int pf, rb;                   // pf: the launch takes kb_row_kernel's PF (two row buffers of rb elements)
  unsigned dmul[KB_CUDA_MAXF];  // the magic numbers of the strides P^e (kb_row_divmod)
  int dsh[KB_CUDA_MAXF];
};

// Stride P^e's magic number and shift (kb_row_divmod); none is read where
// P is a power of two.
template <typename T, int P>
__device__ __forceinline__ unsigned kb_row_mul(const kb_row_args<T> &a, int e)
{
  return (P & (P - 1)) == 0 ? 0u : a.dmul[e];
}

template <typename T, int P>
__device__ __forceinline__ int kb_row_msh(const kb_row_args<T> &a, int e)
{
  return (P & (P - 1)) == 0 ? 0 : a.dsh[e];
}

template <typename T>
__device__ __forceinline__ T kb_row_epi(int epilogue, T v, const T *o, T alpha, T beta, bool bzero)
{
  if (epilogue == KB_EPI_NONE)
    return v;
  if (epilogue == KB_EPI_ALPHA || bzero)
    return alpha * v;
  return alpha * v + beta * *o;
}

// The factors of batch entry b into shared memory: A_f[l,k] at Fs + f*P*P + k*P + l.
template <typename T, int P>
__device__ __forceinline__ void kb_row_stage(const kb_row_args<T> &a, T *Fs, int64_t b)
{
  const int tid = threadIdx.x, NT = blockDim.x;
  for (int f = 0; f < a.nf; f++) {
    const T *Fg = a.F[f] + b * a.f_bs[f];
    const bool kfast = a.fs_k[f] == 1;
    for (int e = tid; e < P * P; e += NT) {
      const int l = kfast ? e / P : e % P, k = kfast ? e % P : e / P;
      Fs[f * P * P + k * P + l] = Fg[l * a.fs_l[f] + k * a.fs_k[f]];
    }
  }
}

// n elements of a row (16-byte aligned, n a multiple of a chunk) into the
// shared layout through cp.async: no registers and no waiting, so the whole
// share is in flight while the block multiplies the other buffer.
template <typename T, int P>
__device__ __forceinline__ void kb_row_fetch(T *dst, const T *__restrict__ src, int n)
{
  constexpr int VL = kb_row_shape<T, P>::VL;
#pragma unroll 4
  for (int c = threadIdx.x; c < n / VL; c += blockDim.x)
    kb_cp16(dst + kb_row_at<T, P>(c * VL), src + c * VL, true);
}

// PF: two row buffers of a.rb elements; the grid is resident and loops
// over the vectors, each block copying its next vector into the other
// buffer while it multiplies the current one.  Without PF the first digit
// reads global memory itself (no copy pass), as before the prefetch
// existed: a run-time switch in one kernel took registers from that path
// (the cluster kernel of double 4x4 went from 96 to 104, four blocks an SM
// instead of five: double 1024_4x4^7 0.167 -> 0.203 ms, H100).
template <typename T, int P, bool PF>
__global__ void __launch_bounds__(kb_row_shape<T, P>::LB) kb_row_kernel(const kb_row_args<T> a)
{
  typedef kb_row_shape<T, P> S;
  constexpr int VL = S::VL;
  extern __shared__ __align__(16) unsigned char kb_row_smem[];
  T *const buf0 = reinterpret_cast<T *>(kb_row_smem);
  T *const Fs = buf0 + a.fsm;
  const int tid = threadIdx.x, NT = blockDim.x;

  const kb_epi_vals<T> ep = kb_epi_start(a.sc);
  if (ep.azero && a.epilogue == KB_EPI_NONE)
    return;
  const T alpha = ep.alpha, beta = ep.beta;
  const bool azero = ep.azero, bzero = ep.bzero;
  if constexpr (PF) {
    if (!azero && blockIdx.x < a.total) {   // alpha = 0 reads no row
      const int64_t b = blockIdx.x / a.m, r = blockIdx.x % a.m;
      kb_row_fetch<T, P>(buf0, a.in + b * a.in_bs + r * a.in_rs, a.K);
    }
    kb_cp_commit();
  }

  int64_t fb = -1;
  int cur = 0;
#pragma unroll 1
  for (int64_t v = blockIdx.x; v < a.total; v += gridDim.x) {
    const int64_t b = v / a.m, r = v % a.m;
    T *orow = a.out + b * a.out_bs + r * a.out_rs;
    T *const buf = PF ? buf0 + cur * a.rb : buf0;
    // The factors were last read before the barrier ahead of the previous
    // copy-out, so restaging them here is safe.
    if (!azero && (fb < 0 || (a.fb_varies && b != fb))) {
      kb_row_stage<T, P>(a, Fs, b);
      fb = b;
    }
    if constexpr (PF) {
      if (!azero) {
        __syncthreads();   // the previous copy-out has read the other buffer
        const int64_t vn = v + gridDim.x, bn = vn / a.m, rn = vn % a.m;
        if (vn < a.total)
          kb_row_fetch<T, P>(buf0 + (cur ^ 1) * a.rb, a.in + bn * a.in_bs + rn * a.in_rs, a.K);
        kb_cp_commit();
        kb_cp_wait<1>();   // this thread's copies of the current vector have landed
      }
      cur ^= 1;
    }
    __syncthreads();   // factors staged; the row is in (PF) / the previous copy-out has read it
    if (!azero) {
      int s = 1;
      for (int f = 1; f < a.nf; f++)
        s *= P;
      if constexpr (PF)
        kb_row_digit_sh<T, P, S::G>(buf, Fs + (a.nf - 1) * P * P, a.K, s, kb_row_mul<T, P>(a, a.nf - 1),
                                    kb_row_msh<T, P>(a, a.nf - 1));
      else if (!kb_row_gin_os<T, P>(buf, Fs + (a.nf - 1) * P * P, a.K, s, kb_row_mul<T, P>(a, a.nf - 1),
                                    kb_row_msh<T, P>(a, a.nf - 1), a.in + b * a.in_bs + r * a.in_rs, a.vec_in != 0))
        kb_row_digit<T, P, S::G, true>(buf, Fs + (a.nf - 1) * P * P, a.K, s, kb_row_mul<T, P>(a, a.nf - 1),
                                       kb_row_msh<T, P>(a, a.nf - 1), a.in + b * a.in_bs + r * a.in_rs,
                                       a.vec_in != 0);
      for (int f = a.nf - 2; f >= 0; f--) {
        s /= P;
        __syncthreads();
        if constexpr (S::PAIR) {
          if (f == 1 && a.K >= P * P * NT) {   // a block of 64 for every thread
            kb_row_pair01<T, P>(buf, Fs + P * P, Fs, a.K);
            break;
          }
        }
        kb_row_digit_sh<T, P, S::G>(buf, Fs + f * P * P, a.K, s, kb_row_mul<T, P>(a, f), kb_row_msh<T, P>(a, f));
      }
    }
    __syncthreads();
    if (a.vec_out && a.K % VL == 0) {
      for (int c = tid; c < a.K / VL; c += NT) {
        T w[VL], o[VL];
        if (azero) {
#pragma unroll
          for (int e = 0; e < VL; e++)
            w[e] = T(0);
        } else {
          kb_row_ld<T, VL, VL>(w, buf + kb_row_at<T, P>(c * VL));
        }
        if (a.epilogue == KB_EPI_AXPBY && !bzero)
          kb_row_ld<T, VL, VL>(o, orow + c * VL);
#pragma unroll
        for (int e = 0; e < VL; e++)
          w[e] = kb_row_epi(a.epilogue, w[e], &o[e], alpha, beta, bzero);
        kb_row_st<T, VL, VL>(orow + c * VL, w);
      }
    } else {
      for (int e = tid; e < a.K; e += NT) {
        const T w = azero ? T(0) : buf[kb_row_at<T, P>(e)];
        orow[e] = kb_row_epi(a.epilogue, w, orow + e, alpha, beta, bzero);
      }
    }
  }
}

// ------------------------------------------------ rows over a cluster
//
// A vector too long for one block's shared memory (8^6 and 16^4 float,
// 8^5 double: 256 KB - 1 MB) is split over a cluster of C blocks (C
// divides P, at most 8) by its slowest digit: block r holds the P/C
// slices r*P/C .. of that digit, K/C contiguous elements, in the layout
// above.  Every other digit lies within one block and is updated in place
// as before (the fastest of them read from global memory); then, after a
// cluster barrier, the slowest digit reads its P inputs from the C blocks'
// shared memory (distributed shared memory) and writes its outputs, with
// the epilogue, straight to global memory: block r takes the positions
// i = r*S/C .. of the S = P^(nf-1) below that digit, so its stores are as
// coalesced as the copy-out they replace.  A second barrier keeps every
// block's row alive until the others have read it.

// W consecutive elements at a shared::cluster address (32-bit, from mapa):
// generic pointers into other blocks' shared memory take two registers
// each, and P of them live at once spilled the P = 16 kernels.
template <typename T, int W>
__device__ __forceinline__ void kb_dsm_ld(T *dst, uint32_t addr)
{
  if constexpr (sizeof(T) == 4 && W == 4) {
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(dst[0]), "=f"(dst[1]), "=f"(dst[2]), "=f"(dst[3])
                 : "r"(addr));
  } else if constexpr (sizeof(T) == 4 && W == 2) {
    asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(dst[0]), "=f"(dst[1]) : "r"(addr));
  } else if constexpr (sizeof(T) == 4 && W == 1) {
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(dst[0]) : "r"(addr));
  } else if constexpr (sizeof(T) == 8 && W == 2) {
    asm volatile("ld.shared::cluster.v2.f64 {%0, %1}, [%2];" : "=d"(dst[0]), "=d"(dst[1]) : "r"(addr));
  } else {
    static_assert(sizeof(T) == 8 && W == 1, "vector width");
    asm volatile("ld.shared::cluster.f64 %0, [%1];" : "=d"(dst[0]) : "r"(addr));
  }
}

// A cluster barrier that orders nothing (arrive.relaxed): for the second
// barrier of a row, which only says that this thread's loads from the
// other blocks' rows are done -- they are, every loaded value having been
// consumed by the stores that precede the arrive -- so that no block exits
// while the others read its row.  cluster.sync()'s release arrive is a
// MEMBAR.ALL.GPU in SASS, which waits for those global stores to complete
// before the block can leave its SM (H100, session 26, model plans, three
// interleaved rounds, with / without: double cluster rows 0.97-0.98,
// float 1024_8x8^6's row in clusters of eight, one block an SM, 1.73 ->
// 1.53 ms in the tuner; float 16^4 (two blocks an SM) even).
__device__ __forceinline__ void kb_cluster_sync_relaxed()
{
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

// The shared::cluster address of p (this block's shared memory) in block rank.
__device__ __forceinline__ uint32_t kb_dsm_map(const void *p, int rank)
{
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(r)
               : "r"((uint32_t)__cvta_generic_to_shared(p)), "r"(rank));
  return r;
}

// The shared::cluster address of buf in each of the C blocks of the
// cluster (kb_row_cross, kb_row_cross_os).
template <int C>
__device__ __forceinline__ void kb_dsm_bases(const void *buf, uint32_t (&base)[C])
{
#pragma unroll
  for (int o = 0; o < C; o++)
    base[o] = kb_dsm_map(buf, o);
}

// The slowest digit across the cluster for positions [i0, i0 + n), GW
// consecutive ones (in one 16-byte chunk; n % GW == 0, Y aligned to GW) per
// thread at a time.  LIN: S a multiple of the swizzle's period, so that
// position j * S + i lies j * S after i's place (one swizzle a position,
// not PER: float 16's load block 97 -> 85 instructions; alone within
// 0.98-1.01 of before on the cluster rows, H100, session 26).
template <typename T, int P, int PER, int GW, bool LIN>
__device__ __forceinline__ void kb_row_cross(T *buf, const T *__restrict__ A, int S, int i0, int n, T *orow,
                                             int epilogue, T alpha, T beta, bool azero, bool bzero)
{
  constexpr int LQ = kb_row_shape<T, P>::LQ, C = P / PER;
  const int NT = blockDim.x;
  uint32_t base[C];
  kb_dsm_bases<C>(buf, base);
#pragma unroll 1
  for (int u = threadIdx.x; u < n / GW; u += NT) {
    const int i = i0 + u * GW;
    T x[GW][P];
    if (!azero) {
      const uint32_t at = LIN ? (uint32_t)kb_row_at<T, P>(i) * (uint32_t)sizeof(T) : 0u;
#pragma unroll
      for (int k = 0; k < P; k++) {
        T v[GW];
        const uint32_t place = LIN ? at + (uint32_t)((k % PER) * S) * (uint32_t)sizeof(T)
                                   : (uint32_t)(kb_row_at<T, P>((k % PER) * S + i) * sizeof(T));
        kb_dsm_ld<T, GW>(v, base[k / PER] + place);
#pragma unroll
        for (int g = 0; g < GW; g++)
          x[g][k] = v[g];
      }
    }
#pragma unroll
    for (int l0 = 0; l0 < P; l0 += LQ) {
      T acc[GW][LQ];
      if (azero) {   // alpha = 0: neither the rows nor the factors were read
#pragma unroll
        for (int g = 0; g < GW; g++)
#pragma unroll
          for (int j = 0; j < LQ; j++)
            acc[g][j] = T(0);
      } else {
        kb_row_mac<T, P, GW, LQ>(x, A, l0, acc);
      }
#pragma unroll
      for (int j = 0; j < LQ; j++) {
        T *o = orow + (int64_t)(l0 + j) * S + i;
        T w[GW], old[GW];
        if (epilogue == KB_EPI_AXPBY && !bzero)
          kb_row_ld<T, GW, GW>(old, o);
#pragma unroll
        for (int g = 0; g < GW; g++)
          w[g] = kb_row_epi(epilogue, acc[g][j], &old[g], alpha, beta, bzero);
        kb_row_st<T, GW, GW>(o, w);
      }
    }
  }
}

// kb_row_cross output-stationary (kb_row_shape::OS): all P outputs of the
// GW positions in registers while k runs, one load of GW inputs a k.
template <typename T, int P, int PER, int GW, bool LIN>
__device__ __forceinline__ void kb_row_cross_os(T *buf, const T *__restrict__ A, int S, int i0, int n, T *orow,
                                                int epilogue, T alpha, T beta, bool azero, bool bzero)
{
  constexpr int C = P / PER;
  const int NT = blockDim.x;
  uint32_t base[C];
  kb_dsm_bases<C>(buf, base);
#pragma unroll 1
  for (int u = threadIdx.x; u < n / GW; u += NT) {
    const int i = i0 + u * GW;
    T acc[GW][P];
    if (azero) {   // alpha = 0: neither the rows nor the factors were read
#pragma unroll
      for (int g = 0; g < GW; g++)
#pragma unroll
        for (int l = 0; l < P; l++)
          acc[g][l] = T(0);
    } else {
      const uint32_t at = LIN ? (uint32_t)kb_row_at<T, P>(i) * (uint32_t)sizeof(T) : 0u;
#pragma unroll
      for (int k = 0; k < P; k++) {
        T v[GW];
        const uint32_t place = LIN ? at + (uint32_t)((k % PER) * S) * (uint32_t)sizeof(T)
                                   : (uint32_t)(kb_row_at<T, P>((k % PER) * S + i) * sizeof(T));
        kb_dsm_ld<T, GW>(v, base[k / PER] + place);
        kb_row_fma_k<T, P, GW>(v, A, k, acc);
      }
    }
#pragma unroll
    for (int l = 0; l < P; l++) {
      T *o = orow + (int64_t)l * S + i;
      T w[GW], old[GW];
      if (epilogue == KB_EPI_AXPBY && !bzero)
        kb_row_ld<T, GW, GW>(old, o);
#pragma unroll
      for (int g = 0; g < GW; g++)
        w[g] = kb_row_epi(epilogue, acc[g][l], &old[g], alpha, beta, bzero);
      kb_row_st<T, GW, GW>(o, w);
    }
  }
}

// Unaligned Y or positions: one output at a time, its P inputs read again
// for each (few registers: sharing the aligned path's register tiles with
// this one spilled the P = 16 kernels).
template <typename T, int P, int PER>
__device__ __forceinline__ void kb_row_cross_ew(T *buf, const T *__restrict__ A, int S, int i0, int n, T *orow,
                                                int epilogue, T alpha, T beta, bool azero, bool bzero)
{
#pragma unroll 1
  for (int e = threadIdx.x; e < n * P; e += blockDim.x) {
    const int l = e / n, i = i0 + e % n;
    T acc = T(0);
    if (!azero)
#pragma unroll 1
      for (int k = 0; k < P; k++) {
        T v;
        kb_dsm_ld<T, 1>(&v, kb_dsm_map(buf + kb_row_at<T, P>((k % PER) * S + i), k / PER));
        acc = kb_fma(v, A[k * P + l], acc);
      }
    T *o = orow + (int64_t)l * S + i;
    *o = kb_row_epi(epilogue, acc, o, alpha, beta, bzero);
  }
}

template <typename T, int P, int C>
__global__ void __launch_bounds__(kb_row_shape<T, P>::LBC) kb_row_cluster_kernel(const kb_row_args<T> a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  typedef kb_row_shape<T, P> S;
  constexpr int G = S::G;
  extern __shared__ __align__(16) unsigned char kb_row_smem[];
  T *const buf = reinterpret_cast<T *>(kb_row_smem);
  T *const Fs = buf + a.fsm;
  constexpr int PER = P / C;   // slowest-digit slices per block
  // Positions per thread in the cross-cluster digit: four of P = 16 spilled
  // 2 KB (ptxas, CUDA 13), two 0.3.
  constexpr int GX = P >= 16 && G > 1 ? G / 2 : G;
  cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
  const int rank = (int)cl.block_rank();

  const kb_epi_vals<T> ep = kb_epi_start(a.sc);
  if (ep.azero && a.epilogue == KB_EPI_NONE)
    return;   // the same in every block of the cluster
  const bool azero = ep.azero;
  const int Kl = a.K / C;
  int Sd = 1;   // stride of the slowest digit
  for (int f = 1; f < a.nf; f++)
    Sd *= P;
  const int ipb = Sd / C, i0 = rank * ipb;
  const bool vec = a.vec_out_g && ipb % G == 0;   // (GX divides G)
  // The cross digit's linear places (kb_row_cross's LIN): only power-of-two
  // P has strides that are multiples of the swizzle's period.
  constexpr bool LINX = (P & (P - 1)) == 0;
  const bool lin = LINX && (unsigned)Sd / S::VL % S::SWZ_PERIOD == 0;

  int64_t fb = -1;
#pragma unroll 1
  for (int64_t v = blockIdx.x / C; v < a.total; v += gridDim.x / C) {
    const int64_t b = v / a.m, r = v % a.m;
    T *orow = a.out + b * a.out_bs + r * a.out_rs;
    const T *irow = a.in + b * a.in_bs + r * a.in_rs + (int64_t)rank * Kl;
    if (!azero && (fb < 0 || (a.fb_varies && b != fb))) {
      kb_row_stage<T, P>(a, Fs, b);
      fb = b;
    }
    __syncthreads();
    if (!azero) {
      int s = Sd / P;
      if (!kb_row_gin_os<T, P>(buf, Fs + (a.nf - 2) * P * P, Kl, s, kb_row_mul<T, P>(a, a.nf - 2),
                               kb_row_msh<T, P>(a, a.nf - 2), irow, a.vec_in != 0))
        kb_row_digit<T, P, S::GC, true>(buf, Fs + (a.nf - 2) * P * P, Kl, s, kb_row_mul<T, P>(a, a.nf - 2),
                                        kb_row_msh<T, P>(a, a.nf - 2), irow, a.vec_in != 0);
      for (int f = a.nf - 3; f >= 0; f--) {
        s /= P;
        __syncthreads();
        if constexpr (S::PAIR) {
          if (f == 1 && Kl >= P * P * (int)blockDim.x) {   // a block of 64 for every thread
            kb_row_pair01<T, P>(buf, Fs + P * P, Fs, Kl);
            break;
          }
        }
        kb_row_digit_sh<T, P, S::GC>(buf, Fs + f * P * P, Kl, s, kb_row_mul<T, P>(a, f), kb_row_msh<T, P>(a, f));
      }
    }
    cl.sync();   // every block's local digits done
    if (S::OS && vec && lin)
      kb_row_cross_os<T, P, PER, GX, LINX>(buf, Fs + (a.nf - 1) * P * P, Sd, i0, ipb, orow, a.epilogue, ep.alpha,
                                           ep.beta, azero, ep.bzero);
    else if (S::OS && vec)
      kb_row_cross_os<T, P, PER, GX, false>(buf, Fs + (a.nf - 1) * P * P, Sd, i0, ipb, orow, a.epilogue, ep.alpha,
                                            ep.beta, azero, ep.bzero);
    else if (vec && lin)
      kb_row_cross<T, P, PER, GX, LINX>(buf, Fs + (a.nf - 1) * P * P, Sd, i0, ipb, orow, a.epilogue, ep.alpha,
                                        ep.beta, azero, ep.bzero);
    else if (vec)
      kb_row_cross<T, P, PER, GX, false>(buf, Fs + (a.nf - 1) * P * P, Sd, i0, ipb, orow, a.epilogue, ep.alpha,
                                         ep.beta, azero, ep.bzero);
    else
      kb_row_cross_ew<T, P, PER>(buf, Fs + (a.nf - 1) * P * P, Sd, i0, ipb, orow, a.epilogue, ep.alpha, ep.beta,
                                 azero, ep.bzero);
    kb_cluster_sync_relaxed();   // the others have read this block's row
  }
#endif
}

// ------------------------------------------------------------- host side

// Whether a kernel may take the device's opt-in shared memory, per device
// (the properties themselves: kb_cuda_dev_props, small.cu).
static bool kb_row_attr_set[KB_CUDA_MAXDEV][2][33][2];   // [.][type][P][prefetch]
static std::mutex kb_row_lock;

// The instantiated factor sizes: double P = 32 would spill its 32-element
// slices (and only 32^2 fits).
static bool kb_row_p_ok(int type, int64_t P)
{
  return (P >= 2 && P <= 8) || P == 16 || (P == 32 && type == 0);
}

// kb_row_shape's G on the host.
static int kb_row_g(int type, int64_t P) { return type == 0 ? (P <= 16 ? 4 : 2) : (P <= 16 ? 2 : 1); }

// The instantiated clusters.  Measured (H200, 2026-11-21, ms, float
// 1024_8x8^5 / 1024_16x16^4, double 1024_8x8^5 / 1024_16x16^4): vectors
// split into 64 KB shares with 256-thread blocks ran faster than one block
// per vector of the most shared memory -- 0.147 / 0.445 / 0.287 / 0.761
// against 0.160 (one block) / 0.495 (128 KB shares) / 0.336 / 0.882 --,
// as several blocks per SM overlap one's loads with another's multiplies
// (registers still hold 16 warps per SM); but float 1024_6x6^6 in shares
// of 31 KB over 6 blocks took 0.49 against 0.40 in one block (H100).  So a
// vector that fits one block takes one, or the cluster marked pref where
// that one's share is at most KB_ROW_SHARE_SMALL (three blocks per SM);
// a longer vector takes the fewest blocks of this table whose share is at
// most that, else the fewest whose share fits.  Smallest C first.
// T: the entry's block size where 256 was measured slower (H100, session
// 13, the tuner's timings of every cluster and block size, ms, the
// choice before / 128 threads: double 1024_4x4^7 0.221 (one 512-thread
// block) / 0.163, 2967_4x4^7 0.585 / 0.408, 100_4x4^7 0.0235 / 0.0225;
// float 1024_6x6^6 0.403 (one block) / 0.368 -- with 256 threads 0.482,
// session 6's "6 blocks slower" --; double 1024_8x8^5 0.313 / 0.299;
// other entries within 2%, double 1024_16x16^4 0.784 / 0.797), marked
// pref too where one block used to take the vector; only for shares of at
// most KB_ROW_SHARE_SMALL (several blocks an SM), where it was measured.
// Each entry's kernel is here too, so the host's choice and the kernels
// that exist are one list.  Clusters of 16 (float 8^6 in 64 KB shares, two
// blocks an SM, each value of the slowest digit over two blocks) ran
// 1024_8x8^6 0.98x the time of eight 128 KB blocks, 2048 1.00x (H100,
// session 28): not instantiated.
static const struct {
  int type, P, C, pref, T;
  const void *fn;
} kb_row_cl_tab[] = {
  { 0, 4, 2, 0, 0, (const void *)kb_row_cluster_kernel<float, 4, 2> },
  { 0, 5, 5, 0, 0, (const void *)kb_row_cluster_kernel<float, 5, 5> },
  { 0, 6, 6, 1, 128, (const void *)kb_row_cluster_kernel<float, 6, 6> },
  { 0, 7, 7, 0, 0, (const void *)kb_row_cluster_kernel<float, 7, 7> },
  { 0, 8, 2, 1, 0, (const void *)kb_row_cluster_kernel<float, 8, 2> },
  { 0, 8, 8, 0, 0, (const void *)kb_row_cluster_kernel<float, 8, 8> },
  { 0, 16, 4, 0, 0, (const void *)kb_row_cluster_kernel<float, 16, 4> },
  { 1, 4, 4, 1, 128, (const void *)kb_row_cluster_kernel<double, 4, 4> },
  { 1, 5, 5, 0, 0, (const void *)kb_row_cluster_kernel<double, 5, 5> },
  { 1, 6, 2, 0, 0, (const void *)kb_row_cluster_kernel<double, 6, 2> },
  { 1, 7, 7, 0, 0, (const void *)kb_row_cluster_kernel<double, 7, 7> },
  { 1, 8, 4, 0, 128, (const void *)kb_row_cluster_kernel<double, 8, 4> },
  { 1, 16, 8, 0, 0, (const void *)kb_row_cluster_kernel<double, 16, 8> },
};
#define KB_ROW_SHARE_SMALL 73728   // bytes
#define KB_ROW_SM_SMEM 233472      // shared memory of an sm_90 multiprocessor (bytes)

// A launch of blocks in clusters of C (at: the configuration's one attribute).
static void kb_row_cl_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *at, int C, int64_t blocks, int threads,
                             int64_t smem, cudaStream_t stream)
{
  memset(cfg, 0, sizeof *cfg);
  memset(at, 0, sizeof *at);
  at->id = cudaLaunchAttributeClusterDimension;
  at->val.clusterDim.x = (unsigned)C;
  at->val.clusterDim.y = 1;
  at->val.clusterDim.z = 1;
  cfg->gridDim = dim3((unsigned)blocks);
  cfg->blockDim = dim3((unsigned)threads);
  cfg->dynamicSmemBytes = (size_t)smem;
  cfg->stream = stream;
  cfg->attrs = at;
  cfg->numAttrs = 1;
}

// The cluster kernel of a table entry, or null.
static const void *kb_row_cl_kernel(int type, int P, int C)
{
  for (size_t t = 0; t < sizeof kb_row_cl_tab / sizeof kb_row_cl_tab[0]; t++)
    if (kb_row_cl_tab[t].type == type && kb_row_cl_tab[t].P == P && kb_row_cl_tab[t].C == C)
      return kb_row_cl_tab[t].fn;
  return nullptr;
}

// Whether clusters of C blocks of that kernel, each with the most shared
// memory, can run on the device (sm_90 and up); asked once per device,
// type, P and C, and then the kernel may take that shared memory.
static signed char kb_row_cl_known[KB_CUDA_MAXDEV][2][33][9];

static bool kb_row_cluster_ok(int dev, int type, int P, int C, int smem_max)
{
  const void *fn = kb_row_cl_kernel(type, P, C);
  if (fn == nullptr)
    return false;
  std::lock_guard<std::mutex> lock(kb_row_lock);
  signed char &known = kb_row_cl_known[dev][type][P][C];
  if (known == 0) {
    int n = 0, cl = 0;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute at;
    kb_row_cl_config(&cfg, &at, C, C, KB_ROW_NT, smem_max, nullptr);   // the most threads
    known = cudaDeviceGetAttribute(&cl, cudaDevAttrClusterLaunch, dev) == cudaSuccess && cl &&
                    cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max) ==
                        cudaSuccess &&
                    cudaOccupancyMaxActiveClusters(&n, fn, &cfg) == cudaSuccess && n >= 1
                ? 1
                : -1;
    (void)cudaGetLastError();
  }
  return known > 0;
}

// Whether the geometry's own choice prefetches the next vector (pbytes:
// shared memory a block then takes; one block a vector).  Measured (H100,
// session 21, ms, model plans of the tree before / the prefetch):
// double 1024_8x8^4 0.0457 / 0.0392, 1024_4x4^6 0.0515 / 0.0475,
// 1526_4x4^6 0.0710 / 0.0650 -- one-block rows whose two buffers leave
// three blocks an SM, each block's next row in flight while it multiplies.
// The tuner's timings of the launch with and without it: where two buffers
// leave one block an SM it was 1.14-1.31x slower (float 1024_16x16^4,
// double 1024_8x8^5 and 1024_16x16^4 in clusters: loads overlap, one
// block's multiplies do not), float rows even (1024_8x8^4, 2967_4x4^7) or
// 1.07x slower (1024_6x6^5, 1024_6x6^6), and double 4x4^7 in clusters of
// four no faster than the kernel without it (0.173 against 0.167).  So,
// beside one block and double (pf_fits): at most KB_ROW_SHARE_SMALL with
// both buffers, and vectors enough for two per resident block.
static bool kb_row_pf_pays(int64_t pbytes, int64_t vectors, int nsm)
{
  const int64_t per_sm = pbytes > 0 ? (KB_ROW_SM_SMEM / pbytes) : 0;
  return pbytes <= KB_ROW_SHARE_SMALL && vectors >= 2 * per_sm * nsm;
}

// creq, treq, preq: kb_cuda_row_var_C/T/PF of the step's kernel (0, 0, -1:
// the choice below).
static int kb_row_geom(int creq, int treq, int preq, int type, int64_t m, int64_t batch, int64_t K, int nf,
                       const int64_t *p, const int64_t *q, kb_cuda_row_geom_t *g)
{
  const int esz = type == 0 ? 4 : type == 1 ? 8 : 0;
  const int64_t chunk = esz > 0 ? 8 * (16 / esz) : 1;   // whole rows of 8 chunks
  int dev, nsm, smem_max, C;
  int64_t P, prod = 1, Kl = 0, units, threads;
  if (esz == 0 || m < 1 || batch < 1 || nf < 2 || nf > KB_CUDA_MAXF || p == nullptr || q == nullptr)
    return -1;
  P = p[0];
  if (!kb_row_p_ok(type, P))
    return -1;
  for (int f = 0; f < nf; f++) {
    if (p[f] != P || q[f] != P)
      return -1;
    prod *= P;
  }
  if (prod != K || kb_cuda_dev_props(&dev, &nsm, &smem_max) != 0)
    return -1;
  // One block or a cluster of the table (kb_row_cl_tab); a cluster needs a
  // digit below the slowest one to read from global memory (nf >= 3).
  const int64_t fac = (int64_t)nf * P * P;
  auto share = [&](int c) { return ((K / c + chunk - 1) / chunk * chunk + fac) * esz; };
  const bool one = share(1) <= smem_max;
  int fit = one ? 1 : 0, small = 0;
  for (size_t t = 0; t < sizeof kb_row_cl_tab / sizeof kb_row_cl_tab[0] && nf >= 3; t++) {
    const int c = kb_row_cl_tab[t].C;
    if (kb_row_cl_tab[t].type != type || kb_row_cl_tab[t].P != P || share(c) > smem_max)
      continue;
    if (fit == 0)
      fit = c;
    if (small == 0 && share(c) <= KB_ROW_SHARE_SMALL &&
        (!one || (kb_row_cl_tab[t].pref && share(1) > KB_ROW_SHARE_SMALL)))
      small = c;
  }
  C = small > 0 ? small : fit;
  if (creq == 1) {
    // One block, also where the choice above is a cluster (before session
    // 21 such a request kept the cluster: the tuner's "c1" candidates there
    // were the geometry's own).
    if (!one)
      return -1;
    C = 1;
  }
  if (creq > 1) {
    if (nf < 3 || kb_row_cl_kernel(type, (int)P, creq) == nullptr || share(creq) > smem_max)
      return -1;
    C = creq;
  }
  if (C > 1 && !kb_row_cluster_ok(dev, type, (int)P, C, smem_max))
    C = share(1) <= smem_max && creq <= 1 ? 1 : 0;   // no clusters here: one block, where the vector fits
  if (C == 0)
    return -1;
  Kl = K / C;
  const int64_t rb = (Kl + chunk - 1) / chunk * chunk;
  // The prefetching kernel: double, one block a vector (kb_row_kernel's
  // PF), copying whole 16-byte chunks into two row buffers beside the
  // factors.
  const bool pf_fits = esz == 8 && C == 1 && Kl % (16 / esz) == 0 && (2 * rb + fac) * esz <= smem_max;
  if (preq > 0 && !pf_fits)
    return -1;
  g->pf = preq > 0 || (preq < 0 && pf_fits && kb_row_pf_pays((2 * rb + fac) * esz, m * batch, nsm));
  g->smem = ((g->pf ? 2 : 1) * rb + fac) * esz;
  g->cluster = C;
  g->fsm = (int)((g->pf ? 2 : 1) * rb);
  units = Kl / P / kb_row_g(type, P);
  threads = (units + 31) / 32 * 32;
  // Shares of at most KB_ROW_SHARE_SMALL run several blocks per SM, so
  // 256-thread blocks (registers hold 16 warps per SM) where there are
  // blocks enough: clusters, and P not a power of two with two blocks per
  // SM at least, where the slices per step fill 256 threads better than
  // 512 (H100, one block per vector, ms, 512 / 256 threads: float
  // 1024_7x7^5 0.176 / 0.137, 1024_6x6^5 0.090 / 0.080, double 1024_6x6^5
  // 0.120 / 0.102; power-of-two P within 2-4%; float 100_5x5^6, under a
  // wave, 0.026 / 0.032).  Clusters of such shares take their table
  // entry's T where it has one.
  const bool pow2 = (P & (P - 1)) == 0;
  const bool small_share = g->smem <= KB_ROW_SHARE_SMALL;
  int64_t most = small_share && (C > 1 || (!pow2 && m * batch >= 2 * (int64_t)nsm)) ? 256 : KB_ROW_NT;
  for (size_t t = 0; t < sizeof kb_row_cl_tab / sizeof kb_row_cl_tab[0] && C > 1 && small_share; t++)
    if (kb_row_cl_tab[t].type == type && kb_row_cl_tab[t].P == P && kb_row_cl_tab[t].C == C &&
        kb_row_cl_tab[t].T > 0)
      most = kb_row_cl_tab[t].T;
  g->threads = (int)(threads < 64 ? 64 : threads > most ? most : threads);
  if (treq > 0) {
    if (treq % 64 != 0 || treq > KB_ROW_NT)
      return -1;
    g->threads = treq;
  }
  g->blocks = m * batch * C;
  g->nsm = nsm;
  g->dev = dev;
  g->smem_max = smem_max;
  return 0;
}

extern "C" int kb_cuda_row_geom(int type, int64_t m, int64_t batch, int64_t K, int nf, const int64_t *p,
                                const int64_t *q, kb_cuda_row_geom_t *g)
{
  return kb_row_geom(0, 0, -1, type, m, batch, K, nf, p, q, g);
}

extern "C" int kb_cuda_row_geom_k(int kern, int type, int64_t m, int64_t batch, int64_t K, int nf, const int64_t *p,
                                  const int64_t *q, kb_cuda_row_geom_t *g)
{
  if (!kb_cuda_kernel_is_row(kern))
    return -1;
  return kb_row_geom(kb_cuda_row_var_C(kern), kb_cuda_row_var_T(kern), kb_cuda_row_var_PF(kern), type, m, batch, K,
                     nf, p, q, g);
}

// How many blocks of a launch can be resident on one multiprocessor: the
// prefetching grid loops over the vectors with no more than that times the
// SMs, so that every block has a next vector to copy while it multiplies.
// Asked of the runtime once per device, kernel, block size and shared
// memory (a launch's geometry is computed at every call).  0 where the
// runtime cannot tell.
static int kb_row_per_sm(int dev, const void *fn, int threads, int64_t smem)
{
  static struct {
    int dev, threads;
    const void *fn;
    int64_t smem;
    int n;
  } memo[64];
  static int nmemo;
  std::lock_guard<std::mutex> lock(kb_row_lock);
  for (int i = 0; i < nmemo; i++)
    if (memo[i].dev == dev && memo[i].fn == fn && memo[i].threads == threads && memo[i].smem == smem)
      return memo[i].n;
  int res = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&res, fn, threads, (size_t)smem) != cudaSuccess)
    res = 0;
  (void)cudaGetLastError();
  if (nmemo < (int)(sizeof memo / sizeof memo[0])) {
    memo[nmemo].dev = dev;
    memo[nmemo].fn = fn;
    memo[nmemo].threads = threads;
    memo[nmemo].smem = smem;
    memo[nmemo].n = res;
    nmemo++;
  }
  return res;
}

// The one-block kernel of a launch, the device's shared-memory limit set
// for it once.
template <typename T, int P, bool PF>
static int kb_row_one(int dev, int smem_max, const kb_cuda_row_geom_t &g, const kb_row_args<T> &a,
                      cudaStream_t stream)
{
  {
    std::lock_guard<std::mutex> lock(kb_row_lock);
    bool &set = kb_row_attr_set[dev][sizeof(T) == 8][P][PF];
    if (!set) {
      cudaError_t e = cudaFuncSetAttribute(kb_row_kernel<T, P, PF>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           smem_max);
      if (e != cudaSuccess)
        return (int)e;
      set = true;
    }
  }
  int64_t grid = g.blocks;
  if (PF) {
    const int64_t res = (int64_t)kb_row_per_sm(dev, (const void *)kb_row_kernel<T, P, PF>, g.threads, g.smem) * g.nsm;
    if (res > 0 && res < grid)
      grid = res;
  }
  kb_row_kernel<T, P, PF><<<(unsigned)(grid < 0x7fffffff ? grid : 0x7fffffff), g.threads, (size_t)g.smem, stream>>>(a);
  return (int)cudaGetLastError();
}

template <typename T, int P>
static int kb_row_launch_p(const kb_row_args<T> &a, const kb_cuda_row_geom_t &g, int dev, int smem_max,
                           cudaStream_t stream)
{
  const int C = g.cluster;
  if (C == 1) {
    // The prefetching kernels exist for double only (kb_row_geom).
    if constexpr (sizeof(T) == 8)
      if (a.pf)
        return kb_row_one<T, P, true>(dev, smem_max, g, a, stream);
    return kb_row_one<T, P, false>(dev, smem_max, g, a, stream);
  }
  // kb_cuda_row_geom has set the cluster kernel's shared-memory limit.
  const void *fn = kb_row_cl_kernel(sizeof(T) == 8, P, C);
  if (fn == nullptr)
    return (int)cudaErrorInvalidValue;
  const int64_t lim = 0x7fffffff / C * C;
  cudaLaunchConfig_t cfg;
  cudaLaunchAttribute at;
  kb_row_cl_config(&cfg, &at, C, g.blocks < lim ? g.blocks : lim, g.threads, g.smem, stream);
  void *args[] = { const_cast<kb_row_args<T> *>(&a) };
  return (int)cudaLaunchKernelExC(&cfg, fn, args);
}

template <typename T>
static bool kb_row_aligned(const void *ptr, int64_t rs, int64_t bs, int64_t batch, int w)
{
  return ((uintptr_t)ptr % (uintptr_t)(w * sizeof(T))) == 0 && rs % w == 0 && (batch == 1 || bs % w == 0);
}

// The magic number of a divisor d (1 <= d < 2^31) for dividends n below
// 2^31: n / d = umulhi(n, mul) >> sh with mul = ceil(2^(31 + l) / d), l =
// ceil(log2 d), sh = l - 1 (Granlund and Montgomery's round-up method, as
// CUTLASS's FastDivmod); d = 1 gets mul = 0 (kb_row_divmod's identity).
// Checked against plain division by t-cuda-geom on the host.
extern "C" void kb_cuda_row_magic(uint32_t d, uint32_t *mul, int *sh)
{
  int l = 0;
  if (d <= 1) {
    *mul = 0;
    *sh = 0;
    return;
  }
  while (((uint64_t)1 << l) < d)
    l++;
  *mul = (uint32_t)((((uint64_t)1 << (31 + l)) + d - 1) / d);
  *sh = l - 1;
}

template <typename T>
static int kb_row_launch_t(const kb_cuda_step_t *st, void *stream)
{
  kb_row_args<T> a;
  kb_cuda_row_geom_t g;
  int dev, smem_max, f;
  int64_t e;
  const int64_t P = st->p[0];
  const int G = kb_row_g(st->type, P), VL = 16 / (int)sizeof(T);
  if (st->in_is != 1 || st->out_is != 1 || st->conj_in || st->conjF ||
      kb_cuda_row_geom_k(st->kernel, st->type, st->m, st->batch, st->K, st->nf, st->p, st->q, &g) != 0)
    return (int)cudaErrorInvalidValue;   // the planner never sends such a step here
  dev = g.dev;
  smem_max = g.smem_max;
  memset(&a, 0, sizeof a);
  a.nf = st->nf;
  a.K = (int)st->K;
  a.fsm = g.fsm;
  for (f = 0, e = 1; f < st->nf && (P & (P - 1)) != 0; f++, e *= P)   // power-of-two P shifts instead
    kb_cuda_row_magic((uint32_t)e, &a.dmul[f], &a.dsh[f]);
  a.fb_varies = 0;
  for (f = 0; f < st->nf; f++) {
    a.F[f] = (const T *)st->F[f];
    a.fs_l[f] = st->fs_l[f];
    a.fs_k[f] = st->fs_k[f];
    a.f_bs[f] = st->f_bs[f];
    if (st->batch > 1 && st->f_bs[f] != 0)
      a.fb_varies = 1;
  }
  a.in = (const T *)st->in;
  a.in_rs = st->in_rs;
  a.in_bs = st->in_bs;
  a.out = (T *)st->out;
  a.out_rs = st->out_rs;
  a.out_bs = st->out_bs;
  a.m = st->m;
  a.total = st->m * st->batch;
  a.epilogue = st->epilogue;
  a.sc = kb_make_scalars<T>(st->alpha, st->beta, st->dev_scalars, st->beta_zero);
  a.vec_in = kb_row_aligned<T>(st->in, st->in_rs, st->in_bs, st->batch, G) &&
             (g.cluster == 1 || st->K / g.cluster % G == 0);   // each block reads its share
  a.vec_out = kb_row_aligned<T>(st->out, st->out_rs, st->out_bs, st->batch, VL);
  a.vec_out_g = kb_row_aligned<T>(st->out, st->out_rs, st->out_bs, st->batch, G);
  // The prefetch's 16-byte copies need every row (share) on a chunk; a step
  // whose X is not keeps the second buffer unused and reads X as before.
  a.pf = g.pf && kb_row_aligned<T>(st->in, st->in_rs, st->in_bs, st->batch, VL);
  a.rb = a.pf ? g.fsm / 2 : 0;
  if (a.total < 1)
    return 0;
  switch (P) {
  case 2: return kb_row_launch_p<T, 2>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 3: return kb_row_launch_p<T, 3>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 4: return kb_row_launch_p<T, 4>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 5: return kb_row_launch_p<T, 5>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 6: return kb_row_launch_p<T, 6>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 7: return kb_row_launch_p<T, 7>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 8: return kb_row_launch_p<T, 8>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 16: return kb_row_launch_p<T, 16>(a, g, dev, smem_max, (cudaStream_t)stream);
  case 32:
    if constexpr (sizeof(T) == 4)
      return kb_row_launch_p<T, 32>(a, g, dev, smem_max, (cudaStream_t)stream);
    break;
  }
  return (int)cudaErrorInvalidValue;
}

extern "C" int kb_cuda_row_launch(const kb_cuda_step_t *st, void *stream)
{
  switch (st->type) {
  case 0: return kb_row_launch_t<float>(st, stream);
  case 1: return kb_row_launch_t<double>(st, stream);
  }
  return (int)cudaErrorInvalidValue;
}
