/* t-cpu-tune.c - measured planning on the CPU backend (lib/cpu_tune.c).
 *
 * A handle in KRONBLAS_TUNING_MEASURE mode runs the issue's CPU shapes at
 * reduced m and random odd shapes, all four types, both sides and every
 * transpose, checked element by element (t-cpu-body.c's helpers: the
 * explicit product or the randomised identity).  The first call of a key
 * must time candidates and remember one plan; the same call again must
 * time nothing and still be right (counted through the test hooks of
 * lib/cpu_plan.h; linked statically to reach them).  The wisdom hooks:
 * every remembered plan goes out through wisdom_each, reads back through
 * wisdom_add and through an exported file; malformed and hostile keys and
 * plans are INVALID_VALUE; a hand-written valid plan other than the
 * model's is used and computes right. */
#define KB_T_NO_MAIN
#define KB_TEST_ISA "process"
#include "t-cpu-body.c"

#include <unistd.h>

typedef struct {
  int n;
  char key[8][2048], plan[8][2048];
} kb_t_list_t;

static void kb_t_put(void *ctx, const char *key, const char *plan)
{
  kb_t_list_t *l = ctx;
  if (l->n < 8) {
    snprintf(l->key[l->n], sizeof l->key[0], "%s", key);
    snprintf(l->plan[l->n], sizeof l->plan[0], "%s", plan);
  }
  l->n++;
}

/* Runs P on the tuning handle twice: the first call of a new key times and
 * remembers, the second reuses.  Records the first failure. */
static void kb_t_tuned(kronblasHandle_t h, kb_t_prob_t *P, uint64_t seed, int use_oracle, int *nbad,
                       int *nrun, char *first, size_t cap)
{
  char why[700], desc[300];
  long timed0;
  int plans0, k;
  kb_t_dims(P);
  kronblasSetNumThreads(h, P->nthreads);
  kb_t_describe(P, desc, sizeof desc);
  for (k = 0; k < 2; k++) {
    const char *fail = NULL;
    timed0 = kb_cpu_test_timed_count();
    plans0 = kb_cpu_test_plan_count(h);
    (*nrun)++;
    if (kb_t_run(h, P, seed + (uint64_t)k, use_oracle, NULL, NULL, why, sizeof why) != 0)
      fail = why;
    else if (k == 1 && (kb_cpu_test_timed_count() != timed0 || kb_cpu_test_plan_count(h) != plans0))
      fail = "the second call timed candidates again";
    else if (k == 0 && kb_cpu_test_plan_count(h) > plans0 && kb_cpu_test_timed_count() == timed0)
      fail = "a plan was remembered without timing";
    if (fail != NULL) {
      if (*nbad == 0)
        snprintf(first, cap, "%.300s%s%.480s", fail == why ? "" : desc, fail == why ? "" : ": ", fail);
      (*nbad)++;
      return;
    }
  }
}

int main(void)
{
  const uint64_t seed = kb_test_seed();
  kronblasHandle_t h = NULL;
  kb_rng_t r;
  int ti;
  char first[800];
  double t0;

  /* the thread counts compared here must run as asked, however small the
   * call (lib/env.c, KRONBLAS_CPU_SMALL_WORK); before the first call */
  setenv("KRONBLAS_CPU_SMALL_WORK", "0", 1);
  printf("# seed %" PRIu64 " (KRONBLAS_TEST_SEED=%" PRIu64 " reproduces this run)\n", seed, seed);
  if (kb_cpu_kernels_for(KRONBLAS_R_32F) == NULL)
    tap_skip_all("the fast CPU path is off (KRONBLAS_CPU_ISA=ref): nothing is tuned");
  kb_rng_seed(&r, seed);
  tap_plan(1 + 4 + 4 + 6 + 1 + 1 + 1 + 1);
  tap_ok(kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetTuningMode(h, KRONBLAS_TUNING_MEASURE) == KRONBLAS_STATUS_SUCCESS,
         "CPU handle in MEASURE mode");

  t0 = kb_t_now();
  /* 1. the issue's shapes at reduced m, both sides, random transposes */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    int nbad = 0, nrun = 0;
    size_t si;
    first[0] = '\0';
    for (si = 0; si < sizeof kb_t_issue / sizeof kb_t_issue[0]; si++) {
      const kb_t_shape_t *S = &kb_t_issue[si];
      kb_t_prob_t P;
      int64_t K, n = kb_t_issue_factors(S, type, &K);
      kb_t_issue_prob(&r, S, type, n, (int)((si + (size_t)ti) % 2), 2, &P);
      kb_t_tuned(h, &P, kb_rng_next(&r), 0, &nbad, &nrun, first, sizeof first);
    }
    tap_ok(nbad == 0, "%s: the issue's shapes at reduced m, measured plans, first and second call: %d of %d "
           "wrong%s%s", kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first);
  }
  tap_diag("issue shapes: %.2f s, %d plans kept", kb_t_now() - t0, kb_cpu_test_plan_count(h));

  t0 = kb_t_now();
  /* 2. random odd shapes against the explicit product */
  for (ti = 0; ti < 4; ti++) {
    const kronblasDataType_t type = kb_t_types[ti];
    int nbad = 0, nrun = 0, c;
    first[0] = '\0';
    for (c = 0; c < 16; c++) {
      kb_t_prob_t P;
      kb_t_random_shape(&r, type, 0, &P);
      P.strategy = -1;
      P.nthreads = (int)kb_rng_range(&r, 1, 3);
      P.alpha_one = (int)kb_rng_range(&r, 0, 1);
      P.beta_zero = (int)kb_rng_range(&r, 0, 1);
      P.pad = kb_rng_range(&r, 0, 1) * kb_rng_range(&r, 1, 17);
      kb_t_tuned(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    }
    tap_ok(nbad == 0, "%s: random odd shapes, measured plans, first and second call, against the explicit "
           "product: %d of %d wrong%s%s", kb_oracle_type_name(type), nbad, nrun, nbad ? ": " : "", first);
  }
  tap_diag("random shapes: %.2f s, %d plans kept", kb_t_now() - t0, kb_cpu_test_plan_count(h));

  /* 2b. a slow first run of the model's plan (a worker's vCPU waking, a
   * BLAS' threads spinning) does not decide: the winner is timed again
   * against it, and the call is right whichever is kept */
  {
    const long retimed0 = kb_cpu_test_retimed_count();
    kb_t_prob_t P;
    int nbad = 0, nrun = 0, i;
    first[0] = '\0';
    memset(&P, 0, sizeof P);
    P.type = KRONBLAS_R_32F;
    P.m = 64;
    P.n = 3;
    for (i = 0; i < 3; i++)
      P.p[i] = P.q[i] = 8;
    P.batch = 1;
    P.strategy = -1;
    P.nthreads = 2;
    kb_cpu_test_tune_slow_first(0.05);
    kb_t_tuned(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    kb_cpu_test_tune_slow_first(0);
    tap_ok(nbad == 0 && kb_cpu_test_retimed_count() == retimed0 + 1,
           "a first run 50 ms slow: the winner timed again against the model's plan (%ld), the calls right%s%s",
           kb_cpu_test_retimed_count() - retimed0, nbad ? ": " : "", first);
  }

  /* 3. wisdom hooks */
  {
    const kb_backend_t *ops = &kb_cpu_backend;
    kb_t_list_t l;
    char ident[4096], path[64], key[256], plan[256];
    const char *vl_isa = kb_cpu_kernels_for(KRONBLAS_R_32F)->name;
    const int vl = kb_cpu_kernels_for(KRONBLAS_R_32F)->vl;
    int before, ok, i, nrej = 0, nhostile, nt = 0;
    long timed0;
    kronblasHandle_t h2 = NULL;

    ok = ops->wisdom_ident(h, ident, sizeof ident) == KRONBLAS_STATUS_SUCCESS &&
         strstr(ident, "cpu_model ") == ident && strstr(ident, "\nisa ") != NULL &&
         strstr(ident, "\nthreads ") != NULL && ident[strlen(ident) - 1] == '\n';
    tap_ok(ok, "wisdom identity: %s", ok ? "cpu_model, isa, threads lines" : ident);

    /* every plan out and back in (wisdom_add accepts what wisdom_each gives) */
    memset(&l, 0, sizeof l);
    ops->wisdom_each(h, kb_t_put, &l);
    before = kb_cpu_test_plan_count(h);
    ok = l.n == before && l.n > 0;
    for (i = 0; i < l.n && i < 8 && ok; i++)
      ok = ops->wisdom_add(h, l.key[i], l.plan[i]) == KRONBLAS_STATUS_SUCCESS;
    i = ok ? 0 : i - 1;
    tap_ok(ok && kb_cpu_test_plan_count(h) == before, "wisdom_each gives every plan (%d), wisdom_add takes "
           "them back (%s: \"%s\" -> \"%s\")", l.n, ok ? "first" : "refused", l.key[i], l.plan[i]);

    /* through a file: export, a fresh handle imports, no timing there */
    snprintf(path, sizeof path, "t-cpu-tune-%ld.wisdom", (long)getpid());
    ok = kronblasExportWisdom(h, path) == KRONBLAS_STATUS_SUCCESS &&
         kronblasCreateWithBackend(&h2, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_SUCCESS &&
         kronblasGetNumThreads(h, &nt) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetNumThreads(h2, nt) == KRONBLAS_STATUS_SUCCESS &&
         kronblasSetTuningMode(h2, KRONBLAS_TUNING_MEASURE) == KRONBLAS_STATUS_SUCCESS &&
         kronblasImportWisdom(h2, path) == KRONBLAS_STATUS_SUCCESS &&
         kb_cpu_test_plan_count(h2) == before;
    remove(path);
    if (h2 != NULL)
      kronblasDestroy(h2);
    tap_ok(ok, "export, import into a new handle of the same identity (%d threads): %d plans", nt, before);

    /* a hand-written plan other than the model's is used and right: 3 x 3^5
     * float, X and Y contiguous along K/L (LEFT, N), 1 thread, every factor
     * its own group, one vector per tile */
    {
      kb_t_prob_t P;
      int nbad = 0, nrun = 0;
      kb_t_square_prob(KRONBLAS_R_32F, 3, 5, 3, 1, 1, 0, &P);
      snprintf(key, sizeof key, "s %s xk yl m3 t1 3x3,3x3,3x3,3x3,3x3", vl_isa);
      snprintf(plan, sizeof plan, "rows split1 t1 4-4:%d,3-3:%d,2-2:%d,1-1:%d,0-0:%d", vl, vl, vl, vl, vl);
      ok = ops->wisdom_add(h, key, plan) == KRONBLAS_STATUS_SUCCESS;
      timed0 = kb_cpu_test_timed_count();
      first[0] = '\0';
      kronblasSetNumThreads(h, 1);
      if (ok)
        kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
      tap_ok(ok && nbad == 0 && kb_cpu_test_timed_count() == timed0,
             "a hand-written plan (5 single-factor groups) is used without timing and is right%s%s",
             nbad ? ": " : "", first);
    }

    /* a hand-written plan with digits in place (" ip1"): the two fastest
     * factors in digit0's chunks, the slowest with lanes = 64 * 6 inner
     * outputs; used without timing, right, and run in place */
    {
      kb_t_prob_t P;
      int nbad = 0, nrun = 0;
      const long runs0 = kb_cpu_test_inplace_runs();
      char ikey[128], iplan[128];
      static const int64_t pp[3] = { 5, 9, 33 }, qq[3] = { 7, 6, 64 };
      memset(&P, 0, sizeof P);
      P.type = KRONBLAS_R_32F;
      P.side = KRONBLAS_SIDE_LEFT;
      P.m = 3;
      P.n = 3;
      for (i = 0; i < P.n; i++) {
        P.p[i] = pp[i];
        P.q[i] = qq[i];
      }
      P.batch = 1;
      P.strategy = -1;
      P.nthreads = 1;
      P.alpha_one = 0;
      P.beta_zero = 0;
      snprintf(ikey, sizeof ikey, "s %s xk yl m3 t1 5x7,9x6,33x64", vl_isa);
      snprintf(iplan, sizeof iplan, "rows split1 t1 2-1:%d,0-0:%d ip1", vl, vl);
      ok = ops->wisdom_add(h, ikey, iplan) == KRONBLAS_STATUS_SUCCESS;
      timed0 = kb_cpu_test_timed_count();
      first[0] = '\0';
      kronblasSetNumThreads(h, 1);
      if (ok)
        kb_t_one(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
      tap_ok(ok && nbad == 0 && kb_cpu_test_timed_count() == timed0 && kb_cpu_test_inplace_runs() == runs0 + 1,
             "a hand-written plan with digits in place (ip1) is used without timing, runs in place and is "
             "right%s%s", nbad ? ": " : "", first);
    }

    /* malformed and hostile entries: INVALID_VALUE, handle unchanged */
    {
      char big[400];
      const char *hostile[][2] = {
        { "", "" },
        { "garbage", "rows split1 t1 4-0:16" },
        { NULL, "rows split1 t1 4-4:V,3-3:V,2-2:V,1-1:V,0-0:V" },        /* control: valid */
        { NULL, "rows split1 t1" },
        { NULL, "rows split1 t1 " },
        { NULL, "rows split1 t1 4-3:V,1-0:V" },                           /* gap */
        { NULL, "rows split1 t1 4-2:V,3-0:V" },                           /* overlap */
        { NULL, "rows split1 t1 0-0:V,1-1:V,2-2:V,3-3:V,4-4:V" },        /* reversed */
        { NULL, "rows split1 t1 5-0:V" },                                 /* past the chain */
        { NULL, "rows split1 t1 4-0:3" },                                 /* not a vector multiple */
        { NULL, "rows split1 t1 4-0:0" },
        { NULL, "rows split1 t1 4-0:W" },                                 /* wider than PER_ROW tiles */
        { NULL, "rows split1 t1 4-0:-16" },
        { NULL, "rows split1 t1 4-0:99999999999999999999999" },
        { NULL, "rows split1 t0 4-0:V" },
        { NULL, "rows split1 t2 4-0:V" },                                 /* more threads than the key */
        { NULL, "rows split2 t1 4-0:V" },
        { NULL, "passes split1 t1 4-0:V" },
        { NULL, "columns split0 t1 4-0:V" },
        { NULL, "rows split1 t1 4-0:V " },
        { NULL, "rows split1 t1 4-0:V,," },
        { NULL, "rows split1 t1 4-0:0V" },
        { NULL, "rows  split1 t1 4-0:V" },
        { NULL, "rows split1 t1 4-0:V\tx" },
        { "s foo xk yl m3 t1 3x3,3x3,3x3,3x3,3x3", "rows split1 t1 4-0:V" }, /* another ISA */
        { "q ISA xk yl m3 t1 3x3,3x3,3x3,3x3,3x3", "rows split1 t1 4-0:V" },
        { "s ISA xk yl m0 t1 3x3,3x3,3x3,3x3,3x3", "rows split1 t1 4-0:V" },
        { "s ISA xk yl m3 t1 3x3,3x3,3x3,3x3,0x3", "rows split1 t1 4-0:V" },
        { "s ISA xk yl m03 t1 3x3,3x3,3x3,3x3,3x3", "rows split1 t1 4-0:V" },
        { "s ISA xk yl m3 t1 3x3,3x3,3x3,3x3,3x3,", "rows split1 t1 4-0:V" },
        { "s ISA xq yl m3 t1 3x3,3x3,3x3,3x3,3x3", "rows split1 t1 4-0:V" },
        { "s ISA xk yl m3 t1 65536x65536,65536x65536,65536x65536", "passes split0 t1 2-0:V" },
        { "s ISA xk yl m1 t1 128x128,128x128,128x128", "passes split0 t1 2-0:W" }, /* 2 x 64 MiB+ tiles */
        { big, "rows split1 t1 29-0:V" },                                 /* 30 factors in one group */
        { NULL, "rows split1 t1 4-0:V ip1" },                             /* q = 3: no digit0 */
        { NULL, "rows split1 t1 4-0:V ip0" },
        { NULL, "rows split1 t1 4-0:V ip1 ra0" },                         /* suffixes out of order */
        { NULL, "rows split1 t1 4-0:V ip1 ip1" },
        { "c ISA xk yl m3 t1 3x64", "rows split1 t1 0-0:V ip1" },         /* complex: no digit0 */
        { "s ISA xk yl m3 t1 3x64", "passes split0 t1 0-0:V ip1" },       /* in place is PER_ROW */
        { "s ISA xm yl m3 t1 3x64", "rows split1 t1 0-0:V ip1" },         /* X along m */
        { "s ISA xk ym m3 t1 3x64", "rows split1 t1 0-0:V ip1" },         /* Y along m */
      };
      nhostile = (int)(sizeof hostile / sizeof hostile[0]);
      {
        size_t o = (size_t)snprintf(big, sizeof big, "s %s xk yl m2 t1 ", vl_isa);
        for (i = 0; i < 30; i++)
          o += (size_t)snprintf(big + o, sizeof big - o, "%s1x1", i ? "," : "");
      }
      before = kb_cpu_test_plan_count(h);
      first[0] = '\0';
      ok = 1;
      for (i = 0; i < nhostile; i++) {
        char kbuf[400], pbuf[400];
        const char *s;
        size_t o = 0;
        kronblasStatus_t st;
        /* the empty entry builds nothing: strings, not what the stack held */
        kbuf[0] = pbuf[0] = '\0';
        /* V: the ISA's vector width, W: 64 of them; ISA: the kernels' name */
        for (s = hostile[i][1]; *s && o + 16 < sizeof pbuf; s++)
          o += *s == 'V' ? (size_t)sprintf(pbuf + o, "%d", vl) : *s == 'W' ? (size_t)sprintf(pbuf + o, "%d", 64 * vl)
                                                                           : (size_t)sprintf(pbuf + o, "%c", *s);
        o = 0;
        for (s = hostile[i][0] ? hostile[i][0] : key; *s && o + 16 < sizeof kbuf; s++)
          o += !strncmp(s, "ISA", 3) ? (s += 2, (size_t)sprintf(kbuf + o, "%s", vl_isa))
                                     : (size_t)sprintf(kbuf + o, "%c", *s);
        st = ops->wisdom_add(h, kbuf, pbuf);
        if ((st == KRONBLAS_STATUS_SUCCESS) != (i == 2)) {
          if (ok)
            snprintf(first, sizeof first, ": \"%.300s\" \"%.300s\" gave %s", kbuf, pbuf, kronblasGetStatusName(st));
          ok = 0;
        } else if (st != KRONBLAS_STATUS_SUCCESS) {
          nrej++;
        }
      }
      tap_ok(ok && nrej == nhostile - 1 && kb_cpu_test_plan_count(h) == before,
             "wisdom_add: %d malformed or hostile entries rejected with INVALID_VALUE, the handle "
             "unchanged%s", nrej, first);
    }

    /* Forget drops them; the next call of a key times again */
    ok = kronblasForgetWisdom(h) == KRONBLAS_STATUS_SUCCESS && kb_cpu_test_plan_count(h) == 0;
    tap_ok(ok, "kronblasForgetWisdom drops the CPU plans");
  }

  /* The model's price of PASSES on row-contiguous X and Y: measured (1
   * thread, float) 10x PER_ROW on 1024_8x8^5 and 2.8x on 256_128x128^2,
   * where a model without the scattered stores of the last group said 2.5x
   * and 1.3x; MODEL mode must still pick PER_ROW, and the tuner's 3x cut
   * must spare the timing of hopeless PASSES candidates. */
  {
    static const struct { int64_t m, p, n; double min_ratio; } cs[2] = {
      { 1024, 8, 5, 4.0 }, { 256, 128, 2, 2.0 } };
    const kb_cpu_opt_t *kt = kb_cpu_kernels_for(KRONBLAS_R_32F);
    int ci, ok = 1;
    first[0] = '\0';
    for (ci = 0; ci < 2; ci++) {
      int64_t pq[8], fs1[8], fsp[8], i, K = 1;
      kb_problem_t pb;
      kb_cpu_plan_opts_t o;
      kb_cpu_plan_t pr, pp, pm;
      double ratio = 0;
      for (i = 0; i < cs[ci].n; i++) {
        pq[i] = cs[ci].p;
        fs1[i] = 1;
        fsp[i] = cs[ci].p;
        K *= cs[ci].p;
      }
      memset(&pb, 0, sizeof pb);
      pb.type = KRONBLAS_R_32F;
      pb.m = cs[ci].m;
      pb.nfactors = cs[ci].n;
      pb.p = pq;
      pb.q = pq;
      pb.batch = 1;
      pb.K = pb.L = K;
      pb.ldx = pb.ldy = K;
      pb.xs_m = pb.ys_m = K;
      pb.xs_k = pb.ys_l = 1;
      pb.fs_l = fsp;
      pb.fs_k = fs1;
      pb.x_contig_k = pb.y_contig_l = pb.f_contig_k = 1;
      pb.beta_is_zero = 1;
      kb_cpu_plan_opts_default(&o, 1);
      o.strategy = KB_CPU_PER_ROW;
      if (kb_cpu_plan_with(&pb, kt, &o, &pr) == KRONBLAS_STATUS_SUCCESS) {
        o.strategy = KB_CPU_PASSES;
        if (kb_cpu_plan_with(&pb, kt, &o, &pp) == KRONBLAS_STATUS_SUCCESS && pr.cost > 0)
          ratio = pp.cost / pr.cost;
      }
      kb_cpu_plan_opts_default(&o, 1);
      if (kb_cpu_plan_with(&pb, kt, &o, &pm) != KRONBLAS_STATUS_SUCCESS)
        pm.strategy = -1;
      if (ratio < cs[ci].min_ratio || pm.strategy != KB_CPU_PER_ROW) {
        if (ok)
          snprintf(first, sizeof first, ": %lld_%lldx%lld^%lld: PASSES/PER_ROW %.2f (want >= %.1f), model %s",
                   (long long)cs[ci].m, (long long)cs[ci].p, (long long)cs[ci].p, (long long)cs[ci].n, ratio,
                   cs[ci].min_ratio, pm.strategy == KB_CPU_PER_ROW ? "per-row" : pm.strategy == KB_CPU_PASSES ? "passes" : "none");
        ok = 0;
      }
    }
    tap_ok(ok, "model: PASSES priced well above PER_ROW on row-contiguous X and Y, PER_ROW chosen%s", first);
  }

  /* The tuner measures banded plans (" bd1") against the others: tuning
   * 9_3x3^7 float (LEFT, X and Y along K/L) runs a banded candidate, and
   * whichever wins gives the right values on the second call too. */
  {
    kb_t_prob_t P;
    const long runs0 = kb_cpu_test_band_runs();
    int nbad = 0, nrun = 0;
    first[0] = '\0';
    kb_t_square_prob(KRONBLAS_R_32F, 9, 7, 3, 2, 1, 1, &P);
    P.tF = KRONBLAS_OP_T;
    kb_t_tuned(h, &P, kb_rng_next(&r), 1, &nbad, &nrun, first, sizeof first);
    tap_ok(nbad == 0 && kb_cpu_test_band_runs() > runs0, "the tuner times banded plans (9_3x3^7 float: %ld "
           "banded runs) and its choice is right%s%s", kb_cpu_test_band_runs() - runs0, nbad ? ": " : "", first);
  }

  kronblasDestroy(h);
  return tap_done();
}
