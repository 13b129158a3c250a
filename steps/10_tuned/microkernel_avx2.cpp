// The AVX2+FMA micro-kernel, for CPUs without AVX-512: the same idea on a 6 x 16 tile held
// in 12 ymm registers. Per step of p: two 8-wide loads of the B sliver, 6 broadcasts of the
// A sliver, 12 FMAs. With 16 ymm registers, 12 accumulators + 2 B rows + 1 broadcast is as
// far as the tile can grow. Two FMA units with a 4-cycle latency need at least 8
// independent chains in flight; 12 gives some slack.
#include "microkernels.hpp"

#include <immintrin.h>

namespace step10 {

void microkernel_avx2_6x16(int kc, const float* a, const float* b, float* c, long ldc,
                           int mr, int nr, const float* b_next) {
    constexpr int MR = kMrAvx2;
    constexpr int NR = kNrAvx2;

    // The C tile into L2 while the k loop runs (see the AVX-512 kernel).
    for (int i = 0; i < mr; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + nr - 1), _MM_HINT_T1);
    }

    __m256 c0[MR], c1[MR];   // row i of the tile: c0[i] = columns 0..7, c1[i] = 8..15
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) c0[i] = c1[i] = _mm256_setzero_ps();

    for (int p = 0; p < kc; ++p) {
        if (b_next != nullptr && p % 4 == 0)   // the next B sliver into L2 (see the AVX-512 kernel)
            _mm_prefetch(reinterpret_cast<const char*>(b_next + 4 * p), _MM_HINT_T1);
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

namespace {

// The same tile straight from A and B, unpacked, for small matrices (see the AVX-512 file):
// only the ROWS rows inside C are computed, so no row of A past m is read, and unless the
// tile is FULL (16 columns) the B vectors are loaded with the lane mask. A tile of at most
// 8 columns (VECS = 1) needs only one of the two vectors, and half of the FMAs.
template <int ROWS, int VECS, bool FULL>
void tile_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask[2] = {_mm256_cmpgt_epi32(_mm256_set1_epi32(nr), lane),
                             _mm256_cmpgt_epi32(_mm256_set1_epi32(nr - 8), lane)};
    __m256 acc[ROWS][VECS];
#pragma GCC unroll 6
    for (int i = 0; i < ROWS; ++i)
        for (int v = 0; v < VECS; ++v) acc[i][v] = _mm256_setzero_ps();

#pragma GCC unroll 4
    for (int p = 0; p < k; ++p) {
        __m256 bv[VECS];
        for (int v = 0; v < VECS; ++v)
            bv[v] = FULL ? _mm256_loadu_ps(b + 8 * v) : _mm256_maskload_ps(b + 8 * v, mask[v]);
#pragma GCC unroll 6
        for (int i = 0; i < ROWS; ++i) {
            const __m256 ai = _mm256_broadcast_ss(a + i * lda);
            for (int v = 0; v < VECS; ++v) acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
        }
        a += 1;
        b += ldb;
    }

#pragma GCC unroll 6
    for (int i = 0; i < ROWS; ++i) {
        float* ci = c + i * ldc;
        for (int v = 0; v < VECS; ++v) {
            if (FULL)
                _mm256_storeu_ps(ci + 8 * v, _mm256_add_ps(_mm256_loadu_ps(ci + 8 * v), acc[i][v]));
            else
                _mm256_maskstore_ps(ci + 8 * v, mask[v],
                                    _mm256_add_ps(_mm256_maskload_ps(ci + 8 * v, mask[v]), acc[i][v]));
        }
    }
}

}  // namespace

void microkernel_avx2_6x16_direct(int k, const float* a, long lda, const float* b, long ldb,
                                  float* c, long ldc, int mr, int nr) {
    switch (mr) {
#define EDGE_TILE(R) case R: return nr == kNrAvx2 ? tile_direct<R, 2, true>(k, a, lda, b, ldb, c, ldc, nr) \
                                  : nr > 8       ? tile_direct<R, 2, false>(k, a, lda, b, ldb, c, ldc, nr) \
                                                 : tile_direct<R, 1, false>(k, a, lda, b, ldb, c, ldc, nr);
        EDGE_TILE(1) EDGE_TILE(2) EDGE_TILE(3) EDGE_TILE(4) EDGE_TILE(5) EDGE_TILE(6)
#undef EDGE_TILE
        default: return;
    }
}

}  // namespace step10
