// The register tiles of this build (tiles.hpp), and what the ablation switches change in them.
#include "tiles.hpp"

#include "blocks.hpp"

#include <gemm/cpu.hpp>

namespace step10 {

double avx512_flops() { return fma_rate(gemm::cpu::microarch().avx512, 64); }

namespace {

#if defined(__x86_64__) || defined(_M_X64)
double avx2_flops() { return fma_rate(gemm::cpu::microarch().avx2, 32); }
const IsaTile kTiles[] = {
    {.variant = "avx512", .mr = kMrAvx512, .nr = kNrAvx512, .flops = avx512_flops,
     .folded = microkernel_avx512_14x32, .broadcast = microkernel_avx512_14x32_broadcast,
     .copying_folded = microkernel_avx512_14x32_copying,
     .copying_broadcast = microkernel_avx512_14x32_broadcast_copying,
     .direct = microkernel_avx512_14x32_direct, .narrow = microkernel_avx512_narrow,
     .pack_a = pack_a_avx512, .pack_b = pack_b_avx512, .kernel_switches = true},
    {.variant = "avx2", .mr = kMrAvx2, .nr = kNrAvx2, .flops = avx2_flops, .folded = microkernel_avx2_6x16,
     .copying_folded = microkernel_avx2_6x16_copying, .direct = microkernel_avx2_6x16_direct,
     .pack_a = pack_a_avx2, .pack_b = pack_b_avx2},
};
#elif defined(__aarch64__)
double neon_flops() { return fma_rate(gemm::cpu::microarch().neon, 16); }
const IsaTile kTiles[] = {
    {.variant = "neon", .mr = kMrNeon, .nr = kNrNeon, .flops = neon_flops, .folded = microkernel_neon_8x12},
};
#else
#error "step 10 has micro-kernels for x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif

#if defined(__x86_64__) || defined(_M_X64)
// The AVX-512 kernel's own switches: any of them runs the ablation study's kernels.
bool kernel_switch(const Ablation& s) {
    return s.no_prefetch || s.no_strips || s.no_fma || s.tile_rows > 0 || s.tile_cols > 0;
}
#endif

}  // namespace

const IsaTile* isa_tile(std::string_view variant) {
    for (const IsaTile& t : kTiles)
        if (t.variant == variant) return &t;
    return nullptr;
}

// The entry's routines; then the switches that change them (--no-vector-pack and the AVX-512
// micro-kernel's own): with none set, the tile is used as it is.
TileShape tile_for(const IsaTile& t, const Ablation& ablation) {
    const bool fold = t.broadcast == nullptr || fold_broadcast(ablation.fold);
    TileShape tile{fold ? t.folded : t.broadcast, t.mr, t.nr, t.flops(), t.direct, t.narrow,
                   fold ? t.copying_folded : t.copying_broadcast, t.pack_a, t.pack_b};
    if (ablation.no_vector_pack) {
        tile.pack_a = step10::pack_a;
        tile.pack_b = step10::pack_b;
    }
    if (ablation.no_vector_pack || ablation.no_copy_b) tile.copying = nullptr;
#if defined(__x86_64__) || defined(_M_X64)
    if (t.kernel_switches && kernel_switch(ablation)) {
        const AblatedTile sub{ablation.tile_rows > 0 ? ablation.tile_rows : kMrAvx512,
                              ablation.tile_cols > 0 ? ablation.tile_cols : kNrAvx512,
                              (ablation.no_fma ? 2 : 0) + (fold ? 0 : 1), !ablation.no_prefetch, !ablation.no_strips};
        tile.kernel = microkernel_avx512_ablated(sub);
        tile.direct = microkernel_avx512_ablated_direct(sub);
        tile.copying = nullptr;
    }
#endif
    return tile;
}

}  // namespace step10
