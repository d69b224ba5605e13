/* ref_z.c - reference CPU kernels for double _Complex (template: ref_kernels.inc). */
#include <complex.h>
#include "kb_cpu_kernels.h"

#define KB_T double _Complex
#define KB_CONJ(v) conj(v)
#define KB_STEP kb_cpu_ref_step_z
#define KB_PACK kb_cpu_ref_pack_z
#define KB_SCALE kb_cpu_ref_scale_z
#define KB_XPBY kb_cpu_ref_xpby_z
#include "ref_kernels.inc"

const kb_cpu_kernels_t kb_cpu_ref_kernels_z = {
  "ref", kb_cpu_ref_step_z, kb_cpu_ref_pack_z, kb_cpu_ref_scale_z, kb_cpu_ref_xpby_z
};
