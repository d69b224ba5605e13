/* generic_d.c - optimised CPU kernels, generic, double (template: opt_kernels.inc). */
#define KB_ISA_GENERIC 1
#define KB_RDOUBLE 1
#define KB_CPLX 0
#define KB_FN(name) kb_cpu_generic_##name##_d
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_generic_kernels_d = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_generic_group_d, kb_cpu_generic_prepare_d, kb_cpu_generic_pack_d,
  kb_cpu_generic_digit0_d, kb_cpu_generic_pack_t_d,
  kb_cpu_generic_band_d, kb_cpu_generic_pack_band_d, KB_BAND_HALF
};

