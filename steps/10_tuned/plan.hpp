// What step 10 runs for one product, as the rules decide it (blocks.hpp): the path, the blocks,
// the depth of its slices of k and the team. bin/cpuinfo --json shows it (StepDef::plan), so
// that no tool has to compute the rules again.
#pragma once

#include "blocks.hpp"
#include "tiles.hpp"

#include <string>

namespace step10 {

struct Plan {
    bool direct;     // the unpacked small-matrix path (skip_packing)
    Blocks blocks;   // kc, mc: the depth of the slices of k and the A block's height (product_blocks)
    int threads;     // the team (team_size; 1: the serial nest)
};

// The plan of an m x n x k product (B's rows ldb apart) on at most `threads` threads.
Plan plan_for(const Config& config, const TileShape& tile, int m, int n, int k, int ldb, int threads);

// "path=direct|packed mc=.. kc=.. nc=.. one_slice=.. threads=.. outer_bytes_per_flop=..
// max_outer_bytes_per_flop=..": the CSV params column's form.
std::string plan_text(const Plan& plan);

}  // namespace step10
