/* bench_cpu.c - the CPU baselines of kronblas-bench through OpenBLAS (an
 * optional dependency of the tools, never of the library) and the
 * machine's ceilings measured in the same run. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "kb_bench.h"
#include "../tests/kb_oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef HAVE_OPENBLAS
#include <cblas.h>
#endif

#ifdef _OPENMP
#define KB_BENCH_OMP(x) _Pragma(x)
#else
#define KB_BENCH_OMP(x)
#endif

static double kb_bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Copy bandwidth: a large buffer copied by nthreads threads, each its own
 * contiguous part, counting bytes read and written. */
double kb_bench_cpu_copy_bw(int nthreads)
{
  const size_t bytes = (size_t)256 << 20;
  char *a = malloc(bytes), *b = malloc(bytes);
  double t[5];
  int rep, nt = nthreads > 0 ? nthreads : 1;
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    return 0.0;
  }
  memset(a, 1, bytes);
  memset(b, 2, bytes);
  for (rep = -1; rep < 5; rep++) {
    double t0 = kb_bench_now();
    int i;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (i = 0; i < nt; i++) {
      size_t lo = bytes / (size_t)nt * (size_t)i;
      size_t hi = i == nt - 1 ? bytes : bytes / (size_t)nt * (size_t)(i + 1);
      memcpy(b + lo, a + lo, hi - lo);
    }
    if (rep >= 0)
      t[rep] = kb_bench_now() - t0;
  }
  free(a);
  free(b);
  return 2.0 * (double)bytes / kb_bench_median(t, 5);
}

/* Elements of 4, 8 or 16 bytes, copied as such. */
typedef struct { double a, b; } kb_bench_e16_t;

#define KB_BENCH_PERMUTE(T)                                                              \
  static void kb_bench_permute_##T(const T *src, T *dst, int64_t inner, int64_t d1,      \
                                   int64_t d2, int64_t outer, int nt)                     \
  {                                                                                       \
    /* threads only where there is enough to copy to pay for waking them */               \
    const int big = inner * d1 * d2 * outer > 65536;                                      \
    int64_t t;                                                                            \
    (void)big;                                                                            \
    (void)nt;                                                                             \
    if (inner == 1) {                                                                     \
      /* blocked transpose of each (d1 x d2) matrix; tiles keep both the reads  \
       * and the writes within a few cache lines */                                      \
      const int64_t TB = 32, nb1 = (d1 + TB - 1) / TB, nb2 = (d2 + TB - 1) / TB;           \
      KB_BENCH_OMP("omp parallel for num_threads(nt) schedule(static) if(big)")           \
      for (t = 0; t < outer * nb2 * nb1; t++) {                                           \
        int64_t oo = t / (nb1 * nb2), j2 = (t / nb1) % nb2 * TB, j1 = t % nb1 * TB;        \
        int64_t e1 = j1 + TB < d1 ? j1 + TB : d1, e2 = j2 + TB < d2 ? j2 + TB : d2, b1, b2; \
        const T *s = src + oo * d1 * d2;                                                  \
        T *d = dst + oo * d1 * d2;                                                        \
        for (b2 = j2; b2 < e2; b2++)                                                      \
          for (b1 = j1; b1 < e1; b1++)                                                    \
            d[b2 + d2 * b1] = s[b1 + d1 * b2];                                            \
      }                                                                                   \
      return;                                                                             \
    }                                                                                     \
    KB_BENCH_OMP("omp parallel for num_threads(nt) schedule(static) if(big)")             \
    for (t = 0; t < outer * d1; t++) {                                                    \
      int64_t oo = t / d1, b1 = t % d1, b2, i;                                            \
      for (b2 = 0; b2 < d2; b2++) {                                                       \
        const T *s = src + inner * (b1 + d1 * (b2 + d2 * oo));                            \
        T *d = dst + inner * (b2 + d2 * (b1 + d1 * oo));                                  \
        for (i = 0; i < inner; i++)                                                       \
          d[i] = s[i];                                                                    \
      }                                                                                   \
    }                                                                                     \
  }

KB_BENCH_PERMUTE(float)
KB_BENCH_PERMUTE(double)
KB_BENCH_PERMUTE(kb_bench_e16_t)

static void kb_bench_cpu_permute(const void *src, void *dst, size_t esz, int64_t inner, int64_t d1,
    int64_t d2, int64_t outer, int nt)
{
  if (esz == 4)
    kb_bench_permute_float(src, dst, inner, d1, d2, outer, nt);
  else if (esz == 8)
    kb_bench_permute_double(src, dst, inner, d1, d2, outer, nt);
  else
    kb_bench_permute_kb_bench_e16_t(src, dst, inner, d1, d2, outer, nt);
}

#ifdef HAVE_OPENBLAS

/* OpenBLAS' idle threads spin (with sched_yield) for a while after each
 * call; timing kronblas' OpenMP threads while they spin would charge their
 * CPU time to kronblas, so kb_bench_cpu_settle waits them out. */
static int kb_bench_blas_used;

int kb_bench_cpu_have_blas(void)
{
  return 1;
}

void kb_bench_cpu_settle(void)
{
  /* OpenBLAS parks an idle thread after 2^28 cycles (THREAD_TIMEOUT) */
  if (kb_bench_blas_used) {
    struct timespec ts = { 0, 120000000L };
    nanosleep(&ts, NULL);
    kb_bench_blas_used = 0;
  }
}

static enum CBLAS_TRANSPOSE kb_bench_cblas_op(char op)
{
  return op == 'N' ? CblasNoTrans : op == 'T' ? CblasTrans : CblasConjTrans;
}

/* One column-major GEMM, alpha 1, beta 0. */
static void kb_bench_cblas_gemm(kronblasDataType_t type, char opa, char opb, int64_t M, int64_t N,
    int64_t Kd, const void *A, int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc)
{
  static const float sone[2] = { 1.0f, 0.0f }, szero[2] = { 0.0f, 0.0f };
  static const double done[2] = { 1.0, 0.0 }, dzero[2] = { 0.0, 0.0 };
  enum CBLAS_TRANSPOSE ta = kb_bench_cblas_op(opa), tb = kb_bench_cblas_op(opb);
  switch (type) {
  case KRONBLAS_R_32F:
    cblas_sgemm(CblasColMajor, ta, tb, (int)M, (int)N, (int)Kd, 1.0f, A, (int)lda, B, (int)ldb,
                0.0f, C, (int)ldc);
    break;
  case KRONBLAS_R_64F:
    cblas_dgemm(CblasColMajor, ta, tb, (int)M, (int)N, (int)Kd, 1.0, A, (int)lda, B, (int)ldb,
                0.0, C, (int)ldc);
    break;
  case KRONBLAS_C_32F:
    cblas_cgemm(CblasColMajor, ta, tb, (int)M, (int)N, (int)Kd, (const void *)sone, A, (int)lda,
                B, (int)ldb, (const void *)szero, C, (int)ldc);
    break;
  default:
    cblas_zgemm(CblasColMajor, ta, tb, (int)M, (int)N, (int)Kd, (const void *)done, A, (int)lda,
                B, (int)ldb, (const void *)dzero, C, (int)ldc);
    break;
  }
}

const char *kb_bench_cpu_blas_core(void)
{
  const char *c = openblas_get_corename();
  return c != NULL ? c : "unknown";
}

/* OpenBLAS takes its kernels from a table of the CPUs it knows, or from
 * OPENBLAS_CORETYPE.  AVX2 kernels on an AVX-512 CPU halve the GEMM ceiling
 * and the baselines kronblas is judged against: OpenBLAS 0.3.21 on an AMD
 * EPYC of family 26 (Zen 5), two cores, SGEMM 222-251 GFLOP/s as "Haswell"
 * (what OPENBLAS_CORETYPE in this project's build environment says), 403-512
 * as "SkylakeX" or "Cooperlake" (its own choice); DGEMM 107-128 against
 * 197-219 (measured 2026-11-22).  And on a CPU it does not know it falls
 * back to SSE3 kernels: an Intel Xeon of family 6 model 207 (Emerald
 * Rapids), two cores, SGEMM 62.6 GFLOP/s as "Prescott", 306-311 as
 * "SkylakeX" (2026-11-22).  The header of the table says so. */
const char *kb_bench_cpu_blas_better_core(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  static const char *const avx512_cores[] = { "skylakex", "cooperlake", "sapphirerapids" };
  const char *c = kb_bench_cpu_blas_core();
  size_t i;
  if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")))
    return NULL;
  for (i = 0; i < sizeof avx512_cores / sizeof avx512_cores[0]; i++)
    if (!strcasecmp(c, avx512_cores[i]))
      return NULL;
  return "SkylakeX";
#else
  return NULL;   /* no AVX-512 to miss */
#endif
}

static void kb_bench_blas_threads(int nthreads)
{
  kb_bench_blas_used = 1;
  openblas_set_num_threads(nthreads > 0 ? nthreads : 1);
}

double kb_bench_cpu_gemm_rate(kronblasDataType_t type, int nthreads)
{
  const int cplx = kb_oracle_type_is_complex(type);
  const int64_t n = cplx ? 1024 : 2048;
  const size_t esz = kb_oracle_type_size(type);
  void *a = malloc((size_t)(n * n) * esz), *b = malloc((size_t)(n * n) * esz);
  void *c = malloc((size_t)(n * n) * esz);
  double t[3], rate = 0.0;
  int rep;
  kb_rng_t rng;
  if (a != NULL && b != NULL && c != NULL) {
    kb_rng_seed(&rng, 1);
    kb_rng_fill(&rng, type, a, n * n);
    kb_rng_fill(&rng, type, b, n * n);
    kb_bench_blas_threads(nthreads);
    for (rep = -1; rep < 3; rep++) {
      double t0 = kb_bench_now();
      kb_bench_cblas_gemm(type, 'N', 'N', n, n, n, a, n, b, n, c, n);
      if (rep >= 0)
        t[rep] = kb_bench_now() - t0;
    }
    rate = 2.0 * (double)n * (double)n * (double)n * (cplx ? 4.0 : 1.0) / kb_bench_median(t, 3);
  }
  free(a);
  free(b);
  free(c);
  return rate;
}

int kb_bench_cpu_run_plan(const kb_bench_prob_t *pb, const kb_bench_plan_t *pl, const void *X,
    const void *const *F, void *Y, void *W0, void *W1, int nthreads)
{
  const size_t esz = pb->esz;
  int i;
  if (!pl->ok)
    return -1;
  kb_bench_blas_threads(nthreads);
  for (i = 0; i < pl->nops; i++) {
    const kb_bench_op_t *o = &pl->op[i];
    const void *bufs_in[4] = { X, Y, W0, W1 };
    void *bufs_out[4] = { NULL, Y, W0, W1 };
    const char *src = bufs_in[o->src];
    char *dst = bufs_out[o->dst];
    if (o->kind == KB_BENCH_OP_PERMUTE) {
      kb_bench_cpu_permute(src, dst, esz, o->inner, o->d1, o->d2, o->outer, nthreads > 0 ? nthreads : 1);
    } else {
      const char *f = F[o->factor];
      const int nt = nthreads > 0 ? nthreads : 1;
      /* OpenBLAS has no strided batch: a loop of GEMMs over the slices.
       * OpenBLAS runs small GEMMs on one thread, so a loop of many small
       * ones is split over the threads instead (each OpenBLAS call then on
       * one thread, which keeps its pthread pool out of the OpenMP region). */
      const int split = nt > 1 && o->batch >= 2 * nt && o->M * o->N * o->Kd <= 64 * 64 * 64;
      int64_t b;
      if (split)
        openblas_set_num_threads(1);
      KB_BENCH_OMP("omp parallel for num_threads(nt) schedule(static) if(split)")
      for (b = 0; b < o->batch; b++) {
        const char *A = o->data_is_a ? src + (size_t)(b * o->sd) * esz : f;
        const char *B = o->data_is_a ? f : src + (size_t)(b * o->sd) * esz;
        kb_bench_cblas_gemm(pb->type, o->opa, o->opb, o->M, o->N, o->Kd, A, o->lda, B, o->ldb,
                            dst + (size_t)(b * o->sc) * esz, o->ldc);
      }
      if (split)
        openblas_set_num_threads(nt);
    }
  }
  return 0;
}

#else /* !HAVE_OPENBLAS */

int kb_bench_cpu_have_blas(void)
{
  return 0;
}

const char *kb_bench_cpu_blas_core(void)
{
  return NULL;
}

const char *kb_bench_cpu_blas_better_core(void)
{
  return NULL;
}

void kb_bench_cpu_settle(void)
{
}

double kb_bench_cpu_gemm_rate(kronblasDataType_t type, int nthreads)
{
  (void)type;
  (void)nthreads;
  return 0.0;
}

int kb_bench_cpu_run_plan(const kb_bench_prob_t *pb, const kb_bench_plan_t *pl, const void *X,
    const void *const *F, void *Y, void *W0, void *W1, int nthreads)
{
  (void)pb; (void)pl; (void)X; (void)F; (void)Y; (void)W0; (void)W1; (void)nthreads;
  (void)kb_bench_cpu_permute;
  return -1;
}

#endif /* HAVE_OPENBLAS */
