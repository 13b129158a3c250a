// The plan of a product (plan.hpp), from the rules the loop nests call.
#include "plan.hpp"

#include "partition.hpp"

#include <cstdio>

namespace step10 {

Plan plan_for(const Config& config, const TileShape& tile, int m, int n, int k, int ldb, int threads) {
    Plan plan{};
    plan.direct = tile.direct != nullptr && skip_packing(config, m, k, ldb, tile.nr);
    plan.threads = team_size(config, m, n, k, tile.mr, tile.nr, threads);
    plan.blocks = product_blocks(config, block_sizes(config, tile.mr, tile.nr, tile.flops),
                                 group_rows(plan.threads, m, n, tile.mr, tile.nr), k,
                                 tile.mr, tile.nr, tile.flops);
    return plan;
}

std::string plan_text(const Plan& plan) {
    const Blocks& b = plan.blocks;
    char text[256];
    std::snprintf(text, sizeof text,
                  "path=%s mc=%d kc=%d nc=%d one_slice=%d threads=%d outer_bytes_per_flop=%.4f "
                  "max_outer_bytes_per_flop=%.4f",
                  plan.direct ? "direct" : "packed", b.mc, b.kc, b.nc, b.one_slice, plan.threads,
                  outer_bytes_per_flop(b.mc, b.kc), kMaxOuterBytesPerFlop);
    return text;
}

}  // namespace step10
