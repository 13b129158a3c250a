// What bin/peak and bin/bandwidth share around their measurements: --help and the usage
// errors (exit 2); the CSV's path checked before measuring and the file written once at the
// end (exit 3), so an interrupted or failed run leaves the old one as it was (a roofline
// drawn from a file that lost some rows would lack those roofs without saying so); and the
// thread counts measured, one and all.
#pragma once

#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gemm::meter {

// The exit code when the program is done (0 after --help, 2 after a usage error), or nothing
// when `o` holds the parsed options.
template <class Options>
std::optional<int> parse_command(const char* name, const char* usage, Options (*parse)(int, const char* const*),
                                 int argc, const char* const* argv, Options& o, std::ostream& out,
                                 std::ostream& err) {
    if (wants_help(argc, argv)) {
        out << usage;
        return 0;
    }
    try {
        if (const std::string problem = environment_problem(); !problem.empty()) throw UsageError(problem);
        if (const std::string twice = repeated_option(argc, argv); !twice.empty())
            throw UsageError(shown(twice) + ": given twice");
        o = parse(argc, argv);
    } catch (const UsageError& e) {
        err << name << ": " << e.what() << '\n';
        return 2;
    }
    return std::nullopt;
}

// Opens `csv` at `path` unless it is empty; false (after the message) when it cannot be written.
inline bool open_csv(const char* name, const std::string& path, OutputFile& csv, std::ostream& err) {
    if (path.empty()) return true;
    if (const std::string error = csv.open(path); !error.empty()) {
        err << name << ": --csv: " << error << '\n';
        return false;
    }
    return true;
}

// Writes `text` to the CSV opened by open_csv; the exit code.
inline int write_csv(const char* name, const std::string& path, OutputFile& csv, const std::string& text,
                     std::ostream& out, std::ostream& err) {
    if (path.empty()) return 0;
    if (const std::string error = csv.write(text); !error.empty()) {
        err << name << ": --csv: " << error << '\n';
        return 3;
    }
    out << "CSV: " << path << '\n';
    return 0;
}

inline std::vector<int> thread_counts(int all) { return all > 1 ? std::vector<int>{1, all} : std::vector<int>{1}; }

}  // namespace gemm::meter
