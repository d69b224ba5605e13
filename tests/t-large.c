/* t-large.c - shapes too big for the explicit product (64_8x8^4 and
 * friends), checked with the oracle's randomised identity, and problems with
 * many factors (64 and more), checked with the explicit product.
 *
 * Each identity check is shown to fail on a planted error in Y first, so
 * that a pass means something.  The seed is printed; set KRONBLAS_TEST_SEED
 * to reproduce. */
#include <kronblas.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "kb_oracle.h"
#include "kb_testcall.h"

#define KB_MAXF 80

typedef struct {
  const char *name;
  int64_t m, n, p[16], q[16];
} kb_shape_t;

static const kb_shape_t kb_shapes[] = {
  { "64_8x8^4", 64, 4, { 8, 8, 8, 8 }, { 8, 8, 8, 8 } },
  { "131_5x7,9x3,4x8,6x5", 131, 4, { 5, 9, 4, 6 }, { 7, 3, 8, 5 } },
  { "3_2x2^12", 3, 12, { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 }, { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 } },
};

static const kronblasDataType_t kb_types[4] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };

static const char *kb_op_name(int op)
{
  return op == KRONBLAS_OP_N ? "N" : op == KRONBLAS_OP_T ? "T" : "C";
}

/* Adds v to the real part of element i. */
static void kb_bump(kronblasDataType_t t, void *Y, int64_t i, double v)
{
  if (t == KRONBLAS_R_32F || t == KRONBLAS_C_32F)
    ((float *)Y)[kb_oracle_type_is_complex(t) ? 2 * i : i] += (float)v;
  else
    ((double *)Y)[kb_oracle_type_is_complex(t) ? 2 * i : i] += v;
}

/* Runs one problem with alpha = 1, beta = 0 and random operands. */
static kronblasStatus_t kb_run_one(kronblasHandle_t h, kb_rng_t *r, kronblasDataType_t type, int side,
    int tX, int tF, int64_t m, int64_t n, const int64_t *p, const int64_t *q,
    void **Xo, int64_t *ldxo, void **Fo, int64_t *ldf, void **Yo, int64_t *ldyo)
{
  const size_t esz = kb_oracle_type_size(type);
  int64_t i, K = 1, L = 1, rows, cols, ext;
  unsigned char one[16], zero[16];
  kb_call_t c;

  memset(one, 0, sizeof one);
  memset(zero, 0, sizeof zero);
  if (type == KRONBLAS_R_32F || type == KRONBLAS_C_32F)
    *(float *)one = 1.0f;
  else
    *(double *)one = 1.0;
  for (i = 0; i < n; i++) {
    K *= p[i];
    L *= q[i];
  }
  kb_oracle_x_dims((kronblasSideMode_t)side, (kronblasOperation_t)tX, m, K, &rows, &cols);
  *ldxo = rows + kb_rng_range(r, 0, 2);
  ext = kb_oracle_extent(rows, cols, *ldxo);
  *Xo = malloc((size_t)ext * esz);
  kb_rng_fill(r, type, *Xo, ext);
  for (i = 0; i < n; i++) {
    kb_oracle_f_dims((kronblasSideMode_t)side, (kronblasOperation_t)tF, p[i], q[i], &rows, &cols);
    ldf[i] = rows + kb_rng_range(r, 0, 2);
    ext = kb_oracle_extent(rows, cols, ldf[i]);
    Fo[i] = malloc((size_t)ext * esz);
    kb_rng_fill(r, type, Fo[i], ext);
  }
  kb_oracle_y_dims((kronblasSideMode_t)side, m, L, &rows, &cols);
  *ldyo = rows + kb_rng_range(r, 0, 2);
  ext = kb_oracle_extent(rows, cols, *ldyo);
  *Yo = malloc((size_t)ext * esz);
  kb_oracle_poison(type, *Yo, ext);

  memset(&c, 0, sizeof c);
  c.type = type;
  c.variant = (int)kb_rng_range(r, 0, KB_NVARIANTS - 1);
  c.side = side;
  c.transX = tX;
  c.transF = tF;
  c.m = m;
  c.nfactors = n;
  c.p = p;
  c.q = q;
  c.ldf = ldf;
  c.alpha = one;
  c.beta = zero;
  c.X = *Xo;
  c.ldx = *ldxo;
  c.F = (const void *const *)Fo;
  c.Y = *Yo;
  c.ldy = *ldyo;
  c.batch = 1;
  {
    static const long long zs[KB_MAXF];
    c.strideF = zs;
  }
  return kb_call(h, &c);
}

int main(void)
{
  const uint64_t seed = kb_test_seed();
  const int nshapes = (int)(sizeof kb_shapes / sizeof kb_shapes[0]);
  kronblasHandle_t h = NULL;
  kb_rng_t r;
  int s, ti, side;

  tap_plan(nshapes * 4 + 2 * 4);
  tap_diag("seed %" PRIu64 " (KRONBLAS_TEST_SEED=%" PRIu64 " reproduces this run)", seed, seed);
  kb_rng_seed(&r, seed);
  if (kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS) {
    tap_diag("kronblasCreateWithBackend(CPU) failed");
    return 1;
  }

  /* big shapes: identity check, which must also catch a planted error */
  for (s = 0; s < nshapes; s++) {
    const kb_shape_t *S = &kb_shapes[s];
    for (ti = 0; ti < 4; ti++) {
      const kronblasDataType_t type = kb_types[ti];
      int ok = 1;
      char first[300] = "";
      for (side = 0; side < 2; side++) {
        const int tX = (int)kb_rng_range(&r, 0, 2), tF = (int)kb_rng_range(&r, 0, 2);
        void *X = NULL, *F[16] = { NULL }, *Y = NULL;
        int64_t ldx, ldf[16], ldy, i;
        double rel = 0.0, rel_bad = 0.0;
        int rc, rc_bad;
        kronblasStatus_t st = kb_run_one(h, &r, type, side, tX, tF, S->m, S->n, S->p, S->q,
                                         &X, &ldx, F, ldf, &Y, &ldy);
        const uint64_t wseed = kb_rng_next(&r);
        rc = kb_identity_check(type, (kronblasSideMode_t)side, (kronblasOperation_t)tX, (kronblasOperation_t)tF,
                               S->m, S->n, S->p, S->q, X, ldx, (const void *const *)F, ldf, Y, ldy, wseed, &rel);
        /* a planted error at a random element must be seen */
        {
          int64_t L = 1, rr = kb_rng_range(&r, 0, S->m - 1), ll;
          for (i = 0; i < S->n; i++)
            L *= S->q[i];
          ll = kb_rng_range(&r, 0, L - 1);
          kb_bump(type, Y, side == KRONBLAS_SIDE_LEFT ? ll + rr * ldy : rr + ll * ldy, 1e4);
          rc_bad = kb_identity_check(type, (kronblasSideMode_t)side, (kronblasOperation_t)tX,
                                     (kronblasOperation_t)tF, S->m, S->n, S->p, S->q, X, ldx,
                                     (const void *const *)F, ldf, Y, ldy, wseed, &rel_bad);
        }
        if (st != KRONBLAS_STATUS_SUCCESS || rc != 0 || rc_bad != 1) {
          if (ok)
            snprintf(first, sizeof first, "%s X=%s F=%s: status %s, identity rc %d relerr %.3g, "
                     "with planted error rc %d relerr %.3g",
                     side == KRONBLAS_SIDE_LEFT ? "LEFT" : "RIGHT", kb_op_name(tX), kb_op_name(tF),
                     kronblasGetStatusName(st), rc, rel, rc_bad, rel_bad);
          ok = 0;
        }
        free(X);
        free(Y);
        for (i = 0; i < S->n; i++)
          free(F[i]);
      }
      tap_ok(ok, "%s %s both sides: randomised identity holds and catches a planted error",
             kb_oracle_type_name(type), S->name);
      if (!ok)
        tap_diag("%s", first);
    }
  }

  /* many factors: 64 (the contract's minimum) and 70, sizes 1 and 2 */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_types[ti];
    int nn;
    for (nn = 64; nn <= 70; nn += 6) {
      int64_t p[KB_MAXF], q[KB_MAXF], ldf[KB_MAXF], ldx, ldy, i, K = 1, L = 1, m = 3, nbad = -1;
      void *X = NULL, *F[KB_MAXF] = { NULL }, *Y = NULL;
      long double *ref = NULL, *mag = NULL;
      const int side = (int)kb_rng_range(&r, 0, 1);
      const int tX = (int)kb_rng_range(&r, 0, 2), tF = (int)kb_rng_range(&r, 0, 2);
      unsigned char one[16], zero[16];
      kronblasStatus_t st;
      int64_t sumlen = 0;
      double worst = 0.0;

      for (i = 0; i < nn; i++) {
        p[i] = (kb_rng_range(&r, 0, 9) == 0 && K < 64) ? 2 : 1;
        q[i] = (kb_rng_range(&r, 0, 9) == 0 && L < 64) ? 2 : 1;
        K *= p[i];
        L *= q[i];
        sumlen += p[i] + 1;
      }
      st = kb_run_one(h, &r, type, side, tX, tF, m, nn, p, q, &X, &ldx, F, ldf, &Y, &ldy);
      memset(one, 0, sizeof one);
      memset(zero, 0, sizeof zero);
      if (type == KRONBLAS_R_32F || type == KRONBLAS_C_32F)
        *(float *)one = 1.0f;
      else
        *(double *)one = 1.0;
      ref = malloc((size_t)(m * L * 2) * sizeof *ref);
      mag = malloc((size_t)(m * L) * sizeof *mag);
      if (st == KRONBLAS_STATUS_SUCCESS &&
          kb_oracle_gekmm(type, (kronblasSideMode_t)side, (kronblasOperation_t)tX, (kronblasOperation_t)tF,
                          m, nn, p, q, one, X, ldx, (const void *const *)F, ldf, zero, NULL, ldy, ref, mag) == 0)
        nbad = kb_oracle_compare(type, (kronblasSideMode_t)side, m, L, Y, ldy, ref, mag, sumlen,
                                 kb_oracle_type_is_complex(type) ? 4.0 : 2.0, &worst);
      tap_ok(st == KRONBLAS_STATUS_SUCCESS && nbad == 0,
             "%s %d factors (K=%" PRId64 ", L=%" PRId64 ") %s X=%s F=%s: status %s, %" PRId64 " wrong elements",
             kb_oracle_type_name(type), nn, K, L, side == KRONBLAS_SIDE_LEFT ? "LEFT" : "RIGHT",
             kb_op_name(tX), kb_op_name(tF), kronblasGetStatusName(st), nbad);
      free(X);
      free(Y);
      free(ref);
      free(mag);
      for (i = 0; i < nn; i++)
        free(F[i]);
    }
  }

  kronblasDestroy(h);
  return tap_done();
}
