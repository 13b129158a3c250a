#include <gemm/harness.hpp>

#include <cstdio>
#include <fstream>
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
    return "step,m,n,k,threads,gflops_best,gflops_median,seconds_best,max_rel_err,verified,kernel,reps,cpu,uarch";
}

std::string csv_line(const CsvRow& r) {
    return plain(r.step) + ',' + std::to_string(r.m) + ',' + std::to_string(r.n) + ',' + std::to_string(r.k) + ',' +
           std::to_string(r.threads) + ',' + number("%.3f", r.gflops_best) + ',' + number("%.3f", r.gflops_median) +
           ',' + number("%.6g", r.seconds_best) + ',' + number("%.3g", r.max_rel_err) + ',' +
           (r.verified ? "1" : "0") + ',' + plain(r.kernel) + ',' + std::to_string(r.reps) + ',' + plain(r.cpu) + ',' + plain(r.uarch);
}

std::string write_csv(const std::string& path, const std::vector<CsvRow>& rows) {
    const std::string temp = path + ".tmp";
    {
        std::ofstream out(temp, std::ios::trunc);
        if (!out) return "cannot write " + temp;
        out << csv_header() << '\n';
        for (const CsvRow& r : rows) out << csv_line(r) << '\n';
        out.flush();
        if (!out) return "cannot write " + temp;
    }
    if (std::rename(temp.c_str(), path.c_str()) != 0) {
        std::remove(temp.c_str());
        return "cannot replace " + path;
    }
    return "";
}

}  // namespace gemm
