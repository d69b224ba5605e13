/* t-cpu-env.c - KRONBLAS_CPU_ISA selects the CPU kernels: with it set to
 * "generic" (present in every build) the library says so in its log and
 * computes the right result; the log is how a forced ISA is seen from
 * outside, so this also guards the other t-cpu-* tests' premise. */
#include <kronblas.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "kb_oracle.h"

int main(void)
{
  const uint64_t seed = kb_test_seed();
  char logname[] = "/tmp/kb-cpu-env-XXXXXX";
  char line[256];
  kronblasHandle_t h;
  kb_rng_t r;
  const int64_t m = 5, n = 3, p[3] = { 3, 4, 5 }, q[3] = { 5, 2, 3 }, ldf[3] = { 5, 2, 3 };
  const int64_t K = 60, L = 30;
  float X[5 * 60], Y[30 * 5], f0[15], f1[8], f2[15];
  const float *F[3] = { f0, f1, f2 };
  const float one = 1, zero = 0;
  long double ref[30 * 5], mag[30 * 5];
  int fd, found = 0, i, amd = 0, intel = 0, family = -1, model = -1;
  unsigned long llc = 0, sys_l3 = 0;
  char rates[32] = "";
  FILE *f;
  kronblasStatus_t st;
  int64_t nbad;

  printf("# seed %" PRIu64 " (KRONBLAS_TEST_SEED=%" PRIu64 " reproduces this run)\n", seed, seed);
  fd = mkstemp(logname);
  if (fd < 0)
    tap_skip_all("cannot create a log file");
  close(fd);
  /* before the first library call: the environment is read once */
  setenv("KRONBLAS_CPU_ISA", "generic", 1);
  setenv("KRONBLAS_LOG_LEVEL", "info", 1);
  setenv("KRONBLAS_LOG_FILE", logname, 1);
  tap_plan(5);
  kb_rng_seed(&r, seed);
  kb_rng_fill(&r, KRONBLAS_R_32F, X, m * K);
  kb_rng_fill(&r, KRONBLAS_R_32F, f0, 15);
  kb_rng_fill(&r, KRONBLAS_R_32F, f1, 8);
  kb_rng_fill(&r, KRONBLAS_R_32F, f2, 15);
  kb_oracle_poison(KRONBLAS_R_32F, Y, L * m);
  st = kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU);
  if (st == KRONBLAS_STATUS_SUCCESS)
    st = kronblasSgekmm_64(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, q, &one, X, K,
                           F, ldf, &zero, Y, L);
  tap_ok(st == KRONBLAS_STATUS_SUCCESS, "sgekmm with KRONBLAS_CPU_ISA=generic: %s", kronblasGetStatusName(st));
  kb_oracle_gekmm(KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, m, n, p, q, &one, X, K,
                  (const void *const *)F, ldf, &zero, Y, L, ref, mag);
  nbad = kb_oracle_compare(KRONBLAS_R_32F, KRONBLAS_SIDE_LEFT, m, L, Y, L, ref, mag, 15, 2.0, NULL);
  tap_ok(nbad == 0, "result against the explicit product: %" PRId64 " wrong", nbad);
  f = fopen(logname, "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (strstr(line, "cpu kernels: generic (KRONBLAS_CPU_ISA)") != NULL) {
      const char *c = strstr(line, "LLC ");
      const char *mr = strstr(line, "model rates ");
      found = 1;
      if (c != NULL)
        llc = strtoul(c + 4, NULL, 10);
      if (mr != NULL && sscanf(mr + 12, "%31s", rates) != 1)
        rates[0] = '\0';
    }
  if (f != NULL)
    fclose(f);
  tap_ok(found, "the log names the forced kernels (\"cpu kernels: generic (KRONBLAS_CPU_ISA)\")");
  /* the planner's last-level cache is at most the L3 instance Linux shows
   * for CPU 0 (glibc's sysconf gives AMD EPYC's whole package: 384 MiB
   * where a core complex has 32) */
  for (i = 0; i < 16; i++) {
    char path[96];
    long level = 0;
    FILE *c;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if ((c = fopen(path, "r")) == NULL)
      break;
    if (fscanf(c, "%ld", &level) != 1)
      level = 0;
    fclose(c);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (level == 3 && (c = fopen(path, "r")) != NULL) {
      char unit = 'K';
      if (fscanf(c, "%lu%c", &sys_l3, &unit) < 1)
        sys_l3 = 0;
      sys_l3 = unit == 'M' ? sys_l3 << 10 : unit == 'K' ? sys_l3 : sys_l3 >> 10;
      fclose(c);
      break;
    }
  }
  if (sys_l3 == 0)
    tap_skip("no L3 in /sys/devices/system/cpu/cpu0/cache (the log says LLC %lu KiB)", llc);
  else
    tap_ok(llc > 0 && llc <= sys_l3, "the planner's LLC (%lu KiB, from the log) within CPU 0's L3 (%lu KiB)", llc,
           sys_l3);
  /* the model's per-CPU rates (lib/cpu_plan.c, from CPUID): AMD Zen 5's
   * (family 26) on AMD family 26 and later, Zen 4's on AMD family 25
   * (Zen 3 and 4), Emerald Rapids' on Intel
   * family 6 model 207, the default (Ice Lake's) elsewhere; read here
   * from /proc/cpuinfo, a path of its own */
  f = fopen("/proc/cpuinfo", "r");
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    if (!strncmp(line, "vendor_id", 9)) {
      amd = strstr(line, "AuthenticAMD") != NULL;
      intel = strstr(line, "GenuineIntel") != NULL;
    } else if (!strncmp(line, "cpu family", 10) && strchr(line, ':') != NULL) {
      family = atoi(strchr(line, ':') + 1);
    } else if (!strncmp(line, "model", 5) && (line[5] == '\t' || line[5] == ':') && strchr(line, ':') != NULL) {
      /* "model", not "model name" */
      model = atoi(strchr(line, ':') + 1);
      break;
    }
  }
  if (f != NULL)
    fclose(f);
  if (family < 0)
    tap_skip("no cpu family in /proc/cpuinfo (the log says model rates \"%s\")", rates);
  else
    tap_ok(!strcmp(rates, amd && family >= 26   ? "zen5"
                          : amd && family == 25 ? "zen4"
                          : intel && family == 6 && model == 207 ? "emr"
                                                                 : "default"),
           "the model's rates (\"%s\", from the log) are this CPU's (%s family %d model %d)", rates,
           amd ? "AMD" : intel ? "Intel" : "neither AMD nor Intel", family, model);
  kronblasDestroy(h);
  unlink(logname);
  return tap_done();
}
