/* t-cpu-ref.c - the CPU tests of t-cpu-body.c on the reference kernels
 * (one factor per pass, kernels/cpu/ref_kernels.inc), which the fast path
 * falls back to and every optimised kernel is measured against. */
#define KB_TEST_ISA "ref"
#include "t-cpu-body.c"
