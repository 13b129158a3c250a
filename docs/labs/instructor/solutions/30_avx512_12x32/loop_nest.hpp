// Step 08's loop nest (loop_nest.cpp): the tile each variant runs, the block sizes for it,
// and the buffers the packed blocks live in. Step 09 builds on these.
#pragma once

#include "microkernels.hpp"

#include <gemm/registry.hpp>

#include <cstddef>
#include <string_view>

namespace step30 {

// A micro-kernel and the MR x NR tile of C it keeps in registers.
struct Tile {
    MicroKernel kernel;
    int mr, nr;
};

struct Blocks {
    int mc;   // rows of the packed A block (a multiple of MR)
    int kc;   // depth of the packed A block and B panel
    int nc;   // columns of the packed B panel (a multiple of NR)
};

// The block sizes for `tile` on this CPU's caches, or those set by --mc, --kc, --nc.
Blocks block_sizes(const Tile& tile);

// The width of each B panel when n columns are cut into panels of at most nc: the fewest
// panels, of equal width in whole slivers of nr (n = 2048 with nc = 1536: two of 1024, not
// 1536 and 512). Every panel costs a packing of each A block, whatever its width. The same
// cuts k into slices (nr = 1) and m into A blocks (nr = MR; nc, a multiple of MR, is mc).
inline int panel_width(int n, int nc, int nr) {
    const int panels = (n + nc - 1) / nc;
    const int width = (n + panels - 1) / panels;
    return (width + nr - 1) / nr * nr;
}

// --mc, --kc, --nc, shared by step 09.
extern const gemm::Param block_params[3];

// The tile whose block sizes --help, the progress line and the CSV show: the variant the
// harness said is about to run (use_variant), else the best one this CPU runs.
Tile shown_tile();
void use_variant(std::string_view name);

// A growing, 64-byte aligned scratch buffer (one per thread: thread_local at its use).
class PackBuffer {
public:
    ~PackBuffer();
    float* get(std::size_t floats);

private:
    float* data_ = nullptr;
    std::size_t capacity_ = 0;
};

}  // namespace step30
