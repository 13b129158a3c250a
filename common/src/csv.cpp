#include <gemm/harness.hpp>
#include <gemm/output_file.hpp>

#include <cstdio>
#include <string>

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

}  // namespace

std::string csv_header() {
    return "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu,uarch,params,cpu_wait";
}

std::string csv_line(const CsvRow& r) {
    return plain(r.step) + ',' + std::to_string(r.m) + ',' + std::to_string(r.n) + ',' + std::to_string(r.k) + ',' +
           std::to_string(r.threads) + ',' + number("%.3f", r.gflops_best) + ',' + number("%.3f", r.gflops_median) +
           ',' + number("%.6g", r.seconds_best) + ',' + number("%.3g", r.max_rel_err) + ',' +
           (r.verified ? "1" : "0") + ',' + plain(r.kernel) + ',' + std::to_string(r.reps) + ',' + plain(r.cpu) + ',' + plain(r.uarch) +
           ',' + plain(r.params) + ',' + number("%.3f", r.cpu_wait);
}

std::string csv_text(const std::vector<CsvRow>& rows) {
    std::string text = csv_header() + '\n';
    for (const CsvRow& r : rows) text += csv_line(r) + '\n';
    return text;
}

std::string write_csv(const std::string& path, const std::vector<CsvRow>& rows) {
    OutputFile file;
    if (std::string error = file.open(path); !error.empty()) return error;
    return file.write(csv_text(rows));
}

}  // namespace gemm
