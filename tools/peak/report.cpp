// The CPU report of tools/cpuinfo and `peak --info`: what the steps see when they choose a
// variant and block sizes, the latter from the registry itself so the report stays true.
#include "peak.hpp"

#include "meter_cli.hpp"

#include <gemm/affinity.hpp>
#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <unistd.h>
#endif

namespace gemm::peak {
namespace {

using meter::fixed;

std::string bytes(long b) {
    if (b <= 0) return "none";
    if (b % (1024 * 1024) == 0) return std::to_string(b / (1024 * 1024)) + " MiB";
    if (b % 1024 == 0) return std::to_string(b / 1024) + " KiB";
    return std::to_string(b) + " B";
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

// The kernel set the reference runner next to this program would measure, from its --kernels
// report ("running", "detected", "why" lines), or why there is none.
std::string library_kernels(const char* runner) {
#if defined(__linux__)
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) return "not found";
    const std::string path = (self.parent_path() / runner).string();
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

// The report's last part: each step, the variant it runs here and its block sizes.
void step_report(std::ostream& out, const std::vector<StepFacts>& steps) {
    const std::string indent(2 + 22 + 9, ' ');
    out << "\nSteps built, the variant each runs here, and the block sizes it uses here:\n";
    if (steps.empty()) out << "  (no steps built)\n";
    for (const StepFacts& s : steps) {
        out << "  " << std::left << std::setw(22) << s.step->slug << std::setw(9)
            << (s.variant ? std::string(s.variant->name) : "-");
        if (!s.variant || s.step->def->params.empty()) {
            out << (s.variant ? "(no block sizes)\n" : "not supported on this CPU\n");
            continue;
        }
        for (std::size_t i = 0; i < s.params.size(); ++i)
            out << (i > 0 ? indent : "") << s.params[i].name << " = " << s.params[i].value << "   " << s.params[i].help
                << '\n';
        if (s.has_tuned)
            out << indent << "source=" << s.tuned.source << (s.tuned.note.empty() ? "" : " (" + s.tuned.note + ")")
                << '\n';
    }
}

}  // namespace

std::vector<StepFacts> step_facts() {
    std::vector<StepFacts> out;
    for (const Step& s : gemm::steps()) {
        StepFacts& facts = out.emplace_back(StepFacts{&s, s.best_variant(), {}, false, {}});
        if (facts.variant == nullptr) continue;
        const Setting setting{facts.variant->name};   // nothing given or tuned: the rules
        for (const Param& p : s.def->params)
            if (const std::optional<int> value = shown_value(s, setting, p))
                facts.params.push_back({p.name, p.help, *value});
        // With threads = 0 the step sets nothing: it says what a run would take.
        facts.has_tuned = s.def->tuned_params != nullptr;
        if (facts.has_tuned) facts.tuned = s.def->tuned_params(facts.variant->name, 0);
    }
    return out;
}

Context context() {
    Context c;
    const cpu::Features& f = cpu::features();
    for (auto [has, name] : {std::pair{f.sse2, "sse2"}, {f.avx, "avx"}, {f.fma, "fma"}, {f.avx2, "avx2"},
                             {f.avx512f, "avx512f"}, {f.neon, "neon"}})
        if (has) c.features.push_back(name);
    c.feature_source = feature_source();
    c.logical_cpus = cpu::cores();
    c.physical_cores = physical_cores(c.logical_cpus);
    c.os_clock = os_frequency();
    for (const Isa* isa : available_isas()) c.isas.push_back({isa, flops_per_cycle(isa->name, cpu::microarch())});
    c.openblas = library_kernels("ref_openblas");
    c.blis = library_kernels("ref_blis");
    c.steps = step_facts();
    return c;
}

void cpu_report(std::ostream& out) {
    const cpu::Caches& c = cpu::caches();
    const Context ctx = context();
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
    std::string features;
    for (std::string_view name : ctx.features) features.append(features.empty() ? "" : " ").append(name);
    row("features") << (features.empty() ? "(none of those the steps use)" : features) << "  [" << ctx.feature_source
                    << "]\n";
    row("peak ISAs");
    for (const IsaFacts& isa : ctx.isas) out << isa.isa->name << ' ';
    out << " [what bin/peak measures here]\n";
    row("cores") << ctx.logical_cpus << " logical CPU(s) this process may use, on " << ctx.physical_cores
                 << " physical core(s)\n";
    const Frequency measured = measure_clock(1, 0.02);
    row("clock");
    if (measured.ghz > 0) out << fixed(measured.ghz, 2) << " GHz busy, one core [" << measured.source << "]; ";
    if (ctx.os_clock.ghz > 0) out << "the OS says " << fixed(ctx.os_clock.ghz, 2) << " GHz";
    out << " [" << ctx.os_clock.source << "]\n";
    row("FP pipes") << (core.pipes.empty() ? "not in the table" : core.pipes) << "\n";
    row("FLOPs/cyc");
    for (const IsaFacts& isa : ctx.isas)
        out << isa.isa->name << ' ' << isa.flops.fp32 << (isa.flops.source.rfind("table", 0) == 0 ? "" : "?")
            << "  ";
    out << "[fp32 per core and cycle; ? = not from the table: bin/peak infers or assumes it]\n";
    row("OpenBLAS") << ctx.openblas << "\n";
    row("BLIS") << ctx.blis << "\n";
    row("caches") << "L1d " << bytes(c.l1d) << ", L2 " << bytes(c.l2) << " per core, L3 " << bytes(c.l3)
                  << " shared  [" << c.source << "]\n";
    if (const std::string kinds = cpu::core_kinds_line(cpu::core_kinds()); !kinds.empty())
        row("core kinds") << kinds << "  [sysctl hw.perflevelN]\n";
    if (*cpu::pinning_note() != '\0') row("threads") << cpu::pinning_note() << "\n";
    step_report(out, ctx.steps);
}

}  // namespace gemm::peak
