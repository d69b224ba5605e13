/* generic_s.c - optimised CPU kernels, generic, float (template: opt_kernels.inc). */
#define KB_ISA_GENERIC 1
#define KB_RDOUBLE 0
#define KB_CPLX 0
#define KB_FN(name) kb_cpu_generic_##name##_s
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_generic_kernels_s = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_generic_group_s, kb_cpu_generic_prepare_s, kb_cpu_generic_pack_s,
  kb_cpu_generic_digit0_s, kb_cpu_generic_pack_t_s,
  kb_cpu_generic_band_s, kb_cpu_generic_pack_band_s, KB_BAND_HALF
};

