// Step 10's two loop nests: one thread (serial_nest.cpp), and all of OpenMP's threads
// (parallel_nest.cpp), which falls back on the first when a product is too small to share.
// Both take the call's configuration and tile as arguments (config.hpp, tiles.hpp).
#pragma once

#include "blocks.hpp"
#include "tiles.hpp"

#include <cstddef>

namespace step10 {

// A 64-byte aligned scratch buffer per thread that grows as needed and is kept between calls:
// a workspace cache (thread_local in the nests), not configuration; no call's result depends on it.
struct PackBuffer {
    float* data = nullptr;
    std::size_t size = 0;
    float* get(std::size_t floats);
    ~PackBuffer();
};

// C += A B, the operands as gemm::Kernel takes them.
struct Operands {
    int m, n, k;
    const float* A;
    int lda;
    const float* B;
    int ldb;
    float* C;
    int ldc;
};

void serial_gemm(const Config& config, const TileShape& tile, const Operands& p);
// Returns the team it ran on (the CSV's threads column).
int parallel_gemm(const Config& config, const TileShape& tile, const Operands& p);

// The unpacked path (skip_packing) for rows [row0, row1) and the NR-column slivers
// [s0, s1) of C, the rows as tiles of nearly equal height; `bt`: the narrow columns of B laid
// out along k (pack_b_narrow), for a part that reaches them (serial_nest.cpp).
void direct_part(const TileShape& tile, const Operands& p, int narrow, const float* bt, int row0, int row1, int s0,
                 int s1);
// Those narrow columns, laid out in the calling thread's buffer: nullptr when there are none.
const float* narrow_columns_of_b(const Operands& p, int narrow);

}  // namespace step10
