// Packing for the 6 x 16 AVX2 kernel: packing_avx512.cpp's idea with 8-float vectors.
// Each 6 x 8 piece of A is loaded as 6 row vectors (plus 2 zero rows), transposed in
// registers by 24 shuffles, and stored as 8 runs of 6 floats.
#include "microkernels.hpp"
#include "packing.hpp"

#include <immintrin.h>

namespace step10 {
namespace {

// r[i] holds 8 consecutive floats of row i; on return r[j] holds column j. Interleave single
// floats (unpack), then pairs (shuffle_ps), then swap 128-bit halves (permute2f128).
void transpose_8x8(__m256 r[8]) {
    __m256 t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int g = 0; g < 8; g += 4) {   // u[g + c], half L: column 4L + c of rows g..g+3
        u[g + 0] = _mm256_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm256_shuffle_ps(t[g], t[g + 2], 0xEE);
        u[g + 2] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm256_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
    }
    for (int c = 0; c < 4; ++c) {
        r[c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x20);       // low halves: column c
        r[4 + c] = _mm256_permute2f128_ps(u[c], u[4 + c], 0x31);   // high halves: column 4 + c
    }
}

// Lane j on when j < count (maskload reads only those).
__m256i first(int count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace

void pack_a_avx2(int mc, int kc, const float* A, int lda, int mr, float* packed) {
    constexpr int MR = kMrAvx2;
    if (mr != MR) return pack_a(mc, kc, A, lda, mr, packed);
    for (int i0 = 0; i0 < mc; i0 += MR) {
        const int rows = mc - i0 < MR ? mc - i0 : MR;
        const float* a = A + static_cast<long>(i0) * lda;
        for (int p0 = 0; p0 < kc; p0 += 8) {
            const int cols = kc - p0 < 8 ? kc - p0 : 8;
            const __m256i in_window = first(cols);
            __m256 r[8];
            for (int i = 0; i < 8; ++i) {
                if (i < rows) {
                    const float* ai = a + static_cast<long>(i) * lda + p0;
                    _mm_prefetch(reinterpret_cast<const char*>(ai + 64), _MM_HINT_T0);
                    r[i] = cols == 8 ? _mm256_loadu_ps(ai) : _mm256_maskload_ps(ai, in_window);
                } else {
                    r[i] = _mm256_setzero_ps();
                }
            }
            transpose_8x8(r);
            for (int p = 0; p < cols; ++p) {   // column p0 + p: 6 floats = 4 + 2
                float* dst = packed + (p0 + p) * MR;
                _mm_storeu_ps(dst, _mm256_castps256_ps128(r[p]));
                _mm_storel_pi(reinterpret_cast<__m64*>(dst + 4), _mm256_extractf128_ps(r[p], 1));
            }
        }
        packed += static_cast<long>(MR) * kc;
    }
}

void pack_b_avx2(int kc, int nc, const float* B, int ldb, int nr, float* packed) {
    constexpr int NR = kNrAvx2;
    if (nr != NR) return pack_b(kc, nc, B, ldb, nr, packed);
    const long sliver = static_cast<long>(NR) * kc;
    const int whole = nc / NR * NR;
    const __m256i lo = first(nc - whole), hi = first(nc - whole - 8);
    for (int p = 0; p < kc; ++p) {   // row by row through B, as in packing.cpp
        const float* b = B + static_cast<long>(p) * ldb;
        float* dst = packed + p * NR;
        for (int j0 = 0; j0 < whole; j0 += NR, dst += sliver) {
            _mm256_store_ps(dst, _mm256_loadu_ps(b + j0));
            _mm256_store_ps(dst + 8, _mm256_loadu_ps(b + j0 + 8));
        }
        if (whole < nc) {   // the last, partial sliver: zeros past column nc
            _mm256_store_ps(dst, _mm256_maskload_ps(b + whole, lo));
            _mm256_store_ps(dst + 8, _mm256_maskload_ps(b + whole + 8, hi));
        }
    }
}

}  // namespace step10
