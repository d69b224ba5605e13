/* bench_gpu_kernels.cu - device code of kronblas-bench's GPU baselines: the
 * transpose of the shuffle algorithm (the role torch's permute-copy plays in
 * GPyTorch) and a fill for the ceiling measurements.  Plain CUDA, no
 * library code; linked into the benchmark only. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kb_bench.h"

namespace {

struct kb_e16 { double a, b; };

/* Tile of T1 x T2 elements (powers of two, T1*T2 = 1024) through shared
 * memory, so that both the reads along d1 and the writes along d2 are
 * coalesced even when d1 or d2 is small (a factor's q = 8, say). */
template <typename T>
__global__ void kb_bench_transpose(const T *__restrict__ src, T *__restrict__ dst, int64_t d1,
    int64_t d2, int64_t outer, int s1, int s2, int64_t nb1, int64_t nb2)
{
  __shared__ T tile[1024 + 512];
  const int T1 = 1 << s1, T2 = 1 << s2;
  const int64_t ntiles = outer * nb1 * nb2;
  for (int64_t t = blockIdx.x; t < ntiles; t += gridDim.x) {
    const int64_t o = t / (nb1 * nb2), rem = t % (nb1 * nb2);
    const int64_t j1 = (rem % nb1) * T1, j2 = (rem / nb1) * T2;
    const T *s = src + o * d1 * d2;
    T *d = dst + o * d1 * d2;
    for (int e = threadIdx.x; e < T1 * T2; e += blockDim.x) {
      const int a = e & (T1 - 1), b = e >> s1;
      const int64_t b1 = j1 + a, b2 = j2 + b;
      if (b1 < d1 && b2 < d2)
        tile[a * (T2 + 1) + b] = s[b1 + d1 * b2];
    }
    __syncthreads();
    for (int e = threadIdx.x; e < T1 * T2; e += blockDim.x) {
      const int b = e & (T2 - 1), a = e >> s2;
      const int64_t b1 = j1 + a, b2 = j2 + b;
      if (b1 < d1 && b2 < d2)
        d[b2 + d2 * b1] = tile[a * (T2 + 1) + b];
    }
    __syncthreads();
  }
}

/* inner > 1: whole runs of inner elements move; one block per run. */
template <typename T>
__global__ void kb_bench_move_runs(const T *__restrict__ src, T *__restrict__ dst, int64_t inner,
    int64_t d1, int64_t d2, int64_t outer)
{
  const int64_t nrun = d1 * d2 * outer;
  for (int64_t run = blockIdx.x; run < nrun; run += gridDim.x) {
    const int64_t b2 = run % d2, b1 = run / d2 % d1, o = run / (d1 * d2);
    const T *s = src + inner * (b1 + d1 * (b2 + d2 * o));
    T *d = dst + inner * run;
    for (int64_t i = threadIdx.x; i < inner; i += blockDim.x)
      d[i] = s[i];
  }
}

template <typename T>
cudaError_t kb_bench_permute_t(const void *src, void *dst, int64_t inner, int64_t d1, int64_t d2,
    int64_t outer, cudaStream_t st)
{
  if (inner == 1) {
    int s1 = 5, s2 = 5;
    if (d1 < 32) {
      for (s1 = 0; (1 << s1) < d1; s1++)
        ;
      s2 = 10 - s1;
    } else if (d2 < 32) {
      for (s2 = 1; (1 << s2) < d2; s2++)
        ;
      s1 = 10 - s2;
    }
    const int64_t nb1 = (d1 + (1 << s1) - 1) >> s1, nb2 = (d2 + (1 << s2) - 1) >> s2;
    const int64_t nt = outer * nb1 * nb2;
    const unsigned grid = (unsigned)(nt < (1 << 20) ? nt : (1 << 20));
    kb_bench_transpose<T><<<grid, 256, 0, st>>>((const T *)src, (T *)dst, d1, d2, outer, s1, s2, nb1, nb2);
  } else {
    const int64_t nrun = d1 * d2 * outer;
    const unsigned grid = (unsigned)(nrun < (1 << 20) ? nrun : (1 << 20));
    const int block = inner >= 256 ? 256 : inner >= 64 ? 64 : 32;
    kb_bench_move_runs<T><<<grid, block, 0, st>>>((const T *)src, (T *)dst, inner, d1, d2, outer);
  }
  return cudaGetLastError();
}

/* Uniform [-1, 1) from a hash of the index: no host copy of a large
 * ceiling matrix is needed, and the values are not zeros (which would run
 * at a different power draw). */
template <typename T>
__global__ void kb_bench_fill_k(T *x, int64_t count, uint64_t seed)
{
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count;
       i += (int64_t)gridDim.x * blockDim.x) {
    uint64_t z = (uint64_t)i + seed * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    x[i] = (T)((double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  }
}

} // namespace

extern "C" int kb_bench_cuda_permute(const void *src, void *dst, size_t esz, int64_t inner,
    int64_t d1, int64_t d2, int64_t outer, void *stream)
{
  cudaStream_t st = (cudaStream_t)stream;
  if (inner <= 0 || d1 <= 0 || d2 <= 0 || outer <= 0)
    return (int)cudaSuccess;
  switch (esz) {
  case 4: return (int)kb_bench_permute_t<float>(src, dst, inner, d1, d2, outer, st);
  case 8: return (int)kb_bench_permute_t<double>(src, dst, inner, d1, d2, outer, st);
  case 16: return (int)kb_bench_permute_t<kb_e16>(src, dst, inner, d1, d2, outer, st);
  default: return (int)cudaErrorInvalidValue;
  }
}

extern "C" int kb_bench_cuda_fill(void *x, int64_t count, int is_double, uint64_t seed, void *stream)
{
  if (count <= 0)
    return (int)cudaSuccess;
  if (is_double)
    kb_bench_fill_k<double><<<1024, 256, 0, (cudaStream_t)stream>>>((double *)x, count, seed);
  else
    kb_bench_fill_k<float><<<1024, 256, 0, (cudaStream_t)stream>>>((float *)x, count, seed);
  return (int)cudaGetLastError();
}
