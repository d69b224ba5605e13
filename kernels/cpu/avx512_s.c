/* avx512_s.c - optimised CPU kernels, avx512, float (template: opt_kernels.inc). */
#if defined(__x86_64__) && defined(__GNUC__)
#define KB_ISA_AVX512 1
#define KB_RDOUBLE 0
#define KB_CPLX 0
#define KB_FN(name) kb_cpu_avx512_##name##_s
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_avx512_kernels_s = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_avx512_group_s, kb_cpu_avx512_prepare_s, kb_cpu_avx512_pack_s,
  kb_cpu_avx512_digit0_s, kb_cpu_avx512_pack_t_s,
  kb_cpu_avx512_band_s, kb_cpu_avx512_pack_band_s, KB_BAND_HALF
};
#endif

