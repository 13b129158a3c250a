// Step 08: the GotoBLAS / BLIS loop nest around the largest register tile the CPU holds.
//
//   for jc in 0..n step nc:                 B panel  kc x nc  -> packed, stays in L3 (equal panels)
//     for pc in 0..k step kc:
//       pack B(pc.., jc..) into Bp          (NR-column slivers)
//       for ic in 0..m step mc:             A block  mc x kc  -> packed, stays in L2
//         pack A(ic.., pc..) into Ap        (MR-row slivers)
//         for jr in 0..nc step NR:          B sliver kc x NR  -> stays in L1
//           for ir in 0..mc step MR:        A sliver kc x MR  -> streams from L2 through L1
//             micro-kernel: C(ic+ir.., jc+jr..) += Ap sliver * Bp sliver
//
// Step 07's loops were the two inner ones and the kc loop; the jc loop is new, and the tile
// grows from 4 x 4 to MR x NR: AVX-512 14 x 32, AVX2 6 x 16 or NEON 8 x 12, whichever the
// CPU has (README: "The code"). The loops and the packing are the
// same for all three.
#include "loop_nest.hpp"
#include "packing.hpp"

#include <gemm/step.hpp>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace step08 {
namespace {

int mc_set = 0, kc_set = 0, nc_set = 0;   // from --mc, --kc, --nc; 0 = automatic

int round_up(int x, int to) { return (x + to - 1) / to * to; }
// A cache rule's block, computed in 64 bits: a multiple of `to` from one `to` up to
// gemm::cpu::kMaxBlock (a 1 TiB L3 made nc overflow an int: 0, or negative).
int round_down_at_least(long long x, int to) { return gemm::cpu::block_size(x, to); }

void blocked_gemm(const Tile& tile, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                  float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int MR = tile.mr, NR = tile.nr;
    const Blocks blk = block_sizes(tile);
    thread_local PackBuffer a_buffer, b_buffer;
    // n, k and m each cut into the fewest pieces of at most nc, kc and mc, of equal size: a thin
    // last piece would cost a whole pass of the loops inside it for a few columns, steps or rows.
    const int panel = panel_width(n, blk.nc, NR), slice = panel_width(k, blk.kc, 1), block = panel_width(m, blk.mc, MR);
    float* Ap = a_buffer.get(static_cast<std::size_t>(block) * slice);
    float* Bp = b_buffer.get(static_cast<std::size_t>(panel) * slice);

    // >>> five-loops
    for (int jc = 0; jc < n; jc += panel) {
        const int nc = std::min(panel, n - jc);
        for (int pc = 0; pc < k; pc += slice) {
            const int kc = std::min(slice, k - pc);
            pack_b(kc, nc, B + static_cast<long>(pc) * ldb + jc, ldb, NR, Bp);
            for (int ic = 0; ic < m; ic += block) {
                const int mc = std::min(block, m - ic);
                pack_a(mc, kc, A + static_cast<long>(ic) * lda + pc, lda, MR, Ap);
                for (int jr = 0; jr < nc; jr += NR) {
                    const float* b_sliver = Bp + static_cast<long>(jr) * kc;
                    for (int ir = 0; ir < mc; ir += MR)
                        tile.kernel(kc, Ap + static_cast<long>(ir) * kc, b_sliver,
                                    C + static_cast<long>(ic + ir) * ldc + jc + jr, ldc, std::min(MR, mc - ir),
                                    std::min(NR, nc - jr));
                }
            }
        }
    }
    // <<< five-loops
}

#if defined(__x86_64__) || defined(_M_X64)
constexpr Tile kAvx512{microkernel_avx512_14x32, kMrAvx512, kNrAvx512};
constexpr Tile kAvx2{microkernel_avx2_6x16, kMrAvx2, kNrAvx2};
void gemm_avx512(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm(kAvx512, m, n, k, A, lda, B, ldb, C, ldc);
}
void gemm_avx2(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm(kAvx2, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"avx512", gemm_avx512, gemm::cpu::has_avx512f, "AVX-512F", kMrAvx512, kNrAvx512},
                                      {"avx2", gemm_avx2, gemm::cpu::has_avx2_fma, "AVX2+FMA", kMrAvx2, kNrAvx2}};
#elif defined(__aarch64__)
constexpr Tile kNeon{microkernel_neon_8x12, kMrNeon, kNrNeon};
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm(kNeon, m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON", kMrNeon, kNrNeon}};
#else
#error "step 08 has micro-kernels for x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif

const Tile* chosen = nullptr;   // use_variant's

int get_mc() { return block_sizes(shown_tile()).mc; }
int get_kc() { return block_sizes(shown_tile()).kc; }
int get_nc() { return block_sizes(shown_tile()).nc; }
void set_mc(int v) { mc_set = v; }
void set_kc(int v) { kc_set = v; }
void set_nc(int v) { nc_set = v; }

}  // namespace

// Block sizes (README: "Block sizes by hand"), the analytical model of BLIS: each block is sized
// for the cache it is reused from, innermost first, and leaves room for what streams past it.
// - kc: the B sliver (kc x NR) is read again by every A sliver of the block, so it should stay
//   in L1. It gets half of L1; the A sliver (MR/NR of its size) and the lines of C pass
//   through the other half.
// - mc: the A block (mc x kc) is read again for every B sliver of the panel, so it should stay
//   in L2. It gets half of L2; the B slivers on their way to L1 and the C tiles pass through
//   the other half.
// - nc: the B panel (kc x nc) is read again by every A block, so it should stay in L3. But the
//   L3 is shared by the chip's cores (8 around a Zen L3) and, on a cloud host, by other guests:
//   the panel gets a quarter of it, in equal panels (panel_width).
// --mc and --nc are rounded up to whole tiles and slivers, then held to 65536 like the rule's.
// A shallow kc means a C tile every kc steps; the kernels ask for it when they start
// (microkernel_avx512.cpp), so it is in L2 by the time they add to it.
// >>> block-rule
Blocks block_sizes(const Tile& tile) {
    const gemm::cpu::Caches& caches = gemm::cpu::caches();
    const long l1 = caches.l1d > 0 ? caches.l1d : 32 * 1024;   // unknown: a common size
    const long l2 = caches.l2 > 0 ? caches.l2 : 256 * 1024;
    const long l3 = caches.l3 > 0 ? caches.l3 : 4 * l2;
    Blocks b{};
    b.kc = kc_set > 0 ? kc_set : round_down_at_least(l1 / 2 / (4L * tile.nr), 16);
    b.mc = round_down_at_least(mc_set > 0 ? round_up(mc_set, tile.mr) : l2 / 2 / (4L * b.kc), tile.mr);
    b.nc = round_down_at_least(nc_set > 0 ? round_up(nc_set, tile.nr) : l3 / 4 / (4L * b.kc), tile.nr);
    return b;
}
// <<< block-rule

Tile shown_tile() {
    if (chosen != nullptr) return *chosen;
#if defined(__x86_64__) || defined(_M_X64)
    return gemm::cpu::has_avx512f() || !gemm::cpu::has_avx2_fma() ? kAvx512 : kAvx2;
#else
    return kNeon;
#endif
}

void use_variant(std::string_view name) {
#if defined(__x86_64__) || defined(_M_X64)
    chosen = name == "avx2" ? &kAvx2 : &kAvx512;
#else
    chosen = name.empty() ? nullptr : &kNeon;
#endif
}

const gemm::Param block_params[3] = {
    {"mc", "rows of the packed A block, in half of L2 (default: L2 / 2 / (kc * 4 bytes))", get_mc, set_mc},
    {"kc", "depth of the packed blocks, the B sliver in half of L1 (default: L1d / 2 / (NR * 4 bytes))", get_kc, set_kc},
    {"nc", "columns of the packed B panel, in a quarter of L3 (default: L3 / 4 / (kc * 4 bytes))", get_nc, set_nc}};

PackBuffer::~PackBuffer() { std::free(data_); }

float* PackBuffer::get(std::size_t floats) {
    if (floats > capacity_) {
        std::free(data_);
        const std::size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;   // aligned_alloc wants a multiple
        data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
        capacity_ = data_ != nullptr ? floats : 0;
        if (data_ == nullptr) throw std::bad_alloc();
    }
    return data_;
}

}  // namespace step08

GEMM_STEP({.variants = step08::variants, .params = step08::block_params, .use_variant = step08::use_variant})
