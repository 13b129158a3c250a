// The CPU report of tools/cpuinfo and `peak --info`: what the steps see when they choose a
// kernel variant and their block sizes. The block sizes come from the registry itself, so
// the report stays true when a step changes how it picks them.
#include "peak.hpp"

#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <ostream>
#include <string>

#if defined(__linux__)
#include <unistd.h>
#endif

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
#if defined(__APPLE__)
    if (arch == "aarch64") return "Advanced SIMD, part of every AArch64 core (macOS has no HWCAP)";
#endif
    if (arch == "aarch64") return "HWCAP from getauxval(AT_HWCAP)";
    return "no detection on this architecture";
}

// The kernel set a reference runner built next to this program would measure, from its
// --kernels report ("running", "detected", "why" lines), or why there is none.
std::string library_kernels(const char* runner) {
#if defined(__linux__)
    char self[4096] = {};
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return "not found";
    std::string path(self, static_cast<std::size_t>(len));
    path = path.substr(0, path.rfind('/') + 1) + runner;
    if (access(path.c_str(), X_OK) != 0) return "not built (library not found at configure time)";
    FILE* pipe = popen(("'" + path + "' --kernels 2>/dev/null").c_str(), "r");
    if (pipe == nullptr) return "could not run " + path;
    std::string text;
    char buf[256];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) text += buf;
    if (pclose(pipe) != 0) return "its --kernels report failed";
    auto field = [&](const std::string& key) {
        const auto at = text.find(key + " ");
        if (at == std::string::npos) return std::string();
        const auto end = text.find('\n', at);
        return text.substr(at + key.size() + 1, end - at - key.size() - 1);
    };
    return field("library") + ": runs " + field("running") + " (" + field("isa") + "); the library detects " +
           field("detected") + " [" + field("why") + "]";
#else
    (void)runner;
    return "not reported on this system";
#endif
}

std::string fpc(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

}  // namespace

void cpu_report(std::ostream& out) {
    const cpu::Caches& c = cpu::caches();
    const int logical = static_cast<int>(cpu::allowed_cpus().size());
    const Frequency f = os_frequency();
    auto row = [&](const char* key) -> std::ostream& { return out << std::left << std::setw(11) << key; };

    const cpu::Identity& id = cpu::identity();
    const cpu::Microarch& core = cpu::microarch();
    row("CPU") << cpu::name() << " (" << cpu::arch() << ")\n";
    row("vendor") << (id.vendor.empty() ? "unknown" : id.vendor) << ", family " << id.family << " (0x" << std::hex
                  << id.family << "), model " << std::dec << id.model << " (0x" << std::hex << id.model << std::dec
                  << "), stepping " << id.stepping << "\n";
    row("microarch") << (!core.name.empty() ? core.name
                         : id.vendor.empty() ? std::string("unknown (the CPU does not identify itself here)")
                                             : "not in the table (" + cpu::microarch_label() + ")")
                     << "\n";
    row("features") << feature_list() << "  [" << feature_source() << "]\n";
    row("peak ISAs");
    for (const Isa* isa : available_isas()) out << isa->name << ' ';
    out << " [what bin/peak measures here]\n";
    row("cores") << logical << " logical CPU(s) this process may use, on " << physical_cores(logical)
                 << " physical core(s)\n";
    const Frequency measured = measure_clock(1, 0.02);
    row("clock");
    if (measured.ghz > 0)
        out << std::fixed << std::setprecision(2) << measured.ghz << std::defaultfloat << " GHz busy, one core ["
            << measured.source << "]; ";
    if (f.ghz > 0) out << "the OS says " << std::fixed << std::setprecision(2) << f.ghz << std::defaultfloat << " GHz";
    out << " [" << f.source << "]\n";
    row("FP pipes") << (core.pipes.empty() ? "not in the table" : core.pipes) << "\n";
    row("FLOPs/cyc");
    for (const Isa* isa : available_isas()) {
        const FlopsPerCycle fp = flops_per_cycle(isa->name, core);
        out << isa->name << ' ' << fpc(fp.fp32) << (fp.source.rfind("table", 0) == 0 ? "" : "?") << "  ";
    }
    out << "[fp32 per core and cycle; ? = not from the table: bin/peak infers or assumes it]\n";
    row("OpenBLAS") << library_kernels("ref_openblas") << "\n";
    row("BLIS") << library_kernels("ref_blis") << "\n";
    row("caches") << "L1d " << bytes(c.l1d) << ", L2 " << bytes(c.l2) << " per core, L3 " << bytes(c.l3)
                  << " shared  [" << c.source << "]\n";
    if (const std::string kinds = cpu::core_kinds_line(cpu::core_kinds()); !kinds.empty())
        row("core kinds") << kinds << "  [sysctl hw.perflevelN]\n";
    if (*cpu::pinning_note() != '\0') row("threads") << cpu::pinning_note() << "\n";

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
            if (!p.in_effect()) continue;
            if (!first) out << std::string(2 + 22 + 9, ' ');
            first = false;
            out << p.name << " = " << p.get() << "   " << p.help << '\n';
        }
        // A step with values tuned on this machine (step 10's wisdom) says whether a run takes
        // them: the values above are the rules'; nothing is set here.
        if (s.def->tuned_params != nullptr) {
            const TunedParams t = s.def->tuned_params(v->name, 0);
            out << std::string(2 + 22 + 9, ' ') << "source=" << t.source << (t.note.empty() ? "" : " (" + t.note + ")")
                << '\n';
        }
    }
}

}  // namespace gemm::peak
