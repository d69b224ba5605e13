/* t-random.c - random GEKMM problems against the explicit-product oracle.
 *
 * Every operand lives in one arena: inputs and Y at random offsets with
 * random gaps, guards at both ends, every position that is not an element
 * of an operand poisoned with NaN.  After each call every element of Y is
 * compared with the oracle (computed from a snapshot of the arena, which is
 * also what "as if Y did not overlap" means), and every other position of
 * the arena must be bit-identical to the snapshot.
 *
 * One TAP line per (type, side, kind of problem); the first failure of a
 * line prints the whole problem.  The seed is printed first; set
 * KRONBLAS_TEST_SEED to it to reproduce a run. */
#include <kronblas.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "kb_oracle.h"
#include "kb_testcall.h"

#define KB_MAXF 8
#define KB_GUARD 4

enum { KB_SC_ZERO, KB_SC_ONE, KB_SC_MONE, KB_SC_RAND, KB_NSC };
static const char *const kb_sc_name[KB_NSC] = { "0", "1", "-1", "rand" };

enum { KB_OV_NONE, KB_OV_X, KB_OV_F, KB_OV_BATCH_X, KB_OV_BATCH_F };

typedef struct {
  kronblasDataType_t type;
  int variant, side, transX, transF;
  int64_t m, n, p[KB_MAXF], q[KB_MAXF], K, L;
  int64_t ldx, ldf[KB_MAXF], ldy;
  int alpha_kind, beta_kind;
  double alpha[2], beta[2];      /* re, im as doubles; converted per type */
  int64_t batch;
  long long strideX, strideF[KB_MAXF], strideY;
  int overlap, ov_factor;        /* KB_OV_*, and which factor for KB_OV_F */
  int nthreads;
  /* element offsets in the arena */
  int64_t offX, offF[KB_MAXF], offY, len;
} kb_prob_t;

static const char *kb_op_name(int op)
{
  return op == KRONBLAS_OP_N ? "N" : op == KRONBLAS_OP_T ? "T" : "C";
}

static void kb_describe(const kb_prob_t *P, char *buf, size_t cap)
{
  size_t o = 0;
  int64_t i;
  o += (size_t)snprintf(buf + o, cap - o, "%s%s %s X=%s F=%s m=%" PRId64 " n=%" PRId64 " p,q=",
                        kb_oracle_type_name(P->type), kb_variant_name[P->variant],
                        P->side == KRONBLAS_SIDE_LEFT ? "LEFT" : "RIGHT",
                        kb_op_name(P->transX), kb_op_name(P->transF), P->m, P->n);
  for (i = 0; i < P->n && o < cap; i++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%" PRId64 "x%" PRId64, i ? "," : "", P->p[i], P->q[i]);
  if (o < cap)
    o += (size_t)snprintf(buf + o, cap - o, " ldx=%" PRId64 " ldy=%" PRId64 " ldf=", P->ldx, P->ldy);
  for (i = 0; i < P->n && o < cap; i++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%" PRId64, i ? "," : "", P->ldf[i]);
  if (o < cap)
    o += (size_t)snprintf(buf + o, cap - o, " alpha=%s(%g,%g) beta=%s(%g,%g) threads=%d",
                          kb_sc_name[P->alpha_kind], P->alpha[0], P->alpha[1],
                          kb_sc_name[P->beta_kind], P->beta[0], P->beta[1], P->nthreads);
  if (o < cap && kb_variant_is_batched(P->variant)) {
    o += (size_t)snprintf(buf + o, cap - o, " batch=%" PRId64 " strideX=%lld strideY=%lld strideF=",
                          P->batch, P->strideX, P->strideY);
    for (i = 0; i < P->n && o < cap; i++)
      o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? "," : "", P->strideF[i]);
  }
  if (o < cap && P->overlap != KB_OV_NONE)
    o += (size_t)snprintf(buf + o, cap - o, " overlap=%s offX=%" PRId64 " offY=%" PRId64 " offF%d=%" PRId64,
                          P->overlap == KB_OV_X ? "X" : P->overlap == KB_OV_F ? "F" :
                          P->overlap == KB_OV_BATCH_X ? "X(other entry)" : "F(other entry)",
                          P->offX, P->offY, P->ov_factor, P->offF[P->ov_factor]);
}

/* ------------------------------------------------------------ elements */

static void kb_set_elem(kronblasDataType_t t, void *base, int64_t i, double re, double im)
{
  switch (t) {
  case KRONBLAS_R_32F: ((float *)base)[i] = (float)re; break;
  case KRONBLAS_R_64F: ((double *)base)[i] = re; break;
  case KRONBLAS_C_32F: ((float *)base)[2 * i] = (float)re; ((float *)base)[2 * i + 1] = (float)im; break;
  case KRONBLAS_C_64F: ((double *)base)[2 * i] = re; ((double *)base)[2 * i + 1] = im; break;
  }
}

static void kb_set_scalar(kronblasDataType_t t, void *s, int kind, kb_rng_t *rng, double v[2])
{
  v[1] = 0.0;
  switch (kind) {
  case KB_SC_ZERO: v[0] = 0.0; break;
  case KB_SC_ONE: v[0] = 1.0; break;
  case KB_SC_MONE: v[0] = -1.0; break;
  default:
    kb_rng_fill(rng, t, s, 1);
    if (t == KRONBLAS_R_32F || t == KRONBLAS_C_32F) {
      v[0] = ((float *)s)[0];
      v[1] = kb_oracle_type_is_complex(t) ? ((float *)s)[1] : 0.0;
    } else {
      v[0] = ((double *)s)[0];
      v[1] = kb_oracle_type_is_complex(t) ? ((double *)s)[1] : 0.0;
    }
    return;
  }
  kb_set_elem(t, s, 0, v[0], v[1]);
}

/* Marks the elements of a column-major matrix at off in mask. */
static void kb_mark(unsigned char *mask, int64_t off, int64_t rows, int64_t cols, int64_t ld, unsigned char bit)
{
  int64_t i, j;
  for (j = 0; j < cols; j++)
    for (i = 0; i < rows; i++)
      mask[off + i + j * ld] |= bit;
}

/* ------------------------------------------------------------- shapes */

static int64_t kb_pad(kb_rng_t *r)
{
  return kb_rng_range(r, 0, 1) ? kb_rng_range(r, 1, 4) : 0;
}

static int64_t kb_max64(int64_t a, int64_t b)
{
  return a > b ? a : b;
}

/* Random sizes with K*L <= budget; 1..9 each, distinct per factor. */
static void kb_gen_sizes(kb_rng_t *r, kb_prob_t *P, int64_t budget)
{
  int64_t i, KL = 1;
  P->n = kb_rng_range(r, 1, 6);
  for (i = 0; i < P->n; i++) {
    int64_t p = 1, q = 1, t;
    for (t = 0; t < 30; t++) {
      int64_t pp = kb_rng_range(r, 1, 9), qq = kb_rng_range(r, 1, 9);
      if (KL * pp * qq <= budget) {
        p = pp;
        q = qq;
        break;
      }
    }
    P->p[i] = p;
    P->q[i] = q;
    KL *= p * q;
  }
  /* big factors should not always come first */
  for (i = P->n - 1; i > 0; i--) {
    int64_t j = kb_rng_range(r, 0, i), tp = P->p[i], tq = P->q[i];
    P->p[i] = P->p[j]; P->q[i] = P->q[j];
    P->p[j] = tp; P->q[j] = tq;
  }
}

static void kb_finish_shape(kb_rng_t *r, kb_prob_t *P)
{
  int64_t i, rows, cols;
  P->K = 1;
  P->L = 1;
  for (i = 0; i < P->n; i++) {
    P->K *= P->p[i];
    P->L *= P->q[i];
  }
  kb_oracle_x_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->transX, P->m, P->K, &rows, &cols);
  P->ldx = kb_max64(1, rows) + kb_pad(r);
  kb_oracle_y_dims((kronblasSideMode_t)P->side, P->m, P->L, &rows, &cols);
  P->ldy = kb_max64(1, rows) + kb_pad(r);
  for (i = 0; i < P->n; i++) {
    kb_oracle_f_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->transF, P->p[i], P->q[i], &rows, &cols);
    P->ldf[i] = kb_max64(1, rows) + kb_pad(r);
  }
}

static int64_t kb_x_extent(const kb_prob_t *P)
{
  int64_t rows, cols;
  kb_oracle_x_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->transX, P->m, P->K, &rows, &cols);
  return kb_oracle_extent(rows, cols, P->ldx);
}

static int64_t kb_y_extent(const kb_prob_t *P)
{
  int64_t rows, cols;
  kb_oracle_y_dims((kronblasSideMode_t)P->side, P->m, P->L, &rows, &cols);
  return kb_oracle_extent(rows, cols, P->ldy);
}

static int64_t kb_f_extent(const kb_prob_t *P, int64_t i)
{
  int64_t rows, cols;
  kb_oracle_f_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->transF, P->p[i], P->q[i], &rows, &cols);
  return kb_oracle_extent(rows, cols, P->ldf[i]);
}

/* Span of a strided operand over the batch (at least one element). */
static int64_t kb_span(int64_t ext, long long stride, int64_t batch)
{
  int64_t b = batch > 1 ? batch : 1;
  return kb_max64(1, ext + (b - 1) * (int64_t)stride);
}

/* Offsets of every operand in the arena, disjoint or overlapping as asked. */
static void kb_layout(kb_rng_t *r, kb_prob_t *P)
{
  int64_t i, at = KB_GUARD, ext, end;
  int64_t sx = kb_span(kb_x_extent(P), P->strideX, P->batch);
  int64_t sy = kb_span(kb_y_extent(P), P->strideY, P->batch);

  P->offX = at;
  at += sx + kb_rng_range(r, 0, 3);
  if (P->overlap == KB_OV_BATCH_X) {
    /* Y_b lands on X_{b+1}: no batch entry overlaps its own X */
    P->offY = P->offX + (int64_t)P->strideX;
    at = kb_max64(at, P->offY + sy + kb_rng_range(r, 0, 3));
  }
  for (i = 0; i < P->n; i++) {
    P->offF[i] = at;
    at += kb_span(kb_f_extent(P, i), P->strideF[i], P->batch) + kb_rng_range(r, 0, 3);
    if (P->overlap == KB_OV_BATCH_F && i == P->ov_factor) {
      /* Y_b lands on F_{j, b+1} */
      P->offY = P->offF[i] + (int64_t)P->strideF[i];
      at = kb_max64(at, P->offY + sy + kb_rng_range(r, 0, 3));
    }
  }
  if (P->overlap != KB_OV_BATCH_X && P->overlap != KB_OV_BATCH_F)
    P->offY = at;
  if (P->overlap == KB_OV_X || P->overlap == KB_OV_F) {
    int64_t base = P->overlap == KB_OV_X ? P->offX : P->offF[P->ov_factor];
    int64_t bext = P->overlap == KB_OV_X ? sx : kb_span(kb_f_extent(P, P->ov_factor), 0, 1);
    /* any start that makes [offY, offY+sy) meet [base, base+bext) */
    if (kb_rng_range(r, 0, 2) == 0)
      P->offY = base;
    else
      P->offY = kb_rng_range(r, kb_max64(KB_GUARD, base - sy + 1), base + bext - 1);
  }
  end = 0;
  ext = P->offX + sx;
  end = kb_max64(end, ext);
  for (i = 0; i < P->n; i++)
    end = kb_max64(end, P->offF[i] + kb_span(kb_f_extent(P, i), P->strideF[i], P->batch));
  end = kb_max64(end, P->offY + sy);
  P->len = end + KB_GUARD;
}

/* ------------------------------------------------------------ running */

typedef struct {
  int64_t problems, failures;
  double worst;
  char first[1600];
} kb_tally_t;

static void kb_fail(kb_tally_t *t, const kb_prob_t *P, const char *what)
{
  char d[900];
  t->failures++;
  if (t->failures > 1)
    return;
  kb_describe(P, d, sizeof d);
  snprintf(t->first, sizeof t->first, "%s: %s", what, d);
}

/* Fills, calls, checks.  The problem's sizes, operation, scalars, batch and
 * overlap must be set; this lays out and runs it. */
static void kb_run(kronblasHandle_t h, kb_rng_t *r, kb_prob_t *P, kb_tally_t *t)
{
  const kronblasDataType_t type = P->type;
  const size_t esz = kb_oracle_type_size(type);
  const int cplx = kb_oracle_type_is_complex(type);
  unsigned char *arena = NULL, *snap = NULL, *mask = NULL;
  long double *ref = NULL, *mag = NULL;
  const void *Fp[KB_MAXF], *Fs[KB_MAXF];
  unsigned char alpha[16], beta[16];
  int64_t i, b, e, rows, cols, sumlen = 0;
  int64_t nb = kb_variant_is_batched(P->variant) ? P->batch : 1;
  int beta_zero;
  kronblasStatus_t st;
  kb_call_t c;
  char what[600];

  t->problems++;
  memset(alpha, 0, sizeof alpha);
  memset(beta, 0, sizeof beta);
  kb_set_scalar(type, alpha, P->alpha_kind, r, P->alpha);
  kb_set_scalar(type, beta, P->beta_kind, r, P->beta);
  beta_zero = P->beta[0] == 0.0 && P->beta[1] == 0.0;
  kb_layout(r, P);

  arena = malloc((size_t)P->len * esz);
  snap = malloc((size_t)P->len * esz);
  mask = calloc((size_t)P->len, 1);
  ref = malloc((size_t)kb_max64(1, P->m * P->L) * (cplx ? 2 : 1) * sizeof *ref);
  mag = malloc((size_t)kb_max64(1, P->m * P->L) * sizeof *mag);
  if (arena == NULL || snap == NULL || mask == NULL || ref == NULL || mag == NULL) {
    kb_fail(t, P, "test out of memory");
    goto out;
  }

  /* which positions are elements of what (1 X, 2 F, 4 Y) */
  for (b = 0; b < kb_max64(nb, 1); b++) {
    kb_oracle_x_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->transX, P->m, P->K, &rows, &cols);
    kb_mark(mask, P->offX + b * P->strideX, rows, cols, P->ldx, 1);
    for (i = 0; i < P->n; i++) {
      kb_oracle_f_dims((kronblasSideMode_t)P->side, (kronblasOperation_t)P->transF, P->p[i], P->q[i], &rows, &cols);
      kb_mark(mask, P->offF[i] + b * P->strideF[i], rows, cols, P->ldf[i], 2);
    }
    if (b < nb) {
      kb_oracle_y_dims((kronblasSideMode_t)P->side, P->m, P->L, &rows, &cols);
      kb_mark(mask, P->offY + b * P->strideY, rows, cols, P->ldy, 4);
    }
  }
  /* inputs random; Y random when beta reads it, else NaN (it must not
   * propagate); every other position NaN, so reading padding shows */
  for (e = 0; e < P->len; e++) {
    if ((mask[e] & 3) || ((mask[e] & 4) && !beta_zero))
      kb_rng_fill(r, type, arena + e * esz, 1);
    else
      kb_oracle_poison(type, arena + e * esz, 1);
  }
  memcpy(snap, arena, (size_t)P->len * esz);

  for (i = 0; i < P->n; i++) {
    Fp[i] = arena + P->offF[i] * esz;
    sumlen += P->p[i] + 1;
  }
  memset(&c, 0, sizeof c);
  c.type = type;
  c.variant = P->variant;
  c.side = P->side;
  c.transX = P->transX;
  c.transF = P->transF;
  c.m = P->m;
  c.nfactors = P->n;
  c.p = P->p;
  c.q = P->q;
  c.ldf = P->ldf;
  c.alpha = alpha;
  c.beta = beta;
  c.X = arena + P->offX * esz;
  c.ldx = P->ldx;
  c.strideX = P->strideX;
  c.F = Fp;
  c.strideF = P->strideF;
  c.Y = arena + P->offY * esz;
  c.ldy = P->ldy;
  c.strideY = P->strideY;
  c.batch = P->batch;
  if (kronblasSetNumThreads(h, P->nthreads) != KRONBLAS_STATUS_SUCCESS) {
    kb_fail(t, P, "kronblasSetNumThreads failed");
    goto out;
  }
  st = kb_call(h, &c);
  if (st != KRONBLAS_STATUS_SUCCESS) {
    snprintf(what, sizeof what, "status %s", kronblasGetStatusName(st));
    kb_fail(t, P, what);
    goto out;
  }

  /* every element of every batch entry against the oracle */
  if (P->m > 0 && P->L > 0) {
    for (b = 0; b < nb; b++) {
      int64_t nbad;
      double worst = 0.0;
      const unsigned char *Xs = snap + (P->offX + b * P->strideX) * esz;
      const unsigned char *Ys = snap + (P->offY + b * P->strideY) * esz;
      for (i = 0; i < P->n; i++)
        Fs[i] = snap + (P->offF[i] + b * P->strideF[i]) * esz;
      if (kb_oracle_gekmm(type, (kronblasSideMode_t)P->side, (kronblasOperation_t)P->transX,
                          (kronblasOperation_t)P->transF, P->m, P->n, P->p, P->q, alpha, Xs, P->ldx,
                          Fs, P->ldf, beta, Ys, P->ldy, ref, mag) != 0) {
        kb_fail(t, P, "oracle refused the problem");
        goto out;
      }
      nbad = kb_oracle_compare(type, (kronblasSideMode_t)P->side, P->m, P->L,
                               arena + (P->offY + b * P->strideY) * esz, P->ldy, ref, mag, sumlen,
                               cplx ? 4.0 : 2.0, &worst);
      if (worst > t->worst && isfinite(worst))
        t->worst = worst;
      if (nbad != 0) {
        const kb_oracle_bad_t *bad = kb_oracle_last_bad();
        snprintf(what, sizeof what,
                 "%" PRId64 " wrong elements in batch entry %" PRId64 ", first (r=%" PRId64 ", l=%" PRId64
                 ") got (%.9g,%.9g) want (%.9g,%.9g) |terms| %.3g",
                 nbad, b, bad->r, bad->l, bad->got_re, bad->got_im, bad->want_re, bad->want_im, bad->mag);
        kb_fail(t, P, what);
        goto out;
      }
    }
  }
  /* nothing else in the arena may change: inputs, padding, guards; all of
   * Y too when the call was a quick return */
  for (e = 0; e < P->len; e++) {
    int written = (mask[e] & 4) && P->m > 0 && P->L > 0;
    if (!written && memcmp(arena + e * esz, snap + e * esz, esz) != 0) {
      snprintf(what, sizeof what, "element %" PRId64 " of the arena (%s) changed", e,
               mask[e] & 4 ? "Y, quick return" : mask[e] & 3 ? "an input" : "padding or guard");
      kb_fail(t, P, what);
      goto out;
    }
  }
out:
  free(arena);
  free(snap);
  free(mask);
  free(ref);
  free(mag);
}

static void kb_report(const kb_tally_t *t, const char *name)
{
  tap_ok(t->failures == 0 && t->problems > 0,
         "%s: %" PRId64 " problems, %" PRId64 " failed, worst error %.3g of the bound",
         name, t->problems, t->failures, t->worst);
  if (t->failures)
    tap_diag("first failure: %s", t->first);
}

/* The parts of a random problem every kind shares. */
static void kb_gen_common(kb_rng_t *r, kb_prob_t *P, kronblasDataType_t type, int side, int combo)
{
  int64_t budget;
  memset(P, 0, sizeof *P);
  P->type = type;
  P->side = side;
  P->transX = combo / 3;
  P->transF = combo % 3;
  /* mostly small explicit products, some bigger ones with few vectors */
  budget = kb_rng_range(r, 0, 7) == 0 ? 16384 : 1024;
  kb_gen_sizes(r, P, budget);
  switch (kb_rng_range(r, 0, 19)) {
  case 0: P->m = 0; break;
  case 1: case 2: case 3: case 4: P->m = 1; break;
  default: P->m = kb_rng_range(r, 2, budget > 1024 ? 3 : 9); break;
  }
  /* K = 0 (Y <- beta Y) and L = 0 (quick return) now and then */
  if (kb_rng_range(r, 0, 29) == 0)
    P->p[kb_rng_range(r, 0, P->n - 1)] = 0;
  if (kb_rng_range(r, 0, 39) == 0)
    P->q[kb_rng_range(r, 0, P->n - 1)] = 0;
  P->alpha_kind = (int)kb_rng_range(r, 0, KB_NSC - 1);
  P->beta_kind = (int)kb_rng_range(r, 0, KB_NSC - 1);
  P->nthreads = (int)kb_rng_range(r, 0, 2);
  P->batch = 1;
  kb_finish_shape(r, P);
}

/* A stride for a read-only operand: shared, overlapping or apart. */
static long long kb_in_stride(kb_rng_t *r, int64_t ext)
{
  switch (kb_rng_range(r, 0, 3)) {
  case 0: return 0;
  case 1: return kb_rng_range(r, 1, kb_max64(1, ext));
  default: return ext + kb_rng_range(r, 0, 3);
  }
}

/* ------------------------------------------------------ oracle checks */

/* The oracle itself against hand-computed answers, and compare against a
 * planted error: a wrong oracle would make every other line meaningless. */
static void kb_oracle_selftest(kb_rng_t *r)
{
  long double ref[8], mag[8];
  int ok;
  {
    /* t-smoke's problem: (F0 (x) F1) x = [95 207] */
    const double f0[] = { 1, 3, 2, 4 }, f1[] = { 5, 6 }, X[] = { 1, 2, 3, 4 }, one = 1, zero = 0;
    const void *F[] = { f0, f1 };
    const int64_t p[] = { 2, 2 }, q[] = { 2, 1 }, ldf[] = { 2, 1 };
    ok = kb_oracle_gekmm(KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q,
                         &one, X, 4, F, ldf, &zero, NULL, 2, ref, mag) == 0 &&
         ref[0] == 95.0L && ref[1] == 207.0L && mag[0] == 95.0L && mag[1] == 207.0L;
    tap_ok(ok, "oracle: LEFT N N hand example (95, 207)");
  }
  {
    /* conj(1+2i) * conj(3+4i) = -5 - 10i; beta*Y with beta = i, Y = 1: + i */
    const double f[] = { 1, 2 }, X[] = { 3, 4 }, one[] = { 1, 0 }, bi[] = { 0, 1 }, Y[] = { 1, 0 };
    const void *F[] = { f };
    const int64_t p[] = { 1 }, q[] = { 1 }, ldf[] = { 1 };
    ok = kb_oracle_gekmm(KRONBLAS_C_64F, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_C, KRONBLAS_OP_C, 1, 1, p, q,
                         one, X, 1, F, ldf, bi, Y, 1, ref, mag) == 0 &&
         ref[0] == -5.0L && ref[1] == -9.0L;
    tap_ok(ok, "oracle: conjugates and complex beta (-5-9i, got %g%+gi)", (double)ref[0], (double)ref[1]);
  }
  {
    /* RIGHT: Y (2x1... m=2) = X (2x2, transposed storage) * (F0 (x) F1),
     * F0 = [1 2] (p=1, q=2), F1 = [3; 4] (p=2, q=1) stored T as [3 4].
     * op(X) = [1 2; 3 4]; op(X) * (F0 (x) F1) where F0 (x) F1 = [3 6; 4 8]
     * row 0: [1*3+2*4, 1*6+2*8] = [11 22]; row 1: [3*3+4*4, 3*6+4*8] = [25 50] */
    const double f0[] = { 1, 2 }, f1[] = { 3, 4 }, X[] = { 1, 2, 3, 4 }, one = 1, zero = 0;
    const void *F[] = { f0, f1 };
    const int64_t p[] = { 1, 2 }, q[] = { 2, 1 }, ldf[] = { 1, 1 };
    /* transF = T: F0 stored q x p = 2 x 1 (ld 2), F1 stored 1 x 2 (ld 1) */
    const int64_t ldfT[] = { 2, 1 };
    ok = kb_oracle_gekmm(KRONBLAS_R_64F, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_T, KRONBLAS_OP_N, 2, 2, p, q,
                         &one, X, 2, F, ldf, &zero, NULL, 2, ref, mag) == 0 &&
         ref[0] == 11.0L && ref[1] == 22.0L && ref[2] == 25.0L && ref[3] == 50.0L;
    ok = ok && kb_oracle_gekmm(KRONBLAS_R_64F, KRONBLAS_SIDE_RIGHT, KRONBLAS_OP_T, KRONBLAS_OP_T, 2, 2, p, q,
                               &one, X, 2, F, ldfT, &zero, NULL, 2, ref, mag) == 0 &&
         ref[0] == 11.0L && ref[1] == 22.0L && ref[2] == 25.0L && ref[3] == 50.0L;
    tap_ok(ok, "oracle: RIGHT with transposed X and factors (11 22; 25 50)");
  }
  {
    /* compare must see one element off by 8 units of the bound, and accept
     * the reference itself rounded to the type */
    double Y[6];
    long double rf[6], mg[6];
    double worst;
    int64_t i, nbad_exact, nbad_planted, nbad_nan;
    for (i = 0; i < 6; i++) {
      rf[i] = kb_rng_uniform(r);
      mg[i] = fabsl(rf[i]) + 1.0L;
      Y[i] = (double)rf[i];
    }
    nbad_exact = kb_oracle_compare(KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, 2, 3, Y, 3, rf, mg, 4, 2.0, &worst);
    Y[4] = (double)(rf[4] + 8.0L * 2.0L * 6.0L * 0x1.0p-53L * mg[4]);
    nbad_planted = kb_oracle_compare(KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, 2, 3, Y, 3, rf, mg, 4, 2.0, &worst);
    ok = nbad_planted == 1 && kb_oracle_last_bad()->r == 1 && kb_oracle_last_bad()->l == 1;
    Y[4] = NAN;
    nbad_nan = kb_oracle_compare(KRONBLAS_R_64F, KRONBLAS_SIDE_LEFT, 2, 3, Y, 3, rf, mg, 4, 2.0, &worst);
    tap_ok(nbad_exact == 0 && ok && nbad_nan == 1,
           "oracle: compare accepts the rounded reference (%" PRId64 " bad), flags a planted error (%" PRId64
           ") and a NaN (%" PRId64 ")", nbad_exact, nbad_planted, nbad_nan);
  }
}

/* ---------------------------------------------------------------- main */

int main(void)
{
  static const kronblasDataType_t types[4] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };
  const uint64_t seed = kb_test_seed();
  kronblasHandle_t h = NULL;
  kb_rng_t r;
  int ti, side, k;
  char name[200];

  /* the thread counts compared here must run as asked, however small the
   * call (lib/env.c, KRONBLAS_CPU_SMALL_WORK); before the first call */
  setenv("KRONBLAS_CPU_SMALL_WORK", "0", 1);
  tap_plan(4 + 4 * 2 * 3 + 4 + 1);
  tap_diag("seed %" PRIu64 " (KRONBLAS_TEST_SEED=%" PRIu64 " reproduces this run)", seed, seed);
  kb_rng_seed(&r, seed);
  kb_oracle_selftest(&r);

  if (kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS) {
    tap_diag("kronblasCreateWithBackend(CPU) failed");
    return tap_done() | 1;
  }

  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = types[ti];
    for (side = 0; side < 2; side++) {
      const char *sname = side == KRONBLAS_SIDE_LEFT ? "LEFT" : "RIGHT";
      kb_tally_t t;
      kb_prob_t P;

      /* plain and _64 entry points, every transpose combination */
      memset(&t, 0, sizeof t);
      for (k = 0; k < 54; k++) {
        kb_gen_common(&r, &P, type, side, k % 9);
        P.variant = (int)kb_rng_range(&r, KB_V_GEKMM, KB_V_GEKMM_64);
        kb_run(h, &r, &P, &t);
      }
      snprintf(name, sizeof name, "%s %s gekmm and gekmm_64, all transposes, padded ld, alpha/beta in {0,1,-1,rand}",
               kb_oracle_type_name(type), sname);
      kb_report(&t, name);

      /* strided batches, some operands shared (stride 0) or overlapping */
      memset(&t, 0, sizeof t);
      for (k = 0; k < 36; k++) {
        int64_t i;
        kb_gen_common(&r, &P, type, side, k % 9);
        P.variant = (int)kb_rng_range(&r, KB_V_SB, KB_V_SB_64);
        P.batch = kb_rng_range(&r, 0, 9) == 0 ? 0 : kb_rng_range(&r, 1, 4);
        P.strideX = kb_in_stride(&r, kb_x_extent(&P));
        for (i = 0; i < P.n; i++)
          P.strideF[i] = kb_in_stride(&r, kb_f_extent(&P, i));
        /* Y entries must not overlap each other: that would be a race */
        P.strideY = kb_max64(1, kb_y_extent(&P)) + kb_rng_range(&r, 0, 3);
        kb_run(h, &r, &P, &t);
      }
      snprintf(name, sizeof name, "%s %s gekmmStridedBatched(_64), batch 0..4, strides 0, overlapping and apart",
               kb_oracle_type_name(type), sname);
      kb_report(&t, name);

      /* Y overlapping X or one factor: same result as without overlap */
      memset(&t, 0, sizeof t);
      for (k = 0; k < 36; k++) {
        kb_gen_common(&r, &P, type, side, k % 9);
        if (P.m == 0)
          P.m = 1;
        P.p[0] = P.p[0] ? P.p[0] : 1;
        P.q[0] = P.q[0] ? P.q[0] : 1;
        kb_finish_shape(&r, &P);
        if (P.K == 0 || P.L == 0) {   /* nothing would be read: regenerate */
          k--;
          continue;
        }
        P.variant = (int)kb_rng_range(&r, KB_V_GEKMM, KB_V_SB_64);
        P.overlap = k % 2 ? KB_OV_F : KB_OV_X;
        P.ov_factor = (int)kb_rng_range(&r, 0, P.n - 1);
        kb_run(h, &r, &P, &t);
      }
      snprintf(name, sizeof name, "%s %s Y overlapping X or a factor gives the non-overlapping result",
               kb_oracle_type_name(type), sname);
      kb_report(&t, name);
    }
  }

  /* A batch whose Y entries land on other entries' X: the overlap is of the
   * operands as a whole, not of any one entry. */
  for (ti = 0; ti < 4; ti++) {
    kb_tally_t t;
    kb_prob_t P;
    memset(&t, 0, sizeof t);
    for (k = 0; k < 12; k++) {
      int64_t i;
      kb_gen_common(&r, &P, types[ti], (int)kb_rng_range(&r, 0, 1), k % 9);
      P.m = kb_rng_range(&r, 1, 4);
      for (i = 0; i < P.n; i++) {
        P.p[i] = P.p[i] ? P.p[i] : 1;
        P.q[i] = P.q[i] ? P.q[i] : 1;
      }
      kb_finish_shape(&r, &P);
      P.variant = (int)kb_rng_range(&r, KB_V_SB, KB_V_SB_64);
      P.batch = kb_rng_range(&r, 2, 3);
      if (k % 2 == 0) {
        P.strideX = kb_max64(kb_x_extent(&P), kb_y_extent(&P)) + kb_rng_range(&r, 0, 2);
        P.strideY = P.strideX;
        P.overlap = KB_OV_BATCH_X;
      } else {
        P.ov_factor = (int)kb_rng_range(&r, 0, P.n - 1);
        for (i = 0; i < P.n; i++)
          P.strideF[i] = kb_in_stride(&r, kb_f_extent(&P, i));
        P.strideX = kb_in_stride(&r, kb_x_extent(&P));
        P.strideF[P.ov_factor] = kb_max64(kb_f_extent(&P, P.ov_factor), kb_y_extent(&P)) + kb_rng_range(&r, 0, 2);
        P.strideY = P.strideF[P.ov_factor];
        P.overlap = KB_OV_BATCH_F;
      }
      kb_run(h, &r, &P, &t);
    }
    snprintf(name, sizeof name, "%s batched Y entries overlapping other entries' X or a factor give the non-overlapping result",
             kb_oracle_type_name(types[ti]));
    kb_report(&t, name);
  }

  /* the same seed gives the same stream: a printed seed reproduces a run */
  {
    kb_rng_t a, b;
    int same = 1, differ = 0;
    kb_rng_seed(&a, seed);
    kb_rng_seed(&b, seed);
    for (k = 0; k < 100; k++)
      same &= kb_rng_next(&a) == kb_rng_next(&b);
    kb_rng_seed(&b, seed + 1);
    for (k = 0; k < 100; k++)
      differ |= kb_rng_next(&a) != kb_rng_next(&b);
    tap_ok(same && differ, "generator: a seed reproduces its stream, another seed does not");
  }

  kronblasDestroy(h);
  return tap_done();
}
