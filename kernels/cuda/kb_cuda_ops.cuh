// kb_cuda_ops.cuh - arithmetic on the four element types, so that every
// kernel is written once.  Complex values are float2/double2 (the layout of
// kronblasComplex/kronblasDoubleComplex and cuComplex).
#ifndef KB_CUDA_OPS_CUH
#define KB_CUDA_OPS_CUH

#ifndef __CUDACC_RTC__   // NVRTC (lib/cuda_jit.c) has the CUDA types built in
#include <cuda_runtime.h>
#include <stdint.h>
#endif

// Asks L2 for the line holding p: no register, no wait (the beta != 0
// kernels' reads of old outputs, gemm.cu and kb_fast.cuh).
__device__ __forceinline__ void kb_prefetch_l2(const void *p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

__device__ __forceinline__ float kb_zero(float) { return 0.0f; }
__device__ __forceinline__ double kb_zero(double) { return 0.0; }
__device__ __forceinline__ float2 kb_zero(float2) { return make_float2(0.0f, 0.0f); }
__device__ __forceinline__ double2 kb_zero(double2) { return make_double2(0.0, 0.0); }

__device__ __forceinline__ bool kb_is_zero(float v) { return v == 0.0f; }
__device__ __forceinline__ bool kb_is_zero(double v) { return v == 0.0; }
__device__ __forceinline__ bool kb_is_zero(float2 v) { return v.x == 0.0f && v.y == 0.0f; }
__device__ __forceinline__ bool kb_is_zero(double2 v) { return v.x == 0.0 && v.y == 0.0; }

__device__ __forceinline__ float kb_conj(float v) { return v; }
__device__ __forceinline__ double kb_conj(double v) { return v; }
__device__ __forceinline__ float2 kb_conj(float2 v) { return make_float2(v.x, -v.y); }
__device__ __forceinline__ double2 kb_conj(double2 v) { return make_double2(v.x, -v.y); }

__device__ __forceinline__ float kb_mul(float a, float b) { return a * b; }
__device__ __forceinline__ double kb_mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 kb_mul(float2 a, float2 b)
{
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ double2 kb_mul(double2 a, double2 b)
{
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// acc + a*b
__device__ __forceinline__ float kb_fma(float a, float b, float acc) { return fmaf(a, b, acc); }
__device__ __forceinline__ double kb_fma(double a, double b, double acc) { return fma(a, b, acc); }
__device__ __forceinline__ float2 kb_fma(float2 a, float2 b, float2 acc)
{
  return make_float2(fmaf(-a.y, b.y, fmaf(a.x, b.x, acc.x)), fmaf(a.y, b.x, fmaf(a.x, b.y, acc.y)));
}
__device__ __forceinline__ double2 kb_fma(double2 a, double2 b, double2 acc)
{
  return make_double2(fma(-a.y, b.y, fma(a.x, b.x, acc.x)), fma(a.y, b.x, fma(a.x, b.y, acc.y)));
}

// The scalars of an epilogue: by value in host pointer mode, read on the
// device in device pointer mode (so that a call stays asynchronous and
// alpha == 0 / beta == 0 are still honoured).
template <typename T>
struct kb_scalars {
  T alpha, beta;
  const T *alpha_p, *beta_p;   // device pointer mode; else NULL
  int beta_zero;               // host mode
};

template <typename T>
__device__ __forceinline__ T kb_load_alpha(const kb_scalars<T> &s)
{
  return s.alpha_p != nullptr ? *s.alpha_p : s.alpha;
}

// beta, and whether it is zero (in which case Y must not be read).
template <typename T>
__device__ __forceinline__ T kb_load_beta(const kb_scalars<T> &s, bool *zero)
{
  T b = s.beta_p != nullptr ? *s.beta_p : s.beta;
  *zero = s.beta_p != nullptr ? kb_is_zero(b) : (s.beta_zero != 0);
  return b;
}

// What a step kernel knows of its epilogue as it starts (every kernel:
// generic, fast, whole-vector, whole-row): alpha, beta, whether beta is
// zero (Y is then not read) and whether alpha is zero in device pointer
// mode (the kernel then reads neither the input nor the factors, and one
// whose output is an intermediate has nothing to do).
template <typename T>
struct kb_epi_vals {
  T alpha, beta;
  bool azero, bzero;
};

template <typename T>
__device__ __forceinline__ kb_epi_vals<T> kb_epi_start(const kb_scalars<T> &s)
{
  kb_epi_vals<T> e;
  e.azero = s.alpha_p != nullptr && kb_is_zero(*s.alpha_p);
  e.alpha = kb_load_alpha(s);
  e.beta = kb_load_beta(s, &e.bzero);
  return e;
}

#ifndef __CUDACC_RTC__
// Whether p is aligned to bytes (a power of two): the launchers' choice of
// vector accesses (fast kernel, slice-GEMM kernel).
static inline bool kb_aligned(const void *p, int bytes) { return ((uintptr_t)p & (uintptr_t)(bytes - 1)) == 0; }

// The scalars of a launch from a step's fields (host side of every
// launcher: fast, generic, whole-vector, scale).
template <typename T>
static inline kb_scalars<T> kb_make_scalars(const void *alpha, const void *beta, int dev, int beta_zero)
{
  kb_scalars<T> s;
  s.alpha_p = dev ? (const T *)alpha : nullptr;
  s.beta_p = dev ? (const T *)beta : nullptr;
  s.alpha = T();
  s.beta = T();
  if (!dev && alpha != nullptr)
    s.alpha = *(const T *)alpha;
  if (!dev && beta != nullptr && !beta_zero)
    s.beta = *(const T *)beta;
  s.beta_zero = beta_zero;
  return s;
}
#endif

// cp.async (sm_80+): global to shared without registers, so that a
// block's loads are in flight together (the fast kernel's next tile while
// it multiplies the current one; the whole-vector kernel's staging).  A
// source size of 0 fills zeros (vectors past m).
__device__ __forceinline__ void kb_cp16(void *dst, const void *src, bool valid)
{
  const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0));
}

// N bytes (4, 8 or 16) to a shared-memory address already converted
// (a loop's base converted once: converting a generic pointer in the loop
// reread the block's shared window every element).
template <int N>
__device__ __forceinline__ void kb_cp_s(unsigned dst, const void *src, bool valid)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(N), "r"(valid ? N : 0));
}

template <int N>
__device__ __forceinline__ void kb_cp(void *dst, const void *src, bool valid)
{
  kb_cp_s<N>((unsigned)__cvta_generic_to_shared(dst), src, valid);
}

__device__ __forceinline__ void kb_cp_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }

template <int N>
__device__ __forceinline__ void kb_cp_wait(void) { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

#endif // KB_CUDA_OPS_CUH
