/* cuda_backend.c - the CUDA backend's host side: handle state, device
 * workspace, and the driver that turns a planned problem into launches.
 *
 * Every call is asynchronous on the handle's stream, like cuBLAS: nothing
 * here synchronises, except growing the handle's own workspace (cudaFree
 * waits for the device, so no launch in flight still uses the old buffer).
 *
 * Device pointer mode: alpha and beta stay on the device and every kernel
 * reads them there, so alpha == 0 (read neither X nor the factors) and
 * beta == 0 (never read Y) are decided on the device without a copy.
 *
 * Intermediates live in workspace, one vector after another (contiguous
 * along k), whatever the layout of X and Y; only the first launch reads X
 * and only the last writes Y through their own strides.  Y overlapping X or
 * a factor is detected from address ranges: the batch then runs one entry
 * at a time, and an entry whose Y overlaps forms alpha*result in workspace
 * and blends it into Y after every read is done. */
#include "cuda_internal.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

static kronblasStatus_t kb_cuda_status(cudaError_t err, const char *what)
{
  if (err == cudaSuccess)
    return KRONBLAS_STATUS_SUCCESS;
  kb_log(KB_LOG_ERROR, "%s: %s", what, cudaGetErrorString(err));
  return KRONBLAS_STATUS_EXECUTION_FAILED;
}

static kronblasStatus_t kb_cuda_init(struct kronblasContext *h)
{
  kb_cuda_state_t *cs;
  int n = 0, dev = 0, nsm = 0;
  cudaError_t err;

  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  }
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  }
  err = (cudaError_t)kb_cuda_kernels_init();
  if (err != cudaSuccess) {
    kb_log(KB_LOG_WARN, "CUDA kernels unusable on device %d: %s", dev, cudaGetErrorString(err));
    (void)cudaGetLastError();
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  }
  cs = calloc(1, sizeof *cs);
  if (cs == NULL)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  cs->device = dev;
  cs->nsm = nsm;
  h->backend_state = cs;
  return KRONBLAS_STATUS_SUCCESS;
}

static void kb_cuda_fini(struct kronblasContext *h)
{
  kb_cuda_state_t *cs = h->backend_state;
  if (cs == NULL)
    return;
  if (cs->ws != NULL)
    (void)cudaFree(cs->ws);
  kb_cuda_plans_free(cs);
  kb_cuda_model_plans_free(cs);
  kb_cuda_cublas_fini(cs);
  free(cs);
  h->backend_state = NULL;
}

static size_t kb_align256(size_t v)
{
  return (v + 255) & ~(size_t)255;
}

/* Elements of one intermediate buffer for one batch entry: m times the
 * longest vector after any number of factors (the result included, which
 * the overlap path keeps in workspace too). */
static kronblasStatus_t kb_cuda_buf_bytes(const kb_problem_t *pb, size_t *bytes)
{
  size_t esz = kb_type_size(pb->type);
  int64_t i, pre = pb->K, suf = 1, smax = 0, e;
  for (i = pb->nfactors - 1; i >= 0; i--) {
    pre = pb->p[i] ? pre / pb->p[i] : 0;
    suf *= pb->q[i];
    if (pre * suf > smax)
      smax = pre * suf;
  }
  if (__builtin_mul_overflow(smax, pb->m, &e) || __builtin_mul_overflow(e, (int64_t)esz, &e) ||
      (uint64_t)e > SIZE_MAX / 4)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  *bytes = kb_align256((size_t)e);
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cuda_workspace_size(struct kronblasContext *h, const kb_problem_t *pb, size_t *bytes)
{
  size_t buf;
  (void)h;
  if (pb->K == 0) {
    *bytes = 0;
    return KRONBLAS_STATUS_SUCCESS;
  }
  KB_CHECK(kb_cuda_buf_bytes(pb, &buf));
  *bytes = (pb->nfactors >= 2 ? 2 : 1) * buf;
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cuda_set_stream(struct kronblasContext *h, void *stream)
{
  (void)h;
  (void)stream;
  return KRONBLAS_STATUS_SUCCESS;
}

/* The user's workspace must be device memory: a host pointer would only
 * fail later, inside a kernel. */
static kronblasStatus_t kb_cuda_set_workspace(struct kronblasContext *h, void *ws, size_t bytes)
{
  struct cudaPointerAttributes at;
  (void)h;
  if (ws == NULL || bytes == 0)
    return KRONBLAS_STATUS_SUCCESS;
  if (cudaPointerGetAttributes(&at, ws) != cudaSuccess) {
    (void)cudaGetLastError();
    return KRONBLAS_STATUS_INVALID_VALUE;
  }
  if (at.type != cudaMemoryTypeDevice && at.type != cudaMemoryTypeManaged)
    return KRONBLAS_STATUS_INVALID_VALUE;
  return KRONBLAS_STATUS_SUCCESS;
}

kronblasStatus_t kb_cuda_workspace_get(struct kronblasContext *h, size_t per, int64_t want,
                                       void **ws, int64_t *entries)
{
  kb_cuda_state_t *cs = h->backend_state;
  int64_t g;
  if (h->user_ws != NULL) {
    if (h->user_ws_bytes < per) {
      kb_log(KB_LOG_ERROR, "user workspace of %zu bytes is smaller than the %zu this call needs",
             h->user_ws_bytes, per);
      return KRONBLAS_STATUS_ALLOC_FAILED;
    }
    g = (int64_t)(h->user_ws_bytes / per);
    *entries = g < want ? g : want;
    *ws = h->user_ws;
    return KRONBLAS_STATUS_SUCCESS;
  }
  g = cs->ws_bytes / per;
  if (g < want && g * per < KB_CUDA_WS_CHUNK_BYTES) {
    /* Grow: as many entries as the chunk limit allows, at least one. */
    int64_t gw = (int64_t)(KB_CUDA_WS_CHUNK_BYTES / per);
    size_t bytes;
    void *p = NULL;
    if (gw < 1) gw = 1;
    if (gw > want) gw = want;
    bytes = (size_t)gw * per;
    if (cs->ws != NULL) {
      (void)cudaFree(cs->ws);
      cs->ws = NULL;
      cs->ws_bytes = 0;
    }
    if (kb_fault(KB_FAULT_ALLOC)) {
      kb_log(KB_LOG_ERROR, "could not allocate %zu bytes of device workspace", per);
      return KRONBLAS_STATUS_ALLOC_FAILED;
    }
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      bytes = per;
      if (cudaMalloc(&p, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        kb_log(KB_LOG_ERROR, "could not allocate %zu bytes of device workspace", per);
        return KRONBLAS_STATUS_ALLOC_FAILED;
      }
    }
    cs->ws = p;
    cs->ws_bytes = bytes;
    g = cs->ws_bytes / per;
  }
  *entries = g < want ? g : want;
  *ws = cs->ws;
  return KRONBLAS_STATUS_SUCCESS;
}

/* Byte range [lo, hi) covered by an operand over the whole batch. */
static void kb_batch_range(const void *base, int64_t extent, long long stride, int64_t batch,
                           size_t esz, uintptr_t *lo, uintptr_t *hi)
{
  intptr_t first = 0, last = (intptr_t)((batch - 1) * stride) * (intptr_t)esz;
  if (last < first) {
    intptr_t t = first;
    first = last;
    last = t;
  }
  *lo = (uintptr_t)base + first;
  *hi = (uintptr_t)base + last + (uintptr_t)extent * esz;
}

static int kb_ranges_meet(uintptr_t alo, uintptr_t ahi, uintptr_t blo, uintptr_t bhi)
{
  return alo < ahi && blo < bhi && alo < bhi && blo < ahi;
}

static int64_t kb_x_extent(const kb_problem_t *pb)
{
  return kb_matrix_extent(pb->x_contig_k ? pb->K : pb->m, pb->x_contig_k ? pb->m : pb->K, pb->ldx);
}

static int64_t kb_y_extent(const kb_problem_t *pb)
{
  return kb_matrix_extent(pb->y_contig_l ? pb->L : pb->m, pb->y_contig_l ? pb->m : pb->L, pb->ldy);
}

static int64_t kb_f_extent(const kb_problem_t *pb, int64_t i)
{
  return kb_matrix_extent(pb->f_contig_k ? pb->p[i] : pb->q[i], pb->f_contig_k ? pb->q[i] : pb->p[i],
                          pb->ldf[i]);
}

/* Does Y, over entries [b0, b0+n), share memory with X or a factor over the
 * same entries? */
static int kb_cuda_overlap(const kb_problem_t *pb, int64_t b0, int64_t n)
{
  const size_t esz = kb_type_size(pb->type);
  uintptr_t ylo, yhi, lo, hi;
  int64_t i;
  kb_batch_range((const char *)pb->Y + (ptrdiff_t)(b0 * pb->strideY) * (ptrdiff_t)esz,
                 kb_y_extent(pb), pb->strideY, n, esz, &ylo, &yhi);
  kb_batch_range((const char *)pb->X + (ptrdiff_t)(b0 * pb->strideX) * (ptrdiff_t)esz,
                 kb_x_extent(pb), pb->strideX, n, esz, &lo, &hi);
  if (kb_ranges_meet(ylo, yhi, lo, hi))
    return 1;
  for (i = 0; i < pb->nfactors; i++) {
    long long sf = pb->strideF ? pb->strideF[i] : 0;
    kb_batch_range((const char *)pb->F[i] + (ptrdiff_t)(b0 * sf) * (ptrdiff_t)esz,
                   kb_f_extent(pb, i), sf, n, esz, &lo, &hi);
    if (kb_ranges_meet(ylo, yhi, lo, hi))
      return 1;
  }
  return 0;
}

/* Do the Y of different batch entries share memory?  Then entries run one
 * after another, as on the CPU backend. */
static int kb_cuda_y_self_overlap(const kb_problem_t *pb)
{
  int64_t ext = kb_y_extent(pb);
  long long s = pb->strideY < 0 ? -pb->strideY : pb->strideY;
  return pb->batch > 1 && s < ext;
}

/* The epilogue of the launch that writes Y: none where alpha = 1 and
 * beta = 0 are host values of a real type, as out = v is then alpha*v to
 * the bit (complex alpha*v is not: 0 * inf).  The kernels' epilogue costs
 * registers where they are scarce: float 1024_16x16^4's row over clusters
 * ran 0.418 ms with it and 0.399 without, the tuner's launch 0.415 against
 * 0.391 (H100, session 23); float 8^5, 8^6 and 32^3 within 1%. */
static int kb_cuda_y_epilogue(const kb_problem_t *pb)
{
  if (pb->pointer_mode == KRONBLAS_POINTER_MODE_HOST && pb->beta_is_zero &&
      ((pb->type == KRONBLAS_R_32F && *(const float *)pb->alpha == 1.0f) ||
       (pb->type == KRONBLAS_R_64F && *(const double *)pb->alpha == 1.0)))
    return KB_EPI_NONE;
  return KB_EPI_AXPBY;
}

typedef struct {
  kb_cuda_state_t *cs;
  const kb_problem_t *pb;
  const kb_cuda_pstep_t *steps;
  int64_t nsteps;
  char *buf[2];
  int64_t buf_elems;        /* batch stride of the intermediates, elements */
  int col;                  /* the column plan: intermediates contiguous along m */
  int64_t nsub, pre;        /* natural-order plans: the first nsub steps run on
                               m * pre sub-vectors (kb_cuda_nat_sub) */
  void *stream;
} kb_cuda_run_t;

/* All launches for entries [b0, b0+n); overlap: form the result in
 * workspace and blend it into Y (n == 1). */
static kronblasStatus_t kb_cuda_run_chunk(const kb_cuda_run_t *rn, int64_t b0, int64_t n, int overlap)
{
  const kb_problem_t *pb = rn->pb;
  const size_t esz = kb_type_size(pb->type);
  const int dev = pb->pointer_mode == KRONBLAS_POINTER_MODE_DEVICE;
  int64_t j, Kcur = pb->K;
  kb_cuda_step_t st;
  cudaError_t err;

  for (j = 0; j < rn->nsteps; j++) {
    const kb_cuda_pstep_t *ps = &rn->steps[j];
    const int last = j == rn->nsteps - 1;
    /* Sub-vector steps: the vectors are (pre, K'), rows one after another. */
    const int64_t split = j < rn->nsub ? rn->pre : 1;
    int64_t Knext = Kcur;
    int f;
    memset(&st, 0, sizeof st);
    st.type = (int)pb->type;
    st.m = pb->m * split;
    st.batch = n;
    st.K = Kcur / split;
    st.nf = ps->nf;
    for (f = 0; f < ps->nf; f++) {
      const int64_t i = ps->i_hi - f;
      const long long sf = pb->strideF ? pb->strideF[i] : 0;
      st.p[f] = pb->p[i];
      st.q[f] = pb->q[i];
      st.F[f] = (const char *)pb->F[i] + (ptrdiff_t)(b0 * sf) * (ptrdiff_t)esz;
      st.fs_l[f] = pb->fs_l[i];
      st.fs_k[f] = pb->fs_k[i];
      st.f_bs[f] = sf;
      Knext = Knext / pb->p[i] * pb->q[i];
    }
    st.conjF = pb->conjF;
    if (j == 0) {
      st.in = (const char *)pb->X + (ptrdiff_t)(b0 * pb->strideX) * (ptrdiff_t)esz;
      st.in_rs = split > 1 ? st.K : pb->xs_m;
      st.in_is = pb->xs_k;
      st.in_bs = pb->strideX;
      st.conj_in = pb->conjX;
    } else {
      st.in = rn->buf[(j - 1) % 2];
      st.in_rs = rn->col ? 1 : Kcur / split;
      st.in_is = rn->col ? pb->m : 1;
      st.in_bs = rn->buf_elems;
    }
    if (last && !overlap) {
      st.out = (char *)pb->Y + (ptrdiff_t)(b0 * pb->strideY) * (ptrdiff_t)esz;
      st.out_rs = pb->ys_m;
      st.out_is = pb->ys_l;
      st.out_bs = pb->strideY;
      st.epilogue = kb_cuda_y_epilogue(pb);
    } else {
      st.out = rn->buf[j % 2];
      st.out_rs = rn->col ? 1 : Knext / split;
      st.out_is = rn->col ? pb->m : 1;
      st.out_bs = rn->buf_elems;
      st.epilogue = last ? KB_EPI_ALPHA : KB_EPI_NONE;
    }
    st.alpha = pb->alpha;
    st.beta = pb->beta;
    st.dev_scalars = dev;
    st.beta_zero = pb->beta_is_zero;
    st.kernel = ps->kernel;
    if (ps->kernel == KB_KERNEL_CUBLAS_NAT)
      st.post = kb_cuda_nat_post(pb, ps->i_hi);
    err = (cudaError_t)kb_cuda_step(rn->cs, &st, rn->stream);
    if (err != cudaSuccess)
      return kb_cuda_status(err, "sliced-multiply launch");
    Kcur = Knext;
  }
  if (overlap) {
    err = (cudaError_t)kb_cuda_launch_xpby(
        (int)pb->type, pb->m, pb->L, rn->buf[(rn->nsteps - 1) % 2], rn->col ? 1 : pb->L,
        rn->col ? pb->m : 1,
        (char *)pb->Y + (ptrdiff_t)(b0 * pb->strideY) * (ptrdiff_t)esz, pb->ys_m, pb->ys_l,
        pb->beta, dev, pb->beta_is_zero, rn->stream);
    if (err != cudaSuccess)
      return kb_cuda_status(err, "blend launch");
  }
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cuda_gekmm(struct kronblasContext *h, const kb_problem_t *pb)
{
  kronblasStatus_t st = KRONBLAS_STATUS_SUCCESS;
  kb_cuda_state_t *cs = h->backend_state;
  const int dev = pb->pointer_mode == KRONBLAS_POINTER_MODE_DEVICE;
  kb_cuda_pstep_t sstack[64], *steps = sstack;
  kb_cuda_run_t rn;
  size_t buf = 0, per = 0;
  int64_t b, G = 1;
  int any_overlap, nbuf;
  void *ws = NULL;

  if (pb->alpha_is_zero || pb->K == 0) {
    cudaError_t err = (cudaError_t)kb_cuda_launch_scale(
        (int)pb->type, pb->m, pb->L, pb->batch, pb->Y, pb->ys_m, pb->ys_l, pb->strideY,
        pb->beta, dev, pb->beta_is_zero, h->stream);
    return kb_cuda_status(err, "scale launch");
  }
  if (pb->nfactors > 64) {
    steps = malloc((size_t)pb->nfactors * sizeof *steps);
    if (steps == NULL)
      return KRONBLAS_STATUS_ALLOC_FAILED;
  }
  memset(&rn, 0, sizeof rn);
  rn.cs = cs;
  rn.pb = pb;
  rn.steps = steps;
  if (h->tuning_mode == KRONBLAS_TUNING_MEASURE) {
    rn.nsteps = kb_cuda_plan_cached(h, pb, steps);
    if (rn.nsteps == 0)
      KB_CHECK_GOTO(kb_cuda_tune(h, pb, steps, &rn.nsteps), st, out);
  } else {
    rn.nsteps = kb_cuda_model_plan(h, pb, steps);
  }
  /* The planners may have chosen GEMMs in the column layout (X and Y
   * contiguous along m, RIGHT/N) or in natural order (the tuner, X and Y
   * along K/L).  Plans are kept per key, which leaves out the leading
   * dimensions: one that no longer fits cuBLAS' int is planned again
   * without them. */
  rn.col = rn.nsteps > 0 && steps[0].kernel == KB_KERNEL_CUBLAS_COL;
  rn.nsub = kb_cuda_nat_nsub(steps, rn.nsteps);
  if ((rn.col && !kb_cuda_col_usable(pb, h->kernel_policy)) ||
      (rn.nsteps > 0 && steps[rn.nsub].kernel == KB_KERNEL_CUBLAS_NAT && !kb_cuda_nat_usable(pb, h->kernel_policy)) ||
      (rn.nsub > 0 && !kb_cuda_nat_sub_usable(pb, h->kernel_policy))) {
    rn.nsteps = kb_cuda_plan_sliced(pb, h->kernel_policy, cs->nsm, steps, NULL);
    rn.col = 0;
    rn.nsub = 0;
  }
  rn.pre = 1;
  if (rn.nsub > 0) {
    int64_t i;
    for (i = 0; i <= steps[rn.nsub].i_hi; i++)
      rn.pre *= pb->p[i];
  }
  rn.stream = h->stream;
  if (kb_env()->log_level >= KB_LOG_DEBUG) {
    int64_t j;
    int ncfg;
    const kb_cuda_fast_cfg_t *cfg = kb_cuda_fast_cfgs(&ncfg);
    for (j = 0; j < rn.nsteps; j++) {
      const int k = steps[j].kernel;
      char word[160];
      (void)kb_cuda_kernel_word(k, word, (int)sizeof word);
      kb_log(KB_LOG_DEBUG, "cuda plan step %lld: factors %lld..%lld, kernel %d%s%s%s%s", (long long)j,
             (long long)steps[j].i_hi, (long long)(steps[j].i_hi - steps[j].nf + 1), k, word[0] ? " " : "",
             word, k >= 0 && k < ncfg && cfg[k].variant ? " variant" : "", j < rn.nsub ? " (sub-vectors)" : "");
    }
  }

  any_overlap = kb_cuda_overlap(pb, 0, pb->batch);
  /* Buffers: the launches between X and Y ping-pong between two; with
   * overlap the last launch also writes into one. */
  nbuf = any_overlap ? (rn.nsteps >= 2 ? 2 : 1) : (rn.nsteps >= 3 ? 2 : (int)rn.nsteps - 1);
  G = pb->batch;
  if (any_overlap || kb_cuda_y_self_overlap(pb))
    G = 1;
  if (nbuf > 0) {
    KB_CHECK_GOTO(kb_cuda_buf_bytes(pb, &buf), st, out);
    per = (size_t)nbuf * buf;
    KB_CHECK_GOTO(kb_cuda_workspace_get(h, per, G, &ws, &G), st, out);
    rn.buf[0] = ws;
    rn.buf[1] = (char *)ws + (size_t)G * buf;
    rn.buf_elems = (int64_t)(buf / kb_type_size(pb->type));
  }
  for (b = 0; b < pb->batch; b += G) {
    int64_t n = pb->batch - b < G ? pb->batch - b : G;
    int ovl = any_overlap && kb_cuda_overlap(pb, b, n);
    KB_CHECK_GOTO(kb_cuda_run_chunk(&rn, b, n, ovl), st, out);
  }
out:
  if (steps != sstack)
    free(steps);
  return st;
}

const kb_backend_t kb_cuda_backend = {
  "cuda",
  kb_cuda_init,
  kb_cuda_fini,
  kb_cuda_gekmm,
  kb_cuda_workspace_size,
  kb_cuda_set_stream,
  kb_cuda_set_workspace,
  kb_cuda_wisdom_ident,   /* wisdom: lib/cuda_tune.c */
  kb_cuda_wisdom_each,
  kb_cuda_wisdom_add,
  kb_cuda_wisdom_forget,
};
