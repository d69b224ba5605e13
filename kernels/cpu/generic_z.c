/* generic_z.c - optimised CPU kernels, generic, double complex (template: opt_kernels.inc). */
#define KB_ISA_GENERIC 1
#define KB_RDOUBLE 1
#define KB_CPLX 1
#define KB_FN(name) kb_cpu_generic_##name##_z
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_generic_kernels_z = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_generic_group_z, kb_cpu_generic_prepare_z, kb_cpu_generic_pack_z,
  NULL, NULL, NULL, NULL, 0 /* no digit0 or band for complex types */
};

