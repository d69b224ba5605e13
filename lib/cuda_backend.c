/* cuda_backend.c - the CUDA backend's host side: launch, planning and
 * workspace.  Not built yet: every call reports NOT_SUPPORTED, so that
 * kronblasCreate falls back to the CPU backend. */
#include "kb_internal.h"

static kronblasStatus_t kb_cuda_init(struct kronblasContext *h)
{
  (void)h;
  return KRONBLAS_STATUS_NOT_SUPPORTED;
}

static void kb_cuda_fini(struct kronblasContext *h)
{
  (void)h;
}

static kronblasStatus_t kb_cuda_gekmm(struct kronblasContext *h, const kb_problem_t *pb)
{
  (void)h;
  (void)pb;
  return KRONBLAS_STATUS_NOT_SUPPORTED;
}

static kronblasStatus_t kb_cuda_workspace_size(struct kronblasContext *h, const kb_problem_t *pb, size_t *bytes)
{
  (void)h;
  (void)pb;
  (void)bytes;
  return KRONBLAS_STATUS_NOT_SUPPORTED;
}

static kronblasStatus_t kb_cuda_set_stream(struct kronblasContext *h, void *stream)
{
  (void)h;
  (void)stream;
  return KRONBLAS_STATUS_NOT_SUPPORTED;
}

const kb_backend_t kb_cuda_backend = {
  "cuda",
  kb_cuda_init,
  kb_cuda_fini,
  kb_cuda_gekmm,
  kb_cuda_workspace_size,
  kb_cuda_set_stream,
  NULL,
};
