/* ref_table.c - the reference kernel tables, indexed by kronblasDataType_t. */
#include "kb_cpu_kernels.h"

const kb_cpu_kernels_t *const kb_cpu_ref_kernels[4] = {
  &kb_cpu_ref_kernels_s, &kb_cpu_ref_kernels_d, &kb_cpu_ref_kernels_c, &kb_cpu_ref_kernels_z
};
