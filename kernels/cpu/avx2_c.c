/* avx2_c.c - optimised CPU kernels, avx2, float complex (template: opt_kernels.inc). */
#if defined(__x86_64__) && defined(__GNUC__)
#define KB_ISA_AVX2 1
#define KB_RDOUBLE 0
#define KB_CPLX 1
#define KB_FN(name) kb_cpu_avx2_##name##_c
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_avx2_kernels_c = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_avx2_group_c, kb_cpu_avx2_prepare_c, kb_cpu_avx2_pack_c,
  NULL, NULL, NULL, NULL, 0 /* no digit0 or band for complex types */
};
#endif

