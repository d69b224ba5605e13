/* gekmm.c - the GEKMM entry points: argument checking, reduction to the
 * canonical problem (kb_internal.h), quick returns, and dispatch to the
 * handle's backend.  Every typed entry point only fills a kb_args_t. */
#include "kb_internal.h"

#include <stdlib.h>
#include <string.h>

/* The arguments of any gekmm entry point, before checking.  Exactly one of
 * the 32-bit and 64-bit array pointers is used (is64). */
typedef struct {
  kronblasDataType_t type;
  int side, transX, transF;
  int64_t m, nfactors;
  int is64;
  const int *p32, *q32, *ldf32;
  const int64_t *p64, *q64, *ldf64;
  const void *alpha, *beta;
  const void *X;
  int64_t ldx;
  long long strideX;
  const void *const *F;
  const long long *strideF;        /* NULL for the non-batched entry points */
  void *Y;
  int64_t ldy;
  long long strideY;
  int64_t batch;
} kb_args_t;

/* Per-factor arrays of a checked problem, in one allocation. */
typedef struct {
  int64_t *p, *q, *ldf, *fs_l, *fs_k;
  int64_t stack[5 * 64];
  int64_t *heap;
} kb_factor_arrays_t;

static kronblasStatus_t kb_factor_arrays_init(kb_factor_arrays_t *fa, int64_t n)
{
  int64_t *base = fa->stack;
  fa->heap = NULL;
  if (n > 64) {
    if ((uint64_t)n > SIZE_MAX / (5 * sizeof(int64_t)))
      return KRONBLAS_STATUS_ALLOC_FAILED;
    fa->heap = malloc((size_t)n * 5 * sizeof(int64_t));
    if (fa->heap == NULL)
      return KRONBLAS_STATUS_ALLOC_FAILED;
    base = fa->heap;
  }
  fa->p = base;
  fa->q = base + n;
  fa->ldf = base + 2 * n;
  fa->fs_l = base + 3 * n;
  fa->fs_k = base + 4 * n;
  return KRONBLAS_STATUS_SUCCESS;
}

static int kb_mul_ok(int64_t a, int64_t b, int64_t *r)
{
  return !__builtin_mul_overflow(a, b, r);
}

static int64_t kb_max1(int64_t v)
{
  return v > 1 ? v : 1;
}

int64_t kb_matrix_extent(int64_t rows, int64_t cols, int64_t ld)
{
  if (rows == 0 || cols == 0)
    return 0;
  return ld * (cols - 1) + rows;
}

/* INVALID_VALUE unless ld >= max(1, rows) and the matrix's extent fits. */
static kronblasStatus_t kb_check_matrix(int64_t rows, int64_t cols, int64_t ld)
{
  int64_t e;
  if (ld < kb_max1(rows))
    return KRONBLAS_STATUS_INVALID_VALUE;
  if (cols > 0 && (!kb_mul_ok(ld, cols - 1, &e) || __builtin_add_overflow(e, rows, &e)))
    return KRONBLAS_STATUS_INVALID_VALUE;
  return KRONBLAS_STATUS_SUCCESS;
}

/* INVALID_VALUE if offsetting an operand by (batch-1)*stride overflows. */
static kronblasStatus_t kb_check_stride(long long stride, int64_t batch)
{
  int64_t r;
  if (batch > 1 && !kb_mul_ok((int64_t)stride, batch - 1, &r))
    return KRONBLAS_STATUS_INVALID_VALUE;
  return KRONBLAS_STATUS_SUCCESS;
}

static int kb_scalar_is_zero(kronblasDataType_t type, const void *s)
{
  switch (type) {
  case KRONBLAS_R_32F: return ((const float *)s)[0] == 0.0f;
  case KRONBLAS_R_64F: return ((const double *)s)[0] == 0.0;
  case KRONBLAS_C_32F: return ((const float *)s)[0] == 0.0f && ((const float *)s)[1] == 0.0f;
  case KRONBLAS_C_64F: return ((const double *)s)[0] == 0.0 && ((const double *)s)[1] == 0.0;
  }
  return 0;
}

/* Checks the enums, sizes, leading dimensions and strides of a, copies the
 * sizes into fa and fills pb's shape fields (no pointers). */
static kronblasStatus_t kb_check_shape(const kb_args_t *a, kb_factor_arrays_t *fa, kb_problem_t *pb)
{
  int64_t i, n = a->nfactors, K = 1, L = 1, rows, cols;
  int f_contig_k;

  if (a->side != KRONBLAS_SIDE_LEFT && a->side != KRONBLAS_SIDE_RIGHT)
    return KRONBLAS_STATUS_INVALID_VALUE;
  if (a->transX < KRONBLAS_OP_N || a->transX > KRONBLAS_OP_C ||
      a->transF < KRONBLAS_OP_N || a->transF > KRONBLAS_OP_C)
    return KRONBLAS_STATUS_INVALID_VALUE;
  if (a->m < 0 || n < 1 || a->batch < 0)
    return KRONBLAS_STATUS_INVALID_VALUE;
  if (a->is64 ? (a->p64 == NULL || a->q64 == NULL || a->ldf64 == NULL)
              : (a->p32 == NULL || a->q32 == NULL || a->ldf32 == NULL))
    return KRONBLAS_STATUS_INVALID_VALUE;

  memset(pb, 0, sizeof *pb);
  pb->type = a->type;
  pb->side = (kronblasSideMode_t)a->side;
  pb->transX = (kronblasOperation_t)a->transX;
  pb->transF = (kronblasOperation_t)a->transF;
  pb->m = a->m;
  pb->nfactors = n;
  pb->batch = a->batch;

  for (i = 0; i < n; i++) {
    fa->p[i] = a->is64 ? a->p64[i] : a->p32[i];
    fa->q[i] = a->is64 ? a->q64[i] : a->q32[i];
    fa->ldf[i] = a->is64 ? a->ldf64[i] : a->ldf32[i];
    if (fa->p[i] < 0 || fa->q[i] < 0)
      return KRONBLAS_STATUS_INVALID_VALUE;
    if (!kb_mul_ok(K, fa->p[i], &K) || !kb_mul_ok(L, fa->q[i], &L))
      return KRONBLAS_STATUS_INVALID_VALUE;
  }
  /* Every intermediate (m rows of prod p[0..j) * prod q[j..n)) must be
   * addressable; with K = 0 they are all empty past the first. */
  {
    int64_t pre = K, suf = 1, e;
    for (i = n - 1; i >= 0 && pre > 0; i--) {
      pre /= fa->p[i] ? fa->p[i] : 1;
      if (!kb_mul_ok(suf, fa->q[i], &suf) || !kb_mul_ok(pre, suf, &e) || !kb_mul_ok(e, a->m, &e))
        return KRONBLAS_STATUS_INVALID_VALUE;
    }
    if (!kb_mul_ok(K, a->m, &e) || !kb_mul_ok(L, a->m, &e))
      return KRONBLAS_STATUS_INVALID_VALUE;
  }
  pb->K = K;
  pb->L = L;

  /* Reduce side and transposes to the canonical strides (kb_internal.h). */
  pb->x_contig_k = (a->side == KRONBLAS_SIDE_LEFT) == (a->transX == KRONBLAS_OP_N);
  pb->y_contig_l = a->side == KRONBLAS_SIDE_LEFT;
  f_contig_k = (a->side == KRONBLAS_SIDE_LEFT) != (a->transF == KRONBLAS_OP_N);
  pb->f_contig_k = f_contig_k;
  pb->conjX = a->transX == KRONBLAS_OP_C && kb_type_is_complex(a->type);
  pb->conjF = a->transF == KRONBLAS_OP_C && kb_type_is_complex(a->type);

  rows = pb->x_contig_k ? K : a->m;
  cols = pb->x_contig_k ? a->m : K;
  KB_CHECK(kb_check_matrix(rows, cols, a->ldx));
  pb->ldx = a->ldx;
  pb->xs_k = pb->x_contig_k ? 1 : a->ldx;
  pb->xs_m = pb->x_contig_k ? a->ldx : 1;

  rows = pb->y_contig_l ? L : a->m;
  cols = pb->y_contig_l ? a->m : L;
  KB_CHECK(kb_check_matrix(rows, cols, a->ldy));
  pb->ldy = a->ldy;
  pb->ys_l = pb->y_contig_l ? 1 : a->ldy;
  pb->ys_m = pb->y_contig_l ? a->ldy : 1;

  for (i = 0; i < n; i++) {
    rows = f_contig_k ? fa->p[i] : fa->q[i];
    cols = f_contig_k ? fa->q[i] : fa->p[i];
    KB_CHECK(kb_check_matrix(rows, cols, fa->ldf[i]));
    fa->fs_k[i] = f_contig_k ? 1 : fa->ldf[i];
    fa->fs_l[i] = f_contig_k ? fa->ldf[i] : 1;
  }
  pb->p = fa->p;
  pb->q = fa->q;
  pb->ldf = fa->ldf;
  pb->fs_l = fa->fs_l;
  pb->fs_k = fa->fs_k;

  KB_CHECK(kb_check_stride(a->strideX, a->batch));
  KB_CHECK(kb_check_stride(a->strideY, a->batch));
  if (a->strideF != NULL)
    for (i = 0; i < n; i++)
      KB_CHECK(kb_check_stride(a->strideF[i], a->batch));
  return KRONBLAS_STATUS_SUCCESS;
}

/* Checks the pointers a non-empty problem reads and writes, and fills pb's
 * pointer fields. */
static kronblasStatus_t kb_check_pointers(kronblasHandle_t h, const kb_args_t *a, kb_problem_t *pb)
{
  int64_t i;
  int reads_xf;

  if (a->alpha == NULL || a->beta == NULL || a->Y == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  pb->alpha = a->alpha;
  pb->beta = a->beta;
  pb->pointer_mode = h->pointer_mode;
  /* alpha and beta can be looked at here only when they are host values;
   * in device mode the backend decides, and X and F must be valid. */
  if (h->pointer_mode == KRONBLAS_POINTER_MODE_HOST ||
      h->backend == KRONBLAS_BACKEND_CPU) {
    pb->alpha_is_zero = kb_scalar_is_zero(a->type, a->alpha);
    pb->beta_is_zero = kb_scalar_is_zero(a->type, a->beta);
  }
  reads_xf = pb->K > 0 && !pb->alpha_is_zero;
  if (reads_xf) {
    if (a->X == NULL || a->F == NULL)
      return KRONBLAS_STATUS_INVALID_VALUE;
    if (a->batch > 1 && a->strideF == NULL)
      return KRONBLAS_STATUS_INVALID_VALUE;
    for (i = 0; i < pb->nfactors; i++)
      if (a->F[i] == NULL)
        return KRONBLAS_STATUS_INVALID_VALUE;
  }
  pb->X = a->X;
  pb->F = a->F;
  pb->Y = a->Y;
  pb->strideX = a->strideX;
  pb->strideY = a->strideY;
  pb->strideF = a->strideF;
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_gekmm(kronblasHandle_t h, const kb_args_t *a)
{
  kronblasStatus_t st;
  kb_factor_arrays_t fa;
  kb_problem_t pb;

  KB_CHECK(kb_handle_check(h));
  if (a->nfactors < 1)
    return KRONBLAS_STATUS_INVALID_VALUE;
  KB_CHECK(kb_factor_arrays_init(&fa, a->nfactors));
  KB_CHECK_GOTO(kb_check_shape(a, &fa, &pb), st, out);
  /* Quick return: nothing is read or written. */
  if (pb.m == 0 || pb.L == 0 || pb.batch == 0) {
    st = KRONBLAS_STATUS_SUCCESS;
    goto out;
  }
  KB_CHECK_GOTO(kb_check_pointers(h, a, &pb), st, out);
  st = h->ops->gekmm(h, &pb);
out:
  free(fa.heap);
  return st;
}

kronblasStatus_t kronblasGetWorkspaceSize(kronblasHandle_t h, kronblasDataType_t type,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[],
    size_t *bytes)
{
  kronblasStatus_t st;
  kb_factor_arrays_t fa;
  kb_problem_t pb;
  kb_args_t a;
  int64_t i;

  KB_CHECK(kb_handle_check(h));
  if (bytes == NULL || kb_type_size(type) == 0 || nfactors < 1 || p == NULL || q == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  KB_CHECK(kb_factor_arrays_init(&fa, nfactors));
  /* Leading dimensions do not change the workspace: check with the least. */
  memset(&a, 0, sizeof a);
  a.type = type;
  a.side = side;
  a.transX = transX;
  a.transF = transF;
  a.m = m;
  a.nfactors = nfactors;
  a.is64 = 1;
  a.p64 = p;
  a.q64 = q;
  a.ldf64 = fa.fs_l;   /* scratch until kb_check_shape overwrites it */
  a.batch = 1;
  for (i = 0; i < nfactors; i++) {
    if (p[i] < 0 || q[i] < 0) {
      st = KRONBLAS_STATUS_INVALID_VALUE;
      goto out;
    }
    fa.fs_l[i] = kb_max1(p[i] > q[i] ? p[i] : q[i]);
  }
  {
    int64_t K = 1, L = 1;
    for (i = 0; i < nfactors; i++)
      if (!kb_mul_ok(K, p[i], &K) || !kb_mul_ok(L, q[i], &L)) {
        st = KRONBLAS_STATUS_INVALID_VALUE;
        goto out;
      }
    a.ldx = kb_max1(K > m ? K : m);
    a.ldy = kb_max1(L > m ? L : m);
  }
  KB_CHECK_GOTO(kb_check_shape(&a, &fa, &pb), st, out);
  if (pb.m == 0 || pb.L == 0) {
    *bytes = 0;
    st = KRONBLAS_STATUS_SUCCESS;
    goto out;
  }
  pb.pointer_mode = h->pointer_mode;
  st = h->ops->workspace_size(h, &pb, bytes);
out:
  free(fa.heap);
  return st;
}

/* ------------------------------------------------- typed entry points */

#define KB_ARGS_COMMON(T_, side_, tX_, tF_, m_, n_, al_, X_, ldx_, F_, be_, Y_, ldy_) \
  a.type = (T_); a.side = (side_); a.transX = (tX_); a.transF = (tF_);              \
  a.m = (m_); a.nfactors = (n_); a.alpha = (al_); a.X = (X_); a.ldx = (ldx_);        \
  a.F = (const void *const *)(F_); a.beta = (be_); a.Y = (Y_); a.ldy = (ldy_)

/* These helpers keep each public function to its own arguments. */
static kronblasStatus_t kb_gekmm32(kronblasHandle_t h, kb_args_t *a,
                                   const int *p, const int *q, const int *ldf)
{
  a->is64 = 0;
  a->p32 = p;
  a->q32 = q;
  a->ldf32 = ldf;
  return kb_gekmm(h, a);
}

static kronblasStatus_t kb_gekmm64(kronblasHandle_t h, kb_args_t *a,
                                   const int64_t *p, const int64_t *q, const int64_t *ldf)
{
  a->is64 = 1;
  a->p64 = p;
  a->q64 = q;
  a->ldf64 = ldf;
  return kb_gekmm(h, a);
}

static void kb_set_batch(kb_args_t *a, long long sX, const long long *sF, long long sY, int64_t batch)
{
  a->strideX = sX;
  a->strideF = sF;
  a->strideY = sY;
  a->batch = batch;
}

kronblasStatus_t kronblasSgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const float *alpha,
    const float *X, int ldx, const float *const F[], const int ldf[],
    const float *beta, float *Y, int ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasSgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const float *alpha,
    const float *X, int64_t ldx, const float *const F[], const int64_t ldf[],
    const float *beta, float *Y, int64_t ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm64(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasSgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const float *alpha,
    const float *X, int ldx, long long strideX,
    const float *const F[], const int ldf[], const long long strideF[],
    const float *beta, float *Y, int ldy, long long strideY, int batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasSgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const float *alpha,
    const float *X, int64_t ldx, long long strideX,
    const float *const F[], const int64_t ldf[], const long long strideF[],
    const float *beta, float *Y, int64_t ldy, long long strideY, int64_t batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm64(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasDgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const double *alpha,
    const double *X, int ldx, const double *const F[], const int ldf[],
    const double *beta, double *Y, int ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasDgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const double *alpha,
    const double *X, int64_t ldx, const double *const F[], const int64_t ldf[],
    const double *beta, double *Y, int64_t ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm64(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasDgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const double *alpha,
    const double *X, int ldx, long long strideX,
    const double *const F[], const int ldf[], const long long strideF[],
    const double *beta, double *Y, int ldy, long long strideY, int batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasDgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const double *alpha,
    const double *X, int64_t ldx, long long strideX,
    const double *const F[], const int64_t ldf[], const long long strideF[],
    const double *beta, double *Y, int64_t ldy, long long strideY, int64_t batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_R_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm64(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasCgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const kronblasComplex *alpha,
    const kronblasComplex *X, int ldx, const kronblasComplex *const F[], const int ldf[],
    const kronblasComplex *beta, kronblasComplex *Y, int ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasCgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const kronblasComplex *alpha,
    const kronblasComplex *X, int64_t ldx, const kronblasComplex *const F[], const int64_t ldf[],
    const kronblasComplex *beta, kronblasComplex *Y, int64_t ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm64(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasCgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const kronblasComplex *alpha,
    const kronblasComplex *X, int ldx, long long strideX,
    const kronblasComplex *const F[], const int ldf[], const long long strideF[],
    const kronblasComplex *beta, kronblasComplex *Y, int ldy, long long strideY, int batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasCgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const kronblasComplex *alpha,
    const kronblasComplex *X, int64_t ldx, long long strideX,
    const kronblasComplex *const F[], const int64_t ldf[], const long long strideF[],
    const kronblasComplex *beta, kronblasComplex *Y, int64_t ldy, long long strideY, int64_t batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_32F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm64(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasZgekmm(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int ldx, const kronblasDoubleComplex *const F[], const int ldf[],
    const kronblasDoubleComplex *beta, kronblasDoubleComplex *Y, int ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasZgekmm_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int64_t ldx, const kronblasDoubleComplex *const F[], const int64_t ldf[],
    const kronblasDoubleComplex *beta, kronblasDoubleComplex *Y, int64_t ldy)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  a.batch = 1;
  return kb_gekmm64(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasZgekmmStridedBatched(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int m, int nfactors, const int p[], const int q[], const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int ldx, long long strideX,
    const kronblasDoubleComplex *const F[], const int ldf[], const long long strideF[],
    const kronblasDoubleComplex *beta, kronblasDoubleComplex *Y, int ldy, long long strideY, int batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm32(handle, &a, p, q, ldf);
}

kronblasStatus_t kronblasZgekmmStridedBatched_64(kronblasHandle_t handle,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF,
    int64_t m, int64_t nfactors, const int64_t p[], const int64_t q[], const kronblasDoubleComplex *alpha,
    const kronblasDoubleComplex *X, int64_t ldx, long long strideX,
    const kronblasDoubleComplex *const F[], const int64_t ldf[], const long long strideF[],
    const kronblasDoubleComplex *beta, kronblasDoubleComplex *Y, int64_t ldy, long long strideY, int64_t batchCount)
{
  kb_args_t a = {0};
  KB_ARGS_COMMON(KRONBLAS_C_64F, side, transX, transF, m, nfactors, alpha, X, ldx, F, beta, Y, ldy);
  kb_set_batch(&a, strideX, strideF, strideY, batchCount);
  return kb_gekmm64(handle, &a, p, q, ldf);
}
