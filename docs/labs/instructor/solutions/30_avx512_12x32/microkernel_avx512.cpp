// The AVX-512 micro-kernel: a 12 x 32 tile of C lives in 24 zmm registers for the whole
// depth kc of the packed slivers. Per step of p (outer-product form):
//
//     b0, b1  = B(p, 0..15), B(p, 16..31)          two 16-wide loads of the B sliver
//     for i in 0..11:
//         a  = A(i, p) in all 16 lanes             vbroadcastss from memory: a load port's
//         c[i][0] += a * b0                        work, not an FMA pipe's
//         c[i][1] += a * b1
//
// 24 FMAs (384 multiply-adds) for 2 vector loads and 12 broadcasts. 24 accumulators, 2 B
// registers and the broadcast take 27 of the 32 zmm registers. An FMA has a latency of 4
// cycles and a core issues up to 2 per cycle, so at least 8 independent chains keep it
// busy: 24 do.
//
// The C tile is needed only after the k loop, so the kernel asks for it first: with kc from
// L1 (a few hundred steps), a C tile that came from L3 or memory only when the loop ended
// would stall the core once per call. Into L2, not L1: when ldc is a multiple of 1024 floats
// the 12 rows are 4 KiB apart and land in the same L1 sets, where they would evict the
// B sliver.
#include "microkernels.hpp"

#include <immintrin.h>

namespace step30 {

void microkernel_avx512_12x32(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr) {
    constexpr int MR = kMrAvx512;
    constexpr int NR = kNrAvx512;

    // >>> prefetch-c
    for (int i = 0; i < mr; ++i) {   // the first and the last line of each row of the tile
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + nr - 1), _MM_HINT_T1);
    }
    // <<< prefetch-c

    __m512 c0[MR], c1[MR];   // row i of the tile: c0[i] = columns 0..15, c1[i] = 16..31
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) c0[i] = c1[i] = _mm512_setzero_ps();

    // >>> k-loop
    for (int p = 0; p < kc; ++p) {
        const __m512 b0 = _mm512_load_ps(b);
        const __m512 b1 = _mm512_load_ps(b + 16);
        #pragma GCC unroll 12
        for (int i = 0; i < MR; ++i) {
            const __m512 ai = _mm512_set1_ps(a[i]);
            c0[i] = _mm512_fmadd_ps(ai, b0, c0[i]);
            c1[i] = _mm512_fmadd_ps(ai, b1, c1[i]);
        }
        a += MR;
        b += NR;
    }
    // <<< k-loop

    // C += tile, only the mr x nr part inside C: masks cut the columns, the test cuts the rows.
    const __mmask16 k0 = static_cast<__mmask16>(nr >= 16 ? 0xFFFF : (1u << nr) - 1);
    const __mmask16 k1 = static_cast<__mmask16>(nr >= 32 ? 0xFFFF : nr <= 16 ? 0 : (1u << (nr - 16)) - 1);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
        if (i < mr) {
            float* ci = c + i * ldc;
            _mm512_mask_storeu_ps(ci, k0, _mm512_add_ps(_mm512_maskz_loadu_ps(k0, ci), c0[i]));
            _mm512_mask_storeu_ps(ci + 16, k1, _mm512_add_ps(_mm512_maskz_loadu_ps(k1, ci + 16), c1[i]));
        }
    }
}

}  // namespace step30
