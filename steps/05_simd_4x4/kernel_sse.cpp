// Step 05, x86-64: step 04's 4x4 block of C with SSE. One row of the block is four floats,
// exactly one 128-bit register (__m128), so the 16 scalar sums become 4 registers and one
// row of B is one load. Per step of p, in outer-product form:
//     c_i += broadcast(A(i, p)) * B(p, 0..3)        for the rows i = 0..3
// 4 multiplies and 4 adds, each on 4 lanes, do the 16 multiply-adds of step 04.
// SSE has no fused multiply-add (FMA3 came later, with AVX2): a multiply, then an add.
#include "kernel.hpp"

#include <xmmintrin.h>   // SSE: __m128, _mm_set1_ps, _mm_loadu_ps, _mm_mul_ps, _mm_add_ps

#define A(i, p) A[(i) * static_cast<long>(lda) + (p)]
#define B(p, j) B[(p) * static_cast<long>(ldb) + (j)]
#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

namespace {

void add_dot(int k, const float* A, int lda, const float* B, int ldb, float* gamma) {
    (void)lda;
    for (int p = 0; p < k; ++p)
        *gamma += A(0, p) * B(p, 0);
}

// Step 03's 1x4 kernel, for the rows left over when m is not a multiple of 4.
void add_dot_1x4(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    (void)lda;
    (void)ldc;
    float c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    const float* a = &A(0, 0);
    const float* b = &B(0, 0);
    for (int p = 0; p < k; ++p) {
        const float ap = *a++;
        c0 += ap * b[0];
        c1 += ap * b[1];
        c2 += ap * b[2];
        c3 += ap * b[3];
        b += ldb;
    }
    C(0, 0) += c0;
    C(0, 1) += c1;
    C(0, 2) += c2;
    C(0, 3) += c3;
}

// C(0..3, 0..3) += rows 0..3 of A times columns 0..3 of B; row i of the block in register c_i.
void add_dot_4x4(int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    __m128 c0 = _mm_setzero_ps();
    __m128 c1 = _mm_setzero_ps();
    __m128 c2 = _mm_setzero_ps();
    __m128 c3 = _mm_setzero_ps();
    const float *a0 = &A(0, 0), *a1 = &A(1, 0), *a2 = &A(2, 0), *a3 = &A(3, 0);
    const float* b = &B(0, 0);
    // >>> k-loop
    for (int p = 0; p < k; ++p) {
        // A(i, p) copied into all four lanes; B(p, 0..3) in one load (unaligned: ldb is anything).
        const __m128 a0p = _mm_set1_ps(*a0++), a1p = _mm_set1_ps(*a1++);
        const __m128 a2p = _mm_set1_ps(*a2++), a3p = _mm_set1_ps(*a3++);
        const __m128 bp = _mm_loadu_ps(b);
        b += ldb;
        c0 = _mm_add_ps(c0, _mm_mul_ps(a0p, bp));
        c1 = _mm_add_ps(c1, _mm_mul_ps(a1p, bp));
        c2 = _mm_add_ps(c2, _mm_mul_ps(a2p, bp));
        c3 = _mm_add_ps(c3, _mm_mul_ps(a3p, bp));
    }
    // <<< k-loop
    _mm_storeu_ps(&C(0, 0), _mm_add_ps(_mm_loadu_ps(&C(0, 0)), c0));
    _mm_storeu_ps(&C(1, 0), _mm_add_ps(_mm_loadu_ps(&C(1, 0)), c1));
    _mm_storeu_ps(&C(2, 0), _mm_add_ps(_mm_loadu_ps(&C(2, 0)), c2));
    _mm_storeu_ps(&C(3, 0), _mm_add_ps(_mm_loadu_ps(&C(3, 0)), c3));
}

}  // namespace

void step05::gemm_sse(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    const int m4 = m - m % 4, n4 = n - n % 4;
    for (int j = 0; j < n4; j += 4) {
        for (int i = 0; i < m4; i += 4)
            add_dot_4x4(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
        for (int i = m4; i < m; ++i)   // the last m % 4 rows, 1x4 at a time
            add_dot_1x4(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    }
    for (int j = n4; j < n; ++j)       // the last n % 4 columns, one element at a time
        for (int i = 0; i < m; ++i)
            add_dot(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j));
}
