// What a step's source file includes to declare itself, once, in one of its files:
//     GEMM_STEP({.variants = variants, .params = params})
// gemm_add_step defines GEMM_STEP_ENTRY, a name unique to the step, through which the generated
// registry and the step's executable find it. A file compiled with ISA flags should hold kernel
// code only: an inline function of a shared header emitted there could carry those instructions
// into code that runs on every CPU.
#pragma once

#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

namespace gemm {

// The link between a step's file and the registry; one per step.
struct StepEntry {
    const StepDef* def;
    Kernel kernel;
    bool (*supported)();
};

namespace detail {
const Variant* best_variant(const StepDef& def);
void run_best_variant(const StepDef& def, int m, int n, int k, const float* A, int lda,
                      const float* B, int ldb, float* C, int ldc);
}  // namespace detail

}  // namespace gemm

#if !defined(GEMM_STEP_ENTRY) && !defined(GEMM_REGISTRY_SOURCE)
#error "GEMM_STEP_ENTRY is not defined: build step sources with gemm_add_step()"
#endif

#define GEMM_STEP(...)                                                                     \
    namespace {                                                                            \
    constexpr ::gemm::StepDef gemm_step_def_ = __VA_ARGS__;                                \
    void gemm_step_kernel_(int m, int n, int k, const float* A, int lda, const float* B,   \
                           int ldb, float* C, int ldc) {                                   \
        ::gemm::detail::run_best_variant(gemm_step_def_, m, n, k, A, lda, B, ldb, C, ldc); \
    }                                                                                      \
    bool gemm_step_supported_() { return ::gemm::detail::best_variant(gemm_step_def_); }   \
    }                                                                                      \
    extern const ::gemm::StepEntry GEMM_STEP_ENTRY;                                        \
    const ::gemm::StepEntry GEMM_STEP_ENTRY{&gemm_step_def_, gemm_step_kernel_,            \
                                            gemm_step_supported_};
