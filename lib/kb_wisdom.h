/* kb_wisdom.h - tuning results ("wisdom") files: the handle's measured
 * plans written to and read from disk (lib/wisdom.c; format in
 * doc/tuning.md).  Backends say what a plan means through the wisdom hooks
 * of kb_backend_t; this file owns the format, its checks and the atomic
 * write. */
#ifndef KB_WISDOM_H
#define KB_WISDOM_H

#include "kb_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bounds on what is read or written: a file past them is corrupt. */
#define KB_WISDOM_MAX_BYTES ((size_t)16 << 20)
#define KB_WISDOM_MAX_LINE 8192          /* bytes of one line, newline included */
#define KB_WISDOM_MAX_RECORDS 65536
#define KB_WISDOM_MAX_IDENT 4096         /* bytes of a backend's identity lines */
#define KB_WISDOM_FORMAT 1

/* The API calls' work once the handle is checked (kronblas.h says what
 * each returns). */
kronblasStatus_t kb_wisdom_export(struct kronblasContext *h, const char *path);
kronblasStatus_t kb_wisdom_import(struct kronblasContext *h, const char *path);
kronblasStatus_t kb_wisdom_forget(struct kronblasContext *h);

/* A backend calls this after it measured and remembered a new plan: with
 * KRONBLAS_WISDOM_FILE set the handle's plans are merged into that file.
 * Failures are logged as warnings, never returned. */
void kb_wisdom_plan_added(struct kronblasContext *h);

/* Called by kronblasCreate*: imports KRONBLAS_WISDOM_FILE when it is set
 * and exists; a file that cannot be used is a warning. */
void kb_wisdom_on_create(struct kronblasContext *h);

#ifdef __cplusplus
}
#endif

#endif /* KB_WISDOM_H */
