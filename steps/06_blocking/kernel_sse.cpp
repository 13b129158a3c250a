// Step 06, x86-64: step 05's SSE kernel, run block by block. The k dimension is cut
// into kc-deep slices and m into mc-row blocks, so that one 4-column sliver of B (kc x 4)
// stays in L1 while it meets every 4-row sliver of the block, and the mc x kc block of A
// stays in L2 while every sliver of B passes by (block sizes: kernel.cpp).
//
//   for p0 in steps of kc:            a kc-deep slice of A and B
//     for i0 in steps of mc:          an mc x kc block of A              (stays in L2)
//       for j in steps of 4:          a kc x 4 sliver of B               (stays in L1)
//         for i in steps of 4:        4x4 kernel: C(i.., j..) += A(i.., p0..) * B(p0.., j..)
//
// Everything below up to block_kernel is step 05 unchanged.
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
    _mm_storeu_ps(&C(0, 0), _mm_add_ps(_mm_loadu_ps(&C(0, 0)), c0));
    _mm_storeu_ps(&C(1, 0), _mm_add_ps(_mm_loadu_ps(&C(1, 0)), c1));
    _mm_storeu_ps(&C(2, 0), _mm_add_ps(_mm_loadu_ps(&C(2, 0)), c2));
    _mm_storeu_ps(&C(3, 0), _mm_add_ps(_mm_loadu_ps(&C(3, 0)), c3));
}

// Step 05's whole kernel, now applied to one block: C(0..m, 0..n) += A(0..m, 0..k) * B(0..k, 0..n).
void block_kernel(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
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

}  // namespace

void step06::gemm_sse(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    const int kc = step06::kc(), mc = step06::mc();
    // >>> blocking-loops
    for (int p0 = 0; p0 < k; p0 += kc) {
        const int kb = k - p0 < kc ? k - p0 : kc;   // the last slice may be thinner
        for (int i0 = 0; i0 < m; i0 += mc) {
            const int mb = m - i0 < mc ? m - i0 : mc;
            block_kernel(mb, n, kb, &A(i0, p0), lda, &B(p0, 0), ldb, &C(i0, 0), ldc);
        }
    }
    // <<< blocking-loops
}
