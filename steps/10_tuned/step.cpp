// Step 10: the tuned step. One executable for one thread and for all of them: a product
// too small to share, or a run with --threads 1, takes the serial nest (serial_nest.cpp),
// anything else the parallel one (parallel_nest.cpp). Each trick of the step can be turned
// off from the command line (--no-fma 1 ...), so that tools/ablation.sh measures what each
// one buys on the reader's CPU (README: "What each trick buys").
#include "blocks.hpp"
#include "wisdom.hpp"

#include <gemm/step.hpp>

#include <string_view>

namespace step10 {
namespace {

#if defined(__x86_64__) || defined(_M_X64)
void gemm_avx512(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    const bool fold = fold_broadcast();
    parallel_gemm(ablated({fold ? microkernel_avx512_14x32 : microkernel_avx512_14x32_broadcast, kMrAvx512,
                          kNrAvx512, avx512_flops(), microkernel_avx512_14x32_direct, microkernel_avx512_narrow,
                          fold ? microkernel_avx512_14x32_copying : microkernel_avx512_14x32_broadcast_copying,
                          pack_a_avx512, pack_b_avx512}),
                 m, n, k, A, lda, B, ldb, C, ldc);
}
void gemm_avx2(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    parallel_gemm(ablated({microkernel_avx2_6x16, kMrAvx2, kNrAvx2, fma_rate(gemm::cpu::microarch().avx2, 32),
                          microkernel_avx2_6x16_direct, nullptr, microkernel_avx2_6x16_copying, pack_a_avx2, pack_b_avx2}),
                 m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {
    {"avx512", gemm_avx512, gemm::cpu::has_avx512f, "AVX-512F"},
    {"avx2", gemm_avx2, gemm::cpu::has_avx2_fma, "AVX2+FMA"},
    {"neon", nullptr, nullptr, "NEON (an AArch64 build)"}};
// The tile whose blocks --help, the progress line and the CSV show: the variant about to
// run (use_variant), else the best this CPU runs (the AVX2 tile's on a core without AVX-512).
struct Shown {
    int mr, nr;
    double flops;
};
int chosen = 0;   // 0: none yet, 1: avx512, 2: avx2
Shown shown() {
    const bool avx512 = chosen == 1 || (chosen == 0 && (gemm::cpu::has_avx512f() || !gemm::cpu::has_avx2_fma()));
    return avx512 ? Shown{kMrAvx512, kNrAvx512, avx512_flops()}
                  : Shown{kMrAvx2, kNrAvx2, fma_rate(gemm::cpu::microarch().avx2, 32)};
}
void use_variant(std::string_view name) { chosen = name == "avx2" ? 2 : 1; }
// The AVX-512 kernel's own switches change something when that kernel is the one to run:
// the variant about to run, else the best this CPU runs. Those of both x86 kernels, on any
// CPU that runs one of them.
bool avx512_runs() { return chosen == 1 || (chosen == 0 && gemm::cpu::has_avx512f()); }
bool x86_kernel_runs() { return gemm::cpu::has_avx512f() || gemm::cpu::has_avx2_fma(); }
#elif defined(__aarch64__)
double neon_flops() { return fma_rate(gemm::cpu::microarch().neon, 16); }
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    parallel_gemm(ablated({microkernel_neon_8x12, kMrNeon, kNrNeon, neon_flops()}), m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON"},
                                      {"avx512", nullptr, nullptr, "AVX-512F (an x86-64 build)"},
                                      {"avx2", nullptr, nullptr, "AVX2+FMA (an x86-64 build)"}};
struct Shown {
    int mr, nr;
    double flops;
};
Shown shown() { return {kMrNeon, kNrNeon, neon_flops()}; }
void use_variant(std::string_view) {}
bool avx512_runs() { return false; }
bool x86_kernel_runs() { return false; }
#else
#error "step 10 has micro-kernels for x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif

Blocks shown_blocks() {
    const Shown t = shown();
    return block_sizes(t.mr, t.nr, t.flops);
}
int get_mc() { return shown_blocks().mc; }
int get_kc() { return shown_blocks().kc; }
int get_nc() { return shown_blocks().nc; }
// A block set here is asked for (blocks_asked: every size takes the blocked path), unless the
// wisdom file set it (wisdom.cpp clears the bits after it).
template <int* value, unsigned bit>
void set_block(int v) {
    *value = v;
    blocks_asked = v > 0 ? blocks_asked | bit : blocks_asked & ~bit;
}
constexpr auto set_mc = set_block<&user_mc, 1>;
constexpr auto set_kc = set_block<&user_kc, 2>;
constexpr auto set_nc = set_block<&user_nc, 4>;
int get_one_slice() { return shown_blocks().one_slice; }
void set_one_slice(int v) { user_one_slice = v; }
int get_min_kflops() { return user_min_kflops > 0 ? user_min_kflops : static_cast<int>(kMinFlopsPerThread / 1e3); }
void set_min_kflops(int v) { user_min_kflops = v; }

// The ablation switches (README: "What each trick buys"): --no-fma 1 turns that idea
// off, 0 (the default) leaves it on. get() says what is in effect.
template <int Ablation::*field>
int get_switch() { return ablation.*field; }
template <int Ablation::*field>
void set_switch(int v) { ablation.*field = v != 0; }
// --fold: what is in effect, the core's rule included (fold_broadcast).
int get_fold() { return fold_broadcast() ? 1 : 2; }
void set_fold(int v) { ablation.fold = v <= 0 ? 0 : v == 1 ? 1 : 2; }
int get_tile_rows() { return ablation.tile_rows > 0 ? ablation.tile_rows : kMrAvx512; }
void set_tile_rows(int v) { ablation.tile_rows = v <= 0 || v >= kMrAvx512 ? 0 : v; }
int get_tile_cols() { return ablation.tile_cols > 0 ? ablation.tile_cols : kNrAvx512; }
void set_tile_cols(int v) { ablation.tile_cols = v > 0 && v <= 16 ? 16 : 0; }

constexpr gemm::Param params[] = {
    {"mc", "rows of the packed A block, kept in L2 (default: from the L2 size)", get_mc, set_mc},
    {"kc", "depth of the packed A and B blocks (default: from L1, the FMA rate and the traffic beyond L2)", get_kc, set_kc},
    {"nc", "columns of the packed B panel, kept in L3 (default: from the L3 size)", get_nc, set_nc},
    {"one-slice", "deepest k taken in one slice, not in slices of kc (default: from the L2 size)",
     get_one_slice, set_one_slice},
    {"min-kflops", "least work per thread, in thousands of FLOPs (smaller products use fewer threads)",
     get_min_kflops, set_min_kflops},
    // Each idea of the step, switched off (tools/ablation.sh):
    {"no-direct", "1: pack small matrices too", get_switch<&Ablation::no_direct>,
     set_switch<&Ablation::no_direct>},
    {"no-vector-pack", "1: the plain packing loops", get_switch<&Ablation::no_vector_pack>,
     set_switch<&Ablation::no_vector_pack>},
    {"no-even-k", "1: k in kc slices and a thinner last one", get_switch<&Ablation::no_even_k>,
     set_switch<&Ablation::no_even_k>},
    {"old-blocks", "1: step 07's block rules (B sliver in L1/2)", get_switch<&Ablation::old_blocks>,
     set_switch<&Ablation::old_blocks>},
    {"no-prefetch", "1: no C or next-B prefetch (avx512)", get_switch<&Ablation::no_prefetch>,
     set_switch<&Ablation::no_prefetch>, avx512_runs},
    {"no-copy-b", "1: pack B in a pass of its own, not in the kernel calls (avx512, avx2)",
     get_switch<&Ablation::no_copy_b>, set_switch<&Ablation::no_copy_b>, x86_kernel_runs},
    {"no-narrow", "1: last <= 4 columns in tiles, not dot products (avx512)", get_switch<&Ablation::no_narrow>,
     set_switch<&Ablation::no_narrow>, avx512_runs},
    {"no-strips", "1: masked zmm, not ymm, edge strips (avx512)", get_switch<&Ablation::no_strips>,
     set_switch<&Ablation::no_strips>, avx512_runs},
    {"no-fma", "1: vmulps + vaddps, not FMA (avx512)", get_switch<&Ablation::no_fma>,
     set_switch<&Ablation::no_fma>, avx512_runs},
    {"fold", "1: A(i, p) folded into the FMAs ({1to16}), 2: a vbroadcastss per row (avx512; default: from "
             "the core's load ports)", get_fold, set_fold, avx512_runs},
    {"tile-rows", "register tile rows, 1-14 (avx512)", get_tile_rows, set_tile_rows, avx512_runs},
    {"tile-cols", "register tile columns, 16 or 32 (avx512)", get_tile_cols, set_tile_cols, avx512_runs}};

// The values tools/tune.py measured best here, from the wisdom file (wisdom.cpp), under the
// command line's.
gemm::TunedParams tuned_params(std::string_view variant, int threads) {
    return wisdom::take(params, variants, variant, threads);
}

}  // namespace
}  // namespace step10

GEMM_STEP({.variants = step10::variants, .params = step10::params, .parallel = true,
           .threads_used = step10::threads_used, .use_variant = step10::use_variant,
           .tuned_params = step10::tuned_params})
