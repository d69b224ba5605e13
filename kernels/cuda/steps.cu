// steps.cu - the generic sliced-multiply kernel (any type, shape, stride
// and conjugation), the scale and blend kernels, the registry of fast
// configurations (precompiled and JIT), and the launcher that sends a step
// to the generic kernel or to a fast configuration.
#include "kb_cuda_kernels.h"
#include "kb_cuda_ops.cuh"
#include "kb_fast.cuh"

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>

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
  const kb_epi_vals<T> ep = kb_epi_start(a.sc);
  if (ep.azero && a.epilogue == KB_EPI_NONE)
    return;
  const T alpha = ep.alpha, beta = ep.beta;
  const bool azero = ep.azero, bzero = ep.bzero;
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

// ------------------------------------------------------ config registry
//
// The precompiled table first, then configurations added at run time (JIT,
// lib/cuda_jit.c).  A fixed array: the planner and the tuner hold indices
// and pointers into it while other threads add entries, so it never moves;
// an entry is written before the count that publishes it.

static kb_cuda_fast_cfg_t kb_cfgs[KB_CUDA_MAX_CFGS];
static std::atomic<int> kb_ncfg(0);
static int kb_ntable;
static std::once_flag kb_cfg_once;
static std::mutex kb_cfg_lock;
// Blocks of a precompiled kernel that fit on the device at once: its grid,
// so that each block walks several tiles and overlaps their loads.
static int kb_fast_max_blocks[KB_CUDA_MAX_CFGS];
static std::mutex kb_fast_init_lock;

static const kb_fast_entry *kb_table_entry(int i)
{
  return i < kb_fast_table_s_n ? &kb_fast_table_s[i] : &kb_fast_table_d[i - kb_fast_table_s_n];
}

// Blocks per SM before a JIT kernel is loaded: shared memory and threads of
// an H100-class SM, registers at ~48 besides the accumulators.  Only ranks
// candidates; the real figure replaces it once the kernel is loaded.
static int kb_cfg_occupancy_estimate(const kb_cuda_fast_cfg_t *c)
{
  int occ = 2048 / c->threads;
  int by_smem = 233472 / (c->smem + 1024);
  int by_regs = 65536 / (c->threads * (c->RM * c->RK * c->RQ + 48));
  if (by_smem < occ) occ = by_smem;
  if (by_regs < occ) occ = by_regs;
  if (occ > 32) occ = 32;
  return occ > 0 ? occ : 1;
}

static void kb_cfg_init(void)
{
  std::call_once(kb_cfg_once, [] {
    int i, n = kb_fast_table_s_n + kb_fast_table_d_n;
    // Until kb_cuda_kernels_init measures them on the device, the
    // precompiled ones carry the estimate JIT ones do, so that a plan made
    // without a device (tests, tools/jit-time) prices blocks alone on their
    // SM as a device would.
    for (i = 0; i < n && i < KB_CUDA_MAX_CFGS; i++) {
      kb_cfgs[i] = kb_table_entry(i)->cfg;
      kb_cfgs[i].occupancy = kb_cfg_occupancy_estimate(&kb_cfgs[i]);
    }
    kb_ntable = i;
    kb_ncfg.store(i, std::memory_order_release);
  });
}

extern "C" const kb_cuda_fast_cfg_t *kb_cuda_fast_cfgs(int *count)
{
  kb_cfg_init();
  *count = kb_ncfg.load(std::memory_order_acquire);
  return kb_cfgs;
}

static int kb_cfg_esz(int type) { return type == 0 ? 4 : 8; }

// Same kernel: every field that is a template argument.
static bool kb_cfg_same(const kb_cuda_fast_cfg_t *a, const kb_cuda_fast_cfg_t *b)
{
  return a->type == b->type && a->P == b->P && a->Q == b->Q && a->F == b->F && a->TK == b->TK &&
         a->TM == b->TM && a->TP == b->TP && a->RK == b->RK && a->RQ == b->RQ && a->RM == b->RM &&
         a->stages == b->stages && a->unroll == b->unroll && a->vw == b->vw;
}

extern "C" int kb_cuda_cfg_complete(kb_cuda_fast_cfg_t *c)
{
  int64_t pf = 1, elems;
  int esz, V, NS, f;
  if (c->type != 0 && c->type != 1)
    return -1;
  esz = kb_cfg_esz(c->type);
  V = c->vw;
  if ((V != 1 && V != 2 && V != 4) || V * esz > 16)
    return -1;
  if (c->P < 1 || c->Q < 1 || c->P > 1024 || c->Q > 1024 || c->F < 1 || c->F > KB_CUDA_MAXF ||
      c->TP < 1 || c->RK < 1 || c->RQ < 1 || c->RM < 1 || c->TM < 1 || c->TM > 64 ||
      c->TK < 1 || c->TK > (1 << 20) || (c->stages != 1 && c->stages != 2) || c->unroll < 1 ||
      c->unroll > 64)
    return -1;
  if (c->TK % c->P != 0)
    return -1;
  NS = c->TK / c->P;
  if (c->P % c->TP || c->TP % V || c->RK % V || c->RQ % V || c->P % V || c->Q % V || NS % c->RK ||
      c->Q % c->RQ || c->TM % c->RM)
    return -1;
  if (c->F > 1 && !(c->TP == c->P && c->P == c->Q))
    return -1;
  for (f = 0; f < c->F; f++) {
    pf *= c->P;
    if (pf > c->TK)
      return -1;
  }
  if (c->TK % pf != 0)
    return -1;
  // A vector store holds V consecutive outputs of one run.
  if ((c->TK / pf) % V != 0)
    return -1;
  if (c->RM * c->RK * c->RQ > 256)   // accumulators: registers spill beyond this
    return -1;
  c->threads = (c->TM / c->RM) * (NS / c->RK) * (c->Q / c->RQ);
  if (c->threads < 32 || c->threads > 1024)
    return -1;
  elems = kb_cuda_cfg_smem_elems(c);
  if (elems * esz > 227 * 1024)
    return -1;
  c->smem = (int)(elems * esz);
  c->run = (int)(c->TK / pf);
  return 0;
}

extern "C" int kb_cuda_cfg_add(const kb_cuda_fast_cfg_t *cfg)
{
  kb_cuda_fast_cfg_t c = *cfg;
  int i, n;
  kb_cfg_init();
  if (kb_cuda_cfg_complete(&c) != 0)
    return -1;
  std::lock_guard<std::mutex> lock(kb_cfg_lock);
  n = kb_ncfg.load(std::memory_order_acquire);
  for (i = 0; i < n; i++)
    if (kb_cfg_same(&kb_cfgs[i], &c)) {
      // Wanted by the model too (kb_jit_candidates): no longer tuner-only.
      if (!c.variant)
        kb_cfgs[i].variant = 0;
      return i;
    }
  if (n >= KB_CUDA_MAX_CFGS)
    return -1;
  c.jit = KB_CFG_JIT;
  c.occupancy = kb_cfg_occupancy_estimate(&c);
  kb_cfgs[n] = c;
  kb_ncfg.store(n + 1, std::memory_order_release);
  return n;
}

extern "C" int kb_cuda_cfg_format(const kb_cuda_fast_cfg_t *c, char *buf, int size)
{
  int n = snprintf(buf, (size_t)size, "fast:t%d:p%d:q%d:f%d:tk%d:tm%d:tp%d:rk%d:rq%d:rm%d:st%d:xu%d",
                   c->type, c->P, c->Q, c->F, c->TK, c->TM, c->TP, c->RK, c->RQ, c->RM,
                   c->stages, c->unroll);
  // The vector width only where it is not the precompiled set's 16 bytes,
  // so that their words stay as they were.
  if (n >= 0 && n < size && (c->type == 0 || c->type == 1) && c->vw != 16 / kb_cfg_esz(c->type))
    n += snprintf(buf + n, (size_t)(size - n), ":vw%d", c->vw);
  return n < 0 || n >= size ? -1 : n;
}

extern "C" int kb_cuda_cfg_parse(const char *word)
{
  kb_cuda_fast_cfg_t c;
  const kb_cuda_fast_cfg_t *cfgs;
  char buf[160];
  int n = 0, ncfg, i;
  if (word == NULL)
    return -1;
  memset(&c, 0, sizeof c);
  if (sscanf(word, "fast:t%d:p%d:q%d:f%d:tk%d:tm%d:tp%d:rk%d:rq%d:rm%d:st%d:xu%d%n", &c.type, &c.P,
             &c.Q, &c.F, &c.TK, &c.TM, &c.TP, &c.RK, &c.RQ, &c.RM, &c.stages, &c.unroll, &n) != 12)
    return -1;
  if (c.type != 0 && c.type != 1)
    return -1;
  c.vw = 16 / kb_cfg_esz(c.type);
  if (word[n] != '\0') {
    int m = 0;
    if (sscanf(word + n, ":vw%d%n", &c.vw, &m) != 1 || word[n + m] != '\0')
      return -1;
  }
  // Only the canonical spelling (no signs, spaces or leading zeros).
  if (kb_cuda_cfg_format(&c, buf, (int)sizeof buf) < 0 || strcmp(buf, word) != 0)
    return -1;
  cfgs = kb_cuda_fast_cfgs(&ncfg);
  for (i = 0; i < ncfg; i++)
    if (kb_cfg_same(&cfgs[i], &c))
      return cfgs[i].jit == KB_CFG_JIT_FAILED ? -1 : i;
  if (kb_cuda_cfg_complete(&c) != 0 || !kb_cuda_jit_available())
    return -1;
  return kb_cuda_cfg_add(&c);
}

extern "C" int kb_cuda_kernels_init(void)
{
  std::lock_guard<std::mutex> lock(kb_fast_init_lock);
  int dev = 0, nsm = 0, i;
  cudaError_t err;
  kb_cfg_init();
  err = cudaGetDevice(&dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess)
    return (int)err;
  for (i = 0; i < kb_ntable; i++) {
    int occ = 0, e = kb_table_entry(i)->attr(&occ);
    if (e != (int)cudaSuccess)
      return e;
    kb_cfgs[i].occupancy = occ;
    kb_fast_max_blocks[i] = occ > 0 ? occ * nsm : 0;
  }
  return (int)cudaSuccess;
}

// ------------------------------------------------------------- launchers

template <typename T>
static int kb_jit_launch_t(const void *fn, const kb_cuda_fast_cfg_t *c, const kb_cuda_step_t *st,
                           void *stream, int max_blocks)
{
  kb_fast_args<T> a;
  void *args[1] = { &a };
  if (st->in_is != 1 && !kb_cuda_cfg_mrows(c))
    return (int)cudaErrorInvalidValue;   // the planner never sends such a step here
  kb_fast_fill_args<T>(&a, st, c->F, c->vw);
  return (int)cudaLaunchKernel(fn, dim3(kb_fast_grid(st, c->TK, c->TM, max_blocks)), dim3(c->threads),
                               args, (size_t)c->smem, (cudaStream_t)stream);
}

// A run-time configuration: its kernel is compiled (or read from the disk
// cache) at its first launch on this device.
static int kb_jit_launch(const kb_cuda_step_t *st, void *stream)
{
  kb_cuda_fast_cfg_t *c = &kb_cfgs[st->kernel];
  const void *fn = nullptr;
  int max_blocks = 0;
  int err = kb_cuda_jit_kernel(st->kernel, c, &fn, &max_blocks);
  if (err != (int)cudaSuccess)
    return err;
  switch (c->type) {
  case 0: return kb_jit_launch_t<float>(fn, c, st, stream, max_blocks);
  case 1: return kb_jit_launch_t<double>(fn, c, st, stream, max_blocks);
  }
  return (int)cudaErrorInvalidValue;
}

extern "C" int kb_cuda_launch_step(const kb_cuda_step_t *st, void *stream)
{
  if (st->kernel >= 0) {
    int n;
    (void)kb_cuda_fast_cfgs(&n);
    if (st->kernel >= n)
      return (int)cudaErrorInvalidValue;
    if (st->kernel >= kb_ntable)
      return kb_jit_launch(st, stream);
    return kb_table_entry(st->kernel)->launch(st, stream, kb_fast_max_blocks[st->kernel]);
  }
  if (st->kernel == KB_KERNEL_SMALL)
    return kb_cuda_small_launch(st, stream);
  if (kb_cuda_kernel_is_row(st->kernel))
    return kb_cuda_row_launch(st, stream);
  if (kb_cuda_kernel_is_gemm(st->kernel))
    return kb_cuda_gemm_launch(st, stream);
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
