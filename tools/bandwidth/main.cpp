// bin/bandwidth: the memory-bandwidth meter, all in the gemm_bandwidth library the tests call.
#include "bandwidth.hpp"

#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <iostream>

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    return gemm::finish_stdout("bandwidth", gemm::bandwidth::run(argc, argv, std::cout, std::cerr));
}
