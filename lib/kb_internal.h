/*
 * kb_internal.h - what the host code of libkronblas shares: the handle, the
 * validated problem every backend receives, the backend table, checking
 * macros, logging and the one place that reads the environment.
 *
 * Nothing here is exported: only kronblas* symbols leave the library (the
 * -export-symbols-regex in Makefile.am), and internal names start with kb_.
 */
#ifndef KB_INTERNAL_H
#define KB_INTERNAL_H

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stddef.h>
#include <stdint.h>

#include "kronblas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ checking */

/* NCCL style: one cleanup label per function, named "out". */
#define KB_CHECK(call) do {                                        \
    kronblasStatus_t kb_st_ = (call);                              \
    if (kb_st_ != KRONBLAS_STATUS_SUCCESS) return kb_st_;          \
  } while (0)

#define KB_CHECK_GOTO(call, st, label) do {                        \
    (st) = (call);                                                 \
    if ((st) != KRONBLAS_STATUS_SUCCESS) goto label;               \
  } while (0)

/* ------------------------------------------------------------- logging */

enum { KB_LOG_NONE = 0, KB_LOG_ERROR = 1, KB_LOG_WARN = 2, KB_LOG_INFO = 3, KB_LOG_DEBUG = 4 };

/* The environment, read once (lib/env.c is the only file that calls getenv). */
typedef struct {
  int log_level;           /* KRONBLAS_LOG_LEVEL: 0..4 or none/error/warn/info/debug */
  const char *log_file;    /* KRONBLAS_LOG_FILE: path, default stderr */
  const char *backend;     /* KRONBLAS_BACKEND: "cpu" or "cuda" for kronblasCreate */
  const char *cpu_isa;     /* KRONBLAS_CPU_ISA: force a CPU kernel ISA (testing) */
  const char *tune;        /* KRONBLAS_TUNE: tuning mode for new handles */
  const char *wisdom_file; /* KRONBLAS_WISDOM_FILE: tuning results file */
  const char *cache_dir;   /* KRONBLAS_CACHE_DIR: JIT kernel cache; "" or "off" disables */
  const char *home;        /* HOME, XDG_CACHE_HOME: defaults for the cache dir */
  const char *xdg_cache_home;
  const char *fault;       /* KRONBLAS_FAULT: fault injection for tests, "KIND:N" */
  double cpu_small_work;   /* KRONBLAS_CPU_SMALL_WORK: small-work limit of the CPU
                            * backend (lib/cpu_backend.c); -1 unset: the default */
} kb_env_t;

const kb_env_t *kb_env(void);

/* FNV-1a, 64 bits, of n bytes continuing from h (KB_FNV_INIT to start):
 * wisdom checksums (lib/wisdom.c), JIT cache keys and checksums
 * (lib/cuda_jit.c), the CPU backend's small-work memo.  Inline: programs
 * that build one of those files alone (t-jit-nvrtc, jit-time) need it too. */
#define KB_FNV_INIT 0xcbf29ce484222325ULL
static inline uint64_t kb_fnv1a(uint64_t h, const void *data, size_t n)
{
  const unsigned char *p = (const unsigned char *)data;
  size_t i;
  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

kronblasTuningMode_t kb_env_tuning_mode(void);

/* Fault injection (testing): with KRONBLAS_FAULT=KIND:N[,KIND:N...] the
 * N-th event of that kind in the process (counted from 1) fails; KIND is
 * "launch" (a kernel or cuBLAS launch of the CUDA backend) or "alloc" (a
 * device workspace allocation).  Returns 1 when this event must fail. */
enum { KB_FAULT_LAUNCH = 0, KB_FAULT_ALLOC = 1 };
int kb_fault(int kind);
void kb_log(int level, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;

/* --------------------------------------------------------------- types */

size_t kb_type_size(kronblasDataType_t type);
int kb_type_is_complex(kronblasDataType_t type);

/* ------------------------------------------------------------- problem */

/*
 * A validated GEKMM, in the library's canonical form.  Both sides and all
 * transposes reduce to: for each of the m vectors r, apply
 *     y_r = (A_0 (x) ... (x) A_{n-1}) x_r       (A_i of size q[i] x p[i])
 * with
 *     x_r[k]      = X[r*xs_m + k*xs_k]          (conjugated if conjX)
 *     y_r[l]      = Y[r*ys_m + l*ys_l]
 *     A_i[l, k]   = F_i[l*fs_l[i] + k*fs_k[i]]  (conjugated if conjF)
 * For SIDE_LEFT A_i = op(F_i); for SIDE_RIGHT A_i = op(F_i)^T.  Exactly one
 * of xs_m/xs_k is 1 (the contiguous direction of X), likewise ys_m/ys_l and
 * fs_l/fs_k.  Every backend works from this form; the original arguments are
 * kept for backends (cuBLAS steps) that prefer them.
 */
typedef struct {
  kronblasDataType_t type;
  kronblasSideMode_t side;
  kronblasOperation_t transX, transF;
  int64_t m, nfactors;
  const int64_t *p, *q;            /* nfactors entries each */
  const void *alpha, *beta;        /* as given; see pointer_mode */
  kronblasPointerMode_t pointer_mode;
  const void *X;
  int64_t ldx;
  const void *const *F;            /* nfactors pointers */
  const int64_t *ldf;              /* nfactors entries */
  void *Y;
  int64_t ldy;

  int64_t batch;                   /* >= 1 when a backend sees it */
  long long strideX, strideY;
  const long long *strideF;        /* nfactors entries; NULL means all 0 */

  /* derived */
  int64_t K, L;                    /* prod p, prod q (K may be 0, L >= 1) */
  int64_t xs_m, xs_k, ys_m, ys_l;
  const int64_t *fs_l, *fs_k;      /* nfactors entries each */
  int conjX, conjF;
  int x_contig_k;                  /* 1: X contiguous along K (xs_k == 1) */
  int y_contig_l;                  /* 1: Y contiguous along L (ys_l == 1) */
  int f_contig_k;                  /* 1: factors contiguous along k (fs_k == 1) */
  int alpha_is_zero;               /* host pointer mode only; else 0 */
  int beta_is_zero;                /* host pointer mode only; else 0 */
} kb_problem_t;

/* Extent in elements of a column-major matrix with this many rows/cols and
 * leading dimension: 0 if empty, else ld*(cols-1)+rows. */
int64_t kb_matrix_extent(int64_t rows, int64_t cols, int64_t ld);

/* ------------------------------------------------------------- backend */

struct kronblasContext;

typedef struct kb_backend {
  const char *name;
  /* Set up h->backend_state.  NOT_SUPPORTED if this backend cannot run here. */
  kronblasStatus_t (*init)(struct kronblasContext *h);
  void (*fini)(struct kronblasContext *h);
  /* Run a validated problem with m > 0, L > 0, batch > 0.  Handles alpha = 0,
   * K = 0 and beta = 0 itself.  Writes nothing on error where it can. */
  kronblasStatus_t (*gekmm)(struct kronblasContext *h, const kb_problem_t *pb);
  /* Bytes of workspace gekmm needs for one batch entry of pb (pointers in pb
   * may be NULL). */
  kronblasStatus_t (*workspace_size)(struct kronblasContext *h, const kb_problem_t *pb, size_t *bytes);
  /* Called on kronblasSetStream; NULL means the backend has no streams. */
  kronblasStatus_t (*set_stream)(struct kronblasContext *h, void *stream);
  /* Called on kronblasSetWorkspace after the handle recorded it; may be NULL. */
  kronblasStatus_t (*set_workspace)(struct kronblasContext *h, void *ws, size_t bytes);

  /* Wisdom (lib/wisdom.c owns the file format; backends own what a plan
   * means).
   * wisdom_ident writes the identity measured plans belong to as lines
   * "name value\n" (e.g. "device NVIDIA H100 ...\nsm_count 132\n"); a file
   * is used only where every line matches.  wisdom_each calls put once per
   * measured plan held by the handle, key and plan being single-line
   * printable strings the backend chose.  wisdom_add gives one plan back:
   * INVALID_VALUE if the backend cannot use it here (unknown kernel,
   * malformed), which the caller reports and skips.  All four NULL: the
 * backend keeps no measured plans. */
  kronblasStatus_t (*wisdom_ident)(struct kronblasContext *h, char *buf, size_t size);
  void (*wisdom_each)(struct kronblasContext *h,
                      void (*put)(void *ctx, const char *key, const char *plan), void *ctx);
  kronblasStatus_t (*wisdom_add)(struct kronblasContext *h, const char *key, const char *plan);
  /* Drops every measured plan the handle holds (kronblasForgetWisdom). */
  void (*wisdom_forget)(struct kronblasContext *h);
} kb_backend_t;

extern const kb_backend_t kb_cpu_backend;
#ifdef HAVE_CUDA
extern const kb_backend_t kb_cuda_backend;
/* 1 if the CUDA runtime sees at least one usable device; never aborts and
 * never needs the driver to be installed. */
int kb_cuda_device_available(void);
#endif

/* -------------------------------------------------------------- handle */

#define KB_HANDLE_MAGIC 0x6b726f6e626c6173ULL   /* "kronblas" */

struct kronblasContext {
  uint64_t magic;
  kronblasBackend_t backend;
  const kb_backend_t *ops;
  void *backend_state;
  kronblasPointerMode_t pointer_mode;
  void *stream;
  void *user_ws;                  /* kronblasSetWorkspace; NULL: none */
  size_t user_ws_bytes;
  void *own_ws;                   /* host workspace owned by the handle (CPU backend) */
  size_t own_ws_bytes;
  int nthreads;                   /* 0: OpenMP default */
  /* Planning settings, kept here so that Set/Get agree on every backend;
   * only the CUDA backend acts on them today. */
  kronblasKernelPolicy_t kernel_policy;
  kronblasTuningMode_t tuning_mode;   /* starts from KRONBLAS_TUNE */
  /* CPU backend: the last call's thread count under the small-work rule
   * (lib/cpu_backend.c), by a hash of what it depends on, so that a shape
   * called again is not priced again; cpu_small_key 0: none */
  uint64_t cpu_small_key;
  int cpu_small_threads;
  /* CPU backend: the model's plan of the last call and its key
   * (lib/cpu_backend.c kb_cpu_memo_plan), NULL until the first */
  void *cpu_plan_memo;
  /* CPU backend: the intermediate of calls split in two (lib/cpu_backend.c
   * kb_cpu_gekmm_split), grown on demand, freed with the handle */
  void *cpu_split_buf;
  size_t cpu_split_bytes;
};

/* NOT_INITIALIZED unless h is a live handle of this process.  Never reads
 * through a pointer that is not a live handle. */
kronblasStatus_t kb_handle_check(kronblasHandle_t h);

/* Host workspace of at least bytes for the CPU backend: the user's if set
 * (ALLOC_FAILED if too small), else the handle's own, grown on demand. */
kronblasStatus_t kb_host_workspace(kronblasHandle_t h, size_t bytes, void **ws);

#ifdef __cplusplus
}
#endif

#endif /* KB_INTERNAL_H */
