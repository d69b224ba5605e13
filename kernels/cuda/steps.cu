// steps.cu - the generic sliced-multiply kernel (any type, shape, stride
// and conjugation), the scale and blend kernels, and the launcher that sends
// a step to the generic kernel or to a precompiled fast configuration.
#include "kb_cuda_kernels.h"
#include "kb_cuda_ops.cuh"
#include "kb_fast.cuh"

#include <climits>
#include <mutex>
#include <vector>

// Blocks per launch of the grid-stride kernels: enough to fill any current
// GPU several times over; the kernels loop over what is left.
static const int64_t kb_max_grid = 1 << 20;
static const int kb_generic_threads = 256;

template <typename T>
struct kb_gen_args {
  int64_t m, batch, S, p, q;
  const T *F;
  int64_t fs_l, fs_k, f_bs;
  int conjF;
  const T *in;
  int64_t in_rs, in_is, in_bs;
  int conj_in;
  T *out;
  int64_t out_rs, out_is, out_bs;
  int epilogue;
  kb_scalars<T> sc;
  int r_fast;   // consecutive threads take consecutive vectors (input along m)
};

// One output element per thread and iteration: out[r, l*S + s] =
// sum_k A[l,k] * in[r, s*p + k].  The thread order follows the input's
// contiguous direction, so that the reads of a warp coalesce.
template <typename T>
__global__ void __launch_bounds__(256) kb_generic_step(const kb_gen_args<T> a)
{
  const bool azero = a.sc.alpha_p != nullptr && kb_is_zero(*a.sc.alpha_p);
  if (azero && a.epilogue == KB_EPI_NONE)
    return;
  const T alpha = kb_load_alpha(a.sc);
  bool bzero;
  const T beta = kb_load_beta(a.sc, &bzero);
  const int64_t per = a.m * a.q * a.S;
  const int64_t total = per * a.batch;
  for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = idx / per, e = idx % per;
    int64_t r, l, s;
    if (a.r_fast) {
      r = e % a.m;
      s = (e / a.m) % a.S;
      l = e / (a.m * a.S);
    } else {
      s = e % a.S;
      l = (e / a.S) % a.q;
      r = e / (a.S * a.q);
    }
    T acc = kb_zero(T());
    if (!azero) {
      const T *x = a.in + b * a.in_bs + r * a.in_rs + s * a.p * a.in_is;
      const T *f = a.F + b * a.f_bs + l * a.fs_l;
      for (int64_t k = 0; k < a.p; k++) {
        T xv = x[k * a.in_is];
        T fv = __ldg(f + k * a.fs_k);
        if (a.conj_in) xv = kb_conj(xv);
        if (a.conjF) fv = kb_conj(fv);
        acc = kb_fma(fv, xv, acc);
      }
    }
    T *o = a.out + b * a.out_bs + r * a.out_rs + (l * a.S + s) * a.out_is;
    if (a.epilogue == KB_EPI_NONE) {
      *o = acc;
    } else {
      T v = azero ? kb_zero(T()) : kb_mul(alpha, acc);
      if (a.epilogue == KB_EPI_AXPBY && !bzero)
        v = kb_fma(beta, *o, v);
      *o = v;
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(256) kb_scale_kernel(int64_t m, int64_t L, int64_t batch, T *Y,
    int64_t ys_m, int64_t ys_l, int64_t y_bs, kb_scalars<T> sc)
{
  bool bzero;
  const T beta = kb_load_beta(sc, &bzero);
  const int64_t per = m * L, total = per * batch;
  const bool r_fast = ys_m == 1;
  for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = idx / per, e = idx % per;
    const int64_t r = r_fast ? e % m : e / L, l = r_fast ? e / m : e % L;
    T *y = Y + b * y_bs + r * ys_m + l * ys_l;
    // beta == 0 must not read Y: it may hold NaN.
    *y = bzero ? kb_zero(T()) : kb_mul(beta, *y);
  }
}

template <typename T>
__global__ void __launch_bounds__(256) kb_xpby_kernel(int64_t m, int64_t L, const T *Tm,
    int64_t ts_m, int64_t ts_l, T *Y, int64_t ys_m, int64_t ys_l, kb_scalars<T> sc)
{
  bool bzero;
  const T beta = kb_load_beta(sc, &bzero);
  const int64_t total = m * L;
  const bool r_fast = ys_m == 1;
  for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = r_fast ? idx % m : idx / L, l = r_fast ? idx / m : idx % L;
    T *y = Y + r * ys_m + l * ys_l;
    const T t = Tm[r * ts_m + l * ts_l];
    *y = bzero ? t : kb_fma(beta, *y, t);
  }
}

static unsigned kb_grid_for(int64_t total)
{
  int64_t g = (total + kb_generic_threads - 1) / kb_generic_threads;
  if (g < 1) g = 1;
  return (unsigned)(g < kb_max_grid ? g : kb_max_grid);
}

template <typename T>
static kb_scalars<T> kb_make_scalars(const void *alpha, const void *beta, int dev, int beta_zero)
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

template <typename T>
static int kb_generic_launch(const kb_cuda_step_t *st, void *stream)
{
  kb_gen_args<T> a;
  a.m = st->m;
  a.batch = st->batch;
  a.p = st->p[0];
  a.q = st->q[0];
  a.S = st->K / st->p[0];
  a.F = (const T *)st->F[0];
  a.fs_l = st->fs_l[0];
  a.fs_k = st->fs_k[0];
  a.f_bs = st->f_bs[0];
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
  a.r_fast = st->in_rs == 1 && st->m > 1;
  kb_generic_step<T><<<kb_grid_for(a.m * a.q * a.S * a.batch), kb_generic_threads, 0,
                       (cudaStream_t)stream>>>(a);
  return (int)cudaGetLastError();
}

// ------------------------------------------------------------ fast table

static std::vector<kb_fast_entry> &kb_fast_all(void)
{
  static std::vector<kb_fast_entry> all;
  static std::once_flag once;
  std::call_once(once, [] {
    all.insert(all.end(), kb_fast_table_s, kb_fast_table_s + kb_fast_table_s_n);
    all.insert(all.end(), kb_fast_table_d, kb_fast_table_d + kb_fast_table_d_n);
  });
  return all;
}

static std::vector<kb_cuda_fast_cfg_t> &kb_fast_cfg_list(void)
{
  static std::vector<kb_cuda_fast_cfg_t> cfgs;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const kb_fast_entry &e : kb_fast_all())
      cfgs.push_back(e.cfg);
  });
  return cfgs;
}

// Blocks of a fast kernel that fit on the device at once: its grid, so
// that each block walks several tiles and overlaps their loads.
static std::vector<int> kb_fast_max_blocks;
static std::mutex kb_fast_init_lock;

extern "C" const kb_cuda_fast_cfg_t *kb_cuda_fast_cfgs(int *count)
{
  std::vector<kb_cuda_fast_cfg_t> &c = kb_fast_cfg_list();
  *count = (int)c.size();
  return c.data();
}

extern "C" int kb_cuda_kernels_init(void)
{
  std::lock_guard<std::mutex> lock(kb_fast_init_lock);
  std::vector<kb_fast_entry> &all = kb_fast_all();
  std::vector<kb_cuda_fast_cfg_t> &cfgs = kb_fast_cfg_list();
  int dev = 0, nsm = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess)
    return (int)err;
  kb_fast_max_blocks.assign(all.size(), 0);
  for (size_t i = 0; i < all.size(); i++) {
    int occ = 0, e = all[i].attr(&occ);
    if (e != (int)cudaSuccess)
      return e;
    cfgs[i].occupancy = occ;
    kb_fast_max_blocks[i] = occ > 0 ? occ * nsm : 0;
  }
  return (int)cudaSuccess;
}

// ------------------------------------------------------------- launchers

extern "C" int kb_cuda_launch_step(const kb_cuda_step_t *st, void *stream)
{
  if (st->kernel >= 0) {
    std::vector<kb_fast_entry> &all = kb_fast_all();
    if (st->kernel >= (int)all.size())
      return (int)cudaErrorInvalidValue;
    return all[st->kernel].launch(st, stream,
                                  (size_t)st->kernel < kb_fast_max_blocks.size() ? kb_fast_max_blocks[st->kernel] : 0);
  }
  if (st->nf != 1)
    return (int)cudaErrorInvalidValue;
  switch (st->type) {
  case 0: return kb_generic_launch<float>(st, stream);
  case 1: return kb_generic_launch<double>(st, stream);
  case 2: return kb_generic_launch<float2>(st, stream);
  case 3: return kb_generic_launch<double2>(st, stream);
  }
  return (int)cudaErrorInvalidValue;
}

template <typename T>
static int kb_scale_launch(int64_t m, int64_t L, int64_t batch, void *Y, int64_t ys_m,
                           int64_t ys_l, int64_t y_bs, const void *beta, int dev, int beta_zero,
                           void *stream)
{
  kb_scale_kernel<T><<<kb_grid_for(m * L * batch), kb_generic_threads, 0, (cudaStream_t)stream>>>(
      m, L, batch, (T *)Y, ys_m, ys_l, y_bs, kb_make_scalars<T>(nullptr, beta, dev, beta_zero));
  return (int)cudaGetLastError();
}

extern "C" int kb_cuda_launch_scale(int type, int64_t m, int64_t L, int64_t batch, void *Y,
                                    int64_t ys_m, int64_t ys_l, int64_t y_bs, const void *beta,
                                    int dev_scalars, int beta_zero, void *stream)
{
  switch (type) {
  case 0: return kb_scale_launch<float>(m, L, batch, Y, ys_m, ys_l, y_bs, beta, dev_scalars, beta_zero, stream);
  case 1: return kb_scale_launch<double>(m, L, batch, Y, ys_m, ys_l, y_bs, beta, dev_scalars, beta_zero, stream);
  case 2: return kb_scale_launch<float2>(m, L, batch, Y, ys_m, ys_l, y_bs, beta, dev_scalars, beta_zero, stream);
  case 3: return kb_scale_launch<double2>(m, L, batch, Y, ys_m, ys_l, y_bs, beta, dev_scalars, beta_zero, stream);
  }
  return (int)cudaErrorInvalidValue;
}

template <typename T>
static int kb_xpby_launch(int64_t m, int64_t L, const void *Tm, int64_t ts_m, int64_t ts_l,
                          void *Y, int64_t ys_m, int64_t ys_l, const void *beta, int dev,
                          int beta_zero, void *stream)
{
  kb_xpby_kernel<T><<<kb_grid_for(m * L), kb_generic_threads, 0, (cudaStream_t)stream>>>(
      m, L, (const T *)Tm, ts_m, ts_l, (T *)Y, ys_m, ys_l,
      kb_make_scalars<T>(nullptr, beta, dev, beta_zero));
  return (int)cudaGetLastError();
}

extern "C" int kb_cuda_launch_xpby(int type, int64_t m, int64_t L, const void *Tm, int64_t ts_m,
                                   int64_t ts_l, void *Y, int64_t ys_m, int64_t ys_l,
                                   const void *beta, int dev_scalars, int beta_zero, void *stream)
{
  switch (type) {
  case 0: return kb_xpby_launch<float>(m, L, Tm, ts_m, ts_l, Y, ys_m, ys_l, beta, dev_scalars, beta_zero, stream);
  case 1: return kb_xpby_launch<double>(m, L, Tm, ts_m, ts_l, Y, ys_m, ys_l, beta, dev_scalars, beta_zero, stream);
  case 2: return kb_xpby_launch<float2>(m, L, Tm, ts_m, ts_l, Y, ys_m, ys_l, beta, dev_scalars, beta_zero, stream);
  case 3: return kb_xpby_launch<double2>(m, L, Tm, ts_m, ts_l, Y, ys_m, ys_l, beta, dev_scalars, beta_zero, stream);
  }
  return (int)cudaErrorInvalidValue;
}
