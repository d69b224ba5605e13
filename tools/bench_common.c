/* bench_common.c - the parts of kronblas-bench that do not depend on where
 * the data lives: the problem of a row, the baseline plans, error bounds,
 * verification against the test oracle, and small helpers. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "kb_bench.h"
#include "../tests/kb_oracle.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kb_bench_row_begin(kronblasHandle_t h, const kb_bench_prob_t *pb, int reps, kb_bench_result_t *r,
    size_t *ws, kb_bench_plan_t **shuf, kb_bench_plan_t **gemm, double **t, double *base, double *extra)
{
  kronblasStatus_t st;
  int i;

  *ws = 0;
  *shuf = NULL;
  *gemm = NULL;
  *t = NULL;
  if (h != NULL) {
    st = kronblasGetWorkspaceSize(h, pb->type, pb->side, pb->transX, pb->transF, pb->m, pb->n, pb->p,
                                  pb->q, ws);
    if (st != KRONBLAS_STATUS_SUCCESS) {
      snprintf(r->note, sizeof r->note, "kronblasGetWorkspaceSize: %s", kronblasGetStatusName(st));
      return -1;
    }
  }
  *shuf = malloc(sizeof **shuf);
  *gemm = malloc(sizeof **gemm);
  *t = malloc((size_t)reps * sizeof **t);
  if (*shuf == NULL || *gemm == NULL || *t == NULL) {
    snprintf(r->note, sizeof r->note, "out of host memory");
    kb_bench_row_end(*shuf, *gemm, *t);
    *shuf = NULL;
    *gemm = NULL;
    *t = NULL;
    return -1;
  }
  kb_bench_plan_shuffle(pb, *shuf);
  kb_bench_plan_gemm(pb, *gemm);
  *base = (double)(pb->xcount + pb->ycount) * (double)pb->esz + (double)*ws;
  for (i = 0; i < pb->n; i++)
    *base += (double)pb->fcount[i] * (double)pb->esz;
  *extra = (double)(pb->ycount + 2 * pb->m * pb->smax) * (double)pb->esz;
  return 0;
}

void kb_bench_row_end(kb_bench_plan_t *shuf, kb_bench_plan_t *gemm, double *t)
{
  free(t);
  free(shuf);
  free(gemm);
}

void kb_bench_result_init(kb_bench_result_t *r)
{
  memset(r, 0, sizeof *r);
  r->ms = r->gflops = r->floor_pct = r->gemm_pct = r->copy_pct = NAN;
  r->shuffle_ms = r->gemm_ms = NAN;
  r->shuffle_err = r->gemm_err = r->err_bound = NAN;
  r->verify = "-";
  r->calls = 1;
}

int kb_bench_prob_init(kb_bench_prob_t *pb, const kb_bench_shape_t *sh, kronblasDataType_t type,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF)
{
  int64_t K = 1, L = 1, pre, suf, e, i;
  int transx = transX != KRONBLAS_OP_N, transf = transF != KRONBLAS_OP_N;
  double cur;

  memset(pb, 0, sizeof *pb);
  pb->shape = sh;
  pb->type = type;
  pb->esz = kb_oracle_type_size(type);
  pb->cplx = kb_oracle_type_is_complex(type);
  pb->side = side;
  pb->transX = transX;
  pb->transF = transF;
  pb->m = sh->m;
  pb->n = sh->n;
  pb->p = sh->p;
  pb->q = sh->q;
  for (i = 0; i < sh->n; i++) {
    if (__builtin_mul_overflow(K, sh->p[i], &K) || __builtin_mul_overflow(L, sh->q[i], &L))
      return -1;
  }
  pb->K = K;
  pb->L = L;
  /* the vector after factors i..n-1 were applied: prod p[0..i) * prod q[i..n) */
  pb->smax = K > L ? K : L;
  pre = K;
  suf = 1;
  for (i = sh->n - 1; i >= 0 && K > 0; i--) {
    pre /= sh->p[i];
    suf *= sh->q[i];
    if (__builtin_mul_overflow(pre, suf, &e))
      return -1;
    if (e > pb->smax)
      pb->smax = e;
  }
  /* every buffer's byte count must fit, with room for the workspaces */
  if (__builtin_mul_overflow(pb->smax, pb->m, &e) || __builtin_mul_overflow(e, (int64_t)pb->esz * 4, &e))
    return -1;

  pb->x_contig_k = (side == KRONBLAS_SIDE_LEFT) != transx;
  pb->y_contig_l = side == KRONBLAS_SIDE_LEFT;
  pb->f_contig_k = (side == KRONBLAS_SIDE_LEFT) == transf;
  pb->conjX = pb->cplx && transX == KRONBLAS_OP_C;
  pb->conjF = pb->cplx && transF == KRONBLAS_OP_C;
  kb_oracle_x_dims(side, transX, pb->m, K, &pb->xrows, &pb->xcols);
  kb_oracle_y_dims(side, pb->m, L, &pb->yrows, &pb->ycols);
  pb->ldx = pb->xrows > 1 ? pb->xrows : 1;
  pb->ldy = pb->yrows > 1 ? pb->yrows : 1;
  pb->xcount = kb_oracle_extent(pb->xrows, pb->xcols, pb->ldx);
  pb->ycount = kb_oracle_extent(pb->yrows, pb->ycols, pb->ldy);
  for (i = 0; i < sh->n; i++) {
    kb_oracle_f_dims(side, transF, sh->p[i], sh->q[i], &pb->frows[i], &pb->fcols[i]);
    pb->ldf[i] = pb->frows[i] > 1 ? pb->frows[i] : 1;
    pb->fcount[i] = kb_oracle_extent(pb->frows[i], pb->fcols[i], pb->ldf[i]);
  }

  /* FLOPs as FastKron counts them, factors applied last first */
  pb->flops = 0.0;
  cur = (double)K;
  for (i = sh->n - 1; i >= 0 && K > 0; i--) {
    pb->flops += 2.0 * (double)pb->m * cur * (double)sh->q[i];
    cur = cur / (double)sh->p[i] * (double)sh->q[i];
  }
  if (pb->cplx)
    pb->flops *= 4.0;
  kb_bench_prob_set_beta(pb, 0.0);
  return 0;
}

void kb_bench_prob_set_beta(kb_bench_prob_t *pb, double beta)
{
  pb->beta = beta;
  pb->bytes = (double)(pb->xcount + (beta != 0.0 ? 2 : 1) * pb->ycount) * (double)pb->esz;
}

kronblasStatus_t kb_bench_call(kronblasHandle_t h, const kb_bench_prob_t *pb, const void *X,
    const void *const *F, void *Y)
{
  static const float s1[2] = { 1.0f, 0.0f };
  static const double d1[2] = { 1.0, 0.0 };
  const float s0[2] = { (float)pb->beta, 0.0f };
  const double d0[2] = { pb->beta, 0.0 };
  switch (pb->type) {
  case KRONBLAS_R_32F:
    return kronblasSgekmm_64(h, pb->side, pb->transX, pb->transF, pb->m, pb->n, pb->p, pb->q, s1,
                             X, pb->ldx, (const float *const *)F, pb->ldf, s0, Y, pb->ldy);
  case KRONBLAS_R_64F:
    return kronblasDgekmm_64(h, pb->side, pb->transX, pb->transF, pb->m, pb->n, pb->p, pb->q, d1,
                             X, pb->ldx, (const double *const *)F, pb->ldf, d0, Y, pb->ldy);
  case KRONBLAS_C_32F:
    return kronblasCgekmm_64(h, pb->side, pb->transX, pb->transF, pb->m, pb->n, pb->p, pb->q,
                             (const kronblasComplex *)s1, X, pb->ldx,
                             (const kronblasComplex *const *)F, pb->ldf,
                             (const kronblasComplex *)s0, Y, pb->ldy);
  default:
    return kronblasZgekmm_64(h, pb->side, pb->transX, pb->transF, pb->m, pb->n, pb->p, pb->q,
                             (const kronblasDoubleComplex *)d1, X, pb->ldx,
                             (const kronblasDoubleComplex *const *)F, pb->ldf,
                             (const kronblasDoubleComplex *)d0, Y, pb->ldy);
  }
}

/* ------------------------------------------------------------ plans */

/* The op on the stored factor that gives A (want_t = 0) or A^T (want_t = 1),
 * or 0 where BLAS has none (conjugate without transpose). */
static char kb_bench_fop(const kb_bench_prob_t *pb, int want_t)
{
  if (pb->f_contig_k) {        /* stored S = A^T (or A^H) */
    if (!want_t)
      return pb->conjF ? 'C' : 'T';
    return pb->conjF ? 0 : 'N';
  }
  /* stored S = A (or conj A) */
  if (!want_t)
    return pb->conjF ? 0 : 'N';
  return pb->conjF ? 'C' : 'T';
}

static void kb_bench_plan_fail(kb_bench_plan_t *pl, const char *why)
{
  pl->ok = 0;
  pl->nops = 0;
  snprintf(pl->why, sizeof pl->why, "%s", why);
}

static kb_bench_op_t *kb_bench_plan_add(kb_bench_plan_t *pl, int kind)
{
  kb_bench_op_t *o = &pl->op[pl->nops++];
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->batch = 1;
  return o;
}

/* A transpose that moves nothing (d1 or d2 of 1) is left out, as a view
 * would be in PyTorch. */
static void kb_bench_plan_permute(kb_bench_plan_t *pl, int64_t inner, int64_t d1, int64_t d2, int64_t outer)
{
  kb_bench_op_t *o;
  if (d1 == 1 || d2 == 1)
    return;
  o = kb_bench_plan_add(pl, KB_BENCH_OP_PERMUTE);
  o->inner = inner;
  o->d1 = d1;
  o->d2 = d2;
  o->outer = outer;
}

/* Sources and destinations: X into the first step, Y out of the last, the
 * two workspaces in between; then the checks BLAS' int arguments need. */
static void kb_bench_plan_finish(const kb_bench_prob_t *pb, kb_bench_plan_t *pl)
{
  int i, cur = KB_BENCH_BUF_X;
  for (i = 0; i < pl->nops; i++) {
    kb_bench_op_t *o = &pl->op[i];
    o->src = cur;
    o->dst = i == pl->nops - 1 ? KB_BENCH_BUF_Y : cur == KB_BENCH_BUF_W0 ? KB_BENCH_BUF_W1 : KB_BENCH_BUF_W0;
    cur = o->dst;
    if (o->kind == KB_BENCH_OP_GEMM &&
        (o->M > INT_MAX || o->N > INT_MAX || o->Kd > INT_MAX || o->lda > INT_MAX ||
         o->ldb > INT_MAX || o->ldc > INT_MAX)) {
      kb_bench_plan_fail(pl, "a GEMM dimension exceeds int");
      return;
    }
  }
  pl->ws_elems = pb->m * pb->smax;
  pl->ok = 1;
}

static int kb_bench_plan_start(const kb_bench_prob_t *pb, kb_bench_plan_t *pl)
{
  memset(pl, 0, sizeof *pl);
  if (pb->m == 0 || pb->K == 0 || pb->L == 0) {
    kb_bench_plan_fail(pl, "empty problem");
    return 0;
  }
  if (pb->conjX) {
    kb_bench_plan_fail(pl, "conjugated X has no BLAS form");
    return 0;
  }
  return 1;
}

/*
 * Per-factor GEMMs, no transposes: factor i contracts its own index in
 * place.  With d_j the current size of index j, pre = prod d_j (j < i) and
 * post = prod d_j (j > i):
 *  - X contiguous along K (vector r is (k_0 .. k_{n-1}), last fastest):
 *    for every (r, pre) slice C(post x q) = in(post x p) * A^T, a strided
 *    batch of m*pre GEMMs; the last factor (post = 1) is one GEMM
 *    C(q x m*pre) = A * in.
 *  - X contiguous along m (r fastest): for every pre slice
 *    C(m*post x q) = in(m*post x p) * A^T, a batch of pre GEMMs.
 */
void kb_bench_plan_gemm(const kb_bench_prob_t *pb, kb_bench_plan_t *pl)
{
  int64_t d[KB_BENCH_MAXF], pre, post;
  int i, j;

  if (!kb_bench_plan_start(pb, pl))
    return;
  if (pb->x_contig_k != pb->y_contig_l) {
    kb_bench_plan_fail(pl, "X and Y run along different directions (needs a transpose)");
    return;
  }
  for (j = 0; j < pb->n; j++)
    d[j] = pb->p[j];
  for (i = pb->n - 1; i >= 0; i--) {
    kb_bench_op_t *o = kb_bench_plan_add(pl, KB_BENCH_OP_GEMM);
    int64_t p = pb->p[i], q = pb->q[i];
    pre = post = 1;
    for (j = 0; j < i; j++)
      pre *= d[j];
    for (j = i + 1; j < pb->n; j++)
      post *= d[j];
    o->factor = i;
    o->Kd = p;
    o->N = q;
    if (pb->x_contig_k && post == 1 && kb_bench_fop(pb, 0)) {
      o->data_is_a = 0;
      o->M = q;
      o->N = pb->m * pre;
      o->opa = kb_bench_fop(pb, 0);
      o->lda = pb->ldf[i];
      o->opb = 'N';
      o->ldb = p;
      o->ldc = q;
    } else {
      int64_t rows = pb->x_contig_k ? post : pb->m * post;
      o->opb = kb_bench_fop(pb, 1);
      if (o->opb == 0) {
        kb_bench_plan_fail(pl, "conjugated factors stored this way need a conjugate without transpose");
        return;
      }
      o->data_is_a = 1;
      o->M = rows;
      o->opa = 'N';
      o->lda = rows;
      o->sd = rows * p;
      o->ldb = pb->ldf[i];
      o->ldc = rows;
      o->sc = rows * q;
      o->batch = pb->x_contig_k ? pb->m * pre : pre;
    }
    d[i] = q;
  }
  kb_bench_plan_finish(pb, pl);
}

/*
 * The shuffle algorithm (what GPyTorch's KroneckerProductLinearOperator
 * does): per factor one large GEMM over the contracted index, then a
 * transpose that moves the produced index to the other end of the vector,
 * so the next factor's index is again outermost/innermost.
 *  - X contiguous along K: factors last first; in is (p x S*m):
 *    C(S*m x q) = in^T * A^T, then (S, m, q) -> (S, q, m), which moves
 *    whole runs of S elements.  (The other orientation, C(q x S*m) = A * in
 *    and a (q, S, m) -> (S, q, m) transpose, is what the GEMM takes when the
 *    factor's op has no BLAS form; it is also slower with OpenBLAS, whose
 *    GEMM with M = q small runs far below its rate.)
 *  - X contiguous along m: factors first first (as GPyTorch, whose tensors
 *    are row-major K x m); in is (m*S x p): C(m*S x q) = in * A^T, then
 *    (m, S, q) -> (m, q, S).  When A^T has no BLAS form the GEMM is taken
 *    the other way round and the transpose adjusted.  A last transpose turns the result to
 * Y's layout when X and Y run along different directions.
 */
void kb_bench_plan_shuffle(const kb_bench_prob_t *pb, kb_bench_plan_t *pl)
{
  int64_t cur = pb->K, m = pb->m;
  int i;

  if (!kb_bench_plan_start(pb, pl))
    return;
  for (i = 0; i < pb->n; i++) {
    int f = pb->x_contig_k ? pb->n - 1 - i : i;
    int64_t p = pb->p[f], q = pb->q[f], S = cur / p;
    kb_bench_op_t *o = kb_bench_plan_add(pl, KB_BENCH_OP_GEMM);
    o->factor = f;
    o->Kd = p;
    if (pb->x_contig_k && kb_bench_fop(pb, 1)) {
      o->data_is_a = 1;
      o->M = S * m;
      o->N = q;
      o->opa = 'T';
      o->lda = p;
      o->opb = kb_bench_fop(pb, 1);
      o->ldb = pb->ldf[f];
      o->ldc = S * m;
      kb_bench_plan_permute(pl, S, m, q, 1);
    } else if (pb->x_contig_k) {
      o->data_is_a = 0;
      o->M = q;
      o->N = S * m;
      o->opa = kb_bench_fop(pb, 0);
      o->lda = pb->ldf[f];
      o->opb = 'N';
      o->ldb = p;
      o->ldc = q;
      kb_bench_plan_permute(pl, 1, q, S, m);
    } else if (kb_bench_fop(pb, 1)) {
      o->data_is_a = 1;
      o->M = m * S;
      o->N = q;
      o->opa = 'N';
      o->lda = m * S;
      o->opb = kb_bench_fop(pb, 1);
      o->ldb = pb->ldf[f];
      o->ldc = m * S;
      kb_bench_plan_permute(pl, m, S, q, 1);
    } else {
      o->data_is_a = 0;
      o->M = q;
      o->N = m * S;
      o->opa = kb_bench_fop(pb, 0);
      o->lda = pb->ldf[f];
      o->opb = 'T';
      o->ldb = m * S;
      o->ldc = q;
      kb_bench_plan_permute(pl, 1, q, m, S);
    }
    cur = S * q;
  }
  if (pb->x_contig_k && !pb->y_contig_l)
    kb_bench_plan_permute(pl, 1, pb->L, m, 1);
  else if (!pb->x_contig_k && pb->y_contig_l)
    kb_bench_plan_permute(pl, 1, m, pb->L, 1);
  kb_bench_plan_finish(pb, pl);
}

/* ---------------------------------------------------------- checking */

static double kb_bench_abs_at(const kb_bench_prob_t *pb, const void *a, int64_t i)
{
  switch (pb->type) {
  case KRONBLAS_R_32F: return fabs((double)((const float *)a)[i]);
  case KRONBLAS_R_64F: return fabs(((const double *)a)[i]);
  case KRONBLAS_C_32F: {
    const kronblasComplex *c = (const kronblasComplex *)a + i;
    return hypot((double)c->x, (double)c->y);
  }
  default: {
    const kronblasDoubleComplex *c = (const kronblasDoubleComplex *)a + i;
    return hypot(c->x, c->y);
  }
  }
}

double kb_bench_abs_bound(const kb_bench_prob_t *pb, const void *X, const void *const *F, double tol)
{
  double scale = 0.0, sumlen = 2.0;
  int64_t i, r, c;
  for (i = 0; i < pb->xcount; i++) {
    double v = kb_bench_abs_at(pb, X, i);
    if (v > scale)
      scale = v;
  }
  /* ||A_i||_inf: the largest row sum of |A_i|, rows of A_i being l */
  for (i = 0; i < pb->n; i++) {
    int64_t nl = pb->q[i], nk = pb->p[i];
    double best = 0.0;
    for (r = 0; r < nl; r++) {
      double s = 0.0;
      for (c = 0; c < nk; c++)
        s += kb_bench_abs_at(pb, F[i], pb->f_contig_k ? c + pb->ldf[i] * r : r + pb->ldf[i] * c);
      if (s > best)
        best = s;
    }
    scale *= best;
    sumlen += (double)(pb->p[i] + 1);
  }
  return tol * sumlen * kb_oracle_eps(pb->type) * scale;
}

double kb_bench_max_diff(const kb_bench_prob_t *pb, const void *a, const void *b)
{
  double worst = 0.0;
  int64_t i;
  for (i = 0; i < pb->ycount; i++) {
    double d;
    switch (pb->type) {
    case KRONBLAS_R_32F: d = fabs((double)((const float *)a)[i] - (double)((const float *)b)[i]); break;
    case KRONBLAS_R_64F: d = fabs(((const double *)a)[i] - ((const double *)b)[i]); break;
    case KRONBLAS_C_32F: {
      const kronblasComplex *x = (const kronblasComplex *)a + i, *y = (const kronblasComplex *)b + i;
      d = hypot((double)x->x - (double)y->x, (double)x->y - (double)y->y);
      break;
    }
    default: {
      const kronblasDoubleComplex *x = (const kronblasDoubleComplex *)a + i;
      const kronblasDoubleComplex *y = (const kronblasDoubleComplex *)b + i;
      d = hypot(x->x - y->x, x->y - y->y);
      break;
    }
    }
    if (!isfinite(d))
      return INFINITY;
    if (d > worst)
      worst = d;
  }
  return worst;
}

/* ----------------------------------------------------------- helpers */

static int kb_bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double kb_bench_median(double *v, int n)
{
  if (n <= 0)
    return NAN;
  qsort(v, (size_t)n, sizeof *v, kb_bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A row's data depends on the seed and the row, not on the order of rows. */
static uint64_t kb_bench_row_seed(const kb_bench_prob_t *pb, uint64_t seed)
{
  const char *s = pb->shape->name;
  uint64_t h = seed ^ 0x9e3779b97f4a7c15ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  h = (h ^ (uint64_t)pb->type) * 0x100000001b3ULL;
  h = (h ^ (uint64_t)(pb->side * 16 + pb->transX * 4 + pb->transF)) * 0x100000001b3ULL;
  return h;
}

void kb_bench_fill(const kb_bench_prob_t *pb, uint64_t seed, void *X, void *const *F)
{
  kb_rng_t rng;
  int i;
  kb_rng_seed(&rng, kb_bench_row_seed(pb, seed));
  kb_rng_fill(&rng, pb->type, X, pb->xcount);
  for (i = 0; i < pb->n; i++)
    kb_rng_fill(&rng, pb->type, F[i], pb->fcount[i]);
}

/* The oracle forms the Kronecker product: K*L multiply-adds per vector, so
 * it checks as many vectors as this budget allows (all when small); beyond
 * one vector's worth the randomised identity checks every vector instead. */
#define KB_BENCH_ORACLE_BUDGET (1LL << 26)

void kb_bench_verify(const kb_bench_prob_t *pb, const void *X, const void *const *F, const void *Y,
    uint64_t seed, kb_bench_result_t *r)
{
  static const double one[2] = { 1.0, 0.0 }, zero[2] = { 0.0, 0.0 };
  static const float onef[2] = { 1.0f, 0.0f }, zerof[2] = { 0.0f, 0.0f };
  const int dbl = pb->type == KRONBLAS_R_64F || pb->type == KRONBLAS_C_64F;
  const double tol = pb->cplx ? 4.0 : 2.0;
  int64_t kl, sumlen = 0, i, budget = KB_BENCH_ORACLE_BUDGET, mv = 0;

#ifdef KB_ORACLE_MAX_WORK
  if (budget > KB_ORACLE_MAX_WORK)
    budget = KB_ORACLE_MAX_WORK;
#endif
  for (i = 0; i < pb->n; i++)
    sumlen += pb->p[i] + 1;
  if (pb->m == 0 || pb->L == 0) {
    r->verify = "PASS";
    snprintf(r->verify_msg, sizeof r->verify_msg, "empty output, nothing to check");
    return;
  }
  if (!__builtin_mul_overflow(pb->K, pb->L, &kl) && kl <= KB_ORACLE_MAX_KL) {
    /* the oracle's work is K*L*(vectors + factors) */
    mv = (kl > 0 ? budget / kl : budget) - pb->n;
    if (mv > pb->m)
      mv = pb->m;
  }
  if (mv >= 1) {
    size_t per = pb->cplx ? 2 : 1;
    long double *ref = malloc((size_t)(mv * pb->L) * per * sizeof *ref);
    long double *mag = malloc((size_t)(mv * pb->L) * sizeof *mag);
    double worst = 0.0;
    int64_t nbad;
    int done = 1;
    if (ref == NULL || mag == NULL) {
      r->verify = "FAIL";
      snprintf(r->verify_msg, sizeof r->verify_msg, "no memory for the oracle");
    } else if (kb_oracle_gekmm(pb->type, pb->side, pb->transX, pb->transF, mv, pb->n, pb->p, pb->q,
                               dbl ? (const void *)one : (const void *)onef, X, pb->ldx, F, pb->ldf,
                               dbl ? (const void *)zero : (const void *)zerof, Y, pb->ldy, ref,
                               mag) != 0) {
      done = 0;   /* beyond the oracle's own limits: the identity below */
    } else {
      nbad = kb_oracle_compare(pb->type, pb->side, mv, pb->L, Y, pb->ldy, ref, mag, sumlen, tol, &worst);
      r->verify = nbad == 0 ? "PASS" : "FAIL";
      if (nbad == 0)
        snprintf(r->verify_msg, sizeof r->verify_msg,
                 "oracle, %lld of %lld vectors, worst error %.3g of the bound",
                 (long long)mv, (long long)pb->m, worst / tol);
      else {
        const kb_oracle_bad_t *b = kb_oracle_last_bad();
        snprintf(r->verify_msg, sizeof r->verify_msg,
                 "oracle: %lld bad elements, first (r=%lld, l=%lld) got %.9g%+.9gi want %.9g%+.9gi, "
                 "worst %.3g of the bound",
                 (long long)nbad, (long long)b->r, (long long)b->l, b->got_re, b->got_im,
                 b->want_re, b->want_im, worst / tol);
      }
    }
    free(ref);
    free(mag);
    if (done)
      return;
  }
  {
    double relerr = 0.0;
    int rc = kb_identity_check(pb->type, pb->side, pb->transX, pb->transF, pb->m, pb->n, pb->p, pb->q,
                               X, pb->ldx, F, pb->ldf, Y, pb->ldy, kb_bench_row_seed(pb, seed) + 1, &relerr);
    double unit = (pb->cplx ? 4.0 : 2.0) * (double)(sumlen + 2) * kb_oracle_eps(pb->type);
    r->verify = rc == 0 ? "PASS" : "FAIL";
    if (rc < 0)
      snprintf(r->verify_msg, sizeof r->verify_msg, "identity check could not run (memory)");
    else
      snprintf(r->verify_msg, sizeof r->verify_msg, "identity, relative error %.3g (%.3g of the bound)",
               relerr, relerr / unit);
  }
}

void kb_bench_floor(const kb_bench_prob_t *pb, double gemm_rate, double copy_bw, kb_bench_result_t *r)
{
  double tf, tb;
  if (gemm_rate <= 0.0 || copy_bw <= 0.0 || !(r->ms > 0.0) || !(pb->flops > 0.0))
    return;
  tf = pb->flops / gemm_rate;
  tb = pb->bytes / copy_bw;
  r->floor_pct = 100.0 * (tf > tb ? tf : tb) / (r->ms * 1e-3);
  r->gemm_pct = 100.0 * tf / (r->ms * 1e-3);
  r->copy_pct = 100.0 * tb / (r->ms * 1e-3);
}
