// Lab 2, AArch64: the 4 x 8 NEON micro-kernel on packed slivers. Row i of the tile is two
// registers (columns 0..3 and 4..7); at step p one load brings the four values of A and
// vfmaq_laneq_f32 broadcasts lane i itself. 8 accumulators, 2 B registers and the A
// register: 11 of the 32 q registers.
#include "packing.hpp"

#include <arm_neon.h>    // NEON: float32x4_t, vld1q_f32, vfmaq_laneq_f32, vst1q_f32

#define C(i, j) C[(i) * static_cast<long>(ldc) + (j)]

void step20::micro_kernel_neon(int kc, const float* a, const float* b, float* C, int ldc, int m_valid, int n_valid) {
    float32x4_t c00 = vdupq_n_f32(0), c01 = vdupq_n_f32(0);
    float32x4_t c10 = vdupq_n_f32(0), c11 = vdupq_n_f32(0);
    float32x4_t c20 = vdupq_n_f32(0), c21 = vdupq_n_f32(0);
    float32x4_t c30 = vdupq_n_f32(0), c31 = vdupq_n_f32(0);
    for (int p = 0; p < kc; ++p) {
        const float32x4_t ap = vld1q_f32(a);
        const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4);
        a += MR;
        b += NR;
        c00 = vfmaq_laneq_f32(c00, b0, ap, 0);
        c01 = vfmaq_laneq_f32(c01, b1, ap, 0);
        c10 = vfmaq_laneq_f32(c10, b0, ap, 1);
        c11 = vfmaq_laneq_f32(c11, b1, ap, 1);
        c20 = vfmaq_laneq_f32(c20, b0, ap, 2);
        c21 = vfmaq_laneq_f32(c21, b1, ap, 2);
        c30 = vfmaq_laneq_f32(c30, b0, ap, 3);
        c31 = vfmaq_laneq_f32(c31, b1, ap, 3);
    }
    if (m_valid == MR && n_valid == NR) {   // the common case: a whole tile of C
        vst1q_f32(&C(0, 0), vaddq_f32(vld1q_f32(&C(0, 0)), c00));
        vst1q_f32(&C(0, 4), vaddq_f32(vld1q_f32(&C(0, 4)), c01));
        vst1q_f32(&C(1, 0), vaddq_f32(vld1q_f32(&C(1, 0)), c10));
        vst1q_f32(&C(1, 4), vaddq_f32(vld1q_f32(&C(1, 4)), c11));
        vst1q_f32(&C(2, 0), vaddq_f32(vld1q_f32(&C(2, 0)), c20));
        vst1q_f32(&C(2, 4), vaddq_f32(vld1q_f32(&C(2, 4)), c21));
        vst1q_f32(&C(3, 0), vaddq_f32(vld1q_f32(&C(3, 0)), c30));
        vst1q_f32(&C(3, 4), vaddq_f32(vld1q_f32(&C(3, 4)), c31));
        return;
    }
    // An edge tile: the part of C inside the matrix only (the rest of the tile is padding).
    alignas(16) float tile[MR][NR];
    vst1q_f32(&tile[0][0], c00);
    vst1q_f32(&tile[0][4], c01);
    vst1q_f32(&tile[1][0], c10);
    vst1q_f32(&tile[1][4], c11);
    vst1q_f32(&tile[2][0], c20);
    vst1q_f32(&tile[2][4], c21);
    vst1q_f32(&tile[3][0], c30);
    vst1q_f32(&tile[3][4], c31);
    for (int i = 0; i < m_valid; ++i)
        for (int j = 0; j < n_valid; ++j) C(i, j) += tile[i][j];
}
