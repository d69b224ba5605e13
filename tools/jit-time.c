/* jit-time.c - where the JIT's compile time goes (noinst, no GPU needed).
 *
 *   tools/jit-time [-s SM] [-t s,d] [-X NVRTC-OPTION]... [-r N] [-M]
 *                  [-S SOURCE [-N]] [-R] [-P] [-B BYTES_PER_S[,FMA]] [SHAPE|SET]...
 *
 * Runs the CUDA planner's JIT candidate generation (kb_jit_candidates, via
 * kb_cuda_plan with the H100's 132 SMs and, without a GPU, its 227 KB of
 * shared memory a block for the whole-vector and whole-row kernels'
 * geometry; the precompiled configurations' occupancy is then the
 * registry's estimate, not a device's measure, so plans printed without a
 * GPU compare with each other, not with a GPU's) for the shapes (default:
 * the set "realworld"; float and double; LEFT, X contiguous along K), then compiles
 * every JIT configuration the registry got, with the library's NVRTC
 * options, and prints per configuration: NVRTC to PTX (front end and
 * NVVM), NVRTC to CUBIN (the same plus ptxas: the difference is ptxas),
 * CUBIN size, registers and spill bytes (ptxas -v), and 'M' where a model
 * plan compiles it in its first call; then per shape the sum of its model
 * plan's compiles, what a first call waits for with a cold cache.  Times
 * are the compiling thread's CPU time (NVRTC runs on the caller's thread;
 * on a shared machine wall time mostly measures the neighbours).
 *
 *   -r N  the least of N compiles          -M  only the model plans' kernels
 *   -R    RIGHT/N problems (X and Y contiguous along m) instead of LEFT/N
 *   -P    print each shape's model plan and stop (no compiles; with
 *         KRONBLAS_LOG_LEVEL=debug the model's costs go to stderr)
 *   -B    the model's device rates, given: a fast launch's bytes/s and
 *         (optional, after a comma) its FMA rate against an H100's; e.g.
 *         -B 4.18e12 plans for an H200 (default: an H100's, 2.85e12,1)
 *   -X    one more NVRTC option (e.g. -X -Xptxas=-O1), to try levers
 *   -S    another kernel text (kb_cuda_kernels.h, kb_cuda_ops.cuh and
 *         kb_fast.cuh concatenated without their #include "..." lines, as
 *         kb_jit_gen.awk does); -N: one from before kb_fast_kernel took FU
 *
 * Includes lib/cuda_jit.c and lib/cuda_plan.c for their static functions
 * and links the library's static archive for the registry (steps.cu).  The
 * planner's compile-before-use hook is replaced by one that only records
 * which kernels the model chose (there may be no GPU). */
#include "../lib/cuda_jit.c"

static int kb_jt_ready(int index, kb_cuda_fast_cfg_t *cfg, const void **fn, int *max_blocks);
#define kb_cuda_jit_kernel kb_jt_ready
#include "../lib/cuda_plan.c"
#undef kb_cuda_jit_kernel

#include "kb_shapes.h"

#include <time.h>

static char kb_jt_chosen[KB_CUDA_MAX_CFGS];     /* the model plan of some shape uses it */
static char kb_jt_now[KB_CUDA_MAX_CFGS];        /* ... of the shape being planned */

static int kb_jt_ready(int index, kb_cuda_fast_cfg_t *cfg, const void **fn, int *max_blocks)
{
  (void)cfg;
  if (index >= 0 && index < KB_CUDA_MAX_CFGS)
    kb_jt_chosen[index] = kb_jt_now[index] = 1;
  *fn = NULL;
  *max_blocks = 1;
  return 0;
}

/* This thread's CPU time (see above). */
static double kb_jt_cpu(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define KB_JT_MAXX 16
static const char *kb_jt_extra[KB_JT_MAXX];
static int kb_jt_nextra;
static int (*kb_jt_GetPTXSize)(kb_nvrtc_prog, size_t *);
static const char *kb_jt_src;   /* -S, else the library's */
static int kb_jt_noFU;          /* -N */

typedef struct {
  double ptx_s, cubin_s;
  size_t ptx_bytes, cubin_bytes;
  int regs, spill;
} kb_jt_res_t;

/* One NVRTC compile of c: to PTX (ptx != 0, compute_SM) or to a CUBIN with
 * ptxas -v, the library's options plus the -X ones.  0 or -1. */
static int kb_jt_compile(const kb_cuda_fast_cfg_t *c, int sm, int ptx, kb_jt_res_t *r)
{
  kb_nvrtc_prog prog = NULL;
  const char *opts[KB_JIT_NOPT_MAX + KB_JT_MAXX + 1];
  char name[256], arch[32], *log = NULL;
  size_t n = 0;
  int nopt, i, rc = -1, e;
  double t0 = kb_jt_cpu();
  if (kb_jit_name(c, name, sizeof name) != 0)
    return -1;
  if (kb_jt_noFU && strrchr(name, ',') != NULL)
    strcpy(strrchr(name, ','), ">");
  nopt = kb_jit_options(sm, arch, opts);
  if (ptx)
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d", sm);
  for (i = 0; i < kb_jt_nextra; i++)
    opts[nopt++] = kb_jt_extra[i];
  if (!ptx)
    opts[nopt++] = "--ptxas-options=-v";
  e = kb_nvrtc.CreateProgram(&prog, kb_jt_src ? kb_jt_src : kb_jit_source(), "kb_fast_jit.cu", 0, NULL, NULL);
  if (e == 0)
    e = kb_nvrtc.AddNameExpression(prog, name);
  if (e == 0)
    e = kb_nvrtc.CompileProgram(prog, nopt, opts);
  if (kb_nvrtc.GetProgramLogSize(prog, &n) == 0 && n > 1 && (log = malloc(n)) != NULL &&
      kb_nvrtc.GetProgramLog(prog, log) == 0) {
    const char *s = strstr(log, "Used ");
    if (e != 0)
      fprintf(stderr, "%s:\n%.2000s\n", name, log);
    if (!ptx && s != NULL)
      r->regs = atoi(s + 5);
    s = strstr(log, "bytes spill stores");
    if (!ptx && s != NULL) {
      while (s > log && s[-1] == ' ')
        s--;
      while (s > log && s[-1] >= '0' && s[-1] <= '9')
        s--;
      r->spill = atoi(s);
    }
  }
  if (e != 0)
    goto out;
  if (ptx) {
    if (kb_jt_GetPTXSize(prog, &n) != 0)
      goto out;
    r->ptx_bytes = n;
    r->ptx_s = kb_jt_cpu() - t0;
  } else {
    if (kb_nvrtc.GetCUBINSize(prog, &n) != 0)
      goto out;
    r->cubin_bytes = n;
    r->cubin_s = kb_jt_cpu() - t0;
  }
  rc = 0;
out:
  free(log);
  if (prog != NULL)
    (void)kb_nvrtc.DestroyProgram(&prog);
  return rc;
}

static kb_problem_t kb_jt_problem(const kb_shape_t *sh, int type, int64_t *fs, int right)
{
  kb_problem_t pb;
  int i;
  memset(&pb, 0, sizeof pb);
  pb.type = type ? KRONBLAS_R_64F : KRONBLAS_R_32F;
  pb.side = KRONBLAS_SIDE_LEFT;
  pb.transX = pb.transF = KRONBLAS_OP_N;
  pb.m = sh->m;
  pb.nfactors = sh->n;
  pb.p = sh->p;
  pb.q = sh->q;
  pb.pointer_mode = KRONBLAS_POINTER_MODE_HOST;
  pb.batch = 1;
  pb.K = pb.L = 1;
  for (i = 0; i < sh->n; i++) {
    pb.K *= sh->p[i];
    pb.L *= sh->q[i];
    fs[i] = 1;
  }
  pb.xs_k = pb.ys_l = 1;
  pb.xs_m = pb.K;
  pb.ys_m = pb.L;
  pb.fs_l = fs;
  pb.fs_k = fs + KB_SHAPE_MAXF;
  for (i = 0; i < sh->n; i++)
    fs[KB_SHAPE_MAXF + i] = sh->q[i];
  pb.x_contig_k = pb.y_contig_l = 1;
  if (right) {
    /* RIGHT/N in canonical form: X and Y contiguous along m. */
    pb.side = KRONBLAS_SIDE_RIGHT;
    pb.xs_m = pb.ys_m = 1;
    pb.xs_k = pb.ys_l = pb.m;
    pb.x_contig_k = pb.y_contig_l = 0;
  }
  return pb;
}

#define KB_JT_MAXSH 256

int main(int argc, char **argv)
{
  static kb_shape_t sh[KB_JT_MAXSH];
  static char uses[KB_JT_MAXSH][2][KB_CUDA_MAX_CFGS];
  static kb_jt_res_t res[KB_CUDA_MAX_CFGS];
  static char ok[KB_CUDA_MAX_CFGS];
  int sm = 90, types[2] = { 1, 1 }, nsh = 0, i, t, c, ncfg, reps = 1, only_m = 0, right = 0, plan_only = 0;
  const kb_cuda_fast_cfg_t *cfg;
  double worst = 0;

  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: jit-time [-s SM] [-t s,d] [-X NVRTC-OPTION]... [-r N] [-M] [-S SOURCE [-N]] [-R] [-P]\n"
             "                [-B BYTES_PER_S[,FMA]]\n"
             "                [SHAPE|SET]...\n"
             "NVRTC compile time of the CUDA planner's JIT configurations (default set: realworld);\n"
             "see the comment at the top of tools/jit-time.c.\n");
      return 0;
    } else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
      sm = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
      types[0] = strchr(argv[i + 1], 's') != NULL;
      types[1] = strchr(argv[++i], 'd') != NULL;
    } else if (!strcmp(argv[i], "-X") && i + 1 < argc && kb_jt_nextra < KB_JT_MAXX) {
      kb_jt_extra[kb_jt_nextra++] = argv[++i];
    } else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "-S") && i + 1 < argc) {
      FILE *f = fopen(argv[++i], "rb");
      long n;
      char *buf;
      if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
          (buf = calloc(1, (size_t)n + 1)) == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "jit-time: cannot read %s\n", argv[i]);
        return 2;
      }
      fclose(f);
      kb_jt_src = buf;
    } else if (!strcmp(argv[i], "-N")) {
      kb_jt_noFU = 1;
    } else if (!strcmp(argv[i], "-M")) {
      only_m = 1;
    } else if (!strcmp(argv[i], "-R")) {
      right = 1;
    } else if (!strcmp(argv[i], "-P")) {
      plan_only = 1;
    } else if (!strcmp(argv[i], "-B") && i + 1 < argc) {
      double bw = 0, fma = 1.0;
      if (sscanf(argv[++i], "%lf,%lf", &bw, &fma) < 1 || bw <= 0 || fma <= 0) {
        fprintf(stderr, "jit-time: -B wants BYTES_PER_S[,FMA] (e.g. 4.18e12 for an H200)\n");
        return 2;
      }
      kb_cuda_model_rates(bw, fma);
    } else {
      const char *const *set = kb_shape_set(argv[i]);
      const char *one[2] = { argv[i], NULL };
      for (set = set ? set : one; *set != NULL && nsh < KB_JT_MAXSH; set++) {
        const char *err = kb_shape_parse(*set, &sh[nsh]);
        if (err != NULL) {
          fprintf(stderr, "jit-time: %s: %s\n", *set, err);
          return 2;
        }
        nsh++;
      }
    }
  }
  if (nsh == 0)
    for (const char *const *set = kb_shape_set("realworld"); *set != NULL; set++)
      (void)kb_shape_parse(*set, &sh[nsh++]);
  if (!kb_cuda_jit_available()) {
    fprintf(stderr, "jit-time: libnvrtc cannot be opened\n");
    return 77;
  }
  {
    void *lib = dlopen("libnvrtc.so", RTLD_NOW | RTLD_NOLOAD);
    char so[64];
    snprintf(so, sizeof so, "libnvrtc.so.%d", CUDART_VERSION / 1000);
    if (lib == NULL)
      lib = dlopen(so, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL || (*(void **)&kb_jt_GetPTXSize = dlsym(lib, "nvrtcGetPTXSize")) == NULL) {
      fprintf(stderr, "jit-time: nvrtcGetPTXSize not found\n");
      return 1;
    }
  }

  /* Plans: candidates into the registry, the model's choice recorded.
   * Without a GPU, the whole-vector and whole-row kernels' geometry takes
   * an H100's (132 SMs, 227 KB of shared memory a block). */
  kb_cuda_dev_props_assume(132, 232448);
  for (i = 0; i < nsh; i++)
    for (t = 0; t < 2; t++) {
      int64_t fs[2 * KB_SHAPE_MAXF];
      kb_cuda_pstep_t steps[KB_SHAPE_MAXF];
      kb_problem_t pb;
      int n0;
      if (!types[t])
        continue;
      int64_t ns, j;
      pb = kb_jt_problem(&sh[i], t, fs, right);
      (void)kb_cuda_fast_cfgs(&n0);
      memset(kb_jt_now, 0, sizeof kb_jt_now);
      ns = kb_cuda_plan(&pb, KRONBLAS_KERNELS_ALL, 132, steps);
      cfg = kb_cuda_fast_cfgs(&ncfg);
      if (plan_only) {
        printf("%-22s %c", sh[i].name, "sd"[t]);
        for (j = 0; j < ns; j++) {
          char word[200];
          const int k = steps[j].kernel;
          /* fast and slice-GEMM steps are their words; the others a name,
           * whole-row variants with their word ("c1:t256") after it */
          const char *name = k == KB_KERNEL_GENERIC ? "generic" : k == KB_KERNEL_CUBLAS ? "cublas" :
                             k == KB_KERNEL_CUBLAS_COL ? "cublas_col" : k == KB_KERNEL_CUBLAS_NAT ? "cublas_nat" :
                             k == KB_KERNEL_SMALL ? "small" : "row";
          (void)kb_cuda_kernel_word(k, word, (int)sizeof word);
          if (k >= 0 || kb_cuda_kernel_is_gemm(k))
            printf(" %lld:%d:%s", (long long)steps[j].i_hi, steps[j].nf, word[0] ? word : "?");
          else
            printf(" %lld:%d:%s%s%s", (long long)steps[j].i_hi, steps[j].nf, name, word[0] ? ":" : "", word);
        }
        printf("\n");
      }
      for (c = 0; c < ncfg; c++)
        uses[i][t][c] = kb_jt_now[c] ? 2 : (c >= n0 && cfg[c].jit == KB_CFG_JIT) ? 1 : 0;
    }

  if (plan_only)
    return 0;
  cfg = kb_cuda_fast_cfgs(&ncfg);
  printf("# sm_%d, NVRTC %d.%d, options:", sm, kb_nvrtc.major, kb_nvrtc.minor);
  {
    const char *o[KB_JIT_NOPT_MAX];
    char arch[32];
    int no = kb_jit_options(sm, arch, o);
    for (i = 0; i < no; i++)
      printf(" %s", o[i]);
    for (i = 0; i < kb_jt_nextra; i++)
      printf(" %s", kb_jt_extra[i]);
  }
  printf("\n# idx M configuration                                          ptx_ms cubin_ms ptxas_ms  cubin_B regs spill first-shape\n");
  for (c = 0; c < ncfg; c++) {
    char word[200];
    const char *first = "-";
    int k;
    if (cfg[c].jit != KB_CFG_JIT || (only_m && !kb_jt_chosen[c]))
      continue;
    for (i = 0; i < nsh && *first == '-'; i++)
      for (t = 0; t < 2; t++)
        if (uses[i][t][c]) {
          first = sh[i].name;
          break;
        }
    memset(&res[c], 0, sizeof res[c]);
    ok[c] = 1;
    for (k = 0; k < reps && ok[c]; k++) {
      kb_jt_res_t r1 = res[c];
      ok[c] = kb_jt_compile(&cfg[c], sm, 1, &r1) == 0 && kb_jt_compile(&cfg[c], sm, 0, &r1) == 0;
      if (k == 0 || r1.cubin_s < res[c].cubin_s)
        res[c] = r1;
    }
    if (kb_cuda_cfg_format(&cfg[c], word, (int)sizeof word) < 0)
      strcpy(word, "?");
    printf("%5d %c %-58s %6.0f %8.0f %8.0f %8zu %4d %5d %s%s\n", c, kb_jt_chosen[c] ? 'M' : ' ', word,
           1e3 * res[c].ptx_s, 1e3 * res[c].cubin_s, 1e3 * (res[c].cubin_s - res[c].ptx_s), res[c].cubin_bytes,
           res[c].regs, res[c].spill, first, ok[c] ? "" : " FAILED");
    fflush(stdout);
    if (res[c].cubin_s > worst)
      worst = res[c].cubin_s;
  }
  printf("# worst single compile: %.0f ms\n", 1e3 * worst);
  printf("# first call (model plan, cold cache): sum of its JIT compiles\n");
  for (i = 0; i < nsh; i++)
    for (t = 0; t < 2; t++) {
      double sum = 0;
      int k = 0;
      if (!types[t])
        continue;
      for (c = 0; c < ncfg; c++)
        if (uses[i][t][c] == 2 && cfg[c].jit == KB_CFG_JIT) {
          sum += res[c].cubin_s;
          k++;
        }
      if (k == 0)
        continue;
      printf("  %-22s %c %d kernels %6.0f ms\n", sh[i].name, "sd"[t], k, 1e3 * sum);
    }
  return 0;
}
