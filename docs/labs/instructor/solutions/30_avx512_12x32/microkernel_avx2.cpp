// The AVX2+FMA micro-kernel, for CPUs without AVX-512: the same idea on a 6 x 16 tile held
// in 12 ymm registers. Per step of p: two 8-wide loads of the B sliver, 6 broadcasts of the
// A sliver, 12 FMAs. With 16 ymm registers, 12 accumulators + 2 B rows + 1 broadcast is as
// far as the tile can grow. Two FMA units with a 4-cycle latency need at least 8
// independent chains in flight; 12 gives some slack (a 4 x 16 tile, 8 chains, has none).
// As in the AVX-512 kernel, the C tile is asked for into L2 before the k loop.
#include "microkernels.hpp"

#include <immintrin.h>

namespace step30 {

void microkernel_avx2_6x16(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr) {
    constexpr int MR = kMrAvx2;
    constexpr int NR = kNrAvx2;

    for (int i = 0; i < mr; ++i) {   // a row of 16 floats: one line, or two when unaligned
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + nr - 1), _MM_HINT_T1);
    }

    __m256 c0[MR], c1[MR];   // row i of the tile: c0[i] = columns 0..7, c1[i] = 8..15
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) c0[i] = c1[i] = _mm256_setzero_ps();

    // >>> k-loop
    for (int p = 0; p < kc; ++p) {
        const __m256 b0 = _mm256_load_ps(b);
        const __m256 b1 = _mm256_load_ps(b + 8);
        #pragma GCC unroll 6
        for (int i = 0; i < MR; ++i) {
            const __m256 ai = _mm256_broadcast_ss(a + i);
            c0[i] = _mm256_fmadd_ps(ai, b0, c0[i]);
            c1[i] = _mm256_fmadd_ps(ai, b1, c1[i]);
        }
        a += MR;
        b += NR;
    }
    // <<< k-loop

    // AVX2 has no mask registers, but maskload/maskstore take a vector whose sign bits
    // select lanes: lane j is on when j < nr (and lanes of a masked-off element are neither
    // read nor written).
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr), lane);
    const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr - 8), lane);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
        if (i < mr) {
            float* ci = c + i * ldc;
            if (nr == NR) {   // the common, whole tile
                _mm256_storeu_ps(ci, _mm256_add_ps(_mm256_loadu_ps(ci), c0[i]));
                _mm256_storeu_ps(ci + 8, _mm256_add_ps(_mm256_loadu_ps(ci + 8), c1[i]));
            } else {
                _mm256_maskstore_ps(ci, m0, _mm256_add_ps(_mm256_maskload_ps(ci, m0), c0[i]));
                _mm256_maskstore_ps(ci + 8, m1, _mm256_add_ps(_mm256_maskload_ps(ci + 8, m1), c1[i]));
            }
        }
    }
}

}  // namespace step30
