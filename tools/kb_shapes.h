/* kb_shapes.h - the tools' shape notation and named shape sets, shared by
 * kronblas-bench and kronblas-tune.
 *
 *   M_PxQ^N           N equal factors P x Q, m = M (1024_8x8^5)
 *   M_PxQ,PxQ^N,...   distinct factors, F_0 first (16_4x5,3x3,8x2) */
#ifndef KB_SHAPES_H
#define KB_SHAPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KB_SHAPE_MAXF 128      /* factors per shape */

typedef struct {
  char name[512];              /* canonical, e.g. 1024_8x8^5 */
  char factors[480];           /* the factor part, runs compressed: 8x8^5 */
  int64_t m;
  int n;
  int64_t p[KB_SHAPE_MAXF], q[KB_SHAPE_MAXF];
} kb_shape_t;

/* Parses s into sh; NULL, or what is wrong with s.  Sizes are >= 1 and
 * m * prod(max(p, q)) fits in int64. */
const char *kb_shape_parse(const char *s, kb_shape_t *sh);

/* NULL-terminated sets: issue 3's standard GPU shapes, issue 4's CPU
 * shapes, the seed paper's real-world shapes (its Table 4).  NULL for an
 * unknown set name. */
const char *const *kb_shape_set(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* KB_SHAPES_H */
