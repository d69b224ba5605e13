/* status.c - names and descriptions of status codes, and the version. */
#include "kb_internal.h"

const char *kronblasGetStatusName(kronblasStatus_t status)
{
  switch (status) {
  case KRONBLAS_STATUS_SUCCESS:          return "KRONBLAS_STATUS_SUCCESS";
  case KRONBLAS_STATUS_NOT_INITIALIZED:  return "KRONBLAS_STATUS_NOT_INITIALIZED";
  case KRONBLAS_STATUS_ALLOC_FAILED:     return "KRONBLAS_STATUS_ALLOC_FAILED";
  case KRONBLAS_STATUS_INVALID_VALUE:    return "KRONBLAS_STATUS_INVALID_VALUE";
  case KRONBLAS_STATUS_ARCH_MISMATCH:    return "KRONBLAS_STATUS_ARCH_MISMATCH";
  case KRONBLAS_STATUS_EXECUTION_FAILED: return "KRONBLAS_STATUS_EXECUTION_FAILED";
  case KRONBLAS_STATUS_INTERNAL_ERROR:   return "KRONBLAS_STATUS_INTERNAL_ERROR";
  case KRONBLAS_STATUS_NOT_SUPPORTED:    return "KRONBLAS_STATUS_NOT_SUPPORTED";
  }
  return "KRONBLAS_STATUS_UNKNOWN";
}

const char *kronblasGetStatusString(kronblasStatus_t status)
{
  switch (status) {
  case KRONBLAS_STATUS_SUCCESS:          return "the operation completed successfully";
  case KRONBLAS_STATUS_NOT_INITIALIZED:  return "the handle is NULL or was destroyed";
  case KRONBLAS_STATUS_ALLOC_FAILED:     return "host or device memory could not be allocated";
  case KRONBLAS_STATUS_INVALID_VALUE:    return "an argument is out of range, NULL where it is needed, or sizes overflow";
  case KRONBLAS_STATUS_ARCH_MISMATCH:    return "the GPU is too old for the requested path";
  case KRONBLAS_STATUS_EXECUTION_FAILED: return "a kernel or collective failed to run";
  case KRONBLAS_STATUS_INTERNAL_ERROR:   return "an internal operation failed";
  case KRONBLAS_STATUS_NOT_SUPPORTED:    return "the backend, type or mode is not built or not available";
  }
  return "unknown status code";
}

kronblasStatus_t kronblasGetVersion(kronblasHandle_t handle, int *version)
{
  (void)handle;  /* may be NULL: the version does not depend on a handle */
  if (version == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *version = KRONBLAS_VERSION;
  return KRONBLAS_STATUS_SUCCESS;
}

size_t kb_type_size(kronblasDataType_t type)
{
  switch (type) {
  case KRONBLAS_R_32F: return 4;
  case KRONBLAS_R_64F: return 8;
  case KRONBLAS_C_32F: return 8;
  case KRONBLAS_C_64F: return 16;
  }
  return 0;
}

int kb_type_is_complex(kronblasDataType_t type)
{
  return type == KRONBLAS_C_32F || type == KRONBLAS_C_64F;
}
