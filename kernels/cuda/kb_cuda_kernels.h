/* kb_cuda_kernels.h - the interface between the CUDA backend's host code
 * (lib/cuda_ files, plain C) and its device code (the .cu files here).
 *
 * The host side plans a problem as a list of steps; each step is one kernel
 * launch that applies one factor, or several consecutive factors fused in
 * shared memory, to every vector of a batch chunk.  A step reads its input
 * vectors and writes its output vectors through explicit strides, so the
 * same kernels serve X, the workspace intermediates and Y.
 *
 * For vector r of batch entry b, the step computes (factors applied in
 * order f = 0 .. nf-1, f = 0 being the rightmost factor of the group):
 *     v_0 = in[b*in_bs + r*in_rs + k*in_is]               k < K
 *     v_{f+1}[l*S_f + s] = sum_{k<p_f} A_f[l,k] * v_f[s*p_f + k],  S_f = len(v_f)/p_f
 *     A_f[l,k] = F_f[b*f_bs_f + l*fs_l_f + k*fs_k_f]      (conjugated if conjF)
 * and stores v_nf into out (epilogue below).  in is conjugated if conj_in. */
#ifndef KB_CUDA_KERNELS_H
#define KB_CUDA_KERNELS_H

/* NVRTC compiles this file too (lib/cuda_jit.c embeds it): it has no
 * system headers, so it gets minimal stand-ins, and the host-only parts
 * are hidden from it. */
#ifdef __CUDACC_RTC__
typedef long int64_t;
typedef unsigned long uint64_t;
typedef unsigned long uintptr_t;
#define INT_MAX 2147483647
#else
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Factors one fused step may carry. */
#define KB_CUDA_MAXF 8

enum {
  KB_EPI_NONE = 0,    /* out = v (an intermediate) */
  KB_EPI_AXPBY = 1,   /* out = alpha*v + beta*out; out not read when beta is 0 */
  KB_EPI_ALPHA = 2    /* out = alpha*v (Y overlaps an input: blended later) */
};

enum { KB_KERNEL_GENERIC = -1, KB_KERNEL_CUBLAS = -2 };
/* The whole-vector fused kernel (kernels/cuda/small.cu): a step of nf
 * factors of any shapes whose intermediates fit in shared memory.  (-3 is
 * the column plan's, lib/cuda_internal.h.) */
enum { KB_KERNEL_SMALL = -4 };
/* The whole-row kernel (kernels/cuda/row.cu): a step of all nf >= 2 factors
 * of a problem, every one P x P with the same P, whose vectors fit in
 * shared memory whole; each digit updated in place.  (-5 is the
 * natural-order plan's, lib/cuda_internal.h.) */
enum { KB_KERNEL_ROW = -6 };
/* Whole-row kernel steps with the cluster size C (1 or an instantiated
 * cluster), the block size T (64..512, a multiple of 64) and the next
 * vector's prefetch PF (0 or 1, row.cu) fixed instead of chosen by
 * kb_cuda_row_geom: kernel KB_KERNEL_ROW_VAR - (256 * PF + 16 * C + T / 64).
 * Only the measured planner takes them (the model cannot rank them). */
enum { KB_KERNEL_ROW_VAR = -64 };
/* The slice-GEMM kernel (kernels/cuda/gemm.cu): one float factor of P x Q
 * (P, Q of its instantiations) as a register-tiled GEMM per vector over a
 * resident grid, the factor held in shared memory (or two to four fused
 * factors: its pair, trip8, trip16 and quad8 kernels); instantiation i is
 * kernel KB_KERNEL_GEMM_0 - i: -16 down to -47, clear of the whole-row
 * variants (KB_KERNEL_ROW_VAR - 17 and below); gemm.cu asserts its table fits. */
enum { KB_KERNEL_GEMM_0 = -16, KB_KERNEL_GEMM_MAX = 32 };
#ifndef __CUDACC_RTC__   /* host functions: NVRTC refuses them (JIT source) */
static inline int kb_cuda_kernel_is_gemm(int k) { return k <= KB_KERNEL_GEMM_0 && k > KB_KERNEL_GEMM_0 - KB_KERNEL_GEMM_MAX; }
static inline int kb_cuda_row_var_kernel(int C, int T, int pf)
{
  return KB_KERNEL_ROW_VAR - (256 * pf + 16 * C + T / 64);
}
static inline int kb_cuda_kernel_is_row(int k) { return k == KB_KERNEL_ROW || k < KB_KERNEL_ROW_VAR; }
/* C, T and PF of a variant; 0, 0 and -1 for KB_KERNEL_ROW (the geometry's
 * choice). */
static inline int kb_cuda_row_var_C(int k) { return k < KB_KERNEL_ROW_VAR ? (KB_KERNEL_ROW_VAR - k) % 256 / 16 : 0; }
static inline int kb_cuda_row_var_T(int k) { return k < KB_KERNEL_ROW_VAR ? (KB_KERNEL_ROW_VAR - k) % 16 * 64 : 0; }
static inline int kb_cuda_row_var_PF(int k) { return k < KB_KERNEL_ROW_VAR ? (KB_KERNEL_ROW_VAR - k) / 256 : -1; }
#endif

typedef struct {
  int type;                          /* kronblasDataType_t */
  int64_t m, batch;                  /* vectors per entry, entries in this launch */
  int64_t K;                         /* input vector length */
  int nf;                            /* factors in this step, 1..KB_CUDA_MAXF */
  int64_t p[KB_CUDA_MAXF], q[KB_CUDA_MAXF];
  const void *F[KB_CUDA_MAXF];
  int64_t fs_l[KB_CUDA_MAXF], fs_k[KB_CUDA_MAXF], f_bs[KB_CUDA_MAXF];
  int conjF;
  const void *in;
  int64_t in_rs, in_is, in_bs;
  int conj_in;
  void *out;
  int64_t out_rs, out_is, out_bs;
  int epilogue;                      /* KB_EPI_* */
  /* Scalars: in host pointer mode alpha/beta point to host values that are
   * copied into the launch; in device pointer mode they are device pointers
   * read by the kernel, which also decides alpha == 0 / beta == 0 itself. */
  const void *alpha, *beta;
  int dev_scalars;
  int beta_zero;                     /* host mode: beta == 0 */
  int64_t post;                      /* natural-order cuBLAS steps (host code,
                                        lib/cuda_cublas.c): elements of the digits
                                        after this step's, already produced */
  int kernel;                        /* KB_KERNEL_GENERIC, KB_KERNEL_CUBLAS (host
                                        code, lib/cuda_cublas.c) or a fast
                                        configuration's index */
} kb_cuda_step_t;

/* A precompiled fast configuration (FastKron's sliced multiply with
 * thread-block and register tiles and shift caching).  Constraints of use:
 * real type, input contiguous along k (in_is == 1) -- or along m (in_rs == 1,
 * any in_is) where kb_cuda_cfg_mrows says so --, every factor of the step
 * p x q with p == P and q == Q, nf == F, K a multiple of TK. */
typedef struct {
  int type;
  int P, Q, F;
  int TK;            /* input elements of one vector per thread block (NS*P) */
  int TM;            /* vectors per thread block */
  int TP;            /* k-tile of the factor (== P when F > 1) */
  int RK, RQ, RM;    /* register tile: slices, factor columns, vectors */
  int threads;
  int smem;          /* dynamic shared memory bytes */
  int stages;        /* 2: the next tile's loads overlap this tile's multiply */
  int run;           /* consecutive outputs one slab writes: TK / P^F */
  int occupancy;     /* blocks per SM on this device (after kb_cuda_kernels_init) */
  int unroll;        /* k-steps unrolled in the multiply loop (variants of one shape) */
  int vw;            /* elements per vector access: 16 bytes for the precompiled
                        set; 4/2/1 floats, 2/1 doubles where P, Q need less */
  int jit;           /* KB_CFG_* below */
  int variant;       /* 1: a neighbour of a precompiled configuration that only
                        the measured planner considers (lib/cuda_plan.c,
                        kb_jit_variants); not part of the kernel's identity */
} kb_cuda_fast_cfg_t;

enum {
  KB_CFG_TABLE = 0,      /* precompiled into the library */
  KB_CFG_JIT = 1,        /* compiled with NVRTC at its first use (lib/cuda_jit.c) */
  KB_CFG_JIT_FAILED = 2  /* could not be compiled or loaded: never planned again */
};

/* Room of the configuration registry: precompiled plus run-time ones.
 * Entries never move, so indices and pointers stay valid while others
 * are added. */
#define KB_CUDA_MAX_CFGS 1024

#ifndef __CUDACC_RTC__

/* The configuration registry: the precompiled table first, then the
 * configurations added at run time.  kb_cuda_kernels_init fills in the
 * occupancy of the precompiled ones; a JIT one's is estimated from its
 * shared memory and threads until it is loaded.  The array has room for
 * KB_CUDA_MAX_CFGS entries and never moves; *count may grow between
 * calls. */
const kb_cuda_fast_cfg_t *kb_cuda_fast_cfgs(int *count);

/* Whether a configuration's kernel also loads input contiguous along m
 * (in_is != 1): TM a multiple of one 32-byte sector of elements, so that
 * its element-wise loads coalesce (kb_fast.cuh, kb_fast_shape::MROWS). */
static inline int kb_cuda_cfg_mrows(const kb_cuda_fast_cfg_t *cfg)
{
  return cfg->TM % (32 / (cfg->type == 0 ? 4 : 8)) == 0;
}

/* A configuration's factor tile (elements): the F fused factors, or one
 * k-tile of its one factor. */
static inline int64_t kb_cuda_cfg_ftile(const kb_cuda_fast_cfg_t *cfg)
{
  return cfg->F > 1 ? (int64_t)cfg->F * cfg->P * cfg->Q : (int64_t)cfg->TP * cfg->Q;
}

/* Elements from one stage of a configuration's shared memory to the next
 * (kb_fast.cuh, kb_fast_shape::STAGE): the X tile, then the stage's factor
 * tile -- or, for fused factors (F > 1), which every stage reads alike, 4
 * spare elements a vector, the factors being stored once after the last
 * stage (kb_cuda_cfg_smem_elems). */
static inline int64_t kb_cuda_cfg_stage(const kb_cuda_fast_cfg_t *cfg)
{
  const int64_t xt = (int64_t)cfg->TM * (cfg->TK / cfg->P) * cfg->TP;
  return xt + (cfg->F > 1 ? 4 * (int64_t)cfg->TM : kb_cuda_cfg_ftile(cfg));
}

/* A configuration's shared memory (elements; kb_fast_shape::SMEM). */
static inline int64_t kb_cuda_cfg_smem_elems(const kb_cuda_fast_cfg_t *cfg)
{
  return cfg->stages * kb_cuda_cfg_stage(cfg) + (cfg->F > 1 ? kb_cuda_cfg_ftile(cfg) : 0);
}

/* Whether a configuration's kernel stores output contiguous along m
 * (out_is != 1: Y of RIGHT/N) through shared memory, whole sectors of
 * vectors at a time: an MROWS configuration whose tile of outputs fits in
 * one stage of its shared memory (kb_fast.cuh, kb_fast_shape::MSTORE says
 * the same).  Other configurations store such output element by element. */
static inline int kb_cuda_cfg_mstore(const kb_cuda_fast_cfg_t *cfg)
{
  const int64_t ns = cfg->TK / cfg->P;
  return kb_cuda_cfg_mrows(cfg) && cfg->TM * ns * cfg->Q <= kb_cuda_cfg_stage(cfg);
}
/* Fills the derived fields of cfg (threads, smem, run, TK from its tile
 * sizes are taken as given) and checks the kernel's constraints; 0 if the
 * kernel can be instantiated with it, -1 if not. */
int kb_cuda_cfg_complete(kb_cuda_fast_cfg_t *cfg);
/* Adds a run-time (KB_CFG_JIT) configuration, completed and checked, to the
 * registry; returns its index (the existing one if an equal configuration
 * is there), or -1 if it is invalid or the registry is full.  Thread-safe. */
int kb_cuda_cfg_add(const kb_cuda_fast_cfg_t *cfg);

/* A configuration's identity as one printable word (no spaces), the form
 * in which tuning results ("wisdom") name kernels; returns the length
 * written, or -1 if size is too small. */
int kb_cuda_cfg_format(const kb_cuda_fast_cfg_t *cfg, char *buf, int size);
/* The index of the configuration a kb_cuda_cfg_format word names, or -1 if
 * it is malformed or names none this library can run.  A valid word that
 * names no registered configuration adds it as a JIT one where NVRTC is
 * available. */
int kb_cuda_cfg_parse(const char *word);

/* JIT (lib/cuda_jit.c).  kb_cuda_jit_available: libnvrtc could be opened
 * (tried once per process).  kb_cuda_jit_kernel: the loaded kernel of
 * registry entry index (compiled, or read from the disk cache, at the first
 * call per device), as a function handle for cudaLaunchKernel, and the
 * grid that fills the device; returns a cudaError_t and marks the entry
 * KB_CFG_JIT_FAILED when it cannot be had. */
int kb_cuda_jit_available(void);
int kb_cuda_jit_kernel(int index, kb_cuda_fast_cfg_t *cfg, const void **fn, int *max_blocks);

/* Launch one step on a stream (cudaStream_t).  Returns a cudaError_t. */
int kb_cuda_launch_step(const kb_cuda_step_t *st, void *stream);

/* Y[r,l] = beta*Y[r,l] (0 without reading Y when beta is 0), for r < m,
 * l < L, b < batch, Y at b*y_bs + r*ys_m + l*ys_l.  Scalars as in a step
 * (only beta used); in device mode reads *beta on the device.  */
int kb_cuda_launch_scale(int type, int64_t m, int64_t L, int64_t batch,
                         void *Y, int64_t ys_m, int64_t ys_l, int64_t y_bs,
                         const void *beta, int dev_scalars, int beta_zero, void *stream);

/* Y[r,l] = T[r,l] + beta*Y[r,l] (Y not read when beta is 0), one entry. */
int kb_cuda_launch_xpby(int type, int64_t m, int64_t L,
                        const void *T, int64_t ts_m, int64_t ts_l,
                        void *Y, int64_t ys_m, int64_t ys_l,
                        const void *beta, int dev_scalars, int beta_zero, void *stream);

/* The whole-vector fused kernel (KB_KERNEL_SMALL, small.cu): a block takes
 * tm whole vectors of one batch entry and applies the nf factors (p[f] x
 * q[f], application order, any shapes) in shared memory; the last factor's
 * rows are split over lsplit blocks where few vectors would leave SMs idle.
 * kb_cuda_small_geom: 0 and the launch geometry on the current device if
 * the input and every intermediate of one vector fit in its shared memory
 * (opt-in maximum), -1 if not; depends only on type, K, p, q and the
 * device for usability, on m and batch for the geometry. */
typedef struct {
  int tm;            /* vectors per block */
  int lsplit;        /* blocks sharing one group of vectors (rows of the last factor) */
  int stage_f;       /* the factors are staged in shared memory (else read through L1) */
  int nsm;           /* multiprocessors of the device */
  int64_t blocks;    /* thread blocks of the launch */
  int64_t smem;      /* dynamic shared memory bytes per block */
} kb_cuda_small_geom_t;
int kb_cuda_small_geom(int type, int64_t m, int64_t batch, int64_t K, int nf, const int64_t *p,
                       const int64_t *q, kb_cuda_small_geom_t *g);
/* Launches a KB_KERNEL_SMALL step.  Returns a cudaError_t. */
int kb_cuda_small_launch(const kb_cuda_step_t *st, void *stream);

/* The current device (below KB_CUDA_MAXDEV), its multiprocessors and its
 * opt-in shared memory per block, read once per device (small.cu); 0, or
 * -1 without a device. */
#define KB_CUDA_MAXDEV 64
int kb_cuda_dev_props(int *dev, int *nsm, int *smem_max);
/* Tools that plan without a GPU (tools/jit-time -P): the properties
 * kb_cuda_dev_props reports where no device is found.  The library never
 * calls it. */
void kb_cuda_dev_props_assume(int nsm, int smem_max);

/* The whole-row kernel (KB_KERNEL_ROW, row.cu): a block takes one vector,
 * reads its slowest digit's slices from global memory, applies the nf
 * factors digit by digit in place in shared memory, and copies the row out
 * with the epilogue; a vector over one block's shared memory is split over
 * a cluster of blocks by its slowest digit, which is then applied last
 * through distributed shared memory (sm_90).  With pf (double, one block a
 * vector), a resident grid loops over the vectors and each block copies the
 * next one into a second row buffer (cp.async) while it multiplies the
 * current one; the first digit then reads the shared row.
 * kb_cuda_row_geom: 0 and the launch geometry on the current device if the
 * step can run there (real type, nf >= 2 factors, all P x P with one P of
 * the instantiated set, K == P^nf, the vector's share and the factors
 * within the opt-in shared memory), -1 if not.  The launch also needs X and Y contiguous along k
 * (in_is == out_is == 1) and real, unconjugated operands. */
typedef struct {
  int threads;       /* per block */
  int fsm;           /* shared-memory offset of the staged factors (elements) */
  int nsm;           /* multiprocessors of the device */
  int dev;           /* the current device, for which the geometry holds */
  int smem_max;      /* its opt-in shared memory per block (bytes) */
  int cluster;       /* blocks per vector: 1, or a cluster of 2..8 dividing P */
  int pf;            /* 1: two row buffers, the next vector prefetched (row.cu) */
  int64_t blocks;    /* cluster blocks per vector, times the vectors */
  int64_t smem;      /* dynamic shared memory bytes per block */
} kb_cuda_row_geom_t;
int kb_cuda_row_geom(int type, int64_t m, int64_t batch, int64_t K, int nf, const int64_t *p,
                     const int64_t *q, kb_cuda_row_geom_t *g);
/* The same for a step of kernel kern (KB_KERNEL_ROW or a variant): -1 also
 * where the variant's cluster is not instantiated for P or its share does
 * not fit. */
int kb_cuda_row_geom_k(int kern, int type, int64_t m, int64_t batch, int64_t K, int nf, const int64_t *p,
                       const int64_t *q, kb_cuda_row_geom_t *g);
/* Launches a KB_KERNEL_ROW step.  Returns a cudaError_t. */
int kb_cuda_row_launch(const kb_cuda_step_t *st, void *stream);
/* The magic number of a digit stride d (1 <= d < 2^31) for the whole-row
 * kernel's divisions (row.cu): n / d = umulhi(n, mul) >> sh for every
 * n < 2^31; mul = 0 for d = 1. */
void kb_cuda_row_magic(uint32_t d, uint32_t *mul, int *sh);

/* The slice-GEMM kernel's instantiations (KB_KERNEL_GEMM_0 - index):
 * factor P x Q, TS slices of a vector per tile, k-chunks of TKC, stages of
 * the copy pipeline, minimum blocks per SM asked of ptxas, slices stored
 * k-major through registers (kt: 1 kb_gemm_kt_kernel, 2 the same with
 * its warps as 8 x 4 threads, 0 kb_gemm_kernel), threads and dynamic
 * shared memory (bytes) per block, and for kt the k-steps its k-loop
 * unrolls (ku; 0 or TKC: all of a chunk).  F = 2: the pair kernel
 * (kb_gemm_pair_kernel), two fused 16x16 factors, TS slabs of 256 a tile;
 * F = 3: the trip8 kernel, three fused 8x8 factors, TS slabs of 512, or
 * (P = 16) the trip16 kernel, three fused 16x16, TS slabs of 4096; F = 4:
 * the quad8 kernel, four fused 8x8, TS slabs of 4096.
 * kb_cuda_gemm_info: NULL past the last.  kb_cuda_gemm_find: 0 if
 * instantiation index can apply a p x q factor of type (F of them) to
 * vectors of length K, -1 if not.  The launch also needs in_is == out_is
 * == 1, nf == F and host scalars; it copies the input in 16-byte pieces
 * where it is aligned to them, else in 4-byte ones. */
typedef struct {
  int P, Q, TS, TKC, stages, minb, kt, threads, smem;
  int ku;
  int F;             /* factors a step: 1, 2 (the pair kernel), 3 (trip8, trip16) or 4 (quad8) */
  int tma;           /* 1: the outputs stored from shared memory by the TMA (trip16, quad8; ":tma") */
} kb_cuda_gemm_info_t;
int kb_cuda_gemm_count(void);
const kb_cuda_gemm_info_t *kb_cuda_gemm_info(int index);
int kb_cuda_gemm_find(int type, int64_t p, int64_t q, int64_t K, int index);
/* The TMA entries' tensor maps for a float output at out, m rows of K
 * (a multiple of 8 * 4096) at stride rs, beta zero or not: *q8 1 if the
 * quad8 kernel's can be made, *t16 the trip16 kernel's form (1, 2; 0 if
 * none).  Where none is made their launches take the plain kernels. */
void kb_cuda_gemm_tma_maps(void *out, int64_t m, int64_t K, int64_t rs, int beta_zero, int *q8, int *t16);
/* Launches of the TMA entries in this process so far: *tma those that
 * stored by TMA, *plain those that took the plain kernel (no map). */
void kb_cuda_gemm_tma_counts(long long *tma, long long *plain);
/* Launches a slice-GEMM step.  Returns a cudaError_t. */
int kb_cuda_gemm_launch(const kb_cuda_step_t *st, void *stream);

/* Makes every fast kernel that needs more than 48 KB of shared memory able
 * to get it on the current device.  Returns a cudaError_t. */
int kb_cuda_kernels_init(void);

#endif /* !__CUDACC_RTC__ */

#ifdef __cplusplus
}
#endif

#endif /* KB_CUDA_KERNELS_H */
