/* ref_s.c - reference CPU kernels for float (template: ref_kernels.inc). */
#include <complex.h>
#include "kb_cpu_kernels.h"

#define KB_T float
#define KB_CONJ(v) (v)
#define KB_STEP kb_cpu_ref_step_s
#define KB_PACK kb_cpu_ref_pack_s
#define KB_SCALE kb_cpu_ref_scale_s
#define KB_XPBY kb_cpu_ref_xpby_s
#include "ref_kernels.inc"

const kb_cpu_kernels_t kb_cpu_ref_kernels_s = {
  "ref", kb_cpu_ref_step_s, kb_cpu_ref_pack_s, kb_cpu_ref_scale_s, kb_cpu_ref_xpby_s
};
