/* kb_shapes.c - the tools' shape notation and named shape sets. */
#include "kb_shapes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Issue 3's standard GPU shapes: LEFT side, X contiguous along K. */
static const char *const kb_shapes_standard[] = {
  "1024_8x8^5", "1024_8x8^6", "1024_16x16^4", "1024_16x16^5", "1024_32x32^3",
  "1024_32x32^4", "1024_64x64^2", "1024_64x64^3", "1024_128x128^2", "320_128x128^3",
  "16_8x8^8", "16_16x16^6", "16_32x32^5", "16_64x64^4", "16_128x128^3", NULL
};

/* Issue 4's CPU shapes. */
static const char *const kb_shapes_cpu[] = {
  "1024_8x8^5", "1024_16x16^4", "1024_32x32^3", "1024_64x64^2", "16_8x8^6", "16_16x16^5",
  "16_32x32^4", "16_64x64^3", "256_128x128^2", "1024_3x3^7", "1024_6x6^6", NULL
};

/* The seed paper's Table 4 (real-world shapes); "2^7 x 2^7" read as seven
 * 2x2 factors.  20_2x2^9 is listed twice there and run once here. */
static const char *const kb_shapes_realworld[] = {
  "20_2x2^7", "20_2x2^9", "50_2x2^9", "20_2x2^10", "1_2x2^11",
  "10_52x50,65x20", "50_32x8,64x128", "10_52x65,50x20",
  "4_2x2^9", "8_2x2^9", "16_2x2^9",
  "4_8x8^3", "8_8x8^3", "16_8x8^3", "20_8x8^3",
  "1024_3x3^7", "1024_4x4^7", "1024_6x6^7",
  "1_5x5^3,2x2", "1_5x5^2,2x2,25x25",
  "1526_4x4^6", "156_8x8^3", "2967_4x4^7",
  "16_8x8^8", "16_16x16^6", "16_32x32^6", "16_64x64^3", NULL
};

const char *const *kb_shape_set(const char *name)
{
  if (!strcmp(name, "standard")) return kb_shapes_standard;
  if (!strcmp(name, "cpu")) return kb_shapes_cpu;
  if (!strcmp(name, "realworld")) return kb_shapes_realworld;
  return NULL;
}

/* A decimal >= 1 at *s; advances *s.  0 on success. */
static int kb_shape_num(const char **s, int64_t *v)
{
  char *end;
  long long x;
  if (**s < '0' || **s > '9')
    return -1;
  errno = 0;
  x = strtoll(*s, &end, 10);
  if (errno != 0 || x < 1)
    return -1;
  *v = x;
  *s = end;
  return 0;
}

/* The factor list written back with runs compressed: 8x8^5, 4x5,3x3. */
static void kb_shape_names(kb_shape_t *sh)
{
  size_t len = 0;
  int i = 0;
  sh->factors[0] = '\0';
  while (i < sh->n) {
    int j = i;
    while (j + 1 < sh->n && sh->p[j + 1] == sh->p[i] && sh->q[j + 1] == sh->q[i])
      j++;
    len += (size_t)snprintf(sh->factors + len, len < sizeof sh->factors ? sizeof sh->factors - len : 0,
                            "%s%" PRId64 "x%" PRId64, i ? "," : "", sh->p[i], sh->q[i]);
    if (j > i && len < sizeof sh->factors)
      len += (size_t)snprintf(sh->factors + len, sizeof sh->factors - len, "^%d", j - i + 1);
    i = j + 1;
  }
  snprintf(sh->name, sizeof sh->name, "%" PRId64 "_%s", sh->m, sh->factors);
}

const char *kb_shape_parse(const char *s, kb_shape_t *sh)
{
  int64_t p, q, reps, K = 1, e;
  memset(sh, 0, sizeof *sh);
  if (kb_shape_num(&s, &sh->m) || *s++ != '_')
    return "expected M_ at the start (M >= 1)";
  for (;;) {
    if (kb_shape_num(&s, &p) || (*s != 'x' && *s != 'X'))
      return "expected a factor PxQ";
    s++;
    if (kb_shape_num(&s, &q))
      return "expected Q >= 1 after PxQ";
    reps = 1;
    if (*s == '^') {
      s++;
      if (kb_shape_num(&s, &reps))
        return "expected a count N >= 1 after ^";
    }
    if (reps > KB_SHAPE_MAXF - sh->n)
      return "too many factors";
    while (reps-- > 0) {
      sh->p[sh->n] = p;
      sh->q[sh->n] = q;
      sh->n++;
      if (__builtin_mul_overflow(K, p > q ? p : q, &K))
        return "sizes overflow int64";
    }
    if (*s == '\0')
      break;
    if (*s++ != ',')
      return "expected , between factors";
  }
  if (__builtin_mul_overflow(K, sh->m, &e))
    return "sizes overflow int64";
  kb_shape_names(sh);
  return NULL;
}
