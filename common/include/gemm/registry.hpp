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

// One implementation of a step's idea for one instruction set. A step lists its
// variants best first; the step's kernel runs the first one this CPU supports.
// A variant of another architecture may be listed with no kernel (nullptr), so that
// --kernel neon on x86-64 says which build has it (exit 77) instead of "no such kernel".
struct Variant {
    std::string_view name;              // "scalar", "sse", "neon", "avx2", "avx512"
    Kernel kernel;
    bool (*supported)() = nullptr;      // nullptr: runs on every CPU
    std::string_view requirement = {};  // what the exit-77 line names: "AVX-512F"
    // The register tile: the mr x nr block of C its inner loop computes at a time (1 x 4 for
    // step 02, 14 x 32 for step 08's AVX-512 kernel). 0 x 0: none stated (a library). It is
    // what bin/cpuinfo --json reports and plots/roofline_model.py models.
    int mr = 0, nr = 0;

    bool is_supported() const { return kernel != nullptr && (supported == nullptr || supported()); }
};

// An integer a step lets you tune from the command line (--name N), e.g. a block size.
// get() returns the value in effect (the automatic choice unless set); set(0) restores it.
struct Param {
    std::string_view name;
    std::string_view help;
    int (*get)();
    void (*set)(int);
    // Whether it changes anything on this CPU (a switch of the AVX-512 kernel does not on a
    // CPU without AVX-512); nullptr: wherever the step runs. cpuinfo lists only those that do.
    bool (*applies)() = nullptr;
    bool in_effect() const { return applies == nullptr || applies(); }
};

// What a step that keeps values tuned on this machine in a file (step 10's wisdom: the file,
// its checks and the threads it applies to are the step's own) tells the harness.
struct TunedParams {
    std::string source;   // where the params' values come from, as one word (no space, comma,
                          // quote or control character): "rules", "wisdom:/abs/path"
    std::string note;     // "" or one line (a file refused, or measured elsewhere), no newline
};

// What a step's source file declares with GEMM_STEP (see <gemm/step.hpp>).
struct StepDef {
    std::span<const Variant> variants;
    std::span<const Param> params = {};
    bool parallel = false;  // OpenMP step: OMP_NUM_THREADS or all cores, unless --threads says otherwise
    // How many threads the last call ran on, for steps that choose (fewer threads for small
    // products). nullptr: 1 for a serial step, the OpenMP team size for a parallel one.
    int (*threads_used)() = nullptr;
    // Bytes a library maps on its own for `threads` threads, beyond what the harness
    // allocates (e.g. OpenBLAS's buffers); the memory pre-check budgets them.
    unsigned long long (*library_bytes)(int threads) = nullptr;
    // Called with the variant about to run (the best one, or --kernel's), before its params
    // are set or shown, for steps whose params depend on it (block sizes per register tile).
    // nullptr: the params are the same for every variant.
    void (*use_variant)(std::string_view name) = nullptr;
    // Values tuned on this machine (docs/contracts.md, "Wisdom (step 10)"); nullptr: the params
    // are the rules' unless the command line sets them. The harness calls it once per run, with
    // the variant about to run and the run's thread count (its header's), after use_variant and
    // before the command line's --NAME values are set (so those win): the step sets its params
    // from its file, or leaves them. The progress line and every CSV row's params then end with
    // source=SOURCE, and a note goes to standard error after the program's name, once, just
    // before the header. With threads = 0 (bin/cpuinfo's report) the step sets nothing and the
    // note describes what a run would take.
    TunedParams (*tuned_params)(std::string_view variant, int threads) = nullptr;
    // What the step would run for an m x n x k product on `threads` threads with variant `variant`: "key=value ..." pairs (the CSV params column's form). nullptr: nothing beyond the params.
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
