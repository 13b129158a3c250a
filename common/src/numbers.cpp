#include <gemm/numbers.hpp>

#include <gemm/cpu.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

namespace gemm {

namespace {

// The whole text is a whole number, with no spaces, within long's range.
bool whole_number(const std::string& value, long& v) {
    char* end = nullptr;
    errno = 0;
    v = std::strtol(value.c_str(), &end, 10);
    return !value.empty() && *end == '\0' && errno != ERANGE && value.find(' ') == std::string::npos;
}

}  // namespace

std::string parse_count(const std::string& option, const std::string& value, int hi, int& out) {
    const std::string quoted = option + " '" + value + "'";
    long v = 0;
    if (!whole_number(value, v)) return quoted + ": not a whole number";
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

std::string repeated_option(int argc, const char* const* argv) {
    std::set<std::string_view> seen;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg.rfind("--", 0) != 0) continue;
        if (!seen.insert(arg.substr(0, arg.find('='))).second) return std::string(arg.substr(0, arg.find('=')));
    }
    return "";
}

bool wants_help(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") return true;
    return false;
}

std::string shown(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return out;
}

int max_threads(int per_cpu) {
    return per_cpu * cpu::cores();
}

std::string thread_cap_reason(int per_cpu) {
    const std::string cpus = std::to_string(cpu::cores()) + " CPU" + (cpu::cores() == 1 ? "" : "s");
    if (per_cpu == 1) return "one pinned thread per CPU, and this process may use " + cpus;
    return std::to_string(per_cpu) + " x the " + cpus + " this process may use";
}

std::string thread_count_problem(std::string_view source, std::string_view value, long count, int per_cpu) {
    if (count >= 1 && count <= max_threads(per_cpu)) return "";
    return std::string(source) + " '" + shown(value) + "': must be from 1 to " + std::to_string(max_threads(per_cpu)) +
           " (" + thread_cap_reason(per_cpu) + ")";
}

int threads_option(const std::string& option, const std::string& value, int per_cpu) {
    long count = 0;
    if (!whole_number(value, count)) throw UsageError(option + " '" + shown(value) + "': not a whole number");
    if (const std::string problem = thread_count_problem(option, value, count, per_cpu); !problem.empty())
        throw UsageError(problem);
    return static_cast<int>(count);
}

}  // namespace gemm
