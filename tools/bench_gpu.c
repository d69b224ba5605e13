/* bench_gpu.c - kronblas-bench's GPU mode: kronblas on the CUDA backend, the
 * cuBLAS baselines (per-factor strided-batched GEMMs; the shuffle with a
 * transpose kernel from bench_gpu_kernels.cu) on the same device buffers,
 * CUDA-event timing, and the device's ceilings measured in the same run.
 * Written in C against the cudart and cuBLAS C APIs; without CUDA only
 * stubs are built. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "kb_bench.h"
#include "../tests/kb_oracle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_CUDA

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

static struct {
  int open;
  cudaStream_t stream;
  cublasHandle_t cublas;
  cudaEvent_t e0, e1;
} kb_gpu;

int kb_bench_gpu_built(void)
{
  return 1;
}

int kb_bench_gpu_open(char *desc, size_t len)
{
  struct cudaDeviceProp prop;
  int n = 0, dev = 0, drv = 0, rt = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    snprintf(desc, len, "%s", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    return 0;
  }
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    snprintf(desc, len, "cannot query the device");
    return 0;
  }
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  snprintf(desc, len, "%s (sm_%d%d, %d SMs, %.0f GiB, driver %d.%d, runtime %d.%d)", prop.name,
           prop.major, prop.minor, prop.multiProcessorCount,
           (double)prop.totalGlobalMem / 1073741824.0, drv / 1000, drv % 1000 / 10, rt / 1000,
           rt % 1000 / 10);
  if (cudaStreamCreateWithFlags(&kb_gpu.stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaEventCreate(&kb_gpu.e0) != cudaSuccess || cudaEventCreate(&kb_gpu.e1) != cudaSuccess) {
    snprintf(desc, len, "cannot create a stream or events");
    return 0;
  }
  if (cublasCreate(&kb_gpu.cublas) != CUBLAS_STATUS_SUCCESS) {
    snprintf(desc, len, "cublasCreate failed");
    return 0;
  }
  cublasSetStream(kb_gpu.cublas, kb_gpu.stream);
  cublasSetMathMode(kb_gpu.cublas, CUBLAS_DEFAULT_MATH);
  kb_gpu.open = 1;
  return 1;
}

void kb_bench_gpu_close(void)
{
  if (!kb_gpu.open)
    return;
  cublasDestroy(kb_gpu.cublas);
  cudaEventDestroy(kb_gpu.e0);
  cudaEventDestroy(kb_gpu.e1);
  cudaStreamDestroy(kb_gpu.stream);
  kb_gpu.open = 0;
}

static void kb_gpu_tic(void)
{
  cudaEventRecord(kb_gpu.e0, kb_gpu.stream);
}

/* ms since kb_gpu_tic; NaN if the stream failed. */
static double kb_gpu_toc(void)
{
  float ms = 0.0f;
  cudaEventRecord(kb_gpu.e1, kb_gpu.stream);
  if (cudaEventSynchronize(kb_gpu.e1) != cudaSuccess ||
      cudaEventElapsedTime(&ms, kb_gpu.e0, kb_gpu.e1) != cudaSuccess)
    return NAN;
  return (double)ms;
}

static cublasOperation_t kb_gpu_op(char op)
{
  return op == 'N' ? CUBLAS_OP_N : op == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}

/* C = op(A) op(B), column-major, batch entries sa/sb/sc apart; one plain
 * GEMM when batch is 1. */
static cublasStatus_t kb_gpu_gemm(kronblasDataType_t type, char opa, char opb, int64_t M, int64_t N,
    int64_t Kd, const void *A, int64_t lda, long long sa, const void *B, int64_t ldb, long long sb,
    void *C, int64_t ldc, long long sc, int64_t batch)
{
  static const float s1[2] = { 1.0f, 0.0f }, s0[2] = { 0.0f, 0.0f };
  static const double d1[2] = { 1.0, 0.0 }, d0[2] = { 0.0, 0.0 };
  cublasHandle_t h = kb_gpu.cublas;
  cublasOperation_t ta = kb_gpu_op(opa), tb = kb_gpu_op(opb);
  int m = (int)M, n = (int)N, k = (int)Kd, b = (int)batch;
  switch (type) {
  case KRONBLAS_R_32F:
    if (batch == 1)
      return cublasSgemm(h, ta, tb, m, n, k, s1, A, (int)lda, B, (int)ldb, s0, C, (int)ldc);
    return cublasSgemmStridedBatched(h, ta, tb, m, n, k, s1, A, (int)lda, sa, B, (int)ldb, sb, s0, C,
                                     (int)ldc, sc, b);
  case KRONBLAS_R_64F:
    if (batch == 1)
      return cublasDgemm(h, ta, tb, m, n, k, d1, A, (int)lda, B, (int)ldb, d0, C, (int)ldc);
    return cublasDgemmStridedBatched(h, ta, tb, m, n, k, d1, A, (int)lda, sa, B, (int)ldb, sb, d0, C,
                                     (int)ldc, sc, b);
  case KRONBLAS_C_32F:
    if (batch == 1)
      return cublasCgemm(h, ta, tb, m, n, k, (const cuComplex *)s1, A, (int)lda, B, (int)ldb,
                         (const cuComplex *)s0, C, (int)ldc);
    return cublasCgemmStridedBatched(h, ta, tb, m, n, k, (const cuComplex *)s1, A, (int)lda, sa, B,
                                     (int)ldb, sb, (const cuComplex *)s0, C, (int)ldc, sc, b);
  default:
    if (batch == 1)
      return cublasZgemm(h, ta, tb, m, n, k, (const cuDoubleComplex *)d1, A, (int)lda, B, (int)ldb,
                         (const cuDoubleComplex *)d0, C, (int)ldc);
    return cublasZgemmStridedBatched(h, ta, tb, m, n, k, (const cuDoubleComplex *)d1, A, (int)lda, sa,
                                     B, (int)ldb, sb, (const cuDoubleComplex *)d0, C, (int)ldc, sc, b);
  }
}

/* Enqueues a baseline plan on the bench stream; 0, or -1 with why. */
static int kb_gpu_run_plan(const kb_bench_prob_t *pb, const kb_bench_plan_t *pl, const void *X,
    void *const *F, void *Y, void *W0, void *W1, char *why, size_t whylen)
{
  const size_t esz = pb->esz;
  int i;
  for (i = 0; i < pl->nops; i++) {
    const kb_bench_op_t *o = &pl->op[i];
    const void *ins[4] = { X, Y, W0, W1 };
    void *outs[4] = { NULL, Y, W0, W1 };
    const char *src = ins[o->src];
    char *dst = outs[o->dst];
    if (o->kind == KB_BENCH_OP_PERMUTE) {
      int e = kb_bench_cuda_permute(src, dst, esz, o->inner, o->d1, o->d2, o->outer, kb_gpu.stream);
      if (e != 0) {
        snprintf(why, whylen, "transpose kernel: %s", cudaGetErrorString((cudaError_t)e));
        return -1;
      }
    } else {
      int64_t done = 0;
      /* cuBLAS counts a batch in int */
      while (done < o->batch) {
        int64_t nb = o->batch - done > (1 << 30) ? (1 << 30) : o->batch - done;
        const char *data = src + (size_t)(done * o->sd) * esz;
        cublasStatus_t st = kb_gpu_gemm(pb->type, o->opa, o->opb, o->M, o->N, o->Kd,
                                        o->data_is_a ? (const void *)data : F[o->factor], o->lda,
                                        o->data_is_a ? o->sd : 0,
                                        o->data_is_a ? F[o->factor] : (const void *)data, o->ldb,
                                        o->data_is_a ? 0 : o->sd,
                                        dst + (size_t)(done * o->sc) * esz, o->ldc, o->sc, nb);
        if (st != CUBLAS_STATUS_SUCCESS) {
          snprintf(why, whylen, "cuBLAS GEMM failed (status %d)", (int)st);
          return -1;
        }
        done += nb;
      }
    }
  }
  return 0;
}

double kb_bench_gpu_gemm_rate(kronblasDataType_t type, int calls)
{
  const int cplx = kb_oracle_type_is_complex(type);
  const int dbl = type == KRONBLAS_R_64F || type == KRONBLAS_C_64F;
  const size_t esz = kb_oracle_type_size(type);
  int64_t n = cplx ? 4096 : 8192;
  void *a = NULL, *b = NULL, *c = NULL;
  double t[5], rate = 0.0;
  int rep, ok = 1;

  for (; n >= 1024; n /= 2) {
    size_t bytes = (size_t)(n * n) * esz;
    if (cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
        cudaMalloc(&c, bytes) == cudaSuccess)
      break;
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    a = b = c = NULL;
    cudaGetLastError();
  }
  if (a == NULL)
    return 0.0;
  kb_bench_cuda_fill(a, n * n * (cplx ? 2 : 1), dbl, 1, kb_gpu.stream);
  kb_bench_cuda_fill(b, n * n * (cplx ? 2 : 1), dbl, 2, kb_gpu.stream);
  /* FFMA (FP32) or DFMA rate: pedantic math keeps TF32 off */
  cublasSetMathMode(kb_gpu.cublas, CUBLAS_PEDANTIC_MATH);
  for (rep = -2; rep < 5 && ok; rep++) {
    double ms;
    int k;
    kb_gpu_tic();
    for (k = 0; k < calls && ok; k++)
      ok = kb_gpu_gemm(type, 'N', 'N', n, n, n, a, n, 0, b, n, 0, c, n, 0, 1) == CUBLAS_STATUS_SUCCESS;
    ms = kb_gpu_toc() / calls;
    if (rep >= 0)
      t[rep] = ms;
  }
  cublasSetMathMode(kb_gpu.cublas, CUBLAS_DEFAULT_MATH);
  if (ok)
    rate = 2.0 * (double)n * (double)n * (double)n * (cplx ? 4.0 : 1.0) / (1e-3 * kb_bench_median(t, 5));
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return isfinite(rate) ? rate : 0.0;
}

double kb_bench_gpu_copy_bw(int calls)
{
  size_t freeb = 0, totalb = 0, bytes = (size_t)1 << 30;
  void *a = NULL, *b = NULL;
  double t[10], bw = 0.0;
  int rep;
  cudaMemGetInfo(&freeb, &totalb);
  while (bytes > freeb / 4 && bytes > ((size_t)1 << 24))
    bytes /= 2;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
    cudaFree(a);
    cudaGetLastError();
    return 0.0;
  }
  cudaMemsetAsync(a, 1, bytes, kb_gpu.stream);
  for (rep = -2; rep < 10; rep++) {
    double ms;
    int k;
    kb_gpu_tic();
    for (k = 0; k < calls; k++)
      cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, kb_gpu.stream);
    ms = kb_gpu_toc() / calls;
    if (rep >= 0)
      t[rep] = ms;
  }
  bw = 2.0 * (double)bytes / (1e-3 * kb_bench_median(t, 10));
  cudaFree(a);
  cudaFree(b);
  return isfinite(bw) ? bw : 0.0;
}

static void *kb_gpu_host_alloc(int64_t count, size_t esz)
{
  size_t bytes = ((size_t)(count > 0 ? count : 1) * esz + 63) & ~(size_t)63;
  return aligned_alloc(64, bytes);
}

static void *kb_gpu_dev_alloc(int64_t count, size_t esz)
{
  void *p = NULL;
  if (cudaMalloc(&p, (size_t)(count > 0 ? count : 1) * esz) != cudaSuccess) {
    cudaGetLastError();
    return NULL;
  }
  return p;
}

/* Runs one baseline, checks it (against kronblas' result hY, or with the
 * oracle when kronblas did not run) and times it. */
static void kb_gpu_baseline(const kb_bench_prob_t *pb, const kb_bench_opts_t *o, const kb_bench_plan_t *pl,
    const void *dX, void *const *dF, void *dYb, void *dW0, void *dW1, const void *hX,
    const void *const *hF, const void *hY, void *hYb, double bound, double *ms, double *err, int *bad,
    char *note, size_t notelen)
{
  double *t = malloc((size_t)o->reps * sizeof *t);
  int rep;
  if (t == NULL) {
    snprintf(note, notelen, "n/a: out of memory");
    return;
  }
  cudaMemsetAsync(dYb, 0xff, (size_t)pb->ycount * pb->esz, kb_gpu.stream);
  if (kb_gpu_run_plan(pb, pl, dX, dF, dYb, dW0, dW1, note, notelen) != 0)
    goto out;
  if (cudaMemcpyAsync(hYb, dYb, (size_t)pb->ycount * pb->esz, cudaMemcpyDeviceToHost, kb_gpu.stream) !=
          cudaSuccess ||
      cudaStreamSynchronize(kb_gpu.stream) != cudaSuccess) {
    *bad = 1;
    snprintf(note, notelen, "failed on the device: %s", cudaGetErrorString(cudaGetLastError()));
    goto out;
  }
  if (hY != NULL) {
    *err = kb_bench_max_diff(pb, hY, hYb);
    if (!(*err <= bound)) {
      *bad = 1;
      snprintf(note, notelen, "MISMATCH with kronblas: max |diff| %.3g > bound %.3g", *err, bound);
      goto out;
    }
  } else {
    kb_bench_result_t v;
    kb_bench_result_init(&v);
    kb_bench_verify(pb, hX, hF, hYb, o->seed, &v);
    if (strcmp(v.verify, "PASS")) {
      *bad = 1;
      snprintf(note, notelen, "FAILS verification: %s", v.verify_msg);
      goto out;
    }
    snprintf(note, notelen, "verified (%s)", v.verify_msg);
  }
  for (rep = -o->warmup; rep < o->reps; rep++) {
    double tm;
    int c;
    kb_gpu_tic();
    for (c = 0; c < o->calls; c++)
      kb_gpu_run_plan(pb, pl, dX, dF, dYb, dW0, dW1, note, notelen);
    tm = kb_gpu_toc() / o->calls;
    if (rep >= 0)
      t[rep] = tm;
  }
  *ms = kb_bench_median(t, o->reps);
out:
  free(t);
}

int kb_bench_gpu_row(kronblasHandle_t h, const kb_bench_prob_t *pb, const kb_bench_opts_t *o,
    kb_bench_result_t *r)
{
  const size_t esz = pb->esz;
  void *hX = NULL, *hY = NULL, *hYb = NULL, *hF[KB_BENCH_MAXF] = { NULL };
  void *dX = NULL, *dY = NULL, *dYb = NULL, *dW0 = NULL, *dW1 = NULL, *dF[KB_BENCH_MAXF] = { NULL };
  kb_bench_plan_t *shuf = NULL, *gemm = NULL;
  double *t = NULL, base, extra, hostneed, limit = o->max_mem, hostlimit;
  size_t freeb = 0, totalb = 0, ws = 0;
  int baselines = o->baselines, i, rep, rc = 0;
  kronblasStatus_t st;

  r->backend = "cuda";
  r->threads = 0;
  r->calls = o->calls;
  if (h == NULL)
    snprintf(r->note, sizeof r->note, "cuda backend not available");
  cudaMemGetInfo(&freeb, &totalb);
  if (limit <= 0.0)
    limit = 0.9 * (double)freeb;
  hostlimit = 0.7 * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (kb_bench_row_begin(h, pb, o->reps, r, &ws, &shuf, &gemm, &t, &base, &extra) != 0)
    return 0;
  hostneed = (double)(pb->xcount + 2 * pb->ycount) * (double)esz;
  if (base > limit || hostneed > hostlimit) {
    snprintf(r->note, sizeof r->note,
             "skipped: needs %.1f GiB on the device (limit %.1f) and %.1f GiB on the host (limit %.1f)",
             base / 1073741824.0, limit / 1073741824.0, hostneed / 1073741824.0, hostlimit / 1073741824.0);
    goto out;
  }
  if (baselines && (shuf->ok || gemm->ok) && base + extra > limit) {
    baselines = 0;
    snprintf(r->shuffle_note, sizeof r->shuffle_note,
             "skipped: baselines need %.1f GiB more device memory", extra / 1073741824.0);
    snprintf(r->gemm_note, sizeof r->gemm_note, "%s", r->shuffle_note);
  }

  hX = kb_gpu_host_alloc(pb->xcount, esz);
  hY = kb_gpu_host_alloc(pb->ycount, esz);
  hYb = kb_gpu_host_alloc(pb->ycount, esz);
  dX = kb_gpu_dev_alloc(pb->xcount, esz);
  dY = kb_gpu_dev_alloc(pb->ycount, esz);
  for (i = 0; i < pb->n; i++) {
    hF[i] = kb_gpu_host_alloc(pb->fcount[i], esz);
    dF[i] = kb_gpu_dev_alloc(pb->fcount[i], esz);
    if (hF[i] == NULL || dF[i] == NULL)
      break;
  }
  if (hX == NULL || hY == NULL || hYb == NULL || dX == NULL || dY == NULL || i < pb->n) {
    snprintf(r->note, sizeof r->note, "skipped: memory could not be had");
    goto out;
  }
  kb_bench_fill(pb, o->seed, hX, hF);
  {
    cudaError_t e = cudaMemcpy(dX, hX, (size_t)pb->xcount * esz, cudaMemcpyHostToDevice);
    for (i = 0; i < pb->n && e == cudaSuccess; i++)
      e = cudaMemcpy(dF[i], hF[i], (size_t)pb->fcount[i] * esz, cudaMemcpyHostToDevice);
    /* a copy from pageable memory may still be in flight when cudaMemcpy
     * returns, and the bench stream does not wait for the legacy stream */
    if (e == cudaSuccess)
      e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      snprintf(r->note, sizeof r->note, "copying the inputs to the device failed: %s", cudaGetErrorString(e));
      rc = -1;
      goto out;
    }
  }

  if (h != NULL) {
    kronblasSetStream(h, kb_gpu.stream);
    if (o->verify) {
      /* NaN (unwritten elements show), or 0 where beta != 0 (read) */
      cudaMemsetAsync(dY, pb->beta != 0.0 ? 0 : 0xff, (size_t)pb->ycount * esz, kb_gpu.stream);
      st = kb_bench_call(h, pb, dX, (const void *const *)dF, dY);
      if (st == KRONBLAS_STATUS_SUCCESS &&
          cudaMemcpyAsync(hY, dY, (size_t)pb->ycount * esz, cudaMemcpyDeviceToHost, kb_gpu.stream) == cudaSuccess &&
          cudaStreamSynchronize(kb_gpu.stream) == cudaSuccess) {
        kb_bench_verify(pb, hX, (const void *const *)hF, hY, o->seed, r);
      } else {
        r->verify = "FAIL";
        snprintf(r->verify_msg, sizeof r->verify_msg, "kronblas returned %s, device: %s",
                 kronblasGetStatusName(st), cudaGetErrorString(cudaGetLastError()));
        snprintf(r->note, sizeof r->note, "kronblas failed");
        rc = -1;
        goto out;
      }
    }
    for (rep = -o->warmup; rep < o->reps; rep++) {
      double tm;
      int c;
      kb_gpu_tic();
      st = KRONBLAS_STATUS_SUCCESS;
      for (c = 0; c < o->calls && st == KRONBLAS_STATUS_SUCCESS; c++)
        st = kb_bench_call(h, pb, dX, (const void *const *)dF, dY);
      tm = kb_gpu_toc() / o->calls;
      if (st != KRONBLAS_STATUS_SUCCESS || !isfinite(tm)) {
        snprintf(r->note, sizeof r->note, "kronblas failed: %s, device: %s", kronblasGetStatusName(st),
                 cudaGetErrorString(cudaGetLastError()));
        rc = -1;
        goto out;
      }
      if (rep >= 0)
        t[rep] = tm;
    }
    r->ran = 1;
    r->ms = kb_bench_median(t, o->reps);
    r->gflops = pb->flops / (r->ms * 1e-3) / 1e9;
    /* The timed calls added into Y where beta != 0: the baselines are
     * checked against one call from Y = 0. */
    if (pb->beta != 0.0 && baselines) {
      cudaMemsetAsync(dY, 0, (size_t)pb->ycount * esz, kb_gpu.stream);
      st = kb_bench_call(h, pb, dX, (const void *const *)dF, dY);
      if (st != KRONBLAS_STATUS_SUCCESS || cudaStreamSynchronize(kb_gpu.stream) != cudaSuccess) {
        snprintf(r->note, sizeof r->note, "kronblas failed: %s, device: %s", kronblasGetStatusName(st),
                 cudaGetErrorString(cudaGetLastError()));
        rc = -1;
        goto out;
      }
    }
    if (cudaMemcpy(hY, dY, (size_t)pb->ycount * esz, cudaMemcpyDeviceToHost) != cudaSuccess) {
      snprintf(r->note, sizeof r->note, "copying Y back failed");
      rc = -1;
      goto out;
    }
  }

  if (!baselines)
    goto out;
  if (!shuf->ok)
    snprintf(r->shuffle_note, sizeof r->shuffle_note, "n/a: %s", shuf->why);
  if (!gemm->ok)
    snprintf(r->gemm_note, sizeof r->gemm_note, "n/a: %s", gemm->why);
  if (!shuf->ok && !gemm->ok)
    goto out;
  dYb = kb_gpu_dev_alloc(pb->ycount, esz);
  dW0 = kb_gpu_dev_alloc(pb->m * pb->smax, esz);
  dW1 = kb_gpu_dev_alloc(pb->m * pb->smax, esz);
  if (dYb == NULL || dW0 == NULL || dW1 == NULL) {
    snprintf(r->shuffle_note, sizeof r->shuffle_note, "skipped: device memory could not be had");
    snprintf(r->gemm_note, sizeof r->gemm_note, "skipped: device memory could not be had");
    goto out;
  }
  r->err_bound = kb_bench_abs_bound(pb, hX, (const void *const *)hF, pb->cplx ? 4.0 : 2.0);
  if (shuf->ok)
    kb_gpu_baseline(pb, o, shuf, dX, dF, dYb, dW0, dW1, hX, (const void *const *)hF, r->ran ? hY : NULL,
                    hYb, r->err_bound, &r->shuffle_ms, &r->shuffle_err, &r->shuffle_bad, r->shuffle_note,
                    sizeof r->shuffle_note);
  if (gemm->ok)
    kb_gpu_baseline(pb, o, gemm, dX, dF, dYb, dW0, dW1, hX, (const void *const *)hF, r->ran ? hY : NULL,
                    hYb, r->err_bound, &r->gemm_ms, &r->gemm_err, &r->gemm_bad, r->gemm_note,
                    sizeof r->gemm_note);
out:
  cudaStreamSynchronize(kb_gpu.stream);
  cudaFree(dX);
  cudaFree(dY);
  cudaFree(dYb);
  cudaFree(dW0);
  cudaFree(dW1);
  for (i = 0; i < pb->n; i++) {
    cudaFree(dF[i]);
    free(hF[i]);
  }
  free(hX);
  free(hY);
  free(hYb);
  kb_bench_row_end(shuf, gemm, t);
  return rc;
}

#else /* !HAVE_CUDA */

int kb_bench_gpu_built(void)
{
  return 0;
}

int kb_bench_gpu_open(char *desc, size_t len)
{
  snprintf(desc, len, "built without CUDA");
  return 0;
}

void kb_bench_gpu_close(void)
{
}

double kb_bench_gpu_gemm_rate(kronblasDataType_t type, int calls)
{
  (void)type;
  (void)calls;
  return 0.0;
}

double kb_bench_gpu_copy_bw(int calls)
{
  (void)calls;
  return 0.0;
}

int kb_bench_gpu_row(kronblasHandle_t h, const kb_bench_prob_t *pb, const kb_bench_opts_t *o,
    kb_bench_result_t *r)
{
  (void)h;
  (void)pb;
  (void)o;
  snprintf(r->note, sizeof r->note, "built without CUDA");
  return -1;
}

#endif /* HAVE_CUDA */
