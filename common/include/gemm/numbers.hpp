// Strict command-line numbers for the tools (peak, bandwidth): the whole text must be the
// number, with no spaces, in range. Each returns "" and sets `out`, or the one-line problem
// ("--reps '0': must be from 1 to 100"), which the tool prints as a usage error.
#pragma once

#include <string>

namespace gemm {

// A whole number from 1 to hi.
std::string parse_count(const std::string& option, const std::string& value, int hi, int& out);
// A finite number above 0 and at most hi.
std::string parse_positive(const std::string& option, const std::string& value, double hi, double& out);

}  // namespace gemm
