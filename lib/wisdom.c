/* wisdom.c - tuning results ("wisdom") files.
 *
 * A file holds the measured plans of one backend identity (backend name,
 * and what the backend's wisdom_ident says: device, driver, ...) for one
 * library version.  Text, one item per line (doc/tuning.md):
 *
 *     kronblas-wisdom 1
 *     library 0.1.0
 *     backend cuda
 *     ident device NVIDIA H100 80GB HBM3
 *     ident sm_count 132
 *     records 2
 *     checksum fnv1a64 0123456789abcdef
 *     KEY<TAB>PLAN
 *     KEY<TAB>PLAN
 *
 * The checksum (FNV-1a, 64 bits) covers every byte of the file except its
 * own line, so that a flipped byte anywhere, a truncation or a lost record
 * is found before anything reaches the handle.  Keys and plans are the
 * backend's strings; this file only checks that they are printable, one
 * line and bounded.  Everything read is bounded (KB_WISDOM_MAX_*) and a
 * file that fails any check is ignored as a whole.
 *
 * Files are replaced atomically: a temporary file in the target's
 * directory is written, flushed to disk and renamed over the target, so a
 * reader sees the old file or the new one, never a mix, and a failed
 * export leaves the old one in place. */
#include "kb_wisdom.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define KB_WISDOM_MAGIC "kronblas-wisdom"

/* One record; prio and seq decide which of equal keys a merge keeps. */
typedef struct {
  char *key, *plan;
  int prio;                 /* 0: the handle's, 1: the file's */
  size_t seq;
} kb_wrec_t;

typedef struct {
  char *buf;                /* the file, NUL-terminated; records point into it */
  size_t len;
  const char *library, *backend;   /* NUL-terminated copies below */
  char library_s[64], backend_s[64];
  char *ident;              /* "name value\n" lines, as wisdom_ident writes them */
  size_t ident_len;
  kb_wrec_t *rec;
  size_t nrec;
} kb_wfile_t;

typedef struct {
  kb_wrec_t *rec;
  size_t n, cap;
  int failed;               /* out of memory: the list is incomplete */
} kb_wlist_t;

static pthread_mutex_t kb_wisdom_lock = PTHREAD_MUTEX_INITIALIZER;

static void kb_library_version(char *buf, size_t size)
{
  snprintf(buf, size, "%d.%d.%d", KRONBLAS_VERSION_MAJOR, KRONBLAS_VERSION_MINOR,
           KRONBLAS_VERSION_PATCH);
}

/* 1 if s[0..n) is printable ASCII, tabs allowed only when tabs is set. */
static int kb_printable(const char *s, size_t n, int tabs)
{
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 || c > 0x7e) && !(tabs && c == '\t'))
      return 0;
  }
  return 1;
}

static void kb_wfile_free(kb_wfile_t *wf)
{
  free(wf->buf);
  free(wf->ident);
  free(wf->rec);
  memset(wf, 0, sizeof *wf);
}

/* ------------------------------------------------------------- reading */

/* The next line at *pos: its start and length without the newline.  0 if
 * there is none, it has no newline (truncated) or is too long. */
static int kb_next_line(const kb_wfile_t *wf, size_t *pos, char **line, size_t *n)
{
  const char *s = wf->buf + *pos, *nl;
  size_t left = wf->len - *pos;
  if (left == 0)
    return 0;
  nl = memchr(s, '\n', left < KB_WISDOM_MAX_LINE ? left : KB_WISDOM_MAX_LINE);
  if (nl == NULL)
    return 0;
  *line = wf->buf + *pos;
  *n = (size_t)(nl - s);
  *pos += *n + 1;
  return 1;
}

/* Line starts with word and a space; *rest gets what follows. */
static int kb_line_is(const char *line, size_t n, const char *word, const char **rest, size_t *rn)
{
  size_t w = strlen(word);
  if (n <= w || memcmp(line, word, w) != 0 || line[w] != ' ')
    return 0;
  *rest = line + w + 1;
  *rn = n - w - 1;
  return 1;
}

/* Decimal in s[0..n), no sign, at most max; 0 on success. */
static int kb_parse_count(const char *s, size_t n, uint64_t max, uint64_t *v)
{
  uint64_t x = 0;
  size_t i;
  if (n == 0 || n > 20)
    return -1;
  for (i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    x = x * 10 + (uint64_t)(s[i] - '0');
    if (x > max)
      return -1;
  }
  *v = x;
  return 0;
}

static kronblasStatus_t kb_copy_word(char *dst, size_t size, const char *s, size_t n)
{
  if (n == 0 || n >= size)
    return KRONBLAS_STATUS_INVALID_VALUE;
  memcpy(dst, s, n);
  dst[n] = '\0';
  return KRONBLAS_STATUS_SUCCESS;
}

/* Reads the whole file: INVALID_VALUE if it is missing, not a regular
 * file, unreadable or too large. */
static kronblasStatus_t kb_wisdom_slurp(const char *path, kb_wfile_t *wf)
{
  kronblasStatus_t st = KRONBLAS_STATUS_INVALID_VALUE;
  FILE *f = fopen(path, "rb");
  struct stat sb;
  size_t cap = 0, got;
  if (f == NULL) {
    kb_log(KB_LOG_WARN, "wisdom file %s: %s", path, strerror(errno));
    return KRONBLAS_STATUS_INVALID_VALUE;
  }
  if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    kb_log(KB_LOG_WARN, "wisdom file %s: not a regular file", path);
    goto out;
  }
  if ((uint64_t)sb.st_size > KB_WISDOM_MAX_BYTES) {
    kb_log(KB_LOG_WARN, "wisdom file %s: larger than %zu bytes", path, KB_WISDOM_MAX_BYTES);
    goto out;
  }
  /* The size may change under us: read to the end, bounded. */
  cap = (size_t)sb.st_size + 1;
  wf->buf = malloc(cap + 1);
  if (wf->buf == NULL) {
    st = KRONBLAS_STATUS_ALLOC_FAILED;
    goto out;
  }
  wf->len = 0;
  while ((got = fread(wf->buf + wf->len, 1, cap - wf->len, f)) > 0) {
    wf->len += got;
    if (wf->len == cap) {
      char *nb;
      if (cap > KB_WISDOM_MAX_BYTES) {
        kb_log(KB_LOG_WARN, "wisdom file %s: larger than %zu bytes", path, KB_WISDOM_MAX_BYTES);
        goto out;
      }
      cap *= 2;
      nb = realloc(wf->buf, cap + 1);
      if (nb == NULL) {
        st = KRONBLAS_STATUS_ALLOC_FAILED;
        goto out;
      }
      wf->buf = nb;
    }
  }
  if (ferror(f)) {
    kb_log(KB_LOG_WARN, "wisdom file %s: read error", path);
    goto out;
  }
  wf->buf[wf->len] = '\0';
  st = KRONBLAS_STATUS_SUCCESS;
out:
  fclose(f);
  return st;
}

/* Reads and checks path.  INVALID_VALUE: missing or corrupt; NOT_SUPPORTED:
 * a wisdom file of another format version; ALLOC_FAILED. */
static kronblasStatus_t kb_wisdom_parse(const char *path, kb_wfile_t *wf)
{
  kronblasStatus_t st;
  size_t pos = 0, n, rn, cks_start, cks_end, i;
  uint64_t count, sum, want = 0;
  char *line;
  const char *rest;

  memset(wf, 0, sizeof *wf);
  KB_CHECK_GOTO(kb_wisdom_slurp(path, wf), st, out);
  st = KRONBLAS_STATUS_INVALID_VALUE;
  if (wf->len == 0 || memchr(wf->buf, '\0', wf->len) != NULL) {
    kb_log(KB_LOG_WARN, "wisdom file %s: empty or binary", path);
    goto out;
  }
  if (!kb_next_line(wf, &pos, &line, &n) || !kb_line_is(line, n, KB_WISDOM_MAGIC, &rest, &rn)) {
    kb_log(KB_LOG_WARN, "wisdom file %s: not a kronblas wisdom file", path);
    goto out;
  }
  if (kb_parse_count(rest, rn, 1000000, &count) != 0) {
    kb_log(KB_LOG_WARN, "wisdom file %s: bad format version", path);
    goto out;
  }
  if (count != KB_WISDOM_FORMAT) {
    kb_log(KB_LOG_WARN, "wisdom file %s: format version %" PRIu64 ", this library reads %d",
           path, count, KB_WISDOM_FORMAT);
    st = KRONBLAS_STATUS_NOT_SUPPORTED;
    goto out;
  }
  if (!kb_next_line(wf, &pos, &line, &n) || !kb_printable(line, n, 0) ||
      !kb_line_is(line, n, "library", &rest, &rn) ||
      kb_copy_word(wf->library_s, sizeof wf->library_s, rest, rn) != KRONBLAS_STATUS_SUCCESS)
    goto bad;
  if (!kb_next_line(wf, &pos, &line, &n) || !kb_printable(line, n, 0) ||
      !kb_line_is(line, n, "backend", &rest, &rn) ||
      kb_copy_word(wf->backend_s, sizeof wf->backend_s, rest, rn) != KRONBLAS_STATUS_SUCCESS)
    goto bad;
  wf->library = wf->library_s;
  wf->backend = wf->backend_s;
  wf->ident = malloc(KB_WISDOM_MAX_IDENT + 1);
  if (wf->ident == NULL) {
    st = KRONBLAS_STATUS_ALLOC_FAILED;
    goto out;
  }
  wf->ident_len = 0;
  for (;;) {
    if (!kb_next_line(wf, &pos, &line, &n) || !kb_printable(line, n, 0))
      goto bad;
    if (!kb_line_is(line, n, "ident", &rest, &rn))
      break;
    if (rn + 1 > KB_WISDOM_MAX_IDENT - wf->ident_len)
      goto bad;
    memcpy(wf->ident + wf->ident_len, rest, rn);
    wf->ident_len += rn;
    wf->ident[wf->ident_len++] = '\n';
  }
  wf->ident[wf->ident_len] = '\0';
  if (!kb_line_is(line, n, "records", &rest, &rn) ||
      kb_parse_count(rest, rn, KB_WISDOM_MAX_RECORDS, &count) != 0)
    goto bad;
  cks_start = pos;
  if (!kb_next_line(wf, &pos, &line, &n) || !kb_printable(line, n, 0) ||
      !kb_line_is(line, n, "checksum", &rest, &rn) || rn != 8 + 16 ||
      memcmp(rest, "fnv1a64 ", 8) != 0)
    goto bad;
  for (i = 0; i < 16; i++) {
    char c = rest[8 + i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0)
      goto bad;
    want = want << 4 | (uint64_t)d;
  }
  cks_end = pos;
  sum = kb_fnv1a(kb_fnv1a(KB_FNV_INIT, wf->buf, cks_start), wf->buf + cks_end, wf->len - cks_end);
  if (sum != want) {
    kb_log(KB_LOG_WARN, "wisdom file %s: checksum mismatch (corrupt or edited)", path);
    goto out;
  }
  wf->rec = calloc(count ? (size_t)count : 1, sizeof *wf->rec);
  if (wf->rec == NULL) {
    st = KRONBLAS_STATUS_ALLOC_FAILED;
    goto out;
  }
  for (wf->nrec = 0; wf->nrec < count; wf->nrec++) {
    char *tab;
    if (!kb_next_line(wf, &pos, &line, &n) || !kb_printable(line, n, 1))
      goto bad;
    tab = memchr(line, '\t', n);
    if (tab == NULL || tab == line || tab == line + n - 1 || memchr(tab + 1, '\t', (size_t)(line + n - tab - 1)))
      goto bad;
    *tab = '\0';
    line[n] = '\0';
    wf->rec[wf->nrec].key = line;
    wf->rec[wf->nrec].plan = tab + 1;
    wf->rec[wf->nrec].prio = 1;
    wf->rec[wf->nrec].seq = wf->nrec;
  }
  if (pos != wf->len)
    goto bad;
  st = KRONBLAS_STATUS_SUCCESS;
  goto out;
bad:
  kb_log(KB_LOG_WARN, "wisdom file %s: malformed", path);
  st = KRONBLAS_STATUS_INVALID_VALUE;
out:
  if (st != KRONBLAS_STATUS_SUCCESS)
    kb_wfile_free(wf);
  return st;
}

/* -------------------------------------------------------- the handle */

/* The handle's identity lines into buf (KB_WISDOM_MAX_IDENT + 1 bytes):
 * what wisdom_ident writes, checked; "" for a backend without hooks. */
static kronblasStatus_t kb_handle_ident(struct kronblasContext *h, char *buf)
{
  kronblasStatus_t st;
  size_t n, i, start = 0;
  buf[0] = '\0';
  if (h->ops->wisdom_ident == NULL)
    return KRONBLAS_STATUS_SUCCESS;
  KB_CHECK_GOTO(h->ops->wisdom_ident(h, buf, KB_WISDOM_MAX_IDENT + 1), st, out);
  buf[KB_WISDOM_MAX_IDENT] = '\0';
  n = strlen(buf);
  /* Lines "name value\n", printable: anything else could not be read back. */
  for (i = 0; i < n; i++) {
    if (buf[i] == '\n') {
      if (i == start || memchr(buf + start, ' ', i - start) == NULL)
        break;
      start = i + 1;
    } else if (!kb_printable(buf + i, 1, 0)) {
      break;
    }
  }
  if (i != n || start != n) {
    kb_log(KB_LOG_ERROR, "wisdom: backend %s gave a malformed identity", h->ops->name);
    st = KRONBLAS_STATUS_INTERNAL_ERROR;
  }
out:
  return st;
}

static void kb_wlist_put(void *ctx, const char *key, const char *plan)
{
  kb_wlist_t *l = ctx;
  size_t kn, pn;
  kb_wrec_t *r;
  if (l->failed || key == NULL || plan == NULL)
    return;
  kn = strlen(key);
  pn = strlen(plan);
  if (kn == 0 || pn == 0 || kn + pn + 2 > KB_WISDOM_MAX_LINE || !kb_printable(key, kn, 0) ||
      !kb_printable(plan, pn, 0)) {
    kb_log(KB_LOG_WARN, "wisdom: a plan the backend gave cannot be written (empty, too long or "
           "not printable); skipped");
    return;
  }
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    kb_wrec_t *nr = cap <= KB_WISDOM_MAX_RECORDS ? realloc(l->rec, cap * sizeof *nr) : NULL;
    if (nr == NULL) {
      l->failed = 1;
      return;
    }
    l->rec = nr;
    l->cap = cap;
  }
  r = &l->rec[l->n];
  r->key = strdup(key);
  r->plan = strdup(plan);
  r->prio = 0;
  r->seq = l->n;
  if (r->key == NULL || r->plan == NULL) {
    free(r->key);
    free(r->plan);
    l->failed = 1;
    return;
  }
  l->n++;
}

static void kb_wlist_free(kb_wlist_t *l)
{
  size_t i;
  for (i = 0; i < l->n; i++) {
    free(l->rec[i].key);
    free(l->rec[i].plan);
  }
  free(l->rec);
  memset(l, 0, sizeof *l);
}

static int kb_wrec_cmp(const void *a, const void *b)
{
  const kb_wrec_t *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  if (c != 0)
    return c;
  if (x->prio != y->prio)
    return x->prio - y->prio;
  return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;   /* later wins */
}

/* 1 if the file belongs to this handle's library version and identity;
 * else logs why (at level) and returns 0. */
static int kb_wisdom_same(struct kronblasContext *h, const kb_wfile_t *wf, const char *ident,
                          const char *path, int level)
{
  char lib[64];
  kb_library_version(lib, sizeof lib);
  if (strcmp(wf->library, lib) != 0) {
    kb_log(level, "wisdom file %s: written by kronblas %s, this is %s", path, wf->library, lib);
    return 0;
  }
  if (strcmp(wf->backend, h->ops->name) != 0) {
    kb_log(level, "wisdom file %s: for the %s backend, this handle is %s", path, wf->backend,
           h->ops->name);
    return 0;
  }
  if (strcmp(wf->ident, ident) != 0) {
    kb_log(level, "wisdom file %s: measured on another %s device or driver", path, h->ops->name);
    return 0;
  }
  return 1;
}

/* ------------------------------------------------------------ writing */

typedef struct {
  char *p;
  size_t n, cap;
  int failed;
} kb_wbuf_t;

static void kb_wbuf_add(kb_wbuf_t *b, const char *s, size_t n)
{
  if (b->failed)
    return;
  if (n > KB_WISDOM_MAX_BYTES - b->n) {
    b->failed = 1;
    return;
  }
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    char *np;
    while (cap < b->n + n + 1)
      cap *= 2;
    np = realloc(b->p, cap);
    if (np == NULL) {
      b->failed = 1;
      return;
    }
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

static void kb_wbuf_str(kb_wbuf_t *b, const char *s)
{
  kb_wbuf_add(b, s, strlen(s));
}

/* Writes data to path through a temporary file in its directory.  Nothing
 * is left behind on error, and the old file stays as it was. */
static kronblasStatus_t kb_write_atomic(const char *path, const char *data, size_t len)
{
  kronblasStatus_t st = KRONBLAS_STATUS_EXECUTION_FAILED;
  const char *slash = strrchr(path, '/');
  size_t dlen = slash == NULL ? 0 : (size_t)(slash - path) + 1;
  char *tmp = malloc(strlen(path) + 32);
  size_t off = 0;
  int fd = -1;
  if (tmp == NULL)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  /* "dir/.name.tmpXXXXXX": the same file system, so rename is atomic. */
  memcpy(tmp, path, dlen);
  snprintf(tmp + dlen, strlen(path) + 32 - dlen, ".%s.tmpXXXXXX", path + dlen);
  fd = mkstemp(tmp);
  if (fd < 0) {
    kb_log(KB_LOG_ERROR, "wisdom: cannot create a file next to %s: %s", path, strerror(errno));
    st = KRONBLAS_STATUS_INVALID_VALUE;
    free(tmp);
    return st;
  }
  (void)fchmod(fd, 0644);
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      kb_log(KB_LOG_ERROR, "wisdom: writing %s: %s", tmp, w < 0 ? strerror(errno) : "short write");
      goto out;
    }
    off += (size_t)w;
  }
  if (fsync(fd) != 0) {
    kb_log(KB_LOG_ERROR, "wisdom: fsync %s: %s", tmp, strerror(errno));
    goto out;
  }
  if (close(fd) != 0) {
    fd = -1;
    kb_log(KB_LOG_ERROR, "wisdom: closing %s: %s", tmp, strerror(errno));
    goto out;
  }
  fd = -1;
  if (rename(tmp, path) != 0) {
    kb_log(KB_LOG_ERROR, "wisdom: renaming %s to %s: %s", tmp, path, strerror(errno));
    goto out;
  }
  st = KRONBLAS_STATUS_SUCCESS;
out:
  if (fd >= 0)
    close(fd);
  if (st != KRONBLAS_STATUS_SUCCESS)
    unlink(tmp);
  free(tmp);
  return st;
}

static kronblasStatus_t kb_wisdom_export_locked(struct kronblasContext *h, const char *path)
{
  kronblasStatus_t st;
  kb_wlist_t l;
  kb_wfile_t old;
  kb_wbuf_t b;
  struct stat sb;
  char *ident = NULL, lib[64], line[128];
  size_t i, nout = 0, body;
  uint64_t sum;

  memset(&l, 0, sizeof l);
  memset(&old, 0, sizeof old);
  memset(&b, 0, sizeof b);
  ident = malloc(KB_WISDOM_MAX_IDENT + 1);
  if (ident == NULL)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  KB_CHECK_GOTO(kb_handle_ident(h, ident), st, out);
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    kb_log(KB_LOG_ERROR, "wisdom: %s exists and is not a regular file", path);
    st = KRONBLAS_STATUS_INVALID_VALUE;
    goto out;
  }
  if (h->ops->wisdom_each != NULL)
    h->ops->wisdom_each(h, kb_wlist_put, &l);
  if (l.failed) {
    st = KRONBLAS_STATUS_ALLOC_FAILED;
    goto out;
  }
  /* Several runs accumulate: keep what the file has for this identity. */
  if (access(path, F_OK) == 0) {
    st = kb_wisdom_parse(path, &old);
    if (st == KRONBLAS_STATUS_ALLOC_FAILED)
      goto out;
    if (st == KRONBLAS_STATUS_SUCCESS && kb_wisdom_same(h, &old, ident, path, KB_LOG_INFO)) {
      for (i = 0; i < old.nrec && !l.failed; i++) {
        kb_wlist_put(&l, old.rec[i].key, old.rec[i].plan);
        if (!l.failed) {
          l.rec[l.n - 1].prio = 1;
          l.rec[l.n - 1].seq = i;
        }
      }
      if (l.failed) {
        st = KRONBLAS_STATUS_ALLOC_FAILED;
        goto out;
      }
    } else {
      kb_log(KB_LOG_WARN, "wisdom: replacing %s (not usable with this handle)", path);
    }
  }
  /* Sorted by key, one record per key: the handle's plan, else the
   * file's latest. */
  if (l.n > 0)
    qsort(l.rec, l.n, sizeof *l.rec, kb_wrec_cmp);
  for (i = 0; i < l.n; i++)
    if (nout == 0 || strcmp(l.rec[nout - 1].key, l.rec[i].key) != 0) {
      kb_wrec_t t = l.rec[nout];
      l.rec[nout] = l.rec[i];
      l.rec[i] = t;
      nout++;
    }
  if (nout > KB_WISDOM_MAX_RECORDS)
    nout = KB_WISDOM_MAX_RECORDS;

  kb_library_version(lib, sizeof lib);
  snprintf(line, sizeof line, "%s %d\nlibrary %s\nbackend %s\n", KB_WISDOM_MAGIC, KB_WISDOM_FORMAT,
           lib, h->ops->name);
  kb_wbuf_str(&b, line);
  {
    const char *s = ident, *nl;
    while ((nl = strchr(s, '\n')) != NULL) {
      kb_wbuf_str(&b, "ident ");
      kb_wbuf_add(&b, s, (size_t)(nl - s) + 1);
      s = nl + 1;
    }
  }
  snprintf(line, sizeof line, "records %zu\n", nout);
  kb_wbuf_str(&b, line);
  body = b.n;
  for (i = 0; i < nout; i++) {
    kb_wbuf_str(&b, l.rec[i].key);
    kb_wbuf_add(&b, "\t", 1);
    kb_wbuf_str(&b, l.rec[i].plan);
    kb_wbuf_add(&b, "\n", 1);
  }
  if (b.failed) {
    kb_log(KB_LOG_ERROR, "wisdom: no memory for %zu records (or over %zu bytes)", nout,
           KB_WISDOM_MAX_BYTES);
    st = KRONBLAS_STATUS_ALLOC_FAILED;
    goto out;
  }
  sum = kb_fnv1a(KB_FNV_INIT, b.p, b.n);
  snprintf(line, sizeof line, "checksum fnv1a64 %016" PRIx64 "\n", sum);
  /* The checksum line goes between the header and the records. */
  {
    size_t cl = strlen(line);
    kb_wbuf_add(&b, line, cl);
    if (b.failed) {
      st = KRONBLAS_STATUS_ALLOC_FAILED;
      goto out;
    }
    memmove(b.p + body + cl, b.p + body, b.n - cl - body);
    memcpy(b.p + body, line, cl);
  }
  st = kb_write_atomic(path, b.p, b.n);
  if (st == KRONBLAS_STATUS_SUCCESS)
    kb_log(KB_LOG_INFO, "wisdom: wrote %zu records to %s", nout, path);
out:
  kb_wlist_free(&l);
  kb_wfile_free(&old);
  free(b.p);
  free(ident);
  return st;
}

/* --------------------------------------------------------------- API */

kronblasStatus_t kb_wisdom_export(struct kronblasContext *h, const char *path)
{
  kronblasStatus_t st;
  if (path == NULL || *path == '\0')
    return KRONBLAS_STATUS_INVALID_VALUE;
  pthread_mutex_lock(&kb_wisdom_lock);
  st = kb_wisdom_export_locked(h, path);
  pthread_mutex_unlock(&kb_wisdom_lock);
  return st;
}

kronblasStatus_t kb_wisdom_import(struct kronblasContext *h, const char *path)
{
  kronblasStatus_t st;
  kb_wfile_t wf;
  char *ident = NULL;
  size_t i, added = 0;

  if (path == NULL || *path == '\0')
    return KRONBLAS_STATUS_INVALID_VALUE;
  memset(&wf, 0, sizeof wf);
  ident = malloc(KB_WISDOM_MAX_IDENT + 1);
  if (ident == NULL)
    return KRONBLAS_STATUS_ALLOC_FAILED;
  KB_CHECK_GOTO(kb_handle_ident(h, ident), st, out);
  KB_CHECK_GOTO(kb_wisdom_parse(path, &wf), st, out);
  if (!kb_wisdom_same(h, &wf, ident, path, KB_LOG_WARN)) {
    st = KRONBLAS_STATUS_NOT_SUPPORTED;
    goto out;
  }
  for (i = 0; i < wf.nrec; i++) {
    kronblasStatus_t ast = KRONBLAS_STATUS_NOT_SUPPORTED;
    if (h->ops->wisdom_add != NULL)
      ast = h->ops->wisdom_add(h, wf.rec[i].key, wf.rec[i].plan);
    if (ast != KRONBLAS_STATUS_SUCCESS)
      kb_log(KB_LOG_WARN, "wisdom file %s: record %zu not usable here (%s); skipped", path, i + 1,
             kronblasGetStatusName(ast));
    else
      added++;
  }
  kb_log(KB_LOG_INFO, "wisdom: imported %zu of %zu records from %s", added, wf.nrec, path);
  st = KRONBLAS_STATUS_SUCCESS;
out:
  kb_wfile_free(&wf);
  free(ident);
  return st;
}

kronblasStatus_t kb_wisdom_forget(struct kronblasContext *h)
{
  if (h->ops->wisdom_forget != NULL)
    h->ops->wisdom_forget(h);
  return KRONBLAS_STATUS_SUCCESS;
}

void kb_wisdom_plan_added(struct kronblasContext *h)
{
  const char *path = kb_env()->wisdom_file;
  kronblasStatus_t st;
  if (path == NULL || *path == '\0')
    return;
  st = kb_wisdom_export(h, path);
  if (st != KRONBLAS_STATUS_SUCCESS)
    kb_log(KB_LOG_WARN, "wisdom: could not update KRONBLAS_WISDOM_FILE=%s (%s)", path,
           kronblasGetStatusName(st));
}

void kb_wisdom_on_create(struct kronblasContext *h)
{
  const char *path = kb_env()->wisdom_file;
  kronblasStatus_t st;
  if (path == NULL || *path == '\0' || access(path, F_OK) != 0)
    return;
  st = kb_wisdom_import(h, path);
  if (st != KRONBLAS_STATUS_SUCCESS)
    kb_log(KB_LOG_WARN, "wisdom: ignoring KRONBLAS_WISDOM_FILE=%s (%s)", path,
           kronblasGetStatusName(st));
}
