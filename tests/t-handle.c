/* t-handle.c - handles and their settings: creation on each backend, NULL
 * and destroyed handles (NOT_INITIALIZED from every function that takes a
 * handle, checked before any other argument), status names and strings,
 * the version, pointer mode, streams on the CPU, workspace (size query,
 * a user workspace too small and exactly large enough), thread count, and
 * handles used from several threads at once. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <kronblas.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "kb_oracle.h"
#include "kb_testcall.h"

static const kronblasDataType_t kb_types[4] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };

/* ------------------------------------------------- one checked problem */

/* A random problem on the CPU, checked against the oracle; 0 if right. */
typedef struct {
  kronblasDataType_t type;
  int side, tX, tF, variant;
  int64_t m, n, p[3], q[3], ldf[3], ldx, ldy, K, L, nX, nF[3], nY, batch;
  long long strideX, strideF[3], strideY;
  void *X, *F[3], *Y, *Y0;
  unsigned char alpha[16], beta[16];
  int alias;                 /* Y is X (same memory) */
} kb_small_t;

static void kb_small_init(kb_small_t *s, kb_rng_t *r, kronblasDataType_t type, int variant, int alias)
{
  const size_t esz = kb_oracle_type_size(type);
  int64_t i, rows, cols, ext;
  memset(s, 0, sizeof *s);
  s->type = type;
  s->variant = variant;
  s->alias = alias;
  s->side = (int)kb_rng_range(r, 0, 1);
  s->tX = (int)kb_rng_range(r, 0, 2);
  s->tF = (int)kb_rng_range(r, 0, 2);
  if (alias)
    s->tX = KRONBLAS_OP_N;   /* X stored as Y is: same storage */
  s->m = kb_rng_range(r, 1, 5);
  s->n = 3;
  s->K = s->L = 1;
  for (i = 0; i < 3; i++) {
    s->p[i] = kb_rng_range(r, 1, 5);
    s->q[i] = kb_rng_range(r, 1, 5);
    s->K *= s->p[i];
    s->L *= s->q[i];
  }
  if (alias) {
    /* X and Y of the same shape: p = q */
    for (i = 0; i < 3; i++)
      s->q[i] = s->p[i];
    s->L = s->K;
  }
  s->batch = kb_variant_is_batched(variant) && !alias ? 3 : 1;
  kb_oracle_x_dims((kronblasSideMode_t)s->side, (kronblasOperation_t)s->tX, s->m, s->K, &rows, &cols);
  s->ldx = rows + kb_rng_range(r, 0, 2);
  ext = kb_oracle_extent(rows, cols, s->ldx);
  s->strideX = s->batch > 1 ? ext : 0;
  s->nX = ext * s->batch;
  for (i = 0; i < 3; i++) {
    kb_oracle_f_dims((kronblasSideMode_t)s->side, (kronblasOperation_t)s->tF, s->p[i], s->q[i], &rows, &cols);
    s->ldf[i] = rows + kb_rng_range(r, 0, 2);
    s->nF[i] = kb_oracle_extent(rows, cols, s->ldf[i]);
    s->F[i] = malloc((size_t)s->nF[i] * esz);
    kb_rng_fill(r, type, s->F[i], s->nF[i]);
  }
  kb_oracle_y_dims((kronblasSideMode_t)s->side, s->m, s->L, &rows, &cols);
  if (alias) {
    s->ldy = s->ldx;
    s->nY = s->nX;
  } else {
    s->ldy = rows + kb_rng_range(r, 0, 2);
    ext = kb_oracle_extent(rows, cols, s->ldy);
    s->strideY = s->batch > 1 ? ext : 0;
    s->nY = ext * s->batch;
  }
  s->X = malloc((size_t)s->nX * esz);
  kb_rng_fill(r, type, s->X, s->nX);
  s->Y = alias ? s->X : malloc((size_t)s->nY * esz);
  if (!alias)
    kb_rng_fill(r, type, s->Y, s->nY);
  s->Y0 = malloc((size_t)s->nY * esz);
  memcpy(s->Y0, s->Y, (size_t)s->nY * esz);
  kb_rng_fill(r, type, s->alpha, 1);
  kb_rng_fill(r, type, s->beta, 1);
}

static void kb_small_free(kb_small_t *s)
{
  int i;
  if (!s->alias)
    free(s->Y);
  free(s->X);
  free(s->Y0);
  for (i = 0; i < 3; i++)
    free(s->F[i]);
}

static kronblasStatus_t kb_small_call(kronblasHandle_t h, kb_small_t *s)
{
  kb_call_t c;
  memset(&c, 0, sizeof c);
  c.type = s->type;
  c.variant = s->variant;
  c.side = s->side;
  c.transX = s->tX;
  c.transF = s->tF;
  c.m = s->m;
  c.nfactors = s->n;
  c.p = s->p;
  c.q = s->q;
  c.ldf = s->ldf;
  c.alpha = s->alpha;
  c.beta = s->beta;
  c.X = s->X;
  c.ldx = s->ldx;
  c.strideX = s->strideX;
  c.F = (const void *const *)s->F;
  c.strideF = s->strideF;
  c.Y = s->Y;
  c.ldy = s->ldy;
  c.strideY = s->strideY;
  c.batch = s->batch;
  return kb_call(h, &c);
}

/* Number of wrong elements of Y (against X, F and the Y before the call,
 * which for an alias is the X before the call). */
static int64_t kb_small_check(const kb_small_t *s)
{
  const size_t esz = kb_oracle_type_size(s->type);
  const int cplx = kb_oracle_type_is_complex(s->type);
  long double *ref = malloc((size_t)(s->m * s->L * 2) * sizeof *ref);
  long double *mag = malloc((size_t)(s->m * s->L) * sizeof *mag);
  int64_t b, nbad = 0, sumlen = s->p[0] + s->p[1] + s->p[2] + 3;
  for (b = 0; b < s->batch && nbad == 0; b++) {
    const void *X = s->alias ? s->Y0 : (const char *)s->X + b * s->strideX * esz;
    if (kb_oracle_gekmm(s->type, (kronblasSideMode_t)s->side, (kronblasOperation_t)s->tX,
                        (kronblasOperation_t)s->tF, s->m, s->n, s->p, s->q, s->alpha, X, s->ldx,
                        (const void *const *)s->F, s->ldf, s->beta, (const char *)s->Y0 + b * s->strideY * esz,
                        s->ldy, ref, mag) != 0)
      nbad = -1;
    else
      nbad = kb_oracle_compare(s->type, (kronblasSideMode_t)s->side, s->m, s->L,
                               (const char *)s->Y + b * s->strideY * esz, s->ldy, ref, mag, sumlen,
                               cplx ? 4.0 : 2.0, NULL);
  }
  free(ref);
  free(mag);
  return nbad;
}

/* ------------------------------------------ every handle-taking function */

/* Calls every function that takes a handle with h and counts the ones that
 * do not give NOT_INITIALIZED.  The other arguments are bad too (NULL
 * outputs, negative sizes), so a function that checks them first fails. */
static int kb_all_not_initialized(kronblasHandle_t h, char *first, size_t cap)
{
  int bad = 0, ti, v;
  kronblasStatus_t st;
  kronblasBackend_t be;
  kronblasPointerMode_t pm;
  void *stream;
  size_t bytes;
  int nt;
  const int64_t p[] = { 2 }, q[] = { 2 };
#define KB_NI(call, name)                                                     \
  do {                                                                        \
    st = (call);                                                              \
    if (st != KRONBLAS_STATUS_NOT_INITIALIZED) {                              \
      if (bad++ == 0)                                                         \
        snprintf(first, cap, "%s gave %s", name, kronblasGetStatusName(st));  \
    }                                                                         \
  } while (0)
  KB_NI(kronblasGetBackend(h, &be), "kronblasGetBackend");
  KB_NI(kronblasGetBackend(h, NULL), "kronblasGetBackend(NULL)");
  KB_NI(kronblasSetStream(h, NULL), "kronblasSetStream");
  KB_NI(kronblasGetStream(h, &stream), "kronblasGetStream");
  KB_NI(kronblasSetPointerMode(h, KRONBLAS_POINTER_MODE_HOST), "kronblasSetPointerMode");
  KB_NI(kronblasSetPointerMode(h, (kronblasPointerMode_t)7), "kronblasSetPointerMode(7)");
  KB_NI(kronblasGetPointerMode(h, &pm), "kronblasGetPointerMode");
  KB_NI(kronblasSetWorkspace(h, NULL, 0), "kronblasSetWorkspace");
  KB_NI(kronblasSetWorkspace(h, NULL, 8), "kronblasSetWorkspace(NULL, 8)");
  KB_NI(kronblasGetWorkspaceSize(h, KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 1, p, q,
                                 &bytes), "kronblasGetWorkspaceSize");
  KB_NI(kronblasGetWorkspaceSize(h, (kronblasDataType_t)9, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, -1, 0,
                                 NULL, NULL, NULL), "kronblasGetWorkspaceSize(bad args)");
  KB_NI(kronblasSetNumThreads(h, 1), "kronblasSetNumThreads");
  KB_NI(kronblasSetNumThreads(h, -1), "kronblasSetNumThreads(-1)");
  KB_NI(kronblasGetNumThreads(h, &nt), "kronblasGetNumThreads");
  {
    kronblasKernelPolicy_t pol;
    kronblasTuningMode_t tm;
    KB_NI(kronblasSetKernelPolicy(h, KRONBLAS_KERNELS_GENERIC), "kronblasSetKernelPolicy");
    KB_NI(kronblasGetKernelPolicy(h, &pol), "kronblasGetKernelPolicy");
    KB_NI(kronblasSetTuningMode(h, KRONBLAS_TUNING_MEASURE), "kronblasSetTuningMode");
    KB_NI(kronblasGetTuningMode(h, &tm), "kronblasGetTuningMode");
  }
  for (ti = 0; ti < 4; ti++)
    for (v = 0; v < KB_NVARIANTS; v++) {
      /* a valid problem (nothing is read: the handle is checked first) and
       * an invalid one */
      unsigned char one[16] = { 0 }, y[64];
      double x[8] = { 0 };
      const void *F[1] = { x };
      const int64_t ldf[] = { 2 };
      const long long sF[] = { 0 };
      kb_call_t c;
      char name[100];
      memset(&c, 0, sizeof c);
      memset(y, 0x5a, sizeof y);
      c.type = kb_types[ti];
      c.variant = v;
      c.m = 1;
      c.nfactors = 1;
      c.p = p;
      c.q = q;
      c.ldf = ldf;
      c.alpha = one;
      c.beta = one;
      c.X = x;
      c.ldx = 2;
      c.F = F;
      c.strideF = sF;
      c.Y = y;
      c.ldy = 2;
      c.batch = 1;
      snprintf(name, sizeof name, "kronblas%c%s", "SDCZ"[ti], kb_variant_name[v] + 0);
      KB_NI(kb_call(h, &c), name);
      c.m = -1;
      c.nfactors = 0;
      c.Y = NULL;
      KB_NI(kb_call(h, &c), name);
      {
        int i, changed = 0;
        for (i = 0; i < (int)sizeof y; i++)
          changed |= y[i] != 0x5a;
        if (changed && bad++ == 0)
          snprintf(first, cap, "%s wrote Y", name);
      }
    }
  /* last: Destroy */
  KB_NI(kronblasDestroy(h), "kronblasDestroy");
#undef KB_NI
  return bad;
}

/* -------------------------------------------------------------- threads */

typedef struct {
  uint64_t seed;
  int bad;
  kronblasStatus_t st;
} kb_thread_arg_t;

static void *kb_thread_main(void *p)
{
  kb_thread_arg_t *a = (kb_thread_arg_t *)p;
  kronblasHandle_t h = NULL;
  kb_rng_t r;
  int k;
  kb_rng_seed(&r, a->seed);
  a->st = kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU);
  if (a->st != KRONBLAS_STATUS_SUCCESS) {
    a->bad = 1;
    return NULL;
  }
  /* one OpenMP thread per call keeps 4 threads at a time on a small machine */
  kronblasSetNumThreads(h, 1 + (int)(a->seed % 2));
  for (k = 0; k < 40; k++) {
    kb_small_t s;
    kb_small_init(&s, &r, kb_types[k % 4], k % KB_NVARIANTS, 0);
    a->st = kb_small_call(h, &s);
    if (a->st != KRONBLAS_STATUS_SUCCESS || kb_small_check(&s) != 0)
      a->bad++;
    kb_small_free(&s);
  }
  if (kronblasDestroy(h) != KRONBLAS_STATUS_SUCCESS)
    a->bad++;
  return NULL;
}

/* ----------------------------------------------------------------- main */

int main(void)
{
  static const kronblasStatus_t codes[] = {
    KRONBLAS_STATUS_SUCCESS, KRONBLAS_STATUS_NOT_INITIALIZED, KRONBLAS_STATUS_ALLOC_FAILED,
    KRONBLAS_STATUS_INVALID_VALUE, KRONBLAS_STATUS_ARCH_MISMATCH, KRONBLAS_STATUS_EXECUTION_FAILED,
    KRONBLAS_STATUS_INTERNAL_ERROR, KRONBLAS_STATUS_NOT_SUPPORTED
  };
  static const char *const names[] = {
    "KRONBLAS_STATUS_SUCCESS", "KRONBLAS_STATUS_NOT_INITIALIZED", "KRONBLAS_STATUS_ALLOC_FAILED",
    "KRONBLAS_STATUS_INVALID_VALUE", "KRONBLAS_STATUS_ARCH_MISMATCH", "KRONBLAS_STATUS_EXECUTION_FAILED",
    "KRONBLAS_STATUS_INTERNAL_ERROR", "KRONBLAS_STATUS_NOT_SUPPORTED"
  };
  static const int values[] = { 0, 1, 3, 7, 8, 13, 14, 15 };
  const int ncodes = (int)(sizeof codes / sizeof codes[0]);
  const uint64_t seed = kb_test_seed();
  kronblasHandle_t h = NULL, h2 = NULL;
  kronblasStatus_t st;
  kb_rng_t r;
  char first[300];
  int i, j, ok;

  /* handles of one and two threads side by side must run as asked, however
   * small the call (lib/env.c, KRONBLAS_CPU_SMALL_WORK); before the first call */
  setenv("KRONBLAS_CPU_SMALL_WORK", "0", 1);
  tap_plan(23);
  tap_diag("seed %" PRIu64 " (KRONBLAS_TEST_SEED=%" PRIu64 " reproduces this run)", seed, seed);
  kb_rng_seed(&r, seed);

  /* ---- status codes, names, strings */
  ok = 1;
  first[0] = '\0';
  for (i = 0; i < ncodes; i++) {
    const char *n = kronblasGetStatusName(codes[i]), *s = kronblasGetStatusString(codes[i]);
    if ((int)codes[i] != values[i] || n == NULL || strcmp(n, names[i]) != 0 || s == NULL || s[0] == '\0') {
      if (ok)
        snprintf(first, sizeof first, "code %d: name %s, string %s", values[i], n ? n : "(null)", s ? s : "(null)");
      ok = 0;
      continue;
    }
    for (j = 0; j < i; j++)
      if (strcmp(s, kronblasGetStatusString(codes[j])) == 0) {
        if (ok)
          snprintf(first, sizeof first, "codes %d and %d have the same string", values[i], values[j]);
        ok = 0;
      }
  }
  tap_ok(ok, "kronblasGetStatusName/String: every code has its enum name and its own description");
  if (!ok)
    tap_diag("%s", first);
  {
    static const int unknown[] = { 2, 4, 9, 16, -1, 1000 };
    ok = 1;
    for (i = 0; i < (int)(sizeof unknown / sizeof unknown[0]); i++) {
      const char *n = kronblasGetStatusName((kronblasStatus_t)unknown[i]);
      const char *s = kronblasGetStatusString((kronblasStatus_t)unknown[i]);
      if (n == NULL || s == NULL || n[0] == '\0' || s[0] == '\0')
        ok = 0;
      else
        for (j = 0; j < ncodes; j++)
          if (strcmp(n, names[j]) == 0)
            ok = 0;
    }
    tap_ok(ok, "kronblasGetStatusName/String: unknown codes give a non-empty answer that names no known code");
  }

  /* ---- version */
  {
    int v = -1, v2 = -1, maj = -1, min = -1, pat = -1;
    st = kronblasGetVersion(NULL, &v);
#ifdef PACKAGE_VERSION
    sscanf(PACKAGE_VERSION, "%d.%d.%d", &maj, &min, &pat);
#else
    maj = KRONBLAS_VERSION_MAJOR;
    min = KRONBLAS_VERSION_MINOR;
    pat = KRONBLAS_VERSION_PATCH;
#endif
    ok = st == KRONBLAS_STATUS_SUCCESS && v == KRONBLAS_VERSION && v == maj * 10000 + min * 100 + pat &&
         KRONBLAS_VERSION == KRONBLAS_VERSION_MAJOR * 10000 + KRONBLAS_VERSION_MINOR * 100 + KRONBLAS_VERSION_PATCH;
    ok = ok && kronblasGetVersion(NULL, NULL) == KRONBLAS_STATUS_INVALID_VALUE;
    tap_ok(ok, "kronblasGetVersion(NULL handle) = %d = KRONBLAS_VERSION, matches the package version %d.%d.%d; "
           "NULL output is INVALID_VALUE", v, maj, min, pat);
    ok = kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_SUCCESS &&
         kronblasGetVersion(h, &v2) == KRONBLAS_STATUS_SUCCESS && v2 == v;
    tap_ok(ok, "kronblasGetVersion with a live handle agrees");
  }

  /* ---- creation */
  {
    kronblasBackend_t be = (kronblasBackend_t)-1;
    st = kronblasCreate(&h2);
    ok = st == KRONBLAS_STATUS_SUCCESS && kronblasGetBackend(h2, &be) == KRONBLAS_STATUS_SUCCESS &&
         (be == KRONBLAS_BACKEND_CPU || be == KRONBLAS_BACKEND_CUDA) &&
         kronblasDestroy(h2) == KRONBLAS_STATUS_SUCCESS;
    tap_ok(ok, "kronblasCreate: %s, backend %d, destroy", kronblasGetStatusName(st), (int)be);
    ok = kronblasGetBackend(h, &be) == KRONBLAS_STATUS_SUCCESS && be == KRONBLAS_BACKEND_CPU &&
         kronblasGetBackend(h, NULL) == KRONBLAS_STATUS_INVALID_VALUE;
    tap_ok(ok, "kronblasGetBackend of a CPU handle is CPU; NULL output is INVALID_VALUE");
  }
  {
    static const int badb[] = { 2, -1, 99 };
    kronblasHandle_t sentinel = (kronblasHandle_t)&ok, hh;
    ok = kronblasCreate(NULL) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasCreateWithBackend(NULL, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_INVALID_VALUE;
    for (i = 0; i < 3; i++) {
      hh = sentinel;
      if (kronblasCreateWithBackend(&hh, (kronblasBackend_t)badb[i]) != KRONBLAS_STATUS_INVALID_VALUE || hh != sentinel)
        ok = 0;
    }
    tap_ok(ok, "kronblasCreate(NULL), CreateWithBackend(NULL) and invalid backend enums are INVALID_VALUE, "
           "output untouched");
  }
  {
    kronblasHandle_t hc = NULL;
    kronblasBackend_t be = (kronblasBackend_t)-1;
    st = kronblasCreateWithBackend(&hc, KRONBLAS_BACKEND_CUDA);
    if (st == KRONBLAS_STATUS_SUCCESS) {
      ok = kronblasGetBackend(hc, &be) == KRONBLAS_STATUS_SUCCESS && be == KRONBLAS_BACKEND_CUDA &&
           kronblasDestroy(hc) == KRONBLAS_STATUS_SUCCESS;
      tap_ok(ok, "CUDA backend: created (a GPU is here), backend CUDA, destroyed");
    } else {
      tap_ok(st == KRONBLAS_STATUS_NOT_SUPPORTED, "CUDA backend without a usable GPU or CUDA build: %s "
             "(want NOT_SUPPORTED)", kronblasGetStatusName(st));
    }
  }

  /* ---- NULL, destroyed and foreign handles */
  first[0] = '\0';
  i = kb_all_not_initialized(NULL, first, sizeof first);
  tap_ok(i == 0, "NULL handle: every function taking a handle gives NOT_INITIALIZED before checking "
         "other arguments (%d wrong%s%s)", i, i ? ": " : "", first);
  {
    kronblasHandle_t hd = NULL;
    if (kronblasCreateWithBackend(&hd, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS ||
        kronblasDestroy(hd) != KRONBLAS_STATUS_SUCCESS) {
      tap_ok(0, "destroyed handle: create/destroy failed");
    } else {
      first[0] = '\0';
      i = kb_all_not_initialized(hd, first, sizeof first);
      tap_ok(i == 0, "destroyed handle: every function gives NOT_INITIALIZED, a second destroy too (%d wrong%s%s)",
             i, i ? ": " : "", first);
    }
  }
  {
    /* a pointer that was never a handle: must not be read as one */
    uint64_t fake[64];
    memset(fake, 0, sizeof fake);
    first[0] = '\0';
    i = kb_all_not_initialized((kronblasHandle_t)(void *)fake, first, sizeof first);
    tap_ok(i == 0, "a pointer that was never a handle: NOT_INITIALIZED everywhere (%d wrong%s%s)",
           i, i ? ": " : "", first);
  }

  /* ---- pointer mode */
  {
    kronblasPointerMode_t pm = (kronblasPointerMode_t)-1, pm2 = (kronblasPointerMode_t)-1;
    kb_small_t s;
    int64_t nbad;
    ok = kronblasGetPointerMode(h, &pm) == KRONBLAS_STATUS_SUCCESS && pm == KRONBLAS_POINTER_MODE_HOST;
    ok = ok && kronblasSetPointerMode(h, KRONBLAS_POINTER_MODE_DEVICE) == KRONBLAS_STATUS_SUCCESS &&
         kronblasGetPointerMode(h, &pm) == KRONBLAS_STATUS_SUCCESS && pm == KRONBLAS_POINTER_MODE_DEVICE;
    ok = ok && kronblasSetPointerMode(h, (kronblasPointerMode_t)2) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasSetPointerMode(h, (kronblasPointerMode_t)-1) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetPointerMode(h, &pm2) == KRONBLAS_STATUS_SUCCESS && pm2 == KRONBLAS_POINTER_MODE_DEVICE &&
         kronblasGetPointerMode(h, NULL) == KRONBLAS_STATUS_INVALID_VALUE;
    tap_ok(ok, "pointer mode: HOST by default, set/get DEVICE, invalid modes are INVALID_VALUE and change nothing");
    /* on the CPU backend "device" memory is host memory */
    kb_small_init(&s, &r, KRONBLAS_R_64F, KB_V_GEKMM_64, 0);
    st = kb_small_call(h, &s);
    nbad = st == KRONBLAS_STATUS_SUCCESS ? kb_small_check(&s) : -1;
    kb_small_free(&s);
    tap_ok(st == KRONBLAS_STATUS_SUCCESS && nbad == 0, "pointer mode DEVICE on the CPU backend computes "
           "correctly (%s, %" PRId64 " wrong)", kronblasGetStatusName(st), nbad);
    kronblasSetPointerMode(h, KRONBLAS_POINTER_MODE_HOST);
  }

  /* ---- streams on the CPU backend */
  {
    void *stream = (void *)&ok;
    ok = kronblasSetStream(h, NULL) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetStream(h, (void *)&stream) == KRONBLAS_STATUS_NOT_SUPPORTED &&
         kronblasGetStream(h, &stream) == KRONBLAS_STATUS_SUCCESS && stream == NULL &&
         kronblasGetStream(h, NULL) == KRONBLAS_STATUS_INVALID_VALUE;
    tap_ok(ok, "streams on the CPU backend: NULL is accepted, a stream is NOT_SUPPORTED, GetStream gives NULL");
  }

  /* ---- thread count */
  {
    int nt = -1, nt2 = -1;
    ok = kronblasGetNumThreads(h, &nt) == KRONBLAS_STATUS_SUCCESS && nt == 0 &&
         kronblasSetNumThreads(h, 3) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetNumThreads(h, -1) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetNumThreads(h, &nt2) == KRONBLAS_STATUS_SUCCESS && nt2 == 3 &&
         kronblasGetNumThreads(h, NULL) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasSetNumThreads(h, 0) == KRONBLAS_STATUS_SUCCESS;
    tap_ok(ok, "thread count: 0 by default, set/get, negative is INVALID_VALUE and changes nothing");
  }

  /* ---- planning settings: stored on every backend, Get returns what Set stored */
  {
    kronblasKernelPolicy_t pol = KRONBLAS_KERNELS_ALL, pol0 = KRONBLAS_KERNELS_GENERIC;
    kronblasTuningMode_t tm = KRONBLAS_TUNING_MODEL, tm0 = KRONBLAS_TUNING_MEASURE;
    ok = kronblasGetKernelPolicy(h, &pol0) == KRONBLAS_STATUS_SUCCESS && pol0 == KRONBLAS_KERNELS_ALL &&
         kronblasGetTuningMode(h, &tm0) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetKernelPolicy(h, KRONBLAS_KERNELS_NO_FUSION) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetKernelPolicy(h, (kronblasKernelPolicy_t)99) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetKernelPolicy(h, &pol) == KRONBLAS_STATUS_SUCCESS && pol == KRONBLAS_KERNELS_NO_FUSION &&
         kronblasGetKernelPolicy(h, NULL) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasSetTuningMode(h, KRONBLAS_TUNING_MEASURE) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetTuningMode(h, (kronblasTuningMode_t)-1) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetTuningMode(h, &tm) == KRONBLAS_STATUS_SUCCESS && tm == KRONBLAS_TUNING_MEASURE &&
         kronblasGetTuningMode(h, NULL) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasSetKernelPolicy(h, pol0) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetTuningMode(h, tm0) == KRONBLAS_STATUS_SUCCESS;
    tap_ok(ok, "kernel policy and tuning mode: ALL by default, set/get agree on a CPU handle, out of range is "
               "INVALID_VALUE and changes nothing (got policy %d, mode %d)", (int)pol, (int)tm);
  }

  /* ---- workspace */
  {
    const int64_t p[] = { 3, 4 }, q[] = { 2, 5 };
    size_t bytes = 1;
    ok = kronblasGetWorkspaceSize(h, KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 5, 2, p, q,
                                  NULL) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetWorkspaceSize(h, (kronblasDataType_t)4, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 5, 2,
                                  p, q, &bytes) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetWorkspaceSize(h, KRONBLAS_R_64F, (kronblasSideMode_t)2, KRONBLAS_OP_N, KRONBLAS_OP_N, 5, 2, p, q,
                                  &bytes) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetWorkspaceSize(h, KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, -1, 2, p, q,
                                  &bytes) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetWorkspaceSize(h, KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 5, 0, p, q,
                                  &bytes) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasGetWorkspaceSize(h, KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 5, 2, NULL, q,
                                  &bytes) == KRONBLAS_STATUS_INVALID_VALUE &&
         kronblasSetWorkspace(h, NULL, 16) == KRONBLAS_STATUS_INVALID_VALUE;
    tap_ok(ok, "kronblasGetWorkspaceSize checks its arguments; SetWorkspace(NULL, 16) is INVALID_VALUE");
  }
  {
    /* For every type, side and entry point family: the size asked for is
     * enough (also when Y is X), one byte less is ALLOC_FAILED with Y
     * untouched, and the user's memory is what gets used. */
    int too_small_ok = 1, exact_ok = 1, used = 0, ti, k, nprob = 0;
    char why[300] = "";
    for (ti = 0; ti < 4; ti++)
      for (k = 0; k < 2 * KB_NVARIANTS; k++) {
        kb_small_t s;
        size_t bytes = 0, need;
        unsigned char *ws;
        int alias = k >= KB_NVARIANTS;
        kb_small_init(&s, &r, kb_types[ti], k % KB_NVARIANTS, alias);
        st = kronblasGetWorkspaceSize(h, s.type, (kronblasSideMode_t)s.side, (kronblasOperation_t)s.tX,
                                      (kronblasOperation_t)s.tF, s.m, s.n, s.p, s.q, &bytes);
        need = bytes;
        ws = malloc(need + 64);
        if (st != KRONBLAS_STATUS_SUCCESS || ws == NULL) {
          exact_ok = 0;
          snprintf(why, sizeof why, "GetWorkspaceSize: %s", kronblasGetStatusName(st));
          kb_small_free(&s);
          free(ws);
          continue;
        }
        nprob++;
        if (need > 0) {
          /* one byte short */
          memset(ws, 0xa5, need + 64);
          kronblasSetWorkspace(h, ws, need - 1);
          st = kb_small_call(h, &s);
          if (st != KRONBLAS_STATUS_ALLOC_FAILED ||
              memcmp(s.Y, s.Y0, (size_t)s.nY * kb_oracle_type_size(s.type)) != 0) {
            if (too_small_ok)
              snprintf(why, sizeof why, "%s%s alias=%d, %zu bytes: one byte short gave %s%s",
                       kb_oracle_type_name(s.type), kb_variant_name[s.variant], alias, need,
                       kronblasGetStatusName(st), st == KRONBLAS_STATUS_ALLOC_FAILED ? " and changed Y" : "");
            too_small_ok = 0;
            memcpy(s.Y, s.Y0, (size_t)s.nY * kb_oracle_type_size(s.type));
          }
        }
        /* exactly enough, at an odd offset so alignment is not assumed */
        memset(ws, 0xa5, need + 64);
        kronblasSetWorkspace(h, need ? ws + 8 : NULL, need);
        st = kb_small_call(h, &s);
        if (st != KRONBLAS_STATUS_SUCCESS || kb_small_check(&s) != 0) {
          if (exact_ok)
            snprintf(why, sizeof why, "%s%s alias=%d, %zu bytes: %s", kb_oracle_type_name(s.type),
                     kb_variant_name[s.variant], alias, need, kronblasGetStatusName(st));
          exact_ok = 0;
        }
        {
          size_t b;
          for (b = 8; b < need + 8; b++)
            if (ws[b] != 0xa5) {
              used++;
              break;
            }
          /* nothing past the end */
          for (b = need + 8; b < need + 64; b++)
            if (ws[b] != 0xa5) {
              exact_ok = 0;
              snprintf(why, sizeof why, "a call wrote past the end of the user workspace");
            }
          for (b = 0; b < 8; b++)
            if (ws[b] != 0xa5) {
              exact_ok = 0;
              snprintf(why, sizeof why, "a call wrote before the start of the user workspace");
            }
        }
        kronblasSetWorkspace(h, NULL, 0);
        kb_small_free(&s);
        free(ws);
      }
    tap_ok(too_small_ok, "user workspace one byte smaller than kronblasGetWorkspaceSize: ALLOC_FAILED, Y untouched%s%s",
           too_small_ok ? "" : ": ", too_small_ok ? "" : why);
    tap_ok(exact_ok && nprob == 32, "user workspace of exactly kronblasGetWorkspaceSize bytes: correct results for "
           "every type and entry point, with and without Y = X, nothing written outside it (%d problems, the "
           "workspace was written in %d)%s%s", nprob, used, exact_ok ? "" : ": ", exact_ok ? "" : why);
  }
  {
    /* Y entries landing on other entries' X need the results staged before
     * any Y is written: that too must fit in the size the library gave. */
    int ti, bad = 0;
    char why[200] = "";
    for (ti = 0; ti < 4; ti++) {
      const kronblasDataType_t type = kb_types[ti];
      const size_t esz = kb_oracle_type_size(type);
      const int64_t B = 20, M = 3, p[2] = { 4, 3 }, q[2] = { 4, 3 }, ldf[2] = { 4, 3 }, KL = 12;
      const long long sF[2] = { 0, 0 }, s = KL * M;
      unsigned char *buf = malloc((size_t)((B + 1) * s) * esz), *snap = malloc((size_t)((B + 1) * s) * esz);
      unsigned char *f0 = malloc(16 * esz), *f1 = malloc(9 * esz), one[16] = { 0 }, zero[16] = { 0 }, *ws;
      const void *F[2] = { f0, f1 };
      long double ref[2 * 36], mag[36];
      size_t bytes = 0;
      kb_call_t c;
      int64_t b;
      kb_rng_fill(&r, type, buf, (B + 1) * s);
      kb_rng_fill(&r, type, f0, 16);
      kb_rng_fill(&r, type, f1, 9);
      memcpy(snap, buf, (size_t)((B + 1) * s) * esz);
      if (type == KRONBLAS_R_32F || type == KRONBLAS_C_32F)
        *(float *)one = 1.0f;
      else
        *(double *)one = 1.0;
      st = kronblasGetWorkspaceSize(h, type, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, M, 2, p, q, &bytes);
      ws = malloc(bytes + 1);
      kronblasSetWorkspace(h, bytes ? ws : NULL, bytes);
      memset(&c, 0, sizeof c);
      c.type = type;
      c.variant = ti % 2 ? KB_V_SB : KB_V_SB_64;
      c.m = M;
      c.nfactors = 2;
      c.p = p;
      c.q = q;
      c.ldf = ldf;
      c.alpha = one;
      c.beta = zero;
      c.X = buf;
      c.ldx = KL;
      c.strideX = s;
      c.F = F;
      c.strideF = sF;
      c.Y = buf + s * esz;
      c.ldy = KL;
      c.strideY = s;
      c.batch = B;
      st = st == KRONBLAS_STATUS_SUCCESS ? kb_call(h, &c) : st;
      for (b = 0; b < B && st == KRONBLAS_STATUS_SUCCESS; b++) {
        int64_t nbad = -1;
        if (kb_oracle_gekmm(type, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, M, 2, p, q, one,
                            snap + b * s * esz, KL, F, ldf, zero, NULL, KL, ref, mag) == 0)
          nbad = kb_oracle_compare(type, KRONBLAS_SIDE_LEFT, M, KL, buf + (b + 1) * s * esz, KL, ref, mag, 9,
                                   kb_oracle_type_is_complex(type) ? 4.0 : 2.0, NULL);
        if (nbad != 0) {
          st = KRONBLAS_STATUS_INTERNAL_ERROR;   /* marks the wrong result below */
          break;
        }
      }
      if (st != KRONBLAS_STATUS_SUCCESS) {
        if (bad++ == 0)
          snprintf(why, sizeof why, "%s, %zu bytes: %s", kb_oracle_type_name(type), bytes,
                   st == KRONBLAS_STATUS_INTERNAL_ERROR ? "wrong result" : kronblasGetStatusName(st));
      }
      kronblasSetWorkspace(h, NULL, 0);
      free(ws);
      free(buf);
      free(snap);
      free(f0);
      free(f1);
    }
    tap_ok(bad == 0, "user workspace of kronblasGetWorkspaceSize bytes, batch of 20 whose Y entries are other "
           "entries' X: correct for every type%s%s", bad ? ": " : "", why);
  }
  {
    /* back to the handle's own workspace */
    kb_small_t s;
    int64_t nbad;
    kb_small_init(&s, &r, KRONBLAS_C_64F, KB_V_SB_64, 0);
    st = kb_small_call(h, &s);
    nbad = st == KRONBLAS_STATUS_SUCCESS ? kb_small_check(&s) : -1;
    kb_small_free(&s);
    tap_ok(st == KRONBLAS_STATUS_SUCCESS && nbad == 0,
           "after SetWorkspace(NULL, 0) the handle's own workspace is used again (%s)", kronblasGetStatusName(st));
  }

  /* ---- several handles in several threads */
  {
    enum { NT = 4 };
    pthread_t th[NT];
    kb_thread_arg_t a[NT];
    int bad = 0, started = 0;
    for (i = 0; i < NT; i++) {
      a[i].seed = kb_rng_next(&r);
      a[i].bad = 0;
      a[i].st = KRONBLAS_STATUS_SUCCESS;
      if (pthread_create(&th[i], NULL, kb_thread_main, &a[i]) == 0)
        started++;
      else
        a[i].bad = -1;
    }
    for (i = 0; i < NT; i++)
      if (a[i].bad != -1)
        pthread_join(th[i], NULL);
    for (i = 0; i < NT; i++)
      bad += a[i].bad != 0;
    tap_ok(bad == 0 && started == NT, "%d threads, one handle each, 40 problems each: %d threads saw a wrong "
           "result", NT, bad);
  }

  tap_ok(kronblasDestroy(h) == KRONBLAS_STATUS_SUCCESS && kronblasDestroy(h) == KRONBLAS_STATUS_NOT_INITIALIZED,
         "destroy, then destroy again is NOT_INITIALIZED");
  return tap_done();
}
