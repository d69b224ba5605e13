/* kb_testcall.h - one way for the tests to call any of the 16 typed GEKMM
 * entry points from a type-erased description, so that every check runs on
 * every entry point.  Header only (static functions). */
#ifndef KB_TESTCALL_H
#define KB_TESTCALL_H

#include <kronblas.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define KB_TESTCALL_UNUSED __attribute__((unused))
#else
#define KB_TESTCALL_UNUSED
#endif

enum { KB_V_GEKMM = 0, KB_V_GEKMM_64 = 1, KB_V_SB = 2, KB_V_SB_64 = 3, KB_NVARIANTS = 4 };

KB_TESTCALL_UNUSED static const char *const kb_variant_name[KB_NVARIANTS] = {
  "gekmm", "gekmm_64", "gekmmStridedBatched", "gekmmStridedBatched_64"
};

/* Enums are plain ints so that out-of-range values can be passed. */
typedef struct {
  kronblasDataType_t type;
  int variant;
  int side, transX, transF;
  int64_t m, nfactors;
  const int64_t *p, *q, *ldf;      /* narrowed to int for the 32-bit entry points */
  const void *alpha, *beta;
  const void *X;
  int64_t ldx;
  long long strideX;
  const void *const *F;
  const long long *strideF;
  void *Y;
  int64_t ldy;
  long long strideY;
  int64_t batch;                   /* ignored by the non-batched entry points */
} kb_call_t;

/* The 32-bit copies of p, q and ldf; NULL stays NULL. */
static int *kb_call_narrow(const int64_t *v, int64_t n)
{
  int *r;
  int64_t i;
  if (v == NULL)
    return NULL;
  r = (int *)malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
  if (r == NULL)
    abort();
  for (i = 0; i < n; i++)
    r[i] = (int)v[i];
  return r;
}

#define KB_CALL_ARGS_32(T)                                                           \
  h, (kronblasSideMode_t)c->side, (kronblasOperation_t)c->transX,                     \
  (kronblasOperation_t)c->transF, (int)c->m, (int)c->nfactors, p32, q32,              \
  (const T *)c->alpha, (const T *)c->X, (int)c->ldx
#define KB_CALL_ARGS_64(T)                                                           \
  h, (kronblasSideMode_t)c->side, (kronblasOperation_t)c->transX,                     \
  (kronblasOperation_t)c->transF, c->m, c->nfactors, c->p, c->q,                      \
  (const T *)c->alpha, (const T *)c->X, c->ldx

#define KB_CALL_TYPE(P, T)                                                                        \
  switch (c->variant) {                                                                           \
  case KB_V_GEKMM:                                                                                \
    st = kronblas##P##gekmm(KB_CALL_ARGS_32(T), (const T *const *)c->F, ldf32,                     \
                            (const T *)c->beta, (T *)c->Y, (int)c->ldy);                          \
    break;                                                                                        \
  case KB_V_GEKMM_64:                                                                             \
    st = kronblas##P##gekmm_64(KB_CALL_ARGS_64(T), (const T *const *)c->F, c->ldf,                 \
                               (const T *)c->beta, (T *)c->Y, c->ldy);                            \
    break;                                                                                        \
  case KB_V_SB:                                                                                   \
    st = kronblas##P##gekmmStridedBatched(KB_CALL_ARGS_32(T), c->strideX, (const T *const *)c->F,  \
                                          ldf32, c->strideF, (const T *)c->beta, (T *)c->Y,       \
                                          (int)c->ldy, c->strideY, (int)c->batch);                \
    break;                                                                                        \
  default:                                                                                        \
    st = kronblas##P##gekmmStridedBatched_64(KB_CALL_ARGS_64(T), c->strideX,                       \
                                             (const T *const *)c->F, c->ldf, c->strideF,          \
                                             (const T *)c->beta, (T *)c->Y, c->ldy, c->strideY,   \
                                             c->batch);                                           \
    break;                                                                                        \
  }

static kronblasStatus_t kb_call(kronblasHandle_t h, const kb_call_t *c)
{
  kronblasStatus_t st = KRONBLAS_STATUS_INTERNAL_ERROR;
  int64_t n = c->nfactors > 0 ? c->nfactors : 0;
  int *p32 = kb_call_narrow(c->p, n), *q32 = kb_call_narrow(c->q, n), *ldf32 = kb_call_narrow(c->ldf, n);
  switch (c->type) {
  case KRONBLAS_R_32F: KB_CALL_TYPE(S, float) break;
  case KRONBLAS_R_64F: KB_CALL_TYPE(D, double) break;
  case KRONBLAS_C_32F: KB_CALL_TYPE(C, kronblasComplex) break;
  case KRONBLAS_C_64F: KB_CALL_TYPE(Z, kronblasDoubleComplex) break;
  }
  free(p32);
  free(q32);
  free(ldf32);
  return st;
}

KB_TESTCALL_UNUSED static int kb_variant_is_batched(int v)
{
  return v == KB_V_SB || v == KB_V_SB_64;
}

#endif /* KB_TESTCALL_H */
