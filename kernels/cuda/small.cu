// small.cu - the whole-vector fused kernel (KB_KERNEL_SMALL): one launch
// applies nf >= 1 consecutive factors of any shapes (distinct, odd,
// rectangular) to vectors whose every intermediate fits in shared memory.
//
// A block takes tm whole vectors of one batch entry, stages them in shared
// memory, applies the factors one after another between two buffers there
// (v_0, v_2, ... in one, v_1, v_3, ... in the other) and writes the last
// factor's result straight to the output with the step's epilogue.  Where
// few blocks would run (few vectors), the rows of the last factor are split
// over lsplit blocks, each recomputing the earlier factors: a block then
// does less serial work on an otherwise idle SM.
//
// Shared layout of an intermediate v_f (the input of factor f, p = p_f):
// slice s (p elements) starts at s * pp_f, pp_f = p rounded up to odd, so
// that the threads of a warp, each on its own slice, read distinct banks.
// The writer of v_f maps an index j to (j / p, j % p) with a multiply
// (kb_small_div).  Factors that fit are staged row-major with an odd row
// stride (conjugated there); others are read through L1.
//
// Each thread computes RL rows x RS slices of outputs (a register tile):
// consecutive threads take consecutive slices, so their reads of A are one
// broadcast and their stores to the output run along l*S + s.
#include "kb_cuda_kernels.h"
#include "kb_cuda_ops.cuh"

#include <cstring>
#include <mutex>

static const int kb_small_threads = 256;

template <typename T> struct kb_small_tile { static const int RS = 4, RL = 4; };
template <> struct kb_small_tile<float2> { static const int RS = 2, RL = 2; };
template <> struct kb_small_tile<double2> { static const int RS = 2, RL = 2; };

template <typename T>
struct kb_small_args {
  int nf;
  int K;                        // input vector length (fits in shared memory)
  int p[KB_CUDA_MAXF], q[KB_CUDA_MAXF];
  int pp[KB_CUDA_MAXF];         // slice stride of v_f in shared memory (odd)
  int pa[KB_CUDA_MAXF];         // row stride of a staged factor (odd)
  int foff[KB_CUDA_MAXF];       // staged factor f at smem + foff[f]; -1: read through L1
  uint64_t magic[KB_CUDA_MAXF]; // ceil(2^32 / p[f])
  const T *F[KB_CUDA_MAXF];
  int64_t fs_l[KB_CUDA_MAXF], fs_k[KB_CUDA_MAXF], f_bs[KB_CUDA_MAXF];
  int conjF;
  const T *in;
  int64_t in_rs, in_is, in_bs;
  int conj_in;
  T *out;
  int64_t out_rs, out_is, out_bs;
  int epilogue;
  kb_scalars<T> sc;
  int64_t m, batch, groups;     // groups: blocks of tm vectors per entry
  int tm;                       // vectors per block
  int lchunk;                   // rows of the last factor per block (a multiple of RL)
  int bufA, bufB;               // shared offsets of the two buffers
  int strA, strB;               // per-vector stride in each
};

// j / d and j % d for j < 2^16, d < 2^16: magic = ceil(2^32 / d) is exact there.
__device__ __forceinline__ int kb_small_div(int j, uint64_t magic, int d, int *rem)
{
  const int qt = (int)(((uint64_t)(unsigned)j * magic) >> 32);
  *rem = j - qt * d;
  return qt;
}

// e / d and e % d along e = e0, e0 + step, ...: one division for the
// first, adds after it, and with them two offsets linear in (hi, lo) --
// go in global memory (elements), so in shared memory (bytes).  The
// staging loops divided every element by a run-time p, q or K and
// multiplied 64-bit strides (MUFU.RCP, IMAD.WIDE: 40 instructions an
// element): 37% of the stall samples of a launch over 4096-element
// vectors at m = 50 (H100, ncu, session 24).
struct kb_small_walk {
  int hi, lo, dhi, dlo, d;
  int64_t go, gstep, gcarry;
  unsigned so, sstep, scarry;
  // Offsets g_hi * hi + g_lo * lo and s_hi * hi + s_lo * lo.
  __device__ __forceinline__ kb_small_walk(int e0, int step, int div, int64_t g_hi, int64_t g_lo, unsigned s_hi,
                                           unsigned s_lo)
      : hi(e0 / div), lo(e0 % div), dhi(step / div), dlo(step % div), d(div)
  {
    go = hi * g_hi + lo * g_lo;
    gstep = dhi * g_hi + dlo * g_lo;
    gcarry = g_hi - (int64_t)d * g_lo;
    so = hi * s_hi + lo * s_lo;
    sstep = dhi * s_hi + dlo * s_lo;
    scarry = s_hi - (unsigned)d * s_lo;
  }
  __device__ __forceinline__ void next()
  {
    hi += dhi;
    lo += dlo;
    go += gstep;
    so += sstep;
    if (lo >= d) {
      lo -= d;
      hi++;
      go += gcarry;
      so += scarry;
    }
  }
};

// One factor f over the block's vectors: reads v_f from src (per-vector
// stride srcs), rows [l_lo, l_hi).  LAST: writes the output with the
// epilogue, else v_{f+1} into dst in factor f+1's layout.
template <typename T, bool LAST>
__device__ __forceinline__ void kb_small_factor(const kb_small_args<T> &a, int f, int len, const T *src,
                                                int srcs, T *dst, int dsts, const T *smem, int nv, int64_t b,
                                                int64_t r0, int l_lo, int l_hi, T alpha, T beta, bool bzero)
{
  const int RS = kb_small_tile<T>::RS, RL = kb_small_tile<T>::RL;
  const int p = a.p[f], S = len / p, pp = a.pp[f];
  const int Ts = (S + RS - 1) / RS, Tl = (l_hi - l_lo + RL - 1) / RL;
  const int ntiles = nv * Tl * Ts;
  const bool staged = a.foff[f] >= 0;
  const int pa = a.pa[f];
  const T *Fg = a.F[f] + b * a.f_bs[f];
  const int64_t fs_l = a.fs_l[f], fs_k = a.fs_k[f];
  for (int t = threadIdx.x; t < ntiles; t += blockDim.x) {
    const int st = t % Ts, rest = t / Ts, lt = rest % Tl, v = rest / Tl;
    int xo[RS], lr[RL];
    T acc[RL][RS];
    // Clamped indices: the loads stay in bounds; the extra results are
    // not stored.
#pragma unroll
    for (int j = 0; j < RS; j++) {
      int s = st + j * Ts;
      xo[j] = (s < S ? s : S - 1) * pp;
    }
#pragma unroll
    for (int i = 0; i < RL; i++) {
      int l = l_lo + lt * RL + i;
      lr[i] = l < l_hi ? l : l_hi - 1;
    }
#pragma unroll
    for (int i = 0; i < RL; i++)
#pragma unroll
      for (int j = 0; j < RS; j++)
        acc[i][j] = kb_zero(T());
    const T *x = src + v * srcs;
    if (staged) {
      const T *A = smem + a.foff[f];
      for (int k = 0; k < p; k++) {
        T xv[RS], av[RL];
#pragma unroll
        for (int j = 0; j < RS; j++)
          xv[j] = x[xo[j] + k];
#pragma unroll
        for (int i = 0; i < RL; i++)
          av[i] = A[lr[i] * pa + k];
#pragma unroll
        for (int i = 0; i < RL; i++)
#pragma unroll
          for (int j = 0; j < RS; j++)
            acc[i][j] = kb_fma(av[i], xv[j], acc[i][j]);
      }
    } else {
      for (int k = 0; k < p; k++) {
        T xv[RS], av[RL];
#pragma unroll
        for (int j = 0; j < RS; j++)
          xv[j] = x[xo[j] + k];
#pragma unroll
        for (int i = 0; i < RL; i++) {
          av[i] = __ldg(Fg + lr[i] * fs_l + k * fs_k);
          if (a.conjF)
            av[i] = kb_conj(av[i]);
        }
#pragma unroll
        for (int i = 0; i < RL; i++)
#pragma unroll
          for (int j = 0; j < RS; j++)
            acc[i][j] = kb_fma(av[i], xv[j], acc[i][j]);
      }
    }
#pragma unroll
    for (int i = 0; i < RL; i++) {
      const int l = l_lo + lt * RL + i;
      if (l >= l_hi)
        continue;
#pragma unroll
      for (int j = 0; j < RS; j++) {
        const int s = st + j * Ts;
        if (s >= S)
          continue;
        const int jo = l * S + s;
        if (LAST) {
          T *o = a.out + b * a.out_bs + (r0 + v) * a.out_rs + (int64_t)jo * a.out_is;
          if (a.epilogue == KB_EPI_NONE) {
            *o = acc[i][j];
          } else {
            T val = kb_mul(alpha, acc[i][j]);
            if (a.epilogue == KB_EPI_AXPBY && !bzero)
              val = kb_fma(beta, *o, val);
            *o = val;
          }
        } else {
          int k2, s2 = kb_small_div(jo, a.magic[f + 1], a.p[f + 1], &k2);
          dst[v * dsts + s2 * a.pp[f + 1] + k2] = acc[i][j];
        }
      }
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(256) kb_small_kernel(const kb_small_args<T> a)
{
  extern __shared__ __align__(16) unsigned char kb_small_smem[];
  T *smem = reinterpret_cast<T *>(kb_small_smem);
  const kb_epi_vals<T> ep = kb_epi_start(a.sc);
  if (ep.azero && a.epilogue == KB_EPI_NONE)
    return;
  const T alpha = ep.alpha, beta = ep.beta;
  const bool azero = ep.azero, bzero = ep.bzero;
  int qlast = a.q[a.nf - 1];
  const int l_lo = blockIdx.y * a.lchunk;
  const int l_hi = l_lo + a.lchunk < qlast ? l_lo + a.lchunk : qlast;
  if (l_lo >= l_hi)
    return;
  int Lout = a.K;
  for (int f = 0; f < a.nf; f++)
    Lout = Lout / a.p[f] * a.q[f];
  const int Slast = Lout / qlast;

  for (int64_t g = blockIdx.x; g < a.groups * a.batch; g += gridDim.x) {
    const int64_t b = g / a.groups, r0 = (g % a.groups) * a.tm;
    const int nv = a.m - r0 < a.tm ? (int)(a.m - r0) : a.tm;
    if (azero) {
      // alpha == 0 (device pointer mode): out = beta*out, X and A unread.
      for (int e = threadIdx.x; e < nv * (l_hi - l_lo) * Slast; e += blockDim.x) {
        const int s = e % Slast, rest = e / Slast, l = l_lo + rest % (l_hi - l_lo), v = rest / (l_hi - l_lo);
        T *o = a.out + b * a.out_bs + (r0 + v) * a.out_rs + ((int64_t)l * Slast + s) * a.out_is;
        *o = a.epilogue == KB_EPI_AXPBY && !bzero ? kb_mul(beta, *o) : kb_zero(T());
      }
      continue;
    }
    __syncthreads();   // the previous group's reads of shared memory are done
    // Stage the factors that fit, in row-major order with an odd row
    // stride, and the input vectors in factor 0's layout (the thread order
    // follows the input's contiguous direction).  Element by element, but
    // through cp.async, so that a thread's loads are in flight together
    // (H100, session 20: single launches over 1000-10000-element vectors
    // 15-25% faster than with loads into registers).  Conjugated operands
    // go through registers.
    for (int f = 0; f < a.nf; f++) {
      if (a.foff[f] < 0)
        continue;
      const T *Fg = a.F[f] + b * a.f_bs[f];
      T *A = smem + a.foff[f];
      const int p = a.p[f], q = a.q[f];
      // (l, k) = (hi, lo) where the factor runs along k, else (lo, hi).
      const bool kfast = a.fs_k[f] == 1;
      const unsigned es = sizeof(T), pa = (unsigned)a.pa[f];
      kb_small_walk w(threadIdx.x, blockDim.x, kfast ? p : q, kfast ? a.fs_l[f] : a.fs_k[f],
                      kfast ? a.fs_k[f] : a.fs_l[f], kfast ? pa * es : es, kfast ? es : pa * es);
      const unsigned sA = (unsigned)__cvta_generic_to_shared(A);
      for (int e = threadIdx.x; e < p * q; e += blockDim.x, w.next()) {
        if (a.conjF)
          A[w.so / es] = kb_conj(__ldg(Fg + w.go));
        else
          kb_cp_s<(int)sizeof(T)>(sA + w.so, Fg + w.go, true);
      }
    }
    {
      T *dst = smem + a.bufA;
      const T *src = a.in + b * a.in_bs + r0 * a.in_rs;
      const bool mfast = a.in_is != 1 && a.in_rs == 1;
      kb_small_walk w(threadIdx.x, blockDim.x, mfast ? nv : a.K, 0, 0, 0, 0);   // (v, k) only
      for (int e = threadIdx.x; e < nv * a.K; e += blockDim.x, w.next()) {
        const int v = mfast ? w.lo : w.hi, k = mfast ? w.hi : w.lo;
        const T *x = src + v * a.in_rs + (int64_t)k * a.in_is;
        int k0, s0 = kb_small_div(k, a.magic[0], a.p[0], &k0);
        if (a.conj_in)
          dst[v * a.strA + s0 * a.pp[0] + k0] = kb_conj(*x);
        else
          kb_cp<(int)sizeof(T)>(dst + v * a.strA + s0 * a.pp[0] + k0, x, true);
      }
    }
    kb_cp_commit();
    kb_cp_wait<0>();
    __syncthreads();
    int len = a.K;
    for (int f = 0; f < a.nf; f++) {
      const T *src = smem + (f % 2 == 0 ? a.bufA : a.bufB);
      const int srcs = f % 2 == 0 ? a.strA : a.strB;
      if (f == a.nf - 1) {
        kb_small_factor<T, true>(a, f, len, src, srcs, nullptr, 0, smem, nv, b, r0, l_lo, l_hi, alpha, beta,
                                 bzero);
      } else {
        T *dst = smem + (f % 2 == 0 ? a.bufB : a.bufA);
        kb_small_factor<T, false>(a, f, len, src, srcs, dst, f % 2 == 0 ? a.strB : a.strA, smem, nv, b, r0, 0,
                                  a.q[f], alpha, beta, bzero);
        __syncthreads();
      }
      len = len / a.p[f] * a.q[f];
    }
  }
}

// ------------------------------------------------------------- host side

static int kb_small_esz(int type)
{
  static const int s[4] = { 4, 8, 8, 16 };
  return type >= 0 && type < 4 ? s[type] : 0;
}

static int kb_small_rl(int type) { return type >= 2 ? 2 : 4; }

// Device properties per device, read once (kb_cuda_dev_props: also the
// whole-row kernel's); and whether this file's kernels may take them.
static struct {
  int nsm, smem_max;
  bool attr_set[4];
} kb_small_dev[KB_CUDA_MAXDEV];
static bool kb_small_dev_known[KB_CUDA_MAXDEV];
static std::mutex kb_small_lock;

// Without a device: what kb_cuda_dev_props_assume said (0: nothing).
static int kb_small_assumed_nsm, kb_small_assumed_smem;

extern "C" void kb_cuda_dev_props_assume(int nsm, int smem_max)
{
  std::lock_guard<std::mutex> lock(kb_small_lock);
  kb_small_assumed_nsm = nsm;
  kb_small_assumed_smem = smem_max;
}

extern "C" int kb_cuda_dev_props(int *dev_out, int *nsm, int *smem_max)
{
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= KB_CUDA_MAXDEV) {
    (void)cudaGetLastError();
    std::lock_guard<std::mutex> lock(kb_small_lock);
    if (kb_small_assumed_nsm <= 0)
      return -1;
    *dev_out = 0;
    *nsm = kb_small_assumed_nsm;
    *smem_max = kb_small_assumed_smem;
    return 0;
  }
  std::lock_guard<std::mutex> lock(kb_small_lock);
  if (!kb_small_dev_known[dev]) {
    int n = 0, s = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&s, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      return -1;
    }
    kb_small_dev[dev].nsm = n > 0 ? n : 1;
    kb_small_dev[dev].smem_max = s;
    kb_small_dev_known[dev] = true;
  }
  *dev_out = dev;
  *nsm = kb_small_dev[dev].nsm;
  *smem_max = kb_small_dev[dev].smem_max;
  return 0;
}

// Layout of a step; the geometry's fields plus the offsets the kernel needs.
struct kb_small_layout {
  int pp[KB_CUDA_MAXF], pa[KB_CUDA_MAXF], foff[KB_CUDA_MAXF];
  int strA, strB, fac;       // elements
};

static int kb_small_layout_of(int64_t K, int nf, const int64_t *p, const int64_t *q, int smem_elems,
                              kb_small_layout *lay)
{
  int64_t len = K, strA = 0, strB = 0, fac = 0;
  if (nf < 1 || nf > KB_CUDA_MAXF || K < 1)
    return -1;
  for (int f = 0; f < nf; f++) {
    int64_t S, need;
    if (p[f] < 1 || q[f] < 1 || p[f] >= 65536 || q[f] >= 65536 || len % p[f] != 0)
      return -1;
    S = len / p[f];
    lay->pp[f] = (int)(p[f] | 1);
    lay->pa[f] = (int)(p[f] | 1);
    need = S * lay->pp[f];
    // v_f in shared memory (indices below 2^16 for kb_small_div).
    if (need > smem_elems || len >= 65536)
      return -1;
    if (f % 2 == 0) strA = need > strA ? need : strA;
    else strB = need > strB ? need : strB;
    fac += q[f] * lay->pa[f];
    len = S * q[f];
    if (len >= ((int64_t)1 << 31))
      return -1;
  }
  lay->strA = (int)strA;
  lay->strB = (int)strB;
  lay->fac = fac < ((int64_t)1 << 30) ? (int)fac : (1 << 30);
  return strA + strB <= smem_elems ? 0 : -1;
}

extern "C" int kb_cuda_small_geom(int type, int64_t m, int64_t batch, int64_t K, int nf, const int64_t *p,
                                  const int64_t *q, kb_cuda_small_geom_t *g)
{
  const int esz = kb_small_esz(type);
  int dev, nsm, smem_max, tm, elems;
  int64_t groups, blocks, tiles_l;
  kb_small_layout lay;
  if (esz == 0 || m < 1 || batch < 1 || kb_cuda_dev_props(&dev, &nsm, &smem_max) != 0)
    return -1;
  elems = smem_max / esz;
  if (kb_small_layout_of(K, nf, p, q, elems, &lay) != 0)
    return -1;
  // Vectors per block: as many as keep a block per SM (more reuse of the
  // staged factors, fuller blocks), while they fit with the factors.
  for (tm = 32; tm > 1; tm /= 2) {
    if ((int64_t)tm > m || batch * ((m + tm - 1) / tm) < nsm)
      continue;
    if ((int64_t)tm * (lay.strA + lay.strB) + lay.fac <= elems)
      break;
  }
  g->tm = tm;
  g->stage_f = (int64_t)tm * (lay.strA + lay.strB) + lay.fac <= elems;
  groups = (m + tm - 1) / tm;
  blocks = groups * batch;
  tiles_l = (q[nf - 1] + kb_small_rl(type) - 1) / kb_small_rl(type);
  g->lsplit = 1;
  if (blocks < nsm) {
    int64_t ls = nsm / blocks;
    g->lsplit = (int)(ls < tiles_l ? ls : tiles_l);
    if (g->lsplit > 65535) g->lsplit = 65535;
    if (g->lsplit < 1) g->lsplit = 1;
  }
  g->blocks = blocks * g->lsplit;
  g->smem = (int64_t)esz * ((int64_t)tm * (lay.strA + lay.strB) + (g->stage_f ? lay.fac : 0));
  g->nsm = nsm;
  return 0;
}

template <typename T>
static int kb_small_launch_t(const kb_cuda_step_t *st, void *stream)
{
  kb_small_args<T> a;
  kb_cuda_small_geom_t g;
  kb_small_layout lay;
  int dev, nsm, smem_max, f, off, RL = kb_small_tile<T>::RL;
  int64_t tiles_l, grid;
  if (kb_cuda_small_geom(st->type, st->m, st->batch, st->K, st->nf, st->p, st->q, &g) != 0 ||
      kb_cuda_dev_props(&dev, &nsm, &smem_max) != 0 ||
      kb_small_layout_of(st->K, st->nf, st->p, st->q, smem_max / (int)sizeof(T), &lay) != 0)
    return (int)cudaErrorInvalidValue;   // the planner never sends such a step here
  {
    std::lock_guard<std::mutex> lock(kb_small_lock);
    if (!kb_small_dev[dev].attr_set[st->type]) {
      cudaError_t e = cudaFuncSetAttribute(kb_small_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           smem_max);
      if (e != cudaSuccess)
        return (int)e;
      kb_small_dev[dev].attr_set[st->type] = true;
    }
  }
  memset(&a, 0, sizeof a);
  a.nf = st->nf;
  a.K = (int)st->K;
  off = 0;
  for (f = 0; f < st->nf; f++) {
    a.p[f] = (int)st->p[f];
    a.q[f] = (int)st->q[f];
    a.pp[f] = lay.pp[f];
    a.pa[f] = lay.pa[f];
    a.magic[f] = (((uint64_t)1 << 32) + (uint64_t)a.p[f] - 1) / (uint64_t)a.p[f];
    a.F[f] = (const T *)st->F[f];
    a.fs_l[f] = st->fs_l[f];
    a.fs_k[f] = st->fs_k[f];
    a.f_bs[f] = st->f_bs[f];
    a.foff[f] = g.stage_f ? off : -1;
    off += a.q[f] * a.pa[f];
  }
  a.bufA = g.stage_f ? off : 0;
  a.strA = lay.strA;
  a.strB = lay.strB;
  a.bufB = a.bufA + g.tm * lay.strA;
  a.conjF = st->conjF;
  a.in = (const T *)st->in;
  a.in_rs = st->in_rs;
  a.in_is = st->in_is;
  a.in_bs = st->in_bs;
  a.conj_in = st->conj_in;
  a.out = (T *)st->out;
  a.out_rs = st->out_rs;
  a.out_is = st->out_is;
  a.out_bs = st->out_bs;
  a.epilogue = st->epilogue;
  a.sc = kb_make_scalars<T>(st->alpha, st->beta, st->dev_scalars, st->beta_zero);
  a.m = st->m;
  a.batch = st->batch;
  a.tm = g.tm;
  a.groups = (st->m + g.tm - 1) / g.tm;
  tiles_l = (st->q[st->nf - 1] + RL - 1) / RL;
  a.lchunk = (int)((tiles_l + g.lsplit - 1) / g.lsplit * RL);
  grid = a.groups * st->batch;
  if (grid > 0x7fffffff) grid = 0x7fffffff;
  kb_small_kernel<T><<<dim3((unsigned)grid, (unsigned)g.lsplit), kb_small_threads, (size_t)g.smem,
                       (cudaStream_t)stream>>>(a);
  return (int)cudaGetLastError();
}

extern "C" int kb_cuda_small_launch(const kb_cuda_step_t *st, void *stream)
{
  switch (st->type) {
  case 0: return kb_small_launch_t<float>(st, stream);
  case 1: return kb_small_launch_t<double>(st, stream);
  case 2: return kb_small_launch_t<float2>(st, stream);
  case 3: return kb_small_launch_t<double2>(st, stream);
  }
  return (int)cudaErrorInvalidValue;
}
