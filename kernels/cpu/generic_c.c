/* generic_c.c - optimised CPU kernels, generic, float complex (template: opt_kernels.inc). */
#define KB_ISA_GENERIC 1
#define KB_RDOUBLE 0
#define KB_CPLX 1
#define KB_FN(name) kb_cpu_generic_##name##_c
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_generic_kernels_c = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_generic_group_c, kb_cpu_generic_prepare_c, kb_cpu_generic_pack_c,
  NULL, NULL, NULL, NULL, 0 /* no digit0 or band for complex types */
};

