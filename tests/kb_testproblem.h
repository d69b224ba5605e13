/* kb_testproblem.h - the canonical problem (kb_problem_t, lib/kb_internal.h)
 * of m vectors and n square factors p[i] x p[i], LEFT, nothing transposed (X
 * and Y contiguous along K = L), for tests that call a planner directly
 * (t-cpu-body, t-cuda-geom).  Fields a planner needs beyond these (batch,
 * the factors' strides) are the caller's. */
#ifndef KB_TESTPROBLEM_H
#define KB_TESTPROBLEM_H

#include "kb_internal.h"

#include <string.h>

static inline void kb_t_square_pb(kronblasDataType_t type, int64_t m, int64_t n, const int64_t *p, kb_problem_t *pb)
{
  int64_t i, K = 1;
  for (i = 0; i < n; i++)
    K *= p[i];
  memset(pb, 0, sizeof *pb);
  pb->type = type;
  pb->m = m;
  pb->nfactors = n;
  pb->p = p;
  pb->q = p;
  pb->K = pb->L = K;
  pb->xs_m = pb->ys_m = K;
  pb->xs_k = pb->ys_l = 1;
  pb->x_contig_k = pb->y_contig_l = 1;
}

#endif
