/* t-cpu-generic.c - the fast CPU path's tests with the generic kernels forced
 * (SKIP where this CPU or build lacks them); the tests are t-cpu-body.c. */
#define KB_TEST_ISA "generic"
#include "t-cpu-body.c"
