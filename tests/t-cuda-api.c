/* t-cuda-api.c - the options of the contract on the CUDA backend, each
 * against the CPU backend: strided batches (stride 0 on any operand), user
 * workspace (exact size works, too small is ALLOC_FAILED with Y untouched),
 * the handle's own workspace growing, a non-default stream, device pointer
 * mode (alpha = 0 reading neither X nor the factors), K = 0, alpha = 0 with
 * NULL inputs, Y overlapping X or a factor, 70 factors, measured plans kept
 * per key, the column plan (RIGHT/N: GEMMs with X, intermediates and Y
 * contiguous along m), and the settings' error returns.  SKIPs without a
 * CUDA device. */
#include "t-cuda-util.c"

static const kronblasDataType_t types[] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };

static void batches(void)
{
  int ti;
  for (ti = 0; ti < 4; ti++) {
    const int64_t p[] = { 3, 8, 8, 8, 8 }, q[] = { 2, 8, 8, 8, 8 };
    const int64_t p2[] = { 4, 5 }, q2[] = { 3, 2 };
    tc_case_t c;
    int which;
    for (which = 0; which < 4; which++) {
      /* which: 0 all batched, 1 factors shared, 2 X shared, 3 one factor shared */
      int64_t i;
      if (ti < 2 && which == 0)
        tc_case_init(&c, types[ti], KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, (int)tc_range(0, 1), 2, 5, p, q);
      else
        tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 3, 2, p2, q2);
      c.variant = (int)tc_range(TC_SB, TC_SB_64);
      c.batch = tc_range(2, 5);
      c.sX = which == 2 ? 0 : -1;
      c.sY = -1;
      for (i = 0; i < c.n; i++)
        c.sF[i] = which == 1 || (which == 3 && i == 0) ? 0 : -1;
      tc_run(&c);
    }
  }
}

static void workspaces(void)
{
  const int64_t p[] = { 5, 4, 3 }, q[] = { 2, 6, 7 };
  tc_case_t c;
  int ti;
  for (ti = 0; ti < 4; ti++) {
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 6, 3, p, q);
    c.user_ws = 1;
    c.variant = TC_SB_64;
    c.batch = 3;
    c.sX = c.sY = -1;
    c.sF[0] = c.sF[1] = c.sF[2] = -1;
    tc_run(&c);
  }
  /* Too small: ALLOC_FAILED, and Y not touched.  One launch per factor
   * (NO_FUSION), so that the plan needs its intermediates: a plan of one
   * fused launch needs no workspace and may run with less than the
   * queried size, which is an upper bound. */
  {
    const int64_t m = 4, n = 3, K = 60, L = 84;
    size_t need = 0, esz = 4;
    float *dX, *dY, *dF[3], *hY, *hY2, *dws;
    const float one = 1, zero = 0;
    int64_t i, ldf[3];
    kronblasStatus_t st;
    int same;
    kronblasGetWorkspaceSize(tc_gpu, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N,
                             m, n, p, q, &need);
    tap_ok(need >= 2 * (size_t)(m * 84) * esz, "workspace size %zu for 3 factors covers two buffers", need);
    dX = tc_dmalloc(K * m * esz);
    dY = tc_dmalloc(L * m * esz);
    dws = tc_dmalloc(need);
    hY = tc_malloc(L * m * esz);
    hY2 = tc_malloc(L * m * esz);
    tc_fill(KRONBLAS_R_32F, hY, L * m);
    TC_CUDA(cudaMemcpy(dY, hY, L * m * esz, cudaMemcpyHostToDevice));
    TC_CUDA(cudaMemset(dX, 0, K * m * esz));
    for (i = 0; i < n; i++) {
      dF[i] = tc_dmalloc(p[i] * q[i] * esz);
      TC_CUDA(cudaMemset(dF[i], 0, p[i] * q[i] * esz));
      ldf[i] = q[i];
    }
    kronblasSetKernelPolicy(tc_gpu, KRONBLAS_KERNELS_NO_FUSION);
    kronblasSetWorkspace(tc_gpu, dws, need - 1);
    st = kronblasSgekmm_64(tc_gpu, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, q, &one,
                           dX, K, (const float *const *)dF, ldf, &zero, dY, L);
    TC_CUDA(cudaDeviceSynchronize());
    TC_CUDA(cudaMemcpy(hY2, dY, L * m * esz, cudaMemcpyDeviceToHost));
    same = memcmp(hY, hY2, L * m * esz) == 0;
    tap_ok(st == KRONBLAS_STATUS_ALLOC_FAILED && same,
           "user workspace one byte short: status %d (want %d), Y untouched %d", (int)st,
           (int)KRONBLAS_STATUS_ALLOC_FAILED, same);
    kronblasSetWorkspace(tc_gpu, dws, need);
    st = kronblasSgekmm_64(tc_gpu, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, q, &one,
                           dX, K, (const float *const *)dF, ldf, &zero, dY, L);
    tap_ok(st == KRONBLAS_STATUS_SUCCESS, "user workspace of the queried size: status %d", (int)st);
    kronblasSetKernelPolicy(tc_gpu, KRONBLAS_KERNELS_ALL);
    kronblasSetWorkspace(tc_gpu, NULL, 0);
    st = kronblasSetWorkspace(tc_gpu, hY, 64);
    tap_ok(st == KRONBLAS_STATUS_INVALID_VALUE, "host memory as workspace: status %d", (int)st);
    kronblasSetWorkspace(tc_gpu, NULL, 0);
    TC_CUDA(cudaDeviceSynchronize());
    cudaFree(dX); cudaFree(dY); cudaFree(dws);
    for (i = 0; i < n; i++) cudaFree(dF[i]);
    free(hY); free(hY2);
  }
  /* The handle's own workspace grows: a small call, then a bigger one. */
  {
    const int64_t ps[] = { 2, 2 }, pb[] = { 8, 8, 8, 8, 8 };
    int64_t qb[] = { 8, 8, 8, 8, 7 };
    tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 2, 2, ps, ps);
    tc_run(&c);
    tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 7, 5, pb, qb);
    tc_run(&c);
  }
}

static void streams_and_pointers(void)
{
  cudaStream_t s;
  int ti;
  TC_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (ti = 0; ti < 4; ti++) {
    const int64_t p[] = { 8, 8, 8, 8 }, q[] = { 8, 8, 8, 8 };
    const int64_t p2[] = { 3, 4, 2 }, q2[] = { 5, 2, 3 };
    tc_case_t c;
    /* non-default stream */
    tc_case_init(&c, types[ti], KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 3, 4, p, q);
    c.stream = s;
    tc_run(&c);
    /* device pointer mode, beta != 0 and beta == 0 */
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 5, 3, p2, q2);
    c.dev_ptr = 1;
    c.stream = s;
    tc_run(&c);
    tc_case_init(&c, types[ti], KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 3, 4, p, q);
    c.dev_ptr = 1;
    c.beta[0] = c.beta[1] = 0;
    tc_run(&c);
    /* device pointer mode, alpha == 0: X and factors are NaN and unread */
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 4, 3, p2, q2);
    c.dev_ptr = 1;
    c.nan_xf = 1;
    c.alpha[0] = c.alpha[1] = 0;
    tc_run(&c);
    tc_case_init(&c, types[ti], KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 3, 4, p, q);
    c.dev_ptr = 1;
    c.nan_xf = 1;
    c.alpha[0] = c.alpha[1] = 0;
    c.variant = TC_SB;
    c.batch = 2;
    c.sX = c.sY = -1;
    tc_run(&c);
  }
  TC_CUDA(cudaStreamDestroy(s));
}

static void scalars_and_empty(void)
{
  int ti;
  for (ti = 0; ti < 4; ti++) {
    const int64_t p[] = { 3, 0, 2 }, q[] = { 2, 4, 3 };
    const int64_t p2[] = { 3, 5 }, q2[] = { 4, 2 };
    tc_case_t c;
    /* K = 0: Y <- beta*Y, and beta = 0 gives zeros */
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 5, 3, p, q);
    tc_run(&c);
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 5, 3, p, q);
    c.beta[0] = c.beta[1] = 0;
    tc_run(&c);
    /* alpha = 0 in host mode: NaN inputs are not read */
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 5, 2, p2, q2);
    c.alpha[0] = c.alpha[1] = 0;
    c.nan_xf = 1;
    tc_run(&c);
  }
  /* alpha = 0 with NULL X and factors */
  {
    float *dY, hY[12], one = 1, zero = 0, two = 2;
    const int p[] = { 2, 3 }, q[] = { 2, 2 }, ldf[] = { 2, 2 };
    int i, ok = 1;
    kronblasStatus_t st;
    for (i = 0; i < 12; i++) hY[i] = (float)tc_unif();
    dY = tc_dmalloc(sizeof hY);
    TC_CUDA(cudaMemcpy(dY, hY, sizeof hY, cudaMemcpyHostToDevice));
    st = kronblasSgekmm(tc_gpu, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 3, 2, p, q, &zero,
                        NULL, 6, NULL, ldf, &two, dY, 4);
    {
      float out[12];
      TC_CUDA(cudaMemcpy(out, dY, sizeof out, cudaMemcpyDeviceToHost));
      for (i = 0; i < 12; i++) ok &= out[i] == 2 * hY[i];
    }
    tap_ok(st == KRONBLAS_STATUS_SUCCESS && ok, "alpha = 0, X = F = NULL: status %d, Y = 2Y %d", (int)st, ok);
    (void)one;
    cudaFree(dY);
  }
}

static void overlaps(void)
{
  int ti;
  for (ti = 0; ti < 4; ti++) {
    const int64_t p[] = { 3, 4, 2 }, q[] = { 3, 4, 2 };
    const int64_t pf[] = { 8, 8, 8, 8 };
    const int64_t p2[] = { 2, 3 }, q2[] = { 3, 2 };
    tc_case_t c;
    /* in place: Y is X (same shape and layout: LEFT N or RIGHT N) */
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), KRONBLAS_OP_N, (int)tc_range(0, 2), 4, 3, p, q);
    c.alias = TC_ALIAS_X;
    {
      int64_t r, co;
      tc_xdims(&c, &r, &co);
      c.ldx = c.ldy = r + tc_range(0, 2);
    }
    tc_run(&c);
    tc_case_init(&c, types[ti], KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 2, 4, pf, pf);
    c.alias = TC_ALIAS_X;
    c.ldx = c.ldy = 4096;
    tc_run(&c);
    /* a factor inside Y */
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 5, 2, p2, q2);
    c.alias = TC_ALIAS_F0;
    tc_run(&c);
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 5, 1, p2, q2);
    c.alias = TC_ALIAS_F0;
    tc_run(&c);
  }
}

static void many_factors(void)
{
  int64_t p[70], q[70], i;
  tc_case_t c;
  int ti;
  for (ti = 0; ti < 4; ti += 3) {
    for (i = 0; i < 70; i++) {
      p[i] = i % 17 == 3 ? 2 : 1;
      q[i] = i % 23 == 5 ? 3 : (i % 29 == 7 ? 2 : 1);
    }
    tc_case_init(&c, types[ti], (int)tc_range(0, 1), (int)tc_range(0, 2), (int)tc_range(0, 2), 5, 70, p, q);
    c.variant = (int)tc_range(0, 3);
    tc_run(&c);
  }
}

/* A measured plan is kept per key: the same shape with Y along m (RIGHT)
 * after Y along L (LEFT) must not reuse a plan whose last step (cuBLAS) can
 * only write Y along L.  Found by seed 12345, 2026-11-21. */
static void tuned_keys(void)
{
  const int64_t p[] = { 128, 128 };
  int ti, side;
  for (ti = 0; ti < 2; ti++)
    for (side = 0; side < 2; side++) {
      tc_case_t c;
      tc_case_init(&c, types[ti], side, KRONBLAS_OP_N, KRONBLAS_OP_T, 2, 2, p, p);
      c.tune = 1;
      c.variant = TC_SB;
      c.batch = 2;
      c.sX = c.sY = -1;
      c.sF[0] = c.sF[1] = -1;
      tc_run(&c);
    }
}

static void settings(void)
{
  kronblasBackend_t be;
  kronblasKernelPolicy_t pol;
  void *s = (void *)1;
  tap_ok(kronblasGetBackend(tc_gpu, &be) == KRONBLAS_STATUS_SUCCESS && be == KRONBLAS_BACKEND_CUDA,
         "GetBackend is CUDA");
  tap_ok(kronblasSetKernelPolicy(tc_gpu, (kronblasKernelPolicy_t)4) == KRONBLAS_STATUS_INVALID_VALUE,
         "kernel policy out of range is INVALID_VALUE");
  tap_ok(kronblasSetKernelPolicy(tc_gpu, KRONBLAS_KERNELS_GENERIC) == KRONBLAS_STATUS_SUCCESS &&
         kronblasGetKernelPolicy(tc_gpu, &pol) == KRONBLAS_STATUS_SUCCESS && pol == KRONBLAS_KERNELS_GENERIC,
         "kernel policy set and read back");
  kronblasSetKernelPolicy(tc_gpu, KRONBLAS_KERNELS_ALL);
  {
    kronblasTuningMode_t tm;
    tap_ok(kronblasSetTuningMode(tc_gpu, (kronblasTuningMode_t)2) == KRONBLAS_STATUS_INVALID_VALUE &&
           kronblasSetTuningMode(tc_gpu, KRONBLAS_TUNING_MEASURE) == KRONBLAS_STATUS_SUCCESS &&
           kronblasGetTuningMode(tc_gpu, &tm) == KRONBLAS_STATUS_SUCCESS && tm == KRONBLAS_TUNING_MEASURE,
           "tuning mode: out of range refused, MEASURE set and read back");
    kronblasSetTuningMode(tc_gpu, KRONBLAS_TUNING_MODEL);
  }
  tap_ok(kronblasGetStream(tc_gpu, &s) == KRONBLAS_STATUS_SUCCESS && s == NULL, "default stream is NULL");
}

/* X and Y contiguous along m (RIGHT, op(X) = N) with factors of 8 and
 * more: the column plan (one column-layout GEMM per factor, intermediates
 * contiguous along m).  Also the CUBLAS policy, which takes it for small
 * factors too, and its overlap and batch paths. */
static void column_plans(void)
{
  const int64_t p1[] = { 8, 9, 16 }, q1[] = { 12, 8, 8 };
  const int64_t p2[] = { 8, 8 }, q2[] = { 8, 8 };
  const int64_t p3[] = { 3, 5, 2 }, q3[] = { 4, 3, 6 };
  tc_case_t c;
  int ti;
  for (ti = 0; ti < 2; ti++) {
    const kronblasDataType_t t = types[ti];
    tc_case_init(&c, t, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_N, (int)tc_range(0, 2), 37, 3, p1, q1);
    tc_run(&c);
    tc_case_init(&c, t, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_N, KRONBLAS_OP_N, 100, 3, p1, q1);
    c.beta[0] = c.beta[1] = 0;
    c.tune = 1;
    tc_run(&c);
    tc_case_init(&c, t, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_N, (int)tc_range(0, 2), 9, 3, p1, q1);
    c.variant = TC_SB_64;
    c.batch = 3;
    c.sX = c.sY = -1;
    c.sF[0] = c.sF[1] = c.sF[2] = -1;
    c.sF[1] = 0;
    tc_run(&c);
    tc_case_init(&c, t, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_N, KRONBLAS_OP_T, 20, 2, p2, q2);
    c.alias = TC_ALIAS_X;
    c.ldx = c.ldy = 20;
    tc_run(&c);
    tc_case_init(&c, t, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_N, KRONBLAS_OP_N, 33, 2, p2, q2);
    c.user_ws = 1;
    tc_run(&c);
    tc_case_init(&c, t, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_N, (int)tc_range(0, 2), 17, 3, p3, q3);
    c.policy = KRONBLAS_KERNELS_CUBLAS;
    tc_run(&c);
  }
}

int main(void)
{
  tc_seed();
  tc_handles();
  settings();
  batches();
  workspaces();
  streams_and_pointers();
  scalars_and_empty();
  overlaps();
  many_factors();
  tuned_keys();
  column_plans();
  tc_handles_done();
  return tap_done();
}
