/* tap.h - a tiny TAP producer for the kronblas test programs.
 *
 *   tap_plan(n);              "1..n"
 *   tap_ok(cond, fmt, ...);   "ok N - ..." or "not ok N - ..."; returns cond
 *   tap_skip(fmt, ...);       "ok N # SKIP ..." (counted as skipped, not passed)
 *   tap_diag(fmt, ...);       "# ..." (to stdout, so the log keeps it)
 *   tap_skip_all(fmt, ...);   "1..0 # SKIP ..." and exit 0
 *   return tap_done();        exit status: 0 if every test passed or skipped
 *                             and the count matches the plan, else 1
 * Header only: every function is static. */
#ifndef KB_TAP_H
#define KB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n_run, tap_n_failed, tap_n_planned = -1;

/* Every function is static; a test that uses only some must not warn. */
#if defined(__GNUC__)
#define KB_TAP_UNUSED __attribute__((unused))
#define KB_TAP_PRINTF(a, b) __attribute__((format(printf, a, b), unused))
#else
#define KB_TAP_UNUSED
#define KB_TAP_PRINTF(a, b)
#endif

KB_TAP_UNUSED static void tap_plan(int n)
{
  tap_n_planned = n;
  printf("1..%d\n", n);
  fflush(stdout);
}

KB_TAP_UNUSED static void tap_vline(const char *prefix, const char *sep, const char *fmt, va_list ap)
{
  printf("%s %d%s", prefix, tap_n_run, sep);
  vprintf(fmt, ap);
  putchar('\n');
  fflush(stdout);
}


static int tap_ok(int cond, const char *fmt, ...) KB_TAP_PRINTF(2, 3);
static int tap_ok(int cond, const char *fmt, ...)
{
  va_list ap;
  tap_n_run++;
  if (!cond) tap_n_failed++;
  va_start(ap, fmt);
  tap_vline(cond ? "ok" : "not ok", " - ", fmt, ap);
  va_end(ap);
  return cond;
}

static void tap_skip(const char *fmt, ...) KB_TAP_PRINTF(1, 2);
static void tap_skip(const char *fmt, ...)
{
  va_list ap;
  tap_n_run++;
  va_start(ap, fmt);
  tap_vline("ok", " # SKIP ", fmt, ap);
  va_end(ap);
}

static void tap_diag(const char *fmt, ...) KB_TAP_PRINTF(1, 2);
static void tap_diag(const char *fmt, ...)
{
  va_list ap;
  fputs("# ", stdout);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

static void tap_skip_all(const char *fmt, ...) KB_TAP_PRINTF(1, 2);
static void tap_skip_all(const char *fmt, ...)
{
  va_list ap;
  fputs("1..0 # SKIP ", stdout);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
  exit(0);
}

KB_TAP_UNUSED static int tap_done(void)
{
  if (tap_n_planned < 0) {
    printf("1..%d\n", tap_n_run);
    tap_n_planned = tap_n_run;
  }
  if (tap_n_run != tap_n_planned) {
    printf("# planned %d tests but ran %d\n", tap_n_planned, tap_n_run);
    return 1;
  }
  return tap_n_failed ? 1 : 0;
}

#endif /* KB_TAP_H */
