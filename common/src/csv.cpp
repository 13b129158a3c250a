#include <gemm/harness.hpp>
#include <gemm/output_file.hpp>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace gemm {
namespace {

// CSV fields here never need quoting: the CPU name is the only free text; keep it plain.
std::string plain(std::string text) {
    for (char& c : text)
        if (c == ',' || c == '"' || c == '\n' || c == '\r') c = ' ';
    return text;
}

std::string number(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// The CSV's columns, in order, each with how a row writes it: the header and every line come from
// this one list (docs/contracts.md, "The CSV"; tests/test_csv_schema.py checks plots/ agrees).
struct Column { std::string_view name; std::string (*field)(const CsvRow& r); };
constexpr Column kColumns[] = {
    {"step", [](const CsvRow& r) { return plain(r.step); }},
    {"m", [](const CsvRow& r) { return std::to_string(r.m); }},
    {"n", [](const CsvRow& r) { return std::to_string(r.n); }},
    {"k", [](const CsvRow& r) { return std::to_string(r.k); }},
    {"threads", [](const CsvRow& r) { return std::to_string(r.threads); }},
    {"gflops_best", [](const CsvRow& r) { return number("%.3f", r.gflops_best); }},
    {"gflops_median", [](const CsvRow& r) { return number("%.3f", r.gflops_median); }},
    {"seconds_best", [](const CsvRow& r) { return number("%.6g", r.seconds_best); }},
    {"max_rel_err", [](const CsvRow& r) { return number("%.3g", r.max_rel_err); }},
    {"verified", [](const CsvRow& r) { return std::string(r.verified ? "1" : "0"); }},
    {"kernel", [](const CsvRow& r) { return plain(r.kernel); }},
    {"reps", [](const CsvRow& r) { return std::to_string(r.reps); }},
    {"cpu", [](const CsvRow& r) { return plain(r.cpu); }},
    {"uarch", [](const CsvRow& r) { return plain(r.uarch); }},
    {"params", [](const CsvRow& r) { return plain(r.params); }},
    {"cpu_wait", [](const CsvRow& r) { return number("%.3f", r.cpu_wait); }},
};

template <typename Each>
std::string joined(Each each) {
    std::string line;
    for (const Column& c : kColumns) {
        if (&c != kColumns) line += ',';
        line += each(c);
    }
    return line;
}

}  // namespace

std::vector<std::string_view> csv_columns() {
    std::vector<std::string_view> names;
    for (const Column& c : kColumns) names.push_back(c.name);
    return names;
}

std::string csv_header() {
    return joined([](const Column& c) { return std::string(c.name); });
}

std::string csv_line(const CsvRow& r) {
    return joined([&](const Column& c) { return c.field(r); });
}

std::string write_csv(const std::string& path, const std::vector<CsvRow>& rows) {
    OutputFile file;
    if (std::string error = file.open(path); !error.empty()) return error;
    std::string text = csv_header() + '\n';
    for (const CsvRow& r : rows) text += csv_line(r) + '\n';
    return file.write(text);
}

}  // namespace gemm
