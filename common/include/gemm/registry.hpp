// The step registry: every step built into gemm::steps, sorted by number.
// Contract: docs/contracts.md, "The registry".
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gemm {

// C (m x n) += A (m x k) * B (k x n), row-major, leading dimensions lda >= k, ldb >= n, ldc >= n.
using Kernel = void (*)(int m, int n, int k, const float* A, int lda,
                        const float* B, int ldb, float* C, int ldc);

// One implementation of a step's idea for one instruction set, listed best first. A variant of
// another architecture may have no kernel, so that --kernel neon on x86-64 is exit 77, not unknown.
struct Variant {
    std::string_view name;              // "scalar", "sse", "neon", "avx2", "avx512"
    Kernel kernel;
    bool (*supported)() = nullptr;      // nullptr: runs on every CPU
    std::string_view requirement = {};  // what the exit-77 line names: "AVX-512F"
    int mr = 0, nr = 0;                 // the register tile of C (14 x 32); 0 x 0: none stated

    bool is_supported() const { return kernel != nullptr && (supported == nullptr || supported()); }
};

// An integer tunable (--name N): get() is the value in effect, set(0) restores the automatic one.
struct Param {
    std::string_view name;
    std::string_view help;
    int (*get)();
    void (*set)(int);
    bool (*applies)() = nullptr;   // whether it changes anything on this CPU; nullptr: always
    bool in_effect() const { return applies == nullptr || applies(); }
};

// What StepDef::tuned_params tells the harness.
struct TunedParams {
    std::string source;   // one word (no space, comma, quote or control): "rules", "wisdom:/abs/path"
    std::string note;     // "" or one line (a file refused, or measured elsewhere)
};

// What a step's source file declares with GEMM_STEP (<gemm/step.hpp>); when the harness calls
// each hook: docs/contracts.md, "The registry".
struct StepDef {
    std::span<const Variant> variants;
    std::span<const Param> params = {};
    bool parallel = false;  // OpenMP step: OMP_NUM_THREADS or all cores, unless --threads says otherwise
    // Threads the last call ran on; nullptr: 1 for a serial step, the OpenMP team for a parallel one.
    int (*threads_used)() = nullptr;
    // Bytes a library maps on its own for `threads` threads, which the memory pre-check budgets.
    unsigned long long (*library_bytes)(int threads) = nullptr;
    // Called with the variant about to run, before its params are set or shown.
    void (*use_variant)(std::string_view name) = nullptr;
    // Sets the params from values tuned on this machine (step 10's wisdom), after use_variant and
    // before the command line's; with threads = 0 (bin/cpuinfo) it sets nothing and only reports.
    TunedParams (*tuned_params)(std::string_view variant, int threads) = nullptr;
    // What the step would run for an m x n x k product: "key=value ..." (the CSV params' form).
    std::string (*plan)(std::string_view variant, int m, int n, int k, int threads) = nullptr;
};

struct Step {
    int number;              // 1..9 lessons, 10 the tuned step, lab steps 11 and up
    std::string_view slug;   // "05_simd_4x4"
    Kernel kernel;           // the best variant this CPU supports
    bool (*supported)();     // false when this CPU lacks what the step needs
    const StepDef* def;      // variants, tunable parameters, threading

    const Variant* best_variant() const;                    // nullptr when none is supported
    const Variant* find_variant(std::string_view name) const;
    const Param* find_param(std::string_view name) const;
};

const std::vector<Step>& steps();   // every step built, sorted by number

}  // namespace gemm
