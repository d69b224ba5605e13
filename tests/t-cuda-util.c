/* t-cuda-util.c - what the CUDA tests share; #included by each t-cuda-*.c
 * (one translation unit per test program, every function static).
 *
 * A case is run twice on the same fresh random inputs: on a CUDA handle
 * (device buffers) and on a CPU handle (host buffers).  The whole Y buffer
 * is compared: elements of the result within
 *     4 * (sum of p + 2) * eps(type) * mag
 * of the CPU's, mag being the same GEKMM on absolute values (the size of the
 * terms summed), and every element outside the result (leading-dimension
 * padding, gaps between batch entries) bit for bit unchanged.  Y starts as
 * NaN where beta = 0, so an element that is not written, or a Y that is
 * read, shows up. */
#include <kronblas.h>
#include <cuda_runtime_api.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define TC_MAXF 80

/* ------------------------------------------------------------- random */

static uint64_t tc_state;

static uint64_t tc_next(void)
{
  uint64_t z = (tc_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static double tc_unif(void)   /* [-1, 1) */
{
  return (double)(tc_next() >> 11) * 0x1.0p-52 - 1.0;
}

static int64_t tc_range(int64_t lo, int64_t hi)   /* inclusive */
{
  return lo + (int64_t)(tc_next() % (uint64_t)(hi - lo + 1));
}

/* KRONBLAS_TEST_SEED reproduces a run; the seed is always printed. */
static void tc_seed(void)
{
  const char *s = getenv("KRONBLAS_TEST_SEED");
  uint64_t seed = s != NULL && *s ? strtoull(s, NULL, 0)
                                  : (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
  tc_state = seed;
  tap_diag("seed %llu (set KRONBLAS_TEST_SEED to repeat)", (unsigned long long)seed);
}

/* KRONBLAS_TEST_QUICK (set by `make check-sanitizer` for racecheck, which
 * runs each shared-memory access through the tool): fewer and smaller
 * cases where a test offers them. */
static inline int tc_quick(void)   /* inline: not every test asks */
{
  const char *s = getenv("KRONBLAS_TEST_QUICK");
  return s != NULL && *s && *s != '0';
}

/* -------------------------------------------------------------- types */

static size_t tc_esz(kronblasDataType_t t)
{
  static const size_t s[] = { 4, 8, 8, 16 };
  return s[t];
}

static int tc_cplx(kronblasDataType_t t) { return t >= KRONBLAS_C_32F; }
static double tc_eps(kronblasDataType_t t) { return (t == KRONBLAS_R_32F || t == KRONBLAS_C_32F) ? 0x1p-24 : 0x1p-53; }
static const char *tc_tname(kronblasDataType_t t) { static const char *n[] = { "s", "d", "c", "z" }; return n[t]; }

/* Component j (0 real, 1 imaginary) of element i. */
static double tc_get(kronblasDataType_t t, const void *x, int64_t i, int j)
{
  switch (t) {
  case KRONBLAS_R_32F: return j ? 0 : ((const float *)x)[i];
  case KRONBLAS_R_64F: return j ? 0 : ((const double *)x)[i];
  case KRONBLAS_C_32F: return ((const float *)x)[2 * i + j];
  case KRONBLAS_C_64F: return ((const double *)x)[2 * i + j];
  }
  return 0;
}

static void tc_set(kronblasDataType_t t, void *x, int64_t i, double re, double im)
{
  switch (t) {
  case KRONBLAS_R_32F: ((float *)x)[i] = (float)re; break;
  case KRONBLAS_R_64F: ((double *)x)[i] = re; break;
  case KRONBLAS_C_32F: ((float *)x)[2 * i] = (float)re; ((float *)x)[2 * i + 1] = (float)im; break;
  case KRONBLAS_C_64F: ((double *)x)[2 * i] = re; ((double *)x)[2 * i + 1] = im; break;
  }
}

static void tc_fill(kronblasDataType_t t, void *x, int64_t n)
{
  int64_t i;
  for (i = 0; i < n; i++)
    tc_set(t, x, i, tc_unif(), tc_cplx(t) ? tc_unif() : 0);
}

static void tc_poison(kronblasDataType_t t, void *x, int64_t n)
{
  int64_t i;
  for (i = 0; i < n; i++)
    tc_set(t, x, i, NAN, NAN);
}

/* |x| in the real part, for the magnitude run. */
static void tc_abs(kronblasDataType_t t, const void *x, void *a, int64_t n)
{
  int64_t i;
  for (i = 0; i < n; i++)
    tc_set(t, a, i, hypot(tc_get(t, x, i, 0), tc_get(t, x, i, 1)), 0);
}

static void *tc_malloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (p == NULL) {
    printf("Bail out! out of host memory\n");
    exit(1);
  }
  return p;
}

/* --------------------------------------------------------------- case */

enum { TC_GEKMM = 0, TC_GEKMM_64 = 1, TC_SB = 2, TC_SB_64 = 3 };
enum { TC_ALIAS_NONE = 0, TC_ALIAS_X = 1, TC_ALIAS_F0 = 2 };

typedef struct {
  kronblasDataType_t type;
  int side, transX, transF;
  int64_t m, n;
  int64_t p[TC_MAXF], q[TC_MAXF];
  int64_t ldx, ldy, ldf[TC_MAXF];     /* 0: the least, plus a random pad */
  int64_t batch;
  long long sX, sY, sF[TC_MAXF];      /* -1: the entry's extent plus a random gap */
  int variant;
  double alpha[2], beta[2];
  int dev_ptr;                        /* device pointer mode on the CUDA handle */
  int policy;                         /* kronblasKernelPolicy_t */
  int user_ws;                        /* 1: a user workspace of exactly the queried size */
  cudaStream_t stream;                /* NULL: the default stream */
  int alias;                          /* TC_ALIAS_* (batch 1) */
  int nan_xf;                         /* X and factors all NaN (alpha = 0 in device mode) */
  int tune;                           /* KRONBLAS_TUNING_MEASURE on the CUDA handle */
} tc_case_t;

static void tc_case_init(tc_case_t *c, kronblasDataType_t t, int side, int tX, int tF, int64_t m,
                         int64_t n, const int64_t *p, const int64_t *q)
{
  int64_t i;
  memset(c, 0, sizeof *c);
  c->type = t;
  c->side = side;
  c->transX = tX;
  c->transF = tF;
  c->m = m;
  c->n = n;
  for (i = 0; i < n; i++) {
    c->p[i] = p[i];
    c->q[i] = q[i];
  }
  c->batch = 1;
  c->alpha[0] = tc_unif();
  c->alpha[1] = tc_cplx(t) ? tc_unif() : 0;
  c->beta[0] = tc_unif();
  c->beta[1] = tc_cplx(t) ? tc_unif() : 0;
}

/* beta = 0 (the tests poison Y then), and in half of the cases alpha = 1:
 * the launch that writes Y then has no epilogue (real types, host
 * scalars; lib/cuda_backend.c).  inline: not every test asks. */
static inline void tc_beta_zero(tc_case_t *c)
{
  c->beta[0] = c->beta[1] = 0;
  if (tc_range(0, 1)) {
    c->alpha[0] = 1;
    c->alpha[1] = 0;
  }
}

/* The strided-batch entry points (variant >= TC_SB): up to maxb entries,
 * X and Y entries apart by their extent plus a random gap, each factor
 * either its own per entry or shared (stride 0).  Other variants keep one
 * entry. */
static void tc_case_batch(tc_case_t *c, int64_t maxb)
{
  int64_t i;
  if (c->variant < TC_SB)
    return;
  c->batch = tc_range(1, maxb);
  c->sX = c->sY = -1;
  for (i = 0; i < c->n; i++)
    c->sF[i] = tc_range(0, 1) ? -1 : 0;
}

static int64_t tc_K(const tc_case_t *c) { int64_t i, K = 1; for (i = 0; i < c->n; i++) K *= c->p[i]; return K; }
static int64_t tc_L(const tc_case_t *c) { int64_t i, L = 1; for (i = 0; i < c->n; i++) L *= c->q[i]; return L; }

static int64_t tc_ext(int64_t rows, int64_t cols, int64_t ld)
{
  return rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows;
}

static void tc_xdims(const tc_case_t *c, int64_t *r, int64_t *co)
{
  int alongK = (c->side == KRONBLAS_SIDE_LEFT) == (c->transX == KRONBLAS_OP_N);
  *r = alongK ? tc_K(c) : c->m;
  *co = alongK ? c->m : tc_K(c);
}

static void tc_ydims(const tc_case_t *c, int64_t *r, int64_t *co)
{
  *r = c->side == KRONBLAS_SIDE_LEFT ? tc_L(c) : c->m;
  *co = c->side == KRONBLAS_SIDE_LEFT ? c->m : tc_L(c);
}

static void tc_fdims(const tc_case_t *c, int64_t i, int64_t *r, int64_t *co)
{
  /* LEFT: op(F) is q x p; RIGHT: op(F) is p x q. */
  int rows_q = (c->side == KRONBLAS_SIDE_LEFT) == (c->transF == KRONBLAS_OP_N);
  *r = rows_q ? c->q[i] : c->p[i];
  *co = rows_q ? c->p[i] : c->q[i];
}

static int64_t tc_max1(int64_t v) { return v > 1 ? v : 1; }

/* Fills in leading dimensions and strides left at 0 / -1. */
static void tc_case_finish(tc_case_t *c)
{
  int64_t r, co, i;
  tc_xdims(c, &r, &co);
  if (c->ldx == 0) c->ldx = tc_max1(r) + tc_range(0, 2);
  tc_ydims(c, &r, &co);
  if (c->ldy == 0) c->ldy = tc_max1(r) + tc_range(0, 2);
  for (i = 0; i < c->n; i++) {
    tc_fdims(c, i, &r, &co);
    if (c->ldf[i] == 0) c->ldf[i] = tc_max1(r) + tc_range(0, 1);
  }
  if (c->batch > 1 || c->variant >= TC_SB) {
    tc_xdims(c, &r, &co);
    if (c->sX < 0) c->sX = tc_ext(r, co, c->ldx) + tc_range(0, 3);
    tc_ydims(c, &r, &co);
    if (c->sY < 0) c->sY = tc_ext(r, co, c->ldy) + tc_range(0, 3);
    for (i = 0; i < c->n; i++) {
      tc_fdims(c, i, &r, &co);
      if (c->sF[i] < 0) c->sF[i] = tc_ext(r, co, c->ldf[i]) + tc_range(0, 2);
    }
  }
}

/* Elements of an operand over the whole batch. */
static int64_t tc_span(int64_t ext, long long stride, int64_t batch)
{
  return ext == 0 ? 0 : ext + (batch - 1) * stride;
}

static const char *tc_describe(const tc_case_t *c, char *buf, size_t len)
{
  static const char *ops = "NTC";
  static const char *var[] = { "gekmm", "gekmm_64", "SB", "SB_64" };
  static const char *pol[] = { "all", "nofuse", "generic", "cublas" };
  int64_t i;
  size_t o;
  o = (size_t)snprintf(buf, len, "%s %s %s %c%c m=%lld ", tc_tname(c->type), var[c->variant],
                       c->side == KRONBLAS_SIDE_LEFT ? "L" : "R", ops[c->transX], ops[c->transF],
                       (long long)c->m);
  for (i = 0; i < c->n && o < len; i++) {
    /* runs of equal factors as PxQ^r */
    int64_t r = 1;
    while (i + r < c->n && c->p[i + r] == c->p[i] && c->q[i + r] == c->q[i]) r++;
    o += (size_t)snprintf(buf + o, len - o, r > 1 ? "%lldx%lld^%lld " : "%lldx%lld ",
                          (long long)c->p[i], (long long)c->q[i], (long long)r);
    i += r - 1;
  }
  if (o < len)
    snprintf(buf + o, len - o, "b=%lld %s%s%s%s%s%s", (long long)c->batch, pol[c->policy],
             c->tune ? " tuned" : "",
             c->dev_ptr ? " devptr" : "", c->user_ws ? " userws" : "",
             c->stream ? " stream" : "", c->alias == TC_ALIAS_X ? " Y=X" : c->alias == TC_ALIAS_F0 ? " Y>F0" : "");
  return buf;
}

/* Calls the entry point the case names. */
static kronblasStatus_t tc_call(kronblasHandle_t h, const tc_case_t *c, const void *alpha,
                                const void *X, const void *const *F, const void *beta, void *Y)
{
  int p32[TC_MAXF], q32[TC_MAXF], ldf32[TC_MAXF];
  int64_t i;
  const int sd = c->side, tX = c->transX, tF = c->transF;
  for (i = 0; i < c->n; i++) {
    p32[i] = (int)c->p[i];
    q32[i] = (int)c->q[i];
    ldf32[i] = (int)c->ldf[i];
  }
#define TC_DISPATCH(PFX, T)                                                                        \
  switch (c->variant) {                                                                            \
  case TC_GEKMM:                                                                                   \
    return kronblas##PFX##gekmm(h, sd, tX, tF, (int)c->m, (int)c->n, p32, q32, (const T *)alpha,   \
        (const T *)X, (int)c->ldx, (const T *const *)F, ldf32, (const T *)beta, (T *)Y, (int)c->ldy); \
  case TC_GEKMM_64:                                                                                \
    return kronblas##PFX##gekmm_64(h, sd, tX, tF, c->m, c->n, c->p, c->q, (const T *)alpha,        \
        (const T *)X, c->ldx, (const T *const *)F, c->ldf, (const T *)beta, (T *)Y, c->ldy);        \
  case TC_SB:                                                                                      \
    return kronblas##PFX##gekmmStridedBatched(h, sd, tX, tF, (int)c->m, (int)c->n, p32, q32,       \
        (const T *)alpha, (const T *)X, (int)c->ldx, c->sX, (const T *const *)F, ldf32, c->sF,      \
        (const T *)beta, (T *)Y, (int)c->ldy, c->sY, (int)c->batch);                                \
  default:                                                                                         \
    return kronblas##PFX##gekmmStridedBatched_64(h, sd, tX, tF, c->m, c->n, c->p, c->q,            \
        (const T *)alpha, (const T *)X, c->ldx, c->sX, (const T *const *)F, c->ldf, c->sF,          \
        (const T *)beta, (T *)Y, c->ldy, c->sY, c->batch);                                          \
  }
  switch (c->type) {
  case KRONBLAS_R_32F: TC_DISPATCH(S, float)
  case KRONBLAS_R_64F: TC_DISPATCH(D, double)
  case KRONBLAS_C_32F: TC_DISPATCH(C, kronblasComplex)
  case KRONBLAS_C_64F: TC_DISPATCH(Z, kronblasDoubleComplex)
  }
#undef TC_DISPATCH
  return KRONBLAS_STATUS_INTERNAL_ERROR;
}

/* ------------------------------------------------------------ handles */

static kronblasHandle_t tc_gpu, tc_cpu;

/* Creates a CUDA and a CPU handle, or skips the whole test. */
static void tc_handles(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    tap_skip_all("no CUDA device");
  }
  if (kronblasCreateWithBackend(&tc_gpu, KRONBLAS_BACKEND_CUDA) != KRONBLAS_STATUS_SUCCESS) {
    printf("Bail out! a CUDA device is visible but the CUDA backend did not start\n");
    exit(1);
  }
  if (kronblasCreateWithBackend(&tc_cpu, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS) {
    printf("Bail out! no CPU handle\n");
    exit(1);
  }
}

static void tc_handles_done(void)
{
  kronblasDestroy(tc_gpu);
  kronblasDestroy(tc_cpu);
}

#define TC_CUDA(call) do {                                                  \
    cudaError_t tc_e_ = (call);                                             \
    if (tc_e_ != cudaSuccess) {                                             \
      printf("Bail out! %s: %s\n", #call, cudaGetErrorString(tc_e_));       \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

static void *tc_dmalloc(size_t n)
{
  void *p = NULL;
  TC_CUDA(cudaMalloc(&p, n ? n : 1));
  return p;
}

/* ---------------------------------------------------------------- run */

/* Runs a case on both backends and compares; one TAP line.  Returns 1 if
 * it passed. */
static int tc_run(tc_case_t *c)
{
  const kronblasDataType_t t = c->type;
  const size_t esz = tc_esz(t);
  const int64_t n = c->n, K = tc_K(c), L = tc_L(c);
  int64_t xr, xc, yr, yc, fr, fc, i, b, nx, ny, nf[TC_MAXF], bad = 0, first_bad = -1, f0off = 0;
  double sump = 0, worst = 0;
  void *hX, *hY0, *hYc, *hYg, *hF[TC_MAXF], *aX, *aY, *aF[TC_MAXF], *hM;
  void *dX, *dY, *dF[TC_MAXF], *dS = NULL, *dws = NULL;
  unsigned char *mask;
  char desc[512], alpha_b[32], beta_b[32], aalpha[32], abeta[32];
  kronblasStatus_t sc, sg;
  size_t ws_bytes = 0;
  int ok;

  tc_case_finish(c);
  tc_describe(c, desc, sizeof desc);
  tc_xdims(c, &xr, &xc);
  tc_ydims(c, &yr, &yc);
  nx = tc_span(tc_ext(xr, xc, c->ldx), c->sX, c->batch);
  ny = tc_span(tc_ext(yr, yc, c->ldy), c->sY, c->batch);
  if (c->alias == TC_ALIAS_X && nx > ny) ny = nx;
  hX = tc_malloc(nx * esz);
  hY0 = tc_malloc(ny * esz);
  hYc = tc_malloc(ny * esz);
  hYg = tc_malloc(ny * esz);
  hM = tc_malloc(ny * esz);
  aX = tc_malloc(nx * esz);
  aY = tc_malloc(ny * esz);
  mask = calloc((size_t)ny + 1, 1);
  if (c->nan_xf) tc_poison(t, hX, nx); else tc_fill(t, hX, nx);
  for (i = 0; i < n; i++) {
    tc_fdims(c, i, &fr, &fc);
    nf[i] = tc_span(tc_ext(fr, fc, c->ldf[i]), c->sF[i], c->batch);
    hF[i] = tc_malloc(nf[i] * esz);
    aF[i] = tc_malloc(nf[i] * esz);
    if (c->nan_xf) tc_poison(t, hF[i], nf[i]); else tc_fill(t, hF[i], nf[i]);
    sump += (double)c->p[i];
  }
  /* Y: random where beta != 0; NaN everywhere where beta == 0 (must not be
   * read, and every element of the result must be written). */
  if (c->beta[0] == 0 && c->beta[1] == 0) tc_poison(t, hY0, ny); else tc_fill(t, hY0, ny);
  if (c->alias == TC_ALIAS_X) {
    /* Y is X: same data, the result must be as if they were apart. */
    memcpy(hY0, hX, (size_t)nx * esz);
  } else if (c->alias == TC_ALIAS_F0) {
    /* Factor 0 lives inside Y's buffer. */
    if (nf[0] > ny) { printf("Bail out! bad alias case\n"); exit(1); }
    f0off = tc_range(0, ny - nf[0]);
    memcpy(hF[0], (char *)hY0 + f0off * esz, (size_t)nf[0] * esz);
  }
  tc_set(t, alpha_b, 0, c->alpha[0], c->alpha[1]);
  tc_set(t, beta_b, 0, c->beta[0], c->beta[1]);

  /* CPU */
  memcpy(hYc, hY0, (size_t)ny * esz);
  sc = tc_call(tc_cpu, c, alpha_b, hX, (const void *const *)hF, beta_b, hYc);
  /* magnitudes */
  tc_abs(t, hX, aX, nx);
  tc_abs(t, hY0, hM, ny);
  for (i = 0; i < n; i++) tc_abs(t, hF[i], aF[i], nf[i]);
  tc_set(t, aalpha, 0, hypot(c->alpha[0], c->alpha[1]), 0);
  tc_set(t, abeta, 0, hypot(c->beta[0], c->beta[1]), 0);
  if (c->nan_xf) {
    tc_set(t, aalpha, 0, 0, 0);
  }
  if (c->beta[0] == 0 && c->beta[1] == 0) {
    int64_t e;
    for (e = 0; e < ny; e++) tc_set(t, hM, e, 0, 0);
  }
  (void)tc_call(tc_cpu, c, aalpha, aX, (const void *const *)aF, abeta, hM);

  /* GPU */
  dX = tc_dmalloc(nx * esz);
  dY = tc_dmalloc(ny * esz);
  TC_CUDA(cudaMemcpy(dY, hY0, (size_t)ny * esz, cudaMemcpyHostToDevice));
  if (c->alias == TC_ALIAS_X) {
    cudaFree(dX);
    dX = dY;
  } else {
    TC_CUDA(cudaMemcpy(dX, hX, (size_t)nx * esz, cudaMemcpyHostToDevice));
  }
  for (i = 0; i < n; i++) {
    if (i == 0 && c->alias == TC_ALIAS_F0) {
      dF[0] = (char *)dY + f0off * esz;
      continue;
    }
    dF[i] = tc_dmalloc(nf[i] * esz);
    TC_CUDA(cudaMemcpy(dF[i], hF[i], (size_t)nf[i] * esz, cudaMemcpyHostToDevice));
  }
  kronblasSetPointerMode(tc_gpu, c->dev_ptr ? KRONBLAS_POINTER_MODE_DEVICE : KRONBLAS_POINTER_MODE_HOST);
  kronblasSetKernelPolicy(tc_gpu, (kronblasKernelPolicy_t)c->policy);
  kronblasSetTuningMode(tc_gpu, c->tune ? KRONBLAS_TUNING_MEASURE : KRONBLAS_TUNING_MODEL);
  kronblasSetStream(tc_gpu, c->stream);
  if (c->dev_ptr) {
    dS = tc_dmalloc(2 * esz);
    TC_CUDA(cudaMemcpy(dS, alpha_b, esz, cudaMemcpyHostToDevice));
    TC_CUDA(cudaMemcpy((char *)dS + esz, beta_b, esz, cudaMemcpyHostToDevice));
  }
  if (c->user_ws) {
    if (kronblasGetWorkspaceSize(tc_gpu, t, c->side, c->transX, c->transF, c->m, c->n, c->p, c->q,
                                 &ws_bytes) != KRONBLAS_STATUS_SUCCESS)
      ws_bytes = 0;
    dws = tc_dmalloc(ws_bytes);
    kronblasSetWorkspace(tc_gpu, dws, ws_bytes);
  }
  sg = tc_call(tc_gpu, c, c->dev_ptr ? dS : (void *)alpha_b, dX, (const void *const *)dF,
               c->dev_ptr ? (char *)dS + esz : (void *)beta_b, dY);
  if (c->stream != NULL)
    TC_CUDA(cudaStreamSynchronize(c->stream));
  TC_CUDA(cudaDeviceSynchronize());
  TC_CUDA(cudaMemcpy(hYg, dY, (size_t)ny * esz, cudaMemcpyDeviceToHost));
  if (c->user_ws)
    kronblasSetWorkspace(tc_gpu, NULL, 0);
  kronblasSetStream(tc_gpu, NULL);
  kronblasSetPointerMode(tc_gpu, KRONBLAS_POINTER_MODE_HOST);
  kronblasSetKernelPolicy(tc_gpu, KRONBLAS_KERNELS_ALL);
  kronblasSetTuningMode(tc_gpu, KRONBLAS_TUNING_MODEL);

  /* compare */
  for (b = 0; b < c->batch; b++) {
    int64_t r, co;
    for (co = 0; co < yc; co++)
      for (r = 0; r < yr; r++)
        mask[b * c->sY + co * c->ldy + r] = 1;
  }
  {
    const double tolf = 4.0 * (sump + 2.0) * tc_eps(t);
    int64_t e;
    for (e = 0; e < ny; e++) {
      int j, bad_e = 0;
      for (j = 0; j < (tc_cplx(t) ? 2 : 1); j++) {
        double g = tc_get(t, hYg, e, j), cpu = tc_get(t, hYc, e, j);
        if (mask[e]) {
          double mg = tc_get(t, hM, e, 0), d = fabs(g - cpu), tol = tolf * mg;
          if (!isfinite(g) || !isfinite(cpu) || d > tol) bad_e = 1;
          if (tol > 0 && d / tol > worst) worst = d / tol;
        } else if (memcmp((char *)hYg + e * esz, (char *)hY0 + e * esz, esz) != 0) {
          bad_e = 1;
        }
      }
      if (bad_e) {
        if (first_bad < 0) first_bad = e;
        bad++;
      }
    }
  }
  ok = sc == KRONBLAS_STATUS_SUCCESS && sg == KRONBLAS_STATUS_SUCCESS && bad == 0;
  tap_ok(ok, "%s: status cpu %d gpu %d, %lld of %lld bad, worst %.3g of tol", desc, (int)sc,
         (int)sg, (long long)bad, (long long)ny, worst);
  if (first_bad >= 0)
    tap_diag("first bad element %lld (%s): gpu %.9g%+.9gi cpu %.9g%+.9gi initial %.9g", (long long)first_bad,
             mask[first_bad] ? "in the result" : "outside the result",
             tc_get(t, hYg, first_bad, 0), tc_get(t, hYg, first_bad, 1),
             tc_get(t, hYc, first_bad, 0), tc_get(t, hYc, first_bad, 1), tc_get(t, hY0, first_bad, 0));
  (void)K;
  (void)L;

  if (dX != dY) cudaFree(dX);
  cudaFree(dY);
  for (i = 0; i < n; i++) {
    if (!(i == 0 && c->alias == TC_ALIAS_F0)) cudaFree(dF[i]);
    free(hF[i]);
    free(aF[i]);
  }
  cudaFree(dS);
  cudaFree(dws);
  free(hX); free(hY0); free(hYc); free(hYg); free(hM); free(aX); free(aY); free(mask);
  return ok;
}
