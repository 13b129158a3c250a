// Lab 2, x86-64: the 4 x 8 SSE micro-kernel on packed slivers. Row i of the tile is two
// registers, c[i][0] (columns 0..3) and c[i][1] (columns 4..7); at step p both get
// broadcast(A(i, p)) times one half of the B row b[0..7]. 8 accumulators, 2 B registers and
// a broadcast: 11 of the 16 xmm registers.
#include "packing.hpp"

#include <xmmintrin.h>   // SSE: __m128, _mm_set1_ps, _mm_load_ps, _mm_mul_ps, _mm_add_ps

#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

void step20::micro_kernel_sse(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid) {
    __m128 c00 = _mm_setzero_ps(), c01 = _mm_setzero_ps();
    __m128 c10 = _mm_setzero_ps(), c11 = _mm_setzero_ps();
    __m128 c20 = _mm_setzero_ps(), c21 = _mm_setzero_ps();
    __m128 c30 = _mm_setzero_ps(), c31 = _mm_setzero_ps();
    for (int p = 0; p < kc; ++p) {
        const __m128 b0 = _mm_load_ps(b), b1 = _mm_load_ps(b + 4);
        const __m128 a0p = _mm_set1_ps(a[0]), a1p = _mm_set1_ps(a[1]);
        const __m128 a2p = _mm_set1_ps(a[2]), a3p = _mm_set1_ps(a[3]);
        a += MR;
        b += NR;
        c00 = _mm_add_ps(c00, _mm_mul_ps(a0p, b0));
        c01 = _mm_add_ps(c01, _mm_mul_ps(a0p, b1));
        c10 = _mm_add_ps(c10, _mm_mul_ps(a1p, b0));
        c11 = _mm_add_ps(c11, _mm_mul_ps(a1p, b1));
        c20 = _mm_add_ps(c20, _mm_mul_ps(a2p, b0));
        c21 = _mm_add_ps(c21, _mm_mul_ps(a2p, b1));
        c30 = _mm_add_ps(c30, _mm_mul_ps(a3p, b0));
        c31 = _mm_add_ps(c31, _mm_mul_ps(a3p, b1));
    }
    if (m_valid == MR && n_valid == NR) {   // the common case: a whole tile of C
        _mm_storeu_ps(&C(0, 0), _mm_add_ps(_mm_loadu_ps(&C(0, 0)), c00));
        _mm_storeu_ps(&C(0, 4), _mm_add_ps(_mm_loadu_ps(&C(0, 4)), c01));
        _mm_storeu_ps(&C(1, 0), _mm_add_ps(_mm_loadu_ps(&C(1, 0)), c10));
        _mm_storeu_ps(&C(1, 4), _mm_add_ps(_mm_loadu_ps(&C(1, 4)), c11));
        _mm_storeu_ps(&C(2, 0), _mm_add_ps(_mm_loadu_ps(&C(2, 0)), c20));
        _mm_storeu_ps(&C(2, 4), _mm_add_ps(_mm_loadu_ps(&C(2, 4)), c21));
        _mm_storeu_ps(&C(3, 0), _mm_add_ps(_mm_loadu_ps(&C(3, 0)), c30));
        _mm_storeu_ps(&C(3, 4), _mm_add_ps(_mm_loadu_ps(&C(3, 4)), c31));
        return;
    }
    // An edge tile: the part of C inside the matrix only (the rest of the tile is padding).
    alignas(16) float tile[MR][NR];
    _mm_store_ps(&tile[0][0], c00);
    _mm_store_ps(&tile[0][4], c01);
    _mm_store_ps(&tile[1][0], c10);
    _mm_store_ps(&tile[1][4], c11);
    _mm_store_ps(&tile[2][0], c20);
    _mm_store_ps(&tile[2][4], c21);
    _mm_store_ps(&tile[3][0], c30);
    _mm_store_ps(&tile[3][4], c31);
    for (int i = 0; i < m_valid; ++i)
        for (int j = 0; j < n_valid; ++j) C(i, j) += tile[i][j];
}
