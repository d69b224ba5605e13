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
  int conj;                           /* conjugate acc before alpha (conj(X)) */
  int beta_zero;                      /* never read out */
  const void *alpha, *beta;
} kb_cpu_group_t;

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
} kb_cpu_opt_t;

/* Per ISA, indexed by kronblasDataType_t; NULL entries where the compiler
 * could not build the ISA.  The driver checks the CPU before using one. */
extern const kb_cpu_opt_t *const kb_cpu_opt_avx512[4];
extern const kb_cpu_opt_t *const kb_cpu_opt_avx2[4];
extern const kb_cpu_opt_t *const kb_cpu_opt_generic[4];

#endif /* KB_CPU_OPT_H */
