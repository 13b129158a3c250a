// The AVX-512 14 x 32 tile that copies the next B sliver into the packed panel while it
// computes (README: "Packing B inside the kernel calls").
#include "avx512_tile.hpp"

namespace step10 {
namespace {

// Asks for the 32 floats of one row of B into L1: three lines when the row does not start
// on a line boundary (a row 1500 floats after the last one does not): asking for the first
// and last line only left the middle one to wait on L3.
inline __attribute__((always_inline)) void prefetch_row32(const float* row) {
    _mm_prefetch(reinterpret_cast<const char*>(row), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(row + 16), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(row + 31), _MM_HINT_T0);
}

// One half row (16 floats) of the next B sliver from B into the packed panel; at the start
// of a row, the row 8 ahead is asked for, so that the copy does not wait on L3.
inline __attribute__((always_inline)) void copy_half_row(SliverCopy& copy) {
    _mm512_store_ps(copy.dst, _mm512_loadu_ps(copy.src));
    if (copy.odd == 0) prefetch_row32(copy.src + 8 * copy.ld);
    copy.src += copy.odd ? copy.ld - 16 : 16;
    copy.dst += 16;
    copy.odd ^= 1;
    --copy.pieces;
}

// The whole 14 x 32 tile, copying its share of the next B sliver as it goes: one half row
// every four steps of p, so that the loads from L3 overlap the FMAs. With 8 calls on a
// sliver (an A block of 112 rows or more) that is exactly the share; a share left over (a
// smaller first A block, fewer calls) is copied after the k loop. (A loop of several half
// rows per four steps, to finish any share inside the k loop, was slower in one binary of
// two built from the same code: it depends on where the loop lands in memory.) It replaces
// the prefetch of the next sliver: the copy brings it into the cache. Its set-up and C
// update repeat tile<14, 2>'s on purpose: one tile template with the per-four-steps work as
// a parameter compiled tile<14, 2> differently (a cloned instance, other scheduling), and
// slower, with and without the copies (docs/tuning-log.md).
template <int OP>
void tile_copying(int kc, const float* a, const float* b, float* c, long ldc, SliverCopy copy) {
    constexpr int ROWS = kMrAvx512, VECS = 2;
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + kNrAvx512 - 1), _MM_HINT_T1);
    }
    for (int r = 0; r < 8; ++r) prefetch_row32(copy.src + r * copy.ld);   // copy_half_row asks for the rest
    __m512 acc[ROWS][VECS];
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v) acc[i][v] = _mm512_setzero_ps();
    int p = 0;
    for (; p + 4 <= kc; p += 4) {
        if (copy.pieces > 0) copy_half_row(copy);
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) step_of_p<OP>(acc, a, b);
    }
    for (; p < kc; ++p) step_of_p<OP>(acc, a, b);
    while (copy.pieces > 0) copy_half_row(copy);
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        float* ci = c + i * ldc;
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v)
            _mm512_storeu_ps(ci + 16 * v, _mm512_add_ps(_mm512_loadu_ps(ci + 16 * v), acc[i][v]));
    }
}

// An edge tile (the last rows of the A block) copies its share first, then computes as the
// packed kernel (microkernel_avx512.cpp).
template <int OP>
void copying_kernel(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr, SliverCopy copy) {
    if (mr == kMrAvx512 && nr == kNrAvx512) return tile_copying<OP>(kc, a, b, c, ldc, copy);
    while (copy.pieces > 0) copy_half_row(copy);
    if constexpr (OP == kFoldedFma) microkernel_avx512_14x32(kc, a, b, c, ldc, mr, nr, nullptr);
    else microkernel_avx512_14x32_broadcast(kc, a, b, c, ldc, mr, nr, nullptr);
}

}  // namespace

void microkernel_avx512_14x32_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr,
                                     SliverCopy copy) {
    copying_kernel<kFoldedFma>(kc, a, b, c, ldc, mr, nr, copy);
}
void microkernel_avx512_14x32_broadcast_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr,
                                                int nr, SliverCopy copy) {
    copying_kernel<kBroadcastFma>(kc, a, b, c, ldc, mr, nr, copy);
}

}  // namespace step10
