// The building blocks of the AVX-512 packed tiles, shared by the files of its kernel families
// (microkernel_avx512*.cpp, each compiled with the AVX-512 flags): the multiply-add forms, a
// step of p, the tile loop and the ymm edge strip. Internal to each file that includes it
// (an unnamed namespace), so every kernel is compiled and inlined as one file's own code.
#pragma once

#include "microkernels.hpp"

#include <cstddef>

// GCC 12 warns that the internal _mm512_undefined_ps() of the ymm <-> zmm conversions "may be
// used uninitialized" (a false alarm, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)   // a GCC-only warning: clang would warn that it does not know it
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

namespace step10 {
namespace {

// How a step of p adds A(i, p) * B(p, j..j+15) into an accumulator. The step uses the first;
// the second where the core's load ports cannot feed the first (--fold 2; blocks.cpp:
// fold_broadcast); the other two exist for the ablation study (--no-fma: README, "Where the 6x
// comes from"). Each is spelled in inline assembly, so that the compiler emits exactly it.
enum MulAdd { kFoldedFma, kBroadcastFma, kFoldedMulAdd, kBroadcastMulAdd };

// acc[v] += ai * bv[v], ai = A(i, p) already broadcast to a register: by FMA, or (for the
// --no-fma variants) by a multiply and an add.
template <int OP, int VECS>
inline __attribute__((always_inline)) void row_madd_broadcast(__m512 (&acc)[VECS], const __m512 (&bv)[VECS], __m512 ai) {
#pragma GCC unroll 2
    for (int v = 0; v < VECS; ++v) {
        if constexpr (OP == kFoldedFma || OP == kBroadcastFma) {
            asm("vfmadd231ps %[a], %[b], %[c]" : [c] "+v"(acc[v]) : [b] "v"(bv[v]), [a] "v"(ai));
        } else {
            __m512 t;
            asm("vmulps %[a], %[b], %[t]" : [t] "=v"(t) : [b] "v"(bv[v]), [a] "v"(ai));
            asm("vaddps %[t], %[c], %[c]" : [c] "+v"(acc[v]) : [t] "v"(t));
        }
    }
}

// acc[v] += A(i, p) * bv[v] for the VECS vectors of one row of the tile; a points at A(i, p).
template <int OP, int VECS>
inline __attribute__((always_inline)) void row_madd(__m512 (&acc)[VECS], const __m512 (&bv)[VECS], const float* a) {
    if constexpr (OP == kFoldedFma || OP == kFoldedMulAdd) {
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v) {
            if constexpr (OP == kFoldedFma) {
                // >>> folded-fma
                asm("vfmadd231ps %[a]%{1to16%}, %[b], %[c]" : [c] "+v"(acc[v]) : [b] "v"(bv[v]), [a] "m"(*a));
                // <<< folded-fma
            } else {
                __m512 t;
                asm("vmulps %[a]%{1to16%}, %[b], %[t]" : [t] "=v"(t) : [b] "v"(bv[v]), [a] "m"(*a));
                asm("vaddps %[t], %[c], %[c]" : [c] "+v"(acc[v]) : [t] "v"(t));
            }
        }
    } else {   // one broadcast per row, used by both vectors
        __m512 ai;
        asm("vbroadcastss %[a], %[r]" : [r] "=v"(ai) : [a] "m"(*a));
        row_madd_broadcast<OP>(acc, bv, ai);
    }
}

// One step of p of the tile's outer product: acc += A(0..ROWS-1, p) * B(p, 0..16 VECS-1),
// then a and b move on to the next column of the A sliver and row of the B sliver.
template <int OP, int ROWS, int VECS>
inline __attribute__((always_inline)) void step_of_p(__m512 (&acc)[ROWS][VECS], const float*& a, const float*& b) {
    __m512 bv[VECS];
#pragma GCC unroll 2
    for (int v = 0; v < VECS; ++v) bv[v] = _mm512_load_ps(b + 16 * v);
    // With intrinsics (acc = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), bv, acc)) GCC 12 emits
    // a separate vbroadcastss per row; one line of inline assembly per FMA gets the
    // broadcast folded into the FMA's memory operand instead (objdump -d shows
    // "vfmadd231ps 0x8(%rax){1to16},%zmm1,%zmm17").
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) row_madd<OP>(acc[i], bv, a + i);
    a += kMrAvx512;   // the packed slivers keep their full MR x NR layout even for edge tiles
    b += kNrAvx512;
}

// The tile loop for the top ROWS rows and the left 16 * VECS columns of the 14 x 32 tile.
// The whole tile is tile<14, 2>; the other instances serve edge tiles, so that a tile with
// 2 rows or 5 columns left does not pay for 14 rows or 32 columns of FMAs.
// (OP and PREFETCH: the ablation study's switches; the step itself uses the defaults.)
template <int ROWS, int VECS, int OP = kFoldedFma, bool PREFETCH = true>
void tile(int kc, const float* a, const float* b, float* c, long ldc, int nr, const float* b_next) {
    constexpr int NR = kNrAvx512;

    // Ask for the C tile now, into L2; it is needed only after the k loop. Not into L1: with
    // ldc a multiple of 1024 floats the 14 rows are 4 KiB apart and all land in the same
    // two L1 sets, where they would evict each other and the slivers.
    if constexpr (PREFETCH) {
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; ++i) {
            _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
            _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + nr - 1), _MM_HINT_T1);
        }
    }

    __m512 acc[ROWS][VECS];   // row i of the tile: acc[i][0] = columns 0..15, acc[i][1] = 16..31
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < VECS; ++v) acc[i][v] = _mm512_setzero_ps();

    // >>> k-loop
    // Four steps of p per iteration, and with them one line of the next B sliver into L2
    // (microkernels.hpp: b_next). Without it, the first tile on each B sliver waits on L3 (README: "Prefetching the next B
    // sliver").
    int p = 0;
    for (; p + 4 <= kc; p += 4) {
        if (b_next != nullptr) _mm_prefetch(reinterpret_cast<const char*>(b_next + 4 * p), _MM_HINT_T1);
#pragma GCC unroll 4
        for (int u = 0; u < 4; ++u) step_of_p<OP>(acc, a, b);
    }
    for (; p < kc; ++p) step_of_p<OP>(acc, a, b);
    // <<< k-loop

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

// A last strip of at most 8 columns in ymm registers. A zmm FMA occupies both of Zen 4's
// FMA pipes, a ymm FMA only one, so 8 columns cost half as much this way as in a zmm
// register whose upper half is masked off.
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

// The ablation study's kernels come in one instance per setting, in tables
// (microkernel_avx512_ablated.cpp, microkernel_avx512_direct.cpp): an entry's sub-tile shape
// is its last index, rows 1..14 and cols 16 or 32.
constexpr int kRowCounts = kMrAvx512, kColCounts = 2;
inline std::size_t tile_index(const AblatedTile& s) {
    const int rows = s.rows < 1 ? 1 : s.rows > kRowCounts ? kRowCounts : s.rows;
    return static_cast<std::size_t>((rows - 1) * kColCounts + (s.cols > 16 ? 1 : 0));
}

}  // namespace
}  // namespace step10
