/* cuda_cublas.c - cuBLAS as a step of a CUDA plan, and the one place that
 * sends a planned step to its kernel.
 *
 * One factor applied to vectors contiguous along k is a strided-batched
 * GEMM with no transposed copy (column-major): for vector r,
 *     C_r (S x q) = op(A_r) (S x p) * B (p x q),
 * A_r the input vector as a p x S matrix (lda = p, op = T), B[k,l] = the
 * factor's A[l,k] (op N when the factor runs along k, T when it runs
 * along l), C_r the output vector as S x q (ldc = S), the m vectors being
 * the batch.  cuBLAS wins where the sliced multiply is compute bound
 * (large P), and for double it uses the FP64 tensor cores.  Used only for
 * real types in host pointer mode (cuBLAS' own alpha = 0 rules are not the
 * contract's in device mode), with the output contiguous along l. */
#include "cuda_internal.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <limits.h>

int kb_cuda_cublas_usable(const kb_problem_t *pb, int64_t p, int64_t q, int64_t K, int last)
{
  if (pb->type != KRONBLAS_R_32F && pb->type != KRONBLAS_R_64F)
    return 0;
  if (pb->pointer_mode != KRONBLAS_POINTER_MODE_HOST)
    return 0;
  if (last && pb->ys_l != 1)
    return 0;
  if (pb->m > INT_MAX || K > INT_MAX || p > INT_MAX || q > INT_MAX || K / p * q > INT_MAX)
    return 0;
  return 1;
}

/* The handle's cuBLAS handle, created at its first use with host scalars
 * (nothing else uses it), on this stream; 0 when ready.  The stream is set
 * only when it changes, since cublasSetStream also resets cuBLAS'
 * workspace (cuBLAS documentation); per call that saved no time we could
 * measure (H100, float 16_64x64^3, three GEMMs: 96-100 us a call with a
 * wait, either way). */
static int kb_cuda_cublas_ready(kb_cuda_state_t *cs, void *stream)
{
  if (cs->cublas == NULL) {
    cublasHandle_t hb;
    if (cublasCreate(&hb) != CUBLAS_STATUS_SUCCESS)
      return -1;
    if (cublasSetPointerMode(hb, CUBLAS_POINTER_MODE_HOST) != CUBLAS_STATUS_SUCCESS ||
        cublasSetStream(hb, (cudaStream_t)stream) != CUBLAS_STATUS_SUCCESS) {
      (void)cublasDestroy(hb);
      return -1;
    }
    cs->cublas = hb;
    cs->cublas_stream = stream;
  }
  if (stream != cs->cublas_stream) {
    if (cublasSetStream((cublasHandle_t)cs->cublas, (cudaStream_t)stream) != CUBLAS_STATUS_SUCCESS)
      return -1;
    cs->cublas_stream = stream;
  }
  return 0;
}

int kb_cuda_col_usable(const kb_problem_t *pb, int policy)
{
  int64_t i, K = pb->K;
  if (pb->type != KRONBLAS_R_32F && pb->type != KRONBLAS_R_64F)
    return 0;
  if (pb->pointer_mode != KRONBLAS_POINTER_MODE_HOST || pb->xs_k == 1 || pb->ys_l == 1)
    return 0;
  if (policy != KRONBLAS_KERNELS_ALL && policy != KRONBLAS_KERNELS_CUBLAS)
    return 0;
  if (pb->m > INT_MAX || pb->xs_k > INT_MAX || pb->ys_l > INT_MAX)
    return 0;
  /* Every step's leading dimensions fit cuBLAS' int: the input's (ldx,
   * then m) and the output's S*ld (intermediates ld m, Y ld ldy). */
  for (i = pb->nfactors - 1; i >= 0; i--) {
    const int64_t S = K / pb->p[i], ldo = i == 0 ? pb->ys_l : pb->m;
    if (S > INT_MAX / ldo || pb->q[i] > INT_MAX || pb->p[i] > INT_MAX)
      return 0;
    K = S * pb->q[i];
  }
  return 1;
}

int64_t kb_cuda_gemm_steps(const kb_problem_t *pb, int kernel, kb_cuda_pstep_t *steps)
{
  int64_t i;
  for (i = 0; i < pb->nfactors; i++) {
    steps[i].i_hi = pb->nfactors - 1 - i;
    steps[i].nf = 1;
    steps[i].kernel = kernel;
  }
  return pb->nfactors;
}

int kb_cuda_nat_usable(const kb_problem_t *pb, int policy)
{
  int64_t i, K = pb->K;
  if (pb->type != KRONBLAS_R_32F && pb->type != KRONBLAS_R_64F)
    return 0;
  if (pb->pointer_mode != KRONBLAS_POINTER_MODE_HOST || pb->xs_k != 1 || pb->ys_l != 1)
    return 0;
  if (policy != KRONBLAS_KERNELS_ALL && policy != KRONBLAS_KERNELS_CUBLAS)
    return 0;
  if (pb->m > INT_MAX || pb->xs_m > INT_MAX || pb->ys_m > INT_MAX)
    return 0;
  /* every GEMM dimension, count and leading dimension (a whole vector at
   * most) fits cuBLAS' int */
  for (i = pb->nfactors - 1; i >= 0; i--) {
    const int64_t Kn = K / pb->p[i] * pb->q[i];
    if (K > INT_MAX || Kn > INT_MAX || pb->m > INT_MAX / (K > Kn ? K : Kn))
      return 0;
    K = Kn;
  }
  return 1;
}

int64_t kb_cuda_nat_post(const kb_problem_t *pb, int64_t i)
{
  int64_t post = 1, j;
  for (j = i + 1; j < pb->nfactors; j++)
    post *= pb->q[j];
  return post;
}

int kb_cuda_nat_sub_usable(const kb_problem_t *pb, int policy)
{
  /* The first sub-vector step reads X as m * pre vectors one after another. */
  return pb->nfactors >= 2 && (pb->m == 1 || pb->xs_m == pb->K) && kb_cuda_nat_usable(pb, policy);
}

int64_t kb_cuda_nat_nsub(const kb_cuda_pstep_t *steps, int64_t nsteps)
{
  int64_t j;
  for (j = 0; j < nsteps; j++)
    if (steps[j].kernel == KB_KERNEL_CUBLAS_NAT)
      return j;
  return 0;
}

void kb_cuda_nat_sub(const kb_problem_t *pb, int64_t g0, kb_problem_t *sub)
{
  int64_t i, pre = 1, Ks = 1, Ls = 1;
  for (i = 0; i < g0; i++)
    pre *= pb->p[i];
  for (i = g0; i < pb->nfactors; i++) {
    Ks *= pb->p[i];
    Ls *= pb->q[i];
  }
  *sub = *pb;
  sub->m = pb->m * pre;     /* at most m * K: X's elements */
  sub->nfactors = pb->nfactors - g0;
  sub->p = pb->p + g0;
  sub->q = pb->q + g0;
  /* (a problem built only to be planned, tools/jit-time, has no factors) */
  sub->F = pb->F != NULL ? pb->F + g0 : NULL;
  sub->ldf = pb->ldf != NULL ? pb->ldf + g0 : NULL;
  sub->fs_l = pb->fs_l != NULL ? pb->fs_l + g0 : NULL;
  sub->fs_k = pb->fs_k != NULL ? pb->fs_k + g0 : NULL;
  sub->strideF = pb->strideF != NULL ? pb->strideF + g0 : NULL;
  sub->K = Ks;
  sub->L = Ls;
  sub->xs_m = Ks;
  sub->xs_k = 1;
  sub->ys_m = Ls;
  sub->ys_l = 1;
  sub->x_contig_k = 1;
  sub->y_contig_l = 1;
  sub->batch = 1;
  sub->X = NULL;
  sub->Y = NULL;
}

/* The step's alpha and beta as cuBLAS takes them (host scalars). */
static void kb_cuda_cublas_scalars(const kb_cuda_step_t *st, void *al, void *be)
{
  if (st->type == KRONBLAS_R_32F) {
    *(float *)al = st->epilogue == KB_EPI_NONE ? 1.0f : *(const float *)st->alpha;
    *(float *)be = st->epilogue == KB_EPI_AXPBY && !st->beta_zero ? *(const float *)st->beta : 0.0f;
  } else {
    *(double *)al = st->epilogue == KB_EPI_NONE ? 1.0 : *(const double *)st->alpha;
    *(double *)be = st->epilogue == KB_EPI_AXPBY && !st->beta_zero ? *(const double *)st->beta : 0.0;
  }
}

/* One strided-batched GEMM per batch entry of the step, C_j = op(A_j) *
 * op(B_j), j < count (M x N, inner dimension K), with the step's epilogue
 * as cuBLAS' alpha and beta (beta = 0: C is not read, BLAS rules, as the
 * contract wants).  The factor is A (factor_left) or B, stride 0; the
 * step's input is the other, C its output. */
static int kb_cuda_cublas_batch(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream, int factor_left,
                                cublasOperation_t ta, cublasOperation_t tb, int64_t M, int64_t N, int64_t K,
                                int64_t lda, long long sa, int64_t ldb, long long sb, int64_t ldc, long long sc,
                                int64_t count)
{
  const size_t esz = st->type == KRONBLAS_R_32F ? 4 : 8;
  cublasStatus_t cs_st;
  int64_t b;
  union { float f; double d; } al, be;

  if (M > INT_MAX || N > INT_MAX || K > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX ||
      count > INT_MAX)
    return (int)cudaErrorInvalidValue;
  if (kb_cuda_cublas_ready(cs, stream) != 0)
    return (int)cudaErrorInitializationError;
  kb_cuda_cublas_scalars(st, &al, &be);
  for (b = 0; b < st->batch; b++) {
    const char *in = (const char *)st->in + (ptrdiff_t)(b * st->in_bs) * (ptrdiff_t)esz;
    const char *F = (const char *)st->F[0] + (ptrdiff_t)(b * st->f_bs[0]) * (ptrdiff_t)esz;
    char *out = (char *)st->out + (ptrdiff_t)(b * st->out_bs) * (ptrdiff_t)esz;
    const void *A = factor_left ? (const void *)F : (const void *)in;
    const void *B = factor_left ? (const void *)in : (const void *)F;
    if (st->type == KRONBLAS_R_32F)
      cs_st = cublasSgemmStridedBatched((cublasHandle_t)cs->cublas, ta, tb, (int)M, (int)N, (int)K, &al.f,
                                        (const float *)A, (int)lda, sa, (const float *)B, (int)ldb, sb, &be.f,
                                        (float *)out, (int)ldc, sc, (int)count);
    else
      cs_st = cublasDgemmStridedBatched((cublasHandle_t)cs->cublas, ta, tb, (int)M, (int)N, (int)K, &al.d,
                                        (const double *)A, (int)lda, sa, (const double *)B, (int)ldb, sb, &be.d,
                                        (double *)out, (int)ldc, sc, (int)count);
    if (cs_st != CUBLAS_STATUS_SUCCESS) {
      kb_log(KB_LOG_ERROR, "cuBLAS step failed: status %d", (int)cs_st);
      return (int)cudaErrorLaunchFailure;
    }
  }
  return (int)cudaGetLastError();
}

/* The factor on the right, for every batch entry of the step,
 *     C_j (M x q) = op(A_j) (M x p) * B (p x q),   j < count,
 * A_j = in + j*strideA (lda), C_j = out + j*strideC (ldc), B[k,l] = the
 * factor's A[l,k] (op N when the factor runs along k, T when it runs along
 * l). */
static int kb_cuda_cublas_gemms(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream,
                                cublasOperation_t ta, int64_t M, int64_t lda, int64_t strideA,
                                int64_t ldc, int64_t strideC, int64_t count)
{
  const int64_t p = st->p[0], q = st->q[0];
  const int fk = st->fs_k[0] == 1 && st->fs_l[0] >= p;
  return kb_cuda_cublas_batch(cs, st, stream, 0, ta, fk ? CUBLAS_OP_N : CUBLAS_OP_T, M, q, p, lda, strideA,
                              fk ? st->fs_l[0] : st->fs_k[0], 0, ldc, strideC, count);
}

/* The fastest digit in natural order (post == 1): the factor on the left,
 *     C_r (q x pre) = A (q x p) * in_r (p x pre),   r < count,
 * in_r = in + r*in_rs (ld p), C_r = out + r*out_rs (ld q), A[l,k] = the
 * factor (op N when it runs along l, T when along k); one GEMM when the
 * rows are contiguous (count 1, pre * m columns). */
static int kb_cuda_cublas_factor_left(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream, int64_t pre)
{
  const int64_t p = st->p[0], q = st->q[0];
  const int fl = st->fs_l[0] == 1 && st->fs_k[0] >= q;
  const int merge = st->in_rs == p * pre && st->out_rs == q * pre;
  return kb_cuda_cublas_batch(cs, st, stream, 1, fl ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, q,
                              merge ? pre * st->m : pre, p, fl ? st->fs_k[0] : st->fs_l[0], 0, p, st->in_rs, q,
                              st->out_rs, merge ? 1 : st->m);
}

/* A natural-order step (KB_KERNEL_CUBLAS_NAT): vector r is (pre, p, post)
 * with post the digits after this one, already produced; out_r is (pre, q,
 * post).  post == 1: the factor on the left (above).  Otherwise, for each
 * (r, a < pre): C (post x q) = in (post x p) * B, B[k,l] = A[l,k], a batch
 * over a (over r and a together where the rows are contiguous or pre is
 * 1, else one batch per row). */
static int kb_cuda_cublas_nat_step(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream)
{
  const int64_t p = st->p[0], q = st->q[0], post = st->post;
  const size_t esz = st->type == KRONBLAS_R_32F ? 4 : 8;
  int64_t pre, r;
  kb_cuda_step_t row;
  int err = (int)cudaSuccess;
  if (st->in_is != 1 || st->out_is != 1 || st->nf != 1 || st->dev_scalars || post < 1 ||
      st->K % (p * post) != 0)
    return (int)cudaErrorInvalidValue;
  pre = st->K / (p * post);
  if (post == 1)
    return kb_cuda_cublas_factor_left(cs, st, stream, pre);
  if (st->in_rs == pre * p * post && st->out_rs == pre * q * post)
    return kb_cuda_cublas_gemms(cs, st, stream, CUBLAS_OP_N, post, post, p * post, post, q * post, pre * st->m);
  /* One slice per row (the slowest digit, padded rows): a batch over the
   * rows at their own strides. */
  if (pre == 1)
    return kb_cuda_cublas_gemms(cs, st, stream, CUBLAS_OP_N, post, post, st->in_rs, post, st->out_rs, st->m);
  row = *st;
  for (r = 0; r < st->m && err == (int)cudaSuccess; r++) {
    row.in = (const char *)st->in + (ptrdiff_t)(r * st->in_rs) * (ptrdiff_t)esz;
    row.out = (char *)st->out + (ptrdiff_t)(r * st->out_rs) * (ptrdiff_t)esz;
    err = kb_cuda_cublas_gemms(cs, &row, stream, CUBLAS_OP_N, post, post, p * post, post, q * post, pre);
  }
  return err;
}

/* Vectors contiguous along k (the file's header): vector r's slices are
 * the p x S matrix in + r*in_rs, used transposed; the m vectors are the
 * GEMM batch. */
static int kb_cuda_cublas_step(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream)
{
  const int64_t S = st->K / st->p[0];
  if (st->in_is != 1 || st->out_is != 1 || st->nf != 1 || st->dev_scalars)
    return (int)cudaErrorInvalidValue;
  return kb_cuda_cublas_gemms(cs, st, stream, CUBLAS_OP_T, S, st->p[0], st->in_rs, S, st->out_rs, st->m);
}

/* The column layout (X and Y contiguous along m: RIGHT/N): input element
 * k of vector r at in[r + k*in_is], output element l at out[r + l*out_is].
 * Slice s of every vector at once is the m x p matrix X_s = in + s*p*in_is
 * (ld in_is), and its output columns l*S + s form C_s = out + s*out_is
 * (ld S*out_is):
 *     C_s (m x q) = X_s (m x p) * B (p x q),   B[k,l] = the factor's A[l,k],
 * one strided-batched GEMM over the S slices, no transposed copy. */
static int kb_cuda_cublas_col_step(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream)
{
  const int64_t p = st->p[0], S = st->K / p;
  if (st->in_rs != 1 || st->out_rs != 1 || st->nf != 1 || st->dev_scalars ||
      S > INT_MAX / st->out_is)
    return (int)cudaErrorInvalidValue;
  return kb_cuda_cublas_gemms(cs, st, stream, CUBLAS_OP_N, st->m, st->in_is, p * st->in_is,
                              S * st->out_is, st->out_is, S);
}

int kb_cuda_step(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream)
{
  if (kb_fault(KB_FAULT_LAUNCH))
    return (int)cudaErrorLaunchFailure;
  if (st->kernel == KB_KERNEL_CUBLAS)
    return kb_cuda_cublas_step(cs, st, stream);
  if (st->kernel == KB_KERNEL_CUBLAS_COL)
    return kb_cuda_cublas_col_step(cs, st, stream);
  if (st->kernel == KB_KERNEL_CUBLAS_NAT)
    return kb_cuda_cublas_nat_step(cs, st, stream);
  return kb_cuda_launch_step(st, stream);
}

void kb_cuda_cublas_fini(kb_cuda_state_t *cs)
{
  if (cs->cublas != NULL)
    (void)cublasDestroy((cublasHandle_t)cs->cublas);
  cs->cublas = NULL;
}
