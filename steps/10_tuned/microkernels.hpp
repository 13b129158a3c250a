// The micro-kernels of step 10, one per instruction set, each in its own file compiled with
// that ISA's flags. They all do the same thing on a different tile shape:
//
//     C(0..mr-1, 0..nr-1) += (packed A sliver, kc x MR) * (packed B sliver, kc x NR)
//
// a[p * MR + i] is A(i, p) and b[p * NR + j] is B(p, j): one column of the A sliver and one
// row of the B sliver per step of p, both contiguous. Rows and columns past the matrix edge
// are zero in the packed slivers, so the kernel always computes a whole MR x NR tile in
// registers; mr <= MR and nr <= NR say how much of it to add into C.
//
// b_next points at the part of the packed B that the next calls will read: the kernel asks
// for one 64-byte line of it every 4 steps of p (4 kc floats in all), into L2, so that the
// NR / 4 calls on one B sliver together bring in the next sliver (next_sliver_share).
#pragma once

namespace step10 {

using MicroKernel = void (*)(int kc, const float* a, const float* b, float* c, long ldc,
                             int mr, int nr, const float* b_next);
// How far into the next B sliver (in floats) call number `call` on the current sliver
// starts its prefetch: every call covers 4 kc floats, the NR / 4 calls cover NR kc, the
// whole sliver; later calls start again at its beginning.
constexpr long next_sliver_share(int call, int nr_tile, int kc) { return (call % (nr_tile / 4)) * 4L * kc; }
// Packing B inside the kernel calls (README: "Packing B inside the kernel calls"): while the
// first A block computes on one B sliver, its calls copy the next sliver from B into the
// packed panel, each a share of its rows. A share is `pieces` runs of 16 floats (a 32-wide
// sliver's row is two, `odd` says that the share starts at its second; a 16-wide sliver's
// row is one, and `odd` stays 0), from src (B's rows, ld apart) to dst (the packed
// sliver's rows, one after the other).
struct SliverCopy {
    const float* src;
    long ld;
    float* dst;
    int pieces;
    int odd;
};
// Share number `call` of `calls` of the copy of a kc-row, nr_tile-wide sliver from b (ld)
// to packed.
inline SliverCopy sliver_share(const float* b, long ld, float* packed, int kc, int nr_tile, int call, int calls) {
    const int per_row = nr_tile / 16;
    const long h0 = static_cast<long>(per_row) * kc * call / calls, h1 = static_cast<long>(per_row) * kc * (call + 1) / calls;
    return {b + h0 / per_row * ld + 16 * (h0 % per_row), ld, packed + 16 * h0, static_cast<int>(h1 - h0),
            static_cast<int>(h0 % per_row)};
}
using CopyingKernel = void (*)(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr,
                               SliverCopy copy);

// The same tile read straight from A (lda) and B (ldb), without packing: for small matrices.
using DirectKernel = void (*)(int k, const float* a, long lda, const float* b, long ldb,
                              float* c, long ldc, int mr, int nr);

// The last 1-4 columns of an unpacked product as dot products along k, for all m rows:
// bt holds those columns of B laid out along k (pack_b_narrow), each narrow_depth(k) long.
using NarrowKernel = void (*)(int m, int k, const float* a, long lda, const float* bt, float* c, long ldc,
                              int nr);
constexpr long narrow_depth(int k) { return (k + 15L) / 16 * 16; }

constexpr int kMrAvx512 = 14, kNrAvx512 = 32;   // 28 zmm accumulators
#if defined(__x86_64__) || defined(_M_X64)
void microkernel_avx512_14x32(int kc, const float* a, const float* b, float* c, long ldc,
                              int mr, int nr, const float* b_next);
void microkernel_avx512_14x32_direct(int k, const float* a, long lda, const float* b, long ldb,
                                     float* c, long ldc, int mr, int nr);
void microkernel_avx512_14x32_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr,
                                     SliverCopy copy);
void microkernel_avx512_narrow(int m, int k, const float* a, long lda, const float* bt, float* c, long ldc,
                               int nr);
// The packed tile with one vbroadcastss per row of A instead of the {1to16} operand folded
// into both FMAs: for cores whose two load ports cannot feed two folded FMAs a cycle
// (blocks.hpp: fold_broadcast).
void microkernel_avx512_14x32_broadcast(int kc, const float* a, const float* b, float* c, long ldc,
                                        int mr, int nr, const float* b_next);
void microkernel_avx512_14x32_broadcast_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr,
                                                int nr, SliverCopy copy);
// The ablation study's packed and unpacked tiles (microkernel_avx512_ablated.cpp): sub-tiles
// of rows x cols (cols 16 or 32) inside the packed 14 x 32 slivers, the multiply-add in form
// `op` (0 folded FMA, 1 broadcast FMA, 2 folded multiply and add, 3 broadcast multiply and
// add), the C and next-B prefetch and the ymm edge strips on or off. The settings are part of
// the kernel chosen, one instance each, so the kernel reads no state.
struct AblatedTile {
    int rows, cols, op;
    bool prefetch, strips;
};
MicroKernel microkernel_avx512_ablated(const AblatedTile& settings);
DirectKernel microkernel_avx512_ablated_direct(const AblatedTile& settings);
constexpr int kMrAvx2 = 6, kNrAvx2 = 16;        // 12 ymm accumulators
void microkernel_avx2_6x16(int kc, const float* a, const float* b, float* c, long ldc,
                           int mr, int nr, const float* b_next);
void microkernel_avx2_6x16_copying(int kc, const float* a, const float* b, float* c, long ldc, int mr, int nr,
                                   SliverCopy copy);
void microkernel_avx2_6x16_direct(int k, const float* a, long lda, const float* b, long ldb,
                                  float* c, long ldc, int mr, int nr);
#endif
#if defined(__aarch64__)
constexpr int kMrNeon = 8, kNrNeon = 12;        // 24 q-register accumulators
void microkernel_neon_8x12(int kc, const float* a, const float* b, float* c, long ldc,
                           int mr, int nr, const float* b_next);
#endif

}  // namespace step10
