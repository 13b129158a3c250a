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
#include "blocks.hpp"
#include "microkernels.hpp"

// GCC 12 warns that the internal _mm512_undefined_ps() of the ymm <-> zmm conversions "may be
// used uninitialized" (GCC bug 105593, fixed in GCC 13); it is a false alarm.
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

// Asks for the 32 floats of one row of B into L1: three lines when the row does not start
// on a line boundary (ldb = 1500: at first only the first and last line were asked for, and
// n = 1500 ran 3 % slower with the copies than without).
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
// rows per four steps, to finish any share inside the k loop, ran 3 % slower than no copy
// at all in one of two binaries built from the same code: an effect of where the loop
// landed in memory, not of the work.) It replaces the prefetch of the next sliver: the copy
// brings it into the cache. Its set-up and C update repeat tile<14, 2>'s on purpose: one
// tile template with the per-four-steps work as a parameter compiled tile<14, 2> differently
// (a cloned instance, other scheduling) and cost 2-3 % at n = 1024-2048, with and without
// the copies (Emerald Rapids, interleaved rounds).
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
// integer instructions per four steps. (Measured, a 14 x 32 tile on data in L1 at k = 96,
// Emerald Rapids: 157 GFLOPS either way, so this is tidiness, not speed, on that core.)
// One broadcast per row, not folded into both FMAs as in the packed tile: 153 folded with
// computed addresses, 122 folded with an index register in the address (likely because
// Intel cores split an indexed memory operand of a three-input instruction into two uops;
// without performance counters we could not check), 157 with one broadcast.
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
// loaded through a mask: a masked load also takes an ALU port on Intel, and with both
// vectors masked the 14 x 32 tile ran 8 % slower (Emerald Rapids, k = 96: 152 against 164
// GFLOPS).
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

// The last 1-4 columns of an unpacked product, after its whole 16-column vectors, as dot
// products along k. In a tile, such a strip costs one FMA per row and step of p however few
// columns it has: at n = 100 the 4 columns left after 96 take 1 of every 7 FMAs for 4 % of
// the work. Here a zmm holds 16 steps of p instead: A(i, p..p+15), one load from row i, times
// the same 16 entries of one of the strip's columns of B, which pack_b_narrow has laid out
// along k (bt[j * kpad + p] = B(p, j)). A row then costs 4 FMAs per 16 steps of p (the strip
// zero-padded to 4 columns), and its 4 accumulators are summed across their lanes once at
// the end: about 9 shuffles, which is why 5-8 columns (8 accumulators, twice the shuffles)
// stay in the ymm strip (README: "The narrow last columns").
//
// acc[r][j] holds 16 partial sums of C(r, j); sum4 adds up four such accumulators into
// [s0 s1 s2 s3]: quarters first (two accumulators per register), then the four floats left
// in each quarter.
inline __m128 sum4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
    // [a0 q0+q2, a0 q1+q3, a1 q0+q2, a1 q1+q3] and the same for a2, a3
    const __m512 t01 = _mm512_add_ps(_mm512_shuffle_f32x4(a0, a1, 0x44), _mm512_shuffle_f32x4(a0, a1, 0xEE));
    const __m512 t23 = _mm512_add_ps(_mm512_shuffle_f32x4(a2, a3, 0x44), _mm512_shuffle_f32x4(a2, a3, 0xEE));
    // quarter j: four floats whose sum is s_j
    __m512 q = _mm512_add_ps(_mm512_shuffle_f32x4(t01, t23, 0x88), _mm512_shuffle_f32x4(t01, t23, 0xDD));
    q = _mm512_add_ps(q, _mm512_permute_ps(q, 0xB1));   // swap neighbours
    q = _mm512_add_ps(q, _mm512_permute_ps(q, 0x4E));   // swap pairs: every float of quarter j is s_j
    return _mm512_castps512_ps128(_mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), q));
}

template <int R>
void narrow_rows(int k, const float* a, long lda, const float* bt, long kpad, float* c, long ldc, int nr) {
    __m512 acc[R][4];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) acc[r][j] = _mm512_setzero_ps();
    // 16 steps of p; the last, partial ones read A through a mask (bt is zero there).
    auto steps16 = [&](int p, __mmask16 mask) {
        __m512 av[R];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) av[r] = _mm512_maskz_loadu_ps(mask, a + r * lda + p);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
            const __m512 bv = _mm512_load_ps(bt + j * kpad + p);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) acc[r][j] = _mm512_fmadd_ps(av[r], bv, acc[r][j]);
        }
    };
    int p = 0;
    for (; p + 16 <= k; p += 16) steps16(p, 0xFFFF);
    if (p < k) steps16(p, static_cast<__mmask16>((1u << (k - p)) - 1));

    const __mmask16 kc = static_cast<__mmask16>((1u << nr) - 1);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        const __m512 sums = _mm512_zextps128_ps512(sum4(acc[r][0], acc[r][1], acc[r][2], acc[r][3]));
        float* cr = c + r * ldc;
        _mm512_mask_storeu_ps(cr, kc, _mm512_add_ps(_mm512_maskz_loadu_ps(kc, cr), sums));
    }
}

// All m rows, R at a time (6 x 4 = 24 accumulators, 6 A registers), the rest in one smaller block.
template <int R>
void narrow_all_rows(int m, int k, const float* a, long lda, const float* bt, long kpad, float* c, long ldc, int nr) {
    int i = 0;
    for (; i + R <= m; i += R)
        narrow_rows<R>(k, a + static_cast<long>(i) * lda, lda, bt, kpad, c + static_cast<long>(i) * ldc, ldc, nr);
    if constexpr (R > 1)
        if (i < m)
            narrow_all_rows<R - 1>(m - i, k, a + static_cast<long>(i) * lda, lda, bt, kpad,
                                       c + static_cast<long>(i) * ldc, ldc, nr);
}

// An edge tile of ROWS rows and nr columns: whole zmm vectors for the first 16 or 32
// columns, a ymm strip for a rest of up to 8.
template <int ROWS, int OP>
void edge(int kc, const float* a, const float* b, float* c, long ldc, int nr, const float* b_next) {
    if (nr > 24) return tile<ROWS, 2, OP>(kc, a, b, c, ldc, nr, b_next);
    if (nr > 16) {
        tile<ROWS, 1, OP>(kc, a, b, c, ldc, 16, b_next);
        return tile8<ROWS>(kc, a, b + 16, c + 16, ldc, nr - 16);
    }
    if (nr > 8) return tile<ROWS, 1, OP>(kc, a, b, c, ldc, nr, b_next);
    tile8<ROWS>(kc, a, b, c, ldc, nr);
}

// The whole packed kernel in one multiply-add form: the common case first; then one
// instance per row count.
template <int OP>
void packed_kernel(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr, const float* b_next) {
    if (mr == kMrAvx512 && nr == kNrAvx512) return tile<14, 2, OP>(kc, a, b, c, ldc, nr, b_next);
    switch (mr) {
#define EDGE_TILE(R) case R: return edge<R, OP>(kc, a, b, c, ldc, nr, b_next);
        EDGE_TILE(1) EDGE_TILE(2) EDGE_TILE(3) EDGE_TILE(4) EDGE_TILE(5) EDGE_TILE(6) EDGE_TILE(7)
        EDGE_TILE(8) EDGE_TILE(9) EDGE_TILE(10) EDGE_TILE(11) EDGE_TILE(12) EDGE_TILE(13) EDGE_TILE(14)
#undef EDGE_TILE
        default: return;
    }
}

// An edge tile (the last rows of the A block) copies its share first, then computes.
template <int OP>
void copying_kernel(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr, SliverCopy copy) {
    if (mr == kMrAvx512 && nr == kNrAvx512) return tile_copying<OP>(kc, a, b, c, ldc, copy);
    while (copy.pieces > 0) copy_half_row(copy);
    packed_kernel<OP>(kc, a, b, c, ldc, mr, nr, nullptr);
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
    packed_kernel<kFoldedFma>(kc, a, b, c, ldc, mr, nr, b_next);
}
void microkernel_avx512_14x32_broadcast(int kc, const float* a, const float* b, float* c, long ldc,
                                        int mr, int nr, const float* b_next) {
    packed_kernel<kBroadcastFma>(kc, a, b, c, ldc, mr, nr, b_next);
}

}  // namespace step10

namespace step10 {

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

void microkernel_avx512_14x32_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr,
                                     SliverCopy copy) {
    copying_kernel<kFoldedFma>(kc, a, b, c, ldc, mr, nr, copy);
}
void microkernel_avx512_14x32_broadcast_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr,
                                                int nr, SliverCopy copy) {
    copying_kernel<kBroadcastFma>(kc, a, b, c, ldc, mr, nr, copy);
}

void microkernel_avx512_narrow(int m, int k, const float* a, long lda, const float* bt, float* c, long ldc,
                               int nr) {
    narrow_all_rows<6>(m, k, a, lda, bt, narrow_depth(k), c, ldc, nr);
}

}  // namespace step10

// The ablation study's micro-kernels (README: "What each trick buys"). They take the tile
// apart along the switches in `ablation`: sub-tiles of tile_rows x tile_cols inside the
// packed 14 x 32 slivers, the multiply-add in the form --no-fma / --fold ask for, the C
// prefetch and the ymm edge strips on or off. The step itself never calls them: step.cpp
// picks them only when one of these switches is set.
namespace step10 {
namespace {

template <int ROWS, int OP>
void edge_ablated(int kc, const float* a, const float* b, float* c, long ldc, int nr, bool strips,
                  const float* b_next) {
    if (nr > 24 || (!strips && nr > 16)) return tile<ROWS, 2, OP, false>(kc, a, b, c, ldc, nr, b_next);
    if (nr > 16) {
        tile<ROWS, 1, OP, false>(kc, a, b, c, ldc, 16, b_next);
        return tile8<ROWS>(kc, a, b + 16, c + 16, ldc, nr - 16);
    }
    if (nr > 8 || !strips) return tile<ROWS, 1, OP, false>(kc, a, b, c, ldc, nr, b_next);
    tile8<ROWS>(kc, a, b, c, ldc, nr);
}

template <int ROWS, int OP>
void edge_direct_ablated(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr,
                         bool strips) {
    if (nr > 24 || (!strips && nr > 16)) return tile_direct<ROWS, 2, OP>(k, a, lda, b, ldb, c, ldc, nr);
    if (nr > 16) {
        tile_direct<ROWS, 1, OP>(k, a, lda, b, ldb, c, ldc, 16);
        return tile8_direct<ROWS>(k, a, lda, b + 16, ldb, c + 16, ldc, nr - 16);
    }
    if (nr > 8 || !strips) return tile_direct<ROWS, 1, OP>(k, a, lda, b, ldb, c, ldc, nr);
    tile8_direct<ROWS>(k, a, lda, b, ldb, c, ldc, nr);
}

// One instance per row count and multiply-add form.
template <int OP>
void sub_tile(int rows, int kc, const float* a, const float* b, float* c, long ldc, int nr, bool strips,
              const float* b_next) {
    switch (rows) {
#define ROWS_CASE(R) case R: return edge_ablated<R, OP>(kc, a, b, c, ldc, nr, strips, b_next);
        ROWS_CASE(1) ROWS_CASE(2) ROWS_CASE(3) ROWS_CASE(4) ROWS_CASE(5) ROWS_CASE(6) ROWS_CASE(7)
        ROWS_CASE(8) ROWS_CASE(9) ROWS_CASE(10) ROWS_CASE(11) ROWS_CASE(12) ROWS_CASE(13) ROWS_CASE(14)
#undef ROWS_CASE
        default: return;
    }
}

template <int OP>
void sub_tile_direct(int rows, int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc, int nr,
                     bool strips) {
    switch (rows) {
#define ROWS_CASE(R) case R: return edge_direct_ablated<R, OP>(k, a, lda, b, ldb, c, ldc, nr, strips);
        ROWS_CASE(1) ROWS_CASE(2) ROWS_CASE(3) ROWS_CASE(4) ROWS_CASE(5) ROWS_CASE(6) ROWS_CASE(7)
        ROWS_CASE(8) ROWS_CASE(9) ROWS_CASE(10) ROWS_CASE(11) ROWS_CASE(12) ROWS_CASE(13) ROWS_CASE(14)
#undef ROWS_CASE
        default: return;
    }
}

struct SubTiles {
    int rows, cols, op;
    bool prefetch, strips;
};

SubTiles sub_tiles() {
    const Ablation& s = ablation;
    // MulAdd's order: folded FMA, broadcast FMA, folded mul + add, broadcast mul + add.
    return {s.tile_rows > 0 ? s.tile_rows : kMrAvx512, s.tile_cols > 0 ? s.tile_cols : kNrAvx512,
            (s.no_fma ? 2 : 0) + (fold_broadcast() ? 0 : 1), !s.no_prefetch, !s.no_strips};
}

}  // namespace

void microkernel_avx512_ablated(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr,
                                const float* b_next) {
    const SubTiles t = sub_tiles();
    if (!t.prefetch) b_next = nullptr;
    for (int i0 = 0; i0 < mr; i0 += t.rows) {
        const int rows = mr - i0 < t.rows ? mr - i0 : t.rows;
        for (int j0 = 0; j0 < nr; j0 += t.cols) {
            const int cols = nr - j0 < t.cols ? nr - j0 : t.cols;
            float* ct = c + i0 * ldc + j0;
            if (t.prefetch)
                for (int i = 0; i < rows; ++i) {
                    _mm_prefetch(reinterpret_cast<const char*>(ct + i * ldc), _MM_HINT_T1);
                    _mm_prefetch(reinterpret_cast<const char*>(ct + i * ldc + cols - 1), _MM_HINT_T1);
                }
            const float* as = a + i0;   // the sub-tile's rows and columns of the packed slivers
            const float* bs = b + j0;
            switch (t.op) {
                case kFoldedFma: sub_tile<kFoldedFma>(rows, kc, as, bs, ct, ldc, cols, t.strips, b_next); break;
                case kBroadcastFma: sub_tile<kBroadcastFma>(rows, kc, as, bs, ct, ldc, cols, t.strips, b_next); break;
                case kFoldedMulAdd: sub_tile<kFoldedMulAdd>(rows, kc, as, bs, ct, ldc, cols, t.strips, b_next); break;
                default: sub_tile<kBroadcastMulAdd>(rows, kc, as, bs, ct, ldc, cols, t.strips, b_next); break;
            }
        }
    }
}

void microkernel_avx512_ablated_direct(int k, const float* a, long lda, const float* b, long ldb, float* c, long ldc,
                                       int mr, int nr) {
    const SubTiles t = sub_tiles();
    for (int i0 = 0; i0 < mr; i0 += t.rows) {
        const int rows = mr - i0 < t.rows ? mr - i0 : t.rows;
        for (int j0 = 0; j0 < nr; j0 += t.cols) {
            const int cols = nr - j0 < t.cols ? nr - j0 : t.cols;
            const float* as = a + i0 * lda;
            const float* bs = b + j0;
            float* ct = c + i0 * ldc + j0;
            switch (t.op) {
                case kFoldedFma: sub_tile_direct<kFoldedFma>(rows, k, as, lda, bs, ldb, ct, ldc, cols, t.strips); break;
                case kBroadcastFma: sub_tile_direct<kBroadcastFma>(rows, k, as, lda, bs, ldb, ct, ldc, cols, t.strips); break;
                case kFoldedMulAdd: sub_tile_direct<kFoldedMulAdd>(rows, k, as, lda, bs, ldb, ct, ldc, cols, t.strips); break;
                default: sub_tile_direct<kBroadcastMulAdd>(rows, k, as, lda, bs, ldb, ct, ldc, cols, t.strips); break;
            }
        }
    }
}

}  // namespace step10
