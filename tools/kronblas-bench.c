/*
 * kronblas-bench - times GEKMM through kronblas on the CPU or CUDA backend,
 * next to in-run baselines (the shuffle algorithm and per-factor GEMMs,
 * through OpenBLAS or cuBLAS) and the machine's ceilings, and verifies the
 * result against the test oracle.  `kronblas-bench --help` says how.
 *
 * This file: command line, shapes, the CPU rows and the output.  The GPU
 * rows are in bench_gpu.c, the OpenBLAS baselines in bench_cpu.c, what both
 * share in bench_common.c.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include "kb_bench.h"
#include "../tests/kb_oracle.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ------------------------------------------------------------ shapes */

/* The notation and the named sets are in kb_shapes.c. */

/* ----------------------------------------------------------- options */

typedef struct {
  kb_bench_opts_t o;
  kronblasSideMode_t side;
  kronblasOperation_t transX, transF;
  kronblasDataType_t types[8];
  int ntypes;
  int backend;                 /* -1 auto, else kronblasBackend_t */
  int ceilings;                /* measure the GEMM rate and copy bandwidth */
  int rounds;                  /* CPU: rounds of (ceilings, kronblas) per row */
  const char *csv;
  kb_bench_shape_t *shapes;
  int nshapes, capshapes;
} kb_bench_cli_t;

static const char *kb_bench_prog = "kronblas-bench";

static void kb_bench_usage(FILE *f)
{
  fprintf(f,
"Usage: %s [options] SHAPE...\n"
"Times Y = (F_0 (x) ... (x) F_{n-1}) X (GEKMM) through kronblas next to in-run\n"
"baselines and the machine's ceilings.\n"
"\n"
"SHAPE  M_PxQ^N        N equal factors of P rows contracted, Q produced, m = M\n"
"                      vectors (e.g. 1024_8x8^5: K = L = 8^5 = 32768)\n"
"       M_PxQ,PxQ^N,.. distinct factors, F_0 first (e.g. 16_4x5,3x3,8x2)\n"
"\n"
"Options\n"
"  --shapes LIST       add a named set (comma list): standard (issue 3's 15 GPU\n"
"                      shapes), cpu (issue 4's 11 CPU shapes), realworld (the\n"
"                      FastKron paper's Table 4)\n"
"  --side left|right   LEFT: Y (LxM) = op(F_0)(x)..(x)op(F_n-1) op(X); RIGHT:\n"
"                      Y (MxL) = op(X) op(F_0)(x)..   (default left)\n"
"  --trans XF          op of X and of the factors, each N, T or C (default NN;\n"
"                      left/NN and right/TN keep X contiguous along K)\n"
"  --type LIST         s, d, c, z, comma separated or repeated (default s)\n"
"  --backend B         cpu, cuda or auto (kronblasCreate's choice; default)\n"
"  --warmup N          untimed calls first (default 2)\n"
"  --reps N            timed calls; the median is reported (default 10)\n"
"  --beta B            kronblas' beta (default 0; alpha is 1): where B != 0 the\n"
"                      calls read Y, Y starts at 0 in the verified call and in\n"
"                      the one whose result the baselines are checked against\n"
"                      (so --verify does not check beta itself: the tests do),\n"
"                      the floor counts Y's bytes twice, and the baselines\n"
"                      still write Y with beta 0\n"
"  --calls N           GPU rows: each timed rep is N back-to-back calls between\n"
"                      one pair of events, its time their mean; kronblas, both\n"
"                      baselines and the ceilings alike (default 1: one call\n"
"                      on an idle stream, its host and launch cost included;\n"
"                      the FastKron paper reports the mean of 100 back-to-back\n"
"                      runs)\n"
"  --threads N         CPU threads for kronblas (kronblasSetNumThreads) and the\n"
"                      CPU baselines (default: OpenMP's count)\n"
"  --verify            check kronblas' result: the oracle (explicit Kronecker\n"
"                      product in long double) on as many vectors as fit in\n"
"                      K*L*(vectors + factors) <= 2^26, else (large K*L) the\n"
"                      randomised identity on all vectors; prints PASS/FAIL\n"
"                      with the error relative to the rounding bound\n"
"  --baselines         run the baselines and ceilings (default when available)\n"
"  --no-baselines      time kronblas only\n"
"  --no-ceilings       skip measuring the ceilings (no floor%%; for quick runs)\n"
"  --rounds N          CPU backend: per row, N rounds of (ceilings, then\n"
"                      kronblas' reps); ms is the median of the rounds' medians,\n"
"                      floor%%, gemm%% and copy_pct the medians of the rounds'\n"
"                      (each against its own ceilings), baselines from the last\n"
"                      round; for hosts whose speed drifts between rows\n"
"                      (default 1)\n"
"  --csv FILE          also write CSV rows to FILE (- for stdout; the table then\n"
"                      goes to stderr)\n"
"  --seed N            seed of the random inputs (default KRONBLAS_TEST_SEED or\n"
"                      the clock; printed)\n"
"  --max-mem GIB       skip rows needing more memory (default 70%% of RAM on the\n"
"                      CPU, 90%% of free device memory on the GPU)\n"
"  -h, --help          this text\n"
"\n"
"Per row: median ms, GFLOP/s (TFLOP/s in the GPU table) with FLOPs =\n"
"sum_i 2 m K_i q_i, K_i the vector length when factor i is applied (factors\n"
"applied last first, K_i starting at prod p and scaled by q_i/p_i), times 4\n"
"for complex types.  With baselines: each baseline's median ms, kronblas'\n"
"speedup over it, and floor%% = 100 * floor / kronblas' time with\n"
"floor = max(FLOPs / GEMM rate, (bytes of X + bytes of Y) / copy bandwidth; Y\n"
"twice where beta != 0);\n"
"gemm%% = 100 * kronblas' FLOP rate / GEMM rate.\n"
"\n"
"Baselines (same buffers, same threads, results checked against kronblas'\n"
"within a first-order rounding bound, so a broken baseline cannot flatter):\n"
"  shuffle  per factor one GEMM over the contracted index and a transpose that\n"
"           rotates the produced index to the end (what GPyTorch does)\n"
"  gemm     per factor a (strided-batched) GEMM over slices, no transposes;\n"
"           n/a when X and Y run along different directions\n"
"  Both are n/a for a conjugated X (--trans C?), which BLAS cannot express.\n"
"CPU: OpenBLAS GEMMs (the GEMM baseline loops over slices; transposes use\n"
"OpenMP threads); ceilings: OpenBLAS GEMM of the type on 2048^3 (1024^3 for\n"
"complex) and a threaded 256 MiB memcpy.  GPU: cuBLAS (strided-batched)\n"
"GEMMs and a tiled transpose kernel, CUDA-event timing; ceilings: cuBLAS GEMM\n"
"of the type with CUBLAS_PEDANTIC_MATH (no TF32) on 8192^3 (4096^3 complex)\n"
"and a 1 GiB device-to-device cudaMemcpy (bytes read + written).\n"
"Inputs are uniform in [-1,1), alpha = 1, beta = 0 (--beta); Y is poisoned\n"
"(NaN) before the verified call (zeroed where beta != 0).  On the CPU,\n"
"kronblas is timed 0.12 s after the last OpenBLAS call, once OpenBLAS' idle\n"
"threads stopped spinning.\n"
"\n"
"CSV columns: shape,m,factors,type,side,trans,backend,threads,ms,gflops,\n"
"floor_pct,gemm_pct,baseline_shuffle_ms,baseline_gemm_ms,speedup_shuffle,speedup_gemm,\n"
"verify,copy_pct,calls,beta (empty where not measured; verify is PASS, FAIL or\n"
"-; copy_pct = 100 * (bytes of X + Y) / s / copy bandwidth, Y twice where beta\n"
"!= 0; calls = --calls on GPU rows, 1 on CPU rows; beta = --beta).\n"
"tools/kb_targets.py reads such files and says which of issues 3 and 4's\n"
"targets a run meets.\n"
"\n"
"Exit status: 0 if every row ran (or was skipped for memory) and checked out,\n"
"1 if kronblas failed, a verification failed or a baseline disagreed, 2 on\n"
"bad arguments.\n",
          kb_bench_prog);
}

static void kb_bench_bad_args(const char *fmt, const char *arg)
{
  fprintf(stderr, "%s: ", kb_bench_prog);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  fprintf(stderr, "Usage: %s [options] SHAPE...   (%s --help explains)\n", kb_bench_prog, kb_bench_prog);
  exit(2);
}

static void kb_bench_add_shape(kb_bench_cli_t *c, const char *s)
{
  const char *err;
  int i;
  if (c->nshapes == c->capshapes) {
    int cap = c->capshapes ? 2 * c->capshapes : 32;
    kb_bench_shape_t *n = realloc(c->shapes, (size_t)cap * sizeof *n);
    if (n == NULL) {
      fprintf(stderr, "%s: out of memory\n", kb_bench_prog);
      exit(1);
    }
    c->shapes = n;
    c->capshapes = cap;
  }
  err = kb_shape_parse(s, &c->shapes[c->nshapes]);
  if (err != NULL) {
    fprintf(stderr, "%s: bad shape '%s': %s\n", kb_bench_prog, s, err);
    kb_bench_bad_args("shapes look like 1024_8x8^5 or 16_4x5,3x3,8x2%s", "");
  }
  for (i = 0; i < c->nshapes; i++)
    if (!strcmp(c->shapes[i].name, c->shapes[c->nshapes].name))
      return;
  c->nshapes++;
}

static void kb_bench_add_set(kb_bench_cli_t *c, const char *list)
{
  char buf[256], *tok, *save = NULL;
  snprintf(buf, sizeof buf, "%s", list);
  for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
    const char *const *set = kb_shape_set(tok);
    if (set == NULL)
      kb_bench_bad_args("unknown shape set '%s' (standard, cpu, realworld)", tok);
    for (; *set != NULL; set++)
      kb_bench_add_shape(c, *set);
  }
}

static int kb_bench_parse_op(char ch, kronblasOperation_t *op)
{
  switch (ch) {
  case 'N': case 'n': *op = KRONBLAS_OP_N; return 0;
  case 'T': case 't': *op = KRONBLAS_OP_T; return 0;
  case 'C': case 'c': *op = KRONBLAS_OP_C; return 0;
  default: return -1;
  }
}

static long kb_bench_parse_count(const char *s, const char *what, long lo)
{
  char *end;
  long v;
  errno = 0;
  v = strtol(s, &end, 10);
  if (errno != 0 || *s == '\0' || *end != '\0' || v < lo || v > 1000000)
    kb_bench_bad_args(what, s);
  return v;
}

static void kb_bench_parse_cli(int argc, char **argv, kb_bench_cli_t *c)
{
  enum { O_SHAPES = 256, O_SIDE, O_TRANS, O_TYPE, O_BACKEND, O_WARMUP, O_REPS, O_THREADS, O_CSV,
         O_VERIFY, O_NO_VERIFY, O_BASELINES, O_NO_BASELINES, O_SEED, O_MAXMEM, O_NO_CEILINGS, O_ROUNDS, O_CALLS, O_BETA };
  static const struct option longopts[] = {
    { "shapes", required_argument, NULL, O_SHAPES },
    { "side", required_argument, NULL, O_SIDE },
    { "trans", required_argument, NULL, O_TRANS },
    { "type", required_argument, NULL, O_TYPE },
    { "backend", required_argument, NULL, O_BACKEND },
    { "warmup", required_argument, NULL, O_WARMUP },
    { "reps", required_argument, NULL, O_REPS },
    { "calls", required_argument, NULL, O_CALLS },
    { "beta", required_argument, NULL, O_BETA },
    { "threads", required_argument, NULL, O_THREADS },
    { "csv", required_argument, NULL, O_CSV },
    { "verify", no_argument, NULL, O_VERIFY },
    { "no-verify", no_argument, NULL, O_NO_VERIFY },
    { "baselines", no_argument, NULL, O_BASELINES },
    { "no-baselines", no_argument, NULL, O_NO_BASELINES },
    { "no-ceilings", no_argument, NULL, O_NO_CEILINGS },
    { "rounds", required_argument, NULL, O_ROUNDS },
    { "seed", required_argument, NULL, O_SEED },
    { "max-mem", required_argument, NULL, O_MAXMEM },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
  };
  int ch, i, types_given = 0;

  memset(c, 0, sizeof *c);
  c->side = KRONBLAS_SIDE_LEFT;
  c->transX = c->transF = KRONBLAS_OP_N;
  c->backend = -1;
  c->o.warmup = 2;
  c->o.reps = 10;
  c->o.calls = 1;
  c->o.baselines = 1;
  c->ceilings = 1;
  c->rounds = 1;
  c->o.seed = kb_test_seed();
  opterr = 0;
  while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (ch) {
    case O_SHAPES:
      kb_bench_add_set(c, optarg);
      break;
    case O_SIDE:
      if (!strcmp(optarg, "left") || !strcmp(optarg, "L"))
        c->side = KRONBLAS_SIDE_LEFT;
      else if (!strcmp(optarg, "right") || !strcmp(optarg, "R"))
        c->side = KRONBLAS_SIDE_RIGHT;
      else
        kb_bench_bad_args("--side wants left or right, not '%s'", optarg);
      break;
    case O_TRANS:
      if (strlen(optarg) != 2 || kb_bench_parse_op(optarg[0], &c->transX) ||
          kb_bench_parse_op(optarg[1], &c->transF))
        kb_bench_bad_args("--trans wants two of N, T, C (op of X, op of the factors), not '%s'", optarg);
      break;
    case O_TYPE: {
      const char *s = optarg;
      if (!types_given)
        c->ntypes = 0;
      types_given = 1;
      for (; *s; s++) {
        kronblasDataType_t t;
        if (*s == ',')
          continue;
        switch (*s) {
        case 's': case 'S': t = KRONBLAS_R_32F; break;
        case 'd': case 'D': t = KRONBLAS_R_64F; break;
        case 'c': case 'C': t = KRONBLAS_C_32F; break;
        case 'z': case 'Z': t = KRONBLAS_C_64F; break;
        default: kb_bench_bad_args("--type wants s, d, c or z (comma list), not '%s'", optarg); return;
        }
        for (i = 0; i < c->ntypes && c->types[i] != t; i++)
          ;
        if (i == c->ntypes)
          c->types[c->ntypes++] = t;
      }
      break;
    }
    case O_BACKEND:
      if (!strcmp(optarg, "cpu"))
        c->backend = KRONBLAS_BACKEND_CPU;
      else if (!strcmp(optarg, "cuda"))
        c->backend = KRONBLAS_BACKEND_CUDA;
      else if (!strcmp(optarg, "auto"))
        c->backend = -1;
      else
        kb_bench_bad_args("--backend wants cpu, cuda or auto, not '%s'", optarg);
      break;
    case O_WARMUP:
      c->o.warmup = (int)kb_bench_parse_count(optarg, "--warmup wants a count >= 0, not '%s'", 0);
      break;
    case O_REPS:
      c->o.reps = (int)kb_bench_parse_count(optarg, "--reps wants a count >= 1, not '%s'", 1);
      break;
    case O_CALLS:
      c->o.calls = (int)kb_bench_parse_count(optarg, "--calls wants a count >= 1, not '%s'", 1);
      break;
    case O_THREADS:
      c->o.threads = (int)kb_bench_parse_count(optarg, "--threads wants a count >= 1, not '%s'", 1);
      break;
    case O_CSV:
      c->csv = optarg;
      break;
    case O_VERIFY:
      c->o.verify = 1;
      break;
    case O_NO_VERIFY:
      c->o.verify = 0;
      break;
    case O_BASELINES:
      c->o.baselines = 1;
      break;
    case O_NO_BASELINES:
      c->o.baselines = 0;
      break;
    case O_NO_CEILINGS:
      c->ceilings = 0;
      break;
    case O_ROUNDS:
      c->rounds = (int)kb_bench_parse_count(optarg, "--rounds wants a count >= 1, not '%s'", 1);
      if (c->rounds > 100)
        kb_bench_bad_args("--rounds wants at most 100, not '%s'", optarg);
      break;
    case O_SEED: {
      char *end;
      errno = 0;
      c->o.seed = strtoull(optarg, &end, 0);
      if (errno != 0 || *optarg == '\0' || *end != '\0')
        kb_bench_bad_args("--seed wants a number, not '%s'", optarg);
      break;
    }
    case O_BETA: {
      char *end;
      double b = strtod(optarg, &end);
      if (*optarg == '\0' || *end != '\0' || !isfinite(b))
        kb_bench_bad_args("--beta wants a finite number, not '%s'", optarg);
      c->o.beta = b;
      break;
    }
    case O_MAXMEM: {
      char *end;
      double g = strtod(optarg, &end);
      if (*optarg == '\0' || *end != '\0' || !(g > 0.0) || g > 1e6)
        kb_bench_bad_args("--max-mem wants a size in GiB > 0, not '%s'", optarg);
      c->o.max_mem = g * 1073741824.0;
      break;
    }
    case 'h':
      kb_bench_usage(stdout);
      exit(0);
    case ':':
      kb_bench_bad_args("option %s needs an argument", argv[optind - 1]);
      break;
    default:
      kb_bench_bad_args("unknown option %s", argv[optind - 1]);
      break;
    }
  }
  if (c->ntypes == 0)
    c->types[c->ntypes++] = KRONBLAS_R_32F;
  for (i = optind; i < argc; i++)
    kb_bench_add_shape(c, argv[i]);
  if (c->nshapes == 0)
    kb_bench_bad_args("no shapes given%s (e.g. 1024_8x8^5 or --shapes cpu)", "");
}

/* ----------------------------------------------------------- CPU rows */

static double kb_bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *kb_bench_alloc(int64_t count, size_t esz)
{
  size_t bytes = ((size_t)(count > 0 ? count : 1) * esz + 63) & ~(size_t)63;
  return aligned_alloc(64, bytes);
}

/* Runs, checks and times one baseline plan on the CPU. */
static void kb_bench_cpu_baseline(const kb_bench_prob_t *pb, const kb_bench_opts_t *o, int nthreads,
    const kb_bench_plan_t *pl, const void *X, const void *const *F, const void *Y, void *Yb,
    void *W0, void *W1, double bound, double *ms, double *err, int *bad, char *note, size_t notelen)
{
  double *t = malloc((size_t)o->reps * sizeof *t);
  int rep;
  if (t == NULL) {
    snprintf(note, notelen, "n/a: out of memory");
    return;
  }
  kb_oracle_poison(pb->type, Yb, pb->ycount);
  if (kb_bench_cpu_run_plan(pb, pl, X, F, Yb, W0, W1, nthreads) != 0) {
    snprintf(note, notelen, "n/a: could not run");
    goto out;
  }
  *err = kb_bench_max_diff(pb, Y, Yb);
  if (!(*err <= bound)) {
    *bad = 1;
    snprintf(note, notelen, "MISMATCH with kronblas: max |diff| %.3g > bound %.3g", *err, bound);
    goto out;
  }
  for (rep = -o->warmup; rep < o->reps; rep++) {
    double t0 = kb_bench_now();
    kb_bench_cpu_run_plan(pb, pl, X, F, Yb, W0, W1, nthreads);
    if (rep >= 0)
      t[rep] = kb_bench_now() - t0;
  }
  *ms = 1e3 * kb_bench_median(t, o->reps);
out:
  free(t);
}

/* Y before a call whose result is checked: NaN (unwritten elements show),
 * or 0 where beta != 0 (the call reads it). */
static void kb_bench_y_start(const kb_bench_prob_t *pb, void *Y)
{
  if (pb->beta != 0.0)
    memset(Y, 0, (size_t)pb->ycount * pb->esz);
  else
    kb_oracle_poison(pb->type, Y, pb->ycount);
}

static void kb_bench_cpu_row(kronblasHandle_t h, const kb_bench_prob_t *pb, const kb_bench_opts_t *o,
    int nthreads, double gemm_rate, double copy_bw, kb_bench_result_t *r)
{
  void *X = NULL, *Y = NULL, *Yb = NULL, *W0 = NULL, *W1 = NULL, *F[KB_BENCH_MAXF] = { NULL };
  double *t = NULL, need, extra, limit = o->max_mem;
  kb_bench_plan_t *shuf = NULL, *gemm = NULL;
  int baselines = o->baselines && kb_bench_cpu_have_blas();
  size_t ws = 0;
  int i, rep;
  kronblasStatus_t st;

  r->backend = "cpu";
  r->threads = nthreads;
  if (limit <= 0.0)
    limit = 0.7 * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (kb_bench_row_begin(h, pb, o->reps, r, &ws, &shuf, &gemm, &t, &need, &extra) != 0)
    return;
  if (baselines && (shuf->ok || gemm->ok))
    need += extra;
  if (need > limit) {
    snprintf(r->note, sizeof r->note, "skipped: needs %.1f GiB, limit %.1f GiB (--max-mem)",
             need / 1073741824.0, limit / 1073741824.0);
    goto out;
  }

  X = kb_bench_alloc(pb->xcount, pb->esz);
  Y = kb_bench_alloc(pb->ycount, pb->esz);
  for (i = 0; i < pb->n; i++)
    F[i] = kb_bench_alloc(pb->fcount[i], pb->esz);
  for (i = 0; i < pb->n && F[i] != NULL; i++)
    ;
  if (X == NULL || Y == NULL || i < pb->n) {
    snprintf(r->note, sizeof r->note, "skipped: host memory could not be had");
    goto out;
  }
  kb_bench_fill(pb, o->seed, X, F);

  if (o->verify) {
    kb_bench_y_start(pb, Y);
    st = kb_bench_call(h, pb, X, (const void *const *)F, Y);
    if (st != KRONBLAS_STATUS_SUCCESS) {
      r->verify = "FAIL";
      snprintf(r->verify_msg, sizeof r->verify_msg, "kronblas returned %s", kronblasGetStatusName(st));
      snprintf(r->note, sizeof r->note, "kronblas failed: %s", kronblasGetStatusName(st));
      goto out;
    }
    kb_bench_verify(pb, X, (const void *const *)F, Y, o->seed, r);
  }

  /* a single call is a smoke run, not worth waiting for */
  if (nthreads > 1 && o->warmup + o->reps > 1)
    kb_bench_cpu_settle();
  for (rep = -o->warmup; rep < o->reps; rep++) {
    double t0 = kb_bench_now();
    st = kb_bench_call(h, pb, X, (const void *const *)F, Y);
    if (st != KRONBLAS_STATUS_SUCCESS) {
      snprintf(r->note, sizeof r->note, "kronblas failed: %s", kronblasGetStatusName(st));
      goto out;
    }
    if (rep >= 0)
      t[rep] = kb_bench_now() - t0;
  }
  r->ran = 1;
  r->ms = 1e3 * kb_bench_median(t, o->reps);
  r->gflops = pb->flops / (r->ms * 1e-3) / 1e9;
  kb_bench_floor(pb, gemm_rate, copy_bw, r);
  /* The timed calls added into Y where beta != 0: the baselines are
   * checked against one call from Y = 0. */
  if (pb->beta != 0.0 && baselines) {
    kb_bench_y_start(pb, Y);
    st = kb_bench_call(h, pb, X, (const void *const *)F, Y);
    if (st != KRONBLAS_STATUS_SUCCESS) {
      snprintf(r->note, sizeof r->note, "kronblas failed: %s", kronblasGetStatusName(st));
      r->ran = 0;
      goto out;
    }
  }

  if (!o->baselines)
    goto out;
  if (!kb_bench_cpu_have_blas()) {
    snprintf(r->shuffle_note, sizeof r->shuffle_note, "n/a: built without OpenBLAS");
    snprintf(r->gemm_note, sizeof r->gemm_note, "n/a: built without OpenBLAS");
    goto out;
  }
  if (!shuf->ok)
    snprintf(r->shuffle_note, sizeof r->shuffle_note, "n/a: %s", shuf->why);
  if (!gemm->ok)
    snprintf(r->gemm_note, sizeof r->gemm_note, "n/a: %s", gemm->why);
  if (!shuf->ok && !gemm->ok)
    goto out;
  Yb = kb_bench_alloc(pb->ycount, pb->esz);
  W0 = kb_bench_alloc(pb->m * pb->smax, pb->esz);
  W1 = kb_bench_alloc(pb->m * pb->smax, pb->esz);
  if (Yb == NULL || W0 == NULL || W1 == NULL) {
    snprintf(r->shuffle_note, sizeof r->shuffle_note, "n/a: host memory could not be had");
    snprintf(r->gemm_note, sizeof r->gemm_note, "n/a: host memory could not be had");
    goto out;
  }
  r->err_bound = kb_bench_abs_bound(pb, X, (const void *const *)F, pb->cplx ? 4.0 : 2.0);
  if (shuf->ok)
    kb_bench_cpu_baseline(pb, o, nthreads, shuf, X, (const void *const *)F, Y, Yb, W0, W1, r->err_bound,
                          &r->shuffle_ms, &r->shuffle_err, &r->shuffle_bad, r->shuffle_note,
                          sizeof r->shuffle_note);
  if (gemm->ok)
    kb_bench_cpu_baseline(pb, o, nthreads, gemm, X, (const void *const *)F, Y, Yb, W0, W1, r->err_bound,
                          &r->gemm_ms, &r->gemm_err, &r->gemm_bad, r->gemm_note, sizeof r->gemm_note);
out:
  free(X);
  free(Y);
  free(Yb);
  free(W0);
  free(W1);
  for (i = 0; i < pb->n; i++)
    free(F[i]);
  kb_bench_row_end(shuf, gemm, t);
}

/* A CPU row in rounds (--rounds): each round measures the ceilings (when
 * asked) and then times kronblas, so a round's floor% compares times taken
 * in the same stretch of a shared host; the row reports the medians over
 * the rounds, the first round's verification and the last round's
 * baselines. */
static void kb_bench_cpu_rounds(kronblasHandle_t h, const kb_bench_prob_t *pb, const kb_bench_cli_t *c,
                                int nthreads, kronblasDataType_t type, kb_bench_result_t *r)
{
  double ms[100], fl[100], gp[100], cp[100];
  int k, nfl = 0, ngp = 0, ncp = 0;
  const char *verify = NULL;
  char verify_msg[sizeof r->verify_msg];
  for (k = 0; k < c->rounds; k++) {
    kb_bench_opts_t o = c->o;
    double rate = 0.0, bw = 0.0;
    o.verify = k == 0 && c->o.verify;
    o.baselines = k == c->rounds - 1 && c->o.baselines;
    if (c->o.baselines && c->ceilings) {
      rate = kb_bench_cpu_gemm_rate(type, nthreads);
      bw = kb_bench_cpu_copy_bw(nthreads);
    }
    kb_bench_result_init(r);
    kb_bench_cpu_row(h, pb, &o, nthreads, rate, bw, r);
    if (k == 0) {
      verify = r->verify;
      memcpy(verify_msg, r->verify_msg, sizeof verify_msg);
    }
    if (!r->ran)
      return;   /* skipped or failed: that round's row says why */
    ms[k] = r->ms;
    if (r->floor_pct == r->floor_pct)
      fl[nfl++] = r->floor_pct;
    if (r->gemm_pct == r->gemm_pct)
      gp[ngp++] = r->gemm_pct;
    if (r->copy_pct == r->copy_pct)
      cp[ncp++] = r->copy_pct;
  }
  r->ms = kb_bench_median(ms, c->rounds);
  r->gflops = pb->flops / (r->ms * 1e-3) / 1e9;
  if (nfl > 0)
    r->floor_pct = kb_bench_median(fl, nfl);
  if (ngp > 0)
    r->gemm_pct = kb_bench_median(gp, ngp);
  if (ncp > 0)
    r->copy_pct = kb_bench_median(cp, ncp);
  r->verify = verify;
  memcpy(r->verify_msg, verify_msg, sizeof verify_msg);
}

/* ------------------------------------------------------------ output */

static const char *kb_bench_op_name(kronblasOperation_t op)
{
  return op == KRONBLAS_OP_N ? "N" : op == KRONBLAS_OP_T ? "T" : "C";
}

/* A number for the CSV, empty when unknown. */
static void kb_bench_csv_num(FILE *f, double v)
{
  if (isfinite(v))
    fprintf(f, ",%.6g", v);
  else
    fputc(',', f);
}

/* CSV field, quoted when it holds a comma. */
static void kb_bench_csv_str(FILE *f, const char *s, int first)
{
  if (!first)
    fputc(',', f);
  if (strchr(s, ',') != NULL)
    fprintf(f, "\"%s\"", s);
  else
    fputs(s, f);
}

static void kb_bench_csv_row(FILE *f, const kb_bench_cli_t *c, const kb_bench_prob_t *pb,
    const kb_bench_result_t *r)
{
  char trans[3];
  snprintf(trans, sizeof trans, "%s%s", kb_bench_op_name(c->transX), kb_bench_op_name(c->transF));
  kb_bench_csv_str(f, pb->shape->name, 1);
  fprintf(f, ",%" PRId64, pb->m);
  kb_bench_csv_str(f, pb->shape->factors, 0);
  fprintf(f, ",%s,%s,%s,%s,%d", kb_oracle_type_name(pb->type),
          c->side == KRONBLAS_SIDE_LEFT ? "left" : "right", trans, r->backend, r->threads);
  kb_bench_csv_num(f, r->ms);
  kb_bench_csv_num(f, r->gflops);
  kb_bench_csv_num(f, r->floor_pct);
  kb_bench_csv_num(f, r->gemm_pct);
  kb_bench_csv_num(f, r->shuffle_ms);
  kb_bench_csv_num(f, r->gemm_ms);
  kb_bench_csv_num(f, r->shuffle_ms / r->ms);
  kb_bench_csv_num(f, r->gemm_ms / r->ms);
  fprintf(f, ",%s", r->verify);
  kb_bench_csv_num(f, r->copy_pct);
  fprintf(f, ",%d,%.17g", r->calls, pb->beta);
  fputc('\n', f);
  fflush(f);
}

static void kb_bench_fmt(char *buf, size_t len, const char *fmt, double v)
{
  if (isfinite(v))
    snprintf(buf, len, fmt, v);
  else
    snprintf(buf, len, "-");
}

static void kb_bench_table_head(FILE *f, int gpu)
{
  fprintf(f, "%-24s %-4s %-7s %10s %9s %7s %7s %11s %7s %11s %7s  %s\n", "shape", "type", "backend", "ms",
          gpu ? "TFLOP/s" : "GFLOP/s", "floor%", "gemm%", "shuffle_ms", "speedup", "gemm_ms", "speedup",
          "verify");
}

static void kb_bench_table_row(FILE *f, const kb_bench_prob_t *pb, const kb_bench_result_t *r, int gpu)
{
  char ms[32], rate[32], fl[32], gp[32], sm[32], sx[32], gm[32], gx[32];
  kb_bench_fmt(ms, sizeof ms, "%.4f", r->ms);
  kb_bench_fmt(rate, sizeof rate, gpu ? "%.3f" : "%.2f", gpu ? r->gflops * 1e-3 : r->gflops);
  kb_bench_fmt(fl, sizeof fl, "%.1f%%", r->floor_pct);
  kb_bench_fmt(gp, sizeof gp, "%.1f%%", r->gemm_pct);
  kb_bench_fmt(sm, sizeof sm, "%.4f", r->shuffle_ms);
  kb_bench_fmt(sx, sizeof sx, "%.2fx", r->shuffle_ms / r->ms);
  kb_bench_fmt(gm, sizeof gm, "%.4f", r->gemm_ms);
  kb_bench_fmt(gx, sizeof gx, "%.2fx", r->gemm_ms / r->ms);
  fprintf(f, "%-24s %-4s %-7s %10s %9s %7s %7s %11s %7s %11s %7s  %s\n", pb->shape->name,
          kb_oracle_type_name(pb->type), r->backend, ms, rate, fl, gp, sm, sx, gm, gx, r->verify);
  if (r->note[0])
    fprintf(f, "    note: %s\n", r->note);
  if (r->verify_msg[0])
    fprintf(f, "    verify: %s\n", r->verify_msg);
  if (r->shuffle_note[0])
    fprintf(f, "    shuffle: %s\n", r->shuffle_note);
  if (r->gemm_note[0])
    fprintf(f, "    gemm: %s\n", r->gemm_note);
  fflush(f);
}

/* -------------------------------------------------------------- main */

/* The header line that says which OpenBLAS kernels gave the ceilings. */
static void kb_bench_blas_core_line(FILE *f)
{
  const char *core = kb_bench_cpu_blas_core(), *better = kb_bench_cpu_blas_better_core();
  if (core == NULL)
    return;
  if (better != NULL)
    fprintf(f, "# OpenBLAS core %s: no AVX-512 kernels on an AVX-512 CPU, so the GEMM ceiling and the baselines "
               "are below the machine's (OPENBLAS_CORETYPE=%s would use its AVX-512 kernels)\n", core, better);
  else
    fprintf(f, "# OpenBLAS core %s\n", core);
}

int main(int argc, char **argv)
{
  kb_bench_cli_t c;
  kronblasHandle_t h = NULL;
  kronblasBackend_t be = KRONBLAS_BACKEND_CPU;
  double gemm_rate[4] = { 0, 0, 0, 0 }, copy_bw = 0.0;
  int have_rate[4] = { 0, 0, 0, 0 }, have_bw = 0;
  FILE *table = stdout, *csv = NULL;
  int gpu = 0, nthreads = 1, version = 0, si, ti, status = 0;
  char devdesc[256] = "";
  kronblasStatus_t st;

  if (argc > 0 && argv[0] != NULL) {
    const char *s = strrchr(argv[0], '/');
    kb_bench_prog = s ? s + 1 : argv[0];
    if (!strncmp(kb_bench_prog, "lt-", 3))
      kb_bench_prog += 3;
  }
  kb_bench_parse_cli(argc, argv, &c);

  if (c.backend == KRONBLAS_BACKEND_CUDA) {
    if (!kb_bench_gpu_built()) {
      fprintf(stderr, "%s: cuda backend not available: kronblas-bench was built without CUDA\n",
              kb_bench_prog);
      return 1;
    }
    st = kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CUDA);
    if (st != KRONBLAS_STATUS_SUCCESS) {
      fprintf(stderr, "%s: cuda backend not available (%s); running the baselines only\n",
              kb_bench_prog, kronblasGetStatusName(st));
      h = NULL;
    }
    be = KRONBLAS_BACKEND_CUDA;
  } else {
    st = c.backend == KRONBLAS_BACKEND_CPU ? kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU)
                                           : kronblasCreate(&h);
    if (st != KRONBLAS_STATUS_SUCCESS) {
      fprintf(stderr, "%s: kronblasCreate: %s\n", kb_bench_prog, kronblasGetStatusName(st));
      return 1;
    }
    kronblasGetBackend(h, &be);
  }
  gpu = be == KRONBLAS_BACKEND_CUDA;
  if (gpu && !kb_bench_gpu_open(devdesc, sizeof devdesc)) {
    fprintf(stderr, "%s: no usable CUDA device: %s\n", kb_bench_prog, devdesc[0] ? devdesc : "none found");
    if (h != NULL)
      kronblasDestroy(h);
    return 1;
  }
  if (!gpu && c.o.threads > 0) {
    st = kronblasSetNumThreads(h, c.o.threads);
    if (st != KRONBLAS_STATUS_SUCCESS)
      fprintf(stderr, "%s: kronblasSetNumThreads: %s\n", kb_bench_prog, kronblasGetStatusName(st));
  }
#ifdef _OPENMP
  nthreads = c.o.threads > 0 ? c.o.threads : omp_get_max_threads();
#else
  nthreads = 1;
#endif
  if (gpu)
    nthreads = 0;
  if (gpu && c.rounds > 1) {
    /* the GPU rows take their ceilings and baselines in one run already */
    fprintf(stderr, "%s: --rounds is for the CPU backend\n", kb_bench_prog);
    kb_bench_gpu_close();
    if (h != NULL)
      kronblasDestroy(h);
    return 2;
  }

  if (c.csv != NULL) {
    if (!strcmp(c.csv, "-")) {
      csv = stdout;
      table = stderr;
    } else if ((csv = fopen(c.csv, "w")) == NULL) {
      fprintf(stderr, "%s: cannot write %s: %s\n", kb_bench_prog, c.csv, strerror(errno));
      if (h != NULL)
        kronblasDestroy(h);
      return 1;
    }
    fprintf(csv, "shape,m,factors,type,side,trans,backend,threads,ms,gflops,floor_pct,gemm_pct,"
                 "baseline_shuffle_ms,baseline_gemm_ms,speedup_shuffle,speedup_gemm,verify,copy_pct,calls,beta\n");
  }

  kronblasGetVersion(NULL, &version);
  fprintf(table, "# kronblas-bench: kronblas %d.%d.%d, %s side, trans %s%s, seed 0x%016" PRIx64 "\n",
          version / 10000, version / 100 % 100, version % 100,
          c.side == KRONBLAS_SIDE_LEFT ? "left" : "right", kb_bench_op_name(c.transX),
          kb_bench_op_name(c.transF), c.o.seed);
  if (gpu)
    fprintf(table, "# backend cuda on %s%s; %s\n", devdesc,
            h == NULL ? "; cuda backend not available: baselines only" : "",
            c.o.calls > 1 ? "ms = mean of back-to-back calls (--calls)" : "ms = one call on an idle stream");
  else
    fprintf(table, "# backend cpu, %d threads%s\n", nthreads,
            c.o.baselines && !kb_bench_cpu_have_blas() ? "; built without OpenBLAS: no baselines, no GEMM ceiling" : "");
  if (c.o.beta != 0.0)
    fprintf(table, "# beta %g: kronblas reads Y (the floor counts it twice); the baselines write Y with beta 0\n",
            c.o.beta);
  if (!gpu && c.o.calls > 1)
    fprintf(table, "# --calls %d ignored: CPU calls are synchronous, each is timed alone\n", c.o.calls);
  if (!gpu && c.o.baselines)
    kb_bench_blas_core_line(table);
  if (!gpu && c.rounds > 1)
    fprintf(table, "# %d rounds per row: ms, floor%% and gemm%% are medians over rounds, each round against "
                   "ceilings measured just before it\n", c.rounds);
  kb_bench_table_head(table, gpu);

  for (ti = 0; ti < c.ntypes; ti++) {
    kronblasDataType_t type = c.types[ti];
    if (c.o.baselines && c.ceilings) {
      if (!have_bw) {
        copy_bw = gpu ? kb_bench_gpu_copy_bw(c.o.calls) : kb_bench_cpu_copy_bw(nthreads);
        have_bw = 1;
      }
      if (!have_rate[type]) {
        gemm_rate[type] = gpu ? kb_bench_gpu_gemm_rate(type, c.o.calls) : kb_bench_cpu_gemm_rate(type, nthreads);
        have_rate[type] = 1;
      }
      if (gemm_rate[type] > 0.0)
        fprintf(table, "# ceilings (%s): GEMM %.2f %s, copy %.2f GB/s (read + write)\n",
                kb_oracle_type_name(type), gemm_rate[type] * (gpu ? 1e-12 : 1e-9),
                gpu ? "TFLOP/s" : "GFLOP/s", copy_bw * 1e-9);
      else
        fprintf(table, "# ceilings (%s): GEMM not measured, copy %.2f GB/s (read + write)\n",
                kb_oracle_type_name(type), copy_bw * 1e-9);
    }
    for (si = 0; si < c.nshapes; si++) {
      kb_bench_prob_t pb;
      kb_bench_result_t r;
      kb_bench_result_init(&r);
      if (kb_bench_prob_init(&pb, &c.shapes[si], type, c.side, c.transX, c.transF) != 0) {
        kb_bench_shape_t *sh = &c.shapes[si];
        fprintf(table, "%-24s %-4s skipped: sizes overflow\n", sh->name, kb_oracle_type_name(type));
        continue;
      }
      kb_bench_prob_set_beta(&pb, c.o.beta);
      if (gpu) {
        if (kb_bench_gpu_row(h, &pb, &c.o, &r) != 0)
          status = 1;
        kb_bench_floor(&pb, gemm_rate[type], copy_bw, &r);
      } else if (c.rounds > 1) {
        kb_bench_cpu_rounds(h, &pb, &c, nthreads, type, &r);
      } else {
        kb_bench_cpu_row(h, &pb, &c.o, nthreads, gemm_rate[type], copy_bw, &r);
      }
      if (!strcmp(r.verify, "FAIL") || r.shuffle_bad || r.gemm_bad ||
          (!r.ran && strncmp(r.note, "skipped", 7) && !(gpu && h == NULL)))
        status = 1;
      kb_bench_table_row(table, &pb, &r, gpu);
      if (csv != NULL)
        kb_bench_csv_row(csv, &c, &pb, &r);
    }
  }

  if (csv != NULL && csv != stdout)
    fclose(csv);
  if (gpu)
    kb_bench_gpu_close();
  if (h != NULL)
    kronblasDestroy(h);
  free(c.shapes);
  return status;
}
