/* kb_cpu_kernels.h - the CPU kernel slots.
 *
 * BLIS style: every slot has a reference kernel (kernels/cpu/ref_*.c, from
 * the template ref_kernels.inc); optimised kernels register themselves in a
 * kb_cpu_kernels_t of their own and the CPU backend picks one table per
 * call.  Kernel names encode type and variant: kb_cpu_<variant>_<slot>_<t>
 * with t in s, d, c, z. */
#ifndef KB_CPU_KERNELS_H
#define KB_CPU_KERNELS_H

#include <stdint.h>

/* One sliced multiply (the seed's Algorithm 1 for one factor):
 *   for r < m, l < q, s < S:
 *     acc = sum_{k<p} A[l*p + k] * in[r*is_r + (s*p + k)*is_i]
 *     out[r*os_r + (l*S + s)*os_i] = epilogue ? alpha*acc + beta*out : acc
 * with in conjugated when conj_in, and beta*out left out (never read) when
 * beta_zero.  A is the packed factor (see pack). */
typedef struct {
  int64_t m, S, p, q;
  const void *in;
  int64_t is_r, is_i;
  int conj_in;
  const void *A;
  void *out;
  int64_t os_r, os_i;
  int epilogue;
  const void *alpha, *beta;
  int beta_zero;
  int nthreads;
} kb_cpu_step_args_t;

typedef struct {
  const char *name;
  void (*step)(const kb_cpu_step_args_t *a);
  /* A[l*p + k] = (conj ? conj : id)(F[l*fs_l + k*fs_k]) for l < q, k < p. */
  void (*pack)(const void *F, int64_t p, int64_t q, int64_t fs_l, int64_t fs_k, int conj, void *A);
  /* Y[r,l] = beta_zero ? 0 : beta * Y[r,l], Y[r,l] at Y[r*ys_m + l*ys_l]. */
  void (*scale)(int64_t m, int64_t L, void *Y, int64_t ys_m, int64_t ys_l,
                const void *beta, int beta_zero, int nthreads);
  /* Y[r,l] = T[r,l] + (beta_zero ? 0 : beta * Y[r,l]). */
  void (*xpby)(int64_t m, int64_t L, const void *T, int64_t ts_m, int64_t ts_l,
               void *Y, int64_t ys_m, int64_t ys_l, const void *beta, int beta_zero, int nthreads);
} kb_cpu_kernels_t;

/* Reference kernels, one table per type (ref_s.c ... ref_z.c), and all four
 * indexed by kronblasDataType_t (ref_table.c). */
extern const kb_cpu_kernels_t kb_cpu_ref_kernels_s, kb_cpu_ref_kernels_d,
                              kb_cpu_ref_kernels_c, kb_cpu_ref_kernels_z;
extern const kb_cpu_kernels_t *const kb_cpu_ref_kernels[4];

#endif /* KB_CPU_KERNELS_H */
