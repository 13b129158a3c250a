// Step 10's register tiles as data, one table entry per instruction set (tiles.cpp): the
// tile's shape, the FMA rate its blocks are sized for, and its routines. A run picks the
// entry of its variant and applies the ablation switches to it (tile_for).
#pragma once

#include "config.hpp"
#include "microkernels.hpp"
#include "packing.hpp"

#include <string_view>

namespace step10 {

using PackA = void (*)(int mc, int kc, const float* A, int lda, int mr, float* packed);
using PackB = void (*)(int kc, int nc, const float* B, int ldb, int nr, float* packed);

// What the loop nests run: one tile's routines, switches applied.
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

// One instruction set's entry (BLIS keeps the same per sub-configuration in its config/).
struct IsaTile {
    std::string_view variant;              // the step's variant name: "avx512", "avx2", "neon"
    int mr, nr;
    double (*flops)();                     // fp32 FLOPs per core and cycle
    MicroKernel folded;                    // the packed tile
    MicroKernel broadcast = nullptr;       // the same with a broadcast per row, where that is a choice
    CopyingKernel copying_folded = nullptr, copying_broadcast = nullptr;
    DirectKernel direct = nullptr;
    NarrowKernel narrow = nullptr;
    PackA pack_a = step10::pack_a;
    PackB pack_b = step10::pack_b;
    bool kernel_switches = false;          // the AVX-512 kernel's own ablation switches apply
};

// The entry of `variant` in this build's table, or nullptr (another architecture's).
const IsaTile* isa_tile(std::string_view variant);

// The tile a call of `variant` runs with `ablation`'s switches (entry must be this build's).
TileShape tile_for(const IsaTile& entry, const Ablation& ablation);

// fp32 FLOPs per core and cycle for a kernel's ISA: the microarchitecture table's figure
// (gemm/cpu.hpp), or, for a core the table does not know, two full-width FMA units, which
// asks for the deeper kc.
inline double fma_rate(double table, double two_full_units) { return table > 0 ? table : two_full_units; }
// The AVX-512 kernel's: a core the table does not know is taken to have two 512-bit units.
double avx512_flops();

}  // namespace step10
