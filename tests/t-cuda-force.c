/* t-cuda-force.c - what the GPU tests that force plans share (#included
 * after t-cuda-util.c, like it): plans are planted through a wisdom file of
 * one record written for a case's key and imported on the test's GPU handle
 * in MEASURE mode; afterwards the handle must still hold that one plan, so
 * nothing was tuned instead.  Also the log file of the process (debug
 * level), from which tests read the model's plans.  ts_setup makes the
 * test's scratch directory and reads the device's wisdom header;
 * ts_teardown removes them. */
#include "kb_testwisdom.h"

#include <sys/stat.h>
#include <unistd.h>

static char ts_dir[64], ts_header[8192], ts_log[96];

/* A wisdom file of one record for the handle's identity (ts_header). */
static void ts_write_wisdom(const char *path, const char *key, const char *plan)
{
  char buf[16384];
  int nb = snprintf(buf, sizeof buf, "%srecords 1\nchecksum fnv1a64 0000000000000000\n%s\t%s\n", ts_header,
                    key, plan);
  if (nb < 0 || (size_t)nb >= sizeof buf)
    return;
  tw_resign(buf);
  tw_write(path, buf, (size_t)nb);
}

/* What the log file gained since it was from bytes long. */
static char *ts_log_since(long from)
{
  size_t n;
  char *b = tw_read(ts_log, &n), *r;
  if (b == NULL || from < 0 || (size_t)from > n) {
    free(b);
    return NULL;
  }
  r = strdup(b + from);
  free(b);
  return r;
}

static long ts_size(const char *path)
{
  size_t n;
  char *b = tw_read(path, &n);
  free(b);
  return b != NULL ? (long)n : 0;
}

/* The CUDA backend's key for a case (lib/cuda_tune.c). */
static void ts_key(const tc_case_t *c, char *key, size_t size)
{
  int xk = (c->side == KRONBLAS_SIDE_LEFT) == (c->transX == KRONBLAS_OP_N);
  size_t o = (size_t)snprintf(key, size, "t%d xk%d yl%d dp%d pol%d m%lld ", (int)c->type, xk,
                              c->side == KRONBLAS_SIDE_LEFT, c->dev_ptr, c->policy, (long long)c->m);
  int64_t i;
  for (i = 0; i < c->n && o < size; i++)
    o += (size_t)snprintf(key + o, size - o, "%s%lldx%lld", i ? "," : "", (long long)c->p[i],
                          (long long)c->q[i]);
}

/* The plans the handle holds now, as an exported file's text. */
static char *ts_export(void)
{
  char path[128];
  snprintf(path, sizeof path, "%s/out.wisdom", ts_dir);
  unlink(path);
  if (kronblasExportWisdom(tc_gpu, path) != KRONBLAS_STATUS_SUCCESS)
    return NULL;
  return tw_read(path, NULL);
}

/* Imports plan for the case's key on a handle without other plans; 1 if the
 * handle then holds it. */
static int ts_import(const char *key, const char *plan)
{
  char path[128], *b;
  int ok;
  snprintf(path, sizeof path, "%s/in.wisdom", ts_dir);
  kronblasForgetWisdom(tc_gpu);
  ts_write_wisdom(path, key, plan);
  if (kronblasImportWisdom(tc_gpu, path) != KRONBLAS_STATUS_SUCCESS)
    return 0;
  b = ts_export();
  ok = b != NULL && strstr(b, "\nrecords 1\n") != NULL && strstr(b, plan) != NULL;
  free(b);
  unlink(path);
  return ok;
}

/* Runs c with plan forced: two TAP lines. */
static void ts_forced(tc_case_t *c, const char *plan)
{
  char key[1024], *b;
  int imported;
  tc_case_finish(c);
  ts_key(c, key, sizeof key);
  imported = ts_import(key, plan);
  c->tune = 1;
  tc_run(c);
  b = ts_export();
  tap_ok(imported && b != NULL && strstr(b, "\nrecords 1\n") != NULL && strstr(b, plan) != NULL,
         "  ... ran the imported plan '%s' (key '%s')", plan, key);
  free(b);
  kronblasForgetWisdom(tc_gpu);
}


/* Runs c (its TAP lines) and returns what the log gained meanwhile (the
 * plans and costs at debug level); NULL if unreadable.  Free it. */
static char *ts_run_log(tc_case_t *c)
{
  const long mark = ts_size(ts_log);
  tc_run(c);
  return ts_log_since(mark);
}

/* Plans that must be skipped on import (malformed, or not fitting their
 * key): one TAP line each. */
typedef struct {
  const char *key, *plan, *why;
} ts_bad_t;

static void ts_refused(const ts_bad_t *bad, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++)
    tap_ok(!ts_import(bad[i].key, bad[i].plan), "import skips '%s' for '%s' (%s)", bad[i].plan, bad[i].key,
           bad[i].why);
}

/* Scratch directory NAME.XXXXXX, the debug log in it, the handles, and the
 * header of this device's wisdom files (a plan-less export).  Bails out
 * (exit 1) where any is missing; SKIPs the whole test without a device. */
static void ts_setup(const char *name)
{
  char path[128], *b, *r;
  int n = 0;
  /* Line-buffered: a crash still shows the last case run. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    tap_skip_all("no CUDA device");
  }
  snprintf(ts_dir, sizeof ts_dir, "%s.XXXXXX", name);
  if (mkdtemp(ts_dir) == NULL) {
    printf("Bail out! no scratch directory\n");
    exit(1);
  }
  /* The plans of model calls reach the log at debug level. */
  snprintf(ts_log, sizeof ts_log, "%s/log", ts_dir);
  setenv("KRONBLAS_LOG_LEVEL", "debug", 1);
  setenv("KRONBLAS_LOG_FILE", ts_log, 1);
  tc_seed();
  tc_handles();
  snprintf(path, sizeof path, "%s/h.wisdom", ts_dir);
  b = kronblasExportWisdom(tc_gpu, path) == KRONBLAS_STATUS_SUCCESS ? tw_read(path, NULL) : NULL;
  r = b != NULL ? strstr(b, "records 0\n") : NULL;
  if (r == NULL || (size_t)(r - b) >= sizeof ts_header) {
    printf("Bail out! no wisdom header from a plan-less export\n");
    exit(1);
  }
  memcpy(ts_header, b, (size_t)(r - b));
  ts_header[r - b] = '\0';
  free(b);
  unlink(path);
}

static void ts_teardown(void)
{
  tc_handles_done();
  unlink(ts_log);
  rmdir(ts_dir);
}
