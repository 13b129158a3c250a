// bin/peak: the peak-FLOPS meter. Everything is in the gemm_peak library (peak.cpp), which
// the test suite calls directly.
#include "peak.hpp"

#include <iostream>

int main(int argc, char** argv) { return gemm::peak::run(argc, argv, std::cout, std::cerr); }
