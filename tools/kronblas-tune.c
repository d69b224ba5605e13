/* kronblas-tune - measures plans for a list of GEKMM shapes and writes them
 * to a wisdom file, so that later programs (KRONBLAS_WISDOM_FILE, or
 * kronblasImportWisdom) start with tuned plans.  See --help and
 * doc/tuning.md. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <kronblas.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "kb_shapes.h"

#define KT_MAXF KB_SHAPE_MAXF

static const char *kt_prog = "kronblas-tune";

typedef kb_shape_t kt_shape_t;

static void kt_usage(FILE *f)
{
  fprintf(f,
"NAME\n"
"  kronblas-tune - measure kronblas plans for GEKMM shapes and save them\n"
"\n"
"SYNOPSIS\n"
"  kronblas-tune [--backend cpu|cuda] [--type s|d|c|z] [--output FILE]\n"
"                [--shapes standard|cpu|realworld] [SHAPE...]\n"
"\n"
"DESCRIPTION\n"
"  For each shape, runs one GEKMM (side LEFT, no transposes, alpha 1,\n"
"  beta 0, random operands) on a handle in KRONBLAS_TUNING_MEASURE mode, so\n"
"  that the library measures and keeps the fastest plan, then writes the\n"
"  handle's plans to the wisdom file with kronblasExportWisdom.  A valid\n"
"  file of the same device and library version is merged with, not\n"
"  replaced.  Progress goes to stderr as \"[i/n] SHAPE TYPE: tuned in X.XX s\".\n"
"\n"
"  SHAPE is M_PxQ^N (M rows, N factors of P x Q) or M_ followed by a comma\n"
"  list of PxQ or PxQ^N, e.g. 1024_8x8^5 or 10_52x50,65x20.\n"
"\n"
"OPTIONS\n"
"  --backend cpu|cuda  the backend to tune (default: cuda if a GPU is\n"
"                      usable, else cpu)\n"
"  --type s|d|c|z      element type: float, double, complex, double complex\n"
"                      (default s); may be given as a list, e.g. s,d\n"
"  --output FILE       the wisdom file (default: $KRONBLAS_WISDOM_FILE, else\n"
"                      ./kronblas.wisdom)\n"
"  --shapes SET        add a named set: standard (issue 3's 15 GPU shapes),\n"
"                      cpu (issue 4's CPU shapes) or realworld (the FastKron\n"
"                      paper's Table 4)\n"
"  -h, --help          this text\n"
"\n"
"EXIT STATUS\n"
"  0 when every shape was tuned and the file written; 1 on any failure\n"
"  (the file is written with what was tuned when possible); 2 on bad\n"
"  arguments.\n");
}

static void kt_bad_args(const char *fmt, const char *arg)
{
  fprintf(stderr, "%s: ", kt_prog);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry '%s --help'.\n", kt_prog);
  exit(2);
}

static double kt_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t kt_esz(kronblasDataType_t t)
{
  static const size_t s[] = { 4, 8, 8, 16 };
  return s[t];
}

/* Elements of X (K x m), Y (L x m) and factor i (q x p), or -1 on
 * overflow or past max_bytes in all. */
static int kt_sizes(const kt_shape_t *sh, size_t esz, int64_t *nx, int64_t *ny, int64_t *nf)
{
  int64_t K = 1, L = 1, total;
  int i;
  for (i = 0; i < sh->n; i++) {
    if (__builtin_mul_overflow(K, sh->p[i], &K) || __builtin_mul_overflow(L, sh->q[i], &L) ||
        __builtin_mul_overflow(sh->p[i], sh->q[i], &nf[i]))
      return -1;
  }
  if (__builtin_mul_overflow(K, sh->m, nx) || __builtin_mul_overflow(L, sh->m, ny) ||
      __builtin_add_overflow(*nx, *ny, &total) || __builtin_mul_overflow(total, (int64_t)esz, &total))
    return -1;
  return 0;
}

static void kt_fill(void *x, int64_t count, kronblasDataType_t t, uint64_t *state)
{
  int64_t i, reals = count * (t >= KRONBLAS_C_32F ? 2 : 1);
  for (i = 0; i < reals; i++) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    double v;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    v = (double)(z >> 11) * 0x1.0p-52 - 1.0;
    if (t == KRONBLAS_R_32F || t == KRONBLAS_C_32F)
      ((float *)x)[i] = (float)v;
    else
      ((double *)x)[i] = v;
  }
}

/* Buffers of the backend: host memory or, for CUDA, device memory. */
static void *kt_alloc(int cuda, size_t bytes)
{
#ifdef HAVE_CUDA
  if (cuda) {
    void *d = NULL;
    return cudaMalloc(&d, bytes ? bytes : 1) == cudaSuccess ? d : NULL;
  }
#endif
  (void)cuda;
  return malloc(bytes ? bytes : 1);
}

static void kt_free(int cuda, void *p)
{
  if (p == NULL)
    return;
#ifdef HAVE_CUDA
  if (cuda) {
    cudaFree(p);
    return;
  }
#endif
  free(p);
}

/* Random host data copied into a buffer of the backend. */
static void *kt_random(int cuda, int64_t count, kronblasDataType_t t, uint64_t *state)
{
  size_t bytes = (size_t)count * kt_esz(t);
  void *h = malloc(bytes ? bytes : 1), *d;
  if (h == NULL)
    return NULL;
  kt_fill(h, count, t, state);
  if (!cuda)
    return h;
#ifdef HAVE_CUDA
  d = kt_alloc(cuda, bytes);
  if (d != NULL && cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    kt_free(cuda, d);
    d = NULL;
  }
#else
  d = NULL;
#endif
  free(h);
  return d;
}

/* One tuning call; 0 on success, else prints why. */
static int kt_tune_one(kronblasHandle_t h, int cuda, const kt_shape_t *sh, kronblasDataType_t t)
{
  static const double one[2] = { 1.0, 0.0 }, zero[2] = { 0.0, 0.0 };
  static const float onef[2] = { 1.0f, 0.0f }, zerof[2] = { 0.0f, 0.0f };
  int64_t nx, ny, nf[KT_MAXF], ldf[KT_MAXF], K = 1, L = 1;
  void *X = NULL, *Y = NULL, *F[KT_MAXF];
  uint64_t state = 0x6b726f6e;
  kronblasStatus_t st = KRONBLAS_STATUS_ALLOC_FAILED;
  int i, rc = 1;

  memset(F, 0, sizeof F);
  if (kt_sizes(sh, kt_esz(t), &nx, &ny, nf) != 0) {
    fprintf(stderr, "%s: %s: sizes overflow\n", kt_prog, sh->name);
    return 1;
  }
  for (i = 0; i < sh->n; i++) {
    K *= sh->p[i];
    L *= sh->q[i];
    ldf[i] = sh->q[i];
    F[i] = kt_random(cuda, nf[i], t, &state);
    if (F[i] == NULL)
      goto out;
  }
  X = kt_random(cuda, nx, t, &state);
  Y = kt_alloc(cuda, (size_t)ny * kt_esz(t));
  if (X == NULL || Y == NULL)
    goto out;
  /* LEFT, N, N: X is K x m and Y is L x m, both contiguous along the
   * vectors, as issue 3's shapes are. */
  switch (t) {
  case KRONBLAS_R_32F:
    st = kronblasSgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, sh->m, sh->n, sh->p,
                           sh->q, onef, X, K, (const float *const *)F, ldf, zerof, Y, L);
    break;
  case KRONBLAS_R_64F:
    st = kronblasDgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, sh->m, sh->n, sh->p,
                           sh->q, one, X, K, (const double *const *)F, ldf, zero, Y, L);
    break;
  case KRONBLAS_C_32F:
    st = kronblasCgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, sh->m, sh->n, sh->p,
                           sh->q, (const kronblasComplex *)onef, X, K,
                           (const kronblasComplex *const *)F, ldf, (const kronblasComplex *)zerof,
                           Y, L);
    break;
  case KRONBLAS_C_64F:
    st = kronblasZgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, sh->m, sh->n, sh->p,
                           sh->q, (const kronblasDoubleComplex *)one, X, K,
                           (const kronblasDoubleComplex *const *)F, ldf,
                           (const kronblasDoubleComplex *)zero, Y, L);
    break;
  }
#ifdef HAVE_CUDA
  if (st == KRONBLAS_STATUS_SUCCESS && cuda && cudaDeviceSynchronize() != cudaSuccess)
    st = KRONBLAS_STATUS_EXECUTION_FAILED;
#endif
  rc = st == KRONBLAS_STATUS_SUCCESS ? 0 : 1;
out:
  if (rc != 0)
    fprintf(stderr, "%s: %s: %s\n", kt_prog, sh->name,
            st == KRONBLAS_STATUS_ALLOC_FAILED ? "out of memory" : kronblasGetStatusString(st));
  kt_free(cuda, X);
  kt_free(cuda, Y);
  for (i = 0; i < sh->n; i++)
    kt_free(cuda, F[i]);
  return rc;
}

static void kt_add_shape(kt_shape_t **v, int *n, int *cap, const char *s)
{
  if (*n == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    *v = realloc(*v, (size_t)*cap * sizeof **v);
    if (*v == NULL) {
      fprintf(stderr, "%s: out of memory\n", kt_prog);
      exit(1);
    }
  }
  if (kb_shape_parse(s, &(*v)[*n]) != NULL)
    kt_bad_args("bad shape '%s' (M_PxQ^N or M_PxQ,PxQ,...)", s);
  (*n)++;
}

int main(int argc, char **argv)
{
  static const char tnames[] = "sdcz";
  const char *output = NULL, *env = getenv("KRONBLAS_WISDOM_FILE");
  kronblasDataType_t types[4];
  int ntypes = 0, backend = -1, nshapes = 0, cap = 0, i, j, failed = 0, total, done = 0;
  kt_shape_t *shapes = NULL;
  kronblasHandle_t h = NULL;
  kronblasStatus_t st;

  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      kt_usage(stdout);
      return 0;
    } else if (!strcmp(a, "--backend") && i + 1 < argc) {
      a = argv[++i];
      if (!strcmp(a, "cpu"))
        backend = KRONBLAS_BACKEND_CPU;
      else if (!strcmp(a, "cuda"))
        backend = KRONBLAS_BACKEND_CUDA;
      else
        kt_bad_args("unknown backend '%s' (cpu, cuda)", a);
    } else if (!strcmp(a, "--type") && i + 1 < argc) {
      const char *s = argv[++i];
      for (; *s; s++) {
        const char *c = *s == ',' ? NULL : strchr(tnames, *s);
        if (*s == ',')
          continue;
        if (c == NULL || ntypes == 4)
          kt_bad_args("bad --type '%s' (s, d, c, z)", argv[i]);
        types[ntypes++] = (kronblasDataType_t)(c - tnames);
      }
    } else if (!strcmp(a, "--output") && i + 1 < argc) {
      output = argv[++i];
    } else if (!strcmp(a, "--shapes") && i + 1 < argc) {
      const char *const *set = kb_shape_set(argv[++i]);
      if (set == NULL)
        kt_bad_args("unknown shape set '%s' (standard, cpu, realworld)", argv[i]);
      for (; *set; set++)
        kt_add_shape(&shapes, &nshapes, &cap, *set);
    } else if (a[0] == '-') {
      kt_bad_args("unknown option or missing value: %s", a);
    } else {
      kt_add_shape(&shapes, &nshapes, &cap, a);
    }
  }
  if (nshapes == 0)
    kt_bad_args("%s", "no shapes given (SHAPE arguments or --shapes)");
  if (ntypes == 0)
    types[ntypes++] = KRONBLAS_R_32F;
  if (output == NULL)
    output = env != NULL && *env ? env : "kronblas.wisdom";

  if (backend < 0) {
    st = kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CUDA);
    if (st != KRONBLAS_STATUS_SUCCESS)
      st = kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU);
  } else {
    st = kronblasCreateWithBackend(&h, (kronblasBackend_t)backend);
  }
  if (st != KRONBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "%s: cannot create a %s handle: %s\n", kt_prog,
            backend == KRONBLAS_BACKEND_CPU ? "CPU" : backend == KRONBLAS_BACKEND_CUDA ? "CUDA" : "kronblas",
            kronblasGetStatusString(st));
    free(shapes);
    return 1;
  }
  {
    kronblasBackend_t b = KRONBLAS_BACKEND_CPU;
    kronblasGetBackend(h, &b);
    backend = (int)b;
  }
  st = kronblasSetTuningMode(h, KRONBLAS_TUNING_MEASURE);
  if (st != KRONBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "%s: cannot set the tuning mode: %s\n", kt_prog, kronblasGetStatusString(st));
    kronblasDestroy(h);
    free(shapes);
    return 1;
  }
  fprintf(stderr, "%s: %d shape(s) x %d type(s) on the %s backend -> %s\n", kt_prog, nshapes,
          ntypes, backend == KRONBLAS_BACKEND_CUDA ? "cuda" : "cpu", output);
  total = nshapes * ntypes;
  for (i = 0; i < nshapes; i++)
    for (j = 0; j < ntypes; j++) {
      double t0 = kt_now();
      int rc = kt_tune_one(h, backend == KRONBLAS_BACKEND_CUDA, &shapes[i], types[j]);
      done++;
      if (rc == 0)
        fprintf(stderr, "[%d/%d] %s %c: tuned in %.2f s\n", done, total, shapes[i].name,
                tnames[types[j]], kt_now() - t0);
      else
        fprintf(stderr, "[%d/%d] %s %c: FAILED\n", done, total, shapes[i].name, tnames[types[j]]);
      failed += rc;
    }
  st = kronblasExportWisdom(h, output);
  if (st != KRONBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "%s: cannot write %s: %s\n", kt_prog, output, kronblasGetStatusString(st));
    failed++;
  } else {
    fprintf(stderr, "%s: wrote %s\n", kt_prog, output);
  }
  kronblasDestroy(h);
  free(shapes);
  return failed ? 1 : 0;
}
