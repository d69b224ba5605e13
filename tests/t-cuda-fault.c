/* t-cuda-fault.c - failures inside the CUDA backend come back as status
 * codes, write nothing to Y, and leave the handle usable.
 *
 * Faults are injected with KRONBLAS_FAULT (lib/env.c), set here before the
 * library first reads the environment: the first device workspace
 * allocation fails, and so do the 2nd and 10th launches.  The kernel
 * policy is GENERIC so that the launches are countable: one per factor,
 * and while tuning one warm-up plus three timed launches per candidate.
 *   call A: allocation 1 fails               -> ALLOC_FAILED, Y untouched
 *   call B: launch 2 (its 2nd factor) fails  -> EXECUTION_FAILED, Y untouched
 *   call C: launches 3-5                     -> SUCCESS, equal to the CPU
 *   call D: measured tuning, launch 10 fails -> EXECUTION_FAILED, Y untouched
 *   call E: tunes again and runs             -> SUCCESS, equal to the CPU
 * SKIPs without a CUDA device. */
#include <kronblas.h>
#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define NF 3
static const int64_t P[NF] = { 5, 4, 3 }, Q[NF] = { 2, 6, 7 };
enum { M = 7, K = 60, L = 84 };

static float hX[M * K], hF[NF][64], hY0[M * L], hYc[M * L], hYg[M * L];
static float *dX, *dY, *dF[NF];

static kronblasStatus_t call(kronblasHandle_t h, const float *X, float *const *F, float *Y)
{
  const float alpha = 0.75f, beta = -0.5f;
  int64_t ldf[NF];
  int i;
  /* LEFT, N, N: X is K x M, op(F_i) = F_i is Q[i] x P[i], Y is L x M. */
  for (i = 0; i < NF; i++)
    ldf[i] = Q[i];
  return kronblasSgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, M, NF, P, Q,
                           &alpha, X, K, (const float *const *)F, ldf, &beta, Y, L);
}

/* Resets Y on the device to its initial value. */
static int reset_y(void)
{
  return cudaMemcpy(dY, hY0, sizeof hY0, cudaMemcpyHostToDevice) == cudaSuccess;
}

static int y_is(const float *want)
{
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(hYg, dY, sizeof hYg, cudaMemcpyDeviceToHost) != cudaSuccess)
    return 0;
  return memcmp(hYg, want, sizeof hYg) == 0;
}

/* Y on the device within a sum-length tolerance of the CPU's. */
static int y_close(void)
{
  int i;
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(hYg, dY, sizeof hYg, cudaMemcpyDeviceToHost) != cudaSuccess)
    return 0;
  for (i = 0; i < M * L; i++)
    if (!(fabsf(hYg[i] - hYc[i]) <= 4 * (5 + 4 + 3 + 2) * 0x1p-24f * (1 + fabsf(hYc[i]))))
      return 0;
  return 1;
}

int main(void)
{
  kronblasHandle_t gpu = NULL, cpu = NULL;
  float *hFp[NF];
  int n = 0, i;
  unsigned s = 12345;

  /* Before anything reads the environment. */
  setenv("KRONBLAS_FAULT", "alloc:1,launch:2,launch:10", 1);
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    tap_skip_all("no CUDA device");
  }
  tap_plan(10);
  for (i = 0; i < M * K; i++) hX[i] = (float)((s = s * 1103515245u + 12345u) >> 8) / (1 << 24) - 0.5f;
  for (i = 0; i < M * L; i++) hY0[i] = (float)((s = s * 1103515245u + 12345u) >> 8) / (1 << 24) - 0.5f;
  for (i = 0; i < NF; i++) {
    int j;
    for (j = 0; j < 64; j++) hF[i][j] = (float)((s = s * 1103515245u + 12345u) >> 8) / (1 << 24) - 0.5f;
    hFp[i] = hF[i];
  }
  if (kronblasCreateWithBackend(&gpu, KRONBLAS_BACKEND_CUDA) != KRONBLAS_STATUS_SUCCESS ||
      kronblasCreateWithBackend(&cpu, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS) {
    printf("Bail out! no handles\n");
    return 1;
  }
  memcpy(hYc, hY0, sizeof hYc);
  if (call(cpu, hX, hFp, hYc) != KRONBLAS_STATUS_SUCCESS) {
    printf("Bail out! CPU reference failed\n");
    return 1;
  }
  if (cudaMalloc((void **)&dX, sizeof hX) != cudaSuccess || cudaMalloc((void **)&dY, sizeof hY0) != cudaSuccess ||
      cudaMemcpy(dX, hX, sizeof hX, cudaMemcpyHostToDevice) != cudaSuccess) {
    printf("Bail out! device buffers\n");
    return 1;
  }
  for (i = 0; i < NF; i++)
    if (cudaMalloc((void **)&dF[i], sizeof hF[i]) != cudaSuccess ||
        cudaMemcpy(dF[i], hF[i], sizeof hF[i], cudaMemcpyHostToDevice) != cudaSuccess) {
      printf("Bail out! device buffers\n");
      return 1;
    }
  kronblasSetKernelPolicy(gpu, KRONBLAS_KERNELS_GENERIC);

  reset_y();
  tap_ok(call(gpu, dX, dF, dY) == KRONBLAS_STATUS_ALLOC_FAILED, "A: failed workspace allocation -> ALLOC_FAILED");
  tap_ok(y_is(hY0), "A: Y untouched");
  reset_y();
  tap_ok(call(gpu, dX, dF, dY) == KRONBLAS_STATUS_EXECUTION_FAILED, "B: failed 2nd launch -> EXECUTION_FAILED");
  tap_ok(y_is(hY0), "B: Y untouched");
  reset_y();
  tap_ok(call(gpu, dX, dF, dY) == KRONBLAS_STATUS_SUCCESS, "C: the handle works after the failures");
  tap_ok(y_close(), "C: Y equals the CPU's");

  kronblasSetTuningMode(gpu, KRONBLAS_TUNING_MEASURE);
  reset_y();
  tap_ok(call(gpu, dX, dF, dY) == KRONBLAS_STATUS_EXECUTION_FAILED, "D: failed launch while tuning -> EXECUTION_FAILED");
  tap_ok(y_is(hY0), "D: Y untouched");
  reset_y();
  tap_ok(call(gpu, dX, dF, dY) == KRONBLAS_STATUS_SUCCESS, "E: tuning again succeeds");
  tap_ok(y_close(), "E: Y equals the CPU's");

  for (i = 0; i < NF; i++) cudaFree(dF[i]);
  cudaFree(dX);
  cudaFree(dY);
  kronblasDestroy(gpu);
  kronblasDestroy(cpu);
  return tap_done();
}
