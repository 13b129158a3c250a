// The command line the tools share: --help, the usage errors (exit 2), and a CSV checked before
// measuring and written once at the end (exit 3), so a failed run leaves the old file whole.
#pragma once

#include <gemm/numbers.hpp>
#include <gemm/output_file.hpp>

#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace gemm::meter {

// The exit code when the program is done (0 after --help, 2 after a usage error), or nothing
// when `o` holds what parse(argc, argv) returned.
template <class Options, class Parse>
std::optional<int> parse_command(const char* name, const char* usage, Parse parse, int argc, const char* const* argv,
                                 Options& o, std::ostream& out, std::ostream& err) {
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

// The value of --csv at argv[i], which must name a file.
inline std::string csv_option(int argc, const char* const* argv, int& i) {
    std::string path = option_value(argc, argv, i);
    if (path.empty()) throw UsageError("--csv: needs a file name");
    return path;
}

// A list of whole numbers from 1 to hi ("--sizes 500,1000"), each once unless `unique` is false.
inline std::vector<int> whole_list(std::string_view option, std::string_view list, long long hi, bool unique = true) {
    std::vector<int> out;
    for (const std::string& item : list_option(option, list, unique))
        out.push_back(static_cast<int>(whole_option(option, item, 1, hi)));
    return out;
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

// Writes `text` to the CSV opened by open_csv, then says so on `announce` if given; the exit code.
inline int write_csv(const char* name, const std::string& path, OutputFile& csv, const std::string& text,
                     std::ostream& err, std::ostream* announce = nullptr) {
    if (path.empty()) return 0;
    if (const std::string error = csv.write(text); !error.empty()) {
        err << name << ": --csv: " << error << '\n';
        return 3;
    }
    if (announce != nullptr) *announce << "CSV: " << path << '\n';
    return 0;
}

// "3.50" for (3.5, 2): the tables' and CSVs' figures.
inline std::string fixed(double v, int decimals) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(decimals) << v;
    return s.str();
}

inline std::vector<int> thread_counts(int all) { return all > 1 ? std::vector<int>{1, all} : std::vector<int>{1}; }

}  // namespace gemm::meter
