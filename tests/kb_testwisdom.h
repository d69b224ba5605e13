/* kb_testwisdom.h - what the wisdom tests (t-wisdom, t-cuda-wisdom and the
 * GPU tests that plant plans through a file) do with tuning results files:
 * read one whole, write one, re-sign an edited one so that its checksum
 * holds again, and find its records.  The file format is lib/wisdom.c's
 * (doc/tuning.md).  Header-only: each test #includes it once. */
#ifndef KB_TESTWISDOM_H
#define KB_TESTWISDOM_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file, NUL-terminated; *n (if n) its length.  NULL if
 * unreadable. */
static inline char *tw_read(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  char *b;
  long len;
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  b = len < 0 ? NULL : malloc((size_t)len + 1);
  if (b == NULL || fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    fclose(f);
    return NULL;
  }
  b[len] = '\0';
  if (n != NULL)
    *n = (size_t)len;
  fclose(f);
  return b;
}

/* n bytes of data as the whole file (best effort: a test that needs the
 * file reads it back). */
static inline void tw_write(const char *path, const char *data, size_t n)
{
  FILE *f = fopen(path, "wb");
  if (f == NULL)
    return;
  if (n)
    fwrite(data, 1, n, f);
  fclose(f);
}

/* FNV-1a 64 of every byte but the checksum line, written into it: lets
 * a test edit a file and keep it internally consistent. */
static inline void tw_resign(char *b)
{
  char *c = strstr(b, "\nchecksum fnv1a64 ");
  uint64_t h = 0xcbf29ce484222325ULL;
  const char *p;
  char hex[17];
  if (c == NULL)
    return;
  c++;
  for (p = b; p < c; p++)
    h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
  for (p = strchr(c, '\n') + 1; *p; p++)
    h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
  snprintf(hex, sizeof hex, "%016" PRIx64, h);
  memcpy(c + strlen("checksum fnv1a64 "), hex, 16);
}

/* The record lines of a file (what follows the checksum line), or NULL. */
static inline const char *tw_records(const char *b)
{
  const char *c = b != NULL ? strstr(b, "\nchecksum ") : NULL;
  return c == NULL ? NULL : strchr(c + 1, '\n') + 1;
}

#endif /* KB_TESTWISDOM_H */
