/* ref_c.c - reference CPU kernels for float _Complex (template: ref_kernels.inc). */
#include <complex.h>
#include "kb_cpu_kernels.h"

#define KB_T float _Complex
#define KB_CONJ(v) conjf(v)
#define KB_STEP kb_cpu_ref_step_c
#define KB_PACK kb_cpu_ref_pack_c
#define KB_SCALE kb_cpu_ref_scale_c
#define KB_XPBY kb_cpu_ref_xpby_c
#include "ref_kernels.inc"

const kb_cpu_kernels_t kb_cpu_ref_kernels_c = {
  "ref", kb_cpu_ref_step_c, kb_cpu_ref_pack_c, kb_cpu_ref_scale_c, kb_cpu_ref_xpby_c
};
