// bin/cpuinfo: what the steps see on this machine: CPU name, instruction sets, cores, clock,
// caches, and the variant and block sizes each registered step uses here. The same report
// as `peak --info`; it lives in the gemm_peak library (tools/peak/report.cpp).
#include "peak.hpp"

#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        std::cout << "usage: cpuinfo\nPrints the CPU, its instruction sets (CPUID or HWCAP), cores, "
                     "clock, caches and the block sizes the steps use here.\n";
        return 0;
    }
    if (argc > 1) {
        std::cerr << "cpuinfo: '" << argv[1] << "': unknown option (see --help)\n";
        return 2;
    }
    gemm::peak::cpu_report(std::cout);
    return 0;
}
