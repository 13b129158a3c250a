// Step 10: the tuned step. One executable for one thread and for all of them: a product
// too small to share, or a run with --threads 1, takes the serial nest (serial_nest.cpp),
// anything else the parallel one (parallel_nest.cpp). Each trick of the step can be turned
// off from the command line (--no-fma 1 ...), so that tools/ablation.sh measures what each
// one buys on the reader's CPU (README: "What each trick buys").
//
// The command line's values and the wisdom file's go into one Config, this file's; each call
// of the step copies it once and passes it down (config.hpp), and the plan bin/cpuinfo shows
// comes from the same rules (blocks.hpp).
#include "nests.hpp"
#include "plan.hpp"
#include "wisdom.hpp"

#include <gemm/step.hpp>

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

namespace step10 {
namespace {

Config config;                    // what the params and the wisdom file set
bool wisdom_applied = false;      // tuned_params has set the file's values for a run
std::string_view chosen;          // the variant about to run (use_variant), "" before

void run(std::string_view variant, int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C,
         int ldc) {
    const Config call = config;   // read once: the nests see this call's values only
    parallel_gemm(call, tile_for(*isa_tile(variant), call.ablation), Operands{m, n, k, A, lda, B, ldb, C, ldc});
}

#if defined(__x86_64__) || defined(_M_X64)
void gemm_avx512(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    run("avx512", m, n, k, A, lda, B, ldb, C, ldc);
}
void gemm_avx2(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    run("avx2", m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {
    {"avx512", gemm_avx512, gemm::cpu::has_avx512f, "AVX-512F", kMrAvx512, kNrAvx512},
    {"avx2", gemm_avx2, gemm::cpu::has_avx2_fma, "AVX2+FMA", kMrAvx2, kNrAvx2},
    {"neon", nullptr, nullptr, "NEON (an AArch64 build)"}};
// The tile whose blocks --help, the progress line and the CSV show: the variant about to
// run (use_variant), else the best this CPU runs (the AVX2 tile's on a core without AVX-512).
const IsaTile& shown() {
    const bool avx512 = chosen == "avx512" || (chosen.empty() && (gemm::cpu::has_avx512f() || !gemm::cpu::has_avx2_fma()));
    return *isa_tile(avx512 ? "avx512" : "avx2");
}
// The AVX-512 kernel's own switches change something when that kernel is the one to run:
// the variant about to run, else the best this CPU runs. Those of both x86 kernels, on any
// CPU that runs one of them.
bool avx512_runs() { return chosen == "avx512" || (chosen.empty() && gemm::cpu::has_avx512f()); }
bool x86_kernel_runs() { return gemm::cpu::has_avx512f() || gemm::cpu::has_avx2_fma(); }
#elif defined(__aarch64__)
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    run("neon", m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON", kMrNeon, kNrNeon},
                                      {"avx512", nullptr, nullptr, "AVX-512F (an x86-64 build)"},
                                      {"avx2", nullptr, nullptr, "AVX2+FMA (an x86-64 build)"}};
const IsaTile& shown() { return *isa_tile("neon"); }
bool avx512_runs() { return false; }
bool x86_kernel_runs() { return false; }
#else
#error "step 10 has micro-kernels for x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif
void use_variant(std::string_view name) { chosen = isa_tile(name) != nullptr ? isa_tile(name)->variant : ""; }

Blocks shown_blocks() {
    const IsaTile& t = shown();
    return block_sizes(config, t.mr, t.nr, t.flops());
}

// How each param writes a value into a configuration: the command line's (set) and the
// wisdom file's (apply_tuned) alike, except that a block the command line sets is asked for
// (Config::blocks_asked: every size takes the blocked path) and the file's is not.
using Writer = void (*)(Config&, int);
template <int Config::*field, unsigned bit>
void write_block(Config& c, int v) {
    c.*field = v;
    c.blocks_asked &= ~bit;
}
template <int Config::*field>
void write_value(Config& c, int v) { c.*field = v; }
template <int Ablation::*field>
void write_switch(Config& c, int v) { c.ablation.*field = v != 0; }
void write_fold(Config& c, int v) { c.ablation.fold = v <= 0 ? 0 : v == 1 ? 1 : 2; }
void write_tile_rows(Config& c, int v) { c.ablation.tile_rows = v <= 0 || v >= kMrAvx512 ? 0 : v; }
void write_tile_cols(Config& c, int v) { c.ablation.tile_cols = v > 0 && v <= 16 ? 16 : 0; }

template <Writer write>
void set(int v) { write(config, v); }
template <int Config::*field, unsigned bit>
void set_block(int v) {
    config.*field = v;
    config.blocks_asked = v > 0 ? config.blocks_asked | bit : config.blocks_asked & ~bit;
}

int get_mc() { return shown_blocks().mc; }
int get_kc() { return shown_blocks().kc; }
int get_nc() { return shown_blocks().nc; }
int get_one_slice() { return shown_blocks().one_slice; }
int get_min_kflops() { return config.min_kflops > 0 ? config.min_kflops : static_cast<int>(kMinFlopsPerThread / 1e3); }
// The ablation switches (README: "What each trick buys"): --no-fma 1 turns that idea
// off, 0 (the default) leaves it on. get() says what is in effect.
template <int Ablation::*field>
int get_switch() { return config.ablation.*field; }
// --fold: what is in effect, the core's rule included (fold_broadcast).
int get_fold() { return fold_broadcast(config.ablation.fold) ? 1 : 2; }
int get_tile_rows() { return config.ablation.tile_rows > 0 ? config.ablation.tile_rows : kMrAvx512; }
int get_tile_cols() { return config.ablation.tile_cols > 0 ? config.ablation.tile_cols : kNrAvx512; }

#define STEP10_SWITCH(NAME, FIELD, HELP, ...) \
    {NAME, HELP, get_switch<&Ablation::FIELD>, set<write_switch<&Ablation::FIELD>> __VA_OPT__(, ) __VA_ARGS__}
constexpr gemm::Param params[] = {
    {"mc", "rows of the packed A block, kept in L2 (default: from the L2 size)", get_mc, set_block<&Config::mc, kAskedMc>},
    {"kc", "depth of the packed A and B blocks (default: from L1, the FMA rate and the traffic beyond L2)", get_kc,
     set_block<&Config::kc, kAskedKc>},
    {"nc", "columns of the packed B panel, kept in L3 (default: from the L3 size)", get_nc, set_block<&Config::nc, kAskedNc>},
    {"one-slice", "deepest k taken in one slice, not in slices of kc (default: from the L2 size)",
     get_one_slice, set<write_value<&Config::one_slice>>},
    {"min-kflops", "least work per thread, in thousands of FLOPs (smaller products use fewer threads)",
     get_min_kflops, set<write_value<&Config::min_kflops>>},
    // Each idea of the step, switched off (tools/ablation.sh):
    STEP10_SWITCH("no-direct", no_direct, "1: pack small matrices too"),
    STEP10_SWITCH("no-vector-pack", no_vector_pack, "1: the plain packing loops"),
    STEP10_SWITCH("no-even-k", no_even_k, "1: k in kc slices and a thinner last one"),
    STEP10_SWITCH("old-blocks", old_blocks, "1: step 07's block rules (B sliver in L1/2)"),
    STEP10_SWITCH("no-prefetch", no_prefetch, "1: no C or next-B prefetch (avx512)", avx512_runs),
    STEP10_SWITCH("no-copy-b", no_copy_b, "1: pack B in a pass of its own, not in the kernel calls (avx512, avx2)",
                  x86_kernel_runs),
    STEP10_SWITCH("no-narrow", no_narrow, "1: last <= 4 columns in tiles, not dot products (avx512)", avx512_runs),
    STEP10_SWITCH("no-strips", no_strips, "1: masked zmm, not ymm, edge strips (avx512)", avx512_runs),
    STEP10_SWITCH("no-fma", no_fma, "1: vmulps + vaddps, not FMA (avx512)", avx512_runs),
    {"fold", "1: A(i, p) folded into the FMAs ({1to16}), 2: a vbroadcastss per row (avx512; default: from "
             "the core's load ports)", get_fold, set<write_fold>, avx512_runs},
    {"tile-rows", "register tile rows, 1-14 (avx512)", get_tile_rows, set<write_tile_rows>, avx512_runs},
    {"tile-cols", "register tile columns, 16 or 32 (avx512)", get_tile_cols, set<write_tile_cols>, avx512_runs}};
#undef STEP10_SWITCH
// The wisdom file's writer of each param, in params' order.
constexpr Writer tuned_writers[] = {
    write_block<&Config::mc, kAskedMc>, write_block<&Config::kc, kAskedKc>, write_block<&Config::nc, kAskedNc>,
    write_value<&Config::one_slice>, write_value<&Config::min_kflops>,
    write_switch<&Ablation::no_direct>, write_switch<&Ablation::no_vector_pack>, write_switch<&Ablation::no_even_k>,
    write_switch<&Ablation::old_blocks>, write_switch<&Ablation::no_prefetch>, write_switch<&Ablation::no_copy_b>,
    write_switch<&Ablation::no_narrow>, write_switch<&Ablation::no_strips>, write_switch<&Ablation::no_fma>,
    write_fold, write_tile_rows, write_tile_cols};
static_assert(std::size(tuned_writers) == std::size(params));

// A wisdom line's values into `c`: tuned blocks replace the rules' blocks; they do not ask
// small products onto the blocked path.
void apply_tuned(Config& c, const wisdom::Values& values) {
    for (const auto& [param, value] : values) tuned_writers[param - params](c, value);
}

// The values tools/tune.py measured best here, from the wisdom file (wisdom.cpp), under the
// command line's.
gemm::TunedParams tuned_params(std::string_view variant, int threads) {
    wisdom::Values values;
    gemm::TunedParams t = wisdom::take(params, variants, variant, threads, values);
    apply_tuned(config, values);
    if (threads > 0) wisdom_applied = true;
    return t;
}

// What a call would run (bin/cpuinfo --json): this configuration, with the wisdom file's
// values for `threads` when no run has taken them yet.
std::string plan(std::string_view variant, int m, int n, int k, int threads) {
    const IsaTile* entry = isa_tile(variant);
    const gemm::Variant* runs = nullptr;
    for (const gemm::Variant& v : variants)
        if (v.name == variant && v.is_supported()) runs = &v;
    if (entry == nullptr || runs == nullptr || threads < 1) return "";
    Config c = config;
    if (!wisdom_applied) {
        wisdom::Values values;
        wisdom::take(params, variants, variant, threads, values);
        apply_tuned(c, values);
    }
    return plan_text(plan_for(c, tile_for(*entry, c.ablation), m, n, k, n, threads));
}

}  // namespace
}  // namespace step10

GEMM_STEP({.variants = step10::variants, .params = step10::params, .parallel = true,
           .threads_used = step10::threads_used, .use_variant = step10::use_variant,
           .tuned_params = step10::tuned_params, .plan = step10::plan})
