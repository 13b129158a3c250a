// Step 10's rules (blocks.hpp).
#include "blocks.hpp"

#include "microkernels.hpp"
#include "partition.hpp"
#include "tiles.hpp"

#include <gemm/cpu.hpp>

#include <algorithm>

namespace step10 {

// Block sizes for an MR x NR micro-kernel on this CPU's caches and FMA units, `flops` fp32
// FLOPs per cycle (README: "Block sizes").
Blocks block_sizes(const Config& config, int mr, int nr, double flops) {
    // The sizes asked for (the command line's or the wisdom file's; 0: the rule's).
    const int user_mc = config.mc, user_kc = config.kc, user_nc = config.nc, user_one_slice = config.one_slice;
    const gemm::cpu::Caches& caches = gemm::cpu::caches();
    const long l1 = caches.l1d > 0 ? caches.l1d : 32 * 1024;
    const long l2 = l2_bytes();
    const long l3 = caches.l3 > 0 ? caches.l3 : 4 * l2;
    Blocks b{};
    if (config.ablation.old_blocks) {   // step 07's rules: the B sliver in half of L1, the A block in half of L2
        b.kc = user_kc > 0 ? user_kc : round_down_at_least(l1 / 2 / (4L * nr), 16);
        b.mc = user_mc > 0 ? asked_block(user_mc, mr) : round_down_at_least(l2 / 2 / (4L * b.kc), mr);
        b.nc = user_nc > 0 ? asked_block(user_nc, nr) : round_down_at_least(l3 / 2 / (4L * b.kc), nr);
        b.one_slice = b.kc;
        return b;
    }
    // MC, at least: the calls on one B sliver bring the next one into L2, a line every 4
    // steps of p each (microkernels.hpp: b_next), so an A block has at least NR / 4 slivers.
    const int mc_least = mr * (nr / 4);
    // KC: long enough that each micro-kernel call's fixed cost, reading and writing its
    // MR x NR tile of C, is spread over many steps of p. A call computes for 2 MR NR kc /
    // flops cycles; its tile is 2 MR NR / 16 cache lines in and out of L2, about 2 cycles
    // each. kc >= 12.5 x flops keeps that under 1 %: 400 on a core with split 512-bit FMA
    // units (Zen 4), 800 on one with two full-width units. Deeper is fine while the two
    // slivers a call reads, (MR + NR) x kc floats, stay within about four times L1: they
    // stream in from L2. And the smallest A block must fit in half of L2.
    // MC: the packed A block (mc x kc), reused for every B sliver of the panel, takes a
    // quarter of L2, leaving room for the B slivers streaming through and the C tiles; but
    // at least mc_least rows.
    // A deeper kc makes that block thinner, and what comes from beyond L2 grows: the B panel
    // once per A block (4 bytes for 2 mc FLOPs) and C once per slice of k (8 bytes for 2 kc
    // FLOPs). A neighbour streaming memory evicts L3 and queues at the memory controller, so
    // that traffic is what it slows. kc is the deepest depth whose traffic stays within
    // kMaxOuterBytesPerFlop; where none does, the depth of least traffic (README: "Block
    // sizes": the AVX2 tile on a 512 KiB L2 went from kc 1488 x mc 24 to 416 x 78).
    // >>> rule
    const int kc_fma = step10::kc_fma(flops);   // 12.5 F, rounded up to 16
    const auto mc_for = [&](int kc) {
        const int mc = round_down_at_least(l2 / 4 / (4L * kc), mr);
        return mc < mc_least ? mc_least : mc;
    };
    if (user_kc > 0) {
        b.kc = user_kc;
    } else {
        const int kc_stream = round_down_at_least(4 * l1 / (4L * (mr + nr)), 16);
        const int kc_l2 = round_down_at_least(l2 / 2 / (4L * mc_least), 16);
        const int shallowest = std::min(kc_fma, kc_l2);
        b.kc = 0;
        int least = shallowest;   // the depth of least traffic, the shallowest of equals
        for (int kc = std::min(std::max(kc_stream, kc_fma), kc_l2); kc >= shallowest; kc -= 16) {
            const double traffic = outer_bytes_per_flop(mc_for(kc), kc);
            if (b.kc == 0 && traffic <= kMaxOuterBytesPerFlop) b.kc = kc;
            if (traffic <= outer_bytes_per_flop(mc_for(least), least)) least = kc;
        }
        if (b.kc == 0) b.kc = least;
    }
    b.mc = user_mc > 0 ? round_up(user_mc, mr) : mc_for(b.kc);
    // NC: the packed B panel (kc x nc), reused by every A block, takes half of L3.
    b.nc = user_nc > 0 ? round_up(user_nc, nr) : round_down_at_least(l3 / 2 / (4L * b.kc), nr);
    // <<< rule
    // A block asked for, rounded up to the tile as above, held to the cap (asked_block).
    if (user_mc > 0) b.mc = asked_block(user_mc, mr);
    if (user_nc > 0) b.nc = asked_block(user_nc, nr);
    // One slice of k where it fits: every slice pays a pass of C through L3 and a packing of
    // B, so a k up to the depth at which the A block (mc rows) and two B slivers fill two
    // thirds of L2 is not cut.
    // Deeper, the A block no longer survives the slivers streaming through L2: there, k =
    // 1900 in one slice gained and k = 2000 lost (README: "One slice of k where it fits").
    // What a slice saves shrinks as kc grows: once kc is twice kc_fma, a pass of C costs under
    // 0.5 % of the time, and a deeper A block crowding L2 costs more. So a kernel whose kc is
    // that deep keeps slices of kc (README: "One slice of k where it fits").
    // --one-slice sets the depth (never below kc: 1 turns it off); --kc alone turns it off too.
    const int fits = b.kc < 2 * kc_fma ? round_down_at_least(2 * l2 / 3 / (4L * (b.mc + 2 * nr)), 16) : b.kc;
    const int depth = user_one_slice > 0 ? user_one_slice : user_kc > 0 ? b.kc : fits;
    b.one_slice = depth > b.kc ? depth : b.kc;
    return b;
}

// A step of p of the 14 x 32 tile is 28 FMAs. Folded, each reads its broadcast from memory:
// 28 loads, and 2 of the B sliver. One vbroadcastss per row instead: 14 + 2 loads and 14 more
// instructions. Two 512-bit FMA units finish the step in 14 cycles; two load ports need 15
// for the folded loads, so there the loads set the pace; three ports, or one FMA unit, keep
// up, and folding saves the instructions (README: "Folded broadcasts and load ports"). A core
// not in the table folds.
bool fold_broadcast(int fold) {
    if (fold != 0) return fold == 1;
    const gemm::cpu::Microarch& u = gemm::cpu::microarch();
    const double fmas_per_cycle = avx512_flops() / 32;   // 512-bit FMAs a cycle
    const int fmas = kMrAvx512 * (kNrAvx512 / 16), b_loads = kNrAvx512 / 16;
    return u.loads == 0 || (fmas + b_loads) / static_cast<double>(u.loads) <= fmas / fmas_per_cycle;
}

// Small matrices skip packing (README: "Small matrices"). Unpacked, every B sliver reads all
// of A in place, so A must fit in half of L2. And every A sliver reads the B sliver again:
// k rows of NR floats, 4 ldb bytes apart, which must stay in L2 too. Rows that far apart
// can only use the cache sets the stride reaches: for P the largest power of two that
// divides 4 ldb, one set in P / 64, so L2 holds at most L2 / P of them (P counted up to
// one way of L2, taken as an eighth: an L2 with more ways holds more). The sliver must fit
// in half of that. (ldb = 1024 at k = 1024 crowded it into 512 rows: unpacked ran at half
// the packed speed.) Asking for any block size asks for the blocked path, whatever the size
// (a tuned block from the wisdom file does not: blocks_asked).
bool skip_packing(const Config& config, int m, int k, int ldb, int nr_tile) {
    if (config.blocks_asked != 0 || config.ablation.no_direct) return false;
    const long l2 = l2_bytes();
    const long stride = 4L * ldb;
    const long period = std::clamp(stride & -stride, 4L * nr_tile, l2 / 8);
    return 4L * m * k <= l2 / 2 && k <= l2 / period / 2;
}

// How many of the last columns of an unpacked product the narrow-strip kernel computes: the
// 1-4 columns after the last whole 16-column vector (n = 100: 4), when k is deep enough for
// its dot products to pay for summing their lanes at the end (README: "The narrow last
// columns").
constexpr int kNarrowLeastK = 48;
int narrow_columns(const Config& config, int n, int k) {
    const int rest = n % 16;
    return !config.ablation.no_narrow && rest >= 1 && rest <= 4 && k >= kNarrowLeastK ? rest : 0;
}

// The slices of k and the A block of one m x k product (blocks.hpp). Where the step's blocks
// keep the traffic beyond L2 within kMaxOuterBytesPerFlop, k is cut as they say: in one slice
// up to one_slice, else in equal slices of at most kc. Where they cannot (block_sizes found no
// depth within it: the AVX2 tile on a 512 KiB L2), the depth and the A block are chosen
// together for this product: each way of cutting k into s equal slices of depth d pays C's
// pass once per slice (4 s / k bytes a FLOP) and the B panel's once per A block (2 blocks /
// m), and the A block takes 3/8 of L2 at the depth actually run, so a shallower d buys a
// taller block. Of the depths allowed (one slice up to one_slice, else slices of at most kc,
// none so shallow that the C tile's cost per call passes 2 %: half of kc_fma), the one of
// least traffic; of equals, the fewest slices. m is cut into blocks of nearly equal height:
// 512 rows as 3 x 174, not 3 x 168 + 8, whose last block pays a pass of B for 8 rows.
// >>> per-product
Blocks product_blocks(const Config& config, const Blocks& blocks, int m, int k, int mr, int nr, double flops, long l2) {
    Blocks b = blocks;
    const bool within = outer_bytes_per_flop(blocks.mc, blocks.kc) <= kMaxOuterBytesPerFlop;
    if (within || config.mc > 0 || config.kc > 0 || config.ablation.old_blocks || config.ablation.no_even_k) {
        b.kc = k <= blocks.one_slice ? k : config.ablation.no_even_k ? blocks.kc : even_split(k, blocks.kc);
        return b;
    }
    const int mc_least = mr * (nr / 4), least_depth = kc_fma(flops) / 2;
    const auto block_at = [&](int d) {   // the A block's height at depth d, m cut evenly
        const long long share = static_cast<long long>(kABlockShareOfL2 * static_cast<double>(l2));
        return round_up(even_split(m, std::max(mc_least, round_down_at_least(share / (4L * d), mr))), mr);
    };
    const auto traffic = [&](int d) {
        const int blocks_of_m = (m + block_at(d) - 1) / block_at(d), slices = (k + d - 1) / d;
        return 2.0 * blocks_of_m / m + 4.0 * slices / k;
    };
    int best = 0;
    for (int s = 1;; ++s) {
        const int d = (k + s - 1) / s;   // s slices
        if (d > (s == 1 ? blocks.one_slice : blocks.kc)) continue;
        if (best != 0 && d < least_depth) break;
        if (best == 0 || traffic(d) < traffic(best)) best = d;
        if (d == 1) break;
    }
    b.kc = best;
    b.mc = block_at(best);
    return b;
}
// <<< per-product

// No more threads than there are MR-row tiles to share out, and none whose share of the work
// is too small to pay for waking it: a small product takes microseconds on one core, the
// same order as starting a team and meeting at its barriers, and far less than a scheduler's
// time slice when another program holds one of the cores (README: "A busy core").
int team_size(const Config& config, int m, int n, int k, int mr, int nr, int most) {
    const int row_tiles = (m + mr - 1) / mr, col_slivers = (n + nr - 1) / nr;
    const double worth = 2.0 * m * n * k / (config.min_kflops > 0 ? 1e3 * config.min_kflops : kMinFlopsPerThread);
    int team = most;
    if (team > worth) team = worth > 1 ? static_cast<int>(worth) : 1;
    const Grid grid = split_team(team, row_tiles, col_slivers);
    return grid.rows * grid.cols;
}

}  // namespace step10
