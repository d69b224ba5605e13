/*
 * kb_bench.h - what the parts of tools/kronblas-bench share: the problem of
 * one benchmark row, the baseline plans (per-factor GEMMs, the shuffle) that
 * the CPU (OpenBLAS) and GPU (cuBLAS) executors both run, and the result of
 * one row.
 *
 * Baseline plans are built once, on the host, from the canonical form of the
 * problem, so that the CPU and GPU baselines are the same algorithm and a
 * mistake in the index arithmetic shows up in both (and is caught by the
 * comparison with kronblas' result).
 */
#ifndef KB_BENCH_H
#define KB_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <kronblas.h>

#include "kb_shapes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KB_BENCH_MAXF KB_SHAPE_MAXF
#define KB_BENCH_MAXOPS (2 * KB_BENCH_MAXF + 2)

/* ------------------------------------------------------------ problem */

/* Shapes: tools/kb_shapes.h. */
typedef kb_shape_t kb_bench_shape_t;

/* One benchmark row: a shape with a type, side and transposes, stored with
 * exact leading dimensions. */
typedef struct {
  const kb_bench_shape_t *shape;
  kronblasDataType_t type;
  size_t esz;
  int cplx;
  kronblasSideMode_t side;
  kronblasOperation_t transX, transF;
  int64_t m, n;
  const int64_t *p, *q;
  int64_t K, L;
  int64_t smax;                /* longest vector during the chain (>= K, L) */
  int64_t xrows, xcols, yrows, ycols;
  int64_t ldx, ldy;
  int64_t frows[KB_BENCH_MAXF], fcols[KB_BENCH_MAXF], ldf[KB_BENCH_MAXF];
  int64_t xcount, ycount, fcount[KB_BENCH_MAXF];   /* elements stored */
  /* canonical form, as doc/internals.md describes it */
  int x_contig_k, y_contig_l;  /* else contiguous along m */
  int f_contig_k;              /* stored factor is A^T (p x q), else A (q x p) */
  int conjX, conjF;            /* complex only */
  double flops;                /* real flops: sum 2 m K_i q_i, x4 for complex */
  double bytes;                /* bytes of X + bytes of Y (Y twice, read and written, where beta != 0) */
  double beta;                 /* kronblas' beta (--beta; alpha is 1); kb_bench_prob_set_beta */
} kb_bench_prob_t;

/* Fills pb; 0 on success, -1 when sizes overflow. */
int kb_bench_prob_init(kb_bench_prob_t *pb, const kb_bench_shape_t *sh, kronblasDataType_t type,
    kronblasSideMode_t side, kronblasOperation_t transX, kronblasOperation_t transF);

/* Sets the row's beta (0 unless --beta); where it is not 0 kronblas reads Y,
 * and the roofline counts Y's bytes twice. */
void kb_bench_prob_set_beta(kb_bench_prob_t *pb, double beta);

/* One kronblas?gekmm_64 call of the row with alpha 1 and pb->beta, on the
 * pointers of the handle's backend. */
kronblasStatus_t kb_bench_call(kronblasHandle_t h, const kb_bench_prob_t *pb, const void *X,
    const void *const *F, void *Y);

/* ----------------------------------------------------- baseline plans */

enum { KB_BENCH_BUF_X = 0, KB_BENCH_BUF_Y = 1, KB_BENCH_BUF_W0 = 2, KB_BENCH_BUF_W1 = 3 };
enum { KB_BENCH_OP_GEMM = 0, KB_BENCH_OP_PERMUTE = 1 };

/*
 * One step of a baseline.  GEMM (column-major, alpha 1, beta 0):
 *   C(M x N) = op(A)(M x Kd) * op(B)(Kd x N), batch times, with
 *   A = data (src), B = factor when data_is_a, else A = factor, B = data;
 *   batch entries are sd apart in the data and sc apart in C; the factor is
 *   shared by all of them.
 * PERMUTE: src viewed as a column-major (inner, d1, d2, outer) array is
 *   written to dst as (inner, d2, d1, outer).
 */
typedef struct {
  int kind;
  int src, dst;                /* KB_BENCH_BUF_* */
  int factor;
  int data_is_a;
  char opa, opb;               /* 'N', 'T' or 'C' */
  int64_t M, N, Kd, lda, ldb, ldc, sd, sc, batch;
  int64_t inner, d1, d2, outer;
} kb_bench_op_t;

typedef struct {
  int ok;                      /* 0: cannot be expressed; why says so */
  char why[160];
  int nops;
  kb_bench_op_t op[KB_BENCH_MAXOPS];
  int64_t ws_elems;            /* elements of each of W0, W1 */
} kb_bench_plan_t;

/* Per-factor GEMMs with no transposes (cuBLAS strided-batched style). */
void kb_bench_plan_gemm(const kb_bench_prob_t *pb, kb_bench_plan_t *pl);
/* The shuffle algorithm: per factor one GEMM and a transpose (GPyTorch). */
void kb_bench_plan_shuffle(const kb_bench_prob_t *pb, kb_bench_plan_t *pl);

/* --------------------------------------------------------- checking */

/* Largest |a - b| allowed between two factor-by-factor computations of the
 * problem with these host copies of X and the factors:
 *   tol * (sum(p_i + 1) + 2) * eps * prod ||A_i||_inf * max|x|,
 * a first-order bound on each element's rounding error. */
double kb_bench_abs_bound(const kb_bench_prob_t *pb, const void *X, const void *const *F, double tol);
/* max |a - b| over the stored Y (ldy, both with pb's layout); NaN/Inf in
 * either gives +Inf. */
double kb_bench_max_diff(const kb_bench_prob_t *pb, const void *a, const void *b);

/* ------------------------------------------------------------- result */

typedef struct {
  int ran;                     /* kronblas ran (else note says why) */
  double ms, gflops, floor_pct;                   /* NaN when unknown */
  double gemm_pct;                                /* GFLOP/s as % of the in-run GEMM rate; NaN when unknown */
  double copy_pct;                                /* (bytes of X + Y) / s as % of the in-run copy
                                                     bandwidth (issue 4's m = 1 target); NaN when unknown */
  double shuffle_ms, gemm_ms;                     /* NaN when not run */
  int shuffle_bad, gemm_bad;                      /* result differs from kronblas */
  double shuffle_err, gemm_err, err_bound;
  char shuffle_note[320], gemm_note[320];
  const char *verify;                             /* "PASS", "FAIL" or "-" */
  char verify_msg[240];
  char note[320];
  int threads;
  int calls;                   /* calls a timed rep: --calls on GPU rows, 1 on CPU rows */
  const char *backend;
} kb_bench_result_t;

void kb_bench_result_init(kb_bench_result_t *r);

/* Options every mode needs. */
typedef struct {
  int warmup, reps, threads, verify, baselines;
  int calls;                   /* GPU: calls between one pair of events (a rep's time is their mean) */
  double max_mem;              /* bytes; 0: the mode's default */
  double beta;                 /* --beta (default 0) */
  uint64_t seed;
} kb_bench_opts_t;

/* What a row needs in both modes before it allocates operands: the
 * workspace kronblas reports (h may be NULL: then 0), both baseline plans,
 * room for reps timings, and the bytes the row needs: *base for X, Y, the
 * factors and the workspace, *extra for the baselines' buffers.  0 on
 * success; else r->note says why and nothing is left allocated.  Release
 * with kb_bench_row_end. */
int kb_bench_row_begin(kronblasHandle_t h, const kb_bench_prob_t *pb, int reps, kb_bench_result_t *r,
    size_t *ws, kb_bench_plan_t **shuf, kb_bench_plan_t **gemm, double **t, double *base, double *extra);
void kb_bench_row_end(kb_bench_plan_t *shuf, kb_bench_plan_t *gemm, double *t);

/* Median of n doubles (sorts v). */
double kb_bench_median(double *v, int n);

/* Fills the buffers with reproducible random data for one row. */
void kb_bench_fill(const kb_bench_prob_t *pb, uint64_t seed, void *X, void *const *F);

/* Checks Y (host, written with alpha 1, beta 0) against the oracle or the
 * identity; fills r->verify and r->verify_msg. */
void kb_bench_verify(const kb_bench_prob_t *pb, const void *X, const void *const *F, const void *Y,
    uint64_t seed, kb_bench_result_t *r);

/* Fills floor_pct, gemm_pct and copy_pct from the row's time and the ceilings
 * (bytes/s, flop/s; <= 0 when unknown). */
void kb_bench_floor(const kb_bench_prob_t *pb, double gemm_rate, double copy_bw, kb_bench_result_t *r);

/* ------------------------------------------------------- CPU baselines */

/* 1 when built with OpenBLAS. */
int kb_bench_cpu_have_blas(void);
/* Waits until OpenBLAS' threads have gone idle, if OpenBLAS ran since the
 * last call; call before timing kronblas. */
void kb_bench_cpu_settle(void);
/* In-run ceilings with nthreads threads: GEMM flop/s of this type on a
 * large square problem, and copy bandwidth (bytes read + written per s). */
double kb_bench_cpu_gemm_rate(kronblasDataType_t type, int nthreads);
double kb_bench_cpu_copy_bw(int nthreads);
/* OpenBLAS' kernel set ("core"), and, where it runs no AVX-512 kernels on a CPU
 * with AVX-512 (OPENBLAS_CORETYPE says so, or the CPU is newer than its
 * table), the AVX-512 core to name in OPENBLAS_CORETYPE instead; NULL when
 * none (or without OpenBLAS). */
const char *kb_bench_cpu_blas_core(void);
const char *kb_bench_cpu_blas_better_core(void);
/* Runs a plan once; W0, W1 hold pl->ws_elems elements each. 0 on success. */
int kb_bench_cpu_run_plan(const kb_bench_prob_t *pb, const kb_bench_plan_t *pl, const void *X,
    const void *const *F, void *Y, void *W0, void *W1, int nthreads);

/* ------------------------------------------------------------ GPU mode */

/* 1 when built with CUDA. */
int kb_bench_gpu_built(void);
/* Runs every row of the GPU benchmark for one shape and type.  h is a CUDA
 * handle or NULL when the CUDA backend is not available (then only the
 * baselines run).  Returns 0, or -1 when the device cannot be used at all. */
int kb_bench_gpu_row(kronblasHandle_t h, const kb_bench_prob_t *pb, const kb_bench_opts_t *o,
    kb_bench_result_t *r);
/* Opens the device (1 if one is usable) and closes it at the end. */
int kb_bench_gpu_open(char *desc, size_t desc_len);
void kb_bench_gpu_close(void);
/* Ceilings measured on the device: GEMM flop/s of the type without TF32 and
 * copy bandwidth (bytes read + written per s); <= 0 when not measured.
 * calls: back-to-back operations a timed rep (--calls), so that the
 * ceilings are timed as the rows are. */
double kb_bench_gpu_gemm_rate(kronblasDataType_t type, int calls);
double kb_bench_gpu_copy_bw(int calls);

/* Device transpose of the shuffle baseline (tools/bench_gpu_kernels.cu):
 * src as (inner, d1, d2, outer) -> dst as (inner, d2, d1, outer), elements
 * of esz bytes (4, 8 or 16).  Returns a cudaError_t. */
int kb_bench_cuda_permute(const void *src, void *dst, size_t esz, int64_t inner, int64_t d1,
    int64_t d2, int64_t outer, void *stream);
/* count floats (is_double 0) or doubles, uniform in [-1, 1), on the device. */
int kb_bench_cuda_fill(void *x, int64_t count, int is_double, uint64_t seed, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* KB_BENCH_H */
