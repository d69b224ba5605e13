/* t-cpu-avx512.c - the fast CPU path's tests with the avx512 kernels forced
 * (SKIP where this CPU or build lacks them); the tests are t-cpu-body.c. */
#define KB_TEST_ISA "avx512"
#include "t-cpu-body.c"
