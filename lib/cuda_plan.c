/* cuda_plan.c - the CUDA backend's planner: which factors each launch
 * applies and with which kernel.
 *
 * Factors are taken last first.  A launch is either one factor on the
 * generic kernel or cuBLAS (lib/cuda_cublas.c), or F consecutive equal
 * square factors on a precompiled fast configuration, usable where its input runs along k (X for the first
 * launch when it is contiguous along K; the workspace intermediates always)
 * and the input length is a multiple of its slab.  Among the splits of the
 * factor list into launches, the planner takes the one of least modelled
 * time (dynamic programming over the factor position, which alone fixes the
 * vector length):
 *     bytes moved / bandwidth + flops / rate + launch overhead,
 * divided by the fraction of the GPU the launch fills when it has fewer
 * blocks than fit at once.  Fusing F factors moves the vectors once instead
 * of F times (seed, Section 4.2); that is what the model mostly decides.
 * The rates are round figures for an H100 and only rank the candidates. */
#include "cuda_internal.h"

#include <stdlib.h>

#define KB_BW_TWO_STAGE 2.6e12      /* bytes/s, loads overlapped with math */
#define KB_BW_ONE_STAGE 0.9e12     /* measured: a whole-vector 8^5 slab, 2026-11-21 */
#define KB_BW_GENERIC 0.4e12
#define KB_LAUNCH_S 4e-6

static double kb_rate(const kb_problem_t *pb, int P)
{
  /* FMA rate a sliced multiply reaches: small P spends more on shared
   * memory per FMA. */
  double peak = pb->type == KRONBLAS_R_32F ? 30e12 : 15e12;
  return P >= 64 ? peak : P >= 32 ? 0.8 * peak : 0.6 * peak;
}

/* Modelled seconds of one fast launch at factor i with input length K. */
static double kb_fast_cost(const kb_problem_t *pb, const kb_cuda_fast_cfg_t *c, int nsm, int64_t K)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  double flops = 0, Kf = (double)K, t, fill;
  int f;
  for (f = 0; f < c->F; f++) {
    flops += 2.0 * m * Kf * c->Q;
    Kf = Kf / c->P * c->Q;
  }
  t = m * ((double)K + Kf) * esz / (c->stages == 2 ? KB_BW_TWO_STAGE : KB_BW_ONE_STAGE) +
      flops / kb_rate(pb, c->P);
  fill = (double)(K / c->TK) * (double)((pb->m + c->TM - 1) / c->TM) /
         ((double)nsm * (c->occupancy > 0 ? c->occupancy : 1));
  if (fill < 1.0)
    t /= fill > 0 ? fill : 1e-3;
  return t + KB_LAUNCH_S;
}

/* cuBLAS reaches most of the GEMM rate, FP64 tensor cores for double. */
static double kb_cublas_cost(const kb_problem_t *pb, int64_t i, int64_t K)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  const double Kn = (double)K / pb->p[i] * pb->q[i];
  const double rate = pb->type == KRONBLAS_R_32F ? 33e12 : 40e12;
  return m * ((double)K + Kn) * esz / KB_BW_TWO_STAGE + 2.0 * m * Kn * pb->p[i] / rate + 2 * KB_LAUNCH_S;
}

static double kb_generic_cost(const kb_problem_t *pb, int64_t i, int64_t K)
{
  const double esz = (double)kb_type_size(pb->type), m = (double)pb->m;
  const double Kn = (double)K / pb->p[i] * pb->q[i];
  return m * ((double)K + Kn) * esz / KB_BW_GENERIC + 2.0 * m * Kn * pb->p[i] / 2e12 + KB_LAUNCH_S;
}

typedef struct {
  const kb_problem_t *pb;
  int nsm;
} kb_model_ctx_t;

static double kb_model_cost(void *ctx, int64_t i, int64_t K, int kernel)
{
  const kb_model_ctx_t *mc = ctx;
  int ncfg;
  const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
  if (kernel == KB_KERNEL_CUBLAS)
    return kb_cublas_cost(mc->pb, i, K);
  if (kernel < 0)
    return kb_generic_cost(mc->pb, i, K);
  return kb_fast_cost(mc->pb, &cfg[kernel], mc->nsm, K);
}

int64_t kb_cuda_plan(const kb_problem_t *pb, int policy, int nsm, kb_cuda_pstep_t *steps)
{
  kb_model_ctx_t mc;
  mc.pb = pb;
  mc.nsm = nsm;
  return kb_cuda_plan_with(pb, policy, kb_model_cost, &mc, steps);
}

int64_t kb_cuda_plan_with(const kb_problem_t *pb, int policy, kb_cuda_cost_fn cost, void *ctx,
                          kb_cuda_pstep_t *steps)
{
  const int64_t n = pb->nfactors;
  const int real = pb->type == KRONBLAS_R_32F || pb->type == KRONBLAS_R_64F;
  const int64_t min_run = 32 / (int64_t)kb_type_size(pb->type);   /* a 32-byte sector */
  int ncfg = 0;
  const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
  int64_t i, ns = 0, *Kin, *choice_nf;
  int *choice_k;
  double *best;
  char *mem;

  /* best[i + 1]: least time to apply factors i, i-1, ..., 0; Kin[i]: the
   * vector length when factor i is next. */
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

  best[0] = 0;
  for (i = 0; i < n; i++) {
    const int contig = i < n - 1 || pb->xs_k == 1;
    int64_t run = 1;
    int c;
    best[i + 1] = cost(ctx, i, Kin[i], KB_KERNEL_GENERIC) + best[i];
    choice_nf[i] = 1;
    choice_k[i] = KB_KERNEL_GENERIC;
    if (policy == KRONBLAS_KERNELS_GENERIC || !real || !contig)
      continue;
    while (run < KB_CUDA_MAXF && i - run >= 0 && pb->p[i - run] == pb->p[i] && pb->q[i - run] == pb->q[i])
      run++;
    for (c = 0; c < ncfg && policy != KRONBLAS_KERNELS_CUBLAS; c++) {
      double t;
      if (cfg[c].type != (int)pb->type || cfg[c].P != pb->p[i] || cfg[c].Q != pb->q[i])
        continue;
      if (cfg[c].F > run || Kin[i] % cfg[c].TK != 0)
        continue;
      if (policy == KRONBLAS_KERNELS_NO_FUSION && cfg[c].F != 1)
        continue;
      /* Short output runs waste sectors, unless the slab is the vector. */
      if (cfg[c].run < min_run && cfg[c].TK != Kin[i])
        continue;
      t = cost(ctx, i, Kin[i], c);
      if (t < 0)
        continue;
      t += best[i + 1 - cfg[c].F];
      if (t < best[i + 1]) {
        best[i + 1] = t;
        choice_nf[i] = cfg[c].F;
        choice_k[i] = c;
      }
    }
    if ((policy == KRONBLAS_KERNELS_ALL || policy == KRONBLAS_KERNELS_CUBLAS) &&
        kb_cuda_cublas_usable(pb, pb->p[i], pb->q[i], Kin[i], i == 0)) {
      double t = policy == KRONBLAS_KERNELS_CUBLAS ? 0 : cost(ctx, i, Kin[i], KB_KERNEL_CUBLAS);
      if (t >= 0 && t + best[i] < best[i + 1]) {
        best[i + 1] = t + best[i];
        choice_nf[i] = 1;
        choice_k[i] = KB_KERNEL_CUBLAS;
      }
    }
  }
  for (i = n - 1; i >= 0; i -= choice_nf[i]) {
    steps[ns].i_hi = i;
    steps[ns].nf = (int)choice_nf[i];
    steps[ns].kernel = choice_k[i];
    ns++;
  }
  free(mem);
  return ns;
}
