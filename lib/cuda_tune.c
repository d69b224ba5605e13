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
 * Plans live as long as the handle; the wisdom hooks at the end give them
 * to lib/wisdom.c, which writes and reads them (KRONBLAS_WISDOM_FILE,
 * kronblasExportWisdom / kronblasImportWisdom). */
#include "cuda_internal.h"
#include "kb_wisdom.h"

#include <cuda_runtime_api.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
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

static void kb_plan_list_free(struct kb_cuda_plan_entry **head)
{
  while (*head != NULL) {
    struct kb_cuda_plan_entry *e = *head;
    *head = e->next;
    kb_plan_entry_free(e);
  }
}

void kb_cuda_plans_free(kb_cuda_state_t *cs)
{
  kb_plan_list_free(&cs->plans);
}

void kb_cuda_model_plans_free(kb_cuda_state_t *cs)
{
  kb_plan_list_free(&cs->model_plans);
}

/* What a plan is kept for: every field kb_plan_matches compares. */
typedef struct {
  int type, contig, policy, y_contig, devptr;
  int64_t m, n;
  const int64_t *p, *q;
} kb_plan_key_t;

static void kb_plan_key_of(const kb_problem_t *pb, int policy, kb_plan_key_t *k)
{
  k->type = (int)pb->type;
  k->contig = pb->xs_k == 1;
  k->y_contig = pb->ys_l == 1;
  k->devptr = pb->pointer_mode == KRONBLAS_POINTER_MODE_DEVICE;
  k->policy = policy;
  k->m = pb->m;
  k->n = pb->nfactors;
  k->p = pb->p;
  k->q = pb->q;
}

static int kb_plan_key_eq(const struct kb_cuda_plan_entry *e, const kb_plan_key_t *k)
{
  int64_t i;
  if (e->type != k->type || e->contig != k->contig || e->policy != k->policy ||
      e->y_contig != k->y_contig || e->devptr != k->devptr || e->m != k->m || e->n != k->n)
    return 0;
  for (i = 0; i < k->n; i++)
    if (e->pq[i] != k->p[i] || e->pq[k->n + i] != k->q[i])
      return 0;
  return 1;
}

/* Keeps a copy of the plan, replacing one of the same key; on no memory
 * the plan is simply not kept.  1 if kept. */
static int kb_plan_store(struct kb_cuda_plan_entry **head, const kb_plan_key_t *k,
                         const kb_cuda_pstep_t *steps, int64_t nsteps)
{
  struct kb_cuda_plan_entry *e = calloc(1, sizeof *e), **pp;
  int64_t i, count = 0;
  if (e == NULL)
    return 0;
  e->pq = malloc((size_t)(2 * k->n) * sizeof *e->pq);
  e->steps = malloc((size_t)nsteps * sizeof *e->steps);
  if (e->pq == NULL || e->steps == NULL) {
    kb_plan_entry_free(e);
    return 0;
  }
  e->type = k->type;
  e->contig = k->contig;
  e->y_contig = k->y_contig;
  e->devptr = k->devptr;
  e->policy = k->policy;
  e->m = k->m;
  e->n = k->n;
  for (i = 0; i < k->n; i++) {
    e->pq[i] = k->p[i];
    e->pq[k->n + i] = k->q[i];
  }
  e->nsteps = nsteps;
  memcpy(e->steps, steps, (size_t)nsteps * sizeof *steps);
  for (pp = head; *pp != NULL; pp = &(*pp)->next)
    if (kb_plan_key_eq(*pp, k)) {
      struct kb_cuda_plan_entry *old = *pp;
      *pp = old->next;
      kb_plan_entry_free(old);
      break;
    }
  e->next = *head;
  *head = e;
  /* Bounded: drop the oldest. */
  for (pp = head; *pp != NULL; pp = &(*pp)->next)
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
  return 1;
}

static int kb_plan_remember(kb_cuda_state_t *cs, const kb_problem_t *pb, int policy,
                            const kb_cuda_pstep_t *steps, int64_t nsteps)
{
  kb_plan_key_t k;
  kb_plan_key_of(pb, policy, &k);
  return kb_plan_store(&cs->plans, &k, steps, nsteps);
}

/* Model plans are kept too, in their own list (never exported): planning
 * a shape (the split's dynamic programme, JIT candidates for shapes
 * without a precompiled kernel) costs tens of microseconds on the host,
 * as much as the launches of a small problem. */
int64_t kb_cuda_model_plan(struct kronblasContext *h, const kb_problem_t *pb, kb_cuda_pstep_t *steps)
{
  kb_cuda_state_t *cs = h->backend_state;
  struct kb_cuda_plan_entry *e;
  kb_plan_key_t k;
  int64_t nsteps;
  for (e = cs->model_plans; e != NULL; e = e->next)
    if (kb_plan_matches(e, pb, h->kernel_policy)) {
      memcpy(steps, e->steps, (size_t)e->nsteps * sizeof *steps);
      return e->nsteps;
    }
  nsteps = kb_cuda_plan(pb, h->kernel_policy, cs->nsm, steps);
  kb_plan_key_of(pb, h->kernel_policy, &k);
  (void)kb_plan_store(&cs->model_plans, &k, steps, nsteps);
  return nsteps;
}

typedef struct {
  struct kronblasContext *h;
  const kb_problem_t *pb;
  void *buf0, *buf1;
  cudaEvent_t ev0, ev1;
  kronblasStatus_t st;
  union { float s; double d; float c[2]; double z[2]; } one;
} kb_tune_ctx_t;

static double kb_tune_cost(void *ctxv, int64_t i, int64_t K, int kernel, int nf)
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
  char word[160];

  if (tc->st != KRONBLAS_STATUS_SUCCESS)
    return -1;
  memset(&st, 0, sizeof st);
  st.type = (int)pb->type;
  st.m = pb->m;
  st.batch = 1;
  st.K = K;
  /* every caller passes the kernel's own factor count */
  st.nf = nf;
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
  if (i == pb->nfactors - 1 && pb->xs_k != 1) {
    /* The first launch reads X along m: time that load path. */
    st.in_rs = 1;
    st.in_is = pb->m;
  }
  st.out = tc->buf1;
  st.out_rs = Knext;
  st.out_is = 1;
  if (i + 1 == st.nf && pb->ys_l != 1) {
    /* The last launch writes Y along m: time that store path. */
    st.out_rs = 1;
    st.out_is = pb->m;
  }
  if (kernel == KB_KERNEL_CUBLAS_NAT)
    st.post = kb_cuda_nat_post(pb, i);
  if (kernel == KB_KERNEL_CUBLAS_COL) {
    /* A column-plan step: everything contiguous along m. */
    st.in_rs = 1;
    st.in_is = pb->m;
    st.out_rs = 1;
    st.out_is = pb->m;
  }
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
  (void)kb_cuda_kernel_word(kernel, word, (int)sizeof word);
  kb_log(KB_LOG_INFO, "tune: factors %lld..%lld K=%lld %s %d (%d threads, %d blocks/SM)%s%s%s: %.4f ms",
         (long long)i, (long long)(i - st.nf + 1), (long long)K,
         kernel == KB_KERNEL_GENERIC ? "generic" : kernel == KB_KERNEL_CUBLAS ? "cublas" :
         kernel == KB_KERNEL_CUBLAS_COL ? "cublas_col" : kernel == KB_KERNEL_CUBLAS_NAT ? "cublas_nat" :
         kernel == KB_KERNEL_SMALL ? "small" : kb_cuda_kernel_is_row(kernel) ? "row" :
         kb_cuda_kernel_is_gemm(kernel) ? "gemm" : "config", kernel,
         kernel >= 0 ? cfg[kernel].threads : 0, kernel >= 0 ? cfg[kernel].occupancy : 0, word[0] ? " " : "", word,
         kernel >= 0 && cfg[kernel].variant ? " variant" : "", ms / KB_TUNE_REPS);
  return ms / KB_TUNE_REPS * 1e-3;
}

/* Times the plan of one GEMM step per factor of kind kernel and takes it
 * (into steps, *nsteps) when it beats the measured time of the plan held,
 * *best (then its time). */
static void kb_tune_gemm_plan(kb_tune_ctx_t *tc, int kernel, const char *what, double *best,
                              kb_cuda_pstep_t *steps, int64_t *nsteps)
{
  const kb_problem_t *pb = tc->pb;
  double t = 0;
  int64_t i, K = pb->K;
  for (i = pb->nfactors - 1; i >= 0 && tc->st == KRONBLAS_STATUS_SUCCESS; i--) {
    t += kb_tune_cost(tc, i, K, kernel, 1);
    K = K / pb->p[i] * pb->q[i];
  }
  kb_log(KB_LOG_INFO, "tune: %s %.4f ms, best so far %.4f ms", what, t * 1e3, *best * 1e3);
  if (tc->st == KRONBLAS_STATUS_SUCCESS && t < *best) {
    *nsteps = kb_cuda_gemm_steps(pb, kernel, steps);
    *best = t;
  }
}

/* Times the model's natural-order plan with sub-vector steps
 * (kb_cuda_plan_nat_sub), a launch at a time, the sub-vector ones as
 * launches of the sub-problem; takes it as kb_tune_gemm_plan does. */
static void kb_tune_nat_sub(kb_tune_ctx_t *tc, int nsm, double *best, kb_cuda_pstep_t *steps, int64_t *nsteps)
{
  const kb_problem_t *pb = tc->pb;
  kb_cuda_pstep_t *alt = malloc((size_t)pb->nfactors * sizeof *alt);
  kb_problem_t sub;
  double model = 0, t = 0;
  int64_t na, nsub, g0, j, f, K;
  if (alt == NULL)
    return;
  na = kb_cuda_plan_nat_sub(pb, tc->h->kernel_policy, nsm, alt, &model);
  if (na == 0) {
    free(alt);
    return;
  }
  nsub = kb_cuda_nat_nsub(alt, na);
  g0 = alt[nsub].i_hi + 1;
  kb_cuda_nat_sub(pb, g0, &sub);
  tc->pb = &sub;
  K = sub.K;
  for (j = 0; j < nsub && tc->st == KRONBLAS_STATUS_SUCCESS; j++) {
    t += kb_tune_cost(tc, alt[j].i_hi - g0, K, alt[j].kernel, alt[j].nf);
    for (f = 0; f < alt[j].nf; f++)
      K = K / pb->p[alt[j].i_hi - f] * pb->q[alt[j].i_hi - f];
  }
  tc->pb = pb;
  K = pb->K / sub.K * sub.L;
  for (; j < na && tc->st == KRONBLAS_STATUS_SUCCESS; j++) {
    t += kb_tune_cost(tc, alt[j].i_hi, K, KB_KERNEL_CUBLAS_NAT, 1);
    K = K / pb->p[alt[j].i_hi] * pb->q[alt[j].i_hi];
  }
  kb_log(KB_LOG_INFO, "tune: natural-order plan with factors %lld..%lld on sub-vectors %.4f ms, best so far %.4f ms",
         (long long)(pb->nfactors - 1), (long long)g0, t * 1e3, *best * 1e3);
  if (tc->st == KRONBLAS_STATUS_SUCCESS && t < *best) {
    memcpy(steps, alt, (size_t)na * sizeof *alt);
    *nsteps = na;
    *best = t;
  }
  free(alt);
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
  if (kb_cuda_col_usable(pb, h->kernel_policy) && h->kernel_policy == KRONBLAS_KERNELS_CUBLAS) {
    *nsteps = kb_cuda_gemm_steps(pb, KB_KERNEL_CUBLAS_COL, steps);
  } else {
    double sliced = 0;
    *nsteps = kb_cuda_plan_with(pb, h->kernel_policy, kb_tune_cost, &tc, steps, &sliced);
    /* The column plan (X and Y along m) and the natural-order GEMMs (X and
     * Y along K/L: the per-factor GEMM baseline's way; not in the model,
     * which cannot tell them from the rotated ones: each wins somewhere
     * by 10-15%), timed a GEMM at a time like the split's launches. */
    if (kb_cuda_col_usable(pb, h->kernel_policy))
      kb_tune_gemm_plan(&tc, KB_KERNEL_CUBLAS_COL, "column plan", &sliced, steps, nsteps);
    if (kb_cuda_nat_usable(pb, h->kernel_policy))
      kb_tune_gemm_plan(&tc, KB_KERNEL_CUBLAS_NAT, "natural-order GEMMs", &sliced, steps, nsteps);
    /* and the model's fused launch on sub-vectors before GEMMs, timed */
    if (kb_cuda_nat_sub_usable(pb, h->kernel_policy))
      kb_tune_nat_sub(&tc, cs->nsm, &sliced, steps, nsteps);
  }
  cudaEventDestroy(tc.ev0);
  cudaEventDestroy(tc.ev1);
  st = tc.st;
  if (st == KRONBLAS_STATUS_SUCCESS && kb_plan_remember(cs, pb, h->kernel_policy, steps, *nsteps))
    kb_wisdom_plan_added(h);
  return st;
}

/* ------------------------------------------------------------- wisdom */

/* The measured plans as lib/wisdom.c stores them.  Key (one word per
 * field kb_plan_matches compares):
 *     t<type> xk<X contiguous along K> yl<Y contiguous along L>
 *     dp<device pointer mode> pol<kernel policy> m<m> <p0>x<q0>,<p1>x<q1>,...
 * Plan: one word per launch, in launch order, "i_hi:nf:kernel" with kernel
 * "generic", "cublas", "small:F" (the whole-vector kernel, F == nf),
 * "row:F" (the whole-row kernel: one step of all F == nf factors),
 * "cublas_col" (a step of the column plan: then every step is one, one
 * factor each, and the key's X and Y run along m), "cublas_nat" (a step of
 * the natural-order plan: one factor each, X and Y along K/L, every step
 * after the first one a cublas_nat step too; the steps before it run on
 * sub-vectors, kb_cuda_nat_sub, and are checked against that problem) or a
 * fast configuration as kb_cuda_cfg_format names it.  A plan read back is checked against its key as strictly as the
 * planner builds one, so a file cannot make a launch the kernels do not
 * support. */

#define KB_WISDOM_CUDA_MAXN 1024     /* factors of a key read back */

kronblasStatus_t kb_cuda_wisdom_ident(struct kronblasContext *h, char *buf, size_t size)
{
  kb_cuda_state_t *cs = h->backend_state;
  struct cudaDeviceProp prop;
  int drv = 0, rt = 0, n;
  char *c;
  if (cudaGetDeviceProperties(&prop, cs->device) != cudaSuccess ||
      cudaDriverGetVersion(&drv) != cudaSuccess || cudaRuntimeGetVersion(&rt) != cudaSuccess) {
    (void)cudaGetLastError();
    kb_log(KB_LOG_ERROR, "wisdom: cannot query CUDA device %d", cs->device);
    return KRONBLAS_STATUS_EXECUTION_FAILED;
  }
  prop.name[sizeof prop.name - 1] = '\0';
  for (c = prop.name; *c; c++)
    if (*c < 0x20 || *c > 0x7e)
      *c = '_';
  n = snprintf(buf, size, "device %s\nsm_count %d\ncompute_capability %d.%d\ndriver %d\nruntime %d\n",
               prop.name[0] ? prop.name : "unknown", prop.multiProcessorCount, prop.major,
               prop.minor, drv, rt);
  return n < 0 || (size_t)n >= size ? KRONBLAS_STATUS_INTERNAL_ERROR : KRONBLAS_STATUS_SUCCESS;
}

/* Appends to buf at *len; 0 if it did not fit. */
static int kb_wput(char *buf, size_t size, size_t *len, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;
static int kb_wput(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
  va_list ap;
  int n;
  if (*len >= size)
    return 0;
  va_start(ap, fmt);
  n = vsnprintf(buf + *len, size - *len, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= size - *len)
    return 0;
  *len += (size_t)n;
  return 1;
}

void kb_cuda_wisdom_each(struct kronblasContext *h,
                         void (*put)(void *ctx, const char *key, const char *plan), void *ctx)
{
  kb_cuda_state_t *cs = h->backend_state;
  const struct kb_cuda_plan_entry *e;
  int ncfg;
  const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
  for (e = cs->plans; e != NULL; e = e->next) {
    size_t ksize = 96 + (size_t)e->n * 44, psize = 64 + (size_t)e->nsteps * 200, kl = 0, pl = 0;
    char *key = malloc(ksize), *plan = malloc(psize);
    int ok = key != NULL && plan != NULL;
    int64_t i;
    if (ok)
      ok = kb_wput(key, ksize, &kl, "t%d xk%d yl%d dp%d pol%d m%" PRId64 " ", e->type, e->contig,
                   e->y_contig, e->devptr, e->policy, e->m);
    for (i = 0; ok && i < e->n; i++)
      ok = kb_wput(key, ksize, &kl, "%s%" PRId64 "x%" PRId64, i ? "," : "", e->pq[i], e->pq[e->n + i]);
    for (i = 0; ok && i < e->nsteps; i++) {
      const kb_cuda_pstep_t *s = &e->steps[i];
      char word[200];
      if (s->kernel == KB_KERNEL_GENERIC)
        strcpy(word, "generic");
      else if (s->kernel == KB_KERNEL_SMALL)
        snprintf(word, sizeof word, "small:%d", s->nf);
      else if (s->kernel == KB_KERNEL_ROW)
        snprintf(word, sizeof word, "row:%d", s->nf);
      else if (kb_cuda_kernel_is_row(s->kernel))
        snprintf(word, sizeof word, "row:%d:c%d:t%d%s", s->nf, kb_cuda_row_var_C(s->kernel),
                 kb_cuda_row_var_T(s->kernel), kb_cuda_row_var_PF(s->kernel) > 0 ? ":p" : "");
      else if (s->kernel == KB_KERNEL_CUBLAS)
        strcpy(word, "cublas");
      else if (s->kernel == KB_KERNEL_CUBLAS_COL)
        strcpy(word, "cublas_col");
      else if (s->kernel == KB_KERNEL_CUBLAS_NAT)
        strcpy(word, "cublas_nat");
      else if (kb_cuda_kernel_is_gemm(s->kernel))
        ok = kb_cuda_gemm_word(KB_KERNEL_GEMM_0 - s->kernel, word, (int)sizeof word) > 0;
      else if (s->kernel < 0 || s->kernel >= ncfg || kb_cuda_cfg_format(&cfg[s->kernel], word, (int)sizeof word) < 0)
        ok = 0;
      if (ok)
        ok = kb_wput(plan, psize, &pl, "%s%" PRId64 ":%d:%s", i ? " " : "", s->i_hi, s->nf, word);
    }
    if (ok)
      put(ctx, key, plan);
    else
      kb_log(KB_LOG_WARN, "wisdom: a measured plan could not be written out; skipped");
    free(key);
    free(plan);
  }
}

/* Non-negative decimal at *s, then *s past it; -1 if none or too large. */
static int kb_wnum(const char **s, int64_t max, int64_t *v)
{
  int64_t x = 0;
  const char *p = *s;
  if (*p < '0' || *p > '9')
    return -1;
  while (*p >= '0' && *p <= '9') {
    if (x > (max - (*p - '0')) / 10)
      return -1;
    x = x * 10 + (*p - '0');
    p++;
  }
  *s = p;
  *v = x;
  return 0;
}

/* Word w then a number in [lo, hi]. */
static int kb_wfield(const char **s, const char *w, int64_t lo, int64_t hi, int64_t *v)
{
  size_t n = strlen(w);
  if (strncmp(*s, w, n) != 0)
    return -1;
  *s += n;
  if (kb_wnum(s, hi, v) != 0 || *v < lo)
    return -1;
  if (**s != ' ' && **s != '\0')
    return -1;
  if (**s == ' ')
    (*s)++;
  return 0;
}

kronblasStatus_t kb_cuda_wisdom_add(struct kronblasContext *h, const char *keys, const char *plans)
{
  kb_cuda_state_t *cs = h->backend_state;
  kronblasStatus_t st = KRONBLAS_STATUS_INVALID_VALUE;
  const char *s = keys;
  int64_t v[6], n = 0, i, j, next, nsteps = 0, g0 = 0, pre = 1, msub = 0;
  int64_t *pq = NULL, *Kin = NULL;
  kb_cuda_pstep_t *steps = NULL;
  kb_plan_key_t k;
  kb_problem_t pb;
  int ncfg, real;
  const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
  static const char *const names[6] = { "t", "xk", "yl", "dp", "pol", "m" };
  static const int64_t hi[6] = { 3, 1, 1, 1, 3, INT64_MAX };

  for (i = 0; i < 6; i++)
    if (kb_wfield(&s, names[i], i == 5 ? 1 : 0, hi[i], &v[i]) != 0)
      goto bad;
  /* Factors: count the commas first, then read them. */
  for (n = 1, j = 0; s[j]; j++)
    n += s[j] == ',';
  if (n > KB_WISDOM_CUDA_MAXN)
    goto bad;
  pq = malloc((size_t)(2 * n) * sizeof *pq);
  Kin = malloc((size_t)n * sizeof *Kin);
  steps = malloc((size_t)n * sizeof *steps);
  if (pq == NULL || Kin == NULL || steps == NULL) {
    st = KRONBLAS_STATUS_ALLOC_FAILED;
    goto out;
  }
  for (i = 0; i < n; i++) {
    if (kb_wnum(&s, INT64_MAX, &pq[i]) != 0 || pq[i] < 1 || *s++ != 'x' ||
        kb_wnum(&s, INT64_MAX, &pq[n + i]) != 0 || pq[n + i] < 1 || *s++ != (i == n - 1 ? '\0' : ','))
      goto bad;
  }
  k.type = (int)v[0];
  k.contig = (int)v[1];
  k.y_contig = (int)v[2];
  k.devptr = (int)v[3];
  k.policy = (int)v[4];
  k.m = v[5];
  k.n = n;
  k.p = pq;
  k.q = pq + n;
  /* Vector length before each factor, as the planner has it. */
  Kin[n - 1] = 1;
  for (i = 0; i < n; i++)
    if (__builtin_mul_overflow(Kin[n - 1], k.p[i], &Kin[n - 1]))
      goto bad;
  for (i = n - 1; i > 0; i--)
    if (__builtin_mul_overflow(Kin[i] / k.p[i], k.q[i], &Kin[i - 1]))
      goto bad;
  /* What kb_cuda_cublas_usable looks at. */
  memset(&pb, 0, sizeof pb);
  pb.type = (kronblasDataType_t)k.type;
  pb.pointer_mode = k.devptr ? KRONBLAS_POINTER_MODE_DEVICE : KRONBLAS_POINTER_MODE_HOST;
  pb.ys_l = k.y_contig ? 1 : 2;
  pb.xs_k = k.contig ? 1 : 2;
  pb.xs_m = k.contig ? Kin[n - 1] : 1;
  pb.m = k.m;
  pb.nfactors = n;
  pb.p = k.p;
  pb.q = k.q;
  pb.K = Kin[n - 1];
  real = k.type == KRONBLAS_R_32F || k.type == KRONBLAS_R_64F;
  /* A natural-order plan's steps before its first cublas_nat word run on
   * sub-vectors (kb_cuda_nat_sub): they are checked against the
   * sub-problem of factors g0..n-1 and m * pre vectors. */
  for (s = plans; *s;) {
    const char *w = s;
    int64_t a, b;
    if (kb_wnum(&w, INT64_MAX, &a) == 0 && *w++ == ':' && kb_wnum(&w, INT64_MAX, &b) == 0 && *w++ == ':' &&
        strncmp(w, "cublas_nat", 10) == 0 && (w[10] == ' ' || w[10] == '\0')) {
      if (a >= n)
        goto bad;
      g0 = a + 1;
      break;
    }
    s += strcspn(s, " ");
    if (*s == ' ')
      s++;
  }
  for (i = 0; i < g0 && g0 < n; i++)
    pre *= k.p[i];   /* no overflow: a factor of K */
  if (__builtin_mul_overflow(k.m, pre, &msub))
    goto bad;

  s = plans;
  for (next = n - 1; next >= 0; next -= steps[nsteps++].nf) {
    int64_t ih, nf, mv, Kv, nv, fv;
    char word[200];
    size_t wl;
    int kern, contig, yv;
    if (nsteps > 0 && *s++ != ' ')
      goto bad;
    if (kb_wnum(&s, INT64_MAX, &ih) != 0 || ih != next || *s++ != ':' ||
        kb_wnum(&s, KB_CUDA_MAXF, &nf) != 0 || nf < 1 || nf > ih + 1 || *s++ != ':')
      goto bad;
    wl = strcspn(s, " ");
    if (wl == 0 || wl >= sizeof word)
      goto bad;
    memcpy(word, s, wl);
    word[wl] = '\0';
    s += wl;
    /* The first launch reads X: fast kernels and cuBLAS need it along K. */
    contig = ih < n - 1 || k.contig;
    /* A sub-vector step: its problem's m, vector length, factors (the
     * last nv from fv on) and Y (the intermediates, along L). */
    fv = g0 > 0 && ih >= g0 && g0 < n ? g0 : 0;
    mv = fv ? msub : k.m;
    Kv = Kin[ih] / (fv ? pre : 1);
    nv = n - fv;
    yv = fv ? 1 : k.y_contig;
    pb.m = mv;
    if (strcmp(word, "generic") == 0) {
      kern = KB_KERNEL_GENERIC;
      if (nf != 1)
        goto bad;
    } else if (strncmp(word, "small:", 6) == 0) {
      /* small:F, F == nf, the F factors' intermediates fitting in this
       * device's shared memory; any type and input layout. */
      const char *w = word + 6;
      int64_t F, pf[KB_CUDA_MAXF], qf[KB_CUDA_MAXF];
      kb_cuda_small_geom_t g;
      kern = KB_KERNEL_SMALL;
      if (*w == '0' || kb_wnum(&w, KB_CUDA_MAXF, &F) != 0 || *w != '\0' || F != nf ||
          (k.policy != KRONBLAS_KERNELS_ALL && !(k.policy == KRONBLAS_KERNELS_NO_FUSION && nf == 1)))
        goto bad;
      for (j = 0; j < nf; j++) {
        pf[j] = k.p[ih - j];
        qf[j] = k.q[ih - j];
      }
      if (kb_cuda_small_geom(k.type, mv, 1, Kv, (int)nf, pf, qf, &g) != 0)
        goto bad;
    } else if (strncmp(word, "row:", 4) == 0) {
      /* row:F, one step of every factor (F == nf == n), X along K, Y along
       * L, the row and the factors fitting in this device's shared memory;
       * row:F:cC:tT, the same in clusters of C blocks of T threads;
       * row:F:cC:tT:p, and the next vector prefetched. */
      const char *w = word + 4;
      int64_t F, C = 0, T = 0;
      kb_cuda_row_geom_t g;
      kern = KB_KERNEL_ROW;
      if (*w == '0' || kb_wnum(&w, KB_CUDA_MAXF, &F) != 0 || F != nf || nf != nv ||
          ih != n - 1 || !real || !k.contig || !yv || k.policy != KRONBLAS_KERNELS_ALL)
        goto bad;
      if (strncmp(w, ":c", 2) == 0) {
        w += 2;
        if (*w == '0' || kb_wnum(&w, 8, &C) != 0 || strncmp(w, ":t", 2) != 0)
          goto bad;
        w += 2;
        if (*w == '0' || kb_wnum(&w, 512, &T) != 0 || T % 64 != 0)
          goto bad;
        kern = kb_cuda_row_var_kernel((int)C, (int)T, strcmp(w, ":p") == 0);
        if (strcmp(w, ":p") == 0)
          w += 2;
      }
      if (*w != '\0' || kb_cuda_row_geom_k(kern, k.type, mv, 1, Kv, (int)nf, k.p + fv, k.q + fv, &g) != 0)
        goto bad;
    } else if (strcmp(word, "cublas_nat") == 0) {
      /* The whole plan is the natural-order plan (checked below). */
      kern = KB_KERNEL_CUBLAS_NAT;
      pb.m = k.m;
      if (nf != 1 || !kb_cuda_nat_usable(&pb, k.policy))
        goto bad;
    } else if (strcmp(word, "cublas_col") == 0) {
      /* The whole plan is the column plan (checked below). */
      kern = KB_KERNEL_CUBLAS_COL;
      if (nf != 1 || !kb_cuda_col_usable(&pb, k.policy))
        goto bad;
    } else if (strncmp(word, "gemm:", 5) == 0) {
      /* gemm:..., one float factor on the slice-GEMM kernel (two on its
       * pair kernel, ":f2", three on its trip8 or trip16 kernel, ":f3",
       * four on its quad8 kernel, ":f4"): X along K, Y along L, host
       * scalars (kb_cuda_gemm_usable). */
      const int gi = kb_cuda_gemm_parse(word);
      kern = KB_KERNEL_GEMM_0 - gi;
      if (gi < 0 || nf != kb_cuda_gemm_info(gi)->F || !real ||
          (k.policy != KRONBLAS_KERNELS_ALL && (k.policy != KRONBLAS_KERNELS_NO_FUSION || nf != 1)) ||
          !kb_cuda_gemm_usable(&pb, ih, Kv, gi))
        goto bad;
    } else if (strcmp(word, "cublas") == 0) {
      kern = KB_KERNEL_CUBLAS;
      if (nf != 1 || !real || !contig ||
          (k.policy != KRONBLAS_KERNELS_ALL && k.policy != KRONBLAS_KERNELS_CUBLAS) ||
          !kb_cuda_cublas_usable(&pb, k.p[ih], k.q[ih], Kv, ih == 0))
        goto bad;
    } else {
      const kb_cuda_fast_cfg_t *c;
      kern = kb_cuda_cfg_parse(word);
      /* Parsing may have registered a JIT configuration: count again. */
      cfg = kb_cuda_fast_cfgs(&ncfg);
      if (kern < 0 || kern >= ncfg) {
        kb_log(KB_LOG_WARN, "wisdom: kernel %s is not in this build", word);
        goto bad;
      }
      c = &cfg[kern];
      /* Configurations with enough vectors per block also load X
       * contiguous along m (kb_cuda_cfg_mrows). */
      if (!real || (!contig && !(ih == n - 1 && kb_cuda_cfg_mrows(c))) ||
          k.policy == KRONBLAS_KERNELS_GENERIC ||
          k.policy == KRONBLAS_KERNELS_CUBLAS ||
          (k.policy == KRONBLAS_KERNELS_NO_FUSION && c->F != 1) || c->type != k.type ||
          c->F != nf || c->TK <= 0 || Kv % c->TK != 0)
        goto bad;
      /* Output runs shorter than a vector (the whole-vector configurations:
       * 8^5, 32^3, 64^2) are contiguous only where the slab is the whole
       * vector, or where the outputs go along m through shared memory
       * (kb_fast.cuh, epilogue_m); anywhere else their vector stores would
       * land in the wrong places, so the planners never take them there. */
      if (c->run % c->vw != 0 && c->TK != Kv && !(!yv && ih + 1 == nf && kb_cuda_cfg_mstore(c)))
        goto bad;
      for (j = ih; j > ih - nf; j--)
        if (k.p[j] != c->P || k.q[j] != c->Q)
          goto bad;
    }
    steps[nsteps].i_hi = ih;
    steps[nsteps].nf = (int)nf;
    steps[nsteps].kernel = kern;
  }
  if (*s != '\0')
    goto bad;
  /* Column plans are all column steps; natural-order plans end in
   * cublas_nat steps only, after their sub-vector steps, if any. */
  for (j = 0; j < nsteps; j++)
    if ((steps[j].kernel == KB_KERNEL_CUBLAS_COL) != (steps[0].kernel == KB_KERNEL_CUBLAS_COL) ||
        (j > 0 && steps[j - 1].kernel == KB_KERNEL_CUBLAS_NAT && steps[j].kernel != KB_KERNEL_CUBLAS_NAT))
      goto bad;
  st = kb_plan_store(&cs->plans, &k, steps, nsteps) ? KRONBLAS_STATUS_SUCCESS : KRONBLAS_STATUS_ALLOC_FAILED;
  goto out;
bad:
  kb_log(KB_LOG_WARN, "wisdom: CUDA plan '%s' for '%s' is malformed or does not fit its key",
         plans, keys);
  st = KRONBLAS_STATUS_INVALID_VALUE;
out:
  free(pq);
  free(Kin);
  free(steps);
  return st;
}

void kb_cuda_wisdom_forget(struct kronblasContext *h)
{
  kb_cuda_plans_free(h->backend_state);
}
