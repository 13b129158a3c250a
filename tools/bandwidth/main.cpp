// bin/bandwidth: the memory-bandwidth meter. Everything is in the gemm_bandwidth library
// (bandwidth.cpp), which the test suite calls directly.
#include "bandwidth.hpp"

#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <iostream>

// Exit 3 when the report was lost (> /dev/full), as for every program (gemm::finish_stdout).
int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    return gemm::finish_stdout("bandwidth", gemm::bandwidth::run(argc, argv, std::cout, std::cerr));
}
