// t-cxx.cc - kronblas.h compiles as C++ (extern "C" guards, no C-only
// constructs) and a C++ program links against libkronblas.
#include <kronblas.h>
#include <cmath>
#include <cstring>

#include "tap.h"

int main()
{
  kronblasHandle_t h = nullptr;
  int version = 0;
  tap_plan(5);
  tap_ok(kronblasGetVersion(nullptr, &version) == KRONBLAS_STATUS_SUCCESS && version == KRONBLAS_VERSION,
         "kronblasGetVersion from C++: %d", version);
  tap_ok(std::strcmp(kronblasGetStatusName(KRONBLAS_STATUS_INVALID_VALUE), "KRONBLAS_STATUS_INVALID_VALUE") == 0,
         "kronblasGetStatusName from C++");
  tap_ok(kronblasCreateWithBackend(&h, KRONBLAS_BACKEND_CPU) == KRONBLAS_STATUS_SUCCESS, "create a CPU handle");
  {
    // (F0 (x) F1) x with F0 = [1 2; 3 4], F1 = [5 6], x = [1 2 3 4], alpha = i:
    // [95 207] * i
    const kronblasDoubleComplex f0[] = { { 1, 0 }, { 3, 0 }, { 2, 0 }, { 4, 0 } }, f1[] = { { 5, 0 }, { 6, 0 } };
    const kronblasDoubleComplex *F[] = { f0, f1 };
    const int p[] = { 2, 2 }, q[] = { 2, 1 }, ldf[] = { 2, 1 };
    const kronblasDoubleComplex X[] = { { 1, 0 }, { 2, 0 }, { 3, 0 }, { 4, 0 } };
    const kronblasDoubleComplex alpha = { 0, 1 }, beta = { 0, 0 };
    kronblasDoubleComplex Y[2] = { { NAN, NAN }, { NAN, NAN } };
    kronblasStatus_t st = kronblasZgekmm(h, KRONBLAS_SIDE_LEFT, KRONBLAS_OP_N, KRONBLAS_OP_N, 1, 2, p, q,
                                         &alpha, X, 4, F, ldf, &beta, Y, 2);
    tap_ok(st == KRONBLAS_STATUS_SUCCESS && Y[0].x == 0 && Y[0].y == 95 && Y[1].x == 0 && Y[1].y == 207,
           "kronblasZgekmm from C++: %s, y = (%g,%g) (%g,%g), want (0,95) (0,207)",
           kronblasGetStatusName(st), Y[0].x, Y[0].y, Y[1].x, Y[1].y);
  }
  tap_ok(kronblasDestroy(h) == KRONBLAS_STATUS_SUCCESS, "destroy");
  return tap_done();
}
