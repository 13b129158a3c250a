// The command-line rules of the tools (peak, bandwidth): strict numbers, where the whole
// text must be the number, with no spaces, in range; and option values. Each parse_ returns
// "" and sets `out`, or the one-line problem ("--reps '0': must be from 1 to 100"); the
// _option forms throw it as a UsageError, which the tool prints before exiting 2.
#pragma once

#include <stdexcept>
#include <string>

namespace gemm {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A whole number from 1 to hi.
std::string parse_count(const std::string& option, const std::string& value, int hi, int& out);
// A finite number above 0 and at most hi.
std::string parse_positive(const std::string& option, const std::string& value, double hi, double& out);
int count_option(const std::string& option, const std::string& value, int hi);
double positive_option(const std::string& option, const std::string& value, double hi);
// The value of the option argv[i], which is argv[i + 1] (i moves on to it). None, or a next
// word that is itself an option ("--csv --reps 3"), means the value was forgotten.
std::string option_value(int argc, const char* const* argv, int& i);

}  // namespace gemm
