/* avx2_z.c - optimised CPU kernels, avx2, double complex (template: opt_kernels.inc). */
#if defined(__x86_64__) && defined(__GNUC__)
#define KB_ISA_AVX2 1
#define KB_RDOUBLE 1
#define KB_CPLX 1
#define KB_FN(name) kb_cpu_avx2_##name##_z
#include "opt_kernels.inc"

const kb_cpu_opt_t kb_cpu_avx2_kernels_z = {
  KB_ISA_NAME, KB_CL, KB_NACC, kb_cpu_avx2_group_z, kb_cpu_avx2_prepare_z, kb_cpu_avx2_pack_z,
  NULL, NULL, NULL, NULL, 0 /* no digit0 or band for complex types */
};
#endif

