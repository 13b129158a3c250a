// Step 10's wisdom file (wisdom.hpp): found, read and checked here, and nowhere else.
// A file that is damaged, or measured on another machine or kernel, is never half-used: it is
// refused whole, with one line saying why, and the run takes the cache rules (blocks.cpp). The
// values a run takes go into its Setting, which step.cpp turns into a Config (config_of).
#include "wisdom.hpp"

#include <gemm/cpu.hpp>
#include <gemm/numbers.hpp>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#endif

namespace step10::wisdom {
namespace {

// The words of a line, split at spaces and tabs.
std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    for (std::size_t at = 0; at < line.size();) {
        const std::size_t start = line.find_first_not_of(" \t", at);
        if (start == std::string_view::npos) break;
        const std::size_t end = std::min(line.find_first_of(" \t", start), line.size());
        out.push_back(line.substr(start, end - start));
        at = end;
    }
    return out;
}

std::string named(std::string_view key) {
    std::string text(1, '"');   // (built up: GCC 12 warns of a false overlap in "\"" + text)
    return text.append(gemm::shown(key)).append(1, '"');
}

// "cpu VENDOR FAMILY MODEL NAME..." and "caches L1D L2 L3", after the key: the file's lines and
// this machine's (gemm::cpu::machine_lines) go through the same two readers.
std::string parse_cpu(const std::vector<std::string_view>& w, Machine& m) {
    if (w.size() < 5) return "\"cpu\" wants a vendor, a family, a model and the microarchitecture's name";
    m.vendor = w[1];
    if (std::string p = gemm::parse_whole("cpu family", w[2], 0, INT_MAX, m.family); !p.empty()) return p;
    if (std::string p = gemm::parse_whole("cpu model", w[3], 0, INT_MAX, m.model); !p.empty()) return p;
    m.name.clear();
    for (std::size_t i = 4; i < w.size(); ++i) m.name.append(i > 4 ? " " : "").append(w[i]);
    return "";
}

std::string parse_caches(const std::vector<std::string_view>& w, Machine& m) {
    if (w.size() != 4) return "\"caches\" wants three sizes in bytes, L1d, L2 and L3";
    for (int level = 0; level < 3; ++level)
        if (std::string p = gemm::parse_whole("caches", w[level + 1], 0, 1LL << 40, m.caches[level]); !p.empty())
            return p;
    return "";
}

std::string machine_text(const Machine& m) {
    return gemm::shown(m.vendor) + " " + std::to_string(m.family) + " " + std::to_string(m.model) + " (" +
           gemm::shown(m.name) + ") with caches " + std::to_string(m.caches[0]) + " " + std::to_string(m.caches[1]) +
           " " + std::to_string(m.caches[2]);
}

// One line, after its key; "" or the problem.
std::string parse_line(const std::vector<std::string_view>& w, std::span<const gemm::Param> params,
                       std::span<const gemm::Variant> variants, File& f) {
    const std::string_view key = w[0];
    if (key == "format") {
        if (w.size() != 2) return "\"format\" wants one value, 1";
        if (w[1] != "1") return gemm::quoted("format", w[1]) + ": not 1, the only format this program reads";
        return "";
    }
    if (key == "cpu") return parse_cpu(w, f.machine);
    if (key == "caches") return parse_caches(w, f.machine);
    if (key == "kernel") {
        std::string names;
        for (const gemm::Variant& v : variants) names += (names.empty() ? "" : ", ") + std::string(v.name);
        if (w.size() != 2) return "\"kernel\" wants one name: " + names;
        for (const gemm::Variant& v : variants)
            if (v.name == w[1]) f.kernel = w[1];
        return f.kernel.empty() ? gemm::quoted("kernel", w[1]) + ": not one of " + names : "";
    }
    if (key == "noise") {
        if (w.size() != 2) return "\"noise\" wants one number";
        return gemm::parse_real("noise", w[1], 0, 1e6, f.noise);
    }
    if (key == "threads") {   // the caller made sure w[1] is "1" or "all"
        Values& values = w[1] == "1" ? f.one : f.all;
        (w[1] == "1" ? f.has_one : f.has_all) = true;
        for (std::size_t i = 2; i < w.size(); ++i) {
            const std::size_t eq = w[i].find('=');
            if (eq == std::string_view::npos || eq == 0) return gemm::quoted("", w[i]) + ": not NAME=VALUE";
            const std::string_view name = w[i].substr(0, eq);
            const gemm::Param* param = nullptr;
            for (const gemm::Param& p : params)
                if (p.name == name) param = &p;
            if (param == nullptr) return "unknown parameter " + named(name);
            for (const auto& [p, v] : values)
                if (p == param) return named(name) + " given twice";
            int value = 0;   // the command line's rule for --NAME N (gemm/numbers.hpp)
            if (std::string p = gemm::parse_param(name, w[i].substr(eq + 1), value); !p.empty()) return p;
            values.emplace_back(param, value);
        }
        return "";
    }
    return "unknown key " + named(key);
}

// Reads the file at `path` whole, if it is a regular file of at most kMaxBytes: "" or the
// problem; `missing` when there is no such file. A FIFO or a device is never opened (a FIFO
// would wait for a writer), and the file is opened without blocking in case it became one.
std::string read_file(const std::string& path, std::string& text, bool& missing) {
    missing = false;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        missing = errno == ENOENT || errno == ENOTDIR;
        return std::string("cannot read it: ") + std::strerror(errno);
    }
    auto not_regular = [](const struct stat& s) -> std::string {
        if (S_ISREG(s.st_mode)) return "";
        return std::string("not a regular file (") +
               (S_ISDIR(s.st_mode) ? "a folder" : S_ISFIFO(s.st_mode) ? "a FIFO" : S_ISSOCK(s.st_mode) ? "a socket"
                                                                                                  : "a device") +
               ")";
    };
    if (std::string p = not_regular(st); !p.empty()) return p;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return std::string("cannot read it: ") + std::strerror(errno);
    std::string problem;
    if (::fstat(fd, &st) != 0) problem = std::string("cannot read it: ") + std::strerror(errno);
    else problem = not_regular(st);
    text.clear();
    char buffer[8192];
    while (problem.empty()) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) problem = std::string("cannot read it: ") + std::strerror(errno);
        if (n <= 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
        if (static_cast<long>(text.size()) > kMaxBytes)
            problem = "larger than " + std::to_string(kMaxBytes) + " bytes: not a wisdom file";
    }
    ::close(fd);
    return problem;
}

// GEMM_WISDOM, else the default place; "" when reading is off. `fixed` says which.
std::string wisdom_path(bool& fixed) {
    const char* env = std::getenv("GEMM_WISDOM");
    fixed = env == nullptr;
    if (env != nullptr) {
        const std::string_view value = env;
        if (value.empty() || value == "off") return "";
        if (value[0] == '/') return std::string(value);
        char cwd[PATH_MAX];
        return ::getcwd(cwd, sizeof cwd) != nullptr ? std::string(cwd) + "/" + std::string(value) : std::string(value);
    }
    // <the executable's folder>/../wisdom/step10_tuned.txt: build/bin/step10_tuned reads
    // build/wisdom/step10_tuned.txt. /proc/self/exe names the program itself, its links resolved.
    char self[PATH_MAX] = {};
#if defined(__APPLE__)
    // macOS has no /proc: dyld names the executable, realpath resolves its links.
    char named[PATH_MAX] = {};
    std::uint32_t size = sizeof named;
    if (_NSGetExecutablePath(named, &size) != 0 || ::realpath(named, self) == nullptr) return "";
    const ssize_t len = static_cast<ssize_t>(std::strlen(self));
#else
    const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
#endif
    if (len <= 0) return "";
    std::string dir(self, static_cast<std::size_t>(len));
    dir.erase(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));   // build/bin
    dir.erase(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));   // build
    return dir + "/wisdom/step10_tuned.txt";
}

std::string values_text(const Values& values) {
    std::string text;
    for (const auto& [p, v] : values) text.append(text.empty() ? "" : " ").append(p->name).append("=").append(std::to_string(v));
    return text.empty() ? "nothing (the rules)" : text;
}

}  // namespace

std::string parse(std::string_view text, std::span<const gemm::Param> params, std::span<const gemm::Variant> variants,
                  File& out) {
    out = File{};
    std::map<std::string, int> seen;   // key ("threads 1" for a threads line) -> its line
    int number = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        const std::string where = "line " + std::to_string(++number) + ": ";
        if (line.find('\0') != std::string_view::npos) return where + "a NUL byte: not a text file";
        if (line.size() > static_cast<std::size_t>(kMaxLine))
            return where + "longer than " + std::to_string(kMaxLine) + " characters";
        const std::vector<std::string_view> w = words(line);
        if (w.empty() || w[0][0] == '#') continue;
        std::string key(w[0]);
        if (key == "threads") {
            if (w.size() < 2 || (w[1] != "1" && w[1] != "all"))
                return where + (w.size() < 2 ? std::string("\"threads\" wants 1 or all")
                                             : gemm::quoted("threads", w[1]) + ": not 1 or all");
            key += " " + std::string(w[1]);
        }
        if (const auto first = seen.find(key); first != seen.end())
            return where + "a second " + named(key) + " line (the first is line " + std::to_string(first->second) + ")";
        seen.emplace(key, number);
        if (std::string problem = parse_line(w, params, variants, out); !problem.empty()) return where + problem;
    }
    for (const char* key : {"format", "cpu", "caches", "kernel"})
        if (seen.count(key) == 0) return std::string("no \"") + key + "\" line";
    if (!out.has_one && !out.has_all) return "no \"threads\" line (\"threads 1 ...\" or \"threads all ...\")";
    return "";
}

Machine this_machine() {
    const gemm::cpu::MachineLines lines = gemm::cpu::machine_lines();
    Machine m;
    // Made by the same function as cpuinfo --identity's lines; they always parse.
    parse_cpu(words(lines.cpu), m);
    parse_caches(words(lines.caches), m);
    return m;
}

std::string mismatch(const File& file, const Machine& here, std::string_view variant) {
    const Machine& there = file.machine;
    if (there.vendor != here.vendor || there.family != here.family || there.model != here.model ||
        there.caches[0] != here.caches[0] || there.caches[1] != here.caches[1] || there.caches[2] != here.caches[2])
        return "was measured on " + machine_text(there) + ", this is " + machine_text(here);
    if (file.kernel != variant)
        return "was measured with kernel " + file.kernel + ", this run's is " + std::string(variant);
    return "";
}

std::string path_word(std::string_view path) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f || c == ',' || c == '"' || c == '%')
            out.append(1, '%').append(1, hex[u >> 4]).append(1, hex[u & 15]);
        else
            out += c;
    }
    return out;
}

gemm::TunedParams take(std::span<const gemm::Param> params, std::span<const gemm::Variant> variants,
                       std::string_view variant, int threads, Values& values) {
    values.clear();
    gemm::TunedParams result{"rules", ""};
    bool fixed = false;
    const std::string path = wisdom_path(fixed);
    if (path.empty()) {
        if (threads == 0) result.note = "GEMM_WISDOM is off: the rules";
        return result;
    }
    const std::string name = "wisdom " + gemm::shown(path);
    std::string text;
    bool missing = false;
    std::string problem = read_file(path, text, missing);
    // Nothing at the default place is the usual case (no tuning done): silent. A file named
    // by GEMM_WISDOM that is not there is a mistake to report.
    if (missing && fixed) {
        if (threads == 0) result.note = "no wisdom file at " + gemm::shown(path) + ": the rules";
        return result;
    }
    File file;
    if (problem.empty()) {
        problem = parse(text, params, variants, file);
        if (!problem.empty() && problem.rfind("line ", 0) == 0) {   // "wisdom PATH line 5: ..."
            result.note = name + " " + problem + "; using the rules";
            return result;
        }
    }
    if (!problem.empty()) {
        result.note = name + ": " + problem + "; using the rules";
        return result;
    }
    if (std::string other = mismatch(file, this_machine(), variant); !other.empty()) {
        result.note = name + " " + other + ": using the rules";
        return result;
    }
    // The values of the run's thread count: "threads 1" for one thread, "threads all" for
    // more. The choice is the run's, not each call's: a product too small to share, which a
    // multi-thread run computes on one thread (parallel_gemm falls back on serial_gemm), still
    // takes the "threads all" values, so that every size of a run and its params column agree
    // (the tuner measures a multi-thread run as a whole, small sizes included).
    if (threads == 0) {
        result.source = "wisdom:" + path_word(path);
        result.note = "a run on 1 thread takes " + (file.has_one ? values_text(file.one) : "the rules (no \"threads 1\" line)") +
                      "; on more, " + (file.has_all ? values_text(file.all) : "the rules (no \"threads all\" line)") +
                      "; over the rules' values above";
        return result;
    }
    if (!(threads == 1 ? file.has_one : file.has_all)) return result;   // nothing for this count: the rules
    values = threads == 1 ? file.one : file.all;
    result.source = "wisdom:" + path_word(path);
    return result;
}

}  // namespace step10::wisdom
