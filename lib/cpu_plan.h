/* cpu_plan.h - how the fast CPU path runs one problem: which ISA's kernels,
 * which consecutive factors are fused into one pass over a tile kept in
 * cache, how tiles map onto rows and slices, how threads share the work,
 * and where everything lives in the workspace. */
#ifndef KB_CPU_PLAN_H
#define KB_CPU_PLAN_H

#include "kb_internal.h"
#include "../kernels/cpu/kb_cpu_opt.h"

/* Problems with more factors take the reference path. */
#define KB_CPU_PLAN_MAXF 64

typedef struct {
  int hi, lo;             /* factors hi, hi-1, ..., lo (hi is applied first) */
  int64_t Kin;            /* vector length the group reads */
  int64_t P, Q, S;        /* prod p, prod q, slices Kin / P */
  int64_t tile_elems;     /* longest local vector inside a tile */
  int nb;                 /* lanes per tile */
} kb_cpu_gplan_t;

enum {
  KB_CPU_PASSES = 0,      /* lanes = rows; each group is one pass over all rows */
  KB_CPU_PER_ROW = 1      /* lanes = slices; all groups run on one row at a time */
};

typedef struct {
  const kb_cpu_opt_t *kt;
  int strategy;
  int split_rows;         /* PER_ROW: threads take whole rows (else share each group's tiles) */
  int nthreads;
  int ngroups;
  kb_cpu_gplan_t g[KB_CPU_PLAN_MAXF];
  size_t esz;
  /* workspace, bytes from its start; each piece 64-byte aligned */
  size_t off_groups;      /* ngroups kb_cpu_group_t, filled per batch entry */
  size_t off_pack[KB_CPU_PLAN_MAXF];
  size_t off_buf[2];      /* PASSES: full intermediates; PER_ROW, shared: the two row buffers */
  int64_t buf_elems;
  size_t off_thread, thread_bytes;
  size_t thread_tile_bytes; /* start of the per-thread row buffers inside a thread's area */
  int64_t row_elems;      /* PER_ROW: elements of each row buffer */
  size_t off_ovl, ovl_bytes; /* result staging when Y overlaps an input */
  size_t total;           /* without the overlap staging */
  int y_stream;           /* Y (beta = 0) and the full intermediates take */
  int buf_stream;         /* non-temporal stores */
} kb_cpu_plan_t;

/* The kernels this process uses for type (chosen once from the CPU and
 * KRONBLAS_CPU_ISA), or NULL for the reference path. */
const kb_cpu_opt_t *kb_cpu_kernels_for(kronblasDataType_t type);

/* Plans pb for nthreads threads.  NOT_SUPPORTED when the fast path does not
 * take this problem (the caller then uses the reference kernels). */
kronblasStatus_t kb_cpu_plan(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int nthreads,
                             kb_cpu_plan_t *pl);

/* Test hooks, for tests/t-cpu-*.c (linked statically to reach them); not
 * thread-safe, call before the library runs.  force_isa: "avx512", "avx2",
 * "generic" or "ref" for every later call, NULL for the process's own
 * choice; -1 when this CPU or build lacks it.  force_plan: at most max_fuse
 * factors per group (0: the model's choice) and strategy KB_CPU_PASSES or
 * KB_CPU_PER_ROW where the problem allows (-1: the model's choice). */
int kb_cpu_test_force_isa(const char *isa);
void kb_cpu_test_force_plan(int max_fuse, int strategy);

#endif /* KB_CPU_PLAN_H */
