/* env.c - the only place libkronblas reads environment variables, and the
 * logger they configure. */
#include "kb_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static kb_env_t kb_env_value;
static pthread_once_t kb_env_once = PTHREAD_ONCE_INIT;
static FILE *kb_log_stream;
static pthread_mutex_t kb_log_lock = PTHREAD_MUTEX_INITIALIZER;

static int kb_parse_log_level(const char *s)
{
  if (s == NULL || *s == '\0') return KB_LOG_ERROR;
  if (s[0] >= '0' && s[0] <= '9') {
    int v = atoi(s);
    return v < KB_LOG_NONE ? KB_LOG_NONE : v > KB_LOG_DEBUG ? KB_LOG_DEBUG : v;
  }
  if (!strcasecmp(s, "none") || !strcasecmp(s, "off")) return KB_LOG_NONE;
  if (!strcasecmp(s, "error")) return KB_LOG_ERROR;
  if (!strcasecmp(s, "warn") || !strcasecmp(s, "warning")) return KB_LOG_WARN;
  if (!strcasecmp(s, "info")) return KB_LOG_INFO;
  if (!strcasecmp(s, "debug") || !strcasecmp(s, "trace")) return KB_LOG_DEBUG;
  return KB_LOG_ERROR;
}

/* KRONBLAS_CPU_SMALL_WORK: a CPU call whose work the planner prices below
 * this many vector-FMA slots on one thread (all batch entries together)
 * runs on one thread whatever the handle's or OpenMP's thread count, which
 * stays a maximum; 0 never cuts the count down (the tests that compare
 * thread counts set it, to keep the team paths under test); unset, empty,
 * negative or not a number: the default (KB_CPU_SMALL_WORK in
 * lib/cpu_backend.c, about 100 us of one core).  Why: a second thread gains
 * at most tens of microseconds on such calls, and one that has gone to
 * sleep can take milliseconds to wake on a virtual machine. */
static double kb_parse_small_work(const char *s)
{
  char *end;
  double v;
  if (s == NULL || *s == '\0')
    return -1;
  v = strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= 0))
    return -1;
  return v;
}

static void kb_env_read(void)
{
  kb_env_t *e = &kb_env_value;
  e->log_level = kb_parse_log_level(getenv("KRONBLAS_LOG_LEVEL"));
  e->log_file = getenv("KRONBLAS_LOG_FILE");
  e->backend = getenv("KRONBLAS_BACKEND");
  e->cpu_isa = getenv("KRONBLAS_CPU_ISA");
  e->tune = getenv("KRONBLAS_TUNE");
  e->wisdom_file = getenv("KRONBLAS_WISDOM_FILE");
  e->cache_dir = getenv("KRONBLAS_CACHE_DIR");
  e->home = getenv("HOME");
  e->xdg_cache_home = getenv("XDG_CACHE_HOME");
  e->fault = getenv("KRONBLAS_FAULT");
  e->cpu_small_work = kb_parse_small_work(getenv("KRONBLAS_CPU_SMALL_WORK"));
  kb_log_stream = stderr;
  if (e->log_file != NULL && *e->log_file != '\0') {
    FILE *f = fopen(e->log_file, "a");
    if (f != NULL) kb_log_stream = f;
  }
}

/* KRONBLAS_TUNE=1, on, yes or measure: new handles plan by measuring. */
kronblasTuningMode_t kb_env_tuning_mode(void)
{
  const char *t = kb_env()->tune;
  if (t != NULL && (!strcmp(t, "1") || !strcasecmp(t, "on") || !strcasecmp(t, "yes") ||
                    !strcasecmp(t, "measure")))
    return KRONBLAS_TUNING_MEASURE;
  return KRONBLAS_TUNING_MODEL;
}

int kb_fault(int kind)
{
  static const char *names[] = { "launch", "alloc" };
  static long counts[2];
  const char *f = kb_env()->fault, *e;
  size_t n;
  long c;
  if (f == NULL || *f == '\0' || kind < 0 || kind > 1)
    return 0;
  c = __atomic_add_fetch(&counts[kind], 1, __ATOMIC_RELAXED);
  n = strlen(names[kind]);
  /* A comma-separated list of KIND:N; any entry may name this event. */
  for (e = f; e != NULL && *e != '\0'; e = strchr(e, ','), e = e != NULL ? e + 1 : NULL)
    if (strncmp(e, names[kind], n) == 0 && e[n] == ':' && atol(e + n + 1) == c) {
      kb_log(KB_LOG_WARN, "fault injection: %s %ld fails (KRONBLAS_FAULT)", names[kind], c);
      return 1;
    }
  return 0;
}

const kb_env_t *kb_env(void)
{
  pthread_once(&kb_env_once, kb_env_read);
  return &kb_env_value;
}

void kb_log(int level, const char *fmt, ...)
{
  static const char *names[] = { "", "error", "warn", "info", "debug" };
  const kb_env_t *e = kb_env();
  va_list ap;
  if (level > e->log_level || level <= KB_LOG_NONE) return;
  pthread_mutex_lock(&kb_log_lock);
  fprintf(kb_log_stream, "kronblas %s: ", names[level > KB_LOG_DEBUG ? KB_LOG_DEBUG : level]);
  va_start(ap, fmt);
  vfprintf(kb_log_stream, fmt, ap);
  va_end(ap);
  fputc('\n', kb_log_stream);
  fflush(kb_log_stream);
  pthread_mutex_unlock(&kb_log_lock);
}
