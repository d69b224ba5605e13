/* t-cuda-wisdom.c - tuning results of the CUDA backend: a handle in
 * MEASURE mode tunes a few shapes (fast kernels, cuBLAS under the CUBLAS
 * policy, double), exports them; a fresh handle imports them, exports the
 * same records and computes bit for bit what the tuning handle computed
 * (and what the CPU computes, within rounding); a file whose device line
 * was edited is NOT_SUPPORTED; plans that do not fit their key or name a
 * kernel this build lacks are skipped.  SKIPs without a GPU. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <kronblas.h>
#include <cuda_runtime_api.h>

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "kb_testwisdom.h"

typedef struct {
  kronblasDataType_t type;   /* R_32F or R_64F */
  kronblasKernelPolicy_t policy;
  int m, n, pq;
} tw_shape_t;

static const tw_shape_t tw_shapes[3] = {
  { KRONBLAS_R_32F, KRONBLAS_KERNELS_ALL, 64, 3, 16 },   /* fast kernels, fused */
  { KRONBLAS_R_64F, KRONBLAS_KERNELS_ALL, 32, 2, 16 },
  { KRONBLAS_R_32F, KRONBLAS_KERNELS_CUBLAS, 8, 2, 32 },
};

/* Runs shape s on h (device buffers when dev) with fixed inputs; the
 * result into host y (K*m elements). */
static kronblasStatus_t tw_run(kronblasHandle_t h, int dev, const tw_shape_t *s, void *y)
{
  const size_t esz = s->type == KRONBLAS_R_32F ? 4 : 8;
  int64_t K = 1, i, j;
  int p[8], ldf[8];
  void *hx, *hf, *x = NULL, *f = NULL, *yy = NULL;
  const void *F[8];
  const double one = 1, zero = 0;
  const float onef = 1, zerof = 0;
  kronblasStatus_t st = KRONBLAS_STATUS_ALLOC_FAILED;
  for (i = 0; i < s->n; i++) {
    p[i] = s->pq;
    ldf[i] = s->pq;
    K *= s->pq;
  }
  hx = malloc((size_t)(K * s->m) * esz);
  hf = malloc((size_t)(s->n * s->pq * s->pq) * esz);
  for (i = 0; i < K * s->m; i++) {
    double v = (double)((i * 7919) % 61) / 61.0 - 0.5;
    if (esz == 4) ((float *)hx)[i] = (float)v; else ((double *)hx)[i] = v;
  }
  for (j = 0; j < s->n * s->pq * s->pq; j++) {
    double v = (double)((j * 104729) % 53) / 53.0 - 0.5;
    if (esz == 4) ((float *)hf)[j] = (float)v; else ((double *)hf)[j] = v;
  }
  if (dev) {
    if (cudaMalloc(&x, (size_t)(K * s->m) * esz) != cudaSuccess ||
        cudaMalloc(&f, (size_t)(s->n * s->pq * s->pq) * esz) != cudaSuccess ||
        cudaMalloc(&yy, (size_t)(K * s->m) * esz) != cudaSuccess)
      goto out;
    cudaMemcpy(x, hx, (size_t)(K * s->m) * esz, cudaMemcpyHostToDevice);
    cudaMemcpy(f, hf, (size_t)(s->n * s->pq * s->pq) * esz, cudaMemcpyHostToDevice);
  } else {
    x = hx;
    f = hf;
    yy = y;
  }
  for (i = 0; i < s->n; i++)
    F[i] = (const char *)f + (size_t)(i * s->pq * s->pq) * esz;
  kronblasSetKernelPolicy(h, s->policy);
  if (esz == 4)
    st = kronblasSgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, p, p, &onef,
                        x, (int)K, (const float *const *)F, ldf, &zerof, yy, (int)K);
  else
    st = kronblasDgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, s->m, s->n, p, p, &one,
                        x, (int)K, (const double *const *)F, ldf, &zero, yy, (int)K);
  if (dev && st == KRONBLAS_STATUS_SUCCESS &&
      cudaMemcpy(y, yy, (size_t)(K * s->m) * esz, cudaMemcpyDeviceToHost) != cudaSuccess)
    st = KRONBLAS_STATUS_EXECUTION_FAILED;
out:
  if (dev) {
    cudaFree(x);
    cudaFree(f);
    cudaFree(yy);
  }
  free(hx);
  free(hf);
  return st;
}

static int64_t tw_len(const tw_shape_t *s)
{
  int64_t K = 1;
  int i;
  for (i = 0; i < s->n; i++)
    K *= s->pq;
  return K * s->m;
}

int main(void)
{
  kronblasHandle_t h1 = NULL, h2 = NULL, hc = NULL;
  char dir[64], p1[96], p2[96], p3[96];
  char *b1, *b2, *e;
  int ndev = 0, s, all_same = 1, all_close = 1, all_ok = 1;
  kronblasStatus_t st;
  void *y1[3], *y2[3], *yc[3];

  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1)
    tap_skip_all("no usable CUDA device");
  if (kronblasCreateWithBackend(&h1, KRONBLAS_BACKEND_CUDA) != KRONBLAS_STATUS_SUCCESS)
    tap_skip_all("the CUDA backend does not start here");
  tap_plan(10);
  strcpy(dir, "t-cuda-wisdom.XXXXXX");
  if (mkdtemp(dir) == NULL)
    return 1;
  snprintf(p1, sizeof p1, "%s/a.wisdom", dir);
  snprintf(p2, sizeof p2, "%s/b.wisdom", dir);
  snprintf(p3, sizeof p3, "%s/c.wisdom", dir);
  kronblasCreateWithBackend(&h2, KRONBLAS_BACKEND_CUDA);
  kronblasCreateWithBackend(&hc, KRONBLAS_BACKEND_CPU);

  kronblasSetTuningMode(h1, KRONBLAS_TUNING_MEASURE);
  for (s = 0; s < 3; s++) {
    size_t bytes = (size_t)tw_len(&tw_shapes[s]) * (tw_shapes[s].type == KRONBLAS_R_32F ? 4 : 8);
    y1[s] = calloc(1, bytes);
    y2[s] = calloc(1, bytes);
    yc[s] = calloc(1, bytes);
    all_ok &= tw_run(h1, 1, &tw_shapes[s], y1[s]) == KRONBLAS_STATUS_SUCCESS;
  }
  tap_ok(all_ok, "the tuning handle runs every shape");
  st = kronblasExportWisdom(h1, p1);
  b1 = tw_read(p1, NULL);
  tap_ok(st == KRONBLAS_STATUS_SUCCESS && b1 && strstr(b1, "\nrecords 3\n") && strstr(b1, "\nident device ") &&
         strstr(b1, "\nident sm_count ") && strstr(b1, "\nident compute_capability ") &&
         strstr(b1, "\nident driver ") && strstr(b1, "\nbackend cuda\n"),
         "export: 3 records, device identity in the header (%s)", kronblasGetStatusName(st));
  if (b1 != NULL)
    tap_diag("wisdom file:\n%s", b1);

  kronblasSetTuningMode(h2, KRONBLAS_TUNING_MEASURE);
  st = kronblasImportWisdom(h2, p1);
  tap_ok(st == KRONBLAS_STATUS_SUCCESS, "a fresh handle imports it (%s)", kronblasGetStatusName(st));
  st = kronblasExportWisdom(h2, p2);
  b2 = tw_read(p2, NULL);
  tap_ok(st == KRONBLAS_STATUS_SUCCESS && tw_records(b1) && tw_records(b2) &&
         strcmp(tw_records(b1), tw_records(b2)) == 0, "and exports the same records");
  free(b2);
  for (s = 0; s < 3; s++) {
    const tw_shape_t *sh = &tw_shapes[s];
    int64_t i, len = tw_len(sh);
    size_t esz = sh->type == KRONBLAS_R_32F ? 4 : 8;
    double tol = (sh->type == KRONBLAS_R_32F ? 1e-5 : 1e-13) * sh->pq * sh->n;
    all_ok &= tw_run(h2, 1, sh, y2[s]) == KRONBLAS_STATUS_SUCCESS;
    all_ok &= tw_run(hc, 0, sh, yc[s]) == KRONBLAS_STATUS_SUCCESS;
    if (memcmp(y1[s], y2[s], (size_t)len * esz) != 0)
      all_same = 0;
    for (i = 0; i < len; i++) {
      double a = esz == 4 ? ((float *)y2[s])[i] : ((double *)y2[s])[i];
      double c = esz == 4 ? ((float *)yc[s])[i] : ((double *)yc[s])[i];
      if (!(fabs(a - c) <= tol * (1 + fabs(c))))
        all_close = 0;
    }
  }
  tap_ok(all_ok, "the importing handle runs every shape");
  tap_ok(all_same, "its results are bit for bit the tuning handle's (same plans)");
  tap_ok(all_close, "and agree with the CPU backend");

  /* Another device: NOT_SUPPORTED, the handle unchanged. */
  e = b1 ? strstr(b1, "\nident device ") : NULL;
  if (e != NULL) {
    e += strlen("\nident device ");
    *e = *e == 'X' ? 'Y' : 'X';
    tw_resign(b1);
    tw_write(p3, b1, strlen(b1));
  }
  st = kronblasImportWisdom(h2, p3);
  tap_ok(e != NULL && st == KRONBLAS_STATUS_NOT_SUPPORTED, "edited device line: NOT_SUPPORTED (%s)",
         kronblasGetStatusName(st));

  /* Plans that cannot run here are skipped: every kernel name made
   * unknown, every step index shifted. */
  {
    char *b = tw_read(p1, NULL), *r = (char *)tw_records(b), *c;
    kronblasHandle_t h3 = NULL;
    kronblasCreateWithBackend(&h3, KRONBLAS_BACKEND_CUDA);
    for (c = r; c && *c; c++) {
      if (strncmp(c, "fast:t", 6) == 0)
        c[5] = 'T';
      if (c[0] == '\t' && c[1] >= '0' && c[1] <= '8')
        c[1]++;
    }
    if (b != NULL) {
      tw_resign(b);
      tw_write(p3, b, strlen(b));
    }
    st = kronblasImportWisdom(h3, p3);
    free(b);
    b = NULL;
    unlink(p2);   /* a file of the same identity would be merged */
    if (st == KRONBLAS_STATUS_SUCCESS && kronblasExportWisdom(h3, p2) == KRONBLAS_STATUS_SUCCESS)
      b = tw_read(p2, NULL);
    tap_ok(st == KRONBLAS_STATUS_SUCCESS && b != NULL && strstr(b, "\nrecords 0\n") != NULL,
           "plans that do not fit their key are skipped (%s)", kronblasGetStatusName(st));
    free(b);
    kronblasDestroy(h3);
  }
  st = kronblasForgetWisdom(h2);
  b2 = NULL;
  unlink(p2);
  if (st == KRONBLAS_STATUS_SUCCESS && kronblasExportWisdom(h2, p2) == KRONBLAS_STATUS_SUCCESS)
    b2 = tw_read(p2, NULL);
  tap_ok(b2 != NULL && strstr(b2, "\nrecords 0\n") != NULL, "Forget drops the plans");
  free(b2);

  free(b1);
  for (s = 0; s < 3; s++) {
    free(y1[s]);
    free(y2[s]);
    free(yc[s]);
  }
  unlink(p1);
  unlink(p2);
  unlink(p3);
  rmdir(dir);
  kronblasDestroy(h1);
  kronblasDestroy(h2);
  kronblasDestroy(hc);
  return tap_done();
}
