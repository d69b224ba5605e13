/* kb_cpu_opt.h - the optimised CPU kernels: one fusion group of consecutive
 * factors applied to tiles of "lanes", kept in cache between the factors.
 *
 * A group applies f consecutive factors (in application order, i.e. last
 * factor of the problem first) of sizes q[u] x p[u]; it sees its input as
 * n_o x nlanes vectors of P = prod p[u] elements and writes n_o x nlanes
 * vectors of Q = prod q[u] elements:
 *     out[o*out_o + j*out_lane + ll*out_ll] =
 *         sum_kk G[ll, kk] * in[o*in_o + j*in_lane + kk*in_kk]
 * with G = A_0 (x) ... (x) A_{f-1} (A_0 applied last, as in the problem).
 * The caller maps rows and slices onto (o, j): for "lanes = rows"
 * (X contiguous along m) o is a slice and j a row, for "lanes = slices"
 * (X contiguous along K) o is a row and j a slice.  Either way the tile of
 * nb lanes is held lane-fastest ([kk][j]), every factor is a small GEMM
 * vectorised along the lanes (never along p, so p = 3 wastes nothing), and
 * the input is read directly when in_lane == 1 and transposed through
 * registers when in_kk == 1 (likewise the output).  Kernel names encode the
 * ISA and type: kb_cpu_<isa>_<slot>_<t>. */
#ifndef KB_CPU_OPT_H
#define KB_CPU_OPT_H

#include <stddef.h>
#include <stdint.h>

/* Factors in one group (longer chains are split into several groups). */
#define KB_CPU_GROUP_MAXF 24

typedef struct {
  int nf;                             /* factors in the group, 1..KB_CPU_GROUP_MAXF */
  int64_t p[KB_CPU_GROUP_MAXF];       /* application order */
  int64_t q[KB_CPU_GROUP_MAXF];
  const void *A[KB_CPU_GROUP_MAXF];   /* packed factors (the kernel table's pack) */
  int64_t P, Q;                       /* prod p, prod q */
  int64_t tile_elems;                 /* elements per lane each tile buffer holds */

  const void *in;
  int64_t in_o, in_lane, in_kk;       /* element strides */
  void *out;
  int64_t out_o, out_lane, out_ll;
  int64_t n_o, nlanes;
  int nb;                             /* lanes per tile: a multiple of the table's vl */

  int in_mem;                         /* input is not in cache: prefetch the next tile's */
  int out_stream;                     /* output will not be read soon: non-temporal stores */
  int final;                          /* 1: out = alpha*conj?(acc) + beta*out */
  int prepared;                       /* uk_nv/uk_mr below are set (the table's prepare) */
  int uk_nv[KB_CPU_GROUP_MAXF], uk_mr[KB_CPU_GROUP_MAXF];
  /* Bytes to bring into L2 while this group computes, a few lines per
   * micro-tile so that the reads overlap the FMAs (the driver passes part
   * of the next row of X); NULL or 0 bytes: none. */
  const void *pf_ahead;
  int64_t pf_ahead_bytes;
  /* digit0 (kb_cpu_plan_t.d0_next_chunk): chunk c + 1 of the input into
   * L2 during chunk c, the same way (unless pf_ahead is set), and, where
   * out is not the final output and every intermediate fits Q elements,
   * the chunk of out as the second of its two buffers */
  int pf_chunk;
  int conj;                           /* conjugate acc before alpha (conj(X)) */
  int beta_zero;                      /* never read out */
  const void *alpha, *beta;
} kb_cpu_group_t;

/* Small factors applied to whole rows in cache, digits kept in natural
 * order ("banded" plans, kb_cpu_plan_t.band): every factor is one step over
 * a row held in a per-thread buffer, ping-pong between two buffers, no
 * transposes (the kernel may take two consecutive digits in one pass: two
 * straight ones through an L1 buffer, or a half-vector step and the pair
 * step after it; see band_kernels.inc).  Step t applies one digit of stride s[t] (the product of the
 * sizes of the faster digits at that point): the row is (a, p, b) with b <
 * s[t] and the step writes y[a, q, b] = sum_k A[q, k] x[a, k, b].
 *  - straight steps (s >= vector length): lanes along b, x loaded per k,
 *    A broadcast (A[t] from pack_t: At[k*q + l]); a masked tail where s is
 *    not a multiple of the vector length;
 *  - banded steps (s < vector length, p == q <= KB_CPU_BAND_MAXP): lanes
 *    along the row, y[i] = sum over d < 2p-1 of c_d[i] x[i + (d-p+1)*s],
 *    c_d[i] = A[l, l + d-p+1] with l = (i/s) % p (0 outside the factor):
 *    2p-1 shifted loads and FMAs per output vector, the coefficient
 *    vectors depend only on the vector's phase (A[t] from pack_band).  The
 *    shifted loads reach pad elements beyond the row on both sides, which
 *    the kernel zeroes (a pad times a zero coefficient must stay zero).
 *    Where band_half is set, banded steps of stride vl/2, and of stride 1
 *    with p = vl/2, run as half-vector steps instead (no zero FMAs).
 *  - slice GEMMs (s == 1, q a multiple of vl, not banded): the slices of
 *    the row against At (pack_t), outputs in place (kb_d0_run).
 *  - fused straight steps (two equal square factors of 2 or 3, both of
 *    stride >= vector length): the outer digit (stride p*s) and the inner
 *    one (stride s) in one pass, the p*p intermediate vectors of a block
 *    in registers (A[t] the outer factor, Ai[t] the inner, both pack_t):
 *    half the loads, stores and loop overhead of two steps.
 *  - a straight step of stride vl followed by a slice GEMM of p = q = vl
 *    (double, AVX-512): one pass, the slice GEMM on the straight step's
 *    accumulators by permutes (kb_band_sp; the planner prices it so).
 *  - dense steps (dense[t] = d >= 2: the d fastest digits at once, s = 1):
 *    p[t], q[t] the products of their p and q, A[t] their Kronecker
 *    product transposed, B^T[k*qp + l] with qp = q rounded up to whole
 *    vectors (zeros beyond q), applied to the row's slices of p[t]
 *    contiguous elements as one GEMM (outputs q[t] contiguous, the last
 *    vector of a slice masked): more FMAs than the digits one by one, but
 *    FMA-bound micro-tiles where banded steps of p = 3 leave most of the
 *    vector ports to zero terms and permutes.
 * Rows are independent: band(b, r0, r1, scratch) does rows [r0, r1) with
 * scratch = two buffers of (2*pad + buf_elems) elements, 64-byte aligned. */
#define KB_CPU_BAND_MAXD 64
#define KB_CPU_BAND_MAXP 8

typedef struct {
  int nd;                             /* steps (a fused step takes two factors) */
  int64_t p[KB_CPU_BAND_MAXD], q[KB_CPU_BAND_MAXD], s[KB_CPU_BAND_MAXD];
  int banded[KB_CPU_BAND_MAXD];
  int fused[KB_CPU_BAND_MAXD];
  int dense[KB_CPU_BAND_MAXD];        /* digits taken by a dense step, else 0 */
  const void *A[KB_CPU_BAND_MAXD], *Ai[KB_CPU_BAND_MAXD];
  int copy_in;                        /* step 0 is banded: the row of X is copied to a buffer first */
  int64_t K, L;                       /* row lengths of X and of Y */
  int64_t pad, buf_elems;             /* per row buffer */
  const void *X;
  int64_t xs_m;                       /* rows of X (contiguous along K) */
  void *Y;
  int64_t ys_m;                       /* rows of Y (contiguous along L) */
  int out_stream;                     /* non-temporal stores to Y */
  int beta_zero;                      /* never read Y */
  const void *alpha, *beta;
  /* seg_in > 0: steps [seg_t, seg_e) (the fastest digits) run segment by
   * segment, seg_in elements of their input at a time (whole blocks of
   * seg_blk = p*s of step seg_t), every intermediate of a segment in an L1
   * buffer of at most KB_CPU_BAND_SEG_BYTES, so that those digits cross L2
   * once together instead of once each; no band-matrix steps among them
   * (half-vector and pair steps are fine: they read within their blocks).
   * seg_t = 0 < seg_e: the fastest digits first, straight from X (p = q
   * for every digit, so every stride is what it is in the usual order) */
  int seg_t, seg_e;
  int64_t seg_in, seg_blk;
  /* col_t < col_e: steps [col_t, col_e) (straight, square p <= 8,
   * slowest digit first, each stride the next one's times its p, the last
   * one's stride c a whole number of vectors; the steps just before or
   * after the segments) run column by column: for each vector of lanes
   * j < c, the n/c x vl tile of those digits (every element whose faster
   * digits are j .. j+vl-1) in an L1 buffer of at most
   * KB_CPU_BAND_COL_BYTES (on the stack), the first step gathering it from
   * the row, the middle ones in place, the last scattering it to the
   * output (non-temporal stores where that is Y), so that the row crosses
   * L2/L3 once for all of them instead of once per step (rows beyond L2:
   * 16_8x8^6) */
  int col_t, col_e;
  /* col_ld > 0 (column tiles after segments that go first): the row
   * buffer holds the tiles' rows col_ld elements apart, not c; the
   * segments write it so, the column tiles gather from it and write their
   * results back in place, and the row goes to Y in sequence while the
   * next row runs (kb_bpf_copy in band_kernels.inc).  Rows
   * a power of two bytes apart (c = 512 floats: 2 KiB) share two of the
   * 64 L1 sets: the gather missed L1 and every store of the scatter to Y
   * waited on its line (Zen 5: 512 lines 2 KiB apart stored at ~15x the
   * time of the same lines in sequence, loaded at ~3x; 2 KiB + 64 bytes
   * apart, at the time of a sequence) */
  int64_t col_ld;
  /* col_w > 1 (with col_ld, kb_cpu_plan_t.band_col_w): tiles of col_w
   * vectors, the last step writing them straight to Y in runs of
   * KB_CPU_BAND_COL_RUN bytes or more; no copy of the row */
  int64_t col_w;
  /* tdense[t]: the dense step t (tdense[t] equal square digits of p =
   * tdp[t], KB_CPU_BAND_TD_OK) runs across slices (kb_band_tdense): At[t]
   * holds the digits' A^T (At[k*p + l] = A[l, k]), p*p each, the slowest
   * digit first; B->A[t] (the Kronecker product) is not read */
  int tdense[KB_CPU_BAND_MAXD], tdp[KB_CPU_BAND_MAXD];
  const void *At[KB_CPU_BAND_MAXD];
  /* 1: a half-vector step of p = 8 and the pair step after it (float
   * AVX-512) run as one 8 x 8 pass without permutes but the last stage
   * (kb_band_hp8 in band_kernels.inc); 0: through kb_bh and the pair
   * step as before (a test hook, kb_cpu_test_force_band_hp8) */
  int hp8;
} kb_cpu_band_t;
/* Steps t and t + 1 of B are the pair kb_band_hp8 takes as one pass: a
 * half-vector step (stride h, vl/2 of the kernels) of p = 8 and the pair
 * step (stride 1, p = 8) right after it.  The kernels (band_kernels.inc)
 * and the backend's count of the calls that take it ask the same. */
static inline int kb_band_hp8_at(const kb_cpu_band_t *B, int t, int64_t h)
{
  return B->banded[t] && B->s[t] == h && B->p[t] == 8 && B->banded[t + 1] && B->s[t + 1] == 1 &&
         B->p[t + 1] == 8;
}
/* The dense steps kb_band_tdense takes (AVX-512 kernels: band_half): nd
 * square digits of p where p^nd is at least three times nd*p (the FMAs it
 * saves) and at most 36 (a tile of vectors in registers up to 32, then
 * p <= 4; in L1 beyond: 6^2) */
#define KB_CPU_BAND_TD_OK(p, nd) (((p) == 3 && (nd) == 3) || ((p) == 2 && (nd) == 5) || ((p) == 6 && (nd) == 2))
#define KB_CPU_BAND_SEG_BYTES 8192
/* the segments' buffers (band_kernels.inc) hold this much: the planner
 * takes blocks of up to this size where the column tiles after them then
 * write Y directly (KB_CPU_BAND_COL_RUN) */
#define KB_CPU_BAND_SEG_MAX 16384
#define KB_CPU_BAND_COL_BYTES 32768
/* Column tiles of c/vl >= w > 1 vectors: the last step writes runs of
 * w*vl elements, c apart.  Runs of at least this many bytes go straight
 * to Y (non-temporal) instead of back into a padded row buffer that is
 * copied to Y afterwards (col_ld): float 16_8x8^6 on Zen 5, 4-digit
 * segments and 2-digit tiles of 8 vectors, see kb_band_cols. */
#define KB_CPU_BAND_COL_RUN 512

/* Vectors per column tile over r tile rows of c elements: as many as fit
 * KB_CPU_BAND_COL_BYTES, a divisor of c/vl. */
static inline int64_t kb_cpu_band_col_w(int64_t c, int64_t r, int64_t vl, int64_t esz)
{
  const int64_t cv = c / vl;
  int64_t w = KB_CPU_BAND_COL_BYTES / (esz * r * vl);
  if (w > cv)
    w = cv;
  while (w > 1 && cv % w != 0)
    w--;
  return w < 1 ? 1 : w;
}

/* Phases of a banded step: vector v (lanes v*vl ..) has the coefficients
 * of phase v % nph. */
static inline int64_t kb_cpu_band_nph(int64_t p, int64_t s, int vl)
{
  int64_t a = p * s, b = vl, t;
  while (b != 0) {
    t = a % b;
    a = b;
    b = t;
  }
  return p * s / a;
}

/* Elements of a banded step's coefficient table (pack_band). */
static inline int64_t kb_cpu_band_coef_elems(int64_t p, int64_t s, int vl)
{
  return kb_cpu_band_nph(p, s, vl) * (2 * p - 1) * vl;
}

/* Tiles of a group: n_o * ceil(nlanes / nb), numbered o-major. */
static inline int64_t kb_cpu_group_tiles(const kb_cpu_group_t *g)
{
  return g->n_o * ((g->nlanes + g->nb - 1) / g->nb);
}

typedef struct {
  const char *name;                   /* "avx512", "avx2", "generic" */
  int vl;                             /* elements (complex: pairs) per vector */
  int nacc;                           /* accumulator registers a micro-tile may use */
  /* Tiles [t0, t1) of g; scratch holds two tile buffers of
   * g->tile_elems * g->nb elements each, 64-byte aligned. */
  void (*group)(const kb_cpu_group_t *g, int64_t t0, int64_t t1, void *scratch);
  /* Fills g's micro-tile choices once (p, q and nb set), so that calls of
   * group on many rows do not redo them. */
  void (*prepare)(kb_cpu_group_t *g);
  /* A = (conj ? conj : id)(F), A[l, k] = F[l*fs_l + k*fs_k], laid out for
   * group with tiles of nb lanes: in chunks of rows l0..l0+mr, each [k][l]
   * (k-major, so a micro-tile broadcasts consecutive memory); p*q elements. */
  void (*pack)(const void *F, int64_t p, int64_t q, int64_t fs_l, int64_t fs_k, int conj, int nb,
               void *A);
  /* Real types only (NULL for complex): digits kept in place.  digit0
   * applies g (the group of the fastest digits) to chunks [c0, c1) of a
   * contiguous row: chunk c is the P elements at in + c*in_o, its Q outputs
   * go to out + c*out_o in the same digit order (l of the fastest factor
   * contiguous), no transposes; the first factor is packed by pack_t as
   * At[k*q + l] (q a multiple of vl), the others by pack with nb =
   * min(4*vl, the product of q of the factors before it in the group);
   * scratch as for group. */
  void (*digit0)(const kb_cpu_group_t *g, int64_t c0, int64_t c1, void *scratch);
  void (*pack_t)(const void *F, int64_t p, int64_t q, int64_t fs_l, int64_t fs_k, void *At);
  /* Real types only (NULL for complex): banded plans (kb_cpu_band_t).
   * pack_band lays out the coefficient table of a banded step (p x p
   * factor A[l, k] = F[l*fs_l + k*fs_k], stride s): kb_cpu_band_coef_elems
   * elements. */
  void (*band)(const kb_cpu_band_t *b, int64_t r0, int64_t r1, void *scratch);
  void (*pack_band)(const void *F, int64_t p, int64_t fs_l, int64_t fs_k, int64_t s, void *coef);
  /* 1: band runs the banded steps of stride vl/2, and those of stride 1
   * with p = vl/2, as half-vector steps (FMAs without the band's zeros);
   * the planner prices them so */
  int band_half;
} kb_cpu_opt_t;

/* Per ISA, indexed by kronblasDataType_t; NULL entries where the compiler
 * could not build the ISA.  The driver checks the CPU before using one. */
extern const kb_cpu_opt_t *const kb_cpu_opt_avx512[4];
extern const kb_cpu_opt_t *const kb_cpu_opt_avx2[4];
extern const kb_cpu_opt_t *const kb_cpu_opt_generic[4];

#endif /* KB_CPU_OPT_H */
