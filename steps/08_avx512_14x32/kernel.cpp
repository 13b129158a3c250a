// Step 08: the GotoBLAS / BLIS loop nest around a register-tile micro-kernel.
//
//   for jc in 0..n step NC:                 B panel  kc x nc  -> packed, stays in L3
//     for pc in 0..k step KC:
//       pack B(pc.., jc..) into Bp          (NR-column slivers)
//       for ic in 0..m step MC:             A block  mc x kc  -> packed, stays in L2
//         pack A(ic.., pc..) into Ap        (MR-row slivers)
//         for jr in 0..nc step NR:          B sliver kc x NR  -> reused from L1 / L2
//           for ir in 0..mc step MR:        A sliver kc x MR  -> streamed from L2
//             micro-kernel: C(ic+ir.., jc+jr..) += Ap sliver * Bp sliver
//
// Which micro-kernel (and so MR x NR) depends on the CPU: AVX-512 14x32, AVX2 6x16 or
// NEON 8x12; the loops and the packing are the same for all three. Small matrices, whose
// A fits in L2, skip the packing: the x86 kernels then read A and B in place.
#include "kernel.hpp"
#include "packing.hpp"

#include <gemm/step.hpp>

#include <algorithm>
#include <cstddef>
#include <new>

namespace step08 {
namespace {

using PackA = void (*)(int mc, int kc, const float* A, int lda, int mr, float* packed);
using PackB = void (*)(int kc, int nc, const float* B, int ldb, int nr, float* packed);

struct TileShape {
    MicroKernel kernel;
    int mr, nr;
    double flops;                    // fp32 FLOPs per cycle of the FMA units it runs on
    DirectKernel direct = nullptr;   // unpacked variant, if the ISA has one
    NarrowKernel narrow = nullptr;   // its last 1-4 columns as dot products, if the ISA has it
    CopyingKernel copying = nullptr; // the tile copying the next B sliver, if the ISA has it
    PackA pack_a = step08::pack_a;   // vectorised packing, if the ISA has one
    PackB pack_b = step08::pack_b;
};

// --mc, --kc, --nc, --one-slice; 0 = derived from the caches (block_sizes below).
int user_mc = 0, user_kc = 0, user_nc = 0, user_one_slice = 0;

struct Blocks {
    int mc, kc, nc;
    int one_slice;   // k up to this depth is taken in one slice, not in slices of kc
};

int round_up(int x, int to) { return (x + to - 1) / to * to; }
int round_down_at_least(long x, int to) { return x < to ? to : static_cast<int>(x / to * to); }
int even_split(int total, int block) {
    const int parts = (total + block - 1) / block;
    return (total + parts - 1) / parts;
}

// fp32 FLOPs per core and cycle for a kernel's ISA: the microarchitecture table's figure
// (gemm/cpu.hpp), or, for a core the table does not know, two full-width FMA units, which
// asks for the deeper kc.
double fma_rate(double table, double two_full_units) { return table > 0 ? table : two_full_units; }

// Block sizes for an MR x NR micro-kernel on this CPU's caches and FMA units, `flops` fp32
// FLOPs per cycle (README: "Block sizes").
Blocks block_sizes(int mr, int nr, double flops) {
    const gemm::cpu::Caches& caches = gemm::cpu::caches();
    const long l1 = caches.l1d > 0 ? caches.l1d : 32 * 1024;
    const long l2 = caches.l2 > 0 ? caches.l2 : 256 * 1024;
    const long l3 = caches.l3 > 0 ? caches.l3 : 4 * l2;
    Blocks b{};
    if (ablation.old_blocks) {   // step 07's rules: the B sliver in half of L1, the A block in half of L2
        b.kc = user_kc > 0 ? user_kc : round_down_at_least(l1 / 2 / (4L * nr), 16);
        b.mc = user_mc > 0 ? round_up(user_mc, mr) : round_down_at_least(l2 / 2 / (4L * b.kc), mr);
        b.nc = user_nc > 0 ? round_up(user_nc, nr) : round_down_at_least(l3 / 2 / (4L * b.kc), nr);
        b.one_slice = b.kc;
        return b;
    }
    // MC, at least: the calls on one B sliver bring the next one into L2, a line every 4
    // steps of p each (kernel.hpp: b_next), so an A block has at least NR / 4 slivers.
    const int mc_least = mr * (nr / 4);
    // KC: long enough that each micro-kernel call's fixed cost, reading and writing its
    // MR x NR tile of C, is spread over many steps of p. A call computes for 2 MR NR kc /
    // flops cycles; its tile is 2 MR NR / 16 cache lines in and out of L2, about 2 cycles
    // each. kc >= 12.5 x flops keeps that under 1 %: 400 on a core with split 512-bit FMA
    // units (Zen 4), 800 on one with two full-width units. Deeper is fine while the two
    // slivers a call reads, (MR + NR) x kc floats, stay within about four times L1: they
    // stream in from L2. And the smallest A block must fit in half of L2.
    if (user_kc > 0) {
        b.kc = user_kc;
    } else {
        const int kc_fma = round_up(static_cast<int>(12.5 * flops + 0.5), 16);
        const int kc_stream = round_down_at_least(4 * l1 / (4L * (mr + nr)), 16);
        const int kc_l2 = round_down_at_least(l2 / 2 / (4L * mc_least), 16);
        b.kc = kc_stream > kc_fma ? kc_stream : kc_fma;
        if (b.kc > kc_l2) b.kc = kc_l2;
    }
    // MC: the packed A block (mc x kc), reused for every B sliver of the panel, takes a
    // quarter of L2, leaving room for the B slivers streaming through and the C tiles; but
    // at least mc_least rows.
    if (user_mc > 0) {
        b.mc = round_up(user_mc, mr);
    } else {
        b.mc = round_down_at_least(l2 / 4 / (4L * b.kc), mr);
        if (b.mc < mc_least) b.mc = mc_least;
    }
    // NC: the packed B panel (kc x nc), reused by every A block, takes half of L3.
    b.nc = user_nc > 0 ? round_up(user_nc, nr) : round_down_at_least(l3 / 2 / (4L * b.kc), nr);
    // One slice of k where it fits: every slice pays a pass of C through L3 and a packing of
    // B, so a k up to the depth at which the A block (mc rows) and two B slivers fill two
    // thirds of L2 is not cut (step 08 on Emerald Rapids: +0.5-1.3 % at n = 1300-1800).
    // Deeper, the A block no longer survives the slivers streaming through L2: there, k =
    // 1900 in one slice gained and k = 2000 lost (README: "One slice of k where it fits").
    // --one-slice sets the depth (never below kc: 1 turns it off); --kc alone turns it off too.
    const int fits = round_down_at_least(2 * l2 / 3 / (4L * (b.mc + 2 * nr)), 16);
    const int depth = user_one_slice > 0 ? user_one_slice : user_kc > 0 ? b.kc : fits;
    b.one_slice = depth > b.kc ? depth : b.kc;
    return b;
}

// Small matrices skip packing (README: "Small matrices"). Unpacked, every B sliver reads all
// of A in place, so A must fit in half of L2. And every A sliver reads the B sliver again:
// k rows of NR floats, 4 ldb bytes apart, which must stay in L2 too. Rows that far apart
// can only use the cache sets the stride reaches: for P the largest power of two that
// divides 4 ldb, one set in P / 64, so L2 holds at most L2 / P of them (P counted up to
// one way of L2, taken as an eighth: an L2 with more ways holds more). The sliver must fit
// in half of that. (ldb = 1024 at k = 1024 crowded it into 512 rows: unpacked ran at half
// the packed speed.) Setting any block size asks for the blocked path, whatever the size.
bool skip_packing(int m, int k, int ldb, int nr_tile) {
    if (user_mc > 0 || user_kc > 0 || user_nc > 0 || ablation.no_direct) return false;
    const long l2 = gemm::cpu::caches().l2 > 0 ? gemm::cpu::caches().l2 : 256 * 1024;
    const long stride = 4L * ldb;
    const long period = std::clamp(stride & -stride, 4L * nr_tile, l2 / 8);
    return 4L * m * k <= l2 / 2 && k <= l2 / period / 2;
}

// How many of the last columns of an unpacked product the narrow-strip kernel computes: the
// 1-4 columns after the last whole 16-column vector (n = 100: 4), when k is deep enough for
// its dot products to pay for summing their lanes at the end (README: "The narrow last
// columns").
constexpr int kNarrowLeastK = 48;
int narrow_columns(int n, int k) {
    const int rest = n % 16;
    return !ablation.no_narrow && rest >= 1 && rest <= 4 && k >= kNarrowLeastK ? rest : 0;
}

// A 64-byte aligned scratch buffer per thread that grows as needed and is kept between calls.
struct PackBuffer {
    float* data = nullptr;
    std::size_t size = 0;
    float* get(std::size_t floats) {
        if (floats > size) {
            ::operator delete[](data, std::align_val_t{64});
            data = static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64}));
            size = floats;
        }
        return data;
    }
    ~PackBuffer() { ::operator delete[](data, std::align_val_t{64}); }
};

void blocked_gemm(const TileShape& tile, int m, int n, int k, const float* A, int lda,
                  const float* B, int ldb, float* C, int ldc) {
    if (m <= 0 || n <= 0 || k <= 0) return;
    const int MR = tile.mr, NR = tile.nr;
    if (tile.direct != nullptr && skip_packing(m, k, ldb, NR)) {
        // Unpacked, the row tiles need not be MR rows each: m rows as ceil(m / MR) tiles of
        // nearly equal height (m = 100: 4 x 13 + 4 x 12 rows, not 7 x 14 + 2). A 2-row tile
        // has 4 accumulators for 2 FMA pipes of latency 4 and ran at half speed.
        const int row_tiles = (m + MR - 1) / MR;
        const int narrow = tile.narrow != nullptr ? narrow_columns(n, k) : 0;
        const int n_tiles = n - narrow;   // the columns the tiles compute
        for (int jr = 0; jr < n_tiles; jr += NR)
            for (int t = 0; t < row_tiles; ++t) {
                const int ir = static_cast<int>(static_cast<long>(m) * t / row_tiles);
                const int rows = static_cast<int>(static_cast<long>(m) * (t + 1) / row_tiles) - ir;
                tile.direct(k, A + static_cast<long>(ir) * lda, lda, B + jr, ldb,
                            C + static_cast<long>(ir) * ldc + jr, ldc, rows, n_tiles - jr < NR ? n_tiles - jr : NR);
            }
        if (narrow > 0) {
            thread_local PackBuffer narrow_buffer;
            float* bt = narrow_buffer.get(4 * static_cast<std::size_t>(narrow_depth(k)));
            pack_b_narrow(k, narrow, B + n_tiles, ldb, bt);
            tile.narrow(m, k, A, lda, bt, C + n_tiles, ldc, narrow);
        }
        return;
    }
    Blocks blk = block_sizes(MR, NR, tile.flops);
    // k in one slice where it fits (block_sizes: one_slice), else in equal slices of at most
    // kc: with kc = 704, k = 1536 as 3 x 512 rather than 2 x 704 + 128, whose thin last slice
    // would pay a whole pass of C-tile updates (and a packing of A and B) for a twelfth of
    // the work.
    if (k <= blk.one_slice) blk.kc = k;
    else if (!ablation.no_even_k) blk.kc = even_split(k, blk.kc);
    thread_local PackBuffer a_buffer, b_buffer;
    const int kc_max = blk.kc < k ? blk.kc : k;
    const int mc_max = blk.mc < m ? blk.mc : m;
    const int nc_max = blk.nc < n ? blk.nc : n;
    float* Ap = a_buffer.get(static_cast<std::size_t>(round_up(mc_max, MR)) * kc_max);
    float* Bp = b_buffer.get(static_cast<std::size_t>(round_up(nc_max, NR)) * kc_max);

    for (int jc = 0; jc < n; jc += blk.nc) {
        const int nc = n - jc < blk.nc ? n - jc : blk.nc;
        for (int pc = 0; pc < k; pc += blk.kc) {
            const int kc = k - pc < blk.kc ? k - pc : blk.kc;
            const float* b_block = B + static_cast<long>(pc) * ldb + jc;
            // The whole B panel now, or (copying in the kernel) its first sliver only.
            tile.pack_b(kc, tile.copying == nullptr || nc < NR ? nc : NR, b_block, ldb, NR, Bp);
            for (int ic = 0; ic < m; ic += blk.mc) {
                const int mc = m - ic < blk.mc ? m - ic : blk.mc;
                tile.pack_a(mc, kc, A + static_cast<long>(ic) * lda + pc, lda, MR, Ap);
                for (int jr = 0; jr < nc; jr += NR) {
                    const int nr = nc - jr < NR ? nc - jr : NR;
                    const float* b_sliver = Bp + static_cast<long>(jr) * kc;
                    // The first A block's calls on this sliver copy the next one from B
                    // (README: "Packing B inside the kernel calls"); a partial last sliver,
                    // which needs zeros past column nc, is packed here instead.
                    const int next_cols = ic == 0 && tile.copying != nullptr && jr + NR < nc ? nc - jr - NR : 0;
                    float* next_packed = Bp + static_cast<long>(jr + NR) * kc;
                    if (next_cols > 0 && next_cols < NR) tile.pack_b(kc, next_cols, b_block + jr + NR, ldb, NR, next_packed);
                    // Otherwise the calls bring the sliver after this one into L2 while they
                    // compute (after the last: the first, for the next A block).
                    const float* next_sliver = jr + NR < nc ? b_sliver + static_cast<long>(NR) * kc : Bp;
                    const int calls = (mc + MR - 1) / MR;
                    for (int ir = 0; ir < mc; ir += MR) {
                        const int mr = mc - ir < MR ? mc - ir : MR;
                        const float* a_sliver = Ap + static_cast<long>(ir) * kc;
                        float* c_tile = C + static_cast<long>(ic + ir) * ldc + jc + jr;
                        if (next_cols >= NR)
                            tile.copying(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                                         sliver_share(b_block + jr + NR, ldb, next_packed, kc, ir / MR, calls));
                        else
                            tile.kernel(kc, a_sliver, b_sliver, c_tile, ldc, mr, nr,
                                        next_sliver + next_sliver_share(ir / MR, NR, kc));
                    }
                }
            }
        }
    }
}

// The ablation switches that change the tile's routines (--no-vector-pack and the AVX-512
// micro-kernel's own): with none set, the tile is used as it is.
TileShape ablated(TileShape tile) {
    if (ablation.no_vector_pack) {
        tile.pack_a = step08::pack_a;
        tile.pack_b = step08::pack_b;
    }
    if (ablation.no_vector_pack || ablation.no_copy_b) tile.copying = nullptr;
#if defined(__x86_64__) || defined(_M_X64)
    const bool kernel_switch = ablation.no_prefetch || ablation.no_strips || ablation.no_fma || ablation.no_fold ||
                               ablation.tile_rows > 0 || ablation.tile_cols > 0;
    if (kernel_switch && tile.kernel == microkernel_avx512_14x32) {
        tile.kernel = microkernel_avx512_ablated;
        tile.direct = microkernel_avx512_ablated_direct;
        tile.copying = nullptr;
    }
#endif
    return tile;
}

#if defined(__x86_64__) || defined(_M_X64)
double avx512_flops() { return fma_rate(gemm::cpu::microarch().avx512, 64); }
void gemm_avx512(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm(ablated({microkernel_avx512_14x32, kMrAvx512, kNrAvx512, avx512_flops(),
                          microkernel_avx512_14x32_direct, microkernel_avx512_narrow, microkernel_avx512_14x32_copying,
                          pack_a_avx512, pack_b_avx512}),
                 m, n, k, A, lda, B, ldb, C, ldc);
}
void gemm_avx2(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm(ablated({microkernel_avx2_6x16, kMrAvx2, kNrAvx2, fma_rate(gemm::cpu::microarch().avx2, 32),
                          microkernel_avx2_6x16_direct, nullptr, nullptr, pack_a_avx2, pack_b_avx2}),
                 m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {
    {"avx512", gemm_avx512, gemm::cpu::has_avx512f, "AVX-512F"},
    {"avx2", gemm_avx2, gemm::cpu::has_avx2_fma, "AVX2+FMA"},
    {"neon", nullptr, nullptr, "NEON (an AArch64 build)"}};
constexpr int kBestMr = kMrAvx512, kBestNr = kNrAvx512;
double best_flops() { return avx512_flops(); }
#elif defined(__aarch64__)
double neon_flops() { return fma_rate(gemm::cpu::microarch().neon, 16); }
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    blocked_gemm(ablated({microkernel_neon_8x12, kMrNeon, kNrNeon, neon_flops()}), m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON"},
                                      {"avx512", nullptr, nullptr, "AVX-512F (an x86-64 build)"},
                                      {"avx2", nullptr, nullptr, "AVX2+FMA (an x86-64 build)"}};
constexpr int kBestMr = kMrNeon, kBestNr = kNrNeon;
double best_flops() { return neon_flops(); }
#else
#error "step 08 has micro-kernels for x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif

// The values shown by --help and the progress line are those of the first variant listed;
// a forced --kernel avx2 derives its own from its 6 x 16 tile (a deeper kc, for one).
int get_mc() { return block_sizes(kBestMr, kBestNr, best_flops()).mc; }
int get_kc() { return block_sizes(kBestMr, kBestNr, best_flops()).kc; }
int get_nc() { return block_sizes(kBestMr, kBestNr, best_flops()).nc; }
void set_mc(int v) { user_mc = v; }
void set_kc(int v) { user_kc = v; }
void set_nc(int v) { user_nc = v; }
int get_one_slice() { return block_sizes(kBestMr, kBestNr, best_flops()).one_slice; }
void set_one_slice(int v) { user_one_slice = v; }

// The ablation switches (README: "Where the 6x comes from"): --no-fma 1 turns that idea
// off, 0 (the default) leaves it on. get() says what is in effect.
template <int Ablation::*field>
int get_switch() { return ablation.*field; }
template <int Ablation::*field>
void set_switch(int v) { ablation.*field = v != 0; }
int get_tile_rows() { return ablation.tile_rows > 0 ? ablation.tile_rows : kMrAvx512; }
void set_tile_rows(int v) { ablation.tile_rows = v <= 0 || v >= kMrAvx512 ? 0 : v; }
int get_tile_cols() { return ablation.tile_cols > 0 ? ablation.tile_cols : kNrAvx512; }
void set_tile_cols(int v) { ablation.tile_cols = v > 0 && v <= 16 ? 16 : 0; }

constexpr gemm::Param params[] = {
    {"mc", "rows of the packed A block, kept in L2 (default: from the L2 size)", get_mc, set_mc},
    {"kc", "depth of the packed A and B blocks (default: from L1 and the FMA rate)", get_kc, set_kc},
    {"nc", "columns of the packed B panel, kept in L3 (default: from the L3 size)", get_nc, set_nc},
    {"one-slice", "deepest k taken in one slice, not in slices of kc (default: from the L2 size)",
     get_one_slice, set_one_slice},
    // Each idea of the step, switched off (tools/ablation.sh):
    {"no-direct", "1: pack small matrices too", get_switch<&Ablation::no_direct>,
     set_switch<&Ablation::no_direct>},
    {"no-vector-pack", "1: the plain packing loops", get_switch<&Ablation::no_vector_pack>,
     set_switch<&Ablation::no_vector_pack>},
    {"no-even-k", "1: k in kc slices and a thinner last one", get_switch<&Ablation::no_even_k>,
     set_switch<&Ablation::no_even_k>},
    {"old-blocks", "1: step 07's block rules (B sliver in L1/2)", get_switch<&Ablation::old_blocks>,
     set_switch<&Ablation::old_blocks>},
    {"no-prefetch", "1: no C or next-B prefetch (avx512)", get_switch<&Ablation::no_prefetch>,
     set_switch<&Ablation::no_prefetch>},
    {"no-copy-b", "1: pack B in a pass of its own, not in the kernel calls (avx512)", get_switch<&Ablation::no_copy_b>,
     set_switch<&Ablation::no_copy_b>},
    {"no-narrow", "1: last <= 4 columns in tiles, not dot products (avx512)", get_switch<&Ablation::no_narrow>,
     set_switch<&Ablation::no_narrow>},
    {"no-strips", "1: masked zmm, not ymm, edge strips (avx512)", get_switch<&Ablation::no_strips>,
     set_switch<&Ablation::no_strips>},
    {"no-fma", "1: vmulps + vaddps, not FMA (avx512)", get_switch<&Ablation::no_fma>,
     set_switch<&Ablation::no_fma>},
    {"no-fold", "1: vbroadcastss per row, no {1to16} (avx512)", get_switch<&Ablation::no_fold>,
     set_switch<&Ablation::no_fold>},
    {"tile-rows", "register tile rows, 1-14 (avx512)", get_tile_rows, set_tile_rows},
    {"tile-cols", "register tile columns, 16 or 32 (avx512)", get_tile_cols, set_tile_cols}};

}  // namespace

Ablation ablation;

}  // namespace step08

GEMM_STEP({.variants = step08::variants, .params = step08::params})
