/* cuda_api.c - the CUDA backend's public extensions (kronblas.h,
 * "Extensions").  Built with or without CUDA, so that every build exports
 * the same symbols; without CUDA, or on a CPU handle, the settings are
 * accepted and have no effect. */
#include "kb_internal.h"
#ifdef HAVE_CUDA
#include "cuda_internal.h"
#endif

kronblasStatus_t kronblasSetKernelPolicy(kronblasHandle_t h, kronblasKernelPolicy_t policy)
{
  KB_CHECK(kb_handle_check(h));
  if (policy != KRONBLAS_KERNELS_ALL && policy != KRONBLAS_KERNELS_NO_FUSION &&
      policy != KRONBLAS_KERNELS_GENERIC && policy != KRONBLAS_KERNELS_CUBLAS)
    return KRONBLAS_STATUS_INVALID_VALUE;
#ifdef HAVE_CUDA
  if (h->backend == KRONBLAS_BACKEND_CUDA && h->backend_state != NULL)
    ((kb_cuda_state_t *)h->backend_state)->policy = policy;
#endif
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetKernelPolicy(kronblasHandle_t h, kronblasKernelPolicy_t *policy)
{
  KB_CHECK(kb_handle_check(h));
  if (policy == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *policy = KRONBLAS_KERNELS_ALL;
#ifdef HAVE_CUDA
  if (h->backend == KRONBLAS_BACKEND_CUDA && h->backend_state != NULL)
    *policy = (kronblasKernelPolicy_t)((kb_cuda_state_t *)h->backend_state)->policy;
#endif
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasSetTuningMode(kronblasHandle_t h, kronblasTuningMode_t mode)
{
  KB_CHECK(kb_handle_check(h));
  if (mode != KRONBLAS_TUNING_MODEL && mode != KRONBLAS_TUNING_MEASURE)
    return KRONBLAS_STATUS_INVALID_VALUE;
#ifdef HAVE_CUDA
  if (h->backend == KRONBLAS_BACKEND_CUDA && h->backend_state != NULL)
    ((kb_cuda_state_t *)h->backend_state)->tuning = mode;
#endif
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetTuningMode(kronblasHandle_t h, kronblasTuningMode_t *mode)
{
  KB_CHECK(kb_handle_check(h));
  if (mode == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *mode = KRONBLAS_TUNING_MODEL;
#ifdef HAVE_CUDA
  if (h->backend == KRONBLAS_BACKEND_CUDA && h->backend_state != NULL)
    *mode = (kronblasTuningMode_t)((kb_cuda_state_t *)h->backend_state)->tuning;
#endif
  return KRONBLAS_STATUS_SUCCESS;
}
