#include <gemm/cpu.hpp>
#include <gemm/numbers.hpp>

#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#define GEMM_X86 1
#endif
#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

// The OpenMP runtime's places, when the program links one (weak: null without it).
extern "C" {
int omp_get_num_places() __attribute__((weak));
int omp_get_place_num_procs(int place) __attribute__((weak));
void omp_get_place_proc_ids(int place, int* ids) __attribute__((weak));
}

namespace gemm::cpu {
namespace {

#if defined(GEMM_X86)
// XCR0: the register states the OS saves. A CPU's AVX-512 faults unless the OS enables it too.
unsigned long long xgetbv0() {
    unsigned eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif

Features detect_features() {
    Features f;
#if defined(GEMM_X86)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
    f.sse2 = (d >> 26) & 1;
    const bool osxsave = (c >> 27) & 1;
    const bool cpu_avx = (c >> 28) & 1;
    const bool cpu_fma = (c >> 12) & 1;
    const unsigned long long xcr0 = osxsave ? xgetbv0() : 0;
    const bool os_ymm = (xcr0 & 0x6) == 0x6;      // SSE and AVX state
    const bool os_zmm = (xcr0 & 0xe6) == 0xe6;    // plus opmask, ZMM0-15 upper, ZMM16-31
    f.sse3 = c & 1;
    f.ssse3 = (c >> 9) & 1;
    f.sse4_1 = (c >> 19) & 1;
    f.avx = cpu_avx && os_ymm;
    f.fma = cpu_fma && os_ymm;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        const auto zmm = [&](int bit) { return ((b >> bit) & 1) && os_zmm; };
        f.avx2 = ((b >> 5) & 1) && os_ymm;
        f.avx512f = zmm(16), f.avx512dq = zmm(17), f.avx512pf = zmm(26), f.avx512er = zmm(27);
        f.avx512cd = zmm(28), f.avx512bw = zmm(30), f.avx512vl = zmm(31);
    }
    if (__get_cpuid(0x80000001, &a, &b, &c, &d)) {
        f.fma4 = ((c >> 16) & 1) && os_ymm;
        f.amd3dnow = (d >> 31) & 1;
    }
#elif defined(__aarch64__)
#if defined(__linux__)
    f.neon = (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#if defined(HWCAP_SVE)
    f.sve = (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#endif
#else
    f.neon = true;  // Advanced SIMD is mandatory on AArch64
#endif
#endif
    return f;
}

// The first word of a file, "" when it is missing.
[[maybe_unused]] std::string read_word(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    in >> text;
    return text;
}

// A count as sysfs and sysctl write it ("2", "32K"); 0 for anything else.
long to_long(const std::string& text) {
    long long value = 0;
    return parse_bytes("", text, 0, 1LL << 40, value).empty() ? static_cast<long>(value) : 0;
}

// Caches whose two inner levels are known, found by `source`.
[[maybe_unused]] bool found(Caches& k, const char* source) {
    if (k.l1d <= 0 || k.l2 <= 0) return false;
    k.source = source;
    return true;
}

#if defined(__APPLE__)
// A sysctl value as text: numbers (4 or 8 bytes) in decimal, strings as they are; "" when missing.
std::string sysctl_text(const char* key) {
    char buf[256] = {};
    size_t len = sizeof buf - 1;
    if (sysctlbyname(key, buf, &len, nullptr, 0) != 0 || len == 0) return "";
    if (len == 4 || len == 8) {   // a number, unless it is text of that length
        bool text = buf[len - 1] == '\0';
        for (size_t i = 0; text && i + 1 < len; ++i) text = buf[i] >= 0x20 && buf[i] < 0x7f;
        if (!text) {
            int v32 = 0;
            long long v64 = 0;
            std::memcpy(len == 4 ? static_cast<void*>(&v32) : &v64, buf, len);
            return std::to_string(len == 4 ? v32 : v64);
        }
    }
    return std::string(buf, strnlen(buf, len));
}
long sysctl_long(const char* key) { return std::strtol(sysctl_text(key).c_str(), nullptr, 10); }
#endif

Caches detect_caches() {
    Caches k;
#if defined(__linux__)
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        const long level = to_long(read_word(dir + "level"));
        if (level == 0) break;
        if (read_word(dir + "type") == "Instruction") continue;
        const long size = to_long(read_word(dir + "size"));
        if (level == 1) k.l1d = size;
        if (level == 2) k.l2 = size;
        if (level == 3) k.l3 = size;
    }
    if (found(k, "sysfs")) return k;
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    k = Caches{sysconf(_SC_LEVEL1_DCACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE),
               std::max(0L, sysconf(_SC_LEVEL3_CACHE_SIZE)), ""};
    if (found(k, "sysconf")) return k;
#endif
#elif defined(__APPLE__)
    // Apple silicon: the plain keys are the efficiency cores'; the steps run on the performance
    // cores, hw.perflevel0. No L3 is reported (the system level cache is not the cores').
    const std::vector<CoreKind>& kinds = core_kinds();
    const long l3 = std::max(0L, sysctl_long("hw.l3cachesize"));
    if (!kinds.empty() && kinds[0].l1d > 0 && kinds[0].l2 > 0)
        return Caches{kinds[0].l1d, kinds[0].l2, l3, "sysctl hw.perflevel0 (" + kinds[0].name + " cores)"};
    k = Caches{sysctl_long("hw.l1dcachesize"), sysctl_long("hw.l2cachesize"), l3, ""};
    if (found(k, "sysctl")) return k;
#endif
    return Caches{32 * 1024, 256 * 1024, 8 * 1024 * 1024,
                  "default (32 KiB L1d, 256 KiB L2, 8 MiB L3: detection failed)"};
}

// GEMM_CACHES (docs/contracts.md, "Other cache sizes"): "" and `k` set, or the problem, which
// every program reports after its --help and before it prints anything.
std::string caches_from_environment(Caches& k) {
    const char* text = std::getenv("GEMM_CACHES");
    if (text == nullptr) return "";
    const std::string value = text;
    const std::string whole = "GEMM_CACHES " + quoted("", value.size() > 60 ? value.substr(0, 60) + "..." : value);
    if (std::count(value.begin(), value.end(), ',') != 2)   // "a,b,c," has four fields
        return whole + ": want three sizes L1D,L2,L3 such as 32K,512K,32M";
    const std::size_t c1 = value.find(','), c2 = value.find(',', c1 + 1);
    const std::string fields[3] = {value.substr(0, c1), value.substr(c1 + 1, c2 - c1 - 1), value.substr(c2 + 1)};
    // At most 1G, 16G and 1T: every rule of the caches stays within 64 bits however it multiplies.
    const char* names[3] = {"L1D", "L2", "L3"};
    const long long lowest[3] = {1LL << 10, 1LL << 10, 0}, highest[3] = {1LL << 30, 1LL << 34, 1LL << 40};
    long long sizes[3] = {};
    for (int i = 0; i < 3; ++i)
        if (const std::string problem = parse_bytes(names[i], fields[i], lowest[i], highest[i], sizes[i]);
            !problem.empty())
            return whole + ": " + problem;
    k = Caches{static_cast<long>(sizes[0]), static_cast<long>(sizes[1]), static_cast<long>(sizes[2]), "GEMM_CACHES"};
    return "";
}

// The caches in effect and GEMM_CACHES's problem, if any (the detected sizes then stand).
const std::pair<Caches, std::string>& caches_and_problem() {
    static const std::pair<Caches, std::string> k = [] {
        Caches given;   // its source is set only by a well-formed GEMM_CACHES
        std::string problem = caches_from_environment(given);
        return std::pair{given.source.empty() ? detect_caches() : given, problem};
    }();
    return k;
}

std::string detect_name() {
#if defined(GEMM_X86)
    unsigned regs[12] = {};
    unsigned max_ext = __get_cpuid_max(0x80000000, nullptr);
    if (max_ext >= 0x80000004) {
        for (unsigned i = 0; i < 3; ++i)
            __get_cpuid(0x80000002 + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
        std::string brand(reinterpret_cast<const char*>(regs), sizeof regs);
        brand = brand.c_str();  // cut at the first NUL
        const auto first = brand.find_first_not_of(' ');
        const auto last = brand.find_last_not_of(' ');
        if (first != std::string::npos) return brand.substr(first, last - first + 1);
    }
#endif
#if defined(__linux__)
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos || colon + 2 > line.size()) continue;
        for (const char* key : {"model name", "Model", "Hardware"})
            if (line.rfind(key, 0) == 0) return line.substr(colon + 2);
    }
#elif defined(__APPLE__)
    if (std::string brand = sysctl_text("machdep.cpu.brand_string"); !brand.empty()) return brand;
#endif
    return std::string("unknown ") + arch() + " CPU";
}

Identity detect_identity() {
    Identity id;
#if defined(GEMM_X86)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return id;
    char vendor[13] = {};
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &d, 4);
    std::memcpy(vendor + 8, &c, 4);
    id.vendor = vendor;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return id;
    const int base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    id.stepping = a & 0xf;
    // The display family and model: the extended fields count for family 15, and 6 (model).
    id.family = base_family == 0xf ? base_family + static_cast<int>((a >> 20) & 0xff) : base_family;
    id.model = (base_family == 0x6 || base_family == 0xf) ? (static_cast<int>((a >> 16) & 0xf) << 4) + base_model
                                                          : base_model;
#elif defined(__aarch64__) && defined(__APPLE__)
    // No MIDR on macOS: Apple's implementer (0x61) and hw.cpufamily, a number per core design.
    id.vendor = "apple";
    id.family = 0x61;
    id.model = static_cast<int>(static_cast<unsigned>(sysctl_long("hw.cpufamily")));
#elif defined(__aarch64__) && defined(__linux__)
    // MIDR_EL1 as the kernel shows it: "CPU implementer : 0x41", "CPU part : 0xd0c".
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string value = line.substr(colon + 1);
        auto hex = [&] { return static_cast<int>(std::strtol(value.c_str(), nullptr, 0)); };
        if (line.rfind("CPU implementer", 0) == 0 && id.vendor.empty()) {
            id.family = hex();
            id.vendor = id.family == 0x41 ? "arm" : id.family == 0x61 ? "apple" : "implementer " + value;
        } else if (line.rfind("CPU part", 0) == 0 && id.model == 0) {
            id.model = hex();
        }
    }
#endif
    return id;
}

// The table, from the vendors' optimisation manuals and published port layouts: fp32 FLOPs per
// core and cycle (a 128-bit vector holds 4 floats, an FMA counts 2).

// Intel family 6: two pipes (ports 0 and 1) before Golden Cove; from it three (FMA on ports 0
// and 1, adders on 1 and 5), with as many load ports.
struct IntelCore {
    int models[6];   // 0: none
    const char* name;
    int pipes;   // 2 or 3: mulss+addss a cycle, and loads
    double avx512;
    const char* words;
};
constexpr const char* kTwo256 = "two 256-bit FMA pipes (ports 0 and 1)";
constexpr const char* kOne512 = "one 512-bit FMA unit (ports 0+1 fused)";
constexpr const char* kTwo512 = "two 512-bit FMA units (ports 0+1 fused, and port 5)";
constexpr const char* kTwo512Adders = "two 512-bit FMA units (ports 0+1 fused, and port 5); adders on ports 1 and 5";
// Hybrid: the performance cores' figures; the efficient cores have half.
constexpr const char* kHybrid =
    "performance cores: two 256-bit FMA pipes, adders on ports 1 and 5 (efficient cores: half)";
constexpr IntelCore kIntel[] = {
    {{0x3c, 0x3f, 0x45, 0x46}, "Haswell", 2, 0, kTwo256},
    {{0x3d, 0x47, 0x4f, 0x56}, "Broadwell", 2, 0, kTwo256},
    {{0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6}, "Skylake (client)", 2, 0, kTwo256},
    // Named by stepping in classify(); a second 512-bit FMA unit by SKU, which CPUID does not say.
    {{0x55}, "Skylake-SP", 2, 64, "two 512-bit FMA units (ports 0+1 fused, and port 5) on most parts, one on some"},
    {{0x6a, 0x6c}, "Ice Lake-SP", 2, 64, kTwo512},
    {{0x7d, 0x7e}, "Ice Lake (client)", 2, 32, kOne512},
    {{0x8c, 0x8d}, "Tiger Lake", 2, 32, kOne512},
    {{0xa7}, "Rocket Lake", 2, 32, kOne512},
    {{0x8f}, "Sapphire Rapids", 3, 64, kTwo512Adders},
    {{0xcf}, "Emerald Rapids", 3, 64, kTwo512Adders},
    {{0xad, 0xae}, "Granite Rapids", 3, 64, kTwo512Adders},
    {{0x97, 0x9a}, "Alder Lake", 3, 0, kHybrid},
    {{0xb7, 0xba, 0xbf}, "Raptor Lake", 3, 0, kHybrid},
    {{0x57}, "Knights Landing", 2, 64, "two 512-bit FMA units"},
    {{0x85}, "Knights Mill", 2, 64, "two 512-bit FMA units"},
};

// AMD Zen (and Hygon): two FMA/multiply and two add pipes. Loads that feed the vector unit: two
// a cycle on Zen, Zen 2 and (for FMAs with a broadcast memory operand) Zen 5, three on Zen 3 and 4.
// The first row of the family whose models (nullptr: all) hold the core's is it.
struct ZenCore {
    int family;
    bool (*models)(int model);
    const char* name;
    double avx, avx2, avx512;
    const char* words;
    int loads;
};
constexpr ZenCore kZen[] = {
    {0x17, [](int m) { return m < 0x30; }, "Zen", 16, 16, 0,
     "two 128-bit FMA pipes and two add pipes: 256-bit work in two halves", 2},
    {0x18, nullptr, "Zen (Hygon Dhyana)", 16, 16, 0, "two 128-bit FMA pipes and two add pipes", 2},
    {0x17, nullptr, "Zen 2", 32, 32, 0, "two 256-bit FMA pipes and two 256-bit add pipes", 2},
    {0x19, [](int m) { return (m >= 0x10 && m <= 0x1f) || (m >= 0x60 && m <= 0x7f) || (m >= 0xa0 && m <= 0xaf); },
     "Zen 4", 32, 32, 32,
     "two 256-bit FMA pipes and two add pipes; a 512-bit FMA runs as two halves, so AVX-512 and AVX2 peaks are equal",
     3},
    {0x19, nullptr, "Zen 3", 32, 32, 0, "two 256-bit FMA pipes and two 256-bit add pipes", 3},
    {0x1a, [](int m) { return (m >= 0x20 && m <= 0x2f) || (m >= 0x60 && m <= 0x6f); }, "Zen 5 (mobile)", 32, 32, 32,
     "two 256-bit FMA pipes and two add pipes; mobile Zen 5 runs a 512-bit FMA as two halves", 2},
    {0x1a, nullptr, "Zen 5", 32, 32, 64,
     "two full 512-bit FMA pipes and two 512-bit add pipes (desktop and server Zen 5)", 2},
};

// Arm cores by MIDR part: two or four 128-bit FMA pipes.
struct ArmCore { int part; const char* name; int fma_pipes; };
constexpr ArmCore kArm[] = {
    {0xd0b, "Cortex-A76", 2}, {0xd0c, "Neoverse N1", 2}, {0xd41, "Cortex-A78", 2}, {0xd49, "Neoverse N2", 2},
    {0xd40, "Neoverse V1", 4}, {0xd4f, "Neoverse V2", 4}, {0xd44, "Cortex-X1", 4},
};

}  // namespace

Microarch classify(const Identity& id) {
    const int f = id.family, m = id.model;
    if (id.vendor == "GenuineIntel" && f == 6) {
        for (const IntelCore& c : kIntel) {
            if (m == 0 || std::find(std::begin(c.models), std::end(c.models), m) == std::end(c.models)) continue;
            const double n = c.pipes;
            Microarch u{c.name, n, 4 * n, 8 * n, 32, c.avx512, 0, false, c.words, c.pipes};
            if (m == 0x55) {   // stepping 0-4 Skylake-SP, 5-7 Cascade Lake, 10-11 Cooper Lake
                u.name = id.stepping >= 10 ? "Cooper Lake" : id.stepping >= 5 ? "Cascade Lake" : "Skylake-SP";
                u.avx512_width_varies = true;
            }
            return u;
        }
    } else if (id.vendor == "AuthenticAMD" || id.vendor == "HygonGenuine") {
        for (const ZenCore& c : kZen)
            if (c.family == f && (c.models == nullptr || c.models(m)))
                return {c.name, 4, 16, c.avx, c.avx2, c.avx512, 0, false, c.words, c.loads};
    } else if (id.vendor == "arm") {
        for (const ArmCore& c : kArm)
            if (c.part == m)
                return {c.name, 2.0 * c.fma_pipes, 0, 0, 0, 0, 8.0 * c.fma_pipes, false,
                        c.fma_pipes == 2 ? "two 128-bit FMA pipes" : "four 128-bit FMA pipes"};
    } else if (id.vendor == "apple") {
        // The M-series performance cores. The model is hw.cpufamily (CPUFAMILY_ARM_*) or, under
        // Linux, MIDR's part; a design not named here is still an M-series core.
        const unsigned family = static_cast<unsigned>(m);
        const char* name = family == 0x1b588bb3u ? "Apple M1 (Firestorm)"
                         : family == 0xda33d83du ? "Apple M2 (Avalanche)" : "Apple M-series";
        return {name, 8, 0, 0, 0, 0, 32, false, "four 128-bit FMA pipes (performance cores; efficiency cores: fewer)"};
    }
    return {};
}

const Features& features() {
    static const Features f = detect_features();
    return f;
}

bool has_sse2() { return features().sse2; }
bool has_avx() { return features().avx; }
bool has_avx2_fma() { return features().avx2 && features().fma; }
bool has_avx512f() { return features().avx512f && features().fma; }
bool has_neon() { return features().neon; }

const Identity& identity() {
    static const Identity id = detect_identity();
    return id;
}

const Microarch& microarch() {
    static const Microarch u = classify(identity());
    return u;
}

std::string microarch_label() {
    if (!microarch().name.empty()) return microarch().name;
    const Identity& id = identity();
    if (id.vendor.empty()) return "";
    return id.vendor + " family " + std::to_string(id.family) + " model " + std::to_string(id.model);
}

MachineLines machine_lines() {
    const Identity& id = identity();
    // The vendor as one word: a space or control character would move the fields along the line.
    std::string vendor;
    for (const char c : id.vendor)
        if (static_cast<unsigned char>(c) > 0x20 && c != 0x7f) vendor += c;
        else if (c == ' ' && !vendor.empty()) vendor += '_';
    while (!vendor.empty() && vendor.back() == '_') vendor.pop_back();
    const std::string uarch = shown(microarch_label());
    const Caches& c = caches();
    return {"cpu " + (vendor.empty() ? std::string("unknown") : vendor) + ' ' + std::to_string(id.family) + ' ' +
                std::to_string(id.model) + ' ' + (uarch.empty() ? std::string("unknown") : uarch),
            "caches " + std::to_string(c.l1d) + ' ' + std::to_string(c.l2) + ' ' + std::to_string(c.l3)};
}

const Caches& caches() { return caches_and_problem().first; }
const std::string& caches_problem() { return caches_and_problem().second; }

std::string name() {
    static const std::string n = detect_name();
    return n;
}

std::vector<CoreKind> core_kinds_from(std::string (*sysctl)(const char* key)) {
    std::vector<CoreKind> kinds;
    auto number = [&](const std::string& key) { return to_long(sysctl(key.c_str())); };
    const long levels = number("hw.nperflevels");
    for (long level = 0; level < std::min(levels, 8L); ++level) {
        const std::string key = "hw.perflevel" + std::to_string(level) + ".";
        CoreKind kind{sysctl((key + "name").c_str()), number(key + "physicalcpu"), number(key + "l1dcachesize"),
                      number(key + "l2cachesize"), number(key + "cpusperl2")};
        if (kind.name.empty()) kind.name = level == 0 ? "Performance" : "Efficiency";
        if (kind.cores <= 0) break;
        kinds.push_back(kind);
    }
    return kinds;
}

const std::vector<CoreKind>& core_kinds() {
#if defined(__APPLE__)
    static const std::vector<CoreKind> kinds = core_kinds_from(sysctl_text);
#else
    static const std::vector<CoreKind> kinds;
#endif
    return kinds;
}

std::string core_kinds_line(const std::vector<CoreKind>& kinds) {
    auto size = [](long b) {
        return b % (1 << 20) == 0 ? std::to_string(b >> 20) + " MiB" : std::to_string(b >> 10) + " KiB";
    };
    std::string line;
    for (const CoreKind& k : kinds)
        line += (line.empty() ? "" : ", ") + std::to_string(k.cores) + ' ' + k.name + " (L1d " + size(k.l1d) + ", L2 " +
                size(k.l2) + (k.cores_per_l2 > 1 ? " per " + std::to_string(k.cores_per_l2) + " cores" : "") + ")";
    return line;
}

std::vector<int> allowed_cpus() {
    std::vector<int> cpus;
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) CPU_ZERO(&set);
    // With OMP_PROC_BIND or OMP_PLACES the runtime pins the main thread to its first place as
    // the program starts; the places, made from the starting mask, hold the usable CPUs.
    if (omp_get_num_places != nullptr && omp_get_place_num_procs != nullptr && omp_get_place_proc_ids != nullptr) {
        for (int place = 0; place < omp_get_num_places(); ++place) {
            std::vector<int> ids(static_cast<std::size_t>(std::max(0, omp_get_place_num_procs(place))));
            if (!ids.empty()) omp_get_place_proc_ids(place, ids.data());
            for (int c : ids)
                if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
        }
    }
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
#endif
    if (cpus.empty()) {
        const unsigned n = std::thread::hardware_concurrency();
        for (unsigned c = 0; c < (n > 0 ? n : 1); ++c) cpus.push_back(static_cast<int>(c));
    }
    return cpus;
}

int cores() { return static_cast<int>(allowed_cpus().size()); }

const char* arch() {
#if defined(GEMM_X86)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#else
    return "unknown";
#endif
}

}  // namespace gemm::cpu
