/* ref_d.c - reference CPU kernels for double (template: ref_kernels.inc). */
#include <complex.h>
#include "kb_cpu_kernels.h"

#define KB_T double
#define KB_CONJ(v) (v)
#define KB_STEP kb_cpu_ref_step_d
#define KB_PACK kb_cpu_ref_pack_d
#define KB_SCALE kb_cpu_ref_scale_d
#define KB_XPBY kb_cpu_ref_xpby_d
#include "ref_kernels.inc"

const kb_cpu_kernels_t kb_cpu_ref_kernels_d = {
  "ref", kb_cpu_ref_step_d, kb_cpu_ref_pack_d, kb_cpu_ref_scale_d, kb_cpu_ref_xpby_d
};
