/* t-smoke.c - one small GEKMM per type against a hand-computed answer. */
#include <kronblas.h>
#include <math.h>
#include "tap.h"

int main(void)
{
  kronblasHandle_t h;
  /* F0 = [1 2; 3 4] (q x p = 2 x 2, column-major), F1 = [5; 6]^T as 1x2 */
  const float f0[] = { 1, 3, 2, 4 }, f1[] = { 5, 6 };
  const float *F[] = { f0, f1 };
  const int p[] = { 2, 2 }, q[] = { 2, 1 }, ldf[] = { 2, 1 };
  const float X[] = { 1, 2, 3, 4 }; /* K = 4, m = 1 */
  float Y[2] = { NAN, NAN };
  const float one = 1, zero = 0;
  /* (F0 (x) F1) x: F1 . [1 2] = 17, F1 . [3 4] = 39; F0 * [17 39] = [95 207] */
  tap_plan(3);
  tap_ok(kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_SUCCESS, "create");
  {
    kronblasStatus_t st = kronblasSgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2,
                                         p, q, &one, X, 4, F, ldf, &zero, Y, 2);
    tap_ok(st == KRONBLAS_STATUS_SUCCESS && Y[0] == 95 && Y[1] == 207,
           "sgekmm 2 factors: status %d, y = %g %g (want 95 207)", (int)st, Y[0], Y[1]);
  }
  tap_ok(kronblasDestroy(h) == KRONBLAS_STATUS_SUCCESS, "destroy");
  return tap_done();
}
