// What this CPU has: instruction sets (checked with the OS's support for their registers),
// cache sizes, name and core count. Detected once, on first use.
#pragma once

#include <string>
#include <vector>

namespace gemm::cpu {

struct Features {
    bool sse2 = false;
    bool avx = false;
    bool fma = false;
    bool avx2 = false;
    bool avx512f = false;
    bool neon = false;     // AArch64 Advanced SIMD
};
const Features& features();

// Convenience predicates, usable as Variant::supported.
bool has_sse2();
bool has_avx();
bool has_avx2_fma();     // AVX2 and FMA3 together
bool has_avx512f();
bool has_neon();

struct Caches {
    long l1d = 0;          // bytes, one core's L1 data cache
    long l2 = 0;           // bytes, one core's L2
    long l3 = 0;           // bytes, the whole shared last level (0 when there is none)
    std::string source;    // "sysfs", "sysconf", "sysctl" or "default (...)"
};
const Caches& caches();

std::string name();        // "AMD EPYC 9B14 96-Core Processor"
std::vector<int> allowed_cpus();   // the logical CPUs this process may run on, by number
int cores();               // how many: allowed_cpus().size()
const char* arch();        // "x86_64", "aarch64" or "unknown"

}  // namespace gemm::cpu
