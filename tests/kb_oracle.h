/*
 * kb_oracle.h - the test oracle of kronblas: a seeded random generator, a
 * reference GEKMM that forms the Kronecker product explicitly and multiplies
 * in long double, an error-bounded comparison, and a cheap randomised
 * identity for shapes too big for the explicit product.
 *
 * Used by the TAP tests (tests/), the fast-CPU tests (tests/cpu.inc) and
 * kronblas-bench --verify (tools/).  Depends only on kronblas.h and libm;
 * nothing here calls the library, so it can judge any backend.
 *
 * Arguments mean what they mean for kronblas?gekmm_64 (one batch entry),
 * with the element type given by a kronblasDataType_t.
 */
#ifndef KB_ORACLE_H
#define KB_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include <kronblas.h>

#ifdef __cplusplus
extern "C" {
#endif

/* xoshiro256** seeded through splitmix64: a seed printed in the TAP output
 * reproduces a run on any machine. */
typedef struct { uint64_t s[4]; } kb_rng_t;

void kb_rng_seed(kb_rng_t *r, uint64_t seed);
uint64_t kb_rng_next(kb_rng_t *r);
double kb_rng_uniform(kb_rng_t *r);                            /* [-1, 1) */
int64_t kb_rng_range(kb_rng_t *r, int64_t lo, int64_t hi);    /* inclusive */
/* count elements of type, real and imaginary parts uniform in [-1, 1). */
void kb_rng_fill(kb_rng_t *r, kronblasDataType_t type, void *x, int64_t count);
/* KRONBLAS_TEST_SEED (decimal or 0x hex) if set, else from the clock and pid. */
uint64_t kb_test_seed(void);

/* Reference GEKMM from the explicit Kronecker product, in long double (pairs
 * of long double for complex).  One batch entry.  Y is read only when beta
 * != 0.  ref[r*L + l] (times 2 for complex: re, im) receives element l of
 * output vector r (canonical order: LEFT: Y(l, r); RIGHT: Y(r, l)); mag gets
 * the same-shaped sum of absolute values of all terms
 * (|alpha| * sum |G||X| + |beta||Y|), for error bounds.  X and F are not read
 * when alpha = 0 or K = 0.  mag may be NULL.  Returns 0, or -1 if the
 * explicit product would be too big or an argument is out of range.  Memory
 * is O(K) (the product is formed a row at a time); "too big" is time:
 * K*L > KB_ORACLE_MAX_KL or K*L*(m + nfactors) > KB_ORACLE_MAX_WORK, about a
 * second of long double arithmetic.  8x8^4 with m = 1 or 2 is accepted. */
#define KB_ORACLE_MAX_KL (1LL << 26)
#define KB_ORACLE_MAX_WORK (1LL << 28)
int kb_oracle_gekmm(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transX,
    kronblasOperation_t transF, int64_t m, int64_t nfactors, const int64_t *p, const int64_t *q,
    const void *alpha, const void *X, int64_t ldx, const void *const *F, const int64_t *ldf,
    const void *beta, const void *Y, int64_t ldy, long double *ref, long double *mag);

/* Compares a computed Y (stored with ldy as the API stores it) against
 * ref/mag: an element is bad when
 *   |Y - ref| > tol_factor * (sumlen + 2) * eps(type) * mag,
 * or when it is NaN/Inf while ref is finite (|.| is the modulus for complex).
 * Returns the number of bad elements; *worst (may be NULL) gets the largest
 * |Y - ref| / ((sumlen + 2) * eps * mag), 0 where both are 0, and the first
 * bad element's (r, l) goes to the diagnostics of kb_oracle_last_bad. */
int64_t kb_oracle_compare(kronblasDataType_t type, kronblasSideMode_t side, int64_t m, int64_t L,
    const void *Y, int64_t ldy, const long double *ref, const long double *mag,
    int64_t sumlen, double tol_factor, double *worst);

/* Where this thread's last kb_oracle_compare found its first bad element (-1, -1 if
 * none), and the values there, for a diagnostic line. */
typedef struct {
  int64_t r, l;
  double got_re, got_im, want_re, want_im, mag;
} kb_oracle_bad_t;
const kb_oracle_bad_t *kb_oracle_last_bad(void);

/* Cheap randomised identity for shapes too big for the explicit product
 * (alpha = 1, beta = 0 were used to compute Y): contracts Y with a random
 * vector w over its m vectors and compares with applying the factors one at
 * a time (in long double) to the same contraction of X.  Returns 0 if within
 * tolerance, 1 if not, -1 on a bad argument or no memory; the relative error
 * (max over elements, scaled by the magnitude of the terms) in *relerr. */
int kb_identity_check(kronblasDataType_t type, kronblasSideMode_t side, kronblasOperation_t transX,
    kronblasOperation_t transF, int64_t m, int64_t nfactors, const int64_t *p, const int64_t *q,
    const void *X, int64_t ldx, const void *const *F, const int64_t *ldf,
    const void *Y, int64_t ldy, uint64_t seed, double *relerr);

/* ------------------------------------------------------------- helpers */

size_t kb_oracle_type_size(kronblasDataType_t type);     /* 0 for a bad type */
int kb_oracle_type_is_complex(kronblasDataType_t type);
double kb_oracle_eps(kronblasDataType_t type);            /* unit roundoff: 2^-24 or 2^-53 */
const char *kb_oracle_type_name(kronblasDataType_t type); /* "s", "d", "c", "z" */

/* Rows and columns of the stored X, Y or factor i of a problem (what its
 * leading dimension must cover). */
void kb_oracle_x_dims(kronblasSideMode_t side, kronblasOperation_t transX, int64_t m, int64_t K,
    int64_t *rows, int64_t *cols);
void kb_oracle_y_dims(kronblasSideMode_t side, int64_t m, int64_t L, int64_t *rows, int64_t *cols);
void kb_oracle_f_dims(kronblasSideMode_t side, kronblasOperation_t transF, int64_t p, int64_t q,
    int64_t *rows, int64_t *cols);

/* Elements spanned by a column-major rows x cols matrix with leading
 * dimension ld: 0 if empty, else ld*(cols-1)+rows. */
int64_t kb_oracle_extent(int64_t rows, int64_t cols, int64_t ld);

/* Fills count elements with quiet NaN (both parts for complex). */
void kb_oracle_poison(kronblasDataType_t type, void *x, int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* KB_ORACLE_H */
