// Step 08's AVX-512 micro-kernel, unchanged but for the namespace.
//
// The AVX-512 micro-kernel: a 14 x 32 tile of C lives in 28 zmm registers for the whole
// depth kc of the packed slivers. Per step of p (outer-product form):
//
//     b0, b1  = B(p, 0..15), B(p, 16..31)          two 16-wide loads of the B sliver
//     for i in 0..13:
//         c[i][0] += A(i, p) * b0                  A(i, p) broadcast to 16 lanes, straight
//         c[i][1] += A(i, p) * b1                  from memory ({1to16}) inside the FMA
//
// 28 FMAs (448 multiply-adds) per step for 2 vector loads. 28 accumulators + 2 B registers
// leave 2 of the 32 zmm registers spare. A zmm FMA has a latency of 4 cycles and Zen 4
// issues one per cycle (two 256-bit halves), so 28 independent chains keep it busy.
#include "microkernels.hpp"

#include <immintrin.h>

namespace step09 {

void microkernel_avx512_14x32(int kc, const float* a, const float* b, float* c, long ldc,
                              int mr, int nr) {
    constexpr int MR = kMrAvx512;
    constexpr int NR = kNrAvx512;

    // Ask for the C tile now, into L2; it is needed only after the k loop. Not into L1: with
    // ldc a multiple of 1024 floats the 14 rows are 4 KiB apart and all land in the same
    // two L1 sets, where they would evict each other and the slivers.
    for (int i = 0; i < mr; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + nr - 1), _MM_HINT_T1);
    }

    __m512 c0[MR], c1[MR];   // row i of the tile: c0[i] = columns 0..15, c1[i] = 16..31
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) c0[i] = c1[i] = _mm512_setzero_ps();

    for (int p = 0; p < kc; ++p) {
        const __m512 b0 = _mm512_load_ps(b);
        const __m512 b1 = _mm512_load_ps(b + 16);
        // With intrinsics (c0[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), b0, c0[i]) ...)
        // GCC 12 emits a separate vbroadcastss per row; one line of inline assembly per FMA
        // gets the broadcast folded into the FMA's memory operand instead (objdump -d shows
        // "vfmadd231ps 0x8(%rax){1to16},%zmm1,%zmm17").
#pragma GCC unroll 14
        for (int i = 0; i < MR; ++i) {
            asm("vfmadd231ps %[a]%{1to16%}, %[b], %[c]" : [c] "+v"(c0[i]) : [b] "v"(b0), [a] "m"(a[i]));
            asm("vfmadd231ps %[a]%{1to16%}, %[b], %[c]" : [c] "+v"(c1[i]) : [b] "v"(b1), [a] "m"(a[i]));
        }
        a += MR;
        b += NR;
    }

    // C += tile, only the mr x nr part inside C: masks cut the columns, the test cuts the rows.
    const __mmask16 k0 = static_cast<__mmask16>(nr >= 16 ? 0xFFFF : (1u << nr) - 1);
    const __mmask16 k1 = static_cast<__mmask16>(nr >= 32 ? 0xFFFF : nr <= 16 ? 0 : (1u << (nr - 16)) - 1);
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) {
        if (i < mr) {
            float* ci = c + i * ldc;
            if (nr == NR) {   // the common, whole tile
                _mm512_storeu_ps(ci, _mm512_add_ps(_mm512_loadu_ps(ci), c0[i]));
                _mm512_storeu_ps(ci + 16, _mm512_add_ps(_mm512_loadu_ps(ci + 16), c1[i]));
                continue;
            }
            _mm512_mask_storeu_ps(ci, k0, _mm512_add_ps(_mm512_maskz_loadu_ps(k0, ci), c0[i]));
            _mm512_mask_storeu_ps(ci + 16, k1, _mm512_add_ps(_mm512_maskz_loadu_ps(k1, ci + 16), c1[i]));
        }
    }
}

}  // namespace step09
