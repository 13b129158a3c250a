// The building blocks of the AVX-512 unpacked tiles (small matrices), shared by the direct
// kernel (microkernel_avx512_direct.cpp) and the ablation study's (microkernel_avx512_ablated.cpp).
// Internal to each file that includes it, as avx512_tile.hpp.
#pragma once

#include "avx512_tile.hpp"

namespace step10 {
namespace {

// The same tile straight from A and B, unpacked: for small matrices, where packing costs
// more than it saves. Row i of the tile broadcasts A(i, p) = a[i * lda + p]; the B vectors
// are row p of B, loaded with a mask when fewer than 32 columns are left, so that nothing
// outside B's window is read.
//
// The 14 rows of A are reached from four row pointers ag[g] = A(4g, p) and two strides:
// row 4g + r is at ag[g] + r lda, and r lda (r = 1, 2, 3) is one x86 address: base + lda x 4,
// base + lda x 8, base + 3lda x 4 (bytes). With four steps of p per iteration, p + u is the
// address's displacement (4u bytes). So the loop has no address arithmetic: spelled as
// a[i * lda + p], GCC 12 computed each row's address with an lea or an add, about 20
// integer instructions per four steps (on a core that hides them, tidiness rather than speed).
// One broadcast per row, not folded into both FMAs as in the packed tile: folded, the rows'
// addresses cost the arithmetic again, and with an index register in the address it was
// much slower (likely because Intel cores split an indexed memory operand of a three-input
// instruction into two uops; docs/tuning-log.md).
template <class Vec, int U>
inline __attribute__((always_inline)) Vec broadcast_row(int i, const float* const* ag, long lda, long lda3) {
    const float* base = ag[i / 4];
    Vec r;
    switch (i % 4) {
        case 0: asm("vbroadcastss %c[d](%[p]), %[r]" : [r] "=v"(r) : [p] "r"(base), [d] "i"(4 * U)); break;
        case 1: asm("vbroadcastss %c[d](%[p],%[s],4), %[r]" : [r] "=v"(r) : [p] "r"(base), [s] "r"(lda), [d] "i"(4 * U)); break;
        case 2: asm("vbroadcastss %c[d](%[p],%[s],8), %[r]" : [r] "=v"(r) : [p] "r"(base), [s] "r"(lda), [d] "i"(4 * U)); break;
        default: asm("vbroadcastss %c[d](%[p],%[s],4), %[r]" : [r] "=v"(r) : [p] "r"(base), [s] "r"(lda3), [d] "i"(4 * U)); break;
    }
    return r;
}
// (The asm reads A without telling the compiler. Nothing in these functions writes A, and
// the C stores after the loop depend on the accumulators the asm produces, so no store can
// move before a read.)

// Row pointers for the rows of an unpacked A block, and the step that moves them on.
template <int ROWS>
struct RowGroups {
    static constexpr int count = (ROWS + 3) / 4;
    const float* ag[count];
    long lda, lda3;
    RowGroups(const float* a, long lda_) : lda(lda_), lda3(3 * lda_) {
#pragma GCC unroll 4
        for (int g = 0; g < count; ++g) ag[g] = a + 4 * g * lda;
    }
    void advance(int steps) {
#pragma GCC unroll 4
        for (int g = 0; g < count; ++g) ag[g] += steps;
    }
};

// Step p + U of the unpacked tile. Only the last B vector of an edge tile (MASK_LAST) is
// loaded through a mask: a masked load also takes an ALU port on Intel, and both vectors
// masked slowed the 14 x 32 tile (docs/tuning-log.md).
template <int U, int OP, bool MASK_LAST, int ROWS, int VECS>
inline __attribute__((always_inline)) void direct_step(__m512 (&acc)[ROWS][VECS], const RowGroups<ROWS>& rows,
                                                       const float* b, long ldb, const __mmask16 (&kb)[VECS]) {
    __m512 bv[VECS];
#pragma GCC unroll 2
    for (int v = 0; v < VECS; ++v)
        bv[v] = MASK_LAST && v == VECS - 1 ? _mm512_maskz_loadu_ps(kb[v], b + U * ldb + 16 * v)
                                           : _mm512_loadu_ps(b + U * ldb + 16 * v);
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) row_madd_broadcast<OP>(acc[i], bv, broadcast_row<__m512, U>(i, rows.ag, rows.lda, rows.lda3));
}

// nr > 16 (VECS - 1): only the last vector can be partial.
template <int ROWS, int VECS, int OP, bool MASK_LAST>
void tile_direct_loop(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
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

    RowGroups<ROWS> rows(a, lda);
    int p = 0;
    for (; p + 4 <= k; p += 4) {
        direct_step<0, OP, MASK_LAST>(acc, rows, b, ldb, kb);
        direct_step<1, OP, MASK_LAST>(acc, rows, b, ldb, kb);
        direct_step<2, OP, MASK_LAST>(acc, rows, b, ldb, kb);
        direct_step<3, OP, MASK_LAST>(acc, rows, b, ldb, kb);
        rows.advance(4);
        b += 4 * ldb;
    }
    for (; p < k; ++p) {
        direct_step<0, OP, MASK_LAST>(acc, rows, b, ldb, kb);
        rows.advance(1);
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

template <int ROWS, int VECS, int OP = kFoldedFma>
void tile_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
    if (nr == 16 * VECS) return tile_direct_loop<ROWS, VECS, OP, false>(k, a, lda, b, ldb, c, ldc, nr);
    tile_direct_loop<ROWS, VECS, OP, true>(k, a, lda, b, ldb, c, ldc, nr);
}

template <int ROWS>
void tile8_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr) {
    const __mmask16 kb = static_cast<__mmask16>((1u << nr) - 1);
    __m256 acc[ROWS];
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) acc[i] = _mm256_setzero_ps();
    // The rows' addresses as in tile_direct.
    RowGroups<ROWS> rows(a, lda);
    auto step = [&]<int U>() {
        const __m256 bv = _mm512_castps512_ps256(_mm512_maskz_loadu_ps(kb, b + U * ldb));
#pragma GCC unroll 14
        for (int i = 0; i < ROWS; ++i)
            acc[i] = _mm256_fmadd_ps(broadcast_row<__m256, U>(i, rows.ag, rows.lda, rows.lda3), bv, acc[i]);
    };
    int p = 0;
    for (; p + 4 <= k; p += 4) {
        step.template operator()<0>();
        step.template operator()<1>();
        step.template operator()<2>();
        step.template operator()<3>();
        rows.advance(4);
        b += 4 * ldb;
    }
    for (; p < k; ++p) {
        step.template operator()<0>();
        rows.advance(1);
        b += ldb;
    }
#pragma GCC unroll 14
    for (int i = 0; i < ROWS; ++i) {
        const __m512 ci = _mm512_maskz_loadu_ps(kb, c + i * ldc);
        _mm512_mask_storeu_ps(c + i * ldc, kb, _mm512_add_ps(ci, _mm512_zextps256_ps512(acc[i])));
    }
}

}  // namespace
}  // namespace step10
