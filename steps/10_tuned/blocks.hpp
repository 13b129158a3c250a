// Step 10's rules: its block sizes, the depth of its slices of k, the small-matrix and
// narrow-column rules and the size of its team, each a function of the configuration
// (config.hpp) and the product. The loop nests (serial_nest.cpp, parallel_nest.cpp) and the
// plan that bin/cpuinfo shows (plan.cpp) call the same functions.
#pragma once

#include "config.hpp"

#include <gemm/cpu.hpp>

namespace step10 {

// Each thread gets at least this many FLOPs (Config::min_kflops overrides it: about 9 us of a
// full-width AVX-512 core, 13 us of a split one), or the call runs on fewer threads: n = 100
// runs on one.
constexpr double kMinFlopsPerThread = 1.5e6;

// Bytes a blocked product reads and writes beyond L2 per FLOP, from its blocks: the packed B
// panel comes in once per A block of mc rows (4 bytes for 2 mc FLOPs), and C once per slice
// of kc (8 bytes for 2 kc FLOPs).
inline double outer_bytes_per_flop(int mc, int kc) { return 2.0 / mc + 4.0 / kc; }
// The rules' most (block_sizes): the traffic of blocks that a neighbour streaming memory was
// seen not to slow (docs/tuning-log.md, "Step 10's measurements, moved out of its code").
constexpr double kMaxOuterBytesPerFlop = 0.025;

// The A block's share of L2 at the depth a product runs (product_blocks): the rest holds the B
// slivers streaming through and the C tiles.
constexpr double kABlockShareOfL2 = 3.0 / 8;
// This CPU's L2 in bytes (256 KiB when it cannot be read).
inline long l2_bytes() { return gemm::cpu::caches().l2 > 0 ? gemm::cpu::caches().l2 : 256 * 1024; }

struct Blocks {
    int mc, kc, nc;
    int one_slice;   // k up to this depth is taken in one slice, not in slices of kc
};

inline int round_up(int x, int to) { return (x + to - 1) / to * to; }
// The least kc at which a call's C tile, loaded and stored (about 2 cycles a line), costs under
// 1 % of its 2 MR NR kc / flops cycles of FMAs (block_sizes).
inline int kc_fma(double flops) { return round_up(static_cast<int>(12.5 * flops + 0.5), 16); }
// A block asked for (--mc, --nc, the wisdom file; at most kMaxBlock) rounded up to the tile, as
// the step runs it, but held to gemm::cpu::kMaxBlock rounded down to the tile: the cap is the
// cap of what runs (65536 rounded up to 14 rows would be 65538).
inline int asked_block(int asked, int unit) {
    const int top = gemm::cpu::kMaxBlock / unit * unit, up = round_up(asked, unit);
    return up < top ? up : top;
}
// A cache rule's block, computed in 64 bits: a multiple of `to` from one `to` up to
// gemm::cpu::kMaxBlock (a 1 TiB L3 made nc overflow an int: 0, which divided by zero).
inline int round_down_at_least(long long x, int to) { return gemm::cpu::block_size(x, to); }
// total in the fewest parts of at most `block`, as equal as they go: the size of a part.
inline int even_split(int total, int block) {
    const int parts = (total + block - 1) / block;
    return (total + parts - 1) / parts;
}

// Whether the AVX-512 tile reads A(i, p) folded into its FMAs ({1to16}) rather than with one
// vbroadcastss per row (README: "Folded broadcasts and load ports"): --fold 1 or 2 (`fold`)
// says which, else (0) the core's load ports decide.
bool fold_broadcast(int fold);

// Block sizes for an MR x NR micro-kernel on this CPU's caches and FMA units, `flops` fp32
// FLOPs per cycle (README: "Block sizes"), with the sizes `config` asks for.
Blocks block_sizes(const Config& config, int mr, int nr, double flops);
// The blocks one blocked m x k product runs, from the step's blocks: kc becomes the depth of
// its slices of k (one slice up to one_slice, else equal slices of at most kc; --no-even-k:
// slices of kc and a thinner last one). Where the step's blocks read more than
// kMaxOuterBytesPerFlop from beyond L2, the depth and the A block's height are chosen together
// for this product, for the least traffic (README: "Slices and A blocks per product"); blocks
// asked for (--mc, --kc, the wisdom file) are run as asked.
Blocks product_blocks(const Config& config, const Blocks& blocks, int m, int k, int mr, int nr, double flops,
                      long l2 = l2_bytes());
// Whether a product this small skips packing (README: "Small matrices").
bool skip_packing(const Config& config, int m, int k, int ldb, int nr_tile);
// How many of the last columns of an unpacked product the narrow-strip kernel computes.
int narrow_columns(const Config& config, int n, int k);
// How many of `most` threads an m x n x k product on MR x NR tiles is shared out between: no
// more than there are tiles to share (a grid of them: partition.hpp), and none whose share of
// the work is below the least (Config::min_kflops). 1: the serial nest.
int team_size(const Config& config, int m, int n, int k, int mr, int nr, int most);

}  // namespace step10
