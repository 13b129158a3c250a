// Step 07, AArch64: step 05's NEON 4x4 kernel, reading packed slivers. At step p the four
// values of A it broadcasts are a[0..3] and the row of B it loads is b[0..3]: both pointers
// just move on by 4 floats, and the loads are aligned (every sliver starts at a multiple of
// 16 bytes in a 64-byte aligned buffer). Padded rows and columns hold zeros, so the loop
// always computes a whole 4x4 tile; only the write-back looks at m_valid x n_valid.
#include "kernel.hpp"

#include <arm_neon.h>    // NEON: float32x4_t, vld1q_f32, vfmaq_laneq_f32, vst1q_f32

#define C(i, j) C[(i) * ldc + (j)]

void step07::micro_kernel_neon(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid) {
    float32x4_t c0 = vdupq_n_f32(0);
    float32x4_t c1 = vdupq_n_f32(0);
    float32x4_t c2 = vdupq_n_f32(0);
    float32x4_t c3 = vdupq_n_f32(0);
    for (int p = 0; p < kc; ++p) {
        // The four values of A in one load; vfmaq_laneq_f32 broadcasts lane i itself.
        const float32x4_t ap = vld1q_f32(a);
        const float32x4_t bp = vld1q_f32(b);
        a += 4;
        b += 4;
        c0 = vfmaq_laneq_f32(c0, bp, ap, 0);
        c1 = vfmaq_laneq_f32(c1, bp, ap, 1);
        c2 = vfmaq_laneq_f32(c2, bp, ap, 2);
        c3 = vfmaq_laneq_f32(c3, bp, ap, 3);
    }
    if (m_valid == 4 && n_valid == 4) {   // the common case: a whole tile of C
        vst1q_f32(&C(0, 0), vaddq_f32(vld1q_f32(&C(0, 0)), c0));
        vst1q_f32(&C(1, 0), vaddq_f32(vld1q_f32(&C(1, 0)), c1));
        vst1q_f32(&C(2, 0), vaddq_f32(vld1q_f32(&C(2, 0)), c2));
        vst1q_f32(&C(3, 0), vaddq_f32(vld1q_f32(&C(3, 0)), c3));
        return;
    }
    // An edge tile: the part of C inside the matrix only (the rest of the tile is padding).
    alignas(16) float tile[4][4];
    vst1q_f32(tile[0], c0);
    vst1q_f32(tile[1], c1);
    vst1q_f32(tile[2], c2);
    vst1q_f32(tile[3], c3);
    for (int i = 0; i < m_valid; ++i)
        for (int j = 0; j < n_valid; ++j) C(i, j) += tile[i][j];
}
