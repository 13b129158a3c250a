// Which of a BLAS library's kernel sets the reference runners use. OpenBLAS and BLIS pick
// their kernels from CPUID when they load, and a release older than the CPU may pick an old
// set (OpenBLAS 0.3.21 on Zen 5 runs Haswell kernels, on Emerald Rapids Prescott's SSE3;
// BLIS 0.9.0 falls back to haswell or generic). A figure against that is no comparison, so
// unless told otherwise the runner asks for the library's widest set this CPU can run,
// through the variable the library reads when it loads. Pure functions, tested alone.
#pragma once

#include <string>
#include <string_view>

namespace gemm::ref {

enum class Library { openblas, blis };

// The vector ISA a kernel-set name of the library uses: "avx512", "avx2", "avx", "sse",
// "neon", "sve", or "generic". Case-insensitive; unknown names are "unknown".
std::string isa_of(Library lib, std::string_view kernel_set);

// What the CPU can run, in the same ISA names (x86-64: the widest; OpenBLAS's and BLIS's
// AVX-512 sets need AVX512F, CD, BW, DQ and VL).
struct CpuVectors {
    bool avx512 = false;   // F, CD, BW, DQ, VL, with the OS's support
    bool avx2_fma = false;
    bool avx = false;
};
CpuVectors cpu_vectors();

struct Choice {
    bool change = false;        // re-run the library with env_var=value
    std::string env_var;        // OPENBLAS_CORETYPE or BLIS_ARCH_TYPE
    std::string kernel_set;     // the set asked for ("SkylakeX", "skx")
    std::string reason;         // one line for the progress output
};

// detected: the set the library chose by itself. user_value: the variable's value when the
// user set it (nullptr: not set): then the library runs as told. as_detected: --as-detected.
// The returned kernel_set for BLIS is the name; the runner turns it into the index BLIS 0.9
// expects.
Choice choose(Library lib, std::string_view detected, const CpuVectors& cpu, const char* user_value,
              bool as_detected);

}  // namespace gemm::ref
