// Packing for the 14 x 32 kernel with AVX-512. Same layout as packing.cpp, but a vector at
// a time instead of a float at a time.
//
// Packing A is a transpose: rows of A become the columns p of the sliver. The plain loop
// in packing.cpp writes one float per instruction at a stride of 14 floats, which costs as
// much as everything else outside the micro-kernel together.
// Here each 14 x 16 piece of A is loaded as 14 row vectors (plus 2 zero rows), transposed
// in registers by 64 shuffles, and stored as 16 runs of 14 floats: about one instruction
// per 3 floats.
#include "microkernels.hpp"
#include "packing.hpp"

// GCC 12 warns that the shuffles' internal _mm512_undefined_ps() "may be used uninitialized"
// (a false alarm, fixed in GCC 13).
#if !defined(__clang__)   // a GCC-only warning: clang would warn that it does not know it
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace step10 {
namespace {

// r[i] holds 16 consecutive floats of row i; on return r[j] holds column j, that is lane i
// of the old r[i]. Three rounds of interleaving, each on twice the width of the last:
// single floats (unpack), pairs (shuffle_ps), then 128-bit lanes (shuffle_f32x4, twice).
void transpose_16x16(__m512 r[16]) {
    __m512 t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);       // per lane: r_i[0] r_i+1[0] r_i[1] r_i+1[1]
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);   //           r_i[2] r_i+1[2] r_i[3] r_i+1[3]
    }
    for (int g = 0; g < 16; g += 4) {   // u[g + c], lane L: column 4L + c of rows g..g+3
        u[g + 0] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
        u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
        u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
        u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
    }
    for (int c = 0; c < 4; ++c) {   // gather lane L of u[c], u[4+c], u[8+c], u[12+c]
        const __m512 even_lo = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);       // lanes 0, 2
        const __m512 odd_lo = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);        // lanes 1, 3
        const __m512 even_hi = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
        const __m512 odd_hi = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
        r[c] = _mm512_shuffle_f32x4(even_lo, even_hi, 0x88);        // lane 0: column c
        r[8 + c] = _mm512_shuffle_f32x4(even_lo, even_hi, 0xDD);    // lane 2: column 8 + c
        r[4 + c] = _mm512_shuffle_f32x4(odd_lo, odd_hi, 0x88);      // lane 1: column 4 + c
        r[12 + c] = _mm512_shuffle_f32x4(odd_lo, odd_hi, 0xDD);     // lane 3: column 12 + c
    }
}

__mmask16 first(int count) { return static_cast<__mmask16>(count >= 16 ? 0xFFFF : (1u << count) - 1); }

}  // namespace

void pack_a_avx512(int mc, int kc, const float* A, int lda, int mr, float* packed) {
    constexpr int MR = kMrAvx512;
    if (mr != MR) return pack_a(mc, kc, A, lda, mr, packed);
    const __mmask16 sliver_lanes = first(MR);
    for (int i0 = 0; i0 < mc; i0 += MR) {
        const int rows = mc - i0 < MR ? mc - i0 : MR;   // an edge sliver: zero rows below
        const float* a = A + static_cast<long>(i0) * lda;
        for (int p0 = 0; p0 < kc; p0 += 16) {
            const int cols = kc - p0 < 16 ? kc - p0 : 16;
            const __mmask16 in_window = first(cols);   // never read past column kc
            __m512 r[16];
            for (int i = 0; i < 16; ++i) {
                if (i < rows) {
                    const float* ai = a + static_cast<long>(i) * lda + p0;
                    _mm_prefetch(reinterpret_cast<const char*>(ai + 64), _MM_HINT_T0);
                    r[i] = _mm512_maskz_loadu_ps(in_window, ai);
                } else {
                    r[i] = _mm512_setzero_ps();
                }
            }
            transpose_16x16(r);
            for (int p = 0; p < cols; ++p)   // column p0 + p: 14 floats, lanes 14 and 15 are spare
                _mm512_mask_storeu_ps(packed + (p0 + p) * MR, sliver_lanes, r[p]);
        }
        packed += static_cast<long>(MR) * kc;
    }
}

void pack_b_avx512(int kc, int nc, const float* B, int ldb, int nr, float* packed) {
    constexpr int NR = kNrAvx512;
    if (nr != NR) return pack_b(kc, nc, B, ldb, nr, packed);
    const long sliver = static_cast<long>(NR) * kc;
    const int whole = nc / NR * NR;
    for (int p = 0; p < kc; ++p) {   // row by row through B, as in packing.cpp
        const float* b = B + static_cast<long>(p) * ldb;
        float* dst = packed + p * NR;
        for (int j0 = 0; j0 < whole; j0 += NR, dst += sliver) {
            _mm512_store_ps(dst, _mm512_loadu_ps(b + j0));
            _mm512_store_ps(dst + 16, _mm512_loadu_ps(b + j0 + 16));
        }
        if (whole < nc) {   // the last, partial sliver: zeros past column nc
            const int left = nc - whole;
            _mm512_store_ps(dst, _mm512_maskz_loadu_ps(first(left), b + whole));
            _mm512_store_ps(dst + 16, _mm512_maskz_loadu_ps(first(left - 16 > 0 ? left - 16 : 0), b + whole + 16));
        }
    }
}

}  // namespace step10
