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
#include "kernel.hpp"

// GCC 12 warns that the internal _mm512_undefined_ps() of the ymm <-> zmm conversions "may be
// used uninitialized" (GCC bug 105593, fixed in GCC 13); it is a false alarm.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)   // a GCC-only warning: clang would warn that it does not know it
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace step09 {
namespace {

// One step of p of the tile's outer product: acc += A(0..ROWS-1, p) * B(p, 0..16 VECS-1),
// then a and b move on to the next column of the A sliver and row of the B sliver.
template <int ROWS, int VECS>
inline __attribute__((always_inline)) void step_of_p(__m512 (&acc)[ROWS][VECS], const float*& a, const float*& b) {
    __m512 bv[VECS];
#pragma GCC unroll 2
    for (int v = 0; v < VECS; ++v) bv[v] = _mm512_load_ps(b + 16 * v);
    // With intrinsics (acc = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), bv, acc)) GCC 12 emits
    // a separate vbroadcastss per row; one line of inline assembly per FMA gets the
    // broadcast folded into the FMA's memory operand instead (objdump -d shows
    // "vfmadd231ps 0x8(%rax){1to16},%zmm1,%zmm17").
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v)
            asm("vfmadd231ps %[a]%{1to16%}, %[b], %[c]"
                : [c] "+v"(acc[i][v]) : [b] "v"(bv[v]), [a] "m"(a[i]));
    a += kMrAvx512;   // the packed slivers keep their full MR x NR layout even for edge tiles
    b += kNrAvx512;
}

// The tile loop for the top ROWS rows and the left 16 * VECS columns of the 14 x 32 tile.
// The whole tile is tile<14, 2>; the other instances serve edge tiles, so that a tile with
// 2 rows or 5 columns left does not pay for 14 rows or 32 columns of FMAs.
template <int ROWS, int VECS>
void tile(int kc, const float* a, const float* b, float* c, long ldc, int nr, const float* b_next) {
    constexpr int NR = kNrAvx512;

    // Ask for the C tile now, into L2; it is needed only after the k loop. Not into L1: with
    // ldc a multiple of 1024 floats the 14 rows are 4 KiB apart and all land in the same
    // two L1 sets, where they would evict each other and the slivers.
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + nr - 1), _MM_HINT_T1);
    }

    __m512 acc[ROWS][VECS];   // row i of the tile: acc[i][0] = columns 0..15, acc[i][1] = 16..31
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v) acc[i][v] = _mm512_setzero_ps();

    // Four steps of p per iteration, and with them one line of the next B sliver into L2
    // (kernel.hpp: b_next). Without it, the first tile on each B sliver waits on L3 (step
    // 08's README: "Prefetching the next B sliver").
    int p = 0;
    for (; p + 4 <= kc; p += 4) {
        if (b_next != nullptr) _mm_prefetch(reinterpret_cast<const char*>(b_next + 4 * p), _MM_HINT_T1);
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) step_of_p(acc, a, b);
    }
    for (; p < kc; ++p) step_of_p(acc, a, b);

    // C += tile, only the nr columns inside C: a whole tile uses plain loads and stores,
    // an edge tile masks the columns past nr.
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        float* ci = c + i * ldc;
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v) {
            if (nr == NR) {
                _mm512_storeu_ps(ci + 16 * v, _mm512_add_ps(_mm512_loadu_ps(ci + 16 * v), acc[i][v]));
            } else {
                const int cols = nr - 16 * v;   // 1..16 for the vectors that reach this far
                const __mmask16 k = static_cast<__mmask16>(cols >= 16 ? 0xFFFF : (1u << cols) - 1);
                _mm512_mask_storeu_ps(ci + 16 * v, k,
                                      _mm512_add_ps(_mm512_maskz_loadu_ps(k, ci + 16 * v), acc[i][v]));
            }
        }
    }
}

// The same tile straight from A and B, unpacked: for small matrices, where packing costs
// more than it saves. Row i of the tile broadcasts A(i, p) = a[i * lda + p]; the B vectors
// are row p of B, loaded with a mask when fewer than 32 columns are left, so that nothing
// outside B's window is read.
template <int ROWS, int VECS>
void tile_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
    __m512 acc[ROWS][VECS];
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v) acc[i][v] = _mm512_setzero_ps();
    __mmask16 kb[VECS];
#pragma GCC unroll 2
    for (int v = 0; v < VECS; ++v) {
        const int cols = nr - 16 * v;
        kb[v] = static_cast<__mmask16>(cols >= 16 ? 0xFFFF : (1u << cols) - 1);
    }

#pragma GCC unroll 4
    for (int p = 0; p < k; ++p) {
        __m512 bv[VECS];
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v) bv[v] = _mm512_maskz_loadu_ps(kb[v], b + 16 * v);
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 2
            for (int v = 0; v < VECS; ++v)
                asm("vfmadd231ps %[a]%{1to16%}, %[b], %[c]"
                    : [c] "+v"(acc[i][v]) : [b] "v"(bv[v]), [a] "m"(a[i * lda]));
        a += 1;
        b += ldb;
    }

#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        float* ci = c + i * ldc;
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v)
            _mm512_mask_storeu_ps(ci + 16 * v, kb[v],
                                  _mm512_add_ps(_mm512_maskz_loadu_ps(kb[v], ci + 16 * v), acc[i][v]));
    }
}

// A last strip of at most 8 columns in ymm registers. A zmm FMA occupies both of Zen 4's
// FMA pipes, a ymm FMA only one, so 8 columns cost half as much this way as in a zmm
// register whose upper half is masked off (n = 100 ends in 4 columns: 2 % faster overall).
// B and C are read and written through a 16-lane mask (AVX-512F) and the ymm half of the
// register.
template <int ROWS>
void tile8(int kc, const float* a, const float* b, float* c, long ldc, int nr) {
    const __mmask16 kb = static_cast<__mmask16>((1u << nr) - 1);   // nr = 1..8
    __m256 acc[ROWS];
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) acc[i] = _mm256_setzero_ps();
    for (int p = 0; p < kc; ++p) {
        const __m256 bv = _mm256_load_ps(b);   // the packed sliver has zeros past nr
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; ++i) acc[i] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + i), bv, acc[i]);
        a += kMrAvx512;
        b += kNrAvx512;
    }
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        const __m512 ci = _mm512_maskz_loadu_ps(kb, c + i * ldc);
        _mm512_mask_storeu_ps(c + i * ldc, kb, _mm512_add_ps(ci, _mm512_zextps256_ps512(acc[i])));
    }
}

template <int ROWS>
void tile8_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
    const __mmask16 kb = static_cast<__mmask16>((1u << nr) - 1);
    __m256 acc[ROWS];
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) acc[i] = _mm256_setzero_ps();
    for (int p = 0; p < k; ++p) {
        const __m256 bv = _mm512_castps512_ps256(_mm512_maskz_loadu_ps(kb, b));
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; ++i) acc[i] = _mm256_fmadd_ps(_mm256_broadcast_ss(a + i * lda), bv, acc[i]);
        a += 1;
        b += ldb;
    }
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        const __m512 ci = _mm512_maskz_loadu_ps(kb, c + i * ldc);
        _mm512_mask_storeu_ps(c + i * ldc, kb, _mm512_add_ps(ci, _mm512_zextps256_ps512(acc[i])));
    }
}

// An edge tile of ROWS rows and nr columns: whole zmm vectors for the first 16 or 32
// columns, a ymm strip for a rest of up to 8.
template <int ROWS>
void edge(int kc, const float* a, const float* b, float* c, long ldc, int nr, const float* b_next) {
    if (nr > 24) return tile<ROWS, 2>(kc, a, b, c, ldc, nr, b_next);
    if (nr > 16) {
        tile<ROWS, 1>(kc, a, b, c, ldc, 16, b_next);
        return tile8<ROWS>(kc, a, b + 16, c + 16, ldc, nr - 16);
    }
    if (nr > 8) return tile<ROWS, 1>(kc, a, b, c, ldc, nr, b_next);
    tile8<ROWS>(kc, a, b, c, ldc, nr);
}

template <int ROWS>
void edge_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
    if (nr > 24) return tile_direct<ROWS, 2>(k, a, lda, b, ldb, c, ldc, nr);
    if (nr > 16) {
        tile_direct<ROWS, 1>(k, a, lda, b, ldb, c, ldc, 16);
        return tile8_direct<ROWS>(k, a, lda, b + 16, ldb, c + 16, ldc, nr - 16);
    }
    if (nr > 8) return tile_direct<ROWS, 1>(k, a, lda, b, ldb, c, ldc, nr);
    tile8_direct<ROWS>(k, a, lda, b, ldb, c, ldc, nr);
}

}  // namespace

void microkernel_avx512_14x32(int kc, const float* a, const float* b, float* c, long ldc,
                              int mr, int nr, const float* b_next) {
    // The common case first; then one instance per row count.
    if (mr == kMrAvx512 && nr == kNrAvx512) return tile<14, 2>(kc, a, b, c, ldc, nr, b_next);
    switch (mr) {
#define EDGE_TILE(R) case R: return edge<R>(kc, a, b, c, ldc, nr, b_next);
        EDGE_TILE(1) EDGE_TILE(2) EDGE_TILE(3) EDGE_TILE(4) EDGE_TILE(5) EDGE_TILE(6) EDGE_TILE(7)
        EDGE_TILE(8) EDGE_TILE(9) EDGE_TILE(10) EDGE_TILE(11) EDGE_TILE(12) EDGE_TILE(13) EDGE_TILE(14)
#undef EDGE_TILE
        default: return;
    }
}

}  // namespace step09

namespace step09 {

void microkernel_avx512_14x32_direct(int k, const float* a, long lda, const float* b, long ldb,
                                     float* c, long ldc, int mr, int nr) {
    switch (mr) {
#define EDGE_TILE(R) case R: return edge_direct<R>(k, a, lda, b, ldb, c, ldc, nr);
        EDGE_TILE(1) EDGE_TILE(2) EDGE_TILE(3) EDGE_TILE(4) EDGE_TILE(5) EDGE_TILE(6) EDGE_TILE(7)
        EDGE_TILE(8) EDGE_TILE(9) EDGE_TILE(10) EDGE_TILE(11) EDGE_TILE(12) EDGE_TILE(13) EDGE_TILE(14)
#undef EDGE_TILE
        default: return;
    }
}

}  // namespace step09
