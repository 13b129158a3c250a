#include "kernel_choice.hpp"

#include <gemm/cpu.hpp>

#include <algorithm>
#include <cctype>
#include <initializer_list>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace gemm::ref {
namespace {

std::string lower(std::string_view text) {
    std::string s(text);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool one_of(const std::string& name, std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}

int rank(std::string_view isa) {
    if (isa == "avx512") return 4;
    if (isa == "avx2") return 3;
    if (isa == "avx") return 2;
    if (isa == "sse") return 1;
    return 0;
}

}  // namespace

std::string isa_of(Library lib, std::string_view kernel_set) {
    const std::string k = lower(kernel_set);
    if (lib == Library::openblas) {
        // OpenBLAS's x86-64 targets (driver/others/dynamic.c) and their widest kernels.
        if (one_of(k, {"skylakex", "cooperlake", "sapphirerapids"})) return "avx512";
        if (one_of(k, {"haswell", "zen", "excavator"})) return "avx2";
        if (one_of(k, {"sandybridge", "bulldozer", "piledriver", "steamroller"})) return "avx";
        if (one_of(k, {"katmai", "coppermine", "northwood", "prescott", "banias", "atom", "core2", "penryn",
                       "dunnington", "nehalem", "athlon", "opteron", "opteron_sse3", "barcelona", "bobcat",
                       "nano"}))
            return "sse";
        if (one_of(k, {"armv8", "cortexa53", "cortexa57", "cortexa72", "cortexa73", "neoversen1", "thunderx",
                       "thunderx2t99", "tsv110", "emag8180", "falkor", "vortex", "cortexa55"}))
            return "neon";
        if (one_of(k, {"neoversev1", "neoversen2", "armv8sve", "a64fx"})) return "sve";
        return "unknown";
    }
    // BLIS's configurations (config_registry); zen4 and zen5 exist from 0.9.1/1.0 on.
    if (one_of(k, {"skx", "knl", "zen4", "zen5"})) return "avx512";
    if (one_of(k, {"haswell", "zen", "zen2", "zen3", "excavator"})) return "avx2";
    if (one_of(k, {"sandybridge", "bulldozer", "piledriver", "steamroller"})) return "avx";
    if (one_of(k, {"penryn"})) return "sse";
    if (one_of(k, {"cortexa53", "cortexa57", "thunderx2", "firestorm", "cortexa9", "cortexa15"})) return "neon";
    if (one_of(k, {"armsve", "a64fx"})) return "sve";
    if (k == "generic") return "generic";
    return "unknown";
}

CpuVectors cpu_vectors() {
    CpuVectors v;
    v.avx2_fma = cpu::has_avx2_fma();
    v.avx = cpu::has_avx();
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (cpu::has_avx512f() && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        const bool cd = (b >> 28) & 1, bw = (b >> 30) & 1, dq = (b >> 17) & 1, vl = (b >> 31) & 1;
        v.avx512 = cd && bw && dq && vl;
    }
#endif
    return v;
}

Choice choose(Library lib, std::string_view detected, const CpuVectors& cpu, const char* user_value,
              bool as_detected) {
    Choice c;
    c.env_var = lib == Library::openblas ? "OPENBLAS_CORETYPE" : "BLIS_ARCH_TYPE";
    if (user_value != nullptr) {
        c.reason = "as " + c.env_var + "=" + user_value + " asks";
        return c;
    }
    if (as_detected) {
        c.reason = "as the library detected (--as-detected)";
        return c;
    }
    const std::string widest = cpu.avx512 ? "avx512" : cpu.avx2_fma ? "avx2" : cpu.avx ? "avx" : "";
    const std::string has = isa_of(lib, detected);
    if (widest.empty() || rank(has) >= rank(widest)) {
        c.reason = "the library's own choice";
        return c;
    }
    // The set each library ships for the widest ISA this CPU has. OpenBLAS's Cooperlake and
    // SapphireRapids add bfloat16 and AMX routines; their sgemm is SkylakeX's.
    if (lib == Library::openblas)
        c.kernel_set = widest == "avx512" ? "SkylakeX" : widest == "avx2" ? "Haswell" : "Sandybridge";
    else
        c.kernel_set = widest == "avx512" ? "skx" : widest == "avx2" ? "haswell" : "sandybridge";
    c.change = true;
    c.reason = "the library detected " + std::string(detected) + " (" + (has == "unknown" ? "?" : has) +
               ") on a CPU with " + widest + ": using its " + c.kernel_set + " kernels";
    return c;
}

}  // namespace gemm::ref
