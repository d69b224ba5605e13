/* handle.c - creating, checking and destroying handles, their settings and
 * the host workspace they own.
 *
 * Live handles are kept in a registry so that a NULL, destroyed or foreign
 * pointer gives NOT_INITIALIZED instead of a read of freed memory. */
#include "kb_internal.h"
#include "kb_wisdom.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_mutex_t kb_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kronblasContext **kb_registry;
static size_t kb_registry_len, kb_registry_cap;

static kronblasStatus_t kb_registry_add(struct kronblasContext *h)
{
  kronblasStatus_t st = KRONBLAS_STATUS_SUCCESS;
  pthread_mutex_lock(&kb_registry_lock);
  if (kb_registry_len == kb_registry_cap) {
    size_t cap = kb_registry_cap ? 2 * kb_registry_cap : 16;
    struct kronblasContext **r = realloc(kb_registry, cap * sizeof *r);
    if (r == NULL) {
      st = KRONBLAS_STATUS_ALLOC_FAILED;
      goto out;
    }
    kb_registry = r;
    kb_registry_cap = cap;
  }
  kb_registry[kb_registry_len++] = h;
out:
  pthread_mutex_unlock(&kb_registry_lock);
  return st;
}

/* Removes h; NOT_INITIALIZED if it was not there (double destroy). */
static kronblasStatus_t kb_registry_remove(struct kronblasContext *h)
{
  kronblasStatus_t st = KRONBLAS_STATUS_NOT_INITIALIZED;
  size_t i;
  pthread_mutex_lock(&kb_registry_lock);
  for (i = 0; i < kb_registry_len; i++) {
    if (kb_registry[i] == h) {
      kb_registry[i] = kb_registry[--kb_registry_len];
      st = KRONBLAS_STATUS_SUCCESS;
      break;
    }
  }
  pthread_mutex_unlock(&kb_registry_lock);
  return st;
}

kronblasStatus_t kb_handle_check(kronblasHandle_t h)
{
  kronblasStatus_t st = KRONBLAS_STATUS_NOT_INITIALIZED;
  size_t i;
  if (h == NULL)
    return st;
  pthread_mutex_lock(&kb_registry_lock);
  for (i = 0; i < kb_registry_len; i++) {
    if (kb_registry[i] == h) {
      st = h->magic == KB_HANDLE_MAGIC ? KRONBLAS_STATUS_SUCCESS : KRONBLAS_STATUS_INTERNAL_ERROR;
      break;
    }
  }
  pthread_mutex_unlock(&kb_registry_lock);
  return st;
}

static const kb_backend_t *kb_backend_ops(kronblasBackend_t backend)
{
  switch (backend) {
  case KRONBLAS_BACKEND_CPU:
    return &kb_cpu_backend;
  case KRONBLAS_BACKEND_CUDA:
#ifdef HAVE_CUDA
    return &kb_cuda_backend;
#else
    return NULL;
#endif
  }
  return NULL;
}

kronblasStatus_t kronblasCreateWithBackend(kronblasHandle_t *handle, kronblasBackend_t backend)
{
  kronblasStatus_t st;
  struct kronblasContext *h = NULL;
  const kb_backend_t *ops;

  if (handle == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  if (backend != KRONBLAS_BACKEND_CPU && backend != KRONBLAS_BACKEND_CUDA)
    return KRONBLAS_STATUS_INVALID_VALUE;
  ops = kb_backend_ops(backend);
  if (ops == NULL)
    return KRONBLAS_STATUS_NOT_SUPPORTED;

  h = calloc(1, sizeof *h);
  if (h == NULL)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  h->magic = KB_HANDLE_MAGIC;
  h->backend = backend;
  h->ops = ops;
  h->pointer_mode = KRONBLAS_POINTER_MODE_HOST;
  h->kernel_policy = KRONBLAS_KERNELS_ALL;
  h->tuning_mode = kb_env_tuning_mode();
  KB_CHECK_GOTO(ops->init(h), st, fail);
  KB_CHECK_GOTO(kb_registry_add(h), st, fail_fini);
  kb_log(KB_LOG_INFO, "created handle %p on the %s backend", (void *)h, ops->name);
  kb_wisdom_on_create(h);   /* KRONBLAS_WISDOM_FILE; warnings only */
  *handle = h;
  return KRONBLAS_STATUS_SUCCESS;

fail_fini:
  ops->fini(h);
fail:
  free(h);
  return st;
}

kronblasStatus_t kronblasCreate(kronblasHandle_t *handle)
{
  const kb_env_t *env = kb_env();
  if (handle == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  if (env->backend != NULL && strcasecmp(env->backend, "cpu") == 0)
    return kronblasCreateWithBackend(handle, KRONBLAS_BACKEND_CPU);
#ifdef HAVE_CUDA
  if (kb_cuda_device_available()) {
    if (kronblasCreateWithBackend(handle, KRONBLAS_BACKEND_CUDA) == KRONBLAS_STATUS_SUCCESS)
      return KRONBLAS_STATUS_SUCCESS;
    kb_log(KB_LOG_WARN, "a CUDA device is visible but the CUDA backend did not start; using the CPU");
  }
#endif
  return kronblasCreateWithBackend(handle, KRONBLAS_BACKEND_CPU);
}

kronblasStatus_t kronblasDestroy(kronblasHandle_t h)
{
  if (h == NULL)
    return KRONBLAS_STATUS_NOT_INITIALIZED;
  KB_CHECK(kb_registry_remove(h));
  h->ops->fini(h);
  free(h->own_ws);
  h->magic = 0;
  free(h);
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetBackend(kronblasHandle_t h, kronblasBackend_t *backend)
{
  KB_CHECK(kb_handle_check(h));
  if (backend == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *backend = h->backend;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasSetStream(kronblasHandle_t h, void *cudaStream)
{
  KB_CHECK(kb_handle_check(h));
  if (h->ops->set_stream == NULL) {
    /* The CPU backend has no streams: the default stream is the only one. */
    if (cudaStream != NULL)
      return KRONBLAS_STATUS_NOT_SUPPORTED;
    h->stream = NULL;
    return KRONBLAS_STATUS_SUCCESS;
  }
  KB_CHECK(h->ops->set_stream(h, cudaStream));
  h->stream = cudaStream;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetStream(kronblasHandle_t h, void **cudaStream)
{
  KB_CHECK(kb_handle_check(h));
  if (cudaStream == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *cudaStream = h->stream;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasSetPointerMode(kronblasHandle_t h, kronblasPointerMode_t mode)
{
  KB_CHECK(kb_handle_check(h));
  if (mode != KRONBLAS_POINTER_MODE_HOST && mode != KRONBLAS_POINTER_MODE_DEVICE)
    return KRONBLAS_STATUS_INVALID_VALUE;
  h->pointer_mode = mode;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetPointerMode(kronblasHandle_t h, kronblasPointerMode_t *mode)
{
  KB_CHECK(kb_handle_check(h));
  if (mode == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *mode = h->pointer_mode;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasSetWorkspace(kronblasHandle_t h, void *workspace, size_t bytes)
{
  KB_CHECK(kb_handle_check(h));
  if (workspace == NULL && bytes != 0)
    return KRONBLAS_STATUS_INVALID_VALUE;
  if (h->ops->set_workspace != NULL)
    KB_CHECK(h->ops->set_workspace(h, workspace, bytes));
  h->user_ws = workspace;
  h->user_ws_bytes = workspace == NULL ? 0 : bytes;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasSetNumThreads(kronblasHandle_t h, int nthreads)
{
  KB_CHECK(kb_handle_check(h));
  if (nthreads < 0)
    return KRONBLAS_STATUS_INVALID_VALUE;
  h->nthreads = nthreads;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetNumThreads(kronblasHandle_t h, int *nthreads)
{
  KB_CHECK(kb_handle_check(h));
  if (nthreads == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *nthreads = h->nthreads;
  return KRONBLAS_STATUS_SUCCESS;
}

/* Planning settings: stored on every backend so that Get returns what Set
 * stored; only the CUDA backend's planner acts on them (kronblas.h). */
kronblasStatus_t kronblasSetKernelPolicy(kronblasHandle_t h, kronblasKernelPolicy_t policy)
{
  KB_CHECK(kb_handle_check(h));
  if (policy != KRONBLAS_KERNELS_ALL && policy != KRONBLAS_KERNELS_NO_FUSION &&
      policy != KRONBLAS_KERNELS_GENERIC && policy != KRONBLAS_KERNELS_CUBLAS)
    return KRONBLAS_STATUS_INVALID_VALUE;
  h->kernel_policy = policy;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetKernelPolicy(kronblasHandle_t h, kronblasKernelPolicy_t *policy)
{
  KB_CHECK(kb_handle_check(h));
  if (policy == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *policy = h->kernel_policy;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasSetTuningMode(kronblasHandle_t h, kronblasTuningMode_t mode)
{
  KB_CHECK(kb_handle_check(h));
  if (mode != KRONBLAS_TUNING_MODEL && mode != KRONBLAS_TUNING_MEASURE)
    return KRONBLAS_STATUS_INVALID_VALUE;
  h->tuning_mode = mode;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kronblasGetTuningMode(kronblasHandle_t h, kronblasTuningMode_t *mode)
{
  KB_CHECK(kb_handle_check(h));
  if (mode == NULL)
    return KRONBLAS_STATUS_INVALID_VALUE;
  *mode = h->tuning_mode;
  return KRONBLAS_STATUS_SUCCESS;
}

/* Wisdom: the file format and its checks are lib/wisdom.c's. */
kronblasStatus_t kronblasExportWisdom(kronblasHandle_t h, const char *path)
{
  KB_CHECK(kb_handle_check(h));
  if (path == NULL || *path == '\0')
    return KRONBLAS_STATUS_INVALID_VALUE;
  return kb_wisdom_export(h, path);
}

kronblasStatus_t kronblasImportWisdom(kronblasHandle_t h, const char *path)
{
  KB_CHECK(kb_handle_check(h));
  if (path == NULL || *path == '\0')
    return KRONBLAS_STATUS_INVALID_VALUE;
  return kb_wisdom_import(h, path);
}

kronblasStatus_t kronblasForgetWisdom(kronblasHandle_t h)
{
  KB_CHECK(kb_handle_check(h));
  return kb_wisdom_forget(h);
}

kronblasStatus_t kb_host_workspace(kronblasHandle_t h, size_t bytes, void **ws)
{
  void *p;
  if (h->user_ws != NULL) {
    if (h->user_ws_bytes < bytes) {
      kb_log(KB_LOG_ERROR, "user workspace of %zu bytes is smaller than the %zu this call needs",
             h->user_ws_bytes, bytes);
      return KRONBLAS_STATUS_ALLOC_FAILED;
    }
    *ws = h->user_ws;
    return KRONBLAS_STATUS_SUCCESS;
  }
  if (h->own_ws_bytes >= bytes) {
    *ws = h->own_ws;
    return KRONBLAS_STATUS_SUCCESS;
  }
  /* Round up so that a series of growing calls does not reallocate each time;
   * 64-byte alignment for vector loads. */
  if (bytes > SIZE_MAX / 2 - 64)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  {
    size_t want = bytes + bytes / 4;
    want = (want + 63) & ~(size_t)63;
    if (posix_memalign(&p, 64, want) != 0)
      return KRONBLAS_STATUS_ALLOC_FAILED;
    free(h->own_ws);
    h->own_ws = p;
    h->own_ws_bytes = want;
  }
  *ws = h->own_ws;
  return KRONBLAS_STATUS_SUCCESS;
}
