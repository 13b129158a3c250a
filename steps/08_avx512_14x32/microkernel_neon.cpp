// The AArch64 NEON micro-kernel: an 8 x 12 tile of C in 24 of the 32 q registers
// (4 floats each). Per step of p: two 4-wide loads of the A sliver (8 rows), three of the
// B sliver (12 columns), then 24 FMAs, each multiplying a B vector by one lane of an A
// vector (fmla v.4s, v.4s, v.s[lane]): NEON needs no separate broadcast.
// 24 accumulators + 2 A + 3 B registers = 29 of 32.
#include "microkernels.hpp"

#include <arm_neon.h>

namespace step08 {

void microkernel_neon_8x12(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr) {
    constexpr int MR = kMrNeon;
    constexpr int NR = kNrNeon;

    float32x4_t acc[MR][3];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = acc[i][2] = vdupq_n_f32(0.0f);

    for (int p = 0; p < kc; ++p) {
        const float32x4_t a_lo = vld1q_f32(a);       // A(0..3, p)
        const float32x4_t a_hi = vld1q_f32(a + 4);   // A(4..7, p)
        const float32x4_t b0 = vld1q_f32(b);
        const float32x4_t b1 = vld1q_f32(b + 4);
        const float32x4_t b2 = vld1q_f32(b + 8);
#define STEP08_ROW(i, av, lane)                                   \
        acc[i][0] = vfmaq_laneq_f32(acc[i][0], b0, av, lane);    \
        acc[i][1] = vfmaq_laneq_f32(acc[i][1], b1, av, lane);    \
        acc[i][2] = vfmaq_laneq_f32(acc[i][2], b2, av, lane);
        STEP08_ROW(0, a_lo, 0) STEP08_ROW(1, a_lo, 1) STEP08_ROW(2, a_lo, 2) STEP08_ROW(3, a_lo, 3)
        STEP08_ROW(4, a_hi, 0) STEP08_ROW(5, a_hi, 1) STEP08_ROW(6, a_hi, 2) STEP08_ROW(7, a_hi, 3)
#undef STEP08_ROW
        a += MR;
        b += NR;
    }

    if (mr == MR && nr == NR) {   // the common, whole tile: add straight into C
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
            float* ci = c + i * ldc;
            vst1q_f32(ci, vaddq_f32(vld1q_f32(ci), acc[i][0]));
            vst1q_f32(ci + 4, vaddq_f32(vld1q_f32(ci + 4), acc[i][1]));
            vst1q_f32(ci + 8, vaddq_f32(vld1q_f32(ci + 8), acc[i][2]));
        }
        return;
    }
    // An edge tile: NEON has no masked stores, so spill the tile and add the part inside C.
    float tile[MR * NR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
        vst1q_f32(tile + i * NR, acc[i][0]);
        vst1q_f32(tile + i * NR + 4, acc[i][1]);
        vst1q_f32(tile + i * NR + 8, acc[i][2]);
    }
    for (int i = 0; i < mr; ++i)
        for (int j = 0; j < nr; ++j) c[i * ldc + j] += tile[i * NR + j];
}

}  // namespace step08
