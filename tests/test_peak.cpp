// The peak meter (tools/peak, library gemm_peak): the instruction sets it measures are
// exactly those the CPU has, its CSV is the SPEC's, every figure is positive, bad options
// are usage errors, and the CPU report shows the registry's block sizes. Runs are short
// (--seconds 0.02): this checks the meter works, never how fast the machine is.
#include "peak.hpp"

#include <gemm/cpu.hpp>
#include <gemm/registry.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// What gemm::cpu says this CPU has, in the meter's names: worked out here independently of
// the meter's own table.
std::vector<std::string> expected_isas() {
    const gemm::cpu::Features& f = gemm::cpu::features();
    std::vector<std::string> isas;
    const std::string arch = gemm::cpu::arch();
    if (arch == "x86_64") {
        if (f.sse2) isas.push_back("scalar");
        if (f.sse2) isas.push_back("sse");
        if (f.avx) isas.push_back("avx");
        if (f.avx2 && f.fma) isas.push_back("avx2");
        if (f.avx512f && f.fma) isas.push_back("avx512");
    } else if (arch == "aarch64") {
        if (f.neon) isas.push_back("scalar");
        if (f.neon) isas.push_back("neon");
    }
    return isas;
}

int run(std::vector<std::string> args, std::string& out, std::string& err) {
    args.insert(args.begin(), "peak");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream o, e;
    const int rc = gemm::peak::run(static_cast<int>(argv.size()), argv.data(), o, e);
    out = o.str();
    err = e.str();
    return rc;
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    return fields;
}

}  // namespace

TEST_CASE("the meter measures exactly the instruction sets gemm::cpu reports", "[peak]") {
    std::vector<std::string> names;
    for (const gemm::peak::Isa* isa : gemm::peak::available_isas()) names.emplace_back(isa->name);
    CHECK(names == expected_isas());
}

TEST_CASE("the peak CSV: isa,precision,threads,gflops for every ISA, precision and thread count", "[peak]") {
    const std::string path = "test_peak_out.csv";
    std::remove(path.c_str());
    std::string out, err;
    REQUIRE(run({"--seconds", "0.02", "--reps", "1", "--csv", path}, out, err) == 0);
    CHECK(err.empty());

    std::ifstream in(path);
    REQUIRE(in);
    std::string header;
    std::getline(in, header);
    CHECK(header == "isa,precision,threads,gflops");

    const int all = static_cast<int>(gemm::cpu::allowed_cpus().size());
    std::set<int> thread_counts = {1, all};
    std::map<std::string, int> rows_per_isa;
    std::set<std::string> seen;
    const std::regex figure(R"(\d+\.\d)");
    int rows = 0;
    for (std::string line; std::getline(in, line); ++rows) {
        INFO("CSV line: " << line);
        const auto f = split(line);
        REQUIRE(f.size() == 4);
        CHECK((f[1] == "fp32" || f[1] == "fp64"));
        CHECK(thread_counts.count(std::stoi(f[2])) == 1);
        CHECK(std::regex_match(f[3], figure));
        CHECK(std::stod(f[3]) > 0);
        CHECK(seen.insert(f[0] + "," + f[1] + "," + f[2]).second);   // no duplicate row
        ++rows_per_isa[f[0]];
    }
    std::vector<std::string> isas;
    for (const auto& [isa, n] : rows_per_isa) {
        isas.push_back(isa);
        CHECK(n == 2 * static_cast<int>(thread_counts.size()));   // fp32 and fp64 per count
    }
    std::vector<std::string> expected = expected_isas();
    std::sort(expected.begin(), expected.end());
    CHECK(isas == expected);
    CHECK(rows > 0);
    // The table on stdout has the same rows, with the formula's figure next to each.
    CHECK(out.find("formula") != std::string::npos);
    CHECK(out.find("FLOPs per cycle") != std::string::npos);
    std::remove(path.c_str());
}

TEST_CASE("measure gives a positive, finite rate for every ISA and precision", "[peak]") {
    for (const gemm::peak::Isa* isa : gemm::peak::available_isas()) {
        for (auto p : {gemm::peak::Precision::fp32, gemm::peak::Precision::fp64}) {
            INFO(isa->name << " " << gemm::peak::to_string(p));
            const auto m = gemm::peak::measure(*isa, p, 1, 0.01, 1);
            CHECK(std::isfinite(m.gflops));
            CHECK(m.gflops > 0);
            CHECK(m.cpu_share > 0);
            CHECK(m.cpu_share <= 1.0);
        }
    }
}

TEST_CASE("the formula has an assumption for every ISA measured", "[peak]") {
    for (const gemm::peak::Isa& isa : gemm::peak::built_isas()) {
        INFO(isa.name);
        const auto f = gemm::peak::flops_per_cycle(isa.name, gemm::cpu::microarch());
        CHECK(f.fp32 > 0);
        CHECK_FALSE(f.why.empty());
    }
    CHECK(gemm::peak::physical_cores(1) == 1);
    const int all = static_cast<int>(gemm::cpu::allowed_cpus().size());
    CHECK(gemm::peak::physical_cores(all) >= 1);
    CHECK(gemm::peak::physical_cores(all) <= all);
}

TEST_CASE("the formula takes its clock from --ghz", "[peak]") {
    std::string out, err;
    const auto isas = gemm::peak::available_isas();
    if (isas.empty()) return;
    REQUIRE(run({"--seconds", "0.01", "--reps", "1", "--threads", "1", "--ghz", "2",
                 "--isa", std::string(isas[0]->name)}, out, err) == 0);
    const double fpc = gemm::peak::flops_per_cycle(isas[0]->name, gemm::cpu::microarch()).fp32;
    char expected[32];
    std::snprintf(expected, sizeof expected, "%.1f", 2 * fpc);   // 1 core x 2 GHz x fp32 FLOPs/cycle
    INFO(out);
    CHECK(out.find("2.00 GHz [--ghz]") != std::string::npos);
    CHECK(out.find(expected) != std::string::npos);
}

TEST_CASE("bad options are usage errors: exit 2, one line naming the option", "[peak]") {
    const std::vector<std::vector<std::string>> bad = {
        {"--bogus"}, {"--seconds"}, {"--seconds", "0"}, {"--seconds", "fast"}, {"--reps", "0"},
        {"--threads", "-1"}, {"--threads", "2x"}, {"--ghz", "-3"}, {"--isa", "mmx"}, {"--csv"}};
    for (const auto& args : bad) {
        INFO(args[0] << (args.size() > 1 ? " " + args[1] : ""));
        std::string out, err;
        CHECK(run(args, out, err) == 2);
        CHECK(std::count(err.begin(), err.end(), '\n') == 1);
        CHECK(err.find(args[0]) != std::string::npos);
    }
    std::string out, err;
    CHECK(run({"--help"}, out, err) == 0);
    CHECK(out.find("usage: peak") != std::string::npos);
}

TEST_CASE("peak: --isa takes a plain list - no empty entry, no repeat - and --help wins", "[peak]") {
    const auto isas = gemm::peak::available_isas();
    REQUIRE_FALSE(isas.empty());
    const std::string isa(isas[0]->name);
    for (const std::string& list : {isa + ",", "," + isa, isa + ",," + isa, isa + "," + isa, std::string(",")}) {
        INFO("--isa " << list);
        std::string out, err;
        CHECK(run({"--isa", list}, out, err) == 2);
        CHECK(err.find("--isa '" + list + "'") != std::string::npos);
        CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    }
    for (const auto& args : std::vector<std::vector<std::string>>{{"--help", "--bogus"}, {"--bogus", "--help"}}) {
        std::string out, err;
        CHECK(run(args, out, err) == 0);
        CHECK(out.find("usage: peak") != std::string::npos);
    }
    std::string out, err;
    CHECK(run({"--csv", "--isa", isa}, out, err) == 2);   // the value was forgotten
    CHECK(err.find("--csv: needs a value") != std::string::npos);
}

TEST_CASE("peak: an unwritable --csv is exit 3 before measuring - the old file stays until the end",
          "[peak]") {
    const auto isas = gemm::peak::available_isas();
    REQUIRE_FALSE(isas.empty());
    const std::string isa(isas[0]->name);
    std::string out, err;
    CHECK(run({"--isa", isa, "--csv", "/nonexistent-folder/peak.csv"}, out, err) == 3);
    CHECK(err.find("/nonexistent-folder/peak.csv") != std::string::npos);
    CHECK(out.find("GFLOPS") == std::string::npos);   // refused before measuring

    // While peak measures, results/peak.csv must still hold the old figures: an interrupted
    // run would otherwise leave an empty file behind.
    const std::string path = "test_peak_keep.csv";
    { std::ofstream(path) << "isa,precision,threads,gflops\nold,fp32,1,1.0\n"; }
    int status = -1;
    std::thread meter([&] {
        std::string o, e;
        status = run({"--isa", isa, "--threads", "1", "--reps", "1", "--seconds", "0.4", "--csv", path}, o, e);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    std::string during;
    {
        std::ifstream in(path);
        std::getline(in, during);
        std::getline(in, during);
    }
    meter.join();
    CHECK(during == "old,fp32,1,1.0");
    CHECK(status == 0);
    std::ifstream in(path);
    std::string header, first;
    std::getline(in, header);
    std::getline(in, first);
    CHECK(first.rfind(isa + ",fp32,1,", 0) == 0);
    std::remove(path.c_str());
}

TEST_CASE("the CPU report shows the features and each step's block sizes from the registry", "[peak]") {
    std::ostringstream report;
    gemm::peak::cpu_report(report);
    const std::string text = report.str();
    INFO(text);
    CHECK(text.find(gemm::cpu::name()) != std::string::npos);
    for (const std::string& isa : expected_isas()) CHECK(text.find(isa) != std::string::npos);
    for (const gemm::Step& step : gemm::steps()) {
        CHECK(text.find(std::string(step.slug)) != std::string::npos);
        if (!step.supported()) continue;
        for (const gemm::Param& p : step.def->params) {
            INFO(step.slug << " --" << p.name);
            // Listed with its value where it changes something on this CPU, left out where not
            // (step 10's AVX-512 switches on a CPU without AVX-512).
            const bool listed = text.find(std::string(p.name) + " = ") != std::string::npos;
            if (const std::optional<int> value = gemm::shown_value(step, gemm::Setting{step.best_variant()->name}, p))
                CHECK(text.find(std::string(p.name) + " = " + std::to_string(*value)) != std::string::npos);
            else
                CHECK_FALSE(listed);
        }
    }
}

// A figure that cannot be measured is never written as 0.0 (the plots refuse it): --seconds
// has a floor at which the loop is long enough to time, and what is measured is positive.
TEST_CASE("peak: --seconds below what can be timed is refused - a short run still measures above 0", "[peak]") {
    std::string out, err;
    CHECK(run({"--seconds", "0.000000001", "--reps", "1", "--isa", "scalar", "--threads", "1"}, out, err) == 2);
    CHECK(err.find("--seconds '0.000000001': must be from 0.001 to 60") != std::string::npos);
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    const auto isas = gemm::peak::available_isas();
    REQUIRE_FALSE(isas.empty());
    for (int i = 0; i < 5; ++i) {
        const gemm::peak::Measurement m = gemm::peak::measure(*isas[0], gemm::peak::Precision::fp32, 1, 0.001, 1);
        CHECK(m.gflops > 0);
        CHECK(std::isfinite(m.gflops));
    }
}

// Text from the command line is shown through gemm::shown(): one line, no control characters.
TEST_CASE("peak: a value holding a newline or ESC gives one line", "[peak]") {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--reps", "1\n2"}, {"--isa", "sse\033[31m"}, {"--x\ny"}, {"--seconds", "1\n"}, {"--isa", "\n,"}}) {
        INFO(args[0]);
        std::string out, err;
        CHECK(run(args, out, err) == 2);
        CHECK(std::count(err.begin(), err.end(), '\n') == 1);
        CHECK(err.find('\033') == std::string::npos);
    }
}
