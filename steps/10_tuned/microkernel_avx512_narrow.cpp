// The AVX-512 narrow strips: the last 1-4 columns of an unpacked product as dot products
// along k (README: "The narrow last columns").
#include "microkernels.hpp"

// GCC 12 warns that the internal _mm512_undefined_ps() of the ymm <-> zmm conversions "may be
// used uninitialized" (a false alarm, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)   // a GCC-only warning: clang would warn that it does not know it
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace step10 {
namespace {

// The last 1-4 columns of an unpacked product, after its whole 16-column vectors, as dot
// products along k. In a tile, such a strip costs one FMA per row and step of p however few
// columns it has: at n = 100 the 4 columns left after 96 take 1 of every 7 FMAs for 4 % of
// the work. Here a zmm holds 16 steps of p instead: A(i, p..p+15), one load from row i, times
// the same 16 entries of one of the strip's columns of B, which pack_b_narrow has laid out
// along k (bt[j * kpad + p] = B(p, j)). A row then costs 4 FMAs per 16 steps of p (the strip
// zero-padded to 4 columns), and its 4 accumulators are summed across their lanes once at
// the end: about 9 shuffles, which is why 5-8 columns (8 accumulators, twice the shuffles)
// stay in the ymm strip (README: "The narrow last columns").
//
// acc[r][j] holds 16 partial sums of C(r, j); sum4 adds up four such accumulators into
// [s0 s1 s2 s3]: quarters first (two accumulators per register), then the four floats left
// in each quarter.
inline __m128 sum4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
    // [a0 q0+q2, a0 q1+q3, a1 q0+q2, a1 q1+q3] and the same for a2, a3
    const __m512 t01 = _mm512_add_ps(_mm512_shuffle_f32x4(a0, a1, 0x44), _mm512_shuffle_f32x4(a0, a1, 0xEE));
    const __m512 t23 = _mm512_add_ps(_mm512_shuffle_f32x4(a2, a3, 0x44), _mm512_shuffle_f32x4(a2, a3, 0xEE));
    // quarter j: four floats whose sum is s_j
    __m512 q = _mm512_add_ps(_mm512_shuffle_f32x4(t01, t23, 0x88), _mm512_shuffle_f32x4(t01, t23, 0xDD));
    q = _mm512_add_ps(q, _mm512_permute_ps(q, 0xB1));   // swap neighbours
    q = _mm512_add_ps(q, _mm512_permute_ps(q, 0x4E));   // swap pairs: every float of quarter j is s_j
    return _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), q));
}

template <int R>
void narrow_rows(int k, const float* a, long lda, const float* bt, long kpad, float* c, long ldc, int nr) {
    __m512 acc[R][4];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_ps();
    // 16 steps of p; the last, partial ones read A through a mask (bt is zero there).
    auto steps16 = [&](int p, __mmask16 mask) {
        __m512 av[R];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) av[r] = _mm512_maskz_loadu_ps(mask, a + r * lda + p);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            const __m512 bv = _mm512_load_ps(bt + j * kpad + p);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) acc[r][j] = _mm512_fmadd_ps(av[r], bv, acc[r][j]);
        }
    };
    int p = 0;
    for (; p + 16 <= k; p += 16) steps16(p, 0xFFFF);
    if (p < k) steps16(p, static_cast<__mmask16>((1u << (k - p)) - 1));

    const __mmask16 kc = static_cast<__mmask16>((1u << nr) - 1);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        const __m512 sums = _mm512_zextps128_ps512(sum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
        float* cr = c + r * ldc;
        _mm512_mask_storeu_ps(cr, kc, _mm512_add_ps(_mm512_maskz_loadu_ps(kc, cr), sums));
    }
}

// All m rows, R at a time (6 x 4 = 24 accumulators, 6 A registers), the rest in one smaller block.
template <int R>
void narrow_all_rows(int m, int k, const float* a, long lda, const float* bt, long kpad, float* c, long ldc, int nr) {
    int i = 0;
    for (; i + R <= m; i += R)
        narrow_rows<R>(k, a + static_cast<long>(i) * lda, lda, bt, kpad, c + static_cast<long>(i) * ldc, ldc, nr);
    if constexpr (R > 1)
        if (i < m)
            narrow_all_rows<R - 1>(m - i, k, a + static_cast<long>(i) * lda, lda, bt, kpad,
                                       c + static_cast<long>(i) * ldc, ldc, nr);
}

}  // namespace

void microkernel_avx512_narrow(int m, int k, const float* a, long lda, const float* bt, float* c, long ldc,
                               int nr) {
    narrow_all_rows<6>(m, k, a, lda, bt, narrow_depth(k), c, ldc, nr);
}

}  // namespace step10
