// Step 05: step 04's 4x4 register block, written with 128-bit SIMD. The kernels are in
// kernel_sse.cpp (x86-64) and kernel_neon.cpp (AArch64); the build compiles the one
// for the target, and this file registers it.
#include "kernel.hpp"

#include <gemm/step.hpp>

namespace {

#if defined(__x86_64__)
constexpr gemm::Variant variants[] = {{"sse", step05::gemm_sse, gemm::cpu::has_sse2, "SSE2", 4, 4}};
#elif defined(__aarch64__)
constexpr gemm::Variant variants[] = {{"neon", step05::gemm_neon, gemm::cpu::has_neon, "NEON", 4, 4}};
#else
#error "step 05 is written for x86-64 (SSE) and AArch64 (NEON)"
#endif

}  // namespace

GEMM_STEP({.variants = variants})
