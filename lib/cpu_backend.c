/* cpu_backend.c - the CPU backend: FastKron's sliced multiply, one factor at
 * a time (last factor first) between two ping-pong buffers in the handle's
 * workspace, each output written at its final index.
 *
 * Layout of the intermediates: row-major per vector (index fastest) when X
 * runs along K, column-major (m fastest) when X runs along m, so that the
 * kernels' inner loops stay contiguous without a transposed copy of X.
 *
 * Y overlapping X or a factor is allowed: it is detected from the address
 * ranges and the result is then formed in workspace and blended into Y. */
#include "kb_internal.h"
#include "../kernels/cpu/kb_cpu_kernels.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static kronblasStatus_t kb_cpu_init(struct kronblasContext *h)
{
  (void)h;
  return KRONBLAS_STATUS_SUCCESS;
}

static void kb_cpu_fini(struct kronblasContext *h)
{
  (void)h;
}

/* Threads for one call: the handle's setting, else OpenMP's; one when the
 * caller is already inside a parallel region (no nested oversubscription). */
static int kb_cpu_threads(const struct kronblasContext *h)
{
#ifdef _OPENMP
  if (omp_in_parallel())
    return 1;
  return h->nthreads > 0 ? h->nthreads : omp_get_max_threads();
#else
  (void)h;
  return 1;
#endif
}

static size_t kb_align64(size_t v)
{
  return (v + 63) & ~(size_t)63;
}

/* Workspace plan: two intermediate buffers (one when nfactors == 1, used only
 * for overlap) of m * max_t S_t elements, S_t the length after t factors
 * (S_n = L), and one packed factor of max p*q elements. */
typedef struct {
  size_t buf_bytes, pack_bytes, total;
  int nbuf;
} kb_cpu_ws_plan_t;

static kronblasStatus_t kb_cpu_ws_plan(const kb_problem_t *pb, kb_cpu_ws_plan_t *w)
{
  size_t esz = kb_type_size(pb->type);
  int64_t i, pre = pb->K, suf = 1, smax = 0, pq = 0, e;
  for (i = pb->nfactors - 1; i >= 0; i--) {
    pre = pb->p[i] ? pre / pb->p[i] : 0;
    suf *= pb->q[i];
    if (pre * suf > smax) smax = pre * suf;
    if (pb->p[i] * pb->q[i] > pq) pq = pb->p[i] * pb->q[i];
  }
  w->nbuf = pb->nfactors >= 2 ? 2 : 1;
  /* Sizes were checked to fit int64 by the front end; bytes may not. */
  if (__builtin_mul_overflow(smax, pb->m, &e) || __builtin_mul_overflow(e, (int64_t)esz, &e) ||
      (uint64_t)e > SIZE_MAX / 4)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  w->buf_bytes = kb_align64((size_t)e);
  w->pack_bytes = kb_align64((size_t)pq * esz);
  w->total = w->nbuf * w->buf_bytes + w->pack_bytes;
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cpu_workspace_size(struct kronblasContext *h, const kb_problem_t *pb, size_t *bytes)
{
  kb_cpu_ws_plan_t w;
  (void)h;
  if (pb->K == 0) {
    *bytes = 0;
    return KRONBLAS_STATUS_SUCCESS;
  }
  KB_CHECK(kb_cpu_ws_plan(pb, &w));
  *bytes = w.total;
  return KRONBLAS_STATUS_SUCCESS;
}

static int kb_ranges_overlap(const void *a, size_t an, const void *b, size_t bn)
{
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  if (an == 0 || bn == 0)
    return 0;
  return a0 < b0 + bn && b0 < a0 + an;
}

/* Does the batch entry's Y share memory with its X or a factor? */
static int kb_cpu_y_overlaps(const kb_problem_t *pb, const void *X, const void *const *F, const void *Y)
{
  size_t esz = kb_type_size(pb->type);
  size_t ybytes = esz * (size_t)kb_matrix_extent(pb->y_contig_l ? pb->L : pb->m,
                                                 pb->y_contig_l ? pb->m : pb->L, pb->ldy);
  size_t xbytes = esz * (size_t)kb_matrix_extent(pb->x_contig_k ? pb->K : pb->m,
                                                 pb->x_contig_k ? pb->m : pb->K, pb->ldx);
  int64_t i;
  if (kb_ranges_overlap(Y, ybytes, X, xbytes))
    return 1;
  for (i = 0; i < pb->nfactors; i++) {
    int64_t rows = pb->f_contig_k ? pb->p[i] : pb->q[i];
    int64_t cols = pb->f_contig_k ? pb->q[i] : pb->p[i];
    if (kb_ranges_overlap(Y, ybytes, F[i], esz * (size_t)kb_matrix_extent(rows, cols, pb->ldf[i])))
      return 1;
  }
  return 0;
}

/* One batch entry with alpha != 0 and K > 0. */
static void kb_cpu_run_one(const kb_problem_t *pb, const kb_cpu_kernels_t *kt, int nthreads,
                           const kb_cpu_ws_plan_t *w, char *ws,
                           const void *X, const void *const *F, void *Y)
{
  const size_t esz = kb_type_size(pb->type);
  const int64_t n = pb->nfactors, m = pb->m;
  const int rows_layout = pb->x_contig_k || m == 1;
  const int overlap = kb_cpu_y_overlaps(pb, X, F, Y);
  void *buf[2];
  void *pack = ws + w->nbuf * w->buf_bytes;
  int64_t t, Kcur = pb->K;
  kb_cpu_step_args_t a;

  buf[0] = ws;
  buf[1] = ws + w->buf_bytes;
  for (t = 0; t < n; t++) {
    const int64_t i = n - 1 - t;
    const int64_t S = Kcur / pb->p[i];
    const int64_t Knext = S * pb->q[i];
    const int last = t == n - 1;

    kt->pack(F[i], pb->p[i], pb->q[i], pb->fs_l[i], pb->fs_k[i], pb->conjF, pack);
    memset(&a, 0, sizeof a);
    a.m = m;
    a.S = S;
    a.p = pb->p[i];
    a.q = pb->q[i];
    a.A = pack;
    a.nthreads = nthreads;
    if (t == 0) {
      a.in = X;
      a.is_r = pb->xs_m;
      a.is_i = pb->xs_k;
      a.conj_in = pb->conjX;
    } else {
      a.in = buf[(t - 1) % 2];
      a.is_r = rows_layout ? Kcur : 1;
      a.is_i = rows_layout ? 1 : m;
    }
    if (!last) {
      a.out = buf[t % 2];
      a.os_r = rows_layout ? Knext : 1;
      a.os_i = rows_layout ? 1 : m;
    } else if (!overlap) {
      a.out = Y;
      a.os_r = pb->ys_m;
      a.os_i = pb->ys_l;
      a.epilogue = 1;
      a.alpha = pb->alpha;
      a.beta = pb->beta;
      a.beta_zero = pb->beta_is_zero;
    } else {
      /* Y shares memory with an input: form alpha*result in the buffer the
       * last step does not read, then blend it into Y. */
      a.out = buf[t % 2];
      a.os_r = pb->y_contig_l ? Knext : 1;
      a.os_i = pb->y_contig_l ? 1 : m;
      a.epilogue = 1;
      a.alpha = pb->alpha;
      a.beta = pb->beta;
      a.beta_zero = 1;
    }
    kt->step(&a);
    Kcur = Knext;
  }
  if (overlap)
    kt->xpby(m, pb->L, a.out, a.os_r, a.os_i, Y, pb->ys_m, pb->ys_l,
             pb->beta, pb->beta_is_zero, nthreads);
  (void)esz;
}

static kronblasStatus_t kb_cpu_gekmm(struct kronblasContext *h, const kb_problem_t *pb)
{
  kronblasStatus_t st = KRONBLAS_STATUS_SUCCESS;
  const kb_cpu_kernels_t *kt = kb_cpu_ref_kernels[pb->type];
  const size_t esz = kb_type_size(pb->type);
  const int nthreads = kb_cpu_threads(h);
  const void *fstack[64];
  const void **Fb = fstack;
  kb_cpu_ws_plan_t w;
  void *ws = NULL;
  int64_t b, i;
  const int scale_only = pb->alpha_is_zero || pb->K == 0;

  if (!scale_only) {
    KB_CHECK(kb_cpu_ws_plan(pb, &w));
    KB_CHECK(kb_host_workspace(h, w.total, &ws));
    if (pb->nfactors > 64) {
      Fb = malloc((size_t)pb->nfactors * sizeof *Fb);
      if (Fb == NULL)
        return KRONBLAS_STATUS_ALLOC_FAILED;
    }
  }
  for (b = 0; b < pb->batch; b++) {
    char *Yb = (char *)pb->Y + (ptrdiff_t)(b * pb->strideY) * (ptrdiff_t)esz;
    if (scale_only) {
      kt->scale(pb->m, pb->L, Yb, pb->ys_m, pb->ys_l, pb->beta, pb->beta_is_zero, nthreads);
      continue;
    }
    for (i = 0; i < pb->nfactors; i++) {
      long long sf = pb->strideF ? pb->strideF[i] : 0;
      Fb[i] = (const char *)pb->F[i] + (ptrdiff_t)(b * sf) * (ptrdiff_t)esz;
    }
    kb_cpu_run_one(pb, kt, nthreads, &w, ws,
                   (const char *)pb->X + (ptrdiff_t)(b * pb->strideX) * (ptrdiff_t)esz, Fb, Yb);
  }
  if (Fb != fstack)
    free(Fb);
  return st;
}

const kb_backend_t kb_cpu_backend = {
  "cpu",
  kb_cpu_init,
  kb_cpu_fini,
  kb_cpu_gekmm,
  kb_cpu_workspace_size,
  NULL,
  NULL,
};
