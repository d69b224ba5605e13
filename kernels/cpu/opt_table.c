/* opt_table.c - the optimised kernel tables, per ISA, indexed by
 * kronblasDataType_t.  ISAs the compiler cannot target are NULL. */
#include <stddef.h>
#include "kb_cpu_opt.h"

extern const kb_cpu_opt_t kb_cpu_generic_kernels_s, kb_cpu_generic_kernels_d,
                          kb_cpu_generic_kernels_c, kb_cpu_generic_kernels_z;
const kb_cpu_opt_t *const kb_cpu_opt_generic[4] = {
  &kb_cpu_generic_kernels_s, &kb_cpu_generic_kernels_d,
  &kb_cpu_generic_kernels_c, &kb_cpu_generic_kernels_z
};

#if defined(__x86_64__) && defined(__GNUC__)
extern const kb_cpu_opt_t kb_cpu_avx512_kernels_s, kb_cpu_avx512_kernels_d,
                          kb_cpu_avx512_kernels_c, kb_cpu_avx512_kernels_z;
extern const kb_cpu_opt_t kb_cpu_avx2_kernels_s, kb_cpu_avx2_kernels_d,
                          kb_cpu_avx2_kernels_c, kb_cpu_avx2_kernels_z;
const kb_cpu_opt_t *const kb_cpu_opt_avx512[4] = {
  &kb_cpu_avx512_kernels_s, &kb_cpu_avx512_kernels_d,
  &kb_cpu_avx512_kernels_c, &kb_cpu_avx512_kernels_z
};
const kb_cpu_opt_t *const kb_cpu_opt_avx2[4] = {
  &kb_cpu_avx2_kernels_s, &kb_cpu_avx2_kernels_d,
  &kb_cpu_avx2_kernels_c, &kb_cpu_avx2_kernels_z
};
#else
const kb_cpu_opt_t *const kb_cpu_opt_avx512[4] = { NULL, NULL, NULL, NULL };
const kb_cpu_opt_t *const kb_cpu_opt_avx2[4] = { NULL, NULL, NULL, NULL };
#endif
