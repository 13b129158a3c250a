#include <gemm/cpu.hpp>
#include <gemm/numbers.hpp>

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

#include <fcntl.h>
#include <unistd.h>

namespace gemm {
namespace {

// Digits, with an optional '-' first: what strtoll would take beyond that (spaces, a newline,
// '+', "0x") is not a number a user typed.
bool plain_integer(std::string_view text) {
    const std::string_view digits = !text.empty() && text[0] == '-' ? text.substr(1) : text;
    return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
}

// A bound as a message shows it: 60, 0.001, 1000000.
std::string number_text(double v) {
    char text[32];
    if (std::fabs(v) < 1e15 && v == static_cast<double>(static_cast<long long>(v)))
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v));
    else
        std::snprintf(text, sizeof text, "%g", v);
    return text;
}

// A byte count as GEMM_CACHES writes it: 1K, 16G, 1T, else bytes.
std::string bytes_text(long long v) {
    const char* units = "KMGT";
    int unit = -1;
    while (unit < 3 && v != 0 && v % 1024 == 0) v /= 1024, ++unit;
    return std::to_string(v) + (unit >= 0 ? std::string(1, units[unit]) : "");
}

}  // namespace

std::string quoted(std::string_view option, std::string_view value) {
    return (option.empty() ? "" : shown(option) + " ") + "'" + shown(value) + "'";
}

std::string parse_whole(std::string_view option, std::string_view value, long long lo, long long hi, long long& out,
                        std::string_view why) {
    if (!plain_integer(value)) return quoted(option, value) + ": not a whole number";
    const std::string text(value);
    errno = 0;
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return quoted(option, value) + ": must be from " + std::to_string(lo) + " to " + std::to_string(hi) +
               (why.empty() ? "" : " (" + std::string(why) + ")");
    out = v;
    return "";
}

std::string parse_real(std::string_view option, std::string_view value, double lo, double hi, double& out,
                       bool lo_open) {
    const std::string text(value);
    char* end = nullptr;
    const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    // strtod skips leading spaces and takes "inf", "nan" and hexadecimal: none is a number here.
    if (text.empty() || *end != '\0' || !std::isfinite(v) ||
        text.find_first_not_of("0123456789.eE+-") != std::string::npos || text[0] == '+')
        return quoted(option, value) + ": not a number";
    if ((lo_open ? !(v > lo) : !(v >= lo)) || !(v <= hi))
        return quoted(option, value) + ": must be " + (lo_open ? "above " : "from ") + number_text(lo) +
               (lo_open ? " and at most " : " to ") + number_text(hi);
    out = v;
    return "";
}

std::string parse_bytes(std::string_view option, std::string_view value, long long lo, long long hi, long long& out) {
    const std::size_t digits = std::min(value.find_first_not_of("0123456789"), value.size());
    const std::string_view unit = value.substr(digits);
    long long scale = 1;
    if (unit == "K" || unit == "k") scale = 1LL << 10;
    else if (unit == "M" || unit == "m") scale = 1LL << 20;
    else if (unit == "G" || unit == "g") scale = 1LL << 30;
    if (digits == 0 || (!unit.empty() && scale == 1))
        return quoted(option, value) + ": not a size (digits, then K, M or G)";
    const std::string range = ": must be from " + bytes_text(lo) + " to " + bytes_text(hi);
    long long count = 0;
    if (!parse_whole(option, value.substr(0, digits), 0, std::numeric_limits<long long>::max(), count).empty() ||
        count > hi / scale || count * scale < lo)
        return quoted(option, value) + range;
    out = count * scale;
    return "";
}

std::string parse_param(std::string_view option, std::string_view value, int& out) {
    long long v = 0;
    std::string problem = parse_whole(option, value, 0, cpu::kMaxBlock, v, "0: automatic");
    if (problem.empty()) out = static_cast<int>(v);
    return problem;
}

long long whole_option(std::string_view option, std::string_view value, long long lo, long long hi,
                       std::string_view why) {
    long long v = 0;
    if (std::string problem = parse_whole(option, value, lo, hi, v, why); !problem.empty()) throw UsageError(problem);
    return v;
}

double real_option(std::string_view option, std::string_view value, double lo, double hi, bool lo_open) {
    double v = 0;
    if (std::string problem = parse_real(option, value, lo, hi, v, lo_open); !problem.empty()) throw UsageError(problem);
    return v;
}

std::vector<std::string> list_option(std::string_view option, std::string_view list, bool unique) {
    if (list.empty()) throw UsageError(quoted(option, list) + ": the list is empty");
    std::vector<std::string> names;
    for (std::size_t start = 0; start <= list.size();) {   // "a," has an empty second entry
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string name(list.substr(start, comma - start));
        if (name.empty()) throw UsageError(quoted(option, list) + ": has an empty entry");
        if (unique && std::find(names.begin(), names.end(), name) != names.end())
            throw UsageError(quoted(option, list) + ": lists " + shown(name) + " twice");
        names.push_back(name);
        start = comma + 1;
    }
    return names;
}

std::string option_value(int argc, const char* const* argv, int& i) {
    if (i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0)
        throw UsageError(shown(argv[i]) + ": needs a value");
    return argv[++i];
}

std::string repeated_option(int argc, const char* const* argv) {
    std::set<std::string_view> seen;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i], option = arg.substr(0, arg.find('='));
        if (arg.rfind("--", 0) == 0 && !seen.insert(option).second) return std::string(option);
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

int max_threads(int per_cpu) { return per_cpu * cpu::cores(); }

std::string thread_cap_reason(int per_cpu) {
    const std::string cpus = std::to_string(cpu::cores()) + " CPU" + (cpu::cores() == 1 ? "" : "s");
    if (per_cpu == 1) return "one pinned thread per CPU, and this process may use " + cpus;
    return std::to_string(per_cpu) + " x the " + cpus + " this process may use";
}

std::string thread_count_problem(std::string_view source, std::string_view value, long count, int per_cpu) {
    if (count >= 1 && count <= max_threads(per_cpu)) return "";
    return quoted(source, value) + ": must be from 1 to " + std::to_string(max_threads(per_cpu)) + " (" +
           thread_cap_reason(per_cpu) + ")";
}

int threads_option(std::string_view option, std::string_view value, int per_cpu) {
    return static_cast<int>(whole_option(option, value, 1, max_threads(per_cpu), thread_cap_reason(per_cpu)));
}

void guard_standard_descriptors() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
        // open() returns the lowest free descriptor: fd itself, since the lower ones are open.
        const int opened = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
        if (opened >= 0 && opened != fd) {
            ::dup2(opened, fd);
            ::close(opened);
        }
    }
}

std::string environment_problem() { return cpu::caches_problem(); }

}  // namespace gemm
