/* cuda_internal.h - what the CUDA backend's host files share: the state a
 * CUDA handle carries and the planner. */
#ifndef KB_CUDA_INTERNAL_H
#define KB_CUDA_INTERNAL_H

#include "kb_internal.h"
#include "../kernels/cuda/kb_cuda_kernels.h"

/* Device workspace the handle may keep for batch chunks, beyond the one
 * batch entry a call needs (bigger chunks mean fewer launches). */
#define KB_CUDA_WS_CHUNK_BYTES ((size_t)256 << 20)

typedef struct {
  int device;
  int nsm;
  void *ws;                 /* device workspace owned by the handle */
  size_t ws_bytes;
  struct kb_cuda_plan_entry *plans;   /* measured plans (cuda_tune.c) */
  struct kb_cuda_plan_entry *model_plans;   /* the model's, kept per key */
  void *cublas;             /* cublasHandle_t, created at the first cuBLAS step */
  void *cublas_stream;      /* the stream cs->cublas was last set to */
} kb_cuda_state_t;

/* Runs one planned step (kernel launch or cuBLAS call) on a stream;
 * returns a cudaError_t. */
int kb_cuda_step(kb_cuda_state_t *cs, const kb_cuda_step_t *st, void *stream);
/* Can factor p x q at input length K be a cuBLAS step (last: it writes Y)? */
int kb_cuda_cublas_usable(const kb_problem_t *pb, int64_t p, int64_t q, int64_t K, int last);

/* A step of the column plan (lib/cuda_cublas.c): X, the intermediates and
 * Y all contiguous along m, one strided-batched GEMM per factor.  A host
 * code kind next to KB_KERNEL_GENERIC and KB_KERNEL_CUBLAS. */
#define KB_KERNEL_CUBLAS_COL (-3)
/* A step of the natural-order plan (lib/cuda_cublas.c): X, the
 * intermediates and Y contiguous along K/L with the digits in their
 * natural order, one cuBLAS GEMM (or batch of GEMMs) per factor, as the
 * per-factor GEMM baseline does.  (-4 is KB_KERNEL_SMALL.) */
#define KB_KERNEL_CUBLAS_NAT (-5)
void kb_cuda_cublas_fini(kb_cuda_state_t *cs);

/* Workspace for up to want batch entries of per bytes each: the user's
 * (ALLOC_FAILED if it cannot hold one entry), else the handle's, grown on
 * demand.  *entries gets how many entries fit. */
kronblasStatus_t kb_cuda_workspace_get(struct kronblasContext *h, size_t per, int64_t want,
                                       void **ws, int64_t *entries);

/* One planned launch: factors i_hi, i_hi-1, ..., i_hi-nf+1 (applied in that
 * order) with a fast configuration or the whole-vector kernel
 * (KB_KERNEL_SMALL), or one factor (nf == 1) with the generic kernel
 * (KB_KERNEL_GENERIC) or cuBLAS (KB_KERNEL_CUBLAS). */
typedef struct {
  int64_t i_hi;
  int nf;
  int kernel;
} kb_cuda_pstep_t;

/* Splits the factors of pb into launches, or takes the column plan where
 * it is usable and modelled faster (always under KRONBLAS_KERNELS_CUBLAS),
 * or a natural-order plan with sub-vector steps where modelled faster
 * (kb_cuda_plan_nat_sub); steps has room for nfactors entries.  nsm: multiprocessors of the
 * device.  Returns the number of launches. */
int64_t kb_cuda_plan(const kb_problem_t *pb, int policy, int nsm, kb_cuda_pstep_t *steps);
/* The device rates the model prices launches with, given instead of read
 * from the current device: bw the bytes/s of a fast launch (an H100's
 * 2.85e12, an H200's about 4.18e12), fma its FMA rate against an H100's
 * (SMs x clock).  For tests and tools/jit-time, which plan for a device
 * that is not there; bw or fma <= 0 goes back to reading the device. */
void kb_cuda_model_rates(double bw, double fma);
/* The model's split alone, never the column plan; *total (if total) its
 * modelled seconds. */
int64_t kb_cuda_plan_sliced(const kb_problem_t *pb, int policy, int nsm, kb_cuda_pstep_t *steps, double *total);
/* The model's best natural-order plan with sub-vector steps (above): the
 * trailing group's plan from precompiled kernels only (planning it must
 * not compile JIT kernels the call may not use), a fused launch in it,
 * the leading factors as cublas_nat steps priced as cuBLAS steps.  0
 * where there is none; else its steps (room for nfactors) and *total. */
int64_t kb_cuda_plan_nat_sub(const kb_problem_t *pb, int policy, int nsm, kb_cuda_pstep_t *steps, double *total);

/* The split alone (no column plan) with another cost: seconds of one
 * launch at factor i (input length K) applying nf factors with a fast
 * configuration (kernel >= 0), the generic kernel (-1), cuBLAS or the
 * whole-vector kernel (KB_KERNEL_SMALL); negative means unusable.  *total
 * (if total) gets the split's cost. */
typedef double (*kb_cuda_cost_fn)(void *ctx, int64_t i, int64_t K, int kernel, int nf);
int64_t kb_cuda_plan_with(const kb_problem_t *pb, int policy, kb_cuda_cost_fn cost, void *ctx,
                          kb_cuda_pstep_t *steps, double *total);

/* The column plan (X, the intermediates and Y contiguous along m: RIGHT/N;
 * one cuBLAS GEMM per factor, KB_KERNEL_CUBLAS_COL): whether pb may run it
 * under the kernel policy (real type, host scalars, leading dimensions in
 * cuBLAS' int); its steps come from kb_cuda_gemm_steps.  The planners
 * weigh it against the sliced plans (kb_cuda_plan, kb_cuda_tune); a plan
 * is a column plan when its first step's kernel is KB_KERNEL_CUBLAS_COL,
 * and then all its steps are. */
int kb_cuda_col_usable(const kb_problem_t *pb, int policy);
/* The natural-order plan (KB_KERNEL_CUBLAS_NAT, every step one): whether pb
 * may run it (real type, host scalars, X along K and Y along L, policy ALL
 * or CUBLAS, sizes in cuBLAS' int); kb_cuda_nat_post: the step's post for
 * factor i. */
int kb_cuda_nat_usable(const kb_problem_t *pb, int policy);
int64_t kb_cuda_nat_post(const kb_problem_t *pb, int64_t i);
/* A natural-order plan may start with steps of any other kind that apply
 * the trailing factors g0..n-1 (g0 >= 1) to sub-vectors: vector r of X is
 * (pre, K') with pre = p[0] * ... * p[g0-1] and K' the trailing factors'
 * inputs, and (r, a < pre) is one vector of the sub-problem of m * pre
 * vectors of length K' (kb_cuda_nat_sub), planned and launched as its own
 * GEKMM; its output, natural order, is what the cublas_nat steps of
 * factors g0-1..0 take.  (16_64x64^3: the fused whole-vector 64^2 launch
 * over 1024 vectors of 4096, then one GEMM, where three GEMMs of an inner
 * dimension of 64 run at ~20 TFLOP/s.)  The sub-vectors of X are
 * contiguous only when its rows are (kb_cuda_nat_sub_usable).
 * kb_cuda_nat_nsub: how many steps of a plan run on sub-vectors (0 where
 * none, or the plan is not a natural-order one). */
int kb_cuda_nat_sub_usable(const kb_problem_t *pb, int policy);
int64_t kb_cuda_nat_nsub(const kb_cuda_pstep_t *steps, int64_t nsteps);
/* The sub-problem of factors g0..n-1 (sub borrows pb's arrays; its X and
 * Y are not set: the planners and the tuner only look at its shape). */
void kb_cuda_nat_sub(const kb_problem_t *pb, int64_t g0, kb_problem_t *sub);
/* A plan of one GEMM step per factor, last first, all of kind kernel
 * (KB_KERNEL_CUBLAS_COL or KB_KERNEL_CUBLAS_NAT); returns nfactors. */
int64_t kb_cuda_gemm_steps(const kb_problem_t *pb, int kernel, kb_cuda_pstep_t *steps);

/* Measured planning (seed, Section 4.3): every usable launch at every
 * factor position is timed with CUDA events on the handle's stream, on
 * workspace buffers, and the split of least measured time is kept in the
 * handle for problems of the same key (type, X contiguous along K, Y
 * contiguous along L, pointer mode, kernel policy, m, p[], q[]).
 * kb_cuda_plan_cached returns the number of steps of a plan found for pb
 * (0 if none); kb_cuda_tune measures, remembers and returns one. */
int64_t kb_cuda_plan_cached(struct kronblasContext *h, const kb_problem_t *pb, kb_cuda_pstep_t *steps);
kronblasStatus_t kb_cuda_tune(struct kronblasContext *h, const kb_problem_t *pb,
                              kb_cuda_pstep_t *steps, int64_t *nsteps);
void kb_cuda_plans_free(kb_cuda_state_t *cs);
/* The configuration word of kernel (kb_cuda_cfg_format), as the logs
 * name launches, or "" where kernel is not a fast configuration. */
const char *kb_cuda_kernel_word(int kernel, char *buf, int size);
/* The slice-GEMM kernel (kernels/cuda/gemm.cu) in plans: whether
 * instantiation index may apply factor i of pb at input length K (float,
 * host scalars, X along K where it reads X, Y along L where it writes Y);
 * its word in tuning files (returns the length, -1 if size is too small);
 * the instantiation a word names, -1 if none. */
int kb_cuda_gemm_usable(const kb_problem_t *pb, int64_t i, int64_t K, int index);
int kb_cuda_gemm_word(int index, char *buf, int size);
int kb_cuda_gemm_parse(const char *word);
/* The model's plan (kb_cuda_plan), kept per key in the handle. */
int64_t kb_cuda_model_plan(struct kronblasContext *h, const kb_problem_t *pb, kb_cuda_pstep_t *steps);
void kb_cuda_model_plans_free(kb_cuda_state_t *cs);

/* Wisdom hooks of the backend table (kb_backend_t; lib/cuda_tune.c). */
kronblasStatus_t kb_cuda_wisdom_ident(struct kronblasContext *h, char *buf, size_t size);
void kb_cuda_wisdom_each(struct kronblasContext *h,
                         void (*put)(void *ctx, const char *key, const char *plan), void *ctx);
kronblasStatus_t kb_cuda_wisdom_add(struct kronblasContext *h, const char *key, const char *plan);
void kb_cuda_wisdom_forget(struct kronblasContext *h);

#endif /* KB_CUDA_INTERNAL_H */
