// Step 10's configuration: everything its rules read besides the CPU's caches and the product's
// shape, in one value. Each call of the step makes it from the run's gemm::Setting (the command
// line's values and the wisdom file's: step.cpp, config_of) and hands it down, so the rules
// (blocks.hpp) are functions of their arguments and a test can run them on any configuration.
#pragma once

namespace step10 {

// Switches that turn one idea of this step off each, for the ablation study
// (tools/ablation.sh, README: "What each trick buys"). All zero: the step as it is. The loop
// nests read the first four, the AVX-512 kernel choice (tiles.cpp) the rest.
struct Ablation {
    int no_direct = 0;       // pack small matrices too (no unpacked small-matrix path)
    int no_vector_pack = 0;  // the plain packing loops of packing.cpp
    int no_even_k = 0;       // k in slices of kc and a thinner last one
    int old_blocks = 0;      // step 07's block rules: B sliver in half of L1, A block in half of L2
    int no_prefetch = 0;     // no prefetch of the C tile or of the next B sliver
    int no_copy_b = 0;       // B packed in a pass of its own, not inside the first A block's calls (both x86 kernels)
    int no_narrow = 0;       // unpacked: the last <= 4 columns in tiles too, not as dot products
    int no_strips = 0;       // last <= 8 columns in a masked zmm, not a ymm strip
    int no_fma = 0;          // vmulps + vaddps instead of vfmadd231ps
    int fold = 0;            // 1: the {1to16} operand, 2: a vbroadcastss per row (0: the core's rule, fold_broadcast)
    int tile_rows = 0;       // rows of the register tile, 1..14 (0: 14)
    int tile_cols = 0;       // columns of the register tile, 16 or 32 (0: 32)
};

// Bits of Config::blocks_asked.
enum : unsigned { kAskedMc = 1, kAskedKc = 2, kAskedNc = 4 };

struct Config {
    // --mc, --kc, --nc, --one-slice, or the wisdom file's values; 0 = derived from the caches
    // (block_sizes).
    int mc = 0, kc = 0, nc = 0, one_slice = 0;
    // --min-kflops: the least work per thread, in thousands of FLOPs (0 = kMinFlopsPerThread;
    // 1 makes every product use all threads, as the tests of the partition need).
    int min_kflops = 0;
    // Which of mc, kc and nc the command line asked for (kAskedMc ...). Any sends every size
    // through the blocked path (skip_packing). The wisdom file's blocks do not set these: they
    // stand for the cache rules' blocks, and small products still skip the packing.
    unsigned blocks_asked = 0;
    Ablation ablation;
};

}  // namespace step10
