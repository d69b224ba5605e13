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

static int kb_cuda_cublas_step(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream)
{
  const size_t esz = st->type == KRONBLAS_R_32F ? 4 : 8;
  const int64_t p = st->p[0], q = st->q[0], S = st->K / p;
  /* With ldf == 1 both strides are 1 (a single row or column): take N only
   * when the stride along l can be B's leading dimension. */
  const int fk = st->fs_k[0] == 1 && st->fs_l[0] >= p;
  const cublasOperation_t tb = fk ? CUBLAS_OP_N : CUBLAS_OP_T;
  const int64_t ldb = fk ? st->fs_l[0] : st->fs_k[0];
  cublasStatus_t cs_st;
  int64_t b;
  union { float f; double d; } al, be;

  if (st->in_is != 1 || st->out_is != 1 || st->nf != 1 || st->dev_scalars)
    return (int)cudaErrorInvalidValue;
  if (cs->cublas == NULL) {
    cublasHandle_t hb;
    if (cublasCreate(&hb) != CUBLAS_STATUS_SUCCESS)
      return (int)cudaErrorInitializationError;
    cs->cublas = hb;
  }
  if (cublasSetStream((cublasHandle_t)cs->cublas, (cudaStream_t)stream) != CUBLAS_STATUS_SUCCESS ||
      cublasSetPointerMode((cublasHandle_t)cs->cublas, CUBLAS_POINTER_MODE_HOST) != CUBLAS_STATUS_SUCCESS)
    return (int)cudaErrorInvalidValue;
  if (st->type == KRONBLAS_R_32F) {
    al.f = st->epilogue == KB_EPI_NONE ? 1.0f : *(const float *)st->alpha;
    be.f = st->epilogue == KB_EPI_AXPBY && !st->beta_zero ? *(const float *)st->beta : 0.0f;
  } else {
    al.d = st->epilogue == KB_EPI_NONE ? 1.0 : *(const double *)st->alpha;
    be.d = st->epilogue == KB_EPI_AXPBY && !st->beta_zero ? *(const double *)st->beta : 0.0;
  }
  for (b = 0; b < st->batch; b++) {
    const char *in = (const char *)st->in + (ptrdiff_t)(b * st->in_bs) * (ptrdiff_t)esz;
    const char *F = (const char *)st->F[0] + (ptrdiff_t)(b * st->f_bs[0]) * (ptrdiff_t)esz;
    char *out = (char *)st->out + (ptrdiff_t)(b * st->out_bs) * (ptrdiff_t)esz;
    /* beta = 0: cuBLAS does not read C (BLAS rules), as the contract wants. */
    if (st->type == KRONBLAS_R_32F)
      cs_st = cublasSgemmStridedBatched((cublasHandle_t)cs->cublas, CUBLAS_OP_T, tb, (int)S, (int)q,
                                        (int)p, &al.f, (const float *)in, (int)p, st->in_rs,
                                        (const float *)F, (int)ldb, 0, &be.f, (float *)out, (int)S,
                                        st->out_rs, (int)st->m);
    else
      cs_st = cublasDgemmStridedBatched((cublasHandle_t)cs->cublas, CUBLAS_OP_T, tb, (int)S, (int)q,
                                        (int)p, &al.d, (const double *)in, (int)p, st->in_rs,
                                        (const double *)F, (int)ldb, 0, &be.d, (double *)out, (int)S,
                                        st->out_rs, (int)st->m);
    if (cs_st != CUBLAS_STATUS_SUCCESS) {
      kb_log(KB_LOG_ERROR, "cuBLAS step failed: status %d", (int)cs_st);
      return (int)cudaErrorLaunchFailure;
    }
  }
  return (int)cudaGetLastError();
}

int kb_cuda_step(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream)
{
  if (kb_fault(KB_FAULT_LAUNCH))
    return (int)cudaErrorLaunchFailure;
  if (st->kernel == KB_KERNEL_CUBLAS)
    return kb_cuda_cublas_step(cs, st, stream);
  return kb_cuda_launch_step(st, stream);
}

void kb_cuda_cublas_fini(kb_cuda_state_t *cs)
{
  if (cs->cublas != NULL)
    (void)cublasDestroy((cublasHandle_t)cs->cublas);
  cs->cublas = NULL;
}
