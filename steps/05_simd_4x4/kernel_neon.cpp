// Step 05, AArch64: step 04's 4x4 block of C with NEON. One row of the block is four floats,
// exactly one 128-bit register (float32x4_t), so the 16 scalar sums become 4 registers and
// one row of B is one load. Per step of p, in outer-product form:
//     c_i += broadcast(A(i, p)) * B(p, 0..3)        for the rows i = 0..3
// 4 fused multiply-adds, each on 4 lanes, do the 16 multiply-adds of step 04.
// NEON on AArch64 always has a fused multiply-add (vfmaq_f32): one instruction, one rounding.
#include "kernel.hpp"

#include <arm_neon.h>    // NEON: float32x4_t, vdupq_n_f32, vld1q_f32, vfmaq_f32, vst1q_f32

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
    float32x4_t c0 = vdupq_n_f32(0);
    float32x4_t c1 = vdupq_n_f32(0);
    float32x4_t c2 = vdupq_n_f32(0);
    float32x4_t c3 = vdupq_n_f32(0);
    const float *a0 = &A(0, 0), *a1 = &A(1, 0), *a2 = &A(2, 0), *a3 = &A(3, 0);
    const float* b = &B(0, 0);
    // >>> k-loop
    for (int p = 0; p < k; ++p) {
        // A(i, p) copied into all four lanes; B(p, 0..3) in one load (any alignment is fine).
        const float32x4_t a0p = vdupq_n_f32(*a0++), a1p = vdupq_n_f32(*a1++);
        const float32x4_t a2p = vdupq_n_f32(*a2++), a3p = vdupq_n_f32(*a3++);
        const float32x4_t bp = vld1q_f32(b);
        b += ldb;
        c0 = vfmaq_f32(c0, a0p, bp);
        c1 = vfmaq_f32(c1, a1p, bp);
        c2 = vfmaq_f32(c2, a2p, bp);
        c3 = vfmaq_f32(c3, a3p, bp);
    }
    // <<< k-loop
    vst1q_f32(&C(0, 0), vaddq_f32(vld1q_f32(&C(0, 0)), c0));
    vst1q_f32(&C(1, 0), vaddq_f32(vld1q_f32(&C(1, 0)), c1));
    vst1q_f32(&C(2, 0), vaddq_f32(vld1q_f32(&C(2, 0)), c2));
    vst1q_f32(&C(3, 0), vaddq_f32(vld1q_f32(&C(3, 0)), c3));
}

}  // namespace

void step05::gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
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
