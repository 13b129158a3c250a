// The step registry: every step built into gemm::steps, sorted by number.
// Contract: docs/contracts.md, "The registry".
#pragma once

#include <array>
#include <cstddef>
#include <optional>
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

// An integer tunable (--name N). A lesson's get() is the value in effect and set(0) restores
// the automatic one. A step with StepDef::run has neither: its values travel in a Setting.
struct Param {
    std::string_view name;
    std::string_view help;
    int (*get)() = nullptr;
    void (*set)(int) = nullptr;
    bool (*applies)() = nullptr;   // whether it changes anything on this CPU; nullptr: always
    bool in_effect() const { return applies == nullptr || applies(); }
};

// The most params a step may declare.
constexpr std::size_t kMaxParams = 24;
// A value per param, at the param's position in StepDef::params; empty: none.
using ParamValues = std::array<std::optional<int>, kMaxParams>;

// One run of a step, made by the harness once per run and passed to every call of the step's
// hooks (StepDef::run, shown, plan), as BLIS passes its context: the step's rules are functions
// of it, and nothing one run sets is left for the next.
struct Setting {
    std::string_view variant;   // the variant to run; "": the best this CPU runs
    ParamValues given = {};     // the command line's --name N (empty: automatic)
    ParamValues tuned = {};     // StepDef::tuned_params's values for this run, under the command line's
};

// What StepDef::tuned_params tells the harness.
struct TunedParams {
    std::string source;   // one word (no space, comma, quote or control): "rules", "wisdom:/abs/path"
    std::string note;     // "" or one line (a file refused, or measured elsewhere)
    ParamValues values = {};   // the values for the run (none with threads = 0)
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
    // A step that takes its configuration explicitly: one call with `setting`, returning the
    // threads it ran on. The harness then calls neither the variant's kernel nor threads_used,
    // and never a param's set or get.
    int (*run)(const Setting& setting, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
               float* C, int ldc) = nullptr;
    // With run: the value of `param` in effect under `setting`, or none when it changes nothing
    // for that variant on this CPU (--help, the progress line, the CSV's params column).
    std::optional<int> (*shown)(const Setting& setting, const Param& param) = nullptr;
    // The values tuned on this machine (step 10's wisdom) for a run of `variant` on `threads`
    // threads, which the harness puts in Setting::tuned; threads = 0 (bin/cpuinfo) gives none and
    // only describes the file.
    TunedParams (*tuned_params)(std::string_view variant, int threads) = nullptr;
    // What the step would run for an m x n x k product: "key=value ..." (the CSV params' form).
    std::string (*plan)(const Setting& setting, int m, int n, int k, int threads) = nullptr;
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
    std::size_t param_index(const Param& p) const { return static_cast<std::size_t>(&p - def->params.data()); }
};

// The Setting of a run of `variant` on `threads` threads: `given` and, from StepDef::tuned_params,
// the tuned values (what it said goes to `tuned` too, when not nullptr).
Setting make_setting(const Step& step, std::string_view variant, int threads, const ParamValues& given = {},
                     TunedParams* tuned = nullptr);
// The value of `p` in effect under `setting` (StepDef::shown, else a lesson's get()), or none
// when it changes nothing here.
std::optional<int> shown_value(const Step& step, const Setting& setting, const Param& p);
// One call of the step under `setting`: StepDef::run, else the variant's kernel (a lesson's
// params are set through set()). Returns the threads it ran on, 0 when the step does not say.
int run_setting(const Step& step, const Setting& setting, int m, int n, int k, const float* A, int lda,
                const float* B, int ldb, float* C, int ldc);

const std::vector<Step>& steps();   // every step built, sorted by number

}  // namespace gemm
