/* t-cuda-variant.c - measured planning also times neighbours of the
 * precompiled fast configurations for square factors of P <= 32
 * (lib/cuda_plan.c, kb_jit_variants: JIT kernels with other register
 * tiles, block vectors, unroll and slabs).  For float and double, P = 8,
 * 16 and 32: the tuner's log names the variants it timed; each of them,
 * planted through a wisdom file, computes the same as the CPU backend on
 * random data with poisoned outputs; and a model plan made after the
 * tuning never takes one (model plans must not depend on what the process
 * tuned before).  Also the fused configurations over strided batches with
 * per-entry factors (batch_walk), and the float 32x32 configurations' beta
 * != 0 twins as the last launch (beta_twin).  SKIPs without a CUDA device. */
#include "t-cuda-util.c"
#include "t-cuda-force.c"

#define TV_MAXW 32

/* The distinct variant words of the log's "tune:" lines, at most max. */
static int tv_words(const char *log, char (*w)[160], int max)
{
  const char *l = log;
  int n = 0, j;
  while (l != NULL && *l != '\0' && n < max) {
    const char *e = strchr(l, '\n'), *f = strstr(l, " fast:"), *v = strstr(l, " variant");
    const char *t = strstr(l, "tune: ");
    if (e == NULL)
      e = l + strlen(l);
    if (t != NULL && t < e && f != NULL && f < e && v != NULL && v < e && v > f) {
      const size_t len = (size_t)(v - f - 1);
      int dup = 0;
      if (len < sizeof w[0]) {
        char word[160];
        memcpy(word, f + 1, len);
        word[len] = '\0';
        for (j = 0; j < n; j++)
          dup |= strcmp(w[j], word) == 0;
        if (!dup)
          strcpy(w[n++], word);
      }
    }
    l = *e != '\0' ? e + 1 : NULL;
  }
  return n;
}

/* F of a configuration's word. */
static int tv_word_f(const char *word)
{
  const char *f = strstr(word, ":f");
  return f != NULL ? atoi(f + 2) : 0;
}

static void shape(kronblasDataType_t t, int64_t m, int n, int64_t P)
{
  int64_t p[TC_MAXF];
  char (*w)[160] = malloc(TV_MAXW * sizeof *w), *b;
  tc_case_t c;
  int i, nw, tried = 0;
  for (i = 0; i < n; i++)
    p[i] = P;
  /* Tuned: LEFT, X not transposed (every launch may be a fast one). */
  tc_case_init(&c, t, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, p);
  c.tune = 1;
  b = ts_run_log(&c);
  nw = b != NULL && w != NULL ? tv_words(b, w, TV_MAXW) : 0;
  tap_ok(nw > 0, "the tuner timed %d variants of the precompiled configurations (%s %lld_%lldx%lld^%d)", nw,
         tc_tname(t), (long long)m, (long long)P, (long long)P, n);
  free(b);
  if (t == KRONBLAS_R_32F && P == 32 && n >= 2) {
    /* the two-fused configuration unrolls two k-steps (the tuner's pick
     * for 16_32x32^5 on the H200); its rolled neighbour must be timed */
    int xu1 = 0;
    for (i = 0; i < nw; i++) {
      const size_t len = strlen(w[i]);
      xu1 |= tv_word_f(w[i]) == 2 && len > 4 && strcmp(w[i] + len - 4, ":xu1") == 0;
    }
    tap_ok(xu1, "the tuner timed two fused float 32x32 factors with the k-loop rolled");
  }
  kronblasForgetWisdom(tc_gpu);
  /* Each variant (a few in quick mode) as the first launch, one generic
   * launch per remaining factor; random transposes, leading dimensions
   * and beta. */
  for (i = 0; i < nw && (!tc_quick() || tried < 2); i++) {
    const int F = tv_word_f(w[i]);
    char plan[1024];
    size_t o;
    int f;
    if (F < 1 || F > n)
      continue;
    o = (size_t)snprintf(plan, sizeof plan, "%d:%d:%s", n - 1, F, w[i]);
    for (f = n - 1 - F; f >= 0 && o < sizeof plan; f--)
      o += (size_t)snprintf(plan + o, sizeof plan - o, " %d:1:generic", f);
    tc_case_init(&c, t, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, (int)tc_range(0, 2), tc_range(1, m), n, p, p);
    if (tc_range(0, 1)) c.ldx = tc_K(&c) + 4 * tc_range(0, 3);
    if (tc_range(0, 2) == 0) c.beta[0] = c.beta[1] = 0;
    c.variant = (int)tc_range(0, 3);
    tc_case_batch(&c, 2);
    ts_forced(&c, plan);
    tried++;
  }
  /* A model plan of the same shape at another m, after the tuning above
   * filled the registry with variants: none of them in its launches. */
  tc_case_init(&c, t, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m + 1, n, p, p);
  b = ts_run_log(&c);
  tap_ok(b != NULL && strstr(b, "cuda plan step") != NULL && strstr(b, " variant") == NULL,
         "the model plan of %s %lld_%lldx%lld^%d takes no variant", tc_tname(t), (long long)m + 1, (long long)P,
         (long long)P, n);
  free(b);
  free(w);
}

/* Precompiled configurations of fused factors, which keep one copy of
 * them (kb_fast.cuh, FO), planted as the first launch of a strided batch
 * whose factors differ per entry, with more tiles than the device holds
 * blocks: a block's walk crosses entries and must load the next entry's
 * factors only after its last multiply by the old ones.  The one-factor
 * 32x32 configuration (a copy per stage) walks the same batch as the
 * reference.  Quick mode: a few vectors (no walk; racecheck). */
static void batch_walk(void)
{
  static const struct {
    kronblasDataType_t t;
    int64_t P, m;
    int n;
    const char *word;
  } w[] = {
    { KRONBLAS_R_32F, 32, 64, 3, "fast:t0:p32:q32:f2:tk8192:tm1:tp32:rk4:rq16:rm1:st2:xu2" },
    { KRONBLAS_R_32F, 32, 40, 3, "fast:t0:p32:q32:f1:tk8192:tm1:tp32:rk4:rq16:rm1:st2:xu2" },
    { KRONBLAS_R_32F, 8, 200, 5, "fast:t0:p8:q8:f3:tk8192:tm1:tp8:rk4:rq8:rm1:st2:xu2" },
    { KRONBLAS_R_32F, 8, 100, 5, "fast:t0:p8:q8:f3:tk16384:tm1:tp8:rk4:rq8:rm1:st2:xu1" },
    { KRONBLAS_R_32F, 16, 48, 4, "fast:t0:p16:q16:f2:tk8192:tm1:tp16:rk4:rq8:rm1:st2:xu4" },
    { KRONBLAS_R_64F, 16, 48, 4, "fast:t1:p16:q16:f2:tk8192:tm1:tp16:rk2:rq16:rm1:st2:xu1" },
    /* two fused 64x64 factors over a whole vector, two a block: an odd m
     * leaves the last block one */
    { KRONBLAS_R_32F, 64, 201, 2, "fast:t0:p64:q64:f2:tk4096:tm2:tp64:rk4:rq8:rm1:st2:xu4" },
  };
  size_t s;
  for (s = 0; s < sizeof w / sizeof w[0]; s++) {
    const int F = tv_word_f(w[s].word);
    int64_t p[TC_MAXF];
    char plan[512];
    size_t o;
    tc_case_t c;
    int f;
    for (f = 0; f < w[s].n; f++)
      p[f] = w[s].P;
    o = (size_t)snprintf(plan, sizeof plan, "%d:%d:%s", w[s].n - 1, F, w[s].word);
    for (f = w[s].n - 1 - F; f >= 0 && o < sizeof plan; f--)
      o += (size_t)snprintf(plan + o, sizeof plan - o, " %d:1:generic", f);
    tc_case_init(&c, w[s].t, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, (int)tc_range(0, 2),
                 tc_quick() ? 3 : w[s].m, w[s].n, p, p);
    c.variant = TC_SB;
    c.batch = 3;
    c.sX = c.sY = -1;
    for (f = 0; f < w[s].n; f++)
      c.sF[f] = -1;
    ts_forced(&c, plan);
  }
  kronblasForgetWisdom(tc_gpu);
}

/* The beta != 0 twins of the float 32x32 configurations (kb_fast.cuh,
 * kb_fast_twin: they ask L2 for the old outputs a tile blends into) as the
 * last launch, the one that blends into Y: enough vectors that blocks walk
 * several tiles, a batch, random transposes of the factors and leading
 * dimensions; beta random, or (scalars on the device, where the host
 * cannot see it) now and then 0 over a poisoned Y.  Quick mode: a few
 * vectors. */
static void beta_twin(void)
{
  static const struct {
    int n;
    int64_t m;
    const char *word;
  } w[] = {
    { 3, 140, "fast:t0:p32:q32:f1:tk8192:tm1:tp32:rk4:rq16:rm1:st2:xu2" },
    { 3, 140, "fast:t0:p32:q32:f2:tk8192:tm1:tp32:rk4:rq16:rm1:st2:xu2" },
    { 3, 300, "fast:t0:p32:q32:f3:tk32768:tm1:tp32:rk16:rq8:rm1:st1:xu1" },
  };
  size_t s;
  int rep;
  for (s = 0; s < sizeof w / sizeof w[0]; s++)
    for (rep = 0; rep < 2; rep++) {
      const int F = tv_word_f(w[s].word);
      int64_t p[TC_MAXF];
      char plan[512];
      size_t o = 0;
      tc_case_t c;
      int f;
      for (f = 0; f < w[s].n; f++)
        p[f] = 32;
      for (f = w[s].n - 1; f >= F && o < sizeof plan; f--)
        o += (size_t)snprintf(plan + o, sizeof plan - o, "%d:1:generic ", f);
      if (o < sizeof plan)
        snprintf(plan + o, sizeof plan - o, "%d:%d:%s", F - 1, F, w[s].word);
      tc_case_init(&c, KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, (int)tc_range(0, 2),
                   tc_quick() ? 3 : w[s].m + (int64_t)tc_range(0, 5), w[s].n, p, p);
      if (tc_range(0, 1)) c.ldy = tc_K(&c) + 4 * tc_range(1, 3);
      c.dev_ptr = rep;
      if (rep == 1 && tc_range(0, 2) == 0) c.beta[0] = c.beta[1] = 0;
      tc_case_batch(&c, 2);
      ts_forced(&c, plan);
    }
  kronblasForgetWisdom(tc_gpu);
}

/* Words of tiles no kernel has, and whole-vector tiles on longer vectors,
 * are refused on import, variant or not. */
static void bad_words(void)
{
  static const ts_bad_t bad[] = {
    { "t0 xk1 yl1 dp0 pol0 m3 32x32", "0:1:fast:t0:p32:q32:f1:tk4096:tm1:tp32:rk3:rq16:rm1:st2:xu2",
      "slices per thread not a multiple of the vector" },
    { "t0 xk1 yl1 dp0 pol0 m3 32x32", "0:1:fast:t0:p32:q32:f1:tk4096:tm1:tp32:rk8:rq64:rm1:st2:xu2",
      "512 accumulators a thread" },
    /* whole-vector configurations (output runs shorter than a vector) on
     * a longer vector: their vector stores would scatter wrongly */
    { "t0 xk1 yl1 dp0 pol0 m3 64x64,64x64,64x64",
      "2:2:fast:t0:p64:q64:f2:tk4096:tm2:tp64:rk4:rq8:rm1:st2:xu4 0:1:generic", "64^2 slab of a 64^3 vector" },
    { "t0 xk1 yl1 dp0 pol0 m3 8x8,8x8,8x8,8x8,8x8,8x8",
      "5:5:fast:t0:p8:q8:f5:tk32768:tm1:tp8:rk16:rq8:rm1:st1:xu1 0:1:generic", "8^5 slab of an 8^6 vector" },
  };
  ts_refused(bad, sizeof bad / sizeof bad[0]);
  kronblasForgetWisdom(tc_gpu);
}

int main(void)
{
  ts_setup("t-cuda-variant");
  bad_words();
  batch_walk();
  beta_twin();
  shape(KRONBLAS_R_32F, 9, 3, 32);
  shape(KRONBLAS_R_64F, 5, 3, 32);
  shape(KRONBLAS_R_32F, 7, 4, 16);
  shape(KRONBLAS_R_64F, 6, 3, 16);
  shape(KRONBLAS_R_32F, 17, 5, 8);
  shape(KRONBLAS_R_64F, 3, 4, 8);
  ts_teardown();
  return tap_done();
}
