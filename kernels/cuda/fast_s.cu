// fast_s.cu - the precompiled float configurations of the fast kernel
// (kb_fast.cuh).  One line per instantiation; the CUDA build time grows
// with this list, so it holds what square factors of 8 to 128 need:
//  - two-stage configurations (the next tile loads while this one
//    multiplies) with 16-32 KB slabs, fusing as many factors as keep the
//    output runs a full 32-byte sector (RL >= 8);
//  - one-stage 128 KB slabs (32768 elements) that fuse a whole vector
//    (8^5, 32^3); their RL < 8 is fine only there, where the output is
//    contiguous anyway, and the planner uses them only there.  (Fusing one
//    more factor of a longer vector this way, 8x8^4 or 16x16^3 in 32768
//    elements, needs 512 threads x 64 accumulators: ptxas spills 500+
//    bytes a thread, so they are not built.)
//  - for P = 32 a 4x16 register tile with two k-steps unrolled (H200,
//    forced plans: 1024_32x32^3 0.323 -> 0.298 ms, 1024_32x32^4 12.35 ->
//    11.36 against 4x8; smaller tiles with more threads per block were
//    slower for P = 8, 16 and 32: 1.1-1.2x), also where two factors are
//    fused: the tuner timed two k-steps 5% faster than one there (H200,
//    session 44, two fused factors at 2^29 elements: 2.175 against 2.292
//    ms; the H100 had timed one k-step 8% faster on 2026-11-22, before the
//    index arithmetic was cut; the rolled one stays the tuner's neighbour);
//  - slabs of 8192 for three fused 8x8 factors, two fused 16x16 and one
//    32x32 (runs of 16, 32 and 256 outputs): the tuner's "twice the slab"
//    variants, faster at every position of the standard shapes once the
//    index arithmetic was cut (H100, session 9, one launch, ms): 8x8x3 at
//    K = 2^18, m = 1024 1.08 -> 0.83; 16x16x2 at K = 2^20 3.89 -> 3.24, at
//    2^24, m = 16 0.91 -> 0.82; 32x32 at K = 2^20 3.43 -> 3.06;
//  - for two fused 16x16 factors in slabs of 8192, four k-steps unrolled:
//    the tuner took that neighbour (a JIT variant then) in every pass of
//    16_16x16^6 and 1024_16x16^5 (H200, session 32, its timings of one
//    launch at K = 2^24, m = 16: 0.668 ms against 0.715 with one k-step);
//  - for three fused 8x8 factors in slabs of 8192, two k-steps unrolled:
//    the tuner's timings of that neighbour against one k-step, H200: 0.0867
//    against 0.0894 ms at K = 2^15, m = 1024; 0.645 against 0.654 at K =
//    2^24, m = 16 (session 32); 0.630 against 0.651 at K = 2^18, m = 1024
//    (session 31);
//  - for three fused 8x8 factors also a slab of 16384 in 512-thread blocks
//    (runs of 32 outputs), ahead of the 8192 one so that the model takes it
//    where K allows (it prices both alike; at few tiles a bigger tile's
//    latency prices it out): the tuner timed it 8% faster once fused
//    factors were stored once (H100, 2026-11-22, K = 2^18 and 2^24, m =
//    1024 and 16: 0.833 -> 0.764 ms, 0.848 -> 0.785);
//  - for P >= 64 a GEMM-like 32-wide k-tile with an 8x8 register tile, in
//    two variants (multiply loop rolled or fully unrolled) for the tuner;
//  - two fused 64x64 factors over a whole vector of 4096 (the only slab
//    where their runs of one output are contiguous: the planner takes it
//    only there), two vectors and 256 threads a block, a 4x8 register
//    tile, four k-steps unrolled: 1024_64x64^2 in one pass instead of two
//    cuBLAS GEMMs (H100, 2026-11-22, tuner's timings of the launch: 0.0360
//    ms against 0.042 for cuBLAS' two; of nine shapes tried, 128 threads
//    with an 8x8 tile 0.047, two vectors a thread 0.037, 512 threads
//    0.039-0.046, one vector a block 0.043-0.048, rolled 0.037).
#include "kb_fast.cuh"

//                    T      type P    Q    F  TP   NS    TM RM RK RQ ST XU
const kb_fast_entry kb_fast_table_s[] = {
  KB_FAST_ENTRY(float, 0,   8,   8,   1,  8,  512,  1, 1, 4, 8, 2, 1),
  KB_FAST_ENTRY(float, 0,   8,   8,   2,  8,  512,  1, 1, 4, 8, 2, 1),
  KB_FAST_ENTRY(float, 0,   8,   8,   3,  8, 2048,  1, 1, 4, 8, 2, 1),
  KB_FAST_ENTRY(float, 0,   8,   8,   3,  8, 1024,  1, 1, 4, 8, 2, 2),
  KB_FAST_ENTRY(float, 0,   8,   8,   5,  8, 4096,  1, 1, 16, 8, 1, 1),
  KB_FAST_ENTRY(float, 0,  16,  16,   1, 16,  256,  1, 1, 4, 8, 2, 1),
  KB_FAST_ENTRY(float, 0,  16,  16,   2, 16,  512,  1, 1, 4, 8, 2, 4),
  KB_FAST_ENTRY(float, 0,  32,  32,   1, 32,  256,  1, 1, 4, 16, 2, 2),
  KB_FAST_ENTRY(float, 0,  32,  32,   2, 32,  256,  1, 1, 4, 16, 2, 2),
  KB_FAST_ENTRY(float, 0,  32,  32,   3, 32, 1024,  1, 1, 16, 8, 1, 1),
  KB_FAST_ENTRY(float, 0,  64,  64,   1, 32,   64,  2, 1, 8, 8, 2, 1),
  KB_FAST_ENTRY(float, 0, 128, 128,   1, 32,  128,  1, 1, 8, 8, 2, 1),
  KB_FAST_ENTRY(float, 0,  64,  64,   1, 32,   64,  2, 1, 8, 8, 2, 8),
  KB_FAST_ENTRY(float, 0, 128, 128,   1, 32,  128,  1, 1, 8, 8, 2, 8),
  KB_FAST_ENTRY(float, 0,  64,  64,   2, 64,   64,  2, 1, 4, 8, 2, 4),
};
const int kb_fast_table_s_n = sizeof kb_fast_table_s / sizeof kb_fast_table_s[0];
