/* kb_oracle.c - the test oracle (see kb_oracle.h).
 *
 * Everything is computed in long double, complex as pairs of long double,
 * straight from the definition in the API contract, so that it shares no
 * code and no index arithmetic with the library it judges.  The explicit
 * Kronecker product is formed one row at a time (K elements of memory), so
 * the limit on its size is one of time, not memory. */
/* clock_gettime and getpid for the default seed, also under -std=c99 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "kb_oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ rng */

static uint64_t kb_splitmix64(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void kb_rng_seed(kb_rng_t *r, uint64_t seed)
{
  uint64_t x = seed;
  int i;
  for (i = 0; i < 4; i++)
    r->s[i] = kb_splitmix64(&x);
}

static uint64_t kb_rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t kb_rng_next(kb_rng_t *r)
{
  uint64_t *s = r->s;
  const uint64_t result = kb_rotl(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = kb_rotl(s[3], 45);
  return result;
}

double kb_rng_uniform(kb_rng_t *r)
{
  /* 53 random bits: exactly representable in double, and the float
   * conversion in kb_rng_fill rounds into [-1, 1] only at the top end. */
  return (double)(kb_rng_next(r) >> 11) * 0x1.0p-52 - 1.0;
}

int64_t kb_rng_range(kb_rng_t *r, int64_t lo, int64_t hi)
{
  uint64_t span;
  if (hi <= lo)
    return lo;
  span = (uint64_t)hi - (uint64_t)lo + 1;
  if (span == 0)   /* the whole int64 range */
    return (int64_t)kb_rng_next(r);
  return lo + (int64_t)(kb_rng_next(r) % span);
}

void kb_rng_fill(kb_rng_t *r, kronblasDataType_t type, void *x, int64_t count)
{
  int64_t i, n = kb_oracle_type_is_complex(type) ? 2 * count : count;
  switch (type) {
  case KRONBLAS_R_32F:
  case KRONBLAS_C_32F:
    for (i = 0; i < n; i++) {
      float v = (float)kb_rng_uniform(r);
      /* rounding to float can reach 1.0f; keep the promise of [-1, 1) */
      ((float *)x)[i] = v >= 1.0f ? 0.5f : v;
    }
    break;
  case KRONBLAS_R_64F:
  case KRONBLAS_C_64F:
    for (i = 0; i < n; i++)
      ((double *)x)[i] = kb_rng_uniform(r);
    break;
  }
}

uint64_t kb_test_seed(void)
{
  const char *s = getenv("KRONBLAS_TEST_SEED");
  uint64_t x;
  struct timespec ts;
  if (s != NULL && *s != '\0') {
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (end != s)
      return (uint64_t)v;
  }
  clock_gettime(CLOCK_REALTIME, &ts);
  x = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
  /* small, readable seeds are easier to paste back */
  return kb_splitmix64(&x) >> 16;
}

/* -------------------------------------------------------------- helpers */

size_t kb_oracle_type_size(kronblasDataType_t type)
{
  switch (type) {
  case KRONBLAS_R_32F: return sizeof(float);
  case KRONBLAS_R_64F: return sizeof(double);
  case KRONBLAS_C_32F: return sizeof(kronblasComplex);
  case KRONBLAS_C_64F: return sizeof(kronblasDoubleComplex);
  }
  return 0;
}

int kb_oracle_type_is_complex(kronblasDataType_t type)
{
  return type == KRONBLAS_C_32F || type == KRONBLAS_C_64F;
}

double kb_oracle_eps(kronblasDataType_t type)
{
  return (type == KRONBLAS_R_32F || type == KRONBLAS_C_32F) ? 0x1.0p-24 : 0x1.0p-53;
}

const char *kb_oracle_type_name(kronblasDataType_t type)
{
  switch (type) {
  case KRONBLAS_R_32F: return "s";
  case KRONBLAS_R_64F: return "d";
  case KRONBLAS_C_32F: return "c";
  case KRONBLAS_C_64F: return "z";
  }
  return "?";
}

void kb_oracle_x_dims(kronblasSideMode_t side, kronblasOperation_t transX, int64_t m, int64_t K,
    int64_t *rows, int64_t *cols)
{
  /* op(X) is K x m (LEFT) or m x K (RIGHT); stored transposed unless N */
  int64_t r = side == KRONBLAS_SIDE_LEFT ? K : m, c = side == KRONBLAS_SIDE_LEFT ? m : K;
  *rows = transX == KRONBLAS_OP_N ? r : c;
  *cols = transX == KRONBLAS_OP_N ? c : r;
}

void kb_oracle_y_dims(kronblasSideMode_t side, int64_t m, int64_t L, int64_t *rows, int64_t *cols)
{
  *rows = side == KRONBLAS_SIDE_LEFT ? L : m;
  *cols = side == KRONBLAS_SIDE_LEFT ? m : L;
}

void kb_oracle_f_dims(kronblasSideMode_t side, kronblasOperation_t transF, int64_t p, int64_t q,
    int64_t *rows, int64_t *cols)
{
  /* op(F) is q x p (LEFT) or p x q (RIGHT) */
  int64_t r = side == KRONBLAS_SIDE_LEFT ? q : p, c = side == KRONBLAS_SIDE_LEFT ? p : q;
  *rows = transF == KRONBLAS_OP_N ? r : c;
  *cols = transF == KRONBLAS_OP_N ? c : r;
}

int64_t kb_oracle_extent(int64_t rows, int64_t cols, int64_t ld)
{
  if (rows <= 0 || cols <= 0)
    return 0;
  return ld * (cols - 1) + rows;
}

void kb_oracle_poison(kronblasDataType_t type, void *x, int64_t count)
{
  int64_t i, n = kb_oracle_type_is_complex(type) ? 2 * count : count;
  if (type == KRONBLAS_R_32F || type == KRONBLAS_C_32F)
    for (i = 0; i < n; i++) ((float *)x)[i] = NAN;
  else
    for (i = 0; i < n; i++) ((double *)x)[i] = NAN;
}

/* ------------------------------------------------ long double complex */

typedef struct { long double re, im; } kb_ld_t;

static kb_ld_t kb_ld_load(kronblasDataType_t type, const void *base, int64_t idx, int conj)
{
  kb_ld_t v = { 0.0L, 0.0L };
  switch (type) {
  case KRONBLAS_R_32F: v.re = ((const float *)base)[idx]; break;
  case KRONBLAS_R_64F: v.re = ((const double *)base)[idx]; break;
  case KRONBLAS_C_32F:
    v.re = ((const float *)base)[2 * idx];
    v.im = ((const float *)base)[2 * idx + 1];
    break;
  case KRONBLAS_C_64F:
    v.re = ((const double *)base)[2 * idx];
    v.im = ((const double *)base)[2 * idx + 1];
    break;
  }
  if (conj)
    v.im = -v.im;
  return v;
}

static kb_ld_t kb_ld_mul(kb_ld_t a, kb_ld_t b)
{
  kb_ld_t r;
  r.re = a.re * b.re - a.im * b.im;
  r.im = a.re * b.im + a.im * b.re;
  return r;
}

static long double kb_ld_abs(kb_ld_t a)
{
  return a.im == 0.0L ? fabsl(a.re) : hypotl(a.re, a.im);
}

static int kb_ld_is_zero(kb_ld_t a)
{
  return a.re == 0.0L && a.im == 0.0L;
}

/* Canonical accessors (doc/internals.md): A_i(l, k) is element (l, k) of
 * op(F_i) on the left and of op(F_i)^T on the right, so that every side
 * reads y_r = (A_0 (x) ... (x) A_{n-1}) x_r. */
static kb_ld_t kb_canon_a(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transF,
    const void *F, int64_t ldf, int64_t l, int64_t k)
{
  int conj = transF == KRONBLAS_OP_C && kb_oracle_type_is_complex(type);
  /* row/col of op(F): LEFT (l, k), RIGHT (k, l) */
  int64_t a = side == KRONBLAS_SIDE_LEFT ? l : k, b = side == KRONBLAS_SIDE_LEFT ? k : l;
  int64_t idx = transF == KRONBLAS_OP_N ? a + b * ldf : b + a * ldf;
  return kb_ld_load(type, F, idx, conj);
}

static kb_ld_t kb_canon_x(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transX,
    const void *X, int64_t ldx, int64_t r, int64_t k)
{
  int conj = transX == KRONBLAS_OP_C && kb_oracle_type_is_complex(type);
  /* row/col of op(X): LEFT (k, r), RIGHT (r, k) */
  int64_t a = side == KRONBLAS_SIDE_LEFT ? k : r, b = side == KRONBLAS_SIDE_LEFT ? r : k;
  int64_t idx = transX == KRONBLAS_OP_N ? a + b * ldx : b + a * ldx;
  return kb_ld_load(type, X, idx, conj);
}

static int64_t kb_canon_y_index(kronblasSideMode_t side, int64_t ldy, int64_t r, int64_t l)
{
  return side == KRONBLAS_SIDE_LEFT ? l + r * ldy : r + l * ldy;
}

static int kb_oracle_args_ok(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transX,
    kronblasOperation_t transF, int64_t m, int64_t nfactors, const int64_t *p, const int64_t *q,
    int64_t *K, int64_t *L)
{
  int64_t i;
  if (kb_oracle_type_size(type) == 0 || (side != KRONBLAS_SIDE_LEFT && side != KRONBLAS_SIDE_RIGHT) ||
      transX < KRONBLAS_OP_N || transX > KRONBLAS_OP_C || transF < KRONBLAS_OP_N || transF > KRONBLAS_OP_C ||
      m < 0 || nfactors < 1 || p == NULL || q == NULL)
    return 0;
  *K = 1;
  *L = 1;
  for (i = 0; i < nfactors; i++) {
    if (p[i] < 0 || q[i] < 0 || __builtin_mul_overflow(*K, p[i], K) || __builtin_mul_overflow(*L, q[i], L))
      return 0;
  }
  return 1;
}

/* ---------------------------------------------------------------- oracle */

int kb_oracle_gekmm(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transX,
    kronblasOperation_t transF, int64_t m, int64_t nfactors, const int64_t *p, const int64_t *q,
    const void *alpha, const void *X, int64_t ldx, const void *const *F, const int64_t *ldf,
    const void *beta, const void *Y, int64_t ldy, long double *ref, long double *mag)
{
  const int cplx = kb_oracle_type_is_complex(type);
  int64_t K, L, KL, r, l, k, i;
  kb_ld_t al, be;
  kb_ld_t *row = NULL;
  int64_t *lidx = NULL;
  int rc = -1;
  int use_xf;

  if (!kb_oracle_args_ok(type, side, transX, transF, m, nfactors, p, q, &K, &L) ||
      alpha == NULL || beta == NULL || ref == NULL)
    return -1;
  {
    int64_t work;
    if (__builtin_mul_overflow(K, L, &KL) || KL > KB_ORACLE_MAX_KL ||
        __builtin_mul_overflow(KL, m + nfactors, &work) || work > KB_ORACLE_MAX_WORK)
      return -1;
  }
  al = kb_ld_load(type, alpha, 0, 0);
  be = kb_ld_load(type, beta, 0, 0);
  use_xf = K > 0 && !kb_ld_is_zero(al);
  if (use_xf && (X == NULL || F == NULL || ldf == NULL))
    return -1;
  if (!kb_ld_is_zero(be) && m > 0 && L > 0 && Y == NULL)
    return -1;

  row = malloc((size_t)(K > 0 ? K : 1) * sizeof *row);
  lidx = malloc((size_t)nfactors * sizeof *lidx);
  if (row == NULL || lidx == NULL)
    goto out;

  for (l = 0; l < L; l++) {
    /* digits of l, F_0 slowest */
    int64_t rest = l, len = 1;
    for (i = nfactors - 1; i >= 0; i--) {
      lidx[i] = rest % q[i];
      rest /= q[i];
    }
    /* row l of A_0 (x) ... (x) A_{n-1}, built one factor at a time in place
     * (backwards so that the old entries are read before being replaced) */
    if (use_xf) {
      row[0].re = 1.0L;
      row[0].im = 0.0L;
      for (i = 0; i < nfactors; i++) {
        int64_t j, kk;
        for (j = len - 1; j >= 0; j--) {
          kb_ld_t g = row[j];
          for (kk = p[i] - 1; kk >= 0; kk--)
            row[j * p[i] + kk] = kb_ld_mul(g, kb_canon_a(type, side, transF, F[i], ldf[i], lidx[i], kk));
        }
        len *= p[i];
      }
    }
    for (r = 0; r < m; r++) {
      kb_ld_t acc = { 0.0L, 0.0L };
      long double amag = 0.0L;
      long double *o = ref + (r * L + l) * (cplx ? 2 : 1);
      if (use_xf) {
        kb_ld_t t;
        for (k = 0; k < K; k++) {
          kb_ld_t x = kb_canon_x(type, side, transX, X, ldx, r, k);
          kb_ld_t gx = kb_ld_mul(row[k], x);
          acc.re += gx.re;
          acc.im += gx.im;
          amag += kb_ld_abs(row[k]) * kb_ld_abs(x);
        }
        t = kb_ld_mul(al, acc);
        amag *= kb_ld_abs(al);
        acc = t;
      }
      if (!kb_ld_is_zero(be)) {
        kb_ld_t y = kb_ld_load(type, Y, kb_canon_y_index(side, ldy, r, l), 0);
        kb_ld_t by = kb_ld_mul(be, y);
        acc.re += by.re;
        acc.im += by.im;
        amag += kb_ld_abs(be) * kb_ld_abs(y);
      }
      o[0] = acc.re;
      if (cplx)
        o[1] = acc.im;
      if (mag != NULL)
        mag[r * L + l] = amag;
    }
  }
  rc = 0;
out:
  free(row);
  free(lidx);
  return rc;
}

/* Per thread: t-handle compares from several threads at once (ThreadSanitizer
 * reported the shared record), and each wants its own last bad element. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_THREADS__)
static _Thread_local kb_oracle_bad_t kb_oracle_bad = { -1, -1, 0, 0, 0, 0, 0 };
#else
static kb_oracle_bad_t kb_oracle_bad = { -1, -1, 0, 0, 0, 0, 0 };
#endif

const kb_oracle_bad_t *kb_oracle_last_bad(void)
{
  return &kb_oracle_bad;
}

int64_t kb_oracle_compare(kronblasDataType_t type, kronblasSideMode_t side, int64_t m, int64_t L,
    const void *Y, int64_t ldy, const long double *ref, const long double *mag,
    int64_t sumlen, double tol_factor, double *worst)
{
  const int cplx = kb_oracle_type_is_complex(type);
  const long double unit = (long double)(sumlen + 2) * kb_oracle_eps(type);
  int64_t r, l, nbad = 0;
  double w = 0.0;

  kb_oracle_bad.r = kb_oracle_bad.l = -1;
  for (r = 0; r < m; r++) {
    for (l = 0; l < L; l++) {
      kb_ld_t y = kb_ld_load(type, Y, kb_canon_y_index(side, ldy, r, l), 0);
      const long double *o = ref + (r * L + l) * (cplx ? 2 : 1);
      kb_ld_t want = { o[0], cplx ? o[1] : 0.0L };
      long double mg = mag != NULL ? mag[r * L + l] : 0.0L;
      int ref_finite = isfinite(want.re) && isfinite(want.im);
      int y_finite = isfinite(y.re) && isfinite(y.im);
      long double diff, ratio;
      int bad;

      if (!ref_finite || !y_finite) {
        /* a non-finite reference (non-finite input) wants a non-finite result */
        bad = ref_finite || y_finite;
        ratio = bad ? INFINITY : 0.0L;
      } else {
        kb_ld_t d = { y.re - want.re, y.im - want.im };
        diff = kb_ld_abs(d);
        if (diff == 0.0L)
          ratio = 0.0L;
        else if (mg == 0.0L)
          ratio = INFINITY;
        else
          ratio = diff / (unit * mg);
        bad = ratio > (long double)tol_factor;
      }
      if ((double)ratio > w)
        w = (double)ratio;
      if (bad) {
        if (nbad == 0) {
          kb_oracle_bad.r = r;
          kb_oracle_bad.l = l;
          kb_oracle_bad.got_re = (double)y.re;
          kb_oracle_bad.got_im = (double)y.im;
          kb_oracle_bad.want_re = (double)want.re;
          kb_oracle_bad.want_im = (double)want.im;
          kb_oracle_bad.mag = (double)mg;
        }
        nbad++;
      }
    }
  }
  if (worst != NULL)
    *worst = w;
  return nbad;
}

/* ------------------------------------------------------ identity check */

/* out[l*S + s] = sum_k A(l, k) in[s*p + k], with |A| and |in| alongside for
 * the magnitude of the terms: the seed's Algorithm 1 for one factor. */
static void kb_ld_sliced(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transF,
    const void *F, int64_t ldf, int64_t p, int64_t q, int64_t S,
    const kb_ld_t *in, const long double *inmag, kb_ld_t *out, long double *outmag)
{
  int64_t l, s, k;
  for (l = 0; l < q; l++)
    for (s = 0; s < S; s++) {
      kb_ld_t acc = { 0.0L, 0.0L };
      long double am = 0.0L;
      for (k = 0; k < p; k++) {
        kb_ld_t a = kb_canon_a(type, side, transF, F, ldf, l, k);
        kb_ld_t t = kb_ld_mul(a, in[s * p + k]);
        acc.re += t.re;
        acc.im += t.im;
        am += kb_ld_abs(a) * inmag[s * p + k];
      }
      out[l * S + s] = acc;
      outmag[l * S + s] = am;
    }
}

int kb_identity_check(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transX,
    kronblasOperation_t transF, int64_t m, int64_t nfactors, const int64_t *p, const int64_t *q,
    const void *X, int64_t ldx, const void *const *F, const int64_t *ldf,
    const void *Y, int64_t ldy, uint64_t seed, double *relerr)
{
  int64_t K, L, smax, i, r, k, l, cur, sumlen = 0;
  kb_ld_t *w = NULL, *bufA = NULL, *bufB = NULL;
  long double *magA = NULL, *magB = NULL, tol;
  double worst = 0.0;
  kb_rng_t rng;
  int rc = -1;

  if (relerr != NULL)
    *relerr = 0.0;
  if (!kb_oracle_args_ok(type, side, transX, transF, m, nfactors, p, q, &K, &L) ||
      X == NULL || F == NULL || ldf == NULL || Y == NULL)
    return -1;
  if (m == 0 || L == 0 || K == 0)
    return 0;   /* nothing the identity could check */

  /* the longest intermediate: prod p[0..i) * prod q[i..n) */
  smax = K;
  {
    int64_t pre = K, suf = 1, e;
    for (i = nfactors - 1; i >= 0; i--) {
      pre /= p[i];
      suf *= q[i];
      if (__builtin_mul_overflow(pre, suf, &e))
        return -1;
      if (e > smax)
        smax = e;
      sumlen += p[i] + 1;
    }
  }
  w = malloc((size_t)m * sizeof *w);
  bufA = malloc((size_t)smax * sizeof *bufA);
  bufB = malloc((size_t)smax * sizeof *bufB);
  magA = malloc((size_t)smax * sizeof *magA);
  magB = malloc((size_t)smax * sizeof *magB);
  if (w == NULL || bufA == NULL || bufB == NULL || magA == NULL || magB == NULL)
    goto out;

  kb_rng_seed(&rng, seed);
  for (r = 0; r < m; r++) {
    w[r].re = kb_rng_uniform(&rng);
    w[r].im = kb_oracle_type_is_complex(type) ? kb_rng_uniform(&rng) : 0.0;
  }
  /* t = sum_r w_r x_r, and its magnitude sum_r |w_r||x_r| */
  for (k = 0; k < K; k++) {
    kb_ld_t acc = { 0.0L, 0.0L };
    long double am = 0.0L;
    for (r = 0; r < m; r++) {
      kb_ld_t x = kb_canon_x(type, side, transX, X, ldx, r, k);
      kb_ld_t t = kb_ld_mul(w[r], x);
      acc.re += t.re;
      acc.im += t.im;
      am += kb_ld_abs(w[r]) * kb_ld_abs(x);
    }
    bufA[k] = acc;
    magA[k] = am;
  }
  /* apply the factors, last first */
  cur = K;
  for (i = nfactors - 1; i >= 0; i--) {
    kb_ld_t *tb;
    long double *tm;
    int64_t S = cur / p[i];
    kb_ld_sliced(type, side, transF, F[i], ldf[i], p[i], q[i], S, bufA, magA, bufB, magB);
    cur = S * q[i];
    tb = bufA; bufA = bufB; bufB = tb;
    tm = magA; magA = magB; magB = tm;
  }
  /* compare with sum_r w_r y_r; the contraction itself is exact enough in
   * long double, so the bound is the library's rounding of each y_r */
  tol = (kb_oracle_type_is_complex(type) ? 4.0L : 2.0L) * (long double)(sumlen + 2) * kb_oracle_eps(type);
  rc = 0;
  for (l = 0; l < L; l++) {
    kb_ld_t acc = { 0.0L, 0.0L }, d;
    long double e;
    int y_finite = 1;
    for (r = 0; r < m; r++) {
      kb_ld_t y = kb_ld_load(type, Y, kb_canon_y_index(side, ldy, r, l), 0);
      kb_ld_t t = kb_ld_mul(w[r], y);
      if (!isfinite(y.re) || !isfinite(y.im))
        y_finite = 0;
      acc.re += t.re;
      acc.im += t.im;
    }
    d.re = acc.re - bufA[l].re;
    d.im = acc.im - bufA[l].im;
    if (!y_finite)
      e = INFINITY;
    else if (kb_ld_abs(d) == 0.0L)
      e = 0.0L;
    else if (magA[l] == 0.0L)
      e = INFINITY;
    else
      e = kb_ld_abs(d) / magA[l];
    if ((double)e > worst)
      worst = (double)e;
    if (e > tol)
      rc = 1;
  }
  if (relerr != NULL)
    *relerr = worst;
out:
  free(w);
  free(bufA);
  free(bufB);
  free(magA);
  free(magB);
  return rc;
}
