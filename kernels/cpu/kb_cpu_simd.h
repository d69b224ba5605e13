/* kb_cpu_simd.h - the vector operations opt_kernels.inc is written in, for
 * one ISA and one component type.
 *
 * The including file defines one of KB_ISA_AVX512, KB_ISA_AVX2,
 * KB_ISA_GENERIC and KB_RDOUBLE (0: float components, 1: double).  The
 * ISA-specific code is compiled per function (KB_TGT, a target attribute),
 * never with global -m flags, so the library still loads on any x86-64 and
 * the driver picks the ISA at run time. */
#ifndef KB_CPU_SIMD_H
#define KB_CPU_SIMD_H

#include <stdint.h>
#include <string.h>

#if KB_RDOUBLE
typedef double kb_r;
#else
typedef float kb_r;
#endif

#define KB_INLINE static inline __attribute__((always_inline))

/* ------------------------------------------------------------ AVX-512 */
#if defined(KB_ISA_AVX512)
#include <immintrin.h>
#define KB_ISA_NAME "avx512"
#define KB_VBYTES 64
#define KB_SFENCE() _mm_sfence()
#define KB_TGT __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma,avx")))
#define KB_NACC 24
/* Slice blocks in the general micro-tiles (opt_kernels.inc, kb_uk_sb): a
 * 512-bit load, plain or broadcast, issues at one per cycle on the Ice
 * Lake guest this was measured on (256-bit ones at 1.65, FMAs at 1.7-2),
 * so a micro-tile needs at most one load per two FMAs; 8x2 has 10 per 16,
 * two slices sharing each broadcast (6x2s2) 10 per 24, 8x1 9 per 8 and
 * three slices (8x1s3) 11 per 24. */
#define KB_UK_SB2 1
#define KB_HAVE_TR 1

/* In-register transposes of a square block of units (32, 64 or 128 bits):
 * rows i < nr of s are loaded (the first nc units of each, the rest zero),
 * rows nc.. of the result are not stored.  Strides in units.  Called with
 * constant full sizes (KB_TR) the masks fold away. */

/* 16x16 floats: unpack pairs, then 64-bit pairs, then 128-bit lanes twice. */
KB_INLINE KB_TGT void kb_tr_b32m(const float *s, int64_t ls, float *d, int64_t ld, int nr, int nc)
{
  const __mmask16 m = (__mmask16)((1u << nc) - 1);
  __m512 r[16], t[16];
  int i, j;
#pragma GCC unroll 16
  for (i = 0; i < 16; i++) r[i] = i < nr ? _mm512_maskz_loadu_ps(m, s + i * ls) : _mm512_setzero_ps();
#pragma GCC unroll 16
  for (i = 0; i < 8; i++) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 16
  for (i = 0; i < 4; i++) {
    __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
    __m512d c = _mm512_castps_pd(t[4 * i + 2]), e = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, e));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, e));
  }
  /* r[4i+j], 128-bit lane L: rows 4i..4i+3 of column 4L+j */
#pragma GCC unroll 16
  for (j = 0; j < 4; j++) {
    t[j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88);
    t[4 + j] = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xdd);
    t[8 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88);
    t[12 + j] = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xdd);
  }
#pragma GCC unroll 16
  for (j = 0; j < 4; j++) {
    if (j < nc) _mm512_storeu_ps(d + j * ld, _mm512_shuffle_f32x4(t[j], t[8 + j], 0x88));
    if (8 + j < nc) _mm512_storeu_ps(d + (8 + j) * ld, _mm512_shuffle_f32x4(t[j], t[8 + j], 0xdd));
    if (4 + j < nc) _mm512_storeu_ps(d + (4 + j) * ld, _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0x88));
    if (12 + j < nc) _mm512_storeu_ps(d + (12 + j) * ld, _mm512_shuffle_f32x4(t[4 + j], t[12 + j], 0xdd));
  }
}

/* 8x8 of 64-bit units (double, complex float). */
KB_INLINE KB_TGT void kb_tr_b64m(const double *s, int64_t ls, double *d, int64_t ld, int nr, int nc)
{
  const __mmask8 m = (__mmask8)((1u << nc) - 1);
  __m512d r[8], t[8], u[8];
  int i;
#pragma GCC unroll 8
  for (i = 0; i < 8; i++) r[i] = i < nr ? _mm512_maskz_loadu_pd(m, s + i * ls) : _mm512_setzero_pd();
#pragma GCC unroll 8
  for (i = 0; i < 4; i++) {
    t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 8
  for (i = 0; i < 2; i++) {
    u[4 * i + 0] = _mm512_shuffle_f64x2(t[4 * i], t[4 * i + 2], 0x88);
    u[4 * i + 1] = _mm512_shuffle_f64x2(t[4 * i + 1], t[4 * i + 3], 0x88);
    u[4 * i + 2] = _mm512_shuffle_f64x2(t[4 * i], t[4 * i + 2], 0xdd);
    u[4 * i + 3] = _mm512_shuffle_f64x2(t[4 * i + 1], t[4 * i + 3], 0xdd);
  }
#pragma GCC unroll 8
  for (i = 0; i < 4; i++) {
    if (i < nc) _mm512_storeu_pd(d + i * ld, _mm512_shuffle_f64x2(u[i], u[4 + i], 0x88));
    if (4 + i < nc) _mm512_storeu_pd(d + (4 + i) * ld, _mm512_shuffle_f64x2(u[i], u[4 + i], 0xdd));
  }
}

/* 4x4 of 128-bit units (complex double); strides in units. */
KB_INLINE KB_TGT void kb_tr_b128m(const double *s, int64_t ls, double *d, int64_t ld, int nr, int nc)
{
  const __mmask8 m = (__mmask8)((1u << (2 * nc)) - 1);
  __m512d r[4], t0, t1, t2, t3;
  int i;
#pragma GCC unroll 4
  for (i = 0; i < 4; i++) r[i] = i < nr ? _mm512_maskz_loadu_pd(m, s + 2 * i * ls) : _mm512_setzero_pd();
  t0 = _mm512_shuffle_f64x2(r[0], r[1], 0x44);
  t1 = _mm512_shuffle_f64x2(r[0], r[1], 0xee);
  t2 = _mm512_shuffle_f64x2(r[2], r[3], 0x44);
  t3 = _mm512_shuffle_f64x2(r[2], r[3], 0xee);
  _mm512_storeu_pd(d, _mm512_shuffle_f64x2(t0, t2, 0x88));
  if (nc > 1) _mm512_storeu_pd(d + 2 * ld, _mm512_shuffle_f64x2(t0, t2, 0xdd));
  if (nc > 2) _mm512_storeu_pd(d + 4 * ld, _mm512_shuffle_f64x2(t1, t3, 0x88));
  if (nc > 3) _mm512_storeu_pd(d + 6 * ld, _mm512_shuffle_f64x2(t1, t3, 0xdd));
}

#define kb_tr_b32(s, ls, d, ld) kb_tr_b32m((s), (ls), (d), (ld), 16, 16)
#define kb_tr_b64(s, ls, d, ld) kb_tr_b64m((s), (ls), (d), (ld), 8, 8)
#define kb_tr_b128(s, ls, d, ld) kb_tr_b128m((s), (ls), (d), (ld), 4, 4)

#if KB_RDOUBLE
typedef __m512d kb_v;
#define KB_RVL 8
#define KB_VZERO() _mm512_setzero_pd()
#define KB_VLOAD(p) _mm512_loadu_pd(p)
#define KB_VSTORE(p, v) _mm512_storeu_pd((p), (v))
#define KB_VSTREAM(p, v) _mm512_stream_pd((p), (v))
#define KB_VLOADN(p, n) _mm512_maskz_loadu_pd((__mmask8)((1u << (n)) - 1), (p))
#define KB_VSTOREN(p, v, n) _mm512_mask_storeu_pd((p), (__mmask8)((1u << (n)) - 1), (v))
#define KB_VBCAST(p) _mm512_set1_pd(*(p))
#define KB_VSET1(x) _mm512_set1_pd(x)
#define KB_VFMA(a, b, c) _mm512_fmadd_pd((a), (b), (c))
#define KB_VMUL(a, b) _mm512_mul_pd((a), (b))
#define KB_VADD(a, b) _mm512_add_pd((a), (b))
#define KB_VSWAP(v) _mm512_permute_pd((v), 0x55)
#define KB_VADDSUB(a, b) _mm512_fmaddsub_pd((a), _mm512_set1_pd(1.0), (b))
#define KB_VNEGODD(v) _mm512_mask_sub_pd((v), 0xaa, _mm512_setzero_pd(), (v))
/* k pairs (opt_kernels.inc, kb_d0p_body): (p[0], p[1]) repeated; pair
 * vectors (r0[j], r1[j]) of the low (LO) or high (HI) half of two rows;
 * the sums of adjacent lanes of a, then of b (the pairs folded back). */
#define KB_VBCAST2(p) _mm512_broadcast_f64x2(_mm_loadu_pd(p))
#define KB_VPAIRLO(r0, r1) _mm512_permutex2var_pd((r0), _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), (r1))
#define KB_VPAIRHI(r0, r1) _mm512_permutex2var_pd((r0), _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15), (r1))
#define KB_VPAIRSUM(a, b) _mm512_add_pd(_mm512_permutex2var_pd((a), _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), (b)), \
                                        _mm512_permutex2var_pd((a), _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), (b)))
#else
typedef __m512 kb_v;
#define KB_RVL 16
#define KB_VZERO() _mm512_setzero_ps()
#define KB_VLOAD(p) _mm512_loadu_ps(p)
#define KB_VSTORE(p, v) _mm512_storeu_ps((p), (v))
#define KB_VSTREAM(p, v) _mm512_stream_ps((p), (v))
#define KB_VLOADN(p, n) _mm512_maskz_loadu_ps((__mmask16)((1u << (n)) - 1), (p))
#define KB_VSTOREN(p, v, n) _mm512_mask_storeu_ps((p), (__mmask16)((1u << (n)) - 1), (v))
#define KB_VBCAST(p) _mm512_set1_ps(*(p))
#define KB_VSET1(x) _mm512_set1_ps(x)
#define KB_VFMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define KB_VMUL(a, b) _mm512_mul_ps((a), (b))
#define KB_VADD(a, b) _mm512_add_ps((a), (b))
#define KB_VSWAP(v) _mm512_permute_ps((v), 0xb1)
#define KB_VADDSUB(a, b) _mm512_fmaddsub_ps((a), _mm512_set1_ps(1.0f), (b))
#define KB_VNEGODD(v) _mm512_mask_sub_ps((v), 0xaaaa, _mm512_setzero_ps(), (v))
KB_INLINE KB_TGT __m512 kb_vbcast2_ps(const float *p)
{
  int64_t u;
  memcpy(&u, p, sizeof u);
  return _mm512_castsi512_ps(_mm512_set1_epi64(u));
}
#define KB_VBCAST2(p) kb_vbcast2_ps(p)
#define KB_VPAIRLO(r0, r1) _mm512_permutex2var_ps((r0), _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), (r1))
#define KB_VPAIRHI(r0, r1) _mm512_permutex2var_ps((r0), _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), (r1))
#define KB_VPAIRSUM(a, b) _mm512_add_ps( \
    _mm512_permutex2var_ps((a), _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), (b)), \
    _mm512_permutex2var_ps((a), _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), (b)))
#endif
/* The digit-0 kernel in k pairs for factors one to three vectors wide
 * (opt_kernels.inc, kb_d0p_run), where broadcasts, one per slice and k,
 * would otherwise be at least half the loads (see KB_UK_SB2). */
#define KB_D0_PAIRS 1

/* --------------------------------------------------------------- AVX2 */
#elif defined(KB_ISA_AVX2)
#include <immintrin.h>
#define KB_ISA_NAME "avx2"
#define KB_VBYTES 32
#define KB_SFENCE() _mm_sfence()
#define KB_TGT __attribute__((target("avx2,fma,avx")))
#define KB_NACC 12
#define KB_UK_SB2 0
#define KB_D0_PAIRS 0
#define KB_HAVE_TR 1

/* In-register transposes, as for AVX-512 (masked loads of nc units from
 * rows i < nr, rows nc.. of the result not stored). */

/* 8x8 floats. */
KB_INLINE KB_TGT void kb_tr_b32m(const float *s, int64_t ls, float *d, int64_t ld, int nr, int nc)
{
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256 r[8], t[8], u[8];
  int i, j;
#pragma GCC unroll 8
  for (i = 0; i < 8; i++)
    r[i] = i < nr ? (nc == 8 ? _mm256_loadu_ps(s + i * ls) : _mm256_maskload_ps(s + i * ls, m)) : _mm256_setzero_ps();
#pragma GCC unroll 8
  for (i = 0; i < 4; i++) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 8
  for (i = 0; i < 2; i++) {
    u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
  }
  /* u[4i+j], 128-bit lane L: rows 4i..4i+3 of column 4L+j */
#pragma GCC unroll 8
  for (j = 0; j < 4; j++) {
    if (j < nc) _mm256_storeu_ps(d + j * ld, _mm256_permute2f128_ps(u[j], u[4 + j], 0x20));
    if (4 + j < nc) _mm256_storeu_ps(d + (4 + j) * ld, _mm256_permute2f128_ps(u[j], u[4 + j], 0x31));
  }
}

/* 4x4 of 64-bit units. */
KB_INLINE KB_TGT void kb_tr_b64m(const double *s, int64_t ls, double *d, int64_t ld, int nr, int nc)
{
  const __m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(nc), _mm256_setr_epi64x(0, 1, 2, 3));
  __m256d r[4], t0, t1, t2, t3;
  int i;
#pragma GCC unroll 4
  for (i = 0; i < 4; i++)
    r[i] = i < nr ? (nc == 4 ? _mm256_loadu_pd(s + i * ls) : _mm256_maskload_pd(s + i * ls, m)) : _mm256_setzero_pd();
  t0 = _mm256_unpacklo_pd(r[0], r[1]);
  t1 = _mm256_unpackhi_pd(r[0], r[1]);
  t2 = _mm256_unpacklo_pd(r[2], r[3]);
  t3 = _mm256_unpackhi_pd(r[2], r[3]);
  _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
  if (nc > 1) _mm256_storeu_pd(d + ld, _mm256_permute2f128_pd(t1, t3, 0x20));
  if (nc > 2) _mm256_storeu_pd(d + 2 * ld, _mm256_permute2f128_pd(t0, t2, 0x31));
  if (nc > 3) _mm256_storeu_pd(d + 3 * ld, _mm256_permute2f128_pd(t1, t3, 0x31));
}

/* 2x2 of 128-bit units; strides in units. */
KB_INLINE KB_TGT void kb_tr_b128m(const double *s, int64_t ls, double *d, int64_t ld, int nr, int nc)
{
  const __m256i m = _mm256_setr_epi64x(-1, -1, 0, 0);
  __m256d r0 = nc == 2 ? _mm256_loadu_pd(s) : _mm256_maskload_pd(s, m);
  __m256d r1 = nr < 2 ? _mm256_setzero_pd() : nc == 2 ? _mm256_loadu_pd(s + 2 * ls) : _mm256_maskload_pd(s + 2 * ls, m);
  _mm256_storeu_pd(d, _mm256_permute2f128_pd(r0, r1, 0x20));
  if (nc > 1) _mm256_storeu_pd(d + 2 * ld, _mm256_permute2f128_pd(r0, r1, 0x31));
}

#define kb_tr_b32(s, ls, d, ld) kb_tr_b32m((s), (ls), (d), (ld), 8, 8)
#define kb_tr_b64(s, ls, d, ld) kb_tr_b64m((s), (ls), (d), (ld), 4, 4)
#define kb_tr_b128(s, ls, d, ld) kb_tr_b128m((s), (ls), (d), (ld), 2, 2)

#if KB_RDOUBLE
typedef __m256d kb_v;
#define KB_RVL 4
#define KB_VZERO() _mm256_setzero_pd()
#define KB_VLOAD(p) _mm256_loadu_pd(p)
#define KB_VSTORE(p, v) _mm256_storeu_pd((p), (v))
#define KB_VSTREAM(p, v) _mm256_stream_pd((p), (v))
#define KB_VMASKN(n) _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3))
#define KB_VLOADN(p, n) _mm256_maskload_pd((p), KB_VMASKN(n))
#define KB_VSTOREN(p, v, n) _mm256_maskstore_pd((p), KB_VMASKN(n), (v))
#define KB_VBCAST(p) _mm256_broadcast_sd(p)
#define KB_VSET1(x) _mm256_set1_pd(x)
#define KB_VFMA(a, b, c) _mm256_fmadd_pd((a), (b), (c))
#define KB_VMUL(a, b) _mm256_mul_pd((a), (b))
#define KB_VADD(a, b) _mm256_add_pd((a), (b))
#define KB_VSWAP(v) _mm256_permute_pd((v), 0x5)
#define KB_VADDSUB(a, b) _mm256_addsub_pd((a), (b))
#define KB_VNEGODD(v) _mm256_xor_pd((v), _mm256_set_pd(-0.0, 0.0, -0.0, 0.0))
#else
typedef __m256 kb_v;
#define KB_RVL 8
#define KB_VZERO() _mm256_setzero_ps()
#define KB_VLOAD(p) _mm256_loadu_ps(p)
#define KB_VSTORE(p, v) _mm256_storeu_ps((p), (v))
#define KB_VSTREAM(p, v) _mm256_stream_ps((p), (v))
#define KB_VMASKN(n) _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define KB_VLOADN(p, n) _mm256_maskload_ps((p), KB_VMASKN(n))
#define KB_VSTOREN(p, v, n) _mm256_maskstore_ps((p), KB_VMASKN(n), (v))
#define KB_VBCAST(p) _mm256_broadcast_ss(p)
#define KB_VSET1(x) _mm256_set1_ps(x)
#define KB_VFMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define KB_VMUL(a, b) _mm256_mul_ps((a), (b))
#define KB_VADD(a, b) _mm256_add_ps((a), (b))
#define KB_VSWAP(v) _mm256_permute_ps((v), 0xb1)
#define KB_VADDSUB(a, b) _mm256_addsub_ps((a), (b))
#define KB_VNEGODD(v) _mm256_xor_ps((v), _mm256_set_ps(-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f))
#endif

/* ------------------------------------------------- portable (GNU C vectors) */
#elif defined(KB_ISA_GENERIC)
#define KB_ISA_NAME "generic"
#define KB_VBYTES 16
#define KB_SFENCE() ((void)0)
#define KB_TGT
#define KB_NACC 12
#define KB_UK_SB2 0
#define KB_D0_PAIRS 0
#define KB_HAVE_TR 0
/* 16-byte vectors: SSE2 on any x86-64, NEON elsewhere, scalar code where
 * neither exists; the compiler contracts a*b+c where the target has FMA. */
typedef kb_r kb_v __attribute__((vector_size(16)));
#define KB_RVL ((int)(16 / sizeof(kb_r)))
KB_INLINE kb_v kb_gload(const kb_r *p) { kb_v v; memcpy(&v, p, sizeof v); return v; }
KB_INLINE void kb_gstore(kb_r *p, kb_v v) { memcpy(p, &v, sizeof v); }
#define KB_VZERO() ((kb_v){0})
#define KB_VLOAD(p) kb_gload(p)
#define KB_VSTORE(p, v) kb_gstore((p), (v))
#define KB_VSTREAM(p, v) kb_gstore((p), (v))
KB_INLINE kb_v kb_gloadn(const kb_r *p, int n) { kb_v v = {0}; memcpy(&v, p, (size_t)n * sizeof(kb_r)); return v; }
KB_INLINE void kb_gstoren(kb_r *p, kb_v v, int n) { memcpy(p, &v, (size_t)n * sizeof(kb_r)); }
#define KB_VLOADN(p, n) kb_gloadn((p), (n))
#define KB_VSTOREN(p, v, n) kb_gstoren((p), (v), (n))
#define KB_VSET1(x) (((kb_v){0}) + (kb_r)(x))
#define KB_VBCAST(p) KB_VSET1(*(p))
#define KB_VFMA(a, b, c) ((a) * (b) + (c))
#define KB_VMUL(a, b) ((a) * (b))
#define KB_VADD(a, b) ((a) + (b))
#if KB_RDOUBLE
#define KB_VSWAP(v) ((kb_v){ (v)[1], (v)[0] })
#define KB_SIGNALT ((kb_v){ -1.0, 1.0 })
#else
#define KB_VSWAP(v) ((kb_v){ (v)[1], (v)[0], (v)[3], (v)[2] })
#define KB_SIGNALT ((kb_v){ -1.0f, 1.0f, -1.0f, 1.0f })
#endif
#define KB_VADDSUB(a, b) ((a) + (b) * KB_SIGNALT)
#define KB_VNEGODD(v) ((v) * -KB_SIGNALT)
#else
#error "define one of KB_ISA_AVX512, KB_ISA_AVX2, KB_ISA_GENERIC"
#endif

#endif /* KB_CPU_SIMD_H */
