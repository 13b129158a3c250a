// What this CPU has: instruction sets (checked with the OS's support for their registers),
// cache sizes, name and core count. Detected once, on first use.
#pragma once

#include <string>
#include <vector>

namespace gemm::cpu {

struct Features {
    bool sse2 = false, avx = false, fma = false, avx2 = false, avx512f = false;
    bool neon = false;     // AArch64 Advanced SIMD
    // What the BLAS libraries' kernel sets need beyond these (tools/ref/kernel_choice.cpp):
    bool sse3 = false, ssse3 = false, sse4_1 = false;
    bool avx512cd = false, avx512bw = false, avx512dq = false, avx512vl = false;
    bool avx512er = false, avx512pf = false;   // Xeon Phi (Knights Landing) only
    bool fma4 = false;     // AMD Bulldozer family
    bool amd3dnow = false; // AMD K7 to K10
    bool sve = false;      // AArch64 Scalable Vector Extension
};
const Features& features();

// Predicates usable as Variant::supported.
bool has_sse2();
bool has_avx();
bool has_avx2_fma();     // AVX2 and FMA3 together
bool has_avx512f();
bool has_neon();

struct Caches {
    long l1d = 0;          // bytes, one core's L1 data cache
    long l2 = 0;           // bytes, one core's L2
    long l3 = 0;           // bytes, the whole shared last level (0 when there is none)
    std::string source;    // "sysfs", "sysconf", "sysctl", "GEMM_CACHES" or "default (...)"
};
// GEMM_CACHES=L1D,L2,L3 stands in for the detected sizes (docs/contracts.md, "Other cache
// sizes"); a malformed value leaves them in place and is caches_problem() ("" when none).
const Caches& caches();
const std::string& caches_problem();

// The largest block size of the steps' cache rules and of --NAME N: above any size the harness
// runs (kMaxSize), so a larger block would change nothing but the chance of overflowing an int.
constexpr int kMaxBlock = 1 << 16;
// A block size from a cache rule: `value` (computed in 64 bits) rounded down to a multiple of
// `unit` and held to [unit, kMaxBlock rounded down]: never 0, never an int that wrapped round.
constexpr int block_size(long long value, int unit) {
    const long long top = kMaxBlock / unit * unit, rounded = value / unit * unit;
    return static_cast<int>(rounded < unit ? unit : rounded > top ? top : rounded);
}

std::string name();        // "AMD EPYC 9B14 96-Core Processor"

// CPUID's vendor string and display family/model on x86-64; MIDR's implementer (family) and
// part (model) on AArch64.
struct Identity {
    std::string vendor;    // "AuthenticAMD", "GenuineIntel", "arm" ..., or "" when unknown
    int family = 0;
    int model = 0;
    int stepping = 0;
};
const Identity& identity();

// What the core's FP pipes do per cycle, in fp32 FLOPs for each loop tools/peak times (0: not
// known): a table of published facts keyed by vendor, family and model (cpu.cpp; docs/peak.md).
struct Microarch {
    std::string name;              // "Zen 4", "Emerald Rapids"; "" when not in the table
    double scalar = 0, sse = 0, avx = 0, avx2 = 0, avx512 = 0, neon = 0;
    // One or two 512-bit FMA units by SKU (Xeon Skylake-SP): the meter decides from the measure.
    bool avx512_width_varies = false;
    std::string pipes;             // the assumption in words, for reports
    // Loads a core starts per cycle (0: not in the table): a 512-bit FMA with a broadcast memory
    // operand takes a load port too (step 10's fold_broadcast).
    int loads = 0;
};
Microarch classify(const Identity& id);   // pure: the table lookup, for tests
const Microarch& microarch();             // classify(identity())
// "Emerald Rapids", else "GenuineIntel family 6 model 207": what figures and CSVs name.
std::string microarch_label();
// The two lines that values tuned here record and compare (docs/contracts.md, "Wisdom (step
// 10)"), as `cpuinfo --identity` prints them: "cpu VENDOR FAMILY MODEL LABEL", "caches L1D L2 L3".
struct MachineLines {
    std::string cpu, caches;   // without a newline
};
MachineLines machine_lines();
// The kinds of core of a hybrid chip as macOS describes them (hw.perflevelN.*, N = 0 the
// performance cores); empty elsewhere. On Apple silicon caches() are the performance cores'.
struct CoreKind {
    std::string name;          // "Performance", "Efficiency" (hw.perflevelN.name)
    long cores = 0;            // hw.perflevelN.physicalcpu
    long l1d = 0, l2 = 0;      // bytes: hw.perflevelN.l1dcachesize, .l2cachesize
    long cores_per_l2 = 0;     // hw.perflevelN.cpusperl2
};
// Parses what `sysctl` gives for those keys ("" when missing); pure, so tests run it anywhere.
std::vector<CoreKind> core_kinds_from(std::string (*sysctl)(const char* key));
const std::vector<CoreKind>& core_kinds();   // this machine's (macOS), else empty
// "8 Performance (L1d 128 KiB, L2 16 MiB per 4 cores), 4 Efficiency (...)"; "" when none.
std::string core_kinds_line(const std::vector<CoreKind>& kinds);
std::vector<int> allowed_cpus();   // the logical CPUs this process may run on, by number
int cores();               // how many: allowed_cpus().size()
const char* arch();        // "x86_64", "aarch64" or "unknown"

}  // namespace gemm::cpu
