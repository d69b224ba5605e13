// fast_d.cu - the precompiled double configurations of the fast kernel
// (kb_fast.cuh); see fast_s.cu.  Slabs hold half as many elements as for
// float (a 32-byte sector is 4 doubles, so RL >= 4 suffices) and the
// register tile is halved for P >= 64 so that the accumulators stay in
// registers; P = 32 uses 2x16 (H200, forced plans: 1024_32x32^3 0.674 ->
// 0.575 ms against 4x8; cuBLAS' FP64 tensor cores still win there).
// P = 16 takes 2x16 and P = 32 its multiply loop fully unrolled: the
// tuner's neighbours of the previous 4x8 and rolled loop (H100,
// 2026-11-21, lib/cuda_plan.c kb_jit_variants) were faster at every
// position of the standard shapes with the same blocks per SM -- P = 16
// one factor 0.429 -> 0.392 ms (K = 65536), two fused 0.489 -> 0.419;
// P = 32 one 6.41 -> 6.24 (K = 2^20), two 10.79 -> 9.96.  P = 8 takes two
// vectors a thread in 256-thread blocks (one block per SM, 2x2 vectors x
// slices): after the index arithmetic was cut (session 9) the 128-thread
// blocks ran three to an SM and three fused factors slowed to 2.16 ms at
// K = 2^18, m = 1024 (H100), where these take 1.49 (one and two factors
// 1.51, 1.52 against 1.72, 1.65); lib/cuda_plan.c prices such blocks as
// overlapping their own loads.  Two fused 16x16 take a slab of 8192 (256
// threads, one block per SM): 6.57 -> 6.05 ms at K = 2^20, 0.41 -> 0.38 at
// 2^16 (H100, session 9).
#include "kb_fast.cuh"

//                    T       type P    Q    F  TP   NS    TM RM RK RQ ST XU
const kb_fast_entry kb_fast_table_d[] = {
  KB_FAST_ENTRY(double, 1,   8,   8,   1,  8,  512,  2, 2, 2, 8, 2, 1),
  KB_FAST_ENTRY(double, 1,   8,   8,   2,  8,  512,  2, 2, 2, 8, 2, 1),
  KB_FAST_ENTRY(double, 1,   8,   8,   3,  8,  512,  2, 2, 2, 8, 2, 1),
  KB_FAST_ENTRY(double, 1,  16,  16,   1, 16,  256,  1, 1, 2, 16, 2, 1),
  KB_FAST_ENTRY(double, 1,  16,  16,   2, 16,  512,  1, 1, 2, 16, 2, 1),
  KB_FAST_ENTRY(double, 1,  32,  32,   1, 32,  128,  1, 1, 2, 16, 2, 16),
  KB_FAST_ENTRY(double, 1,  32,  32,   2, 32,  256,  1, 1, 2, 16, 2, 16),
  KB_FAST_ENTRY(double, 1,  64,  64,   1, 32,   64,  2, 1, 4, 8, 2, 1),
  KB_FAST_ENTRY(double, 1, 128, 128,   1, 32,   64,  1, 1, 4, 8, 2, 1),
  KB_FAST_ENTRY(double, 1,  64,  64,   1, 32,   64,  2, 1, 4, 8, 2, 16),
  KB_FAST_ENTRY(double, 1, 128, 128,   1, 32,   64,  1, 1, 4, 8, 2, 16),
};
const int kb_fast_table_d_n = sizeof kb_fast_table_d / sizeof kb_fast_table_d[0];
