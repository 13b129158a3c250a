// bin/peak: the peak-FLOPS meter, all in the gemm_peak library the tests call.
#include "peak.hpp"

#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <iostream>

int main(int argc, char** argv) {
    gemm::guard_standard_descriptors();   // before anything opens a file (gemm/numbers.hpp)
    return gemm::finish_stdout("peak", gemm::peak::run(argc, argv, std::cout, std::cerr));
}
