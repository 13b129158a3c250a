// Step 10's shared pieces: the tile a variant runs, its block sizes, the small-matrix and
// narrow-column rules, and the switches of the ablation study. The serial loop nest
// (serial_nest.cpp) and the parallel one (parallel_nest.cpp) both read them.
#pragma once

#include "microkernels.hpp"
#include "packing.hpp"

#include <gemm/cpu.hpp>

#include <cstddef>

namespace step10 {

using PackA = void (*)(int mc, int kc, const float* A, int lda, int mr, float* packed);
using PackB = void (*)(int kc, int nc, const float* B, int ldb, int nr, float* packed);

struct TileShape {
    MicroKernel kernel;
    int mr, nr;
    double flops;                    // fp32 FLOPs per cycle of the FMA units it runs on
    DirectKernel direct = nullptr;   // unpacked variant, if the ISA has one
    NarrowKernel narrow = nullptr;   // its last 1-4 columns as dot products, if the ISA has it
    CopyingKernel copying = nullptr; // the tile copying the next B sliver, if the ISA has it
    PackA pack_a = step10::pack_a;   // vectorised packing, if the ISA has one
    PackB pack_b = step10::pack_b;
};

// --mc, --kc, --nc, --one-slice; 0 = derived from the caches (block_sizes).
// --min-kflops: the least work per thread, in thousands of FLOPs (0 = kMinFlopsPerThread;
// 1 makes every product use all threads, as the tests of the partition need).
// Each thread gets at least this many FLOPs (about 9 us of a full-width AVX-512 core,
// 13 us of a split one), or the call runs on fewer threads: n = 100 runs on one.
constexpr double kMinFlopsPerThread = 1.5e6;
extern int user_mc, user_kc, user_nc, user_one_slice, user_min_kflops;
// Which of mc, kc and nc were asked for (--mc ..., a test's set()): bits 1, 2 and 4. Any sends
// every size through the blocked path (skip_packing). The wisdom file's blocks (wisdom.cpp) set
// user_mc ... alike but not these: they stand for the cache rules' blocks, and small products
// still skip the packing.
extern unsigned blocks_asked;

// Bytes a blocked product reads and writes beyond L2 per FLOP, from its blocks: the packed B
// panel comes in once per A block of mc rows (4 bytes for 2 mc FLOPs), and C once per slice
// of kc (8 bytes for 2 kc FLOPs).
inline double outer_bytes_per_flop(int mc, int kc) { return 2.0 / mc + 4.0 / kc; }
// The rules' most (block_sizes): OpenBLAS 0.3.21's Haswell blocks take 0.025 on a Zen 3 core,
// where a neighbour streaming memory did not slow it (cachegrind with Zen 3's caches: 0.024).
constexpr double kMaxOuterBytesPerFlop = 0.025;

struct Blocks {
    int mc, kc, nc;
    int one_slice;   // k up to this depth is taken in one slice, not in slices of kc
};

inline int round_up(int x, int to) { return (x + to - 1) / to * to; }
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

// fp32 FLOPs per core and cycle for a kernel's ISA: the microarchitecture table's figure
// (gemm/cpu.hpp), or, for a core the table does not know, two full-width FMA units, which
// asks for the deeper kc.
inline double fma_rate(double table, double two_full_units) { return table > 0 ? table : two_full_units; }
// The AVX-512 kernel's: a core the table does not know is taken to have two 512-bit units.
inline double avx512_flops() { return fma_rate(gemm::cpu::microarch().avx512, 64); }

// Whether the AVX-512 tile reads A(i, p) folded into its FMAs ({1to16}) rather than with one
// vbroadcastss per row (README: "Folded broadcasts and load ports"): --fold 1 or 2 says which,
// else the core's load ports decide.
bool fold_broadcast();

// Block sizes for an MR x NR micro-kernel on this CPU's caches and FMA units, `flops` fp32
// FLOPs per cycle (README: "Block sizes").
Blocks block_sizes(int mr, int nr, double flops);
// Whether a product this small skips packing (README: "Small matrices").
bool skip_packing(int m, int k, int ldb, int nr_tile);
// How many of the last columns of an unpacked product the narrow-strip kernel computes.
int narrow_columns(int n, int k);
// The tile with the ablation switches that change its routines applied.
TileShape ablated(TileShape tile);

// A 64-byte aligned scratch buffer per thread that grows as needed and is kept between calls.
struct PackBuffer {
    float* data = nullptr;
    std::size_t size = 0;
    float* get(std::size_t floats);
    ~PackBuffer();
};

// The two loop nests: one thread, and all of OpenMP's threads (which falls back on the
// first when a product is too small to share).
void serial_gemm(const TileShape& tile, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc);
void parallel_gemm(const TileShape& tile, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc);
int threads_used();

}  // namespace step10
