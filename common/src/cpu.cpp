#include <gemm/cpu.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

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

namespace gemm::cpu {
namespace {

#if defined(GEMM_X86)
// XCR0: which register states the OS saves on a context switch. A CPU may have AVX-512
// while the OS does not enable it; using it then faults, so both must agree.
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
    f.avx = cpu_avx && os_ymm;
    f.fma = cpu_fma && os_ymm;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        f.avx2 = ((b >> 5) & 1) && os_ymm;
        f.avx512f = ((b >> 16) & 1) && os_zmm;
    }
#elif defined(__aarch64__)
#if defined(__linux__)
    f.neon = (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#else
    f.neon = true;  // Advanced SIMD is mandatory on AArch64
#endif
#endif
    return f;
}

long read_long(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text.empty()) return 0;
    long value = 0;
    try {
        value = std::stol(text);
    } catch (...) {
        return 0;
    }
    const char unit = text.back();
    if (unit == 'K') value *= 1024;
    if (unit == 'M') value *= 1024 * 1024;
    return value;
}

std::string read_word(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    in >> text;
    return text;
}

Caches detect_caches() {
    Caches k;
#if defined(__linux__)
    for (int index = 0; index < 8; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        const long level = read_long(dir + "level");
        if (level == 0) break;
        const std::string type = read_word(dir + "type");
        if (type == "Instruction") continue;
        const long size = read_long(dir + "size");
        if (level == 1) k.l1d = size;
        if (level == 2) k.l2 = size;
        if (level == 3) k.l3 = size;
    }
    if (k.l1d > 0 && k.l2 > 0) {
        k.source = "sysfs";
        return k;
    }
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    k.l1d = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    k.l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    k.l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (k.l1d > 0 && k.l2 > 0) {
        if (k.l3 < 0) k.l3 = 0;
        k.source = "sysconf";
        return k;
    }
#endif
#elif defined(__APPLE__)
    auto get = [](const char* key) {
        long long v = 0;
        size_t len = sizeof v;
        return sysctlbyname(key, &v, &len, nullptr, 0) == 0 ? static_cast<long>(v) : 0L;
    };
    k.l1d = get("hw.l1dcachesize");
    k.l2 = get("hw.l2cachesize");
    k.l3 = get("hw.l3cachesize");
    if (k.l1d > 0 && k.l2 > 0) {
        k.source = "sysctl";
        return k;
    }
#endif
    k = Caches{32 * 1024, 256 * 1024, 8 * 1024 * 1024,
               "default (32 KiB L1d, 256 KiB L2, 8 MiB L3: detection failed)"};
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
    std::string line;
    while (std::getline(in, line)) {
        for (const char* key : {"model name", "Model", "Hardware"}) {
            if (line.rfind(key, 0) == 0) {
                const auto colon = line.find(':');
                if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
            }
        }
    }
#elif defined(__APPLE__)
    char buf[256] = {};
    size_t len = sizeof buf - 1;
    if (sysctlbyname("machdep.cpu.brand_string", buf, &len, nullptr, 0) == 0) return buf;
#endif
    return std::string("unknown ") + arch() + " CPU";
}

}  // namespace

const Features& features() {
    static const Features f = detect_features();
    return f;
}

bool has_sse2() { return features().sse2; }
bool has_avx() { return features().avx; }
bool has_avx2_fma() { return features().avx2 && features().fma; }
bool has_avx512f() { return features().avx512f && features().fma; }
bool has_neon() { return features().neon; }

const Caches& caches() {
    static const Caches k = detect_caches();
    return k;
}

std::string name() {
    static const std::string n = detect_name();
    return n;
}

std::vector<int> allowed_cpus() {
    std::vector<int> cpus;
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
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
