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
  int pf_next_row;        /* PER_ROW on rows: read each thread's next row of X
                           * into L2 while the current one computes (where it
                           * fits beside the row buffers and tiles) */
  int no_read_ahead;      /* 1: pf_next_row off although it would fit */
  int d0_pf_l1;           /* with pf_next_row, digits in place: digit0 still
                           * prefetches the row's blocks of X into L1 */
  int d0_next_chunk;      /* digits in place, threads on rows, rows not read
                           * ahead: digit0 reads its next chunk of X into L2
                           * during each chunk and keeps its intermediates in
                           * one buffer and the chunk of the row buffer it
                           * writes (kb_cpu_group_t.pf_chunk) */
  /* PER_ROW with X and Y contiguous along K/L, real types: digits stay in
   * place.  Group 0 is the fastest factor alone, applied by kt->digit0 to
   * the row as an S x p matrix (no transposes); the vector it leaves has
   * that digit last, so every later group reads lanes contiguous in memory
   * (lanes = the inner digits already done, n_o = the outer ones) and
   * writes them the same way.  0: the usual rotating layout. */
  int inplace;
  /* Banded plan (kb_cpu_band_t, kernels/cpu/band_kernels.inc): PER_ROW on
   * rows, one group of all factors (nb = vl), real types, X and Y
   * contiguous along K/L; each thread carries a row through every factor,
   * slowest digit first, in two padded row buffers of its area.  Step t <
   * band_nsteps: band_f[t] its factor (with band_fused[t] also factor
   * band_f[t] + 1, the next faster digit), band_s[t] its stride (of the
   * faster digit when fused), band_banded[t] 1 for a banded step.  0: not
   * a banded plan. */
  int band;
  int band_nsteps;
  int band_f[KB_CPU_PLAN_MAXF], band_fused[KB_CPU_PLAN_MAXF];
  int64_t band_s[KB_CPU_PLAN_MAXF];
  int band_banded[KB_CPU_PLAN_MAXF];
  int band_dense[KB_CPU_PLAN_MAXF]; /* digits band_f[t].. taken by a dense step (s = 1), else 0 */
  int band_copy_in;
  int64_t band_pad, band_buf_elems;
  /* steps [band_seg_t, band_seg_e) segment by segment (kb_cpu_band_t.seg_in),
   * band_seg_n segments of band_seg_in elements a row; band_seg_in = 0: not */
  int band_seg_t, band_seg_e, band_seg_n;
  int64_t band_seg_in, band_seg_blk;
  /* steps [band_col_t, band_col_e) as column tiles (kb_cpu_band_t.col_t);
   * band_col_e = 0: none */
  int band_col_t, band_col_e;
  /* the row buffer's stride between column-tile rows (kb_cpu_band_t.
   * col_ld); 0: c, contiguous */
  int64_t band_col_ld;
  /* > 1: column tiles of band_col_w vectors, the last step straight to Y
   * (kb_cpu_band_t.col_w); else one vector */
  int64_t band_col_w;
  /* band_tdense[t]: the dense step t runs across slices (kb_cpu_band_t.
   * tdense), its digits' A^T at off_tdense[t] */
  int band_tdense[KB_CPU_PLAN_MAXF];
  size_t off_tdense[KB_CPU_PLAN_MAXF];
  double cost;            /* the model's cost per row (0 for an explicit plan) */
} kb_cpu_plan_t;

/* The kernels this process uses for type (chosen once from the CPU and
 * KRONBLAS_CPU_ISA), or NULL for the reference path. */
const kb_cpu_opt_t *kb_cpu_kernels_for(kronblasDataType_t type);

/* Plans pb for nthreads threads.  NOT_SUPPORTED when the fast path does not
 * take this problem (the caller then uses the reference kernels). */
kronblasStatus_t kb_cpu_plan(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int nthreads,
                             kb_cpu_plan_t *pl);

/* kb_cpu_plan without its log lines: the plan that prices a call (its
 * cost per row) when it may not be the one that runs. */
kronblasStatus_t kb_cpu_plan_quiet(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int nthreads,
                                   kb_cpu_plan_t *pl);

/* Constraints on the model's choices, for the candidates of measured
 * tuning (lib/cpu_tune.c); kb_cpu_plan_opts_default leaves every choice to
 * the model. */
typedef struct {
  int strategy;           /* KB_CPU_PASSES or KB_CPU_PER_ROW; -1: the model's */
  int max_fuse;           /* at most this many factors per group; 0: any */
  int nvt;                /* PER_ROW: vectors per tile, 1, 2 or 4; 0: the model's */
  int nb_rows;            /* PASSES: lanes per tile; 0: the model's */
  int split_rows;         /* PER_ROW: 1 threads take rows, 0 share tiles; -1: the model's */
  int nthreads;           /* threads the plan runs on */
  int no_read_ahead;      /* 1: no read-ahead of the next row (pf_next_row) */
  int inplace;            /* 1: digits in place (where the problem allows), 0: not; -1: the model's */
  int band;               /* 1: banded plan (where the problem allows), 0: not; -1: the model's */
  int quiet;              /* 1: no log lines (a plan only priced, not run) */
} kb_cpu_plan_opts_t;

void kb_cpu_plan_opts_default(kb_cpu_plan_opts_t *o, int nthreads);
kronblasStatus_t kb_cpu_plan_with(const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                                  const kb_cpu_plan_opts_t *o, kb_cpu_plan_t *pl);

/* A plan's choices, all of them (the rest follows from the problem): what
 * the tuner keeps and what wisdom files hold. */
#define KB_CPU_SPEC_MAX_THREADS 4096
typedef struct {
  int strategy, split_rows, nthreads, ngroups;
  int hi[KB_CPU_PLAN_MAXF], lo[KB_CPU_PLAN_MAXF], nb[KB_CPU_PLAN_MAXF];
  int no_read_ahead;      /* 0: the layout's rule (pf_next_row), 1: off */
  int inplace;            /* kb_cpu_plan_t.inplace */
  int band;               /* kb_cpu_plan_t.band */
} kb_cpu_plan_spec_t;

/* The plan of spec for pb: INVALID_VALUE unless the groups cover the chain
 * in order within the kernels' limits, every tile width is one the kernels
 * of kt take and every setting is in range (a spec may come from a file);
 * INVALID_VALUE too when the fast path does not take pb. */
kronblasStatus_t kb_cpu_plan_explicit(const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                                      const kb_cpu_plan_spec_t *sp, kb_cpu_plan_t *pl);
void kb_cpu_plan_spec_of(const kb_cpu_plan_t *pl, kb_cpu_plan_spec_t *sp);
/* Whether pb may run with digits in place on kt (kb_cpu_plan_t.inplace). */
int kb_cpu_inplace_ok(const kb_problem_t *pb, const kb_cpu_opt_t *kt);
/* Whether pb may run as a banded plan on kt (kb_cpu_plan_t.band). */
int kb_cpu_band_ok(const kb_problem_t *pb, const kb_cpu_opt_t *kt);

/* ------------------------------------------------ measured tuning */

struct kronblasContext;

/* Threads a call on h runs with (lib/cpu_backend.c). */
int kb_cpu_handle_threads(const struct kronblasContext *h);

/* Packs pb's factors F and runs plan pl on one batch entry into Y (element
 * strides ys_m, ys_l) as if beta = 0; ws is the plan's workspace, 64-byte
 * aligned (lib/cpu_backend.c).  For timing candidates. */
void kb_cpu_run_plan(const kb_cpu_plan_t *pl, const kb_problem_t *pb, char *ws, const void *X,
                     const void *const *F, void *Y, int64_t ys_m, int64_t ys_l);

/* lib/cpu_tune.c.  The plan for pb in KRONBLAS_TUNING_MEASURE mode: the
 * handle's measured plan for pb's key, else the fastest of the candidates
 * timed now (then remembered).  Candidates whose workspace exceeds a user
 * workspace are left out.  NOT_SUPPORTED as kb_cpu_plan. */
kronblasStatus_t kb_cpu_tuned_plan(struct kronblasContext *h, const kb_problem_t *pb,
                                   const kb_cpu_opt_t *kt, int nthreads, kb_cpu_plan_t *pl);
/* The handle's measured plan for pb's key, if any (1) into pl; 0 if none. */
int kb_cpu_cached_plan(struct kronblasContext *h, const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                       int nthreads, kb_cpu_plan_t *pl);
/* Frees the handle's measured plans (backend fini). */
void kb_cpu_tune_free(struct kronblasContext *h);
/* The backend table's wisdom hooks (kb_backend_t). */
kronblasStatus_t kb_cpu_wisdom_ident(struct kronblasContext *h, char *buf, size_t size);
void kb_cpu_wisdom_each(struct kronblasContext *h,
                        void (*put)(void *ctx, const char *key, const char *plan), void *ctx);
kronblasStatus_t kb_cpu_wisdom_add(struct kronblasContext *h, const char *key, const char *plan);
/* Test hook: measured plans the handle holds, and candidates timed so far
 * in this process. */
int kb_cpu_test_plan_count(struct kronblasContext *h);
long kb_cpu_test_timed_count(void);
/* Test hook: seconds added to the next tuning's first timed run (a
 * transient slowdown of the model's plan), and how many tunings have timed
 * their winner again against the model's plan. */
void kb_cpu_test_tune_slow_first(double seconds);
long kb_cpu_test_retimed_count(void);

/* Test hooks, for tests/t-cpu-*.c (linked statically to reach them); not
 * thread-safe, call before the library runs.  force_isa: "avx512", "avx2",
 * "generic" or "ref" for every later call, NULL for the process's own
 * choice; -1 when this CPU or build lacks it.  force_plan: at most max_fuse
 * factors per group (0: the model's choice) and strategy KB_CPU_PASSES or
 * KB_CPU_PER_ROW where the problem allows (-1: the model's choice). */
int kb_cpu_test_force_isa(const char *isa);
void kb_cpu_test_force_plan(int max_fuse, int strategy);
/* Digits in place (kb_cpu_plan_t.inplace): 1 wherever the problem allows,
 * 0 never, -1 the model's choice; and how many batch entries of plans with
 * digits in place this process has run (lib/cpu_backend.c). */
void kb_cpu_test_force_inplace(int inplace);
long kb_cpu_test_inplace_runs(void);
/* Banded plans (kb_cpu_plan_t.band), likewise: 1 wherever allowed, 0
 * never, -1 the model's choice; batch entries run with banded plans. */
void kb_cpu_test_force_band(int band);
/* Dense steps of banded plans (kb_cpu_plan_t.band_dense): n > 0 the n
 * fastest digits as one wherever the limits allow, 0 never, -1 the
 * model's choice. */
void kb_cpu_test_force_band_dense(int n);
long kb_cpu_test_dense_runs(void);   /* batch entries run with a dense step */
/* Segmented fastest digits of banded plans (kb_cpu_plan_t.band_seg_in): 1
 * wherever the steps allow (rows in L1 too), after the other steps; 2 the
 * same, first (straight from X) where that is allowed too; 0 never; -1
 * the model's. */
void kb_cpu_test_force_band_seg(int seg);
long kb_cpu_test_seg_runs(void);     /* batch entries run with segments */
/* Column tiles of banded plans (kb_cpu_plan_t.band_col_t): 1 wherever the
 * steps allow (the steps before or after segments), 0 never, -1 the
 * model's. */
void kb_cpu_test_force_band_col(int col);
/* Padded column-tile rows (kb_cpu_plan_t.band_col_ld): 0 never, -1 the
 * planner's (wherever the column tiles follow segments that go first). */
void kb_cpu_test_force_band_colpad(int pad);
/* Wide column tiles straight to Y (kb_cpu_plan_t.band_col_w): 0 never,
 * -1 the planner's (wherever padded rows allow runs of
 * KB_CPU_BAND_COL_RUN bytes, with segments of up to KB_CPU_BAND_SEG_MAX) */
void kb_cpu_test_force_band_wide(int wide);
long kb_cpu_test_col_runs(void);     /* batch entries run with column tiles */
long kb_cpu_test_wide_runs(void);    /* ... of them with wide tiles straight to Y (band_col_w) */
/* Dense steps across slices (kb_cpu_plan_t.band_tdense): 1 or -1
 * wherever the kernels take them, 0 never. */
void kb_cpu_test_force_band_tdense(int td);
long kb_cpu_test_tdense_runs(void);  /* batch entries run with one */
/* A half-vector step of p = 8 and the pair step after it as one pass
 * (kb_cpu_band_t.hp8, float AVX-512): 1 or -1 wherever the kernels take
 * it, 0 never (lib/cpu_backend.c). */
void kb_cpu_test_force_band_hp8(int hp8);
long kb_cpu_test_hp8_runs(void);     /* batch entries run with it */
long kb_cpu_test_band_runs(void);
/* Long rows split in two calls (lib/cpu_backend.c, kb_cpu_gekmm_split):
 * -1 the rule, 1 wherever the layout allows (one unbatched call, X along
 * K, Y along L and overlapping neither X nor a factor, no user
 * workspace; any size, type, m and factors, split after the first
 * factor), 0 never; and how many calls this process has split. */
void kb_cpu_test_force_split(int on);
long kb_cpu_test_split_runs(void);
/* The split a call of pb on h would take: the leading factors of its
 * second call, 0 for none (pointers of pb are compared, not read). */
int kb_cpu_test_split_at(struct kronblasContext *h, const kb_problem_t *pb);
/* Tail rows of plans on rows (lib/cpu_backend.c, kb_cpu_tail_row): on,
 * thread 0 of a team of two or more takes no rows and only helps the
 * others' tail rows, and they leave their tail rows' work to it; and how
 * many units (chunks, tiles) of tail rows this process has run on threads
 * other than the row's. */
void kb_cpu_test_force_tail_helper(int on);
long kb_cpu_test_tail_help_units(void);
/* The team size the last fast-path region ran with (omp_get_num_threads
 * inside it; 1 without OpenMP), and the small-work limit in force
 * (KRONBLAS_CPU_SMALL_WORK or the default; 0: off), lib/cpu_backend.c. */
int kb_cpu_test_last_team(void);
/* omp_get_level() where the last fast-path run ran: 0 for one thread
 * outside any parallel region (no region of its own), one more than the
 * caller's level where it opened one (0 without OpenMP). */
int kb_cpu_test_last_level(void);
/* Calls that ran the handle's kept model plan instead of planning
 * (lib/cpu_backend.c kb_cpu_memo_plan). */
long kb_cpu_test_memo_hits(void);
/* The planner's hook generation: changes whenever a test hook above changes
 * what the planner chooses. */
unsigned kb_cpu_plan_gen(void);
double kb_cpu_test_small_work(void);
/* Cache sizes in bytes the planner assumes from now on (plans of another
 * machine); any 0: this machine's again. */
void kb_cpu_test_caches(size_t l1, size_t l2, size_t llc);
/* The model's per-CPU rates from now on (plans of another machine):
 * "default" (Ice Lake's), "zen5" (AMD Zen 5), "zen4" (AMD Zen 4), "emr"
 * (Intel Emerald Rapids), NULL this CPU's; returns
 * the name of those in force. */
const char *kb_cpu_test_rates(const char *name);

#endif /* KB_CPU_PLAN_H */
