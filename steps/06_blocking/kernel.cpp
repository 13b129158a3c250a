// Step 06: step 05's kernel inside kc x mc cache blocks. The kernels (kernel_sse.cpp,
// kernel_neon.cpp) walk the blocks; this file chooses the block sizes from the caches of the
// machine it runs on, lets --kc and --mc override them, and registers the step.
//
// The block loop runs, for one kc-deep slice of A and B, over mc-row blocks of A; inside a
// block, each 4-column sliver of B (kc x 4) meets every 4-row sliver of the block in turn.
//   - The B sliver is reused mc/4 times, so it should stay in L1. Nothing is packed yet: its kc
//     rows lie ldb floats apart, so each row costs a whole 64-byte cache line. Half of L1 for
//     it (the rest is for A and C streaming through): kc = (L1d / 2) / 64.
//   - The mc x kc block of A is reused by every sliver of B (n/4 times), so it should stay in
//     L2. Half of L2 for it: mc = (L2 / 2) / (kc * 4 bytes).
// With 32 KiB of L1d and 1 MiB of L2 that is kc = 256, mc = 512.
#include "kernel.hpp"

#include <gemm/step.hpp>

#include <algorithm>

namespace {

constexpr long cache_line = 64;

// >>> block-sizes
int auto_kc() {
    const long l1d = gemm::cpu::caches().l1d;
    return static_cast<int>(std::clamp(l1d / 2 / cache_line, 16L, 1024L));
}

int auto_mc() {
    const long l2 = gemm::cpu::caches().l2;
    const long rows = l2 / 2 / (static_cast<long>(auto_kc()) * sizeof(float));
    return static_cast<int>(std::clamp(rows / 4 * 4, 4L, 4096L));   // whole 4-row slivers
}
// <<< block-sizes

int kc_set = 0, mc_set = 0;   // from --kc, --mc; 0 = automatic

int get_kc() { return step06::kc(); }
int get_mc() { return step06::mc(); }
void set_kc(int v) { kc_set = v; }
void set_mc(int v) { mc_set = v; }

#if defined(__x86_64__)
constexpr gemm::Variant variants[] = {{"sse", step06::gemm_sse, gemm::cpu::has_sse2, "SSE2", 4, 4}};
#elif defined(__aarch64__)
constexpr gemm::Variant variants[] = {{"neon", step06::gemm_neon, gemm::cpu::has_neon, "NEON", 4, 4}};
#else
#error "step 06 is written for x86-64 (SSE) and AArch64 (NEON)"
#endif

constexpr gemm::Param params[] = {
    {"kc", "depth of a block (default: half of L1d / 64-byte line)", get_kc, set_kc},
    {"mc", "rows of A in a block (default: half of L2 / (kc * 4 bytes))", get_mc, set_mc}};

}  // namespace

int step06::kc() {
    static const int automatic = auto_kc();
    return kc_set > 0 ? kc_set : automatic;
}

int step06::mc() {
    static const int automatic = auto_mc();
    return mc_set > 0 ? mc_set : automatic;
}

GEMM_STEP({.variants = variants, .params = params})
