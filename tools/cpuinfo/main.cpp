// bin/cpuinfo: what the steps see on this machine: CPU name, instruction sets, cores, clock,
// caches, and the variant and block sizes each registered step uses here. The same report
// as `peak --info`; it lives in the gemm_peak library (tools/peak/report.cpp).
//
// `cpuinfo --steps` lists the registry for scripts instead, one step a line:
//     NUMBER SLUG parallel|serial VARIANT|unsupported
// (run_all.sh uses it to give --threads to the parallel steps only).
// `cpuinfo --identity` prints the two lines step 10's wisdom file records and compares
// (gemm::cpu::machine_lines; docs/contracts.md, "Wisdom (step 10)"), for tools/tune.py:
//     cpu VENDOR FAMILY MODEL MICROARCH
//     caches L1D L2 L3
#include "peak.hpp"

#include <gemm/cpu.hpp>
#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>
#include <gemm/registry.hpp>

#include <iostream>
#include <string_view>

namespace {

int run(int argc, char** argv) {
    if (gemm::wants_help(argc, argv)) {
        std::cout << "usage: cpuinfo [--steps | --uarch | --identity]\n"
                     "Prints the CPU, its instruction sets (CPUID or HWCAP), cores, clock, caches and\n"
                     "the variant and block sizes each step uses here. --steps: one line per step,\n"
                     "NUMBER SLUG parallel|serial VARIANT|unsupported, for scripts. --uarch: the\n"
                     "microarchitecture's name (or vendor, family and model when not in the table).\n"
                     "--identity: the two lines a wisdom file records and step 10 compares,\n"
                     "'cpu VENDOR FAMILY MODEL MICROARCH' and 'caches L1D L2 L3' (bytes, after GEMM_CACHES).\n";
        return 0;
    }
    if (const std::string problem = gemm::environment_problem(); !problem.empty()) {
        std::cerr << "cpuinfo: " << problem << '\n';
        return 2;
    }
    const std::string_view arg = argc > 1 ? argv[1] : "";
    if (argc > 2) {
        std::cerr << "cpuinfo: " << gemm::quoted("", argv[2]) << ": unexpected argument (see --help)\n";
        return 2;
    }
    if (arg == "--uarch") {   // one line for scripts: "Zen 4", or "GenuineIntel family 6 model 1"
        std::cout << gemm::cpu::microarch_label() << '\n';
        return 0;
    }
    if (arg == "--identity") {   // the lines step 10's wisdom is compared with (gemm/cpu.hpp)
        const gemm::cpu::MachineLines lines = gemm::cpu::machine_lines();
        std::cout << lines.cpu << '\n' << lines.caches << '\n';
        return 0;
    }
    if (arg == "--steps") {
        for (const gemm::Step& s : gemm::steps()) {
            const gemm::Variant* v = s.best_variant();
            std::cout << s.number << ' ' << s.slug << ' ' << (s.def->parallel ? "parallel" : "serial")
                      << ' ' << (v ? v->name : std::string_view("unsupported")) << '\n';
        }
        return 0;
    }
    if (!arg.empty()) {
        std::cerr << "cpuinfo: " << gemm::quoted("", arg) << ": unknown option (see --help)\n";
        return 2;
    }
    gemm::peak::cpu_report(std::cout);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    const int status = run(argc, argv);
    std::cout.flush();
    return gemm::finish_stdout("cpuinfo", status);
}
