// Step 10: the tuned step. One executable for one thread and for all of them: a product
// too small to share, or a run with --threads 1, takes the serial nest (serial_nest.cpp),
// anything else the parallel one (parallel_nest.cpp). Each trick of the step can be turned
// off from the command line (--no-fma 1 ...), so that tools/ablation.sh measures what each
// one buys on the reader's CPU (README: "What each trick buys").
//
// A run's Setting (the command line's values, the wisdom file's) comes with every call
// (StepDef::run, shown, plan): each call makes its Config from it (config_of, a pure function)
// and passes it down (config.hpp), and the plan bin/cpuinfo shows comes from the same rules
// (blocks.hpp). Nothing here outlives a call.
#include "nests.hpp"
#include "plan.hpp"
#include "wisdom.hpp"

#include <gemm/step.hpp>

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace step10 {
namespace {

// The variant's own kernels: a call through gemm::Kernel (the registry's Step::kernel) runs
// the step as it is, with no values given or tuned.
void run_variant(std::string_view variant, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc);

#if defined(__x86_64__) || defined(_M_X64)
void gemm_avx512(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    run_variant("avx512", m, n, k, A, lda, B, ldb, C, ldc);
}
void gemm_avx2(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    run_variant("avx2", m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {
    {"avx512", gemm_avx512, gemm::cpu::has_avx512f, "AVX-512F", kMrAvx512, kNrAvx512},
    {"avx2", gemm_avx2, gemm::cpu::has_avx2_fma, "AVX2+FMA", kMrAvx2, kNrAvx2},
    {"neon", nullptr, nullptr, "NEON (an AArch64 build)"}};
// The tile whose blocks --help, the progress line and the CSV show: the setting's variant,
// else the best this CPU runs (the AVX2 tile's on a core without AVX-512). `chosen`: the
// variant's table entry name, "" for none (chosen_of).
const IsaTile& shown_tile(std::string_view chosen) {
    const bool avx512 = chosen == "avx512" || (chosen.empty() && (gemm::cpu::has_avx512f() || !gemm::cpu::has_avx2_fma()));
    return *isa_tile(avx512 ? "avx512" : "avx2");
}
// The AVX-512 kernel's own switches change something when that kernel is the one to run:
// the setting's variant, else the best this CPU runs. Those of both x86 kernels, on any
// CPU that runs one of them.
bool avx512_runs(std::string_view chosen) { return chosen == "avx512" || (chosen.empty() && gemm::cpu::has_avx512f()); }
bool x86_kernel_runs(std::string_view) { return gemm::cpu::has_avx512f() || gemm::cpu::has_avx2_fma(); }
#elif defined(__aarch64__)
void gemm_neon(int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
    run_variant("neon", m, n, k, A, lda, B, ldb, C, ldc);
}
constexpr gemm::Variant variants[] = {{"neon", gemm_neon, gemm::cpu::has_neon, "NEON", kMrNeon, kNrNeon},
                                      {"avx512", nullptr, nullptr, "AVX-512F (an x86-64 build)"},
                                      {"avx2", nullptr, nullptr, "AVX2+FMA (an x86-64 build)"}};
const IsaTile& shown_tile(std::string_view) { return *isa_tile("neon"); }
bool avx512_runs(std::string_view) { return false; }
bool x86_kernel_runs(std::string_view) { return false; }
#else
#error "step 10 has micro-kernels for x86-64 (AVX-512, AVX2) and AArch64 (NEON) only"
#endif

// The setting's variant as this build's table names it, "" for none (another architecture's).
std::string_view chosen_of(const gemm::Setting& s) {
    const IsaTile* t = isa_tile(s.variant);
    return t != nullptr ? t->variant : "";
}

// How each param enters a configuration and is read back from it. The command line's value
// (given) and the wisdom file's (tuned) are written alike, except that a block the command
// line gives is asked for (Config::blocks_asked: every size takes the blocked path) and the
// file's is not.
using Writer = void (*)(Config&, int);
using Reader = int (*)(const Config&, const IsaTile&);
struct Knob {
    Writer tuned, given;
    Reader read;
    bool (*in_effect)(std::string_view chosen) = nullptr;   // nullptr: always
};

template <int Config::*field, unsigned bit>
void write_block(Config& c, int v) {
    c.*field = v;
    c.blocks_asked &= ~bit;
}
template <int Config::*field, unsigned bit>
void ask_block(Config& c, int v) {
    c.*field = v;
    c.blocks_asked = v > 0 ? c.blocks_asked | bit : c.blocks_asked & ~bit;
}
template <int Config::*field>
void write_value(Config& c, int v) { c.*field = v; }
template <int Ablation::*field>
void write_switch(Config& c, int v) { c.ablation.*field = v != 0; }
void write_fold(Config& c, int v) { c.ablation.fold = v <= 0 ? 0 : v == 1 ? 1 : 2; }
void write_tile_rows(Config& c, int v) { c.ablation.tile_rows = v <= 0 || v >= kMrAvx512 ? 0 : v; }
void write_tile_cols(Config& c, int v) { c.ablation.tile_cols = v > 0 && v <= 16 ? 16 : 0; }

// What is in effect: the rules' blocks for the shown tile, the core's rule for --fold.
template <int Blocks::*field>
int read_block(const Config& c, const IsaTile& t) { return block_sizes(c, t.mr, t.nr, t.flops()).*field; }
int read_min_kflops(const Config& c, const IsaTile&) {
    return c.min_kflops > 0 ? c.min_kflops : static_cast<int>(kMinFlopsPerThread / 1e3);
}
// The ablation switches (README: "What each trick buys"): --no-fma 1 turns that idea
// off, 0 (the default) leaves it on.
template <int Ablation::*field>
int read_switch(const Config& c, const IsaTile&) { return c.ablation.*field; }
int read_fold(const Config& c, const IsaTile&) { return fold_broadcast(c.ablation.fold) ? 1 : 2; }
int read_tile_rows(const Config& c, const IsaTile&) { return c.ablation.tile_rows > 0 ? c.ablation.tile_rows : kMrAvx512; }
int read_tile_cols(const Config& c, const IsaTile&) { return c.ablation.tile_cols > 0 ? c.ablation.tile_cols : kNrAvx512; }

#define STEP10_SWITCH(FIELD, ...) \
    {write_switch<&Ablation::FIELD>, write_switch<&Ablation::FIELD>, read_switch<&Ablation::FIELD> __VA_OPT__(, ) __VA_ARGS__}
// In params' order.
constexpr Knob knobs[] = {
    {write_block<&Config::mc, kAskedMc>, ask_block<&Config::mc, kAskedMc>, read_block<&Blocks::mc>},
    {write_block<&Config::kc, kAskedKc>, ask_block<&Config::kc, kAskedKc>, read_block<&Blocks::kc>},
    {write_block<&Config::nc, kAskedNc>, ask_block<&Config::nc, kAskedNc>, read_block<&Blocks::nc>},
    {write_value<&Config::one_slice>, write_value<&Config::one_slice>, read_block<&Blocks::one_slice>},
    {write_value<&Config::min_kflops>, write_value<&Config::min_kflops>, read_min_kflops},
    STEP10_SWITCH(no_direct), STEP10_SWITCH(no_vector_pack), STEP10_SWITCH(no_even_k), STEP10_SWITCH(old_blocks),
    STEP10_SWITCH(no_prefetch, avx512_runs), STEP10_SWITCH(no_copy_b, x86_kernel_runs),
    STEP10_SWITCH(no_narrow, avx512_runs), STEP10_SWITCH(no_strips, avx512_runs), STEP10_SWITCH(no_fma, avx512_runs),
    {write_fold, write_fold, read_fold, avx512_runs},
    {write_tile_rows, write_tile_rows, read_tile_rows, avx512_runs},
    {write_tile_cols, write_tile_cols, read_tile_cols, avx512_runs}};
#undef STEP10_SWITCH

// The params: their values travel in the run's Setting (knobs above), so no get or set.
constexpr gemm::Param params[] = {
    {"mc", "rows of the packed A block, kept in L2 (default: from the L2 size)"},
    {"kc", "depth of the packed A and B blocks (default: from L1, the FMA rate and the traffic beyond L2)"},
    {"nc", "columns of the packed B panel, kept in L3 (default: from the L3 size)"},
    {"one-slice", "deepest k taken in one slice, not in slices of kc (default: from the L2 size)"},
    {"min-kflops", "least work per thread, in thousands of FLOPs (smaller products use fewer threads)"},
    // Each idea of the step, switched off (tools/ablation.sh):
    {"no-direct", "1: pack small matrices too"},
    {"no-vector-pack", "1: the plain packing loops"},
    {"no-even-k", "1: k in kc slices and a thinner last one"},
    {"old-blocks", "1: step 07's block rules (B sliver in L1/2)"},
    {"no-prefetch", "1: no C or next-B prefetch (avx512)"},
    {"no-copy-b", "1: pack B in a pass of its own, not in the kernel calls (avx512, avx2)"},
    {"no-narrow", "1: last <= 4 columns in tiles, not dot products (avx512)"},
    {"no-strips", "1: masked zmm, not ymm, edge strips (avx512)"},
    {"no-fma", "1: vmulps + vaddps, not FMA (avx512)"},
    {"fold", "1: A(i, p) folded into the FMAs ({1to16}), 2: a vbroadcastss per row (avx512; default: from "
             "the core's load ports)"},
    {"tile-rows", "register tile rows, 1-14 (avx512)"},
    {"tile-cols", "register tile columns, 16 or 32 (avx512)"}};
static_assert(std::size(knobs) == std::size(params));
static_assert(std::size(params) <= gemm::kMaxParams);

// The configuration of a Setting: the wisdom file's values, then the command line's, which win.
Config config_of(const gemm::Setting& s) {
    Config c;
    for (std::size_t i = 0; i < std::size(params); ++i)
        if (s.tuned[i]) knobs[i].tuned(c, *s.tuned[i]);
    for (std::size_t i = 0; i < std::size(params); ++i)
        if (s.given[i]) knobs[i].given(c, *s.given[i]);
    return c;
}

int run(const gemm::Setting& s, int m, int n, int k, const float* A, int lda, const float* B, int ldb, float* C,
        int ldc) {
    const Config c = config_of(s);   // "": the best this CPU runs, as shown
    return parallel_gemm(c, tile_for(shown_tile(chosen_of(s)), c.ablation), Operands{m, n, k, A, lda, B, ldb, C, ldc});
}

void run_variant(std::string_view variant, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc) {
    run(gemm::Setting{variant, {}, {}}, m, n, k, A, lda, B, ldb, C, ldc);
}

std::optional<int> shown(const gemm::Setting& s, const gemm::Param& p) {
    const Knob& knob = knobs[static_cast<std::size_t>(&p - params)];
    const std::string_view chosen = chosen_of(s);
    if (knob.in_effect != nullptr && !knob.in_effect(chosen)) return std::nullopt;
    return knob.read(config_of(s), shown_tile(chosen));
}

// The values tools/tune.py measured best here, from the wisdom file (wisdom.cpp), for the
// harness to put under the command line's.
gemm::TunedParams tuned_params(std::string_view variant, int threads) {
    wisdom::Values values;
    gemm::TunedParams t = wisdom::take(params, variants, variant, threads, values);
    for (const auto& [param, value] : values) t.values[static_cast<std::size_t>(param - params)] = value;
    return t;
}

// What a call would run (bin/cpuinfo --json, --plan) under the setting.
std::string plan(const gemm::Setting& s, int m, int n, int k, int threads) {
    const IsaTile* entry = isa_tile(s.variant);
    const gemm::Variant* runs = nullptr;
    for (const gemm::Variant& v : variants)
        if (v.name == s.variant && v.is_supported()) runs = &v;
    if (entry == nullptr || runs == nullptr || threads < 1) return "";
    const Config c = config_of(s);
    return plan_text(plan_for(c, tile_for(*entry, c.ablation), m, n, k, n, threads));
}

}  // namespace
}  // namespace step10

GEMM_STEP({.variants = step10::variants, .params = step10::params, .parallel = true, .run = step10::run,
           .shown = step10::shown, .tuned_params = step10::tuned_params, .plan = step10::plan})
