// bin/bandwidth: the memory-bandwidth meter. Everything is in the gemm_bandwidth library
// (bandwidth.cpp), which the test suite calls directly.
#include "bandwidth.hpp"

#include <iostream>

int main(int argc, char** argv) { return gemm::bandwidth::run(argc, argv, std::cout, std::cerr); }
