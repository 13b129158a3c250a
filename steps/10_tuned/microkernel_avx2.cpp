// The AVX2+FMA micro-kernel, for CPUs without AVX-512: the same idea on a 6 x 16 tile held
// in 12 ymm registers. Per step of p: two 8-wide loads of the B sliver, 6 broadcasts of the
// A sliver, 12 FMAs. With 16 ymm registers, 12 accumulators + 2 B rows + 1 broadcast is as
// far as the tile can grow. Two FMA units with a 4-cycle latency need at least 8
// independent chains in flight; 12 gives some slack.
#include "microkernels.hpp"

#include <immintrin.h>

namespace step10 {

namespace {

// The k loop is written in assembly, four steps of p at a time, because of what GCC 12 made
// of it in intrinsics: 25 instructions a step where 20 do the work (register copies from
// its rotating the accumulators, two accumulators spilled to the stack in the copying
// kernel, a test and a branch a step for the prefetch). A quiet core hides the extra ones
// behind the FMAs; a core whose other hyperthread is busy dispatches fewer instructions a
// cycle, and there they cost (docs/tuning-log.md, "The AVX2 k loop in assembly"). The 12
// accumulators are pinned
// to ymm4-ymm15 so that no copy is needed around the asm; ymm0-1 hold the B row, ymm2-3
// the broadcasts of A.
//
// One step of p: the B row into ymm0-1, then for each of the 6 rows of A its element
// broadcast and the two FMAs into that row's accumulators. B_OFF0/1 and the A offsets are
// byte offsets from the two pointers, which move once per asm statement.
// >>> step
#define GEMM_AVX2_A(OFF, R, I)                                                        \
    "vbroadcastss " OFF "(%[a]), %%ymm" R "\n\t"                                      \
    "vfmadd231ps %%ymm0, %%ymm" R ", %[x" I "]\n\t"                                   \
    "vfmadd231ps %%ymm1, %%ymm" R ", %[y" I "]\n\t"
#define GEMM_AVX2_STEP(B_OFF0, B_OFF1, A0, A1, A2, A3, A4, A5)                        \
    "vmovaps " B_OFF0 "(%[b]), %%ymm0\n\t"                                            \
    "vmovaps " B_OFF1 "(%[b]), %%ymm1\n\t"                                            \
    GEMM_AVX2_A(A0, "2", "0") GEMM_AVX2_A(A1, "3", "1") GEMM_AVX2_A(A2, "2", "2")     \
    GEMM_AVX2_A(A3, "3", "3") GEMM_AVX2_A(A4, "2", "4") GEMM_AVX2_A(A5, "3", "5")
// <<< step
#define GEMM_AVX2_OPERANDS                                                            \
    : [x0] "+x"(x0), [x1] "+x"(x1), [x2] "+x"(x2), [x3] "+x"(x3), [x4] "+x"(x4),        \
      [x5] "+x"(x5), [y0] "+x"(y0), [y1] "+x"(y1), [y2] "+x"(y2), [y3] "+x"(y3),        \
      [y4] "+x"(y4), [y5] "+x"(y5)                                                    \
    : [a] "r"(a), [b] "r"(b)                                                          \
    : "xmm0", "xmm1", "xmm2", "xmm3", "memory"
// Four steps of p (a moves 4 x 6 floats, b 4 x 16), and one.
#define GEMM_AVX2_FOUR_STEPS()                                                        \
    do {                                                                              \
        asm(GEMM_AVX2_STEP("0", "32", "0", "4", "8", "12", "16", "20")                \
            GEMM_AVX2_STEP("64", "96", "24", "28", "32", "36", "40", "44")            \
            GEMM_AVX2_STEP("128", "160", "48", "52", "56", "60", "64", "68")          \
            GEMM_AVX2_STEP("192", "224", "72", "76", "80", "84", "88", "92")          \
            GEMM_AVX2_OPERANDS);                                                      \
        a += 4 * kMrAvx2;                                                             \
        b += 4 * kNrAvx2;                                                             \
    } while (0)
#define GEMM_AVX2_ONE_STEP()                                                          \
    do {                                                                              \
        asm(GEMM_AVX2_STEP("0", "32", "0", "4", "8", "12", "16", "20") GEMM_AVX2_OPERANDS); \
        a += kMrAvx2;                                                                 \
        b += kNrAvx2;                                                                 \
    } while (0)
// The accumulators, zero: row i of the tile is x<i> (columns 0..7) and y<i> (8..15).
// >>> accumulators
#define GEMM_AVX2_ACCUMULATORS                                                        \
    register __m256 x0 asm("ymm4") = _mm256_setzero_ps();                             \
    register __m256 x1 asm("ymm5") = _mm256_setzero_ps();                             \
    register __m256 x2 asm("ymm6") = _mm256_setzero_ps();                             \
    register __m256 x3 asm("ymm7") = _mm256_setzero_ps();                             \
    register __m256 x4 asm("ymm8") = _mm256_setzero_ps();                             \
    register __m256 x5 asm("ymm9") = _mm256_setzero_ps();                             \
    register __m256 y0 asm("ymm10") = _mm256_setzero_ps();                            \
    register __m256 y1 asm("ymm11") = _mm256_setzero_ps();                            \
    register __m256 y2 asm("ymm12") = _mm256_setzero_ps();                            \
    register __m256 y3 asm("ymm13") = _mm256_setzero_ps();                            \
    register __m256 y4 asm("ymm14") = _mm256_setzero_ps();                            \
    register __m256 y5 asm("ymm15") = _mm256_setzero_ps()
// <<< accumulators

// The C tile into L2 while the k loop runs (see the AVX-512 kernel).
inline __attribute__((always_inline)) void prefetch_c(const float* c, long ldc, int mr, int nr) {
    for (int i = 0; i < mr; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + nr - 1), _MM_HINT_T1);
    }
}

// C += the accumulators, only the mr x nr part inside C.
inline __attribute__((always_inline)) void add_to_c(const __m256 c0[kMrAvx2], const __m256 c1[kMrAvx2], float* c,
                                                    long ldc, int mr, int nr) {
    // AVX2 has no mask registers, but maskload/maskstore take a vector whose sign bits
    // select lanes: lane j is on when j < nr (and lanes of a masked-off element are neither
    // read nor written).
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr), lane);
    const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr - 8), lane);
#pragma GCC unroll 6
    for (int i = 0; i < kMrAvx2; ++i) {
        if (i < mr) {
            float* ci = c + i * ldc;
            if (nr == kNrAvx2) {   // the common, whole tile
                _mm256_storeu_ps(ci, _mm256_add_ps(_mm256_loadu_ps(ci), c0[i]));
                _mm256_storeu_ps(ci + 8, _mm256_add_ps(_mm256_loadu_ps(ci + 8), c1[i]));
            } else {
                _mm256_maskstore_ps(ci, m0, _mm256_add_ps(_mm256_maskload_ps(ci, m0), c0[i]));
                _mm256_maskstore_ps(ci + 8, m1, _mm256_add_ps(_mm256_maskload_ps(ci + 8, m1), c1[i]));
            }
        }
    }
}

// How many rows ahead of the copy the rows of B are asked for. On two 256-bit FMA pipes
// the AVX2 tile copies a row every 24 cycles of FMAs; the AVX-512 tile copies half a row
// every 56 (two 512-bit units) or 112 (Zen 4), so its 8 rows ahead are 900-1800 cycles of
// lead, and the same 8 rows here only about 190, too little to hide L3: 16 rows are enough
// (docs/tuning-log.md, "Step 10's measurements, moved out of its code").
constexpr int kRowsAhead = 16;

// One row (16 floats) of the next B sliver from B into the packed panel, and the row
// kRowsAhead ahead asked for (both its lines: a row that does not start on a line boundary
// spans two).
inline __attribute__((always_inline)) void copy_row(SliverCopy& copy) {
    _mm256_store_ps(copy.dst, _mm256_loadu_ps(copy.src));
    _mm256_store_ps(copy.dst + 8, _mm256_loadu_ps(copy.src + 8));
    _mm_prefetch(reinterpret_cast<const char*>(copy.src + kRowsAhead * copy.ld), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(copy.src + kRowsAhead * copy.ld + 15), _MM_HINT_T0);
    copy.src += copy.ld;
    copy.dst += 16;
    --copy.pieces;
}

}  // namespace

void microkernel_avx2_6x16(int kc, const float* a, const float* b, float* c, long ldc,
                           int mr, int nr, const float* b_next) {
    prefetch_c(c, ldc, mr, nr);
    // >>> k-loop
    GEMM_AVX2_ACCUMULATORS;
    int p = 0;
    for (; p + 4 <= kc; p += 4) {
        if (b_next != nullptr)   // the next B sliver into L2 (see the AVX-512 kernel)
            _mm_prefetch(reinterpret_cast<const char*>(b_next + 4 * p), _MM_HINT_T1);
        GEMM_AVX2_FOUR_STEPS();
    }
    for (; p < kc; ++p) GEMM_AVX2_ONE_STEP();
    // <<< k-loop
    const __m256 c0[kMrAvx2] = {x0, x1, x2, x3, x4, x5}, c1[kMrAvx2] = {y0, y1, y2, y3, y4, y5};
    add_to_c(c0, c1, c, ldc, mr, nr);
}

// The tile, copying its share of the next B sliver as it goes: one row every four steps of
// p, so that the loads from L3 overlap the FMAs (the AVX-512 kernel's tile_copying). The
// 4 or more calls on a sliver (an A block has at least NR / 4 = 4 slivers: blocks.cpp,
// mc_least) copy the whole sliver; a share left over is copied after the k loop. The copy
// brings the sliver into the cache, so there is no prefetch of it. An edge tile copies its
// share first and then runs as usual.
void microkernel_avx2_6x16_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr,
                                   SliverCopy copy) {
    if (mr != kMrAvx2 || nr != kNrAvx2) {
        while (copy.pieces > 0) copy_row(copy);
        return microkernel_avx2_6x16(kc, a, b, c, ldc, mr, nr, nullptr);
    }
    prefetch_c(c, ldc, mr, nr);
    for (int r = 0; r < kRowsAhead; ++r) {   // copy_row asks for the rest
        _mm_prefetch(reinterpret_cast<const char*>(copy.src + r * copy.ld), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(copy.src + r * copy.ld + 15), _MM_HINT_T0);
    }
    GEMM_AVX2_ACCUMULATORS;
    int p = 0;
    for (; p + 4 <= kc; p += 4) {
        if (copy.pieces > 0) copy_row(copy);
        GEMM_AVX2_FOUR_STEPS();
    }
    for (; p < kc; ++p) GEMM_AVX2_ONE_STEP();
    while (copy.pieces > 0) copy_row(copy);
    const __m256 c0[kMrAvx2] = {x0, x1, x2, x3, x4, x5}, c1[kMrAvx2] = {y0, y1, y2, y3, y4, y5};
    add_to_c(c0, c1, c, ldc, mr, nr);
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
