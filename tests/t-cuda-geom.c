/* t-cuda-geom.c - the whole-row kernel's launch geometry
 * (kb_cuda_row_geom, kernels/cuda/row.cu) as the planner sees it, with or
 * without a GPU (CI has none: the library then assumes an H100's 132 SMs
 * and 227 KB of shared memory a block, kb_cuda_dev_props_assume, and no
 * clusters): which steps prefetch the next vector by default, the
 * variants' kernel numbers, and a one-block request kept one block.
 * Statically linked for the internal functions. */
#include "tap.h"
#include "kb_cuda_kernels.h"

#include <stdint.h>

/* The geometry of m vectors of (P x P)^n, type 0 float / 1 double; kern 0:
 * the default; -1 where there is none. */
static int geom(int kern, int type, int64_t m, int64_t P, int n, kb_cuda_row_geom_t *g)
{
  int64_t p[KB_CUDA_MAXF], K = 1;
  int i;
  for (i = 0; i < n; i++) {
    p[i] = P;
    K *= P;
  }
  return kern == 0 ? kb_cuda_row_geom(type, m, 1, K, n, p, p, g) : kb_cuda_row_geom_k(kern, type, m, 1, K, n, p, p, g);
}

int main(void)
{
  kb_cuda_row_geom_t g;
  int k, c, t, pf, ok = 1;
  kb_cuda_dev_props_assume(132, 232448);

  /* variant numbers: C, T and PF back from every one, none the plain kernel */
  for (pf = 0; pf <= 1; pf++)
    for (c = 1; c <= 8; c++)
      for (t = 64; t <= 512; t += 64) {
        k = kb_cuda_row_var_kernel(c, t, pf);
        ok = ok && kb_cuda_kernel_is_row(k) && k < KB_KERNEL_ROW_VAR && kb_cuda_row_var_C(k) == c &&
             kb_cuda_row_var_T(k) == t && kb_cuda_row_var_PF(k) == pf;
      }
  tap_ok(ok, "row variants: C, T and PF come back from the kernel number");
  tap_ok(kb_cuda_row_var_PF(KB_KERNEL_ROW) < 0 && kb_cuda_row_var_C(KB_KERNEL_ROW) == 0,
         "the plain whole-row kernel leaves the prefetch to the geometry");

  /* the default prefetch: double shares whose two buffers leave three
   * blocks an SM, with two vectors a resident block */
  tap_ok(geom(0, 1, 1024, 8, 4, &g) == 0 && g.pf == 1 && g.cluster == 1 && g.fsm == 2 * 4096 &&
             g.smem == (2 * 4096 + 4 * 64) * 8,
         "double 1024_8x8^4: one block, two row buffers, the next vector prefetched");
  tap_ok(geom(0, 0, 1024, 8, 4, &g) == 0 && g.pf == 0 && g.fsm == 4096, "float 1024_8x8^4: no prefetch (measured even)");
  tap_ok(geom(0, 1, 300, 8, 4, &g) == 0 && g.pf == 0, "double 300_8x8^4: no prefetch (vectors for one a block)");
  tap_ok(geom(0, 1, 1024, 3, 7, &g) == 0 && g.pf == 0, "double 1024_3x3^7: no prefetch (a row of 2187: not whole chunks)");
  tap_ok(geom(0, 1, 1024, 6, 5, &g) == 0 && g.pf == 0, "double 1024_6x6^5: no prefetch (two buffers of 61 KB)");
  tap_ok(geom(0, 1, 1024, 8, 5, &g) != 0 || g.pf == 0, "double 1024_8x8^5: no prefetch (one block an SM with two buffers)");
  tap_ok(geom(0, 0, 1024, 16, 4, &g) != 0 || g.pf == 0, "float 1024_16x16^4: no prefetch");

  /* variants */
  tap_ok(geom(kb_cuda_row_var_kernel(1, 256, 1), 1, 1024, 8, 4, &g) == 0 && g.pf == 1 && g.threads == 256 &&
             g.cluster == 1,
         "double 1024_8x8^4 c1:t256:p: prefetched on request");
  tap_ok(geom(kb_cuda_row_var_kernel(1, 256, 1), 0, 1024, 8, 4, &g) != 0,
         "float 1024_8x8^4 c1:t256:p refused (the prefetching kernel is double only)");
  tap_ok(geom(kb_cuda_row_var_kernel(4, 128, 1), 1, 1024, 4, 7, &g) != 0,
         "double 1024_4x4^7 c4:t128:p refused (one block a vector only)");
  tap_ok(geom(kb_cuda_row_var_kernel(1, 256, 0), 1, 1024, 8, 4, &g) == 0 && g.pf == 0 && g.fsm == 4096,
         "double 1024_8x8^4 c1:t256: not prefetched on request");
  tap_ok(geom(kb_cuda_row_var_kernel(1, 512, 1), 1, 64, 4, 7, &g) != 0,
         "double 4^7 c1:t512:p refused (two 128 KB buffers)");
  tap_ok(geom(kb_cuda_row_var_kernel(1, 256, 1), 1, 64, 3, 5, &g) != 0,
         "double 3^5 c1:t256:p refused (a row of 243: not whole chunks)");
  /* float 4^7 (64 KB) takes clusters of two by choice where the device
   * has clusters; c1 is one block either way */
  tap_ok(geom(kb_cuda_row_var_kernel(1, 512, 0), 0, 1024, 4, 7, &g) == 0 && g.cluster == 1 && g.threads == 512,
         "float 1024_4x4^7 c1:t512: one block");
  tap_ok(geom(kb_cuda_row_var_kernel(1, 128, 1), 1, 1024, 4, 6, &g) == 0 && g.cluster == 1 && g.pf == 1,
         "double 1024_4x4^6 c1:t128:p: one block, prefetched");
  return tap_done();
}
