/* cpu_backend.c - the CPU backend: FastKron's sliced multiply, each output
 * written at its final index.
 *
 * Two paths.  The fast one (kernels/cpu/opt_kernels.inc, planned by
 * lib/cpu_plan.c) fuses consecutive factors over tiles kept in cache and
 * runs on the ISA chosen once per process.  The reference one (kernels/cpu/
 * ref_kernels.inc) applies one factor at a time between two ping-pong
 * buffers; it runs when KRONBLAS_CPU_ISA=ref or the planner declines (more
 * than KB_CPU_PLAN_MAXF factors, a factor too large for any tile).
 *
 * Layout of the reference intermediates: row-major per vector (index
 * fastest) when X runs along K, column-major (m fastest) when X runs along
 * m, so that the kernels' inner loops stay contiguous without a transposed
 * copy of X.
 *
 * Y overlapping X or a factor is allowed: it is detected from the address
 * ranges and the result is then formed in workspace and blended into Y. */
#include "kb_internal.h"
#include "cpu_plan.h"
#include "../kernels/cpu/kb_cpu_kernels.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* h->backend_state: the handle's measured plans (lib/cpu_tune.c), NULL
 * while there are none. */
static kronblasStatus_t kb_cpu_init(struct kronblasContext *h)
{
  h->backend_state = NULL;
  h->cpu_plan_memo = NULL;
  h->cpu_split_buf = NULL;
  h->cpu_split_bytes = 0;
  return KRONBLAS_STATUS_SUCCESS;
}

static void kb_cpu_fini(struct kronblasContext *h)
{
  kb_cpu_tune_free(h);
  free(h->cpu_plan_memo);
  h->cpu_plan_memo = NULL;
  free(h->cpu_split_buf);
  h->cpu_split_buf = NULL;
  h->cpu_split_bytes = 0;
}

/* Threads a call may use: the handle's setting, else OpenMP's; one when the
 * caller is already inside a parallel region (no nested oversubscription).
 * A fast-path call of small work runs on one (kb_cpu_call_threads). */
int kb_cpu_handle_threads(const struct kronblasContext *h)
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

/* Calls whose work the model prices below this many vector-FMA slots on one
 * thread (its cost per row, times rows, times batch entries; about 0.2 ns a
 * slot on one Emerald Rapids core, so about 100 us) run on one thread.
 * Measured on a 2-vCPU Emerald Rapids guest (helper cpu27): after an idle
 * spell (30 ms) every two-thread call waited ~5.8 ms, whatever its size,
 * for the sleeping worker's vCPU to be run again (one thread: 40-230 us);
 * back to back, one thread costs at most ~35 us more below the limit
 * (interleaved medians, two threads -> one: float 256_8x8^3, 4.3e5 slots,
 * 51 -> 78 us; double 16_8x8^4, 4.5e5, 57 -> 92 us; double 64_8x8^3,
 * 1.9e5, 28 -> 36 us), and more above it, growing with the work (double
 * 256_8x8^3, 7.5e5, 92 vs 178 us; float 64_8x8^4, 8.6e5, 114 vs 175 us).
 * OpenBLAS keeps small GEMMs on one thread for the same reason.
 * KRONBLAS_CPU_SMALL_WORK replaces the limit (lib/env.c; 0: never cut
 * down). */
#define KB_CPU_SMALL_WORK 5e5

static double kb_cpu_small_work(void)
{
  const double v = kb_env()->cpu_small_work;
  return v >= 0 ? v : KB_CPU_SMALL_WORK;
}

double kb_cpu_test_small_work(void)
{
  return kb_cpu_small_work();
}

static uint64_t kb_cpu_hash(uint64_t x, int64_t v)
{
  return kb_fnv1a(x, &v, sizeof v);
}

/* What the small-work decision depends on beyond the process (kernels,
 * limit): everything the planner reads of pb but the leading dimensions,
 * the batch count and the handle's threads.  Never 0.  (A collision could
 * only change a call's thread count, never its result.) */
static uint64_t kb_cpu_small_key(const kb_problem_t *pb, int nthreads)
{
  uint64_t x = KB_FNV_INIT;
  int64_t i;
  x = kb_cpu_hash(x, pb->type);
  x = kb_cpu_hash(x, pb->side);
  x = kb_cpu_hash(x, pb->transX);
  x = kb_cpu_hash(x, pb->transF);
  x = kb_cpu_hash(x, pb->x_contig_k | pb->y_contig_l << 1 | pb->f_contig_k << 2 | pb->conjX << 3 |
                         pb->conjF << 4);
  x = kb_cpu_hash(x, pb->m);
  x = kb_cpu_hash(x, pb->batch);
  x = kb_cpu_hash(x, nthreads);
  x = kb_cpu_hash(x, pb->nfactors);
  for (i = 0; i < pb->nfactors; i++) {
    x = kb_cpu_hash(x, pb->p[i]);
    x = kb_cpu_hash(x, pb->q[i]);
  }
  return x != 0 ? x : 1;
}

/* The threads a fast-path call of pb on h runs with, at most nthreads (the
 * handle's count): one where the model's one-thread plan prices the whole
 * call (every batch entry) below kb_cpu_small_work(), else nthreads.  *have
 * is 1 when *pl1 then holds that one-thread plan (not on a repeat of the
 * handle's last shape, which reuses the decision without pricing: planning
 * costs a few microseconds).  The count is decided before any plan is
 * chosen, so that a measured plan is timed with the threads it runs on. */
static int kb_cpu_call_threads(struct kronblasContext *h, const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                               int nthreads, kb_cpu_plan_t *pl1, int *have)
{
  const double limit = kb_cpu_small_work();
  uint64_t key;
  double work;
  *have = 0;
  if (nthreads <= 1 || limit <= 0 || kt == NULL)
    return nthreads;
  key = kb_cpu_small_key(pb, nthreads);
  if (key == h->cpu_small_key)
    return h->cpu_small_threads;
  if (kb_cpu_plan_quiet(pb, kt, 1, pl1) != KRONBLAS_STATUS_SUCCESS || !(pl1->cost > 0))
    return nthreads;
  work = pl1->cost * (double)pb->m * (double)pb->batch;
  h->cpu_small_key = key;
  h->cpu_small_threads = work < limit ? 1 : nthreads;
  kb_log(KB_LOG_DEBUG, "cpu: call priced %.3g on one thread, small-work limit %.3g: %d thread%s of %d", work,
         limit, h->cpu_small_threads, h->cpu_small_threads > 1 ? "s" : "", nthreads);
  *have = h->cpu_small_threads == 1;
  return h->cpu_small_threads;
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

/* Bytes [lo, hi) an operand covers over all batch entries. */
static void kb_cpu_batch_range(const void *base, size_t extent, long long stride, int64_t batch,
                               size_t esz, uintptr_t *lo, uintptr_t *hi)
{
  intptr_t span = (intptr_t)(stride * (batch - 1)) * (intptr_t)esz;
  *lo = (uintptr_t)base + (uintptr_t)(span < 0 ? span : 0);
  *hi = (uintptr_t)base + (uintptr_t)(span > 0 ? span : 0) + extent;
}

/* Does some entry's Y share memory with another entry's X or factors?  Exact
 * for small batches, conservative (any contact of the spans) for large. */
static int kb_cpu_cross_overlap(const kb_problem_t *pb)
{
  const size_t esz = kb_type_size(pb->type);
  size_t ybytes = esz * (size_t)kb_matrix_extent(pb->y_contig_l ? pb->L : pb->m,
                                                 pb->y_contig_l ? pb->m : pb->L, pb->ldy);
  size_t xbytes = esz * (size_t)kb_matrix_extent(pb->x_contig_k ? pb->K : pb->m,
                                                 pb->x_contig_k ? pb->m : pb->K, pb->ldx);
  uintptr_t ylo, yhi, lo, hi;
  const void *Fb[KB_CPU_PLAN_MAXF];
  int64_t i, b, c;
  int touch = 0;

  if (pb->batch < 2 || ybytes == 0)
    return 0;
  kb_cpu_batch_range(pb->Y, ybytes, pb->strideY, pb->batch, esz, &ylo, &yhi);
  kb_cpu_batch_range(pb->X, xbytes, pb->strideX, pb->batch, esz, &lo, &hi);
  touch = xbytes > 0 && ylo < hi && lo < yhi;
  for (i = 0; i < pb->nfactors && !touch; i++) {
    int64_t rows = pb->f_contig_k ? pb->p[i] : pb->q[i];
    int64_t cols = pb->f_contig_k ? pb->q[i] : pb->p[i];
    size_t fbytes = esz * (size_t)kb_matrix_extent(rows, cols, pb->ldf[i]);
    kb_cpu_batch_range(pb->F[i], fbytes, pb->strideF ? pb->strideF[i] : 0, pb->batch, esz, &lo, &hi);
    touch = fbytes > 0 && ylo < hi && lo < yhi;
  }
  if (!touch)
    return 0;
  if (pb->batch > 64 || pb->nfactors > KB_CPU_PLAN_MAXF)
    return 1;
  for (b = 0; b < pb->batch; b++) {
    const char *Yb = (const char *)pb->Y + (ptrdiff_t)(b * pb->strideY) * (ptrdiff_t)esz;
    for (c = 0; c < pb->batch; c++) {
      if (c == b)
        continue;
      for (i = 0; i < pb->nfactors; i++)
        Fb[i] = (const char *)pb->F[i] + (ptrdiff_t)(c * (pb->strideF ? pb->strideF[i] : 0)) * (ptrdiff_t)esz;
      if (kb_cpu_y_overlaps(pb, (const char *)pb->X + (ptrdiff_t)(c * pb->strideX) * (ptrdiff_t)esz, Fb, Yb))
        return 1;
    }
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


/* ----------------------------------------------------------- fast path */

/* One batch entry's state, shared by the threads of the parallel region. */
typedef struct {
  const kb_cpu_plan_t *pl;
  const kb_problem_t *pb;
  char *ws;
  kb_cpu_group_t *grp;       /* ngroups descriptors (row-independent parts) */
  const char *X;
  char *Y;
  int64_t ys_m, ys_l;
  int y_stream;
  int64_t *next_row;         /* PER_ROW on rows: the next row not yet taken */
  /* PER_ROW on rows with pl->pf_next_row: group k reads ahead bytes
   * [pf_off[k], pf_off[k + 1]) of the thread's next row of X */
  int64_t pf_off[KB_CPU_PLAN_MAXF + 1];
  /* PER_ROW on rows: the last rows (tail rows, kb_cpu_tail_row) are
   * shared, tail[r - (m - ntail)] for row r (ntail 0: none).  Their work
   * is numbered as units (digit0's chunks, then the tiles of each later
   * group): group k's are [tail_end[k - 1], tail_end[k]), taken
   * tail_blk[k] at a time. */
  struct kb_cpu_tail *tail;
  int ntail;
  int64_t tail_end[KB_CPU_PLAN_MAXF], tail_blk[KB_CPU_PLAN_MAXF];
} kb_cpu_run_t;

/* A tail row of PER_ROW on rows: the thread that takes it opens it, and
 * every thread that finds no row left to take helps it, taking its
 * units a block at a time.  Without it each thread ran its rows alone,
 * so that a call ended when the slower thread's last row did: float
 * 16_32x32^4 (8 rows a thread, a row ~2.2 ms; one vCPU often 10-20%
 * slower than the other) had its two threads end 1.7-3.7 ms apart on
 * average in calls of 24-29 ms, 0.01-0.02 ms with it (TSC, two threads;
 * calls alternating with the old library in one process 0.95-0.99x). */
#define KB_CPU_TAIL_MAX 32          /* more threads: no tail rows */
typedef struct kb_cpu_tail {
  int open;                         /* set (release) once buf is */
  char *buf[2];                     /* the owner's row buffers */
  int64_t next;                     /* the next unit not yet taken */
  int64_t done;                     /* units finished */
} __attribute__((aligned(64))) kb_cpu_tail_t;

/* The dense step of a banded plan (real types): B^T[k*qp + l] = prod over
 * digits f..f+nd-1 of A_j[l_j, k_j] (l, k in Kronecker order, the slowest
 * digit first), qp = q rounded up to whole vectors, zeros beyond q.  The
 * digits of k and l are counted up, not divided out (once per call). */
static void kb_cpu_pack_dense(const kb_cpu_plan_t *pl, const kb_problem_t *pb, const void *const *F, int f,
                              int nd, char *out)
{
  const int dbl = pb->type == KRONBLAS_R_64F;
  int64_t P = 1, Q = 1, qp, k, l, kd[KB_CPU_PLAN_MAXF], ld[KB_CPU_PLAN_MAXF];
  int j;
  for (j = f; j < f + nd; j++) {
    P *= pb->p[j];
    Q *= pb->q[j];
    kd[j] = 0;
  }
  qp = (Q + pl->kt->vl - 1) / pl->kt->vl * pl->kt->vl;
  for (k = 0; k < P; k++) {
    for (j = f; j < f + nd; j++)
      ld[j] = 0;
    for (l = 0; l < qp; l++) {
      double v = 0;
      if (l < Q) {
        v = 1;
        for (j = f; j < f + nd; j++) {
          const int64_t o = ld[j] * pb->fs_l[j] + kd[j] * pb->fs_k[j];
          v *= dbl ? ((const double *)F[j])[o] : (double)((const float *)F[j])[o];
        }
        /* next l: the fastest digit (the last factor) first */
        for (j = f + nd - 1; j >= f && ++ld[j] == pb->q[j]; j--)
          ld[j] = 0;
      }
      if (dbl)
        ((double *)out)[k * qp + l] = v;
      else
        ((float *)out)[k * qp + l] = (float)v;
    }
    for (j = f + nd - 1; j >= f && ++kd[j] == pb->p[j]; j--)
      kd[j] = 0;
  }
}

/* Packs every factor for the kernels; conj(F) when exactly one of conjF and
 * conjX is set, since A conj(x) = conj(conj(A) x) and the group's epilogue
 * conjugates the final result when conjX. */
static void kb_cpu_pack_all(const kb_cpu_plan_t *pl, const kb_problem_t *pb, const void *const *F, char *ws)
{
  int64_t i;
  int k;
  if (pl->band) {
    /* banded plans (real types): coefficient tables for banded steps,
     * A^T for straight ones */
    for (k = 0; k < pl->band_nsteps; k++) {
      const int f = pl->band_f[k];
      if (pl->band_dense[k] && pl->band_tdense[k]) {
        /* across slices: each digit's A^T, p*p apart (kb_cpu_band_t.At);
         * the Kronecker product is not read (the plan sets band_tdense
         * only for the kernels that take the step) */
        int j;
        for (j = f; j < f + pl->band_dense[k]; j++)
          pl->kt->pack_t(F[j], pb->p[j], pb->q[j], pb->fs_l[j], pb->fs_k[j],
                         ws + pl->off_tdense[k] + (size_t)((j - f) * pb->p[f] * pb->q[f]) * pl->esz);
      } else if (pl->band_dense[k])
        kb_cpu_pack_dense(pl, pb, F, f, pl->band_dense[k], ws + pl->off_pack[f]);
      else if (pl->band_banded[k])
        pl->kt->pack_band(F[f], pb->p[f], pb->fs_l[f], pb->fs_k[f], pl->band_s[k], ws + pl->off_pack[f]);
      else
        pl->kt->pack_t(F[f], pb->p[f], pb->q[f], pb->fs_l[f], pb->fs_k[f], ws + pl->off_pack[f]);
      if (pl->band_fused[k])
        pl->kt->pack_t(F[f + 1], pb->p[f + 1], pb->q[f + 1], pb->fs_l[f + 1], pb->fs_k[f + 1],
                       ws + pl->off_pack[f + 1]);
    }
    return;
  }
  for (k = 0; k < pl->ngroups; k++)
    for (i = pl->g[k].lo; i <= pl->g[k].hi; i++) {
      int nb = pl->g[k].nb;
      if (pl->inplace && k == 0) {
        /* digit0 (real types only): A^T for the fastest factor, the others
         * for lanes = the outputs of the group's faster digits (a width
         * whose vector count has the same divisors by 2 and 4) */
        int64_t inner = 1, v, j;
        if (i == pl->g[k].hi) {
          pl->kt->pack_t(F[i], pb->p[i], pb->q[i], pb->fs_l[i], pb->fs_k[i], ws + pl->off_pack[i]);
          continue;
        }
        for (j = i + 1; j <= pl->g[k].hi; j++)
          inner *= pb->q[j];
        v = inner / pl->kt->vl;
        nb = pl->kt->vl * (v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1);
      }
      pl->kt->pack(F[i], pb->p[i], pb->q[i], pb->fs_l[i], pb->fs_k[i], pb->conjF ^ pb->conjX, nb,
                   ws + pl->off_pack[i]);
    }
}

static void kb_cpu_groups_init(const kb_cpu_run_t *R, int beta_zero)
{
  const kb_cpu_plan_t *pl = R->pl;
  const kb_problem_t *pb = R->pb;
  int k, u;
  for (k = 0; k < pl->ngroups; k++) {
    const kb_cpu_gplan_t *gp = &pl->g[k];
    kb_cpu_group_t *g = &R->grp[k];
    memset(g, 0, sizeof *g);
    g->nf = gp->hi - gp->lo + 1;
    for (u = 0; u < g->nf; u++) {
      g->p[u] = pb->p[gp->hi - u];
      g->q[u] = pb->q[gp->hi - u];
      g->A[u] = R->ws + pl->off_pack[gp->hi - u];
    }
    g->P = gp->P;
    g->Q = gp->Q;
    g->tile_elems = gp->tile_elems;
    g->nb = gp->nb;
    if (k == pl->ngroups - 1) {
      g->final = 1;
      g->conj = pb->conjX;
      g->beta_zero = beta_zero;
      g->alpha = pb->alpha;
      g->beta = pb->beta;
    }
    pl->kt->prepare(g);
  }
}

/* Tiles taken at a time when nthreads share ntiles (the team's loop below,
 * tail rows). */
static int64_t kb_cpu_tiles_chunk(int64_t ntiles, int nthreads)
{
  const int64_t chunk = ntiles / (8 * (int64_t)nthreads);
  return chunk < 1 ? 1 : chunk;
}

/* Whether the calling thread is in no parallel region at all (a one-thread
 * run, kb_cpu_own_region): an orphaned worksharing loop would then run
 * every iteration itself after libgomp allocated a work share for it (one
 * memalign a loop), which a plain loop does without. */
static int kb_cpu_solo(void)
{
#ifdef _OPENMP
  return omp_get_level() == 0;
#else
  return 1;
#endif
}

/* Runs the tiles of g on the team, dynamically in chunks: a thread slowed by
 * anything else on its core does not hold the others at the barrier.  Every
 * tile is computed the same way whoever takes it, so results do not depend
 * on the schedule.  Ends with the team's barrier. */
static void kb_cpu_team_tiles(const kb_cpu_opt_t *kt, const kb_cpu_group_t *g, int nthreads, char *area)
{
  const int64_t ntiles = kb_cpu_group_tiles(g);
  const int64_t chunk = kb_cpu_tiles_chunk(ntiles, nthreads);
  int64_t c, nchunks;
  nchunks = (ntiles + chunk - 1) / chunk;
  if (kb_cpu_solo()) {
    for (c = 0; c < nchunks; c++)
      kt->group(g, c * chunk, (c + 1) * chunk < ntiles ? (c + 1) * chunk : ntiles, area);
    return;
  }
#pragma omp for schedule(dynamic, 1)
  for (c = 0; c < nchunks; c++)
    kt->group(g, c * chunk, (c + 1) * chunk < ntiles ? (c + 1) * chunk : ntiles, area);
}

/* The group descriptor of group k of a PER_ROW plan for row r. */
static void kb_cpu_row_group(const kb_cpu_run_t *R, int k, int64_t r, char *const buf[2], kb_cpu_group_t *g)
{
  const kb_cpu_plan_t *pl = R->pl;
  const kb_problem_t *pb = R->pb;
  const kb_cpu_gplan_t *gp = &pl->g[k];
  const size_t esz = pl->esz;
  int64_t in_is, os;
  *g = R->grp[k];
  if (k == 0) {
    g->in = R->X + (ptrdiff_t)(r * pb->xs_m) * (ptrdiff_t)esz;
    in_is = pb->xs_k;
  } else {
    g->in = buf[(k - 1) % 2];
    in_is = 1;
  }
  if (k == pl->ngroups - 1) {
    g->out = R->Y + (ptrdiff_t)(r * R->ys_m) * (ptrdiff_t)esz;
    os = R->ys_l;
  } else {
    g->out = buf[k % 2];
    os = 1;
  }
  g->in_mem = k == 0;
  g->out_stream = k == pl->ngroups - 1 && R->y_stream;
  if (pl->inplace) {
    /* digits in place: the vector is (outer, this group's P digits, inner)
     * with inner the outputs of the digits done before; group 0 (digit0)
     * sees the row as S chunks of P, writing chunk c at c*Q */
    int64_t inner = 1, i;
    for (i = gp->hi + 1; i < pb->nfactors; i++)
      inner *= pb->q[i];
    g->n_o = gp->Kin / (gp->P * inner);
    g->nlanes = inner;
    g->in_o = gp->P * inner * in_is;
    g->in_lane = in_is;
    g->in_kk = inner * in_is;
    g->out_o = gp->Q * inner * os;
    g->out_lane = os;
    g->out_ll = inner * os;
    if (k == 0) {
      g->nlanes = gp->S;
      g->n_o = 1;
    }
    return;
  }
  g->n_o = 1;
  g->nlanes = gp->S;
  g->in_o = 0;
  g->in_lane = gp->P * in_is;
  g->in_kk = in_is;
  g->out_o = 0;
  g->out_lane = os;
  g->out_ll = gp->S * os;
}

/* Digit0's slices taken at a time when nthreads share group g (whole
 * micro-tiles where there are many). */
static int64_t kb_cpu_digit0_chunk(const kb_cpu_group_t *g, int nthreads)
{
  const int64_t S = g->nlanes;
  const int64_t chunk = g->nf > 1 ? S / (8 * (int64_t)nthreads) : (S / (8 * (int64_t)nthreads) + 11) / 12 * 12;
  return chunk < 1 ? 1 : chunk;
}

/* Group 0 of a plan with digits in place: its slices, split among the
 * team in chunks (of whole micro-tiles where there are many).  Ends with
 * the team's barrier. */
static void kb_cpu_team_digit0(const kb_cpu_opt_t *kt, const kb_cpu_group_t *g, int nthreads, char *area)
{
  const int64_t S = g->nlanes;
  const int64_t chunk = kb_cpu_digit0_chunk(g, nthreads);
  int64_t c, nchunks;
  nchunks = (S + chunk - 1) / chunk;
  if (kb_cpu_solo()) {
    for (c = 0; c < nchunks; c++)
      kt->digit0(g, c * chunk, (c + 1) * chunk < S ? (c + 1) * chunk : S, area);
    return;
  }
#pragma omp for schedule(dynamic, 1)
  for (c = 0; c < nchunks; c++)
    kt->digit0(g, c * chunk, (c + 1) * chunk < S ? (c + 1) * chunk : S, area);
}

static int kb_cpu_test_tail_helper;   /* test hook, kb_cpu_test_force_tail_helper */
static long kb_cpu_tail_help_units;   /* test hook: units run by a thread not a row's owner */

static void kb_cpu_spin(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* The next row not yet taken if it is below lim, else -1: rows below lim
 * are reserved ahead (read ahead), tail rows only taken when a thread
 * starts one. */
static int64_t kb_cpu_take_row(int64_t *next, int64_t lim)
{
  int64_t r = __atomic_load_n(next, __ATOMIC_RELAXED);
  while (r < lim)
    if (__atomic_compare_exchange_n(next, &r, r + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return r;
  return -1;
}

/* Takes and runs units of tail row r (state st, opened) until none is
 * left; a group's units start once every unit of the groups before is
 * done (the group reads their output).  Each chunk or tile is computed
 * the same way whoever takes it.  owner: the thread that opened it. */
static void kb_cpu_tail_work(const kb_cpu_run_t *R, kb_cpu_tail_t *st, int64_t r, char *area, int owner)
{
  const kb_cpu_plan_t *pl = R->pl;
  const int ng = pl->ngroups;
  const int64_t total = R->tail_end[ng - 1];
  kb_cpu_group_t g;
  int64_t u = __atomic_load_n(&st->next, __ATOMIC_RELAXED), u1, b0;
  int k, gk = -1;
  while (u < total) {
    for (k = 0; R->tail_end[k] <= u; k++)
      ;
    u1 = u + R->tail_blk[k] < R->tail_end[k] ? u + R->tail_blk[k] : R->tail_end[k];
    if (!__atomic_compare_exchange_n(&st->next, &u, u1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      continue;   /* u is the counter's value now */
    b0 = k > 0 ? R->tail_end[k - 1] : 0;
    while (__atomic_load_n(&st->done, __ATOMIC_ACQUIRE) < b0)
      kb_cpu_spin();
    if (gk != k) {
      kb_cpu_row_group(R, k, r, st->buf, &g);
      g.pf_chunk = k == 0 && pl->d0_next_chunk;
      gk = k;
    }
    if (pl->inplace && k == 0)
      pl->kt->digit0(&g, u - b0, u1 - b0, area);
    else
      pl->kt->group(&g, u - b0, u1 - b0, area);
    if (!owner)
      __atomic_fetch_add(&kb_cpu_tail_help_units, u1 - u, __ATOMIC_RELAXED);
    __atomic_fetch_add(&st->done, u1 - u, __ATOMIC_RELEASE);
    u = __atomic_load_n(&st->next, __ATOMIC_RELAXED);
  }
}

/* Tail row r, taken by this thread: opened to the others with its row
 * buffers buf, run, and waited for (buf is this thread's, reused by the
 * next row it takes).  help_only (test hook): leave its work to others. */
static void kb_cpu_tail_row(const kb_cpu_run_t *R, int64_t r, char *const buf[2], char *area, int help_only)
{
  kb_cpu_tail_t *st = &R->tail[r - (R->pb->m - R->ntail)];
  st->buf[0] = buf[0];
  st->buf[1] = buf[1];
  __atomic_store_n(&st->open, 1, __ATOMIC_RELEASE);
  if (!help_only)
    kb_cpu_tail_work(R, st, r, area, 1);
  while (__atomic_load_n(&st->done, __ATOMIC_ACQUIRE) < R->tail_end[R->pl->ngroups - 1])
    kb_cpu_spin();
}

/* No row is left to take: helps the tail rows (all taken, so each opens
 * soon if not yet) with what is left of them. */
static void kb_cpu_tail_help(const kb_cpu_run_t *R, char *area)
{
  int i;
  for (i = 0; i < R->ntail; i++) {
    kb_cpu_tail_t *st = &R->tail[i];
    while (!__atomic_load_n(&st->open, __ATOMIC_ACQUIRE))
      kb_cpu_spin();
    kb_cpu_tail_work(R, st, R->pb->m - R->ntail + i, area, 0);
  }
}

/* PER_ROW: every row goes through all groups while its two row buffers stay
 * in cache.  Threads take whole rows (dynamically) when there are enough,
 * else share the tiles of each group of each row. */
static void kb_cpu_run_rows(const kb_cpu_run_t *R, int tid, int nthreads)
{
  const kb_cpu_plan_t *pl = R->pl;
  char *area = R->ws + pl->off_thread + (size_t)tid * pl->thread_bytes;
  kb_cpu_group_t g;
  char *buf[2];
  int64_t r;
  int k;

  if (pl->split_rows) {
    const int64_t m = R->pb->m, tail0 = m - R->ntail;
    const size_t esz = pl->esz;
    /* test hook: thread 0 only helps, the others only open their tail rows */
    const int hook = kb_cpu_test_tail_helper && nthreads > 1 && R->ntail > 0;
    int64_t rn;
    int ahead = 0;
    buf[0] = area + pl->thread_tile_bytes;
    buf[1] = buf[0] + (pl->thread_bytes - pl->thread_tile_bytes) / 2;
    /* Rows are taken one at a time from a shared counter (a thread slowed
     * by anything else on its core does not hold the others), each thread
     * claiming its next row when it starts one where it reads that row of
     * X ahead into L2 while its groups compute, else when it gets there.
     * The last rows (the tail, one per thread) are taken only when a
     * thread starts one, and shared (kb_cpu_tail_row).  Every row is
     * computed the same way whoever takes it. */
    r = hook && tid == 0 ? -1 : kb_cpu_take_row(R->next_row, m);
    while (r >= 0) {
      if (r >= tail0) {
        kb_cpu_tail_row(R, r, buf, area, hook);
        r = kb_cpu_take_row(R->next_row, m);
        continue;
      }
      rn = pl->pf_next_row ? kb_cpu_take_row(R->next_row, tail0) : -1;
      for (k = 0; k < pl->ngroups; k++) {
        kb_cpu_row_group(R, k, r, buf, &g);
        if (rn >= 0 && R->pf_off[k + 1] > R->pf_off[k]) {
          g.pf_ahead = R->X + (ptrdiff_t)(rn * R->pb->xs_m) * (ptrdiff_t)esz + R->pf_off[k];
          g.pf_ahead_bytes = R->pf_off[k + 1] - R->pf_off[k];
        }
        /* a row read ahead is in L2: no prefetching of its tiles (but
         * into L1, kb_cpu_plan_t.d0_pf_l1) */
        if (k == 0 && ahead && !pl->d0_pf_l1)
          g.in_mem = 0;
        g.pf_chunk = k == 0 && pl->d0_next_chunk;
        if (pl->inplace && k == 0)
          pl->kt->digit0(&g, 0, g.nlanes, area);
        else
          pl->kt->group(&g, 0, kb_cpu_group_tiles(&g), area);
      }
      /* a row not read ahead has its first tiles prefetched again */
      ahead = rn >= 0;
      r = rn >= 0 ? rn : kb_cpu_take_row(R->next_row, m);
    }
    kb_cpu_tail_help(R, area);
  } else {
    buf[0] = R->ws + pl->off_buf[0];
    buf[1] = R->ws + pl->off_buf[1];
    for (r = 0; r < R->pb->m; r++)
      for (k = 0; k < pl->ngroups; k++) {
        kb_cpu_row_group(R, k, r, buf, &g);
        if (pl->inplace && k == 0)
          kb_cpu_team_digit0(pl->kt, &g, nthreads, area);
        else
          kb_cpu_team_tiles(pl->kt, &g, nthreads, area);
      }
  }
}

/* PASSES: each group is one pass over all rows, lanes = rows, between full
 * intermediates in column layout (m fastest). */
static void kb_cpu_run_passes(const kb_cpu_run_t *R, int tid, int nthreads)
{
  const kb_cpu_plan_t *pl = R->pl;
  const kb_problem_t *pb = R->pb;
  char *area = R->ws + pl->off_thread + (size_t)tid * pl->thread_bytes;
  const int64_t m = pb->m;
  int k;

  for (k = 0; k < pl->ngroups; k++) {
    const kb_cpu_gplan_t *gp = &pl->g[k];
    kb_cpu_group_t g = R->grp[k];
    int64_t is_r, is_i, os_r, os_i;
    if (k == 0) {
      g.in = R->X;
      is_r = pb->xs_m;
      is_i = pb->xs_k;
    } else {
      g.in = R->ws + pl->off_buf[(k - 1) % 2];
      is_r = 1;
      is_i = m;
    }
    if (k == pl->ngroups - 1) {
      g.out = R->Y;
      os_r = R->ys_m;
      os_i = R->ys_l;
    } else {
      g.out = R->ws + pl->off_buf[k % 2];
      os_r = 1;
      os_i = m;
    }
    g.in_mem = 1;
    g.out_stream = k == pl->ngroups - 1 ? R->y_stream : pl->buf_stream;
    g.n_o = gp->S;
    g.nlanes = m;
    g.in_o = gp->P * is_i;
    g.in_lane = is_r;
    g.in_kk = is_i;
    g.out_o = os_i;
    g.out_lane = os_r;
    g.out_ll = gp->S * os_i;
    kb_cpu_team_tiles(pl->kt, &g, nthreads, area);
  }
}

/* Splits a row of X (K elements, contiguous) among the groups of a PER_ROW
 * plan by their share of the FMAs, so that the read-ahead runs at an even
 * rate over the whole row's work; off[k] .. off[k + 1] are group k's bytes.
 * All zero without pl->pf_next_row. */
static void kb_cpu_pf_split(const kb_cpu_plan_t *pl, const kb_problem_t *pb, int64_t *off)
{
  double w[KB_CPU_PLAN_MAXF], tot = 0, acc = 0;
  const int64_t bytes = pb->K * (int64_t)pl->esz;
  int k, i;
  memset(off, 0, sizeof(int64_t) * (KB_CPU_PLAN_MAXF + 1));
  if (!pl->pf_next_row)
    return;
  for (k = 0; k < pl->ngroups; k++) {
    int64_t len = pl->g[k].Kin;
    w[k] = 0;
    for (i = pl->g[k].hi; i >= pl->g[k].lo; i--) {
      len = len / pb->p[i] * pb->q[i];
      w[k] += (double)len * (double)pb->p[i];
    }
    tot += w[k];
  }
  for (k = 0; k < pl->ngroups; k++) {
    acc += w[k];
    off[k + 1] = k == pl->ngroups - 1 ? bytes : (int64_t)((double)bytes * acc / tot) & ~(int64_t)63;
  }
}

static long kb_cpu_inplace_runs;   /* test hook: entries run with digits in place */
static long kb_cpu_band_runs;      /* test hook: entries run with banded plans */
static int kb_cpu_last_team = 1;   /* test hook: team size of the last region */
static int kb_cpu_last_level;      /* test hook: omp_get_level() in the last run */

void kb_cpu_test_force_tail_helper(int on)
{
  kb_cpu_test_tail_helper = on;
}

long kb_cpu_test_tail_help_units(void)
{
  return __atomic_load_n(&kb_cpu_tail_help_units, __ATOMIC_RELAXED);
}

int kb_cpu_test_last_team(void)
{
  return __atomic_load_n(&kb_cpu_last_team, __ATOMIC_RELAXED);
}

int kb_cpu_test_last_level(void)
{
  return __atomic_load_n(&kb_cpu_last_level, __ATOMIC_RELAXED);
}

long kb_cpu_test_inplace_runs(void)
{
  return __atomic_load_n(&kb_cpu_inplace_runs, __ATOMIC_RELAXED);
}

long kb_cpu_test_band_runs(void)
{
  return __atomic_load_n(&kb_cpu_band_runs, __ATOMIC_RELAXED);
}

static long kb_cpu_dense_runs;     /* test hook: entries run with a dense step */

long kb_cpu_test_dense_runs(void)
{
  return __atomic_load_n(&kb_cpu_dense_runs, __ATOMIC_RELAXED);
}

static long kb_cpu_seg_runs;       /* test hook: entries run with segments */

long kb_cpu_test_seg_runs(void)
{
  return __atomic_load_n(&kb_cpu_seg_runs, __ATOMIC_RELAXED);
}

static long kb_cpu_col_runs;       /* test hook: entries run with column tiles */
static long kb_cpu_wide_runs;      /* test hook: entries run with wide column tiles straight to Y */
static long kb_cpu_tdense_runs;    /* test hook: entries run with a dense step across slices */

long kb_cpu_test_tdense_runs(void)
{
  return __atomic_load_n(&kb_cpu_tdense_runs, __ATOMIC_RELAXED);
}

static int kb_cpu_test_band_hp8 = -1;
static long kb_cpu_hp8_runs;       /* test hook: entries run with kb_band_hp8 */

void kb_cpu_test_force_band_hp8(int hp8)
{
  kb_cpu_test_band_hp8 = hp8;
}

long kb_cpu_test_hp8_runs(void)
{
  return __atomic_load_n(&kb_cpu_hp8_runs, __ATOMIC_RELAXED);
}

long kb_cpu_test_col_runs(void)
{
  return __atomic_load_n(&kb_cpu_col_runs, __ATOMIC_RELAXED);
}

long kb_cpu_test_wide_runs(void)
{
  return __atomic_load_n(&kb_cpu_wide_runs, __ATOMIC_RELAXED);
}

/* Whether a run of nthreads needs a parallel region of its own.  One
 * thread outside any active region runs without one: libgomp allocates and
 * frees a team for every region, even one its if clause serializes (one
 * memalign a call), and the run's orphaned worksharing loops bind to no
 * team there and run every iteration.  Inside a caller's active region
 * they would bind to the caller's team, so a region of one is kept. */
static int kb_cpu_own_region(int nthreads)
{
#ifdef _OPENMP
  return nthreads > 1 || omp_in_parallel();
#else
  (void)nthreads;
  return 0;
#endif
}

/* Records the team a run's thread 0 is in (test hooks). */
static void kb_cpu_note_team(void)
{
#ifdef _OPENMP
  if (omp_get_thread_num() == 0) {
    __atomic_store_n(&kb_cpu_last_team, omp_get_num_threads(), __ATOMIC_RELAXED);
    __atomic_store_n(&kb_cpu_last_level, omp_get_level(), __ATOMIC_RELAXED);
  }
#else
  __atomic_store_n(&kb_cpu_last_level, 0, __ATOMIC_RELAXED);
#endif
}

/* One thread's part of a banded run: rows handed out dynamically, so that
 * a thread slowed by anything else on its core does not hold the others;
 * every row is computed the same way. */
static void kb_cpu_band_team(const kb_cpu_plan_t *pl, const kb_cpu_band_t *B, char *ws, int64_t m, int64_t blk,
                             int64_t nblk)
{
  int tid = 0;
  int64_t c;
#ifdef _OPENMP
  tid = omp_get_thread_num();
#endif
  kb_cpu_note_team();
  if (kb_cpu_solo()) {
    for (c = 0; c < nblk; c++)
      pl->kt->band(B, c * blk, (c + 1) * blk < m ? (c + 1) * blk : m, ws + pl->off_thread);
    return;
  }
#pragma omp for schedule(dynamic, 1)
  for (c = 0; c < nblk; c++)
    pl->kt->band(B, c * blk, (c + 1) * blk < m ? (c + 1) * blk : m,
                 ws + pl->off_thread + (size_t)tid * pl->thread_bytes);
}

/* A banded plan (kb_cpu_band_t) on one batch entry: threads take blocks
 * of whole rows, each through every step in its own two row buffers. */
static void kb_cpu_run_band(const kb_cpu_plan_t *pl, const kb_problem_t *pb, char *ws, const void *X,
                            void *Y, int64_t ys_m, int beta_zero, int y_stream)
{
  const int nthreads = pl->nthreads;
  const int64_t m = pb->m;
  int64_t blk = m / (8 * (int64_t)nthreads), nblk;
  kb_cpu_band_t B;
  int t;

  memset(&B, 0, sizeof B);
  B.nd = pl->band_nsteps;
  for (t = 0; t < B.nd; t++) {
    const int f = pl->band_f[t];
    int j;
    B.p[t] = pb->p[f];
    B.q[t] = pb->q[f];
    B.dense[t] = pl->band_dense[t];
    for (j = f + 1; j < f + pl->band_dense[t]; j++) {
      B.p[t] *= pb->p[j];
      B.q[t] *= pb->q[j];
    }
    B.s[t] = pl->band_s[t];
    B.banded[t] = pl->band_banded[t];
    B.fused[t] = pl->band_fused[t];
    B.A[t] = ws + pl->off_pack[f];
    B.Ai[t] = pl->band_fused[t] ? ws + pl->off_pack[f + 1] : NULL;
    B.tdense[t] = pl->band_dense[t] && pl->band_tdense[t] ? pl->band_dense[t] : 0;
    B.tdp[t] = (int)pb->p[f];
    B.At[t] = B.tdense[t] ? ws + pl->off_tdense[t] : NULL;
  }
  B.copy_in = pl->band_copy_in;
  B.K = pb->K;
  B.L = pb->L;
  B.pad = pl->band_pad;
  B.buf_elems = pl->band_buf_elems;
  B.X = X;
  B.xs_m = pb->xs_m;
  B.Y = Y;
  B.ys_m = ys_m;
  B.out_stream = y_stream;
  B.beta_zero = beta_zero;
  B.alpha = pb->alpha;
  B.beta = pb->beta;
  B.seg_t = pl->band_seg_t;
  B.seg_e = pl->band_seg_e;
  B.seg_in = pl->band_seg_in;
  B.seg_blk = pl->band_seg_blk;
  B.col_t = pl->band_col_t;
  B.col_e = pl->band_col_e;
  B.col_ld = pl->band_col_ld;
  B.col_w = pl->band_col_w;
  __atomic_fetch_add(&kb_cpu_band_runs, 1, __ATOMIC_RELAXED);
  if (pl->band_seg_in > 0)
    __atomic_fetch_add(&kb_cpu_seg_runs, 1, __ATOMIC_RELAXED);
  if (pl->band_col_e > 0)
    __atomic_fetch_add(&kb_cpu_col_runs, 1, __ATOMIC_RELAXED);
  if (pl->band_col_e > 0 && pl->band_col_w > 1)
    __atomic_fetch_add(&kb_cpu_wide_runs, 1, __ATOMIC_RELAXED);
  /* the kernels take a half-vector step of p = 8 and the pair step after
   * it as one pass (kb_band_hp8: float AVX-512, where h = vl/2 = 8) */
  B.hp8 = kb_cpu_test_band_hp8 != 0;
  for (t = 0; t + 1 < B.nd; t++)
    if (B.hp8 && pl->kt->band_half && pl->kt->vl == 16 && kb_band_hp8_at(&B, t, pl->kt->vl / 2)) {
      __atomic_fetch_add(&kb_cpu_hp8_runs, 1, __ATOMIC_RELAXED);
      break;
    }
  for (t = 0; t < pl->band_nsteps; t++)
    if (pl->band_dense[t]) {
      __atomic_fetch_add(&kb_cpu_dense_runs, 1, __ATOMIC_RELAXED);
      if (B.tdense[t] && pl->kt->band_half)
        __atomic_fetch_add(&kb_cpu_tdense_runs, 1, __ATOMIC_RELAXED);
      break;
    }
  if (blk < 1)
    blk = 1;
  nblk = (m + blk - 1) / blk;
  __atomic_store_n(&kb_cpu_last_team, 1, __ATOMIC_RELAXED);
  if (kb_cpu_own_region(nthreads)) {
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
    kb_cpu_band_team(pl, &B, ws, m, blk, nblk);
  } else {
    kb_cpu_band_team(pl, &B, ws, m, blk, nblk);
  }
}

/* One thread's part of a run (rows or passes, by the plan's strategy). */
static void kb_cpu_fast_team(kb_cpu_run_t *R)
{
  int tid = 0, nt = 1;
#ifdef _OPENMP
  tid = omp_get_thread_num();
  nt = omp_get_num_threads();
#endif
  kb_cpu_note_team();
  if (R->pl->strategy == KB_CPU_PER_ROW)
    kb_cpu_run_rows(R, tid, nt);
  else
    kb_cpu_run_passes(R, tid, nt);
}

static void kb_cpu_run_fast(const kb_cpu_plan_t *pl, const kb_problem_t *pb, char *ws,
                            const void *X, void *Y, int64_t ys_m, int64_t ys_l, int beta_zero,
                            int stream_ok)
{
  kb_cpu_run_t R;
  const int nthreads = pl->nthreads;
  int64_t next_row;
  kb_cpu_tail_t tail[KB_CPU_TAIL_MAX];
  R.pl = pl;
  R.pb = pb;
  R.ws = ws;
  R.grp = (kb_cpu_group_t *)(ws + pl->off_groups);
  R.X = (const char *)X;
  R.Y = (char *)Y;
  R.ys_m = ys_m;
  R.ys_l = ys_l;
  R.y_stream = pl->y_stream && beta_zero && stream_ok;
  if (pl->band) {
    kb_cpu_run_band(pl, pb, ws, X, Y, ys_m, beta_zero, R.y_stream);
    return;
  }
  next_row = 0;
  R.next_row = &next_row;
  kb_cpu_pf_split(pl, pb, R.pf_off);
  kb_cpu_groups_init(&R, beta_zero);
  /* one tail row per thread of the team asked for (a smaller team leaves
   * rows to the threads it has, which help each other the same way) */
  R.ntail = 0;
  R.tail = NULL;
  if (pl->strategy == KB_CPU_PER_ROW && pl->split_rows && nthreads > 1 && nthreads <= KB_CPU_TAIL_MAX) {
    char *const nobuf[2] = { NULL, NULL };
    kb_cpu_group_t g;
    int k;
    R.ntail = pb->m < nthreads ? (int)pb->m : nthreads;
    R.tail = tail;
    memset(tail, 0, (size_t)R.ntail * sizeof tail[0]);
    for (k = 0; k < pl->ngroups; k++) {
      const int d0 = pl->inplace && k == 0;
      int64_t n;
      kb_cpu_row_group(&R, k, 0, nobuf, &g);
      n = d0 ? g.nlanes : kb_cpu_group_tiles(&g);
      R.tail_blk[k] = d0 ? kb_cpu_digit0_chunk(&g, nthreads) : kb_cpu_tiles_chunk(n, nthreads);
      R.tail_end[k] = (k > 0 ? R.tail_end[k - 1] : 0) + n;
    }
  }
  if (pl->inplace)
    __atomic_fetch_add(&kb_cpu_inplace_runs, 1, __ATOMIC_RELAXED);
  /* The work is handed out by (orphaned) worksharing loops, so a team
   * smaller than asked for still covers every tile; each thread has its
   * own area of the workspace, by thread number. */
  __atomic_store_n(&kb_cpu_last_team, 1, __ATOMIC_RELAXED);
  if (kb_cpu_own_region(nthreads)) {
#pragma omp parallel num_threads(nthreads) if (nthreads > 1)
    kb_cpu_fast_team(&R);
  } else {
    kb_cpu_fast_team(&R);
  }
}

void kb_cpu_run_plan(const kb_cpu_plan_t *pl, const kb_problem_t *pb, char *ws, const void *X,
                     const void *const *F, void *Y, int64_t ys_m, int64_t ys_l)
{
  kb_cpu_pack_all(pl, pb, F, ws);
  kb_cpu_run_fast(pl, pb, ws, X, Y, ys_m, ys_l, 1, 1);
}

/* Plans pb for the fast path with the threads this handle runs. */
static kronblasStatus_t kb_cpu_fast_plan(const kb_problem_t *pb, int nthreads, kb_cpu_plan_t *pl)
{
  const kb_cpu_opt_t *kt = kb_cpu_kernels_for(pb->type);
  if (kt == NULL)
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  return kb_cpu_plan(pb, kt, nthreads, pl);
}

/* What the fast path asks of a user workspace: everything it might use,
 * staging included, and 64 bytes to align an arbitrary pointer. */
static size_t kb_cpu_fast_bytes(const kb_cpu_plan_t *pl)
{
  return pl->total + pl->ovl_bytes + 64;
}

/* Everything the model's plan depends on (the planner reads these fields
 * of the problem, the kernel table and the thread count; test hooks that
 * change its choices move the generation), compared whole. */
typedef struct {
  const kb_cpu_opt_t *kt;
  unsigned gen;
  int nthreads, policy, type, nfactors, layout;
  int64_t m, K, L, xs_k, xs_m, ys_l, ys_m;
  int64_t p[KB_CPU_PLAN_MAXF], q[KB_CPU_PLAN_MAXF];
} kb_cpu_plan_key_t;

typedef struct {
  kb_cpu_plan_key_t key;
  kb_cpu_plan_t plan;
} kb_cpu_memo_t;

static long kb_cpu_memo_hits;   /* test hook: calls that ran the kept plan */

long kb_cpu_test_memo_hits(void)
{
  return __atomic_load_n(&kb_cpu_memo_hits, __ATOMIC_RELAXED);
}

static void kb_cpu_plan_key_of(const struct kronblasContext *h, const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                               int nthreads, kb_cpu_plan_key_t *k)
{
  int64_t i;
  memset(k, 0, sizeof *k);   /* padding too: keys are compared with memcmp */
  k->kt = kt;
  k->gen = kb_cpu_plan_gen();
  k->nthreads = nthreads;
  k->policy = (int)h->kernel_policy;
  k->type = (int)pb->type;
  k->nfactors = (int)pb->nfactors;
  k->layout = pb->x_contig_k | pb->y_contig_l << 1;
  k->m = pb->m;
  k->K = pb->K;
  k->L = pb->L;
  k->xs_k = pb->xs_k;
  k->xs_m = pb->xs_m;
  k->ys_l = pb->ys_l;
  k->ys_m = pb->ys_m;
  for (i = 0; i < pb->nfactors; i++) {
    k->p[i] = pb->p[i];
    k->q[i] = pb->q[i];
  }
}

/* Keeps pl, the model's plan for pb on nthreads threads, as the handle's
 * plan (in memory the handle allocates once; where it cannot, or pb has
 * more factors than a key holds, nothing is kept and the next call plans
 * again). */
static void kb_cpu_memo_keep(struct kronblasContext *h, const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                             int nthreads, const kb_cpu_plan_t *pl)
{
  kb_cpu_memo_t *mo = h->cpu_plan_memo;
  if (pb->nfactors > KB_CPU_PLAN_MAXF)
    return;
  if (mo == NULL) {
    mo = malloc(sizeof *mo);
    if (mo == NULL)
      return;
    h->cpu_plan_memo = mo;
  }
  kb_cpu_plan_key_of(h, pb, kt, nthreads, &mo->key);
  mo->plan = *pl;
}

/* The model's plan for pb on nthreads threads.  A call that repeats the
 * handle's last key runs the plan kept then (*out points at it): planning
 * a small call took ~10% of its time (float 16_8x8^3: ~3 us of 30).
 * Otherwise the plan is made into *pl and kept. */
static kronblasStatus_t kb_cpu_memo_plan(struct kronblasContext *h, const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                                         int nthreads, kb_cpu_plan_t *pl, const kb_cpu_plan_t **out)
{
  kb_cpu_memo_t *mo = h->cpu_plan_memo;
  kb_cpu_plan_key_t k;
  *out = pl;
  if (pb->nfactors > KB_CPU_PLAN_MAXF)
    return kb_cpu_plan(pb, kt, nthreads, pl);
  kb_cpu_plan_key_of(h, pb, kt, nthreads, &k);
  if (mo != NULL && memcmp(&mo->key, &k, sizeof k) == 0) {
    __atomic_fetch_add(&kb_cpu_memo_hits, 1, __ATOMIC_RELAXED);
    *out = &mo->plan;
    return KRONBLAS_STATUS_SUCCESS;
  }
  KB_CHECK(kb_cpu_plan(pb, kt, nthreads, pl));
  kb_cpu_memo_keep(h, pb, kt, nthreads, pl);
  return KRONBLAS_STATUS_SUCCESS;
}

/* The plan a call runs (*out: pl, or the handle's kept model plan): in
 * MEASURE mode the handle's measured plan (timed now on the first call of
 * the key), else the model's (made again with the log at debug, so that
 * the log shows the plan that runs).  A measured plan larger than a user
 * workspace set since it was measured gives way to the model's, which is
 * what kronblasGetWorkspaceSize promised room for. */
static kronblasStatus_t kb_cpu_call_plan(struct kronblasContext *h, const kb_problem_t *pb, int nthreads,
                                         kb_cpu_plan_t *pl, const kb_cpu_plan_t **out)
{
  const kb_cpu_opt_t *kt = kb_cpu_kernels_for(pb->type);
  *out = pl;
  if (kt == NULL)
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  if (h->tuning_mode != KRONBLAS_TUNING_MEASURE)
    return kb_env()->log_level >= KB_LOG_DEBUG ? kb_cpu_plan(pb, kt, nthreads, pl)
                                               : kb_cpu_memo_plan(h, pb, kt, nthreads, pl, out);
  KB_CHECK(kb_cpu_tuned_plan(h, pb, kt, nthreads, pl));
  if (h->user_ws != NULL && kb_cpu_fast_bytes(pl) > h->user_ws_bytes)
    return kb_cpu_plan(pb, kt, nthreads, pl);
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cpu_workspace_size(struct kronblasContext *h, const kb_problem_t *pb, size_t *bytes)
{
  const int nt = kb_cpu_handle_threads(h);
  kb_cpu_ws_plan_t w;
  kb_cpu_plan_t pl;
  if (pb->K == 0) {
    *bytes = 0;
    return KRONBLAS_STATUS_SUCCESS;
  }
  if (kb_cpu_fast_plan(pb, nt, &pl) == KRONBLAS_STATUS_SUCCESS) {
    *bytes = kb_cpu_fast_bytes(&pl);
    /* room for a measured plan too, where the handle holds one */
    if (h->tuning_mode == KRONBLAS_TUNING_MEASURE && kb_cpu_cached_plan(h, pb, pl.kt, nt, &pl) &&
        kb_cpu_fast_bytes(&pl) > *bytes)
      *bytes = kb_cpu_fast_bytes(&pl);
    /* and for the one-thread plan a call of small work runs
     * (kb_cpu_call_threads): whether a call is small depends on its batch
     * count too, which this query does not see */
    if (nt > 1 && kb_cpu_small_work() > 0 && kb_cpu_plan_quiet(pb, pl.kt, 1, &pl) == KRONBLAS_STATUS_SUCCESS) {
      if (kb_cpu_fast_bytes(&pl) > *bytes)
        *bytes = kb_cpu_fast_bytes(&pl);
      if (h->tuning_mode == KRONBLAS_TUNING_MEASURE && kb_cpu_cached_plan(h, pb, pl.kt, 1, &pl) &&
          kb_cpu_fast_bytes(&pl) > *bytes)
        *bytes = kb_cpu_fast_bytes(&pl);
    }
    return KRONBLAS_STATUS_SUCCESS;
  }
  KB_CHECK(kb_cpu_ws_plan(pb, &w));
  *bytes = w.total;
  return KRONBLAS_STATUS_SUCCESS;
}

/* The fast path for all batch entries; NOT_SUPPORTED (nothing written) when
 * it does not take the problem. */
static kronblasStatus_t kb_cpu_gekmm_fast(struct kronblasContext *h, const kb_problem_t *pb, int nthreads)
{
  const kb_cpu_kernels_t *ref = kb_cpu_ref_kernels[pb->type];
  const size_t esz = kb_type_size(pb->type);
  kb_cpu_plan_t pl;
  const kb_cpu_plan_t *plan = &pl;
  const void *fstack[KB_CPU_PLAN_MAXF];
  int any_overlap = 0, packed = 0, fixed_f = 1, nt, have;
  void *ws;
  char *cws;
  int64_t b, i;

  /* small work: one thread (kb_cpu_call_threads), the model's plan for it
   * already made where it was priced now (made again where the log shows
   * plans, so that the log shows the one that runs) */
  nt = kb_cpu_call_threads(h, pb, kb_cpu_kernels_for(pb->type), nthreads, &pl, &have);
  if (!have || h->tuning_mode == KRONBLAS_TUNING_MEASURE || kb_env()->log_level >= KB_LOG_DEBUG) {
    KB_CHECK(kb_cpu_call_plan(h, pb, nt, &pl, &plan));
  } else {
    /* the one-thread plan priced now is the model's: kept for the next call */
    kb_cpu_memo_keep(h, pb, kb_cpu_kernels_for(pb->type), nt, &pl);
  }
  for (i = 0; i < pb->nfactors; i++)
    if (pb->strideF != NULL && pb->strideF[i] != 0)
      fixed_f = 0;
  for (b = 0; b < pb->batch && !any_overlap; b++) {
    for (i = 0; i < pb->nfactors; i++) {
      long long sf = pb->strideF ? pb->strideF[i] : 0;
      fstack[i] = (const char *)pb->F[i] + (ptrdiff_t)(b * sf) * (ptrdiff_t)esz;
    }
    any_overlap = kb_cpu_y_overlaps(pb, (const char *)pb->X + (ptrdiff_t)(b * pb->strideX) * (ptrdiff_t)esz,
                                    fstack, (char *)pb->Y + (ptrdiff_t)(b * pb->strideY) * (ptrdiff_t)esz);
  }
  /* A user workspace must hold what kronblasGetWorkspaceSize reported; the
   * handle's own grows only as far as this call needs. */
  KB_CHECK(kb_host_workspace(h, h->user_ws != NULL ? kb_cpu_fast_bytes(plan)
                                                   : plan->total + (any_overlap ? plan->ovl_bytes : 0) + 64, &ws));
  cws = (char *)(((uintptr_t)ws + 63) & ~(uintptr_t)63);
  for (b = 0; b < pb->batch; b++) {
    const char *Xb = (const char *)pb->X + (ptrdiff_t)(b * pb->strideX) * (ptrdiff_t)esz;
    char *Yb = (char *)pb->Y + (ptrdiff_t)(b * pb->strideY) * (ptrdiff_t)esz;
    for (i = 0; i < pb->nfactors; i++) {
      long long sf = pb->strideF ? pb->strideF[i] : 0;
      fstack[i] = (const char *)pb->F[i] + (ptrdiff_t)(b * sf) * (ptrdiff_t)esz;
    }
    if (!packed || !fixed_f) {
      kb_cpu_pack_all(plan, pb, fstack, cws);
      packed = 1;
    }
    if (any_overlap && kb_cpu_y_overlaps(pb, Xb, fstack, Yb)) {
      /* alpha*result into staging laid out like a packed Y, then blend */
      char *T = cws + plan->off_ovl;
      int64_t ts_m = pb->y_contig_l ? pb->L : 1, ts_l = pb->y_contig_l ? 1 : pb->m;
      kb_cpu_run_fast(plan, pb, cws, Xb, T, ts_m, ts_l, 1, 0);
      ref->xpby(pb->m, pb->L, T, ts_m, ts_l, Yb, pb->ys_m, pb->ys_l, pb->beta, pb->beta_is_zero,
                plan->nthreads);
    } else {
      kb_cpu_run_fast(plan, pb, cws, Xb, Yb, pb->ys_m, pb->ys_l, pb->beta_is_zero, 1);
    }
  }
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cpu_gekmm_entries(struct kronblasContext *h, const kb_problem_t *pb, int may_split);

/* Long rows in two calls.  A row of X too long for L2 (float 1_8x8^7: 8
 * MiB) makes every plan of one call pass through L3 or DRAM once per
 * group of factors, with the threads sharing each group's tiles; small
 * factors need many groups.  Split after the first s factors (the fewest
 * whose product Ks is at least 64 and leaves rows of Kf = K / Ks within
 * 512 KiB), a vector is Ks rows of Kf: the last n - s factors run as a
 * call of Ks short rows (per-row plans, rows in L2, threads on rows) into
 * an intermediate T, and the first s as a call over T's columns (X
 * contiguous along m: Lf vectors of Ks) into the vector's Y with alpha
 * and beta; one vector after another.  Measured on AMD Zen 5, two
 * threads, bench medians, split against one call (ms, two alternating
 * pairs unless said): float 1_8x8^7 0.89-1.05 against 1.59-1.78
 * (1.34-1.45 against 1.73-1.92 in a slower stretch), 1_8x8^8 8.7-9.2
 * against 17.0-17.2, 1_4x4^12 11.1-11.4 against 17.8-19.2, 1_2x2^23
 * 5.7-5.8 against 11.2-11.8, 1_3x3^15 15.9 against 19.7-21.0; double 1_8x8^8 18.1-18.2 against 19.9-20.6, 1_4x4^12
 * 18.5-18.9 against 37.5, 1_2x2^23 11.1-12.5 against 20.4-22.4, 1_8x8^7
 * a tie (four pairs, medians 2.09 / 2.15: its digits-in-place plan splits
 * the row at the same factor); complex 1_8x8^7 3.25-3.34 against
 * 4.29-4.40 (float), 6.3-6.6 against 9.8-10.2 (double).  Larger factors
 * gain little or lose (three pairs each): float 1_16x16^6 10.3-10.8
 * against 10.9-11.8, 1_32x32^5 29.0-30.3 against 29.9-30.6, 1_64x64^4
 * 24.9-25.9 against 22.6-23.3; double 1_16x16^5 1.05-1.31 against
 * 1.04-1.52, 1_32x32^4 1.56-2.00 against 1.44-1.77, 4_32x32^4 8.1-8.5
 * against 5.3-6.0, 16_32x32^4 33.4-34.4 against 20.4-20.6: factors of p
 * <= 8 only.  Rows of 4 MiB: float 1_16x16^5 0.52-0.58 against 0.49 and
 * 1_32x32^4 0.76-0.79 against 0.70-0.74 slower split, 1_4x4^10 0.49-0.55
 * against 0.54-0.60 a little faster: rows from 8 MiB on.  Several vectors:
 * float 2_8x8^7 2.44-2.61 against 3.42-3.55 and 4_8x8^7 5.02 against
 * 6.36-6.47 with the vectors' short rows in one call, but in a later
 * stretch, one vector at a time as now, 2.86-3.11 against 2.28-2.57 and
 * 5.89-6.14 against 3.86-4.10 (one call of several such rows runs them on
 * threads of their own, about as fast a vector as the split): m = 1.
 * T (one vector of Y, Ks * Lf elements) is the handle's, kept between
 * calls; a user workspace (kronblasSetWorkspace) turns the split off, so
 * that the library never holds more than its query reported, and so does
 * a plan the handle holds for the whole call (tuning mode MEASURE: a
 * wisdom entry or an earlier measurement).  The rule is not one of the
 * planner's candidates: the tuner times the two calls' plans each, never
 * the split against one call. */
#define KB_CPU_SPLIT_MIN_BYTES ((size_t)8 << 20)
#define KB_CPU_SPLIT_MAX_ROW ((size_t)512 << 10)
#define KB_CPU_SPLIT_MAX_P 8
static int kb_cpu_force_split = -1;
static long kb_cpu_split_runs;

void kb_cpu_test_force_split(int on)
{
  kb_cpu_force_split = on;
}

long kb_cpu_test_split_runs(void)
{
  return __atomic_load_n(&kb_cpu_split_runs, __ATOMIC_RELAXED);
}

/* The number of leading factors the second call applies; 0: no split. */
static int kb_cpu_split_at(struct kronblasContext *h, const kb_problem_t *pb)
{
  const size_t esz = kb_type_size(pb->type);
  int64_t ks = 1, kf, i;
  int s;
  if (kb_cpu_force_split == 0 || h->user_ws != NULL || pb->batch != 1 || pb->nfactors < 2 ||
      !pb->x_contig_k || !pb->y_contig_l || pb->alpha_is_zero || pb->K == 0)
    return 0;
  /* (measured with the optimised kernels only) */
  if (kb_cpu_force_split < 0 && (pb->nfactors < 3 || pb->m > 1 || (size_t)pb->K * esz < KB_CPU_SPLIT_MIN_BYTES ||
                                 kb_cpu_kernels_for(pb->type) == NULL))
    return 0;
  for (i = 0; kb_cpu_force_split < 0 && i < pb->nfactors; i++)
    if (pb->p[i] > KB_CPU_SPLIT_MAX_P)
      return 0;
  /* a plan the handle measured or imported for the whole call (wisdom,
   * tuning mode MEASURE) runs as it was measured */
  if (kb_cpu_force_split < 0 && h->tuning_mode == KRONBLAS_TUNING_MEASURE) {
    kb_cpu_plan_t pl;
    if (kb_cpu_cached_plan(h, pb, kb_cpu_kernels_for(pb->type), kb_cpu_handle_threads(h), &pl))
      return 0;
  }
  /* one vector at a time: Y written for one must not be another's X or
   * a factor still to be read */
  if (kb_cpu_y_overlaps(pb, pb->X, pb->F, pb->Y))
    return 0;
  for (s = 1; s < pb->nfactors; s++) {
    ks *= pb->p[s - 1];
    if (kb_cpu_force_split > 0 || (ks >= 64 && (size_t)(pb->K / ks) * esz <= KB_CPU_SPLIT_MAX_ROW))
      break;
  }
  if (s >= pb->nfactors)
    return 0;
  kf = pb->K / ks;
  if (kb_cpu_force_split < 0 && (s > pb->nfactors - 2 || (size_t)kf * esz > KB_CPU_SPLIT_MAX_ROW))
    return 0;
  return s;
}

int kb_cpu_test_split_at(struct kronblasContext *h, const kb_problem_t *pb)
{
  return kb_cpu_split_at(h, pb);
}

static kronblasStatus_t kb_cpu_gekmm_split(struct kronblasContext *h, const kb_problem_t *pb, int s)
{
  static const double one[2] = { 1.0, 0.0 }, zero[2] = { 0.0, 0.0 };
  static const float onef[2] = { 1.0f, 0.0f }, zerof[2] = { 0.0f, 0.0f };
  const size_t esz = kb_type_size(pb->type);
  const int sp = pb->type == KRONBLAS_R_32F || pb->type == KRONBLAS_C_32F;
  kb_problem_t a = *pb, b = *pb;
  int64_t ks = 1, ls = 1, i, r;
  size_t tb;
  for (i = 0; i < s; i++) {
    ks *= pb->p[i];
    ls *= pb->q[i];
  }
  if ((uint64_t)ks > SIZE_MAX / esz / (size_t)(pb->L / ls))
    return KRONBLAS_STATUS_ALLOC_FAILED;
  tb = (size_t)ks * (size_t)(pb->L / ls) * esz;
  if (h->cpu_split_bytes < tb) {
    void *t = NULL;
    if (posix_memalign(&t, 64, tb) != 0)
      return KRONBLAS_STATUS_ALLOC_FAILED;
    free(h->cpu_split_buf);
    h->cpu_split_buf = t;
    h->cpu_split_bytes = tb;
  }
  /* per vector: the last n - s factors, Ks rows of Kf into T (alpha 1,
   * beta 0) */
  a.nfactors = pb->nfactors - s;
  a.p = pb->p + s;
  a.q = pb->q + s;
  a.F = pb->F + s;
  a.ldf = pb->ldf + s;
  a.fs_l = pb->fs_l + s;
  a.fs_k = pb->fs_k + s;
  a.strideF = pb->strideF != NULL ? pb->strideF + s : NULL;
  a.m = ks;
  a.K = pb->K / ks;
  a.L = pb->L / ls;
  a.xs_m = a.K;
  a.ldx = a.K;
  a.Y = h->cpu_split_buf;
  a.ys_m = a.L;
  a.ys_l = 1;
  a.ldy = a.L;
  a.pointer_mode = KRONBLAS_POINTER_MODE_HOST;
  a.alpha = sp ? (const void *)onef : (const void *)one;
  a.beta = sp ? (const void *)zerof : (const void *)zero;
  a.alpha_is_zero = 0;
  a.beta_is_zero = 1;
  /* then the first s factors over T's columns: Lf vectors of Ks
   * elements Lf apart, into the vector's Ls runs of Lf in Y */
  b.nfactors = s;
  b.strideF = NULL;
  b.m = a.L;
  b.K = ks;
  b.L = ls;
  b.X = h->cpu_split_buf;
  b.xs_m = 1;
  b.xs_k = a.L;
  b.ldx = a.L;
  b.x_contig_k = 0;
  b.conjX = 0;
  b.ys_m = 1;
  b.ys_l = a.L;
  b.ldy = a.L;
  b.y_contig_l = 0;
  kb_log(KB_LOG_DEBUG, "cpu split: %lld vectors, each %lld rows of %lld, then %lld factors over %lld columns",
         (long long)pb->m, (long long)a.m, (long long)a.K, (long long)s, (long long)b.m);
  /* (several vectors only under the test hook: there a sub-call failing
   * for a later vector, a workspace it cannot grow, would leave the
   * earlier vectors' Y written) */
  for (r = 0; r < pb->m; r++) {
    a.X = (const char *)pb->X + (ptrdiff_t)(r * pb->xs_m) * (ptrdiff_t)esz;
    b.Y = (char *)pb->Y + (ptrdiff_t)(r * pb->ys_m) * (ptrdiff_t)esz;
    /* (neither split again: the first writes the handle's T) */
    KB_CHECK(kb_cpu_gekmm_entries(h, &a, 0));
    KB_CHECK(kb_cpu_gekmm_entries(h, &b, 0));
  }
  __atomic_add_fetch(&kb_cpu_split_runs, 1, __ATOMIC_RELAXED);
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cpu_gekmm_entries(struct kronblasContext *h, const kb_problem_t *pb, int may_split)
{
  kronblasStatus_t st = KRONBLAS_STATUS_SUCCESS;
  const kb_cpu_kernels_t *kt = kb_cpu_ref_kernels[pb->type];
  const size_t esz = kb_type_size(pb->type);
  const int nthreads = kb_cpu_handle_threads(h);
  const void *fstack[64];
  const void **Fb = fstack;
  kb_cpu_ws_plan_t w;
  void *ws = NULL;
  int64_t b, i;
  const int scale_only = pb->alpha_is_zero || pb->K == 0;

  if (!scale_only) {
    const int split = may_split ? kb_cpu_split_at(h, pb) : 0;
    if (split > 0)
      return kb_cpu_gekmm_split(h, pb, split);
    st = kb_cpu_gekmm_fast(h, pb, nthreads);
    if (st != KRONBLAS_STATUS_NOT_SUPPORTED)
      return st;
    st = KRONBLAS_STATUS_SUCCESS;
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

static kronblasStatus_t kb_cpu_gekmm_direct(struct kronblasContext *h, const kb_problem_t *pb)
{
  return kb_cpu_gekmm_entries(h, pb, 1);
}

/* Entries whose Y overlaps other entries' inputs: every result is formed
 * (times alpha) in a separate buffer before any Y is written, then blended
 * in batch order, which is what non-overlapping operands would give. */
static kronblasStatus_t kb_cpu_gekmm_staged(struct kronblasContext *h, const kb_problem_t *pb)
{
  const kb_cpu_kernels_t *ref = kb_cpu_ref_kernels[pb->type];
  const size_t esz = kb_type_size(pb->type);
  const int64_t ml = pb->m * pb->L;
  kronblasStatus_t st;
  kb_problem_t s = *pb;
  char *T;
  int64_t b, e;

  if (__builtin_mul_overflow(ml, pb->batch, &e) || (uint64_t)e > SIZE_MAX / 2 / esz)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  T = malloc((size_t)e * esz);
  if (T == NULL)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  s.Y = T;
  s.ldy = pb->y_contig_l ? pb->L : pb->m;
  s.ys_m = pb->y_contig_l ? pb->L : 1;
  s.ys_l = pb->y_contig_l ? 1 : pb->m;
  s.strideY = ml;
  s.beta_is_zero = 1;
  st = kb_cpu_gekmm_direct(h, &s);
  if (st == KRONBLAS_STATUS_SUCCESS)
    for (b = 0; b < pb->batch; b++)
      ref->xpby(pb->m, pb->L, T + (size_t)(b * ml) * esz, s.ys_m, s.ys_l,
                (char *)pb->Y + (ptrdiff_t)(b * pb->strideY) * (ptrdiff_t)esz, pb->ys_m, pb->ys_l,
                pb->beta, pb->beta_is_zero, kb_cpu_handle_threads(h));
  free(T);
  return st;
}

static kronblasStatus_t kb_cpu_gekmm(struct kronblasContext *h, const kb_problem_t *pb)
{
  if (!pb->alpha_is_zero && pb->K > 0 && kb_cpu_cross_overlap(pb))
    return kb_cpu_gekmm_staged(h, pb);
  return kb_cpu_gekmm_direct(h, pb);
}


const kb_backend_t kb_cpu_backend = {
  "cpu",
  kb_cpu_init,
  kb_cpu_fini,
  kb_cpu_gekmm,
  kb_cpu_workspace_size,
  NULL,
  NULL,
  kb_cpu_wisdom_ident,
  kb_cpu_wisdom_each,
  kb_cpu_wisdom_add,
  kb_cpu_tune_free,
};
