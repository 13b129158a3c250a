#include "kernel_choice.hpp"

#include <algorithm>
#include <cctype>
#include <span>
#include <utility>

namespace gemm::ref {

std::string lower(std::string_view text) {
    std::string s(text);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

namespace {

// What a kernel set's code needs from the CPU, one bit each.
enum Need : unsigned {
    kSse2 = 1u << 0, kSse3 = 1u << 1, kSsse3 = 1u << 2, kSse41 = 1u << 3, kAvx = 1u << 4, kFma3 = 1u << 5,
    kAvx2 = 1u << 6,
    kAvx512 = 1u << 7,      // F, CD, BW, DQ and VL: Skylake-SP and later, Zen 4 and later
    kAvx512Phi = 1u << 8,   // F, CD, ER and PF: Xeon Phi (Knights Landing and Mill)
    kFma4 = 1u << 9,        // AMD's Bulldozer family (which alone has XOP too)
    k3dNow = 1u << 10,      // AMD's K7 to K10
    kNeon = 1u << 11, kSve = 1u << 12,
    kForeign = 1u << 13,    // another architecture: POWER, 32-bit ARM, Knights Corner, RISC-V
};

// Each need as a message names it, in the order of the bits.
constexpr const char* kNeedNames[] = {"SSE2", "SSE3", "SSSE3", "SSE4.1", "AVX", "FMA3", "AVX2",
                                      "AVX-512 (F, CD, BW, DQ, VL)", "AVX-512 ER and PF (Xeon Phi)",
                                      "FMA4 (AMD Bulldozer family)", "3DNow! (AMD K8 to K10)", "NEON",
                                      "SVE", "another architecture"};

struct KernelSet {
    const char* name;
    unsigned needs;
};

constexpr unsigned kAvx512Set = kAvx512 | kAvx2 | kFma3 | kAvx;
constexpr unsigned kAvx2Set = kAvx2 | kFma3 | kAvx;
constexpr unsigned kSse41Set = kSse41 | kSsse3 | kSse3 | kSse2;

// OpenBLAS's targets as OPENBLAS_CORETYPE names them (driver/others/dynamic.c, dynamic_arm64.c),
// each with the instructions of its sgemm kernels and at least what every CPU it is named after has.
constexpr KernelSet kOpenblasSets[] = {
    {"SapphireRapids", kAvx512Set}, {"Cooperlake", kAvx512Set}, {"SkylakeX", kAvx512Set},
    {"Haswell", kAvx2Set}, {"Zen", kAvx2Set},
    {"Sandybridge", kAvx},
    {"Bulldozer", kAvx | kFma4}, {"Piledriver", kAvx | kFma3 | kFma4}, {"Steamroller", kAvx | kFma3 | kFma4},
    {"Excavator", kAvx2Set | kFma4},
    {"Nehalem", kSse41Set}, {"Dunnington", kSse41Set}, {"Penryn", kSse41Set},
    {"Core2", kSsse3 | kSse3 | kSse2}, {"Atom", kSsse3 | kSse3 | kSse2}, {"Bobcat", kSsse3 | kSse3 | kSse2},
    {"Prescott", kSse3 | kSse2}, {"Nano", kSse3 | kSse2}, {"Barcelona", kSse3 | kSse2},
    {"Opteron", k3dNow | kSse2}, {"Opteron_SSE3", k3dNow | kSse3 | kSse2},
    // 32-bit targets: an x86-64 OpenBLAS runs Prescott's kernels for them.
    {"Katmai", kSse3 | kSse2}, {"Coppermine", kSse3 | kSse2}, {"Northwood", kSse3 | kSse2},
    {"Banias", kSse3 | kSse2}, {"Athlon", kSse3 | kSse2},
    {"armv8", kNeon}, {"cortexa53", kNeon}, {"cortexa55", kNeon}, {"cortexa57", kNeon}, {"cortexa72", kNeon},
    {"cortexa73", kNeon}, {"neoversen1", kNeon}, {"thunderx", kNeon}, {"thunderx2t99", kNeon},
    {"thunderx3t110", kNeon}, {"tsv110", kNeon}, {"emag8180", kNeon}, {"falkor", kNeon}, {"vortex", kNeon},
    {"neoversev1", kSve | kNeon}, {"neoversen2", kSve | kNeon}, {"a64fx", kSve | kNeon}, {"armv8sve", kSve | kNeon},
};

// BLIS's configurations (config_registry, up to 1.0), each with what its make_defs.mk flags and
// kernels need (bulldozer's use FMA4, piledriver's to excavator's FMA3).
constexpr KernelSet kBlisSets[] = {
    {"skx", kAvx512Set}, {"zen4", kAvx512Set}, {"zen5", kAvx512Set},
    {"knl", kAvx512Phi | kAvx2Set}, {"knc", kForeign},
    {"haswell", kAvx2Set}, {"zen", kAvx2Set}, {"zen2", kAvx2Set}, {"zen3", kAvx2Set},
    {"excavator", kAvx2Set}, {"steamroller", kAvx | kFma3}, {"piledriver", kAvx | kFma3},
    {"bulldozer", kAvx | kFma4},
    {"sandybridge", kAvx}, {"penryn", kSsse3 | kSse3 | kSse2},
    {"cortexa53", kNeon}, {"cortexa57", kNeon}, {"thunderx2", kNeon}, {"firestorm", kNeon}, {"altra", kNeon},
    {"altramax", kNeon}, {"armsve", kSve | kNeon}, {"a64fx", kSve | kNeon},
    {"cortexa9", kForeign}, {"cortexa15", kForeign}, {"power7", kForeign}, {"power9", kForeign},
    {"power10", kForeign}, {"bgq", kForeign}, {"rv32i", kForeign}, {"rv64i", kForeign}, {"rv32iv", kForeign},
    {"rv64iv", kForeign}, {"sifive_x280", kForeign},
    {"generic", 0},
};

const KernelSet* find_set(Library lib, std::string_view name) {
    const std::span<const KernelSet> sets = lib == Library::openblas ? std::span<const KernelSet>(kOpenblasSets)
                                                                     : std::span<const KernelSet>(kBlisSets);
    for (const KernelSet& set : sets)
        if (lower(set.name) == lower(name)) return &set;
    return nullptr;
}

// The needs this CPU meets, from gemm's own detection.
unsigned available(const cpu::Features& f) {
    unsigned has = 0;
    for (auto [present, need] : {std::pair<bool, unsigned>{f.sse2, kSse2}, {f.sse3, kSse3}, {f.ssse3, kSsse3},
                                 {f.sse4_1, kSse41}, {f.avx, kAvx}, {f.fma, kFma3}, {f.avx2, kAvx2},
                                 {f.avx512f && f.avx512cd && f.avx512bw && f.avx512dq && f.avx512vl, kAvx512},
                                 {f.avx512f && f.avx512cd && f.avx512er && f.avx512pf, kAvx512Phi},
                                 {f.fma4, kFma4}, {f.amd3dnow, k3dNow}, {f.neon, kNeon}, {f.sve, kSve}})
        if (present) has |= need;
    return has;
}

std::string names_of(unsigned needs) {
    std::string text;
    for (unsigned bit = 0; bit < std::size(kNeedNames); ++bit)
        if (needs & (1u << bit)) text += (text.empty() ? "" : " and ") + std::string(kNeedNames[bit]);
    return text;
}

int rank(std::string_view isa) {
    return isa == "avx512" ? 4 : isa == "avx2" ? 3 : isa == "avx" ? 2 : isa == "sse" ? 1 : 0;
}

}  // namespace

std::string isa_of(Library lib, std::string_view kernel_set) {
    const KernelSet* set = find_set(lib, kernel_set);
    if (set == nullptr) return "unknown";
    const unsigned n = set->needs;
    if (n & kForeign) return "other";
    if (n & (kAvx512 | kAvx512Phi)) return "avx512";
    if (n & kAvx2) return "avx2";
    if (n & kAvx) return "avx";
    if (n & (kSse2 | kSse3 | kSsse3 | kSse41 | k3dNow)) return "sse";
    if (n & kSve) return "sve";
    if (n & kNeon) return "neon";
    return "generic";
}

CpuVectors cpu_vectors() {
    const unsigned has = available(cpu::features());
    return {(has & kAvx512) != 0, (has & (kAvx2 | kFma3)) == (kAvx2 | kFma3), (has & kAvx) != 0};
}

Choice choose(Library lib, std::string_view detected, const CpuVectors& cpu, const char* user_value,
              bool as_detected) {
    Choice c;
    c.env_var = lib == Library::openblas ? "OPENBLAS_CORETYPE" : "BLIS_ARCH_TYPE";
    const std::string widest = cpu.avx512 ? "avx512" : cpu.avx2_fma ? "avx2" : cpu.avx ? "avx" : "";
    const std::string has = isa_of(lib, detected);
    const bool narrower = !widest.empty() && rank(has) < rank(widest);
    // The set each library ships for the widest ISA this CPU has. OpenBLAS's Cooperlake and
    // SapphireRapids add bfloat16 and AMX routines; their sgemm is SkylakeX's.
    const std::string best = lib == Library::openblas
                                 ? (widest == "avx512" ? "SkylakeX" : widest == "avx2" ? "Haswell" : "Sandybridge")
                                 : (widest == "avx512" ? "skx" : widest == "avx2" ? "haswell" : "sandybridge");
    if (user_value != nullptr) {
        // Obeyed, but a comparison against a narrower set than the library's best must say so.
        c.reason = "as " + c.env_var + "=" + user_value + " asks";
        c.forced_narrower = narrower;
        if (narrower)
            c.reason += ": " + has + ", not this CPU's best (" + widest + ", " + best +
                        "); unset it to compare with the library's best";
        return c;
    }
    if (as_detected || !narrower) {
        c.reason = as_detected ? "as the library detected (--as-detected)" : "the library's own choice";
        return c;
    }
    c.kernel_set = best;
    c.change = true;
    c.reason = "the library detected " + std::string(detected) + " (" + (has == "unknown" ? "?" : has) +
               ") on a CPU with " + widest + ": using its " + c.kernel_set + " kernels";
    return c;
}

Forced check_forced(Library lib, std::string_view value, const cpu::Features& cpu,
                    const std::vector<std::string>& library_sets) {
    Forced f;
    const bool openblas = lib == Library::openblas;
    std::string name(value);
    if (!library_sets.empty()) {
        const std::string range = "0 to " + std::to_string(library_sets.size() - 1);
        const bool number = !value.empty() && value.size() <= 9 &&
                            std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (number) {
            const std::size_t index = std::stoul(name);
            if (index >= library_sets.size()) {
                f.problem = "this BLIS numbers its configurations " + range;
                return f;
            }
            name = library_sets[index];
        } else if (std::none_of(library_sets.begin(), library_sets.end(),
                                [&](const std::string& s) { return lower(s) == lower(name); })) {
            f.problem = "names no configuration of this BLIS (a name such as haswell or skx, or its number, " +
                        range + ")";
            return f;
        }
    }
    const KernelSet* set = find_set(lib, name);
    if (set == nullptr) {
        f.problem = openblas ? "names no kernel set of OpenBLAS (such as Haswell or SkylakeX)"
                  : library_sets.empty()
                      ? "names no configuration of BLIS (such as haswell or skx)"
                      : "configuration " + name + " is not in the runner's table of what each needs "
                                                  "(tools/ref/kernel_choice.cpp)";
        return f;
    }
    f.kernel_set = set->name;
    const unsigned missing = set->needs & ~available(cpu);
    f.verdict = missing == 0 ? Forced::Verdict::runs : Forced::Verdict::cpu_lacks;
    if (missing != 0)
        f.problem = std::string(openblas ? "kernel set " : "configuration ") + set->name +
                    ((missing & kForeign) ? " is for another architecture"
                                          : " needs " + names_of(missing) + ", which this CPU lacks");
    return f;
}

}  // namespace gemm::ref
