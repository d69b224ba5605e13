/* cuda_tune.c - measured planning for the CUDA backend (seed, Section 4.3)
 * and the handle's cache of measured plans.
 *
 * The first call of a problem key on a handle in KRONBLAS_TUNING_MEASURE
 * mode times every usable launch at every factor position (the generic
 * kernel and each precompiled configuration that fits) with CUDA events on
 * the handle's stream, reading one workspace buffer and writing another
 * (the factors are the call's own: their layout decides the kernels' load
 * width), and keeps the split of least measured time.  That call waits for
 * the device; later calls of the key reuse the plan and stay asynchronous.
 * Timing reads the factors even in device pointer mode with alpha = 0 on
 * the device, where the call proper would not: they must be valid memory.
 * Plans live as long as the handle; they are not written to disk yet. */
#include "cuda_internal.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#define KB_TUNE_REPS 3
#define KB_TUNE_MAX_PLANS 256

struct kb_cuda_plan_entry {
  struct kb_cuda_plan_entry *next;
  int type, contig, policy;
  int y_contig, devptr;      /* what decides whether cuBLAS may write Y */
  int64_t m, n;
  int64_t *pq;               /* p[0..n), q[0..n) */
  int64_t nsteps;
  kb_cuda_pstep_t *steps;
};

static int kb_plan_matches(const struct kb_cuda_plan_entry *e, const kb_problem_t *pb, int policy)
{
  int64_t i;
  if (e->type != (int)pb->type || e->contig != (pb->xs_k == 1) || e->policy != policy ||
      e->y_contig != (pb->ys_l == 1) || e->devptr != (pb->pointer_mode == KRONBLAS_POINTER_MODE_DEVICE) ||
      e->m != pb->m || e->n != pb->nfactors)
    return 0;
  for (i = 0; i < pb->nfactors; i++)
    if (e->pq[i] != pb->p[i] || e->pq[pb->nfactors + i] != pb->q[i])
      return 0;
  return 1;
}

int64_t kb_cuda_plan_cached(struct kronblasContext *h, const kb_problem_t *pb, kb_cuda_pstep_t *steps)
{
  kb_cuda_state_t *cs = h->backend_state;
  struct kb_cuda_plan_entry *e;
  for (e = cs->plans; e != NULL; e = e->next)
    if (kb_plan_matches(e, pb, h->kernel_policy)) {
      memcpy(steps, e->steps, (size_t)e->nsteps * sizeof *steps);
      return e->nsteps;
    }
  return 0;
}

static void kb_plan_entry_free(struct kb_cuda_plan_entry *e)
{
  free(e->pq);
  free(e->steps);
  free(e);
}

void kb_cuda_plans_free(kb_cuda_state_t *cs)
{
  while (cs->plans != NULL) {
    struct kb_cuda_plan_entry *e = cs->plans;
    cs->plans = e->next;
    kb_plan_entry_free(e);
  }
}

/* Keeps a copy of the plan; on no memory the plan is simply not kept. */
static void kb_plan_remember(kb_cuda_state_t *cs, const kb_problem_t *pb, int policy,
                             const kb_cuda_pstep_t *steps, int64_t nsteps)
{
  struct kb_cuda_plan_entry *e = calloc(1, sizeof *e), **pp;
  int64_t i, count = 0;
  if (e == NULL)
    return;
  e->pq = malloc((size_t)(2 * pb->nfactors) * sizeof *e->pq);
  e->steps = malloc((size_t)nsteps * sizeof *e->steps);
  if (e->pq == NULL || e->steps == NULL) {
    kb_plan_entry_free(e);
    return;
  }
  e->type = (int)pb->type;
  e->contig = pb->xs_k == 1;
  e->y_contig = pb->ys_l == 1;
  e->devptr = pb->pointer_mode == KRONBLAS_POINTER_MODE_DEVICE;
  e->policy = policy;
  e->m = pb->m;
  e->n = pb->nfactors;
  for (i = 0; i < pb->nfactors; i++) {
    e->pq[i] = pb->p[i];
    e->pq[pb->nfactors + i] = pb->q[i];
  }
  e->nsteps = nsteps;
  memcpy(e->steps, steps, (size_t)nsteps * sizeof *steps);
  e->next = cs->plans;
  cs->plans = e;
  /* Bounded: drop the oldest. */
  for (pp = &cs->plans; *pp != NULL; pp = &(*pp)->next)
    if (++count > KB_TUNE_MAX_PLANS) {
      struct kb_cuda_plan_entry *old = *pp;
      *pp = NULL;
      while (old != NULL) {
        struct kb_cuda_plan_entry *nx = old->next;
        kb_plan_entry_free(old);
        old = nx;
      }
      break;
    }
}

typedef struct {
  struct kronblasContext *h;
  const kb_problem_t *pb;
  void *buf0, *buf1;
  cudaEvent_t ev0, ev1;
  kronblasStatus_t st;
  union { float s; double d; float c[2]; double z[2]; } one;
} kb_tune_ctx_t;

static double kb_tune_cost(void *ctxv, int64_t i, int64_t K, int kernel)
{
  kb_tune_ctx_t *tc = ctxv;
  const kb_problem_t *pb = tc->pb;
  kb_cuda_state_t *cs = tc->h->backend_state;
  int ncfg;
  const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
  kb_cuda_step_t st;
  cudaError_t err = cudaSuccess;
  float ms = 0;
  int f, r;
  int64_t Knext = K;

  if (tc->st != KRONBLAS_STATUS_SUCCESS)
    return -1;
  memset(&st, 0, sizeof st);
  st.type = (int)pb->type;
  st.m = pb->m;
  st.batch = 1;
  st.K = K;
  st.nf = kernel < 0 ? 1 : cfg[kernel].F;   /* generic and cuBLAS: one factor */
  for (f = 0; f < st.nf; f++) {
    st.p[f] = pb->p[i - f];
    st.q[f] = pb->q[i - f];
    st.F[f] = pb->F[i - f];
    st.fs_l[f] = pb->fs_l[i - f];
    st.fs_k[f] = pb->fs_k[i - f];
    Knext = Knext / st.p[f] * st.q[f];
  }
  st.conjF = pb->conjF;
  st.in = tc->buf0;
  st.in_rs = K;
  st.in_is = 1;
  st.out = tc->buf1;
  st.out_rs = Knext;
  st.out_is = 1;
  st.epilogue = KB_EPI_NONE;
  st.alpha = &tc->one;
  st.beta = &tc->one;
  st.kernel = kernel;
  err = (cudaError_t)kb_cuda_step(cs, &st, tc->h->stream);   /* warm-up */
  if (err == cudaSuccess)
    err = cudaEventRecord(tc->ev0, (cudaStream_t)tc->h->stream);
  for (r = 0; r < KB_TUNE_REPS && err == cudaSuccess; r++)
    err = (cudaError_t)kb_cuda_step(cs, &st, tc->h->stream);
  if (err == cudaSuccess)
    err = cudaEventRecord(tc->ev1, (cudaStream_t)tc->h->stream);
  if (err == cudaSuccess)
    err = cudaEventSynchronize(tc->ev1);
  if (err == cudaSuccess)
    err = cudaEventElapsedTime(&ms, tc->ev0, tc->ev1);
  if (err != cudaSuccess) {
    kb_log(KB_LOG_ERROR, "tuning launch failed: %s", cudaGetErrorString(err));
    tc->st = KRONBLAS_STATUS_EXECUTION_FAILED;
    return -1;
  }
  kb_log(KB_LOG_INFO, "tune: factors %lld..%lld K=%lld %s %d: %.4f ms", (long long)i,
         (long long)(i - st.nf + 1), (long long)K, kernel == KB_KERNEL_GENERIC ? "generic" : kernel == KB_KERNEL_CUBLAS ? "cublas" : "config", kernel,
         ms / KB_TUNE_REPS);
  return ms / KB_TUNE_REPS * 1e-3;
}

kronblasStatus_t kb_cuda_tune(struct kronblasContext *h, const kb_problem_t *pb,
                              kb_cuda_pstep_t *steps, int64_t *nsteps)
{
  kb_cuda_state_t *cs = h->backend_state;
  kb_tune_ctx_t tc;
  size_t esz = kb_type_size(pb->type), buf;
  int64_t i, pre = pb->K, suf = 1, smax = 0, G = 1;
  void *ws = NULL;
  kronblasStatus_t st;

  /* Two buffers of m times the longest vector. */
  for (i = pb->nfactors - 1; i >= 0; i--) {
    pre /= pb->p[i];
    suf *= pb->q[i];
    if (pre * suf > smax) smax = pre * suf;
  }
  if (pb->K > smax) smax = pb->K;
  buf = ((size_t)(smax * pb->m) * esz + 255) & ~(size_t)255;
  if (kb_cuda_workspace_get(h, 2 * buf, 1, &ws, &G) != KRONBLAS_STATUS_SUCCESS) {
    /* A user workspace sized for the call (which reads X in place) can be
     * too small to time the first launch on copies: plan by the model. */
    kb_log(KB_LOG_WARN, "no workspace to tune in (%zu bytes); planning by the model", 2 * buf);
    *nsteps = kb_cuda_plan(pb, h->kernel_policy, cs->nsm, steps);
    return KRONBLAS_STATUS_SUCCESS;
  }
  memset(&tc, 0, sizeof tc);
  tc.h = h;
  tc.pb = pb;
  tc.buf0 = ws;
  tc.buf1 = (char *)ws + buf;
  tc.st = KRONBLAS_STATUS_SUCCESS;
  if (pb->type == KRONBLAS_R_32F || pb->type == KRONBLAS_C_32F)
    tc.one.c[0] = 1.0f;
  else
    tc.one.z[0] = 1.0;
  /* A non-zero, finite input: timing on zeros or NaN can differ. */
  if (cudaMemsetAsync(ws, 0x3f, 2 * buf, (cudaStream_t)h->stream) != cudaSuccess ||
      cudaEventCreate(&tc.ev0) != cudaSuccess) {
    (void)cudaGetLastError();
    return KRONBLAS_STATUS_EXECUTION_FAILED;
  }
  if (cudaEventCreate(&tc.ev1) != cudaSuccess) {
    (void)cudaGetLastError();
    cudaEventDestroy(tc.ev0);
    return KRONBLAS_STATUS_EXECUTION_FAILED;
  }
  *nsteps = kb_cuda_plan_with(pb, h->kernel_policy, kb_tune_cost, &tc, steps);
  cudaEventDestroy(tc.ev0);
  cudaEventDestroy(tc.ev1);
  st = tc.st;
  if (st == KRONBLAS_STATUS_SUCCESS)
    kb_plan_remember(cs, pb, h->kernel_policy, steps, *nsteps);
  return st;
}
