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
    // What the BLAS libraries' kernel sets need beyond these (tools/ref/kernel_choice.cpp):
    bool sse3 = false, ssse3 = false, sse4_1 = false;
    bool avx512cd = false, avx512bw = false, avx512dq = false, avx512vl = false;
    bool avx512er = false, avx512pf = false;   // Xeon Phi (Knights Landing) only
    bool fma4 = false;     // AMD Bulldozer family
    bool amd3dnow = false; // AMD K7 to K10
    bool sve = false;      // AArch64 Scalable Vector Extension
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
    std::string source;    // "sysfs", "sysconf", "sysctl", "GEMM_CACHES" or "default (...)"
};
// GEMM_CACHES=L1D,L2,L3 stands in for the detected sizes (docs/contracts.md, "Other cache
// sizes"). A malformed value leaves the detected sizes in place and is reported by
// caches_problem(): "GEMM_CACHES '32K,512K': want three sizes ...", or "" when there is none,
// which every program checks (gemm::environment_problem()) once --help had its chance.
const Caches& caches();
const std::string& caches_problem();

// The block sizes of the steps' cache rules (kc, mc, nc, one slice ...) and the values
// --NAME N takes: at most 65536, which is above any size the harness runs (kMaxSize, 46340),
// so a larger block would change nothing but the chance of overflowing an int.
constexpr int kMaxBlock = 1 << 16;
// A block size from a cache rule: `value`, computed by the caller in 64 bits from cache sizes
// of up to a terabyte, rounded down to a multiple of `unit` (a register tile's rows, 16 for a
// depth) and held to [unit, kMaxBlock rounded down to a multiple of unit]. A tiny cache gives
// one unit, never 0 (which looped for ever or divided by zero), a huge one the cap, never an
// int that wrapped round.
constexpr int block_size(long long value, int unit) {
    const long long top = kMaxBlock / unit * unit, rounded = value / unit * unit;
    return static_cast<int>(rounded < unit ? unit : rounded > top ? top : rounded);
}

std::string name();        // "AMD EPYC 9B14 96-Core Processor"

// Who made the core and which one it is: CPUID's vendor string and display family/model on
// x86-64 (family 25 model 17 is "AMD family 0x19 model 0x11"), MIDR's implementer and part
// on AArch64 (family = implementer, model = part).
struct Identity {
    std::string vendor;    // "AuthenticAMD", "GenuineIntel", "arm" ..., or "" when unknown
    int family = 0;
    int model = 0;
    int stepping = 0;
};
const Identity& identity();

// What the microarchitecture's FP pipes can do, per core and cycle, in fp32 FLOPs for each
// loop the peak meter times (tools/peak): scalar mulss+addss (AArch64: fmadd), sse
// mulps+addps, avx vmulps+vaddps, avx2 256-bit FMA, avx512 512-bit FMA, neon 128-bit FMLA.
// 0 means "not known for this core". CPUID reports none of this: it is a table of published
// facts, keyed by vendor, family and model (cpu.cpp).
struct Microarch {
    std::string name;              // "Zen 4", "Emerald Rapids"; "" when not in the table
    double scalar = 0, sse = 0, avx = 0, avx2 = 0, avx512 = 0, neon = 0;
    // Parts of one model that differ in their 512-bit FMA units (Xeon Skylake-SP: one or two
    // units by SKU): the meter decides from the measured 512-bit / 256-bit ratio.
    bool avx512_width_varies = false;
    std::string pipes;             // the assumption in words, for reports
    // Loads a core starts per cycle (0: not in the table). A 512-bit FMA that reads its
    // broadcast operand from memory takes a load port as well as an FMA unit, so two load
    // ports cannot feed two such FMAs a cycle plus the other loads (step 10's fold_broadcast).
    int loads = 0;
};
Microarch classify(const Identity& id);   // pure: the table lookup, for tests
const Microarch& microarch();             // classify(identity())
// "Emerald Rapids", else "GenuineIntel family 6 model 207": what figures and CSVs name.
std::string microarch_label();
// This machine as values tuned on it record where they were measured: the two lines step 10's
// wisdom file starts with and compares (docs/contracts.md, "Wisdom (step 10)"), which
// `cpuinfo --identity` prints. One function for both, so that they never disagree:
//     cpu GenuineIntel 6 207 Emerald Rapids     vendor (one word: "unknown" when the CPU does
//                                               not say), family, model, microarch_label()
//     caches 49152 2097152 314572800            caches() in bytes (after GEMM_CACHES)
struct MachineLines {
    std::string cpu, caches;   // without a newline
};
MachineLines machine_lines();
// The kinds of core a hybrid chip has, as macOS describes them (sysctl hw.nperflevels and
// hw.perflevelN.*: N = 0 the performance cores, then the efficiency cores); empty elsewhere.
// On Apple silicon the caches above are the performance cores' (hw.perflevel0), their L2
// shared by cores_per_l2 of them; the efficiency cores have smaller ones and fewer FP pipes.
struct CoreKind {
    std::string name;          // "Performance", "Efficiency" (hw.perflevelN.name)
    long cores = 0;            // hw.perflevelN.physicalcpu
    long l1d = 0, l2 = 0;      // bytes: hw.perflevelN.l1dcachesize, .l2cachesize
    long cores_per_l2 = 0;     // hw.perflevelN.cpusperl2
};
// Parses what `sysctl` gives for those keys (its text value, "" when the key is missing); pure,
// so that the tests run it on a Mac's values anywhere.
std::vector<CoreKind> core_kinds_from(std::string (*sysctl)(const char* key));
const std::vector<CoreKind>& core_kinds();   // this machine's (macOS), else empty
// "8 Performance (L1d 128 KiB, L2 16 MiB per 4 cores), 4 Efficiency (...)"; "" when none.
std::string core_kinds_line(const std::vector<CoreKind>& kinds);
std::vector<int> allowed_cpus();   // the logical CPUs this process may run on, by number
int cores();               // how many: allowed_cpus().size()
const char* arch();        // "x86_64", "aarch64" or "unknown"

}  // namespace gemm::cpu
