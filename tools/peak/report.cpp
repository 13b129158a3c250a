// The CPU report of tools/cpuinfo and `peak --info`: what the steps see when they choose a
// kernel variant and their block sizes. The block sizes come from the registry itself, so
// the report stays true when a step changes how it picks them.
#include "peak.hpp"

#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

#include <iomanip>
#include <ostream>
#include <string>

namespace gemm::peak {
namespace {

std::string bytes(long b) {
    if (b <= 0) return "none";
    if (b % (1024 * 1024) == 0) return std::to_string(b / (1024 * 1024)) + " MiB";
    if (b % 1024 == 0) return std::to_string(b / 1024) + " KiB";
    return std::to_string(b) + " B";
}

std::string feature_list() {
    const cpu::Features& f = cpu::features();
    std::string s;
    auto add = [&](bool has, const char* name) {
        if (!has) return;
        if (!s.empty()) s += ' ';
        s += name;
    };
    add(f.sse2, "sse2");
    add(f.avx, "avx");
    add(f.fma, "fma");
    add(f.avx2, "avx2");
    add(f.avx512f, "avx512f");
    add(f.neon, "neon");
    return s.empty() ? "(none of those the steps use)" : s;
}

const char* feature_source() {
    const std::string_view arch = cpu::arch();
    if (arch == "x86_64") return "CPUID, with XGETBV for the OS's register support";
    if (arch == "aarch64") return "HWCAP from getauxval(AT_HWCAP)";
    return "no detection on this architecture";
}

}  // namespace

void cpu_report(std::ostream& out) {
    const cpu::Caches& c = cpu::caches();
    const int logical = static_cast<int>(cpu::allowed_cpus().size());
    const Frequency f = os_frequency();
    auto row = [&](const char* key) -> std::ostream& { return out << std::left << std::setw(11) << key; };

    row("CPU") << cpu::name() << " (" << cpu::arch() << ")\n";
    row("features") << feature_list() << "  [" << feature_source() << "]\n";
    row("peak ISAs");
    for (const Isa* isa : available_isas()) out << isa->name << ' ';
    out << " [what bin/peak measures here]\n";
    row("cores") << logical << " logical CPU(s) this process may use, on " << physical_cores(logical)
                 << " physical core(s)\n";
    row("clock");
    if (f.ghz > 0) out << std::fixed << std::setprecision(2) << f.ghz << std::defaultfloat << " GHz";
    out << " [" << f.source << "]\n";
    row("caches") << "L1d " << bytes(c.l1d) << ", L2 " << bytes(c.l2) << " per core, L3 " << bytes(c.l3)
                  << " shared  [" << c.source << "]\n";

    out << "\nSteps built, the variant each runs here, and the block sizes it uses here:\n";
    if (gemm::steps().empty()) out << "  (no steps built)\n";
    for (const Step& s : gemm::steps()) {
        const Variant* v = s.best_variant();
        out << "  " << std::left << std::setw(22) << s.slug << std::setw(9)
            << (v ? std::string(v->name) : "-");
        if (!v) {
            out << "not supported on this CPU\n";
            continue;
        }
        if (s.def->params.empty()) {
            out << "(no block sizes)\n";
            continue;
        }
        bool first = true;
        for (const Param& p : s.def->params) {
            if (!first) out << std::string(2 + 22 + 9, ' ');
            first = false;
            out << p.name << " = " << p.get() << "   " << p.help << '\n';
        }
    }
}

}  // namespace gemm::peak
