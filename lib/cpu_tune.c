/* cpu_tune.c - measured planning for the CPU backend (KRONBLAS_TUNE,
 * kronblasSetTuningMode) and the handle's cache of measured plans, which
 * wisdom files save and restore.
 *
 * The first call of a problem key on a handle in KRONBLAS_TUNING_MEASURE
 * mode plans the model's choice and its neighbours (the other strategy,
 * shallower fusion, other tile widths, the other thread split, one thread),
 * runs each on the call's own X and factors into private buffers (Y is
 * never written while timing: it may even overlap X) and keeps the one of
 * least time.  A candidate is skipped when its estimated time (the best so
 * far, scaled by the model's cost ratio) would take the timing beyond about
 * 0.4 s, or when the model puts it at more than 3x its own choice; so
 * large problems time fewer candidates.
 *
 * The key is everything a plan depends on, as one printable line:
 *     "<type> <isa> x<k|m> y<l|m> m<rows> t<threads> <p>x<q>,<p>x<q>,..."
 * (X and Y contiguous along K/L or along m; factors in argument order), and
 * a plan is its choices (kb_cpu_plan_spec_t):
 *     "<passes|rows> split<0|1> t<threads> <hi>-<lo>:<nb>,...[ ra0][ ip1][ bd1]"
 * (" ra0": no read-ahead of the next row of X, where the plan would read
 * it; absent, as in files written before it existed: the layout's rule;
 * " ip1": digits in place, kb_cpu_plan_t.inplace; absent: not; " bd1": a
 * banded plan, kb_cpu_plan_t.band, always "rows split1 t<n> <n-1>-0:<vl>
 * bd1"; absent: not).
 * Both are parsed strictly and must read back as they were written. */
#include "cpu_plan.h"
#include "kb_wisdom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define KB_CPU_TUNE_MAX_PLANS 256
#define KB_CPU_TUNE_MAX_CANDS 12
#define KB_CPU_TUNE_BUDGET 0.4         /* seconds of timing per key */
#define KB_CPU_KEY_MAX 2048

typedef struct kb_cpu_entry {
  struct kb_cpu_entry *next;
  char *key;
  kb_cpu_plan_spec_t spec;
} kb_cpu_entry_t;

static long kb_cpu_timed;   /* candidates timed in this process (test hook) */
static long kb_cpu_retimed;          /* winners timed again (test hook) */
static double kb_cpu_slow_first;     /* added to the next first run (test hook) */

static const char kb_cpu_type_chars[4] = { 's', 'd', 'c', 'z' };

static double kb_cpu_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The key of pb on kt with nthreads; -1 if it does not fit. */
static int kb_cpu_key(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int nthreads, char *buf, size_t cap)
{
  size_t o;
  int64_t i;
  int n = snprintf(buf, cap, "%c %s x%c y%c m%lld t%d ", kb_cpu_type_chars[pb->type & 3], kt->name,
                   pb->x_contig_k ? 'k' : 'm', pb->y_contig_l ? 'l' : 'm', (long long)pb->m, nthreads);
  if (n < 0 || (size_t)n >= cap)
    return -1;
  o = (size_t)n;
  for (i = 0; i < pb->nfactors; i++) {
    n = snprintf(buf + o, cap - o, "%s%lldx%lld", i ? "," : "", (long long)pb->p[i], (long long)pb->q[i]);
    if (n < 0 || (size_t)n >= cap - o)
      return -1;
    o += (size_t)n;
  }
  return 0;
}

static int kb_cpu_spec_format(const kb_cpu_plan_spec_t *sp, char *buf, size_t cap)
{
  size_t o;
  int k;
  int n = snprintf(buf, cap, "%s split%d t%d ", sp->strategy == KB_CPU_PER_ROW ? "rows" : "passes",
                   sp->split_rows, sp->nthreads);
  if (n < 0 || (size_t)n >= cap)
    return -1;
  o = (size_t)n;
  for (k = 0; k < sp->ngroups; k++) {
    n = snprintf(buf + o, cap - o, "%s%d-%d:%d", k ? "," : "", sp->hi[k], sp->lo[k], sp->nb[k]);
    if (n < 0 || (size_t)n >= cap - o)
      return -1;
    o += (size_t)n;
  }
  if (sp->no_read_ahead) {
    n = snprintf(buf + o, cap - o, " ra0");
    if (n < 0 || (size_t)n >= cap - o)
      return -1;
    o += (size_t)n;
  }
  if (sp->inplace) {
    n = snprintf(buf + o, cap - o, " ip1");
    if (n < 0 || (size_t)n >= cap - o)
      return -1;
    o += (size_t)n;
  }
  if (sp->band) {
    n = snprintf(buf + o, cap - o, " bd1");
    if (n < 0 || (size_t)n >= cap - o)
      return -1;
  }
  return 0;
}

static int kb_cpu_spec_equal(const kb_cpu_plan_spec_t *a, const kb_cpu_plan_spec_t *b)
{
  int k;
  if (a->strategy != b->strategy || a->split_rows != b->split_rows || a->nthreads != b->nthreads ||
      a->ngroups != b->ngroups || a->no_read_ahead != b->no_read_ahead || a->inplace != b->inplace ||
      a->band != b->band)
    return 0;
  for (k = 0; k < a->ngroups; k++)
    if (a->hi[k] != b->hi[k] || a->lo[k] != b->lo[k] || a->nb[k] != b->nb[k])
      return 0;
  return 1;
}

/* ---------------------------------------------------------------- cache */

static kb_cpu_entry_t *kb_cpu_find(struct kronblasContext *h, const char *key)
{
  kb_cpu_entry_t *e;
  for (e = h->backend_state; e != NULL; e = e->next)
    if (!strcmp(e->key, key))
      return e;
  return NULL;
}

/* Keeps spec for key (replacing an older plan of the key); bounded, the
 * oldest go first.  0, or -1 on no memory (the plan is then not kept). */
static int kb_cpu_remember(struct kronblasContext *h, const char *key, const kb_cpu_plan_spec_t *sp)
{
  kb_cpu_entry_t *e = kb_cpu_find(h, key);
  int count = 0;
  if (e != NULL) {
    e->spec = *sp;
    return 0;
  }
  e = calloc(1, sizeof *e);
  if (e == NULL)
    return -1;
  e->key = malloc(strlen(key) + 1);
  if (e->key == NULL) {
    free(e);
    return -1;
  }
  strcpy(e->key, key);
  e->spec = *sp;
  e->next = h->backend_state;
  h->backend_state = e;
  for (; e != NULL; e = e->next)
    if (++count == KB_CPU_TUNE_MAX_PLANS) {
      kb_cpu_entry_t *old = e->next;
      e->next = NULL;
      while (old != NULL) {
        kb_cpu_entry_t *nx = old->next;
        free(old->key);
        free(old);
        old = nx;
      }
      break;
    }
  return 0;
}

void kb_cpu_tune_free(struct kronblasContext *h)
{
  kb_cpu_entry_t *e = h->backend_state;
  while (e != NULL) {
    kb_cpu_entry_t *nx = e->next;
    free(e->key);
    free(e);
    e = nx;
  }
  h->backend_state = NULL;
}

int kb_cpu_test_plan_count(struct kronblasContext *h)
{
  const kb_cpu_entry_t *e;
  int n = 0;
  for (e = h->backend_state; e != NULL; e = e->next)
    n++;
  return n;
}

long kb_cpu_test_timed_count(void)
{
  return kb_cpu_timed;
}

void kb_cpu_test_tune_slow_first(double seconds)
{
  kb_cpu_slow_first = seconds;
}

long kb_cpu_test_retimed_count(void)
{
  return kb_cpu_retimed;
}

int kb_cpu_cached_plan(struct kronblasContext *h, const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                       int nthreads, kb_cpu_plan_t *pl)
{
  char key[KB_CPU_KEY_MAX];
  const kb_cpu_entry_t *e;
  if (kb_cpu_key(pb, kt, nthreads, key, sizeof key) != 0 || (e = kb_cpu_find(h, key)) == NULL)
    return 0;
  return kb_cpu_plan_explicit(pb, kt, &e->spec, pl) == KRONBLAS_STATUS_SUCCESS;
}

/* --------------------------------------------------------------- timing */

static size_t kb_cpu_plan_bytes(const kb_cpu_plan_t *pl)
{
  return pl->total + pl->ovl_bytes + 64;
}

/* Least time of reps runs of pl. */
static double kb_cpu_time_plan(const kb_cpu_plan_t *pl, const kb_problem_t *pb, char *ws, void *Yt,
                               int64_t ts_m, int64_t ts_l, int reps)
{
  double best = 1e300;
  int r;
  for (r = 0; r < reps; r++) {
    double t0 = kb_cpu_now(), t;
    kb_cpu_run_plan(pl, pb, ws, pb->X, pb->F, Yt, ts_m, ts_l);
    t = kb_cpu_now() - t0;
    if (t < best)
      best = t;
  }
  kb_cpu_timed++;
  return best;
}

/* The candidates: the model's plan first, then its neighbours, without
 * repeats and within a user workspace.  Returns how many. */
static int kb_cpu_candidates(struct kronblasContext *h, const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                             int nthreads, kb_cpu_plan_t *cand)
{
  kb_cpu_plan_opts_t o[3 * KB_CPU_TUNE_MAX_CANDS];
  kb_cpu_plan_spec_t sp[KB_CPU_TUNE_MAX_CANDS], s;
  int no = 0, nc = 0, i, j, f, maxg = 1, k;
  const kb_cpu_plan_t *m;

  kb_cpu_plan_opts_default(&o[no++], nthreads);
  if (kb_cpu_plan_with(pb, kt, &o[0], &cand[0]) != KRONBLAS_STATUS_SUCCESS)
    return 0;
  m = &cand[0];
  for (k = 0; k < m->ngroups; k++)
    if (m->g[k].hi - m->g[k].lo + 1 > maxg)
      maxg = m->g[k].hi - m->g[k].lo + 1;
  /* banded or not (whole rows through every digit in place, no
   * transposes): the model prices the banded steps from a few shapes */
  if (kb_cpu_band_ok(pb, kt)) {
    kb_cpu_plan_opts_default(&o[no], nthreads);
    o[no++].band = !m->band;
  }
  /* the other thread split; sharing each row's tiles costs a team barrier
   * per group and row, and with many rows those barriers dominate (under
   * load each one may wait a time slice: 8 s measured for m = 1024, 8^5,
   * the whole timing budget and more), so only for few rows */
  if (m->strategy == KB_CPU_PER_ROW && nthreads > 1 && (!m->split_rows || pb->m <= 8 * nthreads)) {
    kb_cpu_plan_opts_default(&o[no], nthreads);
    o[no].strategy = KB_CPU_PER_ROW;
    o[no++].split_rows = !m->split_rows;
  }
  /* without the read-ahead of the next row: it competes for L2 with the
   * tiles, which the model does not price */
  if (m->pf_next_row) {
    kb_cpu_plan_opts_default(&o[no], nthreads);
    o[no].strategy = m->strategy;
    o[no++].no_read_ahead = 1;
  }
  /* the other layout of digits (in place, or rotating with transposes):
   * the model prices transposes and digit0 from rough constants */
  if (m->strategy == KB_CPU_PER_ROW && kb_cpu_inplace_ok(pb, kt)) {
    kb_cpu_plan_opts_default(&o[no], nthreads);
    o[no].strategy = KB_CPU_PER_ROW;
    o[no++].inplace = !m->inplace;
  }
  /* shallower fusion */
  for (f = maxg - 1; f >= 1 && f >= maxg - 3; f--) {
    kb_cpu_plan_opts_default(&o[no], nthreads);
    o[no].strategy = m->strategy;
    o[no++].max_fuse = f;
  }
  /* other tile widths */
  if (m->strategy == KB_CPU_PER_ROW) {
    for (f = 1; f <= 4; f *= 2)
      if (f * kt->vl != m->g[0].nb) {
        kb_cpu_plan_opts_default(&o[no], nthreads);
        o[no].strategy = KB_CPU_PER_ROW;
        o[no++].nvt = f;
      }
  } else {
    for (f = 0; f < 2; f++) {
      int nb = f ? m->g[0].nb * 2 : m->g[0].nb / 2;
      if (nb < kt->vl || nb > 64 * kt->vl)
        continue;
      kb_cpu_plan_opts_default(&o[no], nthreads);
      o[no].strategy = KB_CPU_PASSES;
      o[no++].nb_rows = nb;
    }
  }
  /* one thread: small problems lose more to the team than they gain */
  if (nthreads > 1) {
    kb_cpu_plan_opts_default(&o[no], 1);
    o[no++].strategy = m->strategy;
  }
  /* the other strategy, last: where the model is wrong it tends to be
   * wrong by much (column-strided tiles), and the budget may stop first */
  kb_cpu_plan_opts_default(&o[no], nthreads);
  o[no++].strategy = m->strategy == KB_CPU_PER_ROW ? KB_CPU_PASSES : KB_CPU_PER_ROW;
  for (i = 0; i < no && nc < KB_CPU_TUNE_MAX_CANDS; i++) {
    if (i > 0 && kb_cpu_plan_with(pb, kt, &o[i], &cand[nc]) != KRONBLAS_STATUS_SUCCESS)
      continue;
    if (h->user_ws != NULL && kb_cpu_plan_bytes(&cand[nc]) > h->user_ws_bytes && i > 0)
      continue;
    kb_cpu_plan_spec_of(&cand[nc], &s);
    for (j = 0; j < nc; j++)
      if (kb_cpu_spec_equal(&sp[j], &s))
        break;
    if (j < nc)
      continue;
    sp[nc++] = s;
  }
  return nc;
}

kronblasStatus_t kb_cpu_tuned_plan(struct kronblasContext *h, const kb_problem_t *pb,
                                   const kb_cpu_opt_t *kt, int nthreads, kb_cpu_plan_t *pl)
{
  char key[KB_CPU_KEY_MAX];
  kb_cpu_plan_t *cand = NULL;
  kb_cpu_plan_spec_t sp;
  kb_problem_t s;
  const size_t esz = kb_type_size(pb->type);
  size_t wsb = 0;
  void *wsraw = NULL, *Yt = NULL;
  char *ws;
  double t0, t, tbest = 1e300, tmodel = 1e300, twarm;
  int nc, i, best = 0, reps;
  kronblasStatus_t st = KRONBLAS_STATUS_SUCCESS;

  if (kb_cpu_key(pb, kt, nthreads, key, sizeof key) != 0)
    return kb_cpu_plan(pb, kt, nthreads, pl);
  if (kb_cpu_cached_plan(h, pb, kt, nthreads, pl))
    return KRONBLAS_STATUS_SUCCESS;
  cand = malloc(KB_CPU_TUNE_MAX_CANDS * sizeof *cand);
  if (cand == NULL)
    return kb_cpu_plan(pb, kt, nthreads, pl);
  nc = kb_cpu_candidates(h, pb, kt, nthreads, cand);
  if (nc == 0) {
    st = kb_cpu_plan(pb, kt, nthreads, pl);
    goto out;
  }
  for (i = 0; i < nc; i++)
    if (cand[i].total + 64 > wsb)
      wsb = cand[i].total + 64;
  /* Timing on copies: private workspace and result; X and the factors are
   * only read.  Without the memory, the model's plan (not remembered). */
  wsraw = malloc(wsb);
  Yt = malloc((size_t)pb->m * (size_t)pb->L * esz + 64);
  if (wsraw == NULL || Yt == NULL) {
    kb_log(KB_LOG_WARN, "cpu tune: no memory to time candidates in; planning by the model");
    *pl = cand[0];
    goto out;
  }
  ws = (char *)(((uintptr_t)wsraw + 63) & ~(uintptr_t)63);
  /* every page touched before timing: a candidate with larger buffers than
   * the first must not pay their page faults (one run each for large
   * problems) */
  memset(wsraw, 0, wsb);
  memset(Yt, 0, (size_t)pb->m * (size_t)pb->L * esz);
  s = *pb;
  s.batch = 1;
  s.beta_is_zero = 1;
  {
    const int64_t ts_m = pb->y_contig_l ? pb->L : 1, ts_l = pb->y_contig_l ? 1 : pb->m;
    t0 = kb_cpu_now();
    /* the first run tells how many repetitions and candidates fit the
     * budget; with one repetition it is the model's time */
    twarm = kb_cpu_time_plan(&cand[0], &s, ws, Yt, ts_m, ts_l, 1) + kb_cpu_slow_first;
    kb_cpu_slow_first = 0;
    reps = twarm < 2e-3 ? 5 : twarm < 20e-3 ? 3 : 1;
    for (i = 0; i < nc; i++) {
      /* the model's cost ratio scales the estimate; one it says is far
       * slower is not worth a run */
      const double ratio = cand[0].cost > 0 ? cand[i].cost / cand[0].cost : 1;
      double est = (tbest < 1e300 ? tbest : twarm) * reps * (ratio > 1 ? ratio : 1);
      if (i > 0 && (ratio > 3 || kb_cpu_now() - t0 + est > KB_CPU_TUNE_BUDGET))
        continue;
      t = i == 0 && reps == 1 ? twarm : kb_cpu_time_plan(&cand[i], &s, ws, Yt, ts_m, ts_l, reps);
      kb_cpu_plan_spec_of(&cand[i], &sp);
      if (kb_env()->log_level >= KB_LOG_INFO) {
        char plan[KB_CPU_KEY_MAX];
        if (kb_cpu_spec_format(&sp, plan, sizeof plan) == 0)
          kb_log(KB_LOG_INFO, "cpu tune: %s: %s: %.4f ms (model %.3g)", key, plan, t * 1e3,
                 cand[i].cost * (double)pb->m);
      }
      if (i == 0)
        tmodel = t;
      if (t < tbest) {
        tbest = t;
        best = i;
      }
    }
    /* The model's plan runs first, where a transient slowdown (the other
     * thread's vCPU waking from a long sleep, a BLAS' threads still
     * spinning after the caller's last GEMM) lands: a winner other than
     * it is timed again against it, the least time of each kept (helper
     * cpu30, Emerald Rapids guest: 2 of 3 tuner runs of double
     * 1024_3x3^7 timed the model's two-thread plan at 8-16 ms where it
     * takes 2.5, and kept a one-thread plan of 2.8-4.8). */
    if (best != 0 && kb_cpu_now() - t0 + reps * (tbest + tmodel) <= KB_CPU_TUNE_BUDGET) {
      t = kb_cpu_time_plan(&cand[0], &s, ws, Yt, ts_m, ts_l, reps);
      if (t < tmodel)
        tmodel = t;
      t = kb_cpu_time_plan(&cand[best], &s, ws, Yt, ts_m, ts_l, reps);
      if (t < tbest)
        tbest = t;
      kb_cpu_retimed++;
      kb_log(KB_LOG_INFO, "cpu tune: %s: again, the model's plan %.4f ms, candidate %d %.4f ms", key,
             tmodel * 1e3, best, tbest * 1e3);
      if (tmodel <= tbest)
        best = 0;
    }
  }
  *pl = cand[best];
  kb_cpu_plan_spec_of(pl, &sp);
  if (kb_cpu_remember(h, key, &sp) == 0)
    kb_wisdom_plan_added(h);
out:
  free(wsraw);
  free(Yt);
  free(cand);
  return st;
}

/* --------------------------------------------------------------- wisdom */

/* CPU brand string: CPUID where there is one, else /proc/cpuinfo. */
static void kb_cpu_brand(char *buf, size_t cap)
{
  size_t n = 0, i;
  buf[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
  {
    unsigned int r[12], a, b, c, d;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000004u) {
      for (i = 0; i < 3; i++)
        __get_cpuid(0x80000002u + (unsigned)i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3]);
      n = sizeof r < cap - 1 ? sizeof r : cap - 1;
      memcpy(buf, r, n);
      buf[n] = '\0';
    }
  }
#endif
  if (buf[0] == '\0') {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
      char *c = strchr(line, ':');
      if (c != NULL && (!strncmp(line, "model name", 10) || !strncmp(line, "Processor", 9) ||
                        !strncmp(line, "cpu model", 9))) {
        snprintf(buf, cap, "%s", c + 1);
        break;
      }
    }
    if (f != NULL)
      fclose(f);
  }
  /* one printable line, blanks squeezed */
  for (i = 0, n = 0; buf[i] != '\0'; i++) {
    char ch = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : ' ';
    if (ch == ' ' && (n == 0 || buf[n - 1] == ' '))
      continue;
    buf[n++] = ch;
  }
  while (n > 0 && buf[n - 1] == ' ')
    n--;
  buf[n] = '\0';
  if (n == 0)
    snprintf(buf, cap, "unknown");
}

kronblasStatus_t kb_cpu_wisdom_ident(struct kronblasContext *h, char *buf, size_t size)
{
  char brand[128];
  const kb_cpu_opt_t *kt = kb_cpu_kernels_for(KRONBLAS_R_32F);
  int n;
  if (buf == NULL || size == 0)
    return KRONBLAS_STATUS_INVALID_VALUE;
  kb_cpu_brand(brand, sizeof brand);
  n = snprintf(buf, size, "cpu_model %s\nisa %s\nthreads %d\n", brand,
               kt != NULL ? kt->name : "ref", kb_cpu_handle_threads(h));
  if (n < 0 || (size_t)n >= size)
    return KRONBLAS_STATUS_INVALID_VALUE;
  return KRONBLAS_STATUS_SUCCESS;
}

void kb_cpu_wisdom_each(struct kronblasContext *h,
                        void (*put)(void *ctx, const char *key, const char *plan), void *ctx)
{
  const kb_cpu_entry_t *e;
  char plan[KB_CPU_KEY_MAX];
  for (e = h->backend_state; e != NULL; e = e->next)
    if (kb_cpu_spec_format(&e->spec, plan, sizeof plan) == 0)
      put(ctx, e->key, plan);
}

/* A decimal in [lo, hi] at *s, no sign, no leading zeros; advances *s. */
static int kb_cpu_num(const char **s, long long lo, long long hi, long long *v)
{
  const char *c = *s;
  long long x = 0;
  if (*c < '0' || *c > '9' || (c[0] == '0' && c[1] >= '0' && c[1] <= '9'))
    return -1;
  for (; *c >= '0' && *c <= '9'; c++) {
    x = x * 10 + (*c - '0');
    if (x > hi)
      return -1;
  }
  if (x < lo)
    return -1;
  *v = x;
  *s = c;
  return 0;
}

static int kb_cpu_lit(const char **s, const char *lit)
{
  size_t n = strlen(lit);
  if (strncmp(*s, lit, n))
    return -1;
  *s += n;
  return 0;
}

/* Parses a key into pb (p and q into the arrays given); -1 if malformed. */
static int kb_cpu_key_parse(const char *key, kb_problem_t *pb, int64_t *p, int64_t *q, char *isa,
                            size_t isacap, int *threads)
{
  const char *c = key;
  long long v, K = 1, L = 1, m;
  int n = 0, t;
  size_t i;
  memset(pb, 0, sizeof *pb);
  for (t = 0; t < 4 && *c != kb_cpu_type_chars[t]; t++)
    ;
  if (t == 4 || c[1] != ' ')
    return -1;
  c += 2;
  for (i = 0; c[i] >= 'a' && c[i] <= 'z' && i + 1 < isacap; i++)
    isa[i] = c[i];
  for (; c[i] >= '0' && c[i] <= '9' && i + 1 < isacap; i++)
    isa[i] = c[i];
  isa[i] = '\0';
  if (i == 0 || c[i] != ' ')
    return -1;
  c += i + 1;
  if (kb_cpu_lit(&c, "x") || (*c != 'k' && *c != 'm'))
    return -1;
  pb->x_contig_k = *c++ == 'k';
  if (kb_cpu_lit(&c, " y") || (*c != 'l' && *c != 'm'))
    return -1;
  pb->y_contig_l = *c++ == 'l';
  if (kb_cpu_lit(&c, " m") || kb_cpu_num(&c, 1, (long long)1 << 40, &m) ||
      kb_cpu_lit(&c, " t") || kb_cpu_num(&c, 1, KB_CPU_SPEC_MAX_THREADS, &v) || kb_cpu_lit(&c, " "))
    return -1;
  *threads = (int)v;
  for (;;) {
    long long a, b;
    if (n == KB_CPU_PLAN_MAXF || kb_cpu_num(&c, 1, (long long)1 << 30, &a) || kb_cpu_lit(&c, "x") ||
        kb_cpu_num(&c, 1, (long long)1 << 30, &b))
      return -1;
    if (__builtin_mul_overflow(K, a, &K) || __builtin_mul_overflow(L, b, &L) || K > ((long long)1 << 31) ||
        L > ((long long)1 << 31))
      return -1;
    p[n] = a;
    q[n] = b;
    n++;
    if (*c == '\0')
      break;
    if (kb_cpu_lit(&c, ","))
      return -1;
  }
  pb->type = (kronblasDataType_t)t;
  pb->m = m;
  pb->nfactors = n;
  pb->p = p;
  pb->q = q;
  pb->K = K;
  pb->L = L;
  pb->batch = 1;
  /* leading dimensions as if packed, at least 2 so that the direction
   * that is not contiguous never looks contiguous */
  pb->xs_m = pb->x_contig_k ? (K > 1 ? K : 2) : 1;
  pb->xs_k = pb->x_contig_k ? 1 : (m > 1 ? m : 2);
  pb->ys_m = pb->y_contig_l ? (L > 1 ? L : 2) : 1;
  pb->ys_l = pb->y_contig_l ? 1 : (m > 1 ? m : 2);
  return 0;
}

static int kb_cpu_spec_parse(const char *plan, kb_cpu_plan_spec_t *sp)
{
  const char *c = plan;
  long long v, hi, lo, nb;
  memset(sp, 0, sizeof *sp);
  if (!kb_cpu_lit(&c, "rows "))
    sp->strategy = KB_CPU_PER_ROW;
  else if (!kb_cpu_lit(&c, "passes "))
    sp->strategy = KB_CPU_PASSES;
  else
    return -1;
  if (kb_cpu_lit(&c, "split") || kb_cpu_num(&c, 0, 1, &v))
    return -1;
  sp->split_rows = (int)v;
  if (kb_cpu_lit(&c, " t") || kb_cpu_num(&c, 1, KB_CPU_SPEC_MAX_THREADS, &v) || kb_cpu_lit(&c, " "))
    return -1;
  sp->nthreads = (int)v;
  for (;;) {
    if (sp->ngroups == KB_CPU_PLAN_MAXF || kb_cpu_num(&c, 0, KB_CPU_PLAN_MAXF - 1, &hi) ||
        kb_cpu_lit(&c, "-") || kb_cpu_num(&c, 0, KB_CPU_PLAN_MAXF - 1, &lo) || kb_cpu_lit(&c, ":") ||
        kb_cpu_num(&c, 1, 1 << 16, &nb))
      return -1;
    sp->hi[sp->ngroups] = (int)hi;
    sp->lo[sp->ngroups] = (int)lo;
    sp->nb[sp->ngroups] = (int)nb;
    sp->ngroups++;
    if (*c == '\0')
      return 0;
    if (*c == ' ') {
      /* suffixes, each at most once, in this order */
      if (!kb_cpu_lit(&c, " ra0"))
        sp->no_read_ahead = 1;
      if (!kb_cpu_lit(&c, " ip1"))
        sp->inplace = 1;
      if (!kb_cpu_lit(&c, " bd1"))
        sp->band = 1;
      return *c == '\0' ? 0 : -1;
    }
    if (kb_cpu_lit(&c, ","))
      return -1;
  }
}

kronblasStatus_t kb_cpu_wisdom_add(struct kronblasContext *h, const char *key, const char *plan)
{
  int64_t p[KB_CPU_PLAN_MAXF], q[KB_CPU_PLAN_MAXF];
  char isa[32], again[KB_CPU_KEY_MAX];
  kb_problem_t pb;
  kb_cpu_plan_spec_t sp;
  kb_cpu_plan_t pl;
  const kb_cpu_opt_t *kt;
  int threads;

  if (key == NULL || plan == NULL || strlen(key) >= KB_CPU_KEY_MAX || strlen(plan) >= KB_CPU_KEY_MAX ||
      kb_cpu_key_parse(key, &pb, p, q, isa, sizeof isa, &threads) != 0 ||
      kb_cpu_spec_parse(plan, &sp) != 0) {
    kb_log(KB_LOG_WARN, "cpu wisdom: malformed entry \"%.80s\" \"%.80s\"", key ? key : "", plan ? plan : "");
    return KRONBLAS_STATUS_INVALID_VALUE;
  }
  /* kernels of another ISA here, or more threads than the key's */
  kt = kb_cpu_kernels_for(pb.type);
  if (kt == NULL || strcmp(kt->name, isa) || sp.nthreads > threads) {
    kb_log(KB_LOG_WARN, "cpu wisdom: plan for %s kernels not usable here", isa);
    return KRONBLAS_STATUS_INVALID_VALUE;
  }
  /* the canonical spelling only, so that the entry can ever match */
  if (kb_cpu_key(&pb, kt, threads, again, sizeof again) != 0 || strcmp(again, key) ||
      kb_cpu_spec_format(&sp, again, sizeof again) != 0 || strcmp(again, plan) ||
      kb_cpu_plan_explicit(&pb, kt, &sp, &pl) != KRONBLAS_STATUS_SUCCESS) {
    kb_log(KB_LOG_WARN, "cpu wisdom: plan \"%.80s\" does not fit key \"%.80s\"", plan, key);
    return KRONBLAS_STATUS_INVALID_VALUE;
  }
  if (kb_cpu_remember(h, key, &sp) != 0)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  return KRONBLAS_STATUS_SUCCESS;
}
