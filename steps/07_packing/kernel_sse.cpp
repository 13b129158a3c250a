// Step 07, x86-64: step 05's SSE 4x4 kernel, reading packed slivers. At step p the four
// values of A it broadcasts are a[0..3] and the row of B it loads is b[0..3]: both pointers
// just move on by 4 floats, and the loads are aligned (every sliver starts at a multiple of
// 16 bytes in a 64-byte aligned buffer). Padded rows and columns hold zeros, so the loop
// always computes a whole 4x4 tile; only the write-back looks at m_valid x n_valid.
#include "kernel.hpp"

#include <xmmintrin.h>   // SSE: __m128, _mm_set1_ps, _mm_load_ps, _mm_mul_ps, _mm_add_ps

#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

void step07::micro_kernel_sse(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid) {
    __m128 c0 = _mm_setzero_ps();
    __m128 c1 = _mm_setzero_ps();
    __m128 c2 = _mm_setzero_ps();
    __m128 c3 = _mm_setzero_ps();
    // >>> k-loop
    for (int p = 0; p < kc; ++p) {
        const __m128 a0p = _mm_set1_ps(a[0]), a1p = _mm_set1_ps(a[1]);
        const __m128 a2p = _mm_set1_ps(a[2]), a3p = _mm_set1_ps(a[3]);
        const __m128 bp = _mm_load_ps(b);
        a += 4;
        b += 4;
        c0 = _mm_add_ps(c0, _mm_mul_ps(a0p, bp));
        c1 = _mm_add_ps(c1, _mm_mul_ps(a1p, bp));
        c2 = _mm_add_ps(c2, _mm_mul_ps(a2p, bp));
        c3 = _mm_add_ps(c3, _mm_mul_ps(a3p, bp));
    }
    // <<< k-loop
    if (m_valid == 4 && n_valid == 4) {   // the common case: a whole tile of C
        _mm_storeu_ps(&C(0, 0), _mm_add_ps(_mm_loadu_ps(&C(0, 0)), c0));
        _mm_storeu_ps(&C(1, 0), _mm_add_ps(_mm_loadu_ps(&C(1, 0)), c1));
        _mm_storeu_ps(&C(2, 0), _mm_add_ps(_mm_loadu_ps(&C(2, 0)), c2));
        _mm_storeu_ps(&C(3, 0), _mm_add_ps(_mm_loadu_ps(&C(3, 0)), c3));
        return;
    }
    // An edge tile: the part of C inside the matrix only (the rest of the tile is padding).
    alignas(16) float tile[4][4];
    _mm_store_ps(tile[0], c0);
    _mm_store_ps(tile[1], c1);
    _mm_store_ps(tile[2], c2);
    _mm_store_ps(tile[3], c3);
    for (int i = 0; i < m_valid; ++i)
        for (int j = 0; j < n_valid; ++j) C(i, j) += tile[i][j];
}
