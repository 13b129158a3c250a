// Which of a BLAS library's kernel sets the reference runners use. OpenBLAS and BLIS pick theirs
// from CPUID when they load, and a release older than the CPU may pick an old set (docs/harness.md),
// which makes no comparison: unless told otherwise the runner asks for the library's widest set
// this CPU runs, through the variable the library reads. A set the user forces there is checked
// against one table of what each set needs before any of its kernels runs; a forced set narrower
// than the best is obeyed but said. Pure functions, tested alone.
#pragma once

#include <gemm/cpu.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gemm::ref {

enum class Library { openblas, blis };

// The vector ISA a kernel-set name (case-insensitive) of the library uses: "avx512", "avx2",
// "avx", "sse", "neon", "sve", "generic", "other" (another architecture's), or "unknown".
std::string isa_of(Library lib, std::string_view kernel_set);

// What the CPU can run, in the same ISA names (the libraries' AVX-512 sets need F, CD, BW, DQ, VL).
struct CpuVectors {
    bool avx512 = false;   // with the OS's support
    bool avx2_fma = false;
    bool avx = false;
};
CpuVectors cpu_vectors();   // from gemm::cpu::features()

struct Choice {
    bool change = false;        // re-run the library with env_var=value
    std::string env_var;        // OPENBLAS_CORETYPE or BLIS_ARCH_TYPE
    std::string kernel_set;     // the set asked for ("SkylakeX", "skx")
    std::string reason;         // one line for the progress output
    bool forced_narrower = false;   // the user's set is narrower than the CPU's widest: warn once
};

// detected: the set the library chose by itself (when user_value, the variable's value the user
// set, is not nullptr: the set it runs as told). as_detected: --as-detected. For BLIS the
// kernel_set is the name; the runner turns it into the index BLIS 0.9 expects.
Choice choose(Library lib, std::string_view detected, const CpuVectors& cpu, const char* user_value,
              bool as_detected);

// A kernel set the user forces (OPENBLAS_CORETYPE, BLIS_ARCH_TYPE), judged before the library
// runs any of it: a set whose instructions the CPU lacks ends in SIGILL, and a value naming no set
// makes the library fall back to one of its choosing (OpenBLAS) or read it as a number (BLIS 0.9).
struct Forced {
    enum class Verdict {
        runs,            // the set exists and this CPU has everything it needs
        names_nothing,   // the value names no set of the library: a usage error (exit 2)
        cpu_lacks,       // the set needs instructions this CPU lacks (exit 77)
    };
    Verdict verdict = Verdict::names_nothing;
    std::string kernel_set;   // the set, spelt as the library spells it ("SkylakeX", "skx")
    std::string problem;      // unless it runs: one line, without the program and the variable
};
// cpu: what the CPU has (or a made-up set in a test). library_sets: the library's own list of its
// sets by number, if any (BLIS: bli_arch_string(0), (1) ...): a number then names the set at that
// index and a name must be on the list; empty (OpenBLAS): names only. Case-insensitive.
Forced check_forced(Library lib, std::string_view value, const cpu::Features& cpu,
                    const std::vector<std::string>& library_sets = {});

std::string lower(std::string_view text);   // ASCII lower case

}  // namespace gemm::ref
