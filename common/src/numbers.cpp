#include <gemm/numbers.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace gemm {

std::string parse_count(const std::string& option, const std::string& value, int hi, int& out) {
    const std::string quoted = option + " '" + value + "'";
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || errno == ERANGE || value.find(' ') != std::string::npos)
        return quoted + ": not a whole number";
    if (v < 1 || v > hi) return quoted + ": must be from 1 to " + std::to_string(hi);
    out = static_cast<int>(v);
    return "";
}

std::string parse_positive(const std::string& option, const std::string& value, double hi, double& out) {
    const std::string quoted = option + " '" + value + "'";
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) return quoted + ": not a number";
    if (v <= 0 || v > hi) return quoted + ": must be above 0 and at most " + std::to_string(static_cast<long>(hi));
    out = v;
    return "";
}

int count_option(const std::string& option, const std::string& value, int hi) {
    int v = 0;
    if (const std::string problem = parse_count(option, value, hi, v); !problem.empty()) throw UsageError(problem);
    return v;
}

double positive_option(const std::string& option, const std::string& value, double hi) {
    double v = 0;
    if (const std::string problem = parse_positive(option, value, hi, v); !problem.empty()) throw UsageError(problem);
    return v;
}

std::string option_value(int argc, const char* const* argv, int& i) {
    if (i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0)
        throw UsageError(std::string(argv[i]) + ": needs a value");
    return argv[++i];
}

}  // namespace gemm
