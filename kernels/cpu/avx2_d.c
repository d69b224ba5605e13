/* avx2_d.c - optimised CPU kernels, avx2, double (template: opt_kernels.inc). */
#if defined(__x86_64__) && defined(__GNUC__)
#define KB_ISA_AVX2 1
#define KB_RDOUBLE 1
#define KB_CPLX 0
#define KB_FN(name) kb_cpu_avx2_##name##_d
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_avx2_kernels_d = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_avx2_group_d, kb_cpu_avx2_prepare_d, kb_cpu_avx2_pack_d,
  kb_cpu_avx2_digit0_d, kb_cpu_avx2_pack_t_d,
  kb_cpu_avx2_band_d, kb_cpu_avx2_pack_band_d, KB_BAND_HALF
};
#endif

