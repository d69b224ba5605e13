/* cpu_plan.c - the fast CPU path's planner: ISA choice (once per process),
 * fusion groups, tile widths and the workspace layout.
 *
 * The model: a group of consecutive factors is applied to tiles of nb lanes
 * held in a per-thread buffer; the buffer must stay in L2 (a quarter of it
 * each for the two tile buffers) for the fused factors to run at FMA speed.
 * Lanes are rows when X runs along m (the tile loads rows of X directly and
 * each group is one pass over memory), and slices when X runs along K
 * (every row is carried through all groups while it sits in L2, so the
 * whole chain costs one pass; each group transposes its input tile once).
 * Between the choices the planner compares a cost in vector operations:
 * FMAs divided by the fraction of lanes that carry data, transposes, scalar
 * edges, and a memory pass per group boundary that leaves the cache. */
#include "cpu_plan.h"

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

/* ----------------------------------------------------------------- ISA */

static const kb_cpu_opt_t *const *kb_cpu_isa_tab;
static pthread_once_t kb_cpu_isa_once = PTHREAD_ONCE_INIT;

/* Bumped by every test hook that changes what the planner chooses, so that
 * a plan the backend keeps for a key (cpu_backend.c) is not reused across
 * such a change. */
static unsigned kb_cpu_plan_gen_v;

unsigned kb_cpu_plan_gen(void)
{
  return __atomic_load_n(&kb_cpu_plan_gen_v, __ATOMIC_RELAXED);
}

static void kb_cpu_plan_changed(void)
{
  __atomic_fetch_add(&kb_cpu_plan_gen_v, 1u, __ATOMIC_RELAXED);
}

/* Test hooks (kb_cpu_test_*): read without locks, set only by tests before
 * they call the library. */
static int kb_cpu_test_isa_set;
static const kb_cpu_opt_t *const *kb_cpu_test_isa_tab;
static int kb_cpu_test_max_fuse;
static int kb_cpu_test_strategy = -1;
static int kb_cpu_test_inplace = -1;
static int kb_cpu_test_band = -1;
static int kb_cpu_test_band_dense = -1;
static int kb_cpu_test_band_seg = -1;
static int kb_cpu_test_band_col = -1;
static int kb_cpu_test_band_colpad = -1;
static int kb_cpu_test_band_wide = -1;
static int kb_cpu_test_band_tdense = -1;

static int kb_cpu_has(const char *isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (!strcmp(isa, "avx512"))
    return kb_cpu_opt_avx512[0] != NULL && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("fma");
  if (!strcmp(isa, "avx2"))
    return kb_cpu_opt_avx2[0] != NULL && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("fma");
#else
  (void)isa;
#endif
  return 0;
}

/* Cache sizes, read once with the ISA (kb_cpu_isa_pick); unknown or
 * implausible values give typical ones. */
static size_t kb_cpu_l1, kb_cpu_l2, kb_cpu_llc;
static void kb_cpu_caches(void);

/* Rates of the cost model that differ between CPUs, chosen once with the
 * ISA from CPUID (kb_cpu_rates_pick).  Everything else in the model is
 * measured on the Ice Lake of issue 4 and shared. */
typedef struct {
  const char *name;
  /* PER_ROW: a thread's two row buffers beyond twice L2 (but within half
   * the LLC with every thread's) cost KB_COST_PASS_L2X2 a vector, as
   * buffers near L2, instead of KB_COST_PASS */
  int rowbuf_l3_near;
  /* digits in place: digit0's later factors of p up to this over chunks
   * in L2 at the L1 rate also where X is not read from DRAM (else only
   * there); 0: none */
  int d0_l2_as_l1_maxp;
  /* the LLC the operand rules assume where smaller than the one the CPU
   * reports (kb_cpu_llc_operands: an operand -- X, Y, PASSES' buffer --
   * beyond half of it is not cached between calls); 0: the reported one */
  size_t llc_operands;
  /* digits in place, double: where X and Y of a call together exceed
   * d0_mem_bytes (they come from DRAM), digit0's first factor (the one
   * that reads X) runs at d0_mem_eff of KB_EFF_D0 if it is larger than
   * half the L1 budget (a 64 x 64 factor, 32 KiB); d0_mem_eff 0: no such
   * rule (kb_cpu_d0_mem_eff) */
  size_t d0_mem_bytes;
  double d0_mem_eff;
  /* double: d0_l2_as_l1_maxp's bound where nonzero (kb_cpu_d0_l2_as_l1) */
  int d0_l2_as_l1_maxp_d;
} kb_cpu_rates_t;
/* Intel Ice Lake (issue 4's machine, sessions 1-11) and any CPU not below */
static const kb_cpu_rates_t kb_cpu_rates_default = { "default", 0, 0, 0, 0, 0, 0 };
/* AMD Zen 5 (family 26): its L3 takes L2's victims, and a row buffer
 * written beyond L2 comes back at L3 bandwidth.  Measured, double
 * 16_8x8^6, one thread, per row (TSC cycles; a model unit is ~1/3 of one
 * here): the digits-in-place plan's first group (digit0 of factors 5..1
 * over chunks of a row of X from DRAM, writing a 2 MiB row buffer, 4 MiB
 * for the two) 755 kcycles, where its FMAs and micro-tiles alone are
 * priced 710 (2.13M units) and KB_COST_PASS added 764 more (2.29M); the
 * later group reads the buffer in strided runs, priced by KB_COST_RUN_L3
 * on its own.  KB_COST_PASS_L2X2 prices the pass at 20 units a vector
 * (tiles in L2): 0.66M. */
/* And L2 feeds the two 512-bit loads a cycle well enough that digit0's
 * later factors over chunks in L2 run at the L1 rate where the row of X
 * is read ahead too (Ice Lake measured those one-group plans slower,
 * see kb_cpu_group_cost).  Interleaved, two threads, forced plans: float
 * 1024_16x16^4 in one group 3-0 23.5-25.5 ms against 26.8-27.8 for the
 * rotating 3-2,1-0; float 256_128x128^2 1-0 5.1-5.3 against 5.4-5.8 for
 * 1-1,0-0; double 256_128x128^2 (10.1-10.4 against 10.2-11.8), 1024_32x32^3
 * 2-0 (30.1-31.2 against 30.9-31.2) and 1024_8x8^5 4-0 (20.2-25.7 against
 * 22.2-28.0, noisy) no slower. */
/* (d0_l2_as_l1_maxp: every p) */
static const kb_cpu_rates_t kb_cpu_rates_zen5 = { "zen5", 1, 1 << 20, 0, 0, 0, 0 };
/* AMD Zen 4 (family 25, which Zen 3 shares; an EPYC guest seen since
 * session 32, model 17: 32 KiB L1d, 1 MiB L2, 32 MiB L3 a core complex,
 * AVX-512 in 256-bit halves; its L3 takes L2's victims too): Zen 5's
 * rates, found by CPUID as "default" (Ice Lake's) until session 33, except
 * digit0's later factors at the L1 rate for double only up to p = 32.
 * Measured there, two threads, three interleaved pairs each of
 * --rounds 3, ms, Ice Lake's rates against Zen 5's: float 1024_16x16^4
 * 58.3/46.9, 57.6/47.3, 54.9/47.8 (3-2,1-0 -> 3-0 in place); double
 * 1024_8x8^5 43.1/30.7, 37.2/29.7, 38.7/31.6 (banded -> 4-0 in place);
 * double 16_8x8^6 6.21/5.24, 6.14/4.57, 6.26/4.64 (banded -> 5-1,0-0 in
 * place); float 256_128x128^2 10.6/10.2, 10.9/10.7, 10.9/10.6 (1-1,0-0 ->
 * 1-0); double 1024_32x32^3 64.0/63.0, 64.3/63.4, 62.8/62.3; but double
 * 1024_64x64^2 10.9/11.2, 10.8/10.9, 11.1/11.9 and 256_128x128^2
 * 21.1/21.7, 21.4/21.9, 21.2/21.8 (1-1,0-0 -> 1-0): those keep two
 * groups. */
static const kb_cpu_rates_t kb_cpu_rates_zen4 = { "zen4", 1, 1 << 20, 0, 0, 0, 32 };
/* Intel Emerald Rapids (family 6 model 207; session 16: a KVM guest of 2
 * vCPUs, 2 MiB L2, told of the socket's whole 260 MiB L3, which it shares
 * with other tenants).  One core reads a buffer at L3 speed up to 40-48
 * MiB and at DRAM speed from 64 MiB, and the operands of a call do not
 * stay cached until the next one long before that.  With the planner's
 * LLC forced lower (scratch build, two threads, interleaved pairs,
 * medians): at 48 MiB float 16_16x16^5 26.2 -> 13.1 ms (X counted as from
 * DRAM: digits in place, 4-1 then 0-0), 16_32x32^4 26.8 -> 17.0,
 * 1024_8x8^5 22.3 -> 15.0 (same plan, Y written around the cache), double
 * 16_32x32^4 58.7 -> 34.5, 16_8x8^6 7.5 -> 5.6; at 32 MiB double
 * 1024_3x3^7 2.9 -> 2.3 (Y of 17 MiB streamed); at 24 double 1_8x8^7 9.1
 * -> 3.9 (X of 16 MiB from DRAM: in place); at 16 float 1024_3x3^7 1.12
 * -> 1.08 (8.5 MiB); at 12 float 1_8x8^7 3.2 -> 2.5 (8 MiB).  So
 * operands count as cached only up to 6 MiB, half of 12 MiB (8 to 16 MiB
 * plan those shapes alike); the float shapes of 16 MiB, whose Y is now
 * streamed, are 0.95-1.03x.  The row buffers' rule (PER_ROW,
 * rowbuf_near_l2) keeps the whole L3: they are rewritten all the time and
 * stay (double 16_8x8^6, 8 MiB of them for two threads: digits in place
 * 5.7 ms, the banded plan that counting them beyond a 12 MiB L3 gives
 * 6.4).
 * Digit0's later factors over chunks in L2 run at the L1 rate here too,
 * for p <= 16 (as on Zen 5; at 16 MiB): float 1024_16x16^4 in one group
 * in place, 3-0, 41.5 ms against 45.3 for 3-2,1-0; double 1024_8x8^5 4-0
 * in place, 36.2 against 41.7 banded; but double 1024_32x32^3 in one
 * group 2-0 49.6 against 47.3 for 2-2,1-0, and 256_128x128^2 (1-0) no
 * faster, float 1.01x, double 1.00x.
 * This rate set against Ice Lake's (HEAD 84bcacf), two threads, 8
 * interleaved pairs, medians (a noisy host): float 1024_8x8^5 25.5 ->
 * 16.9 ms, 1024_16x16^4 55.6 -> 46.2, 16_16x16^5 29.3 -> 15.8, 16_32x32^4
 * 30.0 -> 18.8, 1_8x8^7 3.57 -> 3.00; double 1024_8x8^5 45.9 -> 40.2,
 * 16_8x8^6 7.93 -> 5.67, 16_32x32^4 65.8 -> 36.9, 16_64x64^3 13.3 -> 12.3,
 * 1024_3x3^7 2.86 -> 2.29, 1_8x8^7 9.39 -> 3.60; no issue-4 shape slower
 * beyond noise (float 1024_64x64^2 1.03x, 4 of 8 pairs). */
/* d0_mem_*: digit0's first factor loses more to X read from DRAM than the
 * rotating plan's transposing groups do, where a double factor is larger
 * than half the L1 budget (18 KiB here; a 64 x 64 one is 32 KiB, and fills
 * most of L1 beside the prefetched row).  Double 1024_64x64^2 (X and Y
 * 32 MiB each, 64 MiB together, beyond the 40-48 MiB one core keeps in
 * L3), forced plans, one thread pinned, TSC kcycles per row (medians of 3;
 * a model unit ~0.37 of one at m = 256): the model's 1-0 in place 41.2,
 * 1-1,0-0 17.3 + 21.4, digit0 alone then 0-0 in place 18.5 + 20.8; at
 * m = 256 (8 MiB each, in L3) 33.3, 16.1 + 19.2, 15.6 + 19.1, all within
 * 4% of their prices (89000, 97070, 92974 units).  From DRAM the one-group
 * plan loses 7.9 where 1-1,0-0 loses 3.4: 4.5 more, 0.28 of its first
 * factor's price (43115), so 0.78 of KB_EFF_D0 (digit0 alone loses 2.9,
 * the transposing first group 1.2; how the one group's loss splits between
 * its two factors is not seen from outside it, and charging the later one
 * too -- the L1 rule for p >= 64 -- moved 16_64x64^3 to 2-2,1-1,0-0, 1.03x
 * slower, 2 of 8 pairs faster).  Two threads, interleaved pairs, medians,
 * 1-1,0-0 against 1-0 in place: m = 1024 0.93x (9 of 10 faster), m = 512
 * 1.06x, m = 256 1.08x (OMP_WAIT_POLICY=active; with X + Y of 32 MiB the
 * in-place plan stays faster, hence 48 MiB).  This rule against the rates
 * without it (the model's plans, two threads, 10 pairs each, medians):
 * double 1024_64x64^2 8.48 -> 7.88 ms (9 of 10 faster; one thread 18.39 ->
 * 16.82, 6 of 6), 2048_64x64^2 17.59 -> 16.12 (10 of 10), 256_128x128^2
 * 14.97 -> 14.80 (7 of 10; digit0 alone then 0-0 in place -> 1-1,0-0),
 * 1024_128x128^2 59.9 -> 58.9 (9 of 10); no other issue-4 shape, float or
 * double, moves (16_64x64^3 keeps 2-1,0-0). */
static const kb_cpu_rates_t kb_cpu_rates_emr = { "emr", 0, 16, (size_t)12 << 20, (size_t)48 << 20, 0.78, 0 };
static const kb_cpu_rates_t *kb_cpu_rates = &kb_cpu_rates_default;
static const kb_cpu_rates_t *kb_cpu_rates_detected = &kb_cpu_rates_default;

/* How many bytes an operand may take and stay in the last-level cache
 * between calls: half of it, or less where the CPU's rates say so
 * (kb_cpu_rates_t.llc_operands). */
static size_t kb_cpu_llc_operands(void)
{
  const size_t c = kb_cpu_rates->llc_operands / 2;
  return c > 0 && c < kb_cpu_llc / 2 ? c : kb_cpu_llc / 2;
}

static void kb_cpu_rates_pick(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  unsigned int a, b, c, d, fam;
  if (__get_cpuid(0, &a, &b, &c, &d) && b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u &&
      __get_cpuid(1, &a, &b, &c, &d)) {
    /* "AuthenticAMD"; the family is base + extended where base is 15 */
    fam = (a >> 8) & 0xf;
    if (fam == 0xf)
      fam += (a >> 20) & 0xff;
    if (fam >= 0x1a)
      kb_cpu_rates_detected = &kb_cpu_rates_zen5;
    else if (fam == 0x19)
      kb_cpu_rates_detected = &kb_cpu_rates_zen4;
  } else if (__get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu &&
             __get_cpuid(1, &a, &b, &c, &d)) {
    /* "GenuineIntel"; family 6, the model is base + extended << 4 */
    if (((a >> 8) & 0xf) == 6 && (((a >> 4) & 0xf) | ((a >> 12) & 0xf0)) == 207)
      kb_cpu_rates_detected = &kb_cpu_rates_emr;
  }
#endif
  kb_cpu_rates = kb_cpu_rates_detected;
}

static void kb_cpu_isa_pick(void)
{
  const char *want = kb_env()->cpu_isa;
  const char *why = "CPU";
  const kb_cpu_opt_t *const *tab = kb_cpu_opt_generic;

  kb_cpu_caches();
  kb_cpu_rates_pick();
  if (want != NULL && *want != '\0') {
    why = "KRONBLAS_CPU_ISA";
    if (!strcasecmp(want, "ref") || !strcasecmp(want, "reference")) {
      kb_cpu_isa_tab = NULL;
      kb_log(KB_LOG_INFO, "cpu kernels: ref (KRONBLAS_CPU_ISA)");
      return;
    }
    if (!strcasecmp(want, "avx512") && kb_cpu_has("avx512"))
      tab = kb_cpu_opt_avx512;
    else if ((!strcasecmp(want, "avx512") || !strcasecmp(want, "avx2")) && kb_cpu_has("avx2"))
      tab = kb_cpu_opt_avx2;
    if (strcasecmp(want, tab[0]->name) && strcasecmp(want, "generic") && strcasecmp(want, "c") &&
        strcasecmp(want, "portable"))
      kb_log(KB_LOG_WARN, "KRONBLAS_CPU_ISA=%s is not available here; using %s", want, tab[0]->name);
  } else if (kb_cpu_has("avx512")) {
    tab = kb_cpu_opt_avx512;
  } else if (kb_cpu_has("avx2")) {
    tab = kb_cpu_opt_avx2;
  }
  kb_cpu_isa_tab = tab;
  kb_log(KB_LOG_INFO,
         "cpu kernels: %s (%s); caches the planner assumes: L1d %zu KiB, L2 %zu KiB, LLC %zu KiB (operands cached up to %zu KiB); model rates %s",
         tab[0]->name, why, kb_cpu_l1 >> 10, kb_cpu_l2 >> 10, kb_cpu_llc >> 10, kb_cpu_llc_operands() >> 10,
         kb_cpu_rates->name);
}

const kb_cpu_opt_t *kb_cpu_kernels_for(kronblasDataType_t type)
{
  const kb_cpu_opt_t *const *tab;
  pthread_once(&kb_cpu_isa_once, kb_cpu_isa_pick);
  tab = kb_cpu_test_isa_set ? kb_cpu_test_isa_tab : kb_cpu_isa_tab;
  if (tab == NULL || (int)type < 0 || (int)type > 3)
    return NULL;
  return tab[type];
}

int kb_cpu_test_force_isa(const char *isa)
{
  kb_cpu_plan_changed();
  pthread_once(&kb_cpu_isa_once, kb_cpu_isa_pick);
  if (isa == NULL) {
    kb_cpu_test_isa_set = 0;
    return 0;
  }
  if (!strcmp(isa, "ref"))
    kb_cpu_test_isa_tab = NULL;
  else if (!strcmp(isa, "generic"))
    kb_cpu_test_isa_tab = kb_cpu_opt_generic;
  else if (!strcmp(isa, "avx2") && kb_cpu_has("avx2"))
    kb_cpu_test_isa_tab = kb_cpu_opt_avx2;
  else if (!strcmp(isa, "avx512") && kb_cpu_has("avx512"))
    kb_cpu_test_isa_tab = kb_cpu_opt_avx512;
  else
    return -1;
  kb_cpu_test_isa_set = 1;
  return 0;
}

void kb_cpu_test_force_plan(int max_fuse, int strategy)
{
  kb_cpu_plan_changed();
  kb_cpu_test_max_fuse = max_fuse > 0 ? max_fuse : 0;
  kb_cpu_test_strategy = strategy;
}

void kb_cpu_test_force_inplace(int inplace)
{
  kb_cpu_plan_changed();
  kb_cpu_test_inplace = inplace;
}

void kb_cpu_test_force_band(int band)
{
  kb_cpu_plan_changed();
  kb_cpu_test_band = band;
}

void kb_cpu_test_force_band_dense(int n)
{
  kb_cpu_plan_changed();
  kb_cpu_test_band_dense = n;
}

void kb_cpu_test_force_band_col(int col)
{
  kb_cpu_plan_changed();
  kb_cpu_test_band_col = col;
}

void kb_cpu_test_force_band_colpad(int pad)
{
  kb_cpu_plan_changed();
  kb_cpu_test_band_colpad = pad;
}

void kb_cpu_test_force_band_wide(int wide)
{
  kb_cpu_plan_changed();
  kb_cpu_test_band_wide = wide;
}

void kb_cpu_test_force_band_tdense(int td)
{
  kb_cpu_plan_changed();
  kb_cpu_test_band_tdense = td;
}

void kb_cpu_test_force_band_seg(int seg)
{
  kb_cpu_plan_changed();
  kb_cpu_test_band_seg = seg;
}

/* -------------------------------------------------------------- caches */

static size_t kb_cpu_sysconf(int name, long lo, long hi, size_t dflt)
{
  long c = sysconf(name);
  return c >= lo && c <= hi ? (size_t)c : dflt;
}

/* The size in bytes of the level-3 cache that CPU 0 sees, from Linux's
 * sysfs (one cache instance: on AMD EPYC the L3 of one core complex), or
 * 0 where there is none to read. */
static size_t kb_cpu_sysfs_l3(void)
{
  char path[96], buf[32];
  int i;
  for (i = 0; i < 16; i++) {
    FILE *f;
    long level = 0, v;
    char unit = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if ((f = fopen(path, "r")) == NULL)
      return 0;
    if (fscanf(f, "%ld", &level) != 1)
      level = 0;
    fclose(f);
    if (level != 3)
      continue;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if ((f = fopen(path, "r")) == NULL)
      return 0;
    if (fgets(buf, sizeof buf, f) == NULL || sscanf(buf, "%ld%c", &v, &unit) < 1 || v <= 0)
      v = 0;
    fclose(f);
    return (size_t)v << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
  }
  return 0;
}

static void kb_cpu_caches(void)
{
  size_t l3;
  kb_cpu_l1 = (size_t)32 << 10;
  kb_cpu_l2 = (size_t)1 << 20;
  kb_cpu_llc = (size_t)8 << 20;
#ifdef _SC_LEVEL1_DCACHE_SIZE
  kb_cpu_l1 = kb_cpu_sysconf(_SC_LEVEL1_DCACHE_SIZE, 16L << 10, 4L << 20, kb_cpu_l1);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
  kb_cpu_l2 = kb_cpu_sysconf(_SC_LEVEL2_CACHE_SIZE, 256L << 10, 64L << 20, kb_cpu_l2);
#endif
#ifdef _SC_LEVEL3_CACHE_SIZE
  kb_cpu_llc = kb_cpu_sysconf(_SC_LEVEL3_CACHE_SIZE, 1L << 20, 1L << 30, kb_cpu_llc);
#endif
  (void)kb_cpu_sysconf;
  /* glibc's figure for AMD is the L3 of the whole package (EPYC 9005, 2
   * vCPUs of one core complex: 384 MiB, where this core reaches the 32 MiB
   * of its own complex): the model then took 64-128 MiB operands for
   * cache-resident (no non-temporal stores for Y, X priced as read from
   * L3).  The kernel's sysfs view is per instance, where it exists. */
  l3 = kb_cpu_sysfs_l3();
  if (l3 >= ((size_t)1 << 20) && l3 <= ((size_t)1 << 30) && l3 < kb_cpu_llc)
    kb_cpu_llc = l3;
}

void kb_cpu_test_caches(size_t l1, size_t l2, size_t llc)
{
  kb_cpu_plan_changed();
  pthread_once(&kb_cpu_isa_once, kb_cpu_isa_pick);
  if (l1 == 0 || l2 == 0 || llc == 0) {
    kb_cpu_caches();
    return;
  }
  kb_cpu_l1 = l1;
  kb_cpu_l2 = l2;
  kb_cpu_llc = llc;
}

const char *kb_cpu_test_rates(const char *name)
{
  kb_cpu_plan_changed();
  pthread_once(&kb_cpu_isa_once, kb_cpu_isa_pick);
  if (name == NULL)
    kb_cpu_rates = kb_cpu_rates_detected;
  else if (!strcmp(name, kb_cpu_rates_zen5.name))
    kb_cpu_rates = &kb_cpu_rates_zen5;
  else if (!strcmp(name, kb_cpu_rates_zen4.name))
    kb_cpu_rates = &kb_cpu_rates_zen4;
  else if (!strcmp(name, kb_cpu_rates_emr.name))
    kb_cpu_rates = &kb_cpu_rates_emr;
  else if (!strcmp(name, kb_cpu_rates_default.name))
    kb_cpu_rates = &kb_cpu_rates_default;
  return kb_cpu_rates->name;
}

static size_t kb_align64(size_t v)
{
  return (v + 63) & ~(size_t)63;
}

/* -------------------------------------------------------------- groups */

/* The cost model, in vector-FMA slots at the peak rate (so a sub-step of
 * len outputs with p terms costs len*p/vl divided by the efficiency its
 * micro-tiles reach).  The constants are rough measurements on the AVX-512
 * machine of issue 4 (2 FMA ports): 4x4 micro-tiles over p = 8 reach about
 * 0.76 of peak with both tile buffers in L1 and 0.53 from L2 (longer k
 * loops hide more of L2, see kb_eff_l2_p); a 16x16 in-register transpose
 * costs about 0.3 cycles per element (port 5); a scalar copy about 1.2;
 * writing a vector to memory and reading it back about 35 cycles. */
static const double kb_eff_l1[5] = { 0.35, 0.35, 0.60, 0.60, 0.76 };
static const double kb_eff_l2[5] = { 0.20, 0.20, 0.48, 0.48, 0.58 };
#define KB_COST_TR 10.0      /* one vector through an in-register transpose */
#define KB_COST_SCALAR 40.0  /* one vector's worth of scalar loads or stores */
#define KB_COST_PASS 70.0    /* one vector written to memory and read back */
/* One vector of a row buffer written back and read again where the two row
 * buffers of a thread exceed L2 by at most as much again (PER_ROW): the
 * lines come back from L2 or from the L3 victims it just evicted, by a
 * group whose tiles stay in L1; twice that for tiles in L2, whose streams
 * through L2 compete with the tile.  Measured, float p = 8, nb = 64, one
 * thread: a group of two factors (L1 tile) over a 1 MiB row takes 28 us
 * more with its 2 MiB of row buffers beyond L2 than with them in L2 (9.6
 * units per output vector), a group of three (L2 tile) 55 us more (19
 * units).  Double rows of 2 MiB (4 MiB of buffers) cost both kinds of
 * group the same 20 units (119 and 121 us), so KB_COST_PASS stays there:
 * the three-factor groups it chooses are 1-6% faster. */
#define KB_COST_PASS_L2X2 10.0
#define KB_COST_COPY 4.0     /* one vector copied within cache */
#define KB_COST_CALL 300.0   /* one group on one row: descriptor, calls, setup */
#define KB_COST_PAGE 60.0    /* a page walk (an L1 DTLB miss), about 30 cycles */
/* One element stored alone into a line that other tiles write much later
 * (lanes = rows, Y contiguous along L, outputs of a lane S elements apart):
 * the line is read for ownership and evicted once per element.  Fitted to
 * PASSES against PER_ROW on the seven LEFT shapes with m >= 16 (1 thread):
 * 20-45 units per element beyond KB_COST_SCALAR, measured ratios 2.3-10x
 * where the model without it said 1.3-2.5x. */
#define KB_COST_SCATTER 32.0
/* Fraction of peak of kt->digit0 (the fastest digit kept in place: MR
 * slices broadcast from the row, NV vectors of the packed A^T from L1). */
#define KB_EFF_D0 0.76
/* Later factors of digit0's chunks (lanes = the outputs of the faster
 * digits, a few vectors, one call per chunk) run somewhat slower than the
 * same factor in a group of its own (1024_32x32^3 float: the two fastest
 * factors in digit0 4% slower than each alone, rows in L2).  0.85 kept
 * out plans measured 5-12% faster (16_32x32^4, 1024_16x16^4, 1024_8x8^5,
 * 16_8x8^6 double, 1 thread), so only a little. */
#define KB_EFF_D0_LATER 0.95
/* One vector of a tile copied from rows inner apart (digits in place,
 * tiles narrower than the inner digits): measured 12 units in the last
 * group of 1024_32x32^3 float, about a transpose's cost.  Tiles whose rows
 * are contiguous (inner = nb) are read in place, for nothing. */
#define KB_COST_COPY_STRIDED 12.0
/* Such a tile read from row buffers beyond L2 (rows of several MiB, in
 * L3): each of its P rows is a run of nb lanes a row buffer's stride
 * apart, and every run waits for L3 on its own (the hardware prefetchers
 * do not follow dozens of short streams; software prefetch of the next
 * tile's runs did not help).  Per run, measured on AMD Zen 5 (EPYC family
 * 26), float 16_32x32^4, one thread, the last group (factor 0 alone over
 * 4 MiB row buffers): 1640 / 1280 / 1080 kcycles (TSC) a row at nb = 64 /
 * 128 / 256, about 45 TSC cycles (~135 units) per run; 512 and 1024 no
 * faster than 256.  So later in-place groups over row buffers beyond L2
 * may take tiles of up to KB_CPU_NVT_WIDE vectors, priced by the runs they
 * read. */
#define KB_COST_RUN_L3 135.0
#define KB_CPU_NVT_WIDE 16
/* digit0 with several factors: calls and micro-tile choices per chunk */
#define KB_COST_D0_CHUNK 200.0
/* One 64-byte line of X read from DRAM instead of L3 by the first group of
 * a row (PER_ROW, rows too long to be read ahead, X beyond the last-level
 * cache): measured on 16_8x8^6 float, one thread, rotating layout, 300 us
 * per 1 MiB row against 156 us from L3, so 144 us per 16384 lines, about
 * 25 cycles each (one core reads 9-10 GB/s): the transposing tile routine
 * reads 16 slices a slice apart and waits for them.  digit0 (digits in
 * place) streams contiguous chunks and prefetches the next one, so it is
 * charged only the part of that time its own work does not cover. */
#define KB_COST_DRAM_LINE 49.0

/* Whether a row's first pass reads X from DRAM (KB_COST_DRAM_LINE): X does
 * not stay in the last-level cache between calls (the y_stream rule) and a
 * row is too long to be read ahead into L2 (pf_next_row). */
static int kb_cpu_x_dram(const kb_problem_t *pb, size_t esz)
{
  return (size_t)pb->m * (size_t)pb->K * esz > kb_cpu_llc_operands() && (size_t)pb->K * esz > kb_cpu_l2 / 2;
}

/* L2 efficiency of a group whose largest factor has pmax columns: the table
 * is for p <= 8; up to p = 16 the k loop of a micro-tile is long enough to
 * cover half the gap to L1 (measured, 1 thread: 16x16^4 float with two
 * groups of two factors 1.18-1.26x faster than four single-factor groups,
 * where the table alone chose the latter; a dearer transpose instead would
 * also move 6x6^6 to 3-factor L2 groups, 15% slower than its L1-sized
 * pairs).  Larger p are left as measured,
 * and so are tiles of rows (strategy "passes": not measured, RIGHT
 * 16_16x16^5 came out 0-5% slower with it). */
static double kb_eff_l2_p(int nvm, int64_t pmax)
{
  const double gap = kb_eff_l1[nvm] - kb_eff_l2[nvm];
  if (pmax <= 8 || pmax > 16)
    return kb_eff_l2[nvm];
  return kb_eff_l2[nvm] + gap * 0.5 * (double)(pmax - 8) / 8.0;
}

typedef struct {
  int ng;
  kb_cpu_gplan_t g[KB_CPU_PLAN_MAXF];
  double cost;             /* per row */
  int64_t row_elems;       /* longest vector between groups */
} kb_cpu_groups_t;

/* What the model needs to know about a problem and a strategy. */
typedef struct {
  const kb_problem_t *pb;
  int vl;
  int cl;                  /* elements per transpose block side */
  size_t esz;
  int lanes_rows;          /* 1: PASSES, lanes = rows (nb_rows lanes); 0: PER_ROW, slices */
  int nb_rows;
  int x_lane_unit, x_kk_unit; /* X contiguous along the lanes / along k */
  int y_lane_unit, y_ll_unit;
  size_t l1, l2;           /* bytes two tile buffers may take to stay in L1, in L2 */
  int64_t x_row_bytes, y_row_bytes, buf_row_bytes; /* PASSES: bytes between k-rows */
  int rowbuf_in_l2;        /* PER_ROW: the row buffers stay in L2 */
  int rowbuf_near_l2;      /* PER_ROW: the row buffers exceed L2 at most twofold */
  int rowbuf_beyond_l2;    /* PER_ROW: the row buffers exceed L2 (KB_COST_RUN_L3) */
  int max_fuse;            /* at most this many factors per group; 0: any */
  int force_nvt;           /* PER_ROW: vectors per tile (1, 2, 4); 0: the model's */
  int inplace;             /* PER_ROW with digits in place (kb_cpu_plan_t.inplace) */
  int x_dram;              /* PER_ROW: the first group reads X from DRAM (KB_COST_DRAM_LINE) */
  int rows_split;          /* PER_ROW: threads will take whole rows (the split_rows default) */
  int many_rows;           /* m >= 4 rows per thread */
} kb_cpu_model_t;

/* Per-row plans: whether threads take whole rows (else they share each
 * row's tiles) when nothing forces it: one thread, enough rows, or rows
 * that divide evenly. */
static int kb_cpu_split_rows_default(const kb_problem_t *pb, int nthreads)
{
  return nthreads == 1 || pb->m >= 4 * nthreads || pb->m % nthreads == 0;
}

static int64_t kb_ceil_div(int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}

/* The shape of the group hi..lo reading vectors of Kin elements (nb not
 * set): products of p and q, slices, and the longest local vector (the
 * input, then each sub-step's output). */
static void kb_cpu_gplan_geom(const kb_problem_t *pb, int hi, int lo, int64_t Kin, kb_cpu_gplan_t *g)
{
  int64_t P = 1, Q = 1, mx, len, i;
  for (i = hi; i >= lo; i--) {
    P *= pb->p[i];
    Q *= pb->q[i];
  }
  mx = P;
  len = Kin;
  for (i = hi; i >= lo; i--) {
    len = len / pb->p[i] * pb->q[i];
    if (len / (Kin / P) > mx)
      mx = len / (Kin / P);
  }
  g->hi = hi;
  g->lo = lo;
  g->Kin = Kin;
  g->P = P;
  g->Q = Q;
  g->S = Kin / P;
  g->tile_elems = mx;
}

/* kb_cpu_rates_t.d0_mem_*: the fraction of KB_EFF_D0 that digit0's first
 * factor, of pq elements, reaches on this problem (1: all of it). */
static double kb_cpu_d0_mem_eff(const kb_cpu_model_t *M, int64_t pq)
{
  const kb_problem_t *pb = M->pb;
  const kb_cpu_rates_t *rt = kb_cpu_rates;
  if (rt->d0_mem_eff > 0 && M->esz == 8 && (size_t)pq * M->esz > M->l1 / 2 &&
      (size_t)pb->m * (size_t)(pb->K + pb->L) * M->esz > rt->d0_mem_bytes)
    return rt->d0_mem_eff;
  return 1.0;
}

/* The largest p whose digit0 later factors over chunks in L2 run at the
 * L1 rate where X is not read from DRAM (kb_cpu_rates_t.d0_l2_as_l1_maxp,
 * .d0_l2_as_l1_maxp_d). */
static int kb_cpu_d0_l2_as_l1(const kb_cpu_model_t *M)
{
  const kb_cpu_rates_t *rt = kb_cpu_rates;
  return M->esz == 8 && rt->d0_l2_as_l1_maxp_d > 0 ? rt->d0_l2_as_l1_maxp_d : rt->d0_l2_as_l1_maxp;
}

/* Cost per row of the group hi..lo reading vectors of Kin elements; fills g
 * with its best lane count.  1e300 when no lane count gives a tile that
 * fits (a single factor may use up to 64 MiB: large factors must run). */
static double kb_cpu_group_cost(const kb_cpu_model_t *M, int hi, int lo, int64_t Kin, kb_cpu_gplan_t *g)
{
  const kb_problem_t *pb = M->pb;
  const int vl = M->vl, first = hi == pb->nfactors - 1, last = lo == 0;
  int64_t P, mx, len, i, S, pmax = 0, qmin = -1, inner = 1;
  double flops = 0, best = 1e300;
  int nvt, fac_l1 = 1;

  kb_cpu_gplan_geom(pb, hi, lo, Kin, g);
  P = g->P;
  S = g->S;
  mx = g->tile_elems;
  len = Kin;
  for (i = hi; i >= lo; i--) {
    len = len / pb->p[i] * pb->q[i];
    flops += (double)len * (double)pb->p[i];
  }
  /* digits in place: the digits done before this group (their outputs)
   * are the lanes, contiguous; the group of the fastest digit is digit0 */
  for (i = hi + 1; i < pb->nfactors; i++)
    inner *= pb->q[i];
  if (M->inplace && first) {
    /* digit0 over contiguous chunks of P: the first factor at its own
     * rate, the others as lanes = the outputs of the faster digits, from
     * L1 or L2 by the chunk's two local vectors */
    const size_t loc = 2 * (size_t)mx * M->esz;
    int64_t ln = Kin, in = 1;
    /* chunks of a row of X from DRAM may fill L2: they stream through
     * it once (double 16_16x16^5: digits 4..1 in chunks of 512 KiB, then
     * digit 0, 48-57 ms against 56-61 for 4..2 + 1..0, two threads) */
    if (hi != lo && loc > (M->x_dram ? 2 * M->l2 : M->l2))
      return 1e300;
    best = KB_COST_CALL + (hi != lo ? (double)(Kin / P) * KB_COST_D0_CHUNK : 0);
    for (i = hi; i >= lo; i--) {
      const double fl = (double)(ln / pb->p[i] * pb->q[i]) * (double)pb->p[i];
      const int64_t nv = in / vl >= 4 ? 4 : in / vl;
      ln = ln / pb->p[i] * pb->q[i];
      if (i == hi)
        best += fl / vl / KB_EFF_D0 / kb_cpu_d0_mem_eff(M, pb->p[i] * pb->q[i]);
      else if (loc > M->l1 && (M->x_dram || pb->p[i] <= kb_cpu_d0_l2_as_l1(M)))
        /* chunks in L2 of a row of X from DRAM: the later factors run at
         * the L1 rate, without KB_EFF_D0_LATER (long chunks stream in
         * whole, their lanes are long contiguous runs).  At the L2 rate
         * the model split 16_32x32^4 into 2 + 2 factors where 3 + 1
         * (chunks of 32768) is faster; minima of interleaved runs, one
         * thread: float 43.2 -> 40.4 ms, double 86.2 -> 78.6; likewise
         * 16_16x16^5 float 4 + 1 (38.7 -> 36.9), 16_8x8^6 double 5 + 1
         * (16.6 -> 15.4).  Rows that fit L2 (read ahead) keep the L2
         * rate: the one-group plans it would give them measured slower
         * (1024_16x16^4 float 115 ms against 106, 1024_8x8^5 and
         * 1024_32x32^3 double 1-2%), on Ice Lake; not on AMD Zen 5
         * (kb_cpu_rates_zen5.d0_l2_as_l1_maxp). */
        best += fl / vl / kb_eff_l1[nv];
      else if (loc <= 2 * M->l1 && pb->p[i] >= 64 && M->rows_split)
        /* chunks within twice the L1 budget, factors of p >= 64: the long
         * k loop hides the lines that spill to L2, so the L1 rate (double
         * 1024_64x64^2, chunks of 64 KiB: one group 1-0 instead of 1 + 1,
         * minima of interleaved runs 16.4 against 17.0-17.9 ms one
         * thread, 8.8 against 8.9-9.0 two; float chunks of 128 KiB,
         * 256_128x128^2 double 3% slower as one group, stay at the L2
         * rate).  Only where threads take whole rows: sharing one row,
         * few chunks leave a thread idle (1_64x64^2 double, 2 threads). */
        best += fl / vl / KB_EFF_D0_LATER / kb_eff_l1[nv];
      else
        best += fl / vl / KB_EFF_D0_LATER /
                (loc <= M->l1 ? kb_eff_l1[nv] : kb_eff_l2_p((int)nv, pb->p[i]));
      in *= pb->q[i];
    }
    if (M->x_dram) {
      const double dram = (double)Kin * (double)M->esz / 64.0 * KB_COST_DRAM_LINE;
      if (dram > best)
        best = dram;
    }
    if (!last && !M->rowbuf_in_l2)
      best += (double)len / vl *
              (M->rowbuf_near_l2 ? KB_COST_PASS_L2X2 * (loc <= M->l1 ? 1 : 2) : KB_COST_PASS);
    g->nb = vl;
    nvt = 0;
  }
  for (i = hi; i >= lo; i--) {
    if ((size_t)(pb->p[i] * pb->q[i]) * M->esz > M->l1 / 2)
      fac_l1 = 0;
    if (pb->p[i] > pmax)
      pmax = pb->p[i];
    if (qmin < 0 || pb->q[i] < qmin)
      qmin = pb->q[i];
  }
  for (nvt = M->inplace && first ? 0 : M->inplace && M->rowbuf_beyond_l2 ? KB_CPU_NVT_WIDE : 4; nvt >= 1;
       nvt /= 2) {
    const int nb = M->lanes_rows ? M->nb_rows : nvt * vl;
    if (!M->lanes_rows && M->force_nvt > 0 && nvt != M->force_nvt)
      continue;
    /* in place, tiles no wider than the lanes there are */
    if (M->inplace && nvt > 1 && nb > inner)
      continue;
    /* vectors per micro-tile; with digits in place, 2-vector tiles over
     * p >= 32 run as fast as 4-vector ones (profile of 1024_32x32^3 float:
     * 8x2 micro-tiles over contiguous 32 x 32 tiles took 24% of the time
     * for a third of the FMAs, the 6x4/5x4 group 26%): the long k loop
     * hides the extra loads */
    const int nvm = nb / vl >= 4 || (M->inplace && nb / vl == 2 && pmax >= 32) ? 4 : nb / vl;
    /* one tile buffer when a single factor writes its output in place */
    const size_t tile = (hi == lo ? 1 : 2) * (size_t)mx * (size_t)nb * M->esz;
    const int64_t lanes = M->lanes_rows ? pb->m : M->inplace ? inner : S;
    double used, c;
    int in_l1;
    if (M->lanes_rows && nvm != nvt)
      continue;
    /* A later group with digits in place whose tiles are read in place
     * (nb = inner: rows of nb contiguous lanes) streams its tile through
     * L2 and beyond like a GEMM with a long n, the factors (at most half
     * of L1) and each slice's p x nb block staying in L1: it runs at the
     * L1 rate up to tiles of twice L2.  Float 16_64x64^3: digit0 alone,
     * then factors 1-0 over 64 lanes (2 MiB of tiles), 12.4-12.8 ms
     * against 13.6-13.9 for 2-1 + 0-0 one thread, 6.6 against 7.0-7.1
     * two (also 4_ and 8_64x64^3).  Not for double (a 64 x 64 factor is
     * 32 KiB: 14% slower), for X from DRAM (64_64x64^3 float 2-3%
     * slower: digit0 alone waits for memory) or for fewer than 4 rows a
     * thread (1_ and 2_64x64^3 float 1-5% slower; one tile per row). */
    if (2 * (size_t)mx * (size_t)nb * M->esz > M->l2 && (hi != lo || tile > ((size_t)64 << 20)) &&
        !(M->inplace && !first && nb == inner && fac_l1 && M->many_rows && !M->x_dram &&
          2 * (size_t)mx * (size_t)nb * M->esz <= 4 * M->l2 &&
          (size_t)pmax * (size_t)nb * M->esz <= M->l1 / 2 && qmin >= 24))
      continue;
    /* L1 speed when the tile stays there, or when each slice's p x nb
     * block does and many row chunks read it again */
    in_l1 = tile <= M->l1 || ((size_t)pmax * (size_t)nb * M->esz <= M->l1 / 2 && qmin >= 24);
    used = (double)lanes / (double)(nb * kb_ceil_div(lanes, nb));
    c = flops / vl / used /
        (in_l1 ? kb_eff_l1[nvm] : M->lanes_rows ? kb_eff_l2[nvm] : kb_eff_l2_p(nvm, pmax));
    if (M->lanes_rows) {
      if (first && !M->x_lane_unit)
        c += (double)Kin / vl * (M->x_kk_unit ? KB_COST_TR : KB_COST_SCALAR);
      if (last && !M->y_lane_unit)
        c += (double)len / vl * (M->y_ll_unit && S == 1 ? KB_COST_TR : KB_COST_SCALAR);
      /* a lane's outputs S apart: once they are a line apart, every element
       * lands in a line of its own (the shares of a line several apart) */
      if (last && !M->y_lane_unit && S > 1) {
        const double share = (double)S * (double)M->esz / 64.0;
        c += (double)len * KB_COST_SCATTER * (share < 1 ? share : 1);
      }
      if (!last)
        c += (double)len / vl * KB_COST_PASS;
      /* column-layout operands: every k of a tile is a row of its own, a
       * page apart when m is large, so each row a tile touches costs a TLB
       * walk shared by its nb lanes */
      if ((first ? M->x_row_bytes : M->buf_row_bytes) >= 4096)
        c += (double)Kin * KB_COST_PAGE / nb;
      if ((last ? M->y_row_bytes : M->buf_row_bytes) >= 4096)
        c += (double)len * KB_COST_PAGE / nb;
    } else {
      /* blocks of a transpose are vl x vl: a group narrower than vl, or
       * its ragged end, pays for whole blocks */
      if (M->inplace && inner > nb) {
        c += (double)Kin / vl * KB_COST_COPY_STRIDED;  /* rows of the tile inner apart: a copy */
        if (M->rowbuf_beyond_l2)
          c += (double)Kin / nb * KB_COST_RUN_L3;
      } else {
        c += (double)Kin / vl * (first && !M->x_kk_unit ? KB_COST_SCALAR : KB_COST_TR) *
             (double)(kb_ceil_div(P, M->cl) * M->cl) / (double)P;
      }
      if (last && !M->y_lane_unit)
        c += (double)len / vl * KB_COST_SCALAR;
      if (first && M->x_dram)
        c += (double)Kin * (double)M->esz / 64.0 * KB_COST_DRAM_LINE;
      if (!last && !M->rowbuf_in_l2)
        c += (double)len / vl *
             (M->rowbuf_near_l2 ? KB_COST_PASS_L2X2 * (tile <= M->l1 ? 1 : 2) : KB_COST_PASS);
      /* a tile short of nb lanes is written through a copy */
      if (lanes % nb != 0)
        c += (double)(lanes % nb) / (double)lanes * (double)len / vl * KB_COST_COPY;
      c += KB_COST_CALL;
    }
    if (c < best) {
      best = c;
      g->nb = nb;
    }
  }
  return best;
}

/* The cheapest split of the chain into groups of consecutive factors, by
 * dynamic programming over where groups end.  -1 if some factor fits no
 * tile. */
static int kb_cpu_groups(const kb_cpu_model_t *M, kb_cpu_groups_t *gs)
{
  const kb_problem_t *pb = M->pb;
  const int n = (int)pb->nfactors;
  double f[KB_CPU_PLAN_MAXF + 1];     /* f[h+1]: factors h..0 left, input Kin[h] */
  int cut[KB_CPU_PLAN_MAXF + 1];
  int64_t Kin[KB_CPU_PLAN_MAXF];
  kb_cpu_gplan_t g;
  int h, lo, k;

  Kin[n - 1] = pb->K;
  for (h = n - 2; h >= 0; h--)
    Kin[h] = Kin[h + 1] / pb->p[h + 1] * pb->q[h + 1];
  f[0] = 0;
  for (h = 0; h < n; h++) {
    f[h + 1] = 1e300;
    cut[h + 1] = -1;
    for (lo = h; lo >= 0 && h - lo < KB_CPU_GROUP_MAXF; lo--) {
      double c;
      if (M->max_fuse > 0 && h - lo >= M->max_fuse)
        break;
      if (f[lo] >= 1e300)
        continue;
      c = kb_cpu_group_cost(M, h, lo, Kin[h], &g);
      if (c < 1e300 && c + f[lo] < f[h + 1]) {
        f[h + 1] = c + f[lo];
        cut[h + 1] = lo;
      }
    }
  }
  if (f[n] >= 1e300)
    return -1;
  gs->cost = f[n];
  gs->ng = 0;
  gs->row_elems = 0;
  for (h = n - 1; h >= 0; h = cut[h + 1] - 1) {
    kb_cpu_group_cost(M, h, cut[h + 1], Kin[h], &gs->g[gs->ng]);
    if (gs->ng > 0 && Kin[h] > gs->row_elems)
      gs->row_elems = Kin[h];
    gs->ng++;
  }
  for (k = 0; k < gs->ng; k++)
    if (gs->g[k].nb <= 0)
      return -1;
  return 0;
}

/* -------------------------------------------------------------- banded */

/* Fractions of peak of the banded plan's steps (kernels/cpu/band_kernels.inc)
 * with both row buffers in L1: straight steps (MR x NV micro-tiles, the
 * factor broadcast), fused pairs, and banded ones, whose output vectors
 * each take 2p-1 FMAs and 2p-2 permutes on the same two vector ports (so
 * 4p-3 slots, p of them useful; beyond 24 the coefficient and index
 * vectors no longer stay in registers: half as much again).  Fitted on
 * this machine (1 thread, m = 1024 (6^6: 256), minima of interleaved runs,
 * time against the model's other plan): 3^7 float 0.75x, double 0.90x,
 * 2^10 0.80x, 4^6 float 0.83x, 5^5 float 0.80x, 3^6 double 0.82x, 2^8
 * float 0.83x, all taken; 5^5 double 0.94x, 4^6 double 0.83x, not taken
 * (left to the tuner); 6^6 float 1.04x, 3^6 float 1.0x, 3^5 float 1.24x,
 * 7^4 float 1.15x, not taken. */
#define KB_EFF_BAND_S 0.70
#define KB_EFF_BAND_F 0.70
#define KB_EFF_BAND_B 1.00
/* the fastest digit as a GEMM of slices (kb_d0_run): one broadcast per
 * FMA or two (k pairs), load-bound; set (session 6) so that double
 * 1024_8x8^5 kept the tiled plan, banded 122-146 ms against 94-131, one
 * thread; there that digit now runs fused (kb_band_sp) and in segments,
 * and the plan is banded (KB_EFF_BAND_SEG) */
#define KB_EFF_BAND_D0 0.40
/* kb_band_sp (a straight digit of stride vl and the slice-GEMM digit of p
 * = q = vl after it in one pass) exists in the double AVX-512 kernels,
 * the ones with half-vector steps */
#define KB_BAND_SP_OK(kt, esz) ((kt)->band_half && (esz) == 8)
/* The model takes banded plans only where every band-matrix step has p <=
 * 5: p = 6..8 measured slower than the other plans (7^4 float 1.15x,
 * 6_8x8^3 float 2x, 6^6 float 1.04x, 1024_6x6^6 double 1.07-1.12x with X
 * and Y beyond the LLC, although 0.87x at m = 256), more than the cost
 * says.  Half-vector and pair steps (kb_cpu_opt_t.band_half) and slice
 * GEMMs (d0 below) are not band matrices: with them (and two straight
 * digits per pass in the kernel), one thread, minima of interleaved runs,
 * banded against the other plan: 1024_8x8^5 float 47-48 ms against 66-68
 * (taken); not taken, as priced: double 116-146 against 94-144 (noisy),
 * 1024_16x16^4 float 135-197 against 127-180 (noisy), double 278-405
 * against 273-279 (rows of 512 KiB), 16_8x8^6 float 9.7-10.1 against
 * 9.5-10.0, double 24-26 against 15, 16_16x16^5 float 78-102 against
 * 33-37 (rows of 1-4 MiB in L3). */
#define KB_BAND_MODEL_MAXP 5
/* Where the fastest digits are 6 x 6 factors, the dense step across slices
 * (kb_td_6x2, session 29) leaves no band matrix in the plan: straight
 * steps for the slower digits, the two fastest at 12 FMAs an element
 * instead of the 36 x 36 product's 36.  The model priced those plans
 * 1.07-1.17x above the tiled plans of paired factors (6^6: float 3.05e5
 * against 2.61e5, double 5.12e5 against 4.76e5), which measured slower at
 * every m: Emerald Rapids guest, two threads, best of 5-100 calls,
 * alternating, banded against tiled, ms: float 1024_6x6^6 35-42 against
 * 39-77, 256 8.8-10.1 against 10.5-14.3, 32 0.93-1.02 against 1.10-1.29;
 * double 1024 61-121 against 88-163.  Their price is divided by this; the
 * other shapes it moves to banded plans, same runs: 1024_6x6^5 float
 * 5.9-7.1 against 9.8-11.2, double 9.7-12.7 against 16.3-20.5; 1024_6x6^4
 * float 0.66-1.07 against 0.72-0.93 (a tie), double 1.34-1.68 against
 * 1.48-2.31; double 1024_6x6^3 0.20-0.23 against 0.29-0.31; 16_6x6^4,
 * 4_6x6^5 and 16_6x6^6 1.1-1.5x faster. */
#define KB_BAND_TD6_FIT 1.3
/* Dense steps (the fastest digits as one GEMM, kb_band_dense): rates of
 * its micro-tiles in this model's units, 6 x 4 (10 loads per 24 FMAs),
 * 12 x 2 (14 per 24; a lower rate lost float 3^6 and 2^10, 1.3-1.5x
 * faster dense, and still left double 3^6 at dense 9 x 9, 7% slower than
 * 27 x 27) and 12 x 1 (13 per 12: load-bound).  Above 1: the
 * banded steps they replace are priced low against measurement (float
 * 3^7, one thread: three banded steps of p = 3 ~36 cycles per output
 * vector, the 27 x 27 dense step ~19, priced 27 and 29 units).  Fitted,
 * one thread, m = 1024, minima of interleaved runs, model's plan before
 * -> with dense steps: 3^7 float 2.97 -> 2.66 ms, double 7.6 -> 5.6; 3^6
 * double 1.57 -> 1.46, 3^5 double 0.67 -> 0.41; 2^10 float 1.31 -> 0.99,
 * double 2.77 -> 1.83; 2^8 double 0.58 -> 0.34; 5^5 double 12.5 -> 9.0.
 * B^T at most KB_BAND_DENSE_MAXB bytes (L1).  Masked tails of straight
 * steps cost KB_BAND_TAIL vectors. */
#define KB_BAND_TAIL 3.0
#define KB_EFF_BAND_DENSE 1.50
#define KB_EFF_BAND_DENSE2 1.50
#define KB_EFF_BAND_DENSE1 0.80
#define KB_BAND_DENSE_MAXB 16384
/* Row buffers beyond L1 (in L2): every step streams a row through L2. */
#define KB_EFF_BAND_L2 0.75
/* Column tiles (kb_cpu_band_t.col_t) after segments that go first: every
 * step runs in L1, the row crosses memory twice (X -> row buffer -> Y).
 * Taken where the row buffers exceed half of L2 (16_8x8^6; neutral on
 * 1024_8x8^5, rows of 128-256 KiB).  Measured, see kb_cpu_band_col. */
#define KB_EFF_BAND_COL 0.75
/* Steps in segments (kb_cpu_band_t.seg_in) of rows beyond L1 run in L1:
 * priced without KB_EFF_BAND_L2 (session 8 priced a banded plan as without
 * segments).  Changes, two threads, minima of interleaved runs, tiled ->
 * banded: double 1024_8x8^5 58.7-65 -> 49.5-55 ms, 256_8x8^5 15.3 -> 13.8,
 * 64_8x8^4 0.38 -> 0.28, 4_8x8^5 0.22 -> 0.18, float 4_8x8^5 0.12 ->
 * 0.09; no other issue-4 shape changes plan. */
#define KB_EFF_BAND_SEG 1.0
/* One step on one row: calls, pads, micro-tile choice. */
#define KB_COST_BAND_STEP 40.0
/* One element of a coefficient table, laid out once per call (shared by
 * the call's rows: it decides for few rows; 3^7 float, one thread: m = 1
 * and 2 slower banded, 1.25x, m = 4 faster, 0.9x). */
#define KB_COST_BAND_COEF 2.0

/* Segments (kb_cpu_band_t.seg_in) wherever the rows are beyond L1 and the
 * steps allow (priced by KB_EFF_BAND_SEG).  1: the segmented steps go
 * first, reading X in contiguous segments (where every factor is square). */
#define KB_BAND_SEG_FIRST 1

/* Whether and from which step pb's banded plan runs its fastest digits
 * segment by segment (pl->band_seg_t, band_seg_in, band_seg_blk,
 * band_seg_n; band_seg_in = 0: not): the longest run of steps at the end
 * that read within their blocks (segok), covering at least two passes
 * over the row (a half-vector step and the pair step after it are one),
 * whose intermediates of one block fit KB_CPU_BAND_SEG_BYTES; only where
 * the row buffers are beyond L1 (beyond: the row crosses L2 once per
 * pass) and not from step 0 of a plan that copies X in first.  sf: each
 * digit's stride; segments of as many blocks as segb bytes allow
 * (KB_CPU_BAND_SEG_BYTES, or KB_CPU_BAND_SEG_MAX for wide column tiles). */
static void kb_cpu_band_seg(const kb_problem_t *pb, const kb_cpu_opt_t *kt, size_t esz, const int64_t *sf,
                            const int *segok, int beyond_l1, int64_t segb, kb_cpu_plan_t *pl)
{
  const int nt = pl->band_nsteps, force = kb_cpu_test_band_seg;
  int t0, best = -1;
  pl->band_seg_t = pl->band_seg_e = nt;
  pl->band_seg_in = pl->band_seg_blk = pl->band_seg_n = 0;
  if (force == 0 || (force < 0 && !beyond_l1))
    return;
  for (t0 = nt - 1; t0 >= 0 && segok[t0]; t0--) {
    const int f0 = pl->band_f[t0];
    int64_t blk = pb->p[f0] * sf[f0], len = blk, maxint = 0;
    int t, passes = 0;
    if (t0 == 0 && pl->band_copy_in)
      break;
    for (t = t0; t < nt; t++) {
      const int f = pl->band_f[t];
      const int nf = pl->band_dense[t] ? pl->band_dense[t] : pl->band_fused[t] ? 2 : 1;
      int j;
      /* a half-vector step and its pair step run as one pass */
      if (!(pl->band_banded[t] && pl->band_s[t] == 1 && t > t0 && pl->band_banded[t - 1] &&
            2 * pl->band_s[t - 1] == kt->vl && pb->p[pl->band_f[t - 1]] % 2 == 0))
        passes++;
      for (j = f; j < f + nf; j++)
        len = len / pb->p[j] * pb->q[j];
      if (t + 1 < nt && len > maxint)
        maxint = len;
    }
    if (passes < 2 || maxint * (int64_t)esz > segb)
      continue;
    best = t0;
  }
  if (best < 0)
    return;
  {
    const int f0 = pl->band_f[best];
    int64_t blk = pb->p[f0] * sf[f0], len = blk, maxint = 1, n = pb->K, nbk;
    int t, f;
    for (t = best; t < nt; t++) {
      const int nf = pl->band_dense[t] ? pl->band_dense[t] : pl->band_fused[t] ? 2 : 1;
      for (f = pl->band_f[t]; f < pl->band_f[t] + nf; f++)
        len = len / pb->p[f] * pb->q[f];
      if (t + 1 < nt && len > maxint)
        maxint = len;
    }
    for (f = 0; f < f0; f++)
      n = n / pb->p[f] * pb->q[f];
    nbk = segb / ((int64_t)esz * maxint);
    if (nbk > n / blk)
      nbk = n / blk;
    pl->band_seg_t = best;
    pl->band_seg_e = nt;
    pl->band_seg_blk = blk;
    pl->band_seg_in = nbk * blk;
    pl->band_seg_n = (int)kb_ceil_div(n, nbk * blk);
  }
}

/* Whether pl's segmented steps may go first, straight from X: every
 * factor square (the strides are then the same in either order) and the
 * first of the other steps not a band matrix (which reads its row buffer's
 * pads; where it is, X is copied in first). */
static int kb_cpu_band_rev_ok(const kb_problem_t *pb, const kb_cpu_plan_t *pl)
{
  int f;
  for (f = 0; f < (int)pb->nfactors; f++)
    if (pb->p[f] != pb->q[f])
      return 0;
  return pl->band_seg_in > 0 && pl->band_seg_t > 0 && pl->band_seg_e == pl->band_nsteps && !pl->band_banded[0];
}

/* The segmented steps [seg_t, n) of pl first, then steps [0, seg_t). */
static void kb_cpu_band_rev(kb_cpu_plan_t *pl)
{
  const int nt = pl->band_nsteps, h = pl->band_seg_t;
  int f_[KB_CPU_PLAN_MAXF], fu[KB_CPU_PLAN_MAXF], ba[KB_CPU_PLAN_MAXF], de[KB_CPU_PLAN_MAXF], td[KB_CPU_PLAN_MAXF];
  int64_t s_[KB_CPU_PLAN_MAXF];
  int t;
  for (t = 0; t < nt; t++) {
    const int u = (t + h) % nt;
    f_[t] = pl->band_f[u];
    fu[t] = pl->band_fused[u];
    ba[t] = pl->band_banded[u];
    de[t] = pl->band_dense[u];
    td[t] = pl->band_tdense[u];
    s_[t] = pl->band_s[u];
  }
  for (t = 0; t < nt; t++) {
    pl->band_f[t] = f_[t];
    pl->band_fused[t] = fu[t];
    pl->band_banded[t] = ba[t];
    pl->band_dense[t] = de[t];
    pl->band_tdense[t] = td[t];
    pl->band_s[t] = s_[t];
  }
  pl->band_seg_t = 0;
  pl->band_seg_e = nt - h;
  pl->band_copy_in = 0;
}

/* Whether the steps next to pl's segments (after them where they go
 * first, kb_cpu_band_rev, else before them) may run as column tiles
 * (kb_cpu_band_t.col_t): at least two, straight, square p <= 8 (in place:
 * one micro-tile row chunk), strides whole vectors, the first the slowest
 * digit, each the next one's times its p, the tile within
 * KB_CPU_BAND_COL_BYTES.  Sets pl->band_col_t, band_col_e (0: none). */
static void kb_cpu_band_col(const kb_problem_t *pb, const kb_cpu_opt_t *kt, size_t esz, kb_cpu_plan_t *pl,
                            int beyond_l2)
{
  const int nt = pl->band_nsteps;
  int64_t c, n = pb->K;
  int t, t0, t1;
  pl->band_col_t = pl->band_col_e = 0;
  pl->band_col_ld = pl->band_col_w = 0;
  if (kb_cpu_test_band_col == 0 || (kb_cpu_test_band_col < 0 && !beyond_l2) || pl->band_seg_in <= 0)
    return;
  if (pl->band_seg_t == 0) {
    t0 = pl->band_seg_e;
    t1 = nt;
  } else {
    t0 = 0;
    t1 = pl->band_seg_t;
  }
  if (t1 - t0 < 2 || t1 > nt)
    return;
  c = pl->band_s[t1 - 1];
  for (t = t0; t < t1; t++) {
    const int f = pl->band_f[t];
    if (pl->band_banded[t] || pl->band_fused[t] || pl->band_dense[t] || pb->p[f] != pb->q[f] ||
        pb->p[f] > 8 || pl->band_s[t] % kt->vl != 0 ||
        pl->band_s[t] != (t + 1 < t1 ? pl->band_s[t + 1] * pb->p[pl->band_f[t + 1]] : c))
      return;
  }
  /* (after segments that go first every factor is square: the row is
   * still K long) */
  if (pl->band_s[t0] * pb->p[pl->band_f[t0]] != n ||
      (size_t)(n / c) * (size_t)kt->vl * esz > KB_CPU_BAND_COL_BYTES)
    return;
  pl->band_col_t = t0;
  pl->band_col_e = t1;
  /* after segments that go first (each segment whole tile rows), the
   * tiles' rows a vector apart more than c in the row buffer: see
   * kb_cpu_band_t.col_ld.  The buffer grows by that vector a row. */
  if (pl->band_seg_t == 0 && t0 > 0 && pl->band_seg_blk == c && pl->band_seg_in % c == 0 &&
      kb_cpu_test_band_colpad != 0) {
    const int64_t w = kb_cpu_band_col_w(c, n / c, kt->vl, (int64_t)esz);
    pl->band_col_ld = c + kt->vl;
    if (pl->band_buf_elems < n / c * pl->band_col_ld)
      pl->band_buf_elems = n / c * pl->band_col_ld;
    /* tiles of w vectors that write Y in runs of KB_CPU_BAND_COL_RUN
     * bytes or more: straight to Y (kb_cpu_band_t.col_w) */
    if (w > 1 && w * kt->vl * (int64_t)esz >= KB_CPU_BAND_COL_RUN && kb_cpu_test_band_wide != 0)
      pl->band_col_w = w;
  }
}

/* Segments of at most segb bytes (kb_cpu_band_seg), first where they
 * may go first (kb_cpu_band_rev), then column tiles (kb_cpu_band_col);
 * bytes: the two row buffers. */
static void kb_cpu_band_segcol(const kb_problem_t *pb, const kb_cpu_opt_t *kt, size_t esz, const int64_t *sf,
                               const int *segok, size_t bytes, int64_t segb, kb_cpu_plan_t *pl)
{
  kb_cpu_band_seg(pb, kt, esz, sf, segok, bytes > kb_cpu_l1 * 3 / 4, segb, pl);
  if (pl->band_seg_in > 0 && pl->band_seg_t > 0 && kb_cpu_band_rev_ok(pb, pl) &&
      (kb_cpu_test_band_seg == 2 || (kb_cpu_test_band_seg < 0 && KB_BAND_SEG_FIRST)))
    kb_cpu_band_rev(pl);
  kb_cpu_band_col(pb, kt, esz, pl, bytes > kb_cpu_l2 / 2);
}

int kb_cpu_band_ok(const kb_problem_t *pb, const kb_cpu_opt_t *kt)
{
  /* real types (the kernels), rows of X and Y contiguous */
  return kt != NULL && kt->band != NULL && kt->pack_band != NULL && kt->pack_t != NULL &&
         pb->nfactors >= 1 && pb->nfactors <= KB_CPU_BAND_MAXD && pb->x_contig_k && pb->y_contig_l;
}

/* Whether the dense step of digits fd.. runs across slices
 * (kb_cpu_plan_t.band_tdense): equal square digits the kernels take
 * (KB_CPU_BAND_TD_OK, the AVX-512 kernels).  Its price stays the dense
 * step's, so it decides no plan; it only runs the plan's dense step with
 * a third of the FMAs (3^3) and without the product's padding.  Measured
 * on AMD Zen 5, minima of interleaved runs (test hook on / off), dense
 * 27 x 27 -> across slices: 1024_3x3^7 float one thread 1.09-1.14 ->
 * 0.87-0.97 ms, two threads 0.51-0.52 -> 0.42-0.44 (quiet host); double
 * one thread 2.36-2.40 -> 2.17-2.31, two threads 1.07-1.13 -> 1.07-1.13
 * (quiet; X and Y from DRAM), 1.55 -> 1.37-1.45 (busy); in cache (m =
 * 16) float 0.020 -> 0.016, double 0.032 -> 0.025; 256_3x3^5 float equal,
 * double 0.049-0.052 -> 0.043-0.046; 2^10 float (dense 32 x 32) one thread
 * 0.51-0.52 -> 0.39-0.42.  Per row, one thread, rdtsc: the float step
 * 1633 -> 1096 TSC cycles (of 2373 -> 1831), double 3720 -> 3018. */
static int kb_cpu_band_td(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int fd)
{
  const int n = (int)pb->nfactors;
  int f;
  if (kb_cpu_test_band_tdense == 0 || !kt->band_half || !KB_CPU_BAND_TD_OK(pb->p[fd], n - fd))
    return 0;
  for (f = fd; f < n; f++)
    if (pb->p[f] != pb->p[fd] || pb->q[f] != pb->p[fd])
      return 0;
  return 1;
}

/* The steps of pb's banded plan into pl (band_nsteps, band_f, band_fused,
 * band_s, band_banded, band_copy_in, band_pad, band_buf_elems; pl->band
 * not set) and the model's cost per row (1e300: not for the model).  Digits go slowest first: the
 * first step then reads the row of X in place (its stride is a whole
 * number of vectors unless the row is tiny), every stride is a product
 * of p (the faster digits are still to come), and the banded steps come
 * last, reading row buffers with pads. */
static double kb_cpu_band_steps(const kb_problem_t *pb, const kb_cpu_opt_t *kt, size_t esz, int fd,
                                kb_cpu_plan_t *pl)
{
  const int vl = kt->vl;
  const int n = (int)pb->nfactors;
  int64_t len = pb->K, maxlen = 0, pad = 0, sf[KB_CPU_PLAN_MAXF];
  double cost = KB_COST_CALL, eff = 1, fc[KB_CPU_PLAN_MAXF], c0, x0;
  size_t bytes;
  int t, f, big = 0, td6 = 0, segok[KB_CPU_PLAN_MAXF];

  sf[n - 1] = 1;
  for (f = n - 2; f >= 0; f--)
    sf[f] = sf[f + 1] * pb->p[f + 1];
  memset(pl->band_dense, 0, sizeof pl->band_dense);
  memset(pl->band_tdense, 0, sizeof pl->band_tdense);
  for (t = 0, f = 0; f < fd; t++) {
    const int64_t p = pb->p[f], q = pb->q[f], s = sf[f];
    int64_t out;
    c0 = cost;
    /* a digit faster than a vector is a band along the row; it needs a
     * square factor (the shift of an input is then the same for every
     * lane) small enough for its coefficients to stay in registers */
    /* the fastest digit with whole vectors of outputs is a GEMM of the
     * row's slices (kb_d0_run) instead */
    const int d0 = s == 1 && q % vl == 0;
    const int banded = !d0 && s < vl && p == q && p >= 2 && p <= KB_CPU_BAND_MAXP;
    /* two equal small square digits, both of whole vectors: one pass */
    const int fused = !banded && f + 1 < fd && sf[f + 1] >= vl && (p == 2 || p == 3) && q == p &&
                      pb->p[f + 1] == p && pb->q[f + 1] == p;
    pl->band_f[t] = f;
    pl->band_fused[t] = fused;
    pl->band_banded[t] = banded;
    pl->band_s[t] = fused ? sf[f + 1] : s;
    out = len / p * q;
    /* steps that read within their blocks may run in segments (band-matrix
     * steps read their neighbours' pads); not straight steps with masked
     * tails (one-vector micro-tiles: double 1024_5x5^5, one thread, 15%
     * slower in segments) */
    segok[t] = banded ? kt->band_half && (2 * s == vl || (s == 1 && 2 * p == vl)) : fused || d0 || s % vl == 0;
    if (banded) {
      if ((p - 1) * s > pad)
        pad = (p - 1) * s;
      cost += KB_COST_BAND_COEF * (double)kb_cpu_band_coef_elems(p, s, vl) / (double)(pb->m > 0 ? pb->m : 1);
      if (kt->band_half && 2 * s == vl)
        /* half-vector step: FMAs only, FMA-bound micro-tiles */
        cost += (double)kb_ceil_div(len, vl) * (double)p / KB_EFF_BAND_S;
      else if (kt->band_half && s == 1 && 2 * p == vl)
        /* pair step: p FMAs and p permutes */
        cost += (double)kb_ceil_div(len, vl) * (double)(2 * p) / KB_EFF_BAND_B;
      else {
        big |= p > KB_BAND_MODEL_MAXP;
        cost += (double)kb_ceil_div(len, vl) * (double)(4 * p - 3) * (4 * p - 3 > 24 ? 1.5 : 1.0) /
                KB_EFF_BAND_B;
      }
    } else if (fused) {
      cost += (double)(len / (p * s)) * (double)kb_ceil_div(sf[f + 1], vl) * (double)(2 * p * p * p) /
              KB_EFF_BAND_F;
    } else if (d0 && KB_BAND_SP_OK(kt, esz) && p == vl && q == vl && t > 0 && !pl->band_banded[t - 1] &&
               !pl->band_fused[t - 1] && pl->band_s[t - 1] == vl) {
      /* fused with the straight digit of stride vl before it (kb_band_sp):
       * vl permutes and vl FMAs an output vector, as a pair step */
      cost += (double)(len / vl) * (double)(2 * p) / KB_EFF_BAND_B;
    } else if (d0) {
      cost += (double)(len / p) * (double)(q / vl) * (double)p / KB_EFF_BAND_D0;
    } else {
      /* a masked tail vector runs in one-vector micro-tiles (load-bound,
       * per-tile pointer work): measured double 3^7, stride 9, 15 cycles
       * per output vector where whole vectors take about 3 */
      cost += (double)(len / (p * s)) * ((double)(s / vl) + (s % vl ? KB_BAND_TAIL : 0)) * (double)(p * q) /
              KB_EFF_BAND_S;
    }
    cost += KB_COST_BAND_STEP;
    fc[f] = cost - c0;   /* the step's own cost, by its first digit */
    f += fused ? 2 : 1;
    if (f < n && out > maxlen)
      maxlen = out;
    len = out;
  }
  if (fd < n) {
    /* digits fd.. as one dense step (kb_cpu_band_dense_ok) */
    int64_t P = 1, Q = 1, nvq;
    for (f = fd; f < n; f++) {
      P *= pb->p[f];
      Q *= pb->q[f];
    }
    nvq = kb_ceil_div(Q, vl);
    segok[t] = 1;
    pl->band_f[t] = fd;
    pl->band_fused[t] = 0;
    pl->band_banded[t] = 0;
    pl->band_dense[t] = n - fd;
    pl->band_tdense[t] = kb_cpu_band_td(pb, kt, fd);
    td6 = pl->band_tdense[t] && pb->p[fd] > KB_BAND_MODEL_MAXP;
    pl->band_s[t] = 1;
    c0 = cost;
    cost += (double)(len / P) * (double)nvq * (double)P /
                (nvq >= 3 ? KB_EFF_BAND_DENSE : nvq == 2 ? KB_EFF_BAND_DENSE2 : KB_EFF_BAND_DENSE1) +
            KB_COST_BAND_STEP;
    fc[fd] = cost - c0;
    len = len / P * Q;
    t++;
  }
  pl->band_nsteps = t;
  pl->band_copy_in = pl->band_banded[0];
  if (pl->band_copy_in && pb->K > maxlen)
    maxlen = pb->K;
  /* pads: the farthest shift, and the rest of a row's last vector */
  pl->band_pad = (pad + vl + 15) / 16 * 16;
  pl->band_buf_elems = (maxlen + 15) / 16 * 16;
  bytes = 2 * (size_t)(2 * pl->band_pad + pl->band_buf_elems) * esz;
  if (bytes > kb_cpu_l1 * 3 / 4)
    eff = KB_EFF_BAND_L2;
  if (bytes > kb_cpu_l2 / 2)
    eff = KB_EFF_BAND_L2 / 2;
  /* segments where the rows are beyond L1 (KB_BAND_SEG_FIRST), column
   * tiles after them where the rows are beyond L2; where those tiles are
   * padded rows too narrow to go to Y straight, larger segments if they
   * leave tiles wide enough (band_col_w: one digit more in segments,
   * one fewer in columns, no copy of the row to Y; float 16_8x8^6 on Zen
   * 5, two threads, bench medians 53.5 -> 65.5% of the floor, 20 pairs).  Priced
   * as column tiles either way (KB_EFF_BAND_COL): no --shapes cpu row
   * changes plan, only float 16_8x8^6's layout. */
  {
    const kb_cpu_plan_t before = *pl;
    kb_cpu_band_segcol(pb, kt, esz, sf, segok, bytes, KB_CPU_BAND_SEG_BYTES, pl);
    if (pl->band_col_ld > 0 && pl->band_col_w <= 1 && kb_cpu_test_band_wide != 0) {
      kb_cpu_plan_t wide = before;
      kb_cpu_band_segcol(pb, kt, esz, sf, segok, bytes, KB_CPU_BAND_SEG_MAX, &wide);
      if (wide.band_col_w > 1)
        *pl = wide;
    }
  }
  if (big)
    return 1e300;
  if (pl->band_col_e > 0) {
    /* every step in L1 (segments or column tiles), the row through
     * memory twice */
    cost /= KB_EFF_BAND_COL;
    x0 = fc[pl->band_f[0]] / KB_EFF_BAND_COL;
  } else if (eff < 1 && pl->band_seg_in > 0) {
    /* the segmented steps at KB_EFF_BAND_SEG, the others at the rows' rate */
    double c = cost;
    for (t = 0; t < pl->band_nsteps; t++)
      c += fc[pl->band_f[t]] * ((t >= pl->band_seg_t && t < pl->band_seg_e ? 1 / KB_EFF_BAND_SEG : 1 / eff) - 1);
    cost = c;
    x0 = fc[pl->band_f[0]] / (pl->band_seg_t == 0 ? KB_EFF_BAND_SEG : eff);
  } else {
    cost /= eff;
    x0 = fc[pl->band_f[0]] / eff;
  }
  /* The first step reads the row of X; from DRAM (kb_cpu_x_dram) it takes
   * at least the time of those lines (the later steps do not overlap it:
   * they read the row buffers).  Measured, double 16_8x8^6, one thread,
   * AMD Zen 5: the segments' first step (a straight digit of stride 64,
   * reading 2 MiB of X a row) 443 kcycles (TSC) a row, ~1.3M units,
   * priced 0.5M without this; the step after it (in L1) 299 kcycles.  The
   * tiled plans' first group pays KB_COST_DRAM_LINE the same way. */
  if (kb_cpu_x_dram(pb, esz)) {
    const double dram = (double)pb->K * (double)esz / 64.0 * KB_COST_DRAM_LINE;
    if (dram > x0)
      cost += dram - x0;
  }
  return td6 ? cost / KB_BAND_TD6_FIT : cost;
}

/* Whether digits fd..n-1 (at least two) may run as one dense step: its
 * B^T (the product of their p by their q in whole vectors) within
 * KB_BAND_DENSE_MAXB. */
static int kb_cpu_band_dense_ok(const kb_problem_t *pb, const kb_cpu_opt_t *kt, size_t esz, int fd)
{
  const int n = (int)pb->nfactors;
  int64_t P = 1, Q = 1;
  int f;
  if (fd < 0 || n - fd < 2)
    return 0;
  for (f = fd; f < n; f++) {
    P *= pb->p[f];
    Q *= pb->q[f];
    if (P > (int64_t)KB_BAND_DENSE_MAXB || Q > (int64_t)KB_BAND_DENSE_MAXB)
      return 0;
  }
  return (size_t)P * (size_t)kb_ceil_div(Q, kt->vl) * (size_t)kt->vl * esz <= KB_BAND_DENSE_MAXB;
}

/* The steps of pb's banded plan into pl and the model's cost per row:
 * every digit on its own (kb_cpu_band_steps) or the fastest ones as a
 * dense step, whichever the model prices lower (the test hook may force
 * either). */
static double kb_cpu_band_setup(const kb_problem_t *pb, const kb_cpu_opt_t *kt, size_t esz, kb_cpu_plan_t *pl)
{
  const int n = (int)pb->nfactors;
  const int force = kb_cpu_test_band_dense;
  double best = kb_cpu_band_steps(pb, kt, esz, n, pl), c;
  int fd, bestfd = n, t, half = -1;
  /* a half-vector step and the pair step the kernel fuses with it are
   * FMA-bound already: the model takes no dense step over them (double
   * 1024_4x4^6, one thread: dense 16 x 16 9.9 ms against 8.3; without the
   * pair step, half-vector steps of p = 2 do pay: float 1024_2x2^10 1.31
   * -> 0.99 ms) */
  for (t = 0; t + 1 < pl->band_nsteps; t++) {
    const int f = pl->band_f[t];
    if (pl->band_banded[t] && kt->band_half && 2 * pl->band_s[t] == kt->vl && pb->p[f] % 2 == 0 &&
        pl->band_banded[t + 1] && pl->band_s[t + 1] == 1 && 2 * pb->p[f + 1] == kt->vl)
      half = f;
  }
  for (fd = n - 2; force != 0 && kb_cpu_band_dense_ok(pb, kt, esz, fd); fd--) {
    if (force > 0 && n - fd != force)
      continue;
    /* factors of p > KB_BAND_MODEL_MAXP: the other plans (float 1024_7x7^4
     * with a dense 49 x 49 step 4% slower than in passes), unless the
     * step runs across slices (6^2: KB_BAND_TD6_FIT) */
    if (force < 0 && (fd <= half || (pb->p[fd] > KB_BAND_MODEL_MAXP && !kb_cpu_band_td(pb, kt, fd))))
      break;
    c = kb_cpu_band_steps(pb, kt, esz, fd, pl);
    if (c < best || force > 0) {
      best = c;
      bestfd = fd;
    }
  }
  if (bestfd == n)
    return kb_cpu_band_steps(pb, kt, esz, n, pl);
  return kb_cpu_band_steps(pb, kt, esz, bestfd, pl);
}

/* ---------------------------------------------------------------- plan */

/* What every plan needs: problems the fast path takes and whose buffers
 * can be addressed (byte counts below are formed in size_t; the rest goes
 * to the reference path, which reports them).  *smax: the longest vector. */
static kronblasStatus_t kb_cpu_plan_check(const kb_problem_t *pb, size_t esz, int64_t *smax)
{
  int64_t pre = pb->K, suf = 1, e, i;
  if (pb->nfactors > KB_CPU_PLAN_MAXF || pb->K == 0)
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  for (i = 0; i < pb->nfactors; i++)
    if (pb->p[i] == 0)
      return KRONBLAS_STATUS_NOT_SUPPORTED;
  *smax = pb->K;
  for (i = pb->nfactors - 1; i >= 0; i--) {
    pre /= pb->p[i];
    suf *= pb->q[i];
    if (pre * suf > *smax) *smax = pre * suf;
  }
  if (__builtin_mul_overflow(pb->m, *smax, &e) || (uint64_t)e > SIZE_MAX / 64 / esz)
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  return KRONBLAS_STATUS_SUCCESS;
}

static void kb_cpu_plan_log(const kb_cpu_plan_t *pl, const char *why, double cr, double cp)
{
  char buf[512];
  size_t o = 0;
  int k;
  if (kb_env()->log_level < KB_LOG_DEBUG)
    return;
  for (k = 0; pl->band && k < pl->band_nsteps; k++)
    if (pl->band_dense[k])
      o += (size_t)snprintf(buf + o, sizeof buf - o, " dense step of %d%s", pl->band_dense[k],
                            pl->band_tdense[k] ? " across slices" : "");
  if (pl->band && pl->band_seg_in > 0)
    o += (size_t)snprintf(buf + o, sizeof buf - o, " steps %d..%d in %d segments of %lld", pl->band_seg_t,
                          pl->band_seg_e - 1, pl->band_seg_n, (long long)pl->band_seg_in);
  if (pl->band && pl->band_col_e > 0)
    o += (size_t)snprintf(buf + o, sizeof buf - o, " steps %d..%d in column tiles%s", pl->band_col_t,
                          pl->band_col_e - 1,
                          pl->band_col_w > 1 ? " (wide, to Y)" : pl->band_col_ld > 0 ? " (rows padded)" : "");
  for (k = 0; k < pl->ngroups && o + 64 < sizeof buf; k++)
    o += (size_t)snprintf(buf + o, sizeof buf - o, " [%d..%d P=%lld S=%lld nb=%d]", pl->g[k].hi,
                          pl->g[k].lo, (long long)pl->g[k].P, (long long)pl->g[k].S, pl->g[k].nb);
  kb_log(KB_LOG_DEBUG, "cpu plan (%s): %s %s, %d threads%s%s%s, cost per row %.3g (slices) %.3g (rows),%s",
         why, pl->kt->name, pl->strategy == KB_CPU_PER_ROW ? "per-row" : "passes", pl->nthreads,
         pl->strategy == KB_CPU_PER_ROW ? (pl->split_rows ? " on rows" : " on tiles") : "",
         pl->band ? ", banded" : pl->inplace ? ", digits in place" : "", pl->pf_next_row ? ", next row read ahead" : "", cr, cp,
         buf);
}

/* The workspace layout of a plan whose strategy, groups, threads and
 * thread split are set: group descriptors, packed factors, shared buffers,
 * per-thread areas, staging. */
static void kb_cpu_plan_layout(const kb_problem_t *pb, size_t esz, kb_cpu_plan_t *pl)
{
  size_t off, tile_bytes = 0, tb;
  double fpb;
  int64_t i;
  int k;

  pl->esz = esz;
  pl->row_elems = 0;
  pl->buf_elems = 0;
  for (k = 1; k < pl->ngroups; k++)
    if (pl->g[k].Kin > pl->row_elems)
      pl->row_elems = pl->g[k].Kin;
  if (pl->strategy == KB_CPU_PASSES)
    pl->buf_elems = pl->row_elems * pb->m;
  for (k = 0; k < pl->ngroups; k++) {
    size_t b = 2 * kb_align64((size_t)pl->g[k].tile_elems * pl->g[k].nb * esz);
    if (b > tile_bytes)
      tile_bytes = b;
  }
  pl->off_groups = 0;
  off = kb_align64((size_t)pl->ngroups * sizeof(kb_cpu_group_t));
  for (i = 0; i < pb->nfactors; i++) {
    pl->off_pack[i] = off;
    off += kb_align64((size_t)(pb->p[i] * pb->q[i]) * esz);
  }
  if (pl->band) {
    /* banded steps hold coefficient tables instead (pack_band) */
    int t;
    for (t = 0; t < pl->band_nsteps; t++) {
      const int f = pl->band_f[t];
      if (pl->band_banded[t]) {
        pl->off_pack[f] = off;
        off += kb_align64((size_t)kb_cpu_band_coef_elems(pb->p[f], pl->band_s[t], pl->kt->vl) * esz);
      } else if (pl->band_dense[t]) {
        /* the Kronecker product of digits f.. transposed, rows of whole vectors */
        int64_t P = 1, Q = 1, j;
        for (j = f; j < f + pl->band_dense[t]; j++) {
          P *= pb->p[j];
          Q *= pb->q[j];
        }
        pl->off_pack[f] = off;
        off += kb_align64((size_t)(P * kb_ceil_div(Q, pl->kt->vl) * pl->kt->vl) * esz);
        if (pl->band_tdense[t]) {
          /* and each digit's A^T (kb_cpu_band_t.At) */
          pl->off_tdense[t] = off;
          off += kb_align64((size_t)(pl->band_dense[t] * pb->p[f] * pb->q[f]) * esz);
        }
      }
    }
    tile_bytes = 0;
  }
  if (pl->strategy == KB_CPU_PASSES) {
    int nbuf = pl->ngroups > 2 ? 2 : pl->ngroups - 1;
    for (k = 0; k < nbuf; k++) {
      pl->off_buf[k] = off;
      off += kb_align64((size_t)pl->buf_elems * esz);
    }
  } else if (!pl->split_rows && pl->ngroups > 1) {
    pl->buf_elems = pl->row_elems;
    for (k = 0; k < 2; k++) {
      pl->off_buf[k] = off;
      off += kb_align64((size_t)pl->row_elems * esz);
    }
  }
  pl->thread_tile_bytes = tile_bytes;
  pl->thread_bytes = tile_bytes;
  if (pl->strategy == KB_CPU_PER_ROW && pl->split_rows && pl->ngroups > 1)
    pl->thread_bytes += 2 * kb_align64((size_t)pl->row_elems * esz);
  if (pl->band)
    pl->thread_bytes = 2 * kb_align64((size_t)(2 * pl->band_pad + pl->band_buf_elems) * esz);
  pl->off_thread = off;
  off += (size_t)pl->nthreads * pl->thread_bytes;
  pl->total = off;
  pl->off_ovl = off;
  pl->ovl_bytes = kb_align64((size_t)pb->m * (size_t)pb->L * esz);
  /* Reading each thread's next row of X into L2 while the current one
   * computes (the first group of a row otherwise waits for memory) pays
   * where the row is still in L2 when its turn comes: rows of X
   * contiguous, and room for one beside the row buffers and tiles of the
   * current row (measured: 1024_16x16^4 double, 1.6 MiB of them, 4% slower
   * with it).  Room means at most 3/4 of L2: on AMD Zen 5 (1 MiB L2)
   * double 1024_8x8^5, whose row, row buffers and tiles fill 81% of it,
   * ran 18.2-19.6 ms without the read-ahead against 20.4-22.7 with it
   * (two threads, interleaved); the lines read ahead evict the row buffers
   * the later group still reads.  (Ice Lake's 1.25 MiB L2 took that row
   * at 65%.)  It is not priced: it changes no choice of the model.
   * Digit0 (group 0 in place) counts its two buffers of tile_elems, not
   * the nb-lane tile area the thread is given, where the row carries
   * fewer than 8 FMAs per byte of X (fpb).  Counted by its area, double
   * 1024_8x8^5 on Emerald Rapids (5 FMAs a byte; 256 KiB row, 512 KiB of
   * buffers, 2 MiB L2) had no read-ahead; with it its first factor went
   * from 59-73 to 46-57 kcycles a row (TSC, two threads) and the call
   * ran 0.80-1.04x (12 interleaved pairs, 10 faster, median 0.92x; 46%
   * -> 49% of the floor, medians).  With more FMAs X's stream hides
   * behind them and the lines read ahead only cost: double 1024_16x16^4
   * (8 a byte; 512 KiB row, 1 MiB of buffers) ran 0.80-1.24x with it,
   * slower in 4 of 6 pairs, and float 1024_16x16^4 (16 a byte) 0.92-1.15x,
   * slower in 3 of 5. */
  tb = 0;
  fpb = 0;
  for (k = 0; k < pl->ngroups; k++) {
    int64_t len = pl->g[k].Kin;
    for (i = pl->g[k].hi; i >= pl->g[k].lo; i--) {
      len = len / pb->p[i] * pb->q[i];
      fpb += (double)len * (double)pb->p[i] / ((double)pb->K * (double)esz);
    }
  }
  for (k = 0; k < pl->ngroups; k++) {
    const int d0 = pl->inplace && k == 0 && fpb < 8;
    const size_t b = 2 * kb_align64((size_t)pl->g[k].tile_elems * (d0 ? 1 : pl->g[k].nb) * esz);
    if (b > tb)
      tb = b;
  }
  pl->pf_next_row = !pl->band && pl->strategy == KB_CPU_PER_ROW && pl->split_rows && pb->m > 1 &&
                    pb->xs_k == 1 &&
                    4 * ((size_t)pb->K * esz + tb + 2 * (size_t)pl->row_elems * esz) <= 3 * kb_cpu_l2;
  /* switched off only where it would be on, so that equal plans compare equal */
  pl->no_read_ahead = pl->no_read_ahead && pl->pf_next_row;
  if (pl->no_read_ahead)
    pl->pf_next_row = 0;
  /* A row read ahead sits in L2; digit0's first factor then still reads
   * it into L1 ahead of its micro-tiles (its own prefetch four slice
   * blocks ahead, kept on) where the row has fewer than 8 FMAs per byte
   * of X: its micro-tiles wait on L2 otherwise.  Measured on Emerald
   * Rapids, two threads, interleaved: double 1024_8x8^5 (5 FMAs a byte)
   * 0.936x against the library without it (30 pairs, 21 faster; the
   * first factor 68-69 -> 53-60 kcycles a row, TSC).  Rows with more FMAs
   * a byte (double 1024_32x32^3: 12) are left as they were (not
   * measured). */
  pl->d0_pf_l1 = pl->pf_next_row && pl->inplace && fpb < 8;
  /* A row too long to be read ahead whole is still read ahead a chunk at
   * a time by digit0 (a group of several factors over a row of several
   * chunks, threads on rows, fewer than 8 FMAs per byte of X as above):
   * chunk c + 1 comes into L2 while chunk c computes, and digit0's
   * intermediates alternate between one of its buffers and the chunk of
   * the row buffer it writes at the end, so that the chunk read ahead
   * takes the other buffer's room in L2 rather than the row buffer's.
   * Room: two chunks of X and two of the buffers within 3/4 of L2.
   * Measured on Emerald Rapids, double 16_8x8^6 (6 FMAs a byte, 2 MiB
   * rows of 8 chunks of 256 KiB), two threads, 300 calls alternating
   * inside one process (2026-11-27): the read-ahead alone 0.972-0.978x
   * (227 and 228 of 300 faster), the second buffer in the row buffer on
   * top 0.982-0.987x (187-212 of 300); bench runs in alternating pairs
   * in the session's doc.  Rows of more FMAs a byte (double 16_16x16^5:
   * 10) are left as they were (not measured). */
  pl->d0_next_chunk = 0;
  if (pl->inplace && pl->strategy == KB_CPU_PER_ROW && pl->split_rows && !pl->pf_next_row && pl->ngroups > 1 &&
      pl->g[0].hi > pl->g[0].lo && pl->g[0].S > 1 && fpb < 8)
    pl->d0_next_chunk = 4 * (2 * (size_t)(pl->g[0].P + pl->g[0].tile_elems) * esz) <= 3 * kb_cpu_l2;
  /* Outputs much larger than the last-level cache are written around it:
   * nobody reads them before they would be evicted anyway, and a
   * non-temporal store saves reading each line for ownership.  So are
   * outputs that take the whole LLC together with X (twice the operand
   * share, kb_cpu_llc_operands): then neither stays from one call to the
   * next either.  Measured on AMD Zen 5 (32 MiB L3, 16 MiB operand
   * share), two threads, Y around the cache against through it,
   * alternating single bench runs (ms): float 1024_64x64^2 (16 + 16 MiB)
   * 2.54-3.00 against 3.18-3.48 (3 pairs; 2.33-2.92 against 3.07-3.23 in
   * 3 more), 16_64x64^3 3.11-3.19 against 3.26-3.49, double 1_8x8^7
   * 2.07-2.27 against 2.33-2.38; float 256_128x128^2 and 16_8x8^6 even.
   * Float 1_8x8^7 (8 + 8 MiB: half the LLC) ran 0.88-0.93x streamed too
   * but keeps Y cached: there a caller's next read of Y may still find
   * it. */
  {
    const size_t xb = (size_t)pb->m * (size_t)pb->K * esz, yb = (size_t)pb->m * (size_t)pb->L * esz;
    pl->y_stream = yb > kb_cpu_llc_operands() || xb + yb >= 2 * kb_cpu_llc_operands();
  }
  pl->buf_stream = (size_t)pl->buf_elems * esz > kb_cpu_llc_operands();
}

void kb_cpu_plan_opts_default(kb_cpu_plan_opts_t *o, int nthreads)
{
  memset(o, 0, sizeof *o);
  o->strategy = -1;
  o->split_rows = -1;
  o->inplace = -1;
  o->band = -1;
  o->nthreads = nthreads;
}

kronblasStatus_t kb_cpu_plan_with(const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                                  const kb_cpu_plan_opts_t *o, kb_cpu_plan_t *pl)
{
  const size_t esz = kb_type_size(pb->type);
  const int vl = kt->vl, m1 = pb->m == 1;
  const int rows_layout = pb->x_contig_k || m1;
  kb_cpu_groups_t gr, gp, gt, gi;
  kb_cpu_model_t M;
  kb_problem_t norm;
  int use_rows = 0, nbr, inplace = 0;
  double cr = 1e300, cp = 1e300;
  int64_t smax, xld, yld;

  pthread_once(&kb_cpu_isa_once, kb_cpu_isa_pick);
  memset(pl, 0, sizeof *pl);
  KB_CHECK(kb_cpu_plan_check(pb, esz, &smax));
  /* The plan depends on the layout, not on the leading dimensions: the
   * model sees those kronblasGetWorkspaceSize assumes (max(K, m) for X,
   * max(L, m) for Y), so that the workspace it reports is what a call with
   * any leading dimension plans for, and measured plans share a key. */
  norm = *pb;
  xld = pb->K > pb->m ? pb->K : pb->m;
  yld = pb->L > pb->m ? pb->L : pb->m;
  xld = xld > 1 ? xld : 1;
  yld = yld > 1 ? yld : 1;
  norm.xs_m = pb->x_contig_k ? xld : 1;
  norm.xs_k = pb->x_contig_k ? 1 : xld;
  norm.ys_m = pb->y_contig_l ? yld : 1;
  norm.ys_l = pb->y_contig_l ? 1 : yld;
  pb = &norm;

  memset(&M, 0, sizeof M);
  M.pb = pb;
  M.vl = vl;
  M.cl = vl;
  M.esz = esz;
  M.l1 = kb_cpu_l1 * 3 / 4;
  M.l2 = kb_cpu_l2 / 2;
  M.rowbuf_in_l2 = 2 * (size_t)smax * esz <= kb_cpu_l2 / 2;
  /* buffers between half of L2 and all of it keep KB_COST_PASS, which
   * chose the faster split there (1024_6x6^6 double, 746 KiB: three-factor
   * L2 groups 3% faster than L1 pairs) */
  M.rowbuf_near_l2 = 2 * (size_t)smax * esz > kb_cpu_l2 &&
                     (2 * (size_t)smax * esz <= 2 * kb_cpu_l2 || kb_cpu_rates->rowbuf_l3_near) &&
                     2 * (size_t)smax * esz * (size_t)(o->nthreads > 0 ? o->nthreads : 1) <=
                         kb_cpu_llc / 2;
  M.rowbuf_beyond_l2 = 2 * (size_t)smax * esz > kb_cpu_l2;
  M.max_fuse = o->max_fuse > 0 ? o->max_fuse : 0;
  {
    const int nt = o->nthreads > 0 ? o->nthreads : 1;
    M.rows_split = o->split_rows >= 0 ? o->split_rows != 0 : kb_cpu_split_rows_default(pb, nt);
    M.many_rows = pb->m >= 4 * nt;
  }
  M.force_nvt = o->nvt;
  /* X read from DRAM by each row's first group (kb_cpu_x_dram) */
  M.x_dram = kb_cpu_x_dram(pb, esz);

  /* slices as lanes, every row through all groups (PER_ROW) */
  if ((rows_layout && o->strategy != KB_CPU_PASSES) || o->strategy == KB_CPU_PER_ROW) {
    M.lanes_rows = 0;
    M.x_kk_unit = pb->xs_k == 1;
    M.y_lane_unit = pb->ys_l == 1;
    const int ip_ok = o->inplace != 0 && kb_cpu_inplace_ok(pb, kt);
    /* digits in place: no transposes, lanes contiguous after the first
     * group; where asked for, taken whenever it has a plan */
    if (ip_ok) {
      M.inplace = 1;
      if (kb_cpu_groups(&M, &gi) == 0) {
        cr = gi.cost;
        gr = gi;
        inplace = 1;
      }
      M.inplace = 0;
    }
    if ((o->inplace != 1 || !inplace) && kb_cpu_groups(&M, &gt) == 0 && (!inplace || gt.cost <= cr)) {
      cr = gt.cost;
      gr = gt;
      inplace = 0;
    }
  }
  /* rows as lanes, one pass per group (PASSES) */
  if ((!(rows_layout && m1) && o->strategy != KB_CPU_PER_ROW) || o->strategy == KB_CPU_PASSES) {
    M.lanes_rows = 1;
    M.x_lane_unit = pb->xs_m == 1;
    M.x_kk_unit = pb->xs_k == 1;
    M.y_lane_unit = pb->ys_m == 1;
    M.y_ll_unit = pb->ys_l == 1;
    M.x_row_bytes = pb->xs_k * (int64_t)esz;
    M.y_row_bytes = pb->ys_l * (int64_t)esz;
    M.buf_row_bytes = pb->m * (int64_t)esz;
    /* wide tiles (up to whole rows of a column-layout X) share TLB walks */
    for (nbr = vl * 4 * 16; nbr >= vl; nbr /= 2) {
      if (o->nb_rows > 0 ? nbr != o->nb_rows : nbr > vl && nbr / 2 >= pb->m)
        continue;
      M.nb_rows = nbr;
      if (kb_cpu_groups(&M, &gt) == 0 && gt.cost < cp) {
        cp = gt.cost;
        gp = gt;
      }
    }
  }
  /* the banded plan (rows as lanes of nothing: a whole row per thread);
   * the model takes it where it is cheaper and every thread has rows */
  /* constraints of the tuner's other candidates (max_fuse, tile widths,
   * the tile-sharing split, digits in place, no read-ahead) ask for the
   * other plans: the banded one only where asked for or left open */
  if (o->band != 0 && kb_cpu_band_ok(pb, kt) &&
      (o->band == 1 || (o->strategy != KB_CPU_PASSES && o->max_fuse == 0 && o->nvt == 0 && o->nb_rows == 0 &&
                        o->split_rows != 0 && o->inplace != 1 && !o->no_read_ahead))) {
    const int nt = o->nthreads > 0 ? o->nthreads : 1;
    const double cb = kb_cpu_band_setup(pb, kt, esz, pl);
    if (!o->quiet)
      kb_log(KB_LOG_DEBUG, "cpu plan: banded cost per row %.3g", cb);
    if (o->band == 1 || (cb < cr && cb < cp && (nt == 1 || pb->m >= 2 * nt))) {
      pl->band = 1;
      pl->cost = cb;
      pl->strategy = KB_CPU_PER_ROW;
      pl->ngroups = 1;
      kb_cpu_gplan_geom(pb, (int)pb->nfactors - 1, 0, pb->K, &pl->g[0]);
      pl->g[0].nb = vl;
      pl->kt = kt;
      pl->nthreads = nt;
      pl->split_rows = 1;
      pl->no_read_ahead = 0;
      kb_cpu_plan_layout(pb, esz, pl);
      if (!o->quiet)
        kb_cpu_plan_log(pl, "model", cr, cp);
      return KRONBLAS_STATUS_SUCCESS;
    }
  }
  if (o->strategy == KB_CPU_PER_ROW && cr < 1e300)
    use_rows = 1;
  else if (o->strategy == KB_CPU_PASSES && cp < 1e300)
    use_rows = 0;
  else if (cr >= 1e300 && cp >= 1e300)
    return KRONBLAS_STATUS_NOT_SUPPORTED;
  else
    use_rows = cr <= cp;
  pl->cost = use_rows ? cr : cp;
  if (use_rows) {
    pl->strategy = KB_CPU_PER_ROW;
    pl->ngroups = gr.ng;
    memcpy(pl->g, gr.g, sizeof(kb_cpu_gplan_t) * gr.ng);
  } else {
    pl->strategy = KB_CPU_PASSES;
    pl->ngroups = gp.ng;
    memcpy(pl->g, gp.g, sizeof(kb_cpu_gplan_t) * gp.ng);
  }

  pl->kt = kt;
  pl->nthreads = o->nthreads > 0 ? o->nthreads : 1;
  if (pl->strategy != KB_CPU_PER_ROW)
    pl->split_rows = 0;
  else if (o->split_rows >= 0)
    pl->split_rows = o->split_rows != 0;
  else
    pl->split_rows = kb_cpu_split_rows_default(pb, pl->nthreads);
  pl->no_read_ahead = o->no_read_ahead != 0;
  pl->inplace = use_rows && inplace;
  kb_cpu_plan_layout(pb, esz, pl);
  if (!o->quiet)
    kb_cpu_plan_log(pl, "model", cr, cp);
  return KRONBLAS_STATUS_SUCCESS;
}

static kronblasStatus_t kb_cpu_plan_logged(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int nthreads,
                                           int quiet, kb_cpu_plan_t *pl)
{
  kb_cpu_plan_opts_t o;
  kb_cpu_plan_opts_default(&o, nthreads);
  o.max_fuse = kb_cpu_test_max_fuse;
  o.strategy = kb_cpu_test_strategy;
  o.inplace = kb_cpu_test_inplace;
  o.band = kb_cpu_test_band;
  o.quiet = quiet;
  return kb_cpu_plan_with(pb, kt, &o, pl);
}

kronblasStatus_t kb_cpu_plan(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int nthreads,
                             kb_cpu_plan_t *pl)
{
  return kb_cpu_plan_logged(pb, kt, nthreads, 0, pl);
}

kronblasStatus_t kb_cpu_plan_quiet(const kb_problem_t *pb, const kb_cpu_opt_t *kt, int nthreads,
                                   kb_cpu_plan_t *pl)
{
  return kb_cpu_plan_logged(pb, kt, nthreads, 1, pl);
}

/* Largest pair of tile buffers an explicit plan may ask for per thread:
 * what the model allows a single large factor. */
#define KB_CPU_SPEC_MAX_TILE ((size_t)128 << 20)

kronblasStatus_t kb_cpu_plan_explicit(const kb_problem_t *pb, const kb_cpu_opt_t *kt,
                                      const kb_cpu_plan_spec_t *sp, kb_cpu_plan_t *pl)
{
  const size_t esz = kb_type_size(pb->type);
  const int n = (int)pb->nfactors;
  int64_t smax, Kin = pb->K, i;
  int k, next_hi = n - 1, e;
  kronblasStatus_t st;

  pthread_once(&kb_cpu_isa_once, kb_cpu_isa_pick);
  memset(pl, 0, sizeof *pl);
  st = kb_cpu_plan_check(pb, esz, &smax);
  if (st != KRONBLAS_STATUS_SUCCESS)
    return KRONBLAS_STATUS_INVALID_VALUE;
  if ((sp->strategy != KB_CPU_PASSES && sp->strategy != KB_CPU_PER_ROW) ||
      (sp->split_rows != 0 && sp->split_rows != 1) ||
      (sp->strategy == KB_CPU_PASSES && sp->split_rows != 0) ||
      (sp->no_read_ahead != 0 && sp->no_read_ahead != 1) ||
      (sp->inplace != 0 && sp->inplace != 1) ||
      (sp->inplace && (sp->strategy != KB_CPU_PER_ROW || !kb_cpu_inplace_ok(pb, kt))) ||
      (sp->band != 0 && sp->band != 1) ||
      /* banded: one group of every factor, whole rows per thread, vl lanes */
      (sp->band && (!kb_cpu_band_ok(pb, kt) || sp->strategy != KB_CPU_PER_ROW || sp->split_rows != 1 ||
                    sp->inplace || sp->no_read_ahead || sp->ngroups != 1 || sp->hi[0] != n - 1 ||
                    sp->lo[0] != 0 || sp->nb[0] != kt->vl)) ||
      sp->nthreads < 1 || sp->nthreads > KB_CPU_SPEC_MAX_THREADS ||
      sp->ngroups < 1 || sp->ngroups > n)
    return KRONBLAS_STATUS_INVALID_VALUE;
  for (k = 0; k < sp->ngroups; k++) {
    const int hi = sp->hi[k], lo = sp->lo[k], nb = sp->nb[k];
    size_t tb;
    /* groups cover the chain in order, each within the kernels' limit */
    if (hi != next_hi || lo < 0 || lo > hi || hi - lo + 1 > KB_CPU_GROUP_MAXF)
      return KRONBLAS_STATUS_INVALID_VALUE;
    /* lanes: vl times a power of two, as wide as the model would go
     * (PER_ROW: KB_CPU_NVT_WIDE vectors for later in-place groups) */
    for (e = 0; e <= (sp->strategy == KB_CPU_PASSES ? 6 : 4); e++)
      if (nb == kt->vl << e)
        break;
    if (e > (sp->strategy == KB_CPU_PASSES ? 6 : 4))
      return KRONBLAS_STATUS_INVALID_VALUE;
    kb_cpu_gplan_geom(pb, hi, lo, Kin, &pl->g[k]);
    pl->g[k].nb = nb;
    if (__builtin_mul_overflow((size_t)pl->g[k].tile_elems, (size_t)nb * esz * 2, &tb) ||
        tb > KB_CPU_SPEC_MAX_TILE)
      return KRONBLAS_STATUS_INVALID_VALUE;
    for (i = hi; i >= lo; i--)
      Kin = Kin / pb->p[i] * pb->q[i];
    next_hi = lo - 1;
  }
  if (next_hi != -1)
    return KRONBLAS_STATUS_INVALID_VALUE;
  pl->kt = kt;
  pl->strategy = sp->strategy;
  pl->split_rows = sp->split_rows;
  pl->nthreads = sp->nthreads;
  pl->ngroups = sp->ngroups;
  pl->no_read_ahead = sp->no_read_ahead;
  pl->inplace = sp->inplace;
  if (sp->band) {
    kb_cpu_band_setup(pb, kt, esz, pl);
    pl->band = 1;
  }
  kb_cpu_plan_layout(pb, esz, pl);
  kb_cpu_plan_log(pl, "explicit", 0, 0);
  return KRONBLAS_STATUS_SUCCESS;
}

void kb_cpu_plan_spec_of(const kb_cpu_plan_t *pl, kb_cpu_plan_spec_t *sp)
{
  int k;
  memset(sp, 0, sizeof *sp);
  sp->strategy = pl->strategy;
  sp->split_rows = pl->split_rows;
  sp->nthreads = pl->nthreads;
  sp->ngroups = pl->ngroups;
  sp->no_read_ahead = pl->no_read_ahead;
  sp->inplace = pl->inplace;
  sp->band = pl->band;
  for (k = 0; k < pl->ngroups; k++) {
    sp->hi[k] = pl->g[k].hi;
    sp->lo[k] = pl->g[k].lo;
    sp->nb[k] = pl->g[k].nb;
  }
}

int kb_cpu_inplace_ok(const kb_problem_t *pb, const kb_cpu_opt_t *kt)
{
  /* digit0 takes real types, rows of X and of Y contiguous (a plan's
   * leading dimensions do not matter), and whole vectors of outputs */
  return kt != NULL && kt->digit0 != NULL && kt->pack_t != NULL && pb->nfactors >= 1 &&
         pb->x_contig_k && pb->y_contig_l && pb->q[pb->nfactors - 1] % kt->vl == 0;
}
