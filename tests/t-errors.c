/* t-errors.c - every bad-argument class of the contract gives INVALID_VALUE
 * and leaves every operand bit-identical, on every one of the 16 entry
 * points; the quick returns (m = 0, a q[i] = 0, batch 0) read and write
 * nothing, even through NULL pointers; K = 0 and alpha = 0 give Y <- beta Y
 * without reading X or the factors.
 *
 * One TAP line per class; the first failure of a class is described in a
 * diagnostic.  Operands are random (seed printed), so "untouched" is
 * checked against values that a wrong write would change. */
#include <kronblas.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "kb_oracle.h"
#include "kb_testcall.h"

static const kronblasDataType_t kb_types[4] = { KRONBLAS_R_32F, KRONBLAS_R_64F, KRONBLAS_C_32F, KRONBLAS_C_64F };

/* A valid problem with real buffers: m = 3, 2 factors 2x3 and 3x2 (batched
 * entry points: batch 2, X and F1 strided, F0 shared). */
typedef struct {
  kronblasDataType_t type;
  int64_t p[2], q[2], ldf[2];
  long long strideF[2];
  void *X, *F[2], *Y, *Ysnap, *Xsnap, *Fsnap[2];
  int64_t nX, nF[2], nY;              /* elements allocated */
  unsigned char alpha[16], beta[16];
  kb_call_t c;
} kb_case_t;

static int64_t kb_max64(int64_t a, int64_t b)
{
  return a > b ? a : b;
}

static void *kb_dup(const void *x, size_t bytes)
{
  void *d = malloc(bytes ? bytes : 1);
  if (d == NULL)
    abort();
  memcpy(d, x, bytes);
  return d;
}

static void kb_case_init(kb_case_t *cs, kb_rng_t *r, kronblasDataType_t type, int variant,
                         int side, int tX, int tF)
{
  const size_t esz = kb_oracle_type_size(type);
  const int64_t m = 3, batch = kb_variant_is_batched(variant) ? 2 : 1;
  int64_t i, rows, cols, ext;

  memset(cs, 0, sizeof *cs);
  cs->type = type;
  cs->p[0] = 2; cs->q[0] = 3;
  cs->p[1] = 3; cs->q[1] = 2;
  cs->c.type = type;
  cs->c.variant = variant;
  cs->c.side = side;
  cs->c.transX = tX;
  cs->c.transF = tF;
  cs->c.m = m;
  cs->c.nfactors = 2;
  cs->c.p = cs->p;
  cs->c.q = cs->q;
  cs->c.ldf = cs->ldf;
  cs->c.batch = batch;

  kb_oracle_x_dims((kronblasSideMode_t)side, (kronblasOperation_t)tX, m, 6, &rows, &cols);
  cs->c.ldx = rows + 1;
  ext = kb_oracle_extent(rows, cols, cs->c.ldx);
  cs->c.strideX = batch > 1 ? ext : 0;
  cs->nX = ext * batch;
  for (i = 0; i < 2; i++) {
    kb_oracle_f_dims((kronblasSideMode_t)side, (kronblasOperation_t)tF, cs->p[i], cs->q[i], &rows, &cols);
    cs->ldf[i] = rows + 1;
    ext = kb_oracle_extent(rows, cols, cs->ldf[i]);
    cs->strideF[i] = (batch > 1 && i == 1) ? ext : 0;
    cs->nF[i] = i == 1 ? ext * batch : ext;
  }
  kb_oracle_y_dims((kronblasSideMode_t)side, m, 6, &rows, &cols);
  cs->c.ldy = rows + 2;
  ext = kb_oracle_extent(rows, cols, cs->c.ldy);
  cs->c.strideY = batch > 1 ? ext + 1 : 0;
  cs->nY = ext + (batch - 1) * (ext + 1) + 3;   /* a few past the end too */

  cs->X = malloc((size_t)cs->nX * esz);
  cs->Y = malloc((size_t)cs->nY * esz);
  for (i = 0; i < 2; i++)
    cs->F[i] = malloc((size_t)cs->nF[i] * esz);
  if (cs->X == NULL || cs->Y == NULL || cs->F[0] == NULL || cs->F[1] == NULL)
    abort();
  kb_rng_fill(r, type, cs->X, cs->nX);
  kb_rng_fill(r, type, cs->Y, cs->nY);
  for (i = 0; i < 2; i++)
    kb_rng_fill(r, type, cs->F[i], cs->nF[i]);
  kb_rng_fill(r, type, cs->alpha, 1);
  kb_rng_fill(r, type, cs->beta, 1);
  cs->Ysnap = kb_dup(cs->Y, (size_t)cs->nY * esz);
  cs->Xsnap = kb_dup(cs->X, (size_t)cs->nX * esz);
  for (i = 0; i < 2; i++)
    cs->Fsnap[i] = kb_dup(cs->F[i], (size_t)cs->nF[i] * esz);

  cs->c.alpha = cs->alpha;
  cs->c.beta = cs->beta;
  cs->c.X = cs->X;
  cs->c.F = (const void *const *)cs->F;
  cs->c.strideF = cs->strideF;
  cs->c.Y = cs->Y;
}

static void kb_case_free(kb_case_t *cs)
{
  int i;
  free(cs->X);
  free(cs->Y);
  free(cs->Xsnap);
  free(cs->Ysnap);
  for (i = 0; i < 2; i++) {
    free(cs->F[i]);
    free(cs->Fsnap[i]);
  }
}

/* 1 if no operand changed. */
static int kb_case_untouched(const kb_case_t *cs)
{
  const size_t esz = kb_oracle_type_size(cs->type);
  return memcmp(cs->Y, cs->Ysnap, (size_t)cs->nY * esz) == 0 &&
         memcmp(cs->X, cs->Xsnap, (size_t)cs->nX * esz) == 0 &&
         memcmp(cs->F[0], cs->Fsnap[0], (size_t)cs->nF[0] * esz) == 0 &&
         memcmp(cs->F[1], cs->Fsnap[1], (size_t)cs->nF[1] * esz) == 0;
}

/* -------------------------------------------------------------- tally */

typedef struct {
  int64_t calls, failures;
  char first[600];
} kb_tally_t;

static const char *kb_op_name(int op)
{
  return op == KRONBLAS_OP_N ? "N" : op == KRONBLAS_OP_T ? "T" : op == KRONBLAS_OP_C ? "C" : "bad";
}

static void kb_fail(kb_tally_t *t, const kb_call_t *c, const char *what)
{
  if (t->failures++ == 0)
    snprintf(t->first, sizeof t->first, "%s%s side=%d X=%s F=%s m=%" PRId64 " n=%" PRId64 ": %s",
             kb_oracle_type_name(c->type), kb_variant_name[c->variant], c->side,
             kb_op_name(c->transX), kb_op_name(c->transF), c->m, c->nfactors, what);
}

static void kb_report(const kb_tally_t *t, const char *name)
{
  tap_ok(t->failures == 0 && t->calls > 0, "%s (%" PRId64 " calls, %" PRId64 " wrong)", name, t->calls, t->failures);
  if (t->failures)
    tap_diag("first: %s", t->first);
}

/* Calls c, wants st and every operand of cs untouched. */
static void kb_expect(kronblasHandle_t h, kb_tally_t *t, const kb_case_t *cs, const kb_call_t *c,
                      kronblasStatus_t want, const char *label)
{
  kronblasStatus_t st = kb_call(h, c);
  char what[300];
  t->calls++;
  if (st != want) {
    snprintf(what, sizeof what, "%s: status %s, want %s", label, kronblasGetStatusName(st),
             kronblasGetStatusName(want));
    kb_fail(t, c, what);
  } else if (!kb_case_untouched(cs)) {
    snprintf(what, sizeof what, "%s: status %s but an operand changed", label, kronblasGetStatusName(st));
    kb_fail(t, c, what);
  }
}

/* Y <- beta Y: every batch entry against the oracle with X and F unread,
 * padding untouched.  c is the call that was made (its alpha may be 0). */
static void kb_check_scaled(kb_tally_t *t, const kb_case_t *cs, const kb_call_t *c, const char *label)
{
  const size_t esz = kb_oracle_type_size(cs->type);
  const int cplx = kb_oracle_type_is_complex(cs->type);
  int64_t b, L = 1, rows, cols, i, j, nb = kb_variant_is_batched(c->variant) ? c->batch : 1;
  long double ref[2 * 3 * 6], mag[3 * 6];
  unsigned char *written = calloc((size_t)cs->nY, 1);
  unsigned char zero[16];
  char what[300];

  memset(zero, 0, sizeof zero);
  for (i = 0; i < c->nfactors; i++)
    L *= c->q[i];
  kb_oracle_y_dims((kronblasSideMode_t)c->side, c->m, L, &rows, &cols);
  for (b = 0; b < nb; b++) {
    const int64_t off = b * c->strideY;
    int64_t nbad;
    /* alpha = 0 or K = 0: the oracle must not need X or F either */
    if (kb_oracle_gekmm(cs->type, (kronblasSideMode_t)c->side, (kronblasOperation_t)c->transX,
                        (kronblasOperation_t)c->transF, c->m, c->nfactors, c->p, c->q, zero, NULL, c->ldx,
                        NULL, c->ldf, c->beta, (const unsigned char *)cs->Ysnap + off * esz, c->ldy, ref, mag) != 0) {
      snprintf(what, sizeof what, "%s: oracle refused", label);
      kb_fail(t, c, what);
      goto out;
    }
    nbad = kb_oracle_compare(cs->type, (kronblasSideMode_t)c->side, c->m, L,
                             (const unsigned char *)cs->Y + off * esz, c->ldy, ref, mag, 1, cplx ? 4.0 : 2.0, NULL);
    if (nbad) {
      const kb_oracle_bad_t *bad = kb_oracle_last_bad();
      snprintf(what, sizeof what, "%s: %" PRId64 " elements are not beta*Y, first (r=%" PRId64 ",l=%" PRId64
               ") got (%g,%g) want (%g,%g)", label, nbad, bad->r, bad->l, bad->got_re, bad->got_im,
               bad->want_re, bad->want_im);
      kb_fail(t, c, what);
      goto out;
    }
    for (j = 0; j < cols; j++)
      for (i = 0; i < rows; i++)
        written[off + i + j * c->ldy] = 1;
  }
  for (i = 0; i < cs->nY; i++)
    if (!written[i] && memcmp((const char *)cs->Y + i * esz, (const char *)cs->Ysnap + i * esz, esz) != 0) {
      snprintf(what, sizeof what, "%s: Y element %" PRId64 " outside the matrix changed", label, i);
      kb_fail(t, c, what);
      goto out;
    }
out:
  free(written);
}

/* Restores Y (and X, F) from the snapshots after a call that wrote. */
static void kb_case_restore(kb_case_t *cs)
{
  const size_t esz = kb_oracle_type_size(cs->type);
  memcpy(cs->Y, cs->Ysnap, (size_t)cs->nY * esz);
}

/* ------------------------------------------------------------ classes */

typedef enum {
  KB_C_M_NEG, KB_C_N_LT1, KB_C_P_NEG, KB_C_Q_NEG, KB_C_SIDE, KB_C_TRANSX, KB_C_TRANSF,
  KB_C_LDX, KB_C_LDY, KB_C_LDF, KB_C_NULL_SIZES, KB_C_NULL_SCALARS, KB_C_NULL_OPERANDS,
  KB_C_OVERFLOW, KB_C_BATCH_NEG, KB_C_STRIDEF_NULL,
  KB_C_QUICK_M0, KB_C_QUICK_Q0, KB_C_QUICK_B0, KB_C_K0, KB_C_ALPHA0, KB_C_BETA0_NAN,
  KB_NCLASSES
} kb_class_t;

static const char *const kb_class_name[KB_NCLASSES] = {
  "m < 0 is INVALID_VALUE, operands untouched",
  "nfactors < 1 is INVALID_VALUE, operands untouched",
  "p[i] < 0 is INVALID_VALUE, operands untouched",
  "q[i] < 0 is INVALID_VALUE, operands untouched",
  "side out of range is INVALID_VALUE, operands untouched",
  "transX out of range is INVALID_VALUE, operands untouched",
  "transF out of range is INVALID_VALUE, operands untouched",
  "ldx too small (each side and transX) is INVALID_VALUE, operands untouched",
  "ldy too small (each side) is INVALID_VALUE, operands untouched",
  "ldf[i] too small (each side, transF, factor) is INVALID_VALUE, operands untouched",
  "NULL p, q or ldf is INVALID_VALUE, operands untouched",
  "NULL alpha or beta is INVALID_VALUE, operands untouched",
  "NULL X, F, F[i] or Y is INVALID_VALUE, operands untouched",
  "sizes, leading dimensions or strides overflowing int64 are INVALID_VALUE (_64 and batched)",
  "batchCount < 0 is INVALID_VALUE, operands untouched",
  "NULL strideF with batchCount > 1 is INVALID_VALUE, operands untouched",
  "m = 0: SUCCESS, nothing read or written (NULL X, F, Y, alpha, beta)",
  "a q[i] = 0: SUCCESS, nothing read or written (NULL X, F, Y, alpha, beta)",
  "batchCount = 0: SUCCESS, nothing read or written (NULL X, F, Y)",
  "a p[i] = 0 (K = 0): Y <- beta*Y, X and F not read (NULL), beta = 0 overwrites NaN",
  "alpha = 0: Y <- beta*Y, X and F not read (NULL), beta = 0 overwrites NaN",
  "beta = 0: NaN in Y does not propagate",
};

static void kb_run_class(kronblasHandle_t h, kb_rng_t *r, kb_class_t cls, kb_tally_t *t)
{
  int ti, v, side, tX, tF;
  for (ti = 0; ti < 4; ti++)
    for (v = 0; v < KB_NVARIANTS; v++)
      for (side = 0; side < 2; side++)
        for (tX = 0; tX < 3; tX++)
          for (tF = 0; tF < 3; tF++) {
            const int full = tX == tF;   /* classes that do not depend on trans: 3 combos */
            const int is64 = v == KB_V_GEKMM_64 || v == KB_V_SB_64;
            const int batched = kb_variant_is_batched(v);
            kb_case_t cs;
            kb_call_t c;
            int64_t p2[2], q2[2], l2[2], i, rows, cols;
            const void *Fn[2];

            switch (cls) {
            case KB_C_LDX: if (tF != 0) continue; break;
            case KB_C_LDF: if (tX != 0) continue; break;
            case KB_C_OVERFLOW: if (!is64 && !batched) continue; if (!full) continue; break;
            case KB_C_BATCH_NEG: case KB_C_STRIDEF_NULL: case KB_C_QUICK_B0:
              if (!batched || !full) continue;
              break;
            default: if (!full) continue; break;
            }
            kb_case_init(&cs, r, kb_types[ti], v, side, tX, tF);
            c = cs.c;
            memcpy(p2, cs.p, sizeof p2);
            memcpy(q2, cs.q, sizeof q2);
            memcpy(l2, cs.ldf, sizeof l2);
            c.p = p2;
            c.q = q2;
            c.ldf = l2;

            switch (cls) {
            case KB_C_M_NEG:
              c.m = -1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "m=-1");
              c.m = is64 ? INT64_MIN : INT_MIN;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "m=min");
              break;
            case KB_C_N_LT1:
              c.nfactors = 0;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "nfactors=0");
              c.nfactors = -1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "nfactors=-1");
              break;
            case KB_C_P_NEG:
            case KB_C_Q_NEG:
              for (i = 0; i < 2; i++) {
                int64_t *a = cls == KB_C_P_NEG ? p2 : q2, keep = a[i];
                a[i] = -1;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, cls == KB_C_P_NEG ? "p[i]=-1" : "q[i]=-1");
                /* with the other size 0, a quick return must not hide it */
                a[1 - i] = 0;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "negative size next to a 0");
                a[1 - i] = cls == KB_C_P_NEG ? cs.p[1 - i] : cs.q[1 - i];
                a[i] = keep;
              }
              break;
            case KB_C_SIDE:
              c.side = 2;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "side=2");
              c.side = -1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "side=-1");
              break;
            case KB_C_TRANSX:
              c.transX = 3;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "transX=3");
              c.transX = -1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "transX=-1");
              break;
            case KB_C_TRANSF:
              c.transF = 3;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "transF=3");
              c.transF = -1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "transF=-1");
              break;
            case KB_C_LDX:
              kb_oracle_x_dims((kronblasSideMode_t)side, (kronblasOperation_t)tX, c.m, 6, &rows, &cols);
              c.ldx = rows - 1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldx=rows-1");
              c.ldx = 0;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldx=0");
              c.ldx = -5;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldx=-5");
              break;
            case KB_C_LDY:
              kb_oracle_y_dims((kronblasSideMode_t)side, c.m, 6, &rows, &cols);
              c.ldy = rows - 1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldy=rows-1");
              c.ldy = 0;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldy=0");
              /* the rows of Y are there even when alpha = 0 or K = 0 */
              c.ldy = rows - 1;
              p2[1] = 0;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldy=rows-1 with K=0");
              /* ld >= max(1, rows) holds for empty matrices too */
              p2[1] = cs.p[1];
              q2[0] = 0;
              c.ldy = 0;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldy=0 with L=0");
              break;
            case KB_C_LDF:
              for (i = 0; i < 2; i++) {
                kb_oracle_f_dims((kronblasSideMode_t)side, (kronblasOperation_t)tF, cs.p[i], cs.q[i], &rows, &cols);
                l2[i] = rows - 1;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldf[i]=rows-1");
                l2[i] = 0;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldf[i]=0");
                l2[i] = cs.ldf[i];
              }
              break;
            case KB_C_NULL_SIZES:
              c.p = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "p=NULL");
              c.p = p2;
              c.q = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "q=NULL");
              c.q = q2;
              c.ldf = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldf=NULL");
              break;
            case KB_C_NULL_SCALARS:
              c.alpha = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "alpha=NULL");
              c.alpha = cs.alpha;
              c.beta = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "beta=NULL");
              break;
            case KB_C_NULL_OPERANDS:
              c.X = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "X=NULL");
              c.X = cs.X;
              c.F = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "F=NULL");
              for (i = 0; i < 2; i++) {
                Fn[i] = NULL;
                Fn[1 - i] = cs.F[1 - i];
                c.F = Fn;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "F[i]=NULL");
              }
              c.F = (const void *const *)cs.F;
              c.Y = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "Y=NULL");
              /* Y is written even when alpha = 0 */
              memset(cs.alpha, 0, sizeof cs.alpha);
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "Y=NULL with alpha=0");
              break;
            case KB_C_OVERFLOW:
              if (is64) {
                /* K = 2^64 */
                p2[0] = p2[1] = (int64_t)1 << 32;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "prod p = 2^64");
                p2[0] = cs.p[0]; p2[1] = cs.p[1];
                /* L = 2^64 */
                q2[0] = q2[1] = (int64_t)1 << 32;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "prod q = 2^64");
                q2[0] = cs.q[0]; q2[1] = cs.q[1];
                /* K fits, m*K does not */
                p2[0] = p2[1] = (int64_t)1 << 20;
                c.m = (int64_t)1 << 30;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "m*K = 2^70");
                p2[0] = cs.p[0]; p2[1] = cs.p[1];
                /* L fits, m*L does not */
                q2[0] = q2[1] = (int64_t)1 << 20;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "m*L = 2^70");
                q2[0] = cs.q[0]; q2[1] = cs.q[1];
                c.m = cs.c.m;
                /* ld * (cols - 1) overflows */
                c.ldx = INT64_MAX - 1;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldx*(cols-1)+rows overflows");
                c.ldx = cs.c.ldx;
                c.ldy = INT64_MAX - 1;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldy*(cols-1)+rows overflows");
                c.ldy = cs.c.ldy;
                l2[1] = INT64_MAX - 1;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "ldf*(cols-1)+rows overflows");
                l2[1] = cs.ldf[1];
              }
              if (batched) {
                long long sF[2] = { 0, 0 };
                c.batch = 3;
                c.strideX = LLONG_MAX / 2 + 1;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "2*strideX overflows");
                c.strideX = cs.c.strideX;
                c.strideY = LLONG_MAX / 2 + 1;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "2*strideY overflows");
                c.strideY = cs.c.strideY;
                sF[1] = LLONG_MAX / 2 + 1;
                c.strideF = sF;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "2*strideF[1] overflows");
              }
              break;
            case KB_C_BATCH_NEG:
              c.batch = -1;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "batchCount=-1");
              c.batch = is64 ? INT64_MIN : INT_MIN;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "batchCount=min");
              break;
            case KB_C_STRIDEF_NULL:
              c.strideF = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_INVALID_VALUE, "strideF=NULL, batch 2");
              break;
            case KB_C_QUICK_M0:
              c.m = 0;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_SUCCESS, "m=0");
              c.X = NULL; c.F = NULL; c.Y = NULL; c.alpha = NULL; c.beta = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_SUCCESS, "m=0, all NULL");
              break;
            case KB_C_QUICK_Q0:
              for (i = 0; i < 2; i++) {
                c = cs.c;
                c.p = p2;
                c.q = q2;
                c.ldf = l2;
                q2[i] = 0;
                q2[1 - i] = cs.q[1 - i];
                /* L = 0: on the LEFT Y has no rows, ldy >= 1 still */
                kb_oracle_y_dims((kronblasSideMode_t)side, c.m, 0, &rows, &cols);
                c.ldy = kb_max64(1, rows);
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_SUCCESS, "q[i]=0");
                c.X = NULL; c.F = NULL; c.Y = NULL; c.alpha = NULL; c.beta = NULL;
                kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_SUCCESS, "q[i]=0, all NULL");
              }
              q2[0] = cs.q[0]; q2[1] = cs.q[1];
              break;
            case KB_C_QUICK_B0:
              c.batch = 0;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_SUCCESS, "batchCount=0");
              c.X = NULL; c.F = NULL; c.Y = NULL; c.strideF = NULL;
              kb_expect(h, t, &cs, &c, KRONBLAS_STATUS_SUCCESS, "batchCount=0, NULL X, F, Y, strideF");
              break;
            case KB_C_K0:
            case KB_C_ALPHA0: {
              kronblasStatus_t st;
              int pass;
              if (cls == KB_C_K0) {
                p2[tX % 2] = 0;
                /* X has K = 0 rows or columns now: ld >= 1 still holds */
              } else {
                memset(cs.alpha, 0, sizeof cs.alpha);
              }
              c.X = NULL;
              c.F = NULL;
              for (pass = 0; pass < 3; pass++) {
                if (pass == 1) {
                  /* beta = 0: Y may hold NaN, and must come out 0 */
                  memset(cs.beta, 0, sizeof cs.beta);
                  kb_oracle_poison(cs.type, cs.Ysnap, cs.nY);
                  kb_case_restore(&cs);
                }
                if (pass == 2) {
                  /* F given with a NULL entry: still not read */
                  Fn[0] = cs.F[0];
                  Fn[1] = NULL;
                  c.F = Fn;
                }
                t->calls++;
                st = kb_call(h, &c);
                if (st != KRONBLAS_STATUS_SUCCESS) {
                  char what[200];
                  snprintf(what, sizeof what, "%s pass %d: status %s", cls == KB_C_K0 ? "K=0" : "alpha=0", pass,
                           kronblasGetStatusName(st));
                  kb_fail(t, &c, what);
                } else {
                  kb_check_scaled(t, &cs, &c, pass == 0 ? "beta random" : "beta 0, Y NaN");
                }
                kb_case_restore(&cs);
              }
              break;
            }
            case KB_C_BETA0_NAN: {
              kronblasStatus_t st;
              int64_t nb = batched ? c.batch : 1, b, nan_out = 0;
              memset(cs.beta, 0, sizeof cs.beta);
              kb_oracle_poison(cs.type, cs.Y, cs.nY);
              t->calls++;
              st = kb_call(h, &c);
              kb_oracle_y_dims((kronblasSideMode_t)side, c.m, 6, &rows, &cols);
              for (b = 0; b < nb; b++)
                for (i = 0; i < rows * cols; i++) {
                  const char *y = (const char *)cs.Y +
                                  (b * c.strideY + i % rows + (i / rows) * c.ldy) * kb_oracle_type_size(cs.type);
                  double re = (cs.type == KRONBLAS_R_32F || cs.type == KRONBLAS_C_32F) ? ((const float *)y)[0]
                                                                                        : ((const double *)y)[0];
                  if (isnan(re))
                    nan_out++;
                }
              if (st != KRONBLAS_STATUS_SUCCESS || nan_out) {
                char what[200];
                snprintf(what, sizeof what, "status %s, %" PRId64 " NaN left in Y", kronblasGetStatusName(st), nan_out);
                kb_fail(t, &c, what);
              }
              break;
            }
            default:
              break;
            }
            kb_case_free(&cs);
          }
}

int main(void)
{
  const uint64_t seed = kb_test_seed();
  kronblasHandle_t h = NULL;
  kb_rng_t r;
  int cls;

  tap_plan(KB_NCLASSES);
  tap_diag("seed %" PRIu64 " (KRONBLAS_TEST_SEED=%" PRIu64 " reproduces this run)", seed, seed);
  kb_rng_seed(&r, seed);
  if (kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) != KRONBLAS_STATUS_SUCCESS) {
    tap_diag("kronblasCreateWithBackend(CPU) failed");
    return 1;
  }
  for (cls = 0; cls < KB_NCLASSES; cls++) {
    kb_tally_t t;
    memset(&t, 0, sizeof t);
    kb_run_class(h, &r, (kb_class_t)cls, &t);
    kb_report(&t, kb_class_name[cls]);
  }
  kronblasDestroy(h);
  return tap_done();
}
